/*
 * conceal.c - sight on the encounter map (spec 5.0, 5.2, 5.12, 8.4).
 *
 * Opaque fog (squares and edges) blocks sight, not effect (the set
 * Φ_opaque of 5.0), and gives total concealment with the geometry of
 * 5.2: against an adjacent viewer only when the whole space is inside
 * it; otherwise also when every corner choice of the viewer has some
 * line to the target's square that meets it.  Darkness is light, not a
 * screen (line of sight is "subject to light and senses", 5.0): it hides
 * a creature whose whole space is dark from a viewer without
 * darkvision, and hides nothing behind it.  A creature that v cannot see has total concealment
 * against v: it is attacked on a chosen square at 50 percent, draws no
 * attack of opportunity from v, and its position is shown only to the
 * seats that see it (8.4).
 *
 * Hide (a move action) needs cover or concealment against every enemy
 * the hider's seat sees; while it stands, each enemy against which the
 * hider has cover (not soft cover) or concealment cannot see it until
 * that enemy beats it with Spot.  Spot (a move action) is an opposed
 * check against each enemy the spotter cannot see: it locates an
 * invisible creature's square (+20 on its Hide if it moved during its
 * last turn, +40 if it stood still) and unmasks a hiding one.  Attacking
 * ends hiding.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "conceal.h"
#include "geom.h"

/* FNV-1a over the map: the sight cache's key (never 0). */
static uint64_t
fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n-- > 0) {
		h ^= *b++;
		h *= 1099511628211ULL;
	}
	return h;
}

void
cc_map_init(struct st *s)
{
	uint64_t h = 14695981039346656037ULL;

	s->dark_map = cc_dark_map(s);
	h = fnv(h, &s->w, sizeof(s->w));
	h = fnv(h, &s->h, sizeof(s->h));
	h = fnv(h, s->sq, sizeof(s->sq));
	h = fnv(h, s->fog, sizeof(s->fog));
	h = fnv(h, s->eh, sizeof(s->eh));
	h = fnv(h, s->ev, sizeof(s->ev));
	h |= 1;
	s->maph[0] = (int32_t)(uint32_t)h;
	s->maph[1] = (int32_t)(uint32_t)(h >> 32);
}

/*
 * The segment tests behind sight depend only on the map and the two
 * spaces (and the viewer's darkvision, the target's own concealment):
 * a per-thread cache keyed by all of them saves re-running them for
 * every path square the movement search tries.  It holds results only,
 * never state, so it cannot change an outcome.
 */
#define NCACHE 8192
struct centry {
	int32_t h0, h1;
	uint64_t key;
	int32_t val;
};
static __thread struct centry cache[NCACHE];

static int
cached(const struct st *s, int kind, int v, int c,
    int (*f)(const struct st *, int, int))
{
	const struct cr *V = &s->c[v], *C = &s->c[c];
	uint64_t k = (uint64_t)kind | (uint64_t)(V->d.darkvision != 0) << 2 |
	    (uint64_t)space_n(V) << 3 | (uint64_t)space_n(C) << 7 |
	    (uint64_t)V->x << 11 | (uint64_t)V->y << 17 |
	    (uint64_t)C->x << 23 | (uint64_t)C->y << 29 |
	    (uint64_t)(uint32_t)C->d.conceal << 35;
	uint64_t hh = (k ^ (uint64_t)(uint32_t)s->maph[0] ^
	    ((uint64_t)(uint32_t)s->maph[1] << 32)) * 11400714819323198485ULL;
	struct centry *e = &cache[hh >> 51];

	if (e->h0 != s->maph[0] || e->h1 != s->maph[1] || e->key != k) {
		e->val = f(s, v, c);
		e->h0 = s->maph[0];
		e->h1 = s->maph[1];
		e->key = k;
	}
	return e->val;
}

int
cc_dark_map(const struct st *s)
{
	int x, y;

	for (y = 0; y < s->h; y++)
		for (x = 0; x < s->w; x++)
			if (s->sq[y][x] & (SQ_DARK | SQ_OPAQUE))
				return 1;
	for (y = 0; y <= s->h; y++)
		for (x = 0; x <= s->w; x++)
			if ((s->eh[y][x] | s->ev[y][x]) & E_OPAQUE)
				return 1;
	return 0;
}

/* v cannot see into square (x, y): opaque fog, or darkness without
 * darkvision. */
static int
unlit_for(const struct st *s, int v, int x, int y)
{
	int fl;

	if (x < 0 || y < 0 || x >= s->w || y >= s->h)
		return 0;
	fl = s->sq[y][x];
	if (fl & SQ_OPAQUE)
		return 1;
	return (fl & SQ_DARK) && !(v >= 0 && s->c[v].d.darkvision);
}

