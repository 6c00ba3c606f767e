/*
 * mount.c - mounted combat (spec 5.15, R001-58): riders and mounts,
 * Ride checks (guide with the knees, control a frightened mount, quick
 * mount and dismount, soft fall), the mount's movement on the rider's
 * turn, the single melee attack after the mount moved, higher ground,
 * ranged and casting penalties while it moves, the lance on a mounted
 * charge, and the falls of a rider.
 */
#include <stdio.h>
#include <string.h>

#include "geom.h"
#include "mount.h"
#include "move.h"

/* The creature i rides, or the rider of i; -1 when none. */
int
mt_partner(const struct st *s, int i)
{
	int j;

	if (i < 0)
		return -1;
	if (s->c[i].mounted)
		return s->c[i].mounted - 1;
	for (j = 0; j < s->nc; j++)
		if (s->c[j].mounted == i + 1)
			return j;
	return -1;
}

/* i and j are a rider and its mount (they share one space). */
int
mt_pair(const struct st *s, int i, int j)
{
	return i >= 0 && j >= 0 && i != j &&
	    (s->c[i].mounted == j + 1 || s->c[j].mounted == i + 1);
}

/* Mounts: they act on their rider's initiative, never on their own. */
int
mt_mask(const struct st *s)
{
	int i, m = 0;

	for (i = 0; i < s->nc; i++)
		if (s->c[i].d.mount)
			m |= 1 << i;
	return m;
}

/* i moved: its rider or mount moves with it. */
void
mt_follow(struct st *s, int i)
{
	int p = mt_partner(s, i);

	if (p >= 0) {
		s->c[p].x = s->c[i].x;
		s->c[p].y = s->c[i].y;
	}
}

static void
link(struct st *s, int r, int m)
{
	struct cr *R = &s->c[r], *M = &s->c[m];

	R->mounted = m + 1;
	R->ride_n = space_n(M);
	R->ride_sp = speed_of(M);
	R->x = M->x;
	R->y = M->y;
	R->kept = 0;
}

static void
unlink_rider(struct st *s, int r)
{
	struct cr *R = &s->c[r];

	R->mounted = 0;
	R->ride_n = 0;
	R->ride_sp = 0;
	R->kept = 0;
}

/* The rider's turn begins: the mount's turn too (its charge, run and
 * attacks of opportunity last until then, and it is no longer
 * flat-footed).  A riderless mount's last charge or run ends at the
 * next turn. */
void
mt_turn(struct st *s, int a)
{
	int m;

	s->m_mv = s->m_run = s->m_fam = s->m_shot = 0;
	s->m_cast = s->m_castdc = s->knees = s->ctl = s->m_att = 0;
	for (m = 0; m < s->nc; m++) {
		struct cr *M = &s->c[m];

		if (!M->d.mount || (s->c[a].mounted != m + 1 &&
		    mt_partner(s, m) >= 0))
			continue;
		M->charged = M->ran = M->fdef = M->tdef = 0;
		if (s->c[a].mounted == m + 1) {
			M->aoo_used = 0;
			M->flat = 0;
		}
	}
}

