// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file test_lt_gpu.cpp
 * LT codes' batched GPU encoder (gfec_gpu_lt.h) against the CPU's (gfmatrix/lt.c):
 *  - coded bytes: every block equals gfec_lt_encode()'s, byte for byte, for n in
 *    {1, 2, 128, 1024, 10240}, B from 1 byte to 4099 (odd sizes: the byte path; multiples of 16:
 *    the vector path), several seed ranges and segments per call, the degree table in host or
 *    device memory, outputs at a stride with poisoned guard bytes (for the vector path also 28
 *    bytes after each block header, as gfec_nc.h lays blocks out: 4-byte stores), segments at
 *    odd addresses;
 *    20,000 blocks at n = 10240, B = 1 KiB (blocks split into items of 64 neighbours, combined);
 *  - neighbour lists: with source block j the bitmap of {j} (B = n / 8), a coded block is the
 *    bitmap of its neighbour set, which must be gfec_lt_block()'s (n = 1024 and 10240);
 *  - refusals: host buffers (GFEC_E_NOTSUP), bad parameters (GFEC_E_INVAL), and an injected
 *    CUDA fault (gfec_backend_conf.fault) gives GFEC_E_DEVICE.
 * Exits 77 (ctest: skipped) without a usable GPU.
 */
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

extern "C" {
#include "gfec_gpu.h"
#include "gfec_gpu_lt.h"
#include "lt.h"
}

#include "kernel_check.h"

