/*
 * hex.c - unit tests of the SDK hex-grid helper (refd/hex.h).
 */
#include <stdio.h>
#include <string.h>

#include <refd/hex.h>

#include "../tap.h"

/* A rectangle R(W,H) minus some wall hexes; everything else is wall. */
struct rect {
	int w, h;
	int walls[8][2];
	int nwalls;
	int thin[2][4];
	int nthin;
};

static int
solid(void *ud, int q, int r)
{
	struct rect *m = ud;
	int c = q + r / 2, i;

	if (r < 0 || r >= m->h || c < 0 || c >= m->w)
		return 1;
	for (i = 0; i < m->nwalls; i++)
		if (m->walls[i][0] == q && m->walls[i][1] == r)
			return 1;
	return 0;
}

static int
thin(void *ud, int q1, int r1, int q2, int r2)
{
	struct rect *m = ud;
	int i;

	for (i = 0; i < m->nthin; i++) {
		const int *t = m->thin[i];

		if ((t[0] == q1 && t[1] == r1 && t[2] == q2 && t[3] == r2) ||
		    (t[0] == q2 && t[1] == r2 && t[2] == q1 && t[3] == r1))
			return 1;
	}
	return 0;
}

int
main(void)
{
	struct rect t29 = { 8, 5, { { 3, 1 }, { 3, 2 } }, 2, { { 0 } }, 0 };
	struct rect corr = { 6, 1, { { 0 } }, 0, { { 0 } }, 0 };
	struct rect open = { 6, 3, { { 0 } }, 0, { { 1, 0, 2, 0 } }, 1 };
	struct refd_hex_map m = { solid, thin, &t29 };
	int q, r, o, seen[12][2], i, j, dup = 0;

	is_int(refd_hex_distance(1, 2, 5, 2), 4, "distance along a row");
	is_int(refd_hex_distance(1, 2, 4, 0), 3, "distance across rows");
	is_int(refd_hex_distance(0, 0, -2, 1), 2, "distance with negatives");
	is_int(refd_hex_direction(0, 0, 1, -1), 1, "NE is direction 1");
	is_int(refd_hex_direction(0, 0, 2, 0), -1, "not a neighbour");

	/* T29 */
	ok(!refd_hex_los(&m, 1, 2, 5, 2, REFD_HEX_LOS_STRICT),
	    "T29 g1 hidden (strict)");
	ok(!refd_hex_los(&m, 1, 2, 5, 2, REFD_HEX_LOS_LENIENT),
	    "T29 g1 hidden (lenient)");
	ok(refd_hex_los(&m, 1, 2, 4, 3, REFD_HEX_LOS_STRICT),
	    "T29 g2 seen (strict)");
	ok(!refd_hex_los(&m, 1, 2, 4, 0, REFD_HEX_LOS_STRICT),
	    "T29 g3 hidden (strict)");
	ok(refd_hex_los(&m, 1, 2, 4, 0, REFD_HEX_LOS_LENIENT),
	    "T29 g3 seen (lenient)");
	ok(refd_hex_los(&m, 1, 2, 5, 3, REFD_HEX_LOS_STRICT),
	    "T29 (5,3) seen");

	/* T31: a 1-wide corridor is blind beyond adjacency under STRICT */
	m.ud = &corr;
	ok(refd_hex_los(&m, 0, 0, 1, 0, REFD_HEX_LOS_STRICT),
	    "corridor neighbours see each other");
	ok(!refd_hex_los(&m, 0, 0, 2, 0, REFD_HEX_LOS_STRICT),
	    "corridor range 2 blind (strict)");
	ok(refd_hex_los(&m, 0, 0, 4, 0, REFD_HEX_LOS_LENIENT),
	    "corridor range 4 seen (lenient)");

	/* thin wall between (1,0) and (2,0) */
	m.ud = &open;
	ok(!refd_hex_adjacent(&m, 1, 0, 2, 0), "thin wall breaks adjacency");
	ok(refd_hex_adjacent(&m, 1, 0, 1, 1), "other edges stay adjacent");
	ok(refd_hex_los(&m, 1, 0, 2, 1, REFD_HEX_LOS_STRICT),
	    "sight around the thin wall's end");

	/* orientations: 12 distinct images of an asymmetric offset pair */
	for (o = 0; o < 12; o++) {
		refd_hex_orient(2, -1, o, &q, &r);
		seen[o][0] = q * 100 + r;
		refd_hex_orient(1, 0, o, &q, &r);
		seen[o][1] = q * 100 + r;
		is_int(refd_hex_distance(0, 0, q, r), 1,
		    "orientation %d keeps distance", o);
	}
	for (i = 0; i < 12; i++)
		for (j = i + 1; j < 12; j++)
			dup += seen[i][0] == seen[j][0] &&
			    seen[i][1] == seen[j][1];
	is_int(dup, 0, "12 distinct orientations");
	refd_hex_orient(1, 0, 1, &q, &r);
	ok(q == 1 && r == -1, "rotating E once gives NE");
	return done_testing();
}
