/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_isal_abi.c
 * gfec's libisal.so.2 against Debian's libisal2, function by function, byte for byte.
 *
 * Both libraries have the soname libisal.so.2, so neither is linked: each is dlopened by path
 * (ours from argv[1], the reference from $GFEC_ISAL_REF or Debian's file). ctest runs this file
 * once per route the drop-in can take, named by GFEC_TEST_ISAL_ROUTE:
 *   real  small calls forwarded to the real ISA-L (the default setup)
 *   base  GFEC_ISAL_LIB points nowhere: gfec's plain-C code
 *   gpu   GFEC_ISAL_GPU_MIN=0: every encode tries the GPU (without one: falls back to the CPU)
 *   gfni512, gfni256  GFEC_CPU_PATH names gfec's GFNI kernels (skipped, exit 77, on a CPU
 *         without them, where the drop-in would quietly take the real ISA-L instead)
 *   avx2  GFEC_CPU_PATH names gfec's AVX2 kernel (skipped, exit 77, without AVX2)
 * In the first two the test checks that the route taken is the one named.
 */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "test_util.h"

#define REF_PATH "/usr/lib/x86_64-linux-gnu/libisal.so.2.0.30"
#define MAXK 32
#define MAXROWS 32

/* Hadoop's isal_load.c fails on the first of these that is missing. */
static const char *const hadoop_names[] = {
	"gf_mul",	 "gf_inv",	   "gf_gen_rs_matrix", "gf_gen_cauchy1_matrix",
	"gf_invert_matrix", "gf_vect_mul", "ec_init_tables",   "ec_encode_data",
	"ec_encode_data_update",
};

/* liberasurecode 1.6.2's isa_l_rs_vand and isa_l_rs_cauchy backends. */
static const char *const liberasurecode_names[] = {
	"ec_encode_data",   "ec_init_tables", "gf_gen_rs_matrix", "gf_gen_cauchy1_matrix",
	"gf_invert_matrix", "gf_mul",
};

struct isal {
	void *h;
	unsigned char (*gf_mul)(unsigned char, unsigned char);
	unsigned char (*gf_inv)(unsigned char);
	void (*gf_gen_rs_matrix)(unsigned char *, int, int);
	void (*gf_gen_cauchy1_matrix)(unsigned char *, int, int);
	int (*gf_invert_matrix)(unsigned char *, unsigned char *, const int);
	int (*gf_vect_mul)(int, unsigned char *, void *, void *);
	void (*gf_vect_mul_init)(unsigned char, unsigned char *);
	void (*gf_vect_mul_base)(int, unsigned char *, unsigned char *, unsigned char *);
	void (*ec_init_tables)(int, int, unsigned char *, unsigned char *);
	void (*ec_encode_data)(int, int, int, unsigned char *, unsigned char **, unsigned char **);
	void (*ec_encode_data_update)(int, int, int, int, unsigned char *, unsigned char *,
				      unsigned char **);
	void (*ec_encode_data_base)(int, int, int, unsigned char *, unsigned char **,
				    unsigned char **);
	void (*ec_encode_data_update_base)(int, int, int, int, unsigned char *, unsigned char *,
					   unsigned char **);
};

static struct isal ours, ref;
static const char *ours_path;
static int real_loaded_by_ours; /* after one call, before the test loaded the reference */

#define SYM(l, name)                                                                               \
	do {                                                                                       \
		*(void **)&(l)->name = dlsym((l)->h, #name);                                       \
		if (!(l)->name)                                                                    \
			return -1;                                                                 \
	} while (0)

static int isal_open(struct isal *l, const char *path)
{
	l->h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!l->h)
		return -1;
	SYM(l, gf_mul);
	SYM(l, gf_inv);
	SYM(l, gf_gen_rs_matrix);
	SYM(l, gf_gen_cauchy1_matrix);
	SYM(l, gf_invert_matrix);
	SYM(l, gf_vect_mul);
	SYM(l, gf_vect_mul_init);
	SYM(l, gf_vect_mul_base);
	SYM(l, ec_init_tables);
	SYM(l, ec_encode_data);
	SYM(l, ec_encode_data_update);
	SYM(l, ec_encode_data_base);
	SYM(l, ec_encode_data_update_base);
	return 0;
}

