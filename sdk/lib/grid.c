/*
 * grid.c - square-grid geometry (see refd/grid.h).  Integer only.
 */
#include <stdlib.h>
#include <string.h>

#include "refd/grid.h"

static int
iabs(int v)
{
	return v < 0 ? -v : v;
}

static int
imin(int a, int b)
{
	return a < b ? a : b;
}

static int
imax(int a, int b)
{
	return a > b ? a : b;
}

unsigned
grid_at(const struct grid *g, int x, int y)
{
	if (x < 0 || y < 0 || x >= g->w || y >= g->h)
		return GRID_WALL;
	return g->flags[y * g->w + x];
}

int
grid_is_wall(const struct grid *g, int x, int y)
{
	return (grid_at(g, x, y) & GRID_WALL) != 0;
}

int
grid_dist(int x1, int y1, int x2, int y2)
{
	int dx = iabs(x1 - x2), dy = iabs(y1 - y2);

	return imax(dx, dy) + imin(dx, dy) / 2;
}

/* Offset along one axis between [a, a+as) and [b, b+bs) (0 if they
 * overlap). */
static int
gap(int a, int as, int b, int bs)
{
	if (a + as - 1 < b)
		return b - (a + as - 1);
	if (b + bs - 1 < a)
		return a - (b + bs - 1);
	return 0;
}

int
grid_space_dist(const struct grid_space *a, const struct grid_space *b)
{
	int dx = gap(a->x, a->s, b->x, b->s), dy = gap(a->y, a->s, b->y, b->s);

	return imax(dx, dy) + imin(dx, dy) / 2;
}

int
grid_sq_adjacent(const struct grid *g, int x1, int y1, int x2, int y2)
{
	int dx = x2 - x1, dy = y2 - y1;

	if (iabs(dx) > 1 || iabs(dy) > 1 || (dx == 0 && dy == 0))
		return 0;
	if (dx != 0 && dy != 0 && grid_is_wall(g, x1 + dx, y1) &&
	    grid_is_wall(g, x1, y1 + dy))
		return 0;
	return 1;
}

int
grid_adjacent(const struct grid *g, const struct grid_space *a,
    const struct grid_space *b)
{
	int i, j, k, l;

	if (grid_space_dist(a, b) != 1)
		return 0;
	for (i = 0; i < a->s; i++)
		for (j = 0; j < a->s; j++)
			for (k = 0; k < b->s; k++)
				for (l = 0; l < b->s; l++)
					if (grid_sq_adjacent(g, a->x + i,
					    a->y + j, b->x + k, b->y + l))
						return 1;
	return 0;
}

/*
 * Closed segment [p, q] against the closed box [x0, x1] x [y0, y1]: 1 if
 * they meet (touching counts).  Separating axes: x, y, the segment normal.
 */
static int
seg_box(int64_t px, int64_t py, int64_t qx, int64_t qy, int64_t x0,
    int64_t y0, int64_t x1, int64_t y1)
{
	int64_t nx, ny, c, m0, m1, v;
	int i;

	if ((px > qx ? px : qx) < x0 || (px < qx ? px : qx) > x1)
		return 0;
	if ((py > qy ? py : qy) < y0 || (py < qy ? py : qy) > y1)
		return 0;
	nx = -(qy - py);
	ny = qx - px;
	c = nx * px + ny * py;
	m0 = m1 = nx * x0 + ny * y0;
	for (i = 1; i < 4; i++) {
		v = nx * ((i & 1) ? x1 : x0) + ny * ((i & 2) ? y1 : y0);
		if (v < m0)
			m0 = v;
		if (v > m1)
			m1 = v;
	}
	return !(c < m0 || c > m1);
}

/* A segment in 1/16 units that touches no wall square of the grid.
 * skip_x/skip_y: a lattice point (1/16 units) the segment may touch walls
 * at (areas), or -1. */
