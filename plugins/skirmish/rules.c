/*
 * rules.c - the skirmish rules: geometry queries on the match, command,
 * attacks, damage, morale, rout, movement programs with attacks of
 * opportunity, rounds, phases, victory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sk.h"
#include "rules.h"

const struct card *
CARD(const struct cx *x, const struct state *s, int u)
{
	return &x->c->c[s->u[u].card];
}

const struct map *
MAP(const struct cx *x, const struct state *s)
{
	return &x->c->m[s->map];
}

void
sk_grid(const struct cx *cx, const struct state *s, struct grid *g)
{
	struct cx *x = (struct cx *)cx;
	const struct map *m = MAP(x, s);
	int i;

	if (!x->fl_ok) {
		memcpy(x->fl, m->f, sizeof(x->fl));
		if (s->tiled)
			for (i = 0; i < m->w * m->h; i++)
				x->fl[i] |= s->tflag[i];
		for (i = 0; i < s->nterr; i++)
			x->fl[s->terr[i][1] * m->w + s->terr[i][0]] =
			    (uint8_t)s->terr[i][2];
		x->fl_ok = 1;
	}
	g->w = m->w;
	g->h = m->h;
	g->flags = x->fl;
}

int
sk_roll(struct cx *x, const char *why)
{
	uint32_t v = 1;
	int rc;

	if (x->rc != REFD_OK)
		return 1;
	rc = H->roll(x->ctx, 20, why, &v);
	if (rc != REFD_OK) {
		x->rc = rc;
		return 1;
	}
	return (int)v;
}

refd_mpw *
sk_ev(const char *type)
{
	refd_mpw *w = refd_mpw_create();

	refd_mpw_map(w);
	refd_mpw_kstr(w, "type", type);
	return w;
}

void
sk_emit(struct cx *x, refd_mpw *w)
{
	int rc;

	refd_mpw_end(w);
	if (w == NULL || refd_mpw_error(w))
		rc = REFD_ENOMEM;
	else
		rc = H->emit(x->ctx, REFD_SEAT_PUBLIC, refd_mpw_data(w),
		    refd_mpw_len(w));
	refd_mpw_destroy(w);
	if (rc != REFD_OK && x->rc == REFD_OK)
		x->rc = rc;
}

/* ---------------------------------------------------------------- */
/* Creature queries */

struct grid_space
SP(const struct cx *x, const struct state *s, int u)
{
	struct grid_space r;

	r.x = s->u[u].x;
	r.y = s->u[u].y;
	r.s = CARD(x, s, u)->size;
	return r;
}

int
helpless(const struct state *s, int u)
{
	return s->u[u].asleep || s->u[u].paralyzed;
}

/* §0.4 functional: on the grid, not routed, stunned or helpless. */
int
functional(const struct state *s, int u)
{
	const struct unit *p = &s->u[u];

	return p->on && !p->routed && !p->stunned && !helpless(s, u);
}

int
has(const struct cx *x, const struct state *s, int u, int ab)
{
	return (CARD(x, s, u)->abil & ab) != 0;
}

/* a sees b (§5.2 with the Invisible override). */
int
sees(const struct cx *x, const struct state *s, int a, int b)
{
	struct grid g;
	struct grid_space sa = SP(x, s, a), sb = SP(x, s, b);

	if (!s->u[a].on || !s->u[b].on)
		return 0;
	if (s->u[b].invisible && !has(x, s, a, AB_BLINDSIGHT))
		return 0;
	sk_grid(x, s, &g);
	if (!grid_los(&g, &sa, &sb))
		return 0;
	/* Hide: cover by walls or statues from a non-adjacent enemy. */
	if (has(x, s, b, AB_HIDE) && foe(s, a, b) &&
	    !has(x, s, a, AB_BLINDSIGHT) && !grid_adjacent(&g, &sa, &sb)) {
		uint8_t prov[SK_MAXW * SK_MAXH];
		int i;

		for (i = 0; i < g.w * g.h; i++)
			prov[i] = (g.flags[i] & GRID_STATUE) != 0;
		if (grid_ranged_cover(&g, prov, &sa, &sb))
			return 0;
	}
	return 1;
}

int
adjacent(const struct cx *x, const struct state *s, int a, int b)
{
	struct grid g;
	struct grid_space sa = SP(x, s, a), sb = SP(x, s, b);

	sk_grid(x, s, &g);
	return grid_adjacent(&g, &sa, &sb);
}

int
melee_cover(const struct cx *x, const struct state *s, int att, int def)
{
	struct grid g;
	struct grid_space sa = SP(x, s, att), sd = SP(x, s, def);

	sk_grid(x, s, &g);
	return grid_melee_cover(&g, &sa, &sd);
}

/* t threatens m (§3.4.1-3.4.2 with its exception): t functional, enemy,
 * adjacent, sees m, m has no melee cover from t. */
