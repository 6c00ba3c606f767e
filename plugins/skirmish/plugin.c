/*
 * plugin.c - the skirmish plugin: ABI ops, commands (parse, check,
 * execute, legal lists), views and state bytes.
 */
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "refd/board.h"
#include "rules.h"

const struct refd_host *H;

void begin_phases_pub(struct cx *x, struct state *s, int first);

static const char *const cmdname[C_NTYPES] = { "", "submit", "setup_first",
	"deploy", "first", "activate", "move", "melee", "shoot", "charge",
	"cast", "cast_cone", "end", "aoo", "decline", "cleave", "rush", "smite", "wake", "cast_area", "cast_line",
	"place_tile", "sidestep", "whirlwind", "turn_undead", "leap",
	"stunning_attack", "burrow", "death_attack", "hurling_charge",
	"summon", "push", "death_strike", "pull", "slide", "switch", "reroll",
	"block" };
static const char *const argname[C_NTYPES][6] = {
	{ NULL }, { NULL }, { "seat" }, { "x", "y" }, { "seat" }, { "unit" },
	{ "x", "y" }, { "target", "line" }, { "target", "line" },
	{ "target", "x", "y", "line" }, { "spell", "target" },
	{ "spell", "ox", "oy", "orient" }, { NULL }, { "unit", "line" },
	{ "unit" }, { "target" }, { "target" }, { "target", "line" }, { "target" },
	{ "spell", "target", "ox", "oy" },
	{ "spell", "target", "sx", "sy", "px", "py" },
	{ "tile", "x", "y", "rot" }, { "x", "y" }, { NULL }, { "target" },
	{ "target" }, { "target", "line" }, { NULL }, { "target", "line" },
	{ "target", "x", "y", "line" }, { "spell", "x", "y" }, { "x", "y" },
	{ "target", "line" }, { "x", "y" }, { "x", "y" },
	{ "spell", "target", "x", "y", "tx", "ty" }, { NULL }, { NULL }
};

static int
nargs(int t)
{
	int n = 0;

	while (n < 6 && argname[t][n] != NULL)
		n++;
	return n;
}

static void
cx_init(struct cx *x, refd_ctx *ctx, const void *content)
{
	memset(x, 0, sizeof(*x));
	x->ctx = ctx;
	x->c = content;
}

static int
put(refd_ctx *ctx, refd_mpw *w)
{
	return refd_mpw_output(H, ctx, w);
}

/* ---------------------------------------------------------------- */
/* Parsing */

static int
parse(const struct content *ct, const uint8_t *b, size_t len, struct cmd *c)
{
	refd_mpdoc *d = refd_mp_parse(b, len);
	refd_mpv root = refd_mp_root(d);
	int t, i;

	memset(c, 0, sizeof(*c));
	if (d == NULL || refd_mpv_type(root) != REFD_MP_MAP) {
		refd_mp_free(d);
		return -1;
	}
	for (t = 1; t < C_NTYPES; t++)
		if (refd_mpv_streq(refd_mpv_get(root, "type"), cmdname[t]))
			break;
	if (t == C_NTYPES) {
		refd_mp_free(d);
		return -1;
	}
	c->type = t;
	for (i = 0; i < nargs(t); i++) {
		int64_t v;

		if (refd_mpv_int(refd_mpv_get(root, argname[t][i]), &v) != 0 ||
		    v < -1000 || v > 1000) {
			refd_mp_free(d);
			return -1;
		}
		c->a[i] = (int32_t)v;
	}
	if (t == C_SUBMIT) {
		refd_mpv l = refd_mpv_get(root, "cards");

		if (refd_mpv_type(l) != REFD_MP_ARRAY ||
		    refd_mpv_len(l) > SK_WBMAX) {
			refd_mp_free(d);
			return -2;
		}
		for (i = 0; i < (int)refd_mpv_len(l); i++) {
			int k = sk_card_index(ct, refd_mpv_cstr(refd_mpv_at(l,
			    (size_t)i), ""));

			if (k < 0) {
				refd_mp_free(d);
				return -3;
			}
			c->cards[c->n++] = k;
		}
		l = refd_mpv_get(root, "tiles");
		if (refd_mpv_ok(l) && (refd_mpv_type(l) != REFD_MP_ARRAY ||
		    refd_mpv_len(l) > 4)) {
			refd_mp_free(d);
			return -2;
		}
		for (i = 0; i < (int)refd_mpv_len(l); i++) {
			int k = sk_tile_index(ct, refd_mpv_cstr(refd_mpv_at(l,
			    (size_t)i), ""));

			if (k < 0) {
				refd_mp_free(d);
				return -4;
			}
			c->tiles[c->nt++] = k;
		}
		c->cmd0 = refd_mpv_get_bool(root, "commander0", 0);
	}
	refd_mp_free(d);
	return 0;
}

static void
write_cmd(const struct content *ct, refd_mpw *w, const struct cmd *c)
{
	int i;

	refd_mpw_map(w);
	refd_mpw_kstr(w, "type", cmdname[c->type]);
	for (i = 0; i < nargs(c->type); i++)
		refd_mpw_kint(w, argname[c->type][i], c->a[i]);
	if (c->type == C_SUBMIT) {
		refd_mpw_karray(w, "cards");
		for (i = 0; i < c->n; i++)
			refd_mpw_str(w, ct->c[c->cards[i]].id);
		refd_mpw_end(w);
		if (c->cmd0)
			refd_mpw_kbool(w, "commander0", 1);
		if (c->nt > 0) {
			refd_mpw_karray(w, "tiles");
			for (i = 0; i < c->nt; i++)
				refd_mpw_str(w, ct->t[c->tiles[i]].id);
			refd_mpw_end(w);
		}
	}
	refd_mpw_end(w);
}

/* ---------------------------------------------------------------- */
/* Checking */

struct why {
	int code;
	const char *rule;
	char msg[200];
};

#define NO(c, r, ...) do { \
	if (y != NULL) { \
		y->code = (c); \
		y->rule = (r); \
		snprintf(y->msg, sizeof(y->msg), __VA_ARGS__); \
	} \
	return (c); \
} while (0)

uint64_t
sk_pending(const struct state *s)
{
	switch (s->stage) {
	case ST_OVER:
		return 0;
	case ST_SUBMIT: {
		uint64_t m = 0;
		int q;

		for (q = 0; q < s->nseats; q++)
			m |= (uint64_t)(!s->submitted[q]) << q;
		return m;
	}
	default:
		break;
	}
	if (s->dec != DEC_NONE)
		return (uint64_t)1 << s->u[s->dec_unit].seat;
	switch (s->stage) {
	case ST_SETUPCHOICE:
	case ST_FIRST:
		return (uint64_t)1 << s->chooser;
	case ST_DEPLOY:
		return (uint64_t)1 << s->deploy_seat;
	case ST_TILES:
		return (uint64_t)1 << s->place_seat;
	case ST_ACTIVATE:
		return (uint64_t)1 << s->phase_seat;
	case ST_TURN:
		return (uint64_t)1 << s->u[s->cur].seat;
	default:
		return 0;
	}
}

static int
next_deploy(const struct state *s, int seat)
{
	int i;

	for (i = 0; i < s->nu; i++)
		if (s->u[i].seat == seat && !s->u[i].deployed)
			return i;
	return -1;
}

static int
unit_ok(const struct state *s, int u)
{
	return u >= 0 && u < s->nu;
}

/* Can the active creature still take any legal step? */
static int check(const struct cx *x, const struct state *s, int seat,
    const struct cmd *c, struct why *y);

static int
can_step(const struct cx *x, const struct state *s, int seat)
{
	struct cmd c;
	int dx, dy;

	memset(&c, 0, sizeof(c));
	c.type = C_MOVE;
	for (dx = -1; dx <= 1; dx++)
		for (dy = -1; dy <= 1; dy++) {
			c.a[0] = s->u[s->cur].x + dx;
			c.a[1] = s->u[s->cur].y + dy;
			if ((dx || dy) && check(x, s, seat, &c, NULL) == 0)
				return 1;
		}
	return 0;
}

/* The kind bit of an attack command: 1 melee, 2 ranged, 4 spell. */
static int
kind_of(int type)
{
	switch (type) {
	case C_SHOOT:
		return 2;
	case C_CAST:
	case C_CAST_CONE:
	case C_CAST_AREA:
	case C_CAST_LINE:
	case C_SWITCH:
		return 4;
	case C_MELEE:
	case C_SMITE:
	case C_STUNATK:
	case C_DEATHATK:
		return 1;
	default:
		return 0;
	}
}

/* Glossary, Simultaneous Attack (R000-98): a creature that does not move
 * may use every kind its card combines in one turn, one after another
 * (each kind once: a full attack, one spell). */
static int
simul_ok(const struct cx *x, const struct state *s, int type)
{
	int k = kind_of(type), sim = CARD(x, s, s->cur)->simul;

	return k != 0 && (sim & k) && (sim & s->kinds) == s->kinds &&
	    !(k == 4 && (s->kinds & 4)) &&
	    s->steps == 0 && s->moved == 0 && s->moved2 == 0 && !s->rush &&
	    !s->charged && !s->sidestepped;
}

static int
turn_check(const struct cx *x, const struct state *s, const struct cmd *c,
    struct why *y)
{
	int u = s->cur, t, slow, par, cost, budget, d, n;
	const struct card *C = CARD(x, s, u);
	char msg[160];

