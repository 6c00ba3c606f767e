/*
 * mb_plugin.c - massbattle: the plugin ABI (describe, create, apply,
 * legal, view, result, serialize, restore).  The state is a flat struct
 * of 32-bit integers, serialized as one binary blob.
 */
#include <string.h>

#include "refd/board.h"
#include "mb_int.h"

const struct refd_host *H;

static int
mb_init(refd_ctx *ctx, const struct refd_host *host, void **pdata)
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

static const char *const cmd_doc[][3] = {
	{ "submit_army", "army", "seal your army list (both seats, before "
	    "the game)" },
	{ "choose_first", "first", "the roll-off winner picks the first seat" },
	{ "allocate", "caster, jack, n", "Control Phase: give n focus to a "
	    "warjack of the battlegroup inside the control area (cap 3)" },
	{ "upkeep", "caster, spell, keep", "Control Phase: pay 1 focus to keep "
	    "an upkeep spell (keep 1) or drop it (keep 0)" },
	{ "shake", "model, what", "Control Phase: spend 1 focus to end kd or "
	    "stationary" },
	{ "end_phase", "", "end the current Control Phase step" },
	{ "activate", "unit", "activate a unit or independent model" },
	{ "order", "unit, order, by?", "the commander's one order: none, run, "
	    "charge or a card order" },
	{ "move", "model, mode, path?, target?, face?", "normal movement: mode "
	    "advance | run | charge | forfeit; path [[x,y],...] in mils" },
	{ "stand_up", "model", "a knocked-down model stands up" },
	{ "attack", "model, weapon, target, boost?", "an initial attack" },
	{ "buy_attack", "model, weapon, target, boost?", "an additional attack "
	    "for 1 focus" },
	{ "cast", "model, spell, target, channeler?, boost?", "cast a spell" },
	{ "feat", "model", "the warcaster's once-per-game feat" },
	{ "heal", "model, n", "power field: remove n damage for n focus" },
	{ "end_activation", "", "end the activation (checks follow)" },
	{ "end_turn", "", "end your turn" },
	{ "promote", "unit, model", "field promotion: the Grunt who takes "
	    "over" },
	{ "designate", "unit, model", "designate the new unit commander" },
	{ "sb_replace", "unit, model", "a Grunt takes up the standard (0: "
	    "none)" },
	{ "reroll", "yes", "standard bearer reroll of a failed check" },
	{ "free_strike", "yes", "strike the model leaving your melee range" },
	{ "damage", "boost", "roll the damage, boosted (1 focus) or not" },
	{ "choose_order", "unit", "the active player picks which unit's "
	    "simultaneous effects resolve first" },
	{ "use_commander", "model", "before a command check: use a friendly "
	    "Commander's CMD (its id) or the model's own (0)" },
	{ "power_attack", "model, kind, target", "a warjack's power attack "
	    "for 1 focus" },
	{ "ride_by", "model, path, stop, weapon, target", "a cavalry "
	    "trooper under a ride-by order advances, attacks at path point "
	    "stop, and goes on" },
	{ "combined", "kind, primary, with, target", "combined ranged or "
	    "melee attack of troopers of one unit" },
	{ "measure", "from, to", "edge-to-edge distance, where measuring is "
	    "allowed" },
	{ "test_attack", "hits", "test hook: [[model, damage], ...] as one "
	    "attack" },
	{ "test_check", "unit", "test hook: a unit-wide command check" },
};

static void
opt(refd_mpw *w, const char *name, const char *type, int64_t dflt,
    const char *doc)
{
	refd_mpw_kmap(w, name);
	refd_mpw_kstr(w, "type", type);
	refd_mpw_kint(w, "default", dflt);
	refd_mpw_kstr(w, "doc", doc);
	refd_mpw_end(w);
}

