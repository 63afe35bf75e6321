// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file gemm_args.cuh
 * What every GF GEMM kernel receives: a batch of stripes that share one matrix A (rows x cols).
 *
 *   stripe s, input j  : src[s * cols + j]   (len bytes, device memory)
 *   stripe s, output i : dst[s * rows + i]   (len bytes)
 *   dst_i = sum_j A(i,j) * src_j  over GF(2^8)      (acc = 0)
 *   dst_i ^= sum_j A(i,j) * src_j                   (acc = 1: the parity-delta update)
 *
 * A(i,j) is a[i * lda + j], so a column block of a larger matrix (update: one column) needs no copy.
 *
 * Work is cut into 16-byte units: unit u of the launch is stripe u / units, offset
 * 16 * (u % units) with units = ceil(len / 16). When every pointer is 16-byte aligned (args.vec),
 * whole units are moved with 16-byte vector accesses; otherwise, and for a last partial unit,
 * byte by byte.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace gfec {

struct GemmArgs {
	const uint8_t *const *src; // device array of nstripes * cols pointers
	uint8_t *const *dst;	   // device array of nstripes * rows pointers
	const uint8_t *a;	   // device copy of A, rows x cols row-major
	const uint32_t *tables;	   // device: kernel-specific expanded tables (may be NULL)
	int rows, cols;
	int nstripes;
	size_t len;
	size_t units;		   // ceil(len / 16)
	int vec;		   // 1: every pointer is 16-byte aligned
	int lda;		   // row stride of a (>= cols)
	int acc;		   // 1: XOR the product into dst instead of overwriting it
	size_t packetsize;	   // CRS kernels only: bytes per packet (len = blocks of 8 packets)
	// bmma only, NULL unless set: a matrix per stripe (network-coding batch decode). Stripe y
	// is grid row blockIdx.y and uses the table stripe_tables[y]; nstripes is then 1 per row.
	const uint32_t *const *stripe_tables;
};

/**
 * GemmArgs with the pointer table itself (src pointers, then dst pointers) instead of src / dst,
 * for launches of few stripes: the whole stays under 4 KiB, the classic kernel-parameter limit.
 * The small-call kernels also take a short one (kInlineSmallPtrs): fewer parameter bytes for the
 * launch to carry.
 */
constexpr int kInlinePtrs = 480;
constexpr int kInlineSmallPtrs = 64;

template <int N> struct GemmArgsInlineN {
	GemmArgs args; // src and dst unused
	uint8_t *ptrs[N];
};

using GemmArgsInline = GemmArgsInlineN<kInlinePtrs>;

static_assert(sizeof(GemmArgsInline) <= 4096, "kernel parameters over 4 KiB");

/**
 * Evenly spaced stripes: stripe s's pointers are the first stripe's moved by s steps (input j at
 * ptrs[j] + s * src_step, output i at ptrs[cols + i] + s * dst_step; steps in bytes, either sign),
 * which the host has checked for every stripe of the launch (cuda_gemm/device/stride.h). At most
 * kStridePtrs pointers (cols + rows).
 */
constexpr int kStridePtrs = 64;

struct GemmArgsStride {
	GemmArgs args; // src and dst unused
	ptrdiff_t src_step, dst_step;
	uint8_t *ptrs[kStridePtrs];
};

/*
 * A strided kernel's first row, copied from its parameters to shared memory (@p row) by the
 * block's threads before a barrier: read from the parameters with the input's index, the row
 * cost the nibble kernel 0.89-0.93x of its speed by a table in device memory (RS(10,4), 4096
 * stripes of 4 KiB on the H200: 87.6 against 77.9 us; small-2026-11-25/call1).
 */
__device__ __forceinline__ void stride_row(const GemmArgsStride &p, uint8_t **row, int threads)
{
	for (int i = threadIdx.x; i < p.args.cols + p.args.rows; i += threads)
		row[i] = p.ptrs[i];
}

/**
 * Where a kernel body finds stripe s's bytes at offset off (a unit's): by a pointer table
 * (stripe s at src + s * cols, ...), the offset added to each pointer read ...
 */
struct StripeTable {
	const uint8_t *const *src;
	uint8_t *const *dst;

	struct View {
		const uint8_t *const *src;
		uint8_t *const *dst;
		size_t off;
		__device__ __forceinline__ const uint8_t *in(int j) const { return src[j] + off; }
		__device__ __forceinline__ uint8_t *out(int i) const { return dst[i] + off; }
	};
	__device__ __forceinline__ View stripe(size_t s, size_t off, int cols, int rows) const
	{
		return View{ src + s * cols, dst + s * rows, off };
	}
};

/**
 * ... or by the first stripe's pointers and the steps between stripes (GemmArgsStride), the
 * stripe's steps and the offset added once into one displacement a side.
 */
struct StripeStride {
	const uint8_t *const *src; // the first stripe's
	uint8_t *const *dst;
	ptrdiff_t src_step, dst_step;

	struct View {
		const uint8_t *const *src;
		uint8_t *const *dst;
		ptrdiff_t src_at, dst_at;
		__device__ __forceinline__ const uint8_t *in(int j) const { return src[j] + src_at; }
		__device__ __forceinline__ uint8_t *out(int i) const { return dst[i] + dst_at; }
	};
	__device__ __forceinline__ View stripe(size_t s, size_t off, int, int) const
	{
		return View{ src, dst, (ptrdiff_t)s * src_step + (ptrdiff_t)off,
			     (ptrdiff_t)s * dst_step + (ptrdiff_t)off };
	}
};

__device__ __forceinline__ uint4 ld16(const uint8_t *p)
{
	uint4 v;

	// Streaming data: read once, do not keep in L1. Not volatile: loads may be hoisted.
	asm("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
		     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
		     : "l"(p));
	return v;
}

__device__ __forceinline__ void st16(uint8_t *p, uint4 v)
{
	asm volatile("st.global.cs.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(p), "r"(v.x), "r"(v.y),
		     "r"(v.z), "r"(v.w)
		     : "memory");
}

} // namespace gfec
