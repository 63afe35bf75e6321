/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_nc.c
 * Random linear network coding on the CPU (gfec_nc.h): encode against a plain gf_mul reference,
 * progressive decode (eager and deferred) after random losses and orders for every mix of block
 * kinds, the eager decoder's panels at every width against a plain rank tracker, dependent
 * blocks, the singular rate against theory, recoding chains, the batch decoder, and every kind
 * of bad input.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "gf8.h"
#include "gfec/gfec_nc.h"
#include "nc_internal.h"
#include "nc_prng.h"
#include "test_util.h"

/* 1 when the kernel grants any allocation (vm.overcommit_memory = 1). */
static int overcommit_always(void)
{
	FILE *f = fopen("/proc/sys/vm/overcommit_memory", "r");
	int mode = 0;

	if (f) {
		if (fscanf(f, "%d", &mode) != 1)
			mode = 0;
		fclose(f);
	}
	return mode == 1;
}

/* The threads of the codes mk() makes. */
static int mk_threads = 2;

static gfec_nc *mk(uint32_t n, uint32_t B, uint32_t flags, int mode)
{
	struct gfec_nc_params p = { .n = n, .block_size = B, .flags = flags,
				    .threads = mk_threads, .decode = mode };
	gfec_nc *nc = NULL;

	assert_int_equal(gfec_nc_create(&p, &nc), 0);
	return nc;
}

/* The plain reference: payload = sum_i c_i * block_i, one byte at a time. */
static void ref_block(const uint8_t *seg, uint32_t n, size_t B, const uint8_t *c, uint8_t *out)
{
	memset(out, 0, B);
	for (uint32_t i = 0; i < n; i++)
		for (size_t b = 0; b < B; b++)
			out[b] ^= gfec_gf8_mul(c[i], seg[(size_t)i * B + b]);
}

/* Encode: every block byte-identical to the reference, headers as the format says. */
static void check_encode(uint32_t n, uint32_t B, uint32_t flags, int nseg, uint32_t first,
			 uint32_t count, size_t misalign)
{
	gfec_nc *nc = mk(n, B, flags, GFEC_NC_AUTO);
	const size_t bytes = gfec_nc_block_bytes(nc, GFEC_NC_KIND_SEED);
	size_t seglen = (size_t)n * B;
	uint8_t *data = malloc(seglen * nseg + misalign);
	uint8_t *out = malloc(bytes * count * nseg + misalign);
	uint8_t *ref = malloc(B), *c = malloc(n);
	struct gfec_nc_segment *segs = calloc(nseg, sizeof(*segs));

	assert_non_null(data);
	assert_non_null(out);
	test_fill(data, seglen * nseg + misalign);
	for (int s = 0; s < nseg; s++) {
		segs[s].id = 1000 + s;
		segs[s].data = data + misalign + seglen * s;
	}
	assert_int_equal(gfec_nc_encode(nc, segs, nseg, first, count, out + misalign,
					bytes * count * nseg), 0);
	for (int s = 0; s < nseg; s++) {
		for (uint32_t j = 0; j < count; j++) {
			struct gfec_nc_block b;
			const uint8_t *blk = out + misalign + ((size_t)s * count + j) * bytes;
			int sys = (flags & GFEC_NC_SYSTEMATIC) && first + j < n;

			assert_int_equal(gfec_nc_block_unpack(blk, bytes, &b), 0);
			assert_int_equal(b.bytes, bytes);
			assert_true(b.segment == segs[s].id);
			assert_int_equal(b.seed, first + j);
			assert_int_equal(b.flags, sys ? GFEC_NC_SYSTEMATIC
						      : flags & GFEC_NC_ZERO_COEFS);
			if (sys) {
				memset(c, 0, n);
				c[first + j] = 1;
			} else {
				gfec_nc_prng_row(first + j, n, !!(flags & GFEC_NC_ZERO_COEFS), c);
			}
			ref_block(segs[s].data, n, B, c, ref);
			assert_memory_equal(b.payload, ref, B);
		}
	}
	free(segs);
	free(c);
	free(ref);
	free(out);
	free(data);
	gfec_nc_free(nc);
}

