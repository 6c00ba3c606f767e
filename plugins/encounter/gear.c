/*
 * gear.c - worn items and a few grapple details (spec 5.8, 5.13).
 *
 * Worn items (5.8 "grabbing other items"): a creature may wear up to
 * MAXWORN items, each loosely attached (a cloak, goggles: +4 to the
 * grabber) or firmly attached (a ring, a bracelet: only from a pinned
 * creature, which gets +4 to resist).  The stand-in items carry the
 * bonus a player expects from them: a deflection bonus to AC (the best
 * one counts, the creature's own included) or a resistance bonus to
 * saving throws (the best one counts).  Grabbing is an unarmed disarm:
 * the attacker's light unarmed -4, the defender's -4 since the item is
 * not a melee weapon, the AoO unless Improved Disarm (damage fails it),
 * a free hand, no counter-disarm.  The winner carries the item (it does
 * not put it on in the fight): the wearer loses its bonus.  A pinner may
 * grab while grappling (5.13 "pinning someone").
 *
 * Grapple (5.13): a monk's unarmed strike deals its own lethal damage
 * (monk_unarmed), lethal without the -4 and nonlethal without penalty
 * too; a pinner may silence the creature it pins (pin with "silence"):
 * while that pin lasts it cannot speak, so no verbal component.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "content.h"
#include "gear.h"
#include "magic.h"
#include "maneuver.h"
#include "rules.h"

int
gr_cfield(struct cdef *d, const char *k, refd_mpv x, char *why, size_t n)
{
	size_t i;

	if (strcmp(k, "monk_unarmed") == 0) {
		const char *t = refd_mpv_cstr(x, "");
		int a, b;
		char tail;

		if (sscanf(t, "%dd%d%c", &a, &b, &tail) != 2 || a < 1 ||
		    a > 4 || b < 2 || b > 12) {
			snprintf(why, n, "expected dice such as \"1d6\"");
			return -1;
		}
		d->monk_nd = a;
		d->monk_sd = b;
		return 0;
	}
	if (strcmp(k, "worn") != 0)
		return 1;
	if (refd_mpv_type(x) != REFD_MP_ARRAY || refd_mpv_len(x) > MAXWORN) {
		snprintf(why, n, "expected an array of at most %d items",
		    MAXWORN);
		return -1;
	}
	memset(d->worn, 0, sizeof(d->worn));
	for (i = 0; i < refd_mpv_len(x); i++) {
		refd_mpv o = refd_mpv_at(x, i);
		struct worn *W = &d->worn[i];
		const char *nm = refd_mpv_get_str(o, "name", "");
		const char *at = refd_mpv_get_str(o, "attach", "");
		int64_t v;
		size_t j;

		if (refd_mpv_type(o) != REFD_MP_MAP || nm[0] == '\0' ||
		    strlen(nm) >= NAMEL) {
			snprintf(why, n, "each item needs a \"name\" (at most "
			    "%d characters)", NAMEL - 1);
			return -1;
		}
		for (j = 0; j < i; j++)
			if (strcmp(d->worn[j].name, nm) == 0) {
				snprintf(why, n, "two items named '%.30s'", nm);
				return -1;
			}
		snprintf(W->name, sizeof(W->name), "%s", nm);
		W->attach = strcmp(at, "loose") == 0 ? 1 :
		    (strcmp(at, "firm") == 0 ? 2 : 0);
		if (W->attach == 0) {
			snprintf(why, n, "\"attach\" is loose or firm");
			return -1;
		}
		for (j = 0; j < refd_mpv_len(o); j++) {
			const char *f = refd_mpv_cstr(refd_mpv_key_at(o, j),
			    "");
			int32_t *p = strcmp(f, "deflection") == 0 ?
			    &W->deflect : (strcmp(f, "resistance") == 0 ?
			    &W->resist : NULL);

			if (strcmp(f, "name") == 0 || strcmp(f, "attach") == 0)
				continue;
			if (p == NULL || refd_mpv_int(refd_mpv_val_at(o, j),
			    &v) != 0 || v < 0 || v > 5) {
				snprintf(why, n, "item fields: name, attach, "
				    "deflection 0..5, resistance 0..5");
				return -1;
			}
			*p = (int32_t)v;
		}
		W->on = 1;
	}
	return 0;
}

int
gr_deflect(const struct cr *c)
{
	int i, b = c->d.deflect;

	for (i = 0; i < MAXWORN; i++)
		if (c->d.worn[i].on && c->d.worn[i].deflect > b)
			b = c->d.worn[i].deflect;
	return b;
}

int
gr_resist(const struct cr *c)
{
	int i, b = 0;

	for (i = 0; i < MAXWORN; i++)
		if (c->d.worn[i].on && c->d.worn[i].resist > b)
			b = c->d.worn[i].resist;
	return b;
}

int
gr_parse(refd_mpv r, struct cmd *c)
{
	c->silence = refd_mpv_get_bool(r, "silence", 0);
	if (c->item == ITEM_WORN)
		snprintf(c->spell, sizeof(c->spell), "%s",
		    refd_mpv_get_str(r, "name", ""));
	return (c->silence && c->t != C_PIN) ||
	    (c->item == ITEM_WORN && c->t != C_DISARM);
}

/* A pinner grabs from the creature it pins while grappling (5.13). */
int
gr_pinner_grab(const struct st *s, int a, const struct cmd *c)
{
	return c->t == C_DISARM && c->item == ITEM_WORN && c->target >= 0 &&
	    c->target < s->nc && s->c[c->target].pinned_by == a + 1;
}