	if (s->compel && s->natk == 0 && !s->rush &&
	    (c->type == C_MOVE || c->type == C_END || c->type == C_WAKE))
		NO(REFD_EILLEGAL, "R000-23", "%s is Difficult and out of command: "
		    "it must attack, shoot or rush", C->name);
	if (c->type == C_END) {
		if (s->rush && s->natk == 0 && s->moved <= C->speed &&
		    functional(s, u) && s->u[s->rush_t].on &&
		    adjacent(x, s, u, s->rush_t))
			NO(REFD_EILLEGAL, "R000-21", "%s rushed no farther than "
			    "its speed: it must attack %s", C->name,
			    CARD(x, s, s->rush_t)->name);
		if (!end_ok(x, s, u, s->u[u].x, s->u[u].y) &&
		    functional(s, u) && can_step(x, s, s->u[u].seat))
			NO(REFD_EILLEGAL, "R000-32", "%s may not end its move "
			    "on an occupied or statue square: move on",
			    C->name);
		return 0;
	}
	if (!functional(s, u))
		NO(REFD_EILLEGAL, "R000-79", "%s is %s and takes no action "
		    "this turn", C->name, s->u[u].stunned ? "stunned" :
		    "helpless");
	if (s->no_action)
		NO(REFD_EILLEGAL, "R000-79", "%s skips this turn", C->name);
	if (s->ent_block && (c->type == C_MOVE || c->type == C_CHARGE ||
	    c->type == C_RUSH))
		NO(REFD_EILLEGAL, "R000-79", "%s is entangled: no movement "
		    "this turn", C->name);
	if (c->type == C_CAST && c->a[0] >= 0 && c->a[0] < C->nspell &&
	    C->sp[c->a[0]].swift) {
		/* §4.5 (R000-95): a swift action, once in its own turn at any
		 * time, not an action: it replaces nothing */
		if (s->swift_used)
			NO(REFD_EILLEGAL, "R000-95", "%s already took its swift "
			    "action this turn", C->name);
		if (s->u[u].spent[c->a[0]] >= C->sp[c->a[0]].uses)
			NO(REFD_ERESOURCE, "R000-71", "%s has no use of %s left",
			    C->name, C->sp[c->a[0]].name);
		if (spell_targets(x, s, u, c->a[0], c->a[1], msg,
		    sizeof(msg)) != 0)
			NO(REFD_ENOTARGET, "R000-72", "%s", msg);
		return 0;
	}
	if (s->charged) {
		int t2 = c->a[0], l2 = c->a[1];

		if (c->type == C_MELEE && has(x, s, u, AB_POUNCE) &&
		    t2 == s->rush_t && l2 >= 0 && l2 < C->nmelee &&
		    !(s->lines_used >> l2 & 1) && s->u[t2].on &&
		    adjacent(x, s, u, t2))
			return 0;	/* Pounce: every melee line, +2 */
		NO(REFD_EILLEGAL, "R000-26", "%s charged: its turn is over "
		    "(send end)", C->name);
	}
	if (s->single)
		NO(REFD_EILLEGAL, "R000-34", "%s spent its turn on a one-square "
		    "step (send end)", C->name);
	switch (c->type) {
	case C_MOVE:
	case C_SIDESTEP:
		if (s->sidestepped)
			NO(REFD_EILLEGAL, "R000-98", "%s sidestepped: no more "
			    "movement this turn", C->name);
		if (s->natk > 0 && ((s->atk_kind == 0 &&
		    (C->abil2 & A2_SLOWMELEE)) || (s->atk_kind == 1 &&
		    (C->abil2 & A2_SLOWRANGED))))
			NO(REFD_EILLEGAL, "R000-98", "%s attacked: its slow "
			    "attack forbids moving this turn", C->name);
		if (s->natk > 0 && s->moved > 0 && !(C->abil2 & A2_SPRING))
			NO(REFD_EILLEGAL, "R000-27", "%s moved and then "
			    "attacked: no more movement this turn", C->name);
		if ((s->kinds & (s->kinds - 1)) != 0)
			NO(REFD_EILLEGAL, "R000-98", "%s made a Simultaneous "
			    "Attack: no movement this turn", C->name);
		if (c->type == C_SIDESTEP) {
			if (!(C->abil2 & A2_SIDESTEP) || s->steps > 0 ||
			    s->rush || (s->natk > 0 && !s->atk_first) ||
			    s->cast)
				NO(REFD_EILLEGAL, "R000-98", "Sidestep: a single "
				    "1-square move before or after all attacks");
			slow = step_slow(x, s, u, s->u[u].x, s->u[u].y,
			    c->a[0], c->a[1], MV_NORMAL);
			if (slow != 0 || !end_ok(x, s, u, c->a[0], c->a[1]))
				NO(REFD_ENOPATH, "R000-98", "Sidestep: one free, "
				    "unslowed square to end on");
			return 0;
		}
		slow = step_slow(x, s, u, s->u[u].x, s->u[u].y, c->a[0],
		    c->a[1], MV_NORMAL);
		if (slow < 0)
			NO(REFD_ENOPATH, "R000-31", "%s cannot step from (%d,%d) "
			    "to (%d,%d): not a neighbour, a wall, a corner, "
			    "an enemy or off the grid", C->name,
			    (int)s->u[u].x, (int)s->u[u].y, (int)c->a[0],
			    (int)c->a[1]);
		par = s->parity;
		cost = grid_step_cost(c->a[0] - s->u[u].x, c->a[1] - s->u[u].y,
		    slow, &par);
		budget = s->natk > 0 ? s->speed - s->moved2 :
		    2 * s->speed - s->moved;
		if (s->natk > 0 && s->moved > 0)	/* Spring Attack */
			budget = s->speed - s->moved - s->moved2;
		if (s->rush) {
			budget = 2 * C->speed - s->moved;
			if (cost > budget)
				NO(REFD_ENOPATH, "R000-21", "a rush moves at most "
				    "twice the printed speed (%d left)", budget);
			if (!rush_step_ok(x, s, u, c->a[0], c->a[1],
			    budget - cost))
				NO(REFD_ENOPATH, "R000-21", "after that step %s "
				    "could no longer end its rush next to %s",
				    C->name, CARD(x, s, s->rush_t)->name);
			return 0;
		}
		if (cost > budget && !(s->steps == 0 && s->natk == 0))
			NO(REFD_ENOPATH, s->oocmd ? "R000-20" : "R000-29",
			    "that step costs %d and %s has %d movement left%s",
			    cost, C->name, budget, s->oocmd ?
			    " (out of command: speed 2)" : "");
		if (slow > 0 && !has(x, s, u, AB_FLIGHT | AB_INCORP) &&
		    s->u[u].hp <= 5) {
			int i, j, sharp = 0;
			struct grid g;

			sk_grid(x, s, &g);
			for (i = 0; i < C->size; i++)
				for (j = 0; j < C->size; j++)
					sharp |= (grid_at(&g, c->a[0] + i,
					    c->a[1] + j) & GRID_SHARP) != 0;
			if (sharp)
				NO(REFD_EILLEGAL, "R000-83", "sharp rocks would "
				    "destroy %s", C->name);
		}
		return 0;
	case C_WHIRLWIND:
	case C_TURN:
	case C_SUMMON:
		if (c->type == C_TURN || c->type == C_WHIRLWIND ||
		    c->type == C_SUMMON)
			goto attackish;
		/* FALLTHROUGH */
	case C_WAKE:
		if (!unit_ok(s, c->a[0]) || !s->u[c->a[0]].on ||
		    !s->u[c->a[0]].asleep || !adjacent(x, s, u, c->a[0]))
			NO(REFD_ENOTARGET, "R000-79", "waking needs an adjacent "
			    "sleeping creature");
		/* FALLTHROUGH */
	case C_DEATHATK:
		if (c->type == C_DEATHATK && (C->death_attack <= 0 ||
		    C->sneak <= 0))
			NO(REFD_EILLEGAL, "R000-98", "%s has no Death Attack",
			    C->name);
		/* FALLTHROUGH */
	case C_STUNATK:
		if (c->type == C_STUNATK && (C->stun_dc <= 0 ||
		    s->u[u].stun_spent >= C->stun_uses ||
		    s->stun_turn2 == s->turnid))
			NO(REFD_ERESOURCE, "R000-98", "%s has no Stunning Attack "
			    "left this turn", C->name);
		/* FALLTHROUGH */
	case C_LEAP:
		if (c->type == C_LEAP && C->leap <= 0)
			NO(REFD_EILLEGAL, "R000-98", "%s cannot Leap", C->name);
		/* FALLTHROUGH */
	case C_SMITE:
		if (c->type == C_SMITE && (C->smite_val <= 0 ||
		    s->u[u].smite_spent >= C->smite_uses))
			NO(REFD_ERESOURCE, "R000-78", "%s has no Smite use left",
			    C->name);
		if (c->type == C_SMITE && unit_ok(s, c->a[0]) &&
		    s->u[c->a[0]].on && !smite_applies(x, s, u, c->a[0]))
			NO(REFD_ENOTARGET, "R000-92", "%s is not of the kind "
			    "%s smites", CARD(x, s, c->a[0])->name, C->name);
		/* FALLTHROUGH */
	case C_MELEE:
	case C_SHOOT:
	case C_CAST:
	case C_CAST_CONE:
	case C_CAST_AREA:
	case C_CAST_LINE:
	case C_SWITCH:
	attackish:
		if (s->cast && !simul_ok(x, s, c->type))
			NO(REFD_EILLEGAL, "R000-71", "%s already cast its spell "
			    "instead of attacking", C->name);
		if (s->rush && c->type != C_MELEE && c->type != C_SMITE &&
		    c->type != C_STUNATK && c->type != C_LEAP &&
		    c->type != C_DEATHATK)
			NO(REFD_EILLEGAL, "R000-21", "a rushing creature may "
			    "only attack the enemy it rushed, in melee");
		if (s->natk == 0 && s->moved > s->speed && !s->rush)
			NO(REFD_EILLEGAL, "R000-27", "%s moved %d, more than "
			    "its speed %d: no attack after moving twice",
			    C->name, (int)s->moved, (int)s->speed);
		if (s->natk > 0 && (s->moved > 0 || s->moved2 > 0))
			NO(REFD_EILLEGAL, "R000-27", "a creature that moves "
			    "makes at most one attack");
		if (s->natk > 0 && s->slowed1)
			NO(REFD_EILLEGAL, "R000-98", "%s is slowed: one attack "
			    "this turn", C->name);
		if ((c->type == C_MELEE || c->type == C_SMITE ||
		    c->type == C_STUNATK || c->type == C_LEAP) &&
		    (C->abil2 & A2_SLOWMELEE) && s->moved + s->moved2 > 0)
			NO(REFD_EILLEGAL, "R000-98", "%s moved: Slow Melee "
			    "Attack", C->name);
		if (c->type == C_SHOOT && (C->abil2 & A2_SLOWRANGED) &&
		    s->moved + s->moved2 > 0)
			NO(REFD_EILLEGAL, "R000-98", "%s moved: Slow Ranged "
			    "Attack", C->name);
		if (c->type == C_LEAP && s->natk > 0)
			NO(REFD_EILLEGAL, "R000-98", "Leap replaces the attacks");
		if (s->natk > 0 && s->sidestepped == 2)
			NO(REFD_EILLEGAL, "R000-98", "Sidestep: no attack after "
			    "attacking and sidestepping");
		break;
	case C_BURROW:
		break;
	case C_RUSH:
		if (s->natk > 0 || s->steps > 0 || s->cast || s->rush)
			NO(REFD_EILLEGAL, "R000-21", "a rush starts the turn: no "
			    "move or attack before it");
		if (!s->oocmd)
			NO(REFD_EILLEGAL, "R000-21", "only a creature out of "
			    "command may rush");
		{
			int t2 = c->a[0], best, ct;

			if (!unit_ok(s, t2) || !s->u[t2].on ||
			    !foe(s, t2, u) || !sees(x, s, u, t2))
				NO(REFD_ENOTARGET, "R000-21", "a rush goes toward "
				    "an enemy %s can see", C->name);
			ct = rush_cost(x, s, u, t2, &best);
			if (ct < 0 || ct != best)
				NO(REFD_ENOTARGET, "R000-21", "%s is not the "
				    "nearest enemy %s can see (path cost %d, "
				    "nearest %d)", CARD(x, s, t2)->name, C->name,
				    ct, best);
			if (ct > 2 * C->speed)
				NO(REFD_ERANGE, "R000-21", "%s cannot reach %s "
				    "this turn (cost %d, rush %d)", C->name,
				    CARD(x, s, t2)->name, ct, 2 * (int)C->speed);
		}
		return 0;
	case C_HURL:
		if (!(C->abil2 & A2_HURL) || C->nranged == 0)
			NO(REFD_EILLEGAL, "R000-39", "%s has no Hurling Charge",
			    C->name);
		/* FALLTHROUGH */
	case C_CHARGE:
		if (s->burrowing)
			NO(REFD_EILLEGAL, "R000-37", "a burrowing creature cannot "
			    "charge");
		if (s->natk > 0 || s->steps > 0 || s->cast)
			NO(REFD_EILLEGAL, "R000-38", "a charge is the whole "
			    "turn: no move or attack before it");
		break;
	default:
		break;
	}
	if (c->type == C_SUMMON) {
		const struct spell *sp;
		int k, sz, i2, j2;
		struct grid_space a = SP(x, s, u), b;

		if (c->a[0] < 0 || c->a[0] >= C->nspell ||
		    C->sp[c->a[0]].summon < 0)
			NO(REFD_EBADCMD, "R000-93", "%s has no summoning spell "
			    "%d", C->name, (int)c->a[0]);
		sp = &C->sp[c->a[0]];
		if (s->rtp)
			NO(REFD_EILLEGAL, "R000-91", "no summoning in "
			    "Ready-to-Play");
		if (s->u[u].spent[c->a[0]] >= sp->uses)
			NO(REFD_ERESOURCE, "R000-71", "%s has no use of %s left",
			    C->name, sp->name);
		if (threatened(x, s, u))
			NO(REFD_EILLEGAL, "R000-41", "%s is threatened: only "
			    "touch spells", C->name);
		if (s->nu >= SK_MAXU)
			NO(REFD_ELIMIT, "R000-93", "no room for more creatures");
		k = sp->summon;
		sz = x->c->c[k].size;
		b.x = c->a[1];
		b.y = c->a[2];
		b.s = sz;
		if (b.x < 0 || b.y < 0 || b.x + sz > MAP(x, s)->w ||
		    b.y + sz > MAP(x, s)->h || grid_space_dist(&a, &b) > 6)
			NO(REFD_ERANGE, "R000-93", "a summoned creature appears "
			    "within 6 squares of its summoner");
		{
			struct grid g;

			sk_grid(x, s, &g);
			for (i2 = 0; i2 < sz; i2++)
				for (j2 = 0; j2 < sz; j2++)
					if ((grid_at(&g, b.x + i2, b.y + j2) &
					    (GRID_WALL | GRID_STATUE | GRID_PIT)) ||
					    occupant(x, s, b.x + i2, b.y + j2,
					    -1) >= 0)
						NO(REFD_EILLEGAL, "R000-93", "the "
						    "summoned creature needs free "
						    "squares");
		}
		return 0;
	}
	if (c->type == C_BURROW) {
		if (C->burrow <= 0 || s->steps > 0 || s->natk > 0 || s->rush ||
		    s->burrowing || s->sidestepped)
			NO(REFD_EILLEGAL, "R000-37", "Burrow: declared before any "
			    "movement or attack");
		return 0;
	}
	if (c->type == C_WHIRLWIND) {
		if (!(C->abil2 & A2_WHIRLWIND) || s->natk > 0 || s->steps > 1 ||
		    s->cast || s->rush)
			NO(REFD_EILLEGAL, "R000-98", "Whirlwind Attack: no attack "
			    "yet and at most 1 square moved");
		return 0;
	}
	if (c->type == C_TURN) {
		if (C->turn_undead <= 0 || s->natk > 0 || s->cast || s->rush)
			NO(REFD_EILLEGAL, "R000-98", "Turn Undead replaces the "
			    "attack");
		if (!turn_target_ok(x, s, u, c->a[0]))
			NO(REFD_ENOTARGET, "R000-98", "Turn Undead targets the "
			    "nearest undead of level <= %d within 12 squares in "
			    "sight", (int)C->turn_undead);
		return 0;
	}
	if (c->type == C_WAKE) {
		if (s->natk > 0)
			NO(REFD_EILLEGAL, "R000-79", "waking a sleeper replaces "
			    "the attack: %s already attacked", C->name);
		return 0;
	}
	if (c->type == C_CAST || c->type == C_CAST_CONE ||
	    c->type == C_CAST_AREA || c->type == C_CAST_LINE ||
	    c->type == C_SWITCH) {
		const struct spell *sp;
		int want;

		if (s->natk > 0 && !simul_ok(x, s, c->type))
			NO(REFD_EILLEGAL, "R000-71", "a spell replaces the "
			    "attack: %s already attacked", C->name);
		if (c->a[0] < 0 || c->a[0] >= C->nspell)
			NO(REFD_ENOTARGET, "R000-71", "%s has no spell %d",
			    C->name, (int)c->a[0]);
		sp = &C->sp[c->a[0]];
		if (C->pp > 0 && sp->pp > 0) {
			if (s->u[u].pp_spent + sp->pp > C->pp)
				NO(REFD_ERESOURCE, "R000-71", "%s has %d power "
				    "points left, %s costs %d", C->name,
				    (int)(C->pp - s->u[u].pp_spent), sp->name,
				    (int)sp->pp);
		} else if (sp->level > 0) {
			int lv;

			for (lv = sp->level; lv < 10; lv++)
				if (C->sorc[lv] > s->u[u].sorc_spent[lv])
					break;
			if (lv == 10)
				NO(REFD_ERESOURCE, "R000-71", "%s has no free "
				    "spell box of level %d or higher", C->name,
				    (int)sp->level);
		} else if (s->u[u].spent[c->a[0]] >= sp->uses)
			NO(REFD_ERESOURCE, "R000-71", "%s has no use of %s left",
			    C->name, sp->name);
		want = sp->sw ? C_SWITCH : sp->range == SR_CONE ? C_CAST_CONE :
		    sp->range == SR_LINE ?
		    C_CAST_LINE : sp->range == SR_RADIUS2 ||
		    sp->range == SR_RADIUS4 ? C_CAST_AREA : C_CAST;
		if (c->type != want)
			NO(REFD_EBADCMD, "R000-73", "%s: use %s", sp->name,
			    cmdname[want]);
		if (sp->gaze && s->u[u].invisible)
			NO(REFD_EILLEGAL, "R000-98", "an invisible gazer cannot use "
			    "its Gaze Attack");
		if (sp->range != SR_TOUCH && !sp->ability && threatened(x, s, u))
			NO(REFD_EILLEGAL, "R000-41", "%s is threatened: only "
			    "touch spells", C->name);
		if (c->type == C_CAST || c->type == C_SWITCH) {
			if (spell_targets(x, s, u, c->a[0], c->a[1], msg,
			    sizeof(msg)) != 0)
				NO(REFD_ENOTARGET, "R000-72", "%s", msg);
			if (c->type == C_SWITCH && !switch_ok(x, s, u, c->a[1],
			    c->a[2], c->a[3], c->a[4], c->a[5]))
				NO(REFD_EILLEGAL, "R000-94", "%s: %s to (%d,%d) "
				    "and %s to (%d,%d) is no legal switch of "
				    "positions (same size: swap; else the larger "
				    "covers the smaller's space, the smaller "
				    "lands inside the larger's, on free squares)",
				    sp->name, C->name, (int)c->a[2],
				    (int)c->a[3], CARD(x, s, c->a[1])->name,
				    (int)c->a[4], (int)c->a[5]);
		} else if (c->type != C_CAST_CONE) {
			if (area_ok(x, s, u, c->a, c->type == C_CAST_LINE, msg,
			    sizeof(msg)) != 0)
				NO(REFD_ENOTARGET, "R000-74", "%s", msg);
		} else if (cone_ok(x, s, u, c->a[0], c->a[1], c->a[2],
		    c->a[3], msg, sizeof(msg)) != 0) {
			NO(REFD_ENOTARGET, "R000-74", "%s", msg);
		}
		return 0;
	}
	t = c->a[0];
	if (!unit_ok(s, t) || !s->u[t].on)
		NO(REFD_ENOTARGET, "R000-45", "no creature %d on the grid",
		    (int)t);
	if (!foe(s, t, u))
		NO(REFD_ENOTARGET, "R000-45", "%s is an ally: never attack "
		    "allies", CARD(x, s, t)->name);
	if (c->type == C_MELEE || c->type == C_CHARGE || c->type == C_SMITE ||
	    c->type == C_STUNATK || c->type == C_LEAP ||
	    c->type == C_DEATHATK || c->type == C_HURL) {
		int line = c->type == C_CHARGE || c->type == C_HURL ? c->a[3] :
		    c->type == C_LEAP ? 0 : c->a[1];

		if (line < 0 || line >= C->nmelee)
			NO(REFD_EBADCMD, "R000-27", "%s has melee lines 0..%d",
			    C->name, (int)C->nmelee - 1);
		if (s->natk > 0 && ((s->atk_kind != 0 &&
		    !simul_ok(x, s, c->type)) || (s->lines_used >> line & 1)))
			NO(REFD_EILLEGAL, "R000-28", "a full attack uses each "
			    "listed attack once, all of the same kind");
		if ((c->type == C_SMITE || c->type == C_STUNATK ||
		    c->type == C_LEAP || c->type == C_DEATHATK) && s->rush &&
		    t != s->rush_t)
			NO(REFD_ENOTARGET, "R000-21", "a rushing creature "
			    "attacks the enemy it rushed");
		if (c->type == C_MELEE && s->rush) {
			if (t != s->rush_t)
				NO(REFD_ENOTARGET, "R000-21", "a rushing creature "
				    "attacks the enemy it rushed, %s",
				    CARD(x, s, s->rush_t)->name);
			if (s->moved > C->speed && !rush_charge_ok(x, s, u, t))
				NO(REFD_EILLEGAL, "R000-21", "%s rushed farther "
				    "than its speed and its move was no charge: "
				    "no attack", C->name);
		}
		if (c->type == C_MELEE || c->type == C_SMITE ||
		    c->type == C_STUNATK || c->type == C_LEAP ||
		    c->type == C_DEATHATK) {
			struct grid_space a = SP(x, s, u), b = SP(x, s, t);

			if (!adjacent(x, s, u, t) && !(C->reach > 1 &&
			    grid_space_dist(&a, &b) <= C->reach &&
			    sees(x, s, u, t)))
				NO(REFD_ERANGE, "R000-45", "%s is not adjacent "
				    "to %s%s", CARD(x, s, t)->name, C->name,
				    C->reach > 1 ? " nor within its reach in "
				    "sight" : "");
			return 0;
		}
		if (charge_check(x, s, u, t, c->a[1], c->a[2], NULL, msg,
		    sizeof(msg)) != 0)
			NO(REFD_EILLEGAL, "R000-38", "%s", msg);
		return 0;
	}
	/* C_SHOOT */
	if (c->a[1] < 0 || c->a[1] >= C->nranged)
		NO(REFD_EBADCMD, "R000-52", "%s has %s", C->name,
		    C->nranged ? "fewer ranged attacks" : "no ranged attack");
	if (s->natk > 0 && ((s->atk_kind != 1 && !simul_ok(x, s, C_SHOOT)) ||
	    (s->lines_used >> (c->a[1] + 8) & 1)))
		NO(REFD_EILLEGAL, "R000-28", "a full attack uses each listed "
		    "attack once, all of the same kind");
	if (threatened(x, s, u))
		NO(REFD_EILLEGAL, "R000-41", "%s is threatened by an enemy "
		    "that sees it: no ranged attack", C->name);
	if (!sees(x, s, u, t))
		NO(REFD_ENOTARGET, "R000-52", "%s cannot see %s", C->name,
		    CARD(x, s, t)->name);
	{
		struct grid_space a = SP(x, s, u), b = SP(x, s, t);

		d = grid_space_dist(&a, &b);
	}
	if (C->range > 0 && d > C->range)
		NO(REFD_ERANGE, "R000-53", "%s is %d squares away, beyond range "
		    "%d", CARD(x, s, t)->name, d, (int)C->range);
	n = nearest_ranged(x, s, u, 1, 0);
	if (d != n) {
		int e;

		for (e = 0; e < s->nu; e++) {
			struct grid_space a = SP(x, s, u), b = SP(x, s, e);

			if (s->u[e].on && foe(s, e, u) &&
			    sees(x, s, u, e) && grid_space_dist(&a, &b) == n)
				break;
		}
		NO(REFD_ENOTARGET, "R000-52", "%s at (%d,%d) is not the nearest "
		    "visible enemy: %s at (%d,%d) is", CARD(x, s, t)->name,
		    (int)s->u[t].x, (int)s->u[t].y, e < s->nu ?
		    CARD(x, s, e)->name : "?", e < s->nu ? (int)s->u[e].x : 0,
		    e < s->nu ? (int)s->u[e].y : 0);
	}
	return 0;
}

