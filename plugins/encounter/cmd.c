/*
 * cmd.c - the encounter ruleset's commands: parsing, the checks that
 * decide both what apply accepts and what legal lists, the actions, the
 * attacks of opportunity and other off-turn prompts, and the turn order
 * with delay (spec 1, 4, 5, 8.3).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "conceal.h"
#include "maneuver.h"
#include "gear.h"
#include "geom.h"
#include "mount.h"
#include "move.h"
#include "magic.h"

const char *const cmd_name[C_NCMD] = {
	"move", "step", "attack", "full_attack", "charge", "run", "withdraw",
	"total_defense", "delay", "stand_up", "drop_prone", "trip",
	"bull_rush", "disarm", "sunder", "grapple", "grapple_damage",
	"escape", "feint", "aid", "coup_de_grace", "stabilize", "end_turn",
	"aoo", "counter", "follow", "act", "wait", "ready", "fire", "crawl",
	"minimum_move", "cast", "overrun", "avoid", "cleave", "pin",
	"release", "throw", "draw", "sheathe", "turn_undead", "drink",
	"grapple_move", "use_weapon", "break_pin",
	"mount", "dismount", "guide_with_knees", "control_mount",
	"mount_attack",
	"hide", "spot",
	"use_item", "use_ability", "touch", "rebuke", "dispel_turning",
	"bolster", "command", "rest",
	"pick_up", "drop", "shield", "hold", "load",
	"retrieve_component"
};

int
rej(struct why *w, int code, const char *rule, const char *fmt, ...)
{
	va_list ap;

	w->code = code;
	w->rule = rule;
	va_start(ap, fmt);
	vsnprintf(w->msg, sizeof(w->msg), fmt, ap);
	va_end(ap);
	return code;
}

int
active(const struct st *s)
{
	return s->order[s->cur];
}

static int
find(const struct st *s, const char *name)
{
	int i;

	for (i = 0; i < s->nc; i++)
		if (strcmp(s->c[i].d.name, name) == 0)
			return i;
	return -1;
}

static int
getxy(refd_mpv v, int *x, int *y)
{
	int64_t a, b;

	if (refd_mpv_type(v) != REFD_MP_ARRAY || refd_mpv_len(v) != 2 ||
	    refd_mpv_int(refd_mpv_at(v, 0), &a) != 0 ||
	    refd_mpv_int(refd_mpv_at(v, 1), &b) != 0 || a < -1000 ||
	    a > 1000 || b < -1000 || b > 1000)
		return -1;
	*x = (int)a;
	*y = (int)b;
	return 0;
}

/* The creature a command names under key, if it names one: 0, or a
 * refusal when no creature has that name. */
static int
named(const struct st *s, refd_mpv r, const char *key, int *out,
    struct why *w)
{
	refd_mpv v = refd_mpv_get(r, key);

	if (refd_mpv_ok(v) && (*out = find(s, refd_mpv_cstr(v, ""))) < 0)
		return rej(w, REFD_ENOTARGET, "R001-70",
		    "no creature named '%.40s'", refd_mpv_cstr(v, "?"));
	return 0;
}

int
cmd_parse(const struct st *s, const uint8_t *b, size_t len, struct cmd *c,
    struct why *w)
{
	refd_mpdoc *d = refd_mp_parse(b, len);
	refd_mpv r = refd_mp_root(d), v;
	const char *t;
	int i, bad = 0;

	memset(c, 0, sizeof(*c));
	c->target = c->ally = c->ovr = -1;
	if (d == NULL || refd_mpv_type(r) != REFD_MP_MAP) {
		refd_mp_free(d);
		return rej(w, REFD_EBADCMD, "R001-70",
		    "a command is a map with a \"type\"");
	}
	t = refd_mpv_get_str(r, "type", "");
	for (i = 0; i < C_NCMD; i++)
		if (strcmp(t, cmd_name[i]) == 0)
			break;
	if (i == C_NCMD) {
		rej(w, REFD_EBADCMD, "R001-70", "unknown command type '%.40s'",
		    t);
		refd_mp_free(d);
		return w->code;
	}
	c->t = i;
	if (named(s, r, "target", &c->target, w) != 0 ||
	    named(s, r, "ally", &c->ally, w) != 0 ||
	    named(s, r, "overrun", &c->ovr, w) != 0) {
		refd_mp_free(d);
		return w->code;
	}
	v = refd_mpv_get(r, "to");
	if (refd_mpv_ok(v)) {
		c->has_to = 1;
		bad |= getxy(v, &c->x, &c->y);
	}
	v = refd_mpv_get(r, "square");
	if (refd_mpv_ok(v)) {
		c->has_sq = 1;
		bad |= getxy(v, &c->sqx, &c->sqy);
	}
	v = refd_mpv_get(r, "point");
	if (refd_mpv_ok(v)) {
		c->has_pt = 1;
		bad |= getxy(v, &c->ptx, &c->pty);
	}
	v = refd_mpv_get(r, "path");
	if (refd_mpv_ok(v)) {
		if (refd_mpv_type(v) != REFD_MP_ARRAY ||
		    refd_mpv_len(v) < 1 || refd_mpv_len(v) >= MAXPATH)
			bad = 1;
		else
			for (i = 0; i < (int)refd_mpv_len(v); i++)
				bad |= getxy(refd_mpv_at(v, (size_t)i),
				    &c->px[i], &c->py[i]);
		c->npath = (int)refd_mpv_len(v);
	}
	c->defensive = refd_mpv_get_bool(r, "defensive", 0);
	c->nonlethal = refd_mpv_get_bool(r, "nonlethal", 0);
	c->lethal = refd_mpv_get_bool(r, "lethal", 0);
	c->off = refd_mpv_get_bool(r, "off", 0);
	c->thrown = refd_mpv_get_bool(r, "thrown", 0);
	c->take = refd_mpv_get_bool(r, "take", 0);
	c->full = refd_mpv_get_bool(r, "full", 0);
	c->start = refd_mpv_get_bool(r, "start", 0);
	c->fast = refd_mpv_get_bool(r, "fast", 0);
	c->mm = refd_mpv_get_bool(r, "mount_moves", 0);
	c->artist = refd_mpv_get_bool(r, "artist", 0);
	t = refd_mpv_get_str(r, "trigger", "reach");
	if (strcmp(t, "reach") == 0)
		c->trig = 0;
	else if (strcmp(t, "casts") == 0)
		c->trig = 1;
	else
		bad = 1;
	t = refd_mpv_get_str(r, "kind", "attack");
	if (strcmp(t, "attack") == 0)
		c->kind = C_ATTACK;
	else if (strcmp(t, "bull_rush") == 0)
		c->kind = C_BULL;
	else
		bad = 1;
	t = refd_mpv_get_str(r, "mode", "attack");
	if (strcmp(t, "attack") == 0)
		c->mode = 1;
	else if (strcmp(t, "ac") == 0)
		c->mode = 2;
	else if (strcmp(t, "wake") == 0)
		c->mode = 3;
	else
		bad = 1;
	snprintf(c->spell, sizeof(c->spell), "%s",
	    refd_mpv_get_str(r, "spell", ""));
	t = refd_mpv_get_str(r, "item", "weapon");
	if (strcmp(t, "weapon") == 0)
		c->item = 0;
	else if (strcmp(t, "armor") == 0)
		c->item = 1;
	else if (strcmp(t, "shield") == 0)
		c->item = 2;
	else if (strcmp(t, "potion") == 0)
		c->item = 3;
	else if (strcmp(t, "worn") == 0)
		c->item = ITEM_WORN;
	else
		bad = 1;
	bad |= mg_parse(r, c);
	bad |= gr_parse(r, c);
	refd_mp_free(d);
	if (bad)
		return rej(w, REFD_EBADCMD, "R001-70",
		    "malformed argument: squares are [x, y] integer pairs, "
		    "kind is attack|bull_rush, mode attack|ac, item "
		    "weapon|armor|shield|potion|worn (worn: disarm only), "
		    "silence: pin only");
	return REFD_OK;
}

/* Budget (R001-04, R001-05). */
int can_full(const struct st *s, const struct cr *c);
int
can_std(const struct st *s, const struct cr *c)
{
	if (c->cond & COND_NAUSEATED)
		return 0;	/* 6.2: a single move action */
	return !s->full && !s->std && !s->fa && s->mv <= 1 &&
	    !(restricted(s, c) && s->mv);
}

int
can_move(const struct st *s, const struct cr *c)
{
	if (s->fa)
		return s->fa_main + s->fa_off >= 1;
	return !s->full && s->mv + s->std < 2 &&
	    !(restricted(s, c) && (s->mv || s->std));
}

/*
 * A full-round action under restricted activity (1.6): started as a
 * standard action ("start": true), completed as a standard action on the
 * creature's next turn by sending the same action again.
 */
static int
full_ok(const struct st *s, const struct cr *c, const struct cmd *cm)
{
	int std_ok = !s->full && !s->std && !s->fa && s->mv == 0;

	if (cm->start)
		return restricted(s, c) && std_ok && !s->surprise;
	if (c->pend_act == cm->t && c->pend_round == s->round - 1)
		return std_ok;
	return can_full(s, c);
}

int
can_full(const struct st *s, const struct cr *c)
{
	return !s->full && !s->std && !s->mv && !s->fa && !restricted(s, c);
}

int
nmain(const struct cr *c)
{
	int b = c->d.bab;

	return 1 + (b >= 6) + (b >= 11) + (b >= 16);
}

/* Something replacing an attack of a full attack has one left (2.9). */
int
attack_slot_ok(const struct st *s, const struct cr *A, struct why *y)
{
	if (!s->fa && !can_full(s, A))
		return rej(y, REFD_ERESOURCE, "R001-24",
		    "a full attack takes the whole turn");
	if (s->fa && s->fa_main >= nmain(A))
		return rej(y, REFD_ERESOURCE, "R001-24",
		    "%s has no main-hand attack left", A->d.name);
	return REFD_OK;
}

static int
has_off(const struct cr *c)
{
	/* A melee off-hand weapon, or a thrown one with a thrown main
	 * weapon (thrown weapons in pairs, 2.13). */
	return (c->d.w[1].nd > 0 && (!c->d.w[1].ranged ||
	    (c->d.w[1].ranged == 1 && c->d.w[0].ranged == 1))) ||
	    c->d.w[0].dbl;
}

/* Two-weapon penalties (2.13): primary and off hand. */
static void
twf(const struct cr *c, int *pp, int *po)
{
	*pp = 0;
	*po = 0;
	if (!has_off(c))
		return;
	*pp = 6;
	*po = 10;
	if (c->d.w[1].cat == 0 || c->d.w[0].dbl) {	/* light or two-headed */
		*pp -= 2;
		*po -= 2;
	}
	if (c->d.feats & F_TWF) {
		*pp -= 2;
		*po -= 6;
	}
}

const char *
nm(const struct st *s, int i)
{
	return s->c[i].d.name;
}

/* A throwable melee weapon (a dagger) used as a thrown weapon (2.11). */
static const struct weapon *
thrown_weapon(const struct weapon *in, struct weapon *out)
{
	*out = *in;
	out->ranged = 1;
	out->reach = 0;
	return out;
}

/* The attack throws the throwable melee weapon: asked to, or its target
 * is out of melee reach (2.11). */
static int
throws(const struct st *s, int a, const struct cmd *c, int t)
{
	const struct cr *A = &s->c[a];

	if (!W_THROWABLE(&A->d.w[0]) || c->off || c->has_sq)
		return 0;
	return c->thrown || (t >= 0 && t != a && !s->c[t].dead &&
	    !reaches(s, A, &A->d.w[0], &s->c[t]));
}

/* The attack itself can be made: target, reach or range, line of effect. */
static int
target_ok(const struct st *s, int a, int t, const struct weapon *w,
    struct why *y)
{
	const struct cr *A = &s->c[a], *T;
	int d;

	if (t < 0)
		return rej(y, REFD_ENOTARGET, "R001-70", "name a \"target\"");
	T = &s->c[t];
	if (t == a)
		return rej(y, REFD_ENOTARGET, "R001-70",
		    "%s cannot attack itself", A->d.name);
	if (T->dead)
		return rej(y, REFD_ENOTARGET, "R001-29", "%s is dead",
		    T->d.name);
	if (!perceives(s, a, t))
		return rej(y, REFD_ENOTARGET, "R001-39",
		    "%s cannot see %s: attack a square instead", A->d.name,
		    T->d.name);
	if (!has_loe(s, a, t))
		return rej(y, REFD_ENOTARGET, "R001-37",
		    "%s has total cover from %s: no line of effect",
		    T->d.name, A->d.name);
	d = cdist(A, T);
	if (w->ranged) {
		int max = w->incr * (w->ranged == 1 ? 5 : 10);

		if (d > max)
			return rej(y, REFD_ERANGE, "R001-23",
			    "%s is %d squares away: the %s reaches %d", T->d.name,
			    d, w->name, max);
		if (A->prone && !w->crossbow)
			return rej(y, REFD_EILLEGAL, "R001-20",
			    "%s is prone and cannot shoot the %s", A->d.name,
			    w->name);
		return REFD_OK;
	}
	if (!reaches(s, A, w, T)) {
		if (w->reach && d <= natreach(A))
			return rej(y, REFD_ERANGE, "R001-82",
			    "%s's %s cannot strike %s inside its reach band "
			    "(distance %d)", A->d.name, w->name, T->d.name, d);
		return rej(y, REFD_ERANGE, "R001-11",
		    "%s is out of %s's reach (distance %d)", T->d.name,
		    A->d.name, d);
	}
	return REFD_OK;
}

/* A coup de grace on a square (5.12): two full-round actions. */
static int
cdg_square_ok(const struct st *s, int a, const struct cmd *c, struct why *y)
{
	const struct cr *A = &s->c[a];
	int i;

	if (c->target >= 0)
		return rej(y, REFD_EBADCMD, "R001-39",
		    "give a \"target\" or a \"square\", not both");
	if (c->start || !can_full(s, A))
		return rej(y, REFD_ERESOURCE, "R001-39",
		    "finding and striking an unseen creature takes two whole "
		    "turns");
	if (c->sqx < 0 || c->sqy < 0 || c->sqx >= s->w || c->sqy >= s->h ||
	    g_space_dist(A->x, A->y, space_n(A), c->sqx, c->sqy, 1) != 1)
		return rej(y, REFD_ERANGE, "R001-47",
		    "a coup de grace needs an adjacent square");
	for (i = 0; i < s->nc; i++)
		if (!s->c[i].dead && perceives(s, a, i) &&
		    occupant(s, c->sqx, c->sqy, -1) == i)
			return rej(y, REFD_ENOTARGET, "R001-39",
			    "%s is in that square: name it", s->c[i].d.name);
	return REFD_OK;
}

/* An attack on a square, against what the attacker cannot see (5.2). */
static int
square_ok(const struct st *s, int a, const struct cmd *c,
    const struct weapon *w, struct why *y)
{
	const struct cr *A = &s->c[a];
	struct cr sq;
	int i, d;

	if (c->target >= 0)
		return rej(y, REFD_EBADCMD, "R001-39",
		    "give a \"target\" or a \"square\", not both");
	if (c->sqx < 0 || c->sqy < 0 || c->sqx >= s->w || c->sqy >= s->h)
		return rej(y, REFD_ERANGE, "R001-39", "(%d,%d) is off the map",
		    c->sqx, c->sqy);
	for (i = 0; i < s->nc; i++)
		if (!s->c[i].dead && perceives(s, a, i) &&
		    occupant(s, c->sqx, c->sqy, -1) == i)
			return rej(y, REFD_ENOTARGET, "R001-39",
			    "%s is in that square: attack it by name",
			    s->c[i].d.name);
	memset(&sq, 0, sizeof(sq));
	sq.x = c->sqx;
	sq.y = c->sqy;
	d = g_space_dist(A->x, A->y, space_n(A), sq.x, sq.y, 1);
	if (w->ranged) {
		if (d > w->incr * (w->ranged == 1 ? 5 : 10) || d == 0)
			return rej(y, REFD_ERANGE, "R001-23",
			    "(%d,%d) is out of range", sq.x, sq.y);
		return REFD_OK;
	}
	if (!reaches(s, A, w, &sq))
		return rej(y, REFD_ERANGE, "R001-11",
		    "(%d,%d) is out of %s's reach", sq.x, sq.y, A->d.name);
	return REFD_OK;
}

/* Distance from a creature to a lattice point: to the nearest of the
 * four squares sharing it. */
static int
point_dist(const struct cr *A, int px, int py)
{
	int i, d, best = 1 << 20;

	for (i = 0; i < 4; i++) {
		d = g_space_dist(A->x, A->y, space_n(A), px - 1 + (i & 1),
		    py - 1 + (i >> 1), 1);
		if (d < best)
			best = d;
	}
	return best;
}

/* Drawing is free with a move action used for movement at BAB +1
 * (1.6), once a turn. */
int
draw_free(const struct st *s, const struct cr *A)
{
	return A->d.bab >= 1 && s->moveact && !s->freedraw;
}

static int
size_gap_ok(const struct st *s, int a, int t, const char *what,
    const char *rule, struct why *y)
{
	if (s->c[t].d.size > s->c[a].d.size + 1)
		return rej(y, REFD_EILLEGAL, rule,
		    "%s is more than one size larger than %s: no %s",
		    nm(s, t), nm(s, a), what);
	return REFD_OK;
}

static int
allowance(const struct st *s, const struct cr *c, int t)
{
	int sp = speed_of(c);

	if (t == C_WITHDRAW)
		return restricted(s, c) ? sp : 2 * sp;
	return sp;
}

int
check_path(const struct st *s, int a, struct cmd *c, int allow,
    struct why *y)
{
	const struct cr *A = &s->c[a];
	int16_t dist[MAXM][MAXM][2], prev[MAXM][MAXM][2];
	int i, cost = 0, par = s->diag & 1, np, sc;

	if (c->npath > 0) {
		if (c->px[0] != A->x || c->py[0] != A->y) {
			if (c->npath + 1 >= MAXPATH)
				return rej(y, REFD_ENOPATH, "R001-07",
				    "path too long");
			memmove(c->px + 1, c->px, sizeof(int) * (size_t)c->npath);
			memmove(c->py + 1, c->py, sizeof(int) * (size_t)c->npath);
			c->px[0] = A->x;
			c->py[0] = A->y;
			c->npath++;
		}
		if (c->npath < 2)
			return rej(y, REFD_ENOPATH, "R001-07",
			    "the path has no step");
		for (i = 1; i < c->npath; i++) {
			if (c->px[i] < 0 || c->py[i] < 0 || c->px[i] >= s->w ||
			    c->py[i] >= s->h)
				return rej(y, REFD_ENOPATH, "R001-07",
				    "(%d,%d) is off the map", c->px[i],
				    c->py[i]);
			sc = step_cost(s, a, c->px[i - 1], c->py[i - 1],
			    c->px[i], c->py[i], par, &np, 0);
			if (sc < 0)
				return rej(y, REFD_ENOPATH, "R001-09",
				    "the step (%d,%d)->(%d,%d) is blocked "
				    "(wall, corner, enemy or map edge)",
				    c->px[i - 1], c->py[i - 1], c->px[i],
				    c->py[i]);
			cost += sc;
			par = np;
		}
		if (cost > allow)
			return rej(y, REFD_ENOPATH, "R001-08",
			    "the path costs %d squares of movement; %s has %d",
			    cost, A->d.name, allow);
		c->x = c->px[c->npath - 1];
		c->y = c->py[c->npath - 1];
	} else {
		if (!c->has_to)
			return rej(y, REFD_EBADCMD, "R001-70",
			    "give \"to\": [x, y] or a \"path\"");
		if (c->x < 0 || c->y < 0 || c->x >= s->w || c->y >= s->h)
			return rej(y, REFD_ENOPATH, "R001-07",
			    "(%d,%d) is off the map", c->x, c->y);
		if (c->x == A->x && c->y == A->y)
			return rej(y, REFD_ENOPATH, "R001-07",
			    "%s is already at (%d,%d)", A->d.name, c->x, c->y);
		reach_map(s, a, allow, par, dist, prev);
		c->npath = reach_path(s, a, dist, prev, c->x, c->y, c->px,
		    c->py, &cost);
		if (c->npath < 2)
			return rej(y, REFD_ENOPATH, "R001-08",
			    "%s cannot reach (%d,%d) with %d squares of "
			    "movement", A->d.name, c->x, c->y, allow);
	}
	if (!free_at(s, a, c->x, c->y))
		return rej(y, REFD_ENOPATH, "R001-09",
		    "%s cannot end its movement in an occupied space at "
		    "(%d,%d)", A->d.name, c->x, c->y);
	return REFD_OK;
}

static int
movement_ok(const struct st *s, const struct cr *A, struct why *y)
{
	if (A->prone)
		return rej(y, REFD_EILLEGAL, "R001-71",
		    "%s is prone: stand up first", A->d.name);
	if (A->grap)
		return rej(y, REFD_EILLEGAL, "R001-56",
		    "%s is grappling and cannot move", A->d.name);
	if (s->step5)
		return rej(y, REFD_EILLEGAL, "R001-06",
		    "%s took a 5-foot step this round: no other movement",
		    A->d.name);
	return REFD_OK;
}

/* The square a charger must reach: the closest space from which it
 * attacks t (5.3); ties: the charger's "to" (D001-29). */
