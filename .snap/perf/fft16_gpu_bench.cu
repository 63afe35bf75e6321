// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file fft16_gpu_bench.cu
 * gfec-fft16-gpu-bench: technique=fft (w=16) on the GPU (issue 13): encode, and decode of m
 * losses (the first m data chunks), through the codec (gfec.h, backend=gpu) with every chunk in
 * GPU memory, each checked against the CPU (parity against the CPU codec's, decoded chunks
 * against the data), against a bound measured in the same process:
 *
 *   - the bytes the butterfly passes move, counted from fft16's own op lists (one call each
 *     through gfmatrix/fft16.h with the GPU backend's ops wrapped: per byte of an op FWD/INV 4
 *     region-bytes (x and y read and written; 3 at c = 0, x unchanged), MUL 2 (0 * y reads
 *     nothing but is counted so), a group of four ops 8 (its four regions read and written
 *     once), a GFEC_BFLY_SUMS run of r ops r + 2 (its y read and written once); as
 *     gfec-fft16-bench counts the CPU's);
 *   - the time a device-to-device cudaMemcpy takes to move as many bytes (read + written: a
 *     copy of half of them, in pieces of at most 1 GiB, median of 3): the time the passes would
 *     take if they ran at copy speed with free products and no launches. bound GB/s = data bytes /
 *     that time.
 *
 * GB/s = 10^9 bytes of DATA (k chunks) per second, wall clock around the whole synchronous codec
 * call (op lists built on the host, their uploads, every launch, the work memory and the final
 * stream synchronisation included), median of -n calls after one warm-up. Default shapes: issue
 * 13's (1000,200) and (32768,32768) at 64 KiB chunks.
 *
 *   gfec-fft16-gpu-bench [-k K -m M] [-l CHUNK_BYTES] [-n ITERS]
 *
 * Exit codes: 0 done, 1 a result differs from the CPU (or a call failed), 2 usage or CUDA error,
 * 77 no GPU.
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include "fft16.h"
#include "gemm.h"
#include "gfec/gfec.h"
#include "gfec_gpu.h"
#include "perf_gpu_util.h"
#include "perf_util.h"

static int g_iters = 5;

static PerfRng rnd{0x13198a2e03707344ull};

// The GPU backend's ops, counting the region bytes each list moves (see the top).
struct Counter {
	const struct gfec_backend_ops *b;
	void *ctx;
	double bytes;
};

static int counting_bfly(void *arg, int kind, int n, size_t len, uint8_t *const *x,
			 uint8_t *const *y, const uint16_t *c)
{
	Counter *k = static_cast<Counter *>(arg);

	if (kind & GFEC_BFLY_GROUP4)
		k->bytes += (double)len * 8 * (n / 4);
	else if (kind & GFEC_BFLY_SUMS) // a run: its y read and written once, each x read
		for (int p = 0; p < n; p++)
			k->bytes += (double)len * (p == 0 || y[p] != y[p - 1] ? 3 : 1);
	else
		for (int p = 0; p < n; p++)
			k->bytes += (double)len * ((kind & ~GFEC_BFLY_FLAGS) == GFEC_BFLY_MUL ? 2
						   : c[p]				      ? 4
											      : 3);
	return k->b->butterfly16(k->ctx, kind, n, len, x, y, c);
}

static void *counting_alloc(void *arg, size_t bytes)
{
	Counter *k = static_cast<Counter *>(arg);

	return k->b->bfly16_alloc(k->ctx, bytes);
}

static void counting_free(void *arg, void *p)
{
	Counter *k = static_cast<Counter *>(arg);

	k->b->bfly16_free(k->ctx, p);
}

static int counting_sync(void *arg)
{
	Counter *k = static_cast<Counter *>(arg);

	return k->b->bfly16_sync(k->ctx);
}

