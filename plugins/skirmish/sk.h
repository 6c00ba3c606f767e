/*
 * sk.h - the skirmish ruleset: types shared by the plugin's files.
 *
 * The match state is one flat struct of int32_t (no pointers), so it
 * serializes as its bytes and two equal states give equal bytes.
 */
#ifndef SK_H
#define SK_H

#include <stdint.h>

#include <refd/grid.h>
#include <refd/mp.h>
#include <refd/plugin.h>

#define SK_MAXCARDS 96
#define SK_MAXMAPS 8
#define SK_MAXWB 48
#define SK_MAXLINES 4
#define SK_MAXSPELLS 4
#define SK_MAXU 64
#define SK_WBMAX 12
#define SK_MAXPROG 12
#define SK_MAXPATH 48
#define SK_MAXW 32
#define SK_MAXH 32
#define SK_NAMELEN 32
#define SK_MAXTERR 16
#define SK_MAXSEATS 4
#define SK_STATE_MAGIC 0x534b3032	/* "SK02" */

enum energy { EN_NONE, EN_ACID, EN_COLD, EN_ELEC, EN_FIRE, EN_SONIC };

/* Card abilities (bits). */
enum abil {
	AB_PRECISE = 1 << 0,	/* Precise Shot */
	AB_CLEAVE = 1 << 1,
	AB_INCORP = 1 << 2,	/* Incorporeal */
	AB_FEARLESS = 1 << 3,
	AB_CRITIMM = 1 << 4,	/* immune to critical hits */
	AB_INDEP = 1 << 5,	/* Independent */
	AB_WILD = 1 << 6,
	AB_MOBILITY = 1 << 7,
	AB_DEFLECT = 1 << 8,	/* Deflect Arrows */
	AB_UNIQUE = 1 << 9,
	AB_FLIGHT = 1 << 10,
	AB_TINYREACH = 1 << 11,
	AB_NONLIVING = 1 << 12,
	AB_COWARDLY = 1 << 13,
	AB_BLINDSIGHT = 1 << 14,
	AB_SLEEPIMM = 1 << 15,
	AB_STUNIMM = 1 << 16,
	AB_FLANKIMM = 1 << 17,
	AB_SRALL = 1 << 18,
	AB_POUNCE = 1 << 19,
	AB_PARAIMM = 1 << 20,
	AB_POISONIMM = 1 << 21,
	AB_HIDE = 1 << 22,
	AB_BLINDFIGHT = 1 << 23,
	AB_DUAL = 1 << 24,
	AB_INCITEIMM = 1 << 25,
	AB_SCOUT = 1 << 26,
	AB_WANDERING = 1 << 27,
	AB_COUNTERSONG = 1 << 28,
	AB_ICOUNTERSONG = 1 << 29,
	AB_NOTSUBJECT = 1 << 30
};

/* More abilities (card abil2). */
enum abil2 {
	A2_PHALANX = 1 << 0,
	A2_STENCH = 1 << 1,
	A2_LEVELDRAIN = 1 << 2,
	A2_UNCANNY = 1 << 3,
	A2_SPRING = 1 << 4,
	A2_SIDESTEP = 1 << 5,
	A2_WHIRLWIND = 1 << 6,
	A2_STAGGER = 1 << 7,
	A2_BEAST = 1 << 8,	/* Animal or Magical Beast (type) */
	A2_SLOWMELEE = 1 << 9,
	A2_SLOWRANGED = 1 << 10,
	A2_DEATHSTRIKE = 1 << 11,
	A2_ARROWSHIELD = 1 << 12,
	A2_HURL = 1 << 13,
	A2_PUSHBACK = 1 << 14,
	A2_PULL = 1 << 15,	/* stand-in: a hit pulls one square closer */
	A2_SLIDE = 1 << 16	/* stand-in: a melee hit slides one square */
};

enum srange { SR_SELF, SR_TOUCH, SR_RANGE6, SR_SIGHT, SR_CONE, SR_YOURWB,
	SR_RADIUS2, SR_RADIUS4, SR_LINE, SR_ANYWB };

/* Continuous effect stats (spells). */
enum estat { ES_NONE, ES_ATTACK, ES_MDAMAGE, ES_AC, ES_HP, ES_MAGIC };
#define SK_MAXFAM 32

struct atk {
	int32_t bonus, dmg, extra, energy;
	int32_t cond, dc;	/* rider on a damaging hit: save or condition */
};

