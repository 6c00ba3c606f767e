/*
 * duel.c - the smallest complete refd ruleset: a two-seat d20 duel.
 *
 * Each seat fields one fighter from the content ("fighters.json").  Seats
 * take turns.  On its turn a seat attacks (d20 + attack >= the foe's AC
 * hits for 1d<damage>), optionally playing a secret boost card from its
 * hand for extra damage, or defends (+4 AC until its next turn).  A fighter
 * at 0 HP loses; after max_rounds the higher HP wins, equal HP is a draw.
 *
 * Hidden information: a shuffled deck of boost cards (values 1..10) and a
 * hand of two cards per seat.  Hands are private; the deck is nobody's.
 * Both are committed through host->commit.
 *
 * Copy this directory to start a plugin: see refd-plugin(3).
 */
#include <stdio.h>
#include <string.h>

#include <refd/board.h>
#include <refd/mp.h>
#include <refd/plugin.h>

#define MAXFIGHTERS 16
#define DECK 10
#define HAND 2

struct fighter {
	char name[32];
	int64_t hp, ac, attack, damage;
};

struct content {
	struct fighter f[MAXFIGHTERS];
	int n;
};

struct duel {
	struct fighter f[2];
	int64_t hp[2];
	int64_t defending[2];
	int64_t turn;		/* seat to act */
	int64_t round;
	int64_t max_rounds;
	int64_t over;		/* 0, or 1 + winner seat, or 3 for a draw */
	int64_t cards;		/* boost cards in play */
	int64_t deck[DECK];
	int64_t ndeck;
	int64_t hand[2][HAND];	/* 0 = empty slot */
};

static const struct refd_host *H;

static int
d_init(refd_ctx *ctx, const struct refd_host *host, void **pdata)
{
	(void)ctx;
	H = host;
	*pdata = NULL;
	return REFD_OK;
}

static int
put(refd_ctx *ctx, refd_mpw *w)
{
	return refd_mpw_output(H, ctx, w);
}

static int
emit(refd_ctx *ctx, int32_t seat, refd_mpw *w)
{
	int rc;

	if (w == NULL || refd_mpw_error(w)) {
		refd_mpw_destroy(w);
		return REFD_ENOMEM;
	}
	rc = H->emit(ctx, seat, refd_mpw_data(w), refd_mpw_len(w));
	refd_mpw_destroy(w);
	return rc;
}

static int
d_describe(refd_ctx *ctx, void *pdata)
{
	refd_mpw *w = refd_mpw_create();

	(void)pdata;
	refd_mpw_map(w);
	refd_mpw_kstr(w, "summary", "a two-seat d20 duel with secret boost cards");
	refd_mpw_karray(w, "seats");
	refd_mpw_int(w, 2);
	refd_mpw_int(w, 2);
	refd_mpw_end(w);
	refd_mpw_kmap(w, "options");
	refd_mpw_kmap(w, "fighters");
	refd_mpw_kstr(w, "type", "[str, str]");
	refd_mpw_kstr(w, "doc", "fighter names from fighters.json, seat 0 first");
	refd_mpw_end(w);
	refd_mpw_kmap(w, "max_rounds");
	refd_mpw_kstr(w, "type", "int");
	refd_mpw_kint(w, "default", 20);
	refd_mpw_kstr(w, "doc", "rounds before the higher HP wins");
	refd_mpw_end(w);
	refd_mpw_kmap(w, "cards");
	refd_mpw_kstr(w, "type", "bool");
	refd_mpw_kbool(w, "default", 1);
	refd_mpw_kstr(w, "doc", "deal secret boost cards");
	refd_mpw_end(w);
	refd_mpw_end(w);
	refd_mpw_kmap(w, "commands");
	refd_mpw_kmap(w, "attack");
	refd_mpw_kmap(w, "args");
	refd_mpw_kstr(w, "card", "int, optional: a card value from your hand");
	refd_mpw_end(w);
	refd_mpw_kstr(w, "doc", "d20 + attack against the foe's AC");
	refd_mpw_end(w);
	refd_mpw_kmap(w, "defend");
	refd_mpw_kmap(w, "args");
	refd_mpw_end(w);
	refd_mpw_kstr(w, "doc", "+4 AC until your next turn");
	refd_mpw_end(w);
	refd_mpw_end(w);
	refd_mpw_end(w);
	return put(ctx, w);
}

