/*
 * rules.c - the encounter ruleset's rules engine: positions, threat,
 * cover and concealment on the map, Armor Class and attack bonuses, the
 * attack roll with its miss chance, criticals and damage, and the hit
 * point states (spec sections 2, 3, 4.8-4.10, 5.0-5.4).
 */
#include <stdio.h>
#include <string.h>

#include "conceal.h"
#include "geom.h"
#include "maneuver.h"
#include "mount.h"
#include "rules.h"
#include "magic.h"
#include "gear.h"

int
mod(int score)
{
	return score >= 10 ? (score - 10) / 2 : -((11 - score) / 2);
}

int
space_n(const struct cr *c)
{
	if (c->ride_n)
		return c->ride_n;	/* a rider shares its mount's space */
	return c->d.size <= 0 ? 1 : c->d.size + 1;
}

int
natreach(const struct cr *c)
{
	if (c->d.reach >= 0)
		return c->d.reach;
	if (c->d.size <= -2)
		return 0;
	return c->d.size <= 0 ? 1 : c->d.size + 1;
}

int
sizemod(int size)
{
	static const int m[] = { 2, 1, 0, -1, -2 };

	return size >= -2 && size <= 2 ? m[size + 2] : 0;
}

int
alive(const struct cr *c)
{
	return !c->dead;
}

/* Conscious and able to act (disabled and staggered included). */
int
able(const struct cr *c)
{
	return !c->dead && !c->asleep && c->hp >= 0 && c->nl <= c->hp;
}

int
helpless(const struct cr *c)
{
	return !c->dead && (!able(c) || (c->cond & COND_PARALYSED));
}

/* Able and free to act: not stunned, dazed, cowering or paralysed. */
/* v sees c despite invisibility: c is not invisible, or v sees
 * invisible things (5.2). */
int
sees_invis(const struct st *s, int v, int c)
{
	if (v < 0 || v == c || !s->c[c].d.invisible)
		return 1;
	return s->c[v].d.see_invis && !(s->c[v].cond & COND_BLINDED);
}

/* v perceives c (5.2): not invisible to v, not hidden from v by
 * darkness, opaque fog or a Hide check (conceal.c). */
int
perceives(const struct st *s, int v, int c)
{
	if (v < 0 || v == c)
		return 1;
	return sees_invis(s, v, c) && !cc_unseen(s, v, c);
}

/* The seat (or the spectators) may be shown where c is (8.4). */
int
seat_sees(const struct st *s, int seat, int c)
{
	return cc_seat_sees(s, seat, c);
}

int
save_pen(const struct cr *c)
{
	return mg_save_pen(c) - gr_resist(c);	/* saves only */
}

int
acts(const struct cr *c)
{
	return able(c) && !mg_no_act(c);
}

/* Restricted activity (R001-05): surprise round, disabled, staggered. */
int
restricted(const struct st *s, const struct cr *c)
{
	return s->surprise || c->hp == 0 || (c->nl > 0 && c->nl == c->hp) ||
	    (c->cond & COND_NAUSEATED);
}

/* Speed after armour (R001-10). */
int
speed_of(const struct cr *c)
{
	static const int from[] = { 4, 6, 8, 10, 12 }, to[] = { 3, 4, 6, 7, 8 };
	int sp = c->d.speed, i;

	if (c->mounted)
		return c->ride_sp;	/* the mount's speed (5.15) */
	if (c->d.fast && c->d.armor_type < 3)
		sp += 2;	/* barbarian fast movement, before armour */
	if (c->d.monk_bonus && c->d.armor_type == 0)
		sp += c->d.monk_bonus;	/* unarmoured monk */
	/* Same-type modifiers do not stack: one reduction for armour or
	 * load, whichever applies. */
	if ((c->d.armor_type >= 2 || c->d.heavy_load) && !c->d.dwarf) {
		for (i = 0; i < 5; i++)
			if (from[i] == sp) {
				sp = to[i];
				break;
			}
		if (i == 5)
			sp = sp - sp / 3;
	}
	if ((c->cond & (COND_ENTANGLED | COND_EXHAUSTED | COND_BLINDED)) &&
	    !c->no62)
		sp /= 2;	/* 6.2 */
	return sp;
}

/* The weapon it makes melee attacks and AoOs with. */
void
melee_weapon(const struct cr *c, struct weapon *w)
{
	if (!c->d.w[0].ranged)
		*w = c->d.w[0];
	else
		unarmed_weapon(w, c->d.size);
}

/* Armed for melee (2.10): a weapon, a natural weapon or IUS. */
int
armed(const struct cr *c)
{
	const struct weapon *w = &c->d.w[0];

	if (!w->ranged && !w->unarmed)
		return 1;
	return (c->d.feats & F_IUS) != 0;
}

int
cdist(const struct cr *a, const struct cr *b)
{
	return g_space_dist(a->x, a->y, space_n(a), b->x, b->y, space_n(b));
}

static int
band(const struct cr *a, const struct weapon *w, int d)
{
	int r = natreach(a);

	if (w->reach) {
		if (a->d.size <= 0)
			return d == 2;
		return d > r && d <= 2 * r;
	}
	if (r == 0)
		return d == 0;
	return d <= r;	/* its own square too, where a Tiny foe may be */
}

