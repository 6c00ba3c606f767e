/*
 * content.c - load the dungeon content files (classes, monsters, mdecks,
 * maps): every broken field is refused with the file, the field and why.
 */
#include <stdio.h>
#include <string.h>

#include "dg.h"
#include "rules.h"

struct perr {
	char msg[240];
	int bad;
};

static void
fail(struct perr *e, const char *file, const char *where, const char *why)
{
	if (e->bad)
		return;
	e->bad = 1;
	snprintf(e->msg, sizeof(e->msg), "%s: %s: %s", file, where, why);
}

static int
geti(refd_mpv m, const char *k, int dflt, int lo, int hi, struct perr *e,
    const char *file, const char *where)
{
	refd_mpv v = refd_mpv_get(m, k);
	int64_t x;
	char w[160];

	if (!refd_mpv_ok(v))
		return dflt;
	if (refd_mpv_type(v) == REFD_MP_BOOL) {
		int b = 0;

		refd_mpv_bool(v, &b);
		return b;
	}
	if (refd_mpv_int(v, &x) != 0 || x < lo || x > hi) {
		snprintf(w, sizeof(w), "%s.%s", where, k);
		fail(e, file, w, "expected an integer in range");
		return dflt;
	}
	return (int)x;
}

int
cond_mask(refd_mpv arr, int *bad)
{
	size_t i;
	int m = 0, k;

	for (i = 0; i < refd_mpv_len(arr); i++) {
		refd_mpv v = refd_mpv_at(arr, i);

		for (k = 0; k < NCOND; k++)
			if (refd_mpv_streq(v, cond_name[k]))
				break;
		if (k == NCOND)
			*bad = 1;
		else
			m |= 1 << k;
	}
	return m;
}

static int
elem_mask(refd_mpv arr, int *any, int *bad)
{
	size_t i;
	int m = 0, k;

	for (i = 0; i < refd_mpv_len(arr); i++) {
		refd_mpv v = refd_mpv_at(arr, i);

		if (refd_mpv_streq(v, "any")) {
			(*any)++;
			continue;
		}
		for (k = 0; k < NELEM; k++)
			if (refd_mpv_streq(v, elem_name[k]))
				break;
		if (k == NELEM)
			*bad = 1;
		else
			m |= 1 << k;
	}
	return m;
}

static int
find_type(const struct content *c, const char *name)
{
	int i;

	for (i = 0; i < c->ntype; i++)
		if (strcmp(c->type[i].name, name) == 0)
			return i;
	return -1;
}

static void
parse_ability(refd_mpv v, struct ability *a, const struct content *c,
    struct perr *e, const char *file, const char *where)
{
	int bad = 0, any = 0;
	size_t i;
	refd_mpv aoe;

	memset(a, 0, sizeof(*a));
	if (refd_mpv_type(v) != REFD_MP_MAP) {
		fail(e, file, where, "expected an ability object");
		return;
	}
	if (refd_mpv_ok(refd_mpv_get(v, "move"))) {
		a->kind = A_MOVE;
		a->value = geti(v, "move", 0, -9, 9, e, file, where);
	} else if (refd_mpv_ok(refd_mpv_get(v, "attack"))) {
		a->kind = A_ATTACK;
		a->value = geti(v, "attack", 0, -9, 20, e, file, where);
	} else if (refd_mpv_ok(refd_mpv_get(v, "heal"))) {
		a->kind = A_HEAL;
		a->value = geti(v, "heal", 0, 0, 20, e, file, where);
	} else if (refd_mpv_ok(refd_mpv_get(v, "shield"))) {
		a->kind = A_SHIELD;
		a->value = geti(v, "shield", 0, 0, 9, e, file, where);
	} else if (refd_mpv_ok(refd_mpv_get(v, "retaliate"))) {
		a->kind = A_RETALIATE;
		a->value = geti(v, "retaliate", 0, 0, 9, e, file, where);
	} else if (refd_mpv_ok(refd_mpv_get(v, "loot"))) {
		a->kind = A_LOOT;
		a->value = geti(v, "loot", 0, 0, 9, e, file, where);
	} else if (refd_mpv_ok(refd_mpv_get(v, "ward"))) {
		a->kind = A_WARD;
		a->value = geti(v, "ward", 0, 0, 9, e, file, where);
	} else if (refd_mpv_ok(refd_mpv_get(v, "bless"))) {
		a->kind = A_BLESS;
	} else if (refd_mpv_ok(refd_mpv_get(v, "recover"))) {
		a->kind = A_RECOVER;
		a->value = geti(v, "recover", 0, 0, 9, e, file, where);
	} else if (refd_mpv_ok(refd_mpv_get(v, "refresh"))) {
		a->kind = A_REFRESH;
	} else if (refd_mpv_ok(refd_mpv_get(v, "summon"))) {
		const char *nm = refd_mpv_get_str(v, "summon", "");

		a->kind = A_SUMMON;
		a->summon = find_type(c, nm);
		if (strcmp(nm, "ward_hound") == 0)
			a->summon = -2;
		else if (a->summon < 0)
			fail(e, file, where, "summon names no monster type");
	} else if (refd_mpv_ok(refd_mpv_get(v, "infuse"))) {
		a->kind = A_INFUSE;
		a->infuse = elem_mask(refd_mpv_get(v, "infuse"), &any, &bad);
		a->any = any;
	} else if (refd_mpv_type(refd_mpv_get(v, "self")) == REFD_MP_ARRAY) {
		a->kind = A_SELFCOND;
		a->conds = cond_mask(refd_mpv_get(v, "self"), &bad);
	} else {
		fail(e, file, where, "unknown ability");
		return;
	}
	a->range = geti(v, "range", 0, -9, 9, e, file, where);
	a->target = geti(v, "target", 1, 1, 6, e, file, where);
	a->pierce = geti(v, "pierce", 0, 0, 9, e, file, where);
	a->push = geti(v, "push", 0, 0, 9, e, file, where);
	a->pull = geti(v, "pull", 0, 0, 9, e, file, where);
	a->jump = geti(v, "jump", 0, 0, 1, e, file, where);
	a->ground = geti(v, "ground", 0, 0, 1, e, file, where);
	a->xp = geti(v, "xp", 0, 0, 9, e, file, where);
	a->grey = geti(v, "grey", 0, 0, 1, e, file, where);
	a->all_within = geti(v, "all_within", 0, 0, 9, e, file, where);
	a->absolute = geti(v, "absolute_range", 0, 0, 1, e, file, where);
	a->bonus_attack = geti(v, "bonus_attack", 0, 0, 9, e, file, where);
	a->bonus_move = geti(v, "bonus_move", 0, 0, 9, e, file, where);
	if (a->kind == A_HEAL && refd_mpv_get_bool(v, "self", 0))
		a->self = 1;
	if (a->kind != A_SELFCOND)
		a->conds = cond_mask(refd_mpv_get(v, "cond"), &bad);
	a->bonus_conds = cond_mask(refd_mpv_get(v, "bonus_cond"), &bad);
	if (a->kind != A_INFUSE) {
		int anyc = 0;

		a->consume = elem_mask(refd_mpv_get(v, "consume"), &anyc, &bad);
		a->any = anyc;
	}
	aoe = refd_mpv_get(v, "aoe");
	if (refd_mpv_len(aoe) > MAXAOE)
		fail(e, file, where, "aoe: at most 6 hexes");
	for (i = 0; i < refd_mpv_len(aoe) && i < MAXAOE; i++) {
		{
			int64_t x = 0, y = 0;

			refd_mpv_int(refd_mpv_at(refd_mpv_at(aoe, i), 0), &x);
			refd_mpv_int(refd_mpv_at(refd_mpv_at(aoe, i), 1), &y);
			if (x < -3 || x > 3 || y < -3 || y > 3)
				fail(e, file, where, "aoe offsets are -3..3");
			a->aoe[i][0] = (int32_t)x;
			a->aoe[i][1] = (int32_t)y;
		}
	}
	a->naoe = (int32_t)(refd_mpv_len(aoe) > MAXAOE ? MAXAOE :
	    refd_mpv_len(aoe));
	if (bad)
		fail(e, file, where, "unknown condition or element name");
}