static int
mb_describe(refd_ctx *ctx, void *pdata)
{
	refd_mpw *w = refd_mpw_create();
	size_t i;

	(void)pdata;
	refd_mpw_map(w);
	refd_mpw_kstr(w, "summary", "unit-based battle on a continuous table: "
	    "warcasters, warjacks, focus, spells and units with commanders");
	refd_mpw_karray(w, "seats");
	refd_mpw_int(w, 2);
	refd_mpw_int(w, 2);
	refd_mpw_end(w);
	refd_mpw_kmap(w, "options");
	opt(w, "turn_limit", "int", 6, "rounds before the game ends on points");
	opt(w, "first", "int", -1, "seat going first; absent: d6 roll-off");
	opt(w, "test_hooks", "bool", 0, "allow test_attack and test_check");
	refd_mpw_kmap(w, "armies");
	refd_mpw_kstr(w, "type", "str or [str, str]");
	refd_mpw_kstr(w, "default", "");
	refd_mpw_kstr(w, "doc", "\"sealed\": each seat submits an army list "
	    "from armies.json unseen; or two list names; instead of units");
	refd_mpw_end(w);
	refd_mpw_kmap(w, "terrain");
	refd_mpw_kstr(w, "type", "array");
	refd_mpw_kstr(w, "doc", "round terrain features [x, y, diameter "
	    "inches, cover|concealment|obstruction]");
	refd_mpw_end(w);
	refd_mpw_kmap(w, "table");
	refd_mpw_kstr(w, "type", "array");
	refd_mpw_kstr(w, "doc", "the table's edges [x0, y0, x1, y1] in mils "
	    "(default 0 0 48000 48000)");
	refd_mpw_end(w);
	refd_mpw_kmap(w, "clouds");
	refd_mpw_kstr(w, "type", "array");
	refd_mpw_kstr(w, "doc", "cloud effects [x, y, diameter inches]: "
	    "concealment inside, LOS through them blocked");
	refd_mpw_end(w);
	opt(w, "premeasure", "bool", 0, "allow measure between any two "
	    "models at any time");
	opt(w, "combined_bonus_includes_primary", "bool", 1, "ASM-26: the "
	    "primary attacker counts for the +1 per participant");
	opt(w, "cra_targets_in_melee", "bool", 0, "ASM-26: a combined ranged "
	    "attack may target a model in melee");
	{
		static const char *const sk[][3] = {
			{ "promo_lock", "turn", "AMB-01: turn | activation: how "
			    "long a promoted Leader or new standard bearer "
			    "cannot attack" },
			{ "crew_swap_at", "gun", "ASM-04: gun | grunt: where a "
			    "weapon crew's new Leader stands" },
			{ "upkeep_replace_at", "effect", "AMB-18: effect | "
			    "payment: when a same-side upkeep on the target "
			    "ends" },
			{ "oof_min_move", "zero", "AMB-07: zero | max: how far "
			    "an out-of-formation trooper must advance toward "
			    "its commander" } };
		int k;

		for (k = 0; k < 4; k++) {
			refd_mpw_kmap(w, sk[k][0]);
			refd_mpw_kstr(w, "type", "str");
			refd_mpw_kstr(w, "default", sk[k][1]);
			refd_mpw_kstr(w, "doc", sk[k][2]);
			refd_mpw_end(w);
		}
	}
	opt(w, "massive_casualties", "bool", 1, "a unit losing half its "
	    "models in a turn checks once [ASM-15]");
	opt(w, "check_deployment", "bool", 1, "units must start in formation");
	refd_mpw_kmap(w, "start");
	refd_mpw_kstr(w, "type", "str");
	refd_mpw_kstr(w, "default", "control");
	refd_mpw_kstr(w, "doc", "control: the first turn starts normally; "
	    "activation: straight into the first Activation Phase");
	refd_mpw_end(w);
	refd_mpw_kmap(w, "units");
	refd_mpw_kstr(w, "type", "array");
	refd_mpw_kstr(w, "doc", "units with their models and positions, see "
	    "refd-massbattle(7)");
	refd_mpw_end(w);
	refd_mpw_end(w);
	refd_mpw_kmap(w, "commands");
	for (i = 0; i < sizeof(cmd_doc) / sizeof(cmd_doc[0]); i++) {
		refd_mpw_kmap(w, cmd_doc[i][0]);
		refd_mpw_kmap(w, "args");
		if (cmd_doc[i][1][0])
			refd_mpw_kstr(w, "list", cmd_doc[i][1]);
		refd_mpw_end(w);
		refd_mpw_kstr(w, "doc", cmd_doc[i][2]);
		refd_mpw_end(w);
	}
	refd_mpw_end(w);
	refd_mpw_end(w);
	return put(ctx, w);
}

/* ---- setup ---- */

static const char *const roles[] = { "grunt", "leader", "officer", "sb",
	"attach", "solo", "warjack", "warcaster" };

struct match {
	const struct content *c;
	struct state s;
};

static int
bad_setup_(refd_ctx *ctx, struct match *mt, const char *msg)
{
	H->free(ctx, mt);
	return H->reject(ctx, REFD_ESETUP, "R003-05", msg);
}

