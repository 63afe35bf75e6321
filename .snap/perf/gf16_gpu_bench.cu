// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file gf16_gpu_bench.cu
 * gfec-gf16-gpu-bench: GF(2^16) products on the GPU backend (issue 13), through the backend
 * table with device buffers, against the two bounds measured in the same process:
 *
 *   - memory traffic: a device-to-device cudaMemcpy (bytes read + written per second, R); a
 *     call moves (k + m) chunks, so data can flow at most at R * k / (k + m);
 *   - the method's instruction rate: mma.sync m16n8k256 .b1 .and.popc issued back to back from
 *     registers on every SM (AND+POPC bit-products per second, B); the bitmatrix method spends
 *     256 bit-products per matrix element per 16-bit symbol, 128 m per data byte, so data can
 *     flow at most at B / (128 m).
 *
 * GB/s = 10^9 bytes of DATA (k chunks per stripe) per second, wall clock around the synchronous
 * backend call (pointer upload and stream sync included), median of -n calls after one warm-up.
 * Cases: encode (k, m) = (1000, 200) with a Cauchy generator; decode of 200 lost data chunks from
 * 800 data + 200 parity, timed with the decode matrix (on the CPU: the Cauchy closed form, or
 * gfec_matrix_decode_w_threads() for the Cauchy and for Jerasure's Vandermonde generator) and the
 * plan (fragments expanded on the device) included; with --big, encode (32768, 32768) (the
 * generator is Cauchy over GF(2^16), 2 GiB; its plan is a 32 GiB fragment table). Outputs of a
 * few rows are checked against gfec_cpu_gemm16_base.
 *
 *   gfec-gf16-gpu-bench [-n ITERS] [-s STRIPES] [-l CHUNK_BYTES] [--big]
 *
 * Exit codes: 0 done, 1 a result differs from the CPU, 2 usage or CUDA error, 77 no GPU.
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include "cpu_backend.h"
#include "device/gemm16.h"
#include "gf16.h"
#include "gfec_gpu.h"
#include "matrix.h"
#include "perf_gpu_util.h"
#include "perf_util.h"

#define GK(call)                                                                                   \
	do {                                                                                       \
		int r_ = (call);                                                                   \
		if (r_) {                                                                          \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,              \
				gfec_strerror(r_));                                                \
			exit(2);                                                                   \
		}                                                                                  \
	} while (0)

static int g_iters = 5;
static const struct gfec_backend_ops *ops;
static void *ctx;

static PerfRng rnd{0x243f6a8885a308d3ull};

// Register-only BMMA loop: every warp issues iters x 8 independent mma.sync .b1.
__global__ void bmma_peak(int iters, int *sink)
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

/** AND+POPC bit-products per second (16 x 8 x 256 per mma). */
static double measure_bmma(int sms)
{
	int *sink;
	const int iters = 4096, blocks = sms * 8, threads = 256;

	CK(cudaMalloc(&sink, 4));
	const double s = median_s(
	    [&] {
		    bmma_peak<<<blocks, threads>>>(iters, sink);
		    CK(cudaDeviceSynchronize());
	    },
	    5);
	cudaFree(sink);
	return (double)blocks * (threads / 32) * iters * 8 * (16.0 * 8 * 256) / s;
}

/** Device copy: bytes read + written per second over 2 x 1 GiB. */
static double measure_copy()
{
	const size_t n = (size_t)1 << 30;
	void *a, *b;

	CK(cudaMalloc(&a, n));
	CK(cudaMalloc(&b, n));
	CK(cudaMemset(a, 1, n));
	const double s = median_s(
	    [&] {
		    CK(cudaMemcpy(b, a, n, cudaMemcpyDeviceToDevice));
		    CK(cudaDeviceSynchronize());
	    },
	    5);
	cudaFree(a);
	cudaFree(b);
	return 2.0 * n / s;
}

/** nstripes stripes of cols inputs and rows outputs, len bytes each, in one device allocation. */
struct Bufs {
	uint8_t *base = nullptr;
	std::vector<const uint8_t *> in;
	std::vector<uint8_t *> out;
};

static void bufs_make(Bufs &b, int rows, int cols, int nstripes, size_t len)
{
	const size_t n = (size_t)nstripes * (rows + cols);
	std::vector<uint8_t> h(len);

	CK(cudaMalloc(&b.base, n * len));
	for (int s = 0; s < nstripes; s++) {
		for (int j = 0; j < cols; j++) {
			uint8_t *p = b.base + ((size_t)s * (rows + cols) + j) * len;

			if (j < 64) { // a few distinct random chunks, repeated: filling GiBs costs
				      // minutes
				for (auto &v : h)
					v = (uint8_t)rnd();
			}
			CK(cudaMemcpy(p, h.data(), len, cudaMemcpyHostToDevice));
			b.in.push_back(p);
		}
		for (int i = 0; i < rows; i++)
			b.out.push_back(b.base + ((size_t)s * (rows + cols) + cols + i) * len);
	}
	CK(cudaMemset(b.out[0], 0xa5, len)); // poisoned: a row the kernel skipped would show
}

