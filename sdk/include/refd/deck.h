/*
 * refd/deck.h - card piles (decks, hands, discards) for card rulesets.
 *
 * Part of the SDK helper library (librefdsdk.a).  A struct refd_deck is a
 * fixed-size, pointer-free pile of card numbers, so it can live inside a
 * plugin's match state and be serialized as plain integers.  Index 0 is
 * the bottom of the pile and card[n - 1] its top: draws take the top.
 *
 * Hidden piles are committed through host->commit with refd_deck_commit,
 * which commits only a pile whose contents changed since its last commit
 * (the "dirty" member), so a plugin may call it after every command.
 * Shuffles and re-deals go through the host's draws only.
 *
 * Functions return 0 (REFD_OK) or a negative REFD_E* code; nothing here
 * allocates.  All pointers are borrowed for the duration of the call.
 */
#ifndef REFD_DECK_H
#define REFD_DECK_H

#include <stddef.h>
#include <stdint.h>

#include "plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

#define REFD_DECK_MAX 64

struct refd_deck {
	int32_t n;			/* cards in the pile */
	int32_t dirty;			/* changed since the last commit */
	int32_t card[REFD_DECK_MAX];	/* card[0] bottom .. card[n-1] top */
};

/* Empty the pile (marks it changed). */
void refd_deck_init(struct refd_deck *d);

/* Put card on top; REFD_ELIMIT when the pile is full. */
int refd_deck_push(struct refd_deck *d, int32_t card);

/* Take the top card into *out; REFD_ERESOURCE when the pile is empty. */
int refd_deck_draw(struct refd_deck *d, int32_t *out);

/* Move the top card of from onto to; *out (may be NULL) gets it. */
int refd_deck_draw_into(struct refd_deck *from, struct refd_deck *to,
    int32_t *out);

/* Index of the topmost copy of card, or -1. */
int refd_deck_find(const struct refd_deck *d, int32_t card);

/* Number of copies of card in the pile. */
int refd_deck_count(const struct refd_deck *d, int32_t card);

/* Remove the card at index i, keeping the order of the rest. */
int refd_deck_take(struct refd_deck *d, int32_t i, int32_t *out);

/* Remove the topmost copy of card; REFD_EARG when it is absent. */
int refd_deck_remove(struct refd_deck *d, int32_t card);

/* Shuffle the pile with the host's draws (why names it in the record). */
int refd_deck_shuffle(const struct refd_host *h, refd_ctx *ctx,
    struct refd_deck *d, const char *why);

/*
 * Commit the pile under zone for seat (REFD_SEAT_PUBLIC: nobody's) if it
 * changed since its last commit; the data is each card as two bytes,
 * big-endian, bottom first.
 */
int refd_deck_commit(const struct refd_host *h, refd_ctx *ctx,
    struct refd_deck *d, const char *zone, int32_t seat);

/*
 * Re-deal a hidden hand: put the hand back into the deck, shuffle, and
 * draw as many cards as the hand held.  For a plugin's redeal op.
 */
int refd_deck_redeal(const struct refd_host *h, refd_ctx *ctx,
    struct refd_deck *hand, struct refd_deck *deck, const char *why);

#ifdef __cplusplus
}
#endif

#endif /* REFD_DECK_H */
