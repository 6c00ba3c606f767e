/*
 * mount.h - mounted combat (spec 5.15): see mount.c.
 *
 * A rider and its mount are two creatures linked by the rider's
 * `mounted` (mount index + 1).  The rider shares the mount's space
 * (its space side and speed are copied into ride_n and ride_sp), the
 * mount has no turn of its own and moves on the rider's commands.  The
 * checks borrow the state; the exec functions draw and emit through
 * enc_host and return REFD_OK or the host's negative code.
 */
#ifndef ENC_MOUNT_H
#define ENC_MOUNT_H

#include "cmd.h"

int mt_partner(const struct st *s, int i);
int mt_pair(const struct st *s, int i, int j);
int mt_mask(const struct st *s);
void mt_follow(struct st *s, int i);
void mt_turn(struct st *s, int a);
int mt_setup(struct st *s, char rides[MAXC][NAMEL], char *err, size_t elen);
int mt_check(const struct st *s, int a, struct cmd *c, struct why *y,
    int *done);
int mt_path_ok(const struct st *s, int a, const struct cmd *c,
    struct why *y);
int mt_exec(refd_ctx *ctx, struct st *s, struct cmd *c, int *done);
int mt_control(refd_ctx *ctx, struct st *s, int a);
void mt_charge(struct st *s, int a);
void mt_run(struct st *s, int a);
void mt_attacked(struct st *s, int a, int full, const struct weapon *w);
void mt_cast(struct st *s, int a, const struct cmd *c);
int mt_atk(const struct st *s, int a, int d, int flags);
int mt_lance(const struct st *s, int a, const struct weapon *w, int flags);
int mt_trip_md(const struct st *s, int t, int md);
int mt_falls(refd_ctx *ctx, struct st *s);
int mt_round(refd_ctx *ctx, struct st *s);

#endif
