/*
 * replay.c - main for the fuzz targets built without libFuzzer: feed each
 * file named on the command line (or each file in a named directory) to
 * LLVMFuzzerTestOneInput once, as libFuzzer does when given files.  Prints
 * TAP, one test per input: an input "passes" when the target returns
 * (a crash or a sanitizer report ends the process).
 */
#include <dirent.h>
#include <sys/stat.h>

#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int ntests;

static void
one(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p = NULL;
	size_t n = 0, cap = 0, got;

	if (f == NULL) {
		printf("not ok %d - %s: %s\n", ++ntests, path, strerror(errno));
		return;
	}
	do {
		if (n == cap) {
			cap = cap ? cap * 2 : 4096;
			if ((p = realloc(p, cap)) == NULL)
				fuzz_die("%s", "out of memory");
		}
		got = fread(p + n, 1, cap - n, f);
		n += got;
	} while (got > 0);
	fclose(f);
	fflush(stdout);
	LLVMFuzzerTestOneInput(p, n);
	free(p);
	printf("ok %d - %s\n", ++ntests, path);
}

static int
cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
main(int argc, char **argv)
{
	struct stat st;
	int i;

	if (LLVMFuzzerInitialize != NULL)
		LLVMFuzzerInitialize(&argc, &argv);
	for (i = 1; i < argc; i++) {
		DIR *d;
		struct dirent *de;
		char **names = NULL;
		size_t nn = 0, k;

		if (stat(argv[i], &st) != 0 || !S_ISDIR(st.st_mode)) {
			one(argv[i]);
			continue;
		}
		if ((d = opendir(argv[i])) == NULL)
			continue;
		while ((de = readdir(d)) != NULL) {
			if (de->d_name[0] == '.')
				continue;
			names = realloc(names, (nn + 1) * sizeof(*names));
			names[nn] = malloc(strlen(argv[i]) +
			    strlen(de->d_name) + 2);
			sprintf(names[nn++], "%s/%s", argv[i], de->d_name);
		}
		closedir(d);
		qsort(names, nn, sizeof(*names), cmp);
		for (k = 0; k < nn; k++) {
			one(names[k]);
			free(names[k]);
		}
		free(names);
	}
	printf("1..%d\n", ntests);
	return 0;
}
