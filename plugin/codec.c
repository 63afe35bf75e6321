/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file codec.c
 * The codec object: a generator G, its engine (engine.c: the CPU backend always, the GPU when the
 * profile and the machine allow), an encode plan and a bounded LRU of decode plans.
 *
 *      chunk:   0 ........ k-1 | k ...... k+m-1
 *               data (object   | parity = G x data
 *               split in order)|
 *
 * Decoding picks k present chunks as sources (data first), computes the decode matrix D on the
 * CPU (gfmatrix), and runs it through the same backend GEMM as encoding. D depends only on the
 * (sources, wanted) pattern, so its plan is cached per pattern.
 *
 * technique=fft (w = 16) has no G: its parity is an additive-FFT Reed-Solomon code's
 * (gfmatrix/fft16.h), encoded and decoded by its transforms through a backend's butterfly16 op:
 * the GPU's for buffers in device memory (backend=gpu or auto, when a GPU is up), the CPU's for
 * host buffers; update re-encodes the delta (parity is linear in the data).
 *
 * Dispatch (engine.c): backend=gpu runs everything on the GPU, backend=auto runs a call there when
 * it carries at least gpu_min_bytes of data, backend=hybrid splits host calls of at least
 * hybrid_min_bytes between both at once (hybrid.h; auto too, from where `gfec tune` measured the
 * split faster). A call the GPU fails is redone on the CPU (same
 * bytes: both backends compute the same product), counted in stats, and logged; only buffers in
 * device memory cannot be redone there, and then the error is returned.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coalesce.h"
#include "counters.h"
#include "cpu_backend.h"
#include "engine.h"
#include "fft16.h"
#include "gf16.h"
#include "gf8.h"
#include "hybrid.h"
#include "internal.h"
#include "matrix.h"
#include "ptrs.h"

/* Elementary operations the reed_sol_van MDS proof may spend (about 0.1 s). */
#define MDS_BUDGET 100000000ull
/* verify() recomputes parity in pieces of this many bytes per chunk. */
#define VERIFY_PIECE (1u << 20)
/*
 * w = 16: the most bytes a dense generator may take (m x k uint16_t; 32768 + 32768 would be
 * 2 GiB: beyond it the cauchy technique holds its matrices in Cauchy form), and the multiplies
 * Jerasure's Vandermonde construction may spend ((k+m) k^2: about 3 s at 1000 + 200 on one core).
 */
#define GF16_DENSE_CAP (64ull << 20)
#define RS_VAN16_BUDGET 1500000000ull

struct gfec_codec {
	struct gfec_profile prof;
	int k, m;
	unsigned w;	/* 8 or 16 */
	int form;	/* w = 16 cauchy beyond GF16_DENSE_CAP: G and decode matrices in Cauchy form */
	void *g;	/* m x k elements: uint8_t (w = 8) or uint16_t (w = 16); in form: x, r, y, c */
	struct gfec_fft16_code *fft; /* technique=fft: the code (g is then NULL) */
	struct gfec_engine eng;		/* dispatch and the CPU redo (engine.c) */
	struct gfec_eplan enc;
	struct gfec_plan_cache dcache;	/* decode plans by erasure pattern */
	char backend_name[64];

	struct gfec_counters calls; /* enum call_counter, added to without a locked instruction */

	struct gfec_async *async; /* its workers start with the first gfec_submit() */
};

static int execute(void *owner, struct gfec_request *r); /* the async queue's executor */

/* 0 for byte-symbol techniques; the CRS packet size for cauchy_good. */
static size_t packetsize(const gfec_codec *c)
{
	return c->prof.technique == GFEC_TECH_CAUCHY_GOOD ? (size_t)c->prof.packetsize : 0;
}

/* Every len must be a multiple of this: 1, 2 (w = 16 symbols), or one CRS block of 8 packets. */
static size_t len_unit(const gfec_codec *c)
{
	return packetsize(c) ? 8 * packetsize(c) : c->w / 8;
}

/* 1 when @p len is whole symbols (packets); else logs why and returns 0. */
static int len_ok(const gfec_codec *c, size_t len)
{
	const size_t unit = len_unit(c);

	if (unit == 1 || len % unit == 0) /* no division on the w = 8 path: it is per call */
		return 1;
	gfec_log(GFEC_LOG_WARN, "len=%zu: chunks of this codec (w=%u%s) hold whole %zu-byte %s", len,
		 c->w, packetsize(c) ? ", cauchy_good" : "", len_unit(c),
		 packetsize(c) ? "blocks of 8 packets" : "symbols");
	return 0;
}

static size_t elem_size(const gfec_codec *c)
{
	return c->w / 8;
}

static void count(uint64_t *c, uint64_t n)
{
	__atomic_fetch_add(c, n, __ATOMIC_RELAXED);
}

enum call_counter { N_ENCODES, N_DECODES, N_VERIFIES, N_UPDATES, N_BYTES, N_CALL_COUNTERS };

/* A successful call: @p n more of @p what, @p bytes more data bytes (counters.h says why). */
static void count_call(gfec_codec *c, enum call_counter what, uint64_t n, uint64_t bytes)
{
	uint64_t *line = gfec_counters_line(&c->calls);

	gfec_counters_add(&c->calls, line, what, n);
	gfec_counters_add(&c->calls, line, N_BYTES, bytes);
}

/*
 * Whether a w = 16 shape can be built: dense up to GF16_DENSE_CAP, beyond it only the cauchy
 * technique (in Cauchy form, c->form); Jerasure's Vandermonde construction within its budget.
 */
static int shape16_ok(gfec_codec *c, char *err, size_t errlen)
{
	const uint64_t k = (uint64_t)c->k, m = (uint64_t)c->m;

	if (c->prof.technique == GFEC_TECH_JERASURE_RS_VAN && (k + m) * k * k > RS_VAN16_BUDGET) {
		snprintf(err, errlen,
			 "technique=jerasure_reed_sol_van w=16: k=%d m=%d is too large to build "
			 "Jerasure's Vandermonde matrix ((k+m) k^2 > %llu multiplies); use "
			 "technique=cauchy",
			 c->k, c->m, RS_VAN16_BUDGET);
		return GFEC_E_NOTSUP;
	}
	c->form = k * m * 2 > GF16_DENSE_CAP;
	if (c->form)
		gfec_log(GFEC_LOG_INFO,
			 "k=%d m=%d w=16: the %llu MiB generator is over the %llu MiB cap for a dense "
			 "matrix; its rows (and decode matrices') are generated per slice, on the CPU",
			 c->k, c->m, (unsigned long long)(k * m * 2 >> 20),
			 (unsigned long long)(GF16_DENSE_CAP >> 20));
	return 0;
}

/*
 * The w = 16 generator: the cauchy technique's 1 / ((k+i) ^ j) (gfmatrix's Cauchy matrix, as at
 * w = 8), dense or as its Cauchy form (x = k+i, r = 1, y = j, c = 1), or Jerasure's
 * reed_sol_vandermonde_coding_matrix(k, m, 16).
 */