struct spell {
	char name[SK_NAMELEN];
	int32_t uses, range, dmg, energy, dc, ignores_sr, heal;
	int32_t fam;		/* continuous effect family, -1 none */
	int32_t ability;	/* spell-format ability: not a spell */
	int32_t level, pp;	/* Sorcerer spell level; Psionic cost */
	int32_t summon;		/* card summoned, -1 none */
	int32_t gaze;		/* Gaze Attack */
	char summon_id[SK_NAMELEN];
	int32_t cond;		/* save (dc) or this condition */
	int32_t any;		/* the "any" keyword */
	int32_t sw;		/* switches the caster and the target */
	int32_t swift;		/* a swift action: once a turn, no action */
};

struct card {
	char id[SK_NAMELEN], name[SK_NAMELEN];
	int32_t cost, factions, commander, level, speed, ac, hp, size;
	int32_t nmelee, nranged, range;
	struct atk melee[SK_MAXLINES], ranged[SK_MAXLINES];
	int32_t abil, dr, sr, conceal, save_bonus, morale_bonus, difficult;
	int32_t abil2, sneak, rsneak, rend, turn_undead, undead;
	int32_t beastmaster, leap, stun_dc, stun_uses, con_drain, con_dc;
	int32_t slow_dc, burrow, death_attack, trample, trample_dc;
	int32_t eff_stat, eff_val;	/* commander effect: 1 attack, 2 AC, 3 tyrannical */
	int32_t resist[6], vuln, immune;	/* by energy; masks 1 << energy */
	int32_t pcharge, smite_val, smite_uses, smite_vs, feed, humanoid;
	int32_t reach, relay, eff_hostile;
	int32_t nminion, minion[4], req;	/* Minions, Requires (card) */
	int32_t sorc[10], pp;	/* Sorcerer boxes per level; power points */
	int32_t db_radius, db_dmg, db_energy, db_dc;	/* Death Burst */
	int32_t nspell;
	struct spell sp[SK_MAXSPELLS];
	int32_t lucky;		/* stand-in: rerolls of a missed attack */
	int32_t block;		/* stand-in immediate action: +4 AC uses */
	int32_t simul;		/* Simultaneous Attack: kinds (1 melee, 2
				 * ranged, 4 spell) used in one turn */
};

/* Square data beyond grid flags: exits and deployment zones (seat + 1). */
struct map {
	char id[SK_NAMELEN];
	int32_t w, h;
	uint8_t f[SK_MAXW * SK_MAXH];
	uint8_t exit[SK_MAXW * SK_MAXH];
	uint8_t zone[SK_MAXW * SK_MAXH];
	int32_t tiled;		/* terrain comes from placed tiles (§2.1) */
	int32_t nzones;		/* start zones, one per seat (2..4) */
	int32_t nexits[SK_MAXSEATS];	/* exit squares per zone (5 or 3) */
};

#define SK_MAXTILES 24
#define SK_TILEMAX 12
#define SK_MAXSETS 8

struct tile {
	char id[SK_NAMELEN];
	int32_t feature;	/* 0: assembly tile, 1: terrain-feature tile */
	int32_t w, h;
	uint8_t f[SK_TILEMAX * SK_TILEMAX];
	uint8_t ex[SK_TILEMAX * SK_TILEMAX];	/* exit squares */
};

struct warband {
	char id[SK_NAMELEN];
	int32_t n;
	int32_t card[SK_WBMAX];
};

struct family {
	char name[SK_NAMELEN];
	int32_t stat, value;
};

struct content {
	int32_t ncards, nmaps, nwb, nfam;
	struct family fam[SK_MAXFAM];
	struct card c[SK_MAXCARDS];
	struct map m[SK_MAXMAPS];
	struct warband wb[SK_MAXWB];
	int32_t ntiles, nsets;
	struct tile t[SK_MAXTILES];
	int32_t set[SK_MAXSETS][4];
};

struct unit {
	int32_t card, seat, x, y;
	int32_t on;		/* on the grid */
	int32_t gone;		/* eliminated */
	int32_t hp, half_done, routed, rout_unit, rout_seat, rout_turn;
	int32_t stunned, asleep, paralyzed, frightened, invisible;
	int32_t poisoned, entangled, skip, paralyzed_dc, entangled_dc;
	int32_t incited, inhibited, confused, confused_dc;
	int32_t activated, aoo_turn, cleave_turn, deployed;
	int32_t spent[SK_MAXSPELLS];
	int32_t buffs, smite_spent;
	int32_t cmd0, partner, minion, drained;
	int32_t sorc_spent[10], pp_spent, stun_spent;
	int32_t summoner1;	/* summoner + 1; 0: not summoned */
	int32_t parity;		/* unused outside turns */
	int32_t luck_spent;	/* rerolls used */
	int32_t block_spent;	/* Shield Block uses */
};

