/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file engine.c
 * Where ec_encode_data() gets its engines: the real ISA-L (loaded by absolute path, since our
 * soname shadows it), the GPU backend (started on the first large call), and a cache that maps a
 * coefficient matrix to what each engine derived from it: the real library's tables, a GPU plan.
 *
 * Knobs, read once on the first call through gfec's registry (registry.c; a bad value keeps
 * the default):
 *   GFEC_ISAL_LIB      the real ISA-L to forward to (default: Debian's libisal2, ISAL_REAL_PATH)
 *   GFEC_CPU_PATH      auto (default): gfec's GFNI kernels on CPUs with GFNI; isal or base: not
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
static uint64_t gpu_min = GPU_NEVER;
static int gpu_fault;

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct isal_matrix *cache[CACHE_SLOTS];
static uint64_t cache_tick;

#ifdef GFEC_HAVE_CUDA
static pthread_once_t gpu_once = PTHREAD_ONCE_INIT;
static const struct gfec_backend_ops *gpu_ops; /* set once the GPU has started */
static void *gpu_ctx;
static int gpu_absent;
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
/* GFEC_CPU_PATH: auto, or a GFNI path this CPU lacks, takes the best path this CPU has. */
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
	cpu_path = pick_cpu_path(set.v[GFEC_KNOB_CPU_PATH].text);
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

static void matrix_free(struct isal_matrix *m)
{
#ifdef GFEC_HAVE_CUDA
	if (m->plan)
		gpu_ops->plan_free(gpu_ctx, m->plan);
#endif
	free(m->tbls);
	free(m->mats);
	free(m->coef);
	free(m);
}

static uint64_t fnv1a(int k, int rows, const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull ^ ((uint64_t)k << 32 | (uint32_t)rows);

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

/* Caller holds cache_lock. */
static struct isal_matrix *cache_find(int k, int rows, const uint8_t *coef, uint64_t hash)
{
	for (int i = 0; i < CACHE_SLOTS; i++) {
		struct isal_matrix *m = cache[i];

		if (m && m->hash == hash && m->k == k && m->rows == rows &&
		    memcmp(m->coef, coef, (size_t)k * rows) == 0) {
			m->refs++;
			m->last_use = ++cache_tick;
			return m;
		}
	}
	return NULL;
}

static struct isal_matrix *matrix_new(int k, int rows, const uint8_t *coef, uint64_t hash)
{
	const size_t n = (size_t)k * rows;
	const struct isal_real *r = isal_real();
	const enum gfec_cpu_path path = isal_cpu_path();
	/* The kernels' update gathers a column of at most GFEC_MAX_CHUNKS rows. */
	const int gfni = (path == GFEC_CPU_GFNI512 || path == GFEC_CPU_GFNI256) &&
			 rows <= GFEC_MAX_CHUNKS;
	struct isal_matrix *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->k = k;
	m->rows = rows;
	m->hash = hash;
	m->refs = 1;
	m->coef = malloc(n);
	if (r)
		m->tbls = malloc(32 * n);
	if (gfni)
		m->mats = malloc(sizeof(*m->mats) * n);
	if (!m->coef || (r && !m->tbls) || (gfni && !m->mats)) {
		matrix_free(m);
		return NULL;
	}
	memcpy(m->coef, coef, n);
	if (gfni)
		gfec_cpu_gfni_matrices(m->coef, n, m->mats);
	if (r)
		r->ec_init_tables(k, rows, m->coef, m->tbls);
	return m;
}

struct isal_matrix *isal_matrix_get(int k, int rows, const uint8_t *coef)
{
	const uint64_t hash = fnv1a(k, rows, coef, (size_t)k * rows);
	struct isal_matrix *m, *victim = NULL, *found;
	int slot = -1;

	pthread_mutex_lock(&cache_lock);
	m = cache_find(k, rows, coef, hash);
	pthread_mutex_unlock(&cache_lock);
	if (m)
		return m;
	/* Built outside the lock: the real ec_init_tables() and malloc() need no serialising. */
	m = matrix_new(k, rows, coef, hash);
	if (!m)
		return NULL;
	pthread_mutex_lock(&cache_lock);
	found = cache_find(k, rows, coef, hash);
	if (!found) {
		/* An empty slot, else the least recently used entry that nobody holds. */
		for (int i = 0; i < CACHE_SLOTS; i++) {
			if (!cache[i]) {
				slot = i;
				break;
			}
			if (!cache[i]->refs &&
			    (slot < 0 || cache[i]->last_use < cache[slot]->last_use))
				slot = i;
		}
		if (slot >= 0) {
			victim = cache[slot];
			cache[slot] = m;
			m->cached = 1;
		}
		m->last_use = ++cache_tick;
	}
	pthread_mutex_unlock(&cache_lock);
	if (victim)
		matrix_free(victim);
	if (found) { /* another thread made it meanwhile */
		matrix_free(m);
		return found;
	}
	return m;
}

void isal_matrix_put(struct isal_matrix *m)
{
	int drop;

	if (!m)
		return;
	pthread_mutex_lock(&cache_lock);
	drop = --m->refs == 0 && !m->cached;
	pthread_mutex_unlock(&cache_lock);
	if (drop)
		matrix_free(m);
}

static void teardown(void)
{
	for (int i = 0; i < CACHE_SLOTS; i++) {
		if (cache[i])
			matrix_free(cache[i]);
		cache[i] = NULL;
	}
#ifdef GFEC_HAVE_CUDA
	if (gpu_ops)
		gpu_ops->fini(gpu_ctx);
	gpu_ops = NULL;
#endif
	if (real_handle)
		dlclose(real_handle);
	real_handle = NULL;
}

__attribute__((destructor)) static void isal_unload(void)
{
	teardown();
}

#ifdef GFEC_HAVE_CUDA
static void gpu_setup(void)
{
	const struct gfec_backend_ops *ops = gfec_gpu_backend();
	struct gfec_backend_conf conf = { 0 };
	Dl_info self;

	pthread_once(&setup_once, setup); /* gpu_fault */
	conf.fault = gpu_fault;
	if (ops->init(&conf, &gpu_ctx) != 0) {
		__atomic_store_n(&gpu_absent, 1, __ATOMIC_RELEASE);
		return;
	}
	gpu_ops = ops;
	atexit(teardown);
	if (dladdr((const void *)gpu_setup, &self))
		dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

int isal_gpu_wanted(int len, int k, int rows)
{
	pthread_once(&setup_once, setup);
	return gpu_min != GPU_NEVER && (uint64_t)len * (uint64_t)k >= gpu_min &&
	       k <= GFEC_MAX_CHUNKS && rows <= GFEC_MAX_CHUNKS &&
	       !__atomic_load_n(&gpu_absent, __ATOMIC_ACQUIRE);
}

/* The GPU plan of @p m, made on first use; NULL when the GPU cannot run this matrix. */
static void *gpu_plan(struct isal_matrix *m)
{
	const struct gfec_gemm_matrix a = { .w = 8, .rows = m->rows, .cols = m->k, .a = m->coef };
	void *plan;

	pthread_once(&gpu_once, gpu_setup);
	if (!gpu_ops)
		return NULL;
	/* Under the cache lock, so that one thread makes it; plans are rare and calls are large. */
	pthread_mutex_lock(&cache_lock);
	if (!m->gpu)
		m->gpu = gpu_ops->plan_create(gpu_ctx, &a, &m->plan) ? -1 : 1;
	plan = m->gpu > 0 ? m->plan : NULL;
	pthread_mutex_unlock(&cache_lock);
	return plan;
}

int isal_gpu_encode(struct isal_matrix *m, int len, unsigned char **data, unsigned char **coding)
{
	void *plan = gpu_plan(m);

	if (!plan)
		return GFEC_E_NOBACKEND;
	return gpu_ops->gemm(gpu_ctx, plan, 1, (size_t)len, (const uint8_t *const *)data, coding);
}

int isal_gpu_update(struct isal_matrix *m, int len, int vec_i, unsigned char *data,
		    unsigned char **coding, size_t *done)
{
	void *plan = gpu_plan(m);

	*done = 0;
	if (!plan)
		return GFEC_E_NOBACKEND;
	return gpu_ops->update(gpu_ctx, plan, vec_i, (size_t)len, data, coding, done);
}
#else
int isal_gpu_wanted(int len, int k, int rows)
{
	return 0;
}

int isal_gpu_encode(struct isal_matrix *m, int len, unsigned char **data, unsigned char **coding)
{
	return GFEC_E_NOBACKEND;
}

int isal_gpu_update(struct isal_matrix *m, int len, int vec_i, unsigned char *data,
		    unsigned char **coding, size_t *done)
{
	*done = 0;
	return GFEC_E_NOBACKEND;
}
#endif