static int make_generator16(gfec_codec *c)
{
	if (c->form) {
		uint16_t *x = c->g, *r = x + c->m, *y = r + c->m, *cs = y + c->k;

		for (int i = 0; i < c->m; i++) {
			x[i] = (uint16_t)(c->k + i);
			r[i] = 1;
		}
		for (int j = 0; j < c->k; j++) {
			y[j] = (uint16_t)j;
			cs[j] = 1;
		}
		return 0;
	}
	if (c->prof.technique == GFEC_TECH_CAUCHY)
		return gfec_matrix_cauchy_w(16, c->k, c->m, c->g);
	return gfec_matrix_jerasure_rs_van_w(16, c->k, c->m, c->g);
}

/* The generator as the backend interface's matrix (its Cauchy form in form mode). */
static struct gfec_gemm_matrix generator(const gfec_codec *c)
{
	const uint16_t *x = c->g;

	if (c->form)
		return (struct gfec_gemm_matrix){ .w = 16, .rows = c->m, .cols = c->k, .cx = x,
						  .cr = x + c->m, .cy = x + 2 * c->m,
						  .cc = x + 2 * c->m + c->k };
	return (struct gfec_gemm_matrix){ .w = c->w, .rows = c->m, .cols = c->k, .a = c->g,
					  .packetsize = packetsize(c) };
}

static int make_generator(gfec_codec *c, char *err, size_t errlen)
{
	int k = c->k, m = c->m, ret = 0;

	if (c->w == 16)
		return make_generator16(c);
	switch (c->prof.technique) {
	case GFEC_TECH_REED_SOL_VAN:
		ret = gfec_matrix_isal_rs(k, m, c->g);
		if (ret)
			break;
		ret = gfec_matrix_check_mds(c->g, m, k, MDS_BUDGET);
		if (ret == GFEC_E_NOT_MDS)
			snprintf(err, errlen,
				 "technique=reed_sol_van: ISA-L's Vandermonde matrix is not MDS for "
				 "k=%d m=%d (some losses could not be repaired); use technique=cauchy",
				 k, m);
		else if (ret == GFEC_E_BUDGET)
			snprintf(err, errlen,
				 "technique=reed_sol_van: k=%d m=%d is too large to prove ISA-L's "
				 "Vandermonde matrix MDS; use technique=cauchy",
				 k, m);
		break;
	case GFEC_TECH_CAUCHY:
		ret = gfec_matrix_isal_cauchy1(k, m, c->g);
		break;
	case GFEC_TECH_JERASURE_RS_VAN:
		ret = gfec_matrix_jerasure_rs_van(k, m, c->g);
		break;
	case GFEC_TECH_CAUCHY_GOOD:
		ret = gfec_matrix_jerasure_cauchy_good(k, m, c->g);
		break;
	case GFEC_TECH_FFT: /* w = 16 only (the profile says so), and made by fft_create() */
		ret = GFEC_E_NOTSUP;
		break;
	}
	return ret;
}

/*
 * Starts the GPU engine. Only backend=gpu makes its absence an error; auto and hybrid stay on the
 * CPU (hybrid says so in the log: its user asked for a GPU).
 */
/*
 * The gate's lanes: gpu_lanes host-buffer calls in flight per GPU context, as the backend runs
 * them (backend.cu's lanes); several contexts (gpu_devices) take as many each.
 */
static int gate_lanes(const gfec_codec *c)
{
	struct gfec_backend_device d[GFEC_MAX_GPU_CONTEXTS];
	const int lanes = c->prof.gpu_lanes > 0 ? c->prof.gpu_lanes : GFEC_GPU_LANES_DEFAULT;
	int n = 1;

	if (c->eng.gpu_ops->devices)
		n = c->eng.gpu_ops->devices(c->eng.gpu_ctx, d, GFEC_MAX_GPU_CONTEXTS);
	return (n > 1 ? n : 1) * lanes;
}

static int gpu_engine(gfec_codec *c, char *err, size_t errlen)
{
	const int required = c->prof.backend == GFEC_BACKEND_GPU;
	struct gfec_backend_conf conf = { 0 };
	struct gfec_gemm_matrix gm = generator(c);
	/* gpu_devices: one context per listed GPU (cuda_gemm/device/multi.cu) */
	const struct gfec_backend_ops *ops =
		c->prof.gpu_ndevices ? gfec_backend_gpu_multi() : gfec_backend_gpu();
	int ret;

	if (c->form) { /* the GPU backend takes dense matrices only */
		if (!required) {
			if (c->prof.backend == GFEC_BACKEND_HYBRID)
				gfec_log(GFEC_LOG_INFO, "backend=hybrid: k=%d m=%d w=16 is generated "
					 "on the fly, on the CPU only", c->k, c->m);
			return 0;
		}
		snprintf(err, errlen,
			 "backend=gpu: k=%d m=%d w=16 is generated on the fly (over the dense cap), "
			 "which only the CPU backend does; use backend=cpu or backend=auto",
			 c->k, c->m);
		return GFEC_E_NOTSUP;
	}

	if (!ops) {
		if (!required) {
			if (c->prof.backend == GFEC_BACKEND_HYBRID)
				gfec_log(GFEC_LOG_INFO, "backend=hybrid: this build of gfec has no GPU "
					 "backend; CPU only");
			return 0;
		}
		snprintf(err, errlen, "backend=gpu: this build of gfec has no GPU backend; use "
				      "backend=cpu or backend=auto");
		return GFEC_E_NOBACKEND;
	}
	conf.kernel = c->prof.gpu_kernel;
	conf.device = c->prof.gpu_device;
	conf.streams = c->prof.gpu_streams;
	conf.segment = (size_t)c->prof.gpu_segment;
	conf.lanes = c->prof.gpu_lanes;
	conf.pinned_dma = c->prof.gpu_pinned_dma;
	conf.map_bytes = c->prof.gpu_map_bytes;
	conf.resident_us = c->prof.gpu_resident_us;
	conf.resident_pinned = c->prof.gpu_resident_pinned;
	conf.rules = c->prof.set.rules;
	conf.nrules = c->prof.set.nrules;
	/* one context: cuda and cuda-ctx0 fail it; several: the backend picks (gemm.h) */
	if (c->prof.gpu_fault == GFEC_FAULT_KERNEL)
		conf.fault_kernel = 1;
	else if (c->prof.gpu_ndevices)
		conf.fault = c->prof.gpu_fault;
	else
		conf.fault = c->prof.gpu_fault == 1 || c->prof.gpu_fault == 2;
	conf.devices = c->prof.gpu_devices;
	conf.ndevices = c->prof.gpu_ndevices;
	conf.split_min = (size_t)c->prof.gpu_split_min;
	ret = ops->init(&conf, &c->eng.gpu_ctx);
	if (ret == 0 && ops->can_implement(c->eng.gpu_ctx, &gm) != 0) {
		ops->fini(c->eng.gpu_ctx);
		c->eng.gpu_ctx = NULL;
		ret = GFEC_E_NOTSUP;
	}
	if (ret == 0) {
		c->eng.gpu_ops = ops;
		return 0;
	}
	if (!required) {
		gfec_log(GFEC_LOG_INFO, "backend=%s: GPU not used (%s); CPU only",
			 gfec_backend_choice_name(c->prof.backend), gfec_strerror(ret));
		return 0;
	}
	if (ret == GFEC_E_INVAL)
		snprintf(err, errlen, "gpu_kernel=%s: no such kernel; compiled: %s",
			 c->prof.gpu_kernel, gfec_backend_gpu_kernels());
	else if (ret == GFEC_E_NOTSUP)
		snprintf(err, errlen, "backend=gpu: no compiled kernel runs k=%d m=%d w=%u%s%s",
			 c->k, c->m, c->w, c->prof.gpu_kernel[0] ? " with gpu_kernel=" : "",
			 c->prof.gpu_kernel);
	else
		snprintf(err, errlen, "backend=gpu: no usable CUDA device (%s)", gfec_strerror(ret));
	return ret;
}

