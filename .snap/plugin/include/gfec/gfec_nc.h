/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file gfec_nc.h
 * Network coding over GF(2^8): random linear network coding (RLC), and fountain (LT) codes on
 * the same block format (family GFEC_NC_LT, see "LT codes" below). A source cuts its data into
 * segments, sends coded blocks, relays recode what they hold without decoding (RLC), and a sink
 * decodes a segment from any n independent blocks (RLC; LT: a few more), in any order, however
 * many relays they went through.
 *
 * Vocabulary, used by every function below:
 *   n        source blocks per segment, 1 <= n <= GFEC_NC_MAX_N.
 *   B        bytes per block (block_size), 1 <= B <= GFEC_NC_MAX_BLOCK.
 *   segment  n * B bytes, one buffer: source block i is bytes [i*B, (i+1)*B).
 *   coded block  x = sum_i c_i * b_i over GF(2^8) (polynomial 0x11D, as in gfec.h), for a
 *            coefficient row c of n bytes; the source block b_i itself is the row e_i.
 *   seed     a 32-bit number that names a coefficient row: c_i = gfec_nc_prng_coef() of
 *            (seed, i) (gfmatrix/base/nc_prng.h, identical on CPU and GPU).
 *   block    what travels: a header (below) followed by the B payload bytes of x. Two kinds:
 *            seed-carrying (4 bytes name c; what a source sends) and coefficient-carrying (the n
 *            bytes of c; what a relay sends after recoding).
 *
 * Block format, version 1, every integer little-endian:
 *
 *     offset  size  field
 *      0      4     magic "GFNC"
 *      4      1     version (1)
 *      5      1     family: 1 = RLC, 2 = LT
 *      6      1     kind: 1 = seed-carrying, 2 = coefficient-carrying
 *      7      1     flags: bit 0 SYSTEMATIC (seed kind only: the block is source block <seed>
 *                   itself, seed < n); bit 1 ZERO_COEFS (seed kind only: c drawn from 0..255,
 *                   not 1..255); other bits must be 0
 *      8      4     n
 *     12      4     B
 *     16      8     segment id
 *     24      4     seed                        (kind 1: header is 28 bytes)
 *     24      n     coefficients c_0..c_{n-1}   (kind 2: header is 24 + n bytes)
 *     then    B     payload
 *
 * Every field is checked when a block is read (gfec_nc_block_unpack): a block that fails any
 * check is refused with GFEC_E_FORMAT and changes nothing.
 *
 * Errors: every call returns a status >= 0 or a negative GFEC_E_* code (gfec_errors.h); none
 * aborts, exits or prints; a failed call leaves its object as it was.
 * Buffers are always owned by the caller; none needs any alignment.
 * Threads: a gfec_nc may be used by many threads at once (encode, batch decode); one decoder
 * must be used by one thread at a time (different decoders: any number of threads).
 */
#ifndef GFEC_GFEC_NC_H
#define GFEC_GFEC_NC_H

#include <stddef.h>
#include <stdint.h>

#include "gfec/gfec_errors.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Largest n of the block format; an RLC code takes n <= GFEC_NC_RLC_MAX_N. */
#define GFEC_NC_MAX_N 65536
/** Largest n of an RLC code (its decoder holds two n x n byte matrices). */
#define GFEC_NC_RLC_MAX_N 4096
/** Largest block size B in bytes. */
#define GFEC_NC_MAX_BLOCK (1u << 30)

#define GFEC_NC_VERSION 1
#define GFEC_NC_HEADER_FIXED 24 /**< header bytes before the seed or the coefficients */

enum gfec_nc_family {
	GFEC_NC_RLC = 1,
	GFEC_NC_LT = 2,
};

enum gfec_nc_kind {
	GFEC_NC_KIND_SEED = 1, /**< the header carries a 4-byte seed */
	GFEC_NC_KIND_COEF = 2, /**< the header carries the n coefficient bytes */
};

