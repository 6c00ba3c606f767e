/*
 * conceal.h - sight on the encounter map (spec 5.0, 5.2, 5.12, 4.4, 8.4):
 * darkness and opaque fog as total concealment, Hide and Spot, the coup
 * de grace against an unseen creature, attacks on a chosen square, and
 * squeezing.  See conceal.c.
 */
#ifndef ENC_CONCEAL_H
#define ENC_CONCEAL_H

#include "cmd.h"

/* The map carries darkness or opaque fog (set once at create). */
int cc_dark_map(const struct st *s);

/* Square (x, y) / unit edge blocks the sight of creature v (v < 0: of a
 * creature without darkvision). */
int cc_sq_opaque(const struct st *s, int v, int x, int y);
int cc_edge_opaque(const struct st *s, int x, int y, int h);

/* c has total concealment against v from the terrain (5.2). */
int cc_terrain_total(const struct st *s, int v, int c);

/* v cannot see c for a reason other than invisibility: the terrain, or
 * a Hide check that v has not beaten while c has cover or concealment. */
int cc_unseen(const struct st *s, int v, int c);

/* The seat (REFD_SEAT_PUBLIC: everybody) may be shown where c is. */
int cc_seat_sees(const struct st *s, int seat, int c);

/* v can see square (x, y) well enough to step or run into it (4.5). */
int cc_sees_square(const struct st *s, int v, int x, int y);

/* Commands: hide and spot (move actions), a coup de grace on a square. */
int cc_check(const struct st *s, int a, const struct cmd *c, struct why *y);
int cc_exec(refd_ctx *ctx, struct st *s, int a, const struct cmd *c);
int cc_cdg_square(refd_ctx *ctx, struct st *s, int a, const struct cmd *c,
    int *t);

/* An attack on an empty square: the same dice and the same event as on
 * an occupied one that misses (8.4). */
int cc_empty_attack(refd_ctx *ctx, struct st *s, int a,
    const struct weapon *w);

/* Hooks: a creature's turn begins; it moved; it attacks (ends hiding). */
void cc_turn_start(struct st *s, int a);
void cc_moved(struct st *s, int a);
void cc_reveal(struct st *s, int a);

/* Map layers of the view: darkness and opaque squares. */
void cc_view_map(const struct st *s, refd_mpw *w);

#endif