static int
mb_create(refd_ctx *ctx, void *pdata, const void *content, const uint8_t *setup,
    size_t len, uint32_t nseats, void **out)
{
	const struct content *c = content;
	refd_mpdoc *d = refd_mp_parse(setup, len);
	refd_mpv root = refd_mp_root(d), us, tb;
	struct state *s;
	struct match *mt;
	struct g g;
	char msg[240];
	size_t i, j;
	int k, l;

	(void)pdata;
	if (d == NULL || refd_mpv_type(root) != REFD_MP_MAP) {
		refd_mp_free(d);
		return H->reject(ctx, REFD_ESETUP, NULL, "setup must be a map");
	}
	if (nseats != 2) {
		refd_mp_free(d);
		return H->reject(ctx, REFD_ESETUP, NULL, "massbattle has two "
		    "seats");
	}
	mt = H->alloc(ctx, sizeof(*mt));
	if (mt == NULL) {
		refd_mp_free(d);
		return REFD_ENOMEM;
	}
	memset(mt, 0, sizeof(*mt));
	mt->c = c;
	s = &mt->s;
	s->magic = MB_MAGIC;
	s->version = 1;
	s->cur = -1;
	s->winner = -1;
	s->turn_limit = (int32_t)refd_mpv_get_int(root, "turn_limit", 6);
	s->first = (int32_t)refd_mpv_get_int(root, "first", -1);
	s->test_hooks = refd_mpv_get_bool(root, "test_hooks", 0);
	s->massive = refd_mpv_get_bool(root, "massive_casualties", 1);
	s->premeasure = refd_mpv_get_bool(root, "premeasure", 0);
	s->combined_no_primary = !refd_mpv_get_bool(root,
	    "combined_bonus_includes_primary", 1);
	s->cra_melee = refd_mpv_get_bool(root, "cra_targets_in_melee", 0);
	{
		static const char *const pk[] = { "promo_lock", "crew_swap_at",
			"upkeep_replace_at", "oof_min_move" };
		static const char *const pv[][2] = { { "turn", "activation" },
			{ "gun", "grunt" }, { "effect", "payment" },
			{ "zero", "max" } };
		int32_t *dst[4];

		dst[0] = &s->promo_lock_act;
		dst[1] = &s->crew_swap_grunt;
		dst[2] = &s->upkeep_at_payment;
		dst[3] = &s->oof_max;
		for (k = 0; k < 4; k++) {
			refd_mpv ov = refd_mpv_get(root, pk[k]);

			if (!refd_mpv_ok(ov))
				continue;
			if (refd_mpv_streq(ov, pv[k][0]))
				*dst[k] = 0;
			else if (refd_mpv_streq(ov, pv[k][1]))
				*dst[k] = 1;
			else {
				snprintf(msg, sizeof(msg), "%s is \"%s\" or "
				    "\"%s\"", pk[k], pv[k][0], pv[k][1]);
				refd_mp_free(d);
				return bad_setup_(ctx, mt, msg);
			}
		}
	}
	s->x0 = 0;
	s->y0 = 0;
	s->x1 = s->y1 = 48000;
	tb = refd_mpv_get(root, "table");
	if (refd_mpv_ok(tb)) {
		int64_t v[4];

		for (k = 0; k < 4; k++)
			if (refd_mpv_int(refd_mpv_at(tb, (size_t)k), &v[k]) ||
			    v[k] < -100000 || v[k] > 100000)
				break;
		if (k < 4 || v[0] >= v[2] || v[1] >= v[3]) {
			refd_mp_free(d);
			return bad_setup_(ctx, mt, "table is [x0, y0, x1, y1] in "
			    "mils");
		}
		s->x0 = (int32_t)v[0];
		s->y0 = (int32_t)v[1];
		s->x1 = (int32_t)v[2];
		s->y1 = (int32_t)v[3];
	}
	tb = refd_mpv_get(root, "clouds");
	if (refd_mpv_ok(tb)) {
		if (refd_mpv_type(tb) != REFD_MP_ARRAY || refd_mpv_len(tb) > 8) {
			refd_mp_free(d);
			return bad_setup_(ctx, mt, "clouds: at most 8 [x, y, "
			    "diameter in inches]");
		}
		for (i = 0; i < refd_mpv_len(tb); i++) {
			refd_mpv cv = refd_mpv_at(tb, i);
			int64_t v[3];

			for (k = 0; k < 3; k++)
				if (refd_mpv_int(refd_mpv_at(cv, (size_t)k), &v[k]) ||
				    v[k] < -100000 || v[k] > 100000)
					break;
			if (k < 3 || v[2] < 1 || v[2] > 10) {
				refd_mp_free(d);
				return bad_setup_(ctx, mt, "clouds: [x, y, diameter "
				    "1..10 inches]");
			}
			s->cloud[i][0] = (int32_t)v[0];
			s->cloud[i][1] = (int32_t)v[1];
			s->cloud[i][2] = (int32_t)v[2] * 500;
			s->ncloud++;
		}
	}
	tb = refd_mpv_get(root, "terrain");
	if (refd_mpv_ok(tb)) {
		static const char *const tk[] = { "cover", "concealment",
			"obstruction" };

		if (refd_mpv_type(tb) != REFD_MP_ARRAY || refd_mpv_len(tb) > 8) {
			refd_mp_free(d);
			return bad_setup_(ctx, mt, "terrain: at most 8 [x, y, "
			    "diameter in inches, kind]");
		}
		for (i = 0; i < refd_mpv_len(tb); i++) {
			refd_mpv cv = refd_mpv_at(tb, i);
			int64_t v[3];
			int kk;

			for (k = 0; k < 3; k++)
				if (refd_mpv_int(refd_mpv_at(cv, (size_t)k), &v[k]) ||
				    v[k] < -100000 || v[k] > 100000)
					break;
			for (kk = 0; kk < 3; kk++)
				if (refd_mpv_streq(refd_mpv_at(cv, 3), tk[kk]))
					break;
			if (k < 3 || kk == 3 || v[2] < 1 || v[2] > 20) {
				refd_mp_free(d);
				return bad_setup_(ctx, mt, "terrain: [x, y, diameter "
				    "1..20 inches, cover|concealment|obstruction]");
			}
			s->terr[i][0] = (int32_t)v[0];
			s->terr[i][1] = (int32_t)v[1];
			s->terr[i][2] = (int32_t)v[2] * 500;
			s->terr[i][3] = kk;
			s->nterr++;
		}
	}
	if (s->turn_limit < 1 || s->turn_limit > 50 || s->first < -1 ||
	    s->first > 1) {
		refd_mp_free(d);
		return bad_setup_(ctx, mt, "turn_limit is 1..50 and first 0 or 1");
	}
	if (refd_mpv_streq(refd_mpv_get(root, "start"), "activation")) {
		if (s->first < 0) {
			refd_mp_free(d);
			return bad_setup_(ctx, mt, "start: activation needs "
			    "\"first\"");
		}
		s->phase = PH_ACT;
	}
	if (refd_mpv_ok(refd_mpv_get(root, "armies"))) {
		refd_mpv av = refd_mpv_get(root, "armies");

		if (c->na == 0 || s->phase == PH_ACT) {
			refd_mp_free(d);
			return bad_setup_(ctx, mt, "army lists need armies.json "
			    "content and a normal start");
		}
		s->phase = PH_ARMY;
		if (refd_mpv_type(av) == REFD_MP_ARRAY) {
			for (k = 0; k < 2; k++) {
				for (l = 0; l < c->na; l++)
					if (refd_mpv_streq(refd_mpv_at(av,
					    (size_t)k), c->a[l].key))
						break;
				if (l == c->na || refd_mpv_len(av) != 2) {
					refd_mp_free(d);
					return bad_setup_(ctx, mt, "\"armies\" "
					    "names two army lists (or is "
					    "\"sealed\")");
				}
				s->army[k] = l + 1;
			}
		} else if (!refd_mpv_streq(av, "sealed")) {
			refd_mp_free(d);
			return bad_setup_(ctx, mt, "\"armies\" is \"sealed\" or "
			    "two army list names");
		}
		refd_mp_free(d);
		memset(&g, 0, sizeof(g));
		g.ctx = ctx;
		g.s = s;
		g.c = c;
		if (s->army[0]) {
			mb_deploy(&g);
			mb_start_game(&g);
		}
		if (g.err) {
			H->free(ctx, mt);
			return g.err;
		}
		*out = mt;
		return REFD_OK;
	}
	us = refd_mpv_get(root, "units");
	if (refd_mpv_type(us) != REFD_MP_ARRAY || refd_mpv_len(us) == 0 ||
	    refd_mpv_len(us) > MAXU) {
		refd_mp_free(d);
		return bad_setup_(ctx, mt, "\"units\" is an array of 1 to 32 "
		    "units");
	}
	for (i = 0; i < refd_mpv_len(us); i++) {
		refd_mpv uv = refd_mpv_at(us, i), ms = refd_mpv_get(uv, "models");
		struct unit *u = &s->u[s->nu];
		int ng = 0, first = s->nm, card = -1;
		const char *ck = refd_mpv_get_str(uv, "card", NULL);

		u->alive = 1;
		u->id = (int32_t)refd_mpv_get_int(uv, "id", (int64_t)i + 1);
		u->side = (int32_t)refd_mpv_get_int(uv, "side", -1);
		u->uc = -1;
		u->order = -1;
		u->mc_turn = -1;
		u->weapon_crew = refd_mpv_get_bool(uv, "weapon_crew", 0);
		u->fleeing = refd_mpv_get_bool(uv, "fleeing", 0);
		if (u->side < 0 || u->side > 1 || u->id < 1 || u->id > 99999) {
			snprintf(msg, sizeof(msg), "unit %d: \"side\" is 0 or 1 "
			    "and \"id\" 1..99999", (int)i + 1);
			refd_mp_free(d);
			return bad_setup_(ctx, mt, msg);
		}
		for (k = 0; k < s->nu; k++)
			if (s->u[k].id == u->id) {
				refd_mp_free(d);
				return bad_setup_(ctx, mt, "two units share an id");
			}
		if (ck != NULL) {
			card = mb_find_card(c, ck);
			if (card < 0 || c->c[card].attach) {
				snprintf(msg, sizeof(msg), "unit %d: '%s' is not "
				    "a unit card (attachments are never deployed "
				    "alone)", u->id, ck);
				refd_mp_free(d);
				return bad_setup_(ctx, mt, msg);
			}
			u->card = card;
			u->weapon_crew = c->c[card].weapon_crew;
			for (k = 0; k < c->c[card].norders; k++)
				u->orders[u->norders++] = c->c[card].orders[k];
		}
		{
			static const char *const ak[] = { "ua", "wa" };

			for (k = 0; k < 2; k++) {
				const char *an = refd_mpv_get_str(uv, ak[k], NULL);
				int a;

				if (an == NULL)
					continue;
				a = mb_find_card(c, an);
				if (a < 0 || c->c[a].attach != k + 1 || card < 0 ||
				    u->weapon_crew) {
					snprintf(msg, sizeof(msg), "unit %d: '%s' "
					    "cannot be its %s (weapon crews "
					    "take none; attachments need a unit "
					    "card)", u->id, an, ak[k]);
					refd_mp_free(d);
					return bad_setup_(ctx, mt, msg);
				}
				for (l = 0; l < c->c[a].nallow; l++)
					if (c->c[a].allow[l] == card)
						break;
				if (l == c->c[a].nallow) {
					snprintf(msg, sizeof(msg), "unit %d: "
					    "attachment '%s' is not allowed for "
					    "'%s'", u->id, an, ck);
					refd_mp_free(d);
					return bad_setup_(ctx, mt, msg);
				}
				for (l = 0; l < c->c[a].norders &&
				    u->norders < 4; l++)
					u->orders[u->norders++] =
					    c->c[a].orders[l];
			}
		}
		{
			refd_mpv os = refd_mpv_get(uv, "orders");

			for (j = 0; j < refd_mpv_len(os) && u->norders < 4; j++) {
				int o = mb_find_order(c, refd_mpv_cstr(
				    refd_mpv_at(os, j), ""));

				if (o < 0) {
					refd_mp_free(d);
					return bad_setup_(ctx, mt, "unknown order "
					    "in a unit's \"orders\"");
				}
				u->orders[u->norders++] = o;
			}
		}
		if (refd_mpv_type(ms) != REFD_MP_ARRAY || refd_mpv_len(ms) == 0 ||
		    s->nm + (int)refd_mpv_len(ms) > MAXM) {
			snprintf(msg, sizeof(msg), "unit %d: \"models\" is an "
			    "array of models (64 at most in all)", u->id);
			refd_mp_free(d);
			return bad_setup_(ctx, mt, msg);
		}
		for (j = 0; j < refd_mpv_len(ms); j++) {
			refd_mpv mv = refd_mpv_at(ms, j), f;
			struct model *m = &s->m[s->nm];
			const char *pk = refd_mpv_get_str(mv, "profile", "");
			int p = mb_find_profile(c, pk), role;

			if (p < 0) {
				snprintf(msg, sizeof(msg), "unit %d: no profile "
				    "'%s'", u->id, pk);
				refd_mp_free(d);
				return bad_setup_(ctx, mt, msg);
			}
			role = c->p[p].kind == K_TROOPER ? R_GRUNT :
			    c->p[p].kind == K_WARJACK ? R_WARJACK :
			    c->p[p].kind == K_WARCASTER ? R_WARCASTER : R_SOLO;
			f = refd_mpv_get(mv, "role");
			if (refd_mpv_ok(f)) {
				for (role = 0; role < 8; role++)
					if (refd_mpv_streq(f, roles[role]))
						break;
				if (role == 8) {
					refd_mp_free(d);
					return bad_setup_(ctx, mt, "unknown role");
				}
			}
			m->alive = 1;
			m->id = (int32_t)refd_mpv_get_int(mv, "id", s->nm + 1);
			m->side = u->side;
			m->prof = p;
			m->unit = s->nu;
			m->role = role;
			m->x = (int32_t)refd_mpv_get_int(mv, "x", 0);
			m->y = (int32_t)refd_mpv_get_int(mv, "y", 0);
			m->z = (int32_t)refd_mpv_get_int(mv, "z", 0);
			m->fx = 0;
			m->fy = u->side == 0 ? 1 : -1;
			f = refd_mpv_get(mv, "face");
			if (refd_mpv_ok(f)) {
				{
					int64_t fx = 0, fy = 0;

					refd_mpv_int(refd_mpv_at(f, 0), &fx);
					refd_mpv_int(refd_mpv_at(f, 1), &fy);
					if ((fx == 0 && fy == 0) || fx > 32767 ||
					    fx < -32767 || fy > 32767 ||
					    fy < -32767) {
						refd_mp_free(d);
						return bad_setup_(ctx, mt,
						    "\"face\" is a nonzero "
						    "[fx, fy]");
					}
					m->fx = (int32_t)fx;
					m->fy = (int32_t)fy;
				}
			}
			m->cat = c->p[p].cat;
			k = mb_base_cat(refd_mpv_get(mv, "base"));
			if (k > 0)
				m->cat = k;
			m->r = (int32_t)refd_mpv_get_int(mv, "r",
			    mb_radius(m->cat));
			m->marked = (int32_t)refd_mpv_get_int(mv, "marked", 0);
			m->focus = (int32_t)refd_mpv_get_int(mv, "focus",
			    c->p[p].focus);
			m->alloc = (int32_t)refd_mpv_get_int(mv, "alloc", 0);
			m->lock_turn = -1;
			m->ctarget = -1;
			m->bg = (int32_t)refd_mpv_get_int(mv, "bg", 0);
			if (refd_mpv_get_bool(mv, "kd", 0))
				m->flags |= F_KD;
			if (refd_mpv_get_bool(mv, "stationary", 0))
				m->flags |= F_STAT;
			if (refd_mpv_get_bool(mv, "fleeing", 0))
				m->flags |= F_FLEE;
			if (refd_mpv_get_bool(mv, "fire", 0))
				m->flags |= F_FIRE;
			if (refd_mpv_get_bool(mv, "cover", 0))
				m->flags |= F_COVER;
			if (refd_mpv_get_bool(mv, "concealment", 0))
				m->flags |= F_CONCEAL;
			if (m->id < 1 || m->id > 99999 || m->r < 1 ||
			    m->r > 5000 || m->marked < 0 ||
			    m->marked >= c->p[p].boxes || m->focus < 0 ||
			    m->focus > 20 || m->alloc < 0 || m->alloc > 3 ||
			    m->alloc > m->focus || m->z < 0 || m->z > 20000) {
				snprintf(msg, sizeof(msg), "model %d: a value is "
				    "out of bounds (id, r, marked, focus, alloc "
				    "or z)", m->id);
				refd_mp_free(d);
				return bad_setup_(ctx, mt, msg);
			}
			for (k = 0; k < s->nm; k++)
				if (s->m[k].id == m->id) {
					refd_mp_free(d);
					return bad_setup_(ctx, mt, "two models "
					    "share an id");
				}
			if (role == R_GRUNT)
				ng++;
			s->nm++;
		}
		/* the unit commander: Officer > Leader > first model */
		for (k = first; k < s->nm; k++)
			if (s->m[k].role == R_OFFICER)
				u->uc = k;
		for (k = first; k < s->nm && u->uc < 0; k++)
			if (s->m[k].role == R_LEADER)
				u->uc = k;
		if (u->uc < 0) {
			u->uc = first;
			u->designated = s->nm - first > 1;
		}
		if (card >= 0 && (ng < c->c[card].gmin || ng > c->c[card].gmax)) {
			snprintf(msg, sizeof(msg), "unit %d: card '%s' takes %d "
			    "to %d Grunts, not %d", u->id, c->c[card].key,
			    c->c[card].gmin, c->c[card].gmax, ng);
			refd_mp_free(d);
			return bad_setup_(ctx, mt, msg);
		}
		s->nu++;
	}
	/* battlegroups: "bg" names the warcaster's model id */
	for (k = 0; k < s->nm; k++) {
		struct model *m = &s->m[k];

		if (c->p[m->prof].kind == K_WARCASTER) {
			m->bg = k;
			continue;
		}
		if (m->bg == 0) {
			m->bg = -1;
			continue;
		}
		for (l = 0; l < s->nm; l++)
			if (s->m[l].id == m->bg &&
			    c->p[s->m[l].prof].kind == K_WARCASTER &&
			    s->m[l].side == m->side)
				break;
		if (l == s->nm || c->p[m->prof].kind != K_WARJACK) {
			snprintf(msg, sizeof(msg), "model %d: \"bg\" must name a "
			    "friendly warcaster, on a warjack", m->id);
			refd_mp_free(d);
			return bad_setup_(ctx, mt, msg);
		}
		m->bg = l;
	}
	memset(&g, 0, sizeof(g));
	g.ctx = ctx;
	g.s = s;
	g.c = c;
	for (k = 0; k < s->nm; k++) {
		s->m[k].owner = s->m[k].side;
		s->m[k].bg0 = s->m[k].bg;
	}
	for (k = 0; k < s->nm; k++) {
		const struct model *m = &s->m[k];

		if (m->x < s->x0 || m->x > s->x1 || m->y < s->y0 ||
		    m->y > s->y1) {
			snprintf(msg, sizeof(msg), "model %d is off the table",
			    m->id);
			refd_mp_free(d);
			return bad_setup_(ctx, mt, msg);
		}
		for (l = 0; l < s->nterr; l++) {
			cont_pt tc;

			tc.x = s->terr[l][0];
			tc.y = s->terr[l][1];
			if (s->terr[l][3] == 2 && cont_overlap(mpt(m), m->r, tc,
			    s->terr[l][2])) {
				snprintf(msg, sizeof(msg), "model %d stands on an "
				    "obstruction", m->id);
				refd_mp_free(d);
				return bad_setup_(ctx, mt, msg);
			}
		}
		for (l = 0; l < k; l++)
			if (cont_overlap(mpt(m), m->r, mpt(&s->m[l]),
			    s->m[l].r)) {
				snprintf(msg, sizeof(msg), "models %d and %d "
				    "overlap", m->id, s->m[l].id);
				refd_mp_free(d);
				return bad_setup_(ctx, mt, msg);
			}
		if (refd_mpv_get_bool(root, "check_deployment", 1) &&
		    is_trooper(&g, m) && !in_formation(&g, m)) {
			snprintf(msg, sizeof(msg), "R003-08: model %d must start "
			    "the game in formation", m->id);
			refd_mp_free(d);
			return bad_setup_(ctx, mt, msg);
		}
	}
	refd_mp_free(d);
	for (k = 0; k < s->nu; k++)
		s->u[k].start_n = 0;
	mb_start_game(&g);
	if (g.err) {
		H->free(ctx, mt);
		return g.err;
	}
	*out = mt;
	return REFD_OK;
}