static int
check(const struct cx *x, const struct state *s, int seat,
    const struct cmd *c, struct why *y)
{
	char msg[160];
	const char *rule;

	if (s->stage == ST_OVER)
		NO(REFD_EFINISHED, NULL, "the skirmish is over");
	if (!((sk_pending(s) >> seat) & 1))
		NO(REFD_ENOTYOURTURN, "R000-15", "seat %d owes no decision now",
		    seat);
	if (s->dec != DEC_NONE) {
		int t = s->dec_unit;

		if (c->type == C_DECLINE && c->a[0] == t)
			return 0;
		if (s->dec == DEC_AOO && c->type == C_AOO && c->a[0] == t) {
			if (c->a[1] < 0 || c->a[1] >= CARD(x, s, t)->nmelee)
				NO(REFD_EBADCMD, "R000-42", "%s has melee lines "
				    "0..%d", CARD(x, s, t)->name,
				    (int)CARD(x, s, t)->nmelee - 1);
			return 0;
		}
		if (s->dec == DEC_DSTRIKE && c->type == C_STRIKE) {
			int e = c->a[0];

			if (!unit_ok(s, e) || !s->u[e].on ||
			    !foe(s, e, t) || !adjacent(x, s, t, e) ||
			    c->a[1] < 0 || c->a[1] >= CARD(x, s, t)->nmelee)
				NO(REFD_ENOTARGET, "R000-59", "Death Strike: one "
				    "melee attack on an adjacent enemy");
			return 0;
		}
		if (s->dec == DEC_PUSH && c->type == (s->dec_mode == 0 ?
		    C_PUSH : s->dec_mode == 1 ? C_PULL : C_SLIDE)) {
			if (!push_ok(x, s, t, s->dec_target, c->a[0], c->a[1],
			    s->dec_mode))
				NO(REFD_ENOPATH, "R000-94", "%s: one square %s, "
				    "onto free squares, no wall crossed",
				    s->dec_mode == 0 ? "Pushback" : s->dec_mode
				    == 1 ? "Pull" : "Slide", s->dec_mode == 0 ?
				    "farther away" : s->dec_mode == 1 ? "closer" :
				    "in any direction");
			return 0;
		}
		if ((s->dec == DEC_REROLL && c->type == C_REROLL) ||
		    (s->dec == DEC_IMMED && c->type == C_BLOCK))
			return 0;
		if (s->dec == DEC_CLEAVE && c->type == C_CLEAVE) {
			int e = c->a[0];

			if (!unit_ok(s, e) || !s->u[e].on ||
			    !foe(s, e, t) || !adjacent(x, s, t, e))
				NO(REFD_ENOTARGET, "R000-98", "Cleave: the extra "
				    "attack goes to another adjacent enemy");
			return 0;
		}
		NO(REFD_EPHASE, s->dec == DEC_AOO ? "R000-42" : "R000-98",
		    "%s must first decide on %s with unit %d (aoo, cleave, "
		    "push, pull, slide, reroll, block or decline)", seat == 0 ?
		    "seat 0" :
		    seat == 1 ? "seat 1" : seat == 2 ? "seat 2" : "seat 3",
		    s->dec == DEC_AOO ? "an attack of opportunity" :
		    s->dec == DEC_PUSH ? "a forced move" : s->dec == DEC_REROLL ?
		    "a reroll" : s->dec == DEC_IMMED ? "a Shield Block" : s->dec == DEC_DSTRIKE ? "a Death Strike" :
		    "a Cleave attack",
		    (int)t);
	}
	switch (s->stage) {
	case ST_SUBMIT:
		if (c->type != C_SUBMIT)
			NO(REFD_EPHASE, "R000-07", "submit your warband first");
		if (sk_warband_check(x->c, s, c->cards, c->n, msg, sizeof(msg),
		    &rule) != 0)
			NO(REFD_EBUILD, rule, "%s", msg);
		if (c->cmd0) {
			int i2, cheap = -1;

			if (!s->rtp)
				NO(REFD_EBUILD, "R000-91", "the commander-0 rule "
				    "is for Ready-to-Play games");
			for (i2 = 0; i2 < c->n; i2++)
				if (x->c->c[c->cards[i2]].commander >= 0)
					NO(REFD_EBUILD, "R000-91", "the warband has "
					    "a commander already");
			for (i2 = 0; i2 < c->n; i2++) {
				const struct card *k = &x->c->c[c->cards[i2]];

				if (!k->difficult && !(k->abil & AB_WILD))
					cheap = i2;
			}
			if (cheap < 0)
				NO(REFD_EBUILD, "R000-91", "every creature is "
				    "Difficult or Wild: no commander 0");
		}
		if (!s->tiled && c->nt > 0)
			NO(REFD_EBUILD, "R000-06", "this map has fixed terrain: "
			    "submit no tiles");
		if (s->tiled) {
			int i2, j2, px, py, rot;

			int nt = s->nseats > 2 ? 3 : 4;

			for (i2 = 1; i2 < c->nt; i2++)
				if (!x->c->t[c->tiles[i2]].feature)
					break;
			if (c->nt != nt || x->c->t[c->tiles[0]].feature ||
			    i2 < c->nt)
				NO(REFD_EBUILD, "R000-06", "bring %d tiles: 1 "
				    "assembly tile then %d terrain-feature tiles",
				    nt, nt - 1);
			for (i2 = 0; i2 < nt; i2++)
				for (j2 = 0; j2 < i2; j2++)
					if (c->tiles[i2] == c->tiles[j2])
						NO(REFD_EBUILD, "R000-06", "your "
						    "4 tiles must all differ");
			if (assembly_fit(x->c, MAP(x, s), s->zmap[seat],
			    c->tiles[0],
			    &px, &py, &rot) != 0)
				NO(REFD_EBUILD, "R000-09", "%s cannot lie with its "
				    "exits on your start zone's %d exits (and no "
				    "other exit on the grid edge)",
				    x->c->t[c->tiles[0]].id,
				    (int)MAP(x, s)->nexits[s->zmap[seat]]);
		}
		return 0;
	case ST_TILES:
		if (c->type != C_PLACE)
			NO(REFD_EPHASE, "R000-10", "place one of your terrain-"
			    "feature tiles (place_tile)");
		if (place_ok(x, s, seat, c->a[0], c->a[1], c->a[2], c->a[3], msg,
		    sizeof(msg)) != 0)
			NO(REFD_EILLEGAL, "R000-10", "%s", msg);
		return 0;
	case ST_SETUPCHOICE:
	case ST_FIRST:
		if (c->type != (s->stage == ST_FIRST ? C_FIRST : C_SETUPFIRST))
			NO(REFD_EPHASE, s->stage == ST_FIRST ? "R000-13" :
			    "R000-08", "choose who goes first (%s)",
			    s->stage == ST_FIRST ? "first" : "setup_first");
		if (c->a[0] < 0 || c->a[0] >= s->nseats)
			NO(REFD_EBADCMD, "R000-13", "seat is 0..%d",
			    (int)s->nseats - 1);
		return 0;
	case ST_DEPLOY:
		if (c->type != C_DEPLOY)
			NO(REFD_EPHASE, "R000-11", "deploy your creatures");
		{
			int u = next_deploy(s, seat);

			if (u < 0 || !deploy_ok(x, s, u, c->a[0], c->a[1]))
				NO(REFD_EILLEGAL, "R000-11", "%s must stand "
				    "entirely on your deployment zone, on free "
				    "squares without wall or statue",
				    u >= 0 ? CARD(x, s, u)->name : "?");
		}
		return 0;
	case ST_ACTIVATE:
		if (c->type != C_ACTIVATE)
			NO(REFD_EPHASE, "R000-16", "activate one of your "
			    "creatures");
		if (!unit_ok(s, c->a[0]) || s->u[c->a[0]].seat != seat ||
		    !s->u[c->a[0]].on)
			NO(REFD_ENOTARGET, "R000-16", "unit %d is not one of "
			    "your creatures on the grid", (int)c->a[0]);
		if (s->u[c->a[0]].activated >= activations(x, s, c->a[0]))
			NO(REFD_EILLEGAL, "R000-16", "%s was already activated "
			    "this round", CARD(x, s, c->a[0])->name);
		{
			int k, u = c->a[0];

			for (k = 0; k < s->nu; k++) {
				if (k == u || s->u[k].seat != seat ||
				    !s->u[k].on ||
				    s->u[k].activated >= activations(x, s, k))
					continue;
				if (s->u[k].incited && !s->u[u].incited)
					NO(REFD_EILLEGAL, "R000-17", "%s is "
					    "incited: it activates first",
					    CARD(x, s, k)->name);
				if (s->u[u].inhibited && !s->u[k].inhibited)
					NO(REFD_EILLEGAL, "R000-17", "%s is "
					    "inhibited: it activates after %s",
					    CARD(x, s, u)->name,
					    CARD(x, s, k)->name);
			}
		}
		return 0;
	case ST_TURN:
		if ((c->type < C_MOVE || c->type > C_END) && c->type != C_RUSH &&
		    c->type != C_SMITE && c->type != C_WAKE &&
		    c->type != C_CAST_AREA && c->type != C_CAST_LINE &&
		    c->type != C_SIDESTEP && c->type != C_WHIRLWIND &&
		    c->type != C_TURN && c->type != C_LEAP &&
		    c->type != C_STUNATK && c->type != C_BURROW &&
		    c->type != C_DEATHATK && c->type != C_HURL &&
		    c->type != C_SUMMON && c->type != C_SWITCH)
			NO(REFD_EPHASE, "R000-26", "a turn takes move, melee, "
			    "shoot, charge, cast, cast_cone or end");
		return turn_check(x, s, c, y);
	default:
		NO(REFD_EPHASE, NULL, "nothing to do now");
	}
}

