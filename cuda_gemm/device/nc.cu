// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file nc.cu
 * Network coding on the GPU (gfec_gpu_nc.h): the host side of the batched decode (the seeded
 * encode is nc_encode.cu's). Both end in the bmma kernel's k-steps (gemm_bmma.cuh):
 *
 *   encode   nc_encode.cu (gfec_gpu_nc_encode): the fragments of every tile of coded rows drawn
 *            on the device, then one launch over every tile and segment (nc_encode.cuh).
 *   decode   nc_gj_invert inverts every segment's matrix (one block each; past the shared
 *            memory's n, [M | I] in global memory) and writes, per row tile, the bmma table of
 *            its inverse; the host reads the singular flags back; then one bmma launch per row
 *            tile runs every decodable segment, grid row y = segment, each with its own table
 *            (GemmArgs.stripe_tables). gfec_gpu_nc_decode_blocks first reads the blocks' headers
 *            on the device (nc_parse_blocks: checks, coefficient rows, payload addresses), so
 *            nothing but the pointer arrays and one status word per segment crosses the bus.
 *
 * R is the most rows whose fragments fit in shared memory beside the two stage buffers, at most
 * kMaxTileRows. Scratch memory comes from the stream-ordered pool (cudaMallocAsync).
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <mutex>
#include <stdint.h>
#include <vector>

#include "gfec_gpu_nc.h"
#include "kernels.h"
#include "nc.h"
#include "stream_scratch.h"
#include "../kernel/nc_gpu.cuh"

namespace gfec {
namespace {

// 64 rows of n = 128 take 64 KiB of fragments + 18 KiB of stages: two blocks per SM, the
// configuration bmma_w8_n4_p2 was measured at for RS(255,223) (0.48x the BMMA rate).
constexpr int kMaxTileRows = 64;
constexpr int kInvertThreads = 512;
constexpr unsigned kMaxGridY = 65535;
// Preferred first: the widest tile of positions, then the one with the smallest stage buffers.
const char *const kKernels[] = { "bmma_w8_n4_p2", "bmma_w4_n4_p1" };

// The bmma kernel and tile rows for n columns: the first kernel with room for 8 rows or more.
const KernelInfo *pick_tile(const cudaDeviceProp &prop, int n, int *rows)
{
	for (const char *name : kKernels) {
		const KernelInfo *k = kernel_find(name);
		const size_t stage = 2 * bmma_stage_bytes(n, k->tile);
		const size_t frag = (size_t)bmma_nks(n) * kBmmaFragBytes;

		if (stage + frag > prop.sharedMemPerBlockOptin)
			continue;
		const size_t nsub = (prop.sharedMemPerBlockOptin - stage) / frag;

		*rows = nsub * 8 < (size_t)kMaxTileRows ? (int)nsub * 8 : kMaxTileRows;
		return k;
	}
	return nullptr;
}

int aligned(const void *const *p, size_t n, unsigned to = 16)
{
	for (size_t i = 0; i < n; i++)
		if ((uintptr_t)p[i] % to)
			return 0;
	return 1;
}

GemmArgs gemm_args(int rows, int cols, size_t len, int vec)
{
	GemmArgs a{};

	a.rows = rows;
	a.cols = cols;
	a.lda = cols;
	a.len = len;
	a.units = (len + 15) / 16;
	a.vec = vec;
	a.nstripes = 1;
	return a;
}

// Blocks of k per multiprocessor at smem bytes. The kernel's shared-memory limit is raised to the
// device's maximum, never set to smem: plans prepared earlier for larger tiles keep working.
cudaError_t occupancy(const KernelInfo *k, const cudaDeviceProp &prop, size_t smem, int *per_sm)
{
	cudaError_t e = cudaFuncSetAttribute(k->fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
					     (int)prop.sharedMemPerBlockOptin);

	if (e == cudaSuccess)
		e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, k->fn, k->threads, smem);
	if (e == cudaSuccess && *per_sm < 1)
		*per_sm = 1;
	return e;
}

// Pointer arrays go to the device through one copy; the host vector may go right after.
template <class T> cudaError_t to_device(StreamScratch &sc, const std::vector<T> &v, T **d)
{
	cudaError_t e = sc.alloc(d, v.size() * sizeof(T));

	if (e != cudaSuccess)
		return e;
	return cudaMemcpyAsync(*d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice, sc.st);
}

} // namespace
} // namespace gfec

