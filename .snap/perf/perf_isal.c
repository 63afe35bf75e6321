/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file perf_isal.c
 * Raw ISA-L (see perf_isal.h for its one definition) and `gfec-perf isal`: does gfec's CPU path
 * (profile "k=K m=M technique=cauchy backend=cpu threads=T", then gfec_encode()) cost anything over
 * calling ISA-L directly? With --isal-lib, another libisal.so.2 (say upstream ISA-L with GFNI
 * kernels) runs its raw ec_init_tables + ec_encode_data in the same run, on the same data.
 *
 * How it measures: every implementation encodes the same stripe sets with the same Cauchy matrix,
 * and their parity is compared byte for byte before anything is timed (a difference is exit 1).
 * Each encode takes the next of at least 8 sets covering at least max(256 MiB, 4 x L3), so data
 * comes from DRAM (--hot: one set, the in-cache number); the rotation carries on from one timed
 * batch to the next. Warm-up, then R repeats of n encodes per implementation, the order of the
 * implementations rotating per repeat so that drift hits all. GB/s = 10^9 data bytes (k x chunk
 * per encode) per second; spread = (max - min) / median over the repeats, '!' above 10%.
 */
#include "perf_isal.h"

#include <dlfcn.h>
#include <isa-l/erasure_code.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gfec/gfec.h>

#include "gfec_perf.h"
#include "perf_util.h"

#ifndef GFEC_PERF_ISAL_VERSION
#define GFEC_PERF_ISAL_VERSION "unknown"
#endif

#define ROTATE_MIN_BYTES ((size_t)256 << 20)
#define ROTATE_MIN_SETS 8
#define TARGET_SECONDS 0.2
#define SPREAD_WARN 0.10
#define SEED 0x9e3779b97f4a7c15ull

/* ------------------------------------------------------------------ the ISA-L entry points */

void perf_isal_linked(struct perf_isal_api *api)
{
	api->init_tables = ec_init_tables;
	api->encode = ec_encode_data;
	api->handle = NULL;
}

/*
 * RTLD_DEEPBIND: the library's calls to its own kernels must not bind to the linked ISA-L's
 * functions of the same names. AddressSanitizer refuses it (its interceptors would be bypassed), so
 * a sanitizer build loads without it: good for testing the mode, not for measuring another ISA-L.
 */
#if defined(__SANITIZE_ADDRESS__)
#define ISAL_DLOPEN_FLAGS (RTLD_NOW | RTLD_LOCAL)
#else
#define ISAL_DLOPEN_FLAGS (RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND)
#endif

int perf_isal_load(const char *path, struct perf_isal_api *api, char *err, size_t errlen)
{
	void *h = dlopen(path, ISAL_DLOPEN_FLAGS);

	memset(api, 0, sizeof(*api));
	if (!h) {
		snprintf(err, errlen, "--isal-lib: %s", dlerror());
		return -1;
	}
	*(void **)&api->init_tables = dlsym(h, "ec_init_tables");
	*(void **)&api->encode = dlsym(h, "ec_encode_data");
	if (!api->init_tables || !api->encode) {
		snprintf(err, errlen, "--isal-lib %s: no ec_init_tables/ec_encode_data in it", path);
		dlclose(h);
		memset(api, 0, sizeof(*api));
		return -1;
	}
	api->handle = h;
	return 0;
}

void perf_isal_unload(struct perf_isal_api *api)
{
	if (api->handle)
		dlclose(api->handle);
	memset(api, 0, sizeof(*api));
}

/* ------------------------------------------------------------------ stripe sets */

