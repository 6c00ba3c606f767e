/*
 * cmd.h - the encounter ruleset's commands: see cmd.c.
 *
 * cmd_parse and cmd_check borrow the state and change nothing in it (a
 * refusal fills the why); cmd_exec changes the state, draws and emits
 * through enc_host and returns REFD_OK or the host's negative code;
 * cmd_legal appends to a writer the caller owns.
 */
#ifndef ENC_CMD_H
#define ENC_CMD_H

#include "rules.h"

enum {
	C_MOVE, C_STEP, C_ATTACK, C_FULL, C_CHARGE, C_RUN, C_WITHDRAW,
	C_TDEF, C_DELAY, C_STAND, C_PRONE, C_TRIP, C_BULL, C_DISARM,
	C_SUNDER, C_GRAPPLE, C_GDMG, C_ESCAPE, C_FEINT, C_AID, C_CDG,
	C_STAB, C_END, C_AOO, C_COUNTER, C_FOLLOW, C_ACT, C_WAIT, C_READY,
	C_FIRE, C_CRAWL, C_MINMOVE, C_CAST, C_OVERRUN, C_AVOID, C_CLEAVE,
	C_PIN, C_RELEASE, C_THROW, C_DRAW, C_SHEATHE, C_TURN, C_DRINK,
	C_GMOVE, C_GWEAPON, C_BREAKPIN,
	C_MOUNT, C_DISMOUNT, C_KNEES, C_CONTROL, C_MATTACK,
	C_HIDE, C_SPOT,
	C_USE_ITEM, C_USE_ABIL, C_TOUCH, C_REBUKE, C_DISPEL_TURN, C_BOLSTER,
	C_COMMAND, C_REST,
	C_PICKUP, C_DROP, C_SHIELD, C_HOLD, C_LOAD,
	C_RETRIEVE, C_NCMD
};

struct cmd {
	int t;
	int target, ally;	/* creature indexes, -1 */
	int has_to, x, y;
	int npath, px[MAXPATH], py[MAXPATH];
	int defensive, nonlethal, lethal, off, take, kind, full, start, trig;
	int thrown;		/* attack: throw the throwable melee weapon */
	int mode;		/* aid: 1 attack, 2 AC */
	int item;		/* sunder: 0 weapon, 1 armor, 2 shield */
	char spell[NAMEL];	/* cast: the spell's name */
	int has_sq, sqx, sqy;	/* attack: a square instead of a target */
	int has_pt, ptx, pty;	/* throw: a grid intersection */
	int si;			/* cast: its slot, set by the check */
	int ovr;		/* charge: a foe overrun on the way, -1 */
	int ovr_hidden;		/* the check sees the charge line without it */
	int fast;		/* mount, dismount: a quick one (Ride DC 20) */
	int mm;			/* cast: the mount moves on after it (5.15) */
	int meta, hold;		/* cast: metamagic MM_*; hold the charge */
	int hours, tend;	/* rest: hours; tended by a healer */
	int release;		/* command: release the undead */
	int ract;		/* ready: RK_* action */
	int artist;		/* escape: Escape Artist, a standard action */
	int silence;		/* pin: stop the pinned creature speaking */
};

extern const char *const cmd_name[C_NCMD];

int rej(struct why *w, int code, const char *rule, const char *fmt, ...);
/* An event that shows where creature who is: public, or only to the
 * seats that see it (with a public "unseen" notice), 8.4. */
int emit_at(refd_ctx *ctx, const struct st *s, int who, refd_mpw *w);

int cmd_parse(const struct st *s, const uint8_t *b, size_t len,
    struct cmd *c, struct why *w);
int cmd_check(const struct st *s, int seat, struct cmd *c, struct why *w);
int cmd_exec(refd_ctx *ctx, struct st *s, struct cmd *c);
int cmd_legal(const struct st *s, int seat, refd_mpw *w);
int turn_begin(refd_ctx *ctx, struct st *s, int n, int check_delay);
int pending_seats(const struct st *s, uint64_t *m);
int active(const struct st *s);
int can_move(const struct st *s, const struct cr *c);
int rej(struct why *w, int code, const char *rule, const char *fmt, ...);
int settle(refd_ctx *ctx, struct st *s);
int dying_roll(refd_ctx *ctx, struct st *s, int i);
int ev_simple(refd_ctx *ctx, const char *type, const struct st *s, int who,
    int target);
int emit_at(refd_ctx *ctx, const struct st *s, int who, refd_mpw *w);
int concentrate(refd_ctx *ctx, struct st *s, int a, int dc, const char *why,
    int *ok);

#endif