static int
free_slot(const struct cr *c)
{
	int i;

	for (i = 0; i < MAXWORN; i++)
		if (c->d.worn[i].name[0] == '\0')
			return i;
	return -1;
}

int
gr_worn_check(const struct st *s, int a, struct cmd *c, struct why *y)
{
	const struct cr *A = &s->c[a], *T = &s->c[c->target];
	int i;

	for (i = 0; i < MAXWORN; i++)
		if (T->d.worn[i].on && strcmp(T->d.worn[i].name,
		    c->spell) == 0)
			break;
	if (i == MAXWORN)
		return rej(y, REFD_ENOTARGET, "R001-51",
		    "%s wears no '%.30s'", T->d.name, c->spell);
	c->si = i;
	if (T->d.worn[i].attach == 2 && !T->pinned_by)
		return rej(y, REFD_EILLEGAL, "R001-51",
		    "the %s is firmly attached: it can only be taken from a "
		    "pinned creature", T->d.worn[i].name);
	if (A->d.w[0].natural || A->d.w[1].nd > 0 ||
	    (A->d.w[0].cat == 2 && !A->d.w[0].unarmed))
		return rej(y, REFD_EILLEGAL, "R001-51",
		    "%s has no free hand to grab with", A->d.name);
	if (free_slot(A) < 0)
		return rej(y, REFD_ERESOURCE, "R001-51",
		    "%s carries %d items already", A->d.name, MAXWORN);
	return REFD_OK;
}

int
gr_worn_finish(refd_ctx *ctx, struct st *s)
{
	struct cont *k = &s->k;
	int a = k->who, t = k->target, si = (k->flags >> 4) & 3, rc, j;
	int ma, md, ra, rd, win;
	struct cr *A = &s->c[a], *T = &s->c[t];
	struct worn *W = &T->d.worn[si];

	if (!W->on)
		return settle(ctx, s);
	if (k->hurt > 0) {
		if ((rc = ev_simple(ctx, "disarm_fails", s, a, t)) != REFD_OK)
			return rc;
		return settle(ctx, s);
	}
	/* Unarmed (light, -4), +4 for a loosely attached item; the
	 * defender -4 (not a melee weapon), +4 for a firmly attached one
	 * (it is pinned). */
	ma = A->d.bab + mod(A->d.str) + sizemod(A->d.size) - 4 - k->pen +
	    (W->attach == 1 ? 4 : 0);
	if (A->d.size > T->d.size)
		ma += 4 * (A->d.size - T->d.size);
	md = disarm_mod(s, t, a) - 4 + (W->attach == 2 ? 4 : 0);
	if ((rc = opposed(ctx, ma, md, "disarm", &ra, &rd, &win)) != REFD_OK)
		return rc;
	if ((rc = ev_check(ctx, "grab", s, a, t, ra, ra + ma, rd, rd + md,
	    win)) != REFD_OK)
		return rc;
	if (win && (j = free_slot(A)) >= 0) {
		refd_mpw *w = refd_mpw_create();

		A->d.worn[j] = *W;
		A->d.worn[j].on = 0;	/* carried, not put on */
		memset(W, 0, sizeof(*W));
		refd_mpw_map(w);
		refd_mpw_kstr(w, "type", "item_taken");
		refd_mpw_kstr(w, "who", A->d.name);
		refd_mpw_kstr(w, "target", T->d.name);
		refd_mpw_kstr(w, "item", A->d.worn[j].name);
		refd_mpw_end(w);
		if ((rc = emitw(ctx, s, w)) != REFD_OK)
			return rc;
	}
	/* No counter-disarm when grabbing (5.8). */
	return settle(ctx, s);
}