enum prog_kind { PK_STEP = 1, PK_CHARGE, PK_ROUT };

struct prog {
	int32_t kind, unit, aborted;
	int32_t tx, ty;		/* PK_STEP: destination anchor */
	int32_t target, line;	/* PK_CHARGE */
	int32_t budget;		/* PK_ROUT: movement left */
	int32_t npath, idx;
	int32_t path[SK_MAXPATH];	/* anchors y * w + x */
	int32_t qready, nq, qi;
	int32_t q[SK_MAXU];
};

enum stage {
	ST_SUBMIT = 1, ST_SETUPCHOICE, ST_DEPLOY, ST_FIRST, ST_ACTIVATE,
	ST_TURN, ST_OVER, ST_TILES
};

enum decision { DEC_NONE, DEC_AOO, DEC_CLEAVE, DEC_DSTRIKE, DEC_PUSH,
	DEC_REROLL, DEC_IMMED };

struct state {
	int32_t magic, map, nseats, stage;
	int32_t winner;		/* -1 draw, else seat (when ST_OVER) */
	int32_t reason;
	int32_t variant, points, round_limit, stalemate;
	int32_t tyrannical[SK_MAXSEATS];	/* Tyrannical Morale (setup) */
	int32_t wbfac[SK_MAXSEATS];	/* warband faction mask (0: by card) */
	int32_t rtp, c0sub[SK_MAXSEATS];	/* Ready-to-Play; commander 0 */
	int32_t round, first, chooser, phase_seat, phase_left, turnid;
	int32_t submitted[SK_MAXSEATS], revealed;
	int32_t nsub[SK_MAXSEATS], sub[SK_MAXSEATS][SK_WBMAX];
	int32_t deploy_seat, setup_first;
	int32_t vp[SK_MAXSEATS];
	int32_t team[SK_MAXSEATS];	/* §1.9 team skirmish: team per seat */
	int32_t zmap[SK_MAXSEATS];	/* the map's start zone of each seat */
	int32_t flip_owner;	/* owner of the confused unit flipped */
	int32_t blame;		/* seat blamed for poison damage, or -1 */
	int32_t quiet, aggr;
	int32_t nterr, terr[SK_MAXTERR][3];
	int32_t nu;
	struct unit u[SK_MAXU];
	/* the turn in progress */
	int32_t cur, moved, steps, parity, natk, atk_first, moved_after;
	int32_t lines_used, atk_kind, single, oocmd, speed, charged, cast;
	int32_t auto_end, stun_turn, moved2;
	int32_t rush, rush_t, rush_x, rush_y, rush_charge;
	int32_t ent_tried, ent_block, no_action, compel;
	int32_t rend_t, rend_hits, sidestepped, slowed1, stun_turn2;
	int32_t flipped;	/* confused unit an opponent controls this turn */
	int32_t burrowing, trampled;	/* trampled: enemy + 1 this turn */
	int32_t kinds;		/* attack kinds used this turn (1, 2, 4) */
	int32_t swift_used;	/* the turn's swift action is spent */
	int32_t rr_ok, rr_miss;	/* within one command: a reroll may follow
				 * a missed attack roll; it missed */
	int32_t blocking;	/* unit + 1 whose Shield Block holds for the
				 * attack being resolved */
	/* a reaction owed */
	int32_t dec, dec_unit, dec_line, dec_target;
	int32_t dec_mode;	/* DEC_PUSH: 0 push, 1 pull, 2 slide */
	int32_t nprog;
	struct prog pr[SK_MAXPROG];
	/* tiles (§2.1 steps 3-4) */
	int32_t tiled, tsub[SK_MAXSEATS][4], nplaced, placed[16][5];
	int32_t place_seat, tleft[SK_MAXSEATS], wm_tile, wm_unit;
	uint8_t tflag[SK_MAXW * SK_MAXH];
	uint8_t tzone[SK_MAXW * SK_MAXH];
	uint8_t tile_at[SK_MAXW * SK_MAXH];	/* placed index + 1 */
};