/* a can make a melee attack with w on some square of t's space. */
int
reaches(const struct st *s, const struct cr *a, const struct weapon *w,
    const struct cr *t)
{
	int i, j, n = space_n(t);

	(void)s;
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if (band(a, w, g_space_dist(a->x, a->y, space_n(a),
			    t->x + i, t->y + j, 1)))
				return 1;
	return 0;
}

int
threatens(const struct st *s, int a, int t)
{
	const struct cr *c = &s->c[a];
	struct weapon w;

	if (!acts(c) || c->grap || !armed(c) || a == t || c->casting ||
	    c->turned_by)
		return 0;	/* casting a 1-round spell: no threat (4.8) */
	melee_weapon(c, &w);
	return reaches(s, c, &w, &s->c[t]);
}

int
occupant(const struct st *s, int x, int y, int except)
{
	int i;

	for (i = 0; i < s->nc; i++) {
		const struct cr *c = &s->c[i];
		int n = space_n(c);

		if (i == except || c->dead || mt_pair(s, i, except))
			continue;
		if (x >= c->x && x < c->x + n && y >= c->y && y < c->y + n)
			return i;
	}
	return -1;
}

/* Feature sets for the segment test. */
struct fctx {
	const struct st *s;
	int a, t;
	int mode;		/* 0 block, 1 cover, 2 adjacent-melee walls, 3 fog */
	int level;		/* fog: least percent that counts */
};

static int
in_space(const struct cr *c, int x, int y)
{
	int n = space_n(c);

	return x >= c->x && x < c->x + n && y >= c->y && y < c->y + n;
}

/*
 * A low obstacle at square(s) (x1, y1) / (x2, y2) gives cover only to a
 * target within 6 squares of it, and not against an attacker strictly
 * closer to it than the target (5.1.4).
 */
static int
low_counts(const struct st *s, int a, int t, int x1, int y1, int x2, int y2)
{
	const struct cr *A = &s->c[a], *T = &s->c[t];
	int dt1 = g_space_dist(T->x, T->y, space_n(T), x1, y1, 1);
	int dt2 = g_space_dist(T->x, T->y, space_n(T), x2, y2, 1);
	int da1 = g_space_dist(A->x, A->y, space_n(A), x1, y1, 1);
	int da2 = g_space_dist(A->x, A->y, space_n(A), x2, y2, 1);
	int dt = dt1 < dt2 ? dt1 : dt2, da = da1 < da2 ? da1 : da2;

	return dt <= 6 && !(da < dt);
}

static int
f_sq(const void *u, int x, int y)
{
	const struct fctx *f = u;
	const struct st *s = f->s;
	int fl;

	if (x < 0 || y < 0 || x >= s->w || y >= s->h)
		return 0;
	if (in_space(&s->c[f->a], x, y) || in_space(&s->c[f->t], x, y))
		return 0;
	fl = s->sq[y][x];
	switch (f->mode) {
	case 0:
		return (fl & SQ_WALL) != 0;
	case 4:
		return (fl & SQ_IMPROVED) != 0;
	case 5:
		return cc_sq_opaque(s, f->a, x, y);
	case 1:
	case 6:
		if (fl & (SQ_WALL | SQ_IMPROVED))
			return 1;
		return (fl & SQ_OBST) && low_counts(s, f->a, f->t, x, y, x, y);
	case 2:
		return (fl & (SQ_WALL | SQ_OBST)) != 0;
	default:
		return s->fog[y][x] >= f->level;
	}
}

static int
f_edge(const void *u, int x, int y, int h)
{
	const struct fctx *f = u;
	const struct st *s = f->s;
	int fl;

	if (x < 0 || y < 0 || x > s->w || y > s->h || f->mode == 3)
		return 0;
	if (f->mode == 5)
		return cc_edge_opaque(s, x, y, h);
	fl = h ? s->eh[y][x] : s->ev[y][x];
	fl &= E_WALL | E_LOW;	/* opaque edges only block sight */
	if (f->mode == 4)
		return 0;
	if (f->mode == 0 || (fl & E_WALL))
		return (fl & E_WALL) != 0;
	/* A low edge: the two squares bordering it. */
	if (fl && (f->mode == 1 || f->mode == 6))
		return low_counts(s, f->a, f->t, h ? x : x - 1, h ? y - 1 : y,
		    x, y);
	return fl != 0;
}

static int
f_soft(const void *u, int x, int y)
{
	const struct fctx *f = u;
	int o;

	if (f->mode != 1)
		return 0;
	/* Creatures sharing the target's space (a grapple) give none. */
	if (in_space(&f->s->c[f->a], x, y) || in_space(&f->s->c[f->t], x, y))
		return 0;
	o = occupant(f->s, x, y, -1);
	return o >= 0 && o != f->a && o != f->t && !mt_pair(f->s, o, f->a) &&
	    !mt_pair(f->s, o, f->t);
}

/* Segment from corner (ax, ay) of square (sx, sy) to corner (bx, by) of
 * square (tx, ty) is obstructed by the features of f. */
static int
seg(const struct fctx *f, int sx, int sy, int ax, int ay, int tx, int ty,
    int bx, int by)
{
	struct g_feat g;

	g.sq = f_sq;
	g.edge = f_edge;
	g.soft = f_soft;
	g.u = f;
	return g_obstructed(&g, ax, ay, bx, by, sx, sy, tx, ty);
}

