/*
 * deck.c - unit tests of the SDK card piles (refd/deck.h) on the mock host.
 */
#include <string.h>

#include <refd/deck.h>
#include <refd/mockhost.h>

#include "tap.h"

int
main(void)
{
	refd_mock *m = refd_mock_create();
	const struct refd_host *h = refd_mock_host(m);
	refd_ctx *ctx = refd_mock_ctx(m);
	struct refd_deck deck, hand, copy;
	int64_t script[] = { 0, 0, 0, 0 };
	const uint8_t *data;
	size_t len;
	int32_t c, seat, i;
	int rc;

	refd_deck_init(&deck);
	refd_deck_init(&hand);
	for (i = 1; i <= 5; i++)
		refd_deck_push(&deck, i);
	is_int(deck.n, 5, "five cards pushed");
	rc = refd_deck_draw(&deck, &c);
	ok(rc == REFD_OK && c == 5, "draw takes the top card");
	ok(refd_deck_draw_into(&deck, &hand, &c) == REFD_OK && c == 4 &&
	    hand.n == 1 && hand.card[0] == 4, "draw_into moves the top card");
	is_int(refd_deck_find(&deck, 2), 1, "find gives the index");
	is_int(refd_deck_find(&deck, 9), -1, "find of an absent card is -1");
	refd_deck_push(&deck, 2);
	is_int(refd_deck_count(&deck, 2), 2, "count copies");
	is_int(refd_deck_find(&deck, 2), 3, "find gives the topmost copy");
	ok(refd_deck_remove(&deck, 2) == REFD_OK && deck.n == 3 &&
	    deck.card[0] == 1 && deck.card[1] == 2 && deck.card[2] == 3,
	    "remove keeps the order of the rest");
	is_int(refd_deck_remove(&deck, 9), REFD_EARG, "remove of an absent card");
	ok(refd_deck_take(&deck, 0, &c) == REFD_OK && c == 1 && deck.n == 2,
	    "take by index");
	is_int(refd_deck_take(&deck, 7, &c), REFD_EARG, "take out of range");

	/* Commit only when changed. */
	refd_mock_clear(m);
	ok(refd_deck_commit(h, ctx, &deck, "deck.0", REFD_SEAT_PUBLIC) ==
	    REFD_OK, "commit");
	is_int((long long)refd_mock_ncommits(m), 1, "one commitment");
	ok(strcmp(refd_mock_commit(m, 0, &seat, &data, &len), "deck.0") == 0 &&
	    seat == REFD_SEAT_PUBLIC && len == 4 && data[1] == 2 &&
	    data[3] == 3, "committed bytes are the cards, bottom first");
	refd_deck_commit(h, ctx, &deck, "deck.0", REFD_SEAT_PUBLIC);
	is_int((long long)refd_mock_ncommits(m), 1,
	    "an unchanged pile is not committed again");
	refd_deck_push(&deck, 7);
	refd_deck_commit(h, ctx, &deck, "deck.0", REFD_SEAT_PUBLIC);
	is_int((long long)refd_mock_ncommits(m), 2, "a changed pile is");

	/* Empty and full piles. */
	refd_deck_init(&copy);
	is_int(refd_deck_draw(&copy, &c), REFD_ERESOURCE, "draw from empty");
	for (i = 0; i < REFD_DECK_MAX; i++)
		refd_deck_push(&copy, i);
	is_int(refd_deck_push(&copy, 99), REFD_ELIMIT, "push onto a full pile");

	/* Shuffle and redeal through scripted draws. */
	refd_mock_script(m, script, 4);
	refd_deck_init(&deck);
	for (i = 1; i <= 4; i++)
		refd_deck_push(&deck, i);
	rc = refd_deck_shuffle(h, ctx, &deck, "test");
	ok(rc == REFD_OK, "shuffle uses the host draws");
	c = 0;
	for (i = 0; i < deck.n; i++)
		c += deck.card[i];
	is_int(c, 10, "shuffle keeps the cards");
	refd_mock_seed(m, 7);
	refd_mock_script(m, NULL, 0);
	refd_deck_init(&hand);
	refd_deck_draw_into(&deck, &hand, NULL);
	refd_deck_draw_into(&deck, &hand, NULL);
	rc = refd_deck_redeal(h, ctx, &hand, &deck, "redeal");
	ok(rc == REFD_OK && hand.n == 2 && deck.n == 2, "redeal keeps sizes");
	c = 0;
	for (i = 0; i < 2; i++)
		c += hand.card[i] + deck.card[i];
	is_int(c, 10, "redeal keeps the cards");
	refd_mock_destroy(m);
	return done_testing();
}
