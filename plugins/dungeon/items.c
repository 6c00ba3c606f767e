/*
 * items.c - equipped items (spec §5.5): using them in your own turn,
 * mandatory slot items when attacked, spending, consuming, refreshing.
 */
#include <string.h>

#include "dg.h"
#include "rules.h"

/* Item k of character ci may be used now by its owner (own turn). */
int
item_usable(const struct game *g, int ci, int k)
{
	const struct dg *s = &g->s;
	const struct chr *c = &s->ch[ci];
	const struct itemdef *it = &g->c->item[c->item[k]];
	struct ability tmp;
	const struct ability *a;
	int i;

	if (c->istate[k] != 0 || (s->fig[c->fig].conds & C_STUN))
		return 0;
	a = s->ct == CT_ABILITY ? cur_ability(g, ci, &tmp) : NULL;
	switch (it->effect) {
	case IE_MOVE1:
		return a != NULL && a->kind == A_MOVE && c->bonus_move == 0;
	case IE_MELEE1:
	case IE_MELEE2STUN:
		return a != NULL && a->kind == A_ATTACK && a->range == 0 &&
		    (a->naoe == 0 || a->grey) && c->bonus_attack == 0;
	case IE_HEAL3:
		return 1;
	case IE_UNMUDDLE:
		return (s->fig[c->fig].conds & C_MUDDLE) != 0;
	case IE_ADVANTAGE:
		return c->bonus_adv == 0;
	case IE_REFRESH:
		for (i = 0; i < c->nitem; i++)
			if (i != k && c->istate[i] == 1)
				return 1;
		return 0;
	default:
		return 0;
	}
}

static void
used(struct game *g, int ci, int k)
{
	struct chr *c = &g->s.ch[ci];
	const struct itemdef *it = &g->c->item[c->item[k]];
	refd_mpw *w;

	c->istate[k] = it->consume ? 2 : 1;
	w = evb("item_used");
	refd_mpw_kint(w, "seat", ci);
	refd_mpw_kstr(w, "item", it->id);
	refd_mpw_kstr(w, "now", it->consume ? "consumed" : "spent");
	ev(g, REFD_SEAT_PUBLIC, w);
}

void
item_use(struct game *g, int ci, int k)
{
	struct dg *s = &g->s;
	struct chr *c = &s->ch[ci];
	const struct itemdef *it = &g->c->item[c->item[k]];
	int i;

	used(g, ci, k);
	switch (it->effect) {
	case IE_MOVE1:
		c->bonus_move = 1;
		break;
	case IE_MELEE1:
		c->bonus_attack = 1;
		break;
	case IE_MELEE2STUN:
		c->bonus_attack = 2;
		c->bonus_stun = 1;
		break;
	case IE_HEAL3:
		heal_fig(g, c->fig, 3);
		break;
	case IE_UNMUDDLE:
		s->fig[c->fig].conds &= ~C_MUDDLE;
		break;
	case IE_ADVANTAGE:
		c->bonus_adv = 1;
		break;
	case IE_REFRESH:
		for (i = 0; i < c->nitem; i++)
			if (i != k && c->istate[i] == 1) {
				c->istate[i] = 0;
				break;
			}
		break;
	case IE_TRAPSAFE:
		(void)s;
		break;
	default:
		break;
	}
}

/* A ready item ci may use when attacked, before the draw (Chain Coat:
 * Shield 2 against that attack), or -1. */
int
item_reaction(const struct game *g, int ci)
{
	const struct chr *c = &g->s.ch[ci];
	int k;

	if (g->s.fig[c->fig].conds & C_STUN)
		return -1;
	for (k = 0; k < c->nitem; k++)
		if (c->istate[k] == 0 &&
		    g->c->item[c->item[k]].effect == IE_SHIELD2)
			return k;
	return -1;
}

/* Mandatory slot items used when ci is attacked: their shield total. */
int
item_ward(struct game *g, int ci)
{
	struct chr *c = &g->s.ch[ci];
	int k, n = 0;

	for (k = 0; k < c->nitem; k++) {
		const struct itemdef *it = &g->c->item[c->item[k]];

		if (it->effect != IE_WARD1 || c->istate[k] != 0)
			continue;
		n++;
		if (++c->iuses[k] >= it->slots) {
			c->iuses[k] = 0;
			used(g, ci, k);
		}
	}
	return n;
}

/* Refresh spent items: all of them, or the first one. */
void
item_refresh(struct game *g, int ci, int all)
{
	struct chr *c = &g->s.ch[ci];
	int k;

	for (k = 0; k < c->nitem; k++)
		if (c->istate[k] == 1) {
			c->istate[k] = 0;
			if (!all)
				return;
		}
}