/* Every choice of an attacker corner is blocked (5.1.1): 1. */
static int
all_blocked(const struct fctx *f)
{
	const struct cr *a = &f->s->c[f->a], *t = &f->s->c[f->t];
	int na = space_n(a), nt = space_n(t);
	int i, j, ci, ti, tj, k, blocked;

	for (i = 0; i < na; i++)
		for (j = 0; j < na; j++)
			for (ci = 0; ci < 4; ci++) {
				int ax = a->x + i + (ci & 1);
				int ay = a->y + j + (ci >> 1);

				for (ti = 0; ti < nt; ti++)
					for (tj = 0; tj < nt; tj++) {
						blocked = 0;
						for (k = 0; k < 4 && !blocked;
						    k++)
							blocked = seg(f,
							    a->x + i, a->y + j,
							    ax, ay, t->x + ti,
							    t->y + tj,
							    t->x + ti + (k & 1),
							    t->y + tj +
							    (k >> 1));
						if (!blocked)
							return 0;
					}
			}
	return 1;
}

/* Every corner choice of a against t meets a feature of the given mode
 * (5.1.1, 5.2): 5 blocks a's sight, 6 hard cover, 4 improved cover. */
int
feat_blocked(const struct st *s, int a, int t, int mode)
{
	struct fctx f;

	f.s = s;
	f.a = a;
	f.t = t;
	f.mode = mode;
	f.level = 0;
	return all_blocked(&f);
}

/* Line of effect (D001-31): some corner pair joined without Φ_block. */
int
has_loe(const struct st *s, int a, int t)
{
	const struct cr *A = &s->c[a], *T = &s->c[t];
	struct fctx f;
	int na = space_n(A), nt = space_n(T);
	int i, j, ci, ti, tj, k;

	f.s = s;
	f.a = a;
	f.t = t;
	f.mode = 0;
	f.level = 0;
	for (i = 0; i < na; i++)
		for (j = 0; j < na; j++)
			for (ci = 0; ci < 4; ci++)
				for (ti = 0; ti < nt; ti++)
					for (tj = 0; tj < nt; tj++)
						for (k = 0; k < 4; k++)
							if (!seg(&f, A->x + i,
							    A->y + j,
							    A->x + i + (ci & 1),
							    A->y + j + (ci >> 1),
							    T->x + ti,
							    T->y + tj,
							    T->x + ti + (k & 1),
							    T->y + tj +
							    (k >> 1)))
								return 1;
	return 0;
}

/*
 * Cover of t against a (5.1): 1 when t has cover.  Adjacent melee uses
 * walls only, and some obstructed line is enough (5.1.2).
 */
int
cover_vs(const struct st *s, int a, int t, int melee)
{
	const struct cr *A = &s->c[a], *T = &s->c[t];
	struct fctx f;
	int i, j;

	f.s = s;
	f.a = a;
	f.t = t;
	f.level = 0;
	if (melee && cdist(A, T) <= 1) {
		f.mode = 2;
		for (i = 0; i < 4; i++)
			for (j = 0; j < 4; j++)
				if (seg(&f, A->x, A->y, A->x + (i & 1),
				    A->y + (i >> 1), T->x, T->y,
				    T->x + (j & 1), T->y + (j >> 1)) &&
				    !(A->x + (i & 1) == T->x + (j & 1) &&
				    A->y + (i >> 1) == T->y + (j >> 1)))
					return 1;
		return 0;
	}
	f.mode = 1;
	if (!all_blocked(&f))
		return 0;
	f.mode = 4;	/* improved when every choice meets an arrow slit */
	return all_blocked(&f) ? 2 : 1;
}

/* Concealment miss chance of t against a, percent (5.2). */
int
conceal_vs(const struct st *s, int a, int t, int melee)
{
	if (!perceives(s, a, t) || ((s->c[a].cond & COND_BLINDED) &&
	    !s->c[a].no62))
		return 50;	/* total concealment (5.2; blinded: 6.2) */
	return conceal_terrain(s, a, t, melee);
}

/* The same from fog and the creature's own concealment only. */
int
conceal_terrain(const struct st *s, int a, int t, int melee)
{
	const struct cr *A = &s->c[a], *T = &s->c[t];
	struct fctx f;
	int best = T->d.conceal, lv, x, y, n = space_n(T), i, j, m;

	f.s = s;
	f.a = a;
	f.t = t;
	f.mode = 3;
	/* A target whose whole space is in fog is concealed (5.2). */
	m = 100;
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			x = T->x + i;
			y = T->y + j;
			if (x < s->w && y < s->h && s->fog[y][x] < m)
				m = s->fog[y][x];
		}
	if (m > best)
		best = m;
	if (melee && cdist(A, T) <= 1)
		return best;
	/* Try each fog level present, highest first. */
	for (lv = 100; lv > best; lv--) {
		int present = 0;

		for (y = 0; y < s->h && !present; y++)
			for (x = 0; x < s->w && !present; x++)
				present = s->fog[y][x] == lv;
		if (!present)
			continue;
		f.level = lv;
		/* Concealed iff every corner choice sees fog on some line:
		 * a fog "obstruction" on one of the four lines blocks it. */
		if (all_blocked(&f))
			return lv;
	}
	return best;
}

