/*
 * move.c - movement on the grid (spec 4.2-4.7): the cost of one step,
 * the cheapest paths within an allowance, straight lines for run and
 * charge, and the charge lane.
 */
#include <string.h>

#include "conceal.h"
#include "geom.h"
#include "mount.h"
#include "move.h"

static int
wall(const struct st *s, int x, int y)
{
	return x < 0 || y < 0 || x >= s->w || y >= s->h ||
	    (s->sq[y][x] & (SQ_WALL | SQ_IMPROVED)) != 0;
}

static int
eflag(const struct st *s, int h, int x, int y)
{
	if (x < 0 || y < 0 || x > s->w || y > s->h)
		return 0;
	return h ? s->eh[y][x] : s->ev[y][x];
}

/* Footprint of side n at (x, y) is on the map and free of walls. */
static int
fits(const struct st *s, int x, int y, int n)
{
	int i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if (wall(s, x + i, y + j))
				return 0;
	return 1;
}

/* Another creature's space overlaps the footprint; *enemy set when some
 * such creature is a non-helpless enemy (or any non-helpless creature
 * when allies do not let it pass). */
static int
crowded(const struct st *s, int a, int x, int y, int n, int allies_block,
    int *blocks)
{
	int i, any = 0, sq = -1;
	const struct cr *A = &s->c[a];

	*blocks = 0;
	for (i = 0; i < s->nc; i++) {
		const struct cr *c = &s->c[i];
		int cn, d;

		/* the cheap tests first: most creatures are elsewhere */
		if (i == a || c->dead)
			continue;
		cn = space_n(c);
		if (c->x >= x + n || x >= c->x + cn || c->y >= y + n ||
		    y >= c->y + cn)
			continue;
		if (!perceives(s, a, i) || mt_pair(s, i, a))
			continue;
		if (c->d.fills) {	/* no passing at all (4.7) */
			any = *blocks = 1;
			continue;
		}
		if (A->d.size <= -2)
			continue;	/* Tiny and smaller share squares (4.7) */
		any = 1;
		d = c->d.size - A->d.size;
		if (d >= 3 || d <= -3)
			continue;	/* 4.7: three sizes apart */
		if (helpless(c))
			continue;
		if (c->side != A->side && sq < 0)
			sq = cc_squeeze_at(s, a, x, y);
		if (c->side != A->side && sq > 0)
			continue;	/* squeezing past an enemy (4.4) */
		if (c->side != A->side || allies_block)
			*blocks = 1;
	}
	return any;
}

/* No other creature at all overlaps a's footprint at (x, y). */
int
real_free(const struct st *s, int a, int x, int y)
{
	int i, n = space_n(&s->c[a]);

	if (!fits(s, x, y, n))
		return 0;
	if (s->c[a].d.size <= -2)
		return 1;	/* Tiny: shares squares */
	for (i = 0; i < s->nc; i++) {
		const struct cr *c = &s->c[i];
		int cn = space_n(c);

		if (i == a || c->dead || mt_pair(s, i, a))
			continue;
		if (!(c->x >= x + n || x >= c->x + cn || c->y >= y + n ||
		    y >= c->y + cn))
			return 0;
	}
	return 1;
}

/* An unseen creature a cannot pass blocks the footprint at (x, y). */
int
unseen_block(const struct st *s, int a, int x, int y)
{
	int i, n = space_n(&s->c[a]);

	for (i = 0; i < s->nc; i++) {
		const struct cr *c = &s->c[i];
		int cn = space_n(c), d = c->d.size - s->c[a].d.size;

		if (i == a || c->dead || perceives(s, a, i))
			continue;
		if (!c->d.fills && (helpless(c) || mt_pair(s, i, a) ||
		    d >= 3 || d <= -3 || c->side == s->c[a].side ||
		    s->c[a].d.size <= -2))
			continue;
		if (!(c->x >= x + n || x >= c->x + cn || c->y >= y + n ||
		    y >= c->y + cn))
			return 1;
	}
	return 0;
}

int
free_at(const struct st *s, int a, int x, int y)
{
	int b;

	return fits(s, x, y, space_n(&s->c[a])) &&
	    !crowded(s, a, x, y, space_n(&s->c[a]), 1, &b);
}