static int
seg_clear(const struct grid *g, int px, int py, int qx, int qy, int skip)
{
	int x0 = imin(px, qx) / 16 - 1, x1 = imax(px, qx) / 16 + 1;
	int y0 = imin(py, qy) / 16 - 1, y1 = imax(py, qy) / 16 + 1;
	int x, y;

	for (y = imax(y0, 0); y <= imin(y1, g->h - 1); y++)
		for (x = imax(x0, 0); x <= imin(x1, g->w - 1); x++) {
			if (!grid_is_wall(g, x, y))
				continue;
			if (!seg_box(px, py, qx, qy, x * 16, y * 16,
			    x * 16 + 16, y * 16 + 16))
				continue;
			if (skip) {
				/* Touching the wall only at the origin point
				 * p: shrink the segment by a hair near p. */
				int64_t ax = (int64_t)px * 64 + (qx - px),
				    ay = (int64_t)py * 64 + (qy - py);

				if (!seg_box(ax, ay, (int64_t)qx * 64,
				    (int64_t)qy * 64, (int64_t)x * 1024,
				    (int64_t)y * 1024, (int64_t)x * 1024 + 1024,
				    (int64_t)y * 1024 + 1024))
					continue;
			}
			return 0;
		}
	return 1;
}

static const int samp[5][2] = { { 8, 8 }, { 1, 1 }, { 15, 1 }, { 1, 15 },
	{ 15, 15 } };

int
grid_los(const struct grid *g, const struct grid_space *a,
    const struct grid_space *b)
{
	int i, j, k, l, m, n;

	for (i = 0; i < a->s; i++)
		for (j = 0; j < a->s; j++)
			for (k = 0; k < b->s; k++)
				for (l = 0; l < b->s; l++)
					for (m = 0; m < 5; m++)
						for (n = 0; n < 5; n++)
							if (seg_clear(g,
							    (a->x + i) * 16 + samp[m][0],
							    (a->y + j) * 16 + samp[m][1],
							    (b->x + k) * 16 + samp[n][0],
							    (b->y + l) * 16 + samp[n][1], 0))
								return 1;
	return 0;
}

int
grid_los_point(const struct grid *g, int px, int py, int x, int y)
{
	int n;

	for (n = 0; n < 5; n++)
		if (seg_clear(g, px * 16, py * 16, x * 16 + samp[n][0],
		    y * 16 + samp[n][1], 1))
			return 1;
	return 0;
}

/* Convex hull (counter-clockwise, monotone chain) of up to 8 points. */
static int
cross(const int *o, const int *a, const int *b)
{
	return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
}

static int
ptcmp(const void *a, const void *b)
{
	const int *p = a, *q = b;

	if (p[0] != q[0])
		return p[0] - q[0];
	return p[1] - q[1];
}

static int
hull(int pts[][2], int n, int out[][2])
{
	int k = 0, i, t;

	qsort(pts, (size_t)n, sizeof(pts[0]), ptcmp);
	for (i = 0; i < n; i++) {
		while (k >= 2 && cross(out[k - 2], out[k - 1], pts[i]) <= 0)
			k--;
		out[k][0] = pts[i][0];
		out[k][1] = pts[i][1];
		k++;
	}
	for (i = n - 2, t = k + 1; i >= 0; i--) {
		while (k >= t && cross(out[k - 2], out[k - 1], pts[i]) <= 0)
			k--;
		out[k][0] = pts[i][0];
		out[k][1] = pts[i][1];
		k++;
	}
	return k - 1;
}