/*
 * The enhancement slots of a half (§2.9): [{"ability": i, "stickers":
 * [names]}], each sticker one that can go on that ability.
 */
static void
parse_slots(refd_mpv v, struct half *h, struct perr *e, const char *file,
    const char *where)
{
	size_t i, j;
	char w[160];

	if (!refd_mpv_ok(v))
		return;
	if (refd_mpv_type(v) != REFD_MP_ARRAY || refd_mpv_len(v) > MAXSLOT) {
		snprintf(w, sizeof(w), "%s.enhance", where);
		fail(e, file, w, "expected an array of at most 6 slots");
		return;
	}
	for (i = 0; i < refd_mpv_len(v); i++) {
		refd_mpv sv = refd_mpv_at(v, i), st = refd_mpv_get(sv,
		    "stickers");
		int ab;

		snprintf(w, sizeof(w), "%s.enhance[%zu]", where, i);
		ab = geti(sv, "ability", 0, 0, h->nab - 1, e, file, w);
		h->slot_ab[i] = ab;
		h->slot_fit[i] = 0;
		if (refd_mpv_type(st) != REFD_MP_ARRAY || refd_mpv_len(st) < 1) {
			fail(e, file, w, "stickers: expected a non-empty array "
			    "of sticker names");
			continue;
		}
		for (j = 0; j < refd_mpv_len(st); j++) {
			int k;

			for (k = 0; k < NSTICKER; k++)
				if (refd_mpv_streq(refd_mpv_at(st, j),
				    sticker_name[k]))
					break;
			if (k == NSTICKER || !sticker_on(&h->ab[ab], k)) {
				fail(e, file, w, "stickers: an unknown sticker "
				    "or one that cannot go on that ability");
				break;
			}
			h->slot_fit[i] |= 1 << k;
		}
	}
	h->nslot = (int32_t)refd_mpv_len(v);
}

static void
parse_half(refd_mpv v, struct half *h, const struct content *c,
    struct perr *e, const char *file, const char *where)
{
	refd_mpv abs = refd_mpv_get(v, "abilities");
	size_t i;
	char w[160];

	memset(h, 0, sizeof(*h));
	if (refd_mpv_type(abs) != REFD_MP_ARRAY || refd_mpv_len(abs) < 1 ||
	    refd_mpv_len(abs) > MAXAB) {
		snprintf(w, sizeof(w), "%s.abilities", where);
		fail(e, file, w, "expected an array of 1 to 4 abilities");
		return;
	}
	for (i = 0; i < refd_mpv_len(abs); i++) {
		snprintf(w, sizeof(w), "%s.abilities[%zu]", where, i);
		parse_ability(refd_mpv_at(abs, i), &h->ab[i], c, e, file, w);
	}
	h->nab = (int32_t)refd_mpv_len(abs);
	h->lost = geti(v, "lost", 0, 0, 1, e, file, where);
	h->round = geti(v, "round", 0, 0, 1, e, file, where);
	h->persistent = geti(v, "persistent", 0, 0, 1, e, file, where);
	h->slots = geti(v, "slots", 0, 0, 6, e, file, where);
	h->slot_xp = geti(v, "slot_xp", 0, 0, 9, e, file, where);
	h->xp = geti(v, "xp", 0, 0, 9, e, file, where);
	parse_slots(refd_mpv_get(v, "enhance"), h, e, file, where);
}

