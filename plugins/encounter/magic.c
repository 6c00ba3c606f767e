/*
 * magic.c - timed effects and the condition engine (1.6, 6), temporary
 * hit point pools and Constitution boosts (3.6), spell components,
 * casting times and metamagic (7.2), held touch charges, special
 * abilities and items (7.3).  See refd-encounter(7).
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "geom.h"
#include "magic.h"
#include "gear.h"
#include "maneuver.h"
#include "move.h"

const char *enc_cond_name(int i);

/* ---- durations (1.6, R001-66) ---- */

int32_t
mg_end(const struct st *s, int rounds)
{
	int own = s->norder > 0 && s->cur < s->norder ? s->order[s->cur] : 0;

	return (int32_t)((s->round + rounds) * 32 + own);
}

/* Slot n of the order is about to begin: has `end` come? */
int
mg_ended(const struct st *s, int32_t end, int n)
{
	int r = end / 32, own = end % 32;

	if (end <= 0)
		return 0;
	return s->round > r || (s->round == r && n < s->norder &&
	    s->order[n] == own);
}

/* ---- content and setup ---- */

static const char *const compname[] = { "V", "S", "M", "F", "DF" };

int
mg_spell_field(struct spell *sp, const char *k, refd_mpv x)
{
	int64_t v;
	size_t i;
	int j;

	if (strcmp(k, "components") == 0) {
		if (refd_mpv_type(x) != REFD_MP_ARRAY)
			return -1;
		sp->comp = 0;
		for (i = 0; i < refd_mpv_len(x); i++) {
			for (j = 0; j < 5; j++)
				if (refd_mpv_streq(refd_mpv_at(x, i),
				    compname[j]))
					break;
			if (j == 5)
				return -1;
			sp->comp |= 1 << j;
		}
		sp->comp |= 1 << 5;	/* given */
		return 0;
	}
	if (strcmp(k, "condition") == 0) {
		for (j = 0; j < NCOND; j++)
			if (refd_mpv_streq(x, enc_cond_name(j)))
				break;
		if (j == NCOND)
			return -1;
		sp->cond = j + 1;
		return 0;
	}
	if (strcmp(k, "duration") == 0 || strcmp(k, "per_level") == 0 ||
	    strcmp(k, "minutes") == 0 || strcmp(k, "con") == 0) {
		if (refd_mpv_int(x, &v) != 0 || v < 0 || v > 600)
			return -1;
		if (k[0] == 'd')
			sp->dur = (int32_t)v;
		else if (k[0] == 'p')
			sp->dur_lvl = (int32_t)v;
		else if (k[0] == 'm')
			sp->minutes = (int32_t)v;
		else
			sp->conb = (int32_t)v;
		return 0;
	}
	return 1;
}

/* After all fields: defaults and consistency. */
int
mg_spell_done(struct spell *sp, char *err, size_t elen)
{
	if (!(sp->comp & (1 << 5)))
		sp->comp = MG_V | MG_S;	/* most spells */
	sp->comp &= 31;
	if (sp->effect == 3 && sp->cond == 0) {
		snprintf(err, elen, "spells.json: %s: condition: missing",
		    sp->name);
		return -1;
	}
	if (sp->effect == 4 && (sp->conb < 2 || sp->conb % 2)) {
		snprintf(err, elen, "spells.json: %s: con: an even bonus of "
		    "2 or more", sp->name);
		return -1;
	}
	if ((sp->effect >= 3) && sp->dur == 0 && sp->dur_lvl == 0) {
		snprintf(err, elen, "spells.json: %s: duration: missing",
		    sp->name);
		return -1;
	}
	if (sp->time == 4 && sp->minutes < 1) {
		snprintf(err, elen, "spells.json: %s: minutes: a casting time "
		    "in minutes needs minutes >= 1", sp->name);
		return -1;
	}
	return 0;
}

/* A slot map of the creature: spells, abilities and items (7.3). */
static int
fill_slots(const struct content *c, struct cdef *d, int kind, refd_mpv x,
    char *why, size_t wlen)
{
	size_t i;
	int j, k;

	if (refd_mpv_type(x) != REFD_MP_MAP) {
		snprintf(why, wlen, "expected an object of name: uses");
		return -1;
	}
	for (k = 0; k < MAXSP; k++)
		if (d->sp[k].kind == kind && d->sp[k].name[0] != '\0') {
			memset(&d->sp[k], 0, sizeof(d->sp[k]));
			d->uses[k] = 0;
		}
	for (i = 0; i < refd_mpv_len(x); i++) {
		const char *sn = refd_mpv_cstr(refd_mpv_key_at(x, i), "");
		int64_t v;

		for (j = 0; j < c->nsp; j++)
			if (strcmp(c->sp[j].name, sn) == 0)
				break;
		if (j == c->nsp) {
			snprintf(why, wlen, "no spell '%.30s' in spells.json",
			    sn);
			return -1;
		}
		for (k = 0; k < MAXSP; k++)
			if (d->sp[k].name[0] == '\0')
				break;
		if (k == MAXSP) {
			snprintf(why, wlen, "at most %d spells, abilities and "
			    "items in all", MAXSP);
			return -1;
		}
		if (refd_mpv_int(refd_mpv_val_at(x, i), &v) != 0 || v < 1 ||
		    v > 50) {
			snprintf(why, wlen, "uses must be 1..50");
			return -1;
		}
		d->sp[k] = c->sp[j];
		d->sp[k].kind = kind;
		d->uses[k] = (int32_t)v;
	}
	return 0;
}

int
mg_cfield(const struct content *c, struct cdef *d, const char *k,
    refd_mpv x, char *why, size_t wlen)
{
	static const char *const kinds[] = { "spells", "spell_like", "supernatural",
		"extraordinary", "scrolls", "wands" };
	static const char *const metas[] = { "extend", "empower", "still",
		"silent" };
	int64_t v;
	int b, j;
	size_t i;

	for (j = 0; j < 6; j++)
		if (strcmp(k, kinds[j]) == 0)
			return fill_slots(c, d, j, x, why, wlen);
	if (strcmp(k, "level") == 0 || strcmp(k, "spellcraft") == 0) {
		if (refd_mpv_int(x, &v) != 0 || v < 0 || v > 40) {
			snprintf(why, wlen, "%s must be 0..40", k);
			return -1;
		}
		if (k[0] == 'l')
			d->level = (int32_t)v;
		else
			d->spellcraft = (int32_t)v;
		return 0;
	}
	if (strcmp(k, "component_pouch") == 0 || strcmp(k, "focus") == 0 ||
	    strcmp(k, "divine_focus") == 0 || strcmp(k, "spontaneous") == 0 ||
	    strcmp(k, "rebuke") == 0) {
		int bit = k[0] == 'c' ? MG_M : (k[0] == 'f' ? MG_F : MG_DF);

		if (refd_mpv_bool(x, &b) != 0) {
			snprintf(why, wlen, "expected true or false");
			return -1;
		}
		if (k[0] == 's')
			d->spont = b;
		else if (k[0] == 'r')
			d->rebuke = b;
		else
			d->lacks = b ? (d->lacks & ~bit) : (d->lacks | bit);
		return 0;
	}
	if (strcmp(k, "afraid_of") == 0) {	/* resolved by mg_refs */
		if (refd_mpv_type(x) != REFD_MP_STR) {
			snprintf(why, wlen, "expected a creature name");
			return -1;
		}
		return 0;
	}
	if (strcmp(k, "metamagic") == 0) {
		if (refd_mpv_type(x) != REFD_MP_ARRAY) {
			snprintf(why, wlen, "expected an array of extend, "
			    "empower, still, silent");
			return -1;
		}
		d->meta = 0;
		for (i = 0; i < refd_mpv_len(x); i++) {
			for (j = 0; j < 4; j++)
				if (refd_mpv_streq(refd_mpv_at(x, i), metas[j]))
					break;
			if (j == 4) {
				snprintf(why, wlen, "unknown metamagic feat");
				return -1;
			}
			d->meta |= 1 << j;
		}
		return 0;
	}
	return 1;
}

static int
level_of(const struct cr *c)
{
	int l = c->d.level;

	if (l < 1)
		l = c->d.hd > c->d.caster_level ? c->d.hd : c->d.caster_level;
	if (l < c->d.turn_level)
		l = c->d.turn_level;
	return l < 1 ? 1 : l;
}

/* Ability penalties of the conditions now on (6.1, 6.2). */
static void
pens(struct cr *c)
{
	int ps = 0, pd = 0, base;

	if (c->cond & COND_ENTANGLED)
		pd += 4;
	if (c->cond & COND_EXHAUSTED) {
		ps += 6;
		pd += 6;
	} else if (c->cond & COND_FATIGUED) {
		ps += 2;
		pd += 2;
	}
	base = c->d.str + c->pen_str;
	c->pen_str = ps < base - 1 ? ps : base - 1;
	c->d.str = base - c->pen_str;
	base = c->d.dex + c->pen_dex;
	c->pen_dex = pd < base - 1 ? pd : base - 1;
	c->d.dex = base - c->pen_dex;
}

