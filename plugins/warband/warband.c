/*
 * warband.c - the warband ruleset plugin: a card-driven skirmish with
 * orders, morale and cowering (spec: shared/specs/warband.md, R004-*).
 *
 * This file holds the ABI ops: describe, content loading, match creation
 * (standard games and scripted test positions), views, results and the
 * state's bytes.  The rules themselves live in rules.c, the grid in
 * geom.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "refd/board.h"
#include "warband.h"

const struct refd_host *H;

static int
w_init(refd_ctx *ctx, const struct refd_host *host, void **pdata)
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

static void
command(refd_mpw *w, const char *name, const char *args[], const char *doc)
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

static int
w_describe(refd_ctx *ctx, void *pdata)
{
	refd_mpw *w = refd_mpw_create();
	static const char *none[] = { NULL };
	static const char *unit[] = { "unit", "int", NULL };
	static const char *order[] = { "first", "bool", NULL };
	static const char *choose[] = { "commander", "str: commander id",
		NULL };
	static const char *deploy[] = { "card", "str: creature card id",
		"x", "int", "y", "int", NULL };
	static const char *move[] = { "unit", "int", "path",
		"[[x, y], ...]", NULL };
	static const char *path[] = { "path", "[[x, y], ...], may be empty",
		NULL };
	static const char *attack[] = { "unit", "int", "target", "int",
		"mode", "\"melee\" or \"ranged\"", NULL };
	static const char *play[] = { "card", "str: order card id", "unit",
		"int: the active creature", "target", "int, optional",
		"assist", "[int], optional", "discard",
		"str, optional: card discarded as a cost", NULL };
	static const char *power[] = { "unit", "int", "power",
		"\"brace\" or \"mend\"", "target", "int, for mend", NULL };
	static const char *cower[] = { "cower", "bool", NULL };
	static const char *trig[] = { "use", "bool", NULL };

	(void)pdata;
	refd_mpw_map(w);
	refd_mpw_kstr(w, "summary", "card-driven skirmish: orders, morale and "
	    "cowering on a square grid");
	refd_mpw_karray(w, "seats");
	refd_mpw_int(w, 2);
	refd_mpw_int(w, MAXSEAT);
	refd_mpw_end(w);
	refd_mpw_kmap(w, "options");
	opt(w, "map", "str or map", "map name from maps.json, or a map");
	opt(w, "bands", "[str]", "band per seat from bands.json");
	opt(w, "commanders", "[str]", "commander per seat");
	opt(w, "max_rounds", "int", "rounds before the game ends on Morale "
	    "(default 8)");
	opt(w, "cower_to_zero", "bool", "A1: cowering may bring Morale to 0 "
	    "(default true)");
	opt(w, "adj_wall_aware", "bool", "A11 alternative: a wall between "
	    "two squares cancels adjacency everywhere (default false)");
	opt(w, "end_check_owned", "bool", "A26 alternative: the Cleanup end "
	    "check counts owned creatures (default false: controlled)");
	opt(w, "hazard_activation_only", "bool", "A17 alternative: entering "
	    "hazardous terrain hurts only during the creature's own "
	    "activation (default false)");
	opt(w, "dead_attacker_resolves", "bool", "A36 alternative: an attack "
	    "resolves although its attacker died (default false)");
	opt(w, "recheck_shooter", "bool", "A44 alternative: a shooter next to "
	    "an enemy at resolution misses (default false)");
	opt(w, "cower_cost_before_reductions", "bool", "A2 alternative: the "
	    "cower cost counts the damage before reductions (default false)");
	opt(w, "leadership_counts_controlled", "bool", "A4 alternative: the "
	    "Leadership cap counts controlled creatures (default false: "
	    "owned)");
	opt(w, "check_bands", "bool", "R004-01: refuse illegal bands "
	    "(default true)");
	opt(w, "choose_commanders", "bool", "seats choose their commanders "
	    "as hidden commands (default false: the setup names them)");
	opt(w, "first_game", "bool", "R004-63: half-box bands (6 creatures, "
	    "18 orders), Morale - 3, known chests (default false)");
	opt(w, "teams", "[int] or \"pairs\"", "R004-58: team number per "
	    "seat (equal sizes), or pairs of alternate seats; default: "
	    "free-for-all");
	opt(w, "test", "map", "a scripted position (see refd-warband(7))");
	refd_mpw_end(w);
	refd_mpw_kmap(w, "commands");
	command(w, "choose_commander", choose, "choose your commander "
	    "(hidden until every seat has chosen)");
	command(w, "deploy_order", order, "the chosen seat deploys first or "
	    "second");
	command(w, "deploy", deploy, "deploy a creature from your hand");
	command(w, "end_deploy", none, "finish your starting deployment");
	command(w, "activate", unit, "activate a creature");
	command(w, "end_activation", none, "end the current activation");
	command(w, "end_phase", none, "end Activation or Deploy");
	command(w, "move", move, "move the activated creature");
	command(w, "attack", attack, "basic melee or ranged attack");
	command(w, "play", play, "play an order card");
	command(w, "power", power, "use a creature power");
	command(w, "grab", unit, "grab a treasure token");
	command(w, "avoid", unit, "tap to avoid a ranged attack from cover");
	command(w, "pass", none, "pass priority");
	command(w, "cower", cower, "cower (true) or take the damage (false)");
	command(w, "trigger", trig, "use or decline a triggered power");
	command(w, "path", path, "choose the path of a shift or slide");
	command(w, "pick", unit, "choose which waiting effect resolves next");
	refd_mpw_end(w);
	refd_mpw_end(w);
	return put(ctx, w);
}

/* ------------------------------------------------------------- content */

static int
bad(refd_ctx *ctx, struct content *c, refd_mpdoc *d, const char *file,
    const char *item, const char *field, const char *why)
{
	char msg[256];

	snprintf(msg, sizeof(msg), "%s.json: '%s': field '%s': %s", file,
	    item, field, why);
	H->free(ctx, c);
	refd_mp_free(d);
	return H->reject(ctx, REFD_ECONTENT, NULL, msg);
}

static int
kwbit(struct content *c, const char *name)
{
	int i;

	for (i = 0; i < c->nkw; i++)
		if (strcmp(c->kw[i], name) == 0)
			return 1 << i;
	if (c->nkw >= MAXKW || strlen(name) >= sizeof(c->kw[0]))
		return -1;
	snprintf(c->kw[c->nkw], sizeof(c->kw[0]), "%s", name);
	return 1 << c->nkw++;
}

static int
abil(const char *s)
{
	static const char *const n[] = { "STR", "DEX", "CON", "INT", "WIS",
		"CHA", "ANY" };
	int i;

	for (i = 0; i < 7; i++)
		if (s != NULL && strcmp(s, n[i]) == 0)
			return 1 << i;
	return 0;
}

static int
lookup(const char *id, const char *ids, size_t stride, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(ids + (size_t)i * stride, id) == 0)
			return i;
	return -1;
}

static int
int_field(refd_mpv v, const char *k, int dflt, int lo, int hi, int *out)
{
	int64_t x;

	if (!refd_mpv_ok(refd_mpv_get(v, k))) {
		*out = dflt;
		return dflt >= lo ? 0 : -1;
	}
	if (refd_mpv_int(refd_mpv_get(v, k), &x) || x < lo || x > hi)
		return -1;
	*out = (int)x;
	return 0;
}

