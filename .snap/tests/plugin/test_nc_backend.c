/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_nc_backend.c
 * gfec_nc_params.backend through the public API (gfec_nc.h).
 *
 *   test_nc_backend       runs everywhere: the backend choices, backend=gpu refused with
 *                         GFEC_E_NOBACKEND where there is no GPU (also under GFEC_FAULT=cuda),
 *                         auto and cpu writing the same bytes on host buffers.
 *   test_nc_backend model the gpu mode's checks against tests/plugin/nc_gpu_mock's plain-C GPU
 *                         (smaller shapes), on any host: test nc_gpu_mock.
 *   test_nc_backend gpu   (label gpu; exit 77 without a usable GPU) encode and batch decode on
 *                         device buffers and on host buffers staged through the GPU, byte for
 *                         byte against the CPU backend: n in {1, 2, 16, 128, 255, 256, 1024}, B
 *                         from 1 byte to 1 MiB, odd sizes and alignments; batch decodes of 1 to
 *                         10,000 segments with singular, short, bad, truncated and foreign
 *                         segments and coefficient-carrying blocks (same status, dependent count
 *                         and outputs, untouched outputs where not decoded); n = 400 and 1024
 *                         (the inversion in global memory); GFEC_FAULT=cuda (host buffers: the
 *                         CPU redoes the call, counted; device buffers: GFEC_E_DEVICE). LT
 *                         encode (gfec_gpu_lt_encode) on device and staged buffers against the
 *                         CPU for random n (1 .. 10240), B, count, segments and alignments, its
 *                         fault path, and device memory refused by its batch decode.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gfec/gfec.h"
#include "gfec/gfec_nc.h"
#include "nc_prng.h"
#include "test_util.h"

#ifdef GFEC_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

static gfec_nc *make(uint32_t n, uint32_t B, uint32_t flags, int backend)
{
	struct gfec_nc_params p = {
	    .n = n, .block_size = B, .flags = flags, .threads = 2, .backend = backend};
	gfec_nc *nc = NULL;

	assert_int_equal(gfec_nc_create(&p, &nc), 0);
	return nc;
}

static int has_gpu(void)
{
	struct gfec_nc_params p = {.n = 4, .block_size = 16, .backend = GFEC_NC_BACKEND_GPU};
	gfec_nc *nc = NULL;
	int ret = gfec_nc_create(&p, &nc);

	gfec_nc_free(nc);
	return ret == 0;
}

/* The choices, and what a host without a GPU does with each. */
static void test_choices(void **state)
{
	struct gfec_nc_params p = {.n = 8, .block_size = 64};
	struct gfec_nc_stats st;
	gfec_nc *nc = NULL;
	const int gpu = has_gpu();
	int ret;

	(void)state;
	p.backend = 3;
	assert_int_equal(gfec_nc_create(&p, &nc), GFEC_E_INVAL);
	p.backend = -1;
	assert_int_equal(gfec_nc_create(&p, &nc), GFEC_E_INVAL);
	assert_null(nc);
	p.backend = GFEC_NC_BACKEND_CPU;
	assert_int_equal(gfec_nc_create(&p, &nc), 0);
	gfec_nc_stats(nc, &st);
	assert_int_equal(st.gpu, 0);
	gfec_nc_free(nc);
	nc = NULL;

	/* gpu and auto: the default family (RLC), then an LT code (its encode runs on the GPU) */
	for (int lt = 0; lt < 2; lt++) {
		p.family = lt ? GFEC_NC_LT : 0;
		p.backend = GFEC_NC_BACKEND_GPU;
		ret = gfec_nc_create(&p, &nc);
#ifndef GFEC_HAVE_CUDA
		assert_int_equal(ret, GFEC_E_NOBACKEND);
#endif
		assert_int_equal(ret, gpu ? 0 : GFEC_E_NOBACKEND);
		if (!gpu)
			assert_null(nc);
		gfec_nc_free(nc);
		nc = NULL;

		p.backend = GFEC_NC_BACKEND_AUTO;
		assert_int_equal(gfec_nc_create(&p, &nc), 0);
		gfec_nc_stats(nc, &st);
		assert_int_equal(st.gpu, gpu);
		gfec_nc_free(nc);
		nc = NULL;
	}
	gfec_nc_stats(NULL, &st);
	assert_int_equal(st.gpu, 0);
	assert_int_equal(st.gpu_calls, 0);
}

/* Host buffers under auto stay on the CPU (no GPU call), with the CPU backend's bytes. */
static void check_auto_host(void)
{
	const uint32_t n = 16, B = 1000, count = 20;
	gfec_nc *cpu = make(n, B, 0, GFEC_NC_BACKEND_CPU),
		*au = make(n, B, 0, GFEC_NC_BACKEND_AUTO);
	const size_t bytes = gfec_nc_block_bytes(cpu, GFEC_NC_KIND_SEED);
	uint8_t *data = malloc((size_t)n * B), *a = malloc(count * bytes),
		*b = malloc(count * bytes);
	struct gfec_nc_segment seg = {.id = 7, .data = data};
	struct gfec_nc_stats st;

	test_fill(data, (size_t)n * B);
	memset(b, TEST_POISON, count * bytes);
	assert_int_equal(gfec_nc_encode(cpu, &seg, 1, 3, count, a, count * bytes), 0);
	assert_int_equal(gfec_nc_encode(au, &seg, 1, 3, count, b, count * bytes), 0);
	assert_memory_equal(a, b, count * bytes);
	gfec_nc_stats(au, &st);
	assert_int_equal(st.gpu_calls, 0);
	assert_int_equal(st.fallbacks, 0);
	gfec_nc_free(cpu);
	gfec_nc_free(au);
	free(data);
	free(a);
	free(b);
}

