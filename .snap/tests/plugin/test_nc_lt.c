/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_nc_lt.c
 * The LT family through the public segment-coding API (gfec_nc.h): encode against a plain XOR of
 * the neighbours, round trips for random loss and order at n in {1, 2, 128, 1024, 10240},
 * repeated and post-completion blocks counted dependent, foreign, truncated and garbage blocks
 * refused with the decoder unchanged, bad parameters, what LT does not support, a segment
 * that peeling alone cannot finish decoding exactly, and decoders made after others were freed.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "gfec/gfec_nc.h"
#include "lt.h"
#include "test_util.h"

static gfec_nc *mk_lt(uint32_t n, uint32_t B, int threads)
{
	struct gfec_nc_params p = { .n = n, .block_size = B, .threads = threads,
				    .family = GFEC_NC_LT };
	gfec_nc *nc = NULL;

	assert_int_equal(gfec_nc_create(&p, &nc), 0);
	return nc;
}

static void test_params(void **state)
{
	struct gfec_nc_params p = { .n = 16, .block_size = 64, .threads = 1,
				    .family = GFEC_NC_LT };
	gfec_nc *nc = NULL;

	(void)state;
	p.n = 0;
	assert_int_equal(gfec_nc_create(&p, &nc), GFEC_E_INVAL);
	p.n = GFEC_NC_MAX_N + 1;
	assert_int_equal(gfec_nc_create(&p, &nc), GFEC_E_INVAL);
	p.n = 16;
	p.lt_c = -0.5;
	assert_int_equal(gfec_nc_create(&p, &nc), GFEC_E_INVAL);
	p.lt_c = NAN;
	assert_int_equal(gfec_nc_create(&p, &nc), GFEC_E_INVAL);
	p.lt_c = 0.1;
	p.lt_delta = 1.0;
	assert_int_equal(gfec_nc_create(&p, &nc), GFEC_E_INVAL);
	p.lt_delta = -0.1;
	assert_int_equal(gfec_nc_create(&p, &nc), GFEC_E_INVAL);
	p.lt_delta = NAN;
	assert_int_equal(gfec_nc_create(&p, &nc), GFEC_E_INVAL);
	p.lt_delta = 0.5;
	p.flags = GFEC_NC_SYSTEMATIC;
	assert_int_equal(gfec_nc_create(&p, &nc), GFEC_E_INVAL);
	p.flags = 0;
	p.family = 3;
	assert_int_equal(gfec_nc_create(&p, &nc), GFEC_E_INVAL);
	p.family = GFEC_NC_RLC; /* LT parameters on an RLC code */
	assert_int_equal(gfec_nc_create(&p, &nc), GFEC_E_INVAL);
	assert_null(nc);
	p.family = GFEC_NC_LT;
	assert_int_equal(gfec_nc_create(&p, &nc), 0);
	gfec_nc_free(nc);
	/* LT takes n past RLC's bound; RLC still refuses it */
	p.n = GFEC_NC_RLC_MAX_N + 1;
	assert_int_equal(gfec_nc_create(&p, &nc), 0);
	gfec_nc_free(nc);
	p.family = 0;
	p.lt_c = p.lt_delta = 0.0;
	assert_int_equal(gfec_nc_create(&p, &nc), GFEC_E_INVAL);
}