/*
 * The split of large host calls between CPU and GPU (hybrid.h): backend=hybrid from
 * hybrid_min_bytes, backend=auto from hybrid_auto_bytes when `gfec tune` measured the split
 * faster than either side alone. Needs the GPU engine up.
 */
static int hybrid_engine(gfec_codec *c, char *err, size_t errlen)
{
	const struct gfec_knob_value *v = c->prof.set.v;
	struct gfec_hybrid_conf hc = {
		.min_bytes = (uint64_t)v[GFEC_KNOB_HYBRID_MIN_BYTES].num,
		.cpu_rate = 1e6 * (double)v[GFEC_KNOB_HYBRID_CPU_RATE].num,
		.gpu_rate = 1e6 * (double)v[GFEC_KNOB_HYBRID_GPU_RATE].num,
		.alpha_pct = (int)v[GFEC_KNOB_HYBRID_ALPHA].num,
		.ewma_pct = (int)v[GFEC_KNOB_HYBRID_EWMA].num,
		.threads = (int)v[GFEC_KNOB_HYBRID_THREADS].num,
	};
	int ret;

	if (!c->eng.gpu_ops)
		return 0;
	if (c->prof.backend == GFEC_BACKEND_AUTO) {
		if (v[GFEC_KNOB_HYBRID_AUTO_BYTES].num >= 1ll << 50)
			return 0; /* not measured better (gfec tune) */
		hc.min_bytes = (uint64_t)v[GFEC_KNOB_HYBRID_AUTO_BYTES].num;
	} else if (c->prof.backend != GFEC_BACKEND_HYBRID) {
		return 0;
	}
	ret = gfec_hybrid_create(&hc, &c->eng.hybrid);
	if (ret) {
		snprintf(err, errlen, "backend=%s: the CPU+GPU split: %s",
			 gfec_backend_choice_name(c->prof.backend), gfec_strerror(ret));
		return ret;
	}
	gfec_log(GFEC_LOG_INFO,
		 "backend=%s: host calls of at least %llu data bytes split between CPU and GPU "
		 "(GPU share %.2f to start)",
		 gfec_backend_choice_name(c->prof.backend), (unsigned long long)hc.min_bytes,
		 gfec_hybrid_alpha(c->eng.hybrid));
	return 0;
}

/*
 * technique=fft's GPU (backend=gpu or auto): its butterfly16 op runs the calls on device
 * buffers. Only backend=gpu makes its absence an error; auto then runs everything on the CPU.
 */
static int fft_gpu(gfec_codec *c, char *err, size_t errlen)
{
	const int required = c->prof.backend == GFEC_BACKEND_GPU;
	const struct gfec_backend_ops *ops = gfec_backend_gpu();
	struct gfec_backend_conf conf = { .device = c->prof.gpu_device,
					  .fault = c->prof.gpu_fault == 1 || c->prof.gpu_fault == 2 };
	int ret;

	if (!ops || !ops->butterfly16) {
		if (!required)
			return 0;
		snprintf(err, errlen, "backend=gpu: this build of gfec has no GPU backend; use "
				      "backend=cpu or backend=auto");
		return GFEC_E_NOBACKEND;
	}
	ret = ops->init(&conf, &c->eng.gpu_ctx);
	if (ret == 0) {
		c->eng.gpu_ops = ops;
		return 0;
	}
	c->eng.gpu_ctx = NULL;
	if (!required) {
		gfec_log(GFEC_LOG_INFO, "technique=fft backend=auto: GPU not used (%s); CPU only",
			 gfec_strerror(ret));
		return 0;
	}
	snprintf(err, errlen, "backend=gpu: no usable CUDA device (%s)", gfec_strerror(ret));
	return ret;
}

/*
 * technique=fft: the code, the CPU backend (whose butterfly16 op runs host buffers), the GPU
 * where asked for (device buffers) and the async queue; no generator, no plans.
 */
static int fft_create(gfec_codec *c, struct gfec_backend_conf *conf, char *err, size_t errlen)
{
	int ret = gfec_fft16_code_create(c->k, c->m, GFEC_FFT16_AUTO, &c->fft);

	if (ret) {
		snprintf(err, errlen, "technique=fft k=%d m=%d: %s", c->k, c->m, gfec_strerror(ret));
		return ret;
	}
	c->async = gfec_async_create(execute, c, c->prof.async_threads);
	if (!c->async || gfec_plan_cache_init(&c->dcache, c->prof.decode_cache))
		return GFEC_E_NOMEM;
	conf->threads = c->prof.threads;
	conf->path = c->prof.cpu_path;
	c->eng.cpu_ops = gfec_cpu_backend();
	ret = c->eng.cpu_ops->init(conf, &c->eng.cpu_ctx);
	if (ret) {
		snprintf(err, errlen, "backend=cpu cpu_path=%s: %s",
			 c->prof.cpu_path[0] ? c->prof.cpu_path : "auto", gfec_strerror(ret));
		return ret;
	}
	if (c->prof.backend != GFEC_BACKEND_CPU) {
		ret = fft_gpu(c, err, errlen);
		if (ret)
			return ret;
	}
	if (c->eng.gpu_ops)
		snprintf(c->backend_name, sizeof(c->backend_name), "gpu/butterflies+cpu/%s",
			 c->eng.cpu_ops->path_name(c->eng.cpu_ctx));
	else
		snprintf(c->backend_name, sizeof(c->backend_name), "cpu/%s",
			 c->eng.cpu_ops->path_name(c->eng.cpu_ctx));
	return 0;
}

/* 1 when a technique=fft call on these buffers runs on the GPU (they are in device memory). */
static int fft_on_gpu(const gfec_codec *c, const void *a, const void *b)
{
	return c->eng.gpu_ops && ((a && gfec_engine_is_device(&c->eng, a)) ||
				  (b && gfec_engine_is_device(&c->eng, b)));
}

/* The ops of a technique=fft call: the GPU's (device buffers, @p gpu) or the CPU's. */
static struct gfec_fft16_ops fft_ops(const gfec_codec *c, int gpu)
{
	const struct gfec_backend_ops *b = c->eng.gpu_ops;

	if (!gpu)
		return (struct gfec_fft16_ops){ .bfly = c->eng.cpu_ops->butterfly16,
						.ctx = c->eng.cpu_ctx };
	/* the GPU walks unflagged lists one thread per position: the derivative goes disjoint */
	return (struct gfec_fft16_ops){ .bfly = b->butterfly16, .ctx = c->eng.gpu_ctx,
					.alloc = b->bfly16_alloc, .free = b->bfly16_free,
					.work = b->bfly16_work ? b->bfly16_work(c->eng.gpu_ctx) : 0,
					.sync = b->bfly16_sync, .disjoint_only = 1 };
}