/* Setup: rides[i] names the mount creature i sits on. */
int
mt_setup(struct st *s, char rides[MAXC][NAMEL], char *err, size_t elen)
{
	int i, m, side, k;

	for (i = 0; i < s->nc; i++) {
		struct cr *R = &s->c[i], *M;

		if (rides[i][0] == '\0')
			continue;
		for (m = 0; m < s->nc; m++)
			if (strcmp(s->c[m].d.name, rides[i]) == 0)
				break;
		if (m == s->nc || m == i) {
			snprintf(err, elen, "setup: creature '%s': rides: no "
			    "other creature named '%.30s'", R->d.name,
			    rides[i]);
			return -1;
		}
		M = &s->c[m];
		if (!M->d.mount || R->d.mount || M->side != R->side ||
		    M->d.size <= R->d.size || mt_partner(s, m) >= 0 ||
		    R->prone || M->prone || !able(R) || !able(M) ||
		    R->d.invisible || M->d.invisible) {
			snprintf(err, elen, "setup: creature '%s': rides: '%s' "
			    "must be a mount (creature field mount) of its side, "
			    "larger than its rider, with no other rider, and both "
			    "visible, standing and conscious", R->d.name,
			    M->d.name);
			return -1;
		}
		if (R->x != M->x || R->y != M->y) {
			snprintf(err, elen, "setup: creature '%s': a rider's at "
			    "is its mount's square (%d,%d)", R->d.name, M->x,
			    M->y);
			return -1;
		}
		link(s, i, m);
	}
	for (side = 0; side < s->nseats; side++) {
		for (k = 0; k < s->nc; k++)
			if (s->c[k].side == side && !s->c[k].d.mount)
				break;
		if (k == s->nc) {
			snprintf(err, elen, "setup: side %d has only mounts",
			    side);
			return -1;
		}
	}
	return 0;
}

/* Nearest square where r, on foot, may stand next to (or in the former
 * space of) mount m: by distance, then row, then column; real: free of
 * every creature (else of those r perceives, for a check). */
static int
spot(const struct st *s, int r, int m, int real, int *px, int *py)
{
	const struct cr *M = &s->c[m];
	int x, y, d, bd = 1 << 20;

	for (y = 0; y < s->h; y++)
		for (x = 0; x < s->w; x++) {
			d = g_space_dist(M->x, M->y, space_n(M), x, y, 1);
			if (d < bd && (real ? real_free(s, r, x, y) :
			    free_at(s, r, x, y))) {
				bd = d;
				*px = x;
				*py = y;
			}
		}
	return bd < (1 << 20);
}

static int
ride_check(refd_ctx *ctx, struct st *s, int a, int dc, const char *why,
    int *ok)
{
	int rc, r, m = s->c[a].d.ride;
	refd_mpw *w;

	if (dc == 20 && strncmp(why, "quick", 5) == 0)
		m -= s->c[a].d.acp;	/* the armour check penalty applies */
	if ((rc = roll(ctx, 20, "ride", &r)) != REFD_OK)
		return rc;
	*ok = r + m >= dc;
	w = refd_mpw_create();
	refd_mpw_map(w);
	refd_mpw_kstr(w, "type", "ride");
	refd_mpw_kstr(w, "who", s->c[a].d.name);
	refd_mpw_kstr(w, "why", why);
	refd_mpw_kint(w, "roll", r);
	refd_mpw_kint(w, "total", r + m);
	refd_mpw_kint(w, "dc", dc);
	refd_mpw_kbool(w, "success", *ok);
	refd_mpw_end(w);
	return emitw(ctx, s, w);
}

/* The mount of an active rider, for the checks. */
static const struct cr *
mount_of(const struct st *s, const struct cr *A)
{
	return A->mounted ? &s->c[A->mounted - 1] : NULL;
}

/* Where a dismounting rider lands: "to", or the nearest free square. */
static int
dismount_square(const struct st *s, int a, struct cmd *c, struct why *y)
{
	struct st *m = (struct st *)s;	/* probing the rider on foot */
	struct cr *A = &m->c[a];
	int32_t keep[3] = { A->mounted, A->ride_n, A->ride_sp };
	int mi = A->mounted - 1, ok = 1, d;

	A->mounted = A->ride_n = A->ride_sp = 0;
	if (c->has_to) {
		d = g_space_dist(s->c[mi].x, s->c[mi].y, space_n(&s->c[mi]),
		    c->x, c->y, 1);
		ok = c->x >= 0 && c->y >= 0 && c->x < s->w && c->y < s->h &&
		    d == 1 && free_at(s, a, c->x, c->y);
	} else {
		ok = spot(s, a, mi, 0, &c->x, &c->y);
	}
	A->mounted = keep[0];
	A->ride_n = keep[1];
	A->ride_sp = keep[2];
	if (!ok)
		return rej(y, REFD_ENOPATH, "R001-58",
		    c->has_to ? "(%d,%d) is not a free square next to %s's "
		    "mount" : "no free square for %s to dismount to", c->has_to ?
		    c->x : 0, c->has_to ? c->y : 0, A->d.name);
	c->has_to = 1;
	return REFD_OK;
}

