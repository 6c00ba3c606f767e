/*
 * tiles.c - terrain tiles (§2.1 steps 3-4): assembly tiles aligned with
 * the start zone's exits, feature tiles placed in turn under the overlap,
 * wall-contact and 2-square-gap rules; Scouts and Wandering Monsters.
 */
#include <stdio.h>
#include <string.h>

#include "rules.h"

/* Rotated size and the original cell of rotated cell (i, j). */
static void
rdims(const struct tile *t, int rot, int *w, int *h)
{
	*w = rot & 1 ? t->h : t->w;
	*h = rot & 1 ? t->w : t->h;
}

static int
cell(const struct tile *t, int rot, int i, int j)
{
	int oi, oj;

	switch (rot & 3) {
	case 0: oi = i; oj = j; break;
	case 1: oi = j; oj = t->h - 1 - i; break;
	case 2: oi = t->w - 1 - i; oj = t->h - 1 - j; break;
	default: oi = t->w - 1 - j; oj = i; break;
	}
	return oj * SK_TILEMAX + oi;
}

int
zone_at(const struct cx *x, const struct state *s, int i)
{
	return s->tiled ? s->tzone[i] : MAP(x, s)->zone[i];
}

/* §2.1 step 4: may seat place its tile number ti (1..3) at (px, py)? */
int
place_ok(const struct cx *x, const struct state *s, int seat, int ti, int px,
    int py, int rot, char *msg, size_t len)
{
	const struct map *m = MAP(x, s);
	const struct tile *t;
	int w, h, i, j, a, b;

	if (ti < 1 || ti > 3 || !(s->tleft[seat] >> ti & 1)) {
		snprintf(msg, len, "tile %d is not one of your tiles left to "
		    "place", ti);
		return -1;
	}
	if (rot < 0 || rot > 3) {
		snprintf(msg, len, "rotation is 0..3 quarter turns");
		return -1;
	}
	t = &x->c->t[s->tsub[seat][ti]];
	rdims(t, rot, &w, &h);
	if (px < 0 || py < 0 || px + w > m->w || py + h > m->h) {
		snprintf(msg, len, "%s does not fit on the grid there", t->id);
		return -1;
	}
	for (j = 0; j < h; j++)
		for (i = 0; i < w; i++) {
			int gx = px + i, gy = py + j;

			if (s->tile_at[gy * m->w + gx]) {
				snprintf(msg, len, "%s would overlap another "
				    "tile at (%d,%d)", t->id, gx, gy);
				return -1;
			}
		}
	for (j = 0; j < h; j++)
		for (i = 0; i < w; i++) {
			int gx = px + i, gy = py + j;

			if (!(t->f[cell(t, rot, i, j)] & GRID_WALL))
				continue;
			/* walls touch the border or leave >= 2 squares */
			if (gx == 1 || gx == m->w - 2 || gy == 1 ||
			    gy == m->h - 2) {
				snprintf(msg, len, "a wall of %s would leave a "
				    "1-square gap to the grid edge", t->id);
				return -1;
			}
			for (b = gy - 2; b <= gy + 2; b++)
				for (a = gx - 2; a <= gx + 2; a++) {
					if (a < 0 || b < 0 || a >= m->w ||
					    b >= m->h)
						continue;
					if (s->tile_at[b * m->w + a] &&
					    (s->tflag[b * m->w + a] & GRID_WALL)) {
						snprintf(msg, len, "a wall of %s "
						    "would touch or pass within "
						    "one square of another "
						    "tile's wall at (%d,%d)",
						    t->id, a, b);
						return -1;
					}
				}
		}
	return 0;
}

static void
put_tile(struct cx *x, struct state *s, int seat, int tile, int px, int py,
    int rot)
{
	const struct map *m = MAP(x, s);
	const struct tile *t = &x->c->t[tile];
	int w, h, i, j, k = s->nplaced;
	refd_mpw *ev;

	rdims(t, rot, &w, &h);
	for (j = 0; j < h; j++)
		for (i = 0; i < w; i++) {
			int q = (py + j) * m->w + px + i;

			s->tflag[q] = t->f[cell(t, rot, i, j)];
			s->tile_at[q] = (uint8_t)(k + 1);
			if (!t->feature)
				s->tzone[q] = (uint8_t)(s->zmap[seat] + 1);
		}
	s->placed[k][0] = tile;
	s->placed[k][1] = px;
	s->placed[k][2] = py;
	s->placed[k][3] = rot;
	s->placed[k][4] = seat;
	s->nplaced++;
	x->fl_ok = 0;
	ev = sk_ev("tile_placed");
	refd_mpw_kint(ev, "seat", seat);
	refd_mpw_kstr(ev, "tile", t->id);
	refd_mpw_kint(ev, "x", px);
	refd_mpw_kint(ev, "y", py);
	refd_mpw_kint(ev, "rot", rot);
	sk_emit(x, ev);
}

