/*
 * play.c - movement, attacks, charges, movement programs with attacks of
 * opportunity, turns, phases and rounds, spells.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"

/* ---------------------------------------------------------------- */
/* Movement (§3.1) */

/*
 * One step of u from anchor (fx, fy) to (tx, ty): -1 if not allowed, 1 if
 * slowed, 0 otherwise.  Ending positions are checked separately.
 */
int
step_slow(const struct cx *x, const struct state *s, int u, int fx, int fy,
    int tx, int ty, int mode)
{
	struct grid g;
	const struct card *c = CARD(x, s, u);
	int sz = c->size, i, j, slow = 0, fly = (c->abil & AB_FLIGHT) != 0;
	int inc = (c->abil & AB_INCORP) != 0;

	if (tx - fx < -1 || tx - fx > 1 || ty - fy < -1 || ty - fy > 1 ||
	    (tx == fx && ty == fy))
		return -1;
	sk_grid(x, s, &g);
	if (tx < 0 || ty < 0 || tx + sz > g.w || ty + sz > g.h)
		return -1;
	if (s->burrowing && u == s->cur && mode == MV_NORMAL)
		return 0;	/* Burrow: under walls, terrain and enemies */
	for (i = 0; i < sz; i++)
		for (j = 0; j < sz; j++) {
			unsigned f = grid_at(&g, tx + i, ty + j);
			int o;

			if ((f & GRID_WALL) && !inc)
				return -1;
			if ((f & GRID_PIT) && !fly && !inc)
				return -1;
			if (f & (GRID_DIFFICULT | GRID_STATUE | GRID_SHARP))
				slow = 1;
			o = occupant(x, s, tx + i, ty + j, u);
			if (o < 0)
				continue;
			if (mode == MV_CHARGE && !fly && !inc)
				return -1;
			if (foe(s, o, u) && !helpless(s, o) &&
			    !fly && !(inc && !has(x, s, o, AB_INCORP)) &&
			    !(mode == MV_NORMAL && u == s->cur &&
			    CARD(x, s, u)->trample > 0 &&
			    CARD(x, s, o)->size < sz &&
			    (s->trampled == 0 || s->trampled == o + 1)))
				return -1;	/* Trample: one smaller enemy */
		}
	if (!inc && grid_cuts_corner(&g, fx, fy, sz, tx - fx, ty - fy))
		return -1;
	if (fly || inc)
		slow = 0;
	if (mode == MV_CHARGE && slow && (CARD(x, s, u)->abil2 & A2_STAGGER))
		return -1;	/* Stagger: no difficult terrain crossed */
	return slow;
}

struct pathud {
	const struct cx *x;
	const struct state *s;
	int u, mode;
};

static int
path_step(void *ud, int fx, int fy, int tx, int ty)
{
	struct pathud *p = ud;

	return step_slow(p->x, p->s, p->u, fx, fy, tx, ty, p->mode);
}

/* Shortest movement costs of u from its anchor (Dial over parity). */
static int32_t *
paths(const struct cx *x, const struct state *s, int u, int mode, int limit,
    int parity, int32_t **prev)
{
	struct grid g;
	struct pathud ud;
	struct pmemo *pm = x->pm != NULL && x->pm->s == s ? x->pm : NULL;
	int32_t *dist;
	size_t n;
	int i;

	sk_grid(x, s, &g);
	n = (size_t)(g.w * g.h * 2);
	dist = malloc(sizeof(*dist) * n);
	*prev = malloc(sizeof(**prev) * n);
	if (dist == NULL || *prev == NULL) {
		free(dist);
		free(*prev);
		*prev = NULL;
		return NULL;
	}
	for (i = 0; pm != NULL && i < pm->n; i++)
		if (pm->e[i].u == u && pm->e[i].mode == mode &&
		    pm->e[i].limit == limit && pm->e[i].parity == parity) {
			memcpy(dist, pm->e[i].dist, sizeof(*dist) * n);
			memcpy(*prev, pm->e[i].prev, sizeof(**prev) * n);
			return dist;
		}
	ud.x = x;
	ud.s = s;
	ud.u = u;
	ud.mode = mode;
	grid_paths(&g, s->u[u].x, s->u[u].y, parity, limit, path_step, &ud,
	    dist, *prev);
	if (pm != NULL && pm->n < SK_PMEMO) {
		i = pm->n++;
		pm->e[i].u = u;
		pm->e[i].mode = mode;
		pm->e[i].limit = limit;
		pm->e[i].parity = parity;
		memcpy(pm->e[i].dist, dist, sizeof(*dist) * n);
		memcpy(pm->e[i].prev, *prev, sizeof(**prev) * n);
	}
	return dist;
}

static int
dmin(const int32_t *dist, int idx)
{
	int a = dist[idx * 2], b = dist[idx * 2 + 1];

	if (a < 0)
		return b;
	if (b < 0)
		return a;
	return a < b ? a : b;
}

/* Sharp rocks entered by a step (§5.1): 1 if new sharp squares. */
static int
sharp_entry(const struct cx *x, const struct state *s, int u, int tx, int ty)
{
	struct grid g;
	const struct unit *p = &s->u[u];
	int sz = CARD(x, s, u)->size, i, j;

	if (has(x, s, u, AB_FLIGHT | AB_INCORP))
		return 0;
	sk_grid(x, s, &g);
	for (i = 0; i < sz; i++)
		for (j = 0; j < sz; j++) {
			int ax = tx + i, ay = ty + j;

			if (!(grid_at(&g, ax, ay) & GRID_SHARP))
				continue;
			if (ax >= p->x && ax < p->x + sz && ay >= p->y &&
			    ay < p->y + sz)
				continue;
			return 1;
		}
	return 0;
}

/* Move u one step (after attacks of opportunity); returns its cost. */
static int
do_step(struct cx *x, struct state *s, int u, int tx, int ty, int *parity)
{
	int slow = step_slow(x, s, u, s->u[u].x, s->u[u].y, tx, ty,
	    MV_NORMAL);
	int cost, sharp = sharp_entry(x, s, u, tx, ty);
	refd_mpw *w;

	cost = grid_step_cost(tx - s->u[u].x, ty - s->u[u].y, slow > 0,
	    parity);
	{
		/* Trample: entering a smaller enemy's space */
		int i, j, sz = CARD(x, s, u)->size, o = -1;

		for (i = 0; i < sz && o < 0; i++)
			for (j = 0; j < sz && o < 0; j++) {
				int k = occupant(x, s, tx + i, ty + j, u);

				if (k >= 0 && foe(s, k, u) &&
				    u == s->cur && CARD(x, s, u)->trample > 0 &&
				    !helpless(s, k))
					o = k;
			}
		s->u[u].x = tx;
		s->u[u].y = ty;
		if (o >= 0 && s->trampled == 0) {
			s->trampled = o + 1;
			if (CARD(x, s, u)->trample_dc == 0 ||
			    !save(x, s, o, CARD(x, s, u)->trample_dc, "trample")) {
				w = sk_ev("trample");
				refd_mpw_kint(w, "unit", o);
				refd_mpw_kint(w, "damage", CARD(x, s, u)->trample);
				sk_emit(x, w);
				damage(x, s, o, CARD(x, s, u)->trample, u);
			}
		}
	}
	w = sk_ev("step");
	refd_mpw_kint(w, "unit", u);
	refd_mpw_kint(w, "x", tx);
	refd_mpw_kint(w, "y", ty);
	refd_mpw_kint(w, "cost", cost);
	sk_emit(x, w);
	if (sharp) {
		w = sk_ev("sharp_rocks");
		refd_mpw_kint(w, "unit", u);
		refd_mpw_kint(w, "damage", 5);
		sk_emit(x, w);
		damage(x, s, u, 5, -1);
	}
	return cost;
}

/* ---------------------------------------------------------------- */
/* Attacks (§3.5-3.11) */

/* Nearest enemies (or allies) of u in LOS by grid distance: returns that
 * distance, -1 if none.  maxrange 0 = unlimited. */
int
nearest_ranged(const struct cx *x, const struct state *s, int u, int enemies,
    int maxrange)
{
	int i, best = -1;

	for (i = 0; i < s->nu; i++) {
		struct grid_space a, b;
		int d;

		if (i == u || !s->u[i].on ||
		    (enemies != (foe(s, i, u))))
			continue;
		if (!sees(x, s, u, i))
			continue;
		a = SP(x, s, u);
		b = SP(x, s, i);
		d = grid_space_dist(&a, &b);
		if (maxrange > 0 && d > maxrange)
			continue;
		if (best < 0 || d < best)
			best = d;
	}
	return best;
}

/* §1.7 alignment mask (LG 1, CG 2, LE 4, CE 8) of u: the warband's
 * faction, or in fixtures the card's own; all four: none. */
static int
align(const struct cx *x, const struct state *s, int u)
{
	int m = s->wbfac[s->u[u].seat] ? s->wbfac[s->u[u].seat] :
	    CARD(x, s, u)->factions;

	return m == 0xf ? 0 : m;
}

/* Sum of the continuous spell effects on stat (one per family, §4.4.7). */
int
buff(const struct cx *x, const struct state *s, int u, int stat)
{
	int f, n = 0;

	for (f = 0; f < x->c->nfam; f++)
		if ((s->u[u].buffs >> f & 1) && x->c->fam[f].stat == stat)
			n += x->c->fam[f].value;
	return n;
}

/* §3.11.2 steps 6: resist, immune, vulnerable for energy damage. */
int
energy_adjust(const struct cx *x, const struct state *s, int d, int n,
    int e)
{
	const struct card *D = CARD(x, s, d);

	if (e <= 0 || n <= 0)
		return n;
	if (D->immune >> e & 1)
		return 0;
	n -= D->resist[e];
	if (n < 0)
		n = 0;
	if (D->vuln >> e & 1)
		n += 5 * (n / 10);
	return n;
}

int
smite_applies(const struct cx *x, const struct state *s, int a, int d)
{
	const struct card *A = CARD(x, s, a);

	return A->smite_vs == 0 || (align(x, s, d) & A->smite_vs) != 0;
}

/* Glossary push / pull / slide (R000-94): may d be moved by a to anchor
 * (tx, ty)?  One square, farther from a (mode 0, push), closer to it (1,
 * pull) or in any direction (2, slide); no wall, statue, pit or creature,
 * no corner cut.  Forced movement provokes no attack of opportunity. */
