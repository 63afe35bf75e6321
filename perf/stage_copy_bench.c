/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file stage_copy_bench.c
 * gfec-stage-copy-bench: the GPU backend's staging copies of pageable stripes
 * (cuda_gemm/device/stage_copy.h) by each way the CPU has, in turns in one process. T threads
 * each copy a stripe's k chunks into a 1 MiB stage of their own and its m outputs back into
 * the stripe, as much of each chunk at a time as fits, over stripes that rotate over at least
 * 4 x L3 in all; no GPU. GB/s are 10^9 data bytes (k x chunk a stripe) per second, the median
 * of the rounds. Not installed.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device/stage_copy.h"
#include "perf_util.h"

#define MAX_CHUNKS 256

struct bench {
	int k, m, threads, path;
	size_t chunk, nstripes, stripe;
	double seconds;
	uint8_t *mem;
	atomic_int go;
};

struct worker {
	struct bench *b;
	int idx;
	uint8_t *stage;
	unsigned long stripes;
	pthread_t tid;
};

/* The stripe at @p base (k chunks, then m) through @p stage (gfec_stage_stripe). */
static void copy_stripe(const struct bench *b, uint8_t *base, uint8_t *stage)
{
	const uint8_t *src[MAX_CHUNKS];
	uint8_t *dst[MAX_CHUNKS];

	for (int i = 0; i < b->k; i++)
		src[i] = base + (size_t)i * b->chunk;
	for (int i = 0; i < b->m; i++)
		dst[i] = base + (size_t)(b->k + i) * b->chunk;
	gfec_stage_stripe(b->path, stage, src, b->k, dst, b->m, b->chunk);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	const struct bench *b = w->b;
	size_t s = (size_t)w->idx;

	while (!atomic_load(&w->b->go))
		;
	for (const double t0 = perf_now(); perf_now() - t0 < b->seconds; w->stripes++) {
		copy_stripe(b, b->mem + s * b->stripe, w->stage);
		s = (s + (size_t)b->threads) % b->nstripes;
	}
	return NULL;
}

/* One round of @p b's way: data GB/s, or -1 where the threads could not be had. */
static double round_gbps(struct bench *b, struct worker *w)
{
	unsigned long stripes = 0;
	int started = 0;
	double t0;

	atomic_store(&b->go, 0);
	for (; started < b->threads; started++) {
		w[started].stripes = 0;
		if (pthread_create(&w[started].tid, NULL, worker_main, &w[started]))
			break;
	}
	t0 = perf_now();
	atomic_store(&b->go, 1);
	for (int i = 0; i < started; i++) {
		pthread_join(w[i].tid, NULL);
		stripes += w[i].stripes;
	}
	if (started < b->threads)
		return -1;
	return (double)stripes * (double)b->k * (double)b->chunk / (perf_now() - t0) / 1e9;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: gfec-stage-copy-bench [-k K,M] [-b CHUNK] [-T THREADS] [-d SECONDS] "
		   "[-r ROUNDS]\n"
		   "The GPU backend's staging copies of pageable stripes by each way this CPU has\n"
		   "(memcpy, sse2, avx512), in turns: data GB/s, median of the rounds.\n"
		   "  -k K,M      data and parity chunks        [10,4]\n"
		   "  -b CHUNK    bytes a chunk (K/M suffixes)  [64K]\n"
		   "  -T THREADS  copying threads               [all CPUs]\n"
		   "  -d SECONDS  per way and round             [1]\n"
		   "  -r ROUNDS   rounds                        [3]\n");
}