/* A GPU call of technique=fft done: counted (a failed one is returned, never redone). */
static int fft_done(gfec_codec *c, int gpu, int ret)
{
	if (gpu && ret == 0)
		count(&c->eng.gpu_calls, 1);
	return ret;
}

int gfec_codec_create(const char *profile, gfec_codec **out, char *err, size_t errlen)
{
	char sink[8];
	gfec_codec *c;
	struct gfec_backend_conf conf = { 0 };
	struct gfec_gemm_matrix gm;
	int ret;

	if (!err || !errlen) {
		err = sink;
		errlen = sizeof(sink);
	}
	err[0] = '\0';
	if (!out) {
		snprintf(err, errlen, "gfec_codec_create: out is NULL");
		return GFEC_E_INVAL;
	}
	*out = NULL;
	gfec_gf8_init();
	gfec_gf16_init();
	c = calloc(1, sizeof(*c));
	if (!c)
		return GFEC_E_NOMEM;
	if (gfec_counters_init(&c->calls, N_CALL_COUNTERS)) {
		free(c);
		return GFEC_E_NOMEM;
	}

	ret = gfec_settings_resolve(profile, &c->prof, err, errlen);
	if (ret)
		goto out;
	c->k = c->prof.k;
	c->m = c->prof.m;
	c->w = (unsigned)c->prof.w;
	if (c->prof.technique == GFEC_TECH_FFT) {
		ret = fft_create(c, &conf, err, errlen);
		goto out;
	}
	if (c->w == 16) {
		ret = shape16_ok(c, err, errlen);
		if (ret)
			goto out;
	}
	c->g = c->form ? malloc(sizeof(uint16_t) * 2 * ((size_t)c->k + c->m))
		       : malloc((size_t)c->k * c->m * elem_size(c));
	c->async = gfec_async_create(execute, c, c->prof.async_threads);
	if (!c->g || !c->async || gfec_plan_cache_init(&c->dcache, c->prof.decode_cache)) {
		ret = GFEC_E_NOMEM;
		goto out;
	}
	ret = make_generator(c, err, errlen);
	if (ret)
		goto out;

	conf.threads = c->prof.threads;
	conf.path = c->prof.cpu_path;
	conf.stream_min = (size_t)c->prof.cpu_stream_min;
	c->eng.cpu_ops = gfec_cpu_backend();
	c->eng.gpu_always = c->prof.backend == GFEC_BACKEND_GPU;
	c->eng.gpu_min_bytes = (uint64_t)c->prof.gpu_min_bytes;
	ret = c->eng.cpu_ops->init(&conf, &c->eng.cpu_ctx);
	if (ret) {
		snprintf(err, errlen, "backend=cpu cpu_path=%s: %s",
			 c->prof.cpu_path[0] ? c->prof.cpu_path : "auto", gfec_strerror(ret));
		goto out;
	}
	if (c->prof.backend != GFEC_BACKEND_CPU) {
		ret = gpu_engine(c, err, errlen);
		if (ret == 0 && c->eng.gpu_ops)
			ret = gfec_engine_gate(&c->eng, gate_lanes(c));
		if (ret)
			goto out;
		ret = hybrid_engine(c, err, errlen);
		if (ret)
			goto out;
	}
	/* Every codec has one: gfec_submit_coalesced() queues into it on any backend; waiting
	 * callers are held only on the GPU, with gpu_coalesce_us or gpu_coalesce_slots > 0. */
	ret = gfec_coalesce_create(c->eng.gpu_ops ? (unsigned)c->prof.gpu_coalesce_us : 0,
				   (uint64_t)c->prof.gpu_coalesce_bytes,
				   c->eng.gpu_ops ? (unsigned)c->prof.gpu_coalesce_slots : 0,
				   (uint64_t)c->prof.gpu_coalesce_slot_min, &c->eng.coal);
	if (ret)
		goto out;
	gm = generator(c);
	ret = gfec_engine_plan_create(&c->eng, &gm, &c->enc);
	if (ret) {
		snprintf(err, errlen, "backend=%s: %s", gfec_backend_choice_name(c->prof.backend),
			 gfec_strerror(ret));
		goto out;
	}
	if (c->eng.gpu_ops)
		snprintf(c->backend_name, sizeof(c->backend_name), "gpu/%s+cpu/%s%s",
			 c->eng.gpu_ops->path_name(c->eng.gpu_ctx),
			 c->eng.cpu_ops->path_name(c->eng.cpu_ctx),
			 c->eng.hybrid ? " (split)" : "");
	else
		snprintf(c->backend_name, sizeof(c->backend_name), "cpu/%s",
			 c->eng.cpu_ops->path_name(c->eng.cpu_ctx));
out:
	if (ret) {
		if (!err[0])
			snprintf(err, errlen, "%s", gfec_strerror(ret));
		gfec_log(GFEC_LOG_ERROR, "gfec_codec_create(\"%s\"): %s", profile ? profile : "",
			 err);
		gfec_codec_free(c);
		return ret;
	}
	gfec_log(GFEC_LOG_INFO, "codec k=%d m=%d w=%u technique=%s on %s", c->k, c->m, c->w,
		 gfec_technique_name(c->prof.technique), c->backend_name);
	*out = c;
	return 0;
}

void gfec_codec_free(gfec_codec *c)
{
	if (!c)
		return;
	gfec_async_destroy(c->async);
	gfec_fft16_code_free(c->fft);
	gfec_plan_cache_fini(&c->dcache, &c->eng);
	gfec_engine_plan_free(&c->eng, &c->enc);
	gfec_engine_fini(&c->eng);
	free(c->g);
	gfec_counters_fini(&c->calls);
	free(c);
}

int gfec_codec_k(const gfec_codec *c)
{
	return c ? c->k : GFEC_E_INVAL;
}

int gfec_codec_m(const gfec_codec *c)
{
	return c ? c->m : GFEC_E_INVAL;
}

int gfec_codec_chunk_count(const gfec_codec *c)
{
	return c ? c->k + c->m : GFEC_E_INVAL;
}

int gfec_codec_w(const gfec_codec *c)
{
	return c ? (int)c->w : GFEC_E_INVAL;
}

size_t gfec_codec_chunk_size(const gfec_codec *c, size_t object_size)
{
	size_t per;

	if (!c)
		return 0;
	const size_t unit = len_unit(c) > GFEC_ALIGN ? len_unit(c) : GFEC_ALIGN;

	per = object_size / (size_t)c->k + (object_size % (size_t)c->k != 0);
	if (per == 0)
		per = 1;
	return (per + unit - 1) / unit * unit;
}

size_t gfec_codec_profile(const gfec_codec *c, char *buf, size_t buflen)
{
	int n;

	if (!c)
		return 0;
	/* w=8 is left out, so w = 8 profiles read as they did before the key existed. */
	n = snprintf(buf, buflen, "k=%d m=%d%s technique=%s backend=%s threads=%d cpu_path=%s "
			       "decode_cache=%d%s%.0d",
		     c->k, c->m, c->w == 16 ? " w=16" : "", gfec_technique_name(c->prof.technique),
		     gfec_backend_choice_name(c->prof.backend), c->prof.threads,
		     c->eng.cpu_ops->path_name(c->eng.cpu_ctx), c->prof.decode_cache,
		     packetsize(c) ? " packetsize=" : "", packetsize(c) ? c->prof.packetsize : 0);
	return n < 0 ? 0 : (size_t)n;
}

