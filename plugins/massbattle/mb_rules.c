/*
 * mb_rules.c - massbattle rules: turn sequence, activation, movement,
 * orders, attacks, spells, command checks, succession and prompts.
 * Every command handler validates first (rejecting with no change), then
 * returns at once when g->dry (legal uses that), then acts.
 */
#include <string.h>

#include "mb_int.h"

#define S (g->s)
#define ORD_NONE (-2)
#define ORD_RUN 1000
#define ORD_CHARGE 1001
#define ORD_RIDEBY 1002

/* ---- events and dice ---- */

refd_mpw *
ev(struct g *g, const char *type)
{
	refd_mpw *w = refd_mpw_create();

	(void)g;
	refd_mpw_map(w);
	refd_mpw_kstr(w, "type", type);
	return w;
}

void
ev_emit(struct g *g, refd_mpw *w)
{
	ev_emit_to(g, REFD_SEAT_PUBLIC, w);
}

void
ev_emit_to(struct g *g, int seat, refd_mpw *w)
{
	int rc;

	refd_mpw_end(w);
	if (!g->err && !g->dry) {
		if (refd_mpw_error(w))
			g->err = REFD_ENOMEM;
		else if ((rc = H->emit(g->ctx, seat,
		    refd_mpw_data(w), refd_mpw_len(w))) != REFD_OK)
			g->err = rc;
	}
	refd_mpw_destroy(w);
}

static int
d6(struct g *g, const char *why)
{
	uint32_t v = 1;
	int rc;

	if (g->err)
		return 1;
	rc = H->roll(g->ctx, 6, why, &v);
	if (rc != REFD_OK) {
		g->err = rc;
		return 1;
	}
	return (int)v;
}

/* Roll n dice into d[]; returns the sum. */
static int
roll_n(struct g *g, int n, const char *why, int *d)
{
	int i, t = 0;

	for (i = 0; i < n; i++)
		t += d[i] = d6(g, why);
	return t;
}

static void
kdice(refd_mpw *w, const int *d, int n)
{
	int i;

	refd_mpw_karray(w, "dice");
	for (i = 0; i < n; i++)
		refd_mpw_int(w, d[i]);
	refd_mpw_end(w);
}

static int
n_alive(const struct g *g, int ui)
{
	int i, n = 0;

	for (i = 0; i < S->nm; i++)
		n += S->m[i].alive && S->m[i].unit == ui;
	return n;
}

static int
is_jack_or_caster(const struct g *g, const struct model *m)
{
	int k = prof(g, m)->kind;

	return k == K_WARJACK || k == K_WARCASTER;
}

static int any_attack(const struct model *m);
static void inst_off(struct g *g, int i);
static int near_terror(const struct g *g, const struct model *m);
static void terror_check(struct g *g, int ui);
static void terror_approach(struct g *g, int ei);
static int terror_gate(struct g *g);

/* Model indexes in ascending id order (rolls for several models). */
static void
id_order(const struct g *g, int *ord)
{
	int i, j, v;

	for (i = 0; i < S->nm; i++) {
		v = i;
		for (j = i; j > 0 && S->m[ord[j - 1]].id > S->m[v].id; j--)
			ord[j] = ord[j - 1];
		ord[j] = v;
	}
}

/* ---- prompts ---- */

static void
push_prompt(struct g *g, int kind, int seat, int unit, int model, int a,
    int b)
{
	struct prompt *p;

	if (S->npr >= MAXPROMPT)
		return;
	p = &S->pr[S->npr++];
	memset(p, 0, sizeof(*p));
	p->kind = kind;
	p->seat = seat;
	p->unit = unit;
	p->model = model;
	p->a = a;
	p->b = b;
}

static void
pop_prompt(struct g *g)
{
	if (S->npr > 0) {
		memmove(&S->pr[0], &S->pr[1], sizeof(S->pr[0]) *
		    (size_t)(S->npr - 1));
		S->npr--;
		memset(&S->pr[S->npr], 0, sizeof(S->pr[0]));
	}
}

int
mb_pending_seat(const struct state *s)
{
	if (s->phase == PH_OVER)
		return -1;
	if (s->phase == PH_ARMY)
		return s->army[0] ? 1 : 0;
	if (s->npr > 0)
		return s->pr[0].seat;
	return s->active;
}

/* ---- command checks (4.5) ---- */

/* Best CMD available to a unit (ui >= 0) or model: its own value or a
 * friendly Commander's whose command range reaches it [ASM-16]. */
static int32_t
best_cmd(const struct g *g, int ui, const struct model *self, int32_t own)
{
	int i, j;
	int32_t best = own;

	for (i = 0; i < S->nm; i++) {
		const struct model *c = &S->m[i];
		int32_t v;

		if (!c->alive || !prof(g, c)->commander || c == self)
			continue;
		v = cmd_stat(g, c);
		if (v <= best)
			continue;
		for (j = 0; j < S->nm; j++) {
			const struct model *m = &S->m[j];

			if (!m->alive || m->side != c->side)
				continue;
			if (ui >= 0 ? m->unit != ui : m != self)
				continue;
			if (cont_within(mpt(c), c->r, mpt(m), m->r,
			    (int64_t)v * INCH)) {
				best = v;
				break;
			}
		}
	}
	return best;
}

static const struct model *
sb_of(const struct g *g, int ui)
{
	int i;

	for (i = 0; i < S->nm; i++)
		if (S->m[i].alive && S->m[i].unit == ui && S->m[i].role == R_SB)
			return &S->m[i];
	return NULL;
}

static void
consequence(struct g *g, int ui, int mi, int cons, int pass)
{
	refd_mpw *w;

	if (cons == C_FLEE_UNIT && !pass) {
		S->u[ui].fleeing = 1;
		w = ev(g, "flees");
		refd_mpw_kint(w, "unit", S->u[ui].id);
		ev_emit(g, w);
	} else if (cons == C_FLEE_MODEL && !pass) {
		S->m[mi].flags |= F_FLEE;
		w = ev(g, "flees");
		refd_mpw_kint(w, "model", S->m[mi].id);
		ev_emit(g, w);
	} else if (cons == C_RALLY_UNIT && pass) {
		S->u[ui].fleeing = 0;
		w = ev(g, "rallies");
		refd_mpw_kint(w, "unit", S->u[ui].id);
		ev_emit(g, w);
	} else if (cons == C_RALLY_MODEL && pass) {
		S->m[mi].flags &= ~F_FLEE;
		w = ev(g, "rallies");
		refd_mpw_kint(w, "model", S->m[mi].id);
		ev_emit(g, w);
	}
}

static int
check_roll(struct g *g, int ui, int mi, int32_t target, const char *why,
    int reroll)
{
	int d[2], t;
	refd_mpw *w;

	t = roll_n(g, 2, "command", d);
	w = ev(g, "command_check");
	if (ui >= 0)
		refd_mpw_kint(w, "unit", S->u[ui].id);
	if (mi >= 0)
		refd_mpw_kint(w, "model", S->m[mi].id);
	refd_mpw_kstr(w, "why", why);
	kdice(w, d, 2);
	refd_mpw_kint(w, "total", t);
	refd_mpw_kint(w, "cmd", target);
	refd_mpw_kbool(w, "reroll", reroll);
	refd_mpw_kbool(w, "pass", t <= target);
	ev_emit(g, w);
	return t <= target;
}

/*
 * One command check.  ui: the unit for a unit-wide check (mi = -1), or
 * the checking model's unit with mi >= 0 for an individual check.  A
 * failure the Standard Bearer may reroll becomes a prompt.
 */
static const char *const check_why[] = { "out of formation", "rally",
	"massive casualties", "terror", "test" };

static int
why_code(const char *why)
{
	int i;

	for (i = 0; i < 5; i++)
		if (strcmp(check_why[i], why) == 0)
			return i;
	return 4;
}

/* Does friendly Commander c reach the checking unit (ui) or model? */
static int
commander_reaches(const struct g *g, const struct model *c, int ui,
    const struct model *self)
{
	int j;

	if (!c->alive || !prof(g, c)->commander || c == self)
		return 0;
	for (j = 0; j < S->nm; j++) {
		const struct model *m = &S->m[j];

		if (!m->alive || m->side != c->side)
			continue;
		if (ui >= 0 ? m->unit != ui : m != self)
			continue;
		if (cont_within(mpt(c), c->r, mpt(m), m->r,
		    (int64_t)cmd_stat(g, c) * INCH))
			return 1;
	}
	return 0;
}

static void do_check(struct g *g, int ui, int mi, int32_t target, int cons,
    const char *why);

static void
command_check(struct g *g, int ui, int mi, int cons, const char *why)
{
	const struct model *m = mi >= 0 ? &S->m[mi] : NULL;
	const struct model *c;
	int32_t target;

	if (mi >= 0) {
		if (prof(g, m)->fearless)
			return;
		target = cmd_stat(g, m);
		if (!in_formation(g, m))
			target -= 2;
		if (best_cmd(g, -1, m, target) > target) {
			push_prompt(g, P_CMDER, m->side, ui, mi, target, cons);
			S->pr[S->npr - 1].c = why_code(why);
			return;
		}
	} else {
		if (S->u[ui].uc < 0)
			return;
		c = &S->m[S->u[ui].uc];
		if (prof(g, c)->fearless)
			return;
		target = cmd_stat(g, c);
		if (best_cmd(g, ui, NULL, target) > target) {
			push_prompt(g, P_CMDER, S->u[ui].side, ui, -1, target,
			    cons);
			S->pr[S->npr - 1].c = why_code(why);
			return;
		}
	}
	do_check(g, ui, mi, target, cons, why);
}

static void
do_check(struct g *g, int ui, int mi, int32_t target, int cons,
    const char *why)
{
	const struct model *sb, *m = mi >= 0 ? &S->m[mi] : NULL;
	int pass;

	pass = check_roll(g, mi >= 0 ? -1 : ui, mi, target, why, 0);
	if (!pass && ui >= 0 && (sb = sb_of(g, ui)) != NULL &&
	    in_formation(g, sb) && (m == NULL || in_formation(g, m))) {
		push_prompt(g, P_REROLL, S->u[ui].side, ui, mi, target, cons);
		return;
	}
	consequence(g, ui, mi, cons, pass);
}

/* ---- control changes and battlegroups (6.1, R003-49) ---- */

/* Give model ti (a warjack or warcaster alone in its unit) to side. */
static void
set_control(struct g *g, int ti, int side)
{
	struct model *t = &S->m[ti];
	int j;
	refd_mpw *w;

	t->side = side;
	S->u[t->unit].side = side;
	if (prof(g, t)->kind == K_WARJACK) {
		t->bg = -1;
		if (side == t->owner && t->bg0 >= 0 && S->m[t->bg0].alive &&
		    S->m[t->bg0].side == t->owner)
			t->bg = t->bg0;
	}
	if (prof(g, t)->kind == K_WARCASTER)
		for (j = 0; j < S->nm; j++) {
			struct model *k = &S->m[j];

			if (j == ti || k->bg0 != ti || !k->alive ||
			    k->side != k->owner)
				continue;
			k->bg = side == t->owner ? ti : -1;
		}
	w = ev(g, "control");
	refd_mpw_kint(w, "model", t->id);
	refd_mpw_kint(w, "side", side);
	ev_emit(g, w);
}

/* Switch an instance off, undoing a change of control. */
static void
inst_off(struct g *g, int i)
{
	struct inst in = S->in[i];

	memset(&S->in[i], 0, sizeof(S->in[i]));
	if (in.on && g->c->sp[in.spell].control && in.model >= 0 &&
	    S->m[in.model].alive && S->m[in.model].side != S->m[in.model].owner)
		set_control(g, in.model, S->m[in.model].owner);
}

/* ---- removal, succession (3.4-3.9, 7.4) ---- */

static void
end_instances_on(struct g *g, int mi)
{
	int i;

	for (i = 0; i < MAXINST; i++)
		if (S->in[i].on && (S->in[i].model == mi ||
		    S->in[i].caster == mi))
			inst_off(g, i);
}

static int
grunt_candidates(const struct g *g, int ui, int near, int32_t x, int32_t y,
    int32_t r, int *out)
{
	int i, n = 0;
	cont_pt p;

	p.x = x;
	p.y = y;
	for (i = 0; i < S->nm; i++) {
		const struct model *m = &S->m[i];

		if (!m->alive || m->unit != ui || m->role != R_GRUNT)
			continue;
		if (near && !cont_within(p, r, mpt(m), m->r, 1000))
			continue;
		out[n++] = i;
	}
	return n;
}

static int
dead_role(const struct g *g, int ui, int role)
{
	int i;

	for (i = 0; i < S->nm; i++)
		if (!S->m[i].alive && S->m[i].unit == ui &&
		    S->m[i].role == role && S->m[i].flags & F_DYING)
			return i;
	return -1;
}

/* After an attack or effect: remove destroyed models, queue succession. */
static void
post_attack(struct g *g)
{
	int i, j;
	refd_mpw *w;

	for (i = 0; i < S->nm; i++) {
		struct model *m = &S->m[i];
		struct unit *u;

		if (!m->alive || !(m->flags & F_DYING))
			continue;
		m->alive = 0;
		end_instances_on(g, i);
		w = ev(g, "destroyed");
		refd_mpw_kint(w, "model", m->id);
		refd_mpw_kstr(w, "name", mname(g, m));
		ev_emit(g, w);
		u = &S->u[m->unit];
		if (m->role == R_LEADER) {
			u->need |= N_PROMOTE;
			u->lx = m->x;
			u->ly = m->y;
			if (u->uc == i)
				u->uc = -1;
		} else if (m->role == R_OFFICER && u->uc == i) {
			u->uc = -1;
			for (j = 0; j < S->nm; j++)
				if (S->m[j].alive && S->m[j].unit == m->unit &&
				    S->m[j].role == R_LEADER)
					u->uc = j;
			if (u->uc >= 0) {
				w = ev(g, "new_commander");
				refd_mpw_kint(w, "unit", u->id);
				refd_mpw_kint(w, "model", S->m[u->uc].id);
				ev_emit(g, w);
			}
		} else if (m->role == R_SB) {
			u->need |= N_SBREP;
			u->sbx = m->x;
			u->sby = m->y;
			if (u->uc == i)
				u->uc = -1;
		} else if (u->uc == i) {
			u->uc = -1;
		}
	}
	for (i = 0; i < S->nu; i++) {
		struct unit *u = &S->u[i];
		int n = n_alive(g, i);

		if (!u->alive)
			continue;
		if (n == 0) {
			u->alive = 0;
			u->need = 0;
			for (j = 0; j < S->nm; j++)
				if (S->m[j].unit == i)
					S->m[j].flags &= ~F_DYING;
			continue;
		}
		if (u->uc < 0 && !(u->need & N_PROMOTE))
			u->need |= N_DESIGNATE;
		for (j = 0; j < S->nm; j++)
			if (S->m[j].unit == i)
				break;
		if (S->massive && u->start_n > 1 && 2 * n <= u->start_n &&
		    u->mc_turn != S->turn && !u->fleeing && j < S->nm &&
		    prof(g, &S->m[j])->kind == K_TROOPER) {
			u->mc_turn = S->turn;
			u->need |= N_MC;
		}
	}
}

static void
clear_dying(struct g *g, int ui, int role)
{
	int d = dead_role(g, ui, role);

	if (d >= 0)
		S->m[d].flags &= ~F_DYING;
}

static void
unit_needs(struct g *g, int ui)
{
	struct unit *u = &S->u[ui];
	int c[MAXM], n, ld;

	if (u->need & N_PROMOTE) {
		ld = dead_role(g, ui, R_LEADER);
		n = ld < 0 ? 0 : grunt_candidates(g, ui, u->weapon_crew, u->lx,
		    u->ly, S->m[ld].r, c);
		if (n > 0) {
			push_prompt(g, P_PROMOTE, u->side, ui, ld, 0, 0);
			return;
		}
		u->need &= ~N_PROMOTE;
		clear_dying(g, ui, R_LEADER);
		if (u->uc < 0)
			u->need |= N_DESIGNATE;
		return;
	}
	if (u->need & N_DESIGNATE) {
		if (u->uc >= 0 || n_alive(g, ui) == 0) {
			u->need &= ~N_DESIGNATE;
			return;
		}
		push_prompt(g, P_DESIGNATE, u->side, ui, -1, 0, 0);
		return;
	}
	if (u->need & N_SBREP) {
		ld = dead_role(g, ui, R_SB);
		n = ld < 0 ? 0 : grunt_candidates(g, ui, 1, u->sbx, u->sby,
		    S->m[ld].r, c);
		if (n > 0) {
			push_prompt(g, P_SBREP, u->side, ui, ld, 0, 0);
			return;
		}
		u->need &= ~N_SBREP;
		clear_dying(g, ui, R_SB);
		return;
	}
	if (u->need & N_MC) {
		u->need &= ~N_MC;
		command_check(g, ui, -1, C_FLEE_UNIT, "massive casualties");
	}
}

/* Swap a dead Leader/SB model (dst) onto a Grunt (src), 3.4 and 3.7. */
static void
swap_in(struct g *g, int dst, int src, int keep_place)
{
	struct model *d = &S->m[dst], *s = &S->m[src];
	int32_t unmarked = boxes(g, s) - s->marked;
	int i;

	d->alive = 1;
	if (!keep_place) {
		d->x = s->x;
		d->y = s->y;
		d->fx = s->fx;
		d->fy = s->fy;
	}
	d->z = s->z;
	d->marked = boxes(g, d) - unmarked;
	if (d->marked < 0)
		d->marked = 0;
	d->flags = s->flags & ~F_DYING;
	d->lock_turn = S->turn;
	d->lock_act = S->actno;
	d->mv = s->mv;
	d->acted = s->acted;
	d->ax = s->ax;
	d->ay = s->ay;
	for (i = 0; i < MAXINST; i++)
		if (S->in[i].on && S->in[i].model == src)
			S->in[i].model = dst;
	s->alive = 0;
	s->flags &= ~F_DYING;
}

