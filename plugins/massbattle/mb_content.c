/*
 * mb_content.c - massbattle content: profiles, spells, orders, cards.
 * A broken file is refused with the file, the field and the reason.
 */
#include <stdio.h>
#include <string.h>

#include "mb.h"

struct cl {
	refd_ctx *ctx;
	char msg[200];
	int bad;
};

static void
badf(struct cl *l, const char *file, const char *item, const char *field,
    const char *why)
{
	if (l->bad)
		return;
	l->bad = 1;
	snprintf(l->msg, sizeof(l->msg), "%s.json: '%s': field '%s': %s",
	    file, item, field, why);
}

static int32_t
geti(struct cl *l, refd_mpv v, const char *file, const char *item,
    const char *k, int64_t lo, int64_t hi, int64_t dflt)
{
	refd_mpv f = refd_mpv_get(v, k);
	int64_t x;
	int b;
	char why[64];

	if (!refd_mpv_ok(f))
		return (int32_t)dflt;
	if (refd_mpv_bool(f, &b) == 0)
		x = b;
	else if (refd_mpv_int(f, &x) != 0) {
		badf(l, file, item, k, "expected an integer");
		return (int32_t)dflt;
	}
	if (x < lo || x > hi) {
		snprintf(why, sizeof(why), "expected %lld..%lld", (long long)lo,
		    (long long)hi);
		badf(l, file, item, k, why);
		return (int32_t)dflt;
	}
	return (int32_t)x;
}

static void
key_of(refd_mpv map, size_t i, char *dst)
{
	snprintf(dst, NAMEL, "%s", refd_mpv_cstr(refd_mpv_key_at(map, i), "?"));
}

int
mb_find_spell(const struct content *c, const char *k)
{
	int i;

	for (i = 0; i < c->ns; i++)
		if (strcmp(c->sp[i].key, k) == 0)
			return i;
	return -1;
}

int
mb_find_order(const struct content *c, const char *k)
{
	int i;

	for (i = 0; i < c->no; i++)
		if (strcmp(c->o[i].key, k) == 0)
			return i;
	return -1;
}

int
mb_find_profile(const struct content *c, const char *k)
{
	int i;

	for (i = 0; i < c->np; i++)
		if (strcmp(c->p[i].key, k) == 0)
			return i;
	return -1;
}

int
mb_find_card(const struct content *c, const char *k)
{
	int i;

	for (i = 0; i < c->nc; i++)
		if (strcmp(c->c[i].key, k) == 0)
			return i;
	return -1;
}

static int
str_enum(refd_mpv v, const char *const *names, int n, int dflt)
{
	int i;

	if (!refd_mpv_ok(v))
		return dflt;
	for (i = 0; i < n; i++)
		if (refd_mpv_streq(v, names[i]))
			return i;
	return -1;
}

static const char *const kinds[] = { "trooper", "solo", "warjack",
	"warcaster" };
static const char *const bases[] = { "", "small", "medium", "large",
	"huge" };
static const int32_t radius[] = { 0, 591, 787, 984, 2362 };
static const char *const tgts[] = { "any", "enemy_trooper", "friendly",
	"self", "own_warjack", "unit", "enemy", "living", "enemy_independent" };

int32_t
mb_radius(int cat)
{
	return cat >= 1 && cat <= 4 ? radius[cat] : 591;
}

int
mb_base_cat(refd_mpv v)
{
	return str_enum(v, bases, 5, -1);
}

static void
load_orders(struct cl *l, struct content *c, refd_mpv f)
{
	size_t i;

	if (refd_mpv_type(f) != REFD_MP_MAP) {
		badf(l, "orders", "(file)", "(root)", "expected an object");
		return;
	}
	for (i = 0; i < refd_mpv_len(f) && !l->bad; i++) {
		struct order *o = &c->o[c->no];
		refd_mpv v = refd_mpv_val_at(f, i);
		static const char *const ok[] = { "run", "charge", "ride_by" };

		if (c->no >= MAXORDER) {
			badf(l, "orders", "(file)", "(root)", "too many orders");
			return;
		}
		key_of(f, i, o->key);
		o->kind = str_enum(refd_mpv_get(v, "kind"), ok, 3, -1);
		if (o->kind < 0)
			badf(l, "orders", o->key, "kind",
			    "expected \"run\", \"charge\" or \"ride_by\"");
		c->no++;
	}
}

