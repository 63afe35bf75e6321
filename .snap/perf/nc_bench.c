/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file nc_bench.c
 * gfec-nc-bench: random linear network coding on the CPU against raw ISA-L in the same run.
 *
 *   encode   COUNT coded blocks of one segment (n x B) through gfec_nc_encode() on T threads,
 *            against raw ISA-L ec_encode_data() with the same coefficient matrix, its rows split
 *            over the same T threads (gfec's pool). MB/s counts coded payload bytes written.
 *   decode   one thread: a progressive decoder (eager, then deferred, then eager with each
 *            panel width of --panels) fed n coded blocks, then read; against raw ISA-L's one
 *            n x n ec_encode_data() over the same segment (the product a decode must at least
 *            do), timed before each decode so that a row's ratio is of one time window. MB/s
 *            counts segment bytes (n * B) per decode.
 *            "last" is the time from the last block's add() to a readable segment (add + read).
 *   latency  one thread, each mode: --segments S decoders, each fed the coded blocks from its
 *            own place in the stream (so each has its own coefficient matrix) until complete,
 *            then read; the time of the last add() + read(), its median, P99 and maximum.
 *
 *   papers   (--papers) the same rows, encode on one thread too, and gfec_matrix_invert() of a
 *            random n x n matrix (one thread, checked: A x A^-1 = I) for each n of --inv, then one
 *            table of the seed papers' CPU figures (seed-systems.md A: the thesis's 8-core
 *            full-block encode, T:2029; its Quad G5 encode and decode, T:612-621; P1's
 *            inversion times on 4 cores and on one, P1:291-295) beside this run's. The papers'
 *            figures are cited constants; their MB is 10^6 bytes (T:2029's footnote). A ratio
 *            is gfec's rate over the paper's, or the paper's time over gfec's: > 1, gfec faster.
 *            Their shape is n = 128, B = 4096: at another shape those rows give no ratio.
 *
 * Every throughput figure is the median of --reps runs; decode rows give the median thread CPU
 * time of the decode and of ISA-L's product too (on a shared machine, free of the time the thread
 * waited for a core). Usage: gfec-nc-bench [--n N]
 * [--block B] [--count C] [--threads T] [--reps R] [--segments S] [--panels W,W,...]
 * [--papers [--inv N,N,...]] (C >= n + 10, so that the decoders complete).
 * Exit 0; 2 on bad usage; 3 when a run fails or its output is wrong.
 */
#include <isa-l/erasure_code.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gfec/gfec_config.h"
#include "gfec/gfec_nc.h"
#include "matrix.h"
#include "nc_internal.h"
#include "nc_prng.h"
#include "threadpool.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* This thread's CPU time: what a decode costs, whatever else the machine runs. */
static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return v[n / 2];
}

/* The q-quantile (0 < q <= 1) of v, sorted by median(): the smallest value with q of v at most. */
static double quantile(const double *v, int n, double q)
{
	int i = (int)(q * n + 0.999999) - 1;

	return v[i < 0 ? 0 : i >= n ? n - 1 : i];
}

/*
 * The latency of a progressive decode (@p one's mode, one thread): @p nseg decoders fed coded
 * blocks from the @p count at @p out (seed-carrying, @p bytes each) from their own start on, until
 * complete; the last add() + read() of each into @p t. 0, or -1 when one fails or reads wrong.
 */
static int last_block_latency(gfec_nc *one, const uint8_t *out, size_t bytes,
			      unsigned long long count, unsigned long long n, const uint8_t *seg,
			      size_t seglen, uint8_t *dec, int nseg, double *t)
{
	for (int s = 0; s < nseg; s++) {
		const unsigned long long start = (unsigned long long)s * 37 % (count - n - 9);
		gfec_nc_decoder *d;
		int st = 0;
		double t0 = 0;

		if (gfec_nc_decoder_create(one, 1, &d))
			return -1;
		for (unsigned long long k = start; k < count && st != GFEC_NC_COMPLETE; k++) {
			t0 = now();
			st = gfec_nc_decoder_add(d, out + k * bytes, bytes);
		}
		if (st != GFEC_NC_COMPLETE || gfec_nc_decoder_read(d, dec, seglen)) {
			gfec_nc_decoder_free(d);
			return -1;
		}
		t[s] = now() - t0;
		gfec_nc_decoder_free(d);
		if (memcmp(dec, seg, seglen))
			return -1;
	}
	return 0;
}