/* ---------------------------------------------------------------- */
/* Execution */

/* Tiles a seat brings: 1 assembly + 3 features, 2 with 3+ seats. */
static int
ntiles(const struct state *s)
{
	return s->nseats > 2 ? 3 : 4;
}

static void
commit_sub(struct cx *x, struct state *s, int seat)
{
	uint8_t b[SK_WBMAX + 4];
	char zone[16];
	int i, rc;

	for (i = 0; i < s->nsub[seat]; i++)
		b[i] = (uint8_t)s->sub[seat][i];
	for (i = 0; s->tiled && i < ntiles(s); i++)
		b[s->nsub[seat] + i] = (uint8_t)(0x80 | s->tsub[seat][i]);
	snprintf(zone, sizeof(zone), "warband.%d", seat);
	rc = H->commit(x->ctx, zone, seat, b, (size_t)s->nsub[seat] +
	    (s->tiled ? ntiles(s) : 0));
	if (rc != REFD_OK && x->rc == REFD_OK)
		x->rc = rc;
}

void
sk_reveal(struct cx *x, struct state *s)
{
	int32_t b[SK_MAXSEATS];
	int seat, i;
	refd_mpw *w;

	s->revealed = 1;
	w = sk_ev("revealed");
	refd_mpw_karray(w, "warbands");
	for (seat = 0; seat < s->nseats; seat++) {
		refd_mpw_array(w);
		s->wbfac[seat] = 0xf;
		for (i = 0; i < s->nsub[seat]; i++)
			s->wbfac[seat] &= x->c->c[s->sub[seat][i]].factions;
		for (i = 0; i < s->nsub[seat]; i++) {
			struct unit *u = &s->u[s->nu];

			memset(u, 0, sizeof(*u));
			u->card = s->sub[seat][i];
			u->seat = seat;
			u->hp = x->c->c[u->card].hp;
			u->rout_unit = u->rout_seat = -1;
			u->aoo_turn = u->cleave_turn = -1;
			refd_mpw_str(w, x->c->c[u->card].id);
			s->nu++;
		}
		refd_mpw_end(w);
	}
	refd_mpw_end(w);
	sk_emit(x, w);
	for (i = 0; i < s->nu; i++)
		s->u[i].partner = -1;
	for (i = 0, seat = s->nu; i < seat && !s->rtp; i++) {
		const struct card *k = &x->c->c[s->u[i].card];
		int m;

		for (m = 0; m < k->nminion && s->nu < SK_MAXU; m++) {
			struct unit *p = &s->u[s->nu++];

			*p = s->u[i];
			p->card = k->minion[m];
			p->hp = x->c->c[p->card].hp;
			p->minion = 1;
			p->partner = -1;
		}
	}
	for (i = 0; i < s->nu; i++) {
		const struct card *k = &x->c->c[s->u[i].card];
		int j;

		if (k->req < 0)
			continue;
		for (j = 0; j < s->nu; j++)
			if (j != i && s->u[j].seat == s->u[i].seat &&
			    (s->u[j].card == k->req || (s->rtp &&
			    s->u[i].partner < 0)))
				s->u[i].partner = j;
	}
	for (seat = 0; seat < s->nseats; seat++) {
		int cheap = -1;

		if (!s->c0sub[seat])
			continue;
		for (i = 0; i < s->nu; i++) {
			const struct card *k = &x->c->c[s->u[i].card];

			if (s->u[i].seat == seat && !k->difficult &&
			    !(k->abil & AB_WILD) && (cheap < 0 || k->cost <
			    x->c->c[s->u[cheap].card].cost))
				cheap = i;
		}
		if (cheap >= 0)
			s->u[cheap].cmd0 = 1;
	}
	for (seat = 0; seat < s->nseats && s->rtp; seat++)
		s->wbfac[seat] = 0;
	for (seat = 0; seat < s->nseats; seat++)
		b[seat] = init_bonus(x, s, seat, 1);
	s->chooser = sk_roll_off(x, s, b, "terrain_initiative");
	s->stage = ST_SETUPCHOICE;
	if (s->tiled) {
		/* A23: a tile several seats brought stays with the first of
		 * them clockwise from the terrain-initiative winner; the
		 * others take the first free tile of the same kind. */
		int nt = ntiles(s), r, lo, k, j, q, o, px, py, rot;

		for (r = 1; r < s->nseats; r++)
		for (lo = (s->chooser + r) % s->nseats, k = 0; k < nt; k++) {
			int dup = 0;

			for (o = 0; o < r; o++)
				for (j = 0; j < nt; j++)
					dup |= s->tsub[lo][k] == s->tsub[(s->chooser +
					    o) % s->nseats][j];
			if (!dup)
				continue;
			for (q = 0; q < x->c->ntiles; q++) {
				int used = 0;

				if (x->c->t[q].feature !=
				    x->c->t[s->tsub[lo][k]].feature)
					continue;
				for (o = 0; o < s->nseats; o++)
					for (j = 0; j < nt; j++)
						used |= s->tsub[o][j] == q;
				if (!used && (k > 0 || assembly_fit(x->c,
				    MAP(x, s), s->zmap[lo], q, &px, &py,
				    &rot) == 0))
					break;
			}
			if (q == x->c->ntiles)
				continue;
			w = sk_ev("tile_substituted");
			refd_mpw_kint(w, "seat", lo);
			refd_mpw_kstr(w, "was", x->c->t[s->tsub[lo][k]].id);
			refd_mpw_kstr(w, "now", x->c->t[q].id);
			sk_emit(x, w);
			s->tsub[lo][k] = q;
		}
	}
}

/* An attack; a missed attack roll of a plain attack (fl 0) may then be
 * rerolled (the stand-in Lucky, §4.5, R000-95), the second result
 * standing. */
static void
plain_attack(struct cx *x, struct state *s, int u, int tgt, int ranged,
    int line, int fl)
{
	s->rr_miss = 0;
	attack(x, s, u, tgt, ranged, line, fl, 0);
	if (fl == 0 && s->rr_miss && s->dec == DEC_NONE &&
	    s->stage != ST_OVER && s->u[u].on && s->u[tgt].on &&
	    CARD(x, s, u)->lucky > s->u[u].luck_spent) {
		s->dec = DEC_REROLL;
		s->dec_unit = u;
		s->dec_target = tgt;
		s->dec_line = line;
		s->dec_mode = ranged;
	}
	s->rr_miss = 0;
}