static void
name_list(struct cl *l, refd_mpv arr, const char *file, const char *item,
    const char *field, int32_t *dst, int32_t *n, int max,
    int (*find)(const struct content *, const char *), const struct content *c)
{
	size_t i;
	char why[96];

	*n = 0;
	if (!refd_mpv_ok(arr))
		return;
	if (refd_mpv_type(arr) != REFD_MP_ARRAY || (int)refd_mpv_len(arr) > max) {
		snprintf(why, sizeof(why), "expected an array of at most %d names",
		    max);
		badf(l, file, item, field, why);
		return;
	}
	for (i = 0; i < refd_mpv_len(arr); i++) {
		const char *nm = refd_mpv_cstr(refd_mpv_at(arr, i), "");
		int k = find(c, nm);

		if (k < 0) {
			snprintf(why, sizeof(why), "unknown name '%s'", nm);
			badf(l, file, item, field, why);
			return;
		}
		dst[(*n)++] = k;
	}
}

static void
load_spells(struct cl *l, struct content *c, refd_mpv f)
{
	size_t i;

	if (refd_mpv_type(f) != REFD_MP_MAP) {
		badf(l, "spells", "(file)", "(root)", "expected an object");
		return;
	}
	for (i = 0; i < refd_mpv_len(f) && !l->bad; i++) {
		struct spell *s = &c->sp[c->ns];
		refd_mpv v = refd_mpv_val_at(f, i), x;
		const char *k;

		if (c->ns >= MAXSPELL) {
			badf(l, "spells", "(file)", "(root)", "too many spells");
			return;
		}
		key_of(f, i, s->key);
		k = s->key;
		snprintf(s->name, NAMEL, "%s",
		    refd_mpv_get_str(v, "name", s->key));
		s->cost = geti(l, v, "spells", k, "cost", 0, 10, 1);
		x = refd_mpv_get(v, "rng");
		if (refd_mpv_streq(x, "SELF"))
			s->rng = -1;
		else if (refd_mpv_streq(x, "CTRL"))
			s->rng = -2;
		else
			s->rng = geti(l, v, "spells", k, "rng", 0, 48, 0);
		x = refd_mpv_get(v, "pow");
		s->pow = refd_mpv_ok(x) && refd_mpv_type(x) != REFD_MP_NIL ?
		    geti(l, v, "spells", k, "pow", 0, 30, 0) : -1;
		x = refd_mpv_get(v, "aoe");
		if (refd_mpv_streq(x, "CTRL"))
			s->aoe = -2;
		else if (refd_mpv_ok(x) && refd_mpv_type(x) != REFD_MP_NIL)
			s->aoe = geti(l, v, "spells", k, "aoe", 1, 10, 0);
		else
			s->aoe = 0;
		s->upkeep = geti(l, v, "spells", k, "upkeep", 0, 1, 0);
		x = refd_mpv_get(v, "off");
		s->off = refd_mpv_streq(x, "*") ? 2 :
		    geti(l, v, "spells", k, "off", 0, 1, 0);
		s->tgt = str_enum(refd_mpv_get(v, "target"), tgts, 9, T_ANY);
		if (s->tgt < 0)
			badf(l, "spells", k, "target", "unknown target kind");
		s->def = geti(l, v, "spells", k, "def", -5, 5, 0);
		s->arm = geti(l, v, "spells", k, "arm", -5, 5, 0);
		s->mat = geti(l, v, "spells", k, "mat", -5, 5, 0);
		s->round = geti(l, v, "spells", k, "one_round", 0, 1, 0);
		s->fire = geti(l, v, "spells", k, "fire", 0, 1, 0);
		s->kd = geti(l, v, "spells", k, "knockdown", 0, 1, 0);
		s->ctrl = geti(l, v, "spells", k, "ctrl", -5, 10, 0);
		s->ctrl_x2 = geti(l, v, "spells", k, "ctrl_x2", 0, 1, 0);
		s->dice = geti(l, v, "spells", k, "dice", -1, 2, 0);
		s->auto_hit = geti(l, v, "spells", k, "auto_hit", 0, 1, 0);
		s->animus = geti(l, v, "spells", k, "animus", 0, 1, 0);
		s->control = geti(l, v, "spells", k, "control", 0, 1, 0);
		if (s->control && s->tgt != T_ENEMY_NONTROOPER)
			badf(l, "spells", k, "control", "a control spell targets "
			    "enemy_independent models");
		if (s->animus && (s->upkeep || s->off))
			badf(l, "spells", k, "animus", "an animus is neither an "
			    "upkeep nor an offensive spell");
		if (s->aoe == -2 && s->off)
			badf(l, "spells", k, "aoe", "an AOE CTRL spell must be "
			    "non-offensive in this engine");
		if (s->rng == -1 && s->off)
			badf(l, "spells", k, "off", "a SELF spell cannot be "
			    "offensive");
		c->ns++;
	}
}

