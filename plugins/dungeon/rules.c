/*
 * rules.c - the dungeon round: plans, turn order, attacks, modifier decks,
 * conditions, elements, the monster AI and the end of round (spec §4-§15).
 *
 * dg_advance runs everything automatic until a seat owes a decision.
 */
#include <stdio.h>
#include <string.h>

#include "dg.h"
#include "rules.h"

/* ----- modifier cards (§8.1, §22) ----- */

const struct modc modc[NMOD] = {
	{ "+0", 0, 0, 0, 0, 0 }, { "+1", 0, 1, 0, 0, 0 },
	{ "-1", 0, -1, 0, 0, 0 }, { "+2", 0, 2, 0, 0, 0 },
	{ "-2", 0, -2, 0, 0, 0 }, { "x2", 1, 0, 0, 0, 0 },
	{ "null", 2, 0, 0, 0, 0 }, { "BLESS", 1, 0, 0, 0, 0 },
	{ "CURSE", 2, 0, 0, 0, 0 }, { "CURSE", 2, 0, 0, 0, 0 },
	{ "+1r", 0, 1, 1, 0, 0 }, { "+1 IMM", 0, 1, 0, C_IMMOBILIZE, 0 },
	{ "+1 WND", 0, 1, 0, C_WOUND, 0 }, { "+0r FIRE", 0, 0, 1, 0, 1 },
	{ "+0r ICE", 0, 0, 1, 0, 2 }, { "+0r EARTH", 0, 0, 1, 0, 8 },
	{ "+1 POISON", 0, 1, 0, C_POISON, 0 },
	{ "+1 MUDDLE", 0, 1, 0, C_MUDDLE, 0 },
};

static const int base_deck[20] = { M_P0, M_P0, M_P0, M_P0, M_P0, M_P0,
	M_P1, M_P1, M_P1, M_P1, M_P1, M_M1, M_M1, M_M1, M_M1, M_M1, M_P2,
	M_M2, M_X2, M_NULL };

int
mod_by_name(const char *n, int monster)
{
	int i;

	if (strcmp(n, "CURSE") == 0)
		return monster ? M_MCURSE : M_PCURSE;
	for (i = 0; i < NMOD; i++)
		if (strcmp(modc[i].name, n) == 0)
			return i;
	return -1;
}

/* A deck: the base 20 cards, or `top` cards first then the rest. */
void
deck_build(struct deck *d, const int *top, int ntop)
{
	int rest[20], nrest = 20, i, j;

	memset(d, 0, sizeof(*d));
	memcpy(rest, base_deck, sizeof(rest));
	for (i = 0; i < ntop; i++)
		for (j = 0; j < nrest; j++)
			if (rest[j] == top[i]) {
				memmove(&rest[j], &rest[j + 1],
				    (size_t)(nrest - j - 1) * sizeof(int));
				nrest--;
				break;
			}
	for (j = nrest - 1; j >= 0; j--)
		d->c[d->n++] = rest[j];
	for (i = ntop - 1; i >= 0; i--)
		d->c[d->n++] = top[i];
}

/* ----- events ----- */

refd_mpw *
evb(const char *type)
{
	refd_mpw *w = refd_mpw_create();

	refd_mpw_map(w);
	refd_mpw_kstr(w, "type", type);
	return w;
}

int
ev(struct game *g, int32_t seat, refd_mpw *w)
{
	int rc;

	refd_mpw_end(w);
	if (w == NULL || refd_mpw_error(w)) {
		refd_mpw_destroy(w);
		g->err = REFD_ENOMEM;
		return REFD_ENOMEM;
	}
	rc = H->emit(g->ctx, seat, refd_mpw_data(w), refd_mpw_len(w));
	refd_mpw_destroy(w);
	if (rc != REFD_OK && g->err == 0)
		g->err = rc;
	return rc;
}

static void
kxy(refd_mpw *w, const char *k, int q, int r)
{
	refd_mpw_karray(w, k);
	refd_mpw_int(w, q);
	refd_mpw_int(w, r);
	refd_mpw_end(w);
}

const char *
fig_name(const struct game *g, int f, char *buf, size_t n)
{
	const struct fig *x = &g->s.fig[f];

	if (x->kind == F_CHAR)
		snprintf(buf, n, "%s", g->c->cls[x->type].name);
	else if (x->kind == F_OBSTACLE)
		snprintf(buf, n, "obstacle");
	else if (x->kind == F_SUMMON)
		snprintf(buf, n, "%s", g->c->cls[g->s.ch[x->owner].cls].summon.name);
	else
		snprintf(buf, n, "%s %s#%d", g->c->type[x->type].name,
		    x->rank == 1 ? "elite " : x->rank == 2 ? "boss " : "",
		    (int)x->standee);
	return buf;
}