static void
gset(struct g *g, refd_ctx *ctx, const void *state)
{
	struct match *mt = (struct match *)(uintptr_t)state;

	memset(g, 0, sizeof(*g));
	g->ctx = ctx;
	g->s = &mt->s;
	g->c = mt->c;
}

static int
mb_apply(refd_ctx *ctx, void *state, uint32_t seat, const uint8_t *cmd,
    size_t len)
{
	refd_mpdoc *d = refd_mp_parse(cmd, len);
	struct g g;
	int rc;

	gset(&g, ctx, state);
	if (d == NULL || refd_mpv_type(refd_mp_root(d)) != REFD_MP_MAP) {
		refd_mp_free(d);
		return H->reject(ctx, REFD_EBADCMD, NULL, "a command is a map "
		    "with a \"type\"");
	}
	rc = mb_command(&g, seat, refd_mp_root(d));
	refd_mp_free(d);
	if (rc != 0 && g.code == rc)
		return H->reject(ctx, rc, g.rule, g.msg);
	return rc;
}

static int
mb_legal_op(refd_ctx *ctx, const void *state, uint32_t seat)
{
	refd_mpw *w = refd_mpw_create();
	struct g g;

	gset(&g, ctx, state);
	refd_mpw_array(w);
	mb_legal(&g, seat, w);
	refd_mpw_end(w);
	return put(ctx, w);
}

