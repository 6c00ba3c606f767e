/*
 * turn.c - attacks, pushes, the monster AI (focus, destination), the
 * character turn, round start and end, and dg_advance (spec §4-§13).
 */
#include <stdio.h>
#include <string.h>

#include "dg.h"
#include "rules.h"

static void kxy(refd_mpw *w, const char *k, int q, int r)
{
	refd_mpw_karray(w, k);
	refd_mpw_int(w, q);
	refd_mpw_int(w, r);
	refd_mpw_end(w);
}

static int
fig_range(const struct dg *s, int a, int b)
{
	return range_between(s, s->fig[a].q, s->fig[a].r, s->fig[b].q,
	    s->fig[b].r);
}

/* fig_range over a monster decision's memo */
static int
fig_range_g(const struct game *g, int a, int b)
{
	const struct dg *s = &g->s;

	return g_range(g, s->fig[a].q, s->fig[a].r, s->fig[b].q, s->fig[b].r);
}

static int
fig_los(const struct dg *s, int a, int b)
{
	return los(s, s->fig[a].q, s->fig[a].r, s->fig[b].q, s->fig[b].r);
}

static int
fig_adjacent(const struct dg *s, int a, int b)
{
	return adjacent(s, s->fig[a].q, s->fig[a].r, s->fig[b].q,
	    s->fig[b].r);
}

/* The character who gets the credit for figure f's deeds, or -1. */
static int
credit_of(const struct game *g, int f)
{
	const struct fig *x = &g->s.fig[f];

	if (x->kind == F_CHAR)
		return char_of(g, f);
	if (x->kind == F_SUMMON)
		return x->owner;
	return -1;
}

static void
infuse(struct game *g, int mask, int any, int pick)
{
	int i;

	g->s.infuse_now |= mask;
	if (any > 0 && pick >= 0) {
		g->s.infuse_now |= 1 << pick;
		any--;
	}
	while (any-- > 0)
		for (i = 0; i < NELEM; i++)
			if (!(g->s.infuse_now >> i & 1)) {
				g->s.infuse_now |= 1 << i;
				break;
			}
}

/* Consume elements for an augment: all listed ones must be available;
 * "any" takes the first available.  Returns 1 when paid. */
static int
consume(struct game *g, int mask, int any, int wild)
{
	int i, avail = 0, pick = 0;
	refd_mpw *w;

	if (mask == 0 && any == 0)
		return 0;
	for (i = 0; i < NELEM; i++)
		if (g->s.elem[i] > 0)
			avail |= 1 << i;
	if ((avail & mask) != mask)
		return 0;
	if (any && wild >= 0) {
		if (!((avail & ~mask) >> wild & 1))
			return 0;
		pick = 1 << wild;
	} else if (any) {
		for (i = 0; i < NELEM; i++)
			if ((avail & ~mask) >> i & 1) {
				pick = 1 << i;
				break;
			}
		if (pick == 0)
			return 0;
	}
	mask |= pick;
	if ((mask & 1) && g->s.phase == PH_TURN && g->s.cur < g->s.nord &&
	    g->s.ord[g->s.cur].kind == O_CHAR)
		g->s.ch[g->s.ord[g->s.cur].idx].fire++;
	w = evb("consume");
	refd_mpw_karray(w, "elements");
	for (i = 0; i < NELEM; i++)
		if (mask >> i & 1) {
			g->s.elem[i] = 0;
			refd_mpw_str(w, elem_name[i]);
		}
	refd_mpw_end(w);
	ev(g, REFD_SEAT_PUBLIC, w);
	return 1;
}

/* ----- attacks (§7) ----- */

static void ai_ask(struct game *g, int f, int kind, int val,
    const int *opts, int n);
static void attack_done(struct game *g);

static void
atk_step(struct game *g)
{
	struct dg *s = &g->s;
	struct atk *a = &s->atk;
	int t, v, mode, out[24], drawn[24], n, nd, i, sum = 0, mul = 0, nul = 0;
	int eff = 0, elems = 0, shield, dmg, adv, dis;
	char nm[48];
	refd_mpw *w;

	if (a->ti >= a->ntg || !s->fig[a->fig].alive) {
		a->active = 0;
		attack_done(g);
		return;
	}
	t = a->tg[a->ti];
	if (!s->fig[t].alive) {
		a->ti++;
		return;
	}
	/* an item the target may use against this attack, before the draw
	 * (§5.5): its owner decides */
	if (s->fig[t].kind == F_CHAR && !a->asked &&
	    item_reaction(g, char_of(g, t)) >= 0) {
		a->asked = 1;
		a->react = 1;
		a->react_seat = char_of(g, t);
		w = evb("item_reaction");
		refd_mpw_kint(w, "seat", a->react_seat);
		ev(g, REFD_SEAT_PUBLIC, w);
		return;
	}
	a->ti++;
	a->asked = 0;
	v = a->value + (s->fig[t].conds & C_POISON ? 1 : 0);
	adv = (s->fig[a->fig].conds & C_STRENGTHEN) != 0 || a->stage;
	dis = (s->fig[a->fig].conds & C_MUDDLE) != 0 ||
	    (a->ranged && fig_adjacent(s, a->fig, t));
	mode = adv - dis;
	n = draw_attack(g, deck_of(g, a->fig), mode, v, out, drawn, &nd);
	for (i = 0; i < n; i++) {
		const struct modc *m = &modc[out[i]];

		if (m->kind == 0)
			sum += m->val;
		else if (m->kind == 1)
			mul = 1;
		else
			nul = 1;
		eff |= m->conds;
		elems |= m->elem;
	}
	v += sum;
	if (mul)
		v *= 2;
	if (nul)
		v = 0;
	if (v < 0)
		v = 0;
	shield = fig_shield(g, t);
	if (s->fig[t].kind == F_CHAR) {
		shield += ward(g, char_of(g, t));
		shield += item_ward(g, char_of(g, t));
	}
	shield += a->extra_shield;
	a->extra_shield = 0;
	shield -= a->pierce;
	if (shield < 0)
		shield = 0;
	dmg = v - shield;
	if (dmg < 0)
		dmg = 0;
	if (elems)
		infuse(g, elems, 0, -1);
	w = evb("attack");
	refd_mpw_kint(w, "attacker", a->fig);
	refd_mpw_kint(w, "target", t);
	refd_mpw_kstr(w, "target_name", fig_name(g, t, nm, sizeof(nm)));
	refd_mpw_kstr(w, "mode", mode > 0 ? "advantage" : mode < 0 ?
	    "disadvantage" : "normal");
	refd_mpw_karray(w, "drawn");
	for (i = 0; i < nd; i++)
		refd_mpw_str(w, modc[drawn[i]].name);
	refd_mpw_end(w);
	refd_mpw_karray(w, "applied");
	for (i = 0; i < n; i++)
		refd_mpw_str(w, modc[out[i]].name);
	refd_mpw_end(w);
	refd_mpw_kint(w, "value", v);
	refd_mpw_kint(w, "shield", shield);
	refd_mpw_kint(w, "damage", dmg);
	ev(g, REFD_SEAT_PUBLIC, w);
	a->cur_tg = t;
	a->effects = eff;
	a->xp = 1;	/* performed */
	if (s->fig[t].kind == F_CHAR) {
		damage(g, t, dmg, credit_of(g, a->fig), "attack", 1);
	} else {
		damage(g, t, dmg, credit_of(g, a->fig), "attack", 0);
		after_damage(g);
	}
}

/* Figure f flies now: a flying monster type not grounded (§1.6). */
int
flies(const struct game *g, int f)
{
	const struct fig *x = &g->s.fig[f];

	return x->kind == F_MONSTER && g->c->type[x->type].flying &&
	    !x->grounded;
}

/* The empty hexes nearest hex h (no figure, no overlay but a pressure
 * plate, no closed door) in canonical order; their number. */
static int
nearest_empty(const struct game *g, int h, int *out, int max)
{
	const struct dg *s = &g->s;
	int x, best = -1, n = 0, i, j;

	for (x = 0; x < s->nhex; x++) {
		int d;

		if (x == h || fig_at(s, s->hex[x].q, s->hex[x].r) >= 0 ||
		    (s->hex[x].ov != OV_NONE && s->hex[x].ov != OV_PLATE) ||
		    s->hex[x].door == DOOR_CLOSED ||
		    s->hex[x].door == DOOR_LOCKED || !visible_hex(s, x))
			continue;
		d = range_between(s, s->hex[h].q, s->hex[h].r, s->hex[x].q,
		    s->hex[x].r);
		if (d < 0)
			continue;
		if (best >= 0 && d > best)
			continue;
		if (best < 0 || d < best) {
			best = d;
			n = 0;
		}
		if (n >= max)
			continue;
		for (i = 0; i < n; i++)
			if (s->hex[x].q < s->hex[out[i]].q || (s->hex[x].q ==
			    s->hex[out[i]].q && s->hex[x].r < s->hex[out[i]].r))
				break;
		for (j = n; j > i; j--)
			out[j] = out[j - 1];
		out[i] = x;
		n++;
	}
	return n;
}

/* Put figure f on (q, r) and say so: event type with who = id and at. */
void
fig_put(struct game *g, int f, int q, int r, const char *type,
    const char *who, int id)
{
	struct dg *s = &g->s;
	refd_mpw *w;

	s->fig[f].q = q;
	s->fig[f].r = r;
	w = evb(type);
	refd_mpw_kint(w, who, id);
	refd_mpw_karray(w, "at");
	refd_mpw_int(w, q);
	refd_mpw_int(w, r);
	refd_mpw_end(w);
	ev(g, REFD_SEAT_PUBLIC, w);
}

/* Grounded figure f lands on hex h (§1.6). */
void
land_on(struct game *g, int f, int h)
{
	fig_put(g, f, g->s.hex[h].q, g->s.hex[h].r, "landed", "fig", f);
}

/*
 * Figure f loses flying for the round (§1.6, R002-90): on an obstacle it
 * suffers trap damage and moves at once to the nearest empty hex (the
 * players choose among ties).
 */
