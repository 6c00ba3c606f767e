/*
 * campaign.c - the campaign layer (spec §2): town visits (create, level
 * up, shop, donate), travel to a scenario in campaign or casual mode, and
 * the rewards carried back to town.  One match is one campaign.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "dg.h"
#include "rules.h"

static const int xp_min[10] = { 0, 0, 45, 95, 150, 210, 275, 345, 420,
	500 };
static const int prosp_min[10] = { 0, 0, 4, 9, 15, 22, 30, 39, 50, 64 };

#define TOWN_ACTIONS 40

/* Enhancement stickers (§2.9) and their base costs [P]. */
const char *const sticker_name[NSTICKER] = { "attack+1", "move+1",
	"heal+1", "range+1", "shield+1", "poison", "wound", "jump" };
static const int sticker_cost[NSTICKER] = { 50, 30, 30, 30, 100, 75, 75,
	50 };
static const int sticker_kind[NSTICKER] = { A_ATTACK, A_MOVE, A_HEAL,
	A_ATTACK, A_SHIELD, A_ATTACK, A_ATTACK, A_MOVE };

/* Sticker st may go on ability a at all (§2.9): the ability it
 * changes, range only on a ranged attack, jump on a move without it. */
int
sticker_on(const struct ability *a, int st)
{
	if (a->kind != sticker_kind[st])
		return 0;
	if (st == 3 && a->range == 0)
		return 0;
	if (st == 7 && a->jump)
		return 0;
	return 1;
}

/* The sticker in slot i of a half's stickers, or -1 for a free slot. */
int
slot_sticker(int32_t enh, int slot)
{
	return (int)((uint32_t)enh >> (4 * slot) & 15) - 1;
}

/* Apply the stickers enh of half h to its ability ab_i, copied in *a. */
void
enhance_apply(const struct half *h, int32_t enh, struct ability *a,
    int ab_i)
{
	int i, st;

	for (i = 0; i < h->nslot; i++) {
		if ((st = slot_sticker(enh, i)) < 0 || h->slot_ab[i] != ab_i)
			continue;
		switch (st) {
		case 0: case 1: case 2: case 4:
			a->value++;
			break;
		case 3:
			a->range++;
			break;
		case 5:
			a->conds |= C_POISON;
			break;
		case 6:
			a->conds |= C_WOUND;
			break;
		case 7:
			a->jump = 1;
			break;
		}
	}
}

/* Cost of sticker st in slot i of card k half h of class cls (§2.2):
 * doubled on a multi-target ability, +25 per card level above 1, +75
 * per sticker already on the half. */
static int
enhance_cost(const struct game *g, int cls, int k, int h, int i, int st)
{
	const struct ccard *cd = &g->c->cls[cls].card[k];
	const struct ability *a = &cd->h[h].ab[cd->h[h].slot_ab[i]];
	int cost = sticker_cost[st], lv = cd->level < 1 ? 1 : cd->level, j;

	if (a->target > 1 || a->naoe > 0)
		cost *= 2;
	cost += 25 * (lv - 1);
	for (j = 0; j < MAXSLOT; j++)
		cost += 75 * (slot_sticker(g->s.enh[cls][k][h], j) >= 0);
	return cost;
}

static int
enhanced_cards(const struct game *g, int cls)
{
	int k, n = 0;

	for (k = 0; k < MAXCARD; k++)
		n += (g->s.enh[cls][k][0] | g->s.enh[cls][k][1]) != 0;
	return n;
}

static int
ach_held(const struct game *g, const char *name)
{
	int k;

	for (k = 0; k < g->c->nach; k++)
		if (strcmp(g->c->ach[k].name, name) == 0)
			return ((g->s.gach | g->s.pach) >> k & 1) != 0;
	return 0;
}

int
prosperity_level(int marks)
{
	int L = 1;

	while (L < 9 && marks >= prosp_min[L + 1])
		L++;
	return L;
}

/* Shop price: printed cost plus the reputation modifier (§2.2). */
int
price_of(const struct game *g, int k)
{
	int rep = g->s.reputation, d = 0, p;

	if (rep >= 3)
		d = -((rep + 1) / 4 > 5 ? 5 : (rep + 1) / 4);
	else if (rep <= -3)
		d = (-rep + 1) / 4 > 5 ? 5 : (-rep + 1) / 4;
	p = g->c->item[k].cost + d;
	return p < 0 ? 0 : p;
}

/* Items of the prosperity level (and those skipped) join the supply. */
static void
supply_update(struct game *g)
{
	struct dg *s = &g->s;
	int L = prosperity_level(s->prosperity), k;

	for (k = 0; k < g->c->nitem; k++)
		if (!(s->sup_added >> k & 1) && g->c->item[k].prosperity >= 1 &&
		    g->c->item[k].prosperity <= L) {
			s->sup_added |= 1 << k;
			s->supply[k] += g->c->item[k].copies;
		}
}

static void
gain_ach(struct game *g, int a)
{
	struct dg *s = &g->s;
	const struct achdef *d = &g->c->ach[a];
	refd_mpw *w;
	int k;

	if (d->global) {
		for (k = 0; k < g->c->nach; k++)
			if (k != a && (s->gach >> k & 1) &&
			    strcmp(g->c->ach[k].type, d->type) == 0)
				s->gach &= ~(1 << k);
		s->gach |= 1 << a;
	} else {
		s->pach |= 1 << a;
	}
	w = evb("achievement");
	refd_mpw_kstr(w, "name", d->name);
	refd_mpw_kbool(w, "global", d->global);
	ev(g, REFD_SEAT_PUBLIC, w);
}

/* Perks owed: one per level gained, per retired predecessor and per
 * three checkmarks (§2.5-2.7). */
static int
perks_owed(const struct cchar *c)
{
	int checks = c->checks > 18 ? 18 : c->checks;

	return c->made ? c->level - 1 + c->retired + checks / 3 -
	    c->perks_taken : 0;
}

/* Ability cards owed: one per level gained (§2.6 a). */
static int
cards_owed(const struct game *g, const struct cchar *c)
{
	const struct cclass *cl = &g->c->cls[c->cls];

	return c->made ? c->level - 1 - c->cards_forfeit -
	    __builtin_popcount((unsigned)(c->pool & ~base_pool(cl))) : 0;
}

static int
mandatory_levelup(const struct game *g, const struct cchar *c)
{
	return c->made && ((c->level < 9 && c->xp >= xp_min[c->level + 1]) ||
	    perks_owed(c) > 0 || cards_owed(g, c) > 0);
}