/* Setup fields naming other creatures: afraid_of, the source a
 * frightened or panicked creature flees from (6.2).  -1: err filled. */
int
mg_refs(struct st *s, refd_mpv cs, char *err, size_t elen)
{
	int i, j;

	for (i = 0; i < s->nc; i++) {
		refd_mpv v = refd_mpv_get(refd_mpv_at(cs, (size_t)i),
		    "afraid_of");

		if (!refd_mpv_ok(v))
			continue;
		for (j = 0; j < s->nc; j++)
			if (j != i && refd_mpv_streq(v, s->c[j].d.name))
				break;
		if (j == s->nc) {
			snprintf(err, elen, "setup: creature '%s': afraid_of: "
			    "no other creature of that name", s->c[i].d.name);
			return -1;
		}
		s->c[i].fear_src = j + 1;
	}
	return 0;
}

void
mg_setup(struct st *s)
{
	int i;

	for (i = 0; i < s->nc; i++) {
		struct cr *c = &s->c[i];

		c->no62 = s->no62;
		if (c->cond & COND_ENTANGLED)
			c->pen_dex += 4;
		if (c->cond & COND_EXHAUSTED) {
			c->pen_str += 6;
			c->pen_dex += 6;
		}
		if (c->cond & COND_FATIGUED) {
			c->pen_str += 2;
			c->pen_dex += 2;
		}
		if (c->temp > 0) {	/* the setup's pool (3.6) */
			c->tp_amt[0] = c->temp;
			c->tp_end[0] = c->temp_rounds > 0 ?
			    c->temp_rounds * 32 + i : 0;
			c->temp_rounds = 0;
		}
		if (c->hp < 0 && c->stable)
			c->rec = MR_UNCONSCIOUS;
	}
}

/* ---- conditions (6, R001-67) ---- */

static const int only62 = COND_DAZED | COND_FATIGUED | COND_EXHAUSTED |
    COND_NAUSEATED | COND_SICKENED | COND_PANICKED;

static int
ev_cond(refd_ctx *ctx, const struct st *s, const char *type, int t, int ci,
    int rounds)
{
	refd_mpw *w = refd_mpw_create();

	refd_mpw_map(w);
	refd_mpw_kstr(w, "type", type);
	refd_mpw_kstr(w, "target", s->c[t].d.name);
	refd_mpw_kstr(w, "condition", enc_cond_name(ci));
	if (rounds > 0)
		refd_mpw_kint(w, "rounds", rounds);
	refd_mpw_end(w);
	return emitw(ctx, s, w);
}

static int
ev_who(refd_ctx *ctx, const struct st *s, const char *type, int who)
{
	refd_mpw *w = refd_mpw_create();

	refd_mpw_map(w);
	refd_mpw_kstr(w, "type", type);
	refd_mpw_kstr(w, "who", s->c[who].d.name);
	refd_mpw_end(w);
	return emitw(ctx, s, w);
}

/* Drop what the hands hold (panicked, stunned: 6.2). */
static int
drop_held(refd_ctx *ctx, struct st *s, int t)
{
	struct cr *c = &s->c[t];
	int k, any = 0;

	for (k = 0; k < 2; k++)
		if (c->d.w[k].nd && !c->d.w[k].natural && !c->d.w[k].unarmed) {
			any = 1;
			if (k == 0)
				unarmed_weapon(&c->d.w[0], c->d.size);
			else
				memset(&c->d.w[1], 0, sizeof(c->d.w[1]));
		}
	return any ? ev_who(ctx, s, "drops", t) : REFD_OK;
}

/*
 * Condition ci on t for `rounds` rounds (0: until removed), from
 * creature src (-1: none).  A condition already on keeps the later end.
 */
int
mg_cond_add(refd_ctx *ctx, struct st *s, int t, int ci, int rounds, int src)
{
	struct cr *c = &s->c[t];
	int bit = 1 << ci, rc;
	int32_t end = rounds > 0 ? mg_end(s, rounds) : 0;

	if (c->dead || (c->no62 && (bit & only62)))
		return REFD_OK;
	if (c->cond & bit) {
		if (c->cend[ci] == 0)
			return REFD_OK;	/* already for good */
		if (end != 0 && end <= c->cend[ci])
			return REFD_OK;
	}
	c->cond |= bit;
	c->cend[ci] = end;
	if ((bit == COND_PANICKED || bit == COND_FRIGHTENED) && src >= 0)
		c->fear_src = src + 1;
	pens(c);
	if ((rc = ev_cond(ctx, s, "condition", t, ci, rounds)) != REFD_OK)
		return rc;
	if (bit == COND_PANICKED || (bit == COND_STUNNED && !c->no62))
		return drop_held(ctx, s, t);
	return REFD_OK;
}

int
mg_cond_del(refd_ctx *ctx, struct st *s, int t, int ci)
{
	struct cr *c = &s->c[t];

	if (!(c->cond & (1 << ci)))
		return REFD_OK;
	c->cond &= ~(1 << ci);
	c->cend[ci] = 0;
	if (!(c->cond & (COND_PANICKED | COND_FRIGHTENED)))
		c->fear_src = 0;
	pens(c);
	return ev_cond(ctx, s, "condition_ends", t, ci, 0);
}

/* Temporary hit points: the total of the pools. */
static void
temp_sum(struct cr *c)
{
	int k;

	c->temp = 0;
	for (k = 0; k < 4; k++)
		c->temp += c->tp_amt[k];
}

static int
con_hp(const struct cr *c, int b)
{
	return level_of(c) * (mod(c->d.con + b) - mod(c->d.con));
}

/* The Constitution boost ends: its hit points go (3.6). */
static int
con_end(refd_ctx *ctx, struct st *s, int t)
{
	struct cr *c = &s->c[t];

	c->d.con -= c->conb;
	c->d.hp -= c->conb_hp;
	c->hp -= c->conb_hp;
	if (c->hp < 0 && !c->dead) {
		c->stable = 0;
		c->dying_round = s->round;
		if (c->hp <= -10)
			c->dead = 1;
	}
	c->conb = c->conb_hp = c->conb_end = 0;
	return ev_who(ctx, s, "con_boost_ends", t);
}

/*
 * Slot n of the order begins: effects whose end has come end, for every
 * creature (before the creature of the slot acts).
 */
int
mg_tick(refd_ctx *ctx, struct st *s, int n)
{
	int i, k, rc;

	for (i = 0; i < s->nc; i++) {
		struct cr *c = &s->c[i];

		for (k = 0; k < NCOND; k++)
			if ((c->cond & (1 << k)) && mg_ended(s, c->cend[k], n) &&
			    (rc = mg_cond_del(ctx, s, i, k)) != REFD_OK)
				return rc;
		for (k = 0; k < 4; k++)
			if (c->tp_amt[k] > 0 && mg_ended(s, c->tp_end[k], n)) {
				c->tp_amt[k] = 0;
				c->tp_end[k] = 0;
				temp_sum(c);
				if ((rc = ev_who(ctx, s, "temp_hp_expired", i)) !=
				    REFD_OK)
					return rc;
			}
		if (c->conb && mg_ended(s, c->conb_end, n) &&
		    (rc = con_end(ctx, s, i)) != REFD_OK)
			return rc;
		if (c->turned_by && mg_ended(s, c->turned_until, n))
			c->turned_by = 0;
		if (c->rebuked_by && mg_ended(s, c->rebuked_end, n))
			c->rebuked_by = 0;
		if (c->bolster_hd && mg_ended(s, c->bolster_end, n))
			c->bolster_hd = 0;
		if (c->cmd_by && s->c[c->cmd_by - 1].dead) {
			c->cmd_by = 0;	/* the commander is gone: free */
			c->side = c->orig_side;
			if ((rc = ev_who(ctx, s, "released", i)) != REFD_OK)
				return rc;
		}
	}
	return REFD_OK;
}

/* The 6.2 defaults of "no actions" (dazed, cowering, stunned). */
int
mg_no_act(const struct cr *c)
{
	if (c->cond & COND_PARALYSED)
		return 1;
	if (c->rebuked_by || (c->cmd_by && !c->ordered) ||
	    (c->turned_by && c->cornered))
		return 1;	/* rebuked or cornered turned undead cower,
				 * commanded ones wait (5.16) */
	return !c->no62 && (c->cond & (COND_DAZED | COND_COWERING |
	    COND_STUNNED));
}

int
mg_save_pen(const struct cr *c)
{
	if (c->cond & COND_SICKENED)
		return 2;
	if (!c->no62 && (c->cond & (COND_SHAKEN | COND_FRIGHTENED |
	    COND_PANICKED)))
		return 2;
	return 0;
}

/* ---- temporary hit points (3.6, R001-33) ---- */

/* Damage goes first to the pools, the soonest to expire first. */
int
mg_absorb(struct cr *c, int dmg)
{
	while (dmg > 0) {
		int k, best = -1;

		for (k = 0; k < 4; k++)
			if (c->tp_amt[k] > 0 && (best < 0 ||
			    (c->tp_end[k] != 0 && (c->tp_end[best] == 0 ||
			    c->tp_end[k] < c->tp_end[best]))))
				best = k;
		if (best < 0)
			break;
		if (c->tp_amt[best] > dmg) {
			c->tp_amt[best] -= dmg;
			dmg = 0;
		} else {
			dmg -= c->tp_amt[best];
			c->tp_amt[best] = 0;
			c->tp_end[best] = 0;
		}
	}
	temp_sum(c);
	return dmg;
}

