/*
 * content.c - skirmish content (cards, maps, warbands) and match setup.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "sk.h"

static int
bad(refd_ctx *ctx, const char *file, const char *item, const char *field,
    const char *why)
{
	char msg[256];

	snprintf(msg, sizeof(msg), "%s.json: '%s': field '%s': %s", file,
	    item, field, why);
	return H->reject(ctx, REFD_ECONTENT, NULL, msg);
}

/* Integer field in lo..hi; missing gives dflt (or an error if dflt <
 * lo). */
static int
getint(refd_mpv m, const char *k, int64_t lo, int64_t hi, int64_t dflt,
    int32_t *out)
{
	refd_mpv v = refd_mpv_get(m, k);
	int64_t i;

	if (!refd_mpv_ok(v)) {
		if (dflt < lo)
			return -1;
		*out = (int32_t)dflt;
		return 0;
	}
	if (refd_mpv_int(v, &i) != 0 || i < lo || i > hi)
		return -1;
	*out = (int32_t)i;
	return 0;
}

static int
cond_of(const char *s)
{
	static const char *const n[] = { "", "stun", "paralysis", "poison",
		"sleep", "frighten", "entangle", "skip next turn", "incite",
		"inhibit", "confusion" };
	int i;

	for (i = 1; i < 11; i++)
		if (strcmp(s, n[i]) == 0)
			return i;
	return -1;
}

static int
energy_of(const char *s)
{
	static const char *const n[] = { "", "acid", "cold", "electricity",
		"fire", "sonic" };
	int i;

	for (i = 1; i < 6; i++)
		if (strcmp(s, n[i]) == 0)
			return i;
	return -1;
}

static int
faction_of(const char *s)
{
	static const char *const n[] = { "LG", "CG", "LE", "CE" };
	int i;

	for (i = 0; i < 4; i++)
		if (strcmp(s, n[i]) == 0)
			return 1 << i;
	return 0;
}

static const struct {
	const char *name;
	int32_t bit, bit2;
} abilnames[] = {
	{ "phalanx fighting", 0, A2_PHALANX }, { "stench", 0, A2_STENCH },
	{ "level drain", 0, A2_LEVELDRAIN }, { "uncanny dodge", 0, A2_UNCANNY },
	{ "spring attack", 0, A2_SPRING }, { "sidestep", 0, A2_SIDESTEP },
	{ "whirlwind attack", 0, A2_WHIRLWIND }, { "stagger", 0, A2_STAGGER },
	{ "slow melee attack", 0, A2_SLOWMELEE },
	{ "slow ranged attack", 0, A2_SLOWRANGED },
	{ "death strike", 0, A2_DEATHSTRIKE },
	{ "arrow catching shield", 0, A2_ARROWSHIELD },
	{ "hurling charge", 0, A2_HURL }, { "pushback", 0, A2_PUSHBACK },
	{ "pull", 0, A2_PULL }, { "slide", 0, A2_SLIDE },
	{ "precise shot", AB_PRECISE, 0 }, { "cleave", AB_CLEAVE, 0 },
	{ "incorporeal", AB_INCORP, 0 }, { "fearless", AB_FEARLESS, 0 },
	{ "independent", AB_INDEP, 0 }, { "wild", AB_WILD, 0 },
	{ "mobility", AB_MOBILITY, 0 }, { "deflect arrows", AB_DEFLECT, 0 },
	{ "unique", AB_UNIQUE, 0 }, { "flight", AB_FLIGHT, 0 },
	{ "tiny reach", AB_TINYREACH, 0 }, { "cowardly", AB_COWARDLY, 0 },
	{ "blindsight", AB_BLINDSIGHT, 0 }, { "spell resistance all", AB_SRALL, 0 },
	{ "pounce", AB_POUNCE, 0 }, { "hide", AB_HIDE, 0 },
	{ "blind-fight", AB_BLINDFIGHT, 0 }, { "dual activation", AB_DUAL, 0 },
	{ "scout", AB_SCOUT, 0 }, { "wandering monster", AB_WANDERING, 0 },
	{ "countersong", AB_COUNTERSONG, 0 },
	{ "improved countersong", AB_ICOUNTERSONG | AB_COUNTERSONG, 0 },
	{ "not subject to commander effects", AB_NOTSUBJECT, 0 },
	{ NULL, 0, 0 }
};

static int
load_atks(refd_mpv arr, struct atk *a, int32_t *n)
{
	size_t i;

	if (!refd_mpv_ok(arr)) {
		*n = 0;
		return 0;
	}
	if (refd_mpv_type(arr) != REFD_MP_ARRAY || refd_mpv_len(arr) >
	    SK_MAXLINES)
		return -1;
	for (i = 0; i < refd_mpv_len(arr); i++) {
		refd_mpv v = refd_mpv_at(arr, i);
		const char *e = refd_mpv_get_str(v, "energy", "");

		if (getint(v, "bonus", -10, 40, -100, &a[i].bonus) ||
		    getint(v, "damage", 0, 200, -100, &a[i].dmg) ||
		    getint(v, "extra", 0, 100, 0, &a[i].extra))
			return -1;
		a[i].energy = *e ? energy_of(e) : 0;
		if (a[i].energy < 0 || (a[i].extra > 0 && a[i].energy == 0))
			return -1;
		if (refd_mpv_ok(refd_mpv_get(v, "condition"))) {
			a[i].cond = cond_of(refd_mpv_get_str(v, "condition", ""));
			if (a[i].cond <= 0 ||
			    getint(v, "dc", 1, 40, -100, &a[i].dc))
				return -1;
		}
	}
	*n = (int32_t)refd_mpv_len(arr);
	return 0;
}

static int
family_of(struct content *ct, const char *name, int stat, int value)
{
	int i;

	for (i = 0; i < ct->nfam; i++)
		if (strcmp(ct->fam[i].name, name) == 0)
			return i;
	if (ct->nfam >= SK_MAXFAM)
		return -1;
	snprintf(ct->fam[i].name, sizeof(ct->fam[i].name), "%s", name);
	ct->fam[i].stat = stat;
	ct->fam[i].value = value;
	return ct->nfam++;
}

static int
energy_mask(refd_mpv l, int32_t *out)
{
	size_t i;

	*out = 0;
	if (refd_mpv_ok(l) && refd_mpv_type(l) != REFD_MP_ARRAY)
		return -1;
	for (i = 0; i < refd_mpv_len(l); i++) {
		int e = energy_of(refd_mpv_cstr(refd_mpv_at(l, i), ""));

		if (e <= 0)
			return -1;
		*out |= 1 << e;
	}
	return 0;
}