/* §2.1 step 3 (R000-09): where the assembly tile's exit squares on the
 * grid edge are exactly the start zone's exits: all 5 in a corner zone, 3
 * in a side zone of a 3-player game (the others lie inside the grid);
 * 0 and (px, py, rot) when it fits.  zone: the map's zone index. */
int
assembly_fit(const struct content *c, const struct map *m, int zone, int tile,
    int *ppx, int *ppy, int *prot)
{
	const struct tile *t = &c->t[tile];
	int rot, px, py, w, h, i, j;

	for (rot = 0; rot < 4; rot++) {
		rdims(t, rot, &w, &h);
		for (py = 0; py + h <= m->h; py++)
			for (px = 0; px + w <= m->w; px++) {
				int ok = 1, n = 0;

				for (j = 0; j < h && ok; j++)
					for (i = 0; i < w && ok; i++) {
						int e = t->ex[cell(t, rot, i, j)];
						int gx = px + i, gy = py + j;
						int q = gy * m->w + gx;

						if (!e || (gx != 0 && gy != 0 &&
						    gx != m->w - 1 &&
						    gy != m->h - 1))
							continue;
						if (m->exit[q] != zone + 1)
							ok = 0;
						n++;
					}
				if (ok && n == m->nexits[zone]) {
					*ppx = px;
					*ppy = py;
					*prot = rot;
					return 0;
				}
			}
	}
	return -1;
}

/* Any legal spot for any of seat's remaining tiles? */
static int
has_spot(const struct cx *x, const struct state *s, int seat)
{
	const struct map *m = MAP(x, s);
	char msg[160];
	int ti, px, py, rot;

	for (ti = 1; ti <= 3; ti++) {
		if (!(s->tleft[seat] >> ti & 1))
			continue;
		for (rot = 0; rot < 4; rot++)
			for (py = 0; py < m->h; py++)
				for (px = 0; px < m->w; px++)
					if (place_ok(x, s, seat, ti, px, py, rot,
					    msg, sizeof(msg)) == 0)
						return 1;
	}
	return 0;
}

/* Next seat to place a feature tile, or on to deployment. */
static void
next_placer(struct cx *x, struct state *s, int from)
{
	int k, seat;

	for (k = 0; k < s->nseats; k++) {
		seat = (from + k) % s->nseats;
		if (s->tleft[seat] && has_spot(x, s, seat)) {
			s->place_seat = seat;
			s->stage = ST_TILES;
			return;
		}
		if (s->tleft[seat]) {
			refd_mpw *w = sk_ev("tiles_skipped");

			refd_mpw_kint(w, "seat", seat);
			sk_emit(x, w);
			s->tleft[seat] = 0;
		}
	}
	s->stage = ST_DEPLOY;
	s->deploy_seat = s->setup_first;
	prep_deploy(x, s);
}

/* After setup_first: assembly tiles in order, then feature tiles. */
void
tiles_begin(struct cx *x, struct state *s)
{
	int k, seat, px, py, rot;

	for (k = 0; k < s->nseats; k++) {
		seat = (s->setup_first + k) % s->nseats;
		if (assembly_fit(x->c, MAP(x, s), s->zmap[seat],
		    s->tsub[seat][0], &px, &py, &rot) == 0)
			put_tile(x, s, seat, s->tsub[seat][0], px, py, rot);
		/* R000-06: 3 feature tiles each, 2 with 3 or 4 seats */
		s->tleft[seat] = s->nseats > 2 ? 2 | 4 : 2 | 4 | 8;
	}
	next_placer(x, s, s->setup_first);
}

