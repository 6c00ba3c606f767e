/*
 * rules.c - the warband rules: commands, the response stack, damage and
 * cowering, phases and the end of the game (spec sections 2 to 6).
 *
 * Every command goes through one check function (cmd_check) that apply
 * and legal share, so what legal lists is what apply accepts; cmd_exec
 * then changes the state, and advance() runs the automatic steps until
 * some seat owes a decision.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "warband.h"

#define FAIL(e, c, r, ...)                                                     \
	(snprintf((e)->msg, sizeof((e)->msg), __VA_ARGS__), (e)->code = (c),   \
	    (e)->rule = (r), -1)

enum { C_CMD, C_ORDER, C_DEPLOY, C_END_DEPLOY, C_ACTIVATE, C_END_ACT, C_END_PHASE,
	C_MOVE, C_ATTACK, C_PLAY, C_POWER, C_GRAB, C_AVOID, C_PASS, C_COWER,
	C_TRIGGER, C_PATH, C_PICK, C_N };

static const char *const cmdname[C_N] = { "choose_commander",
	"deploy_order", "deploy",
	"end_deploy", "activate", "end_activation", "end_phase", "move",
	"attack", "play", "power", "grab", "avoid", "pass", "cower", "trigger",
	"path", "pick" };

struct cmd {
	int type, unit, target, ranged, yes, card, discard, x, y, power;
	int np, px[MAXPATH], py[MAXPATH];
	int na, assist[8];
};

/* Kinds of decision owed. */
enum { K_NONE, K_COWER, K_TRIG, K_PATH, K_WIN, K_PICK, K_ORDER, K_SETUP,
	K_FREE, K_CMD };

/* Movement modes. */
enum { MV_MOVE, MV_SHIFT, MV_SLIDE };

static void resolve_top(struct g *g);
static void finish_resolution(struct g *g, const struct item *it);

/* ---------------------------------------------------------------- events */

int
ev(struct g *g, int32_t seat, const char *type, ...)
{
	refd_mpw *w = refd_mpw_create();
	const char *k;
	va_list ap;
	int rc;

	refd_mpw_map(w);
	refd_mpw_kstr(w, "type", type);
	va_start(ap, type);
	while ((k = va_arg(ap, const char *)) != NULL) {
		int v = va_arg(ap, int);

		/* Card numbers are shown as their content ids. */
		if (strcmp(k, "order") == 0)
			refd_mpw_kstr(w, k, v >= 0 && v < g->c->nod ?
			    g->c->od[v].id : NULL);
		else if (strcmp(k, "commander") == 0)
			refd_mpw_kstr(w, k, v >= 0 && v < g->c->nkd ?
			    g->c->kd[v].id : NULL);
		else if (strcmp(k, "creature") == 0)
			refd_mpw_kstr(w, k, v >= 0 && v < g->c->ncd ?
			    g->c->cd[v].id : NULL);
		else
			refd_mpw_kint(w, k, v);
	}
	va_end(ap);
	refd_mpw_end(w);
	if (refd_mpw_error(w))
		rc = REFD_ENOMEM;
	else
		rc = H->emit(g->ctx, seat, refd_mpw_data(w), refd_mpw_len(w));
	refd_mpw_destroy(w);
	if (rc != REFD_OK && g->rc == 0)
		g->rc = rc;
	return rc;
}

const char *
uname(const struct g *g, int id)
{
	if (id < 1 || id > g->s->nunits)
		return "?";
	return g->c->cd[g->s->u[id - 1].def].name;
}

/* --------------------------------------------------------------- helpers */

static struct unit *
U(struct g *g, int id)
{
	return &g->s->u[id - 1];
}

static int
alive(const struct state *s, int id)
{
	return id >= 1 && id <= s->nunits && s->u[id - 1].alive;
}

static const struct cdef *
CD(const struct g *g, const struct unit *u)
{
	return &g->c->cd[u->def];
}

int
cur_level(const struct g *g, const struct unit *u)
{
	int l = CD(g, u)->level, i;

	for (i = 0; i < u->natt; i++)
		l += g->c->od[u->att[i]].att_level;
	return l;
}

/* Does an attached card keep u from untapping at Refresh? */
static int
skip_untap(const struct g *g, const struct unit *u)
{
	int i;

	for (i = 0; i < u->natt; i++)
		if (g->c->od[u->att[i]].att_no_untap)
			return 1;
	return 0;
}

static int
adj_enemy(struct g *g, int id)
{
	struct state *s = g->s;
	int i;

	for (i = 1; i <= s->nunits; i++)
		if (alive(s, i) && i != id && ENEMY(s, s->u[i - 1].ctrl,
		    s->u[id - 1].ctrl) && adjacent(s, g->c, &s->u[id - 1],
		    &s->u[i - 1]))
			return i;
	return 0;
}

int
is_ap_turn(const struct state *s)
{
	return s->phase >= PH_REFRESH && s->phase <= PH_CLEANUP;
}

static void
open_window(struct state *s)
{
	s->win = 1;
	s->prio = s->active;
	s->passes = 0;
}

static int
push(struct g *g, struct item *it)
{
	struct state *s = g->s;

	if (s->nstack >= MAXSTACK - 1)
		return -1;
	it->origin = ++s->norigin;
	s->stack[s->nstack++] = *it;
	ev(g, REFD_SEAT_PUBLIC, "pushed", "kind", it->kind, "seat", it->seat,
	    "actor", it->actor, "target", it->target, "order", it->card,
	    "origin", it->origin, NULL);
	open_window(s);
	return 0;
}

static void
tap(struct g *g, int id)
{
	if (!U(g, id)->tapped) {
		U(g, id)->tapped = 1;
		ev(g, REFD_SEAT_PUBLIC, "tapped", "unit", id, NULL);
	}
}

static void
set_morale(struct g *g, int seat, int delta)
{
	struct state *s = g->s;

	s->seat[seat].morale += delta;
	ev(g, REFD_SEAT_PUBLIC, "morale", "seat", seat, "delta", delta,
	    "morale", s->seat[seat].morale, NULL);
}

/* Total printed level of alive creatures: owned (A4) or controlled. */
static int
levels(struct g *g, int seat, int controlled)
{
	struct state *s = g->s;
	int i, t = 0;

	for (i = 0; i < s->nunits; i++)
		if (s->u[i].alive && (controlled ? s->u[i].ctrl :
		    s->u[i].owner) == seat)
			t += g->c->cd[s->u[i].def].level;
	return t;
}

static void
game_over(struct g *g, int reason)
{
	struct state *s = g->s;
	int i, best = 0, have = 0, bl = 0;
	int32_t win = 0;

	if (s->over)
		return;
	s->over = 1;
	s->reason = reason;
	s->phase = PH_OVER;
	s->nstack = 0;
	s->win = 0;
	s->nq = s->qi = 0;
	s->trig_n = s->trig_i = 0;
	s->pathp = 0;
	s->ntq = 0;
	/* R004-56, R004-58: excluded seats (or teams), then Morale, then
	 * printed levels; ties are draws.  Without teams each seat is its
	 * own team. */
	for (i = 0; i < s->nseats; i++) {
		int m = 0, l = 0, j, out = 0;

		for (j = 0; j < s->nseats; j++)
			if (s->team[j] == s->team[i]) {
				m += s->seat[j].morale;
				l += levels(g, j, 1);
				out |= s->seat[j].disq;
			}
		if (out)
			continue;
		if (!have || m > best || (m == best && l > bl)) {
			best = m;
			bl = l;
			win = 1 << i;
			have = 1;
		} else if (m == best && l == bl) {
			win |= 1 << i;
		}
	}
	s->winners = win;
	ev(g, REFD_SEAT_PUBLIC, "game_over", "reason", reason, "winners", win,
	    NULL);
}

static void
morale_check(struct g *g)
{
	int i;

	for (i = 0; i < g->s->nseats; i++)
		if (g->s->seat[i].morale <= 0) {
			game_over(g, 1);
			return;
		}
}

static void
draw_order(struct g *g, int seat)
{
	struct state *s = g->s;
	int32_t c;

	if (refd_deck_draw_into(&s->odeck[seat], &s->ohand[seat], &c) ==
	    REFD_OK) {
		ev(g, REFD_SEAT_PUBLIC, "drew_order", "seat", seat, "hand",
		    s->ohand[seat].n, NULL);
		ev(g, seat, "drew_order_card", "order", c, NULL);
	}
}

static void
refill(struct g *g, int seat)
{
	struct state *s = g->s;
	int32_t c;

	while (s->chand[seat].n < g->c->kd[s->seat[seat].cmd].chand &&
	    refd_deck_draw_into(&s->cdeck[seat], &s->chand[seat], &c) ==
	    REFD_OK) {
		ev(g, REFD_SEAT_PUBLIC, "drew_creature", "seat", seat, "hand",
		    s->chand[seat].n, NULL);
		ev(g, seat, "drew_creature_card", "creature", c, NULL);
	}
}

/* Setup draws: starting order hand and creature hand (R004-04). */
void
deal_hands(struct g *g)
{
	struct state *s = g->s;
	int i, k;

	for (k = 0; k < s->nseats; k++) {
		const struct kdef *kd = &g->c->kd[s->seat[k].cmd];
		int32_t cc;

		for (i = 0; i < kd->ohand; i++)
			if (refd_deck_draw_into(&s->odeck[k], &s->ohand[k],
			    &cc) == REFD_OK)
				ev(g, k, "drew_order_card", "order", cc, NULL);
		for (i = 0; i < kd->chand; i++)
			if (refd_deck_draw_into(&s->cdeck[k], &s->chand[k],
			    &cc) == REFD_OK)
				ev(g, k, "drew_creature_card", "creature", cc,
				    NULL);
		ev(g, REFD_SEAT_PUBLIC, "dealt", "seat", k, "orders",
		    s->ohand[k].n, "creatures", s->chand[k].n, NULL);
	}
}

void
commit_all(struct g *g)
{
	struct state *s = g->s;
	char z[32];
	int i;

	for (i = 0; i < s->nseats; i++) {
		snprintf(z, sizeof(z), "orders.deck.%d", i);
		refd_deck_commit(H, g->ctx, &s->odeck[i], z, REFD_SEAT_PUBLIC);
		snprintf(z, sizeof(z), "orders.hand.%d", i);
		refd_deck_commit(H, g->ctx, &s->ohand[i], z, i);
		snprintf(z, sizeof(z), "creatures.deck.%d", i);
		refd_deck_commit(H, g->ctx, &s->cdeck[i], z, REFD_SEAT_PUBLIC);
		snprintf(z, sizeof(z), "creatures.hand.%d", i);
		refd_deck_commit(H, g->ctx, &s->chand[i], z, i);
	}
}

/* ----------------------------------------------------------- movement */

static int
sq_flags(const struct state *s, int x, int y)
{
	return s->flags[y * MAXW + x];
}

/* The creature mover at anchor (x,y): is any square adjacent to an enemy
 * of seat? */
static int
adj_enemy_at(struct g *g, int mover, int seat, int x, int y)
{
	struct state *s = g->s;
	struct unit tmp = s->u[mover - 1];
	int i;

	tmp.x = x;
	tmp.y = y;
	for (i = 1; i <= s->nunits; i++)
		if (alive(s, i) && i != mover && ENEMY(s, s->u[i - 1].ctrl,
		    seat) &&
		    adjacent(s, g->c, &tmp, &s->u[i - 1]))
			return 1;
	return 0;
}

/* Occupant of any footprint square other than mover: 1 ally, 2 enemy. */
static int
fp_occupied(struct g *g, int mover, int seat, int x, int y)
{
	struct state *s = g->s;
	int z = usize(g->c, &s->u[mover - 1]), i, j, r = 0;

	for (j = 0; j < z; j++)
		for (i = 0; i < z; i++) {
			int o = unit_at(s, g->c, x + i, y + j);

			if (o && o != mover)
				r |= ENEMY(s, s->u[o - 1].ctrl, seat) ? 2 : 1;
		}
	return r;
}

static int
fp_flags(struct g *g, int mover, int x, int y)
{
	struct state *s = g->s;
	int z = usize(g->c, &s->u[mover - 1]), i, j, f = 0;

	for (j = 0; j < z; j++)
		for (i = 0; i < z; i++)
			f |= sq_flags(s, x + i, y + j);
	return f;
}