int
threatens(const struct cx *x, const struct state *s, int t, int m)
{
	if (t == m || !foe(s, t, m) || !functional(s, t) ||
	    !s->u[m].on)
		return 0;
	if (!adjacent(x, s, t, m))
		return 0;
	if (!sees(x, s, t, m))
		return 0;
	return !melee_cover(x, s, t, m);
}

int
threatened(const struct cx *x, const struct state *s, int m)
{
	int t;

	for (t = 0; t < s->nu; t++)
		if (threatens(x, s, t, m))
			return 1;
	return 0;
}

/* Occupant of square (x, y) other than `except`, or -1. */
int
occupant(const struct cx *x, const struct state *s, int sx, int sy,
    int except)
{
	const struct map *m = MAP(x, s);
	int i;

	if (x->pm != NULL && (x->pm->s == s || (x->pm->alt == s &&
	    except == x->pm->alt_u)) && sx >= 0 && sy >= 0 &&
	    sx < m->w && sy < m->h) {
		i = x->pm->occ[sy * m->w + sx] - 1;
		if (i != except || i < 0)
			return i;	/* else another may share the square */
	}
	for (i = 0; i < s->nu; i++) {
		const struct unit *p = &s->u[i];
		int sz;

		if (!p->on || i == except)
			continue;
		sz = CARD(x, s, i)->size;
		if (sx >= p->x && sx < p->x + sz && sy >= p->y &&
		    sy < p->y + sz)
			return i;
	}
	return -1;
}

/* Remember s's occupied squares in x->pm (while a legal list is built). */
void
sk_memo_occupancy(struct cx *x, const struct state *s)
{
	const struct map *m = MAP(x, s);
	int i, a, b;

	memset(x->pm->occ, 0, sizeof(x->pm->occ));
	for (i = s->nu - 1; i >= 0; i--) {
		const struct unit *p = &s->u[i];
		int sz;

		if (!p->on)
			continue;
		sz = CARD(x, s, i)->size;
		for (a = p->x; a < p->x + sz; a++)
			for (b = p->y; b < p->y + sz; b++)
				if (a >= 0 && b >= 0 && a < m->w && b < m->h)
					x->pm->occ[b * m->w + a] =
					    (int16_t)(i + 1);
	}
}

/* §3.1.9 legal end position for u at anchor (ax, ay). */
int
end_ok(const struct cx *x, const struct state *s, int u, int ax, int ay)
{
	struct grid g;
	int sz = CARD(x, s, u)->size, i, j;

	sk_grid(x, s, &g);
	for (i = 0; i < sz; i++)
		for (j = 0; j < sz; j++) {
			unsigned f = grid_at(&g, ax + i, ay + j);

			if (f & (GRID_WALL | GRID_STATUE | GRID_PIT))
				return 0;
			if (occupant(x, s, ax + i, ay + j, u) >= 0)
				return 0;
		}
	return 1;
}

/* ---------------------------------------------------------------- */
/* Command (§2.6) */

/* Beastmaster N: Animals and Magical Beasts of level <= N of its warband
 * lose Difficult and Wild while a Beastmaster creature remains. */
static int
tamed(const struct cx *x, const struct state *s, int u)
{
	int k;

	if (!(CARD(x, s, u)->abil2 & A2_BEAST))
		return 0;
	for (k = 0; k < s->nu; k++)
		if (!s->u[k].gone && s->u[k].seat == s->u[u].seat &&
		    CARD(x, s, k)->beastmaster >= CARD(x, s, u)->level)
			return 1;
	return 0;
}

int
difficult_of(const struct cx *x, const struct state *s, int u)
{
	return tamed(x, s, u) ? 0 : CARD(x, s, u)->difficult;
}

int
wild_of(const struct cx *x, const struct state *s, int u)
{
	return has(x, s, u, AB_WILD) && !tamed(x, s, u);
}

/* An enemy of u with (Improved) Countersong within 6 squares of u. */
static int
singer_near(const struct cx *x, const struct state *s, int u, int ab)
{
	struct grid_space su = SP(x, s, u), sk2;
	int k;

	for (k = 0; k < s->nu; k++) {
		if (!s->u[k].on || s->u[k].routed ||
		    !foe(s, k, u) || !has(x, s, k, ab))
			continue;
		sk2 = SP(x, s, k);
		if (grid_space_dist(&su, &sk2) <= 6)
			return 1;
	}
	return 0;
}

static int commands_r(const struct cx *x, const struct state *s, int c,
    int u, int depth);

/* The commander rating c commands with: its own, or with Relay Orders
 * the highest of the commanders commanding it (-1: not a commander). */
static int
rating(const struct cx *x, const struct state *s, int c, int depth)
{
	int k, best = -1;

	if (s->u[c].cmd0)
		return 0;
	if (CARD(x, s, c)->commander >= 0)
		return CARD(x, s, c)->commander;
	if (depth > 0 || !CARD(x, s, c)->relay)
		return -1;
	for (k = 0; k < s->nu; k++)
		if (commands_r(x, s, k, c, 1) && CARD(x, s, k)->commander > best)
			best = CARD(x, s, k)->commander;
	return best;
}