int main(int argc, char **argv)
{
	static const char *const names[] = {"memcpy", "sse2", "avx512"};
	struct bench b = {.k = 10, .m = 4, .chunk = 65536, .seconds = 1};
	long threads = sysconf(_SC_NPROCESSORS_ONLN), rounds = 3, v;
	struct worker *w;
	double gbps[3][64];
	size_t rotate;
	int opt;

	while ((opt = getopt(argc, argv, "k:b:T:d:r:h")) != -1) {
		switch (opt) {
		case 'k':
			if (sscanf(optarg, "%d,%d", &b.k, &b.m) != 2 || b.k < 1 || b.m < 1 ||
			    b.k + b.m > MAX_CHUNKS) {
				fprintf(stderr,
					"gfec-stage-copy-bench: -k %s: want K,M with K+M <= %d\n",
					optarg, MAX_CHUNKS);
				return 2;
			}
			break;
		case 'b':
			if (perf_parse_size(optarg, &b.chunk) || b.chunk == 0) {
				fprintf(stderr, "gfec-stage-copy-bench: -b %s: not a size\n",
					optarg);
				return 2;
			}
			break;
		case 'T':
		case 'r':
			if (perf_parse_long(optarg, 1, opt == 'T' ? 1024 : 64, &v)) {
				fprintf(stderr, "gfec-stage-copy-bench: -%c %s: out of range\n",
					opt, optarg);
				return 2;
			}
			*(opt == 'T' ? &threads : &rounds) = v;
			break;
		case 'd':
			b.seconds = atof(optarg);
			if (!(b.seconds > 0 && b.seconds <= 60)) {
				fprintf(stderr, "gfec-stage-copy-bench: -d %s: want 0 < S <= 60\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	b.threads = (int)threads;
	b.stripe = b.chunk * (size_t)(b.k + b.m);
	rotate = 4 * perf_l3_bytes();
	b.nstripes = (rotate + b.stripe - 1) / b.stripe;
	b.nstripes = b.nstripes < (size_t)b.threads ? (size_t)b.threads : b.nstripes;
	w = calloc((size_t)b.threads, sizeof(*w));
	if (!w || posix_memalign((void **)&b.mem, 64, b.nstripes * b.stripe)) {
		fprintf(stderr, "gfec-stage-copy-bench: cannot allocate %zu MiB\n",
			(b.nstripes * b.stripe) >> 20);
		return 1;
	}
	perf_fill_random(b.mem, b.nstripes * b.stripe, 1);
	for (int i = 0; i < b.threads; i++) {
		w[i].b = &b, w[i].idx = i;
		if (posix_memalign((void **)&w[i].stage, 4096, GFEC_STAGE_BYTES)) {
			fprintf(stderr, "gfec-stage-copy-bench: cannot allocate the stages\n");
			return 1;
		}
		memset(w[i].stage, 0, GFEC_STAGE_BYTES);
	}
	printf("# RS(%d,%d), %zu-byte chunks, %d threads, stripes over %zu MiB, %.2f s a way and "
	       "round, %ld rounds\n",
	       b.k, b.m, b.chunk, b.threads, (b.nstripes * b.stripe) >> 20, b.seconds, rounds);
	for (int r = 0; r < rounds; r++)
		for (int p = 0; p < 3; p++) {
			b.path = p;
			gbps[p][r] =
			    gfec_stage_copy_path(p, &w[0].stage, (const uint8_t *const *)&b.mem, 1,
						 0, 0) < 0
				? 0
				: round_gbps(&b, w);
			if (gbps[p][r] < 0) {
				fprintf(stderr,
					"gfec-stage-copy-bench: cannot start the threads\n");
				return 1;
			}
		}
	for (int p = 0; p < 3; p++) {
		const struct perf_summary s = perf_summarise(gbps[p], (int)rounds);

		if (gbps[p][0] == 0)
			printf("%-7s skipped: this CPU or build lacks it\n", names[p]);
		else
			printf("%-7s %8.2f GB/s of data (spread %.1f%%), %.2fx memcpy\n", names[p],
			       s.median, 100 * s.spread,
			       s.median / perf_summarise(gbps[0], (int)rounds).median);
	}
	for (int i = 0; i < b.threads; i++)
		free(w[i].stage);
	free(w);
	free(b.mem);
	return 0;
}
