/*
 * content.h - the encounter ruleset's content: see content.c.  The
 * parsers fill caller-owned structs and return 0, or -1 with the file,
 * item, field and reason written to err.
 */
#ifndef ENC_CONTENT_H
#define ENC_CONTENT_H

#include <stddef.h>

#include "enc.h"

struct mapdef {
	char name[NAMEL];
	int32_t w, h;
	uint8_t sq[MAXM][MAXM];
	uint8_t fog[MAXM][MAXM];
	uint8_t eh[MAXM + 1][MAXM + 1], ev[MAXM + 1][MAXM + 1];
};

struct content {
	struct weapon w[MAXW];
	int nw;
	struct cdef d[MAXD];
	int nd;
	struct mapdef m[MAXMAPS];
	int nm;
	struct spell sp[MAXSPC];
	int nsp;
};

void unarmed_weapon(struct weapon *w, int size);
int parse_weapon(refd_mpv v, const char *name, struct weapon *w, char *err,
    size_t elen);
const char *feat_name(int i);
const char *size_name(int size);
const struct weapon *find_weapon(const struct content *c, const char *name);
const struct cdef *find_cdef(const struct content *c, const char *name);
void cdef_defaults(struct cdef *d, const char *name);
int parse_cfield(const struct content *c, struct cdef *d, const char *k,
    refd_mpv x, const char *file, const char *item, char *err, size_t elen);
int parse_cdef(const struct content *c, refd_mpv v, const char *name,
    struct cdef *d, char *err, size_t elen);
int parse_map(refd_mpv v, const char *name, struct mapdef *m, char *err,
    size_t elen);
int parse_content(refd_mpv root, struct content *c, char *err, size_t elen);

#endif
