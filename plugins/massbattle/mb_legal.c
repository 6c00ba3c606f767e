/*
 * mb_legal.c - massbattle legal command lists.  Every candidate is run
 * through the real command handler in dry mode, so a listed command is
 * always accepted.  Movement is continuous: the list offers a few
 * concrete paths (toward or away from the nearest enemy, toward the
 * commander), not every possible one.
 */
#include <string.h>

#include "mb_int.h"

#define S (g->s)

struct lw {
	struct g *g;
	uint32_t seat;
	refd_mpw *out;
	refd_mpw *c;
	int n;
};

static void
cbegin(struct lw *l, const char *type)
{
	l->c = refd_mpw_create();
	refd_mpw_map(l->c);
	refd_mpw_kstr(l->c, "type", type);
}

/* refd_mpw has no way to splice a map body, so write the pair again. */
static void
cend_raw(struct lw *l, const char *label)
{
	refd_mpdoc *d;
	struct g dg;

	refd_mpw_end(l->c);
	if (refd_mpw_error(l->c) || l->n >= 400) {
		refd_mpw_destroy(l->c);
		return;
	}
	d = refd_mp_parse(refd_mpw_data(l->c), refd_mpw_len(l->c));
	dg = *l->g;
	dg.dry = 1;
	dg.code = 0;
	if (d != NULL && mb_command(&dg, l->seat, refd_mp_root(d)) == 0) {
		refd_mpw_map(l->out);
		refd_mpw_str(l->out, "cmd");
		refd_mpw_raw(l->out, refd_mpw_data(l->c), refd_mpw_len(l->c));
		refd_mpw_kstr(l->out, "label", label);
		refd_mpw_end(l->out);
		l->n++;
	}
	refd_mp_free(d);
	refd_mpw_destroy(l->c);
}

static int
nearest_enemy(const struct g *g, const struct model *m)
{
	int i, b = -1;
	int64_t bd = 0;

	for (i = 0; i < S->nm; i++) {
		const struct model *e = &S->m[i];
		int64_t d;

		if (!e->alive || e->side == m->side)
			continue;
		d = cont_d2(mpt(m), mpt(e));
		if (b < 0 || d < bd) {
			b = i;
			bd = d;
		}
	}
	return b;
}

static void
move_cand(struct lw *l, const struct model *m, const char *mode, cont_pt to,
    const char *label)
{
	char lab[128];

	cbegin(l, "move");
	refd_mpw_kint(l->c, "model", m->id);
	refd_mpw_kstr(l->c, "mode", mode);
	refd_mpw_karray(l->c, "path");
	refd_mpw_array(l->c);
	refd_mpw_int(l->c, to.x);
	refd_mpw_int(l->c, to.y);
	refd_mpw_end(l->c);
	refd_mpw_end(l->c);
	snprintf(lab, sizeof(lab), "%s #%d: %s %s to (%lld,%lld)",
	    mname(l->g, m), m->id, mode, label, (long long)to.x,
	    (long long)to.y);
	cend_raw(l, lab);
}

