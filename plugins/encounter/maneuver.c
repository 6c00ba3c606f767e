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
	if (A->d.invisible && T->d.invisible)
		rc = emit_at2(ctx, s, a, t, w);
	else
		rc = emit_at2(ctx, s, A->d.invisible ? a : t, -1, w);
	if (rc != REFD_OK)
		return rc;
	return settle(ctx, s);
}