int
push_ok(const struct cx *x, const struct state *s, int a, int d, int tx,
    int ty, int mode)
{
	struct grid g;
	struct grid_space sa = SP(x, s, a), sd = SP(x, s, d), sn = sd;
	int i, j, sz = sd.s;

	if (tx - sd.x < -1 || tx - sd.x > 1 || ty - sd.y < -1 ||
	    ty - sd.y > 1 || (tx == sd.x && ty == sd.y))
		return 0;
	sk_grid(x, s, &g);
	for (i = 0; i < sz; i++)
		for (j = 0; j < sz; j++)
			if ((grid_at(&g, tx + i, ty + j) &
			    (GRID_WALL | GRID_STATUE | GRID_PIT)) ||
			    occupant(x, s, tx + i, ty + j, d) >= 0)
				return 0;
	if (grid_cuts_corner(&g, sd.x, sd.y, sz, tx - sd.x, ty - sd.y))
		return 0;
	sn.x = tx;
	sn.y = ty;
	if (mode == 2)
		return 1;
	return mode == 0 ? grid_space_dist(&sa, &sn) >
	    grid_space_dist(&sa, &sd) : grid_space_dist(&sa, &sn) <
	    grid_space_dist(&sa, &sd);
}

/* After a damaging hit: Pushback pushes a smaller creature; the stand-in
 * Pull and Slide abilities move one no larger than the attacker.  A
 * decision of the attacker's owner (push, pull, slide or decline). */
static void
push_offer(struct cx *x, struct state *s, int a, int d, int mode)
{
	int dx, dy;

	if (s->dec != DEC_NONE || s->stage == ST_OVER || !s->u[d].on ||
	    s->u[d].routed || CARD(x, s, d)->size > CARD(x, s, a)->size ||
	    (mode == 0 && CARD(x, s, d)->size == CARD(x, s, a)->size))
		return;
	for (dx = -1; dx <= 1; dx++)
		for (dy = -1; dy <= 1; dy++)
			if (push_ok(x, s, a, d, s->u[d].x + dx, s->u[d].y + dy,
			    mode)) {
				s->dec = DEC_PUSH;
				s->dec_unit = a;
				s->dec_target = d;
				s->dec_mode = mode;
				return;
			}
}

/* A helper flanks d with attacker a (§3.6). */
static int
flanked(const struct cx *x, const struct state *s, int a, int d)
{
	int h;

	if (has(x, s, d, AB_FLANKIMM) || !adjacent(x, s, a, d) ||
	    ((CARD(x, s, d)->abil2 & A2_UNCANNY) && functional(s, d)))
		return 0;
	for (h = 0; h < s->nu; h++) {
		struct grid_space sa, sh, sd;

		if (h == a || foe(s, h, a) ||
		    !threatens(x, s, h, d))
			continue;
		sa = SP(x, s, a);
		sh = SP(x, s, h);
		sd = SP(x, s, d);
		if (grid_flank(&sa, &sh, &sd))
			return 1;
	}
	return 0;
}

/* §3.8.5: d is "in melee" with an ally of a. */
static int
in_melee(const struct cx *x, const struct state *s, int a, int d)
{
	int h;

	for (h = 0; h < s->nu; h++) {
		if (h == a || foe(s, h, a) || !s->u[h].on)
			continue;
		if (functional(s, d) && adjacent(x, s, d, h))
			return 1;
		if (functional(s, h) && adjacent(x, s, h, d))
			return 1;
	}
	return 0;
}

static int
ranged_cover(const struct cx *x, const struct state *s, int a, int d)
{
	struct grid g;
	uint8_t prov[SK_MAXW * SK_MAXH];
	struct grid_space sa = SP(x, s, a), sd = SP(x, s, d);
	int i, j, k;

	sk_grid(x, s, &g);
	for (i = 0; i < g.w * g.h; i++)
		prov[i] = (g.flags[i] & GRID_STATUE) != 0;
	for (k = 0; k < s->nu; k++) {
		int sz = CARD(x, s, k)->size;

		if (k == a || k == d || !s->u[k].on)
			continue;
		for (i = 0; i < sz; i++)
			for (j = 0; j < sz; j++)
				prov[(s->u[k].y + j) * g.w + s->u[k].x + i] = 1;
	}
	return grid_ranged_cover(&g, prov, &sa, &sd);
}

static int
on_terrain(const struct cx *x, const struct state *s, int u, unsigned f)
{
	struct grid g;
	int sz = CARD(x, s, u)->size, i, j;

	sk_grid(x, s, &g);
	for (i = 0; i < sz; i++)
		for (j = 0; j < sz; j++)
			if (grid_at(&g, s->u[u].x + i, s->u[u].y + j) & f)
				return 1;
	return 0;
}

static void
cleave_offer(struct cx *x, struct state *s, int a, int line)
{
	int e;

	if (!has(x, s, a, AB_CLEAVE) || s->u[a].cleave_turn == s->turnid ||
	    !functional(s, a) || s->stage == ST_OVER)
		return;
	for (e = 0; e < s->nu; e++)
		if (s->u[e].on && foe(s, e, a) &&
		    adjacent(x, s, a, e))
			break;
	if (e == s->nu)
		return;
	s->u[a].cleave_turn = s->turnid;
	s->dec = DEC_CLEAVE;
	s->dec_unit = a;
	s->dec_line = line;
}

/*
 * One attack of a on d with the given line (§3.5 melee, §3.8 ranged).
 * Dice in order: attack, conceal, incorporeal, then morale.
 */
void
attack(struct cx *x, struct state *s, int a, int d, int ranged, int line,
    int flags, int aoo)
{
	int charge = flags & 1, smite = (flags & 2) != 0;
	int leap = (flags & 4) != 0, stunatk = (flags & 8) != 0, sneaked = 0;
	struct atk leapline;
	const struct card *A = CARD(x, s, a), *D = CARD(x, s, d);
	const struct atk *k = ranged ? &A->ranged[line] : &A->melee[line];

	if (flags & 4) {	/* Leap: +N to hit, N damage */
		memset(&leapline, 0, sizeof(leapline));
		leapline.bonus = leapline.dmg = A->leap;
		k = &leapline;
	}
	int ac = D->ac, bonus = k->bonus, roll = 0, hit, crit = 0, dbl = 0;
	int auto_hit = 0, cover = 0, inmelee = 0, flank = 0, conceal = 0;
	int cr = 0, inc = 0, magic, base, extra, dmg;
	refd_mpw *w;

	s->aggr = 1;
	if (!ranged) {
		if (adjacent(x, s, a, d))
			cover = melee_cover(x, s, a, d);
		else
			cover = ranged_cover(x, s, a, d);	/* Melee Reach */
		flank = flanked(x, s, a, d);
		bonus += (charge ? 2 : 0) + (flank ? 2 : 0);
	} else {
		cover = ranged_cover(x, s, a, d);
		if (in_melee(x, s, a, d) && !(A->abil & AB_PRECISE))
			inmelee = 1;
		if (D->abil & AB_DEFLECT)
			ac += 4;
	}
	ac += (cover ? 4 : 0) + (inmelee ? 4 : 0);
	if (s->blocking == d + 1)
		ac += 4;	/* Shield Block, an immediate action */
	if (s->u[d].stunned)
		ac -= 2;
	if (s->u[d].frightened)
		ac -= 4;
	if (aoo && (D->abil & AB_MOBILITY))
		ac += 4;
	if (s->u[a].frightened)
		bonus -= 4;
	bonus -= s->u[a].drained + (stenched(x, s, a) ? 2 : 0);
	ac -= stenched(x, s, d) ? 2 : 0;
	if (D->abil2 & A2_PHALANX) {
		int k;

		for (k = 0; k < s->nu; k++)
			if (k != d && s->u[k].on && !foe(s, k, d) &&
			    (CARD(x, s, k)->abil2 & A2_PHALANX) &&
			    adjacent(x, s, k, d)) {
				ac += 2;
				break;
			}
	}
	bonus += cmd_effect(x, s, a, 1) + buff(x, s, a, ES_ATTACK);
	ac += cmd_effect(x, s, d, 2) + buff(x, s, d, ES_AC);
	if (!sees(x, s, d, a) && !(D->abil & (AB_BLINDFIGHT | AB_BLINDSIGHT)))
		bonus += 2;
	magic = on_terrain(x, s, a, GRID_SACRED);
	if (magic)
		bonus += 2;
	if (helpless(s, d)) {
		if (ranged)
			bonus += 4;
		else
			auto_hit = dbl = 1;
	}
	if (auto_hit) {
		hit = 1;
	} else {
		roll = sk_roll(x, aoo ? "attack of opportunity" : "attack");
		if (roll == 1)
			hit = 0;
		else if (roll == 20 || (roll == 19 && !ranged &&
		    on_terrain(x, s, a, GRID_BLOOD)))
			hit = crit = 1;
		else
			hit = roll + bonus >= ac;
		s->rr_miss = !hit;
	}
	/* Conceal (A33: also against a helpless defender). */
	if (hit) {
		if (!sees(x, s, a, d))
			conceal = 11;
		if (D->conceal > conceal)
			conceal = D->conceal;
		if (conceal > 0 && !(A->abil & AB_BLINDSIGHT)) {
			cr = sk_roll(x, "conceal");
			if (cr < conceal && !ranged &&
			    (A->abil & AB_BLINDFIGHT)) {
				int c2 = sk_roll(x, "conceal");

				if (c2 >= conceal)
					cr = c2;
			}
			if (cr < conceal)
				hit = 0;
		}
	}
	if (hit && (D->abil & AB_INCORP) && !(A->abil & AB_INCORP)) {
		inc = sk_roll(x, "incorporeal");
		if (inc >= 11)
			hit = 0;
	}
	if (smite)
		s->u[a].smite_spent++;	/* spent even on a miss (R000-78) */
	if (stunatk) {
		s->u[a].stun_spent++;
		s->stun_turn2 = s->turnid;
	}
	(void)leap;
	base = k->dmg + (ranged ? 0 : buff(x, s, a, ES_MDAMAGE));
	if (hit && (crit || dbl) && !(D->abil & AB_CRITIMM && crit && !dbl))
		base *= 2;
	if (charge && !ranged)
		base += A->pcharge;
	if (smite && smite_applies(x, s, a, d))
		base += A->smite_val;
	/* Sneak Attack (creatures immune to criticals are immune to it) */
	if (!(D->abil & AB_CRITIMM) && !((D->abil2 & A2_UNCANNY) &&
	    functional(s, d))) {
		int helpl = s->u[d].stunned || helpless(s, d) ||
		    !sees(x, s, d, a);

		if (!ranged && A->sneak > 0 && (flank || helpl)) {
			base += A->sneak;
			sneaked = 1;
		}
		if (ranged && A->rsneak > 0 && helpl) {
			struct grid_space sa = SP(x, s, a), sd = SP(x, s, d);

			if (grid_space_dist(&sa, &sd) <= 6)
				base += A->rsneak;
		}
	}
	/* Rend (A30): the second melee hit on the same enemy this turn */
	if (hit && !ranged && a == s->cur && A->rend > 0) {
		if (s->rend_t == d && s->rend_hits == 1)
			base += A->rend;
		if (s->rend_t != d) {
			s->rend_t = d;
			s->rend_hits = 0;
		}
		s->rend_hits++;
	}
	extra = energy_adjust(x, s, d, k->extra, k->energy);
	if (!magic && !buff(x, s, a, ES_MAGIC) && D->dr > 0)
		base = base > D->dr ? base - D->dr : 0;
	dmg = hit ? base + extra : 0;
	w = sk_ev(aoo ? "attack_of_opportunity" : "attack");
	refd_mpw_kint(w, "attacker", a);
	refd_mpw_kint(w, "target", d);
	refd_mpw_kstr(w, "kind", ranged ? "ranged" : "melee");
	refd_mpw_kint(w, "line", line);
	if (!auto_hit)
		refd_mpw_kint(w, "roll", roll);
	else
		refd_mpw_kbool(w, "automatic", 1);
	refd_mpw_kint(w, "total", roll + bonus);
	refd_mpw_kint(w, "ac", ac);
	if (cover)
		refd_mpw_kbool(w, "cover", 1);
	if (inmelee)
		refd_mpw_kbool(w, "in_melee", 1);
	if (flank)
		refd_mpw_kbool(w, "flanking", 1);
	if (charge)
		refd_mpw_kbool(w, "charge", 1);
	if (smite)
		refd_mpw_kbool(w, "smite", 1);
	if (conceal && (roll != 1 || auto_hit))
		refd_mpw_kint(w, "conceal_roll", cr);
	if (inc)
		refd_mpw_kint(w, "incorporeal_roll", inc);
	refd_mpw_kbool(w, "hit", hit);
	refd_mpw_kbool(w, "critical", hit && (crit || dbl));
	refd_mpw_kint(w, "damage", dmg);
	refd_mpw_kint(w, "hp", s->u[d].hp - dmg);
	sk_emit(x, w);
	if (dmg > 0) {
		damage2(x, s, d, dmg, a, 1);
		if (!ranged && (A->abil2 & A2_LEVELDRAIN) && s->u[d].on &&
		    !has(x, s, d, AB_NONLIVING)) {
			s->u[d].drained++;
			s->u[a].hp += 5;
			w = sk_ev("level_drain");
			refd_mpw_kint(w, "unit", d);
			refd_mpw_kint(w, "drained", s->u[d].drained);
			refd_mpw_kint(w, "drainer_hp", s->u[a].hp);
			sk_emit(x, w);
		}
		if (k->cond > 0 && s->u[d].on)
			condition(x, s, d, k->cond, k->dc, a);
		if (stunatk && s->u[d].on)
			condition(x, s, d, CO_STUN, A->stun_dc, a);
		if ((flags & 16) && sneaked && s->u[d].on &&
		    !save(x, s, d, A->death_attack, "death attack")) {
			w = sk_ev("death_attack");
			refd_mpw_kint(w, "unit", d);
			sk_emit(x, w);
			eliminate(x, s, d, "destroyed", s->u[a].seat);
		}
		if (!ranged && A->con_drain > 0 && s->u[d].on &&
		    !has(x, s, d, AB_NONLIVING) &&
		    !save(x, s, d, A->con_dc, "constitution drain")) {
			s->u[a].hp += A->con_drain;
			w = sk_ev("constitution_drain");
			refd_mpw_kint(w, "unit", d);
			refd_mpw_kint(w, "damage", A->con_drain);
			refd_mpw_kint(w, "drainer_hp", s->u[a].hp);
			sk_emit(x, w);
			damage2(x, s, d, A->con_drain, a, 1);
		}
		half_check(x, s, d, a);
		if (s->u[d].gone && D->humanoid && A->feed > 0 && s->u[a].on) {
			s->u[a].hp += A->feed;
			w = sk_ev("feed");
			refd_mpw_kint(w, "unit", a);
			refd_mpw_kint(w, "hp", s->u[a].hp);
			sk_emit(x, w);
		}
		if (s->u[d].gone && !ranged)
			cleave_offer(x, s, a, line);
		else if (!ranged && (A->abil2 & A2_PUSHBACK))
			push_offer(x, s, a, d, 0);
		else if (A->abil2 & A2_PULL)
			push_offer(x, s, a, d, 1);
		else if (!ranged && (A->abil2 & A2_SLIDE))
			push_offer(x, s, a, d, 2);
	}
}