struct isal_job {
	int n, rows, per;
	size_t B;
	unsigned char *tbls;
	unsigned char **src, **dst;
};

static void isal_task(void *arg, size_t t)
{
	struct isal_job *j = arg;
	int r0 = (int)t * j->per, r1 = r0 + j->per < j->rows ? r0 + j->per : j->rows;

	if (r1 > r0)
		ec_encode_data((int)j->B, j->n, r1 - r0, j->tbls + (size_t)32 * j->n * r0, j->src,
			       j->dst + r0);
}

static int parse(const char *flag, const char *v, long long lo, long long hi,
		 unsigned long long *out)
{
	long long x;

	if (!v || gfec_parse_number(v, lo, hi, &x)) {
		fprintf(stderr, "gfec-nc-bench: %s wants a number in %lld..%lld\n", flag, lo, hi);
		return -1;
	}
	*out = (unsigned long long)x;
	return 0;
}

/*
 * encode: @p count coded blocks of @p sg through gfec_nc_encode() on @p threads threads (a codec
 * of @p p0's shape made for them), against raw ISA-L ec_encode_data() with the same coefficient
 * matrix, its rows split over as many threads of gfec's pool; prints the row and leaves gfec's
 * blocks (@p bytes each) in @p out, checked against ISA-L's in @p ref. @p t and @p t2 hold @p reps
 * times each. gfec's MB/s of coded payload, or -1 when a call fails or the blocks differ.
 */
static double encode_row(const struct gfec_nc_params *p0, int threads,
			 const struct gfec_nc_segment *sg, unsigned long long count,
			 unsigned long long reps, uint8_t *out, size_t bytes, uint8_t *ref, double *t,
			 double *t2)
{
	const unsigned long long n = p0->n, B = p0->block_size;
	struct gfec_nc_params q = *p0;
	unsigned char *c = malloc(count * n), *tbls = malloc(32 * count * n);
	unsigned char **src = malloc(sizeof(*src) * n), **dst = malloc(sizeof(*dst) * count);
	struct gfec_cpu_pool *pool = NULL;
	struct isal_job j = { .n = (int)n, .rows = (int)count, .B = B, .tbls = tbls,
			      .src = src, .dst = dst };
	gfec_nc *nc = NULL;
	double tg, ti, mbs = -1;

	q.threads = threads;
	if (!c || !tbls || !src || !dst || gfec_nc_create(&q, &nc) ||
	    (threads > 1 && gfec_cpu_pool_create(threads, &pool)))
		goto out;
	for (unsigned long long r = 0; r < count; r++)
		gfec_nc_prng_row((uint32_t)r, (uint32_t)n, 0, c + r * n);
	ec_init_tables((int)n, (int)count, c, tbls);
	for (unsigned long long i = 0; i < n; i++)
		src[i] = (unsigned char *)sg->data + i * B;
	for (unsigned long long r = 0; r < count; r++)
		dst[r] = ref + r * B;
	j.per = (int)((count + threads - 1) / threads);
	for (unsigned long long r = 0; r < reps; r++) {
		double t0 = now();

		if (gfec_nc_encode(nc, sg, 1, 0, (uint32_t)count, out, bytes * count))
			goto out;
		t[r] = now() - t0;
		t0 = now();
		if (pool)
			gfec_cpu_pool_run(pool, (size_t)threads, isal_task, &j);
		else
			isal_task(&j, 0);
		t2[r] = now() - t0;
	}
	for (unsigned long long r = 0; r < count; r++)
		if (memcmp(out + r * bytes + bytes - B, ref + r * B, B)) {
			fprintf(stderr, "gfec-nc-bench: encode differs from ISA-L at %llu\n", r);
			goto out;
		}
	tg = median(t, (int)reps);
	ti = median(t2, (int)reps);
	mbs = count * B / tg / 1e6;
	printf("encode n=%llu B=%llu count=%llu threads=%d: gfec %.1f MB/s, raw ISA-L "
	       "%.1f MB/s, ratio %.2f\n", n, B, count, threads, mbs, count * B / ti / 1e6,
	       ti / tg);
out:
	gfec_cpu_pool_destroy(pool);
	gfec_nc_free(nc);
	free(c);
	free(tbls);
	free(src);
	free(dst);
	return mbs;
}

