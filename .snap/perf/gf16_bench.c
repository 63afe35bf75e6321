/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file gf16_bench.c
 * gfec-gf16-bench: one-thread GF(2^16) encode, gfec's AVX2 kernel (cpu_backend/gemm16.c) against
 * Jerasure + gf-complete (jerasure_matrix_encode, w = 16) on the same data and the same Cauchy
 * matrix, in one run; the parities are compared byte for byte. GB/s = 10^9 data bytes (k * len)
 * per second, best of the repetitions, by the clock and by the thread's CPU time (which leaves
 * out the time a loaded machine ran others instead; the memory stalls stay in).
 * Then the same encode through the CPU backend's table (one stripe, tables in the plan) on 1, 2, 4 ...
 * threads and on every CPU: a stripe shorter than the backend's slice is cut into one task per
 * thread (cpu_backend.c), so the rows say how one stripe scales with the core count; each
 * checked against the kernel's parities.
 * Then the decode matrix of m lost data chunks (the first m; m <= k) for that matrix and for
 * Jerasure's Vandermonde one: gfec_matrix_decode_w_base() (scalar log/exp), gfec_matrix_decode_w()
 * (the GEMM above, one thread) and gfec_matrix_decode_w_threads() on every CPU; best of REPS each,
 * the three matrices compared.
 * Then the decode of those m chunks through the codec (gfec_decode, technique cauchy and
 * jerasure_reed_sol_van, one thread and every CPU): the first call, which makes the decode
 * matrix, and the best of REPS more, which find it in the decode-plan cache; checked.
 *
 * Usage: gfec-gf16-bench [K M LEN REPS]   (default 1000 200 65536 3)
 * Exit: 0 done, 1 bad arguments, 2 no memory, 3 parities or decode matrices differ, 4 no AVX2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jerasure.h>

#include "cpu_backend.h"
#include "gf16.h"
#include "gfec/gfec.h"
#include "matrix.h"

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* This thread's CPU time: on a shared machine it leaves out the time others ran instead. */
static double cpu_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The backend encode on 1, 2, 4 ... threads and every CPU; 0, or an exit code. */
static int backend_rows(const uint16_t *a, int k, int m, size_t len, long reps,
			const uint8_t *const *src, uint8_t *const *want, uint8_t *const *got)
{
	const struct gfec_backend_ops *ops = gfec_cpu_backend();
	const long ncpu = sysconf(_SC_NPROCESSORS_ONLN) > 0 ? sysconf(_SC_NPROCESSORS_ONLN) : 1;
	const struct gfec_gemm_matrix gm = { .w = 16, .rows = m, .cols = k,
					     .a = (const uint8_t *)a };
	double one = 0;

	for (long t = 1; t <= ncpu; t = t * 2 > ncpu && t < ncpu ? ncpu : t * 2) {
		struct gfec_backend_conf conf = { .threads = (int)t };
		double best = 1e30;
		void *ctx, *plan;

		if (ops->init(&conf, &ctx) || ops->plan_create(ctx, &gm, &plan)) {
			fprintf(stderr, "gfec-gf16-bench: no CPU backend plan\n");
			return 2;
		}
		for (long r = 0; r < reps; r++) {
			const double t0 = now();
			double dt;

			if (ops->gemm(ctx, plan, 1, len, src, got)) {
				fprintf(stderr, "gfec-gf16-bench: out of memory\n");
				return 2;
			}
			dt = now() - t0;
			best = dt < best ? dt : best;
		}
		ops->plan_free(ctx, plan);
		ops->fini(ctx);
		for (int i = 0; i < m; i++)
			if (memcmp(got[i], want[i], len)) {
				fprintf(stderr, "gfec-gf16-bench: backend parities differ\n");
				return 3;
			}
		one = t == 1 ? best : one;
		printf("gf16 encode k=%d m=%d len=%zu backend %ld thread%s: %.3f GB/s, %.2fx one "
		       "thread (best of %ld)\n",
		       k, m, len, t, t > 1 ? "s" : "", (double)k * (double)len / best / 1e9,
		       one / best, reps);
	}
	return 0;
}

