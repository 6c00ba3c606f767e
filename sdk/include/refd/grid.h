/*
 * refd/grid.h - square-grid geometry for grid rulesets (integer only).
 *
 * Part of the SDK helper library.  A grid is w x h squares addressed (x, y),
 * x east, y south; square (x, y) covers [x, x+1] x [y, y+1].  Everything
 * outside the grid is wall.  A "space" is an s x s block of squares whose
 * north-west square is its anchor (x, y).
 *
 * Distances follow the 1-2-1 diagonal rule: D = max(dx, dy) +
 * floor(min(dx, dy) / 2).  Line of sight samples 5 points per square
 * (centre and the corners moved 1/16 square inward) and needs a segment
 * that neither crosses nor touches a wall square.  Cover uses the convex
 * hull of a corner of the attacker and the target's rectangle with a strict
 * separating-axis test.  No floating point anywhere.
 */
#ifndef REFD_GRID_H
#define REFD_GRID_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GRID_MAXW 64
#define GRID_MAXH 64

/* Square flags. */
enum grid_flag {
	GRID_WALL = 1u << 0,
	GRID_DIFFICULT = 1u << 1,
	GRID_STATUE = 1u << 2,
	GRID_BLOOD = 1u << 3,
	GRID_SACRED = 1u << 4,
	GRID_SHARP = 1u << 5,
	GRID_PIT = 1u << 6
};

struct grid {
	int w, h;
	const uint8_t *flags;	/* w * h, row-major (index y * w + x) */
};

struct grid_space {
	int x, y, s;		/* anchor and side (1, 2 or 3) */
};

/* Flags of a square; outside the grid: GRID_WALL. */
unsigned grid_at(const struct grid *g, int x, int y);
int grid_is_wall(const struct grid *g, int x, int y);

/* 1-2-1 distance between squares and between spaces (minimum over pairs). */
int grid_dist(int x1, int y1, int x2, int y2);
int grid_space_dist(const struct grid_space *a, const struct grid_space *b);

/* Squares adjacent: distance 1 and not a diagonal whose two connecting
 * orthogonal squares are both walls. */
int grid_sq_adjacent(const struct grid *g, int x1, int y1, int x2, int y2);
/* Spaces adjacent: some pair of their squares is adjacent. */
int grid_adjacent(const struct grid *g, const struct grid_space *a,
    const struct grid_space *b);

/* Line of sight between two spaces (walls block, touching blocks). */
int grid_los(const struct grid *g, const struct grid_space *a,
    const struct grid_space *b);
/* Line of sight from lattice point (px, py) to a square (areas, §5.5). */
int grid_los_point(const struct grid *g, int px, int py, int x, int y);

/*
 * Ranged cover: 1 iff the target is covered from every corner of the
 * attacker's space.  prov (w * h, nonzero = cover provider: walls are
 * added by the function, the caller marks statues and creatures other
 * than attacker and target) may be NULL for walls only.
 */
int grid_ranged_cover(const struct grid *g, const uint8_t *prov,
    const struct grid_space *att, const struct grid_space *tgt);

/* Melee cover: 1 iff every adjacent (attacker square, defender square)
 * pair has a wall square whose interior meets their hull; 0 if no pair
 * is adjacent. */
int grid_melee_cover(const struct grid *g, const struct grid_space *att,
    const struct grid_space *def);

/* Flanking geometry: some centre-to-centre segment from a square of att to
 * a square of helper crosses two opposite edges of def's rectangle. */
int grid_flank(const struct grid_space *att, const struct grid_space *helper,
    const struct grid_space *def);

/*
 * Wall-path distance between spaces: cheapest 8-connected path of a
 * 1-square probe from any square of a to any square of b, never entering
 * a wall nor cutting a wall corner, 1-2-1 diagonals.  -1 if none within
 * limit (limit < 0: no limit).
 */
int grid_wall_path(const struct grid *g, const struct grid_space *a,
    const struct grid_space *b, int limit);

/* A diagonal step of an s-sized space from (x, y) by (dx, dy) cuts a wall
 * corner (§3.1.4). */
int grid_cuts_corner(const struct grid *g, int x, int y, int s, int dx,
    int dy);

/*
 * Movement: Dial's shortest paths over (anchor, diagonal parity).  The
 * step callback returns -1 if the step from anchor (fx, fy) to (tx, ty)
 * is not allowed, 1 if slowed (2 orthogonal, 3 diagonal, parity kept),
 * 0 otherwise (1 orthogonal, 1 or 2 diagonal by parity).  dist receives
 * w * h * 2 costs (index (y * w + x) * 2 + parity, -1 unreachable), prev
 * (may be NULL) the predecessor state index.  Costs above limit are not
 * explored.
 */
typedef int (*grid_step_fn)(void *ud, int fx, int fy, int tx, int ty);
int grid_paths(const struct grid *g, int x, int y, int parity, int limit,
    grid_step_fn step, void *ud, int32_t *dist, int32_t *prev);
/* Cost of one step given parity; updates *parity. */
int grid_step_cost(int dx, int dy, int slowed, int *parity);

/* Half damage rounded down to a multiple of 5. */
int grid_half5(int dmg);

/*
 * Burst distance from lattice point (ox, oy) to square (x, y):
 * a = |x + 1/2 - ox| - 1/2, b likewise, bd = 1 + max + floor(min / 2).
 */
int grid_burst(int ox, int oy, int x, int y);
/* Cone membership: orientation 0..7 = E, SE, S, SW, W, NW, N, NE (even:
 * axis-centred, odd: quadrant), burst distance <= 6. */
int grid_in_cone(int ox, int oy, int orient, int x, int y);

#ifdef __cplusplus
}
#endif

#endif /* REFD_GRID_H */