int
camp_owes_levelup(const struct game *g, int seat)
{
	return mandatory_levelup(g, &g->s.cc[seat]);
}

static int
quest_done(const struct game *g, const struct cchar *c)
{
	const struct pqdef *q;

	if (!c->made || c->pq < 0)
		return 0;
	q = &g->c->pq[c->pq];
	return q->gold ? c->gold >= q->target : c->pq_count >= q->target;
}

static int
can_travel(const struct game *g, int m, int campaign)
{
	const struct dg *s = &g->s;
	const struct mapdef *md = &g->c->map[m];

	if (!(s->unlocked >> m & 1) || s->scen_count >= s->max_scen)
		return 0;
	if (!campaign)
		return 1;
	return !(s->completed >> m & 1) &&
	    (md->requires & (s->gach | s->pach)) == md->requires;
}

/* The stickers c may put on the free slots of card k half h (§2.9). */
static void
enhance_options(const struct game *g, const struct cchar *c, int k, int h,
    int cap, struct opt *out, int *n, int max)
{
	const struct half *hf = &g->c->cls[c->cls].card[k].h[h];
	int32_t on = g->s.enh[c->cls][k][0] | g->s.enh[c->cls][k][1];
	int i, st;

	if (!on && !cap)
		return;	/* no more enhanced cards than the prosperity level */
	for (i = 0; i < hf->nslot; i++) {
		if (slot_sticker(g->s.enh[c->cls][k][h], i) >= 0)
			continue;
		for (st = 0; st < NSTICKER; st++) {
			if (!(hf->slot_fit[i] >> st & 1) ||
			    c->gold < enhance_cost(g, c->cls, k, h, i, st))
				continue;
			opt_add(out, n, max, K_ENHANCE, k, h, st);
			out[*n - 1].q = i;
		}
	}
}

static int town_seat_options(const struct game *g, int seat,
    struct opt *out, int max, int L, int *allp);

int
camp_options(const struct game *g, int seat, struct opt *out, int max)
{
	const struct dg *s = &g->s;
	const struct cchar *c = &s->cc[seat];
	int n, L = prosperity_level(s->prosperity), all = 1;

	/* town activities go round the table, one seat at a time, so that
	 * every decision there is public when taken (R002-13) */
	if (seat != s->town_seat)
		return 0;
	n = town_seat_options(g, seat, out, max, L, &all);
	if (s->ev_cur < 0 && c->made && c->pq_offer[0] < 0 &&
	    !mandatory_levelup(g, c))
		opt_add(out, &n, max, K_TOWNDONE, 0, 0, 0);
	return n;
}

/* The town options of seat (it is its turn), *all: everybody is ready to
 * travel. */
static int
town_seat_options(const struct game *g, int seat, struct opt *out, int max,
    int L, int *allp)
{
	const struct dg *s = &g->s;
	const struct cchar *c = &s->cc[seat];
	int n = 0, k, i, all = 1;

	*allp = 0;
	for (i = 0; i < s->nch; i++)
		if (!s->cc[i].made || mandatory_levelup(g, &s->cc[i]) ||
		    s->cc[i].pq_offer[0] >= 0 || quest_done(g, &s->cc[i]))
			all = 0;	/* a finished quest retires first */
	if (c->made && c->pq_offer[0] >= 0) {
		/* keep one of the two personal quests drawn (§2.5 step 5) */
		for (k = 0; k < 2; k++)
			if (c->pq_offer[k] >= 0)
				opt_add(out, &n, max, K_PQ, k, 0, 0);
		return n;
	}
	if (!c->made) {
		for (k = 0; k < g->c->nclass; k++) {
			int used = 0;

			for (i = 0; i < s->nch; i++)
				used |= s->cc[i].made && s->cc[i].cls == k;
			if (used)
				continue;
			for (i = 1; i <= L; i++)
				opt_add(out, &n, max, K_CREATE, k, i, 0);
		}
	} else if (cards_owed(g, c) > 0) {
		const struct cclass *cl = &g->c->cls[c->cls];

		for (k = 0; k < cl->ncards; k++)
			if (!(c->pool >> k & 1) && cl->card[k].level >= 2 &&
			    cl->card[k].level <= c->level)
				opt_add(out, &n, max, K_CARD, k, 0, 0);
		if (n == 0)
			opt_add(out, &n, max, K_LEVELUP, 0, 0, 0);
	} else if (perks_owed(c) > 0) {
		const struct cclass *cl = &g->c->cls[c->cls];

		for (k = 0; k < cl->nperk; k++)
			if (c->perk[k] < cl->perk[k].times)
				opt_add(out, &n, max, K_PERK, k, 0, 0);
		if (n == 0)
			opt_add(out, &n, max, K_LEVELUP, 0, 0, 0);
	} else if (mandatory_levelup(g, c)) {
		opt_add(out, &n, max, K_LEVELUP, 0, 0, 0);
	} else if (s->actions < TOWN_ACTIONS) {
		if (c->level < L)
			opt_add(out, &n, max, K_LEVELUP, 0, 0, 0);
		for (k = 0; k < g->c->nitem; k++) {
			if (c->owned >> k & 1)
				opt_add(out, &n, max, K_SELL, k, 0, 0);
			else if (s->supply[k] > 0 && c->gold >= price_of(g, k))
				opt_add(out, &n, max, K_BUY, k, 0, 0);
		}
		if (!c->donated && c->gold >= 10)
			opt_add(out, &n, max, K_DONATE, 0, 0, 0);
		if (quest_done(g, c))
			opt_add(out, &n, max, K_RETIRE, 0, 0, 0);
		if (ach_held(g, "The Power of Enhancement")) {
			const struct cclass *cl = &g->c->cls[c->cls];
			int h, cap = enhanced_cards(g, c->cls) < L;

			for (k = 0; k < cl->ncards; k++)
				for (h = 0; h < 2; h++)
					enhance_options(g, c, k, h, cap, out,
					    &n, max);
		}
	}
	if (seat == 0 && s->ev_cur >= 0 && s->ev_item > 0) {
		n = 0;
		for (k = 0; k < s->nch; k++)
			if (!(s->cc[k].owned >> (s->ev_item - 1) & 1))
				opt_add(out, &n, max, K_EVITEM, k, 0, 0);
		return n;
	}
	if (seat == 0 && s->ev_cur >= 0 && s->ev_split > 0) {
		n = 0;
		for (k = 0; k <= s->ev_split; k++)
			opt_add(out, &n, max, K_EVGOLD, s->ev_k, k, 0);
		return n;
	}
	if (seat == 0 && s->ev_cur >= 0) {
		n = 0;
		opt_add(out, &n, max, K_EVCHOOSE, 0, 0, 0);
		opt_add(out, &n, max, K_EVCHOOSE, 1, 0, 0);
		return n;
	}
	if (seat == 0 && !s->ev_done && s->last_mode && s->nevdeck > 0 &&
	    s->actions < TOWN_ACTIONS)
		opt_add(out, &n, max, K_EVDRAW, 0, 0, 0);
	if (s->ev_cur >= 0)
		return n;
	*allp = all;
	if (seat == 0) {
		if (all)
			for (k = 0; k < g->c->nmap; k++)
				for (i = 1; i >= 0; i--)
					if (can_travel(g, k, i))
						opt_add(out, &n, max, K_TRAVEL, k, i, 0);
		opt_add(out, &n, max, K_ENDCAMP, 0, 0, 0);
	}
	return n;
}