static void
load_profiles(struct cl *l, struct content *c, refd_mpv f)
{
	size_t i, j;

	if (refd_mpv_type(f) != REFD_MP_MAP) {
		badf(l, "profiles", "(file)", "(root)", "expected an object");
		return;
	}
	for (i = 0; i < refd_mpv_len(f) && !l->bad; i++) {
		struct profile *p = &c->p[c->np];
		refd_mpv v = refd_mpv_val_at(f, i), ws;
		const char *k;

		if (c->np >= MAXPROF) {
			badf(l, "profiles", "(file)", "(root)",
			    "too many profiles");
			return;
		}
		key_of(f, i, p->key);
		k = p->key;
		snprintf(p->name, NAMEL, "%s", refd_mpv_get_str(v, "name", k));
		p->kind = str_enum(refd_mpv_get(v, "kind"), kinds, 4, -1);
		if (p->kind < 0)
			badf(l, "profiles", k, "kind", "expected trooper, solo, "
			    "warjack or warcaster");
		p->cat = str_enum(refd_mpv_get(v, "base"), bases, 5, 1);
		if (p->cat <= 0)
			badf(l, "profiles", k, "base", "expected small, medium, "
			    "large or huge");
		else
			p->r = geti(l, v, "profiles", k, "radius", 100, 5000,
			    radius[p->cat]);
		p->spd = geti(l, v, "profiles", k, "spd", 0, 12, 5);
		p->mat = geti(l, v, "profiles", k, "mat", 0, 12, 5);
		p->rat = geti(l, v, "profiles", k, "rat", 0, 12, 5);
		p->def = geti(l, v, "profiles", k, "def", 1, 25, 12);
		p->arm = geti(l, v, "profiles", k, "arm", 1, 30, 12);
		p->cmd = geti(l, v, "profiles", k, "cmd", 0, 12,
		    p->kind == K_WARJACK ? 0 : 7);
		p->focus = geti(l, v, "profiles", k, "focus", 0, 10, 0);
		p->boxes = geti(l, v, "profiles", k, "boxes", 1, 60, 1);
		p->heavy = geti(l, v, "profiles", k, "heavy", 0, 1, 0);
		p->arc_node = geti(l, v, "profiles", k, "arc_node", 0, 1, 0);
		p->commander = geti(l, v, "profiles", k, "commander", 0, 1,
		    p->kind == K_WARCASTER);
		p->fearless = geti(l, v, "profiles", k, "fearless", 0, 1,
		    p->kind == K_WARCASTER || p->kind == K_WARJACK);
		p->terrifying = geti(l, v, "profiles", k, "terrifying", 0, 1, 0);
		p->cra = geti(l, v, "profiles", k, "cra", 0, 1, 0);
		p->cma = geti(l, v, "profiles", k, "cma", 0, 1, 0);
		p->cavalry = geti(l, v, "profiles", k, "cavalry", 0, 1, 0);
		p->points = geti(l, v, "profiles", k, "points", 0, 100, 1);
		if (p->kind == K_WARCASTER && p->focus == 0)
			badf(l, "profiles", k, "focus",
			    "a warcaster needs a FOCUS of 1 or more");
		ws = refd_mpv_get(v, "weapons");
		if (refd_mpv_ok(ws) && (refd_mpv_type(ws) != REFD_MP_ARRAY ||
		    refd_mpv_len(ws) > MAXW))
			badf(l, "profiles", k, "weapons",
			    "expected an array of at most 4 weapons");
		for (j = 0; !l->bad && j < refd_mpv_len(ws); j++) {
			refd_mpv wv = refd_mpv_at(ws, j);
			struct weapon *w = &p->w[p->nw++];
			static const char *const wt[] = { "ranged", "melee" };

			snprintf(w->name, NAMEL, "%s",
			    refd_mpv_get_str(wv, "name", "weapon"));
			w->melee = str_enum(refd_mpv_get(wv, "type"), wt, 2, -1);
			if (w->melee < 0)
				badf(l, "profiles", k, "weapons.type",
				    "expected \"melee\" or \"ranged\"");
			w->pow = geti(l, wv, "profiles", k, w->melee ?
			    "ps" : "pow", 0, 30, 10);
			w->rng = geti(l, wv, "profiles", k, "rng", 0, 48, 0);
			w->rof = geti(l, wv, "profiles", k, "rof", 1, 5, 1);
			w->reach = geti(l, wv, "profiles", k, "reach", 0, 1, 0);
			w->open_fist = geti(l, wv, "profiles", k, "open_fist",
			    0, 1, 0);
			w->system = geti(l, wv, "profiles", k, "system", 0, 6, 0);
			if (!w->melee && w->rng == 0)
				badf(l, "profiles", k, "weapons.rng",
				    "a ranged weapon needs a range");
		}
		{
			refd_mpv gv = refd_mpv_get(v, "grid");
			int32_t tot = 0;

			if (refd_mpv_ok(gv) && (refd_mpv_type(gv) != REFD_MP_ARRAY ||
			    refd_mpv_len(gv) != 6 || p->kind != K_WARJACK))
				badf(l, "profiles", k, "grid", "a warjack's grid is "
				    "six column sizes");
			for (j = 0; !l->bad && j < refd_mpv_len(gv); j++) {
				int64_t x;

				if (refd_mpv_int(refd_mpv_at(gv, j), &x) != 0 ||
				    x < 1 || x > 10)
					badf(l, "profiles", k, "grid",
					    "columns hold 1 to 10 boxes");
				else
					tot += p->grid[j] = (int32_t)x;
			}
			if (tot > 0)
				p->boxes = tot;
		}
		if (!l->bad)
			name_list(l, refd_mpv_get(v, "spells"), "profiles", k,
			    "spells", p->spells, &p->nspells, MAXPSPELL,
			    mb_find_spell, c);
		if (!l->bad)
			name_list(l, refd_mpv_get(v, "orders"), "profiles", k,
			    "orders", p->orders, &p->norders, 4, mb_find_order,
			    c);
		p->feat = -1;
		if (refd_mpv_ok(refd_mpv_get(v, "feat"))) {
			p->feat = mb_find_spell(c, refd_mpv_get_str(v, "feat",
			    ""));
			if (p->feat < 0)
				badf(l, "profiles", k, "feat",
				    "unknown spell name for the feat");
		}
		c->np++;
	}
}