static int
can_command(const struct cx *x, const struct state *s, int c)
{
	return functional(s, c) && !s->u[c].confused &&
	    rating(x, s, c, 0) >= 0;
}

/* Does commander c command u now (§2.6)? */
static int
commands_r(const struct cx *x, const struct state *s, int c, int u, int depth)
{
	struct grid g;
	struct grid_space sc, su;
	int d, r;

	if (c == u || s->u[c].seat != s->u[u].seat || !functional(s, c) ||
	    s->u[c].confused)
		return 0;
	r = rating(x, s, c, depth);
	if (r < 0 || r < difficult_of(x, s, u))
		return 0;
	if (wild_of(x, s, u))
		return 0;
	/* Improved Countersong: no commanding others near the singer */
	if (singer_near(x, s, c, AB_ICOUNTERSONG) ||
	    singer_near(x, s, u, AB_ICOUNTERSONG))
		return 0;
	if (sees(x, s, u, c))
		return 1;
	sk_grid(x, s, &g);
	sc = SP(x, s, c);
	su = SP(x, s, u);
	d = grid_wall_path(&g, &su, &sc, 6);
	return d >= 0 && d <= 6;
}

static int
commands(const struct cx *x, const struct state *s, int c, int u)
{
	return commands_r(x, s, c, u, 0);
}

int
under_command(const struct cx *x, const struct state *s, int u)
{
	int c;

	if (wild_of(x, s, u))
		return 0;
	if (has(x, s, u, AB_INDEP))
		return 1;
	if (can_command(x, s, u) || (s->u[u].confused && functional(s, u) &&
	    rating(x, s, u, 0) >= 0 && s->flipped != u))
		return 1;	/* A39: a confused commander commands itself */
	for (c = 0; c < s->nu; c++)
		if (commands(x, s, c, u))
			return 1;
	return 0;
}

/* §4.2.2 commander bonus to morale saves, at check time. */
static int
command_bonus(const struct cx *x, const struct state *s, int u)
{
	int c, best = 0;

	if (CARD(x, s, u)->commander > 0)
		best = CARD(x, s, u)->commander;
	if (wild_of(x, s, u))
		return best;
	for (c = 0; c < s->nu; c++)
		if (commands(x, s, c, u) && rating(x, s, c, 0) > best)
			best = rating(x, s, c, 0);
	return best;
}

/* §2.7: the strongest commander effect on stat that follower u enjoys
 * (under that commander's command and within 6 wall-path squares). */
/* The effect on stat commander c gives (with Relay Orders: the best of
 * its commanders'), or 0; hostile: the hostile effects instead. */
static int
effect_of(const struct cx *x, const struct state *s, int c, int stat,
    int hostile)
{
	const struct card *C = CARD(x, s, c);
	int k, best = 0;

	if (!can_command(x, s, c) || singer_near(x, s, c, AB_COUNTERSONG))
		return 0;
	if (C->eff_stat == stat && C->eff_hostile == hostile)
		return C->eff_val;
	if (!C->relay || C->commander >= 0)
		return 0;
	for (k = 0; k < s->nu; k++)
		if (commands_r(x, s, k, c, 1) &&
		    CARD(x, s, k)->eff_stat == stat &&
		    CARD(x, s, k)->eff_hostile == hostile &&
		    (hostile ? CARD(x, s, k)->eff_val < best :
		    CARD(x, s, k)->eff_val > best))
			best = CARD(x, s, k)->eff_val;
	return best;
}

/* §2.7: the strongest friendly commander effect on stat that follower u
 * enjoys (under that commander's command and within 6 wall-path
 * squares), plus the strongest hostile one on it; Countersong and Not
 * Subject to Commander Effects switch them off. */
int
cmd_effect(const struct cx *x, const struct state *s, int u, int stat)
{
	struct grid g;
	struct grid_space sc, su;
	int c, best = 0, worst = 0, v, d;

	if (!s->u[u].on || has(x, s, u, AB_NOTSUBJECT))
		return 0;
	sk_grid(x, s, &g);
	su = SP(x, s, u);
	for (c = 0; c < s->nu; c++) {
		if (c == u || !s->u[c].on)
			continue;
		if (s->u[c].seat == s->u[u].seat) {
			if (CARD(x, s, u)->commander >= 0 ||
			    singer_near(x, s, u, AB_COUNTERSONG) ||
			    !commands(x, s, c, u))
				continue;
			v = effect_of(x, s, c, stat, 0);
			if (v <= best)
				continue;
		} else if (foe(s, c, u)) {
			v = effect_of(x, s, c, stat, 1);
			if (v >= worst)
				continue;
		} else {
			continue;	/* a teammate's commander */
		}
		sc = SP(x, s, c);
		d = grid_wall_path(&g, &su, &sc, 6);
		if (d < 0 || d > 6)
			continue;
		if (s->u[c].seat == s->u[u].seat)
			best = v;
		else
			worst = v;
	}
	return best + worst;
}