/** Header flags (block format byte 7), and gfec_nc_params.flags. */
#define GFEC_NC_SYSTEMATIC 0x01u
#define GFEC_NC_ZERO_COEFS 0x02u

/** A block's header fields, as gfec_nc_block_unpack() reads them and _pack() writes them. */
struct gfec_nc_block {
	uint8_t family;		/**< enum gfec_nc_family */
	uint8_t kind;		/**< enum gfec_nc_kind */
	uint8_t flags;		/**< GFEC_NC_SYSTEMATIC, GFEC_NC_ZERO_COEFS */
	uint32_t n;
	uint32_t block_size;	/**< B */
	uint64_t segment;	/**< the segment id */
	uint32_t seed;		/**< kind SEED: the seed, or with SYSTEMATIC the source index */
	const uint8_t *coefs;	/**< kind COEF: n bytes (inside the unpacked buffer); else NULL */
	const uint8_t *payload; /**< unpack: the B payload bytes inside the buffer; pack: unused */
	size_t bytes;		/**< unpack: header + B, where the next block of a stream starts */
};

/** Header bytes of a block of @p kind for @p n (28, or 24 + n); 0 for a bad kind or n. */
GFEC_API size_t gfec_nc_header_bytes(int kind, uint32_t n);

/**
 * Writes the header of @p b (family, kind, flags, n, block_size, segment, and seed or the n
 * bytes at b->coefs) into @p buf, which has @p len bytes; the payload goes right after it.
 * @returns the header's length in bytes, or GFEC_E_INVAL for a field the format refuses (the
 * same checks as unpack) or a buffer shorter than the header. Writes nothing on error.
 */
GFEC_API int gfec_nc_block_pack(const struct gfec_nc_block *b, uint8_t *buf, size_t len);

/**
 * Reads and checks the block at the start of @p buf (@p len bytes, which may run on into the
 * next block of a stream). A pure function of the bytes: it keeps no state, allocates nothing,
 * and *out's pointers point into @p buf.
 * @returns 0, or GFEC_E_FORMAT when any field is out of range (magic, version, family, kind,
 * unknown or misplaced flags, SYSTEMATIC with seed >= n, n or B out of range) or @p len is shorter
 * than the block (header + B): *out is then untouched.
 */
GFEC_API int gfec_nc_block_unpack(const uint8_t *buf, size_t len, struct gfec_nc_block *out);

/** Decoder strategies (gfec_nc_params.decode). */
enum gfec_nc_decode_mode {
	/** GFEC_NC_EAGER or GFEC_NC_DEFERRED, whichever this build measured faster for (n, B). */
	GFEC_NC_AUTO = 0,
	/** Gauss-Jordan as blocks arrive: coefficients at once, payloads in panels of up to 4
	 *  blocks (one product over many rows each); the segment is readable the moment the n-th
	 *  independent block is added, whose add finishes about one block's worth of work. */
	GFEC_NC_EAGER = 1,
	/** Eliminate on the coefficients only; keep the payloads as received and apply the inverse
	 *  to them in one GEMM when the segment is read. */
	GFEC_NC_DEFERRED = 2,
};

/** The shape of a code; one gfec_nc serves every segment of this shape. */
struct gfec_nc_params {
	uint32_t n;		/**< source blocks per segment, 1..GFEC_NC_RLC_MAX_N
				     (LT: 1..GFEC_NC_MAX_N) */
	uint32_t block_size;	/**< B, 1..GFEC_NC_MAX_BLOCK; n * B must fit in a size_t */
	uint32_t flags;		/**< GFEC_NC_SYSTEMATIC: gfec_nc_encode() sends source blocks as
				     sequence numbers 0..n-1; GFEC_NC_ZERO_COEFS: coefficients from
				     0..255 instead of 1..255 (RLC only: an LT code takes 0) */
	int threads;		/**< CPU threads for encode, recode and batch decode; 0 = the threads
				     knob (default: online CPUs);
				     progressive decoders always run on their caller's thread */
	int decode;		/**< enum gfec_nc_decode_mode for decoders made from this gfec_nc
				     (RLC only; LT ignores it) */
	int family;		/**< 0 or GFEC_NC_RLC: random linear coding (n up to
				     GFEC_NC_RLC_MAX_N); GFEC_NC_LT: an LT (fountain) code, see
				     "LT codes" below (n up to GFEC_NC_MAX_N) */
	double lt_c;		/**< LT: the robust soliton's c > 0; 0 = 0.03 */
	double lt_delta;	/**< LT: the robust soliton's delta, 0 < delta < 1; 0 = 0.05 */
	int backend;		/**< enum gfec_nc_backend (an LT code's encode only) */
};