static void
town_event(struct game *g, const char *what, int seat, const char *item,
    int gold)
{
	refd_mpw *w = evb(what);

	refd_mpw_kint(w, "seat", seat);
	if (item != NULL)
		refd_mpw_kstr(w, "item", item);
	refd_mpw_kint(w, "gold", gold);
	ev(g, REFD_SEAT_PUBLIC, w);
}

static int
ignores_items(const struct cclass *cl, const struct cchar *cc)
{
	int k;

	for (k = 0; k < cl->nperk; k++)
		if (cl->perk[k].ignore_items && cc->perk[k] > 0)
			return 1;
	return 0;
}

/* Set up scenario m for the party (§3) and start round 1. */
static void
go_travel(struct game *g, int m, int campaign)
{
	struct dg *s = &g->s;
	struct dg keep = *s;
	const struct mapdef *md = &g->c->map[m];
	static const int gold[8] = { 2, 2, 3, 3, 4, 4, 5, 6 };
	int i, k, sum = 0;
	refd_mpw *w;

	memset(s, 0, sizeof(*s));
	s->version = keep.version;
	s->nch = keep.nch;
	s->los = keep.los;
	s->max_rounds = keep.max_rounds;
	memcpy(&s->camp, &keep.camp, sizeof(*s) -
	    offsetof(struct dg, camp));
	s->camp_mode = campaign;
	s->bg_on = g->c->nbg >= 2;
	s->mapi = m;
	for (i = 0; i < s->nch; i++)
		sum += s->cc[i].level;
	/* recommended level: half the average level, rounded up (§3) */
	s->level = (sum + 2 * s->nch - 1) / (2 * s->nch) + s->difficulty;
	if (s->level > 7)
		s->level = 7;
	if (s->level < 0)
		s->level = 0;
	s->mlevel = s->solo && s->level < 7 ? s->level + 1 : s->level;
	s->trapdmg = 2 + s->level + (s->solo ? 1 : 0);
	s->hazdmg = s->trapdmg / 2;
	s->gold_per = gold[s->level];
	s->bonus_xp = 4 + 2 * s->level;
	s->bless_supply = s->pcurse_supply = s->mcurse_supply = 10;
	s->round = 1;
	for (i = 0; i < MAXTYPES; i++)
		s->ad_cur[i] = -1;
	load_map(s, md);
	/* a numbered treasure is looted once per campaign (§14.8) */
	if (s->looted >> m & 1)
		for (i = 0; i < s->nhex; i++)
			if (s->hex[i].ov == OV_TREASURE)
				s->hex[i].ov = OV_NONE;
	for (i = 0; i < s->nch; i++) {
		struct chr *ch = &s->ch[i];
		struct cchar *cc = &s->cc[i];
		const struct cclass *cl = &g->c->cls[cc->cls];
		struct fig *x = &s->fig[s->nfig];
		int cnt[6] = { 0 };

		ch->cls = cc->cls;
		ch->level = cc->level;
		ch->cur_card = -1;
		ch->fig = s->nfig++;
		x->alive = 1;
		x->kind = F_CHAR;
		x->type = cc->cls;
		x->owner = i;
		x->maxhp = x->hp = cl->hp[cc->level - 1];
		ch->min_hp = x->hp;
		x->q = md->start[i % (md->nstart > 0 ? md->nstart : 1)][0];
		x->r = md->start[i % (md->nstart > 0 ? md->nstart : 1)][1];
		/* the pool; more than the hand size: the player drops cards
		 * before round 1 (§3 step 15) */
		ch->hand = cc->pool & ((1 << cl->ncards) - 1);
		/* event penalties: the player discards once the hand is
		 * chosen (§2.12, §3 step 15) */
		ch->ev_disc = cc->discard_next;
		cc->discard_next = 0;
		x->hp -= cc->damage_next;
		if (x->hp < 1)
			x->hp = 1;
		cc->damage_next = 0;
		ch->min_hp = x->hp;
		deck_build(&ch->mod, NULL, 0);
		/* perks edit the deck definition (§8.4) */
		for (k = 0; k < cl->nperk; k++) {
			const struct perkdef *pd = &cl->perk[k];
			int t, j, q;

			for (t = 0; t < cc->perk[k]; t++) {
				for (j = 0; j < pd->nrem; j++)
					for (q = 0; q < ch->mod.n; q++)
						if (ch->mod.c[q] == pd->rem[j]) {
							ch->mod.c[q] =
							    ch->mod.c[--ch->mod.n];
							break;
						}
				for (j = 0; j < pd->nadd && ch->mod.n < MAXMOD;
				    j++)
					ch->mod.c[ch->mod.n++] = pd->add[j];
			}
		}
		/* equip what fits (§5.5), in item order */
		for (k = 0; k < g->c->nitem && ch->nitem < MAXOWN; k++) {
			const struct itemdef *it = &g->c->item[k];
			int j;

			if (!(cc->owned >> k & 1))
				continue;
			cnt[it->slot]++;
			if (!equip_ok(cnt, cc->level)) {
				cnt[it->slot]--;
				continue;
			}
			ch->item[ch->nitem++] = k;
			for (j = 0; j < it->minus && ch->mod.n < MAXMOD &&
			    !ignores_items(cl, cc); j++)
				ch->mod.c[ch->mod.n++] = M_M1;
		}
		for (k = 0; k < cc->curse_next && s->pcurse_supply > 0 &&
		    ch->mod.n < MAXMOD; k++) {
			ch->mod.c[ch->mod.n++] = M_PCURSE;
			s->pcurse_supply--;
		}
		cc->curse_next = 0;
		if (cc->bless_next) {
			for (k = 0; k < 2 && s->bless_supply > 0; k++) {
				ch->mod.c[ch->mod.n++] = M_BLESS;
				s->bless_supply--;
			}
			cc->bless_next = 0;
		}
	}
	for (k = 0; k < g->c->ndeck; k++) {
		s->ad_n[k] = g->c->deck[k].n;
		for (i = 0; i < s->ad_n[k]; i++)
			s->ad_c[k][i] = s->ad_n[k] - 1 - i;
	}
	deck_build(&s->mdeck, NULL, 0);
	w = evb("travel");
	refd_mpw_kstr(w, "scenario", md->name);
	refd_mpw_kstr(w, "mode", campaign ? "campaign" : "casual");
	refd_mpw_kint(w, "level", s->level);
	ev(g, REFD_SEAT_PUBLIC, w);
	scenario_begin(g);
	g->dirty |= 0x3ff;
}