/* ---------------------------------------------------------------- */
/* Charge (§3.3) */

/* Does the segment between doubled points p, q meet the interior of
 * square (sx, sy)? */
static int
seg_interior(int px, int py, int qx, int qy, int sx, int sy)
{
	int x0 = sx * 2, x1 = sx * 2 + 2, y0 = sy * 2, y1 = sy * 2 + 2;
	int nx = -(qy - py), ny = qx - px, c, m0, m1, i, v;

	if ((px > qx ? px : qx) <= x0 || (px < qx ? px : qx) >= x1)
		return 0;
	if ((py > qy ? py : qy) <= y0 || (py < qy ? py : qy) >= y1)
		return 0;
	c = nx * px + ny * py;
	m0 = m1 = nx * x0 + ny * y0;
	for (i = 1; i < 4; i++) {
		v = nx * ((i & 1) ? x1 : x0) + ny * ((i & 2) ? y1 : y0);
		if (v < m0)
			m0 = v;
		if (v > m1)
			m1 = v;
	}
	return c > m0 && c < m1;
}

static int
lane_clear(const struct cx *x, const struct state *s, int u, int dx, int dy)
{
	struct grid g;
	int sz = CARD(x, s, u)->size, i, j, ax, ay;

	sk_grid(x, s, &g);
	for (i = 0; i < sz; i++)
		for (j = 0; j < sz; j++) {
			int px = (s->u[u].x + i) * 2 + 1;
			int py = (s->u[u].y + j) * 2 + 1;
			int qx = (dx + i) * 2 + 1, qy = (dy + j) * 2 + 1;

			for (ay = 0; ay < g.h; ay++)
				for (ax = 0; ax < g.w; ax++) {
					unsigned f;

					if (!seg_interior(px, py, qx, qy, ax, ay))
						continue;
					f = grid_at(&g, ax, ay);
					if (f & (GRID_WALL | GRID_PIT |
					    GRID_DIFFICULT | GRID_STATUE |
					    GRID_SHARP))
						return 0;
					if (occupant(x, s, ax, ay, u) >= 0)
						return 0;
				}
		}
	return 1;
}

/* Anchors adjacent to t where u's space would fit (walls, pits, grid). */
static int
adj_anchor(const struct cx *x, const struct state *s, int u, int t, int ax,
    int ay)
{
	struct grid g;
	struct grid_space a, b;
	int sz = CARD(x, s, u)->size, i, j;

	sk_grid(x, s, &g);
	if (ax < 0 || ay < 0 || ax + sz > g.w || ay + sz > g.h)
		return 0;
	for (i = 0; i < sz; i++)
		for (j = 0; j < sz; j++)
			if (grid_at(&g, ax + i, ay + j) & (GRID_WALL | GRID_PIT))
				return 0;
	a.x = ax;
	a.y = ay;
	a.s = sz;
	b = SP(x, s, t);
	if (grid_space_dist(&a, &b) == 0)
		return 0;
	return grid_adjacent(&g, &a, &b);
}

/* Path-metric distance from u to the nearest square adjacent to t. */
static int
near_cost(const struct cx *x, const struct state *s, const int32_t *dist,
    int u, int t)
{
	const struct map *m = MAP(x, s);
	int ax, ay, best = -1, sz = CARD(x, s, u)->size;

	for (ay = s->u[t].y - sz; ay <= s->u[t].y + CARD(x, s, t)->size; ay++)
		for (ax = s->u[t].x - sz; ax <= s->u[t].x +
		    CARD(x, s, t)->size; ax++) {
			int d;

			if (ax < 0 || ay < 0 || ax >= m->w || ay >= m->h ||
			    !adj_anchor(x, s, u, t, ax, ay))
				continue;
			d = dmin(dist, ay * m->w + ax);
			if (d >= 0 && (best < 0 || d < best))
				best = d;
		}
	return best;
}

/* §3.2 rush: path cost from u to a square adjacent to t (-1 if none);
 * *best: the same for the nearest enemy u sees. */
static int
rush_cost_within(const struct cx *x, const struct state *s, int u, int t,
    int *best, int limit)
{
	int32_t *dist, *prev;
	int e, ct;

	dist = paths(x, s, u, MV_NORMAL, limit, s->parity, &prev);
	if (dist == NULL)
		return -1;
	if (best != NULL)
		*best = -1;
	for (e = 0; best != NULL && e < s->nu; e++) {
		int c;

		if (!s->u[e].on || !foe(s, e, u) ||
		    !sees(x, s, u, e))
			continue;
		c = near_cost(x, s, dist, u, e);
		if (c >= 0 && (*best < 0 || c < *best))
			*best = c;
	}
	ct = near_cost(x, s, dist, u, t);
	free(dist);
	free(prev);
	return ct;
}

int
rush_cost(const struct cx *x, const struct state *s, int u, int t, int *best)
{
	return rush_cost_within(x, s, u, t, best, 4 * MAP(x, s)->w);
}

/* After a rush step to (tx, ty), can u still end adjacent to its target
 * with budget_after left? */
int
rush_step_ok(const struct cx *x, const struct state *s, int u, int tx,
    int ty, int budget_after)
{
	struct state *p = (struct state *)&x->scratch;
	struct pmemo *pm = x->pm != NULL && x->pm->s == s ? x->pm : NULL;
	int c, slow;

	if (budget_after < 0)
		return 0;
	memcpy(p, s, sizeof(*p));
	slow = step_slow(x, s, u, s->u[u].x, s->u[u].y, tx, ty, MV_NORMAL);
	grid_step_cost(tx - s->u[u].x, ty - s->u[u].y, slow > 0, &p->parity);
	p->u[u].x = tx;
	p->u[u].y = ty;
	if (pm != NULL) {
		/* only u moved: s's other occupants stand where they were */
		pm->alt = p;
		pm->alt_u = u;
	}
	/* costs up to the budget are exact with the search cut there */
	c = rush_cost_within(x, p, u, s->rush_t, NULL, budget_after);
	if (pm != NULL)
		pm->alt = NULL;
	return c >= 0 && c <= budget_after;
}

