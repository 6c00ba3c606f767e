/*
 * tiles.c - battlefield tiles and their assembly into a map, with the
 * connection rules of R004-08: open sides touch open sides, walled sides
 * never touch open ones, no corner-only joins, the large tiles form a
 * square (two players) or a rectangle, and each player's start tile
 * touches the large tiles.
 */
#include <stdio.h>
#include <string.h>

#include "warband.h"

#define MAXPLACE 16

struct place {
	int t, x, y, w, h, owner;
	char rows[TILEW][TILEW + 1];
	char sides[4];		/* N E S W after rotation */
};

int
tiles_load(struct content *c, refd_mpv f, char *msg, size_t n)
{
	size_t i, y;

	if (!refd_mpv_ok(f))
		return 0;
	if (refd_mpv_type(f) != REFD_MP_MAP || refd_mpv_len(f) > MAXTILE) {
		snprintf(msg, n, "tiles.json: expected an object of at most "
		    "%d tiles", MAXTILE);
		return -1;
	}
	for (i = 0; i < refd_mpv_len(f); i++) {
		struct tiledef *t = &c->tile[c->ntile];
		refd_mpv v = refd_mpv_val_at(f, i), rows;
		const char *id = refd_mpv_cstr(refd_mpv_key_at(f, i), "?");
		const char *k = refd_mpv_get_str(v, "kind", "");
		const char *sd = refd_mpv_get_str(v, "sides", "");

		snprintf(t->id, sizeof(t->id), "%s", id);
		t->large = strcmp(k, "large") == 0;
		if (!t->large && strcmp(k, "small") != 0) {
			snprintf(msg, n, "tiles.json: '%s': field 'kind': "
			    "expected large or small", id);
			return -1;
		}
		if (strlen(sd) != 4 || strspn(sd, "ow") != 4) {
			snprintf(msg, n, "tiles.json: '%s': field 'sides': "
			    "expected 4 letters o or w (N E S W)", id);
			return -1;
		}
		memcpy(t->sides, sd, 5);
		rows = refd_mpv_get(v, "rows");
		t->h = (int)refd_mpv_len(rows);
		t->w = 0;
		for (y = 0; y < refd_mpv_len(rows) && y < TILEW; y++) {
			const char *r;
			size_t len;

			size_t q;

			if (refd_mpv_str(refd_mpv_at(rows, y), &r, &len) ||
			    len < 1 || len > TILEW || (t->w && (int)len !=
			    t->w))
				break;
			for (q = 0; q < len; q++)
				if (strchr(".X~^OMTS", r[q]) == NULL ||
				    r[q] == '\0')
					break;
			if (q < len)
				break;
			t->w = (int)len;
			memcpy(t->rows[y], r, len);
			t->rows[y][len] = '\0';
		}
		if (t->h < 1 || t->h > TILEW || y != (size_t)t->h) {
			snprintf(msg, n, "tiles.json: '%s': field 'rows': "
			    "1 to %d rows of . X ~ ^ O M T S, equal widths",
			    id, TILEW);
			return -1;
		}
		c->ntile++;
	}
	return 0;
}

/* Rotate a placed tile a quarter turn clockwise. */
static void
rot90(struct place *p)
{
	char r[TILEW][TILEW + 1];
	char s0 = p->sides[3];
	int x, y, w = p->h, h = p->w;

	for (y = 0; y < h; y++) {
		for (x = 0; x < w; x++)
			r[y][x] = p->rows[p->h - 1 - x][y];
		r[y][w] = '\0';
	}
	memcpy(p->rows, r, sizeof(r));
	p->w = w;
	p->h = h;
	p->sides[3] = p->sides[2];
	p->sides[2] = p->sides[1];
	p->sides[1] = p->sides[0];
	p->sides[0] = s0;
}

static int
overlap(int a0, int a1, int b0, int b1)
{
	int lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;

	return hi - lo;
}

/* How tiles a and b touch: 0 not at all, 1 along an edge (sides set),
 * -1 at a corner only, -2 overlapping. */
