/*
 * maneuver.c - the parts of bull rush, grapple and overrun that move
 * creatures while others may strike (spec 5.6, 5.13, 5.14, 4.10).
 *
 * A push is paused like a move (struct cont, kind K_PUSH): before the
 * pushed creature leaves a square, and before the follower leaves one,
 * the third parties that threaten it are asked for their attack of
 * opportunity.  The cont fields mean: who the bull rusher, target the
 * pushed creature, n the pushes planned, pi the pushes done, flags
 * whether the rusher follows, checked the stage of the current square
 * (0 the pushed creature has not been offered, 1 it has, 2 the follower
 * has: it steps into px[1], py[1] next), margin the squares followed,
 * ally the creature the pending attacks are made against, rdone
 * the threateners that already struck the pushed creature (one
 * opportunity each for the whole push), px[0], py[0] the direction.
 */
#include <stdio.h>
#include <string.h>

#include "geom.h"
#include "maneuver.h"
#include "gear.h"
#include "mount.h"
#include "move.h"

int
man_aoo_victim(const struct st *s)
{
	return s->k.kind == K_PUSH ? s->k.ally : s->k.who;
}

void
man_aoo_taken(struct st *s, int who)
{
	if (s->k.kind == K_MOVE ||
	    (s->k.kind == K_PUSH && s->k.ally == s->k.who))
		s->aoo_taken |= 1 << who;
	else if (s->k.kind == K_PUSH)
		s->k.rdone |= 1 << who;
}

int
man_push_start(refd_ctx *ctx, struct st *s, int a, int t, int pushes,
    int follow)
{
	struct cont *k = &s->k;
	const struct cr *A = &s->c[a], *T = &s->c[t];
	int dx = (2 * T->x + space_n(T)) - (2 * A->x + space_n(A));
	int dy = (2 * T->y + space_n(T)) - (2 * A->y + space_n(A));
	int ax = dx < 0 ? -dx : dx, ay = dy < 0 ? -dy : dy;

	/* The closest of the 8 directions (D001-34): a component under
	 * tan 22.5 degrees of the other, (a + b)^2 < 2 b^2, is dropped. */
	if ((ax + ay) * (ax + ay) < 2 * ax * ax)
		dy = 0;
	else if ((ax + ay) * (ax + ay) < 2 * ay * ay)
		dx = 0;
	memset(k, 0, sizeof(*k));
	k->kind = K_PUSH;
	k->who = a;
	k->target = t;
	k->ally = t;
	k->n = pushes;
	k->flags = follow;
	k->px[0] = dx > 0 ? 1 : (dx < 0 ? -1 : 0);
	k->py[0] = dy > 0 ? 1 : (dy < 0 ? -1 : 0);
	if (follow)
		s->moved = 1;
	return man_push_run(ctx, s);
}

int
man_push_run(refd_ctx *ctx, struct st *s)
{
	struct cont *k = &s->k;
	int a = k->who, t = k->target, dx = k->px[0], dy = k->py[0], np, rc;
	struct cr *A = &s->c[a], *T = &s->c[t];
	refd_mpw *w;

	for (;;) {
		int ox = T->x, oy = T->y;

		if (k->checked == 2) {
			/* The follower steps into the vacated square. */
			k->checked = 0;
			if (able(A) && !A->prone && real_free(s, a, k->px[1],
			    k->py[1])) {
				A->x = k->px[1];
				A->y = k->py[1];
				mt_follow(s, a);	/* its mount with it */
				s->sq_moved++;
				k->margin++;
			} else {
				k->flags = 0;
			}
		}
		if (k->pi >= k->n || !able(T))
			break;
		if (k->checked == 0) {
			if (step_cost(s, t, T->x, T->y, T->x + dx, T->y + dy,
			    0, &np, 1) < 0 ||
			    !real_free(s, t, T->x + dx, T->y + dy))
				break;	/* blocked: the push stops (D001-34) */
			k->checked = 1;
			k->ally = t;
			/* Leaving its square provokes, not from the rusher. */
			if (aoo_queue(s, t, -1, (1 << a) |
			    (1 << mt_body(s, a)) | k->rdone) > 0)
				return REFD_OK;
		}
		/* checked == 1: the pushed creature moves if still up. */
		if (!able(T) || !real_free(s, t, T->x + dx, T->y + dy))
			break;	/* downed where it was */
		T->x += dx;
		T->y += dy;
		k->pi++;
		k->checked = 0;
		/* The follower steps one square the same way (into the
		 * vacated square when both fill one square). */
		ox = A->x + dx;
		oy = A->y + dy;
		if (!k->flags || !able(A) || A->prone ||
		    !real_free(s, a, ox, oy)) {
			k->flags = 0;
			continue;
		}
		k->checked = 2;
		k->ally = a;
		k->px[1] = ox;
		k->py[1] = oy;
		/* The follower provokes, never from the pushed one. */
		if (aoo_queue(s, a, -1, (1 << t) | (1 << mt_body(s, t)) |
		    s->aoo_taken) > 0)
			return REFD_OK;
	}
	k->kind = K_NONE;
	k->ally = 0;
	mt_follow(s, t);	/* a rider and its mount move together */
	mt_follow(s, a);
	w = refd_mpw_create();
	refd_mpw_map(w);
	refd_mpw_kstr(w, "type", "pushed");
	refd_mpw_kstr(w, "who", T->d.name);
	refd_mpw_kint(w, "squares", k->pi);
	refd_mpw_karray(w, "to");
	refd_mpw_int(w, T->x);
	refd_mpw_int(w, T->y);
	refd_mpw_end(w);
	refd_mpw_kbool(w, "followed", k->margin > 0);
	refd_mpw_karray(w, "attacker_at");
	refd_mpw_int(w, A->x);
	refd_mpw_int(w, A->y);
	refd_mpw_end(w);
	refd_mpw_end(w);
	if (!seat_sees(s, REFD_SEAT_PUBLIC, a) &&
	    !seat_sees(s, REFD_SEAT_PUBLIC, t))
		rc = emit_at2(ctx, s, a, t, w);
	else
		rc = emit_at2(ctx, s, !seat_sees(s, REFD_SEAT_PUBLIC, a) ? a : t,
		    -1, w);
	if (rc != REFD_OK)
		return rc;
	return settle(ctx, s);
}