static const char *ref_path(void)
{
	const char *p = getenv("GFEC_ISAL_REF");

	return p && *p ? p : REF_PATH;
}

/* ------------------------------------------------------------------------------------------ */

static void check_from_ours(const char *const *names, size_t n)
{
	char want[PATH_MAX], got[PATH_MAX];

	assert_non_null(realpath(ours_path, want));
	for (size_t i = 0; i < n; i++) {
		void *p = dlsym(ours.h, names[i]);
		Dl_info info;

		if (!p)
			fail_msg("dlsym(%s) failed: %s", names[i], dlerror());
		assert_true(dladdr(p, &info));
		assert_non_null(realpath(info.dli_fname, got));
		if (strcmp(got, want) != 0)
			fail_msg("%s resolves into %s, not %s", names[i], got, want);
	}
}

static void test_symbols(void **state)
{
	check_from_ours(hadoop_names, sizeof(hadoop_names) / sizeof(hadoop_names[0]));
	check_from_ours(liberasurecode_names,
			sizeof(liberasurecode_names) / sizeof(liberasurecode_names[0]));
}

static void test_route(void **state)
{
	const char *route = getenv("GFEC_TEST_ISAL_ROUTE");

	if (!route || strcmp(route, "gpu") == 0 || strncmp(route, "gfni", 4) == 0 ||
	    strcmp(route, "avx2") == 0)
		skip();
	if (strcmp(route, "real") == 0 && !real_loaded_by_ours)
		fail_msg("the drop-in loaded neither %s nor GFEC_ISAL_LIB", REF_PATH);
	if (strcmp(route, "base") == 0 && real_loaded_by_ours)
		fail_msg("GFEC_ISAL_LIB=%s, yet the drop-in loaded %s", getenv("GFEC_ISAL_LIB"),
			 REF_PATH);
}

static void test_gf_mul_inv(void **state)
{
	for (int a = 0; a < 256; a++) {
		assert_int_equal(ours.gf_inv((uint8_t)a), ref.gf_inv((uint8_t)a));
		for (int b = 0; b < 256; b++) {
			const uint8_t x = (uint8_t)a, y = (uint8_t)b;

			if (ours.gf_mul(x, y) != ref.gf_mul(x, y))
				fail_msg("gf_mul(%d, %d)", a, b);
		}
	}
}

static void test_gen_matrices(void **state)
{
	static uint8_t x[256 * 256], y[256 * 256];
	const int shapes[][2] = { { 1, 1 }, { 1, 2 }, { 2, 2 }, { 4, 6 }, { 10, 14 }, { 6, 9 },
				  { 12, 16 }, { 32, 48 }, { 128, 200 }, { 200, 256 }, { 223, 255 },
				  { 255, 256 } };

	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]) + 40; s++) {
		int k, m;

		if (s < sizeof(shapes) / sizeof(shapes[0])) {
			k = shapes[s][0];
			m = shapes[s][1];
		} else {
			k = test_range(1, 64);
			m = test_range(k, k + 32);
		}
		memset(x, TEST_POISON, sizeof(x));
		memset(y, TEST_POISON, sizeof(y));
		ours.gf_gen_rs_matrix(x, m, k);
		ref.gf_gen_rs_matrix(y, m, k);
		if (memcmp(x, y, sizeof(x)) != 0)
			fail_msg("gf_gen_rs_matrix(m=%d, k=%d)", m, k);
		ours.gf_gen_cauchy1_matrix(x, m, k);
		ref.gf_gen_cauchy1_matrix(y, m, k);
		if (memcmp(x, y, sizeof(x)) != 0)
			fail_msg("gf_gen_cauchy1_matrix(m=%d, k=%d)", m, k);
	}
}

static void invert_both(uint8_t *in, int n, const char *what)
{
	static uint8_t in2[MAXK * MAXK], out1[MAXK * MAXK], out2[MAXK * MAXK];
	int r1, r2;

	memcpy(in2, in, (size_t)n * n);
	memset(out1, TEST_POISON, sizeof(out1));
	memset(out2, TEST_POISON, sizeof(out2));
	r1 = ours.gf_invert_matrix(in, out1, n);
	r2 = ref.gf_invert_matrix(in2, out2, n);
	if (r1 != r2 || memcmp(in, in2, (size_t)n * n) || memcmp(out1, out2, sizeof(out1)))
		fail_msg("gf_invert_matrix(%s, n=%d): %d vs %d, or in/out differ", what, n, r1, r2);
}