static void test_auto_host(void **state)
{
	(void)state;
	check_auto_host();
}

/* GFEC_FAULT=cuda where there is no GPU: gpu is still refused (RLC and LT), auto is the CPU. */
static void test_fault_without_gpu(void **state)
{
	struct gfec_nc_params p = {.n = 8, .block_size = 64, .backend = GFEC_NC_BACKEND_GPU};
	gfec_nc *nc = NULL;

	(void)state;
	if (has_gpu())
		skip(); /* the gpu mode runs the fault path on the device */
	setenv("GFEC_FAULT", "cuda", 1);
	assert_int_equal(gfec_nc_create(&p, &nc), GFEC_E_NOBACKEND);
	p.family = GFEC_NC_LT;
	assert_int_equal(gfec_nc_create(&p, &nc), GFEC_E_NOBACKEND);
	assert_null(nc);
	check_auto_host();
	unsetenv("GFEC_FAULT");
}

#ifdef GFEC_HAVE_CUDA

/*
 * "model": the GPU mode against tests/plugin/nc_gpu_mock's plain-C GPU (test nc_gpu_mock), with
 * shapes small enough for byte loops under sanitizers.
 */
static int model;

/* ---------- device buffers ---------- */

static uint8_t *dev_alloc(size_t n, unsigned misalign, void **base)
{
	assert_int_equal(cudaMalloc(base, n + 64 + misalign), cudaSuccess);
	return (uint8_t *)*base + misalign;
}

static void to_dev(uint8_t *d, const void *h, size_t n)
{
	assert_int_equal(cudaMemcpy(d, h, n, cudaMemcpyHostToDevice), cudaSuccess);
}

static void from_dev(void *h, const uint8_t *d, size_t n)
{
	assert_int_equal(cudaMemcpy(h, d, n, cudaMemcpyDeviceToHost), cudaSuccess);
}

/* One encode: CPU backend vs device buffers vs staged host buffers. */
static void one_encode(uint32_t n, uint32_t B, uint32_t flags)
{
	gfec_nc *cpu = make(n, B, flags, GFEC_NC_BACKEND_CPU);
	gfec_nc *gpu = make(n, B, flags, GFEC_NC_BACKEND_GPU);
	const size_t bytes = gfec_nc_block_bytes(cpu, GFEC_NC_KIND_SEED), seg = (size_t)n * B;
	const int nseg = test_range(1, 3);
	const uint32_t count = (uint32_t)test_range(1, n < 20 ? 24 : 40);
	const uint32_t first = (flags & GFEC_NC_SYSTEMATIC) && test_range(0, 1)
				   ? (uint32_t)test_range(0, (int)n - 1)
				   : (uint32_t)test_rand();
	const uint32_t f = first > UINT32_MAX - count ? UINT32_MAX - count : first;
	const size_t olen = (size_t)nseg * count * bytes;
	uint8_t *data = malloc(seg * nseg), *ref = malloc(olen), *got = malloc(olen);
	struct gfec_nc_segment segs[3], dsegs[3];
	void *dbase[3], *obase;
	struct gfec_nc_stats st;
	uint8_t *dout;
	int ret, ran = 1;

	assert_non_null(data);
	assert_non_null(ref);
	assert_non_null(got);
	test_fill(data, seg * nseg);
	for (int s = 0; s < nseg; s++) {
		segs[s] = (struct gfec_nc_segment){.id = test_rand(), .data = data + s * seg};
		dsegs[s] = segs[s];
		dsegs[s].data = dev_alloc(seg, (unsigned)test_range(0, 15), &dbase[s]);
		to_dev((uint8_t *)dsegs[s].data, segs[s].data, seg);
	}
	assert_int_equal(gfec_nc_encode(cpu, segs, nseg, f, count, ref, olen), 0);

	/* device buffers */
	dout = dev_alloc(olen, (unsigned)test_range(0, 15), &obase);
	assert_int_equal(cudaMemset(dout, TEST_POISON, olen), cudaSuccess);
	ret = gfec_nc_encode(gpu, dsegs, nseg, f, count, dout, olen);
	if (ret == GFEC_E_NOTSUP && n > 256) {
		print_message("# n=%u: too wide for the GPU encoder (device buffers refused)\n", n);
		ran = 0;
	} else {
		assert_int_equal(ret, 0);
		from_dev(got, dout, olen);
		if (memcmp(got, ref, olen))
			fail_msg(
			    "device encode n=%u B=%u flags=%u nseg=%d first=%u count=%u differs", n,
			    B, flags, nseg, f, count);
	}
	/* host buffers staged through the GPU */
	memset(got, TEST_POISON, olen);
	assert_int_equal(gfec_nc_encode(gpu, segs, nseg, f, count, got, olen), 0);
	if (memcmp(got, ref, olen))
		fail_msg("staged encode n=%u B=%u flags=%u nseg=%d first=%u count=%u differs", n, B,
			 flags, nseg, f, count);
	gfec_nc_stats(gpu, &st);
	assert_int_equal(st.gpu, 1);
	assert_int_equal(st.fallbacks, 0);
	assert_true(st.gpu_calls >= (uint64_t)ran);

	cudaFree(obase);
	for (int s = 0; s < nseg; s++)
		cudaFree(dbase[s]);
	gfec_nc_free(cpu);
	gfec_nc_free(gpu);
	free(data);
	free(ref);
	free(got);
}