static void
exec(struct cx *x, struct state *s, int seat, const struct cmd *c)
{
	refd_mpw *w;
	int u = s->cur, i;

	switch (c->type) {
	case C_SUBMIT:
		s->submitted[seat] = 1;
		s->nsub[seat] = c->n;
		for (i = 0; i < c->n; i++)
			s->sub[seat][i] = c->cards[i];
		for (i = 0; i < c->nt; i++)
			s->tsub[seat][i] = c->tiles[i];
		s->c0sub[seat] = c->cmd0;
		commit_sub(x, s, seat);
		w = sk_ev("submitted");
		refd_mpw_kint(w, "seat", seat);
		sk_emit(x, w);
		for (i = 0; i < s->nseats && s->submitted[i]; i++)
			;
		if (i == s->nseats)
			sk_reveal(x, s);
		return;
	case C_SETUPFIRST:
		s->setup_first = s->deploy_seat = c->a[0];
		s->stage = ST_DEPLOY;
		w = sk_ev("setup_first");
		refd_mpw_kint(w, "seat", c->a[0]);
		sk_emit(x, w);
		if (s->tiled)
			tiles_begin(x, s);
		else
			prep_deploy(x, s);
		return;
	case C_PLACE:
		tiles_place(x, s, seat, c->a[0], c->a[1], c->a[2], c->a[3]);
		return;
	case C_DEPLOY:
		u = next_deploy(s, seat);
		s->u[u].x = c->a[0];
		s->u[u].y = c->a[1];
		s->u[u].on = s->u[u].deployed = 1;
		w = sk_ev("deployed");
		refd_mpw_kint(w, "unit", u);
		refd_mpw_kint(w, "x", c->a[0]);
		refd_mpw_kint(w, "y", c->a[1]);
		sk_emit(x, w);
		if (next_deploy(s, seat) < 0) {
			/* §2.1 step 5: the next seat clockwise */
			for (i = 1; i < s->nseats; i++)
				if (next_deploy(s, (seat + i) % s->nseats) >= 0)
					break;
			if (i < s->nseats)
				s->deploy_seat = (seat + i) % s->nseats;
			else {
				s->first = -1;
				sk_begin_game(x, s);
				return;
			}
		}
		prep_deploy(x, s);
		return;
	case C_FIRST:
		begin_phases_pub(x, s, c->a[0]);
		return;
	case C_ACTIVATE:
		start_turn(x, s, c->a[0]);
		return;
	case C_MOVE: {
		if (s->u[u].entangled && !s->ent_tried) {
			/* §4.3: the save when it first tries to move */
			s->ent_tried = 1;
			if (save(x, s, u, s->u[u].entangled_dc, "entangle")) {
				s->u[u].entangled = 0;
			} else {
				s->ent_block = 1;
				return;
			}
		}
	}
	{
		int budget = s->natk > 0 ? s->speed - s->moved2 :
		    2 * s->speed - s->moved;
		int par = s->parity, slow = step_slow(x, s, u, s->u[u].x,
		    s->u[u].y, c->a[0], c->a[1], MV_NORMAL);
		struct prog *p = &s->pr[s->nprog++];

		if (s->rush)
			budget = 2 * CARD(x, s, u)->speed - s->moved;
		if (grid_step_cost(c->a[0] - s->u[u].x, c->a[1] - s->u[u].y,
		    slow, &par) > budget)
			s->single = 1;	/* R000-34 */
		memset(p, 0, sizeof(*p));
		p->kind = PK_STEP;
		p->unit = u;
		p->tx = c->a[0];
		p->ty = c->a[1];
		sk_run(x, s);
		return;
	}
	case C_BURROW:
		s->burrowing = 1;
		s->speed = s->oocmd && CARD(x, s, u)->burrow > 2 ? 2 :
		    CARD(x, s, u)->burrow;
		w = sk_ev("burrow");
		refd_mpw_kint(w, "unit", u);
		refd_mpw_kint(w, "speed", s->speed);
		sk_emit(x, w);
		return;
	case C_MELEE:
	case C_SHOOT:
	case C_SMITE:
	case C_STUNATK:
	case C_DEATHATK:
	case C_LEAP: {
		int line = c->type == C_LEAP ? 0 : c->a[1];
		int tgt = c->a[0];

		/* Arrow Catching Shield: a ranged attack aimed at a creature
		 * next to it goes to the shield bearer */
		if (c->type == C_SHOOT) {
			int k;

			for (k = 0; k < s->nu; k++)
				if (k != tgt && s->u[k].on &&
				    !foe(s, k, tgt) &&
				    (CARD(x, s, k)->abil2 & A2_ARROWSHIELD) &&
				    adjacent(x, s, k, tgt)) {
					w = sk_ev("arrow_caught");
					refd_mpw_kint(w, "unit", k);
					refd_mpw_kint(w, "for", tgt);
					sk_emit(x, w);
					tgt = k;
					break;
				}
		}

		if (s->natk == 0 && s->moved == 0)
			s->atk_first = 1;
		s->natk++;
		s->atk_kind = c->type == C_SHOOT;
		s->lines_used |= 1 << (line + (c->type == C_SHOOT ? 8 : 0));
		s->kinds |= kind_of(c->type);
		if (c->type == C_LEAP)
			s->cast = 1;	/* replaces the attacks */
		{
			int fl = ((s->rush && s->moved > CARD(x, s, u)->speed) ||
			    s->charged ? 1 : 0) | (c->type == C_SMITE ? 2 : 0) |
			    (c->type == C_LEAP ? 4 : 0) |
			    (c->type == C_STUNATK ? 8 : 0) |
			    (c->type == C_DEATHATK ? 16 : 0);

			if (fl == 0 && functional(s, tgt) &&
			    CARD(x, s, tgt)->block > s->u[tgt].block_spent) {
				/* §4.5 (R000-95): the defender's owner may
				 * interrupt with an immediate action, which
				 * resolves before the attack */
				s->dec = DEC_IMMED;
				s->dec_unit = tgt;
				s->dec_target = u;
				s->dec_line = line;
				s->dec_mode = c->type == C_SHOOT;
				w = sk_ev("attack_declared");
				refd_mpw_kint(w, "unit", u);
				refd_mpw_kint(w, "target", tgt);
				sk_emit(x, w);
				return;
			}
			plain_attack(x, s, u, tgt, c->type == C_SHOOT, line, fl);
		}
		if (c->type == C_SHOOT && s->stage != ST_OVER)
			gaze_back(x, s, u, tgt);
	}
		sk_run(x, s);
		return;
	case C_SUMMON: {
		const struct spell *sp = &CARD(x, s, u)->sp[c->a[0]];
		struct unit *n = &s->u[s->nu];

		if (s->moved == 0)
			s->atk_first = 1;
		s->natk = 1;
		s->cast = 1;
		s->u[u].spent[c->a[0]]++;
		memset(n, 0, sizeof(*n));
		n->card = sp->summon;
		n->seat = s->u[u].seat;
		n->x = c->a[1];
		n->y = c->a[2];
		n->on = n->deployed = 1;
		n->hp = x->c->c[n->card].hp;
		n->rout_unit = n->rout_seat = n->partner = -1;
		n->aoo_turn = n->cleave_turn = -1;
		n->summoner1 = u + 1;
		n->activated = 2;	/* no turn in the round it appears */
		s->nu++;
		w = sk_ev("summoned");
		refd_mpw_kint(w, "unit", s->nu - 1);
		refd_mpw_kstr(w, "card", x->c->c[n->card].id);
		refd_mpw_kint(w, "by", u);
		refd_mpw_kint(w, "x", n->x);
		refd_mpw_kint(w, "y", n->y);
		sk_emit(x, w);
		return;
	}
	case C_HURL:
	case C_CHARGE: {
		struct prog p;
		char msg[160];

		if (charge_check(x, s, u, c->a[0], c->a[1], c->a[2], &p, msg,
		    sizeof(msg)) != 0) {
			x->rc = REFD_EINTERNAL;
			return;
		}
		if (c->type == C_HURL) {
			p.budget = 1;
			p.tx = s->u[c->a[0]].x;
			p.ty = s->u[c->a[0]].y;
		}
		p.line = c->a[3];
		s->charged = 1;
		s->rush_t = c->a[0];
		s->lines_used |= 1 << c->a[3];
		s->natk = 1;
		s->pr[s->nprog++] = p;
		w = sk_ev("charge");
		refd_mpw_kint(w, "unit", u);
		refd_mpw_kint(w, "target", c->a[0]);
		refd_mpw_kint(w, "x", c->a[1]);
		refd_mpw_kint(w, "y", c->a[2]);
		sk_emit(x, w);
		/* Hurling Charge: the ranged attack before the move and the
		 * melee attack */
		if (c->type == C_HURL)
			attack(x, s, u, c->a[0], 1, 0, 0, 0);
		sk_run(x, s);
		return;
	}
	case C_CAST:
	case C_CAST_CONE:
	case C_CAST_AREA:
	case C_CAST_LINE:
	case C_SWITCH:
		if (c->type == C_CAST && CARD(x, s, u)->sp[c->a[0]].swift) {
			s->swift_used = 1;
			cast_spell(x, s, u, c->a);
			sk_run(x, s);
			return;
		}
		if (s->moved == 0 && s->natk == 0)
			s->atk_first = 1;
		if (s->natk == 0)
			s->natk = 1;
		s->cast = 1;
		s->atk_kind = 2;
		s->kinds |= 4;
		if (c->type == C_SWITCH) {
			switch_places(x, s, u, c->a);
			sk_run(x, s);
			return;
		}
		cast_spell(x, s, u, c->a);
		if (c->type == C_CAST &&
		    CARD(x, s, u)->sp[c->a[0]].range != SR_TOUCH &&
		    s->stage != ST_OVER)
			gaze_back(x, s, u, c->a[1]);
		sk_run(x, s);
		return;
	case C_END:
		end_turn(x, s);
		return;
	case C_SIDESTEP:
		sidestep(x, s, u, c->a[0], c->a[1]);
		return;
	case C_WHIRLWIND:
	case C_TURN:
		if (s->moved == 0)
			s->atk_first = 1;
		s->natk = 1;
		s->cast = 1;
		if (c->type == C_WHIRLWIND)
			whirlwind(x, s, u);
		else
			turn_undead(x, s, u, c->a[0]);
		sk_run(x, s);
		return;
	case C_WAKE:
		if (s->moved == 0)
			s->atk_first = 1;
		s->natk = 1;
		s->cast = 1;	/* replaces the attack: no more attacks */
		s->u[c->a[0]].asleep = 0;
		w = sk_ev("woke");
		refd_mpw_kint(w, "unit", c->a[0]);
		refd_mpw_kint(w, "by", u);
		sk_emit(x, w);
		return;
	case C_RUSH:
		s->rush = 1;
		s->rush_t = c->a[0];
		s->rush_x = s->u[u].x;
		s->rush_y = s->u[u].y;
		w = sk_ev("rush");
		refd_mpw_kint(w, "unit", u);
		refd_mpw_kint(w, "target", c->a[0]);
		sk_emit(x, w);
		return;
	case C_AOO: {
		int t = s->dec_unit;
		struct prog *p = &s->pr[s->nprog - 1];

		s->dec = DEC_NONE;
		s->dec_unit = -1;
		p->qi++;
		s->u[t].aoo_turn = s->turnid;
		attack(x, s, t, p->unit, 0, c->a[1], 0, 1);
		sk_run(x, s);
		return;
	}
	case C_BLOCK:
	case C_DECLINE: {
		int a = s->dec_unit, ds = s->dec == DEC_DSTRIKE;

		if (s->dec == DEC_IMMED) {
			int at = s->dec_target, rg = s->dec_mode;

			w = sk_ev(c->type == C_BLOCK ? "shield_block" :
			    "declined");
			refd_mpw_kint(w, "unit", a);
			sk_emit(x, w);
			s->dec = DEC_NONE;
			s->dec_unit = -1;
			if (c->type == C_BLOCK) {
				s->u[a].block_spent++;
				s->blocking = a + 1;
			}
			plain_attack(x, s, at, a, rg, s->dec_line, 0);
			if (s->dec != DEC_REROLL)
				s->blocking = 0;	/* kept for a reroll */
			if (rg && s->stage != ST_OVER)
				gaze_back(x, s, at, a);
			sk_run(x, s);
			return;
		}
		if (s->dec == DEC_AOO)
			s->pr[s->nprog - 1].qi++;
		s->blocking = 0;
		w = sk_ev("declined");
		refd_mpw_kint(w, "unit", s->dec_unit);
		sk_emit(x, w);
		s->dec = DEC_NONE;
		s->dec_unit = -1;
		if (ds) {
			eliminate(x, s, a, "destroyed", s->dec_target);
			if (CARD(x, s, a)->db_dmg > 0 && s->stage != ST_OVER)
				death_burst(x, s, a);
		}
		sk_run(x, s);
		return;
	}
	case C_STRIKE: {
		int a = s->dec_unit;

		int by = s->dec_target;

		s->dec = DEC_NONE;
		s->dec_unit = -1;
		attack(x, s, a, c->a[0], 0, c->a[1], 0, 0);
		if (s->dec != DEC_NONE && s->dec_unit == a) {
			/* the dying creature makes no Cleave or Pushback */
			s->dec = DEC_NONE;
			s->dec_unit = -1;
		}
		if (s->u[a].on && s->stage != ST_OVER) {
			eliminate(x, s, a, "destroyed", by);
			if (CARD(x, s, a)->db_dmg > 0 && s->stage != ST_OVER)
				death_burst(x, s, a);
		}
		sk_run(x, s);
		return;
	}
	case C_PUSH:
	case C_PULL:
	case C_SLIDE: {
		int d = s->dec_target;

		s->dec = DEC_NONE;
		s->dec_unit = -1;
		s->u[d].x = c->a[0];
		s->u[d].y = c->a[1];
		w = sk_ev(c->type == C_PUSH ? "pushed" : c->type == C_PULL ?
		    "pulled" : "slid");
		refd_mpw_kint(w, "unit", d);
		refd_mpw_kint(w, "x", c->a[0]);
		refd_mpw_kint(w, "y", c->a[1]);
		sk_emit(x, w);
		sk_run(x, s);
		return;
	}
	case C_CLEAVE: {
		int a = s->dec_unit;

		s->dec = DEC_NONE;
		s->dec_unit = -1;
		attack(x, s, a, c->a[0], 0, s->dec_line, 0, 0);
		sk_run(x, s);
		return;
	}
	case C_REROLL: {
		int a = s->dec_unit;

		s->dec = DEC_NONE;
		s->dec_unit = -1;
		s->u[a].luck_spent++;
		w = sk_ev("reroll");
		refd_mpw_kint(w, "unit", a);
		refd_mpw_kint(w, "left", CARD(x, s, a)->lucky -
		    s->u[a].luck_spent);
		sk_emit(x, w);
		attack(x, s, a, s->dec_target, s->dec_mode, s->dec_line, 0, 0);
		s->rr_miss = 0;
		s->blocking = 0;
		sk_run(x, s);
		return;
	}
	default:
		return;
	}
}

/* ---------------------------------------------------------------- */
/* Labels and legal lists */

void
sk_label(struct cx *x, const struct state *s, const struct cmd *c, char *buf,
    size_t len)
{
	int u = s->cur >= 0 ? s->cur : 0;
	const char *un = s->nu > 0 ? CARD(x, s, u)->name : "";
	const char *tn = c->a[0] >= 0 && c->a[0] < s->nu ?
	    CARD(x, s, c->a[0])->name : "";

	switch (c->type) {
	case C_SUBMIT:
		snprintf(buf, len, "Submit a sealed warband of %d creatures",
		    (int)c->n);
		break;
	case C_SETUPFIRST:
		snprintf(buf, len, "Seat %d deploys first", (int)c->a[0]);
		break;
	case C_FIRST:
		snprintf(buf, len, "Seat %d takes the first phase",
		    (int)c->a[0]);
		break;
	case C_DEPLOY:
		snprintf(buf, len, "Deploy at (%d,%d)", (int)c->a[0],
		    (int)c->a[1]);
		break;
	case C_ACTIVATE:
		snprintf(buf, len, "Activate %s #%d at (%d,%d)", tn,
		    (int)c->a[0], (int)s->u[c->a[0]].x, (int)s->u[c->a[0]].y);
		break;
	case C_MOVE:
		snprintf(buf, len, "%s steps to (%d,%d)", un, (int)c->a[0],
		    (int)c->a[1]);
		break;
	case C_MELEE:
		snprintf(buf, len, "%s attacks %s #%d in melee (line %d)", un,
		    tn, (int)c->a[0], (int)c->a[1]);
		break;
	case C_SHOOT:
		snprintf(buf, len, "%s shoots %s #%d (line %d)", un, tn,
		    (int)c->a[0], (int)c->a[1]);
		break;
	case C_CHARGE:
		snprintf(buf, len, "%s charges %s #%d, ending at (%d,%d)", un,
		    tn, (int)c->a[0], (int)c->a[1], (int)c->a[2]);
		break;
	case C_CAST:
		snprintf(buf, len, "%s casts %s on #%d", un,
		    CARD(x, s, u)->sp[c->a[0]].name, (int)c->a[1]);
		break;
	case C_CAST_AREA:
		snprintf(buf, len, "%s casts %s on #%d, centred on (%d,%d)", un,
		    CARD(x, s, u)->sp[c->a[0]].name, (int)c->a[1], (int)c->a[2],
		    (int)c->a[3]);
		break;
	case C_CAST_LINE:
		snprintf(buf, len, "%s casts %s toward #%d: line (%d,%d) through "
		    "(%d,%d)", un, CARD(x, s, u)->sp[c->a[0]].name,
		    (int)c->a[1], (int)c->a[2], (int)c->a[3], (int)c->a[4],
		    (int)c->a[5]);
		break;
	case C_CAST_CONE:
		snprintf(buf, len, "%s casts %s: cone from (%d,%d), "
		    "orientation %d", un, CARD(x, s, u)->sp[c->a[0]].name,
		    (int)c->a[1], (int)c->a[2], (int)c->a[3]);
		break;
	case C_END:
		snprintf(buf, len, "End %s's turn", un);
		break;
	case C_AOO:
		snprintf(buf, len, "%s takes its attack of opportunity (line "
		    "%d)", tn, (int)c->a[1]);
		break;
	case C_DECLINE:
		snprintf(buf, len, "%s declines", tn);
		break;
	case C_CLEAVE:
		snprintf(buf, len, "Cleave: extra attack on %s #%d", tn,
		    (int)c->a[0]);
		break;
	case C_STRIKE:
		snprintf(buf, len, "Death Strike on %s #%d (line %d)", tn,
		    (int)c->a[0], (int)c->a[1]);
		break;
	case C_PUSH:
	case C_PULL:
	case C_SLIDE:
		snprintf(buf, len, "%s %s #%d to (%d,%d)", c->type == C_PUSH ?
		    "Pushback:" : c->type == C_PULL ? "Pull:" : "Slide:",
		    CARD(x, s, s->dec_target)->name, (int)s->dec_target,
		    (int)c->a[0], (int)c->a[1]);
		break;
	case C_BLOCK:
		snprintf(buf, len, "Shield Block (immediate): +4 AC against "
		    "this attack");
		break;
	case C_REROLL:
		snprintf(buf, len, "Lucky: reroll the missed attack roll (the "
		    "second result stands)");
		break;
	case C_SWITCH:
		snprintf(buf, len, "%s: switch places with %s #%d (to (%d,%d), "
		    "it to (%d,%d))", CARD(x, s, u)->sp[c->a[0]].name,
		    c->a[1] >= 0 && c->a[1] < s->nu ? CARD(x, s, c->a[1])->name :
		    "",
		    (int)c->a[1], (int)c->a[2], (int)c->a[3], (int)c->a[4],
		    (int)c->a[5]);
		break;
	case C_RUSH:
		snprintf(buf, len, "%s rushes toward %s #%d", un, tn,
		    (int)c->a[0]);
		break;
	case C_PLACE:
		snprintf(buf, len, "Place tile %s at (%d,%d), %d quarter turns",
		    x->c->t[s->tsub[s->place_seat][c->a[0] & 3]].id,
		    (int)c->a[1], (int)c->a[2], (int)c->a[3]);
		break;
	case C_HURL:
		snprintf(buf, len, "%s makes a Hurling Charge on %s #%d, ending "
		    "at (%d,%d)", un, tn, (int)c->a[0], (int)c->a[1],
		    (int)c->a[2]);
		break;
	case C_SUMMON:
		snprintf(buf, len, "%s casts %s at (%d,%d)", un,
		    CARD(x, s, u)->sp[c->a[0]].name, (int)c->a[1], (int)c->a[2]);
		break;
	case C_BURROW:
		snprintf(buf, len, "%s burrows for this turn's movement", un);
		break;
	case C_DEATHATK:
		snprintf(buf, len, "%s declares a Death Attack on %s #%d (line "
		    "%d)", un, tn, (int)c->a[0], (int)c->a[1]);
		break;
	case C_LEAP:
		snprintf(buf, len, "%s leaps at %s #%d", un, tn, (int)c->a[0]);
		break;
	case C_STUNATK:
		snprintf(buf, len, "%s makes a Stunning Attack on %s #%d (line "
		    "%d)", un, tn, (int)c->a[0], (int)c->a[1]);
		break;
	case C_SIDESTEP:
		snprintf(buf, len, "%s sidesteps to (%d,%d)", un, (int)c->a[0],
		    (int)c->a[1]);
		break;
	case C_WHIRLWIND:
		snprintf(buf, len, "%s attacks every adjacent enemy (Whirlwind)",
		    un);
		break;
	case C_TURN:
		snprintf(buf, len, "%s turns undead %s #%d", un, tn,
		    (int)c->a[0]);
		break;
	case C_WAKE:
		snprintf(buf, len, "%s wakes %s #%d", un, tn, (int)c->a[0]);
		break;
	case C_SMITE:
		snprintf(buf, len, "%s smites %s #%d (line %d)", un, tn,
		    (int)c->a[0], (int)c->a[1]);
		break;
	default:
		snprintf(buf, len, "?");
	}
}