/*
 * Checks of the mounted commands, and the rider's limits on the others.
 * *done: the answer is final (else cmd_check goes on).
 */
int
mt_check(const struct st *s, int a, struct cmd *c, struct why *y, int *done)
{
	const struct cr *A = &s->c[a], *M = mount_of(s, A), *T;
	int t = c->target;

	*done = 1;
	switch (c->t) {
	case C_MOUNT:
		if (M != NULL)
			return rej(y, REFD_EILLEGAL, "R001-58",
			    "%s is already mounted", A->d.name);
		if (t < 0 || t == a)
			return rej(y, REFD_ENOTARGET, "R001-58",
			    "name the mount as \"target\"");
		T = &s->c[t];
		if (!T->d.mount || T->side != A->side || !able(T) || T->prone ||
		    mt_partner(s, t) >= 0 || T->d.size <= A->d.size ||
		    A->d.invisible || T->d.invisible)
			return rej(y, REFD_EILLEGAL, "R001-58",
			    "%s cannot mount %s: a free, standing, visible mount "
			    "of its side, larger than the rider", A->d.name,
			    T->d.name);
		if (A->prone || A->grap || s->fa)
			return rej(y, REFD_EILLEGAL, "R001-58",
			    "%s cannot mount now (prone, grappling or in a full "
			    "attack)", A->d.name);
		if (cdist(A, T) != 1)
			return rej(y, REFD_ERANGE, "R001-58",
			    "%s must be next to %s to mount", A->d.name,
			    T->d.name);
		if (!can_move(s, A))
			return rej(y, REFD_ERESOURCE, "R001-58",
			    "mounting takes a move action (a quick mount needs "
			    "one available too)");
		return REFD_OK;
	case C_DISMOUNT:
		if (M == NULL)
			return rej(y, REFD_EILLEGAL, "R001-58",
			    "%s is not mounted", A->d.name);
		if (s->fa || !can_move(s, A))
			return rej(y, REFD_ERESOURCE, "R001-58",
			    "dismounting takes a move action (a quick dismount "
			    "needs one available too)");
		return dismount_square(s, a, c, y);
	case C_KNEES:
		if (M == NULL)
			return rej(y, REFD_EILLEGAL, "R001-58",
			    "%s is not mounted", A->d.name);
		if (s->knees)
			return rej(y, REFD_EILLEGAL, "R001-58",
			    "%s already tried to guide with the knees this turn",
			    A->d.name);
		if (M->d.mount == 2 && s->ctl != 1)
			return rej(y, REFD_EILLEGAL, "R001-58",
			    "%s's %s is frightened: control it first",
			    A->d.name, M->d.name);
		return REFD_OK;
	case C_CONTROL:
		if (M == NULL || M->d.mount != 2)
			return rej(y, REFD_EILLEGAL, "R001-58",
			    "%s rides no frightened mount", A->d.name);
		if (s->ctl)
			return rej(y, REFD_EILLEGAL, "R001-58",
			    "%s already tried to control its mount this turn",
			    A->d.name);
		if (!can_move(s, A))
			return rej(y, REFD_ERESOURCE, "R001-58",
			    "controlling the mount takes a move action");
		return REFD_OK;
	case C_MATTACK: {
		struct weapon w;

		if (M == NULL || M->d.mount != 1)
			return rej(y, REFD_EILLEGAL, "R001-58",
			    "%s rides no combat-trained mount", A->d.name);
		if (s->m_att || s->m_mv >= 2 || s->m_run)
			return rej(y, REFD_ERESOURCE, "R001-58",
			    "%s has no standard action left (it attacks once, "
			    "after at most one move)", M->d.name);
		if (t < 0 || s->c[t].side == A->side || s->c[t].dead ||
		    !perceives(s, A->mounted - 1, t))
			return rej(y, REFD_ENOTARGET, "R001-58",
			    "name an enemy %s can see", M->d.name);
		melee_weapon(M, &w);
		if (!has_loe(s, A->mounted - 1, t) || !reaches(s, M, &w,
		    &s->c[t]))
			return rej(y, REFD_ERANGE, "R001-58",
			    "%s is out of %s's reach", s->c[t].d.name,
			    M->d.name);
		return REFD_OK;
	}
	default:
		break;
	}
	if (M == NULL) {
		*done = 0;
		return REFD_OK;
	}
	if (M->d.mount == 2 && s->ctl != 1 && c->t != C_END &&
	    c->t != C_DELAY && c->t != C_DISMOUNT)
		return rej(y, REFD_EILLEGAL, "R001-58", s->ctl == 2 ?
		    "%s lost control of the frightened %s: the move action "
		    "took the whole turn" : "%s's %s is frightened by the "
		    "fight: control it first (control_mount: a move action, "
		    "Ride DC 20) or dismount", A->d.name, M->d.name);
	switch (c->t) {
	case C_CRAWL:
	case C_MINMOVE:
	case C_OVERRUN:
	case C_PRONE:
		return rej(y, REFD_EILLEGAL, "R001-58",
		    "%s is mounted: no %s (move the mount, or dismount first)",
		    A->d.name, cmd_name[c->t]);
	case C_MOVE:
		if (s->m_run || s->m_mv + s->m_att >= 2)
			return rej(y, REFD_ERESOURCE, "R001-58",
			    "%s has no move action left this turn", M->d.name);
		if (s->m_cast == 1 || (s->m_cast == 3 && s->m_mv >= 1))
			return rej(y, REFD_EILLEGAL, "R001-58",
			    "%s cast a spell after %s's move: the mount moves no "
			    "more this turn (cast with mount_moves to move on, "
			    "Concentration DC 10 + level)", A->d.name, M->d.name);
		if (s->m_shot && s->m_mv >= 1)
			return rej(y, REFD_EILLEGAL, "R001-58",
			    "%s shot while %s moved once: a second move would "
			    "have made the shot -4 (move first, then shoot)",
			    A->d.name, M->d.name);
		break;
	case C_WITHDRAW:
	case C_RUN:
	case C_CHARGE:
		if (s->m_mv > 0 || s->m_att)
			return rej(y, REFD_ERESOURCE, "R001-58",
			    "%s already acted this turn: a %s takes its whole "
			    "turn", M->d.name, cmd_name[c->t]);
		if (s->m_shot || s->cast)
			return rej(y, REFD_EILLEGAL, "R001-58",
			    "shoot or cast after the mount's %s, not before",
			    cmd_name[c->t]);
		if (c->t == C_CHARGE && c->kind == C_BULL)
			return rej(y, REFD_EILLEGAL, "R001-58",
			    "a mounted bull rush charge is not supported");
		break;
	case C_FULL:
		if (!A->d.w[0].ranged && s->sq_moved > 1)
			return rej(y, REFD_EILLEGAL, "R001-58",
			    "%s moved %d squares: %s gets a single melee attack "
			    "(attack), not a full attack", M->d.name,
			    s->sq_moved, A->d.name);
		/* FALLTHROUGH */
	case C_ATTACK:
		if (((A->d.w[0].cat == 2 && !A->d.w[0].lance) || c->off) &&
		    s->knees != 1)
			return rej(y, REFD_EILLEGAL, "R001-58",
			    s->knees == 2 ? "%s failed to guide %s with the "
			    "knees this turn: one hand holds the reins" :
			    "%s needs both hands: guide %s with the knees first "
			    "(guide_with_knees, Ride DC 5)", A->d.name, M->d.name);
		break;
	case C_CAST:
		if (c->mm && (s->m_mv != 1 || s->m_run))
			return rej(y, REFD_EILLEGAL, "R001-58",
			    "mount_moves: cast between the mount's two moves "
			    "(it has moved once this turn)");
		break;
	default:
		break;
	}
	*done = 0;
	return REFD_OK;
}

