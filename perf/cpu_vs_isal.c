/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file cpu_vs_isal.c
 * gfec-bench-cpu: does gfec's CPU path (profile "k=K m=M technique=cauchy backend=cpu threads=T"
 * then gfec_encode()) cost anything over calling ISA-L directly (gf_gen_cauchy1_matrix,
 * ec_init_tables, ec_encode_data)? Both encode the same bytes with the same matrix, so any gap
 * is gfec's overhead (profile dispatch, slicing, its thread pool) or its gain.
 *
 * How it measures, so that the numbers can be trusted:
 *  - Parity from gfec is compared byte for byte with raw ISA-L's before anything is timed; a
 *    difference ends the program with exit status 1.
 *  - Data comes from DRAM: every iteration encodes the next of several stripe sets (k data + m
 *    parity chunks each, 64-byte aligned, random bytes), at least 8 sets and at least
 *    max(256 MiB, 4 x L3) in all, so no set is still cached when its turn comes back. The
 *    rotation continues from one timed batch to the next, so each starts on the coldest set.
 *    --hot uses a single set (the in-cache number).
 *  - Raw ISA-L on T > 1 threads: T - 1 persistent pthreads plus the calling thread, each taking
 *    one contiguous 64-byte-aligned range of the chunk length; one pthread barrier starts an
 *    encode and one ends it. No thread is created inside the timed loop, so the baseline is
 *    not penalised. gfec uses its own pool, in which the caller works as well.
 *  - Warm-up iterations, then R repeats of n timed iterations each (CLOCK_MONOTONIC around
 *    the whole batch); raw and gfec alternate which goes first in each repeat, so drift hits
 *    both. Reported: median GB/s, min and max, spread = (max - min) / median ('!' above 10%).
 *  - GB/s = 10^9 bytes of data (k x chunk bytes per encode; parity not counted) per second.
 */
#include <errno.h>
#include <getopt.h>
#include <isa-l/erasure_code.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <gfec/gfec.h>

#include "perf_util.h"

#ifndef GFEC_BENCH_ISAL_VERSION
#define GFEC_BENCH_ISAL_VERSION "unknown"
#endif

#define MAX_CODES 16
#define MAX_THREADS 1024
#define MAX_LIST 64
/* Seconds per repeat and implementation when -n is not given. */
#define TARGET_SECONDS 0.2
/* Rotate through at least this many bytes (or 4 x L3 if more) in at least this many sets. */
#define ROTATE_MIN_BYTES (256ull << 20)
#define ROTATE_MIN_SETS 8
#define SPREAD_WARN 0.10
#define SEED 0x9e3779b97f4a7c15ull

struct code {
	int k, m;
};

struct opts {
	struct code codes[MAX_CODES];
	int ncodes;
	size_t chunk;
	int threads[MAX_LIST];
	int nthreads;
	int warmup;
	long iters; /* 0: calibrated to about TARGET_SECONDS */
	int repeats;
	bool hot;
	const char *json;
};

/* All stripe sets of one code: set s, chunk i (data i < k, then parity) at ptr[s*(k+m)+i]. */
struct stripes {
	int k, m, nsets, next;
	size_t chunk, stride;
	uint8_t *mem;
	uint8_t **ptr;
};

struct row {
	int k, m, threads, nsets;
	size_t chunk, rotated_bytes;
	long iters;
	char backend[32];
	double warm_raw_s, warm_gfec_s; /* whole warm-up batch, used to choose n */
	double *raw_s, *gfec_s;	/* seconds per repeat of n iterations */
	struct perf_summary raw, gfec;
};

/* Raw ISA-L: T - 1 persistent workers plus the caller; range i is [off[i], off[i+1]). */
struct raw_pool {
	int nthreads, k, m;
	uint8_t *tbls;
	size_t *off;
	uint8_t **set; /* the stripe set of the current encode; published by the start barrier */
	int quit;
	pthread_barrier_t start, done;
	pthread_t *tid;
	struct raw_worker {
		struct raw_pool *pool;
		int idx;
	} *w;
};

/* ------------------------------------------------------------------ small helpers */







/* ------------------------------------------------------------------ machine facts */



/* ------------------------------------------------------------------ command line */

