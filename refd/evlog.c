/*
 * evlog.c - the per-match event log: framing, hashes, signatures, the
 * daemon key, record encoding/decoding and replay comparison.  See
 * evlog.h and refd-evlog(5).
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "refd/errors.h"
#include "evlog.h"
#include "jsonmp.h"

static const uint8_t sig_trailer[6] = { 0xa3, 's', 'i', 'g', 0xc4, 0x40 };
#define SIG_TRAILER_LEN (sizeof(sig_trailer) + EVLOG_SIG_LEN)

int64_t
evlog_now(void)
{
	return (int64_t)time(NULL);
}

int64_t
evlog_mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Hashes. */

void
evlog_hash(const uint8_t *p, size_t len, uint8_t out[EVLOG_HASH_LEN])
{
	crypto_generichash(out, EVLOG_HASH_LEN, p, len, NULL, 0);
}

void
evlog_seed_commit(const uint8_t *seed, uint8_t out[EVLOG_HASH_LEN])
{
	crypto_generichash(out, EVLOG_HASH_LEN, seed, EVLOG_SEED_LEN, NULL, 0);
}

void
evlog_match_seed(const uint8_t *server_seed, const uint8_t *const *share,
    const size_t *share_len, uint32_t nseats, uint8_t out[32])
{
	static const char dom[] = "refd match seed v1";
	crypto_generichash_state st;
	uint32_t i;

	crypto_generichash_init(&st, NULL, 0, 32);
	crypto_generichash_update(&st, (const uint8_t *)dom, sizeof(dom) - 1);
	crypto_generichash_update(&st, server_seed, EVLOG_SEED_LEN);
	for (i = 0; i < nseats; i++) {
		uint8_t l[4];
		size_t n = share_len[i];

		l[0] = (uint8_t)(n >> 24);
		l[1] = (uint8_t)(n >> 16);
		l[2] = (uint8_t)(n >> 8);
		l[3] = (uint8_t)n;
		crypto_generichash_update(&st, l, 4);
		if (n > 0)
			crypto_generichash_update(&st, share[i], n);
	}
	crypto_generichash_final(&st, out, 32);
}

void
evlog_token_hash(const char *token, uint8_t out[EVLOG_HASH_LEN])
{
	crypto_generichash(out, EVLOG_HASH_LEN, (const uint8_t *)token,
	    strlen(token), NULL, 0);
}

void
evlog_commit_hash(const uint8_t *salt, size_t saltlen, const uint8_t *data,
    size_t len, uint8_t out[EVLOG_HASH_LEN])
{
	crypto_generichash_state st;

	crypto_generichash_init(&st, NULL, 0, EVLOG_HASH_LEN);
	crypto_generichash_update(&st, salt, saltlen);
	crypto_generichash_update(&st, data, len);
	crypto_generichash_final(&st, out, EVLOG_HASH_LEN);
}

/* The key. */

static int
write_all(int fd, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n > 0) {
		ssize_t w = write(fd, b, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

static void
fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

int
evlog_key_load(const char *state_dir, struct evlog_key *k, int *created,
    char *err, size_t errlen)
{
	char path[4096], pub[4096], hex[2 * EVLOG_PK_LEN + 2];
	struct stat st;
	ssize_t n;
	int fd;

	*created = 0;
	if (sodium_init() < 0) {
		snprintf(err, errlen, "libsodium: cannot initialise");
		return REFD_EINTERNAL;
	}
	snprintf(path, sizeof(path), "%s/refd.key", state_dir);
	snprintf(pub, sizeof(pub), "%s/refd.pub", state_dir);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 && errno == ENOENT) {
		crypto_sign_keypair(k->pk, k->sk);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0 || write_all(fd, k->sk, EVLOG_SK_LEN) != 0 ||
		    fsync(fd) != 0) {
			snprintf(err, errlen, "key '%s': cannot create: %s; "
			    "check that the state directory is writable", path,
			    strerror(errno));
			if (fd >= 0) {
				close(fd);
				unlink(path);
			}
			sodium_memzero(k->sk, sizeof(k->sk));
			return REFD_ELOGIO;
		}
		close(fd);
		hex_encode(k->pk, EVLOG_PK_LEN, hex);
		strcat(hex, "\n");
		fd = open(pub, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd >= 0) {
			(void)write_all(fd, hex, strlen(hex));
			close(fd);
		}
		fsync_dir(state_dir);
		*created = 1;
		return REFD_OK;
	}
	if (fd < 0) {
		snprintf(err, errlen, "key '%s': cannot open: %s", path,
		    strerror(errno));
		return REFD_ELOGIO;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		snprintf(err, errlen, "key '%s': not a regular file", path);
		return REFD_ELOGIO;
	}
	if (st.st_mode & 077) {
		close(fd);
		snprintf(err, errlen, "key '%s': mode %03o lets others read the "
		    "daemon's secret key; run 'chmod 600 %s'", path,
		    (unsigned)(st.st_mode & 0777), path);
		return REFD_EPERM;
	}
	n = read(fd, k->sk, EVLOG_SK_LEN);
	close(fd);
	if (n != EVLOG_SK_LEN || st.st_size != EVLOG_SK_LEN) {
		snprintf(err, errlen, "key '%s': found %lld bytes, expected %d; "
		    "the key file is damaged (move it away to make a new key, "
		    "which invalidates running matches)", path,
		    (long long)st.st_size, EVLOG_SK_LEN);
		return REFD_ELOGIO;
	}
	crypto_sign_ed25519_sk_to_pk(k->pk, k->sk);
	/* Keep refd.pub in step with the key. */
	if (stat(pub, &st) != 0) {
		hex_encode(k->pk, EVLOG_PK_LEN, hex);
		strcat(hex, "\n");
		fd = open(pub, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd >= 0) {
			(void)write_all(fd, hex, strlen(hex));
			close(fd);
		}
	}
	return REFD_OK;
}

void
evlog_key_release(struct evlog_key *k)
{
	sodium_memzero(k, sizeof(*k));
}

static void
seed_box_key(const struct evlog_key *k, uint8_t key[32])
{
	static const char dom[] = "refd seed box v1";

	crypto_generichash(key, 32, (const uint8_t *)dom, sizeof(dom) - 1,
	    k->sk, 32);
}

