/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file engine.c
 * Where ec_encode_data() gets its engines: the real ISA-L (loaded by absolute path, since our
 * soname shadows it) and the GPU backend (started on the first large call), driven through
 * gfec's one dispatch module, plugin/engine.c: its CPU executor here is the drop-in's CPU routes
 * (gfec's GFNI kernels, the real ISA-L's own tables, gfec's plain C), and engine.c does the
 * dispatch, the CPU redo after a GPU error (an update resumes where the GPU stopped) and the
 * cache of prepared matrices, keyed by the coefficients.
 *
 * Knobs, read once on the first call through gfec's registry (registry.c; a bad value keeps
 * the default):
 *   GFEC_ISAL_LIB      the real ISA-L to forward to (default: Debian's libisal2, ISAL_REAL_PATH)
 *   GFEC_CPU_PATH      auto (default): gfec's GFNI kernels on CPUs with GFNI, its AVX2 kernel on
 *                      AVX2 CPUs without AVX-512; isal or base: not
 *   GFEC_CPU_STREAM_MIN  GFNI encodes of at least this many bytes per chunk into 64-byte aligned
 *                      outputs write parity by non-temporal stores, as the codec's (0: never;
 *                      auto, the default: 64 KiB on Intel, 4 MiB on AMD, else never)
 *   GFEC_ISAL_GPU_MIN  source bytes (k * len) from which a call tries the GPU: a number with an
 *                      optional K, M, G or T suffix (powers of 1024), or "off" (the default)
 *   GFEC_FAULT=cuda    tests: every GPU call fails
 *
 * Lifetime: liberasurecode dlopens and dlcloses this library several times in one process.
 *  - Without the GPU, all state (the real library's handle, the cache) is made on first use and
 *    released by the destructor at dlclose, so every load starts afresh (valgrind: no growth).
 *  - Once the GPU has started, the library pins itself (RTLD_NODELETE): dlclose leaves it
 *    loaded, and the CUDA context, staging buffers and plans serve the next dlopen. Starting and
 *    tearing down CUDA at every load costs a context (~0.5 GiB of GPU memory, ~0.15 s), and
 *    resident memory grew ~120 KiB per load/unload cycle on the H200 host when it did.
 *    The GPU is released at exit by an atexit() handler registered after it started: exit runs
 *    handlers in reverse order, so that runs before the static cudart's own teardown.
 * teardown() serves both and does its work once. No call may be in flight at unload or exit.
 */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "coalesce.h"
#include "engine.h"
#include "gfec/gfec_errors.h"
#include "isal_abi.h"
#include "matrix.h"
#include "registry.h"

#ifdef GFEC_HAVE_CUDA
#include "gfec_gpu.h"
#endif

#define ISAL_REAL_PATH "/usr/lib/x86_64-linux-gnu/libisal.so.2.0.30"
#define GPU_NEVER UINT64_MAX
/*
 * Default GFEC_ISAL_GPU_MIN: off. Callers of this ABI hand over pageable host memory from the
 * calling thread, so the GPU route pays a copy into pinned staging and back, on that thread, plus
 * PCIe both ways, against one ISA-L thread doing the whole job. On the H200 host (README, "Use
 * with HDFS / Swift") the GPU route ran at 0.73-0.91x of ISA-L for every buffer size from 64 KiB
 * to 64 MiB, and concurrent callers queue on one GPU while ISA-L runs on every core: there is no
 * size from which the GPU is the better default. GFEC_ISAL_GPU_MIN turns it on where it wins.
 */
/* Matrices kept; a process uses a handful (one encode matrix, a few decode patterns). */
#define CACHE_SLOTS 32

static pthread_once_t setup_once = PTHREAD_ONCE_INIT;
static void *real_handle;
static struct isal_real real;
static enum gfec_cpu_path cpu_path = GFEC_CPU_ISAL;
static size_t stream_min;
static uint64_t gpu_min = GPU_NEVER;
static int gpu_fault;
static long long coalesce_us, coalesce_bytes, coalesce_slots, slot_min; /* its coalescer */

static const struct gfec_backend_ops isal_cpu_ops;

/*
 * Two engines, each with its own plan cache (a cached plan is freed through the engine that made
 * it): the CPU alone, and, once the GPU has started, the GPU with the same CPU routes for its
 * redo. A call is sent to the GPU engine by the drop-in's own rule (engine_for), so that
 * engine runs every call it gets on the GPU (gpu_always).
 */
static struct gfec_engine cpu_engine = { .cpu_ops = &isal_cpu_ops };
static struct gfec_plan_cache cpu_cache;
static int caches_ready;
#ifdef GFEC_HAVE_CUDA
static pthread_once_t gpu_once = PTHREAD_ONCE_INIT;
static struct gfec_engine gpu_engine = { .cpu_ops = &isal_cpu_ops, .gpu_always = 1 };
static struct gfec_plan_cache gpu_cache;
static int gpu_started; /* written in gpu_once only */
#endif

/* 1 when @p a and @p b lie in the same loaded object. */
static int same_object(const void *a, const void *b)
{
	Dl_info x, y;

	return dladdr(a, &x) && dladdr(b, &y) && x.dli_fbase == y.dli_fbase;
}

/*
 * RTLD_LOCAL keeps the real library's names out of the global scope, where they would shadow
 * ours for everyone loaded later. RTLD_DEEPBIND binds its calls to itself (ec_encode_data_sse
 * calls ec_encode_data_base, ec_init_tables calls gf_vect_mul_init, ...): when Hadoop has put
 * ours in the global scope (RTLD_GLOBAL), they would bind to ours instead, glibc would then count
 * the real library as a user of ours, and dlclose would unload neither. Debian's 2.30 imports
 * only libc's mem* and str* functions, so it misses no interposed malloc. The sanitizers refuse
 * RTLD_DEEPBIND; their builds keep that pair loaded after an RTLD_GLOBAL load (nothing grows).
 * A path that leads back to this very library (it was installed over Debian's file, say) would
 * make every call forward to itself: that counts as no library.
 */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define REAL_FLAGS (RTLD_NOW | RTLD_LOCAL)
#else
#define REAL_FLAGS (RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND)
#endif

/* The knobs, from the environment through gfec's registry; a bad value keeps the default. */
/* GFEC_CPU_PATH: auto, or a path this CPU lacks, takes the best path this CPU has. */
static enum gfec_cpu_path pick_cpu_path(const char *name)
{
	enum gfec_cpu_path p;

	if (gfec_cpu_path_parse(name, &p) || p == GFEC_CPU_AUTO || !gfec_cpu_path_supported(p))
		return gfec_cpu_path_best();
	return p;
}

static void setup(void)
{
	struct gfec_settings set;
	char err[8];
	const char *path;

	gfec_settings_defaults(&set);
	(void)gfec_settings_env(&set, err, sizeof(err));
	path = set.v[GFEC_KNOB_ISAL_LIB].text;
	gpu_min = set.v[GFEC_KNOB_ISAL_GPU_MIN].num < 0 ? GPU_NEVER
						       : (uint64_t)set.v[GFEC_KNOB_ISAL_GPU_MIN].num;
	gpu_fault = strcmp(set.v[GFEC_KNOB_FAULT].text, "cuda") == 0;
	coalesce_us = set.v[GFEC_KNOB_GPU_COALESCE_US].num;
	coalesce_bytes = set.v[GFEC_KNOB_GPU_COALESCE_BYTES].num;
	coalesce_slots = set.v[GFEC_KNOB_GPU_COALESCE_SLOTS].num;
	slot_min = set.v[GFEC_KNOB_GPU_COALESCE_SLOT_MIN].num;
	cpu_path = pick_cpu_path(set.v[GFEC_KNOB_CPU_PATH].text);
	stream_min = gfec_cpu_stream_min((size_t)set.v[GFEC_KNOB_CPU_STREAM_MIN].num);
	caches_ready = gfec_plan_cache_init(&cpu_cache, CACHE_SLOTS) == 0;
#ifdef GFEC_HAVE_CUDA
	caches_ready = caches_ready && gfec_plan_cache_init(&gpu_cache, CACHE_SLOTS) == 0;
#endif
	real_handle = dlopen(*path ? path : ISAL_REAL_PATH, REAL_FLAGS);
	if (!real_handle)
		return;
	/* POSIX's way to store dlsym()'s object pointer into a function pointer. */
	*(void **)&real.ec_init_tables = dlsym(real_handle, "ec_init_tables");
	*(void **)&real.ec_encode_data = dlsym(real_handle, "ec_encode_data");
	*(void **)&real.ec_encode_data_update = dlsym(real_handle, "ec_encode_data_update");
	if (!real.ec_init_tables || !real.ec_encode_data || !real.ec_encode_data_update ||
	    same_object((const void *)real.ec_encode_data, (const void *)setup)) {
		dlclose(real_handle);
		real_handle = NULL;
	}
}

const struct isal_real *isal_real(void)
{
	pthread_once(&setup_once, setup);
	return real_handle ? &real : NULL;
}

enum gfec_cpu_path isal_cpu_path(void)
{
	pthread_once(&setup_once, setup);
	return cpu_path;
}

size_t isal_stream_min(void)
{
	pthread_once(&setup_once, setup);
	return stream_min;
}

/* ---- the CPU executor: the drop-in's CPU routes as a backend for engine.c ------------------- */

static void cpu_plan_free(void *ctx, void *plan)
{
	struct isal_plan *m = plan;

	free(m->tbls);
	free(m->mats);
	free(m->coef);
	free(m);
}

static int cpu_plan_create(void *ctx, const struct gfec_gemm_matrix *a, void **plan)
{
	const int k = a->cols, rows = a->rows;
	const size_t n = (size_t)k * rows;
	const struct isal_real *r = isal_real();
	const enum gfec_cpu_path path = isal_cpu_path();
	/* The kernels' update gathers a column of at most GFEC_MAX_CHUNKS rows. */
	const int gfni = gfec_cpu_path_gfni(path) && rows <= GFEC_MAX_CHUNKS;
	const int avx2 = path == GFEC_CPU_AVX2 && rows <= GFEC_MAX_CHUNKS;
	struct isal_plan *m = calloc(1, sizeof(*m));

	if (!m)
		return GFEC_E_NOMEM;
	m->k = k;
	m->rows = rows;
	m->coef = malloc(n);
	if (r || avx2)
		m->tbls = malloc(32 * n);
	if (gfni)
		m->mats = malloc(sizeof(*m->mats) * n);
	if (!m->coef || ((r || avx2) && !m->tbls) || (gfni && !m->mats)) {
		cpu_plan_free(ctx, m);
		return GFEC_E_NOMEM;
	}
	memcpy(m->coef, a->a, n);
	if (gfni)
		gfec_cpu_gfni_matrices(m->coef, n, m->mats);
	m->avx2 = avx2;
	if (avx2)
		gfec_cpu_avx2_tables(m->coef, n, m->tbls);
	else if (r)
		r->ec_init_tables(k, rows, m->coef, m->tbls);
	*plan = m;
	return 0;
}

/* One stripe per call: the ABI has no batches. */
static int cpu_gemm(void *ctx, const void *plan, int nstripes, size_t len,
		    const uint8_t *const *src, uint8_t *const *dst)
{
	isal_cpu_run(plan, (int)len, -1, (unsigned char **)src, (unsigned char **)dst);
	return 0;
}

static int cpu_update(void *ctx, const void *plan, int col, size_t len, const uint8_t *src,
		      uint8_t *const *dst, size_t *done)
{
	unsigned char *data = (unsigned char *)src;

	isal_cpu_run(plan, (int)len, col, &data, (unsigned char **)dst);
	*done = len;
	return 0;
}

static const struct gfec_backend_ops isal_cpu_ops = {
	.name = "isal-abi-cpu",
	.plan_create = cpu_plan_create,
	.plan_free = cpu_plan_free,
	.gemm = cpu_gemm,
	.update = cpu_update,
};

static void teardown(void)
{
	gfec_plan_cache_fini(&cpu_cache, &cpu_engine);
#ifdef GFEC_HAVE_CUDA
	gfec_plan_cache_fini(&gpu_cache, &gpu_engine);
	gfec_engine_fini(&gpu_engine);
#endif
	if (real_handle)
		dlclose(real_handle);
	real_handle = NULL;
}

/* ---- the GPU engine, started on the first call that wants it ---------------------------------- */

#ifdef GFEC_HAVE_CUDA
static void gpu_setup(void)
{
	const struct gfec_backend_ops *ops = gfec_gpu_backend();
	struct gfec_backend_conf conf = { 0 };
	Dl_info self;

	pthread_once(&setup_once, setup); /* gpu_fault, coalesce_us */
	conf.fault = gpu_fault;
	if (ops->init(&conf, &gpu_engine.gpu_ctx) != 0)
		return;
	gpu_engine.gpu_ops = ops;
	/* HDFS's coder threads share the plan of a matrix: their calls coalesce as a codec's do
	 * (without memory for it, every call runs alone) */
	if (coalesce_us > 0 || coalesce_slots > 0)
		(void)gfec_coalesce_create((unsigned)coalesce_us, (uint64_t)coalesce_bytes,
					   (unsigned)coalesce_slots, (uint64_t)slot_min,
					   &gpu_engine.coal);
	/* their host-buffer calls reach the GPU in arrival order, as many at once as the backend
	 * has lanes (engine.h's gate; without memory for it, they wait for a lane unordered) */
	(void)gfec_engine_gate(&gpu_engine, GFEC_GPU_LANES_DEFAULT);
	gpu_started = 1;
	atexit(teardown);
	if (dladdr((const void *)gpu_setup, &self))
		dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}
#endif

/* The engine for a call moving k * len source bytes, and its cache. */
static struct gfec_engine *engine_for(int len, int k, int rows, struct gfec_plan_cache **pc)
{
#ifdef GFEC_HAVE_CUDA
	if (gpu_min != GPU_NEVER && (uint64_t)len * (uint64_t)k >= gpu_min &&
	    k <= GFEC_MAX_CHUNKS && rows <= GFEC_MAX_CHUNKS) {
		pthread_once(&gpu_once, gpu_setup);
		if (gpu_started) {
			*pc = &gpu_cache;
			return &gpu_engine;
		}
	}
#endif
	*pc = &cpu_cache;
	return &cpu_engine;
}

static int plan_build(void *arg, struct gfec_engine *e, struct gfec_eplan *out)
{
	return gfec_engine_plan_create(e, arg, out);
}

/*
 * The cache key: shape and hash first (they tell most matrices apart), then the coefficients; in
 * @p buf when it fits (@p size bytes), else allocated.
 */
static uint8_t *plan_key(int k, int rows, const uint8_t *coef, size_t *keylen, uint8_t *buf,
			 size_t size)
{
	const size_t n = (size_t)k * rows;
	uint64_t h = 0xcbf29ce484222325ull ^ ((uint64_t)k << 32 | (uint32_t)rows);
	int32_t shape[2] = { k, rows };
	const size_t len = sizeof(shape) + sizeof(h) + n;
	uint8_t *key = len <= size ? buf : malloc(len);

	if (!key)
		return NULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ coef[i]) * 0x100000001b3ull;
	memcpy(key, shape, sizeof(shape));
	memcpy(key + sizeof(shape), &h, sizeof(h));
	memcpy(key + sizeof(shape) + sizeof(h), coef, n);
	*keylen = len;
	return key;
}