/* What the host holds: the content pointer (never serialized) and the
 * state. */
struct match {
	const struct content *c;
	struct state s;
};

/* Conditions from attack riders and spells (§4.3). */
enum cond { CO_NONE, CO_STUN, CO_PARALYZE, CO_POISON, CO_SLEEP,
	CO_FRIGHTEN, CO_ENTANGLE, CO_SKIP, CO_INCITE, CO_INHIBIT, CO_CONFUSE };

enum reason { RS_NONE, RS_ELIM, RS_QA, RS_STALEMATE, RS_ROUNDS, RS_VP };

/* Per-call context: the host ctx, the content, the first error. */
/*
 * Movement costs remembered while one legal list is built (play.c,
 * paths()): the state does not change meanwhile, and every charge, rush
 * and move candidate asks for the same few cost maps.
 */
#define SK_PMEMO 8
struct pmemo {
	const struct state *s;	/* the state the entries belong to */
	int16_t occ[SK_MAXW * SK_MAXH];	/* lowest unit on a square + 1 */
	const struct state *alt;	/* s with only unit alt_u moved */
	int alt_u;
	int n;
	struct {
		int u, mode, limit, parity;
		int32_t dist[SK_MAXW * SK_MAXH * 2], prev[SK_MAXW * SK_MAXH * 2];
	} e[SK_PMEMO];
};

struct cx {
	refd_ctx *ctx;
	const struct content *c;
	int rc;
	int fl_ok;
	uint8_t fl[SK_MAXW * SK_MAXH];
	struct state scratch;	/* a what-if copy (rush checks) */
	struct pmemo *pm;	/* while a legal list is built, or NULL */
};

extern const struct refd_host *H;

/* content.c */
int sk_content_load(refd_ctx *ctx, const uint8_t *bytes, size_t len,
    struct content **out);
int sk_card_index(const struct content *c, const char *id);
int sk_tile_index(const struct content *c, const char *id);
int sk_create(struct cx *x, const uint8_t *setup, size_t len,
    uint32_t nseats, struct match **out);
int sk_warband_check(const struct content *c, const struct state *s,
    const int32_t *cards, int n, char *msg, size_t msglen,
    const char **rule);

/* rules.c */
const struct card *CARD(const struct cx *x, const struct state *s, int u);
void sk_grid(const struct cx *x, const struct state *s, struct grid *g);
void sk_memo_occupancy(struct cx *x, const struct state *s);
int sk_roll(struct cx *x, const char *why);
void sk_emit(struct cx *x, refd_mpw *w);
refd_mpw *sk_ev(const char *type);
void sk_start_round(struct cx *x, struct state *s);
void sk_run(struct cx *x, struct state *s);
void sk_begin_game(struct cx *x, struct state *s);
int sk_roll_off(struct cx *x, struct state *s, const int32_t *bonus,
    const char *why);
void sk_reveal(struct cx *x, struct state *s);

/* Commands. */
enum cmdtype {
	C_SUBMIT = 1, C_SETUPFIRST, C_DEPLOY, C_FIRST, C_ACTIVATE, C_MOVE,
	C_MELEE, C_SHOOT, C_CHARGE, C_CAST, C_CAST_CONE, C_END, C_AOO,
	C_DECLINE, C_CLEAVE, C_RUSH, C_SMITE, C_WAKE, C_CAST_AREA, C_CAST_LINE, C_PLACE, C_SIDESTEP, C_WHIRLWIND,
	C_TURN, C_LEAP, C_STUNATK, C_BURROW, C_DEATHATK, C_HURL, C_SUMMON,
	C_PUSH, C_STRIKE, C_PULL, C_SLIDE, C_SWITCH, C_REROLL, C_BLOCK,
	C_NTYPES
};

struct cmd {
	int32_t type;
	int32_t a[6];
	int32_t n;		/* C_SUBMIT: cards */
	int32_t cards[SK_WBMAX];
	int32_t nt, tiles[4];	/* C_SUBMIT: tiles */
	int32_t cmd0;		/* C_SUBMIT: commander-0 rule */
};

int sk_check(struct cx *x, const struct state *s, int seat,
    const struct cmd *c, int reject);
void sk_exec(struct cx *x, struct state *s, int seat, const struct cmd *c);
uint64_t sk_pending(const struct state *s);
void sk_label(struct cx *x, const struct state *s, const struct cmd *c,
    char *buf, size_t len);

#endif