/* a flanks d (5.4): some ally threatening d lies opposite a. */
int
flanked(const struct st *s, int a, int d)
{
	const struct cr *A = &s->c[a], *D = &s->c[d];
	int b, i, j, k, l;

	if (natreach(A) == 0)
		return 0;
	for (b = 0; b < s->nc; b++) {
		const struct cr *B = &s->c[b];

		if (b == a || b == d || B->side != A->side ||
		    natreach(B) == 0 || !threatens(s, b, d))
			continue;
		for (i = 0; i < space_n(A); i++)
			for (j = 0; j < space_n(A); j++)
				for (k = 0; k < space_n(B); k++)
					for (l = 0; l < space_n(B); l++)
						if (g_flanks(A->x + i, A->y + j,
						    B->x + k, B->y + l, D->x,
						    D->y, space_n(D)))
							return 1;
	}
	return 0;
}

/* d loses its Dex bonus to AC against a (a may be -1). */
int
loses_dex(const struct st *s, int d, int a)
{
	const struct cr *D = &s->c[d];

	if (D->flat && !(D->d.feats & F_UD))
		return 1;
	if (D->cond & COND_NODEX)
		return 1;
	if (D->ran && !(D->d.feats & F_RUN))
		return 1;
	if (a >= 0 && s->c[a].feint_vs == d)
		return 1;
	if (a >= 0 && !sees_invis(s, d, a))
		return 1;	/* an invisible attacker (5.2) */
	if (D->grap && !man_in_grapple(s, d, a))
		return 1;
	if (cc_squeeze_now(s, d) == 2)
		return 1;	/* narrower than half its width (4.4) */
	return 0;
}

/* AC of d against a (2.4, 2.5), without cover and aid. */
int
ac_vs(const struct st *s, int d, int a, int flags)
{
	const struct cr *D = &s->c[d];
	int dexm = mod(D->d.dex), dodge = 0, ac;

	if (dexm > D->d.maxdex)
		dexm = D->d.maxdex;
	if (D->fdef)
		dodge += 2;
	if (D->tdef)
		dodge += 4;
	if (helpless(D) || (D->pinned_by && a != D->pinned_by - 1)) {
		dexm = -5;	/* helpless, or pinned (D001-10) */
		dodge = 0;
	} else if (loses_dex(s, d, a)) {
		if (dexm > 0)
			dexm = 0;
		dodge = 0;
	}
	ac = 10 + sizemod(D->d.size) + gr_deflect(D) + dexm + dodge;
	if (!(flags & A_TOUCH))
		ac += D->d.armor + D->d.shield + D->d.natural;
	if ((helpless(D) || (D->pinned_by && a != D->pinned_by - 1)) &&
	    !(flags & A_RANGED))
		ac -= 4;
	if (D->prone)
		ac += (flags & A_RANGED) ? 4 : -4;
	if (D->cond & COND_KNEELING)
		ac += (flags & A_RANGED) ? 2 : -2;
	if (D->cond & COND_NODEX)
		ac -= 2;
	if (D->rebuked_by || (D->turned_by && D->cornered))
		ac -= 2;	/* rebuked undead cower: +2 to hit (5.16) */
	if ((D->cond & COND_SQUEEZING) || cc_squeeze_now(s, d))
		ac -= 4;
	if (D->charged)
		ac -= 2;
	return ac;
}

static int
into_melee(const struct st *s, int a, int d)
{
	int b, engaged = 0, near = 0;

	for (b = 0; b < s->nc; b++) {
		if (b == a || b == d || s->c[b].side != s->c[a].side ||
		    !able(&s->c[b]))
			continue;
		if (threatens(s, b, d) || threatens(s, d, b))
			engaged = 1;
		if (cdist(&s->c[b], &s->c[d]) < 2)
			near = 1;
	}
	return engaged && near;
}

/* Attack bonus of a against d with w (2.1, 2.3), pen included. */
int
atk_bonus(const struct st *s, int a, int d, const struct weapon *w,
    int flags, int pen)
{
	const struct cr *A = &s->c[a];
	int b = A->d.bab + sizemod(A->d.size) + w->enh - pen, i;

	if (flags & A_RANGED) {
		int dist = cdist(A, &s->c[d]), n;

		b += mod(A->d.dex);
		n = (dist + w->incr - 1) / w->incr;
		if (n > 1)
			b -= s->range_pen * (n - 1);
		if (!(A->d.feats & F_PS) && into_melee(s, a, d))
			b -= 4;
	} else {
		b += mod(A->d.str);
		if (A->prone)
			b -= 4;
		if (flanked(s, a, d))
			b += 2;
	}
	if (flags & A_CHARGE)
		b += 2;
	if (A->fdef)
		b -= 4;
	if (A->cond & COND_DAZZLED)
		b -= 1;
	if (A->cond & (COND_ENTANGLED | COND_SHAKEN | COND_FRIGHTENED |
	    COND_SICKENED))
		b -= 2;
	if ((A->cond & COND_SQUEEZING) || cc_squeeze_now(s, a) == 1)
		b -= 4;
	if ((A->cond & COND_HIGHER) && !(flags & A_RANGED))
		b += 1;
	if (!sees_invis(s, d, a) && !(s->c[d].cond & COND_BLINDED))
		b += 2;	/* invisible attacker */
	/* Nonlethal by choice: -4, not for an unarmed strike that deals it
	 * anyway nor for a monk's (2.10). */
	if ((flags & A_NONLETHAL) && !(w->unarmed && (w->nonlethal ||
	    gr_monk(A))))
		b -= 4;
	if (flags & A_GRAP)
		b -= 4;	/* 5.13 */
	if ((flags & A_LETHAL) && !(A->d.feats & F_IUS))
		b -= 4;
	for (i = 0; i < s->nc; i++)
		if (s->c[i].aid_mode == 1 && s->c[i].aid_ally == a &&
		    s->c[i].aid_enemy == d)
			b += 2;
	return b + mt_atk(s, a, d, flags);
}