static void go_travel(struct game *g, int m, int campaign);

static int
party_has(const struct game *g, int cls)
{
	int i;

	for (i = 0; i < g->s.nch; i++)
		if (g->s.cc[i].made && g->s.cc[i].cls == cls)
			return 1;
	return 0;
}

static void
design(struct game *g, int k)
{
	struct dg *s = &g->s;

	if (k < 0 || (s->sup_added >> k & 1))
		return;
	s->sup_added |= 1 << k;
	s->supply[k] += g->c->item[k].copies;
}

/* Ask the party (seat 0 speaks for it) how much of the collective gold
 * left goes to seat ev_k; the last seat takes the rest (§2.12). */
static int
event_split_ask(struct game *g)
{
	struct dg *s = &g->s;
	refd_mpw *w;

	if (s->ev_split > 0 && s->ev_k == s->nch - 1) {
		s->cc[s->ev_k].gold += s->ev_split;
		w = evb("event_gold");
		refd_mpw_kint(w, "seat", s->ev_k);
		refd_mpw_kint(w, "gold", s->ev_split);
		ev(g, REFD_SEAT_PUBLIC, w);
		s->ev_split = 0;
	}
	if (s->ev_split <= 0)
		return 0;
	w = evb("event_share");
	refd_mpw_kint(w, "seat", s->ev_k);
	refd_mpw_kint(w, "gold_left", s->ev_split);
	refd_mpw_kint(w, "default", s->ev_split / (s->nch - s->ev_k) +
	    (s->ev_split % (s->nch - s->ev_k) > 0));
	ev(g, REFD_SEAT_PUBLIC, w);
	return 1;
}

static void event_resolve(struct game *g);

/* Seat 0 gives n gold of the collective reward to seat ev_k. */
static void
event_share(struct game *g, int n)
{
	struct dg *s = &g->s;
	refd_mpw *w;

	s->cc[s->ev_k].gold += n;
	s->ev_split -= n;
	w = evb("event_gold");
	refd_mpw_kint(w, "seat", s->ev_k);
	refd_mpw_kint(w, "gold", n);
	ev(g, REFD_SEAT_PUBLIC, w);
	s->ev_k++;
	if (!event_split_ask(g))
		event_resolve(g);
}

/* Seat 0 gives the event's item to seat k; the outcome's collective gold
 * follows, then the next outcomes. */
static void
event_give(struct game *g, int k)
{
	struct dg *s = &g->s;
	int it = s->ev_item - 1;
	refd_mpw *w;

	s->cc[k].owned |= 1 << it;
	s->ev_item = 0;
	w = evb("event_item");
	refd_mpw_kint(w, "seat", k);
	refd_mpw_kstr(w, "item", g->c->item[it].id);
	ev(g, REFD_SEAT_PUBLIC, w);
	if (s->ev_gold_after > 0) {
		s->ev_split = s->ev_gold_after;
		s->ev_gold_after = 0;
		s->ev_k = 0;
		if (event_split_ask(g))
			return;
	}
	event_resolve(g);
}

/* Resolve option h of the drawn city event, outcome by outcome (§2.12). */
static void
event_choose(struct game *g, int h)
{
	struct dg *s = &g->s;
	const struct evdef *d = &g->c->ev[s->ev_cur];
	refd_mpw *w;

	w = evb("event_choice");
	refd_mpw_kstr(w, "event", d->id);
	refd_mpw_kstr(w, "option", h ? "B" : "A");
	ev(g, REFD_SEAT_PUBLIC, w);
	s->ev_opt = h;
	s->ev_next = 0;
	s->ev_any = 0;
	event_resolve(g);
}

/* The outcomes of option ev_opt from ev_next on; a collective reward
 * stops it until the party has split it. */
static void
event_resolve(struct game *g)
{
	struct dg *s = &g->s;
	const struct evdef *d = &g->c->ev[s->ev_cur];
	int j, i, any = s->ev_any, h = s->ev_opt;
	refd_mpw *w;

	for (j = s->ev_next; j < d->nout[h]; j++) {
		const struct outcome *u = &d->out[h][j];
		int holds = (u->cls < 0 || party_has(g, u->cls)) &&
		    s->reputation >= u->rep_min && s->reputation <= u->rep_max &&
		    (!u->otherwise || !any);

		w = evb("event_outcome");
		refd_mpw_kint(w, "index", j);
		refd_mpw_kbool(w, "applies", holds);
		ev(g, REFD_SEAT_PUBLIC, w);
		if (!holds)
			continue;
		any = 1;
		for (i = 0; i < s->nch; i++) {
			struct cchar *c = &s->cc[i];

			c->gold += u->gold_each;
			if (c->gold < 0)
				c->gold = 0;
			c->curse_next += u->curse;
		}
		s->reputation += u->rep;
		if (s->reputation > 20)
			s->reputation = 20;
		if (s->reputation < -20)
			s->reputation = -20;
		if (u->prosp) {
			s->prosperity += u->prosp;
			supply_update(g);
		}
		design(g, u->design);
		for (i = 0; i < s->nch; i++) {
			s->cc[i].damage_next += u->damage_next;
			s->cc[i].discard_next += u->discard_next;
		}
		if (u->random_design && s->nrdeck > 0) {
			design(g, s->rdeck[0]);
			memmove(&s->rdeck[0], &s->rdeck[1],
			    (size_t)(s->nrdeck - 1) * sizeof(s->rdeck[0]));
			s->nrdeck--;
		}
		if (u->random_side) {
			w = evb("side_scenario");
			refd_mpw_kstr(w, "unlocked", "none left in the content");
			ev(g, REFD_SEAT_PUBLIC, w);
		}
		if (u->item >= 0) {
			int n = 0, first = -1;

			for (i = 0; i < s->nch; i++)
				if (!(s->cc[i].owned >> u->item & 1)) {
					n++;
					if (first < 0)
						first = i;
				}
			if (n >= 2) {
				/* one member of the party's choice (§2.12) */
				s->ev_item = u->item + 1;
				s->ev_gold_after = u->gold_coll;
				s->ev_next = j + 1;
				s->ev_any = any;
				w = evb("event_item_offer");
				refd_mpw_kstr(w, "item", g->c->item[u->item].id);
				ev(g, REFD_SEAT_PUBLIC, w);
				return;
			}
			if (first >= 0) {
				s->cc[first].owned |= 1 << u->item;
			} else {
				s->cc[0].gold += g->c->item[u->item].cost / 2;
				s->supply[u->item]++;
			}
		}
		if (u->gold_coll > 0) {
			/* split among the party as it likes, then go on */
			s->ev_split = u->gold_coll;
			s->ev_k = 0;
			s->ev_next = j + 1;
			s->ev_any = any;
			if (event_split_ask(g))
				return;
		}
	}
	if (d->ret[h] && d->road)
		s->roaddeck[s->nroad++] = s->ev_cur;
	else if (d->ret[h])
		s->evdeck[s->nevdeck++] = s->ev_cur;
	s->ev_cur = -1;
	if (s->road_map > 0) {
		int m = s->road_map - 1;

		s->road_map = 0;
		go_travel(g, m, s->road_mode);
	}
}

