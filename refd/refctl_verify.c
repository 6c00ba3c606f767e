/*
 * refctl_verify.c - refctl verify and replay: offline log checks, no
 * daemon needed.  The log format is in refd-evlog(5).
 *
 * verify: framing, hash chain, record numbering and seq, signatures
 * (against the key in the header, and --pubkey when given), the revealed
 * server seed against its commitment, every hidden-zone opening against
 * its commitment, then a replay of the whole match through the plugin
 * comparing every draw, event, commitment and state hash.  Exit 0 when
 * all hold, 1 on the first failure (named: record, seq, field, expected,
 * found), 2 for an intact log of an unfinished match (its dice cannot be
 * checked before the server seed is revealed).
 */
#include <sys/stat.h>

#include <ctype.h>
#include <dirent.h>
#include <sys/wait.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <jansson.h>
#include <sodium.h>

#include "refd/mp.h"
#include "evlog.h"
#include "jsonmp.h"
#include "paths.h"
#include "refctl.h"


/* The exit-code contract, the same in refctl(1) and refd-evlog(5). */
#define VX_OK		0	/* verified and finished */
#define VX_BAD		1	/* tampered, diverging or refused by a policy */
#define VX_USAGE	2
#define VX_INCOMPLETE	3	/* unfinished, or cut short */
#define VX_ENV		4	/* plugin, content, key or file missing */

/* A head (refctl head, refd-evlog(5) Heads): a record count the daemon
 * signed for a match. */
struct head {
	char match[17];
	uint64_t records, seq;
	uint8_t hash[EVLOG_HASH_LEN], sig[EVLOG_SIG_LEN];
	const char *file;
};

struct vctx {
	const char *logpath;
	int allow_scripted;
	const char *req_plugin;	/* NAME=VERSION[:HASH] */
	const char *plugin_path;
	const char *content_dir;
	int have_pk;
	uint8_t pk[EVLOG_PK_LEN];
	int quiet;
	int json;		/* one JSON object per log, nothing else */
	int batch;		/* more than one log: name it in the verdict */
	FILE *views;		/* --views: the spectators' view per record */
	FILE *story;		/* replay: the match in words */
	json_t *names;		/* story: piece id -> name, from the views */
	int require_finished;	/* --require-finished */
	struct head *heads;	/* --head FILE: heads the daemon signed */
	size_t nheads;
	const char *keyring;	/* --keyring FILE: the accepted daemon keys */
	uint8_t (*keys)[EVLOG_PK_LEN];
	size_t nkeys;
	char why[1024];		/* the first failure, or why incomplete */

	struct evlog_scan s;
	struct evlog_rec *r;	/* decoded records, s.n of them */
	size_t nr;
	struct plugin *pl;
	struct game *g;
	struct call c;
	int final_seen;
	size_t nsig, ncmd, ndraws, nevents, ncommits;
};

/* The verdict line: "VERIFIED", prefixed with the log in a batch. */
static void
verdict(struct vctx *v, const char *text)
{
	if (v->json)
		return;
	if (v->batch)
		printf("%s: ", v->logpath);
	printf("%s\n", text);
}

/* A failure: the reason on standard error (kept for --json), then the
 * verdict; returns code. */
static int
vreport(struct vctx *v, int code, const char *fmt, va_list ap)
{
	vsnprintf(v->why, sizeof(v->why), fmt, ap);
	if (code == VX_INCOMPLETE && v->require_finished) {
		size_t n = strlen(v->why);

		snprintf(v->why + n, sizeof(v->why) - n, "; --require-finished "
		    "refuses a log that is not finished");
		code = VX_BAD;
	}
	if (!v->json)
		fprintf(stderr, "refctl verify: log '%s': %s\n", v->logpath,
		    v->why);
	verdict(v, code == VX_BAD ? "FAILED" : code == VX_ENV ?
	    "NOT CHECKED" : "INCOMPLETE");
	return code;
}

static int __attribute__((format(printf, 2, 3)))
vfail(struct vctx *v, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vreport(v, VX_BAD, fmt, ap);
	va_end(ap);
	return rc;
}

/* A failure of the environment, not of the log: exit 4. */
static int __attribute__((format(printf, 2, 3)))
venv(struct vctx *v, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vreport(v, VX_ENV, fmt, ap);
	va_end(ap);
	return rc;
}

/* An incomplete log: unfinished or cut, exit 3. */
static int __attribute__((format(printf, 2, 3)))
vincomplete(struct vctx *v, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vreport(v, VX_INCOMPLETE, fmt, ap);
	va_end(ap);
	return rc;
}