static int
mb_pending(refd_ctx *ctx, const void *state, uint64_t *seats)
{
	const struct match *mt = state;
	int s = mb_pending_seat(&mt->s);

	(void)ctx;
	if (mt->s.phase == PH_ARMY) {
		*seats = (uint64_t)(mt->s.army[0] == 0) |
		    ((uint64_t)(mt->s.army[1] == 0) << 1);
		return REFD_OK;
	}
	*seats = s < 0 ? 0 : (uint64_t)1 << s;
	return REFD_OK;
}

static const char *
phase_name(int p)
{
	switch (p) {
	case PH_CP_ALLOC: return "control:allocate";
	case PH_CP_UPKEEP: return "control:upkeep";
	case PH_CP_SHAKE: return "control:shake";
	case PH_ACT: return "activation";
	case PH_OVER: return "over";
	case PH_START: return "start";
	case PH_ARMY: return "army lists";
	}
	return "?";
}

static const char *const pnames[] = { "", "promote", "designate",
	"sb_replace", "reroll", "free_strike", "damage", "choose_first",
	"use_commander", "choose_order" };
static const char *const mvn[] = { "none", "advance", "run", "charge",
	"forfeit", "failed_charge" };

/* The board a viewer draws (refd-plugin(3), BOARD). */
static void
view_board(refd_mpw *w, const struct g *g)
{
	static const char *const tk[] = { "cover", "concealment",
		"obstruction" };
	const struct state *s = g->s;
	char t[24];
	int i;

	refd_board_begin(w, REFD_BOARD_TABLE, s->x1 - s->x0, s->y1 - s->y0);
	refd_mpw_kint(w, "x0", s->x0);
	refd_mpw_kint(w, "y0", s->y0);
	refd_mpw_kint(w, "scale", 1000);
	refd_mpw_karray(w, "areas");
	for (i = 0; i < s->nterr; i++) {
		refd_mpw_array(w);
		refd_mpw_int(w, s->terr[i][0]);
		refd_mpw_int(w, s->terr[i][1]);
		refd_mpw_int(w, s->terr[i][2]);
		refd_mpw_str(w, s->terr[i][3] >= 0 && s->terr[i][3] < 3 ?
		    tk[s->terr[i][3]] : "terrain");
		refd_mpw_end(w);
	}
	for (i = 0; i < s->ncloud; i++) {
		refd_mpw_array(w);
		refd_mpw_int(w, s->cloud[i][0]);
		refd_mpw_int(w, s->cloud[i][1]);
		refd_mpw_int(w, s->cloud[i][2]);
		refd_mpw_str(w, "cloud");
		refd_mpw_end(w);
	}
	refd_mpw_end(w);
	refd_board_pieces(w);
	for (i = 0; i < s->nm; i++) {
		const struct model *m = &s->m[i];
		struct refd_board_piece p = refd_board_piece_init(m->id,
		    mname(g, m), m->side, m->x, m->y);

		p.size = m->r;
		p.fx = m->fx;
		p.fy = m->fy;
		p.arc = 180;
		p.hp = boxes(g, m) - m->marked;
		p.hp_max = boxes(g, m);
		p.role = roles[m->role];
		p.gone = !m->alive;
		refd_board_piece(w, &p);
		if (m->alive) {
			if (m->focus > 0) {
				snprintf(t, sizeof(t), "focus %d", m->focus);
				refd_mpw_str(w, t);
			}
			if (m->flags & F_KD)
				refd_mpw_str(w, "knocked down");
			if (m->flags & F_STAT)
				refd_mpw_str(w, "stationary");
			if (m->flags & F_FIRE)
				refd_mpw_str(w, "fire");
			if (fleeing(g, m))
				refd_mpw_str(w, "fleeing");
			if (!in_formation(g, m))
				refd_mpw_str(w, "out of formation");
		}
		refd_board_piece_end(w);
	}
	refd_mpw_end(w);
	refd_board_info(w);
	refd_mpw_kint(w, "round", (s->turn + 1) / 2);
	refd_mpw_kint(w, "turn", s->turn);
	refd_mpw_kstr(w, "phase", phase_name(s->phase));
	refd_mpw_kint(w, "active side", s->active);
	refd_mpw_end(w);
	refd_board_end(w);
}