static void test_encode_reference(void **state)
{
	static const uint32_t ns[] = { 1, 2, 16, 128, 255, 256, 1024 };
	static const uint32_t bs[] = { 1, 7, 64, 1000, 4097 };

	(void)state;
	/* two threads, then one (a single segment's row tiles make their plans as they run) */
	for (mk_threads = 2; mk_threads >= 1; mk_threads--)
		for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
			for (size_t k = 0; k < sizeof(bs) / sizeof(bs[0]); k++) {
				uint32_t n = ns[i], B = bs[k];

				if ((size_t)n * B > (1u << 20))
					B = (1u << 20) / n + 3; /* keep the reference loop short */
				check_encode(n, B, 0, 1 + (int)(k % 3), (uint32_t)(i * 7),
					     3 + (uint32_t)k, k % 4);
			}
	mk_threads = 2;
	check_encode(300, 3000, GFEC_NC_ZERO_COEFS, 1, 9, 300, 1); /* 2 row tiles, 2 column tiles */
	mk_threads = 1;
	check_encode(300, 3000, GFEC_NC_ZERO_COEFS, 1, 9, 300, 1);
	mk_threads = 2;
	/* more rows than one backend tile, more columns than one tile, zeros allowed */
	check_encode(300, 33, GFEC_NC_ZERO_COEFS, 2, 5, 260, 1);
	/* one segment, too few row tiles for the threads: rows split in tiles of 16 (16, 16, 5),
	 * also with a second column tile */
	check_encode(40, 1000, 0, 1, 3, 37, 2);
	check_encode(300, 3000, GFEC_NC_ZERO_COEFS, 1, 9, 40, 0);
	/* systematic: source blocks first, coded after, in one call */
	check_encode(16, 100, GFEC_NC_SYSTEMATIC, 3, 10, 12, 3);
	/* large blocks: 1 MiB, split across threads */
	check_encode(2, 1u << 20, 0, 1, 0, 3, 0);
	check_encode(4, (1u << 20) + 5, 0, 1, 77, 1, 1);
}

/* ---- decoding ---- */

struct src {
	gfec_nc *nc;
	uint32_t n;
	size_t B;
	uint8_t *seg;
	uint64_t id;
};

static void src_init(struct src *s, gfec_nc *nc, uint32_t n, size_t B, uint64_t id)
{
	s->nc = nc;
	s->n = n;
	s->B = B;
	s->id = id;
	s->seg = malloc((size_t)n * B);
	assert_non_null(s->seg);
	test_fill(s->seg, (size_t)n * B);
}

/* One block of a random kind into @p buf: seed-carrying, coefficient-carrying, or (systematic
 * codes) a source block. @p kinds: bit 0 seed, bit 1 coef, bit 2 source. */
static size_t src_block(const struct src *s, int kinds, uint32_t seq, uint8_t *buf)
{
	int pick;

	do
		pick = test_range(0, 2);
	while (!(kinds & (1 << pick)));
	if (pick == 1) {
		uint8_t *c = malloc(s->n);
		struct gfec_nc_block b = { .family = GFEC_NC_RLC, .kind = GFEC_NC_KIND_COEF,
					   .n = s->n, .block_size = (uint32_t)s->B,
					   .segment = s->id, .coefs = c };
		int h;

		for (uint32_t i = 0; i < s->n; i++)
			c[i] = (uint8_t)test_range(0, 255);
		h = gfec_nc_block_pack(&b, buf, 1u << 30);
		assert_true(h > 0);
		ref_block(s->seg, s->n, s->B, c, buf + h);
		free(c);
		return (size_t)h + s->B;
	}
	struct gfec_nc_segment sg = { .id = s->id, .data = s->seg };
	uint32_t first = pick == 2 ? (uint32_t)test_range(0, (int)s->n - 1) : s->n + seq;

	assert_int_equal(gfec_nc_encode(s->nc, &sg, 1, first, 1, buf, 1u << 30), 0);
	return gfec_nc_block_bytes(s->nc, GFEC_NC_KIND_SEED);
}

static void decode_until_complete(const struct src *s, gfec_nc_decoder *d, int kinds,
				  double loss, uint8_t *buf)
{
	int ret = GFEC_NC_INNOVATIVE;

	for (uint32_t seq = 0; ret != GFEC_NC_COMPLETE; seq++) {
		size_t len = src_block(s, kinds, seq, buf);

		assert_true(seq < 20 * s->n + 100);
		if (test_rand() % 1000 < loss * 1000)
			continue;
		ret = gfec_nc_decoder_add(d, buf, len);
		assert_true(ret >= 0);
	}
}