/* Strict overlap of convex polygon poly (n vertices) and square (x, y). */
static int
poly_sq_overlap(int poly[][2], int n, int x, int y)
{
	int i, j, a0, a1, b0, b1, v;

	a0 = a1 = poly[0][0];
	b0 = b1 = poly[0][1];
	for (i = 1; i < n; i++) {
		a0 = imin(a0, poly[i][0]);
		a1 = imax(a1, poly[i][0]);
		b0 = imin(b0, poly[i][1]);
		b1 = imax(b1, poly[i][1]);
	}
	if (a1 <= x || a0 >= x + 1 || b1 <= y || b0 >= y + 1)
		return 0;
	for (i = 0; i < n; i++) {
		const int *p = poly[i], *q = poly[(i + 1) % n];
		int nx = -(q[1] - p[1]), ny = q[0] - p[0];
		int pmin, pmax, smin, smax;

		pmin = pmax = nx * p[0] + ny * p[1];
		for (j = 0; j < n; j++) {
			v = nx * poly[j][0] + ny * poly[j][1];
			pmin = imin(pmin, v);
			pmax = imax(pmax, v);
		}
		smin = smax = nx * x + ny * y;
		for (j = 1; j < 4; j++) {
			v = nx * (x + (j & 1)) + ny * (y + (j >> 1));
			smin = imin(smin, v);
			smax = imax(smax, v);
		}
		if (pmax <= smin || smax <= pmin)
			return 0;
	}
	return 1;
}

static int
covered_from(const struct grid *g, const uint8_t *prov, int ox, int oy,
    const struct grid_space *t)
{
	int pts[5][2], h[10][2], n, x, y, x0, x1, y0, y1;

	pts[0][0] = ox;
	pts[0][1] = oy;
	pts[1][0] = t->x;
	pts[1][1] = t->y;
	pts[2][0] = t->x + t->s;
	pts[2][1] = t->y;
	pts[3][0] = t->x;
	pts[3][1] = t->y + t->s;
	pts[4][0] = t->x + t->s;
	pts[4][1] = t->y + t->s;
	n = hull(pts, 5, h);
	x0 = imin(ox, t->x) - 1;
	x1 = imax(ox, t->x + t->s);
	y0 = imin(oy, t->y) - 1;
	y1 = imax(oy, t->y + t->s);
	for (y = imax(y0, 0); y <= imin(y1, g->h - 1); y++)
		for (x = imax(x0, 0); x <= imin(x1, g->w - 1); x++) {
			if (!grid_is_wall(g, x, y) &&
			    (prov == NULL || !prov[y * g->w + x]))
				continue;
			if (poly_sq_overlap(h, n, x, y))
				return 1;
		}
	return 0;
}

int
grid_ranged_cover(const struct grid *g, const uint8_t *prov,
    const struct grid_space *att, const struct grid_space *tgt)
{
	int i, j;

	for (i = 0; i <= att->s; i++)
		for (j = 0; j <= att->s; j++)
			if (!covered_from(g, prov, att->x + i, att->y + j, tgt))
				return 0;
	return 1;
}

int
grid_melee_cover(const struct grid *g, const struct grid_space *att,
    const struct grid_space *def)
{
	int i, j, k, l, pairs = 0;

	for (i = 0; i < att->s; i++)
		for (j = 0; j < att->s; j++)
			for (k = 0; k < def->s; k++)
				for (l = 0; l < def->s; l++) {
					int ax = att->x + i, ay = att->y + j;
					int dx = def->x + k, dy = def->y + l;

					if (!grid_sq_adjacent(g, ax, ay, dx, dy))
						continue;
					pairs++;
					/* Orthogonal pairs: the hull is a 2x1
					 * rectangle, no wall interior meets it. */
					if (ax == dx || ay == dy)
						return 0;
					if (!grid_is_wall(g, dx, ay) &&
					    !grid_is_wall(g, ax, dy))
						return 0;
				}
	return pairs > 0;
}

/* Segment p-q (doubled units) meets the vertical segment x = c,
 * y in [y0, y1] (doubled units). */
static int
meets_v(int px, int py, int qx, int qy, int c, int y0, int y1)
{
	int64_t num, den, lo, hi;

	if ((px < c && qx < c) || (px > c && qx > c))
		return 0;
	if (px == qx)
		return imax(py, qy) >= y0 && imin(py, qy) <= y1;
	/* y = py + (qy - py) * (c - px) / (qx - px) */
	den = qx - px;
	num = (int64_t)py * den + (int64_t)(qy - py) * (c - px);
	lo = (int64_t)y0 * den;
	hi = (int64_t)y1 * den;
	if (den < 0) {
		int64_t t = -lo;

		lo = -hi;
		hi = t;
		num = -num;
	}
	return num >= lo && num <= hi;
}