/* ---- end of activation (4.3 step 5) ---- */

static int
next_model_of(const struct g *g, int ui, int32_t after)
{
	int i, best = -1;

	for (i = 0; i < S->nm; i++) {
		const struct model *m = &S->m[i];

		if (!m->alive || m->unit != ui || m->id <= after)
			continue;
		if (best < 0 || m->id < S->m[best].id)
			best = i;
	}
	return best;
}

static void
eoa_step(struct g *g)
{
	int ui = S->cur, mi, i;
	struct unit *u = &S->u[ui];
	refd_mpw *w;

	if (S->eoa == 1) {
		mi = next_model_of(g, ui, S->eoa_idx);
		if (mi < 0) {
			S->eoa = 2;
			S->eoa_idx = 0;
			return;
		}
		S->eoa_idx = S->m[mi].id;
		if (is_trooper(g, &S->m[mi]) && !in_formation(g, &S->m[mi]) &&
		    !fleeing(g, &S->m[mi]))
			command_check(g, ui, mi, C_FLEE_MODEL,
			    "out of formation");
		return;
	}
	if (S->eoa == 2) {
		S->eoa = 3;
		S->eoa_idx = 0;
		if (u->alive && u->fleeing0 && u->fleeing)
			command_check(g, ui, -1, C_RALLY_UNIT, "rally");
		return;
	}
	if (S->eoa == 3) {
		mi = next_model_of(g, ui, S->eoa_idx);
		if (mi < 0) {
			S->eoa = 4;
			return;
		}
		S->eoa_idx = S->m[mi].id;
		if ((S->m[mi].flags & F_FLEE0) && (S->m[mi].flags & F_FLEE))
			command_check(g, ui, mi, C_RALLY_MODEL, "rally");
		return;
	}
	/* done: the order expires */
	u->order = -1;
	u->act = 1;
	for (i = 0; i < S->nm; i++)
		if (S->m[i].unit == ui)
			S->m[i].flags &= ~(F_SNAPOUT | F_FLEE0 | F_RAN |
			    F_FEATNOW | F_CASTNOW | F_CHARGED | F_ORDERED |
			    F_AIM);
	w = ev(g, "activation_end");
	refd_mpw_kint(w, "unit", u->id);
	ev_emit(g, w);
	S->eoa = 0;
	S->cur = -1;
}

/* ---- victory ---- */

static int
side_points(const struct g *g, int side)
{
	int i, p = 0;

	for (i = 0; i < S->nm; i++)
		if (S->m[i].alive && S->m[i].owner == side)
			p += prof(g, &S->m[i])->points;
	return p;
}

static void
game_over(struct g *g, int winner, int reason)
{
	refd_mpw *w;
	static const char *const rs[] = { "", "no models left",
		"warcaster destroyed", "turn limit: more points", "turn limit: draw" };

	S->phase = PH_OVER;
	S->winner = winner;
	S->reason = reason;
	S->npr = 0;
	S->cur = -1;
	w = ev(g, "game_over");
	refd_mpw_kint(w, "winner", winner);
	refd_mpw_kstr(w, "reason", rs[reason]);
	ev_emit(g, w);
}

static int
check_victory(struct g *g)
{
	int side, i, lost[2] = { 0, 0 };

	for (side = 0; side < 2; side++) {
		int any = 0, casters = 0, alive_c = 0;

		for (i = 0; i < S->nm; i++) {
			const struct model *m = &S->m[i];

			if (m->owner != side)
				continue;
			any += m->alive && prof(g, m)->kind != K_STRUCTURE;
			if (prof(g, m)->kind == K_WARCASTER) {
				casters++;
				alive_c += m->alive;
			}
		}
		if (any == 0)
			lost[side] = 1;
		else if (casters > 0 && alive_c == 0)
			lost[side] = 2;
	}
	if (lost[0] && lost[1]) {
		game_over(g, -1, 4);
		return 1;
	}
	for (side = 0; side < 2; side++)
		if (lost[side]) {
			game_over(g, 1 - side, lost[side]);
			return 1;
		}
	return 0;
}

void
mb_advance(struct g *g)
{
	int i;

	while (!g->err && S->phase != PH_OVER) {
		int n = 0;

		if (S->npr > 0)
			return;
		if (S->prio > 0 && !(S->u[S->prio - 1].alive &&
		    S->u[S->prio - 1].need))
			S->prio = 0;
		if (S->prio > 0) {
			unit_needs(g, S->prio - 1);
			continue;
		}
		for (i = 0; i < S->nu; i++)
			n += S->u[i].alive && S->u[i].need;
		if (n > 1 && S->phase != PH_ARMY) {
			/* simultaneous effects: the active player orders them */
			push_prompt(g, P_ORDER, S->active, -1, -1, 0, 0);
			return;
		}
		for (i = 0; i < S->nu; i++)
			if (S->u[i].alive && S->u[i].need)
				break;
		if (i < S->nu) {
			unit_needs(g, i);
			continue;
		}
		if (S->phase == PH_ARMY)
			return;
		if (check_victory(g))
			return;
		if (S->eoa && S->cur >= 0) {
			eoa_step(g);
			continue;
		}
		return;
	}
}

/* ---- turn sequence (4.1) ---- */

static int
can_allocate_any(const struct g *g)
{
	int i, j;

	for (i = 0; i < S->nm; i++) {
		const struct model *c = &S->m[i];

		if (!c->alive || c->side != S->active || c->focus <= 0 ||
		    prof(g, c)->kind != K_WARCASTER)
			continue;
		for (j = 0; j < S->nm; j++) {
			const struct model *k = &S->m[j];

			if (k->alive && k->bg == i && k != c && k->alloc < 3 &&
			    cont_within(mpt(c), c->r, mpt(k), k->r,
			    ctrl_mils(g, c)))
				return 1;
		}
	}
	return 0;
}

static int
any_upkeep(const struct g *g)
{
	int i;

	for (i = 0; i < MAXINST; i++)
		if (S->in[i].on && S->in[i].upkeep && S->in[i].side == S->active)
			return 1;
	return 0;
}

static int
any_shake(const struct g *g)
{
	int i;

	for (i = 0; i < S->nm; i++) {
		const struct model *m = &S->m[i];

		if (m->alive && m->side == S->active && m->focus > 0 &&
		    is_jack_or_caster(g, m) && (m->flags & (F_KD | F_STAT)))
			return 1;
	}
	return 0;
}

static void
skip_control(struct g *g)
{
	refd_mpw *w;
	int i;

	if (S->phase == PH_CP_ALLOC && !can_allocate_any(g))
		S->phase = PH_CP_UPKEEP;
	if (S->phase == PH_CP_UPKEEP && !any_upkeep(g))
		S->phase = PH_CP_SHAKE;
	if (S->phase == PH_CP_UPKEEP) {
		for (i = 0; i < MAXINST; i++)
			S->in[i].kept = 0;
	}
	if (S->phase == PH_CP_SHAKE && !any_shake(g))
		S->phase = PH_ACT;
	w = ev(g, "phase");
	refd_mpw_kstr(w, "phase", S->phase == PH_CP_ALLOC ? "allocate" :
	    S->phase == PH_CP_UPKEEP ? "upkeep" : S->phase == PH_CP_SHAKE ?
	    "shake" : "activation");
	ev_emit(g, w);
}

static void
damage_roll(struct g *g, struct model *a, struct model *t, int32_t pow,
    int ndice, const char *why);

static void
start_turn(struct g *g)
{
	int i, k, ord[MAXM];
	refd_mpw *w;

	if (S->turn >= 2 * S->turn_limit) {
		int p0 = side_points(g, 0), p1 = side_points(g, 1);

		game_over(g, p0 == p1 ? -1 : (p0 > p1 ? 0 : 1),
		    p0 == p1 ? 4 : 3);
		return;
	}
	S->turn++;
	S->actno++;
	S->active = S->turn == 1 ? S->first : 1 - S->active;
	w = ev(g, "turn");
	refd_mpw_kint(w, "turn", S->turn);
	refd_mpw_kint(w, "round", (S->turn + 1) / 2);
	refd_mpw_kint(w, "active", S->active);
	ev_emit(g, w);
	for (i = 0; i < S->nu; i++) {
		S->u[i].start_n = n_alive(g, i);
		S->u[i].act = 0;
	}
	/* Maintenance: focus off, one-round effects end, continuous effects */
	for (i = 0; i < MAXINST; i++)
		if (S->in[i].on && S->in[i].side == S->active &&
		    g->c->sp[S->in[i].spell].round)
			inst_off(g, i);
	for (i = 0; i < S->nm; i++) {
		struct model *m = &S->m[i];

		if (!m->alive || m->side != S->active)
			continue;
		m->focus = m->alloc = 0;
	}
	id_order(g, ord);
	for (k = 0; k < S->nm && !g->err; k++) {
		struct model *m = &S->m[ord[k]];
		int d;

		if (!m->alive || m->side != S->active || !(m->flags & F_FIRE))
			continue;
		d = d6(g, "fire");
		w = ev(g, "fire");
		refd_mpw_kint(w, "model", m->id);
		refd_mpw_kint(w, "die", d);
		refd_mpw_kbool(w, "expires", d <= 2);
		ev_emit(g, w);
		if (d <= 2)
			m->flags &= ~F_FIRE;
		else
			damage_roll(g, NULL, m, 12, 2, "fire");
		post_attack(g);
	}
	/* Control: replenish */
	for (i = 0; i < S->nm; i++) {
		struct model *m = &S->m[i];

		if (m->alive && m->side == S->active &&
		    prof(g, m)->kind == K_WARCASTER)
			m->focus = focus_stat(g, m);
	}
	S->phase = PH_CP_ALLOC;
	skip_control(g);
}

void
mb_start_game(struct g *g)
{
	int a, b;
	refd_mpw *w;

	if (S->first < 0) {
		do {
			a = d6(g, "start");
			b = d6(g, "start");
		} while (a == b && !g->err);
		w = ev(g, "roll_off");
		refd_mpw_kint(w, "seat0", a);
		refd_mpw_kint(w, "seat1", b);
		ev_emit(g, w);
		S->phase = PH_START;
		push_prompt(g, P_FIRST, a > b ? 0 : 1, -1, -1, 0, 0);
		return;
	}
	if (S->phase == PH_ACT) {
		int i;

		S->turn = 1;
		S->active = S->first;
		for (i = 0; i < S->nu; i++)
			S->u[i].start_n = n_alive(g, i);
		return;
	}
	start_turn(g);
}

/* ---- damage and attacks (7.1-7.8) ---- */

/* Damage on a warjack grid [ASM-33]: a d6 picks the column, boxes fill
 * down the column and spill to the next one (6 -> 1). */
static void
grid_damage(struct g *g, struct model *t, int32_t dmg)
{
	const struct profile *p = prof(g, t);
	int col = d6(g, "damage location") - 1, n;
	refd_mpw *w = ev(g, "grid");

	refd_mpw_kint(w, "model", t->id);
	refd_mpw_kint(w, "column", col + 1);
	ev_emit(g, w);
	for (n = 0; n < 6 && dmg > 0; n++, col = (col + 1) % 6)
		while (dmg > 0 && t->gm[col] < p->grid[col]) {
			t->gm[col]++;
			dmg--;
		}
}

int
weapon_disabled(const struct g *g, const struct model *m, int wi)
{
	const struct profile *p = prof(g, m);
	int c = p->w[wi].system;

	return c > 0 && p->grid[c - 1] > 0 && m->gm[c - 1] >= p->grid[c - 1];
}

static void
apply_damage(struct g *g, struct model *t, int32_t dmg)
{
	if (prof(g, t)->grid[0] > 0 && dmg > 0) {
		int i;

		grid_damage(g, t, dmg);
		t->marked = 0;
		for (i = 0; i < 6; i++)
			t->marked += t->gm[i];
		if (t->marked >= boxes(g, t))
			t->flags |= F_DYING;
		return;
	}
	t->marked += dmg;
	if (t->marked >= boxes(g, t)) {
		t->marked = boxes(g, t);
		t->flags |= F_DYING;
	}
}

static void
damage_roll(struct g *g, struct model *a, struct model *t, int32_t pow,
    int ndice, const char *why)
{
	int d[4], sum;
	int32_t arm, dmg;
	refd_mpw *w;

	if (ndice > 4)
		ndice = 4;
	sum = roll_n(g, ndice, "damage", d);
	arm = arm_eff(g, t);
	dmg = sum + pow - arm;
	if (dmg < 0)
		dmg = 0;
	apply_damage(g, t, dmg);
	w = ev(g, "damage");
	if (a != NULL)
		refd_mpw_kint(w, "attacker", a->id);
	refd_mpw_kint(w, "target", t->id);
	refd_mpw_kstr(w, "why", why);
	kdice(w, d, ndice);
	refd_mpw_kint(w, "pow", pow);
	refd_mpw_kint(w, "total", sum + pow);
	refd_mpw_kint(w, "arm", arm);
	refd_mpw_kint(w, "damage", dmg);
	refd_mpw_kint(w, "boxes_left", boxes(g, t) - t->marked);
	refd_mpw_kbool(w, "destroyed", (t->flags & F_DYING) != 0);
	ev_emit(g, w);
}

enum akind { A_MELEE = 0, A_RANGED, A_MAGIC };

struct atk {
	int att, org, tgt, kind, spell, boost, bonus, free_strike, charge;
	int32_t pow, rng;
	int power;		/* power attack kind + 1, 0 for none */
};

static void power_effect(struct g *g, struct atk *a);

/* Apply a hit spell's effects (and upkeep slot rules, 8.10). */
static void apply_spell(struct g *g, int caster, int spell, int ti);

static int
spell_target_ok(const struct g *g, int caster, int spell, int org, int ti,
    const char **why);

static void
blast_all(struct g *g, struct model *a, cont_pt p, int32_t rad, int skip,
    int32_t pow)
{
	int i, k, ord[MAXM];
	refd_mpw *w;

	w = ev(g, "aoe");
	refd_mpw_kint(w, "x", p.x);
	refd_mpw_kint(w, "y", p.y);
	refd_mpw_kint(w, "radius", rad);
	ev_emit(g, w);
	if (pow < 0)
		return;
	id_order(g, ord);
	for (k = 0; k < S->nm; k++) {
		struct model *m = &S->m[i = ord[k]];

		if (!m->alive || i == skip || (m->flags & F_DYING))
			continue;
		if (cont_point_within(p, mpt(m), m->r, rad))
			damage_roll(g, a, m, (pow + 1) / 2, 2, "blast");
	}
}

/* Random pick among candidates sorted by id (1.6). */
static int
random_pick(struct g *g, int *c, int n)
{
	int i, j, v;

	for (i = 1; i < n; i++)
		for (j = i; j > 0 && S->m[c[j]].id < S->m[c[j - 1]].id; j--) {
			v = c[j];
			c[j] = c[j - 1];
			c[j - 1] = v;
		}
	if (n == 1)
		return c[0];
	do {
		if (n <= 6)
			v = d6(g, "random model");
		else
			v = (d6(g, "random model") - 1) * 6 +
			    d6(g, "random model");
	} while (v > n && !g->err);
	if (v > n)
		v = 1;
	return c[v - 1];
}

static int
combat_candidates(const struct g *g, int t, int att, int *out)
{
	int seen[MAXM], q[MAXM], qh = 0, qt = 0, i, n = 0;

	memset(seen, 0, sizeof(seen));
	seen[t] = 1;
	q[qt++] = t;
	while (qh < qt) {
		int x = q[qh++];

		for (i = 0; i < S->nm; i++)
			if (!seen[i] && S->m[i].alive &&
			    melee_with(g, &S->m[x], &S->m[i])) {
				seen[i] = 1;
				q[qt++] = i;
			}
	}
	for (i = 0; i < qt; i++)
		if (q[i] != t && q[i] != att)
			out[n++] = q[i];
	return n;
}

/* One attack roll; returns 1 on a hit. */
static int
attack_roll(struct g *g, struct atk *a, int redirected)
{
	struct model *at = &S->m[a->att], *t = &S->m[a->tgt];
	struct model *o = &S->m[a->org];
	int d[5], n = 2 + a->boost, sum, all1 = 1, all6 = 1, i, hit;
	int32_t stat, mod = a->bonus, def;
	cont_pt st;
	refd_mpw *w;

	if (a->spell >= 0)
		n += g->c->sp[a->spell].dice;
	if (n < 1)
		n = 1;
	if (n > 5)
		n = 5;
	sum = roll_n(g, n, a->kind == A_MAGIC ? "magic attack" :
	    a->kind == A_MELEE ? "melee attack" : "ranged attack", d);
	for (i = 0; i < n; i++) {
		all1 &= d[i] == 1;
		all6 &= d[i] == 6;
	}
	stat = a->kind == A_MAGIC ? focus_stat(g, at) : a->kind == A_MELEE ?
	    mat_eff(g, at) : prof(g, at)->rat;
	st.x = o->ax;
	st.y = o->ay;
	if (!a->free_strike &&
	    cont_completely_in_back(mpt(t), mfc(t), mpt(o), o->r) &&
	    cont_completely_in_back(mpt(t), mfc(t), st, o->r))
		mod += 2;
	if (a->kind != A_MELEE && in_melee(g, t) &&
	    !(a->kind == A_MAGIC && melee_with(g, at, t)))
		mod -= 4;
	def = def_eff(g, t, o, a->kind != A_MELEE);
	hit = all1 ? 0 : (all6 && n >= 2) ? 1 : sum + stat + mod >= def;
	w = ev(g, "attack_roll");
	refd_mpw_kint(w, "attacker", at->id);
	refd_mpw_kint(w, "target", t->id);
	refd_mpw_kstr(w, "kind", a->kind == A_MAGIC ? "magic" :
	    a->kind == A_MELEE ? "melee" : "ranged");
	kdice(w, d, n);
	refd_mpw_kint(w, "total", sum + stat + mod);
	refd_mpw_kint(w, "def", def);
	refd_mpw_kbool(w, "hit", hit);
	if (redirected)
		refd_mpw_kbool(w, "redirected", 1);
	ev_emit(g, w);
	return hit;
}