/* Highest commander rating among seat's functional commanders. */
int
init_bonus(const struct cx *x, const struct state *s, int seat, int any)
{
	int i, best = 0;

	for (i = 0; i < s->nu; i++)
		if (s->u[i].seat == seat && !s->u[i].gone &&
		    (any || can_command(x, s, i)) &&
		    CARD(x, s, i)->commander > best)
			best = CARD(x, s, i)->commander;
	return best;
}

/* ---------------------------------------------------------------- */
/* Elimination, victory */

/* The seat owning unit i (a confused creature an opponent controls this
 * turn still belongs to its owner). */
static int
owner(const struct state *s, int i)
{
	return s->flipped == i ? s->flip_owner : s->u[i].seat;
}

static int
alive(const struct state *s, int seat)
{
	int i, n = 0;

	for (i = 0; i < s->nu; i++)
		n += owner(s, i) == seat && !s->u[i].gone;
	return n;
}

/* A team's creatures left (vp 0) or VP (vp 1). */
static int
team_sum(const struct state *s, int team, int vp)
{
	int q, n = 0;

	for (q = 0; q < s->nseats; q++)
		if (s->team[q] == team)
			n += vp ? s->vp[q] : alive(s, q);
	return n;
}

void
game_over(struct cx *x, struct state *s, int winner, int reason)
{
	static const char *const rs[] = { "", "all enemies eliminated",
		"quick assault", "stalemate", "round limit", "victory points" };
	refd_mpw *w;
	int q;

	s->stage = ST_OVER;
	s->winner = winner;
	s->reason = reason;
	s->nprog = 0;
	s->dec = DEC_NONE;
	s->dec_unit = -1;
	w = sk_ev("game_over");
	refd_mpw_kint(w, "winner", winner);
	refd_mpw_karray(w, "winners");
	for (q = 0; q < s->nseats && winner >= 0; q++)
		if (s->team[q] == s->team[winner])
			refd_mpw_int(w, q);
	refd_mpw_end(w);
	refd_mpw_kstr(w, "reason", rs[reason]);
	refd_mpw_karray(w, "vp");
	for (q = 0; q < s->nseats; q++)
		refd_mpw_int(w, s->vp[q]);
	refd_mpw_end(w);
	sk_emit(x, w);
}

/* Among the teams in cand (bits), those with the best key; *n: how many. */
static int
best_teams(int cand, const int *key, int high, int *n)
{
	int t, best = 0, out = 0, any = 0;

	for (t = 0; t < SK_MAXSEATS; t++)
		if (cand >> t & 1 && (!any || (high ? key[t] > best :
		    key[t] < best))) {
			best = key[t];
			any = 1;
		}
	*n = 0;
	for (t = 0; t < SK_MAXSEATS; t++)
		if (cand >> t & 1 && key[t] == best) {
			out |= 1 << t;
			(*n)++;
		}
	return out;
}

/* The first seat of the one team in mask (n == 1), or -1: a draw. */
static int
team_seat(const struct state *s, int mask, int n)
{
	int q;

	if (n != 1)
		return -1;
	for (q = 0; q < s->nseats; q++)
		if (mask >> s->team[q] & 1)
			return q;
	return -1;
}

/* §6.3 tie-breaks among the teams in cand: VP, then the creature closest
 * to the centre, then its cost; still tied: a draw (-1). */
static int
tiebreak_among(const struct cx *x, const struct state *s, int cand)
{
	const struct map *m = MAP(x, s);
	int best[SK_MAXSEATS], cost[SK_MAXSEATS], vp[SK_MAXSEATS], t, i, n;
	struct grid_space cen;

	for (t = 0; t < SK_MAXSEATS; t++) {
		vp[t] = team_sum(s, t, 1);
		best[t] = 1 << 20;
		cost[t] = 0;
	}
	cand = best_teams(cand, vp, 1, &n);
	if (n <= 1)
		return team_seat(s, cand, n);
	cen.x = (m->w - 1) / 2;
	cen.y = (m->h - 1) / 2;
	cen.s = 1;
	for (i = 0; i < s->nu; i++) {
		struct grid_space a, c2 = cen;
		int d, dx, dy;

		t = s->team[owner(s, i)];
		if (!s->u[i].on)
			continue;
		a = SP(x, s, i);
		d = 1 << 20;
		/* centre squares: 1, 2 or 4 of them */
		for (dx = 0; dx <= (m->w % 2 == 0); dx++)
			for (dy = 0; dy <= (m->h % 2 == 0); dy++) {
				int e;

				c2.x = cen.x + dx;
				c2.y = cen.y + dy;
				e = grid_space_dist(&a, &c2);
				if (e < d)
					d = e;
			}
		if (d < best[t] || (d == best[t] &&
		    CARD(x, s, i)->cost > cost[t])) {
			best[t] = d;
			cost[t] = CARD(x, s, i)->cost;
		}
	}
	cand = best_teams(cand, best, 0, &n);
	if (n <= 1)
		return team_seat(s, cand, n);
	cand = best_teams(cand, cost, 1, &n);
	return team_seat(s, cand, n);
}

