/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file fuzz.h
 * What the fuzz targets share. Each fuzz_<name>.c defines LLVMFuzzerTestOneInput (and, when it
 * needs one-time setup, LLVMFuzzerInitialize); libFuzzer or fuzz_main.c's corpus replay calls
 * them. FUZZ_CHECK turns a broken invariant of the parser under test into a crash, so that the
 * fuzzer saves the input as a finding: targets look for logic bugs, not only for memory errors.
 */
#ifndef GFEC_FUZZ_H
#define GFEC_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define FUZZ_CHECK(cond)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__,       \
				#cond);                                                            \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

/* The input as a C string, in a buffer of exactly its size (ASan sees a read past the NUL). */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	FUZZ_CHECK(s != NULL);
	if (size)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

#endif