int
can_aoo(const struct st *s, int t, int m)
{
	const struct cr *T = &s->c[t];
	int limit = 1;

	if (T->d.mount && (T->d.mount == 2 || mt_partner(s, t) < 0))
		return 0;	/* riderless or frightened: avoids combat */
	if (t == m || T->side == s->c[m].side || !acts(T) || T->flat ||
	    T->tdef || T->grap || !armed(T))
		return 0;
	if (s->surprise && !T->aware)
		return 0;
	if (T->d.feats & F_CR) {
		limit = 1 + mod(T->d.dex);
		if (limit < 1)
			limit = 1;
	}
	if (T->aoo_used >= limit)
		return 0;
	if (!threatens(s, t, m) || !perceives(s, t, m) ||
	    cc_squeeze_now(s, t) == 2)
		return 0;
	if (cover_vs(s, t, m, 1))
		return 0;
	return 1;
}

int
roll(refd_ctx *ctx, uint32_t sides, const char *why, int *out)
{
	uint32_t v;
	int rc = enc_host->roll(ctx, sides, why, &v);

	if (rc == REFD_OK)
		*out = (int)v;
	return rc;
}

/*
 * Hidden numbers in events (8.4): a key that shows a creature's exact
 * modifiers, totals, AC, saves or pools belongs to that creature: -1
 * for an observable key (type, names, dice, hit, damage dealt...), else
 * the creature's index (who: the actor, target: the creature acted on).
 */
static int
key_owner(const char *type, const char *k, size_t n, int who, int target)
{
	static const char *const mine[] = { "bonus", "total",
		"confirm_total", "check", "max_hd", "pool", "pool_left" };
	static const char *const theirs[] = { "ac", "target_total",
		"item_hp", "hardness" };
	size_t i;

	for (i = 0; i < sizeof(mine) / sizeof(mine[0]); i++)
		if (strlen(mine[i]) == n && memcmp(k, mine[i], n) == 0)
			return who;
	for (i = 0; i < sizeof(theirs) / sizeof(theirs[0]); i++)
		if (strlen(theirs[i]) == n && memcmp(k, theirs[i], n) == 0)
			return target;
	if (n == 6 && memcmp(k, "amount", 6) == 0 &&
	    strcmp(type, "temp_hp") == 0)
		return target;
	/* A spell's save DC shows its caster's modifier (8.4): the event
	 * names the caster as its "target" owner (emitw). */
	if (n == 2 && memcmp(k, "dc", 2) == 0 && strcmp(type, "save") == 0)
		return target;
	return -1;
}

static int
by_name(const struct st *s, refd_mpv v)
{
	const char *p;
	size_t n;
	int i;

	if (refd_mpv_str(v, &p, &n) != 0)
		return -1;
	for (i = 0; i < s->nc; i++)
		if (strlen(s->c[i].d.name) == n &&
		    memcmp(s->c[i].d.name, p, n) == 0)
			return i;
	return -1;
}

/* The keys of event ev that seat sees (REFD_SEAT_PUBLIC: observable
 * ones only); *hidden counts the hidden keys kept.  A seat that does not
 * perceive an invisible target is not told which creature it is. */
static refd_mpw *
redact(const struct st *s, refd_mpv ev, int seat, int who, int target,
    int *hidden)
{
	refd_mpw *w = refd_mpw_create();
	const char *type = refd_mpv_get_str(ev, "type", "");
	size_t i, n = refd_mpv_len(ev);

	*hidden = 0;
	refd_mpw_map(w);
	for (i = 0; i < n; i++) {
		refd_mpv k = refd_mpv_key_at(ev, i);
		const char *p;
		size_t kn;
		int o;

		if (refd_mpv_str(k, &p, &kn) != 0)
			continue;
		o = key_owner(type, p, kn, who, target);
		if (o >= 0 && (seat == REFD_SEAT_PUBLIC ||
		    s->c[o].side != seat))
			continue;
		if (o >= 0)
			(*hidden)++;
		/* An unseen target: who was there, and its miss chance, go
		 * only to the seats that perceive it (8.4). */
		if (target >= 0 && !seat_sees(s, REFD_SEAT_PUBLIC, target) &&
		    ((kn == 6 && memcmp(p, "target", 6) == 0) ||
		    (kn == 16 && memcmp(p, "miss_chance_roll", 16) == 0))) {
			if (!seat_sees(s, seat, target))
				continue;
			(*hidden)++;
		}
		refd_mpw_value(w, k);
		refd_mpw_value(w, refd_mpv_val_at(ev, i));
	}
	refd_mpw_end(w);
	return w;
}

int
emit_raw(refd_ctx *ctx, int seat, refd_mpw *w)
{
	int rc;

	if (w == NULL || refd_mpw_error(w)) {
		refd_mpw_destroy(w);
		return REFD_ENOMEM;
	}
	rc = enc_host->emit(ctx, seat, refd_mpw_data(w), refd_mpw_len(w));
	refd_mpw_destroy(w);
	return rc;
}