void
evlog_seal_seed(const struct evlog_key *k, const uint8_t *seed,
    uint8_t sealed[EVLOG_SEALED_LEN])
{
	uint8_t key[32];

	seed_box_key(k, key);
	randombytes_buf(sealed, 24);
	crypto_secretbox_easy(sealed + 24, seed, EVLOG_SEED_LEN, sealed, key);
	sodium_memzero(key, sizeof(key));
}

int
evlog_open_seed(const struct evlog_key *k, const uint8_t *sealed, size_t len,
    uint8_t seed[EVLOG_SEED_LEN])
{
	uint8_t key[32];
	int rc;

	if (len != EVLOG_SEALED_LEN)
		return -1;
	seed_box_key(k, key);
	rc = crypto_secretbox_open_easy(seed, sealed + 24, len - 24, sealed,
	    key);
	sodium_memzero(key, sizeof(key));
	return rc;
}

/* Signatures. */

static int
sig_msg(const uint8_t *payload, size_t len, uint8_t **msg, size_t *mlen)
{
	size_t dl = sizeof(EVLOG_SIG_DOMAIN) - 1;

	if (len < SIG_TRAILER_LEN || memcmp(payload + len - SIG_TRAILER_LEN,
	    sig_trailer, sizeof(sig_trailer)) != 0)
		return -1;
	*mlen = dl + len;
	*msg = malloc(*mlen);
	if (*msg == NULL)
		return -3;
	memcpy(*msg, EVLOG_SIG_DOMAIN, dl);
	memcpy(*msg + dl, payload, len);
	memset(*msg + dl + len - EVLOG_SIG_LEN, 0, EVLOG_SIG_LEN);
	return 0;
}

int
evlog_sign(const struct evlog_key *k, uint8_t *payload, size_t len)
{
	uint8_t *msg;
	size_t mlen;
	int rc = sig_msg(payload, len, &msg, &mlen);

	if (rc != 0)
		return rc;
	crypto_sign_detached(payload + len - EVLOG_SIG_LEN, NULL, msg, mlen,
	    k->sk);
	free(msg);
	return 0;
}

static size_t
head_msg(const char *match, uint64_t records, uint64_t seq,
    const uint8_t hash[EVLOG_HASH_LEN], uint8_t *m)
{
	size_t n = sizeof(EVLOG_HEAD_DOMAIN) - 1, i;

	memcpy(m, EVLOG_HEAD_DOMAIN, n);
	memset(m + n, 0, 16);
	memcpy(m + n, match, strnlen(match, 16));
	n += 16;
	for (i = 0; i < 8; i++)
		m[n + i] = (uint8_t)(records >> (56 - 8 * i));
	n += 8;
	for (i = 0; i < 8; i++)
		m[n + i] = (uint8_t)(seq >> (56 - 8 * i));
	n += 8;
	memcpy(m + n, hash, EVLOG_HASH_LEN);
	return n + EVLOG_HASH_LEN;
}

void
evlog_head_sign(const struct evlog_key *k, const char *match,
    uint64_t records, uint64_t seq, const uint8_t hash[EVLOG_HASH_LEN],
    uint8_t sig[EVLOG_SIG_LEN])
{
	uint8_t m[128];
	size_t n = head_msg(match, records, seq, hash, m);

	crypto_sign_detached(sig, NULL, m, n, k->sk);
}

int
evlog_head_check(const uint8_t *pk, const char *match, uint64_t records,
    uint64_t seq, const uint8_t hash[EVLOG_HASH_LEN],
    const uint8_t sig[EVLOG_SIG_LEN])
{
	uint8_t m[128];
	size_t n = head_msg(match, records, seq, hash, m);

	return crypto_sign_verify_detached(sig, m, n, pk) == 0 ? 0 : -1;
}

int
evlog_sig_check(const uint8_t *pk, const uint8_t *payload, size_t len)
{
	uint8_t *msg;
	size_t mlen;
	int rc = sig_msg(payload, len, &msg, &mlen);

	if (rc != 0)
		return rc;
	rc = crypto_sign_verify_detached(payload + len - EVLOG_SIG_LEN, msg,
	    mlen, pk) == 0 ? 0 : -2;
	free(msg);
	return rc;
}

/* Writer. */

int
evlog_create(struct evlog *l, const char *path, char *err, size_t errlen)
{
	memset(l, 0, sizeof(*l));
	l->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC,
	    0644);
	if (l->fd < 0) {
		snprintf(err, errlen, "log '%s': cannot create: %s", path,
		    strerror(errno));
		return REFD_ELOGIO;
	}
	l->path = strdup(path);
	if (l->path == NULL || write_all(l->fd, EVLOG_MAGIC,
	    EVLOG_MAGIC_LEN) != 0) {
		snprintf(err, errlen, "log '%s': cannot write: %s", path,
		    strerror(errno));
		close(l->fd);
		unlink(path);
		free(l->path);
		memset(l, 0, sizeof(*l));
		l->fd = -1;
		return REFD_ELOGIO;
	}
	l->size = EVLOG_MAGIC_LEN;
	l->dirty = 1;
	l->synced_at = evlog_mono_ms();
	return REFD_OK;
}

int
evlog_reopen(struct evlog *l, const char *path, uint64_t size, uint64_t nrec,
    const uint8_t last[EVLOG_HASH_LEN], char *err, size_t errlen)
{
	memset(l, 0, sizeof(*l));
	l->fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (l->fd < 0) {
		snprintf(err, errlen, "log '%s': cannot open: %s", path,
		    strerror(errno));
		return REFD_ELOGIO;
	}
	l->path = strdup(path);
	if (l->path == NULL) {
		close(l->fd);
		l->fd = -1;
		return REFD_ENOMEM;
	}
	l->size = size;
	l->nrec = nrec;
	memcpy(l->last, last, EVLOG_HASH_LEN);
	l->synced_at = evlog_mono_ms();
	return REFD_OK;
}

