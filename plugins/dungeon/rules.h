/*
 * rules.h - internal interfaces between rules.c, ai.c and plugin.c.
 */
#ifndef DG_RULES_H
#define DG_RULES_H

#include "dg.h"

enum { M_P0, M_P1, M_M1, M_P2, M_M2, M_X2, M_NULL, M_BLESS, M_MCURSE,
	M_PCURSE, M_P1R, M_P1IMM, M_P1WND, M_P0RFIRE, M_P0RICE, M_P0REARTH,
	M_P1POI, M_P1MUD, NMOD };

struct modc {
	const char *name;
	int kind;		/* 0 add, 1 x2, 2 null */
	int val, rolling, conds, elem;
};
extern const struct modc modc[NMOD];

int mod_by_name(const char *n, int monster);
void deck_build(struct deck *d, const int *top, int ntop);
void deck_add(struct game *g, struct deck *d, int card);
const char *fig_name(const struct game *g, int f, char *buf, size_t n);
int char_of(const struct game *g, int f);
int cur_fig(const struct game *g);
int fig_shield(const struct game *g, int f);
void finish(struct game *g, int win, const char *why);
void after_damage(struct game *g);
int type_present(const struct game *g, int t);
int place_monster(struct game *g, int t, int rank, int q, int r,
    int standee, int nomoney);
void char_reach(const struct game *g, int f, int mp, int jump, int *best);
void char_move(struct game *g, int f, int mp, int jump, int h);
int cond_mask(refd_mpv arr, int *bad);
int parse_map(refd_mpv v, struct mapdef *m, const struct content *c,
    char *err, size_t errlen);
int dg_content_parse(const uint8_t *bytes, size_t len, struct content *c,
    char *err, size_t errlen);

/* the current half of character ci, or NULL */
const struct half *cur_half(const struct game *g, int ci);
const struct ability *cur_ability(const struct game *g, int ci,
    struct ability *tmp);
int can_target(const struct game *g, int f, const struct ability *a,
    int e, const char **why);
int active_is_lost(const struct game *g, int ci, int k);
void active_move(struct game *g, int ci, int k);
int move_points(const struct game *g, int ci, const struct ability *a,
    int aug);

/* A decision a seat may send now (legal == what apply accepts). */
enum { K_PLAN = 1, K_REST, K_ACTIVE, K_PLAY, K_MOVE, K_ATTACK, K_AOE,
	K_HEAL, K_BLESS, K_SUMMON, K_RECOVER, K_PERFORM, K_SKIP, K_PUSH,
	K_TAKE, K_LOSEHAND, K_LOSEDISC, K_LRLOSE, K_SRACCEPT, K_SRKEEP,
	K_ITEM, K_ORDER, K_CREATE, K_LEVELUP, K_BUY, K_SELL, K_DONATE,
	K_TRAVEL, K_ENDCAMP, K_GOAL, K_EVDRAW, K_EVCHOOSE,
	K_ENHANCE, K_PQ, K_RETIRE, K_PERK, K_AITIE, K_CARD, K_DROP,
	K_REACT, K_START, K_EVGOLD, K_EVDISC, K_TOWNDONE, K_KEEP,
	K_EVITEM };

struct opt {
	int32_t kind, a, b, c, q, r, o, n;
	int32_t tg[MAXTG];
};

#define MAXOPT 600
int options(const struct game *g, int seat, struct opt *out, int max);
int perform(struct game *g, int seat, const struct opt *o);
int aoe_targets(const struct game *g, int f, const struct ability *a,
    int q, int r, int o, int *tg, int *in_range);
int aoe_targets_from(const struct game *g, int f, int fq, int fr,
    const struct ability *a, int q, int r, int o, int *tg, int *in_range);

int draw_attack(struct game *g, struct deck *d, int mode, int v, int *out,
    int *drawn, int *ndrawn);
void damage(struct game *g, int f, int n, int credit, const char *why,
    int after);
void hurt(struct game *g, int f, int n, int credit, const char *why);
void kill_fig(struct game *g, int f, int credit);
void add_conds(struct game *g, int f, int conds);
int fig_retaliate(const struct game *g, int f);
void enter_hex(struct game *g, int f, int h, int credit);
int victory_met(const struct game *g);
void ad_draw(struct game *g, int t);
int card_init(const struct game *g, int t);
void exhaust(struct game *g, int ci, const char *why);
void deck_reshuffle(struct game *g, struct deck *d, const char *why);
int uniform(struct game *g, int bound, const char *why);
void heal_fig(struct game *g, int f, int n);
int ward(struct game *g, int ci);
void ability_done(struct game *g, int ci, int performed);
void short_rest_pick(struct game *g, int ci, int avoid);
void short_rest_finish(struct game *g, int ci);
void short_rest_skip(struct game *g);
void push_choose(struct game *g, int h);
int push_options(const struct game *g, int *out);
void char_attack(struct game *g, int ci, const struct ability *a,
    const int *tg, int ntg, int aoe, int aug);
int char_move_bonus(struct game *g, const struct ability *a, int aug);

int camp_options(const struct game *g, int seat, struct opt *out, int max);
void camp_perform(struct game *g, int seat, const struct opt *o);
void camp_return(struct game *g, int win);
int camp_setup(struct game *g, refd_mpv cv, char *err, size_t errlen);
#define NSTICKER 8
extern const char *const sticker_name[NSTICKER];
int sticker_on(const struct ability *a, int st);
int slot_sticker(int32_t enh, int slot);
void enhance_apply(const struct half *h, int32_t enh, struct ability *a,
    int ab_i);
int camp_owes_levelup(const struct game *g, int seat);
int price_of(const struct game *g, int k);
int prosperity_level(int marks);
void scenario_begin(struct game *g);
void goals_deal(struct game *g);
int goals_all_chosen(const struct game *g);
void goals_choose(struct game *g, int ci, int k);
void goals_score(struct game *g);
int goals_redeal(struct game *g, int seat);
void place_obstacles(struct game *g, int room);
void write_path(const struct dg *s, refd_mpw *w, const int *path, int n,
    int reverse);
int default_hand(const struct cclass *cl);
int base_pool(const struct cclass *cl);
int hands_ready(const struct game *g);
int equip_ok(const int *cnt, int level);
int parse_at(refd_mpv a, int *q, int *r);
void write_order(const struct game *g, refd_mpw *w);
void opt_add(struct opt *out, int *n, int max, int kind, int a, int b,
    int c);
struct deck *deck_of(struct game *g, int f);
int lowest_seat(const struct game *g);
void monster_heal_on(struct game *g, int f, int target, int value);
void monster_summon_at(struct game *g, int type, int h);
void monster_move_to(struct game *g, int f, int h);
int monster_go(struct game *g, int f, int h);
int flies(const struct game *g, int f);
void land_on(struct game *g, int f, int h);
void fig_put(struct game *g, int f, int q, int r, const char *type,
    const char *who, int id);
void monster_go_path(struct game *g, int f, int h, int i);
int monster_wild_infuse(struct game *g, int f, int left);
void monster_infuse_pick(struct game *g, int f, int e, int left);
void tie_find(struct game *g);
void tie_apply(struct game *g, const int32_t *perm);
int tie_perms(const struct game *g, int32_t perms[][4], int max);
int item_usable(const struct game *g, int ci, int k);
void item_use(struct game *g, int ci, int k);
int item_ward(struct game *g, int ci);
int item_reaction(const struct game *g, int ci);
void item_refresh(struct game *g, int ci, int all);

#endif