static void
parse_classes(refd_mpv root, struct content *c, struct perr *e)
{
	size_t i, k;
	char w[160];

	if (refd_mpv_type(root) != REFD_MP_MAP || refd_mpv_len(root) < 1 ||
	    refd_mpv_len(root) > MAXCLASS) {
		fail(e, "classes.json", "(top)", "expected 1 to 4 classes");
		return;
	}
	for (i = 0; i < refd_mpv_len(root); i++) {
		struct cclass *cl = &c->cls[c->nclass++];
		refd_mpv v = refd_mpv_val_at(root, i), cards, hp, sm;

		snprintf(cl->name, sizeof(cl->name), "%s",
		    refd_mpv_cstr(refd_mpv_key_at(root, i), "?"));
		hp = refd_mpv_get(v, "hp");
		if (refd_mpv_len(hp) != 9) {
			fail(e, "classes.json", cl->name, "hp: 9 values");
			return;
		}
		for (k = 0; k < 9; k++) {
			int64_t x = 0;

			if (refd_mpv_int(refd_mpv_at(hp, k), &x) || x < 1 ||
			    x > 99)
				fail(e, "classes.json", cl->name,
				    "hp: integers 1..99");
			cl->hp[k] = (int32_t)x;
		}
		cl->hand = geti(v, "hand", 0, 2, MAXCARD, e, "classes.json",
		    cl->name);
		sm = refd_mpv_get(v, "summon");
		if (refd_mpv_ok(sm)) {
			snprintf(cl->summon.name, sizeof(cl->summon.name), "%s",
			    refd_mpv_get_str(sm, "name", "summon"));
			cl->summon.hp = geti(sm, "hp", 1, 1, 30, e,
			    "classes.json", cl->name);
			cl->summon.move = geti(sm, "move", 0, 0, 9, e,
			    "classes.json", cl->name);
			cl->summon.attack = geti(sm, "attack", 0, 0, 9, e,
			    "classes.json", cl->name);
			cl->summon.range = geti(sm, "range", 0, 0, 9, e,
			    "classes.json", cl->name);
		}
		{
			refd_mpv pk = refd_mpv_get(v, "perks");

			if (refd_mpv_len(pk) > MAXPERK) {
				fail(e, "classes.json", cl->name, "perks: at most 8");
				return;
			}
			for (k = 0; k < refd_mpv_len(pk); k++) {
				struct perkdef *pd = &cl->perk[cl->nperk++];
				refd_mpv pv = refd_mpv_at(pk, k);
				refd_mpv rm = refd_mpv_get(pv, "remove");
				refd_mpv ad = refd_mpv_get(pv, "add");
				size_t j;

				snprintf(pd->id, sizeof(pd->id), "%s",
				    refd_mpv_get_str(pv, "id", "?"));
				pd->times = geti(pv, "times", 1, 1, 4, e,
				    "classes.json", pd->id);
				pd->ignore_items = refd_mpv_get_bool(pv,
				    "ignore_items", 0);
				if (refd_mpv_len(rm) > 4 || refd_mpv_len(ad) > 4) {
					fail(e, "classes.json", pd->id,
					    "remove, add: at most 4 cards");
					return;
				}
				for (j = 0; j < refd_mpv_len(rm); j++)
					pd->rem[pd->nrem++] = mod_by_name(
					    refd_mpv_cstr(refd_mpv_at(rm, j), ""), 0);
				for (j = 0; j < refd_mpv_len(ad); j++)
					pd->add[pd->nadd++] = mod_by_name(
					    refd_mpv_cstr(refd_mpv_at(ad, j), ""), 0);
				for (j = 0; j < (size_t)pd->nrem; j++)
					if (pd->rem[j] < 0)
						fail(e, "classes.json", pd->id,
						    "remove: unknown modifier card");
				for (j = 0; j < (size_t)pd->nadd; j++)
					if (pd->add[j] < 0)
						fail(e, "classes.json", pd->id,
						    "add: unknown modifier card");
			}
		}
		cards = refd_mpv_get(v, "cards");
		if (refd_mpv_len(cards) < 2 || refd_mpv_len(cards) > MAXCARD) {
			fail(e, "classes.json", cl->name,
			    "cards: 2 to 16 cards");
			return;
		}
		for (k = 0; k < refd_mpv_len(cards); k++) {
			struct ccard *cd = &cl->card[k];
			refd_mpv cv = refd_mpv_at(cards, k);

			snprintf(cd->id, sizeof(cd->id), "%s",
			    refd_mpv_get_str(cv, "id", "?"));
			snprintf(cd->name, sizeof(cd->name), "%s",
			    refd_mpv_get_str(cv, "name", "?"));
			snprintf(w, sizeof(w), "%s.cards[%zu]", cl->name, k);
			cd->level = geti(cv, "level", 1, 0, 9, e,
			    "classes.json", w);
			cd->init = geti(cv, "init", -1, 1, 99, e,
			    "classes.json", w);
			if (cd->init < 0)
				fail(e, "classes.json", w, "init: missing");
			cd->unrecoverable = geti(cv, "unrecoverable", 0, 0, 1,
			    e, "classes.json", w);
			snprintf(w, sizeof(w), "%s.%s.top", cl->name, cd->id);
			parse_half(refd_mpv_get(cv, "top"), &cd->h[0], c, e,
			    "classes.json", w);
			snprintf(w, sizeof(w), "%s.%s.bottom", cl->name,
			    cd->id);
			parse_half(refd_mpv_get(cv, "bottom"), &cd->h[1], c, e,
			    "classes.json", w);
		}
		cl->ncards = (int32_t)refd_mpv_len(cards);
	}
}

static void
table(refd_mpv v, const char *k, int32_t out[8][2], struct perr *e,
    const char *where)
{
	refd_mpv t = refd_mpv_get(v, k);
	size_t i, j;
	char w[96];

	if (!refd_mpv_ok(t))
		return;
	snprintf(w, sizeof(w), "%s.%s", where, k);
	if (refd_mpv_len(t) != 8) {
		fail(e, "monsters.json", w, "expected 8 levels of [normal, elite]");
		return;
	}
	for (i = 0; i < 8; i++)
		for (j = 0; j < 2; j++) {
			int64_t x = 0;

			if (refd_mpv_int(refd_mpv_at(refd_mpv_at(t, i), j),
			    &x) || x < 0 || x > 99)
				fail(e, "monsters.json", w,
				    "expected integers 0..99");
			out[i][j] = (int32_t)x;
		}
}

