/*
 * move.h - movement on the grid: see move.c.  Pure functions of a
 * borrowed state; nothing is allocated, drawn or emitted.
 */
#ifndef ENC_MOVE_H
#define ENC_MOVE_H

#include "rules.h"

int free_at(const struct st *s, int a, int x, int y);
int real_free(const struct st *s, int a, int x, int y);
int unseen_block(const struct st *s, int a, int x, int y);
int step_cost(const struct st *s, int a, int x, int y, int nx, int ny,
    int par, int *npar, int allies_block);
int reach_map(const struct st *s, int a, int allow, int par0,
    int16_t dist[MAXM][MAXM][2], int16_t prev[MAXM][MAXM][2]);
int reach_path(const struct st *s, int a, int16_t dist[MAXM][MAXM][2],
    int16_t prev[MAXM][MAXM][2], int tx, int ty, int *px, int *py,
    int *cost);
int line_path(const struct st *s, int a, int tx, int ty, int *px, int *py);
int line_ok(const struct st *s, int a, const int *px, const int *py, int n,
    int charge);
int lane_clear(const struct st *s, int a, int t, int ex, int ey);

#endif
