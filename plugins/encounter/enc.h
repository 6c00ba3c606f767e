/*
 * enc.h - the encounter ruleset's state, shared by its source files.
 *
 * The match state is one flat struct of fixed-size integers and names,
 * zeroed at creation, with no pointers: serialize writes its bytes and
 * restore checks and copies them back.
 */
#ifndef ENC_H
#define ENC_H

#include <stdint.h>

#include <refd/mp.h>
#include <refd/plugin.h>

#define MAXC 16		/* creatures in an encounter */
#define MAXM 40		/* map side, squares */
#define MAXPATH 96	/* squares in one path */
#define NAMEL 24
#define MAXW 32		/* weapons in the content */
#define MAXD 32		/* creature templates in the content */
#define MAXMAPS 8
#define NSTATES 8	/* visible states (state_idx) */
#define MAXG 8		/* weapons lying on the ground */

#define ENC_MAGIC 0x454e4331u	/* "ENC1" */

/* Feats and abilities (cdef.feats). */
enum {
	F_CR = 1 << 0,		/* Combat Reflexes */
	F_IUS = 1 << 1,		/* Improved Unarmed Strike */
	F_ITRIP = 1 << 2,
	F_IBR = 1 << 3,		/* Improved Bull Rush */
	F_IDIS = 1 << 4,
	F_ISUN = 1 << 5,
	F_IFEINT = 1 << 6,
	F_PS = 1 << 7,		/* Precise Shot */
	F_TWF = 1 << 8,
	F_RUN = 1 << 9,
	F_UD = 1 << 10,		/* uncanny dodge */
	F_IOVR = 1 << 11,	/* Improved Overrun */
	F_CLEAVE = 1 << 12,
	F_GCLEAVE = 1 << 13,	/* Great Cleave */
	F_TRAMPLE = 1 << 14	/* Trample (a rider's feat, 5.14) */
};
#define NFEATS 15

/* Conditions (section 6), set by the setup for the whole fight. */
enum {
	COND_KNEELING = 1 << 0, COND_BLINDED = 1 << 1, COND_DAZZLED = 1 << 2,
	COND_DEAFENED = 1 << 3, COND_ENTANGLED = 1 << 4,
	COND_SHAKEN = 1 << 5, COND_FRIGHTENED = 1 << 6,
	COND_COWERING = 1 << 7, COND_STUNNED = 1 << 8,
	COND_PARALYSED = 1 << 9, COND_DAZED = 1 << 10,
	COND_FATIGUED = 1 << 11, COND_EXHAUSTED = 1 << 12,
	COND_NAUSEATED = 1 << 13, COND_SICKENED = 1 << 14,
	COND_SQUEEZING = 1 << 15, COND_HIGHER = 1 << 16,
	COND_PANICKED = 1 << 17, COND_GAGGED = 1 << 18,
	COND_SILENCED = 1 << 19, COND_BOUND = 1 << 20
};
#define NCOND 21
#define COND_NOACT (COND_COWERING | COND_STUNNED | COND_PARALYSED | COND_DAZED)
#define COND_NODEX (COND_BLINDED | COND_COWERING | COND_STUNNED)

/* Map square flags. */
enum {
	SQ_WALL = 1,		/* blocks movement and line of effect */
	SQ_DIFF = 2,		/* difficult terrain */
	SQ_OBST = 4,		/* low obstacle: doubles cost, gives cover */
	SQ_IMPROVED = 8,	/* improved cover (arrow slit): +8 AC */
	SQ_DARK = 16,		/* darkness: total concealment (5.2) */
	SQ_OPAQUE = 32,		/* opaque fog: blocks sight (5.0, 5.2) */
	SQ_NARROW = 64,		/* half a square wide: squeeze (4.4) */
	SQ_CREVICE = 128	/* a quarter: Escape Artist (4.4) */
};
/* Edge flags. */
enum {
	E_WALL = 1,
	E_LOW = 2,
	E_OPAQUE = 4		/* blocks sight, not effect (5.0) */
};

/* Damage types. */
enum { DT_B = 1, DT_P = 2, DT_S = 4 };

