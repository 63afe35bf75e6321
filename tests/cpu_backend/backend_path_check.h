/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file backend_path_check.h
 * One CPU path behind the backend table (test_gfni.c's variants, test_avx2.c): on 1 and 3
 * threads, with non-temporal stores from 1 byte up and never, random shapes and lengths with
 * misaligned, poisoned outputs, the plan's tables or matrices, slices (4 KiB ones, and on 3
 * threads the default's, up to 3 MiB calls so that one-pass GFNI products take long ones) and
 * update route, against raw ISA-L's ec_encode_data with the same matrix.
 */
#ifndef GFEC_TESTS_BACKEND_PATH_CHECK_H
#define GFEC_TESTS_BACKEND_PATH_CHECK_H

#include <stdlib.h>
#include <string.h>

#include <isa-l/erasure_code.h>

#include "cpu_backend.h"
#include "test_util.h"

static void check_backend_path(const char *path)
{
	const struct gfec_backend_ops *ops = gfec_cpu_backend();

	for (int cfg = 0; cfg < 6; cfg++) {
		const int threads = cfg % 2 || cfg >= 4 ? 3 : 1;
		const size_t longest = cfg >= 4 ? 3 << 20 : 400000;
		struct gfec_backend_conf conf = {.threads = threads,
						 .path = path,
						 .slice = cfg >= 4 ? 0 : 4096,
						 .stream_min = cfg % 4 >= 2 || cfg == 5 ? 1 : 0};
		void *ctx;

		assert_int_equal(ops->init(&conf, &ctx), 0);
		assert_string_equal(ops->path_name(ctx), path);
		for (int t = 0; t < 30; t++) {
			const int k = test_range(1, 24), m = test_range(1, 12), col = test_range(0, k - 1);
			const size_t len = t % 3 ? (size_t)test_range(0, 1000)
						 : (size_t)test_range(0, (int)longest);
			uint8_t *a = malloc((size_t)k * m), tbls[32 * 24 * 12];
			struct gfec_gemm_matrix gm = { .w = 8, .rows = m, .cols = k, .a = a };
			struct test_buf sb[24], pb[12], rb[12];
			uint8_t *src[24], *par[12], *ref[12];
			void *plan;
			size_t done;

			assert_non_null(a);
			test_fill(a, (size_t)k * m);
			for (int j = 0; j < k; j++)
				test_fill(src[j] = tbuf_alloc(&sb[j], len, (unsigned)test_range(0, 63)), len);
			for (int i = 0; i < m; i++) {
				const unsigned mis = t % 2 ? 0 : (unsigned)test_range(0, 63);

				memset(par[i] = tbuf_alloc(&pb[i], len, mis), TEST_POISON, len);
				ref[i] = tbuf_alloc(&rb[i], len, 0);
			}
			if (len)
				src[col][0] |= 1; /* so that applying the column changes something */
			ec_init_tables(k, m, a, tbls);
			if (len)
				ec_encode_data((int)len, k, m, tbls, src, ref);
			assert_int_equal(ops->plan_create(ctx, &gm, &plan), 0);
			assert_int_equal(ops->gemm(ctx, plan, 1, len, (const uint8_t *const *)src, par), 0);
			for (int i = 0; i < m; i++)
				assert_memory_equal(par[i], ref[i], len);
			/* The same column applied twice cancels (characteristic 2); once, it must not. */
			assert_int_equal(ops->update(ctx, plan, col, len, src[col], par, &done), 0);
			if (len > 0 && a[col] && memcmp(par[0], ref[0], len) == 0)
				fail_msg("%s: update changed nothing", path);
			assert_int_equal(ops->update(ctx, plan, col, len, src[col], par, &done), 0);
			for (int i = 0; i < m; i++)
				assert_memory_equal(par[i], ref[i], len);
			ops->plan_free(ctx, plan);
			for (int j = 0; j < k; j++)
				tbuf_free(&sb[j]);
			for (int i = 0; i < m; i++) {
				tbuf_free(&pb[i]);
				tbuf_free(&rb[i]);
			}
			free(a);
		}
		ops->fini(ctx);
	}
}

#endif
