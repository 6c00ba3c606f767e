/*
 * refd/board.h - the "board" member of a view, which viewers draw.
 *
 * Part of the SDK helper library (librefdsdk.a).  A plugin that puts a
 * "board" map in its views gets a drawn board in refd's web viewer and in
 * any other viewer without a line of viewer code; refd-plugin(3), BOARD,
 * describes every field.  The board is part of the view, so it shows only
 * what that audience may see: leave out what the seat cannot see.
 *
 *	refd_board_begin(w, REFD_BOARD_GRID, 20, 20);
 *	refd_board_cells(w);
 *	refd_board_cell(w, 3, 4, "wall");
 *	refd_mpw_end(w);
 *	refd_board_pieces(w);
 *	p = refd_board_piece_init(7, "Ogre", 1, 9, 14);
 *	p.size = 2; p.hp = 25; p.hp_max = 50;
 *	refd_board_piece(w, &p);
 *	refd_mpw_str(w, "stunned");	(tags, then)
 *	refd_board_piece_end(w);
 *	refd_mpw_end(w);
 *	refd_board_end(w);
 */
#ifndef REFD_BOARD_H
#define REFD_BOARD_H

#include <stdint.h>

#include "refd/mp.h"

#ifdef __cplusplus
extern "C" {
#endif

#define REFD_BOARD_GRID "grid"	/* squares (x, y), x east, y south */
#define REFD_BOARD_HEX "hex"	/* axial (q, r), pointy top, r south */
#define REFD_BOARD_TABLE "table"	/* continuous, in the ruleset's units */

/* No hit points shown. */
#define REFD_BOARD_NOHP INT32_MIN

struct refd_board_piece {
	int64_t id;		/* stable across views */
	const char *name;	/* the game's name */
	const char *label;	/* 1-3 characters drawn on it, or NULL */
	int32_t side;		/* seat (or team) 0.., -1: nobody's */
	int64_t x, y;		/* cell, or centre in table units */
	int64_t size;		/* cells per side, or base radius (table) */
	int64_t fx, fy;		/* facing: a vector toward the front, or 0 0 */
	int32_t arc;		/* front arc in degrees, 0: none drawn */
	int32_t hp, hp_max;	/* or REFD_BOARD_NOHP */
	const char *rank;	/* "normal", "elite", "boss"... or NULL */
	const char *role;	/* "leader", "warjack"... or NULL */
	int gone;		/* off the board: dead, fled, not deployed */
};

/* Open the "board" member of the view map being written; w and h are the
 * grid's columns and rows or the table's size in units (0: from cells). */
void refd_board_begin(refd_mpw *w, const char *kind, int64_t width,
    int64_t height);
/* Close it. */
void refd_board_end(refd_mpw *w);
/* Open the "cells" array; close it with refd_mpw_end. */
void refd_board_cells(refd_mpw *w);
/* One cell: [x, y, terrain], terrain a short lower-case word. */
void refd_board_cell(refd_mpw *w, int64_t x, int64_t y, const char *terrain);
/* Open the "marks" array; close it with refd_mpw_end. */
void refd_board_marks(refd_mpw *w);
/* One mark on the board: [x, y, label]. */
void refd_board_mark(refd_mpw *w, int64_t x, int64_t y, const char *label);
/* Open the "pieces" array; close it with refd_mpw_end. */
void refd_board_pieces(refd_mpw *w);
/* A piece with defaults: size 1, no facing, no arc, no hp, on the board. */
struct refd_board_piece refd_board_piece_init(int64_t id, const char *name,
    int32_t side, int64_t x, int64_t y);
/* Write a piece and open its "tags" array (conditions, states: short
 * lower-case words); add them with refd_mpw_str, then call
 * refd_board_piece_end. */
void refd_board_piece(refd_mpw *w, const struct refd_board_piece *p);
void refd_board_piece_end(refd_mpw *w);
/* Open the "info" map (label to value: round, score...), closed with
 * refd_mpw_end; values are any msgpack value. */
void refd_board_info(refd_mpw *w);

#ifdef __cplusplus
}
#endif

#endif /* REFD_BOARD_H */