struct weapon {
	char name[NAMEL];
	int32_t nd, sd;		/* damage dice: nd d sd; nd 0: none */
	int32_t threat, mult;	/* lowest threat face, crit multiplier */
	int32_t cat;		/* 0 light, 1 one-handed, 2 two-handed */
	int32_t ranged;		/* 0 melee, 1 thrown, 2 projectile */
	int32_t incr;		/* range increment, squares */
	int32_t reach;		/* reach weapon */
	int32_t dtype;		/* DT_* bits */
	int32_t trip;		/* trip weapon */
	int32_t composite, sling, crossbow, nonlethal, natural, unarmed;
	int32_t hardness, ihp;	/* as an item */
	int32_t enh;		/* attack bonus */
	int32_t nostr, plus;	/* spells: no Strength, flat damage */
	int32_t splash;		/* splash weapon: splash damage */
	int32_t dbl;		/* two-headed weapon */
	int32_t lance;		/* twice the damage on a mounted charge (5.15) */
	int32_t load;		/* crossbow: 1 a move action, 2 full round */
	int32_t gauntlet;	/* a spiked gauntlet: cannot be disarmed */
};

/* A melee weapon that may also be thrown (a dagger): its range increment
 * is set. */
#define W_THROWABLE(w)	(!(w)->ranged && (w)->incr > 0)


#define MAXSP 4		/* spells a creature knows */
#define MAXSPC 32	/* spells in the content */

struct spell {
	char name[NAMEL];
	int32_t level;
	int32_t time;		/* 0 standard, 1 full round, 2 free, 3 one round */
	int32_t range;		/* squares; 0: touch */
	int32_t effect;		/* 0 damage, 1 heal, 2 temporary HP */
	int32_t rounds;		/* temporary HP: duration, 0 = the fight */
	int32_t attack;		/* 0 none, 1 ranged touch, 2 melee touch */
	int32_t save;		/* 0 none, 1 Fortitude, 2 Reflex, 3 Will */
	int32_t half;		/* a save halves the damage (else negates) */
	int32_t nd, sd, bonus, nonlethal;
	/* magic.c */
	int32_t comp;		/* MG_V | MG_S | MG_M | MG_F | MG_DF */
	int32_t cond;		/* effect condition: condition index + 1 */
	int32_t dur, dur_lvl;	/* duration: rounds + rounds per level */
	int32_t minutes;	/* casting time 4 (minutes): how many */
	int32_t kind;		/* MK_*: spell, ability or item */
	int32_t conb;		/* effect con_boost: Constitution bonus */
};

/* An item worn on the body (5.8), gear.c. */
#define MAXWORN 3
struct worn {
	char name[NAMEL];
	int32_t attach;		/* 1 loosely attached, 2 firmly attached */
	int32_t deflect, resist;	/* its AC deflection, save bonus */
	int32_t on;		/* 1 worn, 0 carried (taken from its wearer) */
};

struct cdef {
	char name[NAMEL];
	int32_t size;		/* -2 tiny, -1 small, 0 medium, 1 large, 2 huge */
	int32_t speed;		/* squares, before armour */
	int32_t bab, str, dex, con, intl, wis, cha;	/* intl 0: mindless */
	int32_t armor, shield, natural, deflect, maxdex, armor_type;
	int32_t hp, init, fort, ref, will;
	int32_t feats, legs, stable, humanoid, crit_immune, sneak, dwarf;
	int32_t fast, fly, incorporeal;	/* +2 squares; movement modes */
	int32_t invisible, see_invis;
	int32_t shield_hardness, shield_hp;	/* 5.9 table */
	int32_t heavy_load, monk_bonus;		/* speed (4.1) */
	int32_t turn_level, turn_uses, undead, hd;	/* turning (5.16) */
	int32_t bluff, sense, heal;
	int32_t reach;		/* natural reach, -1: by size */
	int32_t conceal;	/* miss chance against every attack, percent */
	struct weapon w[2];	/* main hand, off hand (nd 0: none) */
	int32_t caster_level, concentration;
	struct spell sp[MAXSP];
	int32_t uses[MAXSP];	/* casts left; 0: the slot is empty */
	struct spell potion[2];	/* potions carried (7.3) */
	int32_t potions[2];
	int32_t mount;		/* 5.15: 0 none, 1 combat-trained, 2 frightened */
	int32_t ride;		/* Ride check modifier */
	int32_t saddle;		/* a mount with a military saddle */
	int32_t darkvision;	/* sees in darkness (5.2) */
	int32_t hide, spot;	/* skill modifiers (5.2) */
	int32_t escape;		/* Escape Artist modifier (4.4) */
	/* magic.c */
	int32_t level;		/* character level (3.5, 3.7); 0: by hd */
	int32_t lacks;		/* MG_M, MG_F, MG_DF it does not carry */
	int32_t spont, meta;	/* spontaneous caster; metamagic MM_* */
	int32_t rebuke;		/* channels negative energy (5.16) */
	int32_t spellcraft;	/* identify a spell to counter it (1.8) */
	int32_t fills;		/* fills its space: no passing (4.7) */
	/* maneuver.c */
	int32_t locked;		/* its weapon is locked in a gauntlet (5.8) */
	int32_t acp;		/* armour check penalty (quick mount) */
	/* gear.c */
	struct worn worn[MAXWORN];	/* worn or taken items (5.8) */
	int32_t monk_nd, monk_sd;	/* a monk's lethal unarmed damage */
};