int
cc_sq_opaque(const struct st *s, int v, int x, int y)
{
	(void)v;
	if (x < 0 || y < 0 || x >= s->w || y >= s->h)
		return 0;
	return (s->sq[y][x] & SQ_OPAQUE) != 0;
}

int
cc_edge_opaque(const struct st *s, int x, int y, int h)
{
	if (x < 0 || y < 0 || x > s->w || y > s->h)
		return 0;
	return ((h ? s->eh[y][x] : s->ev[y][x]) & E_OPAQUE) != 0;
}

/* Every square of c's space is inside darkness or opaque fog for v. */
static int
whole_inside(const struct st *s, int v, int c)
{
	const struct cr *C = &s->c[c];
	int n = space_n(C), i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if (!unlit_for(s, v, C->x + i, C->y + j))
				return 0;
	return 1;
}

static int
terrain_total(const struct st *s, int v, int c)
{
	if (whole_inside(s, v, c))
		return 1;
	if (cdist(&s->c[v], &s->c[c]) <= 1)
		return 0;	/* adjacent: the whole space only (5.2) */
	return feat_blocked(s, v, c, 5);
}

int
cc_terrain_total(const struct st *s, int v, int c)
{
	if (!s->dark_map || v < 0 || v == c)
		return 0;
	return cached(s, 0, v, c, terrain_total);
}

/* c has cover (not soft cover) against v: it may hide from v (5.1.6). */
static int
hide_cover(const struct st *s, int v, int c)
{
	if (cdist(&s->c[v], &s->c[c]) <= 1)
		return cover_vs(s, v, c, 1);
	return feat_blocked(s, v, c, 6);
}

static int
screened_raw(const struct st *s, int v, int c)
{
	int adj = cdist(&s->c[v], &s->c[c]) <= 1;

	return hide_cover(s, v, c) || conceal_terrain(s, v, c, adj) > 0;
}

/* c has cover or concealment against v (hiding is possible). */
static int
screened(const struct st *s, int v, int c)
{
	return cached(s, 1, v, c, screened_raw) || cc_terrain_total(s, v, c);
}

int
cc_unseen(const struct st *s, int v, int c)
{
	const struct cr *C = &s->c[c];

	if (v < 0 || v == c)
		return 0;
	if (s->dark_map && cc_terrain_total(s, v, c))
		return 1;
	if (!C->hiding || C->side == s->c[v].side ||
	    (C->spotted & (1 << v)))
		return 0;
	return screened(s, v, c);
}

int
cc_seat_sees(const struct st *s, int seat, int c)
{
	const struct cr *C = &s->c[c];
	int v, any = 0, other;

	if (C->side == seat)
		return 1;
	if (seat == REFD_SEAT_PUBLIC) {
		/* Everybody: every seat sees it. */
		if (C->d.invisible)
			return 0;
		for (other = 0; other < s->nseats; other++)
			if (!cc_seat_sees(s, other, c))
				return 0;
		return 1;
	}
	for (v = 0; v < s->nc; v++) {
		const struct cr *V = &s->c[v];

		if (V->side != seat || !able(V))
			continue;
		any = 1;
		if (perceives(s, v, c) || (C->spotted & (1 << v)))
			return 1;	/* seen, or its square located */
	}
	/* A seat with nobody able to look keeps what is in plain view. */
	return !any && !C->d.invisible;
}

int
cc_sees_square(const struct st *s, int v, int x, int y)
{
	return !unlit_for(s, v, x, y);
}

/* ---- commands ---- */

/* The Hide modifier of c against v (5.1.6, 5.2): invisibility +20
 * moving, +40 still (against a viewer that cannot see invisible
 * things), improved cover +10. */
static int
hide_mod(const struct st *s, int v, int c)
{
	const struct cr *C = &s->c[c];
	int m = C->d.hide;

	if (!sees_invis(s, v, c))
		m += C->hmoved ? 20 : 40;
	if (cdist(&s->c[v], C) > 1 && feat_blocked(s, v, c, 4))
		m += 10;
	return m;
}

int
cc_check(const struct st *s, int a, const struct cmd *c, struct why *y)
{
	const struct cr *A = &s->c[a];
	int v;

	if (A->grap)
		return rej(y, REFD_EILLEGAL, "R001-56", "%s is grappling",
		    A->d.name);
	if (c->t == C_SPOT)
		return REFD_OK;
	/* Hide: cover or concealment against every enemy in sight (5.2). */
	for (v = 0; v < s->nc; v++) {
		const struct cr *V = &s->c[v];

		if (V->side == A->side || !able(V) ||
		    !cc_seat_sees(s, A->side, v) || !perceives(s, v, a))
			continue;
		if (!screened(s, v, a))
			return rej(y, REFD_EILLEGAL, "R001-40",
			    "%s is in plain view of %s: hiding needs cover or "
			    "concealment", A->d.name, V->d.name);
	}
	return REFD_OK;
}

