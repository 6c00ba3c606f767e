/*
 * geom.c - the grid of the warband ruleset: wall-legal steps, adjacency,
 * distance around walls, line of sight and cover (spec 4.1, 5.4), all in
 * integer arithmetic.
 */
#include <stdlib.h>

#include "warband.h"

#define EI(x, y) ((y) * (MAXW + 1) + (x))

int
usize(const struct content *c, const struct unit *u)
{
	return c->cd[u->def].size;
}

int
sq_valid(const struct state *s, int x, int y)
{
	return x >= 0 && y >= 0 && x < s->w && y < s->h &&
	    !(s->flags[y * MAXW + x] & SQ_WALL);
}

static int
wallsq(const struct state *s, int x, int y)
{
	return x >= 0 && y >= 0 && x < s->w && y < s->h &&
	    (s->flags[y * MAXW + x] & SQ_WALL);
}

/* Effective wall on edge (x,y)-(x+1,y). */
static int
hwall(const struct state *s, int x, int y)
{
	if (x < 0 || x >= s->w || y < 0 || y > s->h)
		return 0;
	if (y == 0 || y == s->h)
		return 1;
	return s->hw[EI(x, y)] || wallsq(s, x, y) || wallsq(s, x, y - 1);
}

/* Effective wall on edge (x,y)-(x,y+1). */
static int
vwall(const struct state *s, int x, int y)
{
	if (y < 0 || y >= s->h || x < 0 || x > s->w)
		return 0;
	if (x == 0 || x == s->w)
		return 1;
	return s->vw[EI(x, y)] || wallsq(s, x, y) || wallsq(s, x - 1, y);
}

static int
corner_walled(const struct state *s, int cx, int cy)
{
	return hwall(s, cx, cy) || hwall(s, cx - 1, cy) || vwall(s, cx, cy) ||
	    vwall(s, cx, cy - 1);
}

/* One king step a -> b that no wall forbids (spec 4.1). */
int
step_ok(const struct state *s, int ax, int ay, int bx, int by)
{
	int dx = bx - ax, dy = by - ay;

	if (!sq_valid(s, bx, by) || abs(dx) > 1 || abs(dy) > 1 ||
	    (dx == 0 && dy == 0))
		return 0;
	if (dy == 0)
		return !vwall(s, dx > 0 ? bx : ax, ay);
	if (dx == 0)
		return !hwall(s, ax, dy > 0 ? by : ay);
	return !corner_walled(s, ax > bx ? ax : bx, ay > by ? ay : by);
}

/* The same step for every square of a size x size footprint. */
int
fp_step_ok(const struct state *s, int size, int ax, int ay, int bx, int by)
{
	int i, j;

	for (j = 0; j < size; j++)
		for (i = 0; i < size; i++)
			if (!step_ok(s, ax + i, ay + j, bx + i, by + j))
				return 0;
	/* A footprint never straddles a wall edge (A22). */
	for (j = 0; j < size; j++)
		for (i = 0; i < size; i++) {
			if (i + 1 < size && vwall(s, bx + i + 1, by + j))
				return 0;
			if (j + 1 < size && hwall(s, bx + i, by + j + 1))
				return 0;
		}
	return 1;
}

int
unit_at(const struct state *s, const struct content *c, int x, int y)
{
	int i;

	for (i = 0; i < s->nunits; i++) {
		const struct unit *u = &s->u[i];
		int z = usize(c, u);

		if (u->alive && x >= u->x && x < u->x + z && y >= u->y &&
		    y < u->y + z)
			return i + 1;
	}
	return 0;
}

int
adjacent(const struct state *s, const struct content *c,
    const struct unit *a, const struct unit *b)
{
	int za = usize(c, a), zb = usize(c, b);

	(void)s;
	/* Chebyshev distance 1 between the two footprints. */
	return a->x <= b->x + zb && b->x <= a->x + za && a->y <= b->y + zb &&
	    b->y <= a->y + za && !(a->x < b->x + zb && b->x < a->x + za &&
	    a->y < b->y + zb && b->y < a->y + za);
}

