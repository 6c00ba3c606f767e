/*
 * board.c - the dungeon map: hexes, walls, doors, range, line of sight and
 * monster travel costs (spec §1, §12.4).
 */
#include <string.h>

#include "dg.h"

const char *const cond_name[NCOND] = { "poison", "wound", "immobilize",
	"disarm", "stun", "muddle", "invisible", "strengthen", "bless",
	"curse" };
const char *const elem_name[NELEM] = { "fire", "ice", "air", "earth",
	"light", "dark" };

int
hex_at(const struct dg *s, int q, int r)
{
	if (q + Q0 < 0 || q + Q0 >= GQ || r + R0 < 0 || r + R0 >= GR)
		return -1;
	return s->grid[q + Q0][r + R0] - 1;
}

int
fig_at(const struct dg *s, int q, int r)
{
	int i;

	for (i = 0; i < s->nfig; i++)
		if (s->fig[i].alive && s->fig[i].q == q && s->fig[i].r == r)
			return i;
	return -1;
}

/* A wall hex or a closed or locked door: blocks sight and range. */
int
solid(const struct dg *s, int q, int r)
{
	int h = hex_at(s, q, r);

	return h < 0 || s->hex[h].door == DOOR_CLOSED ||
	    s->hex[h].door == DOOR_LOCKED;
}

static int
solid_cb(void *ud, int q, int r)
{
	return solid(ud, q, r);
}

/* A thin wall on the edge between two neighbouring hexes (§1.2). */
static int
thin_cb(void *ud, int q1, int r1, int q2, int r2)
{
	const struct dg *s = ud;
	int i;

	for (i = 0; i < s->nthin; i++) {
		const int32_t *t = s->thin[i];

		if ((t[0] == q1 && t[1] == r1 && t[2] == q2 && t[3] == r2) ||
		    (t[0] == q2 && t[1] == r2 && t[2] == q1 && t[3] == r1))
			return 1;
	}
	return 0;
}

int
adjacent(const struct dg *s, int q1, int r1, int q2, int r2)
{
	struct refd_hex_map m = { solid_cb, thin_cb, (void *)(uintptr_t)s };

	return refd_hex_adjacent(&m, q1, r1, q2, r2);
}

int
los(const struct dg *s, int q1, int r1, int q2, int r2)
{
	struct refd_hex_map m = { solid_cb, thin_cb, (void *)(uintptr_t)s };

	return refd_hex_los(&m, q1, r1, q2, r2, s->los);
}

/*
 * Range: steps of a shortest chain of adjacent hexes; walls and closed
 * doors are gone around, figures and overlays ignored (§1.4).  A closed
 * door at either end still counts (a figure standing next to it).
 */
/*
 * Ranges from hex a to every hex into out[] (1000 where none): a
 * breadth-first search through adjacent hexes; a hex reached from a
 * non-solid neighbour across no thin wall is in range even when it is
 * solid itself (a closed door at the end).
 */
static void
range_row(const struct dg *s, int a, int16_t *out)
{
	int dist[MAXHEX], queue[MAXHEX], head = 0, tail = 0, i, d;

	for (i = 0; i < s->nhex; i++) {
		dist[i] = -1;
		out[i] = 1000;
	}
	dist[a] = 0;
	out[a] = 0;
	queue[tail++] = a;
	while (head < tail) {
		int h = queue[head++];
		int hq = s->hex[h].q, hr = s->hex[h].r;
		int open = !solid(s, hq, hr);

		for (d = 0; d < 6; d++) {
			int nq = hq + refd_hex_dq[d];
			int nr = hr + refd_hex_dr[d];
			int n = hex_at(s, nq, nr);

			if (n < 0)
				continue;
			if (out[n] == 1000 && open &&
			    !thin_cb((void *)(uintptr_t)s, hq, hr, nq, nr))
				out[n] = (int16_t)(dist[h] + 1);
			if (dist[n] >= 0 || !adjacent(s, hq, hr, nq, nr))
				continue;
			dist[n] = dist[h] + 1;
			queue[tail++] = n;
		}
	}
}

int
range_between(const struct dg *s, int q1, int r1, int q2, int r2)
{
	int16_t row[MAXHEX];
	int a = hex_at(s, q1, r1), b = hex_at(s, q2, r2);

	if (a < 0 || b < 0)
		return 1000;
	if (a == b)
		return 0;
	range_row(s, a, row);
	return row[b];
}

/* Start remembering ranges and sight in m (owned by the caller, which
 * calls memo_end before m goes away). */
void
memo_begin(struct game *g, struct sight_memo *m)
{
	memset(m->have_range, 0, sizeof(m->have_range));
	memset(m->have_los, 0, sizeof(m->have_los));
	g->memo = m;
}

void
memo_end(struct game *g)
{
	g->memo = NULL;
}

int
g_range(const struct game *g, int q1, int r1, int q2, int r2)
{
	struct sight_memo *m = g->memo;
	int a, b;

	if (m == NULL)
		return range_between(&g->s, q1, r1, q2, r2);
	a = hex_at(&g->s, q1, r1);
	b = hex_at(&g->s, q2, r2);
	if (a < 0 || b < 0)
		return 1000;
	if (!m->have_range[a]) {
		range_row(&g->s, a, m->range[a]);
		m->have_range[a] = 1;
	}
	return m->range[a][b];
}