static refd_mpw *
ev_who(const char *type, const struct cr *A)
{
	refd_mpw *w = refd_mpw_create();

	refd_mpw_map(w);
	refd_mpw_kstr(w, "type", type);
	refd_mpw_kstr(w, "who", A->d.name);
	return w;
}

/* Spot: an opposed check against each enemy a cannot see, in creature
 * order (the draws do not depend on where they are or what they do);
 * the located ones go to a's seat only (8.4). */
static int
spot(refd_ctx *ctx, struct st *s, int a)
{
	struct cr *A = &s->c[a];
	refd_mpw *pub, *priv;
	int i, rc, ra, rd, win;

	priv = ev_who("spot", A);
	refd_mpw_karray(priv, "located");
	for (i = 0; i < s->nc; i++) {
		struct cr *C = &s->c[i];
		int can;

		if (i == a || C->dead || C->side == A->side ||
		    perceives(s, a, i))
			continue;
		if ((rc = opposed(ctx, A->d.spot, hide_mod(s, a, i), "spot",
		    &ra, &rd, &win)) != REFD_OK) {
			refd_mpw_destroy(priv);
			return rc;
		}
		/* Spot finds the invisible and the hiding, not what the
		 * dark or the fog hides, and needs a line of effect. */
		can = (!sees_invis(s, a, i) || C->hiding) &&
		    !cc_terrain_total(s, a, i) && has_loe(s, a, i);
		if (win && can) {
			C->spotted |= 1 << a;
			refd_mpw_map(priv);
			refd_mpw_kstr(priv, "name", C->d.name);
			refd_mpw_karray(priv, "at");
			refd_mpw_int(priv, C->x);
			refd_mpw_int(priv, C->y);
			refd_mpw_end(priv);
			refd_mpw_end(priv);
		}
	}
	refd_mpw_end(priv);
	refd_mpw_end(priv);
	if ((rc = emit_raw(ctx, A->side, priv)) != REFD_OK)
		return rc;
	pub = ev_who("spot", A);
	refd_mpw_end(pub);
	return emit_raw(ctx, REFD_SEAT_PUBLIC, pub);
}

int
cc_exec(refd_ctx *ctx, struct st *s, int a, const struct cmd *c)
{
	struct cr *A = &s->c[a];
	refd_mpw *w;

	if (c->t == C_SPOT)
		return spot(ctx, s, a);
	A->hiding = 1;
	A->spotted = 0;
	w = ev_who("hide", A);
	refd_mpw_end(w);
	return emitw(ctx, s, w);
}

/*
 * A coup de grace on a square (5.12): against a creature with total
 * concealment it takes two consecutive full-round actions, one to find
 * it and one to strike.  *t: the helpless creature struck, or -1.
 */
int
cc_cdg_square(refd_ctx *ctx, struct st *s, int a, const struct cmd *c,
    int *t)
{
	struct cr *A = &s->c[a];
	refd_mpw *w;
	int o;

	*t = -1;
	if (A->cdg_round == s->round && A->cdg_x == c->sqx &&
	    A->cdg_y == c->sqy) {
		A->cdg_round = 0;
		o = occupant(s, c->sqx, c->sqy, a);
		if (o >= 0 && helpless(&s->c[o]) && !s->c[o].d.crit_immune) {
			*t = o;
			return REFD_OK;
		}
		w = refd_mpw_create();
		refd_mpw_map(w);
		refd_mpw_kstr(w, "type", "attack");
		refd_mpw_kstr(w, "attacker", A->d.name);
		refd_mpw_karray(w, "square");
		refd_mpw_int(w, c->sqx);
		refd_mpw_int(w, c->sqy);
		refd_mpw_end(w);
		refd_mpw_kbool(w, "coup_de_grace", 1);
		refd_mpw_kbool(w, "hit", 0);
		refd_mpw_end(w);
		return emitw(ctx, s, w);
	}
	A->cdg_x = c->sqx;
	A->cdg_y = c->sqy;
	A->cdg_round = s->round + 1;
	w = ev_who("search", A);
	refd_mpw_karray(w, "square");
	refd_mpw_int(w, c->sqx);
	refd_mpw_int(w, c->sqy);
	refd_mpw_end(w);
	refd_mpw_end(w);
	return emit_at(ctx, s, a, w);	/* the square is next to it */
}

