/*
 * geom.h - grid geometry of the encounter ruleset (spec sections 0.2, 4.2,
 * 5.0, 5.3, 5.4): distances, the segment test with its square, edge and
 * vertex rules, the charge lane and the flanking line.  Integer only.
 */
#ifndef ENC_GEOM_H
#define ENC_GEOM_H

/* Map features seen by the segment test: callbacks answer for one square
 * (x, y) or one unit edge starting at lattice point (x, y), horizontal
 * (h = 1: to (x+1, y)) or vertical (h = 0: to (x, y+1)). */
struct g_feat {
	int (*sq)(const void *u, int x, int y);
	int (*edge)(const void *u, int x, int y, int h);
	/* Squares used by the square rule only (creatures as soft cover). */
	int (*soft)(const void *u, int x, int y);
	const void *u;
};

/* Grid distance for offsets dx, dy (1-2 diagonal rule). */
int g_dist(int dx, int dy);

/* Distance between two square spaces: (ax, ay) side as, (bx, by) side bs. */
int g_space_dist(int ax, int ay, int as, int bx, int by, int bs);

/* Closed segment a-b meets the open rectangle (x0,y0)-(x1,y1). */
int g_seg_open_rect(long ax, long ay, long bx, long by, long x0, long y0,
    long x1, long y1);

/* Closed segments a-b and c-d intersect. */
int g_seg_seg(long ax, long ay, long bx, long by, long cx, long cy, long dx,
    long dy);

/*
 * The segment from lattice point a to lattice point b is obstructed by the
 * features f (spec 5.0).  (qa_x, qa_y) is the square whose corner a is
 * (the attacker's own quadrant), likewise qb for b.
 */
int g_obstructed(const struct g_feat *f, int ax, int ay, int bx, int by,
    int qax, int qay, int qbx, int qby);

/*
 * Charge lane (D001-30, hull): square (x, y) meets the convex hull of the
 * start space (sx, sy) and the end space (ex, ey), both of side n.
 */
int g_hull_meets(int sx, int sy, int ex, int ey, int n, int x, int y);

/*
 * Squares crossed (open interiors met) by the segment between the centres
 * of squares (sx, sy) and (ex, ey), in order from the start, excluding
 * both ends.  Returns the count written to xs/ys (at most max).
 */
int g_centre_line(int sx, int sy, int ex, int ey, int *xs, int *ys,
    int max);

/*
 * Flanking (5.4): the segment between the centres of squares a and b
 * passes through the defender's space (dx, dy, side n) entering and
 * leaving by opposite sides (a corner lies on both sides meeting there).
 */
int g_flanks(int ax, int ay, int bx, int by, int dx, int dy, int n);

#endif
