/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file gemm.h
 * The one operation every gfec backend implements: a GF matrix product over byte streams,
 *
 *        dst[i] (+)= sum_j  A(i,j) * src[j]      for i < rows, j < cols, over len bytes,
 *
 * and the table of operations through which plugin/ drives a backend (the liberasurecode /
 * NCCL pattern: a struct of function pointers; NULL means "not supported"). Encode is A = G,
 * decode is A = a decode matrix, update is one column of G accumulated into the parity.
 *
 * A backend never calls up into plugin/. A plan holds whatever the backend derives from A once
 * (ISA-L's expanded tables, a device copy of A): plans are immutable after creation and may be
 * used from many threads at once.
 */
#ifndef GFEC_BASE_GEMM_H
#define GFEC_BASE_GEMM_H

#include <stddef.h>
#include <stdint.h>

#include "gfec/gfec_errors.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The matrix a plan is made from, and the layout it is applied in.
 *
 * packetsize = 0: symbols are bytes, dst[i][b] = sum_j A(i,j) * src[j][b] (ISA-L's layout).
 * packetsize = P > 0: Cauchy RS (CRS) layout: every buffer is blocks of w packets of P bytes, and
 * A acts through its w x w bitmatrix: packet l of dst[i] is the XOR of packets x of src[j] over
 * the set bits (l, x) of A(i,j)'s bitmatrix (Jerasure's jerasure_bitmatrix_encode). len must
 * then be a multiple of w * P, and P a multiple of 8.
 *
 * w = 16: symbols are 16-bit little-endian words (Jerasure's w = 16 region layout), len is even,
 * and a points at rows x cols uint16_t elements (packetsize must be 0), up to 65536 x 65536.
 *
 * Cauchy form (w = 16 only; a is then NULL): A(i,j) = cr[i] * cc[j] / (cx[i] ^ cy[j]) in
 * GF(2^16), from rows + cols points and scalars, for matrices too large to hold (the cauchy
 * technique's 32768 x 32768 generator would be 2 GiB). Only the CPU backend takes it (and
 * generates the rows per slice); the codec never hands it to the GPU backend.
 */
struct gfec_gemm_matrix {
	unsigned w;	  /**< field width in bits: 8, or 16 */
	int rows;	  /**< outputs */
	int cols;	  /**< inputs */
	const uint8_t *a; /**< rows x cols, row-major: one byte per element for w = 8, one
			       uint16_t (cast to this pointer) for w = 16; NULL: Cauchy form */
	size_t packetsize;
	const uint16_t *cx, *cr; /**< Cauchy form: rows points and row scalars */
	const uint16_t *cy, *cc; /**< Cauchy form: cols points and column scalars */
};

/** Counters a backend keeps; all are totals since the backend context was created. */
struct gfec_backend_stats {
	uint64_t calls;		/**< gemm + update calls */
	uint64_t bytes_in;	/**< source bytes read */
	uint64_t fallbacks;	/**< calls redone on another path after an error */
	uint64_t resident;	/**< GPU: calls the resident kernels ran (gpu_resident_us, _pinned) */
	uint64_t staged;	/**< GPU: host calls run through a lane or a stage (not in place) */
};

/**
 * A tuning rule (gfec.conf's [tune] entries, written by `gfec tune`): use @p kernel for matrices
 * with cols in [cols_min, cols_max] and rows in [rows_min, rows_max], on calls whose len is in
 * [len_min, len_max]. The first matching rule wins; none matching means the built-in default.
 */
struct gfec_tune_rule {
	char kernel[32];
	int cols_min, cols_max, rows_min, rows_max;
	size_t len_min, len_max;
};

#define GFEC_MAX_TUNE_RULES 32

/** The most device contexts one backend drives (gpu_devices= lists at most this many). */
#define GFEC_MAX_GPU_CONTEXTS 16

/** Host-buffer GPU calls in flight per device by default (gpu_lanes). */
#define GFEC_GPU_LANES_DEFAULT 8
/** Bytes of calls on pinned memory read in place in flight per device by default (gpu_map_bytes). */
#define GFEC_GPU_MAP_BYTES_DEFAULT ((size_t)128 << 20)

/** stream_min: let the CPU backend pick for this CPU (the knob's "auto", num -1 as a size_t). */
#define GFEC_STREAM_MIN_AUTO SIZE_MAX

struct gfec_backend_conf {
	/* CPU */
	int threads;	       /**< worker threads, 0 = number of online CPUs */
	size_t slice;	       /**< bytes per slice for threading, 0 = backend default */
	size_t stream_min;     /**< GFNI paths: gemm calls of len >= this write by non-temporal
				    stores (outputs 64-byte aligned); 0 = never;
				    GFEC_STREAM_MIN_AUTO = the backend's pick for this CPU */
	const char *path;      /**< force an inner path by name (e.g. "base"); NULL = best */
	/* GPU */
	const char *kernel;    /**< force a kernel by name (e.g. "nibble_rg1_t512"); NULL = default */
	int device;	       /**< CUDA device ordinal */
	int streams;	       /**< pipeline depth for host buffers, 0 = default */
	size_t segment;	       /**< staging bytes per pipeline slot, 0 = default */
	int lanes;	       /**< staged host-buffer calls in flight per device, 0 = default
				    (GFEC_GPU_LANES_DEFAULT) */
	int pinned_dma;	       /**< pinned host buffers through the staged pipeline's copies
				    instead of being read and written in place by the kernels */
	long long map_bytes;   /**< bytes (in + out) of in-place calls in flight per device: 0 =
				    default (GFEC_GPU_MAP_BYTES_DEFAULT), -1 = no cap */
	long long resident_us; /**< > 0: calls of one small stripe in device memory go to a kernel
				    kept running, which leaves after this many idle microseconds */
	int resident_pinned;   /**< > 0: calls of one stripe read in place from pinned host memory
				    go to this many kernels kept running (4 multiprocessors each) */
	int stage_calls;       /**< tests: with resident_pinned, a pageable stripe of several
				    stage-sized pieces goes to the kernels once this many staged
				    calls are in flight, its own included (else through a lane);
				    0 = one more than lanes */
	const struct gfec_tune_rule *rules; /**< tuning table (may be NULL) */
	int nrules;
	int fault;	       /**< tests: 1 (GFEC_FAULT=cuda): every device call fails; 2 + i
				    (GFEC_FAULT=cuda-ctxI): only context i of devices[] fails */
	int fault_kernel;      /**< tests (GFEC_FAULT=cuda-kernel): the GEMM kernels launch, then
				    fail on the device (a trap: the process's CUDA context is lost) */
	/* several GPUs (gfec_gpu_multi_backend(), gpu_devices=) */
	const int *devices;    /**< one context per entry: CUDA ordinals, repeats allowed */
	int ndevices;	       /**< entries in devices; -1: every visible device; 0: device */
	size_t split_min;      /**< source bytes below which a call is not split, 0 = default */
};

/** One device context of a backend that drives several (gfec_backend_ops.devices). */
struct gfec_backend_device {
	int ordinal;	    /**< CUDA device ordinal */
	char name[64];	    /**< the device's name */
	double mem_gib;	    /**< its memory */
	int pci_bus;	    /**< its PCI bus id (two contexts on one GPU share it) */
	uint64_t calls;	    /**< shares this context ran */
	uint64_t bytes_in;  /**< source bytes it coded */
	uint64_t failures;  /**< shares that failed on it (and were redone elsewhere) */
	double share;	    /**< its fraction of all source bytes coded so far */
	double rate_host;   /**< EWMA of its achieved rate on host buffers, bytes/s (0: none yet) */
	double rate_dev;    /**< the same on buffers in device memory */
};

/**
 * The kinds of gfec_backend_ops.butterfly16: the region operations of an additive FFT over
 * GF(2^16) (gfmatrix/fft16.h), on 16-bit little-endian symbols, one op per (x, y, c) triple:
 *  FWD: x ^= c * y; then y ^= x        (a forward butterfly; c = 0 leaves y ^= x alone)
 *  INV: y ^= x; then x ^= c * y        (its inverse)
 *  MUL: x = c * y                      (x may be y; a copy when c = 1)
 */
enum gfec_bfly_kind {
	GFEC_BFLY_FWD = 0,
	GFEC_BFLY_INV = 1,
	GFEC_BFLY_MUL = 2,
	/** A flag OR'ed into the kind: no region is written by one op of the call and read or
	 * written by another, so a backend may also split the list (not only the bytes). */
	GFEC_BFLY_DISJOINT = 16,
	/** A flag OR'ed into the kind: the ops come in groups of four (n is a multiple of 4), each
	 * group in order, no region of one group touched by another: a backend may split the list
	 * between groups (a radix-4 pass: a group's four ops over a slice while it is in cache). */
	GFEC_BFLY_GROUP4 = 32,
	/** A flag OR'ed into GFEC_BFLY_FWD with every c = 0 (y ^= x): the ops come in runs of
	 * consecutive ops with the same y, two runs never share their y, and no op's y is an x of
	 * the call: a backend may run each run as y ^= the sum of its xs in one pass over y, and
	 * split the list between runs (the decoder's formal derivative, fft16.c). */
	GFEC_BFLY_SUMS = 64,
};

/** Every flag. */
#define GFEC_BFLY_FLAGS (GFEC_BFLY_DISJOINT | GFEC_BFLY_GROUP4 | GFEC_BFLY_SUMS)

struct gfec_backend_ops {
	const char *name;

	/** Creates a context. May fail with GFEC_E_NOBACKEND when the hardware is absent. */
	int (*init)(const struct gfec_backend_conf *conf, void **ctx);
	void (*fini)(void *ctx);

	/** 0 when this backend can run @p a, else GFEC_E_NOTSUP. */
	int (*can_implement)(void *ctx, const struct gfec_gemm_matrix *a);

	int (*plan_create)(void *ctx, const struct gfec_gemm_matrix *a, void **plan);
	void (*plan_free)(void *ctx, void *plan);

	/**
	 * dst[i] = sum_j A(i,j) src[j] for @p nstripes stripes that share A: stripe s reads
	 * src[s*cols + j] and writes dst[s*rows + i]. Buffers need no alignment; dst must not
	 * alias src. On error the contents of dst are unspecified.
	 */
	int (*gemm)(void *ctx, const void *plan, int nstripes, size_t len,
		    const uint8_t *const *src, uint8_t *const *dst);

	/**
	 * dst[i] ^= A(i,col) * src for every row i: the parity-delta update. On error, *done
	 * says how many leading bytes of every dst already hold their final value (the rest are
	 * untouched), so that a caller can finish the job elsewhere without applying it twice.
	 */
	int (*update)(void *ctx, const void *plan, int col, size_t len, const uint8_t *src,
		      uint8_t *const *dst, size_t *done);

	/** 1 when @p p is device memory the CPU cannot read. NULL: never. */
	int (*is_device_ptr)(void *ctx, const void *p);

	void (*stats)(void *ctx, struct gfec_backend_stats *out);

	/** The inner path in use, e.g. "isal-avx512" or "base" (for logs and tools). */
	const char *(*path_name)(void *ctx);

	/**
	 * The device contexts behind @p ctx, up to @p max of them into @p out; returns how many
	 * there are. NULL: a backend of one device (or none), which lists nothing.
	 */
	int (*devices)(void *ctx, struct gfec_backend_device *out, int max);

	/**
	 * The one op beside the GEMM: @p n GF(2^16) butterflies of @p kind (enum gfec_bfly_kind)
	 * over @p len bytes (even) of 16-bit symbols, op p on regions x[p], y[p] with constant
	 * c[p], applied IN ORDER p = 0..n-1 at every symbol position: an op may read what an
	 * earlier op of the call wrote (each symbol position is an independent code word, so a
	 * backend may split the bytes, never the order). Two regions are either the same or
	 * disjoint. Returns 0 or a negative GFEC_E_*; on error the regions' contents are
	 * unspecified. NULL: not supported (the caller runs the plain-C reference).
	 */
	int (*butterfly16)(void *ctx, int kind, int n, size_t len, uint8_t *const *x,
			   uint8_t *const *y, const uint16_t *c);

	/**
	 * Optional companions of butterfly16 (gfmatrix/fft16.h's struct gfec_fft16_ops says how
	 * a caller uses them). NULL bfly16_sync: butterfly16 returns with its ops done. Else
	 * butterfly16 may be asynchronous: it takes its lists at call time and queues the ops (in
	 * order) on the context; bfly16_sync waits for all of them (0 or a negative GFEC_E_*).
	 * bfly16_alloc / bfly16_free (both or neither): memory for work regions that only the ops
	 * touch (NULL when there is none), freed in the ops' order. bfly16_work: the bytes of work
	 * regions a call should aim at (0: the caller's default).
	 */
	void *(*bfly16_alloc)(void *ctx, size_t bytes);
	void (*bfly16_free)(void *ctx, void *p);
	int (*bfly16_sync)(void *ctx);
	size_t (*bfly16_work)(void *ctx);

	/**
	 * 1 when the backend's kernels address the memory at @p p directly: device memory, or host
	 * memory they read and write in place (pinned and mapped); a call on it holds none of the
	 * backend's staging resources. One query where is_device_ptr and a pinned check would take
	 * two. NULL: as is_device_ptr.
	 */
	int (*in_place)(void *ctx, const void *p);

	/**
	 * 1 when gemm() with these arguments on host memory would hold one of the backend's lanes
	 * (gpu_lanes: the staging pipelines that the engine's gate hands out in arrival order); 0
	 * for a call read in place and for a staged call the backend runs without a lane (the GPU
	 * backend's resident engines). NULL: a call holds one unless in_place(src[0]) or
	 * in_place(dst[0]).
	 */
	int (*holds_lane)(void *ctx, const void *plan, int nstripes, size_t len,
			  const uint8_t *const *src, uint8_t *const *dst);

	/**
	 * 1 when gemm() with these arguments would be served without a launch, by kernels kept
	 * running (the GPU backend's resident engines, gpu_resident_pinned): the coalescer's launch
	 * slots, which gather calls into launches, leave such a call to them. NULL: never.
	 */
	int (*runs_resident)(void *ctx, const void *plan, int nstripes, size_t len,
			     const uint8_t *const *src, uint8_t *const *dst);

	/**
	 * 1 when gemm() on device memory (src[0] device memory: is_device_ptr) checks its pointer
	 * arrays itself, answering GFEC_E_INVAL before it writes anything when any pointer is NULL
	 * (it reads them all anyway): the codec then skips its own pass over a batch's pointers.
	 * 0: the caller checks.
	 */
	int checks_device_ptrs;
};

#ifdef __cplusplus
}
#endif
#endif