/* A mounted move within the rider's melee full attack: 1 square. */
int
mt_path_ok(const struct st *s, int a, const struct cmd *c, struct why *y)
{
	if (!s->c[a].mounted || !s->m_fam)
		return REFD_OK;
	if (s->sq_moved + c->npath - 1 > 1)
		return rej(y, REFD_EILLEGAL, "R001-58",
		    "%s is making a full melee attack: its mount may move 1 "
		    "square this turn", s->c[a].d.name);
	return REFD_OK;
}

static int
ev_mount(refd_ctx *ctx, struct st *s, const char *type, int a, int m)
{
	refd_mpw *w = refd_mpw_create();

	refd_mpw_map(w);
	refd_mpw_kstr(w, "type", type);
	refd_mpw_kstr(w, "who", s->c[a].d.name);
	refd_mpw_kstr(w, "mount", s->c[m].d.name);
	refd_mpw_karray(w, "at");
	refd_mpw_int(w, s->c[a].x);
	refd_mpw_int(w, s->c[a].y);
	refd_mpw_end(w);
	refd_mpw_end(w);
	return emit_at(ctx, s, a, w);
}

/* The mounted commands. */
int
mt_exec(refd_ctx *ctx, struct st *s, struct cmd *c, int *done)
{
	int a = active(s), rc, ok = 1, m;
	struct cr *A = &s->c[a];

	*done = 1;
	switch (c->t) {
	case C_MOUNT:
	case C_DISMOUNT:
		if (c->fast && (rc = ride_check(ctx, s, a, 20, c->t == C_MOUNT ?
		    "quick mount" : "quick dismount", &ok)) != REFD_OK)
			return rc;
		if (!c->fast || !ok)
			s->mv++;	/* a move action (5.15) */
		if (c->t == C_MOUNT) {
			link(s, a, c->target);
			return (rc = ev_mount(ctx, s, "mount", a, c->target)) !=
			    REFD_OK ? rc : settle(ctx, s);
		}
		m = A->mounted - 1;
		unlink_rider(s, a);
		if (!real_free(s, a, c->x, c->y))	/* an unseen creature */
			(void)spot(s, a, m, 1, &c->x, &c->y);
		A->x = c->x;
		A->y = c->y;
		return (rc = ev_mount(ctx, s, "dismount", a, m)) != REFD_OK ?
		    rc : settle(ctx, s);
	case C_MATTACK: {
		struct weapon w;
		struct atk r;

		m = A->mounted - 1;
		s->m_att = 1;	/* its standard action: one move left */
		melee_weapon(&s->c[m], &w);
		if ((rc = attack(ctx, s, m, c->target, &w, 0, 0, 0, &r)) !=
		    REFD_OK)
			return rc;
		return settle(ctx, s);
	}
	case C_KNEES:
		if ((rc = ride_check(ctx, s, a, 5, "guide with the knees",
		    &ok)) != REFD_OK)
			return rc;
		s->knees = ok ? 1 : 2;
		return settle(ctx, s);
	default:
		*done = 0;
		return REFD_OK;
	}
}

