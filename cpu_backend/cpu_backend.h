/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file cpu_backend.h
 * The CPU backend: GF(2^8) products threaded over slices of the buffers, through gfec's GFNI
 * kernels (gfni.c) where the CPU has GFNI, else ISA-L's ec_encode_data/ec_encode_data_update,
 * with a portable plain-C twin (the "_base" path) that the tests use as the reference.
 * GFEC_CPU_PATH (or the backend conf) can force any of them.
 */
#ifndef GFEC_CPU_BACKEND_H
#define GFEC_CPU_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "gemm.h"
#include "gfec/gfec_limits.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The CPU backend's table of operations (every entry is implemented). */
const struct gfec_backend_ops *gfec_cpu_backend(void);

/**
 * Reference GF(2^8) product, one byte at a time through the product table:
 * dst[i][b] = sum_j a[i*cols+j] * src[j][b]. No alignment requirement, any len.
 */
void gfec_cpu_gemm_base(size_t len, int cols, int rows, const uint8_t *a,
			const uint8_t *const *src, uint8_t *const *dst);

/**
 * Reference CRS product (gfec_gemm_matrix.packetsize = P): @p bits is the 8rows x 8cols bitmatrix
 * (one 0/1 byte per bit, gfec_gf8_to_bitmatrix's layout); len is a multiple of 8 * P. With
 * @p col >= 0 only that input column is applied and the result is XORed into dst (the update);
 * src then has one entry. Works on 64-bit words; no alignment requirement.
 */
void gfec_cpu_bitmatrix_base(size_t len, int cols, int rows, int col, const uint8_t *bits,
			     size_t packetsize, const uint8_t *const *src, uint8_t *const *dst);

/** Reference update: dst[i][b] ^= a[i*cols+col] * src[b] for every row i. */
void gfec_cpu_update_base(size_t len, int cols, int rows, int col, const uint8_t *a,
			  const uint8_t *src, uint8_t *const *dst);

/**
 * The CPU paths (gfec_backend_conf.path names them). Auto picks, once per process, the first the
 * CPU has of gfni512 (AVX-512BW/VL + GFNI), gfni256 (AVX2 + GFNI), isal where the CPU has
 * AVX-512BW (ISA-L's own AVX-512 kernels), avx2 (gfec's nibble-table kernel, avx2.c) and isal
 * (ISA-L's own dispatch); base is the plain-C reference. A forced path the CPU lacks is
 * GFEC_E_NOTSUP.
 */
enum gfec_cpu_path {
	GFEC_CPU_AUTO,
	GFEC_CPU_GFNI512,
	GFEC_CPU_GFNI256,
	GFEC_CPU_ISAL,
	GFEC_CPU_BASE,
	GFEC_CPU_AVX2,
};

/** 1 for the paths that run gfec's GFNI kernels (gfni512, gfni256). */
static inline int gfec_cpu_path_gfni(enum gfec_cpu_path p)
{
	return p == GFEC_CPU_GFNI512 || p == GFEC_CPU_GFNI256;
}

/** The accepted names, for error messages. */
#define GFEC_CPU_PATH_NAMES "auto, gfni512, gfni256, avx2, isal, base"

/** @p name (NULL and "" mean auto) to a path: 0, or GFEC_E_INVAL for an unknown name. */
int gfec_cpu_path_parse(const char *name, enum gfec_cpu_path *out);

/** 1 when this CPU can run @p path (auto: always). */
int gfec_cpu_path_supported(enum gfec_cpu_path path);

/** What auto resolves to on this CPU (decided on the first call, thread-safe). */
enum gfec_cpu_path gfec_cpu_path_best(void);

/**
 * The non-temporal store threshold a GFNI path uses for the knob's value @p knob: itself, or for
 * GFEC_STREAM_MIN_AUTO the pick for this CPU's maker (cpu_path.c: where each was measured).
 */
size_t gfec_cpu_stream_min(size_t knob);

/** The path's name as gfec_cpu_path_parse() takes it. */
const char *gfec_cpu_path_name(enum gfec_cpu_path path);

/*
 * GF(2^16) (w = 16) products on 16-bit little-endian symbols (gemm16.c): dst[i] = sum_j
 * a[i*cols+j] * src[j] (@p add = 0) or dst[i] ^= that sum (@p add = 1). len is even (an odd last
 * byte is left alone); no alignment requirement.
 */