/* ----- draws ----- */

static int
shuffle(struct game *g, int32_t *a, int n, const char *why)
{
	int rc;

	if (n < 2)
		return 0;
	rc = H->shuffle(g->ctx, a, (size_t)n, sizeof(*a), why);
	if (rc != REFD_OK && g->err == 0)
		g->err = rc;
	return rc;
}

int
uniform(struct game *g, int bound, const char *why)
{
	uint32_t v = 0;
	int rc = H->uniform(g->ctx, (uint32_t)bound, why, &v);

	if (rc != REFD_OK) {
		if (g->err == 0)
			g->err = rc;
		return 0;
	}
	return (int)v;
}

struct deck *
deck_of(struct game *g, int f)
{
	struct fig *x = &g->s.fig[f];

	if (x->kind == F_MONSTER)
		return &g->s.mdeck;
	if (x->kind == F_SUMMON)
		return &g->s.ch[x->owner].mod;
	return &g->s.ch[char_of(g, f)].mod;
}

int
char_of(const struct game *g, int f)
{
	int i;

	for (i = 0; i < g->s.nch; i++)
		if (g->s.ch[i].fig == f)
			return i;
	return -1;
}

static int
deck_seat(const struct game *g, const struct deck *d)
{
	int i;

	for (i = 0; i < g->s.nch; i++)
		if (d == &g->s.ch[i].mod)
			return i;
	return -1;
}

static int
deck_dirty(struct game *g, struct deck *d)
{
	int i;

	if (d == &g->s.mdeck)
		return DIRTY_MDECK;
	for (i = 0; i < g->s.nch; i++)
		if (d == &g->s.ch[i].mod)
			return DIRTY_MOD(i);
	return 0;
}

void
deck_reshuffle(struct game *g, struct deck *d, const char *why)
{
	refd_mpw *w;
	int i;

	for (i = 0; i < d->nd; i++)
		d->c[d->n++] = d->d[i];
	d->nd = 0;
	shuffle(g, d->c, d->n, why);
	g->dirty |= deck_dirty(g, d);
	w = evb("modifier_shuffle");
	if (d == &g->s.mdeck)
		refd_mpw_kstr(w, "deck", "monster");
	else
		refd_mpw_kint(w, "deck", deck_seat(g, d));
	refd_mpw_kint(w, "cards", d->n);
	ev(g, REFD_SEAT_PUBLIC, w);
}

static int
draw_mod(struct game *g, struct deck *d)
{
	int c;

	if (d->n == 0)
		deck_reshuffle(g, d, "modifier deck");
	if (d->n == 0)
		return M_P0;
	c = d->c[--d->n];
	if (c == M_BLESS)
		g->s.bless_supply++;
	else if (c == M_MCURSE)
		g->s.mcurse_supply++;
	else if (c == M_PCURSE)
		g->s.pcurse_supply++;
	else
		d->d[d->nd++] = c;
	if (c == M_X2 || c == M_NULL)
		d->flag = 1;
	return c;
}

/* Add a BLESS or CURSE card to the draw pile and shuffle it (§8.2). */
void
deck_add(struct game *g, struct deck *d, int card)
{
	int *sup = card == M_BLESS ? &g->s.bless_supply :
	    card == M_MCURSE ? &g->s.mcurse_supply : &g->s.pcurse_supply;
	int i, n = 0;

	if (*sup <= 0 || d->n >= MAXMOD)
		return;
	for (i = 0; i < d->n; i++)
		n += d->c[i] == M_MCURSE || d->c[i] == M_PCURSE;
	if (card != M_BLESS && n >= 10)
		return;
	(*sup)--;
	d->c[d->n++] = card;
	shuffle(g, d->c, d->n, "shuffle in bless/curse");
	g->dirty |= deck_dirty(g, d);
}

static int
mod_value(int c, int v)
{
	if (modc[c].kind == 1)
		return 2 * v;
	if (modc[c].kind == 2)
		return -1000;
	return v + modc[c].val;
}

static int
mod_effects(int c)
{
	return modc[c].conds | (modc[c].elem << 16);
}

/* 1 if a better than b, -1 if worse, 0 if ambiguous or equal (§7.4). */
static int
mod_cmp(int a, int b, int v)
{
	int va = mod_value(a, v), vb = mod_value(b, v);
	int ea = mod_effects(a), eb = mod_effects(b);
	int a_sup = (ea & eb) == eb, b_sup = (ea & eb) == ea;

	if (va >= vb && a_sup && (va > vb || ea != eb))
		return 1;
	if (vb >= va && b_sup && (vb > va || ea != eb))
		return -1;
	return 0;
}