using namespace gfec;

namespace gfec {

NcDecodeTimes *nc_decode_times;

namespace {

// Events at the decode's stage boundaries, when nc_decode_times asks for them: 0 start, 1 after
// the header parse, 2 after the inversion and its status read-back, 3 after the GEMM.
struct StageClock {
	cudaEvent_t e[4] = {};
	bool on = false;

	StageClock()
	{
		on = nc_decode_times != nullptr;
		for (int i = 0; on && i < 4; i++)
			on = cudaEventCreate(&e[i]) == cudaSuccess;
	}
	~StageClock()
	{
		for (cudaEvent_t x : e)
			if (x)
				cudaEventDestroy(x);
	}
	void mark(int i, cudaStream_t st)
	{
		if (on)
			cudaEventRecord(e[i], st);
	}
	// After the stream's last synchronisation.
	void report()
	{
		float ms[3] = {};

		for (int i = 0; on && i < 3; i++)
			on = cudaEventElapsedTime(&ms[i], e[i], e[i + 1]) == cudaSuccess;
		if (on)
			*nc_decode_times = NcDecodeTimes{ ms[0], ms[1], ms[2] };
	}
};

// Widest n the decoder takes (gfec_nc.h's GFEC_NC_RLC_MAX_N); past the shared-memory inversion's
// n it inverts in global memory, at most kGjScratch bytes of it per call.
constexpr int kMaxDecodeN = 4096;
constexpr size_t kGjScratch = (size_t)1 << 30;

bool gj_global(const cudaDeviceProp &prop, int n)
{
	return nc_gj_smem(n, false) + kNcGjStaticSmem > prop.sharedMemPerBlockOptin;
}

// Whether the decoder takes n on this device.
bool decodable(const cudaDeviceProp &prop, int n)
{
	int rows;

	return n >= 1 && n <= kMaxDecodeN && pick_tile(prop, n, &rows) &&
	       nc_gj_smem(n, gj_global(prop, n)) + kNcGjStaticSmem <= prop.sharedMemPerBlockOptin;
}

// The inversion and the GEMMs of a batch decode whose nseg matrices are at d_mats (device) and
// whose d_status (nseg + 1 ints, device) says which to decode (kNcDecodes) and holds, at nseg, 1 when
// a payload is not 16-byte aligned. Payloads: in[s * n + r] (host array) or, in == nullptr,
// d_pay[s * n + r] (device array). status[s] (host) gets 0, GFEC_E_TOOFEW or GFEC_E_FORMAT.
int decode_core(const CtxView &v, StreamScratch &sc, StageClock &clk, uint32_t n, size_t B,
		int nseg, const uint8_t *d_mats, int *d_status, const uint8_t *const *in,
		const uint8_t *const *d_pay, uint8_t *const *out, int *status)
{
	int R = kMaxTileRows;
	const KernelInfo *k = pick_tile(*v.prop, (int)n, &R);
	// Up to n = 128 the GEMM is nc_gemm_ra, which takes the inverses as register fragments.
	const bool ra = nc_gemm_ra_fits(*v.prop, (int)n);
	const bool global = gj_global(*v.prop, (int)n);
	// The pivot row's 32 products where they fit beside [M | I] (two table reads per word of
	// the elimination instead of one per bit of the factor), else its 8 multiples.
	const bool products = !global && nc_gj_smem((int)n, false, true) + kNcGjStaticSmem <=
						 v.prop->sharedMemPerBlockOptin;
	const size_t gsmem = nc_gj_smem((int)n, global, products);

	if (ra)
		R = kNcTileRows;
	const int ntiles = (int)((n + R - 1) / R);
	const size_t tile_words = ra ? nc_tile_frags(R, (int)n) * 4 : bmma_table_words(R, (int)n);
	const size_t seg_words = tile_words * ntiles;
	const size_t S = (size_t)nc_gj_stride((int)n);
	std::vector<int> sing(nseg + 1);
	uint32_t *d_tables = nullptr;
	uint8_t *d_scratch = nullptr;
	unsigned grid = (unsigned)nseg;
	cudaStream_t st = v.stream;
	auto inv = global ? nc_gj_invert<true, false>
			  : products ? nc_gj_invert<false, true> : nc_gj_invert<false, false>;

	if (global) {
		const size_t fit = std::max<size_t>(1, kGjScratch / (n * S));

		grid = (unsigned)std::min<size_t>({ (size_t)nseg, fit,
						    (size_t)v.prop->multiProcessorCount * 2 });
		if (sc.alloc(&d_scratch, grid * n * S) != cudaSuccess)
			return stream_fail(st);
	}
	if (sc.alloc(&d_tables, seg_words * 4 * nseg) != cudaSuccess ||
	    cudaFuncSetAttribute(inv, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)gsmem) !=
		    cudaSuccess)
		return stream_fail(st);
	inv<<<grid, kInvertThreads, gsmem, st>>>(d_mats, (int)n, nseg, v.logexp, d_tables, seg_words,
						 R, ra, d_status, d_scratch);
	if (cudaGetLastError() != cudaSuccess ||
	    cudaMemcpyAsync(sing.data(), d_status, sizeof(int) * (nseg + 1),
			    cudaMemcpyDeviceToHost, st) != cudaSuccess)
		return stream_fail(st);
	clk.mark(2, st);
	if (cudaStreamSynchronize(st) != cudaSuccess)
		return stream_fail(st);