static int
load_card(refd_ctx *ctx, struct content *ct, const char *id, refd_mpv v,
    struct card *c)
{
	static const char *const sizes[] = { "tiny", "small", "medium",
		"large", "huge" };
	static const char *const srn[] = { "self", "touch", "range 6", "sight",
		"cone", "your warband", "radius 2", "radius 4", "line",
		"any warband" };
	const char *sz = refd_mpv_get_str(v, "size", "medium");
	const char *ty = refd_mpv_get_str(v, "type", "humanoid");
	refd_mpv fa = refd_mpv_get(v, "faction"), ab, sp;
	size_t i;
	int k;

	memset(c, 0, sizeof(*c));
	if (strlen(id) >= SK_NAMELEN)
		return bad(ctx, "cards", id, "id", "longer than 31 bytes");
	strcpy(c->id, id);
	snprintf(c->name, sizeof(c->name), "%s", refd_mpv_get_str(v, "name",
	    id));
#define INT(k, lo, hi, d, dst) \
	if (getint(v, k, lo, hi, d, dst)) \
		return bad(ctx, "cards", id, k, "expected an integer " #lo ".." #hi)
	INT("cost", 0, 500, -1, &c->cost);
	INT("level", 0, 30, -1, &c->level);
	INT("speed", 0, 20, -1, &c->speed);
	INT("ac", 0, 50, -1, &c->ac);
	INT("hp", 1, 1000, -1, &c->hp);
	c->commander = -1;
	if (refd_mpv_ok(refd_mpv_get(v, "commander")))
		INT("commander", 0, 10, -1, &c->commander);
	INT("range", 0, 100, 0, &c->range);
	INT("dr", 0, 50, 0, &c->dr);
	INT("conceal", 0, 20, 0, &c->conceal);
	INT("save_bonus", 0, 20, 0, &c->save_bonus);
	INT("morale_bonus", 0, 20, 0, &c->morale_bonus);
	INT("difficult", 0, 10, 0, &c->difficult);
#define INTX(k, lo, hi, d, dst) \
	if (getint(v, k, lo, hi, d, dst)) \
		return bad(ctx, "cards", id, k, "expected an integer " #lo ".." #hi)
	c->sr = refd_mpv_get_bool(v, "spell_resistance", 0);
	INTX("powerful_charge", 0, 50, 0, &c->pcharge);
	INTX("feed", 0, 50, 0, &c->feed);
	INTX("reach", 0, 4, 0, &c->reach);
	INTX("sneak_attack", 0, 50, 0, &c->sneak);
	INTX("ranged_sneak_attack", 0, 50, 0, &c->rsneak);
	INTX("rend", 0, 50, 0, &c->rend);
	INTX("turn_undead", 0, 30, 0, &c->turn_undead);
	c->undead = strcmp(refd_mpv_get_str(v, "type", ""), "undead") == 0;
	if (strcmp(refd_mpv_get_str(v, "type", ""), "animal") == 0 ||
	    strcmp(refd_mpv_get_str(v, "type", ""), "magical beast") == 0)
		c->abil2 |= A2_BEAST;
	INTX("beastmaster", 0, 30, 0, &c->beastmaster);
	INTX("leap", 0, 50, 0, &c->leap);
	INTX("slow_effect_dc", 0, 40, 0, &c->slow_dc);
	INTX("burrow", 0, 20, 0, &c->burrow);
	INTX("lucky", 0, 9, 0, &c->lucky);
	{
		refd_mpv sa = refd_mpv_get(v, "simultaneous_attack");
		size_t q;

		for (q = 0; q < refd_mpv_len(sa); q++) {
			const char *kd = refd_mpv_cstr(refd_mpv_at(sa, q), "");
			int b = strcmp(kd, "melee") == 0 ? 1 :
			    strcmp(kd, "ranged") == 0 ? 2 :
			    strcmp(kd, "spell") == 0 ? 4 : 0;

			if (b == 0)
				return bad(ctx, "cards", id,
				    "simultaneous_attack", "a list of melee, "
				    "ranged, spell");
			c->simul |= b;
		}
	}
	{
		refd_mpv tr = refd_mpv_get(v, "trample");

		if (refd_mpv_ok(tr) && (getint(tr, "damage", 1, 50, -100,
		    &c->trample) || getint(tr, "dc", 0, 40, 0, &c->trample_dc)))
			return bad(ctx, "cards", id, "trample",
			    "expected {damage, dc}");
	}
	INTX("death_attack_dc", 0, 40, 0, &c->death_attack);
	{
		refd_mpv sa = refd_mpv_get(v, "stunning_attack");
		refd_mpv cd = refd_mpv_get(v, "constitution_drain");

		if (refd_mpv_ok(sa) && (getint(sa, "dc", 1, 40, -100,
		    &c->stun_dc) || getint(sa, "uses", 1, 9, 1, &c->stun_uses)))
			return bad(ctx, "cards", id, "stunning_attack",
			    "expected {dc, uses}");
		if (refd_mpv_ok(cd) && (getint(cd, "value", 1, 50, -100,
		    &c->con_drain) || getint(cd, "dc", 1, 40, -100, &c->con_dc)))
			return bad(ctx, "cards", id, "constitution_drain",
			    "expected {value, dc}");
	}
	c->relay = refd_mpv_get_bool(v, "relay_orders", 0);
	INTX("power_points", 0, 200, 0, &c->pp);
	{
		refd_mpv so = refd_mpv_get(v, "sorcerer_spells");
		size_t si;

		for (si = 0; si < refd_mpv_len(so); si++) {
			int64_t lv, n;

			if (refd_mpv_int(refd_mpv_at(refd_mpv_at(so, si), 0),
			    &lv) || refd_mpv_int(refd_mpv_at(refd_mpv_at(so,
			    si), 1), &n) || lv < 1 || lv > 9 || n < 0 || n > 9)
				return bad(ctx, "cards", id, "sorcerer_spells",
				    "expected [[level, boxes], ...]");
			c->sorc[lv] = (int32_t)n;
		}
	}
	{
		refd_mpv db = refd_mpv_get(v, "death_burst");
		const char *e = refd_mpv_get_str(db, "energy", "");

		if (refd_mpv_ok(db) && (getint(db, "radius", 0, 4, 0,
		    &c->db_radius) || getint(db, "damage", 1, 100, -100,
		    &c->db_dmg) || getint(db, "dc", 0, 40, 0, &c->db_dc) ||
		    (c->db_energy = *e ? energy_of(e) : 0) < 0))
			return bad(ctx, "cards", id, "death_burst",
			    "expected {radius 0..4, damage, energy, dc}");
	}
	c->humanoid = strcmp(refd_mpv_get_str(v, "type", "humanoid"),
	    "humanoid") == 0 || strcmp(refd_mpv_get_str(v, "type", ""),
	    "elf") == 0;
	if (energy_mask(refd_mpv_get(v, "vulnerable"), &c->vuln) ||
	    energy_mask(refd_mpv_get(v, "immune"), &c->immune))
		return bad(ctx, "cards", id, "vulnerable/immune",
		    "expected a list of energy names");
	{
		refd_mpv r = refd_mpv_get(v, "resist"), sm;
		size_t ri;

		for (ri = 0; ri < refd_mpv_len(r); ri++) {
			int e = energy_of(refd_mpv_cstr(refd_mpv_key_at(r, ri),
			    ""));
			int64_t n;

			if (e <= 0 || refd_mpv_int(refd_mpv_val_at(r, ri), &n) ||
			    n < 0 || n > 100)
				return bad(ctx, "cards", id, "resist",
				    "expected {energy: N}");
			c->resist[e] = (int32_t)n;
		}
		sm = refd_mpv_get(v, "smite");
		if (refd_mpv_ok(sm)) {
			const char *vs = refd_mpv_get_str(sm, "versus", "");

			c->smite_vs = strcmp(vs, "evil") == 0 ? 4 | 8 :
			    strcmp(vs, "good") == 0 ? 1 | 2 :
			    strcmp(vs, "lawful") == 0 ? 1 | 4 :
			    strcmp(vs, "chaotic") == 0 ? 2 | 8 : 0;
			if ((*vs && c->smite_vs == 0) ||
			    getint(sm, "value", 1, 50, -100, &c->smite_val) ||
			    getint(sm, "uses", 1, 9, 1, &c->smite_uses))
				return bad(ctx, "cards", id, "smite",
				    "expected {value, uses, versus: evil|good|"
				    "lawful|chaotic}");
		}
	}
	for (k = 0; k < 5; k++)
		if (strcmp(sz, sizes[k]) == 0)
			break;
	if (k == 5)
		return bad(ctx, "cards", id, "size",
		    "expected tiny, small, medium, large or huge");
	c->size = k <= 2 ? 1 : k - 1;
	if (refd_mpv_type(fa) != REFD_MP_ARRAY || refd_mpv_len(fa) == 0)
		return bad(ctx, "cards", id, "faction",
		    "expected a list of LG, CG, LE, CE");
	for (i = 0; i < refd_mpv_len(fa); i++) {
		int f = faction_of(refd_mpv_cstr(refd_mpv_at(fa, i), ""));

		if (f == 0)
			return bad(ctx, "cards", id, "faction",
			    "expected a list of LG, CG, LE, CE");
		c->factions |= f;
	}
	if (load_atks(refd_mpv_get(v, "melee"), c->melee, &c->nmelee) != 0 ||
	    c->nmelee == 0)
		return bad(ctx, "cards", id, "melee", "expected 1 to 4 "
		    "attacks {bonus, damage[, extra, energy, condition, dc]}");
	if (load_atks(refd_mpv_get(v, "ranged"), c->ranged, &c->nranged) != 0)
		return bad(ctx, "cards", id, "ranged", "expected up to 4 "
		    "attacks {bonus, damage[, extra, energy]}");
	/* §1.5 type traits */
	if (strcmp(ty, "construct") == 0 || strcmp(ty, "undead") == 0 ||
	    strcmp(ty, "ooze") == 0 || strcmp(ty, "plant") == 0 ||
	    strcmp(ty, "vermin") == 0)
		c->abil |= AB_INCITEIMM;
	if (strcmp(ty, "construct") == 0)
		c->abil |= AB_FEARLESS | AB_CRITIMM | AB_NONLIVING |
		    AB_SLEEPIMM | AB_STUNIMM | AB_PARAIMM | AB_POISONIMM;
	else if (strcmp(ty, "undead") == 0)
		c->abil |= AB_CRITIMM | AB_NONLIVING | AB_SLEEPIMM |
		    AB_STUNIMM | AB_PARAIMM | AB_POISONIMM;
	else if (strcmp(ty, "ooze") == 0)
		c->abil |= AB_FEARLESS | AB_CRITIMM | AB_SLEEPIMM |
		    AB_STUNIMM | AB_FLANKIMM | AB_BLINDSIGHT | AB_PARAIMM |
		    AB_POISONIMM;
	else if (strcmp(ty, "elemental") == 0)
		c->abil |= AB_CRITIMM | AB_SLEEPIMM | AB_STUNIMM |
		    AB_FLANKIMM | AB_PARAIMM | AB_POISONIMM;
	else if (strcmp(ty, "plant") == 0)
		c->abil |= AB_CRITIMM | AB_SLEEPIMM | AB_STUNIMM |
		    AB_PARAIMM | AB_POISONIMM;
	else if (strcmp(ty, "dragon") == 0)
		c->abil |= AB_SLEEPIMM | AB_PARAIMM;
	else if (strcmp(ty, "living construct") == 0)
		c->abil |= AB_SLEEPIMM | AB_PARAIMM | AB_POISONIMM;
	else if (strcmp(ty, "elf") == 0 || strcmp(ty, "vermin") == 0)
		c->abil |= AB_SLEEPIMM;
	else if (strcmp(ty, "humanoid") != 0 && strcmp(ty, "animal") != 0 &&
	    strcmp(ty, "aberration") != 0 && strcmp(ty, "fey") != 0 &&
	    strcmp(ty, "giant") != 0 && strcmp(ty, "magical beast") != 0 &&
	    strcmp(ty, "monstrous humanoid") != 0 &&
	    strcmp(ty, "outsider") != 0 && strcmp(ty, "living construct") != 0)
		return bad(ctx, "cards", id, "type", "unknown creature type");
	ab = refd_mpv_get(v, "abilities");
	if (refd_mpv_ok(ab) && refd_mpv_type(ab) != REFD_MP_ARRAY)
		return bad(ctx, "cards", id, "abilities",
		    "expected a list of ability names");
	for (i = 0; i < refd_mpv_len(ab); i++) {
		const char *a = refd_mpv_cstr(refd_mpv_at(ab, i), "");

		for (k = 0; abilnames[k].name != NULL; k++)
			if (strcmp(a, abilnames[k].name) == 0)
				break;
		if (abilnames[k].name == NULL) {
			char why[96];

			snprintf(why, sizeof(why), "ability '%s' is not "
			    "supported by this ruleset", a);
			return bad(ctx, "cards", id, "abilities", why);
		}
		c->abil |= abilnames[k].bit;
		c->abil2 |= abilnames[k].bit2;
	}
	{
		refd_mpv ef = refd_mpv_get(v, "effect");
		const char *st = refd_mpv_get_str(ef, "stat", "");

		if (refd_mpv_ok(ef)) {
			c->eff_hostile = refd_mpv_get_bool(ef, "hostile", 0);
			c->eff_stat = strcmp(st, "attack") == 0 ? 1 :
			    strcmp(st, "ac") == 0 ? 2 :
			    strcmp(st, "tyrannical morale") == 0 ? 3 : 0;
			if (c->eff_stat == 0 || c->commander < 0 ||
			    getint(ef, "value", -10, 10, -100, &c->eff_val))
				return bad(ctx, "cards", id, "effect",
				    "a commander's {stat: attack|ac|tyrannical "
				    "morale, value: -10..10}");
		}
	}
	sp = refd_mpv_get(v, "spells");
	if (refd_mpv_ok(sp) && (refd_mpv_type(sp) != REFD_MP_ARRAY ||
	    refd_mpv_len(sp) > SK_MAXSPELLS))
		return bad(ctx, "cards", id, "spells", "expected up to 4 spells");
	for (i = 0; i < refd_mpv_len(sp); i++) {
		refd_mpv s = refd_mpv_at(sp, i);
		struct spell *p = &c->sp[i];
		const char *r = refd_mpv_get_str(s, "range", "");
		const char *e = refd_mpv_get_str(s, "energy", "");

		snprintf(p->name, sizeof(p->name), "%s",
		    refd_mpv_get_str(s, "name", "spell"));
		for (k = 0; k < 10; k++)
			if (strcmp(r, srn[k]) == 0)
				break;
		if (k == 10)
			return bad(ctx, "cards", id, "spells.range",
			    "expected self, touch, range 6, sight, cone, "
			    "radius 2, radius 4, line or your warband");
		p->range = k;
		p->energy = *e ? energy_of(e) : 0;
		if (p->energy < 0 ||
		    getint(s, "uses", 1, 9, 1, &p->uses) ||
		    getint(s, "damage", 0, 200, 0, &p->dmg) ||
		    getint(s, "heal", 0, 200, 0, &p->heal) ||
		    getint(s, "dc", 0, 40, 0, &p->dc))
			return bad(ctx, "cards", id, "spells",
			    "bad uses, damage, heal, dc or energy");
		p->ignores_sr = refd_mpv_get_bool(s, "ignores_sr", 0);
		p->any = refd_mpv_get_bool(s, "any", 0);
		p->ability = refd_mpv_get_bool(s, "ability", 0);
		p->gaze = refd_mpv_get_bool(s, "gaze", 0);
		p->sw = refd_mpv_get_bool(s, "switch", 0);
		p->swift = refd_mpv_get_bool(s, "swift", 0);
		if (p->swift)
			p->ability = 1;
		if (p->gaze)
			p->ability = 1;
		p->summon = -1;
		snprintf(p->summon_id, sizeof(p->summon_id), "%s",
		    refd_mpv_get_str(s, "summon", ""));
		if (getint(s, "level", 0, 9, 0, &p->level) ||
		    getint(s, "pp", 0, 50, 0, &p->pp))
			return bad(ctx, "cards", id, "spells",
			    "level 0..9, pp 0..50");
		if (refd_mpv_ok(refd_mpv_get(s, "condition"))) {
			p->cond = cond_of(refd_mpv_get_str(s, "condition", ""));
			if (p->cond <= 0 || p->dc <= 0)
				return bad(ctx, "cards", id, "spells.condition",
				    "expected stun, paralysis, poison, sleep, "
				    "frighten, entangle or skip next turn, with a "
				    "dc");
		}
		p->fam = -1;
		if (refd_mpv_ok(refd_mpv_get(s, "effect"))) {
			static const char *const es[] = { "", "attack",
				"melee damage", "ac", "hp", "magic" };
			refd_mpv ef = refd_mpv_get(s, "effect");
			const char *st = refd_mpv_get_str(ef, "stat", "");
			int32_t val;
			int e;

			for (e = 1; e < 6; e++)
				if (strcmp(st, es[e]) == 0)
					break;
			if (e == 6 || getint(ef, "value", -20, 50, 0, &val))
				return bad(ctx, "cards", id, "spells.effect",
				    "expected {stat: attack|melee damage|ac|hp|"
				    "magic, value}");
			p->fam = family_of(ct, refd_mpv_get_str(s, "family",
			    p->name), e, val);
			if (p->fam < 0)
				return bad(ctx, "cards", id, "spells.effect",
				    "more than 32 spell families");
		}
		if ((p->range == SR_CONE || (p->range >= SR_RADIUS2 &&
		    p->range <= SR_LINE)) && p->fam >= 0)
			return bad(ctx, "cards", id, "spells.range",
			    "a cone carries damage, not a continuous effect");
	}
	c->nspell = (int32_t)refd_mpv_len(sp);
#undef INT
#undef INTX
	return REFD_OK;
}

static unsigned
terrain_flag(int ch)
{
	switch (ch) {
	case '.': return 0;
	case '#': return GRID_WALL;
	case 'd': return GRID_DIFFICULT;
	case 's': return GRID_STATUE;
	case 'b': return GRID_BLOOD;
	case 'c': return GRID_SACRED;
	case 'r': return GRID_SHARP | GRID_DIFFICULT;
	case 'p': return GRID_PIT;
	default: return 0xff;
	}
}

static int
load_map(refd_ctx *ctx, const char *id, refd_mpv v, struct map *m)
{
	refd_mpv rows = refd_mpv_get(v, "rows"), ex, zs;
	int x, y, seat;
	size_t i;

	memset(m, 0, sizeof(*m));
	if (strlen(id) >= SK_NAMELEN)
		return bad(ctx, "maps", id, "id", "longer than 31 bytes");
	strcpy(m->id, id);
	if (getint(v, "width", 8, SK_MAXW, -1, &m->w))
		return bad(ctx, "maps", id, "width", "expected 8..32");
	if (getint(v, "height", 8, SK_MAXH, -1, &m->h))
		return bad(ctx, "maps", id, "height", "expected 8..32");
	if (refd_mpv_ok(rows)) {
		if (refd_mpv_type(rows) != REFD_MP_ARRAY ||
		    (int)refd_mpv_len(rows) != m->h)
			return bad(ctx, "maps", id, "rows",
			    "expected one string per row");
		for (y = 0; y < m->h; y++) {
			const char *r = refd_mpv_cstr(refd_mpv_at(rows,
			    (size_t)y), "");

			if ((int)strlen(r) != m->w)
				return bad(ctx, "maps", id, "rows",
				    "a row is not 'width' characters long");
			for (x = 0; x < m->w; x++) {
				unsigned f = terrain_flag(r[x]);

				if (f == 0xff)
					return bad(ctx, "maps", id, "rows",
					    "unknown terrain character (use "
					    ". # d s b c r p)");
				m->f[y * m->w + x] = (uint8_t)f;
			}
		}
	}
	m->tiled = refd_mpv_get_bool(v, "tiled", 0);
	ex = refd_mpv_get(v, "exits");
	zs = refd_mpv_get(v, "zones");
	m->nzones = (int32_t)refd_mpv_len(zs);
	if (refd_mpv_len(ex) != refd_mpv_len(zs) || m->nzones < 2 ||
	    m->nzones > SK_MAXSEATS)
		return bad(ctx, "maps", id, "exits/zones",
		    "expected one list per start zone (2 to 4, as many exits "
		    "as zones)");
	for (seat = 0; seat < m->nzones; seat++) {
		refd_mpv e = refd_mpv_at(ex, (size_t)seat);
		refd_mpv z = refd_mpv_at(zs, (size_t)seat);
		int64_t r[4];

		for (i = 0; i < refd_mpv_len(e); i++) {
			int64_t ax, ay;

			if (refd_mpv_int(refd_mpv_at(refd_mpv_at(e, i), 0),
			    &ax) || refd_mpv_int(refd_mpv_at(refd_mpv_at(e,
			    i), 1), &ay) || ax < 0 || ay < 0 || ax >= m->w ||
			    ay >= m->h || (ax != 0 && ay != 0 &&
			    ax != m->w - 1 && ay != m->h - 1))
				return bad(ctx, "maps", id, "exits",
				    "an exit is not a border square [x, y]");
			m->exit[ay * m->w + ax] = (uint8_t)(seat + 1);
			m->nexits[seat]++;
		}
		for (i = 0; i < 4; i++)
			if (refd_mpv_int(refd_mpv_at(z, i), &r[i]) != 0)
				break;
		if (i != 4 || r[0] < 0 || r[1] < 0 || r[2] >= m->w ||
		    r[3] >= m->h || r[0] > r[2] || r[1] > r[3])
			return bad(ctx, "maps", id, "zones",
			    "expected [x0, y0, x1, y1] inside the grid");
		for (y = (int)r[1]; y <= r[3]; y++)
			for (x = (int)r[0]; x <= r[2]; x++)
				m->zone[y * m->w + x] = (uint8_t)(seat + 1);
		if (m->tiled && m->nexits[seat] != 5 && m->nexits[seat] != 3)
			return bad(ctx, "maps", id, "exits", "a tiled map's "
			    "start zone has 5 exits (corner) or 3 (side)");
	}
	return REFD_OK;
}

static int
load_tile(refd_ctx *ctx, const char *id, refd_mpv v, struct tile *t)
{
	refd_mpv rows = refd_mpv_get(v, "rows");
	const char *kind = refd_mpv_get_str(v, "kind", "");
	int x, y, nex = 0;

	memset(t, 0, sizeof(*t));
	if (strlen(id) >= SK_NAMELEN)
		return bad(ctx, "tiles", id, "id", "longer than 31 bytes");
	strcpy(t->id, id);
	if (strcmp(kind, "assembly") != 0 && strcmp(kind, "feature") != 0)
		return bad(ctx, "tiles", id, "kind", "expected assembly or "
		    "feature");
	t->feature = kind[0] == 'f';
	t->h = (int32_t)refd_mpv_len(rows);
	if (refd_mpv_type(rows) != REFD_MP_ARRAY || t->h < 1 ||
	    t->h > SK_TILEMAX)
		return bad(ctx, "tiles", id, "rows", "expected 1 to 12 rows");
	for (y = 0; y < t->h; y++) {
		const char *r = refd_mpv_cstr(refd_mpv_at(rows, (size_t)y), "");

		if (y == 0)
			t->w = (int32_t)strlen(r);
		if ((int)strlen(r) != t->w || t->w < 1 || t->w > SK_TILEMAX)
			return bad(ctx, "tiles", id, "rows", "rows of 1 to 12 "
			    "equal characters");
		for (x = 0; x < t->w; x++) {
			unsigned f = r[x] == 'x' ? 0 : terrain_flag(r[x]);

			if (f == 0xff)
				return bad(ctx, "tiles", id, "rows", "unknown "
				    "terrain character (use . # d s b c r p x)");
			t->f[y * SK_TILEMAX + x] = (uint8_t)f;
			if (r[x] == 'x') {
				t->ex[y * SK_TILEMAX + x] = 1;
				nex++;
			}
		}
	}
	if (t->feature ? nex != 0 : nex != 5)
		return bad(ctx, "tiles", id, "rows", "an assembly tile has 5 "
		    "exit squares (x), a feature tile none");
	return REFD_OK;
}

int
sk_tile_index(const struct content *c, const char *id)
{
	int i;

	for (i = 0; i < c->ntiles; i++)
		if (strcmp(c->t[i].id, id) == 0)
			return i;
	return -1;
}

int
sk_card_index(const struct content *c, const char *id)
{
	int i;

	for (i = 0; i < c->ncards; i++)
		if (strcmp(c->c[i].id, id) == 0)
			return i;
	return -1;
}

int
sk_content_load(refd_ctx *ctx, const uint8_t *bytes, size_t len,
    struct content **out)
{
	refd_mpdoc *d = refd_mp_parse(bytes, len);
	refd_mpv root = refd_mp_root(d), cs, ms, ws;
	struct content *c;
	size_t i, j;
	int rc = REFD_OK;

	if (d == NULL)
		return H->reject(ctx, REFD_ECONTENT, NULL,
		    "content is not msgpack");
	cs = refd_mpv_get(root, "cards");
	ms = refd_mpv_get(root, "maps");
	ws = refd_mpv_get(root, "warbands");
	if (refd_mpv_type(cs) != REFD_MP_MAP || refd_mpv_len(cs) == 0 ||
	    refd_mpv_len(cs) > SK_MAXCARDS) {
		refd_mp_free(d);
		return H->reject(ctx, REFD_ECONTENT, NULL,
		    "cards.json: expected an object of 1 to 96 cards");
	}
	if (refd_mpv_type(ms) != REFD_MP_MAP || refd_mpv_len(ms) == 0 ||
	    refd_mpv_len(ms) > SK_MAXMAPS) {
		refd_mp_free(d);
		return H->reject(ctx, REFD_ECONTENT, NULL,
		    "maps.json: expected an object of 1 to 8 maps");
	}
	if (refd_mpv_ok(ws) && (refd_mpv_type(ws) != REFD_MP_MAP ||
	    refd_mpv_len(ws) > SK_MAXWB)) {
		refd_mp_free(d);
		return H->reject(ctx, REFD_ECONTENT, NULL,
		    "warbands.json: expected an object of up to 48 warbands");
	}
	c = H->alloc(ctx, sizeof(*c));
	if (c == NULL) {
		refd_mp_free(d);
		return REFD_ENOMEM;
	}
	memset(c, 0, sizeof(*c));
	for (i = 0; i < refd_mpv_len(cs) && rc == REFD_OK; i++) {
		rc = load_card(ctx, c, refd_mpv_cstr(refd_mpv_key_at(cs, i), "?"),
		    refd_mpv_val_at(cs, i), &c->c[i]);
		c->ncards++;
	}
	/* second pass: Minions and Requires name other cards */
	for (i = 0; i < refd_mpv_len(cs) && rc == REFD_OK; i++) {
		refd_mpv v = refd_mpv_val_at(cs, i), mn = refd_mpv_get(v,
		    "minions");
		struct card *k = &c->c[i];

		k->req = -1;
		for (j = 0; rc == REFD_OK && j < (size_t)k->nspell; j++)
			if (k->sp[j].summon_id[0] != '\0') {
				k->sp[j].summon = sk_card_index(c,
				    k->sp[j].summon_id);
				if (k->sp[j].summon < 0)
					rc = bad(ctx, "cards", k->id, "spells.summon",
					    "names a card that cards.json lacks");
			}
		if (refd_mpv_ok(refd_mpv_get(v, "requires"))) {
			k->req = sk_card_index(c, refd_mpv_get_str(v, "requires",
			    ""));
			if (k->req < 0)
				rc = bad(ctx, "cards", k->id, "requires",
				    "names a card that cards.json lacks");
		}
		if (refd_mpv_ok(mn) && (refd_mpv_type(mn) != REFD_MP_ARRAY ||
		    refd_mpv_len(mn) > 4))
			rc = bad(ctx, "cards", k->id, "minions",
			    "expected up to 4 card ids");
		for (j = 0; rc == REFD_OK && j < refd_mpv_len(mn); j++) {
			int m = sk_card_index(c, refd_mpv_cstr(refd_mpv_at(mn,
			    j), ""));

			if (m < 0 || c->c[m].nminion > 0)
				rc = bad(ctx, "cards", k->id, "minions",
				    "names an unknown card or one with minions");
			else
				k->minion[k->nminion++] = m;
		}
	}
	for (i = 0; i < refd_mpv_len(ms) && rc == REFD_OK; i++) {
		rc = load_map(ctx, refd_mpv_cstr(refd_mpv_key_at(ms, i), "?"),
		    refd_mpv_val_at(ms, i), &c->m[i]);
		c->nmaps++;
	}
	for (i = 0; i < refd_mpv_len(ws) && rc == REFD_OK; i++) {
		const char *id = refd_mpv_cstr(refd_mpv_key_at(ws, i), "?");
		refd_mpv l = refd_mpv_get(refd_mpv_val_at(ws, i), "cards");
		struct warband *w = &c->wb[i];

		snprintf(w->id, sizeof(w->id), "%s", id);
		if (refd_mpv_type(l) != REFD_MP_ARRAY || refd_mpv_len(l) == 0 ||
		    refd_mpv_len(l) > SK_WBMAX) {
			rc = bad(ctx, "warbands", id, "cards",
			    "expected a list of 1 to 12 card ids");
			break;
		}
		for (j = 0; j < refd_mpv_len(l); j++) {
			int k = sk_card_index(c, refd_mpv_cstr(refd_mpv_at(l,
			    j), ""));

			if (k < 0) {
				rc = bad(ctx, "warbands", id, "cards",
				    "names a card that cards.json lacks");
				break;
			}
			w->card[w->n++] = k;
		}
		c->nwb++;
	}
	{
		refd_mpv ts = refd_mpv_get(root, "tiles");
		refd_mpv sets = refd_mpv_get(ts, "_sets");

		for (i = 0; i < refd_mpv_len(ts) && rc == REFD_OK; i++) {
			const char *id = refd_mpv_cstr(refd_mpv_key_at(ts, i),
			    "?");

			if (strcmp(id, "_sets") == 0)
				continue;
			if (c->ntiles >= SK_MAXTILES) {
				rc = bad(ctx, "tiles", id, "id",
				    "more than 24 tiles");
				break;
			}
			rc = load_tile(ctx, id, refd_mpv_val_at(ts, i),
			    &c->t[c->ntiles]);
			c->ntiles++;
		}
		for (i = 0; i < refd_mpv_len(sets) && rc == REFD_OK; i++) {
			refd_mpv st = refd_mpv_at(sets, i);

			if (i >= SK_MAXSETS || refd_mpv_len(st) != 4) {
				rc = bad(ctx, "tiles", "_sets", "sets",
				    "up to 8 sets of 4 tile ids");
				break;
			}
			for (j = 0; j < 4; j++) {
				int k = sk_tile_index(c, refd_mpv_cstr(
				    refd_mpv_at(st, j), ""));

				if (k < 0 || c->t[k].feature != (j > 0)) {
					rc = bad(ctx, "tiles", "_sets", "sets",
					    "an assembly tile then 3 feature "
					    "tiles, all known");
					break;
				}
				c->set[i][j] = k;
			}
			c->nsets++;
		}
	}
	for (i = 0; rc == REFD_OK && i < (size_t)c->nmaps; i++)
		if (c->m[i].tiled && c->nsets == 0)
			rc = bad(ctx, "maps", c->m[i].id, "tiled",
			    "a tiled map needs tiles.json with _sets");
	refd_mp_free(d);
	if (rc != REFD_OK) {
		H->free(ctx, c);
		return rc;
	}
	*out = c;
	return REFD_OK;
}

/* §1.8: R000-01..04. */
int
sk_warband_check(const struct content *c, const struct state *s,
    const int32_t *cards, int n, char *msg, size_t msglen, const char **rule)
{
	int i, j, total = 0, fac = 0xf, cap = s->points * 70 / 100;

	if (n < 1 || n > SK_WBMAX) {
		*rule = "R000-01";
		snprintf(msg, msglen, "a warband has 1 to 12 creatures, not %d",
		    n);
		return -1;
	}
	for (i = 0; i < n; i++) {
		const struct card *k;

		if (cards[i] < 0 || cards[i] >= c->ncards) {
			*rule = "R000-01";
			snprintf(msg, msglen, "unknown card");
			return -1;
		}
		k = &c->c[cards[i]];
		total += k->cost;
		fac &= k->factions;
		if (k->req >= 0 && !s->rtp) {
			for (j = 0; j < n; j++)
				if (j != i && cards[j] == k->req)
					break;
			if (j == n) {
				*rule = "R000-05";
				snprintf(msg, msglen, "%s requires %s in the "
				    "warband", k->name, c->c[k->req].name);
				return -1;
			}
		}
		if (k->cost > cap) {
			*rule = "R000-02";
			snprintf(msg, msglen, "%s costs %d, more than 70%% of "
			    "the %d-point warband size (%d)", k->name,
			    (int)k->cost, (int)s->points, cap);
			return -1;
		}
		for (j = 0; j < i; j++)
			if ((k->abil & AB_UNIQUE) && cards[j] == cards[i] &&
			    !s->rtp) {
				*rule = "R000-04";
				snprintf(msg, msglen, "%s is Unique: at most one "
				    "per warband", k->name);
				return -1;
			}
	}
	if (total > s->points) {
		*rule = "R000-01";
		snprintf(msg, msglen, "the warband costs %d points, more than "
		    "the %d allowed", total, (int)s->points);
		return -1;
	}
	if (fac == 0 && !s->rtp) {
		*rule = "R000-03";
		snprintf(msg, msglen, "no faction is shown by every creature of "
		    "the warband");
		return -1;
	}
	return 0;
}

static int
setup_err(struct cx *x, struct state *s, const char *msg)
{
	H->free(x->ctx, (char *)s - offsetof(struct match, s));
	return H->reject(x->ctx, REFD_ESETUP, NULL, msg);
}

int
sk_create(struct cx *x, const uint8_t *setup, size_t len, uint32_t nseats,
    struct match **out)
{
	refd_mpdoc *d = refd_mp_parse(setup, len);
	struct match *mt;
	refd_mpv root = refd_mp_root(d), us, tr;
	const struct content *c = x->c;
	const char *mapid, *var;
	struct state *s;
	char msg[160];
	int i, rc;
	size_t k;

	if (d == NULL || refd_mpv_type(root) != REFD_MP_MAP) {
		refd_mp_free(d);
		return H->reject(x->ctx, REFD_ESETUP, NULL,
		    "setup must be a map");
	}
	if (nseats < 2 || nseats > SK_MAXSEATS) {
		refd_mp_free(d);
		return H->reject(x->ctx, REFD_ESETUP, NULL,
		    "this ruleset plays with 2 to 4 seats");
	}
	mt = H->alloc(x->ctx, sizeof(*mt));
	if (mt == NULL) {
		refd_mp_free(d);
		return REFD_ENOMEM;
	}
	memset(mt, 0, sizeof(*mt));
	mt->c = c;
	s = &mt->s;
	s->magic = SK_STATE_MAGIC;
	s->nseats = (int32_t)nseats;
	s->winner = -1;
	s->flip_owner = -1;
	s->blame = -1;
	s->cur = -1;
	s->dec_unit = -1;
	mapid = refd_mpv_get_str(root, "map", c->m[0].id);
	for (i = 0; i < c->nmaps; i++)
		if (strcmp(c->m[i].id, mapid) == 0)
			break;
	if (i == c->nmaps) {
		/* mapid points into d: say it before freeing d. */
		snprintf(msg, sizeof(msg), "no map named '%s'", mapid);
		refd_mp_free(d);
		return setup_err(x, s, msg);
	}
	s->map = i;
	if (refd_mpv_get_int(root, "seats", nseats) != (int64_t)nseats ||
	    c->m[i].nzones != (int32_t)nseats) {
		snprintf(msg, sizeof(msg), "map '%s' has %d start zones: it "
		    "seats %d players, not %u", c->m[i].id, (int)c->m[i].nzones,
		    (int)c->m[i].nzones, (unsigned)nseats);
		refd_mp_free(d);
		return setup_err(x, s, msg);
	}
	/* §1.2, §1.9: seats play clockwise in zone order; a team game of 4
	 * seats alternates the teams (0 and 2 against 1 and 3), teammates
	 * on the same long side: the zones are listed clockwise from the
	 * north-west corner, so seat 2 takes the north-east zone and seat 1
	 * the south-east. */
	{
		int tm = refd_mpv_get_bool(root, "teams", 0), q;

		if (tm && nseats != 4) {
			refd_mp_free(d);
			return setup_err(x, s, "teams: a team skirmish has 4 "
			    "seats (2 teams of 2)");
		}
		for (q = 0; q < (int)nseats; q++) {
			s->team[q] = tm ? q % 2 : q;
			s->zmap[q] = tm ? (q == 1 ? 2 : q == 2 ? 1 : q) : q;
		}
	}
	s->points = (int32_t)refd_mpv_get_int(root, "points", 100);
	s->round_limit = (int32_t)refd_mpv_get_int(root, "round_limit", 30);
	s->stalemate = (int32_t)refd_mpv_get_int(root, "stalemate_rounds", 10);
	{
		refd_mpv ty = refd_mpv_get(root, "tyrannical_morale");

		for (k = 0; k < nseats && k < refd_mpv_len(ty); k++) {
			int b = 0;

			refd_mpv_bool(refd_mpv_at(ty, k), &b);
			s->tyrannical[k] = b;
		}
	}
	s->rtp = strcmp(refd_mpv_get_str(root, "format", "standard"),
	    "ready_to_play") == 0;
	var = refd_mpv_get_str(root, "variant", "standard");
	s->variant = strcmp(var, "quick_assault") == 0 ? 1 : 0;
	if ((s->variant == 0 && strcmp(var, "standard") != 0) ||
	    s->points < 10 || s->points > 1000 || s->round_limit < 1 ||
	    s->round_limit > 200 || s->stalemate < 1 || s->stalemate > 200) {
		refd_mp_free(d);
		return setup_err(x, s, "variant must be standard or "
		    "quick_assault, points 10..1000, round_limit 1..200, "
		    "stalemate_rounds 1..200");
	}
	tr = refd_mpv_get(root, "terrain");
	for (k = 0; k < refd_mpv_len(tr); k++) {
		/* Fixture terrain is stored in the units' map copy: the map
		 * itself is content, so terrain overrides need a map slot.
		 * They are applied to a per-state overlay below. */
		refd_mpv t = refd_mpv_at(tr, k);
		int64_t tx, ty;
		unsigned f = terrain_flag(refd_mpv_cstr(refd_mpv_at(t, 2),
		    "?")[0]);

		if (refd_mpv_int(refd_mpv_at(t, 0), &tx) ||
		    refd_mpv_int(refd_mpv_at(t, 1), &ty) || tx < 0 || ty < 0 ||
		    tx >= c->m[s->map].w || ty >= c->m[s->map].h || f == 0xff ||
		    k >= SK_MAXTERR) {
			refd_mp_free(d);
			return setup_err(x, s, "terrain: expected up to 16 "
			    "[x, y, \"#\"|\"d\"|\"s\"|\"b\"|\"c\"|\"r\"|\"p\"]");
		}
		s->terr[k][0] = (int32_t)tx;
		s->terr[k][1] = (int32_t)ty;
		s->terr[k][2] = (int32_t)f;
		s->nterr++;
	}
	s->wm_tile = s->wm_unit = -1;
	s->flipped = -1;
	us = refd_mpv_get(root, "units");
	if (!refd_mpv_ok(us)) {
		refd_mp_free(d);
		s->stage = ST_SUBMIT;
		s->tiled = c->m[s->map].tiled;
		*out = mt;
		return REFD_OK;
	}
	/* A fixture: creatures placed on the grid, the game starts at round
	 * 1 (scenario tests and ready-made skirmishes). */
	if (refd_mpv_type(us) != REFD_MP_ARRAY || refd_mpv_len(us) > SK_MAXU) {
		refd_mp_free(d);
		return setup_err(x, s, "units: expected a list of up to 64");
	}
	for (k = 0; k < refd_mpv_len(us); k++) {
		refd_mpv v = refd_mpv_at(us, k);
		struct unit *u = &s->u[s->nu];
		int ci = sk_card_index(c, refd_mpv_get_str(v, "card", ""));
		int64_t seat = refd_mpv_get_int(v, "seat", -1);
		int64_t ux = refd_mpv_get_int(v, "x", -1);
		int64_t uy = refd_mpv_get_int(v, "y", -1);
		const struct map *m = &c->m[s->map];

		if (ci < 0 || seat < 0 || seat >= nseats || ux < 0 || uy < 0 ||
		    ux + c->c[ci].size > m->w || uy + c->c[ci].size > m->h) {
			refd_mp_free(d);
			snprintf(msg, sizeof(msg), "units[%d]: needs a known "
			    "card, seat 0..%u and x, y on the grid", (int)k,
			    (unsigned)nseats - 1);
			return setup_err(x, s, msg);
		}
		u->card = ci;
		u->seat = (int32_t)seat;
		u->x = (int32_t)ux;
		u->y = (int32_t)uy;
		u->on = 1;
		u->deployed = 1;
		u->rout_unit = -1;
		u->rout_seat = -1;
		u->aoo_turn = -1;
		u->cleave_turn = -1;
		u->hp = (int32_t)refd_mpv_get_int(v, "hp", c->c[ci].hp);
		if (u->hp < 1 || u->hp > 1000) {
			refd_mp_free(d);
			return setup_err(x, s, "units: hp must be 1..1000");
		}
		u->half_done = refd_mpv_get_bool(v, "half_done", 0);
		u->routed = refd_mpv_get_bool(v, "routed", 0);
		u->stunned = refd_mpv_get_bool(v, "stunned", 0);
		u->asleep = refd_mpv_get_bool(v, "asleep", 0);
		u->frightened = refd_mpv_get_bool(v, "frightened", 0);
		u->confused = refd_mpv_get_bool(v, "confused", 0);
		u->confused_dc = u->confused ? 15 : 0;
		u->invisible = refd_mpv_get_bool(v, "invisible", 0);
		u->activated = refd_mpv_get_bool(v, "activated", 0);
		u->partner = (int32_t)refd_mpv_get_int(v, "partner", -1);
		u->cmd0 = refd_mpv_get_bool(v, "commander0", 0);
		u->minion = refd_mpv_get_bool(v, "minion", 0);
		if (u->partner < -1 || u->partner >= (int)refd_mpv_len(us) ||
		    u->partner == (int)s->nu) {
			refd_mp_free(d);
			return setup_err(x, s, "units: partner is another "
			    "unit's index");
		}
		s->nu++;
	}
	s->first = (int32_t)refd_mpv_get_int(root, "first", -1);
	refd_mp_free(d);
	if (s->first < -1 || s->first >= (int32_t)nseats)
		return setup_err(x, s, "first must be a seat");
	for (i = 0; i < (int)nseats; i++) {
		int j;

		for (j = 0; j < s->nu && s->u[j].seat != i; j++)
			;
		if (j == s->nu)
			return setup_err(x, s, "units: every seat needs a "
			    "creature");
		s->submitted[i] = 1;
	}
	s->revealed = 1;
	*out = mt;
	sk_begin_game(x, s);
	if (x->rc != REFD_OK) {
		rc = x->rc;
		H->free(x->ctx, mt);
		*out = NULL;
		return rc;
	}
	return REFD_OK;
}