/* An event card that joins the decks only on a retirement (§2.11). */
static int
ev_later(const struct evdef *d)
{
	return d->added_by_class >= 0 || d->added_by_content[0] != '\0';
}

/*
 * §2.11 step 2: the event cards of the retiring class cls and of the
 * content just opened (or NULL) join the city and road decks, which are
 * then shuffled.
 */
static void
events_join(struct game *g, int cls, const char *opened)
{
	struct dg *s = &g->s;
	int k, city = 0, road = 0;
	refd_mpw *w;

	w = evb("events_added");
	refd_mpw_karray(w, "events");
	for (k = 0; k < g->c->nev && k < 32; k++) {
		const struct evdef *d = &g->c->ev[k];

		if ((s->ev_added >> k & 1) || !((d->added_by_class >= 0 &&
		    d->added_by_class == cls) || (opened != NULL &&
		    d->added_by_content[0] != '\0' &&
		    strcmp(d->added_by_content, opened) == 0)))
			continue;
		s->ev_added |= 1 << k;
		if (d->road && s->nroad < MAXEV) {
			s->roaddeck[s->nroad++] = k;
			road = 1;
		} else if (!d->road && s->nevdeck < MAXEV) {
			s->evdeck[s->nevdeck++] = k;
			city = 1;
		}
		refd_mpw_str(w, d->id);
	}
	refd_mpw_end(w);
	if (!city && !road) {
		refd_mpw_destroy(w);
		return;
	}
	ev(g, REFD_SEAT_PUBLIC, w);
	if ((city && s->nevdeck > 1 && H->shuffle(g->ctx, s->evdeck,
	    (size_t)s->nevdeck, sizeof(s->evdeck[0]), "city events") !=
	    REFD_OK) || (road && s->nroad > 1 && H->shuffle(g->ctx,
	    s->roaddeck, (size_t)s->nroad, sizeof(s->roaddeck[0]),
	    "road events") != REFD_OK)) {
		if (g->err == 0)
			g->err = REFD_ESCRIPT;
	}
	g->dirty |= DIRTY_AD;
}

