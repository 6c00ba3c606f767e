/*
 * encounter.c - refd ruleset plugin "encounter": d20 tactical combat
 * (the combat chapter of the d20 SRD, restated in
 * shared/specs/encounter.md).  This file holds the plugin ABI ops: the
 * description, content, setup and initiative, and the state's views and
 * bytes.  The rules live in rules.c, move.c and cmd.c; geometry in
 * geom.c.  See refd-encounter(7).
 */
#include <stdio.h>
#include <stddef.h>
#include <string.h>

#include "refd/board.h"

#include "cmd.h"
#include "conceal.h"
#include "content.h"
#include "maneuver.h"
#include "geom.h"
#include "mount.h"
#include "magic.h"
#include "gear.h"
#include "move.h"
#include "rules.h"

const struct refd_host *enc_host;
#define H enc_host

static const char *const cn[NCOND] = {
	"kneeling", "blinded", "dazzled", "deafened", "entangled", "shaken",
	"frightened", "cowering", "stunned", "paralysed", "dazed", "fatigued",
	"exhausted", "nauseated", "sickened", "squeezing", "higher_ground",
	"panicked", "gagged", "silenced", "bound"
};

const char *enc_cond_name(int i);
const char *
enc_cond_name(int i)
{
	return i >= 0 && i < NCOND ? cn[i] : "?";
}

static int
e_init(refd_ctx *ctx, const struct refd_host *host, void **pdata)
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
opt(refd_mpw *w, const char *name, const char *type, const char *doc)
{
	refd_mpw_kmap(w, name);
	refd_mpw_kstr(w, "type", type);
	refd_mpw_kstr(w, "doc", doc);
	refd_mpw_end(w);
}