/* Encode: headers as the format says, payload = XOR of the neighbours lt.h names. */
static void test_encode(void **state)
{
	const uint32_t n = 100, B = 37, count = 300, first = 1000;
	gfec_nc *nc = mk_lt(n, B, 2);
	const size_t bytes = gfec_nc_block_bytes(nc, GFEC_NC_KIND_SEED);
	struct gfec_lt_dist *dist = NULL;
	uint8_t *seg[2], *out = malloc(2 * count * bytes), ref[37];
	uint32_t idx[100];
	struct gfec_nc_segment sg[2];

	(void)state;
	test_seed();
	assert_int_equal(bytes, 28 + B);
	assert_int_equal(gfec_lt_dist_create(n, GFEC_LT_DEFAULT_C, GFEC_LT_DEFAULT_DELTA, &dist),
			 0);
	for (int s = 0; s < 2; s++) {
		seg[s] = malloc((size_t)n * B);
		test_fill(seg[s], (size_t)n * B);
		sg[s] = (struct gfec_nc_segment){ .id = 77 + s, .data = seg[s] };
	}
	memset(out, 0xA5, 2 * count * bytes);
	assert_int_equal(gfec_nc_encode(nc, sg, 2, first, count, out, 2 * count * bytes - 1),
			 GFEC_E_INVAL);
	assert_int_equal(gfec_nc_encode(nc, sg, 2, first, count, out, 2 * count * bytes), 0);
	for (int s = 0; s < 2; s++) {
		for (uint32_t j = 0; j < count; j++) {
			const uint8_t *blk = out + ((size_t)s * count + j) * bytes;
			struct gfec_nc_block b;
			uint32_t d = gfec_lt_block(dist, first + j, idx);

			assert_int_equal(gfec_nc_block_unpack(blk, bytes, &b), 0);
			assert_true(b.family == GFEC_NC_LT && b.kind == GFEC_NC_KIND_SEED &&
				    b.flags == 0 && b.n == n && b.block_size == B &&
				    b.segment == 77u + s && b.seed == first + j);
			memset(ref, 0, B);
			for (uint32_t i = 0; i < d; i++)
				for (uint32_t x = 0; x < B; x++)
					ref[x] ^= seg[s][(size_t)idx[i] * B + x];
			assert_memory_equal(b.payload, ref, B);
		}
	}
	gfec_lt_dist_free(dist);
	free(seg[0]);
	free(seg[1]);
	free(out);
	gfec_nc_free(nc);
}

/*
 * Blocks with seeds first.. first + count - 1, a fraction @p loss of them lost, given in random
 * order until COMPLETE, which must come on the very block after which lt.h's decoder (@p ref,
 * structure only) says the blocks decode: the segment read back must be exact. Returns the
 * blocks added.
 */
static uint32_t roundtrip(gfec_nc *nc, struct gfec_lt_decoder *ref, uint32_t n, uint32_t B,
			  double loss)
{
	const uint32_t count = (uint32_t)((n + n / 4 + 64) / (1.0 - loss)) + 1;
	const size_t bytes = gfec_nc_block_bytes(nc, GFEC_NC_KIND_SEED);
	const uint64_t id = test_rand();
	uint8_t *seg = malloc((size_t)n * B), *out = malloc((size_t)n * B + 1);
	uint8_t *blk = malloc((size_t)count * bytes);
	uint32_t *perm = malloc(sizeof(*perm) * count), added = 0, first = (uint32_t)test_rand();
	struct gfec_nc_segment sg = { .id = id, .data = seg };
	struct gfec_nc_decoder_stats st;
	gfec_nc_decoder *d = NULL;
	int r = GFEC_NC_INNOVATIVE;

	if (first > UINT32_MAX - count)
		first -= count;
	test_fill(seg, (size_t)n * B);
	assert_int_equal(gfec_nc_encode(nc, &sg, 1, first, count, blk, (size_t)count * bytes), 0);
	for (uint32_t i = 0; i < count; i++)
		perm[i] = i;
	for (uint32_t i = count; i > 1; i--) {
		uint32_t j = (uint32_t)(test_rand() % i), t = perm[i - 1];

		perm[i - 1] = perm[j];
		perm[j] = t;
	}
	assert_int_equal(gfec_nc_decoder_create(nc, id, &d), 0);
	gfec_lt_decoder_reset(ref);
	memset(out, 0x5A, (size_t)n * B + 1);
	for (uint32_t i = 0; i < count && r != GFEC_NC_COMPLETE; i++) {
		if ((double)(test_rand() % 1000000) < loss * 1e6)
			continue;
		if (added < n)
			assert_int_equal(gfec_nc_decoder_read(d, out, (size_t)n * B),
					 GFEC_E_TOOFEW);
		r = gfec_nc_decoder_add(d, blk + (size_t)perm[i] * bytes, bytes);
		assert_true(r == GFEC_NC_INNOVATIVE || r == GFEC_NC_COMPLETE);
		added++;
		assert_true(gfec_lt_decoder_add(ref, first + perm[i], NULL) > 0);
		assert_int_equal(gfec_lt_decoder_check(ref, added, 0), r == GFEC_NC_COMPLETE);
		assert_int_equal(gfec_nc_decoder_rank(d),
				 r == GFEC_NC_COMPLETE ? n : (added < n ? added : n - 1));
	}
	assert_int_equal(r, GFEC_NC_COMPLETE);
	assert_true(added >= n);
	assert_int_equal(gfec_nc_decoder_read(d, out, (size_t)n * B), 0);
	assert_memory_equal(out, seg, (size_t)n * B);
	assert_int_equal(out[(size_t)n * B], 0x5A);
	/* complete: a repeat and a new block are both dependent, the state unchanged */
	assert_int_equal(gfec_nc_decoder_add(d, blk, bytes), GFEC_NC_DEPENDENT);
	assert_int_equal(gfec_nc_decoder_add(d, blk + (size_t)perm[0] * bytes, bytes),
			 GFEC_NC_DEPENDENT);
	gfec_nc_decoder_stats(d, &st);
	assert_true(st.received == added + 2 && st.innovative == added && st.dependent == 2 &&
		    st.refused == 0);
	assert_int_equal(gfec_nc_decoder_rank(d), n);
	memset(out, 0, (size_t)n * B);
	assert_int_equal(gfec_nc_decoder_read(d, out, (size_t)n * B), 0);
	assert_memory_equal(out, seg, (size_t)n * B);
	gfec_nc_decoder_free(d);
	free(seg);
	free(out);
	free(blk);
	free(perm);
	return added;
}

