/*
 * content.c - the encounter ruleset's content (weapons.json,
 * creatures.json, maps.json) and the creature fields a setup may override.
 * A broken file is refused with the file, the item, the field and why.
 */
#include <stdio.h>
#include <string.h>

#include "content.h"
#include "magic.h"
#include "gear.h"

static int
fail(char *err, size_t len, const char *file, const char *item,
    const char *field, const char *why)
{
	snprintf(err, len, "%s: '%s': field '%s': %s", file, item, field,
	    why);
	return -1;
}

static int
get_int(refd_mpv v, int64_t lo, int64_t hi, int32_t *out)
{
	int64_t x;

	if (refd_mpv_int(v, &x) != 0 || x < lo || x > hi)
		return -1;
	*out = (int32_t)x;
	return 0;
}

static int
get_bool(refd_mpv v, int32_t *out)
{
	int b;

	if (refd_mpv_bool(v, &b) != 0)
		return -1;
	*out = b != 0;
	return 0;
}

/* "1d8", "2d6". */
static int
parse_dice(const char *s, int32_t *nd, int32_t *sd)
{
	int a, b;
	char tail;

	if (sscanf(s, "%dd%d%c", &a, &b, &tail) != 2 || a < 1 || a > 10 ||
	    b < 1 || b > 20)
		return -1;
	*nd = a;
	*sd = b;
	return 0;
}

void
unarmed_weapon(struct weapon *w, int size)
{
	memset(w, 0, sizeof(*w));
	snprintf(w->name, sizeof(w->name), "unarmed strike");
	w->nd = 1;
	w->sd = size < 0 ? 2 : (size > 0 ? 4 : 3);
	w->threat = 20;
	w->mult = 2;
	w->cat = 0;
	w->dtype = DT_B;
	w->nonlethal = 1;
	w->unarmed = 1;
}

static const char *const catname[] = { "light", "one-handed", "two-handed" };