static const struct {
	const char *args[4][2];
	const char *doc;
} cmddoc[C_NCMD] = {
	{ { { "to", "[x, y]" }, { "path", "[[x, y], ...], optional" } },
	    "move action: move up to speed (cheapest path to \"to\", or the "
	    "given path)" },
	{ { { "to", "[x, y]" } }, "5-foot step to an adjacent square" },
	{ { { "target", "str: creature name" }, { "square", "[x, y] instead" },
	    { "defensive", "bool" }, { "nonlethal", "bool" } },
	    "standard action: one attack with the main weapon (also: lethal)" },
	{ { { "target", "str: creature name" }, { "off", "bool: off-hand" },
	    { "defensive", "bool" } },
	    "the next attack of a full attack (the first commits the turn)" },
	{ { { "target", "str: creature name" }, { "to", "[x, y], optional" },
	    { "kind", "str: attack | bull_rush" },
	    { "overrun", "str: creature name: a foe in the line, overrun" } },
	    "charge: straight line, one attack at +2, -2 AC" },
	{ { { "to", "[x, y]" } }, "run in a straight line (full round)" },
	{ { { "to", "[x, y]" }, { "path", "[[x, y], ...], optional" } },
	    "withdraw: 2x speed, the first square does not provoke" },
	{ { { NULL, NULL } }, "standard action: +4 dodge AC, no AoOs" },
	{ { { NULL, NULL } }, "delay: act later, between two turns" },
	{ { { NULL, NULL } }, "move action: stand up (provokes)" },
	{ { { NULL, NULL } }, "free action: drop prone" },
	{ { { "target", "str: creature name" }, { "full", "bool: in a full attack" } },
	    "trip (replaces an attack)" },
	{ { { "target", "str: creature name" } }, "bull rush an adjacent foe" },
	{ { { "target", "str: creature name" }, { "full", "bool: in a full attack" },
	    { "item", "str: weapon (default) | potion | worn (and \"name\": the "
	    "worn item)" },
	    { "spell", "str: with item potion, the potion's spell" } },
	    "disarm (replaces an attack), or grab a carried potion or a "
	    "worn item" },
	{ { { "target", "str: creature name" },
	    { "item", "str: weapon|armor|shield|potion" },
	    { "full", "bool: in a full attack" },
	    { "spell", "str: with item potion, the potion's spell" } },
	    "sunder a held weapon or shield, or smash a carried potion" },
	{ { { "target", "str: creature name" }, { "full", "bool: in a full attack" } },
	    "start a grapple, or join one (no AoO, automatic grab)" },
	{ { { "target", "the opponent (optional with one)" },
	    { "full", "bool: as an attack of a full attack" },
	    { "lethal", "bool: lethal damage, -4 on the check" } },
	    "grappling: damage the opponent" },
	{ { { "to", "[x, y], optional: where to land" },
	    { "full", "bool: as an attack of a full attack" } },
	    "grappling: escape (beat every opponent), or break a pin" },
	{ { { "target", "str: creature name" } },
	    "feint: Bluff against Sense Motive + BAB" },
	{ { { "ally", "str: creature name" }, { "target", "str: creature name" },
	    { "mode", "str: attack | ac" } }, "aid another" },
	{ { { "target", "str: creature name" }, { "square", "[x, y] instead" },
	    { "start", "bool" } },
	    "coup de grace on an adjacent helpless creature (on a square: "
	    "two turns, one to find it, one to strike)" },
	{ { { "target", "str: creature name" } },
	    "Heal check DC 15 to stabilize a dying creature" },
	{ { { NULL, NULL } }, "end the turn" },
	{ { { "take", "bool" }, { "target", "the provoker's mount, optional" } },
	    "prompt: make the attack of opportunity" },
	{ { { "take", "bool" } }, "prompt: counter-trip or counter-disarm" },
	{ { { "take", "bool" } }, "prompt: follow the bull-rushed creature" },
	{ { { NULL, NULL } }, "prompt: a delaying creature acts now" },
	{ { { NULL, NULL } }, "prompt: a delaying creature keeps waiting" },
	{ { { "target", "str: creature name" }, { "trigger", "str: reach | casts" },
	    { "action", "str: attack | move (with to) | drop_prone | cast (with "
	    "spell: a spell name) | counterspell" }, { "to", "[x, y]" } },
	    "standard action: ready an action for when the target comes "
	    "within reach, or starts casting" },
	{ { { "take", "bool" } }, "prompt: fire the readied attack" },
	{ { { "to", "[x, y]" } },
	    "move action while prone: crawl 1 square (provokes)" },
	{ { { "to", "[x, y]" }, { "start", "bool" } },
	    "full-round action: move 1 square whatever the cost" },
	{ { { "spell", "str: spell name" }, { "target", "str: creature name" },
	    { "defensive", "bool: cast defensively" }, { "start", "bool" } },
	    "cast a spell (provokes unless cast defensively); also "
	    "metamagic: extend | empower | still | silent, and hold: bool "
	    "(no target) to hold a touch charge; mounted, \"mount_moves\": "
	    "true casts between the mount's two moves" },
	{ { { "target", "str: creature name" } },
	    "overrun an adjacent foe: move through its space to the square "
	    "beyond (a move and a standard action)" },
	{ { { "take", "bool" } },
	    "prompt: avoid the overrun (true) or block it (false)" },
	{ { { "target", "str: creature name, or none to decline" } },
	    "prompt: Cleave, one more melee attack after dropping a foe" },
	{ { { "target", "the opponent (optional with one)" },
	    { "full", "bool: as an attack of a full attack" },
	    { "silence", "bool: it cannot speak while pinned" } },
	    "grappling: pin the opponent for a round" },
	{ { { "target", "the pinned opponent (optional)" } },
	    "free action: release a pinned opponent and leave the grapple" },
	{ { { "target", "str: creature name" }, { "point", "[x, y] intersection" } },
	    "throw a splash weapon at a creature or a grid intersection" },
	{ { { "target", "grappling: the opponent (optional with one)" } },
	    "draw the sheathed weapon(s): a move action, free after a move "
	    "with BAB +1; grappling, a light weapon with a won check" },
	{ { { NULL, NULL } }, "sheathe the held weapon(s): a move action" },
	{ { { NULL, NULL } }, "standard action: turn undead within 12 squares" },
	{ { { "spell", "str: the potion's spell" } },
	    "standard action: drink a potion (provokes)" },
	{ { { "to", "[x, y]" }, { "path", "[[x, y], ...]" } },
	    "grappling, standard action: beat every other participant's "
	    "grapple check and move up to half speed, dragging them along" },
	{ { { "target", "the grapple opponent" },
	    { "full", "bool: as an attack of a full attack" } },
	    "grappling, standard action: win a grapple check and attack the "
	    "opponent with the light weapon in its hand, at -4" },
	{ { { "target", "the pinned ally" },
	    { "full", "bool: as an attack of a full attack" } },
	    "grappling, standard action: win a grapple check against the "
	    "pinner and free the ally from the pin" },
	{ { { "target", "the mount's name" }, { "fast", "bool: Ride DC 20" } },
	    "move action: mount an adjacent mount of your side (quick: a free "
	    "action on a Ride check DC 20, else a move action)" },
	{ { { "to", "[x, y], optional" }, { "fast", "bool: Ride DC 20" } },
	    "move action: dismount to a square next to the mount (quick: a "
	    "free action on a Ride check DC 20, else a move action)" },
	{ { { NULL, NULL } }, "free action: Ride DC 5 to guide the mount with "
	    "the knees, both hands free this turn" },
	{ { { NULL, NULL } }, "move action (provokes): Ride DC 20 to control a "
	    "frightened mount at the start of the turn (failure: the whole "
	    "turn)" },
	{ { { "target", "str: creature name" } }, "the rider's combat-trained mount "
	    "attacks with its natural weapon (its standard action: after at "
	    "most one move)" },
	{ { { NULL, NULL } }, "move action: Hide, with cover or concealment "
	    "against every enemy in sight" },
	{ { { NULL, NULL } }, "move action: Spot, opposed by the Hide of each "
	    "enemy you cannot see (locates the invisible, unmasks the "
	    "hiding)" },
	{ { { "spell", "str: the scroll's or wand's spell" },
	    { "target", "str: creature name" }, { "defensive", "bool (scroll)" } },
	    "read a scroll (as casting) or use a wand (standard, no AoO)" },
	{ { { "spell", "str: the ability" }, { "target", "str: creature name" },
	    { "defensive", "bool (spell-like)" } },
	    "use a spell-like (provokes), supernatural or extraordinary "
	    "ability" },
	{ { { "target", "str: creature name" } },
	    "deliver the held touch spell: free in the casting round, else "
	    "a standard action" },
	{ { { NULL, NULL } }, "standard action: rebuke undead (negative "
	    "energy): they cower, or are commanded" },
	{ { { NULL, NULL } }, "standard action: a rebuking check that frees "
	    "undead turned by a lower check" },
	{ { { NULL, NULL } }, "standard action: bolster undead against "
	    "turning for 10 rounds" },
	{ { { "target", "a commanded undead" }, { "release", "bool" } },
	    "standard action: order a commanded undead to act on its next "
	    "turn (or release it)" },
	{ { { "hours", "1..720" }, { "tend", "bool: a healer tends the "
	    "wounded" } },
	    "after the fight: let hours pass (recovery, natural healing)" },
	{ { { "to", "[x, y]: the item's square, within reach" } },
	    "move action (provokes): pick up a weapon lying on the ground "
	    "with the free main hand" },
	{ { { NULL, NULL } },
	    "free action: drop the held weapon into the own square" },
	{ { { "take", "bool: ready (true) or loose (false)" } },
	    "ready or loose the shield: a move action, free with a move at "
	    "BAB +1" },
	{ { { "take", "bool: hold (true, the default) or let go" } },
	    "prompt: a grapple opponent holds on to an escaping creature" },
	{ { { NULL, NULL } }, "load the shot crossbow: a move action (light) "
	    "or a full-round action (heavy); provokes" },
	{ { { NULL, NULL } }, "grappling: retrieve a spell component or "
	    "focus (a full-round action, no check); it stays in hand" },
};

static int
e_describe(refd_ctx *ctx, void *pdata)
{
	refd_mpw *w = refd_mpw_create();
	int i, j;

	(void)pdata;
	refd_mpw_map(w);
	refd_mpw_kstr(w, "summary",
	    "d20 tactical combat on a square grid: initiative, actions, "
	    "attacks of opportunity, maneuvers");
	refd_mpw_karray(w, "seats");
	refd_mpw_int(w, 2);
	refd_mpw_int(w, 8);
	refd_mpw_end(w);
	refd_mpw_kmap(w, "options");
	opt(w, "map", "str | map", "a map of maps.json or an inline map");
	opt(w, "creatures", "[map]", "{name, as, side, at, ...fields}");
	opt(w, "max_rounds", "int", "round limit (default 10): a draw");
	opt(w, "range_penalty", "int", "per range increment (default 2)");
	opt(w, "flat_footed_start", "bool",
	    "everyone starts flat-footed (default true)");
	opt(w, "condition_defaults", "bool",
	    "the section 6.2 condition defaults (default true)");
	opt(w, "recovery", "bool",
	    "after the fight, rest commands pass hours (default false)");
	refd_mpw_end(w);
	refd_mpw_kmap(w, "commands");
	for (i = 0; i < C_NCMD; i++) {
		refd_mpw_kmap(w, cmd_name[i]);
		refd_mpw_kmap(w, "args");
		for (j = 0; j < 4 && cmddoc[i].args[j][0] != NULL; j++)
			refd_mpw_kstr(w, cmddoc[i].args[j][0],
			    cmddoc[i].args[j][1]);
		refd_mpw_end(w);
		refd_mpw_kstr(w, "doc", cmddoc[i].doc);
		refd_mpw_end(w);
	}
	refd_mpw_end(w);
	refd_mpw_end(w);
	return put(ctx, w);
}