int
evlog_append(struct evlog *l, const uint8_t *payload, size_t len,
    uint8_t hash_out[EVLOG_HASH_LEN])
{
	uint8_t *f;
	size_t flen = EVLOG_FRAME_OVERHEAD + len;
	uint32_t n = (uint32_t)len, x = ~(uint32_t)len;
	int rc = REFD_OK;

	if (l->fd < 0)
		return REFD_ELOGIO;
	if (len == 0 || len > EVLOG_MAX_RECORD)
		return REFD_ELIMIT;
	f = malloc(flen);
	if (f == NULL)
		return REFD_ENOMEM;
	f[0] = (uint8_t)(n >> 24);
	f[1] = (uint8_t)(n >> 16);
	f[2] = (uint8_t)(n >> 8);
	f[3] = (uint8_t)n;
	f[4] = (uint8_t)(x >> 24);
	f[5] = (uint8_t)(x >> 16);
	f[6] = (uint8_t)(x >> 8);
	f[7] = (uint8_t)x;
	memcpy(f + EVLOG_FRAME_HEAD, payload, len);
	evlog_hash(payload, len, f + EVLOG_FRAME_HEAD + len);
	if (write_all(l->fd, f, flen) != 0) {
		/* Cut a partial frame so the file stays a clean log. */
		if (ftruncate(l->fd, (off_t)l->size) != 0) {
			/* The file now ends in a torn frame: stop writing;
			 * recovery truncates it at the next start. */
			close(l->fd);
			l->fd = -1;
		}
		rc = REFD_ELOGIO;
	} else {
		memcpy(l->last, f + EVLOG_FRAME_HEAD + len, EVLOG_HASH_LEN);
		if (hash_out != NULL)
			memcpy(hash_out, l->last, EVLOG_HASH_LEN);
		l->size += flen;
		l->nrec++;
		l->dirty = 1;
	}
	free(f);
	return rc;
}

int
evlog_fsync(struct evlog *l)
{
	if (l->fd < 0)
		return REFD_ELOGIO;
	if (fdatasync(l->fd) != 0)
		return REFD_ELOGIO;
	l->dirty = 0;
	l->synced_at = evlog_mono_ms();
	return REFD_OK;
}

void
evlog_release(struct evlog *l)
{
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
	free(l->path);
	l->path = NULL;
}

/* Reading. */

static uint32_t
be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}


static int
all_zero(const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != 0)
			return 0;
	return 1;
}

int
evlog_scan_bytes(const uint8_t *data, size_t size, struct evlog_scan *s,
    char *err, size_t errlen)
{
	size_t off, cap = 0;

	memset(s, 0, sizeof(*s));
	/* A file cut short in its magic, or zeros a crash left behind: a
	 * log whose creation was interrupted. */
	if ((size < EVLOG_MAGIC_LEN && memcmp(data, EVLOG_MAGIC, size) == 0) ||
	    (size > 0 && all_zero(data, size))) {
		s->data = malloc(1);
		if (s->data == NULL)
			return REFD_ENOMEM;
		s->tail = size > 0 ? EVLOG_TORN : EVLOG_CLEAN;
		snprintf(s->why, sizeof(s->why), "the file holds %zu bytes and "
		    "no complete magic: its creation was interrupted", size);
		return REFD_OK;
	}
	if (size < EVLOG_MAGIC_LEN || memcmp(data, EVLOG_MAGIC,
	    EVLOG_MAGIC_LEN) != 0) {
		snprintf(err, errlen, "not a refd event log (no '%s' magic)",
		    EVLOG_MAGIC);
		return REFD_ELOG;
	}
	s->data = malloc(size ? size : 1);
	if (s->data == NULL)
		return REFD_ENOMEM;
	memcpy(s->data, data, size);
	s->size = size;
	off = EVLOG_MAGIC_LEN;
	while (off < size) {
		size_t left = size - off;
		uint32_t n, x;
		uint8_t h[EVLOG_HASH_LEN];
		struct evlog_frame *fr;

		if (left < EVLOG_FRAME_HEAD) {
			s->tail = EVLOG_TORN;
			snprintf(s->why, sizeof(s->why), "incomplete frame head "
			    "at offset %zu (%zu of %d bytes)", off, left,
			    EVLOG_FRAME_HEAD);
			break;
		}
		n = be32(s->data + off);
		x = be32(s->data + off + 4);
		if (x != ~n || n == 0 || n > EVLOG_MAX_RECORD) {
			s->tail = all_zero(s->data + off, left) ? EVLOG_TORN :
			    EVLOG_DAMAGED;
			snprintf(s->why, sizeof(s->why), "bad frame length at "
			    "offset %zu (0x%08x, check 0x%08x)", off,
			    (unsigned)n, (unsigned)x);
			break;
		}
		if ((size_t)n + EVLOG_FRAME_OVERHEAD > left) {
			s->tail = EVLOG_TORN;
			snprintf(s->why, sizeof(s->why), "incomplete record at "
			    "offset %zu (%zu of %zu bytes)", off, left,
			    (size_t)n + EVLOG_FRAME_OVERHEAD);
			break;
		}
		evlog_hash(s->data + off + EVLOG_FRAME_HEAD, n, h);
		if (memcmp(h, s->data + off + EVLOG_FRAME_HEAD + n,
		    EVLOG_HASH_LEN) != 0) {
			char a[65], b[65];

			s->tail = off + n + EVLOG_FRAME_OVERHEAD == size ?
			    EVLOG_TORN : EVLOG_DAMAGED;
			s->tail_whole = s->tail == EVLOG_TORN;
			hex_encode(s->data + off + EVLOG_FRAME_HEAD + n, 16, a);
			hex_encode(h, 16, b);
			snprintf(s->why, sizeof(s->why), "record %zu at offset "
			    "%zu: hash: expected %s..., found %s... (the record's "
			    "bytes were changed)", s->n, off, a, b);
			break;
		}
		if (s->n == cap) {
			size_t nc = cap ? cap * 2 : 64;

			fr = realloc(s->fr, nc * sizeof(*fr));
			if (fr == NULL) {
				evlog_scan_release(s);
				return REFD_ENOMEM;
			}
			s->fr = fr;
			cap = nc;
		}
		fr = &s->fr[s->n++];
		fr->off = off;
		fr->p = s->data + off + EVLOG_FRAME_HEAD;
		fr->len = n;
		memcpy(fr->hash, h, EVLOG_HASH_LEN);
		off += (size_t)n + EVLOG_FRAME_OVERHEAD;
	}
	s->good_end = s->n > 0 ? (size_t)(s->fr[s->n - 1].off +
	    s->fr[s->n - 1].len + EVLOG_FRAME_OVERHEAD) : EVLOG_MAGIC_LEN;
	(void)err;
	(void)errlen;
	return REFD_OK;
}