static void test_encode(void **state)
{
	static const uint32_t ns[] = {1, 2, 16, 128, 255, 256, 1024};
	static const uint32_t bs[] = {1, 7, 64, 1000, 4099, 65536, 1u << 20};

	(void)state;
	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		for (size_t j = 0; j < sizeof(bs) / sizeof(bs[0]); j++)
			if ((size_t)ns[i] * bs[j] <= (model ? (256u << 10) : (32u << 20)))
				one_encode(ns[i], bs[j], (uint32_t)(i + j) % 4);
}

/* ---------- batch decode ---------- */

struct batch {
	uint32_t n, B;
	int nseg;
	size_t bytes;	 /* per block, seed- or coefficient-carrying alike (the longer) */
	uint8_t *blocks; /* per segment: maxb blocks of `bytes` */
	uint32_t maxb;
	uint32_t *nb;
	uint32_t *short_at; /* the block whose length is one byte short of it, or UINT32_MAX */
	uint64_t *ids;
	uint8_t *data; /* the segments */
};

/*
 * Segment s's blocks, by s % 9: 0 n coded; 1 n + 3 with block 1 a copy of block 0 (singular
 * first n, decodes from the rest); 2 n with a copy (too few); 3 n - 1 (too few); 4 a bad magic at
 * block n / 2; 5 another segment's block among them; 6 the systematic sources and two coded;
 * 7 n coded, every other one made coefficient-carrying; 8 n coded, block n / 2 one byte short.
 * Blocks lie b->bytes apart (room for a coefficient-carrying one).
 */
static void make_batch(struct batch *b, gfec_nc *cpu, uint32_t n, uint32_t B, int nseg)
{
	const size_t seed_bytes = gfec_nc_block_bytes(cpu, GFEC_NC_KIND_SEED);
	const size_t coef_bytes = gfec_nc_block_bytes(cpu, GFEC_NC_KIND_COEF);
	uint8_t *tmp, *row = malloc(n);

	b->n = n;
	b->B = B;
	b->nseg = nseg;
	b->bytes = coef_bytes > seed_bytes ? coef_bytes : seed_bytes;
	b->maxb = n + 3;
	b->blocks = malloc((size_t)nseg * b->maxb * b->bytes);
	b->nb = malloc(sizeof(*b->nb) * nseg);
	b->short_at = malloc(sizeof(*b->short_at) * nseg);
	b->ids = malloc(sizeof(*b->ids) * nseg);
	b->data = malloc((size_t)nseg * n * B);
	tmp = malloc(b->maxb * seed_bytes);
	assert_non_null(b->blocks);
	assert_non_null(b->data);
	assert_non_null(tmp);
	assert_non_null(row);
	test_fill(b->data, (size_t)nseg * n * B);
	for (int s = 0; s < nseg; s++) {
		uint8_t *blk = b->blocks + (size_t)s * b->maxb * b->bytes;
		struct gfec_nc_segment sg = {.id = 1000 + (uint64_t)s,
					     .data = b->data + (size_t)s * n * B};
		const int kind = s % 9;
		uint32_t first = kind == 6 ? 0 : (uint32_t)test_range(n, 1 << 30);

		b->ids[s] = sg.id;
		b->short_at[s] = kind == 8 ? n / 2 : UINT32_MAX;
		b->nb[s] = kind == 1 ? n + 3 : kind == 3 ? n - 1 : kind == 6 ? n + 2 : n;
		if (b->nb[s] == 0) { /* n = 1, kind 3: no block at all */
			continue;
		}
		assert_int_equal(
		    gfec_nc_encode(cpu, &sg, 1, first, b->nb[s], tmp, (size_t)b->nb[s] * seed_bytes),
		    0);
		for (uint32_t j = 0; j < b->nb[s]; j++) {
			uint8_t *d = blk + (size_t)j * b->bytes;
			const uint8_t *e = tmp + (size_t)j * seed_bytes;

			if (kind == 7 && j % 2) { /* the same block, its coefficients carried */
				struct gfec_nc_block h;

				assert_int_equal(gfec_nc_block_unpack(e, seed_bytes, &h), 0);
				gfec_nc_prng_row(h.seed, n, !!(h.flags & GFEC_NC_ZERO_COEFS), row);
				h.kind = GFEC_NC_KIND_COEF;
				h.flags = 0;
				h.coefs = row;
				assert_int_equal(gfec_nc_block_pack(&h, d, b->bytes), (int)(coef_bytes - B));
				memcpy(d + coef_bytes - B, e + seed_bytes - B, B);
			} else {
				memcpy(d, e, seed_bytes);
			}
		}
		if ((kind == 1 || kind == 2) && n > 1)
			memcpy(blk + b->bytes, blk, b->bytes);
		if (kind == 4)
			blk[(size_t)(n / 2) * b->bytes] ^= 0x40;
		if (kind == 5)
			blk[(size_t)(n / 2) * b->bytes + 16] ^= 1; /* the segment id's low byte */
	}
	free(tmp);
	free(row);
}

static void batch_free(struct batch *b)
{
	free(b->blocks);
	free(b->nb);
	free(b->short_at);
	free(b->ids);
	free(b->data);
}

/*
 * Decodes batch @p b with @p nc, the blocks at @p base (host or device) with the same layout as
 * b->blocks, into outs at @p out (n * B per segment, poisoned first by the caller). Statuses and
 * dependents into @p status / @p dep.
 */
