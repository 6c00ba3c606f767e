/*
 * decide.c - the decisions a seat may take now (options) and carrying
 * one out (perform).  legal lists options(); apply accepts exactly those.
 */
#include <stdio.h>
#include <string.h>

#include "dg.h"
#include "rules.h"

#define popc(x) __builtin_popcount((unsigned)(x))

void
opt_add(struct opt *out, int *n, int max, int kind, int a, int b, int c)
{
	if (*n >= max)
		return;
	memset(&out[*n], 0, sizeof(out[*n]));
	out[*n].kind = kind;
	out[*n].a = a;
	out[*n].b = b;
	out[*n].c = c;
	(*n)++;
}

/* Active card k of seat ci may be moved to its pile (§5.6). */
static int
movable_active(const struct game *g, int ci, int k)
{
	return (g->s.ch[ci].active >> k & 1) != 0;
}

/*
 * The seat that decides now about its active cards at round start (§5.6):
 * the first in seat order that has some and has not kept them, before any
 * sealed plan, so that these public moves never mix with the sealed
 * choices (R002-13); -1 when none.
 */
static int
active_seat(const struct game *g)
{
	int i;

	for (i = 0; i < g->s.nch; i++) {
		const struct chr *c = &g->s.ch[i];

		if (!c->exhausted && !c->planned && !c->active_done &&
		    c->active != 0)
			return i;
	}
	return -1;
}

/* Active card k of ci goes to its pile now (§5.6), publicly. */
void
active_move(struct game *g, int ci, int k)
{
	struct dg *s = &g->s;
	struct chr *c = &s->ch[ci];
	const struct cclass *cl = &g->c->cls[c->cls];
	int lost = active_is_lost(g, ci, k), i;
	refd_mpw *w;

	c->active &= ~(1 << k);
	if (lost)
		c->lost |= 1 << k;
	else
		c->disc |= 1 << k;
	/* a summon card ends its summon */
	if (cl->card[k].h[1].ab[0].kind == A_SUMMON)
		for (i = 0; i < s->nfig; i++)
			if (s->fig[i].alive && s->fig[i].kind == F_SUMMON &&
			    s->fig[i].owner == ci)
				s->fig[i].alive = 0;
	w = evb("active_to_pile");
	refd_mpw_kint(w, "seat", ci);
	refd_mpw_kstr(w, "card", cl->card[k].id);
	refd_mpw_kstr(w, "to", lost ? "lost" : "discard");
	ev(g, REFD_SEAT_PUBLIC, w);
}

/* Card k of seat ci goes to its lost pile when it leaves the active area. */
int
active_is_lost(const struct game *g, int ci, int k)
{
	const struct ccard *cd = &g->c->cls[g->s.ch[ci].cls].card[k];

	return cd->h[0].lost || cd->h[1].lost;
}

int
aoe_targets(const struct game *g, int f, const struct ability *a, int q,
    int r, int o, int *tg, int *in_range)
{
	return aoe_targets_from(g, f, g->s.fig[f].q, g->s.fig[f].r, a, q, r, o,
	    tg, in_range);
}

/* The same for figure f standing on (fq, fr) (monster destinations). */
int
aoe_targets_from(const struct game *g, int f, int fq, int fr,
    const struct ability *a, int q, int r, int o, int *tg, int *in_range)
{
	const struct dg *s = &g->s;
	int i, n = 0;

	*in_range = a->grey ? 1 : 0;
	if (a->grey) {
		q = fq;
		r = fr;
	}
	for (i = 0; i < a->naoe; i++) {
		int dq, dr, hq, hr, e;

		refd_hex_orient(a->aoe[i][0], a->aoe[i][1], o, &dq, &dr);
		hq = q + dq;
		hr = r + dr;
		if (hex_at(s, hq, hr) < 0 || solid(s, hq, hr))
			continue;
		if (!a->grey && g_range(g, fq, fr, hq, hr) <=
		    (a->range > 0 ? a->range : 1))
			*in_range = 1;
		e = fig_at(s, hq, hr);
		if (e >= 0 && enemies(s, f, e) &&
		    !(s->fig[e].conds & C_INVISIBLE) && n < MAXTG &&
		    g_los(g, fq, fr, hq, hr))
			tg[n++] = e;
	}
	return n;
}

