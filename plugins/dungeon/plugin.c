/*
 * plugin.c - the dungeon ruleset's plugin ABI: describe, content, create
 * (setup), apply, legal, pending, view, result, serialize and restore.
 */
#include <stdio.h>
#include <string.h>

#include "refd/board.h"
#include "dg.h"
#include "rules.h"

const struct refd_host *H;

static int
p_init(refd_ctx *ctx, const struct refd_host *host, void **pdata)
{
	(void)ctx;
	H = host;
	*pdata = NULL;
	return REFD_OK;
}

static int
put(refd_ctx *ctx, refd_mpw *w)
{
	return refd_mpw_output(H, ctx, w);
}

static void
cmd_doc(refd_mpw *w, const char *name, const char *args[], const char *doc)
{
	int i;

	refd_mpw_kmap(w, name);
	refd_mpw_kmap(w, "args");
	for (i = 0; args[i] != NULL; i += 2)
		refd_mpw_kstr(w, args[i], args[i + 1]);
	refd_mpw_end(w);
	refd_mpw_kstr(w, "doc", doc);
	refd_mpw_end(w);
}

static void
opt_doc(refd_mpw *w, const char *name, const char *type, const char *doc)
{
	refd_mpw_kmap(w, name);
	refd_mpw_kstr(w, "type", type);
	refd_mpw_kstr(w, "doc", doc);
	refd_mpw_end(w);
}

static int
p_describe(refd_ctx *ctx, void *pdata)
{
	refd_mpw *w = refd_mpw_create();
	static const char *none[] = { NULL };
	static const char *plan[] = { "lead", "str: card id (its initiative counts)",
		"second", "str: card id", NULL };
	static const char *card[] = { "card", "str: card id", NULL };
	static const char *item[] = { "item", "str: item id", NULL };
	static const char *at[] = { "at", "[q, r]", NULL };
	static const char *mch[] = { "to", "[q, r], or", "target",
		"int: figure id, or", "path", "int: a path of the monster_tie "
		"event, or", "element", "str: element name", NULL };
	static const char *react[] = { "use", "bool", NULL };
	static const char *perk[] = { "perk", "str: perk id", NULL };
	static const char *pq[] = { "quest", "str: personal quest id", NULL };
	static const char *enh[] = { "card", "str: card id", "half",
		"\"top\" or \"bottom\"", "slot", "int: the half's enhancement "
		"slot (content)", "sticker", "attack+1, move+1, "
		"heal+1, range+1, shield+1, poison, wound or jump", NULL };
	static const char *evopt[] = { "option", "\"A\" or \"B\"", NULL };
	static const char *at_seat[] = { "seat", "int: a seat without that "
		"item", NULL };
	static const char *evgold[] = { "seat", "int: the seat the event_share "
		"event names", "gold", "int 0..gold_left", NULL };
	static const char *goal[] = { "goal", "str: battle goal id", NULL };
	static const char *create[] = { "class", "str: class name", "level",
		"int 1..prosperity level", NULL };
	static const char *trav[] = { "scenario", "str: map name", "mode",
		"\"campaign\" or \"casual\"", NULL };
	static const char *order[] = { "order", "[int]: a permutation of the "
		"tied units", NULL };
	static const char *play[] = { "card", "str: card id", "half",
		"\"top\" or \"bottom\"", "default",
		"bool, optional: Attack 2 / Move 2 instead", "element",
		"str, for a half with a wild infusion: the element", NULL };
	static const char *to[] = { "to", "[q, r]", "consume",
		"bool, optional: pay the ability's element augment", "element",
		"str, optional: the element a wild augment consumes", NULL };
	static const char *attack[] = { "targets", "[int]: figure ids, or",
		"at", "[q, r] anchor of an area", "o", "int 0..11 orientation",
		"consume", "bool, optional: pay the element augment", "element",
		"str, optional: the element a wild augment consumes", NULL };
	static const char *target[] = { "target", "int: figure id", NULL };
	static const char *dmg[] = { "take", "bool: true: lose the hit points",
		"hand", "str: card id: lose it instead", "discard",
		"[str, str]: card ids: lose them instead", NULL };
	static const char *sr[] = { "accept", "bool", NULL };
	static const char *srk[] = { "reroll", "bool: suffer 1 damage, keep "
		"the card, lose another at random", NULL };

	(void)pdata;
	refd_mpw_map(w);
	refd_mpw_kstr(w, "summary", "cooperative dungeon adventure on hexes: "
	    "sealed ability cards, refereed monster AI");
	refd_mpw_karray(w, "seats");
	refd_mpw_int(w, 2);
	refd_mpw_int(w, 4);
	refd_mpw_end(w);
	refd_mpw_kmap(w, "options");
	opt_doc(w, "map", "str or object", "a map of maps.json or an inline map");
	opt_doc(w, "level", "int 0..7", "scenario level (default 1)");
	opt_doc(w, "solo", "bool", "open-information play: +1 monster level "
	    "and trap damage");
	opt_doc(w, "classes", "[str]", "one class per seat");
	opt_doc(w, "los", "str", "\"strict\" (default) or \"lenient\"");
	opt_doc(w, "max_rounds", "int 1..99", "rounds before the scenario is "
	    "lost (default 20)");
	opt_doc(w, "characters", "[object]", "per seat: level, items (equipped); "
	    "test set-ups also at, hp, conds, hand, discard, lost, active, "
	    "deck, xp, summon");
	opt_doc(w, "monsters", "[object]", "test set-ups: type, rank, at, "
	    "standee, hp, conds");
	opt_doc(w, "monster_deck", "[str]", "test set-ups: modifier cards on "
	    "top of the monster deck");
	opt_doc(w, "ability_decks", "{deck: [card names]}", "test set-ups: "
	    "monster ability deck order");
	opt_doc(w, "money", "[[q, r]]", "test set-ups: money tokens");
	opt_doc(w, "battle_goals", "bool", "deal battle goals (default: yes, "
	    "but no in test set-ups with monsters)");
	opt_doc(w, "campaign", "object", "play a campaign: prosperity, "
	    "reputation, max_scenarios, achievements, completed, unlocked, "
	    "characters");
	opt_doc(w, "elements", "{element: \"strong\"|\"waning\"}",
	    "test set-ups: element states");
	refd_mpw_end(w);
	refd_mpw_kmap(w, "commands");
	cmd_doc(w, "plan", plan, "round start, sealed: the two cards you play");
	cmd_doc(w, "rest", none, "round start, sealed: long rest (initiative 99)");
	cmd_doc(w, "active_to_pile", card, "move one of your active cards to "
	    "its pile");
	cmd_doc(w, "play", play, "your turn: the card half you perform next");
	cmd_doc(w, "move", to, "perform the current Move ability");
	cmd_doc(w, "attack", attack, "perform the current Attack ability");
	cmd_doc(w, "heal", target, "perform the current Heal ability");
	cmd_doc(w, "bless", target, "perform the current Bless ability");
	cmd_doc(w, "summon", to, "perform the current Summon ability");
	cmd_doc(w, "recover", card, "perform the current Recover ability");
	cmd_doc(w, "monster_choice", mch, "settle a monster AI tie: one of "
	    "the hexes (to), targets (target), paths (path) or elements "
	    "(element) of the monster_tie event");
	cmd_doc(w, "order", order, "settle an initiative tie: the tied units "
	    "(as listed by the order_tie event) in the order they act");
	cmd_doc(w, "battle_goal", goal, "set-up, sealed: the battle goal you "
	    "keep");
	cmd_doc(w, "create_character", create, "town: create your character");
	cmd_doc(w, "level_up", none, "town: gain a level");
	cmd_doc(w, "buy", item, "town: buy an item from the supply");
	cmd_doc(w, "sell", item, "town: sell an item for half its cost");
	cmd_doc(w, "donate", none, "town: 10 gold, 2 blesses next scenario");
	cmd_doc(w, "travel", trav, "town, seat 0: play a scenario");
	cmd_doc(w, "start_hex", at, "set-up: your starting hex");
	cmd_doc(w, "item_reaction", react, "when attacked, before the draw: "
	    "use your defensive item or not");
	cmd_doc(w, "gain_card", card, "town: the ability card a new level "
	    "gives");
	cmd_doc(w, "hand_drop", card, "set-up: leave one card of your pool "
	    "out of your hand");
	cmd_doc(w, "perk", perk, "town: take an owed perk of your class");
	cmd_doc(w, "personal_quest", pq, "town, sealed: the quest you keep");
	cmd_doc(w, "retire", none, "town: retire once your quest is "
	    "complete");
	cmd_doc(w, "enhance", enh, "town: a permanent sticker on a card half "
	    "of your class");
	cmd_doc(w, "city_event", none, "town, seat 0: draw the city event");
	cmd_doc(w, "event_choice", evopt, "town, seat 0: option A or B of "
	    "the drawn event");
	cmd_doc(w, "active_keep", none, "round start: keep your remaining "
	    "active cards (after any active_to_pile), before the sealed "
	    "plans");
	cmd_doc(w, "town_done", none, "town: end your turn of town "
	    "activities; the next seat's begins (seat 0's comes round "
	    "again)");
	cmd_doc(w, "event_gold", evgold, "town, seat 0 for the party: the "
	    "share of an event's collective gold that seat gets (the last "
	    "seat takes the rest)");
	cmd_doc(w, "event_item", at_seat, "town, seat 0 for the party: the "
	    "member who gets an event's item");
	cmd_doc(w, "event_discard", card, "set-up: a card of your chosen hand "
	    "discarded for an event penalty");
	cmd_doc(w, "end_campaign", none, "town, seat 0: end the campaign");
	cmd_doc(w, "use_item", item, "use one of your items in your turn");
	cmd_doc(w, "perform", none, "perform the current ability (no choice)");
	cmd_doc(w, "skip", none, "skip the current (beneficial) ability");
	cmd_doc(w, "push", to, "one step of your push or pull");
	cmd_doc(w, "damage", dmg, "answer a damage prompt");
	cmd_doc(w, "lose", card, "long rest: the discarded card you lose");
	cmd_doc(w, "short_rest", sr, "end of round: short rest or not");
	cmd_doc(w, "short_rest_keep", srk, "short rest: keep the random card?");
	refd_mpw_end(w);
	refd_mpw_end(w);
	return put(ctx, w);
}

static int
p_content_load(refd_ctx *ctx, void *pdata, const uint8_t *bytes, size_t len,
    void **out)
{
	struct content *c;
	char err[256];

	(void)pdata;
	c = H->alloc(ctx, sizeof(*c));
	if (c == NULL)
		return REFD_ENOMEM;
	memset(c, 0, sizeof(*c));
	if (dg_content_parse(bytes, len, c, err, sizeof(err)) != 0) {
		H->free(ctx, c);
		return H->reject(ctx, REFD_ECONTENT, NULL, err);
	}
	*out = c;
	return REFD_OK;
}

static void
p_content_free(void *pdata, void *content)
{
	(void)pdata;
	H->free(NULL, content);
}

/* ----- hidden zones ----- */

static int
commit_zones(struct game *g, int mask)
{
	struct dg *s = &g->s;
	int32_t buf[MAXTYPES * MAXMC + 2 * MAXEV + MAXITEMS + 16];
	char zone[24];
	int i, rc, d, n;

	for (i = 0; i < s->nch; i++) {
		if (mask & DIRTY_HAND(i)) {
			buf[0] = s->ch[i].hand;
			buf[1] = s->ch[i].planned && s->phase == PH_PLAN ?
			    (s->ch[i].rest ? -1 : s->ch[i].ca * 16 +
			    s->ch[i].cb) : -2;
			snprintf(zone, sizeof(zone), "hand.%d", i);
			rc = H->commit(g->ctx, zone, i, (const uint8_t *)buf,
			    2 * sizeof(int32_t));
			if (rc != REFD_OK)
				return rc;
		}
		if (mask & DIRTY_MOD(i)) {
			snprintf(zone, sizeof(zone), "modifiers.%d", i);
			rc = H->commit(g->ctx, zone, REFD_SEAT_PUBLIC,
			    (const uint8_t *)s->ch[i].mod.c,
			    (size_t)s->ch[i].mod.n * sizeof(int32_t));
			if (rc != REFD_OK)
				return rc;
		}
	}
	if (mask & DIRTY_GOALS)
		for (i = 0; i < s->nch; i++) {
			buf[0] = s->ch[i].bg_dealt[0];
			buf[1] = s->ch[i].bg_dealt[1];
			buf[2] = s->ch[i].bg_choice;
			snprintf(zone, sizeof(zone), "goals.%d", i);
			rc = H->commit(g->ctx, zone, i, (const uint8_t *)buf,
			    3 * sizeof(int32_t));
			if (rc != REFD_OK)
				return rc;
		}
	if (mask & DIRTY_PQ) {
		for (i = 0; i < s->nch; i++) {
			buf[0] = s->cc[i].pq;
			buf[1] = s->cc[i].pq_offer[0];
			buf[2] = s->cc[i].pq_offer[1];
			snprintf(zone, sizeof(zone), "quest.%d", i);
			rc = H->commit(g->ctx, zone, i, (const uint8_t *)buf,
			    3 * sizeof(int32_t));
			if (rc != REFD_OK)
				return rc;
		}
		rc = H->commit(g->ctx, "quest_deck", REFD_SEAT_PUBLIC,
		    (const uint8_t *)s->pqdeck,
		    (size_t)s->npqdeck * sizeof(int32_t));
		if (rc != REFD_OK)
			return rc;
	}
	if (mask & DIRTY_MDECK) {
		rc = H->commit(g->ctx, "modifiers.monster", REFD_SEAT_PUBLIC,
		    (const uint8_t *)s->mdeck.c,
		    (size_t)s->mdeck.n * sizeof(int32_t));
		if (rc != REFD_OK)
			return rc;
	}
	if (mask & DIRTY_AD) {
		n = 0;
		for (d = 0; d < g->c->ndeck; d++) {
			buf[n++] = s->ad_n[d];
			for (i = 0; i < s->ad_n[d]; i++)
				buf[n++] = s->ad_c[d][i];
		}
		buf[n++] = s->nevdeck;
		for (i = 0; i < s->nevdeck; i++)
			buf[n++] = s->evdeck[i];
		buf[n++] = s->nroad;
		for (i = 0; i < s->nroad; i++)
			buf[n++] = s->roaddeck[i];
		buf[n++] = s->nrdeck;
		for (i = 0; i < s->nrdeck; i++)
			buf[n++] = s->rdeck[i];
		rc = H->commit(g->ctx, "monster_abilities", REFD_SEAT_PUBLIC,
		    (const uint8_t *)buf, (size_t)n * sizeof(int32_t));
		if (rc != REFD_OK)
			return rc;
	}
	return REFD_OK;
}