static int run_batch(gfec_nc *nc, const struct batch *b, const uint8_t *base, uint8_t *out,
		     int *status, uint32_t *dep)
{
	const size_t seg = (size_t)b->n * b->B;
	struct gfec_nc_batch_segment *bs = calloc(b->nseg, sizeof(*bs));
	const uint8_t **ptr = malloc(sizeof(*ptr) * b->nseg * b->maxb);
	size_t *lens = malloc(sizeof(*lens) * b->nseg * b->maxb);
	int ret;

	assert_non_null(bs);
	for (int s = 0; s < b->nseg; s++) {
		for (uint32_t j = 0; j < b->nb[s]; j++) {
			const size_t i = (size_t)s * b->maxb + j;

			ptr[i] = base + i * b->bytes;
			lens[i] = b->bytes + (j % 2 ? 0 : (b->maxb - j - 1) * b->bytes);
			if (j == b->short_at[s]) { /* the block's own bytes less one */
				struct gfec_nc_block h;

				lens[i] = b->bytes;
				if (!gfec_nc_block_unpack(b->blocks + i * b->bytes, b->bytes, &h))
					lens[i] = h.bytes - 1;
			}
		}
		bs[s] = (struct gfec_nc_batch_segment){.id = b->ids[s],
						       .blocks = ptr + (size_t)s * b->maxb,
						       .lens = lens + (size_t)s * b->maxb,
						       .nblocks = b->nb[s],
						       .out = out + s * seg,
						       .status = 12345,
						       .dependent = 777};
	}
	ret = gfec_nc_decode_batch(nc, bs, b->nseg);
	for (int s = 0; s < b->nseg; s++) {
		status[s] = bs[s].status;
		dep[s] = bs[s].dependent;
	}
	free(bs);
	free(ptr);
	free(lens);
	return ret;
}

static void one_batch(uint32_t n, uint32_t B, int nseg, uint32_t flags)
{
	gfec_nc *cpu = make(n, B, flags, GFEC_NC_BACKEND_CPU);
	gfec_nc *gpu = make(n, B, flags, GFEC_NC_BACKEND_GPU);
	struct batch b;
	const size_t seg = (size_t)n * B, olen = seg * nseg;
	int *st_ref = malloc(sizeof(int) * nseg), *st = malloc(sizeof(int) * nseg);
	uint32_t *dep_ref = malloc(sizeof(uint32_t) * nseg), *dep = malloc(sizeof(uint32_t) * nseg);
	uint8_t *ref = malloc(olen), *got = malloc(olen), *dblk, *dout;
	void *bbase, *obase;
	int rref, ret;
	struct gfec_nc_stats s0, s1;

	make_batch(&b, cpu, n, B, nseg);
	memset(ref, TEST_POISON, olen);
	rref = run_batch(cpu, &b, b.blocks, ref, st_ref, dep_ref);
	assert_true(rref == 0 || rref == GFEC_E_TOOFEW);
	for (int s = 0; s < nseg; s++) /* the reference itself: decoded segments are the data */
		if (!st_ref[s])
			assert_memory_equal(ref + s * seg, b.data + s * seg, seg);

	const size_t blen = (size_t)nseg * b.maxb * b.bytes;

	gfec_nc_stats(gpu, &s0);
	dblk = dev_alloc(blen, (unsigned)test_range(0, 15), &bbase);
	to_dev(dblk, b.blocks, blen);
	dout = dev_alloc(olen, (unsigned)test_range(0, 15), &obase);
	assert_int_equal(cudaMemset(dout, TEST_POISON, olen), cudaSuccess);
	ret = run_batch(gpu, &b, dblk, dout, st, dep);
	if (ret == GFEC_E_NOTSUP) {
		print_message("# n=%u: past the GPU decoder (device buffers refused)\n", n);
	} else {
		assert_int_equal(ret, rref);
		from_dev(got, dout, olen);
		for (int s = 0; s < nseg; s++) {
			if (st[s] != st_ref[s] || dep[s] != dep_ref[s])
				fail_msg("device decode n=%u B=%u segment %d/%d: status %d "
					 "dependent %u, "
					 "CPU %d %u",
					 n, B, s, nseg, st[s], dep[s], st_ref[s], dep_ref[s]);
		}
		if (memcmp(got, ref, olen))
			fail_msg("device decode n=%u B=%u nseg=%d: outputs differ", n, B, nseg);
	}
	/* host buffers staged through the GPU (or, past its decoder, the CPU without a word) */
	memset(got, TEST_POISON, olen);
	assert_int_equal(run_batch(gpu, &b, b.blocks, got, st, dep), rref);
	for (int s = 0; s < nseg; s++)
		if (st[s] != st_ref[s] || dep[s] != dep_ref[s])
			fail_msg("staged decode n=%u segment %d: status %d dependent %u, CPU %d %u",
				 n, s, st[s], dep[s], st_ref[s], dep_ref[s]);
	if (memcmp(got, ref, olen))
		fail_msg("staged decode n=%u B=%u nseg=%d: outputs differ", n, B, nseg);
	gfec_nc_stats(gpu, &s1);
	assert_int_equal(s1.fallbacks, s0.fallbacks);

	cudaFree(bbase);
	cudaFree(obase);
	batch_free(&b);
	gfec_nc_free(cpu);
	gfec_nc_free(gpu);
	free(st_ref);
	free(st);
	free(dep_ref);
	free(dep);
	free(ref);
	free(got);
}