/* A rush longer than the printed speed attacks only as a charge from its
 * starting square (§3.2). */
int
rush_charge_ok(const struct cx *x, const struct state *s, int u, int t)
{
	struct state *p = (struct state *)&x->scratch;
	char msg[160];

	memcpy(p, s, sizeof(*p));
	p->u[u].x = s->rush_x;
	p->u[u].y = s->rush_y;
	p->speed = CARD(x, s, u)->speed;
	return charge_check(x, p, u, t, s->u[u].x, s->u[u].y, NULL, msg,
	    sizeof(msg)) == 0;
}

/*
 * §3.3.1: may u charge t, ending at anchor (dx, dy)?  Fills out (a
 * PK_CHARGE program with its path) when it may; else a message.
 */
int
charge_check(const struct cx *x, const struct state *s, int u, int t, int dx,
    int dy, struct prog *out, char *msg, size_t len)
{
	const struct map *m = MAP(x, s);
	int32_t *dist, *prev, *d2, *p2;
	int e, best = -1, ct, slowdest = 0, i, j, n, st;
	int lim = 2 * s->speed;
	struct grid g;

	if (!s->u[t].on || !foe(s, t, u)) {
		snprintf(msg, len, "a charge targets an enemy on the grid");
		return -1;
	}
	if (!sees(x, s, u, t)) {
		snprintf(msg, len, "%s cannot see %s at the start of its turn",
		    CARD(x, s, u)->name, CARD(x, s, t)->name);
		return -1;
	}
	dist = paths(x, s, u, MV_NORMAL, 4 * m->w, 0, &prev);
	if (dist == NULL) {
		snprintf(msg, len, "out of memory");
		return -1;
	}
	for (e = 0; e < s->nu; e++) {
		int c;

		if (!s->u[e].on || !foe(s, e, u) ||
		    !sees(x, s, u, e))
			continue;
		c = near_cost(x, s, dist, u, e);
		if (c >= 0 && (best < 0 || c < best))
			best = c;
	}
	ct = near_cost(x, s, dist, u, t);
	if (ct < 0 || ct != best) {
		free(dist);
		free(prev);
		snprintf(msg, len, "%s is not the nearest enemy %s can see "
		    "(path cost %d, nearest %d)", CARD(x, s, t)->name,
		    CARD(x, s, u)->name, ct, best);
		return -1;
	}
	if (dx < 0 || dy < 0 || dx >= m->w || dy >= m->h ||
	    !adj_anchor(x, s, u, t, dx, dy) ||
	    dmin(dist, dy * m->w + dx) != ct) {
		free(dist);
		free(prev);
		snprintf(msg, len, "(%d,%d) is not the nearest space adjacent "
		    "to %s (cost %d)", dx, dy, CARD(x, s, t)->name, ct);
		return -1;
	}
	free(dist);
	free(prev);
	if (!end_ok(x, s, u, dx, dy)) {
		snprintf(msg, len, "the nearest space adjacent to %s is "
		    "occupied or blocked: no charge", CARD(x, s, t)->name);
		return -1;
	}
	if (ct < 2 || ct > lim) {
		snprintf(msg, len, "a charge moves 2 to %d squares, not %d",
		    lim, ct);
		return -1;
	}
	sk_grid(x, s, &g);
	for (i = 0; i < CARD(x, s, u)->size; i++)
		for (j = 0; j < CARD(x, s, u)->size; j++)
			if (grid_at(&g, dx + i, dy + j) & (GRID_DIFFICULT |
			    GRID_STATUE | GRID_SHARP))
				slowdest = 1;
	if (slowdest || (!(CARD(x, s, u)->abil2 & A2_STAGGER) &&
	    !lane_clear(x, s, u, dx, dy))) {
		snprintf(msg, len, "the charge lane to (%d,%d) is not clear "
		    "(creatures, walls or slowing terrain)", dx, dy);
		return -1;
	}
	d2 = paths(x, s, u, MV_CHARGE, lim, 0, &p2);
	if (d2 == NULL) {
		snprintf(msg, len, "out of memory");
		return -1;
	}
	st = -1;
	for (i = 0; i < 2; i++) {
		int dd = d2[(dy * m->w + dx) * 2 + i];

		/* Stagger lifts the shortest-path requirement */
		if (dd == ct || (dd >= 2 && dd <= lim &&
		    (CARD(x, s, u)->abil2 & A2_STAGGER) && st < 0))
			st = (dy * m->w + dx) * 2 + i;
	}
	if (st < 0) {
		free(d2);
		free(p2);
		snprintf(msg, len, "no shortest path to (%d,%d) free of "
		    "creatures", dx, dy);
		return -1;
	}
	if (out != NULL) {
		memset(out, 0, sizeof(*out));
		out->kind = PK_CHARGE;
		out->unit = u;
		out->target = t;
		for (n = 0, i = st; i >= 0 && p2[i] >= 0; i = p2[i])
			n++;
		if (n > SK_MAXPATH)
			n = SK_MAXPATH;
		out->npath = n;
		for (i = st; n > 0 && p2[i] >= 0; i = p2[i])
			out->path[--n] = i >> 1;
	}
	free(d2);
	free(p2);
	return 0;
}

/* ---------------------------------------------------------------- */
/* Rout paths (§4.2.3, A12) */

static int
at_exit_sq(const struct cx *x, const struct state *s, int u, int ax, int ay)
{
	const struct map *m = MAP(x, s);
	int sz = CARD(x, s, u)->size, i, j;

	for (i = 0; i < sz; i++)
		for (j = 0; j < sz; j++) {
			int qx = ax + i, qy = ay + j;

			if (qx < m->w && qy < m->h &&
			    m->exit[qy * m->w + qx] ==
			    s->zmap[s->u[u].seat] + 1)
				return 1;
		}
	return 0;
}

static int
exit_dist(const struct cx *x, const struct state *s, int u, int ax, int ay)
{
	const struct map *m = MAP(x, s);
	struct grid_space a, e;
	int i, best = 1 << 20;

	a.x = ax;
	a.y = ay;
	a.s = CARD(x, s, u)->size;
	e.s = 1;
	for (i = 0; i < m->w * m->h; i++)
		if (m->exit[i] == s->zmap[s->u[u].seat] + 1) {
			int d;

			e.x = i % m->w;
			e.y = i / m->w;
			d = grid_space_dist(&a, &e);
			if (d < best)
				best = d;
		}
	return best;
}

static void
rout_path(const struct cx *x, const struct state *s, struct prog *p)
{
	const struct map *m = MAP(x, s);
	int u = p->unit, i, st = -1, bc = -1, bd = 1 << 20, n;
	int32_t *dist, *prev;

	p->npath = 0;
	p->idx = 0;
	p->target = 0;
	dist = paths(x, s, u, MV_ROUT, p->budget, s->u[u].parity, &prev);
	if (dist == NULL)
		return;
	for (i = 0; i < m->w * m->h * 2; i++) {
		int ax = (i >> 1) % m->w, ay = (i >> 1) / m->w;

		if (dist[i] < 0 || dist[i] + 1 > p->budget ||
		    !at_exit_sq(x, s, u, ax, ay))
			continue;
		if (bc < 0 || dist[i] < bc) {
			bc = dist[i];
			st = i;
		}
	}
	if (st >= 0) {
		p->target = 1;	/* leaves the grid at the end */
	} else {
		for (i = 0; i < m->w * m->h * 2; i++) {
			int ax = (i >> 1) % m->w, ay = (i >> 1) / m->w, d;

			if (dist[i] < 0 || !end_ok(x, s, u, ax, ay))
				continue;
			d = exit_dist(x, s, u, ax, ay);
			if (d < bd || (d == bd && dist[i] < bc)) {
				bd = d;
				bc = dist[i];
				st = i;
			}
		}
	}
	if (st >= 0) {
		for (n = 0, i = st; prev[i] >= 0; i = prev[i])
			n++;
		if (n > SK_MAXPATH)
			n = SK_MAXPATH;
		p->npath = n;
		for (i = st; n > 0 && prev[i] >= 0; i = prev[i])
			p->path[--n] = i >> 1;
	}
	free(dist);
	free(prev);
}

/* ---------------------------------------------------------------- */
/* Movement programs and attacks of opportunity (§3.4.3) */

/* May t make an attack of opportunity on mover m now? */
static int
aoo_ok(const struct cx *x, const struct state *s, int t, int m)
{
	const struct unit *mv = &s->u[m];

	if (!s->u[t].on || !mv->on || s->u[t].aoo_turn == s->turnid ||
	    s->u[t].confused)
		return 0;
	if (has(x, s, t, AB_TINYREACH))
		return 0;
	if (mv->routed && mv->rout_unit == t && mv->rout_turn == s->turnid)
		return 0;	/* §4.2.4 */
	return threatens(x, s, t, m);
}

/* Which enemies may strike as m leaves its space toward (tx, ty) (tx < 0:
 * off the grid), in seat order from the active player then unit order. */
static void
aoo_queue(const struct cx *x, const struct state *s, struct prog *p, int tx,
    int ty)
{
	int m = p->unit, k, t, first;
	struct grid g;

	p->nq = 0;
	p->qi = 0;
	p->qready = 1;
	if (has(x, s, m, AB_FLIGHT) && p->idx > 0)
		return;		/* A32: flight after its first square */
	if (s->burrowing && m == s->cur && p->kind == PK_STEP)
		return;		/* burrowing movement provokes none */
	sk_grid(x, s, &g);
	first = s->cur >= 0 ? s->u[s->cur].seat : s->u[m].seat;
	/* R000-44: clockwise from the active player */
	for (k = 0; k < s->nseats; k++)
		for (t = 0; t < s->nu; t++) {
			int sz = CARD(x, s, m)->size, i, j, vac = 0;
			struct grid_space st = SP(x, s, t);

			if (s->u[t].seat != (first + k) % s->nseats ||
			    !aoo_ok(x, s, t, m))
				continue;
			/* the step vacates a square adjacent to t */
			for (i = 0; i < sz && !vac; i++)
				for (j = 0; j < sz && !vac; j++) {
					struct grid_space q;
					int ax = s->u[m].x + i, ay = s->u[m].y + j;

					q.x = ax;
					q.y = ay;
					q.s = 1;
					if (!grid_adjacent(&g, &q, &st))
						continue;
					if (tx >= 0 && ax >= tx && ax < tx + sz &&
					    ay >= ty && ay < ty + sz)
						continue;
					vac = 1;
				}
			if (vac)
				p->q[p->nq++] = t;
		}
}