/* ----- setup ----- */

static int
card_index(const struct cclass *cl, refd_mpv v)
{
	int i;

	for (i = 0; i < cl->ncards; i++)
		if (refd_mpv_streq(v, cl->card[i].id))
			return i;
	return -1;
}

static int
card_mask(const struct cclass *cl, refd_mpv arr, int *bad)
{
	size_t i;
	int m = 0, k;

	for (i = 0; i < refd_mpv_len(arr); i++) {
		k = card_index(cl, refd_mpv_at(arr, i));
		if (k < 0)
			*bad = 1;
		else
			m |= 1 << k;
	}
	return m;
}

static int
setup_fail(refd_ctx *ctx, struct game *g, refd_mpdoc *d, const char *msg)
{
	refd_mp_free(d);
	H->free(ctx, g);
	return H->reject(ctx, REFD_ESETUP, NULL, msg);
}

static int
mod_list(refd_mpv arr, int monster, int *out, int *n)
{
	size_t i;

	*n = 0;
	for (i = 0; i < refd_mpv_len(arr) && i < 20; i++) {
		int m = mod_by_name(refd_mpv_cstr(refd_mpv_at(arr, i), ""),
		    monster);

		if (m < 0)
			return -1;
		out[(*n)++] = m;
	}
	return 0;
}

static void
shuffle_or_fail(struct game *g, int rc)
{
	if (rc != REFD_OK && g->err == 0)
		g->err = rc;
}

/*
 * Place the first room's monsters, shuffle the decks a test did not fix
 * (§3 steps 6-14) and run the round start.
 */
void
scenario_begin(struct game *g)
{
	struct dg *s = &g->s;
	const struct content *c = g->c;
	int i, k, rk = s->nch - 2 > 2 ? 2 : s->nch - 2;
	refd_mpw *w;

	for (i = 0; i < s->nrmon; i++) {
		if (s->rmon[i].room != 0 || s->rmon[i].rank[rk] < 0)
			continue;
		place_monster(g, s->rmon[i].type, s->rmon[i].rank[rk],
		    s->rmon[i].q, s->rmon[i].r, 0, 0);
		s->rmon[i].rank[rk] = -1;
	}
	place_obstacles(g, 0);
	/* shuffles (§3 steps 10-14), unless a test fixed the order */
	if (s->mdeck.flag == 0)
		shuffle_or_fail(g, H->shuffle(g->ctx, s->mdeck.c, (size_t)s->mdeck.n, sizeof(int32_t),
		    "monster modifier deck"));
	s->mdeck.flag = 0;
	for (i = 0; i < s->nch; i++) {
		if (s->ch[i].mod.flag == 0)
			shuffle_or_fail(g, H->shuffle(g->ctx, s->ch[i].mod.c, (size_t)s->ch[i].mod.n,
			    sizeof(int32_t), "modifier deck"));
		s->ch[i].mod.flag = 0;
	}
	for (k = 0; k < c->ntype; k++)
		if (type_present(g, k) && !s->test_decks &&
		    !s->ad_started[c->type[k].deck]) {
			int dk = c->type[k].deck;

			s->ad_started[dk] = 1;
			shuffle_or_fail(g, H->shuffle(g->ctx, s->ad_c[dk], (size_t)s->ad_n[dk],
			    sizeof(int32_t), "monster ability deck"));
		}
	if (s->test_decks)
		for (k = 0; k < MAXTYPES; k++)
			s->ad_started[k] = 1;
	s->phase = PH_PLAN;
	w = evb("setup");
	refd_mpw_kint(w, "level", s->level);
	refd_mpw_kint(w, "monster_level", s->mlevel);
	refd_mpw_kint(w, "trap_damage", s->trapdmg);
	refd_mpw_kint(w, "hazard_damage", s->hazdmg);
	refd_mpw_kint(w, "gold_per_token", s->gold_per);
	refd_mpw_kint(w, "bonus_xp", s->bonus_xp);
	ev(g, REFD_SEAT_PUBLIC, w);
	goals_deal(g);
	dg_advance(g);
}