/*
 * Seconds one @p invert of @p a (n x n, copied into the scratch @p w first, untimed) into @p out
 * takes; -1 where it finds @p a singular.
 */
static double time_invert(int (*invert)(uint8_t *, uint8_t *, int), const uint8_t *a, uint8_t *w,
			  uint8_t *out, int n)
{
	double t0;

	memcpy(w, a, (size_t)n * n);
	t0 = now();
	if (invert(w, out, n))
		return -1;
	return now() - t0;
}

/*
 * --papers: gfec_matrix_invert() of a random n x n matrix over GF(2^8) on this thread, the median
 * of @p reps (wall clock, in ms; @p t holds reps times), each inverse checked (A x A^-1 = I);
 * ISA-L's gf_invert_matrix() of the same matrix is printed beside it for reference. A singular
 * draw (about 0.4%) is replaced by the next. -1 when an inverse is wrong or memory runs out.
 */
static double invert_ms(int n, unsigned long long reps, double *t, double *ti)
{
	const size_t nn = (size_t)n * n;
	uint8_t *a = malloc(nn), *w = malloc(nn), *inv = malloc(nn), *prod = malloc(nn);
	uint32_t seed = 0x5eed0000u + (uint32_t)n;
	double ms = -1;

	if (!a || !w || !inv || !prod)
		goto out;
	for (;;) { /* a non-singular draw: 0..255 entries, the papers' uniform matrices */
		for (int r = 0; r < n; r++)
			gfec_nc_prng_row(seed + (uint32_t)r, (uint32_t)n, 1, a + (size_t)r * n);
		memcpy(w, a, nn);
		if (!gfec_matrix_invert(w, inv, n))
			break;
		seed += (uint32_t)n;
	}
	for (unsigned long long r = 0; r < reps; r++) {
		t[r] = time_invert(gfec_matrix_invert, a, w, inv, n);
		if (t[r] < 0)
			goto out;
		gfec_matrix_mul(a, inv, prod, n, n, n);
		for (size_t i = 0; i < nn; i++)
			if (prod[i] != (i / n == i % n)) {
				fprintf(stderr, "gfec-nc-bench: inverse n=%d wrong\n", n);
				goto out;
			}
		ti[r] = time_invert(gf_invert_matrix, a, w, prod, n);
		if (ti[r] < 0)
			goto out;
	}
	ms = median(t, (int)reps) * 1e3;
	printf("invert n=%d threads=1: gfec_matrix_invert %.3f ms, ISA-L gf_invert_matrix %.3f ms "
	       "(median of %llu)\n", n, ms, median(ti, (int)reps) * 1e3, reps);
out:
	free(a);
	free(w);
	free(inv);
	free(prod);
	return ms;
}

/* One row of the --papers table: the paper's figure, gfec's, their ratio (> 1: gfec faster). */
static void paper_row(const char *what, double paper, const char *unit, const char *tag,
		      double ours, int is_time, int comparable)
{
	char r[16] = "-";

	if (comparable && ours > 0 && paper > 0)
		snprintf(r, sizeof(r), "%.2f", is_time ? paper / ours : ours / paper);
	printf("%-50s | %9.2f %-4s %-10s | %10.2f %-4s | %s\n", what, paper, unit, tag, ours, unit,
	       r);
}

/* @p flag's value: up to 8 comma-separated numbers lo..hi into @p w; their count, or -1. */
static int parse_list(const char *flag, const char *v, long long lo, long long hi,
		      unsigned long long *w)
{
	char buf[128], *save = NULL;
	int k = 0;

	if (!v || strlen(v) >= sizeof(buf))
		goto bad;
	strcpy(buf, v);
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (k == 8)
			goto bad;
		if (parse(flag, tok, lo, hi, &w[k++]))
			return -1; /* parse() said why */
	}
	if (k)
		return k;