static void test_invert(void **state)
{
	static uint8_t a[MAXK * MAXK], gen[(2 * MAXK) * MAXK];
	int singular = 0;

	for (int n = 1; n <= MAXK; n++) {
		/* Random matrices (a few are singular), rows of a Cauchy code (never singular). */
		for (int t = 0; t < 20; t++) {
			test_fill(a, (size_t)n * n);
			singular += ref.gf_invert_matrix(memcpy(gen, a, (size_t)n * n), gen + n * n,
							 n) != 0;
			invert_both(a, n, "random");
		}
		ref.gf_gen_cauchy1_matrix(gen, 2 * n, n);
		memcpy(a, gen + (size_t)(n / 2) * n, (size_t)n * n);
		invert_both(a, n, "cauchy rows");
		if (n < 2)
			continue;
		/* Singular on purpose: a repeated row, a zero column, a scaled row. */
		test_fill(a, (size_t)n * n);
		memcpy(a + n, a, n);
		invert_both(a, n, "repeated row");
		test_fill(a, (size_t)n * n);
		for (int i = 0; i < n; i++)
			a[i * n + n - 1] = 0;
		invert_both(a, n, "zero column");
		test_fill(a, (size_t)n * n);
		for (int j = 0; j < n; j++)
			a[(n - 1) * n + j] = ref.gf_mul(a[j], 0x53);
		invert_both(a, n, "scaled row");
	}
	print_message("# %d of %d random matrices were singular\n", singular, 20 * MAXK);
}

static void test_vect_mul(void **state)
{
	enum { N = 8192 };
	struct test_buf bs, b1, b2;
	uint8_t *src = tbuf_alloc(&bs, N, 0), *d1 = tbuf_alloc(&b1, N, 0),
		*d2 = tbuf_alloc(&b2, N, 0);
	uint8_t t1[32], t2[32];

	for (int c = 0; c < 256; c++) {
		ours.gf_vect_mul_init((uint8_t)c, t1);
		ref.gf_vect_mul_init((uint8_t)c, t2);
		if (memcmp(t1, t2, 32) != 0)
			fail_msg("gf_vect_mul_init(%d)", c);
	}
	for (int t = 0; t < 200; t++) {
		const int len = 32 * test_range(1, N / 32);
		const uint8_t c = (uint8_t)test_rand();

		test_fill(src, N);
		memset(d1, TEST_POISON, N);
		memset(d2, TEST_POISON, N);
		ours.gf_vect_mul_init(c, t1);
		ref.gf_vect_mul_init(c, t2);
		assert_int_equal(ours.gf_vect_mul(len, t1, src, d1), 0);
		assert_int_equal(ref.gf_vect_mul(len, t2, src, d2), 0);
		if (memcmp(d1, d2, N) != 0)
			fail_msg("gf_vect_mul(len=%d, c=%d)", len, c);
		/* The plain version takes any length. */
		const int blen = test_range(1, N);

		ours.gf_vect_mul_base(blen, t1, src, d1);
		ref.gf_vect_mul_base(blen, t2, src, d2);
		if (memcmp(d1, d2, N) != 0)
			fail_msg("gf_vect_mul_base(len=%d, c=%d)", blen, c);
	}
	/* Lengths ISA-L refuses: both report failure; ours also writes nothing. */
	const int bad[] = { 0, 1, 16, 31, 33, 100 };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(d1, TEST_POISON, N);
		assert_int_not_equal(ours.gf_vect_mul(bad[i], t1, src, d1), 0);
		assert_int_not_equal(ref.gf_vect_mul(bad[i], t2, src, d2), 0);
		for (int b = 0; b < N; b++)
			assert_int_equal(d1[b], TEST_POISON);
	}
	tbuf_free(&bs);
	tbuf_free(&b1);
	tbuf_free(&b2);
}

/* ------------------------------------------------------------------------------------------ */

