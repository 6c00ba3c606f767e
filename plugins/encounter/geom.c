/*
 * geom.c - grid geometry of the encounter ruleset: see geom.h.
 *
 * Everything is exact integer arithmetic on lattice points; callers that
 * need square centres scale coordinates by 2 first.
 */
#include <stddef.h>

#include "geom.h"

static long
labs_(long v)
{
	return v < 0 ? -v : v;
}

int
g_dist(int dx, int dy)
{
	int a = dx < 0 ? -dx : dx, b = dy < 0 ? -dy : dy;

	return a > b ? a + b / 2 : b + a / 2;
}

static int
gap(int a, int as, int b, int bs)
{
	if (b > a + as - 1)
		return b - (a + as - 1);
	if (a > b + bs - 1)
		return a - (b + bs - 1);
	return 0;
}

int
g_space_dist(int ax, int ay, int as, int bx, int by, int bs)
{
	return g_dist(gap(ax, as, bx, bs), gap(ay, as, by, bs));
}

int
g_seg_open_rect(long ax, long ay, long bx, long by, long x0, long y0,
    long x1, long y1)
{
	long nx, ny, c, p, lo, hi;
	long cx[4], cy[4];
	int i;

	if ((ax < bx ? ax : bx) >= x1 || (ax > bx ? ax : bx) <= x0)
		return 0;
	if ((ay < by ? ay : by) >= y1 || (ay > by ? ay : by) <= y0)
		return 0;
	if (ax == bx && ay == by)
		return 1;
	nx = -(by - ay);
	ny = bx - ax;
	c = nx * ax + ny * ay;
	cx[0] = x0; cy[0] = y0;
	cx[1] = x1; cy[1] = y0;
	cx[2] = x0; cy[2] = y1;
	cx[3] = x1; cy[3] = y1;
	lo = hi = nx * cx[0] + ny * cy[0];
	for (i = 1; i < 4; i++) {
		p = nx * cx[i] + ny * cy[i];
		if (p < lo)
			lo = p;
		if (p > hi)
			hi = p;
	}
	return lo < c && c < hi;
}

static long
orient(long ax, long ay, long bx, long by, long cx, long cy)
{
	long v = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);

	return v > 0 ? 1 : (v < 0 ? -1 : 0);
}

static int
on_seg(long ax, long ay, long bx, long by, long px, long py)
{
	return orient(ax, ay, bx, by, px, py) == 0 &&
	    px >= (ax < bx ? ax : bx) && px <= (ax > bx ? ax : bx) &&
	    py >= (ay < by ? ay : by) && py <= (ay > by ? ay : by);
}

int
g_seg_seg(long ax, long ay, long bx, long by, long cx, long cy, long dx,
    long dy)
{
	long o1 = orient(ax, ay, bx, by, cx, cy);
	long o2 = orient(ax, ay, bx, by, dx, dy);
	long o3 = orient(cx, cy, dx, dy, ax, ay);
	long o4 = orient(cx, cy, dx, dy, bx, by);

	if (o1 != o2 && o3 != o4 && o1 != 0 && o2 != 0 && o3 != 0 && o4 != 0)
		return 1;
	if (on_seg(ax, ay, bx, by, cx, cy) || on_seg(ax, ay, bx, by, dx, dy) ||
	    on_seg(cx, cy, dx, dy, ax, ay) || on_seg(cx, cy, dx, dy, bx, by))
		return 1;
	return o1 * o2 < 0 && o3 * o4 < 0;
}

/* Segment a-b meets edge e1-e2 at a point other than e1 and e2. */
static int
edge_hit(long ax, long ay, long bx, long by, long e1x, long e1y, long e2x,
    long e2y)
{
	long lo, hi, p, q;

	if (!g_seg_seg(ax, ay, bx, by, e1x, e1y, e2x, e2y))
		return 0;
	if (orient(ax, ay, bx, by, e1x, e1y) == 0 &&
	    orient(ax, ay, bx, by, e2x, e2y) == 0) {
		/* Collinear: obstructed when the overlap has a length. */
		if (e1x != e2x) {
			lo = ax < bx ? ax : bx;
			hi = ax > bx ? ax : bx;
			p = e1x < e2x ? e1x : e2x;
			q = e1x > e2x ? e1x : e2x;
		} else {
			lo = ay < by ? ay : by;
			hi = ay > by ? ay : by;
			p = e1y < e2y ? e1y : e2y;
			q = e1y > e2y ? e1y : e2y;
		}
		return (hi < q ? hi : q) > (lo > p ? lo : p);
	}
	return !on_seg(ax, ay, bx, by, e1x, e1y) &&
	    !on_seg(ax, ay, bx, by, e2x, e2y);
}

