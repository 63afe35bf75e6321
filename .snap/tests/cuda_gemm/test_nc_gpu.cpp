// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file test_nc_gpu.cpp
 * Network coding on the GPU backend (gfec_gpu_nc.h) against the CPU:
 *  - seeded encode: every coded block equals the CPU's sum of gfec_nc_prng_row(seed) x blocks,
 *    byte for byte, for n in {1, 2, 16, 128, 255, 256, 1024}, B from 1 byte to 1 MiB, odd sizes,
 *    segments and outputs at odd addresses (outputs spaced as in the block format, or in a
 *    random order), several segments per call (past the 32 whose bases travel in the launch
 *    parameters), row counts across the kernel's row tiles, both coefficient ranges; and so with
 *    every shape of the kernel (nc_encode.h), not only the one gfec_gpu_nc_encode picks;
 *  - batch decode of 1 to 10,000 segments (coefficients in host or device memory; each segment
 *    with its own seeds, some with source blocks
 *    among the coded ones, in any order) gives back every segment; singular segments (a repeated
 *    block, and the random matrices the CPU's gfec_matrix_invert finds singular) are flagged
 *    GFEC_E_TOOFEW and their outputs left untouched;
 *  - host buffers are refused (GFEC_E_NOTSUP), n past gfec_gpu_nc_max_decode_n too, and an
 *    injected CUDA fault (gfec_backend_conf.fault) gives GFEC_E_DEVICE.
 * Exits 77 (ctest: skipped) without a usable GPU.
 */
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include "device/nc_encode.h"

extern "C" {
#include "gf8.h"
#include "gfec_gpu.h"
#include "gfec_gpu_nc.h"
#include "matrix.h"
#include "nc_prng.h"
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

static void fill(std::vector<uint8_t> &v)
{
	for (auto &x : v)
		x = (uint8_t)rnd();
}

// dst (B bytes) = sum_j c[j] * block j of seg.
static void cpu_row(const uint8_t *c, const uint8_t *seg, uint32_t n, size_t B, uint8_t *dst)
{
	memset(dst, 0, B);
	for (uint32_t j = 0; j < n; j++) {
		const uint8_t *mul = gfec_gf8_tab.mul[c[j]], *src = seg + (size_t)j * B;

		for (size_t b = 0; b < B; b++)
			dst[b] ^= mul[src[b]];
	}
}

// shape -1: gfec_gpu_nc_encode; else that shape of gfec::nc_encode (skipped where it cannot fit n).
// Outputs evenly spaced (the pointers are then made on the device), or with shuffle in a random
// order (uploaded).
static void test_encode(void *ctx, uint32_t n, size_t B, uint32_t count, int nseg, int zero_ok,
			int shape = -1, bool shuffle = false)
{
	const size_t seg_bytes = (size_t)n * B, stride = 28 + B; // outputs spaced as blocks
	const uint32_t seed0 = rnd() % 100000;
	const size_t soff = 1 + rnd() % 15;
	std::vector<uint8_t> h((size_t)nseg * seg_bytes), got(stride * nseg * count), want(B);
	std::vector<uint8_t> c(n);
	uint8_t *d_seg, *d_out;
	std::vector<const uint8_t *> segs(nseg);
	std::vector<uint8_t *> out((size_t)nseg * count);

	fill(h);
	CUDA(cudaMalloc((void **)&d_seg, h.size() + soff));
	CUDA(cudaMalloc((void **)&d_out, got.size()));
	CUDA(cudaMemcpy(d_seg + soff, h.data(), h.size(), cudaMemcpyHostToDevice));
	CUDA(cudaMemset(d_out, 0x5A, got.size()));
	for (int s = 0; s < nseg; s++)
		segs[s] = d_seg + soff + s * seg_bytes;
	std::vector<size_t> slot(out.size());
	for (size_t i = 0; i < out.size(); i++)
		slot[i] = i;
	for (size_t i = out.size(); shuffle && i > 1; i--) {
		const size_t j = rnd() % i, t = slot[i - 1];

		slot[i - 1] = slot[j], slot[j] = t;
	}
	for (size_t i = 0; i < out.size(); i++)
		out[i] = d_out + slot[i] * stride + 28;
	const int ret = shape < 0 ? gfec_gpu_nc_encode(ctx, n, B, zero_ok, seed0, count, nseg,
						       segs.data(), out.data())
				  : gfec::nc_encode(ctx, shape, n, B, zero_ok, seed0, count, nseg,
						    segs.data(), out.data());

	// A shape may not fit n: the ra_ shapes (A in registers) take n <= 128, the others <= 256
	// at least.
	if (shape >= 0 && ret == GFEC_E_NOTSUP &&
	    n > (strncmp(gfec::nc_encode_shape_name(shape), "ra_", 3) ? 256u : 128u)) {
		cudaFree(d_seg);
		cudaFree(d_out);
		return;
	}
	CHECK(ret == 0, "encode n=%u B=%zu count=%u nseg=%d shape %d: %d", n, B, count, nseg, shape,
	      ret);
	CUDA(cudaMemcpy(got.data(), d_out, got.size(), cudaMemcpyDeviceToHost));
	for (int s = 0; s < nseg && ret == 0; s++)
		for (uint32_t r = 0; r < count; r++) {
			const uint8_t *g = got.data() + slot[(size_t)s * count + r] * stride;

			gfec_nc_prng_row(seed0 + r, n, zero_ok, c.data());
			cpu_row(c.data(), h.data() + s * seg_bytes, n, B, want.data());
			CHECK(memcmp(g + 28, want.data(), B) == 0,
			      "encode n=%u B=%zu seg %d row %u (seed %u, zero_ok %d) differs", n, B, s,
			      r, seed0 + r, zero_ok);
			for (int k = 0; k < 28; k++)
				CHECK(g[k] == 0x5A, "encode n=%u B=%zu: wrote outside block %u", n, B, r);
		}
	cudaFree(d_seg);
	cudaFree(d_out);
}

// nseg segments of n blocks of B bytes; segment s gets its own seeds (encoded on the GPU, which
// test_encode checked against the CPU); s % 5 == 1 also takes source blocks among the coded
// ones (unit rows, reversed), s % 97 == 3 repeats a block (singular).
static void test_decode(void *ctx, uint32_t n, size_t B, int nseg, int dev_coefs)
{
	const size_t seg_bytes = (size_t)n * B;
	std::vector<uint8_t> h((size_t)nseg * seg_bytes), got(h.size());
	std::vector<uint8_t> coefs((size_t)nseg * n * n);
	std::vector<const uint8_t *> in((size_t)nseg * n);
	std::vector<uint8_t *> out((size_t)nseg * n);
	std::vector<int> status(nseg, 99);
	uint8_t *d_src, *d_coded, *d_out;

	fill(h);
	CUDA(cudaMalloc((void **)&d_src, h.size()));
	CUDA(cudaMalloc((void **)&d_coded, h.size()));
	CUDA(cudaMalloc((void **)&d_out, h.size()));
	CUDA(cudaMemcpy(d_src, h.data(), h.size(), cudaMemcpyHostToDevice));
	CUDA(cudaMemset(d_out, 0x5A, h.size()));
	for (int s = 0; s < nseg; s++) {
		const uint32_t seed0 = 1000u * (uint32_t)s + 7;
		const uint8_t *seg = d_src + s * seg_bytes;
		std::vector<uint8_t *> co(n);

		for (uint32_t r = 0; r < n; r++) {
			co[r] = d_coded + s * seg_bytes + r * B;
			in[(size_t)s * n + r] = co[r];
			out[(size_t)s * n + r] = d_out + s * seg_bytes + r * B;
			gfec_nc_prng_row(seed0 + r, n, 0, &coefs[((size_t)s * n + r) * n]);
		}
		const int ret = gfec_gpu_nc_encode(ctx, n, B, 0, seed0, n, 1, &seg, co.data());
		CHECK(ret == 0, "decode setup: encode %d", ret);
		if (s % 5 == 1)
			for (uint32_t r = 0; r < n / 2; r++) {
				const uint32_t src = n / 2 - r;
				uint8_t *row = &coefs[((size_t)s * n + r) * n];

				memset(row, 0, n);
				row[src] = 1;
				in[(size_t)s * n + r] = seg + src * B;
			}
		if (s % 97 == 3 && n > 1) {
			memcpy(&coefs[((size_t)s * n + n - 1) * n], &coefs[(size_t)s * n * n], n);
			in[(size_t)s * n + n - 1] = in[(size_t)s * n];
		}
	}
	uint8_t *d_coefs = nullptr;
	if (dev_coefs) {
		CUDA(cudaMalloc((void **)&d_coefs, coefs.size()));
		CUDA(cudaMemcpy(d_coefs, coefs.data(), coefs.size(), cudaMemcpyHostToDevice));
	}
	const int ret = gfec_gpu_nc_decode_batch(ctx, n, B, nseg, dev_coefs ? d_coefs : coefs.data(),
						 in.data(), out.data(), status.data());
	cudaFree(d_coefs);
	int nsing = 0;

	CUDA(cudaMemcpy(got.data(), d_out, got.size(), cudaMemcpyDeviceToHost));
	std::vector<uint8_t> a((size_t)n * n), inv((size_t)n * n);
	for (int s = 0; s < nseg; s++) {
		const uint8_t *g = got.data() + s * seg_bytes;

		memcpy(a.data(), &coefs[(size_t)s * n * n], a.size());
		const int sing = gfec_matrix_invert(a.data(), inv.data(), (int)n) != 0;

		CHECK(sing || !(s % 97 == 3 && n > 1), "decode n=%u seg %d: a repeated row", n, s);
		nsing += sing;
		if (sing) {
			size_t touched = 0;

			CHECK(status[s] == GFEC_E_TOOFEW, "decode n=%u seg %d: singular, status %d", n, s,
			      status[s]);
			for (size_t b = 0; b < seg_bytes; b++)
				touched += g[b] != 0x5A;
			CHECK(touched == 0, "decode n=%u seg %d: singular but %zu bytes written", n, s,
			      touched);
		} else {
			CHECK(status[s] == 0, "decode n=%u B=%zu seg %d: status %d", n, B, s, status[s]);
			CHECK(memcmp(g, h.data() + s * seg_bytes, seg_bytes) == 0,
			      "decode n=%u B=%zu nseg=%d: segment %d differs", n, B, nseg, s);
		}
	}
	CHECK(ret == (nsing ? GFEC_E_TOOFEW : 0), "decode n=%u nseg=%d: returned %d", n, nseg, ret);
	cudaFree(d_src);
	cudaFree(d_coded);
	cudaFree(d_out);
}

static void test_refusals(void *ctx)
{
	uint8_t host[64] = { 0 }, *d;
	const uint8_t *seg = host;
	uint8_t *out = host + 32;
	uint8_t coef = 1;
	int status;

	CHECK(gfec_gpu_nc_encode(ctx, 1, 16, 0, 0, 1, 1, &seg, &out) == GFEC_E_NOTSUP,
	      "host buffers must be refused");
	CHECK(gfec_gpu_nc_encode(ctx, 1, 16, 0, UINT32_MAX, 2, 1, &seg, &out) == GFEC_E_INVAL,
	      "seeds past 2^32 must be refused");
	CHECK(gfec_gpu_nc_decode_batch(ctx, 1, 16, 1, &coef, &seg, &out, &status) == GFEC_E_NOTSUP,
	      "host buffers must be refused (decode)");
	const int maxn = gfec_gpu_nc_max_decode_n(ctx);
	CHECK(maxn >= 128, "max decode n %d", maxn);
	CUDA(cudaMalloc((void **)&d, 64));
	seg = d, out = d + 32;
	std::vector<uint8_t> big((size_t)(maxn + 1) * (maxn + 1));
	std::vector<const uint8_t *> ins(maxn + 1, d);
	std::vector<uint8_t *> outs(maxn + 1, d + 32);
	CHECK(gfec_gpu_nc_decode_batch(ctx, maxn + 1, 16, 1, big.data(), ins.data(), outs.data(),
				       &status) == GFEC_E_NOTSUP,
	      "n past the maximum must be refused");

	struct gfec_backend_conf conf;
	void *fctx;

	memset(&conf, 0, sizeof(conf));
	conf.fault = 1;
	CHECK(gfec_gpu_backend()->init(&conf, &fctx) == 0, "fault context");
	CHECK(gfec_gpu_nc_encode(fctx, 1, 16, 0, 0, 1, 1, &seg, &out) == GFEC_E_DEVICE,
	      "a fault must give GFEC_E_DEVICE (encode)");
	CHECK(gfec_gpu_nc_decode_batch(fctx, 1, 16, 1, &coef, &seg, &out, &status) == GFEC_E_DEVICE,
	      "a fault must give GFEC_E_DEVICE (decode)");
	gfec_gpu_backend()->fini(fctx);
	cudaFree(d);
}

int main(void)
{
	struct gfec_backend_conf conf;
	void *ctx;

	memset(&conf, 0, sizeof(conf));
	gfec_gf8_init();
	if (gfec_gpu_backend()->init(&conf, &ctx) != 0) {
		printf("no usable GPU: skipped\n");
		return 77;
	}
	const uint32_t ns[] = { 1, 2, 16, 128, 255, 256, 1024 };
	const size_t Bs[] = { 1, 15, 64, 4099, 65536 };

	for (uint32_t n : ns)
		for (size_t B : Bs) {
			if ((size_t)n * B > ((size_t)64 << 20))
				continue;
			test_encode(ctx, n, B, n >= 256 ? 9 : 133, 1 + (int)(rnd() % 3), (int)(rnd() & 1));
		}
	test_encode(ctx, 2, (size_t)1 << 20, 17, 2, 0);
	test_encode(ctx, 16, ((size_t)1 << 20) - 3, 3, 1, 1);
	test_encode(ctx, 1024, 4096, 300, 1, 0);
	test_encode(ctx, 128, 4096, 100, 3, 0, -1, true); // outputs in no order: uploaded
	test_encode(ctx, 16, 64, 20, 150, 1);		  // more segments than travel inline
	for (int sh = 0; sh < gfec::nc_encode_shapes(); sh++) {
		test_encode(ctx, 128, 4096, 133, 3, 0, sh);
		test_encode(ctx, 128, 4099, 200, 2, 1, sh);
		test_encode(ctx, 255, 1000, 70, 1, 0, sh);
		test_encode(ctx, 16, 64, 1025, 2, 1, sh);
		test_encode(ctx, 33, 4108, 64, 2, 0, sh); // two k-steps
		test_encode(ctx, 70, 1000, 90, 2, 1, sh); // three
		test_encode(ctx, 1024, 4096, 20, 1, 0, sh);
	}

	test_decode(ctx, 1, 100, 7, 0);
	test_decode(ctx, 2, 33, 30, 1);
	test_decode(ctx, 16, 64, 10000, 0);
	test_decode(ctx, 33, 4096, 50, 1);
	test_decode(ctx, 70, 1000, 40, 0);
	test_decode(ctx, 128, 4096, 1024, 0);
	test_decode(ctx, 128, 4099, 60, 1);
	test_decode(ctx, 255, 1000, 100, 0);
	test_decode(ctx, 256, 4096, 20, 0);
	test_refusals(ctx);
	gfec_gpu_backend()->fini(ctx);
	if (failures) {
		fprintf(stderr, "test_nc_gpu: %d failures\n", failures);
		return 1;
	}
	printf("test_nc_gpu: ok\n");
	return 0;
}