static void __attribute__((format(printf, 2, 3)))
say(struct vctx *v, const char *fmt, ...)
{
	va_list ap;

	if (v->quiet)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static void
hex16(const uint8_t *b, char out[33])
{
	hex_encode(b, 16, out);
}

/* A record's name in messages: "record 7 (seq 6, cmd 'c3' of seat 1)". */
static void
recname(const struct evlog_rec *r, size_t pos, char *out, size_t n)
{
	switch (r->kind) {
	case EVK_CMD:
		snprintf(out, n, "record %zu (seq %" PRIu64 ", cmd '%.40s' of "
		    "seat %d)", pos, r->seq, r->cmd_id, (int)r->seat);
		break;
	case EVK_CHECKPOINT:
		snprintf(out, n, "record %zu (checkpoint at seq %" PRIu64 ")",
		    pos, r->at);
		break;
	case EVK_JOIN:
		snprintf(out, n, "record %zu (seq %" PRIu64 ", join of seat "
		    "%d)", pos, r->seq, (int)r->seat);
		break;
	default:
		snprintf(out, n, "record %zu (seq %" PRIu64 ", %s)", pos,
		    r->seq, evlog_kind_name(r->kind));
	}
}

static int
read_pubkey(const char *text, uint8_t pk[EVLOG_PK_LEN])
{
	char buf[160];
	size_t l;

	snprintf(buf, sizeof(buf), "%s", text);
	l = strlen(buf);
	while (l > 0 && (buf[l - 1] == '\n' || buf[l - 1] == '\r' ||
	    buf[l - 1] == ' ' || buf[l - 1] == '\t'))
		buf[--l] = '\0';
	return hex_decode(buf, pk, EVLOG_PK_LEN);
}

static int
read_pubkey_file(const char *path, uint8_t pk[EVLOG_PK_LEN])
{
	char buf[160];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (f == NULL)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	if (n == EVLOG_PK_LEN) {
		memcpy(pk, buf, EVLOG_PK_LEN);
		return 0;
	}
	buf[n] = '\0';
	return read_pubkey(buf, pk);
}

static int
is_file(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static int
is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Where the plugin and its content are, when not given: the build named
 * by REFD_BUILD, else refd's own defaults (paths.h). */
static void
find_plugin(const char *name, const char *given, char *out, size_t n)
{
	const char *b = getenv("REFD_BUILD");
	char pd[PATH_MAX], rd[PATH_MAX];

	if (given != NULL) {
		snprintf(out, n, "%s", given);
		return;
	}
	if (b != NULL) {
		snprintf(out, n, "%s/plugins/%s.so", b, name);
		if (is_file(out))
			return;
	}
	paths_default(pd, sizeof(pd), rd, sizeof(rd));
	snprintf(out, n, "%s/%s.so", pd, name);
}

/* The content beside the plugin (build tree: plugins/../rulesets;
 * installed: lib/refd/plugins/../../../share/refd/rulesets), else as
 * find_plugin. */
static void
find_content(const char *name, const char *plugin, const char *given,
    char *out, size_t n)
{
	const char *b = getenv("REFD_BUILD");
	char dir[PATH_MAX], pd[PATH_MAX], rd[PATH_MAX];
	char *s;

	if (given != NULL) {
		snprintf(out, n, "%s", given);
		return;
	}
	snprintf(dir, sizeof(dir), "%s", plugin);
	if ((s = strrchr(dir, '/')) != NULL) {
		*s = '\0';
		snprintf(out, n, "%s/../rulesets/%s", dir, name);
		if (is_dir(out))
			return;
		snprintf(out, n, "%s/../../../share/refd/rulesets/%s", dir,
		    name);
		if (is_dir(out))
			return;
	}
	if (b != NULL) {
		snprintf(out, n, "%s/rulesets/%s", b, name);
		if (is_dir(out))
			return;
	}
	paths_default(pd, sizeof(pd), rd, sizeof(rd));
	snprintf(out, n, "%s/%s", rd, name);
}

static void
vctx_release(struct vctx *v)
{
	size_t i;

	for (i = 0; i < v->nr; i++)
		evlog_rec_release(&v->r[i]);
	free(v->r);
	game_destroy(v->g);
	plugin_close(v->pl);
	call_release(&v->c);
	evlog_scan_release(&v->s);
}

/*
 * A torn tail that is one whole frame, length and all, whose hash fails:
 * its bytes were changed, the log was not cut.
 */
static int
whole_frame(const struct evlog_scan *s)
{
	const uint8_t *p = s->data + s->good_end;
	size_t left = s->size - s->good_end;
	uint32_t n;

	if (left < EVLOG_FRAME_HEAD)
		return 0;
	n = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
	return (size_t)n + EVLOG_FRAME_OVERHEAD == left;
}

/* Framing and decoding of every record. */
/*
 * The heads given for this log's match: each signed by the log's key, and
 * covered by the log's nwhole whole records, the last covered one hashing
 * as the head says.  0, or a failure.
 */
static int
check_heads(struct vctx *v, const struct evlog_rec *h, size_t nwhole)
{
	char a[33], b[33];
	size_t i;

	for (i = 0; i < v->nheads; i++) {
		const struct head *hd = &v->heads[i];

		if (strcmp(hd->match, h->match) != 0)
			continue;
		if (evlog_head_check(h->pubkey, hd->match, hd->records,
		    hd->seq, hd->hash, hd->sig) != 0)
			return vfail(v, "head '%s': the signature is not the "
			    "log's daemon's (another key, or a changed head)",
			    hd->file);
		if (hd->records > nwhole)
			return vfail(v, "cut: the log ends after record %zu, but "
			    "the daemon signed a head at record %" PRIu64
			    " (seq %" PRIu64 ", '%s'): records after record %zu "
			    "were removed", nwhole - 1, hd->records - 1, hd->seq,
			    hd->file, nwhole - 1);
		if (hd->records > 0 && memcmp(v->s.fr[hd->records - 1].hash,
		    hd->hash, EVLOG_HASH_LEN) != 0) {
			hex16(hd->hash, a);
			hex16(v->s.fr[hd->records - 1].hash, b);
			return vfail(v, "record %" PRIu64 ": hash: the head '%s' "
			    "signed by the daemon has %s..., the log has %s...; "
			    "the log was rewritten after the head", hd->records -
			    1, hd->file, a, b);
		}
		say(v, "head: the log covers the head the daemon signed at "
		    "record %" PRIu64 " (seq %" PRIu64 ")", hd->records - 1,
		    hd->seq);
	}
	return 0;
}

static int
load(struct vctx *v)
{
	char err[512];
	size_t i;
	int rc;

	if (access(v->logpath, R_OK) != 0)
		return venv(v, "cannot read: %s", strerror(errno));
	rc = evlog_scan_file(v->logpath, &v->s, err, sizeof(err));
	if (rc != REFD_OK)
		return vfail(v, "%s", err);
	if (v->s.tail == EVLOG_TORN && whole_frame(&v->s))
		return vfail(v, "%s", v->s.why);
	if (v->s.tail == EVLOG_TORN && v->nheads > 0 && v->s.n > 0) {
		struct evlog_rec h0;

		if (evlog_decode(v->s.fr[0].p, v->s.fr[0].len, &h0, err,
		    sizeof(err)) == 0 && h0.kind == EVK_HEADER) {
			rc = check_heads(v, &h0, v->s.n);
			evlog_rec_release(&h0);
			if (rc != 0)
				return rc;
		} else {
			evlog_rec_release(&h0);
		}
	}
	if (v->s.tail == EVLOG_TORN)
		return vincomplete(v, "cut short after record %zu: %s (%zu "
		    "bytes after it are not a whole record)", v->s.n > 0 ?
		    v->s.n - 1 : 0, v->s.why, v->s.size - v->s.good_end);
	if (v->s.tail == EVLOG_DAMAGED)
		return vfail(v, "%s", v->s.why);
	if (v->s.n == 0)
		return vfail(v, "no records: not even a header");
	v->r = calloc(v->s.n, sizeof(*v->r));
	if (v->r == NULL)
		return vfail(v, "out of memory");
	for (i = 0; i < v->s.n; i++) {
		if (evlog_decode(v->s.fr[i].p, v->s.fr[i].len, &v->r[i], err,
		    sizeof(err)) != 0) {
			v->nr = i + 1;
			return vfail(v, "record %zu at offset %" PRIu64 ": %s",
			    i, v->s.fr[i].off, err);
		}
		v->nr = i + 1;
	}
	return 0;
}

/* Why the chain breaks at position i: missing or reordered records. */
static void
chain_diag(struct vctx *v, size_t i, char *out, size_t n)
{
	uint64_t want = i, got = v->r[i].n;
	size_t j;

	if (got > want) {
		for (j = i + 1; j < v->nr; j++) {
			if (v->r[j].n == want) {
				snprintf(out, n, "records are out of order "
				    "(record %" PRIu64 " is at position %zu)",
				    want, j);
				return;
			}
		}
		if (got == want + 1)
			snprintf(out, n, "record %" PRIu64 " is missing", want);
		else
			snprintf(out, n, "records %" PRIu64 " to %" PRIu64
			    " are missing", want, got - 1);
		return;
	}
	if (got < want) {
		snprintf(out, n, "records are out of order or repeated "
		    "(record %" PRIu64 " appears at position %zu)", got, i);
		return;
	}
	snprintf(out, n, "a record before it was changed or replaced");
}

/* Pass 1: numbering, chain, seq and the order of kinds. */
static int
structure(struct vctx *v, uint64_t *lastseq)
{
	const struct evlog_rec *h = &v->r[0];
	char name[160], err[512], a[33], b[33];
	uint32_t joined = 0;
	uint64_t seq = 0;
	int started = 0, final = 0;
	uint8_t taken[REFD_MAX_SEATS];
	size_t i;

	memset(taken, 0, sizeof(taken));
	for (i = 1; i < v->nr; i++) {
		const struct evlog_rec *r = &v->r[i];

		recname(r, i, name, sizeof(name));
		if (r->n != i || memcmp(r->prev, v->s.fr[i - 1].hash,
		    EVLOG_HASH_LEN) != 0) {
			hex16(v->s.fr[i - 1].hash, a);
			hex16(r->prev, b);
			chain_diag(v, i, err, sizeof(err));
			return vfail(v, "%s at offset %" PRIu64 ": chain: prev: "
			    "expected %s... (hash of record %zu), found %s...; "
			    "%s", name, v->s.fr[i].off, a, i - 1, b, err);
		}
		if (final)
			return vfail(v, "%s: found after the final record", name);
		if (r->kind != EVK_CHECKPOINT && r->seq != seq + 1)
			return vfail(v, "%s: seq: expected %" PRIu64 ", found %"
			    PRIu64, name, seq + 1, r->seq);
		switch (r->kind) {
		case EVK_HEADER:
			return vfail(v, "%s: a second header", name);
		case EVK_JOIN:
			if (started || r->seat < 0 ||
			    (uint32_t)r->seat >= h->nseats || taken[r->seat])
				return vfail(v, "%s: seat: a join of seat %d is "
				    "not possible here", name, (int)r->seat);
			taken[r->seat] = 1;
			joined++;
			break;
		case EVK_START:
			if (joined != h->nseats || started)
				return vfail(v, "%s: start: expected only after "
				    "all %u seats joined (%u did)", name,
				    h->nseats, joined);
			started = 1;
			break;
		case EVK_CMD:
			if (!started)
				return vfail(v, "%s: a command before the start",
				    name);
			if ((uint32_t)r->seat >= h->nseats)
				return vfail(v, "%s: seat: no seat %d", name,
				    (int)r->seat);
			v->ncmd++;
			break;
		case EVK_CHECKPOINT:
			if (r->at != seq)
				return vfail(v, "%s: at: expected %" PRIu64
				    ", found %" PRIu64, name, seq, r->at);
			break;
		case EVK_FINAL:
			final = 1;
			break;
		}
		if (r->kind != EVK_CHECKPOINT)
			seq++;
		v->ncommits += r->ncm;
	}
	*lastseq = seq;
	return 0;
}

/* Every opening in the final record against its commitment, in order. */
static int
openings(struct vctx *v, const struct evlog_rec *fin)
{
	char name[160], a[33], b[33];
	uint8_t ck[EVLOG_HASH_LEN];
	size_t i, k, cmi = 0;

	recname(fin, v->nr - 1, name, sizeof(name));
	if (v->ncommits != fin->nopen)
		return vfail(v, "%s: openings: expected %zu (one per "
		    "commitment), found %zu", name, v->ncommits, fin->nopen);
	for (i = 1; i < v->nr; i++) {
		const struct evlog_rec *r = &v->r[i];

		for (k = 0; k < r->ncm; k++, cmi++) {
			const struct evlog_commit *o = &fin->open[cmi];

			if (strcmp(o->zone, r->cm[k].zone) != 0 ||
			    o->seat != r->cm[k].seat)
				return vfail(v, "%s: opening %zu: zone: expected "
				    "'%s' (seat %d), found '%s' (seat %d)", name,
				    cmi, r->cm[k].zone, (int)r->cm[k].seat,
				    o->zone, (int)o->seat);
			evlog_commit_hash(o->salt, o->saltlen, o->data, o->len,
			    ck);
			if (memcmp(ck, r->cm[k].hash, EVLOG_HASH_LEN) != 0) {
				hex16(r->cm[k].hash, a);
				hex16(ck, b);
				return vfail(v, "%s: opening %zu ('%s', committed "
				    "in record %zu): hash of salt and data: "
				    "expected %s..., found %s...", name, cmi,
				    o->zone, i, a, b);
			}
		}
	}
	return 0;
}

/* --views: one JSON line {record, seq, view} of the spectators' view. */
static void
write_view(struct vctx *v, size_t rec, uint64_t seq)
{
	char *j = NULL;

	call_reset(&v->c);
	if (game_view(v->g, -1, &v->c) == REFD_OK)
		j = mp_bytes_to_json_text(v->c.out.data, v->c.out.len, 0);
	fprintf(v->views, "{\"record\":%zu,\"seq\":%" PRIu64 ",\"view\":%s}\n",
	    rec, seq, j != NULL ? j : "null");
	free(j);
}


/* ---- refctl replay: the match in words ---- */

static const char *const ref_keys[] = { "unit", "model", "fig", "attacker",
	"target", "caster", "actor", "defender", "mover", "victim", "source",
	"by", "leader", "commander", "charger", "shooter", NULL };

static int
is_ref_key(const char *k)
{
	size_t i;

	for (i = 0; ref_keys[i] != NULL; i++)
		if (strcmp(k, ref_keys[i]) == 0)
			return 1;
	return 0;
}

/* One value in words: a piece's name for its id, yes/no, (x, y). */
static void
say_value(FILE *o, const char *k, json_t *v, json_t *names)
{
	size_t i;

	if (json_is_integer(v) && k != NULL && is_ref_key(k)) {
		char id[32];
		json_t *n;

		snprintf(id, sizeof(id), "%" JSON_INTEGER_FORMAT,
		    json_integer_value(v));
		n = json_object_get(names, id);
		if (json_is_string(n)) {
			fputs(json_string_value(n), o);
			return;
		}
	}
	if (json_is_boolean(v)) {
		fputs(json_is_true(v) ? "yes" : "no", o);
	} else if (json_is_string(v)) {
		fputs(json_string_value(v), o);
	} else if (json_is_array(v) && json_array_size(v) == 2 &&
	    json_is_integer(json_array_get(v, 0)) &&
	    json_is_integer(json_array_get(v, 1)) && k != NULL &&
	    (strcmp(k, "at") == 0 || strcmp(k, "to") == 0 ||
	    strcmp(k, "from") == 0)) {
		fprintf(o, "(%" JSON_INTEGER_FORMAT ", %" JSON_INTEGER_FORMAT
		    ")", json_integer_value(json_array_get(v, 0)),
		    json_integer_value(json_array_get(v, 1)));
	} else if (json_is_array(v)) {
		if (json_array_size(v) == 0)
			fputs("none", o);
		for (i = 0; i < json_array_size(v); i++) {
			if (i > 0)
				fputs(k != NULL && strcmp(k, "dice") == 0 ?
				    " + " : ", ", o);
			say_value(o, k, json_array_get(v, i), names);
		}
	} else {
		char *t = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);

		fputs(t != NULL ? t : "?", o);
		free(t);
	}
}

/* A map in words: "Attack: attacker Ogre, target Fighter, hit yes". */
static void
say_map(FILE *o, json_t *m, json_t *names)
{
	const char *k, *type;
	json_t *v;
	int first = 1;

	type = json_string_value(json_object_get(m, "type"));
	if (type != NULL) {
		const char *c;

		fputc(toupper((unsigned char)type[0]), o);
		for (c = type + 1; *c; c++)
			fputc(*c == '_' ? ' ' : *c, o);
	}
	json_object_foreach(m, k, v) {
		if (strcmp(k, "type") == 0 || strcmp(k, "seq") == 0 ||
		    strcmp(k, "i") == 0 || strcmp(k, "n") == 0)
			continue;
		fputs(first ? (type != NULL ? ": " : "") : ", ", o);
		first = 0;
		if (strcmp(k, "seat") == 0 && json_is_integer(v)) {
			fprintf(o, "seat %" JSON_INTEGER_FORMAT,
			    json_integer_value(v));
			continue;
		}
		fputs(k, o);
		fputc(' ', o);
		say_value(o, k, v, names);
	}
}

static json_t *
mp_json(const uint8_t *b, size_t n)
{
	char *t = mp_bytes_to_json_text(b, n, JSON_COMPACT);
	json_t *j = t != NULL ? json_loads(t, JSON_DECODE_ANY, NULL) : NULL;

	free(t);
	return j;
}

/* After record r: the spectators' view's names and round, then r told. */
static void
tell(struct vctx *v, const struct evlog_rec *r)
{
	FILE *o = v->story;
	json_t *view = NULL, *pieces, *round = NULL, *x;
	size_t i, npriv = 0;

	call_reset(&v->c);
	if (game_view(v->g, -1, &v->c) == REFD_OK)
		view = mp_json(v->c.out.data, v->c.out.len);
	pieces = json_object_get(json_object_get(view, "board"), "pieces");
	for (i = 0; i < json_array_size(pieces); i++) {
		json_t *p = json_array_get(pieces, i), *id, *nm;
		char k[32];

		id = json_object_get(p, "id");
		nm = json_object_get(p, "name");
		if (json_is_integer(id) && json_is_string(nm)) {
			snprintf(k, sizeof(k), "%" JSON_INTEGER_FORMAT,
			    json_integer_value(id));
			json_object_set(v->names, k, nm);
		}
	}
	round = json_object_get(json_object_get(json_object_get(view,
	    "board"), "info"), "round");
	if (round == NULL)
		round = json_object_get(view, "round");
	if (json_is_integer(round))
		fprintf(o, "[round %" JSON_INTEGER_FORMAT "] ",
		    json_integer_value(round));
	if (r->kind == EVK_START) {
		fprintf(o, "seq %" PRIu64 ": the match starts\n", r->seq);
	} else {
		x = mp_json(r->cmd, r->cmd_len);
		fprintf(o, "seq %" PRIu64 ": seat %d: ", r->seq, (int)r->seat);
		if (json_is_object(x))
			say_map(o, x, v->names);
		else
			fputs("(a command that is not a map)", o);
		fputc('\n', o);
		json_decref(x);
	}
	if (r->ndr > 0) {
		fputs("    dice:", o);
		for (i = 0; i < r->ndr; i++) {
			if (r->dr[i].kind == DRAW_ROLL)
				fprintf(o, "%s d%u -> %u", i ? "," : "",
				    r->dr[i].bound, r->dr[i].value);
			else
				fprintf(o, "%s a draw below %u -> %u", i ? "," :
				    "", r->dr[i].bound, r->dr[i].value);
			if (r->dr[i].why[0])
				fprintf(o, " (%s)", r->dr[i].why);
		}
		fputc('\n', o);
	}
	for (i = 0; i < r->nev; i++) {
		if (r->ev[i].seat != REFD_SEAT_PUBLIC) {
			npriv++;
			continue;
		}
		x = mp_json(r->ev[i].bytes, r->ev[i].len);
		fputs("    ", o);
		if (json_is_object(x))
			say_map(o, x, v->names);
		fputc('\n', o);
		json_decref(x);
	}
	if (npriv > 0)
		fprintf(o, "    (%zu private event%s)\n", npriv,
		    npriv > 1 ? "s" : "");
	json_decref(view);
}

/* Pass 2, in record order: signatures and the replay. */
static int
replay_pass(struct vctx *v, const uint8_t *seed, int replay)
{
	const struct evlog_rec *h = &v->r[0];
	const uint8_t *share[REFD_MAX_SEATS] = { NULL };
	size_t share_len[REFD_MAX_SEATS] = { 0 }, i;
	char name[160], err[1024];
	int rc;

	for (i = 0; i < v->nr; i++) {
		const struct evlog_rec *r = &v->r[i];
		uint8_t sh[EVLOG_HASH_LEN];

		recname(r, i, name, sizeof(name));
		if (r->has_sig) {
			if (evlog_sig_check(h->pubkey, v->s.fr[i].p,
			    v->s.fr[i].len) != 0)
				return vfail(v, "%s: signature: invalid for the "
				    "key in the header; the record, or one "
				    "before it, was changed after signing", name);
			v->nsig++;
		}
		if (r->kind == EVK_JOIN) {
			share[r->seat] = r->share != NULL ? r->share :
			    (const uint8_t *)"";
			share_len[r->seat] = r->share_len;
		}
		if (!replay || (r->kind != EVK_START && r->kind != EVK_CMD))
			continue;
		if (r->kind == EVK_START) {
			struct rng rg;
			uint8_t ms[32];

			evlog_match_seed(seed, share, share_len, h->nseats, ms);
			if (h->scripted) {
				if (rng_init_script(&rg, h->dice, h->ndice) != 0)
					return vfail(v, "out of memory");
				memcpy(rg.key, ms, 32);
			} else {
				rng_init_seed(&rg, ms);
			}
			rc = game_create(v->pl, h->setup, h->setup_len,
			    h->nseats, &rg, 0, &v->g, &v->c);
			rng_release(&rg);
			if (rc != REFD_OK)
				return vfail(v, "%s: replay diverges: the log has "
				    "the game created, the replay's create "
				    "fails: %s", name, v->c.fault[0] ?
				    v->c.fault : v->c.reject_msg);
		} else {
			rc = game_apply(v->g, (uint32_t)r->seat, r->cmd,
			    r->cmd_len, &v->c);
			if (rc != REFD_OK)
				return vfail(v, "%s: replay diverges: the log has "
				    "the command accepted, the replay rejects "
				    "it: %s%s%s", name, v->c.fault[0] ?
				    v->c.fault : v->c.reject_msg,
				    v->c.reject_rule[0] ? " at " : "",
				    v->c.reject_rule);
		}
		if (game_state_hash(v->g, sh) != REFD_OK)
			return vfail(v, "%s: replay: the plugin cannot "
			    "serialize its state", name);
		if (evlog_compare(r, &v->c, sh, err, sizeof(err)) != 0)
			return vfail(v, "%s: replay diverges: %s", name, err);
		if (v->views != NULL)
			write_view(v, i, r->seq);
		if (v->story != NULL)
			tell(v, r);
		v->ndraws += r->ndr;
		v->nevents += r->nev;
	}
	return 0;
}

/* --require-plugin NAME=VERSION[:HASH] against the header. */
static int
plugin_policy(struct vctx *v, const struct evlog_rec *h)
{
	char want[256], hash[2 * EVLOG_HASH_LEN + 1], *ver, *hx;

	if (v->req_plugin == NULL)
		return 0;
	snprintf(want, sizeof(want), "%s", v->req_plugin);
	if ((ver = strchr(want, '=')) == NULL)
		return vfail(v, "--require-plugin '%s': expected "
		    "NAME=VERSION[:HASH]", v->req_plugin);
	*ver++ = '\0';
	if ((hx = strchr(ver, ':')) != NULL)
		*hx++ = '\0';
	hex_encode(h->plugin_hash, EVLOG_HASH_LEN, hash);
	if (strcmp(want, h->ruleset) != 0 || strcmp(ver,
	    h->ruleset_version) != 0)
		return vfail(v, "record 0 (header): plugin: required %s %s, "
		    "the log was played with %s %s", want, ver, h->ruleset,
		    h->ruleset_version);
	if (hx != NULL && (strlen(hx) < 8 || strncasecmp(hx, hash,
	    strlen(hx)) != 0))
		return vfail(v, "record 0 (header): plugin build: required "
		    "hash %s, the log was played with build %s", hx, hash);
	return 0;
}


/*
 * The final record's end reason, result and end event against what the
 * replay gives: a game over ends with "result" and the plugin's result,
 * a game not over only by resign, abort or limit with refd's own map.
 */
static int
final_check(struct vctx *v, const struct evlog_rec *fin)
{
	const struct evlog_rec *h = &v->r[0];
	char name[160], why[16], reason[256], *a = NULL, *b = NULL;
	struct call c;
	struct buf want;
	refd_mpw *ev = NULL;
	int rc, over = 0, bad = 0;

	recname(fin, v->nr - 1, name, sizeof(name));
	call_init(&c);
	buf_init(&want);
	snprintf(reason, sizeof(reason), "%s", fin->reason);
	if (v->g != NULL) {
		rc = game_result(v->g, &c);
		if (rc < 0) {
			bad = vfail(v, "%s: replay: the plugin's result fails: "
			    "%s", name, c.fault[0] ? c.fault : c.reject_msg);
			goto out;
		}
		over = rc == 1;
	}
	if (over) {
		snprintf(why, sizeof(why), "result");
		if (c.out.len == 0 || refd_mp_check(c.out.data, c.out.len,
		    0) != 0) {
			buf_reset(&c.out);
			buf_addstr(&c.out, "\x81\xa6reason\xa9game over");
		}
		buf_add(&want, c.out.data, c.out.len);
	} else if (strcmp(fin->why, "result") == 0) {
		bad = vfail(v, "%s: why: the log says 'result', the replay "
		    "says the game is not over", name);
		goto out;
	} else {
		snprintf(why, sizeof(why), "%s", fin->why);
		if (strcmp(why, "resign") == 0) {
			if (fin->seat < 0 || (uint32_t)fin->seat >= h->nseats) {
				bad = vfail(v, "%s: seat: no seat %d resigns",
				    name, (int)fin->seat);
				goto out;
			}
			snprintf(reason, sizeof(reason), "seat %d resigned",
			    (int)fin->seat);
		} else if (strcmp(why, "limit") == 0) {
			snprintf(reason, sizeof(reason), "the log reached "
			    "max-log-bytes");
		} else if (strcmp(why, "abort") != 0) {
			bad = vfail(v, "%s: why: '%s' is no end reason", name,
			    why);
			goto out;
		}
		if (evlog_host_result(h->nseats, v->g != NULL, strcmp(why,
		    "resign") == 0 ? fin->seat : -1, reason, &want) != 0) {
			bad = vfail(v, "out of memory");
			goto out;
		}
		if (strcmp(why, "resign") == 0)
			reason[0] = '\0';
	}
	if (strcmp(why, fin->why) != 0) {
		bad = vfail(v, "%s: why: the log says '%s', the replay says "
		    "'%s' (the game is over after the last command)", name,
		    fin->why, why);
		goto out;
	}
	if (want.len != fin->result_len || memcmp(want.data, fin->result,
	    want.len) != 0) {
		a = mp_bytes_to_json_text(fin->result, fin->result_len,
		    JSON_COMPACT);
		b = mp_bytes_to_json_text(want.data, want.len, JSON_COMPACT);
		bad = vfail(v, "%s: result: the log says %s, the replay says "
		    "%s", name, a != NULL ? a : "(malformed)", b != NULL ? b :
		    "?");
		goto out;
	}
	if ((ev = refd_mpw_create()) == NULL) {
		bad = vfail(v, "out of memory");
		goto out;
	}
	evlog_end_event(ev, why, fin->seat, reason, want.data, want.len);
	if (fin->nev != 1 || fin->ev[0].seat != REFD_SEAT_PUBLIC ||
	    fin->ev[0].len != refd_mpw_len(ev) || memcmp(fin->ev[0].bytes,
	    refd_mpw_data(ev), fin->ev[0].len) != 0) {
		a = fin->nev > 0 ? mp_bytes_to_json_text(fin->ev[0].bytes,
		    fin->ev[0].len, JSON_COMPACT) : NULL;
		b = mp_bytes_to_json_text(refd_mpw_data(ev), refd_mpw_len(ev),
		    JSON_COMPACT);
		bad = vfail(v, "%s: end event: the log says %s, the replay "
		    "says %s", name, a != NULL ? a : "(none)", b != NULL ? b :
		    "?");
	}
out:
	free(a);
	free(b);
	refd_mpw_destroy(ev);
	buf_release(&want);
	call_release(&c);
	return bad;
}

static int
verify(struct vctx *v)
{
	struct evlog_rec *h, *fin = NULL;
	static const uint8_t zero[EVLOG_HASH_LEN];
	uint8_t seed[EVLOG_SEED_LEN], ck[EVLOG_HASH_LEN];
	char plugin[PATH_MAX], content[PATH_MAX], err[1024], a[65], b[65];
	char name[160];
	uint64_t seq = 0;
	int rc, mismatch = 0;

	if ((rc = load(v)) != 0)
		return rc;
	h = &v->r[0];
	if (h->kind != EVK_HEADER || h->n != 0 ||
	    memcmp(h->prev, zero, sizeof(zero)) != 0)
		return vfail(v, "record 0: expected the header record, found a "
		    "%s record", evlog_kind_name(h->kind));
	say(v, "log: %s", v->logpath);
	say(v, "match: %s, ruleset %s %s (ABI %u.%u), %u seats, %s, "
	    "written by refd %s", h->match, h->ruleset, h->ruleset_version,
	    h->abi_major, h->abi_minor, h->nseats, h->scripted ?
	    "SCRIPTED dice (not a ranked match)" : "ranked (fair dice)",
	    h->refd_version);
	say(v, "framing: %zu records, every frame hash holds", v->nr);
	if (structure(v, &seq) != 0)
		return 1;
	if (h->scripted && !v->allow_scripted)
		return vfail(v, "record 0 (header): the dice are scripted (set "
		    "by whoever created the match, not drawn fairly); give "
		    "--allow-scripted to accept such a log");
	if ((rc = plugin_policy(v, h)) != 0)
		return rc;
	say(v, "chain: intact from the header to record %zu", v->nr - 1);

	hex_encode(h->pubkey, EVLOG_PK_LEN, a);
	if (v->have_pk && memcmp(v->pk, h->pubkey, EVLOG_PK_LEN) != 0) {
		hex_encode(v->pk, EVLOG_PK_LEN, b);
		return vfail(v, "record 0 (header): pubkey: expected %s, found "
		    "%s; the log was not signed by the daemon whose key you "
		    "gave", b, a);
	}
	if (v->nheads > 0 && check_heads(v, h, v->nr) != 0)
		return 1;
	if (v->nkeys > 0) {
		size_t k;

		for (k = 0; k < v->nkeys; k++)
			if (memcmp(v->keys[k], h->pubkey, EVLOG_PK_LEN) == 0)
				break;
		if (k == v->nkeys)
			return vfail(v, "record 0 (header): pubkey: %s is not "
			    "one of the %zu keys of the keyring '%s'", a,
			    v->nkeys, v->keyring);
	}

	if (v->r[v->nr - 1].kind == EVK_FINAL)
		fin = &v->r[v->nr - 1];
	if (fin != NULL) {
		evlog_seed_commit(fin->server_seed, ck);
		if (memcmp(ck, h->commit, EVLOG_HASH_LEN) != 0) {
			hex_encode(h->commit, EVLOG_HASH_LEN, a);
			hex_encode(ck, EVLOG_HASH_LEN, b);
			recname(fin, v->nr - 1, name, sizeof(name));
			return vfail(v, "%s: server_seed: the revealed seed does "
			    "not match its commitment: expected a seed hashing "
			    "to %s (header), found one hashing to %s", name, a,
			    b);
		}
		memcpy(seed, fin->server_seed, sizeof(seed));
		say(v, "seed: the revealed server seed matches the commitment");
		if (openings(v, fin) != 0)
			return 1;
		say(v, "hidden zones: %zu commitments, every opening matches",
		    v->ncommits);

		find_plugin(h->ruleset, v->plugin_path, plugin, sizeof(plugin));
		find_content(h->ruleset, plugin, v->content_dir, content,
		    sizeof(content));
		if (!is_file(plugin))
			return venv(v, "cannot replay: plugin '%s' is missing; "
			    "give it with --plugin FILE.so", plugin);
		rc = plugin_open(plugin, &v->pl, err, sizeof(err));
		if (rc != REFD_OK)
			return venv(v, "cannot replay: %s; give the plugin "
			    "with --plugin FILE.so", err);
		if (strcmp(v->pl->name, h->ruleset) != 0)
			return venv(v, "cannot replay: plugin '%s' is ruleset "
			    "'%s', the log is of ruleset '%s'", plugin,
			    v->pl->name, h->ruleset);
		rc = plugin_load_content(v->pl, content, err, sizeof(err));
		if (rc != REFD_OK && !is_dir(content))
			return venv(v, "cannot replay: ruleset content "
			    "directory '%s' is missing; give it with --content "
			    "DIR", content);
		if (rc != REFD_OK)
			return venv(v, "cannot replay: ruleset content: %s; "
			    "give it with --content DIR", err);
		if (memcmp(v->pl->file_hash, h->plugin_hash,
		    EVLOG_HASH_LEN) != 0) {
			mismatch = 1;
			hex_encode(h->plugin_hash, EVLOG_HASH_LEN, a);
			hex_encode(v->pl->file_hash, EVLOG_HASH_LEN, b);
			say(v, "WARNING: plugin '%s': file hash: expected %s "
			    "(header), found %s; this is not the plugin build "
			    "the match was played with", plugin, a, b);
		} else {
			say(v, "plugin: %s (file hash matches the header)",
			    plugin);
		}
		if (memcmp(v->pl->content_hash, h->content_hash,
		    EVLOG_HASH_LEN) != 0) {
			mismatch = 1;
			hex_encode(h->content_hash, EVLOG_HASH_LEN, a);
			hex_encode(v->pl->content_hash, EVLOG_HASH_LEN, b);
			say(v, "WARNING: content '%s': hash: expected %s "
			    "(header), found %s; this is not the ruleset "
			    "content the match was played with", content, a, b);
		} else {
			say(v, "content: %s (hash matches the header)", content);
		}
	}
	if (replay_pass(v, seed, fin != NULL) != 0)
		return 1;
	if (fin != NULL && final_check(v, fin) != 0)
		return 1;
	hex_encode(h->pubkey, EVLOG_PK_LEN, a);
	say(v, "signatures: %zu valid for key %s%s", v->nsig, a,
	    v->have_pk ? " (the key you gave)" : "");
	if (!v->have_pk)
		say(v, "NOTE: give --pubkey to check that this key is your "
		    "daemon's");
	if (fin == NULL) {
		say(v, "UNFINISHED: no final record yet (at seq %" PRIu64 "); "
		    "the dice and the hidden zones cannot be verified before "
		    "the server seed is revealed in the final record", seq);
		if (v->require_finished)
			return vincomplete(v, "unfinished: no final record yet "
			    "(at seq %" PRIu64 ")", seq);
		snprintf(v->why, sizeof(v->why), "unfinished: no final record "
		    "yet (at seq %" PRIu64 ")", seq);
		verdict(v, "INCOMPLETE");
		return VX_INCOMPLETE;
	}
	say(v, "replay: %zu commands, %zu draws, %zu events; every draw, "
	    "event, commitment and state hash matches", v->ncmd, v->ndraws,
	    v->nevents);
	say(v, "final: the end reason and the result are the replay's");
	{
		char *j = mp_bytes_to_json_text(fin->result, fin->result_len,
		    JSON_COMPACT);

		say(v, "result (%s): %s", fin->why, j != NULL ? j : "?");
		free(j);
	}
	if (mismatch) {
		snprintf(v->why, sizeof(v->why), "the replay agrees, but with "
		    "a different plugin build or content than the header names");
		verdict(v, "NOT CHECKED: the replay agrees, but with a "
		    "different plugin build or content than the header names "
		    "(see the warnings)");
		return VX_ENV;
	}
	verdict(v, h->scripted ? "VERIFIED (scripted dice: not a ranked "
	    "match)" : "VERIFIED");
	return 0;
}

static void
verify_usage(FILE *f)
{
	fprintf(f, "usage: refctl verify [--plugin FILE.so] [--content DIR] "
	    "[--pubkey HEX | --pubkey-file FILE] [--allow-scripted] "
	    "[--keyring FILE] [--head FILE] "
	    "[--require-plugin NAME=VERSION[:HASH]] "
	    "[--require-finished] [--views FILE] [-j N] [--json] [-q] "
	    "LOG|DIR...\n");
}

/* Which exit status wins in a batch: 1, then 4, then 3, then 0. */
static int
worse(int a, int b)
{
	static const int rank[] = { 0, 3, 0, 1, 2 };

	return rank[b] > rank[a] ? b : a;
}

/* The number in "record N" of a failure, or -1. */
static long
bad_record(const char *why)
{
	const char *p = strstr(why, "record ");
	char *e;
	long n;

	if (p == NULL)
		return -1;
	n = strtol(p + 7, &e, 10);
	return e == p + 7 ? -1 : n;
}

/* --json: one object per log. */
static void
json_line(const struct vctx *v, int rc)
{
	static const char *const vd[] = { "verified", "tampered", "usage",
		"incomplete", "not checked" };
	const struct evlog_rec *h = v->nr > 0 && v->r[0].kind == EVK_HEADER ?
	    &v->r[0] : NULL;
	const struct evlog_rec *f = v->nr > 0 &&
	    v->r[v->nr - 1].kind == EVK_FINAL ? &v->r[v->nr - 1] : NULL;
	json_t *o = json_object(), *res = NULL;
	char hx[2 * EVLOG_HASH_LEN + 1], *t;
	long br = rc == VX_OK ? -1 : bad_record(v->why);

	json_object_set_new(o, "file", json_string(v->logpath));
	if (h != NULL) {
		json_object_set_new(o, "match", json_string(h->match));
		json_object_set_new(o, "ruleset", json_string(h->ruleset));
		json_object_set_new(o, "version",
		    json_string(h->ruleset_version));
		hex_encode(h->plugin_hash, EVLOG_HASH_LEN, hx);
		json_object_set_new(o, "plugin_hash", json_string(hx));
		json_object_set_new(o, "seats", json_integer(h->nseats));
		json_object_set_new(o, "scripted", json_boolean(h->scripted));
		hex_encode(h->pubkey, EVLOG_PK_LEN, hx);
		json_object_set_new(o, "pubkey", json_string(hx));
	}
	json_object_set_new(o, "records", json_integer((json_int_t)v->nr));
	json_object_set_new(o, "finished", json_boolean(f != NULL));
	if (f != NULL) {
		t = mp_bytes_to_json_text(f->result, f->result_len, 0);
		res = t != NULL ? json_loads(t, JSON_DECODE_ANY, NULL) : NULL;
		free(t);
		json_object_set_new(o, "end", json_string(f->why));
	}
	json_object_set_new(o, "result", res != NULL ? res : json_null());
	json_object_set_new(o, "verdict", json_string(rc >= 0 && rc <= 4 ?
	    vd[rc] : "?"));
	json_object_set_new(o, "exit", json_integer(rc));
	json_object_set_new(o, "bad_record", br >= 0 ? json_integer(br) :
	    json_null());
	json_object_set_new(o, "why", rc == VX_OK ? json_null() :
	    json_string(v->why));
	t = json_dumps(o, JSON_COMPACT);
	if (t != NULL)
		printf("%s\n", t);
	free(t);
	json_decref(o);
}

static int
verify_one(const struct vctx *opt, const char *path)
{
	struct vctx v;
	int rc;

	v = *opt;
	v.logpath = path;
	call_init(&v.c);
	rc = verify(&v);
	if (v.json)
		json_line(&v, rc);
	vctx_release(&v);
	fflush(stdout);
	fflush(stderr);
	return rc;
}

struct loglist {
	char **p;
	size_t n, cap;
};

static int
add_log(struct loglist *l, const char *path)
{
	char **np;

	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 64;
		np = realloc(l->p, l->cap * sizeof(*np));
		if (np == NULL)
			return -1;
		l->p = np;
	}
	if ((l->p[l->n] = strdup(path)) == NULL)
		return -1;
	l->n++;
	return 0;
}