static int
charge_dest(const struct st *s, int a, int t, struct cmd *c, struct why *y)
{
	struct st *m = (struct st *)s;	/* probing positions only */
	struct cr *A = &m->c[a];
	struct weapon w;
	int ox = A->x, oy = A->y, x, y0, best = 1 << 20, d, okpick = 0;
	int fx = -1, fy = -1, given = 0;

	melee_weapon(A, &w);
	for (y0 = 0; y0 < s->h; y0++)
		for (x = 0; x < s->w; x++) {
			A->x = x;
			A->y = y0;
			if (!reaches(s, A, &w, &s->c[t])) {
				continue;
			}
			A->x = ox;
			A->y = oy;
			d = g_space_dist(ox, oy, space_n(A), x, y0,
			    space_n(A));
			if (d < best) {
				best = d;
				okpick = 0;
				fx = fy = -1;
				given = 0;
			}
			if (d == best) {
				int fr = free_at(s, a, x, y0);

				if (c->has_to && c->x == x && c->y == y0)
					given = 1 + fr;
				if (fr && fx < 0) {
					fx = x;
					fy = y0;
					okpick = 1;
				}
			}
			A->x = x;
			A->y = y0;
		}
	A->x = ox;
	A->y = oy;
	if (best == 1 << 20)
		return rej(y, REFD_ENOPATH, "R001-42",
		    "no square on the map lets %s attack %s", A->d.name,
		    nm(s, t));
	if (c->has_to) {
		if (given == 0)
			return rej(y, REFD_ENOPATH, "R001-42",
			    "(%d,%d) is not a closest square from which %s can "
			    "attack %s", c->x, c->y, A->d.name, nm(s, t));
		if (given == 1)
			return rej(y, REFD_ENOPATH, "R001-42",
			    "the closest square (%d,%d) is occupied or blocked",
			    c->x, c->y);
	} else {
		if (!okpick)
			return rej(y, REFD_ENOPATH, "R001-42",
			    "every closest square from which %s can attack %s "
			    "is occupied or blocked", A->d.name, nm(s, t));
		c->x = fx;
		c->y = fy;
	}
	if (best < 2)
		return rej(y, REFD_ENOPATH, "R001-42",
		    "a charge needs at least 2 squares of movement; the "
		    "closest attack square is %d away", best);
	return best;
}

static int
prompt_seat(const struct st *s)
{
	return s->c[s->q[s->qi]].side;
}

/* a may cleave into t: a standing enemy it sees and reaches (2.9). */
static int
cleave_ok(const struct st *s, int a, int t)
{
	const struct cr *A = &s->c[a], *T = &s->c[t];
	struct weapon w;

	if (t == a || T->dead || T->side == A->side || helpless(T) ||
	    !perceives(s, a, t))
		return 0;
	melee_weapon(A, &w);
	return reaches(s, A, &w, T);
}

int
cmd_check(const struct st *s, int seat, struct cmd *c, struct why *y)
{
	int a, rc, t = c->target;
	const struct cr *A, *T = t >= 0 ? &s->c[t] : NULL;
	struct weapon w;

	if (s->over && s->resting == 2)
		return mg_rest_check(s, seat, c, y);
	if (s->over)
		return rej(y, REFD_EFINISHED, "R001-81", "the fight is over");
	if (s->pk != PK_NONE) {
		static const int want[] = { 0, C_AOO, C_COUNTER, C_FOLLOW,
			C_ACT, C_FIRE, C_AVOID, C_CLEAVE, C_HOLD };

		if (seat != prompt_seat(s))
			return rej(y, REFD_ENOTYOURTURN, "R001-70",
			    "waiting for seat %d to answer a prompt",
			    prompt_seat(s));
		if (c->t != want[s->pk] && !(s->pk == PK_DELAY &&
		    c->t == C_WAIT))
			return rej(y, REFD_EPHASE, "R001-70",
			    "answer the pending prompt with \"%s\"",
			    s->pk == PK_DELAY ? "act\" or \"wait" :
			    cmd_name[want[s->pk]]);
		if (s->pk == PK_CLEAVE && c->target >= 0 &&
		    !cleave_ok(s, s->q[0], c->target))
			return rej(y, REFD_ENOTARGET, "R001-24",
			    "%s cannot cleave into %s: not a standing enemy it "
			    "can see within reach", nm(s, s->q[0]),
			    nm(s, c->target));
		if (s->pk == PK_AOO && c->target >= 0 && c->target != s->k.who &&
		    (!mt_pair(s, c->target, s->k.who) || (s->k.kind == K_ACT &&
		    s->k.act == C_BULL)))
			return rej(y, REFD_ENOTARGET, "R001-58",
			    "the attack of opportunity strikes %s or the mount "
			    "it rides", nm(s, s->k.who));
		return REFD_OK;
	}
	if (c->t == C_AOO || c->t == C_COUNTER || c->t == C_FOLLOW ||
	    c->t == C_ACT || c->t == C_WAIT || c->t == C_FIRE ||
	    c->t == C_AVOID || c->t == C_CLEAVE || c->t == C_HOLD)
		return rej(y, REFD_EPHASE, "R001-70",
		    "there is no prompt to answer");
	a = active(s);
	A = &s->c[a];
	if (seat != A->side)
		return rej(y, REFD_ENOTYOURTURN, "R001-01",
		    "it is %s's turn (seat %d)", A->d.name, A->side);
	melee_weapon(A, &w);
	if ((rc = mg_check(s, a, c, y)) != 1)
		return rc;
	if (cc_no_attack(c->t) && cc_squeeze_now(s, a) == 2)
		return rej(y, REFD_EILLEGAL, "R001-73",
		    "%s is squeezed into a space narrower than half its width: "
		    "it cannot attack", A->d.name);
	if (c->start && c->t != C_CDG && c->t != C_CAST && c->t != C_MINMOVE)
		return rej(y, REFD_EILLEGAL, "R001-05",
		    "only a coup de grace, a full-round spell or the minimum "
		    "move can be started (not a full attack, charge, run or "
		    "withdraw)");
	{
		int done;	/* mounted combat (5.15) */

		rc = mt_check(s, a, c, y, &done);
		if (done)
			return rc;
	}
	switch (c->t) {
	case C_END:
	case C_PRONE:
		if (c->t == C_PRONE && A->prone)
			return rej(y, REFD_EILLEGAL, "R001-71",
			    "%s is already prone", A->d.name);
		return REFD_OK;
	case C_MOVE:
		if ((rc = movement_ok(s, A, y)) != REFD_OK)
			return rc;
		if (!A->mounted && !can_move(s, A))
			return rej(y, REFD_ERESOURCE, "R001-04",
			    "%s has no move action left this turn", A->d.name);
		if ((rc = check_path(s, a, c, allowance(s, A, C_MOVE), y)) !=
		    REFD_OK)
			return rc;
		return mt_path_ok(s, a, c, y);
	case C_WITHDRAW:
		if ((rc = movement_ok(s, A, y)) != REFD_OK)
			return rc;
		if (A->cond & COND_BLINDED)
			return rej(y, REFD_EILLEGAL, "R001-44",
			    "%s is blinded and cannot withdraw", A->d.name);
		if (s->moved)
			return rej(y, REFD_EILLEGAL, "R001-44",
			    "%s has already moved this turn", A->d.name);
		if (!A->mounted && !can_full(s, A) && !(restricted(s, A) &&
		    can_std(s, A)))
			return rej(y, REFD_ERESOURCE, "R001-44",
			    "withdrawing takes the whole turn");
		return check_path(s, a, c, allowance(s, A, C_WITHDRAW), y);
	case C_STEP:
		if ((rc = movement_ok(s, A, y)) != REFD_OK)
			return rc;
		if (s->moved)
			return rej(y, REFD_EILLEGAL, "R001-06",
			    "%s already moved this round: no 5-foot step",
			    A->d.name);
		if (speed_of(A) <= 1)
			return rej(y, REFD_EILLEGAL, "R001-06",
			    "%s's speed is too low for a 5-foot step",
			    A->d.name);
		if (!c->has_to)
			return rej(y, REFD_EBADCMD, "R001-70",
			    "give \"to\": [x, y]");
		{
			int np;

			if (c->x < 0 || c->y < 0 || c->x >= s->w ||
			    c->y >= s->h || step_cost(s, a, A->x, A->y, c->x,
			    c->y, 0, &np, 0) < 0)
				return rej(y, REFD_ENOPATH, "R001-06",
				    "a 5-foot step from (%d,%d) to (%d,%d) is "
				    "not possible (not adjacent, blocked or a "
				    "cut corner)", A->x, A->y, c->x, c->y);
			if ((s->sq[A->y][A->x] | s->sq[c->y][c->x]) & SQ_DIFF)
				return rej(y, REFD_EILLEGAL, "R001-06",
				    "no 5-foot step in difficult terrain");
			if (!cc_sees_square(s, a, c->x, c->y))
				return rej(y, REFD_EILLEGAL, "R001-06",
				    "no 5-foot step into a square %s cannot see "
				    "(darkness or opaque fog)", A->d.name);
			if (cc_squeeze_at(s, a, c->x, c->y) == 2 &&
			    cc_squeeze_now(s, a) < 2)
				return rej(y, REFD_EILLEGAL, "R001-73",
				    "(%d,%d) is narrower than half %s's width: "
				    "move there (Escape Artist), no 5-foot step",
				    c->x, c->y, A->d.name);
			if (!free_at(s, a, c->x, c->y))
				return rej(y, REFD_ENOPATH, "R001-09",
				    "(%d,%d) is occupied", c->x, c->y);
		}
		return REFD_OK;
	case C_RUN:
		if ((rc = movement_ok(s, A, y)) != REFD_OK)
			return rc;
		if (A->cond & (COND_BLINDED | COND_ENTANGLED | COND_FATIGUED |
		    COND_EXHAUSTED))
			return rej(y, REFD_EILLEGAL, "R001-43",
			    "%s cannot run (blinded, entangled, fatigued or "
			    "exhausted)", A->d.name);
		if (A->winded >= s->round)
			return rej(y, REFD_EILLEGAL, "R001-43",
			    "%s is winded and must rest until round %d",
			    A->d.name, A->winded + 1);
		if (s->moved || (!A->mounted && !can_full(s, A)))
			return rej(y, REFD_ERESOURCE, "R001-43",
			    "running takes the whole turn");
		if (!c->has_to)
			return rej(y, REFD_EBADCMD, "R001-70",
			    "give \"to\": [x, y]");
		if (c->x < 0 || c->y < 0 || c->x >= s->w || c->y >= s->h ||
		    (c->x == A->x && c->y == A->y))
			return rej(y, REFD_ENOPATH, "R001-43",
			    "run to a square on the map");
		{
			const struct cr *RM = A->mounted ?
			    &s->c[A->mounted - 1] : A;	/* the runner */
			int mult = RM->d.armor_type == 3 || RM->d.heavy_load ?
			    3 : 4, n;
			int d = g_dist(c->x - A->x, c->y - A->y);

			if (d > mult * speed_of(A))
				return rej(y, REFD_ENOPATH, "R001-43",
				    "(%d,%d) is %d squares away: %s runs %d",
				    c->x, c->y, d, A->d.name,
				    mult * speed_of(A));
			n = line_path(s, a, c->x, c->y, c->px, c->py);
			if (!line_ok(s, a, c->px, c->py, n, 0))
				return rej(y, REFD_ENOPATH, "R001-43",
				    "the straight line to (%d,%d) is blocked "
				    "or crosses difficult terrain", c->x,
				    c->y);
			for (d = 1; d < n; d++)
				if (!cc_sees_square(s, a, c->px[d], c->py[d]))
					return rej(y, REFD_EILLEGAL, "R001-43",
					    "%s cannot see where it runs: (%d,%d) "
					    "is dark or in opaque fog",
					    A->d.name, c->px[d], c->py[d]);
			if (!free_at(s, a, c->x, c->y))
				return rej(y, REFD_ENOPATH, "R001-09",
				    "(%d,%d) is occupied", c->x, c->y);
			c->npath = n;
		}
		return REFD_OK;
	case C_CHARGE:
		if (c->ovr >= 0 && !c->ovr_hidden)
			return man_charge_overrun_ok(s, seat, a, c, y);
		if ((rc = movement_ok(s, A, y)) != REFD_OK)
			return rc;
		if (A->cond & (COND_BLINDED | COND_ENTANGLED | COND_FATIGUED |
		    COND_EXHAUSTED))
			return rej(y, REFD_EILLEGAL, "R001-42",
			    "%s cannot charge (blinded, entangled, fatigued or "
			    "exhausted)", A->d.name);
		if (s->moved)
			return rej(y, REFD_EILLEGAL, "R001-42",
			    "%s has already moved this turn", A->d.name);
		if (A->mounted ? !can_std(s, A) : (!can_full(s, A) &&
		    !(restricted(s, A) && can_std(s, A))))
			return rej(y, REFD_ERESOURCE, "R001-42",
			    "a charge takes the whole turn");
		if (t < 0 || t == a || T->dead)
			return rej(y, REFD_ENOTARGET, "R001-42",
			    "charge a living creature other than yourself");
		if (!has_loe(s, a, t) || !perceives(s, a, t))
			return rej(y, REFD_ENOTARGET, "R001-42",
			    "%s cannot see %s", A->d.name, T->d.name);
		if (c->kind == C_BULL && (rc = size_gap_ok(s, mt_body(s, a),
		    mt_body(s, t), "bull rush", "R001-49", y)) != REFD_OK)
			return rc;
		if (c->kind == C_BULL && T->grap)
			return rej(y, REFD_EILLEGAL, "R001-56",
			    "%s is held in a grapple: it cannot be pushed out "
			    "of it", T->d.name);
		{
			int d = charge_dest(s, a, t, c, y), n;
			int max = restricted(s, A) && !A->mounted ?
			    speed_of(A) : 2 * speed_of(A);

			if (d < 0)
				return d;
			if (d > max)
				return rej(y, REFD_ENOPATH, "R001-42",
				    "the attack square (%d,%d) is %d squares "
				    "away: %s charges at most %d", c->x, c->y,
				    d, A->d.name, max);
			if (!lane_clear(s, a, t, c->x, c->y))
				return rej(y, REFD_ENOPATH, "R001-42",
				    "the charge lane to (%d,%d) is not clear "
				    "(wall, difficult terrain, obstacle or "
				    "creature)", c->x, c->y);
			n = line_path(s, a, c->x, c->y, c->px, c->py);
			if (!line_ok(s, a, c->px, c->py, n, 1))
				return rej(y, REFD_ENOPATH, "R001-42",
				    "the charge line to (%d,%d) is blocked",
				    c->x, c->y);
			c->npath = n;
		}
		if (c->kind == C_BULL && space_n(T) == 1 &&
		    mt_gap(s, a, c->x, c->y, t) > 1)
			return rej(y, REFD_ENOPATH, "R001-49",
			    "a bull rush needs the charge to end adjacent");
		return REFD_OK;
	case C_TDEF:
		if (!can_std(s, A) || s->attacks)
			return rej(y, REFD_ERESOURCE, "R001-28",
			    "total defense takes a standard action and no "
			    "attack this turn");
		if (A->fdef)
			return rej(y, REFD_EILLEGAL, "R001-28",
			    "total defense does not combine with fighting "
			    "defensively");
		return REFD_OK;
	case C_DELAY:
		if (s->surprise)
			return rej(y, REFD_EILLEGAL, "R001-46",
			    "no delaying in the surprise round");
		if (s->std || s->mv || s->full || s->step5 || s->fa ||
		    s->attacks || s->moved)
			return rej(y, REFD_EILLEGAL, "R001-46",
			    "delay before taking any action");
		return REFD_OK;
	case C_HIDE:
	case C_SPOT:
		if (!can_move(s, A))
			return rej(y, REFD_ERESOURCE, "R001-04",
			    "%s takes a move action", cmd_name[c->t]);
		return cc_check(s, a, c, y);
	case C_STAND:
		if (!A->prone)
			return rej(y, REFD_EILLEGAL, "R001-71",
			    "%s is not prone", A->d.name);
		if (!can_move(s, A))
			return rej(y, REFD_ERESOURCE, "R001-04",
			    "standing up takes a move action");
		return REFD_OK;
	case C_ATTACK:
	case C_FULL: {
		const struct weapon *aw = &A->d.w[0];
		struct weapon tw;

		if (A->pinned_by)
			return rej(y, REFD_EILLEGAL, "R001-56",
			    "%s is pinned: it can only try to escape",
			    A->d.name);
		if (A->grap && (c->off || c->has_sq ||
		    !man_in_grapple(s, a, t) || A->d.w[0].ranged ||
		    (A->d.w[0].cat != 0 && !A->d.w[0].unarmed &&
		    !A->d.w[0].natural)))
			return rej(y, REFD_EILLEGAL, "R001-56",
			    "grappling, %s can only attack %s with a light, "
			    "unarmed or natural weapon (no off hand)", A->d.name,
			    nm(s, A->grap - 1));
		if (c->off) {
			if (c->t != C_FULL || !has_off(A))
				return rej(y, REFD_EILLEGAL, "R001-25",
				    "an off-hand attack needs an off-hand "
				    "weapon and a full attack");
			aw = A->d.w[0].dbl ? &A->d.w[0] : &A->d.w[1];
		}
		if (c->thrown && (c->off || c->has_sq ||
		    !W_THROWABLE(&A->d.w[0])))
			return rej(y, REFD_EILLEGAL, "R001-23",
			    "%s's %s cannot be thrown", A->d.name,
			    A->d.w[0].name);
		if (throws(s, a, c, t))
			aw = thrown_weapon(&A->d.w[0], &tw);
		if (aw->crossbow && aw->ranged && A->unloaded)
			return rej(y, REFD_EILLEGAL, "R001-13",
			    "%s's %s is not loaded: load it first", A->d.name,
			    aw->name);
		if (c->t == C_ATTACK && !can_std(s, A))
			return rej(y, REFD_ERESOURCE, "R001-04",
			    "%s has no standard action left this turn",
			    A->d.name);
		if (c->t == C_FULL) {
			if (!s->fa && !can_full(s, A))
				return rej(y, REFD_ERESOURCE, "R001-24",
				    "a full attack takes the whole turn");
			if (s->fa && (c->off ? s->fa_off >= 1 :
			    s->fa_main >= nmain(A)))
				return rej(y, REFD_ERESOURCE, "R001-24",
				    "%s has no %s attack left", A->d.name,
				    c->off ? "off-hand" : "main-hand");
			if (s->fa && c->defensive && !A->fdef)
				return rej(y, REFD_EILLEGAL, "R001-28",
				    "declare fighting defensively with the "
				    "first attack");
		}
		if (c->defensive && A->tdef)
			return rej(y, REFD_EILLEGAL, "R001-28",
			    "fighting defensively does not combine with total "
			    "defense");
		if (c->nonlethal && (aw->ranged || aw->nonlethal))
			return rej(y, REFD_EILLEGAL, "R001-32",
			    "only a lethal melee weapon can be used for "
			    "nonlethal damage");
		if (c->lethal && !aw->nonlethal)
			return rej(y, REFD_EILLEGAL, "R001-32",
			    "the %s already deals lethal damage", aw->name);
		if (c->has_sq)
			return square_ok(s, a, c, aw, y);
		return target_ok(s, a, t, aw, y);
	}
	case C_TRIP:
	case C_BULL:
	case C_DISARM:
	case C_SUNDER:
	case C_GRAPPLE:
	case C_FEINT:
	case C_CDG:
		if (A->grap && !gr_pinner_grab(s, a, c))
			return rej(y, REFD_EILLEGAL, "R001-56",
			    "%s is grappling", A->d.name);
		if (c->t == C_CDG) {
			if (!full_ok(s, A, c))
				return rej(y, REFD_ERESOURCE, "R001-05",
				    "a coup de grace takes the whole turn (or "
				    "start it now, restricted, and complete it "
				    "next turn)");
			if (c->has_sq)
				return cdg_square_ok(s, a, c, y);
		} else if (c->t == C_FEINT && (A->d.feats & F_IFEINT)) {
			if (!can_move(s, A) || s->fa)
				return rej(y, REFD_ERESOURCE, "R001-53",
				    "a feint with Improved Feint takes a move "
				    "action");
		} else if (c->full) {
			/* Trip, disarm, sunder and grapple replace an attack
			 * of a full attack (5.7, 5.8, 5.9, 5.13). */
			if (c->t != C_TRIP && c->t != C_DISARM &&
			    c->t != C_SUNDER && c->t != C_GRAPPLE)
				return rej(y, REFD_EILLEGAL, "R001-24",
				    "only trip, disarm, sunder and grapple "
				    "replace an attack of a full attack");
			if ((rc = attack_slot_ok(s, A, y)) != REFD_OK)
				return rc;
		} else if (!can_std(s, A)) {
			return rej(y, REFD_ERESOURCE, "R001-04",
			    "%s has no standard action left this turn",
			    A->d.name);
		}
		if (c->t == C_TRIP) {
			struct weapon uw;

			if (!w.trip)
				unarmed_weapon(&uw, A->d.size);
			else
				uw = w;
			if ((rc = target_ok(s, a, t, &uw, y)) != REFD_OK)
				return rc;
			if (T->prone)
				return rej(y, REFD_EILLEGAL, "R001-50",
				    "%s is already prone", T->d.name);
			return size_gap_ok(s, a, t, "trip", "R001-50", y);
		}
		if ((rc = target_ok(s, a, t, &w, y)) != REFD_OK)
			return rc;
		switch (c->t) {
		case C_BULL:
			if (cdist(A, T) != 1)
				return rej(y, REFD_ERANGE, "R001-49",
				    "a bull rush needs %s adjacent", T->d.name);
			if (T->grap)
				return rej(y, REFD_EILLEGAL, "R001-56",
				    "%s is held in a grapple: it cannot be "
				    "pushed out of it", T->d.name);
			return size_gap_ok(s, mt_body(s, a), mt_body(s, t),
			    "bull rush", "R001-49", y);
		case C_DISARM:
			if (c->item == 3)	/* grab a carried potion */
				return man_potion_check(s, a, c, y);
			if (c->item == ITEM_WORN)	/* a worn item */
				return gr_worn_check(s, a, c, y);
			if (T->d.w[0].unarmed || T->d.w[0].natural)
				return rej(y, REFD_EILLEGAL, "R001-51",
				    "%s holds no weapon", T->d.name);
			if (T->d.w[0].gauntlet)
				return rej(y, REFD_EILLEGAL, "R001-51",
				    "a spiked gauntlet cannot be disarmed");
			return REFD_OK;
		case C_SUNDER:
			if (c->item == 3)	/* a carried potion */
				return man_potion_check(s, a, c, y);
			if (c->item == 1)
				return rej(y, REFD_EILLEGAL, "R001-52",
				    "worn armor cannot be sundered");
			if (c->item == 2 && (T->d.shield == 0 || T->shp <= 0))
				return rej(y, REFD_EILLEGAL, "R001-52",
				    "%s carries no shield that can be sundered",
				    T->d.name);
			if (!(w.dtype & (DT_B | DT_S)))
				return rej(y, REFD_EILLEGAL, "R001-52",
				    "sundering needs a slashing or bludgeoning "
				    "weapon, not the %s", w.name);
			if (c->item == 0 && (T->d.w[0].unarmed ||
			    T->d.w[0].natural))
				return rej(y, REFD_EILLEGAL, "R001-52",
				    "%s holds no weapon", T->d.name);
			return REFD_OK;
		case C_GRAPPLE:
			if (T->grap && (rc = man_join_ok(s, a, t, y)) !=
			    REFD_OK)
				return rc;
			if (helpless(T))
				return rej(y, REFD_EILLEGAL, "R001-55",
				    "%s is helpless", T->d.name);
			return REFD_OK;
		case C_FEINT:
			if (T->d.intl == 0)
				return rej(y, REFD_EILLEGAL, "R001-53",
				    "%s is mindless and cannot be feinted",
				    T->d.name);
			if (helpless(T))
				return rej(y, REFD_EILLEGAL, "R001-53",
				    "%s is helpless", T->d.name);
			return REFD_OK;
		default:	/* C_CDG */
			if (!helpless(T))
				return rej(y, REFD_EILLEGAL, "R001-47",
				    "%s is not helpless", T->d.name);
			if (cdist(A, T) > 1)
				return rej(y, REFD_ERANGE, "R001-47",
				    "a coup de grace needs %s adjacent",
				    T->d.name);
			if (T->d.crit_immune)
				return rej(y, REFD_EILLEGAL, "R001-47",
				    "%s is immune to critical hits",
				    T->d.name);
			return REFD_OK;
		}
	case C_RELEASE:
	case C_GDMG:
	case C_ESCAPE:
	case C_PIN:
	case C_GMOVE:
	case C_GWEAPON:
	case C_BREAKPIN:
		return man_grapple_check(s, a, c, y);
	case C_AID:
		if (!can_std(s, A))
			return rej(y, REFD_ERESOURCE, "R001-04",
			    "%s has no standard action left this turn",
			    A->d.name);
		if (c->mode == 3) {
			/* Waking a sleeping ally (5.5). */
			if (c->ally < 0 || s->c[c->ally].side != A->side ||
			    !s->c[c->ally].asleep || c->ally == a)
				return rej(y, REFD_ENOTARGET, "R001-48",
				    "name a sleeping \"ally\" to wake");
			if (cdist(A, &s->c[c->ally]) > 1)
				return rej(y, REFD_ERANGE, "R001-48",
				    "%s must be adjacent", nm(s, c->ally));
			return REFD_OK;
		}
		if (c->ally < 0 || c->ally == a ||
		    s->c[c->ally].side != A->side || !able(&s->c[c->ally]))
			return rej(y, REFD_ENOTARGET, "R001-48",
			    "name a conscious \"ally\" to aid");
		if ((rc = target_ok(s, a, t, &w, y)) != REFD_OK)
			return rc;
		if (T->side == A->side)
			return rej(y, REFD_ENOTARGET, "R001-48",
			    "%s is not an enemy", T->d.name);
		if (!armed(A))
			return rej(y, REFD_EILLEGAL, "R001-48",
			    "%s is not armed", A->d.name);
		if (!threatens(s, c->ally, t) && !threatens(s, t, c->ally))
			return rej(y, REFD_EILLEGAL, "R001-48",
			    "%s is not in melee with %s", nm(s, c->ally),
			    T->d.name);
		return REFD_OK;
	case C_USE_ITEM:
	case C_USE_ABIL:
	case C_CAST: {
		const struct spell *sp;
		int tm;

		for (c->si = 0; c->si < MAXSP; c->si++)
			if (A->d.uses[c->si] > 0 &&
			    mg_slot_ok(c->t, &A->d.sp[c->si]) &&
			    strcmp(A->d.sp[c->si].name, c->spell) == 0)
				break;
		if (c->si == MAXSP)
			return rej(y, REFD_ERESOURCE, "R001-61",
			    "%s has no cast of '%.30s' left", A->d.name,
			    c->spell);
		sp = &A->d.sp[c->si];
		tm = mg_time(A, sp, c->meta);
		if (mg_counts(sp) && (tm == 2 ? s->qcast : s->cast))
			return rej(y, REFD_ERESOURCE, "R001-61",
			    "one spell per round, plus one quickened spell");
		if (tm == 0 && !can_std(s, A))
			return rej(y, REFD_ERESOURCE, "R001-04",
			    "%s has no standard action left this turn",
			    A->d.name);
		if ((tm == 1 || tm >= 3) && !full_ok(s, A, c))
			return rej(y, REFD_ERESOURCE, "R001-05",
			    "this spell takes the whole turn (or start it now, "
			    "restricted, and complete it next turn)");
		if (c->start && tm != 1 && tm != 3)
			return rej(y, REFD_EILLEGAL, "R001-05",
			    "only full-round actions are started");
		if (c->hold)
			return mg_cast_check(s, a, c, sp, y);
		if (t < 0 || T->dead)
			return rej(y, REFD_ENOTARGET, "R001-61",
			    "name a living \"target\"");
		if (!perceives(s, a, t))
			return rej(y, REFD_ENOTARGET, "R001-39",
			    "%s cannot see %s", A->d.name, T->d.name);
		if (sp->effect == 0 && t == a)
			return rej(y, REFD_ENOTARGET, "R001-61",
			    "%s would not harm itself", A->d.name);
		if (sp->range == 0) {
			if (cdist(A, T) > (natreach(A) > 0 ? natreach(A) : 0))
				return rej(y, REFD_ERANGE, "R001-61",
				    "'%s' is a touch spell: %s is out of reach",
				    sp->name, T->d.name);
		} else if (cdist(A, T) > sp->range) {
			return rej(y, REFD_ERANGE, "R001-61",
			    "%s is %d squares away: '%s' reaches %d",
			    T->d.name, cdist(A, T), sp->name, sp->range);
		}
		if (t != a && !has_loe(s, a, t))
			return rej(y, REFD_ENOTARGET, "R001-37",
			    "no line of effect to %s", T->d.name);
		return mg_cast_check(s, a, c, sp, y);
	}
	case C_OVERRUN: {
		int dx, dy, bx, by, np;

		if ((rc = movement_ok(s, A, y)) != REFD_OK)
			return rc;
		if (s->overrun)
			return rej(y, REFD_EILLEGAL, "R001-57",
			    "one overrun attempt per round");
		if ((!A->mounted && (!can_std(s, A) || s->mv >= 1 ||
		    s->fa)) || restricted(s, A))	/* mounted: the mount's */
			return rej(y, REFD_ERESOURCE, "R001-57",
			    "an overrun needs a move action and a standard "
			    "action");
		if (t < 0 || t == a || T->dead || T->side == A->side ||
		    !perceives(s, a, t))
			return rej(y, REFD_ENOTARGET, "R001-57",
			    "overrun an enemy you can see");
		if ((space_n(A) != 1 || space_n(T) != 1) && c->npath == 0 &&
		    !c->has_to)
			return rej(y, REFD_EILLEGAL, "R001-57",
			    "between creatures larger than one square, give "
			    "the move's \"to\" or \"path\" through %s",
			    T->d.name);
		if (T->grap)
			return rej(y, REFD_EILLEGAL, "R001-56",
			    "%s is held in a grapple and cannot be overrun",
			    T->d.name);
		if (cdist(A, T) != 1 && c->npath == 0 && !c->has_to)
			return rej(y, REFD_ERANGE, "R001-57",
			    "%s must be adjacent (or give the move's \"to\" "
			    "or \"path\")", T->d.name);
		if ((rc = size_gap_ok(s, mt_body(s, a), mt_body(s, t),
		    "overrun", "R001-57", y)) != REFD_OK)
			return rc;
		if (c->npath > 0 || c->has_to)
			return man_overrun_path_ok(s, a, c, y);
		dx = T->x - A->x;
		dy = T->y - A->y;
		bx = T->x + dx;
		by = T->y + dy;
		if (bx < 0 || by < 0 || bx >= s->w || by >= s->h ||
		    !free_at(s, a, bx, by) ||
		    step_cost(s, a, T->x, T->y, bx, by, 0, &np, 0) < 0 ||
		    (s->sq[T->y][T->x] & SQ_WALL))
			return rej(y, REFD_ENOPATH, "R001-57",
			    "the square beyond %s, (%d,%d), is not open",
			    T->d.name, bx, by);
		if (2 * (dx != 0 && dy != 0 ? 2 : 1) > speed_of(A) + 1)
			return rej(y, REFD_ENOPATH, "R001-57",
			    "not enough movement to pass through");
		c->x = bx;
		c->y = by;
		return REFD_OK;
	}
	case C_THROW: {
		const struct weapon *sw = &A->d.w[0];

		if (!sw->splash)
			return rej(y, REFD_EILLEGAL, "R001-54",
			    "%s holds no splash weapon", A->d.name);
		if (!can_std(s, A))
			return rej(y, REFD_ERESOURCE, "R001-04",
			    "%s has no standard action left this turn",
			    A->d.name);
		if (A->grap)
			return rej(y, REFD_EILLEGAL, "R001-56",
			    "%s is grappling", A->d.name);
		if (c->has_pt == (t >= 0))
			return rej(y, REFD_EBADCMD, "R001-54",
			    "give a \"target\" or a \"point\"");
		if (t >= 0)
			return target_ok(s, a, t, sw, y);
		if (c->ptx < 0 || c->pty < 0 || c->ptx > s->w || c->pty > s->h)
			return rej(y, REFD_ERANGE, "R001-54",
			    "(%d,%d) is off the map", c->ptx, c->pty);
		if (point_dist(A, c->ptx, c->pty) > 5 * sw->incr)
			return rej(y, REFD_ERANGE, "R001-54",
			    "the point is beyond 5 range increments");
		return REFD_OK;
	}
	case C_PICKUP:
	case C_DROP:
	case C_SHIELD:
	case C_LOAD:
		return man_item_check(s, a, c, y);
	case C_RETRIEVE:
		return gr_retrieve_check(s, a, y);
	case C_DRAW:
		if (A->stow[0].nd == 0 && A->stow[1].nd == 0)
			return rej(y, REFD_EILLEGAL, "R001-77",
			    "%s has no sheathed weapon", A->d.name);
		if (A->grap)
			return man_grapple_check(s, a, c, y);
		if (draw_free(s, A))
			return REFD_OK;
		if (!can_move(s, A))
			return rej(y, REFD_ERESOURCE, "R001-77",
			    "drawing takes a move action (free with a move "
			    "at BAB +1 or more)");
		return REFD_OK;
	case C_SHEATHE:
		if ((A->d.w[0].unarmed || A->d.w[0].natural) &&
		    A->d.w[1].nd == 0)
			return rej(y, REFD_EILLEGAL, "R001-77",
			    "%s holds no weapon", A->d.name);
		if (A->stow[0].nd || A->stow[1].nd)
			return rej(y, REFD_EILLEGAL, "R001-77",
			    "%s already has a sheathed weapon", A->d.name);
		if (!can_move(s, A))
			return rej(y, REFD_ERESOURCE, "R001-04",
			    "sheathing takes a move action");
		return REFD_OK;
	case C_DRINK:
		for (c->si = 0; c->si < 2; c->si++)
			if (A->d.potions[c->si] > 0 &&
			    strcmp(A->d.potion[c->si].name, c->spell) == 0)
				break;
		if (c->si == 2)
			return rej(y, REFD_ERESOURCE, "R001-65",
			    "%s carries no potion of '%.30s'", A->d.name,
			    c->spell);
		if (!can_std(s, A))
			return rej(y, REFD_ERESOURCE, "R001-04",
			    "%s has no standard action left this turn",
			    A->d.name);
		/* Activating a magic item in a grapple: its normal action,
		 * no check (5.13); a pinned creature is held immobile. */
		if (A->pinned_by)
			return rej(y, REFD_EILLEGAL, "R001-56",
			    "%s is pinned: it can only try to escape",
			    A->d.name);
		return REFD_OK;
	case C_TURN:
		if (A->d.turn_level < 1 || A->d.turn_uses < 1)
			return rej(y, REFD_ERESOURCE, "R001-59",
			    "%s has no turning attempt left", A->d.name);
		if (A->d.rebuke)
			return rej(y, REFD_EILLEGAL, "R001-59",
			    "%s channels negative energy: it rebukes",
			    A->d.name);
		if (!can_std(s, A))
			return rej(y, REFD_ERESOURCE, "R001-04",
			    "%s has no standard action left this turn",
			    A->d.name);
		return REFD_OK;
	case C_READY:
		if (!can_std(s, A))
			return rej(y, REFD_ERESOURCE, "R001-45",
			    "readying takes a standard action");
		if (A->grap)
			return rej(y, REFD_EILLEGAL, "R001-56",
			    "%s is grappling", A->d.name);
		if (t < 0 || t == a || T->dead || T->side == A->side ||
		    !perceives(s, a, t))
			return rej(y, REFD_ENOTARGET, "R001-45",
			    "ready an attack against an enemy you can see");
		if (c->ract != RK_ATTACK)
			return mg_ready_check(s, a, c, y);
		if (!armed(A) && !(c->trig == 1 && A->d.w[0].ranged))
			return rej(y, REFD_EILLEGAL, "R001-45",
			    "%s has no melee weapon to ready", A->d.name);
		if (c->trig == 1 && A->d.w[0].crossbow && A->unloaded)
			return rej(y, REFD_EILLEGAL, "R001-13",
			    "%s's %s is not loaded", A->d.name,
			    A->d.w[0].name);
		return REFD_OK;
	case C_CRAWL:
	case C_MINMOVE: {
		int np;

		if (A->grap)
			return rej(y, REFD_EILLEGAL, "R001-56",
			    "%s is grappling and cannot move", A->d.name);
		if (c->t == C_CRAWL) {
			if (!A->prone)
				return rej(y, REFD_EILLEGAL, "R001-71",
				    "only a prone creature crawls");
			if (!can_move(s, A))
				return rej(y, REFD_ERESOURCE, "R001-04",
				    "crawling takes a move action");
			if (s->step5)
				return rej(y, REFD_EILLEGAL, "R001-06",
				    "%s took a 5-foot step this round",
				    A->d.name);
		} else {
			if ((rc = movement_ok(s, A, y)) != REFD_OK)
				return rc;
			if (s->moved || !full_ok(s, A, c))
				return rej(y, REFD_ERESOURCE, "R001-05",
				    "the minimum move takes the whole turn (or "
				    "start it now, restricted, and complete it "
				    "next turn)");
			if (speed_of(A) == 0)
				return rej(y, REFD_EILLEGAL, "R001-72",
				    "%s cannot move", A->d.name);
		}
		if (!c->has_to)
			return rej(y, REFD_EBADCMD, "R001-70",
			    "give \"to\": [x, y]");
		if (c->x < 0 || c->y < 0 || c->x >= s->w || c->y >= s->h ||
		    step_cost(s, a, A->x, A->y, c->x, c->y, 0, &np, 0) < 0)
			return rej(y, REFD_ENOPATH, c->t == C_CRAWL ? "R001-71" :
			    "R001-72", "(%d,%d) is not an open adjacent square",
			    c->x, c->y);
		if (!free_at(s, a, c->x, c->y))
			return rej(y, REFD_ENOPATH, "R001-09",
			    "(%d,%d) is occupied", c->x, c->y);
		c->npath = 2;
		c->px[0] = A->x;
		c->py[0] = A->y;
		c->px[1] = c->x;
		c->py[1] = c->y;
		return REFD_OK;
	}
	case C_STAB:
		if (!can_std(s, A))
			return rej(y, REFD_ERESOURCE, "R001-04",
			    "%s has no standard action left this turn",
			    A->d.name);
		if (t < 0 || T->dead || T->hp >= 0 || T->stable)
			return rej(y, REFD_ENOTARGET, "R001-30",
			    "stabilize a dying creature");
		if (cdist(A, T) > 1)
			return rej(y, REFD_ERANGE, "R001-30",
			    "%s must be adjacent", T->d.name);
		return REFD_OK;
	default:
		return rej(y, REFD_EBADCMD, "R001-70", "unknown command");
	}
}