static void
pop(struct state *s)
{
	s->nprog--;
}

static void
finish(struct cx *x, struct state *s, struct prog *done)
{
	struct prog p = *done;
	refd_mpw *w;

	pop(s);
	if (p.aborted || !s->u[p.unit].on)
		return;
	if (p.kind == PK_CHARGE) {
		/* Hurling Charge: no melee if the target left its space */
		if (p.budget == 1 && (s->u[p.target].x != p.tx ||
		    s->u[p.target].y != p.ty))
			return;
		if (s->u[p.target].on && adjacent(x, s, p.unit, p.target) &&
		    functional(s, p.unit))
			attack(x, s, p.unit, p.target, 0, p.line, 1, 0);
	} else if (p.kind == PK_ROUT) {
		if (p.target == 1 && p.budget >= 1 &&
		    at_exit_sq(x, s, p.unit, s->u[p.unit].x, s->u[p.unit].y)) {
			eliminate(x, s, p.unit, "fled",
			    s->u[p.unit].rout_seat);
		} else {
			w = sk_ev("rout_stop");
			refd_mpw_kint(w, "unit", p.unit);
			refd_mpw_kint(w, "x", s->u[p.unit].x);
			refd_mpw_kint(w, "y", s->u[p.unit].y);
			sk_emit(x, w);
		}
	}
}

/* Next destination of a program: 1 with (tx, ty) (tx = -1: leave the
 * grid), 0 when finished. */
static int
next_dest(struct cx *x, struct state *s, struct prog *p, int *tx, int *ty)
{
	const struct map *m = MAP(x, s);
	int u = p->unit, slow, par;

	switch (p->kind) {
	case PK_STEP:
		if (p->idx >= 1)
			return 0;
		*tx = p->tx;
		*ty = p->ty;
		return 1;
	case PK_CHARGE:
		if (p->idx >= p->npath)
			return 0;
		*tx = p->path[p->idx] % m->w;
		*ty = p->path[p->idx] / m->w;
		if (step_slow(x, s, u, s->u[u].x, s->u[u].y, *tx, *ty,
		    MV_CHARGE) < 0) {
			p->aborted = 1;
			return 0;
		}
		return 1;
	default:
		if (s->u[u].stunned || helpless(s, u))
			return 0;
		if (p->npath < 0)
			rout_path(x, s, p);
		if (p->idx >= p->npath) {
			if (p->target == 1 && p->budget >= 1 &&
			    at_exit_sq(x, s, u, s->u[u].x, s->u[u].y)) {
				*tx = -1;
				*ty = -1;
				return 1;
			}
			return 0;
		}
		*tx = p->path[p->idx] % m->w;
		*ty = p->path[p->idx] / m->w;
		par = s->u[u].parity;
		slow = step_slow(x, s, u, s->u[u].x, s->u[u].y, *tx, *ty,
		    MV_ROUT);
		if (slow < 0 || grid_step_cost(*tx - s->u[u].x,
		    *ty - s->u[u].y, slow, &par) > p->budget) {
			rout_path(x, s, p);
			if (p->npath == 0)
				return p->target == 1 ? next_dest(x, s, p, tx,
				    ty) : 0;
			*tx = p->path[0] % m->w;
			*ty = p->path[0] / m->w;
		}
		return 1;
	}
}

/* Run movement programs until a decision is owed or none is left. */
void
sk_run(struct cx *x, struct state *s)
{
	while (x->rc == REFD_OK && s->stage != ST_OVER && s->dec == DEC_NONE &&
	    s->nprog > 0) {
		struct prog *p = &s->pr[s->nprog - 1];
		int u = p->unit, tx, ty;

		if (p->aborted || !s->u[u].on) {
			pop(s);
			continue;
		}
		if (!next_dest(x, s, p, &tx, &ty)) {
			finish(x, s, p);
			continue;
		}
		if (!p->qready)
			aoo_queue(x, s, p, tx, ty);
		while (p->qi < p->nq && !aoo_ok(x, s, p->q[p->qi], u))
			p->qi++;
		if (p->qi < p->nq) {
			s->dec = DEC_AOO;
			s->dec_unit = p->q[p->qi];
			return;
		}
		p->qready = 0;
		if (p->kind == PK_STEP) {
			int *acc = s->natk > 0 ? &s->moved2 : &s->moved;

			*acc += do_step(x, s, u, tx, ty, &s->parity);
			s->steps++;
			p->idx++;
		} else if (p->kind == PK_CHARGE) {
			s->moved += do_step(x, s, u, tx, ty, &s->parity);
			s->steps++;
			p->idx++;
		} else if (tx < 0) {
			p->budget -= 1;
			p->idx = p->npath;
			p->target = 2;
			eliminate(x, s, u, "fled", s->u[u].rout_seat);
		} else {
			p->budget -= do_step(x, s, u, tx, ty, &s->u[u].parity);
			p->idx++;
		}
	}
	if (x->rc == REFD_OK && s->stage == ST_TURN && s->dec == DEC_NONE &&
	    s->nprog == 0 && s->auto_end)
		end_turn(x, s);
}

/* ---------------------------------------------------------------- */
/* Rounds, phases, turns (§2.3-2.5) */

/* Turns per round: 2 with Dual Activation. */
int
activations(const struct cx *x, const struct state *s, int u)
{
	return has(x, s, u, AB_DUAL) ? 2 : 1;
}

static int
unactivated(const struct cx *x, const struct state *s, int seat)
{
	int i, n = 0;

	for (i = 0; i < s->nu; i++)
		n += s->u[i].on && s->u[i].seat == seat &&
		    s->u[i].activated < activations(x, s, i);
	return n;
}

/* §2.4 (R000-14): every seat in the roll rolls d20 + bonus; the best total
 * wins, ties go to the higher bonus, still tied seats reroll (alone). */
int
sk_roll_off(struct cx *x, struct state *s, const int32_t *bonus,
    const char *why)
{
	int r[SK_MAXSEATS], in = (1 << s->nseats) - 1, seat, win, best, bb, n;
	refd_mpw *w;

	for (;;) {
		best = -1000;
		for (seat = 0; seat < s->nseats; seat++)
			if (in >> seat & 1) {
				r[seat] = sk_roll(x, why);
				if (r[seat] + bonus[seat] > best)
					best = r[seat] + bonus[seat];
			}
		bb = -1000;
		for (seat = 0; seat < s->nseats; seat++)
			if (in >> seat & 1 && r[seat] + bonus[seat] == best &&
			    bonus[seat] > bb)
				bb = bonus[seat];
		win = -1;
		n = 0;
		w = sk_ev(why);
		if (s->nseats > 2) {
			refd_mpw_karray(w, "seats");
			for (seat = 0; seat < s->nseats; seat++)
				if (in >> seat & 1)
					refd_mpw_int(w, seat);
			refd_mpw_end(w);
		}
		refd_mpw_karray(w, "rolls");
		for (seat = 0; seat < s->nseats; seat++)
			if (in >> seat & 1)
				refd_mpw_int(w, r[seat]);
		refd_mpw_end(w);
		refd_mpw_karray(w, "totals");
		for (seat = 0; seat < s->nseats; seat++)
			if (in >> seat & 1)
				refd_mpw_int(w, r[seat] + bonus[seat]);
		refd_mpw_end(w);
		for (seat = 0; seat < s->nseats; seat++)
			if (!(in >> seat & 1) || r[seat] + bonus[seat] != best ||
			    bonus[seat] != bb)
				in &= ~(1 << seat);
			else {
				win = seat;
				n++;
			}
		if (n > 1)
			win = -1;
		refd_mpw_kint(w, "winner", win);
		sk_emit(x, w);
		if (win >= 0 || x->rc != REFD_OK)
			return win < 0 ? 0 : win;
	}
}

/* The next seat clockwise after seat with an unactivated creature, or
 * -1 (§2.3: a seat with none left is skipped). */
static int
next_seat(const struct cx *x, const struct state *s, int seat)
{
	int k, q;

	for (k = 1; k <= s->nseats; k++) {
		q = (seat + k) % s->nseats;
		if (unactivated(x, s, q) > 0)
			return q;
	}
	return -1;
}

static void
begin_phases(struct cx *x, struct state *s, int first)
{
	refd_mpw *w;

	s->first = first;
	s->phase_seat = first;
	if (unactivated(x, s, first) == 0 && next_seat(x, s, first) >= 0)
		s->phase_seat = next_seat(x, s, first);
	s->phase_left = 2;
	s->stage = ST_ACTIVATE;
	w = sk_ev("first_player");
	refd_mpw_kint(w, "round", s->round);
	refd_mpw_kint(w, "seat", first);
	sk_emit(x, w);
}

void
sk_start_round(struct cx *x, struct state *s)
{
	int32_t b[SK_MAXSEATS];
	int i;
	refd_mpw *w;

	s->round++;
	for (i = 0; i < s->nu; i++)
		if (!(s->round == 1 && s->first >= 0 && s->u[i].activated))
			s->u[i].activated = 0;
	w = sk_ev("round");
	refd_mpw_kint(w, "round", s->round);
	sk_emit(x, w);
	if (s->round == 1 && s->first >= 0) {
		begin_phases(x, s, s->first);
		return;
	}
	for (i = 0; i < s->nseats; i++)
		b[i] = init_bonus(x, s, i, 0);
	s->chooser = sk_roll_off(x, s, b, "initiative");
	s->stage = ST_FIRST;
}

void
sk_begin_game(struct cx *x, struct state *s)
{
	s->round = 0;
	check_victory(x, s);
	if (s->stage != ST_OVER)
		sk_start_round(x, s);
}

static void
end_round(struct cx *x, struct state *s)
{
	if (s->aggr)
		s->quiet = 0;
	else
		s->quiet++;
	s->aggr = 0;
	if (s->quiet >= s->stalemate) {
		game_over(x, s, tiebreak(x, s), RS_STALEMATE);
		return;
	}
	if (s->round >= s->round_limit) {
		game_over(x, s, tiebreak(x, s), RS_ROUNDS);
		return;
	}
	sk_start_round(x, s);
}

