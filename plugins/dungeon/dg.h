/*
 * dg.h - the dungeon ruleset plugin: shared declarations.
 *
 * A cooperative dungeon adventure on hexes (spec: specs/dungeon.md, rules
 * R002-xx).  One seat plays one character.  The state (struct dg) is plain
 * int32 fields and arrays with no pointers and no padding, zeroed at
 * creation, so serialize writes it as one byte string and restore checks
 * and copies it back.
 */
#ifndef DG_H
#define DG_H

#include <stdint.h>

#include <refd/hex.h>
#include <refd/mp.h>
#include <refd/plugin.h>

extern const struct refd_host *H;

#define DG_VERSION 1

#define MAXHEX 192
#define MAXFIG 40
#define MAXCH 4
#define MAXCARD 16
#define MAXMOD 48
#define MAXORD 32
#define MAXTYPES 8
#define MAXMC 8		/* monster ability cards per deck */
#define MAXAB 4		/* abilities per half or monster card */
#define MAXAOE 6
#define MAXTG 8
#define MAXRMON 24
#define GQ 64
#define GR 48
#define Q0 16
#define R0 16
#define NELEM 6

/* Conditions (bits). */
enum {
	C_POISON = 1 << 0, C_WOUND = 1 << 1, C_IMMOBILIZE = 1 << 2,
	C_DISARM = 1 << 3, C_STUN = 1 << 4, C_MUDDLE = 1 << 5,
	C_INVISIBLE = 1 << 6, C_STRENGTHEN = 1 << 7, C_BLESS = 1 << 8,
	C_CURSE = 1 << 9
};
#define C_EXPIRING (C_IMMOBILIZE | C_DISARM | C_STUN | C_MUDDLE | \
	C_INVISIBLE | C_STRENGTHEN)
#define NCOND 10
extern const char *const cond_name[NCOND];
extern const char *const elem_name[NELEM];

/* Overlays. */
enum { OV_NONE, OV_TRAP, OV_HAZARD, OV_DIFFICULT, OV_OBSTACLE, OV_PLATE,
	OV_TREASURE };
/* Doors. */
enum { DOOR_NONE, DOOR_CLOSED, DOOR_OPEN, DOOR_LOCKED };

/* Ability kinds. */
enum { A_NONE, A_MOVE, A_ATTACK, A_HEAL, A_SHIELD, A_RETALIATE, A_LOOT,
	A_INFUSE, A_SELFCOND, A_BLESS, A_RECOVER, A_REFRESH, A_SUMMON, A_WARD };

struct ability {
	int32_t kind, value, range, target, pierce, push, pull, jump;
	int32_t conds, xp, self, naoe, grey, all_within;
	int32_t aoe[MAXAOE][2];
	int32_t consume, bonus_attack, bonus_move, bonus_conds, infuse, any;
	int32_t summon;		/* monster type or class summon index */
	int32_t ground, gpad;	/* the target loses flying this round */
	int32_t absolute;	/* monster: a new ability, not a modifier */
};

#define MAXSLOT 6	/* enhancement slots per half (4 bits each in dg.enh) */
struct half {
	struct ability ab[MAXAB];
	int32_t nab, lost, round, persistent, slots, xp, slot_xp;
	/* enhancement slots (§2.9): the ability each is on and the stickers
	 * (bit per sticker type) that fit it */
	int32_t nslot, slot_ab[MAXSLOT], slot_fit[MAXSLOT];
};

struct ccard {
	char id[12];
	char name[32];
	int32_t level, init, unrecoverable;
	struct half h[2];
};

struct summon_stat {
	char name[24];
	int32_t hp, move, attack, range;
};

#define MAXPERK 8
struct perkdef {
	char id[8];
	int32_t times, nrem, nadd, ignore_items;
	int32_t rem[4], add[4];
};

struct cclass {
	char name[16];
	int32_t hp[9], hand, ncards, nperk;
	struct perkdef perk[MAXPERK];
	struct ccard card[MAXCARD];
	struct summon_stat summon;
};

struct mcard {
	char name[24];
	int32_t init, shuffle, nab;
	struct ability ab[MAXAB];
};

