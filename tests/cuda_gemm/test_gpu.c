/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_gpu.c
 * The GPU backend through the public API, against raw ISA-L and the original data: every
 * compiled kernel, random shapes, lengths and alignments, batches, every erasure pattern of
 * (10,4) and (6,3), updates, device and pinned buffers, and injected CUDA faults (the CPU must
 * redo the request with identical output). Exits 77 (ctest: skipped) without a usable GPU.
 */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <unistd.h>
#include <cmocka.h>

#include <isa-l/erasure_code.h>

#include "gfec/gfec.h"
#include "test_util.h"

#define MAXN 256

static gfec_codec *try_make(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static gfec_codec *try_make(const char *fmt, ...)
{
	char profile[256];
	gfec_codec *c = NULL;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(profile, sizeof(profile), fmt, ap);
	va_end(ap);
	return gfec_codec_create(profile, &c, NULL, 0) == 0 ? c : NULL;
}

/* Raw ISA-L Cauchy parity: the reference every GPU result must equal. */
static void isal_cauchy(int k, int m, size_t len, uint8_t **data, uint8_t **out)
{
	uint8_t *full = malloc((size_t)(k + m) * k), *tbls = malloc(32u * k * m);

	gf_gen_cauchy1_matrix(full, k + m, k);
	ec_init_tables(k, m, full + k * k, tbls);
	ec_encode_data((int)len, k, m, tbls, data, out);
	free(full);
	free(tbls);
}

static const char *const kernels[] = { "", "nibble_rg1_t128", "nibble_rg1_t256",
				       "nibble_rg1_t512", "nibble_rg2_t256", "nibble_rg4_t256",
				       "nibble_small_rg1", "nibble_small_rg2",
				       "seed_t8", "seed_t16", "seed_t32" };

static void one_encode(const char *kernel, int k, int m, size_t len)
{
	gfec_codec *c = kernel[0] ? try_make("k=%d m=%d backend=gpu gpu_kernel=%s", k, m, kernel)
				  : try_make("k=%d m=%d backend=gpu", k, m);
	struct test_buf b[MAXN], r[MAXN];
	uint8_t *d[MAXN], *ref[MAXN];
	struct gfec_stats st;

	if (!c && kernel[0])
		return; /* this kernel cannot run this shape: the codec refused it */
	assert_non_null(c);
	for (int i = 0; i < k + m; i++) {
		d[i] = tbuf_alloc(&b[i], len, (unsigned)test_range(0, 63));
		if (i < k)
			test_fill(d[i], len);
		else
			memset(d[i], TEST_POISON, len);
	}
	for (int i = 0; i < m; i++)
		ref[i] = tbuf_alloc(&r[i], len, 0);
	isal_cauchy(k, m, len, d, ref);
	assert_int_equal(gfec_encode(c, (const uint8_t *const *)d, d + k, len), 0);
	for (int i = 0; i < m; i++)
		if (memcmp(d[k + i], ref[i], len) != 0)
			fail_msg("kernel '%s' k=%d m=%d len=%zu: parity %d differs from ISA-L", kernel,
				 k, m, len, i);
	gfec_codec_stats(c, &st);
	assert_int_equal(st.fallbacks, 0);
	assert_int_equal(st.gpu_calls, 1);
	for (int i = 0; i < k + m; i++)
		tbuf_free(&b[i]);
	for (int i = 0; i < m; i++)
		tbuf_free(&r[i]);
	gfec_codec_free(c);
}

static void test_every_kernel_random(void **state)
{
	(void)state;
	for (size_t v = 0; v < sizeof(kernels) / sizeof(kernels[0]); v++) {
		for (int t = 0; t < 12; t++) {
			int k = test_range(2, 30), m = test_range(1, k < 32 - k ? k : 32 - k);
			size_t len = t < 4 ? (size_t)test_range(1, 40) : (size_t)test_range(1, 300000);

			one_encode(kernels[v], k, m, len);
		}
		one_encode(kernels[v], 223, 32, 4096 + 5);
	}
}

/* gfec.conf [tune] rules pick kernels per call size; every choice gives ISA-L's bytes. */
static void test_tune_rules(void **state)
{
	char path[] = "/tmp/gfec_tune_XXXXXX";
	int fd = mkstemp(path);
	FILE *f;

	(void)state;
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fputs("[tune]\nrule = seed_t8 k=10 m=1-4 chunk=0-8191\n"
	      "rule = nibble_rg1_t256 k=10 m=1-4 chunk=8192-65536\n"
	      "rule = bmma_w4_n4_p1 k=10 m=1-4 chunk=65537-1000000\n",
	      f);
	fclose(f);
	setenv("GFEC_CONF", path, 1);
	one_encode("", 10, 4, 5000);
	one_encode("", 10, 4, 40000);
	one_encode("", 10, 4, 300000);
	one_encode("", 10, 4, 2000000); /* no rule: the default */
	unsetenv("GFEC_CONF");
	unlink(path);
}

static void test_batches(void **state)
{
	static const int counts[] = { 1, 7, 1000, 100000 };
	gfec_codec *g = try_make("k=10 m=4 backend=gpu"), *c = try_make("k=10 m=4 backend=cpu");

	(void)state;
	for (size_t t = 0; t < 4; t++) {
		const int ns = counts[t], k = 10, m = 4;
		const size_t len = ns >= 100000 ? 64 : ns >= 1000 ? 4096 : 70001;
		uint8_t *pool = malloc(len * (size_t)ns * (k + 2 * m));
		const uint8_t **data = malloc(sizeof(void *) * (size_t)ns * k);
		uint8_t **pg = malloc(sizeof(void *) * (size_t)ns * m);
		uint8_t **pc = malloc(sizeof(void *) * (size_t)ns * m);

		test_fill(pool, len * (size_t)ns * k);
		memset(pool + len * (size_t)ns * k, TEST_POISON, len * (size_t)ns * 2 * m);
		for (size_t i = 0; i < (size_t)ns * k; i++)
			data[i] = pool + i * len;
		for (size_t i = 0; i < (size_t)ns * m; i++) {
			pg[i] = pool + len * ((size_t)ns * k + i);
			pc[i] = pool + len * ((size_t)ns * (k + m) + i);
		}
		assert_int_equal(gfec_encode_batch(g, ns, data, pg, len), 0);
		assert_int_equal(gfec_encode_batch(c, ns, data, pc, len), 0);
		assert_memory_equal(pg[0], pc[0], len * (size_t)ns * m);
		free(pool);
		free(data);
		free(pg);
		free(pc);
	}
	gfec_codec_free(g);
	gfec_codec_free(c);
}

static void all_patterns(const char *technique, int k, int m, size_t len)
{
	gfec_codec *c = try_make("k=%d m=%d backend=gpu technique=%s", k, m, technique);
	const int n = k + m;
	struct test_buf b[MAXN], o[MAXN];
	uint8_t *d[MAXN], *out[MAXN];

	assert_non_null(c);
	for (int i = 0; i < n; i++) {
		d[i] = tbuf_alloc(&b[i], len, (unsigned)test_range(0, 63));
		out[i] = tbuf_alloc(&o[i], len, 0);
		if (i < k)
			test_fill(d[i], len);
	}
	assert_int_equal(gfec_encode(c, (const uint8_t *const *)d, d + k, len), 0);
	for (uint32_t mask = 1; mask < (1u << n); mask++) {
		const uint8_t *in[MAXN];
		uint8_t *want[MAXN];

		if (__builtin_popcount(mask) > m)
			continue;
		for (int i = 0; i < n; i++) {
			const int gone = (mask >> i) & 1;

			in[i] = gone ? NULL : d[i];
			want[i] = gone ? out[i] : NULL;
			if (gone)
				memset(out[i], TEST_POISON, len);
		}
		assert_int_equal(gfec_decode(c, in, want, len), 0);
		for (int i = 0; i < n; i++)
			if (((mask >> i) & 1) && memcmp(out[i], d[i], len) != 0)
				fail_msg("(%d,%d) lost 0x%x: chunk %d wrong", k, m, mask, i);
	}
	for (int i = 0; i < n; i++) {
		tbuf_free(&b[i]);
		tbuf_free(&o[i]);
	}
	gfec_codec_free(c);
}

static void test_every_erasure_pattern(void **state)
{
	(void)state;
	all_patterns("cauchy", 10, 4, 4096 + 17);
	all_patterns("cauchy", 6, 3, 100000);
	all_patterns("cauchy_good packetsize=64", 10, 4, 512 * 5);
	all_patterns("cauchy_good", 6, 3, 16384 * 2);
}

/* A GPU update of one column of pageable buffers against a CPU re-encode; no fallback. */
static void one_update(int k, int m, size_t len, const char *extra)
{
	gfec_codec *g = try_make("k=%d m=%d backend=gpu %s", k, m, extra);
	gfec_codec *c = try_make("k=%d m=%d backend=cpu", k, m);
	uint8_t *d[MAXN], *p2[MAXN], *delta = malloc(len);
	int vec = test_range(0, k - 1);
	struct gfec_stats st;

	assert_non_null(g);
	for (int i = 0; i < k + m; i++) {
		d[i] = malloc(len);
		if (i < k)
			test_fill(d[i], len);
	}
	for (int i = 0; i < m; i++)
		p2[i] = malloc(len);
	assert_int_equal(gfec_encode(c, (const uint8_t *const *)d, d + k, len), 0);
	test_fill(delta, len);
	for (size_t x = 0; x < len; x++)
		d[vec][x] ^= delta[x];
	assert_int_equal(gfec_update(g, vec, delta, d + k, len), 0);
	assert_int_equal(gfec_encode(c, (const uint8_t *const *)d, p2, len), 0);
	for (int i = 0; i < m; i++)
		assert_memory_equal(d[k + i], p2[i], len);
	gfec_codec_stats(g, &st);
	assert_int_equal(st.fallbacks, 0);
	assert_int_equal(st.gpu_calls, 1);
	for (int i = 0; i < k + m; i++)
		free(d[i]);
	for (int i = 0; i < m; i++)
		free(p2[i]);
	free(delta);
	gfec_codec_free(g);
	gfec_codec_free(c);
}

static void test_update(void **state)
{
	(void)state;
	for (int t = 0; t < 10; t++) {
		int k = test_range(2, 12), m = test_range(1, k < 6 ? k : 6);

		one_update(k, m, (size_t)test_range(1, 3 << 20), "gpu_segment=1048576");
	}
}

/*
 * Staged (pageable) calls on either side of the backend's in-place limit (backend.cu,
 * kInPlacePiece: 1 MiB of a piece's inputs and outputs, each at a 256-byte pitch): read and
 * written in the pinned staging buffers below it, copied to the device above it. Both ways give
 * the same bytes, so this checks each way's output, not where the limit falls.
 */
static void test_staged_in_place_limit(void **state)
{
	(void)state;
	/* RS(10,4): 14 x 74752 bytes fit; 74753 takes a pitch of 75008, over */
	one_encode("", 10, 4, 74752);
	one_encode("", 10, 4, 74753);
	/* an update stages one source and the 4 parities: 5 x 209664 fit, 209665 does not */
	one_update(10, 4, 209664, "");
	one_update(10, 4, 209665, "");
}

/* 4 KiB stripes with mixed erasure patterns: grouped per pattern, one launch per group. */
static void test_decode_batch(void **state)
{
	enum { NS = 2000, K = 10, M = 4, N = K + M };
	const size_t len = 4096;
	gfec_codec *g = try_make("k=%d m=%d backend=gpu", K, M);
	uint8_t *pool = malloc(len * (size_t)NS * N * 2);
	const uint8_t **in = malloc(sizeof(void *) * NS * N);
	uint8_t **out = malloc(sizeof(void *) * NS * N), **par = malloc(sizeof(void *) * NS * M);
	const uint8_t **data = malloc(sizeof(void *) * NS * K);
	static const uint16_t patterns[] = { 0x000f, 0x3c00, 0x0101, 0x2222 };
	struct gfec_stats st;

	(void)state;
	assert_non_null(g);
	for (int t = 0; t < NS; t++) {
		for (int j = 0; j < K; j++)
			data[t * K + j] = pool + len * ((size_t)t * N + j);
		for (int i = 0; i < M; i++)
			par[t * M + i] = pool + len * ((size_t)t * N + K + i);
	}
	for (int t = 0; t < NS; t++)
		for (int j = 0; j < K; j++)
			test_fill((uint8_t *)data[t * K + j], len);
	assert_int_equal(gfec_encode_batch(g, NS, data, par, len), 0);
	for (int t = 0; t < NS; t++) {
		const uint16_t lost = patterns[t % 4];

		for (int i = 0; i < N; i++) {
			uint8_t *chunk = pool + len * ((size_t)t * N + i);

			in[t * N + i] = (lost >> i) & 1 ? NULL : chunk;
			out[t * N + i] = (lost >> i) & 1 ? pool + len * ((size_t)NS * N + (size_t)t * N + i)
							 : NULL;
			if (out[t * N + i])
				memset(out[t * N + i], TEST_POISON, len);
		}
	}
	assert_int_equal(gfec_decode_batch(g, NS, in, out, len), 0);
	for (int t = 0; t < NS * N; t++)
		if (out[t])
			assert_memory_equal(out[t], pool + len * (size_t)t, len);
	gfec_codec_stats(g, &st);
	assert_int_equal(st.decode_cache_misses, 4);
	assert_int_equal(st.fallbacks, 0);
	free(pool);
	free(in);
	free(out);
	free(par);
	free(data);
	gfec_codec_free(g);
}

/* Buffers in device memory and in pinned host memory: both must give ISA-L's bytes. */
static void test_device_and_pinned_buffers(void **state)
{
	const int k = 8, m = 3;
	const size_t len = (5 << 20) + 48;
	gfec_codec *c = try_make("k=%d m=%d backend=gpu gpu_segment=4194304", k, m);
	uint8_t *h[11], *ref[3], *dv[11], *pin[11];
	struct gfec_stats st;

	(void)state;
	assert_non_null(c);
	for (int i = 0; i < k + m; i++) {
		h[i] = malloc(len);
		if (i < k)
			test_fill(h[i], len);
		assert_int_equal(cudaMalloc((void **)&dv[i], len), cudaSuccess);
		assert_int_equal(cudaMallocHost((void **)&pin[i], len), cudaSuccess);
		assert_int_equal(cudaMemcpy(dv[i], h[i], len, cudaMemcpyHostToDevice), cudaSuccess);
		memcpy(pin[i], h[i], len);
		if (i >= k) {
			assert_int_equal(cudaMemset(dv[i], TEST_POISON, len), cudaSuccess);
			memset(pin[i], TEST_POISON, len);
		}
	}
	for (int i = 0; i < m; i++)
		ref[i] = malloc(len);
	isal_cauchy(k, m, len, h, ref);

	assert_int_equal(gfec_encode(c, (const uint8_t *const *)dv, dv + k, len), 0);
	assert_int_equal(gfec_encode(c, (const uint8_t *const *)pin, pin + k, len), 0);
	for (int i = 0; i < m; i++) {
		assert_int_equal(cudaMemcpy(h[k + i], dv[k + i], len, cudaMemcpyDeviceToHost),
				 cudaSuccess);
		assert_memory_equal(h[k + i], ref[i], len);
		assert_memory_equal(pin[k + i], ref[i], len);
	}
	/* verify needs host memory: device buffers are refused, not read */
	assert_int_equal(gfec_verify(c, (const uint8_t *const *)dv, len, NULL), GFEC_E_INVAL);
	gfec_codec_stats(c, &st);
	assert_int_equal(st.gpu_calls, 2);
	for (int i = 0; i < k + m; i++) {
		free(h[i]);
		cudaFree(dv[i]);
		cudaFreeHost(pin[i]);
	}
	for (int i = 0; i < m; i++)
		free(ref[i]);
	gfec_codec_free(c);
}

/*
 * One batch of ns stripes in device memory, laid out at random (DEV_SHUFFLED): chunks in a
 * shuffled order over a pool, each at a random offset (16-byte aligned everywhere, or not; in the
 * unaligned case only a few stripes are off, so that pieces of one call differ), and the output
 * pool poisoned. Or evenly spaced (DEV_EVEN: stripe s's chunk j at s steps from stripe 0's, the
 * stripes in the pool's order or reversed, each chunk j at its own offset; unaligned: offsets of
 * 0..15 bytes and an odd step), or so with the spacing broken at one random stripe (DEV_BROKEN:
 * one chunk of it swapped with the next stripe's). Holds the host mirror and the CPU's parity.
 */
enum { DEV_SHUFFLED, DEV_EVEN, DEV_BROKEN };

struct dev_batch {
	int k, m, ns;
	size_t len, slot, in_bytes, out_bytes;
	uint8_t *d_in, *d_out, *h_in, *want;
	const uint8_t **src;
	uint8_t **dst;
	size_t *in_off, *out_off; /* per pointer */
};

static void shuffle(size_t *v, size_t n)
{
	for (size_t i = n; i > 1; i--) {
		const size_t j = test_rand() % i, t = v[i - 1];

		v[i - 1] = v[j];
		v[j] = t;
	}
}

/* Offsets of DEV_EVEN / DEV_BROKEN's chunks, per rows of per (see dev_batch above). */
static void even_offsets(size_t *off, int ns, int per, size_t slot, int aligned, int layout)
{
	const int rev = test_rand() % 2;
	const size_t step = (size_t)per * slot + (aligned ? 0 : 1);

	for (int j = 0; j < per; j++) {
		const size_t at = (size_t)j * slot + (aligned ? 16 * (size_t)test_range(0, 2)
							      : (size_t)test_range(0, 15));

		for (int s = 0; s < ns; s++)
			off[(size_t)s * per + j] = (size_t)(rev ? ns - 1 - s : s) * step + at;
	}
	if (layout == DEV_BROKEN && ns > 2) {
		const size_t s = (size_t)test_range(1, ns - 2), j = (size_t)test_range(0, per - 1);
		const size_t t = off[s * per + j];

		off[s * per + j] = off[(s + 1) * per + j];
		off[(s + 1) * per + j] = t;
	}
}

static void dev_batch_make(struct dev_batch *b, gfec_codec *cpu, int k, int m, int ns, size_t len,
			   int aligned, int layout)
{
	const size_t nin = (size_t)ns * k, nout = (size_t)ns * m;
	const uint8_t **hs = malloc(sizeof(void *) * nin);
	uint8_t **hd = malloc(sizeof(void *) * nout);

	b->k = k, b->m = m, b->ns = ns, b->len = len;
	b->slot = (len + 64 + 15) / 16 * 16;
	b->in_bytes = b->slot * nin + (size_t)ns; /* an odd step adds a byte a stripe */
	b->out_bytes = b->slot * nout + (size_t)ns;
	b->h_in = malloc(b->in_bytes);
	b->want = malloc(b->out_bytes);
	b->src = malloc(sizeof(void *) * nin);
	b->dst = malloc(sizeof(void *) * nout);
	b->in_off = malloc(sizeof(size_t) * nin);
	b->out_off = malloc(sizeof(size_t) * nout);
	assert_true(hs && hd && b->h_in && b->want && b->src && b->dst && b->in_off && b->out_off);
	assert_int_equal(cudaMalloc((void **)&b->d_in, b->in_bytes), cudaSuccess);
	assert_int_equal(cudaMalloc((void **)&b->d_out, b->out_bytes), cudaSuccess);
	if (layout != DEV_SHUFFLED) {
		even_offsets(b->in_off, ns, k, b->slot, aligned, layout);
		even_offsets(b->out_off, ns, m, b->slot, aligned, layout);
	} else {
		for (size_t i = 0; i < nin; i++)
			b->in_off[i] = i * b->slot;
		for (size_t i = 0; i < nout; i++)
			b->out_off[i] = i * b->slot;
		shuffle(b->in_off, nin);
		shuffle(b->out_off, nout);
		for (size_t i = 0; i < nin; i++) {
			/* unaligned: about one chunk in 64 (at least one) off by 1..15 bytes */
			const int off = aligned || (test_rand() % 64 && i != nin - 1)
						? 0
						: test_range(1, 15);

			b->in_off[i] += aligned ? 16 * (size_t)test_range(0, 3) : (size_t)off;
		}
		for (size_t i = 0; i < nout; i++)
			b->out_off[i] += aligned ? 16 * (size_t)test_range(0, 3)
						 : (test_rand() % 64 ? 0 : (size_t)test_range(1, 63));
	}
	test_fill(b->h_in, b->in_bytes);
	memset(b->want, TEST_POISON, b->out_bytes);
	for (size_t i = 0; i < nin; i++) {
		hs[i] = b->h_in + b->in_off[i];
		b->src[i] = b->d_in + b->in_off[i];
	}
	for (size_t i = 0; i < nout; i++) {
		hd[i] = b->want + b->out_off[i];
		b->dst[i] = b->d_out + b->out_off[i];
	}
	assert_int_equal(gfec_encode_batch(cpu, ns, hs, hd, len), 0);
	assert_int_equal(cudaMemcpy(b->d_in, b->h_in, b->in_bytes, cudaMemcpyHostToDevice),
			 cudaSuccess);
	assert_int_equal(cudaMemset(b->d_out, TEST_POISON, b->out_bytes), cudaSuccess);
	free(hs);
	free(hd);
}

/* The whole output pool: parity where the CPU's is, poison everywhere else. */
static int dev_batch_check(const struct dev_batch *b)
{
	const size_t n = b->out_bytes;
	uint8_t *got = malloc(n);
	int ok;

	assert_non_null(got);
	assert_int_equal(cudaMemcpy(got, b->d_out, n, cudaMemcpyDeviceToHost), cudaSuccess);
	ok = memcmp(got, b->want, n) == 0;
	free(got);
	return ok;
}

static void dev_batch_free(struct dev_batch *b)
{
	cudaFree(b->d_in);
	cudaFree(b->d_out);
	free(b->h_in);
	free(b->want);
	free(b->src);
	free(b->dst);
	free(b->in_off);
	free(b->out_off);
}

/*
 * One gfec_encode_batch of ns stripes laid out as @p layout (dev_batch) on the GPU codec with
 * @p kernel forced ("" for the default), against the CPU's parity: one GPU call, no fallback,
 * every output byte and every byte around it checked. A forced kernel that cannot run the shape
 * is skipped.
 */
static void dev_batch_case(const char *kernel, int k, int m, int ns, size_t len, int aligned,
			   int layout)
{
	gfec_codec *g = kernel[0] ? try_make("k=%d m=%d backend=gpu gpu_kernel=%s", k, m, kernel)
				  : try_make("k=%d m=%d backend=gpu", k, m);
	gfec_codec *c = try_make("k=%d m=%d backend=cpu", k, m);
	struct dev_batch b;
	struct gfec_stats st;

	assert_non_null(c);
	if (!g) { /* this kernel cannot run this shape */
		assert_true(kernel[0] != 0);
		gfec_codec_free(c);
		return;
	}
	dev_batch_make(&b, c, k, m, ns, len, aligned, layout);
	assert_int_equal(gfec_encode_batch(g, ns, b.src, b.dst, b.len), 0);
	if (!dev_batch_check(&b))
		fail_msg("kernel '%s' k=%d m=%d stripes=%d len=%zu aligned=%d layout=%d: wrong output",
			 kernel, k, m, ns, b.len, aligned, layout);
	gfec_codec_stats(g, &st);
	assert_int_equal(st.gpu_calls, 1);
	assert_int_equal(st.fallbacks, 0);
	dev_batch_free(&b);
	gfec_codec_free(g);
	gfec_codec_free(c);
}

/*
 * gfec_encode_batch on device buffers, 1..5000 stripes: the sizes around each way the backend
 * carries the pointer table (in the launch up to 480 pointers for nibble kernels, then pieces of
 * growing size uploaded while the previous piece runs), random shapes, lengths and layouts, and
 * the kernels without an inline variant.
 */
static void test_device_batches(void **state)
{
	static const char *const ks[] = { "", "nibble_rg2_t256", "seed_t8", "bmma_w4_n4_p1" };
	static const int sizes[] = { 1, 2, 34, 35, 36, 291, 292, 293, 1460, 1461, 5000 };

	(void)state;
	for (int t = 0; t < 40; t++) {
		const int big = t < 11, k = big ? 10 : test_range(2, 20);
		const int m = big ? 4 : test_range(1, k < 8 ? k : 8);
		const int ns = big ? sizes[t] : test_range(1, t % 5 ? 120 : 5000);
		const size_t len = ns > 1000 ? (size_t)test_range(1, 3000) : (size_t)test_range(1, 9000);

		dev_batch_case(ks[t % 4], k, m, ns, t % 3 ? len : (len + 15) / 16 * 16, t % 2,
			       DEV_SHUFFLED);
	}
}

/*
 * gfec_encode_batch on evenly spaced device buffers, which the nibble kernels take with no pointer
 * table (the spacing checked 292 RS(10,4) stripes at a time, then one launch with the first
 * stripe's pointers and the step; stride.h): RS(10,4) at the sizes around one chunk and random
 * shapes, steps of either sign, aligned or not (odd steps), the default kernel and forced ones
 * (small-call, and one with no strided form), and the spacing broken at a random stripe (in the
 * first chunk: all by tables; later: the chunks before it by the step, the rest by tables).
 */
static void test_device_strided(void **state)
{
	static const char *const ks[] = { "", "nibble_rg2_t256", "nibble_small_rg1", "seed_t8" };
	static const int sizes[] = { 2, 3, 291, 292, 4096, 294, 600, 293, 4096 };

	(void)state;
	for (int t = 0; t < 48; t++) {
		const int fixed = t < 9, k = fixed ? 10 : test_range(2, 20);
		const int m = fixed ? 4 : test_range(1, k < 8 ? k : 8);
		const int ns = fixed ? sizes[t] : test_range(2, t % 3 ? 400 : 3000);
		const size_t len = ns > 1000 ? (size_t)test_range(1, 4096) : (size_t)test_range(1, 9000);
		const int aligned = t % 5 != 1;

		dev_batch_case(ks[t % 4], k, m, ns, aligned ? (len + 15) / 16 * 16 : len, aligned,
			       t % 3 == 2 ? DEV_BROKEN : DEV_EVEN);
	}
}

/*
 * A NULL among a device batch's pointers, which gfec_encode_batch leaves to the GPU backend to
 * find (gemm.h, checks_device_ptrs): GFEC_E_INVAL and not a byte written, for each way the
 * backend carries the pointers (in the launch, by the step, by tables, by the step then tables),
 * the NULL among the inputs or the outputs, anywhere in the batch.
 */
static void test_device_null(void **state)
{
	static const int layouts[] = { DEV_EVEN, DEV_BROKEN, DEV_SHUFFLED };
	static const int sizes[] = { 3, 300, 3000 };
	gfec_codec *g = try_make("k=10 m=4 backend=gpu"), *c = try_make("k=10 m=4 backend=cpu");

	(void)state;
	assert_non_null(g);
	assert_non_null(c);
	for (int t = 0; t < 36; t++) {
		const int ns = sizes[t % 3], layout = layouts[t / 3 % 3], in = t / 9 % 2;
		struct dev_batch b;

		dev_batch_make(&b, c, 10, 4, ns, 4096, t / 18 == 0, layout);
		void **arr = in ? (void **)b.src : (void **)b.dst;
		const size_t at = test_rand() % ((size_t)ns * (in ? 10 : 4));

		arr[at] = NULL;
		assert_int_equal(gfec_encode_batch(g, ns, b.src, b.dst, b.len), GFEC_E_INVAL);
		memset(b.want, TEST_POISON, b.out_bytes); /* nothing written: poison everywhere */
		if (!dev_batch_check(&b))
			fail_msg("stripes=%d layout=%d NULL %s %zu: outputs written", ns, layout,
				 in ? "input" : "output", at);
		dev_batch_free(&b);
	}
	gfec_codec_free(g);
	gfec_codec_free(c);
}

/*
 * Small calls on device buffers, which the backend gives the small-call kernel (up to 81920
 * units of 16 bytes per launch: 320 RS(10,4) stripes of 4 KiB, 20 of 64 KiB): 1..64 stripes,
 * chunks of 1 byte to 64 KiB, aligned or not, with the default kernel and the small-call kernels
 * forced (at any size); every output byte and every byte around it checked. Every third case
 * also updates one stripe in place (gfec_update on device buffers: the kernel's accumulate path)
 * against the CPU.
 */
static void test_device_small(void **state)
{
	static const char *const ks[] = { "", "nibble_small_rg1", "nibble_small_rg2" };
	/* 20 x 64 KiB: the largest launch the default sends there; 21 x 64 KiB: the nibble kernel */
	static const int fixed_ns[] = { 1, 1, 2, 20, 34, 65, 21, 300, 64 };
	static const size_t fixed_len[] = { 4096, 4096, 4096, 65536, 4096, 4096, 65536, 64, 4096 };

	(void)state;
	for (int t = 0; t < 48; t++) {
		const char *kernel = ks[t % 3];
		const int fixed = t < 9, k = fixed ? 10 : test_range(2, 18);
		const int m = fixed ? 4 : test_range(1, k < 8 ? k : 8);
		const int ns = fixed ? fixed_ns[t] : test_range(1, 64);
		const size_t len = fixed ? fixed_len[t]
				   : t % 4 == 0 ? (size_t)test_range(1, 64)
				   : t % 4 == 1 ? (size_t)test_range(1, 65536)
						: (size_t)test_range(1, 4200);
		gfec_codec *g = kernel[0] ? try_make("k=%d m=%d backend=gpu gpu_kernel=%s", k, m, kernel)
					  : try_make("k=%d m=%d backend=gpu", k, m);
		gfec_codec *c = try_make("k=%d m=%d backend=cpu", k, m);
		struct dev_batch b;

		assert_non_null(c);
		if (!g) { /* a forced kernel that cannot run this shape (rows, or k > 16) */
			assert_true(kernel[0] != 0);
			gfec_codec_free(c);
			continue;
		}
		dev_batch_make(&b, c, k, m, ns, len, t % 2, DEV_SHUFFLED);
		assert_int_equal(ns == 1 ? gfec_encode(g, b.src, b.dst, len)
					 : gfec_encode_batch(g, ns, b.src, b.dst, len),
				 0);
		if (!dev_batch_check(&b))
			fail_msg("kernel '%s' k=%d m=%d stripes=%d len=%zu aligned=%d: wrong output",
				 kernel, k, m, ns, len, t % 2);
		if (t % 3 == 0) {
			/* stripe 0, input col: parity ^= A(., col) * delta, on the GPU and the CPU */
			const int col = test_range(0, k - 1);
			uint8_t *delta = malloc(len), *d_delta, *hp[8];
			uint8_t *want[8], *got = malloc(len);

			assert_true(delta && got);
			test_fill(delta, len);
			assert_int_equal(cudaMalloc((void **)&d_delta, len + 1), cudaSuccess);
			d_delta += t % 2 ? 0 : 1; /* unaligned too */
			assert_int_equal(cudaMemcpy(d_delta, delta, len, cudaMemcpyHostToDevice),
					 cudaSuccess);
			for (int i = 0; i < m; i++) {
				hp[i] = b.want + b.out_off[i];
				want[i] = malloc(len);
				assert_non_null(want[i]);
				memcpy(want[i], hp[i], len);
			}
			assert_int_equal(gfec_update(c, col, delta, want, len), 0);
			assert_int_equal(gfec_update(g, col, d_delta, b.dst, len), 0);
			for (int i = 0; i < m; i++) {
				assert_int_equal(cudaMemcpy(got, b.dst[i], len, cudaMemcpyDeviceToHost),
						 cudaSuccess);
				if (memcmp(got, want[i], len) != 0)
					fail_msg("kernel '%s' k=%d m=%d len=%zu: update of parity %d "
						 "wrong", kernel, k, m, len, i);
				free(want[i]);
			}
			cudaFree(d_delta - (t % 2 ? 0 : 1));
			free(delta);
			free(got);
		}
		dev_batch_free(&b);
		gfec_codec_free(g);
		gfec_codec_free(c);
	}
}

struct dev_caller {
	gfec_codec *g;
	struct dev_batch *b;
	int calls, failed;
};

static void *dev_caller_run(void *arg)
{
	struct dev_caller *a = arg;

	for (int i = 0; i < a->calls && !a->failed; i++)
		a->failed = gfec_encode_batch(a->g, a->b->ns, a->b->src, a->b->dst, a->b->len) != 0;
	return NULL;
}

/* Callers on many threads, one codec, device buffers: each gets its own parity, every time. */
static void test_device_concurrent(void **state)
{
	enum { T = 8 };
	gfec_codec *g = try_make("k=10 m=4 backend=gpu"), *c = try_make("k=10 m=4 backend=cpu");
	struct dev_batch b[T];
	struct dev_caller a[T];
	pthread_t th[T];

	(void)state;
	assert_non_null(g);
	assert_non_null(c);
	for (int i = 0; i < T; i++) {
		/* small (inline) and larger (uploaded, strided, or strided then uploaded) batches */
		dev_batch_make(&b[i], c, 10, 4, i % 2 ? 1 + i : 300 * i + 7, 4096 + 16 * i, i % 3 != 0,
			       i % 4 < 2 ? DEV_EVEN : i % 4 == 2 ? DEV_BROKEN : DEV_SHUFFLED);
		a[i] = (struct dev_caller){ g, &b[i], 50, 0 };
	}
	for (int i = 0; i < T; i++)
		assert_int_equal(pthread_create(&th[i], NULL, dev_caller_run, &a[i]), 0);
	for (int i = 0; i < T; i++) {
		pthread_join(th[i], NULL);
		assert_false(a[i].failed);
		assert_true(dev_batch_check(&b[i]));
		dev_batch_free(&b[i]);
	}
	gfec_codec_free(g);
	gfec_codec_free(c);
}

/* backend=auto: the GPU only from gpu_min_bytes of data per call. */
static void test_auto_threshold(void **state)
{
	gfec_codec *c = try_make("k=4 m=2 backend=auto gpu_min_bytes=40000");
	uint8_t *d[6];
	struct gfec_stats st;

	(void)state;
	assert_non_null(c);
	for (int i = 0; i < 6; i++) {
		d[i] = malloc(20000);
		test_fill(d[i], 20000);
	}
	assert_int_equal(gfec_encode(c, (const uint8_t *const *)d, d + 4, 9999), 0);
	gfec_codec_stats(c, &st);
	assert_int_equal(st.gpu_calls, 0); /* 4 x 9999 < 40000: CPU */
	assert_int_equal(gfec_encode(c, (const uint8_t *const *)d, d + 4, 10000), 0);
	gfec_codec_stats(c, &st);
	assert_int_equal(st.gpu_calls, 1);
	for (int i = 0; i < 6; i++)
		free(d[i]);
	gfec_codec_free(c);
}

/* GFEC_FAULT=cuda: every GPU call fails; every request must still complete, correctly. */
static void test_injected_fault_falls_back(void **state)
{
	const int k = 6, m = 3;
	const size_t len = 300001;
	gfec_codec *c;
	uint8_t *d[9], *ref[3], *delta = malloc(len), *out[9] = { 0 };
	const uint8_t *in[9];
	struct gfec_stats st;

	(void)state;
	setenv("GFEC_FAULT", "cuda", 1);
	c = try_make("k=%d m=%d backend=gpu", k, m);
	unsetenv("GFEC_FAULT");
	assert_non_null(c);
	for (int i = 0; i < k + m; i++) {
		d[i] = malloc(len);
		if (i < k)
			test_fill(d[i], len);
		else
			memset(d[i], TEST_POISON, len);
	}
	for (int i = 0; i < m; i++)
		ref[i] = malloc(len);
	isal_cauchy(k, m, len, d, ref);
	assert_int_equal(gfec_encode(c, (const uint8_t *const *)d, d + k, len), 0);
	for (int i = 0; i < m; i++)
		assert_memory_equal(d[k + i], ref[i], len);

	/* decode through the fallback */
	for (int i = 0; i < k + m; i++)
		in[i] = d[i];
	in[1] = in[7] = NULL;
	out[1] = malloc(len);
	out[7] = malloc(len);
	assert_int_equal(gfec_decode(c, in, out, len), 0);
	assert_memory_equal(out[1], d[1], len);
	assert_memory_equal(out[7], d[7], len);

	/* update through the fallback: applied exactly once */
	test_fill(delta, len);
	for (size_t x = 0; x < len; x++)
		d[2][x] ^= delta[x];
	assert_int_equal(gfec_update(c, 2, delta, d + k, len), 0);
	isal_cauchy(k, m, len, d, ref);
	for (int i = 0; i < m; i++)
		assert_memory_equal(d[k + i], ref[i], len);

	gfec_codec_stats(c, &st);
	assert_int_equal(st.fallbacks, 3);
	assert_int_equal(st.gpu_calls, 0);
	for (int i = 0; i < k + m; i++)
		free(d[i]);
	for (int i = 0; i < m; i++)
		free(ref[i]);
	free(out[1]);
	free(out[7]);
	free(delta);
	gfec_codec_free(c);
}

/* cauchy_good on the GPU: every bitmatrix kernel against the CPU twin (itself == Jerasure). */
static void test_crs(void **state)
{
	static const char *const crs_kernels[] = { "",
						    "bitmatrix_t64_w16",
						    "bitmatrix_t128_w8",
						    "bitmatrix_t128_w16" };

	(void)state;
	for (size_t v = 0; v < sizeof(crs_kernels) / sizeof(crs_kernels[0]); v++)
		for (int t = 0; t < 8; t++) {
			const int k = test_range(2, 12), m = test_range(1, k < 4 ? k : 4);
			const int P = t == 0 ? 2048 : 8 * test_range(1, 64);
			const size_t len = (size_t)8 * P * test_range(1, 5);
			char prof[160];
			gfec_codec *g, *c;
			uint8_t *d[16], *pc[4], *delta = malloc(len);

			snprintf(prof, sizeof(prof), "k=%d m=%d technique=cauchy_good packetsize=%d%s%s",
				 k, m, P, crs_kernels[v][0] ? " gpu_kernel=" : "", crs_kernels[v]);
			g = try_make("%s backend=gpu", prof);
			c = try_make("k=%d m=%d technique=cauchy_good packetsize=%d backend=cpu", k,
				     m, P);
			if (!g) /* a word size that does not divide this packet size */
				assert_true(crs_kernels[v][0] && P % 16);
			if (!g) {
				gfec_codec_free(c);
				free(delta);
				continue;
			}
			for (int i = 0; i < k + m; i++) {
				d[i] = malloc(len);
				if (i < k)
					test_fill(d[i], len);
				else
					memset(d[i], TEST_POISON, len);
			}
			for (int i = 0; i < m; i++)
				pc[i] = malloc(len);
			assert_int_equal(gfec_encode(g, (const uint8_t *const *)d, d + k, len), 0);
			assert_int_equal(gfec_encode(c, (const uint8_t *const *)d, pc, len), 0);
			for (int i = 0; i < m; i++)
				assert_memory_equal(d[k + i], pc[i], len);
			/* update on the GPU == update on the CPU */
			int vec = test_range(0, k - 1);

			test_fill(delta, len);
			assert_int_equal(gfec_update(g, vec, delta, d + k, len), 0);
			assert_int_equal(gfec_update(c, vec, delta, pc, len), 0);
			for (int i = 0; i < m; i++)
				assert_memory_equal(d[k + i], pc[i], len);
			struct gfec_stats st;

			gfec_codec_stats(g, &st);
			assert_int_equal(st.gpu_calls, 2);
			for (int i = 0; i < k + m; i++)
				free(d[i]);
			for (int i = 0; i < m; i++)
				free(pc[i]);
			free(delta);
			gfec_codec_free(g);
			gfec_codec_free(c);
		}
}

static void test_bad_gpu_profiles(void **state)
{
	char err[256];
	gfec_codec *c;

	(void)state;
	assert_int_equal(gfec_codec_create("k=4 m=2 backend=gpu gpu_kernel=warp9", &c, err,
					   sizeof(err)),
			 GFEC_E_INVAL);
	assert_non_null(strstr(err, "gpu_kernel=warp9"));
	assert_non_null(strstr(err, "compiled: nibble_rg1_t128")); /* names what exists */
	/* a kernel that cannot run the shape: nibble_rg1 holds 4 parity rows */
	assert_int_equal(gfec_codec_create("k=10 m=6 backend=gpu gpu_kernel=nibble_rg1_t256", &c,
					   err, sizeof(err)),
			 GFEC_E_NOTSUP);
	assert_non_null(strstr(err, "k=10 m=6"));
	assert_int_equal(gfec_codec_create("k=4 m=2 backend=gpu gpu_device=63", &c, err,
					   sizeof(err)),
			 GFEC_E_NOBACKEND);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_every_kernel_random),
	    cmocka_unit_test(test_tune_rules),
	    cmocka_unit_test(test_batches),
	    cmocka_unit_test(test_every_erasure_pattern),
	    cmocka_unit_test(test_update),
	    cmocka_unit_test(test_staged_in_place_limit),
	    cmocka_unit_test(test_decode_batch),
	    cmocka_unit_test(test_device_and_pinned_buffers),
	    cmocka_unit_test(test_device_batches),
	    cmocka_unit_test(test_device_strided),
	    cmocka_unit_test(test_device_null),
	    cmocka_unit_test(test_device_small),
	    cmocka_unit_test(test_device_concurrent),
	    cmocka_unit_test(test_auto_threshold),
	    cmocka_unit_test(test_injected_fault_falls_back),
	    cmocka_unit_test(test_crs),
	    cmocka_unit_test(test_bad_gpu_profiles),
	};
	gfec_codec *probe = try_make("k=4 m=2 backend=gpu");
	const char *filter = getenv("GFEC_TEST_FILTER");

	if (filter) /* e.g. one test under compute-sanitizer, which is slow */
		cmocka_set_test_filter(filter);

	if (!probe) {
		fprintf(stderr, "# no usable GPU: skipped\n");
		return 77;
	}
	gfec_codec_free(probe);
	test_seed();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
