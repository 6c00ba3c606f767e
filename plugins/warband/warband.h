/*
 * warband.h - types shared by the files of the warband ruleset plugin.
 *
 * The match state is plain int32_t members only (no pointers, no padding),
 * so serialize writes its bytes and restore reads them back.
 */
#ifndef WARBAND_H
#define WARBAND_H

#include <stdint.h>

#include <refd/deck.h>
#include <refd/mp.h>
#include <refd/plugin.h>

#define MAXW 24
#define MAXSQ (MAXW * MAXW)
#define MAXE 628		/* (MAXW + 1)^2, rounded up to 4 */
#define MAXU 64
#define MAXSEAT 4
#define MAXSTACK 32
#define MAXQ 16
#define MAXATT 6
#define MAXPATH 16
#define MAXCDEF 32
#define MAXODEF 32
#define MAXCMD 8
#define MAXBAND 8
#define MAXMAP 4
#define MAXKW 24
#define MAXTQ 16

/* Square flags. */
enum { SQ_WALL = 1, SQ_DIFF = 2, SQ_HAZ = 4, SQ_OBST = 8, SQ_MAGIC = 16,
	SQ_TREAS = 32 };
/* Abilities. */
enum { AB_STR = 1, AB_DEX = 2, AB_CON = 4, AB_INT = 8, AB_WIS = 16,
	AB_CHA = 32, AB_ANY = 64 };
/* Traits and powers of creatures. */
enum { TR_FLIGHT = 1, TR_BURROW = 2, TR_SLIP = 4 };
enum { PW_NONE, PW_BRACE, PW_MEND, PW_SNAP };
/* Order action types. */
enum { OT_STD, OT_MINOR, OT_IMM };
/* Order effects. */
enum { OE_MELEE, OE_SHIFT_MELEE, OE_RANGED_BOOST, OE_PREVENT,
	OE_MELEE_ATTACH, OE_BOOST, OE_SLIDE, OE_RANGED_FIXED, OE_PROMOTE,
	OE_CIRCLE, OE_RANGED_PIN, OE_SIDESTEP, OE_HEAL, OE_CONTROL,
	OE_HEAL_ALLY };
/* Commander powers. */
enum { CP_NONE, CP_QUARTERMASTER, CP_GRIM_TALLY };

struct cdef {
	char id[8], name[32];
	int level, hp, abil, kw, melee, ranged, range, speed, size, traits,
	    power;
};

struct odef {
	char id[8], name[32];
	int level, abil, type, req_kw, aff_kw, effect, dmg, range, shift;
	int nolos;		/* range counted through walls, no sight */
};

struct kdef {
	char id[8], name[40];
	int ohand, chand, morale, lead, power;
};

struct band {
	char id[16];
	int nc, no;
	int c[REFD_DECK_MAX], o[REFD_DECK_MAX];
};

struct mapdef {
	char id[24];
	int w, h;
	uint8_t flags[MAXSQ], start[MAXSQ];	/* start: 0, or seat + 1 */
	uint8_t hw[MAXE], vw[MAXE];
	int nchest, chest[8];
};

#define MAXTILE 16
#define TILEW 12

/* A battlefield tile (R004-08): rows as in maps.json, with S for the
 * start area of the tile's owner, and the N E S W sides, 'o' open or
 * 'w' walled. */
struct tiledef {
	char id[16];
	int large, w, h;
	char rows[TILEW][TILEW + 1];
	char sides[5];
};

struct content {
	int ncd, nod, nkd, nband, nmap, nkw, ntile;
	struct tiledef tile[MAXTILE];
	struct cdef cd[MAXCDEF];
	struct odef od[MAXODEF];
	struct kdef kd[MAXCMD];
	struct band band[MAXBAND];
	struct mapdef map[MAXMAP];
	char kw[MAXKW][16];
};

/* A creature in play (or dead: alive = 0). */
struct unit {
	int32_t def, owner, ctrl, x, y, dmg, tapped, activated, alive, moved;
	int32_t hazard_hit, shout, snared, natt;
	int32_t att[MAXATT], attown[MAXATT];
};

/* Stack item kinds. */
enum { IT_MOVE, IT_ATTACK, IT_SHIFT, IT_SLIDE, IT_PREVENT, IT_BRACE,
	IT_AVOID, IT_BOOST, IT_PROMOTE, IT_CIRCLE, IT_HEAL, IT_CONTROL,
	IT_GRAB, IT_HAZARD, IT_FESTER, IT_SNAP, IT_MEND };

struct item {
	int32_t kind, seat, actor, target, card, cardown, last, origin;
	int32_t dmg, range, ranged, attach, n, ref;
	int32_t npath, px[MAXPATH], py[MAXPATH];
};