/**
 * Where an RLC code's gfec_nc_encode and gfec_nc_decode_batch run (gfec_nc_params.backend; the
 * progressive decoder and recoding always run on the CPU). The GPU is device gpu_device
 * (gfec.conf [gpu] device, default 0), or every context of gpu_devices (see
 * gfec_nc_gpu_devices), started by gfec_nc_create. On the GPU, coefficients are
 * generated on the device from the seeds and a batch decode inverts every segment's matrix there
 * (Gauss-Jordan with a pivot search, one thread block per segment), then applies the inverses in
 * batched GEMMs; the bytes written are those of the CPU path, headers included. An LT code's
 * gfec_nc_encode runs there by the same rules (every block's degree and neighbours drawn on the
 * device from its seed, the bytes of the CPU encoder); its decoders run on the CPU only, and its
 * gfec_nc_decode_batch refuses device memory (GFEC_E_NOTSUP).
 *   - Buffers: all host memory or all device memory (cudaMalloc or managed) within one call: the
 *     segments and out of an encode, the blocks and every out of a batch decode; a mix is
 *     GFEC_E_INVAL. Device memory always runs on the GPU (the CPU cannot read it).
 *   - A GPU error on host buffers (GFEC_E_DEVICE; also forced by GFEC_FAULT=cuda) makes the CPU
 *     redo the whole call, with identical output, counted in gfec_nc_stats.fallbacks. On device
 *     buffers the error is returned (outputs unspecified).
 *   - n wider than the GPU decoder takes (340 on an H200: one segment's matrix in a thread
 *     block's shared memory): a batch decode on host buffers runs on the CPU without a word; on
 *     device buffers it is GFEC_E_NOTSUP.
 *   - A batch segment whose first n blocks are all well formed goes to the GPU as is; when they
 *     are singular (or a segment has fewer than n, or a bad block among them) the CPU picks the
 *     first n independent blocks from the headers alone, exactly as the CPU decoder would, and
 *     the GPU decodes those: status and dependent are the CPU path's in every case.
 */
enum gfec_nc_backend {
	/** Device buffers on the GPU, host buffers on the CPU; without a usable GPU, the CPU. */
	GFEC_NC_BACKEND_AUTO = 0,
	/** The CPU only: every buffer must be host memory. */
	GFEC_NC_BACKEND_CPU = 1,
	/** The GPU for every encode and batch decode: host buffers are staged through device
	 *  memory. gfec_nc_create fails with GFEC_E_NOBACKEND without a usable GPU (or in a build
	 *  without CUDA). */
	GFEC_NC_BACKEND_GPU = 2,
};

typedef struct gfec_nc gfec_nc;
typedef struct gfec_nc_decoder gfec_nc_decoder;