static int
d_content_load(refd_ctx *ctx, void *pdata, const uint8_t *bytes, size_t len,
    void **out)
{
	refd_mpdoc *d = refd_mp_parse(bytes, len);
	refd_mpv fs;
	struct content *c;
	char msg[160];
	size_t i;

	(void)pdata;
	if (d == NULL)
		return H->reject(ctx, REFD_ECONTENT, NULL, "content is not msgpack");
	fs = refd_mpv_get(refd_mp_root(d), "fighters");
	if (refd_mpv_type(fs) != REFD_MP_MAP || refd_mpv_len(fs) == 0 ||
	    refd_mpv_len(fs) > MAXFIGHTERS) {
		refd_mp_free(d);
		return H->reject(ctx, REFD_ECONTENT, NULL,
		    "fighters.json: expected an object of 1 to 16 fighters");
	}
	c = H->alloc(ctx, sizeof(*c));
	if (c == NULL) {
		refd_mp_free(d);
		return REFD_ENOMEM;
	}
	memset(c, 0, sizeof(*c));
	for (i = 0; i < refd_mpv_len(fs); i++) {
		refd_mpv v = refd_mpv_val_at(fs, i);
		struct fighter *f = &c->f[c->n];
		static const char *const field[] = { "hp", "ac", "attack",
			"damage" };
		int64_t *dst[4];
		int k;

		dst[0] = &f->hp;
		dst[1] = &f->ac;
		dst[2] = &f->attack;
		dst[3] = &f->damage;
		snprintf(f->name, sizeof(f->name), "%s",
		    refd_mpv_cstr(refd_mpv_key_at(fs, i), "?"));
		for (k = 0; k < 4; k++) {
			if (refd_mpv_int(refd_mpv_get(v, field[k]), dst[k]) != 0 ||
			    *dst[k] < 0 || *dst[k] > 1000 ||
			    (k != 2 && *dst[k] == 0)) {
				snprintf(msg, sizeof(msg),
				    "fighters.json: fighter '%s': field '%s': "
				    "expected an integer 1..1000", f->name,
				    field[k]);
				H->free(ctx, c);
				refd_mp_free(d);
				return H->reject(ctx, REFD_ECONTENT, NULL, msg);
			}
		}
		c->n++;
	}
	refd_mp_free(d);
	*out = c;
	return REFD_OK;
}

static void
d_content_free(void *pdata, void *content)
{
	(void)pdata;
	H->free(NULL, content);
}

static int
commit_hidden(refd_ctx *ctx, struct duel *s)
{
	uint8_t b[DECK + 1];
	int seat, i, rc;

	if (!s->cards)
		return REFD_OK;
	for (i = 0; i < s->ndeck; i++)
		b[i] = (uint8_t)s->deck[i];
	if ((rc = H->commit(ctx, "deck", REFD_SEAT_PUBLIC, b,
	    (size_t)s->ndeck)) != REFD_OK)
		return rc;
	for (seat = 0; seat < 2; seat++) {
		char zone[16];

		for (i = 0; i < HAND; i++)
			b[i] = (uint8_t)s->hand[seat][i];
		snprintf(zone, sizeof(zone), "hand.%d", seat);
		if ((rc = H->commit(ctx, zone, seat, b, HAND)) != REFD_OK)
			return rc;
	}
	return REFD_OK;
}

static int
draw_card(struct duel *s, int seat, int slot)
{
	if (s->ndeck == 0)
		return 0;
	s->hand[seat][slot] = s->deck[--s->ndeck];
	return 1;
}

