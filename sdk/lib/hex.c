/*
 * hex.c - hex-grid geometry for plugins (see refd/hex.h).  Integer only.
 */
#include <stdint.h>
#include <stdlib.h>

#include "refd/hex.h"

const int refd_hex_dq[6] = { 1, 1, 0, -1, -1, 0 };
const int refd_hex_dr[6] = { 0, -1, -1, 0, 1, 1 };

static const int cx[6] = { 1, 0, -1, -1, 0, 1 };
static const int cy[6] = { 1, 2, 1, -1, -2, -1 };

int
refd_hex_distance(int q1, int r1, int q2, int r2)
{
	int dq = q2 - q1, dr = r2 - r1;

	return (abs(dq) + abs(dr) + abs(dq + dr)) / 2;
}

int
refd_hex_direction(int q1, int r1, int q2, int r2)
{
	int d;

	for (d = 0; d < 6; d++)
		if (q1 + refd_hex_dq[d] == q2 && r1 + refd_hex_dr[d] == r2)
			return d;
	return -1;
}

void
refd_hex_orient(int dq, int dr, int o, int *oq, int *orr)
{
	/* cube (x, y, z) = (q, -q-r, r) */
	int x = dq, z = dr, y = -dq - dr, t, k;

	if (o >= 6) {
		t = y;
		y = z;
		z = t;
	}
	for (k = 0; k < o % 6; k++) {
		/* 60 degrees counterclockwise: (x, y, z) -> (-y, -z, -x) */
		t = x;
		x = -y;
		y = -z;
		z = -t;
	}
	*oq = x;
	*orr = z;
}

void
refd_hex_corner(int q, int r, int k, int64_t *x, int64_t *y)
{
	*x = 2 * (int64_t)q + r + cx[k];
	*y = 3 * (int64_t)r + cy[k];
}

static int64_t
orient3(int64_t ax, int64_t ay, int64_t bx, int64_t by, int64_t px,
    int64_t py)
{
	int64_t v = (bx - ax) * (py - ay) - (by - ay) * (px - ax);

	return (v > 0) - (v < 0);
}

/* a/b < c/d with b, d > 0 */
static int
frac_lt(int64_t a, int64_t b, int64_t c, int64_t d)
{
	return a * d < c * b;
}

/*
 * Clip segment a-b against the closed hexagon of (q, r).  Returns 0 when
 * they do not meet, 1 when they meet only at a or only at b, 2 otherwise.
 */
static int
clip_hex(int64_t ax, int64_t ay, int64_t bx, int64_t by, int q, int r)
{
	int64_t lon = 0, lod = 1, hin = 1, hid = 1;
	int64_t ox = 2 * (int64_t)q + r, oy = 3 * (int64_t)r;
	int64_t dx = bx - ax, dy = by - ay;
	int k;

	for (k = 0; k < 6; k++) {
		int64_t vx = ox + cx[k], vy = oy + cy[k];
		int64_t wx = ox + cx[(k + 1) % 6], wy = oy + cy[(k + 1) % 6];
		int64_t ex = wx - vx, ey = wy - vy, sgn, n, d;

		sgn = ex * (oy - vy) - ey * (ox - vx) > 0 ? 1 : -1;
		n = sgn * (ex * (ay - vy) - ey * (ax - vx));
		d = sgn * (ex * dy - ey * dx);
		if (d == 0) {
			if (n < 0)
				return 0;
		} else if (d > 0) {
			/* t >= -n/d */
			if (frac_lt(lon, lod, -n, d)) {
				lon = -n;
				lod = d;
			}
		} else {
			/* t <= n/(-d) */
			if (frac_lt(n, -d, hin, hid)) {
				hin = n;
				hid = -d;
			}
		}
	}
	if (frac_lt(hin, hid, lon, lod))
		return 0;
	if (lon * hid == hin * lod && (lon == 0 || lon == lod))
		return 1;
	return 2;
}

/* Segment a-b against segment p-q: 0 apart, 1 touching only at a or b,
 * 2 otherwise. */
