// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file nc_gpu_bench.cu
 * gfec-nc-gpu-bench: network coding on the GPU (gfec_gpu_nc.h), data in GPU memory, against
 * ceilings measured in the same process:
 *   - device-to-device copy (bytes read + written);
 *   - the XOR-stream bound of each row's shape: gemm_nibble.cuh's xor_stream over the same
 *     pointers (reads every input once per 16-byte unit, writes every output), in GB/s of output;
 *   - the BMMA bound: mma.sync m16n8k256 .b1 .and.popc issued back to back from registers on
 *     every SM, over the bit-operations the bmma kernel spends per output byte
 *     (2 x 8 bits x 256 x ceil(n / 32) for each output byte).
 * Rows: seeded encode (n in {128, 256, 512}, B from 128 B to 32 KiB, 1024 coded blocks per
 * segment, enough segments for >= 64 MiB of output; at n = 128 also each shape of the kernel,
 * "enc:<shape>", beside the default it picks) and batch decode (n = 128, B = 4 KiB, 30, 60,
 * 1024 and 4096 segments, the inversion included: the whole call, with the coefficients uploaded
 * from host memory ("decode"), already in GPU memory ("decode_dc"), or read from the blocks'
 * headers on the GPU ("decode_blk": seed-carrying blocks laid out as gfec_nc_encode writes them,
 * gfec_gpu_nc_decode_blocks); and decode_blk at n = 256, 512, 1024 with 64 segments (16 with
 * --quick). Each decode row is followed by its stages, timed by events on the decode's stream
 * (nc.h's nc_decode_times): header parse, inversion, GEMM. --sizes: instead, the encode at n =
 * 128, B = 4 KiB in calls of 1..128 segments of 1024 blocks, with each shape, and the decodes of
 * 1024 and 4096 segments; --race: one small encode per shape, for compute-sanitizer; --papers:
 * the rows the seed papers measured (seed-systems.md A) and one table of their figures, cited,
 * beside this run's (papers() says which rows). Every row's
 * output is checked (encode: sampled blocks against the CPU; decode: the whole result against the
 * source, the output poisoned first).
 * Exit: 0, 1 a check failed, 2 usage or an unwritable --json, 3 no GPU or a CUDA error.
 */
#include <cuda_runtime.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <algorithm>
#include <vector>

#include "device/nc.h"
#include "device/nc_encode.h"
#include "gf8.h"
#include "gfec/gfec_nc.h"
#include "gfec_gpu.h"
#include "gfec_gpu_nc.h"
#include "kernel/gemm_nibble.cuh"
#include "nc_prng.h"
#include "perf_util.h"

using namespace gfec;

#define CK(call)                                                                                   \
	do {                                                                                       \
		cudaError_t e_ = (call);                                                           \
		if (e_ != cudaSuccess) {                                                           \
			fprintf(stderr, "gfec-nc-gpu-bench: %s: %s\n", #call,                      \
				cudaGetErrorString(e_));                                           \
			exit(3);                                                                   \
		}                                                                                  \
	} while (0)

static json_t *g_rows;
static int g_iters = 5;
static int g_fails;

template <class F> static double best_ms(F f)
{
	std::vector<double> t;

	f(); // warm-up
	CK(cudaDeviceSynchronize());
	for (int i = 0; i < g_iters; i++) {
		const double t0 = perf_now();

		f();
		CK(cudaDeviceSynchronize());
		t.push_back((perf_now() - t0) * 1e3);
	}
	std::sort(t.begin(), t.end());
	return t[t.size() / 2]; // median
}

// Register-only BMMA loop: every warp issues `iters` x 8 independent mma.sync .b1.
__global__ void bmma_rate(int iters, int *sink)
{
	int32_t c[8][4] = {};
	uint32_t a0 = threadIdx.x, a1 = a0 * 3, a2 = a0 * 5, a3 = a0 * 7, b0 = a0 ^ 0x55, b1 = ~a0;

	for (int i = 0; i < iters; i++)
#pragma unroll
		for (int k = 0; k < 8; k++)
			asm volatile("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc "
				     "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
				     : "+r"(c[k][0]), "+r"(c[k][1]), "+r"(c[k][2]), "+r"(c[k][3])
				     : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
	int s = 0;
	for (int k = 0; k < 8; k++)
		s += c[k][0] + c[k][1] + c[k][2] + c[k][3];
	if (s == 0x7fffffff)
		*sink = s;
}

static double measure_bmma(int sms)
{
	int *sink;
	const int iters = 4096, blocks = sms * 8, threads = 256;

	CK(cudaMalloc(&sink, 4));
	const double ms = best_ms([&] { bmma_rate<<<blocks, threads>>>(iters, sink); });
	cudaFree(sink);
	const double mmas = (double)blocks * (threads / 32) * iters * 8;
	return mmas * 2.0 * 16 * 8 * 256 / (ms * 1e-3); // bit-ops per second
}

// XOR-stream over the same pointers: nstripes stripes, cols inputs, rows outputs.
static double xor_ms(const uint8_t *const *d_src, uint8_t *const *d_dst, int rows, int cols,
		     int nstripes, size_t len, int sms)
{
	GemmArgs a{};

	a.src = d_src, a.dst = d_dst, a.rows = rows, a.cols = cols, a.nstripes = nstripes;
	a.len = len, a.units = (len + 15) / 16, a.vec = 1, a.lda = cols;
	const size_t units = (size_t)nstripes * a.units;
	const int grid = (int)std::min<size_t>((units + 255) / 256, (size_t)sms * 8);

	return best_ms([&] { xor_stream<256><<<grid, 256>>>(a); });
}

template <class T> static T *to_dev(const std::vector<T> &v)
{
	T *d;

	CK(cudaMalloc((void **)&d, v.size() * sizeof(T)));
	CK(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
	return d;
}

static void row_json(const char *what, uint32_t n, size_t B, int nseg, uint32_t count, double ms,
		     double gbps, double xor_gbps, double bmma_gbps, double copy_gbps)
{
	printf("%-8s n=%-4u B=%-6zu segs=%-5d blocks=%-5u %9.3f ms %8.1f GB/s  %.2fx xor (%.0f)  "
	       "%.2fx bmma (%.0f)  %.2fx copy/2\n",
	       what, n, B, nseg, count, ms, gbps, gbps / xor_gbps, xor_gbps,
	       bmma_gbps > 0 ? gbps / bmma_gbps : 0.0, bmma_gbps, gbps / (copy_gbps / 2));
	if (g_rows)
		json_array_append_new(g_rows,
				      json_pack("{s:s,s:i,s:I,s:i,s:i,s:f,s:f,s:f,s:f,s:f}", "case", what,
						"n", (int)n, "B", (json_int_t)B, "segments", nseg,
						"blocks_per_segment", (int)count, "ms", ms, "GBps", gbps,
						"xor_stream_GBps", xor_gbps, "bmma_bound_GBps", bmma_gbps,
						"d2d_copy_GBps", copy_gbps));
}

// shape -1: gfec_gpu_nc_encode ("encode"); else that shape of gfec::nc_encode ("enc:<shape>").
// Returns the row's GB/s of coded output.
static double bench_encode(void *ctx, uint32_t n, size_t B, double bmma_ops, double copy,
			   int sms, size_t out_target, int shape = -1, int want_segs = 0)
{
	const uint32_t count = 1024;
	const int nseg = want_segs ? want_segs : (int)std::max<size_t>(1, out_target / (count * B));
	const size_t seg_bytes = (size_t)n * B;
	std::vector<uint8_t> h(seg_bytes * nseg);
	uint8_t *d_in, *d_out;

	perf_fill_random(h.data(), h.size(), n * 31 + B);
	CK(cudaMalloc(&d_in, h.size()));
	CK(cudaMalloc(&d_out, (size_t)nseg * count * B));
	CK(cudaMemcpy(d_in, h.data(), h.size(), cudaMemcpyHostToDevice));
	std::vector<const uint8_t *> segs(nseg), src((size_t)nseg * n);
	std::vector<uint8_t *> out((size_t)nseg * count);
	for (int s = 0; s < nseg; s++) {
		segs[s] = d_in + s * seg_bytes;
		for (uint32_t j = 0; j < n; j++)
			src[(size_t)s * n + j] = segs[s] + j * B;
	}
	for (size_t i = 0; i < out.size(); i++)
		out[i] = d_out + i * B;
	int ret = 0;
	const double ms = best_ms([&] {
		ret |= gfec::nc_encode(ctx, shape, n, B, 0, 1, count, nseg, segs.data(), out.data());
	});
	if (ret) {
		fprintf(stderr, "gfec-nc-gpu-bench: encode n=%u B=%zu: %d\n", n, B, ret);
		g_fails++;
	}
	// Check a few blocks against the CPU.
	std::vector<uint8_t> got(B), want(B), c(n);
	for (uint32_t r : { 0u, count / 3, count - 1 }) {
		const int s = nseg - 1;

		CK(cudaMemcpy(got.data(), out[(size_t)s * count + r], B, cudaMemcpyDeviceToHost));
		gfec_nc_prng_row(1 + r, n, 0, c.data());
		std::fill(want.begin(), want.end(), 0);
		for (uint32_t j = 0; j < n; j++)
			for (size_t b = 0; b < B; b++)
				want[b] ^= gfec_gf8_mul(c[j], h[s * seg_bytes + j * B + b]);
		if (got != want) {
			fprintf(stderr, "gfec-nc-gpu-bench: encode n=%u B=%zu block %u differs\n", n, B, r);
			g_fails++;
		}
	}
	const uint8_t *const *d_src = to_dev(src);
	uint8_t *const *d_dst = to_dev(out);
	const double xms = xor_ms(d_src, d_dst, (int)count, (int)n, nseg, B, sms);
	const double obytes = (double)nseg * count * B;
	const double per_byte = 2.0 * 8 * 256 * ((n + 31) / 32);

	char what[32] = "encode";

	if (shape >= 0)
		snprintf(what, sizeof(what), "enc:%s", gfec::nc_encode_shape_name(shape));
	row_json(what, n, B, nseg, count, ms, obytes / ms / 1e6, obytes / xms / 1e6,
		 bmma_ops / per_byte / 1e9, copy);
	cudaFree((void *)d_src);
	cudaFree((void *)d_dst);
	cudaFree(d_in);
	cudaFree(d_out);
	return obytes / ms / 1e6;
}

// Batch decode rows. mode 0: gfec_gpu_nc_decode_batch with the coefficients in host memory
// ("decode"); 1: in device memory ("decode_dc"); 2: gfec_gpu_nc_decode_blocks on seed-carrying
// blocks as gfec_nc_encode lays them out (header, then payload, back to back; "decode_blk").
// Returns the row's GB/s of decoded data (the segments found singular left out).
static double bench_decode(void *ctx, uint32_t n, size_t B, int nseg, int mode,
			   double bmma_ops, double copy, int sms)
{
	const size_t seg_bytes = (size_t)n * B, hdr = GFEC_NC_HEADER_FIXED + 4, blk = hdr + B;
	std::vector<uint8_t> h(seg_bytes * nseg), coefs((size_t)nseg * n * n), got(h.size());
	std::vector<uint8_t> hdrs(mode == 2 ? (size_t)nseg * n * hdr : 0);
	uint8_t *d_src, *d_coded, *d_out;

	perf_fill_random(h.data(), h.size(), nseg);
	CK(cudaMalloc(&d_src, h.size()));
	CK(cudaMalloc(&d_coded, mode == 2 ? (size_t)nseg * n * blk : h.size()));
	CK(cudaMalloc(&d_out, h.size()));
	CK(cudaMemcpy(d_src, h.data(), h.size(), cudaMemcpyHostToDevice));
	std::vector<const uint8_t *> in((size_t)nseg * n);
	std::vector<uint8_t *> out((size_t)nseg * n), co(n);
	std::vector<size_t> lens((size_t)nseg * n, blk);
	std::vector<uint64_t> ids(nseg);
	for (int s = 0; s < nseg; s++) {
		const uint32_t seed0 = 5000u * (uint32_t)s;
		const uint8_t *seg = d_src + s * seg_bytes;

		ids[s] = 77 + (uint64_t)s;
		for (uint32_t r = 0; r < n; r++) {
			const size_t i = (size_t)s * n + r;
			struct gfec_nc_block b;

			memset(&b, 0, sizeof(b));
			b.family = GFEC_NC_RLC;
			b.kind = GFEC_NC_KIND_SEED;
			b.n = n;
			b.block_size = (uint32_t)B;
			b.segment = ids[s];
			b.seed = seed0 + r;

			co[r] = mode == 2 ? d_coded + i * blk + hdr : d_coded + s * seg_bytes + r * B;
			in[i] = mode == 2 ? co[r] - hdr : co[r];
			out[i] = d_out + s * seg_bytes + r * B;
			gfec_nc_prng_row(seed0 + r, n, 0, &coefs[i * n]);
			if (mode == 2 && gfec_nc_block_pack(&b, &hdrs[i * hdr], hdr) != (int)hdr) {
				fprintf(stderr, "gfec-nc-gpu-bench: header setup failed\n");
				exit(3);
			}
		}
		if (gfec_gpu_nc_encode(ctx, n, B, 0, seed0, n, 1, &seg, co.data())) {
			fprintf(stderr, "gfec-nc-gpu-bench: decode setup failed\n");
			exit(3);
		}
	}
	if (mode == 2)
		CK(cudaMemcpy2D(d_coded, blk, hdrs.data(), hdr, hdr, (size_t)nseg * n,
				cudaMemcpyHostToDevice));
	std::vector<int> status(nseg);
	int ret = 0;
	uint8_t *d_coefs = mode == 1 ? to_dev(coefs) : nullptr;
	std::vector<double> tp, ti, tg; // the stages of each call (nc.h's NcDecodeTimes)
	gfec::NcDecodeTimes times{ -1, -1, -1 };

	CK(cudaMemset(d_out, 0xA5, h.size())); // poisoned: every decoded byte must be written
	gfec::nc_decode_times = &times;
	const double ms = best_ms([&] {
		if (mode == 2)
			ret |= gfec_gpu_nc_decode_blocks(ctx, n, B, 0, nseg, ids.data(), in.data(),
							 lens.data(), out.data(), status.data());
		else
			ret |= gfec_gpu_nc_decode_batch(ctx, n, B, nseg,
							mode ? d_coefs : coefs.data(), in.data(),
							out.data(), status.data());
		tp.push_back(times.parse), ti.push_back(times.invert), tg.push_back(times.gemm);
	});
	gfec::nc_decode_times = nullptr;
	cudaFree(d_coefs);
	CK(cudaMemcpy(got.data(), d_out, got.size(), cudaMemcpyDeviceToHost));
	// A random matrix is singular with probability about 1/255: those segments are reported
	// (GFEC_E_TOOFEW) and left out; every other one must be the source, byte for byte.
	int nsing = 0, bad = ret != 0 && ret != GFEC_E_TOOFEW;
	for (int s = 0; s < nseg; s++) {
		nsing += status[s] != 0;
		bad |= status[s] != 0 && status[s] != GFEC_E_TOOFEW;
		bad |= !status[s] && memcmp(&got[s * seg_bytes], &h[s * seg_bytes], seg_bytes);
	}
	if (bad || nsing > nseg / 20 + 2) {
		fprintf(stderr, "gfec-nc-gpu-bench: decode n=%u segs=%d: %d, %d singular, or wrong bytes\n",
			n, nseg, ret, nsing);
		g_fails++;
	}
	if (mode == 2) // the XOR stream's 16-byte loads: the same shape over aligned buffers
		for (size_t i = 0; i < in.size(); i++)
			in[i] = d_src + i * B;
	const uint8_t *const *d_in = to_dev(in);
	uint8_t *const *d_dst = to_dev(out);
	const double xms = xor_ms(d_in, d_dst, (int)n, (int)n, nseg, B, sms);
	const double bytes = (double)(nseg - nsing) * seg_bytes; // decoded data only

	auto median = [](std::vector<double> &v) {
		std::sort(v.begin(), v.end());
		return v[v.size() / 2];
	};

	row_json(mode == 2 ? "decode_blk" : mode ? "decode_dc" : "decode", n, B, nseg, n, ms,
		 bytes / ms / 1e6, bytes / xms / 1e6,
		 bmma_ops / (2.0 * 8 * 256 * ((n + 31) / 32)) / 1e9, copy);
	// The stages by events on the decode's stream (medians over the timed calls): the header
	// parse (decode_blk), the inversion with its status read-back, the rest (GEMM and its
	// pointer upload and payload staging); the GEMM's rate over its stage alone.
	printf("#   stages, ms: parse %.3f, invert %.3f, gemm %.3f (%.1f GB/s)\n", median(tp),
	       median(ti), median(tg), bytes / median(tg) / 1e6);
	if (g_rows)
		json_array_append_new(
			g_rows, json_pack("{s:s,s:i,s:i,s:f,s:f,s:f}", "case", "decode_stages", "mode",
					  mode, "segments", nseg, "parse_ms", median(tp), "invert_ms",
					  median(ti), "gemm_ms", median(tg)));
	cudaFree((void *)d_in);
	cudaFree((void *)d_dst);
	cudaFree(d_src);
	cudaFree(d_coded);
	cudaFree(d_out);
	return bytes / ms / 1e6;
}

// One row of --papers' table: a paper's figure (0: none in its text) beside this run's, in MB/s
// (10^6 bytes) or a plain factor; ratio = ours / the paper's.
static void paper_row(const char *what, double paper, const char *unit, const char *tag,
		      double ours)
{
	char p[16] = "-", r[16] = "-";

	if (paper > 0) {
		snprintf(p, sizeof(p), "%.2f", paper);
		if (ours > 0)
			snprintf(r, sizeof(r), "%.1f", ours / paper);
	}
	printf("%-50s | %8s %-4s %-11s | %10.2f %-4s | %s\n", what, p, unit, tag, ours, unit, r);
	if (g_rows)
		json_array_append_new(g_rows,
				      json_pack("{s:s,s:s,s:f,s:s,s:s,s:f,s:f}", "case", "paper",
						"experiment", what, "paper", paper, "unit", unit,
						"source", tag, "gfec", ours, "ratio",
						paper > 0 ? ours / paper : 0.0));
}

// --papers: the rows the seed papers measured on a GTX 280 (seed-systems.md A), run now, then
// one table of the papers' figures (cited constants) beside this run's. Encode: n in {128, 256,
// 512} x B in {128 B .. 32 KiB}, 64 MiB of coded output per call. Decode: the whole batch call
// with the coefficients in host memory and the inversion included ("decode", as P1's t = t_inv
// + t_mul + t_o), n = 128 at B = 4 KiB and 16 KiB with 30, 60 (P0's batches) and 1024 segments
// per call; P1's decode row (n = 128, 256, 512 at 16 KiB) with one segment per call, as P1
// decodes, and with 30. MB/s = 10^6 bytes of coded output (encode) or decoded data (decode) per
// second, the papers' unit (T:2029's footnote).
static void papers(void *ctx, double bmma, double copy, int sms)
{
	const uint32_t ns[] = { 128, 256, 512 };
	const size_t Bs[] = { 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768 };
	const int segs[] = { 30, 60, 1024 };
	double enc[3] = { 0, 0, 0 }, dec[2][3], p1one[3], p1thirty[3], peak = 0;
	size_t encB[3] = { 0, 0, 0 };
	char what[96];

	for (int i = 0; i < 3; i++)
		for (size_t B : Bs) {
			const double g = bench_encode(ctx, ns[i], B, bmma, copy, sms, (size_t)64 << 20);

			if (g > enc[i])
				enc[i] = g, encB[i] = B;
		}
	for (int b = 0; b < 2; b++)
		for (int s = 0; s < 3; s++) {
			dec[b][s] = bench_decode(ctx, 128, b ? 16384 : 4096, segs[s], 0, bmma, copy,
						 sms);
			peak = std::max(peak, dec[b][s]);
		}
	for (int i = 0; i < 3; i++) {
		p1one[i] = bench_decode(ctx, ns[i], 16384, 1, 0, bmma, copy, sms);
		p1thirty[i] = i ? bench_decode(ctx, ns[i], 16384, 30, 0, bmma, copy, sms) : dec[1][0];
		if (!i)
			peak = std::max(peak, p1one[i]);
	}
	printf("# the papers side by side (GTX 280 / 8800 GT in the papers; this GPU now): MB/s = "
	       "10^6 bytes per second; ratio = gfec / paper\n");
	printf("%-50s | %-25s | %-15s | %s\n", "experiment", "paper", "gfec now", "ratio");
	snprintf(what, sizeof(what), "encode n=128, best B (gfec: %zu) vs loop-based", encB[0]);
	paper_row(what, 133, "MB/s", "P0:562", enc[0] * 1e3);
	snprintf(what, sizeof(what), "encode n=128, best B (gfec: %zu) vs table-based", encB[0]);
	paper_row(what, 293.7, "MB/s", "P0:783", enc[0] * 1e3);
	snprintf(what, sizeof(what), "encode n=128, best B (gfec: %zu) vs P1 batched", encB[0]);
	paper_row(what, 325, "MB/s", "P1:abstract", enc[0] * 1e3);
	for (int i = 1; i < 3; i++) {
		snprintf(what, sizeof(what), "encode n=%u, best B (gfec: %zu)", ns[i], encB[i]);
		paper_row(what, 0, "MB/s", "graph only", enc[i] * 1e3);
	}
	paper_row("decode n=128, peak of these rows", 254, "MB/s", "P0:67", peak * 1e3);
	for (int b = 0; b < 2; b++) {
		snprintf(what, sizeof(what), "decode n=128 B=%d, 60 over 30 segments per call",
			 b ? 16384 : 4096);
		paper_row(what, 1.4, "x", "P0:846-891", dec[b][1] / dec[b][0]);
		for (int s = 0; s < 3; s++) {
			snprintf(what, sizeof(what), "decode n=128 B=%d, %d segments per call",
				 b ? 16384 : 4096, segs[s]);
			paper_row(what, 0, "MB/s", "graph only", dec[b][s] * 1e3);
		}
	}
	static const double p1dec[] = { 181, 87, 34 }; // P1:310, m = 16384
	for (int i = 0; i < 3; i++) {
		snprintf(what, sizeof(what), "decode n=%u B=16384, 1 segment per call", ns[i]);
		paper_row(what, p1dec[i], "MB/s", "P1:310", p1one[i] * 1e3);
		snprintf(what, sizeof(what), "decode n=%u B=16384, 30 segments per call", ns[i]);
		paper_row(what, p1dec[i], "MB/s", "P1:310", p1thirty[i] * 1e3);
	}
}

int main(int argc, char **argv)
{
	const char *json = nullptr;
	int quick = 0, sizes = 0, race = 0, paper = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json") && i + 1 < argc) {
			json = argv[++i];
		} else if (!strcmp(argv[i], "--quick")) {
			quick = 1;
		} else if (!strcmp(argv[i], "--sizes")) {
			sizes = 1;
		} else if (!strcmp(argv[i], "--race")) {
			race = 1;
		} else if (!strcmp(argv[i], "--papers")) {
			paper = 1;
		} else {
			fprintf(strcmp(argv[i], "--help") ? stderr : stdout,
				"usage: %s [--quick] [--sizes] [--race] [--papers] [--json FILE]\n"
					"  network coding on the GPU: seeded encode and batch decode "
					"against the device copy, XOR-stream and BMMA ceilings\n"
					"  --sizes: instead, n = 128, B = 4 KiB: encode calls of "
					"1..128 segments of 1024 blocks with each shape, batch "
					"decodes of 1024 and 4096 segments\n"
					"  --race: instead, one small checked encode per shape "
					"(for compute-sanitizer)\n"
					"  --papers: instead, the seed papers' GPU rows (encode n "
					"128/256/512 x B 128..32K, decode of 1..1024 segments) and "
					"a table of their figures beside this run's\n"
					"  exit: 0, 1 a check failed, 2 usage, 3 no GPU or a CUDA error\n",
				argv[0]);
			return strcmp(argv[i], "--help") ? 2 : 0;
		}
	}
	gfec_gf8_init();
	if (json) {
		json_t *empty = json_object();
		const int r = perf_json_write(json, empty);

		json_decref(empty);
		if (r) {
			fprintf(stderr, "gfec-nc-gpu-bench: %s: %s\n", json, strerror(-r));
			return 2;
		}
		g_rows = json_array();
	}
	struct gfec_backend_conf conf;
	void *ctx;

	memset(&conf, 0, sizeof(conf));
	if (gfec_gpu_backend()->init(&conf, &ctx)) {
		fprintf(stderr, "gfec-nc-gpu-bench: no usable GPU\n");
		return 3;
	}
	cudaDeviceProp prop;
	CK(cudaGetDeviceProperties(&prop, 0));
	printf("# reproduce:");
	for (int i = 0; i < argc; i++)
		printf(" %s", argv[i]);
	printf("\n# device: %s, %d SMs\n", prop.name, prop.multiProcessorCount);

	const size_t cb = race ? 16 : (size_t)2 << 30; // --race: no ceilings worth the name
	void *c0, *c1;
	CK(cudaMalloc(&c0, cb));
	CK(cudaMalloc(&c1, cb));
	CK(cudaMemset(c0, 1, cb));
	const double cms = best_ms([&] { CK(cudaMemcpyAsync(c1, c0, cb, cudaMemcpyDeviceToDevice)); });
	const double copy = 2.0 * cb / cms / 1e6;
	cudaFree(c0);
	cudaFree(c1);
	const double bmma = race ? 1e16 : measure_bmma(prop.multiProcessorCount);
	printf("# ceilings: device copy %.1f GB/s (read + written); BMMA %.3g bit-ops/s\n", copy, bmma);
	if (g_rows) {
		json_array_append_new(g_rows, json_pack("{s:s,s:f}", "case", "d2d_copy", "GBps", copy));
		json_array_append_new(g_rows, json_pack("{s:s,s:f}", "case", "bmma_rate", "bitops_per_s", bmma));
	}
	// quick = -1 after --race, --sizes or --papers: none of the default rows.
	if (race) { // small calls, one per shape, for the sanitizers
		g_iters = 1;
		for (int sh = 0; sh < gfec::nc_encode_shapes(); sh++)
			bench_encode(ctx, 128, 512, bmma, copy, prop.multiProcessorCount, 0, sh, 2);
		quick = -1;
	}
	if (sizes) { // calls of every size at n = 128, B = 4 KiB, each shape
		for (int nseg : { 1, 2, 4, 8, 16, 32, 64, 128 })
			for (int sh = -1; sh < gfec::nc_encode_shapes(); sh++)
				bench_encode(ctx, 128, 4096, bmma, copy, prop.multiProcessorCount,
					     0, sh, nseg);
		for (int nseg : { 1024, 4096 })
			for (int mode = 0; mode < 3; mode++)
				bench_decode(ctx, 128, 4096, nseg, mode, bmma, copy,
					     prop.multiProcessorCount);
		quick = -1;
	}
	if (paper) {
		papers(ctx, bmma, copy, prop.multiProcessorCount);
		quick = -1;
	}
	const uint32_t ns[] = { 128, 256, 512 };
	const size_t Bs[] = { 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768 };
	const size_t target = quick ? (size_t)16 << 20 : (size_t)64 << 20;

	for (uint32_t n : ns)
		for (size_t B : Bs)
			if (!quick || (quick > 0 && B == 4096)) {
				bench_encode(ctx, n, B, bmma, copy, prop.multiProcessorCount, target);
				for (int sh = 0; sh < gfec::nc_encode_shapes() && n == 128; sh++)
					bench_encode(ctx, n, B, bmma, copy, prop.multiProcessorCount,
						     target, sh);
			}
	for (int nseg : { 30, 60, 1024, 4096 })
		for (int mode = 0; mode < 3; mode++)
			if (!quick || (quick > 0 && nseg <= 1024))
				bench_decode(ctx, 128, 4096, nseg, mode, bmma, copy,
					     prop.multiProcessorCount);
	for (uint32_t n : { 256u, 512u, 1024u }) // past 340: the inversion in global memory
		if (quick >= 0)
			bench_decode(ctx, n, 4096, quick ? 16 : 64, 2, bmma, copy,
				     prop.multiProcessorCount);
	gfec_gpu_backend()->fini(ctx);
	if (g_rows) {
		json_t *doc = json_pack("{s:s,s:o}", "device", prop.name, "rows", g_rows);
		const int r = doc ? perf_json_write(json, doc) : -EINVAL;

		json_decref(doc);
		if (r) {
			fprintf(stderr, "gfec-nc-gpu-bench: %s: %s\n", json, strerror(-r));
			return 2;
		}
	}
	return g_fails ? 1 : 0;
}
