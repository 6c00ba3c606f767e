/*
 * grid.c - unit tests of the square-grid geometry helper (refd/grid.h),
 * on the worked examples of the skirmish spec.
 */
#include <stdint.h>
#include <string.h>

#include "refd/grid.h"
#include "../tap.h"

static uint8_t F[20 * 20];
static struct grid G = { 20, 20, F };

static void
clear(void)
{
	memset(F, 0, sizeof(F));
}

static void
wall(int x, int y)
{
	F[y * 20 + x] |= GRID_WALL;
}

static struct grid_space
sp(int x, int y, int s)
{
	struct grid_space r;

	r.x = x;
	r.y = y;
	r.s = s;
	return r;
}

static int
open_step(void *ud, int fx, int fy, int tx, int ty)
{
	const struct grid *g = ud;

	if (grid_is_wall(g, tx, ty) ||
	    grid_cuts_corner(g, fx, fy, 1, tx - fx, ty - fy))
		return -1;
	return 0;
}

int
main(void)
{
	struct grid_space a, b, c;
	int32_t dist[20 * 20 * 2];
	int i, n, x, y, p;

	/* §0.2 distance */
	is_int(grid_dist(0, 0, 4, 4), 6, "4 diagonals cost 6");
	is_int(grid_dist(0, 0, 3, 1), 3, "3,1 costs 3");
	is_int(grid_dist(0, 0, 6, 6), 9, "6 diagonals cost 9");
	a = sp(0, 0, 2);
	b = sp(3, 0, 1);
	is_int(grid_space_dist(&a, &b), 2, "large to medium distance");
	/* step costs: D, O, D = 1 + 1 + 2 */
	p = 0;
	n = grid_step_cost(1, 1, 0, &p);
	n += grid_step_cost(1, 0, 0, &p);
	n += grid_step_cost(1, 1, 0, &p);
	is_int(n, 4, "D O D costs 4 (T17)");
	p = 0;
	is_int(grid_step_cost(1, 1, 1, &p), 3, "slowed diagonal costs 3");
	is_int(p, 0, "slowed diagonal keeps parity");
	is_int(grid_half5(30), 15, "half of 30");
	is_int(grid_half5(25), 10, "half of 25");
	is_int(grid_half5(15), 5, "half of 15");
	is_int(grid_half5(5), 0, "half of 5");

	/* T19 corner cutting */
	clear();
	wall(3, 2);
	ok(grid_cuts_corner(&G, 2, 2, 1, 1, 1), "(2,2)->(3,3) cuts (3,2)");
	ok(!grid_cuts_corner(&G, 2, 3, 1, 1, 0), "orthogonal never cuts");

	/* T23 wall-path distance */
	clear();
	wall(0, 1);
	wall(1, 1);
	a = sp(0, 0, 1);
	b = sp(0, 2, 1);
	is_int(grid_wall_path(&G, &a, &b, -1), 6, "T23a wall path 6");
	ok(!grid_los(&G, &a, &b), "T23a no LOS");
	wall(2, 1);
	is_int(grid_wall_path(&G, &a, &b, -1), 8, "T23b wall path 8");

	/* LOS: open grid, and a wall in between */
	clear();
	a = sp(0, 0, 1);
	b = sp(10, 5, 1);
	ok(grid_los(&G, &a, &b), "open LOS");
	for (y = 0; y < 20; y++)
		wall(5, y);
	ok(!grid_los(&G, &a, &b), "a full wall blocks");

	/* T08 melee cover */
	clear();
	wall(6, 5);
	a = sp(5, 5, 1);
	b = sp(6, 6, 1);
	ok(grid_melee_cover(&G, &a, &b), "T08 melee cover at a wall end");
	ok(grid_melee_cover(&G, &b, &a), "T08 symmetric");
	b = sp(5, 6, 1);
	ok(!grid_melee_cover(&G, &a, &b), "orthogonal never covered");

	/* T07 flanking */
	a = sp(4, 4, 1);
	b = sp(6, 5, 1);
	c = sp(5, 5, 1);
	ok(!grid_flank(&a, &b, &c), "T07a no flank");
	b = sp(6, 6, 1);
	ok(grid_flank(&a, &b, &c), "T07b flank through corners");
	a = sp(4, 5, 1);
	ok(grid_flank(&a, &b, &c) == 0, "(4,5)/(6,6) not opposite");
	b = sp(6, 5, 1);
	ok(grid_flank(&a, &b, &c), "(4,5)/(6,5) flank");

	/* T10 cover by a creature; T11d no cover */
	clear();
	{
		uint8_t prov[400];

		memset(prov, 0, sizeof(prov));
		prov[0 * 20 + 3] = 1;
		a = sp(0, 0, 1);
		b = sp(4, 0, 1);
		ok(grid_ranged_cover(&G, prov, &a, &b), "T10 creature cover");
		memset(prov, 0, sizeof(prov));
		wall(6, 5);
		a = sp(5, 5, 1);
		b = sp(6, 6, 1);
		ok(!grid_ranged_cover(&G, prov, &a, &b),
		    "T11d no cover from corner (6,6)");
		a = sp(0, 0, 1);
		b = sp(10, 0, 1);
		ok(!grid_ranged_cover(&G, prov, &a, &b), "open: no cover");
	}

	/* Movement Dijkstra: 4 diagonals cost 6 */
	clear();
	grid_paths(&G, 0, 0, 0, 40, open_step, &G, dist, NULL);
	n = dist[(4 * 20 + 4) * 2 + 0];
	is_int(n, 6, "paths: (4,4) costs 6 at even parity");

	/* Templates */
	for (n = 0, y = 0; y < 20; y++)
		for (x = 0; x < 20; x++)
			n += grid_burst(10, 10, x, y) <= 2;
	is_int(n, 16, "radius 2 = 16 squares");
	for (n = 0, y = 0; y < 20; y++)
		for (x = 0; x < 20; x++)
			n += grid_burst(10, 10, x, y) <= 4;
	is_int(n, 52, "radius 4 = 52 squares");
	for (i = 0; i < 2; i++) {
		for (n = 0, y = 0; y < 20; y++)
			for (x = 0; x < 20; x++)
				n += grid_in_cone(10, 10, i, x, y);
		is_int(n, i ? 28 : 32, i ? "quadrant cone 28" :
		    "axis cone 32");
	}
	return done_testing();
}
