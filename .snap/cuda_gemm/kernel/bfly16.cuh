// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file bfly16.cuh
 * The GPU's GF(2^16) butterflies (gfec_backend_ops.butterfly16, gfmatrix/base/gemm.h): the region
 * ops of gfmatrix/fft16.c's additive FFT on device memory. Everything but the __global__ entry
 * points is plain host/device code, so tests/cuda_gemm/bfly16_emulate.cpp runs it on the CPU.
 *
 * Multiplying by a constant c. c * s is linear over GF(2) in the bits of s, so it is the XOR of
 * four lookups, one per nibble of s, in tables of 16 entries (entry i of table t = c * (i << 4t),
 * built from c by doublings mod 0x1100B: no log tables):
 *
 *     c * s = T0[s & 15] ^ T1[(s >> 4) & 15] ^ T2[(s >> 8) & 15] ^ T3[s >> 12]
 *
 * A block keeps its ops' tables in shared memory, one 32-bit word per entry: the 16 entries of a
 * table sit in 16 different banks, so a warp's lookups into one table never conflict (lanes that
 * want the same entry share its word).
 *
 * Four kernels, picked per list by its flags:
 *  - grouped, G = 1 (GFEC_BFLY_DISJOINT): block (g, piece) runs op g over one byte range of its
 *    regions, 16 bytes (8 symbols) per thread per step;
 *  - grouped, G = 4 (GFEC_BFLY_GROUP4, two fused FFT layers): block (g, piece) loads the four
 *    regions of group g at each position into registers, runs its four ops, stores the four once
 *    (half the passes over memory of two layers). fft16.c's groups, forward and inverse alike,
 *    have one shape: with r0 = x[4g], r1 = y[4g], r2 = x[4g+1], r3 = y[4g+1], the ops are
 *    (r0, r1), (r2, r3), (r0, r2), (r1, r3), four distinct regions; a list with a group of any
 *    other shape runs as an ordered one;
 *  - sums (GFEC_BFLY_SUMS, every c = 0, runs of at most kB16SumsMax ops): block (g, piece)
 *    runs run g (ops starts[g] .. starts[g + 1] - 1), y ^= its xs, over one byte range: y loaded
 *    and stored once, each x loaded once, 16 bytes per thread per step (the decoder's formal
 *    derivative in one pass per region written); a list with a longer run or a product runs as
 *    an ordered one;
 *  - ordered (no flag): each thread owns 4 bytes (2 symbols) of every region and runs the whole
 *    list on them in order, kB16Chunk ops at a time (their pointers and tables staged in shared
 *    memory), so an op sees what earlier ops wrote at its positions.
 *
 *     grouped, sums:  blockIdx.x = op, group or run g   blockIdx.y = piece of span bytes
 *               thread t: bytes [piece*span + 16t + 4096 i, +16) for i = 0, 1, ...
 *     ordered:  block b, thread t: bytes [4 (256 b + t), +4) of every region, every op
 *
 * Alignment. Whole 16-byte (4-byte) units load and store as one vector word when every pointer
 * of the list is 16-byte (4-byte) aligned; otherwise, and for the unit that holds the end of an
 * odd-length region, byte by byte (regions may start at any address; len is even).
 */
#ifndef GFEC_CUDA_BFLY16_CUH
#define GFEC_CUDA_BFLY16_CUH

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__CUDACC__)
#define GFEC_B16_HD __host__ __device__ __forceinline__
#else
#define GFEC_B16_HD inline
#endif