static int
can_boost_now(const struct g *g, const struct model *m, int cost)
{
	return is_jack_or_caster(g, m) && m->focus >= cost &&
	    S->cur == m->unit && S->active == m->side;
}

static void
finish_damage(struct g *g, int boost)
{
	struct pdmg pd = S->pd;
	struct model *a = pd.att >= 0 ? &S->m[pd.att] : NULL;

	memset(&S->pd, 0, sizeof(S->pd));
	if (boost && a != NULL)
		a->focus -= 1;
	if (pd.base >= 0)
		damage_roll(g, a, &S->m[pd.tgt], pd.base, pd.dice + boost,
		    pd.melee ? "melee" : "hit");
	if (pd.charge > 0) {
		cont_pt p;

		p.x = S->m[pd.tgt].x;
		p.y = S->m[pd.tgt].y;
		blast_all(g, a, p, pd.charge, pd.tgt, pd.free_boost);
	}
	S->in_attack = 0;
	post_attack(g);
}

/* Direct-hit damage: a prompt when the attacker may boost it. */
static void
hit_damage(struct g *g, struct atk *a, int32_t aoe_r)
{
	struct model *at = &S->m[a->att];
	int free = a->charge || a->free_strike;

	S->pd.on = 1;
	S->pd.att = a->att;
	S->pd.tgt = a->tgt;
	S->pd.base = a->pow;
	S->pd.dice = 2 + free;
	S->pd.melee = a->kind == A_MELEE;
	S->pd.charge = aoe_r;		/* AOE radius for the blasts */
	S->pd.free_boost = a->pow;	/* blast POW */
	if (a->pow >= 0 && !free && !a->free_strike &&
	    can_boost_now(g, at, 1)) {
		push_prompt(g, P_DAMAGE, at->side, at->unit, a->att, 0, 0);
		return;
	}
	finish_damage(g, 0);
}

static void
resolve_attack(struct g *g, struct atk *a, int32_t aoe_r)
{
	struct model *o = &S->m[a->org], *t = &S->m[a->tgt];
	int c[MAXM], n, hit;
	const char *why;
	cont_pt p;
	refd_mpw *w;

	S->in_attack = 1;
	if (a->kind != A_MELEE && !cont_within(mpt(o), o->r, mpt(t), t->r,
	    a->rng)) {
		w = ev(g, "out_of_range");
		refd_mpw_kint(w, "attacker", S->m[a->att].id);
		refd_mpw_kint(w, "target", t->id);
		ev_emit(g, w);
		if (aoe_r > 0) {
			p = cont_point_along(mpt(o), mpt(t), o->r + a->rng);
			goto deviate;
		}
		S->in_attack = 0;
		post_attack(g);
		return;
	}
	if (a->spell >= 0 && g->c->sp[a->spell].auto_hit) {
		w = ev(g, "direct_hit");
		refd_mpw_kint(w, "target", t->id);
		refd_mpw_kstr(w, "why", "automatic hit");
		ev_emit(g, w);
		hit = 1;
	} else
		hit = attack_roll(g, a, 0);
	if (!hit && aoe_r == 0 && a->kind != A_MELEE && in_melee(g, t)) {
		n = combat_candidates(g, a->tgt, a->att, c);
		if (n > 0) {
			a->tgt = random_pick(g, c, n);
			t = &S->m[a->tgt];
			w = ev(g, "redirect");
			refd_mpw_kint(w, "target", t->id);
			ev_emit(g, w);
			if (a->spell >= 0 && !spell_target_ok(g, a->att,
			    a->spell, a->org, a->tgt, &why)) {
				w = ev(g, "no_effect");
				refd_mpw_kstr(w, "why", why);
				ev_emit(g, w);
				S->in_attack = 0;
				post_attack(g);
				return;
			}
			hit = attack_roll(g, a, 1);
		}
	}
	if (hit) {
		if (a->spell >= 0)
			apply_spell(g, a->att, a->spell, a->tgt);
		if (a->power)
			power_effect(g, a);
		hit_damage(g, a, aoe_r);
		return;
	}
	if (aoe_r > 0) {
		p = mpt(t);
deviate:
		{
			int dir = d6(g, "deviation direction");
			int64_t dist = (int64_t)d6(g, "deviation distance") * INCH;
			int64_t cap = (int64_t)cont_isqrt_floor(
			    (uint64_t)cont_d2(mpt(o), p)) / 2;
			cont_pt q;

			if (dist > cap)
				dist = cap;
			q = cont_deviate(mpt(o), p, dir, dist);
			q.x = q.x < S->x0 ? S->x0 : q.x > S->x1 ? S->x1 : q.x;
			q.y = q.y < S->y0 ? S->y0 : q.y > S->y1 ? S->y1 : q.y;
			w = ev(g, "deviation");
			refd_mpw_kint(w, "direction", dir);
			refd_mpw_kint(w, "distance", dist);
			ev_emit(g, w);
			blast_all(g, &S->m[a->att], q, aoe_r, -1, a->pow);
		}
	}
	S->in_attack = 0;
	post_attack(g);
}

/* ---- spells (8) ---- */

static int
spell_offensive(const struct g *g, int caster, int spell, int ti)
{
	const struct spell *sp = &g->c->sp[spell];

	if (sp->off == 2)
		return S->m[ti].side != S->m[caster].side;
	return sp->off;
}

static int
spell_target_ok(const struct g *g, int caster, int spell, int org, int ti,
    const char **why)
{
	const struct spell *sp = &g->c->sp[spell];
	const struct model *c = &S->m[caster], *t = &S->m[ti];

	*why = NULL;
	if (prof(g, t)->kind == K_STRUCTURE &&
	    spell_offensive(g, caster, spell, ti)) {
		if (ti == org)
			*why = "an offensive spell cannot target its point of "
			    "origin";
		return *why == NULL;	/* R003-71: restrictions ignored */
	}
	if (sp->rng == -1 && ti != caster)
		*why = "a SELF spell can target only its caster";
	else if (spell_offensive(g, caster, spell, ti) && ti == org)
		*why = "an offensive spell cannot target its point of origin";
	else if (sp->tgt == T_ENEMY_TROOPER && (t->side == c->side ||
	    !is_trooper(g, t)))
		*why = "this spell must target an enemy trooper";
	else if (sp->tgt == T_ENEMY && t->side == c->side)
		*why = "this spell must target an enemy model";
	else if (sp->tgt == T_FRIENDLY && t->side != c->side)
		*why = "this spell must target a friendly model";
	else if (sp->tgt == T_SELF && ti != caster)
		*why = "this spell can target only its caster";
	else if (sp->tgt == T_OWN_JACK && (prof(g, t)->kind != K_WARJACK ||
	    t->bg != caster))
		*why = "this spell must target a warjack of the caster's "
		    "battlegroup";
	else if (sp->tgt == T_ENEMY_NONTROOPER && (t->side == c->side ||
	    is_trooper(g, t)))
		*why = "this spell must target an enemy warjack, warcaster or solo";
	else if (sp->tgt == T_LIVING && prof(g, t)->kind == K_WARJACK)
		*why = "this spell must target a living model (warjacks are "
		    "Constructs)";
	else if (sp->tgt == T_UNIT && !is_trooper(g, t))
		*why = "this spell must target a trooper (target unit)";
	return *why == NULL;
}

static void
end_inst(struct g *g, int i, const char *why)
{
	refd_mpw *w = ev(g, "spell_expires");

	refd_mpw_kstr(w, "spell", g->c->sp[S->in[i].spell].key);
	refd_mpw_kint(w, "caster", S->m[S->in[i].caster].id);
	refd_mpw_kstr(w, "why", why);
	ev_emit(g, w);
	inst_off(g, i);
}

/* A new upkeep spell from caster reaches ti: the same side's upkeep on
 * the model or its unit ends (8.10). */
static void
replace_upkeep(struct g *g, int caster, int ti)
{
	const struct model *t = &S->m[ti];
	int i, unitwide = is_trooper(g, t);
	int friendly = S->m[caster].side == t->side;

	for (i = 0; i < MAXINST; i++) {
		struct inst *in = &S->in[i];

		if (!in->on || !in->upkeep || (in->side == t->side) != friendly)
			continue;
		if (in->model == ti || (in->unit >= 0 && in->unit == t->unit) ||
		    (unitwide && in->model >= 0 &&
		    S->m[in->model].unit == t->unit))
			end_inst(g, i, "replaced");
	}
}

static void
apply_spell(struct g *g, int caster, int spell, int ti)
{
	const struct spell *sp = &g->c->sp[spell];
	struct model *t = &S->m[ti];
	int i, unitwide = is_trooper(g, t), slot = -1;
	refd_mpw *w;

	if (sp->fire)
		t->flags |= F_FIRE;
	if (sp->kd)
		t->flags |= F_KD;
	if (!sp->def && !sp->arm && !sp->mat && !sp->upkeep && !sp->ctrl &&
	    !sp->ctrl_x2 && !sp->animus && !sp->control)
		return;
	if (sp->animus)
		for (i = 0; i < MAXINST; i++) {
			struct inst *in = &S->in[i];

			if (!in->on || !g->c->sp[in->spell].animus ||
			    in->side != S->m[caster].side)
				continue;
			if (in->model == ti || (in->unit >= 0 &&
			    in->unit == t->unit) || (unitwide &&
			    in->model >= 0 && S->m[in->model].unit == t->unit))
				end_inst(g, i, "replaced");
		}
	if (sp->upkeep)
		replace_upkeep(g, caster, ti);
	for (i = 0; i < MAXINST; i++)
		if (!S->in[i].on) {
			slot = i;
			break;
		}
	if (slot < 0)
		return;
	S->in[slot].on = 1;
	S->in[slot].spell = spell;
	S->in[slot].caster = caster;
	S->in[slot].side = S->m[caster].side;
	S->in[slot].model = unitwide ? -1 : ti;
	S->in[slot].unit = unitwide ? t->unit : -1;
	S->in[slot].upkeep = sp->upkeep;
	S->in[slot].turn = S->turn;
	S->in[slot].kept = 1;
	if (sp->control && !unitwide && t->side != S->m[caster].side)
		set_control(g, ti, S->m[caster].side);
	w = ev(g, "spell_effect");
	refd_mpw_kstr(w, "spell", sp->key);
	if (unitwide)
		refd_mpw_kint(w, "unit", S->u[t->unit].id);
	else
		refd_mpw_kint(w, "model", t->id);
	ev_emit(g, w);
}

/* ---- command helpers ---- */

/* A present argument k must be a string (absent: the caller's default). */
static int
arg_str(struct g *g, refd_mpv c, const char *k)
{
	refd_mpv v = refd_mpv_get(c, k);

	if (refd_mpv_ok(v) && refd_mpv_type(v) != REFD_MP_STR)
		REJ(g, REFD_EARG, NULL, "\"%s\" must be a string", k);
	return 0;
}

static int
arg_int(struct g *g, refd_mpv c, const char *k, int64_t lo, int64_t hi,
    int64_t *out)
{
	refd_mpv v = refd_mpv_get(c, k);
	int b;

	if (refd_mpv_bool(v, &b) == 0)
		*out = b;
	else if (refd_mpv_int(v, out) != 0)
		REJ(g, REFD_EARG, NULL, "\"%s\" must be an integer", k);
	if (*out < lo || *out > hi)
		REJ(g, REFD_EBADCMD, NULL, "\"%s\" must be %lld..%lld", k,
		    (long long)lo, (long long)hi);
	return 0;
}

static int
opt_int(struct g *g, refd_mpv c, const char *k, int64_t lo, int64_t hi,
    int64_t dflt, int64_t *out)
{
	if (!refd_mpv_ok(refd_mpv_get(c, k))) {
		*out = dflt;
		return 0;
	}
	return arg_int(g, c, k, lo, hi, out);
}

static int
arg_model(struct g *g, refd_mpv c, const char *k, int *mi)
{
	int64_t id;

	if (arg_int(g, c, k, 0, 99999, &id))
		return g->code;
	*mi = find_model(g, id);
	if (*mi < 0 || !S->m[*mi].alive)
		REJ(g, REFD_ENOTARGET, NULL, "there is no model #%lld in play",
		    (long long)id);
	return 0;
}

/* The model belongs to the unit activating now, on the active side. */
static int
own_active(struct g *g, int mi, const char *rule)
{
	struct model *m = &S->m[mi];

	if (S->phase != PH_ACT || S->cur < 0 || S->eoa)
		REJ(g, REFD_EPHASE, rule, "no unit is activating now");
	if (m->unit != S->cur)
		REJ(g, REFD_EILLEGAL, "R003-31", "%s #%d is not in the "
		    "activating unit", mname(g, m), m->id);
	return 0;
}

/* §4.2 (R003-32): a run ends the model's activation after the move;
 * nothing it could do afterwards is allowed. */
static int
not_ran(struct g *g, const struct model *m, const char *what)
{
	if (m->mv == MV_RUN || (m->flags & F_RAN))
		REJ(g, REFD_EILLEGAL, "R003-32", "%s #%d ran: its activation "
		    "ended after the move (no %s)", mname(g, m), m->id, what);
	return 0;
}

static int
order_kind(const struct g *g, int32_t o)
{
	if (o == ORD_RUN)
		return O_RUN;
	if (o == ORD_CHARGE)
		return O_CHARGE;
	if (o == ORD_RIDEBY)
		return O_RIDEBY;
	if (o >= 0 && o < g->c->no)
		return g->c->o[o].kind;
	return -1;
}

/* May the model take its combat action now?  0 or a rejection. */
static int
may_act(struct g *g, int mi)
{
	struct model *m = &S->m[mi];

	if (m->mv == MV_RUN)
		REJ(g, REFD_EILLEGAL, "R003-32", "%s #%d ran: it gets no action",
		    mname(g, m), m->id);
	if (m->mv == MV_FAILCH)
		REJ(g, REFD_EILLEGAL, "R003-32", "%s #%d failed its charge: its "
		    "activation is over", mname(g, m), m->id);
	if (m->acted)
		REJ(g, REFD_EILLEGAL, "R003-12", "%s #%d has no action left",
		    mname(g, m), m->id);
	if (fleeing(g, m))
		REJ(g, REFD_EILLEGAL, "R003-35", "%s #%d is fleeing and cannot "
		    "act", mname(g, m), m->id);
	if (is_trooper(g, m) && !in_formation(g, m))
		REJ(g, REFD_EILLEGAL, "R003-09", "%s #%d is out of formation "
		    "and cannot act", mname(g, m), m->id);
	if (m->flags & F_KD)
		REJ(g, REFD_EILLEGAL, "R003-61", "%s #%d is knocked down",
		    mname(g, m), m->id);
	return 0;
}

/* The promotion/standard lock (R003-21): until the end of the turn, or
 * with promo_lock "activation" of the current activation (AMB-01). */
int
locked(const struct g *g, const struct model *m)
{
	if (m->lock_turn != S->turn)
		return 0;
	return !S->promo_lock_act || m->lock_act == S->actno;
}

static int
attack_lock(struct g *g, const struct model *m)
{
	if (locked(g, m))
		REJ(g, REFD_EILLEGAL, "R003-21", "%s #%d took over this turn "
		    "and cannot attack until the turn ends", mname(g, m), m->id);
	return 0;
}

/* ---- free strikes (7.6) ---- */

static int
may_free_strike(const struct g *g, const struct model *e)
{
	return e->alive && !fleeing(g, e) && !locked(g, e) &&
	    !(e->flags & F_KD) && (!is_trooper(g, e) || in_formation(g, e));
}

static int
best_melee(const struct g *g, const struct model *m)
{
	const struct profile *p = prof(g, m);
	int i, b = -1;

	for (i = 0; i < p->nw; i++)
		if (p->w[i].melee && (b < 0 || p->w[i].pow > p->w[b].pow))
			b = i;
	return b;
}

/* ---- commands ---- */

static int
c_choose_first(struct g *g, refd_mpv c)
{
	int64_t f;

	if (S->npr == 0 || S->pr[0].kind != P_FIRST)
		REJ(g, REFD_EPHASE, "R003-31", "nobody is choosing who goes "
		    "first now");
	if (arg_int(g, c, "first", 0, 1, &f))
		return g->code;
	if (g->dry)
		return 0;
	pop_prompt(g);
	S->first = (int32_t)f;
	start_turn(g);
	return 0;
}

