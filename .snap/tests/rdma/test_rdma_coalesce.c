/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_rdma_coalesce.c
 * The ingest's batches are the codec's coalescing windows (issue 17: one mechanism): a server
 * whose (4,2) codec runs on the fake GPU (tests/plugin/fake_gpu.c; this test's
 * gfec_backend_gpu() replaces the build's, the server's sources being linked with the static
 * library), fed by concurrent TCP clients whose every parity is checked against a CPU codec.
 * The fake GPU counts the launches: the stripes of many connections must share few of them,
 * and the server's batch counters must be those launches. With every GPU launch failing (the
 * fake GPU's switch that GFEC_FAULT=cuda sets), 64 clients: every stripe redone on the CPU with
 * the right parity, one fallback per window, none lost or hung (ctest's timeout).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "plugin/fake_gpu.h"
#include "rdma_test.h"

#define LEN 4096

/* The fake GPU, with its context kept so that the test can set its switches and read it. */
static struct gfec_backend_ops fake;
static void *fake_ctx;

static int fake_init(const struct gfec_backend_conf *conf, void **ctx)
{
	int ret = fake_gpu_ops()->init(conf, ctx);

	if (ret == 0)
		fake_ctx = *ctx;
	return ret;
}

const struct gfec_backend_ops *gfec_backend_gpu(void);

const struct gfec_backend_ops *gfec_backend_gpu(void)
{
	fake = *fake_gpu_ops();
	fake.init = fake_init;
	return &fake;
}

struct client {
	pthread_t t;
	const char *addr;
	int n, bad;
	unsigned seed;
};

static void *client_main(void *arg)
{
	struct client *cl = arg;
	gfec_rdma_client *c;
	unsigned credits;
	uint64_t id = 1;

	cl->bad = gfec_rdma_client_connect("tcp", cl->addr, 4, 2, LEN, &c, &credits) != 0;
	if (cl->bad)
		return NULL;
	cl->bad = test_roundtrip(c, 4, 2, LEN, cl->n, &id, &cl->seed) != 0;
	gfec_rdma_client_close(c);
	return NULL;
}

/* Waits until the server counts @p n stripes: one is counted once its reply is sent, and its
 * client can read the reply first (a snapshot at once counted 511 of 512 under ASan+UBSan). */
static int all_counted(struct test_server *ts, uint64_t n)
{
	return TEST_WAIT_STATS(ts, st.stripes == n);
}

/* @p nclients clients of @p per checked stripes each against a fresh server; its counters. */
static void run(int nclients, int per, int batch, const struct fake_gpu_switches *sw,
		struct gfec_rdma_stats *st, struct fake_gpu_counts *n)
{
	struct gfec_rdma_server_config cfg;
	struct client *cl = calloc((size_t)nclients, sizeof(*cl));
	struct test_server ts;

	assert_non_null(cl);
	gfec_rdma_server_config_default(&cfg);
	cfg.bind = "127.0.0.1:0";
	cfg.codes = "4,2";
	cfg.profile = "technique=cauchy backend=gpu threads=1";
	cfg.batch = batch;
	cfg.deadline_us = 20000;
	cfg.credits = 4;
	cfg.io_threads = 2;
	fake_ctx = NULL;
	assert_int_equal(test_server_start(&ts, &cfg), 0);
	assert_non_null(fake_ctx);
	assert_memory_equal(gfec_rdma_server_backend(ts.srv, 4, 2), "gpu/fake+", 9);
	fake_gpu_set(fake_ctx, sw);
	for (int i = 0; i < nclients; i++) {
		cl[i] = (struct client){ .addr = ts.addr, .n = per, .seed = 1u + (unsigned)i };
		assert_int_equal(pthread_create(&cl[i].t, NULL, client_main, &cl[i]), 0);
	}
	for (int i = 0; i < nclients; i++) {
		pthread_join(cl[i].t, NULL);
		if (cl[i].bad)
			fail_msg("client %d of %d: a parity was wrong or missing", i, nclients);
	}
	assert_true(all_counted(&ts, (uint64_t)nclients * (uint64_t)per));
	*st = test_stats(&ts);
	fake_gpu_counts(fake_ctx, n);
	test_server_stop(&ts);
	free(cl);
}

/*
 * 16 clients, one stripe outstanding each, behind a GPU of 2 ms a launch: the stripes that
 * arrive while a launch runs share the next, so there are at most a quarter as many launches
 * as stripes, and each launch is one of the server's batches.
 */
static void test_few_launches(void **state)
{
	const struct fake_gpu_switches slow = { .delay_us = 2000 };
	struct gfec_rdma_stats st;
	struct fake_gpu_counts n;

	(void)state;
	run(16, 40, 16, &slow, &st, &n);
	fprintf(stderr, "# 16 clients: 640 stripes in %llu launches (%llu full, %llu by "
			"deadline), most %llu per launch\n",
		(unsigned long long)n.calls, (unsigned long long)st.batches_full,
		(unsigned long long)st.batches_deadline, (unsigned long long)n.max_stripes);
	assert_int_equal(st.stripes, 640);
	assert_int_equal(st.batched, 640);
	assert_int_equal(n.stripes, 640);
	assert_int_equal(n.calls, st.batches);
	assert_int_equal(st.gpu_calls, st.batches);
	assert_int_equal(st.cpu_fallbacks, 0);
	assert_true(n.calls * 4 <= 640);
	assert_true(n.max_stripes > 1 && n.max_stripes <= 16);
}

/* 64 clients, every GPU launch failing: every parity right (the CPU redid each window). */
static void test_fault(void **state)
{
	const struct fake_gpu_switches failing = { .fail_all = 1, .delay_us = 500 };
	struct gfec_rdma_stats st;
	struct fake_gpu_counts n;

	(void)state;
	run(64, 8, 64, &failing, &st, &n);
	fprintf(stderr, "# 64 clients, GPU failing: 512 stripes in %llu windows, most %llu\n",
		(unsigned long long)st.batches, (unsigned long long)n.max_stripes);
	assert_int_equal(st.stripes, 512);
	assert_int_equal(st.encode_errors, 0);
	assert_int_equal(n.failed, n.calls);
	assert_int_equal(n.calls, st.batches);
	assert_int_equal(st.cpu_fallbacks, st.batches);
	assert_int_equal(st.gpu_calls, 0);
	assert_true(n.max_stripes > 1); /* windows of several stripes failed whole */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_few_launches),
		cmocka_unit_test(test_fault),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
