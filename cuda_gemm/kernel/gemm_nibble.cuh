// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file gemm_nibble.cuh
 * GF(2^8) GEMM through nibble tables in shared memory: the GPU analogue of ISA-L's pshufb.
 *
 * c * x = c * (x & 0x0f) ^ c * (x & 0xf0), so each product is two 16-entry lookups. One table
 * word packs the products of 4 rows (a "row group" g), so one pair of lookups serves 4 parity
 * rows. Every table is stored 32 times, once per bank, and lane l reads only its own copy:
 *
 *   table ti = j*RG + g (input j, row group g), 4 KiB at byte ti * 4096:
 *     byte offset  n * 256 + half * 128 + lane * 4   holds   pack_r A(4g+r, j) * (n << 4*half)
 *
 * so a warp's 32 lookups always hit 32 different banks, whatever the data. The byte address is
 * built with one PRMT per lookup: byte 0 = lane*4 (+128 for the high nibble), byte 1 =
 * (ti & 15) << 4 | nibble, byte 2 = ti >> 4. A data byte costs 2 PRMT + 2 LDS per row group.
 *
 * Limits: rows <= 4 * RG, cols * RG <= 56 (224 KiB of tables).
 * Thread layout: a persistent grid; each thread walks 16-byte units (u = tid, tid + stride, ...).
 */
#pragma once

#include "gemm_args.cuh"