/* ---- grapple (5.13) ----
 *
 * A grapple is a group of participants sharing the grabbed creature's
 * space: each one's gwith holds the others, grap is its first opponent
 * + 1 (0: not grappling).  Opponents are the participants of another
 * side; a group left with one side only dissolves.
 */

int
man_in_grapple(const struct st *s, int a, int t)
{
	return t >= 0 && t < MAXC && s->c[a].grap &&
	    ((s->c[a].gwith >> t) & 1);
}

/* a's grapple opponents (bits). */
static int
opps(const struct st *s, int a)
{
	int i, m = 0;

	for (i = 0; i < s->nc; i++)
		if (((s->c[a].gwith >> i) & 1) && s->c[i].side != s->c[a].side)
			m |= 1 << i;
	return m;
}

static int
first_bit(int m)
{
	int i;

	for (i = 0; i < MAXC; i++)
		if ((m >> i) & 1)
			return i;
	return -1;
}

/* Set grap from gwith for the members of g; dissolve a one-sided group. */
static void
refresh(struct st *s, int g)
{
	int i, o;

	for (i = 0; i < s->nc; i++) {
		struct cr *C = &s->c[i];

		if (!((g >> i) & 1))
			continue;
		o = opps(s, i);
		if (o == 0) {
			C->gwith = 0;
			C->pinned_by = 0;
			C->grap = 0;
		} else {
			C->grap = first_bit(o) + 1;
		}
	}
}

void
man_grapple_join(struct st *s, int a, int t)
{
	int g = (s->c[t].grap ? s->c[t].gwith : 0) | (1 << t), i;

	/* Entering a grapple, components are back in the pouch. */
	s->c[a].comp_ready = 0;
	if (!s->c[t].grap)
		s->c[t].comp_ready = 0;
	for (i = 0; i < s->nc; i++)
		if ((g >> i) & 1)
			s->c[i].gwith |= 1 << a;
	s->c[a].gwith = g;
	refresh(s, g | (1 << a));
}

void
man_grapple_leave(struct st *s, int d)
{
	int g = s->c[d].gwith, i;

	for (i = 0; i < s->nc; i++) {
		s->c[i].gwith &= ~(1 << d);
		if (s->c[i].pinned_by == d + 1)
			s->c[i].pinned_by = 0;
	}
	s->c[d].gwith = 0;
	s->c[d].grap = 0;
	s->c[d].pinned_by = 0;
	refresh(s, g);
}

void
man_pins_expire(struct st *s, int n)
{
	int i;

	for (i = 0; i < s->nc; i++)
		if (s->c[i].pinned_by == n + 1)
			s->c[i].pinned_by = 0;	/* a pin lasts 1 round */
}

/* Capacity (5.13): at most 4 Medium-equivalents grapple one creature;
 * one size smaller counts 1/2, one larger 2, two larger 4 (in halves). */
static int
weight2(const struct cr *j, const struct cr *t)
{
	int d = j->d.size - t->d.size;

	return d < 0 ? 1 : (d == 0 ? 2 : (d == 1 ? 4 : 8));
}

int
man_join_ok(const struct st *s, int a, int t, struct why *y)
{
	int i, sum = weight2(&s->c[a], &s->c[t]), o = opps(s, t);

	for (i = 0; i < s->nc; i++)
		if ((o >> i) & 1)
			sum += weight2(&s->c[i], &s->c[t]);
	if (sum > 8)
		return rej(y, REFD_EILLEGAL, "R001-56",
		    "%s already has as many grapplers as its size allows",
		    s->c[t].d.name);
	return REFD_OK;
}

/* Clamp the north-west corner of a space of side n onto the map. */
static void
clamp_at(const struct st *s, int n, int *x, int *y)
{
	if (*x > s->w - n)
		*x = s->w - n;
	if (*y > s->h - n)
		*y = s->h - n;
	if (*x < 0)
		*x = 0;
	if (*y < 0)
		*y = 0;
}

static int
no_wall(const struct st *s, int n, int x, int y)
{
	int i, j;

	for (j = 0; j < n; j++)
		for (i = 0; i < n; i++)
			if (s->sq[y + j][x + i] & SQ_WALL)
				return 0;
	return 1;
}

static int
ev_place(refd_ctx *ctx, struct st *s, const char *type, int a, int t)
{
	const struct cr *A = &s->c[a];
	refd_mpw *w = refd_mpw_create();

	refd_mpw_map(w);
	refd_mpw_kstr(w, "type", type);
	refd_mpw_kstr(w, "who", A->d.name);
	if (t >= 0)
		refd_mpw_kstr(w, "target", s->c[t].d.name);
	refd_mpw_karray(w, "to");
	refd_mpw_int(w, A->x);
	refd_mpw_int(w, A->y);
	refd_mpw_end(w);
	refd_mpw_end(w);
	if (t >= 0 && !seat_sees(s, REFD_SEAT_PUBLIC, a) &&
	    !seat_sees(s, REFD_SEAT_PUBLIC, t))
		return emit_at2(ctx, s, a, t, w);
	return emit_at2(ctx, s, t >= 0 && seat_sees(s, REFD_SEAT_PUBLIC, a) ?
	    t : a, -1, w);
}

/* Step a out of a shared space to the nearest free one (4.7's rule). */
static int
step_out(refd_ctx *ctx, struct st *s, int a)
{
	struct cr *A = &s->c[a];
	int r, x, y, n = space_n(A);

	if (real_free(s, a, A->x, A->y))
		return REFD_OK;
	for (r = 1; r < MAXM; r++)
		for (y = A->y - r; y <= A->y + r; y++)
			for (x = A->x - r; x <= A->x + r; x++) {
				if (x != A->x - r && x != A->x + r &&
				    y != A->y - r && y != A->y + r)
					continue;
				if (x < 0 || y < 0 || x + n > s->w ||
				    y + n > s->h || !no_wall(s, n, x, y) ||
				    !real_free(s, a, x, y))
					continue;
				A->x = x;
				A->y = y;
				return ev_place(ctx, s, "step_out", a, -1);
			}
	return REFD_OK;
}