struct mdeckdef {
	char name[16];
	int32_t n;
	struct mcard card[MAXMC];
};

struct mtype {
	char name[16];
	int32_t deck, standees, flying, boss, immune;
	int32_t hp[8][2], move[8][2], attack[8][2], range[8][2];
	int32_t shield[8][2], retaliate[8][2], poison[8][2];
	int32_t boss_hp_base, boss_hp_per_level;
};

struct rmon {
	int32_t type, room, q, r, rank[3];	/* rank: -1 absent, 0 N, 1 E, 2 boss */
};

struct mapdef {
	char name[24];
	int32_t nhex;
	int32_t hq[MAXHEX], hr[MAXHEX], hroom[MAXHEX], hov[MAXHEX],
	    hval[MAXHEX], hdoor[MAXHEX];
	int32_t nstart, start[MAXCH][2];
	int32_t nmon;
	struct rmon mon[MAXRMON];
	int32_t victory_boss;
	int32_t plate_spawn_type, plate_spawn_q, plate_spawn_r;
	int32_t unlocked, requires, rew_gold, rew_rep, rew_ach, unlock;
	int32_t nthin, thin[16][4];
};

#define MAXBG 8
enum { BG_KILLS, BG_LOOTS, BG_HALFHP, BG_FIRE };
struct bgdef {
	char id[8];
	char name[24];
	int32_t stat, min, max, checks;
};

#define MAXEV 8
#define MAXOUT 4
struct outcome {
	int32_t cls, rep_min, rep_max, otherwise;
	int32_t gold_coll, gold_each, rep, prosp, design, item, curse;
	int32_t damage_next, discard_next, random_design, random_side;
};
struct evdef {
	char id[8];
	char added_by_content[24];	/* joins the decks when that opens */
	int32_t added_by_class;	/* joins when one retires, or -1 */
	int32_t road, ret[2], nout[2];
	struct outcome out[2][MAXOUT];
};

#define MAXPQ 8
struct pqdef {
	char id[8];
	char name[24];
	char opens[24];
	int32_t gold, type, target;	/* gold quest, or kills of a type */
};

#define MAXACH 8
struct achdef {
	char name[32];
	char type[24];
	int32_t global;
};

enum { IS_HEAD, IS_BODY, IS_LEGS, IS_HAND, IS_HANDS, IS_SMALL };
enum { IE_NONE, IE_MOVE1, IE_WARD1, IE_SHIELD2, IE_TRAPSAFE, IE_MELEE1,
	IE_MELEE2STUN, IE_HEAL3, IE_UNMUDDLE, IE_ADVANTAGE, IE_REFRESH };
#define MAXITEMS 16
#define MAXOWN 8

struct itemdef {
	char id[8];
	char name[24];
	int32_t slot, cost, copies, prosperity, consume, slots, effect, minus;
};

#define MAXCLASS 4
#define MAXMAPS 8

struct content {
	int32_t nclass, ntype, ndeck, nmap, nitem;
	struct itemdef item[MAXITEMS];
	int32_t nach;
	struct achdef ach[MAXACH];
	int32_t nbg;
	struct bgdef bg[MAXBG];
	int32_t nev;
	struct evdef ev[MAXEV];
	int32_t npq;
	struct pqdef pq[MAXPQ];
	struct cclass cls[MAXCLASS];
	struct mtype type[MAXTYPES];
	struct mdeckdef deck[MAXTYPES];
	struct mapdef map[MAXMAPS];
};

/* ----- state ----- */

struct hexs {
	int32_t q, r, room, ov, val, door, money, pad;
};

enum { F_CHAR = 1, F_SUMMON = 2, F_MONSTER = 3, F_OBSTACLE = 4 };

struct fig {
	int32_t alive, kind, type, rank, standee, q, r, hp, maxhp;
	int32_t conds, fresh, owner, nomoney, born_round;
	int32_t shield_card, ret_card, move, attack, range, summon_seq;
	int32_t acted, grounded;	/* grounded: lost flying this round */
};

struct deck {
	int32_t n, c[MAXMOD];	/* draw pile, top = c[n-1] */
	int32_t nd, d[MAXMOD];	/* discard */
	int32_t flag;		/* x2 or null drawn this round */
};