static void
moves(struct lw *l, const struct model *m)
{
	struct g *g = l->g;
	int e = nearest_enemy(g, m), frac;
	int64_t spd = (int64_t)prof(g, m)->spd * INCH;
	char lab[128];
	cont_pt p;

	if (m->mv != MV_NONE)
		return;
	cbegin(l, "move");
	refd_mpw_kint(l->c, "model", m->id);
	refd_mpw_kstr(l->c, "mode", "forfeit");
	snprintf(lab, sizeof(lab), "%s #%d: stay in place", mname(g, m), m->id);
	cend_raw(l, lab);
	if (m->flags & F_KD) {
		cbegin(l, "stand_up");
		refd_mpw_kint(l->c, "model", m->id);
		snprintf(lab, sizeof(lab), "%s #%d: stand up", mname(g, m),
		    m->id);
		cend_raw(l, lab);
		return;
	}
	if (fleeing(g, m)) {
		cont_pt away = mpt(m);

		if (e >= 0) {
			away.x = 2 * m->x - S->m[e].x;
			away.y = 2 * m->y - S->m[e].y;
		}
		for (frac = 2; frac >= 0; frac--) {
			p = cont_point_along(mpt(m), away, 2 * spd * frac / 2);
			p = cont_clamp(p, S->x1, S->y1);
			if (p.x < S->x0)
				p.x = S->x0;
			if (p.y < S->y0)
				p.y = S->y0;
			move_cand(l, m, "run", p, "fleeing");
		}
		return;
	}
	if ((m->flags & F_SNAPOUT) && uc_of(g, m) != NULL) {
		const struct model *u = uc_of(g, m);
		int64_t d = cont_seg_len(mpt(m), mpt(u)) - m->r - u->r - 1;

		if (d > spd)
			d = spd;
		if (d > 0) {
			p = cont_point_along(mpt(m), mpt(u), d);
			move_cand(l, m, "advance", p, "toward its commander");
		}
		return;
	}
	if (e < 0)
		return;
	for (frac = 1; frac <= 2; frac++) {
		int64_t d = cont_seg_len(mpt(m), mpt(&S->m[e])) - m->r -
		    S->m[e].r - 100;
		int64_t want = spd * frac / 2;

		if (d <= 0)
			break;
		p = cont_point_along(mpt(m), mpt(&S->m[e]), d < want ? d : want);
		move_cand(l, m, "advance", p, "toward the nearest enemy");
		p = cont_point_along(mpt(m), mpt(&S->m[e]), d < 2 * want ? d :
		    2 * want);
		move_cand(l, m, "run", p, "toward the nearest enemy");
	}
	{
		int i;

		for (i = 0; i < S->nm; i++) {
			const struct model *t = &S->m[i];

			if (!t->alive || t->side == m->side ||
			    cont_d2(mpt(m), mpt(t)) > (int64_t)400000000)
				continue;
			cbegin(l, "move");
			refd_mpw_kint(l->c, "model", m->id);
			refd_mpw_kstr(l->c, "mode", "charge");
			refd_mpw_kint(l->c, "target", t->id);
			snprintf(lab, sizeof(lab), "%s #%d: charge %s #%d",
			    mname(g, m), m->id, mname(g, t), t->id);
			cend_raw(l, lab);
		}
	}
}

static int
best_melee_idx(const struct g *g, const struct model *m)
{
	const struct profile *p = prof(g, m);
	int i;

	for (i = 0; i < p->nw; i++)
		if (p->w[i].melee)
			return i;
	return 0;
}