/* After the hold: a moves into t's space, provoking from outsiders
 * only (5.13 step 4); the rest is man_enter. */
int
man_enter_start(refd_ctx *ctx, struct st *s, int a, int t)
{
	struct cont *k = &s->k;

	if (!man_in_grapple(s, a, t))
		return settle(ctx, s);
	memset(k, 0, sizeof(*k));
	k->kind = K_ACT;
	k->act = ACT_GRAP_IN;
	k->who = a;
	k->target = t;
	if (aoo_queue(s, a, -1, 0) > 0)
		return REFD_OK;
	return man_enter(ctx, s);
}

int
man_enter(refd_ctx *ctx, struct st *s)
{
	int a = s->k.who, t = s->k.target, x, y, n, rc;
	struct cr *A = &s->c[a];

	s->k.kind = K_NONE;
	if (!man_in_grapple(s, a, t))
		return settle(ctx, s);	/* downed or released meanwhile */
	n = space_n(A);
	x = s->c[t].x;
	y = s->c[t].y;
	clamp_at(s, n, &x, &y);
	if (!no_wall(s, n, x, y)) {
		/* It cannot enter: it lets go (5.13 step 4). */
		man_grapple_leave(s, a);
		if ((rc = ev_simple(ctx, "release", s, a, t)) != REFD_OK)
			return rc;
		return settle(ctx, s);
	}
	A->x = x;
	A->y = y;
	if ((rc = ev_place(ctx, s, "grapple_move_in", a, t)) != REFD_OK)
		return rc;
	return settle(ctx, s);
}

/* An outsider's ranged attack at a grappler strikes a participant
 * chosen by d(n) (5.13, D001-39); *t becomes it. */
int
man_grapple_pick(refd_ctx *ctx, struct st *s, int a, int *t)
{
	int p[MAXC], n = 0, i, v, rc, g = s->c[*t].gwith | (1 << *t);
	refd_mpw *ev;

	for (i = 0; i < s->nc; i++)
		if (((g >> i) & 1) && i != a && !s->c[i].dead)
			p[n++] = i;
	if (n < 2)
		return REFD_OK;
	if ((rc = roll(ctx, (uint32_t)n, "grappler", &v)) != REFD_OK)
		return rc;
	*t = p[v - 1];
	ev = refd_mpw_create();
	refd_mpw_map(ev);
	refd_mpw_kstr(ev, "type", "grapple_target");
	refd_mpw_kint(ev, "roll", v);
	refd_mpw_kstr(ev, "target", s->c[*t].d.name);
	refd_mpw_end(ev);
	return emitw(ctx, s, ev);
}

/* The opponent an option works against: the named one, or the only. */
static int
opponent(const struct st *s, int a, struct cmd *c, struct why *y)
{
	int o = opps(s, a);

	if (c->target >= 0) {
		if (!((o >> c->target) & 1))
			return rej(y, REFD_ENOTARGET, "R001-56",
			    "%s is not grappling %s", s->c[a].d.name,
			    nm(s, c->target));
		return REFD_OK;
	}
	if (o & (o - 1))
		return rej(y, REFD_EBADCMD, "R001-56",
		    "%s grapples several opponents: name the \"target\"",
		    s->c[a].d.name);
	c->target = first_bit(o);
	return REFD_OK;
}

static int
pinning(const struct st *s, int a)
{
	int i;

	for (i = 0; i < s->nc; i++)
		if (s->c[i].pinned_by == a + 1)
			return i;
	return -1;
}

int
man_grapple_check(const struct st *s, int a, struct cmd *c, struct why *y)
{
	const struct cr *A = &s->c[a];
	int rc, p;

	if (!A->grap)
		return rej(y, REFD_EILLEGAL, "R001-56",
		    "%s is not grappling", A->d.name);
	if (A->pinned_by && c->t != C_ESCAPE)
		return rej(y, REFD_EILLEGAL, "R001-56",
		    "%s is pinned: it can only try to escape", A->d.name);
	p = pinning(s, a);
	if (c->t == C_RELEASE) {
		if (c->target >= 0 ? s->c[c->target].pinned_by != a + 1 :
		    p < 0)
			return rej(y, REFD_EILLEGAL, "R001-56",
			    "%s is pinning nobody", A->d.name);
		if (c->target < 0)
			c->target = p;
		return REFD_OK;
	}
	if (c->full) {
		/* Options that replace an attack: one per attack of a full
		 * attack, at its bonus (5.13). */
		if (c->t == C_GMOVE || c->t == C_DRAW)
			return rej(y, REFD_EILLEGAL, "R001-56",
			    "only damage, pin, escape, using the opponent's "
			    "weapon and breaking a pin replace an attack");
		if ((rc = attack_slot_ok(s, A, y)) != REFD_OK)
			return rc;
	} else if (c->t == C_DRAW ? !can_move(s, A) : !can_std(s, A)) {
		return rej(y, REFD_ERESOURCE, "R001-04",
		    "%s has no %s action left this turn", A->d.name,
		    c->t == C_DRAW ? "move" : "standard");
	}
	if (c->lethal && c->t != C_GDMG)
		return rej(y, REFD_EBADCMD, "R001-56",
		    "only grapple damage can be made lethal");
	if (c->artist && (c->t != C_ESCAPE || c->full))
		return rej(y, REFD_EBADCMD, "R001-56",
		    "Escape Artist is used for an escape, as a standard "
		    "action");
	if (p >= 0 && (c->t == C_ESCAPE || c->t == C_PIN ||
	    c->t == C_BREAKPIN || c->t == C_DRAW))
		return rej(y, REFD_EILLEGAL, "R001-56",
		    "%s is pinning %s: it cannot %s", A->d.name, nm(s, p),
		    c->t == C_ESCAPE ? "escape (release the pin instead)" :
		    c->t == C_PIN ? "pin another" : c->t == C_DRAW ?
		    "draw a weapon" : "break another's pin");
	switch (c->t) {
	case C_ESCAPE:
		if (c->has_to) {
			struct cr tmp = *A;

			if (A->pinned_by)
				return rej(y, REFD_EILLEGAL, "R001-56",
				    "a pinned creature only breaks the pin");
			tmp.x = c->x;
			tmp.y = c->y;
			if (c->x < 0 || c->y < 0 || c->x >= s->w ||
			    c->y >= s->h || cdist(&tmp, A) != 1 ||
			    !free_at(s, a, c->x, c->y))
				return rej(y, REFD_ENOPATH, "R001-56",
				    "escaping, %s moves to a free space "
				    "adjacent to the grapple", A->d.name);
		}
		return REFD_OK;
	case C_GDMG:
	case C_PIN:
		if ((rc = opponent(s, a, c, y)) != REFD_OK)
			return rc;
		if (c->t == C_PIN && s->c[c->target].pinned_by)
			return rej(y, REFD_EILLEGAL, "R001-56",
			    "%s is already pinned", nm(s, c->target));
		return REFD_OK;
	case C_GWEAPON: {
		const struct weapon *ow;

		if ((rc = opponent(s, a, c, y)) != REFD_OK)
			return rc;
		ow = &s->c[c->target].d.w[0];
		if (ow->cat != 0 || ow->unarmed || ow->natural || ow->ranged)
			return rej(y, REFD_EILLEGAL, "R001-56",
			    "%s holds no light weapon to turn against it",
			    nm(s, c->target));
		return REFD_OK;
	}
	case C_BREAKPIN: {
		int t = c->target;

		if (t < 0 || !man_in_grapple(s, a, t) ||
		    s->c[t].side != A->side || !s->c[t].pinned_by)
			return rej(y, REFD_ENOTARGET, "R001-56",
			    "name a pinned ally in the grapple as \"target\"");
		return REFD_OK;
	}
	case C_GMOVE:
		if (s->step5)
			return rej(y, REFD_EILLEGAL, "R001-06",
			    "%s took a 5-foot step this round: no other "
			    "movement", A->d.name);
		return check_path(s, a, c, speed_of(A) / 2, y);
	default:	/* C_DRAW */
		if (A->stow[0].nd == 0 || A->stow[0].cat != 0)
			return rej(y, REFD_EILLEGAL, "R001-56",
			    "grappling, %s can only draw a sheathed light "
			    "weapon", A->d.name);
		return opponent(s, a, c, y);
	}
}