static int
e_content_load(refd_ctx *ctx, void *pdata, const uint8_t *bytes, size_t len,
    void **out)
{
	refd_mpdoc *d = refd_mp_parse(bytes, len);
	struct content *c;
	char err[300];

	(void)pdata;
	if (d == NULL)
		return H->reject(ctx, REFD_ECONTENT, NULL,
		    "content is not msgpack");
	c = H->alloc(ctx, sizeof(*c));
	if (c == NULL) {
		refd_mp_free(d);
		return REFD_ENOMEM;
	}
	if (parse_content(refd_mp_root(d), c, err, sizeof(err)) != 0) {
		H->free(ctx, c);
		refd_mp_free(d);
		return H->reject(ctx, REFD_ECONTENT, NULL, err);
	}
	refd_mp_free(d);
	*out = c;
	return REFD_OK;
}

static void
e_content_free(void *pdata, void *content)
{
	(void)pdata;
	H->free(NULL, content);
}

/* Initiative (R001-01): roll for the creatures in mask without a total. */
static int
roll_init(refd_ctx *ctx, struct st *s, int mask)
{
	int i, rc, r;
	refd_mpw *w;

	for (i = 0; i < s->nc; i++) {
		struct cr *c = &s->c[i];

		if (!(mask & (1 << i)) || c->tb)
			continue;
		if ((rc = roll(ctx, 20, "initiative", &r)) != REFD_OK)
			return rc;
		c->init = r + mod(c->d.dex) + c->d.init;
		c->tb = 1;
		w = refd_mpw_create();
		refd_mpw_map(w);
		refd_mpw_kstr(w, "type", "initiative");
		refd_mpw_kstr(w, "who", c->d.name);
		refd_mpw_kint(w, "roll", r);
		refd_mpw_kint(w, "total", c->init);
		refd_mpw_end(w);
		if ((rc = emitw(ctx, s, w)) != REFD_OK)
			return rc;
	}
	return REFD_OK;
}

static int
before(const struct st *s, int a, int b)
{
	const struct cr *A = &s->c[a], *B = &s->c[b];
	int ma = mod(A->d.dex) + A->d.init, mb = mod(B->d.dex) + B->d.init;

	if (A->init != B->init)
		return A->init > B->init;
	if (ma != mb)
		return ma > mb;
	return a < b;
}

static int
same(const struct st *s, int a, int b)
{
	return s->c[a].init == s->c[b].init &&
	    mod(s->c[a].d.dex) + s->c[a].d.init ==
	    mod(s->c[b].d.dex) + s->c[b].d.init;
}

/* The order of the creatures in mask, ties broken by d2 or a shuffle. */
static int
build_order(refd_ctx *ctx, struct st *s, int mask)
{
	int i, j, n = 0, t, rc, g;
	refd_mpw *w;

	for (i = 0; i < s->nc; i++)
		if (mask & (1 << i))
			s->order[n++] = i;
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && before(s, s->order[j], s->order[j - 1]);
		    j--) {
			t = s->order[j];
			s->order[j] = s->order[j - 1];
			s->order[j - 1] = t;
		}
	for (i = 0; i < n; i = g) {
		for (g = i + 1; g < n && same(s, s->order[i], s->order[g]); g++)
			;
		if (g - i == 2) {
			int r;

			if ((rc = roll(ctx, 2, "initiative tie", &r)) != REFD_OK)
				return rc;
			if (r == 2) {
				t = s->order[i];
				s->order[i] = s->order[i + 1];
				s->order[i + 1] = t;
			}
		} else if (g - i > 2) {
			if ((rc = H->shuffle(ctx, &s->order[i], (size_t)(g - i),
			    sizeof(s->order[0]), "initiative tie")) != REFD_OK)
				return rc;
		}
	}
	s->norder = n;
	w = refd_mpw_create();
	refd_mpw_map(w);
	refd_mpw_kstr(w, "type", "order");
	refd_mpw_karray(w, "order");
	for (i = 0; i < n; i++)
		refd_mpw_str(w, s->c[s->order[i]].d.name);
	refd_mpw_end(w);
	refd_mpw_end(w);
	return emitw(ctx, s, w);
}

/* After the surprise round (R001-02). */
int enc_end_surprise(refd_ctx *ctx, struct st *s);

int
enc_end_surprise(refd_ctx *ctx, struct st *s)
{
	int rc, all = ((1 << s->nc) - 1) & ~mt_mask(s);

	s->surprise = 0;
	s->round = 1;
	if ((rc = roll_init(ctx, s, all)) != REFD_OK)
		return rc;
	return build_order(ctx, s, all);
}

static int
bad_setup(refd_ctx *ctx, struct st *s, refd_mpdoc *d, const char *msg)
{
	H->free(ctx, s);
	refd_mp_free(d);
	return H->reject(ctx, REFD_ESETUP, NULL, msg);
}