namespace gfec {

constexpr int kB16Threads = 256;	 // threads per block, every kernel
constexpr int kB16Chunk = 32;		 // ordered lists: ops staged per round
constexpr int kB16TableWords = 64;	 // one constant: 4 tables of 16 entries
constexpr int kB16MaxOps = 65536;	 // ops per launch (longer lists: several, in order)
constexpr int kB16BlocksPerSm = 8;	 // grouped kernels: blocks per SM a launch aims at
constexpr size_t kB16PieceMin = 4096;	 // grouped kernels: least bytes per piece (one step)
constexpr int kB16SumsMax = 16;		 // sums kernel: the longest run (log2 of 65536 points)

enum B16Kind { kB16Fwd = 0, kB16Inv = 1, kB16Mul = 2 }; // enum gfec_bfly_kind's values

// A list on the device: op p is (x[p], y[p], c[p]).
struct B16List {
	uint8_t *const *x;
	uint8_t *const *y;
	const uint16_t *c;
};

GFEC_B16_HD uint32_t b16_xtime(uint32_t v)
{
	v <<= 1;
	return v & 0x10000u ? v ^ 0x1100Bu : v;
}

// Entry e (0..63) of constant c's tables: table e / 16, nibble e % 16.
GFEC_B16_HD uint32_t b16_table_entry(uint32_t c, int e)
{
	const int t = e >> 4, i = e & 15;
	uint32_t v = c, acc = 0;

	for (int j = 0; j < 4 * t; j++)
		v = b16_xtime(v);
	for (int b = 0; b < 4; b++) {
		if (i >> b & 1)
			acc ^= v;
		v = b16_xtime(v);
	}
	return acc;
}

GFEC_B16_HD uint32_t b16_mul(const uint32_t *tb, uint32_t s)
{
	return tb[s & 15] ^ tb[16 | (s >> 4 & 15)] ^ tb[32 | (s >> 8 & 15)] ^ tb[48 | (s >> 12 & 15)];
}

// Two little-endian symbols in a word (the lower address in the low half).
GFEC_B16_HD uint32_t b16_mul2(const uint32_t *tb, uint32_t w)
{
	return b16_mul(tb, w & 0xffffu) | b16_mul(tb, w >> 16) << 16;
}

// One op on a word of each of its regions; nz = 0 (c = 0) skips the product.
template <int KIND> GFEC_B16_HD void b16_op(const uint32_t *tb, bool nz, uint32_t &x, uint32_t &y)
{
	if (KIND == kB16Fwd) {
		if (nz)
			x ^= b16_mul2(tb, y);
		y ^= x;
	} else if (KIND == kB16Inv) {
		y ^= x;
		if (nz)
			x ^= b16_mul2(tb, y);
	} else {
		x = nz ? b16_mul2(tb, y) : 0;
	}
}

// W words of a region at byte off (bytes at len and beyond read as 0); vec: p + off is aligned.
template <int W>
GFEC_B16_HD void b16_load(const uint8_t *p, size_t off, size_t len, bool vec, uint32_t *w)
{
	if (vec && off + 4 * W <= len) {
#if defined(__CUDA_ARCH__)
		if (W == 4) {
			const uint4 v = *reinterpret_cast<const uint4 *>(p + off);

			w[0] = v.x, w[1] = v.y, w[2] = v.z, w[3] = v.w;
		} else {
			for (int i = 0; i < W; i++)
				w[i] = reinterpret_cast<const uint32_t *>(p + off)[i];
		}
#else
		memcpy(w, p + off, 4 * W); // the host (emulation): little-endian as the GPU
#endif
		return;
	}
	for (int i = 0; i < W; i++) {
		uint32_t v = 0;

		for (int b = 0; b < 4; b++)
			if (off + 4 * i + b < len)
				v |= (uint32_t)p[off + 4 * i + b] << 8 * b;
		w[i] = v;
	}
}

// ... and back (bytes at len and beyond untouched).
template <int W>
GFEC_B16_HD void b16_store(uint8_t *p, size_t off, size_t len, bool vec, const uint32_t *w)
{
	if (vec && off + 4 * W <= len) {
#if defined(__CUDA_ARCH__)
		if (W == 4)
			*reinterpret_cast<uint4 *>(p + off) = make_uint4(w[0], w[1], w[2], w[3]);
		else
			for (int i = 0; i < W; i++)
				reinterpret_cast<uint32_t *>(p + off)[i] = w[i];
#else
		memcpy(p + off, w, 4 * W);
#endif
		return;
	}
	for (int i = 0; i < W; i++)
		for (int b = 0; b < 4; b++)
			if (off + 4 * i + b < len)
				p[off + 4 * i + b] = (uint8_t)(w[i] >> 8 * b);
}

/*
 * A grouped kernel's thread at one 16-byte unit (off) of group g (G ops: l.x[G g + i] ...) with
 * the group's tables tb[i] (64 words each).
 */
template <int G, int KIND>
GFEC_B16_HD void b16_group_unit(const B16List &l, size_t g, const uint32_t *tb, size_t off,
				size_t len, bool vec)
{
	constexpr int W = 4;

	if (G == 1) {
		uint8_t *const x = l.x[g], *const y = l.y[g];
		const bool nz = l.c[g] != 0;
		uint32_t xv[W] = { 0, 0, 0, 0 }, yv[W] = { 0, 0, 0, 0 };

		if (KIND != kB16Mul)
			b16_load<W>(x, off, len, vec, xv);
		if (KIND != kB16Mul || nz) // x = 0 * y reads nothing (the decoder's zero points)
			b16_load<W>(y, off, len, vec, yv);
		for (int w = 0; w < W; w++)
			b16_op<KIND>(tb, nz, xv[w], yv[w]);
		if (KIND == kB16Mul || nz) // FWD / INV with c = 0 leave x as it was (y ^= x alone)
			b16_store<W>(x, off, len, vec, xv);
		if (KIND != kB16Mul)
			b16_store<W>(y, off, len, vec, yv);
	} else {
		uint8_t *const r[4] = { l.x[4 * g], l.y[4 * g], l.x[4 * g + 1], l.y[4 * g + 1] };
		bool nz[4];
		uint32_t v[4][W];

		for (int i = 0; i < 4; i++) {
			nz[i] = l.c[4 * g + i] != 0;
			b16_load<W>(r[i], off, len, vec, v[i]);
		}
		for (int w = 0; w < W; w++) {
			b16_op<KIND>(tb, nz[0], v[0][w], v[1][w]);
			b16_op<KIND>(tb + 64, nz[1], v[2][w], v[3][w]);
			b16_op<KIND>(tb + 128, nz[2], v[0][w], v[2][w]);
			b16_op<KIND>(tb + 192, nz[3], v[1][w], v[3][w]);
		}
		for (int i = 0; i < 4; i++)
			b16_store<W>(r[i], off, len, vec, v[i]);
	}
}

/*
 * A sums kernel's thread at one 16-byte unit (off) of a run: y ^= xs[0] ^ ... ^ xs[run - 1],
 * the xs loaded kB16SumsBatch at a time before any is summed (loads in flight at once, not one
 * latency per x).
 */
constexpr int kB16SumsBatch = 4;

GFEC_B16_HD void b16_sums_unit(uint8_t *const *xs, uint8_t *y, int run, size_t off, size_t len,
			       bool vec)
{
	constexpr int W = 4;
	uint32_t a[W];

	b16_load<W>(y, off, len, vec, a);
	for (int i0 = 0; i0 < run; i0 += kB16SumsBatch) {
		uint32_t v[kB16SumsBatch][W] = {};

#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
		for (int j = 0; j < kB16SumsBatch; j++)
			if (i0 + j < run)
				b16_load<W>(xs[i0 + j], off, len, vec, v[j]);
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
		for (int j = 0; j < kB16SumsBatch; j++)
			for (int w = 0; w < W; w++)
				a[w] ^= v[j][w];
	}
	b16_store<W>(y, off, len, vec, a);
}

// An ordered kernel's thread at its 4-byte unit (off): ops 0..n-1 of a staged round, in order.
template <int KIND>
GFEC_B16_HD void b16_ordered_unit(uint8_t *const *xs, uint8_t *const *ys, const uint16_t *cs,
				  const uint32_t *tb, int n, size_t off, size_t len, bool vec)
{
	for (int q = 0; q < n; q++) {
		uint32_t x = 0, y;

		if (KIND != kB16Mul)
			b16_load<1>(xs[q], off, len, vec, &x);
		b16_load<1>(ys[q], off, len, vec, &y);
		b16_op<KIND>(tb + 64 * q, cs[q] != 0, x, y);
		if (KIND == kB16Mul || cs[q])
			b16_store<1>(xs[q], off, len, vec, &x);
		if (KIND != kB16Mul)
			b16_store<1>(ys[q], off, len, vec, &y);
	}
}

// --- the host's choices (bfly16.cu; the emulation makes the same) -------------------------------

// 1 when every group of four ops of x, y (n a multiple of 4) has the shape the G = 4 kernel runs.
inline int b16_groups_ok(uint8_t *const *x, uint8_t *const *y, size_t n)
{
	for (size_t p = 0; p < n; p += 4) {
		const uint8_t *r0 = x[p], *r1 = y[p], *r2 = x[p + 1], *r3 = y[p + 1];

		if (x[p + 2] != r0 || y[p + 2] != r2 || x[p + 3] != r1 || y[p + 3] != r3 ||
		    r0 == r1 || r0 == r2 || r0 == r3 || r1 == r2 || r1 == r3 || r2 == r3)
			return 0;
	}
	return 1;
}

/*
 * 1 when a GFEC_BFLY_SUMS list of n ops runs on the sums kernel: every c is 0 and every run
 * (consecutive ops with one y) at most kB16SumsMax ops; else 0 (the list runs in order). That
 * no run's y is an x, nor two runs' y the same, is the caller's promise.
 */
inline int b16_sums_ok(uint8_t *const *y, const uint16_t *c, size_t n)
{
	size_t r = 0;

	for (size_t p = 0; p < n; p++) {
		r = p && y[p] == y[p - 1] ? r + 1 : 1;
		if (c[p] || r > (size_t)kB16SumsMax)
			return 0;
	}
	return n > 0;
}

/*
 * One sums launch from op 0 of a list of n ops: whole runs, at most @p most ops (>=
 * kB16SumsMax). Returns the ops it takes; *runs its runs; starts (NULL: not written) gets each
 * run's first op and, last, the ops taken (*runs + 1 entries).
 */
inline size_t b16_sums_take(uint8_t *const *y, size_t n, size_t most, uint32_t *starts,
			    size_t *runs)
{
	size_t p = 0, g = 0;

	while (p < n) {
		size_t e = p + 1;

		while (e < n && y[e] == y[p])
			e++;
		if (e > most)
			break;
		if (starts)
			starts[g] = (uint32_t)p;
		g++;
		p = e;
	}
	if (starts)
		starts[g] = (uint32_t)p;
	*runs = g;
	return p;
}

// The OR of n pointers' addresses of x and y (alignment of them all: % 16, % 4).
inline uintptr_t b16_addr_bits(uint8_t *const *x, uint8_t *const *y, size_t n)
{
	uintptr_t b = 0;

	for (size_t p = 0; p < n; p++)
		b |= (uintptr_t)x[p] | (uintptr_t)y[p];
	return b;
}

/*
 * A grouped launch of @p groups groups over @p len bytes: enough blocks for kB16BlocksPerSm per
 * SM where the groups alone are fewer, pieces of at least kB16PieceMin bytes, at most 65535 of
 * them; *span is a multiple of 16.
 */
inline void b16_grid(size_t groups, size_t len, int sms, unsigned *pieces, size_t *span)
{
	const size_t want = ((size_t)sms * kB16BlocksPerSm + groups - 1) / groups;
	const size_t most = (len + kB16PieceMin - 1) / kB16PieceMin;
	size_t p = want < most ? want : most;

	p = p < 1 ? 1 : p > 65535 ? 65535 : p;
	*span = ((len + p - 1) / p + 15) / 16 * 16;
	*pieces = (unsigned)((len + *span - 1) / *span);
}

#if defined(__CUDACC__)

template <int G, int KIND>
__global__ void __launch_bounds__(kB16Threads)
	b16_grouped_t256(B16List l, size_t len, size_t span, int vec)
{
	__shared__ uint32_t tb[G * kB16TableWords];
	const size_t g = blockIdx.x;
	const int t = threadIdx.x;

	if (t < G * kB16TableWords)
		tb[t] = b16_table_entry(l.c[g * G + t / kB16TableWords], t % kB16TableWords);
	__syncthreads();
	const size_t b0 = (size_t)blockIdx.y * span, b1 = b0 + span < len ? b0 + span : len;

	for (size_t off = b0 + (size_t)t * 16; off < b1; off += (size_t)kB16Threads * 16)
		b16_group_unit<G, KIND>(l, g, tb, off, len, vec != 0);
}

static __global__ void __launch_bounds__(kB16Threads)
	b16_sums_t256(B16List l, const uint32_t *starts, size_t len, size_t span, int vec)
{
	__shared__ uint8_t *xs[kB16SumsMax];
	const size_t g = blockIdx.x;
	const int t = threadIdx.x;
	const uint32_t p0 = starts[g];
	const int run = (int)(starts[g + 1] - p0);

	if (t < run)
		xs[t] = l.x[p0 + t];
	__syncthreads();
	uint8_t *const y = l.y[p0];
	const size_t b0 = (size_t)blockIdx.y * span, b1 = b0 + span < len ? b0 + span : len;

	for (size_t off = b0 + (size_t)t * 16; off < b1; off += (size_t)kB16Threads * 16)
		b16_sums_unit(xs, y, run, off, len, vec != 0);
}

template <int KIND>
__global__ void __launch_bounds__(kB16Threads)
	b16_ordered_t256(B16List l, int n, size_t len, int vec, int tables)
{
	__shared__ uint32_t tb[kB16Chunk * kB16TableWords];
	__shared__ uint8_t *xs[kB16Chunk], *ys[kB16Chunk];
	__shared__ uint16_t cs[kB16Chunk];
	const int t = threadIdx.x;
	const size_t off = ((size_t)blockIdx.x * kB16Threads + t) * 4;

	for (int p0 = 0; p0 < n; p0 += kB16Chunk) {
		const int cnt = n - p0 < kB16Chunk ? n - p0 : kB16Chunk;

		__syncthreads(); // the previous round is done with the staged ops
		if (t < cnt) {
			xs[t] = l.x[p0 + t];
			ys[t] = l.y[p0 + t];
			cs[t] = l.c[p0 + t];
		}
		if (tables)
			for (int e = t; e < cnt * kB16TableWords; e += kB16Threads)
				tb[e] = b16_table_entry(l.c[p0 + e / kB16TableWords],
							e % kB16TableWords);
		__syncthreads();
		if (off < len)
			b16_ordered_unit<KIND>(xs, ys, cs, tb, cnt, off, len, vec != 0);
	}
}

#endif

} // namespace gfec

#endif
