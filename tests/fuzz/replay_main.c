/*
 * replay_main.c: the main of a fuzz target built without libFuzzer (any
 * compiler, make check). It runs every input through
 * LLVMFuzzerTestOneInput once: the files and directories (their regular
 * files, in name order) given as arguments, or with none the target's own
 * seed corpus, tests/fuzz/corpus/<name> for the program fuzz_<name>.
 * Arguments starting with '-' are libFuzzer options and are ignored, so
 * one command line (`fuzz_x -runs=0 DIR`) replays with either build.
 * Exit 0 when every input ran (a crash or sanitizer report ends it first),
 * 1 when an argument or the corpus cannot be read.
 */
#include "config.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int run_file(const char *path, unsigned *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long len;

	if (!f) {
		perror(path);
		return -1;
	}
	if (fseek(f, 0, SEEK_END) < 0 || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) < 0) {
		perror(path);
		fclose(f);
		return -1;
	}
	/* exactly len bytes: ASan sees any read past the input */
	buf = malloc(len ? (size_t)len : 1);
	if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) {
		fprintf(stderr, "%s: cannot read\n", path);
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	if (getenv("FUZZ_REPLAY_VERBOSE"))
		fprintf(stderr, "replay %s (%ld bytes)\n", path, len);
	LLVMFuzzerTestOneInput(buf, (size_t)len);
	free(buf);
	(*n)++;
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_path(const char *path, unsigned *n)
{
	struct stat st;
	struct dirent *de;
	char **names = NULL;
	size_t nn = 0, cap = 0, i;
	int rc = 0;
	DIR *d;

	if (stat(path, &st) < 0) {
		perror(path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return run_file(path, n);
	d = opendir(path);
	if (!d) {
		perror(path);
		return -1;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (nn == cap) {
			cap = cap ? cap * 2 : 64;
			names = realloc(names, cap * sizeof(*names));
			if (!names)
				abort();
		}
		names[nn] = malloc(strlen(path) + strlen(de->d_name) + 2);
		if (!names[nn])
			abort();
		sprintf(names[nn], "%s/%s", path, de->d_name);
		nn++;
	}
	closedir(d);
	qsort(names, nn, sizeof(*names), cmp_names);
	for (i = 0; i < nn; i++) {
		if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode) && run_file(names[i], n) < 0)
			rc = -1;
		free(names[i]);
	}
	free(names);
	return rc;
}

/* fuzz_<name> (or libtool's lt-fuzz_<name>) -> <name> */
static const char *target_name(const char *argv0)
{
	const char *b = strrchr(argv0, '/');

	b = b ? b + 1 : argv0;
	if (!strncmp(b, "lt-", 3))
		b += 3;
	if (!strncmp(b, "fuzz_", 5))
		b += 5;
	return b;
}

int main(int argc, char **argv)
{
	unsigned n = 0;
	int i, paths = 0, rc = 0;

	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (i = 1; i < argc; i++) {
		if (argv[i][0] == '-')
			continue;
		paths++;
		if (run_path(argv[i], &n) < 0)
			rc = 1;
	}
	if (!paths) {
		const char *top = getenv("top_srcdir");
		char dir[4096];

		snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus/%s", top ? top : TOP_SRCDIR,
			 target_name(argv[0]));
		if (run_path(dir, &n) < 0)
			rc = 1;
		if (!n) {
			fprintf(stderr, "%s: no inputs\n", dir);
			rc = 1;
		}
	}
	printf("%s: %u inputs replayed%s\n", target_name(argv[0]), n, rc ? ", with errors" : "");
	return rc;
}