/* ---- events ---- */

int
ev_simple(refd_ctx *ctx, const char *type, const struct st *s, int who,
    int target)
{
	refd_mpw *w = refd_mpw_create();

	refd_mpw_map(w);
	refd_mpw_kstr(w, "type", type);
	if (who >= 0)
		refd_mpw_kstr(w, "who", nm(s, who));
	if (target >= 0)
		refd_mpw_kstr(w, "target", nm(s, target));
	refd_mpw_end(w);
	return emitw(ctx, s, w);
}

/*
 * An event that shows where creature `who` is (and creature `also`, -1
 * for none): public for a visible creature; for an invisible one, only
 * to the seats that perceive it (and `also`), with a public "unseen"
 * notice, and its position committed (8.4).
 */
int
emit_at2(refd_ctx *ctx, const struct st *s, int who, int also,
    refd_mpw *w)
{
	int seat, rc = REFD_OK;
	const struct cr *c = &s->c[who];
	uint8_t pos[2];
	char zone[40];

	if (seat_sees(s, REFD_SEAT_PUBLIC, who) &&
	    (also < 0 || seat_sees(s, REFD_SEAT_PUBLIC, also)))
		return emitw(ctx, s, w);
	if (w == NULL || refd_mpw_error(w)) {
		refd_mpw_destroy(w);
		return REFD_ENOMEM;
	}
	for (seat = 0; seat < s->nseats && rc == REFD_OK; seat++)
		if (seat_sees(s, seat, who) &&
		    (also < 0 || seat_sees(s, seat, also)))
			rc = enc_host->emit(ctx, seat, refd_mpw_data(w),
			    refd_mpw_len(w));
	refd_mpw_destroy(w);
	if (rc != REFD_OK)
		return rc;
	pos[0] = (uint8_t)c->x;
	pos[1] = (uint8_t)c->y;
	snprintf(zone, sizeof(zone), "position.%s", c->d.name);
	if ((rc = enc_host->commit(ctx, zone, c->side, pos, 2)) != REFD_OK)
		return rc;
	if (also >= 0 && !seat_sees(s, REFD_SEAT_PUBLIC, also)) {
		const struct cr *o = &s->c[also];

		pos[0] = (uint8_t)o->x;
		pos[1] = (uint8_t)o->y;
		snprintf(zone, sizeof(zone), "position.%s", o->d.name);
		if ((rc = enc_host->commit(ctx, zone, o->side, pos, 2)) !=
		    REFD_OK)
			return rc;
	}
	return ev_simple(ctx, "unseen", s, who, -1);
}

int
emit_at(refd_ctx *ctx, const struct st *s, int who, refd_mpw *w)
{
	return emit_at2(ctx, s, who, -1, w);
}

int
ev_check(refd_ctx *ctx, const char *type, const struct st *s, int a, int t,
    int ra, int ta, int rd, int td, int win)
{
	refd_mpw *w = refd_mpw_create();

	refd_mpw_map(w);
	refd_mpw_kstr(w, "type", type);
	refd_mpw_kstr(w, "who", nm(s, a));
	refd_mpw_kstr(w, "target", nm(s, t));
	refd_mpw_kint(w, "roll", ra);
	refd_mpw_kint(w, "total", ta);
	refd_mpw_kint(w, "target_roll", rd);
	refd_mpw_kint(w, "target_total", td);
	refd_mpw_kbool(w, "success", win);
	refd_mpw_end(w);
	return emitw(ctx, s, w);
}

static int
ev_over(refd_ctx *ctx, struct st *s, const char *reason)
{
	refd_mpw *w;
	int rc;

	if ((rc = ev_states(ctx, s)) != REFD_OK)
		return rc;
	w = refd_mpw_create();
	s->over = 2;
	refd_mpw_map(w);
	refd_mpw_kstr(w, "type", "over");
	refd_mpw_kint(w, "winner", s->winner);
	refd_mpw_kstr(w, "reason", reason);
	refd_mpw_end(w);
	if ((rc = emitw(ctx, s, w)) != REFD_OK)
		return rc;
	return s->resting == 1 ? mg_rest_begin(ctx, s) : REFD_OK;
}

/* ---- turn order (1.2, 1.9) ---- */

/* A dying creature's roll (3.3): d100 1-10 stable, else it loses 1 HP. */
int
dying_roll(refd_ctx *ctx, struct st *s, int i)
{
	struct cr *c = &s->c[i];
	refd_mpw *w;
	int rc, r;

	if ((rc = roll(ctx, 100, "dying", &r)) != REFD_OK)
		return rc;
	if (r <= 10)
		c->stable = 1;
	else if (--c->hp <= -10)
		c->dead = 1;
	w = refd_mpw_create();
	refd_mpw_map(w);
	refd_mpw_kstr(w, "type", "dying");
	refd_mpw_kstr(w, "who", c->d.name);
	refd_mpw_kint(w, "roll", r);
	refd_mpw_kstr(w, "state", state_name(c));
	refd_mpw_end(w);
	s->shown[i] = state_idx(c);
	return emitw(ctx, s, w);
}