static void
load_cards(struct cl *l, struct content *c, refd_mpv f)
{
	size_t i;

	if (!refd_mpv_ok(f))
		return;
	if (refd_mpv_type(f) != REFD_MP_MAP) {
		badf(l, "cards", "(file)", "(root)", "expected an object");
		return;
	}
	for (i = 0; i < refd_mpv_len(f) && !l->bad; i++) {
		struct card *d = &c->c[c->nc];
		refd_mpv v = refd_mpv_val_at(f, i);
		static const char *const at[] = { "unit", "ua", "wa" };

		if (c->nc >= MAXCARD) {
			badf(l, "cards", "(file)", "(root)", "too many cards");
			return;
		}
		key_of(f, i, d->key);
		d->gmin = geti(l, v, "cards", d->key, "grunts_min", 0, 20, 0);
		d->gmax = geti(l, v, "cards", d->key, "grunts_max", 0, 20, 20);
		d->weapon_crew = geti(l, v, "cards", d->key, "weapon_crew",
		    0, 1, 0);
		d->attach = str_enum(refd_mpv_get(v, "kind"), at, 3, 0);
		if (d->attach < 0)
			badf(l, "cards", d->key, "kind",
			    "expected unit, ua or wa");
		if (d->gmin > d->gmax)
			badf(l, "cards", d->key, "grunts_min",
			    "greater than grunts_max");
		if (!l->bad)
			name_list(l, refd_mpv_get(v, "orders"), "cards", d->key,
			    "orders", d->orders, &d->norders, 4, mb_find_order,
			    c);
		c->nc++;
	}
	/* second pass: attachment permissions name other cards */
	for (i = 0; i < refd_mpv_len(f) && !l->bad; i++)
		name_list(l, refd_mpv_get(refd_mpv_val_at(f, i), "for"),
		    "cards", c->c[i].key, "for", c->c[i].allow,
		    &c->c[i].nallow, 4, mb_find_card, c);
	for (i = 0; i < (size_t)c->nc && !l->bad; i++)
		if (c->c[i].weapon_crew && c->c[i].attach)
			badf(l, "cards", c->c[i].key, "weapon_crew",
			    "an attachment cannot be a weapon crew");
}

