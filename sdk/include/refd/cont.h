/*
 * refd/cont.h - continuous table measurement in integer fixed point.
 *
 * Part of the SDK helper library (librefdsdk.a).  Lengths are integers in
 * any fixed unit the ruleset picks (e.g. 1/1000 inch); no floating point
 * is used anywhere.  Bases are circles (centre, radius).  Every predicate
 * is exact: squared distances are compared in 64-bit (128-bit where a
 * product can overflow), square roots are integer square roots with a
 * stated rounding direction.
 *
 * Conventions:
 *  - "within D" is edge to edge and inclusive: d2 <= (D + ra + rb)^2;
 *  - seg_len rounds UP, so a path never gains length through rounding;
 *  - point_along truncates toward zero, so the point is never farther
 *    than asked;
 *  - a facing is an integer vector (fx, fy) != (0, 0); the front arc is
 *    the closed half plane dot(F, P - C) >= 0.
 *
 * This header compiles alone as C99 and C++.
 */
#ifndef REFD_CONT_H
#define REFD_CONT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cont_pt {
	int64_t x, y;
} cont_pt;

/* Squared distance between two points. */
int64_t cont_d2(cont_pt a, cont_pt b);
/* floor(sqrt(n)) and ceil(sqrt(n)). */
uint64_t cont_isqrt_floor(uint64_t n);
uint64_t cont_isqrt_ceil(uint64_t n);
/* Length of a segment, rounded up. */
int64_t cont_seg_len(cont_pt p, cont_pt q);
/* Sum of rounded-up segment lengths of a polyline of n points. */
int64_t cont_path_len(const cont_pt *p, int n);
/* Edge-to-edge distance between two bases, rounded up, 0 if touching or
 * overlapping (for messages). */
int64_t cont_edge_dist(cont_pt a, int64_t ra, cont_pt b, int64_t rb);

/* B (radius rb) is within d of A (radius ra), edge to edge, inclusive. */
int cont_within(cont_pt a, int64_t ra, cont_pt b, int64_t rb, int64_t d);
/* Point p is within d of A's base edge. */
int cont_point_within(cont_pt p, cont_pt a, int64_t ra, int64_t d);
/* All of B's base is within d of A's base edge. */
int cont_completely_within(cont_pt a, int64_t ra, cont_pt b, int64_t rb,
    int64_t d);
/* Bases overlap (touching is not overlapping). */
int cont_overlap(cont_pt a, int64_t ra, cont_pt b, int64_t rb);
/* Bases touch: (ra+rb)^2 <= d2 <= (ra+rb+tol)^2. */
int cont_b2b(cont_pt a, int64_t ra, cont_pt b, int64_t rb, int64_t tol);

/* Point at distance d from a toward b (truncated toward zero); a if a==b. */
cont_pt cont_point_along(cont_pt a, cont_pt b, int64_t d);
/* Segment pq passes strictly inside the disc (c, r). */
int cont_seg_passes_over(cont_pt p, cont_pt q, cont_pt c, int64_t r);

/* Facing: p is in the front arc of a model at c facing f (boundary in). */
int cont_in_front_point(cont_pt c, cont_pt f, cont_pt p);
/* Any part of base (t, rt) is in the front arc of (a, f). */
int cont_partly_in_front(cont_pt a, cont_pt f, cont_pt t, int64_t rt);
/* All of base (t, rt) is in the back arc of (a, f). */
int cont_completely_in_back(cont_pt a, cont_pt f, cont_pt t, int64_t rt);
/* Reduce a facing vector by its gcd; (0,0) stays (0,0). */
cont_pt cont_facing_reduce(cont_pt f);

/* Moving p0 -> p1: centre distance to c never increases / decreases. */
int cont_toward(cont_pt p0, cont_pt p1, cont_pt c);
int cont_not_toward(cont_pt p0, cont_pt p1, cont_pt c);

/* Line-of-sight sample i (0: the centre, 1..16: perimeter points at
 * radius r-1, counter-clockwise from +x) of a base (t, r). */
#define CONT_NSAMPLES 17
cont_pt cont_sample(cont_pt t, int64_t r, int i);

/*
 * Deviation: from the nominal point n, along the line origin -> n rotated
 * by (dir - 1) * 60 degrees clockwise (dir 1..6), by dist.  Integer
 * rotation table (x1e6), truncating division.  If origin == n, direction
 * 1 is +y.
 */
cont_pt cont_deviate(cont_pt origin, cont_pt n, int dir, int64_t dist);

/* Clamp a point into [0, w] x [0, h]. */
cont_pt cont_clamp(cont_pt p, int64_t w, int64_t h);

#ifdef __cplusplus
}
#endif

#endif /* REFD_CONT_H */