/*
 * LT codes (family GFEC_NC_LT). A block with seed s is the XOR of d distinct source blocks:
 * d from the robust soliton distribution of (n, c, delta), the d indices uniform, both functions
 * of s alone (gfmatrix/base/lt_dist.h). Blocks are seed-carrying, family byte 2, flags 0; the
 * decoder must be made with the encoder's n, B, c and delta (c and delta are not in the header).
 * The default c = 0.03, delta = 0.05 give a mean degree of 12.5 at n = 1024 and 16.6 at
 * n = 10240, and a mean reception overhead (extra blocks over n, consecutive seeds) of 2.65% at
 * n = 128, 0.37% at n = 1024, 0.05% at n = 10240 (gfec-lt-bench, 1000 segments, 100 at 10240;
 * perf/results/dev-epyc-zen3-2core/lt_bench.txt). The decoder is exact: peeling, and where it
 * stalls, inactivation and Gaussian elimination over GF(2); it completes as soon as the blocks it
 * holds span the n sources. An LT code has no recoding and no coefficient-carrying blocks:
 * gfec_nc_recode returns GFEC_E_NOTSUP, and so does an LT decoder given a coefficient-carrying
 * block.
 */

/**
 * Creates an RLC or LT code of shape @p p (copied). The CPU path and, when p->threads is 0, the
 * thread count come from the knobs a codec reads (gfec_config.h: GFEC_CPU_PATH, GFEC_THREADS,
 * gfec.conf).
 * @returns 0 and *out; GFEC_E_INVAL for a bad field (n = 0 or above the family's bound, an
 * unknown family or decode mode, flags on an LT code, lt_c < 0 or lt_delta outside [0, 1) or
 * NaN, either of them non-zero on an RLC code) or a bad knob value in the environment;
 * GFEC_E_NOTSUP for a forced CPU path this CPU lacks (RLC); GFEC_E_NOMEM; GFEC_E_SYSTEM when
 * threads cannot start.
 */
GFEC_API int gfec_nc_create(const struct gfec_nc_params *p, gfec_nc **out);

/** Frees @p nc; no call on it or its decoders may be in flight, and its decoders must be freed
 *  first. NULL is accepted. */
GFEC_API void gfec_nc_free(gfec_nc *nc);

/** Bytes of one block of @p kind for this code: gfec_nc_header_bytes(kind, n) + B. */
GFEC_API size_t gfec_nc_block_bytes(const gfec_nc *nc, int kind);

/** What a code's encodes and batch decodes ran on, since it was created. */
struct gfec_nc_stats {
	int gpu;		/**< 1 when the code has a GPU (gfec_nc_params.backend) */
	uint64_t gpu_calls;	/**< encode and batch-decode calls the GPU completed */
	uint64_t fallbacks;	/**< calls the GPU failed on host buffers, redone on the CPU */
};

/** Copies @p nc's counters into *out (zeros for NULL @p nc). */
GFEC_API void gfec_nc_stats(const gfec_nc *nc, struct gfec_nc_stats *out);

struct gfec_gpu_device; /* gfec/gfec.h */

/**
 * The GPU contexts of a code: one per ordinal of gpu_devices= (GFEC_GPU_DEVICES, gfec.conf [gpu]
 * devices; repeats give several contexts on one GPU), else the one of gpu_device. Encodes and
 * batch decodes cut their segments among them in proportion to their measured rates (segments in
 * one GPU's memory among that GPU's contexts; gpu_split_min segment bytes per share at least); a
 * context that fails has its segments redone on the others (its failures) or, when none is left,
 * the call goes as on one context. Up to @p max into @p out: ordinal, name, memory, shares run
 * (calls), segment bytes (bytes, share of all so far), failures, rates. Returns how many contexts
 * the code has: 0 without a GPU; GFEC_E_INVAL for a NULL code (or NULL @p out with max > 0).
 */
GFEC_API int gfec_nc_gpu_devices(const gfec_nc *nc, struct gfec_gpu_device *out, int max);

/** One segment to encode from. */
struct gfec_nc_segment {
	uint64_t id;		/**< written into every block's header */
	const uint8_t *data;	/**< n * B bytes, source block i at data + i * B */
};