static const char *const aroles[] = { "grunt", "leader", "officer", "sb",
	"attach", "solo", "warjack", "warcaster" };

static int
attach_ok(const struct content *c, int card, int a, int kind)
{
	int l;

	if (a < 0)
		return 1;
	if (card < 0 || c->c[card].weapon_crew || c->c[a].attach != kind)
		return 0;
	for (l = 0; l < c->c[a].nallow; l++)
		if (c->c[a].allow[l] == card)
			return 1;
	return 0;
}

static void
load_armies(struct cl *l, struct content *c, refd_mpv f)
{
	size_t i, j, k;
	char why[96];

	if (!refd_mpv_ok(f))
		return;
	if (refd_mpv_type(f) != REFD_MP_MAP || refd_mpv_len(f) > MAXARMY) {
		badf(l, "armies", "(file)", "(root)", "expected an object of at "
		    "most 8 armies");
		return;
	}
	for (i = 0; i < refd_mpv_len(f) && !l->bad; i++) {
		struct army *a = &c->a[c->na];
		refd_mpv us = refd_mpv_get(refd_mpv_val_at(f, i), "units");

		key_of(f, i, a->key);
		if (refd_mpv_type(us) != REFD_MP_ARRAY || refd_mpv_len(us) == 0 ||
		    refd_mpv_len(us) > MAXAU) {
			badf(l, "armies", a->key, "units", "expected 1 to 12 "
			    "units");
			return;
		}
		for (j = 0; j < refd_mpv_len(us) && !l->bad; j++) {
			refd_mpv uv = refd_mpv_at(us, j), ms;
			struct aunit *u = &a->u[a->nu];
			const char *cn;
			int ng = 0, uc = -1;

			u->card = u->ua = u->wa = -1;
			u->m0 = a->nm;
			if ((cn = refd_mpv_get_str(uv, "card", NULL)) != NULL &&
			    ((u->card = mb_find_card(c, cn)) < 0 ||
			    c->c[u->card].attach))
				badf(l, "armies", a->key, "units.card",
				    "not a unit card");
			if ((cn = refd_mpv_get_str(uv, "ua", NULL)) != NULL &&
			    ((u->ua = mb_find_card(c, cn)) < 0 ||
			    !attach_ok(c, u->card, u->ua, 1)))
				badf(l, "armies", a->key, "units.ua", "not a unit "
				    "attachment this unit may take");
			if ((cn = refd_mpv_get_str(uv, "wa", NULL)) != NULL &&
			    ((u->wa = mb_find_card(c, cn)) < 0 ||
			    !attach_ok(c, u->card, u->wa, 2)))
				badf(l, "armies", a->key, "units.wa", "not a "
				    "weapon attachment this unit may take");
			ms = refd_mpv_get(uv, "models");
			if (refd_mpv_type(ms) != REFD_MP_ARRAY ||
			    refd_mpv_len(ms) == 0 ||
			    a->nm + (int)refd_mpv_len(ms) > MAXAM) {
				badf(l, "armies", a->key, "units.models",
				    "expected 1 or more models, 32 in all");
				return;
			}
			for (k = 0; k < refd_mpv_len(ms) && !l->bad; k++) {
				refd_mpv mv = refd_mpv_at(ms, k), rv;
				struct amodel *m = &a->m[a->nm];
				const struct profile *p;

				m->prof = mb_find_profile(c, refd_mpv_get_str(mv,
				    "profile", ""));
				if (m->prof < 0) {
					badf(l, "armies", a->key, "models.profile",
					    "unknown profile");
					return;
				}
				p = &c->p[m->prof];
				m->role = p->kind == K_TROOPER ? R_GRUNT :
				    p->kind == K_SOLO ? R_SOLO : p->kind ==
				    K_WARJACK ? R_WARJACK : R_WARCASTER;
				rv = refd_mpv_get(mv, "role");
				if (refd_mpv_ok(rv)) {
					m->role = str_enum(rv, aroles, 8, -1);
					if (m->role < 0)
						badf(l, "armies", a->key,
						    "models.role", "unknown role");
				}
				m->dx = geti(l, mv, "armies", a->key, "dx", -23000,
				    23000, 0);
				m->dy = geti(l, mv, "armies", a->key, "dy", 0,
				    10000, 0);
				m->bg = geti(l, mv, "armies", a->key, "bg", -1,
				    MAXAM - 1, -1);
				if (m->role == R_GRUNT)
					ng++;
				if (m->role == R_OFFICER)
					uc = a->nm;
				if (m->role == R_LEADER && (uc < 0 ||
				    a->m[uc].role != R_OFFICER))
					uc = a->nm;
				a->nm++;
				u->nm++;
			}
			if (!l->bad && u->card >= 0 && (ng < c->c[u->card].gmin ||
			    ng > c->c[u->card].gmax)) {
				snprintf(why, sizeof(why), "card '%s' takes %d to %d "
				    "Grunts, not %d", c->c[u->card].key,
				    c->c[u->card].gmin, c->c[u->card].gmax, ng);
				badf(l, "armies", a->key, "units.models", why);
			}
			if (uc < 0)
				uc = u->m0;
			for (k = 0; !l->bad && k < (size_t)u->nm; k++) {
				const struct amodel *m = &a->m[u->m0 + k];
				const struct amodel *cm = &a->m[uc];
				cont_pt p, q;

				p.x = cm->dx;
				p.y = cm->dy;
				q.x = m->dx;
				q.y = m->dy;
				if (c->p[m->prof].kind == K_TROOPER &&
				    !cont_within(p, c->p[cm->prof].r, q,
				    c->p[m->prof].r, (int64_t)c->p[cm->prof].cmd *
				    INCH))
					badf(l, "armies", a->key, "models.dx",
					    "R003-08: a trooper deploys out of "
					    "formation");
			}
			a->nu++;
		}
		for (j = 0; !l->bad && j < (size_t)a->nm; j++) {
			const struct amodel *m = &a->m[j];
			cont_pt p, q;

			if (m->bg >= 0 && (m->bg >= a->nm || c->p[a->m[m->bg].prof]
			    .kind != K_WARCASTER || c->p[m->prof].kind !=
			    K_WARJACK))
				badf(l, "armies", a->key, "models.bg", "a warjack's "
				    "bg is the index of a warcaster in the list");
			p.x = m->dx;
			p.y = m->dy;
			for (k = 0; k < j && !l->bad; k++) {
				q.x = a->m[k].dx;
				q.y = a->m[k].dy;
				if (cont_overlap(p, c->p[m->prof].r, q,
				    c->p[a->m[k].prof].r))
					badf(l, "armies", a->key, "models.dx",
					    "two bases overlap");
			}
		}
		c->na++;
	}
}