static void test_decode_batch(void **state)
{
	(void)state;
	one_batch(1, 5, 3, 0);
	one_batch(2, 1, 7, GFEC_NC_ZERO_COEFS);
	one_batch(8, 33, 1, GFEC_NC_SYSTEMATIC);
	one_batch(8, 33, model ? 1500 : 10000, GFEC_NC_SYSTEMATIC | GFEC_NC_ZERO_COEFS);
	one_batch(16, 100, model ? 50 : 500, 0);
	one_batch(128, model ? 65 : 4099, 14, GFEC_NC_SYSTEMATIC);
	one_batch(255, model ? 16 : 64, model ? 3 : 7, GFEC_NC_ZERO_COEFS);
	one_batch(300, 17, model ? 2 : 9, 0);
	/* the model: past its decoder (CPU); a GPU: [M | I] past shared memory, in global memory */
	one_batch(model ? 341 : 400, 16, model ? 2 : 9, 0);
	if (!model)
		one_batch(1024, 32, 3, GFEC_NC_ZERO_COEFS);
}

/* An encode's buffers under GFEC_FAULT=cuda, kept for the caller's further checks. */
struct fault_run {
	size_t olen;	    /* bytes of coded output */
	uint8_t *ref, *got; /* olen bytes each: the CPU code's blocks, the GPU code's */
	uint8_t *dout;	    /* olen bytes of device memory, in obase */
	void *dbase, *obase;
};

/*
 * Under GFEC_FAULT=cuda (set by the caller): @p count blocks from @p first of @p seg (@p seglen
 * bytes) encoded by @p gpu from host buffers equal @p cpu's, redone on the CPU (one fallback, no
 * GPU call); from device buffers (a segment @p dmis and an output @p omis bytes past their
 * allocations) the encode fails with GFEC_E_DEVICE. The caller frees f's buffers.
 */
static void fault_encode(gfec_nc *cpu, gfec_nc *gpu, const struct gfec_nc_segment *seg,
			 size_t seglen, uint32_t first, uint32_t count, unsigned dmis,
			 unsigned omis, struct fault_run *f)
{
	struct gfec_nc_segment dseg = *seg;
	struct gfec_nc_stats st;

	f->olen = count * gfec_nc_block_bytes(cpu, GFEC_NC_KIND_SEED);
	f->ref = malloc(f->olen);
	f->got = malloc(f->olen);
	assert_non_null(f->ref);
	assert_non_null(f->got);
	assert_int_equal(gfec_nc_encode(cpu, seg, 1, first, count, f->ref, f->olen), 0);
	memset(f->got, TEST_POISON, f->olen);
	assert_int_equal(gfec_nc_encode(gpu, seg, 1, first, count, f->got, f->olen), 0);
	assert_memory_equal(f->got, f->ref, f->olen);
	gfec_nc_stats(gpu, &st);
	assert_int_equal(st.fallbacks, 1);
	assert_int_equal(st.gpu_calls, 0);

	dseg.data = dev_alloc(seglen, dmis, &f->dbase);
	f->dout = dev_alloc(f->olen, omis, &f->obase);
	assert_int_equal(gfec_nc_encode(gpu, &dseg, 1, first, count, f->dout, f->olen),
			 GFEC_E_DEVICE);
}

/* GFEC_FAULT=cuda: host buffers are redone on the CPU (counted), device buffers fail. */
static void test_fault(void **state)
{
	const uint32_t n = 16, B = 4096, count = 24;
	gfec_nc *cpu, *gpu;
	uint8_t *data, *ref, *got;
	struct gfec_nc_segment seg = {.id = 5};
	struct gfec_nc_stats st;
	struct fault_run f;
	struct batch b;
	int st_ref[7], st_got[7];
	uint32_t dep_ref[7], dep_got[7];

	(void)state;
	setenv("GFEC_FAULT", "cuda", 1);
	cpu = make(n, B, 0, GFEC_NC_BACKEND_CPU);
	gpu = make(n, B, 0, GFEC_NC_BACKEND_GPU);
	data = malloc((size_t)n * B);
	assert_non_null(data);
	test_fill(data, (size_t)n * B);
	seg.data = data;
	fault_encode(cpu, gpu, &seg, (size_t)n * B, 9, count, 3, 5, &f);
	cudaFree(f.dbase);
	cudaFree(f.obase);
	free(f.ref);
	free(f.got);

	make_batch(&b, cpu, n, B, 7);
	ref = malloc((size_t)n * B * 7);
	got = malloc((size_t)n * B * 7);
	memset(ref, TEST_POISON, (size_t)n * B * 7);
	memset(got, TEST_POISON, (size_t)n * B * 7);
	assert_int_equal(run_batch(cpu, &b, b.blocks, ref, st_ref, dep_ref),
			 run_batch(gpu, &b, b.blocks, got, st_got, dep_got));
	assert_memory_equal(st_ref, st_got, sizeof(st_ref));
	assert_memory_equal(dep_ref, dep_got, sizeof(dep_ref));
	assert_memory_equal(ref, got, (size_t)n * B * 7);
	gfec_nc_stats(gpu, &st);
	assert_int_equal(st.fallbacks, 2);
	assert_int_equal(st.gpu_calls, 0);
	unsetenv("GFEC_FAULT");

	batch_free(&b);
	gfec_nc_free(cpu);
	gfec_nc_free(gpu);
	free(data);
	free(ref);
	free(got);
}

/* ---------- LT encode ---------- */

static gfec_nc *make_lt(uint32_t n, uint32_t B, int backend)
{
	struct gfec_nc_params p = {.n = n,
				   .block_size = B,
				   .threads = 2,
				   .family = GFEC_NC_LT,
				   .backend = backend};
	gfec_nc *nc = NULL;

	assert_int_equal(gfec_nc_create(&p, &nc), 0);
	return nc;
}

/*
 * One LT encode of a random shape: the CPU code's blocks against device buffers (segments and
 * output at random offsets) and staged host buffers on the GPU, two GPU calls, no fallback.
 */