/**
 * Rows pick[] of stripe 0 over the first @p check bytes against the CPU reference. 0 or 1.
 */
static int verify(const uint16_t *a, int rows, int cols, const Bufs &b, size_t check,
		  std::initializer_list<int> pick)
{
	std::vector<std::vector<uint8_t>> in(cols, std::vector<uint8_t>(check));
	std::vector<const uint8_t *> src(cols);
	int bad = 0;

	for (int j = 0; j < cols; j++) {
		CK(cudaMemcpy(in[j].data(), b.in[j], check, cudaMemcpyDeviceToHost));
		src[j] = in[j].data();
	}
	for (int i : pick) {
		if (i < 0 || i >= rows)
			continue;
		std::vector<uint8_t> ref(check), got(check);
		uint8_t *d = ref.data();

		gfec_cpu_gemm16_base(check, cols, 1, a + (size_t)i * cols, src.data(), &d, 0);
		CK(cudaMemcpy(got.data(), b.out[i], check, cudaMemcpyDeviceToHost));
		if (ref != got) {
			fprintf(stderr, "row %d differs from the CPU\n", i);
			bad = 1;
		}
	}
	return bad;
}

static void row(const char *what, int k, int m, size_t len, int ns, double s, double copy,
		double bmma, const char *note)
{
	const double gbps = (double)k * len * ns / s / 1e9;
	const double mem = copy * k / (k + m) / 1e9, ins = bmma / (128.0 * m) / 1e9;

	printf("%-8s (%5d,%5d) %7zu B x %-3d %10.3f ms %9.2f GB/s  %.3fx mem (%.0f GB/s)  "
	       "%.3fx bmma (%.2f GB/s)  bound: %s%s\n",
	       what, k, m, len, ns, s * 1e3, gbps, gbps / mem, mem, gbps / ins, ins,
	       mem < ins ? "memory" : "bmma", note);
}

static int bench_1000x200(size_t len, int ns, double copy, double bmma)
{
	const int k = 1000, m = 200;
	std::vector<uint16_t> g((size_t)m * k), d((size_t)m * k);
	gfec_gemm_matrix mat{};
	void *plan = nullptr;
	Bufs b;
	int bad = 0;

	GK(gfec_matrix_cauchy_w(16, k, m, g.data()));
	mat.w = 16, mat.rows = m, mat.cols = k;
	mat.a = (const uint8_t *)g.data();
	GK(ops->plan_create(ctx, &mat, &plan));
	bufs_make(b, m, k, ns, len);
	// Each stripe's pointers: k inputs then m outputs, as the backend takes them.
	const double se = median_s(
	    [&] { GK(ops->gemm(ctx, plan, ns, len, b.in.data(), b.out.data())); }, g_iters);
	bad |= verify(g.data(), m, k, b, len < 4096 ? len : 4096, {0, 1, 77, m - 1});
	row("encode", k, m, len, ns, se, copy, bmma, "");
	ops->plan_free(ctx, plan);

	// Decode: data chunks 0..199 lost; sources: data 200..999 then the 200 parities. Three
	// ways to the decode matrix: the cauchy technique's closed form (what the codec does for
	// it), and gfec_matrix_decode_w_threads() on every CPU (the e x e inverse and the e x k
	// product on the CPU backend's GEMM; what the codec does for jerasure_reed_sol_van) for
	// the Cauchy generator and for Jerasure's Vandermonde one.
	std::vector<int> src(k), want(m);
	std::vector<uint16_t> form(2 * ((size_t)m + k));
	for (int i = 0; i < k; i++)
		src[i] = i < k - m ? m + i : k + (i - (k - m));
	for (int i = 0; i < m; i++)
		want[i] = i;
	auto matrix = [&](int closed, int threads) {
		if (!closed) {
			GK(gfec_matrix_decode_w_threads(16, g.data(), k, m, src.data(), want.data(),
							m, threads, d.data()));
			return;
		}
		uint16_t *x = form.data(), *r = x + m, *y = r + m, *c = y + k;

		GK(gfec_matrix_cauchy16_decode(k, m, src.data(), want.data(), m, x, r, y, c));
		gfec_matrix_cauchy16_expand(m, k, x, r, y, c, d.data());
	};
	const struct {
		const char *name;
		int closed, threads; /* threads 0: every CPU */
	} cases[] = { { "cauchy, closed form", 1, 1 },
		      { "cauchy, decode_w on every CPU", 0, 0 },
		      { "jerasure_reed_sol_van, decode_w on every CPU", 0, 0 },
		      { "jerasure_reed_sol_van, decode_w on 1 thread", 0, 1 } };
	for (const auto &dc : cases) {
		if (!strncmp(dc.name, "jerasure", 8) && dc.threads == 0)
			GK(gfec_matrix_jerasure_rs_van_w(16, k, m, g.data()));
		double inv_s = 0, plan_s = 0;
		const double sd = median_s(
		    [&] {
			    const double t0 = perf_now();

			    matrix(dc.closed, dc.threads);
			    const double t1 = perf_now();

			    mat.a = (const uint8_t *)d.data();
			    GK(ops->plan_create(ctx, &mat, &plan));
			    const double t2 = perf_now();

			    GK(ops->gemm(ctx, plan, ns, len, b.in.data(), b.out.data()));
			    ops->plan_free(ctx, plan);
			    inv_s = t1 - t0, plan_s = t2 - t1;
		    },
		    g_iters);
		char note[160];

		// The sources sit where the encode's inputs were; the check is the product's, not a
		// round trip (the data there is random, not the encode's).
		mat.a = (const uint8_t *)d.data();
		GK(ops->plan_create(ctx, &mat, &plan));
		GK(ops->gemm(ctx, plan, ns, len, b.in.data(), b.out.data()));
		bad |= verify(d.data(), m, k, b, len < 4096 ? len : 4096, {0, 5, m - 1});
		ops->plan_free(ctx, plan);
		snprintf(note, sizeof(note),
			 "  (%s; last call: decode matrix %.3f ms, plan %.3f ms)", dc.name,
			 inv_s * 1e3, plan_s * 1e3);
		row("decode", k, m, len, ns, sd, copy, bmma, note);
	}
	cudaFree(b.base);
	return bad;
}