static int
fp_valid(struct g *g, int mover, int x, int y, int inboard_only)
{
	struct state *s = g->s;
	int z = usize(g->c, &s->u[mover - 1]), i, j;

	for (j = 0; j < z; j++)
		for (i = 0; i < z; i++) {
			int a = x + i, b = y + j;

			if (a < 0 || b < 0 || a >= s->w || b >= s->h)
				return 0;
			if (!inboard_only && !sq_valid(s, a, b))
				return 0;
		}
	return 1;
}

struct mv {
	int mode, allow, ign_stop, pass_enemy, ign_terrain, burrow, seat;
};

static void
mv_rules(struct g *g, int mover, int mode, int n, struct mv *m)
{
	const struct unit *u = &g->s->u[mover - 1];
	int tr = CD(g, u)->traits;

	memset(m, 0, sizeof(*m));
	m->mode = mode;
	m->seat = u->ctrl;
	if (mode == MV_MOVE) {
		m->allow = adj_enemy(g, mover) ? 1 : CD(g, u)->speed;
		m->ign_stop = (tr & (TR_FLIGHT | TR_BURROW | TR_SLIP)) != 0;
		m->pass_enemy = (tr & (TR_FLIGHT | TR_BURROW)) != 0;
		m->ign_terrain = (tr & (TR_FLIGHT | TR_BURROW)) != 0;
		m->burrow = (tr & TR_BURROW) != 0;
	} else {
		m->allow = n;
		m->ign_stop = 1;
		m->pass_enemy = mode == MV_SLIDE;
	}
}

/* Movement mode of a stack item waiting for its path. */
static int
pmode(const struct item *it)
{
	return it->kind == IT_SLIDE ? MV_SLIDE : it->kind == IT_MOVE ?
	    MV_MOVE : MV_SHIFT;
}

static int
check_path(struct g *g, int mover, int mode, int n, const int *px,
    const int *py, int np, struct err *e)
{
	struct state *s = g->s;
	const struct unit *u = &s->u[mover - 1];
	struct mv m;
	int x = u->x, y = u->y, cost = 0, i, z = usize(g->c, u);

	mv_rules(g, mover, mode, n, &m);
	for (i = 0; i < np; i++) {
		int bx = px[i], by = py[i];

		if (abs(bx - x) > 1 || abs(by - y) > 1 || (bx == x && by == y))
			return FAIL(e, REFD_ENOPATH, "R004-33",
			    "E_PATH: (%d,%d) is not one square from (%d,%d)",
			    bx, by, x, y);
		if (m.burrow ? !fp_valid(g, mover, bx, by, 1) :
		    !fp_step_ok(s, z, x, y, bx, by))
			return FAIL(e, REFD_ENOPATH, "R004-34",
			    "E_WALL: a wall blocks the step from (%d,%d) to "
			    "(%d,%d)", x, y, bx, by);
		cost += m.ign_terrain ? 1 : ((fp_flags(g, mover, bx, by) &
		    (SQ_DIFF | SQ_HAZ | SQ_OBST)) ? 2 : 1);
		if ((fp_occupied(g, mover, m.seat, bx, by) & 2) &&
		    !m.pass_enemy)
			return FAIL(e, REFD_ENOPATH, "R004-35",
			    "E_ENEMY_SQUARE: %s cannot pass through the enemy "
			    "at (%d,%d)", uname(g, mover), bx, by);
		if (cost > m.allow)
			return FAIL(e, REFD_ENOPATH, "R004-33",
			    "E_PATH_COST: the path costs %d but %s may move "
			    "only %d", cost, uname(g, mover), m.allow);
		if (!m.ign_stop && i + 1 < np &&
		    adj_enemy_at(g, mover, m.seat, bx, by))
			return FAIL(e, REFD_ENOPATH, "R004-36",
			    "E_MUST_STOP: %s must stop at (%d,%d), next to an "
			    "enemy", uname(g, mover), bx, by);
		x = bx;
		y = by;
	}
	if (np > 0 && !fp_valid(g, mover, x, y, 0))
		return FAIL(e, REFD_ENOPATH, "R004-43",
		    "E_INVALID_END: %s cannot end its move inside a wall",
		    uname(g, mover));
	if (np > 0 && fp_occupied(g, mover, m.seat, x, y))
		return FAIL(e, REFD_ENOPATH, "R004-35",
		    "E_OCCUPIED_END: %s cannot end on an occupied square",
		    uname(g, mover));
	return 0;
}

/* Every destination with one cheapest legal path (Dijkstra by cost). */
struct dest {
	int n;
	int x[MAXSQ], y[MAXSQ];
};

/*
 * Cheapest paths of mover from its square (Dijkstra by cost, the lowest
 * square index first among equal costs): every destination into all,
 * each square's predecessor into par (-1: none).  Costs are small, so the
 * open squares are kept as one bit set per cost.  0, or -1 out of memory.
 */
static int
find_paths(struct g *g, int mover, int mode, int n, struct dest *all,
    int *par)
{
	struct state *s = g->s;
	const struct unit *u = &s->u[mover - 1];
	struct mv m;
	enum { WORDS = (MAXSQ + 63) / 64 };
	int cost[MAXSQ], done[MAXSQ], i, c, nlv, z = usize(g->c, u);
	uint64_t (*open)[WORDS];

	mv_rules(g, mover, mode, n, &m);
	nlv = (m.allow < 2 * MAXSQ ? m.allow : 2 * MAXSQ) + 1;
	if (nlv < 1)
		nlv = 1;
	open = calloc((size_t)nlv, sizeof(*open));
	if (open == NULL)
		return -1;
	for (i = 0; i < MAXSQ; i++) {
		cost[i] = 1 << 20;
		done[i] = 0;
		par[i] = -1;
	}
	i = u->y * MAXW + u->x;
	cost[i] = 0;
	open[0][i / 64] |= (uint64_t)1 << (i % 64);
	all->n = 0;
	for (c = 0; c < nlv; c++) {
		int wd = 0;

		while (wd < WORDS) {
			int b, x, y, dx, dy;

			if (open[c][wd] == 0) {
				wd++;
				continue;
			}
			b = wd * 64 + __builtin_ctzll(open[c][wd]);
			open[c][wd] &= open[c][wd] - 1;
			if (done[b] || cost[b] != c)
				continue;
			done[b] = 1;
			x = b % MAXW;
			y = b / MAXW;
			if (b != u->y * MAXW + u->x) {
				if (fp_valid(g, mover, x, y, 0) &&
				    !fp_occupied(g, mover, m.seat, x, y)) {
					all->x[all->n] = x;
					all->y[all->n++] = y;
				}
				if (!m.ign_stop && adj_enemy_at(g, mover,
				    m.seat, x, y))
					continue;
			}
			for (dy = -1; dy <= 1; dy++)
				for (dx = -1; dx <= 1; dx++) {
					int bx = x + dx, by = y + dy, q, k;

					if (!dx && !dy)
						continue;
					if (m.burrow ?
					    !fp_valid(g, mover, bx, by, 1) :
					    !fp_step_ok(s, z, x, y, bx, by))
						continue;
					if ((fp_occupied(g, mover, m.seat, bx,
					    by) & 2) && !m.pass_enemy)
						continue;
					k = cost[b] + (m.ign_terrain ? 1 :
					    ((fp_flags(g, mover, bx, by) &
					    (SQ_DIFF | SQ_HAZ | SQ_OBST)) ? 2 :
					    1));
					q = by * MAXW + bx;
					if (k <= m.allow && k < nlv &&
					    k < cost[q] && !done[q]) {
						cost[q] = k;
						par[q] = b;
						open[k][q / 64] |=
						    (uint64_t)1 << (q % 64);
					}
				}
		}
	}
	free(open);
	return 0;
}

/* The path to (tx, ty) from find_paths' par, without the start square;
 * -1 when there is none. */
static int
trace_path(const struct unit *u, const int *par, int tx, int ty, int *px,
    int *py, int *np)
{
	int q = ty * MAXW + tx, k = 0, i, tmp[MAXPATH];
	int start = u->y * MAXW + u->x;

	if (tx < 0 || ty < 0 || tx >= MAXW || ty >= MAXW)
		return -1;
	while (q != start && q >= 0 && k < MAXPATH) {
		tmp[k++] = q;
		q = par[q];
	}
	if (q != start)
		return -1;
	for (i = 0; i < k; i++) {
		px[i] = tmp[k - 1 - i] % MAXW;
		py[i] = tmp[k - 1 - i] / MAXW;
	}
	*np = k;
	return 0;
}

/* Walk the path: chests are revealed on entry (R004-45).  Returns 1 when
 * hazardous terrain should hurt the mover (R004-38, A17). */
static int
do_path(struct g *g, int mover, int mode, const int *px, const int *py,
    int np)
{
	struct state *s = g->s;
	struct unit *u = U(g, mover);
	int z = usize(g->c, u), i, a, b, haz = 0, ign;

	ign = mode == MV_MOVE && (CD(g, u)->traits & (TR_FLIGHT | TR_BURROW));
	for (i = 0; i < np; i++) {
		u->x = px[i];
		u->y = py[i];
		for (b = 0; b < z; b++)
			for (a = 0; a < z; a++) {
				int p = (u->y + b) * MAXW + u->x + a;

				if (s->chest[p] > 0) {
					ev(g, REFD_SEAT_PUBLIC, "chest_revealed",
					    "x", u->x + a, "y", u->y + b,
					    "value", s->chest[p], NULL);
					s->treasure[p] += s->chest[p];
					s->chest[p] = 0;
				}
				if (!ign && (s->flags[p] & SQ_HAZ))
					haz = 1;
			}
	}
	if (np > 0 && (fp_flags(g, mover, u->x, u->y) & SQ_HAZ))
		haz = 1;
	if (np > 0) {
		refd_mpw *w = refd_mpw_create();

		refd_mpw_map(w);
		refd_mpw_kstr(w, "type", "moved");
		refd_mpw_kint(w, "unit", mover);
		refd_mpw_kint(w, "x", u->x);
		refd_mpw_kint(w, "y", u->y);
		refd_mpw_karray(w, "path");
		for (i = 0; i < np; i++) {
			refd_mpw_array(w);
			refd_mpw_int(w, px[i]);
			refd_mpw_int(w, py[i]);
			refd_mpw_end(w);
		}
		refd_mpw_end(w);
		refd_mpw_end(w);
		if (!refd_mpw_error(w))
			H->emit(g->ctx, REFD_SEAT_PUBLIC, refd_mpw_data(w),
			    refd_mpw_len(w));
		refd_mpw_destroy(w);
	}
	if (!haz)
		return 0;
	if (s->haz_act_only && !(s->act_unit == mover &&
	    s->active == u->ctrl))
		return 0;
	if (s->act_unit == mover && s->active == u->ctrl) {
		if (u->hazard_hit)
			return 0;
		u->hazard_hit = 1;
	}
	return 1;
}

/* After a move or shift: the triggers it caused wait in APNAP order
 * (R004-26): the active seat's first, then the others in seating order,
 * so the non-active seats' triggers resolve first.  A mandatory hazard
 * (entry 0) is pushed when its turn comes; an optional Snap is offered
 * to its controller (A33). */
static void
add_trig(struct state *s, int src, int mover)
{
	if (s->trig_n < MAXTQ) {
		s->trig[s->trig_n][0] = src;
		s->trig[s->trig_n][1] = mover;
		s->trig_n++;
	}
}

static int
trig_seat(const struct state *s, int k)
{
	int src = s->trig[k][0], m = s->trig[k][1];

	return s->u[(src ? src : m) - 1].ctrl;
}

static void
move_triggers(struct g *g, int mover, int haz, int snap_ok)
{
	struct state *s = g->s;
	int i, k, n0 = s->trig_n;

	if (haz && alive(s, mover))
		add_trig(s, 0, mover);
	for (i = 1; snap_ok && i <= s->nunits; i++) {
		const struct unit *h = &s->u[i - 1];

		if (alive(s, i) && CD(g, h)->power == PW_SNAP && !h->tapped &&
		    ENEMY(s, h->ctrl, s->u[mover - 1].ctrl) &&
		    adjacent(s, g->c, h, &s->u[mover - 1]))
			add_trig(s, i, mover);
	}
	/* Stable sort by seat, starting from the active seat. */
	for (i = n0 + 1; i < s->trig_n; i++)
		for (k = i; k > n0 && (trig_seat(s, k - 1) - s->active +
		    s->nseats) % s->nseats > (trig_seat(s, k) - s->active +
		    s->nseats) % s->nseats; k--) {
			int32_t t0 = s->trig[k][0], t1 = s->trig[k][1];

			s->trig[k][0] = s->trig[k - 1][0];
			s->trig[k][1] = s->trig[k - 1][1];
			s->trig[k - 1][0] = t0;
			s->trig[k - 1][1] = t1;
		}
}