int
parse_weapon(refd_mpv v, const char *name, struct weapon *w, char *err,
    size_t elen)
{
	size_t i;
	int32_t throwable = 0;
	const char *F = "weapons.json";

	memset(w, 0, sizeof(*w));
	snprintf(w->name, sizeof(w->name), "%s", name);
	w->threat = 20;
	w->mult = 2;
	w->cat = 1;
	if (refd_mpv_type(v) != REFD_MP_MAP)
		return fail(err, elen, F, name, "-", "expected an object");
	for (i = 0; i < refd_mpv_len(v); i++) {
		const char *k = refd_mpv_cstr(refd_mpv_key_at(v, i), "");
		refd_mpv x = refd_mpv_val_at(v, i);
		int bad = 0, j;

		if (strcmp(k, "damage") == 0) {
			bad = parse_dice(refd_mpv_cstr(x, ""), &w->nd, &w->sd);
		} else if (strcmp(k, "threat") == 0) {
			bad = get_int(x, 2, 20, &w->threat);
		} else if (strcmp(k, "multiplier") == 0) {
			bad = get_int(x, 2, 4, &w->mult);
		} else if (strcmp(k, "category") == 0) {
			bad = -1;
			for (j = 0; j < 3; j++)
				if (refd_mpv_streq(x, catname[j])) {
					w->cat = j;
					bad = 0;
				}
		} else if (strcmp(k, "ranged") == 0) {
			if (refd_mpv_streq(x, "thrown"))
				w->ranged = 1;
			else if (refd_mpv_streq(x, "projectile"))
				w->ranged = 2;
			else
				bad = -1;
		} else if (strcmp(k, "throwable") == 0) {
			bad = get_bool(x, &throwable);
		} else if (strcmp(k, "increment") == 0) {
			bad = get_int(x, 1, 100, &w->incr);
		} else if (strcmp(k, "type") == 0) {
			const char *t = refd_mpv_cstr(x, "");

			if (*t == '\0')
				bad = -1;
			for (; *t != '\0'; t++) {
				if (*t == 'B')
					w->dtype |= DT_B;
				else if (*t == 'P')
					w->dtype |= DT_P;
				else if (*t == 'S')
					w->dtype |= DT_S;
				else
					bad = -1;
			}
		} else if (strcmp(k, "reach") == 0) {
			bad = get_bool(x, &w->reach);
		} else if (strcmp(k, "trip") == 0) {
			bad = get_bool(x, &w->trip);
		} else if (strcmp(k, "composite") == 0) {
			bad = get_bool(x, &w->composite);
		} else if (strcmp(k, "sling") == 0) {
			bad = get_bool(x, &w->sling);
		} else if (strcmp(k, "crossbow") == 0) {
			bad = get_bool(x, &w->crossbow);
		} else if (strcmp(k, "load") == 0) {
			const char *t = refd_mpv_cstr(x, "");

			w->load = strcmp(t, "move") == 0 ? 1 :
			    (strcmp(t, "full_round") == 0 ? 2 : 0);
			bad = w->load == 0 ? -1 : 0;
		} else if (strcmp(k, "nonlethal") == 0) {
			bad = get_bool(x, &w->nonlethal);
		} else if (strcmp(k, "natural") == 0) {
			bad = get_bool(x, &w->natural);
		} else if (strcmp(k, "hardness") == 0) {
			bad = get_int(x, 0, 50, &w->hardness);
		} else if (strcmp(k, "hp") == 0) {
			bad = get_int(x, 1, 200, &w->ihp);
		} else if (strcmp(k, "lance") == 0) {
			bad = get_bool(x, &w->lance);
		} else if (strcmp(k, "two_headed") == 0) {
			bad = get_bool(x, &w->dbl);
		} else if (strcmp(k, "gauntlet") == 0) {
			bad = get_bool(x, &w->gauntlet);
		} else if (strcmp(k, "splash") == 0) {
			bad = get_int(x, 1, 20, &w->splash);
		} else if (strcmp(k, "enhancement") == 0) {
			bad = get_int(x, 0, 5, &w->enh);
		} else if (strcmp(k, "doc") == 0 || strcmp(k, "name") == 0) {
			bad = refd_mpv_type(x) == REFD_MP_STR ? 0 : -1;
		} else {
			return fail(err, elen, F, name, k, "unknown field");
		}
		if (bad)
			return fail(err, elen, F, name, k, "invalid value");
	}
	if (w->nd == 0)
		return fail(err, elen, F, name, "damage",
		    "missing (expected dice such as \"1d8\")");
	if (w->dtype == 0)
		return fail(err, elen, F, name, "type",
		    "missing (expected B, P and/or S)");
	if ((w->ranged || throwable) && w->incr == 0)
		return fail(err, elen, F, name, "increment",
		    "a ranged or throwable weapon needs a range increment");
	if (throwable && w->ranged)
		return fail(err, elen, F, name, "throwable",
		    "a ranged weapon is already thrown or fired");
	if (!w->ranged && !throwable)
		w->incr = 0;	/* a melee weapon: no increment */
	if (w->ihp == 0)
		w->ihp = w->cat == 0 ? 2 : (w->cat == 1 ? 5 : 10);
	if (w->crossbow && w->load == 0)
		w->load = 1;	/* a hand or light crossbow (1.7) */
	return 0;
}

static const char *const featname[NFEATS] = {
	"combat_reflexes", "improved_unarmed_strike", "improved_trip",
	"improved_bull_rush", "improved_disarm", "improved_sunder",
	"improved_feint", "precise_shot", "two_weapon_fighting", "run",
	"uncanny_dodge", "improved_overrun", "cleave", "great_cleave", "trample"
};

const char *
feat_name(int i)
{
	return i >= 0 && i < NFEATS ? featname[i] : "?";
}

static const char *const sizename[] = { "tiny", "small", "medium", "large",
	"huge" };

const char *
size_name(int size)
{
	return size >= -2 && size <= 2 ? sizename[size + 2] : "?";
}

static const char *const armorname[] = { "none", "light", "medium", "heavy" };

const struct weapon *
find_weapon(const struct content *c, const char *name)
{
	int i;

	for (i = 0; i < c->nw; i++)
		if (strcmp(c->w[i].name, name) == 0)
			return &c->w[i];
	return NULL;
}

const struct cdef *
find_cdef(const struct content *c, const char *name)
{
	int i;

	for (i = 0; i < c->nd; i++)
		if (strcmp(c->d[i].name, name) == 0)
			return &c->d[i];
	return NULL;
}

void
cdef_defaults(struct cdef *d, const char *name)
{
	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->speed = 6;
	d->str = d->dex = d->con = d->intl = d->wis = d->cha = 10;
	d->maxdex = 99;
	d->hp = 10;
	d->legs = 2;
	d->humanoid = 1;
	d->reach = -1;
	unarmed_weapon(&d->w[0], 0);
}

