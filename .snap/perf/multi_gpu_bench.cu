// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file multi_gpu_bench.cu
 * gfec-multigpu-bench: RS(10,4) on one GPU context against every context of gpu_devices= (issue
 * 18), in one run, through the public API (gfec_encode_batch on backend=gpu codecs), with every
 * device's ceilings measured in the same process.
 *
 *   device rows: each distinct GPU of the list holds --stripes stripes in its own memory; the
 *                first context codes the first GPU's stripes, then all contexts code every GPU's
 *                stripes in one call (weak scaling: the ratio is of throughputs).
 *   pinned rows: --stripes stripes in pinned host memory, coded by the first context alone,
 *                then by all (strong scaling).
 *   --nc:        RLC encode (gfec_nc.h, n = 128, B = 4 KiB, --segments segments of 1024 coded
 *                blocks per call, backend=gpu) from pinned host memory into pinned host memory,
 *                one context (GFEC_GPU_DEVICES set to the first) against all, each output
 *                checked against backend=cpu (strong scaling; GB/s of coded output).
 *
 * GB/s = 10^9 DATA bytes (k x chunk per stripe) per second, from the median wall time of -n calls
 * after one warm-up. Outputs are checked against backend=cpu (the first and last stripe of each
 * row). Ceilings per GPU: device-to-device copy (bytes read + written), pinned H2D, D2H and both
 * at once; and all GPUs' pinned copies at once (the host's PCIe and memory bound of the pinned
 * rows: a stripe moves k + m chunks over it, so data GB/s <= both x k / (k + m)).
 *
 * usage: gfec-multigpu-bench [--devices LIST] [--chunk BYTES] [--stripes N] [-n ITERS]
 *                            [--nc [--segments N]]
 * Exit codes: 0 done and every check passed, 1 a check failed, 2 bad arguments or setup, 77 no
 * usable GPU.
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <string>
#include <thread>
#include <vector>

#include "gfec/gfec.h"
#include "gfec/gfec_nc.h"
#include "perf_gpu_util.h" /* median_s */

namespace {

constexpr int K = 10, M = 4;

int g_iters = 5;

[[noreturn]] void die(const char *what, cudaError_t e)
{
	fprintf(stderr, "gfec-multigpu-bench: %s: %s\n", what, cudaGetErrorString(e));
	exit(2);
}

void ck(cudaError_t e, const char *what)
{
	if (e != cudaSuccess)
		die(what, e);
}

struct Ceil {
	double d2d = 0, h2d = 0, d2h = 0, both = 0;
};

// One GPU's ceilings, on its own streams.
Ceil ceilings(int dev, size_t bytes)
{
	Ceil c;
	void *a, *b, *h1, *h2;
	cudaStream_t s1, s2;

	ck(cudaSetDevice(dev), "cudaSetDevice");
	ck(cudaMalloc(&a, bytes), "cudaMalloc");
	ck(cudaMalloc(&b, bytes), "cudaMalloc");
	ck(cudaMallocHost(&h1, bytes), "cudaMallocHost");
	ck(cudaMallocHost(&h2, bytes), "cudaMallocHost");
	ck(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking), "stream");
	ck(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), "stream");
	memset(h1, 0x11, bytes);
	ck(cudaMemset(a, 0x5a, bytes), "cudaMemset");
	c.d2d = 2.0 * bytes / median_s([&] {
		cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, s1);
		cudaStreamSynchronize(s1);
	}, g_iters) / 1e9;
	c.h2d = bytes / median_s([&] {
		cudaMemcpyAsync(a, h1, bytes, cudaMemcpyHostToDevice, s1);
		cudaStreamSynchronize(s1);
	}, g_iters) / 1e9;
	c.d2h = bytes / median_s([&] {
		cudaMemcpyAsync(h2, b, bytes, cudaMemcpyDeviceToHost, s1);
		cudaStreamSynchronize(s1);
	}, g_iters) / 1e9;
	c.both = 2.0 * bytes / median_s([&] {
		cudaMemcpyAsync(a, h1, bytes, cudaMemcpyHostToDevice, s1);
		cudaMemcpyAsync(h2, b, bytes, cudaMemcpyDeviceToHost, s2);
		cudaStreamSynchronize(s1);
		cudaStreamSynchronize(s2);
	}, g_iters) / 1e9;
	ck(cudaGetLastError(), "ceiling copies");
	cudaStreamDestroy(s1);
	cudaStreamDestroy(s2);
	cudaFree(a);
	cudaFree(b);
	cudaFreeHost(h1);
	cudaFreeHost(h2);
	return c;
}