/* Melee reach: some pair of squares joined by a wall-legal step (A12). */
int
melee_reach(const struct state *s, const struct content *c,
    const struct unit *a, const struct unit *t)
{
	int za = usize(c, a), zt = usize(c, t), i, j, k, l;

	for (i = 0; i < za; i++)
		for (j = 0; j < za; j++)
			for (k = 0; k < zt; k++)
				for (l = 0; l < zt; l++) {
					int ax = a->x + i, ay = a->y + j;
					int tx = t->x + k, ty = t->y + l;

					if (abs(ax - tx) <= 1 &&
					    abs(ay - ty) <= 1 &&
					    step_ok(s, ax, ay, tx, ty))
						return 1;
				}
	return 0;
}

/* Squares counted through walls (effects that need no line of sight):
 * the Chebyshev distance between the nearest squares (R004-48). */
int
cheb_dist(const struct content *c, const struct unit *a,
    const struct unit *t)
{
	int za = usize(c, a), zt = usize(c, t), dx, dy;

	dx = t->x > a->x + za - 1 ? t->x - (a->x + za - 1) :
	    (a->x > t->x + zt - 1 ? a->x - (t->x + zt - 1) : 0);
	dy = t->y > a->y + za - 1 ? t->y - (a->y + za - 1) :
	    (a->y > t->y + zt - 1 ? a->y - (t->y + zt - 1) : 0);
	return dx > dy ? dx : dy;
}

/* Steps around walls from a's squares to the nearest square of t. */
int
wall_dist(const struct state *s, const struct content *c,
    const struct unit *a, const struct unit *t)
{
	int d[MAXSQ], qu[MAXSQ], qh = 0, qt = 0, i, j, za = usize(c, a),
	    zt = usize(c, t);

	for (i = 0; i < MAXSQ; i++)
		d[i] = -1;
	for (i = 0; i < za; i++)
		for (j = 0; j < za; j++) {
			int p = (a->y + j) * MAXW + a->x + i;

			d[p] = 0;
			qu[qt++] = p;
		}
	while (qh < qt) {
		int p = qu[qh++], x = p % MAXW, y = p / MAXW, dx, dy;

		if (x >= t->x && x < t->x + zt && y >= t->y && y < t->y + zt)
			return d[p];
		for (dy = -1; dy <= 1; dy++)
			for (dx = -1; dx <= 1; dx++) {
				int q;

				if (!step_ok(s, x, y, x + dx, y + dy))
					continue;
				q = (y + dy) * MAXW + x + dx;
				if (d[q] < 0) {
					d[q] = d[p] + 1;
					qu[qt++] = q;
				}
			}
	}
	return 1000;
}

/* Is lattice point (px,py) on the wall edge starting at (ex,ey)? */
static int
on_edge(int px, int py, int ex, int ey, int horiz)
{
	if (horiz)
		return py == ey && px >= ex && px <= ex + 1;
	return px == ex && py >= ey && py <= ey + 1;
}

static long long
cross(long long ax, long long ay, long long bx, long long by, long long cx,
    long long cy)
{
	return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
}

static int
sgn(long long v)
{
	return v > 0 ? 1 : (v < 0 ? -1 : 0);
}

/* Does segment P-Q meet wall edge E (not only at P or Q)?  Rule 1. */
static int
hits_edge(int px, int py, int qx, int qy, int ex, int ey, int horiz)
{
	int fx = ex + (horiz ? 1 : 0), fy = ey + (horiz ? 0 : 1);
	int d1 = sgn(cross(px, py, qx, qy, ex, ey));
	int d2 = sgn(cross(px, py, qx, qy, fx, fy));
	int d3 = sgn(cross(ex, ey, fx, fy, px, py));
	int d4 = sgn(cross(ex, ey, fx, fy, qx, qy));

	if (d1 == 0 && d2 == 0) {
		/* Collinear: blocked iff the overlap has a length. */
		if (horiz) {
			int lo = px < qx ? px : qx, hi = px < qx ? qx : px;

			return (lo > ex ? lo : ex) < (hi < fx ? hi : fx);
		} else {
			int lo = py < qy ? py : qy, hi = py < qy ? qy : py;

			return (lo > ey ? lo : ey) < (hi < fy ? hi : fy);
		}
	}
	if (d1 * d2 > 0 || d3 * d4 > 0)
		return 0;
	/* They meet at one point: fine only when it is P or Q. */
	if (on_edge(px, py, ex, ey, horiz) || on_edge(qx, qy, ex, ey, horiz))
		return 0;
	return 1;
}