static void test_decode_mixes(void **state)
{
	static const uint32_t ns[] = { 1, 2, 5, 16, 64, 257 };

	(void)state;
	for (int mode = GFEC_NC_EAGER; mode <= GFEC_NC_DEFERRED; mode++) {
		for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
			for (int kinds = 1; kinds < 8; kinds++) {
				if (ns[i] > 64 && kinds != 7)
					continue;
				uint32_t n = ns[i], B = (uint32_t)test_range(1, 300);
				gfec_nc *nc = mk(n, B, GFEC_NC_SYSTEMATIC, mode);
				gfec_nc_decoder *d;
				struct src s;
				uint8_t *buf = malloc(24 + n + B + 64), *out = malloc((size_t)n * B);
				struct gfec_nc_decoder_stats st;

				src_init(&s, nc, n, B, 77 + i);
				assert_int_equal(gfec_nc_decoder_create(nc, s.id, &d), 0);
				assert_int_equal(gfec_nc_decoder_read(d, out, (size_t)n * B),
						 GFEC_E_TOOFEW);
				decode_until_complete(&s, d, kinds, 0.3, buf);
				assert_int_equal(gfec_nc_decoder_rank(d), n);
				assert_int_equal(gfec_nc_decoder_read(d, out, (size_t)n * B), 0);
				assert_memory_equal(out, s.seg, (size_t)n * B);
				gfec_nc_decoder_stats(d, &st);
				assert_true(st.innovative == n);
				assert_true(st.received == st.innovative + st.dependent);
				/* after completion every block is dependent, state unchanged */
				size_t len = src_block(&s, kinds, 999, buf);

				assert_int_equal(gfec_nc_decoder_add(d, buf, len), GFEC_NC_DEPENDENT);
				assert_int_equal(gfec_nc_decoder_rank(d), n);
				memset(out, 0, (size_t)n * B);
				assert_int_equal(gfec_nc_decoder_read(d, out, (size_t)n * B), 0);
				assert_memory_equal(out, s.seg, (size_t)n * B);
				gfec_nc_decoder_free(d);
				free(s.seg);
				free(buf);
				free(out);
				gfec_nc_free(nc);
			}
		}
	}
}

/* Dependent blocks: a repeated block and a combination of held ones are dropped and counted. */
static void test_dependent(void **state)
{
	const uint32_t n = 6, B = 40;

	(void)state;
	for (int mode = GFEC_NC_EAGER; mode <= GFEC_NC_DEFERRED; mode++) {
		gfec_nc *nc = mk(n, B, 0, mode);
		gfec_nc_decoder *d, *relay;
		struct src s;
		uint8_t blk[3][28 + 40], rec[24 + 6 + 40], out[6 * 40];
		struct gfec_nc_decoder_stats st;

		src_init(&s, nc, n, B, 5);
		assert_int_equal(gfec_nc_decoder_create(nc, 5, &d), 0);
		assert_int_equal(gfec_nc_decoder_create(nc, 5, &relay), 0);
		struct gfec_nc_segment sg = { .id = 5, .data = s.seg };

		assert_int_equal(gfec_nc_encode(nc, &sg, 1, 100, 3, &blk[0][0], sizeof(blk)), 0);
		for (int i = 0; i < 3; i++) {
			assert_int_equal(gfec_nc_decoder_add(d, blk[i], sizeof(blk[i])),
					 GFEC_NC_INNOVATIVE);
			assert_int_equal(gfec_nc_decoder_add(relay, blk[i], sizeof(blk[i])),
					 GFEC_NC_INNOVATIVE);
		}
		assert_int_equal(gfec_nc_decoder_add(d, blk[1], sizeof(blk[1])), GFEC_NC_DEPENDENT);
		/* a recoded block of a relay holding the same three spans nothing new */
		assert_int_equal(gfec_nc_recode(relay, 9, 1, rec, sizeof(rec)), 0);
		assert_int_equal(gfec_nc_decoder_add(d, rec, sizeof(rec)), GFEC_NC_DEPENDENT);
		gfec_nc_decoder_stats(d, &st);
		assert_true(st.received == 5 && st.innovative == 3 && st.dependent == 2 &&
			    st.refused == 0);
		assert_int_equal(gfec_nc_decoder_rank(d), 3);
		assert_int_equal(gfec_nc_decoder_read(d, out, sizeof(out)), GFEC_E_TOOFEW);
		gfec_nc_decoder_free(relay);
		gfec_nc_decoder_free(d);
		free(s.seg);
		gfec_nc_free(nc);
	}
}

/*
 * The singular rate over 100,000 random segments, n = 8..16 (small n: the rate is the same for
 * n >= 3 to 1e-7), coefficients only (B = 1, deferred mode). Theory for uniform coefficients
 * (0..255): P(n blocks singular) = 1 - prod_{j=1..n} (1 - 256^-j) = 0.3922%, extra blocks per
 * segment sum_{j=1..n} 1/(256^j - 1) = 0.003937. Dense non-zero coefficients (1..255): a block
 * completing rank n-1 is dependent when it lies in the held hyperplane a.x = 0; for a normal a of
 * weight w that happens with probability (1 - (-1/255)^(w-1))/256, within 1/65280 of 1/256 for
 * every w >= 2; w = 1 (probability about n/255^(n-1)) and lower ranks change the sums by less
 * than 1e-5. So both are tested against the same numbers, 5 sigma either way (sigma about 20
 * segments for both counts).
 */
