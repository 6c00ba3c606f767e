/*
 * mb_geo.c - massbattle measurement and derived stats (spec sections 1,
 * 3.10, 7.3): melee range, engagement, LOS, formation, effective stats.
 */
#include <string.h>

#include "mb_int.h"

cont_pt
mpt(const struct model *m)
{
	cont_pt p;

	p.x = m->x;
	p.y = m->y;
	return p;
}

cont_pt
mfc(const struct model *m)
{
	cont_pt p;

	p.x = m->fx;
	p.y = m->fy;
	return p;
}

const struct profile *
prof(const struct g *g, const struct model *m)
{
	return &g->c->p[m->prof];
}

/* Melee range in mils, or -1 if the model has no melee weapon. */
int32_t
melee_range(const struct g *g, const struct model *m)
{
	const struct profile *p = prof(g, m);
	int32_t r = -1;
	int i;

	for (i = 0; i < p->nw; i++)
		if (p->w[i].melee) {
			int32_t x = p->w[i].reach ? 2000 : 500;

			if (x > r)
				r = x;
		}
	if (p->kind == K_WARJACK && r < 500)
		r = 500;
	return r;
}

int
in_mrange(const struct g *g, const struct model *a, const struct model *t)
{
	int32_t r = melee_range(g, a);

	if (r < 0 || !a->alive || !t->alive || a == t)
		return 0;
	return cont_within(mpt(a), a->r, mpt(t), t->r, r) &&
	    cont_partly_in_front(mpt(a), mfc(a), mpt(t), t->r);
}

int
engaged(const struct g *g, const struct model *m)
{
	int i;

	for (i = 0; i < g->s->nm; i++) {
		const struct model *e = &g->s->m[i];

		if (e->alive && e->side != m->side && in_mrange(g, e, m))
			return 1;
	}
	return 0;
}

int
engaging(const struct g *g, const struct model *m)
{
	int i;

	for (i = 0; i < g->s->nm; i++) {
		const struct model *e = &g->s->m[i];

		if (e->alive && e->side != m->side && in_mrange(g, m, e))
			return 1;
	}
	return 0;
}

int
in_melee(const struct g *g, const struct model *m)
{
	return engaged(g, m) || engaging(g, m);
}

int
melee_with(const struct g *g, const struct model *a, const struct model *b)
{
	return a->side != b->side && (in_mrange(g, a, b) || in_mrange(g, b, a));
}

/* Line of sight, spec 1.5 (no terrain in this engine). */
int
los(const struct g *g, const struct model *o, const struct model *t)
{
	return los_f(g, o, mfc(o), t);
}

/* Line of sight with the origin facing f (a charger turns first). */
int
los_f(const struct g *g, const struct model *o, cont_pt f,
    const struct model *t)
{
	int i, j, ok;

	if (o == t)
		return 1;
	for (i = 0; i < CONT_NSAMPLES; i++) {
		cont_pt sp = cont_sample(mpt(t), t->r, i);

		if (!cont_in_front_point(mpt(o), f, sp))
			continue;
		ok = 1;
		for (j = 0; j < g->s->nm && ok; j++) {
			const struct model *b = &g->s->m[j];

			if (!b->alive || b == o || b == t)
				continue;
			if (b->cat < t->cat)
				continue;
			if (t->z - o->z >= 1000 && b->z <= t->z - 1000)
				continue;
			if (o->z - t->z >= 1000 && b->z <= o->z - 1000) {
				if (!cont_within(mpt(b), b->r, mpt(t), t->r,
				    1000) || b->cat <= o->cat)
					continue;
			}
			if (cont_seg_passes_over(mpt(o), sp, mpt(b), b->r))
				ok = 0;
		}
		for (j = 0; j < g->s->ncloud && ok; j++) {
			cont_pt cc;

			cc.x = g->s->cloud[j][0];
			cc.y = g->s->cloud[j][1];
			if (!cont_overlap(cc, g->s->cloud[j][2], mpt(t), t->r) &&
			    cont_seg_passes_over(mpt(o), sp, cc,
			    g->s->cloud[j][2]))
				ok = 0;
		}
		if (ok)
			return 1;
	}
	return 0;
}

int
is_trooper(const struct g *g, const struct model *m)
{
	return prof(g, m)->kind == K_TROOPER;
}

const struct model *
uc_of(const struct g *g, const struct model *m)
{
	const struct unit *u = &g->s->u[m->unit];

	if (u->uc < 0)
		return NULL;
	return &g->s->m[u->uc];
}