static void
parse_monsters(refd_mpv root, refd_mpv decks, struct content *c,
    struct perr *e)
{
	size_t i, k, j;
	char w[96];

	if (refd_mpv_type(decks) != REFD_MP_MAP || refd_mpv_len(decks) < 1 ||
	    refd_mpv_len(decks) > MAXTYPES) {
		fail(e, "mdecks.json", "(top)", "expected 1 to 8 decks");
		return;
	}
	if (refd_mpv_type(root) != REFD_MP_MAP || refd_mpv_len(root) < 1 ||
	    refd_mpv_len(root) > MAXTYPES) {
		fail(e, "monsters.json", "(top)", "expected 1 to 8 types");
		return;
	}
	for (i = 0; i < refd_mpv_len(root); i++) {
		struct mtype *t = &c->type[c->ntype++];

		snprintf(t->name, sizeof(t->name), "%s",
		    refd_mpv_cstr(refd_mpv_key_at(root, i), "?"));
	}
	for (i = 0; i < refd_mpv_len(decks); i++) {
		struct mdeckdef *d = &c->deck[c->ndeck++];
		refd_mpv cards = refd_mpv_val_at(decks, i);

		snprintf(d->name, sizeof(d->name), "%s",
		    refd_mpv_cstr(refd_mpv_key_at(decks, i), "?"));
		if (refd_mpv_len(cards) < 1 || refd_mpv_len(cards) > MAXMC) {
			fail(e, "mdecks.json", d->name, "1 to 8 cards");
			return;
		}
		for (k = 0; k < refd_mpv_len(cards); k++) {
			struct mcard *mc = &d->card[k];
			refd_mpv cv = refd_mpv_at(cards, k);
			refd_mpv abs = refd_mpv_get(cv, "abilities");

			snprintf(mc->name, sizeof(mc->name), "%s",
			    refd_mpv_get_str(cv, "name", "?"));
			snprintf(w, sizeof(w), "%s[%zu]", d->name, k);
			mc->init = geti(cv, "init", 50, 1, 99, e,
			    "mdecks.json", w);
			mc->shuffle = geti(cv, "shuffle", 0, 0, 1, e,
			    "mdecks.json", w);
			if (refd_mpv_len(abs) < 1 || refd_mpv_len(abs) > MAXAB) {
				fail(e, "mdecks.json", w, "1 to 4 abilities");
				return;
			}
			for (j = 0; j < refd_mpv_len(abs); j++)
				parse_ability(refd_mpv_at(abs, j), &mc->ab[j],
				    c, e, "mdecks.json", w);
			mc->nab = (int32_t)refd_mpv_len(abs);
		}
		d->n = (int32_t)refd_mpv_len(cards);
	}
	for (i = 0; i < refd_mpv_len(root); i++) {
		struct mtype *t = &c->type[i];
		refd_mpv v = refd_mpv_val_at(root, i), bh;
		const char *dn = refd_mpv_get_str(v, "deck", "");
		int d;

		for (d = 0; d < c->ndeck; d++)
			if (strcmp(c->deck[d].name, dn) == 0)
				break;
		if (d == c->ndeck) {
			fail(e, "monsters.json", t->name,
			    "deck: names no deck of mdecks.json");
			return;
		}
		t->deck = d;
		t->standees = geti(v, "standees", 1, 1, 10, e, "monsters.json",
		    t->name);
		t->flying = geti(v, "flying", 0, 0, 1, e, "monsters.json",
		    t->name);
		t->boss = geti(v, "boss", 0, 0, 1, e, "monsters.json", t->name);
		{
			int bad = 0;

			t->immune = cond_mask(refd_mpv_get(v, "immune"), &bad);
			if (bad)
				fail(e, "monsters.json", t->name,
				    "immune: unknown condition");
		}
		bh = refd_mpv_get(v, "boss_hp");
		if (t->boss) {
			int64_t a = 0, b = 0;

			if (refd_mpv_int(refd_mpv_at(bh, 0), &a) ||
			    refd_mpv_int(refd_mpv_at(bh, 1), &b) || a < 1 ||
			    b < 0)
				fail(e, "monsters.json", t->name,
				    "boss_hp: [base, per level]");
			t->boss_hp_base = (int32_t)a;
			t->boss_hp_per_level = (int32_t)b;
		} else {
			table(v, "hp", t->hp, e, t->name);
			if (!refd_mpv_ok(refd_mpv_get(v, "hp")))
				fail(e, "monsters.json", t->name,
				    "hp: missing");
		}
		table(v, "move", t->move, e, t->name);
		table(v, "attack", t->attack, e, t->name);
		table(v, "range", t->range, e, t->name);
		table(v, "shield", t->shield, e, t->name);
		table(v, "retaliate", t->retaliate, e, t->name);
		table(v, "poison", t->poison, e, t->name);
	}
}

static int
ov_kind(const char *k)
{
	static const char *const names[] = { "", "trap", "hazard",
		"difficult", "obstacle", "plate", "treasure" };
	int i;

	for (i = 1; i < 7; i++)
		if (strcmp(names[i], k) == 0)
			return i;
	return -1;
}

int
parse_at(refd_mpv a, int *q, int *r)
{
	int64_t x, y;

	if (refd_mpv_len(a) != 2 || refd_mpv_int(refd_mpv_at(a, 0), &x) ||
	    refd_mpv_int(refd_mpv_at(a, 1), &y) || x < -Q0 ||
	    x >= GQ - Q0 || y < -R0 || y >= GR - R0)
		return -1;
	*q = (int)x;
	*r = (int)y;
	return 0;
}

static int
mhex(struct mapdef *m, int q, int r)
{
	int i;

	for (i = 0; i < m->nhex; i++)
		if (m->hq[i] == q && m->hr[i] == r)
			return i;
	return -1;
}