namespace gfec {

constexpr int kNibbleTableBytes = 4096;
constexpr int kNibbleMaxTables = 56;

__device__ __forceinline__ uint32_t lds32(const uint8_t *smem, uint32_t addr)
{
	return *reinterpret_cast<const uint32_t *>(smem + addr);
}

// 4x4 byte transpose: in[b] holds rows 0..3 of byte position b; out[r] holds positions 0..3 of row r.
__device__ __forceinline__ void transpose4(const uint32_t *in, uint32_t *out)
{
	const uint32_t t0 = __byte_perm(in[0], in[1], 0x5140);
	const uint32_t t1 = __byte_perm(in[2], in[3], 0x5140);
	const uint32_t t2 = __byte_perm(in[0], in[1], 0x7362);
	const uint32_t t3 = __byte_perm(in[2], in[3], 0x7362);

	out[0] = __byte_perm(t0, t1, 0x5410);
	out[1] = __byte_perm(t0, t1, 0x7632);
	out[2] = __byte_perm(t2, t3, 0x5410);
	out[3] = __byte_perm(t2, t3, 0x7632);
}

// The kernel's body; Stripes (StripeTable or StripeStride, gemm_args.cuh) says where stripe s's
// inputs and outputs are (their bytes at a unit's offset).
template <int RG, int THREADS, class Stripes>
__device__ __forceinline__ void nibble_body(const GemmArgs &args, const Stripes &stripes)
{
	extern __shared__ __align__(16) uint8_t smem[];
	uint32_t *tab = reinterpret_cast<uint32_t *>(smem);
	const int ntab = args.cols * RG;
	const uint32_t lane = threadIdx.x & 31;
	const uint32_t lane4 = lane * 4;

	// Replicate the compact tables (32 words per table) into the bank-per-lane layout.
	for (int i = threadIdx.x; i < ntab * (kNibbleTableBytes / 4); i += THREADS) {
		const int ti = i >> 10, rem = i & 1023;

		tab[i] = args.tables[ti * 32 + ((rem >> 5) & 1) * 16 + (rem >> 6)];
	}
	__syncthreads();

	const size_t total = (size_t)args.nstripes * args.units;

	for (size_t u = (size_t)blockIdx.x * THREADS + threadIdx.x; u < total;
	     u += (size_t)gridDim.x * THREADS) {
		const size_t s = u / args.units;
		const size_t off = (u % args.units) * 16;
		const auto st = stripes.stripe(s, off, args.cols, args.rows);

		if (args.vec && off + 16 <= args.len) {
			uint32_t acc[RG][16];

#pragma unroll
			for (int g = 0; g < RG; g++)
#pragma unroll
				for (int b = 0; b < 16; b++)
					acc[g][b] = 0;
#pragma unroll 2
			for (int j = 0; j < args.cols; j++) {
				const uint4 v = ld16(st.in(j));
				const uint32_t w[4] = { v.x, v.y, v.z, v.w };

#pragma unroll
				for (int q = 0; q < 4; q++) {
					const uint32_t lo = w[q] & 0x0f0f0f0fu;
					const uint32_t hi = (w[q] >> 4) & 0x0f0f0f0fu;

#pragma unroll
					for (int g = 0; g < RG; g++) {
						const uint32_t ti = (uint32_t)(j * RG + g);
						const uint32_t jb = (ti & 15) * 0x10101010u;
						const uint32_t yl = ((ti >> 4) << 16) | lane4;
						const uint32_t yh = yl | 128;
						const uint32_t xl = lo | jb, xh = hi | jb;

#pragma unroll
						for (int b = 0; b < 4; b++) {
							const uint32_t sel = 0x7604u | (b << 4);

							acc[g][q * 4 + b] ^=
								lds32(smem, __byte_perm(xl, yl, sel)) ^
								lds32(smem, __byte_perm(xh, yh, sel));
						}
					}
				}
			}
#pragma unroll
			for (int g = 0; g < RG; g++) {
				uint32_t row[4][4]; // row[r][q]: word q of output row 4g+r

#pragma unroll
				for (int q = 0; q < 4; q++) {
					uint32_t t[4];

					transpose4(&acc[g][q * 4], t);
#pragma unroll
					for (int r = 0; r < 4; r++)
						row[r][q] = t[r];
				}
#pragma unroll
				for (int r = 0; r < 4; r++) {
					if (4 * g + r >= args.rows)
						continue;
					uint4 o = make_uint4(row[r][0], row[r][1], row[r][2], row[r][3]);

					if (args.acc) {
						const uint4 d = ld16(st.out(4 * g + r));

						o.x ^= d.x, o.y ^= d.y, o.z ^= d.z, o.w ^= d.w;
					}
					st16(st.out(4 * g + r), o);
				}
			}
		} else {
			// Unaligned buffers or the last partial unit: one byte at a time.
			const size_t end = off + 16 < args.len ? off + 16 : args.len;

			for (size_t p = off; p < end; p++) {
				uint32_t acc[RG];

#pragma unroll
				for (int g = 0; g < RG; g++)
					acc[g] = 0;
				for (int j = 0; j < args.cols; j++) {
					const uint32_t d = st.in(j)[p - off];

#pragma unroll
					for (int g = 0; g < RG; g++) {
						const uint32_t *t = tab + (j * RG + g) * 1024 + lane;

						acc[g] ^= t[(d & 15) * 64] ^ t[(d >> 4) * 64 + 32];
					}
				}
#pragma unroll
				for (int g = 0; g < RG; g++)
#pragma unroll
					for (int r = 0; r < 4; r++)
						if (4 * g + r < args.rows)
							st.out(4 * g + r)[p - off] =
								(uint8_t)(acc[g] >> (8 * r)) ^
								(args.acc ? st.out(4 * g + r)[p - off] : 0);
			}
		}
	}
}

/*
 * Blocks of 512 threads run two to a multiprocessor (the tables' shared memory allows it), and
 * ptxas is told so (the second argument of __launch_bounds__). Left to choose, it scheduled
 * `nibble_rg1_t512`'s strided form at 0.94-0.96x the table form, issuing its two unrolled input
 * loads apart (81.8-83.1 us against 77.0-80.2 on 4096 RS(10,4) stripes of 4 KiB on the H200;
 * small-2026-11-25b, calls 3 and 5); told, the strided form runs at 1.04x, and the table form
 * 1.4-3.4% faster on RS(10,4) and RS(8,3) (call 9; `nibble_rg2_t512`, at 64 registers either way,
 * unchanged). Other block sizes are left to ptxas (0: no bound; a bound of 1 took their
 * registers from 48 to 101).
 */
constexpr int nibble_min_blocks(int threads)
{
	return threads == 512 ? 2 : 0;
}

template <int RG, int THREADS>
__global__ void __launch_bounds__(THREADS, nibble_min_blocks(THREADS)) gf_gemm_nibble(GemmArgs args)
{
	nibble_body<RG, THREADS>(args, StripeTable{ args.src, args.dst });
}

/**
 * The same kernel with the stripes' pointers in its parameters (GemmArgsInline: src then dst),
 * read in place (__grid_constant__): a small batch needs no pointer table in device memory, so
 * no copy before the launch.
 */
template <int RG, int THREADS>
__global__ void __launch_bounds__(THREADS, nibble_min_blocks(THREADS))
	gf_gemm_nibble_inline(const __grid_constant__ GemmArgsInline p)
{
	nibble_body<RG, THREADS>(p.args,
				 StripeTable{ p.ptrs, p.ptrs + (size_t)p.args.nstripes * p.args.cols });
}

/**
 * The same kernel on evenly spaced stripes (GemmArgsStride): the first stripe's pointers in its
 * parameters and the distance between stripes, so that a large batch laid out at one pitch needs
 * neither a pointer table in device memory nor its upload.
 */
template <int RG, int THREADS>
__global__ void __launch_bounds__(THREADS, nibble_min_blocks(THREADS))
	gf_gemm_nibble_stride(const __grid_constant__ GemmArgsStride p)
{
	__shared__ uint8_t *row[kStridePtrs];

	stride_row(p, row, THREADS); // published by the body's barrier after its tables
	nibble_body<RG, THREADS>(p.args, StripeStride{ row, row + p.args.cols, p.src_step,
						       p.dst_step });
}

/*
 * Small calls (one stripe of a few KiB, a few dozen stripes): the kernel above spends most of such
 * a launch before its first product (the 4 KiB-per-table replication into shared memory, then one
 * block walking the sources). This one has no prologue and no shared memory:
 *
 *   - one 16-byte unit per thread, blocks of kSmallThreads, as many blocks as units need (one
 *     4 KiB chunk: 4 blocks on 4 multiprocessors);
 *   - lane l of every warp holds word l of each compact table (32 words: the 16 low-nibble, then
 *     the 16 high-nibble products, 4 rows packed), so a lookup is a warp shuffle from the lane
 *     the nibble names: c * x = shfl(T, x & 15) ^ shfl(T, 16 | x >> 4);
 *   - every load a thread needs (its table words, its pointers, then all its sources, up to
 *     kSmallMaxCols) is issued before the first product: a launch waits about two memory
 *     latencies, not one per source.
 *
 * Alignment is decided per unit (all of the stripe's pointers 16-byte aligned and a whole unit:
 * 16-byte accesses; else byte accesses), so the host need not look at the pointers. Shuffles need
 * the whole warp: the unit loop advances a warp at a time and threads past the end compute on
 * zeros without storing.
 */
constexpr int kSmallMaxCols = 16;
constexpr int kSmallThreads = 64;

/*
 * How a small-call body reads memory. A launch's inputs and tables do not change under it, so
 * they take the read-only path and outputs are read (acc) as plain loads ...
 */
struct LoadLaunch {
	static __device__ __forceinline__ uint4 v16(const uint8_t *p) { return ld16(p); }
	static __device__ __forceinline__ uint32_t word(const uint32_t *p) { return __ldg(p); }
	static __device__ __forceinline__ uint8_t byte(const uint8_t *p) { return *p; }
};

/*
 * ... while a kernel that outlives its inputs (resident.cu: the caller rewrites them between
 * requests, a plan's tables may be freed and their memory reused) reads everything from L2,
 * where other kernels' and copies' writes are, never from a stale line of its multiprocessor's
 * L1 or read-only cache.
 */
struct LoadL2 {
	static __device__ __forceinline__ uint4 v16(const uint8_t *p)
	{
		uint4 v;

		asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];"
			     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
			     : "l"(p));
		return v;
	}
	static __device__ __forceinline__ uint32_t word(const uint32_t *p)
	{
		uint32_t v;

		asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p));
		return v;
	}
	static __device__ __forceinline__ uint8_t byte(const uint8_t *p)
	{
		uint16_t v;

		asm volatile("ld.global.cg.u8 %0, [%1];" : "=h"(v) : "l"(p));
		return (uint8_t)v;
	}
};