/* Every *.log file of a directory, in name order. */
static int
add_dir(struct loglist *l, const char *dir)
{
	struct dirent **ent;
	char path[PATH_MAX];
	int n, i, rc = 0;
	size_t len;

	if ((n = scandir(dir, &ent, NULL, alphasort)) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		len = strlen(ent[i]->d_name);
		if (rc == 0 && len > 4 &&
		    strcmp(ent[i]->d_name + len - 4, ".log") == 0) {
			snprintf(path, sizeof(path), "%s/%s", dir,
			    ent[i]->d_name);
			rc = add_log(l, path);
		}
		free(ent[i]);
	}
	free(ent);
	return rc;
}

struct job {
	pid_t pid;
	FILE *out, *err;
	int rc, done;
};

static void
copy_out(FILE *from, FILE *to)
{
	char b[8192];
	size_t n;

	rewind(from);
	while ((n = fread(b, 1, sizeof(b), from)) > 0)
		fwrite(b, 1, n, to);
	fclose(from);
}

/*
 * Verify the logs with up to nj at a time, each in a child process whose
 * output is kept and printed in the order of the logs.
 */
static int
verify_parallel(const struct vctx *opt, const struct loglist *l, int nj,
    size_t *count)
{
	struct job *jb = calloc(l->n, sizeof(*jb));
	size_t next = 0, started = 0, running = 0, k;
	int rc = VX_OK;

	if (jb == NULL)
		return VX_ENV;
	while (next < l->n) {
		while (running < (size_t)nj && started < l->n) {
			struct job *j = &jb[started];

			j->out = tmpfile();
			j->err = tmpfile();
			fflush(stdout);
			fflush(stderr);
			if (j->out == NULL || j->err == NULL ||
			    (j->pid = fork()) < 0) {
				fprintf(stderr, "refctl verify: cannot start a "
				    "verifier process: %s\n", strerror(errno));
				j->rc = VX_ENV;
				j->done = 1;
				j->pid = 0;
			} else if (j->pid == 0) {
				dup2(fileno(j->out), 1);
				dup2(fileno(j->err), 2);
				_exit(verify_one(opt, l->p[started]));
			} else {
				running++;
			}
			started++;
		}
		while (next < l->n && !jb[next].done) {
			int st;
			pid_t p = wait(&st);

			if (p < 0)
				break;
			for (k = 0; k < started; k++)
				if (jb[k].pid == p && !jb[k].done) {
					jb[k].done = 1;
					jb[k].rc = WIFEXITED(st) &&
					    WEXITSTATUS(st) <= 4 ?
					    WEXITSTATUS(st) : VX_ENV;
					if (!WIFEXITED(st))
						fprintf(stderr, "refctl verify: "
						    "log '%s': the verifier "
						    "process died (signal %d)\n",
						    l->p[k], WTERMSIG(st));
					running--;
				}
		}
		while (next < l->n && jb[next].done) {
			if (next > 0 && !opt->quiet && !opt->json)
				printf("\n");
			fflush(stdout);
			if (jb[next].out != NULL)
				copy_out(jb[next].out, stdout);
			fflush(stdout);
			if (jb[next].err != NULL)
				copy_out(jb[next].err, stderr);
			count[jb[next].rc]++;
			rc = worse(rc, jb[next].rc);
			next++;
		}
	}
	free(jb);
	return rc;
}