static int
addhex(struct mapdef *m, int q, int r, int room)
{
	int i = mhex(m, q, r);

	if (i >= 0)
		return i;
	if (m->nhex >= MAXHEX)
		return -1;
	i = m->nhex++;
	m->hq[i] = q;
	m->hr[i] = r;
	m->hroom[i] = room;
	m->hov[i] = 0;
	m->hval[i] = 0;
	m->hdoor[i] = 0;
	return i;
}

/* Parse a map object (maps.json entry or a setup's inline map). */
int
parse_map(refd_mpv v, struct mapdef *m, const struct content *c, char *err,
    size_t errlen)
{
	refd_mpv a;
	size_t i;
	int q, r, k;
	const char *name = m->name[0] ? m->name : "map";

	memset(m->hq, 0, sizeof(m->hq));
	m->nhex = 0;
	m->nstart = 0;
	m->nmon = 0;
	m->victory_boss = 0;
	m->plate_spawn_type = -1;
#define BAD(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)
	if (refd_mpv_type(v) != REFD_MP_MAP)
		BAD("%s: expected an object", name);
	a = refd_mpv_get(v, "rect");
	if (refd_mpv_ok(a)) {
		int64_t w = 0, h = 0;

		if (refd_mpv_int(refd_mpv_at(a, 0), &w) ||
		    refd_mpv_int(refd_mpv_at(a, 1), &h) || w < 1 || h < 1 ||
		    w * h > MAXHEX || w > 24 || h > 12)
			BAD("%s: rect: [width, height], at most 192 hexes", name);
		for (r = 0; r < h; r++)
			for (k = 0; k < w; k++)
				addhex(m, k - r / 2, r, 0);
	}
	if (refd_mpv_ok(refd_mpv_get(v, "corridor"))) {
		int64_t n = refd_mpv_get_int(v, "corridor", 0);

		if (n < 1 || n > 24)
			BAD("%s: corridor: 1..24", name);
		for (k = 0; k < n; k++)
			addhex(m, k, 0, 0);
	}
	a = refd_mpv_get(v, "areas");
	for (i = 0; i < refd_mpv_len(a); i++) {
		refd_mpv ar = refd_mpv_at(a, i);
		refd_mpv cols = refd_mpv_get(ar, "cols");
		refd_mpv rows = refd_mpv_get(ar, "rows");
		int64_t c0 = 0, c1 = 0, r0 = 0, r1 = 0;
		int64_t room = refd_mpv_get_int(ar, "room", 0);

		if (refd_mpv_int(refd_mpv_at(cols, 0), &c0) ||
		    refd_mpv_int(refd_mpv_at(cols, 1), &c1) ||
		    refd_mpv_int(refd_mpv_at(rows, 0), &r0) ||
		    refd_mpv_int(refd_mpv_at(rows, 1), &r1) || c0 < 0 ||
		    c1 > 30 || r0 < 0 || r1 > 14 || room < 0 || room > 15)
			BAD("%s: areas[%zu]: cols, rows: [from, to), room 0..15",
			    name, i);
		for (r = (int)r0; r < r1; r++)
			for (k = (int)c0; k < c1; k++)
				if (addhex(m, k - r / 2, r, (int)room) < 0)
					BAD("%s: more than 192 hexes", name);
	}
	a = refd_mpv_get(v, "walls");
	for (i = 0; i < refd_mpv_len(a); i++) {
		int h;

		if (parse_at(refd_mpv_at(a, i), &q, &r))
			BAD("%s: walls[%zu]: expected [q, r]", name, i);
		h = mhex(m, q, r);
		if (h >= 0) {
			m->nhex--;
			m->hq[h] = m->hq[m->nhex];
			m->hr[h] = m->hr[m->nhex];
			m->hroom[h] = m->hroom[m->nhex];
		}
	}
	a = refd_mpv_get(v, "thin");
	m->nthin = 0;
	memset(m->thin, 0, sizeof(m->thin));
	for (i = 0; i < refd_mpv_len(a); i++) {
		refd_mpv t = refd_mpv_at(a, i);
		int64_t x[4];
		size_t j;

		for (j = 0; j < 4; j++)
			if (refd_mpv_int(refd_mpv_at(t, j), &x[j]) || x[j] < -Q0 ||
			    x[j] > 40)
				BAD("%s: thin[%zu]: [q1, r1, q2, r2] of two "
				    "neighbours", name, i);
		if (i >= 16 || refd_hex_distance((int)x[0], (int)x[1],
		    (int)x[2], (int)x[3]) != 1)
			BAD("%s: thin[%zu]: at most 16 thin walls, each between "
			    "two neighbours", name, i);
		for (j = 0; j < 4; j++)
			m->thin[m->nthin][j] = (int32_t)x[j];
		m->nthin++;
	}
	a = refd_mpv_get(v, "doors");
	for (i = 0; i < refd_mpv_len(a); i++) {
		refd_mpv d = refd_mpv_at(a, i);
		int h;
		int64_t room = refd_mpv_get_int(d, "room", 1);

		if (parse_at(refd_mpv_get(d, "at"), &q, &r) || room < 0 || room > 15)
			BAD("%s: doors[%zu]: at: [q, r], room 0..15", name, i);
		h = addhex(m, q, r, 0);
		if (h < 0)
			BAD("%s: more than 192 hexes", name);
		m->hdoor[h] = refd_mpv_get_bool(d, "locked", 0) ?
		    DOOR_LOCKED : DOOR_CLOSED;
		m->hval[h] = (int32_t)room;
	}
	a = refd_mpv_get(v, "overlays");
	for (i = 0; i < refd_mpv_len(a); i++) {
		refd_mpv o = refd_mpv_at(a, i);
		int h, kind = ov_kind(refd_mpv_get_str(o, "kind", ""));

		if (parse_at(refd_mpv_get(o, "at"), &q, &r) || kind < 0 ||
		    (h = mhex(m, q, r)) < 0)
			BAD("%s: overlays[%zu]: at a floor hex, kind trap, "
			    "hazard, difficult, obstacle, plate or treasure",
			    name, i);
		m->hov[h] = kind;
		m->hval[h] = (int32_t)refd_mpv_get_int(o, "value",
		    refd_mpv_get_int(o, "hp", 0));
		if (m->hval[h] < 0 || m->hval[h] > 99)
			BAD("%s: overlays[%zu]: value or hp 0..99", name, i);
	}
	a = refd_mpv_get(v, "start");
	for (i = 0; i < refd_mpv_len(a) && i < MAXCH; i++) {
		if (parse_at(refd_mpv_at(a, i), &q, &r) || mhex(m, q, r) < 0)
			BAD("%s: start[%zu]: expected a floor [q, r]", name, i);
		m->start[i][0] = q;
		m->start[i][1] = r;
		m->nstart++;
	}
	a = refd_mpv_get(v, "monsters");
	if (refd_mpv_len(a) > MAXRMON)
		BAD("%s: monsters: at most 24", name);
	for (i = 0; i < refd_mpv_len(a); i++) {
		refd_mpv mo = refd_mpv_at(a, i), rk = refd_mpv_get(mo, "rank");
		struct rmon *rm = &m->mon[m->nmon];
		int h;

		rm->type = -1;
		for (k = 0; k < c->ntype; k++)
			if (refd_mpv_streq(refd_mpv_get(mo, "type"),
			    c->type[k].name))
				rm->type = k;
		if (rm->type < 0 || parse_at(refd_mpv_get(mo, "at"), &q, &r) ||
		    (h = mhex(m, q, r)) < 0 || refd_mpv_len(rk) != 3)
			BAD("%s: monsters[%zu]: type, at (a floor hex), rank "
			    "[2, 3, 4 characters]", name, i);
		rm->q = q;
		rm->r = r;
		rm->room = m->hroom[h];
		for (k = 0; k < 3; k++) {
			refd_mpv x = refd_mpv_at(rk, (size_t)k);

			rm->rank[k] = refd_mpv_streq(x, "normal") ? 0 :
			    refd_mpv_streq(x, "elite") ? 1 :
			    refd_mpv_streq(x, "boss") ? 2 : -1;
		}
		m->nmon++;
	}
	if (refd_mpv_streq(refd_mpv_get(v, "victory"), "boss"))
		m->victory_boss = 1;
	a = refd_mpv_get(v, "plate_spawn");
	if (refd_mpv_ok(a)) {
		for (k = 0; k < c->ntype; k++)
			if (refd_mpv_streq(refd_mpv_get(a, "type"),
			    c->type[k].name))
				m->plate_spawn_type = k;
		if (m->plate_spawn_type < 0 || parse_at(refd_mpv_get(a, "at"),
		    &m->plate_spawn_q, &m->plate_spawn_r))
			BAD("%s: plate_spawn: type and at", name);
	}
#undef BAD
	if (m->nhex == 0)
		snprintf(err, errlen, "%s: no floor hex", name);
	return m->nhex == 0 ? -1 : 0;
}

