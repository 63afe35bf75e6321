// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file gpu_gemm_bench.cu
 * gfec-gpu-bench: every compiled GF GEMM kernel, checked against the CPU and timed against the
 * ceilings measured in the same process (device-to-device copy, XOR-stream bound).
 *
 * GB/s = 10^9 bytes of DATA per second (k x chunk per stripe); traffic GB/s counts k+m chunks.
 * Times are CUDA-event medians of -n launches after -w warm-ups. Buffers are several times the
 * L2, so no launch is served from cache.
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <errno.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <string>
#include <vector>

#include "cpu_backend.h"
#include "gfec/gfec.h"
#include "gfec_gpu.h"
#include "device/kernels.h"
#include "device/resident.h"
#include "device/stride.h"
#include "kernel/gemm_nibble.cuh"
#include "gf8.h"
#include "matrix.h"
#include "perf_gpu_util.h"
#include "perf_util.h"

using namespace gfec;

static int g_warm = 2, g_iters = 10;
static json_t *g_rows; /* --json: one object per measured case */
static int g_sms;
static size_t g_smem_optin;
static uint8_t *g_logexp;

static PerfRng rnd{0x243f6a8885a308d3ull};

/* A batch of stripes in one device allocation: chunk c of stripe s at base + (s*n + c)*pitch + skew. */
struct Batch {
	int k, m, nstripes;
	size_t len, pitch;
	size_t packetsize = 0; // > 0: CRS packet layout
	uint8_t *base = nullptr;
	const uint8_t **src = nullptr; // device pointer arrays
	uint8_t **dst = nullptr;
	std::vector<const uint8_t *> hsrc;
	std::vector<uint8_t *> hdst;
	int vec = 1;

	void alloc(int k_, int m_, int ns, size_t len_, int skew)
	{
		k = k_, m = m_, nstripes = ns, len = len_;
		pitch = (len + 255 + 64) / 256 * 256;
		CK(cudaMalloc(&base, pitch * (size_t)(k + m) * ns));
		hsrc.resize((size_t)ns * k);
		hdst.resize((size_t)ns * m);
		for (int s = 0; s < ns; s++)
			for (int c = 0; c < k + m; c++) {
				int sk = skew ? (int)(rnd() % 64) : 0;
				uint8_t *p = base + ((size_t)s * (k + m) + c) * pitch + sk;

				if ((uintptr_t)p % 16)
					vec = 0;
				if (c < k)
					hsrc[(size_t)s * k + c] = p;
				else
					hdst[(size_t)s * m + c - k] = p;
			}
		CK(cudaMalloc(&src, hsrc.size() * sizeof(void *)));
		CK(cudaMalloc(&dst, hdst.size() * sizeof(void *)));
		CK(cudaMemcpy(src, hsrc.data(), hsrc.size() * sizeof(void *), cudaMemcpyHostToDevice));
		CK(cudaMemcpy(dst, hdst.data(), hdst.size() * sizeof(void *), cudaMemcpyHostToDevice));
	}
	void fill()
	{
		std::vector<uint8_t> h(pitch * (size_t)(k + m) * nstripes);
		for (size_t i = 0; i + 8 <= h.size(); i += 8) {
			uint64_t r = rnd();
			memcpy(&h[i], &r, 8);
		}
		CK(cudaMemcpy(base, h.data(), h.size(), cudaMemcpyHostToDevice));
	}
	void free_all()
	{
		cudaFree(base);
		cudaFree(src);
		cudaFree(dst);
	}
	GemmArgs args(const uint8_t *da, const uint32_t *tables) const
	{
		GemmArgs a{};
		a.src = src, a.dst = dst, a.a = da, a.tables = tables;
		a.rows = m, a.cols = k, a.nstripes = nstripes, a.len = len;
		a.units = (len + 15) / 16, a.vec = vec;
		a.lda = k, a.acc = 0, a.packetsize = packetsize;
		return a;
	}
};

struct Prepared {
	uint8_t *da = nullptr;
	uint32_t *tables = nullptr;
	size_t smem = 0;
	int grid = 0;
};

static Prepared prepare(const KernelInfo *k, const uint8_t *a, const Batch &b)
{
	Prepared p;
	CK(cudaMalloc(&p.da, (size_t)b.m * b.k));
	CK(cudaMemcpy(p.da, a, (size_t)b.m * b.k, cudaMemcpyHostToDevice));
	const Shape sh = { b.m, b.k, b.packetsize };
	size_t words = kernel_table_words(k, sh);
	if (words) {
		std::vector<uint32_t> t(words);
		kernel_build_tables(k, sh, a, t.data());
		CK(cudaMalloc(&p.tables, words * 4));
		CK(cudaMemcpy(p.tables, t.data(), words * 4, cudaMemcpyHostToDevice));
	}
	p.smem = kernel_smem(k, sh);
	int per_sm;
	CK(kernel_occupancy(k, p.smem, &per_sm));
	p.grid = kernel_grid(k, b.args(p.da, p.tables), per_sm, g_sms);
	return p;
}

static void release(Prepared &p)
{
	cudaFree(p.da);
	cudaFree(p.tables);
}

/* Median milliseconds of g_iters runs of fn after g_warm warm-ups. */
template <class F> static double time_ms(F fn)
{
	cudaEvent_t e0, e1;
	std::vector<float> t;
	CK(cudaEventCreate(&e0));
	CK(cudaEventCreate(&e1));
	for (int i = 0; i < g_warm; i++)
		fn();
	CK(cudaDeviceSynchronize());
	for (int i = 0; i < g_iters; i++) {
		float ms;
		CK(cudaEventRecord(e0));
		fn();
		CK(cudaEventRecord(e1));
		CK(cudaEventSynchronize(e1));
		CK(cudaEventElapsedTime(&ms, e0, e1));
		t.push_back(ms);
	}
	CK(cudaGetLastError());
	cudaEventDestroy(e0);
	cudaEventDestroy(e1);
	std::sort(t.begin(), t.end());
	return t[t.size() / 2];
}

/*
 * Device results of b against the CPU reference (plain C, from gfmatrix tables), on up to
 * max_stripes stripes and, for long chunks, on the first 1 MiB and the last 64 KiB only.
 */
static int check_window(const Batch &b, const uint8_t *a, int s, size_t off, size_t n)
{
	std::vector<uint8_t> in((size_t)b.k * n), out((size_t)b.m * n), ref((size_t)b.m * n);
	std::vector<const uint8_t *> sp(b.k);
	std::vector<uint8_t *> dp(b.m);
	for (int j = 0; j < b.k; j++) {
		CK(cudaMemcpy(&in[j * n], b.hsrc[(size_t)s * b.k + j] + off, n, cudaMemcpyDeviceToHost));
		sp[j] = &in[j * n];
	}
	for (int i = 0; i < b.m; i++) {
		CK(cudaMemcpy(&out[i * n], b.hdst[(size_t)s * b.m + i] + off, n, cudaMemcpyDeviceToHost));
		dp[i] = &ref[i * n];
	}
	if (b.packetsize) {
		std::vector<uint8_t> bits((size_t)64 * b.k * b.m);
		gfec_gf8_to_bitmatrix(a, b.m, b.k, bits.data());
		gfec_cpu_bitmatrix_base(n, b.k, b.m, -1, bits.data(), b.packetsize, sp.data(), dp.data());
	} else {
		gfec_cpu_gemm_base(n, b.k, b.m, a, sp.data(), dp.data());
	}
	return memcmp(out.data(), ref.data(), out.size()) != 0;
}