static int
e_create(refd_ctx *ctx, void *pdata, const void *content, const uint8_t *setup,
    size_t len, uint32_t nseats, void **out)
{
	const struct content *ct = content;
	refd_mpdoc *d = refd_mp_parse(setup, len);
	refd_mpv root = refd_mp_root(d), mv, cs;
	struct mapdef md;
	struct st *s;
	char err[300];
	int i, j, rc, aware = 0, sides = 0;
	int64_t v;
	char rides[MAXC][NAMEL];

	(void)pdata;
	if (d == NULL || refd_mpv_type(root) != REFD_MP_MAP) {
		refd_mp_free(d);
		return H->reject(ctx, REFD_ESETUP, NULL, "setup must be a map");
	}
	s = H->alloc(ctx, sizeof(*s));
	if (s == NULL) {
		refd_mp_free(d);
		return REFD_ENOMEM;
	}
	memset(s, 0, sizeof(*s));
	s->magic = ENC_MAGIC;
	s->size = (uint32_t)sizeof(*s);
	mv = refd_mpv_get(root, "map");
	if (refd_mpv_type(mv) == REFD_MP_STR) {
		for (i = 0; i < ct->nm; i++)
			if (refd_mpv_streq(mv, ct->m[i].name))
				break;
		if (i == ct->nm) {
			snprintf(err, sizeof(err), "setup: map: no map named "
			    "'%.40s' in maps.json", refd_mpv_cstr(mv, "?"));
			return bad_setup(ctx, s, d, err);
		}
		md = ct->m[i];
	} else if (parse_map(mv, "(setup)", &md, err, sizeof(err)) != 0) {
		return bad_setup(ctx, s, d, err);
	}
	s->w = md.w;
	s->h = md.h;
	memcpy(s->sq, md.sq, sizeof(s->sq));
	memcpy(s->fog, md.fog, sizeof(s->fog));
	memcpy(s->eh, md.eh, sizeof(s->eh));
	memcpy(s->ev, md.ev, sizeof(s->ev));
	cc_map_init(s);
	s->max_rounds = (int32_t)refd_mpv_get_int(root, "max_rounds", 10);
	s->range_pen = (int32_t)refd_mpv_get_int(root, "range_penalty", 2);
	s->no62 = !refd_mpv_get_bool(root, "condition_defaults", 1);
	s->resting = refd_mpv_get_bool(root, "recovery", 0) ? 1 : 0;
	if (s->max_rounds < 1 || s->max_rounds > 1000 || s->range_pen < 0 ||
	    s->range_pen > 10)
		return bad_setup(ctx, s, d, "setup: max_rounds must be "
		    "1..1000 and range_penalty 0..10");
	cs = refd_mpv_get(root, "creatures");
	if (refd_mpv_type(cs) != REFD_MP_ARRAY || refd_mpv_len(cs) < 2 ||
	    refd_mpv_len(cs) > MAXC)
		return bad_setup(ctx, s, d,
		    "setup: creatures: expected an array of 2 to 16");
	memset(rides, 0, sizeof(rides));
	for (i = 0; i < (int)refd_mpv_len(cs); i++) {
		refd_mpv e = refd_mpv_at(cs, (size_t)i);
		struct cr *c = &s->c[i];
		const char *name = refd_mpv_get_str(e, "name", "");
		const char *as = refd_mpv_get_str(e, "as", NULL);
		size_t k;
		int ff = refd_mpv_get_bool(root, "flat_footed_start", 1);
		int hpnow = -1000;

		if (*name == '\0' || strlen(name) >= NAMEL)
			return bad_setup(ctx, s, d, "setup: creatures: each "
			    "needs a \"name\" of 1 to 23 bytes");
		for (j = 0; j < i; j++)
			if (strcmp(s->c[j].d.name, name) == 0) {
				snprintf(err, sizeof(err), "setup: creature "
				    "name '%s' is used twice", name);
				return bad_setup(ctx, s, d, err);
			}
		if (as != NULL) {
			const struct cdef *cd = find_cdef(ct, as);

			if (cd == NULL) {
				snprintf(err, sizeof(err), "setup: creature "
				    "'%s': as: no creature '%.40s' in "
				    "creatures.json", name, as);
				return bad_setup(ctx, s, d, err);
			}
			c->d = *cd;
			memset(c->d.name, 0, sizeof(c->d.name));
			snprintf(c->d.name, sizeof(c->d.name), "%s", name);
		} else {
			cdef_defaults(&c->d, name);
		}
		c->side = -1;
		c->feint_vs = c->aid_ally = c->aid_enemy = c->ready_vs = -1;
		c->aware = 1;
		for (k = 0; k < refd_mpv_len(e); k++) {
			const char *key = refd_mpv_cstr(refd_mpv_key_at(e, k),
			    "");
			refd_mpv x = refd_mpv_val_at(e, k);
			int b;

			if (strcmp(key, "name") == 0 || strcmp(key, "as") == 0)
				continue;
			if (strcmp(key, "side") == 0) {
				if (refd_mpv_int(x, &v) != 0 || v < 0 ||
				    v >= REFD_MAX_SEATS)
					return bad_setup(ctx, s, d, "setup: "
					    "side must be a seat number");
				c->side = (int32_t)v;
			} else if (strcmp(key, "at") == 0) {
				int64_t px, py;

				if (refd_mpv_int(refd_mpv_at(x, 0), &px) != 0 ||
				    refd_mpv_int(refd_mpv_at(x, 1), &py) != 0 ||
				    px < 0 || py < 0 || px >= s->w ||
				    py >= s->h)
					return bad_setup(ctx, s, d, "setup: "
					    "at must be [x, y] on the map");
				c->x = (int32_t)px;
				c->y = (int32_t)py;
			} else if (strcmp(key, "current_hp") == 0) {
				if (refd_mpv_int(x, &v) != 0 || v < -9 ||
				    v > 999)
					return bad_setup(ctx, s, d, "setup: "
					    "current_hp must be -9..999");
				hpnow = (int)v;
			} else if (strcmp(key, "nonlethal") == 0) {
				if (refd_mpv_int(x, &v) != 0 || v < 0 ||
				    v > 999)
					return bad_setup(ctx, s, d, "setup: "
					    "nonlethal must be 0..999");
				c->nl = (int32_t)v;
			} else if (strcmp(key, "initiative") == 0) {
				if (refd_mpv_int(x, &v) != 0 || v < -50 ||
				    v > 100)
					return bad_setup(ctx, s, d, "setup: "
					    "initiative must be -50..100");
				c->init = (int32_t)v;
				c->tb = 1;
			} else if (strcmp(key, "temp_hp") == 0 ||
			    strcmp(key, "temp_hp_rounds") == 0) {
				if (refd_mpv_int(x, &v) != 0 || v < 0 ||
				    v > 999)
					return bad_setup(ctx, s, d, "setup: "
					    "temp_hp and temp_hp_rounds must be "
					    "0..999");
				if (key[7] == '\0')
					c->temp = (int32_t)v;
				else
					c->temp_rounds = (int32_t)v;
			} else if (strcmp(key, "conditions") == 0) {
				size_t q;
				int z;

				if (refd_mpv_type(x) != REFD_MP_ARRAY)
					return bad_setup(ctx, s, d, "setup: "
					    "conditions: expected an array");
				for (q = 0; q < refd_mpv_len(x); q++) {
					for (z = 0; z < NCOND; z++)
						if (refd_mpv_streq(refd_mpv_at(x,
						    q), cn[z]))
							break;
					if (z == NCOND)
						return bad_setup(ctx, s, d,
						    "setup: conditions: unknown "
						    "condition");
					if (s->no62 && ((1 << z) &
					    (COND_DAZED | COND_FATIGUED |
					    COND_EXHAUSTED | COND_NAUSEATED |
					    COND_SICKENED | COND_PANICKED)))
						return bad_setup(ctx, s, d,
						    "setup: conditions: a section "
						    "6.2 condition without "
						    "condition_defaults");
					c->cond |= 1 << z;
				}
			} else if (strcmp(key, "rides") == 0) {
				if (refd_mpv_type(x) != REFD_MP_STR ||
				    strlen(refd_mpv_cstr(x, "")) >= NAMEL)
					return bad_setup(ctx, s, d, "setup: "
					    "rides names the mount creature");
				snprintf(rides[i], NAMEL, "%s",
				    refd_mpv_cstr(x, ""));
			} else if (strcmp(key, "sheathed") == 0) {
				if (refd_mpv_bool(x, &b) != 0)
					return bad_setup(ctx, s, d, "setup: "
					    "sheathed is true or false");
				c->cond |= b ? (1 << 30) : 0;
			} else if (strcmp(key, "aware") == 0 ||
			    strcmp(key, "prone") == 0 ||
			    strcmp(key, "asleep") == 0 ||
			    strcmp(key, "flat_footed") == 0) {
				if (refd_mpv_bool(x, &b) != 0)
					return bad_setup(ctx, s, d, "setup: "
					    "aware, prone, asleep and "
					    "flat_footed are true or false");
				if (key[0] == 'a' && key[1] == 'w')
					c->aware = b;
				else if (key[0] == 'p')
					c->prone = b;
				else if (key[0] == 'a')
					c->asleep = b;
				else
					ff = b;
			} else {
				rc = parse_cfield(ct, &c->d, key, x, "setup",
				    name, err, sizeof(err));
				if (rc < 0)
					return bad_setup(ctx, s, d, err);
				if (rc > 0) {
					snprintf(err, sizeof(err), "setup: "
					    "creature '%s': unknown field "
					    "'%.40s'", name, key);
					return bad_setup(ctx, s, d, err);
				}
			}
		}
		if (c->side < 0 || !refd_mpv_ok(refd_mpv_get(e, "at"))) {
			snprintf(err, sizeof(err), "setup: creature '%s' needs "
			    "\"side\" and \"at\"", name);
			return bad_setup(ctx, s, d, err);
		}
		gr_fix(&c->d);
		/* Conditions that change abilities (6.1, 6.2). */
		if (c->cond & COND_ENTANGLED)
			c->d.dex -= 4;
		if (c->cond & COND_FATIGUED) {
			c->d.str -= 2;
			c->d.dex -= 2;
		}
		if (c->cond & COND_EXHAUSTED) {
			c->d.str -= 6;
			c->d.dex -= 6;
		}
		if ((c->cond & COND_DEAFENED) && !s->no62)
			c->d.init -= 4;
		if (c->d.str < 1)
			c->d.str = 1;
		if (c->d.dex < 1)
			c->d.dex = 1;
		if (c->cond & (1 << 30)) {
			int k2;

			c->cond &= ~(1 << 30);
			for (k2 = 0; k2 < 2; k2++)
				if (c->d.w[k2].nd && !c->d.w[k2].unarmed &&
				    !c->d.w[k2].natural) {
					c->stow[k2] = c->d.w[k2];
					memset(&c->d.w[k2], 0, sizeof(c->d.w[k2]));
				}
			if (c->d.w[0].nd == 0)
				unarmed_weapon(&c->d.w[0], c->d.size);
		}
		c->hp = hpnow > -1000 ? hpnow : c->d.hp;
		if (c->hp < 0)
			c->stable = 1;
		c->flat = ff;
		/* Item hit points scale with the wielder's size (5.9). */
		c->whp = man_item_hp(c->stow[0].nd ? c->stow[0].ihp :
		    c->d.w[0].ihp, c->d.size);
		c->shp = man_item_hp(c->d.shield_hp, c->d.size);
		if (c->side + 1 > sides)
			sides = c->side + 1;
		aware += c->aware;
		s->nc++;
	}
	s->nseats = (int32_t)nseats;
	if ((int)nseats != sides) {
		snprintf(err, sizeof(err), "setup: the creatures have %d sides "
		    "but the match has %u seats", sides, nseats);
		return bad_setup(ctx, s, d, err);
	}
	for (j = 0; j < sides; j++) {
		for (i = 0; i < s->nc; i++)
			if (s->c[i].side == j)
				break;
		if (i == s->nc) {
			snprintf(err, sizeof(err), "setup: side %d has no "
			    "creature", j);
			return bad_setup(ctx, s, d, err);
		}
	}
	if (mt_setup(s, rides, err, sizeof(err)) != 0)
		return bad_setup(ctx, s, d, err);
	for (i = 0; i < s->nc; i++) {
		struct cr *c = &s->c[i];
		int n = space_n(c), a, b;

		for (a = 0; a < n; a++)
			for (b = 0; b < n; b++) {
				int x = c->x + a, y = c->y + b;

				if (x >= s->w || y >= s->h ||
				    (s->sq[y][x] & SQ_WALL) ||
				    occupant(s, x, y, i) >= 0) {
					snprintf(err, sizeof(err), "setup: "
					    "creature '%s' does not fit at "
					    "(%d,%d)", c->d.name, c->x, c->y);
					return bad_setup(ctx, s, d, err);
				}
			}
	}
	if (mg_refs(s, cs, err, sizeof(err)) != 0)
		return bad_setup(ctx, s, d, err);
	refd_mp_free(d);
	mg_setup(s);
	for (i = 0; i < s->nc; i++)
		s->shown[i] = state_idx(&s->c[i]);	/* as set up: known */
	/* Surprise round when some but not all are aware (1.3). */
	{
		int mask = 0;

		for (i = 0; i < s->nc; i++)
			if (s->c[i].aware)
				mask |= 1 << i;
		if (aware > 0 && aware < s->nc) {
			s->surprise = 1;
			s->round = 0;
		} else {
			mask = (1 << s->nc) - 1;
			s->round = 1;
		}
		mask &= ~mt_mask(s);	/* mounts act with their riders */
		for (i = 0; i < s->nc; i++)
			if (!seat_sees(s, REFD_SEAT_PUBLIC, i)) {
				uint8_t pos[2];
				char zone[40];

				pos[0] = (uint8_t)s->c[i].x;
				pos[1] = (uint8_t)s->c[i].y;
				snprintf(zone, sizeof(zone), "position.%s",
				    s->c[i].d.name);
				if ((rc = H->commit(ctx, zone, s->c[i].side,
				    pos, 2)) != REFD_OK) {
					H->free(ctx, s);
					return rc;
				}
			}
		if ((rc = roll_init(ctx, s, mask)) != REFD_OK ||
		    (rc = build_order(ctx, s, mask)) != REFD_OK ||
		    (rc = turn_begin(ctx, s, 0, 0)) != REFD_OK) {
			H->free(ctx, s);
			return rc;
		}
	}
	*out = s;
	return REFD_OK;
}