int
evlog_scan_file(const char *path, struct evlog_scan *s, char *err,
    size_t errlen)
{
	struct stat st;
	uint8_t *data;
	size_t got = 0;
	int fd, rc;

	memset(s, 0, sizeof(*s));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open: %s", strerror(errno));
		return REFD_ELOGIO;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		snprintf(err, errlen, "not a regular file");
		return REFD_ELOGIO;
	}
	data = malloc(st.st_size > 0 ? (size_t)st.st_size : 1);
	if (data == NULL) {
		close(fd);
		return REFD_ENOMEM;
	}
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, data + got, (size_t)st.st_size - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	if (got != (size_t)st.st_size) {
		free(data);
		snprintf(err, errlen, "cannot read: %s", strerror(errno));
		return REFD_ELOGIO;
	}
	rc = evlog_scan_bytes(data, got, s, err, errlen);
	free(data);
	return rc;
}

void
evlog_scan_release(struct evlog_scan *s)
{
	free(s->data);
	free(s->fr);
	memset(s, 0, sizeof(*s));
}

/* Decoding. */

static const char *const kind_names[] = {
	NULL, "header", "join", "start", "cmd", "checkpoint", "final"
};

const char *
evlog_kind_name(int kind)
{
	if (kind < EVK_HEADER || kind > EVK_FINAL)
		return "?";
	return kind_names[kind];
}

#define BAD(...)                                                               \
	do {                                                                   \
		snprintf(err, errlen, __VA_ARGS__);                            \
		return -1;                                                     \
	} while (0)

static int
get_u64(refd_mpv m, const char *k, uint64_t *out, char *err, size_t errlen)
{
	int64_t v;

	if (refd_mpv_int(refd_mpv_get(m, k), &v) != 0 || v < 0)
		BAD("field '%s': expected a non-negative integer", k);
	*out = (uint64_t)v;
	return 0;
}

static int
get_i64(refd_mpv m, const char *k, int64_t *out, char *err, size_t errlen)
{
	if (refd_mpv_int(refd_mpv_get(m, k), out) != 0)
		BAD("field '%s': expected an integer", k);
	return 0;
}

static int
get_hash(refd_mpv m, const char *k, uint8_t *out, size_t n, char *err,
    size_t errlen)
{
	const uint8_t *b;
	size_t l;

	if (refd_mpv_bin(refd_mpv_get(m, k), &b, &l) != 0 || l != n)
		BAD("field '%s': expected %zu bytes", k, n);
	memcpy(out, b, n);
	return 0;
}

static int
get_bin(refd_mpv m, const char *k, const uint8_t **b, size_t *l, char *err,
    size_t errlen)
{
	if (refd_mpv_bin(refd_mpv_get(m, k), b, l) != 0)
		BAD("field '%s': expected bytes", k);
	return 0;
}

static int
get_str(refd_mpv m, const char *k, char *out, size_t n, int optional,
    char *err, size_t errlen)
{
	refd_mpv v = refd_mpv_get(m, k);
	const char *s;
	size_t l;

	out[0] = '\0';
	if (optional && (!refd_mpv_ok(v) || refd_mpv_type(v) == REFD_MP_NIL))
		return 0;
	if (refd_mpv_str(v, &s, &l) != 0 || l >= n || memchr(s, 0, l) != NULL)
		BAD("field '%s': expected a string shorter than %zu bytes", k,
		    n);
	memcpy(out, s, l);
	out[l] = '\0';
	return 0;
}

static int
get_msgpack(refd_mpv m, const char *k, const uint8_t **b, size_t *l,
    char *err, size_t errlen)
{
	if (get_bin(m, k, b, l, err, errlen) != 0)
		return -1;
	if (*l == 0 || refd_mp_check(*b, *l, 0) != 0)
		BAD("field '%s': expected msgpack bytes", k);
	return 0;
}

static int
dec_draws(refd_mpv a, struct evlog_rec *r, char *err, size_t errlen)
{
	size_t i, n = refd_mpv_len(a);

	if (refd_mpv_type(a) != REFD_MP_ARRAY)
		BAD("field 'draws': expected an array");
	r->dr = calloc(n ? n : 1, sizeof(*r->dr));
	if (r->dr == NULL)
		BAD("out of memory");
	for (i = 0; i < n; i++) {
		refd_mpv d = refd_mpv_at(a, i);
		int64_t v[4];
		const char *s;
		size_t l;
		int k;

		if (refd_mpv_type(d) != REFD_MP_ARRAY || refd_mpv_len(d) != 5)
			BAD("draw %zu: expected [index, kind, bound, value, why]",
			    i);
		for (k = 0; k < 4; k++)
			if (refd_mpv_int(refd_mpv_at(d, (size_t)k), &v[k]) != 0 ||
			    v[k] < 0 || (k > 0 && v[k] > UINT32_MAX))
				BAD("draw %zu: item %d: expected an integer", i,
				    k);
		if (refd_mpv_str(refd_mpv_at(d, 4), &s, &l) != 0 ||
		    l >= sizeof(r->dr[i].why))
			BAD("draw %zu: 'why': expected a short string", i);
		r->dr[i].index = (uint64_t)v[0];
		r->dr[i].kind = (uint32_t)v[1];
		r->dr[i].bound = (uint32_t)v[2];
		r->dr[i].value = (uint32_t)v[3];
		memcpy(r->dr[i].why, s, l);
		r->dr[i].why[l] = '\0';
	}
	r->ndr = n;
	return 0;
}