static int
mb_view(refd_ctx *ctx, const void *state, int32_t seat)
{
	struct g g;
	refd_mpw *w = refd_mpw_create();
	int i;

	gset(&g, ctx, state);
	refd_mpw_map(w);
	refd_mpw_kint(w, "turn", g.s->turn);
	refd_mpw_kint(w, "round", (g.s->turn + 1) / 2);
	refd_mpw_kint(w, "turn_limit", g.s->turn_limit);
	refd_mpw_kint(w, "active", g.s->active);
	refd_mpw_kstr(w, "phase", phase_name(g.s->phase));
	refd_mpw_kint(w, "activating", g.s->cur >= 0 ?
	    g.s->u[g.s->cur].id : 0);
	if (g.s->npr > 0) {
		refd_mpw_kmap(w, "decision");
		refd_mpw_kstr(w, "kind", pnames[g.s->pr[0].kind]);
		refd_mpw_kint(w, "seat", g.s->pr[0].seat);
		if (g.s->pr[0].unit >= 0)
			refd_mpw_kint(w, "unit", g.s->u[g.s->pr[0].unit].id);
		refd_mpw_end(w);
	}
	refd_mpw_karray(w, "armies");
	for (i = 0; i < 2; i++) {
		refd_mpw_map(w);
		refd_mpw_kbool(w, "submitted", g.s->army[i] != 0);
		if (g.s->army[i] && (g.s->phase != PH_ARMY || seat == i))
			refd_mpw_kstr(w, "army", g.c->a[g.s->army[i] - 1].key);
		refd_mpw_end(w);
	}
	refd_mpw_end(w);
	refd_mpw_karray(w, "models");
	for (i = 0; i < g.s->nm; i++) {
		const struct model *m = &g.s->m[i];

		refd_mpw_map(w);
		refd_mpw_kint(w, "id", m->id);
		refd_mpw_kstr(w, "name", mname(&g, m));
		refd_mpw_kbool(w, "alive", m->alive);
		if (m->alive) {
			refd_mpw_kint(w, "side", m->side);
			refd_mpw_kint(w, "owner", m->owner);
			refd_mpw_kint(w, "battlegroup", m->bg >= 0 ?
			    g.s->m[m->bg].id : 0);
			refd_mpw_kint(w, "unit", g.s->u[m->unit].id);
			refd_mpw_kstr(w, "role", roles[m->role]);
			refd_mpw_kint(w, "x", m->x);
			refd_mpw_kint(w, "y", m->y);
			refd_mpw_kint(w, "z", m->z);
			refd_mpw_karray(w, "face");
			refd_mpw_int(w, m->fx);
			refd_mpw_int(w, m->fy);
			refd_mpw_end(w);
			refd_mpw_kint(w, "r", m->r);
			refd_mpw_kint(w, "damage", m->marked);
			refd_mpw_kint(w, "boxes", boxes(&g, m));
			refd_mpw_kint(w, "focus", m->focus);
			if (g.c->p[m->prof].grid[0] > 0) {
				int k;

				refd_mpw_karray(w, "grid");
				for (k = 0; k < 6; k++)
					refd_mpw_int(w, m->gm[k]);
				refd_mpw_end(w);
			}
			refd_mpw_kint(w, "def", def_eff(&g, m, NULL, 0));
			refd_mpw_kint(w, "arm", arm_eff(&g, m));
			refd_mpw_kbool(w, "in_formation", in_formation(&g, m));
			refd_mpw_kbool(w, "fleeing", fleeing(&g, m));
			refd_mpw_kbool(w, "knocked_down", (m->flags & F_KD) != 0);
			refd_mpw_kbool(w, "stationary", (m->flags & F_STAT) != 0);
			refd_mpw_kbool(w, "fire", (m->flags & F_FIRE) != 0);
			refd_mpw_kbool(w, "attack_locked", locked(&g, m));
			refd_mpw_kstr(w, "moved", mvn[m->mv]);
		}
		refd_mpw_end(w);
	}
	refd_mpw_end(w);
	refd_mpw_karray(w, "units");
	for (i = 0; i < g.s->nu; i++) {
		const struct unit *u = &g.s->u[i];

		refd_mpw_map(w);
		refd_mpw_kint(w, "id", u->id);
		refd_mpw_kint(w, "side", u->side);
		refd_mpw_kbool(w, "alive", u->alive);
		refd_mpw_kint(w, "commander", u->uc >= 0 ? g.s->m[u->uc].id : 0);
		refd_mpw_kbool(w, "fleeing", u->fleeing);
		refd_mpw_kbool(w, "activated", u->act);
		refd_mpw_end(w);
	}
	refd_mpw_end(w);
	refd_mpw_karray(w, "spells");
	for (i = 0; i < MAXINST; i++) {
		const struct inst *in = &g.s->in[i];

		if (!in->on)
			continue;
		refd_mpw_map(w);
		refd_mpw_kstr(w, "spell", g.c->sp[in->spell].key);
		refd_mpw_kint(w, "caster", g.s->m[in->caster].id);
		if (in->model >= 0)
			refd_mpw_kint(w, "model", g.s->m[in->model].id);
		if (in->unit >= 0)
			refd_mpw_kint(w, "unit", g.s->u[in->unit].id);
		refd_mpw_kbool(w, "upkeep", in->upkeep);
		refd_mpw_end(w);
	}
	refd_mpw_end(w);
	view_board(w, &g);
	refd_mpw_end(w);
	return put(ctx, w);
}