static int
e_apply(refd_ctx *ctx, void *state, uint32_t seat, const uint8_t *b,
    size_t len)
{
	struct st *s = state;
	struct cmd c;
	struct why y;
	int rc;

	memset(&y, 0, sizeof(y));
	if (cmd_parse(s, b, len, &c, &y) != REFD_OK ||
	    cmd_check(s, (int)seat, &c, &y) != REFD_OK)
		return H->reject(ctx, y.code, y.rule, y.msg);
	if ((rc = cmd_exec(ctx, s, &c)) != REFD_OK)
		return rc;
	return ev_states(ctx, s);
}

static int
e_legal(refd_ctx *ctx, const void *state, uint32_t seat)
{
	refd_mpw *w = refd_mpw_create();

	cmd_legal(state, (int)seat, w);
	return put(ctx, w);
}

static int
e_pending(refd_ctx *ctx, const void *state, uint64_t *seats)
{
	(void)ctx;
	return pending_seats(state, seats);
}

static void
xy(refd_mpw *w, const char *k, int x, int y)
{
	refd_mpw_karray(w, k);
	refd_mpw_int(w, x);
	refd_mpw_int(w, y);
	refd_mpw_end(w);
}

/* The board a viewer draws (refd-plugin(3), BOARD): what seat sees. */
static void
view_board(refd_mpw *w, const struct st *s, int32_t seat)
{
	static const char *const fl[] = { "wall", "difficult", "obstacle",
		"cover", "darkness", "fog", "narrow", "crevice" };
	char t[96], nm[8];
	int i, k, x, y;

	refd_board_begin(w, REFD_BOARD_GRID, s->w, s->h);
	refd_board_cells(w);
	for (y = 0; y < s->h; y++)
		for (x = 0; x < s->w; x++) {
			size_t n = 0;

			for (k = 0; k < 8; k++)
				if (s->sq[y][x] >> k & 1)
					n += (size_t)snprintf(t + n,
					    sizeof(t) - n, "%s%s", n ? " " : "",
					    fl[k]);
			if (n > 0)
				refd_board_cell(w, x, y, t);
		}
	refd_mpw_end(w);
	refd_board_marks(w);
	for (i = 0; i < s->ng; i++)
		refd_board_mark(w, s->gx[i], s->gy[i], s->gw[i].name);
	refd_mpw_end(w);
	refd_board_pieces(w);
	for (i = 0; i < s->nc; i++) {
		const struct cr *c = &s->c[i];
		struct refd_board_piece p;

		if (!seat_sees(s, seat, i))
			continue;	/* hidden: not even a place */
		p = refd_board_piece_init(i, c->d.name, c->side, c->x, c->y);
		p.size = space_n(c);
		snprintf(nm, sizeof(nm), "%.2s", c->d.name);
		p.label = nm;
		if (seat == c->side) {
			p.hp = c->hp;
			p.hp_max = c->d.hp;
		}
		refd_board_piece(w, &p);
		if (state_idx(c) != 0)
			refd_mpw_str(w, state_name(c));
		if (c->prone)
			refd_mpw_str(w, "prone");
		if (c->flat)
			refd_mpw_str(w, "flat-footed");
		if (c->grap != 0)
			refd_mpw_str(w, "grappling");
		if (c->pinned_by != 0)
			refd_mpw_str(w, "pinned");
		for (k = 0; k < NCOND; k++)
			if (c->cond & (1 << k))
				refd_mpw_str(w, cn[k]);
		refd_board_piece_end(w);
	}
	refd_mpw_end(w);
	if (!s->over && seat_sees(s, seat, active(s)))
		refd_mpw_kint(w, "active", active(s));
	refd_board_info(w);
	refd_mpw_kint(w, "round", s->round);
	refd_mpw_end(w);
	refd_board_end(w);
}