static void one_lt(uint32_t n, uint32_t B, int nseg, uint32_t count)
{
	gfec_nc *cpu = make_lt(n, B, GFEC_NC_BACKEND_CPU), *gpu = make_lt(n, B, GFEC_NC_BACKEND_GPU);
	const size_t bytes = gfec_nc_block_bytes(cpu, GFEC_NC_KIND_SEED), seg = (size_t)n * B;
	const size_t olen = (size_t)nseg * count * bytes;
	const uint32_t first = (uint32_t)test_rand() % (UINT32_MAX - count);
	uint8_t *data = malloc(seg * nseg), *ref = malloc(olen), *got = malloc(olen), *dout;
	struct gfec_nc_segment segs[3], dsegs[3];
	struct gfec_nc_stats st;
	void *dbase[3], *obase;

	assert_true(nseg <= 3);
	assert_non_null(data);
	assert_non_null(ref);
	assert_non_null(got);
	test_fill(data, seg * nseg);
	for (int s = 0; s < nseg; s++) {
		segs[s] = (struct gfec_nc_segment){.id = test_rand(), .data = data + s * seg};
		dsegs[s] = segs[s];
		/* 16-byte aligned (with B % 16 == 0 and a 4-byte aligned output: the encoder's
		 * 16-byte path) 3 times in 4 */
		dsegs[s].data = dev_alloc(seg,
					  (unsigned)(test_range(0, 3) ? 16 * test_range(0, 1)
								      : test_range(1, 15)),
					  &dbase[s]);
		to_dev((uint8_t *)dsegs[s].data, segs[s].data, seg);
	}
	assert_int_equal(gfec_nc_encode(cpu, segs, nseg, first, count, ref, olen), 0);
	dout = dev_alloc(olen, (unsigned)test_range(0, 17), &obase);
	assert_int_equal(cudaMemset(dout, TEST_POISON, olen), cudaSuccess);
	assert_int_equal(gfec_nc_encode(gpu, dsegs, nseg, first, count, dout, olen), 0);
	from_dev(got, dout, olen);
	if (memcmp(got, ref, olen))
		fail_msg("LT device encode n=%u B=%u nseg=%d first=%u count=%u differs", n, B, nseg,
			 first, count);
	memset(got, TEST_POISON, olen);
	assert_int_equal(gfec_nc_encode(gpu, segs, nseg, first, count, got, olen), 0);
	if (memcmp(got, ref, olen))
		fail_msg("LT staged encode n=%u B=%u nseg=%d first=%u count=%u differs", n, B, nseg,
			 first, count);
	gfec_nc_stats(gpu, &st);
	assert_int_equal(st.gpu, 1);
	assert_int_equal(st.gpu_calls, 2);
	assert_int_equal(st.fallbacks, 0);
	cudaFree(obase);
	for (int s = 0; s < nseg; s++)
		cudaFree(dbase[s]);
	gfec_nc_free(cpu);
	gfec_nc_free(gpu);
	free(data);
	free(ref);
	free(got);
}

/* LT blocks from the GPU through gfec_nc.h equal the CPU's: fixed edges, then random shapes. */
static void test_lt_encode(void **state)
{
	static const uint32_t ns[] = {1, 2, 100, 1024, 10240};
	const size_t cap = model ? (64u << 10) : (16u << 20); /* bytes of coded output */

	(void)state;
	one_lt(1, 1, 1, 1);
	one_lt(2, 16, 3, 5);
	one_lt(model ? 300 : 10240, 1024, 1, model ? 40 : 2048);
	for (int i = 0; i < (model ? 12 : 40); i++) {
		const uint32_t n = ns[test_range(0, model ? 3 : 4)];
		const uint32_t B = (uint32_t)(test_range(0, 1) ? 16 * test_range(1, 128)
							 : test_range(1, 4099));
		const int nseg = test_range(1, 3);
		uint32_t count = (uint32_t)test_range(1, (int)(n + n / 10 + 2));

		if ((size_t)nseg * count * (B + 28) > cap)
			count = (uint32_t)(cap / ((size_t)nseg * (B + 28))) + 1;
		if ((size_t)n * B * nseg > cap * 8)
			continue;
		one_lt(n, B, nseg, count);
	}
}

/*
 * LT under GFEC_FAULT=cuda: host buffers redone on the CPU (counted), device buffers fail; a
 * batch decode of device memory is refused (no GPU LT decoder).
 */
static void test_lt_fault(void **state)
{
	const uint32_t n = 64, B = 256, count = 70;
	gfec_nc *cpu, *gpu;
	uint8_t *data = malloc((size_t)n * B);
	struct gfec_nc_segment seg = {.id = 9, .data = data};
	struct gfec_nc_batch_segment bs;
	const uint8_t *blk;
	struct fault_run f;
	size_t blen;

	(void)state;
	setenv("GFEC_FAULT", "cuda", 1);
	cpu = make_lt(n, B, GFEC_NC_BACKEND_CPU);
	gpu = make_lt(n, B, GFEC_NC_BACKEND_GPU);
	assert_non_null(data);
	test_fill(data, (size_t)n * B);
	fault_encode(cpu, gpu, &seg, (size_t)n * B, 77, count, 1, 3, &f);
	unsetenv("GFEC_FAULT");

	/* device blocks or output of an LT batch decode: refused, nothing read */
	blk = f.dout;
	blen = gfec_nc_block_bytes(cpu, GFEC_NC_KIND_SEED);
	bs = (struct gfec_nc_batch_segment){
	    .id = 9, .blocks = &blk, .lens = &blen, .nblocks = 1, .out = f.got};
	assert_int_equal(gfec_nc_decode_batch(gpu, &bs, 1), GFEC_E_NOTSUP);
	blk = f.ref;
	bs.out = f.dout;
	assert_int_equal(gfec_nc_decode_batch(gpu, &bs, 1), GFEC_E_NOTSUP);
	cudaFree(f.dbase);
	cudaFree(f.obase);
	gfec_nc_free(cpu);
	gfec_nc_free(gpu);
	free(data);
	free(f.ref);
	free(f.got);
}