int perf_stripes_alloc(struct perf_stripes *s, int k, int m, size_t chunk, size_t min_bytes,
		       int min_sets, uint64_t seed)
{
	const size_t nchunks = (size_t)(k + m);
	size_t set_bytes;

	*s = (struct perf_stripes){ .k = k, .m = m, .chunk = chunk };
	s->stride = (chunk + 63) & ~(size_t)63;
	set_bytes = nchunks * s->stride;
	s->nsets = (int)((min_bytes + set_bytes - 1) / set_bytes);
	s->nsets = s->nsets < min_sets ? min_sets : s->nsets;
	s->bytes = (size_t)s->nsets * set_bytes;
	if (posix_memalign((void **)&s->mem, 64, s->bytes)) {
		s->mem = NULL;
		return -1;
	}
	s->ptr = malloc((size_t)s->nsets * nchunks * sizeof(*s->ptr));
	if (!s->ptr) {
		perf_stripes_free(s);
		return -1;
	}
	for (size_t i = 0; i < (size_t)s->nsets * nchunks; i++) {
		uint8_t *p = s->mem + i * s->stride;

		s->ptr[i] = p;
		if (i % nchunks < (size_t)k)
			perf_fill_random(p, s->stride, seed ^ i);
		else
			memset(p, 0, s->stride); /* fault the pages in before timing */
	}
	return 0;
}

void perf_stripes_free(struct perf_stripes *s)
{
	free(s->ptr);
	free(s->mem);
	s->ptr = NULL;
	s->mem = NULL;
}

uint8_t **perf_stripes_next(struct perf_stripes *s)
{
	uint8_t **set = s->ptr + (size_t)s->next * (size_t)(s->k + s->m);

	if (++s->next == s->nsets)
		s->next = 0;
	return set;
}

/* ------------------------------------------------------------------ raw ISA-L on T threads */

struct perf_isal_pool {
	struct perf_isal_api api;
	int nthreads, k, m, quit;
	uint8_t *tbls;
	size_t *off;   /* range i is [off[i], off[i+1]) */
	uint8_t **set; /* the stripe of the current encode; published by the start barrier */
	pthread_mutex_t ready; /* held until every worker exists and the barriers are set up */
	pthread_barrier_t start, done;
	pthread_t *tid;
	struct isal_worker {
		struct perf_isal_pool *pool;
		int idx;
	} *w;
};

static void pool_range(const struct perf_isal_pool *p, uint8_t **set, int idx)
{
	uint8_t *src[256], *dst[256];
	const size_t lo = p->off[idx], hi = p->off[idx + 1];

	if (hi <= lo)
		return;
	for (int i = 0; i < p->k; i++)
		src[i] = set[i] + lo;
	for (int i = 0; i < p->m; i++)
		dst[i] = set[p->k + i] + lo;
	p->api.encode((int)(hi - lo), p->k, p->m, p->tbls, src, dst);
}

static void *pool_worker(void *arg)
{
	struct isal_worker *w = arg;
	struct perf_isal_pool *p = w->pool;
	int quit;

	pthread_mutex_lock(&p->ready);
	quit = p->quit;
	pthread_mutex_unlock(&p->ready);
	while (!quit) {
		pthread_barrier_wait(&p->start);
		if (p->quit)
			break;
		pool_range(p, p->set, w->idx);
		pthread_barrier_wait(&p->done);
	}
	return NULL;
}

void perf_isal_pool_encode(struct perf_isal_pool *p, uint8_t **set)
{
	if (p->nthreads == 1) {
		pool_range(p, set, 0);
		return;
	}
	p->set = set;
	pthread_barrier_wait(&p->start);
	pool_range(p, set, 0);
	pthread_barrier_wait(&p->done);
}

void perf_isal_pool_free(struct perf_isal_pool *p)
{
	if (!p)
		return;
	if (p->nthreads > 1 && p->tid) {
		p->quit = 1;
		pthread_barrier_wait(&p->start);
		for (int i = 1; i < p->nthreads; i++)
			pthread_join(p->tid[i], NULL);
		pthread_barrier_destroy(&p->start);
		pthread_barrier_destroy(&p->done);
	}
	pthread_mutex_destroy(&p->ready);
	free(p->tid);
	free(p->w);
	free(p->off);
	free(p->tbls);
	free(p);
}