static int32_t
src_id(const char *name)
{
	uint32_t h = 2166136261u;

	while (*name)
		h = (h ^ (uint8_t)*name++) * 16777619u;
	return (int32_t)(h & 0x7fffffff) | 1;
}

static int
duration(const struct st *s, const struct spell *sp, int a)
{
	int r = sp->dur + sp->dur_lvl * s->c[a].d.caster_level;

	if (s->c[a].cast_meta & MM_EXTEND)
		r *= 2;
	return r;
}

/*
 * A pool of amt temporary HP from spell sp: pools of different spells
 * are kept apart; a second pool of the same spell replaces the first
 * only when it is larger (they do not stack).
 */
int
mg_temp_add(refd_ctx *ctx, struct st *s, int t, int amt,
    const struct spell *sp)
{
	struct cr *T = &s->c[t];
	int32_t id = src_id(sp->name);
	int k, slot = -1, rounds = sp->rounds;
	refd_mpw *w;

	if (active(s) >= 0 && s->c[active(s)].cast_meta & MM_EXTEND)
		rounds *= 2;
	for (k = 0; k < 4; k++)
		if (T->tp_amt[k] > 0 && T->tp_src[k] == id)
			slot = k;
	if (slot >= 0 && T->tp_amt[slot] >= amt)
		slot = -2;	/* the pool it has is better */
	if (slot == -1)
		for (k = 0; k < 4 && slot < 0; k++)
			if (T->tp_amt[k] == 0)
				slot = k;
	if (slot == -1)	/* four pools: the smallest goes */
		for (slot = 0, k = 1; k < 4; k++)
			if (T->tp_amt[k] < T->tp_amt[slot])
				slot = k;
	if (slot >= 0) {
		T->tp_amt[slot] = amt;
		T->tp_src[slot] = id;
		T->tp_end[slot] = rounds > 0 ? mg_end(s, rounds) : 0;
		temp_sum(T);
	}
	w = refd_mpw_create();
	refd_mpw_map(w);
	refd_mpw_kstr(w, "type", "temp_hp");
	refd_mpw_kstr(w, "target", T->d.name);
	refd_mpw_kint(w, "amount", amt);
	refd_mpw_end(w);
	return emitw(ctx, s, w);
}

/* ---- spell effects ---- */

/* Empowered: half as much again (7.2). */
int
mg_amount(const struct cr *A, int amt)
{
	return (A->cast_meta & MM_EMPOWER) ? amt + amt / 2 : amt;
}

/* A condition or Constitution spell after its save (saved: negated). */
int
mg_spell_after_save(refd_ctx *ctx, struct st *s, int a, int t,
    const struct spell *sp, int saved)
{
	struct cr *T = &s->c[t];
	int rounds = duration(s, sp, a), dh;
	refd_mpw *w;

	if (saved)
		return REFD_OK;
	if (sp->effect == 3)
		return mg_cond_add(ctx, s, t, sp->cond - 1, rounds, a);
	if (T->conb) {
		if (T->conb >= sp->conb)
			return REFD_OK;	/* the same bonus type: the best */
		T->d.con -= T->conb;
		T->d.hp -= T->conb_hp;
		T->hp -= T->conb_hp;
	}
	dh = con_hp(T, sp->conb);
	T->conb = sp->conb;
	T->conb_hp = dh;
	T->conb_end = mg_end(s, rounds);
	T->d.con += sp->conb;
	T->d.hp += dh;
	T->hp += dh;	/* real hit points, not temporary (3.6) */
	w = refd_mpw_create();
	refd_mpw_map(w);
	refd_mpw_kstr(w, "type", "con_boost");
	refd_mpw_kstr(w, "target", T->d.name);
	refd_mpw_kint(w, "con", sp->conb);
	refd_mpw_kint(w, "rounds", rounds);
	refd_mpw_end(w);
	return emitw(ctx, s, w);
}

/* ---- casting: slots, components, times (7.2, 7.3) ---- */

/* Which slots a command uses: cast spells, use_item scrolls and
 * wands, use_ability the special abilities. */
int
mg_slot_ok(int t, const struct spell *sp)
{
	if (t == C_CAST)
		return sp->kind == MK_SPELL;
	if (t == C_USE_ITEM)
		return sp->kind == MK_SCROLL || sp->kind == MK_WAND;
	return sp->kind == MK_SPELL_LIKE || sp->kind == MK_SUPERNATURAL ||
	    sp->kind == MK_EXTRAORDINARY;
}

/* Casting provokes: spells, scrolls, spell-like abilities (7.3);
 * free-action spells never do. */
int
mg_provokes(const struct spell *sp)
{
	return sp->time != 2 && (sp->kind == MK_SPELL ||
	    sp->kind == MK_SCROLL || sp->kind == MK_SPELL_LIKE);
}

/* Counts against one spell per round (D001-44). */
int
mg_counts(const struct spell *sp)
{
	return sp->kind == MK_SPELL || sp->kind == MK_SCROLL;
}

/* The casting time after metamagic: a spontaneous caster's metamagic
 * turns a standard action into a full-round one and makes a 1-round
 * or longer casting one round longer (7.2). */
int
mg_time(const struct cr *A, const struct spell *sp, int meta)
{
	if (meta && A->d.spont && sp->kind == MK_SPELL) {
		if (sp->time == 0)
			return 1;
		if (sp->time == 1)
			return 3;
	}
	return sp->time;
}

/* Rounds before a 1-round-or-longer spell takes effect. */
int
mg_cast_rounds(const struct cr *A, const struct spell *sp, int meta)
{
	int r = sp->time == 4 ? 10 * sp->minutes : 1;

	if (meta && A->d.spont && sp->kind == MK_SPELL && sp->time >= 3)
		r++;
	return r;
}

/* A long casting goes on: this turn is spent casting (1 is returned)
 * until its last round, when the spell takes effect (0). */
int
mg_still_casting(struct st *s, int i)
{
	struct cr *c = &s->c[i];

	if (!able(c) || c->grap) {
		c->casting = c->cast_left = 0;	/* interrupted: ruined */
		return 1;
	}
	if (c->cast_left > 1) {
		c->cast_left--;
		s->full = 1;
		s->cast = 1;
		return 1;
	}
	c->cast_left = 0;
	return 0;
}

static int
hands_free(const struct cr *c)
{
	int used = 0;

	if (c->d.w[0].nd && !c->d.w[0].natural && !c->d.w[0].unarmed)
		used++;	/* a two-handed weapon lets go with one hand */
	if ((c->d.w[1].nd && !c->d.w[1].natural && !c->d.w[1].unarmed) ||
	    (c->d.shield > 0 && c->shp > 0))
		used++;
	return used < 2;
}

int
mg_cast_check(const struct st *s, int a, const struct cmd *c,
    const struct spell *sp, struct why *y)
{
	const struct cr *A = &s->c[a];
	int comp = sp->comp, kind = sp->kind;

	if (c->meta) {
		if (kind != MK_SPELL || (A->d.meta & c->meta) != c->meta)
			return rej(y, REFD_EILLEGAL, "R001-63",
			    "%s does not have that metamagic feat", A->d.name);
		if (c->meta & MM_STILL)
			comp &= ~MG_S;
		if (c->meta & MM_SILENT)
			comp &= ~MG_V;
	}
	if (c->defensive && kind != MK_SPELL && kind != MK_SCROLL &&
	    kind != MK_SPELL_LIKE)
		return rej(y, REFD_EILLEGAL, "R001-65",
		    "supernatural and extraordinary abilities and wands "
		    "provoke nothing: there is nothing to do defensively");
	if (c->hold && (sp->range != 0 || kind != MK_SPELL))
		return rej(y, REFD_EILLEGAL, "R001-64",
		    "only a touch spell can be held");
	if (c->hold && c->target >= 0)
		return rej(y, REFD_EBADCMD, "R001-64",
		    "a held charge is cast without a target: deliver it "
		    "with \"touch\"");
	if (A->grap && kind == MK_SCROLL)
		return rej(y, REFD_EILLEGAL, "R001-56",
		    "grappling, %s cannot read a scroll (a spell-completion "
		    "item)", A->d.name);
	if (kind == MK_SPELL_LIKE || kind == MK_SUPERNATURAL ||
	    kind == MK_EXTRAORDINARY || kind == MK_WAND)
		return REFD_OK;	/* no components */
	if (kind == MK_SCROLL)
		comp &= MG_V | MG_S;	/* the scroll holds the rest */
	if ((comp & MG_V) && ((A->cond & (COND_GAGGED | COND_SILENCED)) ||
	    gr_hushed(A)))
		return rej(y, REFD_EILLEGAL, "R001-62",
		    "%s cannot speak: '%s' has a verbal component",
		    A->d.name, sp->name);
	if ((comp & MG_S) && (A->cond & COND_BOUND))
		return rej(y, REFD_EILLEGAL, "R001-62",
		    "%s is bound: '%s' has a somatic component", A->d.name,
		    sp->name);
	if ((comp & MG_S) && (A->grap || A->pinned_by))
		return rej(y, REFD_EILLEGAL, "R001-62",
		    "%s is grappling: no spell with a somatic component",
		    A->d.name);
	if ((comp & MG_S) && !hands_free(A))
		return rej(y, REFD_EILLEGAL, "R001-62",
		    "%s has no free hand for the somatic component",
		    A->d.name);
	if (A->grap && sp->time != 0 && sp->time != 2)
		return rej(y, REFD_EILLEGAL, "R001-62",
		    "grappling, only spells of one standard action");
	if (comp & A->d.lacks & (MG_M | MG_F | MG_DF))
		return rej(y, REFD_ERESOURCE, "R001-62",
		    "%s lacks the %s '%s' needs", A->d.name,
		    (comp & A->d.lacks & MG_M) ? "material components" :
		    ((comp & A->d.lacks & MG_F) ? "focus" : "divine focus"),
		    sp->name);
	return gr_grapple_comp(A, comp, sp->name, y);
}