const char *gfec_codec_backend(const gfec_codec *c)
{
	return c ? c->backend_name : "";
}

int gfec_codec_gpu_dmabuf(const gfec_codec *c, size_t len, void **ptr, int *fd, char *why,
			  size_t whylen)
{
	return gfec_backend_gpu_dmabuf(c ? c->prof.gpu_device : 0, len, ptr, fd, why, whylen);
}

void gfec_codec_gpu_dmabuf_free(const gfec_codec *c, void *ptr)
{
	gfec_backend_gpu_dmabuf_free(c ? c->prof.gpu_device : 0, ptr);
}

int gfec_codec_coalesce_stats(const struct gfec_codec *c, struct gfec_coalesce_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (!c || !c->eng.coal)
		return 0;
	gfec_coalesce_stats(c->eng.coal, out);
	/* gfec_codec_create gave the coalescer windows or slots only on the GPU */
	if (out->us || out->slots)
		return 1;
	memset(out, 0, sizeof(*out));
	return 0;
}

uint64_t gfec_codec_resident_calls(const struct gfec_codec *c)
{
	struct gfec_backend_stats st = { 0 };

	if (!c || !c->eng.gpu_ops || !c->eng.gpu_ops->stats)
		return 0;
	c->eng.gpu_ops->stats(c->eng.gpu_ctx, &st);
	return st.resident;
}

void gfec_codec_window_stats(const gfec_codec *c, struct gfec_window_stats *out)
{
	struct gfec_coalesce_stats cs;

	if (!out)
		return;
	memset(out, 0, sizeof(*out));
	if (!c || !c->eng.coal)
		return;
	gfec_coalesce_stats(c->eng.coal, &cs);
	out->windows = cs.q_windows;
	out->full = cs.q_full;
	out->deadline = cs.q_deadline;
	out->requests = cs.q_requests;
	out->stripes = cs.q_stripes;
	out->cancelled = cs.q_cancelled;
	for (int i = 0; i < 32 && i < GFEC_COALESCE_HIST; i++)
		out->run_us[i] = cs.q_run_us[i];
}

int gfec_codec_gpu_devices(const gfec_codec *c, struct gfec_gpu_device *out, int max)
{
	struct gfec_backend_device d[GFEC_MAX_GPU_CONTEXTS];
	int n;

	if (!c || (max > 0 && !out))
		return GFEC_E_INVAL;
	if (!c->eng.gpu_ops || !c->eng.gpu_ops->devices)
		return 0;
	n = c->eng.gpu_ops->devices(c->eng.gpu_ctx, d, GFEC_MAX_GPU_CONTEXTS);
	for (int i = 0; i < n && i < max; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		out[i].ordinal = d[i].ordinal;
		snprintf(out[i].name, sizeof(out[i].name), "%s", d[i].name);
		out[i].mem_gib = d[i].mem_gib;
		out[i].pci_bus = d[i].pci_bus;
		out[i].calls = d[i].calls;
		out[i].bytes = d[i].bytes_in;
		out[i].failures = d[i].failures;
		out[i].share = d[i].share;
		out[i].rate_host = d[i].rate_host;
		out[i].rate_dev = d[i].rate_dev;
	}
	return n;
}

void gfec_codec_stats(const gfec_codec *c, struct gfec_stats *s)
{
	if (!c || !s)
		return;
	s->encodes = gfec_counters_get(&c->calls, N_ENCODES);
	s->decodes = gfec_counters_get(&c->calls, N_DECODES);
	s->verifies = gfec_counters_get(&c->calls, N_VERIFIES);
	s->updates = gfec_counters_get(&c->calls, N_UPDATES);
	s->bytes = gfec_counters_get(&c->calls, N_BYTES);
	s->decode_cache_hits = gfec_plan_cache_hits(&c->dcache);
	s->decode_cache_misses = gfec_plan_cache_misses(&c->dcache);
	s->fallbacks = __atomic_load_n(&c->eng.fallbacks, __ATOMIC_RELAXED);
	s->gpu_calls = __atomic_load_n(&c->eng.gpu_calls, __ATOMIC_RELAXED);
}

/* Parity of @p nstripes stripes (stripe s: data[s k + j], parity[s m + i]), by G or the FFT. */
static int encode_stripes(gfec_codec *c, int nstripes, size_t len, const uint8_t *const *data,
			  uint8_t *const *parity)
{
	int ret = 0;

	if (!c->fft)
		return gfec_engine_gemm(&c->eng, &c->enc, c->k, nstripes, len, data, parity);
	for (int s = 0; s < nstripes && !ret; s++) {
		const uint8_t *const *d = data + (size_t)s * c->k;
		uint8_t *const *p = parity + (size_t)s * c->m;
		const int gpu = fft_on_gpu(c, d[0], p[0]);
		const struct gfec_fft16_ops ops = fft_ops(c, gpu);

		ret = fft_done(c, gpu, gfec_fft16_encode(c->fft, &ops, len, d, p));
	}
	return ret;
}

/*
 * technique=fft's update: the parity of the delta alone in chunk vec_i (the other data chunks
 * NULL: zeros, skipped by the encoder), XORed into the parity by the ops (y ^= x: forward
 * butterflies with c = 0); in pieces that keep the scratch near 64 MiB (or the ops' work).
 */
static int fft_update(gfec_codec *c, int vec_i, const uint8_t *delta, uint8_t *const *parity,
		      size_t len)
{
	const int gpu = fft_on_gpu(c, delta, parity[0]);
	const struct gfec_fft16_ops ops = fft_ops(c, gpu);
	size_t piece = (ops.work ? ops.work : 64u << 20) / (size_t)c->m / 64 * 64;
	const uint8_t **dp = calloc((size_t)c->k, sizeof(*dp));
	uint8_t **pp = malloc(sizeof(*pp) * (size_t)c->m), *buf;
	uint8_t **po = malloc(sizeof(*po) * (size_t)c->m);
	uint16_t *zc = calloc((size_t)c->m, sizeof(*zc));
	int ret = 0;

	piece = piece < 64 ? 64 : piece;
	piece = len < piece ? len : piece;
	buf = ops.alloc ? ops.alloc(ops.ctx, piece * (size_t)c->m)
			: gfec_alloc(piece * (size_t)c->m);
	if (!dp || !pp || !po || !zc || !buf) {
		ret = GFEC_E_NOMEM;
		goto out;
	}
	for (int i = 0; i < c->m; i++)
		pp[i] = buf + (size_t)i * piece;
	for (size_t off = 0; off < len && !ret; off += piece) {
		const size_t n = len - off < piece ? len - off : piece;

		dp[vec_i] = delta + off;
		ret = gfec_fft16_encode(c->fft, &ops, n, dp, pp);
		for (int i = 0; i < c->m; i++)
			po[i] = parity[i] + off;
		if (!ret)
			ret = ops.bfly(ops.ctx, GFEC_BFLY_FWD | GFEC_BFLY_DISJOINT, c->m, n, pp, po,
				       zc);
	}
	if (ops.sync) {
		const int s = ops.sync(ops.ctx);

		ret = ret ? ret : s;
	}
out:
	if (buf && ops.alloc)
		ops.free(ops.ctx, buf);
	else
		gfec_free(buf);
	free(zc);
	free(po);
	free(pp);
	free(dp);
	return fft_done(c, gpu, ret);
}

