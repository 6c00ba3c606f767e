/*
 * mb.h - massbattle ruleset: content, state and shared declarations.
 * Integer fixed point only: lengths in mils (1/1000 inch).
 */
#ifndef MB_H
#define MB_H

#include <stdint.h>

#include <refd/cont.h>
#include <refd/mp.h>
#include <refd/plugin.h>

#define INCH 1000
#define NAMEL 32
#define MAXPROF 48
#define MAXSPELL 32
#define MAXCARD 16
#define MAXORDER 16
#define MAXW 4
#define MAXPSPELL 12
#define MAXM 64
#define MAXU 32
#define MAXINST 48
#define MAXPROMPT 16
#define MAXPATH 8
#define MAXARMY 8
#define MAXAU 12
#define MAXAM 32

enum kind { K_TROOPER = 0, K_SOLO, K_WARJACK, K_WARCASTER };
enum role { R_GRUNT = 0, R_LEADER, R_OFFICER, R_SB, R_ATTACH, R_SOLO,
	R_WARJACK, R_WARCASTER };
enum tgt { T_ANY = 0, T_ENEMY_TROOPER, T_FRIENDLY, T_SELF, T_OWN_JACK,
	T_UNIT, T_ENEMY, T_LIVING, T_ENEMY_NONTROOPER };
enum okind { O_RUN = 0, O_CHARGE, O_RIDEBY };

struct weapon {
	char name[NAMEL];
	int32_t melee, pow, rng, rof, reach, open_fist, system;
};

struct profile {
	char key[NAMEL], name[NAMEL];
	int32_t kind, cat, r, spd, mat, rat, def, arm, cmd, focus, boxes;
	int32_t heavy, arc_node, commander, fearless, terrifying, cra, cma;
	int32_t cavalry;
	int32_t points, nw, nspells, feat;
	int32_t spells[MAXPSPELL];
	int32_t norders, orders[4];
	int32_t grid[6];		/* warjack damage grid columns, 0: none */
	struct weapon w[MAXW];
};

struct spell {
	char key[NAMEL], name[NAMEL];
	int32_t cost, rng, pow, aoe, upkeep, off, tgt;
	int32_t def, arm, mat, round, fire, kd, ctrl, ctrl_x2;
	int32_t dice, auto_hit;		/* attack dice added; automatic hit */
	int32_t animus, control;
};

struct order {
	char key[NAMEL];
	int32_t kind;
};

struct card {
	char key[NAMEL];
	int32_t gmin, gmax, weapon_crew, norders, orders[4];
	int32_t nallow, allow[4];	/* attachment cards allowed */
	int32_t attach;			/* 0 unit, 1 UA, 2 WA */
};

struct amodel {
	int32_t prof, role, dx, dy, bg;
};

struct aunit {
	int32_t card, ua, wa, nm, m0;
};

/* A ready-made army list, deployed relative to its side's anchor. */
struct army {
	char key[NAMEL];
	int32_t nu, nm;
	struct aunit u[MAXAU];
	struct amodel m[MAXAM];
};

struct content {
	int32_t np, ns, no, nc, na;
	struct army a[MAXARMY];
	struct profile p[MAXPROF];
	struct spell sp[MAXSPELL];
	struct order o[MAXORDER];
	struct card c[MAXCARD];
};

/* Model flags. */
#define F_KD 0x1
#define F_STAT 0x2
#define F_FLEE 0x4		/* individually fleeing */
#define F_FIRE 0x8
#define F_COVER 0x10
#define F_CONCEAL 0x20
#define F_SNAPOUT 0x40		/* out of formation at activation start */
#define F_DYING 0x80
#define F_FLEE0 0x100		/* fleeing when its activation began */
#define F_RAN 0x200
#define F_FEATNOW 0x400
#define F_CASTNOW 0x800
#define F_CHARGED 0x1000	/* successful charge this activation */
#define F_ORDERED 0x2000	/* received this activation's order */
#define F_AIM 0x4000

/* Movement done this activation. */
enum mv { MV_NONE = 0, MV_ADV, MV_RUN, MV_CHARGE, MV_FORFEIT, MV_FAILCH };

struct model {
	int32_t alive, id, side, prof, unit, role;
	int32_t x, y, z, fx, fy, r, cat;
	int32_t marked, focus, alloc, flags, lock_turn, feat_used, bg;
	int32_t mv, acted, atk[MAXW], bought, ctarget, cdist, ax, ay;
	int32_t gm[6];			/* marked boxes per grid column */
	int32_t owner, bg0;		/* original side and battlegroup */
};

struct unit {
	int32_t alive, id, side, card, uc, designated, weapon_crew;
	int32_t order, act, start_n, mc_turn, fleeing, fleeing0;
	int32_t need, norders, orders[4];
	int32_t terror;			/* 1: a terror check is owed */
	int32_t sbx, sby;		/* where the lost SB stood */
	int32_t lx, ly;			/* where the lost Leader stood */
};
#define N_PROMOTE 0x1
#define N_DESIGNATE 0x2
#define N_SBREP 0x4
#define N_MC 0x8

struct inst {
	int32_t on, spell, caster, side, model, unit, upkeep, turn, kept;
};

enum pk { P_NONE = 0, P_PROMOTE, P_DESIGNATE, P_SBREP, P_REROLL,
	P_FREESTRIKE, P_DAMAGE, P_FIRST, P_CMDER };
enum cons { C_FLEE_UNIT = 1, C_FLEE_MODEL, C_RALLY_UNIT, C_RALLY_MODEL };

struct prompt {
	int32_t kind, seat, unit, model, a, b, c, d;
};

enum phase { PH_CP_ALLOC = 1, PH_CP_UPKEEP, PH_CP_SHAKE, PH_ACT, PH_OVER,
	PH_START, PH_ARMY };

/* Pending damage roll (P_DAMAGE and direct resolution). */
struct pdmg {
	int32_t on, att, tgt, base, dice, free_boost, melee, charge;
};

struct state {
	int32_t magic, version;
	int32_t nm, nu, turn, active, phase, turn_limit, first;
	int32_t x0, y0, x1, y1, test_hooks, promo_lock_act, premeasure;
	int32_t massive;		/* option massive_casualties [ASM-15] */
	int32_t army[2];		/* sealed army choice + 1, 0: none yet */
	int32_t ncloud, cloud[8][3];	/* cloud effects: x, y, radius */
	int32_t cur;			/* current unit or -1 */
	int32_t eoa, eoa_idx;		/* end of activation in progress */
	int32_t winner, reason;		/* winner side, -1 draw */
	int32_t npr;
	int32_t in_attack;
	struct pdmg pd;
	struct prompt pr[MAXPROMPT];
	struct model m[MAXM];
	struct unit u[MAXU];
	struct inst in[MAXINST];
};

#define MB_MAGIC 0x4d423031

extern const struct refd_host *H;

#endif