/* A verbal component is spoken (deafened failure, 6.1). */
int
mg_verbal(const struct cr *A, const struct spell *sp)
{
	if (sp->kind != MK_SPELL && sp->kind != MK_SCROLL)
		return 0;
	return (sp->comp & MG_V) && !(A->cast_meta & MM_SILENT);
}

/* Concentration can be broken: spells, scrolls, spell-like (7.3). */
int
mg_concentrates(const struct spell *sp)
{
	return sp->kind == MK_SPELL || sp->kind == MK_SCROLL ||
	    sp->kind == MK_SPELL_LIKE;
}

/* ---- held touch charges (7.2, R001-64) ---- */

int
mg_hold(refd_ctx *ctx, struct st *s, int a, int slot)
{
	struct cr *A = &s->c[a];
	refd_mpw *w;
	int rc;

	A->held = slot + 1;
	A->held_round = s->round;
	w = refd_mpw_create();
	refd_mpw_map(w);
	refd_mpw_kstr(w, "type", "charge_held");
	refd_mpw_kstr(w, "who", A->d.name);
	refd_mpw_kstr(w, "spell", A->d.sp[slot].name);
	refd_mpw_end(w);
	if (w == NULL || refd_mpw_error(w)) {
		refd_mpw_destroy(w);
		return REFD_ENOMEM;
	}
	/* Held charges are hidden (8.4): only the caster's seat. */
	rc = enc_host->emit(ctx, A->side, refd_mpw_data(w), refd_mpw_len(w));
	refd_mpw_destroy(w);
	return rc;
}

/* An unarmed or natural attack that hits while holding a charge
 * delivers it too (7.2). */
int
mg_discharge(refd_ctx *ctx, struct st *s, int a, int t)
{
	struct spell sp = s->c[a].d.sp[s->c[a].held - 1];
	int rc;

	s->c[a].held = 0;
	sp.attack = 0;
	if ((rc = ev_who(ctx, s, "discharge", a)) != REFD_OK)
		return rc;
	return spell_effect(ctx, s, a, t, &sp);
}

/* Two creatures come to grips: a held charge discharges into the other
 * (touching anything by accident, 7.2). */
int
mg_contact(refd_ctx *ctx, struct st *s, int a, int t)
{
	int rc;

	if (s->c[a].held && !s->c[t].dead &&
	    (rc = mg_discharge(ctx, s, a, t)) != REFD_OK)
		return rc;
	if (s->c[t].held && !s->c[a].dead)
		return mg_discharge(ctx, s, t, a);
	return REFD_OK;
}

/* The touch is free in the casting round (part of the casting). */
static int
touch_free(const struct st *s, const struct cr *A)
{
	return A->held_round == s->round && s->cast;
}

/* ---- turning and rebuking (5.16, R001-59) ---- */

/* HD against turning: bolstered undead use the bolster's result. */
int
mg_turn_hd(const struct cr *U)
{
	return U->bolster_hd > U->d.hd ? U->bolster_hd : U->d.hd;
}

/* Already affected: turned, rebuked, or commanded by this cleric. */
int
mg_turn_skip(const struct st *s, int a, int i)
{
	const struct cr *U = &s->c[i];

	if (s->c[a].d.rebuke)
		return U->rebuked_by || U->cmd_by || U->side == s->c[a].side;
	return U->turned_by != 0;
}

static int
commanded_hd(const struct st *s, int a)
{
	int i, n = 0;

	for (i = 0; i < s->nc; i++)
		if (s->c[i].cmd_by == a + 1 && !s->c[i].dead)
			n += s->c[i].d.hd;
	return n;
}

/* Rebuked undead cower 10 rounds; those that would be destroyed are
 * commanded instead, up to the cleric's level in total HD. */
void
mg_rebuked(struct st *s, int a, int i, int command)
{
	struct cr *U = &s->c[i];

	if (command && commanded_hd(s, a) + U->d.hd <= s->c[a].d.turn_level) {
		if (U->grap)
			man_grapple_leave(s, i);	/* it lets go */
		U->cmd_by = a + 1;
		U->orig_side = U->side;
		U->side = s->c[a].side;
		U->ordered = 0;
		U->rebuked_by = 0;
		return;
	}
	U->rebuked_by = a + 1;
	U->rebuked_end = mg_end(s, 10);
}

static const int turn_steps[] = { -4, -3, -3, -3, -2, -2, -2, -1, -1, -1,
	0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4 };

static int
ev_turning(refd_ctx *ctx, const struct st *s, const char *type, int a,
    int v, int chk, int maxhd, int pool)
{
	refd_mpw *w = refd_mpw_create();

	refd_mpw_map(w);
	refd_mpw_kstr(w, "type", type);
	refd_mpw_kstr(w, "who", s->c[a].d.name);
	refd_mpw_kint(w, "roll", v);
	refd_mpw_kint(w, "check", chk);
	if (maxhd > -100)
		refd_mpw_kint(w, "max_hd", maxhd);
	if (pool >= 0)
		refd_mpw_kint(w, "pool", pool);
	refd_mpw_end(w);
	return emitw(ctx, s, w);
}

/* Bolster: every undead within 12 squares and line of effect has the
 * table result as its HD against turning for 10 rounds. */
static int
bolster(refd_ctx *ctx, struct st *s, int a)
{
	struct cr *A = &s->c[a];
	int v, rc, chk, maxhd, i;

	A->d.turn_uses--;
	if ((rc = roll(ctx, 20, "turning check", &v)) != REFD_OK)
		return rc;
	chk = v + mod(A->d.cha);
	maxhd = A->d.turn_level + turn_steps[chk <= 0 ? 0 :
	    (chk >= 22 ? 22 : chk)];
	if ((rc = ev_turning(ctx, s, "bolster", a, v, chk, maxhd, -1)) !=
	    REFD_OK)
		return rc;
	for (i = 0; i < s->nc; i++) {
		struct cr *U = &s->c[i];

		if (!U->d.undead || U->dead || cdist(A, U) > 12 ||
		    (i != a && !has_loe(s, a, i)) || maxhd <= U->d.hd)
			continue;
		U->bolster_hd = maxhd;
		U->bolster_end = mg_end(s, 10);
		if ((rc = ev_who(ctx, s, "bolstered", i)) != REFD_OK)
			return rc;
	}
	return REFD_OK;
}

/* Dispel turning: a check at least the turner's frees 2d6 + level + Cha
 * HD of the undead it turned, closest to the evil cleric first. */
static int
dispel_turning(refd_ctx *ctx, struct st *s, int a)
{
	struct cr *A = &s->c[a];
	int v, d1, d2, rc, chk, pool, i, best, bi;

	A->d.turn_uses--;
	if ((rc = roll(ctx, 20, "turning check", &v)) != REFD_OK ||
	    (rc = roll(ctx, 6, "turning damage", &d1)) != REFD_OK ||
	    (rc = roll(ctx, 6, "turning damage", &d2)) != REFD_OK)
		return rc;
	chk = v + mod(A->d.cha);
	pool = d1 + d2 + A->d.turn_level + mod(A->d.cha);
	if ((rc = ev_turning(ctx, s, "dispel_turning", a, v, chk, -100,
	    pool)) != REFD_OK)
		return rc;
	for (;;) {
		best = 1 << 20;
		bi = -1;
		for (i = 0; i < s->nc; i++) {
			struct cr *U = &s->c[i];

			if (!U->turned_by || U->dead || cdist(A, U) > 12 ||
			    chk < s->c[U->turned_by - 1].turn_chk)
				continue;
			if (cdist(A, U) < best) {
				best = cdist(A, U);
				bi = i;
			}
		}
		if (bi < 0 || s->c[bi].d.hd > pool)
			break;
		pool -= s->c[bi].d.hd;
		s->c[bi].turned_by = 0;
		if ((rc = ev_who(ctx, s, "turning_dispelled", bi)) != REFD_OK)
			return rc;
	}
	return REFD_OK;
}