void
tiles_place(struct cx *x, struct state *s, int seat, int ti, int px, int py,
    int rot)
{
	put_tile(x, s, seat, s->tsub[seat][ti], px, py, rot);
	s->tleft[seat] &= ~(1 << ti);
	next_placer(x, s, (seat + 1) % s->nseats);
}

/* The feature tile (placed index) a creature's space lies entirely on, or
 * -1. */
static int
on_feature(const struct cx *x, const struct state *s, int u, int ax, int ay)
{
	const struct map *m = MAP(x, s);
	int sz = CARD(x, s, u)->size, i, j, k = -1;

	for (i = 0; i < sz; i++)
		for (j = 0; j < sz; j++) {
			int q, t;

			if (ax + i >= m->w || ay + j >= m->h)
				return -1;
			q = (ay + j) * m->w + ax + i;
			t = s->tile_at[q] - 1;
			if (t < 0 || !x->c->t[s->placed[t][0]].feature ||
			    (k >= 0 && t != k))
				return -1;
			k = t;
		}
	return k;
}

static int
tile_has_creature(const struct cx *x, const struct state *s, int k)
{
	const struct map *m = MAP(x, s);
	int u, i, j;

	for (u = 0; u < s->nu; u++) {
		int sz = CARD(x, s, u)->size;

		if (!s->u[u].on)
			continue;
		for (i = 0; i < sz; i++)
			for (j = 0; j < sz; j++)
				if (s->tile_at[(s->u[u].y + j) * m->w +
				    s->u[u].x + i] == k + 1)
					return 1;
	}
	return 0;
}

/* §2.1 step 5 with Scouts and Wandering Monsters (R000-11, R000-12). */
int
deploy_ok(const struct cx *x, const struct state *s, int u, int ax, int ay)
{
	const struct map *m = MAP(x, s);
	int sz = CARD(x, s, u)->size, i, j, zone = 1, k;

	if (ax < 0 || ay < 0 || ax + sz > m->w || ay + sz > m->h)
		return 0;
	if (!end_ok(x, s, u, ax, ay))
		return 0;
	if (s->tiled && has(x, s, u, AB_WANDERING) && s->wm_unit == u &&
	    s->wm_tile >= 0)
		return on_feature(x, s, u, ax, ay) == s->wm_tile;
	for (i = 0; i < sz; i++)
		for (j = 0; j < sz; j++)
			if (zone_at(x, s, (ay + j) * m->w + ax + i) !=
			    s->zmap[s->u[u].seat] + 1)
				zone = 0;
	if (zone)
		return 1;
	if (s->tiled && has(x, s, u, AB_SCOUT)) {
		k = on_feature(x, s, u, ax, ay);
		return k >= 0 && !tile_has_creature(x, s, k);
	}
	return 0;
}

/* A27: a Wandering Monster about to deploy gets a feature tile drawn at
 * random (if it can stand anywhere on it). */
void
prep_deploy(struct cx *x, struct state *s)
{
	int u, k, n = 0, list[16], ax, ay, okk = 0;
	uint32_t r;
	const struct map *m = MAP(x, s);
	refd_mpw *w;

	for (u = 0; u < s->nu; u++)
		if (s->u[u].seat == s->deploy_seat && !s->u[u].deployed)
			break;
	if (u == s->nu || !s->tiled || !has(x, s, u, AB_WANDERING) ||
	    s->wm_unit == u)
		return;
	for (k = 0; k < s->nplaced; k++)
		if (x->c->t[s->placed[k][0]].feature)
			list[n++] = k;
	s->wm_unit = u;
	s->wm_tile = -1;
	if (n == 0)
		return;
	if (x->rc != REFD_OK || H->uniform(x->ctx, (uint32_t)n,
	    "wandering monster", &r) != REFD_OK) {
		if (x->rc == REFD_OK)
			x->rc = REFD_ESCRIPT;
		return;
	}
	s->wm_tile = list[r];
	for (ay = 0; ay < m->h && !okk; ay++)
		for (ax = 0; ax < m->w && !okk; ax++)
			okk = deploy_ok(x, s, u, ax, ay);
	if (!okk)
		s->wm_tile = -1;	/* nowhere on it: deploys normally */
	w = sk_ev("wandering_monster");
	refd_mpw_kint(w, "unit", u);
	refd_mpw_kint(w, "tile", s->wm_tile >= 0 ?
	    s->placed[s->wm_tile][0] : -1);
	sk_emit(x, w);
}