static int
dec_events(refd_mpv a, struct evlog_rec *r, char *err, size_t errlen)
{
	size_t i, n = refd_mpv_len(a);

	if (refd_mpv_type(a) != REFD_MP_ARRAY)
		BAD("field 'events': expected an array");
	r->ev = calloc(n ? n : 1, sizeof(*r->ev));
	if (r->ev == NULL)
		BAD("out of memory");
	for (i = 0; i < n; i++) {
		refd_mpv e = refd_mpv_at(a, i);
		int64_t seat;

		if (refd_mpv_type(e) != REFD_MP_ARRAY || refd_mpv_len(e) != 2 ||
		    refd_mpv_int(refd_mpv_at(e, 0), &seat) != 0 ||
		    seat < REFD_SEAT_PUBLIC || seat >= REFD_MAX_SEATS ||
		    refd_mpv_bin(refd_mpv_at(e, 1), &r->ev[i].bytes,
		    &r->ev[i].len) != 0 || r->ev[i].len == 0 ||
		    refd_mp_check(r->ev[i].bytes, r->ev[i].len, 0) != 0)
			BAD("event %zu: expected [seat, msgpack bytes]", i);
		r->ev[i].seat = (int32_t)seat;
	}
	r->nev = n;
	return 0;
}

static int
dec_commits(refd_mpv a, struct evlog_commit **out, size_t *nout, int opening,
    char *err, size_t errlen)
{
	size_t i, n = refd_mpv_len(a);
	struct evlog_commit *cm;
	const char *what = opening ? "opening" : "commitment";

	if (refd_mpv_type(a) != REFD_MP_ARRAY)
		BAD("field '%s': expected an array", opening ? "openings" :
		    "commits");
	cm = calloc(n ? n : 1, sizeof(*cm));
	if (cm == NULL)
		BAD("out of memory");
	*out = cm;
	for (i = 0; i < n; i++) {
		refd_mpv c = refd_mpv_at(a, i);
		const char *s;
		size_t l;
		int64_t seat;
		const uint8_t *h;
		size_t hl;

		if (refd_mpv_type(c) != REFD_MP_ARRAY ||
		    refd_mpv_len(c) != (opening ? 4u : 3u) ||
		    refd_mpv_str(refd_mpv_at(c, 0), &s, &l) != 0 ||
		    l >= sizeof(cm[i].zone) ||
		    refd_mpv_int(refd_mpv_at(c, 1), &seat) != 0 ||
		    seat < REFD_SEAT_PUBLIC || seat >= REFD_MAX_SEATS)
			BAD("%s %zu: expected [zone, seat, %s]", what, i,
			    opening ? "salt, data" : "hash");
		memcpy(cm[i].zone, s, l);
		cm[i].zone[l] = '\0';
		cm[i].seat = (int32_t)seat;
		if (opening) {
			if (refd_mpv_bin(refd_mpv_at(c, 2), &cm[i].salt,
			    &cm[i].saltlen) != 0 ||
			    refd_mpv_bin(refd_mpv_at(c, 3), &cm[i].data,
			    &cm[i].len) != 0)
				BAD("%s %zu: expected salt and data bytes",
				    what, i);
		} else if (refd_mpv_bin(refd_mpv_at(c, 2), &h, &hl) != 0 ||
		    hl != EVLOG_HASH_LEN) {
			BAD("%s %zu: expected a 32-byte hash", what, i);
		} else {
			memcpy(cm[i].hash, h, EVLOG_HASH_LEN);
		}
	}
	*nout = n;
	return 0;
}

