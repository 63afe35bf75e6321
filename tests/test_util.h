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
#include <time.h>

/* 1 in a ThreadSanitizer build: gcc's macro, or clang's feature test (its macro came late) */
#if defined(__SANITIZE_THREAD__)
#define GFEC_TEST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define GFEC_TEST_TSAN 1
#endif
#endif
#ifndef GFEC_TEST_TSAN
#define GFEC_TEST_TSAN 0
#endif

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

/* Seconds on the monotonic clock. */
static inline double test_now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static inline void test_sleep_us(long us)
{
	struct timespec t = { .tv_sec = us / 1000000, .tv_nsec = (us % 1000000) * 1000 };

	nanosleep(&t, NULL);
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

/*
 * n regions of len bytes, pointers into one block (a byte more, so that n * len = 0 allocates
 * too). Free the returned array and *blk.
 */
static inline uint8_t **test_regions(size_t n, size_t len, uint8_t **blk)
{
	uint8_t **r = malloc(sizeof(*r) * n);

	*blk = malloc(n * len + 1);
	if (!r || !*blk)
		abort();
	for (size_t i = 0; i < n; i++)
		r[i] = *blk + i * len;
	return r;
}

#define TEST_POISON 0xA5

/*
 * A stripe: k data + m parity chunks of len bytes in c[0..k+m-1], data random, parity poisoned.
 * With misalign each chunk starts test_range(0, 63) bytes past a 64-byte boundary (drawn before
 * its data), else on one. Free with tstripe_free.
 */
struct tstripe {
	int k, m;
	size_t len;
	struct test_buf *b;
	uint8_t **c;
};

static inline void tstripe_init(struct tstripe *s, int k, int m, size_t len, int misalign)
{
	s->k = k;
	s->m = m;
	s->len = len;
	s->b = calloc((size_t)(k + m), sizeof(*s->b));
	s->c = calloc((size_t)(k + m), sizeof(*s->c));
	if (!s->b || !s->c)
		abort();
	for (int i = 0; i < k + m; i++) {
		s->c[i] = tbuf_alloc(&s->b[i], len, misalign ? (unsigned)test_range(0, 63) : 0);
		if (i < k)
			test_fill(s->c[i], len);
		else
			memset(s->c[i], TEST_POISON, len);
	}
}

static inline void tstripe_free(struct tstripe *s)
{
	for (int i = 0; i < s->k + s->m; i++)
		tbuf_free(&s->b[i]);
	free(s->b);
	free(s->c);
	s->b = NULL;
	s->c = NULL;
}

#endif
