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

static int
mandatory_levelup(const struct cchar *c)
{
	return c->made && c->level < 9 && c->xp >= xp_min[c->level + 1];
}

int
camp_owes_levelup(const struct game *g, int seat)
{
	return mandatory_levelup(&g->s.cc[seat]);
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

int
camp_options(const struct game *g, int seat, struct opt *out, int max)
{
	const struct dg *s = &g->s;
	const struct cchar *c = &s->cc[seat];
	int n = 0, k, i, L = prosperity_level(s->prosperity), all = 1;

	for (i = 0; i < s->nch; i++)
		if (!s->cc[i].made || mandatory_levelup(&s->cc[i]))
			all = 0;
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
	} else if (mandatory_levelup(c)) {
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
	}
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
	s->mapi = m;
	for (i = 0; i < s->nch; i++)
		sum += s->cc[i].level;
	s->level = (sum + 2 * s->nch - 1) / (2 * s->nch);
	if (s->level > 7)
		s->level = 7;
	s->mlevel = s->level;
	s->trapdmg = 2 + s->level;
	s->hazdmg = s->trapdmg / 2;
	s->gold_per = gold[s->level];
	s->bonus_xp = 4 + 2 * s->level;
	s->bless_supply = s->pcurse_supply = s->mcurse_supply = 10;
	s->round = 1;
	for (i = 0; i < MAXTYPES; i++)
		s->ad_cur[i] = -1;
	load_map(s, md);
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
		x->q = md->start[i % (md->nstart > 0 ? md->nstart : 1)][0];
		x->r = md->start[i % (md->nstart > 0 ? md->nstart : 1)][1];
		ch->hand = default_hand(cl);
		deck_build(&ch->mod, NULL, 0);
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
			for (j = 0; j < it->minus && ch->mod.n < MAXMOD; j++)
				ch->mod.c[ch->mod.n++] = M_M1;
		}
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
		w = evb("character_created");
		refd_mpw_kint(w, "seat", seat);
		refd_mpw_kstr(w, "class", g->c->cls[o->a].name);
		refd_mpw_kint(w, "level", c->level);
		refd_mpw_kint(w, "gold", c->gold);
		refd_mpw_kint(w, "xp", c->xp);
		ev(g, REFD_SEAT_PUBLIC, w);
		break;
	case K_LEVELUP:
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
	case K_DONATE:
		c->gold -= 10;
		c->donated = 1;
		c->bless_next = 1;
		s->donations++;
		town_event(g, "donated", seat, NULL, 10);
		break;
	case K_TRAVEL:
		s->actions = 0;
		go_travel(g, o->a, o->b);
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
	s->phase = PH_TOWN;
	s->actions = 0;
	s->ndq = 0;
	s->push.active = 0;
	s->atk.active = 0;
	s->tie_active = 0;
	s->nfig = 0;
	w = evb("town");
	refd_mpw_kint(w, "scenarios", s->scen_count);
	refd_mpw_kint(w, "reputation", s->reputation);
	refd_mpw_kint(w, "prosperity", s->prosperity);
	ev(g, REFD_SEAT_PUBLIC, w);
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
	s->mapi = -1;
	s->prosperity = (int)refd_mpv_get_int(cv, "prosperity", 0);
	s->reputation = (int)refd_mpv_get_int(cv, "reputation", 0);
	s->max_scen = (int)refd_mpv_get_int(cv, "max_scenarios", 3);
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
		if (g->c->ach[k].global)
			s->gach |= 1 << k;
		else
			s->pach |= 1 << k;
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
		for (j = 0; j < refd_mpv_len(it); j++) {
			for (k = 0; k < g->c->nitem; k++)
				if (refd_mpv_streq(refd_mpv_at(it, j),
				    g->c->item[k].id))
					break;
			if (k == g->c->nitem)
				cc->cls = -1;
			else
				cc->owned |= 1 << k;
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