/*
 * Draw for one attack under mode (0 normal, 1 advantage, -1
 * disadvantage); the applied cards go to out[] (§7.3).  All drawn cards
 * go to drawn[].
 */
int
draw_attack(struct game *g, struct deck *d, int mode, int v, int *out,
    int *drawn, int *ndrawn)
{
	int n = 0, c1, c2;

	*ndrawn = 0;
	if (mode == 0) {
		do {
			c1 = draw_mod(g, d);
			drawn[(*ndrawn)++] = c1;
			out[n++] = c1;
		} while (modc[c1].rolling && *ndrawn < 20);
		return n;
	}
	c1 = draw_mod(g, d);
	c2 = draw_mod(g, d);
	drawn[(*ndrawn)++] = c1;
	drawn[(*ndrawn)++] = c2;
	if (modc[c1].rolling && modc[c2].rolling) {
		int c;

		do {
			c = draw_mod(g, d);
			drawn[(*ndrawn)++] = c;
		} while (modc[c].rolling && *ndrawn < 20);
		if (mode > 0) {
			int i;

			for (i = 0; i < *ndrawn; i++)
				out[n++] = drawn[i];
		} else {
			out[n++] = c;
		}
		return n;
	}
	if (modc[c1].rolling || modc[c2].rolling) {
		if (mode > 0) {
			out[n++] = c1;
			out[n++] = c2;
		} else {
			out[n++] = modc[c1].rolling ? c2 : c1;
		}
		return n;
	}
	if (mode > 0)
		out[n++] = mod_cmp(c2, c1, v) > 0 ? c2 : c1;
	else
		out[n++] = mod_cmp(c2, c1, v) < 0 ? c2 : c1;
	return n;
}

/* ----- figures ----- */

int
fig_shield(const struct game *g, int f)
{
	const struct fig *x = &g->s.fig[f];
	int s = 0;

	if (x->kind == F_MONSTER && x->rank < 2)
		s = g->c->type[x->type].shield[g->s.mlevel][x->rank];
	s += x->shield_card;
	if (x->kind == F_CHAR)
		s += g->s.ch[char_of(g, f)].shield_rb;
	return s;
}

int
fig_retaliate(const struct game *g, int f)
{
	const struct fig *x = &g->s.fig[f];
	int s = 0;

	if (x->kind == F_MONSTER && x->rank < 2)
		s = g->c->type[x->type].retaliate[g->s.mlevel][x->rank];
	s += x->ret_card;
	if (x->kind == F_CHAR)
		s += g->s.ch[char_of(g, f)].ret_rb;
	return s;
}

void
add_conds(struct game *g, int f, int conds)
{
	struct fig *x = &g->s.fig[f];
	int cur = g->s.phase == PH_TURN && cur_fig(g) == f;

	if (x->kind == F_MONSTER)
		conds &= ~g->c->type[x->type].immune;
	if (x->kind == F_OBSTACLE)
		return;		/* immune to every condition (§6.2) */
	if (conds & C_CURSE) {
		if (x->kind == F_MONSTER)
			deck_add(g, &g->s.mdeck, M_MCURSE);
		else
			deck_add(g, deck_of(g, f), M_PCURSE);
	}
	if (conds & C_BLESS)
		deck_add(g, deck_of(g, f), M_BLESS);
	conds &= ~(C_CURSE | C_BLESS);
	x->conds |= conds;
	if (cur)
		x->fresh |= conds;
	else
		x->fresh &= ~conds;
}

/* The figure acting now, or -1. */
int
cur_fig(const struct game *g)
{
	const struct dg *s = &g->s;
	const struct ordent *e;

	if (s->phase != PH_TURN || s->cur >= s->nord)
		return -1;
	e = &s->ord[s->cur];
	if (e->kind == O_CHAR)
		return s->ch[e->idx].fig;
	if (e->kind == O_SUMMON)
		return e->idx;
	return s->mt_active ? s->mt_fig : -1;
}

void
exhaust(struct game *g, int ci, const char *why)
{
	struct chr *c = &g->s.ch[ci];
	refd_mpw *w;
	int i;

	if (c->exhausted)
		return;
	c->exhausted = 1;
	g->s.fig[c->fig].alive = 0;
	c->lost |= c->active;
	c->active = 0;
	for (i = 0; i < g->s.nfig; i++)
		if (g->s.fig[i].alive && g->s.fig[i].kind == F_SUMMON &&
		    g->s.fig[i].owner == ci)
			g->s.fig[i].alive = 0;
	w = evb("exhausted");
	refd_mpw_kint(w, "seat", ci);
	refd_mpw_kstr(w, "why", why);
	ev(g, REFD_SEAT_PUBLIC, w);
	for (i = 0; i < g->s.nch; i++)
		if (!g->s.ch[i].exhausted)
			return;
	finish(g, 0, "every character is exhausted");
}