/* Opposed grapple check of a against o (5.13); ev names the event. */
static int
gcheck(refd_ctx *ctx, struct st *s, int a, int o, int bonus, const char *ev,
    int *win)
{
	int ma = grapple_mod(&s->c[a]) + bonus, md = grapple_mod(&s->c[o]);
	int ra, rd, rc;

	if ((rc = opposed(ctx, ma, md, "grapple", &ra, &rd, win)) != REFD_OK)
		return rc;
	return ev_check(ctx, ev, s, a, o, ra, ra + ma, rd, rd + md, *win);
}

int
man_grapple_exec(refd_ctx *ctx, struct st *s, int a, struct cmd *c)
{
	struct cr *A = &s->c[a];
	int t = c->target, rc, win = 0, i, o, pen = 0;

	if (c->t == C_RELEASE) {
		if ((rc = ev_simple(ctx, "release", s, a, t)) != REFD_OK)
			return rc;
		man_grapple_leave(s, a);
		if ((rc = step_out(ctx, s, a)) != REFD_OK)
			return rc;
		return settle(ctx, s);
	}
	if (c->t == C_DRAW)
		s->mv++;
	else if (c->t == C_GMOVE)
		use_std(s, A);
	else
		pen = maneuver_budget(s, A, c);	/* -iterative in a full */
	switch (c->t) {
	case C_ESCAPE:
		if (c->artist)	/* Escape Artist replaces the check */
			pen = grapple_mod(A) - A->d.escape;
		if (A->pinned_by) {
			/* A pinned creature breaks the pin (5.13). */
			if ((rc = gcheck(ctx, s, a, A->pinned_by - 1, -pen,
			    "escape", &win)) != REFD_OK)
				return rc;
			if (win)
				A->pinned_by = 0;
			break;
		}
		/* Each opponent may hold (the default) or let go, then it
		 * must beat every one that holds (5.13, 8.3). */
		memset(&s->k, 0, sizeof(s->k));
		s->k.kind = K_ACT;
		s->k.act = C_ESCAPE;
		s->k.who = a;
		s->k.target = -1;
		s->k.pen = pen;
		s->k.n = c->has_to;
		s->k.px[0] = c->x;
		s->k.py[0] = c->y;
		o = opps(s, a);
		s->nq = 0;
		s->qi = 0;
		for (i = 0; i < s->nc; i++)
			if ((o >> i) & 1)
				s->q[s->nq++] = i;
		s->pk = PK_HOLD;
		return REFD_OK;
	case C_GDMG:
	case C_PIN:
		/* Lethal damage at -4 on the check (5.13). */
		if ((rc = gcheck(ctx, s, a, t, -pen - (c->lethal &&
		    !gr_monk(A) ? 4 : 0), cmd_name[c->t], &win)) != REFD_OK)
			return rc;
		if (win && c->t == C_PIN) {
			s->c[t].pinned_by = a + 1;
			s->c[t].hushed = c->silence ? a + 1 : 0;
		}
		else if (win && (rc = unarmed_damage(ctx, s, a, t,
		    c->lethal)) != REFD_OK)
			return rc;
		break;
	case C_GWEAPON: {
		struct weapon w = s->c[t].d.w[0];
		struct atk r;

		if ((rc = gcheck(ctx, s, a, t, -pen, "use_weapon", &win)) !=
		    REFD_OK)
			return rc;
		/* Its own weapon, still in its hand, at -4 (A_GRAP). */
		if (win && (rc = attack(ctx, s, a, t, &w, A_GRAP, pen, 0,
		    &r)) != REFD_OK)
			return rc;
		break;
	}
	case C_BREAKPIN:
		if ((rc = gcheck(ctx, s, a, s->c[t].pinned_by - 1, -pen,
		    "break_pin", &win)) != REFD_OK)
			return rc;
		if (win)
			s->c[t].pinned_by = 0;
		break;
	case C_GMOVE: {
		int g = A->gwith, two = !(g & (g - 1));

		/* Beat every other participant; +4 to move a pinned lone
		 * opponent. */
		for (i = 0; i < s->nc; i++) {
			if (!((g >> i) & 1))
				continue;
			if ((rc = gcheck(ctx, s, a, i, two &&
			    s->c[i].pinned_by == a + 1 ? 4 : 0,
			    "grapple_move", &win)) != REFD_OK)
				return rc;
			if (!win)
				break;
		}
		if (!win)
			break;
		return start_move(ctx, s, a, c, MV_GRAP, speed_of(A) / 2);
	}
	default:	/* C_DRAW: a light weapon, winning a check */
		if ((rc = gcheck(ctx, s, a, t, 0, "draw", &win)) != REFD_OK)
			return rc;
		if (win) {
			A->d.w[0] = A->stow[0];
			memset(&A->stow[0], 0, sizeof(A->stow[0]));
		}
		break;
	}
	return settle(ctx, s);
}