static int
all_teams(const struct state *s)
{
	int q, m = 0;

	for (q = 0; q < s->nseats; q++)
		m |= 1 << s->team[q];
	return m;
}

int
tiebreak(const struct cx *x, const struct state *s)
{
	return tiebreak_among(x, s, all_teams(s));
}

/* §6.1, §6.2, §6.4 (R000-88, R000-89): the last team with creatures wins
 * (none left: VP, else a draw); with 3 or more seats a player reaching
 * the warband size in VP wins (for his team); Quick Assault: 70 % of it,
 * or every opponent down to one creature. */
void
check_victory(struct cx *x, struct state *s)
{
	int t, q, left = 0, nleft = 0, qa, n;

	if (s->stage == ST_OVER || s->stage < ST_FIRST)
		return;
	for (t = 0; t < SK_MAXSEATS; t++)
		if (all_teams(s) >> t & 1 && team_sum(s, t, 0) > 0) {
			left |= 1 << t;
			nleft++;
		}
	if (nleft == 0) {
		int vp[SK_MAXSEATS], m;

		for (t = 0; t < SK_MAXSEATS; t++)
			vp[t] = team_sum(s, t, 1);
		m = best_teams(all_teams(s), vp, 1, &n);
		game_over(x, s, team_seat(s, m, n), RS_ELIM);
		return;
	}
	if (nleft == 1) {
		game_over(x, s, team_seat(s, left, 1), RS_ELIM);
		return;
	}
	qa = s->variant == 1 ? s->points * 70 / 100 : s->points;
	for (q = 0; q < s->nseats; q++) {
		int k, low = 1;

		for (k = 0; k < s->nseats; k++)
			if (foe_seat(s, q, k) && alive(s, k) > 1)
				low = 0;
		if ((s->variant == 1 || s->nseats > 2) && s->vp[q] >= qa) {
			game_over(x, s, q, s->variant == 1 ? RS_QA : RS_VP);
			return;
		}
		if (s->variant == 1 && low) {
			game_over(x, s, q, RS_QA);
			return;
		}
	}
}

static void
abort_progs(struct state *s, int u)
{
	int i;

	for (i = 0; i < s->nprog; i++)
		if (s->pr[i].unit == u)
			s->pr[i].aborted = 1;
}

/* Glossary, Cowardly: when an ally is destroyed, a Cowardly creature with
 * no functional ally within 6 squares routs at once, no save. */
static void
cowardly(struct cx *x, struct state *s, int seat)
{
	int k, a;

	for (k = 0; k < s->nu; k++) {
		struct grid_space sk2, sa;

		if (foe_seat(s, s->u[k].seat, seat) || !s->u[k].on ||
		    s->u[k].routed ||
		    !has(x, s, k, AB_COWARDLY))
			continue;
		sk2 = SP(x, s, k);
		for (a = 0; a < s->nu; a++) {
			if (a == k || foe_seat(s, s->u[a].seat, seat) ||
			    !functional(s, a))
				continue;
			sa = SP(x, s, a);
			if (grid_space_dist(&sk2, &sa) <= 6)
				break;
		}
		if (a == s->nu)
			rout(x, s, k, -1);
	}
}

/* §3.12, §6.1 (R000-87, R000-97): the VP of an eliminated creature go to
 * the seat responsible (by) when it is an opponent; otherwise (no enemy
 * involved) they are split among the opponents still in play, each share
 * rounded down (2 seats: all to the one opponent). */
static void
score(struct cx *x, struct state *s, int u, int by, refd_mpw *w)
{
	struct unit *p = &s->u[u];
	int pts = p->minion || p->summoner1 ? 0 :
	    CARD(x, s, u)->cost + (p->cmd0 ? 5 : 0);
	int q, n = 0, in = 0, share;

	(void)x;
	if (by >= 0 && foe_seat(s, by, p->seat)) {
		s->vp[by] += pts;
		refd_mpw_kint(w, "vp_to", by);
		refd_mpw_kint(w, "vp", pts);
		return;
	}
	for (q = 0; q < s->nseats; q++)
		in |= foe_seat(s, q, p->seat) && alive(s, q) > 0 ? 1 << q : 0;
	if (in == 0)
		for (q = 0; q < s->nseats; q++)
			in |= foe_seat(s, q, p->seat) ? 1 << q : 0;
	for (q = 0; q < s->nseats; q++)
		n += in >> q & 1;
	share = n > 0 ? pts / n : 0;
	for (q = 0; q < s->nseats; q++)
		if (in >> q & 1)
			s->vp[q] += share;
	if (n == 1) {
		for (q = 0; !(in >> q & 1); q++)
			;
		refd_mpw_kint(w, "vp_to", q);
		refd_mpw_kint(w, "vp", pts);
		return;
	}
	refd_mpw_kint(w, "vp_to", -1);
	refd_mpw_kint(w, "vp", pts);
	refd_mpw_karray(w, "vp_split");
	for (q = 0; q < s->nseats; q++)
		if (in >> q & 1)
			refd_mpw_int(w, q);
	refd_mpw_end(w);
	refd_mpw_kint(w, "vp_each", share);
}