/* A call's buffers: k sources and rows outputs per library, each at its own misalignment. */
struct call {
	int k, rows, len;
	uint8_t a[MAXK * MAXROWS];
	_Alignas(64) uint8_t t1[32 * MAXK * MAXROWS]; /* ours: GFNI routes run from its matrices */
	uint8_t t2[32 * MAXK * MAXROWS];
	struct test_buf bsrc[MAXK], b1[MAXROWS], b2[MAXROWS];
	uint8_t *src[MAXK], *d1[MAXROWS], *d2[MAXROWS];
};

static void call_init(struct call *c, int k, int rows, int len)
{
	c->k = k;
	c->rows = rows;
	c->len = len;
	test_fill(c->a, sizeof(c->a));
	for (int j = 0; j < k; j++) {
		c->src[j] = tbuf_alloc(&c->bsrc[j], (size_t)len, (unsigned)test_range(0, 63));
		test_fill(c->src[j], (size_t)len);
	}
	for (int i = 0; i < rows; i++) {
		c->d1[i] = tbuf_alloc(&c->b1[i], (size_t)len, (unsigned)test_range(0, 63));
		c->d2[i] = tbuf_alloc(&c->b2[i], (size_t)len, (unsigned)test_range(0, 63));
	}
}

/* Both outputs start from the same random bytes (what an update adds to). */
static void call_same_start(struct call *c)
{
	for (int i = 0; i < c->rows; i++) {
		test_fill(c->d1[i], (size_t)c->len);
		memcpy(c->d2[i], c->d1[i], (size_t)c->len);
	}
}

static void call_poison(struct call *c)
{
	for (int i = 0; i < c->rows; i++) {
		memset(c->d1[i], TEST_POISON, (size_t)c->len);
		memset(c->d2[i], 0x5A, (size_t)c->len);
	}
}

static void call_check(struct call *c, const char *what)
{
	for (int i = 0; i < c->rows; i++)
		if (memcmp(c->d1[i], c->d2[i], (size_t)c->len) != 0)
			fail_msg("%s: k=%d rows=%d len=%d: output %d differs", what, c->k, c->rows,
				 c->len, i);
}

static void call_free(struct call *c)
{
	for (int j = 0; j < c->k; j++)
		tbuf_free(&c->bsrc[j]);
	for (int i = 0; i < c->rows; i++) {
		tbuf_free(&c->b1[i]);
		tbuf_free(&c->b2[i]);
	}
}

static int random_len(void)
{
	static const int lens[] = { 1, 15, 16, 31, 32, 33, 63, 64, 65, 100, 255, 4096, 65536 + 7 };

	return test_rand() % 4 ? lens[test_rand() % (sizeof(lens) / sizeof(lens[0]))]
			       : test_range(1, 20000);
}

static struct call *call_new(void)
{
	struct call *c = calloc(1, sizeof(*c));

	assert_non_null(c);
	return c;
}

static void test_encode(void **state)
{
	struct call *c = call_new();

	for (int t = 0; t < 150; t++) {
		call_init(c, test_range(1, MAXK), test_range(1, t % 3 ? 6 : MAXROWS), random_len());
		ours.ec_init_tables(c->k, c->rows, c->a, c->t1);
		ref.ec_init_tables(c->k, c->rows, c->a, c->t2);

		call_poison(c);
		ours.ec_encode_data(c->len, c->k, c->rows, c->t1, c->src, c->d1);
		ref.ec_encode_data(c->len, c->k, c->rows, c->t2, c->src, c->d2);
		call_check(c, "ec_encode_data");

		call_poison(c);
		ours.ec_encode_data_base(c->len, c->k, c->rows, c->t1, c->src, c->d1);
		ref.ec_encode_data_base(c->len, c->k, c->rows, c->t2, c->src, c->d2);
		call_check(c, "ec_encode_data_base");
		call_free(c);
	}
	free(c);
}

/*
 * Long encodes into 64-byte aligned outputs: on the GFNI routes, those of at least
 * cpu_stream_min bytes (64 KiB: tests/CMakeLists.txt sets it) write parity by non-temporal
 * stores. Lengths on both sides of the cut, outputs aligned or (every third call) one of them
 * not.
 */