static int
c_allocate(struct g *g, refd_mpv c)
{
	int ci, ji;
	int64_t n;
	struct model *cm, *jm;

	if (S->phase != PH_CP_ALLOC)
		REJ(g, REFD_EPHASE, "R003-50", "focus is allocated only in the "
		    "allocation step of your Control Phase");
	if (arg_model(g, c, "caster", &ci) || arg_model(g, c, "jack", &ji) ||
	    arg_int(g, c, "n", 1, 10, &n))
		return g->code;
	cm = &S->m[ci];
	jm = &S->m[ji];
	if (cm->side != S->active || prof(g, cm)->kind != K_WARCASTER)
		REJ(g, REFD_EILLEGAL, "R003-50", "#%d is not one of your "
		    "warcasters", cm->id);
	if (jm->bg != ci || ji == ci || jm->side != cm->side)
		REJ(g, REFD_EILLEGAL, "R003-50", "%s #%d is not in %s's "
		    "battlegroup", mname(g, jm), jm->id, mname(g, cm));
	if (!cont_within(mpt(cm), cm->r, mpt(jm), jm->r, ctrl_mils(g, cm)))
		REJ(g, REFD_ERANGE, "R003-50", "%s #%d is outside %s's control "
		    "area (%d\")", mname(g, jm), jm->id, mname(g, cm),
		    ctrl_mils(g, cm) / INCH);
	if (cm->focus < n)
		REJ(g, REFD_ERESOURCE, "R003-50", "%s has only %d focus",
		    mname(g, cm), cm->focus);
	if (jm->alloc + n > 3)
		REJ(g, REFD_EILLEGAL, "R003-47", "%s #%d already holds %d "
		    "allocated focus: the cap is 3", mname(g, jm), jm->id,
		    jm->alloc);
	if (g->dry)
		return 0;
	cm->focus -= (int32_t)n;
	jm->focus += (int32_t)n;
	jm->alloc += (int32_t)n;
	{
		refd_mpw *w = ev(g, "allocate");

		refd_mpw_kint(w, "caster", cm->id);
		refd_mpw_kint(w, "jack", jm->id);
		refd_mpw_kint(w, "n", n);
		ev_emit(g, w);
	}
	return 0;
}

static int
c_upkeep(struct g *g, refd_mpv c)
{
	int ci, sp, i, found = -1;
	int64_t keep;

	if (S->phase != PH_CP_UPKEEP)
		REJ(g, REFD_EPHASE, "R003-66", "upkeep is paid only in the "
		    "upkeep step of your Control Phase");
	if (arg_model(g, c, "caster", &ci) || arg_int(g, c, "keep", 0, 1,
	    &keep) || arg_str(g, c, "spell"))
		return g->code;
	sp = mb_find_spell(g->c, refd_mpv_get_str(c, "spell", ""));
	for (i = 0; i < MAXINST && sp >= 0; i++)
		if (S->in[i].on && S->in[i].upkeep && S->in[i].caster == ci &&
		    S->in[i].spell == sp && S->in[i].side == S->active)
			found = i;
	if (found < 0)
		REJ(g, REFD_ENOTARGET, "R003-66", "#%d has no such upkeep spell "
		    "in play", S->m[ci].id);
	if (S->in[found].kept)
		REJ(g, REFD_EILLEGAL, "R003-66", "that upkeep is already paid");
	if (keep && S->m[ci].focus < 1)
		REJ(g, REFD_ERESOURCE, "R003-66", "%s has no focus to pay the "
		    "upkeep", mname(g, &S->m[ci]));
	if (g->dry)
		return 0;
	if (keep) {
		S->m[ci].focus--;
		S->in[found].kept = 1;
		{
			refd_mpw *w = ev(g, "upkeep");

			refd_mpw_kstr(w, "spell", g->c->sp[sp].key);
			refd_mpw_kint(w, "caster", S->m[ci].id);
			ev_emit(g, w);
		}
	} else {
		end_inst(g, found, "upkeep not paid");
	}
	return 0;
}

static int
c_shake(struct g *g, refd_mpv c)
{
	int mi, fl;
	const char *what = refd_mpv_get_str(c, "what", "");
	struct model *m;

	if (S->phase != PH_CP_SHAKE)
		REJ(g, REFD_EPHASE, "R003-44", "effects are shaken only in the "
		    "Control Phase, after allocation and upkeep");
	if (arg_model(g, c, "model", &mi))
		return g->code;
	m = &S->m[mi];
	fl = strcmp(what, "kd") == 0 ? F_KD : strcmp(what, "stationary") == 0 ?
	    F_STAT : 0;
	if (fl == 0)
		REJ(g, REFD_EBADCMD, "R003-44", "\"what\" is kd or stationary");
	if (m->side != S->active || !is_jack_or_caster(g, m))
		REJ(g, REFD_EILLEGAL, "R003-44", "only your warjacks and "
		    "warcasters shake effects");
	if (!(m->flags & fl))
		REJ(g, REFD_EILLEGAL, "R003-44", "%s #%d is not %s",
		    mname(g, m), m->id, fl == F_KD ? "knocked down" :
		    "stationary");
	if (m->focus < 1)
		REJ(g, REFD_ERESOURCE, "R003-44", "%s #%d has no focus",
		    mname(g, m), m->id);
	if (g->dry)
		return 0;
	m->focus--;
	if (m->alloc > m->focus)
		m->alloc = m->focus;
	m->flags &= ~fl;
	{
		refd_mpw *w = ev(g, "shake");

		refd_mpw_kint(w, "model", m->id);
		refd_mpw_kstr(w, "what", what);
		ev_emit(g, w);
	}
	return 0;
}

/* Spend focus: other focus first, then allocated (5.7). */
static void
spend(struct model *m, int n)
{
	m->focus -= n;
	if (m->alloc > m->focus)
		m->alloc = m->focus;
}

static int
c_end_phase(struct g *g, refd_mpv c)
{
	int i;

	(void)c;
	if (S->phase != PH_CP_ALLOC && S->phase != PH_CP_UPKEEP &&
	    S->phase != PH_CP_SHAKE)
		REJ(g, REFD_EPHASE, "R003-31", "end_phase moves through the "
		    "Control Phase; in the Activation Phase use end_turn");
	if (g->dry)
		return 0;
	if (S->phase == PH_CP_UPKEEP)
		for (i = 0; i < MAXINST; i++)
			if (S->in[i].on && S->in[i].upkeep && !S->in[i].kept &&
			    S->in[i].side == S->active)
				end_inst(g, i, "upkeep not paid");
	S->phase++;
	skip_control(g);
	return 0;
}

static int
c_activate(struct g *g, refd_mpv c)
{
	int64_t id;
	int ui, i;
	struct unit *u;
	refd_mpw *w;

	if (S->phase != PH_ACT)
		REJ(g, REFD_EPHASE, "R003-31", "units activate in the "
		    "Activation Phase");
	if (S->cur >= 0)
		REJ(g, REFD_EILLEGAL, "R003-31", "unit %d is still activating: "
		    "end its activation first", S->u[S->cur].id);
	if (arg_int(g, c, "unit", 0, 99999, &id))
		return g->code;
	ui = find_unit(g, id);
	if (ui < 0 || !S->u[ui].alive || S->u[ui].side != S->active)
		REJ(g, REFD_ENOTARGET, "R003-31", "you have no unit %lld in "
		    "play", (long long)id);
	u = &S->u[ui];
	if (u->act)
		REJ(g, REFD_EILLEGAL, "R003-31", "unit %d has already "
		    "activated this turn", u->id);
	if (prof(g, &S->m[u->uc >= 0 ? u->uc : 0])->kind == K_STRUCTURE &&
	    u->uc >= 0)
		REJ(g, REFD_EILLEGAL, "R003-71", "a structure does not "
		    "activate");
	if (u->need)
		REJ(g, REFD_EILLEGAL, "R003-23", "unit %d is waiting for its "
		    "new commander", u->id);
	if (g->dry)
		return 0;
	S->cur = ui;
	S->actno++;
	u->order = -1;
	u->terror = 0;
	u->fleeing0 = u->fleeing;
	w = ev(g, "activate");
	refd_mpw_kint(w, "unit", u->id);
	refd_mpw_karray(w, "out_of_formation");
	for (i = 0; i < S->nm; i++) {
		struct model *m = &S->m[i];

		if (m->unit != ui || !m->alive)
			continue;
		m->flags &= ~(F_SNAPOUT | F_FLEE0 | F_RAN | F_FEATNOW |
		    F_CASTNOW | F_CHARGED | F_ORDERED | F_AIM);
		if (is_trooper(g, m) && !in_formation(g, m)) {
			m->flags |= F_SNAPOUT;
			refd_mpw_int(w, m->id);
		}
		if (m->flags & F_FLEE)
			m->flags |= F_FLEE0;
		m->mv = MV_NONE;
		m->acted = 0;
		memset(m->atk, 0, sizeof(m->atk));
		m->bought = 0;
		m->ctarget = -1;
		m->cdist = 0;
		m->ax = m->x;
		m->ay = m->y;
	}
	refd_mpw_end(w);
	ev_emit(g, w);
	return 0;
}

static int
unit_started(const struct g *g, int ui)
{
	int i;

	for (i = 0; i < S->nm; i++)
		if (S->m[i].unit == ui && S->m[i].alive && (S->m[i].mv ||
		    S->m[i].acted || (S->m[i].flags & (F_CASTNOW | F_FEATNOW))))
			return 1;
	return 0;
}

static int
c_order(struct g *g, refd_mpv c)
{
	int64_t uid, by;
	int ui, i, o = -1;
	struct unit *u;
	const char *on = refd_mpv_get_str(c, "order", "");
	const struct model *ucm;
	refd_mpw *w;

	if (arg_int(g, c, "unit", 0, 99999, &uid) || arg_str(g, c, "order"))
		return g->code;
	ui = find_unit(g, uid);
	if (S->phase != PH_ACT || S->cur < 0 || ui != S->cur || S->eoa)
		REJ(g, REFD_EPHASE, "R003-16", "an order is issued at the start "
		    "of the unit's own activation");
	u = &S->u[ui];
	if (u->order != -1)
		REJ(g, REFD_EILLEGAL, "R003-16", "unit %d already has its order "
		    "for this activation", u->id);
	if (unit_started(g, ui))
		REJ(g, REFD_EILLEGAL, "R003-16", "orders are issued at the "
		    "start of the activation, before anyone moves or acts");
	if (u->uc < 0)
		REJ(g, REFD_EILLEGAL, "R003-06", "unit %d has no commander",
		    u->id);
	ucm = &S->m[u->uc];
	if (opt_int(g, c, "by", 0, 99999, ucm->id, &by))
		return g->code;
	if (by != ucm->id)
		REJ(g, REFD_EILLEGAL, "R003-16", "only the unit commander (#%d) "
		    "issues orders, not #%lld", ucm->id, (long long)by);
	if (fleeing(g, ucm))
		REJ(g, REFD_EILLEGAL, "R003-35", "a fleeing commander cannot "
		    "issue orders");
	if (strcmp(on, "none") == 0)
		o = ORD_NONE;
	else if (strcmp(on, "run") == 0)
		o = ORD_RUN;
	else if (strcmp(on, "charge") == 0)
		o = ORD_CHARGE;
	else if (strcmp(on, "ride_by") == 0)
		o = ORD_RIDEBY;
	else {
		for (i = 0; i < u->norders; i++)
			if (strcmp(g->c->o[u->orders[i]].key, on) == 0)
				o = u->orders[i];
		if (o < 0 && ucm->role == R_OFFICER)
			for (i = 0; i < prof(g, ucm)->norders; i++)
				if (strcmp(g->c->o[prof(g, ucm)->orders[i]].key,
				    on) == 0)
					o = prof(g, ucm)->orders[i];
		if (o < 0)
			REJ(g, REFD_EILLEGAL, "R003-18", "unit %d cannot be "
			    "given the order '%s' by its commander #%d", u->id,
			    on, ucm->id);
	}
	if (g->dry)
		return 0;
	u->order = o;
	w = ev(g, "order");
	refd_mpw_kint(w, "unit", u->id);
	refd_mpw_kstr(w, "order", on);
	refd_mpw_karray(w, "recipients");
	for (i = 0; i < S->nm && o != ORD_NONE; i++) {
		struct model *m = &S->m[i];

		if (m->unit == ui && m->alive && !(m->flags & F_SNAPOUT) &&
		    !fleeing(g, m)) {
			m->flags |= F_ORDERED;
			refd_mpw_int(w, m->id);
		}
	}
	refd_mpw_end(w);
	ev_emit(g, w);
	return 0;
}

/* ---- movement (4.2, 3.11, 4.6) ---- */

static int
in_table(const struct g *g, cont_pt p)
{
	return p.x >= S->x0 && p.x <= S->x1 && p.y >= S->y0 && p.y <= S->y1;
}

/* Is the segment a->b clear of every other base (spec M14)? */
static int
seg_clear(const struct g *g, int mi, cont_pt a, cont_pt b, int *who)
{
	int i;
	const struct model *m = &S->m[mi];

	for (i = 0; i < S->nm; i++) {
		const struct model *o = &S->m[i];

		if (i == mi || !o->alive)
			continue;
		if (cont_seg_passes_over(a, b, mpt(o), o->r + m->r)) {
			*who = i;
			return 0;
		}
	}
	for (i = 0; i < S->nterr; i++) {
		cont_pt tc;

		tc.x = S->terr[i][0];
		tc.y = S->terr[i][1];
		if (S->terr[i][3] == 2 && cont_seg_passes_over(a, b, tc,
		    S->terr[i][2] + m->r)) {
			*who = mi;
			return 0;
		}
	}
	return 1;
}

static int
parse_path(struct g *g, refd_mpv c, cont_pt *pts, int *n)
{
	refd_mpv p = refd_mpv_get(c, "path");
	size_t i;

	if (refd_mpv_type(p) != REFD_MP_ARRAY || refd_mpv_len(p) < 1 ||
	    refd_mpv_len(p) > MAXPATH - 1)
		REJ(g, REFD_EBADCMD, "R003-03", "\"path\" is an array of 1 to "
		    "%d points [x, y] in mils", MAXPATH - 1);
	for (i = 0; i < refd_mpv_len(p); i++) {
		refd_mpv q = refd_mpv_at(p, i);
		int64_t x, y;

		if (refd_mpv_int(refd_mpv_at(q, 0), &x) != 0 ||
		    refd_mpv_int(refd_mpv_at(q, 1), &y) != 0 ||
		    refd_mpv_len(q) != 2 || x < -1000000 || x > 1000000 ||
		    y < -1000000 || y > 1000000)
			REJ(g, REFD_EBADCMD, "R003-03", "path point %d is not "
			    "[x, y] in mils", (int)i + 1);
		pts[*n].x = x;
		pts[*n].y = y;
		(*n)++;
	}
	return 0;
}

static int
parse_face(struct g *g, refd_mpv c, cont_pt *f, int *has)
{
	refd_mpv v = refd_mpv_get(c, "face");
	int64_t x, y;

	*has = 0;
	if (!refd_mpv_ok(v))
		return 0;
	if (refd_mpv_int(refd_mpv_at(v, 0), &x) != 0 ||
	    refd_mpv_int(refd_mpv_at(v, 1), &y) != 0 || (x == 0 && y == 0) ||
	    x < -1000000 || x > 1000000 || y < -1000000 || y > 1000000)
		REJ(g, REFD_EBADCMD, "R003-01", "\"face\" is a nonzero vector "
		    "[fx, fy]");
	f->x = x;
	f->y = y;
	*f = cont_facing_reduce(*f);
	*has = 1;
	return 0;
}

static cont_pt
dir_to(cont_pt a, cont_pt b)
{
	cont_pt f;

	f.x = b.x - a.x;
	f.y = b.y - a.y;
	return cont_facing_reduce(f);
}

/* Free strikes owed after m moved from `was` engagement set. */
static void
queue_free_strikes(struct g *g, int mi, const int *was)
{
	int i, k, ord[MAXM];

	id_order(g, ord);
	for (k = 0; k < S->nm; k++) {
		struct model *e = &S->m[i = ord[k]];

		if (!was[i] || !e->alive || in_mrange(g, e, &S->m[mi]))
			continue;
		if (may_free_strike(g, e) && best_melee(g, e) >= 0)
			push_prompt(g, P_FREESTRIKE, e->side, e->unit, i, mi, 0);
	}
}

/* ---- control-area terrain (6.8, R003-77) ---- */

/* Is p inside the control area of an enemy caster whose spell makes it
 * rough terrain for the mover's side? */
static int
in_rough(const struct g *g, int side, cont_pt p)
{
	int i;

	for (i = 0; i < MAXINST; i++) {
		const struct inst *in = &S->in[i];
		const struct model *c;

		if (!in->on || !g->c->sp[in->spell].rough || in->side == side)
			continue;
		c = &S->m[in->caster];
		if (c->alive && cont_point_within(p, mpt(c), c->r,
		    ctrl_mils(g, c)))
			return 1;
	}
	return 0;
}

static int
any_rough(const struct g *g, int side)
{
	int i;

	for (i = 0; i < MAXINST; i++)
		if (S->in[i].on && g->c->sp[S->in[i].spell].rough &&
		    S->in[i].side != side)
			return 1;
	return 0;
}

/*
 * Walk the path mil by mil (each mil inside rough terrain costs two)
 * and return how far along it the mover gets with `allow`: the whole
 * rounded-up length when the cost fits.
 */
static int64_t
rough_reach(const struct g *g, int side, const cont_pt *pts, int n,
    int64_t allow)
{
	int64_t cost = 0, done = 0, l, k;
	int i;

	for (i = 1; i < n; i++) {
		l = cont_seg_len(pts[i - 1], pts[i]);
		for (k = 0; k < l; k++) {
			int c = in_rough(g, side, cont_point_along(pts[i - 1],
			    pts[i], k)) ? 2 : 1;

			if (cost + c > allow)
				return done;
			cost += c;
			done++;
		}
	}
	return done;
}

/* Point at distance d along the polyline; *leg gets its leg index. */
static cont_pt
path_point(const cont_pt *pts, int n, int64_t d, int *leg)
{
	int i;

	for (i = 1; i < n; i++) {
		int64_t l = cont_seg_len(pts[i - 1], pts[i]);

		if (d <= l) {
			*leg = i;
			return cont_point_along(pts[i - 1], pts[i], d);
		}
		d -= l;
	}
	*leg = n - 1;
	return pts[n - 1];
}

