/*
 * rules.h - internal helpers shared by rules.c, play.c and plugin.c.
 */
#ifndef SK_RULES_H
#define SK_RULES_H

#include <stddef.h>

#include "sk.h"

/* §1.9: enemies are the creatures of another team (each seat is its own
 * team unless the setup pairs them). */
static inline int
foe_seat(const struct state *s, int a, int b)
{
	return s->team[a] != s->team[b];
}

static inline int
foe(const struct state *s, int u, int v)
{
	return foe_seat(s, s->u[u].seat, s->u[v].seat);
}

const struct map *MAP(const struct cx *x, const struct state *s);
struct grid_space SP(const struct cx *x, const struct state *s, int u);
int helpless(const struct state *s, int u);
int functional(const struct state *s, int u);
int has(const struct cx *x, const struct state *s, int u, int ab);
int sees(const struct cx *x, const struct state *s, int a, int b);
int adjacent(const struct cx *x, const struct state *s, int a, int b);
int melee_cover(const struct cx *x, const struct state *s, int att, int def);
int threatens(const struct cx *x, const struct state *s, int t, int m);
int threatened(const struct cx *x, const struct state *s, int m);
int occupant(const struct cx *x, const struct state *s, int sx, int sy,
    int except);
int end_ok(const struct cx *x, const struct state *s, int u, int ax, int ay);
int under_command(const struct cx *x, const struct state *s, int u);
int difficult_of(const struct cx *x, const struct state *s, int u);
int wild_of(const struct cx *x, const struct state *s, int u);
int stenched(const struct cx *x, const struct state *s, int u);
int cmd_effect(const struct cx *x, const struct state *s, int u, int stat);
int init_bonus(const struct cx *x, const struct state *s, int seat, int any);
void check_victory(struct cx *x, struct state *s);
void eliminate(struct cx *x, struct state *s, int u, const char *how,
    int by);
int save(struct cx *x, struct state *s, int u, int dc, const char *why);
int morale(struct cx *x, struct state *s, int u, const char *why);
void rout(struct cx *x, struct state *s, int u, int cause);
void damage2(struct cx *x, struct state *s, int u, int amount, int src,
    int defer);
void half_check(struct cx *x, struct state *s, int u, int src);
void death_burst(struct cx *x, struct state *s, int u);
void damage(struct cx *x, struct state *s, int u, int amount, int src);
int tiebreak(const struct cx *x, const struct state *s);
void game_over(struct cx *x, struct state *s, int winner, int reason);
int cond_immune(const struct cx *x, const struct state *s, int t, int cond);
void condition(struct cx *x, struct state *s, int t, int cond, int dc,
    int src);
void push_rout(struct cx *x, struct state *s, int u);
void sim_order(const struct state *s, int *list, int n);

/* play.c */
enum mvmode { MV_NORMAL, MV_CHARGE, MV_ROUT };
int step_slow(const struct cx *x, const struct state *s, int u, int fx,
    int fy, int tx, int ty, int mode);
int nearest_ranged(const struct cx *x, const struct state *s, int u,
    int enemies, int maxrange);
void attack(struct cx *x, struct state *s, int a, int d, int ranged,
    int line, int charge, int aoo);
int charge_check(const struct cx *x, const struct state *s, int u, int t,
    int dx, int dy, struct prog *out, char *msg, size_t len);
int rush_cost(const struct cx *x, const struct state *s, int u, int t,
    int *best);
int rush_step_ok(const struct cx *x, const struct state *s, int u, int tx,
    int ty, int budget_after);
int rush_charge_ok(const struct cx *x, const struct state *s, int u, int t);
int energy_adjust(const struct cx *x, const struct state *s, int d, int n,
    int e);
int buff(const struct cx *x, const struct state *s, int u, int stat);
int smite_applies(const struct cx *x, const struct state *s, int a, int d);
int activations(const struct cx *x, const struct state *s, int u);
void sidestep(struct cx *x, struct state *s, int u, int tx, int ty);
void whirlwind(struct cx *x, struct state *s, int u);
int turn_target_ok(const struct cx *x, const struct state *s, int u, int t);
void turn_undead(struct cx *x, struct state *s, int u, int t);
void gaze_back(struct cx *x, struct state *s, int a, int t);
int push_ok(const struct cx *x, const struct state *s, int a, int d, int tx,
    int ty, int mode);
int switch_ok(const struct cx *x, const struct state *s, int u, int t, int ax,
    int ay, int bx, int by);
void switch_places(struct cx *x, struct state *s, int u, const int32_t *a);
void spend_spell(struct cx *x, struct state *s, int u, int k);
void end_turn(struct cx *x, struct state *s);
void start_turn(struct cx *x, struct state *s, int u);
int spell_targets(const struct cx *x, const struct state *s, int u, int k,
    int t, char *msg, size_t len);
void cast_spell(struct cx *x, struct state *s, int u, const int32_t *a);
int area_ok(const struct cx *x, const struct state *s, int u, const int32_t *a,
    int line, char *msg, size_t len);
int cone_ok(const struct cx *x, const struct state *s, int u, int k, int ox,
    int oy, int orient, char *msg, size_t len);

/* tiles.c */
int zone_at(const struct cx *x, const struct state *s, int i);
int place_ok(const struct cx *x, const struct state *s, int seat, int ti,
    int px, int py, int rot, char *msg, size_t len);
int assembly_fit(const struct content *c, const struct map *m, int seat,
    int tile, int *ppx, int *ppy, int *prot);
void tiles_begin(struct cx *x, struct state *s);
void tiles_place(struct cx *x, struct state *s, int seat, int ti, int px,
    int py, int rot);
int deploy_ok(const struct cx *x, const struct state *s, int u, int ax,
    int ay);
void prep_deploy(struct cx *x, struct state *s);

#endif