/* After a turn: who activates next (§2.3 steps 2-5). */
static void
next_activation(struct cx *x, struct state *s)
{
	int q = next_seat(x, s, s->phase_seat);

	if (q < 0) {
		end_round(x, s);
		return;
	}
	s->stage = ST_ACTIVATE;
	/* §2.3: phases pass clockwise; a seat with nothing left is skipped
	 * (alone, it activates its leftovers in a row) */
	if (s->phase_left <= 0 || unactivated(x, s, s->phase_seat) == 0) {
		s->phase_seat = q;
		s->phase_left = 2;
	}
}

/* Nearest legal position for a creature left on an illegal one. */
static void
relocate(struct cx *x, struct state *s, int u)
{
	const struct map *m = MAP(x, s);
	int ax, ay, bx = -1, by = -1, bd = 1 << 20;
	refd_mpw *w;

	for (ay = 0; ay < m->h; ay++)
		for (ax = 0; ax < m->w; ax++) {
			int d = grid_dist(ax, ay, s->u[u].x, s->u[u].y);

			if (d < bd && end_ok(x, s, u, ax, ay)) {
				bd = d;
				bx = ax;
				by = ay;
			}
		}
	if (bx < 0)
		return;
	s->u[u].x = bx;
	s->u[u].y = by;
	w = sk_ev("relocated");
	refd_mpw_kint(w, "unit", u);
	refd_mpw_kint(w, "x", bx);
	refd_mpw_kint(w, "y", by);
	sk_emit(x, w);
}

void
end_turn(struct cx *x, struct state *s)
{
	int u = s->cur;
	refd_mpw *w;

	if (u >= 0 && s->flipped == u) {
		s->u[u].seat = s->flip_owner;
		s->flipped = -1;
		s->flip_owner = -1;
	}
	if (u >= 0 && s->u[u].on && s->u[u].confused &&
	    save(x, s, u, s->u[u].confused_dc, "confusion")) {
		s->u[u].confused = 0;
		w = sk_ev("confusion_ends");
		refd_mpw_kint(w, "unit", u);
		sk_emit(x, w);
	}
	if (u >= 0 && s->u[u].on && s->u[u].paralyzed &&
	    save(x, s, u, s->u[u].paralyzed_dc, "paralysis")) {
		s->u[u].paralyzed = 0;
		w = sk_ev("paralysis_ends");
		refd_mpw_kint(w, "unit", u);
		sk_emit(x, w);
	}
	if (u >= 0 && s->u[u].on && s->u[u].entangled && !s->ent_tried &&
	    save(x, s, u, s->u[u].entangled_dc, "entangle")) {
		s->u[u].entangled = 0;
		w = sk_ev("entangle_ends");
		refd_mpw_kint(w, "unit", u);
		sk_emit(x, w);
	}
	if (u >= 0 && s->u[u].on) {
		if (s->stun_turn && s->u[u].stunned) {
			s->u[u].stunned = 0;
			w = sk_ev("stun_ends");
			refd_mpw_kint(w, "unit", u);
			sk_emit(x, w);
		}
		if (!end_ok(x, s, u, s->u[u].x, s->u[u].y))
			relocate(x, s, u);
	}
	w = sk_ev("turn_end");
	refd_mpw_kint(w, "unit", u);
	sk_emit(x, w);
	s->cur = -1;
	s->auto_end = 0;
	s->phase_left--;
	check_victory(x, s);
	if (s->stage != ST_OVER)
		next_activation(x, s);
}

/* §2.5 steps 2-6. */
void
start_turn(struct cx *x, struct state *s, int u)
{
	struct unit *p = &s->u[u];
	refd_mpw *w;

	s->turnid++;
	s->cur = u;
	s->moved = s->moved2 = s->steps = s->parity = s->natk = 0;
	s->atk_first = s->lines_used = s->atk_kind = s->single = 0;
	s->kinds = s->swift_used = 0;
	s->charged = s->cast = s->auto_end = s->stun_turn = 0;
	s->rush = s->rush_x = s->rush_y = s->rush_charge = 0;
	s->compel = 0;
	s->rend_t = -1;
	s->rend_hits = s->sidestepped = s->slowed1 = s->burrowing = 0;
	s->trampled = 0;
	s->rush_t = -1;
	p->activated++;
	s->stage = ST_TURN;
	s->oocmd = !under_command(x, s, u);
	s->speed = s->oocmd ? 2 : CARD(x, s, u)->speed;
	if (CARD(x, s, u)->speed < s->speed)
		s->speed = CARD(x, s, u)->speed;
	w = sk_ev("activate");
	refd_mpw_kint(w, "unit", u);
	refd_mpw_kstr(w, "name", CARD(x, s, u)->name);
	refd_mpw_kbool(w, "under_command", !s->oocmd);
	refd_mpw_kint(w, "speed", s->speed);
	sk_emit(x, w);
	s->ent_tried = s->ent_block = s->no_action = 0;
	if (p->confused && !p->routed && functional(s, u)) {
		/* §4.3 confusion table */
		int r = sk_roll(x, "confusion");

		w = sk_ev("confusion");
		refd_mpw_kint(w, "unit", u);
		refd_mpw_kint(w, "roll", r);
		refd_mpw_kstr(w, "result", r <= 5 ? "opponent controls" :
		    r <= 15 ? "does nothing" : "acts normally");
		sk_emit(x, w);
		if (r <= 5) {
			int k;

			/* A-x: with several opponents, the first one
			 * clockwise from the owner with creatures in play */
			s->flipped = u;
			s->flip_owner = p->seat;
			for (k = 1; k < s->nseats; k++) {
				int q = (p->seat + k) % s->nseats, j;

				if (!foe_seat(s, q, p->seat))
					continue;
				for (j = 0; j < s->nu; j++)
					if (s->u[j].on && s->u[j].seat == q)
						break;
				if (j < s->nu)
					break;
			}
			p->seat = (p->seat + (k < s->nseats ? k : 1)) %
			    s->nseats;
			s->oocmd = 1;
			s->speed = CARD(x, s, u)->speed < 2 ?
			    CARD(x, s, u)->speed : 2;
		} else if (r <= 15) {
			s->no_action = 1;
		}
	}
	{
		int k;

		/* Slow Effect: adjacent enemies save or attack once */
		for (k = 0; k < s->nu && !s->slowed1; k++)
			if (s->u[k].on && foe_seat(s, s->u[k].seat, p->seat) &&
			    CARD(x, s, k)->slow_dc > 0 && adjacent(x, s, k, u) &&
			    !save(x, s, u, CARD(x, s, k)->slow_dc, "slow effect"))
				s->slowed1 = 1;
	}
	if (p->poisoned) {
		/* §2.5 step 2: 5 damage before it acts */
		w = sk_ev("poison");
		refd_mpw_kint(w, "unit", u);
		refd_mpw_kint(w, "damage", 5);
		sk_emit(x, w);
		s->blame = p->poisoned <= s->nseats ? p->poisoned - 1 : -1;
		damage(x, s, u, 5, -1);
		s->blame = -1;
		if (!p->on || s->stage == ST_OVER) {
			sk_run(x, s);
			return;
		}
	}
	if (p->skip) {
		p->skip = 0;
		s->no_action = 1;
	}
	if (p->routed) {
		/* §4.2.5 rally */
		if (!p->stunned && !helpless(s, u) && (!s->oocmd ||
		    CARD(x, s, u)->commander >= 0 || has(x, s, u, AB_INDEP)) &&
		    morale(x, s, u, "rally") > 0) {
			p->routed = 0;
			p->rout_unit = p->rout_seat = -1;
			w = sk_ev("rallied");
			refd_mpw_kint(w, "unit", u);
			sk_emit(x, w);
		} else if (!p->stunned && !helpless(s, u)) {
			push_rout(x, s, u);
		}
		s->auto_end = 1;
		if (p->stunned)
			s->stun_turn = 1;
		sk_run(x, s);
		return;
	}
	if (p->stunned)
		s->stun_turn = 1;
	/* §3.2 / R000-23: an out-of-command Difficult creature that can
	 * attack, shoot or rush must do one of them. */
	if (s->oocmd && difficult_of(x, s, u) > 0 && functional(s, u) &&
	    !s->no_action) {
		int e, best, can = 0;

		for (e = 0; e < s->nu && !can; e++) {
			if (!s->u[e].on || !foe_seat(s, s->u[e].seat, p->seat))
				continue;
			if (adjacent(x, s, u, e))
				can = 1;
		}
		if (!can && CARD(x, s, u)->nranged > 0 && !threatened(x, s, u)) {
			int n = nearest_ranged(x, s, u, 1, CARD(x, s, u)->range);

			can = n >= 0;
		}
		for (e = 0; e < s->nu && !can; e++) {
			int c;

			if (!s->u[e].on || !foe_seat(s, s->u[e].seat, p->seat) ||
			    !sees(x, s, u, e))
				continue;
			c = rush_cost(x, s, u, e, &best);
			can = c >= 0 && c == best && c <= 2 * CARD(x, s, u)->speed;
		}
		s->compel = can;
	}
}

/* ---------------------------------------------------------------- */
/* Spells (§4.4): touch, range 6 and sight spells on one target; cone. */

/* §4.4.3, §4.4.8: the spell cannot affect a creature of t's type: heal
 * leaves Constructs untouched, "+N HP" needs a living target, a
 * condition-only spell does nothing to a creature immune to it. */
static int
spell_unaffected(const struct cx *x, const struct state *s,
    const struct spell *sp, int t)
{
	if (sp->heal > 0)
		return has(x, s, t, AB_NONLIVING) && !CARD(x, s, t)->undead;
	if (sp->fam >= 0)
		return x->c->fam[sp->fam].stat == ES_HP &&
		    has(x, s, t, AB_NONLIVING);
	if (sp->cond > 0 && sp->dmg <= 0)
		return cond_immune(x, s, t, sp->cond);
	return 0;
}

static int
spell_type_ok(const struct cx *x, const struct state *s, int u,
    const struct spell *sp, int t, char *msg, size_t len)
{
	if (!spell_unaffected(x, s, sp, t))
		return 0;
	snprintf(msg, len, "%s cannot affect %s: choose another spell or "
	    "action", sp->name, CARD(x, s, t)->name);
	(void)u;
	return -1;
}