/* Cut a legal path at the last point the rough terrain lets the mover
 * reach without ending on a base; returns the new point count. */
static int
truncate_rough(const struct g *g, int mi, cont_pt *pts, int n, int64_t allow)
{
	const struct model *m = &S->m[mi];
	int64_t d = rough_reach(g, m->side, pts, n, allow);
	int leg = 1, j, who;
	cont_pt e;

	if (d >= cont_path_len(pts, n))
		return n;
	for (; d >= 0; d--) {
		e = path_point(pts, n, d, &leg);
		for (j = 0; j < S->nm; j++)
			if (j != mi && S->m[j].alive && cont_overlap(e, m->r,
			    mpt(&S->m[j]), S->m[j].r))
				break;
		if (j == S->nm && seg_clear(g, mi, pts[leg - 1], e, &who))
			break;
	}
	if (d < 0) {
		e = pts[0];
		leg = 1;
	}
	pts[leg] = e;
	return leg + 1;
}

/* "toward": a straight advance or run at a model, "distance" mils or the
 * whole allowance, stopping at base contact (§4.2). */
static int
toward_path(struct g *g, refd_mpv c, int mi, int md, cont_pt *pts, int *n)
{
	const struct model *m = &S->m[mi], *t;
	int64_t id, far, len, dist = -1;
	int tj;

	if (arg_int(g, c, "toward", 0, 99999, &id))
		return g->code;
	tj = find_model(g, id);
	if (tj < 0 || tj == mi || !S->m[tj].alive)
		REJ(g, REFD_ENOTARGET, "R003-32", "\"toward\" names another "
		    "model in play");
	t = &S->m[tj];
	if (refd_mpv_ok(refd_mpv_get(c, "distance")) &&
	    arg_int(g, c, "distance", 0, 1000000, &dist))
		return g->code;
	far = (int64_t)prof(g, m)->spd * INCH * (md == MV_RUN ? 2 : 1);
	if (dist >= 0 && dist < far)
		far = dist;
	len = cont_seg_len(mpt(m), mpt(t)) - m->r - t->r;
	if (len > far)
		len = far;
	if (len < 0)
		len = 0;
	pts[1] = cont_point_along(mpt(m), mpt(t), len);
	while (len > 0 && cont_seg_len(pts[1], mpt(t)) < m->r + t->r)
		pts[1] = cont_point_along(mpt(m), mpt(t), --len);
	*n = 2;
	return 0;
}

static int
c_move(struct g *g, refd_mpv c)
{
	int mi, n = 1, i, k, who, hasf, ti = -1, flee, trooper, cut;
	const char *mode = refd_mpv_get_str(c, "mode", "");
	int md;
	struct model *m;
	const struct model *ucm;
	cont_pt pts[MAXPATH], face, endp;
	int64_t allow, len;
	int was[MAXM];
	refd_mpw *w;

	if (arg_model(g, c, "model", &mi) || own_active(g, mi, "R003-14"))
		return g->code;
	m = &S->m[mi];
	md = strcmp(mode, "advance") == 0 ? MV_ADV : strcmp(mode, "run") == 0 ?
	    MV_RUN : strcmp(mode, "charge") == 0 ? MV_CHARGE :
	    strcmp(mode, "forfeit") == 0 ? MV_FORFEIT : 0;
	if (md == 0)
		REJ(g, REFD_EBADCMD, "R003-32", "\"mode\" is advance, run, "
		    "charge or forfeit");
	if (m->mv != MV_NONE)
		REJ(g, REFD_EILLEGAL, "R003-14", "%s #%d has already made its "
		    "normal movement", mname(g, m), m->id);
	if (m->acted || m->atk[0] || m->atk[1] || m->atk[2] || m->atk[3])
		REJ(g, REFD_EILLEGAL, "R003-14", "%s #%d has acted: its movement "
		    "is over", mname(g, m), m->id);
	if (is_trooper(g, m))
		for (i = 0; i < S->nm; i++)
			if (S->m[i].alive && S->m[i].unit == m->unit &&
			    (any_attack(&S->m[i]) ||
			    (S->m[i].flags & F_CASTNOW)))
				REJ(g, REFD_EILLEGAL, "R003-14", "%s #%d has "
				    "attacked: unit %d's movement is over",
				    mname(g, &S->m[i]), S->m[i].id,
				    S->u[m->unit].id);
	if ((m->flags & F_KD) && md != MV_FORFEIT)
		REJ(g, REFD_EILLEGAL, "R003-44", "%s #%d is knocked down and "
		    "cannot move", mname(g, m), m->id);
	if (parse_face(g, c, &face, &hasf))
		return g->code;
	pts[0] = mpt(m);
	if ((md == MV_ADV || md == MV_RUN) &&
	    refd_mpv_ok(refd_mpv_get(c, "toward"))) {
		if (toward_path(g, c, mi, md, pts, &n))
			return g->code;
	} else if ((md == MV_ADV || md == MV_RUN) &&
	    parse_path(g, c, pts, &n)) {
		return g->code;
	}
	flee = fleeing(g, m);
	trooper = is_trooper(g, m);
	ucm = trooper ? uc_of(g, m) : NULL;
	if (flee && md != MV_RUN)
		REJ(g, REFD_EILLEGAL, "R003-35", "%s #%d is fleeing: it must run",
		    mname(g, m), m->id);
	if (!flee && trooper && (m->flags & F_SNAPOUT)) {
		if (md == MV_CHARGE || md == MV_FORFEIT)
			REJ(g, REFD_EILLEGAL, "R003-12", "%s #%d was out of "
			    "formation: it must advance or run toward its "
			    "commander", mname(g, m), m->id);
	} else if (!flee && trooper) {
		int ok = order_kind(g, S->u[m->unit].order);

		if (!(m->flags & F_ORDERED))
			ok = -1;
		if (md == MV_RUN && ok < 0)
			REJ(g, REFD_EILLEGAL, "R003-17", "%s #%d may run only "
			    "under an order", mname(g, m), m->id);
		if (md == MV_CHARGE && ok != O_CHARGE)
			REJ(g, REFD_EILLEGAL, "R003-17", "%s #%d may charge only "
			    "under a charge order", mname(g, m), m->id);
		if ((md == MV_ADV || md == MV_FORFEIT) && ok == O_CHARGE)
			REJ(g, REFD_EILLEGAL, "R003-16", "under a charge order "
			    "%s #%d must charge or run", mname(g, m), m->id);
	}
	if (prof(g, m)->kind == K_WARJACK && (md == MV_RUN || md == MV_CHARGE)
	    && !flee && m->focus < 1)
		REJ(g, REFD_ERESOURCE, "R003-33", "%s #%d must spend 1 focus to "
		    "%s and has none", mname(g, m), m->id, mode);
	if (md == MV_RUN && (m->flags & (F_FEATNOW | F_CASTNOW)))
		REJ(g, REFD_EILLEGAL, "R003-53", "%s #%d cast a spell or used "
		    "its feat this activation and cannot run", mname(g, m),
		    m->id);
	allow = (int64_t)prof(g, m)->spd * INCH * (md == MV_RUN ? 2 : 1);
	if (md == MV_CHARGE) {
		int64_t id, need, lo, hi, mr;

		if (arg_int(g, c, "target", 0, 99999, &id))
			return g->code;
		ti = find_model(g, id);
		if (ti < 0 || !S->m[ti].alive || S->m[ti].side == m->side)
			REJ(g, REFD_ENOTARGET, "R003-32", "a charge needs an "
			    "enemy model in play as its target");
		mr = melee_range(g, m);
		if (mr < 0)
			REJ(g, REFD_EILLEGAL, "R003-32", "%s #%d has no melee "
			    "weapon to charge with", mname(g, m), m->id);
		if (!los_f(g, m, dir_to(mpt(m), mpt(&S->m[ti])), &S->m[ti]))
			REJ(g, REFD_ENOTARGET, "R003-32", "%s #%d has no line of "
			    "sight to %s #%d", mname(g, m), m->id,
			    mname(g, &S->m[ti]), S->m[ti].id);
		allow = (int64_t)(prof(g, m)->spd + 3) * INCH;
		len = cont_seg_len(mpt(m), mpt(&S->m[ti]));
		need = len - (mr + m->r + S->m[ti].r);
		if (need < 0)
			need = 0;
		if (need > allow)
			need = allow;
		endp = cont_point_along(mpt(m), mpt(&S->m[ti]), need);
		while (need < allow && !cont_within(endp, m->r,
		    mpt(&S->m[ti]), S->m[ti].r, mr)) {
			need++;
			endp = cont_point_along(mpt(m), mpt(&S->m[ti]), need);
		}
		if (!seg_clear(g, mi, mpt(m), endp, &who)) {
			lo = 0;
			hi = need;
			while (lo < hi) {
				int64_t mid = (lo + hi + 1) / 2;

				if (seg_clear(g, mi, mpt(m), cont_point_along(
				    mpt(m), mpt(&S->m[ti]), mid), &who))
					lo = mid;
				else
					hi = mid - 1;
			}
			endp = cont_point_along(mpt(m), mpt(&S->m[ti]), lo);
		}
		pts[1] = endp;
		n = 2;
	} else if (md == MV_FORFEIT) {
		n = 1;
	} else {
		if (!flee && trooper && (m->flags & F_SNAPOUT) && ucm != NULL &&
		    md == MV_ADV && S->oof_max) {
			int64_t d0 = cont_seg_len(mpt(m), mpt(ucm));
			int64_t dmax = d0 - m->r - ucm->r, lo = 0, hi, d1;

			if (dmax > allow)
				dmax = allow;
			if (dmax < 0)
				dmax = 0;
			hi = dmax;
			while (lo < hi) {
				int64_t mid = (lo + hi + 1) / 2;

				if (seg_clear(g, mi, mpt(m), cont_point_along(
				    mpt(m), mpt(ucm), mid), &who))
					lo = mid;
				else
					hi = mid - 1;
			}
			d1 = cont_seg_len(pts[n - 1], mpt(ucm));
			if (d1 > d0 - lo + 2)
				REJ(g, REFD_ENOPATH, "R003-12", "%s #%d was out of "
				    "formation and must move as far toward its "
				    "commander as it can (%lld.%03lld\")",
				    mname(g, m), m->id, (long long)(lo / INCH),
				    (long long)(lo % INCH));
		}
		if (!flee && trooper && (m->flags & F_SNAPOUT) && ucm != NULL &&
		    md == MV_RUN) {
			cont_pt u = mpt(ucm), a = pts[0], b = pts[n - 1];
			int64_t cr = (b.x - a.x) * (u.y - a.y) -
			    (b.y - a.y) * (u.x - a.x);
			int64_t dt = (b.x - a.x) * (u.x - a.x) +
			    (b.y - a.y) * (u.y - a.y);

			if (n > 2 || (n == 2 && (cr != 0 || dt <= 0)))
				REJ(g, REFD_ENOPATH, "R003-12", "%s #%d was out of "
				    "formation: it may run only straight toward "
				    "its commander #%d", mname(g, m), m->id,
				    ucm->id);
		}
		len = cont_path_len(pts, n);
		if (len > allow)
			REJ(g, REFD_ENOPATH, "R003-32", "%s #%d may %s %lld.%03lld\" "
			    "but the path is %lld.%03lld\"", mname(g, m), m->id,
			    md == MV_RUN ? "run" : "advance",
			    (long long)(allow / INCH), (long long)(allow % INCH),
			    (long long)(len / INCH), (long long)(len % INCH));
		for (k = 1; k < n; k++) {
			if (!in_table(g, pts[k]))
				REJ(g, REFD_ENOPATH, "R003-03", "path point (%lld,"
				    "%lld) is off the table", (long long)pts[k].x,
				    (long long)pts[k].y);
			if (!seg_clear(g, mi, pts[k - 1], pts[k], &who) &&
			    who == mi)
				REJ(g, REFD_ENOPATH, "R003-03", "the path crosses "
				    "an obstruction");
			if (!seg_clear(g, mi, pts[k - 1], pts[k], &who))
				REJ(g, REFD_ENOPATH, "R003-03", "the path crosses "
				    "or ends on the base of %s #%d at (%d,%d)",
				    mname(g, &S->m[who]), S->m[who].id,
				    S->m[who].x, S->m[who].y);
			if (flee) {
				for (i = 0; i < S->nm; i++)
					if (S->m[i].alive && S->m[i].side !=
					    m->side && !cont_not_toward(pts[k - 1],
					    pts[k], mpt(&S->m[i])))
						REJ(g, REFD_ENOPATH, "R003-35",
						    "a fleeing model may not "
						    "move toward %s #%d",
						    mname(g, &S->m[i]),
						    S->m[i].id);
			} else if (trooper && (m->flags & F_SNAPOUT) &&
			    ucm != NULL && md == MV_ADV &&
			    !cont_toward(pts[k - 1], pts[k], mpt(ucm))) {
				REJ(g, REFD_ENOPATH, "R003-12", "%s #%d was out of "
				    "formation: each leg must bring it closer to "
				    "its commander #%d", mname(g, m), m->id,
				    ucm->id);
			}
		}
	}
	if (g->dry)
		return 0;
	cut = 0;
	if ((md == MV_ADV || md == MV_RUN) && n > 1 && any_rough(g, m->side)) {
		int64_t full = cont_path_len(pts, n);

		n = truncate_rough(g, mi, pts, n, allow);
		cut = cont_path_len(pts, n) != full;
	}
	for (i = 0; i < S->nm; i++)
		was[i] = S->m[i].alive && S->m[i].side != m->side &&
		    in_mrange(g, &S->m[i], m);
	if (prof(g, m)->kind == K_WARJACK && (md == MV_RUN || md == MV_CHARGE)
	    && !flee)
		spend(m, 1);
	m->mv = md;
	endp = pts[n - 1];
	len = cont_path_len(pts, n);
	if (n > 1 && (endp.x != m->x || endp.y != m->y)) {
		cont_pt f = dir_to(pts[n - 2], endp);

		m->fx = (int32_t)f.x;
		m->fy = (int32_t)f.y;
	}
	m->x = (int32_t)endp.x;
	m->y = (int32_t)endp.y;
	if (hasf && md != MV_CHARGE) {
		m->fx = (int32_t)face.x;
		m->fy = (int32_t)face.y;
	}
	if (md == MV_RUN)
		m->flags |= F_RAN;
	if (trooper && (m->flags & F_SNAPOUT) && md == MV_ADV)
		m->acted = 1;
	if (md == MV_FORFEIT)
		m->flags |= F_AIM;
	w = ev(g, "move");
	refd_mpw_kint(w, "model", m->id);
	refd_mpw_kstr(w, "mode", mode);
	refd_mpw_kint(w, "x", m->x);
	refd_mpw_kint(w, "y", m->y);
	refd_mpw_kint(w, "length", len);
	if (cut)
		refd_mpw_kbool(w, "truncated", 1);
	if (md == MV_CHARGE) {
		struct model *t = &S->m[ti];
		cont_pt f = dir_to(mpt(m), mpt(t));

		m->fx = (int32_t)f.x;
		m->fy = (int32_t)f.y;
		if (in_mrange(g, m, t)) {
			m->flags |= F_CHARGED;
			m->ctarget = ti;
			m->cdist = (int32_t)len;
		} else {
			m->mv = MV_FAILCH;
		}
		refd_mpw_kint(w, "target", t->id);
		refd_mpw_kbool(w, "charge_ok", m->mv == MV_CHARGE);
	}
	ev_emit(g, w);
	queue_free_strikes(g, mi, was);
	if (trooper && S->u[m->unit].terror == 0 && near_terror(g, m))
		S->u[m->unit].terror = 1;
	if (prof(g, m)->terrifying)
		terror_approach(g, mi);
	if (!trooper && S->u[m->unit].terror == 0 && near_terror(g, m) &&
	    !fleeing(g, m)) {
		S->u[m->unit].terror = 2;
		command_check(g, m->unit, mi, C_FLEE_MODEL, "terror");
	}
	for (i = 0; i < S->nm; i++)
		if (S->m[i].alive && S->m[i].unit == m->unit &&
		    S->m[i].mv == MV_NONE)
			break;
	if (i == S->nm)
		terror_check(g, m->unit);
	return 0;
}

static int
c_stand_up(struct g *g, refd_mpv c)
{
	int mi;
	struct model *m;

	if (arg_model(g, c, "model", &mi) || own_active(g, mi, "R003-44"))
		return g->code;
	m = &S->m[mi];
	if (!(m->flags & F_KD))
		REJ(g, REFD_EILLEGAL, "R003-44", "%s #%d is not knocked down",
		    mname(g, m), m->id);
	if (m->mv != MV_NONE && m->acted)
		REJ(g, REFD_EILLEGAL, "R003-44", "%s #%d has neither movement "
		    "nor action left to stand up", mname(g, m), m->id);
	if (g->dry)
		return 0;
	m->flags &= ~F_KD;
	if (m->mv == MV_NONE)
		m->mv = MV_FORFEIT;
	else
		m->acted = 1;
	{
		refd_mpw *w = ev(g, "stand_up");

		refd_mpw_kint(w, "model", m->id);
		ev_emit(g, w);
	}
	return 0;
}

/* ---- attacks ---- */