// Seconds a device-to-device copy takes to move @p bytes (read + written), median of 3.
static double copy_time(double bytes)
{
	const size_t half = (size_t)(bytes / 2), piece = std::min(half, (size_t)1 << 30);
	void *a, *b;

	CK(cudaMalloc(&a, piece ? piece : 1));
	CK(cudaMalloc(&b, piece ? piece : 1));
	CK(cudaMemset(a, 1, piece ? piece : 1));
	const double s = median_s(
		[&] {
			for (size_t done = 0; done < half; done += piece)
				CK(cudaMemcpy(b, a, std::min(piece, half - done),
					      cudaMemcpyDeviceToDevice));
			CK(cudaDeviceSynchronize());
		},
		3);
	cudaFree(a);
	cudaFree(b);
	return s;
}

static gfec_codec *make(int k, int m, const char *backend)
{
	char prof[160], err[256];
	gfec_codec *c = NULL;

	snprintf(prof, sizeof(prof), "k=%d m=%d w=16 technique=fft backend=%s", k, m, backend);
	if (gfec_codec_create(prof, &c, err, sizeof(err))) {
		fprintf(stderr, "gfec-fft16-gpu-bench: %s: %s\n", prof, err);
		exit(2);
	}
	return c;
}

// Device chunks equal to host ones (through a staging buffer): 0, or 1 with a message.
static int check(uint8_t *const *d, const uint8_t *const *h, int n, size_t len, const char *what)
{
	std::vector<uint8_t> b(len);

	for (int i = 0; i < n; i++) {
		CK(cudaMemcpy(b.data(), d[i], len, cudaMemcpyDeviceToHost));
		if (memcmp(b.data(), h[i], len)) {
			fprintf(stderr, "gfec-fft16-gpu-bench: %s: chunk %d differs from the CPU\n",
				what, i);
			return 1;
		}
	}
	return 0;
}

static void row(const char *what, int k, int m, size_t len, double s, double moved, double cs,
		int bad)
{
	const double data = (double)k * (double)len;

	printf("fft-gpu k=%d m=%d len=%zu %-12s %8.2f GB/s (%9.3f ms) | passes move %6.2f B per "
	       "data byte | D2D copy of them %9.3f ms: bound %8.2f GB/s | %.2f of bound | %s\n",
	       k, m, len, what, data / s / 1e9, s * 1e3, moved / data, cs * 1e3, data / cs / 1e9,
	       cs / s, bad ? "DIFFERS" : "checked");
}