static void
push_hazard(struct g *g, int mover)
{
	struct item it;

	memset(&it, 0, sizeof(it));
	it.kind = IT_HAZARD;
	it.seat = g->s->u[mover - 1].ctrl;
	it.target = mover;
	it.card = -1;
	it.dmg = HAZARD_DMG;
	push(g, &it);
}

/* ---------------------------------------------------------- deployment */

static int
in_start(const struct state *s, int seat, int x, int y)
{
	return s->start[y * MAXW + x] == seat + 1;
}

/* Footprint squares inside the start area for a placement, -1 if the
 * placement is impossible (wall, occupied, off the board). */
static int
place_score(struct g *g, int seat, int size, int x, int y)
{
	struct state *s = g->s;
	int i, j, in = 0;

	for (j = 0; j < size; j++)
		for (i = 0; i < size; i++) {
			if (!sq_valid(s, x + i, y + j) ||
			    unit_at(s, g->c, x + i, y + j))
				return -1;
			in += in_start(s, seat, x + i, y + j);
		}
	for (j = 0; j < size; j++)
		for (i = 0; i < size; i++) {
			if (i + 1 < size && !step_ok(s, x + i, y + j, x + i + 1,
			    y + j))
				return -1;
			if (j + 1 < size && !step_ok(s, x + i, y + j, x + i,
			    y + j + 1))
				return -1;
		}
	return in;
}

static int
best_place(struct g *g, int seat, int size)
{
	struct state *s = g->s;
	int x, y, b = 0, v;

	for (y = 0; y < s->h; y++)
		for (x = 0; x < s->w; x++)
			if ((v = place_score(g, seat, size, x, y)) > b)
				b = v;
	return b;
}

/* --------------------------------------------------------- who decides */

static int
owed(const struct state *s, int *seat)
{
	*seat = -1;
	if (s->over)
		return K_NONE;
	if (s->qi < s->nq) {
		*seat = s->u[s->q[s->qi].unit - 1].ctrl;
		return K_COWER;
	}
	if (s->trig_i < s->trig_n && s->trig[s->trig_i][0] > 0) {
		*seat = s->u[s->trig[s->trig_i][0] - 1].ctrl;
		return K_TRIG;
	}
	if (s->pathp) {
		*seat = s->pend.seat;
		return K_PATH;
	}
	if (s->win) {
		*seat = s->prio;
		return K_WIN;
	}
	if (s->ntq > 1) {
		*seat = s->active;
		return K_PICK;
	}
	switch (s->phase) {
	case PH_CMD: {
		int i;

		for (i = 0; i < s->nseats; i++)
			if (!s->seat[i].chose) {
				*seat = i;
				return K_CMD;
			}
		return K_NONE;
	}
	case PH_ORDER:
		*seat = s->chooser;
		return K_ORDER;
	case PH_SETUP:
		*seat = s->dseat;
		return K_SETUP;
	case PH_ACTIVATION:
	case PH_DEPLOY:
		*seat = s->active;
		return K_FREE;
	}
	return K_NONE;
}

uint64_t
pending_seats(const struct state *s)
{
	int seat;

	if (s->phase == PH_CMD && !s->over) {
		uint64_t m = 0;
		int i;

		/* Every seat that has not chosen owes its choice. */
		for (i = 0; i < s->nseats; i++)
			if (!s->seat[i].chose)
				m |= (uint64_t)1 << i;
		return m;
	}
	if (owed(s, &seat) == K_NONE || seat < 0)
		return 0;
	return (uint64_t)1 << seat;
}

/* May seat do anything in a window?  Public information only: a seat
 * with an untapped creature, or the active seat with an activated
 * creature (minor actions), is always asked (spec 3.5.2). */
static int
may_act(struct g *g, int seat)
{
	struct state *s = g->s;
	int i;

	if (seat == s->active && s->phase == PH_ACTIVATION &&
	    alive(s, s->act_unit) && s->u[s->act_unit - 1].ctrl == seat)
		return 1;
	for (i = 1; i <= s->nunits; i++)
		if (alive(s, i) && s->u[i - 1].ctrl == seat &&
		    !s->u[i - 1].tapped)
			return 1;
	return 0;
}

/* -------------------------------------------------------------- checks */

static int
check_unit(struct g *g, int seat, int id, struct err *e)
{
	if (!alive(g->s, id))
		return FAIL(e, REFD_ENOTARGET, "R004-66",
		    "there is no creature %d in play", id);
	if (g->s->u[id - 1].ctrl != seat)
		return FAIL(e, REFD_EILLEGAL, "R004-32",
		    "E_NOT_ACTIVE: you do not control %s", uname(g, id));
	return 0;
}

/* Timing of an action of the given type by seat with creature id. */
static int
check_timing(struct g *g, int seat, int id, int type, int k, struct err *e)
{
	struct state *s = g->s;

	if (type == OT_STD) {
		if (k != K_FREE || s->phase != PH_ACTIVATION)
			return FAIL(e, REFD_EPHASE, "R004-20",
			    "E_TIMING: a standard action needs your "
			    "Activation phase with an empty stack");
		if (s->act_unit != id)
			return FAIL(e, REFD_EILLEGAL, "R004-20",
			    "E_NOT_ACTIVE: %s is not the activated creature",
			    uname(g, id));
		if (s->u[id - 1].tapped)
			return FAIL(e, REFD_EILLEGAL, "R004-19",
			    "E_TAPPED: %s is tapped", uname(g, id));
	} else if (type == OT_MINOR) {
		if (k != K_WIN && k != K_FREE)
			return FAIL(e, REFD_EPHASE, "R004-21",
			    "E_TIMING: answer the open decision first");
		if (s->phase != PH_ACTIVATION || seat != s->active ||
		    s->act_unit != id)
			return FAIL(e, REFD_EILLEGAL, "R004-21",
			    "E_NOT_ACTIVE: a minor action needs %s to be the "
			    "activated creature", uname(g, id));
	} else {
		if (k != K_WIN && k != K_FREE)
			return FAIL(e, REFD_EPHASE, "R004-22",
			    "E_TIMING: an immediate action needs priority");
		if (s->u[id - 1].tapped)
			return FAIL(e, REFD_EILLEGAL, "R004-19",
			    "E_TAPPED: %s is tapped", uname(g, id));
	}
	return 0;
}

/* Within range squares: around walls and in sight, or counted through
 * walls without sight for effects that say so (R004-48). */
static int
in_reach(struct g *g, int a, int t, int range, int nolos)
{
	struct state *s = g->s;

	if (nolos)
		return cheb_dist(g->c, &s->u[a - 1], &s->u[t - 1]) <= range;
	return wall_dist(s, g->c, &s->u[a - 1], &s->u[t - 1]) <= range &&
	    los(s, g->c, a, t);
}

/* Attack legality (R004-46, R004-47): check_reach 1 at declaration, 2 at
 * resolution (a shooter next to an enemy is not re-checked, A44). */
static int
check_attack(struct g *g, int id, int target, int ranged, int range,
    int needs_stat, int check_reach, struct err *e)
{
	struct state *s = g->s;
	const struct unit *a = &s->u[id - 1];

	if (!alive(s, target) || target == id)
		return FAIL(e, REFD_ENOTARGET, "R004-24",
		    "there is no creature %d to attack", target);
	if (!ranged) {
		if (check_reach && !melee_reach(s, g->c, a, &s->u[target - 1]))
			return FAIL(e, REFD_ERANGE, "R004-46",
			    "E_NOT_ADJACENT: %s is not adjacent to %s (or a "
			    "wall is between them)", uname(g, target),
			    uname(g, id));
		return 0;
	}
	if (needs_stat && CD(g, a)->ranged == 0)
		return FAIL(e, REFD_EILLEGAL, "R004-47",
		    "E_NO_RANGED: %s has no ranged attack", uname(g, id));
	if (check_reach != 2 && adj_enemy(g, id))
		return FAIL(e, REFD_EILLEGAL, "R004-47",
		    "E_ADJACENT_ENEMY: %s is next to an enemy (%s) and cannot "
		    "shoot", uname(g, id), uname(g, adj_enemy(g, id)));
	if (wall_dist(s, g->c, a, &s->u[target - 1]) > range)
		return FAIL(e, REFD_ERANGE, "R004-48",
		    "E_RANGE: %s is %d squares away, range is %d",
		    uname(g, target), wall_dist(s, g->c, a,
		    &s->u[target - 1]), range);
	if (!los(s, g->c, id, target))
		return FAIL(e, REFD_ENOTARGET, "R004-49",
		    "E_NO_LOS: %s cannot see %s", uname(g, id),
		    uname(g, target));
	return 0;
}

/* The topmost stack item that would damage unit id, or -1. */
static int
damaging_item(const struct state *s, int id, int ranged_only)
{
	int i;

	for (i = s->nstack - 1; i >= 0; i--) {
		const struct item *it = &s->stack[i];

		if (it->target != id)
			continue;
		if (ranged_only) {
			if (it->kind == IT_ATTACK && it->ranged)
				return i;
			continue;
		}
		if (it->kind == IT_ATTACK || it->kind == IT_HAZARD ||
		    it->kind == IT_FESTER || it->kind == IT_SNAP)
			return i;
	}
	return -1;
}

static int
check_play(struct g *g, int seat, const struct cmd *c, int k, struct err *e)
{
	struct state *s = g->s;
	const struct odef *o;
	const struct unit *u;
	int lvl, i, j;

	if (c->card < 0 || c->card >= g->c->nod ||
	    refd_deck_find(&s->ohand[seat], c->card) < 0)
		return FAIL(e, REFD_EILLEGAL, "R004-28",
		    "that order card is not in your hand");
	o = &g->c->od[c->card];
	if (check_unit(g, seat, c->unit, e))
		return -1;
	u = &s->u[c->unit - 1];
	if (check_timing(g, seat, c->unit, o->type, k, e))
		return -1;
	if (o->req_kw && !(CD(g, u)->kw & o->req_kw))
		return FAIL(e, REFD_EILLEGAL, "R004-28",
		    "E_REQUIRES: %s lacks the keyword %s needs", uname(g,
		    c->unit), o->name);
	/* Assistants (R004-29). */
	lvl = cur_level(g, u);
	for (i = 0; i < c->na; i++) {
		int a = c->assist[i];

		for (j = 0; j < i; j++)
			if (c->assist[j] == a)
				return FAIL(e, REFD_EILLEGAL, "R004-29",
				    "E_ASSIST: a creature assists only once");
		if (!alive(s, a))
			return FAIL(e, REFD_ENOTARGET, "R004-66",
			    "there is no creature %d in play", a);
		if (s->u[a - 1].ctrl != seat)
			return FAIL(e, REFD_EILLEGAL, "R004-29",
			    "E_ASSIST: %s cannot assist (you do not control "
			    "it)", uname(g, a));
		if (a == c->unit || !adjacent(s, g->c, u, &s->u[a - 1]) ||
		    (!(o->abil & AB_ANY) && !(CD(g, &s->u[a - 1])->abil &
		    o->abil)))
			return FAIL(e, REFD_EILLEGAL, "R004-29",
			    "E_ASSIST: %s cannot assist (it must be adjacent "
			    "and have the card's ability)", uname(g, a));
		if (s->u[a - 1].tapped)
			return FAIL(e, REFD_EILLEGAL, "R004-19",
			    "E_TAPPED: %s is tapped and cannot assist",
			    uname(g, a));
		lvl += cur_level(g, &s->u[a - 1]);
	}
	if (!(o->aff_kw && (CD(g, u)->kw & o->aff_kw))) {
		if (!(o->abil & AB_ANY) && !(CD(g, u)->abil & o->abil))
			return FAIL(e, REFD_EILLEGAL, "R004-28",
			    "E_ABILITY: %s lacks the ability %s needs",
			    uname(g, c->unit), o->name);
		if (lvl < o->level)
			return FAIL(e, REFD_EILLEGAL, "R004-28",
			    "E_LEVEL: %s needs level %d, %s brings %d",
			    o->name, o->level, uname(g, c->unit), lvl);
	}
	switch (o->effect) {
	case OE_MELEE:
	case OE_MELEE_ATTACH:
		return check_attack(g, c->unit, c->target, 0, 0, 0, 1, e);
	case OE_SHIFT_MELEE:
		if (!alive(s, c->target) || c->target == c->unit)
			return FAIL(e, REFD_ENOTARGET, "R004-24",
			    "there is no creature %d to attack", c->target);
		return 0;
	case OE_RANGED_BOOST:
		return check_attack(g, c->unit, c->target, 1,
		    CD(g, u)->range + o->range, 1, 1, e);
	case OE_RANGED_PIN:
		return check_attack(g, c->unit, c->target, 1, CD(g, u)->range,
		    1, 1, e);
	case OE_RANGED_FIXED:
		return check_attack(g, c->unit, c->target, 1, o->range, 0, 1,
		    e);
	case OE_PREVENT:
		if (c->discard < 0 || c->discard >= g->c->nod ||
		    refd_deck_count(&s->ohand[seat], c->discard) <
		    (c->discard == c->card ? 2 : 1))
			return FAIL(e, REFD_ERESOURCE, "R004-27",
			    "E_COST: %s needs another order card to discard",
			    o->name);
		if (damaging_item(s, c->unit, 0) < 0)
			return FAIL(e, REFD_EILLEGAL, "R004-22",
			    "E_TIMING: nothing on the stack would damage %s",
			    uname(g, c->unit));
		return 0;
	case OE_SLIDE:
		if (!alive(s, c->target) || c->target == c->unit ||
		    !adjacent(s, g->c, u, &s->u[c->target - 1]))
			return FAIL(e, REFD_ERANGE, "R004-41",
			    "E_NOT_ADJACENT: the slid creature must be "
			    "adjacent to %s", uname(g, c->unit));
		return 0;
	case OE_CONTROL:
		if (!alive(s, c->target) ||
		    !ENEMY(s, s->u[c->target - 1].ctrl, seat) ||
		    CD(g, &s->u[c->target - 1])->level > 2)
			return FAIL(e, REFD_ENOTARGET, "R004-64",
			    "the target must be an enemy of printed level 2 "
			    "or less");
		if (wall_dist(s, g->c, u, &s->u[c->target - 1]) > o->range)
			return FAIL(e, REFD_ERANGE, "R004-48",
			    "E_RANGE: the target is beyond %d squares",
			    o->range);
		if (!los(s, g->c, c->unit, c->target))
			return FAIL(e, REFD_ENOTARGET, "R004-49",
			    "E_NO_LOS: %s cannot see the target",
			    uname(g, c->unit));
		return 0;
	case OE_HEAL_ALLY:
		if (!alive(s, c->target) || c->target == c->unit ||
		    ENEMY(s, s->u[c->target - 1].ctrl, seat))
			return FAIL(e, REFD_ENOTARGET, "R004-24",
			    "%s needs another allied creature", o->name);
		if (!in_reach(g, c->unit, c->target, o->range, o->nolos))
			return FAIL(e, REFD_ERANGE, "R004-48",
			    "E_RANGE: %s is beyond %d squares%s",
			    uname(g, c->target), o->range, o->nolos ? "" :
			    " or out of sight");
		return 0;
	default:
		return 0;
	}
}