int
spell_targets(const struct cx *x, const struct state *s, int u, int k, int t,
    char *msg, size_t len)
{
	const struct spell *sp = &CARD(x, s, u)->sp[k];
	struct grid_space a, b;
	int d, n;

	if (t < 0 || t >= s->nu || !s->u[t].on) {
		snprintf(msg, len, "no such creature on the grid");
		return -1;
	}
	if (sp->range == SR_ANYWB) {
		int k2;

		/* the warband is named by its first creature on the grid */
		for (k2 = 0; k2 < s->nu; k2++)
			if (s->u[k2].on && s->u[k2].seat == s->u[t].seat)
				break;
		if (k2 != t) {
			snprintf(msg, len, "%s: name a warband by its first "
			    "creature on the grid", sp->name);
			return -1;
		}
		return 0;
	}
	if (sp->range == SR_SELF || sp->range == SR_YOURWB) {
		if (t != u) {
			snprintf(msg, len, "%s: the target is the caster itself",
			    sp->name);
			return -1;
		}
		return sp->range == SR_SELF ?
		    spell_type_ok(x, s, u, sp, t, msg, len) : 0;
	}
	if (sp->range == SR_TOUCH) {
		if (t != u && !adjacent(x, s, u, t)) {
			snprintf(msg, len, "a touch spell targets the caster or "
			    "an adjacent creature");
			return -1;
		}
		return spell_type_ok(x, s, u, sp, t, msg, len);
	}
	if (t == u) {
		snprintf(msg, len, "%s targets the nearest enemy or ally, not "
		    "the caster", sp->name);
		return -1;
	}
	if (!sees(x, s, u, t)) {
		snprintf(msg, len, "%s cannot see that creature",
		    CARD(x, s, u)->name);
		return -1;
	}
	a = SP(x, s, u);
	b = SP(x, s, t);
	d = grid_space_dist(&a, &b);
	n = nearest_ranged(x, s, u, foe(s, t, u),
	    sp->range == SR_RANGE6 ? 6 : 0);
	if (sp->range == SR_RANGE6 && d > 6) {
		snprintf(msg, len, "out of range (6 squares)");
		return -1;
	}
	if (d != n && !sp->any) {
		snprintf(msg, len, "%s is not the nearest %s in sight "
		    "(distance %d, nearest %d)", CARD(x, s, t)->name,
		    foe(s, t, u) ? "enemy" : "ally", d, n);
		return -1;
	}
	return spell_type_ok(x, s, u, sp, t, msg, len);
}

static int
in_cone_unit(const struct cx *x, const struct state *s, int t, int ox,
    int oy, int orient)
{
	struct grid g;
	int sz = CARD(x, s, t)->size, i, j;

	sk_grid(x, s, &g);
	for (i = 0; i < sz; i++)
		for (j = 0; j < sz; j++)
			if (grid_in_cone(ox, oy, orient, s->u[t].x + i,
			    s->u[t].y + j) && grid_los_point(&g, ox, oy,
			    s->u[t].x + i, s->u[t].y + j))
				return 1;
	return 0;
}

int
cone_ok(const struct cx *x, const struct state *s, int u, int k, int ox,
    int oy, int orient, char *msg, size_t len)
{
	int sz = CARD(x, s, u)->size, t, cat;

	(void)k;
	if (ox < s->u[u].x || ox > s->u[u].x + sz || oy < s->u[u].y ||
	    oy > s->u[u].y + sz || orient < 0 || orient > 7) {
		snprintf(msg, len, "a cone starts at a corner of the caster's "
		    "space, orientation 0..7");
		return -1;
	}
	/* A43: the nearest enemy or the nearest ally must be inside. */
	for (cat = 1; cat >= 0; cat--) {
		int n = nearest_ranged(x, s, u, cat, 0);

		if (n < 0)
			continue;
		for (t = 0; t < s->nu; t++) {
			struct grid_space a, b;

			if (t == u || !s->u[t].on ||
			    (cat != (foe(s, t, u))) ||
			    !sees(x, s, u, t))
				continue;
			a = SP(x, s, u);
			b = SP(x, s, t);
			if (grid_space_dist(&a, &b) == n &&
			    in_cone_unit(x, s, t, ox, oy, orient))
				return 0;
		}
	}
	snprintf(msg, len, "the cone must contain the nearest enemy or the "
	    "nearest ally in sight");
	return -1;
}

static void
spell_hit(struct cx *x, struct state *s, int u, const struct spell *sp, int t)
{
	int dmg = sp->dmg, ok;
	refd_mpw *w;

	if (foe(s, t, u))
		s->aggr = 1;
	/* §4.4.6: spell resistance, waived for the caster's own side. */
	if ((CARD(x, s, t)->sr || has(x, s, t, AB_SRALL)) &&
	    !sp->ignores_sr && !sp->ability && (foe(s, t, u) ||
	    has(x, s, t, AB_SRALL))) {
		int r = sk_roll(x, "spell resistance");

		w = sk_ev("spell_resistance");
		refd_mpw_kint(w, "unit", t);
		refd_mpw_kint(w, "roll", r);
		refd_mpw_kbool(w, "affected", r >= 11 &&
		    !has(x, s, t, AB_SRALL));
		sk_emit(x, w);
		if (r < 11 || has(x, s, t, AB_SRALL))
			return;
	}
	if (sp->fam >= 0) {
		const struct family *f = &x->c->fam[sp->fam];

		w = sk_ev("effect");
		refd_mpw_kint(w, "unit", t);
		refd_mpw_kstr(w, "spell", f->name);
		if (s->u[t].buffs >> sp->fam & 1) {
			refd_mpw_kbool(w, "stacks", 0);	/* §4.4.7 */
			sk_emit(x, w);
			return;
		}
		s->u[t].buffs |= 1 << sp->fam;
		if (f->stat == ES_HP && !has(x, s, t, AB_NONLIVING))
			s->u[t].hp += f->value;
		refd_mpw_kint(w, "hp", s->u[t].hp);
		sk_emit(x, w);
		return;
	}
	if (sp->gaze && has(x, s, t, AB_BLINDFIGHT | AB_BLINDSIGHT))
		return;		/* immune to Gaze Attacks */
	if (sp->cond > 0 && sp->dmg <= 0) {
		condition(x, s, t, sp->cond, sp->dc, u);
		return;
	}
	if (sp->heal > 0 && CARD(x, s, t)->undead) {
		/* §4.4.8, A29: heal N deals N to an Undead, not reduced by
		 * DR, save for half at 12 + spell level (or + the acting
		 * creature's level for a non-spell) */
		dmg = sp->heal;
		if (save(x, s, t, 12 + (sp->ability ? CARD(x, s, u)->level :
		    sp->level), sp->name))
			dmg = grid_half5(dmg);
		w = sk_ev("spell_damage");
		refd_mpw_kint(w, "unit", t);
		refd_mpw_kint(w, "damage", dmg);
		refd_mpw_kint(w, "hp", s->u[t].hp - dmg);
		sk_emit(x, w);
		damage(x, s, t, dmg, u);
		return;
	}
	if (sp->heal > 0) {
		int hp = s->u[t].hp + sp->heal;

		if (has(x, s, t, AB_NONLIVING))
			return;
		if (hp > CARD(x, s, t)->hp)
			hp = CARD(x, s, t)->hp;
		s->u[t].hp = hp > s->u[t].hp ? hp : s->u[t].hp;
		w = sk_ev("healed");
		refd_mpw_kint(w, "unit", t);
		refd_mpw_kint(w, "hp", s->u[t].hp);
		sk_emit(x, w);
		return;
	}
	if (dmg <= 0)
		return;
	if (sp->dc > 0) {
		ok = save(x, s, t, sp->dc, sp->name);
		if (ok)
			dmg = grid_half5(dmg);
	}
	dmg = energy_adjust(x, s, t, dmg, sp->energy);
	w = sk_ev("spell_damage");
	refd_mpw_kint(w, "unit", t);
	refd_mpw_kint(w, "damage", dmg);
	refd_mpw_kint(w, "hp", s->u[t].hp - dmg);
	sk_emit(x, w);
	damage(x, s, t, dmg, u);
}

static int
in_radius_unit(const struct cx *x, const struct state *s, int t, int ox,
    int oy, int r)
{
	struct grid g;
	int sz = CARD(x, s, t)->size, i, j;

	sk_grid(x, s, &g);
	for (i = 0; i < sz; i++)
		for (j = 0; j < sz; j++)
			if (grid_burst(ox, oy, s->u[t].x + i, s->u[t].y + j) <=
			    r && grid_los_point(&g, ox, oy, s->u[t].x + i,
			    s->u[t].y + j))
				return 1;
	return 0;
}

static int
in_line_unit(const struct cx *x, const struct state *s, int u, int t,
    const int32_t *a)
{
	struct grid g;
	struct grid_space cs = SP(x, s, u), q;
	int sz = CARD(x, s, t)->size, i, j;

	sk_grid(x, s, &g);
	q.s = 1;
	for (i = 0; i < sz; i++)
		for (j = 0; j < sz; j++) {
			q.x = s->u[t].x + i;
			q.y = s->u[t].y + j;
			if (grid_ray_hits(a[2], a[3], a[4], a[5], q.x, q.y) &&
			    grid_space_dist(&cs, &q) <= 12 &&
			    grid_los_point(&g, a[2], a[3], q.x, q.y))
				return 1;
		}
	return 0;
}

/* §4.4.5 radius (a: spell, target, ox, oy) and line (a: spell, target,
 * sx, sy, px, py) templates. */
int
area_ok(const struct cx *x, const struct state *s, int u, const int32_t *a,
    int line, char *msg, size_t len)
{
	int t = a[1], tsz, usz = CARD(x, s, u)->size;

	if (spell_targets(x, s, u, a[0], t, msg, len) != 0)
		return -1;
	tsz = CARD(x, s, t)->size;
	if (!line) {
		int ok = tsz == 1 ? a[2] >= s->u[t].x && a[2] <= s->u[t].x + 1 &&
		    a[3] >= s->u[t].y && a[3] <= s->u[t].y + 1 :
		    a[2] > s->u[t].x && a[2] < s->u[t].x + tsz &&
		    a[3] > s->u[t].y && a[3] < s->u[t].y + tsz;

		if (!ok) {
			snprintf(msg, len, "a radius is centred on a corner of "
			    "a 1-square target or an inner point of a bigger "
			    "one");
			return -1;
		}
		return 0;
	}
	if (a[2] < s->u[u].x || a[2] > s->u[u].x + usz || a[3] < s->u[u].y ||
	    a[3] > s->u[u].y + usz || a[4] < s->u[t].x ||
	    a[4] > s->u[t].x + tsz || a[5] < s->u[t].y ||
	    a[5] > s->u[t].y + tsz || (a[2] == a[4] && a[3] == a[5])) {
		snprintf(msg, len, "a line runs from a corner of the caster's "
		    "space to another corner of the target's");
		return -1;
	}
	return 0;
}