int
mb_content_load(refd_ctx *ctx, void *pdata, const uint8_t *bytes, size_t len,
    void **out)
{
	refd_mpdoc *d = refd_mp_parse(bytes, len);
	refd_mpv root = refd_mp_root(d);
	struct content *c;
	struct cl l;

	(void)pdata;
	if (d == NULL || refd_mpv_type(root) != REFD_MP_MAP) {
		refd_mp_free(d);
		return H->reject(ctx, REFD_ECONTENT, NULL,
		    "content is not a map of files");
	}
	c = H->alloc(ctx, sizeof(*c));
	if (c == NULL) {
		refd_mp_free(d);
		return REFD_ENOMEM;
	}
	memset(c, 0, sizeof(*c));
	memset(&l, 0, sizeof(l));
	l.ctx = ctx;
	if (!refd_mpv_ok(refd_mpv_get(root, "profiles")))
		badf(&l, "profiles", "(file)", "(root)", "file is missing");
	if (!l.bad && refd_mpv_ok(refd_mpv_get(root, "orders")))
		load_orders(&l, c, refd_mpv_get(root, "orders"));
	if (!l.bad && refd_mpv_ok(refd_mpv_get(root, "spells")))
		load_spells(&l, c, refd_mpv_get(root, "spells"));
	if (!l.bad)
		load_profiles(&l, c, refd_mpv_get(root, "profiles"));
	if (!l.bad)
		load_cards(&l, c, refd_mpv_get(root, "cards"));
	if (!l.bad)
		load_armies(&l, c, refd_mpv_get(root, "armies"));
	refd_mp_free(d);
	if (l.bad) {
		H->free(ctx, c);
		return H->reject(ctx, REFD_ECONTENT, NULL, l.msg);
	}
	*out = c;
	return REFD_OK;
}

void
mb_content_free(void *pdata, void *content)
{
	(void)pdata;
	H->free(NULL, content);
}