/* ---- commands: parse, check, exec ---- */

int
mg_parse(refd_mpv r, struct cmd *c)
{
	static const char *const metas[] = { "extend", "empower", "still",
		"silent" };
	refd_mpv v = refd_mpv_get(r, "metamagic");
	int j;

	c->hold = refd_mpv_get_bool(r, "hold", 0);
	c->tend = refd_mpv_get_bool(r, "tend", 0);
	c->release = refd_mpv_get_bool(r, "release", 0);
	c->hours = (int)refd_mpv_get_int(r, "hours", 0);
	{
		const char *act = refd_mpv_get_str(r, "action", "attack");

		if (strcmp(act, "move") == 0)
			c->ract = RK_MOVE;
		else if (strcmp(act, "drop_prone") == 0)
			c->ract = RK_DROP;
		else if (strcmp(act, "cast") == 0)
			c->ract = RK_CAST;
		else if (strcmp(act, "counterspell") == 0)
			c->ract = RK_COUNTER;
		else if (strcmp(act, "attack") != 0)
			return 1;
	}
	if (!refd_mpv_ok(v))
		return 0;
	for (j = 0; j < 4; j++)
		if (refd_mpv_streq(v, metas[j])) {
			c->meta = 1 << j;
			return 0;
		}
	return 1;
}

static int
is_move(int t)
{
	return t == C_MOVE || t == C_RUN || t == C_WITHDRAW || t == C_STEP ||
	    t == C_CRAWL || t == C_MINMOVE;
}

/* Where a movement command ends (the checks of move.c come later). */
static int
dest_of(const struct cmd *c, int *x, int *y)
{
	if (c->has_to) {
		*x = c->x;
		*y = c->y;
		return 1;
	}
	if (c->npath > 0) {
		*x = c->px[c->npath - 1];
		*y = c->py[c->npath - 1];
		return 1;
	}
	return 0;
}

static int
dist_from(const struct st *s, int i, int x, int y, int src)
{
	const struct cr *S = &s->c[src];

	return g_space_dist(x, y, space_n(&s->c[i]), S->x, S->y, space_n(S));
}

/* What the creature must flee from: the source of its panic or fear
 * (6.2), or the cleric that turned it (5.16); -1: nothing. */
static int
flee_src(const struct cr *c)
{
	if (c->fear_src > 0 && ((c->cond & COND_PANICKED) ||
	    ((c->cond & COND_FRIGHTENED) && !c->no62)))
		return c->fear_src - 1;
	if (c->turned_by)
		return c->turned_by - 1;
	return -1;
}

/*
 * The active creature's command, before the usual checks: 1 lets them
 * run; else REFD_OK (a command of this file, accepted) or a refusal.
 */
int
mg_check(const struct st *s, int a, struct cmd *c, struct why *y)
{
	const struct cr *A = &s->c[a], *T = c->target >= 0 ?
	    &s->c[c->target] : NULL;

	if (flee_src(A) >= 0 && !(A->cornered && !(A->cond &
	    COND_PANICKED))) {
		int x, yy, src = flee_src(A);
		const char *rule = A->turned_by && !(A->cond &
		    (COND_PANICKED | COND_FRIGHTENED)) ? "R001-59" : "R001-67";

		if (!is_move(c->t) && c->t != C_END && c->t != C_STAND &&
		    c->t != C_PRONE && c->t != C_DELAY)
			return rej(y, REFD_EILLEGAL, rule,
			    "%s is afraid: it can only flee from %s",
			    A->d.name, s->c[src].d.name);
		if (is_move(c->t) && dest_of(c, &x, &yy) &&
		    dist_from(s, a, x, yy, src) <= cdist(A, &s->c[src]))
			return rej(y, REFD_ENOPATH, rule,
			    "%s is afraid: it must move away from %s",
			    A->d.name, s->c[src].d.name);
	}
	switch (c->t) {
	case C_REST:
		return rej(y, REFD_EPHASE, "R001-34",
		    "rest only after the fight, with the recovery option");
	case C_REBUKE:
	case C_DISPEL_TURN:
	case C_BOLSTER:
		if (A->d.turn_level < 1 || A->d.turn_uses < 1)
			return rej(y, REFD_ERESOURCE, "R001-59",
			    "%s has no turning attempt left", A->d.name);
		if (!A->d.rebuke)
			return rej(y, REFD_EILLEGAL, "R001-59",
			    "only a cleric channelling negative energy "
			    "rebukes, dispels turning or bolsters");
		break;
	case C_COMMAND:
		if (T == NULL || T->cmd_by != a + 1 || T->dead)
			return rej(y, REFD_ENOTARGET, "R001-59",
			    "name an undead %s commands", A->d.name);
		if (c->release)
			return REFD_OK;	/* a free action */
		break;
	case C_TOUCH: {
		const struct spell *sp;

		if (!A->held)
			return rej(y, REFD_ERESOURCE, "R001-64",
			    "%s holds no touch spell", A->d.name);
		sp = &A->d.sp[A->held - 1];
		if (T == NULL || T->dead || !perceives(s, a, c->target))
			return rej(y, REFD_ENOTARGET, "R001-64",
			    "name a creature %s can see", A->d.name);
		if (c->target != a && cdist(A, T) > (natreach(A) > 0 ?
		    natreach(A) : 0))
			return rej(y, REFD_ERANGE, "R001-64",
			    "%s is out of reach", T->d.name);
		if (sp->effect == 0 && c->target == a)
			return rej(y, REFD_ENOTARGET, "R001-64",
			    "%s would not harm itself", A->d.name);
		if (A->grap && !man_in_grapple(s, a, c->target))
			return rej(y, REFD_EILLEGAL, "R001-56",
			    "grappling, only the grapple opponent");
		if (touch_free(s, A))
			return REFD_OK;
		break;
	}
	default:
		return 1;
	}
	if (s->full || s->std || s->fa || (s->mv > 1) ||
	    (restricted(s, A) && s->mv) || (A->cond & COND_NAUSEATED))
		return rej(y, REFD_ERESOURCE, "R001-04",
		    "%s has no standard action left this turn", A->d.name);
	return REFD_OK;
}

static void
spend_std(struct st *s, const struct cr *A)
{
	s->std = 1;
	if (A->hp == 0)
		s->std_dis = 1;
}

int
mg_exec(refd_ctx *ctx, struct st *s, const struct cmd *c)
{
	int a = active(s), rc;
	struct cr *A = &s->c[a], *T = c->target >= 0 ? &s->c[c->target] :
	    NULL;

	switch (c->t) {
	case C_DISPEL_TURN:
		spend_std(s, A);
		return dispel_turning(ctx, s, a);
	case C_BOLSTER:
		spend_std(s, A);
		return bolster(ctx, s, a);
	case C_COMMAND:
		if (c->release) {
			T->cmd_by = 0;
			T->side = T->orig_side;
			T->ordered = 0;
			return ev_who(ctx, s, "released", c->target);
		}
		spend_std(s, A);
		T->ordered = 2;
		return ev_who(ctx, s, "commanded", c->target);
	case C_TOUCH: {
		const struct spell *sp = &A->d.sp[A->held - 1];
		refd_mpw *w;

		if (!touch_free(s, A))
			spend_std(s, A);
		w = refd_mpw_create();
		refd_mpw_map(w);
		refd_mpw_kstr(w, "type", "touch");
		refd_mpw_kstr(w, "who", A->d.name);
		refd_mpw_kstr(w, "target", T->d.name);
		refd_mpw_end(w);
		if ((rc = emitw(ctx, s, w)) != REFD_OK)
			return rc;
		s->last_hit = 1;
		if ((rc = spell_effect(ctx, s, a, c->target, sp)) != REFD_OK)
			return rc;
		if (!sp->attack || s->last_hit)
			A->held = 0;	/* discharged; a miss keeps it */
		return REFD_OK;
	}
	default:
		return REFD_EINTERNAL;
	}
}

/*
 * Creature i's turn begins (after the dying roll): a panicked creature
 * with nowhere farther from the source to go cowers this turn; a
 * commanded undead acts only on an order given since its last turn.
 */
int
mg_turn_start(refd_ctx *ctx, struct st *s, int i)
{
	struct cr *c = &s->c[i];

	c->cast_meta = 0;	/* metamagic lasts the casting's turn */
	if (c->cmd_by)
		c->ordered = c->ordered == 2 ? 1 : 0;
	c->cornered = 0;
	if (flee_src(c) >= 0 && able(c) && !(c->cond & COND_COWERING) &&
	    !s->c[flee_src(c)].dead) {
		int16_t dist[MAXM][MAXM][2], prev[MAXM][MAXM][2];
		int x, y, src = flee_src(c), now = cdist(c, &s->c[src]);

		reach_map(s, i, speed_of(c), 0, dist, prev);
		for (y = 0; y < s->h; y++)
			for (x = 0; x < s->w; x++)
				if ((dist[y][x][0] >= 0 || dist[y][x][1] >= 0) &&
				    free_at(s, i, x, y) &&
				    dist_from(s, i, x, y, src) > now)
					return REFD_OK;
		/* Cornered: a panicked creature cowers until its next turn,
		 * a turned undead cowers, a frightened one may fight (6.2). */
		c->cornered = 1;
		if (!(c->cond & COND_PANICKED) || c->turned_by)
			return REFD_OK;
		return mg_cond_add(ctx, s, i, 7, 1, -1);
	}
	return REFD_OK;
}