static void
ground(struct game *g, int f, int credit)
{
	struct dg *s = &g->s;
	int h = hex_at(s, s->fig[f].q, s->fig[f].r), opts[16], n;
	refd_mpw *w;

	if (!flies(g, f))
		return;
	s->fig[f].grounded = 1;
	w = evb("grounded");
	refd_mpw_kint(w, "fig", f);
	ev(g, REFD_SEAT_PUBLIC, w);
	if (h < 0 || s->hex[h].ov != OV_OBSTACLE)
		return;
	damage(g, f, s->trapdmg, credit, "landing on an obstacle", 0);
	if (!s->fig[f].alive)
		return;
	n = nearest_empty(g, h, opts, 16);
	if (n == 1)
		land_on(g, f, opts[0]);
	else if (n > 1)
		ai_ask(g, f, 6, 0, opts, n);
}

void
after_damage(struct game *g)
{
	struct dg *s = &g->s;
	struct atk *a = &s->atk;
	int t = a->cur_tg, r;

	if (!s->fig[t].alive)
		return;
	if (a->conds | a->effects)
		add_conds(g, t, a->conds | a->effects);
	if (a->ground) {
		ground(g, t, credit_of(g, a->fig));
		if (!s->fig[t].alive)
			return;
	}
	if ((a->push || a->pull) && s->fig[a->fig].alive &&
	    s->fig[t].kind != F_OBSTACLE) {
		s->push.active = 1;
		s->push.fig = t;
		s->push.from_fig = a->fig;
		s->push.left = a->push ? a->push : a->pull;
		s->push.pull = a->pull > 0;
		/* the attacker's controller picks the steps; for monsters the
		 * players do: the lowest seat in play */
		if (s->fig[a->fig].kind == F_CHAR)
			s->push.by_ci = char_of(g, a->fig);
		else if (s->fig[a->fig].kind == F_SUMMON)
			s->push.by_ci = s->fig[a->fig].owner;
		else
			s->push.by_ci = lowest_seat(g);
	}
	r = 0;
	if (s->fig[a->fig].alive && fig_range(s, a->fig, t) <= 1)
		r = fig_retaliate(g, t);
	if (r > 0) {
		refd_mpw *w = evb("retaliate");

		refd_mpw_kint(w, "fig", t);
		refd_mpw_kint(w, "attacker", a->fig);
		refd_mpw_kint(w, "amount", r);
		ev(g, REFD_SEAT_PUBLIC, w);
		damage(g, a->fig, r, -1, "retaliate", 0);
	}
}

/* The figure other than f on hex (q, r), or -1. */
static int
other_at(const struct dg *s, int f, int q, int r)
{
	int i;

	for (i = 0; i < s->nfig; i++)
		if (i != f && s->fig[i].alive && s->fig[i].q == q &&
		    s->fig[i].r == r)
			return i;
	return -1;
}

/*
 * Steps of a push or pull of f from hex (q, r) with `left` steps to go
 * (§6.3): each step takes it farther from (closer to) the attacker,
 * never into a wall, closed door, obstacle or an enemy of f; it may pass
 * its allies but not end on one.  A step onto an ally is legal only when
 * the push can go on from there to a free hex.
 */
static int
steps_from(const struct game *g, int f, int q, int r, int left, int *out)
{
	const struct dg *s = &g->s;
	const struct ppush *p = &s->push;
	int d, n = 0, cur, aq = s->fig[p->from_fig].q, ar = s->fig[p->from_fig].r;

	if (left <= 0)
		return 0;
	cur = range_between(s, aq, ar, q, r);
	for (d = 0; d < 6; d++) {
		int nq = q + refd_hex_dq[d], nr = r + refd_hex_dr[d];
		int h = hex_at(s, nq, nr), o, rr;

		if (h < 0 || !adjacent(s, q, r, nq, nr) ||
		    s->hex[h].ov == OV_OBSTACLE)
			continue;
		rr = range_between(s, aq, ar, nq, nr);
		if (p->pull ? rr >= cur : rr <= cur)
			continue;
		o = other_at(s, f, nq, nr);
		if (o >= 0) {
			int tmp[6];

			if (enemies(s, f, o) ||
			    steps_from(g, f, nq, nr, left - 1, tmp) == 0)
				continue;
		}
		out[n++] = h;
	}
	return n;
}

/* Legal push/pull steps for the push in progress. */
static int
push_steps(const struct game *g, int *out)
{
	const struct dg *s = &g->s;
	const struct ppush *p = &s->push;
	int f = p->fig;

	if (!s->fig[f].alive || !s->fig[p->from_fig].alive || p->left <= 0)
		return 0;
	return steps_from(g, f, s->fig[f].q, s->fig[f].r, p->left, out);
}

static void
push_step(struct game *g, int h)
{
	struct dg *s = &g->s;
	struct ppush *p = &s->push;
	refd_mpw *w;

	s->fig[p->fig].q = s->hex[h].q;
	s->fig[p->fig].r = s->hex[h].r;
	p->left--;
	w = evb(p->pull ? "pulled" : "pushed");
	refd_mpw_kint(w, "fig", p->fig);
	kxy(w, "to", s->hex[h].q, s->hex[h].r);
	ev(g, REFD_SEAT_PUBLIC, w);
	enter_hex(g, p->fig, h, credit_of(g, p->from_fig));
}


/* The seat that speaks for the party: the lowest one still in play. */
int
lowest_seat(const struct game *g)
{
	int i;

	for (i = 0; i < g->s.nch; i++)
		if (!g->s.ch[i].exhausted)
			return i;
	return 0;
}

/* ----- monster and summon AI (§12) ----- */

struct prof {
	int range, ranged, target, aoe;
	const struct ability *ab;	/* the card's first attack */
};

static int
is_enemy_target(const struct game *g, int f, int e)
{
	const struct fig *x = &g->s.fig[e];

	return x->alive && e != f && enemies(&g->s, f, e) &&
	    !(x->conds & C_INVISIBLE);
}

/* Position of figure e in this round's order (§4.3). */
static int
order_pos(const struct game *g, int e)
{
	const struct dg *s = &g->s;
	const struct fig *x = &s->fig[e];
	int i;

	for (i = 0; i < s->nord; i++) {
		const struct ordent *o = &s->ord[i];

		if (x->kind == F_CHAR && o->kind == O_CHAR &&
		    s->ch[o->idx].fig == e)
			return i * 100;
		if (x->kind == F_SUMMON && o->kind == O_SUMMON && o->idx == e)
			return i * 100;
		if (x->kind == F_MONSTER && o->kind == O_TYPE &&
		    o->idx == x->type)
			return i * 100 + (x->rank == 1 ? 0 : x->rank == 0 ?
			    20 : 40) + x->standee;
	}
	return 99 * 100;
}

/* Can figure f standing on hex h attack enemy e with profile p. */
static int
attack_from(const struct game *g, int h, int e, const struct prof *p)
{
	const struct dg *s = &g->s;

	return g_range(g, s->hex[h].q, s->hex[h].r, s->fig[e].q,
	    s->fig[e].r) <= (p->range > 0 ? p->range : 1) &&
	    g_los(g, s->hex[h].q, s->hex[h].r, s->fig[e].q, s->fig[e].r);
}

static int hits_from(const struct game *g, int f, int h, int e,
    const struct prof *p);

/* Focus of f (§12.4), or -1. */
static int
focus_of(const struct game *g, int f, const struct prof *p)
{
	const struct dg *s = &g->s;
	int cost[MAXHEX], prev[MAXHEX], e, h, best = -1;
	int bk1 = 0, bk2 = 0, bk3 = 0;
	int fly = flies(g, f);

	travel(s, f, s->fig[f].q, s->fig[f].r, fly ? 2 : 0, cost, prev);
	for (e = 0; e < s->nfig; e++) {
		int k1 = -1, k2, k3;

		if (!is_enemy_target(g, f, e))
			continue;
		for (h = 0; h < s->nhex; h++) {
			if (cost[h] < 0 || !can_end(s, f, h, fly))
				continue;
			if (k1 >= 0 && cost[h] >= k1)
				continue;
			if (hits_from(g, f, h, e, p))
				k1 = cost[h];
		}
		if (k1 < 0)
			continue;
		k2 = fig_range_g(g, f, e);
		k3 = order_pos(g, e);
		if (best < 0 || k1 < bk1 || (k1 == bk1 && (k2 < bk2 ||
		    (k2 == bk2 && k3 < bk3)))) {
			best = e;
			bk1 = k1;
			bk2 = k2;
			bk3 = k3;
		}
	}
	return best;
}

/*
 * Secondary rank of enemy e among f's possible extra targets (§12.5 step
 * 2): how many enemies other than the focus F are strictly better by
 * (proximity from the monster's current hex, turn-order position); equal
 * pairs share a rank.  The ranking is the same from every candidate hex.
 */
static int
sec_rank(const struct game *g, int f, int F, int e)
{
	const struct dg *s = &g->s;
	int pe = fig_range_g(g, f, e), oe = order_pos(g, e), x, r = 0;

	for (x = 0; x < s->nfig; x++) {
		int px, ox;

		if (x == F || x == e || !is_enemy_target(g, f, x))
			continue;
		px = fig_range_g(g, f, x);
		ox = order_pos(g, x);
		r += px < pe || (px == pe && ox < oe);
	}
	return r;
}

/*
 * Score of the extras ex[0..n) of a group attacked from hex h: the
 * secondary-rank code (their ranks in ascending order, base 32: lower is
 * better, which for groups of one size is the spec's "more targets of
 * better rank") and how many would be attacked with disadvantage.  Sorts
 * ex by rank (then figure id): the order they are attacked in.
 */
static void
extras_score(const struct game *g, int f, int F, int h, int ranged, int *ex,
    int n, int *sec, int *disx)
{
	const struct dg *s = &g->s;
	int rk[MAXTG], i, j;

	for (i = 0; i < n; i++)
		rk[i] = sec_rank(g, f, F, ex[i]);
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && (rk[j] < rk[j - 1] || (rk[j] == rk[j - 1] &&
		    ex[j] < ex[j - 1])); j--) {
			int t = rk[j];

			rk[j] = rk[j - 1];
			rk[j - 1] = t;
			t = ex[j];
			ex[j] = ex[j - 1];
			ex[j - 1] = t;
		}
	*sec = 0;
	*disx = 0;
	for (i = 0; i < n && i < 5; i++)
		*sec = *sec * 32 + (rk[i] < 31 ? rk[i] : 31);
	for (i = 0; i < n; i++)
		*disx += ranged && adjacent(s, s->hex[h].q, s->hex[h].r,
		    s->fig[ex[i]].q, s->fig[ex[i]].r);
}