/* The end of a grapple move: the others are dragged along. */
int
man_drag(refd_ctx *ctx, struct st *s, int a)
{
	int i, x, y, rc;

	for (i = 0; i < s->nc; i++) {
		if (!((s->c[a].gwith >> i) & 1))
			continue;
		x = s->c[a].x;
		y = s->c[a].y;
		clamp_at(s, space_n(&s->c[i]), &x, &y);
		if (!no_wall(s, space_n(&s->c[i]), x, y))
			continue;
		s->c[i].x = x;
		s->c[i].y = y;
		if ((rc = ev_place(ctx, s, "dragged", i, -1)) != REFD_OK)
			return rc;
	}
	return settle(ctx, s);
}

/* ---- overrun inside a move (5.14) ----
 *
 * The move's cont carries act C_OVERRUN and target the defender;
 * margin is the overrun's stage: 0 not reached, 1 the defender's
 * attack of opportunity offered, 2 avoid or block asked, 3 passed
 * (the move goes on through), 4 stopped before the defender.
 */

/* a's space with its corner at (x, y) overlaps t's space. */
static int
overlaps(const struct st *s, int a, int t, int x, int y)
{
	const struct cr *T = &s->c[t];
	int n = space_n(&s->c[a]), m = space_n(T);

	return x < T->x + m && T->x < x + n && y < T->y + m && T->y < y + n;
}

/* The path enters t's space once, from outside, and leaves it before
 * its end. */
static int
passes_once(const struct st *s, int a, int t, const int *px, const int *py,
    int n)
{
	int i, runs = 0;

	if (n < 3 || overlaps(s, a, t, px[0], py[0]) ||
	    overlaps(s, a, t, px[n - 1], py[n - 1]))
		return 0;
	for (i = 1; i < n; i++)
		if (overlaps(s, a, t, px[i], py[i]) &&
		    !overlaps(s, a, t, px[i - 1], py[i - 1]))
			runs++;
	return runs == 1;
}

/* The straight line from a to (x, y) passes through t's space (not at
 * its end): its length, else 0. */
int
man_ovr_line(const struct st *s, int a, int t, int x, int y, int *px,
    int *py)
{
	int n;

	if (x < 0 || y < 0 || x >= s->w || y >= s->h ||
	    (x == s->c[a].x && y == s->c[a].y))
		return 0;
	n = line_path(s, a, x, y, px, py);
	return passes_once(s, a, t, px, py, n) ? n : 0;
}

int
man_overrun_path_ok(const struct st *s, int a, struct cmd *c, struct why *y)
{
	struct cr *T = (struct cr *)&s->c[c->target];	/* restored below */
	int rc, dead = T->dead, p = mt_partner(s, c->target);
	struct cr *P = p >= 0 ? (struct cr *)&s->c[p] : T;
	int pdead = P->dead;

	if (c->npath == 0) {
		c->npath = man_ovr_line(s, a, c->target, c->x, c->y, c->px,
		    c->py);
		if (c->npath == 0)
			return rej(y, REFD_ENOPATH, "R001-57",
			    "the straight line to (%d,%d) does not pass "
			    "through %s", c->x, c->y, T->d.name);
	}
	/* The defender's square is passed through, if the overrun works. */
	T->dead = P->dead = 1;	/* a rider's mount shares its space */
	rc = check_path(s, a, c, speed_of(&s->c[a]), y);
	P->dead = pdead;
	T->dead = dead;
	if (rc != REFD_OK)
		return rc;
	if (!passes_once(s, a, c->target, c->px, c->py, c->npath))
		return rej(y, REFD_ENOPATH, "R001-57",
		    "the path must pass once through %s's space and go on",
		    T->d.name);
	return REFD_OK;
}

/* Before the mover steps into the next square: 0 go on, 1 paused or
 * handed over (*rc to return), 2 the movement ends here. */
int
man_overrun_move(refd_ctx *ctx, struct st *s, int *rc)
{
	struct cont *k = &s->k;
	int a = k->who, t = man_ovr_defender(s);
	const struct cr *A = &s->c[a], *T = &s->c[t];

	if (k->margin == 4)
		return 2;
	if (k->margin == 3 || !overlaps(s, a, t, k->px[k->pi + 1],
	    k->py[k->pi + 1]) || overlaps(s, a, t, A->x, A->y))
		return 0;
	if (T->dead) {
		k->margin = 3;
		return 0;
	}
	*rc = REFD_OK;
	if (k->margin == 0) {
		k->margin = 1;
		/* Entering the defender's space provokes from it, the same
		 * opportunity as leaving the square before it. */
		if (aoo_queue(s, a, t, s->aoo_taken) > 0)
			return 1;
	}
	if (!able(A) || A->prone)
		return 2;
	k->margin = 2;
	if (!able(T) || (A->d.feats & F_IOVR) || mt_trample(s, a)) {
		*rc = overrun_block(ctx, s, 0);
		return 1;
	}
	s->pk = PK_AVOID;
	s->q[0] = t;
	s->nq = 1;
	s->qi = 0;
	return 1;
}