static void test_roundtrip(void **state)
{
	static const uint32_t ns[] = { 1, 2, 128, 1024, 10240 };

	(void)state;
	test_seed();
	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		uint32_t n = ns[i], B = n >= 10240 ? 16 : (uint32_t)test_range(1, 300);
		int reps = n >= 10240 ? 1 : n >= 1024 ? 3 : 10;
		gfec_nc *nc = mk_lt(n, B, 1 + (int)(i % 2));
		struct gfec_lt_dist *dist = NULL;
		struct gfec_lt_decoder *ref = NULL;

		assert_int_equal(gfec_lt_dist_create(n, GFEC_LT_DEFAULT_C, GFEC_LT_DEFAULT_DELTA,
						     &dist), 0);
		assert_int_equal(gfec_lt_decoder_create(dist, 1, &ref), 0);
		for (int r = 0; r < reps; r++) {
			double loss = (double)test_range(0, 50) / 100.0;
			uint32_t added = roundtrip(nc, ref, n, B, loss);

			/* a loose bound: the overhead tests are in test_lt and gfec-lt-bench */
			assert_true(added <= n + n / 4 + 32);
		}
		gfec_lt_decoder_free(ref);
		gfec_lt_dist_free(dist);
		gfec_nc_free(nc);
	}
}

/* A repeated seed before completion is dependent and changes nothing. */
static void test_repeat(void **state)
{
	const uint32_t n = 64, B = 24;
	gfec_nc *nc = mk_lt(n, B, 1);
	const size_t bytes = gfec_nc_block_bytes(nc, GFEC_NC_KIND_SEED);
	uint8_t seg[64 * 24], blk[3 * (28 + 24)];
	struct gfec_nc_segment sg = { .id = 5, .data = seg };
	struct gfec_nc_decoder_stats st;
	gfec_nc_decoder *d = NULL;

	(void)state;
	test_fill(seg, sizeof(seg));
	assert_int_equal(gfec_nc_encode(nc, &sg, 1, 0, 3, blk, sizeof(blk)), 0);
	assert_int_equal(gfec_nc_decoder_create(nc, 5, &d), 0);
	assert_int_equal(gfec_nc_decoder_add(d, blk, bytes), GFEC_NC_INNOVATIVE);
	assert_int_equal(gfec_nc_decoder_add(d, blk + bytes, bytes), GFEC_NC_INNOVATIVE);
	assert_int_equal(gfec_nc_decoder_add(d, blk, bytes), GFEC_NC_DEPENDENT);
	assert_int_equal(gfec_nc_decoder_rank(d), 2);
	assert_int_equal(gfec_nc_decoder_add(d, blk + 2 * bytes, bytes), GFEC_NC_INNOVATIVE);
	gfec_nc_decoder_stats(d, &st);
	assert_true(st.received == 4 && st.innovative == 3 && st.dependent == 1 &&
		    st.refused == 0);
	gfec_nc_decoder_free(d);
	gfec_nc_free(nc);
}