void
camp_perform(struct game *g, int seat, const struct opt *o)
{
	struct dg *s = &g->s;
	struct cchar *c = &s->cc[seat];
	refd_mpw *w;

	s->actions++;
	switch (o->kind) {
	case K_CREATE:
		c->made = 1;
		c->cls = o->a;
		c->level = o->b;
		c->gold = 15 * (o->b + 1);
		c->xp = xp_min[o->b];
		c->pool = base_pool(&g->c->cls[o->a]);
		w = evb("character_created");
		refd_mpw_kint(w, "seat", seat);
		refd_mpw_kstr(w, "class", g->c->cls[o->a].name);
		refd_mpw_kint(w, "level", c->level);
		refd_mpw_kint(w, "gold", c->gold);
		refd_mpw_kint(w, "xp", c->xp);
		ev(g, REFD_SEAT_PUBLIC, w);
		/* draw two personal quests (one if only one is left) */
		c->pq = c->pq_offer[0] = c->pq_offer[1] = -1;
		c->pq_count = 0;
		if (s->npqdeck == 1)
			c->pq = s->pqdeck[--s->npqdeck];
		else if (s->npqdeck >= 2) {
			c->pq_offer[0] = s->pqdeck[--s->npqdeck];
			c->pq_offer[1] = s->pqdeck[--s->npqdeck];
		}
		g->dirty |= DIRTY_PQ;
		if (c->pq_offer[0] >= 0) {
			w = evb("personal_quests");
			refd_mpw_karray(w, "drawn");
			refd_mpw_str(w, g->c->pq[c->pq_offer[0]].id);
			refd_mpw_str(w, g->c->pq[c->pq_offer[1]].id);
			refd_mpw_end(w);
			ev(g, seat, w);
		}
		break;
	case K_CARD:
		c->pool |= 1 << o->a;
		w = evb("card_gained");
		refd_mpw_kint(w, "seat", seat);
		refd_mpw_kstr(w, "card", g->c->cls[c->cls].card[o->a].id);
		ev(g, REFD_SEAT_PUBLIC, w);
		break;
	case K_PERK:
		c->perk[o->a]++;
		c->perks_taken++;
		w = evb("perk");
		refd_mpw_kint(w, "seat", seat);
		refd_mpw_kstr(w, "perk", g->c->cls[c->cls].perk[o->a].id);
		ev(g, REFD_SEAT_PUBLIC, w);
		break;
	case K_LEVELUP:
		if (cards_owed(g, c) > 0) {
			/* no card left to gain: the level's card is forfeit */
			c->cards_forfeit++;
			break;
		}
		if (perks_owed(c) > 0) {
			/* every perk is taken: the owed one is forfeit */
			c->perks_taken++;
			break;
		}
		c->level++;
		if (c->xp < xp_min[c->level])
			c->xp = xp_min[c->level];
		w = evb("level_up");
		refd_mpw_kint(w, "seat", seat);
		refd_mpw_kint(w, "level", c->level);
		refd_mpw_kint(w, "xp", c->xp);
		refd_mpw_kint(w, "max_hp", g->c->cls[c->cls].hp[c->level - 1]);
		ev(g, REFD_SEAT_PUBLIC, w);
		break;
	case K_BUY: {
		int p = price_of(g, o->a);

		c->gold -= p;
		c->owned |= 1 << o->a;
		s->supply[o->a]--;
		town_event(g, "bought", seat, g->c->item[o->a].id, p);
		break;
	}
	case K_SELL: {
		int p = g->c->item[o->a].cost / 2;

		c->gold += p;
		c->owned &= ~(1 << o->a);
		s->supply[o->a]++;
		town_event(g, "sold", seat, g->c->item[o->a].id, p);
		break;
	}
	case K_ENHANCE: {
		int cost = enhance_cost(g, c->cls, o->a, o->b, o->q, o->c);

		c->gold -= cost;
		s->enh[c->cls][o->a][o->b] |= (o->c + 1) << (4 * o->q);
		w = evb("enhanced");
		refd_mpw_kint(w, "seat", seat);
		refd_mpw_kstr(w, "card", g->c->cls[c->cls].card[o->a].id);
		refd_mpw_kstr(w, "half", o->b ? "bottom" : "top");
		refd_mpw_kint(w, "slot", o->q);
		refd_mpw_kstr(w, "sticker", sticker_name[o->c]);
		refd_mpw_kint(w, "gold", cost);
		ev(g, REFD_SEAT_PUBLIC, w);
		break;
	}
	case K_PQ: {
		int other = c->pq_offer[1 - o->a];

		c->pq = c->pq_offer[o->a];
		c->pq_offer[0] = c->pq_offer[1] = -1;
		/* the other one is shuffled back into the deck */
		s->pqdeck[s->npqdeck++] = other;
		if (s->npqdeck > 1 && H->shuffle(g->ctx, s->pqdeck,
		    (size_t)s->npqdeck, sizeof(s->pqdeck[0]),
		    "personal quests") != REFD_OK && g->err == 0)
			g->err = REFD_ESCRIPT;
		g->dirty |= DIRTY_PQ;
		w = evb("personal_quest");
		refd_mpw_kstr(w, "quest", g->c->pq[c->pq].id);
		refd_mpw_kstr(w, "name", g->c->pq[c->pq].name);
		ev(g, seat, w);
		w = evb("personal_quest_chosen");
		refd_mpw_kint(w, "seat", seat);
		ev(g, REFD_SEAT_PUBLIC, w);
		break;
	}
	case K_RETIRE: {
		int k, was_open;

		/* §2.11: prosperity, items back to the supply, gold lost, the
		 * quest leaves the game; a new character may be created */
		s->prosperity++;
		supply_update(g);
		for (k = 0; k < g->c->nitem; k++)
			if (c->owned >> k & 1)
				s->supply[k]++;
		w = evb("retired");
		refd_mpw_kint(w, "seat", seat);
		refd_mpw_kstr(w, "class", g->c->cls[c->cls].name);
		refd_mpw_kstr(w, "quest", g->c->pq[c->pq].id);
		refd_mpw_kbool(w, "first", s->retirements == 0);
		ev(g, REFD_SEAT_PUBLIC, w);
		/* the quest's content opens; if it already is, a random item
		 * design and a random side scenario instead (§2.11 step 1) */
		w = evb("content_opened");
		was_open = s->opened >> c->pq & 1;
		if (!was_open) {
			s->opened |= 1 << c->pq;
			refd_mpw_kstr(w, "opened", g->c->pq[c->pq].opens);
		} else {
			refd_mpw_kstr(w, "opened", "already open");
			if (s->nrdeck > 0) {
				design(g, s->rdeck[0]);
				refd_mpw_kstr(w, "item_design",
				    g->c->item[s->rdeck[0]].id);
				memmove(&s->rdeck[0], &s->rdeck[1],
				    (size_t)(s->nrdeck - 1) * sizeof(s->rdeck[0]));
				s->nrdeck--;
			}
		}
		if (s->retirements == 0)
			refd_mpw_kstr(w, "first_retirement", "town records");
		ev(g, REFD_SEAT_PUBLIC, w);
		events_join(g, c->cls, (s->opened >> c->pq & 1) &&
		    !was_open ? g->c->pq[c->pq].opens : NULL);
		s->retirements++;
		k = c->retired + 1;
		memset(c, 0, sizeof(*c));
		c->retired = k;
		c->pq = c->pq_offer[0] = c->pq_offer[1] = -1;
		g->dirty |= DIRTY_PQ;
		break;
	}
	case K_DONATE:
		c->gold -= 10;
		c->donated = 1;
		c->bless_next = 1;
		s->donations++;
		town_event(g, "donated", seat, NULL, 10);
		if (s->donations == 10) {
			/* 100 gold in all opens sealed content (§2.10) */
			w = evb("sealed_content");
			refd_mpw_kstr(w, "opened", "sanctuary envelope");
			ev(g, REFD_SEAT_PUBLIC, w);
		}
		break;
	case K_TRAVEL:
		s->actions = 0;
		if (o->b && s->nroad > 0) {
			/* a road event on the way to a campaign scenario */
			s->ev_cur = s->roaddeck[0];
			memmove(&s->roaddeck[0], &s->roaddeck[1],
			    (size_t)(s->nroad - 1) * sizeof(s->roaddeck[0]));
			s->nroad--;
			s->road_map = o->a + 1;
			s->road_mode = o->b;
			w = evb("road_event");
			refd_mpw_kstr(w, "event", g->c->ev[s->ev_cur].id);
			ev(g, REFD_SEAT_PUBLIC, w);
			g->dirty |= DIRTY_AD;
			break;
		}
		go_travel(g, o->a, o->b);
		break;
	case K_EVDRAW:
		s->ev_cur = s->evdeck[0];
		memmove(&s->evdeck[0], &s->evdeck[1],
		    (size_t)(s->nevdeck - 1) * sizeof(s->evdeck[0]));
		s->nevdeck--;
		s->ev_done = 1;
		w = evb("city_event");
		refd_mpw_kstr(w, "event", g->c->ev[s->ev_cur].id);
		ev(g, REFD_SEAT_PUBLIC, w);
		g->dirty |= DIRTY_AD;
		break;
	case K_EVCHOOSE:
		event_choose(g, o->a);
		break;
	case K_EVGOLD:
		event_share(g, o->b);
		break;
	case K_EVITEM:
		event_give(g, o->a);
		break;
	case K_TOWNDONE:
		s->actions--;	/* passing is no activity */
		s->town_seat = (s->town_seat + 1) % s->nch;
		w = evb("town_turn");
		refd_mpw_kint(w, "seat", s->town_seat);
		ev(g, REFD_SEAT_PUBLIC, w);
		break;
	case K_ENDCAMP:
		s->over = 1;
		s->phase = PH_OVER;
		w = evb("campaign_end");
		refd_mpw_kint(w, "scenarios", s->scen_count);
		ev(g, REFD_SEAT_PUBLIC, w);
		break;
	default:
		break;
	}
}