static int
p_create(refd_ctx *ctx, void *pdata, const void *content, const uint8_t *setup,
    size_t len, uint32_t nseats, void **out)
{
	const struct content *c = content;
	refd_mpdoc *d = refd_mp_parse(setup, len);
	refd_mpv root = refd_mp_root(d), v, chars, mons;
	struct game *g;
	struct dg *s;
	struct mapdef *m = NULL;
	char msg[256];
	int i, k, tops[20], ntop, rc;
	refd_mpw *w;

	(void)pdata;
	if (d == NULL || refd_mpv_type(root) != REFD_MP_MAP) {
		refd_mp_free(d);
		return H->reject(ctx, REFD_ESETUP, NULL, "setup must be a map");
	}
	if (nseats < 2 || nseats > 4 || (int)nseats > c->nclass) {
		refd_mp_free(d);
		snprintf(msg, sizeof(msg), "this content supports 2 to %d "
		    "characters, one per seat", c->nclass < 4 ? c->nclass : 4);
		return H->reject(ctx, REFD_ESETUP, NULL, msg);
	}
	g = H->alloc(ctx, sizeof(*g));
	if (g == NULL) {
		refd_mp_free(d);
		return REFD_ENOMEM;
	}
	memset(g, 0, sizeof(*g));
	g->c = c;
	g->ctx = ctx;
	s = &g->s;
	s->version = DG_VERSION;
	s->nch = (int)nseats;
	s->mapi = -1;
	s->los = refd_mpv_streq(refd_mpv_get(root, "los"), "lenient") ?
	    REFD_HEX_LOS_LENIENT : REFD_HEX_LOS_STRICT;
	s->max_rounds = (int)refd_mpv_get_int(root, "max_rounds", 20);
	if (refd_mpv_ok(refd_mpv_get(root, "campaign"))) {
		if (s->max_rounds < 1 || s->max_rounds > 99)
			return setup_fail(ctx, g, d, "max_rounds: 1..99");
		if (camp_setup(g, refd_mpv_get(root, "campaign"), msg,
		    sizeof(msg)) != 0)
			return setup_fail(ctx, g, d, msg);
		refd_mp_free(d);
		w = evb("campaign");
		refd_mpw_kint(w, "prosperity", s->prosperity);
		refd_mpw_kint(w, "reputation", s->reputation);
		ev(g, REFD_SEAT_PUBLIC, w);
		rc = commit_zones(g, DIRTY_AD | DIRTY_PQ);
		if (rc == REFD_OK && g->err)
			rc = g->err;
		if (rc != REFD_OK) {
			H->free(ctx, g);
			return rc;
		}
		g->ctx = NULL;
		*out = g;
		return REFD_OK;
	}
	v = refd_mpv_get(root, "map");
	if (refd_mpv_type(v) == REFD_MP_STR || !refd_mpv_ok(v)) {
		const char *nm = refd_mpv_cstr(v, c->map[0].name);

		for (i = 0; i < c->nmap; i++)
			if (strcmp(c->map[i].name, nm) == 0)
				break;
		if (i == c->nmap) {
			snprintf(msg, sizeof(msg), "map: no map named '%s' in "
			    "maps.json", nm);
			return setup_fail(ctx, g, d, msg);
		}
		s->mapi = i;
		m = (struct mapdef *)&c->map[i];
	} else {
		struct mapdef *tm = H->alloc(ctx, sizeof(*tm));

		if (tm == NULL)
			return setup_fail(ctx, g, d, "out of memory");
		memset(tm, 0, sizeof(*tm));
		snprintf(tm->name, sizeof(tm->name), "map");
		if (parse_map(v, tm, c, msg, sizeof(msg)) != 0) {
			H->free(ctx, tm);
			return setup_fail(ctx, g, d, msg);
		}
		m = tm;
	}
	load_map(s, m);
	s->level = (int)refd_mpv_get_int(root, "level", 1);
	if (s->level < 0 || s->level > 7) {
		if (s->mapi < 0)
			H->free(ctx, m);
		return setup_fail(ctx, g, d, "level: 0..7");
	}
	if (refd_mpv_get_bool(root, "solo", 0)) {
		s->mlevel = s->level + 1 > 7 ? 7 : s->level + 1;
		s->trapdmg = 3 + s->level;
	} else {
		s->mlevel = s->level;
		s->trapdmg = 2 + s->level;
	}
	s->hazdmg = s->trapdmg / 2;
	{
		static const int gold[8] = { 2, 2, 3, 3, 4, 4, 5, 6 };

		s->gold_per = gold[s->level];
	}
	s->bonus_xp = 4 + 2 * s->level;
	s->los = refd_mpv_streq(refd_mpv_get(root, "los"), "lenient") ?
	    REFD_HEX_LOS_LENIENT : REFD_HEX_LOS_STRICT;
	s->max_rounds = (int)refd_mpv_get_int(root, "max_rounds", 20);
	if (s->max_rounds < 1 || s->max_rounds > 99) {
		if (s->mapi < 0)
			H->free(ctx, m);
		return setup_fail(ctx, g, d, "max_rounds: 1..99");
	}
	s->bg_on = refd_mpv_get_bool(root, "battle_goals",
	    !refd_mpv_ok(refd_mpv_get(root, "monsters")));
	s->bless_supply = 10;
	s->pcurse_supply = 10;
	s->mcurse_supply = 10;
	s->round = 1;
	for (i = 0; i < MAXTYPES; i++)
		s->ad_cur[i] = -1;
	/* characters */
	chars = refd_mpv_get(root, "characters");
	for (i = 0; i < s->nch; i++) {
		struct chr *ch = &s->ch[i];
		refd_mpv cv = refd_mpv_at(chars, (size_t)i);
		refd_mpv cn = refd_mpv_at(refd_mpv_get(root, "classes"),
		    (size_t)i);
		const struct cclass *cl;
		struct fig *x;
		int q = 0, r = 0, bad = 0;

		ch->cls = -1;
		for (k = 0; k < c->nclass; k++)
			if (refd_mpv_ok(cn) ? refd_mpv_streq(cn,
			    c->cls[k].name) : k == i)
				ch->cls = k;
		for (k = 0; k < i; k++)
			if (s->ch[k].cls == ch->cls)
				ch->cls = -1;
		if (ch->cls < 0) {
			if (s->mapi < 0)
				H->free(ctx, m);
			snprintf(msg, sizeof(msg), "classes[%d]: not a class of "
			    "classes.json, or already taken", i);
			return setup_fail(ctx, g, d, msg);
		}
		cl = &c->cls[ch->cls];
		ch->cur_card = -1;
		ch->fig = s->nfig;
		x = &s->fig[s->nfig++];
		x->alive = 1;
		x->kind = F_CHAR;
		x->type = ch->cls;
		x->owner = i;
		ch->level = (int)refd_mpv_get_int(cv, "level", 1);
		if (ch->level < 1 || ch->level > 9)
			bad = 1, ch->level = 1;
		x->maxhp = cl->hp[ch->level - 1];
		x->hp = (int)refd_mpv_get_int(cv, "hp", x->maxhp);
		ch->min_hp = x->hp;
		if (refd_mpv_ok(refd_mpv_get(cv, "at"))) {
			ch->placed = 1;
			if (parse_at(refd_mpv_get(cv, "at"), &q, &r) ||
			    hex_at(s, q, r) < 0)
				bad = 1;
		} else if (i < m->nstart) {
			q = m->start[i][0];
			r = m->start[i][1];
		} else {
			bad = 1;
		}
		x->q = q;
		x->r = r;
		x->conds = cond_mask(refd_mpv_get(cv, "conds"), &bad);
		if (refd_mpv_ok(refd_mpv_get(cv, "hand"))) {
			ch->hand = card_mask(cl, refd_mpv_get(cv, "hand"), &bad);
		} else {
			ch->hand = default_hand(cl);
		}
		ch->disc = card_mask(cl, refd_mpv_get(cv, "discard"), &bad);
		ch->lost = card_mask(cl, refd_mpv_get(cv, "lost"), &bad);
		ch->active = card_mask(cl, refd_mpv_get(cv, "active"), &bad);
		ch->xp = (int)refd_mpv_get_int(cv, "xp", 0);
		if (mod_list(refd_mpv_get(cv, "deck"), 0, tops, &ntop))
			bad = 1;
		deck_build(&ch->mod, tops, ntop);
		{
			refd_mpv il = refd_mpv_get(cv, "items");
			int cnt[6] = { 0 }, j, kk;
			size_t ii;

			for (ii = 0; ii < refd_mpv_len(il); ii++) {
				for (kk = 0; kk < c->nitem; kk++)
					if (refd_mpv_streq(refd_mpv_at(il, ii),
					    c->item[kk].id))
						break;
				for (j = 0; j < ch->nitem; j++)
					if (ch->item[j] == kk)
						kk = c->nitem;
				if (kk == c->nitem || ch->nitem >= MAXOWN) {
					snprintf(msg, sizeof(msg), "characters[%d]: "
					    "items[%zu]: no such item, or a second "
					    "copy", i, ii);
					if (s->mapi < 0)
						H->free(ctx, m);
					return setup_fail(ctx, g, d, msg);
				}
				ch->item[ch->nitem++] = kk;
				cnt[c->item[kk].slot]++;
				for (j = 0; j < c->item[kk].minus &&
				    ch->mod.n < MAXMOD; j++)
					ch->mod.c[ch->mod.n++] = M_M1;
			}
			for (j = 0; j < ch->nitem; j++) {
				refd_mpv sp = refd_mpv_get(cv, "spent");
				refd_mpv co = refd_mpv_get(cv, "consumed");

				for (ii = 0; ii < refd_mpv_len(sp); ii++)
					if (refd_mpv_streq(refd_mpv_at(sp, ii),
					    c->item[ch->item[j]].id))
						ch->istate[j] = 1;
				for (ii = 0; ii < refd_mpv_len(co); ii++)
					if (refd_mpv_streq(refd_mpv_at(co, ii),
					    c->item[ch->item[j]].id))
						ch->istate[j] = 2;
			}
			if (!equip_ok(cnt, ch->level)) {
				snprintf(msg, sizeof(msg), "characters[%d]: items: "
				    "at most 1 head, 1 body, 1 legs, one two-hand "
				    "or two one-hand items, and %d small item(s) at "
				    "level %d (R002-25)", i, (ch->level + 1) / 2,
				    ch->level);
				if (s->mapi < 0)
					H->free(ctx, m);
				return setup_fail(ctx, g, d, msg);
			}
		}
		/* a test set-up (monsters given) fixes the deck order */
		ch->mod.flag = refd_mpv_ok(refd_mpv_get(root, "monsters")) ? -1 :
		    0;
		if (bad || x->hp < 1 || x->hp > 99 || (ch->hand & ch->disc) ||
		    (ch->hand & ch->lost) || (ch->disc & ch->lost) ||
		    fig_at(s, q, r) != s->nfig - 1) {
			if (s->mapi < 0)
				H->free(ctx, m);
			snprintf(msg, sizeof(msg), "characters[%d]: a field is "
			    "wrong (at a free floor hex, hp 1..99, known "
			    "condition, card and modifier names, disjoint "
			    "piles)", i);
			return setup_fail(ctx, g, d, msg);
		}
		if (refd_mpv_ok(refd_mpv_get(cv, "summon"))) {
			refd_mpv sv = refd_mpv_get(cv, "summon");
			struct fig *y = &s->fig[s->nfig];

			if (parse_at(refd_mpv_get(sv, "at"), &q, &r) ||
			    hex_at(s, q, r) < 0 || fig_at(s, q, r) >= 0 ||
			    cl->summon.hp == 0) {
				if (s->mapi < 0)
					H->free(ctx, m);
				return setup_fail(ctx, g, d, "characters: summon: "
				    "at a free floor hex, for a class with a "
				    "summon");
			}
			y->alive = 1;
			y->kind = F_SUMMON;
			y->type = ch->cls;
			y->owner = i;
			y->q = q;
			y->r = r;
			y->maxhp = cl->summon.hp;
			y->hp = (int)refd_mpv_get_int(sv, "hp", y->maxhp);
			y->move = cl->summon.move;
			y->attack = cl->summon.attack;
			y->range = cl->summon.range;
			y->summon_seq = ++s->summon_seq;
			s->nfig++;
		}
	}
	if (s->mapi < 0)
		H->free(ctx, m);
	/* test set-ups: money tokens */
	v = refd_mpv_get(root, "money");
	for (i = 0; i < (int)refd_mpv_len(v); i++) {
		int q, r, h;

		if (parse_at(refd_mpv_at(v, (size_t)i), &q, &r) ||
		    (h = hex_at(s, q, r)) < 0)
			return setup_fail(ctx, g, d, "money: [[q, r], ...] on "
			    "floor hexes");
		s->hex[h].money++;
	}
	/* elements */
	v = refd_mpv_get(root, "elements");
	for (i = 0; i < NELEM; i++) {
		refd_mpv e = refd_mpv_get(v, elem_name[i]);

		s->elem[i] = refd_mpv_streq(e, "strong") ? 2 :
		    refd_mpv_streq(e, "waning") ? 1 : 0;
	}
	/* monster ability decks: content order, or the test order */
	v = refd_mpv_get(root, "ability_decks");
	s->test_decks = refd_mpv_ok(v);
	for (k = 0; k < c->ndeck; k++) {
		refd_mpv list = refd_mpv_get(v, c->deck[k].name);
		int used = 0, n = 0, j;
		int32_t order[MAXMC];

		for (i = 0; i < (int)refd_mpv_len(list) && n < MAXMC; i++) {
			for (j = 0; j < c->deck[k].n; j++)
				if (!(used >> j & 1) && refd_mpv_streq(
				    refd_mpv_at(list, (size_t)i),
				    c->deck[k].card[j].name))
					break;
			if (j == c->deck[k].n)
				return setup_fail(ctx, g, d, "ability_decks: "
				    "unknown card name");
			used |= 1 << j;
			order[n++] = j;
		}
		for (j = 0; j < c->deck[k].n; j++)
			if (!(used >> j & 1))
				order[n++] = j;
		/* top = last */
		s->ad_n[k] = n;
		for (i = 0; i < n; i++)
			s->ad_c[k][n - 1 - i] = order[i];
	}
	/* the monster modifier deck */
	if (mod_list(refd_mpv_get(root, "monster_deck"), 1, tops, &ntop))
		return setup_fail(ctx, g, d, "monster_deck: unknown modifier "
		    "card");
	deck_build(&s->mdeck, tops, ntop);
	s->mdeck.flag = refd_mpv_ok(refd_mpv_get(root, "monster_deck")) ||
	    refd_mpv_ok(refd_mpv_get(root, "monsters")) ? -1 : 0;
	/* monsters: the test list, or the map's first room */
	mons = refd_mpv_get(root, "monsters");
	if (refd_mpv_ok(mons)) {
		int keep = 0;

		for (i = 0; i < s->nrmon; i++)
			if (s->rmon[i].room != 0)
				s->rmon[keep++] = s->rmon[i];
		s->nrmon = keep;
		for (i = 0; i < (int)refd_mpv_len(mons); i++) {
			refd_mpv mv = refd_mpv_at(mons, (size_t)i);
			int t = -1, q, r, f, bad = 0;
			int rank = refd_mpv_streq(refd_mpv_get(mv, "rank"),
			    "elite") ? 1 : refd_mpv_streq(refd_mpv_get(mv,
			    "rank"), "boss") ? 2 : 0;

			for (k = 0; k < c->ntype; k++)
				if (refd_mpv_streq(refd_mpv_get(mv, "type"),
				    c->type[k].name))
					t = k;
			if (t < 0 || parse_at(refd_mpv_get(mv, "at"), &q, &r) ||
			    hex_at(s, q, r) < 0 || fig_at(s, q, r) >= 0)
				return setup_fail(ctx, g, d, "monsters: type, at "
				    "(a free floor hex)");
			f = place_monster(g, t, rank, q, r,
			    (int)refd_mpv_get_int(mv, "standee", 0), 0);
			if (f < 0)
				return setup_fail(ctx, g, d, "monsters: no free "
				    "standee");
			s->fig[f].hp = (int)refd_mpv_get_int(mv, "hp",
			    s->fig[f].hp);
			s->fig[f].conds = cond_mask(refd_mpv_get(mv, "conds"),
			    &bad);
			if (bad || s->fig[f].hp < 1)
				return setup_fail(ctx, g, d, "monsters: hp >= 1 "
				    "and known conditions");
		}
	}
	refd_mp_free(d);
	scenario_begin(g);
	rc = commit_zones(g, 0x7ff);
	if (rc == REFD_OK && g->err)
		rc = g->err;
	if (rc != REFD_OK) {
		H->free(ctx, g);
		return rc;
	}
	g->ctx = NULL;
	*out = g;
	return REFD_OK;
}

/* ----- commands ----- */

static int
parse_xy(refd_mpv a, int32_t *q, int32_t *r)
{
	int64_t x, y;

	if (refd_mpv_len(a) != 2 || refd_mpv_int(refd_mpv_at(a, 0), &x) ||
	    refd_mpv_int(refd_mpv_at(a, 1), &y) || x < -100 || x > 100 ||
	    y < -100 || y > 100)
		return -1;
	*q = (int32_t)x;
	*r = (int32_t)y;
	return 0;
}

/* 0 or 1 for a string that is one of two words, else -1. */
static int
one_of2(refd_mpv v, const char *w0, const char *w1)
{
	return refd_mpv_streq(v, w0) ? 0 : refd_mpv_streq(v, w1) ? 1 : -1;
}

/* 1 + the element named by member k of root, 0 if absent, -1 if bad. */
static int
elem_arg(refd_mpv root, const char *k)
{
	refd_mpv v = refd_mpv_get(root, k);
	int e;

	if (!refd_mpv_ok(v))
		return 0;
	for (e = 0; e < NELEM; e++)
		if (refd_mpv_streq(v, elem_name[e]))
			return e + 1;
	return -1;
}

/* The augment choice of a move or attack: 0, 1, or 2 + element. */
static int
aug_arg(refd_mpv root)
{
	int e = elem_arg(root, "element");

	if (!refd_mpv_get_bool(root, "consume", 0))
		return e == 0 ? 0 : -1;
	return e < 0 ? -1 : e == 0 ? 1 : 1 + e;
}