/* ---------- several contexts (gpu_devices=) ---------- */

/* The contexts' shares of calls so far into *calls (summed), failures into *fails, per context. */
static int contexts(gfec_nc *nc, uint64_t *calls, uint64_t *fails)
{
	struct gfec_gpu_device d[16];
	const int n = gfec_nc_gpu_devices(nc, d, 16);

	assert_true(n >= 1 && n <= 16);
	for (int i = 0; i < n; i++) {
		calls[i] = d[i].calls;
		fails[i] = d[i].failures;
		assert_string_not_equal(d[i].name, "");
	}
	return n;
}

/*
 * One round on @p list's contexts (every call split: gpu_split_min = 1): RLC and LT encodes and
 * an RLC batch decode, device and staged buffers, each against the CPU code. @p bad: the context
 * that fails (GFEC_FAULT=cuda-ctxI), or -1. Checks the bytes, that no call went to the CPU, that
 * device buffers stayed on GPU 0's contexts (@p on0: which those are) and who ran what.
 */
static void one_round(const char *list, int bad, const int *on0)
{
	const uint32_t n = 16, B = 300, count = 20;
	const int nseg = 12;
	char fault[16];
	gfec_nc *rc, *rg, *lc, *lg;
	uint64_t calls[16], fails[16];
	size_t bytes, olen, seg = (size_t)n * B;
	uint8_t *data = malloc(seg * nseg), *ref, *got, *dout, *dblk;
	struct gfec_nc_segment segs[12], dsegs[12];
	void *dbase, *obase, *bbase;
	struct gfec_nc_stats st;
	struct batch b;
	int *st_ref = malloc(sizeof(int) * 45), *st_got = malloc(sizeof(int) * 45), nctx, rref;
	uint32_t *dep_ref = malloc(sizeof(uint32_t) * 45), *dep_got = malloc(sizeof(uint32_t) * 45);

	setenv("GFEC_GPU_DEVICES", list, 1);
	setenv("GFEC_GPU_SPLIT_MIN", "1", 1);
	snprintf(fault, sizeof(fault), "cuda-ctx%d", bad);
	if (bad >= 0)
		setenv("GFEC_FAULT", fault, 1);
	rc = make(n, B, 0, GFEC_NC_BACKEND_CPU);
	rg = make(n, B, 0, GFEC_NC_BACKEND_GPU);
	lc = make_lt(n, B, GFEC_NC_BACKEND_CPU);
	lg = make_lt(n, B, GFEC_NC_BACKEND_GPU);
	unsetenv("GFEC_FAULT");
	unsetenv("GFEC_GPU_SPLIT_MIN");
	unsetenv("GFEC_GPU_DEVICES");
	nctx = contexts(rg, calls, fails);
	assert_int_equal(nctx, (int)(strlen(list) + 1) / 2);
	assert_int_equal(gfec_nc_gpu_devices(rc, NULL, 0), 0);
	assert_int_equal(gfec_nc_gpu_devices(NULL, NULL, 0), GFEC_E_INVAL);
	bytes = gfec_nc_block_bytes(rc, GFEC_NC_KIND_SEED);
	olen = (size_t)nseg * count * bytes;
	ref = malloc(olen > seg * 45 ? olen : seg * 45);
	got = malloc(olen > seg * 45 ? olen : seg * 45);
	assert_non_null(data);
	assert_non_null(ref);
	assert_non_null(got);
	test_fill(data, seg * nseg);
	dsegs[0].data = dev_alloc(seg * nseg, 5, &dbase);
	to_dev((uint8_t *)dsegs[0].data, data, seg * nseg);
	for (int s = 0; s < nseg; s++) {
		segs[s] = (struct gfec_nc_segment){.id = 40 + (uint64_t)s, .data = data + s * seg};
		dsegs[s] = (struct gfec_nc_segment){.id = segs[s].id,
						    .data = dsegs[0].data + s * seg};
	}
	dout = dev_alloc(olen > seg * 45 ? olen : seg * 45, 9, &obase);
	for (int fam = 0; fam < 2; fam++) {
		gfec_nc *c = fam ? lc : rc, *g = fam ? lg : rg;

		assert_int_equal(gfec_nc_encode(c, segs, nseg, 7, count, ref, olen), 0);
		memset(got, TEST_POISON, olen);
		assert_int_equal(gfec_nc_encode(g, segs, nseg, 7, count, got, olen), 0);
		if (memcmp(got, ref, olen))
			fail_msg("%s staged encode on contexts %s (ctx %d failing) differs",
				 fam ? "LT" : "RLC", list, bad);
		assert_int_equal(cudaMemset(dout, TEST_POISON, olen), cudaSuccess);
		assert_int_equal(gfec_nc_encode(g, dsegs, nseg, 7, count, dout, olen), 0);
		from_dev(got, dout, olen);
		if (memcmp(got, ref, olen))
			fail_msg("%s device encode on contexts %s (ctx %d failing) differs",
				 fam ? "LT" : "RLC", list, bad);
	}
	/* device buffers: GPU 0's contexts alone (on0), every one of them when none fails */
	contexts(lg, calls, fails);
	for (int i = 0; i < nctx; i++) {
		assert_true(calls[i] > 0 || (bad == i || !on0[i]));
		assert_true(on0[i] || calls[i] <= 1); /* the staged encode only */
		assert_true(fails[i] == (bad == i)); /* then it sits out the next calls */
	}

	/* 45 segments of every kind make_batch has: singular, short, bad, foreign ... */
	make_batch(&b, rc, n, B, 45);
	memset(ref, TEST_POISON, seg * 45);
	memset(got, TEST_POISON, seg * 45);
	rref = run_batch(rc, &b, b.blocks, ref, st_ref, dep_ref);
	assert_int_equal(run_batch(rg, &b, b.blocks, got, st_got, dep_got), rref);
	assert_memory_equal(st_ref, st_got, sizeof(int) * 45);
	assert_memory_equal(dep_ref, dep_got, sizeof(uint32_t) * 45);
	assert_memory_equal(ref, got, seg * 45);
	{
		const size_t blen = (size_t)45 * b.maxb * b.bytes;

		dblk = dev_alloc(blen, 3, &bbase);
		to_dev(dblk, b.blocks, blen);
		assert_int_equal(cudaMemset(dout, TEST_POISON, seg * 45), cudaSuccess);
		assert_int_equal(run_batch(rg, &b, dblk, dout, st_got, dep_got), rref);
		from_dev(got, dout, seg * 45);
		assert_memory_equal(st_ref, st_got, sizeof(int) * 45);
		assert_memory_equal(dep_ref, dep_got, sizeof(uint32_t) * 45);
		assert_memory_equal(ref, got, seg * 45);
		cudaFree(bbase);
	}
	gfec_nc_stats(rg, &st);
	assert_int_equal(st.fallbacks, 0);
	assert_int_equal(st.gpu_calls, 4);
	contexts(rg, calls, fails);
	for (int i = 0; i < nctx; i++)
		assert_true(bad == i ? fails[i] > 0 : calls[i] > 0 && fails[i] == 0);

	batch_free(&b);
	cudaFree(dbase);
	cudaFree(obase);
	gfec_nc_free(rc);
	gfec_nc_free(rg);
	gfec_nc_free(lc);
	gfec_nc_free(lg);
	free(data);
	free(ref);
	free(got);
	free(st_ref);
	free(st_got);
	free(dep_ref);
	free(dep_got);
}