int perf_isal_pool_create(struct perf_isal_pool **out, const struct perf_isal_api *api, int k, int m,
			  size_t len, int nthreads)
{
	struct perf_isal_pool *p = calloc(1, sizeof(*p));
	uint8_t *a = malloc((size_t)(k + m) * (size_t)k);
	size_t per;
	int started = 1;

	*out = NULL;
	if (!p || !a || nthreads < 1) {
		free(p);
		free(a);
		return -1;
	}
	pthread_mutex_init(&p->ready, NULL);
	p->api = *api, p->nthreads = 1, p->k = k, p->m = m;
	p->tbls = malloc(32u * (size_t)k * (size_t)m);
	p->off = malloc(((size_t)nthreads + 1) * sizeof(*p->off));
	p->tid = calloc((size_t)nthreads, sizeof(*p->tid));
	p->w = calloc((size_t)nthreads, sizeof(*p->w));
	if (!p->tbls || !p->off || !p->tid || !p->w)
		goto fail;
	/* the same matrix for every ISA-L: the linked generator's */
	gf_gen_cauchy1_matrix(a, k + m, k);
	p->api.init_tables(k, m, a + (size_t)k * (size_t)k, p->tbls);

	/* T contiguous ranges, each starting at a multiple of 64 bytes */
	per = ((len + (size_t)nthreads - 1) / (size_t)nthreads + 63) & ~(size_t)63;
	for (int i = 0; i <= nthreads; i++)
		p->off[i] = (size_t)i * per < len ? (size_t)i * per : len;

	pthread_mutex_lock(&p->ready);
	for (; started < nthreads; started++) {
		p->w[started] = (struct isal_worker){ p, started };
		if (pthread_create(&p->tid[started], NULL, pool_worker, &p->w[started]) != 0)
			break;
	}
	if (started < nthreads) {
		/* the workers that exist see quit before touching a barrier */
		p->quit = 1;
		pthread_mutex_unlock(&p->ready);
		for (int i = 1; i < started; i++)
			pthread_join(p->tid[i], NULL);
		goto fail;
	}
	p->nthreads = nthreads;
	if (nthreads > 1) {
		pthread_barrier_init(&p->start, NULL, (unsigned)nthreads);
		pthread_barrier_init(&p->done, NULL, (unsigned)nthreads);
	}
	pthread_mutex_unlock(&p->ready);
	free(a);
	*out = p;
	return 0;
fail:
	free(a);
	free(p->tid);
	p->tid = NULL;
	p->nthreads = 1;
	perf_isal_pool_free(p);
	return -1;
}

double perf_isal_gbps(const struct perf_isal_api *api, struct perf_stripes *s, int threads,
		      double *spread)
{
	struct perf_isal_pool *pool;
	struct perf_summary sum;
	double t0, t, g[3];
	long iters;

	*spread = 0;
	if (perf_isal_pool_create(&pool, api, s->k, s->m, s->chunk, threads))
		return 0;
	/* calibrate: about 0.1 s per run */
	t0 = perf_now();
	for (int i = 0; i < 3; i++)
		perf_isal_pool_encode(pool, perf_stripes_next(s));
	t = (perf_now() - t0) / 3;
	iters = (long)(0.1 / (t > 1e-7 ? t : 1e-7));
	iters = iters < 5 ? 5 : iters;
	/* the best of three: what the machine can do */
	for (int trial = 0; trial < 3; trial++) {
		t0 = perf_now();
		for (long i = 0; i < iters; i++)
			perf_isal_pool_encode(pool, perf_stripes_next(s));
		t = perf_now() - t0;
		g[trial] = (double)s->k * (double)s->chunk * (double)iters / t / 1e9;
	}
	perf_isal_pool_free(pool);
	sum = perf_summarise(g, 3);
	*spread = sum.spread;
	return sum.max;
}

/* ------------------------------------------------------------------ gfec-perf isal */

enum { IMPL_RAW, IMPL_LIB, IMPL_GFEC, NIMPL };
static const char *const impl_names[NIMPL] = { "raw_isal", "raw_isal_lib", "gfec" };