static int check(const Batch &b, const uint8_t *a, int max_stripes)
{
	const size_t unit = b.packetsize ? 8 * b.packetsize : 1;
	const size_t head = ((size_t)1 << 20) / unit * unit, tail = std::max<size_t>(((size_t)64 << 10) / unit * unit, unit);
	int bad = 0, ns = std::min(b.nstripes, max_stripes);

	for (int t = 0; t < ns; t++) {
		int s = ns == b.nstripes ? t : (int)(rnd() % b.nstripes);
		if (b.len <= head + tail)
			bad += check_window(b, a, s, 0, b.len);
		else
			bad += check_window(b, a, s, 0, head) | check_window(b, a, s, b.len - tail, tail);
	}
	return bad;
}

static void poison(const Batch &b)
{
	for (uint8_t *p : b.hdst)
		CK(cudaMemset(p, 0xA5, b.len));
}

/* ---- correctness sweep ------------------------------------------------------------------- */

static int sweep(int rounds)
{
	int n, fails = 0, runs = 0;
	const KernelInfo *ks = kernel_list(&n);
	for (int r = 0; r < rounds; r++) {
		int k = 2 + (int)(rnd() % 29), m = 1 + (int)(rnd() % std::min(k, 32 - k));
		if (r == 0)
			k = 223, m = 32;
		size_t len = r % 3 == 0 ? 1 + rnd() % 64 : 1 + rnd() % 70000;
		int ns = r % 4 == 0 ? 1 + (int)(rnd() % 300) : 1 + (int)(rnd() % 4);
		int skew = r % 2;
		size_t P = 0;
		if (r % 5 == 4) { /* CRS: packets of 8..1024 bytes, whole blocks */
			P = 8 * (1 + rnd() % 128);
			len = 8 * P * (1 + rnd() % 6);
			k = std::min(k, 12), m = std::min(m, 4);
		}
		std::vector<uint8_t> a((size_t)m * k);
		gfec_matrix_isal_cauchy1(k, m, a.data());
		Batch b;
		b.packetsize = P;
		b.alloc(k, m, ns, len, skew);
		b.fill();
		for (int i = 0; i < n; i++) {
			if (kernel_can_implement(&ks[i], Shape{ m, k, P }, g_smem_optin))
				continue;
			Prepared p = prepare(&ks[i], a.data(), b);
			poison(b);
			CK(kernel_launch(&ks[i], b.args(p.da, p.tables), p.grid, p.smem, g_logexp, 0));
			CK(cudaDeviceSynchronize());
			int bad = check(b, a.data(), 8);
			runs++;
			if (bad) {
				fails++;
				printf("FAIL %s k=%d m=%d len=%zu stripes=%d vec=%d: %d stripes wrong\n",
				       ks[i].name, k, m, len, ns, b.vec, bad);
			}
			release(p);
		}
		b.free_all();
	}
	printf("# correctness sweep: %d kernel runs, %d failed\n", runs, fails);
	return fails;
}

/* ---- benchmarks ----------------------------------------------------------------------------- */

/* One measured case into the --json rows (a no-op without --json). */
static void json_row(json_t *o)
{
	if (g_rows && o)
		json_array_append_new(g_rows, o);
	else
		json_decref(o);
}

static void row(const char *what, const char *kernel, int k, int m, size_t len, int ns, double ms,
		double bound_ms, const char *bound_name)
{
	double data = (double)k * len * ns, traffic = (double)(k + m) * len * ns;
	printf("%-22s %-18s %4d %3d %10zu %7d %9.3f %9.1f %9.1f %7.3f (%s)\n", what, kernel, k, m,
	       len, ns, ms, data / ms / 1e6, traffic / ms / 1e6, bound_ms / ms, bound_name);
	json_row(json_pack("{s:s,s:s?,s:i,s:i,s:I,s:i,s:f,s:f,s:f,s:f,s:s?}", "case", what, "kernel",
			   kernel, "k", k, "m", m, "chunk", (json_int_t)len, "stripes", ns, "ms", ms,
			   "data_GBps", data / ms / 1e6, "traffic_GBps", traffic / ms / 1e6,
			   "of_bound", bound_ms / ms, "bound", bound_name));
}

static double xor_bound_ms(Batch &b)
{
	GemmArgs args = b.args(nullptr, nullptr);
	int grid = g_sms * 4;
	return time_ms([&] { xor_stream<256><<<grid, 256>>>(args); });
}

static void bench_case(const char *what, int k, int m, size_t len, int ns, const char *only,
		       const uint8_t *amat = nullptr, size_t packetsize = 0)
{
	std::vector<uint8_t> a((size_t)m * k);
	if (amat)
		memcpy(a.data(), amat, a.size());
	else
		gfec_matrix_isal_cauchy1(k, m, a.data());
	Batch b;
	b.packetsize = packetsize;
	b.alloc(k, m, ns, len, 0);
	b.fill();
	double xb = xor_bound_ms(b);
	row(what, "xor_stream (bound)", k, m, len, ns, xb, xb, "xor");
	int n;
	const KernelInfo *ks = kernel_list(&n);
	for (int i = 0; i < n; i++) {
		if (only && !strstr(ks[i].name, only))
			continue;
		if (kernel_can_implement(&ks[i], Shape{ m, k, packetsize }, g_smem_optin))
			continue;
		Prepared p = prepare(&ks[i], a.data(), b);
		GemmArgs args = b.args(p.da, p.tables);
		poison(b);
		double ms = time_ms([&] { CK(kernel_launch(&ks[i], args, p.grid, p.smem, g_logexp, 0)); });
		int bad = check(b, a.data(), 2);
		row(what, ks[i].name, k, m, len, ns, ms, xb, "xor");
		if (bad)
			printf("  ^ WRONG RESULT\n");
		release(p);
	}
	b.free_all();
}


/* ---- through the codec: host pipeline, CPU/GPU crossover, latency ------------------------- */

static double now_s()
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