static int cmd_check(struct g *g, uint32_t seatu, const struct cmd *c,
    struct err *e);
static int cmd_check_as(struct g *g, int seat, const struct cmd *c, int k,
    struct err *e);

/* Could seat deploy any creature of its hand now? */
static int
can_deploy(struct g *g, int seat)
{
	struct state *s = g->s;
	struct cmd c;
	struct err e;
	int i;

	memset(&c, 0, sizeof(c));
	c.type = C_DEPLOY;
	for (i = 0; i < g->c->ncd; i++) {
		if (refd_deck_find(&s->chand[seat], i) < 0)
			continue;
		c.card = i;
		for (c.y = 0; c.y < s->h; c.y++)
			for (c.x = 0; c.x < s->w; c.x++)
				if (cmd_check(g, (uint32_t)seat, &c, &e) == 0)
					return 1;
	}
	return 0;
}

static int
cmd_check(struct g *g, uint32_t seatu, const struct cmd *c, struct err *e)
{
	struct state *s = g->s;
	int seat = (int)seatu, who, k = owed(s, &who);

	if (s->over)
		return FAIL(e, REFD_EFINISHED, "R004-54",
		    "E_GAME_OVER: the game is over");
	if (c->type == C_PLAY && k == K_FREE && seat == who &&
	    s->phase == PH_DEPLOY)
		return FAIL(e, REFD_EPHASE, "R004-09",
		    "E_TIMING: no orders in the Deploy phase");
	if (k == K_CMD) {
		if (c->type != C_CMD)
			return FAIL(e, REFD_EPHASE, "R004-02",
			    "choose your commander first");
		if (s->seat[seat].chose)
			return FAIL(e, REFD_ENOTYOURTURN, "R004-02",
			    "you have already chosen your commander");
		return 0;
	}
	if (who != seat) {
		/* A seat with nothing it could do is passed over in the
		 * windows (may_act): refuse its response for what forbids
		 * it, as if it held priority (R004-66). */
		if ((k == K_WIN || k == K_FREE) && !may_act(g, seat) &&
		    (c->type == C_PLAY || c->type == C_POWER ||
		    c->type == C_AVOID) && cmd_check_as(g, seat, c, K_WIN, e))
			return -1;
		return FAIL(e, REFD_ENOTYOURTURN, "R004-23",
		    "it is seat %d's decision now, not yours", who);
	}
	return cmd_check_as(g, seat, c, k, e);
}

/* cmd_check for seat deciding now, with k the decision it owes. */
static int
cmd_check_as(struct g *g, int seat, const struct cmd *c, int k, struct err *e)
{
	struct state *s = g->s;
	int i;

	if ((c->type == C_MOVE || c->type == C_ATTACK || c->type == C_PLAY ||
	    c->type == C_POWER || c->type == C_GRAB || c->type == C_AVOID) &&
	    s->nstack >= MAXSTACK - 8)
		return FAIL(e, REFD_ELIMIT, "R004-23",
		    "the stack is full: let it resolve first");
	switch (c->type) {
	case C_CMD:
		return FAIL(e, REFD_EPHASE, "R004-02",
		    "commanders are already chosen");
	case C_COWER: {
		const struct dmgq *q = &s->q[s->qi];
		int cost = q->cost, m = s->seat[seat].morale;

		if (k != K_COWER)
			return FAIL(e, REFD_EPHASE, "R004-53",
			    "no damage is waiting for a cower decision");
		if (c->yes && (s->cower_to_zero ? m < cost : m <= cost))
			return FAIL(e, REFD_ERESOURCE, "R004-53",
			    "E_COWER_MORALE: cowering costs %d Morale, you "
			    "have %d", cost, m);
		return 0;
	}
	case C_TRIGGER:
		if (k != K_TRIG)
			return FAIL(e, REFD_EPHASE, "R004-26",
			    "no trigger is waiting for you");
		return 0;
	case C_PATH: {
		const struct item *it = &s->pend;

		if (k != K_PATH)
			return FAIL(e, REFD_EPHASE, "R004-40",
			    "no movement is waiting for a path");
		return check_path(g, it->kind == IT_SLIDE ? it->target :
		    it->actor, pmode(it), it->n, c->px, c->py, c->np, e);
	}
	case C_PASS:
		if (k != K_WIN)
			return FAIL(e, REFD_EPHASE, "R004-23",
			    "there is no response window to pass");
		return 0;
	case C_PICK:
		if (k != K_PICK)
			return FAIL(e, REFD_EPHASE, "R004-10",
			    "there are no effects to order");
		for (i = 0; i < s->ntq; i++)
			if (s->tq[i] == c->unit)
				return 0;
		return FAIL(e, REFD_ENOTARGET, "R004-10",
		    "no waiting effect concerns creature %d", c->unit);
	case C_ORDER:
		if (k != K_ORDER)
			return FAIL(e, REFD_EPHASE, "R004-05",
			    "the deployment order is already chosen");
		return 0;
	case C_DEPLOY: {
		const struct cdef *d;
		int cap, have, sc;

		if (k != K_SETUP && !(k == K_FREE && s->phase == PH_DEPLOY))
			return FAIL(e, REFD_EPHASE, "R004-14",
			    "E_TIMING: creatures are deployed in the Deploy "
			    "phase");
		if (c->card < 0 || c->card >= g->c->ncd ||
		    refd_deck_find(&s->chand[seat], c->card) < 0)
			return FAIL(e, REFD_EILLEGAL, "R004-06",
			    "that creature card is not in your hand");
		d = &g->c->cd[c->card];
		if (s->nunits >= MAXU)
			return FAIL(e, REFD_ERESOURCE, "R004-06",
			    "too many creatures in play");
		cap = s->seat[seat].lead;
		have = levels(g, seat, s->lead_controlled);
		if (have + d->level > cap)
			return FAIL(e, REFD_ERESOURCE, k == K_SETUP ?
			    "R004-06" : "R004-14",
			    "E_LEADERSHIP: levels %d + %d exceed Leadership "
			    "%d", have, d->level, cap);
		sc = place_score(g, seat, d->size, c->x, c->y);
		if (sc < 1 || sc < best_place(g, seat, d->size))
			return FAIL(e, REFD_EILLEGAL, "R004-06",
			    "E_PLACEMENT: %s must be placed on free squares "
			    "of your start area", d->name);
		return 0;
	}
	case C_END_DEPLOY:
		if (k != K_SETUP)
			return FAIL(e, REFD_EPHASE, "R004-06",
			    "E_TIMING: not your starting deployment");
		if (s->ndeployed < 1 && can_deploy(g, seat))
			return FAIL(e, REFD_EILLEGAL, "R004-06",
			    "E_MUST_DEPLOY_ONE: deploy at least one creature");
		return 0;
	case C_END_PHASE:
		if (k != K_FREE)
			return FAIL(e, REFD_EPHASE, "R004-09",
			    "E_TIMING: finish the open decision first");
		return 0;
	case C_END_ACT:
		if (k != K_FREE || s->phase != PH_ACTIVATION ||
		    s->act_unit == 0)
			return FAIL(e, REFD_EPHASE, "R004-13",
			    "no creature is being activated");
		return 0;
	case C_ACTIVATE:
		if (k != K_FREE || s->phase != PH_ACTIVATION)
			return FAIL(e, REFD_EPHASE, "R004-13",
			    "E_TIMING: creatures are activated in your "
			    "Activation phase");
		if (check_unit(g, seat, c->unit, e))
			return -1;
		if (s->u[c->unit - 1].activated)
			return FAIL(e, REFD_EILLEGAL, "R004-13",
			    "%s was already activated this turn",
			    uname(g, c->unit));
		return 0;
	case C_MOVE:
		if (k != K_FREE || s->phase != PH_ACTIVATION)
			return FAIL(e, REFD_EPHASE, "R004-33",
			    "E_TIMING: moving needs your Activation phase "
			    "with an empty stack");
		if (check_unit(g, seat, c->unit, e))
			return -1;
		if (s->act_unit != c->unit)
			return FAIL(e, REFD_EILLEGAL, "R004-13",
			    "E_NOT_ACTIVE: %s is not the activated creature",
			    uname(g, c->unit));
		if (s->u[c->unit - 1].moved)
			return FAIL(e, REFD_EILLEGAL, "R004-33",
			    "E_ALREADY_MOVED: %s already moved in this "
			    "activation", uname(g, c->unit));
		if (c->np < 1)
			return FAIL(e, REFD_EBADCMD, "R004-33",
			    "a move needs at least one square");
		return check_path(g, c->unit, MV_MOVE, 0, c->px, c->py, c->np,
		    e);
	case C_ATTACK: {
		const struct cdef *d;

		if (check_unit(g, seat, c->unit, e) ||
		    check_timing(g, seat, c->unit, OT_STD, k, e))
			return -1;
		d = CD(g, &s->u[c->unit - 1]);
		return check_attack(g, c->unit, c->target, c->ranged,
		    d->range, 1, 1, e);
	}
	case C_GRAB: {
		const struct unit *u;
		int a, b, z, n = 0;

		if (check_unit(g, seat, c->unit, e) ||
		    check_timing(g, seat, c->unit, OT_STD, k, e))
			return -1;
		u = &s->u[c->unit - 1];
		z = usize(g->c, u);
		for (b = 0; b < z; b++)
			for (a = 0; a < z; a++)
				n += s->treasure[(u->y + b) * MAXW + u->x + a];
		if (n == 0)
			return FAIL(e, REFD_EILLEGAL, "R004-55",
			    "E_NO_TREASURE: no treasure token under %s",
			    uname(g, c->unit));
		return 0;
	}
	case C_AVOID: {
		int i2;

		if (check_unit(g, seat, c->unit, e))
			return -1;
		if (k != K_WIN)
			return FAIL(e, REFD_EPHASE, "R004-50",
			    "E_TIMING: avoid a ranged attack while it is on "
			    "the stack");
		if (s->u[c->unit - 1].tapped)
			return FAIL(e, REFD_EILLEGAL, "R004-19",
			    "E_TAPPED: %s is tapped", uname(g, c->unit));
		i2 = damaging_item(s, c->unit, 1);
		if (i2 < 0)
			return FAIL(e, REFD_EILLEGAL, "R004-50",
			    "no ranged attack on the stack targets %s",
			    uname(g, c->unit));
		if (!alive(s, s->stack[i2].actor) || !has_cover(s, g->c,
		    s->stack[i2].actor, c->unit))
			return FAIL(e, REFD_EILLEGAL, "R004-50",
			    "E_NO_COVER: %s has no cover from the attacker",
			    uname(g, c->unit));
		return 0;
	}
	case C_POWER: {
		const struct unit *u;

		if (check_unit(g, seat, c->unit, e))
			return -1;
		u = &s->u[c->unit - 1];
		if (CD(g, u)->power != c->power || (c->power != PW_BRACE &&
		    c->power != PW_MEND))
			return FAIL(e, REFD_EILLEGAL, "R004-61",
			    "%s has no such power", uname(g, c->unit));
		if (c->power == PW_BRACE) {
			if (check_timing(g, seat, c->unit, OT_IMM, k, e))
				return -1;
			i = damaging_item(s, c->unit, 0);
			if (i < 0 || s->stack[i].kind != IT_ATTACK)
				return FAIL(e, REFD_EILLEGAL, "R004-61",
				    "no attack on the stack targets %s",
				    uname(g, c->unit));
			return 0;
		}
		if (check_timing(g, seat, c->unit, OT_STD, k, e))
			return -1;
		if (!alive(s, c->target) || c->target == c->unit ||
		    s->u[c->target - 1].ctrl != seat ||
		    wall_dist(s, g->c, u, &s->u[c->target - 1]) > 2 ||
		    !los(s, g->c, c->unit, c->target))
			return FAIL(e, REFD_ENOTARGET, "R004-61",
			    "Mend needs another allied creature within 2 "
			    "squares in sight");
		return 0;
	}
	case C_PLAY:
		return check_play(g, seat, c, k, e);
	}
	return FAIL(e, REFD_EBADCMD, NULL, "unknown command");
}