static void run_singular(uint32_t flags)
{
	const int segments = 100000;
	gfec_nc *nc[17] = { 0 };
	long singular = 0, extra = 0;
	uint8_t blk[29];

	for (uint32_t n = 8; n <= 16; n++)
		nc[n] = mk(n, 1, flags, GFEC_NC_DEFERRED);
	for (int s = 0; s < segments; s++) {
		uint32_t n = 8 + (uint32_t)(s % 9);
		gfec_nc_decoder *d;
		uint32_t got = 0;
		int ret = 0;
		struct gfec_nc_block b = { .family = GFEC_NC_RLC, .kind = GFEC_NC_KIND_SEED,
					   .flags = (uint8_t)flags, .n = n, .block_size = 1,
					   .segment = (uint64_t)s };

		assert_int_equal(gfec_nc_decoder_create(nc[n], (uint64_t)s, &d), 0);
		while (ret != GFEC_NC_COMPLETE) {
			b.seed = (uint32_t)test_rand();
			assert_int_equal(gfec_nc_block_pack(&b, blk, sizeof(blk)), 28);
			ret = gfec_nc_decoder_add(d, blk, sizeof(blk));
			assert_true(ret >= 0);
			got++;
		}
		singular += got > n;
		extra += got - n;
		gfec_nc_decoder_free(d);
	}
	print_message("flags %u: %ld of %d segments singular at n blocks (theory 392.2), %ld extra "
		      "blocks (theory 393.7)\n", flags, singular, segments, extra);
	assert_true(labs(singular - 392) < 100);
	assert_true(labs(extra - 394) < 100);
	for (uint32_t n = 8; n <= 16; n++)
		gfec_nc_free(nc[n]);
}

static void test_singular_rate(void **state)
{
	(void)state;
	run_singular(0);
	run_singular(GFEC_NC_ZERO_COEFS);
}

/* Chains of 1-5 relays, 0-30% loss on every hop; relays recode from whatever they hold. */
static void test_recode_chains(void **state)
{
	(void)state;
	for (int trial = 0; trial < 20; trial++) {
		int relays = 1 + trial % 5, mode = 1 + trial % 2;
		double loss = (trial % 4) * 0.1;
		uint32_t n = (uint32_t)test_range(1, 40), B = (uint32_t)test_range(1, 200);
		gfec_nc *nc = mk(n, B, trial % 3 ? 0 : GFEC_NC_SYSTEMATIC, mode);
		gfec_nc_decoder *hop[6];
		struct src s;
		const size_t cb = gfec_nc_block_bytes(nc, GFEC_NC_KIND_COEF);
		uint8_t *buf = malloc(cb + 64), *out = malloc((size_t)n * B);
		int done = 0;

		src_init(&s, nc, n, B, (uint64_t)trial);
		for (int h = 0; h <= relays; h++)
			assert_int_equal(gfec_nc_decoder_create(nc, (uint64_t)trial, &hop[h]), 0);
		for (uint32_t t = 0; !done; t++) {
			size_t len = src_block(&s, 1 | 4, t, buf);

			assert_true(t < 50 * n + 200);
			/* the block travels hop by hop; each relay adds what arrives and sends one
			 * recoded block onwards per time step */
			for (int h = 0; h <= relays; h++) {
				int ret;

				if (test_rand() % 100 >= loss * 100) {
					ret = gfec_nc_decoder_add(hop[h], buf, len);
					assert_true(ret >= 0);
					if (h == relays && ret == GFEC_NC_COMPLETE)
						done = 1;
				}
				if (h == relays)
					break;
				if (gfec_nc_decoder_rank(hop[h]) == 0)
					break;
				assert_int_equal(gfec_nc_recode(hop[h], t * 7 + (uint32_t)h, 1, buf,
								cb), 0);
				len = cb;
			}
		}
		assert_int_equal(gfec_nc_decoder_read(hop[relays], out, (size_t)n * B), 0);
		assert_memory_equal(out, s.seg, (size_t)n * B);
		for (int h = 0; h <= relays; h++)
			gfec_nc_decoder_free(hop[h]);
		free(s.seg);
		free(buf);
		free(out);
		gfec_nc_free(nc);
	}
}