/*
 * The best area placement of attack p->ab from hex h that covers focus F
 * (§12.5 step 2: every placement is a group): the most targets, then the
 * better secondary ranks, then the fewest extras with disadvantage; the
 * first in canonical order (anchor q, r, orientation) among equals.  The
 * extras go to ex (ordered by rank); returns the group size, 0 when no
 * placement from h covers F.
 */
static int
aoe_group(const struct game *g, int f, int h, int F, const struct prof *p,
    int *ex, int *sec, int *disx)
{
	const struct dg *s = &g->s;
	struct ability a = *p->ab;
	int o, i, best = 0, bq = 0, br = 0;

	a.range = p->range;
	*sec = 0;
	*disx = 0;
	for (o = 0; o < 12; o++)
		for (i = 0; i < a.naoe; i++) {
			int dq, dr, q, r, tg[MAXTG], n, inr, k, has = 0, m = 0;
			int sc, dx, x[MAXTG];

			refd_hex_orient(a.aoe[i][0], a.aoe[i][1], o, &dq, &dr);
			q = s->fig[F].q - dq;
			r = s->fig[F].r - dr;
			if (a.grey && (q != s->hex[h].q || r != s->hex[h].r))
				continue;
			n = aoe_targets_from(g, f, s->hex[h].q, s->hex[h].r,
			    &a, q, r, o, tg, &inr);
			for (k = 0; k < n; k++) {
				if (tg[k] == F)
					has = 1;
				else
					x[m++] = tg[k];
			}
			if (!inr || !has)
				continue;
			extras_score(g, f, F, h, p->ranged, x, m, &sc, &dx);
			if (best > 0 && (n < best || (n == best && (sc > *sec ||
			    (sc == *sec && (dx > *disx || (dx == *disx &&
			    (q > bq || (q == bq && r >= br)))))))))
				continue;
			best = n;
			*sec = sc;
			*disx = dx;
			bq = q;
			br = r;
			memcpy(ex, x, (size_t)m * sizeof(x[0]));
		}
	return best;
}

/* Can f standing on hex h attack enemy e with profile p (an area attack:
 * some placement from h covers e). */
static int
hits_from(const struct game *g, int f, int h, int e, const struct prof *p)
{
	int ex[MAXTG], sec, disx;

	if (p->aoe)
		return aoe_group(g, f, h, e, p, ex, &sec, &disx) > 0;
	return attack_from(g, h, e, p);
}

/*
 * The best target group from hex h around focus F (§12.5 step 2): its
 * size, the secondary-rank code of its extra targets (their ranks by
 * proximity from the monster's current hex, then turn order, ascending:
 * lower is better) and how many extras would be attacked with
 * disadvantage.  For an area attack the group is the best placement's.
 */
static int
group_eval(const struct game *g, int f, int h, int F, const struct prof *p,
    int *sec, int *disx)
{
	const struct dg *s = &g->s;
	int cand[MAXFIG], rank[MAXFIG], nc = 0, e, i, n = 1, ex[MAXTG], nx = 0;

	*sec = 0;
	*disx = 0;
	if (p->aoe)
		return aoe_group(g, f, h, F, p, ex, sec, disx);
	if (p->target <= 1)
		return 1;
	for (e = 0; e < s->nfig; e++)
		if (e != F && is_enemy_target(g, f, e) &&
		    attack_from(g, h, e, p)) {
			rank[nc] = sec_rank(g, f, F, e);
			cand[nc++] = e;
		}
	/* take the best-ranked extras (by figure id among equals) */
	while (n < p->target && nc > 0 && nx < MAXTG) {
		int b = 0;

		for (i = 1; i < nc; i++)
			if (rank[i] < rank[b] || (rank[i] == rank[b] &&
			    cand[i] < cand[b]))
				b = i;
		ex[nx++] = cand[b];
		cand[b] = cand[nc - 1];
		rank[b] = rank[nc - 1];
		nc--;
		n++;
	}
	extras_score(g, f, F, h, p->ranged, ex, nx, sec, disx);
	return n;
}

/* Destination of f towards focus F with mp points (§12.5). */
static void
add_tie(const struct dg *s, int *ties, int *nt, int h)
{
	int i, j;

	if (*nt >= 16)
		return;
	/* canonical order: q, then r (§0) */
	for (i = 0; i < *nt; i++)
		if (s->hex[h].q < s->hex[ties[i]].q ||
		    (s->hex[h].q == s->hex[ties[i]].q &&
		    s->hex[h].r < s->hex[ties[i]].r))
			break;
	for (j = *nt; j > i; j--)
		ties[j] = ties[j - 1];
	ties[i] = h;
	(*nt)++;
}

/*
 * Destinations of f towards focus F with mp points (§12.5): the equally
 * good hexes in canonical order into ties[], their number returned.
 */
static int
destination(const struct game *g, int f, int F, const struct prof *p,
    int mp, int *cost, int *prev, int *ties)
{
	const struct dg *s = &g->s;
	int fly = flies(g, f);
	int h, best = -1, key[7] = { 0 }, k[7], i, ideal[MAXHEX], nid = 0;
	int start = hex_at(s, s->fig[f].q, s->fig[f].r);

	travel(s, f, s->fig[f].q, s->fig[f].r, fly ? 2 : 0, cost, prev);
	for (h = 0; h < s->nhex; h++) {
		if (cost[h] < 0 || !can_end(s, f, h, fly) ||
		    !hits_from(g, f, h, F, p))
			continue;
		k[0] = cost[h] / 1000;
		k[1] = cost[h] % 1000 <= mp ? 0 : 1;
		k[2] = p->ranged && adjacent(s, s->hex[h].q, s->hex[h].r,
		    s->fig[F].q, s->fig[F].r);
		k[3] = -group_eval(g, f, h, F, p, &k[5], &k[6]);
		k[4] = cost[h] % 1000;
		for (i = 0; i < 7 && best >= 0; i++)
			if (k[i] != key[i])
				break;
		if (best >= 0 && i == 7) {
			ideal[nid++] = h;
			continue;
		}
		if (best < 0 || k[i] < key[i]) {
			best = h;
			memcpy(key, k, sizeof(key));
			nid = 0;
			ideal[nid++] = h;
		}
	}
	if (best < 0) {
		ties[0] = start;
		return 1;
	}
	if (key[1] == 0) {
		int nt = 0;

		for (i = 0; i < nid; i++)
			add_tie(s, ties, &nt, ideal[i]);
		return nt;
	}
	/* out of reach: get as close as possible to an ideal hex */
	{
		int c2[MAXHEX], p2[MAXHEX], x, nt = 0;
		int b1 = -1, b2 = 0, b3 = 0;

		for (x = 0; x < s->nhex; x++) {
			int j;

			if (cost[x] < 0 || cost[x] % 1000 > mp ||
			    !can_end(s, f, x, fly))
				continue;
			travel(s, f, s->hex[x].q, s->hex[x].r, fly ? 2 : 0, c2,
			    p2);
			for (j = 0; j < nid; j++) {
				int d = ideal[j], t1, t2, t3;

				if (c2[d] < 0)
					continue;
				t1 = cost[x] / 1000 + c2[d] / 1000;
				t2 = c2[d] % 1000;
				t3 = cost[x] % 1000;
				if (b1 < 0 || t1 < b1 || (t1 == b1 && (t2 < b2 ||
				    (t2 == b2 && t3 < b3)))) {
					b1 = t1;
					b2 = t2;
					b3 = t3;
					nt = 0;
					add_tie(s, ties, &nt, x);
				} else if (t1 == b1 && t2 == b2 && t3 == b3) {
					int dup = 0, q;

					for (q = 0; q < nt; q++)
						dup |= ties[q] == x;
					if (!dup)
						add_tie(s, ties, &nt, x);
				}
			}
		}
		/* travel() was reused: recompute from the start */
		travel(s, f, s->fig[f].q, s->fig[f].r, fly ? 2 : 0, cost, prev);
		if (nt == 0)
			ties[nt++] = start;
		return nt;
	}
}

/* Walk f along rpath[0..n) (rpath[0] is the destination): the event,
 * then hex by hex with traps and hazards (§12.5 step 6). */
static void
monster_walk(struct game *g, int f, const int *rpath, int n)
{
	struct dg *s = &g->s;
	int fly = flies(g, f), i;
	refd_mpw *w;

	w = evb("monster_move");
	refd_mpw_kint(w, "fig", f);
	refd_mpw_kint(w, "focus", s->mt_focus);
	write_path(s, w, rpath, n, 1);
	ev(g, REFD_SEAT_PUBLIC, w);
	for (i = n - 1; i >= 0; i--) {
		s->fig[f].q = s->hex[rpath[i]].q;
		s->fig[f].r = s->hex[rpath[i]].r;
		if (!fly)
			enter_hex(g, f, rpath[i], -1);
		if (!s->fig[f].alive)
			return;
	}
}

/* Move f to hex h along its best travel path (§12.5 step 3). */
void
monster_move_to(struct game *g, int f, int h)
{
	struct dg *s = &g->s;
	int cost[MAXHEX], prev[MAXHEX], path[MAXHEX], n = 0;
	int fly = flies(g, f);
	int start = hex_at(s, s->fig[f].q, s->fig[f].r);

	travel(s, f, s->fig[f].q, s->fig[f].r, fly ? 2 : 0, cost, prev);
	while (h >= 0 && h != start && n < MAXHEX) {
		path[n++] = h;
		h = prev[h];
	}
	monster_walk(g, f, path, n);
}

/*
 * Paths of equal best cost to a destination that trigger different
 * negative hexes (§12.5 step 3: ties between paths are the players'; they
 * matter only for the traps and hazards entered, as equal costs enter as
 * many).  One path per set of triggered hexes: the first in canonical
 * order (hex by hex, q then r), the sets ordered by those paths.
 */
#define MAXPL 24
#define MAXPO 8
struct pathset {
	int n, len[MAXPO], hex[MAXPO][MAXPL];	/* in walking order */
	int budget;
};

static int
path_cmp(const struct dg *s, const int *a, int na, const int *b, int nb)
{
	int i;

	for (i = 0; i < na && i < nb; i++) {
		if (s->hex[a[i]].q != s->hex[b[i]].q)
			return s->hex[a[i]].q < s->hex[b[i]].q ? -1 : 1;
		if (s->hex[a[i]].r != s->hex[b[i]].r)
			return s->hex[a[i]].r < s->hex[b[i]].r ? -1 : 1;
	}
	return na - nb;
}

