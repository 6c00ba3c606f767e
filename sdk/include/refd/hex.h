/*
 * refd/hex.h - hex-grid geometry for plugin authors, integer only.
 *
 * Part of the SDK helper library (librefdsdk.a).  Axial coordinates (q, r),
 * pointy-top hexes, r growing southward.  Directions 0..5 are E, NE, NW, W,
 * SW, SE.  For exact line-of-sight tests every hex is drawn on an integer
 * lattice: the centre of (q, r) is X = 2q + r, Y = 3r and its six corners
 * are the centre plus (1,1), (0,2), (-1,1), (-1,-1), (0,-2), (1,-1).  That
 * picture is an affine image of the regular one, so segment and polygon
 * intersection tests give the same answers.
 *
 * No allocation, no global state; every function is thread-safe.
 */
#ifndef REFD_HEX_H
#define REFD_HEX_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Offsets of the six neighbours, direction d = 0..5: E NE NW W SW SE. */
extern const int refd_hex_dq[6];
extern const int refd_hex_dr[6];

/* Hex distance (|dq| + |dr| + |dq + dr|) / 2, ignoring walls. */
int refd_hex_distance(int q1, int r1, int q2, int r2);

/* Direction 0..5 from (q1, r1) to its neighbour (q2, r2), or -1. */
int refd_hex_direction(int q1, int r1, int q2, int r2);

/*
 * Orient offset (dq, dr) by o = 0..11: o % 6 rotations of 60 degrees,
 * mirrored first when o >= 6.  Used to place area patterns.
 */
void refd_hex_orient(int dq, int dr, int o, int *oq, int *orr);

/* The lattice corner k = 0..5 of hex (q, r). */
void refd_hex_corner(int q, int r, int k, int64_t *x, int64_t *y);

/*
 * What blocks sight, asked by refd_hex_los:
 * solid(q, r) -> nonzero for a wall hex or closed door;
 * thin(q1, r1, q2, r2) -> nonzero when a thin wall lies on the shared edge
 * of two neighbouring hexes (may be NULL: no thin walls).
 */
struct refd_hex_map {
	int (*solid)(void *ud, int q, int r);
	int (*thin)(void *ud, int q1, int r1, int q2, int r2);
	void *ud;
};

enum refd_hex_los_policy {
	REFD_HEX_LOS_STRICT = 0,	/* no contact with walls at all */
	REFD_HEX_LOS_LENIENT = 1	/* contact only at the two end corners */
};

/*
 * Line of sight from hex a to hex b: true when a == b, when they are
 * neighbours with no solid hex and no thin wall between them, or when a
 * segment from a corner of a to a corner of b is clear of every solid
 * hexagon (closed) and thin wall under the policy.  Returns 1 or 0.
 */
int refd_hex_los(const struct refd_hex_map *m, int qa, int ra, int qb,
    int rb, int policy);

/* Neighbours (q1, r1) and (q2, r2) are adjacent: neither solid, no thin
 * wall on their edge.  Returns 1 or 0. */
int refd_hex_adjacent(const struct refd_hex_map *m, int q1, int r1, int q2,
    int r2);

#ifdef __cplusplus
}
#endif

#endif /* REFD_HEX_H */