/* Remove u from play: destroyed or fled; by: the seat responsible, or
 * -1 (no enemy involved). */
void
eliminate(struct cx *x, struct state *s, int u, const char *how, int by)
{
	struct unit *p = &s->u[u];
	refd_mpw *w;

	p->on = 0;
	p->gone = 1;
	if (s->flipped == u) {
		/* §4.3: eliminated while an opponent controls it: that
		 * opponent scores it (the owner gets it back first) */
		by = p->seat;
		p->seat = s->flip_owner;
		s->flipped = -1;
		s->flip_owner = -1;
	}
	if (by < 0 && s->blame >= 0)
		by = s->blame;	/* poison: the poisoner's seat */
	abort_progs(s, u);
	if (u == s->cur)
		s->auto_end = 1;
	w = sk_ev(how);
	refd_mpw_kint(w, "unit", u);
	refd_mpw_kstr(w, "name", CARD(x, s, u)->name);
	/* §3.12: minions give no VP; the commander-0 creature 5 more */
	score(x, s, u, by, w);
	sk_emit(x, w);
	check_victory(x, s);
	if (strcmp(how, "destroyed") == 0 && s->stage != ST_OVER)
		cowardly(x, s, p->seat);
	{
		int k;

		/* Requires: the requiring creature follows its partner */
		for (k = 0; k < s->nu && s->stage != ST_OVER; k++)
			if (s->u[k].partner == u && s->u[k].on)
				eliminate(x, s, k, "eliminated_with_partner",
				    by);
		/* a summoned creature goes with its summoner */
		for (k = 0; k < s->nu && s->stage != ST_OVER; k++)
			if (s->u[k].summoner1 == u + 1 && s->u[k].on)
				eliminate(x, s, k, "unsummoned", by);
	}
}

/* ---------------------------------------------------------------- */
/* Saves, morale, rout */

/* Glossary, Stench: a living creature adjacent to another creature
 * with Stench (and without it itself). */
int
stenched(const struct cx *x, const struct state *s, int u)
{
	int k;

	if (has(x, s, u, AB_NONLIVING) || (CARD(x, s, u)->abil2 & A2_STENCH))
		return 0;
	for (k = 0; k < s->nu; k++)
		if (k != u && s->u[k].on && (CARD(x, s, k)->abil2 & A2_STENCH) &&
		    adjacent(x, s, u, k))
			return 1;
	return 0;
}

static int
save_mod(const struct cx *x, const struct state *s, int u)
{
	return CARD(x, s, u)->level + CARD(x, s, u)->save_bonus -
	    (s->u[u].frightened ? 4 : 0) - s->u[u].drained -
	    (stenched(x, s, u) ? 2 : 0);
}

/* §4.1 save vs dc; returns 1 on success. */
int
save(struct cx *x, struct state *s, int u, int dc, const char *why)
{
	int d, tot, okk;
	refd_mpw *w;

	if (has(x, s, u, AB_FEARLESS))
		return 1;
	d = sk_roll(x, why);
	tot = d + save_mod(x, s, u);
	okk = d == 20 || (d != 1 && tot >= dc);
	w = sk_ev("save");
	refd_mpw_kint(w, "unit", u);
	refd_mpw_kstr(w, "why", why);
	refd_mpw_kint(w, "roll", d);
	refd_mpw_kint(w, "total", tot);
	refd_mpw_kint(w, "dc", dc);
	refd_mpw_kbool(w, "success", okk);
	sk_emit(x, w);
	return okk;
}