static int
same_negatives(const struct dg *s, const int *a, int na, const int *b,
    int nb)
{
	int i = 0, j = 0;

	for (;;) {
		while (i < na && s->hex[a[i]].ov != OV_TRAP &&
		    s->hex[a[i]].ov != OV_HAZARD)
			i++;
		while (j < nb && s->hex[b[j]].ov != OV_TRAP &&
		    s->hex[b[j]].ov != OV_HAZARD)
			j++;
		if (i == na || j == nb)
			return i == na && j == nb;
		if (a[i++] != b[j++])
			return 0;
	}
}

static void
path_add(const struct dg *s, struct pathset *ps, const int *p, int n)
{
	int i, k;

	for (i = 0; i < ps->n; i++)
		if (same_negatives(s, ps->hex[i], ps->len[i], p, n)) {
			if (path_cmp(s, p, n, ps->hex[i], ps->len[i]) < 0) {
				memcpy(ps->hex[i], p, (size_t)n * sizeof(p[0]));
				ps->len[i] = n;
			}
			return;
		}
	if (ps->n >= MAXPO)
		return;
	ps->len[ps->n] = n;
	memcpy(ps->hex[ps->n], p, (size_t)n * sizeof(p[0]));
	ps->n++;
	/* keep the sets ordered by their canonical paths */
	for (k = ps->n - 1; k > 0 && path_cmp(s, ps->hex[k], ps->len[k],
	    ps->hex[k - 1], ps->len[k - 1]) < 0; k--) {
		int t[MAXPL], tl = ps->len[k];

		memcpy(t, ps->hex[k], sizeof(t));
		memcpy(ps->hex[k], ps->hex[k - 1], sizeof(t));
		memcpy(ps->hex[k - 1], t, sizeof(t));
		ps->len[k] = ps->len[k - 1];
		ps->len[k - 1] = tl;
	}
}

/* Backwards from v to the start over the best-cost steps; back[] holds
 * the hexes from the destination down to v. */
static void
path_back(const struct dg *s, int f, const int *cost, int start, int v,
    int *back, int depth, struct pathset *ps)
{
	int d, i, fw[MAXPL];

	if (ps->budget <= 0 || depth >= MAXPL)
		return;
	if (v == start) {
		ps->budget--;
		for (i = 0; i < depth; i++)
			fw[i] = back[depth - 1 - i];
		path_add(s, ps, fw, depth);
		return;
	}
	back[depth] = v;
	for (d = 0; d < 6; d++) {
		int uq = s->hex[v].q + refd_hex_dq[d];
		int ur = s->hex[v].r + refd_hex_dr[d];
		int u = hex_at(s, uq, ur), c;

		if (u < 0 || cost[u] < 0 || !adjacent(s, uq, ur, s->hex[v].q,
		    s->hex[v].r))
			continue;
		c = step_cost(s, f, v, 0);
		if (c < 0 || cost[u] + c != cost[v])
			continue;
		path_back(s, f, cost, start, u, back, depth + 1, ps);
	}
}

static void
path_options(const struct game *g, int f, int h, struct pathset *ps)
{
	const struct dg *s = &g->s;
	int cost[MAXHEX], prev[MAXHEX], back[MAXPL];
	int start = hex_at(s, s->fig[f].q, s->fig[f].r);

	memset(ps, 0, sizeof(*ps));
	ps->budget = 4096;
	if (flies(g, f))
		return;
	travel(s, f, s->fig[f].q, s->fig[f].r, 0, cost, prev);
	if (h < 0 || cost[h] < 1000)
		return;	/* no negative hex on the way: every path is alike */
	path_back(s, f, cost, start, h, back, 0, ps);
}

/*
 * Move f to h; when equally good paths trigger different traps or
 * hazards, the players choose (§12.5 step 3, §17 AI_TIE).  Returns 1 when
 * it waits for that decision.
 */
int
monster_go(struct game *g, int f, int h)
{
	struct pathset ps;
	int opts[MAXPO], i;

	path_options(g, f, h, &ps);
	if (ps.n < 2) {
		monster_move_to(g, f, h);
		return 0;
	}
	for (i = 0; i < ps.n; i++)
		opts[i] = i;
	ai_ask(g, f, 3, h, opts, ps.n);
	return 1;
}

/* The players' path (option i of the path tie to h). */
void
monster_go_path(struct game *g, int f, int h, int i)
{
	struct pathset ps;
	int rp[MAXPL], k;

	path_options(g, f, h, &ps);
	if (i < 0 || i >= ps.n) {
		monster_move_to(g, f, h);
		return;
	}
	for (k = 0; k < ps.len[i]; k++)
		rp[k] = ps.hex[i][ps.len[i] - 1 - k];
	monster_walk(g, f, rp, ps.len[i]);
}

/*
 * The move of a monster or summon: to the best destination, or, when
 * several are equally good, a decision of the players (§12.5, §17
 * AI_TIE).  Returns 1 when it waits for that decision.
 */
static int
monster_move(struct game *g, int f, int F, const struct prof *p, int mp)
{
	struct dg *s = &g->s;
	int cost[MAXHEX], prev[MAXHEX], ties[16], nt;
	struct sight_memo memo;

	if (mp <= 0 || (s->fig[f].conds & C_IMMOBILIZE))
		return 0;
	memo_begin(g, &memo);
	nt = destination(g, f, F, p, mp, cost, prev, ties);
	memo_end(g);
	if (nt == 1)
		return monster_go(g, f, ties[0]);
	ai_ask(g, f, 0, 0, ties, nt);
	return 1;
}

/* The ability card a monster or summon uses this turn. */
static const struct mcard summon_card = { "Summon AI", 99, 0, 2, {
	{ .kind = A_MOVE, .target = 1 }, { .kind = A_ATTACK, .target = 1 } } };

static const struct mcard *
mcard_of(const struct game *g, int f)
{
	const struct dg *s = &g->s;
	int d;

	if (s->fig[f].kind == F_SUMMON)
		return &summon_card;
	d = g->c->type[s->fig[f].type].deck;
	if (s->ad_cur[d] < 0)
		return NULL;
	return &g->c->deck[d].card[s->ad_cur[d]];
}

static void
mstats(const struct game *g, int f, int *move, int *attack, int *range,
    int *poison)
{
	const struct fig *x = &g->s.fig[f];
	int L = g->s.mlevel, rk = x->rank == 2 ? 0 : x->rank;

	if (x->kind == F_SUMMON) {
		*move = x->move;
		*attack = x->attack;
		*range = x->range;
		*poison = 0;
		return;
	}
	*move = g->c->type[x->type].move[L][rk];
	*attack = g->c->type[x->type].attack[L][rk];
	*range = g->c->type[x->type].range[L][rk];
	*poison = g->c->type[x->type].poison[L][rk];
}

static void
profile(const struct game *g, int f, const struct mcard *mc, struct prof *p)
{
	int mv, at, rg, po, i;

	mstats(g, f, &mv, &at, &rg, &po);
	memset(p, 0, sizeof(*p));
	p->target = 1;
	p->range = 1;
	for (i = 0; mc != NULL && i < mc->nab; i++) {
		const struct ability *a = &mc->ab[i];

		if (a->kind != A_ATTACK)
			continue;
		if (a->absolute)
			p->range = a->range;
		else if (rg > 0)
			p->range = rg + a->range;
		else
			p->range = 1;
		if (a->all_within)
			p->range = a->all_within;
		if (a->grey)
			p->range = 1;
		p->ranged = p->range > 1 || (rg > 0 && !a->grey);
		p->target = a->target;
		p->aoe = a->naoe > 0;
		p->ab = a;
		return;
	}
}

/* Targets of a monster attack (§12.6): focus first. */
static int
monster_targets(const struct game *g, int f, int F,
    const struct ability *ab, const struct prof *p, int *tg)
{
	const struct dg *s = &g->s;
	int h = hex_at(s, s->fig[f].q, s->fig[f].r), n = 0, e, k;
	struct prof pa;

	if (ab->all_within) {
		for (e = 0; e < s->nfig && n < MAXTG; e++)
			if (is_enemy_target(g, f, e) &&
			    fig_range(s, f, e) <= ab->all_within &&
			    fig_los(s, f, e))
				tg[n++] = e;
		return n;
	}
	pa = *p;
	pa.ab = ab;
	pa.aoe = ab->naoe > 0;
	if (F < 0 || !s->fig[F].alive || !hits_from(g, f, h, F, &pa))
		return 0;
	tg[n++] = F;
	if (pa.aoe) {
		/* the best placement covering the focus (§12.5, §12.6) */
		int ex[MAXTG], sec, disx, m;

		m = aoe_group(g, f, h, F, &pa, ex, &sec, &disx);
		for (k = 0; k + 1 < m && n < MAXTG; k++)
			tg[n++] = ex[k];
		return n;
	}
	while (n < p->target) {
		int best = -1, b2 = 0, b3 = 0;

		for (e = 0; e < s->nfig; e++) {
			int k2, k3, dup = 0;

			for (k = 0; k < n; k++)
				dup |= tg[k] == e;
			if (dup || !is_enemy_target(g, f, e) ||
			    !attack_from(g, h, e, p))
				continue;
			k2 = fig_range(s, f, e);
			k3 = order_pos(g, e);
			if (best < 0 || k2 < b2 || (k2 == b2 && k3 < b3)) {
				best = e;
				b2 = k2;
				b3 = k3;
			}
		}
		if (best < 0)
			break;
		tg[n++] = best;
	}
	return n;
}

/*
 * Ask the players to settle an AI tie of kind k among n options (§17):
 * 0 destination, 1 heal target, 2 summon hex, 3 path to hex val, 4 a wild
 * infusion's element, 5 a wild augment's element, 6 where a grounded
 * figure lands.  The lowest seat in
 * play answers; option 0 (the first in canonical order) is the default.
 */
static const char *const ai_about[] = { "destination", "heal target",
	"summon hex", "path", "wild infusion", "wild consumption",
	"landing hex" };