static int
c_attack(struct g *g, refd_mpv c, int bought)
{
	int mi, ti, cost;
	int64_t wi, boost;
	struct model *m, *t;
	const struct weapon *wp;
	struct atk a;

	if (arg_model(g, c, "model", &mi) || own_active(g, mi, "R003-72"))
		return g->code;
	m = &S->m[mi];
	if (arg_int(g, c, "weapon", 0, MAXW - 1, &wi) ||
	    arg_model(g, c, "target", &ti) ||
	    opt_int(g, c, "boost", 0, 1, 0, &boost))
		return g->code;
	t = &S->m[ti];
	if (wi >= prof(g, m)->nw)
		REJ(g, REFD_EBADCMD, "R003-72", "%s #%d has no weapon %lld",
		    mname(g, m), m->id, (long long)wi);
	wp = &prof(g, m)->w[wi];
	if (may_act(g, mi) || attack_lock(g, m))
		return g->code;
	if (weapon_disabled(g, m, (int)wi))
		REJ(g, REFD_EILLEGAL, "R003-46", "%s #%d's %s is disabled (its "
		    "grid system is crippled)", mname(g, m), m->id, wp->name);
	if (t->side == m->side)
		REJ(g, REFD_ENOTARGET, "R003-72", "attack an enemy model");
	if (bought) {
		if (!is_jack_or_caster(g, m))
			REJ(g, REFD_EILLEGAL, "R003-42", "only warjacks and "
			    "warcasters buy additional attacks");
		if (!m->atk[0] && !m->atk[1] && !m->atk[2] && !m->atk[3])
			REJ(g, REFD_EILLEGAL, "R003-42", "additional attacks come "
			    "after the initial attacks of the combat action");
		if (!wp->melee && m->atk[wi] >= wp->rof)
			REJ(g, REFD_EILLEGAL, "R003-42", "%s has fired its ROF "
			    "(%d) this activation", wp->name, wp->rof);
	} else if (m->atk[wi] >= (wp->melee ? 1 : wp->rof)) {
		REJ(g, REFD_EILLEGAL, "R003-42", "%s #%d has made its initial "
		    "attack with %s", mname(g, m), m->id, wp->name);
	}
	cost = (int)boost + bought;
	if (cost > 0 && !is_jack_or_caster(g, m))
		REJ(g, REFD_EILLEGAL, "R003-43", "only warjacks and warcasters "
		    "boost with focus");
	if (cost > 0 && !can_boost_now(g, m, cost))
		REJ(g, REFD_ERESOURCE, "R003-43", "%s #%d has %d focus, needs %d",
		    mname(g, m), m->id, m->focus, cost);
	if (wp->melee) {
		if (m->ctarget >= 0 && m->ctarget != ti)
			REJ(g, REFD_ENOTARGET, "R003-32", "after a charge the "
			    "first melee attack must be on %s #%d",
			    mname(g, &S->m[m->ctarget]), S->m[m->ctarget].id);
		if (!in_mrange(g, m, t))
			REJ(g, REFD_ERANGE, "R003-45", "%s #%d is not in the melee "
			    "range of %s #%d", mname(g, t), t->id, mname(g, m),
			    m->id);
	} else {
		if (m->flags & F_CHARGED)
			REJ(g, REFD_EILLEGAL, "R003-32", "a model that charged "
			    "makes no ranged attacks");
		if (in_melee(g, m))
			REJ(g, REFD_EILLEGAL, "R003-72", "%s #%d is in melee and "
			    "cannot make ranged attacks", mname(g, m), m->id);
		if (!los(g, m, t))
			REJ(g, REFD_ENOTARGET, "R003-62", "%s #%d has no line of "
			    "sight to %s #%d", mname(g, m), m->id, mname(g, t),
			    t->id);
	}
	if (g->dry)
		return 0;
	if (terror_gate(g))
		return 0;
	if (m->mv == MV_NONE) {
		m->mv = MV_FORFEIT;
		if (!wp->melee)
			m->flags |= F_AIM;
	}
	spend(m, cost);
	m->atk[wi]++;
	memset(&a, 0, sizeof(a));
	a.att = a.org = mi;
	a.tgt = ti;
	a.kind = wp->melee ? A_MELEE : A_RANGED;
	a.spell = -1;
	a.boost = (int)boost;
	a.pow = wp->pow;
	a.rng = wp->rng * INCH;
	a.bonus = (!wp->melee && (m->flags & F_AIM)) ? 2 : 0;
	if (wp->melee && m->ctarget == ti) {
		a.charge = m->cdist >= 3000;
		m->ctarget = -1;
	}
	resolve_attack(g, &a, 0);
	return 0;
}

/* ---- spells, feat, heal ---- */

static int
c_cast(struct g *g, refd_mpv c)
{
	int mi, ti, chi = -1, sp = -1, i, org, off;
	int64_t boost, chid;
	struct model *m, *t;
	const struct spell *s;
	const char *why, *key = refd_mpv_get_str(c, "spell", "");
	struct atk a;
	int32_t rng;
	refd_mpw *w;

	if (arg_str(g, c, "spell") || arg_model(g, c, "model", &mi) ||
	    own_active(g, mi, "R003-55"))
		return g->code;
	m = &S->m[mi];
	for (i = 0; i < prof(g, m)->nspells; i++)
		if (strcmp(g->c->sp[prof(g, m)->spells[i]].key, key) == 0)
			sp = prof(g, m)->spells[i];
	if (sp < 0)
		REJ(g, REFD_EILLEGAL, "R003-56", "%s #%d does not know the spell "
		    "'%s'", mname(g, m), m->id, key);
	s = &g->c->sp[sp];
	if (arg_model(g, c, "target", &ti) ||
	    opt_int(g, c, "boost", 0, 1, 0, &boost) ||
	    opt_int(g, c, "channeler", 0, 99999, 0, &chid))
		return g->code;
	t = &S->m[ti];
	if (m->mv == MV_RUN || (m->flags & F_RAN))
		REJ(g, REFD_EILLEGAL, "R003-55", "%s #%d ran this activation and "
		    "cannot cast", mname(g, m), m->id);
	if (m->mv == MV_FAILCH)
		REJ(g, REFD_EILLEGAL, "R003-32", "a failed charge ends the "
		    "activation");
	if (fleeing(g, m) || (is_trooper(g, m) && !in_formation(g, m)))
		REJ(g, REFD_EILLEGAL, "R003-09", "%s #%d cannot cast while "
		    "fleeing or out of formation", mname(g, m), m->id);
	if (m->flags & F_KD)
		REJ(g, REFD_EILLEGAL, "R003-61", "%s #%d is knocked down",
		    mname(g, m), m->id);
	if (m->focus < s->cost + boost)
		REJ(g, REFD_ERESOURCE, "R003-55", "%s #%d has %d focus; %s costs "
		    "%d%s", mname(g, m), m->id, m->focus, s->name, s->cost,
		    boost ? " plus 1 to boost" : "");
	org = mi;
	if (chid != 0) {
		struct model *ch;

		chi = find_model(g, chid);
		if (chi < 0 || !S->m[chi].alive)
			REJ(g, REFD_ENOTARGET, "R003-70", "no channeler #%lld",
			    (long long)chid);
		ch = &S->m[chi];
		if (!prof(g, ch)->arc_node || ch->bg != mi || ch->side != m->side)
			REJ(g, REFD_EILLEGAL, "R003-70", "%s #%d is not an arc "
			    "node of %s's battlegroup", mname(g, ch), ch->id,
			    mname(g, m));
		if (s->rng == -1)
			REJ(g, REFD_EILLEGAL, "R003-70", "a SELF spell cannot be "
			    "channeled");
		if (!cont_within(mpt(m), m->r, mpt(ch), ch->r, ctrl_mils(g, m)))
			REJ(g, REFD_ERANGE, "R003-70", "%s #%d is outside %s's "
			    "control area", mname(g, ch), ch->id, mname(g, m));
		if (engaged(g, ch))
			REJ(g, REFD_EILLEGAL, "R003-70", "%s #%d is engaged and "
			    "cannot channel", mname(g, ch), ch->id);
		if (ch->flags & F_KD)
			REJ(g, REFD_EILLEGAL, "R003-70", "%s #%d is knocked down "
			    "and cannot channel", mname(g, ch), ch->id);
		org = chi;
	}
	if (!spell_target_ok(g, mi, sp, org, ti, &why))
		REJ(g, REFD_ENOTARGET, "R003-58", "%s", why);
	if (ti != org && !los(g, &S->m[org], t))
		REJ(g, REFD_ENOTARGET, "R003-58", "%s #%d has no line of sight "
		    "to %s #%d", mname(g, &S->m[org]), S->m[org].id,
		    mname(g, t), t->id);
	if (g->dry)
		return 0;
	if (terror_gate(g))
		return 0;
	spend(m, s->cost + (int)boost);
	m->flags |= F_CASTNOW;
	w = ev(g, "cast");
	refd_mpw_kint(w, "caster", m->id);
	refd_mpw_kstr(w, "spell", s->key);
	refd_mpw_kint(w, "target", t->id);
	if (chi >= 0)
		refd_mpw_kint(w, "channeler", S->m[chi].id);
	ev_emit(g, w);
	if (s->upkeep)
		for (i = 0; i < MAXINST; i++)
			if (S->in[i].on && S->in[i].caster == mi &&
			    S->in[i].spell == sp)
				end_inst(g, i, "recast");
	if (s->upkeep && S->upkeep_at_payment && s->aoe != -2)
		replace_upkeep(g, mi, ti);
	rng = s->rng == -1 ? 0 : s->rng == -2 ? ctrl_mils(g, m) :
	    s->rng * INCH;
	off = spell_offensive(g, mi, sp, ti);
	if (s->aoe == -2 && !off) {
		int done[MAXU];

		memset(done, 0, sizeof(done));
		for (i = 0; i < S->nm; i++) {
			struct model *o = &S->m[i];

			if (!o->alive || !cont_within(mpt(m), m->r, mpt(o), o->r,
			    ctrl_mils(g, m)) || (i == mi && s->no_caster))
				continue;
			if (is_trooper(g, o)) {
				if (done[o->unit])
					continue;
				done[o->unit] = 1;
			}
			apply_spell(g, mi, sp, i);
		}
		post_attack(g);
		return 0;
	}
	if (!off) {
		if (ti == org || cont_within(mpt(&S->m[org]), S->m[org].r,
		    mpt(t), t->r, rng))
			apply_spell(g, mi, sp, ti);
		else {
			w = ev(g, "out_of_range");
			refd_mpw_kint(w, "attacker", m->id);
			refd_mpw_kint(w, "target", t->id);
			ev_emit(g, w);
		}
		post_attack(g);
		return 0;
	}
	memset(&a, 0, sizeof(a));
	a.att = mi;
	a.org = org;
	a.tgt = ti;
	a.kind = A_MAGIC;
	a.spell = sp;
	a.boost = (int)boost;
	a.pow = s->pow;
	a.rng = rng;
	resolve_attack(g, &a, s->aoe > 0 ? s->aoe * 500 : 0);
	return 0;
}

static int
c_feat(struct g *g, refd_mpv c)
{
	int mi, i;
	struct model *m;

	if (arg_model(g, c, "model", &mi) || own_active(g, mi, "R003-53"))
		return g->code;
	m = &S->m[mi];
	if (prof(g, m)->kind != K_WARCASTER || prof(g, m)->feat < 0)
		REJ(g, REFD_EILLEGAL, "R003-53", "%s #%d has no feat",
		    mname(g, m), m->id);
	if (m->feat_used)
		REJ(g, REFD_EILLEGAL, "R003-53", "%s has used its feat: once "
		    "per game", mname(g, m));
	if (m->mv == MV_RUN || (m->flags & F_RAN))
		REJ(g, REFD_EILLEGAL, "R003-53", "%s ran this activation and "
		    "cannot use its feat", mname(g, m));
	if (m->mv == MV_FAILCH)
		REJ(g, REFD_EILLEGAL, "R003-32", "a failed charge ends the "
		    "activation");
	if (g->dry)
		return 0;
	if (terror_gate(g))
		return 0;
	m->feat_used = 1;
	m->flags |= F_FEATNOW;
	for (i = 0; i < MAXINST; i++)
		if (!S->in[i].on) {
			S->in[i].on = 1;
			S->in[i].spell = prof(g, m)->feat;
			S->in[i].caster = mi;
			S->in[i].side = m->side;
			S->in[i].model = -1;
			S->in[i].unit = -1;
			S->in[i].turn = S->turn;
			S->in[i].kept = 1;
			break;
		}
	{
		refd_mpw *w = ev(g, "feat");

		refd_mpw_kint(w, "model", m->id);
		refd_mpw_kstr(w, "feat", g->c->sp[prof(g, m)->feat].key);
		ev_emit(g, w);
	}
	return 0;
}

static int
c_heal(struct g *g, refd_mpv c)
{
	int mi;
	int64_t n;
	struct model *m;

	if (arg_model(g, c, "model", &mi) || own_active(g, mi, "R003-54") ||
	    arg_int(g, c, "n", 1, 30, &n))
		return g->code;
	m = &S->m[mi];
	if (not_ran(g, m, "healing"))
		return g->code;
	if (prof(g, m)->kind != K_WARCASTER)
		REJ(g, REFD_EILLEGAL, "R003-54", "only a warcaster heals with "
		    "its power field");
	if (m->focus < n)
		REJ(g, REFD_ERESOURCE, "R003-54", "%s has %d focus", mname(g, m),
		    m->focus);
	if (m->marked < n)
		REJ(g, REFD_EILLEGAL, "R003-54", "%s has only %d damage to "
		    "heal", mname(g, m), m->marked);
	if (g->dry)
		return 0;
	if (terror_gate(g))
		return 0;
	spend(m, (int)n);
	m->marked -= (int32_t)n;
	{
		refd_mpw *w = ev(g, "heal");

		refd_mpw_kint(w, "model", m->id);
		refd_mpw_kint(w, "n", n);
		refd_mpw_kint(w, "damage", m->marked);
		refd_mpw_kint(w, "arm", arm_eff(g, m));
		ev_emit(g, w);
	}
	return 0;
}

static int
c_end_activation(struct g *g, refd_mpv c)
{
	(void)c;
	if (S->phase != PH_ACT || S->cur < 0 || S->eoa)
		REJ(g, REFD_EPHASE, "R003-31", "no unit is activating");
	if (g->dry)
		return 0;
	terror_gate(g);
	S->eoa = 1;
	S->eoa_idx = 0;
	return 0;
}

static int
c_end_turn(struct g *g, refd_mpv c)
{
	(void)c;
	if (S->phase != PH_ACT)
		REJ(g, REFD_EPHASE, "R003-31", "finish the Control Phase first "
		    "(end_phase)");
	if (S->cur >= 0)
		REJ(g, REFD_EILLEGAL, "R003-31", "end the current activation "
		    "first");
	if (g->dry)
		return 0;
	start_turn(g);
	return 0;
}

/* ---- prompt answers ---- */

static int
prompt_is(struct g *g, int kind, const char *rule, const char *what)
{
	if (S->npr == 0 || S->pr[0].kind != kind)
		REJ(g, REFD_EILLEGAL, rule, "no %s is pending", what);
	return 0;
}

static int
c_promote(struct g *g, refd_mpv c)
{
	int mi, ld, n, i, ok = 0, cand[MAXM];
	int64_t uid;
	struct unit *u;

	if (prompt_is(g, P_PROMOTE, "R003-20", "field promotion"))
		return g->code;
	u = &S->u[S->pr[0].unit];
	if (arg_int(g, c, "unit", 0, 99999, &uid))
		return g->code;
	if (uid != u->id)
		REJ(g, REFD_EILLEGAL, "R003-20", "the promotion pending is for "
		    "unit %d", u->id);
	if (!refd_mpv_ok(refd_mpv_get(c, "model")) ||
	    refd_mpv_get_int(c, "model", 0) == 0)
		REJ(g, REFD_EILLEGAL, "R003-20", "field promotion is mandatory "
		    "while a Grunt remains: name the Grunt");
	if (arg_model(g, c, "model", &mi))
		return g->code;
	ld = S->pr[0].model;
	n = grunt_candidates(g, S->pr[0].unit, u->weapon_crew, u->lx, u->ly,
	    S->m[ld].r, cand);
	for (i = 0; i < n; i++)
		ok |= cand[i] == mi;
	if (!ok)
		REJ(g, REFD_ENOTARGET, u->weapon_crew ? "R003-28" : "R003-20",
		    "%s #%d is not a Grunt of unit %d%s", mname(g, &S->m[mi]),
		    S->m[mi].id, u->id, u->weapon_crew ? " within 1\" of the "
		    "gun" : "");
	if (g->dry)
		return 0;
	swap_in(g, ld, mi, u->weapon_crew && !S->crew_swap_grunt);
	u->need &= ~N_PROMOTE;
	if (u->uc < 0)
		u->uc = ld;
	pop_prompt(g);
	{
		refd_mpw *w = ev(g, "promoted");

		refd_mpw_kint(w, "unit", u->id);
		refd_mpw_kint(w, "grunt", S->m[mi].id);
		refd_mpw_kint(w, "leader", S->m[ld].id);
		refd_mpw_kint(w, "x", S->m[ld].x);
		refd_mpw_kint(w, "y", S->m[ld].y);
		ev_emit(g, w);
	}
	return 0;
}

static int
c_designate(struct g *g, refd_mpv c)
{
	int mi;
	int64_t uid;
	struct unit *u;

	if (prompt_is(g, P_DESIGNATE, "R003-23", "commander designation"))
		return g->code;
	u = &S->u[S->pr[0].unit];
	if (arg_int(g, c, "unit", 0, 99999, &uid) ||
	    arg_model(g, c, "model", &mi))
		return g->code;
	if (uid != u->id || S->m[mi].unit != S->pr[0].unit)
		REJ(g, REFD_ENOTARGET, "R003-23", "designate a model of unit %d",
		    u->id);
	if (g->dry)
		return 0;
	u->uc = mi;
	u->designated = 1;
	u->need &= ~N_DESIGNATE;
	pop_prompt(g);
	{
		refd_mpw *w = ev(g, "new_commander");

		refd_mpw_kint(w, "unit", u->id);
		refd_mpw_kint(w, "model", S->m[mi].id);
		ev_emit(g, w);
	}
	return 0;
}