/* A monster or summon dies; credit goes to character ci or -1. */
void
kill_fig(struct game *g, int f, int credit)
{
	struct fig *x = &g->s.fig[f];
	refd_mpw *w;
	char nm[48];
	int h = hex_at(&g->s, x->q, x->r), i;

	x->alive = 0;
	w = evb("dies");
	refd_mpw_kint(w, "fig", f);
	refd_mpw_kstr(w, "name", fig_name(g, f, nm, sizeof(nm)));
	if (credit >= 0)
		refd_mpw_kint(w, "credit", credit);
	if (x->kind == F_OBSTACLE && h >= 0)
		g->s.hex[h].ov = OV_NONE;
	if (x->kind == F_MONSTER && !x->nomoney && h >= 0) {
		g->s.hex[h].money++;
		refd_mpw_kbool(w, "money", 1);
	}
	ev(g, REFD_SEAT_PUBLIC, w);
	if (credit >= 0) {
		struct cchar *cc = &g->s.cc[credit];

		g->s.ch[credit].kills++;
		/* a personal quest counting kills of this type */
		if (g->s.camp && cc->pq >= 0 && x->kind == F_MONSTER &&
		    !g->c->pq[cc->pq].gold && g->c->pq[cc->pq].type == x->type)
			cc->pq_count++;
	}
	if (x->kind == F_SUMMON) {
		/* its card leaves the active area to the lost pile */
		struct chr *c = &g->s.ch[x->owner];

		for (i = 0; i < g->c->cls[c->cls].ncards; i++)
			if ((c->active >> i & 1) &&
			    g->c->cls[c->cls].card[i].h[1].ab[0].kind ==
			    A_SUMMON) {
				c->active &= ~(1 << i);
				c->lost |= 1 << i;
				break;
			}
	}
}

/* Damage that is not a prompt: monsters and summons. */
void
hurt(struct game *g, int f, int n, int credit, const char *why)
{
	struct fig *x = &g->s.fig[f];
	refd_mpw *w;

	if (n <= 0 || !x->alive)
		return;
	x->hp -= n;
	w = evb("damage");
	refd_mpw_kint(w, "fig", f);
	refd_mpw_kint(w, "amount", n);
	refd_mpw_kint(w, "hp", x->hp < 0 ? 0 : x->hp);
	refd_mpw_kstr(w, "source", why);
	ev(g, REFD_SEAT_PUBLIC, w);
	if (x->hp <= 0)
		kill_fig(g, f, credit);
}

/* Damage to any figure: a character gets a prompt (§11.1). */
void
damage(struct game *g, int f, int n, int credit, const char *why,
    int after)
{
	struct fig *x = &g->s.fig[f];
	refd_mpw *w;

	if (!x->alive)
		return;
	if (x->kind != F_CHAR) {
		hurt(g, f, n, credit, why);
		return;
	}
	if (n <= 0) {
		if (after)
			after_damage(g);
		return;
	}
	if (g->s.ndq >= 6)
		return;
	g->s.dq[g->s.ndq].active = 1;
	g->s.dq[g->s.ndq].ci = char_of(g, f);
	g->s.dq[g->s.ndq].amount = n;
	g->s.dq[g->s.ndq].after = after;
	g->s.dq[g->s.ndq].kind = strcmp(why, "trap") == 0;
	g->s.ndq++;
	w = evb("damage_prompt");
	refd_mpw_kint(w, "seat", char_of(g, f));
	refd_mpw_kint(w, "amount", n);
	refd_mpw_kstr(w, "source", why);
	ev(g, REFD_SEAT_PUBLIC, w);
}

/* Hazards and traps entered by figure f (§14.2-14.3). */
void
enter_hex(struct game *g, int f, int h, int credit)
{
	struct hexs *x = &g->s.hex[h];

	if (x->ov == OV_TRAP) {
		int dmg = x->val > 0 ? x->val : g->s.trapdmg;

		x->ov = OV_NONE;
		damage(g, f, dmg, credit, "trap", 0);
	} else if (x->ov == OV_HAZARD) {
		damage(g, f, g->s.hazdmg, credit, "hazardous terrain", 0);
	}
}

/* ----- the end ----- */