static void test_encode_stream(void **state)
{
	static const int lens[] = { 65535, 65536, 65537, 65536 + 64, 131075, 65536 + 4095 };
	struct call *c = call_new();

	for (int t = 0; t < 18; t++) {
		const int k = test_range(1, 10), rows = test_range(1, t % 2 ? 4 : 14);

		c->k = k;
		c->rows = rows;
		c->len = lens[t % (sizeof(lens) / sizeof(lens[0]))];
		test_fill(c->a, sizeof(c->a));
		for (int j = 0; j < k; j++) {
			c->src[j] = tbuf_alloc(&c->bsrc[j], (size_t)c->len,
					       (unsigned)test_range(0, 63));
			test_fill(c->src[j], (size_t)c->len);
		}
		for (int i = 0; i < rows; i++) {
			const unsigned off = t % 3 == 2 && i == rows / 2 ? 32 : 0;

			c->d1[i] = tbuf_alloc(&c->b1[i], (size_t)c->len, off);
			c->d2[i] = tbuf_alloc(&c->b2[i], (size_t)c->len, 0);
		}
		ours.ec_init_tables(k, rows, c->a, c->t1);
		ref.ec_init_tables(k, rows, c->a, c->t2);
		call_poison(c);
		ours.ec_encode_data(c->len, k, rows, c->t1, c->src, c->d1);
		ref.ec_encode_data(c->len, k, rows, c->t2, c->src, c->d2);
		call_check(c, "ec_encode_data, long");
		call_free(c);
	}
	free(c);
}

static void test_update(void **state)
{
	struct call *c = call_new();

	for (int t = 0; t < 150; t++) {
		call_init(c, test_range(1, MAXK), test_range(1, t % 3 ? 8 : MAXROWS), random_len());
		ours.ec_init_tables(c->k, c->rows, c->a, c->t1);
		ref.ec_init_tables(c->k, c->rows, c->a, c->t2);
		call_same_start(c);
		for (int j = 0; j < c->k; j += test_range(1, 3)) {
			uint8_t *s = c->src[j];

			ours.ec_encode_data_update(c->len, c->k, c->rows, j, c->t1, s, c->d1);
			ref.ec_encode_data_update(c->len, c->k, c->rows, j, c->t2, s, c->d2);
		}
		call_check(c, "ec_encode_data_update");

		call_same_start(c);
		const int j = test_range(0, c->k - 1);

		ours.ec_encode_data_update_base(c->len, c->k, c->rows, j, c->t1, c->src[j], c->d1);
		ref.ec_encode_data_update_base(c->len, c->k, c->rows, j, c->t2, c->src[j], c->d2);
		call_check(c, "ec_encode_data_update_base");
		call_free(c);
	}
	free(c);
}

/*
 * k = 0: parity is the empty sum. Debian's libisal2 2.30 zero-fills it in ec_encode_data_base at
 * every len, and in ec_encode_data below its SIMD cut-over (16 to 64 bytes by CPU: 32 on AVX2),
 * where it calls _base. From the cut-over up its SIMD code runs one source anyway: it reads
 * src[0] and table bytes that ec_init_tables(0, ...) never writes, so there is nothing defined
 * to match. Ours zero-fills at every len and reads nothing (its src[0] is NULL here).
 */
static void test_no_sources(void **state)
{
	static const int lens[] = { 1, 15, 16, 31, 32, 33, 63, 64, 65, 100, 255, 4096, 65536 + 7 };
	struct call *c = call_new();
	struct test_buf bsrc;
	uint8_t *none[1] = { NULL }, *src[1];

	for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
		const int len = lens[l], rows = (int)l % 2 ? MAXROWS : test_range(1, 6);

		call_init(c, 0, rows, len);
		src[0] = tbuf_alloc(&bsrc, (size_t)len, 0);
		test_fill(src[0], (size_t)len);
		/* ec_init_tables(0, ...) writes nothing: both read the same bytes */
		test_fill(c->t1, sizeof(c->t1));
		memcpy(c->t2, c->t1, sizeof(c->t2));
		ours.ec_init_tables(0, rows, c->a, c->t1);
		ref.ec_init_tables(0, rows, c->a, c->t2);
		assert_memory_equal(c->t1, c->t2, sizeof(c->t1));

		call_poison(c);
		ours.ec_encode_data_base(len, 0, rows, c->t1, none, c->d1);
		ref.ec_encode_data_base(len, 0, rows, c->t2, src, c->d2);
		call_check(c, "ec_encode_data_base, k=0");

		call_poison(c);
		ours.ec_encode_data(len, 0, rows, c->t1, none, c->d1);
		if (len < 16) {
			ref.ec_encode_data(len, 0, rows, c->t2, src, c->d2);
			call_check(c, "ec_encode_data, k=0");
		}
		for (int i = 0; i < rows; i++)
			for (int b = 0; b < len; b++)
				if (c->d1[i][b] != 0)
					fail_msg("ec_encode_data, k=0, len=%d: output %d byte %d", len,
						 i, b);
		tbuf_free(&bsrc);
		call_free(c);
	}
	free(c);
}