static void
parse_items(refd_mpv root, struct content *c, struct perr *e)
{
	static const char *const slots[] = { "head", "body", "legs", "hand",
		"hands", "small" };
	static const char *const effects[] = { "", "move+1", "ward1",
		"shield2", "trapsafe", "melee+1", "melee+2stun", "heal3",
		"unmuddle", "advantage", "refresh" };
	size_t i;
	int k;

	if (refd_mpv_type(root) != REFD_MP_MAP || refd_mpv_len(root) > MAXITEMS) {
		fail(e, "items.json", "(top)", "expected at most 16 items");
		return;
	}
	for (i = 0; i < refd_mpv_len(root); i++) {
		struct itemdef *it = &c->item[c->nitem++];
		refd_mpv v = refd_mpv_val_at(root, i);
		const char *use = refd_mpv_get_str(v, "use", "");

		snprintf(it->id, sizeof(it->id), "%s",
		    refd_mpv_cstr(refd_mpv_key_at(root, i), "?"));
		snprintf(it->name, sizeof(it->name), "%s",
		    refd_mpv_get_str(v, "name", "?"));
		it->slot = -1;
		for (k = 0; k < 6; k++)
			if (refd_mpv_streq(refd_mpv_get(v, "slot"), slots[k]))
				it->slot = k;
		it->effect = -1;
		for (k = 1; k < 11; k++)
			if (refd_mpv_streq(refd_mpv_get(v, "effect"), effects[k]))
				it->effect = k;
		if (it->slot < 0)
			fail(e, "items.json", it->id, "slot: head, body, legs, "
			    "hand, hands or small");
		if (it->effect < 0)
			fail(e, "items.json", it->id, "effect: unknown");
		if (strcmp(use, "spend") != 0 && strcmp(use, "consume") != 0)
			fail(e, "items.json", it->id, "use: spend or consume");
		it->consume = strcmp(use, "consume") == 0;
		it->cost = geti(v, "cost", 0, 0, 999, e, "items.json", it->id);
		it->copies = geti(v, "copies", 1, 1, 9, e, "items.json", it->id);
		it->prosperity = geti(v, "prosperity", 1, 0, 9, e, "items.json",
		    it->id);
		it->slots = geti(v, "slots", 1, 1, 6, e, "items.json", it->id);
		it->minus = geti(v, "minus", 0, 0, 5, e, "items.json", it->id);
	}
}

static int
ach_mask(const struct content *c, refd_mpv arr, int *bad)
{
	size_t i;
	int k, m = 0;

	for (i = 0; i < refd_mpv_len(arr); i++) {
		for (k = 0; k < c->nach; k++)
			if (refd_mpv_streq(refd_mpv_at(arr, i), c->ach[k].name))
				break;
		if (k == c->nach)
			*bad = 1;
		else
			m |= 1 << k;
	}
	return m;
}