/**
 * Encodes @p count blocks from each of @p nseg segments, the blocks with sequence numbers
 * first .. first + count - 1, all seed-carrying. Block seq is source block seq itself when the code
 * is systematic and seq < n (flag SYSTEMATIC, seed = seq), else the coded block of seed = seq.
 * Every segment gets the same seeds, so the whole call is one product C x [segments] on the CPU
 * backend (GFNI kernels, or ISA-L, threaded). An LT code's block seq is the XOR of the sources
 * its seed names (family byte 2, flags 0; threaded over whole blocks).
 * @param out      nseg * count blocks of gfec_nc_block_bytes(nc, GFEC_NC_KIND_SEED) bytes each,
 *                 segment-major: block (s, j) starts at out + (s * count + j) * that size
 * @param out_len  bytes at @p out; must be at least the size above
 * @returns 0; GFEC_E_INVAL for NULL pointers, nseg < 1, first + count past 2^32, or a short
 * @p out; GFEC_E_NOMEM (out is then unspecified).
 */
GFEC_API int gfec_nc_encode(gfec_nc *nc, const struct gfec_nc_segment *segs, int nseg,
			    uint32_t first, uint32_t count, uint8_t *out, size_t out_len);

/** What gfec_nc_decoder_add() says about a block it accepted. */
enum gfec_nc_add_status {
	GFEC_NC_DEPENDENT = 0,	 /**< no new information: dropped (counted), state unchanged */
	GFEC_NC_INNOVATIVE = 1,	 /**< rank grew by one; the segment is not complete yet */
	GFEC_NC_COMPLETE = 2,	 /**< rank grew to n: the segment can be read */
};

/** A decoder's counters since it was created. */
struct gfec_nc_decoder_stats {
	uint64_t received;	/**< blocks given to add() that passed every check */
	uint64_t innovative;	/**< of those, blocks that raised the rank (at most n) */
	uint64_t dependent;	/**< of those, blocks dropped as dependent (also after completion) */
	uint64_t refused;	/**< blocks refused with an error (format, shape, segment) */
};

/**
 * A progressive decoder for segment @p segment of @p nc's shape; it holds up to n blocks
 * (n * (n + B) bytes, plus up to 4 blocks' room and 4 x 4 x n bytes for its panel in eager
 * mode, twice the coefficients in deferred mode) and is also a relay's store
 * (gfec_nc_recode). @returns 0 and *out, GFEC_E_INVAL or GFEC_E_NOMEM.
 */
GFEC_API int gfec_nc_decoder_create(gfec_nc *nc, uint64_t segment, gfec_nc_decoder **out);

/** Frees @p d. NULL is accepted. An LT decoder's memory (its blocks and scratch, about 2 n B
 *  bytes) is kept, one decoder's at a time, for the code's next decoder, until gfec_nc_free. */
GFEC_API void gfec_nc_decoder_free(gfec_nc_decoder *d);

/**
 * Adds the block at @p block (@p len bytes, at least the whole block; seed- or
 * coefficient-carrying, in any mix and order).
 * @returns GFEC_NC_DEPENDENT, GFEC_NC_INNOVATIVE or GFEC_NC_COMPLETE; or, with the decoder
 * unchanged: GFEC_E_FORMAT (the header fails gfec_nc_block_unpack's checks, or @p len is short),
 * GFEC_E_INVAL (NULL), GFEC_E_FOREIGN (a well-formed block of another family, n, B or segment,
 * or a ZERO_COEFS flag that differs from this code's). Once complete, every further valid block is
 * GFEC_NC_DEPENDENT: a decoder never takes more than n independent blocks.
 *
 * LT: the decoder keeps every block it takes (n * B bytes and more) and decodes in read().
 * GFEC_NC_DEPENDENT is a seed it already holds, or any block once complete; GFEC_NC_INNOVATIVE
 * a new seed kept while the blocks held do not yet span the n sources; GFEC_NC_COMPLETE the
 * block after which they do. Whether they do is checked (peeling and elimination on the
 * structure, no payload work: O(edges)) from the n-th block on; a check that fails gives the
 * blocks still missing at least (n - rank), and none runs before that many more arrived.
 * Also, with the decoder unchanged: GFEC_E_NOTSUP for a coefficient-carrying LT block,
 * GFEC_E_FOREIGN for an LT block with flags, GFEC_E_NOMEM.
 */