struct chr {
	int32_t fig, cls, hand, disc, lost, active;
	int32_t planned, ca, cb, lead, rest, init, init2;
	int32_t played, halves, cur_card, cur_half, cur_default, ab_i;
	int32_t ab_done, xp, money, exhausted, shield_rb, ret_rb;
	int32_t slot[MAXCARD];
	int32_t move_done, fresh_infuse, kills, gold;
	int32_t nitem, item[MAXOWN], istate[MAXOWN], iuses[MAXOWN];
	int32_t bonus_move, bonus_attack, bonus_stun, bonus_adv, level, pad;
	int32_t bg_dealt[2], bg_choice, fire, min_hp, checks;
	int32_t any_elem, placed;
	int32_t ev_disc;	/* event discards owed at set-up */
	int32_t active_done;	/* its round-start active moves are over */
	struct deck mod;
};

enum { O_CHAR = 1, O_TYPE = 2, O_SUMMON = 3 };

struct ordent {
	int32_t kind, idx, init, init2;
};

/* An attack in progress (character or monster). */
struct atk {
	int32_t active, fig, by_char, value, range, pierce, push, pull;
	int32_t conds, aoe, ntg, tg[MAXTG], ti, xp, ab_xp_ok, ranged;
	int32_t stage, cur_tg, effects, pending_push;
	int32_t react, asked, extra_shield, react_seat;
	int32_t ground, gpad;
};

/* A damage prompt owed by a character. */
struct pdmg {
	int32_t active, ci, amount, kind, after;
};

/* A push or pull in progress. */
struct ppush {
	int32_t active, fig, from_fig, left, pull, by_ci;
};

enum { PH_PLAN = 1, PH_TURN, PH_SHORTREST, PH_OVER, PH_TOWN, PH_GOALS,
	PH_HANDS };

/* A campaign character between scenarios (§2.1). */
struct cchar {
	int32_t made, cls, level, xp, gold, owned, donated, bless_next;
	int32_t checks, curse_next;
	int32_t pq, pq_count, pq_offer[2], retired, damage_next, discard_next;
	int32_t perk[MAXPERK], perks_taken, pool, cards_forfeit, pad7;
};
/* character turn stages */
enum { CT_START = 0, CT_WOUNDED, CT_LONGREST, CT_CHOOSE, CT_ABILITY, CT_END };

struct dg {
	int32_t version, nch, level, mlevel, trapdmg, hazdmg, gold_per, bonus_xp;
	int32_t los, max_rounds, mapi, round, phase, cur, ct, over;
	int32_t nhex, nfig, nord, sr_ci, sr_stage, sr_card;
	int32_t elem[NELEM], infuse_now, revealed, plate_used, victory;
	int32_t bless_supply, pcurse_supply, mcurse_supply, test_decks;
	int32_t mt_active, mt_fig, mt_ab, mt_focus, mt_type, mt_attacks;
	int32_t mt_consumed[MAXTYPES], mt_consume_tried[MAXTYPES];
	int32_t summon_seq, progress;
	int32_t tie_active, tie_start, tie_n, tie_seat, tie_from, tie_kind;
	int32_t tie_unit[MAXORD + 1];
	int32_t ai_active, ai_fig, ai_n, ai_seat, ai_hex[16];
	int32_t ai_kind, ai_val;
	int32_t ai_pick, ai_pad;	/* a wild element the players chose + 1 */
	int32_t nstart, start[MAXCH][2];
	struct hexs hex[MAXHEX];
	int32_t grid[GQ][GR];
	struct fig fig[MAXFIG];
	struct chr ch[MAXCH];
	struct deck mdeck;
	int32_t ad_n[MAXTYPES], ad_c[MAXTYPES][MAXMC];
	int32_t ad_nd[MAXTYPES], ad_d[MAXTYPES][MAXMC];
	int32_t ad_cur[MAXTYPES], ad_shuffle[MAXTYPES], ad_started[MAXTYPES];
	struct ordent ord[MAXORD];
	struct atk atk;
	struct pdmg dq[6];
	int32_t ndq, pad2;
	struct ppush push;
	struct rmon rmon[MAXRMON];
	int32_t nrmon, pad1;
	/* campaign (§2) */
	int32_t camp, prosperity, reputation, gach, pach, completed;
	int32_t unlocked, donations, scen_count, max_scen, camp_mode, actions;
	int32_t sup_added, bg_on;
	int32_t nthin, thin[16][4], looted;
	int32_t evdeck[MAXEV], nevdeck, ev_cur, ev_done, last_mode;
	int32_t difficulty, solo;
	/* collective event gold being split: left, next seat, the option,
	 * its next outcome and whether one applied (§2.12) */
	int32_t ev_split, ev_k, ev_opt, ev_next, ev_any;
	int32_t ev_added;	/* class and content events already added */
	int32_t town_seat;	/* whose turn it is in town (R002-13) */
	/* an event item the party gives to one member: item + 1, and the
	 * collective gold of the same outcome, split after it */
	int32_t ev_item, ev_gold_after;
	/* stickers per class card half: slot i holds sticker + 1 in bits
	 * 4i..4i+3 (0: free) */
	int32_t enh[MAXCLASS][MAXCARD][2];
	int32_t pqdeck[MAXPQ], npqdeck, retirements;
	int32_t roaddeck[MAXEV], nroad, road_map, road_mode, rdeck[MAXITEMS];
	int32_t nrdeck, opened;
	int32_t supply[MAXITEMS];
	struct cchar cc[MAXCH];
};