int
in_formation(const struct g *g, const struct model *m)
{
	const struct model *c;

	if (prof(g, m)->kind != K_TROOPER)
		return 1;
	c = uc_of(g, m);
	if (c == NULL || c == m || !c->alive)
		return 1;
	return cont_within(mpt(c), c->r, mpt(m), m->r,
	    (int64_t)cmd_stat(g, c) * INCH);
}

int
fleeing(const struct g *g, const struct model *m)
{
	return (m->flags & F_FLEE) || (m->unit >= 0 && g->s->u[m->unit].fleeing);
}

static void
mods(const struct g *g, const struct model *m, int32_t *def, int32_t *arm,
    int32_t *mat)
{
	int i;

	*def = *arm = *mat = 0;
	for (i = 0; i < MAXINST; i++) {
		const struct inst *in = &g->s->in[i];
		const struct spell *sp;

		if (!in->on)
			continue;
		if (in->model < 0 && in->unit < 0) {
			const struct model *c = &g->s->m[in->caster];

			if (m->side != in->side || !c->alive ||
			    !cont_within(mpt(c), c->r, mpt(m), m->r,
			    ctrl_mils(g, c)))
				continue;
		} else if (in->model != (int32_t)(m - g->s->m) &&
		    (in->unit < 0 || in->unit != m->unit))
			continue;
		sp = &g->c->sp[in->spell];
		*def += sp->def;
		*arm += sp->arm;
		*mat += sp->mat;
	}
}

int32_t
cmd_stat(const struct g *g, const struct model *m)
{
	return prof(g, m)->cmd;
}

int32_t
focus_stat(const struct g *g, const struct model *m)
{
	return prof(g, m)->focus;
}

/* Control area radius: 2 x FOCUS inches, plus increases, then doubled
 * once if any effect doubles it (R003-52). */
int32_t
ctrl_mils(const struct g *g, const struct model *m)
{
	int32_t r = 2 * focus_stat(g, m) * INCH, x2 = 0;
	int i;

	for (i = 0; i < MAXINST; i++) {
		const struct inst *in = &g->s->in[i];

		if (!in->on || in->model != (int32_t)(m - g->s->m))
			continue;
		r += g->c->sp[in->spell].ctrl * INCH;
		x2 |= g->c->sp[in->spell].ctrl_x2;
	}
	if (r < 0)
		r = 0;
	return x2 ? 2 * r : r;
}

int32_t
def_eff(const struct g *g, const struct model *t, const struct model *a,
    int ranged)
{
	int32_t d, x, y, v;

	mods(g, t, &d, &x, &y);
	v = (t->flags & (F_KD | F_STAT)) ? 5 : prof(g, t)->def;
	v += d;
	if (ranged) {
		int cl = (t->flags & F_CONCEAL) != 0, j;

		for (j = 0; j < g->s->ncloud; j++) {
			cont_pt cc;

			cc.x = g->s->cloud[j][0];
			cc.y = g->s->cloud[j][1];
			if (cont_overlap(cc, g->s->cloud[j][2], mpt(t), t->r))
				cl = 1;
		}
		if (t->flags & F_COVER)
			v += 4;
		else if (cl)
			v += 2;
		if (a != NULL && t->z - a->z >= 1000)
			v += 2;
	}
	return v;
}

int32_t
arm_eff(const struct g *g, const struct model *t)
{
	int32_t d, a, m;

	mods(g, t, &d, &a, &m);
	a += prof(g, t)->arm;
	if (prof(g, t)->kind == K_WARCASTER)
		a += t->focus;
	return a;
}

int32_t
mat_eff(const struct g *g, const struct model *t)
{
	int32_t d, a, m;

	mods(g, t, &d, &a, &m);
	return prof(g, t)->mat + m;
}

int32_t
boxes(const struct g *g, const struct model *m)
{
	return prof(g, m)->boxes;
}

int
find_model(const struct g *g, int64_t id)
{
	int i;

	for (i = 0; i < g->s->nm; i++)
		if (g->s->m[i].id == id)
			return i;
	return -1;
}

int
find_unit(const struct g *g, int64_t id)
{
	int i;

	for (i = 0; i < g->s->nu; i++)
		if (g->s->u[i].id == id)
			return i;
	return -1;
}

const char *
mname(const struct g *g, const struct model *m)
{
	return prof(g, m)->name;
}