static int
mb_result(refd_ctx *ctx, const void *state)
{
	const struct match *mt = state;
	refd_mpw *w;
	int rc;
	static const char *const rs[] = { "", "no models left",
		"warcaster destroyed", "turn limit: more points",
		"turn limit: draw" };

	if (mt->s.phase != PH_OVER)
		return 0;
	w = refd_mpw_create();
	refd_mpw_map(w);
	refd_mpw_karray(w, "winners");
	if (mt->s.winner >= 0)
		refd_mpw_int(w, mt->s.winner);
	refd_mpw_end(w);
	refd_mpw_kstr(w, "reason", rs[mt->s.reason >= 0 && mt->s.reason < 5 ?
	    mt->s.reason : 0]);
	refd_mpw_end(w);
	rc = put(ctx, w);
	return rc == REFD_OK ? 1 : rc;
}

static int
mb_serialize(refd_ctx *ctx, const void *state)
{
	const struct match *mt = state;
	refd_mpw *w = refd_mpw_create();

	refd_mpw_bin(w, (const uint8_t *)&mt->s, sizeof(mt->s));
	return put(ctx, w);
}

static int
sane(const struct content *c, const struct state *s)
{
	int i;

	if (s->magic != MB_MAGIC || s->nm < 0 || s->nm > MAXM || s->nu < 0 ||
	    s->nu > MAXU || s->npr < 0 || s->npr > MAXPROMPT ||
	    s->cur < -1 || s->cur >= s->nu)
		return 0;
	if (s->prio < 0 || s->prio > s->nu || s->ncloud < 0 || s->ncloud > 8 ||
	    s->nterr < 0 || s->nterr > 8 || s->army[0] < 0 ||
	    s->army[0] > c->na || s->army[1] < 0 || s->army[1] > c->na ||
	    s->pd.att < -1 || s->pd.att >= MAXM || s->pd.tgt < 0 ||
	    s->pd.tgt >= MAXM)
		return 0;
	for (i = 0; i < s->nm; i++)
		if (s->m[i].prof < 0 || s->m[i].prof >= c->np ||
		    s->m[i].unit < 0 || s->m[i].unit >= s->nu ||
		    s->m[i].role < 0 || s->m[i].role > 7 || s->m[i].mv < 0 ||
		    s->m[i].mv > 5 || s->m[i].bg < -1 || s->m[i].bg >= s->nm ||
		    s->m[i].bg0 < -1 || s->m[i].bg0 >= s->nm ||
		    s->m[i].ctarget < -1 || s->m[i].ctarget >= s->nm)
			return 0;
	for (i = 0; i < s->nu; i++)
		if (s->u[i].uc < -1 || s->u[i].uc >= s->nm ||
		    s->u[i].norders < 0 || s->u[i].norders > 4)
			return 0;
	for (i = 0; i < s->npr; i++)
		if (s->pr[i].kind < 1 || s->pr[i].kind > P_ORDER ||
		    s->pr[i].unit < -1 || s->pr[i].unit >= s->nu ||
		    s->pr[i].model < -1 || s->pr[i].model >= s->nm ||
		    s->pr[i].a < -1000 || s->pr[i].a >= 1000 ||
		    s->pr[i].c < 0 || s->pr[i].c > 4)
			return 0;
	for (i = 0; i < MAXINST; i++)
		if (s->in[i].on && (s->in[i].spell < 0 ||
		    s->in[i].spell >= c->ns || s->in[i].caster < 0 ||
		    s->in[i].caster >= s->nm || s->in[i].model < -1 ||
		    s->in[i].model >= s->nm || s->in[i].unit < -1 ||
		    s->in[i].unit >= s->nu))
			return 0;
	return 1;
}