/*
 * Turn `n` of the order begins, after the boundary where delaying
 * creatures may act (check_delay).  Skips creatures that cannot act,
 * rolls for the dying, advances rounds, ends the match on the round
 * limit.
 */

int
turn_begin(refd_ctx *ctx, struct st *s, int n, int check_delay)
{
	int rc, i;

	for (;;) {
		if (s->over)
			return s->over == 1 ? ev_over(ctx, s, "one side left") :
			    REFD_OK;
		if (check_delay) {
			s->nq = 0;
			for (i = 0; i < s->norder; i++) {
				int c = s->order[i];

				if (s->c[c].delaying && able(&s->c[c]) &&
				    (n >= s->norder || s->order[n] != c))
					s->q[s->nq++] = c;
			}
			if (s->nq > 0) {
				s->qi = 0;
				s->pk = PK_DELAY;
				s->dnext = n;
				return REFD_OK;
			}
		}
		check_delay = 1;
		if (n >= s->norder) {
			if (s->surprise) {
				extern int enc_end_surprise(refd_ctx *,
				    struct st *);

				if ((rc = enc_end_surprise(ctx, s)) != REFD_OK)
					return rc;
			} else {
				s->round++;
				if ((rc = mt_round(ctx, s)) != REFD_OK)
					return rc;	/* dying mounts */
			}
			n = 0;
			if (s->round > s->max_rounds) {
				s->over = 1;
				s->winner = -1;
				return ev_over(ctx, s, "round limit");
			}
		}
		s->cur = n;
		{
			struct cr *c = &s->c[s->order[n]];
			refd_mpw *w;

			s->std = s->mv = s->full = s->moved = s->step5 = 0;
			s->diag = s->sq_moved = s->fa = s->fa_main = 0;
			s->fa_off = s->fa_conv = s->attacks = s->std_dis = 0;
			s->cast = s->qcast = s->overrun = s->cleaved = 0;
			s->freedraw = s->moveact = 0;
			s->aoo_taken = 0;
			c->delaying = 0;
			if ((rc = mg_tick(ctx, s, n)) != REFD_OK)
				return rc;
			if (c->dead || (s->surprise && !c->aware)) {
				n++;
				continue;
			}
			c->flat = 0;
			c->fdef = c->tdef = c->charged = c->ran = 0;
			cc_turn_start(s, s->order[n]);
			if (c->casting && !mg_still_casting(s, s->order[n])) {
				int sl = c->casting - 1, ct = c->cast_target;

				c->casting = 0;
				if (able(c) && ct >= 0 && !s->c[ct].dead &&
				    (rc = spell_effect(ctx, s, s->order[n], ct,
				    &c->d.sp[sl])) != REFD_OK)
					return rc;
				check_over(s);
				if (s->over)
					continue;
			}
			c->aoo_used = 0;
			mt_turn(s, s->order[n]);
			c->ready_vs = -1;
			if (c->turned_by && s->round > c->turned_until)
				c->turned_by = 0;
			man_pins_expire(s, s->order[n]);	/* 1 round */
			if (c->temp > 0 && c->temp_rounds > 0 &&
			    --c->temp_rounds == 0) {
				c->temp = 0;	/* the pool expires (3.6) */
				if ((rc = ev_simple(ctx, "temp_hp_expired", s,
				    s->order[n], -1)) != REFD_OK)
					return rc;
			}
			c->aid_mode = 0;
			c->aid_ally = c->aid_enemy = -1;
			if ((rc = ev_states(ctx, s)) != REFD_OK)
				return rc;
			w = refd_mpw_create();
			refd_mpw_map(w);
			refd_mpw_kstr(w, "type", "turn");
			refd_mpw_kstr(w, "who", c->d.name);
			refd_mpw_kint(w, "round", s->round);
			refd_mpw_end(w);
			if ((rc = emitw(ctx, s, w)) != REFD_OK)
				return rc;
			if (c->hp < 0 && !c->stable && s->round > c->dying_round) {
				if ((rc = dying_roll(ctx, s, s->order[n])) !=
				    REFD_OK)
					return rc;
				check_over(s);
			}
			if ((rc = mg_turn_start(ctx, s, s->order[n])) != REFD_OK)
				return rc;
			if (!acts(c)) {
				n++;
				continue;
			}
			return REFD_OK;
		}
	}
}

static int
turn_end(refd_ctx *ctx, struct st *s)
{
	struct cr *A = &s->c[active(s)];

	if (A->feint_vs >= 0) {
		if (A->feint_stage == 0)
			A->feint_stage = 1;
		else
			A->feint_vs = -1;
	}
	return turn_begin(ctx, s, s->cur + 1, 1);
}

/* After an action: the disabled creature's strain (3.1), the end of the
 * match, a creature that can no longer act ends its turn. */
int
settle(refd_ctx *ctx, struct st *s)
{
	struct cr *A;
	int rc;

	if (s->pk != PK_NONE || s->over == 2)
		return REFD_OK;
	if ((rc = mt_falls(ctx, s)) != REFD_OK)
		return rc;
	A = &s->c[active(s)];
	if (s->std_dis && s->k.kind == K_NONE) {
		s->std_dis = 0;
		if (A->hp == 0 && !A->dead) {
			A->hp = -1;
			A->dying_round = s->round;
		}
	}
	check_over(s);
	if (s->over)
		return ev_over(ctx, s, "one side left");
	if (!acts(A))
		return turn_end(ctx, s);
	return REFD_OK;
}

/* ---- attacks of opportunity (4.10) ---- */

static int
in_order(const struct st *s, int c)
{
	int i;

	for (i = 0; i < s->norder; i++)
		if (s->order[i] == c)
			return 1;
	return 0;
}

/* Queue who may attack m now, in initiative order; only: just that one. */
int
aoo_queue(struct st *s, int m, int only, int skip_mask)
{
	int i, c;

	s->nq = 0;
	s->qi = 0;
	for (i = 0; i < s->norder + s->nc; i++) {
		c = i < s->norder ? s->order[i] : i - s->norder;
		if (i >= s->norder && in_order(s, c))
			continue;
		if ((only >= 0 && c != only) || (skip_mask & (1 << c)))
			continue;
		if (can_aoo(s, c, m))
			s->q[s->nq++] = c;
	}
	if (s->nq > 0)
		s->pk = PK_AOO;
	return s->nq;
}

static int finish_act(refd_ctx *ctx, struct st *s);

/* m threatened by t when standing at (x, y). */
static int
threat_at(struct st *s, int t, int m, int x, int y)
{
	struct cr *M = &s->c[m];
	int ox = M->x, oy = M->y, r;

	M->x = x;
	M->y = y;
	r = threatens(s, t, m);
	M->x = ox;
	M->y = oy;
	return r;
}

/* Readied attacks whose trigger (m comes within reach) just became true
 * as m entered its square from (px, py) (1.8, D001-52). */
static int
ready_queue(struct st *s, int m, int px, int py)
{
	int i, r;

	s->nq = 0;
	s->qi = 0;
	for (i = 0; i < s->norder + s->nc; i++) {
		r = i < s->norder ? s->order[i] : i - s->norder;
		if (i >= s->norder && in_order(s, r))
			continue;
		if (s->c[r].ready_vs != m || !able(&s->c[r]) || s->c[r].grap ||
		    s->c[r].ready_trig != 0)
			continue;
		if (s->c[r].rdy_kind != RK_ATTACK ?
		    mg_ready_near(s, r, m, px, py) :
		    (threatens(s, r, m) && !threat_at(s, r, m, px, py)))
			s->q[s->nq++] = r;
	}
	if (s->nq > 0)
		s->pk = PK_READY;
	return s->nq;
}

/* Readied attacks triggered by m starting to cast (1.8). */
static int
ready_cast_queue(struct st *s, int m)
{
	int i, r;

	s->nq = 0;
	s->qi = 0;
	for (i = 0; i < s->norder + s->nc; i++) {
		const struct cr *R;
		const struct weapon *w;

		r = i < s->norder ? s->order[i] : i - s->norder;
		if (i >= s->norder && in_order(s, r))
			continue;
		R = &s->c[r];
		w = &R->d.w[0];
		if (R->ready_vs != m || R->ready_trig != 1 || !acts(R) ||
		    R->grap || !perceives(s, r, m))
			continue;
		if (R->rdy_kind != RK_ATTACK)
			s->q[s->nq++] = r;
		else if (w->ranged ? (has_loe(s, r, m) && cdist(R, &s->c[m]) <=
		    w->incr * (w->ranged == 1 ? 5 : 10)) : threatens(s, r, m))
			s->q[s->nq++] = r;
	}
	if (s->nq > 0)
		s->pk = PK_READY;
	return s->nq;
}

/* May t still attack m for the pending opportunity?  A crawler provokes
 * from enemies threatening its origin or destination (D001-21). */
static int
aoo_still(struct st *s, int t, int m)
{
	int r;

	if (can_aoo(s, t, m))
		return 1;
	if (s->k.kind != K_ACT || s->k.act != C_CRAWL)
		return 0;
	r = 0;
	{
		struct cr *M = &s->c[m];
		int ox = M->x, oy = M->y;

		M->x = s->k.px[1];
		M->y = s->k.py[1];
		r = can_aoo(s, t, m);
		M->x = ox;
		M->y = oy;
	}
	return r;
}

/* Movement along s->k's path, pausing at each threatened exit. */
static int
run_move(refd_ctx *ctx, struct st *s)
{
	struct cont *k = &s->k;
	int a = k->who, rc, arrived;
	struct cr *A = &s->c[a];
	refd_mpw *w;

	for (;;) {
		if (!k->rdone) {
			k->rdone = 1;
			if (k->pi > 0 && ready_queue(s, a, k->px[k->pi - 1],
			    k->py[k->pi - 1]) > 0)
				return REFD_OK;
		}
		if (!able(A) || A->prone || k->pi >= k->n - 1)
			break;
		if (unseen_block(s, a, k->px[k->pi + 1], k->py[k->pi + 1])) {
			/* It runs into a creature it did not see. */
			if ((rc = ev_simple(ctx, "bumped", s, a, -1)) !=
			    REFD_OK)
				return rc;
			break;
		}
		if (!k->checked) {
			int skip = s->aoo_taken, i;

			k->checked = 1;
			if (k->mode == MV_WITHDRAW && k->pi == 0)
				for (i = 0; i < s->nc; i++)
					if (perceives(s, a, i))
						skip |= 1 << i;	/* 4.7 */
			if (aoo_queue(s, a, -1, skip) > 0)
				return REFD_OK;
		}
		if (!able(A) || A->prone)
			break;
		if ((k->act == C_OVERRUN && k->mode == MV_MOVE) ||
		    (k->mode == MV_CHARGE && k->ally > 0)) {
			/* An overrun inside the move (5.14). */
			int r = man_overrun_move(ctx, s, &rc);

			if (r == 1)
				return rc;
			if (r == 2)
				break;
		}
		{
			int ok;

			if ((rc = cc_escape(ctx, s, a, k->px[k->pi + 1],
			    k->py[k->pi + 1], &ok)) != REFD_OK)
				return rc;
			if (!ok)
				break;	/* it cannot squeeze in (4.4) */
		}
		k->pi++;
		{
			int i, od;

			/* A turner closing in breaks turning (D001-57). */
			for (i = 0; i < s->nc; i++)
				if (s->c[i].turned_by == a + 1) {
					od = cdist(A, &s->c[i]);
					A->x = k->px[k->pi];
					A->y = k->py[k->pi];
					if (cdist(A, &s->c[i]) <= 2 &&
					    cdist(A, &s->c[i]) < od)
						s->c[i].turned_by = 0;
					A->x = k->px[k->pi - 1];
					A->y = k->py[k->pi - 1];
				}
		}
		A->x = k->px[k->pi];
		A->y = k->py[k->pi];
		mt_follow(s, a);
		k->checked = 0;
		k->rdone = 0;
		s->sq_moved++;
		cc_moved(s, a);
		if (real_free(s, a, A->x, A->y))
			k->lastok = k->pi;
		if (A->d.size <= -2) {
			/* Entering an occupied square provokes from its
			 * occupant (4.10). */
			int o = occupant(s, A->x, A->y, a);

			if (o >= 0 && !(s->aoo_taken & (1 << o)) &&
			    aoo_queue(s, a, o, 0) > 0) {
				k->checked = 0;
				k->rdone = 1;
				s->aoo_taken |= 1 << o;
				return REFD_OK;
			}
		}
	}
	if (!real_free(s, a, A->x, A->y)) {
		A->x = k->px[k->lastok];
		A->y = k->py[k->lastok];
		mt_follow(s, a);
	}
	arrived = k->pi == k->n - 1 && able(A) && !A->prone &&
	    A->x == k->px[k->n - 1] && A->y == k->py[k->n - 1];
	k->kind = K_NONE;
	w = refd_mpw_create();
	refd_mpw_map(w);
	refd_mpw_kstr(w, "type", "move");
	refd_mpw_kstr(w, "who", A->d.name);
	refd_mpw_karray(w, "to");
	refd_mpw_int(w, A->x);
	refd_mpw_int(w, A->y);
	refd_mpw_end(w);
	refd_mpw_kint(w, "squares", k->pi);
	if (!arrived)
		refd_mpw_kbool(w, "stopped", 1);
	refd_mpw_end(w);
	if ((rc = emit_at(ctx, s, a, w)) != REFD_OK)
		return rc;
	if (k->mode == MV_GRAP)
		return man_drag(ctx, s, a);
	if (k->mode == MV_CHARGE && arrived && !s->c[k->target].dead) {
		/* The charge's one attack (5.3). */
		k->kind = K_ACT;
		if (k->act == C_BULL) {
			k->flags |= A_CHARGE;
			k->allow = k->allow - k->pi;
			if (aoo_queue(s, a, -1, (A->d.feats & F_IBR) ?
			    1 << k->target : 0) > 0)
				return REFD_OK;
		} else {
			k->act = C_ATTACK;
			k->flags = A_CHARGE;
		}
		return finish_act(ctx, s);
	}
	return settle(ctx, s);
}

static int cast_continue(refd_ctx *ctx, struct st *s, int a, int t, int si,
    int defensive);

#define ACT_CAST_PRE 100	/* a cast waiting for readied attacks */

static int
resume(refd_ctx *ctx, struct st *s)
{
	if (s->k.kind == K_ACT && s->k.act == ACT_CAST_PRE) {
		s->k.kind = K_NONE;
		if (s->countered) {	/* a readied counterspell (1.8) */
			s->countered = 0;
			s->hurt0 = 0;
			return settle(ctx, s);
		}
		s->hurt0 = s->k.hurt;
		return cast_continue(ctx, s, s->k.who, s->k.target, s->k.pen,
		    s->k.flags);
	}
	if (s->k.kind == K_MOVE)
		return run_move(ctx, s);
	if (s->k.kind == K_PUSH)
		return man_push_run(ctx, s);
	if (s->k.kind == K_ACT)
		return finish_act(ctx, s);
	return settle(ctx, s);
}

/* Start a paused action: provoke (mode 0 none, 1 everyone threatening
 * who, 2 the target only) then finish it. */
int
begin_act(refd_ctx *ctx, struct st *s, int act, int who, int target,
    int flags, int pen, int provoke)
{
	struct cont *k = &s->k;

	memset(k, 0, sizeof(*k));
	k->kind = K_ACT;
	k->act = act;
	k->who = who;
	k->target = target;
	k->flags = flags;
	k->pen = pen;
	k->hurt = s->hurt0;
	s->hurt0 = 0;
	if (provoke == 1 && aoo_queue(s, who, -1, 0) > 0)
		return REFD_OK;
	if (provoke == 2 && target >= 0 && aoo_queue(s, who, target, 0) > 0)
		return REFD_OK;
	return finish_act(ctx, s);
}

static int
stability(const struct cr *c)
{
	return (c->d.legs > 2 || c->d.stable) ? 4 : 0;
}

static int
better_sd(const struct cr *c)
{
	int a = mod(c->d.str), b = mod(c->d.dex);

	return a > b ? a : b;
}

/* Opposed attack-roll modifier with the held weapon (5.8, D001-36). */
int
disarm_mod(const struct st *s, int a, int o)
{
	const struct cr *A = &s->c[a];
	const struct weapon *w = &A->d.w[0];
	int m = A->d.bab + mod(w->ranged ? A->d.dex : A->d.str) +
	    sizemod(A->d.size) + w->enh;

	if (w->cat == 2)
		m += 4;
	if (w->cat == 0 || w->unarmed)
		m -= 4;
	if (A->d.size > s->c[o].d.size)
		m += 4 * (A->d.size - s->c[o].d.size);
	return m;
}

int
grapple_mod(const struct cr *c)
{
	return c->d.bab + mod(c->d.str) + 4 * c->d.size;
}

int
unarmed_damage(refd_ctx *ctx, struct st *s, int a, int t, int lethal)
{
	struct weapon u;
	int rc, v, j, sum = mod(s->c[a].d.str);
	refd_mpw *w;

	gr_unarmed(&s->c[a], &u);
	for (j = 0; j < u.nd; j++) {
		if ((rc = roll(ctx, (uint32_t)u.sd, "damage", &v)) != REFD_OK)
			return rc;
		sum += v;
	}
	if (sum < 1)
		sum = 1;
	w = refd_mpw_create();
	refd_mpw_map(w);
	refd_mpw_kstr(w, "type", "grapple_damage");
	refd_mpw_kstr(w, "who", nm(s, a));
	refd_mpw_kstr(w, "target", nm(s, t));
	refd_mpw_kint(w, "damage", sum);
	refd_mpw_kbool(w, "nonlethal", !lethal);
	refd_mpw_end(w);
	if ((rc = emitw(ctx, s, w)) != REFD_OK)
		return rc;
	return deal(ctx, s, t, sum, !lethal, lethal ? sum : 0);
}

/* Concentration (7.2): d20 + skill >= dc, else the spell is lost. */
int
concentrate(refd_ctx *ctx, struct st *s, int a, int dc, const char *why,
    int *ok)
{
	int rc, r;
	refd_mpw *w;

	if ((rc = roll(ctx, 20, "concentration", &r)) != REFD_OK)
		return rc;
	*ok = r + s->c[a].d.concentration - mg_save_pen(&s->c[a]) >= dc;
	w = refd_mpw_create();
	refd_mpw_map(w);
	refd_mpw_kstr(w, "type", "concentration");
	refd_mpw_kstr(w, "who", nm(s, a));
	refd_mpw_kstr(w, "why", why);
	refd_mpw_kint(w, "roll", r);
	refd_mpw_kint(w, "total", r + s->c[a].d.concentration -
	    mg_save_pen(&s->c[a]));
	refd_mpw_kint(w, "dc", dc);
	refd_mpw_kbool(w, "success", *ok);
	refd_mpw_end(w);
	return emitw(ctx, s, w);
}

static int
best_mental(const struct cr *c)
{
	int a = mod(c->d.intl), b = mod(c->d.wis), d = mod(c->d.cha);

	return a > b ? (a > d ? a : d) : (b > d ? b : d);
}