/* A damage event waiting for its cower decision. */
struct dmgq {
	int32_t unit, amount, origin, attach, attown, cowered;
};

/* Damage modifiers keyed on an origin: avoid, prevent or reduce. */
struct shield {
	int32_t unit, origin, kind, amount;	/* kind 0 avoid, 1 prevent,
						 * 2 reduce */
};

enum { PH_ORDER, PH_SETUP, PH_REFRESH, PH_ACTIVATION, PH_DEPLOY,
	PH_CLEANUP, PH_OVER, PH_CMD };

struct seatst {
	int32_t cmd, band, morale, lead, deployed, disq, chose;
};

struct state {
	int32_t magic, version;
	int32_t nseats, w, h, phase, sub, active, first, chooser, round,
	    max_rounds, turns, cower_to_zero, first_game, test;
	int32_t dseat, ndeployed;	/* setup deployment */
	int32_t act_unit;		/* activated creature, or 0 */
	int32_t win, prio, passes;	/* response window */
	int32_t nstack, norigin, nq, qi, qitem_done, nshield;
	int32_t ntq, tqkind, npick;	/* ordered effects */
	int32_t trig_n, trig_i;		/* optional triggers (snap) */
	int32_t pathp;			/* 1: a path prompt is open */
	int32_t over, winners, reason;
	int32_t nunits, teams;
	int32_t team[MAXSEAT];
	uint8_t flags[MAXSQ], start[MAXSQ];
	uint8_t hw[MAXE], vw[MAXE];
	int32_t chest[MAXSQ], treasure[MAXSQ];
	struct seatst seat[MAXSEAT];
	struct unit u[MAXU];
	struct item stack[MAXSTACK];
	struct item pend;		/* item whose path is being chosen */
	struct dmgq q[MAXQ];
	struct shield sh[MAXQ];
	int32_t tq[MAXTQ];		/* units with an ordered effect */
	int32_t trig[MAXTQ][2];		/* hound, mover */
	struct refd_deck odeck[MAXSEAT], ohand[MAXSEAT], odisc[MAXSEAT];
	struct refd_deck cdeck[MAXSEAT], chand[MAXSEAT], grave[MAXSEAT];
};

/* Are seats a and b enemies (different teams)? */
#define ENEMY(s, a, b) ((s)->team[(a)] != (s)->team[(b)])

#define STATE_MAGIC 0x57424e44
#define STATE_VERSION 1

/* geom.c */
int sq_valid(const struct state *s, int x, int y);
int step_ok(const struct state *s, int ax, int ay, int bx, int by);
int fp_step_ok(const struct state *s, int size, int ax, int ay, int bx,
    int by);
int cheb_dist(const struct content *c, const struct unit *a,
    const struct unit *t);
int wall_dist(const struct state *s, const struct content *c,
    const struct unit *a, const struct unit *t);
int adjacent(const struct state *s, const struct content *c,
    const struct unit *a, const struct unit *b);
int melee_reach(const struct state *s, const struct content *c,
    const struct unit *a, const struct unit *t);
int los(const struct state *s, const struct content *c, int attacker,
    int target);
int has_cover(const struct state *s, const struct content *c, int attacker,
    int target);
int unit_at(const struct state *s, const struct content *c, int x, int y);
int usize(const struct content *c, const struct unit *u);

#endif /* WARBAND_H */

/* One call into the plugin: the state, content and host context. */
struct g {
	struct state *s;
	const struct content *c;
	refd_ctx *ctx;
	int rc;			/* first host error, or 0 */
};

/* Why a command is refused. */
struct err {
	int code;
	const char *rule;
	char msg[240];
};

extern const struct refd_host *H;

/* tiles.c */
int tiles_load(struct content *c, refd_mpv f, char *msg, size_t n);
int tiles_assemble(const struct content *c, refd_mpv layout,
    struct mapdef *m, char *msg, size_t n);

/* rules.c */
int ev(struct g *g, int32_t seat, const char *type, ...);
int is_ap_turn(const struct state *s);
int legal_list(struct g *g, uint32_t seat, refd_mpw *w);
int apply_cmd(struct g *g, uint32_t seat, refd_mpv cmd, struct err *e);
uint64_t pending_seats(const struct state *s);
void advance(struct g *g);
int start_game(struct g *g);
void commit_all(struct g *g);
void deal_hands(struct g *g);
int cur_level(const struct g *g, const struct unit *u);
const char *uname(const struct g *g, int id);

/* What the host holds as the match state: the serializable state and the
 * content it was created with. */
struct match {
	struct state s;
	const struct content *c;
};
