/*
 * gear.h - worn items grabbed by an unarmed disarm (spec 5.8), a monk's
 * unarmed damage and silencing a pinned creature in a grapple (5.13).
 * See gear.c.
 */
#ifndef ENC_GEAR_H
#define ENC_GEAR_H

#include "cmd.h"

/* The disarm command's item kind for a worn item (struct cmd item). */
#define ITEM_WORN 4

/* Creature fields "worn" and "monk_unarmed": 0 parsed, 1 not ours, -1
 * malformed (why says why). */
int gr_cfield(struct cdef *d, const char *k, refd_mpv x, char *why,
    size_t n);

/* The deflection bonus to AC (the best of the creature's own and its
 * worn items') and the resistance bonus to saves (5.8 stand-ins). */
int gr_deflect(const struct cr *c);
int gr_resist(const struct cr *c);

/* Disarm of a worn item: the "name" argument, the check (sets c->si),
 * a pinner may do it while grappling, the opposed roll after the AoO. */
int gr_parse(refd_mpv r, struct cmd *c);
int gr_worn_check(const struct st *s, int a, struct cmd *c, struct why *y);
int gr_pinner_grab(const struct st *s, int a, const struct cmd *c);
int gr_worn_finish(refd_ctx *ctx, struct st *s);
void gr_put(refd_mpw *w, const struct cmd *c);
void gr_view(refd_mpw *w, const struct cr *c);
void gr_legal(const struct st *s, int seat, refd_mpw *w, struct cmd *c,
    int t, void (*try)(const struct st *, int, refd_mpw *, struct cmd *,
    const char *));

/* The unarmed strike it deals grapple damage with; lethal: the damage
 * is lethal (a monk's is by default, 5.13). */
void gr_unarmed(const struct cr *c, struct weapon *u);
int gr_monk(const struct cr *c);
/* After a creature's fields: a monk's unarmed main weapon deals its
 * monk_unarmed dice, lethal. */
void gr_fix(struct cdef *d);

/* Components in a grapple (5.13): a spell with a material component or
 * a focus needs them retrieved first (retrieve_component, a full-round
 * action, no check); they stay in hand until it leaves the grapple. */
int gr_grapple_comp(const struct cr *A, int comp, const char *spell,
    struct why *y);
int gr_retrieve_check(const struct st *s, int a, struct why *y);
int gr_retrieve_exec(refd_ctx *ctx, struct st *s, int a);

/* The pinned creature cannot speak: its pinner silenced it (5.13). */
int gr_hushed(const struct cr *c);

#endif