static int
decode(refd_mpv m, struct evlog_rec *r, char *err, size_t errlen)
{
	char kind[16];
	size_t i;

	if (refd_mpv_type(m) != REFD_MP_MAP)
		BAD("payload is not a msgpack map");
	if (get_str(m, "kind", kind, sizeof(kind), 0, err, errlen) != 0)
		return -1;
	for (i = EVK_HEADER; i <= EVK_FINAL; i++)
		if (strcmp(kind, kind_names[i]) == 0)
			r->kind = (int)i;
	if (r->kind == 0)
		BAD("field 'kind': unknown kind '%s'", kind);
	if (get_u64(m, "n", &r->n, err, errlen) != 0 ||
	    get_hash(m, "prev", r->prev, EVLOG_HASH_LEN, err, errlen) != 0)
		return -1;
	if (r->kind != EVK_CHECKPOINT &&
	    get_u64(m, "seq", &r->seq, err, errlen) != 0)
		return -1;
	r->has_sig = refd_mpv_ok(refd_mpv_get(m, "sig"));
	r->seat = -1;
	switch (r->kind) {
	case EVK_HEADER: {
		uint64_t u;
		refd_mpv d;

		if (get_i64(m, "format", &r->format, err, errlen) != 0)
			return -1;
		if (r->format != EVLOG_FORMAT)
			BAD("field 'format': found %" PRId64 ", expected %d; "
			    "this refd reads log format %d only", r->format,
			    EVLOG_FORMAT, EVLOG_FORMAT);
		if (get_str(m, "refd", r->refd_version,
		    sizeof(r->refd_version), 0, err, errlen) != 0 ||
		    get_str(m, "match", r->match, sizeof(r->match), 0, err,
		    errlen) != 0 ||
		    get_i64(m, "time", &r->time, err, errlen) != 0 ||
		    get_str(m, "ruleset", r->ruleset, sizeof(r->ruleset), 0,
		    err, errlen) != 0 ||
		    get_str(m, "ruleset_version", r->ruleset_version,
		    sizeof(r->ruleset_version), 0, err, errlen) != 0 ||
		    get_u64(m, "abi_major", &u, err, errlen) != 0)
			return -1;
		r->abi_major = (uint32_t)u;
		if (get_u64(m, "abi_minor", &u, err, errlen) != 0)
			return -1;
		r->abi_minor = (uint32_t)u;
		if (get_hash(m, "plugin_hash", r->plugin_hash, EVLOG_HASH_LEN,
		    err, errlen) != 0 ||
		    get_hash(m, "content_hash", r->content_hash,
		    EVLOG_HASH_LEN, err, errlen) != 0 ||
		    get_str(m, "scenario", r->scenario, sizeof(r->scenario), 1,
		    err, errlen) != 0 ||
		    get_msgpack(m, "setup", &r->setup, &r->setup_len, err,
		    errlen) != 0 ||
		    get_u64(m, "seats", &u, err, errlen) != 0)
			return -1;
		if (u < 1 || u > REFD_MAX_SEATS)
			BAD("field 'seats': found %" PRIu64 ", expected 1..%d", u,
			    REFD_MAX_SEATS);
		r->nseats = (uint32_t)u;
		if (get_hash(m, "commit", r->commit, EVLOG_HASH_LEN, err,
		    errlen) != 0 ||
		    get_hash(m, "pubkey", r->pubkey, EVLOG_PK_LEN, err,
		    errlen) != 0 ||
		    get_bin(m, "sealed_seed", &r->sealed, &r->sealed_len, err,
		    errlen) != 0)
			return -1;
		if (refd_mpv_bool(refd_mpv_get(m, "scripted"), &r->scripted) != 0)
			BAD("field 'scripted': expected a boolean");
		d = refd_mpv_get(m, "dice");
		if (r->scripted) {
			if (refd_mpv_type(d) != REFD_MP_ARRAY)
				BAD("field 'dice': expected an array for a "
				    "scripted match");
			r->ndice = refd_mpv_len(d);
			r->dice = calloc(r->ndice ? r->ndice : 1,
			    sizeof(*r->dice));
			if (r->dice == NULL)
				BAD("out of memory");
			for (i = 0; i < r->ndice; i++)
				if (refd_mpv_int(refd_mpv_at(d, i),
				    &r->dice[i]) != 0)
					BAD("field 'dice': item %zu: expected "
					    "an integer", i);
		}
		break;
	}
	case EVK_JOIN: {
		uint64_t u;

		if (get_u64(m, "seat", &u, err, errlen) != 0)
			return -1;
		if (u >= REFD_MAX_SEATS)
			BAD("field 'seat': out of range");
		r->seat = (int32_t)u;
		if (get_hash(m, "token_hash", r->token_hash, EVLOG_HASH_LEN,
		    err, errlen) != 0 ||
		    get_bin(m, "seed", &r->share, &r->share_len, err,
		    errlen) != 0)
			return -1;
		if (r->share_len > EVLOG_SHARE_MAX)
			BAD("field 'seed': longer than %d bytes",
			    EVLOG_SHARE_MAX);
		break;
	}
	case EVK_CMD: {
		uint64_t u;

		if (get_u64(m, "seat", &u, err, errlen) != 0)
			return -1;
		if (u >= REFD_MAX_SEATS)
			BAD("field 'seat': out of range");
		r->seat = (int32_t)u;
		if (get_str(m, "id", r->cmd_id, sizeof(r->cmd_id), 0, err,
		    errlen) != 0 ||
		    get_msgpack(m, "cmd", &r->cmd, &r->cmd_len, err,
		    errlen) != 0)
			return -1;
	}
		/* FALLTHROUGH */
	case EVK_START:
		if (dec_draws(refd_mpv_get(m, "draws"), r, err, errlen) != 0 ||
		    dec_events(refd_mpv_get(m, "events"), r, err, errlen) != 0 ||
		    dec_commits(refd_mpv_get(m, "commits"), &r->cm, &r->ncm, 0,
		    err, errlen) != 0 ||
		    get_hash(m, "state", r->state, EVLOG_HASH_LEN, err,
		    errlen) != 0)
			return -1;
		break;
	case EVK_CHECKPOINT:
		if (get_u64(m, "at", &r->at, err, errlen) != 0)
			return -1;
		break;
	case EVK_FINAL: {
		int64_t seat;

		if (get_str(m, "why", r->why, sizeof(r->why), 0, err,
		    errlen) != 0 ||
		    get_i64(m, "seat", &seat, err, errlen) != 0 ||
		    get_str(m, "reason", r->reason, sizeof(r->reason), 1, err,
		    errlen) != 0 ||
		    get_msgpack(m, "result", &r->result, &r->result_len, err,
		    errlen) != 0 ||
		    get_hash(m, "server_seed", r->server_seed, EVLOG_SEED_LEN,
		    err, errlen) != 0 ||
		    dec_commits(refd_mpv_get(m, "openings"), &r->open,
		    &r->nopen, 1, err, errlen) != 0 ||
		    dec_events(refd_mpv_get(m, "events"), r, err, errlen) != 0 ||
		    get_i64(m, "time", &r->time, err, errlen) != 0)
			return -1;
		if (seat < -1 || seat >= REFD_MAX_SEATS)
			BAD("field 'seat': out of range");
		r->seat = (int32_t)seat;
		break;
	}
	}
	if ((r->kind == EVK_HEADER || r->kind == EVK_CHECKPOINT ||
	    r->kind == EVK_FINAL) && !r->has_sig)
		BAD("field 'sig': missing from a %s record",
		    kind_names[r->kind]);
	return 0;
}

int
evlog_decode(const uint8_t *p, size_t len, struct evlog_rec *r, char *err,
    size_t errlen)
{
	memset(r, 0, sizeof(*r));
	r->doc = refd_mp_parse(p, len);
	if (r->doc == NULL) {
		snprintf(err, errlen, "payload is not well-formed msgpack");
		return -1;
	}
	return decode(refd_mp_root(r->doc), r, err, errlen);
}

void
evlog_rec_release(struct evlog_rec *r)
{
	free(r->dice);
	free(r->dr);
	free(r->ev);
	free(r->cm);
	free(r->open);
	refd_mp_free(r->doc);
	memset(r, 0, sizeof(*r));
}

/* Encoding. */

static void
sig_zero(refd_mpw *w)
{
	static const uint8_t z[EVLOG_SIG_LEN];

	refd_mpw_str(w, "sig");
	refd_mpw_bin(w, z, sizeof(z));
}

static void
head(refd_mpw *w, const char *kind, uint64_t n, int has_seq, uint64_t seq,
    const uint8_t *prev)
{
	refd_mpw_reset(w);
	refd_mpw_map(w);
	refd_mpw_kstr(w, "kind", kind);
	refd_mpw_kint(w, "n", (int64_t)n);
	if (has_seq)
		refd_mpw_kint(w, "seq", (int64_t)seq);
	refd_mpw_str(w, "prev");
	refd_mpw_bin(w, prev, EVLOG_HASH_LEN);
}