int
g_los(const struct game *g, int q1, int r1, int q2, int r2)
{
	struct sight_memo *m = g->memo;
	int a, b;

	if (m == NULL)
		return los(&g->s, q1, r1, q2, r2);
	a = hex_at(&g->s, q1, r1);
	b = hex_at(&g->s, q2, r2);
	if (a < 0 || b < 0)
		return los(&g->s, q1, r1, q2, r2);
	if (!m->have_los[a]) {
		memset(m->los[a], 0, sizeof(m->los[a]));
		m->have_los[a] = 1;
	}
	if (m->los[a][b] == 0)
		m->los[a][b] = los(&g->s, q1, r1, q2, r2) ? 1 : 2;
	return m->los[a][b] == 1;
}

/* Character side (characters, summons) against monsters. */
int
enemies(const struct dg *s, int a, int b)
{
	int ka = s->fig[a].kind, kb = s->fig[b].kind;

	/* an HP obstacle is an enemy of characters and their summons only */
	if (ka == F_OBSTACLE || kb == F_OBSTACLE)
		return ka != kb && ka != F_MONSTER && kb != F_MONSTER;
	return (ka == F_MONSTER) != (kb == F_MONSTER);
}

/* Hexes of unrevealed rooms are shown as bare floor. */
int
visible_hex(const struct dg *s, int h)
{
	return (s->revealed >> s->hex[h].room) & 1;
}

/* Hex h may end a move of figure f. */
int
can_end(const struct dg *s, int f, int h, int flying)
{
	int o = fig_at(s, s->hex[h].q, s->hex[h].r);

	if (o >= 0 && o != f)
		return 0;
	if (s->hex[h].door == DOOR_CLOSED || s->hex[h].door == DOOR_LOCKED)
		return 0;
	if (s->hex[h].ov == OV_OBSTACLE && !flying)
		return 0;
	return 1;
}

/* Entering hex h counts as a negative hex for a normal mover. */
static int
negative(const struct dg *s, int h)
{
	return s->hex[h].ov == OV_TRAP || s->hex[h].ov == OV_HAZARD;
}

/*
 * Cost for figure f of entering hex n in travel mode (0 normal, 1 jump,
 * 2 flying): negative hexes * 1000 + MP, or -1 when it may not enter it.
 * Normal movers can't enter enemies (invisible ones too), obstacles,
 * closed doors; they may pass allies.  Flyers ignore figures, obstacles
 * and terrain.  Jumpers ignore all but walls and doors on the way.
 */
int
step_cost(const struct dg *s, int f, int n, int mode)
{
	int o = fig_at(s, s->hex[n].q, s->hex[n].r), c = 1;

	if (mode != 0)
		return c;
	if (o >= 0 && o != f && enemies(s, f, o))
		return -1;
	if (s->hex[n].ov == OV_OBSTACLE)
		return -1;
	if (s->hex[n].ov == OV_DIFFICULT)
		c = 2;
	if (negative(s, n))
		c += 1000;
	return c;
}

/* Dijkstra of monster travel (§12.4) with step_cost. */
void
travel(const struct dg *s, int f, int q, int r, int mode, int *cost,
    int *prev)
{
	int done[MAXHEX], i, start = hex_at(s, q, r);

	for (i = 0; i < s->nhex; i++) {
		cost[i] = -1;
		prev[i] = -1;
		done[i] = 0;
	}
	if (start < 0)
		return;
	cost[start] = 0;
	for (;;) {
		int best = -1, d;

		for (i = 0; i < s->nhex; i++)
			if (!done[i] && cost[i] >= 0 &&
			    (best < 0 || cost[i] < cost[best]))
				best = i;
		if (best < 0)
			break;
		done[best] = 1;
		for (d = 0; d < 6; d++) {
			int nq = s->hex[best].q + refd_hex_dq[d];
			int nr = s->hex[best].r + refd_hex_dr[d];
			int n = hex_at(s, nq, nr), c;

			if (n < 0 || done[n])
				continue;
			if (!adjacent(s, s->hex[best].q, s->hex[best].r, nq, nr))
				continue;
			if ((c = step_cost(s, f, n, mode)) < 0)
				continue;
			c += cost[best];
			if (cost[n] < 0 || c < cost[n]) {
				cost[n] = c;
				prev[n] = best;
			}
		}
	}
}

/* Lay out map m in the state: hexes, doors, overlays, room monsters. */
void
load_map(struct dg *s, const struct mapdef *m)
{
	int i;

	memset(s->grid, 0, sizeof(s->grid));
	s->nhex = m->nhex;
	for (i = 0; i < m->nhex; i++) {
		struct hexs *h = &s->hex[i];

		h->q = m->hq[i];
		h->r = m->hr[i];
		h->room = m->hroom[i];
		h->ov = m->hov[i];
		h->door = m->hdoor[i];
		h->val = m->hval[i];
		s->grid[h->q + Q0][h->r + R0] = i + 1;
	}
	s->nrmon = m->nmon;
	memcpy(s->rmon, m->mon, sizeof(s->rmon[0]) * (size_t)m->nmon);
	s->nthin = m->nthin;
	memcpy(s->thin, m->thin, sizeof(s->thin));
	s->nstart = m->nstart;
	memcpy(s->start, m->start, sizeof(s->start));
	s->revealed = 1;
}