/* The batch decoder: many segments at once, a singular one and a bad one reported alone. */
static void test_decode_batch(void **state)
{
	const uint32_t n = 20, B = 333;
	const int nseg = 7;
	gfec_nc *nc = mk(n, B, 0, GFEC_NC_AUTO);
	const size_t bytes = gfec_nc_block_bytes(nc, GFEC_NC_KIND_SEED);
	struct src s[7];
	struct gfec_nc_batch_segment bs[7];
	uint8_t *blocks = malloc(nseg * (n + 5) * bytes), *out = malloc(nseg * n * B);
	const uint8_t *ptr[7][25];
	size_t lens[7][25];

	(void)state;
	for (int i = 0; i < nseg; i++) {
		struct gfec_nc_segment sg;

		src_init(&s[i], nc, n, B, 500 + i);
		sg.id = s[i].id;
		sg.data = s[i].seg;
		assert_int_equal(gfec_nc_encode(nc, &sg, 1, 40, n + 5, blocks + i * (n + 5) * bytes,
						(n + 5) * bytes), 0);
		for (uint32_t j = 0; j < n + 5; j++) {
			ptr[i][j] = blocks + (i * (n + 5) + j) * bytes;
			lens[i][j] = bytes;
		}
		/* random order */
		for (uint32_t j = n + 4; j > 0; j--) {
			uint32_t k = (uint32_t)test_range(0, (int)j);
			const uint8_t *t = ptr[i][j];

			ptr[i][j] = ptr[i][k];
			ptr[i][k] = t;
		}
		memset(out + i * n * B, 0xee, n * B);
		bs[i] = (struct gfec_nc_batch_segment){ .id = s[i].id, .blocks = ptr[i],
							.lens = lens[i], .nblocks = n + 5,
							.out = out + i * n * B };
	}
	bs[2].nblocks = n - 1;			/* too few */
	ptr[3][n + 4] = ptr[3][0];		/* a duplicate, last: still decodes */
	lens[5][1] = bytes - 1;			/* truncated */
	bs[6].id = 12345;			/* blocks of another segment */
	assert_int_equal(gfec_nc_decode_batch(nc, bs, nseg), GFEC_E_TOOFEW);
	for (int i = 0; i < nseg; i++) {
		uint8_t untouched[333];

		memset(untouched, 0xee, sizeof(untouched));
		if (i == 2 || i == 5 || i == 6) {
			assert_int_equal(bs[i].status, i == 2 ? GFEC_E_TOOFEW
						       : i == 5 ? GFEC_E_FORMAT : GFEC_E_FOREIGN);
			assert_memory_equal(out + i * n * B, untouched, B);
		} else {
			assert_int_equal(bs[i].status, 0);
			assert_memory_equal(out + i * n * B, s[i].seg, n * B);
		}
		free(s[i].seg);
	}
	bs[2].nblocks = n + 5;
	lens[5][1] = bytes;
	bs[6].id = s[6].id;
	assert_int_equal(gfec_nc_decode_batch(nc, bs, nseg), 0);
	for (int i = 0; i < nseg; i++)
		assert_int_equal(bs[i].status, 0);
	assert_int_equal(gfec_nc_decode_batch(nc, NULL, 1), GFEC_E_INVAL);
	assert_int_equal(gfec_nc_decode_batch(nc, bs, 0), GFEC_E_INVAL);
	free(blocks);
	free(out);
	gfec_nc_free(nc);
}

/* ---- the eager decoder's panels ---- */

/* A plain rank tracker: rows in echelon form, one gf_mul at a time. */
struct ref_rank {
	uint32_t n, rank;
	uint8_t *rows;	/* rank x n, row i 1 at piv[i] */
	uint32_t *piv;
};

/* 1 when @p c (n bytes, clobbered) is independent of the rows held (then it is held too). */
static int ref_rank_add(struct ref_rank *r, uint8_t *c)
{
	for (uint32_t i = 0; i < r->rank; i++) {
		uint8_t f = c[r->piv[i]];

		for (uint32_t j = 0; j < r->n && f; j++)
			c[j] ^= gfec_gf8_mul(f, r->rows[(size_t)i * r->n + j]);
	}
	for (uint32_t j = 0; j < r->n; j++) {
		if (c[j]) {
			uint8_t inv = gfec_gf8_inv(c[j]);

			for (uint32_t x = 0; x < r->n; x++)
				r->rows[(size_t)r->rank * r->n + x] = gfec_gf8_mul(inv, c[x]);
			r->piv[r->rank++] = j;
			return 1;
		}
	}
	return 0;
}