void
evlog_enc_header(refd_mpw *w, const uint8_t *prev,
    const struct evlog_header_args *a)
{
	size_t i;

	head(w, "header", 0, 1, 0, prev);
	refd_mpw_kint(w, "format", EVLOG_FORMAT);
	refd_mpw_kstr(w, "refd", REFD_VERSION);
	refd_mpw_kstr(w, "match", a->match);
	refd_mpw_kint(w, "time", a->time);
	refd_mpw_kstr(w, "ruleset", a->ruleset);
	refd_mpw_kstr(w, "ruleset_version", a->ruleset_version);
	refd_mpw_kint(w, "abi_major", a->abi_major);
	refd_mpw_kint(w, "abi_minor", a->abi_minor);
	refd_mpw_str(w, "plugin_hash");
	refd_mpw_bin(w, a->plugin_hash, EVLOG_HASH_LEN);
	refd_mpw_str(w, "content_hash");
	refd_mpw_bin(w, a->content_hash, EVLOG_HASH_LEN);
	refd_mpw_kstr(w, "scenario", a->scenario);
	refd_mpw_str(w, "setup");
	refd_mpw_bin(w, a->setup, a->setup_len);
	refd_mpw_kint(w, "seats", a->nseats);
	refd_mpw_str(w, "commit");
	refd_mpw_bin(w, a->commit, EVLOG_HASH_LEN);
	refd_mpw_kbool(w, "scripted", a->scripted);
	refd_mpw_kbool(w, "ranked", !a->scripted);
	refd_mpw_str(w, "dice");
	if (a->scripted) {
		refd_mpw_array(w);
		for (i = 0; i < a->ndice; i++)
			refd_mpw_int(w, a->dice[i]);
		refd_mpw_end(w);
	} else {
		refd_mpw_nil(w);
	}
	refd_mpw_str(w, "pubkey");
	refd_mpw_bin(w, a->pubkey, EVLOG_PK_LEN);
	refd_mpw_str(w, "sealed_seed");
	refd_mpw_bin(w, a->sealed, EVLOG_SEALED_LEN);
	sig_zero(w);
	refd_mpw_end(w);
}

void
evlog_enc_join(refd_mpw *w, uint64_t n, uint64_t seq, const uint8_t *prev,
    uint32_t seat, const uint8_t *token_hash, const uint8_t *share,
    size_t share_len)
{
	static const uint8_t none[1];

	head(w, "join", n, 1, seq, prev);
	refd_mpw_kint(w, "seat", seat);
	refd_mpw_str(w, "token_hash");
	refd_mpw_bin(w, token_hash, EVLOG_HASH_LEN);
	refd_mpw_str(w, "seed");
	refd_mpw_bin(w, share != NULL ? share : none, share_len);
	refd_mpw_end(w);
}

static void
enc_events(refd_mpw *w, const struct event *ev, size_t nev)
{
	size_t i;

	refd_mpw_karray(w, "events");
	for (i = 0; i < nev; i++) {
		refd_mpw_array(w);
		refd_mpw_int(w, ev[i].seat);
		refd_mpw_bin(w, ev[i].bytes, ev[i].len);
		refd_mpw_end(w);
	}
	refd_mpw_end(w);
}

void
evlog_enc_step(refd_mpw *w, uint64_t n, uint64_t seq, const uint8_t *prev,
    int32_t seat, const char *cmd_id, const uint8_t *cmd, size_t cmd_len,
    const struct call *c, const uint8_t *state_hash)
{
	size_t i;

	head(w, cmd != NULL ? "cmd" : "start", n, 1, seq, prev);
	if (cmd != NULL) {
		refd_mpw_kint(w, "seat", seat);
		refd_mpw_kstr(w, "id", cmd_id);
		refd_mpw_str(w, "cmd");
		refd_mpw_bin(w, cmd, cmd_len);
	}
	refd_mpw_karray(w, "draws");
	for (i = 0; i < c->ndr; i++) {
		refd_mpw_array(w);
		refd_mpw_int(w, (int64_t)c->dr[i].index);
		refd_mpw_int(w, c->dr[i].kind);
		refd_mpw_int(w, c->dr[i].bound);
		refd_mpw_int(w, c->dr[i].value);
		refd_mpw_str(w, c->dr[i].why);
		refd_mpw_end(w);
	}
	refd_mpw_end(w);
	enc_events(w, c->ev, c->nev);
	refd_mpw_karray(w, "commits");
	for (i = 0; i < c->ncm; i++) {
		refd_mpw_array(w);
		refd_mpw_str(w, c->cm[i].zone);
		refd_mpw_int(w, c->cm[i].seat);
		refd_mpw_bin(w, c->cm[i].hash, EVLOG_HASH_LEN);
		refd_mpw_end(w);
	}
	refd_mpw_end(w);
	refd_mpw_str(w, "state");
	refd_mpw_bin(w, state_hash, EVLOG_HASH_LEN);
	refd_mpw_end(w);
}

void
evlog_enc_checkpoint(refd_mpw *w, uint64_t n, const uint8_t *prev,
    uint64_t at)
{
	head(w, "checkpoint", n, 0, 0, prev);
	refd_mpw_kint(w, "at", (int64_t)at);
	sig_zero(w);
	refd_mpw_end(w);
}

int
evlog_host_result(uint32_t nseats, int started, int32_t loser,
    const char *reason, struct buf *out)
{
	refd_mpw *w = refd_mpw_create();
	uint32_t i;
	int rc = 0;

	if (w == NULL)
		return -1;
	refd_mpw_map(w);
	refd_mpw_karray(w, "winners");
	if (loser >= 0 && started)
		for (i = 0; i < nseats; i++)
			if ((int32_t)i != loser)
				refd_mpw_int(w, i);
	refd_mpw_end(w);
	refd_mpw_kstr(w, "reason", reason);
	refd_mpw_end(w);
	if (refd_mpw_error(w) || buf_add(out, refd_mpw_data(w),
	    refd_mpw_len(w)) != 0)
		rc = -1;
	refd_mpw_destroy(w);
	return rc;
}

void
evlog_end_event(refd_mpw *w, const char *why, int32_t seat,
    const char *reason, const uint8_t *result, size_t result_len)
{
	refd_mpw_map(w);
	refd_mpw_kstr(w, "type", "end");
	refd_mpw_kstr(w, "why", why);
	if (seat >= 0)
		refd_mpw_kint(w, "seat", seat);
	if (reason != NULL && reason[0] != '\0')
		refd_mpw_kstr(w, "reason", reason);
	refd_mpw_str(w, "result");
	refd_mpw_raw(w, result, result_len);
	refd_mpw_end(w);
}