static void
ai_ask(struct game *g, int f, int kind, int val, const int *opts, int n)
{
	struct dg *s = &g->s;
	refd_mpw *w;
	int i;

	s->ai_active = 1;
	s->ai_fig = f;
	s->ai_kind = kind;
	s->ai_val = val;
	s->ai_n = n > 16 ? 16 : n;
	memcpy(s->ai_hex, opts, (size_t)s->ai_n * sizeof(opts[0]));
	s->ai_seat = lowest_seat(g);
	w = evb("monster_tie");
	refd_mpw_kint(w, "fig", f);
	refd_mpw_kint(w, "seat", s->ai_seat);
	refd_mpw_kstr(w, "about", ai_about[kind]);
	if (kind == 3) {
		struct pathset ps;

		path_options(g, f, val, &ps);
		refd_mpw_karray(w, "to");
		refd_mpw_int(w, s->hex[val].q);
		refd_mpw_int(w, s->hex[val].r);
		refd_mpw_end(w);
		refd_mpw_karray(w, "paths");
		for (i = 0; i < ps.n; i++) {
			refd_mpw_map(w);
			write_path(s, w, ps.hex[i], ps.len[i], 0);
			refd_mpw_end(w);
		}
		refd_mpw_end(w);
	} else if (kind == 4 || kind == 5) {
		refd_mpw_karray(w, "elements");
		for (i = 0; i < s->ai_n; i++)
			refd_mpw_str(w, elem_name[opts[i]]);
		refd_mpw_end(w);
	} else {
		refd_mpw_karray(w, kind == 1 ? "targets" : "hexes");
		for (i = 0; i < s->ai_n; i++) {
			if (kind == 1) {
				refd_mpw_int(w, opts[i]);
				continue;
			}
			refd_mpw_array(w);
			refd_mpw_int(w, s->hex[opts[i]].q);
			refd_mpw_int(w, s->hex[opts[i]].r);
			refd_mpw_end(w);
		}
		refd_mpw_end(w);
	}
	refd_mpw_kint(w, "default", 0);
	ev(g, REFD_SEAT_PUBLIC, w);
}

/*
 * The wild infusions of a monster card (§12.7): the players pick each
 * element among those not yet infused this turn.  Returns 1 when it asks.
 */
int
monster_wild_infuse(struct game *g, int f, int left)
{
	int opts[NELEM], n = 0, i;

	for (; left > 0; left--) {
		n = 0;
		for (i = 0; i < NELEM; i++)
			if (!(g->s.infuse_now >> i & 1))
				opts[n++] = i;
		if (n == 0)
			return 0;
		if (n > 1) {
			ai_ask(g, f, 4, left, opts, n);
			return 1;
		}
		infuse(g, 0, 1, opts[0]);
	}
	return 0;
}

/* A wild infusion's element chosen by the players, then the rest. */
void
monster_infuse_pick(struct game *g, int f, int e, int left)
{
	infuse(g, 0, 1, e);
	monster_wild_infuse(g, f, left - 1);
}

void
monster_heal_on(struct game *g, int f, int target, int value)
{
	refd_mpw *w;

	heal_fig(g, target, value);
	w = evb("monster_heal");
	refd_mpw_kint(w, "fig", f);
	refd_mpw_kint(w, "target", target);
	ev(g, REFD_SEAT_PUBLIC, w);
}

/*
 * Monster heal (§12.7, A-24): the ally in range and sight (or itself)
 * that lost the most HP; if none did, the poisoned or wounded one
 * nearest, else itself.  Ties: the players.  Returns 1 when it asks.
 */
static int
monster_heal(struct game *g, int f, const struct ability *ab)
{
	struct dg *s = &g->s;
	int e, rng = ab->range > 0 ? ab->range : 0, most = 0, near = 1000;
	int ties[MAXFIG], nt = 0;

	for (e = 0; e < s->nfig; e++) {
		int lost;

		if (!s->fig[e].alive || (e != f && (enemies(s, f, e) ||
		    fig_range(s, f, e) > rng || !fig_los(s, f, e))))
			continue;
		if (s->fig[e].kind == F_OBSTACLE)
			continue;
		lost = s->fig[e].maxhp - s->fig[e].hp;
		if (lost > most) {
			most = lost;
			nt = 0;
		}
		if (lost == most && lost > 0)
			ties[nt++] = e;
	}
	if (most == 0)
		for (e = 0; e < s->nfig; e++) {
			int d;

			if (!s->fig[e].alive || !(s->fig[e].conds &
			    (C_POISON | C_WOUND)) || (e != f &&
			    (enemies(s, f, e) || fig_range(s, f, e) > rng ||
			    !fig_los(s, f, e))) || s->fig[e].kind == F_OBSTACLE)
				continue;
			d = e == f ? 0 : fig_range(s, f, e);
			if (d < near) {
				near = d;
				nt = 0;
			}
			if (d == near)
				ties[nt++] = e;
		}
	if (nt == 0)
		ties[nt++] = f;
	if (nt > 1) {
		ai_ask(g, f, 1, ab->value, ties, nt);
		return 1;
	}
	monster_heal_on(g, f, ties[0], ab->value);
	return 0;
}

void
monster_summon_at(struct game *g, int type, int h)
{
	struct dg *s = &g->s;
	int fig = place_monster(g, type, 0, s->hex[h].q, s->hex[h].r, 0, 1);

	if (fig >= 0)
		s->fig[fig].born_round = s->round;
}

/* Monster summon (§12.7): an empty hex next to the summoner, nearest an
 * enemy; ties: the players.  Returns 1 when it asks. */
static int
monster_summon(struct game *g, int f, const struct ability *ab)
{
	struct dg *s = &g->s;
	int d, bd = 1000, e, ties[6], nt = 0;

	for (d = 0; d < 6; d++) {
		int q = s->fig[f].q + refd_hex_dq[d];
		int r = s->fig[f].r + refd_hex_dr[d];
		int h = hex_at(s, q, r), near = 1000;

		if (h < 0 || !adjacent(s, s->fig[f].q, s->fig[f].r, q, r) ||
		    fig_at(s, q, r) >= 0 ||
		    (s->hex[h].ov != OV_NONE && s->hex[h].ov != OV_PLATE))
			continue;
		for (e = 0; e < s->nfig; e++)
			if (s->fig[e].alive && enemies(s, f, e) &&
			    range_between(s, q, r, s->fig[e].q, s->fig[e].r) <
			    near)
				near = range_between(s, q, r, s->fig[e].q,
				    s->fig[e].r);
		if (near < bd) {
			bd = near;
			nt = 0;
		}
		if (near == bd)
			add_tie(s, ties, &nt, h);
	}
	if (nt == 0)
		return 0;
	if (nt > 1) {
		ai_ask(g, f, 2, ab->summon, ties, nt);
		return 1;
	}
	monster_summon_at(g, ab->summon, ties[0]);
	return 0;
}

static void
monster_loot(struct game *g, int f, int range)
{
	struct dg *s = &g->s;
	int h, n = 0;
	refd_mpw *w;

	for (h = 0; h < s->nhex; h++)
		if (s->hex[h].money > 0 && range_between(s, s->fig[f].q,
		    s->fig[f].r, s->hex[h].q, s->hex[h].r) <= range &&
		    los(s, s->fig[f].q, s->fig[f].r, s->hex[h].q,
		    s->hex[h].r)) {
			n += s->hex[h].money;
			s->hex[h].money = 0;
		}
	w = evb("monster_loot");
	refd_mpw_kint(w, "fig", f);
	refd_mpw_kint(w, "money_removed", n);
	ev(g, REFD_SEAT_PUBLIC, w);
}

/* End of any figure's turn: condition expiry, infusions (§5.4, §12.3). */
static void
end_fig_turn(struct game *g, int f)
{
	struct dg *s = &g->s;
	int i;

	s->fig[f].conds &= ~(C_EXPIRING & ~s->fig[f].fresh);
	s->fig[f].fresh = 0;
	for (i = 0; i < NELEM; i++)
		if (s->infuse_now >> i & 1)
			s->elem[i] = 2;
	s->infuse_now = 0;
}

/*
 * A monster's wild augment (§12.7, §17): when the named elements are
 * there and two or more others could pay the wild one, the players pick
 * it.  Returns 1 when it asks.
 */
static int
wild_ask(struct game *g, int f, int mask)
{
	int opts[NELEM], n = 0, i, avail = 0;

	for (i = 0; i < NELEM; i++)
		if (g->s.elem[i] > 0)
			avail |= 1 << i;
	if ((avail & mask) != mask)
		return 0;
	for (i = 0; i < NELEM; i++)
		if ((avail & ~mask) >> i & 1)
			opts[n++] = i;
	if (n < 2)
		return 0;
	ai_ask(g, f, 5, mask, opts, n);
	return 1;
}

/*
 * One step of the monster or summon turn of mt_fig.  Returns when the
 * turn is over (mt_active = 0) or an attack has started.
 */