int isal_run(int k, int rows, const uint8_t *coef, const uint64_t *mats, int len, int vec_i,
	     unsigned char **data, unsigned char **coding)
{
	const struct gfec_gemm_matrix a = { .w = 8, .rows = rows, .cols = k, .a = coef };
	struct gfec_plan_cache *pc;
	struct gfec_engine *e;
	struct gfec_plan_hold h;
	uint8_t buf[512]; /* the key of up to 496 coefficients: no allocation per call */
	size_t keylen;
	uint8_t *key;
	int ret;

	pthread_once(&setup_once, setup);
	if (!caches_ready)
		return GFEC_E_NOMEM;
	e = engine_for(len, k, rows, &pc);
	/* the table's own matrices: no key, no lock (cpu_plan_create's limit on updates holds) */
	if (e == &cpu_engine && mats && gfec_cpu_path_gfni(cpu_path) &&
	    (vec_i < 0 || rows <= GFEC_MAX_CHUNKS)) {
		isal_gfni_run(k, rows, mats, len, vec_i, data, coding);
		return 0;
	}
	if (e == &cpu_engine && !real_handle && cpu_path == GFEC_CPU_ISAL)
		return GFEC_E_NOTSUP; /* plain C: nothing to prepare */
	key = plan_key(k, rows, coef, &keylen, buf, sizeof(buf));
	if (!key)
		return GFEC_E_NOMEM;
	ret = gfec_plan_cache_get(pc, e, key, keylen, plan_build, (void *)&a, &h);
	if (ret && e != &cpu_engine) { /* the GPU cannot run this matrix: the CPU can */
		e = &cpu_engine;
		pc = &cpu_cache;
		ret = gfec_plan_cache_get(pc, e, key, keylen, plan_build, (void *)&a, &h);
	}
	if (key != buf)
		free(key);
	if (ret)
		return ret;
	if (vec_i < 0)
		ret = gfec_engine_gemm(e, &h.d->plan, k, 1, (size_t)len,
				       (const uint8_t *const *)data, coding);
	else
		ret = gfec_engine_update(e, &h.d->plan, rows, vec_i, (size_t)len, data[0], coding);
	gfec_plan_cache_put(e, &h);
	return ret;
}

__attribute__((destructor)) static void isal_unload(void)
{
	teardown();
}