/* After the attacks of opportunity it provokes (1.7): Ride DC 20 to
 * control a frightened mount; failure takes the whole turn. */
int
mt_control(refd_ctx *ctx, struct st *s, int a)
{
	int rc, ok;

	if ((rc = ride_check(ctx, s, a, 20, "control the frightened mount",
	    &ok)) != REFD_OK)
		return rc;
	s->ctl = ok ? 1 : 2;
	if (!ok)
		s->full = 1;	/* the move became the whole turn */
	return REFD_OK;
}

/* The mount charges (its whole turn); rider and mount take -2 AC. */
void
mt_charge(struct st *s, int a)
{
	struct cr *A = &s->c[a];

	s->m_mv = 2;
	s->m_run = 2;
	A->charged = 1;
	s->c[A->mounted - 1].charged = 1;
}

/* The mount runs (its whole turn): it loses its Dex bonus. */
void
mt_run(struct st *s, int a)
{
	s->m_mv = 2;
	s->m_run = 1;
	s->c[s->c[a].mounted - 1].ran = 1;
}

void
mt_attacked(struct st *s, int a, int full, const struct weapon *w)
{
	if (!s->c[a].mounted)
		return;
	if (w->ranged)
		s->m_shot = 1;
	else if (full)
		s->m_fam = 1;
}

