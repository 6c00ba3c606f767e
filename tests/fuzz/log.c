/*
 * log.c - fuzz target: a match log file through the offline verifier
 * (refctl verify: framing, record decoding, structure, hash chain,
 * signatures, seed commitment, openings and replay through the plugin).
 *
 * The first input byte is a mode: when its low bit is set, every frame's
 * length check and hash are recomputed before verifying, so that mutated
 * record payloads get past the framing into the record decoder and the
 * replay.  The rest is the file.
 *
 * FUZZ_MKSEEDS=DIR: instead of fuzzing, write a few logs of the plugin
 * under test (finished and unfinished matches) into DIR as seeds.
 */
#include <sys/stat.h>

#include "daemon.h"
#include "evlog.h"
#include "refctl.h"

static void
write_file(const char *path, const uint8_t *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (f == NULL || fwrite(p, 1, n, f) != n || fclose(f) != 0)
		fuzz_die("cannot write %s", path);
}

static void
mkseeds(const char *dir)
{
	struct match_err e;
	struct buf b;
	char path[4200];
	unsigned k;
	int r;

	fd_init();
	buf_init(&b);
	for (k = 0; k < 3; k++) {
		fd.live = NULL;
		fd_live();
		for (r = 0; r < 2; r++) {
			/* First a few commands (unfinished), then to the end
			 * (resigning when the game will not end). */
			fd_play(fd.live, fd.token, fd.nseats, r == 0 ? 3 : 400, k);
			if (r == 1 && !match_finished(fd.live))
				(void)match_resign(fd.live, 0, fd.token[0], &e);
			buf_reset(&b);
			if (match_export(fd.live, &b, &e) != 0)
				fuzz_die("export: %s", e.message);
			snprintf(path, sizeof(path), "%s/%s-%u-%s.log", dir,
			    fd.pl->name, k, r == 0 ? "part" : "full");
			/* Mode byte 0: the file as it is. */
			{
				uint8_t *x = malloc(b.len + 1);

				x[0] = 0;
				memcpy(x + 1, b.data, b.len);
				write_file(path, x, b.len + 1);
				free(x);
			}
		}
	}
	buf_release(&b);
	exit(0);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *seeds = getenv("FUZZ_MKSEEDS");

	(void)argc;
	(void)argv;
	if (seeds != NULL && seeds[0] != '\0')
		mkseeds(seeds);
	(void)fuzz_plugin();
	return 0;
}

/* Recompute each frame's ~len and hash where the lengths allow. */
static void
refix(uint8_t *p, size_t n)
{
	size_t off = EVLOG_MAGIC_LEN;

	if (n >= EVLOG_MAGIC_LEN)
		memcpy(p, EVLOG_MAGIC, EVLOG_MAGIC_LEN);
	while (off + EVLOG_FRAME_OVERHEAD <= n) {
		uint32_t len = (uint32_t)p[off] << 24 | (uint32_t)p[off + 1] <<
		    16 | (uint32_t)p[off + 2] << 8 | p[off + 3];
		uint32_t inv = ~len;

		if ((uint64_t)len + EVLOG_FRAME_OVERHEAD > n - off)
			break;
		p[off + 4] = (uint8_t)(inv >> 24);
		p[off + 5] = (uint8_t)(inv >> 16);
		p[off + 6] = (uint8_t)(inv >> 8);
		p[off + 7] = (uint8_t)inv;
		evlog_hash(p + off + EVLOG_FRAME_HEAD, len,
		    p + off + EVLOG_FRAME_HEAD + len);
		off += EVLOG_FRAME_OVERHEAD + len;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct plugin *pl = fuzz_plugin();
	char path[4200];
	char *argv[9];
	uint8_t *x;
	int argc = 0;

	if (size < 1)
		return 0;
	x = malloc(size);
	if (x == NULL)
		return 0;
	memcpy(x, data + 1, size - 1);
	if (data[0] & 1)
		refix(x, size - 1);
	snprintf(path, sizeof(path), "%s/in.log", fuzz_dir());
	write_file(path, x, size - 1);
	free(x);
	argv[argc++] = "verify";
	argv[argc++] = path;
	argv[argc++] = "--plugin";
	argv[argc++] = pl->path;
	if (pl->content_dir != NULL) {
		argv[argc++] = "--content";
		argv[argc++] = pl->content_dir;
	}
	argv[argc++] = "-q";
	argv[argc] = NULL;
	(void)cmd_verify(argc, argv);
	return 0;
}
