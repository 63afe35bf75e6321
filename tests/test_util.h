/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_util.h
 * What every gfec test shares: a seeded PRNG (GFEC_TEST_SEED overrides the fixed seed, and the
 * seed is printed so a failure can be replayed), buffers with chosen misalignment, poisoning.
 */
#ifndef GFEC_TEST_UTIL_H
#define GFEC_TEST_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t test_rng_state;

static inline void test_seed(void)
{
	const char *s = getenv("GFEC_TEST_SEED");

	test_rng_state = s ? strtoull(s, NULL, 0) : 0x9e3779b97f4a7c15ull;
	if (!test_rng_state)
		test_rng_state = 1;
	fprintf(stderr, "# GFEC_TEST_SEED=0x%llx\n", (unsigned long long)test_rng_state);
}

static inline uint64_t test_rand(void)
{
	/* xorshift64* */
	test_rng_state ^= test_rng_state >> 12;
	test_rng_state ^= test_rng_state << 25;
	test_rng_state ^= test_rng_state >> 27;
	return test_rng_state * 0x2545f4914f6cdd1dull;
}

/* Uniform in [lo, hi]. */
static inline int test_range(int lo, int hi)
{
	return lo + (int)(test_rand() % (uint64_t)(hi - lo + 1));
}

static inline void test_fill(uint8_t *p, size_t n)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t r = test_rand();

		memcpy(p + i, &r, 8);
	}
	for (; i < n; i++)
		p[i] = (uint8_t)test_rand();
}

/* A buffer of n bytes starting @p misalign bytes past a 64-byte boundary. Free with test_free. */
struct test_buf {
	uint8_t *base;
	uint8_t *p;
};

static inline uint8_t *tbuf_alloc(struct test_buf *b, size_t n, unsigned misalign)
{
	if (posix_memalign((void **)&b->base, 64, n + 64 + misalign) != 0)
		abort();
	b->p = b->base + misalign;
	return b->p;
}

static inline void tbuf_free(struct test_buf *b)
{
	free(b->base);
	b->base = b->p = NULL;
}

#define TEST_POISON 0xA5

#endif