/* ------------------------------------------------------------ execution */

static void
discard_card(struct g *g, int card, int owner)
{
	refd_deck_push(&g->s->odisc[owner], card);
	ev(g, REFD_SEAT_PUBLIC, "discarded", "seat", owner, "order", card,
	    NULL);
}

static void
attach(struct g *g, int id, int card, int owner)
{
	struct unit *u = U(g, id);

	if (u->natt >= MAXATT) {
		discard_card(g, card, owner);
		return;
	}
	u->att[u->natt] = card;
	u->attown[u->natt++] = owner;
	ev(g, REFD_SEAT_PUBLIC, "attached", "unit", id, "order", card, "owner",
	    owner, NULL);
}

static void
new_turn(struct g *g)
{
	struct state *s = g->s;
	int i;

	s->active = (s->active + 1) % s->nseats;
	s->turns++;
	if (s->active == s->first) {
		s->round++;
		if (s->round > s->max_rounds) {
			game_over(g, 3);
			return;
		}
	}
	for (i = 0; i < s->nunits; i++)
		s->u[i].activated = 0;
	s->phase = PH_REFRESH;
	s->sub = 0;
	s->act_unit = 0;
	ev(g, REFD_SEAT_PUBLIC, "turn", "seat", s->active, "round", s->round,
	    NULL);
}

static void
setup_next(struct g *g)
{
	struct state *s = g->s;

	refill(g, s->dseat);
	s->ndeployed = 0;
	s->dseat = (s->dseat + 1) % s->nseats;
	if (s->dseat == s->first) {
		s->active = (s->first + s->nseats - 1) % s->nseats;
		s->round = 0;
		s->turns = -1;
		new_turn(g);
	}
}

static void
exec_play(struct g *g, int seat, const struct cmd *c)
{
	struct state *s = g->s;
	const struct odef *o = &g->c->od[c->card];
	struct item it, it2;
	int i;

	refd_deck_remove(&s->ohand[seat], c->card);
	ev(g, REFD_SEAT_PUBLIC, "played", "seat", seat, "order", c->card,
	    "unit", c->unit, "target", c->target, NULL);
	if (o->type != OT_MINOR)
		tap(g, c->unit);
	for (i = 0; i < c->na; i++)
		tap(g, c->assist[i]);
	memset(&it, 0, sizeof(it));
	it.seat = seat;
	it.actor = c->unit;
	it.target = c->target;
	it.card = c->card;
	it.cardown = seat;
	it.last = 1;
	switch (o->effect) {
	case OE_MELEE:
	case OE_MELEE_ATTACH:
		it.kind = IT_ATTACK;
		it.dmg = o->dmg;
		it.attach = o->effect == OE_MELEE_ATTACH;
		break;
	case OE_SHIFT_MELEE:
		/* Pushed in reverse printed order (R004-25). */
		it.kind = IT_ATTACK;
		it.dmg = o->dmg;
		push(g, &it);
		it2 = it;
		it2.kind = IT_SHIFT;
		it2.n = o->shift;
		it2.last = 0;
		it2.target = 0;
		push(g, &it2);
		return;
	case OE_RANGED_BOOST:
		it.kind = IT_ATTACK;
		it.ranged = 1;
		it.dmg = CD(g, U(g, c->unit))->ranged + o->dmg;
		it.range = CD(g, U(g, c->unit))->range + o->range;
		break;
	case OE_RANGED_PIN:
		it.kind = IT_ATTACK;
		it.ranged = 1;
		it.dmg = o->dmg;
		it.range = CD(g, U(g, c->unit))->range;
		it.attach = 1;
		break;
	case OE_RANGED_FIXED:
		it.kind = IT_ATTACK;
		it.ranged = 1;
		it.dmg = o->dmg;
		it.range = o->range;
		break;
	case OE_PREVENT:
		refd_deck_remove(&s->ohand[seat], c->discard);
		discard_card(g, c->discard, seat);
		it.kind = IT_PREVENT;
		it.ref = s->stack[damaging_item(s, c->unit, 0)].origin;
		it.target = 0;
		break;
	case OE_BOOST:
		it.kind = IT_BOOST;
		it.dmg = o->dmg;
		break;
	case OE_SLIDE:
		it.kind = IT_SLIDE;
		it.n = o->shift;
		break;
	case OE_PROMOTE:
		it.kind = IT_PROMOTE;
		break;
	case OE_CIRCLE:
		it.kind = IT_CIRCLE;
		break;
	case OE_SIDESTEP:
		it.kind = IT_SHIFT;
		it.n = o->shift;
		break;
	case OE_HEAL:
		it.kind = IT_HEAL;
		it.dmg = o->dmg;
		it.target = c->unit;
		break;
	case OE_HEAL_ALLY:
		it.kind = IT_HEAL;
		it.dmg = o->dmg;
		it.range = o->range;
		it.ref = o->nolos;
		break;
	case OE_CONTROL:
		it.kind = IT_CONTROL;
		it.range = o->range;
		break;
	}
	push(g, &it);
}

static void
cmd_exec(struct g *g, int seat, const struct cmd *c)
{
	struct state *s = g->s;
	struct item it;
	struct unit *u;
	int i;

	memset(&it, 0, sizeof(it));
	it.seat = seat;
	it.card = -1;
	it.actor = c->unit;
	switch (c->type) {
	case C_CMD: {
		char z[32];
		uint8_t b = (uint8_t)c->card;

		s->seat[seat].chose = c->card + 1;
		snprintf(z, sizeof(z), "commander.%d", seat);
		H->commit(g->ctx, z, seat, &b, 1);
		ev(g, REFD_SEAT_PUBLIC, "commander_chosen", "seat", seat, NULL);
		for (i = 0; i < s->nseats; i++)
			if (!s->seat[i].chose)
				return;
		/* Reveal together; then Morale, Leadership, hands. */
		for (i = 0; i < s->nseats; i++) {
			const struct kdef *kd;

			s->seat[i].cmd = s->seat[i].chose - 1;
			kd = &g->c->kd[s->seat[i].cmd];
			s->seat[i].morale = kd->morale - (s->first_game ? 3 : 0);
			s->seat[i].lead = kd->lead;
			ev(g, REFD_SEAT_PUBLIC, "commander", "seat", i,
			    "commander", s->seat[i].cmd, NULL);
		}
		s->phase = PH_ORDER;
		deal_hands(g);
		break;
	}
	case C_ORDER:
		s->first = c->yes ? s->chooser :
		    (s->chooser + s->nseats - 1) % s->nseats;
		s->dseat = s->first;
		s->phase = PH_SETUP;
		ev(g, REFD_SEAT_PUBLIC, "deploy_order", "chooser", s->chooser,
		    "first", s->first, NULL);
		break;
	case C_DEPLOY:
		refd_deck_remove(&s->chand[seat], c->card);
		u = &s->u[s->nunits++];
		memset(u, 0, sizeof(*u));
		u->def = c->card;
		u->owner = u->ctrl = seat;
		u->x = c->x;
		u->y = c->y;
		u->alive = 1;
		s->ndeployed++;
		ev(g, REFD_SEAT_PUBLIC, "deployed", "seat", seat, "unit",
		    s->nunits, "creature", c->card, "x", c->x, "y", c->y, NULL);
		break;
	case C_END_DEPLOY:
		ev(g, REFD_SEAT_PUBLIC, "deploy_done", "seat", seat, NULL);
		setup_next(g);
		break;
	case C_ACTIVATE:
		s->act_unit = c->unit;
		u = U(g, c->unit);
		u->activated = 1;
		u->moved = 0;
		u->hazard_hit = 0;
		ev(g, REFD_SEAT_PUBLIC, "activated", "unit", c->unit, NULL);
		break;
	case C_END_ACT:
		ev(g, REFD_SEAT_PUBLIC, "activation_ended", "unit",
		    s->act_unit, NULL);
		s->act_unit = 0;
		break;
	case C_END_PHASE:
		s->act_unit = 0;
		if (s->phase == PH_ACTIVATION) {
			s->phase = PH_DEPLOY;
			s->seat[seat].lead++;
			ev(g, REFD_SEAT_PUBLIC, "phase", "phase", PH_DEPLOY,
			    NULL);
			ev(g, REFD_SEAT_PUBLIC, "leadership", "seat", seat,
			    "leadership", s->seat[seat].lead, NULL);
		} else {
			s->phase = PH_CLEANUP;
			s->sub = 0;
			ev(g, REFD_SEAT_PUBLIC, "phase", "phase", PH_CLEANUP,
			    NULL);
		}
		break;
	case C_MOVE:
		U(g, c->unit)->moved = 1;
		it.kind = IT_MOVE;
		it.npath = c->np;
		for (i = 0; i < c->np; i++) {
			it.px[i] = c->px[i];
			it.py[i] = c->py[i];
		}
		push(g, &it);
		break;
	case C_ATTACK:
		tap(g, c->unit);
		it.kind = IT_ATTACK;
		it.target = c->target;
		it.ranged = c->ranged;
		it.range = CD(g, U(g, c->unit))->range;
		push(g, &it);
		break;
	case C_GRAB:
		tap(g, c->unit);
		it.kind = IT_GRAB;
		push(g, &it);
		break;
	case C_AVOID:
		tap(g, c->unit);
		it.kind = IT_AVOID;
		it.ref = s->stack[damaging_item(s, c->unit, 1)].origin;
		it.dmg = 1;	/* cover was checked at declaration (A43) */
		push(g, &it);
		break;
	case C_POWER:
		tap(g, c->unit);
		if (c->power == PW_BRACE) {
			it.kind = IT_BRACE;
			it.ref = s->stack[damaging_item(s, c->unit, 0)].origin;
		} else {
			it.kind = IT_MEND;
			it.target = c->target;
			it.dmg = 20;
		}
		push(g, &it);
		break;
	case C_PLAY:
		exec_play(g, seat, c);
		break;
	case C_PASS:
		s->passes++;
		s->prio = (s->prio + 1) % s->nseats;
		break;
	case C_PICK:
		for (i = 0; i < s->ntq; i++)
			if (s->tq[i] == c->unit)
				break;
		it.kind = s->tqkind;
		it.target = c->unit;
		it.actor = 0;
		it.seat = s->active;
		it.dmg = s->tqd[i];
		memmove(&s->tq[i], &s->tq[i + 1], (size_t)(s->ntq - i - 1) *
		    sizeof(s->tq[0]));
		memmove(&s->tqd[i], &s->tqd[i + 1], (size_t)(s->ntq - i - 1) *
		    sizeof(s->tqd[0]));
		s->ntq--;
		push(g, &it);
		break;
	case C_TRIGGER: {
		int h = s->trig[s->trig_i][0], m = s->trig[s->trig_i][1];

		s->trig_i++;
		if (c->yes) {
			tap(g, h);
			it.kind = IT_SNAP;
			it.seat = seat;
			it.actor = h;
			it.target = m;
			it.dmg = 10;
			push(g, &it);
		} else {
			ev(g, REFD_SEAT_PUBLIC, "trigger_declined", "unit", h,
			    NULL);
		}
		break;
	}
	case C_PATH: {
		struct item p = s->pend;
		int mover = p.kind == IT_SLIDE ? p.target : p.actor, haz;

		s->pathp = 0;
		haz = do_path(g, mover, pmode(&p), c->px, c->py, c->np);
		ev(g, REFD_SEAT_PUBLIC, "resolved", "origin", p.origin, NULL);
		move_triggers(g, mover, haz, p.kind != IT_SLIDE && c->np > 0);
		finish_resolution(g, &p);
		break;
	}
	case C_COWER: {
		struct dmgq *q = &s->q[s->qi];

		q->cowered = c->yes;
		if (c->yes) {
			int cost = q->cost;

			ev(g, REFD_SEAT_PUBLIC, "cowered", "unit", q->unit,
			    "cost", cost, NULL);
			set_morale(g, seat, -cost);
			morale_check(g);
			if (s->over)
				return;
		}
		s->qi++;
		if (s->qi >= s->nq) {
			/* Apply all damage, then the deaths (A24). */
			int dead[MAXQ], nd = 0, j;

			for (i = 0; i < s->nq; i++) {
				struct dmgq *d = &s->q[i];

				if (d->cowered || !alive(s, d->unit))
					continue;
				u = U(g, d->unit);
				u->dmg += d->amount;
				ev(g, REFD_SEAT_PUBLIC, "damaged", "unit",
				    d->unit, "amount", d->amount, "total",
				    u->dmg, NULL);
				if (d->attach >= 0) {
					attach(g, d->unit, d->attach,
					    d->attown);
					s->stack[MAXSTACK - 1].attach = 2;
				}
				if (u->dmg >= CD(g, u)->hp) {
					for (j = 0; j < nd; j++)
						if (dead[j] == d->unit)
							break;
					if (j == nd)
						dead[nd++] = d->unit;
				}
			}
			s->nq = s->qi = 0;
			for (i = 0; i < nd; i++) {
				u = U(g, dead[i]);
				u->alive = 0;
				if (s->act_unit == dead[i])
					s->act_unit = 0;
				ev(g, REFD_SEAT_PUBLIC, "killed", "unit",
				    dead[i], "owner", u->owner, NULL);
				refd_deck_push(&s->grave[u->owner], u->def);
				for (j = 0; j < u->natt; j++)
					discard_card(g, u->att[j],
					    u->attown[j]);
				u->natt = 0;
				set_morale(g, u->owner,
				    -g->c->cd[u->def].level);
			}
			morale_check(g);
			if (s->over)
				return;
			/* Leader power: Grim Tally (R004-62). */
			for (i = 0; i < nd; i++)
				for (j = 0; j < s->nseats; j++)
					if (g->c->kd[s->seat[j].cmd].kill_lead &&
					    ENEMY(s, U(g, dead[i])->ctrl, j)) {
						s->seat[j].lead += g->c->kd[
						    s->seat[j].cmd].kill_lead;
						ev(g, REFD_SEAT_PUBLIC,
						    "leadership", "seat", j,
						    "leadership",
						    s->seat[j].lead, NULL);
					}
			finish_resolution(g, &s->stack[MAXSTACK - 1]);
		}
		break;
	}
	}
}

