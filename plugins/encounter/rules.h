/*
 * rules.h - the encounter ruleset's rules engine: see rules.c.
 *
 * Ownership: every function borrows the state (and ctx) for the call and
 * allocates nothing it keeps; functions taking a ctx draw and emit
 * through enc_host and return REFD_OK or the host's negative code
 * (REFD_ESCRIPT, REFD_ENOMEM), which the op must return.  One thread at a
 * time per state, as refd-plugin(3) says.
 */
#ifndef ENC_RULES_H
#define ENC_RULES_H

#include "content.h"
#include "enc.h"

extern const struct refd_host *enc_host;

/* A reason for a refusal, filled by the checks. */
struct why {
	int code;
	const char *rule;
	char msg[240];
};

/* Attack options (flags). */
enum {
	A_RANGED = 1 << 0,
	A_TOUCH = 1 << 1,
	A_AOO = 1 << 2,
	A_CHARGE = 1 << 3,
	A_OFF = 1 << 4,
	A_NONLETHAL = 1 << 5,	/* lethal weapon used for nonlethal damage */
	A_LETHAL = 1 << 6,	/* nonlethal weapon used for lethal damage */
	A_DEFENSIVE = 1 << 7,
	A_CDG = 1 << 8,
	A_NODMG = 1 << 9,	/* a touch attack that only grabs or trips */
	A_GRAP = 1 << 10,	/* attacking the grapple opponent */
	A_SQUARE = 1 << 11,	/* an attack on a chosen square (5.2) */
	A_SET = 1 << 12,	/* set against a charge: damage x2 */
	A_THROWN = 1 << 13	/* a throwable melee weapon, thrown */
};

struct atk {
	int nat, bonus, total, ac, hit, concealed, crit, dmg, nonlethal;
};

int mod(int score);
int space_n(const struct cr *c);
int natreach(const struct cr *c);
int alive(const struct cr *c);
int able(const struct cr *c);
int helpless(const struct cr *c);
int acts(const struct cr *c);
int save_pen(const struct cr *c);
int perceives(const struct st *s, int v, int c);
int sees_invis(const struct st *s, int v, int c);
int seat_sees(const struct st *s, int seat, int c);
int restricted(const struct st *s, const struct cr *c);
int speed_of(const struct cr *c);
int armed(const struct cr *c);
void melee_weapon(const struct cr *c, struct weapon *w);
int cdist(const struct cr *a, const struct cr *b);
int reaches(const struct st *s, const struct cr *a, const struct weapon *w,
    const struct cr *t);
int threatens(const struct st *s, int a, int t);
int occupant(const struct st *s, int x, int y, int except);
int has_loe(const struct st *s, int a, int t);
int cover_vs(const struct st *s, int a, int t, int melee);
int conceal_vs(const struct st *s, int a, int t, int melee);
int conceal_terrain(const struct st *s, int a, int t, int melee);
int feat_blocked(const struct st *s, int a, int t, int mode);
int flanked(const struct st *s, int a, int d);
int loses_dex(const struct st *s, int d, int a);
int ac_vs(const struct st *s, int d, int a, int flags);
int atk_bonus(const struct st *s, int a, int d, const struct weapon *w,
    int flags, int pen);
int can_aoo(const struct st *s, int t, int m);
int sizemod(int size);
int str_dmg(const struct cr *a, const struct weapon *w, int off);

int roll(refd_ctx *ctx, uint32_t sides, const char *why, int *out);
int emitw(refd_ctx *ctx, const struct st *s, refd_mpw *w);
int emit_raw(refd_ctx *ctx, int seat, refd_mpw *w);	/* as is, to seat */
int attack(refd_ctx *ctx, struct st *s, int a, int d,
    const struct weapon *w, int flags, int pen, int pre, struct atk *r);
int deal(refd_ctx *ctx, struct st *s, int d, int dmg, int nonlethal,
    int massive);
int opposed(refd_ctx *ctx, int ma, int md, const char *why, int *ra,
    int *rd, int *win);
const char *state_name(const struct cr *c);
void check_over(struct st *s);
int state_idx(const struct cr *c);
int ev_states(refd_ctx *ctx, struct st *s);

#endif