static void usage(FILE *f, const char *prog)
{
	fprintf(f, "usage: %s [options]\n", prog);
	fputs("Encode throughput of gfec's CPU path vs raw ISA-L ec_encode_data (Cauchy RS).\n"
	      "GB/s counts 10^9 bytes of data (k x chunk per encode) per second.\n"
	      "  -k K -m M         one code RS(K,M), both needed (default: the --codes list)\n"
	      "  --codes \"K,M ..\"  codes, pairs separated by spaces (default \"10,4 4,2\")\n"
	      "  -s, --size N      chunk bytes; K/M/G = 2^10/2^20/2^30 (default 1M)\n"
	      "  -t, --threads L   thread counts, comma-separated (default \"1,2\")\n"
	      "  -w, --warmup N    warm-up encodes per implementation and row (default 5)\n",
	      f);
	fprintf(f,
		"  -n, --iters N     timed encodes per repeat (default: about %.1f s of the\n"
		"                    slower implementation, from the warm-up timing)\n"
		"  -r, --repeats N   repeats; median, min, max reported (default 5)\n"
		"  --hot             one stripe set, data stays in cache (default: rotate\n"
		"                    through >= %d sets, >= max(%llu MiB, 4 x L3): DRAM)\n",
		TARGET_SECONDS, ROTATE_MIN_SETS, ROTATE_MIN_BYTES >> 20);
	fputs("  --json FILE       also write all numbers and machine facts (default: none)\n"
	      "  -h, --help        this text\n",
	      f);
}



static int code_ok(int k, int m)
{
	return k >= 2 && m >= 1 && m <= k && k + m <= 256;
}

static int parse_codes(const char *s, struct opts *o)
{
	const char *p = s;

	o->ncodes = 0;
	while (*p) {
		int k, m, used;

		while (*p == ' ' || *p == '\t' || *p == ';')
			p++;
		if (!*p)
			break;
		if (o->ncodes == MAX_CODES || sscanf(p, "%d,%d%n", &k, &m, &used) != 2 ||
		    !code_ok(k, m))
			return -1;
		o->codes[o->ncodes++] = (struct code){ k, m };
		p += used;
		if (*p && *p != ' ' && *p != '\t' && *p != ';')
			return -1;
	}
	return o->ncodes ? 0 : -1;
}