	std::vector<size_t> good;

	for (int s = 0; s < nseg; s++) {
		status[s] = sing[s] == kNcDecodes ? 0 : sing[s] == kNcSingular ? GFEC_E_TOOFEW : GFEC_E_FORMAT;
		if (sing[s] == kNcDecodes)
			good.push_back(s);
	}
	// Per tile t: its tables (not for nc_gemm_ra) and its output rows (nc_gemm_ra: segment
	// y's rows at y * n); then the good segments' indices; then, from host pointers, per
	// decodable segment y its n inputs.
	const size_t ng = good.size(), nsrc = in ? ng * n : 0, ntabs = ra ? 0 : (size_t)ntiles * ng;
	const int aligned_out = B % 16 == 0;
	std::vector<const void *> ptrs(ntabs + ng * n + ng + nsrc);
	const void **tabs = ptrs.data(), **dsts = tabs + ntabs;
	const void **gd = dsts + ng * n, **srcs = gd + ng;

	for (int t = 0; t < ntiles; t++) {
		const size_t r0 = (size_t)t * R, rows = n - r0 < (size_t)R ? n - r0 : R;

		for (size_t y = 0; y < ng; y++) {
			if (!ra)
				tabs[t * ng + y] = d_tables + good[y] * seg_words + t * tile_words;
			for (size_t i = 0; i < rows; i++)
				dsts[ra ? y * n + r0 + i : ng * r0 + y * rows + i] =
					out[good[y] * n + r0 + i];
		}
	}
	for (size_t y = 0; y < ng; y++) {
		gd[y] = (const void *)good[y];
		for (size_t j = 0; in && j < n; j++)
			srcs[y * n + j] = in[good[y] * n + j];
	}
	const int vec_out = aligned_out && aligned(dsts, ng * n);
	const int vec_in = in ? aligned(srcs, nsrc) : !sing[nseg];
	// Inputs that are not 16-byte aligned would send the GEMM's loads down their slow path:
	// 4-byte aligned ones (a seed-carrying block's payload starts 28 bytes in) are loaded in
	// 4-byte pieces there, others copied to aligned scratch first, when there is room for it
	// (the copy costs a fraction of the GEMM's time: it is compute-bound).
	const int words_in = in ? aligned(srcs, nsrc, 4) : !(sing[nseg] & 2);
	uint8_t *d_stage = nullptr;