/* R000-71: a use box, or the Sorcerer box (the lowest free level that
 * pays), or Psionic power points. */
void
spend_spell(struct cx *x, struct state *s, int u, int k)
{
	const struct card *C = CARD(x, s, u);
	const struct spell *sp = &C->sp[k];
	int lv;

	s->u[u].spent[k]++;
	if (C->pp > 0 && sp->pp > 0)
		s->u[u].pp_spent += sp->pp;
	else
		for (lv = sp->level > 0 ? sp->level : 1; lv < 10; lv++)
			if (C->sorc[lv] > s->u[u].sorc_spent[lv]) {
				s->u[u].sorc_spent[lv]++;
				break;
			}
}

/* Squares of a size-sz space at (ax, ay) free for a creature moving in,
 * but for the creatures o1 and o2 (the two switching places). */
static int
space_free(const struct cx *x, const struct state *s, int ax, int ay, int sz,
    int o1, int o2)
{
	struct grid g;
	int i, j, k;

	sk_grid(x, s, &g);
	for (i = 0; i < sz; i++)
		for (j = 0; j < sz; j++) {
			if (grid_at(&g, ax + i, ay + j) &
			    (GRID_WALL | GRID_STATUE | GRID_PIT))
				return 0;
			k = occupant(x, s, ax + i, ay + j, o1);
			if (k >= 0 && k != o2)
				return 0;
		}
	return 1;
}

/* Does the space (ax, ay, as) contain the space (bx, by, bs)? */
static int
covers(int ax, int ay, int as, int bx, int by, int bs)
{
	return bx >= ax && by >= ay && bx + bs <= ax + as && by + bs <= ay + as;
}

/* Glossary, switch positions (R000-94): u moves to anchor (ax, ay), t to
 * (bx, by).  Same size: a plain swap.  Different sizes: the larger's new
 * space covers the smaller's old one and the smaller's new space lies
 * inside the larger's old one; both on free squares (the active player
 * picks among the legal placements). */
int
switch_ok(const struct cx *x, const struct state *s, int u, int t, int ax,
    int ay, int bx, int by)
{
	int su = CARD(x, s, u)->size, st = CARD(x, s, t)->size;
	int ux = s->u[u].x, uy = s->u[u].y, tx = s->u[t].x, ty = s->u[t].y;

	if (t == u || !s->u[t].on)
		return 0;
	if (su == st) {
		if (ax != tx || ay != ty || bx != ux || by != uy)
			return 0;
	} else if (su > st) {
		if (!covers(ax, ay, su, tx, ty, st) ||
		    !covers(ux, uy, su, bx, by, st))
			return 0;
	} else if (!covers(bx, by, st, ux, uy, su) ||
	    !covers(tx, ty, st, ax, ay, su)) {
		return 0;
	}
	/* the two new spaces never overlap */
	if (ax < bx + st && bx < ax + su && ay < by + st && by < ay + su)
		return 0;
	return space_free(x, s, ax, ay, su, u, t) &&
	    space_free(x, s, bx, by, st, t, u);
}

/* a: spell, target, x, y, tx, ty.  An enemy target resists with a save
 * against the DC (if any): then nobody moves.  No attack of
 * opportunity. */
void
switch_places(struct cx *x, struct state *s, int u, const int32_t *a)
{
	const struct spell *sp = &CARD(x, s, u)->sp[a[0]];
	int t = a[1];
	refd_mpw *w;

	spend_spell(x, s, u, a[0]);
	w = sk_ev("cast");
	refd_mpw_kint(w, "unit", u);
	refd_mpw_kstr(w, "spell", sp->name);
	refd_mpw_kint(w, "target", t);
	sk_emit(x, w);
	if (foe(s, t, u)) {
		s->aggr = 1;
		if (sp->dc > 0 && save(x, s, t, sp->dc, sp->name)) {
			w = sk_ev("switch_resisted");
			refd_mpw_kint(w, "unit", t);
			sk_emit(x, w);
			return;
		}
	}
	s->u[u].x = a[2];
	s->u[u].y = a[3];
	s->u[t].x = a[4];
	s->u[t].y = a[5];
	w = sk_ev("switched");
	refd_mpw_kint(w, "unit", u);
	refd_mpw_kint(w, "x", a[2]);
	refd_mpw_kint(w, "y", a[3]);
	refd_mpw_kint(w, "target", t);
	refd_mpw_kint(w, "tx", a[4]);
	refd_mpw_kint(w, "ty", a[5]);
	sk_emit(x, w);
}

void
cast_spell(struct cx *x, struct state *s, int u, const int32_t *a)
{
	int k = a[0], t = a[1], ox = a[1], oy = a[2], orient = a[3];
	const struct spell *sp = &CARD(x, s, u)->sp[k];
	refd_mpw *w;
	int i, n = 0, list[SK_MAXU];

	spend_spell(x, s, u, k);
	w = sk_ev("cast");
	refd_mpw_kint(w, "unit", u);
	refd_mpw_kstr(w, "spell", sp->name);
	if (sp->range == SR_CONE) {
		ox = a[1];
		oy = a[2];
		orient = a[3];
		refd_mpw_kint(w, "ox", ox);
		refd_mpw_kint(w, "oy", oy);
		refd_mpw_kint(w, "orient", orient);
		for (i = 0; i < s->nu; i++)
			if (i != u && s->u[i].on &&
			    in_cone_unit(x, s, i, ox, oy, orient))
				list[n++] = i;
	} else if (sp->range == SR_YOURWB || sp->range == SR_ANYWB) {
		int ws = sp->range == SR_ANYWB ? s->u[t].seat : s->u[u].seat;

		for (i = 0; i < s->nu; i++)
			if (s->u[i].on && s->u[i].seat == ws)
				list[n++] = i;
	} else if (sp->range == SR_RADIUS2 || sp->range == SR_RADIUS4) {
		refd_mpw_kint(w, "target", t);
		refd_mpw_kint(w, "ox", a[2]);
		refd_mpw_kint(w, "oy", a[3]);
		for (i = 0; i < s->nu; i++)
			if (i != u && s->u[i].on && in_radius_unit(x, s, i, a[2],
			    a[3], sp->range == SR_RADIUS2 ? 2 : 4))
				list[n++] = i;
	} else if (sp->range == SR_LINE) {
		refd_mpw_kint(w, "target", t);
		for (i = 0; i < s->nu; i++)
			if (i != u && s->u[i].on && in_line_unit(x, s, u, i, a))
				list[n++] = i;
	} else {
		refd_mpw_kint(w, "target", t);
		list[n++] = t;
	}
	sim_order(s, list, n);
	refd_mpw_karray(w, "affected");
	for (i = 0; i < n; i++)
		refd_mpw_int(w, list[i]);
	refd_mpw_end(w);
	sk_emit(x, w);
	for (i = 0; i < n && s->stage != ST_OVER; i++)
		if (s->u[list[i]].on)
			spell_hit(x, s, u, sp, list[i]);
}

void begin_phases_pub(struct cx *x, struct state *s, int first);

/* Gaze Attack: a creature within the gazer's range that targets it with a
 * ranged attack or effect saves or suffers the gaze. */
void
gaze_back(struct cx *x, struct state *s, int a, int t)
{
	const struct card *T;
	int k;

	if (t < 0 || t >= s->nu || a == t || !s->u[t].on || !s->u[a].on ||
	    s->u[t].invisible || has(x, s, a, AB_BLINDFIGHT | AB_BLINDSIGHT))
		return;
	T = CARD(x, s, t);
	for (k = 0; k < T->nspell; k++) {
		struct grid_space sa = SP(x, s, a), st = SP(x, s, t);

		if (!T->sp[k].gaze || T->sp[k].cond <= 0)
			continue;
		if (T->sp[k].range == SR_RANGE6 && grid_space_dist(&sa, &st) > 6)
			continue;
		if (!sees(x, s, a, t))
			continue;
		condition(x, s, a, T->sp[k].cond, T->sp[k].dc, t);
		return;
	}
}

/* Glossary: Sidestep (a 1-square move without AoO), Whirlwind Attack, Turn
 * Undead. */
void
sidestep(struct cx *x, struct state *s, int u, int tx, int ty)
{
	s->moved += do_step(x, s, u, tx, ty, &s->parity);
	s->moved = 0;	/* it may still make all its attacks */
	s->steps = 1;
	s->sidestepped = s->natk > 0 ? 2 : 1;
}

void
whirlwind(struct cx *x, struct state *s, int u)
{
	int list[SK_MAXU], n = 0, k;

	for (k = 0; k < s->nu; k++)
		if (s->u[k].on && foe(s, k, u) &&
		    adjacent(x, s, u, k))
			list[n++] = k;
	for (k = 0; k < n && s->stage != ST_OVER && s->u[u].on &&
	    functional(s, u); k++)
		if (s->u[list[k]].on)
			attack(x, s, u, list[k], 0, 0, 0, 0);
}

/* The undead u may turn: nearest undead (any side) of level <= N within 12
 * squares in sight. */
int
turn_target_ok(const struct cx *x, const struct state *s, int u, int t)
{
	struct grid_space a = SP(x, s, u), b;
	int k, best = -1, d;

	for (k = 0; k < s->nu; k++) {
		if (k == u || !s->u[k].on || !CARD(x, s, k)->undead ||
		    CARD(x, s, k)->level > CARD(x, s, u)->turn_undead ||
		    !sees(x, s, u, k))
			continue;
		b = SP(x, s, k);
		d = grid_space_dist(&a, &b);
		if (d <= 12 && (best < 0 || d < best))
			best = d;
	}
	if (t < 0 || t >= s->nu || !s->u[t].on || !CARD(x, s, t)->undead ||
	    CARD(x, s, t)->level > CARD(x, s, u)->turn_undead ||
	    !sees(x, s, u, t))
		return 0;
	b = SP(x, s, t);
	return grid_space_dist(&a, &b) == best;
}

void
turn_undead(struct cx *x, struct state *s, int u, int t)
{
	refd_mpw *w = sk_ev("turn_undead");

	refd_mpw_kint(w, "unit", u);
	refd_mpw_kint(w, "target", t);
	sk_emit(x, w);
	if (foe(s, t, u))
		s->aggr = 1;
	if (!s->u[t].routed && morale(x, s, t, "turn undead") <= 0)
		rout(x, s, t, u);
}

void
begin_phases_pub(struct cx *x, struct state *s, int first)
{
	begin_phases(x, s, first);
}
