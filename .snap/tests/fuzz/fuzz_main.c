/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file fuzz_main.c
 * The replay driver: for builds without libFuzzer (gcc, the CI's plain and sanitizer builds), a
 * fuzz target linked with this main() runs LLVMFuzzerTestOneInput over every file of each
 * directory (and each file) named on the command line, plus the empty input, as libFuzzer's
 * -runs=0 would. An invariant the target checks aborts the run; a directory without a single
 * input is an error, so a lost corpus cannot pass for a clean one.
 *
 *   fuzz_NAME DIR|FILE...     exit 0: all replayed; 1: an input could not be read; 2: usage
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

#pragma weak LLVMFuzzerInitialize

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long size;
	int ret = -1;

	if (!f) {
		fprintf(stderr, "fuzz: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		/* Exactly the input's size, as libFuzzer hands it over: ASan sees any overread. */
		buf = malloc(size ? (size_t)size : 1);
		if (buf && fread(buf, 1, (size_t)size, f) == (size_t)size) {
			fprintf(stderr, "fuzz: %s (%ld bytes)\n", path, size);
			LLVMFuzzerTestOneInput(buf, (size_t)size);
			ret = 0;
		}
	}
	if (ret)
		fprintf(stderr, "fuzz: %s: cannot be read\n", path);
	free(buf);
	fclose(f);
	return ret;
}

static int select_visible(const struct dirent *e)
{
	return e->d_name[0] != '.';
}

/* @returns the number of inputs replayed, or -1. */
static int replay(const char *path)
{
	struct dirent **names;
	struct stat st;
	int n, done = 0, failed = 0;

	if (stat(path, &st) != 0) {
		fprintf(stderr, "fuzz: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return replay_file(path) ? -1 : 1;
	n = scandir(path, &names, select_visible, alphasort);
	if (n < 0) {
		fprintf(stderr, "fuzz: %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		size_t len = strlen(path) + strlen(names[i]->d_name) + 2;
		char *full = malloc(len);

		if (!full) {
			failed = 1;
		} else if (!failed) {
			snprintf(full, len, "%s/%s", path, names[i]->d_name);
			if (stat(full, &st) == 0 && S_ISREG(st.st_mode)) {
				failed = replay_file(full) != 0;
				done++;
			}
		}
		free(full);
		free(names[i]);
	}
	free(names);
	if (!failed && done == 0)
		fprintf(stderr, "fuzz: %s: no inputs in this directory\n", path);
	return failed || done == 0 ? -1 : done;
}

int main(int argc, char **argv)
{
	int total = 1, n;

	if (argc < 2 || strcmp(argv[1], "--help") == 0) {
		fprintf(stderr,
			"usage: %s DIR|FILE...  (replays every input through the fuzz "
			"target)\n",
			argv[0]);
		return 2;
	}
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	LLVMFuzzerTestOneInput((const uint8_t *)"", 0);
	for (int i = 1; i < argc; i++) {
		n = replay(argv[i]);
		if (n < 0)
			return 1;
		total += n;
	}
	printf("%s: %d inputs replayed, every invariant held\n", argv[0], total);
	return 0;
}