// Pinned H2D and D2H on every listed GPU at once (one thread each): the host side's bound.
double all_at_once(const std::vector<int> &devs, size_t bytes)
{
	const size_t n = devs.size();
	std::vector<void *> d(2 * n), h(2 * n);
	std::vector<cudaStream_t> s(2 * n);

	for (size_t i = 0; i < n; i++) {
		ck(cudaSetDevice(devs[i]), "cudaSetDevice");
		ck(cudaMalloc(&d[2 * i], bytes), "cudaMalloc");
		ck(cudaMalloc(&d[2 * i + 1], bytes), "cudaMalloc");
		ck(cudaMallocHost(&h[2 * i], bytes), "cudaMallocHost");
		ck(cudaMallocHost(&h[2 * i + 1], bytes), "cudaMallocHost");
		memset(h[2 * i], 0x22, bytes);
		ck(cudaStreamCreateWithFlags(&s[2 * i], cudaStreamNonBlocking), "stream");
		ck(cudaStreamCreateWithFlags(&s[2 * i + 1], cudaStreamNonBlocking), "stream");
	}
	const double t = median_s([&] {
		std::vector<std::thread> th;

		for (size_t i = 0; i < n; i++)
			th.emplace_back([&, i] {
				cudaSetDevice(devs[i]);
				cudaMemcpyAsync(d[2 * i], h[2 * i], bytes, cudaMemcpyHostToDevice,
						s[2 * i]);
				cudaMemcpyAsync(h[2 * i + 1], d[2 * i + 1], bytes,
						cudaMemcpyDeviceToHost, s[2 * i + 1]);
				cudaStreamSynchronize(s[2 * i]);
				cudaStreamSynchronize(s[2 * i + 1]);
			});
		for (std::thread &x : th)
			x.join();
	}, g_iters);
	ck(cudaGetLastError(), "copies on every GPU");
	for (size_t i = 0; i < n; i++) {
		cudaSetDevice(devs[i]);
		cudaStreamDestroy(s[2 * i]);
		cudaStreamDestroy(s[2 * i + 1]);
		cudaFree(d[2 * i]);
		cudaFree(d[2 * i + 1]);
		cudaFreeHost(h[2 * i]);
		cudaFreeHost(h[2 * i + 1]);
	}
	return 2.0 * n * bytes / t / 1e9;
}

gfec_codec *codec(const std::string &devices)
{
	char prof[256], err[256];
	gfec_codec *c = nullptr;
	std::string list = devices; // a profile separates entries by commas: 0:1

	std::replace(list.begin(), list.end(), ',', ':');

	snprintf(prof, sizeof(prof), "k=%d m=%d backend=gpu%s%s", K, M,
		 list.empty() ? "" : " gpu_devices=", list.c_str());
	if (gfec_codec_create(prof, &c, err, sizeof(err))) {
		fprintf(stderr, "gfec-multigpu-bench: %s: %s\n", prof, err);
		exit(77);
	}
	return c;
}

// Stripes: chunk i of stripe s; data filled from a seed, parity poisoned.
struct Stripes {
	std::vector<const uint8_t *> data;
	std::vector<uint8_t *> parity;
	std::vector<void *> blocks; // one allocation per stripe
	std::vector<int> on;	    // the GPU each stripe is on, -1: pinned host
};

void add_stripes(Stripes &st, int ns, size_t chunk, int dev)
{
	std::vector<uint8_t> h(chunk * (K + M));

	for (int s = 0; s < ns; s++) {
		uint8_t *p;
		uint32_t x = 0x9e3779b9u * (uint32_t)(st.blocks.size() + 1);

		for (size_t i = 0; i < h.size(); i++) {
			x ^= x << 13, x ^= x >> 17, x ^= x << 5;
			h[i] = i < chunk * K ? (uint8_t)x : 0xa5;
		}
		if (dev >= 0) {
			ck(cudaSetDevice(dev), "cudaSetDevice");
			ck(cudaMalloc((void **)&p, h.size()), "cudaMalloc");
			ck(cudaMemcpy(p, h.data(), h.size(), cudaMemcpyHostToDevice), "fill");
		} else {
			ck(cudaMallocHost((void **)&p, h.size()), "cudaMallocHost");
			memcpy(p, h.data(), h.size());
		}
		st.blocks.push_back(p);
		st.on.push_back(dev);
		for (int j = 0; j < K; j++)
			st.data.push_back(p + j * chunk);
		for (int i = 0; i < M; i++)
			st.parity.push_back(p + (K + i) * chunk);
	}
}