/* Parse a command into an option; -1: malformed. */
static int
parse_cmd(const struct game *g, int seat, refd_mpv root, struct opt *o)
{
	const struct cclass *cl = &g->c->cls[g->s.ch[seat].cls];
	refd_mpv t = refd_mpv_get(root, "type");
	int64_t x;

	memset(o, 0, sizeof(*o));
	if (refd_mpv_streq(t, "plan")) {
		o->kind = K_PLAN;
		o->a = card_index(cl, refd_mpv_get(root, "lead"));
		o->b = card_index(cl, refd_mpv_get(root, "second"));
		return o->a < 0 || o->b < 0 ? -2 : 0;
	}
	if (refd_mpv_streq(t, "rest")) {
		o->kind = K_REST;
		return 0;
	}
	if (refd_mpv_streq(t, "active_to_pile") || refd_mpv_streq(t, "lose") ||
	    refd_mpv_streq(t, "recover") || refd_mpv_streq(t, "hand_drop")) {
		o->kind = refd_mpv_streq(t, "lose") ? K_LRLOSE :
		    refd_mpv_streq(t, "hand_drop") ? K_DROP :
		    refd_mpv_streq(t, "recover") ? K_RECOVER : K_ACTIVE;
		o->a = card_index(cl, refd_mpv_get(root, "card"));
		return o->a < 0 ? -2 : 0;
	}
	if (refd_mpv_streq(t, "play")) {
		o->kind = K_PLAY;
		o->a = card_index(cl, refd_mpv_get(root, "card"));
		if ((o->b = one_of2(refd_mpv_get(root, "half"), "top",
		    "bottom")) < 0)
			return -1;
		o->c = refd_mpv_get_bool(root, "default", 0);
		o->q = elem_arg(root, "element");
		if (o->q < 0)
			return -1;
		return o->a < 0 ? -2 : 0;
	}
	if (refd_mpv_streq(t, "monster_choice") &&
	    refd_mpv_ok(refd_mpv_get(root, "path"))) {
		o->kind = K_AITIE;
		o->c = 3;
		if (refd_mpv_int(refd_mpv_get(root, "path"), &x) || x < 0 ||
		    x >= 16)
			return -1;
		o->a = (int32_t)x;
		return 0;
	}
	if (refd_mpv_streq(t, "monster_choice") &&
	    refd_mpv_ok(refd_mpv_get(root, "element"))) {
		o->kind = K_AITIE;
		o->c = 4;
		o->a = elem_arg(root, "element") - 1;
		return o->a < 0 ? -1 : 0;
	}
	if (refd_mpv_streq(t, "monster_choice") &&
	    refd_mpv_ok(refd_mpv_get(root, "target"))) {
		o->kind = K_AITIE;
		o->c = 1;
		if (refd_mpv_int(refd_mpv_get(root, "target"), &x) || x < 0 ||
		    x >= MAXFIG)
			return -1;
		o->a = (int32_t)x;
		return 0;
	}
	if (refd_mpv_streq(t, "start_hex")) {
		o->kind = K_START;
		return parse_xy(refd_mpv_get(root, "at"), &o->q, &o->r);
	}
	if (refd_mpv_streq(t, "move") || refd_mpv_streq(t, "summon") ||
	    refd_mpv_streq(t, "push") || refd_mpv_streq(t, "monster_choice")) {
		o->kind = refd_mpv_streq(t, "move") ? K_MOVE :
		    refd_mpv_streq(t, "push") ? K_PUSH :
		    refd_mpv_streq(t, "monster_choice") ? K_AITIE : K_SUMMON;
		if (o->kind == K_MOVE && (o->c = aug_arg(root)) < 0)
			return -1;
		return parse_xy(refd_mpv_get(root, "to"), &o->q, &o->r);
	}
	if (refd_mpv_streq(t, "attack")) {
		refd_mpv tg = refd_mpv_get(root, "targets");
		size_t i;

		if ((o->c = aug_arg(root)) < 0)
			return -1;
		if (refd_mpv_ok(refd_mpv_get(root, "at"))) {
			o->kind = K_AOE;
			if (refd_mpv_int(refd_mpv_get(root, "o"), &x) ||
			    x < -1000000000 || x > 1000000000)
				return -1;
			o->o = (int32_t)x;
			return parse_xy(refd_mpv_get(root, "at"), &o->q, &o->r);
		}
		o->kind = K_ATTACK;
		if (refd_mpv_type(tg) != REFD_MP_ARRAY || refd_mpv_len(tg) < 1 ||
		    refd_mpv_len(tg) > MAXTG)
			return -1;
		o->n = (int32_t)refd_mpv_len(tg);
		for (i = 0; i < refd_mpv_len(tg); i++) {
			if (refd_mpv_int(refd_mpv_at(tg, i), &x) || x < -1 ||
			    x > 1000)
				return -1;
			o->tg[i] = (int32_t)x;
		}
		return 0;
	}
	if (refd_mpv_streq(t, "heal") || refd_mpv_streq(t, "bless")) {
		o->kind = refd_mpv_streq(t, "heal") ? K_HEAL : K_BLESS;
		if (refd_mpv_int(refd_mpv_get(root, "target"), &x) ||
		    x < -1000000000 || x > 1000000000)
			return -1;
		o->a = (int32_t)x;
		return 0;
	}
	if (refd_mpv_streq(t, "order")) {
		refd_mpv ol = refd_mpv_get(root, "order");
		size_t i;

		o->kind = K_ORDER;
		if (refd_mpv_type(ol) != REFD_MP_ARRAY || refd_mpv_len(ol) < 2 ||
		    refd_mpv_len(ol) > 4)
			return -1;
		o->n = (int32_t)refd_mpv_len(ol);
		for (i = 0; i < refd_mpv_len(ol); i++) {
			if (refd_mpv_int(refd_mpv_at(ol, i), &x) || x < 0 ||
			    x > 3)
				return -1;
			o->tg[i] = (int32_t)x;
		}
		return 0;
	}
	if (refd_mpv_streq(t, "create_character")) {
		int k;

		o->kind = K_CREATE;
		o->a = -1;
		for (k = 0; k < g->c->nclass; k++)
			if (refd_mpv_streq(refd_mpv_get(root, "class"),
			    g->c->cls[k].name))
				o->a = k;
		if (refd_mpv_int(refd_mpv_get(root, "level"), &x) || x < -100 ||
		    x > 100)
			return -1;
		o->b = (int32_t)x;
		return 0;
	}
	if (refd_mpv_streq(t, "level_up") || refd_mpv_streq(t, "donate") ||
	    refd_mpv_streq(t, "end_campaign") ||
	    refd_mpv_streq(t, "city_event") || refd_mpv_streq(t, "retire")) {
		o->kind = refd_mpv_streq(t, "level_up") ? K_LEVELUP :
		    refd_mpv_streq(t, "donate") ? K_DONATE :
		    refd_mpv_streq(t, "retire") ? K_RETIRE :
		    refd_mpv_streq(t, "city_event") ? K_EVDRAW : K_ENDCAMP;
		return 0;
	}
	if (refd_mpv_streq(t, "item_reaction")) {
		o->kind = K_REACT;
		o->a = refd_mpv_get_bool(root, "use", 0);
		return 0;
	}
	if (refd_mpv_streq(t, "gain_card")) {
		o->kind = K_CARD;
		o->a = card_index(&g->c->cls[g->s.cc[seat].cls],
		    refd_mpv_get(root, "card"));
		return 0;
	}
	if (refd_mpv_streq(t, "perk")) {
		const struct cclass *pc = &g->c->cls[g->s.cc[seat].cls];
		int k;

		o->kind = K_PERK;
		o->a = -1;
		for (k = 0; k < pc->nperk; k++)
			if (refd_mpv_streq(refd_mpv_get(root, "perk"),
			    pc->perk[k].id))
				o->a = k;
		return 0;
	}
	if (refd_mpv_streq(t, "personal_quest")) {
		const struct cchar *cc = &g->s.cc[seat];
		int k;

		o->kind = K_PQ;
		o->a = -1;
		for (k = 0; k < 2; k++)
			if (cc->pq_offer[k] >= 0 && refd_mpv_streq(refd_mpv_get(
			    root, "quest"), g->c->pq[cc->pq_offer[k]].id))
				o->a = k;
		return 0;
	}
	if (refd_mpv_streq(t, "enhance")) {
		const struct cclass *ec = &g->c->cls[g->s.cc[seat].cls];
		int k;

		o->kind = K_ENHANCE;
		o->a = card_index(ec, refd_mpv_get(root, "card"));
		o->b = one_of2(refd_mpv_get(root, "half"), "top", "bottom");
		if (refd_mpv_int(refd_mpv_get(root, "slot"), &x) || x < 0 ||
		    x >= MAXSLOT)
			return -1;
		o->q = (int32_t)x;
		o->c = -1;
		for (k = 0; k < NSTICKER; k++)
			if (refd_mpv_streq(refd_mpv_get(root, "sticker"),
			    sticker_name[k]))
				o->c = k;
		return o->b < 0 ? -1 : 0;
	}
	if (refd_mpv_streq(t, "active_keep")) {
		o->kind = K_KEEP;
		return 0;
	}
	if (refd_mpv_streq(t, "town_done")) {
		o->kind = K_TOWNDONE;
		return 0;
	}
	if (refd_mpv_streq(t, "event_item")) {
		o->kind = K_EVITEM;
		if (refd_mpv_int(refd_mpv_get(root, "seat"), &x) || x < 0 ||
		    x >= MAXCH)
			return -1;
		o->a = (int32_t)x;
		return 0;
	}
	if (refd_mpv_streq(t, "event_gold")) {
		o->kind = K_EVGOLD;
		if (refd_mpv_int(refd_mpv_get(root, "seat"), &x) || x < 0 ||
		    x >= MAXCH)
			return -1;
		o->a = (int32_t)x;
		if (refd_mpv_int(refd_mpv_get(root, "gold"), &x) || x < 0 ||
		    x > 999)
			return -1;
		o->b = (int32_t)x;
		return 0;
	}
	if (refd_mpv_streq(t, "event_discard")) {
		o->kind = K_EVDISC;
		o->a = card_index(cl, refd_mpv_get(root, "card"));
		return o->a < 0 ? -2 : 0;
	}
	if (refd_mpv_streq(t, "event_choice")) {
		o->kind = K_EVCHOOSE;
		o->a = one_of2(refd_mpv_get(root, "option"), "A", "B");
		return o->a < 0 ? -1 : 0;
	}
	if (refd_mpv_streq(t, "buy") || refd_mpv_streq(t, "sell")) {
		int k;

		o->kind = refd_mpv_streq(t, "buy") ? K_BUY : K_SELL;
		o->a = -1;
		for (k = 0; k < g->c->nitem; k++)
			if (refd_mpv_streq(refd_mpv_get(root, "item"),
			    g->c->item[k].id))
				o->a = k;
		return 0;
	}
	if (refd_mpv_streq(t, "travel")) {
		int k;

		o->kind = K_TRAVEL;
		o->a = -1;
		for (k = 0; k < g->c->nmap; k++)
			if (refd_mpv_streq(refd_mpv_get(root, "scenario"),
			    g->c->map[k].name))
				o->a = k;
		o->b = refd_mpv_streq(refd_mpv_get(root, "mode"), "campaign");
		return refd_mpv_streq(refd_mpv_get(root, "mode"), "campaign") ||
		    refd_mpv_streq(refd_mpv_get(root, "mode"), "casual") ? 0 : -1;
	}
	if (refd_mpv_streq(t, "battle_goal")) {
		const struct chr *c = &g->s.ch[seat];
		int k;

		o->kind = K_GOAL;
		o->a = -1;
		for (k = 0; k < 2; k++)
			if (c->bg_dealt[k] >= 0 && refd_mpv_streq(refd_mpv_get(root,
			    "goal"), g->c->bg[c->bg_dealt[k]].id))
				o->a = k;
		return 0;
	}
	if (refd_mpv_streq(t, "use_item")) {
		const struct chr *c = &g->s.ch[seat];
		int k;

		o->kind = K_ITEM;
		for (k = 0; k < c->nitem; k++)
			if (refd_mpv_streq(refd_mpv_get(root, "item"),
			    g->c->item[c->item[k]].id))
				break;
		o->a = k;
		return k == c->nitem ? -3 : 0;
	}
	if (refd_mpv_streq(t, "perform")) {
		o->kind = K_PERFORM;
		return 0;
	}
	if (refd_mpv_streq(t, "skip")) {
		o->kind = K_SKIP;
		return 0;
	}
	if (refd_mpv_streq(t, "damage")) {
		refd_mpv ds = refd_mpv_get(root, "discard");

		if (refd_mpv_get_bool(root, "take", 0)) {
			o->kind = K_TAKE;
			return 0;
		}
		if (refd_mpv_ok(refd_mpv_get(root, "hand"))) {
			o->kind = K_LOSEHAND;
			o->a = card_index(cl, refd_mpv_get(root, "hand"));
			return o->a < 0 ? -2 : 0;
		}
		if (refd_mpv_len(ds) == 2) {
			o->kind = K_LOSEDISC;
			o->a = card_index(cl, refd_mpv_at(ds, 0));
			o->b = card_index(cl, refd_mpv_at(ds, 1));
			if (o->a > o->b) {
				int tmp = o->a;

				o->a = o->b;
				o->b = tmp;
			}
			return o->a < 0 || o->b < 0 || o->a == o->b ? -2 : 0;
		}
		return -1;
	}
	if (refd_mpv_streq(t, "short_rest")) {
		o->kind = K_SRACCEPT;
		o->a = refd_mpv_get_bool(root, "accept", 0);
		return 0;
	}
	if (refd_mpv_streq(t, "short_rest_keep")) {
		o->kind = K_SRKEEP;
		o->a = refd_mpv_get_bool(root, "reroll", 0);
		return 0;
	}
	return -1;
}