int
grid_flank(const struct grid_space *att, const struct grid_space *helper,
    const struct grid_space *def)
{
	int i, j, k, l;
	int X0 = def->x * 2, X1 = (def->x + def->s) * 2;
	int Y0 = def->y * 2, Y1 = (def->y + def->s) * 2;

	for (i = 0; i < att->s; i++)
		for (j = 0; j < att->s; j++)
			for (k = 0; k < helper->s; k++)
				for (l = 0; l < helper->s; l++) {
					int px = (att->x + i) * 2 + 1;
					int py = (att->y + j) * 2 + 1;
					int qx = (helper->x + k) * 2 + 1;
					int qy = (helper->y + l) * 2 + 1;

					if (meets_v(px, py, qx, qy, X0, Y0, Y1) &&
					    meets_v(px, py, qx, qy, X1, Y0, Y1))
						return 1;
					if (meets_v(py, px, qy, qx, Y0, X0, X1) &&
					    meets_v(py, px, qy, qx, Y1, X0, X1))
						return 1;
				}
	return 0;
}

int
grid_cuts_corner(const struct grid *g, int x, int y, int s, int dx, int dy)
{
	int i, j;

	if (dx == 0 || dy == 0)
		return 0;
	for (i = 0; i < s; i++)
		for (j = 0; j < s; j++)
			if (grid_is_wall(g, x + i + dx, y + j) ||
			    grid_is_wall(g, x + i, y + j + dy))
				return 1;
	return 0;
}

int
grid_step_cost(int dx, int dy, int slowed, int *parity)
{
	if (dx == 0 || dy == 0)
		return slowed ? 2 : 1;
	if (slowed)
		return 3;
	*parity ^= 1;
	return *parity ? 1 : 2;
}

#define NB 8
static const int dirs[NB][2] = { { 1, 0 }, { 0, 1 }, { -1, 0 }, { 0, -1 },
	{ 1, 1 }, { -1, 1 }, { -1, -1 }, { 1, -1 } };

int
grid_paths(const struct grid *g, int x, int y, int parity, int limit,
    grid_step_fn step, void *ud, int32_t *dist, int32_t *prev)
{
	int n = g->w * g->h * 2, i, c, d;
	int32_t *q;
	size_t qn = 0, qh = 0;
	/* Dial's buckets: costs are small, scan cost levels in order. */
	int32_t *bucket, *bnext;

	for (i = 0; i < n; i++) {
		dist[i] = -1;
		if (prev != NULL)
			prev[i] = -1;
	}
	if (x < 0 || y < 0 || x >= g->w || y >= g->h)
		return -1;
	q = malloc(sizeof(*q) * (size_t)n * 9);
	bucket = malloc(sizeof(*bucket) * (size_t)(limit + 4));
	bnext = malloc(sizeof(*bnext) * (size_t)n * 9);
	if (q == NULL || bucket == NULL || bnext == NULL) {
		free(q);
		free(bucket);
		free(bnext);
		return -1;
	}
	(void)qh;
	for (i = 0; i < limit + 4; i++)
		bucket[i] = -1;
	/* Entries: q[e] = state, bnext[e] = next entry in the bucket. */
	q[qn] = (y * g->w + x) * 2 + parity;
	bnext[qn] = bucket[0];
	bucket[0] = (int32_t)qn++;
	dist[(y * g->w + x) * 2 + parity] = 0;
	for (c = 0; c <= limit; c++) {
		while (bucket[c] >= 0) {
			int e = bucket[c], st, sx, sy, sp, k;

			bucket[c] = bnext[e];
			st = q[e];
			if (dist[st] != c)
				continue;
			sp = st & 1;
			sx = (st >> 1) % g->w;
			sy = (st >> 1) / g->w;
			for (k = 0; k < NB; k++) {
				int tx = sx + dirs[k][0], ty = sy + dirs[k][1];
				int p = sp, slow, ns;

				if (tx < 0 || ty < 0 || tx >= g->w ||
				    ty >= g->h)
					continue;
				slow = step(ud, sx, sy, tx, ty);
				if (slow < 0)
					continue;
				d = c + grid_step_cost(dirs[k][0], dirs[k][1],
				    slow, &p);
				if (d > limit)
					continue;
				ns = (ty * g->w + tx) * 2 + p;
				if (dist[ns] >= 0 && dist[ns] <= d)
					continue;
				dist[ns] = d;
				if (prev != NULL)
					prev[ns] = st;
				if (qn >= (size_t)n * 9)
					continue;
				q[qn] = ns;
				bnext[qn] = bucket[d];
				bucket[d] = (int32_t)qn++;
			}
		}
	}
	free(q);
	free(bucket);
	free(bnext);
	return 0;
}