/* The overrun's defender: a charge keeps it in ally + 1 (its target is
 * the charged creature), a move or a plain overrun in target. */
int
man_ovr_defender(const struct st *s)
{
	const struct cont *k = &s->k;

	return k->kind == K_MOVE && k->mode == MV_CHARGE && k->ally > 0 ?
	    k->ally - 1 : k->target;
}

/* A charge that overruns a foe in its line (5.14): the charge is
 * checked as if that foe were not there, then its line must pass
 * through the foe's square. */
int
man_charge_overrun_ok(const struct st *s, int seat, int a, struct cmd *c,
    struct why *y)
{
	const struct cr *A = &s->c[a];
	struct cr *O = (struct cr *)&s->c[c->ovr];	/* restored below */
	int rc, dead = O->dead, p = mt_partner(s, c->ovr);
	struct cr *P = p >= 0 ? (struct cr *)&s->c[p] : O;
	int pdead = P->dead;

	if (s->overrun)
		return rej(y, REFD_EILLEGAL, "R001-57",
		    "one overrun attempt per round");
	if (c->ovr == a || c->ovr == c->target || O->dead ||
	    O->side == A->side || !perceives(s, a, c->ovr))
		return rej(y, REFD_ENOTARGET, "R001-57",
		    "overrun a foe you can see in the charge line");
	if (O->grap)
		return rej(y, REFD_EILLEGAL, "R001-56",
		    "%s is held in a grapple and cannot be overrun",
		    O->d.name);
	if (s->c[mt_body(s, c->ovr)].d.size - s->c[mt_body(s, a)].d.size > 1)
		return rej(y, REFD_EILLEGAL, "R001-57",
		    "%s is more than one size larger than %s", O->d.name,
		    s->c[mt_body(s, a)].d.name);
	O->dead = P->dead = 1;	/* a rider's mount shares its space */
	c->ovr_hidden = 1;
	rc = cmd_check(s, seat, c, y);
	P->dead = pdead;
	O->dead = dead;
	c->ovr_hidden = 0;
	if (rc != REFD_OK)
		return rc;
	if (!passes_once(s, a, c->ovr, c->px, c->py, c->npath))
		return rej(y, REFD_ENOPATH, "R001-57",
		    "the charge line does not pass through %s", O->d.name);
	return REFD_OK;
}

/* ---- items: weapons on the ground, picking up, dropping, sheathing,
 * shields (1.6, 1.7, 5.8, 5.9) ---- */

/* An item's hit points for its wielder's size: the table gives a Medium
 * item's; halve per size below, twice per size above (5.9). */
int
man_item_hp(int hp, int size)
{
	if (hp <= 0)
		return hp;
	if (size > 0)
		return hp << size;
	hp >>= -size;
	return hp < 1 ? 1 : hp;
}

/* The ground item at (x, y) picked first: the last one dropped there. */
static int
ground_at(const struct st *s, int x, int y)
{
	int i;

	for (i = s->ng - 1; i >= 0; i--)
		if (s->gx[i] == x && s->gy[i] == y)
			return i;
	return -1;
}

static void
ground_take(struct st *s, int i)
{
	for (; i < s->ng - 1; i++) {
		s->gw[i] = s->gw[i + 1];
		s->gx[i] = s->gx[i + 1];
		s->gy[i] = s->gy[i + 1];
		s->ghp[i] = s->ghp[i + 1];
	}
	s->ng--;
}

int
man_ground_put(refd_ctx *ctx, struct st *s, int c)
{
	const struct cr *C = &s->c[c];
	refd_mpw *w;

	if (C->d.w[0].unarmed || C->d.w[0].natural)
		return REFD_OK;
	if (s->ng == MAXG)
		ground_take(s, 0);	/* the oldest is lost in the melee */
	s->gw[s->ng] = C->d.w[0];
	s->gx[s->ng] = C->x;
	s->gy[s->ng] = C->y;
	s->ghp[s->ng] = C->whp;
	s->ng++;
	w = refd_mpw_create();
	refd_mpw_map(w);
	refd_mpw_kstr(w, "type", "item_dropped");
	refd_mpw_kstr(w, "who", C->d.name);
	refd_mpw_kstr(w, "item", C->d.w[0].name);
	refd_mpw_karray(w, "at");
	refd_mpw_int(w, C->x);
	refd_mpw_int(w, C->y);
	refd_mpw_end(w);
	refd_mpw_end(w);
	return emit_at2(ctx, s, c, -1, w);
}

int
man_item_check(const struct st *s, int a, struct cmd *c, struct why *y)
{
	const struct cr *A = &s->c[a];

	switch (c->t) {
	case C_PICKUP: {
		int i;

		if (!c->has_to)
			return rej(y, REFD_EBADCMD, "R001-77",
			    "give the item's square as \"to\": [x, y]");
		if ((i = ground_at(s, c->x, c->y)) < 0)
			return rej(y, REFD_ENOTARGET, "R001-77",
			    "nothing lies at (%d,%d)", c->x, c->y);
		if (g_space_dist(A->x, A->y, space_n(A), c->x, c->y, 1) > 1)
			return rej(y, REFD_ERANGE, "R001-77",
			    "the %s at (%d,%d) is out of %s's reach",
			    s->gw[i].name, c->x, c->y, A->d.name);
		if (A->grap)
			return rej(y, REFD_EILLEGAL, "R001-56",
			    "%s is grappling", A->d.name);
		if (!A->d.w[0].unarmed || A->d.w[0].natural)
			return rej(y, REFD_EILLEGAL, "R001-77",
			    "%s's hand is not free (drop or sheathe the %s "
			    "first)", A->d.name, A->d.w[0].name);
		if (!can_move(s, A))
			return rej(y, REFD_ERESOURCE, "R001-04",
			    "picking up an item takes a move action");
		return REFD_OK;
	}
	case C_DROP:
		if (A->d.w[0].unarmed || A->d.w[0].natural)
			return rej(y, REFD_EILLEGAL, "R001-77",
			    "%s holds no weapon", A->d.name);
		return REFD_OK;	/* a free action */
	case C_LOAD:
		if (!A->d.w[0].crossbow || !A->unloaded)
			return rej(y, REFD_EILLEGAL, "R001-13",
			    "%s holds no crossbow to load", A->d.name);
		if (A->grap)
			return rej(y, REFD_EILLEGAL, "R001-56",
			    "%s is grappling", A->d.name);
		if (A->d.w[0].load == 2 ? !can_full(s, A) : !can_move(s, A))
			return rej(y, REFD_ERESOURCE, "R001-13",
			    "loading the %s takes a %s action",
			    A->d.w[0].name, A->d.w[0].load == 2 ?
			    "full-round" : "move");
		return REFD_OK;
	default:	/* C_SHIELD: take = ready it, else loose it */
		if (c->take ? A->shield_off == 0 : (A->d.shield == 0 ||
		    A->shp <= 0))
			return rej(y, REFD_EILLEGAL, "R001-77",
			    "%s has no %s shield", A->d.name, c->take ?
			    "loosed" : "strapped");
		if (A->grap)
			return rej(y, REFD_EILLEGAL, "R001-56",
			    "%s is grappling", A->d.name);
		if (!draw_free(s, A) && !can_move(s, A))
			return rej(y, REFD_ERESOURCE, "R001-77",
			    "readying or loosing a shield takes a move "
			    "action (free with a move at BAB +1 or more)");
		return REFD_OK;
	}
}