static void
actions(struct lw *l, const struct model *m)
{
	struct g *g = l->g;
	const struct profile *p = prof(g, m);
	int w, i, k, b;
	char lab[160];

	for (w = 0; w < p->nw; w++)
		for (i = 0; i < S->nm; i++) {
			const struct model *t = &S->m[i];

			if (!t->alive || t->side == m->side)
				continue;
			if (cont_d2(mpt(m), mpt(t)) > (int64_t)(p->w[w].rng *
			    INCH + 3000) * (p->w[w].rng * INCH + 3000))
				continue;
			for (b = 0; b < 2; b++)
				for (k = 0; k < 2; k++) {
					cbegin(l, k ? "buy_attack" : "attack");
					refd_mpw_kint(l->c, "model", m->id);
					refd_mpw_kint(l->c, "weapon", w);
					refd_mpw_kint(l->c, "target", t->id);
					if (b)
						refd_mpw_kint(l->c, "boost", 1);
					snprintf(lab, sizeof(lab), "%s #%d: %s"
					    "%s %s #%d with %s%s", mname(g, m),
					    m->id, k ? "buy an attack: " : "",
					    "attack", mname(g, t), t->id,
					    p->w[w].name, b ? ", boosted" : "");
					cend_raw(l, lab);
				}
		}
	for (k = 0; k < p->nspells; k++) {
		const struct spell *sp = &g->c->sp[p->spells[k]];

		for (i = 0; i < S->nm; i++) {
			const struct model *t = &S->m[i];

			if (!t->alive)
				continue;
			cbegin(l, "cast");
			refd_mpw_kint(l->c, "model", m->id);
			refd_mpw_kstr(l->c, "spell", sp->key);
			refd_mpw_kint(l->c, "target", t->id);
			snprintf(lab, sizeof(lab), "%s #%d: cast %s on %s #%d",
			    mname(g, m), m->id, sp->name, mname(g, t), t->id);
			cend_raw(l, lab);
		}
	}
	if (p->kind == K_WARJACK) {
		static const char *const pk[] = { "headbutt", "slam", "push",
			"trample", "head_lock", "weapon_lock", "throw",
			"two_hand_throw" };

		for (i = 0; i < S->nm; i++) {
			const struct model *t = &S->m[i];

			if (!t->alive || t->side == m->side ||
			    !in_mrange(g, m, t))
				continue;
			for (k = 0; k < 8; k++) {
				cbegin(l, "power_attack");
				refd_mpw_kint(l->c, "model", m->id);
				refd_mpw_kstr(l->c, "kind", pk[k]);
				refd_mpw_kint(l->c, "target", t->id);
				snprintf(lab, sizeof(lab), "%s #%d: %s %s #%d",
				    mname(g, m), m->id, pk[k], mname(g, t),
				    t->id);
				cend_raw(l, lab);
			}
		}
	}
	if ((p->cra || p->cma) && S->u[m->unit].uc >= 0) {
		for (k = 0; k < 2; k++)
			for (i = 0; i < S->nm; i++) {
				const struct model *t = &S->m[i];
				int j, nw = 0;

				if (!t->alive || t->side == m->side)
					continue;
				cbegin(l, "combined");
				refd_mpw_kstr(l->c, "kind", k ? "melee" :
				    "ranged");
				refd_mpw_kint(l->c, "primary", m->id);
				refd_mpw_kint(l->c, "target", t->id);
				refd_mpw_karray(l->c, "with");
				for (j = 0; j < S->nm; j++) {
					const struct model *o = &S->m[j];

					if (o == m || !o->alive || o->unit != m->unit ||
					    !(k ? prof(g, o)->cma : prof(g, o)->cra))
						continue;
					if (k ? !in_mrange(g, o, t) :
					    !los(g, o, t))
						continue;
					refd_mpw_int(l->c, o->id);
					nw++;
				}
				refd_mpw_end(l->c);
				snprintf(lab, sizeof(lab), "combined %s attack led "
				    "by #%d on %s #%d", k ? "melee" : "ranged",
				    m->id, mname(g, t), t->id);
				if (nw > 0)
					cend_raw(l, lab);
				else
					refd_mpw_destroy(l->c);
			}
	}
	if (p->cavalry && m->mv == MV_NONE) {
		int e = nearest_enemy(g, m);
		int32_t mr = melee_range(g, m);

		if (e >= 0 && mr >= 0) {
			const struct model *t = &S->m[e];
			int64_t d = cont_seg_len(mpt(m), mpt(t)) - mr - m->r -
			    t->r + 50;
			cont_pt st, bk;

			if (d < 0)
				d = 0;
			st = cont_point_along(mpt(m), mpt(t), d);
			bk = cont_point_along(st, mpt(m), 1000);
			if (d == 0)
				bk.x += 1000;
			cbegin(l, "ride_by");
			refd_mpw_kint(l->c, "model", m->id);
			refd_mpw_karray(l->c, "path");
			refd_mpw_array(l->c);
			refd_mpw_int(l->c, st.x);
			refd_mpw_int(l->c, st.y);
			refd_mpw_end(l->c);
			refd_mpw_array(l->c);
			refd_mpw_int(l->c, bk.x);
			refd_mpw_int(l->c, bk.y);
			refd_mpw_end(l->c);
			refd_mpw_end(l->c);
			refd_mpw_kint(l->c, "stop", 1);
			refd_mpw_kint(l->c, "weapon", best_melee_idx(g, m));
			refd_mpw_kint(l->c, "target", t->id);
			snprintf(lab, sizeof(lab), "%s #%d: ride by %s #%d",
			    mname(g, m), m->id, mname(g, t), t->id);
			cend_raw(l, lab);
		}
	}
	if (p->feat >= 0) {
		cbegin(l, "feat");
		refd_mpw_kint(l->c, "model", m->id);
		snprintf(lab, sizeof(lab), "%s #%d: use its feat", mname(g, m),
		    m->id);
		cend_raw(l, lab);
	}
	if (m->marked > 0) {
		cbegin(l, "heal");
		refd_mpw_kint(l->c, "model", m->id);
		refd_mpw_kint(l->c, "n", 1);
		snprintf(lab, sizeof(lab), "%s #%d: heal 1 damage for 1 focus",
		    mname(g, m), m->id);
		cend_raw(l, lab);
	}
}

