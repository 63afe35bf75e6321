/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file gfec.h
 * gfec: Reed-Solomon erasure coding as a GF(2^8) or GF(2^16) matrix product, on ISA-L or a GPU.
 *
 * Vocabulary, used by every function below:
 *   w        the field: GF(2^w), w = 8 (the default) or 16 (profile key w; gfec_codec_w()).
 *   k        number of data chunks; m number of parity chunks; 2 <= k, 1 <= m <= k,
 *            k+m <= GFEC_MAX_CHUNKS (256) for w = 8, <= GFEC_MAX_CHUNKS_GF16 (65536) for w = 16.
 *   chunk i  0 <= i < k is data (the object split in order), k <= i < k+m is parity.
 *   len      bytes in every chunk of one call; all chunks of a call have the same len.
 *            Any len >= 0 and any pointer alignment work; gfec_codec_chunk_size() rounds to
 *            GFEC_ALIGN so that the fast paths see whole vectors. With w = 16 a chunk is an array
 *            of 16-bit little-endian symbols (Jerasure's w = 16 region layout: symbol s is
 *            byte 2s | byte 2s+1 << 8), so len must be even: an odd len is GFEC_E_INVAL, with
 *            nothing written, from every call that takes one.
 *   G        the m x k generator (parity part), row-major: parity_i = sum_j G(i,j) * data_j,
 *            with elements in GF(2^w).
 *   chunks[] an array of k+m pointers indexed by chunk number; NULL marks a missing chunk.
 * Buffers are always owned by the caller unless a function says otherwise.
 *
 * Profiles are Ceph-style "key=value" pairs separated by spaces or commas:
 *   k=10 m=4 technique=cauchy backend=auto
 * Keys: k, m (required); technique = reed_sol_van (ISA-L Vandermonde, only where it is MDS)
 * | cauchy (ISA-L Cauchy1, default) | jerasure_reed_sol_van (Jerasure's systematic Vandermonde)
 * | cauchy_good (Jerasure's Cauchy RS over packets: packetsize = P bytes, default 2048; every len
 * must then be a multiple of 8 * P, which gfec_codec_chunk_size() returns);
 * w = 8 | 16 (default 8). With w = 16 the techniques are cauchy (G(i,j) = 1 / ((k+i) XOR j) in
 * GF(2^16), polynomial 0x1100B: MDS for every shape) and jerasure_reed_sol_van (Jerasure's
 * reed_sol_vandermonde_coding_matrix(k, m, 16): its parity is byte-identical to
 * jerasure_matrix_encode(w = 16)) and fft (an O(n log n) Reed-Solomon code by the additive FFT
 * of Lin, Chung and Han, Leopard-RS's method over gfec's field and points: MDS, systematic, its
 * own parity (neither cauchy's nor Vandermonde's); host buffers run on the CPU backend, buffers
 * in device memory on the GPU's with backend=gpu or auto; backend=hybrid is GFEC_E_PROFILE; an
 * update re-encodes the delta); others are GFEC_E_PROFILE.
 * G is held dense up to 2 k m = 64 MiB (about k = m = 4096); a cauchy code beyond that (up to 32768
 * + 32768) holds G and its decode matrices in Cauchy form and generates their rows on the CPU for
 * every call (slow: each call touches all k m coefficients; backend=gpu is then GFEC_E_NOTSUP, auto
 * stays on the CPU). A jerasure_reed_sol_van code whose construction would take over 1.5e9
 * multiplies (about k = 1000, m = 500) is GFEC_E_NOTSUP, with the reason in err. Decode matrices of
 * cauchy at w = 16 come in closed form (no inverse), so decoding m losses of a large code is cheap.
 * backend = cpu | gpu | auto (default); threads = N (CPU threads, 0 = online CPUs, the default);
 * cpu_path = auto | gfni512 | gfni256 | avx2 | isal | base (auto, the default: the best this CPU
 * has; GFEC_CPU_PATH does the same);
 * decode_cache = N (decode matrices kept, LRU, default 64, besides the one each CPU used last);
 * async_threads = N (default 2: the workers of gfec_submit() and of gfec_submit_coalesced()'s
 * windows);
 * gpu_kernel = NAME, gpu_min_bytes = N (auto: GPU for calls with >= N data bytes), gpu_device,
 * gpu_streams, gpu_segment, gpu_lanes, gpu_pinned = map | dma. Knobs (threads, cpu_path, gpu_*) may
 * also come from the environment and gfec.conf: profile > environment > gfec.conf > default
 * (gfec_config.h).
 *
 * Memory: buffers are host memory, or, when the codec runs on the GPU (backend=gpu, or auto on a
 * machine with a usable GPU), device memory (cudaMalloc); all buffers of one call must be of one
 * kind. Device buffers are used in place, with no copies. gfec_verify() needs host memory.
 * Host buffers (pinned or not) are read when the call is made, as the CPU backend reads them:
 * CUDA work that writes them (a cudaMemcpyAsync into pinned memory) must be complete before the
 * call, on every backend. Device buffers: GPU calls wait for what the caller queued before on
 * the legacy default stream; work on other streams must be synchronised first.
 *
 * Errors: every call returns 0 or a negative GFEC_E_* code (gfec_errors.h); none aborts, exits
 * or prints. Messages go to the callback set by gfec_set_log() (gfec_log.h), if any.
 * Threads: every function may be called concurrently on one shared codec.
 */
#ifndef GFEC_GFEC_H
#define GFEC_GFEC_H

#include <stddef.h>
#include <stdint.h>

/* The ground floor's public headers (gfmatrix/base/include, installed beside this one). */
#include "gfec/gfec_errors.h"
#include "gfec/gfec_limits.h"
#include "gfec/gfec_log.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GFEC_VERSION_MAJOR 0
#define GFEC_VERSION_MINOR 1
#define GFEC_VERSION_PATCH 0

/** Chunk sizes from gfec_codec_chunk_size() are multiples of this many bytes. */
#define GFEC_ALIGN 64

typedef struct gfec_codec gfec_codec;

/** "MAJOR.MINOR.PATCH" of the loaded library. */
GFEC_API const char *gfec_version(void);

/**
 * The GPU kernels this build has, comma-separated ("" without a GPU backend); each name is a
 * valid gpu_kernel= value. Static storage.
 */
GFEC_API const char *gfec_gpu_kernels(void);

/**
 * Creates a codec from a profile (see the top of this file).
 * @param err     if not NULL, receives a one-line reason on failure, naming the bad key
 * @param errlen  size of err in bytes
 * @returns 0 and *out, or GFEC_E_PROFILE, GFEC_E_NOT_MDS, GFEC_E_NOBACKEND, GFEC_E_NOMEM, ...
 */
GFEC_API int gfec_codec_create(const char *profile, gfec_codec **out, char *err, size_t errlen);

/** Frees a codec; no call on it may be in flight. NULL is accepted. */
GFEC_API void gfec_codec_free(gfec_codec *codec);

GFEC_API int gfec_codec_k(const gfec_codec *codec);
GFEC_API int gfec_codec_m(const gfec_codec *codec);
/** k + m. */
GFEC_API int gfec_codec_chunk_count(const gfec_codec *codec);
/** The field width w: 8 or 16 (GFEC_E_INVAL for NULL). With 16, every len must be even. */
GFEC_API int gfec_codec_w(const gfec_codec *codec);

/**
 * Bytes per chunk for an object of @p object_size bytes: ceil(object_size / k) rounded up to
 * GFEC_ALIGN (at least GFEC_ALIGN), or to 8 * packetsize for cauchy_good. The object is
 * zero-padded to k * chunk size.
 */
GFEC_API size_t gfec_codec_chunk_size(const gfec_codec *codec, size_t object_size);

/**
 * The normalised profile, defaults filled in ("k=4 m=2 technique=cauchy backend=cpu ...");
 * w = 16 codecs have "w=16" after m (w = 8 is not written).
 * @returns the length it needs (excluding the NUL); writes at most buflen bytes, NUL-terminated.
 */
GFEC_API size_t gfec_codec_profile(const gfec_codec *codec, char *buf, size_t buflen);

/** Computes the m parity chunks from the k data chunks. parity[] must not alias data[]. */
GFEC_API int gfec_encode(gfec_codec *codec, const uint8_t *const *data, uint8_t *const *parity,
		size_t len);

/**
 * Encodes @p nstripes stripes that share this codec's G in one call (one GPU launch): stripe s
 * reads data[s*k + j] and writes parity[s*m + i]. Small stripes (e.g. 4 KiB chunks) reach GPU
 * memory bandwidth only this way.
 */
GFEC_API int gfec_encode_batch(gfec_codec *codec, int nstripes, const uint8_t *const *data,
			       uint8_t *const *parity, size_t len);

/**
 * Rebuilds missing chunks. For every i with chunks[i] == NULL and out[i] != NULL, chunk i is
 * written to out[i]. At least k chunks must be present (GFEC_E_TOOFEW otherwise); when more are
 * present, data chunks are preferred as sources.
 */
GFEC_API int gfec_decode(gfec_codec *codec, const uint8_t *const *chunks, uint8_t *const *out, size_t len);

/**
 * gfec_decode() for @p nstripes stripes: stripe s uses chunks[s*(k+m) + i] and out[s*(k+m) + i].
 * Stripes with the same erasure pattern share a decode matrix and run as one batched GEMM (one GPU
 * launch), so many small stripes with few patterns decode at bandwidth. Returns the first error;
 * GFEC_E_TOOFEW for any stripe is found before anything is written.
 */
GFEC_API int gfec_decode_batch(gfec_codec *codec, int nstripes, const uint8_t *const *chunks,
			       uint8_t *const *out, size_t len);

/**
 * Like gfec_decode(), but allocates every missing chunk (gfec_alloc) and stores it in chunks[].
 * On success the caller frees the new buffers with gfec_free(); on failure chunks[] is unchanged.
 */
GFEC_API int gfec_reconstruct(gfec_codec *codec, uint8_t **chunks, size_t len);

/**
 * Recomputes parity from the k data chunks and compares it with the m stored parity chunks.
 * All k+m chunks must be present. @param parity_ok NULL, or m bytes set to 1 (matches) / 0.
 * @returns 0 when all parity matches, GFEC_E_MISMATCH when some does not, or another error.
 */
GFEC_API int gfec_verify(gfec_codec *codec, const uint8_t *const *chunks, size_t len, uint8_t *parity_ok);

/**
 * Parity-delta update for a partial-stripe write of data chunk @p vec_i:
 * parity_j ^= G(j, vec_i) * delta for every j, where delta = old_data XOR new_data.
 */
GFEC_API int gfec_update(gfec_codec *codec, int vec_i, const uint8_t *delta, uint8_t *const *parity,
		size_t len);

/**
 * Which chunks to read to obtain the @p nwant chunks in @p want, given the @p navail chunks in
 * @p avail (Ceph's minimum_to_decode). If every wanted chunk is available the answer is @p want
 * itself; otherwise it is k available chunks, data chunks first.
 * @param need  room for k+m indices; receives the answer in ascending order
 * @returns 0 and *nneed, GFEC_E_TOOFEW (fewer than k available) or GFEC_E_INVAL.
 */
GFEC_API int gfec_minimum_to_decode(const gfec_codec *codec, const int *want, int nwant, const int *avail,
			   int navail, int *need, int *nneed);

/* ---- asynchronous requests ------------------------------------------------------------------ */

enum gfec_op { GFEC_OP_ENCODE = 1, GFEC_OP_DECODE = 2, GFEC_OP_UPDATE = 3 };

/**
 * One request for gfec_submit(). The caller owns it and every buffer it names until it completes.
 *   ENCODE: in = data[nstripes*k], out = parity[nstripes*m]   (as gfec_encode_batch)
 *   DECODE: in = chunks[k+m] (NULL = missing), out[k+m]       (as gfec_decode; nstripes unused)
 *   UPDATE: in = &delta (one pointer), out = parity[m], vec_i  (as gfec_update)
 */
struct gfec_request {
	enum gfec_op op;
	int nstripes;
	size_t len;
	const uint8_t *const *in;
	uint8_t *const *out;
	int vec_i;
	/**
	 * Called on a gfec worker thread when the request is complete, status set. With a callback
	 * the request may be freed inside it, and gfec_wait() must not be used on it.
	 */
	void (*done)(struct gfec_request *req, void *user);
	void *user;
	int status; /**< the result: 0 or a GFEC_E_* code */
	/* private to gfec */
	struct gfec_request *next_;
	int state_;
};

/**
 * Queues @p req on the codec's worker threads (profile key async_threads, default 2; started on
 * the first submit). Completed requests give the same bytes as the synchronous calls.
 * @returns 0 (the request will complete), GFEC_E_INVAL or GFEC_E_SYSTEM.
 */
GFEC_API int gfec_submit(gfec_codec *codec, struct gfec_request *req);

/** Blocks until @p req (submitted without a callback) is complete; returns its status. */
GFEC_API int gfec_wait(gfec_codec *codec, struct gfec_request *req);

/** The most stripes one window of gfec_submit_coalesced() carries (and one request may). */
#define GFEC_WINDOW_MAX_STRIPES 65536
/** The longest deadline of such a window, microseconds (a minute). */
#define GFEC_WINDOW_MAX_US 60000000

/**
 * gfec_submit() for ENCODE requests that may wait to share one run with others (issue 17's
 * coalescing; the RDMA ingest submits each stripe this way). @p req joins a *window* with the
 * other requests submitted this way to @p codec with the same len and buffers in the same kind
 * of memory (host, or the codec's GPU); the window closes when it holds @p max_stripes stripes,
 * or @p us microseconds after the request that opened it, whichever comes first, and then runs
 * as ONE gfec_encode_batch over all its requests' stripes: the backend is chosen for the
 * window's bytes (one GPU launch where the codec sends that many to the GPU), and a GPU error
 * redoes the whole window on the CPU (identical bytes; one fallback in gfec_stats). Each request
 * then completes as with gfec_submit() (its callback on a gfec worker thread, or gfec_wait()),
 * with the window's status. A window waiting for its deadline holds no thread; once it closes,
 * one of the codec's async_threads workers runs it, ahead of gfec_submit()'s requests.
 * @param us           the window's deadline, 1..GFEC_WINDOW_MAX_US (the opener's applies)
 * @param max_stripes  the window's size, 1..GFEC_WINDOW_MAX_STRIPES (the opener's applies)
 * @returns 0 (the request will complete, unless withdrawn by gfec_cancel), GFEC_E_INVAL (not an
 *          ENCODE request, NULL buffers, a bad len, nstripes outside 1..GFEC_WINDOW_MAX_STRIPES)
 *          or GFEC_E_NOMEM. When no worker thread can start, the window runs at once on the
 *          calling thread, whose callback may then run before this returns.
 */
GFEC_API int gfec_submit_coalesced(gfec_codec *codec, struct gfec_request *req, unsigned us,
				   int max_stripes);

/**
 * Withdraws a request of gfec_submit_coalesced() whose window has not started to run: 0, and
 * the request will not complete (no callback; gfec_wait() returns GFEC_E_INVAL at once); its
 * buffers are the caller's again. GFEC_E_INVAL when its window has started (it completes as
 * usual), when it completed, or when it was not submitted that way.
 */
GFEC_API int gfec_cancel(gfec_codec *codec, struct gfec_request *req);

/** The windows of gfec_submit_coalesced() on a codec, totals since it was created. */
struct gfec_window_stats {
	uint64_t windows;	    /**< windows run (one whose requests were all withdrawn is not) */
	uint64_t full, deadline;    /**< of which closed at max_stripes, or at the deadline */
	uint64_t requests, stripes; /**< requests and stripes in those windows */
	uint64_t cancelled;	    /**< requests withdrawn by gfec_cancel() */
	/** a window's run, start to end: bucket i counts [2^i, 2^(i+1)) us (bucket 0 also < 1) */
	uint64_t run_us[32];
};

GFEC_API void gfec_codec_window_stats(const gfec_codec *codec, struct gfec_window_stats *out);

struct gfec_stats {
	uint64_t encodes, decodes, verifies, updates; /**< successful calls */
	uint64_t bytes;			/**< data bytes processed (k*len per encode) */
	uint64_t decode_cache_hits, decode_cache_misses;
	uint64_t fallbacks;		/**< calls redone on the CPU after a GPU error */
	uint64_t gpu_calls;		/**< calls the GPU completed */
};

GFEC_API void gfec_codec_stats(const gfec_codec *codec, struct gfec_stats *out);

/** One GPU context of a codec (gfec_codec_gpu_devices()); counters are totals since creation. */
struct gfec_gpu_device {
	int ordinal;		/**< CUDA device ordinal */
	char name[64];		/**< the device's name */
	double mem_gib;		/**< its memory, GiB */
	int pci_bus;		/**< its PCI bus id: contexts on one GPU share it */
	uint64_t calls;		/**< shares of calls it ran */
	uint64_t bytes;		/**< source bytes it coded */
	uint64_t failures;	/**< shares that failed on it (redone on the others or the CPU) */
	double share;		/**< its fraction of all source bytes coded so far */
	double rate_host;	/**< its measured rate on host buffers, bytes/s (0: none yet) */
	double rate_dev;	/**< the same on buffers in device memory */
};

/**
 * The GPU contexts of a codec made with the profile key gpu_devices= (one per listed ordinal):
 * up to @p max of them into @p out. Returns how many there are: 0 for a codec on one GPU
 * (gpu_device=) or none, GFEC_E_INVAL for a NULL codec (or NULL @p out with max > 0).
 */
GFEC_API int gfec_codec_gpu_devices(const gfec_codec *codec, struct gfec_gpu_device *out, int max);

/** The backend and inner path in use, e.g. "cpu/isal"; valid while the codec lives. */
GFEC_API const char *gfec_codec_backend(const gfec_codec *codec);

/**
 * Device memory for a NIC to write into (RDMA): @p len bytes on the GPU that @p codec runs on
 * (its profile's gpu_device; GPU 0 for a NULL codec), exported as a dma-buf file descriptor
 * *fd that the caller registers with the NIC and then closes. 0, or GFEC_E_NOBACKEND (no CUDA in
 * this build, no driver, no such GPU), GFEC_E_NOTSUP (the GPU or driver cannot export dma-buf),
 * GFEC_E_NOMEM or GFEC_E_DEVICE, with @p why (one line) saying which. Free with
 * gfec_codec_gpu_dmabuf_free(), from any thread.
 */
GFEC_API int gfec_codec_gpu_dmabuf(const gfec_codec *codec, size_t len, void **ptr, int *fd,
				   char *why, size_t whylen);
GFEC_API void gfec_codec_gpu_dmabuf_free(const gfec_codec *codec, void *ptr);

/** GFEC_ALIGN-aligned allocation for chunk buffers; NULL on failure. Free with gfec_free(). */
GFEC_API void *gfec_alloc(size_t size);
GFEC_API void gfec_free(void *p);

#ifdef __cplusplus
}
#endif
#endif