static int
hex_field(json_t *o, const char *k, uint8_t *out, size_t n)
{
	const char *t = json_string_value(json_object_get(o, k));
	size_t i;

	if (t == NULL || strlen(t) != 2 * n)
		return -1;
	for (i = 0; i < n; i++) {
		unsigned x;

		if (sscanf(t + 2 * i, "%2x", &x) != 1 ||
		    !isxdigit((unsigned char)t[2 * i]) ||
		    !isxdigit((unsigned char)t[2 * i + 1]))
			return -1;
		out[i] = (uint8_t)x;
	}
	return 0;
}

/* --head FILE: the JSON `refctl head` printed. */
static int
read_head(struct vctx *v, const char *path)
{
	json_error_t je;
	json_t *o = json_load_file(path, 0, &je), *res;
	struct head hd, *nh;
	const char *m;

	if (o == NULL) {
		fprintf(stderr, "refctl verify: --head '%s': %s\n", path,
		    je.text);
		return VX_ENV;
	}
	res = json_object_get(o, "result");
	if (json_is_object(res))	/* a whole reply, as refctl raw prints */
		o = res;
	memset(&hd, 0, sizeof(hd));
	hd.file = path;
	m = json_string_value(json_object_get(o, "match"));
	if (m == NULL || strlen(m) != 16 ||
	    !json_is_integer(json_object_get(o, "records")) ||
	    !json_is_integer(json_object_get(o, "seq")) ||
	    hex_field(o, "hash", hd.hash, EVLOG_HASH_LEN) != 0 ||
	    hex_field(o, "sig", hd.sig, EVLOG_SIG_LEN) != 0) {
		fprintf(stderr, "refctl verify: --head '%s': expected the "
		    "head refctl head prints (match, records, seq, hash, sig)"
		    "\n", path);
		json_decref(res == o ? json_object_get(o, "") : o);
		return VX_USAGE;
	}
	snprintf(hd.match, sizeof(hd.match), "%s", m);
	hd.records = (uint64_t)json_integer_value(json_object_get(o,
	    "records"));
	hd.seq = (uint64_t)json_integer_value(json_object_get(o, "seq"));
	nh = realloc(v->heads, (v->nheads + 1) * sizeof(*nh));
	if (nh == NULL)
		return VX_ENV;
	v->heads = nh;
	v->heads[v->nheads++] = hd;
	return 0;
}