/*
 * The seen seeds' table past the room it is made with (nc_lt.c sizes it for about n + n/16 + 16
 * blocks): at n = 2, 200 blocks that all name source 0 alone are each new, never complete, and
 * grow the table by several doublings; every one of them is then a repeat, and a block naming
 * source 1 completes the segment.
 */
static void test_seen_grows(void **state)
{
	const uint32_t n = 2, B = 8, many = 200;
	gfec_nc *nc = mk_lt(n, B, 1);
	const size_t bytes = gfec_nc_block_bytes(nc, GFEC_NC_KIND_SEED);
	uint8_t seg[2 * 8], out[2 * 8], *blk = malloc(many * bytes), last[64];
	struct gfec_nc_segment sg = { .id = 9, .data = seg };
	struct gfec_nc_decoder_stats st;
	struct gfec_lt_dist *dist;
	gfec_nc_decoder *d = NULL;
	uint32_t idx[2], seed = 0, other = UINT32_MAX;

	(void)state;
	assert_non_null(blk);
	assert_true(bytes <= sizeof(last));
	test_fill(seg, sizeof(seg));
	assert_int_equal(gfec_lt_dist_create(n, GFEC_LT_DEFAULT_C, GFEC_LT_DEFAULT_DELTA, &dist), 0);
	assert_int_equal(gfec_nc_decoder_create(nc, 9, &d), 0);
	for (uint32_t j = 0; j < many; seed++) {
		uint32_t deg = gfec_lt_block(dist, seed, idx);

		if (deg != 1 || idx[0] != 0) {
			if (other == UINT32_MAX)
				other = seed;
			continue;
		}
		assert_int_equal(gfec_nc_encode(nc, &sg, 1, seed, 1, blk + j * bytes, bytes), 0);
		assert_int_equal(gfec_nc_decoder_add(d, blk + j * bytes, bytes), GFEC_NC_INNOVATIVE);
		j++;
	}
	assert_true(other != UINT32_MAX);
	for (uint32_t j = 0; j < many; j++)
		assert_int_equal(gfec_nc_decoder_add(d, blk + j * bytes, bytes), GFEC_NC_DEPENDENT);
	assert_int_equal(gfec_nc_decoder_read(d, out, sizeof(out)), GFEC_E_TOOFEW);
	assert_int_equal(gfec_nc_encode(nc, &sg, 1, other, 1, last, bytes), 0);
	assert_int_equal(gfec_nc_decoder_add(d, last, bytes), GFEC_NC_COMPLETE);
	assert_int_equal(gfec_nc_decoder_read(d, out, sizeof(out)), 0);
	assert_memory_equal(out, seg, sizeof(seg));
	gfec_nc_decoder_stats(d, &st);
	assert_true(st.received == 2 * many + 1 && st.innovative == many + 1 &&
		    st.dependent == many && st.refused == 0);
	gfec_nc_decoder_free(d);
	gfec_lt_dist_free(dist);
	gfec_nc_free(nc);
	free(blk);
}

/*
 * Decoders one after another on one code: a freed decoder's memory is kept for the next one made
 * (nc_lt.c), which must start empty. A decoder freed half-way through segment 1 is followed by
 * one on segment 2 while a third, made with nothing kept, decodes segment 1; each gets its own
 * segment back exactly, and the second's counts start from zero.
 */