/*
 * ... and one that reads pinned host memory through its mapped addresses (resident.cu's pinned
 * engines), which the CPU rewrites between requests without going through L2, fetches every
 * line again (.cv: a cached line of system memory is taken as stale).
 */
struct LoadSys {
	static __device__ __forceinline__ uint32_t word(const uint32_t *p)
	{
		uint32_t v;

		asm volatile("ld.global.cv.u32 %0, [%1];" : "=r"(v) : "l"(p));
		return v;
	}
	static __device__ __forceinline__ uint8_t byte(const uint8_t *p)
	{
		uint16_t v;

		asm volatile("ld.global.cv.u8 %0, [%1];" : "=h"(v) : "l"(p));
		return (uint8_t)v;
	}
};

// n (< 16) bytes at p, zero-extended to a unit.
template <class L> __device__ __forceinline__ uint4 ld_bytes(const uint8_t *p, int n)
{
	uint32_t w[4] = { 0, 0, 0, 0 };

#pragma unroll
	for (int b = 0; b < 16; b++)
		if (b < n)
			w[b >> 2] |= (uint32_t)L::byte(p + b) << (8 * (b & 3));
	return make_uint4(w[0], w[1], w[2], w[3]);
}

/*
 * The products of one source word's four bytes, XORed into acc[g][at + b] (byte b, row group g),
 * with @p tab this source's compact-table words (lane l holds word l).
 */