/*
 * Emit event w (8.4): the public event carries only what everybody can
 * observe; a seat whose creature's hidden numbers the event names gets
 * them first in a private copy of the whole event.
 */
int
emitw(refd_ctx *ctx, const struct st *s, refd_mpw *w)
{
	refd_mpdoc *d;
	refd_mpv ev;
	int seat, who, target, hidden, rc = REFD_OK;

	if (w == NULL || refd_mpw_error(w)) {
		refd_mpw_destroy(w);
		return REFD_ENOMEM;
	}
	d = refd_mp_parse(refd_mpw_data(w), refd_mpw_len(w));
	refd_mpw_destroy(w);
	if (d == NULL)
		return REFD_ENOMEM;
	ev = refd_mp_root(d);
	who = by_name(s, refd_mpv_get(ev, "who"));
	if (who < 0)
		who = by_name(s, refd_mpv_get(ev, "attacker"));
	target = by_name(s, refd_mpv_get(ev, "target"));
	if (target < 0)
		target = by_name(s, refd_mpv_get(ev, "caster"));
	for (seat = 0; seat < s->nseats && rc == REFD_OK; seat++) {
		w = redact(s, ev, seat, who, target, &hidden);
		if (hidden)
			rc = emit_raw(ctx, seat, w);
		else
			refd_mpw_destroy(w);
	}
	if (rc == REFD_OK)
		rc = emit_raw(ctx, REFD_SEAT_PUBLIC,
		    redact(s, ev, REFD_SEAT_PUBLIC, who, target, &hidden));
	refd_mp_free(d);
	return rc;
}

static const char *const stn[NSTATES] = { "normal", "staggered",
	"disabled", "asleep", "unconscious", "stable", "dying", "dead" };

int
state_idx(const struct cr *c)
{
	if (c->dead)
		return 7;
	if (c->hp < 0)
		return c->stable ? 5 : 6;
	if (c->nl > c->hp)
		return 4;
	if (c->asleep)
		return 3;
	if (c->hp == 0)
		return 2;
	if (c->nl > 0 && c->nl == c->hp)
		return 1;
	return 0;
}

const char *
state_name(const struct cr *c)
{
	return stn[state_idx(c)];
}

/*
 * Announce the visible states that changed since the last announcement
 * (8.4): once per command, before a turn begins and before the end, so
 * a state a creature passes through within one action (down to 0 HP by
 * an attack of opportunity, then healed by the potion it drinks) shows
 * no more than the views do, and says nothing about its exact HP.
 */
int
ev_states(refd_ctx *ctx, struct st *s)
{
	int i, rc;

	for (i = 0; i < s->nc; i++) {
		refd_mpw *w;

		if (s->shown[i] == state_idx(&s->c[i]))
			continue;
		s->shown[i] = state_idx(&s->c[i]);
		w = refd_mpw_create();
		refd_mpw_map(w);
		refd_mpw_kstr(w, "type", "state");
		refd_mpw_kstr(w, "who", s->c[i].d.name);
		refd_mpw_kstr(w, "state", stn[s->shown[i]]);
		refd_mpw_end(w);
		if ((rc = emitw(ctx, s, w)) != REFD_OK)
			return rc;
	}
	return REFD_OK;
}

/* Strength to damage (2.7). */
int
str_dmg(const struct cr *a, const struct weapon *w, int off)
{
	int m = mod(a->d.str);

	if (w->nostr)
		return w->plus;
	if (w->ranged == 2) {
		if (w->sling)
			return m;
		if (w->crossbow || w->composite)
			return 0;
		return m < 0 ? m : 0;
	}
	if (m <= 0)
		return m;
	if (off)
		return m / 2;	/* off hand, thrown ones too (2.13) */
	if (w->ranged)
		return m;
	if (w->cat == 2 && !(w->lance && a->mounted))	/* one hand mounted */
		return m * 3 / 2;
	return m;
}

/*
 * Damage d (lethal or nonlethal) and the state it leaves (3.1-3.5);
 * massive: a single attack's lethal damage, for the 50-point save.
 */