static int bench_big(size_t len, double copy, double bmma)
{
	const int k = 32768, m = 32768;
	std::vector<uint16_t> g((size_t)m * k);
	gfec_gemm_matrix mat{};
	void *plan = nullptr;
	Bufs b;
	int bad;

	GK(gfec_matrix_cauchy_w(16, k, m, g.data()));
	mat.w = 16, mat.rows = m, mat.cols = k;
	mat.a = (const uint8_t *)g.data();
	const double t0 = perf_now();
	const int r = ops->plan_create(ctx, &mat, &plan);

	if (r) {
		printf("encode   (%5d,%5d): plan refused: %s\n", k, m, gfec_strerror(r));
		return 0;
	}
	const double tp = perf_now() - t0;

	bufs_make(b, m, k, 1, len);
	const double se =
	    median_s([&] { GK(ops->gemm(ctx, plan, 1, len, b.in.data(), b.out.data())); },
		     g_iters < 3 ? g_iters : 3);
	bad = verify(g.data(), m, k, b, 512, {0, 12345, m - 1});
	char note[96];

	snprintf(note, sizeof(note), "  (plan: %.0f ms, 32 GiB of fragments)", tp * 1e3);
	row("encode", k, m, len, 1, se, copy, bmma, note);
	ops->plan_free(ctx, plan);
	cudaFree(b.base);
	return bad;
}

int main(int argc, char **argv)
{
	size_t len = 64 << 10;
	int ns = 16, big = 0, bad = 0;
	struct gfec_backend_conf conf;
	cudaDeviceProp prop;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-n") && i + 1 < argc)
			g_iters = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-s") && i + 1 < argc)
			ns = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-l") && i + 1 < argc)
			len = (size_t)strtoull(argv[++i], nullptr, 0);
		else if (!strcmp(argv[i], "--big"))
			big = 1;
		else {
			fprintf(stderr, "usage: gfec-gf16-gpu-bench [-n ITERS] [-s STRIPES] "
					"[-l CHUNK_BYTES] [--big]\n");
			return 2;
		}
	}
	if (g_iters < 1 || ns < 1 || len < 2 || len % 2) {
		fprintf(stderr,
			"gfec-gf16-gpu-bench: -n and -s at least 1, -l even and at least 2\n");
		return 2;
	}
	gfec_gf16_init();
	ops = gfec_gpu_backend();
	memset(&conf, 0, sizeof(conf));
	if (ops->init(&conf, &ctx)) {
		fprintf(stderr, "gfec-gf16-gpu-bench: no usable GPU\n");
		return 77;
	}
	CK(cudaGetDeviceProperties(&prop, 0));
	printf("# reproduce: gfec-gf16-gpu-bench -n %d -s %d -l %zu%s\n", g_iters, ns, len,
	       big ? " --big" : "");
	printf("# device: %s, %d SMs; kernel %s\n", prop.name, prop.multiProcessorCount,
	       gfec::gemm16_kernel_name());
	const double copy = measure_copy(), bmma = measure_bmma(prop.multiProcessorCount);

	printf(
	    "# bounds: device copy %.1f GB/s (read + written); BMMA %.3g AND+POPC bit-products/s\n",
	    copy / 1e9, bmma);
	bad |= bench_1000x200(len, ns, copy, bmma);
	if (big)
		bad |= bench_big(len, copy, bmma);
	ops->fini(ctx);
	if (bad)
		fprintf(stderr, "gfec-gf16-gpu-bench: results differ from the CPU\n");
	return bad;
}