void free_stripes(Stripes &st)
{
	for (size_t i = 0; i < st.blocks.size(); i++)
		if (st.on[i] >= 0)
			cudaFree(st.blocks[i]);
		else
			cudaFreeHost(st.blocks[i]);
	st = Stripes();
}

// Stripe @p s of @p st against the CPU codec: 0, or 1 on a mismatch.
int check(gfec_codec *cpu, const Stripes &st, int s, size_t chunk)
{
	std::vector<uint8_t> d((size_t)K * chunk), p((size_t)M * chunk), want((size_t)M * chunk);
	const uint8_t *dp[K];
	uint8_t *pp[M];

	ck(cudaMemcpy(d.data(), st.data[(size_t)s * K], d.size(), cudaMemcpyDefault), "read back");
	ck(cudaMemcpy(p.data(), st.parity[(size_t)s * M], p.size(), cudaMemcpyDefault), "read back");
	for (int j = 0; j < K; j++)
		dp[j] = d.data() + j * chunk;
	for (int i = 0; i < M; i++)
		pp[i] = want.data() + i * chunk;
	if (gfec_encode(cpu, dp, pp, chunk) || memcmp(p.data(), want.data(), p.size())) {
		fprintf(stderr, "FAIL: stripe %d differs from backend=cpu\n", s);
		return 1;
	}
	return 0;
}

double rate(gfec_codec *c, Stripes &st, size_t chunk, int *err)
{
	const int ns = (int)st.blocks.size();
	int ret = 0;
	const double t = median_s([&] {
		ret |= gfec_encode_batch(c, ns, st.data.data(), st.parity.data(), chunk);
	}, g_iters);

	if (ret) {
		fprintf(stderr, "FAIL: gfec_encode_batch: %s\n", gfec_strerror(ret));
		*err = 1;
	}
	return (double)K * chunk * ns / t / 1e9;
}

// A line per context of d[0 .. n-1] (16 at most) under @p what: its calls, its share of the work
// and its failures; with @p rates also its bytes and the rates it measured (the RS codes').
void print_contexts(const char *what, const struct gfec_gpu_device *d, int n, bool rates)
{
	for (int i = 0; i < n && i < 16; i++) {
		printf("  %s: context %d on GPU %d: %llu shares, ", what, i, d[i].ordinal,
		       (unsigned long long)d[i].calls);
		if (rates)
			printf("%.3f GB, ", d[i].bytes / 1e9);
		printf("share %.3f, %llu failed", d[i].share, (unsigned long long)d[i].failures);
		if (rates)
			printf(", rate host %.1f GB/s, device %.1f GB/s", d[i].rate_host / 1e9,
			       d[i].rate_dev / 1e9);
		printf("\n");
	}
}

void shares(gfec_codec *c, const char *what)
{
	struct gfec_gpu_device d[16];

	print_contexts(what, d, gfec_codec_gpu_devices(c, d, 16), true);
}

// An RLC code of n = 128, B = 4 KiB on @p devices ("" = the CPU): GFEC_GPU_DEVICES is read when
// a code is made, so one process holds a one-context and an all-context code side by side.
gfec_nc *nc_code(const std::string &devices)
{
	struct gfec_nc_params p = {};
	gfec_nc *c = nullptr;

	p.n = 128;
	p.block_size = 4096;
	p.backend = devices.empty() ? GFEC_NC_BACKEND_CPU : GFEC_NC_BACKEND_GPU;
	if (!devices.empty())
		setenv("GFEC_GPU_DEVICES", devices.c_str(), 1);
	const int ret = gfec_nc_create(&p, &c);

	unsetenv("GFEC_GPU_DEVICES");
	if (ret) {
		fprintf(stderr, "gfec-multigpu-bench: RLC code on '%s': %s\n", devices.c_str(),
			gfec_strerror(ret));
		exit(77);
	}
	return c;
}