/* ------------------------------------------------------------ resolving */

static void
finish_resolution(struct g *g, const struct item *it0)
{
	struct state *s = g->s;
	struct item it = *it0;

	if (it.card >= 0 && it.last && !(it.kind == IT_PROMOTE &&
	    alive(s, it.actor)) && !(it.kind == IT_ATTACK && it.attach == 2))
		discard_card(g, it.card, it.cardown);
	if (s->trig_n == 0 && !s->pathp)
		open_window(s);
}

/* Queue a damage event for its cower decision (R004-51). */
static void
deal(struct g *g, const struct item *it, int target, int amount,
    int attachcard)
{
	struct state *s = g->s;
	int i, full = amount;

	for (i = 0; i < s->nshield; i++) {
		const struct shield *sh = &s->sh[i];

		if (sh->unit != target || sh->origin != it->origin)
			continue;
		if (sh->kind == 0) {
			ev(g, REFD_SEAT_PUBLIC, "avoided", "unit", target,
			    NULL);
			return;
		}
		amount = sh->kind == 1 ? 0 : amount - sh->amount;
	}
	if (amount <= 0) {
		ev(g, REFD_SEAT_PUBLIC, "no_damage", "unit", target, NULL);
		return;
	}
	if (s->nq >= MAXQ)
		return;
	s->q[s->nq].unit = target;
	s->q[s->nq].amount = amount;
	s->q[s->nq].origin = it->origin;
	s->q[s->nq].attach = attachcard;
	s->q[s->nq].attown = it->cardown;
	s->q[s->nq].cowered = 0;
	/* A2, A35: 1 Morale per full 10 of the damage after reductions
	 * (or before them, with the alternative). */
	s->q[s->nq].cost = (s->cost_before ? full : amount) / 10;
	s->nq++;
	ev(g, REFD_SEAT_PUBLIC, "cower_prompt", "unit", target, "amount",
	    amount, "cost", s->q[s->nq - 1].cost, NULL);
}

static void
add_shield(struct g *g, int unit, int origin, int kind, int amount)
{
	struct state *s = g->s;

	if (s->nshield >= MAXSH)
		return;
	s->sh[s->nshield].unit = unit;
	s->sh[s->nshield].origin = origin;
	s->sh[s->nshield].kind = kind;
	s->sh[s->nshield].amount = amount;
	s->nshield++;
}

static void
fizzle(struct g *g, const struct item *it, const char *why)
{
	(void)why;
	ev(g, REFD_SEAT_PUBLIC, "fizzled", "origin", it->origin, "kind",
	    it->kind, NULL);
	finish_resolution(g, it);
}

static void
resolve_top(struct g *g)
{
	struct state *s = g->s;
	struct item it = s->stack[--s->nstack];
	struct err e;
	struct unit *a = it.actor ? U(g, it.actor) : NULL;
	int haz, tgt_ok;

	/* The item being resolved, for finish after cower decisions. */
	s->stack[MAXSTACK - 1] = it;
	if (it.actor && !alive(s, it.actor) && !(s->dead_resolves &&
	    it.kind == IT_ATTACK))
		return fizzle(g, &it, "actor gone");
	tgt_ok = !it.target || alive(s, it.target);
	switch (it.kind) {
	case IT_MOVE:
		if (check_path(g, it.actor, MV_MOVE, 0, it.px, it.py, it.npath,
		    &e) != 0) {
			/* The state changed: ask for a new path (3.5.4). */
			s->pend = it;
			s->pathp = 1;
			ev(g, REFD_SEAT_PUBLIC, "path_prompt", "seat", it.seat,
			    "unit", it.actor, "n", 0, NULL);
			return;
		}
		haz = do_path(g, it.actor, MV_MOVE, it.px, it.py, it.npath);
		ev(g, REFD_SEAT_PUBLIC, "resolved", "origin", it.origin, NULL);
		move_triggers(g, it.actor, haz, 1);
		finish_resolution(g, &it);
		return;
	case IT_SHIFT:
	case IT_SLIDE:
		if (!tgt_ok || (it.kind == IT_SLIDE && !adjacent(s, g->c, a,
		    U(g, it.target))))
			return fizzle(g, &it, "target");
		s->pend = it;
		s->pathp = 1;
		ev(g, REFD_SEAT_PUBLIC, "path_prompt", "seat", it.seat, "unit",
		    it.kind == IT_SLIDE ? it.target : it.actor, "n", it.n,
		    NULL);
		return;
	case IT_ATTACK: {
		int dmg;

		/* Target validity again; the shooter's adjacency to an
		 * enemy is not re-checked (A44). */
		if (!tgt_ok || check_attack(g, it.actor, it.target, it.ranged,
		    it.range, 0, s->recheck_shooter ? 1 : 2, &e) != 0)
			return fizzle(g, &it, "target");
		if (it.ranged)
			dmg = it.dmg ? it.dmg : CD(g, a)->ranged;
		else
			dmg = (it.dmg ? it.dmg : CD(g, a)->melee) + a->shout;
		ev(g, REFD_SEAT_PUBLIC, "resolved", "origin", it.origin, NULL);
		deal(g, &it, it.target, dmg, it.attach ? it.card : -1);
		break;
	}
	case IT_HAZARD:
	case IT_FESTER:
	case IT_SNAP:
		if (!tgt_ok)
			return fizzle(g, &it, "target");
		ev(g, REFD_SEAT_PUBLIC, "resolved", "origin", it.origin, NULL);
		deal(g, &it, it.target, it.dmg, -1);
		break;
	case IT_PREVENT:
		add_shield(g, it.actor, it.ref, 1, 0);
		ev(g, REFD_SEAT_PUBLIC, "resolved", "origin", it.origin, NULL);
		break;
	case IT_BRACE:
		add_shield(g, it.actor, it.ref, 2, 10);
		ev(g, REFD_SEAT_PUBLIC, "resolved", "origin", it.origin, NULL);
		break;
	case IT_AVOID:
		add_shield(g, it.actor, it.ref, 0, 0);
		ev(g, REFD_SEAT_PUBLIC, "resolved", "origin", it.origin, NULL);
		break;
	case IT_BOOST:
		a->shout += it.dmg;
		ev(g, REFD_SEAT_PUBLIC, "resolved", "origin", it.origin, NULL);
		break;
	case IT_PROMOTE:
		attach(g, it.actor, it.card, it.cardown);
		ev(g, REFD_SEAT_PUBLIC, "resolved", "origin", it.origin, NULL);
		break;
	case IT_CIRCLE:
		ev(g, REFD_SEAT_PUBLIC, "resolved", "origin", it.origin, NULL);
		if (fp_flags(g, it.actor, a->x, a->y) & SQ_MAGIC) {
			set_morale(g, a->ctrl, 1);
		}
		break;
	case IT_HEAL:
	case IT_MEND:
		if (!tgt_ok || (it.range > 0 && !in_reach(g, it.actor,
		    it.target, it.range, it.ref)))
			return fizzle(g, &it, "target");
		{
			struct unit *t = U(g, it.target);
			int r = t->dmg < it.dmg ? t->dmg : it.dmg;

			t->dmg -= r;
			ev(g, REFD_SEAT_PUBLIC, "healed", "unit", it.target,
			    "amount", r, "total", t->dmg, NULL);
		}
		break;
	case IT_CONTROL:
		if (!tgt_ok || wall_dist(s, g->c, a, U(g, it.target)) >
		    it.range || !los(s, g->c, it.actor, it.target))
			return fizzle(g, &it, "target");
		{
			struct unit *t = U(g, it.target);

			t->ctrl = it.seat;
			t->snared = it.seat + 1;
			ev(g, REFD_SEAT_PUBLIC, "control", "unit", it.target,
			    "seat", it.seat, NULL);
		}
		break;
	case IT_GRAB: {
		int z = usize(g->c, a), i, j, done = 0;

		for (j = 0; j < z && !done; j++)
			for (i = 0; i < z && !done; i++) {
				int p = (a->y + j) * MAXW + a->x + i;

				if (s->treasure[p] > 0) {
					s->treasure[p]--;
					done = 1;
				}
			}
		ev(g, REFD_SEAT_PUBLIC, "resolved", "origin", it.origin, NULL);
		if (done) {
			ev(g, REFD_SEAT_PUBLIC, "treasure_grabbed", "unit",
			    it.actor, NULL);
			set_morale(g, a->ctrl, 1);
			for (i = 0; i < g->c->kd[s->seat[a->ctrl].cmd].grab_draw;
			    i++)
				draw_order(g, a->ctrl);
		}
		break;
	}
	}
	if (s->nq == 0)
		finish_resolution(g, &it);
}