/** Reference: symbol by symbol through gfec_gf16_region_mul(). */
void gfec_cpu_gemm16_base(size_t len, int cols, int rows, const uint16_t *a,
			  const uint8_t *const *src, uint8_t *const *dst, int add);

/** Bytes of nibble tables per coefficient that gfec_cpu_gemm16_avx2() takes. */
#define GFEC_CPU_GF16_TABLE 128

/**
 * The kernel's tables of the n coefficients a[] (n * GFEC_CPU_GF16_TABLE bytes into tbl): with
 * AVX2 where the CPU has it, else gfec_cpu_gf16_tables_base(), the plain twin (same bytes).
 */
void gfec_cpu_gf16_tables(const uint16_t *a, size_t n, uint8_t *tbl);
void gfec_cpu_gf16_tables_base(const uint16_t *a, size_t n, uint8_t *tbl);

/**
 * The AVX2 kernel, from the tables of the rows x cols matrix (row-major). Run it only where
 * gfec_cpu_avx2_supported(). Allocates 256 KiB of scratch at most (less for short lengths): 0 or
 * GFEC_E_NOMEM (dst is then untouched).
 */
int gfec_cpu_gemm16_avx2(size_t len, int cols, int rows, const uint8_t *tbls,
			 const uint8_t *const *src, uint8_t *const *dst, int add);

/** 1 when the CPU can run gfec_cpu_gemm16_avx2(). */
int gfec_cpu_avx2_supported(void);

/*
 * GF(2^16) butterflies (bfly16.c), gfec_backend_ops.butterfly16's ops (enum gfec_bfly_kind) on
 * 16-bit little-endian symbols: n ops applied in order over len bytes (an odd last byte is left
 * alone); regions need no alignment.
 */

/** Reference: one op at a time through gfec_gf16_region_mul(). */
void gfec_cpu_bfly16_base(int kind, int n, size_t len, uint8_t *const *x, uint8_t *const *y,
			  const uint16_t *c);

struct gfec_cpu_pool;

/**
 * The backend's op: AVX2 where the CPU has it and @p base is 0, else the reference; threaded over
 * byte slices on @p pool (NULL: the caller alone). 0, or GFEC_E_INVAL for a bad kind or NULL
 * arrays.
 */
int gfec_cpu_bfly16_run(struct gfec_cpu_pool *pool, int base, int kind, int n, size_t len,
			uint8_t *const *x, uint8_t *const *y, const uint16_t *c);

/** The 8x8 bit-matrix GF2P8AFFINEQB takes to multiply each byte by @p c (gfni.c). */
uint64_t gfec_cpu_gfni_matrix(uint8_t c);

/** out[i] = gfec_cpu_gfni_matrix(a[i]) for i < n. */
void gfec_cpu_gfni_matrices(const uint8_t *a, size_t n, uint64_t *out);

/** 1 when the CPU (and OS) can run the 512- or 256-bit GFNI kernels, by CPUID. */
int gfec_cpu_gfni_supported(int bits);

/** Outputs per pass over the sources of gfec_cpu_gemm_gfni512 and gfec_cpu_gemm_gfni256. */
#define GFEC_GFNI_GROUP512 6
#define GFEC_GFNI_GROUP256 4
/** The group of the kernels @p width bits wide (512 or 256). */
#define GFEC_GFNI_GROUP(width) ((width) == 512 ? GFEC_GFNI_GROUP512 : GFEC_GFNI_GROUP256)

/** The bytes of every stream that one task of a parallel call covers, unless configured. */
#define GFEC_CPU_SLICE ((size_t)64 << 10)

/**
 * The slice of a one-pass GFNI product without the prefetch on @p threads threads, for @p len
 * bytes per stream: len / (4 x threads) in whole 64 bytes, at most 1 MiB (the codec takes it
 * where it is longer than its slice; cpu_backend.c's slice_bytes() says why).
 */
size_t gfec_cpu_long_slice(size_t len, int threads);