static void
write_opt(const struct game *g, int seat, const struct opt *o, refd_mpw *w,
    char *label, size_t ln)
{
	const struct cclass *cl = &g->c->cls[g->s.ch[seat].cls];
	char nm[48];
	int i;

	refd_mpw_kmap(w, "cmd");
	switch (o->kind) {
	case K_PLAN:
		refd_mpw_kstr(w, "type", "plan");
		refd_mpw_kstr(w, "lead", cl->card[o->a].id);
		refd_mpw_kstr(w, "second", cl->card[o->b].id);
		snprintf(label, ln, "Play %s (initiative %d) leading, with %s",
		    cl->card[o->a].name, (int)cl->card[o->a].init,
		    cl->card[o->b].name);
		break;
	case K_REST:
		refd_mpw_kstr(w, "type", "rest");
		snprintf(label, ln, "Long rest (initiative 99)");
		break;
	case K_ACTIVE:
		refd_mpw_kstr(w, "type", "active_to_pile");
		refd_mpw_kstr(w, "card", cl->card[o->a].id);
		snprintf(label, ln, "Move %s out of your active area",
		    cl->card[o->a].name);
		break;
	case K_START:
		refd_mpw_kstr(w, "type", "start_hex");
		refd_mpw_karray(w, "at");
		refd_mpw_int(w, o->q);
		refd_mpw_int(w, o->r);
		refd_mpw_end(w);
		snprintf(label, ln, "Start on (%d,%d)", (int)o->q, (int)o->r);
		break;
	case K_REACT:
		refd_mpw_kstr(w, "type", "item_reaction");
		refd_mpw_kbool(w, "use", o->a);
		snprintf(label, ln, o->a ? "Use your Chain Coat: Shield 2 "
		    "against this attack" : "Do not use an item");
		break;
	case K_DROP:
		refd_mpw_kstr(w, "type", "hand_drop");
		refd_mpw_kstr(w, "card", cl->card[o->a].id);
		snprintf(label, ln, "Leave %s out of your hand",
		    cl->card[o->a].name);
		break;
	case K_CARD:
		refd_mpw_kstr(w, "type", "gain_card");
		refd_mpw_kstr(w, "card",
		    g->c->cls[g->s.cc[seat].cls].card[o->a].id);
		snprintf(label, ln, "Add %s to your cards",
		    g->c->cls[g->s.cc[seat].cls].card[o->a].name);
		break;
	case K_LRLOSE:
		refd_mpw_kstr(w, "type", "lose");
		refd_mpw_kstr(w, "card", cl->card[o->a].id);
		snprintf(label, ln, "Long rest: lose %s", cl->card[o->a].name);
		break;
	case K_RECOVER:
		refd_mpw_kstr(w, "type", "recover");
		refd_mpw_kstr(w, "card", cl->card[o->a].id);
		snprintf(label, ln, "Recover %s", cl->card[o->a].name);
		break;
	case K_PLAY:
		refd_mpw_kstr(w, "type", "play");
		refd_mpw_kstr(w, "card", cl->card[o->a].id);
		refd_mpw_kstr(w, "half", o->b ? "bottom" : "top");
		if (o->c)
			refd_mpw_kbool(w, "default", 1);
		if (o->q > 0)
			refd_mpw_kstr(w, "element", elem_name[o->q - 1]);
		snprintf(label, ln, "%s: %s half%s%s%s", cl->card[o->a].name,
		    o->b ? "bottom" : "top", o->c ? (o->b ? " as Move 2" :
		    " as Attack 2") : "", o->q > 0 ? ", infusing " : "",
		    o->q > 0 ? elem_name[o->q - 1] : "");
		break;
	case K_AITIE:
		if (o->c == 1) {
			refd_mpw_kstr(w, "type", "monster_choice");
			refd_mpw_kint(w, "target", o->a);
			snprintf(label, ln, "The monster heals %s", fig_name(g,
			    o->a, nm, sizeof(nm)));
			break;
		}
		if (o->c == 3) {
			refd_mpw_kstr(w, "type", "monster_choice");
			refd_mpw_kint(w, "path", o->a);
			snprintf(label, ln, "The monster takes path %d of the "
			    "monster_tie event%s", (int)o->a, o->a == 0 ?
			    " (default)" : "");
			break;
		}
		if (o->c == 4) {
			refd_mpw_kstr(w, "type", "monster_choice");
			refd_mpw_kstr(w, "element", elem_name[o->a]);
			snprintf(label, ln, "The monster's wild element is %s%s",
			    elem_name[o->a], g->s.ai_n > 0 && g->s.ai_hex[0] ==
			    o->a ? " (default)" : "");
			break;
		}
		/* FALLTHROUGH */
	case K_MOVE:
	case K_SUMMON:
	case K_PUSH:
		refd_mpw_kstr(w, "type", o->kind == K_MOVE ? "move" :
		    o->kind == K_PUSH ? "push" : o->kind == K_AITIE ?
		    "monster_choice" : "summon");
		refd_mpw_karray(w, "to");
		refd_mpw_int(w, o->q);
		refd_mpw_int(w, o->r);
		refd_mpw_end(w);
		snprintf(label, ln, "%s to (%d,%d)", o->kind == K_MOVE ? "Move" :
		    o->kind == K_PUSH ? "Push/pull a step" : o->kind == K_AITIE ?
		    "The monster moves" : "Summon",
		    (int)o->q, (int)o->r);
		break;
	case K_ATTACK:
		refd_mpw_kstr(w, "type", "attack");
		refd_mpw_karray(w, "targets");
		for (i = 0; i < o->n; i++)
			refd_mpw_int(w, o->tg[i]);
		refd_mpw_end(w);
		snprintf(label, ln, "Attack %s%s", fig_name(g, o->tg[0], nm,
		    sizeof(nm)), o->n > 1 ? " and more" : "");
		break;
	case K_AOE:
		refd_mpw_kstr(w, "type", "attack");
		refd_mpw_karray(w, "at");
		refd_mpw_int(w, o->q);
		refd_mpw_int(w, o->r);
		refd_mpw_end(w);
		refd_mpw_kint(w, "o", o->o);
		snprintf(label, ln, "Area attack at (%d,%d), orientation %d",
		    (int)o->q, (int)o->r, (int)o->o);
		break;
	case K_HEAL:
	case K_BLESS:
		refd_mpw_kstr(w, "type", o->kind == K_HEAL ? "heal" : "bless");
		refd_mpw_kint(w, "target", o->a);
		snprintf(label, ln, "%s %s", o->kind == K_HEAL ? "Heal" : "Bless",
		    fig_name(g, o->a, nm, sizeof(nm)));
		break;
	case K_CREATE:
		refd_mpw_kstr(w, "type", "create_character");
		refd_mpw_kstr(w, "class", g->c->cls[o->a].name);
		refd_mpw_kint(w, "level", o->b);
		snprintf(label, ln, "Create a level %d %s", (int)o->b,
		    g->c->cls[o->a].name);
		break;
	case K_LEVELUP:
		refd_mpw_kstr(w, "type", "level_up");
		snprintf(label, ln, "Level up");
		break;
	case K_DONATE:
		refd_mpw_kstr(w, "type", "donate");
		snprintf(label, ln, "Donate 10 gold to the sanctuary");
		break;
	case K_ENHANCE: {
		const struct cclass *ec = &g->c->cls[g->s.cc[seat].cls];

		refd_mpw_kstr(w, "type", "enhance");
		refd_mpw_kstr(w, "card", ec->card[o->a].id);
		refd_mpw_kstr(w, "half", o->b ? "bottom" : "top");
		refd_mpw_kint(w, "slot", o->q);
		refd_mpw_kstr(w, "sticker", sticker_name[o->c]);
		snprintf(label, ln, "Enhance %s (%s, slot %d) with %s",
		    ec->card[o->a].name, o->b ? "bottom" : "top", (int)o->q,
		    sticker_name[o->c]);
		break;
	}
	case K_PQ:
		refd_mpw_kstr(w, "type", "personal_quest");
		refd_mpw_kstr(w, "quest",
		    g->c->pq[g->s.cc[seat].pq_offer[o->a]].id);
		snprintf(label, ln, "Keep personal quest %s",
		    g->c->pq[g->s.cc[seat].pq_offer[o->a]].name);
		break;
	case K_PERK:
		refd_mpw_kstr(w, "type", "perk");
		refd_mpw_kstr(w, "perk",
		    g->c->cls[g->s.cc[seat].cls].perk[o->a].id);
		snprintf(label, ln, "Take perk %s",
		    g->c->cls[g->s.cc[seat].cls].perk[o->a].id);
		break;
	case K_RETIRE:
		refd_mpw_kstr(w, "type", "retire");
		snprintf(label, ln, "Retire (personal quest complete)");
		break;
	case K_EVDRAW:
		refd_mpw_kstr(w, "type", "city_event");
		snprintf(label, ln, "Draw a city event");
		break;
	case K_KEEP:
		refd_mpw_kstr(w, "type", "active_keep");
		snprintf(label, ln, "Keep your active cards: go on to the "
		    "round plans");
		break;
	case K_TOWNDONE:
		refd_mpw_kstr(w, "type", "town_done");
		snprintf(label, ln, "Done in town: the next seat's turn");
		break;
	case K_EVGOLD:
		refd_mpw_kstr(w, "type", "event_gold");
		refd_mpw_kint(w, "seat", o->a);
		refd_mpw_kint(w, "gold", o->b);
		snprintf(label, ln, "Give %d of the %d collective gold to seat "
		    "%d%s", (int)o->b, (int)g->s.ev_split, (int)o->a,
		    o->b == g->s.ev_split / (g->s.nch - g->s.ev_k) +
		    (g->s.ev_split % (g->s.nch - g->s.ev_k) > 0) ?
		    " (default: an even split)" : "");
		break;
	case K_EVITEM:
		refd_mpw_kstr(w, "type", "event_item");
		refd_mpw_kint(w, "seat", o->a);
		snprintf(label, ln, "Give the event's %s to seat %d%s",
		    g->c->item[g->s.ev_item - 1].name, (int)o->a, o->a == 0 ?
		    " (default)" : "");
		break;
	case K_EVDISC:
		refd_mpw_kstr(w, "type", "event_discard");
		refd_mpw_kstr(w, "card", cl->card[o->a].id);
		snprintf(label, ln, "Discard %s (event penalty)",
		    cl->card[o->a].name);
		break;
	case K_EVCHOOSE:
		refd_mpw_kstr(w, "type", "event_choice");
		refd_mpw_kstr(w, "option", o->a ? "B" : "A");
		snprintf(label, ln, "Choose option %s", o->a ? "B" : "A");
		break;
	case K_ENDCAMP:
		refd_mpw_kstr(w, "type", "end_campaign");
		snprintf(label, ln, "End the campaign");
		break;
	case K_BUY:
	case K_SELL:
		refd_mpw_kstr(w, "type", o->kind == K_BUY ? "buy" : "sell");
		refd_mpw_kstr(w, "item", g->c->item[o->a].id);
		snprintf(label, ln, "%s %s for %d gold", o->kind == K_BUY ?
		    "Buy" : "Sell", g->c->item[o->a].name, o->kind == K_BUY ?
		    price_of(g, o->a) : (int)g->c->item[o->a].cost / 2);
		break;
	case K_TRAVEL:
		refd_mpw_kstr(w, "type", "travel");
		refd_mpw_kstr(w, "scenario", g->c->map[o->a].name);
		refd_mpw_kstr(w, "mode", o->b ? "campaign" : "casual");
		snprintf(label, ln, "Travel to %s (%s)", g->c->map[o->a].name,
		    o->b ? "campaign" : "casual");
		break;
	case K_GOAL:
		refd_mpw_kstr(w, "type", "battle_goal");
		refd_mpw_kstr(w, "goal",
		    g->c->bg[g->s.ch[seat].bg_dealt[o->a]].id);
		snprintf(label, ln, "Keep battle goal %s",
		    g->c->bg[g->s.ch[seat].bg_dealt[o->a]].name);
		break;
	case K_ORDER:
		refd_mpw_kstr(w, "type", "order");
		refd_mpw_karray(w, "order");
		for (i = 0; i < o->n; i++)
			refd_mpw_int(w, o->tg[i]);
		refd_mpw_end(w);
		snprintf(label, ln, "Settle the initiative tie: tied unit %d "
		    "acts first", (int)o->tg[0]);
		break;
	case K_ITEM:
		refd_mpw_kstr(w, "type", "use_item");
		refd_mpw_kstr(w, "item",
		    g->c->item[g->s.ch[seat].item[o->a]].id);
		snprintf(label, ln, "Use %s",
		    g->c->item[g->s.ch[seat].item[o->a]].name);
		break;
	case K_PERFORM:
		refd_mpw_kstr(w, "type", "perform");
		snprintf(label, ln, "Perform the ability");
		break;
	case K_SKIP:
		refd_mpw_kstr(w, "type", "skip");
		snprintf(label, ln, "Skip the ability");
		break;
	case K_TAKE:
		refd_mpw_kstr(w, "type", "damage");
		refd_mpw_kbool(w, "take", 1);
		snprintf(label, ln, "Take the damage");
		break;
	case K_LOSEHAND:
		refd_mpw_kstr(w, "type", "damage");
		refd_mpw_kstr(w, "hand", cl->card[o->a].id);
		snprintf(label, ln, "Lose %s from your hand instead",
		    cl->card[o->a].name);
		break;
	case K_LOSEDISC:
		refd_mpw_kstr(w, "type", "damage");
		refd_mpw_karray(w, "discard");
		refd_mpw_str(w, cl->card[o->a].id);
		refd_mpw_str(w, cl->card[o->b].id);
		refd_mpw_end(w);
		snprintf(label, ln, "Lose %s and %s from your discard instead",
		    cl->card[o->a].name, cl->card[o->b].name);
		break;
	case K_SRACCEPT:
		refd_mpw_kstr(w, "type", "short_rest");
		refd_mpw_kbool(w, "accept", o->a);
		snprintf(label, ln, o->a ? "Short rest" : "No short rest");
		break;
	case K_SRKEEP:
		refd_mpw_kstr(w, "type", "short_rest_keep");
		refd_mpw_kbool(w, "reroll", o->a);
		snprintf(label, ln, o->a ? "Suffer 1 damage to keep the card" :
		    "Lose the card");
		break;
	}
	if ((o->kind == K_MOVE || o->kind == K_ATTACK || o->kind == K_AOE) &&
	    o->c > 0) {
		size_t l = strlen(label);

		refd_mpw_kbool(w, "consume", 1);
		if (o->c >= 2)
			refd_mpw_kstr(w, "element", elem_name[o->c - 2]);
		snprintf(label + l, ln - l, ", consuming %s", o->c >= 2 ?
		    elem_name[o->c - 2] : "its element");
	}
	refd_mpw_end(w);
}