static int
d_create(refd_ctx *ctx, void *pdata, const void *content, const uint8_t *setup,
    size_t len, uint32_t nseats, void **out)
{
	const struct content *c = content;
	refd_mpdoc *d = refd_mp_parse(setup, len);
	refd_mpv root = refd_mp_root(d), names;
	struct duel *s;
	char msg[160];
	int seat, i, rc;
	refd_mpw *w;

	(void)pdata;
	if (d == NULL || refd_mpv_type(root) != REFD_MP_MAP) {
		refd_mp_free(d);
		return H->reject(ctx, REFD_ESETUP, NULL, "setup must be a map");
	}
	if (nseats != 2) {
		refd_mp_free(d);
		return H->reject(ctx, REFD_ESETUP, NULL, "a duel has two seats");
	}
	s = H->alloc(ctx, sizeof(*s));
	if (s == NULL) {
		refd_mp_free(d);
		return REFD_ENOMEM;
	}
	memset(s, 0, sizeof(*s));
	names = refd_mpv_get(root, "fighters");
	for (seat = 0; seat < 2; seat++) {
		const char *nm = refd_mpv_cstr(refd_mpv_at(names, (size_t)seat),
		    seat == 0 ? "knight" : "rogue");

		for (i = 0; i < c->n; i++)
			if (strcmp(c->f[i].name, nm) == 0)
				break;
		if (i == c->n) {
			snprintf(msg, sizeof(msg), "no fighter named '%s'", nm);
			H->free(ctx, s);
			refd_mp_free(d);
			return H->reject(ctx, REFD_ESETUP, NULL, msg);
		}
		s->f[seat] = c->f[i];
		s->hp[seat] = c->f[i].hp;
	}
	s->max_rounds = refd_mpv_get_int(root, "max_rounds", 20);
	s->cards = refd_mpv_get_bool(root, "cards", 1);
	refd_mp_free(d);
	if (s->max_rounds < 1 || s->max_rounds > 1000) {
		H->free(ctx, s);
		return H->reject(ctx, REFD_ESETUP, NULL,
		    "max_rounds must be 1..1000");
	}
	s->round = 1;
	if (s->cards) {
		for (i = 0; i < DECK; i++)
			s->deck[i] = i + 1;
		s->ndeck = DECK;
		rc = H->shuffle(ctx, s->deck, DECK, sizeof(s->deck[0]), "deck");
		if (rc != REFD_OK) {
			H->free(ctx, s);
			return rc;
		}
		for (seat = 0; seat < 2; seat++)
			for (i = 0; i < HAND; i++)
				draw_card(s, seat, i);
		if ((rc = commit_hidden(ctx, s)) != REFD_OK) {
			H->free(ctx, s);
			return rc;
		}
		for (seat = 0; seat < 2; seat++) {
			w = refd_mpw_create();
			refd_mpw_map(w);
			refd_mpw_kstr(w, "type", "dealt");
			refd_mpw_karray(w, "cards");
			for (i = 0; i < HAND; i++)
				refd_mpw_int(w, s->hand[seat][i]);
			refd_mpw_end(w);
			refd_mpw_end(w);
			if ((rc = emit(ctx, seat, w)) != REFD_OK) {
				H->free(ctx, s);
				return rc;
			}
		}
	}
	w = refd_mpw_create();
	refd_mpw_map(w);
	refd_mpw_kstr(w, "type", "start");
	refd_mpw_karray(w, "fighters");
	refd_mpw_str(w, s->f[0].name);
	refd_mpw_str(w, s->f[1].name);
	refd_mpw_end(w);
	refd_mpw_end(w);
	if ((rc = emit(ctx, REFD_SEAT_PUBLIC, w)) != REFD_OK) {
		H->free(ctx, s);
		return rc;
	}
	*out = s;
	return REFD_OK;
}

static void
end_turn(struct duel *s)
{
	s->turn = 1 - s->turn;
	s->defending[s->turn] = 0;
	if (s->turn == 0)
		s->round++;
	if (s->hp[0] <= 0 || s->hp[1] <= 0)
		s->over = s->hp[0] <= 0 ? 2 : 1;
	else if (s->round > s->max_rounds)
		s->over = s->hp[0] == s->hp[1] ? 3 :
		    (s->hp[0] > s->hp[1] ? 1 : 2);
}

static int
hand_slot(const struct duel *s, int seat, int64_t card)
{
	int i;

	for (i = 0; i < HAND; i++)
		if (s->hand[seat][i] == card && card != 0)
			return i;
	return -1;
}