// RLC encode from pinned memory, one context against every context of @p list. 0, or 1 when an
// output differs from the CPU's.
int nc_rows(const std::string &list, int nseg)
{
	const uint32_t count = 1024;
	gfec_nc *cpu = nc_code(""), *all = nc_code(list);
	struct gfec_gpu_device info[16];
	const int nctx = gfec_nc_gpu_devices(all, info, 16);
	gfec_nc *one = nc_code(std::to_string(info[0].ordinal));
	const size_t seg = (size_t)128 * 4096, blk = gfec_nc_block_bytes(cpu, GFEC_NC_KIND_SEED);
	const size_t olen = (size_t)nseg * count * blk;
	uint8_t *data, *out;
	std::vector<uint8_t> want(olen);
	std::vector<struct gfec_nc_segment> segs(nseg);
	uint32_t x = 0x9e3779b9u;
	int bad = 0;

	ck(cudaMallocHost((void **)&data, seg * nseg), "cudaMallocHost");
	ck(cudaMallocHost((void **)&out, olen), "cudaMallocHost");
	for (size_t i = 0; i < seg * nseg; i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		data[i] = (uint8_t)x;
	}
	for (int s = 0; s < nseg; s++)
		segs[s] = { (uint64_t)s + 1, data + s * seg };
	if (gfec_nc_encode(cpu, segs.data(), nseg, 0, count, want.data(), olen)) {
		fprintf(stderr, "FAIL: the CPU's RLC encode\n");
		return 1;
	}
	double r[2];
	gfec_nc *code[2] = { one, all };

	for (int w = 0; w < 2; w++) {
		int ret = 0;

		memset(out, 0xa5, olen);
		const double t = median_s([&] {
			ret |= gfec_nc_encode(code[w], segs.data(), nseg, 0, count, out, olen);
		}, g_iters);
		r[w] = olen / t / 1e9;
		if (ret || memcmp(out, want.data(), olen)) {
			fprintf(stderr, "FAIL: RLC encode on %s: %s\n", w ? "every context" : "one context",
				ret ? gfec_strerror(ret) : "bytes differ from backend=cpu");
			bad = 1;
		}
	}
	printf("RLC(128) 4 KiB encode, pinned host memory, %d segments x %u blocks per call: 1 "
	       "context %.1f GB/s, %d contexts %.1f GB/s of coded output: ratio %.2f\n",
	       nseg, count, r[0], nctx, r[1], r[1] / r[0]);
	gfec_nc_gpu_devices(all, info, 16);
	print_contexts("nc", info, nctx, false);
	cudaFreeHost(data);
	cudaFreeHost(out);
	gfec_nc_free(one);
	gfec_nc_free(all);
	gfec_nc_free(cpu);
	return bad;
}

} // namespace