static int
same(const struct opt *a, const struct opt *b)
{
	int i;

	if (a->kind != b->kind || a->a != b->a || a->b != b->b ||
	    a->c != b->c || a->q != b->q || a->r != b->r || a->o != b->o ||
	    a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++)
		if (a->tg[i] != b->tg[i])
			return 0;
	return 1;
}

static uint64_t
pending_mask(const struct game *g)
{
	struct opt tmp[1];
	uint64_t m = 0;
	int i;

	for (i = 0; i < g->s.nch; i++)
		if (options(g, i, tmp, 1) > 0)
			m |= (uint64_t)1 << i;
	return m;
}

/* Why o is refused: a code, rule and sentence. */
static int
refuse(struct game *g, int seat, const struct opt *o, const struct opt *list,
    int n)
{
	const struct dg *s = &g->s;
	char msg[200];
	int i, kinds = 0;

	for (i = 0; i < n; i++)
		kinds |= list[i].kind == o->kind;
	if (s->atk.active && s->atk.react && s->atk.react_seat == seat &&
	    o->kind != K_REACT)
		return H->reject(g->ctx, REFD_EPHASE, "R002-25",
		    "you are attacked: first say whether you use your item");
	if (s->ndq > 0 && s->dq[0].ci == seat && o->kind != K_TAKE &&
	    o->kind != K_LOSEHAND && o->kind != K_LOSEDISC && o->kind != K_ITEM)
		return H->reject(g->ctx, REFD_EPHASE, "R002-48",
		    "answer the damage prompt first (take, hand or discard)");
	if (s->phase == PH_TOWN && camp_owes_levelup(g, seat) &&
	    o->kind != K_LEVELUP && o->kind != K_TRAVEL && o->kind != K_CARD &&
	    o->kind != K_PERK)
		return H->reject(g->ctx, REFD_EPHASE, "R002-78",
		    "a level-up, its card or a perk is owed first");
	if (!kinds && s->phase == PH_TURN && s->ct == CT_ABILITY &&
	    s->ord[s->cur].kind == O_CHAR && s->ord[s->cur].idx == seat) {
		struct ability tmp;
		const struct ability *a = cur_ability(g, seat, &tmp);
		int k = a == NULL ? -1 : a->kind;

		/* the right command for this ability, with no legal value */
		kinds = ((o->kind == K_ATTACK || o->kind == K_AOE) &&
		    k == A_ATTACK) || (o->kind == K_MOVE && k == A_MOVE) ||
		    (o->kind == K_HEAL && k == A_HEAL) ||
		    (o->kind == K_BLESS && k == A_BLESS);
	}
	if (kinds && o->kind == K_EVGOLD) {
		snprintf(msg, sizeof(msg), "give seat %d between 0 and the %d "
		    "collective gold left", (int)s->ev_k, (int)s->ev_split);
		return H->reject(g->ctx, REFD_EILLEGAL, "R002-84", msg);
	}
	if (kinds && o->kind == K_EVITEM)
		return H->reject(g->ctx, REFD_EILLEGAL, "R002-84",
		    "the event's item goes to a member who does not own one");
	if (kinds && o->kind == K_EVDISC)
		return H->reject(g->ctx, REFD_EILLEGAL, "R002-84",
		    "the event's discard takes a card of your hand");
	if (!kinds && s->phase != PH_TOWN) {
		switch (o->kind) {
		case K_PLAN:
			if (s->phase == PH_PLAN)
				return H->reject(g->ctx, REFD_EILLEGAL, "R002-12",
				    "you need two cards in hand to play two "
				    "cards: long rest");
			break;
		case K_REST:
			if (s->phase == PH_PLAN)
				return H->reject(g->ctx, REFD_EILLEGAL, "R002-12",
				    "a long rest needs at least two cards in "
				    "your discard pile");
			break;
		case K_SKIP:
			return H->reject(g->ctx, REFD_EILLEGAL, "R002-21",
			    "this ability cannot be skipped now");
		case K_ITEM:
			return H->reject(g->ctx, REFD_EILLEGAL, "R002-25",
			    "that item cannot be used now (spent, consumed, "
			    "stunned, not your turn, or its condition does not "
			    "hold)");
		default:
			break;
		}
		snprintf(msg, sizeof(msg), "that is not a decision you owe now "
		    "(round %d)", (int)s->round);
		return H->reject(g->ctx, REFD_EPHASE, "R002-13", msg);
	}
	switch (o->kind) {
	case K_PLAN:
		if (o->a == o->b)
			return H->reject(g->ctx, REFD_EILLEGAL, "R002-13",
			    "the two cards must differ");
		return H->reject(g->ctx, REFD_EILLEGAL, "R002-13",
		    "both cards must be in your hand");
	case K_LRLOSE:
		return H->reject(g->ctx, REFD_EILLEGAL, "R002-18",
		    "the card you lose in a long rest must be in your discard "
		    "pile");
	case K_RECOVER:
		return H->reject(g->ctx, REFD_EILLEGAL, "R002-72",
		    "that card is not in your lost pile or cannot be recovered");
	case K_PLAY:
		if (o->q == 0 && !o->c && !(s->ch[seat].halves >> o->b & 1) &&
		    (o->a == s->ch[seat].ca || o->a == s->ch[seat].cb))
			return H->reject(g->ctx, REFD_EILLEGAL, "R002-46",
			    "this half infuses an element of your choice: name "
			    "it with \"element\"");
		if (s->ch[seat].halves >> o->b & 1)
			return H->reject(g->ctx, REFD_EILLEGAL, "R002-20",
			    "you already performed that half: play the other "
			    "half (top of one card, bottom of the other)");
		return H->reject(g->ctx, REFD_EILLEGAL, "R002-20",
		    "that card is not one of your two unplayed cards this "
		    "round");
	case K_MOVE:
		snprintf(msg, sizeof(msg), "(%d,%d) cannot be reached with this "
		    "move (costs, blocking figures and obstacles, a free end "
		    "hex)", (int)o->q, (int)o->r);
		return H->reject(g->ctx, REFD_ENOPATH, "R002-05", msg);
	case K_ATTACK: {
		struct ability tmp;
		const struct ability *a = cur_ability(g, seat, &tmp);
		const char *why = "it cannot be attacked";
		char nm[48];
		int k, j;

		for (k = 0; k < o->n; k++)
			for (j = 0; j < k; j++)
				if (o->tg[j] == o->tg[k])
					return H->reject(g->ctx, REFD_ENOTARGET,
					    "R002-27", "one attack can never "
					    "target the same enemy twice");
		if (a != NULL && o->n > a->target) {
			snprintf(msg, sizeof(msg), "this attack has at most %d "
			    "target(s)", (int)a->target);
			return H->reject(g->ctx, REFD_ENOTARGET, "R002-27", msg);
		}
		for (k = 0; k < o->n && a != NULL; k++)
			if (!can_target(g, s->ch[seat].fig, a, o->tg[k], &why))
				break;
		if (k < o->n && o->tg[k] >= 0 && o->tg[k] < s->nfig) {
			snprintf(msg, sizeof(msg), "%s cannot be targeted: %s",
			    fig_name(g, o->tg[k], nm, sizeof(nm)), why);
			return H->reject(g->ctx, REFD_ENOTARGET, "R002-27", msg);
		}
		return H->reject(g->ctx, REFD_ENOTARGET, "R002-27",
		    "no such target figure");
	}
	case K_AOE:
		return H->reject(g->ctx, REFD_ENOTARGET, "R002-08",
		    "no hex of this area placement is within range");
	case K_HEAL:
	case K_BLESS:
		return H->reject(g->ctx, REFD_ENOTARGET, "R002-71",
		    "the target must be you or an ally in range and line of "
		    "sight");
	case K_PUSH:
		return H->reject(g->ctx, REFD_EILLEGAL, "R002-64",
		    "each push step must take the target farther away (a pull "
		    "closer) through a free hex");
	case K_LOSEHAND:
		return H->reject(g->ctx, REFD_EILLEGAL, "R002-48",
		    "you may lose a card from your hand, but not one of the two "
		    "selected cards still to play");
	case K_LOSEDISC:
		return H->reject(g->ctx, REFD_EILLEGAL, "R002-48",
		    "both cards must be in your discard pile");
	case K_ACTIVE:
		return H->reject(g->ctx, REFD_EILLEGAL, "R002-26",
		    "that card is not in your active area");
	case K_ITEM:
		return H->reject(g->ctx, REFD_EILLEGAL, "R002-25",
		    "that item cannot be used now (spent, consumed, stunned, "
		    "or its condition does not hold)");
	case K_ORDER:
		return H->reject(g->ctx, REFD_EILLEGAL, "R002-74",
		    "the order must list every tied unit once");
	case K_GOAL:
		return H->reject(g->ctx, REFD_EILLEGAL, "R002-75",
		    "keep one of the two battle goals dealt to you");
	case K_CREATE:
		return H->reject(g->ctx, REFD_EILLEGAL, "R002-77",
		    "create a character of an unlocked class nobody in the "
		    "party plays, at a level from 1 to the prosperity level");
	case K_LEVELUP:
		return H->reject(g->ctx, REFD_EILLEGAL, "R002-78",
		    "a level-up needs the next level's XP, or a level below the "
		    "prosperity level");
	case K_BUY:
		return H->reject(g->ctx, REFD_EILLEGAL, "R002-80",
		    "you cannot buy that: no copy in the supply, not enough "
		    "gold, or you already own one");
	case K_SELL:
		return H->reject(g->ctx, REFD_EILLEGAL, "R002-80",
		    "you do not own that item");
	case K_DONATE:
		return H->reject(g->ctx, REFD_EILLEGAL, "R002-82",
		    "one donation of 10 gold per character per town visit");
	case K_AITIE:
		return H->reject(g->ctx, REFD_EILLEGAL, "R002-74",
		    "pick one of the options the monster_tie event lists");
	case K_START:
		return H->reject(g->ctx, REFD_EILLEGAL, "R002-09",
		    "choose a free start hex of the first room");
	case K_DROP:
		return H->reject(g->ctx, REFD_EILLEGAL, "R002-09",
		    "that card is not among those you hold");
	case K_CARD:
		return H->reject(g->ctx, REFD_EILLEGAL, "R002-78",
		    "gain a card of your class not yet yours, of level 2 up to "
		    "your level");
	case K_PERK:
		return H->reject(g->ctx, REFD_EILLEGAL, "R002-79",
		    "no perk is owed, or that perk is taken as often as it "
		    "may be");
	case K_PQ:
		return H->reject(g->ctx, REFD_EILLEGAL, "R002-77",
		    "keep one of the two personal quests you drew");
	case K_RETIRE:
		return H->reject(g->ctx, REFD_EILLEGAL, "R002-83",
		    "only a character whose personal quest is complete retires");
	case K_ENHANCE:
		return H->reject(g->ctx, REFD_EILLEGAL, "R002-81",
		    "enhancing needs The Power of Enhancement, a free slot of "
		    "that half that takes this sticker, enhanced cards within "
		    "the prosperity level, and the gold");
	case K_EVDRAW:
	case K_EVCHOOSE:
		return H->reject(g->ctx, REFD_EILLEGAL, "R002-84",
		    "one city event per town visit, after a campaign-mode "
		    "scenario; a drawn event must be answered A or B first");
	case K_TRAVEL:
		return H->reject(g->ctx, REFD_EILLEGAL, "R002-87",
		    "that scenario is locked, already completed in campaign "
		    "mode, needs an achievement, or a level-up is still owed");
	default:
		if (s->phase == PH_TOWN)
			return H->reject(g->ctx, REFD_EPHASE, "R002-13",
			    "that is not a town activity you may do now");
		return H->reject(g->ctx, REFD_EILLEGAL, "R002-74",
		    "that choice is not one of the legal options");
	}
}

static int
p_apply(refd_ctx *ctx, void *state, uint32_t seat, const uint8_t *cmd,
    size_t len)
{
	struct game *g = state;
	refd_mpdoc *d = refd_mp_parse(cmd, len);
	refd_mpv root = refd_mp_root(d);
	struct opt *list, o;
	int n, i, rc;
	char msg[160];

	g->ctx = ctx;
	g->err = 0;
	g->dirty = 0;
	if (d == NULL || refd_mpv_type(root) != REFD_MP_MAP ||
	    refd_mpv_type(refd_mpv_get(root, "type")) != REFD_MP_STR) {
		refd_mp_free(d);
		return H->reject(ctx, REFD_EBADCMD, NULL,
		    "a command is a map with a \"type\"");
	}
	if (g->s.over) {
		refd_mp_free(d);
		return H->reject(ctx, REFD_EFINISHED, "R002-69",
		    "the scenario is over");
	}
	if ((int)seat >= g->s.nch) {
		refd_mp_free(d);
		return H->reject(ctx, REFD_ESEAT, NULL, "no such seat");
	}
	rc = parse_cmd(g, (int)seat, root, &o);
	refd_mp_free(d);
	if (rc == -1)
		return H->reject(ctx, REFD_EBADCMD, NULL, "unknown command or "
		    "malformed arguments (see the ruleset's command list)");
	if (rc == -2)
		return H->reject(ctx, REFD_EILLEGAL, "R002-13",
		    "no such card in your class");
	if (rc == -3)
		return H->reject(ctx, REFD_EILLEGAL, "R002-25",
		    "you have no such item equipped");
	list = H->alloc(ctx, MAXOPT * sizeof(*list));
	if (list == NULL)
		return REFD_ENOMEM;
	n = options(g, (int)seat, list, MAXOPT);
	if (n == 0) {
		uint64_t p = pending_mask(g);

		H->free(ctx, list);
		snprintf(msg, sizeof(msg), "you owe no decision now; waiting "
		    "for seat(s) with mask %llu", (unsigned long long)p);
		return H->reject(ctx, REFD_ENOTYOURTURN, "R002-14", msg);
	}
	for (i = 0; i < n; i++)
		if (same(&o, &list[i]))
			break;
	if (i == n) {
		rc = refuse(g, (int)seat, &o, list, n);
		H->free(ctx, list);
		return rc;
	}
	o = list[i];
	H->free(ctx, list);
	perform(g, (int)seat, &o);
	dg_advance(g);
	if (g->err)
		return g->err;
	rc = commit_zones(g, g->dirty);
	g->ctx = NULL;
	return rc;
}