static void test_reuse(void **state)
{
	const uint32_t n = 300, B = 40, count = 2 * n;
	gfec_nc *nc = mk_lt(n, B, 1);
	const size_t bytes = gfec_nc_block_bytes(nc, GFEC_NC_KIND_SEED);
	uint8_t *seg = malloc(2 * (size_t)n * B), *out = malloc((size_t)n * B);
	uint8_t *blk = malloc(2 * (size_t)count * bytes);
	struct gfec_nc_segment sg[2] = { { .id = 1, .data = seg },
					 { .id = 2, .data = seg + (size_t)n * B } };
	struct gfec_nc_decoder_stats st;
	gfec_nc_decoder *half = NULL, *two = NULL, *one = NULL;
	int r2 = GFEC_NC_INNOVATIVE, r1 = GFEC_NC_INNOVATIVE;

	(void)state;
	assert_non_null(seg);
	assert_non_null(out);
	assert_non_null(blk);
	test_fill(seg, 2 * (size_t)n * B);
	/* segment s's block j at blk + (s * count + j) * bytes */
	assert_int_equal(gfec_nc_encode(nc, sg, 2, 7, count, blk, 2 * (size_t)count * bytes), 0);
	assert_int_equal(gfec_nc_decoder_create(nc, 1, &half), 0);
	for (uint32_t j = 0; j < n / 2; j++)
		assert_int_equal(gfec_nc_decoder_add(half, blk + (size_t)j * bytes, bytes),
				 GFEC_NC_INNOVATIVE);
	gfec_nc_decoder_free(half);
	assert_int_equal(gfec_nc_decoder_create(nc, 2, &two), 0);
	assert_int_equal(gfec_nc_decoder_create(nc, 1, &one), 0);
	assert_int_equal(gfec_nc_decoder_rank(two), 0);
	gfec_nc_decoder_stats(two, &st);
	assert_true(st.received == 0 && st.innovative == 0 && st.dependent == 0);
	/* segment 1's blocks are foreign to two */
	assert_int_equal(gfec_nc_decoder_add(two, blk, bytes), GFEC_E_FOREIGN);
	for (uint32_t j = 0; j < count && (r1 != GFEC_NC_COMPLETE || r2 != GFEC_NC_COMPLETE); j++) {
		if (r2 != GFEC_NC_COMPLETE)
			r2 = gfec_nc_decoder_add(two, blk + (size_t)(count + j) * bytes, bytes);
		if (r1 != GFEC_NC_COMPLETE)
			r1 = gfec_nc_decoder_add(one, blk + (size_t)(count - 1 - j) * bytes, bytes);
		assert_true(r1 == GFEC_NC_INNOVATIVE || r1 == GFEC_NC_COMPLETE);
		assert_true(r2 == GFEC_NC_INNOVATIVE || r2 == GFEC_NC_COMPLETE);
	}
	assert_int_equal(r1, GFEC_NC_COMPLETE);
	assert_int_equal(r2, GFEC_NC_COMPLETE);
	gfec_nc_decoder_stats(two, &st);
	assert_true(st.refused == 1 && st.received == st.innovative && st.dependent == 0);
	assert_int_equal(gfec_nc_decoder_read(two, out, (size_t)n * B), 0);
	assert_memory_equal(out, seg + n * B, (size_t)n * B);
	assert_int_equal(gfec_nc_decoder_read(one, out, (size_t)n * B), 0);
	assert_memory_equal(out, seg, (size_t)n * B);
	gfec_nc_decoder_free(two);
	gfec_nc_decoder_free(one); /* the one kept before (two's) is freed */
	free(seg);
	free(out);
	free(blk);
	gfec_nc_free(nc); /* and the last */
}