/*
 * Tables built by the real ISA-L, handed to ours (both _base functions included: the real
 * library calls them through its PLT when ours is in the global scope). And a table built for
 * more rows than a call uses, which ISA-L reads as a prefix.
 */
static void test_foreign_and_partial_tables(void **state)
{
	struct call *c = call_new();

	for (int t = 0; t < 60; t++) {
		call_init(c, test_range(1, MAXK), test_range(1, 12), random_len());
		ref.ec_init_tables(c->k, c->rows, c->a, c->t2);

		call_poison(c);
		ours.ec_encode_data(c->len, c->k, c->rows, c->t2, c->src, c->d1);
		ref.ec_encode_data(c->len, c->k, c->rows, c->t2, c->src, c->d2);
		call_check(c, "ec_encode_data, foreign table");

		call_poison(c);
		ours.ec_encode_data_base(c->len, c->k, c->rows, c->t2, c->src, c->d1);
		ref.ec_encode_data(c->len, c->k, c->rows, c->t2, c->src, c->d2);
		call_check(c, "ec_encode_data_base, foreign table");

		const int j = test_range(0, c->k - 1);

		call_same_start(c);
		ours.ec_encode_data_update(c->len, c->k, c->rows, j, c->t2, c->src[j], c->d1);
		ref.ec_encode_data_update(c->len, c->k, c->rows, j, c->t2, c->src[j], c->d2);
		call_check(c, "ec_encode_data_update, foreign table");

		call_same_start(c);
		ours.ec_encode_data_update_base(c->len, c->k, c->rows, j, c->t2, c->src[j], c->d1);
		ref.ec_encode_data_update(c->len, c->k, c->rows, j, c->t2, c->src[j], c->d2);
		call_check(c, "ec_encode_data_update_base, foreign table");

		/* A table for rows + 3 rows, used for the first rows. */
		ours.ec_init_tables(c->k, c->rows + 3, c->a, c->t1);
		ref.ec_init_tables(c->k, c->rows + 3, c->a, c->t2);
		call_poison(c);
		ours.ec_encode_data(c->len, c->k, c->rows, c->t1, c->src, c->d1);
		ref.ec_encode_data(c->len, c->k, c->rows, c->t2, c->src, c->d2);
		call_check(c, "ec_encode_data, larger table");
		call_free(c);
	}
	free(c);
}

/*
 * Our tables where callers put them: at any address, and copied elsewhere (Ceph's ISA plugin
 * keeps copies). On the GFNI routes a table at an 8-byte aligned address carries the matrices
 * the kernels run from (isal_abi.h, version '2'), and a copy whose matrices would lie unaligned
 * runs from its coefficients instead; on the other routes no table carries them. Every way must
 * give ISA-L's bytes.
 */