static void
parse_achievements(refd_mpv root, struct content *c, struct perr *e)
{
	size_t i;

	if (!refd_mpv_ok(root))
		return;
	if (refd_mpv_type(root) != REFD_MP_MAP || refd_mpv_len(root) > MAXACH) {
		fail(e, "achievements.json", "(top)", "at most 8 achievements");
		return;
	}
	for (i = 0; i < refd_mpv_len(root); i++) {
		struct achdef *a = &c->ach[c->nach++];
		refd_mpv v = refd_mpv_val_at(root, i);

		snprintf(a->name, sizeof(a->name), "%s",
		    refd_mpv_cstr(refd_mpv_key_at(root, i), "?"));
		snprintf(a->type, sizeof(a->type), "%s",
		    refd_mpv_get_str(v, "type", a->name));
		a->global = refd_mpv_get_bool(v, "global", 0);
	}
}

static void
parse_goals(refd_mpv root, struct content *c, struct perr *e)
{
	static const char *const stats[] = { "kills", "loots", "half_hp",
		"fire" };
	size_t i;
	int k;

	if (!refd_mpv_ok(root))
		return;
	if (refd_mpv_type(root) != REFD_MP_MAP || refd_mpv_len(root) > MAXBG) {
		fail(e, "battlegoals.json", "(top)", "at most 8 battle goals");
		return;
	}
	for (i = 0; i < refd_mpv_len(root); i++) {
		struct bgdef *b = &c->bg[c->nbg++];
		refd_mpv v = refd_mpv_val_at(root, i);

		snprintf(b->id, sizeof(b->id), "%s",
		    refd_mpv_cstr(refd_mpv_key_at(root, i), "?"));
		snprintf(b->name, sizeof(b->name), "%s",
		    refd_mpv_get_str(v, "name", "?"));
		b->stat = -1;
		for (k = 0; k < 4; k++)
			if (refd_mpv_streq(refd_mpv_get(v, "stat"), stats[k]))
				b->stat = k;
		if (b->stat < 0)
			fail(e, "battlegoals.json", b->id, "stat: kills, loots, "
			    "half_hp or fire");
		b->min = geti(v, "min", 0, 0, 99, e, "battlegoals.json", b->id);
		b->max = geti(v, "max", 99, 0, 99, e, "battlegoals.json", b->id);
		b->checks = geti(v, "checks", 1, 1, 3, e, "battlegoals.json",
		    b->id);
	}
}

static void
parse_events(refd_mpv root, struct content *c, struct perr *e)
{
	size_t i, j;
	int h, k;

	if (!refd_mpv_ok(root))
		return;
	if (refd_mpv_type(root) != REFD_MP_MAP || refd_mpv_len(root) > MAXEV) {
		fail(e, "events.json", "(top)", "at most 8 events");
		return;
	}
	for (i = 0; i < refd_mpv_len(root); i++) {
		struct evdef *d = &c->ev[c->nev++];
		refd_mpv v = refd_mpv_val_at(root, i);

		snprintf(d->id, sizeof(d->id), "%s",
		    refd_mpv_cstr(refd_mpv_key_at(root, i), "?"));
		d->road = refd_mpv_streq(refd_mpv_get(v, "kind"), "road");
		/* class event cards (§2.11 step 2): not in the first decks */
		d->added_by_class = -1;
		for (k = 0; k < c->nclass; k++)
			if (refd_mpv_streq(refd_mpv_get(v, "added_by_class"),
			    c->cls[k].name))
				d->added_by_class = k;
		if (refd_mpv_ok(refd_mpv_get(v, "added_by_class")) &&
		    d->added_by_class < 0)
			fail(e, "events.json", d->id, "added_by_class: unknown "
			    "class");
		snprintf(d->added_by_content, sizeof(d->added_by_content), "%s",
		    refd_mpv_get_str(v, "added_by_content", ""));
		for (h = 0; h < 2; h++) {
			refd_mpv opt = refd_mpv_get(v, h ? "B" : "A");
			refd_mpv outs = refd_mpv_get(opt, "outcomes");

			d->ret[h] = refd_mpv_get_bool(opt, "return", 0);
			if (refd_mpv_len(outs) < 1 || refd_mpv_len(outs) > MAXOUT) {
				fail(e, "events.json", d->id, "A and B: 1 to 4 "
				    "outcomes");
				return;
			}
			d->nout[h] = (int32_t)refd_mpv_len(outs);
			for (j = 0; j < refd_mpv_len(outs); j++) {
				refd_mpv o = refd_mpv_at(outs, j);
				struct outcome *u = &d->out[h][j];
				const char *it;

				u->cls = -1;
				for (k = 0; k < c->nclass; k++)
					if (refd_mpv_streq(refd_mpv_get(o, "class"),
					    c->cls[k].name))
						u->cls = k;
				if (refd_mpv_ok(refd_mpv_get(o, "class")) &&
				    u->cls < 0)
					fail(e, "events.json", d->id,
					    "class: unknown");
				u->rep_min = geti(o, "rep_min", -99, -20, 20, e,
				    "events.json", d->id);
				u->rep_max = geti(o, "rep_max", 99, -20, 20, e,
				    "events.json", d->id);
				u->otherwise = geti(o, "otherwise", 0, 0, 1, e,
				    "events.json", d->id);
				u->gold_coll = geti(o, "gold_collective", 0,
				    -99, 99, e, "events.json", d->id);
				u->gold_each = geti(o, "gold_each", 0, -99, 99,
				    e, "events.json", d->id);
				u->rep = geti(o, "reputation", 0, -5, 5, e,
				    "events.json", d->id);
				u->prosp = geti(o, "prosperity", 0, 0, 5, e,
				    "events.json", d->id);
				u->curse = geti(o, "curse_each", 0, 0, 3, e,
				    "events.json", d->id);
				u->damage_next = geti(o, "damage_next", 0, 0, 9,
				    e, "events.json", d->id);
				u->discard_next = geti(o, "discard_next", 0, 0,
				    3, e, "events.json", d->id);
				u->random_design = geti(o, "random_design", 0, 0,
				    1, e, "events.json", d->id);
				u->random_side = geti(o, "random_side", 0, 0, 1,
				    e, "events.json", d->id);
				u->design = u->item = -1;
				for (k = 0; k < c->nitem; k++) {
					it = c->item[k].id;
					if (refd_mpv_streq(refd_mpv_get(o,
					    "item_design"), it))
						u->design = k;
					if (refd_mpv_streq(refd_mpv_get(o, "item"),
					    it))
						u->item = k;
				}
			}
		}
	}
}