/* Foreign, truncated, garbage and unsupported blocks: refused, the decoder unchanged. */
static void test_bad_blocks(void **state)
{
	const uint32_t n = 32, B = 40;
	gfec_nc *nc = mk_lt(n, B, 1), *other_n = mk_lt(n + 1, B, 1), *other_b = mk_lt(n, B + 1, 1);
	struct gfec_nc_params rp = { .n = n, .block_size = B, .threads = 1 };
	gfec_nc *rlc = NULL;
	const size_t bytes = gfec_nc_block_bytes(nc, GFEC_NC_KIND_SEED);
	uint8_t seg[33 * 41], blk[4096], out[32 * 40], coef[32] = { 1 };
	struct gfec_nc_segment sg = { .id = 9, .data = seg };
	struct gfec_nc_decoder_stats st;
	struct gfec_nc_block cb = { .family = GFEC_NC_LT, .kind = GFEC_NC_KIND_COEF, .n = n,
				    .block_size = B, .segment = 9, .coefs = coef };
	gfec_nc_decoder *d = NULL;
	uint64_t refused = 0, dependent = 0;
	uint32_t added = 1;
	int r;

	(void)state;
	test_seed();
	test_fill(seg, sizeof(seg));
	assert_int_equal(gfec_nc_create(&rp, &rlc), 0);
	assert_int_equal(gfec_nc_decoder_create(nc, 9, &d), 0);
	assert_int_equal(gfec_nc_encode(nc, &sg, 1, 0, 1, blk, bytes), 0);
	assert_int_equal(gfec_nc_decoder_add(d, blk, bytes), GFEC_NC_INNOVATIVE);
	/* truncated anywhere */
	assert_int_equal(gfec_nc_encode(nc, &sg, 1, 1, 1, blk, bytes), 0);
	for (size_t l = 0; l < bytes; l++, refused++)
		assert_int_equal(gfec_nc_decoder_add(d, blk, l), GFEC_E_FORMAT);
	/* garbage: random bytes; any that parse as this segment's block would be a real block */
	for (int i = 0; i < 1000; i++) {
		uint8_t g[28 + 40];

		test_fill(g, sizeof(g));
		if (i % 2)
			memcpy(g, blk, 5 + (size_t)(i % 19)); /* a good prefix, up to the segment */
		r = gfec_nc_decoder_add(d, g, sizeof(g));
		if (r < 0) {
			assert_true(r == GFEC_E_FORMAT || r == GFEC_E_FOREIGN);
			refused++;
		} else {
			/* the segment id's last byte happened to match: a block like any other */
			assert_true(r == GFEC_NC_INNOVATIVE || r == GFEC_NC_DEPENDENT);
			added += r == GFEC_NC_INNOVATIVE;
			dependent += r == GFEC_NC_DEPENDENT;
		}
	}
	/* one corrupted field at a time: magic, version, family, kind, flags */
	static const struct { size_t off; uint8_t val; int err; } bad[] = {
		{ 0, 'X', GFEC_E_FORMAT }, { 4, 2, GFEC_E_FORMAT }, { 5, 3, GFEC_E_FORMAT },
		{ 5, GFEC_NC_RLC, GFEC_E_FOREIGN }, { 6, 3, GFEC_E_FORMAT },
		{ 7, 0x80, GFEC_E_FORMAT }, { 7, GFEC_NC_ZERO_COEFS, GFEC_E_FOREIGN },
		{ 7, GFEC_NC_SYSTEMATIC, GFEC_E_FOREIGN }, { 16, 8, GFEC_E_FOREIGN },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++, refused++) {
		uint8_t save = blk[bad[i].off];

		blk[bad[i].off] = bad[i].val;
		assert_int_equal(gfec_nc_decoder_add(d, blk, bytes), bad[i].err);
		blk[bad[i].off] = save;
	}
	/* another n, another B, an RLC block of the same shape and segment */
	assert_int_equal(gfec_nc_encode(other_n, &sg, 1, 1, 1, blk, sizeof(blk)), 0);
	assert_int_equal(gfec_nc_decoder_add(d, blk, sizeof(blk)), GFEC_E_FOREIGN);
	assert_int_equal(gfec_nc_encode(other_b, &sg, 1, 1, 1, blk, sizeof(blk)), 0);
	assert_int_equal(gfec_nc_decoder_add(d, blk, sizeof(blk)), GFEC_E_FOREIGN);
	assert_int_equal(gfec_nc_encode(rlc, &sg, 1, 1, 1, blk, sizeof(blk)), 0);
	assert_int_equal(gfec_nc_decoder_add(d, blk, sizeof(blk)), GFEC_E_FOREIGN);
	/* a coefficient-carrying LT block is not supported */
	assert_int_equal(gfec_nc_block_pack(&cb, blk, sizeof(blk)), 24 + n);
	assert_int_equal(gfec_nc_decoder_add(d, blk, 24 + n + B), GFEC_E_NOTSUP);
	assert_int_equal(gfec_nc_decoder_add(d, NULL, bytes), GFEC_E_INVAL);
	refused += 4;
	gfec_nc_decoder_stats(d, &st);
	assert_true(st.refused == refused && st.received == added + dependent &&
		    st.innovative == added && st.dependent == dependent);
	assert_true(refused > 1000); /* the garbage loop's random headers were nearly all refused */
	assert_int_equal(gfec_nc_decoder_rank(d), added < n ? added : n - 1);
	assert_int_equal(gfec_nc_decoder_read(d, out, sizeof(out)), GFEC_E_TOOFEW);
	/* what LT does not do */
	assert_int_equal(gfec_nc_recode(d, 0, 1, blk, sizeof(blk)), GFEC_E_NOTSUP);
	gfec_nc_decoder_free(d);
	gfec_nc_free(nc);
	gfec_nc_free(other_n);
	gfec_nc_free(other_b);
	gfec_nc_free(rlc);
}