/* Times the three decode-matrix paths on lost data chunks 0..m-1; 0, or an exit code. */
static int decode_rows(const uint16_t *g, int k, int m, long reps, const char *name)
{
	int *src = malloc(sizeof(int) * (size_t)(k + m));
	uint16_t *d = malloc(sizeof(uint16_t) * 3 * (size_t)m * (size_t)k);
	double best[3] = { 1e30, 1e30, 1e30 };
	int ret = 0;

	if (!src || !d) {
		ret = 2;
		goto out;
	}
	for (int j = 0; j < k; j++) /* sources: data m..k-1, then parity 0..m-1 */
		src[j] = j + m < k ? j + m : k + j - (k - m);
	for (int i = 0; i < m; i++)
		src[k + i] = i; /* want */
	for (long r = 0; r < reps && !ret; r++)
		for (int v = 0; v < 3 && !ret; v++) {
			uint16_t *dv = d + (size_t)v * m * k;
			double t0 = now();

			ret = v == 0   ? gfec_matrix_decode_w_base(16, g, k, m, src, src + k, m, dv)
			      : v == 1 ? gfec_matrix_decode_w(16, g, k, m, src, src + k, m, dv)
				       : gfec_matrix_decode_w_threads(16, g, k, m, src, src + k, m, 0,
								      dv);
			double t = now() - t0;

			best[v] = t < best[v] ? t : best[v];
		}
	if (ret) {
		ret = 2;
		goto out;
	}
	if (memcmp(d, d + (size_t)m * k, sizeof(*d) * m * k) ||
	    memcmp(d, d + 2 * (size_t)m * k, sizeof(*d) * m * k)) {
		fprintf(stderr, "gfec-gf16-bench: decode matrices differ\n");
		ret = 3;
		goto out;
	}
	printf("gf16 decode matrix k=%d m=%d, %d lost data, %s: base %.2f ms, gemm 1 thread %.2f ms "
	       "(%.1fx), gemm %ld threads %.2f ms (%.1fx) (best of %ld)\n",
	       k, m, m, name, 1e3 * best[0], 1e3 * best[1], best[0] / best[1],
	       sysconf(_SC_NPROCESSORS_ONLN), 1e3 * best[2], best[0] / best[2], reps);
out:
	free(d);
	free(src);
	return ret;
}

/*
 * Decode of the first m data chunks through the codec (technique @p tech, w = 16, @p threads
 * threads: 0 all CPUs) from data m..k-1 and the m parity chunks it encoded into par[]: the first
 * call (which makes the decode matrix) and the best of REPS more (the decode-plan cache holds the
 * matrix), each checked against the data; out[] takes the m rebuilt chunks. 0, or an exit code.
 */
static int codec_rows(int k, int m, size_t len, long reps, const char *tech, int threads,
		      uint8_t *const *data, uint8_t *const *par, uint8_t *const *out)
{
	const uint8_t **in = malloc(sizeof(*in) * (size_t)(k + m));
	uint8_t **o = calloc((size_t)(k + m), sizeof(*o));
	char prof[128], err[256];
	double first = 0, best = 1e30;
	gfec_codec *c = NULL;
	int ret = 0;

	snprintf(prof, sizeof(prof), "k=%d m=%d w=16 technique=%s threads=%d", k, m, tech, threads);
	if (!in || !o || gfec_codec_create(prof, &c, err, sizeof(err)) ||
	    gfec_encode(c, (const uint8_t *const *)data, par, len)) {
		fprintf(stderr, "gfec-gf16-bench: no codec or encode for '%s'\n", prof);
		ret = 2;
		goto out;
	}
	for (int i = 0; i < k + m; i++) {
		in[i] = i < m ? NULL : i < k ? data[i] : par[i - k];
		o[i] = i < m ? out[i] : NULL;
	}
	for (long r = 0; r <= reps; r++) {
		for (int i = 0; i < m; i++)
			memset(out[i], 0xa5, len);
		const double t0 = now();

		if (gfec_decode(c, in, o, len)) {
			fprintf(stderr, "gfec-gf16-bench: decode failed for '%s'\n", prof);
			ret = 2;
			goto out;
		}
		const double t = now() - t0;

		first = r == 0 ? t : first;
		best = r && t < best ? t : best;
		for (int i = 0; i < m; i++)
			if (memcmp(out[i], data[i], len)) {
				fprintf(stderr, "gfec-gf16-bench: decode differs for '%s'\n", prof);
				ret = 3;
				goto out;
			}
	}
	printf("gf16 codec decode k=%d m=%d len=%zu, %d lost data, %s, %d thread%s: first call "
	       "(decode matrix made) %.3f GB/s, then %.3f GB/s (best of %ld; GB/s = 10^9 data "
	       "bytes (k * len) per second)\n",
	       k, m, len, m, tech, threads ? threads : (int)sysconf(_SC_NPROCESSORS_ONLN),
	       threads == 1 ? "" : "s", (double)k * (double)len / first / 1e9,
	       (double)k * (double)len / best / 1e9, reps);
out:
	gfec_codec_free(c);
	free(o);
	free(in);
	return ret;
}