int
cc_empty_attack(refd_ctx *ctx, struct st *s, int a, const struct weapon *wp)
{
	refd_mpw *w;
	int v, m, rc;

	if ((rc = roll(ctx, 20, "attack", &v)) != REFD_OK ||
	    (rc = roll(ctx, 100, "miss chance", &m)) != REFD_OK)
		return rc;
	w = refd_mpw_create();
	refd_mpw_map(w);
	refd_mpw_kstr(w, "type", "attack");
	refd_mpw_kstr(w, "attacker", s->c[a].d.name);
	refd_mpw_kstr(w, "weapon", wp->name);
	refd_mpw_karray(w, "square");
	refd_mpw_int(w, s->atk_sqx);
	refd_mpw_int(w, s->atk_sqy);
	refd_mpw_end(w);
	refd_mpw_kint(w, "roll", v);
	refd_mpw_kbool(w, "hit", 0);
	refd_mpw_kbool(w, "critical", 0);
	refd_mpw_kint(w, "damage", 0);
	refd_mpw_end(w);
	return emitw(ctx, s, w);
}

/* ---- hooks ---- */

void
cc_turn_start(struct st *s, int a)
{
	s->c[a].hmoved = 0;
}

void
cc_moved(struct st *s, int a)
{
	struct cr *A = &s->c[a];

	A->hmoved = 1;
	if (A->d.invisible)
		A->spotted = 0;	/* a located square is lost */
}

void
cc_reveal(struct st *s, int a)
{
	s->c[a].hiding = 0;
}

static void
layer(const struct st *s, refd_mpw *w, const char *key, int flag)
{
	int x, y;

	refd_mpw_karray(w, key);
	for (y = 0; y < s->h; y++)
		for (x = 0; x < s->w; x++)
			if (s->sq[y][x] & flag) {
				refd_mpw_array(w);
				refd_mpw_int(w, x);
				refd_mpw_int(w, y);
				refd_mpw_end(w);
			}
	refd_mpw_end(w);
}

void
cc_view_map(const struct st *s, refd_mpw *w)
{
	layer(s, w, "darkness", SQ_DARK);
	layer(s, w, "opaque", SQ_OPAQUE);
	layer(s, w, "narrow", SQ_NARROW);
	layer(s, w, "crevice", SQ_CREVICE);
}

/* ---- squeezing (4.4) ---- */

/*
 * How creature a squeezes with its footprint at (x, y): 0 not at all,
 * 1 into a space at least half its width (narrow squares for Small and
 * Medium, a crevice for Tiny): each square costs twice, -4 attack and
 * AC; 2 narrower than half its width (a crevice for Small and Medium,
 * any narrow or crevice square for Large and bigger): Escape Artist to
 * get in, no attacks, -4 AC and no Dex bonus.
 */
int
cc_squeeze_at(const struct st *s, int a, int x, int y)
{
	const struct cr *A = &s->c[a];
	int n = space_n(A), i, j, fl = 0;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if (x + i >= 0 && y + j >= 0 && x + i < s->w &&
			    y + j < s->h)
				fl |= s->sq[y + j][x + i];
	if (!(fl & (SQ_NARROW | SQ_CREVICE)))
		return 0;
	if (A->d.size <= -2)
		return (fl & SQ_CREVICE) ? 1 : 0;
	if (n > 1 || (fl & SQ_CREVICE))
		return 2;
	return 1;
}

int
cc_squeeze_now(const struct st *s, int a)
{
	return cc_squeeze_at(s, a, s->c[a].x, s->c[a].y);
}

int
cc_no_attack(int t)
{
	return t == C_ATTACK || t == C_FULL || t == C_TRIP || t == C_BULL ||
	    t == C_DISARM || t == C_SUNDER || t == C_GRAPPLE || t == C_CDG ||
	    t == C_OVERRUN || t == C_THROW;
}

/*
 * Before a mover steps into a footprint narrower than half its width
 * from a wider one: an Escape Artist check, DC ESCAPE_DC (the rule
 * family's "tight space"; the spec gives no number).  *ok: it gets in.
 */
#define ESCAPE_DC 30
int
cc_escape(refd_ctx *ctx, struct st *s, int a, int nx, int ny, int *ok)
{
	struct cr *A = &s->c[a];
	refd_mpw *w;
	int v, rc;

	*ok = 1;
	if (cc_squeeze_at(s, a, nx, ny) < 2 || cc_squeeze_now(s, a) == 2)
		return REFD_OK;
	if ((rc = roll(ctx, 20, "escape artist", &v)) != REFD_OK)
		return rc;
	*ok = v + A->d.escape >= ESCAPE_DC;
	w = ev_who("escape_artist", A);
	refd_mpw_karray(w, "into");
	refd_mpw_int(w, nx);
	refd_mpw_int(w, ny);
	refd_mpw_end(w);
	refd_mpw_kint(w, "roll", v);
	refd_mpw_kint(w, "dc", ESCAPE_DC);	/* no total: a hidden modifier */
	refd_mpw_kbool(w, "success", *ok);
	refd_mpw_end(w);
	return emit_at(ctx, s, a, w);
}