struct isal_row {
	int k, m, threads, nsets;
	size_t chunk, rotated_bytes;
	long iters;
	char backend[32];
	double *secs[NIMPL]; /* per repeat, n encodes; NULL where the implementation is absent */
	struct perf_summary gbps[NIMPL];
};

struct isal_bench {
	struct perf_stripes *s;
	struct perf_isal_pool *pool[2]; /* linked, --isal-lib */
	gfec_codec *codec;
};

static int encode_one(struct isal_bench *b, int impl, uint8_t **set)
{
	if (impl != IMPL_GFEC) {
		perf_isal_pool_encode(b->pool[impl], set);
		return 0;
	}
	return gfec_encode(b->codec, (const uint8_t *const *)set, set + b->s->k, b->s->chunk);
}

static int time_batch(struct isal_bench *b, int impl, long n, double *secs)
{
	const double t0 = perf_now();

	for (long i = 0; i < n; i++) {
		int ret = encode_one(b, impl, perf_stripes_next(b->s));

		if (ret) {
			fprintf(stderr, "gfec-perf isal: gfec_encode: %s\n", gfec_strerror(ret));
			return -1;
		}
	}
	*secs = perf_now() - t0;
	return 0;
}

/* Every implementation's parity equals the linked raw ISA-L's, for the first and the last set. */
static int check_parity(struct isal_bench *b, int nimpl_present, const int *impls)
{
	const int k = b->s->k, m = b->s->m;
	const size_t len = b->s->chunk, stride = b->s->stride;
	uint8_t *mem = NULL, *set[NIMPL][256];
	int ret = 0;

	if (posix_memalign((void **)&mem, 64, (size_t)NIMPL * (size_t)m * stride))
		return -1;
	for (int which = 0; which < 2 && !ret; which++) {
		uint8_t **data = b->s->ptr + (size_t)(which ? b->s->nsets - 1 : 0) * (size_t)(k + m);

		for (int j = 0; j < nimpl_present && !ret; j++) {
			for (int i = 0; i < k; i++)
				set[j][i] = data[i];
			for (int i = 0; i < m; i++) {
				set[j][k + i] = mem + ((size_t)j * m + i) * stride;
				memset(set[j][k + i], 0xa5 + j, len);
			}
			ret = encode_one(b, impls[j], set[j]);
		}
		for (int j = 1; j < nimpl_present && !ret; j++)
			for (int i = 0; i < m && !ret; i++)
				if (memcmp(set[0][k + i], set[j][k + i], len) != 0) {
					fprintf(stderr,
						"gfec-perf isal: PARITY MISMATCH RS(%d,%d) threads=%d "
						"parity %d: %s differs from raw_isal\n",
						k, m, b->pool[0]->nthreads, i, impl_names[impls[j]]);
					ret = -1;
				}
	}
	free(mem);
	return ret;
}