struct HostStripe {
	int k, m;
	size_t len;
	int pinned;
	std::vector<uint8_t *> c;
	HostStripe(int k_, int m_, size_t len_, int pinned_) : k(k_), m(m_), len(len_), pinned(pinned_)
	{
		for (int i = 0; i < k + m; i++) {
			uint8_t *p;
			if (pinned)
				CK(cudaMallocHost(&p, len));
			else
				p = (uint8_t *)aligned_alloc(64, (len + 63) / 64 * 64);
			for (size_t x = 0; x < len; x += 8) {
				uint64_t r = rnd();
				memcpy(p + x, &r, std::min<size_t>(8, len - x));
			}
			c.push_back(p);
		}
	}
	~HostStripe()
	{
		for (uint8_t *p : c)
			pinned ? (void)cudaFreeHost(p) : free(p);
	}
};

static gfec_codec *codec(const char *profile)
{
	char err[256];
	gfec_codec *c;
	if (gfec_codec_create(profile, &c, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", profile, err);
		exit(2);
	}
	return c;
}

/* Median seconds of one gfec_encode over reps calls (after one warm-up). */
static double encode_s(gfec_codec *c, HostStripe &h, int reps, std::vector<double> *all = nullptr)
{
	std::vector<double> t;
	if (gfec_encode(c, (const uint8_t *const *)h.c.data(), h.c.data() + h.k, h.len))
		exit(3);
	for (int i = 0; i < reps; i++) {
		double t0 = now_s();
		gfec_encode(c, (const uint8_t *const *)h.c.data(), h.c.data() + h.k, h.len);
		t.push_back(now_s() - t0);
	}
	std::sort(t.begin(), t.end());
	if (all)
		*all = t;
	return t[t.size() / 2];
}

static void pipeline_and_crossover(int quick)
{
	/* Ceiling: pinned H2D and D2H, 1 GiB, alone and both at once (two streams). */
	size_t nb = (size_t)1 << 30;
	void *hp, *hq, *dp, *dq;
	CK(cudaMallocHost(&hp, nb));
	CK(cudaMallocHost(&hq, nb));
	CK(cudaMalloc(&dp, nb));
	CK(cudaMalloc(&dq, nb));
	memset(hp, 1, nb);
	double h2d = time_ms([&] { CK(cudaMemcpyAsync(dp, hp, nb, cudaMemcpyHostToDevice)); });
	double d2h = time_ms([&] { CK(cudaMemcpyAsync(hq, dq, nb, cudaMemcpyDeviceToHost)); });
	printf("# ceiling: pinned H2D %.1f GB/s, D2H %.1f GB/s (1 GiB)\n", nb / h2d / 1e6, nb / d2h / 1e6);
	json_row(json_pack("{s:s,s:f}", "case", "pinned_h2d", "GBps", nb / h2d / 1e6));
	json_row(json_pack("{s:s,s:f}", "case", "pinned_d2h", "GBps", nb / d2h / 1e6));
	cudaFreeHost(hp);
	cudaFreeHost(hq);
	cudaFree(dp);
	cudaFree(dq);

	/* RS(10,4) through the host pipeline, pinned (copied by DMA, gpu_pinned=dma: the default
	 * reads pinned buffers in place, with no pipeline): staging piece size x pipeline depth. */
	size_t chunk = quick ? (size_t)16 << 20 : (size_t)64 << 20;
	{
		HostStripe h(10, 4, chunk, 1);
		printf("pinned pipeline sweep, RS(10,4) %zu MiB chunks: segment MiB, streams, GB/s, x H2D\n",
		       chunk >> 20);
		for (int seg = 16; seg <= 128; seg *= 2)
			for (int st = 2; st <= 4; st++) {
				char prof[128];
				snprintf(prof, sizeof(prof),
					 "k=10 m=4 backend=gpu gpu_pinned=dma gpu_segment=%lld "
					 "gpu_streams=%d",
					 (long long)seg << 20, st);
				gfec_codec *g = codec(prof);
				double gbs = 10.0 * chunk / encode_s(g, h, 5) / 1e9;
				printf("  %4d %2d %7.1f %6.3f\n", seg, st, gbs, gbs / (nb / h2d / 1e6));
				json_row(json_pack("{s:s,s:i,s:i,s:f}", "case", "pinned_sweep",
						   "segment_MiB", seg, "streams", st, "data_GBps", gbs));
				gfec_codec_free(g);
			}
	}
	/* The defaults, pinned (read in place, then by DMA) and pageable. Data in, parity out. */
	static const char *const how[] = { "pageable", "pinned", "pinned-dma" };

	for (int w = 1; w <= 3; w++) {
		const int pinned = w < 3; // 1, 2: pinned (map, dma); 3: pageable
		const char *name = how[w % 3];
		HostStripe h(10, 4, chunk, pinned);
		gfec_codec *g = codec(w == 2 ? "k=10 m=4 backend=gpu gpu_pinned=dma"
					     : "k=10 m=4 backend=gpu");
		double s = encode_s(g, h, 5);
		double gbs = 10.0 * chunk / s / 1e9;
		printf("host %-10s RS(10,4) %zu MiB chunks: %.1f GB/s of data = %.3f x pinned H2D\n",
		       name, chunk >> 20, gbs, gbs / (nb / h2d / 1e6));
		json_row(json_pack("{s:s,s:s,s:I,s:f,s:f}", "case", "host_pipeline", "memory", name,
				   "chunk", (json_int_t)chunk, "data_GBps", gbs, "of_h2d",
				   gbs / (nb / h2d / 1e6)));
		gfec_codec_free(g);
	}

	/* Latency of one RS(10,4) stripe of 1 MiB chunks, pinned, submitted alone. */
	for (int dma = 0; dma < 2; dma++) {
		HostStripe h(10, 4, 1 << 20, 1);
		gfec_codec *g = codec(dma ? "k=10 m=4 backend=gpu gpu_pinned=dma"
					  : "k=10 m=4 backend=gpu");
		std::vector<double> t;
		encode_s(g, h, quick ? 200 : 1000, &t);
		printf("latency RS(10,4) 1 MiB chunks, %s, alone: P50 %.1f us  P99 %.1f us\n",
		       dma ? "pinned-dma" : "pinned", t[t.size() / 2] * 1e6,
		       t[t.size() * 99 / 100] * 1e6);
		json_row(json_pack("{s:s,s:s,s:f,s:f}", "case", "latency_1MiB", "memory",
				   dma ? "pinned-dma" : "pinned", "p50_us", t[t.size() / 2] * 1e6,
				   "p99_us", t[t.size() * 99 / 100] * 1e6));
		gfec_codec_free(g);
	}

	/* CPU (all cores, ISA-L) against GPU (pageable host buffers) per call size. */
	printf("crossover RS(10,4), pageable host buffers: data bytes per call, CPU us, GPU us\n");
	gfec_codec *cpu = codec("k=10 m=4 backend=cpu");
	gfec_codec *gpu = codec("k=10 m=4 backend=gpu");
	size_t cross = 0;
	for (size_t cs = 4096; cs <= ((size_t)16 << 20); cs *= 2) {
		HostStripe h(10, 4, cs, 0);
		double tc = encode_s(cpu, h, 15), tg = encode_s(gpu, h, 15);
		printf("  %10zu %10.1f %10.1f %s\n", 10 * cs, tc * 1e6, tg * 1e6, tg < tc ? "gpu" : "cpu");
		json_row(json_pack("{s:s,s:I,s:f,s:f}", "case", "crossover", "data_bytes",
				   (json_int_t)(10 * cs), "cpu_us", tc * 1e6, "gpu_us", tg * 1e6));
		if (tg < tc && !cross)
			cross = 10 * cs;
		if (tg >= tc)
			cross = 0;
	}
	printf("# crossover: GPU faster from %zu data bytes per call (0: never in this range)\n", cross);
	gfec_codec_free(cpu);
	gfec_codec_free(gpu);
}

/* ---- small batches: the GPU path's per-call overhead (issue 17) ----------------------------- */

/* The floor of any launch: nothing to do. */
static __global__ void empty_kernel() {}

/* Median and the P99 of host-timed calls of fn, in microseconds, after @p warm calls. */
template <class F> static void host_us(F fn, int warm, int reps, double *p50, double *p99)
{
	std::vector<double> t;
	for (int i = 0; i < warm; i++)
		fn(i);
	for (int i = 0; i < reps; i++) {
		double t0 = now_s();
		fn(i);
		t.push_back((now_s() - t0) * 1e6);
	}
	std::sort(t.begin(), t.end());
	*p50 = t[t.size() / 2];
	if (p99)
		*p99 = t[t.size() * 99 / 100];
}

/* The backend's pass over a call's pointers (device/backend.cu copy_ptrs), for the breakdown. */
static uintptr_t copy_ptrs(void **out, const void *const *in, size_t n)
{
	uintptr_t bits = 0;
	for (size_t i = 0; i < n; i++) {
		bits |= (uintptr_t)in[i];
		out[i] = const_cast<void *>(in[i]);
	}
	return bits;
}

/*
 * RS(10,4), 4 KiB chunks in device memory, ns stripes: the kernel alone (its pointer table
 * already on the device, CUDA events), gfec_encode_batch on the same stripes (host clock, each
 * call synchronous), one stripe through gfec_encode (P50/P99), the device copy and XOR-stream
 * bounds of the batch, and where a call's time goes. Returns the number of wrong results.
 */
static int small_batches(int ns)
{
	const int k = 10, m = 4;
	const size_t len = 4096;
	std::vector<uint8_t> a((size_t)m * k);
	gfec_matrix_isal_cauchy1(k, m, a.data());
	Batch b;
	b.alloc(k, m, ns, len, 0);
	b.fill();
	const KernelInfo *kd = kernel_default(Shape{ m, k, 0 }, g_smem_optin);
	Prepared p = prepare(kd, a.data(), b);
	GemmArgs args = b.args(p.da, p.tables);
	int bad = 0;
	double p50, p99;
	const double data = (double)k * len * ns;
	/* the batch is one allocation at one pitch: its stripes' steps (device/stride.h) */
	const ptrdiff_t sstep = (ptrdiff_t)((uintptr_t)b.hsrc[k] - (uintptr_t)b.hsrc[0]);
	const ptrdiff_t dstep = (ptrdiff_t)((uintptr_t)b.hdst[m] - (uintptr_t)b.hdst[0]);

	printf("\n# small batches: RS(10,4), %zu-byte chunks in device memory, %d stripes, kernel %s\n",
	       len, ns, kd->name);
	/* bounds of the batch: a device copy moving its traffic (k+m chunks per stripe), XOR stream */
	{
		const size_t half = (size_t)(k + m) * len * ns / 2;
		void *c0, *c1;
		CK(cudaMalloc(&c0, half));
		CK(cudaMalloc(&c1, half));
		CK(cudaMemset(c0, 3, half));
		double cms = time_ms([&] { CK(cudaMemcpyAsync(c1, c0, half, cudaMemcpyDeviceToDevice)); });
		printf("device copy of the batch's traffic (%.1f MB read + written): %.2f us = %.1f GB/s of data\n",
		       2.0 * half / 1e6, cms * 1e3, data / cms / 1e6);
		json_row(json_pack("{s:s,s:i,s:f,s:f}", "case", "small_copy_bound", "stripes", ns, "us",
				   cms * 1e3, "data_GBps", data / cms / 1e6));
		cudaFree(c0);
		cudaFree(c1);
	}
	double xb = xor_bound_ms(b);
	printf("XOR-stream bound on the batch: %.2f us = %.1f GB/s\n", xb * 1e3, data / xb / 1e6);
	json_row(json_pack("{s:s,s:i,s:f,s:f}", "case", "small_xor_bound", "stripes", ns, "us",
			   xb * 1e3, "data_GBps", data / xb / 1e6));
	poison(b);
	double kms = time_ms([&] { CK(kernel_launch(kd, args, p.grid, p.smem, g_logexp, 0)); });
	bad += check(b, a.data(), 4);
	printf("kernel alone (table in place, events): %.2f us = %.1f GB/s\n", kms * 1e3, data / kms / 1e6);
	json_row(json_pack("{s:s,s:i,s:f,s:f}", "case", "small_kernel", "stripes", ns, "us", kms * 1e3,
			   "data_GBps", data / kms / 1e6));
	/* the same kernel by the stripes' spacing (one allocation at one pitch): no table to read,
	 * as the backend launches evenly spaced batches (device/stride.h) */
	{
		poison(b);
		double tms = time_ms([&] {
			CK(kernel_launch_stride(kd, args, b.hsrc.data(), sstep, b.hdst.data(), dstep,
						p.grid, p.smem, 0));
		});
		bad += check(b, a.data(), 4);
		printf("kernel alone by the stripes' step (no table, events): %.2f us = %.1f GB/s = "
		       "%.3f x the kernel with its table\n",
		       tms * 1e3, data / tms / 1e6, kms / tms);
		json_row(json_pack("{s:s,s:i,s:f,s:f,s:f}", "case", "small_kernel_stride", "stripes", ns,
				   "us", tms * 1e3, "data_GBps", data / tms / 1e6, "of_kernel", kms / tms));
	}
	/* the small-call kernel (what the backend launches for calls of few units), same stripes */
	const KernelInfo *ksm = kernel_find("nibble_small_rg1");
	if (!ksm) {
		fprintf(stderr, "gfec-gpu-bench: nibble_small_rg1 is not compiled in\n");
		exit(2);
	}
	Prepared ps = prepare(ksm, a.data(), b);
	GemmArgs sargs = b.args(ps.da, ps.tables);
	poison(b);
	double sms = time_ms([&] { CK(kernel_launch(ksm, sargs, ps.grid, ps.smem, g_logexp, 0)); });
	bad += check(b, a.data(), 4);
	printf("small-call kernel %s on the same %d stripes (events): %.2f us = %.1f GB/s\n",
	       ksm->name, ns, sms * 1e3, data / sms / 1e6);
	json_row(json_pack("{s:s,s:i,s:f,s:f}", "case", "small_kernel_small", "stripes", ns, "us",
			   sms * 1e3, "data_GBps", data / sms / 1e6));
	double ems = time_ms([&] { empty_kernel<<<1, 32>>>(); });
	printf("empty kernel, 1 block (events): %.2f us\n", ems * 1e3);
	json_row(json_pack("{s:s,s:f}", "case", "small_empty_kernel", "us", ems * 1e3));

	gfec_codec *g = codec("k=10 m=4 backend=gpu");
	const uint8_t *const *hs = b.hsrc.data();
	uint8_t *const *hd = b.hdst.data();
	/* @p reps calls of one stripe each, rotating over the batch's stripes, after 100 warm ones:
	 * call(src, dst) is nonzero when it failed */
	auto rotate = [&](auto call, int reps, double *q50, double *q99) {
		host_us([&](int i) {
			const int t = i % ns;
			if (call(hs + (size_t)t * k, hd + (size_t)t * m))
				exit(3);
		}, 100, reps, q50, q99);
	};
	poison(b);
	host_us([&](int) { if (gfec_encode_batch(g, ns, hs, hd, len)) exit(3); }, 3, 50, &p50, nullptr);
	bad += check(b, a.data(), 8);
	printf("gfec_encode_batch, %d stripes: %.2f us = %.1f GB/s = %.3f x the kernel alone\n", ns,
	       p50, data / p50 / 1e3, kms * 1e3 / p50);
	json_row(json_pack("{s:s,s:i,s:f,s:f,s:f}", "case", "small_encode_batch", "stripes", ns, "us",
			   p50, "data_GBps", data / p50 / 1e3, "of_kernel", kms * 1e3 / p50));
	/* the same stripes in another order (pairs swapped): not evenly spaced, so the pointer
	 * table goes up in pieces as for any scattered batch */
	{
		std::vector<const uint8_t *> ts(b.hsrc);
		std::vector<uint8_t *> td(b.hdst);
		double t50;

		for (int s = 0; s + 1 < ns; s += 2) {
			std::swap_ranges(ts.begin() + (size_t)s * k, ts.begin() + (size_t)(s + 1) * k,
					 ts.begin() + (size_t)(s + 1) * k);
			std::swap_ranges(td.begin() + (size_t)s * m, td.begin() + (size_t)(s + 1) * m,
					 td.begin() + (size_t)(s + 1) * m);
		}
		poison(b);
		host_us([&](int) { if (gfec_encode_batch(g, ns, ts.data(), td.data(), len)) exit(3); }, 3,
			50, &t50, nullptr);
		bad += check(b, a.data(), 8);
		printf("gfec_encode_batch, %d stripes not evenly spaced (pairs swapped): %.2f us = %.3f x "
		       "the kernel alone\n", ns, t50, kms * 1e3 / t50);
		json_row(json_pack("{s:s,s:i,s:f,s:f,s:f}", "case", "small_encode_batch_table", "stripes",
				   ns, "us", t50, "data_GBps", data / t50 / 1e3, "of_kernel",
				   kms * 1e3 / t50));
	}

	/* the backend alone (no codec, engine or coalescing in front): what the plugin layers add */
	{
		const struct gfec_backend_ops *ops = gfec_gpu_backend();
		gfec_backend_conf conf{};
		gfec_gemm_matrix gm{};
		void *ctx = nullptr, *plan = nullptr;
		double one50, one99;
		auto open = [&] {
			if (ops->init(&conf, &ctx) || ops->plan_create(ctx, &gm, &plan)) {
				fprintf(stderr, "gfec-gpu-bench: the GPU backend refused RS(10,4)\n");
				exit(2);
			}
		};
		auto gemm_one = [&](const uint8_t *const *src, uint8_t *const *dst) {
			return ops->gemm(ctx, plan, 1, len, src, dst);
		};

		gm.w = 8, gm.rows = m, gm.cols = k, gm.a = a.data();
		open();
		host_us([&](int) { if (ops->gemm(ctx, plan, ns, len, hs, hd)) exit(3); }, 3, 50, &p50,
			nullptr);
		rotate(gemm_one, 5000, &one50, &one99);
		printf("backend alone (gpu_ops->gemm): %d stripes %.2f us = %.3f x the kernel alone; "
		       "one stripe P50 %.2f us, P99 %.2f us\n",
		       ns, p50, kms * 1e3 / p50, one50, one99);
		json_row(json_pack("{s:s,s:i,s:f,s:f,s:f}", "case", "small_backend", "stripes", ns,
				   "us", p50, "one_p50_us", one50, "one_p99_us", one99));
		ops->plan_free(ctx, plan);
		ops->fini(ctx);
		/* and with the resident kernel */
		conf.resident_us = 1000;
		open();
		rotate(gemm_one, 5000, &one50, &one99);
		gfec_backend_stats st{};
		ops->stats(ctx, &st);
		printf("backend alone, gpu_resident_us=1000: one stripe P50 %.2f us, P99 %.2f us "
		       "(%llu of %llu calls resident)\n", one50, one99,
		       (unsigned long long)st.resident, (unsigned long long)st.calls);
		json_row(json_pack("{s:s,s:f,s:f,s:I,s:I}", "case", "small_backend_resident",
				   "one_p50_us", one50, "one_p99_us", one99, "resident",
				   (json_int_t)st.resident, "calls", (json_int_t)st.calls));
		ops->plan_free(ctx, plan);
		ops->fini(ctx);
	}

	/* batch sizes: the call against each kernel alone on its first n stripes (the backend takes
	 * the small-call kernel for launches of up to 81920 units: 320 such stripes) */
	printf("%8s %12s %12s %12s %8s\n", "stripes", "kernel us", "small us", "call us",
	       "ratio");
	for (int n : { 1, 2, 4, 8, 16, 34, 35, 64, 65, 128, 292, 320, 512, 1024, ns }) {
		if (n > ns)
			continue;
		GemmArgs an = args, sn = sargs; /* the first n stripes: the first n * k and n * m entries */
		an.nstripes = sn.nstripes = n;
		/* the grid the backend gives n stripes: as many blocks as fit, no more than needed */
		int per_sm, sper_sm;
		CK(kernel_occupancy(kd, p.smem, &per_sm));
		CK(kernel_occupancy(ksm, ps.smem, &sper_sm));
		const int grid = kernel_grid(kd, an, per_sm, g_sms);
		const int sgrid = kernel_grid(ksm, sn, sper_sm, g_sms);
		double kn = time_ms([&] { CK(kernel_launch(kd, an, grid, p.smem, g_logexp, 0)); });
		double kss = time_ms([&] { CK(kernel_launch(ksm, sn, sgrid, ps.smem, g_logexp, 0)); });
		host_us([&](int) { if (gfec_encode_batch(g, n, hs, hd, len)) exit(3); }, 3, 200, &p50,
			nullptr);
		const double kbest = std::min(kn, kss) * 1e3;
		printf("%8d %12.2f %12.2f %12.2f %8.3f\n", n, kn * 1e3, kss * 1e3, p50, kbest / p50);
		json_row(json_pack("{s:s,s:i,s:f,s:f,s:f}", "case", "small_batch_sweep", "stripes", n,
				   "kernel_us", kn * 1e3, "small_kernel_us", kss * 1e3, "call_us",
				   p50));
	}
	poison(b);
	if (gfec_encode_batch(g, 64, hs, hd, len))
		exit(3);
	{
		Batch b64 = b; /* the first 64 stripes, as the call above left them */
		b64.nstripes = 64;
		bad += check(b64, a.data(), 64);
	}

	/* one stripe through gfec_encode, rotating over the batch's stripes */
	rotate([&](const uint8_t *const *src, uint8_t *const *dst) {
		return gfec_encode(g, src, dst, len);
	}, 5000, &p50, &p99);
	printf("gfec_encode, one %zu-byte stripe in device memory: P50 %.2f us, P99 %.2f us\n", len,
	       p50, p99);
	json_row(json_pack("{s:s,s:f,s:f}", "case", "small_encode_one", "p50_us", p50, "p99_us", p99));

	/* the same through the resident kernel (gpu_resident_us, device/resident.h): no launch; every
	 * stripe's parity checked after the rotation has written it */
	{
		gfec_codec *gr = codec("k=10 m=4 backend=gpu gpu_resident_us=1000");
		double r50, r99;

		poison(b);
		rotate([&](const uint8_t *const *src, uint8_t *const *dst) {
			return gfec_encode(gr, src, dst, len);
		}, std::max(5000, ns), &r50, &r99);
		bad += check(b, a.data(), ns);
		printf("gfec_encode, one stripe, gpu_resident_us=1000: P50 %.2f us, P99 %.2f us "
		       "(launched: P50 %.2f)\n", r50, r99, p50);
		json_row(json_pack("{s:s,s:f,s:f}", "case", "small_encode_one_resident", "p50_us", r50,
				   "p99_us", r99));
		gfec_codec_free(gr);
	}

	/* where a call's time goes: each step alone, host clock */
	{
		const size_t np = (size_t)(k + m) * ns;
		void **hp, **dp;
		cudaStream_t st;
		cudaPointerAttributes at;
		std::vector<const void *> all(np);
		std::copy(b.hsrc.begin(), b.hsrc.end(), all.begin());
		std::copy(b.hdst.begin(), b.hdst.end(), all.begin() + b.hsrc.size());
		CK(cudaMallocHost(&hp, np * sizeof(void *)));
		CK(cudaMalloc(&dp, np * sizeof(void *)));
		CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
		GemmArgs a1 = args;
		a1.nstripes = 1;
		int per_sm;
		CK(kernel_occupancy(kd, p.smem, &per_sm));
		const int g1 = kernel_grid(kd, a1, per_sm, g_sms);
		printf("breakdown (host clock, P50 us):\n");
		host_us([&](int i) { cudaPointerGetAttributes(&at, all[(size_t)i % np]); }, 10, 1000,
			&p50, nullptr);
		printf("  cudaPointerGetAttributes, one pointer        %8.2f\n", p50);
		host_us([&](int) { CK(cudaStreamSynchronize(st)); }, 10, 1000, &p50, nullptr);
		printf("  cudaStreamSynchronize, idle stream           %8.2f\n", p50);
		host_us([&](int) {
			empty_kernel<<<1, 32, 0, st>>>();
			CK(cudaStreamSynchronize(st));
		}, 10, 1000, &p50, &p99);
		printf("  empty kernel: launch + sync                  %8.2f (P99 %.2f)\n", p50, p99);
		json_row(json_pack("{s:s,s:f,s:f}", "case", "small_empty_launch_sync", "p50_us", p50,
				   "p99_us", p99));
		volatile uintptr_t sink = 0;
		host_us([&](int) { sink = sink | copy_ptrs(hp, all.data(), np); }, 3, 100, &p50, nullptr);
		printf("  copy + OR of %zu pointers to pinned memory %8.2f\n", np, p50);
		host_us([&](int) { memcpy(hp, all.data(), np * sizeof(void *)); }, 3, 100, &p50, nullptr);
		printf("  memcpy of those pointers to pinned memory    %8.2f\n", p50);
		host_us([&](int) {
			uintptr_t nul = 0;
			for (size_t i = 0; i < np; i++)
				nul |= (uintptr_t)all[i] == 0;
			sink = sink | nul;
		}, 3, 100, &p50, nullptr);
		printf("  NULL check of those pointers (read only)     %8.2f\n", p50);
		host_us([&](int) {
			CK(cudaMemcpyAsync(dp, hp, np * sizeof(void *), cudaMemcpyHostToDevice, st));
			CK(cudaStreamSynchronize(st));
		}, 3, 100, &p50, nullptr);
		printf("  H2D of those %zu bytes + sync               %8.2f\n", np * sizeof(void *), p50);
		host_us([&](int) {
			CK(kernel_launch(kd, a1, g1, p.smem, g_logexp, st));
			CK(cudaStreamSynchronize(st));
		}, 10, 1000, &p50, &p99);
		printf("  1 stripe: launch (table in place) + sync      %8.2f (P99 %.2f)\n", p50, p99);
		host_us([&](int) {
			CK(kernel_launch_inline(kd, a1, hs, k, hd, m, g1, p.smem, st));
			CK(cudaStreamSynchronize(st));
		}, 10, 1000, &p50, &p99);
		printf("  1 stripe: launch, pointers inline + sync      %8.2f (P99 %.2f)\n", p50, p99);
		GemmArgs s1 = sargs;
		s1.nstripes = 1;
		int sper_sm;
		CK(kernel_occupancy(ksm, ps.smem, &sper_sm));
		const int sg1 = kernel_grid(ksm, s1, sper_sm, g_sms);
		host_us([&](int) {
			CK(kernel_launch_inline(ksm, s1, hs, k, hd, m, sg1, ps.smem, st));
			CK(cudaStreamSynchronize(st));
		}, 10, 1000, &p50, &p99);
		printf("  1 stripe: small-call kernel, inline + sync    %8.2f (P99 %.2f)\n", p50, p99);
		json_row(json_pack("{s:s,s:f,s:f}", "case", "small_kernel_launch_sync", "p50_us", p50,
				   "p99_us", p99));
		/* the resident kernel (device/resident.h) without the backend in front: what a request
		 * costs, and the part that is not the stripe's bytes (one 16-byte unit) */
		host_us([&](int) { (void)cudaStreamQuery(cudaStreamLegacy); }, 10, 1000, &p50, nullptr);
		printf("  cudaStreamQuery, the legacy stream (idle)    %8.2f\n", p50);
		json_row(json_pack("{s:s,s:f}", "case", "small_legacy_query", "p50_us", p50));
		{
			Resident *res;
			GemmArgs r1 = s1, r16 = s1;
			double q50, q99;

			r16.len = 16, r16.units = 1;
			CK(resident_create(1000, &res));
			for (const GemmArgs *ra : { &r1, &r16 }) {
				rotate([&](const uint8_t *const *src, uint8_t *const *dst) {
					return resident_run(res, *ra, ksm->tile, src, dst) != 1;
				}, 5000, &q50, &q99);
				printf("  1 stripe of %4zu-byte chunks: resident kernel %8.2f (P99 %.2f)\n",
				       ra->len, q50, q99);
				json_row(json_pack("{s:s,s:I,s:f,s:f}", "case", "small_resident_run",
						   "len", (json_int_t)ra->len, "p50_us", q50, "p99_us",
						   q99));
			}
			/* the longest chunks it takes (16 KiB), on 1024 stripes of their own */
			const size_t l16k = 16384;
			const int n16k = 1024;
			uint8_t *big;
			std::vector<const uint8_t *> bs((size_t)n16k * k);
			std::vector<uint8_t *> bd((size_t)n16k * m);
			GemmArgs rl = s1;

			CK(cudaMalloc(&big, (size_t)n16k * (k + m) * l16k));
			CK(cudaMemset(big, 0x5a, (size_t)n16k * (k + m) * l16k));
			CK(cudaStreamSynchronize(0)); // else the legacy stream is busy: no request taken
			for (size_t i = 0; i < bs.size(); i++)
				bs[i] = big + i * l16k;
			for (size_t i = 0; i < bd.size(); i++)
				bd[i] = big + (bs.size() + i) * l16k;
			rl.len = l16k, rl.units = l16k / 16;
			host_us([&](int i) {
				const size_t t = (size_t)(i % n16k);

				if (resident_run(res, rl, ksm->tile, bs.data() + t * k, bd.data() + t * m) != 1)
					exit(3);
			}, 100, 5000, &q50, &q99);
			printf("  1 stripe of %4zu-byte chunks: resident kernel %8.2f (P99 %.2f)\n", l16k,
			       q50, q99);
			json_row(json_pack("{s:s,s:I,s:f,s:f}", "case", "small_resident_run", "len",
					   (json_int_t)l16k, "p50_us", q50, "p99_us", q99));
			resident_destroy(res);
			CK(cudaFree(big));
		}
		host_us([&](int) {
			CK(cudaMemcpyAsync(dp, hp, (k + m) * sizeof(void *), cudaMemcpyHostToDevice, st));
			CK(kernel_launch(kd, a1, g1, p.smem, g_logexp, st));
			CK(cudaStreamSynchronize(st));
		}, 10, 1000, &p50, &p99);
		printf("  1 stripe: H2D of 14 pointers, launch + sync   %8.2f (P99 %.2f)\n", p50, p99);
		/* the old device path for the whole batch: one pass, one upload, one launch, one sync */
		GemmArgs ab = args;
		ab.src = (const uint8_t *const *)dp;
		ab.dst = (uint8_t *const *)(dp + b.hsrc.size());
		host_us([&](int) {
			sink = sink | copy_ptrs(hp, all.data(), np);
			CK(cudaMemcpyAsync(dp, hp, np * sizeof(void *), cudaMemcpyHostToDevice, st));
			CK(kernel_launch(kd, ab, p.grid, p.smem, g_logexp, st));
			CK(cudaStreamSynchronize(st));
		}, 3, 50, &p50, nullptr);
		printf("  %d stripes, one upload + one launch + sync %8.2f = %.3f x the kernel alone\n",
		       ns, p50, kms * 1e3 / p50);
		json_row(json_pack("{s:s,s:i,s:f}", "case", "small_one_upload", "stripes", ns, "us", p50));
		/* evenly spaced: the check of every pointer, then one launch by the step (what the
		 * backend does, device/backend.cu dev_launches, without its codec and plan) */
		host_us([&](int) {
			sink = sink + gfec_gpu_rows_step((const void *const *)hs, k, 0, ns, sstep) +
			       gfec_gpu_rows_step((const void *const *)hd, m, 0, ns, dstep);
		}, 3, 100, &p50, nullptr);
		printf("  the step check of those %zu pointers        %8.2f\n", np, p50);
		json_row(json_pack("{s:s,s:i,s:f}", "case", "small_step_check", "pointers", (int)np, "us",
				   p50));
		host_us([&](int) {
			if (!gfec_gpu_rows_step((const void *const *)hs, k, 0, ns, sstep) ||
			    !gfec_gpu_rows_step((const void *const *)hd, m, 0, ns, dstep))
				exit(3);
			CK(kernel_launch_stride(kd, args, hs, sstep, hd, dstep, p.grid, p.smem, st));
			CK(cudaStreamSynchronize(st));
		}, 3, 50, &p50, nullptr);
		printf("  %d stripes, step check + one launch by the step + sync %8.2f = %.3f x the "
		       "kernel alone\n", ns, p50, kms * 1e3 / p50);
		json_row(json_pack("{s:s,s:i,s:f,s:f}", "case", "small_one_stride_launch", "stripes", ns,
				   "us", p50, "of_kernel", kms * 1e3 / p50));

		/* the backend's pieces (device/backend.cu dev_launches) emulated with other schedules:
		 * first piece, growth and cap in pointers (0: none), and which kernel runs them */
		struct Sched {
			size_t first, growth, cap;
			int small;
		};
		static const Sched scheds[] = { { 4096, 4, 0, 0 },     { 4096, 2, 16384, 0 },
						{ 2048, 2, 8192, 0 },  { 4096, 2, 24576, 0 },
						{ 4096, 3, 16384, 0 }, { 4096, 2, 16384, 1 } };
		const size_t per = (size_t)(k + m);
		cudaStream_t st2, up;
		cudaEvent_t ev;
		int kper_sm, sper_sm2;
		CK(cudaStreamCreateWithFlags(&st2, cudaStreamNonBlocking));
		CK(cudaStreamCreateWithFlags(&up, cudaStreamNonBlocking));
		CK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
		CK(kernel_occupancy(kd, p.smem, &kper_sm));
		CK(kernel_occupancy(ksm, ps.smem, &sper_sm2));
		for (const Sched &sc : scheds) {
			const KernelInfo *kk = sc.small ? ksm : kd;
			const size_t smem = sc.small ? ps.smem : p.smem;
			const int kps = sc.small ? sper_sm2 : kper_sm;
			poison(b);
			host_us([&](int) {
				size_t piece = std::max<size_t>(sc.first / per, 1);
				const size_t most = sc.cap ? std::max(sc.cap / per, piece) : (size_t)ns;
				for (size_t s0 = 0, i = 0; s0 < (size_t)ns;
				     s0 += piece, piece = std::min(piece * sc.growth, most), i++) {
					const size_t n = std::min((size_t)ns - s0, piece);
					void **h = hp + s0 * per, **dv = dp + s0 * per;
					const uintptr_t bits =
						copy_ptrs(h, (const void *const *)hs + s0 * k, n * k) |
						copy_ptrs(h + n * k, (const void *const *)hd + s0 * m, n * m);
					cudaStream_t ks = i % 2 ? st2 : st;
					GemmArgs an = sc.small ? sargs : args;
					an.src = (const uint8_t *const *)dv;
					an.dst = (uint8_t *const *)(dv + n * k);
					an.nstripes = (int)n;
					an.vec = bits % 16 == 0;
					CK(cudaMemcpyAsync(dv, h, n * per * sizeof(void *),
							   cudaMemcpyHostToDevice, up));
					CK(cudaEventRecord(ev, up));
					CK(cudaStreamWaitEvent(ks, ev, 0));
					CK(kernel_launch(kk, an, kernel_grid(kk, an, kps, g_sms), smem,
							 g_logexp, ks));
				}
				CK(cudaStreamSynchronize(st));
				CK(cudaStreamSynchronize(st2));
			}, 3, 50, &p50, nullptr);
			bad += check(b, a.data(), 4);
			printf("  pieces: first %5zu x%zu cap %5zu ptrs, %-16s %8.2f = %.3f x the kernel "
			       "alone\n", sc.first, sc.growth, sc.cap, kk->name, p50, kms * 1e3 / p50);
			json_row(json_pack("{s:s,s:I,s:I,s:I,s:s,s:f}", "case", "small_pieces_emulated",
					   "first", (json_int_t)sc.first, "growth", (json_int_t)sc.growth,
					   "cap", (json_int_t)sc.cap, "kernel", kk->name, "us", p50));
		}
		cudaEventDestroy(ev);
		cudaStreamDestroy(st2);
		cudaStreamDestroy(up);
		cudaFreeHost(hp);
		cudaFree(dp);
		cudaStreamDestroy(st);
	}
	gfec_codec_free(g);
	release(p);
	release(ps);
	b.free_all();
	if (bad)
		printf("  ^ WRONG RESULT (%d)\n", bad);
	return bad;
}

/* Every kernel on the benchmark shapes against the ceilings, then the host pipeline. */
static void kernel_cases(int quick)
{
	/* Ceiling 1: device-to-device copy, bytes read + written. */
	size_t cb = (size_t)4 << 30;
	void *c0, *c1;
	CK(cudaMalloc(&c0, cb));
	CK(cudaMalloc(&c1, cb));
	CK(cudaMemset(c0, 1, cb));
	double cms = time_ms([&] { CK(cudaMemcpyAsync(c1, c0, cb, cudaMemcpyDeviceToDevice)); });
	printf("# ceiling: device-to-device copy %.1f GB/s (read + written, 4 GiB)\n", 2.0 * cb / cms / 1e6);
	json_row(json_pack("{s:s,s:f}", "case", "d2d_copy", "GBps", 2.0 * cb / cms / 1e6));
	cudaFree(c0);
	cudaFree(c1);

	printf("%-22s %-18s %4s %3s %10s %7s %9s %9s %9s %7s\n", "case", "kernel", "k", "m", "chunk",
	       "stripes", "ms", "data GB/s", "trafficGB/s", "x bound");
	size_t big = quick ? (size_t)64 << 20 : (size_t)256 << 20;
	bench_case("encode RS(10,4) big", 10, 4, big, 1, nullptr);
	bench_case("encode RS(8,3) 8M", 8, 3, 8 << 20, 8, "nibble");
	bench_case("encode RS(10,4) 4K", 10, 4, 4096, quick ? 16384 : 65536, "nibble");
	{
		/* decode with 4 erasures: data 0..3 lost; sources 4..13 */
		std::vector<uint8_t> g(40), d(40);
		gfec_matrix_isal_cauchy1(10, 4, g.data());
		int src[10], want[4] = { 0, 1, 2, 3 };
		for (int i = 0; i < 10; i++)
			src[i] = 4 + i;
		gfec_matrix_decode(g.data(), 10, 4, src, want, 4, d.data());
		bench_case("decode RS(10,4) 4 lost", 10, 4, big, 1, "nibble", d.data());
	}
	bench_case("encode RS(223,32) 1M", 223, 32, 1 << 20, 8, nullptr);
	{
		std::vector<uint8_t> g(40);
		gfec_matrix_jerasure_cauchy_good(10, 4, g.data());
		bench_case("CRS cauchy_good(10,4)", 10, 4, big, 1, nullptr, g.data(), 2048);
		gfec_matrix_jerasure_cauchy_good(8, 3, g.data());
		bench_case("CRS cauchy_good(8,3) 4K", 8, 3, 16384, 32768, nullptr, g.data(), 2048);
	}
	pipeline_and_crossover(quick);
}

int main(int argc, char **argv)
{
	const char *json = nullptr;
	int quick = 0, small_only = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json") && i + 1 < argc)
			json = argv[++i];
		else if (!strcmp(argv[i], "--quick"))
			quick = 1;
		else if (!strcmp(argv[i], "--small"))
			small_only = 1;
		else if (!strcmp(argv[i], "-n") && i + 1 < argc)
			g_iters = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: %s [--quick] [--small] [-n ITERS] [--json FILE]\n"
					"  --small: only the small-batch section (RS(10,4) 4 KiB, "
					"per-call overhead)\n",
				argv[0]);
			return 2;
		}
	}
	gfec_gf8_init();
	cudaDeviceProp prop;
	CK(cudaGetDeviceProperties(&prop, 0));
	g_sms = prop.multiProcessorCount;
	g_smem_optin = prop.sharedMemPerBlockOptin;
	uint8_t hle[768];
	kernel_logexp(hle);
	CK(cudaMalloc(&g_logexp, 768));
	CK(cudaMemcpy(g_logexp, hle, 768, cudaMemcpyHostToDevice));
	printf("# reproduce:");
	for (int i = 0; i < argc; i++)
		printf(" %s", argv[i]);
	printf("\n# device: %s, %d SMs, L2 %d MiB, smem/block %zu KiB\n", prop.name, g_sms,
	       prop.l2CacheSize >> 20, g_smem_optin >> 10);
	if (json) {
		/* find out now, not after the run, that the file cannot be written */
		json_t *empty = json_object();
		int ret = perf_json_write(json, empty);

		json_decref(empty);
		if (ret) {
			fprintf(stderr, "gfec-gpu-bench: %s: %s\n", json, strerror(-ret));
			return 2;
		}
		g_rows = json_array();
	}

	int fails = small_only ? 0 : sweep(quick ? 10 : 40);

	fails += small_batches(4096);
	if (!small_only)
		kernel_cases(quick);
	if (g_rows) {
		json_t *doc = json_pack("{s:s,s:o}", "device", prop.name, "rows", g_rows);
		int ret = doc ? perf_json_write(json, doc) : -EINVAL;

		json_decref(doc);
		if (ret) {
			fprintf(stderr, "gfec-gpu-bench: %s: %s\n", json, strerror(-ret));
			return 2;
		}
	}
	return fails ? 1 : 0;
}