/*
 * One creature field.  Returns 1 when the key is not a creature field,
 * 0 when parsed, -1 (err filled) when the value is bad.
 */
int
parse_cfield(const struct content *c, struct cdef *d, const char *k,
    refd_mpv x, const char *file, const char *item, char *err, size_t elen)
{
	static const struct {
		const char *key;
		size_t off;
		int64_t lo, hi;
	} ints[] = {
		{ "speed", offsetof(struct cdef, speed), 0, 30 },
		{ "bab", offsetof(struct cdef, bab), 0, 30 },
		{ "str", offsetof(struct cdef, str), 1, 50 },
		{ "dex", offsetof(struct cdef, dex), 1, 50 },
		{ "con", offsetof(struct cdef, con), 1, 50 },
		{ "int", offsetof(struct cdef, intl), 0, 50 },
		{ "wis", offsetof(struct cdef, wis), 1, 50 },
		{ "cha", offsetof(struct cdef, cha), 1, 50 },
		{ "armor", offsetof(struct cdef, armor), 0, 20 },
		{ "shield", offsetof(struct cdef, shield), 0, 10 },
		{ "natural", offsetof(struct cdef, natural), 0, 30 },
		{ "deflection", offsetof(struct cdef, deflect), 0, 10 },
		{ "max_dex", offsetof(struct cdef, maxdex), 0, 99 },
		{ "hp", offsetof(struct cdef, hp), 1, 999 },
		{ "init", offsetof(struct cdef, init), -20, 40 },
		{ "fort", offsetof(struct cdef, fort), -10, 40 },
		{ "ref", offsetof(struct cdef, ref), -10, 40 },
		{ "will", offsetof(struct cdef, will), -10, 40 },
		{ "legs", offsetof(struct cdef, legs), 0, 100 },
		{ "sneak_dice", offsetof(struct cdef, sneak), 0, 10 },
		{ "bluff", offsetof(struct cdef, bluff), -20, 50 },
		{ "sense_motive", offsetof(struct cdef, sense), -20, 50 },
		{ "heal", offsetof(struct cdef, heal), -20, 50 },
		{ "reach", offsetof(struct cdef, reach), 0, 4 },
		{ "concealment", offsetof(struct cdef, conceal), 0, 100 },
		{ "caster_level", offsetof(struct cdef, caster_level), 0, 20 },
		{ "turn_level", offsetof(struct cdef, turn_level), 0, 20 },
		{ "turn_uses", offsetof(struct cdef, turn_uses), 0, 20 },
		{ "hd", offsetof(struct cdef, hd), 0, 40 },
		{ "monk_bonus", offsetof(struct cdef, monk_bonus), 0, 12 },
		{ "shield_hardness", offsetof(struct cdef, shield_hardness), 0,
		    50 },
		{ "shield_hp", offsetof(struct cdef, shield_hp), 0, 200 },
		{ "concentration", offsetof(struct cdef, concentration), -10,
		    50 },
		{ "ride", offsetof(struct cdef, ride), -20, 50 },
		{ "hide", offsetof(struct cdef, hide), -20, 60 },
		{ "spot", offsetof(struct cdef, spot), -20, 60 },
		{ "escape_artist", offsetof(struct cdef, escape), -20, 60 },
		{ "armor_check_penalty", offsetof(struct cdef, acp), 0, 20 },
	};
	static const struct {
		const char *key;
		size_t off;
	} bools[] = {
		{ "stable", offsetof(struct cdef, stable) },
		{ "humanoid", offsetof(struct cdef, humanoid) },
		{ "crit_immune", offsetof(struct cdef, crit_immune) },
		{ "dwarf", offsetof(struct cdef, dwarf) },
		{ "fast_movement", offsetof(struct cdef, fast) },
		{ "flying", offsetof(struct cdef, fly) },
		{ "incorporeal", offsetof(struct cdef, incorporeal) },
		{ "invisible", offsetof(struct cdef, invisible) },
		{ "undead", offsetof(struct cdef, undead) },
		{ "heavy_load", offsetof(struct cdef, heavy_load) },
		{ "see_invisible", offsetof(struct cdef, see_invis) },
		{ "military_saddle", offsetof(struct cdef, saddle) },
		{ "darkvision", offsetof(struct cdef, darkvision) },
		{ "fills_space", offsetof(struct cdef, fills) },
		{ "locked_gauntlet", offsetof(struct cdef, locked) },
	};
	size_t i;
	int j;

	for (i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		if (strcmp(k, ints[i].key) == 0) {
			if (get_int(x, ints[i].lo, ints[i].hi,
			    (int32_t *)(void *)((char *)d + ints[i].off)) != 0) {
				char why[64];

				snprintf(why, sizeof(why),
				    "expected an integer %lld..%lld",
				    (long long)ints[i].lo,
				    (long long)ints[i].hi);
				return fail(err, elen, file, item, k, why);
			}
			return 0;
		}
	for (i = 0; i < sizeof(bools) / sizeof(bools[0]); i++)
		if (strcmp(k, bools[i].key) == 0) {
			if (get_bool(x, (int32_t *)(void *)((char *)d +
			    bools[i].off)) != 0)
				return fail(err, elen, file, item, k,
				    "expected true or false");
			return 0;
		}
	if (strcmp(k, "size") == 0) {
		for (j = 0; j < 5; j++)
			if (refd_mpv_streq(x, sizename[j])) {
				d->size = j - 2;
				if (d->w[0].unarmed)
					unarmed_weapon(&d->w[0], d->size);
				return 0;
			}
		return fail(err, elen, file, item, k,
		    "expected tiny, small, medium, large or huge");
	}
	if (strcmp(k, "mount") == 0) {	/* 5.15 */
		if (refd_mpv_streq(x, "trained"))
			d->mount = 1;
		else if (refd_mpv_streq(x, "untrained"))
			d->mount = 2;
		else
			return fail(err, elen, file, item, k,
			    "expected trained or untrained");
		return 0;
	}
	if (strcmp(k, "armor_type") == 0) {
		for (j = 0; j < 4; j++)
			if (refd_mpv_streq(x, armorname[j])) {
				d->armor_type = j;
				return 0;
			}
		return fail(err, elen, file, item, k,
		    "expected none, light, medium or heavy");
	}
	if (strcmp(k, "feats") == 0) {
		if (refd_mpv_type(x) != REFD_MP_ARRAY)
			return fail(err, elen, file, item, k,
			    "expected an array of feat names");
		d->feats = 0;
		for (i = 0; i < refd_mpv_len(x); i++) {
			for (j = 0; j < NFEATS; j++)
				if (refd_mpv_streq(refd_mpv_at(x, i),
				    featname[j]))
					break;
			if (j == NFEATS)
				return fail(err, elen, file, item, k,
				    "unknown feat");
			d->feats |= 1 << j;
		}
		return 0;
	}
	if (strcmp(k, "potions") == 0) {
		if (refd_mpv_type(x) != REFD_MP_MAP || refd_mpv_len(x) > 2)
			return fail(err, elen, file, item, k,
			    "expected an object of at most 2 spell: count");
		memset(d->potion, 0, sizeof(d->potion));
		memset(d->potions, 0, sizeof(d->potions));
		for (i = 0; i < refd_mpv_len(x); i++) {
			const char *sn = refd_mpv_cstr(refd_mpv_key_at(x, i), "");

			for (j = 0; j < c->nsp; j++)
				if (strcmp(c->sp[j].name, sn) == 0)
					break;
			if (j == c->nsp || c->sp[j].effect == 0)
				return fail(err, elen, file, item, k,
				    "no such healing or temp_hp spell");
			d->potion[i] = c->sp[j];
			if (get_int(refd_mpv_val_at(x, i), 1, 20,
			    &d->potions[i]) != 0)
				return fail(err, elen, file, item, k,
				    "counts must be 1..20");
		}
		return 0;
	}
	if (strcmp(k, "weapon") == 0 || strcmp(k, "offhand") == 0) {
		int slot = k[0] == 'o';
		const struct weapon *w;

		if (refd_mpv_type(x) == REFD_MP_NIL) {
			if (slot == 0)
				unarmed_weapon(&d->w[0], d->size);
			else
				memset(&d->w[1], 0, sizeof(d->w[1]));
			return 0;
		}
		if (refd_mpv_type(x) == REFD_MP_MAP) {
			/* an inline definition, checked as in weapons.json */
			if (parse_weapon(x, refd_mpv_get_str(x, "name",
			    "weapon"), &d->w[slot], err, elen) != 0)
				return -1;
			return 0;
		}
		w = find_weapon(c, refd_mpv_cstr(x, ""));
		if (w == NULL)
			return fail(err, elen, file, item, k,
			    "no such weapon in weapons.json");
		d->w[slot] = *w;
		return 0;
	}
	{
		char why[120];
		int rc = mg_cfield(c, d, k, x, why, sizeof(why));

		if (rc > 0)
			rc = gr_cfield(d, k, x, why, sizeof(why));

		if (rc < 0)
			return fail(err, elen, file, item, k, why);
		return rc;
	}
}

int
parse_cdef(const struct content *c, refd_mpv v, const char *name,
    struct cdef *d, char *err, size_t elen)
{
	size_t i;
	const char *F = "creatures.json";

	cdef_defaults(d, name);
	if (refd_mpv_type(v) != REFD_MP_MAP)
		return fail(err, elen, F, name, "-", "expected an object");
	/* Size first: the unarmed strike depends on it. */
	for (i = 0; i < refd_mpv_len(v); i++) {
		const char *k = refd_mpv_cstr(refd_mpv_key_at(v, i), "");
		int rc;

		if (strcmp(k, "doc") == 0)
			continue;
		rc = parse_cfield(c, d, k, refd_mpv_val_at(v, i), F, name, err,
		    elen);
		if (rc < 0)
			return -1;
		if (rc > 0)
			return fail(err, elen, F, name, k, "unknown field");
	}
	gr_fix(d);
	return 0;
}

static int
sqlist(refd_mpv v, struct mapdef *m, uint8_t flag, const char *name,
    const char *key, char *err, size_t elen)
{
	size_t i;
	int32_t x, y, p;

	if (!refd_mpv_ok(v))
		return 0;
	if (refd_mpv_type(v) != REFD_MP_ARRAY)
		return fail(err, elen, "maps.json", name, key,
		    "expected an array of [x, y] squares");
	for (i = 0; i < refd_mpv_len(v); i++) {
		refd_mpv e = refd_mpv_at(v, i);

		if (get_int(refd_mpv_at(e, 0), 0, m->w - 1, &x) != 0 ||
		    get_int(refd_mpv_at(e, 1), 0, m->h - 1, &y) != 0)
			return fail(err, elen, "maps.json", name, key,
			    "a square is off the map");
		if (flag == 0) {
			if (get_int(refd_mpv_at(e, 2), 1, 100, &p) != 0)
				return fail(err, elen, "maps.json", name, key,
				    "expected [x, y, percent]");
			m->fog[y][x] = (uint8_t)p;
		} else {
			m->sq[y][x] |= flag;
		}
	}
	return 0;
}

int
parse_map(refd_mpv v, const char *name, struct mapdef *m, char *err,
    size_t elen)
{
	refd_mpv e;
	size_t i;
	const char *F = "maps.json";
	static const char *const known[] = { "w", "h", "walls", "difficult",
		"obstacles", "fog", "edges", "doc", "arrow_slits", "darkness",
		"opaque", "narrow", "crevice" };

	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "%s", name);
	if (refd_mpv_type(v) != REFD_MP_MAP)
		return fail(err, elen, F, name, "-", "expected an object");
	for (i = 0; i < refd_mpv_len(v); i++) {
		const char *k = refd_mpv_cstr(refd_mpv_key_at(v, i), "");
		size_t j;

		for (j = 0; j < sizeof(known) / sizeof(known[0]); j++)
			if (strcmp(k, known[j]) == 0)
				break;
		if (j == sizeof(known) / sizeof(known[0]))
			return fail(err, elen, F, name, k, "unknown field");
	}
	if (get_int(refd_mpv_get(v, "w"), 2, MAXM, &m->w) != 0)
		return fail(err, elen, F, name, "w", "expected 2..40");
	if (get_int(refd_mpv_get(v, "h"), 2, MAXM, &m->h) != 0)
		return fail(err, elen, F, name, "h", "expected 2..40");
	if (sqlist(refd_mpv_get(v, "walls"), m, SQ_WALL, name, "walls", err,
	    elen) != 0 ||
	    sqlist(refd_mpv_get(v, "difficult"), m, SQ_DIFF, name,
	    "difficult", err, elen) != 0 ||
	    sqlist(refd_mpv_get(v, "obstacles"), m, SQ_OBST, name,
	    "obstacles", err, elen) != 0 ||
	    sqlist(refd_mpv_get(v, "fog"), m, 0, name, "fog", err, elen) != 0 ||
	    sqlist(refd_mpv_get(v, "arrow_slits"), m, SQ_IMPROVED, name,
	    "arrow_slits", err, elen) != 0 ||
	    sqlist(refd_mpv_get(v, "darkness"), m, SQ_DARK, name,
	    "darkness", err, elen) != 0 ||
	    sqlist(refd_mpv_get(v, "opaque"), m, SQ_OPAQUE, name,
	    "opaque", err, elen) != 0 ||
	    sqlist(refd_mpv_get(v, "narrow"), m, SQ_NARROW, name,
	    "narrow", err, elen) != 0 ||
	    sqlist(refd_mpv_get(v, "crevice"), m, SQ_CREVICE, name,
	    "crevice", err, elen) != 0)
		return -1;
	e = refd_mpv_get(v, "edges");
	if (refd_mpv_ok(e) && refd_mpv_type(e) != REFD_MP_ARRAY)
		return fail(err, elen, F, name, "edges",
		    "expected an array of [x, y, \"h\"|\"v\", "
		    "\"wall\"|\"low\"|\"opaque\"]");
	for (i = 0; i < refd_mpv_len(e); i++) {
		refd_mpv it = refd_mpv_at(e, i);
		int32_t x, y;
		uint8_t fl;

		if (get_int(refd_mpv_at(it, 0), 0, m->w, &x) != 0 ||
		    get_int(refd_mpv_at(it, 1), 0, m->h, &y) != 0)
			return fail(err, elen, F, name, "edges",
			    "an edge is off the map");
		if (refd_mpv_streq(refd_mpv_at(it, 3), "wall"))
			fl = E_WALL;
		else if (refd_mpv_streq(refd_mpv_at(it, 3), "low"))
			fl = E_LOW;
		else if (refd_mpv_streq(refd_mpv_at(it, 3), "opaque"))
			fl = E_OPAQUE;
		else
			return fail(err, elen, F, name, "edges",
			    "the kind must be \"wall\", \"low\" or "
			    "\"opaque\"");
		if (refd_mpv_streq(refd_mpv_at(it, 2), "h"))
			m->eh[y][x] |= fl;
		else if (refd_mpv_streq(refd_mpv_at(it, 2), "v"))
			m->ev[y][x] |= fl;
		else
			return fail(err, elen, F, name, "edges",
			    "the direction must be \"h\" or \"v\"");
	}
	return 0;
}