int
man_item_exec(refd_ctx *ctx, struct st *s, int a, struct cmd *c)
{
	struct cr *A = &s->c[a];
	int rc;

	switch (c->t) {
	case C_PICKUP:
		spend_move(s);
		/* Picking up provokes (1.7); it happens after the AoOs. */
		return begin_act(ctx, s, C_PICKUP, a, -1, 0,
		    ground_at(s, c->x, c->y), 1);
	case C_DROP:
		if ((rc = man_ground_put(ctx, s, a)) != REFD_OK)
			return rc;
		unarmed_weapon(&A->d.w[0], A->d.size);
		return settle(ctx, s);
	case C_LOAD:
		if (A->d.w[0].load == 2)
			s->full = 1;
		else
			spend_move(s);
		/* Loading a crossbow provokes (1.7). */
		return begin_act(ctx, s, C_LOAD, a, -1, 0, 0, 1);
	default:
		if (draw_free(s, A))
			s->freedraw = 1;
		else
			spend_move(s);
		if (c->take) {
			A->d.shield = A->shield_off;
			A->shield_off = 0;
		} else {
			A->shield_off = A->d.shield;
			A->d.shield = 0;
		}
		if ((rc = ev_simple(ctx, c->take ? "shield_ready" :
		    "shield_loose", s, a, -1)) != REFD_OK)
			return rc;
		return settle(ctx, s);
	}
}

/* The end of a provoking item action: sheathe, pick up. */
int
man_item_finish(refd_ctx *ctx, struct st *s)
{
	int a = s->k.who, i = s->k.pen, rc;
	struct cr *A = &s->c[a];

	if (s->k.act == C_LOAD) {
		A->unloaded = 0;
		if ((rc = ev_simple(ctx, "load", s, a, -1)) != REFD_OK)
			return rc;
		return settle(ctx, s);
	}
	if (s->k.act == C_SHEATHE) {
		int j;

		for (j = 0; j < 2; j++)
			if (A->d.w[j].nd && !A->d.w[j].unarmed &&
			    !A->d.w[j].natural) {
				A->stow[j] = A->d.w[j];
				memset(&A->d.w[j], 0, sizeof(A->d.w[j]));
			}
		if (A->d.w[0].nd == 0)
			unarmed_weapon(&A->d.w[0], A->d.size);
		if ((rc = ev_simple(ctx, "sheathe", s, a, -1)) != REFD_OK)
			return rc;
		return settle(ctx, s);
	}
	if (i >= 0 && i < s->ng && A->d.w[0].unarmed && !A->d.w[0].natural) {
		refd_mpw *w = refd_mpw_create();

		A->d.w[0] = s->gw[i];
		A->whp = s->ghp[i];
		refd_mpw_map(w);
		refd_mpw_kstr(w, "type", "pick_up");
		refd_mpw_kstr(w, "who", A->d.name);
		refd_mpw_kstr(w, "item", s->gw[i].name);
		refd_mpw_karray(w, "at");
		refd_mpw_int(w, s->gx[i]);
		refd_mpw_int(w, s->gy[i]);
		refd_mpw_end(w);
		refd_mpw_end(w);
		ground_take(s, i);
		if ((rc = emit_at2(ctx, s, a, -1, w)) != REFD_OK)
			return rc;
	}
	return settle(ctx, s);
}

/* ---- carried potions as other objects (5.8 grabbing, 5.9 sundering) ----
 *
 * A potion vial is a Tiny object (+2 to its AC), hardness 1 and 1 hit
 * point (the table has no vials: the rule family's numbers), carried in
 * a pouch: not loosely attached (no +4 to grab it), not firmly either.
 */
#define VIAL_SIZE_AC 2
#define VIAL_HARDNESS 1

int
man_potion_check(const struct st *s, int a, struct cmd *c, struct why *y)
{
	const struct cr *A = &s->c[a], *T = &s->c[c->target];
	const char *rule = c->t == C_SUNDER ? "R001-52" : "R001-51";
	struct weapon w;
	int i, j;

	for (i = 0; i < 2; i++)
		if (T->d.potions[i] > 0 &&
		    strcmp(T->d.potion[i].name, c->spell) == 0)
			break;
	if (i == 2)
		return rej(y, REFD_ENOTARGET, rule,
		    "%s carries no potion of '%.30s'", T->d.name, c->spell);
	c->si = i;
	if (c->t == C_SUNDER) {
		melee_weapon(A, &w);
		if (!(w.dtype & (DT_B | DT_S)))
			return rej(y, REFD_EILLEGAL, rule,
			    "smashing needs a slashing or bludgeoning weapon, "
			    "not the %s", w.name);
		return REFD_OK;
	}
	/* Grabbing is an unarmed disarm: it needs a free hand and room. */
	if (A->d.w[0].natural || A->d.w[1].nd > 0 ||
	    (A->d.w[0].cat == 2 && !A->d.w[0].unarmed))
		return rej(y, REFD_EILLEGAL, rule,
		    "%s has no free hand to grab with", A->d.name);
	for (j = 0; j < 2; j++)
		if (A->d.potions[j] == 0 || strcmp(A->d.potion[j].name,
		    c->spell) == 0)
			break;
	if (j == 2)
		return rej(y, REFD_ERESOURCE, rule,
		    "%s has no room for another kind of potion", A->d.name);
	return REFD_OK;
}