void
finish(struct game *g, int win, const char *why)
{
	refd_mpw *w;
	int i;

	if (g->s.over || g->s.phase == PH_TOWN)
		return;
	if (!g->s.camp) {
		g->s.over = win ? 1 : 2;
		g->s.phase = PH_OVER;
	}
	g->s.ndq = 0;
	g->s.ai_active = 0;
	g->s.ai_pick = 0;
	g->s.push.active = 0;
	g->s.atk.active = 0;
	w = evb("scenario_end");
	refd_mpw_kstr(w, "result", win ? "success" : "failure");
	refd_mpw_kstr(w, "why", why);
	refd_mpw_karray(w, "characters");
	for (i = 0; i < g->s.nch; i++) {
		struct chr *c = &g->s.ch[i];

		if (win)
			c->xp += g->s.bonus_xp;
		refd_mpw_map(w);
		refd_mpw_kint(w, "seat", i);
		refd_mpw_kint(w, "xp", c->xp);
		refd_mpw_kint(w, "gold", c->money * g->s.gold_per + c->gold);
		refd_mpw_end(w);
	}
	refd_mpw_end(w);
	ev(g, REFD_SEAT_PUBLIC, w);
	if (win)
		goals_score(g);
	if (g->s.camp)
		camp_return(g, win);
}

int
victory_met(const struct game *g)
{
	const struct dg *s = &g->s;
	int i, k = s->nch - 2 < 0 ? 0 : s->nch - 2 > 2 ? 2 : s->nch - 2;

	if (g->s.mapi >= 0 && g->c->map[g->s.mapi].victory_boss) {
		for (i = 0; i < s->nfig; i++)
			if (s->fig[i].alive && s->fig[i].kind == F_MONSTER &&
			    s->fig[i].rank == 2)
				return 0;
		return 1;
	}
	for (i = 0; i < s->nfig; i++)
		if (s->fig[i].alive && s->fig[i].kind == F_MONSTER)
			return 0;
	for (i = 0; i < s->nrmon; i++)
		if (!(s->revealed >> s->rmon[i].room & 1) &&
		    s->rmon[i].rank[k] >= 0)
			return 0;
	return 1;
}

/* ----- monster deck and placement ----- */

void
ad_draw(struct game *g, int t)
{
	int d = g->c->type[t].deck;
	refd_mpw *w;

	if (g->s.ad_cur[d] >= 0)
		return;
	if (!g->s.ad_started[d]) {
		g->s.ad_started[d] = 1;
		if (!g->s.test_decks)
			shuffle(g, g->s.ad_c[d], g->s.ad_n[d], "monster ability deck");
	}
	if (g->s.ad_n[d] == 0) {
		int i;

		for (i = 0; i < g->s.ad_nd[d]; i++)
			g->s.ad_c[d][g->s.ad_n[d]++] = g->s.ad_d[d][i];
		g->s.ad_nd[d] = 0;
		shuffle(g, g->s.ad_c[d], g->s.ad_n[d], "monster ability deck");
	}
	g->s.ad_cur[d] = g->s.ad_c[d][--g->s.ad_n[d]];
	g->s.ad_d[d][g->s.ad_nd[d]++] = g->s.ad_cur[d];
	if (g->c->deck[d].card[g->s.ad_cur[d]].shuffle)
		g->s.ad_shuffle[d] = 1;
	g->dirty |= DIRTY_AD;
	w = evb("monster_card");
	refd_mpw_kstr(w, "deck", g->c->deck[d].name);
	refd_mpw_kstr(w, "card", g->c->deck[d].card[g->s.ad_cur[d]].name);
	refd_mpw_kint(w, "init", g->c->deck[d].card[g->s.ad_cur[d]].init);
	ev(g, REFD_SEAT_PUBLIC, w);
}

static const struct mcard *
card_of_type(const struct game *g, int t)
{
	int d = g->c->type[t].deck;

	if (g->s.ad_cur[d] < 0)
		return NULL;
	return &g->c->deck[d].card[g->s.ad_cur[d]];
}

/* HP obstacles of a room become attackable figures (§6.2). */
void
place_obstacles(struct game *g, int room)
{
	struct dg *s = &g->s;
	int h;

	for (h = 0; h < s->nhex && s->nfig < MAXFIG; h++) {
		struct fig *x;

		if (s->hex[h].room != room || s->hex[h].ov != OV_OBSTACLE ||
		    s->hex[h].val <= 0 || fig_at(s, s->hex[h].q, s->hex[h].r) >= 0)
			continue;
		x = &s->fig[s->nfig++];
		memset(x, 0, sizeof(*x));
		x->alive = 1;
		x->kind = F_OBSTACLE;
		x->owner = -1;
		x->nomoney = 1;
		x->q = s->hex[h].q;
		x->r = s->hex[h].r;
		x->hp = x->maxhp = s->hex[h].val;
	}
}