/* The spell's effect (7.1, 7.2). */
int
spell_effect(refd_ctx *ctx, struct st *s, int a, int t, const struct spell *sp)
{
	struct cr *A = &s->c[a], *T = &s->c[t];
	int rc, v, j, amt = sp->bonus, saved = 0;
	refd_mpw *w;

	if (sp->attack) {
		struct weapon wp;
		struct atk r;

		memset(&wp, 0, sizeof(wp));
		snprintf(wp.name, sizeof(wp.name), "%s", sp->name);
		wp.nd = sp->nd;
		wp.sd = sp->sd;
		wp.threat = 20;
		wp.mult = 2;
		wp.dtype = DT_B;
		wp.nostr = 1;
		wp.plus = sp->bonus;
		wp.nonlethal = sp->nonlethal;
		wp.ranged = sp->attack == 1 ? 2 : 0;
		wp.incr = sp->range > 0 ? sp->range : 1;
		rc = attack(ctx, s, a, t, &wp, A_TOUCH |
		    (sp->attack == 1 ? A_RANGED : 0), 0, 0, &r);
		s->last_hit = r.hit;
		return rc;
	}
	for (j = 0; j < sp->nd; j++) {
		if ((rc = roll(ctx, (uint32_t)sp->sd, sp->effect ? "healing" :
		    "damage", &v)) != REFD_OK)
			return rc;
		amt += v;
	}
	amt = mg_amount(A, amt);	/* empowered */
	if (sp->effect == 2)
		return mg_temp_add(ctx, s, t, amt, sp);
	if (sp->effect >= 3 && !sp->save)
		return mg_spell_after_save(ctx, s, a, t, sp, 0);
	if (sp->effect == 1) {
		T->hp += amt;
		if (T->hp > T->d.hp)
			T->hp = T->d.hp;
		T->nl -= amt;	/* D001-17 */
		if (T->nl < 0)
			T->nl = 0;
		if (T->hp < 0)
			T->stable = 1;	/* magic healing stabilizes */
		w = refd_mpw_create();
		refd_mpw_map(w);
		refd_mpw_kstr(w, "type", "heal");
		refd_mpw_kstr(w, "target", T->d.name);
		refd_mpw_kint(w, "amount", amt);
		refd_mpw_end(w);
		return emitw(ctx, s, w);
	}
	if (sp->save) {
		int base = sp->save == 1 ? T->d.fort : (sp->save == 2 ?
		    T->d.ref : T->d.will);
		int abil = sp->save == 1 ? T->d.con : (sp->save == 2 ?
		    T->d.dex : T->d.wis);
		int dc = 10 + sp->level + best_mental(A), tot, ok;

		if ((rc = roll(ctx, 20, "save", &v)) != REFD_OK)
			return rc;
		tot = v + base + mod(abil) - save_pen(T);
		if (sp->save == 2 && cover_vs(s, a, t, 0))
			tot += cover_vs(s, a, t, 0) == 2 ? 4 : 2;	/* 5.1.6 */
		ok = v != 1 && (v == 20 || tot >= dc);
		w = refd_mpw_create();
		refd_mpw_map(w);
		refd_mpw_kstr(w, "type", "save");
		refd_mpw_kstr(w, "who", T->d.name);
		refd_mpw_kstr(w, "save", sp->save == 1 ? "fort" :
		    (sp->save == 2 ? "ref" : "will"));
		refd_mpw_kstr(w, "caster", A->d.name);	/* owns the DC */
		refd_mpw_kint(w, "dc", dc);
		refd_mpw_kint(w, "roll", v);
		refd_mpw_kint(w, "total", tot);
		refd_mpw_kbool(w, "success", ok);
		refd_mpw_end(w);
		if ((rc = emitw(ctx, s, w)) != REFD_OK)
			return rc;
		if (sp->save == 2 && sp->half && cover_vs(s, a, t, 0) == 2)
			amt = ok ? 0 : amt / 2;	/* improved evasion (5.1.6) */
		else if (ok)
			amt = sp->half ? amt / 2 : 0;
		saved = ok;
	}
	if (sp->effect >= 3)
		return mg_spell_after_save(ctx, s, a, t, sp, saved);
	w = refd_mpw_create();
	refd_mpw_map(w);
	refd_mpw_kstr(w, "type", "spell_damage");
	refd_mpw_kstr(w, "target", T->d.name);
	refd_mpw_kint(w, "damage", amt);
	if (sp->nonlethal)
		refd_mpw_kbool(w, "nonlethal", 1);
	refd_mpw_end(w);
	if ((rc = emitw(ctx, s, w)) != REFD_OK)
		return rc;
	if (amt > 0)
		return deal(ctx, s, t, amt, sp->nonlethal, sp->nonlethal ? 0 :
		    amt);
	return REFD_OK;
}

/* After a foe drops: offer Cleave's extra attack when possible. */
static int
cleave_offer(struct st *s, int a)
{
	const struct cr *A = &s->c[a];
	int i;

	if (!(A->d.feats & (F_CLEAVE | F_GCLEAVE)) || !able(A) ||
	    (s->cleaved && !(A->d.feats & F_GCLEAVE)) || active(s) != a)
		return 0;
	for (i = 0; i < s->nc; i++)
		if (cleave_ok(s, a, i))
			break;
	if (i == s->nc)
		return 0;
	s->pk = PK_CLEAVE;
	s->q[0] = a;
	s->nq = 1;
	s->qi = 0;
	return 1;
}

/* Splash damage to every creature overlapping the square block
 * [x0, x1] x [y0, y1], except `skip` (5.11). */
static int
splash_area(refd_ctx *ctx, struct st *s, const struct weapon *w, int x0,
    int y0, int x1, int y1, int skip)
{
	int i, rc;

	for (i = 0; i < s->nc; i++) {
		struct cr *c = &s->c[i];
		int n = space_n(c);
		refd_mpw *ev;

		if (i == skip || c->dead || c->x > x1 || c->x + n - 1 < x0 ||
		    c->y > y1 || c->y + n - 1 < y0)
			continue;
		ev = refd_mpw_create();
		refd_mpw_map(ev);
		refd_mpw_kstr(ev, "type", "splash");
		refd_mpw_kstr(ev, "target", c->d.name);
		refd_mpw_kint(ev, "damage", w->splash);
		refd_mpw_end(ev);
		if ((rc = emitw(ctx, s, ev)) != REFD_OK ||
		    (rc = deal(ctx, s, i, w->splash, 0, 0)) != REFD_OK)
			return rc;
	}
	return REFD_OK;
}

/* The 8-way direction nearest to (dx, dy), as an index of the clockwise
 * list N, NE, E, SE, S, SW, W, NW (D001-38). */
static int
octant(long dx, long dy)
{
	static const int idx[3][3] = { { 7, 6, 5 }, { 0, -1, 4 },
		{ 1, 2, 3 } };
	long ax = dx < 0 ? -dx : dx, ay = dy < 0 ? -dy : dy;
	int sx = dx > 0 ? 1 : (dx < 0 ? -1 : 0);
	int sy = dy > 0 ? 1 : (dy < 0 ? -1 : 0);

	/* tan 22.5 degrees ~ 0.41421: integers only. */
	if (ay * 100000 < ax * 41421)
		sy = 0;
	else if (ax * 100000 < ay * 41421)
		sx = 0;
	return idx[sx + 1][sy + 1];
}

/* A thrown splash weapon: hit, or scatter by d8 and increments (5.11). */
static int
throw_splash(refd_ctx *ctx, struct st *s)
{
	static const int ddx[8] = { 0, 1, 1, 1, 0, -1, -1, -1 };
	static const int ddy[8] = { -1, -1, 0, 1, 1, 1, 0, -1 };
	struct cont *k = &s->k;
	int a = k->who, t = k->target, pt = k->flags & 1, rc, hit, n, d;
	struct cr *A = &s->c[a];
	const struct weapon *w = &A->d.w[0];
	int ax, ay, dir, v, lx, ly;
	long vx, vy;
	refd_mpw *ev;

	if (!pt) {
		struct atk r;

		if ((rc = attack(ctx, s, a, t, w, A_RANGED | A_TOUCH, 0, 0,
		    &r)) != REFD_OK)
			return rc;
		hit = r.hit;
		ax = s->c[t].x;
		ay = s->c[t].y;
		d = cdist(A, &s->c[t]);
		if (hit)
			return splash_area(ctx, s, w, ax - 1, ay - 1,
			    ax + space_n(&s->c[t]), ay + space_n(&s->c[t]), t);
		vx = (2 * A->x + 1) - (2 * ax + 1);
		vy = (2 * A->y + 1) - (2 * ay + 1);
	} else {
		int b, tot;

		ax = k->px[1];
		ay = k->py[1];
		d = point_dist(A, ax, ay);
		n = (d + w->incr - 1) / w->incr;
		b = A->d.bab + mod(A->d.dex) + sizemod(A->d.size) + w->enh -
		    (n > 1 ? s->range_pen * (n - 1) : 0);
		if ((rc = roll(ctx, 20, "attack", &v)) != REFD_OK)
			return rc;
		tot = v + b;
		hit = v != 1 && (v == 20 || tot >= 5);
		ev = refd_mpw_create();
		refd_mpw_map(ev);
		refd_mpw_kstr(ev, "type", "throw");
		refd_mpw_kstr(ev, "who", A->d.name);
		refd_mpw_karray(ev, "point");
		refd_mpw_int(ev, ax);
		refd_mpw_int(ev, ay);
		refd_mpw_end(ev);
		refd_mpw_kint(ev, "roll", v);
		refd_mpw_kint(ev, "bonus", b);
		refd_mpw_kint(ev, "total", tot);
		refd_mpw_kint(ev, "ac", 5);
		refd_mpw_kbool(ev, "hit", hit);
		refd_mpw_end(ev);
		if ((rc = emitw(ctx, s, ev)) != REFD_OK)
			return rc;
		if (hit)
			return splash_area(ctx, s, w, ax - 1, ay - 1, ax, ay,
			    -1);
		vx = (2 * A->x + 1) - 2 * ax;
		vy = (2 * A->y + 1) - 2 * ay;
	}
	/* A miss: d8 from "back toward the thrower", clockwise. */
	n = (d + w->incr - 1) / w->incr;
	if (n < 1)
		n = 1;
	if ((rc = roll(ctx, 8, "splash direction", &v)) != REFD_OK)
		return rc;
	dir = octant(vx, vy);
	dir = ((dir < 0 ? 0 : dir) + v - 1) % 8;
	lx = ax + ddx[dir] * n;
	ly = ay + ddy[dir] * n;
	ev = refd_mpw_create();
	refd_mpw_map(ev);
	refd_mpw_kstr(ev, "type", "splash_lands");
	refd_mpw_kint(ev, "roll", v);
	refd_mpw_karray(ev, pt ? "point" : "square");
	refd_mpw_int(ev, lx);
	refd_mpw_int(ev, ly);
	refd_mpw_end(ev);
	refd_mpw_end(ev);
	if ((rc = emitw(ctx, s, ev)) != REFD_OK)
		return rc;
	if (pt)
		return splash_area(ctx, s, w, lx - 1, ly - 1, lx, ly, -1);
	return splash_area(ctx, s, w, lx - 1, ly - 1, lx + 1, ly + 1, -1);
}

/*
 * Turn undead (5.16, D001-42): the check sets the most HD affected, 2d6
 * + level + Cha the HD pool; undead within 12 squares with line of
 * effect, closest first (ties by a die, R001-80), destroyed at level >=
 * 2 x HD, else turned for 10 rounds; stop at the first one the pool
 * cannot pay for.
 */
static int
turn_undead(refd_ctx *ctx, struct st *s, int a)
{
	static const int steps[] = { -4, -3, -3, -3, -2, -2, -2, -1, -1, -1,
		0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4 };
	struct cr *A = &s->c[a];
	int rc, chk, v, d1, d2, maxhd, pool, lvl = A->d.turn_level;
	int done = 0, i, n, best, bd, cand[MAXC];
	refd_mpw *w;

	A->d.turn_uses--;
	if ((rc = roll(ctx, 20, "turning check", &v)) != REFD_OK)
		return rc;
	chk = v + mod(A->d.cha);
	A->turn_chk = chk;
	maxhd = lvl + steps[chk <= 0 ? 0 : (chk >= 22 ? 22 : chk)];
	if ((rc = roll(ctx, 6, "turning damage", &d1)) != REFD_OK ||
	    (rc = roll(ctx, 6, "turning damage", &d2)) != REFD_OK)
		return rc;
	pool = d1 + d2 + lvl + mod(A->d.cha);
	w = refd_mpw_create();
	refd_mpw_map(w);
	refd_mpw_kstr(w, "type", "turn_undead");
	refd_mpw_kstr(w, "who", A->d.name);
	refd_mpw_kint(w, "roll", v);
	refd_mpw_kint(w, "check", chk);
	refd_mpw_kint(w, "max_hd", maxhd);
	refd_mpw_kint(w, "pool", pool);
	refd_mpw_end(w);
	if ((rc = emitw(ctx, s, w)) != REFD_OK)
		return rc;
	for (;;) {
		/* The closest eligible undead not yet handled. */
		best = 1 << 20;
		n = 0;
		for (i = 0; i < s->nc; i++) {
			struct cr *U = &s->c[i];

			if (!U->d.undead || U->dead || (done & (1 << i)) ||
			    mg_turn_skip(s, a, i) || mg_turn_hd(U) > maxhd ||
			    cdist(A, U) > 12 || !has_loe(s, a, i))
				continue;
			bd = cdist(A, U);
			if (bd < best) {
				best = bd;
				n = 0;
			}
			if (bd == best)
				cand[n++] = i;
		}
		if (n == 0)
			break;
		i = cand[0];
		if (n > 1) {
			if ((rc = roll(ctx, (uint32_t)n, "nearest", &v)) !=
			    REFD_OK)
				return rc;
			i = cand[v - 1];
		}
		if (s->c[i].d.hd > pool)
			break;
		pool -= s->c[i].d.hd;
		done |= 1 << i;
		if (A->d.rebuke) {
			mg_rebuked(s, a, i, lvl >= 2 * mg_turn_hd(&s->c[i]));
		} else if (lvl >= 2 * mg_turn_hd(&s->c[i])) {
			s->c[i].dead = 1;
			s->c[i].grap = 0;
		} else {
			s->c[i].turned_until = mg_end(s, 10);
			s->c[i].turned_by = a + 1;
		}
		w = refd_mpw_create();
		refd_mpw_map(w);
		refd_mpw_kstr(w, "type", "turned");
		refd_mpw_kstr(w, "target", s->c[i].d.name);
		refd_mpw_kbool(w, "destroyed", s->c[i].dead);
		if (A->d.rebuke)
			refd_mpw_kbool(w, "commanded", s->c[i].cmd_by != 0);
		refd_mpw_kint(w, "pool_left", pool);
		refd_mpw_end(w);
		if ((rc = emitw(ctx, s, w)) != REFD_OK)
			return rc;
	}
	return REFD_OK;
}

/* The overrunner passes to the square beyond the defender. */
static int
pass_through(refd_ctx *ctx, struct st *s, int a)
{
	struct cr *A = &s->c[a];
	refd_mpw *w;

	if (!real_free(s, a, s->k.px[1], s->k.py[1]))
		return ev_simple(ctx, "bumped", s, a, -1);
	A->x = s->k.px[1];
	A->y = s->k.py[1];
	mt_follow(s, a);
	s->sq_moved += 2;
	w = refd_mpw_create();
	refd_mpw_map(w);
	refd_mpw_kstr(w, "type", "move");
	refd_mpw_kstr(w, "who", A->d.name);
	refd_mpw_karray(w, "to");
	refd_mpw_int(w, A->x);
	refd_mpw_int(w, A->y);
	refd_mpw_end(w);
	refd_mpw_kint(w, "squares", 2);
	refd_mpw_end(w);
	return emit_at(ctx, s, a, w);
}

/* Overrun step 2-4 (5.14): avoided, or blocked with Str checks. */
int
overrun_block(refd_ctx *ctx, struct st *s, int avoid)
{
	struct cont *k = &s->k;
	int a = k->who, t = man_ovr_defender(s), rc, ra, rd, win, ma, md;
	int b = mt_body(s, a);	/* a mounted overrun: the mount's check */
	struct cr *A = &s->c[a], *T = &s->c[t], *B = &s->c[b];
	int inmove = k->kind == K_MOVE;	/* during a longer move */
	int charging = inmove && k->mode == MV_CHARGE;

	if (!inmove)
		k->kind = K_NONE;
	if (!able(A))
		return inmove ? run_move(ctx, s) : settle(ctx, s);
	if (avoid) {
		if (!charging && A->mounted)
			s->m_att = 0;	/* D001-41, the mount's action */
		else if (!charging)
			s->std = 0;	/* D001-41: an avoided overrun is no action */
		if ((rc = ev_simple(ctx, "overrun_avoided", s, t, a)) !=
		    REFD_OK)
			return rc;
		if (inmove) {
			k->margin = 3;	/* it goes on through */
			return run_move(ctx, s);
		}
		if ((rc = pass_through(ctx, s, a)) != REFD_OK)
			return rc;
		return settle(ctx, s);
	}
	t = mt_body(s, t);	/* a mounted defender: its mount blocks */
	T = &s->c[t];
	ma = mod(B->d.str) + 4 * B->d.size + (charging ? 2 : 0) -
	    mg_save_pen(B);
	md = (able(T) ? better_sd(T) : -5) + 4 * T->d.size + stability(T) -
	    mg_save_pen(T);
	if ((rc = opposed(ctx, ma, md, "overrun", &ra, &rd, &win)) != REFD_OK)
		return rc;
	if ((rc = ev_check(ctx, "overrun", s, b, t, ra, ra + ma, rd, rd + md,
	    win)) != REFD_OK)
		return rc;
	if (win) {
		T->prone = 1;
		if ((rc = mt_hoof(ctx, s, a, t)) != REFD_OK)	/* Trample */
			return rc;
		if (inmove) {
			k->margin = 3;
			return run_move(ctx, s);
		}
		if ((rc = pass_through(ctx, s, a)) != REFD_OK)
			return rc;
		return settle(ctx, s);
	}
	/* The defender may knock the attacker down: Str vs Str-or-Dex. */
	ma = mod(T->d.str) + 4 * T->d.size - mg_save_pen(T);
	md = better_sd(B) + 4 * B->d.size - mg_save_pen(B);
	if ((rc = opposed(ctx, ma, md, "overrun", &ra, &rd, &win)) != REFD_OK)
		return rc;
	if ((rc = ev_check(ctx, "overrun_knockdown", s, t, b, ra, ra + ma,
	    rd, rd + md, win)) != REFD_OK)
		return rc;
	if (win)
		B->prone = 1;	/* a knocked-down mount throws its rider */
	if (inmove) {
		k->margin = 4;	/* its movement ends before the defender */
		return run_move(ctx, s);
	}
	return settle(ctx, s);
}