/* A mounted cast (5.15): the Concentration DC base it needs, and how
 * the mount may still move. */
void
mt_cast(struct st *s, int a, const struct cmd *c)
{
	s->m_castdc = 0;
	if (!s->c[a].mounted)
		return;
	if (s->m_run == 1) {
		s->m_castdc = 15;	/* after a run of 2 x speed */
		s->m_cast = 1;
	} else if (c->mm) {
		s->m_castdc = 10;	/* moves before and after */
		s->m_cast = 2;
	} else if (s->m_mv >= 2) {
		s->m_castdc = 10;	/* more than its speed before */
		s->m_cast = 1;
	} else {
		s->m_cast = s->m_mv ? 1 : 3;
	}
}

/* Mounted attack modifiers (2.3): ranged -4 / -8 while the mount
 * moves twice / runs; +1 higher ground in melee against an unmounted
 * foe of size Medium or smaller. */
int
mt_atk(const struct st *s, int a, int d, int flags)
{
	const struct cr *A = &s->c[a], *D = &s->c[d];

	if (!A->mounted)
		return 0;
	if (flags & A_RANGED) {
		if (a != active(s))
			return 0;
		if (s->m_run == 1)
			return -8;
		return s->m_mv >= 2 && !s->m_run ? -4 : 0;
	}
	if (!D->mounted && D->d.size <= 0 && !(A->cond & COND_HIGHER))
		return 1;
	return 0;
}

/* The lance doubles the damage on a mounted charge: extra multiplier. */
int
mt_lance(const struct st *s, int a, const struct weapon *w, int flags)
{
	return w->lance && s->c[a].mounted && (flags & A_CHARGE) ? 1 : 0;
}

/* The defender of a trip may use its Ride check when mounted (5.7). */
int
mt_trip_md(const struct st *s, int t, int md)
{
	const struct cr *T = &s->c[t];

	return T->mounted && T->d.ride > md ? T->d.ride : md;
}

static int
ev_fall(refd_ctx *ctx, struct st *s, int r, const char *why, int d100,
    int stayed, int dmg)
{
	refd_mpw *w = refd_mpw_create();

	refd_mpw_map(w);
	refd_mpw_kstr(w, "type", "fall");
	refd_mpw_kstr(w, "who", s->c[r].d.name);
	refd_mpw_kstr(w, "why", why);
	if (d100 > 0)
		refd_mpw_kint(w, "roll", d100);
	refd_mpw_kbool(w, "stayed", stayed);
	if (!stayed) {
		refd_mpw_kint(w, "damage", dmg);
		refd_mpw_karray(w, "at");
		refd_mpw_int(w, s->c[r].x);
		refd_mpw_int(w, s->c[r].y);
		refd_mpw_end(w);
	}
	refd_mpw_end(w);
	return emit_at(ctx, s, r, w);
}