void
gr_put(refd_mpw *w, const struct cmd *c)
{
	if (c->t == C_DISARM && c->item == ITEM_WORN) {
		refd_mpw_kstr(w, "item", "worn");
		refd_mpw_kstr(w, "name", c->spell);
	}
	if (c->t == C_PIN && c->silence)
		refd_mpw_kbool(w, "silence", 1);
}

void
gr_view(refd_mpw *w, const struct cr *c)
{
	int i;

	refd_mpw_kmap(w, "worn");
	for (i = 0; i < MAXWORN; i++)
		if (c->d.worn[i].name[0] != '\0')
			refd_mpw_kstr(w, c->d.worn[i].name, c->d.worn[i].on ?
			    "worn" : "carried");
	refd_mpw_end(w);
}

void
gr_legal(const struct st *s, int seat, refd_mpw *w, struct cmd *c, int t,
    void (*try)(const struct st *, int, refd_mpw *, struct cmd *,
    const char *))
{
	char label[128];
	int i;

	for (i = 0; i < MAXWORN; i++) {
		if (!s->c[t].d.worn[i].on)
			continue;
		c->item = ITEM_WORN;
		c->target = t;
		snprintf(c->spell, sizeof(c->spell), "%s",
		    s->c[t].d.worn[i].name);
		c->full = 0;
		snprintf(label, sizeof(label), "Grab %s's %s", s->c[t].d.name,
		    c->spell);
		try(s, seat, w, c, label);
		c->full = 1;
		snprintf(label, sizeof(label), "Grab %s's %s as part of a full "
		    "attack", s->c[t].d.name, c->spell);
		try(s, seat, w, c, label);
	}
	c->full = 0;
	c->item = 0;
	c->spell[0] = '\0';
}

void
gr_unarmed(const struct cr *c, struct weapon *u)
{
	unarmed_weapon(u, c->d.size);
	if (c->d.monk_nd > 0) {
		u->nd = c->d.monk_nd;
		u->sd = c->d.monk_sd;
		u->nonlethal = 0;
	}
}

void
gr_fix(struct cdef *d)
{
	if (d->monk_nd > 0 && d->w[0].unarmed) {
		d->w[0].nd = d->monk_nd;
		d->w[0].sd = d->monk_sd;
		d->w[0].nonlethal = 0;
	}
}

int
gr_monk(const struct cr *c)
{
	return c->d.monk_nd > 0;
}

int
gr_hushed(const struct cr *c)
{
	return c->pinned_by && c->hushed == c->pinned_by;
}

/* ---- components while grappling (5.13) ---- */

#define NEEDS_HAND (MG_M | MG_F | MG_DF)

int
gr_grapple_comp(const struct cr *A, int comp, const char *spell,
    struct why *y)
{
	if (A->grap && (comp & NEEDS_HAND) && !A->comp_ready)
		return rej(y, REFD_EILLEGAL, "R001-56",
		    "grappling, %s must first retrieve the material component "
		    "or focus of '%s' (retrieve_component, a full-round "
		    "action)", A->d.name, spell);
	return REFD_OK;
}

int
gr_retrieve_check(const struct st *s, int a, struct why *y)
{
	const struct cr *A = &s->c[a];
	int i;

	if (!A->grap)
		return rej(y, REFD_EILLEGAL, "R001-56",
		    "%s is not grappling: its components are at hand",
		    A->d.name);
	if (A->pinned_by)
		return rej(y, REFD_EILLEGAL, "R001-56",
		    "%s is pinned: it can only try to escape", A->d.name);
	for (i = 0; i < s->nc; i++)
		if (s->c[i].pinned_by == a + 1)
			return rej(y, REFD_EILLEGAL, "R001-56",
			    "%s is pinning %s: it cannot retrieve a "
			    "component", A->d.name, s->c[i].d.name);
	if (A->comp_ready)
		return rej(y, REFD_EILLEGAL, "R001-56",
		    "%s already holds its components", A->d.name);
	for (i = 0; i < MAXSP; i++)
		if (A->d.uses[i] > 0 && A->d.sp[i].kind == MK_SPELL &&
		    (A->d.sp[i].comp & NEEDS_HAND & ~A->d.lacks))
			break;
	if (i == MAXSP)
		return rej(y, REFD_EILLEGAL, "R001-56",
		    "%s has no spell left needing a material component or a "
		    "focus it carries", A->d.name);
	if (!can_full(s, A))
		return rej(y, REFD_ERESOURCE, "R001-04",
		    "retrieving a component takes the whole turn");
	return REFD_OK;
}

int
gr_retrieve_exec(refd_ctx *ctx, struct st *s, int a)
{
	int rc;

	s->full = 1;
	s->c[a].comp_ready = 1;
	if ((rc = ev_simple(ctx, "retrieve_component", s, a, -1)) != REFD_OK)
		return rc;
	return settle(ctx, s);
}