static void
parse_quests(refd_mpv root, struct content *c, struct perr *e)
{
	size_t i;
	int k;

	if (!refd_mpv_ok(root))
		return;
	if (refd_mpv_type(root) != REFD_MP_MAP || refd_mpv_len(root) > MAXPQ) {
		fail(e, "personalquests.json", "(top)", "at most 8 quests");
		return;
	}
	for (i = 0; i < refd_mpv_len(root); i++) {
		struct pqdef *q = &c->pq[c->npq++];
		refd_mpv v = refd_mpv_val_at(root, i);

		snprintf(q->id, sizeof(q->id), "%s",
		    refd_mpv_cstr(refd_mpv_key_at(root, i), "?"));
		snprintf(q->name, sizeof(q->name), "%s",
		    refd_mpv_get_str(v, "name", "?"));
		snprintf(q->opens, sizeof(q->opens), "%s",
		    refd_mpv_get_str(v, "opens", ""));
		q->gold = refd_mpv_streq(refd_mpv_get(v, "goal"), "gold");
		q->type = -1;
		for (k = 0; k < c->ntype; k++)
			if (refd_mpv_streq(refd_mpv_get(v, "monster"),
			    c->type[k].name))
				q->type = k;
		if (!q->gold && (q->type < 0 ||
		    !refd_mpv_streq(refd_mpv_get(v, "goal"), "kills")))
			fail(e, "personalquests.json", q->id, "goal: gold, or "
			    "kills with a known monster");
		q->target = geti(v, "target", 1, 1, 999, e,
		    "personalquests.json", q->id);
	}
}

/* Campaign fields of the maps, once every map is known. */
static void
parse_map_campaign(refd_mpv maps, struct content *c, struct perr *e)
{
	size_t i, j;
	int k, bad = 0;

	for (i = 0; i < refd_mpv_len(maps) && (int)i < c->nmap; i++) {
		struct mapdef *m = &c->map[i];
		refd_mpv v = refd_mpv_val_at(maps, i), rw = refd_mpv_get(v,
		    "rewards"), ul = refd_mpv_get(rw, "unlock");

		m->unlocked = refd_mpv_get_bool(v, "unlocked", 0);
		m->requires = ach_mask(c, refd_mpv_get(v, "requires"), &bad);
		m->rew_gold = (int32_t)refd_mpv_get_int(rw, "gold_each", 0);
		m->rew_rep = (int32_t)refd_mpv_get_int(rw, "reputation", 0);
		m->rew_ach = ach_mask(c, refd_mpv_get(rw, "achievements"), &bad);
		m->unlock = 0;
		for (j = 0; j < refd_mpv_len(ul); j++) {
			for (k = 0; k < c->nmap; k++)
				if (refd_mpv_streq(refd_mpv_at(ul, j),
				    c->map[k].name))
					break;
			if (k == c->nmap)
				bad = 1;
			else
				m->unlock |= 1 << k;
		}
		if (bad || m->rew_gold < 0 || m->rew_gold > 100 ||
		    m->rew_rep < -5 || m->rew_rep > 5) {
			fail(e, "maps.json", m->name, "requires, rewards: known "
			    "achievements and maps, gold_each 0..100, reputation "
			    "-5..5");
			return;
		}
	}
}

int
dg_content_parse(const uint8_t *bytes, size_t len, struct content *c,
    char *err, size_t errlen)
{
	refd_mpdoc *d = refd_mp_parse(bytes, len);
	refd_mpv root = refd_mp_root(d), maps;
	struct perr e;
	size_t i;

	memset(&e, 0, sizeof(e));
	if (d == NULL) {
		snprintf(err, errlen, "content is not msgpack");
		return -1;
	}
	if (!refd_mpv_ok(refd_mpv_get(root, "monsters")))
		fail(&e, "monsters.json", "(file)", "missing");
	else if (!refd_mpv_ok(refd_mpv_get(root, "mdecks")))
		fail(&e, "mdecks.json", "(file)", "missing");
	else
		parse_monsters(refd_mpv_get(root, "monsters"),
		    refd_mpv_get(root, "mdecks"), c, &e);
	if (!e.bad)
		parse_classes(refd_mpv_get(root, "classes"), c, &e);
	if (!e.bad)
		parse_items(refd_mpv_get(root, "items"), c, &e);
	if (!e.bad)
		parse_achievements(refd_mpv_get(root, "achievements"), c, &e);
	if (!e.bad)
		parse_goals(refd_mpv_get(root, "battlegoals"), c, &e);
	if (!e.bad)
		parse_events(refd_mpv_get(root, "events"), c, &e);
	if (!e.bad)
		parse_quests(refd_mpv_get(root, "personalquests"), c, &e);
	maps = refd_mpv_get(root, "maps");
	if (!e.bad && (refd_mpv_len(maps) < 1 || refd_mpv_len(maps) > MAXMAPS))
		fail(&e, "maps.json", "(top)", "expected 1 to 8 maps");
	for (i = 0; !e.bad && i < refd_mpv_len(maps); i++) {
		struct mapdef *m = &c->map[c->nmap++];
		char merr[200];

		snprintf(m->name, sizeof(m->name), "%s",
		    refd_mpv_cstr(refd_mpv_key_at(maps, i), "?"));
		if (parse_map(refd_mpv_val_at(maps, i), m, c, merr,
		    sizeof(merr)) != 0)
			fail(&e, "maps.json", m->name, merr);
	}
	if (!e.bad)
		parse_map_campaign(maps, c, &e);
	refd_mp_free(d);
	if (e.bad) {
		snprintf(err, errlen, "%s", e.msg);
		return -1;
	}
	return 0;
}
