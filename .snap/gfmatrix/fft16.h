/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file fft16.h
 * An O(n log n) Reed-Solomon code over GF(2^16) (0x1100B, gf16.h) by the additive FFT of Lin,
 * Chung and Han ("novel polynomial basis", FOCS 2014), the method Leopard-RS uses; the codec's
 * technique=fft at w=16. Our own implementation over our field (no code of Leopard's).
 *
 * The points. Point u (u < 65536) is omega_u = sum of v_i over the set bits i of u, for the
 * Cantor basis v_0 = 1, v_i^2 + v_i = v_{i-1} of GF(2^16) (computed at load time; the smallest
 * root at each step). Why Cantor: its subspace polynomials W_j(x) = prod_{u < 2^j} (x - omega_u)
 * are W_j(v_j) = 1 and have derivative 1, so the basis needs no normalisation factors and the
 * formal derivative of the decoder is plain XOR (any basis works; another one would multiply
 * by a constant per bit in both places).
 *
 * The transform. A polynomial of degree < n = 2^l is sum_i d_i X_i(x), X_i = prod of W_j over
 * the set bits j of i. gfec_fft16_fft() takes the d_i to the values at omega_(beta + u),
 * u < n (beta a multiple of n), in l layers of n/2 butterflies x ^= s * y; y ^= x, where s is
 * the skew W_j(omega_r) of the block at r (the "skew factors", from W_j(v_i) by linearity);
 * gfec_fft16_ifft() is its inverse.
 *
 * The code (k data, m parity, k + m <= 65536), systematic. M = m rounded up to a power of two.
 *  - Coset layout, when M + k <= 65536: parity at points 0..m-1 (m..M-1 unused), data j at
 *    point M + j, zeros above M + k. The code words are the polynomials of degree < N - M for
 *    any power of two N >= M + k (their top M coefficients, the sum of the IFFTs of every coset
 *    of M points, vanish): parity = FFT_0(sum_g IFFT_(M(g+1))(data group g)), Leopard's
 *    schedule, (k + M) log2(M) / 2 butterflies per symbol.
 *  - General layout otherwise (e.g. k = 40000, m = 20000): parity at points 0..m-1, data j at
 *    m + j, code words the polynomials of degree < k; encoded as a decode of the m parity
 *    points (two transforms of N = 65536 points).
 * Either is an MDS code (a Reed-Solomon code, shortened or punctured), different from the
 * cauchy and Vandermonde techniques' parity.
 *
 * Decode (any <= m losses) is erasure decoding by the error locator: L(x) = prod over the
 * erased points e of (x - e) is found in the log domain for all N points at once by fast
 * Walsh-Hadamard transforms (log L(x) = sum_e log(omega_(x ^ e)) mod 65535, a XOR
 * convolution); then values * L, IFFT, formal derivative, FFT, and each erased point's value is
 * (C L)'(e) / L'(e). N = 2^ceil(log2(M + k)) (coset layout) or 2^ceil(log2(k + m)).
 *
 * Regions are arrays of 16-bit little-endian symbols (the codec's w = 16 layout); len is even;
 * every symbol position is an independent code word. All work runs through one op, a list of
 * butterflies (gfec_backend_ops.butterfly16's contract), applied by @p ops; NULL: the CPU
 * backend's plain-C reference. Calls allocate scratch (work regions of gfec_fft16_slice() bytes:
 * 64 MiB, up to 256 MiB at N = 65536; through ops->alloc where set) and return GFEC_E_NOMEM when
 * it is not there. The regions passed in (data, parity, chunks, out, d) are only ever touched
 * through the ops, so they may be device memory when the ops are a GPU's.
 * Thread-safe.
 */
#ifndef GFEC_GFMATRIX_FFT16_H
#define GFEC_GFMATRIX_FFT16_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Who runs the butterflies: a backend's butterfly16 op and its context, and optionally where the
 * work regions live and when the ops are done (gfec_backend_ops' bfly16_* entries):
 *  - alloc / free (both or neither; NULL: malloc / free): the work regions of a call, which
 *    only the ops touch (e.g. device memory: cudaMallocAsync / cudaFreeAsync on the op's
 *    stream). alloc returns NULL when the memory is not there (the call: GFEC_E_NOMEM).
 *  - work (0: the code's, gfec_fft16_code_set_work()): the bytes of work regions a call may
 *    take; the slices grow to whole chunks where it allows (a GPU wants few, long passes).
 *  - sync (NULL: none): waits until every op of the call has run; 0 or a negative GFEC_E_*.
 *    Called once by each call below that gets past its argument checks (also after a failed
 *    op), before it frees its work regions and returns. With a sync, bfly may be asynchronous (stream-ordered): it
 *    must take the op lists x, y, c at call time (the caller reuses them as soon as it
 *    returns), and the regions' contents are final only after sync. The caller never reads or
 *    writes a region itself between ops.
 *  - disjoint_only (0: no): the op runs lists without flags slowly (a GPU walks them one
 *    thread per position, a memory latency per op): the decoder's formal derivative, its one such
 *    list, then goes in place as two GFEC_BFLY_SUMS lists (the coefficients of even, then of
 *    odd popcount of their index; the same sums), which such ops run one pass per region
 *    written.
 */
struct gfec_fft16_ops {
	int (*bfly)(void *ctx, int kind, int n, size_t len, uint8_t *const *x, uint8_t *const *y,
		    const uint16_t *c);
	void *ctx;
	void *(*alloc)(void *ctx, size_t bytes);
	void (*free)(void *ctx, void *p);
	size_t work;
	int (*sync)(void *ctx);
	int disjoint_only;
};

/** Builds the basis and skew tables (also done at load time). Thread-safe, idempotent. */
void gfec_fft16_init(void);

/** omega_u, the field element of point u (u < 65536): a linear bijection of GF(2)^16. */
uint16_t gfec_fft16_point(unsigned u);

/** The skew W_j(omega_r) / W_j(v_j) of layer j for the block starting at point r. */
uint16_t gfec_fft16_skew(unsigned j, unsigned r);

/**
 * In place over the n = 2^logn regions d[]: coefficients -> values at points beta + u (fft), or
 * back (ifft). beta is a multiple of n, beta + n <= 65536. 0, GFEC_E_INVAL or GFEC_E_NOMEM.
 */
int gfec_fft16_fft(const struct gfec_fft16_ops *ops, uint8_t *const *d, unsigned logn,
		   unsigned beta, size_t len);
int gfec_fft16_ifft(const struct gfec_fft16_ops *ops, uint8_t *const *d, unsigned logn,
		    unsigned beta, size_t len);

/**
 * Reference for the transform, one symbol per point: val[u] = sum_i coef[i] X_i(omega_(beta+u))
 * for u < 2^logn (logn <= 12), with every W_j evaluated from its definition as a product.
 */
void gfec_fft16_eval_base(const uint16_t *coef, unsigned logn, unsigned beta, uint16_t *val);


struct gfec_fft16_code;

/** Which layout a code takes (see above): auto takes the coset layout where it fits. */
enum gfec_fft16_layout {
	GFEC_FFT16_AUTO,
	GFEC_FFT16_COSETS,  /**< GFEC_E_INVAL where M + k > 65536 */
	GFEC_FFT16_GENERAL, /**< any shape (the tests use it on small ones) */
};

/** A code of @p k data and @p m parity chunks: k, m >= 1, k + m <= 65536. */
int gfec_fft16_code_create(int k, int m, enum gfec_fft16_layout layout,
			   struct gfec_fft16_code **out);
void gfec_fft16_code_free(struct gfec_fft16_code *code);

/**
 * Bytes per slice a schedule of @p code with @p nreg work regions processes chunks of @p len
 * bytes in (whole 64-byte groups, at least 4 KiB where len is, at most len): its work memory is
 * nreg times that. The calls take the work of their ops (gfec_fft16_ops.work) where it is set:
 * gfec_fft16_slice_ops() is their slice.
 */
size_t gfec_fft16_slice(const struct gfec_fft16_code *code, size_t nreg, size_t len);
size_t gfec_fft16_slice_ops(const struct gfec_fft16_code *code, const struct gfec_fft16_ops *ops,
			    size_t nreg, size_t len);

/** The work memory @p code's calls aim at (0: the default, 64 MiB); the tests shrink it. */
void gfec_fft16_code_set_work(struct gfec_fft16_code *code, size_t bytes);

/** 1 for the coset layout, 0 for the general one (see above). */
int gfec_fft16_code_cosets(const struct gfec_fft16_code *code);

/**
 * parity[0..m-1] of data[0..k-1], len bytes each (even). No alias of data and parity. A NULL
 * data[j] is a chunk of zeros (skipped: an update encodes a delta alone this way).
 */
int gfec_fft16_encode(const struct gfec_fft16_code *code, const struct gfec_fft16_ops *ops,
		      size_t len, const uint8_t *const *data, uint8_t *const *parity);

/**
 * chunks[0..k+m-1] (data, then parity; NULL: lost; at most m lost) -> out[i] for every lost i
 * whose out[i] is not NULL (out[i] of a present chunk must be NULL). GFEC_E_TOOFEW when more
 * than m are lost, GFEC_E_INVAL for a bad out[].
 */
int gfec_fft16_decode(const struct gfec_fft16_code *code, const struct gfec_fft16_ops *ops,
		      size_t len, const uint8_t *const *chunks, uint8_t *const *out);

/**
 * Reference encode, O(k m) per symbol: each parity point's value by Lagrange interpolation over
 * the code's known points (the barycentric form, products of point differences in the log
 * domain); nothing of the transforms. NULL data as in gfec_fft16_encode(). 0 or GFEC_E_NOMEM.
 */
int gfec_fft16_encode_base(const struct gfec_fft16_code *code, size_t len,
			   const uint8_t *const *data, uint8_t *const *parity);

#ifdef __cplusplus
}
#endif
#endif