int
card_init(const struct game *g, int t)
{
	const struct mcard *mc = card_of_type(g, t);

	return mc != NULL ? mc->init : 99;
}

int
type_present(const struct game *g, int t)
{
	int i;

	for (i = 0; i < g->s.nfig; i++)
		if (g->s.fig[i].alive && g->s.fig[i].kind == F_MONSTER &&
		    g->s.fig[i].type == t)
			return 1;
	return 0;
}

/* Place a monster; standee < 0: a random free one.  Returns fig or -1. */
int
place_monster(struct game *g, int t, int rank, int q, int r, int standee,
    int nomoney)
{
	const struct mtype *mt = &g->c->type[t];
	int used = 0, i, nfree = 0, k;
	struct fig *x;
	refd_mpw *w;

	for (i = 0; i < g->s.nfig; i++)
		if (g->s.fig[i].alive && g->s.fig[i].kind == F_MONSTER &&
		    g->s.fig[i].type == t)
			used |= 1 << g->s.fig[i].standee;
	for (i = 1; i <= mt->standees; i++)
		nfree += !(used >> i & 1);
	if (nfree == 0 || g->s.nfig >= MAXFIG)
		return -1;
	/* A standee named by the setup: one of the type's, and free. */
	if (standee > mt->standees || (standee > 0 && (used >> standee & 1)))
		return -1;
	if (standee <= 0) {
		k = nfree > 1 ? uniform(g, nfree, "standee number") : 0;
		for (i = 1; i <= mt->standees; i++)
			if (!(used >> i & 1) && k-- == 0)
				break;
		standee = i;
	}
	x = &g->s.fig[g->s.nfig];
	memset(x, 0, sizeof(*x));
	x->alive = 1;
	x->kind = F_MONSTER;
	x->type = t;
	x->rank = rank;
	x->standee = standee;
	x->q = q;
	x->r = r;
	x->owner = -1;
	x->nomoney = nomoney;
	x->born_round = 0;
	if (rank == 2)
		x->maxhp = (mt->boss_hp_base + mt->boss_hp_per_level *
		    g->s.mlevel) * g->s.nch;
	else
		x->maxhp = mt->hp[g->s.mlevel][rank];
	x->hp = x->maxhp;
	w = evb("monster_placed");
	refd_mpw_kint(w, "fig", g->s.nfig);
	refd_mpw_kstr(w, "monster", mt->name);
	refd_mpw_kstr(w, "rank", rank == 0 ? "normal" : rank == 1 ? "elite" :
	    "boss");
	refd_mpw_kint(w, "standee", standee);
	kxy(w, "at", q, r);
	refd_mpw_kint(w, "hp", x->hp);
	ev(g, REFD_SEAT_PUBLIC, w);
	return g->s.nfig++;
}

/* Open a door and reveal its room (§14.6, §4.4). */
static void
open_door(struct game *g, int h)
{
	struct dg *s = &g->s;
	int room = s->hex[h].val, i, k, before[MAXTYPES];
	int rk = s->nch - 2 < 0 ? 0 : s->nch - 2 > 2 ? 2 : s->nch - 2;
	int myinit = s->ord[s->cur].init;
	refd_mpw *w;

	s->hex[h].door = DOOR_OPEN;
	w = evb("door_opened");
	kxy(w, "at", s->hex[h].q, s->hex[h].r);
	refd_mpw_kint(w, "room", room);
	ev(g, REFD_SEAT_PUBLIC, w);
	if (s->revealed >> room & 1)
		return;
	s->revealed |= 1 << room;
	place_obstacles(g, room);
	for (k = 0; k < g->c->ntype; k++)
		before[k] = type_present(g, k);
	/* shortage: nearest the door first (placement list is in order of
	 * distance to the door) */
	for (;;) {
		int best = -1, bd = 0;

		for (i = 0; i < s->nrmon; i++) {
			int d;

			if (s->rmon[i].room != room || s->rmon[i].rank[rk] < 0)
				continue;
			d = range_between(s, s->hex[h].q, s->hex[h].r,
			    s->rmon[i].q, s->rmon[i].r);
			if (best < 0 || d < bd) {
				best = i;
				bd = d;
			}
		}
		if (best < 0)
			break;
		place_monster(g, s->rmon[best].type, s->rmon[best].rank[rk],
		    s->rmon[best].q, s->rmon[best].r, 0, 0);
		s->rmon[best].rank[rk] = -1;
	}
	for (k = 0; k < g->c->ntype; k++) {
		const struct mcard *mc;
		int j;

		if (before[k] || !type_present(g, k))
			continue;
		ad_draw(g, k);
		mc = card_of_type(g, k);
		/* a new type: join the order; right after the opener if it is
		 * faster (§4.4) */
		if (s->nord >= MAXORD)
			continue;
		for (j = 0; j < s->nord; j++)
			if (s->ord[j].kind == O_TYPE && s->ord[j].idx == k)
				break;
		if (j < s->nord)
			continue;
		if (mc->init < myinit) {
			memmove(&s->ord[s->cur + 2], &s->ord[s->cur + 1],
			    (size_t)(s->nord - s->cur - 1) * sizeof(s->ord[0]));
			j = s->cur + 1;
		} else {
			for (j = s->cur + 1; j < s->nord; j++)
				if (s->ord[j].init > mc->init ||
				    (s->ord[j].init == mc->init &&
				    s->ord[j].kind == O_TYPE &&
				    s->ord[j].idx > k))
					break;
			memmove(&s->ord[j + 1], &s->ord[j],
			    (size_t)(s->nord - j) * sizeof(s->ord[0]));
		}
		s->ord[j].kind = O_TYPE;
		s->ord[j].idx = k;
		s->ord[j].init = mc->init;
		s->ord[j].init2 = 0;
		s->nord++;
	}
}