static int
finish_act(refd_ctx *ctx, struct st *s)
{
	struct cont *k = &s->k;
	int a = k->who, t = k->target, act = k->act, rc, ra, rd, win;
	struct cr *A = &s->c[a], *T = t >= 0 ? &s->c[t] : NULL;
	struct weapon w;
	struct atk r;

	k->kind = K_NONE;
	if (!able(A) || (T != NULL && T->dead))
		return settle(ctx, s);
	melee_weapon(A, &w);
	switch (act) {
	case C_ATTACK:
	case C_FULL:
		w = (k->flags & A_OFF) && !A->d.w[0].dbl ? A->d.w[1] :
		    A->d.w[0];
		if (k->flags & A_THROWN)
			thrown_weapon(&A->d.w[0], &w);
		if (t < 0) {
			if ((rc = cc_empty_attack(ctx, s, a, &w)) != REFD_OK)
				return rc;
			break;
		}
		if (act == C_FULL && w.dbl && !(k->flags & A_OFF))
			w.cat = 1;	/* used as two weapons: 1x Str (2.13) */
		if (w.ranged && T->grap && !man_in_grapple(s, a, t)) {
			/* An outsider's ranged attack strikes a random
			 * participant of the grapple (5.13, D001-39). */
			if ((rc = man_grapple_pick(ctx, s, a, &t)) != REFD_OK)
				return rc;
			T = &s->c[t];
		}
		{
			int up = T->hp >= 0 && !T->dead;

			if ((rc = attack(ctx, s, a, t, &w, k->flags, k->pen, 0,
			    &r)) != REFD_OK)
				return rc;
			if (up && (T->hp < 0 || T->dead) && !w.ranged &&
			    cleave_offer(s, a))
				return REFD_OK;
		}
		break;
	case C_OVERRUN:
		if (!able(T) || (A->d.feats & F_IOVR) || mt_trample(s, a)) {
			k->kind = K_ACT;
			return overrun_block(ctx, s, 0);
		}
		k->kind = K_ACT;
		s->pk = PK_AVOID;
		s->q[0] = t;
		s->nq = 1;
		s->qi = 0;
		return REFD_OK;
	case C_THROW:
		if ((rc = throw_splash(ctx, s)) != REFD_OK)
			return rc;
		break;
	case C_DRINK:
		if ((rc = spell_effect(ctx, s, a, a, &A->d.potion[k->pen])) !=
		    REFD_OK)
			return rc;
		break;
	case C_CAST: {
		const struct spell *sp = &A->d.sp[k->pen];
		int ok = 1;

		if (k->hurt > 0 && mg_concentrates(sp) && (rc = concentrate(ctx,
		    s, a, 10 + k->hurt + sp->level, "damaged while casting",
		    &ok)) != REFD_OK)
			return rc;
		if (ok && t < 0) {
			if ((rc = mg_hold(ctx, s, a, k->pen)) != REFD_OK)
				return rc;
			break;
		}
		if (ok && mg_time(A, sp, A->cast_meta) >= 3) {
			/* Takes effect before the caster's turn. */
			A->casting = k->pen + 1;
			A->cast_left = mg_cast_rounds(A, sp, A->cast_meta);
			A->cast_target = t;
			if ((rc = ev_simple(ctx, "casting", s, a, t)) !=
			    REFD_OK)
				return rc;
			break;
		}
		if (ok && (rc = spell_effect(ctx, s, a, t, sp)) != REFD_OK)
			return rc;
		break;
	}
	case C_CRAWL:
		if (real_free(s, a, k->px[1], k->py[1])) {
			refd_mpw *ev = refd_mpw_create();

			A->x = k->px[1];
			A->y = k->py[1];
			cc_moved(s, a);
			refd_mpw_map(ev);
			refd_mpw_kstr(ev, "type", "crawl");
			refd_mpw_kstr(ev, "who", A->d.name);
			refd_mpw_karray(ev, "to");
			refd_mpw_int(ev, A->x);
			refd_mpw_int(ev, A->y);
			refd_mpw_end(ev);
			refd_mpw_end(ev);
			if ((rc = emit_at(ctx, s, a, ev)) != REFD_OK)
				return rc;
		}
		break;
	case C_STAND:
		A->prone = 0;
		if ((rc = ev_simple(ctx, "stand_up", s, a, -1)) != REFD_OK)
			return rc;
		break;
	case C_CONTROL:
		if (A->mounted && (rc = mt_control(ctx, s, a)) != REFD_OK)
			return rc;
		break;
	case C_TRIP: {
		int ma, md;

		if (!w.trip)
			unarmed_weapon(&w, A->d.size);
		if ((rc = attack(ctx, s, a, t, &w, A_TOUCH | A_NODMG, k->pen,
		    0, &r)) != REFD_OK)
			return rc;
		if (!r.hit)
			break;
		ma = mod(A->d.str) + 4 * A->d.size - mg_save_pen(A);
		md = mt_trip_md(s, t, better_sd(T) + 4 * T->d.size +
		    stability(T) - mg_save_pen(T));
		if ((rc = opposed(ctx, ma, md, "trip", &ra, &rd, &win)) !=
		    REFD_OK)
			return rc;
		if ((rc = ev_check(ctx, "trip", s, a, t, ra, ra + ma, rd,
		    rd + md, win)) != REFD_OK)
			return rc;
		if (win) {
			T->prone = 1;
			break;
		}
		s->pk = PK_COUNTER;
		s->q[0] = t;
		s->nq = 1;
		s->qi = 0;
		k->act = C_TRIP;
		return REFD_OK;
	}
	case C_BULL: {
		int b = mt_body(s, a);	/* mounted: the mount pushes */
		int ma = mod(s->c[b].d.str) + 4 * s->c[b].d.size +
		    ((k->flags & A_CHARGE) ? 2 : 0) - mg_save_pen(&s->c[b]);
		int tb = mt_body(s, t);	/* a mounted pair: its mount */
		int md = mod(s->c[tb].d.str) + 4 * s->c[tb].d.size +
		    stability(&s->c[tb]) - mg_save_pen(&s->c[tb]);

		if ((rc = opposed(ctx, ma, md, "bull rush", &ra, &rd, &win)) !=
		    REFD_OK)
			return rc;
		if ((rc = ev_check(ctx, "bull_rush", s, b, tb, ra, ra + ma, rd,
		    rd + md, win)) != REFD_OK)
			return rc;
		if (!win)
			break;
		k->margin = (ra + ma) - (rd + md);
		if (!(k->flags & A_CHARGE)) {
			if (s->mv > 0 && s->sq_moved == 0)
				k->allow = 0;
			else
				k->allow = speed_of(A) - s->sq_moved;
		}
		if (k->allow < 1)
			return man_push_start(ctx, s, a, t, 1, 0);
		s->pk = PK_FOLLOW;
		s->q[0] = a;
		s->nq = 1;
		s->qi = 0;
		k->act = C_BULL;
		return REFD_OK;
	}
	case C_DISARM:
	case C_SUNDER: {
		int ma = disarm_mod(s, a, t) - k->pen, md = disarm_mod(s, t, a);

		if (act == C_DISARM && T->d.locked)
			md += 10;	/* a locked gauntlet (5.8) */

		if ((k->flags & 15) == 3)	/* a potion (5.8, 5.9) */
			return man_potion_finish(ctx, s);
		if ((k->flags & 15) == ITEM_WORN)	/* a worn item */
			return gr_worn_finish(ctx, s);

		if (act == C_DISARM && k->hurt > 0) {
			if ((rc = ev_simple(ctx, "disarm_fails", s, a, t)) !=
			    REFD_OK)
				return rc;
			break;
		}
		if (T->d.w[0].ranged)
			md -= 4;
		if ((rc = opposed(ctx, ma, md, cmd_name[act], &ra, &rd,
		    &win)) != REFD_OK)
			return rc;
		if ((rc = ev_check(ctx, cmd_name[act], s, a, t, ra, ra + ma,
		    rd, rd + md, win)) != REFD_OK)
			return rc;
		if (act == C_DISARM) {
			if (win) {
				/* Unarmed, the attacker takes it (5.8). */
				if (A->d.w[0].unarmed && !A->d.w[0].natural) {
					A->d.w[0] = T->d.w[0];
					A->whp = T->whp;
				} else if ((rc = man_ground_put(ctx, s, t)) !=
				    REFD_OK) {
					return rc;	/* it drops (5.8) */
				}
				unarmed_weapon(&T->d.w[0], T->d.size);
				break;
			}
			if (T->d.w[0].ranged || A->d.w[0].unarmed ||
			    A->d.w[0].natural)
				break;
			s->pk = PK_COUNTER;
			s->q[0] = t;
			s->nq = 1;
			s->qi = 0;
			k->act = C_DISARM;
			return REFD_OK;
		}
		if (win) {
			int sum = str_dmg(A, &A->d.w[0], 0) + A->d.w[0].enh;
			int j, v, net;
			refd_mpw *ev;

			for (j = 0; j < A->d.w[0].nd; j++) {
				if ((rc = roll(ctx, (uint32_t)A->d.w[0].sd,
				    "damage", &v)) != REFD_OK)
					return rc;
				sum += v;
			}
			if (sum < 1)
				sum = 1;
			{
				int shield = k->flags == 2;
				int hard = shield ? T->d.shield_hardness :
				    T->d.w[0].hardness;
				int32_t *hp = shield ? &T->shp : &T->whp;

				net = sum - hard;
				if (net > 0)
					*hp -= net;
				ev = refd_mpw_create();
				refd_mpw_map(ev);
				refd_mpw_kstr(ev, "type", "item_damage");
				refd_mpw_kstr(ev, "target", T->d.name);
				refd_mpw_kstr(ev, "item", shield ? "shield" :
				    T->d.w[0].name);
				refd_mpw_kint(ev, "damage", sum);
				refd_mpw_kint(ev, "hardness", hard);
				refd_mpw_kint(ev, "item_hp", *hp > 0 ? *hp : 0);
				refd_mpw_kbool(ev, "destroyed", *hp <= 0);
				refd_mpw_end(ev);
				if ((rc = emitw(ctx, s, ev)) != REFD_OK)
					return rc;
				if (*hp <= 0 && shield)
					T->d.shield = 0;	/* its AC goes */
				else if (*hp <= 0)
					unarmed_weapon(&T->d.w[0], T->d.size);
			}
		}
		break;
	}
	case C_GRAPPLE: {
		int ma = grapple_mod(A), md = grapple_mod(T);

		if (k->hurt > 0) {
			if ((rc = ev_simple(ctx, "grapple_fails", s, a, t)) !=
			    REFD_OK)
				return rc;
			break;
		}
		unarmed_weapon(&w, A->d.size);
		if (!(k->flags & 1) && (rc = attack(ctx, s, a, t, &w, A_TOUCH |
		    A_NODMG, k->pen, 0, &r)) != REFD_OK)
			return rc;
		if (!(k->flags & 1) && !r.hit)
			break;
		if (T->d.size - A->d.size >= 2) {
			if ((rc = ev_simple(ctx, "grapple_fails", s, a, t)) !=
			    REFD_OK)
				return rc;
			break;
		}
		if ((rc = opposed(ctx, ma, md, "grapple", &ra, &rd, &win)) !=
		    REFD_OK)
			return rc;
		if ((rc = ev_check(ctx, "grapple", s, a, t, ra, ra + ma, rd,
		    rd + md, win)) != REFD_OK)
			return rc;
		if (win) {
			man_grapple_join(s, a, t);
			if ((rc = unarmed_damage(ctx, s, a, t, gr_monk(A))) !=
			    REFD_OK ||
			    (rc = mg_contact(ctx, s, a, t)) != REFD_OK)
				return rc;
			return man_enter_start(ctx, s, a, t);
		}
		break;
	}
	case ACT_GRAP_IN:
		return man_enter(ctx, s);
	case C_SHEATHE:
	case C_PICKUP:
	case C_LOAD:
		return man_item_finish(ctx, s);
	case C_CDG: {
		w = A->d.w[0].ranged ? w : A->d.w[0];
		if ((rc = attack(ctx, s, a, t, &w, A_CDG, 0, 0, &r)) !=
		    REFD_OK)
			return rc;
		if (!T->dead) {
			int v, tot, dc = 10 + r.dmg;
			refd_mpw *ev;

			if ((rc = roll(ctx, 20, "fortitude", &v)) != REFD_OK)
				return rc;
			tot = v + T->d.fort + mod(T->d.con) - save_pen(T);
			if (v == 1 || (v != 20 && tot < dc))
				T->dead = 1;
			ev = refd_mpw_create();
			refd_mpw_map(ev);
			refd_mpw_kstr(ev, "type", "save");
			refd_mpw_kstr(ev, "who", T->d.name);
			refd_mpw_kstr(ev, "save", "fort");
			refd_mpw_kint(ev, "dc", dc);
			refd_mpw_kint(ev, "roll", v);
			refd_mpw_kint(ev, "total", tot);
			refd_mpw_kbool(ev, "success", !T->dead);
			refd_mpw_end(ev);
			if ((rc = emitw(ctx, s, ev)) != REFD_OK)
				return rc;
		}
		break;
	}
	case C_STAB: {
		int v;

		if ((rc = roll(ctx, 20, "heal", &v)) != REFD_OK)
			return rc;
		v -= mg_save_pen(A);	/* a skill check: -2 when afraid */
		win = v + A->d.heal >= 15;
		if (win)
			T->stable = 1;
		if ((rc = ev_check(ctx, "stabilize", s, a, t, v +
		    mg_save_pen(A), v + A->d.heal, 0, 15, win)) != REFD_OK)
			return rc;
		break;
	}
	default:
		break;
	}
	return settle(ctx, s);
}

/* ---- actions ---- */

void
use_std(struct st *s, const struct cr *A)
{
	s->std = 1;
	if (A->hp == 0)
		s->std_dis = 1;
}

/* The move-action part of the budget, a full attack becoming a move
 * (1.6). */
void
spend_move(struct st *s)
{
	if (s->fa) {
		s->fa = 0;
		s->full = 0;
		s->std = 1;
		s->mv = 1;
		s->fa_conv = 1;
	} else {
		s->mv++;
	}
}

/* Spend a maneuver's action; returns its attack penalty (iterative). */
int
maneuver_budget(struct st *s, const struct cr *A, const struct cmd *c)
{
	int pp, po, pen;

	s->attacks++;
	if (!c->full) {
		use_std(s, A);
		return 0;
	}
	twf(A, &pp, &po);
	if (A->grap)
		pp = 0;	/* no two-weapon fighting in a grapple */
	if (!s->fa) {
		s->fa = 1;
		s->full = 1;
	}
	pen = 5 * s->fa_main + pp;
	s->fa_main++;
	return pen;
}

int
start_move(refd_ctx *ctx, struct st *s, int a, struct cmd *c, int mode,
    int allow)
{
	struct cont *k = &s->k;
	int i, par = s->diag & 1, np;

	memset(k, 0, sizeof(*k));
	k->kind = K_MOVE;
	k->mode = mode;
	k->who = a;
	k->target = c->target;
	k->act = c->kind;
	k->ally = c->ovr + 1;	/* a charge's overrun defender + 1 */
	k->n = c->npath;
	k->allow = allow;
	for (i = 0; i < c->npath; i++) {
		k->px[i] = c->px[i];
		k->py[i] = c->py[i];
		if (i > 0 && c->px[i] != c->px[i - 1] &&
		    c->py[i] != c->py[i - 1] && !(s->sq[c->py[i]][c->px[i]] &
		    (SQ_DIFF | SQ_OBST))) {
			np = !par;
			par = np;
		}
	}
	s->diag = par;
	s->moved = 1;
	return run_move(ctx, s);
}

/* The rest of a cast, after any readied attack it triggered (7.2). */
static int
cast_continue(refd_ctx *ctx, struct st *s, int a, int t, int si,
    int defensive)
{
	struct cr *A = &s->c[a];
	const struct spell *sp = &A->d.sp[si];
	int rc, ok = 1;

	if (!able(A)) {
		s->hurt0 = 0;
		return settle(ctx, s);
	}
	if ((A->cond & COND_DEAFENED) && mg_verbal(A, sp)) {
		int v;
		refd_mpw *ev;

		if ((rc = roll(ctx, 100, "deafened", &v)) != REFD_OK)
			return rc;
		ok = v > 20;
		ev = refd_mpw_create();
		refd_mpw_map(ev);
		refd_mpw_kstr(ev, "type", "spell_failure");
		refd_mpw_kstr(ev, "who", A->d.name);
		refd_mpw_kint(ev, "roll", v);
		refd_mpw_kbool(ev, "lost", !ok);
		refd_mpw_end(ev);
		if ((rc = emitw(ctx, s, ev)) != REFD_OK)
			return rc;
		if (!ok)
			return settle(ctx, s);
	}
	if (A->grap && mg_concentrates(sp) && (rc = concentrate(ctx, s, a,
	    20 + sp->level,
	    "grappled", &ok)) != REFD_OK)
		return rc;
	if (ok && defensive && (rc = concentrate(ctx, s, a,
	    15 + sp->level, "defensive casting", &ok)) != REFD_OK)
		return rc;
	if (ok && s->m_castdc && A->mounted && (rc = concentrate(ctx, s, a,
	    s->m_castdc + sp->level, "mounted", &ok)) != REFD_OK)
		return rc;
	if (ok && (A->cond & COND_ENTANGLED) && !A->no62 &&
	    mg_concentrates(sp) && (rc = concentrate(ctx, s, a,
	    15 + sp->level, "entangled", &ok)) != REFD_OK)
		return rc;	/* 6.2 */
	if (!ok)
		return settle(ctx, s);
	return begin_act(ctx, s, C_CAST, a, t, 0, si,
	    defensive || !mg_provokes(sp) ? 0 : 1);
}