static void test_tables_anywhere(void **state)
{
	static _Alignas(64) uint8_t at[32 * MAXK * MAXROWS + 8], moved[32 * MAXK * MAXROWS + 8];
	const char *route = getenv("GFEC_TEST_ISAL_ROUTE");
	/* the GPU route runs the default path: it depends on the CPU */
	const int gfni = route && strncmp(route, "gfni", 4) == 0,
		  gpu = route && !strcmp(route, "gpu");
	struct call *c = call_new();

	for (int t = 0; t < 64; t++) {
		uint8_t *t1 = at + t % 8, *t3 = moved + test_range(0, 7);

		call_init(c, test_range(1, MAXK), test_range(1, MAXROWS), random_len());
		ours.ec_init_tables(c->k, c->rows, c->a, t1);
		ref.ec_init_tables(c->k, c->rows, c->a, c->t2);
		if (t % 8 == 0 && !gpu)
			assert_int_equal(t1[7], gfni ? '2' : '1');
		memcpy(t3, t1, 32 * (size_t)c->k * (size_t)c->rows);
		for (int copy = 0; copy < 2; copy++) {
			uint8_t *tbl = copy ? t3 : t1;
			const int j = test_range(0, c->k - 1);

			call_poison(c);
			ours.ec_encode_data(c->len, c->k, c->rows, tbl, c->src, c->d1);
			ref.ec_encode_data(c->len, c->k, c->rows, c->t2, c->src, c->d2);
			call_check(c,
				   copy ? "ec_encode_data, copied table" : "ec_encode_data, table");

			call_same_start(c);
			ours.ec_encode_data_update(c->len, c->k, c->rows, j, tbl, c->src[j], c->d1);
			ref.ec_encode_data_update(c->len, c->k, c->rows, j, c->t2, c->src[j],
						  c->d2);
			call_check(c, copy ? "ec_encode_data_update, copied table"
					   : "ec_encode_data_update, table");
		}
		call_free(c);
	}
	free(c);
}

/* ------------------------------------------------------------------------------------------ */

#define THREADS 8
#define JOBS 24
#define JOB_MAXLEN (4 * 16384 + 100)

/*
 * Every two threads run the same jobs at the same time, into outputs of their own. Half the jobs
 * share three tables, half have one each; the references are computed before the threads start.
 */
struct job {
	int k, rows, len;
	uint8_t *tbl;
	uint8_t *src[MAXK], *want[MAXROWS];
};

static struct job jobs[JOBS];
static uint8_t shared_tbl[3][32 * MAXK * MAXROWS];
static uint8_t *thread_out[THREADS][MAXROWS];
static pthread_barrier_t start;

static void *worker(void *arg)
{
	const int id = (int)(intptr_t)arg;
	uint8_t **out = thread_out[id];
	int bad = 0;

	pthread_barrier_wait(&start);
	for (int round = 0; round < 6; round++)
		for (int j = id % 4; j < JOBS; j += 4) {
			struct job *b = &jobs[(j + round) % JOBS];

			ours.ec_encode_data(b->len, b->k, b->rows, b->tbl, b->src, out);
			for (int i = 0; i < b->rows; i++)
				bad |= memcmp(out[i], b->want[i], (size_t)b->len) != 0;
		}
	return (void *)(intptr_t)bad;
}