/* Rule 2: the direction (dx,dy) leaving corner P of square (sx,sy) stays
 * in that square's open sector around P. */
static int
sector_ok(const struct state *s, int px, int py, int sx, int sy, int dx,
    int dy)
{
	/* Quadrants 0:(+x,+y) 1:(-x,+y) 2:(-x,-y) 3:(+x,-y); ray r lies
	 * between quadrant r and r+1: 0:+y 1:-x 2:-y 3:+x. */
	int ray[4], open[4] = { 0, 0, 0, 0 }, q0, q, k, any = 0;

	ray[0] = vwall(s, px, py);
	ray[1] = hwall(s, px - 1, py);
	ray[2] = vwall(s, px, py - 1);
	ray[3] = hwall(s, px, py);
	for (k = 0; k < 4; k++)
		any |= ray[k];
	if (sx == px && sy == py)
		q0 = 0;
	else if (sx == px - 1 && sy == py)
		q0 = 1;
	else if (sx == px - 1)
		q0 = 2;
	else
		q0 = 3;
	open[q0] = 1;
	if (!any) {
		open[0] = open[1] = open[2] = open[3] = 1;
	} else {
		for (q = q0; !ray[q]; q = (q + 1) % 4)
			open[(q + 1) % 4] = 1;
		for (q = q0; !ray[(q + 3) % 4]; q = (q + 3) % 4)
			open[(q + 3) % 4] = 1;
	}
	if (dx != 0 && dy != 0) {
		q = dx > 0 ? (dy > 0 ? 0 : 3) : (dy > 0 ? 1 : 2);
		return open[q];
	}
	if (dx == 0 && dy == 0)
		return 0;
	/* Along an axis: both neighbouring quadrants open, ray not a wall. */
	k = dy > 0 ? 0 : (dx < 0 ? 1 : (dy < 0 ? 2 : 3));
	return !ray[k] && open[k] && open[(k + 1) % 4];
}

/* Is square (x,y) a soft blocker for a line from attacker to target? */
static int
blocker(const struct state *s, const struct content *c, int attacker,
    int target, int x, int y)
{
	int id;

	if (x < 0 || y < 0 || x >= s->w || y >= s->h)
		return 1;
	if (s->flags[y * MAXW + x] & (SQ_WALL | SQ_OBST))
		return 1;
	id = unit_at(s, c, x, y);
	if (id == 0 || id == attacker || id == target)
		return 0;
	return ENEMY(s, s->u[id - 1].ctrl, s->u[attacker - 1].ctrl);
}

static int
in_unit(const struct state *s, const struct content *c, int id, int x,
    int y)
{
	const struct unit *u = &s->u[id - 1];
	int z = usize(c, u);

	return x >= u->x && x < u->x + z && y >= u->y && y < u->y + z;
}