int
deal(refd_ctx *ctx, struct st *s, int d, int dmg, int nonlethal,
    int massive)
{
	struct cr *D = &s->c[d];
	const char *before = state_name(D);
	int rc, r;

	dmg = mg_absorb(D, dmg);	/* temporary HP pools (3.6) */
	if (nonlethal) {
		D->nl += dmg;
	} else {
		D->hp -= dmg;
		if (D->hp < 0 && D->stable)
			D->stable = 0;	/* D001-15 */
		if (D->hp < 0 && !D->dead && strcmp(before, "dying") != 0 &&
		    strcmp(before, "stable") != 0)
			D->dying_round = s->round;
		if (D->hp <= -10)
			D->dead = 1;
	}
	/* The save is rolled even when the hit kills by hit points, so
	 * that whether it is rolled tells nothing of them (8.4). */
	if (!nonlethal && massive >= 50 && strcmp(before, "dead") != 0) {
		int tot, saved;

		if ((rc = roll(ctx, 20, "massive damage save", &r)) != REFD_OK)
			return rc;
		tot = r + D->d.fort + mod(D->d.con) - save_pen(D);
		saved = r != 1 && (r == 20 || tot >= 15);
		if (!saved)
			D->dead = 1;
		{
			refd_mpw *w = refd_mpw_create();

			refd_mpw_map(w);
			refd_mpw_kstr(w, "type", "save");
			refd_mpw_kstr(w, "who", D->d.name);
			refd_mpw_kstr(w, "save", "fort");
			refd_mpw_kint(w, "dc", 15);
			refd_mpw_kint(w, "roll", r);
			refd_mpw_kint(w, "total", tot);
			refd_mpw_kbool(w, "success", saved);
			refd_mpw_end(w);
			if ((rc = emitw(ctx, s, w)) != REFD_OK)
				return rc;
		}
	}
	if (D->casting && dmg > 0) {
		/* Hurt while casting a 1-round spell: Concentration DC 10 +
		 * damage + spell level, or the spell is lost (7.2). */
		int v, dc = 10 + dmg + D->d.sp[D->casting - 1].level, ok;
		refd_mpw *w;

		if ((rc = roll(ctx, 20, "concentration", &v)) != REFD_OK)
			return rc;
		ok = v + D->d.concentration - mg_save_pen(D) >= dc && able(D);
		w = refd_mpw_create();
		refd_mpw_map(w);
		refd_mpw_kstr(w, "type", "concentration");
		refd_mpw_kstr(w, "who", D->d.name);
		refd_mpw_kstr(w, "why", "hurt while casting");
		refd_mpw_kint(w, "roll", v);
		refd_mpw_kint(w, "total", v + D->d.concentration -
		    mg_save_pen(D));
		refd_mpw_kint(w, "dc", dc);
		refd_mpw_kbool(w, "success", ok);
		refd_mpw_end(w);
		if ((rc = emitw(ctx, s, w)) != REFD_OK)
			return rc;
		if (!ok)
			D->casting = 0;
	}
	if (!able(D) && D->grap)
		man_grapple_leave(s, d);
	if (!able(D))
		D->delaying = 0;
	return mt_falls(ctx, s);	/* a rider or mount dropped (5.15) */
}

/*
 * One attack roll of a on d with w, and its damage unless A_NODMG
 * (2.1-2.7, 5.2, 8.2).  pre: an already rolled d20, or 0.
 */