/* ---------------------------------------------------------------- phases */

static void
start_of_turn_effects(struct g *g)
{
	struct state *s = g->s;
	int i, j;

	s->ntq = 0;
	s->tqkind = IT_FESTER;
	for (i = 0; i < s->nunits; i++)
		if (s->u[i].alive && s->u[i].ctrl == s->active)
			for (j = 0; j < s->u[i].natt; j++)
				if (g->c->od[s->u[i].att[j]].att_start_dmg >
				    0 && s->ntq < MAXTQ) {
					s->tqd[s->ntq] = g->c->od[
					    s->u[i].att[j]].att_start_dmg;
					s->tq[s->ntq++] = i + 1;
				}
}

static void
untap_all(struct g *g, int refresh)
{
	struct state *s = g->s;
	int i;

	for (i = 0; i < s->nunits; i++) {
		struct unit *u = &s->u[i];

		if (!u->alive || u->ctrl != s->active || !u->tapped)
			continue;
		if (refresh && skip_untap(g, u))
			continue;
		u->tapped = 0;
		ev(g, REFD_SEAT_PUBLIC, "untapped", "unit", i + 1, NULL);
	}
}

static void
cleanup_effects(struct g *g)
{
	struct state *s = g->s;
	int i, j;

	s->nshield = 0;
	for (i = 0; i < s->nunits; i++) {
		struct unit *u = &s->u[i];

		u->shout = 0;
		if (!u->alive)
			continue;
		if (u->ctrl == s->active) {
			for (j = 0; j < u->natt; j++)
				if (g->c->od[u->att[j]].att_cleanup) {
					discard_card(g, u->att[j],
					    u->attown[j]);
					memmove(&u->att[j], &u->att[j + 1],
					    (size_t)(u->natt - j - 1) *
					    sizeof(u->att[0]));
					memmove(&u->attown[j],
					    &u->attown[j + 1],
					    (size_t)(u->natt - j - 1) *
					    sizeof(u->attown[0]));
					u->natt--;
					j--;
				}
		}
		if (u->snared == s->active + 1) {
			u->snared = 0;
			u->ctrl = u->owner;
			ev(g, REFD_SEAT_PUBLIC, "control", "unit", i + 1,
			    "seat", u->ctrl, NULL);
		}
	}
	s->ntq = 0;
	s->tqkind = IT_HAZARD;
	for (i = 0; i < s->nunits; i++)
		if (s->u[i].alive && s->u[i].ctrl == s->active &&
		    (fp_flags(g, i + 1, s->u[i].x, s->u[i].y) & SQ_HAZ) &&
		    s->ntq < MAXTQ) {
			s->tqd[s->ntq] = HAZARD_DMG;
			s->tq[s->ntq++] = i + 1;
		}
}

void
advance(struct g *g)
{
	struct state *s = g->s;
	int guard, i;

	for (guard = 0; guard < 100000; guard++) {
		if (s->over || s->qi < s->nq || s->pathp)
			return;
		if (s->trig_i < s->trig_n) {
			const int h = s->trig[s->trig_i][0];
			const int m = s->trig[s->trig_i][1];

			if (h == 0) {
				s->trig_i++;
				if (alive(s, m))
					push_hazard(g, m);
				continue;
			}
			if (alive(s, h) && alive(s, m) && !s->u[h - 1].tapped) {
				ev(g, REFD_SEAT_PUBLIC, "trigger_offered",
				    "unit", h, "target", m, NULL);
				return;
			}
			s->trig_i++;
			continue;
		}
		if (s->trig_n > 0) {
			s->trig_n = s->trig_i = 0;
			open_window(s);
			continue;
		}
		if (s->win) {
			if (s->passes >= s->nseats) {
				s->win = 0;
				if (s->nstack > 0)
					resolve_top(g);
				else
					s->nshield = 0;
				continue;
			}
			if (!may_act(g, s->prio)) {
				s->passes++;
				s->prio = (s->prio + 1) % s->nseats;
				continue;
			}
			return;
		}
		if (s->nstack > 0) {
			open_window(s);
			continue;
		}
		if (s->ntq > 0) {
			struct item it;

			if (s->ntq > 1)
				return;
			memset(&it, 0, sizeof(it));
			it.kind = s->tqkind;
			it.seat = s->active;
			it.target = s->tq[0];
			it.card = -1;
			it.dmg = s->tqd[0];
			s->ntq = 0;
			push(g, &it);
			continue;
		}
		switch (s->phase) {
		case PH_REFRESH:
			if (s->sub == 0) {
				ev(g, REFD_SEAT_PUBLIC, "phase", "phase",
				    PH_REFRESH, NULL);
				start_of_turn_effects(g);
				s->sub = 1;
				continue;
			}
			untap_all(g, 1);
			draw_order(g, s->active);
			s->phase = PH_ACTIVATION;
			s->sub = 0;
			ev(g, REFD_SEAT_PUBLIC, "phase", "phase",
			    PH_ACTIVATION, NULL);
			continue;
		case PH_CLEANUP:
			if (s->sub == 0) {
				cleanup_effects(g);
				s->sub = 1;
				continue;
			}
			untap_all(g, 0);
			refill(g, s->active);
			/* A26: controlled creatures (or owned). */
			for (i = 0; i < s->nunits; i++)
				if (s->u[i].alive && (s->end_owned ?
				    s->u[i].owner : s->u[i].ctrl) == s->active)
					break;
			if (i == s->nunits) {
				s->seat[s->active].disq = 1;
				game_over(g, 2);
				return;
			}
			new_turn(g);
			continue;
		default:
			return;
		}
	}
}

int
start_game(struct g *g)
{
	advance(g);
	return g->rc;
}

/* --------------------------------------------------------------- parsing */

static int
find_def(const struct g *g, const char *id, int orders)
{
	int i;

	if (id == NULL)
		return -1;
	if (orders) {
		for (i = 0; i < g->c->nod; i++)
			if (strcmp(g->c->od[i].id, id) == 0)
				return i;
	} else {
		for (i = 0; i < g->c->ncd; i++)
			if (strcmp(g->c->cd[i].id, id) == 0)
				return i;
	}
	return -1;
}

static int
parse_path(refd_mpv p, int *px, int *py, int *np)
{
	size_t i;
	int64_t x, y;

	*np = 0;
	if (refd_mpv_type(p) != REFD_MP_ARRAY || refd_mpv_len(p) > MAXPATH)
		return -1;
	for (i = 0; i < refd_mpv_len(p); i++) {
		refd_mpv q = refd_mpv_at(p, i);

		if (refd_mpv_len(q) != 2 ||
		    refd_mpv_int(refd_mpv_at(q, 0), &x) ||
		    refd_mpv_int(refd_mpv_at(q, 1), &y) || x < -1 ||
		    y < -1 || x > MAXW || y > MAXW)
			return -1;
		px[i] = (int)x;
		py[i] = (int)y;
	}
	*np = (int)refd_mpv_len(p);
	return 0;
}

static int
getint(refd_mpv m, const char *k, int *out)
{
	int64_t v;

	if (refd_mpv_int(refd_mpv_get(m, k), &v) != 0 || v < -1000000 ||
	    v > 1000000)
		return -1;
	*out = (int)v;
	return 0;
}

static int
cmd_parse(struct g *g, refd_mpv m, struct cmd *c, struct err *e)
{
	int t, b;
	refd_mpv v;

	memset(c, 0, sizeof(*c));
	c->card = c->discard = -1;
	if (refd_mpv_type(m) != REFD_MP_MAP)
		return FAIL(e, REFD_EBADCMD, NULL,
		    "a command is a map with a \"type\"");
	for (t = 0; t < C_N; t++)
		if (refd_mpv_streq(refd_mpv_get(m, "type"), cmdname[t]))
			break;
	if (t == C_N)
		return FAIL(e, REFD_EBADCMD, NULL, "unknown command type");
	c->type = t;
#define NEED(k, dst)                                                           \
	do {                                                                   \
		if (getint(m, k, dst))                                         \
			return FAIL(e, REFD_EBADCMD, NULL,                     \
			    "%s needs an integer \"%s\"", cmdname[t], k);      \
	} while (0)
	switch (t) {
	case C_CMD: {
		const char *id = refd_mpv_cstr(refd_mpv_get(m, "commander"),
		    NULL);

		for (c->card = 0; id != NULL && c->card < g->c->nkd; c->card++)
			if (strcmp(g->c->kd[c->card].id, id) == 0)
				break;
		if (id == NULL || c->card >= g->c->nkd)
			return FAIL(e, REFD_EILLEGAL, "R004-02",
			    "no such commander");
		break;
	}
	case C_ORDER:
		if (refd_mpv_bool(refd_mpv_get(m, "first"), &b))
			return FAIL(e, REFD_EBADCMD, NULL,
			    "deploy_order needs a boolean \"first\"");
		c->yes = b;
		break;
	case C_COWER:
	case C_TRIGGER:
		if (refd_mpv_bool(refd_mpv_get(m, t == C_COWER ? "cower" :
		    "use"), &b))
			return FAIL(e, REFD_EBADCMD, NULL,
			    "%s needs a boolean", cmdname[t]);
		c->yes = b;
		break;
	case C_DEPLOY:
		c->card = find_def(g, refd_mpv_cstr(refd_mpv_get(m, "card"),
		    NULL), 0);
		if (c->card < 0)
			return FAIL(e, REFD_EILLEGAL, "R004-06",
			    "no such creature card");
		NEED("x", &c->x);
		NEED("y", &c->y);
		break;
	case C_ACTIVATE:
	case C_GRAB:
	case C_AVOID:
	case C_PICK:
		NEED("unit", &c->unit);
		break;
	case C_MOVE:
	case C_PATH:
		if (t == C_MOVE)
			NEED("unit", &c->unit);
		if (parse_path(refd_mpv_get(m, "path"), c->px, c->py, &c->np))
			return FAIL(e, REFD_EBADCMD, NULL,
			    "\"path\" must be a list of up to %d [x, y]",
			    MAXPATH);
		break;
	case C_ATTACK:
		NEED("unit", &c->unit);
		NEED("target", &c->target);
		v = refd_mpv_get(m, "mode");
		if (refd_mpv_streq(v, "ranged"))
			c->ranged = 1;
		else if (!refd_mpv_streq(v, "melee"))
			return FAIL(e, REFD_EBADCMD, NULL,
			    "attack needs \"mode\": \"melee\" or \"ranged\"");
		break;
	case C_POWER:
		NEED("unit", &c->unit);
		v = refd_mpv_get(m, "power");
		c->power = refd_mpv_streq(v, "brace") ? PW_BRACE :
		    refd_mpv_streq(v, "mend") ? PW_MEND : PW_NONE;
		if (c->power == PW_MEND)
			NEED("target", &c->target);
		break;
	case C_PLAY: {
		size_t i;

		c->card = find_def(g, refd_mpv_cstr(refd_mpv_get(m, "card"),
		    NULL), 1);
		if (c->card < 0)
			return FAIL(e, REFD_EILLEGAL, "R004-28",
			    "no such order card");
		NEED("unit", &c->unit);
		if (refd_mpv_ok(refd_mpv_get(m, "target")))
			NEED("target", &c->target);
		if (refd_mpv_ok(refd_mpv_get(m, "discard")))
			c->discard = find_def(g, refd_mpv_cstr(refd_mpv_get(m,
			    "discard"), NULL), 1);
		v = refd_mpv_get(m, "assist");
		if (refd_mpv_ok(v)) {
			if (refd_mpv_type(v) != REFD_MP_ARRAY ||
			    refd_mpv_len(v) > 8)
				return FAIL(e, REFD_EBADCMD, NULL,
				    "\"assist\" is a list of creatures");
			for (i = 0; i < refd_mpv_len(v); i++) {
				int64_t x;

				if (refd_mpv_int(refd_mpv_at(v, i), &x) ||
				    x < 0 || x > 1000000)
					return FAIL(e, REFD_EBADCMD, NULL,
					    "\"assist\" is a list of "
					    "creatures");
				c->assist[c->na++] = (int)x;
			}
		}
		break;
	}
	}
#undef NEED
	return 0;
}