int
step_cost(const struct st *s, int a, int x, int y, int nx, int ny, int par,
    int *npar, int allies_block)
{
	const struct cr *A = &s->c[a];
	int n = space_n(A), dx = nx - x, dy = ny - y, k = 0, i, j, b;
	int lowe = 0;

	if ((dx == 0 && dy == 0) || dx < -1 || dx > 1 || dy < -1 || dy > 1)
		return -1;
	if (A->d.incorporeal) {
		/* Ignores every obstacle and terrain (4.3). */
		int i0, j0;

		for (i0 = 0; i0 < n; i0++)
			for (j0 = 0; j0 < n; j0++)
				if (nx + i0 < 0 || ny + j0 < 0 ||
				    nx + i0 >= s->w || ny + j0 >= s->h)
					return -1;
		crowded(s, a, nx, ny, n, allies_block, &b);
		if (b)
			return -1;
		*npar = par;
		if (dx == 0 || dy == 0)
			return 1;
		*npar = !par;
		return par ? 2 : 1;
	}
	if (!fits(s, nx, ny, n))
		return -1;
	crowded(s, a, nx, ny, n, allies_block, &b);
	if (b)
		return -1;
	if (dx == 0 || dy == 0) {
		for (i = 0; i < n; i++) {
			int f;

			if (dx > 0)
				f = eflag(s, 0, x + n, y + i);
			else if (dx < 0)
				f = eflag(s, 0, x, y + i);
			else if (dy > 0)
				f = eflag(s, 1, x + i, y + n);
			else
				f = eflag(s, 1, x + i, y);
			if (f & E_WALL)
				return -1;
			if (f & E_LOW)
				lowe = 1;
		}
	} else {
		int px = dx > 0 ? x + n : x, py = dy > 0 ? y + n : y;

		if ((eflag(s, 1, px - 1, py) | eflag(s, 1, px, py) |
		    eflag(s, 0, px, py - 1) | eflag(s, 0, px, py)) & E_WALL)
			return -1;
		if (!fits(s, x + dx, y, n) || !fits(s, x, y + dy, n))
			return -1;	/* no cutting corners */
	}
	/* Doublings (4.3): difficult terrain, obstacles, a low wall. */
	{
		int diff = 0, obst = 0;

		for (i = 0; i < n; i++)
			for (j = 0; j < n; j++) {
				int sx = nx + i, sy = ny + j;

				if (sx >= x && sx < x + n && sy >= y &&
				    sy < y + n)
					continue;	/* not newly entered */
				diff |= (s->sq[sy][sx] & SQ_DIFF) != 0;
				obst |= (s->sq[sy][sx] & SQ_OBST) != 0;
			}
		k = diff + obst + lowe;
		if (A->d.fly)
			k = 0;	/* flyers ignore all but blocking obstacles */
		if (cc_squeeze_at(s, a, nx, ny) > 0)
			k++;	/* squeezing: each square costs twice (4.4) */
	}
	*npar = par;
	if (dx == 0 || dy == 0)
		return 1 << k;
	if (k == 0) {
		*npar = !par;
		return par ? 2 : 1;
	}
	return 3 << (k - 1);
}

int
reach_map(const struct st *s, int a, int allow, int par0,
    int16_t dist[MAXM][MAXM][2], int16_t prev[MAXM][MAXM][2])
{
	const struct cr *A = &s->c[a];
	static const int dirs[8][2] = { { 1, 0 }, { 0, 1 }, { -1, 0 },
		{ 0, -1 }, { 1, 1 }, { -1, 1 }, { -1, -1 }, { 1, -1 } };
	int c, x, y, p, d, nx, ny, np, cost, nd, top = 0;
	/* Every step costs at least 1: nothing beyond allow squares. */
	int x0 = A->x - allow < 0 ? 0 : A->x - allow;
	int y0 = A->y - allow < 0 ? 0 : A->y - allow;
	int x1 = A->x + allow >= s->w ? s->w - 1 : A->x + allow;
	int y1 = A->y + allow >= s->h ? s->h - 1 : A->y + allow;

	for (y = 0; y < s->h; y++)
		for (x = 0; x < s->w; x++)
			for (p = 0; p < 2; p++) {
				dist[y][x][p] = -1;
				prev[y][x][p] = -1;
			}
	dist[A->y][A->x][par0] = 0;
	/* Cost by cost, up to the dearest square reached so far. */
	for (c = 0; c <= allow && c <= top; c++)
		for (y = y0; y <= y1; y++)
			for (x = x0; x <= x1; x++)
				for (p = 0; p < 2; p++) {
					if (dist[y][x][p] != c)
						continue;
					for (d = 0; d < 8; d++) {
						nx = x + dirs[d][0];
						ny = y + dirs[d][1];
						if (nx < 0 || ny < 0 ||
						    nx >= s->w || ny >= s->h)
							continue;
						cost = step_cost(s, a, x, y,
						    nx, ny, p, &np, 0);
						if (cost < 0)
							continue;
						nd = c + cost;
						if (nd > allow)
							continue;
						if (dist[ny][nx][np] >= 0 &&
						    dist[ny][nx][np] <= nd)
							continue;
						dist[ny][nx][np] = (int16_t)nd;
						if (nd > top)
							top = nd;
						prev[ny][nx][np] = (int16_t)
						    ((y * MAXM + x) * 2 + p);
					}
				}
	return 0;
}