/* r leaves the saddle, lands near its mount; hurt: 1d6 and prone. */
static int
fall_off(refd_ctx *ctx, struct st *s, int r, int m, const char *why,
    int d100, int hurt)
{
	struct cr *R = &s->c[r];
	int rc, dmg = 0, x, y;

	unlink_rider(s, r);
	if (s->k.kind == K_MOVE && s->k.who == r) {
		s->k.n = s->k.pi + 1;	/* the mount's movement ends */
		s->k.mode = MV_MOVE;
	}
	if (spot(s, r, m, 1, &x, &y)) {
		R->x = x;
		R->y = y;
	}
	if (hurt) {
		if ((rc = roll(ctx, 6, "fall", &dmg)) != REFD_OK)
			return rc;
		R->prone = 1;
	}
	if ((rc = ev_fall(ctx, s, r, why, d100, 0, dmg)) != REFD_OK)
		return rc;
	return dmg > 0 ? deal(ctx, s, r, dmg, 0, 0) : REFD_OK;
}

/*
 * Falls (5.15, 5.7): a rider whose mount falls (dead, helpless or
 * prone) makes a Ride check DC 15 or takes 1d6 and lands prone; a rider
 * knocked out stays on d100 <= 50 (75 with a military saddle), else
 * falls and takes 1d6; a rider knocked prone (tripped off) is on foot.
 */
int
mt_falls(refd_ctx *ctx, struct st *s)
{
	int r, m, rc, ok, v;

	for (r = 0; r < s->nc; r++) {
		struct cr *R = &s->c[r], *M;

		if (!R->mounted)
			continue;
		m = R->mounted - 1;
		M = &s->c[m];
		if (R->dead) {
			unlink_rider(s, r);
			continue;
		}
		if (M->dead || !able(M) || helpless(M) || M->prone) {
			ok = 0;
			if (able(R) && (rc = ride_check(ctx, s, r, 15,
			    "soft fall", &ok)) != REFD_OK)
				return rc;
			if ((rc = fall_off(ctx, s, r, m, "the mount fell", 0,
			    !ok)) != REFD_OK)
				return rc;
			continue;
		}
		if (R->prone) {
			if ((rc = fall_off(ctx, s, r, m, "pulled off", 0, 0)) !=
			    REFD_OK)
				return rc;
			R->prone = 1;
			continue;
		}
		if (able(R)) {
			R->kept = 0;
			continue;
		}
		if (R->kept)
			continue;
		if ((rc = roll(ctx, 100, "stay in the saddle", &v)) != REFD_OK)
			return rc;
		if (v <= (M->d.saddle ? 75 : 50)) {
			R->kept = 1;
			if ((rc = ev_fall(ctx, s, r, "knocked out", v, 1, 0)) !=
			    REFD_OK)
				return rc;
			continue;
		}
		if ((rc = fall_off(ctx, s, r, m, "knocked out", v, 1)) !=
		    REFD_OK)
			return rc;
	}
	return REFD_OK;
}

/* A mount has no turn: at the start of each round a fallen one gets up
 * (it threw its rider when it fell), and a dying one rolls after the
 * round it fell in (3.3), d100 1-10 stable, else it loses 1 HP. */
int
mt_round(refd_ctx *ctx, struct st *s)
{
	int m, rc;

	for (m = 0; m < s->nc; m++) {
		struct cr *M = &s->c[m];

		if (M->d.mount && M->prone && acts(M) && !helpless(M)) {
			M->prone = 0;
			if ((rc = ev_simple(ctx, "stand_up", s, m, -1)) !=
			    REFD_OK)
				return rc;
		}
		if (!M->d.mount || M->dead || M->hp >= 0 || M->stable ||
		    s->round <= M->dying_round)
			continue;
		if ((rc = dying_roll(ctx, s, m)) != REFD_OK)
			return rc;
	}
	return REFD_OK;
}