/* Enemy e is a legal single target of figure f's attack a. */
int
can_target(const struct game *g, int f, const struct ability *a, int e,
    const char **why)
{
	const struct dg *s = &g->s;
	int rng = a->range > 0 ? a->range : 1;

	if (e < 0 || e >= s->nfig || !s->fig[e].alive) {
		*why = "there is no such figure on the map";
		return 0;
	}
	if (!enemies(s, f, e)) {
		*why = "it is not an enemy";
		return 0;
	}
	if (s->fig[e].conds & C_INVISIBLE) {
		*why = "it is invisible";
		return 0;
	}
	if (range_between(s, s->fig[f].q, s->fig[f].r, s->fig[e].q,
	    s->fig[e].r) > rng) {
		*why = a->range > 0 ? "it is out of range" :
		    "a melee attack needs an adjacent target";
		return 0;
	}
	if (!los(s, s->fig[f].q, s->fig[f].r, s->fig[e].q, s->fig[e].r)) {
		*why = "there is no line of sight to it";
		return 0;
	}
	return 1;
}

/*
 * The ways to pay ability a's augment now (§10): aug[0] = 0 (do not),
 * then 1 for a named augment, or 2 + e for each element e a wild augment
 * may take.  Returns the number of ways.
 */
static int
augments(const struct game *g, const struct ability *a, int *aug)
{
	int i, avail = 0, n = 0;

	aug[n++] = 0;
	if (a->consume == 0 && a->any == 0)
		return n;
	for (i = 0; i < NELEM; i++)
		if (g->s.elem[i] > 0)
			avail |= 1 << i;
	if ((avail & a->consume) != a->consume)
		return n;
	if (!a->any) {
		aug[n++] = 1;
		return n;
	}
	for (i = 0; i < NELEM; i++)
		if ((avail & ~a->consume) >> i & 1)
			aug[n++] = 2 + i;
	return n;
}

int
move_points(const struct game *g, int ci, const struct ability *a, int aug)
{
	return a->value + (aug > 0 ? a->bonus_move : 0) +
	    g->s.ch[ci].bonus_move;
}

/* Repeat the options from first on for every way to pay the augment. */
static void
with_augments(struct opt *out, int *n, int max, int first, const int *aug,
    int naug)
{
	int end = *n, u, i;

	for (u = 1; u < naug; u++)
		for (i = first; i < end && *n < max; i++) {
			out[*n] = out[i];
			out[*n].c = aug[u];
			(*n)++;
		}
}

