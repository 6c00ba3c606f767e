/*
 * board.c - the "board" member of a view (see refd/board.h).
 */
#include "refd/board.h"

void
refd_board_begin(refd_mpw *w, const char *kind, int64_t width,
    int64_t height)
{
	refd_mpw_kmap(w, "board");
	refd_mpw_kstr(w, "kind", kind);
	if (width > 0 && height > 0) {
		refd_mpw_kint(w, "w", width);
		refd_mpw_kint(w, "h", height);
	}
}

void
refd_board_end(refd_mpw *w)
{
	refd_mpw_end(w);
}

void
refd_board_cells(refd_mpw *w)
{
	refd_mpw_karray(w, "cells");
}

static void
triple(refd_mpw *w, int64_t x, int64_t y, const char *s)
{
	refd_mpw_array(w);
	refd_mpw_int(w, x);
	refd_mpw_int(w, y);
	refd_mpw_str(w, s);
	refd_mpw_end(w);
}

void
refd_board_cell(refd_mpw *w, int64_t x, int64_t y, const char *terrain)
{
	triple(w, x, y, terrain);
}

void
refd_board_marks(refd_mpw *w)
{
	refd_mpw_karray(w, "marks");
}

void
refd_board_mark(refd_mpw *w, int64_t x, int64_t y, const char *label)
{
	triple(w, x, y, label);
}

void
refd_board_pieces(refd_mpw *w)
{
	refd_mpw_karray(w, "pieces");
}

struct refd_board_piece
refd_board_piece_init(int64_t id, const char *name, int32_t side, int64_t x,
    int64_t y)
{
	struct refd_board_piece p;

	p.id = id;
	p.name = name;
	p.label = NULL;
	p.side = side;
	p.x = x;
	p.y = y;
	p.size = 1;
	p.fx = 0;
	p.fy = 0;
	p.arc = 0;
	p.hp = REFD_BOARD_NOHP;
	p.hp_max = REFD_BOARD_NOHP;
	p.rank = NULL;
	p.role = NULL;
	p.gone = 0;
	return p;
}

void
refd_board_piece(refd_mpw *w, const struct refd_board_piece *p)
{
	refd_mpw_map(w);
	refd_mpw_kint(w, "id", p->id);
	refd_mpw_kstr(w, "name", p->name);
	if (p->label != NULL)
		refd_mpw_kstr(w, "label", p->label);
	refd_mpw_kint(w, "side", p->side);
	refd_mpw_kint(w, "x", p->x);
	refd_mpw_kint(w, "y", p->y);
	refd_mpw_kint(w, "size", p->size);
	if (p->fx != 0 || p->fy != 0) {
		refd_mpw_karray(w, "facing");
		refd_mpw_int(w, p->fx);
		refd_mpw_int(w, p->fy);
		refd_mpw_end(w);
	}
	if (p->arc > 0)
		refd_mpw_kint(w, "arc", p->arc);
	if (p->hp != REFD_BOARD_NOHP)
		refd_mpw_kint(w, "hp", p->hp);
	if (p->hp_max != REFD_BOARD_NOHP)
		refd_mpw_kint(w, "hp_max", p->hp_max);
	if (p->rank != NULL)
		refd_mpw_kstr(w, "rank", p->rank);
	if (p->role != NULL)
		refd_mpw_kstr(w, "role", p->role);
	if (p->gone)
		refd_mpw_kbool(w, "gone", 1);
	refd_mpw_karray(w, "tags");
}

void
refd_board_piece_end(refd_mpw *w)
{
	refd_mpw_end(w);
	refd_mpw_end(w);
}

void
refd_board_info(refd_mpw *w)
{
	refd_mpw_kmap(w, "info");
}