	if (ng && vec_out && !vec_in && !words_in &&
	    sc.alloc(&d_stage, ng * n * B) != cudaSuccess) {
		cudaGetLastError();
		d_stage = nullptr;
	}
	const int vec = vec_out && (vec_in || d_stage);
	const void **d_ptrs = nullptr, **d_src = nullptr;
	int per_sm;

	if (ng && to_device(sc, ptrs, &d_ptrs) != cudaSuccess)
		return stream_fail(st);
	if (ng && in) {
		d_src = d_ptrs + ntabs + ng * n + ng;
	} else if (ng && ng == (size_t)nseg) {
		d_src = (const void **)d_pay;
	} else if (ng) {
		if (sc.alloc(&d_src, sizeof(void *) * ng * n) != cudaSuccess)
			return stream_fail(st);
		nc_gather_payloads<<<(unsigned)std::min<size_t>((ng * n + 255) / 256, 65535), 256, 0,
				     st>>>(d_pay, (const size_t *)(d_ptrs + ntabs + ng * n), (int)n,
					   ng, (const uint8_t **)d_src);
		if (cudaGetLastError() != cudaSuccess)
			return stream_fail(st);
	}
	if (d_stage) {
		const void **d_staged = nullptr;

		if (sc.alloc(&d_staged, sizeof(void *) * ng * n) != cudaSuccess)
			return stream_fail(st);
		nc_stage_payloads<<<(unsigned)std::min<size_t>(ng * n, 65535), 128, 0, st>>>(
			(const uint8_t *const *)d_src, B, ng * n, d_stage, (const uint8_t **)d_staged);
		if (cudaGetLastError() != cudaSuccess)
			return stream_fail(st);
		d_src = d_staged;
	}
	if (ng && ra) { // one launch: every good segment's tiles, segment after segment
		NcGemmArgs a{};

		a.g = gemm_args((int)n, (int)n, B, vec);
		a.g.src = (const uint8_t *const *)d_src;
		a.g.dst = (uint8_t *const *)(d_ptrs + ntabs);
		a.g.nstripes = (int)ng;
		a.frags = reinterpret_cast<const uint4 *>(d_tables);
		a.seg_frags = seg_words / 4;
		a.seg_map = (const size_t *)(d_ptrs + ntabs + ng * n);
		a.tile_frags = tile_words / 4;
		a.ntiles = (uint32_t)ntiles;
		a.R = R;
		a.seg_major = 1;
		if (nc_gemm_ra_launch(*v.prop, a, st) != cudaSuccess)
			return stream_fail(st);
	}
	for (int t = 0; ng && !ra && t < ntiles; t++) {
		const size_t r0 = (size_t)t * R;
		const int rows = n - r0 < (size_t)R ? (int)(n - r0) : R;
		const size_t smem = kernel_smem(k, { rows, (int)n, 0 });
		const size_t pblocks = (B + k->tile - 1) / k->tile;

		if (occupancy(k, *v.prop, smem, &per_sm) != cudaSuccess)
			return stream_fail(st);
		for (size_t y0 = 0; y0 < ng; y0 += kMaxGridY) {
			const size_t gy = ng - y0 < kMaxGridY ? ng - y0 : kMaxGridY;
			// Blocks per segment: enough for four waves in all, each taking whole items.
			const size_t want = ((size_t)per_sm * v.prop->multiProcessorCount * 4 + gy - 1) / gy;
			const size_t gx = want < pblocks ? want : pblocks;
			GemmArgs a = gemm_args(rows, (int)n, B, vec);
			void *params[] = { (void *)&a };

			a.src = (const uint8_t *const *)(d_src + y0 * n);
			a.dst = (uint8_t *const *)(d_ptrs + (size_t)ntiles * ng + ng * r0 + y0 * rows);
			a.stripe_tables = (const uint32_t *const *)(d_ptrs + t * ng + y0);
			if (cudaLaunchKernel(k->fn, dim3((unsigned)gx, (unsigned)gy), dim3(k->threads),
					     params, smem, st) != cudaSuccess)
				return stream_fail(st);
		}
	}
	clk.mark(3, st);
	if (cudaStreamSynchronize(st) != cudaSuccess)
		return stream_fail(st);
	clk.report();
	return ng == (size_t)nseg ? 0 : GFEC_E_TOOFEW;
}

// What both batch decodes check first, under the lock: 0 to go on, else the call's result.
int decode_start(const CtxView &v, uint32_t n, const void *in0, const void *out0)
{
	if (v.fault)
		return GFEC_E_DEVICE;
	if (!decodable(*v.prop, (int)n) || !ctx_is_device(in0) || !ctx_is_device(out0))
		return GFEC_E_NOTSUP;
	if (cudaSetDevice(v.dev) != cudaSuccess)
		return stream_fail(v.stream);
	return 0;
}

} // namespace
} // namespace gfec