template <int RG, int N>
__device__ __forceinline__ void lookup_word(const uint32_t (&tab)[RG], uint32_t w,
					    uint32_t (&acc)[RG][N], int at)
{
	const uint32_t lo = w & 0x0f0f0f0fu;
	const uint32_t hi = ((w >> 4) & 0x0f0f0f0fu) | 0x10101010u;

#pragma unroll
	for (int b = 0; b < 4; b++) {
		// shfl reads lane (srcLane mod 32): bits 0-4 of the byte
		const int sl = (int)(lo >> (8 * b)), sh = (int)(hi >> (8 * b));

#pragma unroll
		for (int g = 0; g < RG; g++)
			acc[g][at + b] ^= __shfl_sync(0xffffffffu, tab[g], sl) ^
					  __shfl_sync(0xffffffffu, tab[g], sh);
	}
}

// THREADS: the block's size (the unit loop's step is a grid of such blocks).
template <int RG, class Stripes, class L = LoadLaunch, int THREADS = kSmallThreads>
__device__ __forceinline__ void nibble_small_body(const GemmArgs &args, const Stripes &stripes)
{
	const uint32_t lane = threadIdx.x & 31;
	const int cols = args.cols, rows = args.rows;
	const size_t total = (size_t)args.nstripes * args.units;
	uint32_t tab[kSmallMaxCols][RG];

#pragma unroll
	for (int j = 0; j < kSmallMaxCols; j++)
#pragma unroll
		for (int g = 0; g < RG; g++)
			tab[j][g] = j < cols ? L::word(args.tables + (j * RG + g) * 32 + lane) : 0;

	for (size_t u0 = (size_t)blockIdx.x * THREADS + (threadIdx.x - lane); u0 < total;
	     u0 += (size_t)gridDim.x * THREADS) {
		const size_t u = u0 + lane;
		const bool live = u < total;
		const size_t s = live ? u / args.units : 0;
		const size_t off = live ? (u - s * args.units) * 16 : 0;
		const int n = live ? (int)(args.len - off < 16 ? args.len - off : 16) : 0;
		const auto st = stripes.stripe(s, off, cols, rows);
		const uint8_t *sp[kSmallMaxCols];
		uintptr_t bits = 0;
		uint4 v[kSmallMaxCols];

#pragma unroll
		for (int j = 0; j < kSmallMaxCols; j++) {
			sp[j] = j < cols ? st.in(j) : nullptr;
			bits |= (uintptr_t)sp[j];
		}
		for (int i = 0; i < rows; i++)
			bits |= (uintptr_t)st.out(i);
		const bool vec = n == 16 && bits % 16 == 0;

		if (vec) {
#pragma unroll
			for (int j = 0; j < kSmallMaxCols; j++)
				v[j] = j < cols ? L::v16(sp[j]) : make_uint4(0, 0, 0, 0);
		} else {
#pragma unroll
			for (int j = 0; j < kSmallMaxCols; j++)
				v[j] = j < cols ? ld_bytes<L>(sp[j], n) : make_uint4(0, 0, 0, 0);
		}

		uint32_t acc[RG][16];

#pragma unroll
		for (int g = 0; g < RG; g++)
#pragma unroll
			for (int b = 0; b < 16; b++)
				acc[g][b] = 0;
#pragma unroll
		for (int j = 0; j < kSmallMaxCols; j++) {
			if (j >= cols) // the same for the whole warp
				break;
			const uint32_t w[4] = { v[j].x, v[j].y, v[j].z, v[j].w };

#pragma unroll
			for (int q = 0; q < 4; q++)
				lookup_word<RG>(tab[j], w[q], acc, q * 4);
		}
		if (!live)
			continue;
#pragma unroll
		for (int g = 0; g < RG; g++) {
			uint32_t row[4][4]; // row[r][q]: word q of output row 4g+r

#pragma unroll
			for (int q = 0; q < 4; q++) {
				uint32_t t[4];

				transpose4(&acc[g][q * 4], t);
#pragma unroll
				for (int r = 0; r < 4; r++)
					row[r][q] = t[r];
			}
#pragma unroll
			for (int r = 0; r < 4; r++) {
				if (4 * g + r >= rows)
					continue;
				uint8_t *o = st.out(4 * g + r);

				if (vec) {
					uint4 x = make_uint4(row[r][0], row[r][1], row[r][2], row[r][3]);

					if (args.acc) {
						const uint4 d = L::v16(o);

						x.x ^= d.x, x.y ^= d.y, x.z ^= d.z, x.w ^= d.w;
					}
					st16(o, x);
				} else {
#pragma unroll
					for (int b = 0; b < 16; b++)
						if (b < n)
							o[b] = (uint8_t)(row[r][b >> 2] >> (8 * (b & 3))) ^
							       (args.acc ? L::byte(o + b) : 0);
				}
			}
		}
	}
}