int
cmd_exec(refd_ctx *ctx, struct st *s, struct cmd *c)
{
	int a, rc, t = c->target;
	struct cr *A;

	if (s->over && s->resting == 2)
		return mg_rest_exec(ctx, s, c);
	if (s->pk != PK_NONE) {
		int who = s->q[s->qi];

		switch (s->pk) {
		case PK_AOO: {
			struct weapon w;
			struct atk r;
			int m = man_aoo_victim(s);

			if (c->take) {
				melee_weapon(&s->c[who], &w);
				s->c[who].aoo_used++;
				man_aoo_taken(s, who);
				if (s->k.kind == K_ACT && s->k.act == C_BULL &&
				    who != s->k.target && s->k.target >= 0) {
					/* 25 % redirection while the two share
					 * the space (5.6, R001-79). */
					int d20, d100;
					refd_mpw *ev;

					if ((rc = roll(ctx, 20, "attack", &d20)) !=
					    REFD_OK ||
					    (rc = roll(ctx, 100, "redirection",
					    &d100)) != REFD_OK)
						return rc;
					ev = refd_mpw_create();
					refd_mpw_map(ev);
					refd_mpw_kstr(ev, "type", "redirection");
					refd_mpw_kint(ev, "roll", d100);
					refd_mpw_kbool(ev, "redirected", d100 <= 25);
					refd_mpw_end(ev);
					if ((rc = emitw(ctx, s, ev)) != REFD_OK)
						return rc;
					if ((rc = attack(ctx, s, who, d100 <= 25 ?
					    s->k.target : m, &w, A_AOO, 0, d20,
					    &r)) != REFD_OK)
						return rc;
					if (d100 > 25)
						s->k.hurt += r.dmg;
				} else {
					int at = c->target >= 0 ? c->target : m;

					if ((rc = attack(ctx, s, who, at, &w, A_AOO,
					    0, 0, &r)) != REFD_OK)
						return rc;
					if (at == m)	/* not its mount (5.15) */
						s->k.hurt += r.dmg;
				}
			}
			s->qi++;
			while (s->qi < s->nq && (!able(&s->c[m]) ||
			    !aoo_still(s, s->q[s->qi], m)))
				s->qi++;
			if (s->qi < s->nq)
				return REFD_OK;
			s->pk = PK_NONE;
			return resume(ctx, s);
		}
		case PK_COUNTER: {
			int x = s->k.who;	/* the first initiator */
			struct cr *X = &s->c[x], *W = &s->c[who];
			int ra, rd, win, ma, md;

			s->pk = PK_NONE;
			if (c->take && able(W) && able(X)) {
				if (s->k.act == C_TRIP) {
					ma = mod(W->d.str) + 4 * W->d.size -
					    mg_save_pen(W);
					md = mt_trip_md(s, x, better_sd(X) +
					    4 * X->d.size + stability(X) -
					    mg_save_pen(X));
				} else {
					ma = disarm_mod(s, who, x);
					md = disarm_mod(s, x, who) +
					    (X->d.locked ? 10 : 0);
				}
				if ((rc = opposed(ctx, ma, md, "counter", &ra,
				    &rd, &win)) != REFD_OK)
					return rc;
				if ((rc = ev_check(ctx, s->k.act == C_TRIP ?
				    "counter_trip" : "counter_disarm", s, who,
				    x, ra, ra + ma, rd, rd + md, win)) !=
				    REFD_OK)
					return rc;
				if (win && s->k.act == C_TRIP)
					X->prone = 1;
				if (win && s->k.act == C_DISARM) {
					if ((rc = man_ground_put(ctx, s, x)) !=
					    REFD_OK)
						return rc;
					unarmed_weapon(&X->d.w[0], X->d.size);
				}
			}
			return settle(ctx, s);
		}
		case PK_FOLLOW: {
			int pushes = 1, m = s->k.margin;

			s->pk = PK_NONE;
			if (c->take) {
				pushes = 1 + m / 5;
				if (pushes > s->k.allow)
					pushes = s->k.allow;
			}
			return man_push_start(ctx, s, who, s->k.target, pushes,
			    c->take);
		}
		case PK_AVOID:
			s->pk = PK_NONE;
			return overrun_block(ctx, s, c->take);
		case PK_HOLD:
			return man_hold_answer(ctx, s, c->take);
		case PK_CLEAVE: {
			struct weapon w;
			struct atk r;
			int t2 = c->target, up;

			s->pk = PK_NONE;
			if (t2 < 0)
				return settle(ctx, s);
			s->cleaved = 1;
			melee_weapon(&s->c[who], &w);
			up = s->c[t2].hp >= 0;
			if ((rc = ev_simple(ctx, "cleave", s, who, t2)) !=
			    REFD_OK || (rc = attack(ctx, s, who, t2, &w,
			    s->k.flags & ~A_OFF, s->k.pen, 0, &r)) != REFD_OK)
				return rc;
			if (up && (s->c[t2].hp < 0 || s->c[t2].dead) &&
			    cleave_offer(s, who))
				return REFD_OK;
			return settle(ctx, s);
		}
		case PK_READY: {
			struct weapon w;
			struct atk r;
			int m = s->k.who, p, mi, i;

			if (c->take) {
				int rf = 0;

				if (s->c[who].ready_trig == 1 &&
				    s->c[who].d.w[0].ranged) {
					w = s->c[who].d.w[0];
					rf = A_RANGED;
				} else {
					melee_weapon(&s->c[who], &w);
				}
				s->c[who].ready_vs = -1;
				if ((rc = ev_simple(ctx, "ready_fires", s, who,
				    m)) != REFD_OK)
					return rc;
				if (s->c[who].rdy_kind != RK_ATTACK) {
					if ((rc = mg_fire(ctx, s, who)) != REFD_OK)
						return rc;
				} else if ((rc = attack(ctx, s, who, m, &w, rf |
				    (s->c[m].charged && (w.dtype & DT_P) &&
				    !rf ? A_SET : 0), 0, 0, &r)) != REFD_OK) {
					return rc;
				} else {
					s->k.hurt += r.dmg;
				}
				/* Its place moves just before the mover. */
				for (p = 0; p < s->norder &&
				    s->order[p] != who; p++)
					;
				mi = s->cur;
				if (p < s->norder) {
					for (i = p; i < s->norder - 1; i++)
						s->order[i] = s->order[i + 1];
					if (p < mi)
						mi--;
					for (i = s->norder - 1; i > mi; i--)
						s->order[i] = s->order[i - 1];
					s->order[mi] = who;
					s->cur = mi + 1;
				}
			}
			s->qi++;
			while (s->qi < s->nq && (!able(&s->c[m]) ||
			    s->c[s->q[s->qi]].ready_vs != m))
				s->qi++;
			if (s->qi < s->nq)
				return REFD_OK;
			s->pk = PK_NONE;
			return resume(ctx, s);
		}
		default: {	/* PK_DELAY */
			int p, pos, i;

			if (c->t == C_WAIT) {
				s->qi++;
				if (s->qi < s->nq)
					return REFD_OK;
				s->pk = PK_NONE;
				return turn_begin(ctx, s, s->dnext, 0);
			}
			s->pk = PK_NONE;
			for (p = 0; s->order[p] != who; p++)
				;
			pos = s->dnext;
			for (i = p; i < s->norder - 1; i++)
				s->order[i] = s->order[i + 1];
			if (p < pos)
				pos--;
			for (i = s->norder - 1; i > pos; i--)
				s->order[i] = s->order[i - 1];
			s->order[pos] = who;
			s->c[who].delaying = 0;
			if ((rc = ev_simple(ctx, "act_from_delay", s, who,
			    -1)) != REFD_OK)
				return rc;
			return turn_begin(ctx, s, pos, 0);
		}
		}
	}
	a = active(s);
	A = &s->c[a];
	if (c->start) {
		use_std(s, A);
		A->pend_act = c->t;
		A->pend_round = s->round;
		if ((rc = ev_simple(ctx, "start_full_round", s, a, -1)) !=
		    REFD_OK)
			return rc;
		return settle(ctx, s);
	}
	if ((c->t == C_CDG || c->t == C_CAST || c->t == C_MINMOVE) &&
	    A->pend_act == c->t && A->pend_round == s->round - 1 &&
	    !can_full(s, A)) {
		/* Completing a started full-round action: a standard action. */
		A->pend_act = 0;
		if ((rc = ev_simple(ctx, "complete_full_round", s, a, -1)) !=
		    REFD_OK)
			return rc;
		use_std(s, A);
		s->full = 0;
		switch (c->t) {
		case C_CDG:
			s->attacks++;
			return begin_act(ctx, s, C_CDG, a, t, 0, 0, 1);
		case C_MINMOVE:
			return start_move(ctx, s, a, c, MV_MOVE, 0);
		default:
			break;	/* the cast below spends no more */
		}
	}
	{
		int done;	/* mounted combat (5.15) */

		rc = mt_exec(ctx, s, c, &done);
		if (done)
			return rc;
	}
	switch (c->t) {
	case C_END:
		if ((rc = ev_simple(ctx, "end_turn", s, a, -1)) != REFD_OK)
			return rc;
		return turn_end(ctx, s);
	case C_PRONE:
		A->prone = 1;
		if ((rc = ev_simple(ctx, "drop_prone", s, a, -1)) != REFD_OK)
			return rc;
		return settle(ctx, s);
	case C_DELAY:
		A->delaying = 1;
		if ((rc = ev_simple(ctx, "delay", s, a, -1)) != REFD_OK)
			return rc;
		return turn_begin(ctx, s, s->cur + 1, 1);
	case C_TDEF:
		use_std(s, A);
		A->tdef = 1;
		if ((rc = ev_simple(ctx, "total_defense", s, a, -1)) != REFD_OK)
			return rc;
		return settle(ctx, s);
	case C_MOVE:
		if (A->mounted) {
			s->m_mv++;	/* the mount's move action (5.15) */
			return start_move(ctx, s, a, c, MV_MOVE, 0);
		}
		spend_move(s);
		s->moveact = 1;
		return start_move(ctx, s, a, c, MV_MOVE, 0);
	case C_WITHDRAW:
		if (A->mounted)
			s->m_mv = 2;	/* the mount's whole turn (5.15) */
		else if (can_full(s, A))
			s->full = 1;
		else
			use_std(s, A);
		return start_move(ctx, s, a, c, MV_WITHDRAW, 0);
	case C_RUN:
		if (A->mounted) {
			int ok;	/* the mount runs, on its endurance (5.15) */

			if ((rc = mt_endurance(ctx, s, A->mounted - 1, &ok)) !=
			    REFD_OK)
				return rc;
			if (!ok) {
				s->m_mv = 2;	/* it stops: its turn is spent */
				return settle(ctx, s);
			}
			mt_run(s, a);
			return start_move(ctx, s, a, c, MV_RUN, 0);
		}
		s->full = 1;
		{
			int ok;	/* endurance (4.7) */

			if ((rc = mt_endurance(ctx, s, a, &ok)) != REFD_OK)
				return rc;
			if (!ok)
				return settle(ctx, s);
		}
		A->ran = 1;
		return start_move(ctx, s, a, c, MV_RUN, 0);
	case C_CHARGE:
		if (A->mounted) {
			use_std(s, A);	/* the rider's attack (5.15) */
			mt_charge(s, a);
		} else if (can_full(s, A))
			s->full = 1;
		else
			use_std(s, A);
		A->charged = 1;
		s->attacks++;
		if (c->ovr >= 0)
			s->overrun = 1;	/* an overrun on the way (5.14) */
		return start_move(ctx, s, a, c, MV_CHARGE,
		    (s->full || A->mounted ? 2 : 1) * speed_of(A));
	case C_STEP:
		s->step5 = 1;
		if (!real_free(s, a, c->x, c->y)) {
			if ((rc = ev_simple(ctx, "bumped", s, a, -1)) != REFD_OK)
				return rc;
			return settle(ctx, s);
		}
		A->x = c->x;
		A->y = c->y;
		mt_follow(s, a);
		cc_moved(s, a);
		{
			refd_mpw *w = refd_mpw_create();

			refd_mpw_map(w);
			refd_mpw_kstr(w, "type", "step");
			refd_mpw_kstr(w, "who", A->d.name);
			refd_mpw_karray(w, "to");
			refd_mpw_int(w, A->x);
			refd_mpw_int(w, A->y);
			refd_mpw_end(w);
			refd_mpw_end(w);
			if ((rc = emit_at(ctx, s, a, w)) != REFD_OK)
				return rc;
		}
		return settle(ctx, s);
	case C_STAND:
		spend_move(s);
		return begin_act(ctx, s, C_STAND, a, -1, 0, 0, 1);
	case C_CONTROL:
		s->mv++;	/* a move action that provokes (1.7, 5.15) */
		return begin_act(ctx, s, C_CONTROL, a, -1, 0, 0, 1);
	case C_ATTACK:
	case C_FULL: {
		const struct weapon *w = c->off && !A->d.w[0].dbl ? &A->d.w[1] :
		    &A->d.w[0];
		struct weapon tw;
		int flags = 0, pen = 0, pp, po, prov = 0;

		if (throws(s, a, c, c->has_sq ? -1 : t)) {
			w = thrown_weapon(&A->d.w[0], &tw);
			flags |= A_THROWN;
		}

		if (c->has_sq) {
			int o = occupant(s, c->sqx, c->sqy, a);

			t = o >= 0 && !s->c[o].dead ? o : -1;
			s->atk_sqx = c->sqx;
			s->atk_sqy = c->sqy;
		}

		twf(A, &pp, &po);
		if (A->grap)
			pp = 0;	/* no two-weapon fighting in a grapple */
		if (c->t == C_ATTACK) {
			use_std(s, A);
		} else {
			if (!s->fa) {
				s->fa = 1;
				s->full = 1;
			}
			if (c->off) {
				pen = po;
				s->fa_off++;
				flags |= A_OFF;
			} else {
				pen = 5 * s->fa_main + pp;
				s->fa_main++;
			}
		}
		s->attacks++;
		mt_attacked(s, a, c->t == C_FULL, w);
		if (c->defensive)
			A->fdef = 1;
		if (w->ranged)
			flags |= A_RANGED;
		if (A->grap)
			flags |= A_GRAP;
		if (c->nonlethal)
			flags |= A_NONLETHAL;
		if (c->lethal)
			flags |= A_LETHAL;
		if (w->ranged)
			prov = 1;
		else if (w->unarmed && !(A->d.feats & F_IUS) && t >= 0 &&
		    armed(&s->c[t]))
			prov = 2;
		if (c->has_sq)
			flags |= A_SQUARE;
		if (t < 0 && !w->ranged) {
			/* Nobody there: the blow meets air. */
			if ((rc = cc_empty_attack(ctx, s, a, w)) != REFD_OK)
				return rc;
			return settle(ctx, s);
		}
		return begin_act(ctx, s, c->t, a, t, flags, pen, prov);
	}
	case C_TRIP: {
		struct weapon w;

		melee_weapon(A, &w);
		return begin_act(ctx, s, C_TRIP, a, t, 0, maneuver_budget(s, A,
		    c), (w.trip || (A->d.feats & F_ITRIP)) ? 0 : 2);
	}
	case C_BULL:
		use_std(s, A);
		s->attacks++;
		memset(&s->k, 0, sizeof(s->k));
		s->k.kind = K_ACT;
		s->k.act = C_BULL;
		s->k.who = a;
		s->k.target = t;
		if (aoo_queue(s, a, -1, (A->d.feats & F_IBR) ? 1 << t : 0) > 0)
			return REFD_OK;
		return finish_act(ctx, s);
	case C_DISARM:
		return begin_act(ctx, s, C_DISARM, a, t, c->item >= 3 ?
		    c->item | c->si << 4 : 0, maneuver_budget(s, A, c),
		    (A->d.feats & F_IDIS) ? 0 : 2);
	case C_SUNDER:
		return begin_act(ctx, s, C_SUNDER, a, t, c->item == 3 ?
		    3 | c->si << 4 : c->item,
		    maneuver_budget(s, A, c), (A->d.feats & F_ISUN) ? 0 : 2);
	case C_GRAPPLE:
		/* Joining a grapple: no AoO, the grab is automatic (5.13). */
		return begin_act(ctx, s, C_GRAPPLE, a, t, s->c[t].grap != 0,
		    maneuver_budget(s, A, c), (A->d.feats & F_IUS) ||
		    s->c[t].grap ? 0 : 2);
	case C_CDG:
		s->full = 1;
		if (c->has_sq) {
			if ((rc = cc_cdg_square(ctx, s, a, c, &t)) != REFD_OK)
				return rc;
			if (t < 0)
				return settle(ctx, s);
		}
		s->attacks++;
		return begin_act(ctx, s, C_CDG, a, t, 0, 0, 1);
	case C_HIDE:
	case C_SPOT:
		if (s->fa) {	/* the rest of a full attack (2.9) */
			s->fa = 0;
			s->full = 0;
			s->std = s->mv = s->fa_conv = 1;
		} else {
			s->mv++;
		}
		if ((rc = cc_exec(ctx, s, a, c)) != REFD_OK)
			return rc;
		return settle(ctx, s);
	case C_USE_ITEM:
	case C_USE_ABIL:
	case C_CAST: {
		const struct spell *sp = &A->d.sp[c->si];
		refd_mpw *w;
		int ok = 1, tm = mg_time(A, sp, c->meta);

		A->d.uses[c->si]--;
		mt_cast(s, a, c);
		if (tm == 2) {
			s->qcast |= mg_counts(sp);
		} else {
			s->cast |= mg_counts(sp);
			if ((tm == 1 || tm >= 3) && !s->std)
				s->full = 1;
			else
				use_std(s, A);
		}
		A->cast_meta = c->meta;
		if (mg_counts(sp))
			A->held = 0;	/* a new spell dissipates a charge */
		w = refd_mpw_create();
		refd_mpw_map(w);
		refd_mpw_kstr(w, "type", "cast");
		refd_mpw_kstr(w, "who", A->d.name);
		refd_mpw_kstr(w, "spell", sp->name);
		if (t >= 0)
			refd_mpw_kstr(w, "target", nm(s, t));
		if (c->defensive)
			refd_mpw_kbool(w, "defensive", 1);
		refd_mpw_end(w);
		if ((rc = emitw(ctx, s, w)) != REFD_OK)
			return rc;
		/* Readied attacks waiting for this cast fire first. */
		s->hurt0 = 0;
		if (mg_concentrates(sp) && ready_cast_queue(s, a) > 0) {
			memset(&s->k, 0, sizeof(s->k));
			s->k.kind = K_ACT;
			s->k.act = ACT_CAST_PRE;
			s->k.who = a;
			s->k.target = t;
			s->k.pen = c->si;
			s->k.flags = c->defensive;
			return REFD_OK;
		}
		(void)ok;
		return cast_continue(ctx, s, a, t, c->si, c->defensive);
	}
	case C_OVERRUN:
		if (c->npath > 0) {
			/* Overrun inside a move: the move action's path
			 * passes through the defender (5.14). */
			s->overrun = 1;
			if (A->mounted) {
				s->m_mv = s->m_att = 1;	/* the mount's */
			} else {
				s->mv++;
				s->moveact = 1;
				use_std(s, A);
				s->attacks++;
			}
			c->kind = C_OVERRUN;
			return start_move(ctx, s, a, c, MV_MOVE, 0);
		}
		s->overrun = 1;
		if (A->mounted) {
			s->m_mv = s->m_att = 1;	/* a 1-square mount's */
		} else {
			s->mv++;
			s->moved = 1;
			use_std(s, A);
			s->attacks++;
		}
		memset(&s->k, 0, sizeof(s->k));
		s->k.kind = K_ACT;
		s->k.act = C_OVERRUN;
		s->k.who = a;
		s->k.target = t;
		s->k.px[1] = c->x;
		s->k.py[1] = c->y;
		/* Entering the defender's space provokes from it (5.14). */
		if (aoo_queue(s, a, t, 0) > 0)
			return REFD_OK;
		return finish_act(ctx, s);
	case C_THROW:
		use_std(s, A);
		s->attacks++;
		memset(&s->k, 0, sizeof(s->k));
		s->k.kind = K_ACT;
		s->k.act = C_THROW;
		s->k.who = a;
		s->k.target = c->has_pt ? -1 : t;
		s->k.flags = c->has_pt;
		s->k.px[1] = c->ptx;
		s->k.py[1] = c->pty;
		if (aoo_queue(s, a, -1, 0) > 0)
			return REFD_OK;	/* a ranged attack provokes */
		return finish_act(ctx, s);
	case C_PICKUP:
	case C_DROP:
	case C_SHIELD:
	case C_LOAD:
		return man_item_exec(ctx, s, a, c);
	case C_RETRIEVE:
		return gr_retrieve_exec(ctx, s, a);
	case C_DRAW:
	case C_SHEATHE: {
		if (c->t == C_DRAW && A->grap)
			return man_grapple_exec(ctx, s, a, c);
		if (c->t == C_DRAW && draw_free(s, A)) {
			s->freedraw = 1;
		} else if (s->fa) {
			s->fa = 0;
			s->full = 0;
			s->std = 1;
			s->mv = 1;
			s->fa_conv = 1;
		} else {
			s->mv++;
		}
		if (c->t == C_DRAW) {
			/* Two at once with Two-Weapon Fighting (1.6). */
			A->d.w[0] = A->stow[0].nd ? A->stow[0] : A->d.w[0];
			if (A->stow[1].nd && (A->d.feats & F_TWF ||
			    A->stow[0].nd == 0)) {
				A->d.w[1] = A->stow[1];
				memset(&A->stow[1], 0, sizeof(A->stow[1]));
			}
			memset(&A->stow[0], 0, sizeof(A->stow[0]));
		} else {
			/* Sheathing provokes (1.7): it happens after the
			 * attacks of opportunity. */
			return begin_act(ctx, s, C_SHEATHE, a, -1, 0, 0, 1);
		}
		if (A->d.w[0].nd == 0)
			unarmed_weapon(&A->d.w[0], A->d.size);
		if ((rc = ev_simple(ctx, cmd_name[c->t], s, a, -1)) != REFD_OK)
			return rc;
		return settle(ctx, s);
	}
	case C_TURN:
	case C_REBUKE:
		use_std(s, A);
		if ((rc = turn_undead(ctx, s, a)) != REFD_OK)
			return rc;
		return settle(ctx, s);
	case C_TOUCH:
	case C_DISPEL_TURN:
	case C_BOLSTER:
	case C_COMMAND:
		if ((rc = mg_exec(ctx, s, c)) != REFD_OK)
			return rc;
		return settle(ctx, s);
	case C_DRINK:
		use_std(s, A);
		A->d.potions[c->si]--;
		if ((rc = ev_simple(ctx, "drink", s, a, -1)) != REFD_OK)
			return rc;
		/* Drinking a potion provokes (1.7). */
		return begin_act(ctx, s, C_DRINK, a, a, 0, c->si, 1);
	case C_READY: {
		refd_mpw *w;

		use_std(s, A);
		A->ready_vs = t;
		A->ready_trig = c->trig;
		mg_ready_set(A, c);
		if ((rc = ev_simple(ctx, "ready", s, a, -1)) != REFD_OK)
			return rc;
		w = refd_mpw_create();
		refd_mpw_map(w);
		refd_mpw_kstr(w, "type", "ready");
		refd_mpw_kstr(w, "who", A->d.name);
		refd_mpw_kstr(w, "target", nm(s, t));
		refd_mpw_kstr(w, "trigger", A->ready_trig ? "casts" :
		    "comes within reach");
		refd_mpw_end(w);
		if (w == NULL || refd_mpw_error(w)) {
			refd_mpw_destroy(w);
			return REFD_ENOMEM;
		}
		rc = enc_host->emit(ctx, A->side, refd_mpw_data(w),
		    refd_mpw_len(w));
		refd_mpw_destroy(w);
		if (rc != REFD_OK)
			return rc;
		return settle(ctx, s);
	}
	case C_MINMOVE:
		if (!s->std)
			s->full = 1;
		return start_move(ctx, s, a, c, MV_MOVE, 0);
	case C_CRAWL: {
		int i, n, extra[MAXC], ne = 0;

		spend_move(s);
		memset(&s->k, 0, sizeof(s->k));
		s->k.kind = K_ACT;
		s->k.act = C_CRAWL;
		s->k.who = a;
		s->k.target = -1;
		s->k.px[1] = c->x;
		s->k.py[1] = c->y;
		/* Enemies threatening the destination only, then all. */
		for (i = 0; i < s->nc; i++)
			if (!can_aoo(s, i, a) && aoo_still(s, i, a))
				extra[ne++] = i;
		n = aoo_queue(s, a, -1, 0);
		for (i = 0; i < ne; i++)
			s->q[n++] = extra[i];
		s->nq = n;
		if (n > 0) {
			s->pk = PK_AOO;
			return REFD_OK;
		}
		return finish_act(ctx, s);
	}
	case C_STAB:
		use_std(s, A);
		return begin_act(ctx, s, C_STAB, a, t, 0, 0, 1);
	case C_RELEASE:
	case C_GDMG:
	case C_ESCAPE:
	case C_PIN:
	case C_GMOVE:
	case C_GWEAPON:
	case C_BREAKPIN:
		return man_grapple_exec(ctx, s, a, c);
	case C_FEINT: {
		struct cr *T = &s->c[t];
		int ma = A->d.bluff - mg_save_pen(A), ra, rd;
		int md = T->d.sense + T->d.bab - mg_save_pen(T);

		if (A->d.feats & F_IFEINT)
			s->mv++;
		else
			use_std(s, A);
		if (!T->d.humanoid)
			ma -= T->d.intl <= 2 ? 8 : 4;
		if ((rc = roll(ctx, 20, "bluff", &ra)) != REFD_OK ||
		    (rc = roll(ctx, 20, "sense motive", &rd)) != REFD_OK)
			return rc;
		if (ra + ma > rd + md) {
			A->feint_vs = t;
			A->feint_stage = 0;
		}
		if ((rc = ev_check(ctx, "feint", s, a, t, ra, ra + ma, rd,
		    rd + md, ra + ma > rd + md)) != REFD_OK)
			return rc;
		return settle(ctx, s);
	}
	case C_AID: {
		struct weapon w;
		int v, b, ok;
		refd_mpw *ev;

		use_std(s, A);
		if (c->mode == 3) {
			s->c[c->ally].asleep = 0;
			if ((rc = ev_simple(ctx, "wake", s, a, c->ally)) !=
			    REFD_OK)
				return rc;
			return settle(ctx, s);
		}
		melee_weapon(A, &w);
		b = atk_bonus(s, a, t, &w, 0, 0);
		if ((rc = roll(ctx, 20, "aid another", &v)) != REFD_OK)
			return rc;
		ok = v != 1 && (v == 20 || v + b >= 10);
		if (ok) {
			A->aid_ally = c->ally;
			A->aid_enemy = t;
			A->aid_mode = c->mode;
		}
		ev = refd_mpw_create();
		refd_mpw_map(ev);
		refd_mpw_kstr(ev, "type", "aid");
		refd_mpw_kstr(ev, "who", A->d.name);
		refd_mpw_kstr(ev, "ally", nm(s, c->ally));
		refd_mpw_kstr(ev, "target", nm(s, t));
		refd_mpw_kstr(ev, "mode", c->mode == 1 ? "attack" : "ac");
		refd_mpw_kint(ev, "roll", v);
		refd_mpw_kint(ev, "total", v + b);
		refd_mpw_kbool(ev, "success", ok);
		refd_mpw_end(ev);
		if ((rc = emitw(ctx, s, ev)) != REFD_OK)
			return rc;
		return settle(ctx, s);
	}
	default:
		return REFD_EINTERNAL;
	}
}

/* ---- legal and pending ---- */

int
pending_seats(const struct st *s, uint64_t *m)
{
	*m = 0;
	if (s->over && s->resting == 2)
		*m = mg_rest_seats(s);
	if (s->over)
		return REFD_OK;
	if (s->pk != PK_NONE)
		*m = (uint64_t)1 << prompt_seat(s);
	else
		*m = (uint64_t)1 << s->c[active(s)].side;
	return REFD_OK;
}

static void
put_cmd(const struct st *s, refd_mpw *w, const struct cmd *c,
    const char *label)
{
	refd_mpw_map(w);
	refd_mpw_kmap(w, "cmd");
	refd_mpw_kstr(w, "type", cmd_name[c->t]);
	if (c->target >= 0)
		refd_mpw_kstr(w, "target", nm(s, c->target));
	if (c->ally >= 0)
		refd_mpw_kstr(w, "ally", nm(s, c->ally));
	if (c->has_to) {
		refd_mpw_karray(w, "to");
		refd_mpw_int(w, c->x);
		refd_mpw_int(w, c->y);
		refd_mpw_end(w);
	}
	if (c->has_pt) {
		refd_mpw_karray(w, "point");
		refd_mpw_int(w, c->ptx);
		refd_mpw_int(w, c->pty);
		refd_mpw_end(w);
	}
	if (c->has_sq) {
		refd_mpw_karray(w, "square");
		refd_mpw_int(w, c->sqx);
		refd_mpw_int(w, c->sqy);
		refd_mpw_end(w);
	}
	if (c->defensive)
		refd_mpw_kbool(w, "defensive", 1);
	if (c->lethal)
		refd_mpw_kbool(w, "lethal", 1);
	if (c->thrown)
		refd_mpw_kbool(w, "thrown", 1);
	if (c->artist)
		refd_mpw_kbool(w, "artist", 1);
	if (c->off)
		refd_mpw_kbool(w, "off", 1);
	if (c->full)
		refd_mpw_kbool(w, "full", 1);
	if (c->start)
		refd_mpw_kbool(w, "start", 1);
	if (c->fast)
		refd_mpw_kbool(w, "fast", 1);
	if (c->mm)
		refd_mpw_kbool(w, "mount_moves", 1);
	if (c->t == C_READY && c->trig)
		refd_mpw_kstr(w, "trigger", "casts");
	if (c->t == C_AOO || c->t == C_COUNTER || c->t == C_FOLLOW ||
	    c->t == C_FIRE || c->t == C_AVOID || c->t == C_SHIELD ||
	    c->t == C_HOLD)
		refd_mpw_kbool(w, "take", c->take);
	if (c->t == C_CHARGE && c->kind == C_BULL)
		refd_mpw_kstr(w, "kind", "bull_rush");
	if (c->t == C_AID)
		refd_mpw_kstr(w, "mode", c->mode == 1 ? "attack" :
		    (c->mode == 2 ? "ac" : "wake"));
	if (c->t == C_CAST || c->t == C_DRINK)
		refd_mpw_kstr(w, "spell", c->spell);
	if (c->t == C_SUNDER && c->item == 2)
		refd_mpw_kstr(w, "item", "shield");
	if (c->item == 3) {
		refd_mpw_kstr(w, "item", "potion");
		refd_mpw_kstr(w, "spell", c->spell);
	}
	gr_put(w, c);
	if (c->ovr >= 0)
		refd_mpw_kstr(w, "overrun", nm(s, c->ovr));
	mg_put(w, c);
	refd_mpw_end(w);
	refd_mpw_kstr(w, "label", label);
	refd_mpw_end(w);
}

