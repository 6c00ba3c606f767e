/*
 * goals.c - battle goals (spec §3 step 12, §15 6a, §2.7): two dealt to
 * each character at set-up, one kept in secret, checked on success.
 */
#include <string.h>

#include "dg.h"
#include "rules.h"

static void
tell(struct game *g, int ci)
{
	struct chr *c = &g->s.ch[ci];
	refd_mpw *w = evb("battle_goals");
	int k;

	refd_mpw_karray(w, "dealt");
	for (k = 0; k < 2; k++)
		if (c->bg_dealt[k] >= 0)
			refd_mpw_str(w, g->c->bg[c->bg_dealt[k]].id);
	refd_mpw_end(w);
	ev(g, ci, w);
	g->dirty |= DIRTY_GOALS;
}

/* Deal two battle goals to each character (§3 step 12). */
void
goals_deal(struct game *g)
{
	struct dg *s = &g->s;
	int32_t deck[MAXBG];
	int i, n = g->c->nbg, k;

	for (i = 0; i < s->nch; i++) {
		s->ch[i].bg_dealt[0] = s->ch[i].bg_dealt[1] = -1;
		s->ch[i].bg_choice = -1;
	}
	if (!s->bg_on || n < 2) {
		s->phase = PH_HANDS;	/* hands and start hexes next */
		return;
	}
	for (i = 0; i < n; i++)
		deck[i] = i;
	if (H->shuffle(g->ctx, deck, (size_t)n, sizeof(deck[0]),
	    "battle goals") != REFD_OK && g->err == 0)
		g->err = REFD_ESCRIPT;
	for (i = 0; i < s->nch; i++) {
		for (k = 0; k < 2 && n > 0; k++)
			s->ch[i].bg_dealt[k] = deck[--n];
		tell(g, i);
	}
	s->phase = PH_GOALS;
}

int
goals_all_chosen(const struct game *g)
{
	int i;

	for (i = 0; i < g->s.nch; i++)
		if (!g->s.ch[i].exhausted && g->s.ch[i].bg_dealt[0] >= 0 &&
		    g->s.ch[i].bg_choice < 0)
			return 0;
	return 1;
}

void
goals_choose(struct game *g, int ci, int k)
{
	struct chr *c = &g->s.ch[ci];
	refd_mpw *w;

	c->bg_choice = c->bg_dealt[k];
	w = evb("battle_goal_kept");
	refd_mpw_kstr(w, "goal", g->c->bg[c->bg_choice].id);
	refd_mpw_kstr(w, "name", g->c->bg[c->bg_choice].name);
	ev(g, ci, w);
	w = evb("battle_goal_chosen");
	refd_mpw_kint(w, "seat", ci);
	ev(g, REFD_SEAT_PUBLIC, w);
	g->dirty |= DIRTY_GOALS;
}

/* On success: checkmarks for every goal met (§15 step 6a). */
void
goals_score(struct game *g)
{
	struct dg *s = &g->s;
	int i;

	for (i = 0; i < s->nch; i++) {
		struct chr *c = &s->ch[i];
		const struct bgdef *b;
		int v = 0, met;
		refd_mpw *w;

		if (c->bg_choice < 0)
			continue;
		b = &g->c->bg[c->bg_choice];
		switch (b->stat) {
		case BG_KILLS:
			v = c->kills;
			break;
		case BG_LOOTS:
			v = c->money;
			break;
		case BG_HALFHP:
			v = 2 * c->min_hp >= s->fig[c->fig].maxhp;
			break;
		case BG_FIRE:
			v = c->fire;
			break;
		}
		met = b->stat == BG_HALFHP ? v : v >= b->min && v <= b->max;
		c->checks += met ? b->checks : 0;
		if (s->camp)
			s->cc[i].checks += met ? b->checks : 0;
		w = evb("battle_goal_result");
		refd_mpw_kint(w, "seat", i);
		refd_mpw_kint(w, "checkmarks", met ? b->checks : 0);
		ev(g, REFD_SEAT_PUBLIC, w);
		w = evb("battle_goal_result");
		refd_mpw_kstr(w, "goal", b->id);
		refd_mpw_kbool(w, "met", met);
		ev(g, i, w);
	}
}

/* Re-deal seat's goals from the cards nobody else holds (redeal op). */
int
goals_redeal(struct game *g, int seat)
{
	struct dg *s = &g->s;
	struct chr *c = &s->ch[seat];
	int free[MAXBG], n = 0, k, i, rc;
	uint32_t a = 0, b = 0;

	if (c->bg_dealt[0] < 0)
		return REFD_OK;
	for (k = 0; k < g->c->nbg; k++) {
		int held = 0;

		for (i = 0; i < s->nch; i++)
			if (i != seat && (s->ch[i].bg_dealt[0] == k ||
			    s->ch[i].bg_dealt[1] == k))
				held = 1;
		if (!held)
			free[n++] = k;
	}
	if (n < 2)
		return REFD_OK;
	if ((rc = H->uniform(g->ctx, (uint32_t)n, "redeal", &a)) != REFD_OK ||
	    (rc = H->uniform(g->ctx, (uint32_t)n - 1, "redeal", &b)) != REFD_OK)
		return rc;
	if (b >= a)
		b++;
	c->bg_dealt[0] = free[a];
	c->bg_dealt[1] = free[b];
	if (c->bg_choice >= 0)
		c->bg_choice = c->bg_dealt[0];
	return REFD_OK;
}