static int arg(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s < '0' || *s > '9' || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

int main(int argc, char **argv)
{
	long k = 1000, m = 200, len = 65536, reps = 3;
	double best_g = 1e30, best_j = 1e30, cpu_g = 1e30, cpu_j = 1e30;

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: gfec-gf16-bench [K M LEN REPS]  (default 1000 200 65536 3)\n"
		       "one-thread GF(2^16) encode: gfec's AVX2 kernel vs jerasure_matrix_encode(w=16)\n");
		return 0;
	}
	if ((argc != 1 && argc != 5) || (argc == 5 && (arg(argv[1], 1, 65535, &k) ||
						       arg(argv[2], 1, 65535, &m) ||
						       arg(argv[3], 16, 1L << 30, &len) ||
						       arg(argv[4], 1, 1000, &reps))) ||
	    k + m > 65536 || len % 16) {
		fprintf(stderr, "gfec-gf16-bench: expected K M LEN REPS with K+M <= 65536 and LEN a "
				"multiple of 16 (see --help)\n");
		return 1;
	}
	if (!gfec_cpu_avx2_supported()) {
		fprintf(stderr, "gfec-gf16-bench: this CPU has no AVX2\n");
		return 4;
	}
	uint16_t *a = malloc(sizeof(uint16_t) * (size_t)(k * m));
	int *ja = malloc(sizeof(int) * (size_t)(k * m));
	uint8_t *tbl = malloc(GFEC_CPU_GF16_TABLE * (size_t)(k * m));
	uint8_t *buf = aligned_alloc(64, ((size_t)(k + 2 * m) * (size_t)len + 63) / 64 * 64);
	uint8_t **src = malloc(sizeof(uint8_t *) * (size_t)(k + 2 * m)), **pg, **pj;

	if (!a || !ja || !tbl || !buf || !src) {
		fprintf(stderr, "gfec-gf16-bench: out of memory\n");
		return 2;
	}
	for (long c = 0; c < k + 2 * m; c++)
		src[c] = buf + (size_t)c * (size_t)len;
	pg = src + k;
	pj = src + k + m;
	srand(1);
	for (size_t i = 0; i < (size_t)(k * len); i++)
		buf[i] = (uint8_t)rand();
	gfec_gf16_init();
	gfec_matrix_cauchy_w(16, (int)k, (int)m, a);
	for (long i = 0; i < k * m; i++)
		ja[i] = a[i];
	gfec_cpu_gf16_tables(a, (size_t)(k * m), tbl);

	for (long r = 0; r < reps; r++) {
		double t0 = now(), c0 = cpu_now();

		if (gfec_cpu_gemm16_avx2((size_t)len, (int)k, (int)m, tbl,
					 (const uint8_t *const *)src, pg, 0)) {
			fprintf(stderr, "gfec-gf16-bench: out of memory\n");
			return 2;
		}
		double t1 = now(), c1 = cpu_now();

		jerasure_matrix_encode((int)k, (int)m, 16, ja, (char **)src, (char **)pj, (int)len);
		double t2 = now(), c2 = cpu_now();

		best_g = t1 - t0 < best_g ? t1 - t0 : best_g;
		best_j = t2 - t1 < best_j ? t2 - t1 : best_j;
		cpu_g = c1 - c0 < cpu_g ? c1 - c0 : cpu_g;
		cpu_j = c2 - c1 < cpu_j ? c2 - c1 : cpu_j;
	}
	if (memcmp(pg[0], pj[0], (size_t)(m * len))) {
		fprintf(stderr, "gfec-gf16-bench: parities differ\n");
		return 3;
	}
	const double bytes = (double)k * (double)len;

	printf("gf16 encode k=%ld m=%ld len=%ld 1 thread: gfec avx2 %.3f GB/s, jerasure w=16 "
	       "%.3f GB/s, ratio %.2fx (best of %ld)\n",
	       k, m, len, bytes / best_g / 1e9, bytes / best_j / 1e9, best_j / best_g, reps);
	printf("gf16 encode k=%ld m=%ld len=%ld 1 thread, thread CPU time: gfec avx2 %.3f GB/s, "
	       "jerasure w=16 %.3f GB/s, ratio %.2fx (best of %ld)\n",
	       k, m, len, bytes / cpu_g / 1e9, bytes / cpu_j / 1e9, cpu_j / cpu_g, reps);
	{
		int ret = backend_rows(a, (int)k, (int)m, (size_t)len, reps,
				       (const uint8_t *const *)src, pg, pj);

		if (ret)
			return ret;
	}
	if (m <= k) {
		int ret = decode_rows(a, (int)k, (int)m, reps, "cauchy");

		if (ret == 0 && gfec_matrix_jerasure_rs_van_w(16, (int)k, (int)m, a) == 0)
			ret = decode_rows(a, (int)k, (int)m, reps, "jerasure_reed_sol_van");
		for (int t = 0; t < 4 && !ret; t++) {
			const char *tech = t & 2 ? "jerasure_reed_sol_van" : "cauchy";

			ret = codec_rows((int)k, (int)m, (size_t)len, reps, tech, t & 1 ? 0 : 1,
					 src, pg, pj);
		}
		if (ret)
			return ret;
	}
	free(src);
	free(buf);
	free(tbl);
	free(ja);
	free(a);
	return 0;
}