struct lst {
	struct cx *x;
	const struct state *s;
	int seat;
	refd_mpw *w;
};

static void
offer(struct lst *l, struct cmd *c)
{
	char lab[200];

	if (check(l->x, l->s, l->seat, c, NULL) != 0)
		return;
	sk_label(l->x, l->s, c, lab, sizeof(lab));
	refd_mpw_map(l->w);
	refd_mpw_str(l->w, "cmd");
	write_cmd(l->x->c, l->w, c);
	refd_mpw_kstr(l->w, "label", lab);
	refd_mpw_end(l->w);
}

static void
set(struct cmd *c, int t, int a0, int a1, int a2, int a3)
{
	memset(c, 0, sizeof(*c));
	c->type = t;
	c->a[0] = a0;
	c->a[1] = a1;
	c->a[2] = a2;
	c->a[3] = a3;
}

static void
legal_turn(struct lst *l)
{
	const struct cx *x = l->x;
	const struct state *s = l->s;
	const struct map *m = MAP(x, s);
	int u = s->cur, dx, dy, t, k, i;
	const struct card *C = CARD(x, s, u);
	struct cmd c;

	for (dy = -1; dy <= 1; dy++)
		for (dx = -1; dx <= 1; dx++)
			if (dx || dy) {
				set(&c, C_MOVE, s->u[u].x + dx, s->u[u].y + dy,
				    0, 0);
				offer(l, &c);
			}
	for (t = 0; t < s->nu; t++) {
		if (!s->u[t].on || !foe(s, t, u))
			continue;
		for (k = 0; k < C->nmelee; k++) {
			set(&c, C_MELEE, t, k, 0, 0);
			offer(l, &c);
		}
		for (k = 0; k < C->nranged; k++) {
			set(&c, C_SHOOT, t, k, 0, 0);
			offer(l, &c);
		}
		for (k = 0; C->stun_dc > 0 && k < C->nmelee; k++) {
			set(&c, C_STUNATK, t, k, 0, 0);
			offer(l, &c);
		}
		for (k = 0; C->death_attack > 0 && k < C->nmelee; k++) {
			set(&c, C_DEATHATK, t, k, 0, 0);
			offer(l, &c);
		}
		if (C->leap > 0) {
			set(&c, C_LEAP, t, 0, 0, 0);
			offer(l, &c);
		}
		for (k = 0; C->smite_val > 0 && k < C->nmelee; k++) {
			set(&c, C_SMITE, t, k, 0, 0);
			offer(l, &c);
		}
		if (s->oocmd && !s->rush && s->steps == 0 && s->natk == 0) {
			set(&c, C_RUSH, t, 0, 0, 0);
			offer(l, &c);
		}
	}
	if (functional(s, u) && s->natk == 0 && s->steps == 0 && !s->single &&
	    !s->charged) {
		for (t = 0; t < s->nu; t++) {
			struct grid_space a = SP(x, s, u), b;
			int sz = C->size, tz;

			if (!s->u[t].on || !foe(s, t, u))
				continue;
			b = SP(x, s, t);
			if (grid_space_dist(&a, &b) > 2 * s->speed + 1 ||
			    !sees(x, s, u, t))
				continue;
			tz = CARD(x, s, t)->size;
			for (dy = s->u[t].y - sz; dy <= s->u[t].y + tz; dy++)
				for (dx = s->u[t].x - sz; dx <= s->u[t].x + tz;
				    dx++) {
					char msg[160];

					if (dx < 0 || dy < 0 || dx >= m->w ||
					    dy >= m->h || !end_ok(x, s, u, dx, dy))
						continue;
					b.x = dx;
					b.y = dy;
					b.s = sz;
					if (grid_space_dist(&b, &(struct grid_space){
					    s->u[t].x, s->u[t].y, tz }) != 1)
						continue;
					if (charge_check(x, s, u, t, dx, dy, NULL,
					    msg, sizeof(msg)) != 0)
						continue;
					for (k = 0; k < C->nmelee; k++) {
						set(&c, C_CHARGE, t, dx, dy, k);
						offer(l, &c);
						if (C->abil2 & A2_HURL) {
							set(&c, C_HURL, t, dx,
							    dy, k);
							offer(l, &c);
						}
					}
				}
		}
	}
	for (dy = -1; (C->abil2 & A2_SIDESTEP) && dy <= 1; dy++)
		for (dx = -1; dx <= 1; dx++)
			if (dx || dy) {
				set(&c, C_SIDESTEP, s->u[u].x + dx,
				    s->u[u].y + dy, 0, 0);
				offer(l, &c);
			}
	if (C->abil2 & A2_WHIRLWIND) {
		set(&c, C_WHIRLWIND, 0, 0, 0, 0);
		offer(l, &c);
	}
	if (C->burrow > 0) {
		set(&c, C_BURROW, 0, 0, 0, 0);
		offer(l, &c);
	}
	for (t = 0; C->turn_undead > 0 && t < s->nu; t++) {
		set(&c, C_TURN, t, 0, 0, 0);
		offer(l, &c);
	}
	for (t = 0; t < s->nu; t++)
		if (s->u[t].on && s->u[t].asleep) {
			set(&c, C_WAKE, t, 0, 0, 0);
			offer(l, &c);
		}
	for (k = 0; k < C->nspell; k++) {
		if (C->sp[k].summon >= 0) {
			int sx, sy;

			for (sy = s->u[u].y - 7; sy <= s->u[u].y + 7; sy++)
				for (sx = s->u[u].x - 7; sx <= s->u[u].x + 7;
				    sx++) {
					set(&c, C_SUMMON, k, sx, sy, 0);
					offer(l, &c);
				}
			continue;
		}
		if (C->sp[k].sw) {
			/* switch positions: every placement of the two */
			for (t = 0; t < s->nu; t++) {
				int tz = CARD(x, s, t)->size, uz = C->size;
				int ax, ay, bx, by, lo = tz < uz ? tz : uz;
				int hi = tz < uz ? uz : tz;

				if (t == u || !s->u[t].on)
					continue;
				for (ax = s->u[t].x - hi + lo;
				    ax <= s->u[t].x + hi - lo; ax++)
				for (ay = s->u[t].y - hi + lo;
				    ay <= s->u[t].y + hi - lo; ay++)
				for (bx = s->u[u].x - hi + lo;
				    bx <= s->u[u].x + hi - lo; bx++)
				for (by = s->u[u].y - hi + lo;
				    by <= s->u[u].y + hi - lo; by++) {
					if (!switch_ok(x, s, u, t, ax, ay, bx,
					    by))
						continue;
					set(&c, C_SWITCH, k, t, ax, ay);
					c.a[4] = bx;
					c.a[5] = by;
					offer(l, &c);
				}
			}
			continue;
		}
		if (C->sp[k].range >= SR_RADIUS2 &&
		    C->sp[k].range <= SR_LINE) {
			for (t = 0; t < s->nu; t++) {
				int tz, ox, oy, px, py;

				if (t == u || !s->u[t].on || !sees(x, s, u, t))
					continue;
				tz = CARD(x, s, t)->size;
				if (C->sp[k].range != SR_LINE) {
					for (ox = 0; ox <= tz; ox++)
						for (oy = 0; oy <= tz; oy++) {
							set(&c, C_CAST_AREA, k, t,
							    s->u[t].x + ox,
							    s->u[t].y + oy);
							offer(l, &c);
						}
					continue;
				}
				for (dx = 0; dx <= C->size; dx++)
					for (dy = 0; dy <= C->size; dy++)
						for (px = 0; px <= tz; px++)
							for (py = 0; py <= tz; py++) {
								set(&c, C_CAST_LINE, k,
								    t, s->u[u].x + dx,
								    s->u[u].y + dy);
								c.a[4] = s->u[t].x + px;
								c.a[5] = s->u[t].y + py;
								offer(l, &c);
							}
			}
		} else if (C->sp[k].range == SR_CONE) {
			for (dx = 0; dx <= C->size; dx++)
				for (dy = 0; dy <= C->size; dy++)
					for (i = 0; i < 8; i++) {
						set(&c, C_CAST_CONE, k,
						    s->u[u].x + dx,
						    s->u[u].y + dy, i);
						offer(l, &c);
					}
		} else {
			for (t = 0; t < s->nu; t++) {
				set(&c, C_CAST, k, t, 0, 0);
				offer(l, &c);
			}
		}
	}
	set(&c, C_END, 0, 0, 0, 0);
	offer(l, &c);
}

static void
legal_list(struct lst *l)
{
	const struct cx *x = l->x;
	const struct state *s = l->s;
	const struct map *m = MAP(x, s);
	struct cmd c;
	int i, k, u;

	if (!((sk_pending(s) >> l->seat) & 1))
		return;
	if (s->dec != DEC_NONE) {
		int t = s->dec_unit;

		if (s->dec == DEC_AOO)
			for (k = 0; k < CARD(x, s, t)->nmelee; k++) {
				set(&c, C_AOO, t, k, 0, 0);
				offer(l, &c);
			}
		else if (s->dec == DEC_DSTRIKE)
			for (i = 0; i < s->nu; i++)
				for (k = 0; k < CARD(x, s, t)->nmelee; k++) {
					set(&c, C_STRIKE, i, k, 0, 0);
					offer(l, &c);
				}
		else if (s->dec == DEC_REROLL) {
			set(&c, C_REROLL, 0, 0, 0, 0);
			offer(l, &c);
		} else if (s->dec == DEC_IMMED) {
			set(&c, C_BLOCK, 0, 0, 0, 0);
			offer(l, &c);
		} else if (s->dec == DEC_PUSH)
			for (i = 0; i < 9; i++) {
				set(&c, s->dec_mode == 0 ? C_PUSH : s->dec_mode == 1 ?
				    C_PULL : C_SLIDE, s->u[s->dec_target].x + i % 3 - 1,
				    s->u[s->dec_target].y + i / 3 - 1, 0, 0);
				offer(l, &c);
			}
		else
			for (i = 0; i < s->nu; i++) {
				set(&c, C_CLEAVE, i, 0, 0, 0);
				offer(l, &c);
			}
		set(&c, C_DECLINE, t, 0, 0, 0);
		offer(l, &c);
		return;
	}
	switch (s->stage) {
	case ST_SUBMIT:
		for (i = 0; i < x->c->nwb; i++)
			for (k = 0; k < (s->tiled ? x->c->nsets : 1); k++) {
				set(&c, C_SUBMIT, 0, 0, 0, 0);
				c.n = x->c->wb[i].n;
				memcpy(c.cards, x->c->wb[i].card,
				    sizeof(c.cards));
				if (s->tiled) {
					c.nt = ntiles(s);
					memcpy(c.tiles, x->c->set[k],
					    sizeof(c.tiles));
				}
				offer(l, &c);
				c.cmd0 = 1;
				if (s->rtp)
					offer(l, &c);
			}
		/* any other list: a template */
		refd_mpw_map(l->w);
		refd_mpw_kmap(l->w, "template");
		refd_mpw_kstr(l->w, "type", "submit");
		refd_mpw_karray(l->w, "cards");
		for (k = 0; k < 3; k++) {
			refd_mpw_map(l->w);
			refd_mpw_karray(l->w, "one_of");
			for (i = 0; i < x->c->ncards; i++)
				refd_mpw_str(l->w, x->c->c[i].id);
			refd_mpw_end(l->w);
			refd_mpw_end(l->w);
		}
		refd_mpw_end(l->w);
		if (s->tiled) {
			refd_mpw_karray(l->w, "tiles");
			for (k = 0; k < ntiles(s); k++) {
				refd_mpw_map(l->w);
				refd_mpw_karray(l->w, "one_of");
				for (i = 0; i < x->c->ntiles; i++)
					refd_mpw_str(l->w, x->c->t[i].id);
				refd_mpw_end(l->w);
				refd_mpw_end(l->w);
			}
			refd_mpw_end(l->w);
		}
		refd_mpw_end(l->w);
		refd_mpw_kstr(l->w, "label", "Submit any warband of 1 to 12 "
		    "card ids from cards.json (sealed)");
		refd_mpw_end(l->w);
		return;
	case ST_SETUPCHOICE:
	case ST_FIRST:
		for (i = 0; i < s->nseats; i++) {
			set(&c, s->stage == ST_FIRST ? C_FIRST : C_SETUPFIRST, i,
			    0, 0, 0);
			offer(l, &c);
		}
		return;
	case ST_DEPLOY:
		u = next_deploy(s, l->seat);
		if (u < 0)
			return;
		for (i = 0; i < m->w * m->h; i++) {
			set(&c, C_DEPLOY, i % m->w, i / m->w, 0, 0);
			offer(l, &c);
		}
		return;
	case ST_TILES: {
		int ti, rot;

		for (ti = 1; ti <= 3; ti++)
			for (rot = 0; rot < 4; rot++)
				for (i = 0; i < m->w * m->h; i++) {
					set(&c, C_PLACE, ti, i % m->w, i / m->w,
					    rot);
					offer(l, &c);
				}
		return;
	}
	case ST_ACTIVATE:
		for (i = 0; i < s->nu; i++) {
			set(&c, C_ACTIVATE, i, 0, 0, 0);
			offer(l, &c);
		}
		return;
	case ST_TURN:
		legal_turn(l);
		return;
	default:
		return;
	}
}