static int
p_legal(refd_ctx *ctx, const void *state, uint32_t seat)
{
	const struct game *g = state;
	struct opt *list = H->alloc(ctx, MAXOPT * sizeof(*list));
	refd_mpw *w;
	char label[160];
	int n, i;

	if (list == NULL)
		return REFD_ENOMEM;
	w = refd_mpw_create();
	n = (int)seat < g->s.nch ? options(g, (int)seat, list, MAXOPT) : 0;
	refd_mpw_array(w);
	for (i = 0; i < n; i++) {
		refd_mpw_map(w);
		write_opt(g, (int)seat, &list[i], w, label, sizeof(label));
		refd_mpw_kstr(w, "label", label);
		refd_mpw_end(w);
	}
	refd_mpw_end(w);
	H->free(ctx, list);
	return put(ctx, w);
}

static int
p_pending(refd_ctx *ctx, const void *state, uint64_t *seats)
{
	(void)ctx;
	*seats = pending_mask(state);
	return REFD_OK;
}

static void
card_ids(refd_mpw *w, const char *k, const struct cclass *cl, int mask)
{
	int i;

	refd_mpw_karray(w, k);
	for (i = 0; i < cl->ncards; i++)
		if (mask >> i & 1)
			refd_mpw_str(w, cl->card[i].id);
	refd_mpw_end(w);
}

static void
deck_view(refd_mpw *w, const char *k, const struct deck *d)
{
	int i, bl = 0, cu = 0;

	refd_mpw_kmap(w, k);
	refd_mpw_kint(w, "draw", d->n);
	for (i = 0; i < d->n; i++) {
		bl += d->c[i] == M_BLESS;
		cu += d->c[i] == M_MCURSE || d->c[i] == M_PCURSE;
	}
	refd_mpw_kint(w, "bless", bl);
	refd_mpw_kint(w, "curse", cu);
	refd_mpw_karray(w, "discard");
	for (i = 0; i < d->nd; i++)
		refd_mpw_str(w, modc[d->d[i]].name);
	refd_mpw_end(w);
	refd_mpw_end(w);
}

/* The board a viewer draws (refd-plugin(3), BOARD): revealed rooms. */
static void
view_board(refd_mpw *w, const struct game *g)
{
	static const char *const ovn[] = { "", "trap", "hazard",
		"difficult", "obstacle", "plate", "treasure" };
	const struct dg *s = &g->s;
	char t[48], nm[48];
	int i, k, act = -1;

	refd_board_begin(w, REFD_BOARD_HEX, 0, 0);
	refd_board_cells(w);
	for (i = 0; i < s->nhex; i++) {
		const struct hexs *h = &s->hex[i];
		int vis = visible_hex(s, i);

		if (!vis && !h->door)
			continue;	/* an unrevealed room stays unknown */
		if (h->door)
			snprintf(t, sizeof(t), "door %s", h->door == DOOR_OPEN ?
			    "open" : h->door == DOOR_LOCKED ? "locked" :
			    "closed");
		else
			snprintf(t, sizeof(t), "floor%s%s", h->ov ? " " : "",
			    ovn[h->ov]);
		refd_board_cell(w, h->q, h->r, t);
	}
	refd_mpw_end(w);
	refd_board_marks(w);
	for (i = 0; i < s->nhex; i++)
		if (s->hex[i].money && visible_hex(s, i)) {
			snprintf(t, sizeof(t), "coin %d", s->hex[i].money);
			refd_board_mark(w, s->hex[i].q, s->hex[i].r, t);
		}
	refd_mpw_end(w);
	if (s->phase == PH_TURN && s->cur >= 0 && s->cur < s->nord) {
		const struct ordent *e = &s->ord[s->cur];

		if (s->mt_active)
			act = s->mt_fig;
		else if (e->kind == O_CHAR && e->idx >= 0 && e->idx < s->nch)
			act = s->ch[e->idx].fig;
	}
	refd_board_pieces(w);
	for (i = 0; i < s->nfig; i++) {
		const struct fig *x = &s->fig[i];
		struct refd_board_piece p;

		if (!x->alive || x->kind == F_OBSTACLE)
			continue;
		p = refd_board_piece_init(i, fig_name(g, i, nm, sizeof(nm)),
		    x->kind == F_MONSTER ? -1 : x->owner, x->q, x->r);
		p.hp = x->hp;
		p.hp_max = x->maxhp;
		if (x->kind == F_MONSTER)
			p.rank = x->rank == 1 ? "elite" : x->rank == 2 ? "boss" :
			    "normal";
		else
			p.role = x->kind == F_CHAR ? "character" : "summon";
		refd_board_piece(w, &p);
		for (k = 0; k < NCOND; k++)
			if (x->conds >> k & 1)
				refd_mpw_str(w, cond_name[k]);
		refd_board_piece_end(w);
	}
	refd_mpw_end(w);
	if (act >= 0)
		refd_mpw_kint(w, "active", act);
	refd_board_info(w);
	refd_mpw_kint(w, "round", s->round);
	for (i = 0; i < NELEM; i++)
		if (s->elem[i])
			refd_mpw_kstr(w, elem_name[i], s->elem[i] == 2 ?
			    "strong" : "waning");
	refd_mpw_end(w);
	refd_board_end(w);
}

static int
p_view(refd_ctx *ctx, const void *state, int32_t seat)
{
	const struct game *g = state;
	const struct dg *s = &g->s;
	refd_mpw *w = refd_mpw_create();
	static const char *const phases[] = { "", "plan", "turns",
		"short_rest", "over", "town", "battle_goals", "set_up" };
	static const char *const ovn[] = { "", "trap", "hazard", "difficult",
		"obstacle", "plate", "treasure" };
	char key[24], nm[48];
	int i, j, k;

	refd_mpw_map(w);
	refd_mpw_kint(w, "round", s->round);
	refd_mpw_kstr(w, "phase", phases[s->phase]);
	refd_mpw_kint(w, "level", s->level);
	refd_mpw_kmap(w, "elements");
	for (i = 0; i < NELEM; i++)
		refd_mpw_kstr(w, elem_name[i], s->elem[i] == 2 ? "strong" :
		    s->elem[i] == 1 ? "waning" : "inert");
	refd_mpw_end(w);
	refd_mpw_kmap(w, "figs");
	for (i = 0; i < s->nfig; i++) {
		const struct fig *x = &s->fig[i];

		if (!x->alive)
			continue;
		snprintf(key, sizeof(key), "%d", i);
		refd_mpw_kmap(w, key);
		refd_mpw_kstr(w, "name", fig_name(g, i, nm, sizeof(nm)));
		refd_mpw_kstr(w, "kind", x->kind == F_CHAR ? "character" :
		    x->kind == F_SUMMON ? "summon" : x->kind == F_OBSTACLE ?
		    "obstacle" : "monster");
		refd_mpw_karray(w, "at");
		refd_mpw_int(w, x->q);
		refd_mpw_int(w, x->r);
		refd_mpw_end(w);
		refd_mpw_kint(w, "hp", x->hp);
		refd_mpw_kint(w, "maxhp", x->maxhp);
		refd_mpw_karray(w, "conds");
		for (k = 0; k < NCOND; k++)
			if (x->conds >> k & 1)
				refd_mpw_str(w, cond_name[k]);
		refd_mpw_end(w);
		if (x->kind != F_CHAR)
			refd_mpw_kint(w, "shield", fig_shield(g, i));
		if (x->grounded)
			refd_mpw_kbool(w, "grounded", 1);
		refd_mpw_end(w);
	}
	refd_mpw_end(w);
	refd_mpw_kmap(w, "hexes");
	for (i = 0; i < s->nhex; i++) {
		const struct hexs *h = &s->hex[i];
		int vis = visible_hex(s, i);

		if (!h->door && !(vis && (h->ov || h->money)))
			continue;
		snprintf(key, sizeof(key), "%d,%d", (int)h->q, (int)h->r);
		refd_mpw_kmap(w, key);
		if (h->door)
			refd_mpw_kstr(w, "door", h->door == DOOR_OPEN ? "open" :
			    h->door == DOOR_LOCKED ? "locked" : "closed");
		if (vis && h->ov)
			refd_mpw_kstr(w, "overlay", ovn[h->ov]);
		if (vis && h->money)
			refd_mpw_kint(w, "money", h->money);
		refd_mpw_end(w);
	}
	refd_mpw_end(w);
	refd_mpw_karray(w, "chars");
	for (i = 0; i < s->nch; i++) {
		const struct chr *c = &s->ch[i];
		const struct cclass *cl = &g->c->cls[c->cls];

		refd_mpw_map(w);
		refd_mpw_kstr(w, "class", cl->name);
		refd_mpw_kint(w, "fig", c->fig);
		refd_mpw_kint(w, "xp", c->xp);
		refd_mpw_kint(w, "money", c->money);
		refd_mpw_kbool(w, "exhausted", c->exhausted);
		refd_mpw_kint(w, "hand_size", __builtin_popcount(
		    (unsigned)c->hand));
		if (seat == i)
			card_ids(w, "hand", cl, c->hand);
		card_ids(w, "discard", cl, c->disc);
		card_ids(w, "lost", cl, c->lost);
		card_ids(w, "active", cl, c->active);
		refd_mpw_kbool(w, "committed", c->planned);
		if (c->bg_dealt[0] >= 0) {
			refd_mpw_kbool(w, "goal_chosen", c->bg_choice >= 0);
			refd_mpw_kint(w, "checkmarks", c->checks);
		}
		if (seat == i && c->bg_dealt[0] >= 0) {
			refd_mpw_karray(w, "battle_goals");
			for (k = 0; k < 2; k++)
				if (c->bg_dealt[k] >= 0)
					refd_mpw_str(w,
					    g->c->bg[c->bg_dealt[k]].id);
			refd_mpw_end(w);
			if (c->bg_choice >= 0)
				refd_mpw_kstr(w, "battle_goal",
				    g->c->bg[c->bg_choice].id);
		}
		if (c->planned && (s->phase != PH_PLAN || seat == i)) {
			refd_mpw_kbool(w, "long_rest", c->rest);
			if (!c->rest) {
				refd_mpw_kstr(w, "lead", cl->card[c->ca].id);
				refd_mpw_kstr(w, "second", cl->card[c->cb].id);
			}
		}
		refd_mpw_karray(w, "items");
		for (k = 0; k < c->nitem; k++) {
			refd_mpw_map(w);
			refd_mpw_kstr(w, "id", g->c->item[c->item[k]].id);
			refd_mpw_kstr(w, "state", c->istate[k] == 0 ? "ready" :
			    c->istate[k] == 1 ? "spent" : "consumed");
			refd_mpw_end(w);
		}
		refd_mpw_end(w);
		if (c->shield_rb)
			refd_mpw_kint(w, "shield", c->shield_rb);
		if (c->ret_rb)
			refd_mpw_kint(w, "retaliate", c->ret_rb);
		deck_view(w, "modifiers", &c->mod);
		refd_mpw_end(w);
	}
	refd_mpw_end(w);
	deck_view(w, "monster_modifiers", &s->mdeck);
	refd_mpw_kmap(w, "monster_cards");
	for (k = 0; k < g->c->ndeck; k++)
		if (s->ad_cur[k] >= 0)
			refd_mpw_kstr(w, g->c->deck[k].name,
			    g->c->deck[k].card[s->ad_cur[k]].name);
	refd_mpw_end(w);
	if (s->phase == PH_TURN) {
		write_order(g, w);
		refd_mpw_kint(w, "turn", s->cur);
	}
	if (s->ndq > 0) {
		refd_mpw_kmap(w, "damage_prompt");
		refd_mpw_kint(w, "seat", s->dq[0].ci);
		refd_mpw_kint(w, "amount", s->dq[0].amount);
		refd_mpw_end(w);
	}
	if (s->camp) {
		refd_mpw_kmap(w, "campaign");
		refd_mpw_kint(w, "prosperity", s->prosperity);
		refd_mpw_kint(w, "prosperity_level",
		    prosperity_level(s->prosperity));
		refd_mpw_kint(w, "reputation", s->reputation);
		refd_mpw_kint(w, "scenarios", s->scen_count);
		refd_mpw_kint(w, "donations", s->donations);
		refd_mpw_kint(w, "event_deck", s->nevdeck);
		if (s->ev_cur >= 0)
			refd_mpw_kstr(w, "event", g->c->ev[s->ev_cur].id);
		refd_mpw_karray(w, "achievements");
		for (k = 0; k < g->c->nach; k++)
			if ((s->gach | s->pach) >> k & 1)
				refd_mpw_str(w, g->c->ach[k].name);
		refd_mpw_end(w);
		refd_mpw_kmap(w, "supply");
		for (k = 0; k < g->c->nitem; k++)
			if (s->supply[k] > 0)
				refd_mpw_kint(w, g->c->item[k].id, s->supply[k]);
		refd_mpw_end(w);
		refd_mpw_karray(w, "characters");
		for (i = 0; i < s->nch; i++) {
			const struct cchar *cc = &s->cc[i];

			refd_mpw_map(w);
			if (cc->made) {
				refd_mpw_kstr(w, "class", g->c->cls[cc->cls].name);
				refd_mpw_kint(w, "level", cc->level);
				refd_mpw_kint(w, "xp", cc->xp);
				refd_mpw_kint(w, "gold", cc->gold);
				refd_mpw_kint(w, "checkmarks", cc->checks);
				refd_mpw_kint(w, "retired", cc->retired);
				card_ids(w, "cards", &g->c->cls[cc->cls],
				    cc->pool);
				refd_mpw_karray(w, "perks");
				for (k = 0; k < g->c->cls[cc->cls].nperk; k++)
					for (j = 0; j < cc->perk[k]; j++)
						refd_mpw_str(w, g->c->cls[
						    cc->cls].perk[k].id);
				refd_mpw_end(w);
				if (seat == i && cc->pq >= 0) {
					refd_mpw_kstr(w, "personal_quest",
					    g->c->pq[cc->pq].id);
					refd_mpw_kint(w, "quest_count",
					    cc->pq_count);
				}
				if (seat == i && cc->pq_offer[0] >= 0) {
					refd_mpw_karray(w, "quests_drawn");
					refd_mpw_str(w,
					    g->c->pq[cc->pq_offer[0]].id);
					refd_mpw_str(w,
					    g->c->pq[cc->pq_offer[1]].id);
					refd_mpw_end(w);
				}
				refd_mpw_karray(w, "items");
				for (k = 0; k < g->c->nitem; k++)
					if (cc->owned >> k & 1)
						refd_mpw_str(w, g->c->item[k].id);
				refd_mpw_end(w);
			}
			refd_mpw_end(w);
		}
		refd_mpw_end(w);
		refd_mpw_end(w);
	}
	refd_mpw_kstr(w, "result", s->over == 1 ? "success" : s->over == 2 ?
	    "failure" : "");
	view_board(w, g);
	refd_mpw_end(w);
	return put(ctx, w);
}