/* ----- character movement (§1.6) ----- */

/*
 * Layered search of character figure f's moves: cost[h][m] = fewest
 * negative hexes entered reaching h with exactly m movement points.
 * Characters pass allies, not enemies or obstacles; difficult terrain
 * costs 2; a closed door may be entered (it ends the move).  A jump
 * ignores figures and overlays on the way (§1.6).
 */
static void
layers(const struct game *g, int f, int mp, int jump, int cost[][10],
    int pv[][10])
{
	const struct dg *s = &g->s;
	int m, x, d, start = hex_at(s, s->fig[f].q, s->fig[f].r);

	for (x = 0; x < s->nhex; x++)
		for (m = 0; m < 10; m++)
			cost[x][m] = -1;
	cost[start][0] = 0;
	pv[start][0] = -1;
	for (m = 0; m < mp; m++)
		for (x = 0; x < s->nhex; x++) {
			if (cost[x][m] < 0)
				continue;
			if (s->hex[x].door == DOOR_CLOSED && x != start)
				continue;
			for (d = 0; d < 6; d++) {
				int nq = s->hex[x].q + refd_hex_dq[d];
				int nr = s->hex[x].r + refd_hex_dr[d];
				int nn = hex_at(s, nq, nr), o, c, neg, mm;

				if (nn < 0 || s->hex[nn].door == DOOR_LOCKED)
					continue;
				if (s->hex[nn].door == DOOR_CLOSED) {
					if (solid(s, s->hex[x].q, s->hex[x].r))
						continue;
				} else if (!adjacent(s, s->hex[x].q,
				    s->hex[x].r, nq, nr)) {
					continue;
				}
				o = fig_at(s, nq, nr);
				c = 1;
				neg = 0;
				if (!jump) {
					if (o >= 0 && enemies(s, f, o))
						continue;
					if (s->hex[nn].ov == OV_OBSTACLE)
						continue;
					if (s->hex[nn].ov == OV_DIFFICULT)
						c = 2;
					neg = s->hex[nn].ov == OV_TRAP ||
					    s->hex[nn].ov == OV_HAZARD;
				}
				mm = m + c;
				if (mm > mp)
					continue;
				if (cost[nn][mm] < 0 ||
				    cost[x][m] + neg < cost[nn][mm]) {
					cost[nn][mm] = cost[x][m] + neg;
					pv[nn][mm] = x * 16 + m;
				}
			}
		}
}

/* Where figure f may end a move of mp points: best[h] = neg*100 + mp
 * of the best way there, or -1 (it must be free and no obstacle). */
void
char_reach(const struct game *g, int f, int mp, int jump, int *best)
{
	const struct dg *s = &g->s;
	int cost[MAXHEX][10], pv[MAXHEX][10], h, m;

	if (mp > 9)
		mp = 9;
	layers(g, f, mp, jump, cost, pv);
	for (h = 0; h < s->nhex; h++) {
		int o = fig_at(s, s->hex[h].q, s->hex[h].r);

		best[h] = -1;
		if ((o >= 0 && o != f) || s->hex[h].ov == OV_OBSTACLE)
			continue;
		if (jump && s->hex[h].ov == OV_DIFFICULT) {
			/* the landing costs 2 (§1.6, A-4) */
			for (m = 0; m < mp; m++)
				if (cost[h][m] >= 0 && (best[h] < 0 ||
				    cost[h][m] * 100 + m + 1 < best[h]))
					best[h] = cost[h][m] * 100 + m + 1;
			continue;
		}
		for (m = 0; m <= mp; m++)
			if (cost[h][m] >= 0 && (best[h] < 0 ||
			    cost[h][m] * 100 + m < best[h]))
				best[h] = cost[h][m] * 100 + m;
	}
}