static int
c_sb_replace(struct g *g, refd_mpv c)
{
	int mi = -1, sb, n, i, ok = 0, cand[MAXM];
	int64_t uid, id;
	struct unit *u;

	if (prompt_is(g, P_SBREP, "R003-27", "standard bearer replacement"))
		return g->code;
	u = &S->u[S->pr[0].unit];
	sb = S->pr[0].model;
	if (arg_int(g, c, "unit", 0, 99999, &uid) ||
	    arg_int(g, c, "model", 0, 99999, &id))
		return g->code;
	if (uid != u->id)
		REJ(g, REFD_EILLEGAL, "R003-27", "the replacement pending is "
		    "for unit %d", u->id);
	if (id != 0) {
		mi = find_model(g, id);
		n = grunt_candidates(g, S->pr[0].unit, 1, u->sbx, u->sby,
		    S->m[sb].r, cand);
		for (i = 0; i < n; i++)
			ok |= cand[i] == mi;
		if (!ok)
			REJ(g, REFD_ENOTARGET, "R003-27", "#%lld is not a Grunt "
			    "of unit %d within 1\" of the lost standard",
			    (long long)id, u->id);
	}
	if (g->dry)
		return 0;
	if (mi >= 0)
		swap_in(g, sb, mi, 0);
	else
		S->m[sb].flags &= ~F_DYING;
	u->need &= ~N_SBREP;
	pop_prompt(g);
	{
		refd_mpw *w = ev(g, "standard");

		refd_mpw_kint(w, "unit", u->id);
		refd_mpw_kint(w, "grunt", id);
		ev_emit(g, w);
	}
	return 0;
}

static int
c_reroll(struct g *g, refd_mpv c)
{
	int64_t yes;
	struct prompt p;
	int pass = 0;

	if (prompt_is(g, P_REROLL, "R003-26", "standard bearer reroll") ||
	    arg_int(g, c, "yes", 0, 1, &yes))
		return g->code;
	if (g->dry)
		return 0;
	p = S->pr[0];
	pop_prompt(g);
	if (yes)
		pass = check_roll(g, p.model >= 0 ? -1 : p.unit, p.model, p.a,
		    "standard bearer reroll", 1);
	consequence(g, p.unit, p.model, p.b, pass);
	return 0;
}

static int
c_free_strike(struct g *g, refd_mpv c)
{
	int64_t yes;
	struct prompt p;
	struct atk a;
	int wi;

	if (prompt_is(g, P_FREESTRIKE, "R003-74", "free strike") ||
	    arg_int(g, c, "yes", 0, 1, &yes))
		return g->code;
	if (g->dry)
		return 0;
	p = S->pr[0];
	pop_prompt(g);
	if (!yes || !S->m[p.a].alive || !may_free_strike(g, &S->m[p.model]))
		return 0;
	wi = best_melee(g, &S->m[p.model]);
	memset(&a, 0, sizeof(a));
	a.att = a.org = p.model;
	a.tgt = p.a;
	a.kind = A_MELEE;
	a.spell = -1;
	a.pow = prof(g, &S->m[p.model])->w[wi].pow;
	a.bonus = 2;
	a.free_strike = 1;
	resolve_attack(g, &a, 0);
	return 0;
}

static int
c_damage(struct g *g, refd_mpv c)
{
	int64_t boost;

	if (prompt_is(g, P_DAMAGE, "R003-43", "damage roll") ||
	    opt_int(g, c, "boost", 0, 1, 0, &boost))
		return g->code;
	if (boost && S->m[S->pd.att].focus < 1)
		REJ(g, REFD_ERESOURCE, "R003-43", "no focus left to boost");
	if (g->dry)
		return 0;
	pop_prompt(g);
	finish_damage(g, (int)boost);
	return 0;
}

static int
c_choose_order(struct g *g, refd_mpv c)
{
	int64_t id;
	int ui;

	if (prompt_is(g, P_ORDER, "R003-25", "choice of order") ||
	    arg_int(g, c, "unit", 0, 99999, &id))
		return g->code;
	ui = find_unit(g, id);
	if (ui < 0 || !S->u[ui].alive || !S->u[ui].need)
		REJ(g, REFD_ENOTARGET, "R003-25", "unit %lld has nothing "
		    "pending", (long long)id);
	if (g->dry)
		return 0;
	pop_prompt(g);
	S->prio = ui + 1;
	return 0;
}

static int
c_use_commander(struct g *g, refd_mpv c)
{
	int64_t id;
	int ci = -1;
	struct prompt p;
	int32_t target;

	if (prompt_is(g, P_CMDER, "R003-38", "choice of CMD") ||
	    arg_int(g, c, "model", 0, 99999, &id))
		return g->code;
	p = S->pr[0];
	target = p.a;
	if (id != 0) {
		ci = find_model(g, id);
		if (ci < 0 || S->m[ci].side != p.seat ||
		    !commander_reaches(g, &S->m[ci], p.model >= 0 ? -1 : p.unit,
		    p.model >= 0 ? &S->m[p.model] : NULL))
			REJ(g, REFD_ENOTARGET, "R003-38", "#%lld is not a friendly "
			    "Commander whose command range reaches the checking "
			    "models", (long long)id);
		target = cmd_stat(g, &S->m[ci]);
	}
	if (g->dry)
		return 0;
	pop_prompt(g);
	do_check(g, p.unit, p.model, target, p.b, check_why[p.c]);
	return 0;
}

/* ---- test hooks (setup "test_hooks": true) ---- */

static int
c_test_attack(struct g *g, refd_mpv c)
{
	refd_mpv hs = refd_mpv_get(c, "hits");
	size_t i;
	int mi[MAXM];
	int64_t dm[MAXM];

	if (!S->test_hooks)
		REJ(g, REFD_EILLEGAL, NULL, "test hooks are off");
	if (refd_mpv_type(hs) != REFD_MP_ARRAY || refd_mpv_len(hs) > MAXM)
		REJ(g, REFD_EBADCMD, NULL, "\"hits\": [[model, damage], ...]");
	for (i = 0; i < refd_mpv_len(hs); i++) {
		int64_t id;

		if (refd_mpv_int(refd_mpv_at(refd_mpv_at(hs, i), 0), &id) ||
		    refd_mpv_int(refd_mpv_at(refd_mpv_at(hs, i), 1), &dm[i]) ||
		    (mi[i] = find_model(g, id)) < 0 || !S->m[mi[i]].alive ||
		    dm[i] < 0 || dm[i] > 100)
			REJ(g, REFD_EBADCMD, NULL, "bad hit %d", (int)i);
	}
	if (g->dry)
		return 0;
	for (i = 0; i < refd_mpv_len(hs); i++) {
		refd_mpw *w = ev(g, "damage");

		apply_damage(g, &S->m[mi[i]], (int32_t)dm[i]);
		refd_mpw_kint(w, "target", S->m[mi[i]].id);
		refd_mpw_kint(w, "damage", dm[i]);
		refd_mpw_kbool(w, "destroyed", (S->m[mi[i]].flags & F_DYING)
		    != 0);
		ev_emit(g, w);
	}
	post_attack(g);
	return 0;
}

static int
c_test_check(struct g *g, refd_mpv c)
{
	int64_t id;
	int ui;

	if (!S->test_hooks)
		REJ(g, REFD_EILLEGAL, NULL, "test hooks are off");
	if (arg_int(g, c, "unit", 0, 99999, &id))
		return g->code;
	if ((ui = find_unit(g, id)) < 0)
		REJ(g, REFD_ENOTARGET, NULL, "no unit %lld", (long long)id);
	if (g->dry)
		return 0;
	command_check(g, ui, -1, C_FLEE_UNIT, "test");
	return 0;
}

/* ---- power attacks (5.7) and combined attacks (7.5) ---- */

enum pa { PA_HEADBUTT = 1, PA_SLAM, PA_PUSH, PA_TRAMPLE, PA_HEADLOCK,
	PA_WEAPONLOCK, PA_THROW, PA_DTHROW };
static const char *const pa_names[] = { "", "headbutt", "slam", "push",
	"trample", "head_lock", "weapon_lock", "throw", "two_hand_throw" };

static int
open_fists(const struct g *g, const struct model *m)
{
	const struct profile *p = prof(g, m);
	int i, n = 0;

	for (i = 0; i < p->nw; i++)
		n += p->w[i].melee && p->w[i].open_fist &&
		    !weapon_disabled(g, m, i);
	return n;
}

static int
any_attack(const struct model *m)
{
	return m->atk[0] || m->atk[1] || m->atk[2] || m->atk[3];
}

static int
c_power_attack(struct g *g, refd_mpv c)
{
	int mi, ti, k, wi;
	const char *kn = refd_mpv_get_str(c, "kind", "");
	struct model *m, *t;
	struct atk a;

	if (arg_model(g, c, "model", &mi) || own_active(g, mi, "R003-46") ||
	    arg_model(g, c, "target", &ti))
		return g->code;
	m = &S->m[mi];
	t = &S->m[ti];
	for (k = 1; k <= PA_DTHROW; k++)
		if (strcmp(kn, pa_names[k]) == 0)
			break;
	if (k > PA_DTHROW)
		REJ(g, REFD_EBADCMD, "R003-46", "\"kind\" is headbutt, slam, "
		    "push, trample, head_lock, weapon_lock, throw or "
		    "two_hand_throw");
	if (prof(g, m)->kind != K_WARJACK)
		REJ(g, REFD_EILLEGAL, "R003-46", "only warjacks make power "
		    "attacks");
	if (k == PA_TRAMPLE && !prof(g, m)->heavy)
		REJ(g, REFD_EILLEGAL, "R003-46", "only a heavy warjack "
		    "tramples");
	if ((k == PA_HEADLOCK || k == PA_WEAPONLOCK || k == PA_THROW) &&
	    open_fists(g, m) < 1)
		REJ(g, REFD_EILLEGAL, "R003-46", "%s needs a working Open Fist",
		    kn);
	if (k == PA_DTHROW && open_fists(g, m) < 2)
		REJ(g, REFD_EILLEGAL, "R003-46", "a two-hand throw needs two "
		    "working Open Fists");
	if (may_act(g, mi) || attack_lock(g, m))
		return g->code;
	if (any_attack(m) || (m->flags & F_CHARGED))
		REJ(g, REFD_EILLEGAL, "R003-46", "a power attack is the whole "
		    "combat action: %s #%d has already attacked or charged",
		    mname(g, m), m->id);
	if (t->side == m->side)
		REJ(g, REFD_ENOTARGET, "R003-46", "power attacks target an "
		    "enemy model");
	if (!in_mrange(g, m, t))
		REJ(g, REFD_ERANGE, "R003-45", "%s #%d is not in the melee "
		    "range of %s #%d", mname(g, t), t->id, mname(g, m), m->id);
	if (m->focus < 1)
		REJ(g, REFD_ERESOURCE, "R003-33", "a power attack costs 1 focus "
		    "and %s #%d has none", mname(g, m), m->id);
	if (g->dry)
		return 0;
	if (terror_gate(g))
		return 0;
	spend(m, 1);
	if (m->mv == MV_NONE)
		m->mv = MV_FORFEIT;
	for (wi = 0; wi < MAXW; wi++)
		m->atk[wi] = 5;
	memset(&a, 0, sizeof(a));
	a.att = a.org = mi;
	a.tgt = ti;
	a.kind = A_MELEE;
	a.spell = -1;
	a.power = k;
	wi = best_melee(g, m);
	a.pow = (k == PA_PUSH || k == PA_HEADLOCK || k == PA_WEAPONLOCK ||
	    wi < 0) ? -1 : prof(g, m)->w[wi].pow;
	{
		refd_mpw *w = ev(g, "power_attack");

		refd_mpw_kint(w, "model", m->id);
		refd_mpw_kstr(w, "kind", kn);
		refd_mpw_kint(w, "target", t->id);
		ev_emit(g, w);
	}
	resolve_attack(g, &a, 0);
	return 0;
}

/* First weapon of the kind (melee or ranged) still unused, or -1. */
static int
free_weapon(const struct g *g, const struct model *m, int melee)
{
	const struct profile *p = prof(g, m);
	int i;

	for (i = 0; i < p->nw; i++)
		if (p->w[i].melee == melee && m->atk[i] < (melee ? 1 :
		    p->w[i].rof))
			return i;
	return -1;
}

static int
c_combined(struct g *g, refd_mpv c)
{
	refd_mpv ws = refd_mpv_get(c, "with");
	int pm, ti, i, j, n = 0, melee, part[MAXM], wpn[MAXM];
	const char *kn = refd_mpv_get_str(c, "kind", "");
	struct atk a;
	refd_mpw *w;

	melee = strcmp(kn, "melee") == 0;
	if (!melee && strcmp(kn, "ranged") != 0)
		REJ(g, REFD_EBADCMD, "R003-73", "\"kind\" is ranged or melee");
	if (arg_model(g, c, "primary", &pm) || own_active(g, pm, "R003-73") ||
	    arg_model(g, c, "target", &ti))
		return g->code;
	if (refd_mpv_type(ws) != REFD_MP_ARRAY || refd_mpv_len(ws) < 1 ||
	    refd_mpv_len(ws) > 10)
		REJ(g, REFD_EBADCMD, "R003-73", "\"with\" lists 1 to 10 other "
		    "participants");
	part[n++] = pm;
	for (i = 0; i < (int)refd_mpv_len(ws); i++) {
		int64_t id;
		int x;

		if (refd_mpv_int(refd_mpv_at(ws, (size_t)i), &id) != 0 ||
		    (x = find_model(g, id)) < 0 || !S->m[x].alive)
			REJ(g, REFD_ENOTARGET, "R003-73", "participant %d is not "
			    "a model in play", i + 1);
		for (j = 0; j < n; j++)
			if (part[j] == x)
				REJ(g, REFD_EBADCMD, "R003-73", "#%lld is listed "
				    "twice", (long long)id);
		part[n++] = x;
	}
	if (S->m[ti].side == S->m[pm].side)
		REJ(g, REFD_ENOTARGET, "R003-73", "attack an enemy model");
	if (!melee && !S->cra_melee && in_melee(g, &S->m[ti]))
		REJ(g, REFD_ENOTARGET, "R003-73", "a combined ranged attack "
		    "cannot target a model in melee");
	for (j = 0; j < n; j++) {
		struct model *m = &S->m[part[j]];

		if (m->unit != S->m[pm].unit || !is_trooper(g, m) ||
		    !(melee ? prof(g, m)->cma : prof(g, m)->cra))
			REJ(g, REFD_EILLEGAL, "R003-73", "%s #%d is not a trooper "
			    "of this unit with Combined %s Attack", mname(g, m),
			    m->id, melee ? "Melee" : "Ranged");
		if (may_act(g, part[j]) || attack_lock(g, m))
			return g->code;
		if ((wpn[j] = free_weapon(g, m, melee)) < 0 || any_attack(m))
			REJ(g, REFD_EILLEGAL, "R003-73", "%s #%d has made its "
			    "attack", mname(g, m), m->id);
		if (melee && !in_mrange(g, m, &S->m[ti]))
			REJ(g, REFD_ERANGE, "R003-73", "%s #%d is not in the "
			    "melee range of %s #%d", mname(g, &S->m[ti]),
			    S->m[ti].id, mname(g, m), m->id);
		if (!melee && ((m->flags & F_CHARGED) || in_melee(g, m) ||
		    !los(g, m, &S->m[ti])))
			REJ(g, REFD_ENOTARGET, "R003-73", "%s #%d cannot shoot "
			    "at %s #%d (in melee, charged or no line of sight)",
			    mname(g, m), m->id, mname(g, &S->m[ti]),
			    S->m[ti].id);
	}
	if (g->dry)
		return 0;
	if (terror_gate(g))
		return 0;
	w = ev(g, "combined_attack");
	refd_mpw_kstr(w, "kind", kn);
	refd_mpw_karray(w, "participants");
	for (j = 0; j < n; j++) {
		struct model *m = &S->m[part[j]];

		if (m->mv == MV_NONE) {
			m->mv = MV_FORFEIT;
			if (!melee)
				m->flags |= F_AIM;
		}
		m->atk[wpn[j]] = 5;
		refd_mpw_int(w, m->id);
	}
	refd_mpw_end(w);
	ev_emit(g, w);
	memset(&a, 0, sizeof(a));
	a.att = a.org = pm;
	a.tgt = ti;
	a.kind = melee ? A_MELEE : A_RANGED;
	a.spell = -1;
	j = S->combined_no_primary ? n - 1 : n;
	a.pow = prof(g, &S->m[pm])->w[wpn[0]].pow + j;
	a.rng = prof(g, &S->m[pm])->w[wpn[0]].rng * INCH;
	a.bonus = j + ((!melee && (S->m[pm].flags & F_AIM)) ? 2 : 0);
	if (melee && S->m[pm].ctarget == ti)
		S->m[pm].ctarget = -1;
	resolve_attack(g, &a, 0);
	return 0;
}

/* ---- terror (R003-15, ASM-17) ---- */

static int
near_terror(const struct g *g, const struct model *m)
{
	int i;

	for (i = 0; i < S->nm; i++) {
		const struct model *e = &S->m[i];

		if (e->alive && e->side != m->side && prof(g, e)->terrifying &&
		    (in_mrange(g, e, m) || in_mrange(g, m, e)))
			return 1;
	}
	return 0;
}