static void
monster_turn(struct game *g)
{
	struct dg *s = &g->s;
	int f = s->mt_fig, mv, at, rg, po;
	const struct mcard *mc = mcard_of(g, f);
	struct prof p;

	if (!s->fig[f].alive || mc == NULL) {
		s->mt_active = 0;
		return;
	}
	mstats(g, f, &mv, &at, &rg, &po);
	profile(g, f, mc, &p);
	if (s->mt_ab < 0) {
		int i;
		refd_mpw *w;
		char nm[48];

		w = evb("monster_turn");
		refd_mpw_kint(w, "fig", f);
		refd_mpw_kstr(w, "name", fig_name(g, f, nm, sizeof(nm)));
		refd_mpw_kstr(w, "card", mc->name);
		ev(g, REFD_SEAT_PUBLIC, w);
		if (s->fig[f].conds & C_WOUND) {
			damage(g, f, 1, -1, "wound", 0);
			if (!s->fig[f].alive) {
				s->mt_active = 0;
				return;
			}
		}
		for (i = 0; i < mc->nab; i++) {
			if (mc->ab[i].kind == A_SHIELD)
				s->fig[f].shield_card += mc->ab[i].value;
			if (mc->ab[i].kind == A_RETALIATE)
				s->fig[f].ret_card += mc->ab[i].value;
		}
		s->mt_ab = 0;
		if (s->fig[f].conds & C_STUN) {
			s->mt_ab = mc->nab;
		} else {
			struct sight_memo memo;

			memo_begin(g, &memo);
			s->mt_focus = focus_of(g, f, &p);
			memo_end(g);
			w = evb("focus");
			refd_mpw_kint(w, "fig", f);
			refd_mpw_kint(w, "focus", s->mt_focus);
			if (s->mt_focus >= 0)
				refd_mpw_kstr(w, "focus_name", fig_name(g,
				    s->mt_focus, nm, sizeof(nm)));
			else
				refd_mpw_kstr(w, "why", "no enemy can be "
				    "attacked from any reachable hex");
			ev(g, REFD_SEAT_PUBLIC, w);
		}
	}
	while (s->mt_ab < mc->nab && s->fig[f].alive) {
		const struct ability *ab = &mc->ab[s->mt_ab++];
		int F = s->mt_focus;

		switch (ab->kind) {
		case A_MOVE:
			if (F >= 0 && monster_move(g, f, F, &p,
			    mv + ab->value))
				return;	/* the players pick the destination */
			break;
		case A_ATTACK: {
			struct atk *a = &s->atk;
			int bonus = 0, bconds = 0;

			if (s->fig[f].conds & C_DISARM)
				break;
			if (F >= 0 && !s->fig[F].alive) {
				struct sight_memo memo;

				memo_begin(g, &memo);
				F = s->mt_focus = focus_of(g, f, &p);
				memo_end(g);
			}
			if (F < 0 && !ab->all_within)
				break;
			memset(a, 0, sizeof(*a));
			a->ntg = monster_targets(g, f, F, ab, &p, a->tg);
			if (a->ntg == 0)
				break;
			if (ab->consume || ab->any) {
				int t = s->fig[f].kind == F_MONSTER ?
				    s->fig[f].type : -1, pick = -1;

				if (ab->any && !(t >= 0 && (s->mt_consumed[t] &
				    (ab->consume | 64)) == (ab->consume | 64))) {
					if (s->ai_pick == 0 &&
					    wild_ask(g, f, ab->consume)) {
						s->mt_ab--;	/* again, once chosen */
						return;
					}
					pick = s->ai_pick - 1;
					s->ai_pick = 0;
				}
				if (t >= 0 && (s->mt_consumed[t] &
				    (ab->consume | 64)) ==
				    (ab->consume | 64)) {
					bonus = ab->bonus_attack;
					bconds = ab->bonus_conds;
				} else if (consume(g, ab->consume, ab->any, pick)) {
					bonus = ab->bonus_attack;
					bconds = ab->bonus_conds;
					if (t >= 0)
						s->mt_consumed[t] |=
						    ab->consume | 64;
				}
			}
			a->active = 1;
			a->fig = f;
			a->by_char = -1;
			a->value = (ab->absolute && ab->value > 0 &&
			    s->fig[f].rank == 2 ? 0 : at) + ab->value + bonus;
			if (a->value < 0)
				a->value = 0;
			a->range = p.range;
			a->ranged = p.ranged && ab->naoe == 0 ? 1 :
			    (ab->naoe > 0 && !ab->grey);
			a->pierce = ab->pierce;
			a->push = ab->push;
			a->pull = ab->pull;
			a->ground = ab->ground;
			a->conds = ab->conds | bconds | (po ? C_POISON : 0);
			return;
		}
		case A_HEAL:
			if (monster_heal(g, f, ab))
				return;	/* the players pick the target */
			break;
		case A_LOOT:
			monster_loot(g, f, ab->value);
			break;
		case A_SUMMON:
			if (monster_summon(g, f, ab))
				return;	/* the players pick the hex */
			break;
		case A_INFUSE:
			infuse(g, ab->infuse, 0, -1);
			if (ab->any > 0 && monster_wild_infuse(g, f, ab->any))
				return;	/* the players pick the element */
			break;
		default:
			break;
		}
	}
	if (s->fig[f].alive)
		end_fig_turn(g, f);
	s->mt_active = 0;
}

/* ----- characters ----- */

const struct half *
cur_half(const struct game *g, int ci)
{
	const struct chr *c = &g->s.ch[ci];

	if (c->cur_card < 0)
		return NULL;
	return &g->c->cls[c->cls].card[c->cur_card].h[c->cur_half];
}

static const struct ability default_attack = { .kind = A_ATTACK,
	.value = 2, .target = 1 };
static const struct ability default_move = { .kind = A_MOVE,
	.value = 2, .target = 1 };

const struct ability *
cur_ability(const struct game *g, int ci, struct ability *tmp)
{
	const struct chr *c = &g->s.ch[ci];
	const struct half *h = cur_half(g, ci);

	int st;

	if (h == NULL)
		return NULL;
	if (c->cur_default)
		return c->ab_i == 0 ? (c->cur_half == 0 ? &default_attack :
		    &default_move) : NULL;
	if (c->ab_i >= h->nab)
		return NULL;
	st = g->s.enh[c->cls][c->cur_card][c->cur_half];
	if (st == 0)
		return &h->ab[c->ab_i];
	/* enhancement stickers of the class (§2.9) */
	*tmp = h->ab[c->ab_i];
	enhance_apply(h, st, tmp, c->ab_i);
	return tmp;
}

static int
nab_of(const struct game *g, int ci)
{
	const struct chr *c = &g->s.ch[ci];

	if (c->cur_default)
		return 1;
	return cur_half(g, ci)->nab;
}

static void
half_done(struct game *g, int ci)
{
	struct dg *s = &g->s;
	struct chr *c = &s->ch[ci];
	const struct half *h = cur_half(g, ci);
	int bit = 1 << c->cur_card, i;
	const char *to;
	refd_mpw *w;

	if (c->cur_default) {
		c->disc |= bit;
		to = "discard";
	} else {
		for (i = 0; i < h->nab; i++)
			if (h->ab[i].kind == A_INFUSE &&
			    (c->ab_done || h->nab == 1))
				infuse(g, h->ab[i].infuse, h->ab[i].any,
				    c->any_elem - 1);
		if (c->ab_done && h->xp)
			c->xp += h->xp;
		if ((h->persistent || h->round) && c->ab_done) {
			c->active |= bit;
			c->slot[c->cur_card] = 0;
			to = "active";
		} else if (h->lost) {
			c->lost |= bit;
			to = "lost";
		} else {
			c->disc |= bit;
			to = "discard";
		}
	}
	c->played |= bit;
	c->halves |= 1 << c->cur_half;
	w = evb("card_done");
	refd_mpw_kint(w, "seat", ci);
	refd_mpw_kstr(w, "card", g->c->cls[c->cls].card[c->cur_card].id);
	refd_mpw_kstr(w, "to", to);
	refd_mpw_kint(w, "xp", c->xp);
	ev(g, REFD_SEAT_PUBLIC, w);
	c->cur_card = -1;
	s->ct = c->halves == 3 ? CT_END : CT_CHOOSE;
}

void
ability_done(struct game *g, int ci, int performed)
{
	struct chr *c = &g->s.ch[ci];
	struct ability tmp;
	const struct ability *a = cur_ability(g, ci, &tmp);

	if (performed) {
		c->ab_done = 1;
		if (a != NULL && a->xp && !c->cur_default)
			c->xp += a->xp;
	}
	c->ab_i++;
	if (c->ab_i >= nab_of(g, ci))
		half_done(g, ci);
}

static void
attack_done(struct game *g)
{
	struct dg *s = &g->s;
	struct atk *a = &s->atk;

	if (a->by_char >= 0)
		ability_done(g, a->by_char, a->xp);
}

/* Persistent "ward" shield (W-04): used when attacked (§5.6). */
int
ward(struct game *g, int ci)
{
	struct chr *c = &g->s.ch[ci];
	const struct cclass *cl = &g->c->cls[c->cls];
	int i, k;

	for (i = 0; i < cl->ncards; i++) {
		const struct half *h = &cl->card[i].h[1];

		if (!(c->active >> i & 1) || !h->persistent)
			continue;
		for (k = 0; k < h->nab; k++)
			if (h->ab[k].kind == A_WARD) {
				c->slot[i]++;
				if (c->slot[i] >= h->slots) {
					c->xp += h->slot_xp;
					c->active &= ~(1 << i);
					c->lost |= 1 << i;
				}
				return h->ab[k].value;
			}
	}
	return 0;
}

void
heal_fig(struct game *g, int f, int n)
{
	struct fig *x = &g->s.fig[f];
	int poisoned = (x->conds & C_POISON) != 0;
	refd_mpw *w;

	x->conds &= ~(C_POISON | C_WOUND);
	if (!poisoned) {
		x->hp += n;
		if (x->hp > x->maxhp)
			x->hp = x->maxhp;
	}
	w = evb("heal");
	refd_mpw_kint(w, "fig", f);
	refd_mpw_kint(w, "hp", x->hp);
	refd_mpw_kbool(w, "poison_removed", poisoned);
	ev(g, REFD_SEAT_PUBLIC, w);
}

static void
char_end_turn(struct game *g, int ci)
{
	struct dg *s = &g->s;
	struct chr *c = &s->ch[ci];
	int f = c->fig, h = hex_at(s, s->fig[f].q, s->fig[f].r);
	refd_mpw *w;

	if (s->fig[f].alive && h >= 0) {
		if (s->hex[h].money > 0 || s->hex[h].ov == OV_TREASURE) {
			w = evb("loot");
			refd_mpw_kint(w, "seat", ci);
			refd_mpw_kint(w, "money", s->hex[h].money);
			c->money += s->hex[h].money;
			s->hex[h].money = 0;
			if (s->hex[h].ov == OV_TREASURE) {
				c->gold += s->hex[h].val;
				refd_mpw_kint(w, "treasure_gold", s->hex[h].val);
				s->hex[h].ov = OV_NONE;
				if (s->mapi >= 0)
					s->looted |= 1 << s->mapi;
			}
			ev(g, REFD_SEAT_PUBLIC, w);
		}
		if (s->hex[h].ov == OV_PLATE && !s->plate_used && s->mapi >= 0 &&
		    g->c->map[s->mapi].plate_spawn_type >= 0) {
			const struct mapdef *m = &g->c->map[s->mapi];
			int t = m->plate_spawn_type, fg, had = type_present(g, t);

			s->plate_used = 1;
			if (fig_at(s, m->plate_spawn_q, m->plate_spawn_r) < 0) {
				fg = place_monster(g, t, 0, m->plate_spawn_q,
				    m->plate_spawn_r, 0, 1);
				if (fg >= 0 && !had)
					s->fig[fg].born_round = s->round;
			}
		}
	}
	end_fig_turn(g, f);
	c->bonus_move = c->bonus_attack = c->bonus_stun = c->bonus_adv = 0;
	if (victory_met(g))
		s->victory = 1;
}

#define popcount(x) __builtin_popcount((unsigned)(x))

/* ----- the round ----- */

