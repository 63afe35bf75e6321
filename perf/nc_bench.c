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
 * Every throughput figure is the median of --reps runs; decode rows give the median thread CPU
 * time of the decode and of ISA-L's product too (on a shared machine, free of the time the thread
 * waited for a core). Usage: gfec-nc-bench [--n N]
 * [--block B] [--count C] [--threads T] [--reps R] [--segments S] [--panels W,W,...]
 * (C >= n + 10, so that the decoders complete).
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

/* --panels: up to 8 comma-separated widths 1..256 into @p w; their count, or -1. */
static int parse_panels(const char *v, unsigned long long *w)
{
	char buf[128], *save = NULL;
	int k = 0;

	if (!v || strlen(v) >= sizeof(buf))
		return -1;
	strcpy(buf, v);
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (k == 8 || parse("--panels", tok, 1, 256, &w[k++]))
			return -1;
	return k ? k : -1;
}

int main(int argc, char **argv)
{
	unsigned long long n = 128, B = 4096, count = 1024, threads = 0, reps = 9, nlat = 300;
	unsigned long long panels[8];
	int npanels = 0;
	int ret = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int bad = 0;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			printf("usage: gfec-nc-bench [--n N] [--block B] [--count C] [--threads T] "
			       "[--reps R] [--segments S] [--panels W,W,...]\n"
			       "RLC encode (T threads) and progressive decode (one thread) against "
			       "raw ISA-L in the same run, and the last block's latency over S "
			       "segments; defaults n=128 B=4096 C=1024 T=online CPUs R=9 S=300;\n"
			       "--panels: eager decode rows at these panel widths too (1: one block "
			       "at a time)\n");
			return 0;
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
			npanels = parse_panels(v, panels);
			if (npanels < 0) {
				fprintf(stderr, "gfec-nc-bench: --panels wants up to 8 widths "
						"1..256, comma-separated\n");
				bad = 1;
			}
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

	/* encode: gfec vs raw ISA-L with the same matrix, both on T threads */
	{
		unsigned char *c = malloc(count * n), *tbls = malloc(32 * count * n);
		unsigned char **src = malloc(sizeof(*src) * n), **dst = malloc(sizeof(*dst) * count);
		struct gfec_cpu_pool *pool = NULL;
		struct isal_job j = { .n = (int)n, .rows = (int)count, .B = B, .tbls = tbls,
				      .src = src, .dst = dst };
		double tg, ti;

		for (unsigned long long r = 0; r < count; r++)
			gfec_nc_prng_row((uint32_t)r, (uint32_t)n, 0, c + r * n);
		ec_init_tables((int)n, (int)count, c, tbls);
		for (unsigned long long i = 0; i < n; i++)
			src[i] = seg + i * B;
		for (unsigned long long r = 0; r < count; r++)
			dst[r] = ref + r * B;
		j.per = (int)((count + threads - 1) / threads);
		if (threads > 1 && gfec_cpu_pool_create((int)threads, &pool))
			return 3;
		for (unsigned long long r = 0; r < reps; r++) {
			double t0 = now();

			if (gfec_nc_encode(nc, &sg, 1, 0, (uint32_t)count, out, bytes * count))
				return 3;
			t[r] = now() - t0;
			t0 = now();
			if (pool)
				gfec_cpu_pool_run(pool, threads, isal_task, &j);
			else
				isal_task(&j, 0);
			t2[r] = now() - t0;
		}
		for (unsigned long long r = 0; r < count; r++)
			if (memcmp(out + r * bytes + bytes - B, ref + r * B, B)) {
				fprintf(stderr, "gfec-nc-bench: encode differs from ISA-L at %llu\n", r);
				return 3;
			}
		tg = median(t, (int)reps);
		ti = median(t2, (int)reps);
		printf("encode n=%llu B=%llu count=%llu threads=%llu: gfec %.1f MB/s, raw ISA-L "
		       "%.1f MB/s, ratio %.2f\n", n, B, count, threads, count * B / tg / 1e6,
		       count * B / ti / 1e6, ti / tg);
		gfec_cpu_pool_destroy(pool);
		free(c);
		free(tbls);
		free(src);
		free(dst);
	}

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