static int
touch(const struct place *a, const struct place *b, int *sa, int *sb)
{
	int ox = overlap(a->x, a->x + a->w, b->x, b->x + b->w);
	int oy = overlap(a->y, a->y + a->h, b->y, b->y + b->h);

	if (ox > 0 && oy > 0)
		return -2;
	if (ox == 0 && oy == 0)
		return -1;
	if (ox == 0 && oy > 0) {
		*sa = a->x < b->x ? 1 : 3;
		*sb = a->x < b->x ? 3 : 1;
		return 1;
	}
	if (oy == 0 && ox > 0) {
		*sa = a->y < b->y ? 2 : 0;
		*sb = a->y < b->y ? 0 : 2;
		return 1;
	}
	return 0;
}

#define BAD(...) (snprintf(msg, n, __VA_ARGS__), -1)

int
tiles_assemble(const struct content *c, refd_mpv layout, struct mapdef *m,
    char *msg, size_t n)
{
	struct place pl[MAXPLACE];
	int np = 0, i, j, k, x, y, W = 0, H = 0, players = 0;
	int lx0 = 1000, ly0 = 1000, lx1 = 0, ly1 = 0, larea = 0;
	int reach[MAXPLACE], changed;

	if (refd_mpv_type(layout) != REFD_MP_ARRAY ||
	    refd_mpv_len(layout) < 1 || refd_mpv_len(layout) > MAXPLACE)
		return BAD("layout: expected 1 to %d placed tiles", MAXPLACE);
	for (i = 0; i < (int)refd_mpv_len(layout); i++) {
		refd_mpv v = refd_mpv_at(layout, (size_t)i);
		const char *id = refd_mpv_get_str(v, "tile", "");
		struct place *p = &pl[np];
		int64_t rot = refd_mpv_get_int(v, "rot", 0);

		for (k = 0; k < c->ntile; k++)
			if (strcmp(c->tile[k].id, id) == 0)
				break;
		if (k == c->ntile)
			return BAD("layout: no tile '%s' in tiles.json", id);
		p->t = k;
		p->x = (int)refd_mpv_get_int(v, "x", -1);
		p->y = (int)refd_mpv_get_int(v, "y", -1);
		p->owner = (int)refd_mpv_get_int(v, "owner", -1);
		p->w = c->tile[k].w;
		p->h = c->tile[k].h;
		memcpy(p->rows, c->tile[k].rows, sizeof(p->rows));
		memcpy(p->sides, c->tile[k].sides, 4);
		if (p->x < 0 || p->y < 0 || p->owner < 0 ||
		    p->owner >= MAXSEAT || rot < 0 || rot > 3)
			return BAD("layout: tile '%s' needs x, y >= 0, an owner "
			    "0..%d and rot 0..3", id, MAXSEAT - 1);
		while (rot-- > 0)
			rot90(p);
		if (p->x + p->w > W)
			W = p->x + p->w;
		if (p->y + p->h > H)
			H = p->y + p->h;
		if (p->owner + 1 > players)
			players = p->owner + 1;
		np++;
	}
	if (W > MAXW || H > MAXW)
		return BAD("layout: the battlefield is larger than %d squares",
		    MAXW);
	/* Connections. */
	for (i = 0; i < np; i++)
		for (j = i + 1; j < np; j++) {
			int sa = 0, sb = 0, r = touch(&pl[i], &pl[j], &sa, &sb);

			if (r == -2)
				return BAD("R004-08: tiles '%s' and '%s' "
				    "overlap", c->tile[pl[i].t].id,
				    c->tile[pl[j].t].id);
			if (r == 1 && pl[i].sides[sa] != pl[j].sides[sb])
				return BAD("R004-08: an open side of '%s' "
				    "touches a walled side of '%s'",
				    c->tile[pl[pl[i].sides[sa] == 'o' ? i :
				    j].t].id, c->tile[pl[pl[i].sides[sa] ==
				    'o' ? j : i].t].id);
		}
	/* One battlefield joined by sides: a tile that touches the others
	 * only at a corner is refused (no diagonal joins). */
	memset(reach, 0, sizeof(reach));
	reach[0] = 1;
	do {
		changed = 0;
		for (i = 0; i < np; i++)
			for (j = 0; j < np; j++) {
				int sa, sb;

				if (reach[i] && !reach[j] &&
				    touch(&pl[i], &pl[j], &sa, &sb) == 1) {
					reach[j] = 1;
					changed = 1;
				}
			}
	} while (changed);
	for (i = 0; i < np; i++)
		if (!reach[i])
			return BAD("R004-08: tile '%s' is not joined to the "
			    "others by a side (corners do not join)",
			    c->tile[pl[i].t].id);
	/* Large tiles: a full rectangle; a square for two players. */
	for (i = 0; i < np; i++)
		if (c->tile[pl[i].t].large) {
			larea += pl[i].w * pl[i].h;
			if (pl[i].x < lx0)
				lx0 = pl[i].x;
			if (pl[i].y < ly0)
				ly0 = pl[i].y;
			if (pl[i].x + pl[i].w > lx1)
				lx1 = pl[i].x + pl[i].w;
			if (pl[i].y + pl[i].h > ly1)
				ly1 = pl[i].y + pl[i].h;
		}
	if (larea == 0 || larea != (lx1 - lx0) * (ly1 - ly0))
		return BAD("R004-08: the large tiles must form a rectangle");
	if (players == 2 && lx1 - lx0 != ly1 - ly0)
		return BAD("R004-08: with two players the large tiles form a "
		    "square");
	/* Per player: 2 large + 2 small (two players), exactly one start
	 * tile, touching the large tiles. */
	for (k = 0; k < players; k++) {
		int nl = 0, ns = 0, nstart = 0;

		for (i = 0; i < np; i++) {
			int hs = 0;

			if (pl[i].owner != k)
				continue;
			if (c->tile[pl[i].t].large)
				nl++;
			else
				ns++;
			for (y = 0; y < pl[i].h; y++)
				hs |= strchr(pl[i].rows[y], 'S') != NULL;
			if (!hs)
				continue;
			nstart++;
			if (c->tile[pl[i].t].large)
				return BAD("R004-08: the start area of player "
				    "%d must be on a small tile", k + 1);
			if (!(overlap(pl[i].x, pl[i].x + pl[i].w, lx0, lx1) >
			    0 && (pl[i].y + pl[i].h == ly0 ||
			    pl[i].y == ly1)) && !(overlap(pl[i].y, pl[i].y +
			    pl[i].h, ly0, ly1) > 0 && (pl[i].x + pl[i].w ==
			    lx0 || pl[i].x == lx1)))
				return BAD("R004-08: player %d's start tile "
				    "must touch the large tiles", k + 1);
		}
		if (nstart != 1)
			return BAD("R004-08: player %d needs exactly one start "
			    "tile", k + 1);
		if (players == 2 && (nl != 2 || ns != 2))
			return BAD("R004-08: player %d brings 2 large and 2 "
			    "small tiles", k + 1);
	}
	/* Assemble: squares outside every tile are walls; walled sides
	 * that touch become thin walls. */
	m->w = W;
	m->h = H;
	memset(m->flags, 0, sizeof(m->flags));
	memset(m->start, 0, sizeof(m->start));
	memset(m->hw, 0, sizeof(m->hw));
	memset(m->vw, 0, sizeof(m->vw));
	for (y = 0; y < H; y++)
		for (x = 0; x < W; x++)
			m->flags[y * MAXW + x] = SQ_WALL;
	for (i = 0; i < np; i++) {
		for (y = 0; y < pl[i].h; y++)
			for (x = 0; x < pl[i].w; x++) {
				int q = (pl[i].y + y) * MAXW + pl[i].x + x;
				char ch = pl[i].rows[y][x];

				m->flags[q] = ch == 'X' ? SQ_WALL : ch == '~' ?
				    SQ_DIFF : ch == '^' ? SQ_HAZ : ch == 'O' ?
				    SQ_OBST : ch == 'M' ? SQ_MAGIC : ch ==
				    'T' ? SQ_TREAS : 0;
				if (ch == 'S')
					m->start[q] = (uint8_t)(pl[i].owner +
					    1);
			}
		for (x = 0; x < pl[i].w; x++) {
			if (pl[i].sides[0] == 'w')
				m->hw[pl[i].y * (MAXW + 1) + pl[i].x + x] = 1;
			if (pl[i].sides[2] == 'w')
				m->hw[(pl[i].y + pl[i].h) * (MAXW + 1) +
				    pl[i].x + x] = 1;
		}
		for (y = 0; y < pl[i].h; y++) {
			if (pl[i].sides[3] == 'w')
				m->vw[(pl[i].y + y) * (MAXW + 1) + pl[i].x] = 1;
			if (pl[i].sides[1] == 'w')
				m->vw[(pl[i].y + y) * (MAXW + 1) + pl[i].x +
				    pl[i].w] = 1;
		}
	}
	return 0;
}