/* ---------------------------------------------------------------- */
/* Ops */

static int
op_init(refd_ctx *ctx, const struct refd_host *host, void **pdata)
{
	(void)ctx;
	H = host;
	*pdata = NULL;
	return REFD_OK;
}

static void
doc_cmd(refd_mpw *w, const char *name, const char *args[][2], int n,
    const char *doc)
{
	int i;

	refd_mpw_kmap(w, name);
	refd_mpw_kmap(w, "args");
	for (i = 0; i < n; i++)
		refd_mpw_kstr(w, args[i][0], args[i][1]);
	refd_mpw_end(w);
	refd_mpw_kstr(w, "doc", doc);
	refd_mpw_end(w);
}

static void
doc_opt(refd_mpw *w, const char *name, const char *type, const char *dflt,
    int64_t idflt, const char *doc)
{
	refd_mpw_kmap(w, name);
	refd_mpw_kstr(w, "type", type);
	if (dflt != NULL)
		refd_mpw_kstr(w, "default", dflt);
	else
		refd_mpw_kint(w, "default", idflt);
	refd_mpw_kstr(w, "doc", doc);
	refd_mpw_end(w);
}

static int
op_describe(refd_ctx *ctx, void *pdata)
{
	refd_mpw *w = refd_mpw_create();
	static const char *a_cards[][2] = { { "cards", "[str]: card ids" } };
	static const char *a_seat[][2] = { { "seat", "int 0..3" } };
	static const char *a_xy[][2] = { { "x", "int" }, { "y", "int" } };
	static const char *a_unit[][2] = { { "unit", "int: unit id" } };
	static const char *a_tl[][2] = { { "target", "int: unit id" },
		{ "line", "int: attack line" } };
	static const char *a_ch[][2] = { { "target", "int: unit id" },
		{ "x", "int: destination anchor" }, { "y", "int" },
		{ "line", "int: melee line" } };
	static const char *a_cast[][2] = { { "spell", "int: spell index" },
		{ "target", "int: unit id" } };
	static const char *a_cone[][2] = { { "spell", "int: spell index" },
		{ "ox", "int: corner x" }, { "oy", "int: corner y" },
		{ "orient", "int 0..7: E SE S SW W NW N NE" } };
	static const char *a_area[][2] = { { "spell", "int: spell index" },
		{ "target", "int: unit id" }, { "ox", "int: centre x" },
		{ "oy", "int: centre y" } };
	static const char *a_line[][2] = { { "spell", "int: spell index" },
		{ "target", "int: unit id" }, { "sx", "int: start corner x" },
		{ "sy", "int" }, { "px", "int: corner of the target x" },
		{ "py", "int" } };
	static const char *a_place[][2] = { { "tile", "int 1..3" },
		{ "x", "int" }, { "y", "int" }, { "rot", "int 0..3" } };
	static const char *a_xy3[][2] = { { "spell", "int: spell index" },
		{ "x", "int" }, { "y", "int" } };
	static const char *a_ul[][2] = { { "unit", "int: the threatener" },
		{ "line", "int: melee line" } };
	static const char *a_t[][2] = { { "target", "int: unit id" } };
	static const char *a_sw[][2] = { { "spell", "int: spell index" },
		{ "target", "int: unit id" }, { "x", "int" }, { "y", "int" },
		{ "tx", "int" }, { "ty", "int" } };

	(void)pdata;
	refd_mpw_map(w);
	refd_mpw_kstr(w, "summary", "d20 warband skirmish on a square grid");
	refd_mpw_karray(w, "seats");
	refd_mpw_int(w, 2);
	refd_mpw_int(w, SK_MAXSEATS);
	refd_mpw_end(w);
	refd_mpw_kmap(w, "options");
	doc_opt(w, "map", "str", "crossroads", 0, "map id from maps.json");
	doc_opt(w, "points", "int", NULL, 100, "warband size in points");
	doc_opt(w, "variant", "str", "standard", 0,
	    "standard or quick_assault");
	doc_opt(w, "round_limit", "int", NULL, 30,
	    "rounds before the game ends on VP");
	doc_opt(w, "stalemate_rounds", "int", NULL, 10,
	    "rounds without aggression that end the game");
	doc_opt(w, "units", "[map]", "none", 0, "a fixture: creatures "
	    "already deployed {card, seat, x, y, hp, ...}; skips setup");
	doc_opt(w, "first", "int", NULL, -1,
	    "fixture: seat taking round 1's first phase (no initiative roll)");
	doc_opt(w, "terrain", "[[x, y, str]]", "none", 0,
	    "fixture: terrain overrides");
	doc_opt(w, "seats", "int", NULL, 2, "players (2..4); the map needs "
	    "as many start zones");
	doc_opt(w, "teams", "bool", "false", 0, "4 seats: 2 teams (seats 0 "
	    "and 2 against 1 and 3), teammates on the same long side");
	doc_opt(w, "format", "str", "standard", 0, "standard or "
	    "ready_to_play (the fixed warbands of the ready-to-play game)");
	doc_opt(w, "tyrannical_morale", "[bool]", "none", 0, "per seat: "
	    "Tyrannical Morale (a failed save destroys instead of routing)");
	refd_mpw_end(w);
	refd_mpw_kmap(w, "commands");
	doc_cmd(w, "submit", a_cards, 1, "sealed warband list (R000-07)");
	doc_cmd(w, "setup_first", a_seat, 1,
	    "terrain-initiative winner names who deploys first");
	doc_cmd(w, "deploy", a_xy, 2, "place the next creature of your list");
	doc_cmd(w, "place_tile", a_place, 4, "place one of your feature tiles "
	    "(1..3 in your list) at (x, y) turned rot quarter turns");
	doc_cmd(w, "first", a_seat, 1, "initiative winner names the first "
	    "player of the round");
	doc_cmd(w, "activate", a_unit, 1, "start a creature's turn");
	doc_cmd(w, "move", a_xy, 2, "one step to a neighbouring anchor");
	doc_cmd(w, "melee", a_tl, 2, "melee attack");
	doc_cmd(w, "shoot", a_tl, 2, "ranged attack on the nearest visible "
	    "enemy");
	doc_cmd(w, "charge", a_ch, 4, "charge the nearest enemy");
	doc_cmd(w, "cast", a_cast, 2, "cast a touch, range 6 or sight spell");
	doc_cmd(w, "cast_cone", a_cone, 4, "cast a cone spell");
	doc_cmd(w, "cast_area", a_area, 4, "cast a radius 2 or 4 spell on the "
	    "nearest enemy or ally, centred on a point of its space");
	doc_cmd(w, "cast_line", a_line, 6, "cast a line spell from a corner of "
	    "the caster's space through a corner of the target's");
	doc_cmd(w, "end", NULL, 0, "end the turn");
	doc_cmd(w, "aoo", a_ul, 2, "take an attack of opportunity");
	doc_cmd(w, "decline", a_unit, 1, "decline an attack of opportunity "
	    "or a Cleave attack");
	doc_cmd(w, "cleave", a_t, 1, "Cleave: extra melee attack");
	doc_cmd(w, "death_strike", a_tl, 2, "Death Strike: a last melee "
	    "attack before the creature is destroyed");
	doc_cmd(w, "push", a_xy, 2, "Pushback: push the damaged smaller "
	    "creature to (x, y), one square farther away");
	doc_cmd(w, "block", NULL, 0, "off-turn, Shield Block: an immediate "
	    "action, +4 AC against the declared attack");
	doc_cmd(w, "reroll", NULL, 0, "Lucky: reroll the missed attack roll, "
	    "keeping the second result");
	doc_cmd(w, "pull", a_xy, 2, "Pull: pull the damaged creature to "
	    "(x, y), one square closer");
	doc_cmd(w, "slide", a_xy, 2, "Slide: slide the damaged creature to "
	    "(x, y), one square in any direction");
	doc_cmd(w, "switch", a_sw, 6, "switch-positions ability: the caster "
	    "moves to (x, y), the target to (tx, ty)");
	doc_cmd(w, "smite", a_tl, 2, "melee attack declaring Smite (a use is "
	    "spent even on a miss)");
	doc_cmd(w, "hurling_charge", a_ch, 4, "a charge with a ranged attack "
	    "on the target before the melee attack");
	doc_cmd(w, "summon", a_xy3, 3, "cast a summoning spell: the creature "
	    "appears at (x, y) within 6 squares");
	doc_cmd(w, "burrow", NULL, 0, "Burrow: this turn's movement goes "
	    "underground (Burrow speed, no AoO, no charge)");
	doc_cmd(w, "death_attack", a_tl, 2, "melee attack declaring a Death "
	    "Attack (with Sneak Attack: save or destroyed)");
	doc_cmd(w, "leap", a_t, 1, "Leap: replaces the attacks, a melee "
	    "attack at +N for N damage");
	doc_cmd(w, "stunning_attack", a_tl, 2, "melee attack declaring a "
	    "Stunning Attack (once per turn)");
	doc_cmd(w, "sidestep", a_xy, 2, "Sidestep: one square without "
	    "attacks of opportunity, keeping all attacks");
	doc_cmd(w, "whirlwind", NULL, 0, "Whirlwind Attack: one attack on "
	    "every adjacent enemy");
	doc_cmd(w, "turn_undead", a_t, 1, "Turn Undead: the nearest undead "
	    "saves or routs");
	doc_cmd(w, "wake", a_t, 1, "spend the attack to wake an adjacent "
	    "sleeping creature");
	doc_cmd(w, "rush", a_t, 1, "out of command: rush the nearest enemy "
	    "(then move steps, then melee it)");
	refd_mpw_end(w);
	refd_mpw_end(w);
	return put(ctx, w);
}

static int
op_content_load(refd_ctx *ctx, void *pdata, const uint8_t *b, size_t len,
    void **out)
{
	struct content *c;
	int rc;

	(void)pdata;
	rc = sk_content_load(ctx, b, len, &c);
	if (rc == REFD_OK)
		*out = c;
	return rc;
}

static void
op_content_free(void *pdata, void *content)
{
	(void)pdata;
	H->free(NULL, content);
}

static int
op_create(refd_ctx *ctx, void *pdata, const void *content,
    const uint8_t *setup, size_t len, uint32_t nseats, void **out)
{
	struct cx x;
	struct match *m = NULL;
	int rc;

	(void)pdata;
	cx_init(&x, ctx, content);
	rc = sk_create(&x, setup, len, nseats, &m);
	if (rc == REFD_OK)
		*out = m;
	return rc;
}

static int
op_apply(refd_ctx *ctx, void *state, uint32_t seat, const uint8_t *b,
    size_t len)
{
	struct match *m = state;
	struct state *s = &m->s;
	struct cx x;
	struct cmd c;
	struct why y;
	int rc;

	if (seat >= (uint32_t)((struct match *)state)->s.nseats)
		return H->reject(ctx, REFD_ESEAT, NULL, "no such seat");
	if (s->stage == ST_OVER)
		return H->reject(ctx, REFD_EFINISHED, NULL,
		    "the skirmish is over");
	cx_init(&x, ctx, m->c);
	rc = parse(x.c, b, len, &c);
	if (rc == -3)
		return H->reject(ctx, REFD_EBUILD, "R000-01",
		    "the warband names a card that cards.json lacks");
	if (rc == -4)
		return H->reject(ctx, REFD_EBUILD, "R000-06",
		    "the list names a tile that tiles.json lacks");
	if (rc != 0)
		return H->reject(ctx, REFD_EBADCMD, NULL, "a command is a map "
		    "with a known \"type\" and its integer arguments (see "
		    "describe)");
	rc = check(&x, s, (int)seat, &c, &y);
	if (rc != 0)
		return H->reject(ctx, y.code, y.rule, y.msg);
	exec(&x, s, (int)seat, &c);
	return x.rc;
}

static int
op_legal(refd_ctx *ctx, const void *state, uint32_t seat)
{
	const struct match *m = state;
	struct cx x;
	struct lst l;

	cx_init(&x, ctx, m->c);
	x.pm = malloc(sizeof(*x.pm));	/* none: every map computed anew */
	if (x.pm != NULL) {
		x.pm->s = &m->s;
		x.pm->n = 0;
		x.pm->alt = NULL;
		sk_memo_occupancy(&x, &m->s);
	}
	l.x = &x;
	l.s = &m->s;
	l.seat = (int)seat;
	l.w = refd_mpw_create();
	refd_mpw_array(l.w);
	if (seat < (uint32_t)m->s.nseats)
		legal_list(&l);
	refd_mpw_end(l.w);
	free(x.pm);
	return put(ctx, l.w);
}

static int
op_pending(refd_ctx *ctx, const void *state, uint64_t *seats)
{
	const struct match *m = state;

	(void)ctx;
	*seats = sk_pending(&m->s);
	return REFD_OK;
}

static const char *
stage_name(int st)
{
	static const char *const n[] = { "", "submit", "setup_choice",
		"deploy", "choose_first", "activate", "turn", "over",
		"place_tiles" };

	return st >= 1 && st <= 8 ? n[st] : "?";
}

