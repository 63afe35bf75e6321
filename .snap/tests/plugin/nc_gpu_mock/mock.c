/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file mock.c
 * Test nc_gpu_mock: plugin/nc_gpu.c's GPU logic (staging, headers into and out of device blocks,
 * the two-round batch decode, fallbacks, refusals) on a host without a GPU. "Device memory" is
 * host memory this file handed out and records; the GPU backend table and gfec_gpu_nc.h's entry
 * points are plain-C models with the contracts the CUDA ones document (device pointers checked,
 * GFEC_E_NOTSUP past their n, singular segments and segments with a bad block flagged and left
 * untouched, every call failing with GFEC_E_DEVICE under the fault knob; headers read with the
 * device's own nc_hdr.h, LT neighbours drawn with its lt_dist.h). The test binary links these
 * ahead of libgfec's own.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_runtime_api.h"
#include "gemm.h"
#include "gf8.h"
#include "gfec/gfec_errors.h"
#include "gfec_gpu.h"
#include "gfec_gpu_lt.h"
#include "gfec_gpu_nc.h"
#include "lt_dist.h"
#include "nc_hdr.h"
#include "nc_prng.h"

/* the decoder's and the encoder's widths on the modelled device */
#define MOCK_MAX_DECODE_N 340
#define MOCK_MAX_ENCODE_N 1000

static struct range {
	uintptr_t a, b;
} * ranges;
static size_t nranges, cap;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *dev_alloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	pthread_mutex_lock(&lock);
	if (nranges == cap) {
		cap = cap ? 2 * cap : 64;
		ranges = realloc(ranges, cap * sizeof(*ranges));
		if (!ranges)
			abort();
	}
	ranges[nranges++] = (struct range){(uintptr_t)p, (uintptr_t)p + (n ? n : 1)};
	pthread_mutex_unlock(&lock);
	return p;
}

static void dev_free(void *p)
{
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < nranges; i++)
		if (ranges[i].a == (uintptr_t)p) {
			ranges[i] = ranges[--nranges];
			break;
		}
	pthread_mutex_unlock(&lock);
	free(p);
}

static int is_dev(const void *p, size_t len)
{
	const uintptr_t a = (uintptr_t)p;
	int r = 0;

	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < nranges && !r; i++)
		r = a >= ranges[i].a && a + (len ? len : 1) <= ranges[i].b;
	pthread_mutex_unlock(&lock);
	return r;
}

/* a device access outside device memory is a bug in nc_gpu.c: the test dies on it */
static void must_be_dev(const void *p, size_t len)
{
	if (!is_dev(p, len))
		abort();
}

cudaError_t cudaMalloc(void **p, size_t n)
{
	*p = dev_alloc(n);
	return cudaSuccess;
}

cudaError_t cudaFree(void *p)
{
	if (p)
		dev_free(p);
	return cudaSuccess;
}

cudaError_t cudaMemcpy(void *d, const void *s, size_t n, enum cudaMemcpyKind k)
{
	must_be_dev(k == cudaMemcpyHostToDevice ? d : s, n);
	memcpy(d, s, n);
	return cudaSuccess;
}

cudaError_t cudaMemset(void *d, int v, size_t n)
{
	must_be_dev(d, n);
	memset(d, v, n);
	return cudaSuccess;
}

struct ctx {
	int fault;
};

static int m_init(const struct gfec_backend_conf *conf, void **out)
{
	struct ctx *c = malloc(sizeof(*c));

	if (!c)
		return GFEC_E_NOMEM;
	c->fault = conf->fault;
	*out = c;
	return 0;
}

static void m_fini(void *c)
{
	free(c);
}

static int m_is_device_ptr(void *c, const void *p)
{
	(void)c;
	return is_dev(p, 1);
}

static const struct gfec_backend_ops mock_ops = {
    .init = m_init, .fini = m_fini, .is_device_ptr = m_is_device_ptr};

const struct gfec_backend_ops *gfec_backend_gpu(void)
{
	return &mock_ops;
}

/* Two modelled GPUs; every allocation lies on GPU 0, so contexts on GPU 1 see host buffers only. */
int gfec_gpu_device_count(void)
{
	return 2;
}

int gfec_gpu_ptr_device(const void *p)
{
	return is_dev(p, 1) ? 0 : -1;
}

void gfec_gpu_device_info(int ordinal, struct gfec_backend_device *out)
{
	memset(out, 0, sizeof(*out));
	out->ordinal = ordinal;
	strcpy(out->name, "nc_gpu_mock");
	out->pci_bus = ordinal;
}

#define FAULT(ctx)                                                                                 \
	do {                                                                                       \
		if (((struct ctx *)(ctx))->fault)                                                  \
			return GFEC_E_DEVICE;                                                      \
	} while (0)

int gfec_gpu_nc_max_decode_n(void *ctx)
{
	(void)ctx;
	return MOCK_MAX_DECODE_N;
}

int gfec_gpu_nc_alloc(void *ctx, size_t bytes, void **p)
{
	FAULT(ctx);
	*p = dev_alloc(bytes);
	return 0;
}