static int
ev_object(refd_ctx *ctx, struct st *s, const char *type, int a, int t,
    const char *item, int roll, int ok)
{
	refd_mpw *w = refd_mpw_create();

	refd_mpw_map(w);
	refd_mpw_kstr(w, "type", type);
	refd_mpw_kstr(w, "who", s->c[a].d.name);
	refd_mpw_kstr(w, "target", s->c[t].d.name);
	refd_mpw_kstr(w, "item", item);
	if (roll > 0)
		refd_mpw_kint(w, "roll", roll);
	refd_mpw_kbool(w, "success", ok);
	refd_mpw_end(w);
	return emitw(ctx, s, w);
}

int
man_potion_finish(refd_ctx *ctx, struct st *s)
{
	struct cont *k = &s->k;
	int a = k->who, t = k->target, si = (k->flags >> 4) & 1, rc, j;
	struct cr *A = &s->c[a], *T = &s->c[t];
	char item[NAMEL + 16];
	struct weapon w;

	if (T->d.potions[si] <= 0)
		return settle(ctx, s);
	snprintf(item, sizeof(item), "potion of %s", T->d.potion[si].name);
	if (k->act == C_DISARM) {
		int ma, md, ra, rd, win;

		if (k->hurt > 0) {
			if ((rc = ev_simple(ctx, "disarm_fails", s, a, t)) !=
			    REFD_OK)
				return rc;
			return settle(ctx, s);
		}
		/* Unarmed (light, -4), against a non-weapon item (-4). */
		ma = A->d.bab + mod(A->d.str) + sizemod(A->d.size) - 4 -
		    k->pen;
		if (A->d.size > T->d.size)
			ma += 4 * (A->d.size - T->d.size);
		md = disarm_mod(s, t, a) - 4;
		if ((rc = opposed(ctx, ma, md, "disarm", &ra, &rd, &win)) !=
		    REFD_OK)
			return rc;
		if ((rc = ev_check(ctx, "grab", s, a, t, ra, ra + ma, rd,
		    rd + md, win)) != REFD_OK)
			return rc;
		if (win) {
			for (j = 0; j < 2; j++)
				if (A->d.potions[j] == 0 || strcmp(
				    A->d.potion[j].name,
				    T->d.potion[si].name) == 0)
					break;
			if (j < 2) {
				A->d.potion[j] = T->d.potion[si];
				A->d.potions[j]++;
				T->d.potions[si]--;
			}
		}
		/* No counter-disarm when grabbing (5.8). */
		return settle(ctx, s);
	}
	/* Smashing it: an attack roll against the object's AC, 10 + its
	 * size + its holder's Dex (5.9). */
	melee_weapon(A, &w);
	{
		int v, b = atk_bonus(s, a, t, &w, 0, k->pen), hit, dmg;
		int ac = 10 + VIAL_SIZE_AC + mod(T->d.dex);
		refd_mpw *ev;

		if ((rc = roll(ctx, 20, "attack", &v)) != REFD_OK)
			return rc;
		hit = v != 1 && (v == 20 || v + b >= ac);
		if ((rc = ev_object(ctx, s, "attack_object", a, t, item, v,
		    hit)) != REFD_OK)
			return rc;
		if (!hit)
			return settle(ctx, s);
		dmg = str_dmg(A, &w, 0) + w.enh;
		for (j = 0; j < w.nd; j++) {
			if ((rc = roll(ctx, (uint32_t)w.sd, "damage", &v)) !=
			    REFD_OK)
				return rc;
			dmg += v;
		}
		if (dmg < 1)
			dmg = 1;
		if (dmg - VIAL_HARDNESS >= 1)
			T->d.potions[si]--;	/* 1 hit point */
		ev = refd_mpw_create();
		refd_mpw_map(ev);
		refd_mpw_kstr(ev, "type", "item_damage");
		refd_mpw_kstr(ev, "target", T->d.name);
		refd_mpw_kstr(ev, "item", item);
		refd_mpw_kint(ev, "damage", dmg);
		refd_mpw_kbool(ev, "destroyed", dmg - VIAL_HARDNESS >= 1);
		refd_mpw_end(ev);
		if ((rc = emitw(ctx, s, ev)) != REFD_OK)
			return rc;
	}
	return settle(ctx, s);
}

/* An escaping creature's opponent answered: hold or let go (k.flags
 * holds those that let go); after the last, the checks. */
int
man_hold_answer(refd_ctx *ctx, struct st *s, int hold)
{
	struct cont *k = &s->k;
	int a = k->who, i, rc, win = 1;
	struct cr *A = &s->c[a];

	if (!hold)
		k->flags |= 1 << s->q[s->qi];
	if (++s->qi < s->nq)
		return REFD_OK;
	s->pk = PK_NONE;
	k->kind = K_NONE;
	for (i = 0; i < s->nq && win; i++) {
		int o = s->q[i];

		if ((k->flags >> o) & 1) {
			if ((rc = ev_simple(ctx, "let_go", s, o, a)) != REFD_OK)
				return rc;
			continue;
		}
		if ((rc = gcheck(ctx, s, a, o, -k->pen, "escape", &win)) !=
		    REFD_OK)
			return rc;
	}
	if (!win)
		return settle(ctx, s);
	man_grapple_leave(s, a);
	if (k->n && real_free(s, a, k->px[0], k->py[0])) {
		A->x = k->px[0];
		A->y = k->py[0];
		rc = ev_place(ctx, s, "step_out", a, -1);
	} else {
		rc = step_out(ctx, s, a);
	}
	if (rc != REFD_OK)
		return rc;
	return settle(ctx, s);
}