static int
d_apply(refd_ctx *ctx, void *state, uint32_t seat, const uint8_t *cmd,
    size_t len)
{
	struct duel *s = state;
	refd_mpdoc *d = refd_mp_parse(cmd, len);
	refd_mpv root = refd_mp_root(d);
	int me = (int)seat, foe = 1 - (int)seat, slot = -1, rc;
	uint32_t die, dmg = 0;
	int64_t card = 0;
	char msg[160];
	refd_mpw *w;

	if (d == NULL || refd_mpv_type(root) != REFD_MP_MAP) {
		refd_mp_free(d);
		return H->reject(ctx, REFD_EBADCMD, NULL,
		    "a command is a map with a \"type\"");
	}
	if (s->over) {
		refd_mp_free(d);
		return H->reject(ctx, REFD_EFINISHED, "DUEL-1",
		    "the duel is over");
	}
	if (me != s->turn) {
		refd_mp_free(d);
		snprintf(msg, sizeof(msg), "it is seat %d's turn, not yours",
		    (int)s->turn);
		return H->reject(ctx, REFD_ENOTYOURTURN, "DUEL-2", msg);
	}
	if (refd_mpv_streq(refd_mpv_get(root, "type"), "defend")) {
		refd_mp_free(d);
		s->defending[me] = 1;
		w = refd_mpw_create();
		refd_mpw_map(w);
		refd_mpw_kstr(w, "type", "defend");
		refd_mpw_kint(w, "seat", me);
		refd_mpw_end(w);
		end_turn(s);
		return emit(ctx, REFD_SEAT_PUBLIC, w);
	}
	if (!refd_mpv_streq(refd_mpv_get(root, "type"), "attack")) {
		refd_mp_free(d);
		return H->reject(ctx, REFD_EBADCMD, "DUEL-3",
		    "unknown command: use \"attack\" or \"defend\"");
	}
	if (refd_mpv_ok(refd_mpv_get(root, "card"))) {
		if (refd_mpv_int(refd_mpv_get(root, "card"), &card) != 0 ||
		    (slot = hand_slot(s, me, card)) < 0) {
			refd_mp_free(d);
			return H->reject(ctx, REFD_EILLEGAL, "DUEL-4",
			    "that boost card is not in your hand");
		}
	}
	refd_mp_free(d);
	if ((rc = H->roll(ctx, 20, "attack", &die)) != REFD_OK)
		return rc;
	{
		int64_t ac = s->f[foe].ac + (s->defending[foe] ? 4 : 0);
		int64_t total = (int64_t)die + s->f[me].attack;
		int hit = die != 1 && (die == 20 || total >= ac);

		if (hit) {
			if ((rc = H->roll(ctx, (uint32_t)s->f[me].damage,
			    "damage", &dmg)) != REFD_OK)
				return rc;
			dmg += (uint32_t)card;
			s->hp[foe] -= dmg;
		}
		if (slot >= 0) {
			s->hand[me][slot] = 0;
			draw_card(s, me, slot);
			if ((rc = commit_hidden(ctx, s)) != REFD_OK)
				return rc;
		}
		w = refd_mpw_create();
		refd_mpw_map(w);
		refd_mpw_kstr(w, "type", "attack");
		refd_mpw_kint(w, "seat", me);
		refd_mpw_kint(w, "roll", die);
		refd_mpw_kint(w, "total", total);
		refd_mpw_kint(w, "ac", ac);
		refd_mpw_kbool(w, "hit", hit);
		refd_mpw_kint(w, "damage", dmg);
		if (slot >= 0)
			refd_mpw_kint(w, "card", card);
		refd_mpw_kint(w, "hp", s->hp[foe]);
		refd_mpw_end(w);
		if ((rc = emit(ctx, REFD_SEAT_PUBLIC, w)) != REFD_OK)
			return rc;
	}
	if (slot >= 0) {
		w = refd_mpw_create();
		refd_mpw_map(w);
		refd_mpw_kstr(w, "type", "drew");
		refd_mpw_kint(w, "card", s->hand[me][slot]);
		refd_mpw_end(w);
		if ((rc = emit(ctx, me, w)) != REFD_OK)
			return rc;
	}
	end_turn(s);
	if (s->over) {
		w = refd_mpw_create();
		refd_mpw_map(w);
		refd_mpw_kstr(w, "type", "over");
		refd_mpw_kint(w, "winner", s->over == 3 ? -1 : s->over - 1);
		refd_mpw_end(w);
		return emit(ctx, REFD_SEAT_PUBLIC, w);
	}
	return REFD_OK;
}