static int
clip_seg(int64_t ax, int64_t ay, int64_t bx, int64_t by, int64_t px,
    int64_t py, int64_t qx, int64_t qy)
{
	int64_t o1 = orient3(ax, ay, bx, by, px, py);
	int64_t o2 = orient3(ax, ay, bx, by, qx, qy);
	int64_t o3 = orient3(px, py, qx, qy, ax, ay);
	int64_t o4 = orient3(px, py, qx, qy, bx, by);

	if (o1 == 0 && o2 == 0) {
		/* collinear: overlap of the projections */
		int64_t lo1, hi1, lo2, hi2, t;
		int usex = ax != bx;

		lo1 = usex ? ax : ay;
		hi1 = usex ? bx : by;
		lo2 = usex ? px : py;
		hi2 = usex ? qx : qy;
		if (lo1 > hi1) {
			t = lo1;
			lo1 = hi1;
			hi1 = t;
		}
		if (lo2 > hi2) {
			t = lo2;
			lo2 = hi2;
			hi2 = t;
		}
		if (hi1 < lo2 || hi2 < lo1)
			return 0;
		if (hi1 == lo2 || hi2 == lo1)
			return 1;
		return 2;
	}
	if (o1 * o2 > 0 || o3 * o4 > 0)
		return 0;
	if (o3 == 0 || o4 == 0)
		return 1;
	return 2;
}

int
refd_hex_adjacent(const struct refd_hex_map *m, int q1, int r1, int q2,
    int r2)
{
	if (refd_hex_direction(q1, r1, q2, r2) < 0)
		return 0;
	if (m->solid(m->ud, q1, r1) || m->solid(m->ud, q2, r2))
		return 0;
	if (m->thin != NULL && m->thin(m->ud, q1, r1, q2, r2))
		return 0;
	return 1;
}

/* The two lattice corners shared by neighbours (q1,r1) and (q2,r2). */
static int
shared_edge(int q1, int r1, int q2, int r2, int64_t *px, int64_t *py,
    int64_t *qx, int64_t *qy)
{
	int i, j, n = 0;

	for (i = 0; i < 6; i++) {
		int64_t x1, y1, x2, y2;

		refd_hex_corner(q1, r1, i, &x1, &y1);
		for (j = 0; j < 6; j++) {
			refd_hex_corner(q2, r2, j, &x2, &y2);
			if (x1 == x2 && y1 == y2) {
				if (n == 0) {
					*px = x1;
					*py = y1;
				} else {
					*qx = x1;
					*qy = y1;
				}
				n++;
			}
		}
	}
	return n == 2;
}

static int
segment_clear(const struct refd_hex_map *m, int64_t ax, int64_t ay,
    int64_t bx, int64_t by, int policy)
{
	int64_t minx = ax < bx ? ax : bx, maxx = ax < bx ? bx : ax;
	int64_t miny = ay < by ? ay : by, maxy = ay < by ? by : ay;
	int r, q, r0, r1;

	r0 = (int)((miny - 2) / 3) - 2;
	r1 = (int)((maxy + 2) / 3) + 2;
	for (r = r0; r <= r1; r++) {
		int q0 = (int)((minx - 1 - r) / 2) - 2;
		int q1 = (int)((maxx + 1 - r) / 2) + 2;

		for (q = q0; q <= q1; q++) {
			int c, d;

			if (m->solid(m->ud, q, r)) {
				c = clip_hex(ax, ay, bx, by, q, r);
				if (c == 2 || (c == 1 &&
				    policy == REFD_HEX_LOS_STRICT))
					return 0;
			}
			if (m->thin == NULL)
				continue;
			for (d = 0; d < 6; d += 1) {
				int nq = q + refd_hex_dq[d], nr = r + refd_hex_dr[d];
				int64_t px, py, qx, qy;

				if (d != 0 && d != 4 && d != 5)
					continue;
				if (!m->thin(m->ud, q, r, nq, nr) ||
				    !shared_edge(q, r, nq, nr, &px, &py, &qx, &qy))
					continue;
				c = clip_seg(ax, ay, bx, by, px, py, qx, qy);
				if (c == 2 || (c == 1 &&
				    policy == REFD_HEX_LOS_STRICT))
					return 0;
			}
		}
	}
	return 1;
}

int
refd_hex_los(const struct refd_hex_map *m, int qa, int ra, int qb, int rb,
    int policy)
{
	int i, j;

	if (qa == qb && ra == rb)
		return 1;
	if (refd_hex_adjacent(m, qa, ra, qb, rb))
		return 1;
	if (m->solid(m->ud, qa, ra) || m->solid(m->ud, qb, rb))
		return 0;
	for (i = 0; i < 6; i++) {
		int64_t ax, ay;

		refd_hex_corner(qa, ra, i, &ax, &ay);
		for (j = 0; j < 6; j++) {
			int64_t bx, by;

			refd_hex_corner(qb, rb, j, &bx, &by);
			if (segment_clear(m, ax, ay, bx, by, policy))
				return 1;
		}
	}
	return 0;
}