/* --keyring FILE: one key per line in hexadecimal; '#' starts a comment. */
static int
read_keyring(struct vctx *v, const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512];
	int ln = 0;

	if (f == NULL) {
		fprintf(stderr, "refctl verify: --keyring '%s': %s\n", path,
		    strerror(errno));
		return VX_ENV;
	}
	v->keyring = path;
	while (fgets(line, sizeof(line), f) != NULL) {
		char *c = strchr(line, '#'), *t = line;
		void *nk;

		ln++;
		if (c != NULL)
			*c = '\0';
		while (*t == ' ' || *t == '\t')
			t++;
		t[strcspn(t, " \t\r\n")] = '\0';
		if (*t == '\0')
			continue;
		nk = realloc(v->keys, (v->nkeys + 1) * sizeof(*v->keys));
		if (nk == NULL || read_pubkey(t, ((uint8_t (*)[EVLOG_PK_LEN])
		    nk)[v->nkeys]) != 0) {
			if (nk != NULL)
				v->keys = nk;
			fprintf(stderr, "refctl verify: --keyring '%s': line "
			    "%d: expected a key of 64 hexadecimal characters\n",
			    path, ln);
			fclose(f);
			return VX_USAGE;
		}
		v->keys = nk;
		v->nkeys++;
	}
	fclose(f);
	if (v->nkeys == 0) {
		fprintf(stderr, "refctl verify: --keyring '%s': no key in it\n",
		    path);
		return VX_USAGE;
	}
	return 0;
}

