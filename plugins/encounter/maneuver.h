/*
 * maneuver.h - bull-rush pushes that provoke, the shared-space grapple
 * with several participants, overruns inside a move or a charge: see
 * maneuver.c (spec 5.6, 5.13, 5.14).
 *
 * The functions taking a ctx draw and emit through enc_host and return
 * REFD_OK or the host's negative code, as cmd.c's actions do.
 */
#ifndef ENC_MANEUVER_H
#define ENC_MANEUVER_H

#include "cmd.h"

/* A paused push of a bull rush (struct cont kind, after K_ACT). */
#define K_PUSH 10

/* A paused grapple's move into the target's space (struct cont act),
 * and the grapple move (struct cont mode). */
#define ACT_GRAP_IN 110
#define MV_GRAP 10

/* cmd.c internals used here. */
int rej(struct why *w, int code, const char *rule, const char *fmt, ...);
const char *nm(const struct st *s, int i);
int can_std(const struct st *s, const struct cr *c);
int can_move(const struct st *s, const struct cr *c);
int check_path(const struct st *s, int a, struct cmd *c, int allow,
    struct why *y);
int start_move(refd_ctx *ctx, struct st *s, int a, struct cmd *c, int mode,
    int allow);
void use_std(struct st *s, const struct cr *A);
int grapple_mod(const struct cr *c);
int unarmed_damage(refd_ctx *ctx, struct st *s, int a, int t);
int overrun_block(refd_ctx *ctx, struct st *s, int avoid);
int ev_simple(refd_ctx *ctx, const char *type, const struct st *s, int who,
    int target);
int emit_at2(refd_ctx *ctx, const struct st *s, int who, int also,
    refd_mpw *w);
int ev_check(refd_ctx *ctx, const char *type, const struct st *s, int a,
    int t, int ra, int ta, int rd, int td, int win);
int settle(refd_ctx *ctx, struct st *s);
int aoo_queue(struct st *s, int m, int only, int skip_mask);

/* Bull rush (5.6): push t away from a `pushes` squares, a following;
 * each square the pushed creature or the follower leaves provokes from
 * third parties (never from each other). */
int man_push_start(refd_ctx *ctx, struct st *s, int a, int t, int pushes,
    int follow);
int man_push_run(refd_ctx *ctx, struct st *s);
/* The creature a pending attack of opportunity is made against. */
int man_aoo_victim(const struct st *s);
/* Record that threatener `who` took its opportunity. */
void man_aoo_taken(struct st *s, int who);

/* Grapple groups (5.13). */
int man_in_grapple(const struct st *s, int a, int t);
void man_grapple_join(struct st *s, int a, int t);
void man_grapple_leave(struct st *s, int d);
void man_pins_expire(struct st *s, int n);
int man_join_ok(const struct st *s, int a, int t, struct why *y);
int man_enter_start(refd_ctx *ctx, struct st *s, int a, int t);
int man_enter(refd_ctx *ctx, struct st *s);
int man_grapple_pick(refd_ctx *ctx, struct st *s, int a, int *t);
int man_grapple_check(const struct st *s, int a, struct cmd *c,
    struct why *y);
int man_grapple_exec(refd_ctx *ctx, struct st *s, int a, struct cmd *c);
int man_drag(refd_ctx *ctx, struct st *s, int a);

/* Overrun inside a move (5.14): the check of its path ("to" or
 * "path"), the legal lines, the step into the defender's square. */
int man_ovr_line(const struct st *s, int a, int t, int x, int y, int *px,
    int *py);
int man_overrun_path_ok(const struct st *s, int a, struct cmd *c,
    struct why *y);
int man_overrun_move(refd_ctx *ctx, struct st *s, int *rc);
int man_ovr_defender(const struct st *s);
int man_charge_overrun_ok(const struct st *s, int seat, int a,
    struct cmd *c, struct why *y);

#endif