/* A terrifying entity moved: every enemy unit or model now in melee
 * with it checks at once (AMB-13). */
static void
terror_approach(struct g *g, int ei)
{
	const struct model *e = &S->m[ei];
	int ui, j;

	for (ui = 0; ui < S->nu; ui++) {
		const struct unit *u = &S->u[ui];

		if (!u->alive || u->side == e->side || u->fleeing)
			continue;
		for (j = 0; j < S->nm; j++) {
			const struct model *m = &S->m[j];

			if (m->alive && m->unit == ui && (in_mrange(g, e, m) ||
			    in_mrange(g, m, e)))
				break;
		}
		if (j == S->nm)
			continue;
		if (is_trooper(g, &S->m[j]))
			command_check(g, ui, -1, C_FLEE_UNIT, "terror");
		else if (!fleeing(g, &S->m[j]))
			command_check(g, ui, j, C_FLEE_MODEL, "terror");
	}
}

/* The unit's deferred terror check, once its movement is over. */
static void
terror_check(struct g *g, int ui)
{
	if (ui < 0 || S->u[ui].terror != 1)
		return;
	S->u[ui].terror = 2;
	if (!S->u[ui].fleeing)
		command_check(g, ui, -1, C_FLEE_UNIT, "terror");
}

/* ---- measuring (R003-04) ---- */

static int
c_measure(struct g *g, refd_mpv c)
{
	int a, b, ok = 0;
	const struct model *ma, *mb;
	refd_mpw *w;

	if (arg_model(g, c, "from", &a) || arg_model(g, c, "to", &b))
		return g->code;
	ma = &S->m[a];
	mb = &S->m[b];
	if (S->premeasure)
		ok = 1;
	else if (S->cur >= 0 && ma->unit == S->cur && mb->unit == S->cur &&
	    S->u[S->cur].uc == a && ma->side == g->seat)
		ok = 1;
	else if (ma->side == g->seat && focus_stat(g, ma) > 0)
		ok = 2;
	if (!ok)
		REJ(g, REFD_EILLEGAL, "R003-04", "measuring is allowed from a "
		    "unit commander to its own troopers during the unit's "
		    "activation, or across your own model's control area (or "
		    "with premeasure)");
	if (g->dry)
		return 0;
	w = ev(g, "measure");
	refd_mpw_kint(w, "from", ma->id);
	refd_mpw_kint(w, "to", mb->id);
	if (ok == 2) {
		int in = cont_within(mpt(ma), ma->r, mpt(mb), mb->r,
		    ctrl_mils(g, ma));

		refd_mpw_kbool(w, "in_control_area", in);
		if (in)
			refd_mpw_kint(w, "edge", cont_edge_dist(mpt(ma), ma->r,
			    mpt(mb), mb->r));
	} else {
		refd_mpw_kint(w, "edge", cont_edge_dist(mpt(ma), ma->r,
		    mpt(mb), mb->r));
	}
	ev_emit_to(g, g->seat, w);
	return 0;
}

/* Power attack results [ENG: mechanics outside the excerpt, simplified]. */
static void
power_effect(struct g *g, struct atk *a)
{
	struct model *m = &S->m[a->att], *t = &S->m[a->tgt];
	refd_mpw *w;
	int who;

	if (a->power == PA_HEADBUTT || a->power == PA_SLAM ||
	    a->power == PA_THROW || a->power == PA_DTHROW)
		t->flags |= F_KD;
	if (a->power == PA_PUSH) {
		cont_pt away, to;

		away.x = 2 * t->x - m->x;
		away.y = 2 * t->y - m->y;
		to = cont_point_along(mpt(t), away, 1000);
		if (in_table(g, to) && seg_clear(g, a->tgt, mpt(t), to, &who)) {
			t->x = (int32_t)to.x;
			t->y = (int32_t)to.y;
		}
	}
	w = ev(g, "power_effect");
	refd_mpw_kint(w, "target", t->id);
	refd_mpw_kbool(w, "knocked_down", (t->flags & F_KD) != 0);
	refd_mpw_kint(w, "x", t->x);
	refd_mpw_kint(w, "y", t->y);
	ev_emit(g, w);
}

/* A declared action ends the unit's movement step: an owed terror check
 * comes first; if the unit flees or a reroll is pending the action is
 * not made.  Returns 1 when the action must not go ahead. */
static int
terror_gate(struct g *g)
{
	if (S->cur < 0 || S->u[S->cur].terror != 1)
		return 0;
	terror_check(g, S->cur);
	return S->npr > 0 || S->u[S->cur].fleeing;
}

/* ---- cavalry ride-by attack (R003-17) [ENG: mechanics simplified] ---- */

static int
c_ride_by(struct g *g, refd_mpv c)
{
	int mi, ti, n = 1, k, who, i;
	int64_t stop, wi;
	struct model *m, *t;
	cont_pt pts[MAXPATH], f;
	int32_t mr;
	int was[MAXM];
	struct atk a;
	refd_mpw *w;

	if (arg_model(g, c, "model", &mi) || own_active(g, mi, "R003-17"))
		return g->code;
	m = &S->m[mi];
	if (!prof(g, m)->cavalry)
		REJ(g, REFD_EILLEGAL, "R003-17", "%s #%d is not cavalry",
		    mname(g, m), m->id);
	if (!(m->flags & F_ORDERED) ||
	    order_kind(g, S->u[m->unit].order) != O_RIDEBY)
		REJ(g, REFD_EILLEGAL, "R003-17", "%s #%d needs a ride-by order",
		    mname(g, m), m->id);
	if (m->mv != MV_NONE || any_attack(m))
		REJ(g, REFD_EILLEGAL, "R003-14", "%s #%d has already moved or "
		    "attacked", mname(g, m), m->id);
	if (may_act(g, mi) || attack_lock(g, m))
		return g->code;
	pts[0] = mpt(m);
	if (parse_path(g, c, pts, &n) ||
	    arg_int(g, c, "stop", 1, MAXPATH - 1, &stop) ||
	    arg_int(g, c, "weapon", 0, MAXW - 1, &wi) ||
	    arg_model(g, c, "target", &ti))
		return g->code;
	t = &S->m[ti];
	if (stop >= n)
		REJ(g, REFD_EBADCMD, "R003-17", "\"stop\" is the index of a "
		    "path point (1 .. %d)", n - 1);
	if (wi >= prof(g, m)->nw || !prof(g, m)->w[wi].melee ||
	    weapon_disabled(g, m, (int)wi))
		REJ(g, REFD_EBADCMD, "R003-17", "a ride-by attack uses a "
		    "working melee weapon");
	if (t->side == m->side)
		REJ(g, REFD_ENOTARGET, "R003-17", "attack an enemy model");
	if (cont_path_len(pts, n) > (int64_t)prof(g, m)->spd * INCH)
		REJ(g, REFD_ENOPATH, "R003-32", "a ride-by is a full advance of "
		    "at most %d\"", prof(g, m)->spd);
	for (k = 1; k < n; k++) {
		if (!in_table(g, pts[k]))
			REJ(g, REFD_ENOPATH, "R003-03", "path point %d is off the "
			    "table", k);
		if (!seg_clear(g, mi, pts[k - 1], pts[k], &who))
			REJ(g, REFD_ENOPATH, "R003-03", "the path crosses the base "
			    "of %s #%d or an obstruction", mname(g, &S->m[who]),
			    S->m[who].id);
	}
	mr = melee_range(g, m);
	f = dir_to(pts[stop], mpt(t));
	if (mr < 0 || !cont_within(pts[stop], m->r, mpt(t), t->r, mr) ||
	    !cont_partly_in_front(pts[stop], f, mpt(t), t->r))
		REJ(g, REFD_ERANGE, "R003-17", "%s #%d is not in melee range "
		    "from the stop at (%lld,%lld)", mname(g, t), t->id,
		    (long long)pts[stop].x, (long long)pts[stop].y);
	if (g->dry)
		return 0;
	if (terror_gate(g))
		return 0;
	for (i = 0; i < S->nm; i++)
		was[i] = S->m[i].alive && S->m[i].side != m->side &&
		    in_mrange(g, &S->m[i], m);
	m->x = (int32_t)pts[stop].x;
	m->y = (int32_t)pts[stop].y;
	m->fx = (int32_t)f.x;
	m->fy = (int32_t)f.y;
	m->mv = MV_ADV;
	m->atk[wi] = 5;
	m->acted = 1;
	w = ev(g, "ride_by");
	refd_mpw_kint(w, "model", m->id);
	refd_mpw_kint(w, "x", m->x);
	refd_mpw_kint(w, "y", m->y);
	ev_emit(g, w);
	memset(&a, 0, sizeof(a));
	a.att = a.org = mi;
	a.tgt = ti;
	a.kind = A_MELEE;
	a.spell = -1;
	a.pow = prof(g, m)->w[wi].pow;
	resolve_attack(g, &a, 0);
	if (m->alive && !(m->flags & F_DYING) && n - 1 > stop) {
		f = dir_to(pts[n - 2], pts[n - 1]);
		m->x = (int32_t)pts[n - 1].x;
		m->y = (int32_t)pts[n - 1].y;
		m->fx = (int32_t)f.x;
		m->fy = (int32_t)f.y;
	}
	w = ev(g, "move");
	refd_mpw_kint(w, "model", m->id);
	refd_mpw_kstr(w, "mode", "ride_by");
	refd_mpw_kint(w, "x", m->x);
	refd_mpw_kint(w, "y", m->y);
	refd_mpw_kint(w, "length", cont_path_len(pts, n));
	ev_emit(g, w);
	queue_free_strikes(g, mi, was);
	return 0;
}

/* ---- sealed army lists ---- */

static void
deploy_army(struct g *g, int side, const struct army *a)
{
	int j, k, base = S->nm, o;

	for (j = 0; j < a->nu && S->nu < MAXU; j++) {
		const struct aunit *au = &a->u[j];
		struct unit *u = &S->u[S->nu];
		int first = S->nm;

		memset(u, 0, sizeof(*u));
		u->alive = 1;
		u->id = side * 100 + j + 1;
		u->side = side;
		u->card = au->card < 0 ? 0 : au->card;
		u->uc = -1;
		u->order = -1;
		u->mc_turn = -1;
		if (au->card >= 0) {
			u->weapon_crew = g->c->c[au->card].weapon_crew;
			for (o = 0; o < g->c->c[au->card].norders; o++)
				u->orders[u->norders++] =
				    g->c->c[au->card].orders[o];
		}
		if (au->ua >= 0)
			for (o = 0; o < g->c->c[au->ua].norders &&
			    u->norders < 4; o++)
				u->orders[u->norders++] =
				    g->c->c[au->ua].orders[o];
		for (k = 0; k < au->nm && S->nm < MAXM; k++) {
			const struct amodel *am = &a->m[au->m0 + k];
			struct model *m = &S->m[S->nm];

			memset(m, 0, sizeof(*m));
			m->alive = 1;
			m->id = side * 100 + au->m0 + k + 1;
			m->side = side;
			m->prof = am->prof;
			m->unit = S->nu;
			m->role = am->role;
			m->x = side == 0 ? 24000 + am->dx : 24000 - am->dx;
			m->y = side == 0 ? 3000 + am->dy : 45000 - am->dy;
			m->fx = 0;
			m->fy = side == 0 ? 1 : -1;
			m->cat = g->c->p[am->prof].cat;
			m->r = g->c->p[am->prof].r;
			m->focus = g->c->p[am->prof].focus;
			m->lock_turn = -1;
			m->ctarget = -1;
			m->bg = g->c->p[am->prof].kind == K_WARCASTER ? S->nm :
			    am->bg >= 0 ? base + am->bg : -1;
			m->owner = side;
			m->bg0 = m->bg;
			if (m->role == R_OFFICER)
				u->uc = S->nm;
			if (m->role == R_LEADER && (u->uc < 0 ||
			    S->m[u->uc].role != R_OFFICER))
				u->uc = S->nm;
			S->nm++;
		}
		if (u->uc < 0) {
			u->uc = first;
			u->designated = S->nm - first > 1;
		}
		S->nu++;
	}
}

void
mb_deploy(struct g *g)
{
	deploy_army(g, 0, &g->c->a[S->army[0] - 1]);
	deploy_army(g, 1, &g->c->a[S->army[1] - 1]);
}

static int
c_submit_army(struct g *g, refd_mpv c)
{
	const char *name = refd_mpv_get_str(c, "army", "");
	int a, seat = g->seat;
	refd_mpw *w;
	int rc;

	if (S->phase != PH_ARMY)
		REJ(g, REFD_EPHASE, "R003-05", "army lists are already in");
	for (a = 0; a < g->c->na; a++)
		if (strcmp(g->c->a[a].key, name) == 0)
			break;
	if (a == g->c->na)
		REJ(g, REFD_EBUILD, "R003-05", "there is no army list '%s'",
		    name);
	if (g->dry)
		return 0;
	S->army[seat] = a + 1;
	{
		char zone[16];

		snprintf(zone, sizeof(zone), "army.%d", seat);
		rc = H->commit(g->ctx, zone, seat, (const uint8_t *)name,
		    strlen(name));
		if (rc != REFD_OK)
			g->err = rc;
	}
	w = ev(g, "army_chosen");
	refd_mpw_kstr(w, "army", name);
	ev_emit_to(g, seat, w);
	w = ev(g, "army_sealed");
	refd_mpw_kint(w, "seat", seat);
	ev_emit(g, w);
	if (S->army[0] && S->army[1]) {
		w = ev(g, "armies_revealed");
		refd_mpw_karray(w, "armies");
		refd_mpw_str(w, g->c->a[S->army[0] - 1].key);
		refd_mpw_str(w, g->c->a[S->army[1] - 1].key);
		refd_mpw_end(w);
		ev_emit(g, w);
		mb_deploy(g);
		mb_start_game(g);
	}
	return 0;
}

/* ---- dispatch ---- */

struct cmdent {
	const char *type;
	int prompt;		/* prompt kind it answers, 0: a turn command */
	int (*fn)(struct g *, refd_mpv);
};

static int c_buy(struct g *g, refd_mpv c) { return c_attack(g, c, 1); }
static int c_atk(struct g *g, refd_mpv c) { return c_attack(g, c, 0); }

static const struct cmdent cmds[] = {
	{ "submit_army", -1, c_submit_army },
	{ "choose_first", P_FIRST, c_choose_first },
	{ "promote", P_PROMOTE, c_promote },
	{ "designate", P_DESIGNATE, c_designate },
	{ "sb_replace", P_SBREP, c_sb_replace },
	{ "reroll", P_REROLL, c_reroll },
	{ "free_strike", P_FREESTRIKE, c_free_strike },
	{ "damage", P_DAMAGE, c_damage },
	{ "use_commander", P_CMDER, c_use_commander },
	{ "choose_order", P_ORDER, c_choose_order },
	{ "allocate", 0, c_allocate },
	{ "upkeep", 0, c_upkeep },
	{ "shake", 0, c_shake },
	{ "end_phase", 0, c_end_phase },
	{ "activate", 0, c_activate },
	{ "order", 0, c_order },
	{ "move", 0, c_move },
	{ "stand_up", 0, c_stand_up },
	{ "attack", 0, c_atk },
	{ "buy_attack", 0, c_buy },
	{ "cast", 0, c_cast },
	{ "feat", 0, c_feat },
	{ "heal", 0, c_heal },
	{ "power_attack", 0, c_power_attack },
	{ "combined", 0, c_combined },
	{ "ride_by", 0, c_ride_by },
	{ "measure", 0, c_measure },
	{ "end_activation", 0, c_end_activation },
	{ "end_turn", 0, c_end_turn },
	{ "test_attack", 0, c_test_attack },
	{ "test_check", 0, c_test_check },
	{ NULL, 0, NULL }
};

int
mb_command(struct g *g, uint32_t seat, refd_mpv c)
{
	const char *type = refd_mpv_get_str(c, "type", "");
	const struct cmdent *e;
	int rc;

	for (e = cmds; e->type != NULL; e++)
		if (strcmp(e->type, type) == 0)
			break;
	if (e->type == NULL)
		REJ(g, REFD_EBADCMD, NULL, "unknown command type '%s'", type);
	if (S->phase == PH_OVER)
		REJ(g, REFD_EFINISHED, NULL, "the game is over");
	g->seat = (int)seat;
	if (S->phase == PH_ARMY || e->prompt == -1) {
		if (S->phase == PH_ARMY && e->prompt != -1)
			REJ(g, REFD_EPHASE, "R003-05", "both army lists must be "
			    "in first (submit_army)");
		if (seat > 1 || S->army[seat])
			REJ(g, REFD_ENOTYOURTURN, "R003-05", "your army list is "
			    "already in");
		rc = e->fn(g, c);
		if (rc != 0 || g->dry)
			return rc;
		mb_advance(g);
		return g->err;
	}
	if ((int)seat != mb_pending_seat(S))
		REJ(g, REFD_ENOTYOURTURN, "R003-31", "seat %d owes the next "
		    "decision, not seat %u", mb_pending_seat(S), seat);
	if (S->npr > 0 && e->prompt != S->pr[0].kind) {
		static const char *const pn[] = { "", "promote", "designate",
			"sb_replace", "reroll", "free_strike", "damage",
			"choose_first", "use_commander", "choose_order" };

		REJ(g, REFD_EPHASE, "R003-25", "answer the pending '%s' "
		    "decision first", pn[S->pr[0].kind]);
	}
	if (S->npr == 0 && e->prompt != 0)
		REJ(g, REFD_EPHASE, NULL, "no '%s' decision is pending", type);
	rc = e->fn(g, c);
	if (rc != 0 || g->dry)
		return rc;
	mb_advance(g);
	return g->err;
}
