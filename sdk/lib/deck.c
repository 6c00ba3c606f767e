/*
 * deck.c - card piles for card rulesets (see refd/deck.h).
 */
#include <string.h>

#include "refd/deck.h"

void
refd_deck_init(struct refd_deck *d)
{
	memset(d, 0, sizeof(*d));
	d->dirty = 1;
}

int
refd_deck_push(struct refd_deck *d, int32_t card)
{
	if (d->n < 0 || d->n >= REFD_DECK_MAX)
		return REFD_ELIMIT;
	d->card[d->n++] = card;
	d->dirty = 1;
	return REFD_OK;
}

int
refd_deck_draw(struct refd_deck *d, int32_t *out)
{
	if (d->n <= 0)
		return REFD_ERESOURCE;
	*out = d->card[--d->n];
	d->card[d->n] = 0;
	d->dirty = 1;
	return REFD_OK;
}

int
refd_deck_draw_into(struct refd_deck *from, struct refd_deck *to,
    int32_t *out)
{
	int32_t c;
	int rc;

	if (from->n <= 0)
		return REFD_ERESOURCE;
	if (to->n >= REFD_DECK_MAX)
		return REFD_ELIMIT;
	if ((rc = refd_deck_draw(from, &c)) != REFD_OK)
		return rc;
	if (out != NULL)
		*out = c;
	return refd_deck_push(to, c);
}

int
refd_deck_find(const struct refd_deck *d, int32_t card)
{
	int32_t i;

	for (i = d->n - 1; i >= 0; i--)
		if (d->card[i] == card)
			return (int)i;
	return -1;
}

int
refd_deck_count(const struct refd_deck *d, int32_t card)
{
	int32_t i;
	int n = 0;

	for (i = 0; i < d->n; i++)
		n += d->card[i] == card;
	return n;
}

int
refd_deck_take(struct refd_deck *d, int32_t i, int32_t *out)
{
	if (i < 0 || i >= d->n)
		return REFD_EARG;
	if (out != NULL)
		*out = d->card[i];
	memmove(&d->card[i], &d->card[i + 1],
	    (size_t)(d->n - i - 1) * sizeof(d->card[0]));
	d->n--;
	d->card[d->n] = 0;
	d->dirty = 1;
	return REFD_OK;
}

int
refd_deck_remove(struct refd_deck *d, int32_t card)
{
	int i = refd_deck_find(d, card);

	if (i < 0)
		return REFD_EARG;
	return refd_deck_take(d, (int32_t)i, NULL);
}

int
refd_deck_shuffle(const struct refd_host *h, refd_ctx *ctx,
    struct refd_deck *d, const char *why)
{
	int rc;

	if (d->n < 2)
		return REFD_OK;
	rc = h->shuffle(ctx, d->card, (size_t)d->n, sizeof(d->card[0]), why);
	if (rc == REFD_OK)
		d->dirty = 1;
	return rc;
}

int
refd_deck_commit(const struct refd_host *h, refd_ctx *ctx,
    struct refd_deck *d, const char *zone, int32_t seat)
{
	uint8_t b[2 * REFD_DECK_MAX];
	int32_t i;
	int rc;

	if (!d->dirty)
		return REFD_OK;
	for (i = 0; i < d->n; i++) {
		b[2 * i] = (uint8_t)((uint32_t)d->card[i] >> 8);
		b[2 * i + 1] = (uint8_t)d->card[i];
	}
	rc = h->commit(ctx, zone, seat, b, (size_t)(2 * d->n));
	if (rc == REFD_OK)
		d->dirty = 0;
	return rc;
}

int
refd_deck_redeal(const struct refd_host *h, refd_ctx *ctx,
    struct refd_deck *hand, struct refd_deck *deck, const char *why)
{
	int32_t k = hand->n, c, i;
	int rc;

	if (deck->n + hand->n > REFD_DECK_MAX)
		return REFD_ELIMIT;
	while (hand->n > 0) {
		refd_deck_draw(hand, &c);
		refd_deck_push(deck, c);
	}
	if ((rc = refd_deck_shuffle(h, ctx, deck, why)) != REFD_OK)
		return rc;
	for (i = 0; i < k; i++)
		if ((rc = refd_deck_draw_into(deck, hand, NULL)) != REFD_OK)
			return rc;
	return REFD_OK;
}