/* This round's turn order as an "order" array member of w. */
void
write_order(const struct game *g, refd_mpw *w)
{
	const struct dg *s = &g->s;
	int i;

	refd_mpw_karray(w, "order");
	for (i = 0; i < s->nord; i++) {
		refd_mpw_map(w);
		if (s->ord[i].kind == O_CHAR)
			refd_mpw_kint(w, "seat", s->ord[i].idx);
		else if (s->ord[i].kind == O_SUMMON)
			refd_mpw_kint(w, "summon", s->ord[i].idx);
		else
			refd_mpw_kstr(w, "monster",
			    g->c->type[s->ord[i].idx].name);
		refd_mpw_kint(w, "init", s->ord[i].init);
		refd_mpw_end(w);
	}
	refd_mpw_end(w);
}

static void
reveal(struct game *g)
{
	struct dg *s = &g->s;
	int i, j, t;
	refd_mpw *w;

	for (t = 0; t < g->c->ntype; t++)
		if (type_present(g, t))
			ad_draw(g, t);
	s->nord = 0;
	for (i = 0; i < s->nch; i++) {
		struct chr *c = &s->ch[i];
		const struct cclass *cl = &g->c->cls[c->cls];

		if (c->exhausted)
			continue;
		if (c->rest) {
			c->init = 99;
			c->init2 = 99;
		} else {
			c->init = cl->card[c->lead].init;
			c->init2 = cl->card[c->lead == c->ca ? c->cb :
			    c->ca].init;
		}
		/* summons first, in the order they were summoned */
		for (j = 0; j < s->nfig; j++)
			if (s->fig[j].alive && s->fig[j].kind == F_SUMMON &&
			    s->fig[j].owner == i && s->nord < MAXORD) {
				s->ord[s->nord].kind = O_SUMMON;
				s->ord[s->nord].idx = j;
				s->ord[s->nord].init = c->init;
				s->ord[s->nord].init2 = c->init2 * 1000 +
				    i * 100 + s->fig[j].summon_seq % 100;
				s->nord++;
			}
		s->ord[s->nord].kind = O_CHAR;
		s->ord[s->nord].idx = i;
		s->ord[s->nord].init = c->init;
		s->ord[s->nord].init2 = c->init2 * 1000 + i * 100 + 99;
		s->nord++;
	}
	for (t = 0; t < g->c->ntype && s->nord < MAXORD; t++) {
		if (!type_present(g, t))
			continue;
		s->ord[s->nord].kind = O_TYPE;
		s->ord[s->nord].idx = t;
		s->ord[s->nord].init = card_init(g, t);
		s->ord[s->nord].init2 = 1000000 + t;
		s->nord++;
	}
	/* insertion sort: initiative, characters before monsters, second
	 * card, then seat (ties the players would settle: option 0) */
	for (i = 1; i < s->nord; i++) {
		struct ordent e = s->ord[i];

		for (j = i - 1; j >= 0; j--) {
			struct ordent *o = &s->ord[j];

			if (o->init < e.init || (o->init == e.init &&
			    o->init2 <= e.init2))
				break;
			s->ord[j + 1] = *o;
		}
		s->ord[j + 1] = e;
	}
	w = evb("reveal");
	refd_mpw_kint(w, "round", s->round);
	refd_mpw_karray(w, "plans");
	for (i = 0; i < s->nch; i++) {
		struct chr *c = &s->ch[i];

		if (c->exhausted)
			continue;
		refd_mpw_map(w);
		refd_mpw_kint(w, "seat", i);
		if (c->rest) {
			refd_mpw_kbool(w, "long_rest", 1);
		} else {
			refd_mpw_kstr(w, "lead",
			    g->c->cls[c->cls].card[c->lead].id);
			refd_mpw_kstr(w, "second", g->c->cls[c->cls].card[
			    c->lead == c->ca ? c->cb : c->ca].id);
		}
		refd_mpw_kint(w, "init", c->init);
		refd_mpw_end(w);
	}
	refd_mpw_end(w);
	write_order(g, w);
	ev(g, REFD_SEAT_PUBLIC, w);
	s->phase = PH_TURN;
	s->cur = 0;
	s->ct = CT_START;
	for (i = 0; i < s->nch; i++)
		g->dirty |= DIRTY_HAND(i);
	s->tie_from = 0;
	tie_find(g);
}

/*
 * Ties the players settle (§4.3): characters with equal initiatives on
 * both cards (or two long rests), or monster types with the same
 * initiative.  A unit is a character with its summons, or a type.
 */
void
tie_find(struct game *g)
{
	struct dg *s = &g->s;
	int k, m, j, nch;
	refd_mpw *w;

	s->tie_active = 0;
	for (k = s->tie_from; k < s->nord; k = m) {
		const struct ordent *e = &s->ord[k];
		int kind = e->kind == O_TYPE ? 2 : 1;

		for (m = k + 1; m < s->nord; m++) {
			const struct ordent *f = &s->ord[m];

			if (f->init != e->init || (f->kind == O_TYPE) !=
			    (kind == 2) || (kind == 1 &&
			    f->init2 / 1000 != e->init2 / 1000))
				break;
		}
		s->tie_n = 0;
		nch = 0;
		for (j = k; j < m; j++)
			if (kind == 2 || s->ord[j].kind == O_CHAR) {
				nch++;
				s->tie_unit[s->tie_n++] = j + 1;
			}
		if (nch < 2 || s->tie_n > 4)
			continue;
		s->tie_active = 1;
		s->tie_start = k;
		s->tie_kind = kind;
		s->tie_seat = 0;
		for (j = 0; j < s->nch; j++)
			if (!s->ch[j].exhausted) {
				s->tie_seat = j;
				break;
			}
		if (kind == 1)
			for (j = k; j < m; j++)
				if (s->ord[j].kind == O_CHAR) {
					s->tie_seat = s->ord[j].idx;
					break;
				}
		w = evb("order_tie");
		refd_mpw_kint(w, "seat", s->tie_seat);
		refd_mpw_karray(w, "tied");
		for (j = 0; j < s->tie_n; j++) {
			const struct ordent *u = &s->ord[s->tie_unit[j] - 1];

			if (u->kind == O_CHAR)
				refd_mpw_int(w, u->idx);
			else
				refd_mpw_str(w, g->c->type[u->idx].name);
		}
		refd_mpw_end(w);
		ev(g, REFD_SEAT_PUBLIC, w);
		return;
	}
}

/* Every order of the tied units, in lexicographic order. */
int
tie_perms(const struct game *g, int32_t perms[][4], int max)
{
	int n = g->s.tie_n, a, b, c, d, cnt = 0;

	for (a = 0; a < n; a++)
		for (b = 0; b < n; b++)
			for (c = 0; c < (n > 2 ? n : 1); c++)
				for (d = 0; d < (n > 3 ? n : 1); d++) {
					int p[4] = { a, b, c, d }, i, j, ok = 1;

					for (i = 0; i < n; i++)
						for (j = 0; j < i; j++)
							ok &= p[i] != p[j];
					if (!ok || cnt >= max)
						continue;
					memcpy(perms[cnt++], p, sizeof(p));
				}
	return cnt;
}

void
tie_apply(struct game *g, const int32_t *perm)
{
	struct dg *s = &g->s;
	struct ordent tmp[MAXORD];
	int i, j, n = 0, start = s->tie_start;
	refd_mpw *w;

	for (i = 0; i < s->tie_n; i++) {
		int u = perm[i];
		int from = u == 0 ? start : s->tie_unit[u - 1];
		int to = s->tie_unit[u];

		for (j = from; j < to; j++)
			tmp[n++] = s->ord[j];
	}
	memcpy(&s->ord[start], tmp, (size_t)n * sizeof(tmp[0]));
	s->tie_from = start + n;
	w = evb("order");
	write_order(g, w);
	ev(g, REFD_SEAT_PUBLIC, w);
	tie_find(g);
}

static int
sr_eligible(const struct game *g, int ci)
{
	const struct chr *c = &g->s.ch[ci];

	return !c->exhausted && popcount(c->disc) >= 2;
}

static void
start_round(struct game *g)
{
	struct dg *s = &g->s;
	int i;
	refd_mpw *w;

	s->round++;
	if (s->victory) {
		finish(g, 1, "the victory condition was met");
		return;
	}
	if (s->round > s->max_rounds) {
		finish(g, 0, "the round limit was reached");
		return;
	}
	s->phase = PH_PLAN;
	memset(s->mt_consumed, 0, sizeof(s->mt_consumed));
	for (i = 0; i < s->nfig; i++) {
		s->fig[i].acted = 0;
		s->fig[i].shield_card = 0;
		s->fig[i].ret_card = 0;
	}
	w = evb("round");
	refd_mpw_kint(w, "round", s->round);
	ev(g, REFD_SEAT_PUBLIC, w);
	for (i = 0; i < s->nch; i++) {
		struct chr *c = &s->ch[i];
		const struct cclass *cl = &g->c->cls[c->cls];
		int k, movable = 0;

		c->planned = 0;
		c->active_done = 0;
		c->rest = 0;
		c->played = 0;
		c->halves = 0;
		c->cur_card = -1;
		if (c->exhausted)
			continue;
		for (k = 0; k < cl->ncards; k++)
			if ((c->active >> k & 1) && !cl->card[k].h[0].lost &&
			    !cl->card[k].h[1].lost)
				movable++;
		if (popcount(c->hand) < 2 && popcount(c->disc) + movable < 2)
			exhaust(g, i, "cannot play two cards or rest");
		if (s->over)
			return;
	}
}

static void
end_round(struct game *g)
{
	struct dg *s = &g->s;
	int i, d, k;

	for (i = 0; i < s->nfig; i++)
		s->fig[i].grounded = 0;	/* flying comes back (R002-90) */
	for (i = 0; i < s->nch; i++)
		if (s->ch[i].mod.flag) {
			s->ch[i].mod.flag = 0;
			deck_reshuffle(g, &s->ch[i].mod, "end of round");
		}
	if (s->mdeck.flag) {
		s->mdeck.flag = 0;
		deck_reshuffle(g, &s->mdeck, "end of round");
	}
	for (d = 0; d < g->c->ndeck; d++) {
		if (s->ad_shuffle[d]) {
			for (k = 0; k < s->ad_nd[d]; k++)
				s->ad_c[d][s->ad_n[d]++] = s->ad_d[d][k];
			s->ad_nd[d] = 0;
			if (s->ad_n[d] > 1 && H->shuffle(g->ctx, s->ad_c[d],
			    (size_t)s->ad_n[d], sizeof(int32_t),
			    "monster ability deck") != REFD_OK && g->err == 0)
				g->err = REFD_ESCRIPT;
			s->ad_shuffle[d] = 0;
			g->dirty |= DIRTY_AD;
		}
		s->ad_cur[d] = -1;
	}
	for (i = 0; i < s->nch; i++) {
		struct chr *c = &s->ch[i];
		const struct cclass *cl = &g->c->cls[c->cls];

		c->shield_rb = 0;
		c->ret_rb = 0;
		for (k = 0; k < cl->ncards; k++) {
			int hh;

			if (!(c->active >> k & 1))
				continue;
			for (hh = 0; hh < 2; hh++)
				if (cl->card[k].h[hh].round) {
					c->active &= ~(1 << k);
					if (cl->card[k].h[hh].lost)
						c->lost |= 1 << k;
					else
						c->disc |= 1 << k;
				}
		}
	}
	for (i = 0; i < s->nfig; i++) {
		s->fig[i].shield_card = 0;
		s->fig[i].ret_card = 0;
	}
	for (i = 0; i < NELEM; i++)
		if (s->elem[i] > 0)
			s->elem[i]--;
	s->phase = PH_SHORTREST;
	s->sr_ci = 0;
	s->sr_stage = 0;
	while (s->sr_ci < s->nch && !sr_eligible(g, s->sr_ci))
		s->sr_ci++;
}