static int
e_view(refd_ctx *ctx, const void *state, int32_t seat)
{
	const struct st *s = state;
	refd_mpw *w = refd_mpw_create();
	int i, x, y;
	static const char *const pkn[] = { "none", "aoo", "counter", "follow",
		"delay", "ready", "avoid", "cleave", "hold" };

	refd_mpw_map(w);
	refd_mpw_kint(w, "round", s->round);
	refd_mpw_kbool(w, "surprise", s->surprise);
	refd_mpw_kbool(w, "over", s->over != 0);
	if (s->resting >= 2)
		refd_mpw_kint(w, "hours", s->hours);
	refd_mpw_kbool(w, "recovery", s->resting == 2);
	refd_mpw_kstr(w, "active", s->c[active(s)].d.name);
	if (s->pk != PK_NONE && !seat_sees(s, seat, s->q[s->qi])) {
		/* A creature the viewer cannot see is deciding something:
		 * neither what nor who (8.4). */
		refd_mpw_kstr(w, "prompt", "unseen");
		refd_mpw_kstr(w, "prompted", "someone unseen");
	} else {
		refd_mpw_kstr(w, "prompt", pkn[s->pk]);
		if (s->pk != PK_NONE)
			refd_mpw_kstr(w, "prompted", s->c[s->q[s->qi]].d.name);
	}
	refd_mpw_karray(w, "order");
	for (i = 0; i < s->norder; i++)
		refd_mpw_str(w, s->c[s->order[i]].d.name);
	refd_mpw_end(w);
	refd_mpw_kmap(w, "map");
	refd_mpw_kint(w, "w", s->w);
	refd_mpw_kint(w, "h", s->h);
	refd_mpw_karray(w, "walls");
	for (y = 0; y < s->h; y++)
		for (x = 0; x < s->w; x++)
			if (s->sq[y][x] & SQ_WALL) {
				refd_mpw_array(w);
				refd_mpw_int(w, x);
				refd_mpw_int(w, y);
				refd_mpw_end(w);
			}
	refd_mpw_end(w);
	refd_mpw_karray(w, "difficult");
	for (y = 0; y < s->h; y++)
		for (x = 0; x < s->w; x++)
			if (s->sq[y][x] & SQ_DIFF) {
				refd_mpw_array(w);
				refd_mpw_int(w, x);
				refd_mpw_int(w, y);
				refd_mpw_end(w);
			}
	refd_mpw_end(w);
	cc_view_map(s, w);
	refd_mpw_end(w);
	refd_mpw_karray(w, "creatures");
	for (i = 0; i < s->nc; i++) {
		const struct cr *c = &s->c[i];
		int own = seat == c->side;

		refd_mpw_map(w);
		refd_mpw_kstr(w, "name", c->d.name);
		refd_mpw_kint(w, "side", c->side);
		if (seat_sees(s, seat, i))
			xy(w, "at", c->x, c->y);
		else
			refd_mpw_kstr(w, "at", "somewhere");
		refd_mpw_kstr(w, "size", size_name(c->d.size));
		refd_mpw_kstr(w, "state", state_name(c));
		refd_mpw_kstr(w, "weapon", c->d.w[0].name);
		if (c->stow[0].nd)
			refd_mpw_kstr(w, "sheathed", c->stow[0].name);
		refd_mpw_kbool(w, "prone", c->prone);
		refd_mpw_kbool(w, "flat_footed", c->flat);
		refd_mpw_kbool(w, "grappling", c->grap != 0);
		refd_mpw_kbool(w, "pinned", c->pinned_by != 0);
		refd_mpw_kbool(w, "turned", c->turned_by != 0);
		refd_mpw_kbool(w, "total_defense", c->tdef);
		refd_mpw_kbool(w, "fighting_defensively", c->fdef);
		refd_mpw_kbool(w, "charging", c->charged);
		if (c->mounted)
			refd_mpw_kstr(w, "riding", s->c[c->mounted - 1].d.name);
		mg_view(s, i, own, w);
		{
			int z;

			refd_mpw_karray(w, "conditions");
			for (z = 0; z < NCOND; z++)
				if (c->cond & (1 << z))
					refd_mpw_str(w, cn[z]);
			refd_mpw_end(w);
		}
		if (own) {
			refd_mpw_kint(w, "hp", c->hp);
			refd_mpw_kint(w, "max_hp", c->d.hp);
			refd_mpw_kint(w, "nonlethal", c->nl);
			refd_mpw_kint(w, "temp_hp", c->temp);
			if (c->d.turn_level > 0)
				refd_mpw_kint(w, "turn_uses", c->d.turn_uses);
			refd_mpw_kint(w, "initiative", c->init);
			refd_mpw_kbool(w, "hiding", c->hiding);
			refd_mpw_kbool(w, "delaying", c->delaying);
			if (c->ready_vs >= 0)
				refd_mpw_kstr(w, "readied_against",
				    s->c[c->ready_vs].d.name);
			refd_mpw_kint(w, "weapon_hp", c->whp);
			refd_mpw_kint(w, "ac", ac_vs(s, i, -1, 0));
			{
				int k;

				refd_mpw_kmap(w, "potions");
				for (k = 0; k < 2; k++)
					if (c->d.potions[k] > 0)
						refd_mpw_kint(w,
						    c->d.potion[k].name,
						    c->d.potions[k]);
				refd_mpw_end(w);
				gr_view(w, c);
				refd_mpw_kmap(w, "spells");
				for (k = 0; k < MAXSP; k++)
					if (c->d.sp[k].name[0] != '\0' &&
					    c->d.sp[k].kind == MK_SPELL)
						refd_mpw_kint(w,
						    c->d.sp[k].name,
						    c->d.uses[k]);
				refd_mpw_end(w);
			}
		}
		refd_mpw_end(w);
	}
	refd_mpw_end(w);
	refd_mpw_karray(w, "ground");	/* weapons lying about (public) */
	for (i = 0; i < s->ng; i++) {
		refd_mpw_map(w);
		refd_mpw_kstr(w, "item", s->gw[i].name);
		xy(w, "at", s->gx[i], s->gy[i]);
		refd_mpw_end(w);
	}
	refd_mpw_end(w);
	view_board(w, s, seat);
	refd_mpw_end(w);
	return put(ctx, w);
}