void gfec_gpu_nc_free(void *ctx, void *p)
{
	(void)ctx;
	if (p)
		dev_free(p);
}

int gfec_gpu_nc_memcpy(void *ctx, void *dst, const void *src, size_t bytes)
{
	FAULT(ctx);
	if (bytes) {
		if (!is_dev(dst, bytes) && !is_dev(src, bytes))
			abort(); /* host to host is not what these are for */
		memcpy(dst, src, bytes);
	}
	return 0;
}

int gfec_gpu_nc_memcpy2d(void *ctx, void *dst, size_t dpitch, const void *src, size_t spitch,
			 size_t width, size_t height)
{
	FAULT(ctx);
	if (dpitch < width || spitch < width)
		abort(); /* the plugin never asks this */
	for (size_t r = 0; r < height && width; r++) {
		uint8_t *d = (uint8_t *)dst + r * dpitch;
		const uint8_t *s = (const uint8_t *)src + r * spitch;

		if (!is_dev(d, width) && !is_dev(s, width))
			abort(); /* host to host is not what these are for */
		memcpy(d, s, width);
	}
	return 0;
}

int gfec_gpu_nc_seed_headers(void *ctx, const uint8_t *tmpl, size_t hlen, size_t seed_off, int nseg,
			     uint32_t seed0, uint32_t count, uint8_t *out, size_t stride)
{
	FAULT(ctx);
	if (!tmpl || !out || nseg < 1 || count < 1 || hlen < 4 || seed_off > hlen - 4 ||
	    stride < hlen)
		return GFEC_E_INVAL;
	if (!is_dev(out, 1))
		return GFEC_E_NOTSUP;
	for (size_t i = 0; i < (size_t)nseg * count; i++) {
		const uint32_t seed = seed0 + (uint32_t)(i % count);
		uint8_t *d = out + i * stride;

		must_be_dev(d, hlen);
		memcpy(d, tmpl + i / count * hlen, hlen);
		for (int b = 0; b < 4; b++)
			d[seed_off + b] = (uint8_t)(seed >> (8 * b));
	}
	return 0;
}

int gfec_gpu_nc_copy_pieces(void *ctx, size_t count, const uint8_t *const *src, const size_t *len,
			    uint8_t *const *dst)
{
	FAULT(ctx);
	if (!count)
		return 0;
	if (!is_dev(src[0], 1) || !is_dev(dst[0], 1))
		return GFEC_E_NOTSUP;
	for (size_t i = 0; i < count; i++) {
		if (len[i]) {
			must_be_dev(src[i], len[i]);
			must_be_dev(dst[i], len[i]);
			memcpy(dst[i], src[i], len[i]);
		}
	}
	return 0;
}

int gfec_gpu_nc_encode(void *ctx, uint32_t n, size_t B, int zero_ok, uint32_t seed0, uint32_t count,
		       int nseg, const uint8_t *const *segs, uint8_t *const *out)
{
	FAULT(ctx);
	if (!is_dev(segs[0], 1) || !is_dev(out[0], 1) || n > MOCK_MAX_ENCODE_N)
		return GFEC_E_NOTSUP;
	for (int s = 0; s < nseg; s++) {
		must_be_dev(segs[s], (size_t)n * B);
		for (uint32_t r = 0; r < count; r++) {
			uint8_t *o = out[(size_t)s * count + r];
			const uint32_t key = gfec_nc_prng_key(seed0 + r);

			must_be_dev(o, B);
			memset(o, 0, B);
			for (uint32_t j = 0; j < n; j++) {
				const uint8_t *t =
				    gfec_gf8_tab.mul[gfec_nc_prng_coef(key, j, zero_ok)];

				for (size_t i = 0; i < B; i++)
					o[i] ^= t[segs[s][j * B + i]];
			}
		}
	}
	return 0;
}

/* Gauss-Jordan with row swaps (not nc.c's method): inv = m^-1, or 1 when m is singular. */
static int invert(uint8_t *m, uint8_t *inv, uint32_t n)
{
	memset(inv, 0, (size_t)n * n);
	for (uint32_t i = 0; i < n; i++)
		inv[i * n + i] = 1;
	for (uint32_t c = 0; c < n; c++) {
		uint32_t p = c;

		while (p < n && !m[p * n + c])
			p++;
		if (p == n)
			return 1;
		for (uint32_t k = 0; k < n; k++) {
			uint8_t t = m[c * n + k];

			m[c * n + k] = m[p * n + k], m[p * n + k] = t;
			t = inv[c * n + k];
			inv[c * n + k] = inv[p * n + k], inv[p * n + k] = t;
		}
		const uint8_t iv = gfec_gf8_inv(m[c * n + c]);

		for (uint32_t k = 0; k < n; k++) {
			m[c * n + k] = gfec_gf8_mul(m[c * n + k], iv);
			inv[c * n + k] = gfec_gf8_mul(inv[c * n + k], iv);
		}
		for (uint32_t r = 0; r < n; r++) {
			const uint8_t f = m[r * n + c];

			for (uint32_t k = 0; r != c && f && k < n; k++) {
				m[r * n + k] ^= gfec_gf8_mul(f, m[c * n + k]);
				inv[r * n + k] ^= gfec_gf8_mul(f, inv[c * n + k]);
			}
		}
	}
	return 0;
}