int
attack(refd_ctx *ctx, struct st *s, int a, int d, const struct weapon *w,
    int flags, int pen, int pre, struct atk *r)
{
	struct cr *A = &s->c[a], *D = &s->c[d];
	int melee = !(flags & A_RANGED), cover, conc, rc, i, j, v, conf = 0;
	int cnat = 0, threat = 0, mult = 1, sum = 0, sneak = 0, nl, aid = 0;
	refd_mpw *ev;

	memset(r, 0, sizeof(*r));
	if (w->crossbow && w->ranged)
		A->unloaded = 1;	/* it must be loaded again (1.7) */
	cc_reveal(s, a);	/* attacking ends hiding */
	r->bonus = atk_bonus(s, a, d, w, flags, pen);
	r->ac = ac_vs(s, d, a, flags);
	cover = cover_vs(s, a, d, melee);
	if (cover)
		r->ac += cover == 2 ? 8 : 4;
	for (i = 0; i < s->nc; i++)
		if (s->c[i].aid_mode == 2 && s->c[i].aid_ally == d &&
		    s->c[i].aid_enemy == a) {
			r->ac += 2;
			s->c[i].aid_mode = 0;
			s->c[i].aid_ally = s->c[i].aid_enemy = -1;
		}
	for (i = 0; i < s->nc; i++)
		if (s->c[i].aid_mode == 1 && s->c[i].aid_ally == a &&
		    s->c[i].aid_enemy == d) {
			aid = 1;
			s->c[i].aid_mode = 0;
			s->c[i].aid_ally = s->c[i].aid_enemy = -1;
		}
	(void)aid;
	sneak = A->d.sneak > 0 && (loses_dex(s, d, a) || helpless(D) ||
	    (melee && flanked(s, a, d))) && (melee || cdist(A, D) <= 6);
	if (A->feint_vs == d && melee) {
		A->feint_vs = -1;
		A->feint_stage = 0;
	}
	if (flags & A_CDG) {
		r->nat = 0;
		r->hit = 1;
		r->crit = 1;
	} else {
		if (pre > 0)
			r->nat = pre;
		else if ((rc = roll(ctx, 20, "attack", &r->nat)) != REFD_OK)
			return rc;
		r->total = r->nat + r->bonus;
		r->hit = r->nat != 1 && (r->nat == 20 || r->total >= r->ac);
		conc = conceal_vs(s, a, d, melee);
		/* On a chosen square the d100 is always drawn, so the draws
		 * do not tell whether someone was there (8.4). */
		if ((r->hit && conc > 0) || (flags & A_SQUARE)) {
			if ((rc = roll(ctx, 100, "miss chance", &v)) != REFD_OK)
				return rc;
			if (r->hit && conc > 0) {
				r->concealed = v;
				if (v <= conc)
					r->hit = 0;
			}
		}
		threat = r->hit && r->nat >= w->threat && !D->d.crit_immune &&
		    !(flags & A_NODMG);
		if (threat) {
			if ((rc = roll(ctx, 20, "confirm", &cnat)) != REFD_OK)
				return rc;
			conf = cnat != 1 && (cnat == 20 ||
			    cnat + r->bonus >= r->ac);
			r->crit = conf;
		}
	}
	nl = w->nonlethal;
	if (flags & A_LETHAL)
		nl = 0;
	if (flags & A_NONLETHAL)
		nl = 1;
	r->nonlethal = nl;
	if (r->hit && !(flags & A_NODMG)) {
		/* Multipliers add (2.6): 1 + the sum of (m - 1). */
		mult = (r->crit ? w->mult : 1) + mt_lance(s, a, w, flags) +
		    ((flags & A_SET) ? 1 : 0);	/* set against a charge */
		for (i = 0; i < mult; i++) {
			int part = str_dmg(A, w, (flags & A_OFF) != 0) + w->enh;

			if ((A->cond & COND_SICKENED) && !w->nostr)
				part -= 2;	/* 6.2: weapon damage */

			for (j = 0; j < w->nd; j++) {
				if ((rc = roll(ctx, (uint32_t)w->sd, "damage",
				    &v)) != REFD_OK)
					return rc;
				part += v;
			}
			sum += part;
		}
		if (w->nostr)
			sum = mg_amount(A, sum);	/* an empowered spell */
		if (sneak)
			for (j = 0; j < A->d.sneak; j++) {
				if ((rc = roll(ctx, 6, "sneak attack", &v)) !=
				    REFD_OK)
					return rc;
				sum += v;
			}
		if (sum < 1)
			sum = 1;
		r->dmg = sum;
	}
	ev = refd_mpw_create();
	refd_mpw_map(ev);
	refd_mpw_kstr(ev, "type", "attack");
	refd_mpw_kstr(ev, "attacker", A->d.name);
	refd_mpw_kstr(ev, "target", D->d.name);
	refd_mpw_kstr(ev, "weapon", w->name);
	if (flags & A_SQUARE) {
		refd_mpw_karray(ev, "square");
		refd_mpw_int(ev, s->atk_sqx);
		refd_mpw_int(ev, s->atk_sqy);
		refd_mpw_end(ev);
	}
	if (flags & A_AOO)
		refd_mpw_kbool(ev, "aoo", 1);
	if (flags & A_TOUCH)
		refd_mpw_kbool(ev, "touch", 1);
	if (flags & A_CDG)
		refd_mpw_kbool(ev, "coup_de_grace", 1);
	else {
		refd_mpw_kint(ev, "roll", r->nat);
		if (!(flags & A_SQUARE)) {	/* they depend on the target */
			refd_mpw_kint(ev, "bonus", r->bonus);
			refd_mpw_kint(ev, "total", r->total);
		}
	}
	refd_mpw_kint(ev, "ac", r->ac);
	if (cover && !(flags & A_SQUARE))
		refd_mpw_kbool(ev, "cover", 1);
	if (r->concealed)
		refd_mpw_kint(ev, "miss_chance_roll", r->concealed);
	if (r->hit && mt_lance(s, a, w, flags))
		refd_mpw_kint(ev, "multiplier", mult);
	if (threat) {
		refd_mpw_kint(ev, "confirm_roll", cnat);
		refd_mpw_kint(ev, "confirm_total", cnat + r->bonus);
	}
	refd_mpw_kbool(ev, "hit", r->hit);
	refd_mpw_kbool(ev, "critical", r->crit);
	if (!(flags & A_NODMG)) {
		refd_mpw_kint(ev, "damage", r->dmg);
		if (r->dmg > 0 && nl)
			refd_mpw_kbool(ev, "nonlethal", 1);
	}
	refd_mpw_end(ev);
	if ((rc = emitw(ctx, s, ev)) != REFD_OK)
		return rc;
	if (r->dmg > 0 && (rc = deal(ctx, s, d, r->dmg, nl, nl ? 0 :
	    r->dmg)) != REFD_OK)
		return rc;
	if (r->hit && A->held && (w->unarmed || w->natural) && !w->nostr &&
	    !(flags & A_NODMG) && !D->dead)
		return mg_discharge(ctx, s, a, d);	/* 7.2 */
	return REFD_OK;
}

/*
 * Opposed checks (0.3, D001-03): initiator's d20 then defender's; ties
 * go to the higher modifier, then a d2 (1: the initiator).
 */
int
opposed(refd_ctx *ctx, int ma, int md, const char *why, int *ra, int *rd,
    int *win)
{
	int rc, t;

	if ((rc = roll(ctx, 20, why, ra)) != REFD_OK ||
	    (rc = roll(ctx, 20, why, rd)) != REFD_OK)
		return rc;
	if (*ra + ma != *rd + md)
		*win = *ra + ma > *rd + md;
	else if (ma != md)
		*win = ma > md;
	else {
		if ((rc = roll(ctx, 2, "tie", &t)) != REFD_OK)
			return rc;
		*win = t == 1;
	}
	return REFD_OK;
}

/* The match ends when at most one side still has a creature able to
 * act (R001-81). */
void
check_over(struct st *s)
{
	int side, i, left = 0, last = -1;

	if (s->over)
		return;
	for (side = 0; side < s->nseats; side++) {
		for (i = 0; i < s->nc; i++)
			if (s->c[i].side == side && able(&s->c[i]) &&
			    !s->c[i].d.mount)
				break;
		if (i < s->nc) {
			left++;
			last = side;
		}
	}
	if (left <= 1) {
		s->over = 1;
		s->winner = last;
	}
}