static int
e_result(refd_ctx *ctx, const void *state)
{
	const struct st *s = state;
	refd_mpw *w;
	int rc;

	if (!s->over || s->resting == 2)
		return 0;	/* the recovery phase goes on (3.4) */
	w = refd_mpw_create();
	refd_mpw_map(w);
	refd_mpw_karray(w, "winners");
	if (s->winner >= 0)
		refd_mpw_int(w, s->winner);
	refd_mpw_end(w);
	refd_mpw_kstr(w, "reason", s->winner >= 0 ? "the other sides are down" :
	    (s->round > s->max_rounds ? "round limit" : "no side left"));
	refd_mpw_end(w);
	rc = put(ctx, w);
	return rc == REFD_OK ? 1 : rc;
}

/*
 * The state's bytes in three parts: everything before the creatures,
 * the nc creatures in play, everything after the creature array.  The
 * unused creature slots are zero and left out (most of the struct).
 */
#define ST_HEAD offsetof(struct st, c)
#define ST_TAIL offsetof(struct st, order)

static int
e_serialize(refd_ctx *ctx, const void *state)
{
	const struct st *s = state;
	const uint8_t *b = state;
	refd_mpw *w = refd_mpw_create();

	refd_mpw_array(w);
	refd_mpw_bin(w, b, ST_HEAD);
	refd_mpw_bin(w, b + ST_HEAD, sizeof(struct cr) * (size_t)s->nc);
	refd_mpw_bin(w, b + ST_TAIL, sizeof(struct st) - ST_TAIL);
	refd_mpw_end(w);
	return put(ctx, w);
}