/* §4.2.2 morale save; 1 on success. */
int
morale(struct cx *x, struct state *s, int u, const char *why)
{
	int d, tot, okk, cb, ty;
	refd_mpw *w;

	if (has(x, s, u, AB_FEARLESS) && strcmp(why, "turn undead") != 0) {
		w = sk_ev("morale");
		refd_mpw_kint(w, "unit", u);
		refd_mpw_kstr(w, "why", why);
		refd_mpw_kbool(w, "fearless", 1);
		refd_mpw_kbool(w, "success", 1);
		sk_emit(x, w);
		return 1;
	}
	cb = command_bonus(x, s, u);
	ty = strcmp(why, "rally") != 0 && s->tyrannical[s->u[u].seat] ?
	    cmd_effect(x, s, u, 3) : 0;
	d = sk_roll(x, "morale");
	tot = d + save_mod(x, s, u) + CARD(x, s, u)->morale_bonus + cb + ty;
	okk = d == 20 || (d != 1 && tot >= 20);
	w = sk_ev("morale");
	refd_mpw_kint(w, "unit", u);
	refd_mpw_kstr(w, "why", why);
	refd_mpw_kint(w, "roll", d);
	refd_mpw_kint(w, "command", cb);
	if (ty > 0)
		refd_mpw_kint(w, "tyrannical", ty);
	refd_mpw_kint(w, "total", tot);
	refd_mpw_kbool(w, "success", okk);
	sk_emit(x, w);
	if (!okk && ty > 0)
		return -1;	/* Tyrannical Morale: destroyed */
	return okk;
}

void
push_rout(struct cx *x, struct state *s, int u)
{
	struct prog *p;

	if (s->nprog >= SK_MAXPROG) {
		x->rc = REFD_ELIMIT;
		return;
	}
	p = &s->pr[s->nprog++];
	memset(p, 0, sizeof(*p));
	p->kind = PK_ROUT;
	p->unit = u;
	p->target = -1;
	p->budget = 2 * CARD(x, s, u)->speed;
	p->npath = -1;		/* computed at its first step */
	s->u[u].parity = 0;
}

/* §4.2.3: u routs because of cause (a unit, or -1). */
void
rout(struct cx *x, struct state *s, int u, int cause)
{
	struct unit *p = &s->u[u];
	refd_mpw *w;

	p->routed = 1;
	p->rout_unit = cause;
	p->rout_seat = cause >= 0 ? s->u[cause].seat : -1;
	p->rout_turn = s->turnid;
	abort_progs(s, u);
	if (u == s->cur)
		s->auto_end = 1;	/* A40 */
	w = sk_ev("routed");
	refd_mpw_kint(w, "unit", u);
	refd_mpw_kint(w, "by", cause);
	sk_emit(x, w);
	if (!p->stunned && !helpless(s, u))
		push_rout(x, s, u);
}

/* §3.11.3: damage consequences.  src: the unit responsible or -1. */
void
damage(struct cx *x, struct state *s, int u, int amount, int src)
{
	damage2(x, s, u, amount, src, 0);
}

/* §4.5 (R000-95): creatures an effect reaches at once resolve seat by
 * seat, clockwise from the seat whose creature is taking its turn; a
 * seat's own creatures in unit order (a stable sort). */
void
sim_order(const struct state *s, int *list, int n)
{
	int first = s->cur >= 0 ? s->u[s->cur].seat : s->phase_seat;
	int i, j, k;

	for (i = 1; i < n; i++) {
		k = list[i];
		for (j = i; j > 0 && (s->u[list[j - 1]].seat - first +
		    s->nseats) % s->nseats > (s->u[k].seat - first +
		    s->nseats) % s->nseats; j--)
			list[j] = list[j - 1];
		list[j] = k;
	}
}

/* Glossary, Death Burst (A34): every creature (any side) within the radius
 * of the dying creature's space, or adjacent without a radius, takes the
 * damage; a save halves it. */
void
death_burst(struct cx *x, struct state *s, int u)
{
	const struct card *c = CARD(x, s, u);
	struct grid_space su = SP(x, s, u);
	struct grid g;
	int k, list[SK_MAXU], n = 0;
	refd_mpw *w;

	sk_grid(x, s, &g);
	for (k = 0; k < s->nu; k++) {
		struct grid_space sk2;

		if (k == u || !s->u[k].on)
			continue;
		sk2 = SP(x, s, k);
		if (c->db_radius > 0 ? grid_space_dist(&su, &sk2) <= c->db_radius :
		    grid_adjacent(&g, &su, &sk2))
			list[n++] = k;
	}
	sim_order(s, list, n);
	w = sk_ev("death_burst");
	refd_mpw_kint(w, "unit", u);
	refd_mpw_karray(w, "affected");
	for (k = 0; k < n; k++)
		refd_mpw_int(w, list[k]);
	refd_mpw_end(w);
	sk_emit(x, w);
	for (k = 0; k < n && s->stage != ST_OVER; k++) {
		int d = c->db_dmg;

		if (!s->u[list[k]].on)
			continue;
		if (c->db_dc > 0 && save(x, s, list[k], c->db_dc, "death burst"))
			d = grid_half5(d);
		d = energy_adjust(x, s, list[k], d, c->db_energy);
		w = sk_ev("burst_damage");
		refd_mpw_kint(w, "unit", list[k]);
		refd_mpw_kint(w, "damage", d);
		refd_mpw_kint(w, "hp", s->u[list[k]].hp - d);
		sk_emit(x, w);
		damage(x, s, list[k], d, -1);
	}
}

