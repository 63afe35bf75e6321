/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_nc_block.c
 * The network-coding block format and coefficient generator (gfec_nc.h, nc_prng.h): pack/unpack
 * round trips, every field's refusal, truncation at every length, and the generator's pinned
 * values and distribution (its outputs are part of the wire format); nc_hdr.h's header reader
 * (the GPU batch decoder's) against gfec_nc_block_unpack plus the decoder's checks on random and
 * damaged headers.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "gfec/gfec_nc.h"
#include "nc_hdr.h"
#include "nc_prng.h"
#include "test_util.h"

static void test_pack_unpack_seed(void **state)
{
	struct gfec_nc_block b = { .family = GFEC_NC_RLC, .kind = GFEC_NC_KIND_SEED,
				   .flags = GFEC_NC_ZERO_COEFS, .n = 300, .block_size = 5,
				   .segment = 0x0102030405060708ull, .seed = 0xdeadbeef };
	struct gfec_nc_block u;
	uint8_t buf[28 + 5];
	static const uint8_t want[28] = { 'G', 'F', 'N', 'C', 1, 1, 1, 2, 0x2c, 1, 0, 0,
					  5, 0, 0, 0, 8, 7, 6, 5, 4, 3, 2, 1,
					  0xef, 0xbe, 0xad, 0xde };

	(void)state;
	assert_int_equal(gfec_nc_header_bytes(GFEC_NC_KIND_SEED, 300), 28);
	assert_int_equal(gfec_nc_block_pack(&b, buf, 27), GFEC_E_INVAL);
	assert_int_equal(gfec_nc_block_pack(&b, buf, sizeof(buf)), 28);
	assert_memory_equal(buf, want, 28);
	memset(buf + 28, 0xaa, 5);
	assert_int_equal(gfec_nc_block_unpack(buf, sizeof(buf), &u), 0);
	assert_int_equal(u.family, GFEC_NC_RLC);
	assert_int_equal(u.kind, GFEC_NC_KIND_SEED);
	assert_int_equal(u.flags, GFEC_NC_ZERO_COEFS);
	assert_int_equal(u.n, 300);
	assert_int_equal(u.block_size, 5);
	assert_true(u.segment == 0x0102030405060708ull);
	assert_int_equal(u.seed, 0xdeadbeef);
	assert_null(u.coefs);
	assert_ptr_equal(u.payload, buf + 28);
	assert_int_equal(u.bytes, sizeof(buf));
	/* every truncation is refused, *out untouched */
	for (size_t len = 0; len < sizeof(buf); len++) {
		struct gfec_nc_block v = { .n = 77 };

		assert_int_equal(gfec_nc_block_unpack(buf, len, &v), GFEC_E_FORMAT);
		assert_int_equal(v.n, 77);
	}
}

static void test_pack_unpack_coef(void **state)
{
	uint8_t coefs[3] = { 0, 9, 255 };
	struct gfec_nc_block b = { .family = GFEC_NC_RLC, .kind = GFEC_NC_KIND_COEF, .n = 3,
				   .block_size = 2, .segment = 42, .coefs = coefs };
	struct gfec_nc_block u;
	uint8_t buf[24 + 3 + 2 + 10];

	(void)state;
	assert_int_equal(gfec_nc_block_pack(&b, buf, sizeof(buf)), 27);
	buf[27] = 1;
	buf[28] = 2;
	/* a longer buffer (the next block of a stream) is fine: bytes says where this one ends */
	assert_int_equal(gfec_nc_block_unpack(buf, sizeof(buf), &u), 0);
	assert_int_equal(u.kind, GFEC_NC_KIND_COEF);
	assert_ptr_equal(u.coefs, buf + 24);
	assert_memory_equal(u.coefs, coefs, 3);
	assert_ptr_equal(u.payload, buf + 27);
	assert_int_equal(u.bytes, 29);
	for (size_t len = 0; len < 29; len++)
		assert_int_equal(gfec_nc_block_unpack(buf, len, &u), GFEC_E_FORMAT);
	b.coefs = NULL;
	assert_int_equal(gfec_nc_block_pack(&b, buf, sizeof(buf)), GFEC_E_INVAL);
}

/* Each field out of range: refused by pack (INVAL) and, written by hand, by unpack (FORMAT). */
static void test_bad_fields(void **state)
{
	const struct gfec_nc_block good = { .family = GFEC_NC_LT, .kind = GFEC_NC_KIND_SEED,
					    .flags = GFEC_NC_SYSTEMATIC, .n = 4,
					    .block_size = 1, .seed = 3 };
	struct { int off; uint8_t val; } bytes[] = {
		{ 0, 'g' }, { 3, 'D' }, { 4, 0 }, { 4, 2 }, { 5, 0 }, { 5, 3 }, { 6, 0 }, { 6, 3 },
		{ 7, 4 }, { 7, 0x80 }, { 8, 0 }, { 24, 4 }, { 12, 0 }, { 15, 0x40 }, { 11, 1 },
	};
	uint8_t buf[29], bad[29];
	struct gfec_nc_block b, u;

	(void)state;
	assert_int_equal(gfec_nc_block_pack(&good, buf, sizeof(buf)), 28);
	buf[28] = 0x5a;
	assert_int_equal(gfec_nc_block_unpack(buf, sizeof(buf), &u), 0);
	for (size_t i = 0; i < sizeof(bytes) / sizeof(bytes[0]); i++) {
		memcpy(bad, buf, sizeof(buf));
		bad[bytes[i].off] = bytes[i].val;
		assert_int_equal(gfec_nc_block_unpack(bad, sizeof(bad), &u), GFEC_E_FORMAT);
	}
	/* n above the format's limit, B above its limit */
	memcpy(bad, buf, sizeof(buf));
	bad[8] = 1, bad[9] = 0, bad[10] = 1; /* 65537 */
	assert_int_equal(gfec_nc_block_unpack(bad, sizeof(bad), &u), GFEC_E_FORMAT);
	memcpy(bad, buf, sizeof(buf));
	bad[12] = 1, bad[15] = 0x40; /* 2^30 + 1 */
	assert_int_equal(gfec_nc_block_unpack(bad, sizeof(bad), &u), GFEC_E_FORMAT);

	b = good, b.family = 3;
	assert_int_equal(gfec_nc_block_pack(&b, buf, sizeof(buf)), GFEC_E_INVAL);
	b = good, b.kind = 0;
	assert_int_equal(gfec_nc_block_pack(&b, buf, sizeof(buf)), GFEC_E_INVAL);
	b = good, b.seed = 4; /* systematic source index >= n */
	assert_int_equal(gfec_nc_block_pack(&b, buf, sizeof(buf)), GFEC_E_INVAL);
	b = good, b.flags = 4;
	assert_int_equal(gfec_nc_block_pack(&b, buf, sizeof(buf)), GFEC_E_INVAL);
	b = good, b.n = 0;
	assert_int_equal(gfec_nc_block_pack(&b, buf, sizeof(buf)), GFEC_E_INVAL);
	b = good, b.block_size = 0;
	assert_int_equal(gfec_nc_block_pack(&b, buf, sizeof(buf)), GFEC_E_INVAL);
	b = good, b.block_size = GFEC_NC_MAX_BLOCK + 1;
	assert_int_equal(gfec_nc_block_pack(&b, buf, sizeof(buf)), GFEC_E_INVAL);
	/* flags belong to seed-carrying blocks only */
	{
		uint8_t c[4] = { 1, 2, 3, 4 };

		b = good, b.kind = GFEC_NC_KIND_COEF, b.coefs = c;
		assert_int_equal(gfec_nc_block_pack(&b, buf, sizeof(buf)), GFEC_E_INVAL);
		b.flags = 0;
		assert_int_equal(gfec_nc_block_pack(&b, buf, sizeof(buf)), 28);
		buf[7] = GFEC_NC_ZERO_COEFS;
		assert_int_equal(gfec_nc_block_unpack(buf, sizeof(buf), &u), GFEC_E_FORMAT);
	}
	assert_int_equal(gfec_nc_block_unpack(NULL, 100, &u), GFEC_E_FORMAT);
	assert_int_equal(gfec_nc_header_bytes(GFEC_NC_KIND_COEF, 0), 0);
	assert_int_equal(gfec_nc_header_bytes(GFEC_NC_KIND_COEF, GFEC_NC_MAX_N + 1), 0);
	assert_int_equal(gfec_nc_header_bytes(7, 5), 0);
	assert_string_equal(gfec_strerror(GFEC_E_FORMAT), "coded block is malformed or truncated");
	assert_string_equal(gfec_strerror(GFEC_E_FOREIGN),
			    "coded block belongs to another code or segment");
}

/* The generator's values are part of the wire format: pinned here. */
static void test_prng_pinned(void **state)
{
	/* computed independently from the formula in nc_prng.h (Python, 32-bit masks) */
	static const uint8_t want0[8] = { 174, 22, 44, 55, 116, 12, 147, 104 };
	static const uint8_t want7[8] = { 204, 248, 7, 178, 60, 50, 153, 192 };
	uint8_t row[8];

	(void)state;
	gfec_nc_prng_row(0, 8, 0, row);
	assert_memory_equal(row, want0, 8);
	gfec_nc_prng_row(7, 8, 1, row);
	assert_memory_equal(row, want7, 8);
}

/* Uniformity: over 2^22 draws, every value's count within 6 sigma; never 0 unless zero_ok. */
static void test_prng_distribution(void **state)
{
	enum { DRAWS = 1 << 22, N = 256 };
	static uint32_t hist[2][256];

	(void)state;
	for (uint32_t s = 0; s < DRAWS / N; s++) {
		uint32_t key = gfec_nc_prng_key(s);

		for (uint32_t i = 0; i < N; i++) {
			hist[0][gfec_nc_prng_coef(key, i, 0)]++;
			hist[1][gfec_nc_prng_coef(key, i, 1)]++;
		}
	}
	assert_int_equal(hist[0][0], 0);
	for (int z = 0; z < 2; z++) {
		double p = 1.0 / (z ? 256 : 255), mean = DRAWS * p;
		double sd = sqrt(DRAWS * p * (1 - p));

		for (int v = z ? 0 : 1; v < 256; v++)
			assert_true(fabs(hist[z][v] - mean) < 6 * sd);
	}
}

/*
 * nc_hdr.h's verdict on @p len bytes at @p h for the code (n, B, zero_ok) and segment id, made
 * the CPU decoder's way: gfec_nc_block_unpack, then nc.c's checks of family, shape, segment and
 * coefficient range; the row from the block's seed or coefficients.
 */
static int hdr_reference(const uint8_t *h, size_t len, uint32_t n, uint32_t B, uint64_t id,
			 int zero_ok, uint8_t *row, size_t *off)
{
	struct gfec_nc_block b;

	if (gfec_nc_block_unpack(h, len, &b))
		return 0;
	if (b.family != GFEC_NC_RLC || b.n != n || b.block_size != B || b.segment != id ||
	    (b.kind == GFEC_NC_KIND_SEED && !(b.flags & GFEC_NC_SYSTEMATIC) &&
	     !!(b.flags & GFEC_NC_ZERO_COEFS) != !!zero_ok))
		return 0;
	if (b.kind == GFEC_NC_KIND_COEF)
		memcpy(row, b.coefs, n);
	else if (b.flags & GFEC_NC_SYSTEMATIC)
		for (uint32_t j = 0; j < n; j++)
			row[j] = j == b.seed;
	else
		gfec_nc_prng_row(b.seed, n, zero_ok, row);
	*off = (size_t)(b.payload - h);
	return 1;
}

/* Random blocks of every kind, damaged at random (a header byte, a bit, the length), both ways. */
static void test_hdr_parse(void **state)
{
	static const uint32_t ns[] = { 1, 2, 5, 128, 300 };
	uint8_t buf[600], coefs[300], row[300], ref[300];
	int passed = 0, failed = 0;

	(void)state;
	for (int it = 0; it < 40000; it++) {
		const uint32_t n = ns[test_range(0, 4)], B = (uint32_t)test_range(1, 64);
		const int zero_ok = test_range(0, 1), kind = test_range(0, 2);
		const uint64_t id = it % 3 ? 77 : 0x123456789abcull;
		struct gfec_nc_block b = { .family = GFEC_NC_RLC, .n = n, .block_size = B,
					   .segment = id, .coefs = coefs };
		size_t len, off = 0;
		int hl;

		test_fill(buf, sizeof(buf));
		if (kind == 2) {
			b.kind = GFEC_NC_KIND_COEF;
		} else {
			b.kind = GFEC_NC_KIND_SEED;
			b.flags = kind ? (uint8_t)(GFEC_NC_SYSTEMATIC | (test_range(0, 1) << 1))
				       : (uint8_t)(zero_ok ? GFEC_NC_ZERO_COEFS : 0);
			b.seed = kind ? (uint32_t)test_range(0, (int)n - 1)
				      : (uint32_t)test_range(0, 1 << 30);
		}
		memcpy(coefs, buf + 200, n); /* random coefficients, not overlapping the header */
		hl = gfec_nc_block_pack(&b, buf, sizeof(buf));
		assert_true(hl > 0);
		len = (size_t)hl + B;
		switch (test_range(0, 5)) {
		case 0: /* intact */
			break;
		case 1: /* one header byte changed */
			buf[test_range(0, hl - 1)] ^= (uint8_t)test_range(1, 255);
			break;
		case 2: /* one bit of the fixed part */
			buf[test_range(0, 23)] ^= (uint8_t)(1u << test_range(0, 7));
			break;
		case 3: /* short or long */
			len = (size_t)test_range(0, (int)len + 3);
			break;
		case 4: /* the kind or the flags */
			buf[test_range(6, 7)] = (uint8_t)test_range(0, 4);
			break;
		default: /* another code or segment */
			if (test_range(0, 1))
				buf[8 + test_range(0, 15)] ^= 1;
			else
				buf[test_range(5, 5)] = GFEC_NC_LT;
			break;
		}
		const int want = hdr_reference(buf, len, n, B, id, zero_ok, ref, &off);
		const struct gfec_nc_hdr_row h = gfec_nc_hdr_parse(buf, len, n, B, id, zero_ok);

		if (!!h.how != want)
			fail_msg("it %d n=%u B=%u kind %d len %zu: nc_hdr.h says %u, the decoder %d",
				 it, n, B, kind, len, h.how, want);
		if (!want) {
			failed++;
			continue;
		}
		passed++;
		assert_int_equal(h.off, off);
		for (uint32_t j = 0; j < n; j++)
			row[j] = gfec_nc_hdr_coef(h, buf, j, zero_ok);
		assert_memory_equal(row, ref, n);
	}
	assert_true(passed > 5000 && failed > 5000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pack_unpack_seed),
		cmocka_unit_test(test_pack_unpack_coef),
		cmocka_unit_test(test_bad_fields),
		cmocka_unit_test(test_prng_pinned),
		cmocka_unit_test(test_prng_distribution),
		cmocka_unit_test(test_hdr_parse),
	};

	test_seed();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