static void
blank(struct cmd *c, int t)
{
	memset(c, 0, sizeof(*c));
	c->t = t;
	c->target = c->ally = c->ovr = -1;
	c->kind = C_ATTACK;
	c->mode = 1;
}

/* List c when the checks accept it. */
static void
try_cmd(const struct st *s, int seat, refd_mpw *w, struct cmd *c,
    const char *label)
{
	struct cmd cc = *c;
	struct why y;

	if (cmd_check(s, seat, &cc, &y) == REFD_OK)
		put_cmd(s, w, c, label);
}

/* Destinations of a move or withdraw, from one reach map. */
static void
list_moves(const struct st *s, int seat, refd_mpw *w, int t)
{
	int16_t dist[MAXM][MAXM][2], prev[MAXM][MAXM][2];
	int a = active(s), x, y, cost;
	const struct cr *A = &s->c[a];
	struct cmd c, cc;
	struct why why;
	char label[96];

	/* Probe the budget with the first open neighbour. */
	blank(&c, t);
	reach_map(s, a, allowance(s, A, t), s->diag & 1, dist, prev);
	for (y = 0; y < s->h; y++)
		for (x = 0; x < s->w; x++) {
			if ((dist[y][x][0] < 0 && dist[y][x][1] < 0) ||
			    (x == A->x && y == A->y) || !free_at(s, a, x, y))
				continue;
			c.has_to = 1;
			c.x = x;
			c.y = y;
			cc = c;
			/* Check the cheapest path of the map just made: the
			 * same verdict as "to" alone, without a search per
			 * square. */
			cc.npath = reach_path(s, a, dist, prev, x, y, cc.px,
			    cc.py, &cost);
			if (cc.npath < 2)
				continue;
			if (cmd_check(s, seat, &cc, &why) != REFD_OK) {
				if (why.code == REFD_ENOPATH)
					continue;
				return;	/* no budget or prone: none */
			}
			snprintf(label, sizeof(label), "%s %s to (%d,%d)",
			    t == C_MOVE ? "Move" : "Withdraw", A->d.name, x, y);
			put_cmd(s, w, &c, label);
		}
}

/* A yes/no prompt: take true, then false.  Each label is a format that
 * may name the prompted creature, then the one it answers (or neither). */
static void
put_take(const struct st *s, refd_mpw *w, int t, const char *yes,
    const char *no)
{
	struct cmd c;
	char label[128];
	const char *who = nm(s, s->q[s->qi]), *whom = nm(s, s->k.who);

	blank(&c, t);
	c.take = 1;
	snprintf(label, sizeof(label), yes, who, whom);
	put_cmd(s, w, &c, label);
	c.take = 0;
	snprintf(label, sizeof(label), no, who, whom);
	put_cmd(s, w, &c, label);
}

int
cmd_legal(const struct st *s, int seat, refd_mpw *w)
{
	struct cmd c;
	char label[128];
	int a, t, x, y, i, al;
	const struct cr *A;

	refd_mpw_array(w);
	if (s->over) {
		mg_legal(s, seat, w, try_cmd, blank, put_cmd);
		refd_mpw_end(w);
		return REFD_OK;
	}
	if (s->pk != PK_NONE) {
		if (seat != prompt_seat(s)) {
			refd_mpw_end(w);
			return REFD_OK;
		}
		switch (s->pk) {
		case PK_AOO:
			blank(&c, C_AOO);
			c.take = 1;
			snprintf(label, sizeof(label),
			    "%s makes an attack of opportunity on %s",
			    nm(s, s->q[s->qi]), nm(s, man_aoo_victim(s)));
			put_cmd(s, w, &c, label);
			if (s->c[s->k.who].mounted && !(s->k.kind == K_ACT &&
			    s->k.act == C_BULL)) {
				c.target = s->c[s->k.who].mounted - 1;
				snprintf(label, sizeof(label), "%s makes an attack "
				    "of opportunity on %s's mount %s",
				    nm(s, s->q[s->qi]), nm(s, s->k.who),
				    nm(s, c.target));
				put_cmd(s, w, &c, label);
				c.target = -1;
			}
			c.take = 0;
			put_cmd(s, w, &c, "Decline the attack of opportunity");
			break;
		case PK_COUNTER:
			put_take(s, w, C_COUNTER, s->k.act == C_TRIP ?
			    "Try to trip back" : "Try to disarm back",
			    "Do not counter");
			break;
		case PK_FOLLOW:
			put_take(s, w, C_FOLLOW, "Follow the pushed creature",
			    "Stay in place (push 1 square)");
			break;
		case PK_CLEAVE:
			blank(&c, C_CLEAVE);
			put_cmd(s, w, &c, "No Cleave attack");
			for (t = 0; t < s->nc; t++)
				if (cleave_ok(s, s->q[0], t)) {
					c.target = t;
					snprintf(label, sizeof(label),
					    "Cleave into %s", nm(s, t));
					put_cmd(s, w, &c, label);
				}
			break;
		case PK_HOLD:
			put_take(s, w, C_HOLD, "%s holds on to %s",
			    "%s lets %s go");
			break;
		case PK_AVOID:
			put_take(s, w, C_AVOID, "%s lets %s pass",
			    "%s blocks %s");
			break;
		case PK_READY:
			put_take(s, w, C_FIRE, "%s fires its readied attack at %s",
			    "Hold the readied attack");
			break;
		default:
			blank(&c, C_ACT);
			snprintf(label, sizeof(label), "%s acts now",
			    nm(s, s->q[s->qi]));
			put_cmd(s, w, &c, label);
			blank(&c, C_WAIT);
			put_cmd(s, w, &c, "Keep waiting");
			break;
		}
		refd_mpw_end(w);
		return REFD_OK;
	}
	a = active(s);
	A = &s->c[a];
	if (seat != A->side) {
		refd_mpw_end(w);
		return REFD_OK;
	}
	blank(&c, C_END);
	put_cmd(s, w, &c, "End the turn");
	{
		static const int simple[] = { C_TDEF, C_DELAY, C_STAND, C_PRONE,
			C_GDMG, C_ESCAPE, C_PIN, C_RELEASE, C_DRAW, C_SHEATHE,
			C_TURN };
		static const char *const lab[] = { "Total defense (+4 AC)",
			"Delay", "Stand up", "Drop prone",
			"Damage the grapple opponent", "Escape the grapple",
			"Pin the grapple opponent", "Release the pin",
			"Draw the weapon", "Sheathe the weapon", "Turn undead" };

		for (i = 0; i < 11; i++) {
			blank(&c, simple[i]);
			try_cmd(s, seat, w, &c, lab[i]);
		}
	}
	if (A->grap) {
		/* Grapple options against a named participant (5.13). */
		static const int gopt[] = { C_GDMG, C_PIN, C_GWEAPON,
			C_BREAKPIN, C_DRAW };
		static const char *const glab[] = { "Damage", "Pin",
			"Attack with its own weapon", "Free from the pin",
			"Draw a light weapon against" };

		for (t = 0; t < s->nc; t++)
			for (i = 0; i < 5; i++) {
				blank(&c, gopt[i]);
				c.target = t;
				snprintf(label, sizeof(label), "%s %s", glab[i],
				    nm(s, t));
				try_cmd(s, seat, w, &c, label);
				c.full = 1;
				snprintf(label, sizeof(label),
				    "%s %s as an attack of a full attack",
				    glab[i], nm(s, t));
				try_cmd(s, seat, w, &c, label);
				if (gopt[i] == C_GDMG || gopt[i] == C_PIN) {
					c.full = 0;
					c.lethal = gopt[i] == C_GDMG;
					c.silence = gopt[i] == C_PIN;
					snprintf(label, sizeof(label), "%s %s%s",
					    glab[i], nm(s, t), c.lethal ?
					    " lethally (-4)" : " and silence it");
					try_cmd(s, seat, w, &c, label);
				}
			}
		blank(&c, C_ESCAPE);
		c.full = 1;
		try_cmd(s, seat, w, &c,
		    "Escape as an attack of a full attack");
		blank(&c, C_ESCAPE);
		c.artist = 1;
		try_cmd(s, seat, w, &c, "Escape with Escape Artist");
		for (y = 0; y < s->h; y++)
			for (x = 0; x < s->w; x++) {
				if (g_dist(x - A->x, y - A->y) >
				    speed_of(A) / 2)
					continue;
				blank(&c, C_GMOVE);
				c.has_to = 1;
				c.x = x;
				c.y = y;
				snprintf(label, sizeof(label),
				    "Move the grapple to (%d,%d)", x, y);
				try_cmd(s, seat, w, &c, label);
			}
	}
	for (i = 0; i < s->ng; i++) {
		blank(&c, C_PICKUP);
		c.has_to = 1;
		c.x = s->gx[i];
		c.y = s->gy[i];
		snprintf(label, sizeof(label), "Pick up the %s at (%d,%d)",
		    s->gw[i].name, c.x, c.y);
		try_cmd(s, seat, w, &c, label);
	}
	blank(&c, C_DROP);
	try_cmd(s, seat, w, &c, "Drop the weapon");
	blank(&c, C_LOAD);
	try_cmd(s, seat, w, &c, "Load the crossbow");
	blank(&c, C_RETRIEVE);
	try_cmd(s, seat, w, &c, "Retrieve a spell component (full round)");
	for (i = 0; i < 2; i++) {
		blank(&c, C_SHIELD);
		c.take = i;
		try_cmd(s, seat, w, &c, i ? "Ready the shield" :
		    "Loose the shield");
	}
	for (i = 0; i < 6; i++) {
		/* Mounted combat (5.15). */
		static const int mc[] = { C_KNEES, C_CONTROL, C_DISMOUNT,
			C_DISMOUNT };
		static const char *const ml[] = { "Guide the mount with the "
			"knees (Ride DC 5)", "Control the frightened mount (Ride "
			"DC 20)", "Dismount", "Quick dismount (Ride DC 20)" };

		if (i < 4) {
			blank(&c, mc[i]);
			c.fast = i == 3;
			try_cmd(s, seat, w, &c, ml[i]);
			continue;
		}
		for (t = 0; t < s->nc; t++) {
			blank(&c, C_MOUNT);
			c.target = t;
			c.fast = i == 5;
			snprintf(label, sizeof(label), "%s %s", c.fast ?
			    "Quick mount (Ride DC 20)" : "Mount", nm(s, t));
			try_cmd(s, seat, w, &c, label);
		}
	}
	for (i = 0; i < 2; i++)
		if (A->d.potions[i] > 0) {
			blank(&c, C_DRINK);
			snprintf(c.spell, sizeof(c.spell), "%s",
			    A->d.potion[i].name);
			snprintf(label, sizeof(label), "Drink a potion of %s",
			    A->d.potion[i].name);
			try_cmd(s, seat, w, &c, label);
		}
	for (t = 0; t < s->nc; t++) {
		blank(&c, C_AID);
		c.ally = t;
		c.mode = 3;
		snprintf(label, sizeof(label), "Wake %s", nm(s, t));
		try_cmd(s, seat, w, &c, label);
	}
	list_moves(s, seat, w, C_MOVE);
	list_moves(s, seat, w, C_WITHDRAW);
	for (y = A->y - 1; y <= A->y + 1; y++)
		for (x = A->x - 1; x <= A->x + 1; x++) {
			blank(&c, C_CRAWL);
			c.has_to = 1;
			c.x = x;
			c.y = y;
			snprintf(label, sizeof(label), "Crawl to (%d,%d)", x, y);
			try_cmd(s, seat, w, &c, label);
			c.t = C_MINMOVE;
			snprintf(label, sizeof(label),
			    "Minimum move (full round) to (%d,%d)", x, y);
			try_cmd(s, seat, w, &c, label);
			c.start = 1;
			snprintf(label, sizeof(label),
			    "Start a minimum move to (%d,%d)", x, y);
			try_cmd(s, seat, w, &c, label);
			blank(&c, C_STEP);
			c.has_to = 1;
			c.x = x;
			c.y = y;
			snprintf(label, sizeof(label), "5-foot step to (%d,%d)",
			    x, y);
			try_cmd(s, seat, w, &c, label);
		}
	for (t = 0; t < s->nc; t++)
		if (!s->c[t].dead && s->c[t].side != A->side &&
		    !perceives(s, a, t))
			break;
	if (t < s->nc && !A->d.w[0].ranged)	/* someone unseen */
		for (y = A->y - 2; y <= A->y + 2; y++)
			for (x = A->x - 2; x <= A->x + 2; x++) {
				blank(&c, C_ATTACK);
				c.has_sq = 1;
				c.sqx = x;
				c.sqy = y;
				snprintf(label, sizeof(label),
				    "Attack the square (%d,%d)", x, y);
				try_cmd(s, seat, w, &c, label);
				c.t = C_CDG;
				snprintf(label, sizeof(label),
				    "Coup de grace on the square (%d,%d) (find, "
				    "then strike)", x, y);
				try_cmd(s, seat, w, &c, label);
			}
	blank(&c, C_HIDE);
	try_cmd(s, seat, w, &c, "Hide (move action)");
	blank(&c, C_SPOT);
	try_cmd(s, seat, w, &c, "Spot (move action)");
	for (y = 0; y < s->h; y++)
		for (x = 0; x < s->w; x++) {
			if (g_dist(x - A->x, y - A->y) > 4 * speed_of(A))
				continue;
			blank(&c, C_RUN);
			c.has_to = 1;
			c.x = x;
			c.y = y;
			snprintf(label, sizeof(label), "Run to (%d,%d)", x, y);
			try_cmd(s, seat, w, &c, label);
		}
	for (t = 0; t < s->nc; t++) {
		static const int per[] = { C_ATTACK, C_FULL, C_TRIP, C_BULL,
			C_DISARM, C_SUNDER, C_GRAPPLE, C_FEINT, C_CDG, C_STAB,
			C_READY, C_OVERRUN };
		static const char *const verb[] = { "Attack", "Full attack",
			"Trip", "Bull rush", "Disarm", "Sunder the weapon of",
			"Grapple", "Feint against", "Coup de grace on",
			"Stabilize", "Ready an attack on", "Overrun" };

		if (t == a || s->c[t].dead || !perceives(s, a, t))
			continue;
		for (i = 0; i < 12; i++) {
			blank(&c, per[i]);
			c.target = t;
			snprintf(label, sizeof(label), "%s %s", verb[i], nm(s, t));
			try_cmd(s, seat, w, &c, label);
			if (per[i] == C_ATTACK && W_THROWABLE(&A->d.w[0])) {
				c.thrown = 1;
				snprintf(label, sizeof(label), "Throw the %s at %s",
				    A->d.w[0].name, nm(s, t));
				try_cmd(s, seat, w, &c, label);
				c.thrown = 0;
			}
			if (per[i] == C_ATTACK || (per[i] == C_FULL && !s->fa)) {
				c.defensive = 1;
				snprintf(label, sizeof(label),
				    "%s %s, fighting defensively", verb[i],
				    nm(s, t));
				try_cmd(s, seat, w, &c, label);
			}
			if (per[i] == C_SUNDER) {
				c.item = 2;
				snprintf(label, sizeof(label),
				    "Sunder the shield of %s", nm(s, t));
				try_cmd(s, seat, w, &c, label);
				c.item = 0;
			}
			if (per[i] == C_SUNDER || per[i] == C_DISARM) {
				int p;

				for (p = 0; p < 2; p++) {
					if (s->c[t].d.potions[p] <= 0)
						continue;
					c.item = 3;
					snprintf(c.spell, sizeof(c.spell), "%s",
					    s->c[t].d.potion[p].name);
					snprintf(label, sizeof(label),
					    "%s %s's potion of %s",
					    per[i] == C_SUNDER ? "Smash" :
					    "Grab", nm(s, t), c.spell);
					try_cmd(s, seat, w, &c, label);
				}
				c.item = 0;
				c.spell[0] = '\0';
				if (per[i] == C_DISARM)
					gr_legal(s, seat, w, &c, t, try_cmd);
			}
			if (per[i] == C_READY) {
				c.trig = 1;
				snprintf(label, sizeof(label),
				    "Ready an attack on %s for when it casts",
				    nm(s, t));
				try_cmd(s, seat, w, &c, label);
			}
			if (per[i] == C_CDG) {
				c.start = 1;
				snprintf(label, sizeof(label),
				    "Start a coup de grace on %s", nm(s, t));
				try_cmd(s, seat, w, &c, label);
			}
			if (per[i] == C_TRIP || per[i] == C_DISARM ||
			    per[i] == C_SUNDER || per[i] == C_GRAPPLE) {
				c.full = 1;
				snprintf(label, sizeof(label),
				    "%s %s as part of a full attack", verb[i],
				    nm(s, t));
				try_cmd(s, seat, w, &c, label);
			}
			if (per[i] == C_FULL) {
				blank(&c, C_FULL);
				c.target = t;
				c.off = 1;
				snprintf(label, sizeof(label),
				    "Off-hand attack on %s", nm(s, t));
				try_cmd(s, seat, w, &c, label);
			}
		}
		/* Charges: each closest free square. */
		for (i = 0; i < 2; i++) {
			struct cmd cc;
			struct why yy;

			/* Overrunning a foe in the charge line (5.14). */
			for (x = 0; x < s->nc; x++) {
				if (x == t || x == a || s->c[x].dead ||
				    s->c[x].side == A->side ||
				    cdist(A, &s->c[x]) >= cdist(A, &s->c[t]))
					continue;
				blank(&c, C_CHARGE);
				c.target = t;
				c.kind = i ? C_BULL : C_ATTACK;
				c.ovr = x;
				snprintf(label, sizeof(label),
				    "Charge %s%s, overrunning %s", nm(s, t),
				    i ? " (bull rush)" : "", nm(s, x));
				try_cmd(s, seat, w, &c, label);
			}
			blank(&c, C_CHARGE);
			c.target = t;
			c.kind = i ? C_BULL : C_ATTACK;
			cc = c;
			if (cmd_check(s, seat, &cc, &yy) != REFD_OK)
				continue;
			c.has_to = 1;
			for (y = 0; y < s->h; y++)
				for (x = 0; x < s->w; x++) {
					c.x = x;
					c.y = y;
					snprintf(label, sizeof(label),
					    "Charge %s%s, ending at (%d,%d)",
					    nm(s, t), i ? " (bull rush)" : "",
					    x, y);
					if (g_dist(x - cc.x, y - cc.y) <= 2)
						try_cmd(s, seat, w, &c, label);
				}
		}
		/* Overruns inside a straight move through t (5.14). */
		for (y = 0; y < s->h && !s->overrun; y++)
			for (x = 0; x < s->w; x++) {
				int px[MAXPATH], py[MAXPATH];

				if (g_dist(x - A->x, y - A->y) > speed_of(A) ||
				    man_ovr_line(s, a, t, x, y, px, py) == 0)
					continue;
				blank(&c, C_OVERRUN);
				c.target = t;
				c.has_to = 1;
				c.x = x;
				c.y = y;
				snprintf(label, sizeof(label),
				    "Overrun %s moving on to (%d,%d)", nm(s, t),
				    x, y);
				try_cmd(s, seat, w, &c, label);
			}
		blank(&c, C_MATTACK);
		c.target = t;
		snprintf(label, sizeof(label), "The mount attacks %s", nm(s, t));
		try_cmd(s, seat, w, &c, label);
		blank(&c, C_THROW);
		c.target = t;
		snprintf(label, sizeof(label), "Throw the %s at %s",
		    A->d.w[0].name, nm(s, t));
		try_cmd(s, seat, w, &c, label);
		for (i = 0; i < MAXSP; i++) {
			if (A->d.uses[i] <= 0)
				continue;
			blank(&c, C_CAST);
			c.target = t;
			snprintf(c.spell, sizeof(c.spell), "%s", A->d.sp[i].name);
			snprintf(label, sizeof(label), "Cast %s on %s",
			    A->d.sp[i].name, nm(s, t));
			try_cmd(s, seat, w, &c, label);
			c.defensive = 1;
			snprintf(label, sizeof(label),
			    "Cast %s on %s defensively", A->d.sp[i].name,
			    nm(s, t));
			try_cmd(s, seat, w, &c, label);
			c.defensive = 0;
			c.start = 1;
			snprintf(label, sizeof(label),
			    "Start casting %s on %s", A->d.sp[i].name,
			    nm(s, t));
			try_cmd(s, seat, w, &c, label);
			c.start = 0;
			c.mm = 1;
			snprintf(label, sizeof(label), "Cast %s on %s between "
			    "the mount's moves", A->d.sp[i].name, nm(s, t));
			try_cmd(s, seat, w, &c, label);
		}
		for (al = 0; al < s->nc; al++) {
			if (al == a || al == t || s->c[al].side != A->side)
				continue;
			for (i = 1; i <= 2; i++) {
				blank(&c, C_AID);
				c.target = t;
				c.ally = al;
				c.mode = i;
				snprintf(label, sizeof(label),
				    "Aid %s against %s (%s)", nm(s, al),
				    nm(s, t), i == 1 ? "+2 attack" : "+2 AC");
				try_cmd(s, seat, w, &c, label);
			}
		}
	}
	mg_legal(s, seat, w, try_cmd, blank, put_cmd);
	refd_mpw_end(w);
	return REFD_OK;
}