/* The coefficient row of the block in @p buf of a code of @p n source blocks. */
static void block_row(const uint8_t *buf, size_t len, uint32_t n, uint8_t *c)
{
	struct gfec_nc_block b;

	assert_int_equal(gfec_nc_block_unpack(buf, len, &b), 0);
	if (b.kind == GFEC_NC_KIND_COEF) {
		memcpy(c, b.coefs, n);
	} else if (b.flags & GFEC_NC_SYSTEMATIC) {
		memset(c, 0, n);
		c[b.seed] = 1;
	} else {
		gfec_nc_prng_row(b.seed, n, !!(b.flags & GFEC_NC_ZERO_COEFS), c);
	}
}

/*
 * One segment of n source blocks of a random B (odd sizes too), decoded by an eager decoder of
 * panel width @p width and a deferred one from the same blocks in a random order: random kinds,
 * repeats of an earlier block, recoded blocks of the decoder itself (dependent), recoded blocks
 * checked against the plain product of their coefficients at random points (the panel's rows as
 * received and the flushed ones must agree), every add's answer against the plain rank tracker,
 * and the segment read into a poisoned buffer.
 */
static void panel_decode(uint32_t n, uint32_t width)
{
	const uint32_t B = (uint32_t)test_range(1, n > 100 ? 300 : 700);
	const uint32_t flags = (uint32_t)test_range(0, 3) & (GFEC_NC_SYSTEMATIC | GFEC_NC_ZERO_COEFS);
	gfec_nc *nc = mk(n, B, flags, GFEC_NC_EAGER), *ncd = mk(n, B, flags, GFEC_NC_DEFERRED);
	const size_t cb = gfec_nc_block_bytes(nc, GFEC_NC_KIND_COEF);
	uint8_t *buf = malloc(cb + 64), *prev = malloc(cb + 64), *c = malloc(n);
	uint8_t *out = malloc((size_t)n * B), *ref = malloc(B);
	struct ref_rank rr = { .n = n, .rows = malloc((size_t)n * n), .piv = malloc(4 * n) };
	gfec_nc_decoder *d, *dd;
	struct src s;
	size_t prev_len = 0;
	int ret = GFEC_NC_INNOVATIVE, kinds = flags & GFEC_NC_SYSTEMATIC ? 7 : 3;
	uint32_t innovative = 0, dependent = 0;

	assert_non_null(rr.rows);
	assert_int_equal(gfec_nc_set_panel(nc, width), 0);
	src_init(&s, nc, n, B, 1000 + n);
	assert_int_equal(gfec_nc_decoder_create(nc, s.id, &d), 0);
	assert_int_equal(gfec_nc_decoder_create(ncd, s.id, &dd), 0);
	for (uint32_t seq = 0; ret != GFEC_NC_COMPLETE; seq++) {
		const int pick = test_range(0, 9);
		size_t len;

		assert_true(seq < 4 * n + 100);
		if (pick == 0 && prev_len) {
			memcpy(buf, prev, prev_len);
			len = prev_len;
		} else if (pick == 1 && gfec_nc_decoder_rank(d) > 0) {
			/* a recoded block: dependent, and its payload is its coefficients' product */
			assert_int_equal(gfec_nc_recode(d, seq, 1, buf, cb), 0);
			len = cb;
			block_row(buf, len, n, c);
			ref_block(s.seg, n, B, c, ref);
			assert_memory_equal(buf + cb - B, ref, B);
		} else {
			len = src_block(&s, kinds, seq, buf);
		}
		block_row(buf, len, n, c);
		const int want = ref_rank_add(&rr, c);

		ret = gfec_nc_decoder_add(d, buf, len);
		assert_int_equal(gfec_nc_decoder_add(dd, buf, len), ret);
		if (want)
			assert_int_equal(ret, rr.rank == n ? GFEC_NC_COMPLETE : GFEC_NC_INNOVATIVE);
		else
			assert_int_equal(ret, GFEC_NC_DEPENDENT);
		innovative += !!want;
		dependent += !want;
		assert_int_equal(gfec_nc_decoder_rank(d), rr.rank);
		if (ret != GFEC_NC_COMPLETE)
			assert_int_equal(gfec_nc_decoder_read(d, out, (size_t)n * B), GFEC_E_TOOFEW);
		memcpy(prev, buf, len);
		prev_len = len;
	}
	struct gfec_nc_decoder_stats st;

	gfec_nc_decoder_stats(d, &st);
	assert_true(st.innovative == innovative && st.dependent == dependent &&
		    st.received == innovative + dependent && st.refused == 0);
	memset(out, test_range(0, 255), (size_t)n * B);
	assert_int_equal(gfec_nc_decoder_read(d, out, (size_t)n * B), 0);
	assert_memory_equal(out, s.seg, (size_t)n * B);
	memset(out, test_range(0, 255), (size_t)n * B);
	assert_int_equal(gfec_nc_decoder_read(dd, out, (size_t)n * B), 0);
	assert_memory_equal(out, s.seg, (size_t)n * B);
	/* complete: recoding still gives the plain product */
	assert_int_equal(gfec_nc_recode(d, 7, 1, buf, cb), 0);
	block_row(buf, cb, n, c);
	ref_block(s.seg, n, B, c, ref);
	assert_memory_equal(buf + cb - B, ref, B);
	gfec_nc_decoder_free(d);
	gfec_nc_decoder_free(dd);
	free(s.seg);
	free(buf);
	free(prev);
	free(c);
	free(out);
	free(ref);
	free(rr.rows);
	free(rr.piv);
	gfec_nc_free(nc);
	gfec_nc_free(ncd);
}