/* The board a viewer draws (refd-plugin(3), BOARD). */
static void
view_board(refd_mpw *w, const struct match *m, const struct grid *g)
{
	static const char *const fl[] = { "wall", "difficult", "statue",
		"blood", "sacred", "sharp", "pit" };
	const struct state *s = &m->s;
	const struct map *mp = &m->c->m[s->map];
	char t[64];
	int i, k;

	refd_board_begin(w, REFD_BOARD_GRID, mp->w, mp->h);
	refd_board_cells(w);
	for (i = 0; i < mp->w * mp->h; i++) {
		size_t n = 0;

		if (g->flags[i] == 0)
			continue;
		t[0] = '\0';
		for (k = 0; k < 7; k++)
			if (g->flags[i] >> k & 1)
				n += (size_t)snprintf(t + n, sizeof(t) - n,
				    "%s%s", n ? " " : "", fl[k]);
		refd_board_cell(w, i % mp->w, i / mp->w, t);
	}
	refd_mpw_end(w);
	refd_board_pieces(w);
	for (i = 0; i < s->nu; i++) {
		const struct unit *u = &s->u[i];
		const struct card *c = &m->c->c[u->card];
		struct refd_board_piece p = refd_board_piece_init(i, c->name,
		    u->seat, u->x, u->y);

		p.size = c->size;
		p.hp = u->hp;
		p.hp_max = c->hp;
		p.gone = u->gone || !u->on;
		p.role = u->cmd0 ? "commander" : u->minion ? "minion" : NULL;
		refd_board_piece(w, &p);
		if (u->routed)
			refd_mpw_str(w, "routed");
		if (u->stunned)
			refd_mpw_str(w, "stunned");
		if (u->asleep)
			refd_mpw_str(w, "asleep");
		if (u->frightened)
			refd_mpw_str(w, "frightened");
		if (u->invisible)
			refd_mpw_str(w, "invisible");
		if (u->activated > 0)
			refd_mpw_str(w, "activated");
		refd_board_piece_end(w);
	}
	refd_mpw_end(w);
	if (s->stage == ST_TURN && s->cur >= 0)
		refd_mpw_kint(w, "active", s->cur);
	refd_board_info(w);
	refd_mpw_kint(w, "round", s->round);
	refd_mpw_kstr(w, "map", mp->id);
	refd_mpw_karray(w, "victory points");
	for (i = 0; i < s->nseats; i++)
		refd_mpw_int(w, s->vp[i]);
	refd_mpw_end(w);
	refd_mpw_end(w);
	refd_board_end(w);
}

static int
op_view(refd_ctx *ctx, const void *state, int32_t seat)
{
	const struct match *m = state;
	const struct state *s = &m->s;
	const struct map *mp = &m->c->m[s->map];
	refd_mpw *w = refd_mpw_create();
	struct cx x;
	struct grid g;
	int i, k;

	cx_init(&x, ctx, m->c);
	sk_grid(&x, s, &g);
	refd_mpw_map(w);
	refd_mpw_kstr(w, "stage", stage_name(s->stage));
	refd_mpw_kstr(w, "map", mp->id);
	refd_mpw_kint(w, "width", mp->w);
	refd_mpw_kint(w, "height", mp->h);
	refd_mpw_karray(w, "terrain");
	for (i = 0; i < mp->w * mp->h; i++)
		if (g.flags[i] != 0) {
			refd_mpw_array(w);
			refd_mpw_int(w, i % mp->w);
			refd_mpw_int(w, i / mp->w);
			refd_mpw_int(w, g.flags[i]);
			refd_mpw_end(w);
		}
	refd_mpw_end(w);
	refd_mpw_kstr(w, "variant", s->variant ? "quick_assault" :
	    "standard");
	refd_mpw_kint(w, "points", s->points);
	refd_mpw_kint(w, "round", s->round);
	refd_mpw_kint(w, "round_limit", s->round_limit);
	refd_mpw_kint(w, "quiet_rounds", s->quiet);
	refd_mpw_kint(w, "first", s->first);
	refd_mpw_kint(w, "phase_seat", s->phase_seat);
	refd_mpw_kint(w, "phase_left", s->phase_left);
	refd_mpw_karray(w, "vp");
	for (i = 0; i < s->nseats; i++)
		refd_mpw_int(w, s->vp[i]);
	refd_mpw_end(w);
	refd_mpw_karray(w, "submitted");
	for (i = 0; i < s->nseats; i++)
		refd_mpw_bool(w, s->submitted[i]);
	refd_mpw_end(w);
	refd_mpw_karray(w, "teams");
	for (i = 0; i < s->nseats; i++)
		refd_mpw_int(w, s->team[i]);
	refd_mpw_end(w);
	if (!s->revealed && seat >= 0 && seat < s->nseats &&
	    s->submitted[seat]) {
		refd_mpw_karray(w, "my_warband");
		for (i = 0; i < s->nsub[seat]; i++)
			refd_mpw_str(w, m->c->c[s->sub[seat][i]].id);
		refd_mpw_end(w);
	}
	refd_mpw_kbool(w, "tiled", s->tiled);
	refd_mpw_karray(w, "tiles");
	for (i = 0; i < s->nplaced; i++) {
		refd_mpw_map(w);
		refd_mpw_kstr(w, "tile", m->c->t[s->placed[i][0]].id);
		refd_mpw_kint(w, "x", s->placed[i][1]);
		refd_mpw_kint(w, "y", s->placed[i][2]);
		refd_mpw_kint(w, "rot", s->placed[i][3]);
		refd_mpw_kint(w, "seat", s->placed[i][4]);
		refd_mpw_end(w);
	}
	refd_mpw_end(w);
	if (s->stage == ST_TILES)
		refd_mpw_kint(w, "place_seat", s->place_seat);
	refd_mpw_karray(w, "units");
	for (i = 0; i < s->nu; i++) {
		const struct unit *u = &s->u[i];
		const struct card *c = &m->c->c[u->card];

		refd_mpw_map(w);
		refd_mpw_kint(w, "id", i);
		refd_mpw_kstr(w, "card", c->id);
		refd_mpw_kstr(w, "name", c->name);
		refd_mpw_kint(w, "seat", u->seat);
		refd_mpw_kint(w, "x", u->x);
		refd_mpw_kint(w, "y", u->y);
		refd_mpw_kint(w, "size", c->size);
		refd_mpw_kbool(w, "on", u->on);
		refd_mpw_kbool(w, "gone", u->gone);
		refd_mpw_kint(w, "hp", u->hp);
		refd_mpw_kint(w, "max_hp", c->hp);
		refd_mpw_kbool(w, "routed", u->routed);
		refd_mpw_kbool(w, "stunned", u->stunned);
		refd_mpw_kbool(w, "asleep", u->asleep);
		refd_mpw_kbool(w, "frightened", u->frightened);
		refd_mpw_kbool(w, "invisible", u->invisible);
		refd_mpw_kbool(w, "half_done", u->half_done);
		refd_mpw_kbool(w, "activated", u->activated > 0);
		if (u->cmd0)
			refd_mpw_kbool(w, "commander0", 1);
		if (u->minion)
			refd_mpw_kbool(w, "minion", 1);
		if (u->partner >= 0)
			refd_mpw_kint(w, "partner", u->partner);
		if (u->summoner1)
			refd_mpw_kint(w, "summoner", u->summoner1 - 1);
		refd_mpw_karray(w, "spells_used");
		for (k = 0; k < c->nspell; k++)
			refd_mpw_int(w, u->spent[k]);
		refd_mpw_end(w);
		if (c->pp > 0)
			refd_mpw_kint(w, "power_points", c->pp - u->pp_spent);
		refd_mpw_end(w);
	}
	refd_mpw_end(w);
	if (s->stage == ST_TURN && s->cur >= 0) {
		refd_mpw_kmap(w, "turn");
		refd_mpw_kint(w, "unit", s->cur);
		refd_mpw_kbool(w, "under_command", !s->oocmd);
		refd_mpw_kint(w, "speed", s->speed);
		refd_mpw_kint(w, "moved", s->moved);
		refd_mpw_kint(w, "moved_after_attack", s->moved2);
		refd_mpw_kint(w, "attacks", s->natk);
		refd_mpw_end(w);
	}
	if (s->dec != DEC_NONE) {
		refd_mpw_kmap(w, "decision");
		refd_mpw_kstr(w, "kind", s->dec == DEC_AOO ? "aoo" :
		    s->dec == DEC_PUSH ? (s->dec_mode == 0 ? "push" :
		    s->dec_mode == 1 ? "pull" : "slide") : s->dec == DEC_REROLL ?
		    "reroll" : s->dec == DEC_IMMED ? "immediate" : s->dec == DEC_DSTRIKE ?
		    "death_strike" : "cleave");
		if (s->dec == DEC_PUSH)
			refd_mpw_kint(w, "target", s->dec_target);
		refd_mpw_kint(w, "unit", s->dec_unit);
		if (s->dec == DEC_AOO && s->nprog > 0)
			refd_mpw_kint(w, "mover", s->pr[s->nprog - 1].unit);
		refd_mpw_end(w);
	}
	if (s->stage == ST_OVER)
		refd_mpw_kint(w, "winner", s->winner);
	view_board(w, m, &g);
	refd_mpw_end(w);
	return put(ctx, w);
}

static int
op_result(refd_ctx *ctx, const void *state)
{
	const struct match *m = state;
	const struct state *s = &m->s;
	static const char *const rs[] = { "", "all enemies eliminated",
		"quick assault", "stalemate", "round limit", "victory points" };
	refd_mpw *w;
	int rc, i;

	if (s->stage != ST_OVER)
		return 0;
	w = refd_mpw_create();
	refd_mpw_map(w);
	refd_mpw_karray(w, "winners");
	for (i = 0; i < s->nseats && s->winner >= 0; i++)
		if (s->team[i] == s->team[s->winner])
			refd_mpw_int(w, i);
	refd_mpw_end(w);
	refd_mpw_kstr(w, "reason", rs[s->reason > 5 ? 0 : s->reason]);
	refd_mpw_karray(w, "vp");
	for (i = 0; i < s->nseats; i++)
		refd_mpw_int(w, s->vp[i]);
	refd_mpw_end(w);
	refd_mpw_kint(w, "rounds", s->round);
	refd_mpw_end(w);
	rc = put(ctx, w);
	return rc == REFD_OK ? 1 : rc;
}

/*
 * The state is flat int32_t: its bytes are its serialization, in three
 * parts: before the units, the nu units in play, after the unit array
 * (the unused unit slots are zero and left out).
 */
#define SK_HEAD offsetof(struct state, u)
#define SK_TAIL offsetof(struct state, cur)

static int
op_serialize(refd_ctx *ctx, const void *state)
{
	const struct match *m = state;
	const uint8_t *b = (const uint8_t *)&m->s;
	refd_mpw *w = refd_mpw_create();

	refd_mpw_array(w);
	refd_mpw_bin(w, b, SK_HEAD);
	refd_mpw_bin(w, b + SK_HEAD, sizeof(struct unit) * (size_t)m->s.nu);
	refd_mpw_bin(w, b + SK_TAIL, sizeof(struct state) - SK_TAIL);
	refd_mpw_end(w);
	return put(ctx, w);
}

static int
op_restore(refd_ctx *ctx, void *pdata, const void *content, const uint8_t *b,
    size_t len, void **out)
{
	refd_mpdoc *d = refd_mp_parse(b, len);
	refd_mpv root = refd_mp_root(d);
	const uint8_t *head, *units, *tail;
	size_t nh, nun, nt;
	struct match *m;

	(void)pdata;
	if (d == NULL || refd_mpv_len(root) != 3 ||
	    refd_mpv_bin(refd_mpv_at(root, 0), &head, &nh) != 0 ||
	    refd_mpv_bin(refd_mpv_at(root, 1), &units, &nun) != 0 ||
	    refd_mpv_bin(refd_mpv_at(root, 2), &tail, &nt) != 0 ||
	    nh != SK_HEAD || nt != sizeof(struct state) - SK_TAIL ||
	    nun > sizeof(struct unit) * SK_MAXU ||
	    nun % sizeof(struct unit) != 0) {
		refd_mp_free(d);
		return H->reject(ctx, REFD_EARG, NULL, "state is damaged");
	}
	m = H->alloc(ctx, sizeof(*m));
	if (m == NULL) {
		refd_mp_free(d);
		return REFD_ENOMEM;
	}
	memset(m, 0, sizeof(*m));
	memcpy(&m->s, head, nh);
	memcpy(m->s.u, units, nun);
	memcpy((uint8_t *)&m->s + SK_TAIL, tail, nt);
	refd_mp_free(d);
	m->c = content;
	if ((size_t)m->s.nu * sizeof(struct unit) != nun ||
	    m->s.magic != SK_STATE_MAGIC || m->s.nu < 0 || m->s.nu > SK_MAXU ||
	    m->s.nseats < 2 || m->s.nseats > SK_MAXSEATS ||
	    m->s.map < 0 || m->s.map >= m->c->nmaps || m->s.nprog < 0 ||
	    m->s.nprog > SK_MAXPROG) {
		H->free(ctx, m);
		return H->reject(ctx, REFD_EARG, NULL, "state is damaged");
	}
	*out = m;
	return REFD_OK;
}

static void
op_destroy(refd_ctx *ctx, void *state)
{
	H->free(ctx, state);
}

/* Re-deal seat's sealed warband (before the reveal) among the listed
 * warbands: hidden data only. */
static int
op_redeal(refd_ctx *ctx, void *state, uint32_t seat)
{
	struct match *m = state;
	struct state *s = &m->s;
	const struct content *c = m->c;
	uint32_t k;
	int rc;

	if (seat >= (uint32_t)s->nseats || s->revealed || !s->submitted[seat] ||
	    c->nwb == 0)
		return REFD_OK;
	rc = H->uniform(ctx, (uint32_t)c->nwb, "redeal", &k);
	if (rc != REFD_OK)
		return rc;
	s->nsub[seat] = c->wb[k].n;
	memcpy(s->sub[seat], c->wb[k].card, sizeof(s->sub[seat]));
	return REFD_OK;
}

static const struct refd_plugin_ops ops = {
	sizeof(struct refd_plugin_ops),
	op_init,
	NULL,
	op_describe,
	op_content_load,
	op_content_free,
	op_create,
	op_apply,
	op_legal,
	op_pending,
	op_view,
	op_result,
	op_serialize,
	op_restore,
	op_destroy,
	op_redeal,
};

REFD_PLUGIN_DEFINE_CAPS("skirmish", "0.1.0",
    "d20 warband skirmish on a square grid", 2, SK_MAXSEATS,
    REFD_PF_HIDDEN | REFD_PF_SEALED_SETUP | REFD_PF_ROLLBACK,
    REFD_CAP_DRAWS | REFD_CAP_EVENTS | REFD_CAP_COMMIT, &ops);