int
cmd_verify(int argc, char **argv)
{
	struct vctx v;
	struct loglist l = { NULL, 0, 0 };
	size_t count[5] = { 0 }, k;
	long nj = -1;
	int i, rc = VX_OK;

	memset(&v, 0, sizeof(v));
	if (sodium_init() < 0) {
		fprintf(stderr, "refctl verify: libsodium: cannot initialise\n");
		return VX_ENV;
	}
	for (i = 1; i < argc; i++) {
		const char *o = argv[i];

		if (strcmp(o, "-h") == 0 || strcmp(o, "--help") == 0) {
			verify_usage(stdout);
			return 0;
		} else if (strcmp(o, "-q") == 0) {
			v.quiet = 1;
		} else if (strcmp(o, "--json") == 0) {
			v.json = 1;
			v.quiet = 1;
		} else if (strcmp(o, "--allow-scripted") == 0) {
			v.allow_scripted = 1;
		} else if (strcmp(o, "--require-finished") == 0) {
			v.require_finished = 1;
		} else if (i + 1 < argc && strcmp(o, "-j") == 0) {
			char *e;

			nj = strtol(argv[++i], &e, 10);
			if (*e != '\0' || nj < 1 || nj > 1024) {
				fprintf(stderr, "refctl verify: -j: expected 1 "
				    "to 1024, found '%s'\n", argv[i]);
				return VX_USAGE;
			}
		} else if (i + 1 < argc && strcmp(o, "--head") == 0) {
			if ((rc = read_head(&v, argv[++i])) != 0)
				return rc;
		} else if (i + 1 < argc && strcmp(o, "--keyring") == 0) {
			if ((rc = read_keyring(&v, argv[++i])) != 0)
				return rc;
		} else if (i + 1 < argc && strcmp(o, "--require-plugin") == 0) {
			v.req_plugin = argv[++i];
			if (strchr(v.req_plugin, '=') == NULL) {
				fprintf(stderr, "refctl verify: --require-plugin "
				    "'%s': expected NAME=VERSION[:HASH]\n",
				    v.req_plugin);
				return VX_USAGE;
			}
		} else if (i + 1 < argc && strcmp(o, "--views") == 0) {
			i++;
			v.views = strcmp(argv[i], "-") == 0 ? stdout :
			    fopen(argv[i], "w");
			if (v.views == NULL) {
				fprintf(stderr, "refctl verify: --views '%s': "
				    "%s\n", argv[i], strerror(errno));
				return VX_ENV;
			}
		} else if (i + 1 < argc && strcmp(o, "--plugin") == 0) {
			v.plugin_path = argv[++i];
		} else if (i + 1 < argc && strcmp(o, "--content") == 0) {
			v.content_dir = argv[++i];
		} else if (i + 1 < argc && strcmp(o, "--pubkey") == 0) {
			if (read_pubkey(argv[++i], v.pk) != 0) {
				fprintf(stderr, "refctl verify: --pubkey: expected "
				    "64 hex characters\n");
				return VX_USAGE;
			}
			v.have_pk = 1;
		} else if (i + 1 < argc && strcmp(o, "--pubkey-file") == 0) {
			if (read_pubkey_file(argv[++i], v.pk) != 0) {
				fprintf(stderr, "refctl verify: --pubkey-file "
				    "'%s': expected 64 hex characters or 32 "
				    "bytes\n", argv[i]);
				return VX_ENV;
			}
			v.have_pk = 1;
		} else if (o[0] == '-') {
			fprintf(stderr, "refctl verify: unexpected argument "
			    "'%s'\n", o);
			verify_usage(stderr);
			return VX_USAGE;
		} else if (is_dir(o)) {
			if (add_dir(&l, o) != 0) {
				fprintf(stderr, "refctl verify: '%s': %s\n", o,
				    strerror(errno));
				count[VX_ENV]++;
				rc = VX_ENV;
			}
		} else if (add_log(&l, o) != 0) {
			fprintf(stderr, "refctl verify: out of memory\n");
			return VX_ENV;
		}
	}
	if (l.n == 0 && rc == VX_OK) {
		verify_usage(stderr);
		return VX_USAGE;
	}
	v.batch = l.n > 1;
	if (nj < 0)
		nj = sysconf(_SC_NPROCESSORS_ONLN) > 0 ?
		    sysconf(_SC_NPROCESSORS_ONLN) : 1;
	if (v.views != NULL || l.n < 2)
		nj = 1;		/* one log, or one views file */
	if (nj > 1) {
		rc = worse(rc, verify_parallel(&v, &l, (int)nj, count));
	} else {
		for (k = 0; k < l.n; k++) {
			int r1;

			if (k > 0 && !v.quiet)
				printf("\n");
			r1 = verify_one(&v, l.p[k]);
			count[r1]++;
			rc = worse(rc, r1);
		}
	}
	if (!v.json && count[0] + count[1] + count[3] + count[4] > 1)
		printf("summary: %zu logs: %zu verified, %zu tampered or "
		    "diverging, %zu incomplete, %zu not checked (environment)\n",
		    count[0] + count[1] + count[3] + count[4], count[VX_OK],
		    count[VX_BAD], count[VX_INCOMPLETE], count[VX_ENV]);
	for (k = 0; k < l.n; k++)
		free(l.p[k]);
	free(l.p);
	free(v.keys);
	free(v.heads);
	if (v.views != NULL && v.views != stdout)
		fclose(v.views);
	return rc;
}