static void
ability_options(const struct game *g, int ci, struct opt *out, int *n,
    int max)
{
	const struct dg *s = &g->s;
	const struct chr *c = &s->ch[ci];
	int f = c->fig, e, e2, e3, h, k;
	struct ability tmp;
	const struct ability *a = cur_ability(g, ci, &tmp);
	const char *why;
	int aug[NELEM + 2], naug, u, first;

	if (a == NULL)
		return;
	naug = augments(g, a, aug);
	first = *n;
	switch (a->kind) {
	case A_MOVE:
		if (!(s->fig[f].conds & C_IMMOBILIZE))
			for (u = 0; u < naug; u++) {
				int best[MAXHEX];

				char_reach(g, f, move_points(g, ci, a, aug[u]),
				    a->jump, best);
				for (h = 0; h < s->nhex; h++)
					if (best[h] >= 0 &&
					    (s->hex[h].q != s->fig[f].q ||
					    s->hex[h].r != s->fig[f].r)) {
						opt_add(out, n, max, K_MOVE, 0, 0,
						    aug[u]);
						out[*n - 1].q = s->hex[h].q;
						out[*n - 1].r = s->hex[h].r;
					}
			}
		break;
	case A_ATTACK:
		if (s->fig[f].conds & C_DISARM)
			break;
		if (a->naoe > 0) {
			for (h = 0; h < s->nhex; h++) {
				int o, hq = s->hex[h].q, hr = s->hex[h].r;

				if (a->grey && (hq != s->fig[f].q ||
				    hr != s->fig[f].r))
					continue;
				if (!a->grey && range_between(s, s->fig[f].q,
				    s->fig[f].r, hq, hr) > a->range + 2)
					continue;
				for (o = 0; o < 12; o++) {
					int tg[MAXTG], inr, nt;

					/* an area may be placed where no enemy
					 * stands (§1.7) */
					nt = aoe_targets(g, f, a, hq, hr, o, tg,
					    &inr);
					(void)nt;
					if (!inr)
						continue;
					opt_add(out, n, max, K_AOE, 0, 0, 0);
					out[*n - 1].q = hq;
					out[*n - 1].r = hr;
					out[*n - 1].o = o;
				}
			}
			with_augments(out, n, max, first, aug, naug);
			break;
		}
		for (e = 0; e < s->nfig; e++) {
			if (!can_target(g, f, a, e, &why))
				continue;
			opt_add(out, n, max, K_ATTACK, 0, 0, 0);
			out[*n - 1].n = 1;
			out[*n - 1].tg[0] = e;
			if (a->target < 2)
				continue;
			for (e2 = 0; e2 < s->nfig; e2++) {
				if (e2 == e || !can_target(g, f, a, e2, &why))
					continue;
				opt_add(out, n, max, K_ATTACK, 0, 0, 0);
				out[*n - 1].n = 2;
				out[*n - 1].tg[0] = e;
				out[*n - 1].tg[1] = e2;
				if (a->target < 3)
					continue;
				for (e3 = 0; e3 < s->nfig; e3++) {
					if (e3 == e || e3 == e2 ||
					    !can_target(g, f, a, e3, &why))
						continue;
					opt_add(out, n, max, K_ATTACK, 0, 0, 0);
					out[*n - 1].n = 3;
					out[*n - 1].tg[0] = e;
					out[*n - 1].tg[1] = e2;
					out[*n - 1].tg[2] = e3;
				}
			}
		}
		with_augments(out, n, max, first, aug, naug);
		break;
	case A_HEAL:
	case A_BLESS:
		for (e = 0; e < s->nfig; e++) {
			if (!s->fig[e].alive || enemies(s, f, e))
				continue;
			if (e != f && (a->self || range_between(s, s->fig[f].q,
			    s->fig[f].r, s->fig[e].q, s->fig[e].r) > a->range ||
			    !los(s, s->fig[f].q, s->fig[f].r, s->fig[e].q,
			    s->fig[e].r)))
				continue;
			opt_add(out, n, max, a->kind == A_HEAL ? K_HEAL : K_BLESS,
			    e, 0, 0);
		}
		break;
	case A_SUMMON:
		for (k = 0; k < 6; k++) {
			int q = s->fig[f].q + refd_hex_dq[k];
			int r = s->fig[f].r + refd_hex_dr[k];

			h = hex_at(s, q, r);
			if (h < 0 || !adjacent(s, s->fig[f].q, s->fig[f].r, q,
			    r) || fig_at(s, q, r) >= 0 ||
			    (s->hex[h].ov != OV_NONE && s->hex[h].ov != OV_PLATE))
				continue;
			opt_add(out, n, max, K_SUMMON, 0, 0, 0);
			out[*n - 1].q = q;
			out[*n - 1].r = r;
		}
		break;
	case A_RECOVER:
		for (k = 0; k < g->c->cls[c->cls].ncards; k++)
			if ((c->lost >> k & 1) &&
			    !g->c->cls[c->cls].card[k].unrecoverable)
				opt_add(out, n, max, K_RECOVER, k, 0, 0);
		break;
	case A_INFUSE:
		return;
	default:
		opt_add(out, n, max, K_PERFORM, 0, 0, 0);
		break;
	}
	opt_add(out, n, max, K_SKIP, 0, 0, 0);
}

/* The seat whose public set-up choices (event discards, start hex) come
 * now: the first in seat order with some left, once every hand is
 * chosen; -1 while a hand is not. */
static int
setup_seat(const struct game *g)
{
	const struct dg *s = &g->s;
	int i;

	for (i = 0; i < s->nch; i++)
		if (!s->ch[i].exhausted && popc(s->ch[i].hand) >
		    g->c->cls[s->ch[i].cls].hand)
			return -1;
	for (i = 0; i < s->nch; i++)
		if (!s->ch[i].exhausted && ((s->ch[i].ev_disc > 0 &&
		    s->ch[i].hand != 0) || !s->ch[i].placed))
			return i;
	return -1;
}