static int
mb_restore(refd_ctx *ctx, void *pdata, const void *content, const uint8_t *b,
    size_t len, void **out)
{
	refd_mpdoc *d = refd_mp_parse(b, len);
	const uint8_t *p;
	size_t n;
	struct match *mt;

	(void)pdata;
	if (d == NULL || refd_mpv_bin(refd_mp_root(d), &p, &n) != 0 ||
	    n != sizeof(mt->s)) {
		refd_mp_free(d);
		return H->reject(ctx, REFD_EARG, NULL, "state is damaged");
	}
	mt = H->alloc(ctx, sizeof(*mt));
	if (mt == NULL) {
		refd_mp_free(d);
		return REFD_ENOMEM;
	}
	mt->c = content;
	memcpy(&mt->s, p, n);
	refd_mp_free(d);
	if (!sane(content, &mt->s)) {
		H->free(ctx, mt);
		return H->reject(ctx, REFD_EARG, NULL, "state is damaged");
	}
	*out = mt;
	return REFD_OK;
}

/* Re-pick a sealed army list for seat (hidden data only). */
static int
mb_redeal(refd_ctx *ctx, void *state, uint32_t seat)
{
	struct match *mt = state;
	uint32_t v;
	int rc;

	if (mt->s.phase != PH_ARMY || seat > 1 || mt->s.army[seat] == 0)
		return REFD_OK;
	if ((rc = H->uniform(ctx, (uint32_t)mt->c->na, "redeal", &v)) !=
	    REFD_OK)
		return rc;
	mt->s.army[seat] = (int32_t)v + 1;
	return REFD_OK;
}

static void
mb_destroy(refd_ctx *ctx, void *state)
{
	H->free(ctx, state);
}

static const struct refd_plugin_ops ops = {
	sizeof(struct refd_plugin_ops),
	mb_init,
	NULL,
	mb_describe,
	mb_content_load,
	mb_content_free,
	mb_create,
	mb_apply,
	mb_legal_op,
	mb_pending,
	mb_view,
	mb_result,
	mb_serialize,
	mb_restore,
	mb_destroy,
	mb_redeal,
};

REFD_PLUGIN_DEFINE_CAPS("massbattle", "0.1.0", "unit-based battle on a "
    "continuous table: warcasters, warjacks, focus, spells, units with "
    "commanders", 2, 2, REFD_PF_ROLLBACK | REFD_PF_HIDDEN,
    REFD_CAP_DRAWS | REFD_CAP_EVENTS | REFD_CAP_COMMIT, &ops);