static int
parse_spell(refd_mpv v, const char *name, struct spell *sp, char *err,
    size_t elen)
{
	static const char *const times[] = { "standard", "full_round", "free",
		"one_round", "minutes" };
	static const char *const effects[] = { "damage", "heal", "temp_hp",
		"condition", "con_boost" };
	static const char *const attacks[] = { "none", "ranged_touch",
		"melee_touch" };
	static const char *const saves[] = { "none", "fort", "ref", "will" };
	const char *F = "spells.json";
	size_t i;
	int j, bad;

	memset(sp, 0, sizeof(*sp));
	snprintf(sp->name, sizeof(sp->name), "%s", name);
	if (refd_mpv_type(v) != REFD_MP_MAP)
		return fail(err, elen, F, name, "-", "expected an object");
	for (i = 0; i < refd_mpv_len(v); i++) {
		const char *k = refd_mpv_cstr(refd_mpv_key_at(v, i), "");
		refd_mpv x = refd_mpv_val_at(v, i);

		bad = 0;
#define ENUMF(key, tab, dst)						\
		if (strcmp(k, key) == 0) {					\
			bad = -1;						\
			for (j = 0; j < (int)(sizeof(tab) / sizeof(tab[0])); j++) \
				if (refd_mpv_streq(x, tab[j])) {		\
					dst = j;				\
					bad = 0;				\
				}						\
		} else
		ENUMF("time", times, sp->time)
		ENUMF("effect", effects, sp->effect)
		ENUMF("attack", attacks, sp->attack)
		ENUMF("save", saves, sp->save)
		if (strcmp(k, "level") == 0)
			bad = get_int(x, 0, 9, &sp->level);
		else if (strcmp(k, "range") == 0)
			bad = get_int(x, 0, 100, &sp->range);
		else if (strcmp(k, "rounds") == 0)
			bad = get_int(x, 0, 100, &sp->rounds);
		else if (strcmp(k, "half") == 0)
			bad = get_bool(x, &sp->half);
		else if (strcmp(k, "nonlethal") == 0)
			bad = get_bool(x, &sp->nonlethal);
		else if (strcmp(k, "bonus") == 0)
			bad = get_int(x, 0, 100, &sp->bonus);
		else if (strcmp(k, "dice") == 0)
			bad = parse_dice(refd_mpv_cstr(x, ""), &sp->nd, &sp->sd);
		else if (strcmp(k, "doc") == 0)
			bad = refd_mpv_type(x) == REFD_MP_STR ? 0 : -1;
		else if ((bad = mg_spell_field(sp, k, x)) > 0)
			return fail(err, elen, F, name, k, "unknown field");
#undef ENUMF
		if (bad)
			return fail(err, elen, F, name, k, "invalid value");
	}
	if (sp->nd == 0 && sp->effect < 3)
		return fail(err, elen, F, name, "dice", "missing");
	if (mg_spell_done(sp, err, elen) != 0)
		return -1;
	if (sp->attack == 2 && sp->range != 0)
		return fail(err, elen, F, name, "range",
		    "a melee touch spell has range 0");
	return 0;
}