static void test_threads(void **state)
{
	static uint8_t a[3][MAXK * MAXROWS], own_a[JOBS][MAXK * MAXROWS];
	static uint8_t own_tbl[JOBS][32 * MAXK * MAXROWS], ref_tbl[32 * MAXK * MAXROWS];
	const int shape[3][2] = { { 10, 4 }, { 4, 2 }, { 6, 3 } };
	pthread_t th[THREADS];
	int failed = 0;

	for (int s = 0; s < 3; s++) {
		test_fill(a[s], sizeof(a[s]));
		ours.ec_init_tables(shape[s][0], shape[s][1], a[s], shared_tbl[s]);
	}
	for (int j = 0; j < JOBS; j++) {
		struct job *b = &jobs[j];
		const uint8_t *coef;

		if (j % 2) {
			b->k = shape[j % 3][0];
			b->rows = shape[j % 3][1];
			b->tbl = shared_tbl[j % 3];
			coef = a[j % 3];
		} else {
			b->k = test_range(1, MAXK);
			b->rows = test_range(1, 8);
			test_fill(own_a[j], sizeof(own_a[j]));
			ours.ec_init_tables(b->k, b->rows, own_a[j], own_tbl[j]);
			b->tbl = own_tbl[j];
			coef = own_a[j];
		}
		b->len = test_range(1, 4) * 16384 + test_range(0, 100); /* <= JOB_MAXLEN */
		for (int i = 0; i < b->k; i++) {
			b->src[i] = malloc((size_t)b->len);
			assert_non_null(b->src[i]);
			test_fill(b->src[i], (size_t)b->len);
		}
		for (int i = 0; i < b->rows; i++) {
			b->want[i] = malloc((size_t)b->len);
			assert_non_null(b->want[i]);
		}
		ref.ec_init_tables(b->k, b->rows, (uint8_t *)coef, ref_tbl);
		ref.ec_encode_data(b->len, b->k, b->rows, ref_tbl, b->src, b->want);
	}
	for (int t = 0; t < THREADS; t++)
		for (int i = 0; i < MAXROWS; i++)
			assert_non_null(thread_out[t][i] = malloc(JOB_MAXLEN));
	assert_int_equal(pthread_barrier_init(&start, NULL, THREADS), 0);
	for (int t = 0; t < THREADS; t++)
		assert_int_equal(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t), 0);
	for (int t = 0; t < THREADS; t++) {
		void *r;

		pthread_join(th[t], &r);
		failed |= (int)(intptr_t)r;
	}
	pthread_barrier_destroy(&start);
	for (int t = 0; t < THREADS; t++)
		for (int i = 0; i < MAXROWS; i++)
			free(thread_out[t][i]);
	for (int j = 0; j < JOBS; j++) {
		for (int i = 0; i < jobs[j].k; i++)
			free(jobs[j].src[i]);
		for (int i = 0; i < jobs[j].rows; i++)
			free(jobs[j].want[i]);
	}
	assert_int_equal(failed, 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_symbols),
	    cmocka_unit_test(test_route),
	    cmocka_unit_test(test_gf_mul_inv),
	    cmocka_unit_test(test_gen_matrices),
	    cmocka_unit_test(test_invert),
	    cmocka_unit_test(test_vect_mul),
	    cmocka_unit_test(test_encode),
	    cmocka_unit_test(test_encode_stream),
	    cmocka_unit_test(test_update),
	    cmocka_unit_test(test_no_sources),
	    cmocka_unit_test(test_foreign_and_partial_tables),
	    cmocka_unit_test(test_tables_anywhere),
	    cmocka_unit_test(test_threads),
	};
	uint8_t a[2] = { 3, 7 }, tbl[64], x[1] = { 1 }, y[2];
	uint8_t *src = x, *dst[2] = { y, y + 1 };

	if (argc != 2) {
		fprintf(stderr, "usage: %s path/to/gfec/libisal.so.2\n", argv[0]);
		return 2;
	}
	test_seed();
	const char *route = getenv("GFEC_TEST_ISAL_ROUTE");

	__builtin_cpu_init();
	if (route && strncmp(route, "gfni", 4) == 0 &&
	    !(__builtin_cpu_supports("gfni") &&
	      (strcmp(route, "gfni256") == 0 ? __builtin_cpu_supports("avx2")
					     : __builtin_cpu_supports("avx512bw") &&
						       __builtin_cpu_supports("avx512vl")))) {
		fprintf(stderr, "# route %s: this CPU lacks it, skipped\n", route);
		return 77;
	}
	if (route && strcmp(route, "avx2") == 0 && !__builtin_cpu_supports("avx2")) {
		fprintf(stderr, "# route avx2: this CPU lacks it, skipped\n");
		return 77;
	}
	ours_path = argv[1];
	if (isal_open(&ours, ours_path)) {
		fprintf(stderr, "cannot load %s: %s\n", ours_path, dlerror());
		return 1;
	}
	/*
	 * One call, then see whether it made the drop-in load the real library: Debian's, or the
	 * one GFEC_ISAL_LIB names (a host without Debian's package, such as the GPU machine, whose
	 * perf/device_run.sh points it at a carried copy).
	 */
	ours.ec_init_tables(1, 2, a, tbl);
	ours.ec_encode_data(1, 1, 2, tbl, &src, dst);
	const char *lib = getenv("GFEC_ISAL_LIB");

	for (int i = 0; i < 2; i++) {
		void *h = i == 0 ? dlopen(REF_PATH, RTLD_NOW | RTLD_NOLOAD)
			  : lib && *lib ? dlopen(lib, RTLD_NOW | RTLD_NOLOAD)
					: NULL;

		real_loaded_by_ours |= h != NULL;
		if (h)
			dlclose(h);
	}
	if (isal_open(&ref, ref_path())) {
		fprintf(stderr, "cannot load the reference %s: %s\n", ref_path(), dlerror());
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