/* Back to town after a scenario (§15 steps 3-8). */
void
camp_return(struct game *g, int win)
{
	struct dg *s = &g->s;
	const struct mapdef *md = &g->c->map[s->mapi];
	int i, k;
	refd_mpw *w;

	for (i = 0; i < s->nch; i++) {
		struct cchar *cc = &s->cc[i];
		struct chr *c = &s->ch[i];

		cc->xp += c->xp;
		cc->gold += c->money * s->gold_per + c->gold;
		cc->donated = 0;
	}
	if (win && s->camp_mode) {
		s->completed |= 1 << s->mapi;
		for (i = 0; i < s->nch; i++)
			s->cc[i].gold += md->rew_gold;
		s->reputation += md->rew_rep;
		if (s->reputation > 20)
			s->reputation = 20;
		if (s->reputation < -20)
			s->reputation = -20;
		for (k = 0; k < g->c->nach; k++)
			if (md->rew_ach >> k & 1)
				gain_ach(g, k);
		s->unlocked |= md->unlock;
	}
	s->scen_count++;
	s->last_mode = s->camp_mode;
	s->ev_done = 0;
	s->phase = PH_TOWN;
	s->town_seat = 0;
	s->actions = 0;
	s->ndq = 0;
	s->push.active = 0;
	s->atk.active = 0;
	s->tie_active = 0;
	s->nfig = 0;
	s->nord = 0;
	s->cur = 0;
	s->mt_active = 0;
	s->ai_active = 0;
	s->ai_pick = 0;
	w = evb("town");
	refd_mpw_kint(w, "scenarios", s->scen_count);
	refd_mpw_kint(w, "reputation", s->reputation);
	refd_mpw_kint(w, "prosperity", s->prosperity);
	ev(g, REFD_SEAT_PUBLIC, w);
}

/* A resumed character's progress (§2.5-2.7): checkmarks earned, perks
 * taken (their modifier cards in its deck), perks still owed. */
static int
camp_progress(struct game *g, refd_mpv c, struct cchar *cc, char *err,
    size_t errlen)
{
	const struct cclass *pc = &g->c->cls[cc->cls];
	refd_mpv pv = refd_mpv_get(c, "perks");
	int64_t owed = refd_mpv_get_int(c, "perks_owed", 0);
	int earned, k;
	size_t j;

	cc->checks = (int)refd_mpv_get_int(c, "checks", 0);
	if (cc->checks < 0 || cc->checks > 18 || owed < 0) {
		snprintf(err, errlen, "campaign: checks 0..18, perks_owed 0 or "
		    "more");
		return -1;
	}
	earned = cc->level - 1 + cc->checks / 3;
	if (refd_mpv_len(pv) > (size_t)earned || owed > earned -
	    (int64_t)refd_mpv_len(pv)) {
		snprintf(err, errlen, "campaign: %d perks earned (a level, three "
		    "checkmarks each): fewer than perks taken and owed", earned);
		return -1;
	}
	cc->perks_taken = earned - (int)owed;
	for (j = 0; j < refd_mpv_len(pv); j++) {
		for (k = 0; k < pc->nperk; k++)
			if (refd_mpv_streq(refd_mpv_at(pv, j), pc->perk[k].id))
				break;
		if (k == pc->nperk || cc->perk[k] >= pc->perk[k].times) {
			snprintf(err, errlen, "campaign: perks[%zu]: not a perk of "
			    "the class, or taken too often", j);
			return -1;
		}
		cc->perk[k]++;
	}
	return 0;
}