/*
 * A set of blocks that peeling alone cannot finish (lt.h's GFEC_LT_PEEL_ONLY says so) but that
 * spans the sources: the public decoder completes on its last block and reads back exactly.
 */
static void test_stall(void **state)
{
	const uint32_t n = 128, B = 48, count = 2 * n;
	gfec_nc *nc = mk_lt(n, B, 1);
	const size_t bytes = gfec_nc_block_bytes(nc, GFEC_NC_KIND_SEED);
	struct gfec_lt_dist *dist = NULL;
	struct gfec_lt_decoder *ref = NULL;
	uint8_t *seg = malloc((size_t)n * B), *out = malloc((size_t)n * B);
	uint8_t *blk = malloc((size_t)count * bytes);
	struct gfec_nc_segment sg = { .id = 3, .data = seg };
	int found = 0;

	(void)state;
	test_seed();
	test_fill(seg, (size_t)n * B);
	assert_int_equal(gfec_lt_dist_create(n, GFEC_LT_DEFAULT_C, GFEC_LT_DEFAULT_DELTA, &dist),
			 0);
	assert_int_equal(gfec_lt_decoder_create(dist, B, &ref), 0);
	for (uint32_t base = 0; base < 100 * count && found < 5; base += count) {
		uint32_t m;
		gfec_nc_decoder *d = NULL;

		gfec_lt_decoder_reset(ref);
		for (m = 0; m < count; m++) {
			assert_true(gfec_lt_decoder_add(ref, base + m, NULL) > 0);
			if (gfec_lt_decoder_check(ref, m + 1, 0) == 1)
				break;
		}
		if (m == count || gfec_lt_decoder_check(ref, m + 1, GFEC_LT_PEEL_ONLY) != 0)
			continue; /* peeling alone sufficed */
		found++;
		assert_int_equal(
			gfec_nc_encode(nc, &sg, 1, base, m + 1, blk, (size_t)count * bytes), 0);
		assert_int_equal(gfec_nc_decoder_create(nc, 3, &d), 0);
		for (uint32_t i = 0; i < m; i++)
			assert_int_equal(gfec_nc_decoder_add(d, blk + (size_t)i * bytes, bytes),
					 GFEC_NC_INNOVATIVE);
		assert_int_equal(gfec_nc_decoder_add(d, blk + (size_t)m * bytes, bytes),
				 GFEC_NC_COMPLETE);
		assert_int_equal(gfec_nc_decoder_read(d, out, (size_t)n * B), 0);
		assert_memory_equal(out, seg, (size_t)n * B);
		gfec_nc_decoder_free(d);
	}
	assert_true(found >= 5);
	gfec_lt_decoder_free(ref);
	gfec_lt_dist_free(dist);
	free(seg);
	free(out);
	free(blk);
	gfec_nc_free(nc);
}

/*
 * Batch decode: segments that decode (random order, repeats counted dependent), one short of
 * blocks, one with a truncated block, a coefficient-carrying one, a foreign one, a NULL block:
 * each status as the progressive decoder would say, out written only for those that decode.
 */