int gfec_encode(gfec_codec *c, const uint8_t *const *data, uint8_t *const *parity, size_t len)
{
	int ret;

	if (!c || !gfec_ptrs_nonnull((const void *const *)data, (size_t)c->k) ||
	    !gfec_ptrs_nonnull((const void *const *)parity, (size_t)c->m) || !len_ok(c, len))
		return GFEC_E_INVAL;
	ret = encode_stripes(c, 1, len, data, parity);
	if (ret)
		return ret;
	count_call(c, N_ENCODES, 1, (uint64_t)len * (uint64_t)c->k);
	return 0;
}

/*
 * Whether a batch's pointers are left to the backend to check: device memory on a GPU backend
 * that reads them all anyway and says so (gemm.h, checks_device_ptrs). This pass took 9-11 us
 * of 4096 RS(10,4) stripes on the H200 host, a tenth of their call
 * (perf/results/nvidia-h200/small-2026-11-25b).
 */
static int ptrs_checked_below(gfec_codec *c, const uint8_t *first)
{
	return !c->fft && c->eng.gpu_ops && c->eng.gpu_ops->checks_device_ptrs && first &&
	       gfec_engine_is_device(&c->eng, first);
}

int gfec_encode_batch(gfec_codec *c, int nstripes, const uint8_t *const *data,
		      uint8_t *const *parity, size_t len)
{
	int ret;

	if (!c || nstripes < 0 || !data || !parity || !len_ok(c, len))
		return GFEC_E_INVAL;
	if (nstripes == 0)
		return 0;
	if (!ptrs_checked_below(c, data[0]) &&
	    (!gfec_ptrs_nonnull((const void *const *)data, (size_t)c->k * nstripes) ||
	     !gfec_ptrs_nonnull((const void *const *)parity, (size_t)c->m * nstripes)))
		return GFEC_E_INVAL;
	ret = encode_stripes(c, nstripes, len, data, parity);
	if (ret)
		return ret;
	count_call(c, N_ENCODES, (uint64_t)nstripes,
		   (uint64_t)len * (uint64_t)c->k * (uint64_t)nstripes);
	return 0;
}

int gfec_update(gfec_codec *c, int vec_i, const uint8_t *delta, uint8_t *const *parity,
		size_t len)
{
	int ret;

	if (!c || vec_i < 0 || vec_i >= c->k || !delta ||
	    !gfec_ptrs_nonnull((const void *const *)parity, (size_t)c->m) || !len_ok(c, len))
		return GFEC_E_INVAL;
	ret = c->fft ? fft_update(c, vec_i, delta, parity, len)
		     : gfec_engine_update(&c->eng, &c->enc, c->m, vec_i, len, delta, parity);
	if (ret)
		return ret;
	count_call(c, N_UPDATES, 1, (uint64_t)len);
	return 0;
}

/* --- decode plans ------------------------------------------------------------------------ */

struct dplan_args {
	gfec_codec *c;
	const int *src, *want;
	int nwant;
};

/*
 * The decode matrix (nwant x k) into @p dm. The cauchy technique at w = 16 has its decode
 * matrices in closed form (gfmatrix's Cauchy form): O((k+m) m) work instead of inverting an
 * e x e block and multiplying it out (e^3 + e^2 k: hours at e = 4000).
 */
static int decode_matrix(const struct dplan_args *a, void *dm)
{
	const gfec_codec *c = a->c;
	uint16_t *form;
	int ret;

	if (c->w != 16 || c->prof.technique != GFEC_TECH_CAUCHY)
		return gfec_matrix_decode_w_threads(c->w, c->g, c->k, c->m, a->src, a->want,
						    a->nwant, c->prof.threads, dm);
	form = malloc(sizeof(*form) * 2 * ((size_t)a->nwant + (size_t)c->k));
	if (!form)
		return GFEC_E_NOMEM;
	uint16_t *x = form, *r = x + a->nwant, *y = r + a->nwant, *cs = y + c->k;

	ret = gfec_matrix_cauchy16_decode(c->k, c->m, a->src, a->want, a->nwant, x, r, y, cs);
	if (ret == 0)
		gfec_matrix_cauchy16_expand(a->nwant, c->k, x, r, y, cs, dm);
	free(form);
	return ret;
}

/* Builds the decode plan of a pattern the cache does not hold. */
static int dplan_build(void *arg, struct gfec_engine *e, struct gfec_eplan *out)
{
	const struct dplan_args *a = arg;
	const gfec_codec *c = a->c;
	struct gfec_gemm_matrix gm;
	void *dm;
	int ret;

	if (c->form) {
		uint16_t *x = malloc(sizeof(*x) * 2 * ((size_t)a->nwant + (size_t)c->k));

		if (!x)
			return GFEC_E_NOMEM;
		uint16_t *r = x + a->nwant, *y = r + a->nwant, *cs = y + c->k;

		ret = gfec_matrix_cauchy16_decode(c->k, c->m, a->src, a->want, a->nwant, x, r, y,
						  cs);
		gm = (struct gfec_gemm_matrix){ .w = 16, .rows = a->nwant, .cols = c->k, .cx = x,
						.cr = r, .cy = y, .cc = cs };
		if (ret == 0)
			ret = gfec_engine_plan_create(e, &gm, out);
		free(x);
		return ret;
	}
	dm = malloc((size_t)a->nwant * c->k * elem_size(c));
	if (!dm)
		return GFEC_E_NOMEM;
	ret = decode_matrix(a, dm);
	if (ret == 0) {
		gm = (struct gfec_gemm_matrix){ .w = c->w, .rows = a->nwant, .cols = c->k, .a = dm,
						.packetsize = packetsize(c) };
		ret = gfec_engine_plan_create(e, &gm, out);
	}
	free(dm);
	return ret;
}

/* --- decode, reconstruct, verify ---------------------------------------------------------- */

/*
 * One stripe's decode problem as its plan-cache key: the field width, then a bitmap of its
 * sources (its first k present chunks) and a bitmap of the chunks to rebuild, n bits each.
 * The key says everything about the problem: its source and wanted lists are read back from it.
 */
static size_t key_words(const gfec_codec *c)
{
	return 1 + 2 * (((size_t)c->k + c->m + 63) / 64);
}

static int dproblem_key(const gfec_codec *c, const uint8_t *const *chunks, uint8_t *const *out,
			uint64_t *key)
{
	const int n = c->k + c->m;
	const size_t nw = (key_words(c) - 1) / 2;
	uint64_t *src = key + 1, *want = src + nw;
	int nsrc = 0;

	memset(key, 0, key_words(c) * sizeof(*key));
	key[0] = c->w;
	for (int i = 0; i < n; i++) {
		if (chunks[i]) {
			if (nsrc < c->k) {
				nsrc++;
				src[i / 64] |= 1ull << (i % 64);
			}
		} else if (out[i]) {
			want[i / 64] |= 1ull << (i % 64);
		}
	}
	if (nsrc < c->k) {
		gfec_log(GFEC_LOG_WARN, "decode: %d of %d chunks present, need k=%d", nsrc, n,
			 c->k);
		return GFEC_E_TOOFEW;
	}
	return 0;
}