static int
p_result(refd_ctx *ctx, const void *state)
{
	const struct game *g = state;
	refd_mpw *w;
	int i, rc;

	if (!g->s.over)
		return 0;
	w = refd_mpw_create();
	refd_mpw_map(w);
	refd_mpw_karray(w, "winners");
	if (g->s.over == 1)
		for (i = 0; i < g->s.nch; i++)
			refd_mpw_int(w, i);
	refd_mpw_end(w);
	refd_mpw_kstr(w, "reason", g->s.camp ? "the campaign ended" :
	    g->s.over == 1 ? "scenario success" : "scenario failure");
	refd_mpw_karray(w, "xp");
	for (i = 0; i < g->s.nch; i++)
		refd_mpw_int(w, g->s.ch[i].xp);
	refd_mpw_end(w);
	refd_mpw_karray(w, "gold");
	for (i = 0; i < g->s.nch; i++)
		refd_mpw_int(w, g->s.ch[i].money * g->s.gold_per +
		    g->s.ch[i].gold);
	refd_mpw_end(w);
	refd_mpw_end(w);
	rc = put(ctx, w);
	return rc == REFD_OK ? 1 : rc;
}

static int
p_serialize(refd_ctx *ctx, const void *state)
{
	const struct game *g = state;
	refd_mpw *w = refd_mpw_create();

	refd_mpw_bin(w, (const uint8_t *)&g->s, sizeof(g->s));
	return put(ctx, w);
}

/* Indices a restored state uses must stay inside the content: 0, or
 * the negative number of the failed check. */
static int
state_sane(const struct game *g)
{
	const struct dg *s = &g->s;
	const struct content *c = g->c;
	int i, k;

	if (s->cur < 0 || s->cur > s->nord || s->nevdeck < 0 ||
	    s->nevdeck > MAXEV || s->npqdeck < 0 || s->npqdeck > MAXPQ ||
	    s->level < 0 || s->level > 7 || s->nthin < 0 || s->nthin > 16 ||
	    s->ai_n < 0 || s->ai_n > 16 || s->ai_fig < 0 ||
	    s->ai_fig >= MAXFIG || s->nroad < 0 || s->nroad > MAXEV ||
	    s->nrdeck < 0 || s->nrdeck > MAXITEMS || s->road_map < 0 ||
	    s->road_map > c->nmap || s->ev_cur < -1 || s->ev_cur >= c->nev ||
	    (s->atk.react && (s->atk.react_seat < 0 ||
	    s->atk.react_seat >= s->nch)) || s->ai_kind < 0 ||
	    s->ai_kind > 6 || (s->ai_kind == 2 && (s->ai_val < 0 ||
	    s->ai_val >= c->ntype)) || (s->ai_kind == 3 && (s->ai_val < 0 ||
	    s->ai_val >= s->nhex)) || s->ai_pick < 0 || s->ai_pick > NELEM ||
	    s->ev_split < 0 || (s->ev_split > 0 && (s->ev_k < 0 ||
	    s->ev_k >= s->nch || s->ev_cur < 0)) || s->ev_opt < 0 ||
	    s->ev_opt > 1 || s->ev_next < 0 || s->ev_next > MAXOUT ||
	    s->town_seat < 0 || s->town_seat >= s->nch || s->ev_item < 0 ||
	    s->ev_item > c->nitem || (s->ev_item > 0 && s->ev_cur < 0) ||
	    s->ev_gold_after < 0)
		return -1;
	for (i = 0; i < s->nch; i++) {
		const struct chr *ch = &s->ch[i];

		if (ch->cls < 0 || ch->cls >= c->nclass || ch->fig < 0 ||
		    ch->fig >= MAXFIG || ch->nitem < 0 || ch->nitem > MAXOWN ||
		    ch->mod.n < 0 || ch->mod.n > MAXMOD || ch->mod.nd < 0 ||
		    ch->mod.nd > MAXMOD || ch->cur_card < -1 ||
		    ch->cur_card >= MAXCARD || ch->ca < 0 || ch->ca >= MAXCARD ||
		    ch->cb < 0 || ch->cb >= MAXCARD || ch->level < 0 ||
		    ch->level > 9)
			return -2;
		for (k = 0; k < ch->nitem; k++)
			if (ch->item[k] < 0 || ch->item[k] >= c->nitem)
				return -3;
		if (s->cc[i].made && (s->cc[i].cls < 0 ||
		    s->cc[i].cls >= c->nclass || s->cc[i].level < 1 ||
		    s->cc[i].level > 9))
			return -4;
	}
	for (i = 0; i < s->nfig; i++) {
		const struct fig *x = &s->fig[i];

		if (x->kind == F_MONSTER && (x->type < 0 || x->type >= c->ntype ||
		    x->rank < 0 || x->rank > 2))
			return -5;
		if (x->kind == F_SUMMON && (x->owner < 0 || x->owner >= s->nch))
			return -6;
	}
	for (i = 0; i < s->nord; i++)
		if ((s->ord[i].kind == O_CHAR && (s->ord[i].idx < 0 ||
		    s->ord[i].idx >= s->nch)) || (s->ord[i].kind == O_TYPE &&
		    (s->ord[i].idx < 0 || s->ord[i].idx >= c->ntype)) ||
		    (s->ord[i].kind == O_SUMMON && (s->ord[i].idx < 0 ||
		    s->ord[i].idx >= s->nfig)))
			return -7;
	for (k = 0; s->ai_active && k < s->ai_n; k++)
		if (s->ai_hex[k] < 0 || s->ai_hex[k] >= (s->ai_kind == 1 ?
		    s->nfig : s->ai_kind == 4 || s->ai_kind == 5 ? NELEM :
		    s->nhex))
			return -98;
	for (i = 0; i < MAXCLASS * MAXCARD * 2; i++)
		for (k = 0; k < MAXSLOT; k++)
			if (slot_sticker((&s->enh[0][0][0])[i], k) >= NSTICKER)
				return -9;
	for (k = 0; k < MAXTYPES; k++)
		if (s->ad_cur[k] < -1 || s->ad_cur[k] >= MAXMC ||
		    s->ad_n[k] < 0 || s->ad_n[k] > MAXMC || s->ad_nd[k] < 0 ||
		    s->ad_nd[k] > MAXMC)
			return -8;
	return s->mdeck.n >= 0 && s->mdeck.n <= MAXMOD && s->mdeck.nd >= 0 &&
	    s->mdeck.nd <= MAXMOD ? 0 : -99;
}

static int
p_restore(refd_ctx *ctx, void *pdata, const void *content, const uint8_t *b,
    size_t len, void **out)
{
	refd_mpdoc *d = refd_mp_parse(b, len);
	const uint8_t *bin;
	size_t n;
	struct game *g;
	const struct dg *s;
	int bad, why;

	(void)pdata;
	if (d == NULL || refd_mpv_bin(refd_mp_root(d), &bin, &n) != 0 ||
	    n != sizeof(struct dg)) {
		refd_mp_free(d);
		return H->reject(ctx, REFD_EARG, NULL, "state is damaged");
	}
	g = H->alloc(ctx, sizeof(*g));
	if (g == NULL) {
		refd_mp_free(d);
		return REFD_ENOMEM;
	}
	memset(g, 0, sizeof(*g));
	memcpy(&g->s, bin, n);
	refd_mp_free(d);
	g->c = content;
	s = &g->s;
	bad = s->version != DG_VERSION || s->nch < 2 || s->nch > MAXCH ||
	    (s->nhex < 1 && !s->camp) || s->nhex > MAXHEX || s->nfig < 0 ||
	    s->nfig > MAXFIG || s->nord < 0 || s->nord > MAXORD ||
	    s->ndq < 0 || s->ndq > 6 || s->mlevel < 0 || s->mlevel > 7 ||
	    s->mapi >= g->c->nmap || s->nrmon < 0 || s->nrmon > MAXRMON;
	if (!bad && (why = state_sane(g)) < 0) {
		char m[64];

		snprintf(m, sizeof(m), "state is damaged (check %d)", -why);
		H->free(ctx, g);
		return H->reject(ctx, REFD_EARG, NULL, m);
	}
	if (bad) {
		H->free(ctx, g);
		return H->reject(ctx, REFD_EARG, NULL, "state is damaged");
	}
	*out = g;
	return REFD_OK;
}

/*
 * Re-deal seat's hidden data: its sealed plan, while the others may not
 * see it yet, becomes another random pair of its hand cards.
 */
static int
p_redeal(refd_ctx *ctx, void *state, uint32_t seat)
{
	struct game *g = state;
	struct chr *c;
	int cards[MAXCARD], n = 0, k, rc;
	uint32_t a = 0, b = 0;

	if ((int)seat >= g->s.nch)
		return REFD_OK;
	c = &g->s.ch[seat];
	g->ctx = ctx;
	rc = goals_redeal(g, (int)seat);
	g->ctx = NULL;
	if (rc != REFD_OK)
		return rc;
	if (g->s.phase != PH_PLAN || !c->planned || c->rest)
		return REFD_OK;
	for (k = 0; k < MAXCARD; k++)
		if (c->hand >> k & 1)
			cards[n++] = k;
	if (n < 2)
		return REFD_OK;
	if ((rc = H->uniform(ctx, (uint32_t)n, "redeal", &a)) != REFD_OK ||
	    (rc = H->uniform(ctx, (uint32_t)n - 1, "redeal", &b)) != REFD_OK)
		return rc;
	if ((int)b >= (int)a)
		b++;
	c->ca = cards[a];
	c->cb = cards[b];
	c->lead = c->ca;
	return REFD_OK;
}

static void
p_destroy(refd_ctx *ctx, void *state)
{
	H->free(ctx, state);
}

static const struct refd_plugin_ops ops = {
	sizeof(struct refd_plugin_ops),
	p_init,
	NULL,
	p_describe,
	p_content_load,
	p_content_free,
	p_create,
	p_apply,
	p_legal,
	p_pending,
	p_view,
	p_result,
	p_serialize,
	p_restore,
	p_destroy,
	p_redeal,
};

REFD_PLUGIN_DEFINE_CAPS("dungeon", "0.1.0",
    "cooperative dungeon adventure on hexes with a refereed monster AI",
    2, 4, REFD_PF_HIDDEN | REFD_PF_ROLLBACK | REFD_PF_SEALED_SETUP,
    REFD_CAP_DRAWS | REFD_CAP_EVENTS | REFD_CAP_COMMIT, &ops);