/* ---- after the fight: recovery and natural healing (3.4, 3.5, 3.7) ---- */

static int
ev_recovery(refd_ctx *ctx, const struct st *s, int i, const char *what,
    int r, int ok)
{
	refd_mpw *w = refd_mpw_create();

	refd_mpw_map(w);
	refd_mpw_kstr(w, "type", "recovery_roll");
	refd_mpw_kstr(w, "who", s->c[i].d.name);
	refd_mpw_kstr(w, "check", what);
	refd_mpw_kint(w, "roll", r);
	refd_mpw_kbool(w, "success", ok);
	refd_mpw_end(w);
	return emitw(ctx, s, w);
}

static int
ev_hours(refd_ctx *ctx, const struct st *s, const char *type)
{
	refd_mpw *w = refd_mpw_create();

	refd_mpw_map(w);
	refd_mpw_kstr(w, "type", type);
	refd_mpw_kint(w, "hours", s->hours);
	refd_mpw_end(w);
	return emitw(ctx, s, w);
}

/* Something left to recover. */
static int
wounded(const struct st *s)
{
	int i;

	for (i = 0; i < s->nc; i++) {
		const struct cr *c = &s->c[i];

		if (!c->dead && (c->hp < c->d.hp || c->nl > 0))
			return 1;
	}
	return 0;
}

static void
lose_hp(struct st *s, int i)
{
	struct cr *c = &s->c[i];

	if (--c->hp <= -10)
		c->dead = 1;
	(void)s;
}

/*
 * The fight is over and the recovery option is on: the dying roll on
 * (each roll a round) until stable or dead, timed effects end, and the
 * recovery phase begins when someone is left to recover.
 */
int
mg_rest_begin(refd_ctx *ctx, struct st *s)
{
	int i, k, rc, r;

	for (i = 0; i < s->nc; i++) {
		struct cr *c = &s->c[i];

		while (!c->dead && c->hp < 0 && !c->stable) {
			if ((rc = roll(ctx, 100, "dying", &r)) != REFD_OK)
				return rc;
			if (r <= 10) {
				c->stable = 1;
				c->assisted = 0;
			} else {
				lose_hp(s, i);
			}
			if ((rc = ev_recovery(ctx, s, i, "dying", r, r <= 10)) !=
			    REFD_OK)
				return rc;
		}
		if (!c->dead && c->hp < 0)
			c->rec = MR_UNCONSCIOUS;
		for (k = 0; k < NCOND; k++)
			if (c->cend[k] && (rc = mg_cond_del(ctx, s, i, k)) !=
			    REFD_OK)
				return rc;
		for (k = 0; k < 4; k++)
			c->tp_amt[k] = c->tp_end[k] = 0;
		temp_sum(c);
		if (c->conb && (rc = con_end(ctx, s, i)) != REFD_OK)
			return rc;
		c->turned_by = c->rebuked_by = c->bolster_hd = 0;
		c->casting = c->cast_left = c->held = 0;
	}
	if ((rc = ev_states(ctx, s)) != REFD_OK)
		return rc;
	if (!wounded(s))
		return REFD_OK;
	s->resting = 2;
	return ev_hours(ctx, s, "recovery");
}

/* Seats that may let time pass: those with a living creature. */
uint64_t
mg_rest_seats(const struct st *s)
{
	uint64_t m = 0;
	int i;

	for (i = 0; i < s->nc; i++)
		if (!s->c[i].dead)
			m |= (uint64_t)1 << s->c[i].side;
	return m;
}

int
mg_rest_check(const struct st *s, int seat, struct cmd *c, struct why *y)
{
	if (seat < 0 || seat >= s->nseats ||
	    !(mg_rest_seats(s) & ((uint64_t)1 << seat)))
		return rej(y, REFD_ENOTYOURTURN, "R001-34",
		    "seat %d has no living creature to rest", seat);
	if (c->t == C_END) {
		c->si = seat;
		return REFD_OK;
	}
	if (c->t != C_REST)
		return rej(y, REFD_EPHASE, "R001-34",
		    "the fight is over: \"rest\" lets hours pass, "
		    "\"end_turn\" ends the match");
	if (c->hours < 1 || c->hours > 720)
		return rej(y, REFD_EBADCMD, "R001-34",
		    "hours must be 1..720");
	c->si = seat;
	return REFD_OK;
}

/* One hour passes for everyone. */
static int
hour(refd_ctx *ctx, struct st *s)
{
	int i, rc, r, h;

	s->hours++;
	h = s->hours % 24;
	for (i = 0; i < s->nc; i++) {
		struct cr *c = &s->c[i];
		int lvl = level_of(c), heals;

		if (c->dead)
			continue;
		c->nl -= lvl;	/* 1 point per hour per level (3.5) */
		if (c->nl < 0)
			c->nl = 0;
		if (c->rec == MR_UNCONSCIOUS) {
			/* Each hour: 1-10 conscious (3.4). */
			if ((rc = roll(ctx, 100, "recovery", &r)) != REFD_OK)
				return rc;
			if ((rc = ev_recovery(ctx, s, i, "consciousness", r,
			    r <= 10)) != REFD_OK)
				return rc;
			if (r <= 10)
				c->rec = c->assisted ? MR_RECOVERING : MR_ALONE;
			else if (!c->assisted)
				lose_hp(s, i);
		} else if (c->rec == MR_ALONE && h == 0) {
			/* Conscious but alone: each day, 1-10 starts the
			 * natural recovery, else -1 HP. */
			if ((rc = roll(ctx, 100, "recovery", &r)) != REFD_OK)
				return rc;
			if ((rc = ev_recovery(ctx, s, i, "recovery", r,
			    r <= 10)) != REFD_OK)
				return rc;
			if (r <= 10)
				c->rec = MR_RECOVERING;
			else
				lose_hp(s, i);
			continue;
		}
		if (c->dead)
			continue;
		/* Natural healing: a night's rest (the first 8 hours of a
		 * day) gives the level, the full day of bed rest as much
		 * again (3.7); the unconscious and unassisted heal not. */
		heals = c->rec == MR_NONE || c->rec == MR_RECOVERING ||
		    (c->rec == MR_UNCONSCIOUS && c->assisted);
		if (heals && (h == 8 || h == 0)) {
			c->hp += lvl;
			if (c->hp > c->d.hp)
				c->hp = c->d.hp;	/* never above max */
		}
		if (c->hp >= 0)
			c->rec = MR_NONE;
		if (c->hp >= 0 && c->stable)
			c->stable = 0;
		if (c->hp < 0)
			c->stable = 1;
	}
	return REFD_OK;
}

int
mg_rest_exec(refd_ctx *ctx, struct st *s, const struct cmd *c)
{
	refd_mpw *w;
	int i, h, rc;

	if (c->t == C_END)
		s->resting = 3;
	for (i = 0; c->t == C_REST && i < s->nc; i++)
		if (s->c[i].side == c->si)
			s->c[i].assisted = c->tend;
	w = refd_mpw_create();
	refd_mpw_map(w);
	refd_mpw_kstr(w, "type", c->t == C_REST ? "rest" : "end_rest");
	refd_mpw_kint(w, "seat", c->si);
	if (c->t == C_REST) {
		refd_mpw_kint(w, "hours", c->hours);
		refd_mpw_kbool(w, "tend", c->tend);
	}
	refd_mpw_end(w);
	if ((rc = emitw(ctx, s, w)) != REFD_OK)
		return rc;
	for (h = 0; c->t == C_REST && h < c->hours && s->resting == 2; h++) {
		if ((rc = hour(ctx, s)) != REFD_OK)
			return rc;
		if (s->hours >= 720 || !wounded(s))
			s->resting = 3;	/* thirty days, or all healed */
	}
	if ((rc = ev_states(ctx, s)) != REFD_OK)
		return rc;
	return s->resting == 3 ? ev_hours(ctx, s, "recovery_ends") : REFD_OK;
}

/* ---- legal commands, view, restore checks ---- */

/* The keys of this file's command fields (for the legal list). */
void
mg_put(refd_mpw *w, const struct cmd *c)
{
	static const char *const metas[] = { "extend", "empower", "still",
		"silent" };
	int j;

	if (c->t == C_USE_ITEM || c->t == C_USE_ABIL)
		refd_mpw_kstr(w, "spell", c->spell);
	if (c->hold)
		refd_mpw_kbool(w, "hold", 1);
	for (j = 0; j < 4; j++)
		if (c->meta == 1 << j)
			refd_mpw_kstr(w, "metamagic", metas[j]);
	if (c->t == C_REST) {
		refd_mpw_kint(w, "hours", c->hours);
		refd_mpw_kbool(w, "tend", c->tend);
	}
	if (c->release)
		refd_mpw_kbool(w, "release", 1);
	if (c->t == C_READY && c->ract) {
		static const char *const an[] = { "attack", "move",
			"drop_prone", "cast", "counterspell" };

		refd_mpw_kstr(w, "action", an[c->ract]);
		if (c->ract == RK_CAST)
			refd_mpw_kstr(w, "spell", c->spell);
	}
}