/* The set bits of a bitmap of @p n bits, ascending, into @p idx; returns how many. */
static int bitmap_list(const uint64_t *map, int n, int *idx)
{
	int cnt = 0;

	for (int i = 0; i < n; i++)
		if (map[i / 64] >> (i % 64) & 1)
			idx[cnt++] = i;
	return cnt;
}

int gfec_decode(gfec_codec *c, const uint8_t *const *chunks, uint8_t *const *out, size_t len)
{
	return gfec_decode_batch(c, 1, chunks, out, len);
}

struct stripe_key {
	const uint64_t *key;
	size_t words;
	int s; /* the stripe */
};

static int cmp_key(const void *a, const void *b)
{
	const struct stripe_key *x = a, *y = b;

	return memcmp(x->key, y->key, x->words * sizeof(*x->key));
}

/*
 * technique=fft: each stripe by the error-locator decoder (no matrices, nothing to cache); out[i]
 * of a present chunk is ignored, as in every decode.
 */
static int fft_decode(gfec_codec *c, int nstripes, const uint8_t *const *chunks,
		      uint8_t *const *out, size_t len)
{
	const int n = c->k + c->m;
	uint8_t **want = malloc(sizeof(*want) * (size_t)n);
	int ret = want ? 0 : GFEC_E_NOMEM;

	for (int s = 0; s < nstripes && !ret; s++) {
		const uint8_t *const *ch = chunks + (size_t)s * n;
		const uint8_t *first = NULL;
		int have = 0;

		for (int i = 0; i < n; i++) {
			have += ch[i] != NULL;
			want[i] = ch[i] ? NULL : out[(size_t)s * n + i];
			first = first ? first : ch[i] ? ch[i] : want[i];
		}
		if (have < c->k) {
			gfec_log(GFEC_LOG_WARN, "decode: %d of %d chunks present, need k=%d", have,
				 n, c->k);
			ret = GFEC_E_TOOFEW;
			break;
		}
		const int gpu = fft_on_gpu(c, first, NULL);
		const struct gfec_fft16_ops ops = fft_ops(c, gpu);

		ret = fft_done(c, gpu, gfec_fft16_decode(c->fft, &ops, len, ch, want));
	}
	free(want);
	if (ret)
		return ret;
	count_call(c, N_DECODES, (uint64_t)nstripes,
		   (uint64_t)len * (uint64_t)c->k * (uint64_t)nstripes);
	return 0;
}

/*
 * Stripes are grouped by erasure pattern: each group shares one decode matrix and runs as one
 * batched GEMM (one GPU launch), whatever order the stripes came in.
 */
int gfec_decode_batch(gfec_codec *c, int nstripes, const uint8_t *const *chunks,
		      uint8_t *const *out, size_t len)
{
	struct stripe_key *order;
	uint64_t *keys;
	int *src, *want;
	const uint8_t **sp;
	uint8_t **wp;
	size_t words;
	int n, ret = 0;
	uint64_t done = 0;

	if (!c || !chunks || !out || nstripes < 0 || !len_ok(c, len))
		return GFEC_E_INVAL;
	if (nstripes == 0)
		return 0;
	if (c->fft)
		return fft_decode(c, nstripes, chunks, out, len);
	n = c->k + c->m;
	words = key_words(c);
	/* one allocation for the call's five arrays, the 8-byte ones first */
	const size_t nkeys = words * (size_t)nstripes, nsp = (size_t)nstripes * c->k;
	const size_t nwp = (size_t)nstripes * n;

	keys = malloc(sizeof(*keys) * nkeys + sizeof(*order) * (size_t)nstripes +
		      sizeof(*sp) * nsp + sizeof(*wp) * nwp + sizeof(*src) * 2 * (size_t)n);
	if (!keys)
		return GFEC_E_NOMEM;
	order = (struct stripe_key *)(keys + nkeys);
	sp = (const uint8_t **)(order + nstripes);
	wp = (uint8_t **)(sp + nsp);
	src = (int *)(wp + nwp);
	want = src + n;
	for (int s = 0; s < nstripes; s++) {
		uint64_t *key = keys + (size_t)s * words;

		ret = dproblem_key(c, chunks + (size_t)s * n, out + (size_t)s * n, key);
		if (ret)
			goto out;
		order[s] = (struct stripe_key){ key, words, s };
	}
	if (nstripes > 1)
		qsort(order, (size_t)nstripes, sizeof(*order), cmp_key);

	for (int g0 = 0, g1; g0 < nstripes; g0 = g1) {
		const uint64_t *key = order[g0].key;
		const size_t nw = (words - 1) / 2;
		struct gfec_plan_hold h;
		int nwant;

		for (g1 = g0 + 1; g1 < nstripes && !cmp_key(&order[g0], &order[g1]); g1++)
			;
		bitmap_list(key + 1, n, src);
		nwant = bitmap_list(key + 1 + nw, n, want);
		if (nwant == 0)
			continue;
		for (int t = g0; t < g1; t++) {
			const size_t s = (size_t)order[t].s;

			for (int j = 0; j < c->k; j++)
				sp[(size_t)(t - g0) * c->k + j] = chunks[s * n + src[j]];
			for (int i = 0; i < nwant; i++)
				wp[(size_t)(t - g0) * nwant + i] = out[s * n + want[i]];
		}
		struct dplan_args args = { c, src, want, nwant };

		ret = gfec_plan_cache_get(&c->dcache, &c->eng, key, words * sizeof(*key),
					  dplan_build, &args, &h);
		if (ret)
			goto out;
		ret = gfec_engine_gemm(&c->eng, &h.d->plan, c->k, g1 - g0, len, sp, wp);
		gfec_plan_cache_put(&c->eng, &h);
		if (ret)
			goto out;
		done += (uint64_t)(g1 - g0);
	}
	count_call(c, N_DECODES, done, (uint64_t)len * (uint64_t)c->k * done);
out:
	free(keys);
	return ret;
}

int gfec_reconstruct(gfec_codec *c, uint8_t **chunks, size_t len)
{
	uint8_t **fresh;
	int n, ret = 0;

	if (!c || !chunks || !len_ok(c, len))
		return GFEC_E_INVAL;
	n = c->k + c->m;
	fresh = calloc((size_t)n, sizeof(*fresh));
	if (!fresh)
		return GFEC_E_NOMEM;
	for (int i = 0; i < n; i++)
		if (!chunks[i]) {
			fresh[i] = gfec_alloc(len);
			if (!fresh[i]) {
				ret = GFEC_E_NOMEM;
				goto out;
			}
		}
	ret = gfec_decode(c, (const uint8_t *const *)chunks, fresh, len);
out:
	for (int i = 0; i < n; i++) {
		if (!fresh[i])
			continue;
		if (ret)
			gfec_free(fresh[i]);
		else
			chunks[i] = fresh[i];
	}
	free(fresh);
	return ret;
}