/* defer: leave the morale save to a half_check after the riders. */
void
damage2(struct cx *x, struct state *s, int u, int amount, int src, int defer)
{
	const struct card *c = CARD(x, s, u);
	struct unit *p = &s->u[u];

	if (amount <= 0 || !p->on ||
	    (s->dec == DEC_DSTRIKE && s->dec_unit == u))
		return;
	if (src >= 0 && foe_seat(s, s->u[src].seat, p->seat))
		s->aggr = 1;
	p->hp -= amount;
	if (p->asleep) {
		refd_mpw *w = sk_ev("woke");

		p->asleep = 0;
		refd_mpw_kint(w, "unit", u);
		sk_emit(x, w);
	}
	if (p->hp <= 0) {
		int k;

		/* Death Strike: one last melee attack, decided by its owner */
		for (k = 0; (c->abil2 & A2_DEATHSTRIKE) && s->dec == DEC_NONE &&
		    k < s->nu; k++)
			if (s->u[k].on && foe_seat(s, s->u[k].seat, p->seat) &&
			    adjacent(x, s, u, k)) {
				s->dec = DEC_DSTRIKE;
				s->dec_unit = u;
				s->dec_target = src >= 0 ? s->u[src].seat : -1;
				return;
			}
		eliminate(x, s, u, "destroyed", src >= 0 ? s->u[src].seat :
		    -1);
		if (c->db_dmg > 0)
			death_burst(x, s, u);
		return;
	}
	if (defer)
		return;
	half_check(x, s, u, src);
}

/* §4.2.1: the once-only half-HP morale save. */
void
half_check(struct cx *x, struct state *s, int u, int src)
{
	struct unit *p = &s->u[u];
	const struct card *c = CARD(x, s, u);

	if (!p->on || p->hp <= 0)
		return;
	if (!p->half_done && p->hp <= c->hp / 2) {
		p->half_done = 1;	/* A38: consumed even while routing */
		int r = p->routed ? 1 : morale(x, s, u, "half hp");

		if (r == 0)
			rout(x, s, u, src);
		else if (r < 0)
			eliminate(x, s, u, "destroyed", src >= 0 ?
			    s->u[src].seat : -1);
	}
}

/* §4.3: t saves against dc or gains cond (src: the unit responsible). */
/* §1.5 and the glossary: t can never suffer the condition cond (its type
 * or an ability makes it immune). */
int
cond_immune(const struct cx *x, const struct state *s, int t, int cond)
{
	switch (cond) {
	case CO_STUN: return has(x, s, t, AB_STUNIMM);
	case CO_PARALYZE: return has(x, s, t, AB_PARAIMM);
	case CO_POISON: return has(x, s, t, AB_POISONIMM);
	case CO_SLEEP: return has(x, s, t, AB_SLEEPIMM);
	case CO_FRIGHTEN: return has(x, s, t, AB_FEARLESS);
	case CO_ENTANGLE: return has(x, s, t, AB_FLIGHT);
	case CO_INCITE:
	case CO_INHIBIT: return has(x, s, t, AB_INCITEIMM);
	case CO_CONFUSE:
		return has(x, s, t, AB_INCITEIMM) || has(x, s, t, AB_NONLIVING);
	default: return 0;
	}
}

void
condition(struct cx *x, struct state *s, int t, int cond, int dc, int src)
{
	static const char *const cn[] = { "", "stunned", "paralyzed",
		"poisoned", "asleep", "frightened", "entangled",
		"skips next turn", "incited", "inhibited", "confused" };
	struct unit *p = &s->u[t];
	int imm;
	refd_mpw *w;

	if (!p->on)
		return;
	imm = cond_immune(x, s, t, cond) || (cond == CO_POISON &&
	    p->poisoned);
	if (src >= 0 && foe_seat(s, s->u[src].seat, p->seat))
		s->aggr = 1;
	if (imm || save(x, s, t, dc, cn[cond]))
		return;
	switch (cond) {
	case CO_STUN: p->stunned = 1; break;
	case CO_PARALYZE: p->paralyzed = 1; p->paralyzed_dc = dc; break;
	case CO_POISON:
		/* the poisoner's seat + 1: its owner scores the kill */
		p->poisoned = src >= 0 ? s->u[src].seat + 1 : SK_MAXSEATS + 1;
		break;
	case CO_SLEEP: p->asleep = 1; break;
	case CO_FRIGHTEN: p->frightened = 1; break;
	case CO_ENTANGLE: p->entangled = 1; p->entangled_dc = dc; break;
	case CO_INCITE: p->incited = 1; p->inhibited = 0; break;
	case CO_CONFUSE: p->confused = 1; p->confused_dc = dc; break;
	case CO_INHIBIT: p->inhibited = 1; p->incited = 0; break;
	default: p->skip = 1; break;
	}
	w = sk_ev("condition");
	refd_mpw_kint(w, "unit", t);
	refd_mpw_kstr(w, "condition", cn[cond]);
	sk_emit(x, w);
}