/* Cheapest path to (tx, ty) from a reach map: squares from the start. */
int
reach_path(const struct st *s, int a, int16_t dist[MAXM][MAXM][2],
    int16_t prev[MAXM][MAXM][2], int tx, int ty, int *px, int *py,
    int *cost)
{
	int p, n = 0, x = tx, y = ty, i, t, v;
	int rx[MAXM * MAXM], ry[MAXM * MAXM];

	(void)s;
	(void)a;
	if (dist[ty][tx][0] < 0 && dist[ty][tx][1] < 0)
		return -1;
	if (dist[ty][tx][0] < 0)
		p = 1;
	else if (dist[ty][tx][1] < 0)
		p = 0;
	else
		p = dist[ty][tx][1] < dist[ty][tx][0];
	*cost = dist[ty][tx][p];
	for (;;) {
		rx[n] = x;
		ry[n] = y;
		n++;
		v = prev[y][x][p];
		if (v < 0 || n >= MAXPATH)
			break;
		p = v & 1;
		x = (v >> 1) % MAXM;
		y = (v >> 1) / MAXM;
	}
	if (n >= MAXPATH)
		return -1;
	for (i = 0; i < n; i++) {
		px[i] = rx[n - 1 - i];
		py[i] = ry[n - 1 - i];
	}
	(void)t;
	return n;
}

/* Squares of a straight move from the creature's square to (tx, ty),
 * start and end included (D001-22). */
int
line_path(const struct st *s, int a, int tx, int ty, int *px, int *py)
{
	const struct cr *A = &s->c[a];
	int n;

	px[0] = A->x;
	py[0] = A->y;
	n = g_centre_line(A->x, A->y, tx, ty, px + 1, py + 1, MAXPATH - 2);
	px[n + 1] = tx;
	py[n + 1] = ty;
	return n + 2;
}

/* A straight line is passable: each square enterable, none difficult
 * (or obstacle), no non-helpless enemy; allies pass unless charging. */
int
line_ok(const struct st *s, int a, const int *px, const int *py, int n,
    int charge)
{
	int i, b, ns = space_n(&s->c[a]), j, k;

	for (i = 1; i < n; i++) {
		int dx = px[i] - px[i - 1], dy = py[i] - py[i - 1];

		if (dx < -1 || dx > 1 || dy < -1 || dy > 1)
			return 0;
		if (!fits(s, px[i], py[i], ns))
			return 0;
		for (j = 0; j < ns; j++)
			for (k = 0; k < ns; k++)
				if (s->sq[py[i] + k][px[i] + j] &
				    (SQ_DIFF | SQ_OBST))
					return 0;
		crowded(s, a, px[i], py[i], ns, charge, &b);
		if (b)
			return 0;
	}
	return 1;
}

/* Charge lane (5.3, D001-30): no wall, difficult square, obstacle or
 * non-helpless creature meets the hull of the start and end spaces. */
int
lane_clear(const struct st *s, int a, int t, int ex, int ey)
{
	const struct cr *A = &s->c[a];
	int n = space_n(A), x, y, o;

	for (y = 0; y < s->h; y++)
		for (x = 0; x < s->w; x++) {
			if (x >= A->x && x < A->x + n && y >= A->y &&
			    y < A->y + n)
				continue;
			if (x >= ex && x < ex + n && y >= ey && y < ey + n)
				continue;
			if (!g_hull_meets(A->x, A->y, ex, ey, n, x, y))
				continue;
			if (s->sq[y][x] & (SQ_WALL | SQ_DIFF | SQ_OBST))
				return 0;
			o = occupant(s, x, y, a);
			if (o >= 0 && o != t && !helpless(&s->c[o]))
				return 0;
		}
	return 1;
}