static int
sane(const struct st *s)
{
	int i;

	if (s->magic != ENC_MAGIC || s->size != sizeof(*s) || s->nc < 2 ||
	    s->nc > MAXC || s->norder < 1 || s->norder > s->nc ||
	    s->cur < 0 || s->cur >= s->norder || s->w < 2 || s->w > MAXM ||
	    s->h < 2 || s->h > MAXM || s->pk < PK_NONE || s->pk > PK_HOLD ||
	    s->nq < 0 || s->nq > MAXC || s->qi < 0 ||
	    (s->pk != PK_NONE && s->qi >= s->nq) || s->k.n < 0 ||
	    s->k.n > MAXPATH || s->k.who < 0 || s->k.who >= s->nc ||
	    s->k.target < -1 || s->k.target >= s->nc || s->nseats < 2 ||
	    s->nseats > REFD_MAX_SEATS || s->dnext < 0 ||
	    s->dnext > s->norder || s->ng < 0 || s->ng > MAXG ||
	    s->k.ally < 0 || s->k.ally > s->nc ||
	    (s->k.kind == K_PUSH && s->k.ally >= s->nc))
		return 0;
	for (i = 0; i < s->norder; i++)
		if (s->order[i] < 0 || s->order[i] >= s->nc)
			return 0;
	for (i = 0; i < MAXC; i++)
		if (s->shown[i] < 0 || s->shown[i] >= NSTATES)
			return 0;
	for (i = 0; i < s->nq; i++)
		if (s->q[i] < 0 || s->q[i] >= s->nc)
			return 0;
	for (i = 0; i < s->nc; i++)	/* a rider sits on a mount (5.15) */
		if (s->c[i].mounted > 0 && s->c[i].mounted <= s->nc &&
		    !s->c[s->c[i].mounted - 1].d.mount)
			return 0;
	for (i = 0; i < s->nc; i++) {
		const struct cr *c = &s->c[i];

		if (c->x < 0 || c->y < 0 || c->x >= s->w || c->y >= s->h ||
		    c->side < 0 || c->side >= s->nseats || c->grap < 0 ||
		    c->grap > s->nc || c->d.size < -2 || c->d.size > 2 ||
		    c->feint_vs < -1 || c->feint_vs >= s->nc ||
		    c->aid_ally < -1 || c->aid_ally >= s->nc ||
		    c->aid_enemy < -1 || c->aid_enemy >= s->nc ||
		    c->ready_vs < -1 || c->ready_vs >= s->nc ||
		    c->turned_by < 0 || c->turned_by > s->nc ||
		    c->casting < 0 || c->casting > MAXSP ||
		    c->cast_target < -1 || c->cast_target >= s->nc ||
		    c->pinned_by < 0 || c->pinned_by > s->nc ||
		    c->mounted < 0 || c->mounted > s->nc || c->ride_n < 0 ||
		    c->ride_n > 3 || c->mounted == i + 1 ||
		    c->d.w[0].sd < 1 || c->d.w[0].incr < 0 ||
		    (c->d.w[0].ranged && c->d.w[0].incr < 1) || !mg_sane(s, c))
			return 0;
	}
	return 1;
}

static int
e_restore(refd_ctx *ctx, void *pdata, const void *content, const uint8_t *b,
    size_t len, void **out)
{
	refd_mpdoc *d = refd_mp_parse(b, len);
	refd_mpv root = refd_mp_root(d);
	const uint8_t *head, *crs, *tail;
	size_t nh, ncr, nt;
	struct st *s;

	(void)pdata;
	(void)content;
	if (d == NULL || refd_mpv_len(root) != 3 ||
	    refd_mpv_bin(refd_mpv_at(root, 0), &head, &nh) != 0 ||
	    refd_mpv_bin(refd_mpv_at(root, 1), &crs, &ncr) != 0 ||
	    refd_mpv_bin(refd_mpv_at(root, 2), &tail, &nt) != 0 ||
	    nh != ST_HEAD || nt != sizeof(struct st) - ST_TAIL ||
	    ncr > sizeof(struct cr) * MAXC || ncr % sizeof(struct cr) != 0) {
		refd_mp_free(d);
		return H->reject(ctx, REFD_EARG, NULL, "state is damaged");
	}
	s = H->alloc(ctx, sizeof(*s));
	if (s == NULL) {
		refd_mp_free(d);
		return REFD_ENOMEM;
	}
	memset(s, 0, sizeof(*s));
	memcpy(s, head, nh);
	memcpy(s->c, crs, ncr);
	memcpy((uint8_t *)s + ST_TAIL, tail, nt);
	refd_mp_free(d);
	if ((size_t)s->nc * sizeof(struct cr) != ncr || !sane(s)) {
		H->free(ctx, s);
		return H->reject(ctx, REFD_EARG, NULL, "state is damaged");
	}
	*out = s;
	return REFD_OK;
}

static void
e_destroy(refd_ctx *ctx, void *state)
{
	H->free(ctx, state);
}

/*
 * Re-deal seat's hidden data (8.4).  Nothing in an encounter is dealt:
 * the hidden numbers are the seat's creatures' exact hit points, which
 * the other seats know only through the visible state.  Each creature
 * of the seat in the normal state gets a new current HP drawn from
 * those that keep it normal (above its nonlethal damage, at most its
 * maximum), so the other views must not move.  The squares of invisible
 * creatures are chosen by their seat, not dealt, and stay: see
 * refd-encounter(7).
 */
static int
e_redeal(refd_ctx *ctx, void *state, uint32_t seat)
{
	struct st *s = state;
	int i, rc;

	for (i = 0; i < s->nc; i++) {
		struct cr *c = &s->c[i];
		int lo = c->nl + 1 > 1 ? c->nl + 1 : 1;
		uint32_t v;

		if (c->side != (int32_t)seat ||
		    strcmp(state_name(c), "normal") != 0 || c->d.hp <= lo)
			continue;
		if ((rc = H->uniform(ctx, (uint32_t)(c->d.hp - lo + 1),
		    "redeal hit points", &v)) != REFD_OK)
			return rc;
		c->hp = lo + (int32_t)v;
	}
	return REFD_OK;
}

static const struct refd_plugin_ops ops = {
	sizeof(struct refd_plugin_ops),
	e_init,
	NULL,
	e_describe,
	e_content_load,
	e_content_free,
	e_create,
	e_apply,
	e_legal,
	e_pending,
	e_view,
	e_result,
	e_serialize,
	e_restore,
	e_destroy,
	e_redeal,
};

REFD_PLUGIN_DEFINE("encounter", "0.1.0",
    "d20 tactical combat: initiative, actions, attacks of opportunity, "
    "maneuvers", 2, 8, REFD_PF_ROLLBACK | REFD_PF_HIDDEN, &ops);