/* log-info: a log's header and state, read without a replay. */
static int
log_info(const char *path)
{
	struct evlog_scan sc;
	struct evlog_rec h, last;
	char err[512], pk[2 * EVLOG_PK_LEN + 1], ph[2 * EVLOG_HASH_LEN + 1];
	char ch[2 * EVLOG_HASH_LEN + 1];
	int rc = VX_OK;

	memset(&h, 0, sizeof(h));
	memset(&last, 0, sizeof(last));
	if (access(path, R_OK) != 0) {
		fprintf(stderr, "refctl log-info: '%s': cannot read: %s\n",
		    path, strerror(errno));
		return VX_ENV;
	}
	if (evlog_scan_file(path, &sc, err, sizeof(err)) != REFD_OK) {
		fprintf(stderr, "refctl log-info: '%s': %s\n", path, err);
		return VX_BAD;
	}
	if (sc.n == 0 || evlog_decode(sc.fr[0].p, sc.fr[0].len, &h, err,
	    sizeof(err)) != 0 || h.kind != EVK_HEADER) {
		fprintf(stderr, "refctl log-info: '%s': no header record%s%s\n",
		    path, sc.n ? ": " : "", sc.n ? err : "");
		evlog_scan_release(&sc);
		return VX_BAD;
	}
	hex_encode(h.pubkey, EVLOG_PK_LEN, pk);
	hex_encode(h.plugin_hash, EVLOG_HASH_LEN, ph);
	hex_encode(h.content_hash, EVLOG_HASH_LEN, ch);
	printf("file: %s\nmatch: %s\nruleset: %s %s (ABI %u.%u)\n"
	    "plugin build: %s\ncontent: %s\nseats: %u\ndice: %s\n"
	    "key: %s\ncreated: %" PRId64 "\nwritten by: refd %s\n"
	    "records: %zu\n", path, h.match, h.ruleset, h.ruleset_version,
	    h.abi_major, h.abi_minor, ph, ch, h.nseats, h.scripted ?
	    "scripted" : "fair", pk, h.time, h.refd_version, sc.n);
	if (sc.tail != EVLOG_CLEAN) {
		printf("state: damaged or cut after record %zu: %s\n",
		    sc.n - 1, sc.why);
		rc = VX_INCOMPLETE;
	} else if (evlog_decode(sc.fr[sc.n - 1].p, sc.fr[sc.n - 1].len, &last,
	    err, sizeof(err)) == 0 && last.kind == EVK_FINAL) {
		printf("state: finished (%s) at seq %" PRIu64 "\n", last.why,
		    last.seq);
	} else {
		printf("state: unfinished\n");
		rc = VX_INCOMPLETE;
	}
	evlog_rec_release(&last);
	evlog_rec_release(&h);
	evlog_scan_release(&sc);
	return rc;
}

int
cmd_log_info(int argc, char **argv)
{
	int i, rc = VX_OK;

	if (argc < 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: refctl log-info LOG...\n");
		return VX_USAGE;
	}
	for (i = 1; i < argc; i++) {
		if (i > 1)
			printf("\n");
		rc = worse(rc, log_info(argv[i]));
	}
	return rc;
}

/* Replay: print the match step by step. */

static json_t *
mpj(const uint8_t *b, size_t n)
{
	refd_mpdoc *d = refd_mp_parse(b, n);
	json_t *j;

	if (d == NULL)
		return json_string("(malformed msgpack)");
	j = mp_to_json(refd_mp_root(d));
	refd_mp_free(d);
	return j != NULL ? j : json_null();
}

static json_t *
hexj(const uint8_t *b, size_t n)
{
	char *s = malloc(2 * n + 1);
	json_t *j;

	if (s == NULL)
		return json_null();
	hex_encode(b, n, s);
	j = json_string(s);
	free(s);
	return j;
}

static json_t *
rec_json(const struct evlog_rec *r, const struct evlog_frame *f)
{
	json_t *o = json_object(), *a;
	size_t i;

	json_object_set_new(o, "n", json_integer((json_int_t)r->n));
	json_object_set_new(o, "kind", json_string(evlog_kind_name(r->kind)));
	if (r->kind != EVK_CHECKPOINT)
		json_object_set_new(o, "seq", json_integer((json_int_t)r->seq));
	json_object_set_new(o, "offset", json_integer((json_int_t)f->off));
	json_object_set_new(o, "hash", hexj(f->hash, EVLOG_HASH_LEN));
	json_object_set_new(o, "prev", hexj(r->prev, EVLOG_HASH_LEN));
	switch (r->kind) {
	case EVK_HEADER:
		json_object_set_new(o, "format", json_integer(r->format));
		json_object_set_new(o, "refd", json_string(r->refd_version));
		json_object_set_new(o, "match", json_string(r->match));
		json_object_set_new(o, "time", json_integer(r->time));
		json_object_set_new(o, "ruleset", json_string(r->ruleset));
		json_object_set_new(o, "ruleset_version",
		    json_string(r->ruleset_version));
		json_object_set_new(o, "abi_major", json_integer(r->abi_major));
		json_object_set_new(o, "abi_minor", json_integer(r->abi_minor));
		json_object_set_new(o, "plugin_hash",
		    hexj(r->plugin_hash, EVLOG_HASH_LEN));
		json_object_set_new(o, "content_hash",
		    hexj(r->content_hash, EVLOG_HASH_LEN));
		if (r->scenario[0])
			json_object_set_new(o, "scenario",
			    json_string(r->scenario));
		json_object_set_new(o, "setup", mpj(r->setup, r->setup_len));
		json_object_set_new(o, "seats", json_integer(r->nseats));
		json_object_set_new(o, "commit", hexj(r->commit,
		    EVLOG_HASH_LEN));
		json_object_set_new(o, "scripted", json_boolean(r->scripted));
		if (r->scripted) {
			a = json_array();
			for (i = 0; i < r->ndice; i++)
				json_array_append_new(a,
				    json_integer(r->dice[i]));
			json_object_set_new(o, "dice", a);
		}
		json_object_set_new(o, "pubkey", hexj(r->pubkey, EVLOG_PK_LEN));
		break;
	case EVK_JOIN:
		json_object_set_new(o, "seat", json_integer(r->seat));
		json_object_set_new(o, "token_hash", hexj(r->token_hash,
		    EVLOG_HASH_LEN));
		json_object_set_new(o, "seed", hexj(r->share, r->share_len));
		break;
	case EVK_CMD:
		json_object_set_new(o, "seat", json_integer(r->seat));
		json_object_set_new(o, "id", json_string(r->cmd_id));
		json_object_set_new(o, "cmd", mpj(r->cmd, r->cmd_len));
		/* FALLTHROUGH */
	case EVK_START:
		a = json_array();
		for (i = 0; i < r->ndr; i++)
			json_array_append_new(a, json_pack("{s:I,s:s,s:i,s:i,"
			    "s:s}", "index", (json_int_t)r->dr[i].index, "kind",
			    r->dr[i].kind == DRAW_ROLL ? "roll" : "uniform",
			    "bound", (int)r->dr[i].bound, "value",
			    (int)r->dr[i].value, "why", r->dr[i].why));
		json_object_set_new(o, "draws", a);
		a = json_array();
		for (i = 0; i < r->ncm; i++)
			json_array_append_new(a, json_pack("{s:s,s:i,s:o}",
			    "zone", r->cm[i].zone, "seat", (int)r->cm[i].seat,
			    "hash", hexj(r->cm[i].hash, EVLOG_HASH_LEN)));
		json_object_set_new(o, "commits", a);
		json_object_set_new(o, "state", hexj(r->state,
		    EVLOG_HASH_LEN));
		break;
	case EVK_CHECKPOINT:
		json_object_set_new(o, "at", json_integer((json_int_t)r->at));
		break;
	case EVK_FINAL:
		json_object_set_new(o, "why", json_string(r->why));
		if (r->seat >= 0)
			json_object_set_new(o, "seat", json_integer(r->seat));
		if (r->reason[0])
			json_object_set_new(o, "reason",
			    json_string(r->reason));
		json_object_set_new(o, "result", mpj(r->result,
		    r->result_len));
		json_object_set_new(o, "server_seed", hexj(r->server_seed,
		    EVLOG_SEED_LEN));
		a = json_array();
		for (i = 0; i < r->nopen; i++)
			json_array_append_new(a, json_pack("{s:s,s:i,s:o,s:o}",
			    "zone", r->open[i].zone, "seat",
			    (int)r->open[i].seat, "salt", hexj(r->open[i].salt,
			    r->open[i].saltlen), "data", hexj(r->open[i].data,
			    r->open[i].len)));
		json_object_set_new(o, "openings", a);
		json_object_set_new(o, "time", json_integer(r->time));
		break;
	}
	if (r->kind == EVK_START || r->kind == EVK_CMD ||
	    r->kind == EVK_FINAL) {
		a = json_array();
		for (i = 0; i < r->nev; i++) {
			json_t *e = json_object();

			if (r->ev[i].seat != REFD_SEAT_PUBLIC)
				json_object_set_new(e, "to",
				    json_integer(r->ev[i].seat));
			json_object_set_new(e, "event", mpj(r->ev[i].bytes,
			    r->ev[i].len));
			json_array_append_new(a, e);
		}
		json_object_set_new(o, "events", a);
	}
	return o;
}