typedef void (*try_fn)(const struct st *, int, refd_mpw *, struct cmd *,
    const char *);

static void
legal_rest(const struct st *s, int seat, refd_mpw *w, try_fn try,
    void (*blank)(struct cmd *, int))
{
	static const int hrs[] = { 1, 8, 24 };
	struct cmd c;
	char label[96];
	int i, t;

	blank(&c, C_END);
	try(s, seat, w, &c, "End the recovery and the match");
	for (i = 0; i < 3; i++)
		for (t = 0; t < 2; t++) {
			blank(&c, C_REST);
			c.hours = hrs[i];
			c.tend = t;
			snprintf(label, sizeof(label), "Rest %d hour%s%s",
			    hrs[i], hrs[i] > 1 ? "s" : "",
			    t ? ", tending the wounded" : "");
			try(s, seat, w, &c, label);
		}
}

void
mg_legal(const struct st *s, int seat, refd_mpw *w, try_fn try,
    void (*blank)(struct cmd *, int), void (*put)(const struct st *,
    refd_mpw *, const struct cmd *, const char *))
{
	static const int simple[] = { C_REBUKE, C_DISPEL_TURN, C_BOLSTER };
	static const char *const lab[] = { "Rebuke undead", "Dispel turning",
		"Bolster undead" };
	int a, i, t, j;
	const struct cr *A;
	struct cmd c;
	char label[128];

	if (s->over) {
		if (s->resting == 2)
			legal_rest(s, seat, w, try, blank);
		return;
	}
	a = active(s);
	A = &s->c[a];
	for (i = 0; i < 3; i++) {
		blank(&c, simple[i]);
		try(s, seat, w, &c, lab[i]);
	}
	for (t = 0; t < s->nc; t++) {
		if (s->c[t].dead)
			continue;
		if (s->c[t].side != A->side && perceives(s, a, t))
			mg_legal_ready(s, seat, w, t, put, blank);
		blank(&c, C_TOUCH);
		c.target = t;
		snprintf(label, sizeof(label), "Touch %s with the held spell",
		    s->c[t].d.name);
		try(s, seat, w, &c, label);
		blank(&c, C_COMMAND);
		c.target = t;
		snprintf(label, sizeof(label), "Order %s to act",
		    s->c[t].d.name);
		try(s, seat, w, &c, label);
		c.release = 1;
		snprintf(label, sizeof(label), "Release %s", s->c[t].d.name);
		try(s, seat, w, &c, label);
		for (i = 0; i < MAXSP; i++) {
			const struct spell *sp = &A->d.sp[i];

			if (A->d.uses[i] <= 0)
				continue;
			if (sp->kind != MK_SPELL) {
				blank(&c, sp->kind >= MK_SCROLL ? C_USE_ITEM :
				    C_USE_ABIL);
				c.target = t;
				snprintf(c.spell, sizeof(c.spell), "%s",
				    sp->name);
				snprintf(label, sizeof(label), "Use %s on %s",
				    sp->name, s->c[t].d.name);
				try(s, seat, w, &c, label);
				c.defensive = 1;
				snprintf(label, sizeof(label),
				    "Use %s on %s defensively", sp->name,
				    s->c[t].d.name);
				try(s, seat, w, &c, label);
				continue;
			}
			for (j = 0; j < 4; j++) {
				if (!(A->d.meta & (1 << j)))
					continue;
				blank(&c, C_CAST);
				c.target = t;
				c.meta = 1 << j;
				snprintf(c.spell, sizeof(c.spell), "%s",
				    sp->name);
				snprintf(label, sizeof(label),
				    "Cast %s on %s with metamagic", sp->name,
				    s->c[t].d.name);
				try(s, seat, w, &c, label);
			}
			if (t == a && sp->range == 0) {
				blank(&c, C_CAST);
				c.hold = 1;
				snprintf(c.spell, sizeof(c.spell), "%s",
				    sp->name);
				snprintf(label, sizeof(label),
				    "Cast %s and hold the charge", sp->name);
				try(s, seat, w, &c, label);
			}
		}
	}
}

int
mg_sane(const struct st *s, const struct cr *c)
{
	int k;

	if (c->held < 0 || c->held > MAXSP || c->fear_src < 0 ||
	    c->fear_src > s->nc || c->cmd_by < 0 || c->cmd_by > s->nc ||
	    c->rebuked_by < 0 || c->rebuked_by > s->nc || c->cast_left < 0 ||
	    c->orig_side < 0 || c->orig_side >= s->nseats || c->rec < 0 ||
	    c->rec > MR_RECOVERING || c->rdy_slot < 0 ||
	    c->rdy_slot >= MAXSP || c->rdy_kind < RK_ATTACK ||
	    c->rdy_kind > RK_COUNTER)
		return 0;
	for (k = 0; k < 4; k++)
		if (c->tp_amt[k] < 0)
			return 0;
	for (k = 0; k < MAXSP; k++)
		if (c->d.sp[k].kind < MK_SPELL || c->d.sp[k].kind > MK_WAND)
			return 0;
	return s->resting >= 0 && s->resting <= 3;
}

/* View fields: visible ones for all, the hidden ones for the owner. */
void
mg_view(const struct st *s, int i, int own, refd_mpw *w)
{
	const struct cr *c = &s->c[i];

	refd_mpw_kbool(w, "rebuked", c->rebuked_by != 0);
	refd_mpw_kbool(w, "commanded", c->cmd_by != 0);
	if (own) {
		static const char *const kn[] = { "", "spell_like",
			"supernatural", "extraordinary", "scrolls", "wands" };
		int k, j;

		for (j = 1; j < 6; j++) {
			for (k = 0; k < MAXSP; k++)
				if (c->d.sp[k].kind == j)
					break;
			if (k == MAXSP)
				continue;
			refd_mpw_kmap(w, kn[j]);
			for (k = 0; k < MAXSP; k++)
				if (c->d.sp[k].kind == j)
					refd_mpw_kint(w, c->d.sp[k].name,
					    c->d.uses[k]);
			refd_mpw_end(w);
		}
		if (c->held)
			refd_mpw_kstr(w, "held_charge",
			    c->d.sp[c->held - 1].name);
		if (c->casting)
			refd_mpw_kint(w, "casting_rounds_left",
			    c->cast_left > 0 ? c->cast_left : 1);
	}
}

/* ---- readied moves and free actions (1.8, R001-45) ---- */

/*
 * The squares a readied move may end on: free, within speed, by the
 * cheapest path leaving no square an able enemy threatens (a readied
 * move interrupts another creature's action, so it provokes nothing:
 * it may not start or pass through threatened squares).  The creature
 * whose action triggered it (skip) is paused and ignored.  ok[y][x] set.
 */
static void
ready_squares(const struct st *s, int a, int skip, uint8_t ok[MAXM][MAXM])
{
	int16_t dist[MAXM][MAXM][2], prev[MAXM][MAXM][2];
	int px[MAXPATH], py[MAXPATH], x, y, n, i, e, cost, bad;
	struct st tmp;		/* a scratch copy to move the readier in */
	const struct cr *A = &s->c[a];

	memset(ok, 0, MAXM * MAXM);
	tmp = *s;
	reach_map(s, a, speed_of(A), 0, dist, prev);
	for (y = 0; y < s->h; y++)
		for (x = 0; x < s->w; x++) {
			if ((x == A->x && y == A->y) || !real_free(s, a, x, y))
				continue;
			n = reach_path(s, a, dist, prev, x, y, px, py, &cost);
			if (n < 2)
				continue;
			for (i = 0, bad = 0; i < n - 1 && !bad; i++) {
				tmp.c[a].x = px[i];
				tmp.c[a].y = py[i];
				for (e = 0; e < s->nc && !bad; e++)
					bad = s->c[e].side != A->side &&
					    e != skip &&
					    can_aoo(&tmp, e, a) &&
					    threatens(&tmp, e, a);
			}
			ok[y][x] = !bad;
		}
}

static int
ready_slot(const struct cr *A, const char *name)
{
	int k;

	for (k = 0; k < MAXSP; k++)
		if (A->d.sp[k].kind == MK_SPELL && A->d.uses[k] > 0 &&
		    strcmp(A->d.sp[k].name, name) == 0)
			return k;
	return -1;
}

/* A readied spell at the trigger m, or a counterspell against its
 * spell (1.8); the readied casting provokes nothing (it interrupts). */