int gfec_verify(gfec_codec *c, const uint8_t *const *chunks, size_t len, uint8_t *parity_ok)
{
	size_t piece, off;
	uint8_t *buf, **pp = NULL, *ok = NULL;
	const uint8_t **dp = NULL;
	int ret = 0, all = 1;

	if (!c || !gfec_ptrs_nonnull((const void *const *)chunks, (size_t)(c->k + c->m)) || !len_ok(c, len) ||
	    gfec_engine_is_device(&c->eng, chunks[0]))
		return GFEC_E_INVAL;
	piece = VERIFY_PIECE / len_unit(c) * len_unit(c);
	piece = piece ? piece : len_unit(c);
	piece = len < piece ? len : piece;
	/* Many parity rows (w = 16) would make m pieces of 1 MiB: keep the scratch near 64 MiB. */
	if (piece * (size_t)c->m > (64u << 20) && piece > len_unit(c)) {
		piece = (64u << 20) / (size_t)c->m / 64 * 64;
		piece = piece < 64 ? 64 : piece;
		piece = piece / len_unit(c) * len_unit(c);
		piece = piece ? piece : len_unit(c);
		piece = len < piece ? len : piece;
	}
	buf = gfec_alloc(piece * (size_t)c->m);
	pp = malloc(sizeof(*pp) * (size_t)c->m);
	dp = malloc(sizeof(*dp) * (size_t)c->k);
	ok = malloc((size_t)c->m);
	if (!buf || !pp || !dp || !ok) {
		ret = GFEC_E_NOMEM;
		goto out;
	}
	memset(ok, 1, (size_t)c->m);
	for (off = 0; off < len; off += piece) {
		size_t n = len - off < piece ? len - off : piece;

		for (int j = 0; j < c->k; j++)
			dp[j] = chunks[j] + off;
		for (int i = 0; i < c->m; i++)
			pp[i] = buf + (size_t)i * piece;
		ret = encode_stripes(c, 1, n, dp, pp);
		if (ret)
			goto out;
		for (int i = 0; i < c->m; i++)
			if (ok[i] && memcmp(pp[i], chunks[c->k + i] + off, n) != 0)
				ok[i] = 0;
	}
	for (int i = 0; i < c->m; i++) {
		all &= ok[i];
		if (parity_ok)
			parity_ok[i] = ok[i];
	}
	count_call(c, N_VERIFIES, 1, 0);
	ret = all ? 0 : GFEC_E_MISMATCH;
out:
	gfec_free(buf);
	free(pp);
	free(dp);
	free(ok);
	return ret;
}

/* --- minimum_to_decode ---------------------------------------------------------------------- */

int gfec_minimum_to_decode(const gfec_codec *c, const int *want, int nwant, const int *avail,
			   int navail, int *need, int *nneed)
{
	uint8_t *have, *wanted;
	int n, all = 1, cnt = 0, ret = 0;

	if (!c || nwant < 0 || navail < 0 || (nwant && !want) || (navail && !avail) || !need ||
	    !nneed)
		return GFEC_E_INVAL;
	n = c->k + c->m;
	have = calloc(2, (size_t)n);
	if (!have)
		return GFEC_E_NOMEM;
	wanted = have + n;
	for (int i = 0; i < navail; i++) {
		if (avail[i] < 0 || avail[i] >= n) {
			ret = GFEC_E_INVAL;
			goto out;
		}
		have[avail[i]] = 1;
	}
	for (int i = 0; i < nwant; i++) {
		if (want[i] < 0 || want[i] >= n) {
			ret = GFEC_E_INVAL;
			goto out;
		}
		wanted[want[i]] = 1;
		all &= have[want[i]];
	}
	if (all) {
		for (int i = 0; i < n; i++)
			if (wanted[i])
				need[cnt++] = i;
	} else {
		for (int i = 0; i < n && cnt < c->k; i++)
			if (have[i])
				need[cnt++] = i;
		if (cnt < c->k) {
			ret = GFEC_E_TOOFEW;
			goto out;
		}
	}
	*nneed = cnt;
out:
	free(have);
	return ret;
}

/* --- asynchronous requests -------------------------------------------------------------------- */

/* The queue's executor: a request runs through the same calls as a direct one. */
static int execute(void *owner, struct gfec_request *r)
{
	gfec_codec *c = owner;

	switch (r->op) {
	case GFEC_OP_ENCODE:
		return gfec_encode_batch(c, r->nstripes, r->in, r->out, r->len);
	case GFEC_OP_DECODE:
		return gfec_decode(c, r->in, r->out, r->len);
	case GFEC_OP_UPDATE:
		return r->in ? gfec_update(c, r->vec_i, r->in[0], r->out, r->len) : GFEC_E_INVAL;
	}
	return GFEC_E_INVAL;
}

int gfec_submit(gfec_codec *c, struct gfec_request *req)
{
	if (!c || !req || (req->op != GFEC_OP_ENCODE && req->op != GFEC_OP_DECODE &&
			   req->op != GFEC_OP_UPDATE))
		return GFEC_E_INVAL;
	return gfec_async_submit(c->async, req);
}

/* A coalesced request's end (coalesce.c, on the thread that ran its window). */
static void coalesced_done(void *ctx, void *arg, int status)
{
	gfec_codec *c = ctx;
	struct gfec_request *r = arg;

	if (status == 0) {
		count_call(c, N_ENCODES, (uint64_t)r->nstripes,
			   (uint64_t)r->len * (uint64_t)c->k * (uint64_t)r->nstripes);
	}
	gfec_async_complete(c->async, r, status);
}

static int post_job(void *ctx, struct gfec_job *job)
{
	return gfec_async_post(ctx, job);
}

static void hurry_job(void *ctx, struct gfec_job *job)
{
	gfec_async_hurry(ctx, job);
}

int gfec_submit_coalesced(gfec_codec *c, struct gfec_request *req, unsigned us, int max_stripes)
{
	const struct gfec_coalesce_req cr = { .post = post_job, .hurry = hurry_job,
					      .post_ctx = c ? c->async : NULL,
					      .done = coalesced_done, .done_ctx = c, .arg = req,
					      .us = us, .max_stripes = max_stripes };
	int ret;

	if (!c || !req || req->op != GFEC_OP_ENCODE || req->nstripes < 1 ||
	    req->nstripes > GFEC_WINDOW_MAX_STRIPES || us < 1 || us > GFEC_WINDOW_MAX_US ||
	    (int64_t)c->k * req->nstripes > INT_MAX || (int64_t)c->m * req->nstripes > INT_MAX ||
	    max_stripes < 1 || max_stripes > GFEC_WINDOW_MAX_STRIPES ||
	    !gfec_ptrs_nonnull((const void *const *)req->in, (size_t)c->k * req->nstripes) ||
	    !gfec_ptrs_nonnull((const void *const *)req->out, (size_t)c->m * req->nstripes) || !len_ok(c, req->len))
		return GFEC_E_INVAL;
	if (c->fft) /* no GEMM to gather: the queue runs it as gfec_submit() does */
		return gfec_submit(c, req);
	gfec_async_begin(c->async, req);
	ret = gfec_coalesce_submit(c->eng.coal, &c->eng, &c->enc, c->k, req->nstripes, req->len,
				   req->in, req->out, &cr);
	if (ret)
		gfec_async_abandon(c->async, req);
	return ret;
}

int gfec_cancel(gfec_codec *c, struct gfec_request *req)
{
	if (!c || !req || !c->eng.coal || gfec_coalesce_cancel(c->eng.coal, req))
		return GFEC_E_INVAL;
	gfec_async_abandon(c->async, req);
	return 0;
}

int gfec_wait(gfec_codec *c, struct gfec_request *req)
{
	if (!c || !req)
		return GFEC_E_INVAL;
	return gfec_async_wait(c->async, req);
}