/* Hexes of the best path to h (excluding the start) into out. */
static int
char_path(const struct game *g, int f, int mp, int jump, int h, int *out)
{
	const struct dg *s = &g->s;
	int cost[MAXHEX][10], pv[MAXHEX][10], m, x, n = 0, tmp[32], i;
	int start = hex_at(s, s->fig[f].q, s->fig[f].r), bm = -1, bv = -1;

	if (mp > 9)
		mp = 9;
	layers(g, f, mp, jump, cost, pv);
	for (m = 0; m <= mp; m++)
		if (cost[h][m] >= 0 && (bv < 0 || cost[h][m] * 100 + m < bv)) {
			bv = cost[h][m] * 100 + m;
			bm = m;
		}
	if (bm < 0)
		return 0;
	x = h;
	m = bm;
	while (x != start && n < 32) {
		int p = pv[x][m];

		tmp[n++] = x;
		x = p / 16;
		m = p % 16;
	}
	for (i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	return n;
}

/* A path of hex indices (in order) as a "path" member of w. */
void
write_path(const struct dg *s, refd_mpw *w, const int *path, int n,
    int reverse)
{
	int i;

	refd_mpw_karray(w, "path");
	for (i = 0; i < n; i++) {
		int h = path[reverse ? n - 1 - i : i];

		refd_mpw_array(w);
		refd_mpw_int(w, s->hex[h].q);
		refd_mpw_int(w, s->hex[h].r);
		refd_mpw_end(w);
	}
	refd_mpw_end(w);
}

/* The default hand: level-1 cards, then level-X ones (§3 step 15). */
int
default_hand(const struct cclass *cl)
{
	int k, nh = 0, hand = 0, lv;

	for (lv = 1; lv >= 0; lv--)
		for (k = 0; k < cl->ncards && nh < cl->hand; k++)
			if (cl->card[k].level == lv) {
				hand |= 1 << k;
				nh++;
			}
	return hand;
}

/* Level-1 and level-X cards: the pool of a new character (§2.5). */
int
base_pool(const struct cclass *cl)
{
	int k, m = 0;

	for (k = 0; k < cl->ncards; k++)
		if (cl->card[k].level <= 1)
			m |= 1 << k;
	return m;
}

/* Every character holds at most its hand size (§3 step 15). */
int
hands_ready(const struct game *g)
{
	int i;

	for (i = 0; i < g->s.nch; i++)
		if (!g->s.ch[i].exhausted && (__builtin_popcount(
		    (unsigned)g->s.ch[i].hand) > g->c->cls[g->s.ch[i].cls].hand ||
		    (g->s.ch[i].ev_disc > 0 && g->s.ch[i].hand != 0) ||
		    !g->s.ch[i].placed))
			return 0;
	return 1;
}

/* Equip limits (§5.5) for cnt[] items per slot at a level. */
int
equip_ok(const int *cnt, int level)
{
	return cnt[IS_HEAD] <= 1 && cnt[IS_BODY] <= 1 && cnt[IS_LEGS] <= 1 &&
	    cnt[IS_HANDS] <= 1 && !(cnt[IS_HANDS] && cnt[IS_HAND]) &&
	    cnt[IS_HAND] <= 2 && cnt[IS_SMALL] <= (level + 1) / 2;
}

/* Move character figure f to hex h along its best path. */
void
char_move(struct game *g, int f, int mp, int jump, int h)
{
	struct dg *s = &g->s;
	int path[32], n = char_path(g, f, mp, jump, h, path), i;
	refd_mpw *w;

	w = evb("move");
	refd_mpw_kint(w, "fig", f);
	write_path(s, w, path, n, 0);
	ev(g, REFD_SEAT_PUBLIC, w);
	for (i = 0; i < n; i++) {
		s->fig[f].q = s->hex[path[i]].q;
		s->fig[f].r = s->hex[path[i]].r;
		if (jump && i < n - 1)
			continue;
		if (s->hex[path[i]].door == DOOR_CLOSED) {
			open_door(g, path[i]);
			break;
		}
		enter_hex(g, f, path[i], -1);
		if (!s->fig[f].alive)
			break;
	}
}