static int run_row(struct perf_stripes *s, const struct perf_opts *o,
		   const struct perf_isal_api *lib, int threads, struct isal_row *r)
{
	struct perf_isal_api linked;
	struct isal_bench b = { .s = s };
	int impls[NIMPL], nimpl = 0, ret = -1;
	char profile[128], err[256];
	double warm[NIMPL] = { 0 }, slowest = 0;
	long cal = o->warmup > 0 ? o->warmup : 1;

	*r = (struct isal_row){ .k = s->k, .m = s->m, .threads = threads, .nsets = s->nsets,
				.chunk = s->chunk, .rotated_bytes = s->bytes };
	perf_isal_linked(&linked);
	snprintf(profile, sizeof(profile), "k=%d m=%d technique=cauchy backend=cpu threads=%d",
		 s->k, s->m, threads);
	if (gfec_codec_create(profile, &b.codec, err, sizeof(err))) {
		fprintf(stderr, "gfec-perf isal: \"%s\": %s\n", profile, err);
		return -1;
	}
	snprintf(r->backend, sizeof(r->backend), "%s", gfec_codec_backend(b.codec));
	if (perf_isal_pool_create(&b.pool[0], &linked, s->k, s->m, s->chunk, threads) ||
	    (lib->handle &&
	     perf_isal_pool_create(&b.pool[1], lib, s->k, s->m, s->chunk, threads))) {
		fprintf(stderr, "gfec-perf isal: cannot start %d raw ISA-L threads\n", threads);
		goto out;
	}
	impls[nimpl++] = IMPL_RAW;
	if (b.pool[1])
		impls[nimpl++] = IMPL_LIB;
	impls[nimpl++] = IMPL_GFEC;
	for (int j = 0; j < nimpl; j++) {
		r->secs[impls[j]] = calloc((size_t)o->repeats, sizeof(double));
		if (!r->secs[impls[j]])
			goto out;
	}
	if (check_parity(&b, nimpl, impls))
		goto out;
	for (int j = 0; j < nimpl; j++) {
		if (time_batch(&b, impls[j], cal, &warm[impls[j]]))
			goto out;
		slowest = warm[impls[j]] > slowest ? warm[impls[j]] : slowest;
	}
	r->iters = o->iters;
	if (!r->iters) {
		const double per = slowest / (double)cal;

		r->iters = per > 0 ? (long)(TARGET_SECONDS / per + 0.999) : 1000000;
		r->iters = r->iters < 1 ? 1 : r->iters > 100000000L ? 100000000L : r->iters;
	}
	for (int rep = 0; rep < o->repeats; rep++)
		for (int j = 0; j < nimpl; j++) {
			const int impl = impls[(j + rep) % nimpl];

			if (time_batch(&b, impl, r->iters, &r->secs[impl][rep]))
				goto out;
		}
	{
		const double bytes = (double)r->iters * s->k * (double)s->chunk;
		double g[1000];

		for (int j = 0; j < nimpl; j++) {
			for (int i = 0; i < o->repeats; i++)
				g[i] = bytes / r->secs[impls[j]][i] / 1e9;
			r->gbps[impls[j]] = perf_summarise(g, o->repeats);
		}
	}
	ret = 0;
out:
	perf_isal_pool_free(b.pool[0]);
	perf_isal_pool_free(b.pool[1]);
	gfec_codec_free(b.codec);
	return ret;
}

static int unstable(const struct isal_row *r)
{
	for (int i = 0; i < NIMPL; i++)
		if (r->secs[i] && r->gbps[i].spread > SPREAD_WARN)
			return 1;
	return 0;
}

static double ratio(const struct isal_row *r, int a, int b)
{
	return r->secs[a] && r->secs[b] && r->gbps[b].median > 0
		       ? r->gbps[a].median / r->gbps[b].median
		       : 0;
}

static void print_row(const struct isal_row *r, int have_lib)
{
	char code[24], chunk[24], lib[64] = "";

	snprintf(code, sizeof(code), "RS(%d,%d)", r->k, r->m);
	perf_fmt_size(chunk, sizeof(chunk), r->chunk);
	if (have_lib)
		snprintf(lib, sizeof(lib), " %8.2f %9.3f %9.3f", r->gbps[IMPL_LIB].median,
			 ratio(r, IMPL_GFEC, IMPL_LIB), ratio(r, IMPL_LIB, IMPL_RAW));
	printf("%-9s %6s %3d %4d %6ld %8.2f %8.2f %9.3f%s %5.1f%%%s\n", code, chunk, r->threads,
	       r->nsets, r->iters, r->gbps[IMPL_RAW].median, r->gbps[IMPL_GFEC].median,
	       ratio(r, IMPL_GFEC, IMPL_RAW), lib,
	       100 * (r->gbps[IMPL_RAW].spread > r->gbps[IMPL_GFEC].spread
			      ? r->gbps[IMPL_RAW].spread
			      : r->gbps[IMPL_GFEC].spread),
	       unstable(r) ? " !" : "");
	fflush(stdout);
}

