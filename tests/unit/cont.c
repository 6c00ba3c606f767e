/* Unit tests for refd/cont.h: integer continuous measurement. */
#include <refd/cont.h>

#include "tap.h"

static cont_pt
P(int64_t x, int64_t y)
{
	cont_pt p;

	p.x = x;
	p.y = y;
	return p;
}

int
main(void)
{
	cont_pt o = P(0, 0), q;
	cont_pt path[3];

	is_int((long)cont_isqrt_floor(0), 0, "isqrt 0");
	is_int((long)cont_isqrt_floor(99), 9, "isqrt floor 99");
	is_int((long)cont_isqrt_ceil(99), 10, "isqrt ceil 99");
	is_int((long)cont_isqrt_ceil(100), 10, "isqrt ceil 100");
	ok(cont_isqrt_floor(UINT64_MAX) == 4294967295u, "isqrt of max");
	/* T003-01: formation edges (CMD 8, small bases) */
	ok(cont_within(o, 591, P(9000, 0), 591, 8000), "9000: in");
	ok(cont_within(o, 591, P(0, 9182), 591, 8000), "9182: in (equality)");
	ok(!cont_within(o, 591, P(-9183, 0), 591, 8000), "9183: out");
	/* T003-02 */
	is_int((long)cont_seg_len(P(12000, 0), P(6000, 3000)), 6709, "len 6709");
	is_int((long)cont_seg_len(P(12000, 0), P(7000, 2000)), 5386, "len 5386");
	ok(!cont_toward(P(12000, 0), P(12000, 5000), o), "not toward");
	ok(cont_toward(P(12000, 0), P(7000, 2000), o), "toward");
	path[0] = P(-2000, 0);
	path[1] = P(-2000, 6000);
	path[2] = P(4000, 6000);
	is_int((long)cont_path_len(path, 3), 12000, "path length");
	/* T003-19 */
	q = cont_point_along(o, P(15000, 0), 591 + 8000);
	ok(q.x == 8591 && q.y == 0, "point along");
	q = cont_deviate(o, P(8591, 0), 1, 4000);
	ok(q.x == 12591 && q.y == 0, "deviate dir 1");
	q = cont_deviate(o, P(1000, 0), 4, 1000);
	ok(q.x == 0 && q.y == 0, "deviate dir 4 (backwards)");
	q = cont_deviate(o, P(1000, 0), 2, 1000);
	ok(q.x == 1500 && q.y == -866, "deviate dir 2 is 60 clockwise");
	/* T003-20 */
	ok(cont_point_within(o, P(2091, 0), 591, 1500), "AOE inclusive");
	ok(!cont_point_within(o, P(-2092, 0), 591, 1500), "AOE out");
	/* overlap and passing */
	ok(cont_overlap(o, 591, P(1181, 0), 591), "overlap");
	ok(!cont_overlap(o, 591, P(1182, 0), 591), "touching is no overlap");
	ok(cont_b2b(o, 591, P(1183, 0), 591, 2), "base contact");
	ok(cont_seg_passes_over(P(-5000, 0), P(5000, 0), P(0, 100), 200),
	    "passes over");
	ok(!cont_seg_passes_over(P(-5000, 0), P(5000, 0), P(0, 200), 200),
	    "tangent is not over");
	ok(!cont_seg_passes_over(P(-5000, 0), P(-1000, 0), P(0, 0), 500),
	    "short of the disc");
	/* arcs */
	ok(cont_in_front_point(o, P(1, 0), P(0, 5)), "boundary is front");
	ok(cont_partly_in_front(o, P(1, 0), P(-500, 0), 591),
	    "partly in front");
	ok(cont_completely_in_back(o, P(1, 0), P(-591, 0), 591),
	    "completely in back");
	ok(!cont_completely_in_back(o, P(1, 0), P(-590, 0), 591),
	    "not completely in back");
	q = cont_facing_reduce(P(-6, 4));
	ok(q.x == -3 && q.y == 2, "facing reduced");
	q = cont_sample(P(10000, 0), 591, 1);
	ok(q.x == 10590 && q.y == 0, "sample 1");
	q = cont_sample(P(10000, 0), 591, 0);
	ok(q.x == 10000, "sample 0 is the centre");
	q = cont_clamp(P(-5, 50000), 48000, 48000);
	ok(q.x == 0 && q.y == 48000, "clamp");
	ok(cont_not_toward(P(0, 0), P(-10, 0), P(100, 0)), "not toward away");
	is_int((long)cont_edge_dist(o, 591, P(3000, 0), 591), 1818, "edge");
	return done_testing();
}