/* The "campaign" member of a setup: start in town. */
int
camp_setup(struct game *g, refd_mpv cv, char *err, size_t errlen)
{
	struct dg *s = &g->s;
	refd_mpv v;
	size_t i;
	int k;

	s->camp = 1;
	s->phase = PH_TOWN;
	for (k = 0; k < MAXCH; k++)
		s->ch[k].bg_dealt[0] = s->ch[k].bg_dealt[1] =
		    s->ch[k].bg_choice = -1;
	s->mapi = -1;
	s->prosperity = (int)refd_mpv_get_int(cv, "prosperity", 0);
	s->reputation = (int)refd_mpv_get_int(cv, "reputation", 0);
	s->max_scen = (int)refd_mpv_get_int(cv, "max_scenarios", 3);
	s->solo = refd_mpv_get_bool(cv, "solo", 0);
	s->donations = (int)refd_mpv_get_int(cv, "donations", 0);
	if (s->donations < 0 || s->donations > 999) {
		snprintf(err, errlen, "campaign: donations 0..999");
		return -1;
	}
	v = refd_mpv_get(cv, "difficulty");
	s->difficulty = refd_mpv_streq(v, "easy") ? -1 :
	    refd_mpv_streq(v, "hard") ? 1 : refd_mpv_streq(v, "very_hard") ? 2 :
	    0;
	if (refd_mpv_ok(v) && s->difficulty == 0 &&
	    !refd_mpv_streq(v, "normal")) {
		snprintf(err, errlen, "campaign: difficulty: easy, normal, hard "
		    "or very_hard");
		return -1;
	}
	if (s->prosperity < 0 || s->prosperity > 64 || s->reputation < -20 ||
	    s->reputation > 20 || s->max_scen < 0 || s->max_scen > 20) {
		snprintf(err, errlen, "campaign: prosperity 0..64, reputation "
		    "-20..20, max_scenarios 0..20");
		return -1;
	}
	for (k = 0; k < g->c->nmap; k++)
		if (g->c->map[k].unlocked)
			s->unlocked |= 1 << k;
	v = refd_mpv_get(cv, "achievements");
	for (i = 0; i < refd_mpv_len(v); i++) {
		for (k = 0; k < g->c->nach; k++)
			if (refd_mpv_streq(refd_mpv_at(v, i), g->c->ach[k].name))
				break;
		if (k == g->c->nach) {
			snprintf(err, errlen, "campaign: achievements[%zu]: "
			    "unknown", i);
			return -1;
		}
		gain_ach(g, k);		/* in order: a later one of a type wins */
	}
	v = refd_mpv_get(cv, "completed");
	for (i = 0; i < refd_mpv_len(v); i++)
		for (k = 0; k < g->c->nmap; k++)
			if (refd_mpv_streq(refd_mpv_at(v, i), g->c->map[k].name))
				s->completed |= 1 << k, s->unlocked |= 1 << k;
	v = refd_mpv_get(cv, "unlocked");
	for (i = 0; i < refd_mpv_len(v); i++)
		for (k = 0; k < g->c->nmap; k++)
			if (refd_mpv_streq(refd_mpv_at(v, i), g->c->map[k].name))
				s->unlocked |= 1 << k;
	supply_update(g);
	/* the city event deck: shuffled, or the test order */
	s->ev_cur = -1;
	s->last_mode = refd_mpv_get_bool(cv, "event_allowed", 0);
	v = refd_mpv_get(cv, "event_deck");
	if (refd_mpv_ok(v)) {
		for (i = 0; i < refd_mpv_len(v) && i < MAXEV; i++) {
			for (k = 0; k < g->c->nev; k++)
				if (refd_mpv_streq(refd_mpv_at(v, i),
				    g->c->ev[k].id))
					break;
			if (k == g->c->nev) {
				snprintf(err, errlen, "campaign: event_deck[%zu]: "
				    "unknown event", i);
				return -1;
			}
			s->evdeck[s->nevdeck++] = k;
		}
	} else {
		for (k = 0; k < g->c->nev; k++)
			if (!g->c->ev[k].road && !ev_later(&g->c->ev[k]))
				s->evdeck[s->nevdeck++] = k;
		if (s->nevdeck > 1 && H->shuffle(g->ctx, s->evdeck,
		    (size_t)s->nevdeck, sizeof(s->evdeck[0]), "city events") !=
		    REFD_OK) {
			snprintf(err, errlen, "campaign: no draw for the event "
			    "deck");
			return -1;
		}
	}
	/* the road event deck and the random item design deck */
	for (k = 0; k < g->c->nev; k++)
		if (g->c->ev[k].road && !ev_later(&g->c->ev[k]))
			s->roaddeck[s->nroad++] = k;
	for (k = 0; k < g->c->nitem; k++)
		if (g->c->item[k].prosperity == 0)
			s->rdeck[s->nrdeck++] = k;
	if ((s->nroad > 1 && H->shuffle(g->ctx, s->roaddeck, (size_t)s->nroad,
	    sizeof(s->roaddeck[0]), "road events") != REFD_OK) ||
	    (s->nrdeck > 1 && H->shuffle(g->ctx, s->rdeck, (size_t)s->nrdeck,
	    sizeof(s->rdeck[0]), "random item designs") != REFD_OK)) {
		snprintf(err, errlen, "campaign: no draw for the road or design "
		    "decks");
		return -1;
	}
	for (k = 0; k < MAXCH; k++)
		s->cc[k].pq = s->cc[k].pq_offer[0] = s->cc[k].pq_offer[1] = -1;
	for (k = 0; k < g->c->npq; k++)
		s->pqdeck[s->npqdeck++] = k;
	if (s->npqdeck > 1 && H->shuffle(g->ctx, s->pqdeck, (size_t)s->npqdeck,
	    sizeof(s->pqdeck[0]), "personal quests") != REFD_OK) {
		snprintf(err, errlen, "campaign: no draw for the quest deck");
		return -1;
	}
	v = refd_mpv_get(cv, "characters");
	for (i = 0; i < refd_mpv_len(v) && (int)i < s->nch; i++) {
		refd_mpv c = refd_mpv_at(v, i), it = refd_mpv_get(c, "items");
		struct cchar *cc = &s->cc[i];
		size_t j;

		cc->made = 1;
		cc->cls = -1;
		for (k = 0; k < g->c->nclass; k++)
			if (refd_mpv_streq(refd_mpv_get(c, "class"),
			    g->c->cls[k].name))
				cc->cls = k;
		cc->level = (int)refd_mpv_get_int(c, "level", 1);
		cc->xp = (int)refd_mpv_get_int(c, "xp", xp_min[cc->level < 1 ||
		    cc->level > 9 ? 1 : cc->level]);
		cc->gold = (int)refd_mpv_get_int(c, "gold", 30);
		for (k = 0; k < g->c->npq; k++)
			if (refd_mpv_streq(refd_mpv_get(c, "quest"),
			    g->c->pq[k].id)) {
				int j2;

				cc->pq = k;
				for (j2 = 0; j2 < s->npqdeck; j2++)
					if (s->pqdeck[j2] == k) {
						s->pqdeck[j2] =
						    s->pqdeck[--s->npqdeck];
						break;
					}
			}
		cc->pq_count = (int)refd_mpv_get_int(c, "quest_count", 0);
		/* a ready-made character comes with its perks taken and its
		 * cards gained (the lowest ones) */
		cc->perks_taken = cc->level - 1 > 0 ? cc->level - 1 : 0;
		if (cc->cls >= 0) {
			const struct cclass *pc = &g->c->cls[cc->cls];
			int lv, want = cc->level - 1;

			cc->pool = base_pool(pc);
			for (lv = 2; lv <= cc->level && want > 0; lv++)
				for (k = 0; k < pc->ncards && want > 0; k++)
					if (pc->card[k].level == lv) {
						cc->pool |= 1 << k;
						want--;
					}
			cc->cards_forfeit = want;
		}
		if (cc->cls >= 0 && camp_progress(g, c, cc, err, errlen) != 0)
			return -1;
		for (j = 0; j < refd_mpv_len(it); j++) {
			for (k = 0; k < g->c->nitem; k++)
				if (refd_mpv_streq(refd_mpv_at(it, j),
				    g->c->item[k].id))
					break;
			if (k == g->c->nitem) {
				cc->cls = -1;
			} else {
				cc->owned |= 1 << k;
				if (s->supply[k] > 0)
					s->supply[k]--;
			}
		}
		for (j = 0; j < i; j++)
			if (s->cc[j].cls == cc->cls)
				cc->cls = -1;
		if (cc->cls < 0 || cc->level < 1 || cc->level > 9 ||
		    cc->xp < 0 || cc->gold < 0 || cc->gold > 9999) {
			snprintf(err, errlen, "campaign: characters[%zu]: class "
			    "(unused), level 1..9, xp, gold, known items", i);
			return -1;
		}
	}
	return 0;
}