struct wp {
	const struct grid *g;
};

static int
wp_step(void *ud, int fx, int fy, int tx, int ty)
{
	const struct grid *g = ((struct wp *)ud)->g;

	if (grid_is_wall(g, tx, ty))
		return -1;
	if (grid_cuts_corner(g, fx, fy, 1, tx - fx, ty - fy))
		return -1;
	return 0;
}

int
grid_wall_path(const struct grid *g, const struct grid_space *a,
    const struct grid_space *b, int limit)
{
	int32_t *dist;
	int best = -1, i, j, k, l, p, lim = limit < 0 ? g->w * g->h * 3 :
	    limit;
	struct wp u;

	if (grid_space_dist(a, b) == 0)
		return 0;
	dist = malloc(sizeof(*dist) * (size_t)(g->w * g->h * 2));
	if (dist == NULL)
		return -1;
	u.g = g;
	for (i = 0; i < a->s; i++)
		for (j = 0; j < a->s; j++) {
			if (grid_is_wall(g, a->x + i, a->y + j))
				continue;
			if (grid_paths(g, a->x + i, a->y + j, 0, lim, wp_step,
			    &u, dist, NULL) != 0)
				continue;
			for (k = 0; k < b->s; k++)
				for (l = 0; l < b->s; l++)
					for (p = 0; p < 2; p++) {
						int x = b->x + k, y = b->y + l;
						int d;

						if (x < 0 || y < 0 || x >= g->w ||
						    y >= g->h)
							continue;
						d = dist[(y * g->w + x) * 2 + p];
						if (d >= 0 && (best < 0 || d < best))
							best = d;
					}
		}
	free(dist);
	return best;
}

int
grid_half5(int dmg)
{
	int h = dmg / 2;

	if (h < 0)
		return 0;
	return h - h % 5;
}

int
grid_burst(int ox, int oy, int x, int y)
{
	int a = (iabs(2 * x + 1 - 2 * ox) - 1) / 2;
	int b = (iabs(2 * y + 1 - 2 * oy) - 1) / 2;

	return 1 + imax(a, b) + imin(a, b) / 2;
}

int
grid_in_cone(int ox, int oy, int orient, int x, int y)
{
	int dx = 2 * x + 1 - 2 * ox, dy = 2 * y + 1 - 2 * oy;
	int ok;

	if (grid_burst(ox, oy, x, y) > 6)
		return 0;
	switch (orient & 7) {
	case 0: ok = dx > 0 && iabs(dy) <= dx; break;
	case 1: ok = dx > 0 && dy > 0; break;
	case 2: ok = dy > 0 && iabs(dx) <= dy; break;
	case 3: ok = dx < 0 && dy > 0; break;
	case 4: ok = dx < 0 && iabs(dy) <= -dx; break;
	case 5: ok = dx < 0 && dy < 0; break;
	case 6: ok = dy < 0 && iabs(dx) <= -dy; break;
	default: ok = dx > 0 && dy < 0; break;
	}
	return ok;
}