int
options(const struct game *g, int seat, struct opt *out, int max)
{
	const struct dg *s = &g->s;
	int n = 0, k, k2, ci = seat;
	const struct chr *c;

	if (s->over || seat < 0 || seat >= s->nch)
		return 0;
	if (s->phase == PH_TOWN)
		return camp_options(g, seat, out, max);
	c = &s->ch[ci];
	if (s->phase == PH_HANDS) {
		if (c->exhausted)
			return 0;
		if (popc(c->hand) > g->c->cls[c->cls].hand) {
			for (k = 0; k < MAXCARD; k++)
				if (c->hand >> k & 1)
					opt_add(out, &n, max, K_DROP, k, 0, 0);
			return n;
		}
		/* then, once every hand is chosen, one seat at a time in seat
		 * order: its event discards, then its start hex (§3 steps
		 * 15 and 17), each public when taken */
		if (setup_seat(g) != seat)
			return 0;
		if (c->ev_disc > 0 && c->hand != 0) {
			/* an event's discard penalty, from the hand just
			 * chosen (§2.12, §3 step 15) */
			for (k = 0; k < MAXCARD; k++)
				if (c->hand >> k & 1)
					opt_add(out, &n, max, K_EVDISC, k, 0, 0);
			return n;
		}
		if (c->placed)
			return 0;
		/* a start hex of the first room (§3 step 17) */
		for (k = 0; k < s->nstart; k++) {
			int o = fig_at(s, s->start[k][0], s->start[k][1]);

			if (o >= 0 && o != c->fig)
				continue;
			opt_add(out, &n, max, K_START, 0, 0, 0);
			out[n - 1].q = s->start[k][0];
			out[n - 1].r = s->start[k][1];
		}
		if (n == 0) {	/* no free start hex: stay */
			opt_add(out, &n, max, K_START, 0, 0, 0);
			out[n - 1].q = s->fig[c->fig].q;
			out[n - 1].r = s->fig[c->fig].r;
		}
		return n;
	}
	if (s->phase == PH_GOALS) {
		if (c->exhausted || c->bg_choice >= 0 || c->bg_dealt[0] < 0)
			return 0;
		for (k = 0; k < 2; k++)
			if (c->bg_dealt[k] >= 0)
				opt_add(out, &n, max, K_GOAL, k, 0, 0);
		return n;
	}
	if (s->ndq > 0) {
		int keep = 0;

		if (s->dq[0].ci != seat)
			return 0;
		if (s->phase == PH_TURN && !c->rest && c->planned)
			keep = ((1 << c->ca) | (1 << c->cb)) & ~c->played;
		opt_add(out, &n, max, K_TAKE, 0, 0, 0);
		/* an item that negates trap damage (Iron Cap), not stunned */
		if (s->dq[0].kind == 1 && !(s->fig[c->fig].conds & C_STUN))
			for (k = 0; k < c->nitem; k++)
				if (c->istate[k] == 0 &&
				    g->c->item[c->item[k]].effect == IE_TRAPSAFE)
					opt_add(out, &n, max, K_ITEM, k, 0, 0);
		for (k = 0; k < MAXCARD; k++)
			if ((c->hand >> k & 1) && !(keep >> k & 1))
				opt_add(out, &n, max, K_LOSEHAND, k, 0, 0);
		for (k = 0; k < MAXCARD; k++)
			for (k2 = k + 1; k2 < MAXCARD; k2++)
				if ((c->disc >> k & 1) && (c->disc >> k2 & 1))
					opt_add(out, &n, max, K_LOSEDISC, k, k2, 0);
		return n;
	}
	if (s->atk.active && s->atk.react) {
		if (seat != s->atk.react_seat)
			return 0;
		opt_add(out, &n, max, K_REACT, 1, 0, 0);
		opt_add(out, &n, max, K_REACT, 0, 0, 0);
		return n;
	}
	if (s->ai_active) {
		int i;

		if (seat != s->ai_seat)
			return 0;
		for (i = 0; i < s->ai_n; i++) {
			if (s->ai_kind == 1 || (s->ai_kind >= 3 &&
			    s->ai_kind <= 5)) {
				/* c: 1 a target, 3 a path, 4 an element */
				opt_add(out, &n, max, K_AITIE, s->ai_hex[i], 0,
				    s->ai_kind == 1 ? 1 : s->ai_kind == 3 ? 3 :
				    4);
				continue;
			}
			opt_add(out, &n, max, K_AITIE, 0, 0, 0);
			out[n - 1].q = s->hex[s->ai_hex[i]].q;
			out[n - 1].r = s->hex[s->ai_hex[i]].r;
		}
		return n;
	}
	if (s->push.active) {
		int st[6], m, i;

		if (s->push.by_ci != seat)
			return 0;
		m = push_options(g, st);
		for (i = 0; i < m; i++) {
			opt_add(out, &n, max, K_PUSH, 0, 0, 0);
			out[n - 1].q = s->hex[st[i]].q;
			out[n - 1].r = s->hex[st[i]].r;
		}
		return n;
	}
	if (s->phase == PH_TURN && s->tie_active) {
		int32_t perms[24][4];
		int np, i;

		if (seat != s->tie_seat)
			return 0;
		np = tie_perms(g, perms, 24);
		for (i = 0; i < np; i++) {
			opt_add(out, &n, max, K_ORDER, 0, 0, 0);
			out[n - 1].n = s->tie_n;
			memcpy(out[n - 1].tg, perms[i], (size_t)s->tie_n *
			    sizeof(int32_t));
		}
		return n;
	}
	if (s->atk.active || c->exhausted)
		return 0;
	switch (s->phase) {
	case PH_PLAN:
		if (c->planned)
			return 0;
		if (active_seat(g) >= 0) {
			/* first, seat by seat, the public active-card moves */
			if (active_seat(g) != seat)
				return 0;
			for (k = 0; k < MAXCARD; k++)
				if (movable_active(g, ci, k))
					opt_add(out, &n, max, K_ACTIVE, k, 0, 0);
			/* keeping them must leave two cards to play or a rest */
			if (popc(c->hand) >= 2 || popc(c->disc) >= 2)
				opt_add(out, &n, max, K_KEEP, 0, 0, 0);
			return n;
		}
		if (popc(c->hand) >= 2)
			for (k = 0; k < MAXCARD; k++)
				for (k2 = 0; k2 < MAXCARD; k2++)
					if (k != k2 && (c->hand >> k & 1) &&
					    (c->hand >> k2 & 1))
						opt_add(out, &n, max, K_PLAN, k, k2,
						    0);
		if (popc(c->disc) >= 2)
			opt_add(out, &n, max, K_REST, 0, 0, 0);
		return n;
	case PH_TURN:
		if (s->cur >= s->nord || s->ord[s->cur].kind != O_CHAR ||
		    s->ord[s->cur].idx != seat)
			return 0;
		if (s->ct == CT_LONGREST) {
			for (k = 0; k < MAXCARD; k++)
				if (c->disc >> k & 1)
					opt_add(out, &n, max, K_LRLOSE, k, 0, 0);
			return n;
		}
		if (s->ct == CT_CHOOSE || s->ct == CT_ABILITY)
			for (k = 0; k < c->nitem; k++)
				if (item_usable(g, ci, k))
					opt_add(out, &n, max, K_ITEM, k, 0, 0);
		if (s->ct == CT_CHOOSE) {
			int cards[2] = { c->ca, c->cb }, i, h;

			for (i = 0; i < 2; i++) {
				if (c->played >> cards[i] & 1)
					continue;
				for (h = 0; h < 2; h++) {
					const struct half *hf = &g->c->cls[
					    c->cls].card[cards[i]].h[h];
					int wild = 0, ab, e;

					if (c->halves >> h & 1)
						continue;
					for (ab = 0; ab < hf->nab; ab++)
						wild |= hf->ab[ab].kind ==
						    A_INFUSE && hf->ab[ab].any;
					/* a wild infusion: the player picks the
					 * element (§10) */
					for (e = 0; e < (wild ? NELEM : 1); e++) {
						opt_add(out, &n, max, K_PLAY,
						    cards[i], h, 0);
						out[n - 1].q = wild ? e + 1 : 0;
					}
					opt_add(out, &n, max, K_PLAY, cards[i], h, 1);
				}
			}
			return n;
		}
		if (s->ct == CT_ABILITY)
			ability_options(g, ci, out, &n, max);
		return n;
	case PH_SHORTREST:
		if (s->sr_ci != seat)
			return 0;
		opt_add(out, &n, max, s->sr_stage == 0 ? K_SRACCEPT : K_SRKEEP, 0,
		    0, 0);
		opt_add(out, &n, max, s->sr_stage == 0 ? K_SRACCEPT : K_SRKEEP, 1,
		    0, 0);
		return n;
	default:
		return 0;
	}
}