GFEC_API int gfec_nc_decoder_add(gfec_nc_decoder *d, const uint8_t *block, size_t len);

/** Independent blocks held, 0..n. LT: n once complete, before that the distinct blocks held
 *  capped at n - 1 (independence is only known for the whole set). */
GFEC_API uint32_t gfec_nc_decoder_rank(const gfec_nc_decoder *d);

/** Copies the counters into *out. */
GFEC_API void gfec_nc_decoder_stats(const gfec_nc_decoder *d, struct gfec_nc_decoder_stats *out);

/**
 * Writes the decoded segment (n * B bytes) to @p out (@p len bytes, at least n * B). May be called
 * more than once. @returns 0; GFEC_E_TOOFEW while the rank is below n (nothing written);
 * GFEC_E_INVAL for a short or NULL @p out; GFEC_E_NOMEM (deferred mode's product, LT's solve).
 * LT: each call runs the decoder's payload pass (one XOR per edge of the blocks it uses).
 */
GFEC_API int gfec_nc_decoder_read(gfec_nc_decoder *d, uint8_t *out, size_t len);

/**
 * Recoding: writes @p count coefficient-carrying blocks, each a random combination of every block
 * @p d holds (decoded or not): new block j = sum_r w_jr * (held row r), with w_j the row of seed
 * @p seed + j (gfec_nc_prng_row, as many weights as the rank) applied to coefficients and payload
 * alike; the header carries the resulting n coefficients. Works at any rank >= 1.
 * @param out      count blocks of gfec_nc_block_bytes(nc, GFEC_NC_KIND_COEF) bytes, back to back
 * @returns 0; GFEC_E_TOOFEW at rank 0; GFEC_E_INVAL (NULL, short @p out, seed + count past 2^32);
 * GFEC_E_NOMEM; GFEC_E_NOTSUP for an LT decoder (an LT block's seed cannot name a mix).
 */
GFEC_API int gfec_nc_recode(gfec_nc_decoder *d, uint32_t seed, uint32_t count, uint8_t *out,
			    size_t out_len);

/** One segment of a batch decode. */
struct gfec_nc_batch_segment {
	uint64_t id;		       /**< the segment every block must belong to */
	const uint8_t *const *blocks;  /**< nblocks pointers to blocks (any kinds, any order) */
	const size_t *lens;	       /**< nblocks lengths: the bytes readable at each pointer */
	uint32_t nblocks;
	uint8_t *out;		       /**< n * B bytes, written only when the segment decodes */
	int status;		       /**< out: 0 decoded; GFEC_E_TOOFEW (the blocks span less than
					    n dimensions: out untouched); GFEC_E_FORMAT,
					    GFEC_E_INVAL or GFEC_E_FOREIGN (LT: also
					    GFEC_E_NOTSUP) for the first bad block (nothing of
					    the segment decoded, out untouched) */
	uint32_t dependent;	       /**< out: blocks found dependent and skipped */
};

/**
 * Decodes many segments at once: each segment's first n independent blocks are taken in order,
 * the inverses computed, and all the payload products run as batched GEMMs. A segment whose blocks
 * do not suffice, or which holds a bad block, is reported in its status and never written.
 * @returns 0 when every segment decoded; GFEC_E_TOOFEW when at least one did not (see each
 * status; the others are decoded); GFEC_E_INVAL for NULL pointers or nseg < 1; GFEC_E_NOMEM
 * (statuses and outputs then unspecified).
 * LT: each segment's blocks go in order into a decoder of its own (gfec_nc_decoder_add's rules)
 * until they decode, then it is read; segments run on the code's threads, one per task.
 * dependent counts repeated seeds.
 */
GFEC_API int gfec_nc_decode_batch(gfec_nc *nc, struct gfec_nc_batch_segment *segs, int nseg);

#ifdef __cplusplus
}
#endif
#endif