static int
d_legal(refd_ctx *ctx, const void *state, uint32_t seat)
{
	const struct duel *s = state;
	refd_mpw *w = refd_mpw_create();
	char label[64];
	int i;

	refd_mpw_array(w);
	if (!s->over && (int64_t)seat == s->turn) {
		refd_mpw_map(w);
		refd_mpw_kmap(w, "cmd");
		refd_mpw_kstr(w, "type", "attack");
		refd_mpw_end(w);
		refd_mpw_kstr(w, "label", "Attack");
		refd_mpw_end(w);
		for (i = 0; i < HAND; i++) {
			if (s->hand[seat][i] == 0)
				continue;
			refd_mpw_map(w);
			refd_mpw_kmap(w, "cmd");
			refd_mpw_kstr(w, "type", "attack");
			refd_mpw_kint(w, "card", s->hand[seat][i]);
			refd_mpw_end(w);
			snprintf(label, sizeof(label),
			    "Attack, boosting damage with card %d",
			    (int)s->hand[seat][i]);
			refd_mpw_kstr(w, "label", label);
			refd_mpw_end(w);
		}
		refd_mpw_map(w);
		refd_mpw_kmap(w, "cmd");
		refd_mpw_kstr(w, "type", "defend");
		refd_mpw_end(w);
		refd_mpw_kstr(w, "label", "Defend (+4 AC until your next turn)");
		refd_mpw_end(w);
	}
	refd_mpw_end(w);
	return put(ctx, w);
}

static int
d_pending(refd_ctx *ctx, const void *state, uint64_t *seats)
{
	const struct duel *s = state;

	(void)ctx;
	*seats = s->over ? 0 : (uint64_t)1 << s->turn;
	return REFD_OK;
}

static int
d_view(refd_ctx *ctx, const void *state, int32_t seat)
{
	const struct duel *s = state;
	refd_mpw *w = refd_mpw_create();
	int i, k;

	refd_mpw_map(w);
	refd_mpw_kint(w, "round", s->round);
	refd_mpw_kint(w, "turn", s->turn);
	refd_mpw_kbool(w, "over", s->over != 0);
	refd_mpw_kint(w, "deck", s->ndeck);
	refd_mpw_karray(w, "fighters");
	for (i = 0; i < 2; i++) {
		int n = 0;

		refd_mpw_map(w);
		refd_mpw_kstr(w, "name", s->f[i].name);
		refd_mpw_kint(w, "hp", s->hp[i]);
		refd_mpw_kint(w, "ac", s->f[i].ac);
		refd_mpw_kbool(w, "defending", (int)s->defending[i]);
		for (k = 0; k < HAND; k++)
			n += s->hand[i][k] != 0;
		refd_mpw_kint(w, "hand_size", n);
		if (seat == i) {
			refd_mpw_karray(w, "hand");
			for (k = 0; k < HAND; k++)
				if (s->hand[i][k] != 0)
					refd_mpw_int(w, s->hand[i][k]);
			refd_mpw_end(w);
		}
		refd_mpw_end(w);
	}
	refd_mpw_end(w);
	/* The board a viewer draws (refd-plugin(3)): two fighters face to
	 * face on a strip of three squares. */
	refd_board_begin(w, REFD_BOARD_GRID, 3, 1);
	refd_board_pieces(w);
	for (i = 0; i < 2; i++) {
		struct refd_board_piece p = refd_board_piece_init(i,
		    s->f[i].name, i, i * 2, 0);

		p.hp = s->hp[i];
		p.hp_max = s->f[i].hp;
		p.fx = i == 0 ? 1 : -1;
		refd_board_piece(w, &p);
		if (s->defending[i])
			refd_mpw_str(w, "defending");
		refd_board_piece_end(w);
	}
	refd_mpw_end(w);
	if (!s->over)
		refd_mpw_kint(w, "active", s->turn);
	refd_board_info(w);
	refd_mpw_kint(w, "round", s->round);
	refd_mpw_end(w);
	refd_board_end(w);
	refd_mpw_end(w);
	return put(ctx, w);
}

static int
d_result(refd_ctx *ctx, const void *state)
{
	const struct duel *s = state;
	refd_mpw *w;
	int rc;

	if (!s->over)
		return 0;
	w = refd_mpw_create();
	refd_mpw_map(w);
	refd_mpw_karray(w, "winners");
	if (s->over != 3)
		refd_mpw_int(w, s->over - 1);
	refd_mpw_end(w);
	refd_mpw_kstr(w, "reason", s->hp[0] <= 0 || s->hp[1] <= 0 ?
	    "knockout" : (s->over == 3 ? "draw on time" : "more HP on time"));
	refd_mpw_end(w);
	rc = put(ctx, w);
	return rc == REFD_OK ? 1 : rc;
}