/* Per-call wrapper: the state plus what is not serialized. */
/*
 * Range and line of sight remembered over one monster decision (focus or
 * destination, §12.4-12.5): walls and doors do not change while a monster
 * chooses, and the choice asks the same questions once per candidate hex
 * and area placement.  Rows are filled on first use (board.c).
 */
struct sight_memo {
	uint8_t have_range[MAXHEX], have_los[MAXHEX];
	uint8_t los[MAXHEX][MAXHEX];	/* 1 clear, 2 blocked, 0 not asked */
	int16_t range[MAXHEX][MAXHEX];
};

struct game {
	struct dg s;
	const struct content *c;
	refd_ctx *ctx;
	int32_t dirty;		/* hidden zones to commit after apply */
	int32_t err;		/* a host call failed */
	struct sight_memo *memo;	/* during a monster decision, or NULL */
};

#define DIRTY_HAND(ci) (1 << (ci))
#define DIRTY_MOD(ci) (1 << (4 + (ci)))
#define DIRTY_MDECK (1 << 8)
#define DIRTY_AD (1 << 9)
#define DIRTY_GOALS (1 << 10)
#define DIRTY_PQ (1 << 11)

/* board.c */
int hex_at(const struct dg *s, int q, int r);
int fig_at(const struct dg *s, int q, int r);
int solid(const struct dg *s, int q, int r);
int range_between(const struct dg *s, int q1, int r1, int q2, int r2);
int los(const struct dg *s, int q1, int r1, int q2, int r2);
/* range_between and los, answered from g->memo when a monster decides */
void memo_begin(struct game *g, struct sight_memo *m);
void memo_end(struct game *g);
int g_range(const struct game *g, int q1, int r1, int q2, int r2);
int g_los(const struct game *g, int q1, int r1, int q2, int r2);
int adjacent(const struct dg *s, int q1, int r1, int q2, int r2);
int enemies(const struct dg *s, int a, int b);
int visible_hex(const struct dg *s, int h);
/* Dijkstra from (q, r) for figure f: cost neg*1000 + mp per hex index;
 * prev[] for paths; mode 0 normal, 1 jump, 2 flying.  Unreachable: -1. */
void travel(const struct dg *s, int f, int q, int r, int mode, int *cost,
    int *prev);
int can_end(const struct dg *s, int f, int h, int flying);
int step_cost(const struct dg *s, int f, int n, int mode);
void load_map(struct dg *s, const struct mapdef *m);

/* rules.c */
void dg_advance(struct game *g);
int ev(struct game *g, int32_t seat, refd_mpw *w);
refd_mpw *evb(const char *type);

#endif
