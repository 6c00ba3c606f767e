/* mb_int.h - massbattle internals shared by the plugin's files. */
#ifndef MB_INT_H
#define MB_INT_H

#include <stdio.h>

#include "mb.h"

/* One call's context: state, content, dry-run flag, rejection, errors. */
struct g {
	refd_ctx *ctx;
	struct state *s;
	const struct content *c;
	int dry;
	int code;
	const char *rule;
	char msg[240];
	int err;
	int seat;
};

#define REJ(G, CODE, RULE, ...) do {                                          \
	snprintf((G)->msg, sizeof((G)->msg), __VA_ARGS__);                     \
	(G)->code = (CODE);                                                    \
	(G)->rule = (RULE);                                                    \
	return (CODE);                                                         \
} while (0)

/* mb_content.c */
int mb_find_spell(const struct content *, const char *);
int mb_find_order(const struct content *, const char *);
int mb_find_profile(const struct content *, const char *);
int mb_find_card(const struct content *, const char *);
int32_t mb_radius(int cat);
int mb_base_cat(refd_mpv v);
int mb_content_load(refd_ctx *, void *, const uint8_t *, size_t, void **);
void mb_content_free(void *, void *);

/* mb_geo.c */
cont_pt mpt(const struct model *);
cont_pt mfc(const struct model *);
const struct profile *prof(const struct g *, const struct model *);
int32_t melee_range(const struct g *, const struct model *);
int in_mrange(const struct g *, const struct model *, const struct model *);
int engaged(const struct g *, const struct model *);
int engaging(const struct g *, const struct model *);
int in_melee(const struct g *, const struct model *);
int melee_with(const struct g *, const struct model *, const struct model *);
int los(const struct g *, const struct model *, const struct model *);
int los_f(const struct g *, const struct model *, cont_pt,
    const struct model *);
int is_trooper(const struct g *, const struct model *);
const struct model *uc_of(const struct g *, const struct model *);
int in_formation(const struct g *, const struct model *);
int fleeing(const struct g *, const struct model *);
int32_t cmd_stat(const struct g *, const struct model *);
int32_t focus_stat(const struct g *, const struct model *);
int32_t ctrl_mils(const struct g *, const struct model *);
int32_t def_eff(const struct g *, const struct model *, const struct model *,
    int ranged);
int32_t arm_eff(const struct g *, const struct model *);
int32_t mat_eff(const struct g *, const struct model *);
int32_t boxes(const struct g *, const struct model *);
int find_model(const struct g *, int64_t id);
int find_unit(const struct g *, int64_t id);
const char *mname(const struct g *, const struct model *);

/* mb_rules.c */
int mb_command(struct g *, uint32_t seat, refd_mpv cmd);
int mb_pending_seat(const struct state *);
void mb_advance(struct g *);
void mb_start_game(struct g *);
void mb_deploy(struct g *);
int mb_legal(struct g *, uint32_t seat, refd_mpw *w);

int weapon_disabled(const struct g *, const struct model *, int wi);

/* events */
refd_mpw *ev(struct g *, const char *type);
void ev_emit(struct g *, refd_mpw *);
void ev_emit_to(struct g *, int seat, refd_mpw *);
int mb_pending_mask(const struct state *, uint64_t *);

#endif