/* The state is plain integers and two names: serialize field by field. */
static int
d_serialize(refd_ctx *ctx, const void *state)
{
	const struct duel *s = state;
	refd_mpw *w = refd_mpw_create();
	int i, k;

	refd_mpw_array(w);
	for (i = 0; i < 2; i++) {
		refd_mpw_str(w, s->f[i].name);
		refd_mpw_int(w, s->f[i].hp);
		refd_mpw_int(w, s->f[i].ac);
		refd_mpw_int(w, s->f[i].attack);
		refd_mpw_int(w, s->f[i].damage);
		refd_mpw_int(w, s->hp[i]);
		refd_mpw_int(w, s->defending[i]);
		for (k = 0; k < HAND; k++)
			refd_mpw_int(w, s->hand[i][k]);
	}
	refd_mpw_int(w, s->turn);
	refd_mpw_int(w, s->round);
	refd_mpw_int(w, s->max_rounds);
	refd_mpw_int(w, s->over);
	refd_mpw_int(w, s->cards);
	refd_mpw_int(w, s->ndeck);
	for (i = 0; i < s->ndeck; i++)
		refd_mpw_int(w, s->deck[i]);
	refd_mpw_end(w);
	return put(ctx, w);
}

static int
d_restore(refd_ctx *ctx, void *pdata, const void *content, const uint8_t *b,
    size_t len, void **out)
{
	refd_mpdoc *d = refd_mp_parse(b, len);
	refd_mpv a = refd_mp_root(d);
	struct duel *s;
	size_t p = 0;
	int i, k, bad = 0;

	(void)pdata;
	(void)content;
	if (d == NULL)
		return H->reject(ctx, REFD_EARG, NULL, "state is not msgpack");
	s = H->alloc(ctx, sizeof(*s));
	if (s == NULL) {
		refd_mp_free(d);
		return REFD_ENOMEM;
	}
	memset(s, 0, sizeof(*s));
#define NEXT(dst) bad |= refd_mpv_int(refd_mpv_at(a, p++), &(dst))
	for (i = 0; i < 2; i++) {
		snprintf(s->f[i].name, sizeof(s->f[i].name), "%s",
		    refd_mpv_cstr(refd_mpv_at(a, p++), "?"));
		NEXT(s->f[i].hp);
		NEXT(s->f[i].ac);
		NEXT(s->f[i].attack);
		NEXT(s->f[i].damage);
		NEXT(s->hp[i]);
		NEXT(s->defending[i]);
		for (k = 0; k < HAND; k++)
			NEXT(s->hand[i][k]);
	}
	NEXT(s->turn);
	NEXT(s->round);
	NEXT(s->max_rounds);
	NEXT(s->over);
	NEXT(s->cards);
	NEXT(s->ndeck);
	if (s->ndeck < 0 || s->ndeck > DECK || s->turn < 0 || s->turn > 1)
		bad = 1;
	for (i = 0; !bad && i < s->ndeck; i++)
		NEXT(s->deck[i]);
#undef NEXT
	refd_mp_free(d);
	if (bad) {
		H->free(ctx, s);
		return H->reject(ctx, REFD_EARG, NULL, "state is damaged");
	}
	*out = s;
	return REFD_OK;
}

static void
d_destroy(refd_ctx *ctx, void *state)
{
	H->free(ctx, state);
}

/* Re-deal seat's hand from its cards and the deck: hidden data only. */
static int
d_redeal(refd_ctx *ctx, void *state, uint32_t seat)
{
	struct duel *s = state;
	int i, rc;

	if (!s->cards || seat > 1)
		return REFD_OK;
	for (i = 0; i < HAND; i++)
		if (s->hand[seat][i] != 0)
			s->deck[s->ndeck++] = s->hand[seat][i];
	if ((rc = H->shuffle(ctx, s->deck, (size_t)s->ndeck,
	    sizeof(s->deck[0]), "redeal")) != REFD_OK)
		return rc;
	for (i = 0; i < HAND; i++)
		if (s->hand[seat][i] != 0)
			draw_card(s, (int)seat, i);
	return REFD_OK;
}

static const struct refd_plugin_ops ops = {
	sizeof(struct refd_plugin_ops),
	d_init,
	NULL,
	d_describe,
	d_content_load,
	d_content_free,
	d_create,
	d_apply,
	d_legal,
	d_pending,
	d_view,
	d_result,
	d_serialize,
	d_restore,
	d_destroy,
	d_redeal,
};

REFD_PLUGIN_DEFINE("duel", "1.0.0", "a two-seat d20 duel with secret boost cards",
    2, 2, REFD_PF_HIDDEN, &ops);