int main(int argc, char **argv)
{
	std::string list = "all";
	size_t chunk = (size_t)1 << 20;
	int ns = 64, count = 0, bad = 0, nc = 0, nseg = 32;

	for (int i = 1; i < argc; i++) {
		const std::string a = argv[i];

		if (a == "--nc") {
			nc = 1;
		} else if ((a == "--devices" || a == "--chunk" || a == "--stripes" || a == "-n" ||
			    a == "--segments") &&
			   i + 1 < argc) {
			const char *v = argv[++i];

			if (a == "--segments")
				nseg = atoi(v);
			else if (a == "--devices")
				list = v;
			else if (a == "--chunk")
				chunk = strtoull(v, nullptr, 0);
			else if (a == "--stripes")
				ns = atoi(v);
			else
				g_iters = atoi(v);
		} else if (a == "-h" || a == "--help") {
			printf("usage: gfec-multigpu-bench [--devices all|0,1,...] [--chunk BYTES] "
			       "[--stripes N] [-n ITERS] [--nc [--segments N]]\n"
			       "RS(10,4) on the first GPU context against all of gpu_devices, data in\n"
			       "each GPU's memory and in pinned host memory, with every GPU's copy and\n"
			       "PCIe ceilings; with --nc, RLC encode (n = 128, 4 KiB blocks) from pinned\n"
			       "memory the same way. Exit: 0 ok, 1 a check failed, 2 bad arguments, 77 no "
			       "GPU.\n");
			return 0;
		} else {
			fprintf(stderr, "gfec-multigpu-bench: unknown argument '%s' (see --help)\n",
				argv[i]);
			return 2;
		}
	}
	if (chunk == 0 || chunk % 64 || ns < 1 || g_iters < 1 || nseg < 1 || nseg > 4096) {
		fprintf(stderr, "gfec-multigpu-bench: --chunk must be a positive multiple of 64, "
				"--stripes and -n positive, --segments 1..4096\n");
		return 2;
	}
	if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1) {
		printf("no usable GPU: skipped\n");
		return 77;
	}
	// The contexts, as the library will make them, and the distinct GPUs among them.
	gfec_codec *all = codec(list), *cpu;
	struct gfec_gpu_device info[16];
	const int nctx = gfec_codec_gpu_devices(all, info, 16);
	std::vector<int> gpus;
	char err[256];

	if (nctx < 1) {
		fprintf(stderr, "gfec-multigpu-bench: --devices %s gave no GPU context\n",
			list.c_str());
		return 2;
	}
	if (gfec_codec_create("k=10 m=4 backend=cpu", &cpu, err, sizeof(err))) {
		fprintf(stderr, "gfec-multigpu-bench: %s\n", err);
		return 2;
	}
	for (int i = 0; i < nctx; i++)
		if (std::find(gpus.begin(), gpus.end(), info[i].ordinal) == gpus.end())
			gpus.push_back(info[i].ordinal);
	const std::string first = std::to_string(info[0].ordinal);
	gfec_codec *one = codec(first);

	printf("gfec-multigpu-bench: RS(%d,%d), chunk %zu, %d stripes, -n %d; gpu_devices=%s: %d "
	       "contexts on %zu GPUs (of %d visible)\n",
	       K, M, chunk, ns, g_iters, list.c_str(), nctx, gpus.size(), count);
	for (int g : gpus) {
		const Ceil c = ceilings(g, (size_t)256 << 20);
		cudaDeviceProp p;

		ck(cudaGetDeviceProperties(&p, g), "cudaGetDeviceProperties");
		printf("GPU %d: %s, PCI %04x:%02x:%02x, %.1f GiB, %d SMs: D2D copy %.1f GB/s; pinned "
		       "H2D %.1f, D2H %.1f, both at once %.1f GB/s\n",
		       g, p.name, p.pciDomainID, p.pciBusID, p.pciDeviceID,
		       p.totalGlobalMem / 1073741824.0, p.multiProcessorCount, c.d2d, c.h2d, c.d2h,
		       c.both);
	}
	const double host_both = all_at_once(gpus, (size_t)256 << 20);

	printf("every GPU's pinned H2D + D2H at once: %.1f GB/s (pinned rows' bound: %.1f GB/s of "
	       "data)\n",
	       host_both, host_both * K / (K + M));

	// Device memory: --stripes on each GPU.
	Stripes mine, spread;

	add_stripes(mine, ns, chunk, gpus[0]);
	for (int g : gpus)
		add_stripes(spread, ns, chunk, g);
	const double d1 = rate(one, mine, chunk, &bad);
	const double dn = rate(all, spread, chunk, &bad);

	bad |= check(cpu, mine, 0, chunk) | check(cpu, mine, ns - 1, chunk);
	for (size_t s = 0; s < spread.blocks.size(); s += ns)
		bad |= check(cpu, spread, (int)s, chunk) | check(cpu, spread, (int)s + ns - 1, chunk);
	printf("RS(10,4) device memory, %d stripes per GPU: 1 context %.1f GB/s, %d contexts on %zu "
	       "GPUs %.1f GB/s: ratio %.2f\n",
	       ns, d1, nctx, gpus.size(), dn, dn / d1);
	free_stripes(mine);
	free_stripes(spread);

	// Pinned host memory: the same --stripes for both.
	Stripes pin;

	add_stripes(pin, ns, chunk, -1);
	const double p1 = rate(one, pin, chunk, &bad);
	bad |= check(cpu, pin, 0, chunk) | check(cpu, pin, ns - 1, chunk);
	for (uint8_t *q : pin.parity) // poisoned again: the second run must write them too
		memset(q, 0xa5, chunk);
	const double pn = rate(all, pin, chunk, &bad);
	bad |= check(cpu, pin, 0, chunk) | check(cpu, pin, ns - 1, chunk);
	printf("RS(10,4) pinned host memory, %d stripes: 1 context %.1f GB/s, %d contexts %.1f GB/s: "
	       "ratio %.2f (bound %.1f GB/s)\n",
	       ns, p1, nctx, pn, pn / p1, host_both * K / (K + M));
	free_stripes(pin);
	shares(all, "all");
	if (nc)
		bad |= nc_rows(list, nseg);
	printf("%s\n", bad ? "FAIL" : "every output matched backend=cpu");
	gfec_codec_free(one);
	gfec_codec_free(all);
	gfec_codec_free(cpu);
	return bad ? 1 : 0;
}