struct cr {
	struct cdef d;
	int32_t side, x, y;
	int32_t hp, nl;
	int32_t dead, stable, dying_round;
	int32_t prone, flat, delaying, aware, asleep;
	int32_t init, tb;	/* initiative total, tie-break rank */
	int32_t fdef, tdef, charged, ran;	/* until its next turn */
	int32_t aoo_used;
	int32_t feint_vs, feint_stage;	/* -1: none */
	int32_t aid_ally, aid_enemy, aid_mode;	/* -1: none; 1 attack, 2 AC */
	int32_t grap;		/* grapple partner + 1, 0: none */
	int32_t wmain, whp;	/* holds its main weapon; its hit points */
	int32_t ready_vs;	/* readied attack on this creature, -1 */
	int32_t ready_trig;	/* 0: it comes within reach, 1: it casts */
	int32_t cond;		/* COND_* bits (section 6) */
	int32_t temp, temp_rounds;	/* temporary HP; rounds left, -1 */
	int32_t run_rounds, run_last, winded;	/* running endurance (4.7) */
	int32_t pinned_by;	/* pinner + 1, 0: not pinned */
	struct weapon stow[2];	/* sheathed weapons (nd 0: none) */
	int32_t turned_until, turned_by;	/* round; turner + 1 */
	int32_t casting, cast_target;	/* a 1-round spell: slot + 1 */
	int32_t pend_act, pend_round;	/* a started full-round action */
	int32_t shp;		/* the shield's hit points */
	int32_t gwith;		/* the other grapple participants (bits) */
	int32_t mounted;	/* rides this mount + 1, 0: on foot (5.15) */
	int32_t ride_sp, ride_n;	/* the mount's speed and space side */
	int32_t kept;		/* knocked out, it stayed in the saddle */
	/* conceal.c: Hide and Spot (5.2), coup de grace in the dark (5.12),
	 * squeezing (4.4). */
	int32_t hiding, hide_total;	/* a Hide check stands */
	int32_t spotted;	/* creatures that located it (bits) */
	int32_t hmoved;		/* it moved during its latest turn */
	int32_t cdg_x, cdg_y, cdg_round;	/* found a square, round + 1 */
	int32_t squeeze;	/* squeezing: 1 half width, 2 narrower */
	/* magic.c: timed conditions, pools, charges, turning, recovery */
	int32_t cend[NCOND];	/* MG_END code, 0: no end */
	int32_t fear_src;	/* panicked: the source + 1 */
	int32_t pen_str, pen_dex;	/* ability penalties now applied */
	int32_t tp_amt[4], tp_end[4], tp_src[4];	/* temporary HP pools */
	int32_t conb, conb_hp, conb_end;	/* a Constitution boost */
	int32_t held, held_round;	/* a held touch charge: slot + 1 */
	int32_t cast_left, cast_meta;	/* rounds of casting left; MM_* */
	int32_t rebuked_by, cmd_by;	/* cowering rebuked; commanded: + 1 */
	int32_t rebuked_end, bolster_hd, bolster_end;
	int32_t turn_chk;	/* the turner's last turning check */
	int32_t no62;		/* 6.2 defaults disabled */
	int32_t assisted, rec;	/* recovery (3.4): tended; MR_* stage */
	int32_t rdy_kind;	/* readied action: RK_* */
	int32_t rdy_x, rdy_y;	/* readied move: the square */
	int32_t ordered, orig_side;	/* commanded undead: order; side */
	int32_t cornered;	/* fleeing: nowhere farther to go */
	int32_t rdy_slot;	/* readied spell: its slot */
	int32_t shield_off;	/* a loosed shield's AC bonus, 0: none */
	int32_t unloaded;	/* its crossbow was shot and not reloaded */
	/* gear.c */
	int32_t hushed;		/* silenced by this pinner + 1 (5.13) */
	int32_t comp_ready;	/* retrieved its components in the grapple */
};