void
evlog_enc_final(refd_mpw *w, uint64_t n, uint64_t seq, const uint8_t *prev,
    const char *why, int32_t seat, const char *reason, const uint8_t *result,
    size_t result_len, const uint8_t *server_seed,
    const struct commitment *open, size_t nopen, int64_t time)
{
	refd_mpw *ev = refd_mpw_create();
	struct event e;
	size_t i;

	head(w, "final", n, 1, seq, prev);
	refd_mpw_kint(w, "time", time);
	refd_mpw_kstr(w, "why", why);
	refd_mpw_kint(w, "seat", seat);
	refd_mpw_kstr(w, "reason", reason != NULL && reason[0] ? reason :
	    NULL);
	refd_mpw_str(w, "result");
	refd_mpw_bin(w, result, result_len);
	refd_mpw_str(w, "server_seed");
	refd_mpw_bin(w, server_seed, EVLOG_SEED_LEN);
	refd_mpw_karray(w, "openings");
	for (i = 0; i < nopen; i++) {
		refd_mpw_array(w);
		refd_mpw_str(w, open[i].zone);
		refd_mpw_int(w, open[i].seat);
		refd_mpw_bin(w, open[i].salt, sizeof(open[i].salt));
		refd_mpw_bin(w, open[i].data != NULL ? open[i].data :
		    open[i].salt, open[i].len);
		refd_mpw_end(w);
	}
	refd_mpw_end(w);
	if (ev != NULL) {
		evlog_end_event(ev, why, seat, reason, result, result_len);
		e.seat = REFD_SEAT_PUBLIC;
		e.bytes = (uint8_t *)(uintptr_t)refd_mpw_data(ev);
		e.len = refd_mpw_len(ev);
		enc_events(w, &e, refd_mpw_error(ev) ? 0 : 1);
		refd_mpw_destroy(ev);
	} else {
		/* Make the writer fail rather than lose the event. */
		refd_mpw_end(w);
		refd_mpw_end(w);
	}
	sig_zero(w);
	refd_mpw_end(w);
}

/* Comparison. */

static void
hexs(const uint8_t *b, size_t n, char *out, size_t outlen)
{
	size_t m = n;

	if (2 * m + 1 > outlen)
		m = (outlen - 1) / 2;
	hex_encode(b, m, out);
}

static void
draw_str(const struct draw *d, char *out, size_t n)
{
	snprintf(out, n, "%s %u of %s%u at index %" PRIu64 " ('%s')",
	    d->kind == DRAW_ROLL ? "roll" : "uniform", (unsigned)d->value,
	    d->kind == DRAW_ROLL ? "d" : "<", (unsigned)d->bound, d->index,
	    d->why);
}

int
evlog_compare(const struct evlog_rec *r, const struct call *c,
    const uint8_t *state_hash, char *err, size_t errlen)
{
	char a[160], b[160];
	size_t i;

	for (i = 0; i < r->ndr && i < c->ndr; i++) {
		const struct draw *x = &r->dr[i], *y = &c->dr[i];

		if (x->index != y->index || x->kind != y->kind ||
		    x->bound != y->bound || x->value != y->value ||
		    strcmp(x->why, y->why) != 0) {
			draw_str(y, a, sizeof(a));
			draw_str(x, b, sizeof(b));
			snprintf(err, errlen, "draw %zu: the replay gives %s, the log has %s",
			    i, a, b);
			return REFD_EDIVERGE;
		}
	}
	if (r->ndr != c->ndr) {
		snprintf(err, errlen, "draws: the replay gives %zu, the log has %zu", c->ndr,
		    r->ndr);
		return REFD_EDIVERGE;
	}
	for (i = 0; i < r->nev && i < c->nev; i++) {
		const struct evlog_event *x = &r->ev[i];
		const struct event *y = &c->ev[i];

		if (x->seat != y->seat) {
			snprintf(err, errlen, "event %zu: seat: the replay "
			    "gives %d, the log has %d", i, (int)y->seat, (int)x->seat);
			return REFD_EDIVERGE;
		}
		if (x->len != y->len || memcmp(x->bytes, y->bytes, x->len) != 0) {
			char *ja = mp_bytes_to_json_text(x->bytes, x->len, 0);
			char *jb = mp_bytes_to_json_text(y->bytes, y->len, 0);

			snprintf(err, errlen, "event %zu: the replay gives %s, the log has %s",
			    i, jb != NULL ? jb : "?", ja != NULL ? ja : "?");
			free(ja);
			free(jb);
			return REFD_EDIVERGE;
		}
	}
	if (r->nev != c->nev) {
		snprintf(err, errlen, "events: the replay gives %zu, the log has %zu", c->nev,
		    r->nev);
		return REFD_EDIVERGE;
	}
	for (i = 0; i < r->ncm && i < c->ncm; i++) {
		const struct evlog_commit *x = &r->cm[i];
		const struct commitment *y = &c->cm[i];

		if (strcmp(x->zone, y->zone) != 0 || x->seat != y->seat) {
			snprintf(err, errlen, "commitment %zu: zone: the replay "
			    "gives '%s' (seat %d), the log has '%s' (seat %d)", i, y->zone,
			    (int)y->seat, x->zone, (int)x->seat);
			return REFD_EDIVERGE;
		}
		if (memcmp(x->hash, y->hash, EVLOG_HASH_LEN) != 0) {
			hexs(y->hash, EVLOG_HASH_LEN, a, sizeof(a));
			hexs(x->hash, EVLOG_HASH_LEN, b, sizeof(b));
			snprintf(err, errlen, "commitment %zu ('%s'): hash: "
			    "the replay gives %s, the log has %s", i, x->zone, a, b);
			return REFD_EDIVERGE;
		}
	}
	if (r->ncm != c->ncm) {
		snprintf(err, errlen, "commitments: the replay gives %zu, the log has %zu",
		    c->ncm, r->ncm);
		return REFD_EDIVERGE;
	}
	if (state_hash != NULL &&
	    memcmp(r->state, state_hash, EVLOG_HASH_LEN) != 0) {
		hexs(state_hash, EVLOG_HASH_LEN, a, sizeof(a));
		hexs(r->state, EVLOG_HASH_LEN, b, sizeof(b));
		snprintf(err, errlen, "state hash: the replay gives %s, the log has %s", a, b);
		return REFD_EDIVERGE;
	}
	return REFD_OK;
}