static json_t *json_impl(const struct isal_row *r, int impl, int repeats)
{
	const double gb = (double)r->iters * r->k * (double)r->chunk / 1e9;
	json_t *o = json_object(), *g = json_array(), *sec = json_array();

	for (int i = 0; i < repeats; i++) {
		json_array_append_new(g, json_real(gb / r->secs[impl][i]));
		json_array_append_new(sec, json_real(r->secs[impl][i]));
	}
	json_object_set_new(o, "median_GBps", json_real(r->gbps[impl].median));
	json_object_set_new(o, "min_GBps", json_real(r->gbps[impl].min));
	json_object_set_new(o, "max_GBps", json_real(r->gbps[impl].max));
	json_object_set_new(o, "spread", json_real(r->gbps[impl].spread));
	json_object_set_new(o, "GBps", g);
	json_object_set_new(o, "seconds", sec);
	return o;
}

static int write_json(const struct perf_opts *o, const char *cmdline, const struct isal_row *rows,
		      int nrows)
{
	json_t *doc = json_object(), *settings = json_object(), *arr = json_array();
	int ret;

	json_object_set_new(doc, "schema", json_string("gfec-perf-isal/1"));
	json_object_set_new(doc, "command", json_string(cmdline));
	json_object_set_new(doc, "units", json_string("GB/s = 1e9 data bytes (k x chunk per encode) "
						      "per second"));
	json_object_set_new(doc, "machine", perf_json_machine());
	json_object_set_new(doc, "gfec_version", json_string(gfec_version()));
	json_object_set_new(doc, "isal_version", json_string(GFEC_PERF_ISAL_VERSION));
	json_object_set_new(doc, "isal_lib", o->isal_lib ? json_string(o->isal_lib) : json_null());
	json_object_set_new(settings, "warmup", json_integer(o->warmup));
	json_object_set_new(settings, "iters_given", json_integer(o->iters));
	json_object_set_new(settings, "repeats", json_integer(o->repeats));
	json_object_set_new(settings, "hot", json_boolean(o->hot));
	json_object_set_new(settings, "raw_threads",
			    json_string("T-1 persistent pthreads + the caller, contiguous 64 B "
					"ranges, a barrier per encode"));
	json_object_set_new(doc, "settings", settings);
	for (int i = 0; i < nrows; i++) {
		const struct isal_row *r = &rows[i];
		json_t *row = json_object(), *ratios = json_object();

		json_object_set_new(row, "k", json_integer(r->k));
		json_object_set_new(row, "m", json_integer(r->m));
		json_object_set_new(row, "threads", json_integer(r->threads));
		json_object_set_new(row, "chunk", json_integer((json_int_t)r->chunk));
		json_object_set_new(row, "sets", json_integer(r->nsets));
		json_object_set_new(row, "rotated_bytes", json_integer((json_int_t)r->rotated_bytes));
		json_object_set_new(row, "iters", json_integer(r->iters));
		json_object_set_new(row, "gfec_backend", json_string(r->backend));
		for (int impl = 0; impl < NIMPL; impl++)
			if (r->secs[impl])
				json_object_set_new(row, impl_names[impl],
						    json_impl(r, impl, o->repeats));
		json_object_set_new(ratios, "gfec_over_raw_isal",
				    json_real(ratio(r, IMPL_GFEC, IMPL_RAW)));
		if (r->secs[IMPL_LIB]) {
			json_object_set_new(ratios, "gfec_over_raw_isal_lib",
					    json_real(ratio(r, IMPL_GFEC, IMPL_LIB)));
			json_object_set_new(ratios, "raw_isal_lib_over_raw_isal",
					    json_real(ratio(r, IMPL_LIB, IMPL_RAW)));
		}
		json_object_set_new(row, "ratios", ratios);
		json_object_set_new(row, "unstable", json_boolean(unstable(r)));
		json_array_append_new(arr, row);
	}
	json_object_set_new(doc, "rows", arr);
	ret = perf_json_write(o->json, doc);
	json_decref(doc);
	if (ret)
		fprintf(stderr, "gfec-perf isal: %s: %s\n", o->json, strerror(-ret));
	return ret;
}