/* A paused action (waiting for attacks of opportunity or a prompt). */
enum { K_NONE, K_MOVE, K_ACT };
enum {
	MV_MOVE = 1, MV_WITHDRAW, MV_CHARGE, MV_RUN
};

struct cont {
	int32_t kind, mode, act;
	int32_t who, target, ally, flags, margin, hurt;
	int32_t px[MAXPATH], py[MAXPATH], n, pi, checked, lastok;
	int32_t allow, pen, rdone;
};

/* Prompts. */
enum { PK_NONE, PK_AOO, PK_COUNTER, PK_FOLLOW, PK_DELAY, PK_READY,
	PK_AVOID, PK_CLEAVE, PK_HOLD };

struct st {
	uint32_t magic, size;
	int32_t w, h;
	uint8_t sq[MAXM][MAXM];
	uint8_t fog[MAXM][MAXM];
	uint8_t eh[MAXM + 1][MAXM + 1], ev[MAXM + 1][MAXM + 1];
	int32_t nc, nseats;
	struct cr c[MAXC];
	int32_t order[MAXC], norder, cur, round, surprise;
	int32_t max_rounds, range_pen, over, winner;
	/* The active creature's turn. */
	int32_t std, mv, full, moved, step5, diag, sq_moved;
	int32_t fa, fa_main, fa_off, fa_conv, attacks, cast, qcast, overrun;
	int32_t cleaved, freedraw, moveact, hurt0;
	int32_t std_dis;	/* a standard action done while disabled */
	/* Prompt and paused action. */
	int32_t pk, q[MAXC], nq, qi, dnext;
	int32_t aoo_taken;	/* threateners that took the movement AoO */
	struct cont k;
	int32_t shown[MAXC];	/* the state last announced (state_idx) */
	/* The active rider's mount this turn (5.15). */
	int32_t m_mv;		/* the mount's move actions (2: whole turn) */
	int32_t m_run;		/* 1 it ran, 2 it charged */
	int32_t m_fam;		/* the rider began a melee full attack */
	int32_t m_shot;		/* the rider made a ranged attack */
	int32_t m_cast;		/* 1 cast after it moved, 2 mid-move, 3 before */
	int32_t m_castdc;	/* Concentration DC base of the cast, 0 none */
	int32_t knees;		/* guided with the knees: 1 done, 2 failed */
	int32_t ctl;		/* frightened mount: 1 controlled, 2 failed */
	int32_t m_att;		/* the mount made its attack */
	int32_t dark_map;	/* the map has darkness or opaque fog */
	int32_t atk_sqx, atk_sqy;	/* the square of an attack on one */
	/* magic.c */
	int32_t no62;		/* setup: condition_defaults false */
	int32_t hours;		/* hours passed after the fight (3.4) */
	int32_t resting;	/* the recovery phase */
	int32_t last_hit;	/* the last touch spell hit */
	int32_t countered;	/* the spell being cast was countered */
	int32_t maph[2];	/* the map's hash (conceal.c) */
	/* Weapons lying on the ground (dropped or disarmed), oldest first. */
	struct weapon gw[MAXG];
	int32_t gx[MAXG], gy[MAXG], ghp[MAXG], ng;
};

#endif