int
parse_content(refd_mpv root, struct content *c, char *err, size_t elen)
{
	refd_mpv ws = refd_mpv_get(root, "weapons");
	refd_mpv cs = refd_mpv_get(root, "creatures");
	refd_mpv ms = refd_mpv_get(root, "maps");
	size_t i;

	memset(c, 0, sizeof(*c));
	if (refd_mpv_type(ws) != REFD_MP_MAP || refd_mpv_len(ws) > MAXW) {
		snprintf(err, elen, "weapons.json: expected an object of at "
		    "most %d weapons", MAXW);
		return -1;
	}
	if (refd_mpv_type(cs) != REFD_MP_MAP || refd_mpv_len(cs) > MAXD) {
		snprintf(err, elen, "creatures.json: expected an object of at "
		    "most %d creatures", MAXD);
		return -1;
	}
	if (refd_mpv_type(ms) != REFD_MP_MAP || refd_mpv_len(ms) > MAXMAPS) {
		snprintf(err, elen, "maps.json: expected an object of at "
		    "most %d maps", MAXMAPS);
		return -1;
	}
	{
		refd_mpv ss = refd_mpv_get(root, "spells");

		if (refd_mpv_ok(ss) && (refd_mpv_type(ss) != REFD_MP_MAP ||
		    refd_mpv_len(ss) > MAXSPC)) {
			snprintf(err, elen, "spells.json: expected an object of "
			    "at most %d spells", MAXSPC);
			return -1;
		}
		for (i = 0; i < refd_mpv_len(ss); i++) {
			const char *n = refd_mpv_cstr(refd_mpv_key_at(ss, i),
			    "?");

			if (strlen(n) >= NAMEL)
				return fail(err, elen, "spells.json", n, "-",
				    "name too long");
			if (parse_spell(refd_mpv_val_at(ss, i), n,
			    &c->sp[c->nsp], err, elen) != 0)
				return -1;
			c->nsp++;
		}
	}
	for (i = 0; i < refd_mpv_len(ws); i++) {
		const char *n = refd_mpv_cstr(refd_mpv_key_at(ws, i), "?");

		if (strlen(n) >= NAMEL)
			return fail(err, elen, "weapons.json", n, "-",
			    "name too long");
		if (parse_weapon(refd_mpv_val_at(ws, i), n, &c->w[c->nw], err,
		    elen) != 0)
			return -1;
		c->nw++;
	}
	for (i = 0; i < refd_mpv_len(cs); i++) {
		const char *n = refd_mpv_cstr(refd_mpv_key_at(cs, i), "?");

		if (strlen(n) >= NAMEL)
			return fail(err, elen, "creatures.json", n, "-",
			    "name too long");
		if (parse_cdef(c, refd_mpv_val_at(cs, i), n, &c->d[c->nd], err,
		    elen) != 0)
			return -1;
		c->nd++;
	}
	for (i = 0; i < refd_mpv_len(ms); i++) {
		const char *n = refd_mpv_cstr(refd_mpv_key_at(ms, i), "?");

		if (strlen(n) >= NAMEL)
			return fail(err, elen, "maps.json", n, "-",
			    "name too long");
		if (parse_map(refd_mpv_val_at(ms, i), n, &c->m[c->nm], err,
		    elen) != 0)
			return -1;
		c->nm++;
	}
	return 0;
}