static void
char_hp_loss(struct game *g, int ci, int n, const char *why)
{
	struct dg *s = &g->s;
	int f = s->ch[ci].fig;
	refd_mpw *w;

	s->fig[f].hp -= n;
	if (s->fig[f].hp < s->ch[ci].min_hp)
		s->ch[ci].min_hp = s->fig[f].hp;
	w = evb("damage");
	refd_mpw_kint(w, "fig", f);
	refd_mpw_kint(w, "amount", n);
	refd_mpw_kint(w, "hp", s->fig[f].hp < 0 ? 0 : s->fig[f].hp);
	refd_mpw_kstr(w, "source", why);
	ev(g, REFD_SEAT_PUBLIC, w);
	if (s->fig[f].hp <= 0)
		exhaust(g, ci, "hit points reached 0");
}

static void
pop_damage(struct game *g, const struct opt *o)
{
	struct dg *s = &g->s;
	struct pdmg d = s->dq[0];
	struct chr *c = &s->ch[d.ci];
	refd_mpw *w;

	memmove(&s->dq[0], &s->dq[1], (size_t)(s->ndq - 1) * sizeof(s->dq[0]));
	s->ndq--;
	w = evb("damage_choice");
	refd_mpw_kint(w, "seat", d.ci);
	if (o->kind == K_TAKE) {
		refd_mpw_kstr(w, "choice", "take");
		ev(g, REFD_SEAT_PUBLIC, w);
		char_hp_loss(g, d.ci, d.amount, "damage");
	} else if (o->kind == K_LOSEHAND) {
		c->hand &= ~(1 << o->a);
		c->lost |= 1 << o->a;
		refd_mpw_kstr(w, "choice", "lose a hand card");
		refd_mpw_kstr(w, "card", g->c->cls[c->cls].card[o->a].id);
		ev(g, REFD_SEAT_PUBLIC, w);
		g->dirty |= DIRTY_HAND(d.ci);
	} else {
		c->disc &= ~((1 << o->a) | (1 << o->b));
		c->lost |= (1 << o->a) | (1 << o->b);
		refd_mpw_kstr(w, "choice", "lose two discarded cards");
		ev(g, REFD_SEAT_PUBLIC, w);
	}
	if (d.after && !s->over)
		after_damage(g);
}