/* Slot of a direction around a lattice point: 0 E, 1 SE quadrant, 2 S,
 * 3 SW, 4 W, 5 NW, 6 N, 7 NE (y grows south). */
static int
dslot(long dx, long dy)
{
	if (dy == 0)
		return dx > 0 ? 0 : 4;
	if (dx == 0)
		return dy > 0 ? 2 : 6;
	if (dx > 0)
		return dy > 0 ? 1 : 7;
	return dy > 0 ? 3 : 5;
}

static void
mark_slots(const struct g_feat *f, int vx, int vy, int m[8])
{
	m[0] = f->edge != NULL && f->edge(f->u, vx, vy, 1);
	m[1] = f->sq != NULL && f->sq(f->u, vx, vy);
	m[2] = f->edge != NULL && f->edge(f->u, vx, vy, 0);
	m[3] = f->sq != NULL && f->sq(f->u, vx - 1, vy);
	m[4] = f->edge != NULL && f->edge(f->u, vx - 1, vy, 1);
	m[5] = f->sq != NULL && f->sq(f->u, vx - 1, vy - 1);
	m[6] = f->edge != NULL && f->edge(f->u, vx, vy - 1, 0);
	m[7] = f->sq != NULL && f->sq(f->u, vx, vy - 1);
}

static int
end_blocked(const int m[8], int q, int s)
{
	int i, a = 0, b = 0;

	if (s == q || s == (q + 1) % 8 || s == (q + 7) % 8)
		return 0;
	for (i = (q + 1) % 8; i != s; i = (i + 1) % 8)
		a |= m[i];
	for (i = (q + 7) % 8; i != s; i = (i + 7) % 8)
		b |= m[i];
	return a && b;
}

static long
gcd(long a, long b)
{
	while (b != 0) {
		long t = a % b;

		a = b;
		b = t;
	}
	return a;
}

int
g_obstructed(const struct g_feat *f, int ax, int ay, int bx, int by,
    int qax, int qay, int qbx, int qby)
{
	long dx = bx - ax, dy = by - ay, g, k, sx, sy;
	int x, y, x0, y0, x1, y1, m[8], d, i, s1, s2;

	if (dx == 0 && dy == 0)
		return 1;	/* not a line */
	x0 = (ax < bx ? ax : bx) - 1;
	x1 = (ax > bx ? ax : bx) + 1;
	y0 = (ay < by ? ay : by) - 1;
	y1 = (ay > by ? ay : by) + 1;
	/* Square rule. */
	for (y = y0; y <= y1; y++)
		for (x = x0; x <= x1; x++)
			if (((f->sq != NULL && f->sq(f->u, x, y)) ||
			    (f->soft != NULL && f->soft(f->u, x, y))) &&
			    g_seg_open_rect(ax, ay, bx, by, x, y, x + 1, y + 1))
				return 1;
	/* Edge rule. */
	if (f->edge != NULL)
		for (y = y0; y <= y1; y++)
			for (x = x0; x <= x1; x++) {
				if (f->edge(f->u, x, y, 1) && edge_hit(ax, ay,
				    bx, by, x, y, x + 1, y))
					return 1;
				if (f->edge(f->u, x, y, 0) && edge_hit(ax, ay,
				    bx, by, x, y, x, y + 1))
					return 1;
			}
	/* Vertex rule. */
	g = gcd(labs_(dx), labs_(dy));
	sx = dx / g;
	sy = dy / g;
	for (k = 0; k <= g; k++) {
		int vx = (int)(ax + k * sx), vy = (int)(ay + k * sy);

		mark_slots(f, vx, vy, m);
		if (k == 0) {
			if (end_blocked(m, dslot(qax >= ax ? 1 : -1,
			    qay >= ay ? 1 : -1), dslot(dx, dy)))
				return 1;
		} else if (k == g) {
			if (end_blocked(m, dslot(qbx >= bx ? 1 : -1,
			    qby >= by ? 1 : -1), dslot(-dx, -dy)))
				return 1;
		} else {
			d = dslot(dx, dy);
			s1 = s2 = 0;
			for (i = 1; i <= 3; i++) {
				s1 |= m[(d + i) % 8];
				s2 |= m[(d + 4 + i) % 8];
			}
			if (s1 && s2)
				return 1;
		}
	}
	return 0;
}