extern "C" int gfec_gpu_nc_max_decode_n(void *ctx)
{
	const CtxView v = ctx_view(ctx);
	int n = 0;

	while (decodable(*v.prop, n + 1))
		n++;
	return n;
}

extern "C" int gfec_gpu_nc_decode_batch(void *ctx, uint32_t n, size_t B, int nseg,
					const uint8_t *coefs, const uint8_t *const *in,
					uint8_t *const *out, int *status)
{
	if (!ctx || !coefs || !in || !out || !status || n < 1 || B < 1 || nseg < 1)
		return GFEC_E_INVAL;
	const CtxView v = ctx_view(ctx);
	std::lock_guard<std::mutex> g(*v.lock);
	const int e = decode_start(v, n, in[0], out[0]);

	if (e)
		return e;
	const size_t mbytes = (size_t)n * n;
	uint8_t *d_mats = nullptr;
	int *d_status = nullptr;
	cudaStream_t st = v.stream;
	StreamScratch sc{ st, {} };
	StageClock clk;
	const uint8_t *mats = coefs; // device memory is read in place, host memory uploaded

	clk.mark(0, st);
	if (!ctx_is_device(coefs)) {
		if (sc.alloc(&d_mats, mbytes * nseg) != cudaSuccess ||
		    cudaMemcpyAsync(d_mats, coefs, mbytes * nseg, cudaMemcpyHostToDevice, st) !=
			    cudaSuccess)
			return stream_fail(st);
		mats = d_mats;
	}
	if (sc.alloc(&d_status, sizeof(int) * (nseg + 1)) != cudaSuccess ||
	    cudaMemsetAsync(d_status, 0, sizeof(int) * (nseg + 1), st) != cudaSuccess)
		return stream_fail(st);
	clk.mark(1, st);
	return decode_core(v, sc, clk, n, B, nseg, mats, d_status, in, nullptr, out, status);
}