static void
char_loot(struct game *g, int ci, int range)
{
	struct dg *s = &g->s;
	struct chr *c = &s->ch[ci];
	int f = c->fig, h, money = 0, gold = 0;
	refd_mpw *w;

	for (h = 0; h < s->nhex; h++) {
		if (range_between(s, s->fig[f].q, s->fig[f].r, s->hex[h].q,
		    s->hex[h].r) > range || !los(s, s->fig[f].q, s->fig[f].r,
		    s->hex[h].q, s->hex[h].r))
			continue;
		money += s->hex[h].money;
		s->hex[h].money = 0;
		if (s->hex[h].ov == OV_TREASURE) {
			gold += s->hex[h].val;
			s->hex[h].ov = OV_NONE;
			if (s->mapi >= 0)
				s->looted |= 1 << s->mapi;
		}
	}
	c->money += money;
	c->gold += gold;
	w = evb("loot");
	refd_mpw_kint(w, "seat", ci);
	refd_mpw_kint(w, "money", money);
	if (gold)
		refd_mpw_kint(w, "treasure_gold", gold);
	ev(g, REFD_SEAT_PUBLIC, w);
}

int
perform(struct game *g, int seat, const struct opt *o)
{
	struct dg *s = &g->s;
	struct chr *c = &s->ch[seat];
	const struct cclass *cl = &g->c->cls[c->cls];
	int f = c->fig;
	struct ability tmp;
	const struct ability *a;
	refd_mpw *w;

	switch (o->kind) {
	case K_TAKE:
	case K_LOSEHAND:
	case K_LOSEDISC:
		pop_damage(g, o);
		break;
	case K_PUSH: {
		int h = hex_at(s, o->q, o->r);

		push_choose(g, h);
		break;
	}
	case K_ACTIVE:
		active_move(g, seat, o->a);
		break;
	case K_KEEP:
		c->active_done = 1;
		w = evb("active_kept");
		refd_mpw_kint(w, "seat", seat);
		ev(g, REFD_SEAT_PUBLIC, w);
		break;
	case K_PLAN:
	case K_REST:
		c->planned = 1;
		c->rest = o->kind == K_REST;
		c->ca = o->kind == K_PLAN ? o->a : 0;
		c->cb = o->kind == K_PLAN ? o->b : 0;
		c->lead = c->ca;
		g->dirty |= DIRTY_HAND(seat);
		w = evb("plan");
		if (c->rest) {
			refd_mpw_kbool(w, "long_rest", 1);
		} else {
			refd_mpw_kstr(w, "lead", cl->card[c->ca].id);
			refd_mpw_kstr(w, "second", cl->card[c->cb].id);
		}
		ev(g, seat, w);
		w = evb("committed");
		refd_mpw_kint(w, "seat", seat);
		ev(g, REFD_SEAT_PUBLIC, w);
		break;
	case K_LRLOSE:
		c->disc &= ~(1 << o->a);
		c->lost |= 1 << o->a;
		c->hand |= c->disc;
		c->disc = 0;
		item_refresh(g, seat, 1);
		g->dirty |= DIRTY_HAND(seat);
		w = evb("long_rest");
		refd_mpw_kint(w, "seat", seat);
		refd_mpw_kstr(w, "lost", cl->card[o->a].id);
		ev(g, REFD_SEAT_PUBLIC, w);
		heal_fig(g, f, 2);
		s->ct = CT_END;
		break;
	case K_PLAY:
		c->any_elem = o->q;
		c->cur_card = o->a;
		c->cur_half = o->b;
		c->cur_default = o->c;
		c->ab_i = 0;
		c->ab_done = 0;
		c->hand &= ~(1 << o->a);
		s->ct = CT_ABILITY;
		w = evb("play");
		refd_mpw_kint(w, "seat", seat);
		refd_mpw_kstr(w, "card", cl->card[o->a].id);
		refd_mpw_kstr(w, "half", o->b ? "bottom" : "top");
		if (o->c)
			refd_mpw_kbool(w, "default", 1);
		ev(g, REFD_SEAT_PUBLIC, w);
		break;
	case K_MOVE: {
		int mp, h = hex_at(s, o->q, o->r);

		a = cur_ability(g, seat, &tmp);
		mp = a->value + char_move_bonus(g, a, o->c) + c->bonus_move;
		c->bonus_move = 0;
		char_move(g, f, mp, a->jump, h);
		ability_done(g, seat, 1);
		break;
	}
	case K_ATTACK:
		a = cur_ability(g, seat, &tmp);
		char_attack(g, seat, a, o->tg, o->n, 0, o->c);
		break;
	case K_AOE: {
		int tg[MAXTG], inr, nt;

		a = cur_ability(g, seat, &tmp);
		nt = aoe_targets(g, f, a, o->q, o->r, o->o, tg, &inr);
		char_attack(g, seat, a, tg, nt, 1, o->c);
		break;
	}
	case K_HEAL:
		a = cur_ability(g, seat, &tmp);
		heal_fig(g, o->a, a->value);
		ability_done(g, seat, 1);
		break;
	case K_BLESS:
		add_conds(g, o->a, C_BLESS);
		w = evb("bless");
		refd_mpw_kint(w, "fig", o->a);
		ev(g, REFD_SEAT_PUBLIC, w);
		ability_done(g, seat, 1);
		break;
	case K_SUMMON: {
		struct fig *x;

		if (s->nfig >= MAXFIG) {
			ability_done(g, seat, 0);
			break;
		}
		x = &s->fig[s->nfig];
		memset(x, 0, sizeof(*x));
		x->alive = 1;
		x->kind = F_SUMMON;
		x->type = c->cls;
		x->owner = seat;
		x->q = o->q;
		x->r = o->r;
		x->hp = x->maxhp = cl->summon.hp;
		x->move = cl->summon.move;
		x->attack = cl->summon.attack;
		x->range = cl->summon.range;
		x->born_round = s->round;
		x->summon_seq = ++s->summon_seq;
		w = evb("summoned");
		refd_mpw_kint(w, "fig", s->nfig);
		refd_mpw_kstr(w, "name", cl->summon.name);
		refd_mpw_karray(w, "at");
		refd_mpw_int(w, o->q);
		refd_mpw_int(w, o->r);
		refd_mpw_end(w);
		ev(g, REFD_SEAT_PUBLIC, w);
		s->nfig++;
		ability_done(g, seat, 1);
		break;
	}
	case K_RECOVER:
		c->lost &= ~(1 << o->a);
		c->hand |= 1 << o->a;
		g->dirty |= DIRTY_HAND(seat);
		w = evb("recover");
		refd_mpw_kint(w, "seat", seat);
		refd_mpw_kstr(w, "card", cl->card[o->a].id);
		ev(g, REFD_SEAT_PUBLIC, w);
		ability_done(g, seat, 1);
		break;
	case K_PERFORM:
		a = cur_ability(g, seat, &tmp);
		switch (a->kind) {
		case A_SHIELD:
			c->shield_rb += a->value;
			break;
		case A_RETALIATE:
			c->ret_rb += a->value;
			break;
		case A_LOOT:
			char_loot(g, seat, a->value);
			break;
		case A_SELFCOND:
			add_conds(g, f, a->conds);
			break;
		case A_REFRESH:
			item_refresh(g, seat, 0);
			break;
		default:
			break;
		}
		w = evb("ability");
		refd_mpw_kint(w, "seat", seat);
		refd_mpw_kint(w, "kind", a->kind);
		ev(g, REFD_SEAT_PUBLIC, w);
		ability_done(g, seat, 1);
		break;
	case K_SKIP:
		ability_done(g, seat, 0);
		break;
	case K_ITEM:
		if (s->ndq > 0 && s->dq[0].ci == seat) {
			/* the trap's damage is negated: the prompt is answered */
			item_use(g, seat, o->a);
			memmove(&s->dq[0], &s->dq[1], (size_t)(s->ndq - 1) *
			    sizeof(s->dq[0]));
			s->ndq--;
			break;
		}
		item_use(g, seat, o->a);
		break;
	case K_ORDER:
		tie_apply(g, o->tg);
		break;
	case K_GOAL:
		goals_choose(g, seat, o->a);
		break;
	case K_REACT:
		s->atk.react = 0;
		if (o->a) {
			item_use(g, seat, item_reaction(g, seat));
			s->atk.extra_shield = 2;
		}
		break;
	case K_START:
		c->placed = 1;
		fig_put(g, f, o->q, o->r, "start_hex", "seat", seat);
		break;
	case K_EVDISC:
		c->hand &= ~(1 << o->a);
		c->disc |= 1 << o->a;
		c->ev_disc--;
		g->dirty |= DIRTY_HAND(seat);
		w = evb("event_discard");
		refd_mpw_kint(w, "seat", seat);
		refd_mpw_kstr(w, "card", cl->card[o->a].id);
		refd_mpw_kint(w, "owed", c->ev_disc);
		ev(g, REFD_SEAT_PUBLIC, w);
		break;
	case K_DROP:
		c->hand &= ~(1 << o->a);
		g->dirty |= DIRTY_HAND(seat);
		w = evb("hand_drop");
		refd_mpw_kstr(w, "card", cl->card[o->a].id);
		ev(g, seat, w);
		break;
	case K_AITIE:
		s->ai_active = 0;
		s->ai_n = 0;
		if (s->ai_kind == 1)
			monster_heal_on(g, s->ai_fig, o->a, s->ai_val);
		else if (s->ai_kind == 2)
			monster_summon_at(g, s->ai_val, hex_at(s, o->q, o->r));
		else if (s->ai_kind == 3)
			monster_go_path(g, s->ai_fig, s->ai_val, o->a);
		else if (s->ai_kind == 4)
			monster_infuse_pick(g, s->ai_fig, o->a, s->ai_val);
		else if (s->ai_kind == 5)
			s->ai_pick = o->a + 1;	/* the attack goes on */
		else if (s->ai_kind == 6)
			land_on(g, s->ai_fig, hex_at(s, o->q, o->r));
		else
			monster_go(g, s->ai_fig, hex_at(s, o->q, o->r));
		break;
	case K_CREATE:
	case K_LEVELUP:
	case K_BUY:
	case K_SELL:
	case K_DONATE:
	case K_TRAVEL:
	case K_ENDCAMP:
	case K_EVDRAW:
	case K_EVCHOOSE:
	case K_EVGOLD:
	case K_EVITEM:
	case K_TOWNDONE:
	case K_ENHANCE:
	case K_PQ:
	case K_RETIRE:
	case K_PERK:
	case K_CARD:
		camp_perform(g, seat, o);
		break;
	case K_SRACCEPT:
		if (o->a == 0) {
			short_rest_skip(g);
		} else {
			short_rest_pick(g, seat, -1);
			s->sr_stage = 1;
		}
		break;
	case K_SRKEEP:
		if (o->a == 1) {
			/* §4.6 step 5, §11.1: the 1 damage goes through the
			 * damage choice; the rest resumes once it is made
			 * (dg_advance) */
			s->sr_stage = 2;
			damage(g, c->fig, 1, -1, "short rest", 0);
			break;
		}
		short_rest_finish(g, seat);
		break;
	default:
		return -1;
	}
	return 0;
}
