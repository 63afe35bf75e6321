// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file bfly16.cu
 * The GPU backend's GF(2^16) butterflies (bfly16.h): the lists' way to the device and the choice
 * of kernel (kernel/bfly16.cuh) per list.
 *
 *   host:   [copy list 0 to slot 0][copy list 1 to slot 1] ...  (waits only for slot reuse)
 *   stream: [H2D 0][kernel 0][event 0][H2D 1][kernel 1][event 1] ...   [sync: the caller's end]
 *
 * Lists longer than kB16MaxOps ops go as several launches in list order, whole groups of four
 * (or runs of a GFEC_BFLY_SUMS list) each. A sums launch's slot also carries its runs' starts.
 */
#include "bfly16.h"

#include <stdint.h>
#include <string.h>

#include "../kernel/bfly16.cuh"
#include "gemm.h"

namespace gfec
{
namespace
{

// x, y, c of up to kB16MaxOps ops, then (sums) up to kB16MaxOps + 1 run starts, 4-byte aligned
constexpr size_t kSlotBytes = (size_t)kB16MaxOps * (2 * sizeof(void *) + sizeof(uint16_t)) + 4 +
			      ((size_t)kB16MaxOps + 1) * sizeof(uint32_t);

// The stream, the pool and the staging slots (b->lock held).
cudaError_t make_objects(Bfly16 *b)
{
	cudaDeviceProp prop;
	cudaMemPoolProps pp = {};
	uint64_t keep = UINT64_MAX;
	cudaError_t e;

	if ((e = cudaGetDeviceProperties(&prop, b->dev)) != cudaSuccess)
		return e;
	b->sms = prop.multiProcessorCount;
	b->work = prop.totalGlobalMem / 8;
	// A blocking stream, as backend.cu's: its ops wait for what the caller queued on the legacy
	// default stream (a cudaMemcpy from pageable memory returns before its DMA lands).
	if ((e = cudaStreamCreateWithFlags(&b->st, cudaStreamDefault)) != cudaSuccess)
		return e;
	pp.allocType = cudaMemAllocationTypePinned;
	pp.location.type = cudaMemLocationTypeDevice;
	pp.location.id = b->dev;
	if ((e = cudaMemPoolCreate(&b->pool, &pp)) != cudaSuccess ||
	    (e = cudaMemPoolSetAttribute(b->pool, cudaMemPoolAttrReleaseThreshold, &keep)) !=
		    cudaSuccess)
		return e;
	for (Bfly16::Slot &s : b->slots)
		if ((e = cudaMallocHost(&s.h, kSlotBytes)) != cudaSuccess ||
		    (e = cudaMalloc(&s.d, kSlotBytes)) != cudaSuccess ||
		    (e = cudaEventCreateWithFlags(&s.ev, cudaEventDisableTiming)) != cudaSuccess)
			return e;
	return cudaSuccess;
}

// Frees what make_objects made (after the stream drains).
void release_objects(Bfly16 *b)
{
	if (b->st)
		cudaStreamSynchronize(b->st);
	for (Bfly16::Slot &s : b->slots) {
		if (s.ev)
			cudaEventDestroy(s.ev);
		cudaFreeHost(s.h);
		cudaFree(s.d);
		s = Bfly16::Slot();
	}
	if (b->pool)
		cudaMemPoolDestroy(b->pool);
	if (b->st)
		cudaStreamDestroy(b->st);
	b->pool = nullptr;
	b->st = nullptr;
	b->next = 0;
	b->ready = false;
	cudaGetLastError();
}

// The objects, once (b->lock held); nothing left over on failure.
cudaError_t make_ready(Bfly16 *b)
{
	if (b->ready)
		return cudaSuccess;
	const cudaError_t e = make_objects(b);

	if (e == cudaSuccess)
		b->ready = true;
	else
		release_objects(b);
	return e;
}

template <int KIND>
cudaError_t launch_kind(const B16List &l, int unit, int n, size_t len, uintptr_t bits,
			int tables, int sms, cudaStream_t st)
{
	if (unit == 0) {
		const size_t blocks = ((len + 3) / 4 + kB16Threads - 1) / kB16Threads;

		b16_ordered_t256<KIND><<<(unsigned)blocks, kB16Threads, 0, st>>>(l, n, len, bits % 4 == 0,
									      tables);
		return cudaGetLastError();
	}
	unsigned pieces;
	size_t span;

	b16_grid((size_t)n / unit, len, sms, &pieces, &span);
	const dim3 grid((unsigned)(n / unit), pieces);

	if (unit == 4)
		b16_grouped_t256<4, KIND><<<grid, kB16Threads, 0, st>>>(l, len, span, bits % 16 == 0);
	else
		b16_grouped_t256<1, KIND><<<grid, kB16Threads, 0, st>>>(l, len, span, bits % 16 == 0);
	return cudaGetLastError();
}

cudaError_t launch(int kind, const B16List &l, int unit, const uint32_t *starts, size_t runs,
		   int n, size_t len, uintptr_t bits, int tables, int sms, cudaStream_t st)
{
	if (runs) { // a GFEC_BFLY_SUMS list's runs (FWD, c = 0)
		unsigned pieces;
		size_t span;

		b16_grid(runs, len, sms, &pieces, &span);
		b16_sums_t256<<<dim3((unsigned)runs, pieces), kB16Threads, 0, st>>>(
			l, starts, len, span, bits % 16 == 0);
		return cudaGetLastError();
	}
	switch (kind) {
	case kB16Fwd:
		return launch_kind<kB16Fwd>(l, unit, n, len, bits, tables, sms, st);
	case kB16Inv:
		return launch_kind<kB16Inv>(l, unit, n, len, bits, tables, sms, st);
	default:
		return launch_kind<kB16Mul>(l, unit, n, len, bits, tables, sms, st);
	}
}

// One launch's worth of the list (ops [p0, p0 + cnt)) through the next slot; sums: its runs.
cudaError_t queue(Bfly16 *b, int kind, int unit, bool sums, size_t len, uint8_t *const *x,
		  uint8_t *const *y, const uint16_t *c, int cnt)
{
	Bfly16::Slot &s = b->slots[b->next];
	const size_t pb = (size_t)cnt * sizeof(void *);
	const size_t so = (2 * pb + (size_t)cnt * sizeof(uint16_t) + 3) / 4 * 4; // the starts
	size_t runs = 0;
	int tables = 0;
	cudaError_t e;

	b->next = (b->next + 1) % kB16Slots;
	if (s.used && (e = cudaEventSynchronize(s.ev)) != cudaSuccess)
		return e;
	memcpy(s.h, x, pb);
	memcpy(s.h + pb, y, pb);
	memcpy(s.h + 2 * pb, c, (size_t)cnt * sizeof(uint16_t));
	if (sums)
		b16_sums_take(y, (size_t)cnt, (size_t)cnt, reinterpret_cast<uint32_t *>(s.h + so),
			      &runs);
	for (int p = 0; p < cnt && !tables; p++)
		tables = c[p] != 0;
	const B16List l = { reinterpret_cast<uint8_t *const *>(s.d),
			    reinterpret_cast<uint8_t *const *>(s.d + pb),
			    reinterpret_cast<const uint16_t *>(s.d + 2 * pb) };

	if ((e = cudaMemcpyAsync(s.d, s.h, sums ? so + (runs + 1) * sizeof(uint32_t)
						: 2 * pb + (size_t)cnt * sizeof(uint16_t),
				 cudaMemcpyHostToDevice, b->st)) != cudaSuccess ||
	    (e = launch(kind, l, unit, reinterpret_cast<const uint32_t *>(s.d + so), runs, cnt, len,
			b16_addr_bits(x, y, (size_t)cnt), tables, b->sms, b->st)) != cudaSuccess ||
	    (e = cudaEventRecord(s.ev, b->st)) != cudaSuccess)
		return e;
	s.used = true;
	return cudaSuccess;
}

} // namespace

int bfly16_run(Bfly16 *b, int kind, int n, size_t len, uint8_t *const *x, uint8_t *const *y,
	       const uint16_t *c)
{
	const int k = kind & ~GFEC_BFLY_FLAGS;
	int unit = kind & GFEC_BFLY_GROUP4 ? 4 : kind & GFEC_BFLY_DISJOINT ? 1 : 0;
	cudaError_t e = cudaSuccess;

	if (n < 0 || (k != GFEC_BFLY_FWD && k != GFEC_BFLY_INV && k != GFEC_BFLY_MUL) ||
	    (n && (!x || !y || !c)) || (unit == 4 && n % 4))
		return GFEC_E_INVAL;
	len &= ~(size_t)1;
	if (n == 0 || len == 0)
		return 0;
	if (b->fault)
		return GFEC_E_DEVICE;
	if (unit == 4 && !b16_groups_ok(x, y, (size_t)n))
		unit = 0; // a group of another shape: the list in order, which any list allows
	// sums: runs of at most kB16SumsMax ops, else in order; a launch takes whole runs
	const bool sums = kind & GFEC_BFLY_SUMS && k == GFEC_BFLY_FWD && unit == 0 &&
			  b16_sums_ok(y, c, (size_t)n);
	std::lock_guard<std::mutex> g(b->lock);

	if ((e = cudaSetDevice(b->dev)) == cudaSuccess)
		e = make_ready(b);
	for (int p0 = 0, cnt; p0 < n && e == cudaSuccess; p0 += cnt) {
		size_t runs;

		cnt = sums ? (int)b16_sums_take(y + p0, (size_t)(n - p0), kB16MaxOps, nullptr, &runs)
			   : n - p0 < kB16MaxOps ? n - p0
						 : kB16MaxOps;
		e = queue(b, k, unit, sums, len, x + p0, y + p0, c + p0, cnt);
	}
	if (e == cudaSuccess)
		return 0;
	cudaGetLastError();
	return GFEC_E_DEVICE;
}

void *bfly16_alloc(Bfly16 *b, size_t bytes)
{
	std::lock_guard<std::mutex> g(b->lock);
	void *p = nullptr;

	if (b->fault || cudaSetDevice(b->dev) != cudaSuccess || make_ready(b) != cudaSuccess ||
	    cudaMallocFromPoolAsync(&p, bytes, b->pool, b->st) != cudaSuccess) {
		cudaGetLastError();
		return nullptr;
	}
	return p;
}

void bfly16_free(Bfly16 *b, void *p)
{
	std::lock_guard<std::mutex> g(b->lock);

	if (p && b->ready && cudaFreeAsync(p, b->st) != cudaSuccess)
		cudaGetLastError();
}

int bfly16_sync(Bfly16 *b)
{
	cudaStream_t st;

	{
		std::lock_guard<std::mutex> g(b->lock);

		if (!b->ready)
			return 0;
		st = b->st;
	}
	if (cudaStreamSynchronize(st) == cudaSuccess)
		return 0;
	cudaGetLastError();
	return GFEC_E_DEVICE;
}

size_t bfly16_work(Bfly16 *b)
{
	std::lock_guard<std::mutex> g(b->lock);
	cudaDeviceProp prop;

	if (b->work)
		return b->work;
	if (cudaGetDeviceProperties(&prop, b->dev) != cudaSuccess) {
		cudaGetLastError();
		return 0;
	}
	b->work = prop.totalGlobalMem / 8;
	return b->work;
}

void bfly16_release(Bfly16 *b)
{
	std::lock_guard<std::mutex> g(b->lock);

	release_objects(b);
}

} // namespace gfec
