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
#include <string.h>

#include "maneuver.h"
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
			if (aoo_queue(s, t, -1, (1 << a) | k->rdone) > 0)
				return REFD_OK;
		}
		/* checked == 1: the pushed creature moves if still up. */
		if (!able(T) || !real_free(s, t, T->x + dx, T->y + dy))
			break;	/* downed where it was */
		T->x += dx;
		T->y += dy;
		k->pi++;
		k->checked = 0;
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
		if (aoo_queue(s, a, -1, (1 << t) | s->aoo_taken) > 0)
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
	if (c->t == C_DRAW ? !can_move(s, A) : !can_std(s, A))
		return rej(y, REFD_ERESOURCE, "R001-04",
		    "%s has no %s action left this turn", A->d.name,
		    c->t == C_DRAW ? "move" : "standard");
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
	int t = c->target, rc, win = 0, i, o;

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
	else
		use_std(s, A);
	switch (c->t) {
	case C_ESCAPE:
		if (A->pinned_by) {
			/* A pinned creature breaks the pin (5.13). */
			if ((rc = gcheck(ctx, s, a, A->pinned_by - 1, 0,
			    "escape", &win)) != REFD_OK)
				return rc;
			if (win)
				A->pinned_by = 0;
			break;
		}
		/* It must beat every grappling opponent. */
		o = opps(s, a);
		for (i = 0; i < s->nc; i++) {
			if (!((o >> i) & 1))
				continue;
			if ((rc = gcheck(ctx, s, a, i, 0, "escape", &win)) !=
			    REFD_OK)
				return rc;
			if (!win)
				break;
		}
		if (!win)
			break;
		man_grapple_leave(s, a);
		if (c->has_to && real_free(s, a, c->x, c->y)) {
			A->x = c->x;
			A->y = c->y;
			rc = ev_place(ctx, s, "step_out", a, -1);
		} else {
			rc = step_out(ctx, s, a);
		}
		if (rc != REFD_OK)
			return rc;
		break;
	case C_GDMG:
	case C_PIN:
		if ((rc = gcheck(ctx, s, a, t, 0, cmd_name[c->t], &win)) !=
		    REFD_OK)
			return rc;
		if (win && c->t == C_PIN)
			s->c[t].pinned_by = a + 1;
		else if (win && (rc = unarmed_damage(ctx, s, a, t)) != REFD_OK)
			return rc;
		break;
	case C_GWEAPON: {
		struct weapon w = s->c[t].d.w[0];
		struct atk r;

		if ((rc = gcheck(ctx, s, a, t, 0, "use_weapon", &win)) !=
		    REFD_OK)
			return rc;
		/* Its own weapon, still in its hand, at -4 (A_GRAP). */
		if (win && (rc = attack(ctx, s, a, t, &w, A_GRAP, 0, 0, &r)) !=
		    REFD_OK)
			return rc;
		break;
	}
	case C_BREAKPIN:
		if ((rc = gcheck(ctx, s, a, s->c[t].pinned_by - 1, 0,
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

/* The straight line from a to (x, y) passes through t's square (not
 * its last square): its length, else 0. */
int
man_ovr_line(const struct st *s, int a, int t, int x, int y, int *px,
    int *py)
{
	const struct cr *T = &s->c[t];
	int n, i, hit = 0;

	if (x < 0 || y < 0 || x >= s->w || y >= s->h ||
	    (x == s->c[a].x && y == s->c[a].y))
		return 0;
	n = line_path(s, a, x, y, px, py);
	for (i = 1; i < n - 1; i++)
		if (px[i] == T->x && py[i] == T->y)
			hit++;
	return hit == 1 ? n : 0;
}

int
man_overrun_path_ok(const struct st *s, int a, struct cmd *c, struct why *y)
{
	struct cr *T = (struct cr *)&s->c[c->target];	/* restored below */
	int rc, dead = T->dead, i, hit = 0;

	if (c->npath == 0) {
		c->npath = man_ovr_line(s, a, c->target, c->x, c->y, c->px,
		    c->py);
		if (c->npath == 0)
			return rej(y, REFD_ENOPATH, "R001-57",
			    "the straight line to (%d,%d) does not pass "
			    "through %s", c->x, c->y, T->d.name);
	}
	/* The defender's square is passed through, if the overrun works. */
	T->dead = 1;
	rc = check_path(s, a, c, speed_of(&s->c[a]), y);
	T->dead = dead;
	if (rc != REFD_OK)
		return rc;
	for (i = 1; i < c->npath - 1; i++)
		if (c->px[i] == T->x && c->py[i] == T->y)
			hit++;
	if (hit != 1)
		return rej(y, REFD_ENOPATH, "R001-57",
		    "the path must pass once through %s's square and go on",
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
	if (k->margin == 3 || k->px[k->pi + 1] != T->x ||
	    k->py[k->pi + 1] != T->y)
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
	if (!able(T) || (A->d.feats & F_IOVR)) {
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
	int rc, dead = O->dead, i, hit = 0;

	if (s->overrun)
		return rej(y, REFD_EILLEGAL, "R001-57",
		    "one overrun attempt per round");
	if (c->ovr == a || c->ovr == c->target || O->dead ||
	    O->side == A->side || !perceives(s, a, c->ovr))
		return rej(y, REFD_ENOTARGET, "R001-57",
		    "overrun a foe you can see in the charge line");
	if (space_n(A) != 1 || space_n(O) != 1)
		return rej(y, REFD_EILLEGAL, "R001-57",
		    "overrun is only supported between 1-square creatures");
	if (O->d.size - A->d.size > 1)
		return rej(y, REFD_EILLEGAL, "R001-57",
		    "%s is more than one size larger than %s", O->d.name,
		    A->d.name);
	O->dead = 1;
	c->ovr_hidden = 1;
	rc = cmd_check(s, seat, c, y);
	O->dead = dead;
	c->ovr_hidden = 0;
	if (rc != REFD_OK)
		return rc;
	for (i = 1; i < c->npath - 1; i++)
		if (c->px[i] == O->x && c->py[i] == O->y)
			hit++;
	if (hit != 1)
		return rej(y, REFD_ENOPATH, "R001-57",
		    "the charge line does not pass through %s", O->d.name);
	return REFD_OK;
}