extern "C" int gfec_gpu_nc_decode_blocks(void *ctx, uint32_t n, size_t B, int zero_ok, int nseg,
					 const uint64_t *ids, const uint8_t *const *blocks,
					 const size_t *lens, uint8_t *const *out, int *status)
{
	if (!ctx || !ids || !blocks || !lens || !out || !status || n < 1 || B < 1 ||
	    B > UINT32_MAX || nseg < 1)
		return GFEC_E_INVAL;
	const CtxView v = ctx_view(ctx);
	std::lock_guard<std::mutex> g(*v.lock);
	const int e = decode_start(v, n, blocks[0], out[0]);

	if (e)
		return e;
	// One upload: the block pointers, their lengths, the segment ids.
	const size_t nb = (size_t)nseg * n;
	std::vector<uint64_t> arr(2 * nb + nseg);
	uint64_t *d_arr = nullptr;
	uint8_t *d_mats = nullptr;
	const uint8_t **d_pay = nullptr;
	int *d_status = nullptr;
	cudaStream_t st = v.stream;
	StreamScratch sc{ st, {} };
	StageClock clk;

	for (size_t i = 0; i < nb; i++) {
		arr[i] = (uint64_t)(uintptr_t)blocks[i];
		arr[nb + i] = lens[i];
	}
	for (int s = 0; s < nseg; s++)
		arr[2 * nb + s] = ids[s];
	static_assert(sizeof(uintptr_t) == sizeof(uint64_t), "pointers travel as 64-bit words");
	clk.mark(0, st);
	if (to_device(sc, arr, &d_arr) != cudaSuccess ||
	    sc.alloc(&d_mats, (size_t)n * n * nseg) != cudaSuccess ||
	    sc.alloc(&d_pay, sizeof(*d_pay) * nb) != cudaSuccess ||
	    sc.alloc(&d_status, sizeof(int) * (nseg + 1)) != cudaSuccess ||
	    cudaMemsetAsync(d_status + nseg, 0, sizeof(int), st) != cudaSuccess ||
	    cudaFuncSetAttribute(nc_parse_blocks, cudaFuncAttributeMaxDynamicSharedMemorySize,
				 (int)(sizeof(gfec_nc_hdr_row) * n)) != cudaSuccess)
		return stream_fail(st);
	nc_parse_blocks<<<(unsigned)std::min(nseg, 65535), 256, sizeof(gfec_nc_hdr_row) * n, st>>>(
		(const uint8_t *const *)d_arr, (const size_t *)(d_arr + nb),
		(const uint64_t *)(d_arr + 2 * nb), (int)n, (uint32_t)B, zero_ok, nseg, d_mats, d_pay,
		d_status, d_status + nseg);
	if (cudaGetLastError() != cudaSuccess)
		return stream_fail(st);
	clk.mark(1, st);
	return decode_core(v, sc, clk, n, B, nseg, d_mats, d_status, nullptr, d_pay, out, status);
}

extern "C" int gfec_gpu_nc_alloc(void *ctx, size_t bytes, void **p)
{
	if (!ctx || !p)
		return GFEC_E_INVAL;
	const CtxView v = ctx_view(ctx);
	std::lock_guard<std::mutex> g(*v.lock);

	*p = nullptr;
	if (v.fault || cudaSetDevice(v.dev) != cudaSuccess)
		return stream_fail(v.stream);
	// The stream-ordered pool: an encode or decode allocates per call, and every use of the
	// memory (these functions, the GEMMs) is on this same stream.
	const cudaError_t e = cudaMallocAsync(p, bytes ? bytes : 1, v.stream);

	if (e == cudaErrorMemoryAllocation) {
		cudaGetLastError();
		*p = nullptr;
		return GFEC_E_NOMEM;
	}
	if (e != cudaSuccess) {
		*p = nullptr;
		return stream_fail(v.stream);
	}
	return 0;
}

extern "C" void gfec_gpu_nc_free(void *ctx, void *p)
{
	if (!ctx || !p)
		return;
	const CtxView v = ctx_view(ctx);
	std::lock_guard<std::mutex> g(*v.lock);

	if (cudaSetDevice(v.dev) == cudaSuccess)
		cudaFreeAsync(p, v.stream);
	cudaGetLastError();
}

extern "C" int gfec_gpu_nc_memcpy(void *ctx, void *dst, const void *src, size_t bytes)
{
	if (!ctx || (bytes && (!dst || !src)))
		return GFEC_E_INVAL;
	const CtxView v = ctx_view(ctx);
	std::lock_guard<std::mutex> g(*v.lock);

	if (v.fault)
		return GFEC_E_DEVICE;
	if (!bytes)
		return 0;
	if (cudaSetDevice(v.dev) != cudaSuccess ||
	    cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, v.stream) != cudaSuccess ||
	    cudaStreamSynchronize(v.stream) != cudaSuccess)
		return stream_fail(v.stream);
	return 0;
}

extern "C" int gfec_gpu_nc_memcpy2d(void *ctx, void *dst, size_t dpitch, const void *src,
				    size_t spitch, size_t width, size_t height)
{
	if (!ctx || dpitch < width || spitch < width || (width && height && (!dst || !src)))
		return GFEC_E_INVAL;
	const CtxView v = ctx_view(ctx);
	std::lock_guard<std::mutex> g(*v.lock);

	if (v.fault)
		return GFEC_E_DEVICE;
	if (!width || !height)
		return 0;
	if (cudaSetDevice(v.dev) != cudaSuccess ||
	    cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, cudaMemcpyDefault,
			      v.stream) != cudaSuccess ||
	    cudaStreamSynchronize(v.stream) != cudaSuccess)
		return stream_fail(v.stream);
	return 0;
}