int gfec_gpu_nc_decode_batch(void *ctx, uint32_t n, size_t B, int nseg, const uint8_t *coefs,
			     const uint8_t *const *in, uint8_t *const *out, int *status)
{
	uint8_t *m, *inv;
	int bad = 0;

	FAULT(ctx);
	if (n > MOCK_MAX_DECODE_N || !is_dev(in[0], 1) || !is_dev(out[0], 1))
		return GFEC_E_NOTSUP;
	m = malloc((size_t)n * n);
	inv = malloc((size_t)n * n);
	if (!m || !inv)
		abort();
	for (int s = 0; s < nseg; s++) {
		memcpy(m, coefs + (size_t)s * n * n, (size_t)n * n);
		status[s] = invert(m, inv, n) ? GFEC_E_TOOFEW : 0;
		bad |= status[s] != 0;
		for (uint32_t j = 0; !status[s] && j < n; j++) {
			uint8_t *o = out[(size_t)s * n + j];

			must_be_dev(o, B);
			memset(o, 0, B);
			for (uint32_t r = 0; r < n; r++) {
				const uint8_t *x = in[(size_t)s * n + r];
				const uint8_t *t = gfec_gf8_tab.mul[inv[j * n + r]];

				must_be_dev(x, B);
				for (size_t i = 0; i < B; i++)
					o[i] ^= t[x[i]];
			}
		}
	}
	free(m);
	free(inv);
	return bad ? GFEC_E_TOOFEW : 0;
}

/* The device's header reading is nc_hdr.h's, as in cuda_gemm's nc_parse_blocks. */
int gfec_gpu_nc_decode_blocks(void *ctx, uint32_t n, size_t B, int zero_ok, int nseg,
			      const uint64_t *ids, const uint8_t *const *blocks, const size_t *lens,
			      uint8_t *const *out, int *status)
{
	uint8_t *rows = malloc((size_t)n * n);
	const uint8_t **in = malloc(sizeof(*in) * n);
	int bad = 0;

	FAULT(ctx);
	if (n > MOCK_MAX_DECODE_N || !is_dev(blocks[0], 1) || !is_dev(out[0], 1)) {
		free(rows);
		free(in);
		return GFEC_E_NOTSUP;
	}
	if (!rows || !in)
		abort();
	for (int s = 0; s < nseg; s++) {
		const uint8_t *const *blk = blocks + (size_t)s * n;
		int ok = 1;

		for (uint32_t r = 0; r < n && ok; r++) {
			const size_t len = lens[(size_t)s * n + r];
			struct gfec_nc_hdr_row h;

			must_be_dev(blk[r], len); /* the device reads what the caller says is there */
			h = gfec_nc_hdr_parse(blk[r], len, n, (uint32_t)B, ids[s], zero_ok);
			ok = h.how != 0;
			for (uint32_t j = 0; ok && j < n; j++)
				rows[(size_t)r * n + j] = gfec_nc_hdr_coef(h, blk[r], j, zero_ok);
			in[r] = blk[r] + h.off;
		}
		if (!ok) {
			status[s] = GFEC_E_FORMAT;
			bad = 1;
			continue;
		}
		if (gfec_gpu_nc_decode_batch(ctx, n, B, 1, rows, in, out + (size_t)s * n, status + s))
			bad = 1;
	}
	free(rows);
	free(in);
	return bad ? GFEC_E_TOOFEW : 0;
}

/* The device's degree and neighbour draws are lt_dist.h's, as in cuda_gemm's lt_gpu.cuh. */
int gfec_gpu_lt_encode(void *ctx, uint32_t n, size_t B, const uint32_t *cdf, uint32_t len,
		       uint32_t seed0, uint32_t count, int nseg, const uint8_t *const *segs,
		       uint8_t *out, size_t stride)
{
	uint32_t *idx;

	FAULT(ctx);
	if (!cdf || !segs || !out || n < 1 || len >= n || B < 1 || stride < B || count < 1 ||
	    nseg < 1 || (uint64_t)seed0 + count > (1ull << 32))
		return GFEC_E_INVAL;
	if (!is_dev(segs[0], 1) || !is_dev(out, 1))
		return GFEC_E_NOTSUP;
	idx = malloc(sizeof(*idx) * n);
	if (!idx)
		abort();
	for (int s = 0; s < nseg; s++) {
		must_be_dev(segs[s], (size_t)n * B);
		for (uint32_t r = 0; r < count; r++) {
			uint8_t *o = out + ((size_t)s * count + r) * stride;
			const uint32_t key = gfec_nc_prng_key(seed0 + r);
			const uint32_t d = gfec_lt_degree(cdf, len, key);

			must_be_dev(o, B);
			memset(o, 0, B);
			gfec_lt_neighbours(key, n, d, idx);
			for (uint32_t j = 0; j < d; j++)
				for (size_t i = 0; i < B; i++)
					o[i] ^= segs[s][(size_t)idx[j] * B + i];
		}
	}
	free(idx);
	return 0;
}