static void
print_text(const struct evlog_rec *r, const struct evlog_frame *f)
{
	char a[65];
	size_t i;
	char *j;

	(void)f;
	switch (r->kind) {
	case EVK_HEADER:
		hex_encode(r->commit, EVLOG_HASH_LEN, a);
		printf("match %s: ruleset %s %s (ABI %u.%u), %u seats, %s\n",
		    r->match, r->ruleset, r->ruleset_version, r->abi_major,
		    r->abi_minor, r->nseats, r->scripted ? "scripted dice" :
		    "ranked");
		j = mp_bytes_to_json_text(r->setup, r->setup_len, JSON_COMPACT);
		printf("  setup%s%s%s: %s\n", r->scenario[0] ? " (scenario '" :
		    "", r->scenario, r->scenario[0] ? "')" : "", j ? j : "?");
		free(j);
		printf("  server seed commitment %s\n", a);
		break;
	case EVK_JOIN:
		printf("seq %" PRIu64 ": seat %d joined (seed share of %zu "
		    "bytes)\n", r->seq, (int)r->seat, r->share_len);
		break;
	case EVK_START:
	case EVK_CMD:
		if (r->kind == EVK_START) {
			printf("seq %" PRIu64 ": the match starts\n", r->seq);
		} else {
			j = mp_bytes_to_json_text(r->cmd, r->cmd_len,
			    JSON_COMPACT);
			printf("seq %" PRIu64 ": seat %d: %s  (id '%s')\n",
			    r->seq, (int)r->seat, j ? j : "?", r->cmd_id);
			free(j);
		}
		if (r->ndr > 0) {
			printf("  dice:");
			for (i = 0; i < r->ndr; i++)
				printf(" %s%u=%u%s%s%s", r->dr[i].kind ==
				    DRAW_ROLL ? "d" : "<", r->dr[i].bound,
				    r->dr[i].value, r->dr[i].why[0] ? " (" :
				    "", r->dr[i].why, r->dr[i].why[0] ? ")" :
				    "");
			printf("\n");
		}
		for (i = 0; i < r->nev; i++) {
			j = mp_bytes_to_json_text(r->ev[i].bytes, r->ev[i].len,
			    JSON_COMPACT);
			if (r->ev[i].seat == REFD_SEAT_PUBLIC)
				printf("  event: %s\n", j ? j : "?");
			else
				printf("  event to seat %d only: %s\n",
				    (int)r->ev[i].seat, j ? j : "?");
			free(j);
		}
		for (i = 0; i < r->ncm; i++) {
			hex_encode(r->cm[i].hash, 8, a);
			printf("  commitment '%s'%s: %s...\n", r->cm[i].zone,
			    r->cm[i].seat >= 0 ? " (seat's own)" : "", a);
		}
		break;
	case EVK_CHECKPOINT:
		printf("checkpoint at seq %" PRIu64 " (signed)\n", r->at);
		break;
	case EVK_FINAL:
		j = mp_bytes_to_json_text(r->result, r->result_len,
		    JSON_COMPACT);
		printf("seq %" PRIu64 ": the match ends (%s%s%s): %s\n", r->seq,
		    r->why, r->reason[0] ? ": " : "", r->reason, j ? j : "?");
		free(j);
		hex_encode(r->server_seed, EVLOG_SEED_LEN, a);
		printf("  server seed revealed: %s\n", a);
		for (i = 0; i < r->nopen; i++) {
			char *d = malloc(2 * r->open[i].len + 1);

			if (d != NULL)
				hex_encode(r->open[i].data, r->open[i].len, d);
			printf("  opening '%s': %s\n", r->open[i].zone,
			    d != NULL ? d : "?");
			free(d);
		}
		break;
	}
}

/*
 * refctl replay LOG: verify first and say so, then the match in words,
 * replayed through the plugin; -1 when the replay cannot run (no plugin,
 * an unfinished log: its dice are not known yet), for the raw records.
 */
static int
replay_story(const char *path)
{
	struct vctx v;
	char why[sizeof(v.why)];
	const struct evlog_rec *fin;
	int rc, rc2;

	if (sodium_init() < 0)
		return -1;
	memset(&v, 0, sizeof(v));
	v.logpath = path;
	v.json = 1;
	v.quiet = 1;
	v.allow_scripted = 1;
	call_init(&v.c);
	rc = verify(&v);
	snprintf(why, sizeof(why), "%s", v.why);
	fin = v.nr > 0 && v.r[v.nr - 1].kind == EVK_FINAL ? &v.r[v.nr - 1] :
	    NULL;
	if (v.pl == NULL || fin == NULL || v.nr == 0) {
		vctx_release(&v);
		if (rc != VX_OK)
			printf("WARNING: this log is NOT verified: %s\n\n", why);
		fflush(stdout);
		return -1;
	}
	if (rc == VX_OK)
		printf("VERIFIED: match %s, %s %s; chain, signatures, dice, "
		    "hidden zones and the replay all hold%s\n\n", v.r[0].match,
		    v.r[0].ruleset, v.r[0].ruleset_version, v.r[0].scripted ?
		    " (scripted dice: not a ranked match)" : "");
	else
		printf("WARNING: this log is NOT verified: %s\n"
		    "(what follows is what the log says, up to the failure)"
		    "\n\n", why);
	vctx_release(&v);
	memset(&v, 0, sizeof(v));
	v.logpath = path;
	v.json = 1;
	v.quiet = 1;
	v.allow_scripted = 1;
	v.story = stdout;
	v.names = json_object();
	call_init(&v.c);
	rc2 = verify(&v);
	fin = v.nr > 0 && v.r[v.nr - 1].kind == EVK_FINAL ? &v.r[v.nr - 1] :
	    NULL;
	if (rc2 == VX_OK && fin != NULL) {
		char *j = mp_bytes_to_json_text(fin->result, fin->result_len,
		    JSON_COMPACT);

		printf("seq %" PRIu64 ": the match ends (%s%s%s): %s\n",
		    fin->seq, fin->why, fin->reason[0] ? ": " : "", fin->reason,
		    j != NULL ? j : "?");
		free(j);
	}
	if (rc != VX_OK)
		printf("\nNOT VERIFIED: %s\n", why);
	json_decref(v.names);
	vctx_release(&v);
	return rc;
}

int
cmd_replay(int argc, char **argv)
{
	struct evlog_scan s;
	struct evlog_rec r;
	const char *path = NULL;
	char err[512];
	json_t *all = NULL;
	int i, json = 0, rc = 0;
	size_t k;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0) {
			json = 1;
		} else if (argv[i][0] == '-' || path != NULL) {
			fprintf(stderr, "usage: refctl replay LOG [--json]\n");
			return 1;
		} else {
			path = argv[i];
		}
	}
	if (path == NULL) {
		fprintf(stderr, "usage: refctl replay LOG [--json]\n");
		return 1;
	}
	if (!json) {
		int st = replay_story(path);

		if (st >= 0)
			return st;
	}
	if (evlog_scan_file(path, &s, err, sizeof(err)) != REFD_OK) {
		fprintf(stderr, "refctl replay: log '%s': %s\n", path, err);
		return 1;
	}
	if (json)
		all = json_array();
	for (k = 0; k < s.n; k++) {
		if (evlog_decode(s.fr[k].p, s.fr[k].len, &r, err,
		    sizeof(err)) != 0) {
			fprintf(stderr, "refctl replay: log '%s': record %zu: "
			    "%s\n", path, k, err);
			evlog_rec_release(&r);
			rc = 1;
			break;
		}
		if (json)
			json_array_append_new(all, rec_json(&r, &s.fr[k]));
		else
			print_text(&r, &s.fr[k]);
		evlog_rec_release(&r);
	}
	if (s.tail != EVLOG_CLEAN) {
		fprintf(stderr, "refctl replay: log '%s': %s\n", path, s.why);
		rc = 1;
	}
	if (json) {
		json_dumpf(all, stdout, JSON_INDENT(1));
		putchar('\n');
		json_decref(all);
	}
	evlog_scan_release(&s);
	return rc;
}