#define CUDA(call)                                                                                 \
	do {                                                                                       \
		if ((call) != cudaSuccess) {                                                       \
			fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #call);          \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

static uint32_t rng_state = 2463534242u;

static uint32_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 17;
	rng_state ^= rng_state << 5;
	return rng_state;
}

// A table for n, in host memory and a device copy.
struct Table {
	struct gfec_lt_dist *d = nullptr;
	uint32_t *dev = nullptr;

	explicit Table(uint32_t n)
	{
		if (gfec_lt_dist_create(n, GFEC_LT_DEFAULT_C, GFEC_LT_DEFAULT_DELTA, &d) != 0) {
			fprintf(stderr, "gfec_lt_dist_create(%u) failed\n", n);
			exit(1);
		}
		CUDA(cudaMalloc((void **)&dev, (size_t)n * 4));
		if (d->len)
			CUDA(cudaMemcpy(dev, d->cdf, (size_t)d->len * 4, cudaMemcpyHostToDevice));
	}
	~Table()
	{
		cudaFree(dev);
		gfec_lt_dist_free(d);
	}
};

// hdr: with B a multiple of 16, outputs 28 bytes past 16-byte alignment at a stride of B + 28
static void test_encode(void *ctx, uint32_t n, size_t B, uint32_t count, int nseg, int dev_cdf,
			int hdr = 0)
{
	Table tab(n);
	const int vec = B % 16 == 0;
	const size_t seg_bytes = (size_t)n * B, stride = vec ? B + (hdr ? 28 : 48) : B + 5;
	const size_t soff = vec ? 0 : 1 + rnd() % 15, ooff = vec ? (hdr ? 28 : 16) : 3;
	const uint32_t seed0 = rnd();
	const uint32_t s0 = (uint64_t)seed0 + count > UINT32_MAX ? UINT32_MAX - count + 1 : seed0;
	std::vector<uint8_t> h((size_t)nseg * seg_bytes), got((size_t)nseg * count * stride);
	std::vector<uint8_t> want((size_t)count * B);
	std::vector<const uint8_t *> segs(nseg);
	uint8_t *d_seg, *d_out;

	for (auto &x : h)
		x = (uint8_t)rnd();
	CUDA(cudaMalloc((void **)&d_seg, h.size() + soff));
	CUDA(cudaMalloc((void **)&d_out, got.size() + ooff));
	CUDA(cudaMemcpy(d_seg + soff, h.data(), h.size(), cudaMemcpyHostToDevice));
	CUDA(cudaMemset(d_out, 0x5A, got.size() + ooff));
	for (int s = 0; s < nseg; s++)
		segs[s] = d_seg + soff + s * seg_bytes;
	const int ret = gfec_gpu_lt_encode(ctx, n, B, dev_cdf ? tab.dev : tab.d->cdf, tab.d->len,
					   s0, count, nseg, segs.data(), d_out + ooff, stride);

	CHECK(ret == 0, "encode n=%u B=%zu count=%u nseg=%d hdr=%d: %d", n, B, count, nseg, hdr,
	      ret);
	CUDA(cudaMemcpy(got.data(), d_out + ooff, got.size(), cudaMemcpyDeviceToHost));
	for (int s = 0; s < nseg && ret == 0; s++) {
		CHECK(gfec_lt_encode(tab.d, h.data() + s * seg_bytes, B, s0, count, want.data(), B,
				     nullptr) == 0,
		      "gfec_lt_encode");
		for (uint32_t r = 0; r < count; r++) {
			const uint8_t *g = got.data() + ((size_t)s * count + r) * stride;

			CHECK(memcmp(g, want.data() + (size_t)r * B, B) == 0,
			      "encode n=%u B=%zu hdr=%d seg %d block %u (seed %u) differs from the "
			      "CPU",
			      n, B, hdr, s, r, s0 + r);
			for (size_t k = B; k < stride; k++)
				CHECK(g[k] == 0x5A, "encode n=%u B=%zu hdr=%d: wrote past block %u",
				      n, B, hdr, r);
		}
	}
	cudaFree(d_seg);
	cudaFree(d_out);
}

// Source block j = the n-bit bitmap of {j}: a coded block is the bitmap of its neighbours.
static void test_neighbours(void *ctx, uint32_t n, uint32_t count)
{
	Table tab(n);
	const size_t B = n / 8;
	std::vector<uint8_t> h((size_t)n * B, 0), got((size_t)count * B), want(B);
	std::vector<uint32_t> idx(n);
	uint8_t *d_seg, *d_out;

	for (uint32_t j = 0; j < n; j++)
		h[(size_t)j * B + j / 8] = (uint8_t)(1u << (j % 8));
	CUDA(cudaMalloc((void **)&d_seg, h.size()));
	CUDA(cudaMalloc((void **)&d_out, got.size()));
	CUDA(cudaMemcpy(d_seg, h.data(), h.size(), cudaMemcpyHostToDevice));
	CUDA(cudaMemset(d_out, 0x5A, got.size()));
	const uint8_t *seg = d_seg;
	const uint32_t seed0 = rnd() % 1000000;
	const int ret = gfec_gpu_lt_encode(ctx, n, B, tab.d->cdf, tab.d->len, seed0, count, 1, &seg,
					   d_out, B);

	CHECK(ret == 0, "neighbours n=%u: %d", n, ret);
	CUDA(cudaMemcpy(got.data(), d_out, got.size(), cudaMemcpyDeviceToHost));
	for (uint32_t r = 0; r < count && ret == 0; r++) {
		const uint32_t d = gfec_lt_block(tab.d, seed0 + r, idx.data());

		memset(want.data(), 0, B);
		for (uint32_t t = 0; t < d; t++)
			want[idx[t] / 8] |= (uint8_t)(1u << (idx[t] % 8));
		CHECK(memcmp(got.data() + (size_t)r * B, want.data(), B) == 0,
		      "neighbours n=%u seed %u (d=%u): the GPU's set differs from gfec_lt_block's",
		      n, seed0 + r, d);
	}
	cudaFree(d_seg);
	cudaFree(d_out);
}

static void test_refusals(void *ctx)
{
	Table tab(16);
	uint8_t host[64] = { 0 }, *d;
	const uint8_t *seg = host;
	const uint32_t *cdf = tab.d->cdf, len = tab.d->len;

	CUDA(cudaMalloc((void **)&d, 16 * 16 + 64));
	CHECK(gfec_gpu_lt_encode(ctx, 16, 1, cdf, len, 0, 1, 1, &seg, host + 32, 1) ==
		      GFEC_E_NOTSUP,
	      "a host segment must be refused");
	seg = d;
	CHECK(gfec_gpu_lt_encode(ctx, 16, 1, cdf, len, 0, 1, 1, &seg, host + 32, 1) ==
		      GFEC_E_NOTSUP,
	      "a host output must be refused");
	uint8_t *out = d + 16 * 16;
	CHECK(gfec_gpu_lt_encode(ctx, 16, 1, cdf, len, UINT32_MAX, 2, 1, &seg, out, 1) ==
		      GFEC_E_INVAL,
	      "seeds past 2^32 must be refused");
	CHECK(gfec_gpu_lt_encode(ctx, 16, 1, cdf, 16, 0, 1, 1, &seg, out, 1) == GFEC_E_INVAL,
	      "a table of n entries must be refused (degrees up to n + 1)");
	CHECK(gfec_gpu_lt_encode(ctx, 16, 2, cdf, len, 0, 1, 1, &seg, out, 1) == GFEC_E_INVAL,
	      "stride < B must be refused");
	CHECK(gfec_gpu_lt_encode(ctx, 65537, 1, cdf, len, 0, 1, 1, &seg, out, 1) == GFEC_E_INVAL,
	      "n past 65536 must be refused");
	CHECK(gfec_gpu_lt_encode(ctx, 16, 1, cdf, len, 0, 0, 1, &seg, out, 1) == GFEC_E_INVAL,
	      "count 0 must be refused");
	CHECK(gfec_gpu_lt_encode(ctx, 16, 1, cdf, len, 0, 1, 0, &seg, out, 1) == GFEC_E_INVAL,
	      "nseg 0 must be refused");
	CHECK(gfec_gpu_lt_encode(ctx, 16, 1, cdf, len, 0, 1, 1, &seg, out, 1) == 0, "a good call");

	struct gfec_backend_conf conf;
	void *fctx;

	memset(&conf, 0, sizeof(conf));
	conf.fault = 1;
	CHECK(gfec_gpu_backend()->init(&conf, &fctx) == 0, "fault context");
	CHECK(gfec_gpu_lt_encode(fctx, 16, 1, cdf, len, 0, 1, 1, &seg, out, 1) == GFEC_E_DEVICE,
	      "a fault must give GFEC_E_DEVICE");
	gfec_gpu_backend()->fini(fctx);
	cudaFree(d);
}

int main(void)
{
	struct gfec_backend_conf conf;
	void *ctx;

	memset(&conf, 0, sizeof(conf));
	if (gfec_gpu_backend()->init(&conf, &ctx) != 0) {
		printf("no usable GPU: skipped\n");
		return 77;
	}
	const uint32_t ns[] = { 1, 2, 128, 1024, 10240 };
	const size_t Bs[] = { 1, 15, 16, 1023, 1024, 4099 };
	int k = 0;

	for (uint32_t n : ns)
		for (size_t B : Bs) {
			if ((size_t)n * B > ((size_t)48 << 20))
				continue;
			for (int rep = 0; rep < 2; rep++, k++)
				test_encode(ctx, n, B, n >= 1024 ? 2000 : 500, 1 + (int)(rnd() % 3),
					    k & 1, rep);
		}
	test_encode(ctx, 10240, 1024, 20000, 1, 1);
	test_encode(ctx, 10240, 1024, 20000, 2, 0, 1);
	test_encode(ctx, 10240, 1024, 3000, 3, 0);
	test_neighbours(ctx, 1024, 3000);
	test_neighbours(ctx, 10240, 3000);
	test_refusals(ctx);
	gfec_gpu_backend()->fini(ctx);
	if (failures) {
		fprintf(stderr, "test_lt_gpu: %d failures\n", failures);
		return 1;
	}
	printf("test_lt_gpu: ok\n");
	return 0;
}