static void test_batch(void **state)
{
	enum { NSEG = 7 };
	const uint32_t n = 64, B = 50, count = 2 * n;

	(void)state;
	test_seed();
	for (int threads = 1; threads <= 2; threads++) {
		gfec_nc *nc = mk_lt(n, B, threads);
		const size_t bytes = gfec_nc_block_bytes(nc, GFEC_NC_KIND_SEED);
		uint8_t *seg = malloc((size_t)NSEG * n * B), *out = malloc((size_t)NSEG * n * B);
		uint8_t *blk = malloc((size_t)NSEG * 2 * count * bytes), coef[64] = { 1 };
		const uint8_t **ptr = malloc(sizeof(*ptr) * NSEG * 2 * count);
		size_t *lens = malloc(sizeof(*lens) * NSEG * 2 * count);
		struct gfec_nc_batch_segment bs[NSEG];
		struct gfec_nc_block cb = { .family = GFEC_NC_LT, .kind = GFEC_NC_KIND_COEF, .n = n,
					    .block_size = B, .segment = 3, .coefs = coef };

		test_fill(seg, (size_t)NSEG * n * B);
		memset(out, 0xEE, (size_t)NSEG * n * B);
		for (int s = 0; s < NSEG; s++) {
			struct gfec_nc_segment sg = { .id = (uint64_t)s, .data = seg + (size_t)s * n * B };
			uint8_t *b = blk + (size_t)s * 2 * count * bytes;
			const uint8_t **p = ptr + (size_t)s * 2 * count;
			size_t *l = lens + (size_t)s * 2 * count;
			uint32_t nb = count;

			assert_int_equal(gfec_nc_encode(nc, &sg, 1, (uint32_t)test_rand() >> 1, count,
							b, (size_t)count * bytes), 0);
			for (uint32_t j = 0; j < count; j++) {
				p[j] = b + (size_t)j * bytes;
				l[j] = bytes;
			}
			for (uint32_t j = count; j > 1; j--) {
				uint32_t x = (uint32_t)(test_rand() % j);
				const uint8_t *t = p[j - 1];

				p[j - 1] = p[x];
				p[x] = t;
			}
			if (s == 1)
				nb = n - 10; /* too few */
			if (s == 2)
				l[3] = bytes - 1; /* truncated */
			if (s == 3) {
				assert_int_equal(gfec_nc_block_pack(&cb, b + (size_t)count * bytes,
								    24 + n), 24 + n);
				p[0] = b + (size_t)count * bytes;
				l[0] = 24 + n + B;
			}
			if (s == 4) { /* every block twice in a row */
				for (uint32_t j = count; j-- > 0;) {
					p[2 * j] = p[2 * j + 1] = p[j];
					l[2 * j] = l[2 * j + 1] = bytes;
				}
				nb = 2 * count;
			}
			if (s == 5)
				p[1] = blk; /* segment 0's block */
			if (s == 6)
				p[2] = NULL;
			bs[s] = (struct gfec_nc_batch_segment){ .id = (uint64_t)s, .blocks = p,
								.lens = l, .nblocks = nb,
								.out = out + (size_t)s * n * B };
		}
		assert_int_equal(gfec_nc_decode_batch(nc, bs, NSEG), GFEC_E_TOOFEW);
		assert_int_equal(bs[0].status, 0);
		assert_int_equal(bs[0].dependent, 0);
		assert_int_equal(bs[1].status, GFEC_E_TOOFEW);
		assert_int_equal(bs[2].status, GFEC_E_FORMAT);
		assert_int_equal(bs[3].status, GFEC_E_NOTSUP);
		assert_int_equal(bs[4].status, 0);
		assert_true(bs[4].dependent >= n - 1); /* each repeat up to the last block taken */
		assert_int_equal(bs[5].status, GFEC_E_FOREIGN);
		assert_int_equal(bs[6].status, GFEC_E_INVAL);
		for (int s = 0; s < NSEG; s++) {
			const uint8_t *o = out + (size_t)s * n * B;

			if (s == 0 || s == 4) {
				assert_memory_equal(o, seg + (size_t)s * n * B, (size_t)n * B);
				continue;
			}
			for (size_t x = 0; x < (size_t)n * B; x++)
				assert_int_equal(o[x], 0xEE);
		}
		/* the good ones alone: 0 */
		bs[1] = bs[0];
		bs[1].out = out + (size_t)n * B;
		assert_int_equal(gfec_nc_decode_batch(nc, bs, 2), 0);
		assert_memory_equal(out + (size_t)n * B, seg, (size_t)n * B);
		free(seg);
		free(out);
		free(blk);
		free(ptr);
		free(lens);
		gfec_nc_free(nc);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_params),	  cmocka_unit_test(test_encode),
		cmocka_unit_test(test_roundtrip), cmocka_unit_test(test_repeat),
		cmocka_unit_test(test_bad_blocks), cmocka_unit_test(test_stall),
		cmocka_unit_test(test_batch),	  cmocka_unit_test(test_reuse),
		cmocka_unit_test(test_seen_grows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