// One word (n bytes, 1..4) of every source at @p off; whole aligned words (VEC) by word loads.
template <bool VEC, class L>
__device__ __forceinline__ void ld_words(const uint8_t *const *in, int cols, size_t off, int n,
					 uint32_t (&v)[kSmallMaxCols])
{
#pragma unroll
	for (int j = 0; j < kSmallMaxCols; j++) {
		v[j] = 0;
		if (j >= cols || n == 0)
			continue;
		if (VEC) {
			v[j] = L::word(reinterpret_cast<const uint32_t *>(in[j] + off));
		} else {
			for (int b = 0; b < n; b++)
				v[j] |= (uint32_t)L::byte(in[j] + off + b) << (8 * b);
		}
	}
}

template <int RG, class L, int THREADS, bool VEC>
__device__ __forceinline__ void nibble_words(const GemmArgs &args, const uint8_t *const *in,
					     uint8_t *const *out, unsigned block, unsigned blocks,
					     const uint32_t (&tab)[kSmallMaxCols][RG])
{
	const uint32_t lane = threadIdx.x & 31;
	const int cols = args.cols, rows = args.rows;
	const size_t words = (args.len + 3) / 4;

	// the words advance a warp at a time: shuffles need the whole warp
	for (size_t w0 = (size_t)block * THREADS + (threadIdx.x - lane); w0 < words;
	     w0 += (size_t)blocks * THREADS) {
		const size_t off = (w0 + lane) * 4;
		const int n = off < args.len ? (int)(args.len - off < 4 ? args.len - off : 4) : 0;
		uint32_t v[kSmallMaxCols], acc[RG][4];

		ld_words<VEC, L>(in, cols, off, n, v);
#pragma unroll
		for (int g = 0; g < RG; g++)
#pragma unroll
			for (int b = 0; b < 4; b++)
				acc[g][b] = 0;
#pragma unroll
		for (int j = 0; j < kSmallMaxCols; j++) {
			if (j >= cols) // the same for the whole warp
				break;
			lookup_word<RG>(tab[j], v[j], acc, 0);
		}
		if (!n)
			continue;
#pragma unroll
		for (int g = 0; g < RG; g++) {
			uint32_t row[4]; // row[r]: the word of output row 4g+r

			transpose4(acc[g], row);
#pragma unroll
			for (int r = 0; r < 4; r++) {
				if (4 * g + r >= rows)
					continue;
				uint8_t *o = out[4 * g + r] + off;

				if (VEC) {
					uint32_t *o32 = reinterpret_cast<uint32_t *>(o);

					*o32 = row[r] ^ (args.acc ? L::word(o32) : 0);
				} else {
					for (int b = 0; b < n; b++)
						o[b] = (uint8_t)(row[r] >> (8 * b)) ^
						       (args.acc ? L::byte(o + b) : 0);
				}
			}
		}
	}
}