int
apply_cmd(struct g *g, uint32_t seat, refd_mpv m, struct err *e)
{
	struct cmd c;

	if (cmd_parse(g, m, &c, e) || cmd_check(g, seat, &c, e))
		return -1;
	cmd_exec(g, (int)seat, &c);
	advance(g);
	commit_all(g);
	return 0;
}

/* ------------------------------------------------------------------ legal */

static void
put_cmd(struct g *g, refd_mpw *w, const struct cmd *c, const char *label)
{
	int i;

	refd_mpw_map(w);
	refd_mpw_kmap(w, "cmd");
	refd_mpw_kstr(w, "type", cmdname[c->type]);
	switch (c->type) {
	case C_CMD:
		refd_mpw_kstr(w, "commander", g->c->kd[c->card].id);
		break;
	case C_ORDER:
		refd_mpw_kbool(w, "first", c->yes);
		break;
	case C_COWER:
		refd_mpw_kbool(w, "cower", c->yes);
		break;
	case C_TRIGGER:
		refd_mpw_kbool(w, "use", c->yes);
		break;
	case C_DEPLOY:
		refd_mpw_kstr(w, "card", g->c->cd[c->card].id);
		refd_mpw_kint(w, "x", c->x);
		refd_mpw_kint(w, "y", c->y);
		break;
	case C_ACTIVATE:
	case C_GRAB:
	case C_AVOID:
	case C_PICK:
		refd_mpw_kint(w, "unit", c->unit);
		break;
	case C_MOVE:
	case C_PATH:
		if (c->type == C_MOVE)
			refd_mpw_kint(w, "unit", c->unit);
		refd_mpw_karray(w, "path");
		for (i = 0; i < c->np; i++) {
			refd_mpw_array(w);
			refd_mpw_int(w, c->px[i]);
			refd_mpw_int(w, c->py[i]);
			refd_mpw_end(w);
		}
		refd_mpw_end(w);
		break;
	case C_ATTACK:
		refd_mpw_kint(w, "unit", c->unit);
		refd_mpw_kint(w, "target", c->target);
		refd_mpw_kstr(w, "mode", c->ranged ? "ranged" : "melee");
		break;
	case C_POWER:
		refd_mpw_kint(w, "unit", c->unit);
		refd_mpw_kstr(w, "power", c->power == PW_BRACE ? "brace" :
		    "mend");
		if (c->power == PW_MEND)
			refd_mpw_kint(w, "target", c->target);
		break;
	case C_PLAY:
		refd_mpw_kstr(w, "card", g->c->od[c->card].id);
		refd_mpw_kint(w, "unit", c->unit);
		if (c->target)
			refd_mpw_kint(w, "target", c->target);
		if (c->discard >= 0)
			refd_mpw_kstr(w, "discard", g->c->od[c->discard].id);
		if (c->na > 0) {
			refd_mpw_karray(w, "assist");
			for (i = 0; i < c->na; i++)
				refd_mpw_int(w, c->assist[i]);
			refd_mpw_end(w);
		}
		break;
	}
	refd_mpw_end(w);
	refd_mpw_kstr(w, "label", label);
	refd_mpw_end(w);
}

static void
try_cmd(struct g *g, uint32_t seat, refd_mpw *w, const struct cmd *c,
    const char *label)
{
	struct err e;

	if (cmd_check(g, seat, c, &e) == 0)
		put_cmd(g, w, c, label);
}

static void
legal_paths(struct g *g, uint32_t seat, refd_mpw *w, struct cmd *c,
    int mover, int mode, int n)
{
	struct dest dd;
	char label[96];
	int i, par[MAXSQ];

	if (find_paths(g, mover, mode, n, &dd, par) != 0)
		return;
	for (i = 0; i < dd.n; i++) {
		if (trace_path(&g->s->u[mover - 1], par, dd.x[i], dd.y[i],
		    c->px, c->py, &c->np) != 0)
			continue;
		snprintf(label, sizeof(label), "%s %s to (%d,%d)",
		    c->type == C_MOVE ? "Move" : "Path:",
		    uname(g, mover), dd.x[i], dd.y[i]);
		try_cmd(g, seat, w, c, label);
	}
}

/* Order plays for one card and one creature. */
static void
legal_plays(struct g *g, uint32_t seat, refd_mpw *w, int card, int unit)
{
	struct state *s = g->s;
	const struct odef *o = &g->c->od[card];
	struct cmd c;
	char label[128];
	int t, i, needs_target, pass;

	memset(&c, 0, sizeof(c));
	c.type = C_PLAY;
	c.card = card;
	c.unit = unit;
	c.discard = -1;
	needs_target = o->effect == OE_MELEE || o->effect == OE_MELEE_ATTACH ||
	    o->effect == OE_SHIFT_MELEE || o->effect == OE_RANGED_BOOST ||
	    o->effect == OE_RANGED_PIN || o->effect == OE_RANGED_FIXED ||
	    o->effect == OE_SLIDE || o->effect == OE_CONTROL ||
	    o->effect == OE_HEAL_ALLY;
	/* Assist: none, or every adjacent untapped creature that can. */
	for (pass = 0; pass < 2; pass++) {
		c.na = 0;
		if (pass == 1) {
			for (i = 1; i <= s->nunits && c.na < 8; i++)
				if (alive(s, i) && i != unit &&
				    s->u[i - 1].ctrl == (int)seat &&
				    !s->u[i - 1].tapped &&
				    adjacent(s, g->c, &s->u[unit - 1],
				    &s->u[i - 1]) && ((o->abil & AB_ANY) ||
				    (CD(g, &s->u[i - 1])->abil & o->abil)))
					c.assist[c.na++] = i;
			if (c.na == 0)
				break;
		}
		for (t = needs_target ? 1 : 0; t <= (needs_target ?
		    s->nunits : 0); t++) {
			c.target = t;
			if (o->effect == OE_PREVENT) {
				for (i = 0; i < g->c->nod; i++) {
					c.discard = i;
					snprintf(label, sizeof(label),
					    "Play %s on %s, discarding %s",
					    o->name, uname(g, unit),
					    g->c->od[i].name);
					try_cmd(g, seat, w, &c, label);
				}
				continue;
			}
			snprintf(label, sizeof(label), "Play %s on %s%s%s%s",
			    o->name, uname(g, unit), t ? ", target " : "",
			    t ? uname(g, t) : "", c.na ? " (assisted)" : "");
			try_cmd(g, seat, w, &c, label);
		}
		/* The assisted form is listed only when the level alone is
		 * not enough. */
		if (pass == 0 && (cur_level(g, &s->u[unit - 1]) >= o->level ||
		    (o->aff_kw && (CD(g, &s->u[unit - 1])->kw & o->aff_kw))))
			break;
	}
}

int
legal_list(struct g *g, uint32_t seat, refd_mpw *w)
{
	struct state *s = g->s;
	struct cmd c;
	char label[128];
	int who, k = owed(s, &who), i, j, t;

	refd_mpw_array(w);
	if (k == K_CMD && seat < (uint32_t)s->nseats && !s->seat[seat].chose)
		who = (int)seat;
	if (who != (int)seat || k == K_NONE) {
		refd_mpw_end(w);
		return 0;
	}
	memset(&c, 0, sizeof(c));
	c.card = c.discard = -1;
	switch (k) {
	case K_COWER:
		c.type = C_COWER;
		c.yes = 1;
		snprintf(label, sizeof(label), "Cower: %s takes no damage, "
		    "lose %d Morale", uname(g, s->q[s->qi].unit),
		    s->q[s->qi].cost);
		try_cmd(g, seat, w, &c, label);
		c.yes = 0;
		snprintf(label, sizeof(label), "Take %d damage on %s",
		    s->q[s->qi].amount, uname(g, s->q[s->qi].unit));
		try_cmd(g, seat, w, &c, label);
		break;
	case K_TRIG:
		c.type = C_TRIGGER;
		c.yes = 1;
		try_cmd(g, seat, w, &c, "Use the triggered power");
		c.yes = 0;
		try_cmd(g, seat, w, &c, "Decline the triggered power");
		break;
	case K_PATH:
		c.type = C_PATH;
		c.np = 0;
		try_cmd(g, seat, w, &c, "Stay in place");
		legal_paths(g, seat, w, &c, s->pend.kind == IT_SLIDE ?
		    s->pend.target : s->pend.actor, pmode(&s->pend), s->pend.n);
		break;
	case K_PICK:
		c.type = C_PICK;
		for (i = 0; i < s->ntq; i++) {
			for (j = 0; j < i; j++)
				if (s->tq[j] == s->tq[i])
					break;
			if (j < i)
				continue;
			c.unit = s->tq[i];
			snprintf(label, sizeof(label), "Resolve the effect on "
			    "%s next", uname(g, c.unit));
			try_cmd(g, seat, w, &c, label);
		}
		break;
	case K_CMD:
		c.type = C_CMD;
		for (i = 0; i < g->c->nkd; i++) {
			c.card = i;
			snprintf(label, sizeof(label), "Choose %s",
			    g->c->kd[i].name);
			try_cmd(g, seat, w, &c, label);
		}
		break;
	case K_ORDER:
		c.type = C_ORDER;
		c.yes = 1;
		try_cmd(g, seat, w, &c, "Deploy first");
		c.yes = 0;
		try_cmd(g, seat, w, &c, "Deploy second");
		break;
	case K_SETUP:
	case K_FREE:
		if (k == K_SETUP || s->phase == PH_DEPLOY) {
			c.type = C_DEPLOY;
			for (i = 0; i < g->c->ncd; i++) {
				if (refd_deck_find(&s->chand[seat], i) < 0)
					continue;
				c.card = i;
				for (c.y = 0; c.y < s->h; c.y++)
					for (c.x = 0; c.x < s->w; c.x++) {
						snprintf(label, sizeof(label),
						    "Deploy %s at (%d,%d)",
						    g->c->cd[i].name, c.x,
						    c.y);
						try_cmd(g, seat, w, &c, label);
					}
			}
			c.type = k == K_SETUP ? C_END_DEPLOY : C_END_PHASE;
			try_cmd(g, seat, w, &c, k == K_SETUP ?
			    "Finish deploying" : "End the Deploy phase");
			break;
		}
		c.type = C_END_PHASE;
		try_cmd(g, seat, w, &c, "End the Activation phase");
		c.type = C_END_ACT;
		try_cmd(g, seat, w, &c, "End this activation");
		c.type = C_ACTIVATE;
		for (i = 1; i <= s->nunits; i++) {
			c.unit = i;
			snprintf(label, sizeof(label), "Activate %s",
			    uname(g, i));
			try_cmd(g, seat, w, &c, label);
		}
		if (alive(s, s->act_unit)) {
			int a = s->act_unit;

			c.type = C_MOVE;
			c.unit = a;
			if (!s->u[a - 1].moved)
				legal_paths(g, seat, w, &c, a, MV_MOVE, 0);
			c.type = C_ATTACK;
			for (t = 1; t <= s->nunits; t++) {
				c.target = t;
				c.ranged = 0;
				snprintf(label, sizeof(label),
				    "%s attacks %s in melee", uname(g, a),
				    uname(g, t));
				try_cmd(g, seat, w, &c, label);
				c.ranged = 1;
				snprintf(label, sizeof(label),
				    "%s shoots at %s", uname(g, a),
				    uname(g, t));
				try_cmd(g, seat, w, &c, label);
			}
			c.ranged = 0;
			c.type = C_GRAB;
			try_cmd(g, seat, w, &c, "Grab a treasure token");
			c.type = C_POWER;
			c.power = PW_MEND;
			for (t = 1; t <= s->nunits; t++) {
				c.target = t;
				snprintf(label, sizeof(label), "Mend %s",
				    uname(g, t));
				try_cmd(g, seat, w, &c, label);
			}
		}
		/* FALLTHROUGH */
	case K_WIN:
		if (k == K_WIN) {
			c.type = C_PASS;
			try_cmd(g, seat, w, &c, "Pass");
		}
		for (i = 1; i <= s->nunits; i++) {
			if (!alive(s, i) || s->u[i - 1].ctrl != (int)seat)
				continue;
			c.unit = i;
			c.type = C_AVOID;
			try_cmd(g, seat, w, &c, "Tap to avoid the ranged attack "
			    "from cover");
			c.type = C_POWER;
			c.power = PW_BRACE;
			c.target = 0;
			try_cmd(g, seat, w, &c, "Brace against the attack");
			for (j = 0; j < g->c->nod; j++)
				if (refd_deck_find(&s->ohand[seat], j) >= 0)
					legal_plays(g, seat, w, j, i);
		}
		break;
	}
	refd_mpw_end(w);
	return 0;
}