int
g_hull_meets(int sx, int sy, int ex, int ey, int n, int x, int y)
{
	long vx = ex - sx, vy = ey - sy, nx = -vy, ny = vx;
	long lo, hi, p, plo, phi;
	int i, j;

	if ((sx < ex ? sx : ex) >= x + 1 || (sx > ex ? sx : ex) + n <= x)
		return 0;
	if ((sy < ey ? sy : ey) >= y + 1 || (sy > ey ? sy : ey) + n <= y)
		return 0;
	if (vx == 0 && vy == 0)
		return 1;
	lo = hi = nx * sx + ny * sy;
	plo = phi = nx * x + ny * y;
	for (i = 0; i <= 1; i++)
		for (j = 0; j <= 1; j++) {
			p = nx * (sx + i * n) + ny * (sy + j * n);
			if (p < lo)
				lo = p;
			if (p > hi)
				hi = p;
			p = nx * (x + i) + ny * (y + j);
			if (p < plo)
				plo = p;
			if (p > phi)
				phi = p;
		}
	return plo < hi && lo < phi;
}

int
g_centre_line(int sx, int sy, int ex, int ey, int *xs, int *ys, int max)
{
	long ax = 2 * sx + 1, ay = 2 * sy + 1, bx = 2 * ex + 1, by = 2 * ey + 1;
	long key[256], t;
	int x, y, n = 0, i, j, tx, ty;

	for (y = (sy < ey ? sy : ey); y <= (sy > ey ? sy : ey); y++)
		for (x = (sx < ex ? sx : ex); x <= (sx > ex ? sx : ex); x++) {
			if ((x == sx && y == sy) || (x == ex && y == ey))
				continue;
			if (!g_seg_open_rect(ax, ay, bx, by, 2 * x, 2 * y,
			    2 * x + 2, 2 * y + 2))
				continue;
			if (n >= max || n >= 256)
				return n;
			xs[n] = x;
			ys[n] = y;
			key[n] = (2 * x + 1 - ax) * (bx - ax) +
			    (2 * y + 1 - ay) * (by - ay);
			n++;
		}
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && key[j - 1] > key[j]; j--) {
			t = key[j]; key[j] = key[j - 1]; key[j - 1] = t;
			tx = xs[j]; xs[j] = xs[j - 1]; xs[j - 1] = tx;
			ty = ys[j]; ys[j] = ys[j - 1]; ys[j - 1] = ty;
		}
	return n;
}

int
g_flanks(int ax, int ay, int bx, int by, int dx, int dy, int n)
{
	long px = 2 * ax + 1, py = 2 * ay + 1, qx = 2 * bx + 1, qy = 2 * by + 1;
	long x0 = 2 * dx, y0 = 2 * dy, x1 = 2 * (dx + n), y1 = 2 * (dy + n);
	int w, e, no, so;

	if (!g_seg_open_rect(px, py, qx, qy, x0, y0, x1, y1))
		return 0;
	w = g_seg_seg(px, py, qx, qy, x0, y0, x0, y1);
	e = g_seg_seg(px, py, qx, qy, x1, y0, x1, y1);
	no = g_seg_seg(px, py, qx, qy, x0, y0, x1, y0);
	so = g_seg_seg(px, py, qx, qy, x0, y1, x1, y1);
	return (w && e) || (no && so);
}