static void test_panel_decode(void **state)
{
	static const uint32_t ns[] = { 1, 2, 3, 17, 128, 255 };
	static const uint32_t widths[] = { 0, 1, 2, 3, 5, 16, 40 };
	gfec_nc *nc = mk(4, 8, 0, GFEC_NC_EAGER);

	(void)state;
	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		for (size_t w = 0; w < sizeof(widths) / sizeof(widths[0]); w++)
			for (size_t rep = 0; rep < (ns[i] < 100 ? 3 : w % 2); rep++) /* ASan time */
				panel_decode(ns[i], widths[w]);
	assert_int_equal(gfec_nc_set_panel(nc, 256), 0);
	assert_int_equal(gfec_nc_set_panel(nc, 257), GFEC_E_INVAL);
	assert_int_equal(gfec_nc_set_panel(NULL, 1), GFEC_E_INVAL);
	gfec_nc_free(nc);
}

/* Bad input: a clear error, and the decoder loses nothing. */
static void test_bad_input(void **state)
{
	const uint32_t n = 4, B = 10;
	gfec_nc *nc = mk(n, B, 0, GFEC_NC_EAGER), *other = mk(5, B, 0, GFEC_NC_EAGER);
	gfec_nc *other_b = mk(n, B + 1, 0, GFEC_NC_EAGER);
	gfec_nc *zero = mk(n, B, GFEC_NC_ZERO_COEFS, GFEC_NC_EAGER);
	struct gfec_nc_params p = { .n = n, .block_size = B };
	gfec_nc *bad = NULL;
	gfec_nc_decoder *d;
	uint8_t seg[5 * 10], blk[128], out[40]; /* seg: other's n = 5 blocks too */
	struct gfec_nc_segment sg = { .id = 1, .data = seg };
	struct gfec_nc_decoder_stats st;
	size_t len = gfec_nc_block_bytes(nc, GFEC_NC_KIND_SEED);

	(void)state;
	test_fill(seg, sizeof(seg));
	p.n = 0;
	assert_int_equal(gfec_nc_create(&p, &bad), GFEC_E_INVAL);
	p.n = GFEC_NC_RLC_MAX_N + 1;
	assert_int_equal(gfec_nc_create(&p, &bad), GFEC_E_INVAL);
	p.n = n, p.block_size = 0;
	assert_int_equal(gfec_nc_create(&p, &bad), GFEC_E_INVAL);
	p.block_size = B, p.flags = 8;
	assert_int_equal(gfec_nc_create(&p, &bad), GFEC_E_INVAL);
	p.flags = 0, p.decode = 3;
	assert_int_equal(gfec_nc_create(&p, &bad), GFEC_E_INVAL);
	assert_null(bad);

	assert_int_equal(gfec_nc_decoder_create(nc, 1, &d), 0);
	assert_int_equal(gfec_nc_encode(nc, &sg, 1, 0, 1, blk, len - 1), GFEC_E_INVAL);
	assert_int_equal(gfec_nc_encode(nc, &sg, 0, 0, 1, blk, len), GFEC_E_INVAL);
	assert_int_equal(gfec_nc_encode(nc, &sg, 1, 0xffffffffu, 2, blk, 2 * len), GFEC_E_INVAL);
	assert_int_equal(gfec_nc_encode(nc, &sg, 1, 0, 1, blk, len), 0);
	assert_int_equal(gfec_nc_decoder_add(d, blk, len), GFEC_NC_INNOVATIVE);
	/* truncated, corrupted header, another segment, shape, family, coefficient range */
	assert_int_equal(gfec_nc_encode(nc, &sg, 1, 1, 1, blk, len), 0);
	for (size_t l = 0; l < len; l++)
		assert_int_equal(gfec_nc_decoder_add(d, blk, l), GFEC_E_FORMAT);
	blk[6] = 3;
	assert_int_equal(gfec_nc_decoder_add(d, blk, len), GFEC_E_FORMAT);
	blk[6] = GFEC_NC_KIND_SEED;
	blk[16] ^= 1; /* segment id */
	assert_int_equal(gfec_nc_decoder_add(d, blk, len), GFEC_E_FOREIGN);
	blk[16] ^= 1;
	blk[5] = GFEC_NC_LT;
	assert_int_equal(gfec_nc_decoder_add(d, blk, len), GFEC_E_FOREIGN);
	blk[5] = GFEC_NC_RLC;
	assert_int_equal(gfec_nc_encode(other, &sg, 1, 1, 1, blk, sizeof(blk)), 0);
	assert_int_equal(gfec_nc_decoder_add(d, blk, sizeof(blk)), GFEC_E_FOREIGN);
	assert_int_equal(gfec_nc_encode(other_b, &sg, 1, 1, 1, blk, sizeof(blk)), 0);
	assert_int_equal(gfec_nc_decoder_add(d, blk, sizeof(blk)), GFEC_E_FOREIGN);
	assert_int_equal(gfec_nc_encode(zero, &sg, 1, 1, 1, blk, sizeof(blk)), 0);
	assert_int_equal(gfec_nc_decoder_add(d, blk, sizeof(blk)), GFEC_E_FOREIGN);
	assert_int_equal(gfec_nc_decoder_add(d, NULL, len), GFEC_E_INVAL);
	gfec_nc_decoder_stats(d, &st);
	assert_true(st.received == 1 && st.innovative == 1 && st.refused == len + 6);
	assert_int_equal(gfec_nc_decoder_rank(d), 1);
	/* the refusals lost nothing: the rest of the segment still decodes exactly */
	assert_int_equal(gfec_nc_encode(nc, &sg, 1, 1, 3, blk, sizeof(blk)), 0);
	for (int i = 0; i < 3; i++)
		assert_true(gfec_nc_decoder_add(d, blk + i * len, len) > 0);
	assert_int_equal(gfec_nc_decoder_read(d, out, sizeof(out) - 1), GFEC_E_INVAL);
	assert_int_equal(gfec_nc_decoder_read(d, out, sizeof(out)), 0);
	assert_memory_equal(out, seg, sizeof(out));
	/* recode: short buffer, at rank 0 */
	assert_int_equal(gfec_nc_recode(d, 0, 1, blk, gfec_nc_block_bytes(nc, 2) - 1),
			 GFEC_E_INVAL);
	gfec_nc_decoder_free(d);
	assert_int_equal(gfec_nc_decoder_create(nc, 2, &d), 0);
	assert_int_equal(gfec_nc_recode(d, 0, 1, blk, sizeof(blk)), GFEC_E_TOOFEW);
	gfec_nc_decoder_free(d);
	gfec_nc_free(nc);
	gfec_nc_free(other);
	gfec_nc_free(other_b);
	gfec_nc_free(zero);

	/*
	 * out of memory: a decoder of 4096 blocks of 1 GiB (4 TiB). A host that overcommits
	 * without limit (vm.overcommit_memory = 1, as container hosts often do) hands out the
	 * address space; only a refusal can be checked there.
	 */
	p.n = GFEC_NC_RLC_MAX_N, p.block_size = GFEC_NC_MAX_BLOCK, p.decode = 0;
	assert_int_equal(gfec_nc_create(&p, &nc), 0);
	d = (gfec_nc_decoder *)&p; /* must stay as it was */
	if (overcommit_always()) {
		print_message("vm.overcommit_memory = 1: the out-of-memory case is not checked\n");
	} else {
		assert_int_equal(gfec_nc_decoder_create(nc, 0, &d), GFEC_E_NOMEM);
		assert_ptr_equal(d, (gfec_nc_decoder *)&p);
	}
	gfec_nc_free(nc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode_reference),
		cmocka_unit_test(test_decode_mixes),
		cmocka_unit_test(test_dependent),
		cmocka_unit_test(test_singular_rate),
		cmocka_unit_test(test_recode_chains),
		cmocka_unit_test(test_decode_batch),
		cmocka_unit_test(test_panel_decode),
		cmocka_unit_test(test_bad_input),
	};

	test_seed();
	gfec_gf8_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
