/*
 * cont.c - continuous table measurement in integer fixed point
 * (refd/cont.h).  No floating point: integer square roots and 128-bit
 * products where a 64-bit one could overflow.
 */
#include <refd/cont.h>

typedef __int128 cont_i128_;

int64_t
cont_d2(cont_pt a, cont_pt b)
{
	int64_t dx = b.x - a.x, dy = b.y - a.y;

	return dx * dx + dy * dy;
}

uint64_t
cont_isqrt_floor(uint64_t n)
{
	uint64_t r = 0, bit = (uint64_t)1 << 62;

	while (bit > n)
		bit >>= 2;
	while (bit != 0) {
		if (n >= r + bit) {
			n -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return r;
}

uint64_t
cont_isqrt_ceil(uint64_t n)
{
	uint64_t f = cont_isqrt_floor(n);

	return f + (f * f < n);
}

int64_t
cont_seg_len(cont_pt p, cont_pt q)
{
	return (int64_t)cont_isqrt_ceil((uint64_t)cont_d2(p, q));
}

int64_t
cont_path_len(const cont_pt *p, int n)
{
	int64_t s = 0;
	int i;

	for (i = 1; i < n; i++)
		s += cont_seg_len(p[i - 1], p[i]);
	return s;
}

int64_t
cont_edge_dist(cont_pt a, int64_t ra, cont_pt b, int64_t rb)
{
	int64_t c = cont_seg_len(a, b) - ra - rb;

	return c < 0 ? 0 : c;
}

int
cont_within(cont_pt a, int64_t ra, cont_pt b, int64_t rb, int64_t d)
{
	int64_t s = d + ra + rb;

	return s >= 0 && cont_d2(a, b) <= s * s;
}

int
cont_point_within(cont_pt p, cont_pt a, int64_t ra, int64_t d)
{
	int64_t s = d + ra;

	return s >= 0 && cont_d2(p, a) <= s * s;
}

int
cont_completely_within(cont_pt a, int64_t ra, cont_pt b, int64_t rb,
    int64_t d)
{
	int64_t s = d + ra - rb;

	return s >= 0 && cont_d2(a, b) <= s * s;
}

int
cont_overlap(cont_pt a, int64_t ra, cont_pt b, int64_t rb)
{
	int64_t s = ra + rb;

	return cont_d2(a, b) < s * s;
}

int
cont_b2b(cont_pt a, int64_t ra, cont_pt b, int64_t rb, int64_t tol)
{
	int64_t s = ra + rb, d2 = cont_d2(a, b);

	return s * s <= d2 && d2 <= (s + tol) * (s + tol);
}

cont_pt
cont_point_along(cont_pt a, cont_pt b, int64_t d)
{
	int64_t l = cont_seg_len(a, b);
	cont_pt p = a;

	if (l == 0)
		return a;
	p.x = a.x + (int64_t)((cont_i128_)(b.x - a.x) * d / l);
	p.y = a.y + (int64_t)((cont_i128_)(b.y - a.y) * d / l);
	return p;
}

int
cont_seg_passes_over(cont_pt p, cont_pt q, cont_pt c, int64_t r)
{
	int64_t ux = q.x - p.x, uy = q.y - p.y;
	int64_t wx = c.x - p.x, wy = c.y - p.y;
	int64_t l2 = ux * ux + uy * uy, t = wx * ux + wy * uy;
	cont_i128_ cr;

	if (l2 == 0 || t <= 0)
		return wx * wx + wy * wy < r * r;
	if (t >= l2)
		return cont_d2(c, q) < r * r;
	cr = (cont_i128_)wx * uy - (cont_i128_)wy * ux;
	return cr * cr < (cont_i128_)r * r * l2;
}

int
cont_in_front_point(cont_pt c, cont_pt f, cont_pt p)
{
	return f.x * (p.x - c.x) + f.y * (p.y - c.y) >= 0;
}

int
cont_partly_in_front(cont_pt a, cont_pt f, cont_pt t, int64_t rt)
{
	int64_t s = f.x * (t.x - a.x) + f.y * (t.y - a.y);

	if (s >= 0)
		return 1;
	return (cont_i128_)s * s <
	    (cont_i128_)rt * rt * (f.x * f.x + f.y * f.y);
}

int
cont_completely_in_back(cont_pt a, cont_pt f, cont_pt t, int64_t rt)
{
	int64_t s = f.x * (t.x - a.x) + f.y * (t.y - a.y);

	return s < 0 && (cont_i128_)s * s >=
	    (cont_i128_)rt * rt * (f.x * f.x + f.y * f.y);
}

static int64_t
gcd64(int64_t a, int64_t b)
{
	if (a < 0)
		a = -a;
	if (b < 0)
		b = -b;
	while (b != 0) {
		int64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

cont_pt
cont_facing_reduce(cont_pt f)
{
	int64_t g = gcd64(f.x, f.y);

	if (g > 1) {
		f.x /= g;
		f.y /= g;
	}
	return f;
}

int
cont_toward(cont_pt p0, cont_pt p1, cont_pt c)
{
	return (p1.x - p0.x) * (p1.x - c.x) + (p1.y - p0.y) * (p1.y - c.y) <= 0;
}

int
cont_not_toward(cont_pt p0, cont_pt p1, cont_pt c)
{
	return (p1.x - p0.x) * (p0.x - c.x) + (p1.y - p0.y) * (p0.y - c.y) >= 0;
}

static const int16_t samp_[16][2] = {
	{ 1024, 0 }, { 946, 392 }, { 724, 724 }, { 392, 946 },
	{ 0, 1024 }, { -392, 946 }, { -724, 724 }, { -946, 392 },
	{ -1024, 0 }, { -946, -392 }, { -724, -724 }, { -392, -946 },
	{ 0, -1024 }, { 392, -946 }, { 724, -724 }, { 946, -392 }
};

cont_pt
cont_sample(cont_pt t, int64_t r, int i)
{
	cont_pt p = t;

	if (i <= 0 || i > 16)
		return t;
	p.x = t.x + (r - 1) * samp_[i - 1][0] / 1024;
	p.y = t.y + (r - 1) * samp_[i - 1][1] / 1024;
	return p;
}

static const int32_t cos6_[6] = { 1000000, 500000, -500000, -1000000,
	-500000, 500000 };
static const int32_t sin6_[6] = { 0, -866025, -866025, 0, 866025, 866025 };

cont_pt
cont_deviate(cont_pt origin, cont_pt n, int dir, int64_t dist)
{
	int64_t dx = n.x - origin.x, dy = n.y - origin.y, l;
	cont_i128_ den, ex, ey;
	cont_pt p = n;
	int k = (dir - 1) % 6;

	if (k < 0)
		k += 6;
	if (dx == 0 && dy == 0)
		dy = 1;
	l = (int64_t)cont_isqrt_ceil((uint64_t)(dx * dx + dy * dy));
	den = (cont_i128_)l * 1000000;
	ex = ((cont_i128_)dx * cos6_[k] - (cont_i128_)dy * sin6_[k]) * dist;
	ey = ((cont_i128_)dx * sin6_[k] + (cont_i128_)dy * cos6_[k]) * dist;
	p.x += (int64_t)(ex / den);
	p.y += (int64_t)(ey / den);
	return p;
}

cont_pt
cont_clamp(cont_pt p, int64_t w, int64_t h)
{
	if (p.x < 0)
		p.x = 0;
	if (p.x > w)
		p.x = w;
	if (p.y < 0)
		p.y = 0;
	if (p.y > h)
		p.y = h;
	return p;
}