static void
simple(struct lw *l, const char *type, const char *k, int64_t v,
    const char *label)
{
	cbegin(l, type);
	if (k != NULL)
		refd_mpw_kint(l->c, k, v);
	cend_raw(l, label);
}

static void
pair(struct lw *l, const char *type, int64_t unit, int64_t model,
    const char *label)
{
	cbegin(l, type);
	refd_mpw_kint(l->c, "unit", unit);
	refd_mpw_kint(l->c, "model", model);
	cend_raw(l, label);
}

int
mb_legal(struct g *g, uint32_t seat, refd_mpw *out)
{
	struct lw l;
	int i, j;
	char lab[160];

	memset(&l, 0, sizeof(l));
	l.g = g;
	l.seat = seat;
	l.out = out;
	if (S->phase == PH_ARMY) {
		if (seat > 1 || S->army[seat])
			return 0;
		for (i = 0; i < g->c->na; i++) {
			cbegin(&l, "submit_army");
			refd_mpw_kstr(l.c, "army", g->c->a[i].key);
			snprintf(lab, sizeof(lab), "field the army list '%s'",
			    g->c->a[i].key);
			cend_raw(&l, lab);
		}
		return l.n;
	}
	if (S->phase == PH_OVER || (int)seat != mb_pending_seat(S))
		return 0;
	if (S->npr > 0) {
		const struct prompt *p = &S->pr[0];
		const struct unit *u = p->unit >= 0 ? &S->u[p->unit] : NULL;

		switch (p->kind) {
		case P_FIRST:
			simple(&l, "choose_first", "first", seat, "go first");
			simple(&l, "choose_first", "first", 1 - seat,
			    "go second");
			break;
		case P_PROMOTE:
		case P_DESIGNATE:
		case P_SBREP:
			for (i = 0; i < S->nm; i++) {
				const struct model *m = &S->m[i];

				if (!m->alive || m->unit != p->unit)
					continue;
				snprintf(lab, sizeof(lab), "%s %s #%d",
				    p->kind == P_PROMOTE ? "promote" :
				    p->kind == P_DESIGNATE ? "make commander" :
				    "give the standard to", mname(g, m), m->id);
				pair(&l, p->kind == P_PROMOTE ? "promote" :
				    p->kind == P_DESIGNATE ? "designate" :
				    "sb_replace", u->id, m->id, lab);
			}
			if (p->kind == P_SBREP)
				pair(&l, "sb_replace", u->id, 0,
				    "let the standard fall");
			break;
		case P_REROLL:
			simple(&l, "reroll", "yes", 1, "reroll the failed "
			    "check (standard bearer)");
			simple(&l, "reroll", "yes", 0, "keep the failed check");
			break;
		case P_FREESTRIKE:
			snprintf(lab, sizeof(lab), "%s #%d: free strike on "
			    "%s #%d", mname(g, &S->m[p->model]),
			    S->m[p->model].id, mname(g, &S->m[p->a]),
			    S->m[p->a].id);
			simple(&l, "free_strike", "yes", 1, lab);
			simple(&l, "free_strike", "yes", 0, "no free strike");
			break;
		case P_CMDER:
			simple(&l, "use_commander", "model", 0, "use the model's "
			    "own CMD");
			for (i = 0; i < S->nm; i++)
				if (S->m[i].alive && S->m[i].side == p->seat &&
				    prof(g, &S->m[i])->commander) {
					snprintf(lab, sizeof(lab), "use the CMD of "
					    "%s #%d", mname(g, &S->m[i]),
					    S->m[i].id);
					simple(&l, "use_commander", "model",
					    S->m[i].id, lab);
				}
			break;
		case P_DAMAGE:
			simple(&l, "damage", "boost", 1, "boost the damage roll "
			    "(1 focus)");
			simple(&l, "damage", "boost", 0, "roll damage");
			break;
		}
		return l.n;
	}
	switch (S->phase) {
	case PH_CP_ALLOC:
		for (i = 0; i < S->nm; i++)
			for (j = 0; j < S->nm; j++) {
				if (S->m[j].bg != i || i == j || !S->m[j].alive)
					continue;
				cbegin(&l, "allocate");
				refd_mpw_kint(l.c, "caster", S->m[i].id);
				refd_mpw_kint(l.c, "jack", S->m[j].id);
				refd_mpw_kint(l.c, "n", 1);
				snprintf(lab, sizeof(lab), "allocate 1 focus "
				    "from #%d to #%d", S->m[i].id, S->m[j].id);
				cend_raw(&l, lab);
			}
		simple(&l, "end_phase", NULL, 0, "end allocation");
		break;
	case PH_CP_UPKEEP:
		for (i = 0; i < MAXINST; i++) {
			const struct inst *in = &S->in[i];
			int k;

			if (!in->on || !in->upkeep || in->kept)
				continue;
			for (k = 0; k < 2; k++) {
				cbegin(&l, "upkeep");
				refd_mpw_kint(l.c, "caster", S->m[in->caster].id);
				refd_mpw_kstr(l.c, "spell",
				    g->c->sp[in->spell].key);
				refd_mpw_kint(l.c, "keep", k);
				snprintf(lab, sizeof(lab), "%s %s",
				    k ? "keep" : "drop", g->c->sp[in->spell].name);
				cend_raw(&l, lab);
			}
		}
		simple(&l, "end_phase", NULL, 0, "end upkeep");
		break;
	case PH_CP_SHAKE:
		for (i = 0; i < S->nm; i++) {
			int k;

			for (k = 0; k < 2; k++) {
				cbegin(&l, "shake");
				refd_mpw_kint(l.c, "model", S->m[i].id);
				refd_mpw_kstr(l.c, "what", k ? "stationary" :
				    "kd");
				snprintf(lab, sizeof(lab), "#%d shakes %s",
				    S->m[i].id, k ? "stationary" :
				    "knockdown");
				cend_raw(&l, lab);
			}
		}
		simple(&l, "end_phase", NULL, 0, "end the Control Phase");
		break;
	case PH_ACT:
		if (S->cur < 0) {
			for (i = 0; i < S->nu; i++) {
				snprintf(lab, sizeof(lab), "activate unit %d",
				    S->u[i].id);
				simple(&l, "activate", "unit", S->u[i].id, lab);
			}
			simple(&l, "end_turn", NULL, 0, "end the turn");
			break;
		}
		{
			const struct unit *u = &S->u[S->cur];
			static const char *const std[] = { "none", "run",
				"charge", "ride_by" };

			for (i = 0; i < 4; i++) {
				cbegin(&l, "order");
				refd_mpw_kint(l.c, "unit", u->id);
				refd_mpw_kstr(l.c, "order", std[i]);
				snprintf(lab, sizeof(lab), "order: %s", std[i]);
				cend_raw(&l, lab);
			}
			for (i = 0; i < u->norders; i++) {
				cbegin(&l, "order");
				refd_mpw_kint(l.c, "unit", u->id);
				refd_mpw_kstr(l.c, "order",
				    g->c->o[u->orders[i]].key);
				snprintf(lab, sizeof(lab), "order: %s",
				    g->c->o[u->orders[i]].key);
				cend_raw(&l, lab);
			}
		}
		for (i = 0; i < S->nm; i++) {
			const struct model *m = &S->m[i];

			if (!m->alive || m->unit != S->cur)
				continue;
			moves(&l, m);
			actions(&l, m);
			if (S->u[S->cur].uc >= 0 && i != S->u[S->cur].uc) {
				cbegin(&l, "measure");
				refd_mpw_kint(l.c, "from",
				    S->m[S->u[S->cur].uc].id);
				refd_mpw_kint(l.c, "to", m->id);
				snprintf(lab, sizeof(lab), "measure from the "
				    "commander to #%d", m->id);
				cend_raw(&l, lab);
			}
		}
		simple(&l, "end_activation", NULL, 0, "end the activation");
		break;
	default:
		break;
	}
	return l.n;
}