extern "C" int gfec_gpu_nc_seed_headers(void *ctx, const uint8_t *tmpl, size_t hlen,
					size_t seed_off, int nseg, uint32_t seed0, uint32_t count,
					uint8_t *out, size_t stride, size_t seg_stride)
{
	if (!ctx || !tmpl || !out || nseg < 1 || count < 1 || hlen < 4 || seed_off > hlen - 4 ||
	    stride < hlen)
		return GFEC_E_INVAL;
	const CtxView v = ctx_view(ctx);
	std::lock_guard<std::mutex> g(*v.lock);

	if (v.fault)
		return GFEC_E_DEVICE;
	if (!ctx_is_device(out))
		return GFEC_E_NOTSUP;
	if (cudaSetDevice(v.dev) != cudaSuccess)
		return stream_fail(v.stream);
	const std::vector<uint8_t> t(tmpl, tmpl + (size_t)nseg * hlen);
	const size_t nblk = (size_t)nseg * count;
	const int words = (uintptr_t)out % 4 == 0 && stride % 4 == 0 && seg_stride % 4 == 0 &&
			  hlen % 4 == 0 && seed_off % 4 == 0;
	cudaStream_t st = v.stream;
	StreamScratch sc{ st, {} };
	uint8_t *d_t = nullptr;

	if (to_device(sc, t, &d_t) != cudaSuccess)
		return stream_fail(st);
	nc_seed_headers<<<(unsigned)std::min<size_t>((nblk + 255) / 256,
						     (size_t)v.prop->multiProcessorCount * 8),
			  256, 0, st>>>(d_t, hlen, seed_off, seed0, count, nblk, out, stride,
					seg_stride, words);
	if (cudaGetLastError() != cudaSuccess || cudaStreamSynchronize(st) != cudaSuccess)
		return stream_fail(st);
	return 0;
}

extern "C" int gfec_gpu_nc_copy_pieces(void *ctx, size_t count, const uint8_t *const *src,
				       const size_t *len, uint8_t *const *dst)
{
	if (!ctx || (count && (!src || !len || !dst)))
		return GFEC_E_INVAL;
	const CtxView v = ctx_view(ctx);
	std::lock_guard<std::mutex> g(*v.lock);

	if (v.fault)
		return GFEC_E_DEVICE;
	if (!count)
		return 0;
	if (!ctx_is_device(src[0]) || !ctx_is_device(dst[0]))
		return GFEC_E_NOTSUP;
	if (cudaSetDevice(v.dev) != cudaSuccess)
		return stream_fail(v.stream);

	// One upload: the source pointers, the destination pointers, the lengths.
	std::vector<uintptr_t> arr(3 * count);
	uintptr_t *d_arr = nullptr;
	cudaStream_t st = v.stream;
	StreamScratch sc{ st, {} };

	for (size_t i = 0; i < count; i++) {
		arr[i] = (uintptr_t)src[i];
		arr[count + i] = (uintptr_t)dst[i];
		arr[2 * count + i] = (uintptr_t)len[i];
	}
	static_assert(sizeof(uintptr_t) == sizeof(size_t), "lengths travel as pointer-sized words");
	if (to_device(sc, arr, &d_arr) != cudaSuccess)
		return stream_fail(st);
	nc_copy_pieces<<<(unsigned)std::min<size_t>(count, 65535), 256, 0, st>>>(
		(const uint8_t *const *)d_arr, (const size_t *)(d_arr + 2 * count),
		(uint8_t *const *)(d_arr + count), count);
	if (cudaGetLastError() != cudaSuccess || cudaStreamSynchronize(st) != cudaSuccess)
		return stream_fail(st);
	return 0;
}