/** How gfec_cpu_gemm_gfni512/256 write dst; gfec_cpu_gfni_apply() also takes the flag. */
enum gfec_gfni_mode {
	GFEC_GFNI_SET,	  /**< dst[i] = the product */
	GFEC_GFNI_UPDATE, /**< dst[i] ^= the product */
	GFEC_GFNI_STREAM, /**< dst[i] = the product, full vectors by non-temporal stores; every
			       dst[i] must then be 64-byte (gfni512) or 32-byte (gfni256) aligned */
	GFEC_GFNI_PREFETCH = 4, /**< a flag: the kernels that prefetch their sources (gfni.c) */
};

/**
 * @p mode (SET, UPDATE or STREAM) with GFEC_GFNI_PREFETCH or'ed in where the GFNI kernels gain
 * from prefetching their sources on this CPU in that mode (cpu_path.c: where it was measured).
 */
int gfec_cpu_gfni_prefetch(int mode);

/**
 * dst[i] = sum_j mat[i*cols+j] (x) src[j] for i < rows, where mat holds gfec_cpu_gfni_matrix()
 * of each coefficient, written as @p mode (SET, UPDATE or STREAM) says, the sources prefetched
 * ahead (the _plain forms: not). Any len; no alignment requirement but GFEC_GFNI_STREAM's;
 * sources and outputs must not overlap. Call only when gfec_cpu_gfni_supported(512) (resp. 256)
 * says so.
 */
void gfec_cpu_gemm_gfni512(size_t len, int cols, int rows, const uint64_t *mat,
			   const uint8_t *const *src, uint8_t *const *dst, int mode);
void gfec_cpu_gemm_gfni256(size_t len, int cols, int rows, const uint64_t *mat,
			   const uint8_t *const *src, uint8_t *const *dst, int mode);
void gfec_cpu_gemm_gfni512_plain(size_t len, int cols, int rows, const uint64_t *mat,
				 const uint8_t *const *src, uint8_t *const *dst, int mode);
void gfec_cpu_gemm_gfni256_plain(size_t len, int cols, int rows, const uint64_t *mat,
				 const uint8_t *const *src, uint8_t *const *dst, int mode);

/**
 * What a GFNI path (@p path GFEC_CPU_GFNI512, else the 256-bit kernel) runs for a call or an
 * update (the codec's slices, the ISA-L drop-in): @p col < 0, dst = A src written as @p mode
 * (any enum gfec_gfni_mode, GFEC_GFNI_PREFETCH or'ed in or not); else dst[i] ^=
 * a[i*cols+col] * src[0], column @p col's matrices gathered first (rows <= GFEC_MAX_CHUNKS) and
 * of @p mode only GFEC_GFNI_PREFETCH used.
 */
void gfec_cpu_gfni_apply(enum gfec_cpu_path path, size_t len, int cols, int rows,
			 const uint64_t *mat, int col, int mode, const uint8_t *const *src,
			 uint8_t *const *dst);

/**
 * The AVX2 kernel's tables of the n coefficients a[] (32 bytes each into tbls): the bytes ISA-L's
 * ec_init_tables() writes, made without ISA-L (avx2.c).
 */
void gfec_cpu_avx2_tables(const uint8_t *a, size_t n, uint8_t *tbls);

/**
 * dst[i] = sum_j a[i*cols+j] * src[j] for i < rows (@p update = 0), or dst[i] ^= that sum
 * (@p update = 1), from the tables of the rows x cols matrix a (gfec_cpu_avx2_tables(),
 * rows * cols * 32 bytes). Any len, no alignment requirement; sources and outputs must not
 * overlap. Call only when gfec_cpu_avx2_supported().
 */
void gfec_cpu_gemm_avx2(size_t len, int cols, int rows, const uint8_t *tbls,
			const uint8_t *const *src, uint8_t *const *dst, int update);

/**
 * What the AVX2 path runs for a call or an update (the codec's slices, the ISA-L drop-in):
 * @p col < 0, dst = A src through gfec_cpu_gemm_avx2(); else dst[i] ^= a[i*cols+col] * src[0],
 * column @p col's tables gathered first (rows <= GFEC_MAX_CHUNKS).
 */
void gfec_cpu_avx2_apply(size_t len, int cols, int rows, const uint8_t *tbls, int col,
			 const uint8_t *const *src, uint8_t *const *dst);

#ifdef __cplusplus
}
#endif
#endif