static int
load_map(const struct content *c, struct mapdef *m, refd_mpv v,
    const char **field, char *msg, size_t n)
{
	refd_mpv rows = refd_mpv_get(v, "rows"), e;
	size_t y, x, i;

	msg[0] = '\0';
	if (refd_mpv_ok(refd_mpv_get(v, "layout"))) {
		*field = "layout";
		if (tiles_assemble(c, refd_mpv_get(v, "layout"), m, msg, n))
			return -1;
		goto chests;
	}
	memset(m->flags, 0, sizeof(m->flags));
	memset(m->start, 0, sizeof(m->start));
	memset(m->hw, 0, sizeof(m->hw));
	memset(m->vw, 0, sizeof(m->vw));
	*field = "rows";
	if (refd_mpv_type(rows) != REFD_MP_ARRAY || refd_mpv_len(rows) < 2 ||
	    refd_mpv_len(rows) > MAXW)
		return -1;
	m->h = (int)refd_mpv_len(rows);
	m->w = 0;
	for (y = 0; y < (size_t)m->h; y++) {
		const char *r;
		size_t len;

		if (refd_mpv_str(refd_mpv_at(rows, y), &r, &len) ||
		    len < 2 || len > MAXW || (m->w && (int)len != m->w))
			return -1;
		m->w = (int)len;
		for (x = 0; x < len; x++) {
			uint8_t *f = &m->flags[y * MAXW + x];

			switch (r[x]) {
			case '.': break;
			case 'X': *f = SQ_WALL; break;
			case '~': *f = SQ_DIFF; break;
			case '^': *f = SQ_HAZ; break;
			case 'O': *f = SQ_OBST; break;
			case 'M': *f = SQ_MAGIC; break;
			case 'T': *f = SQ_TREAS; break;
			default:
				if (r[x] >= '1' && r[x] <= '0' + MAXSEAT)
					m->start[y * MAXW + x] =
					    (uint8_t)(r[x] - '0');
				else
					return -1;
			}
		}
	}
	for (i = 0; i < 2; i++) {
		refd_mpv ws = refd_mpv_get(v, i ? "vwalls" : "hwalls");
		size_t k;

		*field = i ? "vwalls" : "hwalls";
		if (!refd_mpv_ok(ws))
			continue;
		if (refd_mpv_type(ws) != REFD_MP_ARRAY)
			return -1;
		for (k = 0; k < refd_mpv_len(ws); k++) {
			int64_t a, b;

			e = refd_mpv_at(ws, k);
			if (refd_mpv_int(refd_mpv_at(e, 0), &a) ||
			    refd_mpv_int(refd_mpv_at(e, 1), &b) || a < 0 ||
			    b < 0 || a > m->w || b > m->h)
				return -1;
			(i ? m->vw : m->hw)[b * (MAXW + 1) + a] = 1;
		}
	}
chests:
	*field = "chests";
	m->nchest = 0;
	e = refd_mpv_get(v, "chests");
	if (refd_mpv_ok(e)) {
		if (refd_mpv_type(e) != REFD_MP_ARRAY || refd_mpv_len(e) > 8)
			return -1;
		for (i = 0; i < refd_mpv_len(e); i++) {
			int64_t a;

			if (refd_mpv_int(refd_mpv_at(e, i), &a) || a < 1 ||
			    a > 3)
				return -1;
			m->chest[m->nchest++] = (int)a;
		}
	}
	return 0;
}