static int run_shape(int k, int m, size_t len)
{
	const size_t n = (size_t)k + m;
	std::vector<uint8_t> host((size_t)k * len), cpar((size_t)m * len);
	std::vector<const uint8_t *> hd(k), ch(n);
	std::vector<uint8_t *> hp(m), dd(k), dp(m), dout(m), out(n, nullptr);
	uint8_t *dbuf;
	gfec_codec *gpu = make(k, m, "gpu"), *cpu = make(k, m, "cpu");
	int bad = 0;

	for (size_t i = 0; i < host.size(); i += 8) {
		const uint64_t r = rnd();

		memcpy(&host[i], &r, std::min((size_t)8, host.size() - i));
	}
	CK(cudaMalloc(&dbuf, (n + (size_t)m) * len));
	for (int j = 0; j < k; j++) {
		hd[j] = &host[(size_t)j * len];
		dd[j] = dbuf + (size_t)j * len;
	}
	for (int i = 0; i < m; i++) {
		hp[i] = &cpar[(size_t)i * len];
		dp[i] = dbuf + (size_t)(k + i) * len;
		dout[i] = dbuf + (n + (size_t)i) * len;
	}
	CK(cudaMemcpy(dbuf, host.data(), host.size(), cudaMemcpyHostToDevice));
	CK(cudaMemset(dp[0], 0xA5, (size_t)m * len));

	// encode: the codec on device buffers, then the CPU's parity to check it
	const double se = median_s(
		[&] {
			if (gfec_encode(gpu, dd.data(), dp.data(), len)) {
				fprintf(stderr, "gfec-fft16-gpu-bench: encode failed\n");
				exit(1);
			}
		},
		g_iters);
	if (gfec_encode(cpu, hd.data(), hp.data(), len)) {
		fprintf(stderr, "gfec-fft16-gpu-bench: the CPU encode failed\n");
		exit(1);
	}
	const int bad_e = check(dp.data(), (const uint8_t *const *)hp.data(), m, len, "encode");

	// decode of the first m data chunks into poisoned outputs, checked against the data
	for (size_t i = 0; i < n; i++)
		ch[i] = i < (size_t)k ? dd[i] : dp[i - k];
	for (int i = 0; i < m; i++) {
		ch[i] = nullptr;
		out[i] = dout[i];
	}
	CK(cudaMemset(dout[0], 0xA5, (size_t)m * len));
	const double sd = median_s(
		[&] {
			if (gfec_decode(gpu, ch.data(), out.data(), len)) {
				fprintf(stderr, "gfec-fft16-gpu-bench: decode failed\n");
				exit(1);
			}
		},
		g_iters);
	const int bad_d = check(dout.data(), hd.data(), m, len, "decode");

	// the bytes the passes move, counted from one call of each through fft16.h
	Counter cnt = { gfec_gpu_backend(), nullptr, 0 };
	struct gfec_backend_conf conf = {};
	struct gfec_fft16_code *code;

	if (cnt.b->init(&conf, &cnt.ctx) || gfec_fft16_code_create(k, m, GFEC_FFT16_AUTO, &code)) {
		fprintf(stderr, "gfec-fft16-gpu-bench: no GPU context or code for the count\n");
		exit(2);
	}
	const struct gfec_fft16_ops ops = { counting_bfly, &cnt, counting_alloc, counting_free,
					    cnt.b->bfly16_work(cnt.ctx), counting_sync, 1 };

	if (gfec_fft16_encode(code, &ops, len, (const uint8_t *const *)dd.data(), dp.data())) {
		fprintf(stderr, "gfec-fft16-gpu-bench: the counted encode failed\n");
		exit(1);
	}
	const double me = cnt.bytes;

	cnt.bytes = 0;
	if (gfec_fft16_decode(code, &ops, len, ch.data(), out.data())) {
		fprintf(stderr, "gfec-fft16-gpu-bench: the counted decode failed\n");
		exit(1);
	}
	const double md = cnt.bytes;

	gfec_fft16_code_free(code);
	cnt.b->fini(cnt.ctx);
	bad = bad_e | bad_d;
	row("encode", k, m, len, se, me, copy_time(me), bad_e);
	char what[32];

	snprintf(what, sizeof(what), "decode %d", m);
	row(what, k, m, len, sd, md, copy_time(md), bad_d);
	fflush(stdout);
	cudaFree(dbuf);
	gfec_codec_free(gpu);
	gfec_codec_free(cpu);
	return bad;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: gfec-fft16-gpu-bench [-k K -m M] [-l CHUNK_BYTES] [-n ITERS]\n"
		   "  technique=fft encode and decode of m losses on GPU memory, checked against the\n"
		   "  CPU, beside the device copy of the bytes its passes move. Default: (1000,200)\n"
		   "  and (32768,32768) at 64 KiB.\n");
}

int main(int argc, char **argv)
{
	int k = 0, m = 0, opt, ndev = 0, bad = 0;
	size_t len = 65536;
	cudaDeviceProp prop;

	while ((opt = getopt(argc, argv, "k:m:l:n:h")) != -1) {
		switch (opt) {
		case 'k':
			k = atoi(optarg);
			break;
		case 'm':
			m = atoi(optarg);
			break;
		case 'l':
			len = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			g_iters = atoi(optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if ((k != 0) != (m != 0) || k < 0 || m < 0 || g_iters < 1 || len < 2 || len % 2) {
		fprintf(stderr, "gfec-fft16-gpu-bench: -k and -m go together (k, m >= 1); -n >= 1; "
				"-l even\n");
		return 2;
	}
	if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1) {
		fprintf(stderr, "gfec-fft16-gpu-bench: no GPU\n");
		return 77;
	}
	CK(cudaGetDeviceProperties(&prop, 0));
	printf("# gfec-fft16-gpu-bench -n %d -l %zu%s on %s (%d SMs, %.0f GiB)\n", g_iters, len,
	       k ? "" : " (issue 13's shapes)", prop.name, prop.multiProcessorCount,
	       (double)prop.totalGlobalMem / (1 << 30));
	if (k)
		return run_shape(k, m, len);
	bad |= run_shape(1000, 200, len);
	bad |= run_shape(32768, 32768, len);
	return bad;
}
