/*
 * magic.h - timed effects, the condition engine, spell components and
 * casting times, held touch charges, items and special abilities,
 * rebuking and commanding undead, readied actions beyond attacks, and the
 * recovery after a fight: see magic.c.  Hooks called from cmd.c, rules.c,
 * content.c and encounter.c; the same ownership rules as rules.h.
 */
#ifndef ENC_MAGIC_H
#define ENC_MAGIC_H

#include "rules.h"

struct cmd;

/* Spell components (7.2). */
enum { MG_V = 1, MG_S = 2, MG_M = 4, MG_F = 8, MG_DF = 16 };
/* What a spell slot holds (7.3). */
enum { MK_SPELL, MK_SPELL_LIKE, MK_SUPERNATURAL, MK_EXTRAORDINARY,
	MK_SCROLL, MK_WAND };
/* Metamagic (7.2). */
enum { MM_EXTEND = 1, MM_EMPOWER = 2, MM_STILL = 4, MM_SILENT = 8 };
/* Readied actions (1.8). */
enum { RK_ATTACK, RK_MOVE, RK_DROP, RK_STAND };
/* Recovery stages (3.4). */
enum { MR_NONE, MR_UNCONSCIOUS, MR_ALONE, MR_RECOVERING };

/*
 * A duration's end: the round and the count (the creature whose turn it
 * was when the effect began).  It ends just before that count comes
 * round `rounds` rounds later (1.6, R001-66).
 */
int32_t mg_end(const struct st *s, int rounds);
int mg_ended(const struct st *s, int32_t end, int n);

/* Content and setup. */
int mg_spell_field(struct spell *sp, const char *k, refd_mpv x);
int mg_spell_done(struct spell *sp, char *err, size_t elen);
int mg_cfield(const struct content *c, struct cdef *d, const char *k,
    refd_mpv x, char *why, size_t wlen);
void mg_setup(struct st *s);
const char *mg_cond_name(int i);

/* Conditions. */
int mg_cond_add(refd_ctx *ctx, struct st *s, int t, int ci, int rounds,
    int src);
int mg_cond_del(refd_ctx *ctx, struct st *s, int t, int ci);
int mg_tick(refd_ctx *ctx, struct st *s, int n);
int mg_turn_start(refd_ctx *ctx, struct st *s, int i);
int mg_no_act(const struct cr *c);
int mg_save_pen(const struct cr *c);

/* Temporary hit points (3.6). */
int mg_absorb(struct cr *c, int dmg);
int mg_temp_add(refd_ctx *ctx, struct st *s, int t, int amt,
    const struct spell *sp);

/* Spells, abilities and items. */
int mg_spell_after_save(refd_ctx *ctx, struct st *s, int a, int t,
    const struct spell *sp, int saved);
int mg_amount(const struct cr *A, int amt);
int mg_cast_check(const struct st *s, int a, const struct cmd *c,
    const struct spell *sp, struct why *y);
int mg_time(const struct cr *A, const struct spell *sp, int meta);
int mg_provokes(const struct spell *sp);
int mg_counts(const struct spell *sp);
int mg_slot_ok(int t, const struct spell *sp);
int mg_cast_rounds(const struct cr *A, const struct spell *sp, int meta);
int mg_still_casting(struct st *s, int i);
int mg_verbal(const struct cr *A, const struct spell *sp);
int mg_concentrates(const struct spell *sp);
int mg_hold(refd_ctx *ctx, struct st *s, int a, int slot);
int mg_discharge(refd_ctx *ctx, struct st *s, int a, int t);
int spell_effect(refd_ctx *ctx, struct st *s, int a, int t,
    const struct spell *sp);

/* Turning (5.16). */
int mg_turn_hd(const struct cr *U);
int mg_turn_skip(const struct st *s, int a, int i);
void mg_rebuked(struct st *s, int a, int i, int command);

/* Commands of this file. */
int mg_parse(refd_mpv r, struct cmd *c);
int mg_check(const struct st *s, int a, struct cmd *c, struct why *y);
int mg_exec(refd_ctx *ctx, struct st *s, const struct cmd *c);
void mg_legal(const struct st *s, int seat, refd_mpw *w,
    void (*try)(const struct st *, int, refd_mpw *, struct cmd *,
    const char *), void (*blank)(struct cmd *, int),
    void (*put)(const struct st *, refd_mpw *, const struct cmd *,
    const char *));
int mg_sane(const struct st *s, const struct cr *c);
void mg_put(refd_mpw *w, const struct cmd *c);
int mg_ready_check(const struct st *s, int a, const struct cmd *c,
    struct why *y);
void mg_ready_set(struct cr *A, const struct cmd *c);
int mg_ready_near(const struct st *s, int r, int m, int px, int py);
int mg_fire(refd_ctx *ctx, struct st *s, int r);
void mg_legal_ready(const struct st *s, int seat, refd_mpw *w, int t,
    void (*put)(const struct st *, refd_mpw *, const struct cmd *,
    const char *), void (*blank)(struct cmd *, int));
void mg_view(const struct st *s, int i, int own, refd_mpw *w);

/* After the fight (3.4, 3.5, 3.7). */
int mg_rest_begin(refd_ctx *ctx, struct st *s);
uint64_t mg_rest_seats(const struct st *s);
int mg_rest_check(const struct st *s, int seat, struct cmd *c,
    struct why *y);
int mg_rest_exec(refd_ctx *ctx, struct st *s, const struct cmd *c);

#endif