static int parse_threads(const char *s, struct opts *o)
{
	char buf[512], *tok, *save;

	if (strlen(s) >= sizeof(buf))
		return -1;
	snprintf(buf, sizeof(buf), "%s", s);
	o->nthreads = 0;
	for (tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		long t;

		if (o->nthreads == MAX_LIST || perf_parse_long(tok, 1, MAX_THREADS, &t))
			return -1;
		o->threads[o->nthreads++] = (int)t;
	}
	return o->nthreads ? 0 : -1;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	enum { OPT_CODES = 256, OPT_HOT, OPT_JSON };
	static const struct option lopts[] = {
		{ "codes", required_argument, NULL, OPT_CODES },
		{ "size", required_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 't' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "iters", required_argument, NULL, 'n' },
		{ "repeats", required_argument, NULL, 'r' },
		{ "hot", no_argument, NULL, OPT_HOT },
		{ "json", required_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long k = 0, m = 0, v;
	int c, li = -1;

	*o = (struct opts){ .chunk = 1u << 20, .warmup = 5, .repeats = 5 };
	parse_codes("10,4 4,2", o);
	parse_threads("1,2", o);
	while ((c = getopt_long(argc, argv, "k:m:s:t:w:n:r:h", lopts, &li)) != -1) {
		switch (c) {
		case 'k':
			if (perf_parse_long(optarg, 2, 255, &k))
				goto bad;
			break;
		case 'm':
			if (perf_parse_long(optarg, 1, 254, &m))
				goto bad;
			break;
		case OPT_CODES:
			if (parse_codes(optarg, o))
				goto bad;
			break;
		case 's':
			if (perf_parse_size(optarg, &o->chunk))
				goto bad;
			break;
		case 't':
			if (parse_threads(optarg, o))
				goto bad;
			break;
		case 'w':
			if (perf_parse_long(optarg, 0, 1000000, &v))
				goto bad;
			o->warmup = (int)v;
			break;
		case 'n':
			if (perf_parse_long(optarg, 1, 1000000000L, &v))
				goto bad;
			o->iters = v;
			break;
		case 'r':
			if (perf_parse_long(optarg, 1, 10000, &v))
				goto bad;
			o->repeats = (int)v;
			break;
		case OPT_HOT:
			o->hot = true;
			break;
		case OPT_JSON:
			o->json = optarg;
			break;
		case 'h':
			usage(stdout, argv[0]);
			exit(0);
		default:
			usage(stderr, argv[0]);
			return -1;
		}
		li = -1;
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", argv[0], argv[optind]);
		return -1;
	}
	if (!k != !m) {
		fprintf(stderr, "%s: -k and -m go together\n", argv[0]);
		return -1;
	}
	if (k) {
		if (!code_ok((int)k, (int)m)) {
			fprintf(stderr, "%s: need 2 <= k, 1 <= m <= k, k + m <= 256\n", argv[0]);
			return -1;
		}
		o->ncodes = 1;
		o->codes[0] = (struct code){ (int)k, (int)m };
	}
	return 0;
bad:
	if (li >= 0)
		fprintf(stderr, "%s: bad value '%s' for --%s (see --help)\n", argv[0], optarg,
			lopts[li].name);
	else
		fprintf(stderr, "%s: bad value '%s' for -%c (see --help)\n", argv[0], optarg, c);
	return -1;
}



/* ------------------------------------------------------------------ stripe sets */

static int stripes_alloc(struct stripes *s, int k, int m, size_t chunk, bool hot, size_t l3)
{
	size_t nchunks = (size_t)(k + m), set_bytes, want, total;

	*s = (struct stripes){ .k = k, .m = m, .chunk = chunk };
	s->stride = (chunk + 63) & ~(size_t)63;
	set_bytes = nchunks * s->stride;
	want = ROTATE_MIN_BYTES > 4 * l3 ? ROTATE_MIN_BYTES : 4 * l3;
	s->nsets = hot ? 1 : (int)((want + set_bytes - 1) / set_bytes);
	if (!hot && s->nsets < ROTATE_MIN_SETS)
		s->nsets = ROTATE_MIN_SETS;
	total = (size_t)s->nsets * set_bytes;
	if (posix_memalign((void **)&s->mem, 64, total)) {
		s->mem = NULL;
		fprintf(stderr, "cannot allocate %zu MiB of stripe sets\n", total >> 20);
		return -1;
	}
	s->ptr = malloc((size_t)s->nsets * nchunks * sizeof(*s->ptr));
	if (!s->ptr) {
		free(s->mem);
		return -1;
	}
	for (int set = 0; set < s->nsets; set++) {
		for (size_t i = 0; i < nchunks; i++) {
			uint8_t *p = s->mem + ((size_t)set * nchunks + i) * s->stride;

			s->ptr[(size_t)set * nchunks + i] = p;
			if (i < (size_t)k)
				perf_fill_random(p, s->stride, SEED ^ ((uint64_t)set << 20) ^ i);
			else
				memset(p, 0, s->stride); /* fault the pages in before timing */
		}
	}
	return 0;
}

static void stripes_free(struct stripes *s)
{
	free(s->ptr);
	free(s->mem);
	s->ptr = NULL;
	s->mem = NULL;
}

static uint8_t **stripes_set(struct stripes *s, int set)
{
	return s->ptr + (size_t)set * (size_t)(s->k + s->m);
}

/* The next set in rotation; shared by raw and gfec, so a run starts on the coldest set. */
static uint8_t **stripes_next(struct stripes *s)
{
	uint8_t **set = stripes_set(s, s->next);

	if (++s->next == s->nsets)
		s->next = 0;
	return set;
}

/* ------------------------------------------------------------------ raw ISA-L */

static void raw_range(const struct raw_pool *p, uint8_t **set, int idx)
{
	uint8_t *src[256], *dst[256];
	size_t lo = p->off[idx], hi = p->off[idx + 1];

	if (hi <= lo)
		return;
	for (int i = 0; i < p->k; i++)
		src[i] = set[i] + lo;
	for (int i = 0; i < p->m; i++)
		dst[i] = set[p->k + i] + lo;
	ec_encode_data((int)(hi - lo), p->k, p->m, p->tbls, src, dst);
}

static void *raw_worker(void *arg)
{
	struct raw_worker *w = arg;
	struct raw_pool *p = w->pool;

	for (;;) {
		pthread_barrier_wait(&p->start);
		if (p->quit)
			break;
		raw_range(p, p->set, w->idx);
		pthread_barrier_wait(&p->done);
	}
	return NULL;
}

static void raw_encode(struct raw_pool *p, uint8_t **set)
{
	if (p->nthreads == 1) {
		raw_range(p, set, 0);
		return;
	}
	p->set = set;
	pthread_barrier_wait(&p->start);
	raw_range(p, set, 0);
	pthread_barrier_wait(&p->done);
}

static void raw_destroy(struct raw_pool *p)
{
	if (p->nthreads > 1 && p->tid) {
		p->quit = 1;
		pthread_barrier_wait(&p->start);
		for (int i = 1; i < p->nthreads; i++)
			pthread_join(p->tid[i], NULL);
		pthread_barrier_destroy(&p->start);
		pthread_barrier_destroy(&p->done);
	}
	free(p->tid);
	free(p->w);
	free(p->off);
	free(p->tbls);
}

static int raw_create(struct raw_pool *p, int k, int m, size_t len, int nthreads)
{
	uint8_t *a = malloc((size_t)(k + m) * (size_t)k);
	size_t per;

	*p = (struct raw_pool){ .nthreads = nthreads, .k = k, .m = m };
	p->tbls = malloc(32u * (size_t)k * (size_t)m);
	p->off = malloc(((size_t)nthreads + 1) * sizeof(*p->off));
	if (!a || !p->tbls || !p->off)
		goto fail;
	gf_gen_cauchy1_matrix(a, k + m, k);
	ec_init_tables(k, m, a + (size_t)k * (size_t)k, p->tbls);
	free(a);
	a = NULL;

	/* T contiguous ranges, each start a multiple of 64 bytes. */
	per = ((len + (size_t)nthreads - 1) / (size_t)nthreads + 63) & ~(size_t)63;
	for (int i = 0; i <= nthreads; i++)
		p->off[i] = (size_t)i * per < len ? (size_t)i * per : len;
	if (nthreads == 1)
		return 0;

	p->tid = calloc((size_t)nthreads, sizeof(*p->tid));
	p->w = calloc((size_t)nthreads, sizeof(*p->w));
	if (!p->tid || !p->w)
		goto fail;
	pthread_barrier_init(&p->start, NULL, (unsigned)nthreads);
	pthread_barrier_init(&p->done, NULL, (unsigned)nthreads);
	for (int i = 1; i < nthreads; i++) {
		p->w[i] = (struct raw_worker){ p, i };
		if (pthread_create(&p->tid[i], NULL, raw_worker, &p->w[i]) != 0) {
			fprintf(stderr, "pthread_create failed\n");
			/* No way to release a partial barrier cleanly: give up. */
			exit(2);
		}
	}
	return 0;
fail:
	free(a);
	free(p->tbls);
	free(p->off);
	fprintf(stderr, "out of memory\n");
	return -1;
}

/* ------------------------------------------------------------------ timing */

enum impl { IMPL_RAW, IMPL_GFEC };

struct bench {
	struct stripes *s;
	struct raw_pool *raw;
	gfec_codec *codec;
};

/* Runs n encodes of @p impl on successive stripe sets; returns their wall time in seconds. */
static int time_batch(struct bench *b, enum impl impl, long n, double *secs)
{
	const int k = b->s->k;
	const size_t len = b->s->chunk;
	double t0, t1;

	t0 = perf_now();
	if (impl == IMPL_RAW) {
		for (long i = 0; i < n; i++)
			raw_encode(b->raw, stripes_next(b->s));
	} else {
		for (long i = 0; i < n; i++) {
			uint8_t **set = stripes_next(b->s);
			int ret = gfec_encode(b->codec, (const uint8_t *const *)set, set + k, len);

			if (ret) {
				fprintf(stderr, "gfec_encode: %s\n", gfec_strerror(ret));
				return ret;
			}
		}
	}
	t1 = perf_now();
	*secs = t1 - t0;
	return 0;
}

/* gfec's parity must equal raw ISA-L's, byte for byte, for the first and the last set. */
static int check_parity(struct bench *b)
{
	const int k = b->s->k, m = b->s->m;
	const size_t len = b->s->chunk;
	int sets[2] = { 0, b->s->nsets - 1 }, ret = 0;
	uint8_t *mem = NULL, *set[2][256];

	if (posix_memalign((void **)&mem, 64, 2 * (size_t)m * b->s->stride)) {
		fprintf(stderr, "out of memory\n");
		return -1;
	}
	for (int n = 0; n < 2 && !ret; n++) {
		uint8_t **data = stripes_set(b->s, sets[n]);

		for (int j = 0; j < 2; j++) {
			for (int i = 0; i < k; i++)
				set[j][i] = data[i];
			for (int i = 0; i < m; i++) {
				set[j][k + i] = mem + ((size_t)j * m + i) * b->s->stride;
				memset(set[j][k + i], j ? 0x5a : 0xa5, len);
			}
		}
		raw_encode(b->raw, set[0]);
		ret = gfec_encode(b->codec, (const uint8_t *const *)set[1], set[1] + k, len);
		if (ret) {
			fprintf(stderr, "gfec_encode: %s\n", gfec_strerror(ret));
			break;
		}
		for (int i = 0; i < m; i++) {
			if (memcmp(set[0][k + i], set[1][k + i], len) == 0)
				continue;
			for (size_t x = 0; x < len; x++) {
				if (set[0][k + i][x] == set[1][k + i][x])
					continue;
				fprintf(stderr,
					"PARITY MISMATCH RS(%d,%d) threads=%d set %d parity %d "
					"byte %zu: raw ISA-L 0x%02x, gfec 0x%02x\n",
					k, m, b->raw->nthreads, sets[n], i, x, set[0][k + i][x],
					set[1][k + i][x]);
				break;
			}
			ret = -1;
			break;
		}
	}
	free(mem);
	return ret;
}

static int run_row(struct stripes *s, const struct opts *o, int threads, struct row *r)
{
	struct raw_pool raw;
	struct bench b = { .s = s, .raw = &raw };
	char profile[128], err[256];
	double per_iter;
	long cal = o->warmup > 0 ? o->warmup : 1;
	int ret;

	*r = (struct row){ .k = s->k, .m = s->m, .threads = threads, .nsets = s->nsets,
			   .chunk = s->chunk };
	r->rotated_bytes = (size_t)s->nsets * (size_t)(s->k + s->m) * s->stride;
	r->raw_s = calloc((size_t)o->repeats, sizeof(double));
	r->gfec_s = calloc((size_t)o->repeats, sizeof(double));
	if (!r->raw_s || !r->gfec_s)
		return -1;

	snprintf(profile, sizeof(profile), "k=%d m=%d technique=cauchy backend=cpu threads=%d",
		 s->k, s->m, threads);
	ret = gfec_codec_create(profile, &b.codec, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "gfec_codec_create(\"%s\"): %s: %s\n", profile, gfec_strerror(ret),
			err);
		return -1;
	}
	snprintf(r->backend, sizeof(r->backend), "%s", gfec_codec_backend(b.codec));
	if (raw_create(&raw, s->k, s->m, s->chunk, threads)) {
		gfec_codec_free(b.codec);
		return -1;
	}

	ret = check_parity(&b);
	if (ret)
		goto out;

	/* Warm-up (at least one iteration each when n must be chosen from it). */
	if (o->warmup > 0 || !o->iters) {
		ret = time_batch(&b, IMPL_RAW, cal, &r->warm_raw_s);
		if (!ret)
			ret = time_batch(&b, IMPL_GFEC, cal, &r->warm_gfec_s);
		if (ret)
			goto out;
	}
	r->iters = o->iters;
	if (!r->iters) {
		per_iter = (r->warm_raw_s > r->warm_gfec_s ? r->warm_raw_s : r->warm_gfec_s) / cal;
		r->iters = per_iter > 0 ? (long)(TARGET_SECONDS / per_iter + 0.999) : 1000000;
		if (r->iters < 1)
			r->iters = 1;
		if (r->iters > 100000000L)
			r->iters = 100000000L;
	}

	for (int rep = 0; rep < o->repeats && !ret; rep++) {
		enum impl first = rep % 2 ? IMPL_GFEC : IMPL_RAW;
		enum impl second = rep % 2 ? IMPL_RAW : IMPL_GFEC;

		ret = time_batch(&b, first, r->iters, first == IMPL_RAW ? &r->raw_s[rep] :
									  &r->gfec_s[rep]);
		if (!ret)
			ret = time_batch(&b, second, r->iters,
					 second == IMPL_RAW ? &r->raw_s[rep] : &r->gfec_s[rep]);
	}
	if (!ret) {
		const double bytes = (double)r->iters * (double)s->k * (double)s->chunk;
		double *raw_g = malloc((size_t)o->repeats * sizeof(double));
		double *gfec_g = malloc((size_t)o->repeats * sizeof(double));

		if (!raw_g || !gfec_g) {
			ret = -1;
		} else {
			for (int i = 0; i < o->repeats; i++) {
				raw_g[i] = bytes / r->raw_s[i] / 1e9;
				gfec_g[i] = bytes / r->gfec_s[i] / 1e9;
			}
			r->raw = perf_summarise(raw_g, o->repeats);
			r->gfec = perf_summarise(gfec_g, o->repeats);
		}
		free(raw_g);
		free(gfec_g);
	}
out:
	raw_destroy(&raw);
	gfec_codec_free(b.codec);
	return ret ? -1 : 0;
}

/* ------------------------------------------------------------------ output */

static bool unstable(const struct row *r)
{
	return r->raw.spread > SPREAD_WARN || r->gfec.spread > SPREAD_WARN;
}

static void print_row(const struct row *r)
{
	char code[24], chunk[24];

	snprintf(code, sizeof(code), "RS(%d,%d)", r->k, r->m);
	perf_fmt_size(chunk, sizeof(chunk), r->chunk);
	printf("%-9s %6s %3d %4d %6ld  %7.3f [%7.3f..%7.3f]  %7.3f [%7.3f..%7.3f]  %8.3f  "
	       "%4.1f%%/%4.1f%%%s\n",
	       code, chunk, r->threads, r->nsets, r->iters, r->raw.median, r->raw.min, r->raw.max,
	       r->gfec.median, r->gfec.min, r->gfec.max, r->gfec.median / r->raw.median,
	       100 * r->raw.spread, 100 * r->gfec.spread, unstable(r) ? " !" : "");
	fflush(stdout);
}

static const struct row *find_row(const struct row *rows, int nrows, int k, int m, int t)
{
	for (int i = 0; i < nrows; i++)
		if (rows[i].k == k && rows[i].m == m && rows[i].threads == t)
			return &rows[i];
	return NULL;
}

static void print_scaling(const struct opts *o, const struct row *rows, int nrows)
{
	bool header = false;

	for (int c = 0; c < o->ncodes; c++) {
		const struct code *cd = &o->codes[c];
		const struct row *base = find_row(rows, nrows, cd->k, cd->m, 1);
		char code[24];

		snprintf(code, sizeof(code), "RS(%d,%d)", cd->k, cd->m);
		for (int t = 0; t < o->nthreads; t++) {
			const struct row *r = find_row(rows, nrows, cd->k, cd->m, o->threads[t]);

			if (!r || r->threads == 1)
				continue;
			if (!base) {
				printf("# scaling: no 1-thread row for %s, add 1 to -t\n", code);
				break;
			}
			if (!header) {
				printf("\n# scaling: median GB/s of T threads over 1-thread raw "
				       "ISA-L (ideal = T)\n");
				printf("%-9s %3s  %14s  %13s  %15s  %16s\n", "code", "thr",
				       "gfec(T)/raw(1)", "raw(T)/raw(1)", "gfec(T)/gfec(1)",
				       "gfec(T)/raw(1)/T");
				header = true;
			}
			printf("%-9s %3d  %14.3f  %13.3f  %15.3f  %16.3f\n", code, r->threads,
			       r->gfec.median / base->raw.median, r->raw.median / base->raw.median,
			       r->gfec.median / base->gfec.median,
			       r->gfec.median / base->raw.median / r->threads);
		}
	}
}


static void json_array(FILE *f, const double *v, int n, double scale_num)
{
	fputc('[', f);
	for (int i = 0; i < n; i++)
		fprintf(f, "%s%.9g", i ? ", " : "", scale_num ? scale_num / v[i] : v[i]);
	fputc(']', f);
}

static void json_impl(FILE *f, const char *name, const double *secs, const struct perf_summary *s,
		      int n, double gb)
{
	fprintf(f, "      \"%s\": {\"median_gbps\": %.6g, \"min_gbps\": %.6g, \"max_gbps\": %.6g, "
		   "\"spread\": %.6g,\n        \"gbps\": ",
		name, s->median, s->min, s->max, s->spread);
	json_array(f, secs, n, gb);
	fprintf(f, ",\n        \"seconds\": ");
	json_array(f, secs, n, 0);
	fprintf(f, "}");
}

static int write_json(const char *path, const struct opts *o, const char *cmdline, int argc,
		      char **argv, const char *cpu, long ncpu, size_t l3, const struct row *rows,
		      int nrows, double total_s)
{
	FILE *f = fopen(path, "w");
	struct utsname un;
	char stamp[64] = "";
	time_t t = time(NULL);
	struct tm tm;

	if (!f) {
		fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (gmtime_r(&t, &tm))
		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (uname(&un))
		memset(&un, 0, sizeof(un));

	fprintf(f, "{\n  \"tool\": \"gfec-bench-cpu\",\n  \"command_line\": ");
	perf_json_str(f, cmdline);
	fprintf(f, ",\n  \"argv\": [");
	for (int i = 0; i < argc; i++) {
		fprintf(f, "%s", i ? ", " : "");
		perf_json_str(f, argv[i]);
	}
	fprintf(f, "],\n  \"unit\": \"GB/s = 1e9 bytes of data (k * chunk per encode) per "
		   "second\",\n  \"timestamp_utc\": ");
	perf_json_str(f, stamp);
	fprintf(f, ",\n  \"machine\": {\"cpu_model\": ");
	perf_json_str(f, cpu);
	fprintf(f, ", \"online_cpus\": %ld, \"l3_bytes\": %zu, \"kernel\": ", ncpu, l3);
	perf_json_str(f, un.release);
	fprintf(f, ", \"arch\": ");
	perf_json_str(f, un.machine);
	fprintf(f, "},\n  \"gfec_version\": ");
	perf_json_str(f, gfec_version());
	fprintf(f, ",\n  \"isal_version_built_against\": ");
	perf_json_str(f, GFEC_BENCH_ISAL_VERSION);
	fprintf(f, ",\n  \"settings\": {\"chunk_bytes\": %zu, \"warmup\": %d, "
		   "\"iters_given\": %ld, "
		   "\"repeats\": %d, \"hot\": %s, \"rotate_min_bytes\": %llu, "
		   "\"rotate_min_sets\": %d, \"target_seconds_per_repeat\": %g, "
		   "\"raw_threads\": \"persistent pthreads (caller is one), barrier per "
		   "encode\"},\n",
		o->chunk, o->warmup, o->iters, o->repeats, o->hot ? "true" : "false",
		ROTATE_MIN_BYTES, ROTATE_MIN_SETS,
		TARGET_SECONDS);
	fprintf(f, "  \"total_seconds\": %.3f,\n  \"rows\": [\n", total_s);
	for (int i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];
		const double gb = (double)r->iters * r->k * (double)r->chunk / 1e9;

		fprintf(f, "    {\"k\": %d, \"m\": %d, \"threads\": %d, \"chunk_bytes\": %zu, "
			   "\"sets\": %d, \"rotated_bytes\": %zu, \"iters\": %ld,\n"
			   "      \"data_bytes_per_repeat\": %.0f, \"gfec_backend\": ",
			r->k, r->m, r->threads, r->chunk, r->nsets, r->rotated_bytes, r->iters,
			gb * 1e9);
		perf_json_str(f, r->backend);
		fprintf(f, ", \"warmup_seconds_raw\": %.6g, \"warmup_seconds_gfec\": %.6g,\n",
			r->warm_raw_s, r->warm_gfec_s);
		json_impl(f, "raw_isal", r->raw_s, &r->raw, o->repeats, gb);
		fprintf(f, ",\n");
		json_impl(f, "gfec", r->gfec_s, &r->gfec, o->repeats, gb);
		fprintf(f, ",\n      \"ratio_gfec_over_raw\": %.6g, \"ratio_per_repeat\": [",
			r->gfec.median / r->raw.median);
		for (int j = 0; j < o->repeats; j++)
			fprintf(f, "%s%.6g", j ? ", " : "", r->raw_s[j] / r->gfec_s[j]);
		fprintf(f, "], \"unstable\": %s}%s\n", unstable(r) ? "true" : "false",
			i + 1 < nrows ? "," : "");
	}
	fprintf(f, "  ]\n}\n");
	if (fclose(f)) {
		fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ main */

int main(int argc, char **argv)
{
	struct opts o;
	char cmdline[4096], cpu[256], iters[64];
	const long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	const size_t l3 = perf_l3_bytes();
	const double t_start = perf_now();
	struct row *rows;
	int nrows = 0, status = 0;
	gfec_codec *probe = NULL;
	char probe_backend[32] = "?";

	if (parse_args(argc, argv, &o))
		return 2;
	perf_command_line(argc, argv, cmdline, sizeof(cmdline));
	perf_cpu_model(cpu, sizeof(cpu));
	if (gfec_codec_create("k=4 m=2 technique=cauchy backend=cpu threads=1", &probe, NULL, 0) ==
	    0) {
		snprintf(probe_backend, sizeof(probe_backend), "%s", gfec_codec_backend(probe));
		gfec_codec_free(probe);
	}
	if (o.iters)
		snprintf(iters, sizeof(iters), "%ld", o.iters);
	else
		snprintf(iters, sizeof(iters), "auto (~%.1f s of the slower one)", TARGET_SECONDS);

	printf("# reproduce: %s\n", cmdline);
	printf("# gfec-bench-cpu: gfec_encode (technique=cauchy backend=cpu threads=T) vs raw "
	       "ISA-L ec_encode_data\n");
	printf("# machine: %s, %ld online CPUs, L3 %zu MiB; gfec %s (%s), ISA-L %s\n", cpu, ncpu,
	       l3 >> 20, gfec_version(), probe_backend, GFEC_BENCH_ISAL_VERSION);
	printf("# GB/s = 10^9 bytes of DATA (k x chunk per encode, parity not counted) per second;"
	       " median of %d repeats\n",
	       o.repeats);
	if (o.hot)
		printf("# data: --hot, one stripe set reused (in-cache numbers)\n");
	else
		printf("# data: from DRAM, each encode takes the next of 'sets' stripe sets "
		       "(>= %d sets, >= %zu MiB)\n",
		       ROTATE_MIN_SETS,
		       (size_t)((ROTATE_MIN_BYTES > 4 * l3 ? ROTATE_MIN_BYTES : 4 * l3) >> 20));
	printf("# warm-up %d, iters per repeat %s; raw and gfec alternate first per repeat\n",
	       o.warmup, iters);
	printf("# raw T>1: T-1 persistent pthreads + caller, contiguous 64 B-aligned ranges, "
	       "barrier per encode\n");
	printf("# parity checked byte for byte (gfec == raw ISA-L) before timing; '!' = spread "
	       "(max-min)/median > %.0f%%\n",
	       100 * SPREAD_WARN);
	for (int t = 0; t < o.nthreads; t++)
		if (ncpu > 0 && o.threads[t] > ncpu)
			printf("# note: %d threads > %ld online CPUs\n", o.threads[t], ncpu);
	printf("%-9s %6s %3s %4s %6s  %-26s  %-26s  %8s  %s\n", "code", "chunk", "thr", "sets",
	       "iters", "raw ISA-L GB/s [min..max]", "gfec GB/s [min..max]", "gfec/raw",
	       "spread raw/gfec");
	fflush(stdout);

	rows = calloc((size_t)o.ncodes * (size_t)o.nthreads, sizeof(*rows));
	if (!rows)
		return 2;
	for (int c = 0; c < o.ncodes && !status; c++) {
		struct stripes s;

		if (stripes_alloc(&s, o.codes[c].k, o.codes[c].m, o.chunk, o.hot, l3)) {
			status = 2;
			break;
		}
		for (int t = 0; t < o.nthreads; t++) {
			if (run_row(&s, &o, o.threads[t], &rows[nrows])) {
				status = 1;
				break;
			}
			print_row(&rows[nrows++]);
		}
		stripes_free(&s);
	}
	if (!status) {
		print_scaling(&o, rows, nrows);
		printf("# total run time %.1f s\n", perf_now() - t_start);
		if (o.json && write_json(o.json, &o, cmdline, argc, argv, cpu, ncpu, l3, rows,
					 nrows, perf_now() - t_start))
			status = 2;
	}
	for (int i = 0; i < o.ncodes * o.nthreads; i++) {
		free(rows[i].raw_s);
		free(rows[i].gfec_s);
	}
	free(rows);
	return status;
}