/*
 * The resident kernel's body (resident.cu): the small-call body's lookups with one 4-byte word
 * per thread instead of a 16-byte unit, over @p blocks blocks (this one is @p block). Its sixteen
 * products per source and per row group come four to a thread, so a stripe spreads over four
 * times the warps: on the H200 one stripe of RS(10,4) with 4 KiB chunks took 3.8 us as 16-byte
 * units in one block of 256 threads and 2.0 us as words over 8 such blocks in resident.cu (1.4 in
 * a stand-alone harness; perf/results/nvidia-h200/resident-body-2026-11-25). One stripe: @p in (args.cols) and @p out
 * (args.rows), every pointer to device memory; word loads and stores when every pointer is
 * 4-byte aligned and the length a multiple of 4, else bytes.
 */
template <int RG, class L, int THREADS>
__device__ __forceinline__ void nibble_word_body(const GemmArgs &args, const uint8_t *const *in,
						 uint8_t *const *out, unsigned block, unsigned blocks)
{
	const uint32_t lane = threadIdx.x & 31;
	const int cols = args.cols, rows = args.rows;
	uint32_t tab[kSmallMaxCols][RG];
	uintptr_t bits = args.len;

#pragma unroll
	for (int j = 0; j < kSmallMaxCols; j++)
#pragma unroll
		for (int g = 0; g < RG; g++)
			tab[j][g] = j < cols ? L::word(args.tables + (j * RG + g) * 32 + lane) : 0;
	for (int j = 0; j < cols; j++)
		bits |= (uintptr_t)in[j];
	for (int i = 0; i < rows; i++)
		bits |= (uintptr_t)out[i];
	if (bits % 4 == 0)
		nibble_words<RG, L, THREADS, true>(args, in, out, block, blocks, tab);
	else
		nibble_words<RG, L, THREADS, false>(args, in, out, block, blocks, tab);
}

template <int RG>
__global__ void __launch_bounds__(kSmallThreads) gf_gemm_nibble_small(GemmArgs args)
{
	nibble_small_body<RG>(args, StripeTable{ args.src, args.dst });
}

/** The small-call kernel with the pointers in its parameters (N of them at most). */
template <int RG, int N>
__global__ void __launch_bounds__(kSmallThreads)
	gf_gemm_nibble_small_inline(const __grid_constant__ GemmArgsInlineN<N> p)
{
	nibble_small_body<RG>(p.args,
			      StripeTable{ p.ptrs, p.ptrs + (size_t)p.args.nstripes * p.args.cols });
}

/** The small-call kernel on evenly spaced stripes (GemmArgsStride). */
template <int RG>
__global__ void __launch_bounds__(kSmallThreads)
	gf_gemm_nibble_small_stride(const __grid_constant__ GemmArgsStride p)
{
	__shared__ uint8_t *row[kStridePtrs];

	stride_row(p, row, kSmallThreads);
	__syncthreads();
	nibble_small_body<RG>(p.args, StripeStride{ row, row + p.args.cols, p.src_step,
						    p.dst_step });
}

/** The XOR-stream bound: read every input once, write every output once, one XOR per word. */
template <int THREADS> __global__ void __launch_bounds__(THREADS) xor_stream(GemmArgs args)
{
	const size_t total = (size_t)args.nstripes * args.units;

	for (size_t u = (size_t)blockIdx.x * THREADS + threadIdx.x; u < total;
	     u += (size_t)gridDim.x * THREADS) {
		const size_t s = u / args.units, off = (u % args.units) * 16;
		uint4 x = make_uint4(0, 0, 0, 0);

#pragma unroll 4
		for (int j = 0; j < args.cols; j++) {
			const uint4 v = ld16(args.src[s * args.cols + j] + off);

			x.x ^= v.x;
			x.y ^= v.y;
			x.z ^= v.z;
			x.w ^= v.w;
		}
		for (int i = 0; i < args.rows; i++)
			st16(args.dst[s * args.rows + i] + off, x);
	}
}

} // namespace gfec