bad:
	fprintf(stderr, "gfec-nc-bench: %s wants up to 8 numbers %lld..%lld, comma-separated\n",
		flag, lo, hi);
	return -1;
}

int main(int argc, char **argv)
{
	unsigned long long n = 128, B = 4096, count = 1024, threads = 0, reps = 9, nlat = 300;
	unsigned long long panels[8], inv[8] = { 128, 256, 512 };
	int npanels = 0, ninv = 3, papers = 0;
	double enc1 = -1, encT = -1, eager = -1;
	int ret = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int bad = 0;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			printf("usage: gfec-nc-bench [--n N] [--block B] [--count C] [--threads T] "
			       "[--reps R] [--segments S] [--panels W,W,...] [--papers [--inv N,...]]\n"
			       "RLC encode (T threads) and progressive decode (one thread) against "
			       "raw ISA-L in the same run, and the last block's latency over S "
			       "segments; defaults n=128 B=4096 C=1024 T=online CPUs R=9 S=300;\n"
			       "--panels: eager decode rows at these panel widths too (1: one block "
			       "at a time)\n"
			       "--papers: also encode on one thread and invert random n x n matrices "
			       "(--inv, default 128,256,512), then the seed papers' CPU figures beside "
			       "this run's in one table\n"
			       "exit: 0, 2 bad usage, 3 a run failed or its output is wrong\n");
			return 0;
		} else if (!strcmp(a, "--papers")) {
			papers = 1;
			continue;
		} else if (!strcmp(a, "--inv")) {
			ninv = parse_list("--inv", v, 1, 4096, inv);
			bad = ninv < 0;
		} else if (!strcmp(a, "--n")) {
			bad = parse(a, v, 1, 4096, &n);
		} else if (!strcmp(a, "--block")) {
			bad = parse(a, v, 1, 1u << 30, &B);
		} else if (!strcmp(a, "--count")) {
			bad = parse(a, v, 1, 1u << 20, &count);
		} else if (!strcmp(a, "--threads")) {
			bad = parse(a, v, 0, 1024, &threads);
		} else if (!strcmp(a, "--reps")) {
			bad = parse(a, v, 1, 1000, &reps);
		} else if (!strcmp(a, "--segments")) {
			bad = parse(a, v, 1, 1000000, &nlat);
		} else if (!strcmp(a, "--panels")) {
			npanels = parse_list(a, v, 1, 256, panels);
			bad = npanels < 0;
		} else {
			fprintf(stderr, "gfec-nc-bench: unknown argument %s (try --help)\n", a);
			return 2;
		}
		if (bad)
			return 2;
		i++;
	}
	if (count < n + 10) {
		fprintf(stderr, "gfec-nc-bench: --count must be at least n + 10\n");
		return 2;
	}
	if (!threads) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);

		threads = c > 0 ? (unsigned long long)c : 1;
	}

	const size_t seglen = (size_t)n * B;
	struct gfec_nc_params p = { .n = (uint32_t)n, .block_size = (uint32_t)B,
				    .threads = (int)threads };
	gfec_nc *nc = NULL;
	uint8_t *seg = malloc(seglen), *out, *ref;
	size_t bytes;
	double *t = calloc(reps, sizeof(double)), *t2 = calloc(reps, sizeof(double));
	double *t3 = calloc(reps, sizeof(double)), *c4 = calloc(reps, sizeof(double));
	double *c5 = calloc(reps, sizeof(double));
	double *lat = calloc(nlat, sizeof(double));
	struct gfec_nc_segment sg;

	if (!seg || !t || !t2 || !t3 || !c4 || !c5 || !lat || gfec_nc_create(&p, &nc)) {
		fprintf(stderr, "gfec-nc-bench: cannot set up n=%llu B=%llu\n", n, B);
		return 3;
	}
	for (size_t i = 0; i < seglen; i++)
		seg[i] = (uint8_t)(i * 2654435761u >> 13);
	sg.id = 1;
	sg.data = seg;
	bytes = gfec_nc_block_bytes(nc, GFEC_NC_KIND_SEED);
	out = malloc(bytes * count);
	ref = malloc(B * count);
	if (!out || !ref)
		return 3;

	/* encode: gfec vs raw ISA-L with the same matrix, both on T threads (--papers: and on 1) */
	if (papers && threads > 1 &&
	    (enc1 = encode_row(&p, 1, &sg, count, reps, out, bytes, ref, t, t2)) < 0)
		return 3;
	if ((encT = encode_row(&p, (int)threads, &sg, count, reps, out, bytes, ref, t, t2)) < 0)
		return 3;
	if (threads == 1)
		enc1 = encT;

	/* decode on one thread: eager and deferred, against one raw n x n ISA-L product */
	{
		uint8_t *dec = malloc(seglen), *tbls = malloc(32 * n * n), *c = malloc(n * n);
		unsigned char **src = malloc(sizeof(*src) * n), **dst = malloc(sizeof(*dst) * n);
		double ti;

		for (unsigned long long i = 0; i < n * n; i++)
			c[i] = (uint8_t)(1 + i % 251);
		ec_init_tables((int)n, (int)n, c, tbls);
		for (unsigned long long i = 0; i < n; i++) {
			src[i] = seg + i * B;
			dst[i] = dec + i * B;
		}
		for (unsigned long long r = 0; r < reps; r++) {
			double t0 = now();

			ec_encode_data((int)B, (int)n, (int)n, tbls, src, dst);
			t[r] = now() - t0;
		}
		ti = median(t, (int)reps);
		printf("isal n=%llu B=%llu: one %llux%llu ec_encode_data %.1f MB/s (%.3f ms)\n", n,
		       B, n, n, seglen / ti / 1e6, ti * 1e3);
		for (int row = 0; row < 2 + npanels; row++) {
			const int mode = row == 1 ? GFEC_NC_DEFERRED : GFEC_NC_EAGER;
			struct gfec_nc_params q = p;
			gfec_nc *one = NULL;
			char name[32];

			q.threads = 1;
			q.decode = mode;
			if (gfec_nc_create(&q, &one) ||
			    (row >= 2 && gfec_nc_set_panel(one, (uint32_t)panels[row - 2])))
				return 3;
			if (row >= 2)
				snprintf(name, sizeof(name), "eager panel=%llu", panels[row - 2]);
			else
				snprintf(name, sizeof(name), "%s", row ? "deferred" : "eager");
			for (unsigned long long r = 0; r < reps; r++) {
				gfec_nc_decoder *d;
				double t0, c0, tl = 0;
				int st = 0;

				/* the reference product next to each decode: the ratio is of one
				 * time window, on a machine whose load may change between rows */
				t0 = now();
				c0 = cpu_now();
				ec_encode_data((int)B, (int)n, (int)n, tbls, src, dst);
				c5[r] = cpu_now() - c0;
				t3[r] = now() - t0;
				if (gfec_nc_decoder_create(one, 1, &d))
					return 3;
				c0 = cpu_now();
				t0 = now();
				for (unsigned long long k = 0; k < count && st != GFEC_NC_COMPLETE;
				     k++) {
					tl = now();
					st = gfec_nc_decoder_add(d, out + k * bytes, bytes);
				}
				if (st != GFEC_NC_COMPLETE || gfec_nc_decoder_read(d, dec, seglen))
					return 3;
				t[r] = now() - t0;
				t2[r] = now() - tl;
				c4[r] = cpu_now() - c0;
				gfec_nc_decoder_free(d);
			}
			if (memcmp(dec, seg, seglen)) {
				fprintf(stderr, "gfec-nc-bench: decoded segment differs\n");
				return 3;
			}
			double td = median(t, (int)reps), tl = median(t2, (int)reps);
			double tr = median(t3, (int)reps);

			double cd = median(c4, (int)reps), cr = median(c5, (int)reps);

			if (row == 0)
				eager = seglen / td / 1e6;
			printf("decode %s n=%llu B=%llu threads=1: %.1f MB/s (%.3f ms), last block "
			       "to readable %.3f ms, ratio to raw ISA-L %.2f (its product %.3f ms "
			       "beside each decode); thread CPU time %.3f ms, ISA-L %.3f ms, ratio "
			       "%.2f\n", name, n, B, seglen / td / 1e6, td * 1e3, tl * 1e3, tr / td,
			       tr * 1e3, cd * 1e3, cr * 1e3, cr / cd);
			if (last_block_latency(one, out, bytes, count, n, seg, seglen, dec,
					       (int)nlat, lat)) {
				fprintf(stderr, "gfec-nc-bench: latency run failed or read wrong\n");
				return 3;
			}
			td = median(lat, (int)nlat);
			printf("latency %s n=%llu B=%llu threads=1 segments=%llu: last add + read "
			       "median %.3f ms, P99 %.3f ms, max %.3f ms\n", name, n, B, nlat, td * 1e3,
			       quantile(lat, (int)nlat, 0.99) * 1e3, lat[nlat - 1] * 1e3);
			gfec_nc_free(one);
		}
		free(dec);
		free(tbls);
		free(c);
		free(src);
		free(dst);
	}

	/* --papers: the seed papers' CPU figures (seed-systems.md A, cited) beside this run's */
	if (papers) {
		/* P1:291-295, Table II: ms on 4 cores (OpenMP) and on one */
		static const struct {
			int n;
			double four, one;
		} p1[] = { { 128, 2.86, 8.32 }, { 256, 18.93, 67.2 }, { 512, 139.08, 522 } };
		const int same = n == 128 && B == 4096;
		double ms[8];
		char what[80];

		for (int i = 0; i < ninv; i++)
			if ((ms[i] = invert_ms((int)inv[i], reps, t, t2)) < 0)
				return 3;
		printf("# the papers side by side: MB = 10^6 bytes; ratio: gfec's rate over the "
		       "paper's, or the paper's time over gfec's (> 1: gfec faster)%s\n",
		       same ? "" : "; the coding rows are the papers' n = 128, B = 4096, gfec's "
				   "another shape: no ratio");
		printf("%-50s | %-25s | %-15s | %s\n", "experiment (paper's setup; gfec's)",
		       "paper", "gfec now", "ratio");
		snprintf(what, sizeof(what), "encode n=%llu B=%llu: Quad G5 4 thr; gfec 1", n, B);
		paper_row(what, 18.01, "MB/s", "T:612-621", enc1, 0, same);
		snprintf(what, sizeof(what), "encode n=%llu B=%llu: Quad G5 4 thr; gfec %llu", n, B,
			 threads);
		paper_row(what, 18.01, "MB/s", "T:612-621", encT, 0, same);
		snprintf(what, sizeof(what), "encode n=%llu B=%llu: Mac Pro 8 cores; gfec %llu", n,
			 B, threads);
		paper_row(what, 65.1, "MB/s", "T:2029", encT, 0, same);
		snprintf(what, sizeof(what), "prog. decode n=%llu B=%llu: Quad G5 4 thr; gfec 1", n,
			 B);
		paper_row(what, 16.38, "MB/s", "T:612-621", eager, 0, same);
		for (int i = 0; i < ninv; i++)
			for (size_t k = 0; k < sizeof(p1) / sizeof(p1[0]); k++) {
				if ((unsigned long long)p1[k].n != inv[i])
					continue;
				snprintf(what, sizeof(what), "invert n=%d: 4 cores; gfec 1", p1[k].n);
				paper_row(what, p1[k].four, "ms", "P1:291-295", ms[i], 1, 1);
				snprintf(what, sizeof(what), "invert n=%d: 1 core; gfec 1", p1[k].n);
				paper_row(what, p1[k].one, "ms", "P1:291-295", ms[i], 1, 1);
			}
	}
	gfec_nc_free(nc);
	free(seg);
	free(out);
	free(ref);
	free(t);
	free(t2);
	free(t3);
	free(c4);
	free(c5);
	free(lat);
	return ret;
}