static void
char_turn(struct game *g, int ci)
{
	struct dg *s = &g->s;
	struct chr *c = &s->ch[ci];
	int f = c->fig;

	if (c->exhausted) {
		s->cur++;
		s->ct = CT_START;
		return;
	}
	switch (s->ct) {
	case CT_START: {
		refd_mpw *w = evb("turn");

		refd_mpw_kint(w, "seat", ci);
		ev(g, REFD_SEAT_PUBLIC, w);
		s->ct = c->rest ? CT_LONGREST : CT_CHOOSE;
		c->cur_card = -1;
		if (!c->rest && (s->fig[f].conds & C_STUN)) {
			c->disc |= (1 << c->ca) | (1 << c->cb);
			c->hand &= ~((1 << c->ca) | (1 << c->cb));
			c->played = (1 << c->ca) | (1 << c->cb);
			refd_mpw *sw = evb("stunned");

			refd_mpw_kint(sw, "seat", ci);
			ev(g, REFD_SEAT_PUBLIC, sw);
			s->ct = CT_END;
		}
		if (s->fig[f].conds & C_WOUND)
			damage(g, f, 1, -1, "wound", 0);
		return;
	}
	case CT_LONGREST:
		if (c->disc == 0) {
			/* the discard pile was spent since: rest, lose nothing */
			heal_fig(g, f, 2);
			s->ct = CT_END;
		}
		return;
	case CT_ABILITY: {
		struct ability tmp;
		const struct ability *a = cur_ability(g, ci, &tmp);

		/* infusions are resolved with their half */
		if (a != NULL && a->kind == A_INFUSE) {
			ability_done(g, ci, 0);
			s->progress = 1;
		}
		return;
	}
	case CT_END:
		char_end_turn(g, ci);
		s->cur++;
		s->ct = CT_START;
		return;
	default:
		return;
	}
}

/* Run everything automatic until a seat owes a decision. */
void
dg_advance(struct game *g)
{
	struct dg *s = &g->s;
	int guard = 0;

	while (!s->over && g->err == 0 && guard++ < 10000) {
		if (s->ndq > 0 && s->ch[s->dq[0].ci].exhausted) {
			memmove(&s->dq[0], &s->dq[1],
			    (size_t)(s->ndq - 1) * sizeof(s->dq[0]));
			s->ndq--;
			continue;
		}
		if (s->ndq > 0 || s->ai_active)
			return;
		if (s->push.active) {
			int st[6], n = push_steps(g, st);

			if (n == 0) {
				s->push.active = 0;
				continue;
			}
			if (s->push.by_ci >= 0)
				return;
			push_step(g, st[0]);
			continue;
		}
		if (s->atk.active) {
			if (s->atk.react)
				return;	/* an item reaction is owed */
			atk_step(g);
			continue;
		}
		if (s->phase == PH_GOALS) {
			if (!goals_all_chosen(g))
				return;
			s->phase = PH_HANDS;
			continue;
		}
		if (s->phase == PH_HANDS) {
			if (!hands_ready(g))
				return;
			s->phase = PH_PLAN;
			continue;
		}
		if (s->phase == PH_PLAN) {
			int i, all = 1;

			for (i = 0; i < s->nch && !s->over; i++) {
				struct chr *c = &s->ch[i];

				if (!c->exhausted && !c->planned &&
				    popcount(c->hand) < 2 &&
				    popcount(c->disc) < 2 && c->active == 0)
					exhaust(g, i, "cannot play two cards "
					    "or rest");
			}
			if (s->over)
				return;
			for (i = 0; i < s->nch; i++)
				if (!s->ch[i].exhausted && !s->ch[i].planned)
					all = 0;
			if (!all)
				return;
			reveal(g);
			continue;
		}
		if (s->phase == PH_SHORTREST) {
			if (s->sr_ci < s->nch && s->sr_stage == 2) {
				/* the re-roll's damage choice is made */
				if (s->ch[s->sr_ci].exhausted) {
					short_rest_skip(g);
				} else {
					short_rest_pick(g, s->sr_ci,
					    s->sr_card);
					short_rest_finish(g, s->sr_ci);
				}
				continue;
			}
			if (s->sr_ci < s->nch)
				return;
			start_round(g);
			continue;
		}
		if (s->phase != PH_TURN || s->tie_active)
			return;
		if (s->cur >= s->nord) {
			end_round(g);
			continue;
		}
		{
			struct ordent *e = &s->ord[s->cur];

			if (e->kind == O_CHAR) {
				int ct = s->ct, cur = s->cur;

				s->progress = 0;
				char_turn(g, e->idx);
				if (s->ct == ct && s->cur == cur && s->ndq == 0 &&
				    !s->atk.active && !s->push.active &&
				    !s->progress)
					return;	/* waiting for the seat */
				continue;
			}
			if (s->mt_active) {
				monster_turn(g);
				continue;
			}
			if (e->kind == O_SUMMON) {
				if (s->fig[e->idx].alive &&
				    s->fig[e->idx].born_round != s->round &&
				    !s->fig[e->idx].acted) {
					s->fig[e->idx].acted = 1;
					s->mt_active = 1;
					s->mt_fig = e->idx;
					s->mt_ab = -1;
					continue;
				}
				s->cur++;
				continue;
			}
			/* next monster of the type: elites, normals, bosses */
			{
				int i, best = -1, bk = 0;

				for (i = 0; i < s->nfig; i++) {
					struct fig *x = &s->fig[i];
					int k;

					if (!x->alive || x->kind != F_MONSTER ||
					    x->type != e->idx || x->acted ||
					    x->born_round == s->round)
						continue;
					k = (x->rank == 1 ? 0 : x->rank == 0 ?
					    100 : 200) + x->standee;
					if (best < 0 || k < bk) {
						best = i;
						bk = k;
					}
				}
				if (best < 0) {
					s->cur++;
					continue;
				}
				s->fig[best].acted = 1;
				s->mt_active = 1;
				s->mt_fig = best;
				s->mt_ab = -1;
			}
		}
	}
}

/* ----- short rest and long rest helpers ----- */

void
short_rest_pick(struct game *g, int ci, int avoid)
{
	struct dg *s = &g->s;
	struct chr *c = &s->ch[ci];
	int cards[MAXCARD], n = 0, k, pick;
	refd_mpw *w;

	for (k = 0; k < MAXCARD; k++)
		if ((c->disc >> k & 1) && k != avoid)
			cards[n++] = k;
	if (n == 0) {
		s->sr_card = -1;	/* no other card to lose */
		return;
	}
	pick = cards[n > 1 ? uniform(g, n, "short rest") : 0];
	s->sr_card = pick;
	w = evb("short_rest_pick");
	refd_mpw_kint(w, "seat", ci);
	refd_mpw_kstr(w, "card", g->c->cls[c->cls].card[pick].id);
	ev(g, REFD_SEAT_PUBLIC, w);
}

void
short_rest_finish(struct game *g, int ci)
{
	struct dg *s = &g->s;
	struct chr *c = &s->ch[ci];

	if (s->sr_card >= 0) {
		c->disc &= ~(1 << s->sr_card);
		c->lost |= 1 << s->sr_card;
	}
	c->hand |= c->disc;
	c->disc = 0;
	g->dirty |= DIRTY_HAND(ci);
	s->sr_ci++;
	s->sr_stage = 0;
	while (s->sr_ci < s->nch && !sr_eligible(g, s->sr_ci))
		s->sr_ci++;
}

void
short_rest_skip(struct game *g)
{
	struct dg *s = &g->s;

	s->sr_ci++;
	s->sr_stage = 0;
	while (s->sr_ci < s->nch && !sr_eligible(g, s->sr_ci))
		s->sr_ci++;
}

void
push_choose(struct game *g, int h)
{
	push_step(g, h);
}

int
push_options(const struct game *g, int *out)
{
	return push_steps(g, out);
}

void
char_attack(struct game *g, int ci, const struct ability *a, const int *tg,
    int ntg, int aoe, int aug)
{
	struct dg *s = &g->s;
	struct atk *k = &s->atk;
	int bonus = 0, bconds = 0;

	if (aug > 0 && consume(g, a->consume, a->any, aug - 2)) {
		bonus = a->bonus_attack;
		bconds = a->bonus_conds;
	}
	memset(k, 0, sizeof(*k));
	k->active = 1;
	k->fig = s->ch[ci].fig;
	k->by_char = ci;
	k->value = a->value + bonus + s->ch[ci].bonus_attack;
	k->stage = s->ch[ci].bonus_adv;
	if (s->ch[ci].bonus_stun)
		bconds |= C_STUN;
	s->ch[ci].bonus_attack = 0;
	s->ch[ci].bonus_adv = 0;
	s->ch[ci].bonus_stun = 0;
	k->range = a->range;
	k->ranged = a->range > 0 && !a->grey;
	k->pierce = a->pierce;
	k->push = a->push;
	k->pull = a->pull;
	k->ground = a->ground;
	k->conds = a->conds | bconds;
	k->aoe = aoe;
	k->ntg = ntg;
	memcpy(k->tg, tg, (size_t)ntg * sizeof(int));
}

int
char_move_bonus(struct game *g, const struct ability *a, int aug)
{
	return aug > 0 && consume(g, a->consume, a->any, aug - 2) ?
	    a->bonus_move : 0;
}