static int
w_content_load(refd_ctx *ctx, void *pdata, const uint8_t *bytes, size_t len,
    void **out)
{
	refd_mpdoc *d = refd_mp_parse(bytes, len);
	refd_mpv root = refd_mp_root(d), f, v, a;
	struct content *c;
	size_t i, j;
	const char *field;
	char id[64], tmsg[200];

	(void)pdata;
	if (d == NULL)
		return H->reject(ctx, REFD_ECONTENT, NULL,
		    "content is not msgpack");
	c = H->alloc(ctx, sizeof(*c));
	if (c == NULL) {
		refd_mp_free(d);
		return REFD_ENOMEM;
	}
	memset(c, 0, sizeof(*c));
	/* creatures.json */
	f = refd_mpv_get(root, "creatures");
	if (refd_mpv_type(f) != REFD_MP_MAP || refd_mpv_len(f) == 0 ||
	    refd_mpv_len(f) > MAXCDEF)
		return bad(ctx, c, d, "creatures", "*", "*",
		    "expected an object of 1 to 32 creatures");
	for (i = 0; i < refd_mpv_len(f); i++) {
		struct cdef *x = &c->cd[c->ncd];
		const char *p;

		snprintf(id, sizeof(id), "%s",
		    refd_mpv_cstr(refd_mpv_key_at(f, i), "?"));
		v = refd_mpv_val_at(f, i);
		if (strlen(id) >= sizeof(x->id))
			return bad(ctx, c, d, "creatures", id, "id",
			    "ids are at most 7 characters");
		snprintf(x->id, sizeof(x->id), "%s", id);
		snprintf(x->name, sizeof(x->name), "%s",
		    refd_mpv_cstr(refd_mpv_get(v, "name"), id));
#define IF(k, dflt, lo, hi, dst)                                               \
	if (int_field(v, k, dflt, lo, hi, dst))                                \
		return bad(ctx, c, d, "creatures", id, k,                      \
		    "expected an integer " #lo ".." #hi);
		IF("level", -1, 1, 20, &x->level);
		IF("hp", -1, 1, 1000, &x->hp);
		IF("melee", -1, 0, 1000, &x->melee);
		IF("ranged", 0, 0, 1000, &x->ranged);
		IF("range", 0, 0, 30, &x->range);
		IF("speed", -1, 1, 12, &x->speed);
		IF("size", 1, 1, 2, &x->size);
#undef IF
		if (x->ranged && !x->range)
			return bad(ctx, c, d, "creatures", id, "range",
			    "a ranged attack needs a range");
		a = refd_mpv_get(v, "abilities");
		if (refd_mpv_type(a) != REFD_MP_ARRAY || refd_mpv_len(a) == 0)
			return bad(ctx, c, d, "creatures", id, "abilities",
			    "expected a list of STR DEX CON INT WIS CHA");
		for (j = 0; j < refd_mpv_len(a); j++) {
			int b = abil(refd_mpv_cstr(refd_mpv_at(a, j), NULL));

			if (b == 0 || b == AB_ANY)
				return bad(ctx, c, d, "creatures", id,
				    "abilities", "unknown ability");
			x->abil |= b;
		}
		a = refd_mpv_get(v, "keywords");
		for (j = 0; j < refd_mpv_len(a); j++) {
			int b = kwbit(c, refd_mpv_cstr(refd_mpv_at(a, j), ""));

			if (b < 0)
				return bad(ctx, c, d, "creatures", id,
				    "keywords", "too many keywords");
			x->kw |= b;
		}
		a = refd_mpv_get(v, "traits");
		for (j = 0; j < refd_mpv_len(a); j++) {
			p = refd_mpv_cstr(refd_mpv_at(a, j), "");
			if (strcmp(p, "flight") == 0)
				x->traits |= TR_FLIGHT;
			else if (strcmp(p, "burrow") == 0)
				x->traits |= TR_BURROW;
			else if (strcmp(p, "slip") == 0)
				x->traits |= TR_SLIP;
			else
				return bad(ctx, c, d, "creatures", id,
				    "traits", "expected flight, burrow or "
				    "slip");
		}
		p = refd_mpv_cstr(refd_mpv_get(v, "power"), "");
		if (strcmp(p, "brace") == 0)
			x->power = PW_BRACE;
		else if (strcmp(p, "mend") == 0)
			x->power = PW_MEND;
		else if (strcmp(p, "snap") == 0)
			x->power = PW_SNAP;
		else if (*p)
			return bad(ctx, c, d, "creatures", id, "power",
			    "expected brace, mend or snap");
		c->ncd++;
	}
	/* orders.json */
	f = refd_mpv_get(root, "orders");
	if (refd_mpv_type(f) != REFD_MP_MAP || refd_mpv_len(f) == 0 ||
	    refd_mpv_len(f) > MAXODEF)
		return bad(ctx, c, d, "orders", "*", "*",
		    "expected an object of 1 to 32 order cards");
	for (i = 0; i < refd_mpv_len(f); i++) {
		struct odef *x = &c->od[c->nod];
		static const char *const eff[] = { "melee", "shift_melee",
			"ranged_boost", "prevent", "melee_attach", "boost",
			"slide", "ranged_fixed", "promote", "circle",
			"ranged_pin", "sidestep", "heal", "control",
			"heal_ally" };
		const char *p;
		int k;

		snprintf(id, sizeof(id), "%s",
		    refd_mpv_cstr(refd_mpv_key_at(f, i), "?"));
		v = refd_mpv_val_at(f, i);
		if (strlen(id) >= sizeof(x->id))
			return bad(ctx, c, d, "orders", id, "id",
			    "ids are at most 7 characters");
		snprintf(x->id, sizeof(x->id), "%s", id);
		snprintf(x->name, sizeof(x->name), "%s",
		    refd_mpv_cstr(refd_mpv_get(v, "name"), id));
		if (int_field(v, "level", -1, 0, 20, &x->level))
			return bad(ctx, c, d, "orders", id, "level",
			    "expected an integer 0..20");
		if (int_field(v, "damage", 0, 0, 1000, &x->dmg) ||
		    int_field(v, "range", 0, 0, 30, &x->range) ||
		    int_field(v, "shift", 0, 0, 10, &x->shift))
			return bad(ctx, c, d, "orders", id, "damage",
			    "damage 0..1000, range 0..30, shift 0..10");
		x->abil = abil(refd_mpv_cstr(refd_mpv_get(v, "ability"),
		    NULL));
		if (x->abil == 0)
			return bad(ctx, c, d, "orders", id, "ability",
			    "expected STR DEX CON INT WIS CHA or ANY");
		p = refd_mpv_cstr(refd_mpv_get(v, "type"), "");
		x->type = strcmp(p, "standard") == 0 ? OT_STD :
		    strcmp(p, "minor") == 0 ? OT_MINOR :
		    strcmp(p, "immediate") == 0 ? OT_IMM : -1;
		if (x->type < 0)
			return bad(ctx, c, d, "orders", id, "type",
			    "expected standard, minor or immediate");
		p = refd_mpv_cstr(refd_mpv_get(v, "effect"), "");
		for (k = 0; k < (int)(sizeof(eff) / sizeof(eff[0])); k++)
			if (strcmp(p, eff[k]) == 0)
				break;
		if (k == (int)(sizeof(eff) / sizeof(eff[0])))
			return bad(ctx, c, d, "orders", id, "effect",
			    "unknown effect");
		x->effect = k;
		x->nolos = refd_mpv_get_bool(v, "no_los", 0);
		a = refd_mpv_get(v, "attached");
		if (refd_mpv_ok(a) && (refd_mpv_type(a) != REFD_MP_MAP ||
		    int_field(a, "level", 0, -10, 10, &x->att_level) ||
		    int_field(a, "start_damage", 0, 0, 1000,
		    &x->att_start_dmg)))
			return bad(ctx, c, d, "orders", id, "attached",
			    "level -10..10, start_damage 0..1000, no_untap and "
			    "discard_at_cleanup booleans");
		x->att_no_untap = refd_mpv_get_bool(a, "no_untap", 0);
		x->att_cleanup = refd_mpv_get_bool(a, "discard_at_cleanup", 0);
		p = refd_mpv_cstr(refd_mpv_get(v, "requires"), NULL);
		if (p != NULL && (x->req_kw = kwbit(c, p)) < 0)
			return bad(ctx, c, d, "orders", id, "requires",
			    "too many keywords");
		p = refd_mpv_cstr(refd_mpv_get(v, "affinity"), NULL);
		if (p != NULL && (x->aff_kw = kwbit(c, p)) < 0)
			return bad(ctx, c, d, "orders", id, "affinity",
			    "too many keywords");
		c->nod++;
	}
	/* commanders.json */
	f = refd_mpv_get(root, "commanders");
	if (refd_mpv_type(f) != REFD_MP_MAP || refd_mpv_len(f) == 0 ||
	    refd_mpv_len(f) > MAXCMD)
		return bad(ctx, c, d, "commanders", "*", "*",
		    "expected an object of 1 to 8 commanders");
	for (i = 0; i < refd_mpv_len(f); i++) {
		struct kdef *x = &c->kd[c->nkd];

		snprintf(id, sizeof(id), "%s",
		    refd_mpv_cstr(refd_mpv_key_at(f, i), "?"));
		v = refd_mpv_val_at(f, i);
		snprintf(x->id, sizeof(x->id), "%s", id);
		snprintf(x->name, sizeof(x->name), "%s",
		    refd_mpv_cstr(refd_mpv_get(v, "name"), id));
		if (int_field(v, "order_hand", -1, 0, 20, &x->ohand) ||
		    int_field(v, "creature_hand", -1, 1, 20, &x->chand) ||
		    int_field(v, "morale", -1, 1, 100, &x->morale) ||
		    int_field(v, "leadership", -1, 1, 100, &x->lead))
			return bad(ctx, c, d, "commanders", id, "*",
			    "order_hand, creature_hand, morale and "
			    "leadership are required integers");
		a = refd_mpv_get(v, "hooks");
		if (refd_mpv_ok(a) && (refd_mpv_type(a) != REFD_MP_MAP ||
		    int_field(refd_mpv_get(a, "enemy_killed"), "leadership",
		    0, 0, 10, &x->kill_lead) ||
		    int_field(refd_mpv_get(a, "treasure_grabbed"),
		    "draw_orders", 0, 0, 10, &x->grab_draw)))
			return bad(ctx, c, d, "commanders", id, "hooks",
			    "expected {\"enemy_killed\": {\"leadership\": n}, "
			    "\"treasure_grabbed\": {\"draw_orders\": n}}");
		c->nkd++;
	}
	/* bands.json */
	f = refd_mpv_get(root, "bands");
	if (refd_mpv_type(f) != REFD_MP_MAP || refd_mpv_len(f) == 0 ||
	    refd_mpv_len(f) > MAXBAND)
		return bad(ctx, c, d, "bands", "*", "*",
		    "expected an object of 1 to 8 bands");
	for (i = 0; i < refd_mpv_len(f); i++) {
		struct band *b = &c->band[c->nband];
		int k;

		snprintf(id, sizeof(id), "%s",
		    refd_mpv_cstr(refd_mpv_key_at(f, i), "?"));
		v = refd_mpv_val_at(f, i);
		snprintf(b->id, sizeof(b->id), "%s", id);
		for (k = 0; k < 2; k++) {
			refd_mpv l = refd_mpv_get(v, k ? "orders" :
			    "creatures");

			if (refd_mpv_type(l) != REFD_MP_MAP)
				return bad(ctx, c, d, "bands", id,
				    k ? "orders" : "creatures",
				    "expected an object of card id: count");
			for (j = 0; j < refd_mpv_len(l); j++) {
				const char *cid = refd_mpv_cstr(
				    refd_mpv_key_at(l, j), "");
				int def = k ? lookup(cid, c->od[0].id,
				    sizeof(c->od[0]), c->nod) : lookup(cid,
				    c->cd[0].id, sizeof(c->cd[0]), c->ncd);
				int64_t n;

				if (def < 0 || refd_mpv_int(refd_mpv_val_at(l,
				    j), &n) || n < 1 || n > 8)
					return bad(ctx, c, d, "bands", id, cid,
					    "unknown card or count not 1..8");
				while (n-- > 0) {
					if ((k ? b->no : b->nc) >=
					    REFD_DECK_MAX)
						return bad(ctx, c, d, "bands",
						    id, cid, "too many cards");
					if (k)
						b->o[b->no++] = def;
					else
						b->c[b->nc++] = def;
				}
			}
		}
		c->nband++;
	}
	/* tiles.json (optional) */
	if (tiles_load(c, refd_mpv_get(root, "tiles"), tmsg, sizeof(tmsg))) {
		H->free(ctx, c);
		refd_mp_free(d);
		return H->reject(ctx, REFD_ECONTENT, NULL, tmsg);
	}
	/* maps.json */
	f = refd_mpv_get(root, "maps");
	if (refd_mpv_type(f) != REFD_MP_MAP || refd_mpv_len(f) == 0 ||
	    refd_mpv_len(f) > MAXMAP)
		return bad(ctx, c, d, "maps", "*", "*",
		    "expected an object of 1 to 4 maps");
	for (i = 0; i < refd_mpv_len(f); i++) {
		struct mapdef *m = &c->map[c->nmap];

		snprintf(id, sizeof(id), "%s",
		    refd_mpv_cstr(refd_mpv_key_at(f, i), "?"));
		snprintf(m->id, sizeof(m->id), "%s", id);
		if (load_map(c, m, refd_mpv_val_at(f, i), &field, tmsg,
		    sizeof(tmsg)))
			return bad(ctx, c, d, "maps", id, field, tmsg[0] ?
			    tmsg : "rows of . X ~ ^ O M T 1-4, equal widths "
			    "2..24; walls [x, y]; chests 1..3");
		c->nmap++;
	}
	refd_mp_free(d);
	*out = c;
	return REFD_OK;
}

static void
w_content_free(void *pdata, void *content)
{
	(void)pdata;
	H->free(NULL, content);
}

/* --------------------------------------------------------------- create */

static int
setup_err(struct g *g, refd_mpdoc *d, const char *msg)
{
	H->free(g->ctx, g->s);
	refd_mp_free(d);
	return H->reject(g->ctx, REFD_ESETUP, NULL, msg);
}

static int
name_list(refd_mpv v, int i, const char *ids, size_t stride, int n,
    const char *dflt)
{
	const char *nm = refd_mpv_cstr(refd_mpv_at(v, (size_t)i), dflt);

	return nm == NULL ? -1 : lookup(nm, ids, stride, n);
}

/* Cards of a list of ids (a test position's hand or deck) into a pile;
 * the first id ends on top. */
static int
pile(struct g *g, refd_mpv l, struct refd_deck *dk, int orders)
{
	size_t i, n = refd_mpv_len(l);

	refd_deck_init(dk);
	if (refd_mpv_ok(l) && refd_mpv_type(l) != REFD_MP_ARRAY)
		return -1;
	if (n > REFD_DECK_MAX)
		return -1;
	for (i = n; i-- > 0;) {
		const char *id = refd_mpv_cstr(refd_mpv_at(l, i), "");
		int def = orders ? lookup(id, g->c->od[0].id, sizeof(g->c->od[0]),
		    g->c->nod) : lookup(id, g->c->cd[0].id, sizeof(g->c->cd[0]),
		    g->c->ncd);

		if (def < 0)
			return -1;
		refd_deck_push(dk, def);
	}
	return 0;
}

static int
setup_test(struct g *g, refd_mpv t)
{
	struct state *s = g->s;
	refd_mpv v, us;
	size_t i, j;
	int k;
	const char *ph;

	s->test = 1;
	s->active = (int)refd_mpv_get_int(t, "active", 0);
	s->round = (int)refd_mpv_get_int(t, "round", 1);
	if (s->active < 0 || s->active >= s->nseats)
		return -1;
	s->first = s->dseat = s->active;
	ph = refd_mpv_get_str(t, "phase", "activation");
	s->phase = strcmp(ph, "setup") == 0 ? PH_SETUP :
	    strcmp(ph, "refresh") == 0 ? PH_REFRESH :
	    strcmp(ph, "deploy") == 0 ? PH_DEPLOY :
	    strcmp(ph, "cleanup") == 0 ? PH_CLEANUP : PH_ACTIVATION;
	for (k = 0; k < s->nseats; k++) {
		int64_t x;

		if (refd_mpv_int(refd_mpv_at(refd_mpv_get(t, "morale"),
		    (size_t)k), &x) == 0)
			s->seat[k].morale = (int)x;
		if (refd_mpv_int(refd_mpv_at(refd_mpv_get(t, "leadership"),
		    (size_t)k), &x) == 0)
			s->seat[k].lead = (int)x;
		if (pile(g, refd_mpv_at(refd_mpv_get(t, "hands"), (size_t)k),
		    &s->ohand[k], 1) || pile(g, refd_mpv_at(refd_mpv_get(t,
		    "creature_hands"), (size_t)k), &s->chand[k], 0) ||
		    pile(g, refd_mpv_at(refd_mpv_get(t, "order_decks"),
		    (size_t)k), &s->odeck[k], 1) || pile(g, refd_mpv_at(
		    refd_mpv_get(t, "creature_decks"), (size_t)k),
		    &s->cdeck[k], 0) || pile(g, refd_mpv_at(refd_mpv_get(t,
		    "graveyards"), (size_t)k), &s->grave[k], 0) ||
		    pile(g, refd_mpv_at(refd_mpv_get(t, "discards"), (size_t)k),
		    &s->odisc[k], 1))
			return -1;
	}
	us = refd_mpv_get(t, "units");
	if (refd_mpv_len(us) > MAXU)
		return -1;
	for (i = 0; i < refd_mpv_len(us); i++) {
		struct unit *u = &s->u[s->nunits];
		refd_mpv at;
		int64_t x, y;

		v = refd_mpv_at(us, i);
		memset(u, 0, sizeof(*u));
		u->def = lookup(refd_mpv_get_str(v, "def", ""),
		    g->c->cd[0].id, sizeof(g->c->cd[0]), g->c->ncd);
		u->owner = (int)refd_mpv_get_int(v, "seat", 0);
		u->ctrl = (int)refd_mpv_get_int(v, "ctrl", u->owner);
		at = refd_mpv_get(v, "at");
		if (u->def < 0 || u->owner < 0 || u->owner >= s->nseats ||
		    u->ctrl < 0 || u->ctrl >= s->nseats ||
		    refd_mpv_int(refd_mpv_at(at, 0), &x) ||
		    refd_mpv_int(refd_mpv_at(at, 1), &y) || x < 0 || y < 0 ||
		    x >= s->w || y >= s->h)
			return -1;
		u->x = (int)x;
		u->y = (int)y;
		u->alive = 1;
		u->dmg = (int)refd_mpv_get_int(v, "damage", 0);
		u->tapped = refd_mpv_get_bool(v, "tapped", 0);
		u->activated = refd_mpv_get_bool(v, "activated", 0);
		/* Control returns at the controller's Cleanup unless the
		 * position says it is permanent. */
		if (u->ctrl != u->owner && refd_mpv_get_bool(v, "snared", 1))
			u->snared = u->ctrl + 1;
		at = refd_mpv_get(v, "attached");
		for (j = 0; j < refd_mpv_len(at) && j < MAXATT; j++) {
			refd_mpv p = refd_mpv_at(at, j);
			int def = lookup(refd_mpv_cstr(refd_mpv_at(p, 0), ""),
			    g->c->od[0].id, sizeof(g->c->od[0]), g->c->nod);

			if (def < 0 || refd_mpv_int(refd_mpv_at(p, 1), &x) ||
			    x < 0 || x >= s->nseats)
				return -1;
			u->att[u->natt] = def;
			u->attown[u->natt++] = (int)x;
		}
		s->nunits++;
	}
	v = refd_mpv_get(t, "treasure");
	for (i = 0; i < refd_mpv_len(v); i++) {
		int64_t x, y, n;
		refd_mpv p = refd_mpv_at(v, i);

		if (refd_mpv_int(refd_mpv_at(p, 0), &x) ||
		    refd_mpv_int(refd_mpv_at(p, 1), &y) ||
		    refd_mpv_int(refd_mpv_at(p, 2), &n) || x < 0 || y < 0 ||
		    x >= s->w || y >= s->h || n < 0 || n > 9)
			return -1;
		s->treasure[y * MAXW + x] = (int)n;
	}
	v = refd_mpv_get(t, "chests");
	for (i = 0; i < refd_mpv_len(v); i++) {
		int64_t x, y, n;
		refd_mpv p = refd_mpv_at(v, i);

		if (refd_mpv_int(refd_mpv_at(p, 0), &x) ||
		    refd_mpv_int(refd_mpv_at(p, 1), &y) ||
		    refd_mpv_int(refd_mpv_at(p, 2), &n) || x < 0 || y < 0 ||
		    x >= s->w || y >= s->h || n < 1 || n > 3)
			return -1;
		s->chest[y * MAXW + x] = (int)n;
	}
	if (refd_mpv_get_bool(t, "activate", 0) == 0 &&
	    refd_mpv_ok(refd_mpv_get(t, "active_unit"))) {
		int64_t a = refd_mpv_get_int(t, "active_unit", 0);

		if (a < 1 || a > s->nunits)
			return -1;
		s->act_unit = (int)a;
		s->u[a - 1].activated = 1;
	}
	return 0;
}

static int
w_create(refd_ctx *ctx, void *pdata, const void *content, const uint8_t *setup,
    size_t len, uint32_t nseats, void **out)
{
	const struct content *c = content;
	refd_mpdoc *d = refd_mp_parse(setup, len);
	refd_mpv root = refd_mp_root(d), mv, t;
	struct g g;
	struct state *s;
	struct mapdef tmp;
	const struct mapdef *m = NULL;
	const char *field;
	int i, k, rc, choose;
	uint32_t pick;
	char msg[200];

	(void)pdata;
	if (d == NULL || refd_mpv_type(root) != REFD_MP_MAP) {
		refd_mp_free(d);
		return H->reject(ctx, REFD_ESETUP, NULL, "setup must be a map");
	}
	if (nseats < 2 || nseats > MAXSEAT) {
		refd_mp_free(d);
		return H->reject(ctx, REFD_ESETUP, NULL,
		    "warband is for 2 to 4 seats");
	}
	s = H->alloc(ctx, sizeof(struct match));
	if (s == NULL) {
		refd_mp_free(d);
		return REFD_ENOMEM;
	}
	memset(s, 0, sizeof(struct match));
	((struct match *)s)->c = c;
	memset(&g, 0, sizeof(g));
	g.s = s;
	g.c = c;
	g.ctx = ctx;
	s->magic = STATE_MAGIC;
	s->version = STATE_VERSION;
	s->nseats = (int)nseats;
	mv = refd_mpv_get(root, "map");
	if (refd_mpv_type(mv) == REFD_MP_MAP) {
		if (load_map(c, &tmp, mv, &field, msg, sizeof(msg))) {
			if (msg[0] == '\0')
				snprintf(msg, sizeof(msg), "setup map: field "
				    "'%s' is not valid", field);
			return setup_err(&g, d, msg);
		}
		m = &tmp;
	} else {
		const char *nm = refd_mpv_cstr(mv, c->map[0].id);

		for (i = 0; i < c->nmap; i++)
			if (strcmp(c->map[i].id, nm) == 0)
				m = &c->map[i];
		if (m == NULL)
			return setup_err(&g, d, "no such map in maps.json");
	}
	s->w = m->w;
	s->h = m->h;
	memcpy(s->flags, m->flags, sizeof(s->flags));
	memcpy(s->start, m->start, sizeof(s->start));
	memcpy(s->hw, m->hw, sizeof(s->hw));
	memcpy(s->vw, m->vw, sizeof(s->vw));
	for (k = 0; k < s->nseats; k++)
		s->team[k] = k;
	if (refd_mpv_ok(refd_mpv_get(root, "teams"))) {
		refd_mpv tv = refd_mpv_get(root, "teams");
		int cnt[MAXSEAT] = { 0 }, nt = 0;
		int64_t x;

		if (refd_mpv_streq(tv, "pairs")) {
			/* Seats 0, 2, ... against seats 1, 3, ... */
			if (s->nseats % 2)
				return setup_err(&g, d, "R004-58: \"pairs\" "
				    "needs an even number of seats");
			for (k = 0; k < s->nseats; k++) {
				s->team[k] = k % 2;
				cnt[k % 2]++;
			}
		} else if (refd_mpv_len(tv) != (size_t)s->nseats)
			return setup_err(&g, d, "teams: one team number per "
			    "seat, or \"pairs\"");
		for (k = 0; k < s->nseats && !refd_mpv_streq(tv, "pairs");
		    k++) {
			if (refd_mpv_int(refd_mpv_at(tv, (size_t)k), &x) ||
			    x < 0 || x >= s->nseats)
				return setup_err(&g, d, "teams: team numbers "
				    "are 0 .. seats-1");
			s->team[k] = (int)x;
			cnt[x]++;
		}
		for (k = 0; k < s->nseats; k++)
			if (cnt[k] > 0) {
				if (nt > 0 && cnt[k] != cnt[s->team[0]])
					return setup_err(&g, d, "R004-58: "
					    "teams must have the same size");
				nt++;
			}
		if (nt < 2)
			return setup_err(&g, d, "R004-58: at least two teams");
		s->teams = 1;
	}
	s->first_game = refd_mpv_get_bool(root, "first_game", 0);
	choose = refd_mpv_get_bool(root, "choose_commanders", 0);
	s->max_rounds = (int)refd_mpv_get_int(root, "max_rounds", 8);
	s->cower_to_zero = refd_mpv_get_bool(root, "cower_to_zero", 1);
	s->adj_wall = refd_mpv_get_bool(root, "adj_wall_aware", 0);
	s->end_owned = refd_mpv_get_bool(root, "end_check_owned", 0);
	s->haz_act_only = refd_mpv_get_bool(root, "hazard_activation_only", 0);
	s->dead_resolves = refd_mpv_get_bool(root, "dead_attacker_resolves", 0);
	s->recheck_shooter = refd_mpv_get_bool(root, "recheck_shooter", 0);
	s->cost_before = refd_mpv_get_bool(root, "cower_cost_before_reductions",
	    0);
	s->lead_controlled = refd_mpv_get_bool(root,
	    "leadership_counts_controlled", 0);
	if (s->max_rounds < 1 || s->max_rounds > 200)
		return setup_err(&g, d, "max_rounds must be 1..200");
	for (k = 0; k < s->nseats; k++) {
		struct seatst *st = &s->seat[k];

		st->cmd = name_list(refd_mpv_get(root, "commanders"), k,
		    c->kd[0].id, sizeof(c->kd[0]), c->nkd,
		    c->kd[k % c->nkd].id);
		if (choose)
			st->cmd = k % c->nkd;	/* replaced by the choice */
		st->band = name_list(refd_mpv_get(root, "bands"), k,
		    c->band[0].id, sizeof(c->band[0]), c->nband,
		    c->band[k % c->nband].id);
		if (st->cmd < 0 || st->band < 0)
			return setup_err(&g, d, "unknown commander or band");
		/* First-game mode: starting Morale - 3 (R004-63). */
		st->morale = c->kd[st->cmd].morale - (s->first_game ? 3 : 0);
		st->lead = c->kd[st->cmd].lead;
		refd_deck_init(&s->odeck[k]);
		refd_deck_init(&s->ohand[k]);
		refd_deck_init(&s->odisc[k]);
		refd_deck_init(&s->cdeck[k]);
		refd_deck_init(&s->chand[k]);
		refd_deck_init(&s->grave[k]);
	}
	t = refd_mpv_get(root, "test");
	if (refd_mpv_type(t) == REFD_MP_MAP) {
		if (setup_test(&g, t))
			return setup_err(&g, d, "test position is not valid");
		refd_mp_free(d);
		commit_all(&g);
		ev(&g, REFD_SEAT_PUBLIC, "start", "seats", s->nseats, "test",
		    1, NULL);
		if ((rc = start_game(&g)) != REFD_OK) {
			H->free(ctx, s);
			return rc;
		}
		commit_all(&g);
		*out = s;
		return REFD_OK;
	}
	for (k = 0; k < s->nseats; k++) {
		for (i = 0; i < MAXSQ; i++)
			if (s->start[i] == k + 1)
				break;
		if (i == MAXSQ)
			return setup_err(&g, d, "the map has no start area for "
			    "every seat");
	}
	/* Band building (R004-01). */
	if (refd_mpv_get_bool(root, "check_bands", 1))
		for (k = 0; k < s->nseats; k++) {
			const struct band *b = &c->band[s->seat[k].band];
			int n;

			if (s->first_game ? (b->nc < 6 || b->no < 18) :
			    (b->nc < 12 || b->no < 30))
				return setup_err(&g, d, s->first_game ?
				    "R004-63: a first-game half box has 6 "
				    "creatures and 18 orders" : "R004-01: a band "
				    "needs at least 12 creatures and 30 orders");
			for (i = 0; i < c->ncd; i++) {
				for (n = 0, rc = 0; rc < b->nc; rc++)
					n += b->c[rc] == i;
				if (n > 4)
					return setup_err(&g, d, "R004-01: at "
					    "most 4 copies of a creature");
			}
			for (i = 0; i < c->nod; i++) {
				for (n = 0, rc = 0; rc < b->no; rc++)
					n += b->o[rc] == i;
				if (n > 4)
					return setup_err(&g, d, "R004-01: at "
					    "most 4 copies of an order");
			}
		}
	refd_mp_free(d);
	/* Chests (R1), then each seat's creature and order decks (R2, R3),
	 * then the chooser of the deployment order (R4). */
	{
		int32_t pool[8];

		for (i = 0; i < m->nchest; i++)
			pool[i] = m->chest[i];
		if (m->nchest > 1 && (rc = H->shuffle(ctx, pool,
		    (size_t)m->nchest, sizeof(pool[0]), "chests")) != REFD_OK) {
			H->free(ctx, s);
			return rc;
		}
		for (i = 0, k = 0; i < MAXSQ && k < m->nchest; i++)
			if (s->flags[i] & SQ_TREAS)
				s->chest[i] = pool[k++];
		/* Chest values are nobody's until revealed (spec 7.2). */
		{
			uint8_t cb[8];

			for (i = 0; i < k; i++)
				cb[i] = (uint8_t)pool[i];
			if (k > 0 && (rc = H->commit(ctx, "chests",
			    REFD_SEAT_PUBLIC, cb, (size_t)k)) != REFD_OK) {
				H->free(ctx, s);
				return rc;
			}
		}
	}
	for (k = 0; k < s->nseats; k++) {
		const struct band *b = &c->band[s->seat[k].band];

		for (i = 0; i < b->nc; i++)
			refd_deck_push(&s->cdeck[k], b->c[i]);
		for (i = 0; i < b->no; i++)
			refd_deck_push(&s->odeck[k], b->o[i]);
		if ((rc = refd_deck_shuffle(H, ctx, &s->cdeck[k],
		    "creatures")) != REFD_OK || (rc = refd_deck_shuffle(H, ctx,
		    &s->odeck[k], "orders")) != REFD_OK) {
			H->free(ctx, s);
			return rc;
		}
	}
	if ((rc = H->uniform(ctx, (uint32_t)s->nseats, "deploy chooser",
	    &pick)) != REFD_OK) {
		H->free(ctx, s);
		return rc;
	}
	s->chooser = (int)pick;
	s->phase = choose ? PH_CMD : PH_ORDER;
	ev(&g, REFD_SEAT_PUBLIC, "start", "seats", s->nseats, "chooser",
	    s->chooser, NULL);
	if (s->phase == PH_ORDER)
		deal_hands(&g);
	commit_all(&g);
	if (g.rc != REFD_OK) {
		H->free(ctx, s);
		return g.rc;
	}
	*out = s;
	return REFD_OK;
}

/* ---------------------------------------------------------------- apply */

static int
w_apply(refd_ctx *ctx, void *state, uint32_t seat, const uint8_t *cmd,
    size_t len)
{
	refd_mpdoc *d = refd_mp_parse(cmd, len);
	struct g g;
	struct err e;
	int rc;

	memset(&g, 0, sizeof(g));
	g.s = state;
	g.ctx = ctx;
	g.c = NULL;
	if (d == NULL || refd_mpv_type(refd_mp_root(d)) != REFD_MP_MAP) {
		refd_mp_free(d);
		return H->reject(ctx, REFD_EBADCMD, NULL,
		    "a command is a map with a \"type\"");
	}
	if (seat >= (uint32_t)g.s->nseats) {
		refd_mp_free(d);
		return H->reject(ctx, REFD_ENOTYOURTURN, "R004-23",
		    "no such seat");
	}
	g.c = ((struct match *)state)->c;
	rc = apply_cmd(&g, seat, refd_mp_root(d), &e);
	refd_mp_free(d);
	if (rc != 0)
		return H->reject(ctx, e.code, e.rule, e.msg);
	return g.rc;
}

static void
gq(struct g *g, refd_ctx *ctx, const void *state)
{
	memset(g, 0, sizeof(*g));
	g->s = (struct state *)state;
	g->c = ((const struct match *)state)->c;
	g->ctx = ctx;
}

static int
w_legal(refd_ctx *ctx, const void *state, uint32_t seat)
{
	struct g g;
	refd_mpw *w = refd_mpw_create();

	gq(&g, ctx, state);
	legal_list(&g, seat, w);
	return put(ctx, w);
}

static int
w_pending(refd_ctx *ctx, const void *state, uint64_t *seats)
{
	(void)ctx;
	*seats = pending_seats(state);
	return REFD_OK;
}

static void
ids(refd_mpw *w, const char *k, const struct refd_deck *d,
    const struct content *c, int orders)
{
	int i;

	refd_mpw_karray(w, k);
	for (i = 0; i < d->n; i++)
		refd_mpw_str(w, orders ? c->od[d->card[i]].id :
		    c->cd[d->card[i]].id);
	refd_mpw_end(w);
}

static const char *const phname[] = { "deploy_order", "setup", "refresh",
	"activation", "deploy", "cleanup", "over", "commanders" };

/* The board a viewer draws (refd-plugin(3), BOARD). */
static void
view_board(refd_mpw *w, const struct g *g)
{
	static const char *const fl[] = { "wall", "difficult", "hazard",
		"obstacle", "magic", "treasure" };
	const struct state *s = g->s;
	char t[64], nm[16];
	int i, k, x, y;

	refd_board_begin(w, REFD_BOARD_GRID, s->w, s->h);
	refd_board_cells(w);
	for (y = 0; y < s->h; y++)
		for (x = 0; x < s->w; x++) {
			int f = s->flags[y * MAXW + x];
			size_t n = 0;

			t[0] = '\0';
			for (k = 0; k < 6; k++)
				if (f >> k & 1)
					n += (size_t)snprintf(t + n,
					    sizeof(t) - n, "%s%s", n ? " " : "",
					    fl[k]);
			if (n == 0 && s->start[y * MAXW + x])
				snprintf(t, sizeof(t), "deploy");
			if (t[0] != '\0')
				refd_board_cell(w, x, y, t);
		}
	refd_mpw_end(w);
	refd_board_marks(w);
	for (i = 0; i < MAXSQ; i++)
		if (s->chest[i] || s->treasure[i]) {
			if (s->chest[i])
				snprintf(nm, sizeof(nm), "chest");
			else
				snprintf(nm, sizeof(nm), "%d", s->treasure[i]);
			refd_board_mark(w, i % MAXW, i / MAXW, nm);
		}
	refd_mpw_end(w);
	refd_board_pieces(w);
	for (i = 0; i < s->nunits; i++) {
		const struct unit *u = &s->u[i];
		const struct cdef *d = &g->c->cd[u->def];
		struct refd_board_piece p = refd_board_piece_init(i + 1,
		    d->name, u->ctrl, u->x, u->y);

		p.size = d->size > 0 ? d->size : 1;
		p.hp = d->hp - u->dmg;
		p.hp_max = d->hp;
		p.gone = !u->alive;
		refd_board_piece(w, &p);
		if (u->tapped)
			refd_mpw_str(w, "tapped");
		if (u->activated)
			refd_mpw_str(w, "activated");
		if (u->snared)
			refd_mpw_str(w, "snared");
		if (u->ctrl != u->owner)
			refd_mpw_str(w, "controlled");
		for (k = 0; k < u->natt; k++)
			refd_mpw_str(w, g->c->od[u->att[k]].name);
		refd_board_piece_end(w);
	}
	refd_mpw_end(w);
	if (s->act_unit > 0)
		refd_mpw_kint(w, "active", s->act_unit);
	refd_board_info(w);
	refd_mpw_kint(w, "round", s->round);
	refd_mpw_kstr(w, "phase", phname[s->phase]);
	refd_mpw_karray(w, "morale");
	for (i = 0; i < s->nseats; i++)
		refd_mpw_int(w, s->seat[i].morale);
	refd_mpw_end(w);
	refd_mpw_end(w);
	refd_board_end(w);
}

static int
w_view(refd_ctx *ctx, const void *state, int32_t seat)
{
	struct g g;
	const struct state *s;
	refd_mpw *w = refd_mpw_create();
	int i, j, x, y;
	char row[MAXW + 1];

	gq(&g, ctx, state);
	s = g.s;
	refd_mpw_map(w);
	refd_mpw_kstr(w, "phase", phname[s->phase]);
	refd_mpw_kint(w, "active", s->active);
	refd_mpw_kint(w, "round", s->round);
	refd_mpw_kint(w, "max_rounds", s->max_rounds);
	refd_mpw_kint(w, "activated", s->act_unit);
	refd_mpw_kbool(w, "over", s->over);
	if (s->phase == PH_ORDER)
		refd_mpw_kint(w, "chooser", s->chooser);
	if (s->phase == PH_SETUP)
		refd_mpw_kint(w, "deploying", s->dseat);
	refd_mpw_kmap(w, "window");
	refd_mpw_kbool(w, "open", s->win);
	refd_mpw_kint(w, "priority", s->win ? s->prio : -1);
	refd_mpw_end(w);
	if (s->qi < s->nq) {
		refd_mpw_kmap(w, "cower_prompt");
		refd_mpw_kint(w, "unit", s->q[s->qi].unit);
		refd_mpw_kint(w, "amount", s->q[s->qi].amount);
		refd_mpw_kint(w, "cost", s->q[s->qi].cost);
		refd_mpw_end(w);
	}
	if (s->pathp) {
		refd_mpw_kmap(w, "path_prompt");
		refd_mpw_kint(w, "seat", s->pend.seat);
		refd_mpw_kint(w, "unit", s->pend.kind == IT_SLIDE ?
		    s->pend.target : s->pend.actor);
		refd_mpw_kint(w, "squares", s->pend.n);
		refd_mpw_end(w);
	}
	refd_mpw_karray(w, "seats");
	for (i = 0; i < s->nseats; i++) {
		refd_mpw_map(w);
		refd_mpw_kstr(w, "commander", s->phase != PH_CMD ?
		    g.c->kd[s->seat[i].cmd].id : seat == i && s->seat[i].chose ?
		    g.c->kd[s->seat[i].chose - 1].id : NULL);
		if (s->phase == PH_CMD)
			refd_mpw_kbool(w, "chose", s->seat[i].chose != 0);
		refd_mpw_kint(w, "team", s->team[i]);
		refd_mpw_kint(w, "morale", s->seat[i].morale);
		refd_mpw_kint(w, "leadership", s->seat[i].lead);
		refd_mpw_kint(w, "order_hand", s->ohand[i].n);
		refd_mpw_kint(w, "creature_hand", s->chand[i].n);
		refd_mpw_kint(w, "order_deck", s->odeck[i].n);
		refd_mpw_kint(w, "creature_deck", s->cdeck[i].n);
		ids(w, "discard", &s->odisc[i], g.c, 1);
		ids(w, "graveyard", &s->grave[i], g.c, 0);
		if (seat == i) {
			ids(w, "hand", &s->ohand[i], g.c, 1);
			ids(w, "creatures", &s->chand[i], g.c, 0);
		}
		refd_mpw_end(w);
	}
	refd_mpw_end(w);
	refd_mpw_karray(w, "units");
	for (i = 0; i < s->nunits; i++) {
		const struct unit *u = &s->u[i];

		refd_mpw_map(w);
		refd_mpw_kint(w, "id", i + 1);
		refd_mpw_kstr(w, "def", g.c->cd[u->def].id);
		refd_mpw_kstr(w, "name", g.c->cd[u->def].name);
		refd_mpw_kbool(w, "alive", u->alive);
		refd_mpw_kint(w, "owner", u->owner);
		refd_mpw_kint(w, "ctrl", u->ctrl);
		refd_mpw_karray(w, "at");
		refd_mpw_int(w, u->x);
		refd_mpw_int(w, u->y);
		refd_mpw_end(w);
		refd_mpw_kint(w, "damage", u->dmg);
		refd_mpw_kbool(w, "tapped", u->tapped);
		refd_mpw_kbool(w, "activated", u->activated);
		refd_mpw_kint(w, "level", cur_level(&g, u));
		refd_mpw_karray(w, "attached");
		for (j = 0; j < u->natt; j++)
			refd_mpw_str(w, g.c->od[u->att[j]].id);
		refd_mpw_end(w);
		refd_mpw_end(w);
	}
	refd_mpw_end(w);
	refd_mpw_karray(w, "stack");
	for (i = 0; i < s->nstack; i++) {
		const struct item *it = &s->stack[i];

		refd_mpw_map(w);
		refd_mpw_kint(w, "kind", it->kind);
		refd_mpw_kint(w, "seat", it->seat);
		refd_mpw_kint(w, "actor", it->actor);
		refd_mpw_kint(w, "target", it->target);
		refd_mpw_kstr(w, "card", it->card >= 0 ?
		    g.c->od[it->card].id : NULL);
		refd_mpw_kint(w, "origin", it->origin);
		refd_mpw_end(w);
	}
	refd_mpw_end(w);
	refd_mpw_karray(w, "treasure");
	for (i = 0; i < MAXSQ; i++)
		if (s->chest[i] || s->treasure[i]) {
			refd_mpw_map(w);
			refd_mpw_kint(w, "x", i % MAXW);
			refd_mpw_kint(w, "y", i / MAXW);
			refd_mpw_kbool(w, "chest", s->chest[i] > 0);
			/* First-game chests are known (R004-63). */
			if (s->first_game && s->chest[i] > 0)
				refd_mpw_kint(w, "value", s->chest[i]);
			refd_mpw_kint(w, "tokens", s->treasure[i]);
			refd_mpw_end(w);
		}
	refd_mpw_end(w);
	refd_mpw_karray(w, "map");
	for (y = 0; y < s->h; y++) {
		for (x = 0; x < s->w; x++) {
			int f = s->flags[y * MAXW + x];

			row[x] = (f & SQ_WALL) ? 'X' : (f & SQ_OBST) ? 'O' :
			    (f & SQ_HAZ) ? '^' : (f & SQ_DIFF) ? '~' :
			    (f & SQ_MAGIC) ? 'M' : (f & SQ_TREAS) ? 'T' :
			    s->start[y * MAXW + x] ? (char)('0' +
			    s->start[y * MAXW + x]) : '.';
		}
		row[s->w] = '\0';
		refd_mpw_str(w, row);
	}
	refd_mpw_end(w);
	view_board(w, &g);
	refd_mpw_end(w);
	return put(ctx, w);
}

static int
w_result(refd_ctx *ctx, const void *state)
{
	const struct state *s = state;
	static const char *const why[] = { "", "morale", "no creatures",
	    "round limit" };
	refd_mpw *w;
	int i, rc;

	if (!s->over)
		return 0;
	w = refd_mpw_create();
	refd_mpw_map(w);
	refd_mpw_karray(w, "winners");
	for (i = 0; i < s->nseats; i++)
		if (s->winners & (1 << i))
			refd_mpw_int(w, i);
	refd_mpw_end(w);
	refd_mpw_kstr(w, "reason", why[s->reason & 3]);
	refd_mpw_karray(w, "morale");
	for (i = 0; i < s->nseats; i++)
		refd_mpw_int(w, s->seat[i].morale);
	refd_mpw_end(w);
	refd_mpw_end(w);
	rc = put(ctx, w);
	return rc == REFD_OK ? 1 : rc;
}

/* The state is int32_t members and byte arrays without padding. */
static int
w_serialize(refd_ctx *ctx, const void *state)
{
	refd_mpw *w = refd_mpw_create();

	refd_mpw_bin(w, state, sizeof(struct state));
	return put(ctx, w);
}

static int
w_restore(refd_ctx *ctx, void *pdata, const void *content, const uint8_t *b,
    size_t len, void **out)
{
	refd_mpdoc *d = refd_mp_parse(b, len);
	const uint8_t *p;
	size_t n;
	struct match *m;
	const struct state *s;

	(void)pdata;
	if (d == NULL || refd_mpv_bin(refd_mp_root(d), &p, &n) ||
	    n != sizeof(struct state)) {
		refd_mp_free(d);
		return H->reject(ctx, REFD_EARG, NULL, "state is damaged");
	}
	m = H->alloc(ctx, sizeof(*m));
	if (m == NULL) {
		refd_mp_free(d);
		return REFD_ENOMEM;
	}
	memset(m, 0, sizeof(*m));
	memcpy(&m->s, p, n);
	m->c = content;
	refd_mp_free(d);
	s = &m->s;
	if (s->magic != STATE_MAGIC || s->version != STATE_VERSION ||
	    s->nseats < 2 || s->nseats > MAXSEAT || s->nunits < 0 ||
	    s->nunits > MAXU || s->nstack < 0 || s->nstack >= MAXSTACK ||
	    s->w < 2 || s->w > MAXW || s->h < 2 || s->h > MAXW) {
		H->free(ctx, m);
		return H->reject(ctx, REFD_EARG, NULL, "state is damaged");
	}
	*out = m;
	return REFD_OK;
}

static void
w_destroy(refd_ctx *ctx, void *state)
{
	H->free(ctx, state);
}

/* Re-deal a seat's hands from its decks: its hidden data only. */
static int
w_redeal(refd_ctx *ctx, void *state, uint32_t seat)
{
	struct state *s = state;
	int rc;

	if (seat >= (uint32_t)s->nseats)
		return REFD_OK;
	if ((rc = refd_deck_redeal(H, ctx, &s->ohand[seat], &s->odeck[seat],
	    "redeal orders")) != REFD_OK)
		return rc;
	return refd_deck_redeal(H, ctx, &s->chand[seat], &s->cdeck[seat],
	    "redeal creatures");
}

static const struct refd_plugin_ops ops = {
	sizeof(struct refd_plugin_ops),
	w_init,
	NULL,
	w_describe,
	w_content_load,
	w_content_free,
	w_create,
	w_apply,
	w_legal,
	w_pending,
	w_view,
	w_result,
	w_serialize,
	w_restore,
	w_destroy,
	w_redeal,
};

REFD_PLUGIN_DEFINE_CAPS("warband", "0.1.0",
    "card-driven skirmish with orders, morale and cowering", 2, MAXSEAT,
    REFD_PF_HIDDEN | REFD_PF_ROLLBACK, REFD_HOST_CAPS_V1_0, &ops);