/*
 * gpu_devices= (issue 18): calls split over two contexts on GPU 0 ("0,0"), then one failing
 * (GFEC_FAULT=cuda-ctxI: its shares redone on the other, the same bytes, no CPU fallback); the
 * model also on "0,1", two GPUs of which only GPU 0 holds the device buffers. A GPU host with
 * GFEC_TEST_GPU_DEVICES (e.g. 0,1) takes that list instead of 0,0.
 */
static void test_contexts(void **state)
{
	static const int both[2] = {1, 1}, first[2] = {1, 0};
	const char *env = getenv("GFEC_TEST_GPU_DEVICES");

	(void)state;
	if (env && !model) {
		one_round(env, -1, both); /* device buffers: all on GPU 0 */
		return;
	}
	one_round("0,0", -1, both);
	one_round("0,0", 1, both);
	one_round("0,0", 0, both);
	if (model) {
		one_round("0,1", -1, first);
		one_round("0,1", 1, first);
	}
}

/* Mixed host and device buffers in one call are refused. */
static void test_mixed(void **state)
{
	const uint32_t n = 4, B = 64;
	gfec_nc *gpu = make(n, B, 0, GFEC_NC_BACKEND_GPU);
	const size_t olen = 2 * gfec_nc_block_bytes(gpu, GFEC_NC_KIND_SEED);
	uint8_t data[4 * 64] = {0}, *out = malloc(olen);
	void *base;
	struct gfec_nc_segment seg = {.id = 1, .data = dev_alloc(sizeof(data), 0, &base)};

	(void)state;
	assert_int_equal(gfec_nc_encode(gpu, &seg, 1, 0, 2, out, olen), GFEC_E_INVAL);
	seg.data = data;
	assert_int_equal(gfec_nc_encode(gpu, &seg, 1, 0, 2, (uint8_t *)base, olen), GFEC_E_INVAL);
	cudaFree(base);
	free(out);
	gfec_nc_free(gpu);
}

#endif /* GFEC_HAVE_CUDA */

int main(int argc, char **argv)
{
	const struct CMUnitTest cpu_tests[] = {
	    cmocka_unit_test(test_choices),
	    cmocka_unit_test(test_auto_host),
	    cmocka_unit_test(test_fault_without_gpu),
	};

	test_seed();
	if (argc < 2)
		return cmocka_run_group_tests(cpu_tests, NULL, NULL);
	if (strcmp(argv[1], "gpu") != 0 && strcmp(argv[1], "model") != 0) {
		fprintf(stderr, "usage: test_nc_backend [gpu|model]\n");
		return 2;
	}
#ifdef GFEC_HAVE_CUDA
	model = strcmp(argv[1], "model") == 0;
	if (!has_gpu()) {
		fprintf(stderr, "# no usable GPU: skipped\n");
		return 77;
	}
	const struct CMUnitTest gpu_tests[] = {
	    cmocka_unit_test(test_choices),	 cmocka_unit_test(test_encode),
	    cmocka_unit_test(test_decode_batch), cmocka_unit_test(test_fault),
	    cmocka_unit_test(test_lt_encode),	 cmocka_unit_test(test_lt_fault),
	    cmocka_unit_test(test_contexts),	 cmocka_unit_test(test_mixed),
	};

	return cmocka_run_group_tests(gpu_tests, NULL, NULL);
#else
	fprintf(stderr, "# built without CUDA: skipped\n");
	return 77;
#endif
}