static int
cmpint(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

/* Segment from corner P of attacker square A to corner Q of square T. */
static int
clear_seg(const struct state *s, const struct content *c, int attacker,
    int target, int px, int py, int ax, int ay, int qx, int qy, int tx,
    int ty)
{
	int dx = qx - px, dy = qy - py, x, y, i;
	int x0 = px < qx ? px : qx, x1 = px < qx ? qx : px;
	int y0 = py < qy ? py : qy, y1 = py < qy ? qy : py;
	long long N, br[2 * MAXW + 4], S;
	int nb = 0;

	if (dx == 0 && dy == 0)
		return 0;
	/* Rule 1: walls. */
	for (y = y0; y <= y1; y++)
		for (x = x0 - 1; x <= x1; x++)
			if (hwall(s, x, y) && hits_edge(px, py, qx, qy, x, y,
			    1))
				return 0;
	for (y = y0 - 1; y <= y1; y++)
		for (x = x0; x <= x1; x++)
			if (vwall(s, x, y) && hits_edge(px, py, qx, qy, x, y,
			    0))
				return 0;
	/* Rule 2: endpoint sectors. */
	if (!sector_ok(s, px, py, ax, ay, dx, dy) ||
	    !sector_ok(s, qx, qy, tx, ty, -dx, -dy))
		return 0;
	/* Rule 3: soft blockers, tested at the middle of every piece. */
	N = (long long)(dx ? abs(dx) : 1) * (dy ? abs(dy) : 1);
	for (i = 0; i <= abs(dx); i++)
		br[nb++] = dx ? (long long)i * (N / abs(dx)) : 0;
	for (i = 0; i <= abs(dy); i++)
		br[nb++] = dy ? (long long)i * (N / abs(dy)) : 0;
	br[nb++] = N;
	qsort(br, (size_t)nb, sizeof(br[0]), cmpint);
	S = 2 * N;
	for (i = 0; i + 1 < nb; i++) {
		long long X2, Y2, mx, my;
		int gx, gy, b;

		if (br[i] == br[i + 1])
			continue;
		X2 = S * px + (br[i] + br[i + 1]) * dx;
		Y2 = S * py + (br[i] + br[i + 1]) * dy;
		gx = X2 % S == 0;
		gy = Y2 % S == 0;
		mx = X2 / S;
		my = Y2 / S;
		if (gx && gy)
			continue;
		if (gx) {
			int ok1 = !in_unit(s, c, attacker, (int)mx - 1,
			    (int)my) && !in_unit(s, c, target, (int)mx - 1,
			    (int)my) && blocker(s, c, attacker, target,
			    (int)mx - 1, (int)my);
			int ok2 = !in_unit(s, c, attacker, (int)mx, (int)my) &&
			    !in_unit(s, c, target, (int)mx, (int)my) &&
			    blocker(s, c, attacker, target, (int)mx, (int)my);

			b = ok1 && ok2;
		} else if (gy) {
			int ok1 = !in_unit(s, c, attacker, (int)mx,
			    (int)my - 1) && !in_unit(s, c, target, (int)mx,
			    (int)my - 1) && blocker(s, c, attacker, target,
			    (int)mx, (int)my - 1);
			int ok2 = !in_unit(s, c, attacker, (int)mx, (int)my) &&
			    !in_unit(s, c, target, (int)mx, (int)my) &&
			    blocker(s, c, attacker, target, (int)mx, (int)my);

			b = ok1 && ok2;
		} else {
			b = !in_unit(s, c, attacker, (int)mx, (int)my) &&
			    !in_unit(s, c, target, (int)mx, (int)my) &&
			    blocker(s, c, attacker, target, (int)mx, (int)my);
		}
		if (b)
			return 0;
	}
	return 1;
}

static const int CX[4] = { 0, 1, 0, 1 }, CY[4] = { 0, 0, 1, 1 };

int
los(const struct state *s, const struct content *c, int attacker,
    int target)
{
	const struct unit *a = &s->u[attacker - 1], *t = &s->u[target - 1];
	int za = usize(c, a), zt = usize(c, t), i, j, k, l, p, q;

	for (i = 0; i < za; i++)
		for (j = 0; j < za; j++)
			for (k = 0; k < zt; k++)
				for (l = 0; l < zt; l++)
					for (p = 0; p < 4; p++)
						for (q = 0; q < 4; q++)
							if (clear_seg(s, c,
							    attacker, target,
							    a->x + i + CX[p],
							    a->y + j + CY[p],
							    a->x + i, a->y + j,
							    t->x + k + CX[q],
							    t->y + l + CY[q],
							    t->x + k,
							    t->y + l))
								return 1;
	return 0;
}

int
has_cover(const struct state *s, const struct content *c, int attacker,
    int target)
{
	const struct unit *a = &s->u[attacker - 1], *t = &s->u[target - 1];
	int za = usize(c, a), zt = usize(c, t), i, j, k, l, p, q;

	for (i = 0; i < za; i++)
		for (j = 0; j < za; j++)
			for (k = 0; k < zt; k++)
				for (l = 0; l < zt; l++) {
					int tx = t->x + k, ty = t->y + l;

					if (s->flags[ty * MAXW + tx] & SQ_OBST)
						continue;
					for (p = 0; p < 4; p++) {
						for (q = 0; q < 4; q++)
							if (!clear_seg(s, c,
							    attacker, target,
							    a->x + i + CX[p],
							    a->y + j + CY[p],
							    a->x + i, a->y + j,
							    tx + CX[q],
							    ty + CY[q], tx,
							    ty))
								break;
						if (q == 4)
							return 0;
					}
				}
	return 1;
}