int perf_isal_main(int argc, char **argv)
{
	struct perf_opts o;
	struct perf_isal_api lib = { 0 };
	struct isal_row *rows = NULL;
	char err[512], cmd[2048] = "gfec-perf ", cpu[128];
	const long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	const size_t l3 = perf_l3_bytes();
	const size_t rotate = ROTATE_MIN_BYTES > 4 * l3 ? ROTATE_MIN_BYTES : 4 * l3;
	int threads[2], nthreads, nrows = 0, status = 0;
	size_t sizes[64];
	int nsizes = 0;

	if (perf_parse_args(argc, argv, &o, err, sizeof(err)) ||
	    perf_check_mode(&o, PERF_MODE_ISAL, err, sizeof(err))) {
		fprintf(stderr, "gfec-perf isal: %s\n", err);
		return 2;
	}
	if (o.help) {
		perf_isal_usage(stdout);
		return 0;
	}
	if (o.isal_lib && perf_isal_load(o.isal_lib, &lib, err, sizeof(err))) {
		fprintf(stderr, "gfec-perf isal: %s\n", err);
		return 2;
	}
	threads[0] = 1;
	threads[1] = o.threads ? o.threads : (int)ncpu;
	nthreads = threads[1] > 1 ? 2 : 1;
	for (size_t sz = o.minb; sz <= o.maxb && nsizes < 64; sz *= (size_t)o.factor)
		sizes[nsizes++] = sz;
	perf_command_line(argc, argv, cmd + strlen(cmd), sizeof(cmd) - strlen(cmd));
	perf_cpu_model(cpu, sizeof(cpu));
	printf("# reproduce: %s\n", cmd);
	printf("# gfec_encode (technique=cauchy backend=cpu threads=T) vs raw ISA-L ec_encode_data"
	       "\n# machine: %s, %ld online CPUs, L3 %zu MiB; gfec %s, linked ISA-L %s%s%s\n",
	       cpu, ncpu, l3 >> 20, gfec_version(), GFEC_PERF_ISAL_VERSION,
	       o.isal_lib ? ", --isal-lib " : "", o.isal_lib ? o.isal_lib : "");
	printf("# GB/s = 10^9 data bytes (k x chunk per encode) per second, median of %d repeats; "
	       "data %s\n",
	       o.repeats,
	       o.hot ? "from one stripe set (--hot: in cache)"
		     : "rotated over >= 8 stripe sets and >= max(256 MiB, 4 x L3) (DRAM)");
	printf("# raw ISA-L on T threads: T-1 persistent pthreads + the caller, contiguous 64 B "
	       "ranges, a barrier per encode; parity checked equal before timing\n");
	printf("%-9s %6s %3s %4s %6s %8s %8s %9s%s %6s\n", "code", "chunk", "thr", "sets", "iters",
	       "raw GB/s", "gfec", "gfec/raw", lib.handle ? "  lib GB/s  gfec/lib   lib/raw" : "",
	       "spread");
	rows = calloc((size_t)o.ncodes * (size_t)nsizes * 2, sizeof(*rows));
	if (!rows) {
		status = 1;
		goto out;
	}
	for (int c = 0; c < o.ncodes && !status; c++)
		for (int si = 0; si < nsizes && !status; si++) {
			struct perf_stripes s;

			if (perf_stripes_alloc(&s, o.codes[c].k, o.codes[c].m, sizes[si],
					       o.hot ? 0 : rotate, o.hot ? 1 : ROTATE_MIN_SETS,
					       SEED)) {
				fprintf(stderr, "gfec-perf isal: cannot allocate the stripe sets\n");
				status = 1;
				break;
			}
			for (int t = 0; t < nthreads && !status; t++) {
				if (run_row(&s, &o, &lib, threads[t], &rows[nrows]))
					status = 1;
				else
					print_row(&rows[nrows], lib.handle != NULL);
				nrows++;
			}
			perf_stripes_free(&s);
		}
	if (!status && o.json && write_json(&o, cmd, rows, nrows))
		status = 3;
out:
	for (int i = 0; rows && i < nrows; i++)
		for (int j = 0; j < NIMPL; j++)
			free(rows[i].secs[j]);
	free(rows);
	perf_isal_unload(&lib);
	return status;
}