static int
fire_spell(refd_ctx *ctx, struct st *s, int r, int m)
{
	struct cr *R = &s->c[r], *M = &s->c[m];
	refd_mpw *w;
	int rc, v, k, dc, ok;

	if (R->rdy_kind == RK_CAST) {
		const struct spell *sp = &R->d.sp[R->rdy_slot];
		int reach = sp->range == 0 ? (natreach(R) > 0 ?
		    natreach(R) : 0) : sp->range;

		if (R->d.uses[R->rdy_slot] < 1 || M->dead ||
		    cdist(R, M) > reach || !has_loe(s, r, m) ||
		    !perceives(s, r, m))
			return ev_who(ctx, s, "ready_fizzles", r);
		R->d.uses[R->rdy_slot]--;
		w = refd_mpw_create();
		refd_mpw_map(w);
		refd_mpw_kstr(w, "type", "cast");
		refd_mpw_kstr(w, "who", R->d.name);
		refd_mpw_kstr(w, "spell", sp->name);
		refd_mpw_kstr(w, "target", M->d.name);
		refd_mpw_end(w);
		if ((rc = emitw(ctx, s, w)) != REFD_OK)
			return rc;
		return spell_effect(ctx, s, r, m, sp);
	}
	/* Counterspell: Spellcraft DC 15 + level identifies the spell; the
	 * same spell, known with a cast left, counters it. */
	dc = 15 + M->d.sp[s->k.pen].level;
	if ((rc = roll(ctx, 20, "spellcraft", &v)) != REFD_OK)
		return rc;
	ok = v + R->d.spellcraft >= dc;
	k = ok ? ready_slot(R, M->d.sp[s->k.pen].name) : -1;
	w = refd_mpw_create();
	refd_mpw_map(w);
	refd_mpw_kstr(w, "type", "counterspell");
	refd_mpw_kstr(w, "who", R->d.name);
	refd_mpw_kstr(w, "target", M->d.name);
	refd_mpw_kint(w, "roll", v);
	refd_mpw_kint(w, "dc", dc);
	refd_mpw_kbool(w, "identified", ok);
	if (ok)
		refd_mpw_kstr(w, "spell", M->d.sp[s->k.pen].name);
	refd_mpw_kbool(w, "countered", k >= 0);
	refd_mpw_end(w);
	if (k >= 0) {
		R->d.uses[k]--;
		s->countered = 1;
	}
	return emitw(ctx, s, w);
}

int
mg_ready_check(const struct st *s, int a, const struct cmd *c,
    struct why *y)
{
	const struct cr *A = &s->c[a];
	uint8_t ok[MAXM][MAXM];

	if (c->ract == RK_DROP)
		return A->prone ? rej(y, REFD_EILLEGAL, "R001-45",
		    "%s is already prone", A->d.name) : REFD_OK;
	if (c->ract == RK_COUNTER) {
		int k;

		for (k = 0; k < MAXSP; k++)
			if (A->d.sp[k].kind == MK_SPELL && A->d.uses[k] > 0)
				break;
		if (k == MAXSP || c->trig != 1)
			return rej(y, REFD_EILLEGAL, "R001-45",
			    "a counterspell is readied for when the target "
			    "casts, by a creature with a spell to cast");
		return REFD_OK;
	}
	if (c->ract == RK_CAST) {
		int k = ready_slot(A, c->spell);
		const struct spell *sp;

		if (k < 0)
			return rej(y, REFD_ERESOURCE, "R001-45",
			    "%s has no cast of '%.30s' left", A->d.name,
			    c->spell);
		sp = &A->d.sp[k];
		if (sp->time != 0 && sp->time != 2)
			return rej(y, REFD_EILLEGAL, "R001-45",
			    "only a spell of one standard action or less can "
			    "be readied");
		if (sp->effect != 0 && sp->effect != 3)
			return rej(y, REFD_EILLEGAL, "R001-45",
			    "a readied spell is cast at the foe: '%s' does "
			    "not harm", sp->name);
		return mg_cast_check(s, a, c, sp, y);
	}
	if (!c->has_to || c->x < 0 || c->y < 0 || c->x >= s->w ||
	    c->y >= s->h)
		return rej(y, REFD_EBADCMD, "R001-45",
		    "a readied move needs \"to\": [x, y] on the map");
	if (A->prone || speed_of(A) < 1 || (A->cond & COND_PARALYSED))
		return rej(y, REFD_EILLEGAL, "R001-45",
		    "%s cannot move", A->d.name);
	ready_squares(s, a, -1, ok);
	if (!ok[c->y][c->x])
		return rej(y, REFD_ENOPATH, "R001-45",
		    "(%d,%d) is not a free square within %d squares reached "
		    "without leaving a threatened square", c->x, c->y,
		    speed_of(A));
	return REFD_OK;
}

void
mg_ready_set(struct cr *A, const struct cmd *c)
{
	A->rdy_slot = c->ract == RK_CAST ? ready_slot(A, c->spell) : 0;
	A->rdy_kind = c->ract;
	A->rdy_x = c->x;
	A->rdy_y = c->y;
}

/* The readied action the readier r had to be near m: within reach
 * (of an attack; of its natural reach, at least 1, for the others). */
int
mg_ready_near(const struct st *s, int r, int m, int px, int py)
{
	const struct cr *R = &s->c[r], *M = &s->c[m];
	int rr = natreach(R) > 0 ? natreach(R) : 1, n = space_n(M);

	return g_space_dist(R->x, R->y, space_n(R), M->x, M->y, n) <= rr &&
	    g_space_dist(R->x, R->y, space_n(R), px, py, n) > rr;
}

/* A readied move or free action fires (before the trigger). */
int
mg_fire(refd_ctx *ctx, struct st *s, int r)
{
	struct cr *R = &s->c[r];
	uint8_t ok[MAXM][MAXM];
	refd_mpw *w;

	if (R->rdy_kind == RK_DROP) {
		R->prone = 1;
		return ev_who(ctx, s, "drop_prone", r);
	}
	if (R->rdy_kind == RK_CAST || R->rdy_kind == RK_COUNTER)
		return fire_spell(ctx, s, r, s->k.who);
	ready_squares(s, r, s->k.who, ok);	/* its trigger is paused */
	w = refd_mpw_create();
	refd_mpw_map(w);
	refd_mpw_kstr(w, "type", "ready_move");
	refd_mpw_kstr(w, "who", R->d.name);
	refd_mpw_kbool(w, "moved", ok[R->rdy_y][R->rdy_x]);
	if (ok[R->rdy_y][R->rdy_x] && !R->d.invisible) {
		R->x = R->rdy_x;
		R->y = R->rdy_y;
		refd_mpw_karray(w, "to");
		refd_mpw_int(w, R->x);
		refd_mpw_int(w, R->y);
		refd_mpw_end(w);
	} else if (ok[R->rdy_y][R->rdy_x]) {
		R->x = R->rdy_x;	/* unseen: the square stays hidden */
		R->y = R->rdy_y;
	}
	refd_mpw_end(w);
	return emitw(ctx, s, w);
}

/* Legal readied moves and drops against target t, trigger trig. */
void
mg_legal_ready(const struct st *s, int seat, refd_mpw *w, int t,
    void (*put)(const struct st *, refd_mpw *, const struct cmd *,
    const char *), void (*blank)(struct cmd *, int))
{
	struct cmd c, cc;
	struct why y;
	uint8_t ok[MAXM][MAXM];
	int a = active(s), x, yy, trig, first = 1;
	char label[128];

	for (trig = 0; trig < 2; trig++) {
		int k;

		for (k = -1; k < MAXSP; k++) {
			blank(&c, C_READY);
			c.target = t;
			c.trig = trig;
			c.ract = k < 0 ? RK_COUNTER : RK_CAST;
			if (k >= 0)
				snprintf(c.spell, sizeof(c.spell), "%s",
				    s->c[a].d.sp[k].name);
			cc = c;
			if ((k >= 0 && (s->c[a].d.sp[k].kind != MK_SPELL ||
			    s->c[a].d.uses[k] < 1)) ||
			    cmd_check(s, seat, &cc, &y) != REFD_OK)
				continue;
			snprintf(label, sizeof(label), "Ready %s%s when %s %s",
			    k < 0 ? "a counterspell" : "to cast ",
			    k < 0 ? "" : c.spell, s->c[t].d.name,
			    trig ? "casts" : "comes near");
			put(s, w, &c, label);
		}
		blank(&c, C_READY);
		c.target = t;
		c.trig = trig;
		c.ract = RK_DROP;
		cc = c;
		if (cmd_check(s, seat, &cc, &y) == REFD_OK) {
			snprintf(label, sizeof(label), "Ready to drop prone when "
			    "%s %s", s->c[t].d.name, trig ? "casts" :
			    "comes near");
			put(s, w, &c, label);
		}
		c.ract = RK_MOVE;
		c.has_to = 1;
		c.x = s->c[a].x;
		c.y = s->c[a].y;
		cc = c;
		if (cmd_check(s, seat, &cc, &y) != REFD_OK &&
		    y.code != REFD_ENOPATH)
			continue;
		if (first)
			ready_squares(s, a, -1, ok);
		first = 0;
		for (yy = 0; yy < s->h; yy++)
			for (x = 0; x < s->w; x++) {
				if (!ok[yy][x])
					continue;
				c.x = x;
				c.y = yy;
				snprintf(label, sizeof(label), "Ready to move to "
				    "(%d,%d) when %s %s", x, yy,
				    s->c[t].d.name, trig ? "casts" :
				    "comes near");
				put(s, w, &c, label);
			}
	}
}
