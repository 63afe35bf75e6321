/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_rdma_server.c
 * Bad input against the ingest server over TCP on loopback: wrong magic, version, type,
 * oversize and truncated messages, unknown (k,m), a reused stripe id, a credit overrun and a
 * client leaving mid-batch. Each must close only that connection, with the right ERROR code,
 * and free its buffers (the server's buffer_bytes returns to where it was); a client that stays
 * connected through all of them must keep getting correct parity.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "internal.h"
#include "rdma_test.h"

#define LEN 1024

struct fixture {
	struct test_server ts;
	gfec_rdma_client *good; /* stays connected through every case */
	uint64_t good_id;
	unsigned seed, credits;
	struct gfec_rdma_stats base;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct gfec_rdma_server_config cfg;

	gfec_rdma_server_config_default(&cfg);
	cfg.bind = "127.0.0.1:0";
	cfg.codes = "4,2 10,4";
	cfg.profile = "technique=cauchy backend=cpu threads=1";
	cfg.batch = 8;
	cfg.deadline_us = 500;
	cfg.credits = 4;
	cfg.max_chunk = 64 << 10;
	cfg.io_threads = 3; /* every case below also crosses the hand-over between I/O threads */
	if (!f || test_server_start(&f->ts, &cfg))
		return -1;
	f->seed = 7;
	f->good_id = 1;
	if (gfec_rdma_client_connect("tcp", f->ts.addr, 4, 2, LEN, &f->good, &f->credits) ||
	    test_roundtrip(f->good, 4, 2, LEN, 3, &f->good_id, &f->seed))
		return -1;
	f->base = test_stats(&f->ts);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	gfec_rdma_client_close(f->good);
	test_server_stop(&f->ts);
	free(f);
	return 0;
}

/* After a case: its connection is gone, its buffers freed, the good client still served. */
static void after_case(struct fixture *f, uint64_t bad, uint64_t lost)
{
	uint64_t bb = f->base.buffer_bytes, nbad = f->base.conns_bad + bad;
	uint64_t nlost = f->base.conns_lost + lost;

	if (!TEST_WAIT_STATS(&f->ts, st.conns_active == 1 && st.buffer_bytes == bb &&
					 st.conns_bad == nbad && st.conns_lost == nlost)) {
		struct gfec_rdma_stats st = test_stats(&f->ts);

		fail_msg(
		    "active %llu (want 1), buffers %llu (%llu), bad %llu (%llu), lost %llu (%llu)",
		    (unsigned long long)st.conns_active, (unsigned long long)st.buffer_bytes,
		    (unsigned long long)bb, (unsigned long long)st.conns_bad,
		    (unsigned long long)nbad, (unsigned long long)st.conns_lost,
		    (unsigned long long)nlost);
	}
	assert_int_equal(test_roundtrip(f->good, 4, 2, LEN, 5, &f->good_id, &f->seed), 0);
	f->base = test_stats(&f->ts);
}

/* A connection that said HELLO for (4,2) with LEN-byte chunks. */
static int hello_conn(struct fixture *f)
{
	struct gfec_rdma_hdr h;
	int fd = test_raw_hello(f->ts.port, LEN, &h);

	assert_true(fd >= 0);
	assert_int_equal(h.type, GFEC_RDMA_HELLO_ACK);
	assert_int_equal(h.credits, f->credits);
	return fd;
}

static void send_stripe(int fd, uint64_t id)
{
	assert_int_equal(test_send_stripe(fd, LEN, id), 0);
}

/* One header built by @p mutate, sent raw: the server answers ERROR @p code and closes. */
static void bad_header(struct fixture *f, int hello_first, void (*mutate)(struct gfec_rdma_hdr *),
		       int code)
{
	struct gfec_rdma_hdr h;
	int fd = hello_first ? hello_conn(f) : test_raw_connect(f->ts.port);

	assert_true(fd >= 0);
	test_stripe(&h, 4, 2, LEN, 1);
	if (!hello_first)
		test_hello(&h, 4, 2, LEN);
	mutate(&h);
	assert_int_equal(test_send_hdr(fd, &h), 0);
	assert_int_equal(test_expect_error(fd, code), 0);
	close(fd);
	after_case(f, 1, 0);
}

static void m_magic(struct gfec_rdma_hdr *h)
{
	h->magic = 0x50545448; /* "HTTP" */
}

static void m_version(struct gfec_rdma_hdr *h)
{
	h->version = 9;
}

static void m_hdr_len(struct gfec_rdma_hdr *h)
{
	h->hdr_len = 64;
}

static void m_type(struct gfec_rdma_hdr *h)
{
	h->type = 77;
}

static void m_parity_from_client(struct gfec_rdma_hdr *h)
{
	h->type = GFEC_RDMA_PARITY;
	h->payload_len = 2 * LEN;
}

static void m_unknown_code(struct gfec_rdma_hdr *h)
{
	h->k = 6;
	h->m = 3;
}

static void m_huge_chunk(struct gfec_rdma_hdr *h)
{
	h->chunk_len = 1u << 20; /* over max_chunk (64 KiB) */
}

static void m_oversize(struct gfec_rdma_hdr *h)
{
	h->chunk_len = 1u << 20;
	h->payload_len = 4u << 20; /* consistent, but over the server's limit */
}

static void m_inconsistent(struct gfec_rdma_hdr *h)
{
	h->payload_len = 4 * LEN + 1;
}

static void m_other_code(struct gfec_rdma_hdr *h)
{
	h->k = 10;
	h->m = 4;
	h->payload_len = 10 * LEN;
}

static void m_other_len(struct gfec_rdma_hdr *h)
{
	h->chunk_len = LEN / 2;
	h->payload_len = 4 * LEN / 2;
}

static void m_second_hello(struct gfec_rdma_hdr *h)
{
	test_hello(h, 4, 2, LEN);
}

static void test_bad_headers(void **state)
{
	struct fixture *f = *state;

	bad_header(f, 0, m_magic, GFEC_RDMA_E_MAGIC);
	bad_header(f, 0, m_version, GFEC_RDMA_E_VERSION);
	bad_header(f, 0, m_hdr_len, GFEC_RDMA_E_VERSION);
	bad_header(f, 0, m_type, GFEC_RDMA_E_TYPE);
	bad_header(f, 0, m_unknown_code, GFEC_RDMA_E_CODE);
	bad_header(f, 0, m_huge_chunk, GFEC_RDMA_E_LENGTH);
	bad_header(f, 1, m_magic, GFEC_RDMA_E_MAGIC);
	bad_header(f, 1, m_parity_from_client, GFEC_RDMA_E_TYPE);
	bad_header(f, 1, m_oversize, GFEC_RDMA_E_LENGTH);
	bad_header(f, 1, m_inconsistent, GFEC_RDMA_E_LENGTH);
	bad_header(f, 1, m_other_code, GFEC_RDMA_E_CODE);
	bad_header(f, 1, m_other_len, GFEC_RDMA_E_LENGTH);
	bad_header(f, 1, m_second_hello, GFEC_RDMA_E_TYPE);
}

static void test_stripe_before_hello(void **state)
{
	struct fixture *f = *state;
	int fd = test_raw_connect(f->ts.port);

	send_stripe(fd, 1);
	assert_int_equal(test_expect_error(fd, GFEC_RDMA_E_TYPE), 0);
	close(fd);
	after_case(f, 1, 0);
}

static void test_reused_id(void **state)
{
	struct fixture *f = *state;
	struct gfec_rdma_hdr h;
	uint8_t parity[2 * LEN];
	int fd = hello_conn(f);

	send_stripe(fd, 5);
	assert_int_equal(test_recv_hdr(fd, &h), 0);
	assert_int_equal(h.type, GFEC_RDMA_PARITY);
	assert_int_equal(h.stripe_id, 5);
	assert_int_equal(test_recv_all(fd, parity, sizeof(parity)), 0);
	send_stripe(fd, 5); /* after it completed, too: ids only grow */
	assert_int_equal(test_expect_error(fd, GFEC_RDMA_E_STRIPE_ID), 0);
	close(fd);
	after_case(f, 1, 0);

	fd = hello_conn(f);
	send_stripe(fd, 9);
	send_stripe(fd, 8);
	/* 9's parity may come first; then the ERROR. */
	assert_int_equal(test_recv_hdr(fd, &h), 0);
	if (h.type == GFEC_RDMA_PARITY) {
		assert_int_equal(test_recv_all(fd, parity, sizeof(parity)), 0);
		assert_int_equal(test_recv_hdr(fd, &h), 0);
	}
	assert_int_equal(h.type, GFEC_RDMA_ERROR);
	assert_int_equal(h.status, GFEC_RDMA_E_STRIPE_ID);
	close(fd);
	after_case(f, 1, 0);
}

/* A message cut short: the header alone, then half a payload. */
static void test_truncated(void **state)
{
	struct fixture *f = *state;
	static uint8_t half[2 * LEN];
	struct gfec_rdma_hdr h;
	uint8_t raw[GFEC_RDMA_HDR_LEN];
	int fd = test_raw_connect(f->ts.port);

	test_hello(&h, 4, 2, LEN);
	gfec_rdma_hdr_pack(&h, raw);
	assert_int_equal(test_send_all(fd, raw, 17), 0);
	close(fd);
	after_case(f, 0, 1);

	fd = hello_conn(f);
	test_stripe(&h, 4, 2, LEN, 1);
	assert_int_equal(test_send_hdr(fd, &h), 0);
	assert_int_equal(test_send_all(fd, half, sizeof(half)), 0);
	close(fd);
	after_case(f, 0, 1);
}

/* Stripes queued in the batcher or in a running batch when their client leaves. */
static void test_disconnect_mid_batch(void **state)
{
	struct fixture *f = *state;
	uint64_t dropped = f->base.stripes_dropped + 3;
	int fd = hello_conn(f);

	send_stripe(fd, 1);
	send_stripe(fd, 2);
	send_stripe(fd, 3);
	close(fd);
	after_case(f, 0, 1);
	assert_true(TEST_WAIT_STATS(&f->ts, st.stripes_dropped == dropped));
}

/*
 * The same with a long deadline, so the stripes are certainly still queued when the connection
 * goes: the batcher must drop them without encoding (no batch launches at all).
 */
static void test_dead_before_launch(void **state)
{
	struct test_server ts;
	struct gfec_rdma_server_config cfg;
	struct gfec_rdma_hdr h;
	int fd;

	(void)state;
	gfec_rdma_server_config_default(&cfg);
	cfg.bind = "127.0.0.1:0";
	cfg.profile = "backend=cpu threads=1";
	cfg.deadline_us = 1000000;
	assert_int_equal(test_server_start(&ts, &cfg), 0);
	fd = test_raw_hello(ts.port, LEN, &h);
	assert_true(fd >= 0);
	for (int i = 1; i <= 3; i++)
		send_stripe(fd, (uint64_t)i);
	close(fd);
	assert_true(TEST_WAIT_STATS(&ts, st.conns_lost == 1 && st.stripes_dropped == 3 &&
					     st.buffer_bytes == 0 && st.conns_active == 0));
	assert_int_equal(test_stats(&ts).batches, 0);
	test_server_stop(&ts);
}

/*
 * More stripes than credits, without reading parity: the server must not take the extra one.
 * A long deadline keeps the first ones queued, so no parity can free a credit meanwhile.
 */
static void test_credit_overrun(void **state)
{
	struct test_server ts;
	struct gfec_rdma_server_config cfg;
	struct gfec_rdma_hdr h;
	int fd;

	(void)state;
	gfec_rdma_server_config_default(&cfg);
	cfg.bind = "127.0.0.1:0";
	cfg.profile = "backend=cpu threads=1";
	cfg.deadline_us = 1000000;
	cfg.credits = 4;
	assert_int_equal(test_server_start(&ts, &cfg), 0);
	fd = test_raw_hello(ts.port, LEN, &h);
	assert_true(fd >= 0);
	assert_int_equal(h.credits, 4);
	for (int i = 1; i <= 5; i++)
		send_stripe(fd, (uint64_t)i);
	assert_int_equal(test_expect_error(fd, GFEC_RDMA_E_CREDITS), 0);
	close(fd);
	assert_true(TEST_WAIT_STATS(&ts, st.conns_bad == 1 && st.stripes_dropped == 4 &&
					     st.buffer_bytes == 0 && st.conns_active == 0));
	test_server_stop(&ts);
}

/* The server's own limits: a connection over max_conns is refused with BUSY. */
static void test_busy(void **state)
{
	struct test_server ts;
	struct gfec_rdma_server_config cfg;
	gfec_rdma_client *a, *b;
	unsigned credits;

	(void)state;
	gfec_rdma_server_config_default(&cfg);
	cfg.bind = "127.0.0.1:0";
	cfg.profile = "backend=cpu threads=1";
	cfg.max_conns = 1;
	assert_int_equal(test_server_start(&ts, &cfg), 0);
	assert_int_equal(gfec_rdma_client_connect("tcp", ts.addr, 4, 2, LEN, &a, &credits), 0);
	assert_int_equal(gfec_rdma_client_connect("tcp", ts.addr, 4, 2, LEN, &b, &credits),
			 GFEC_RDMA_E_BUSY);
	gfec_rdma_client_close(a);
	assert_true(TEST_WAIT_STATS(&ts, st.conns_active == 0));
	assert_int_equal(gfec_rdma_client_connect("tcp", ts.addr, 4, 2, LEN, &b, &credits), 0);
	gfec_rdma_client_close(b);
	test_server_stop(&ts);
}

/* The stripe-buffer cap: room for one (4,2) connection of 4 credits x 6 KiB, not two; a
 * connection of smaller chunks still fits beside it, and the room comes back on close. */
static void test_buffer_cap(void **state)
{
	struct test_server ts;
	struct gfec_rdma_server_config cfg;
	gfec_rdma_client *a, *b, *small;
	unsigned credits, seed = 5;
	uint64_t id = 1;

	(void)state;
	gfec_rdma_server_config_default(&cfg);
	cfg.bind = "127.0.0.1:0";
	cfg.profile = "technique=cauchy backend=cpu threads=1";
	cfg.codes = "4,2";
	cfg.credits = 4;
	cfg.max_buffer_bytes = 4 * 6 * LEN + 4 * 6 * 64;
	assert_int_equal(test_server_start(&ts, &cfg), 0);
	assert_int_equal(gfec_rdma_client_connect("tcp", ts.addr, 4, 2, LEN, &a, &credits), 0);
	assert_int_equal(gfec_rdma_client_connect("tcp", ts.addr, 4, 2, LEN, &b, &credits),
			 GFEC_RDMA_E_BUSY);
	assert_int_equal(gfec_rdma_client_connect("tcp", ts.addr, 4, 2, 64, &small, &credits), 0);
	assert_int_equal(test_roundtrip(a, 4, 2, LEN, 20, &id, &seed), 0);
	gfec_rdma_client_close(a);
	gfec_rdma_client_close(small);
	assert_true(TEST_WAIT_STATS(&ts, st.conns_active == 0));
	assert_int_equal(gfec_rdma_client_connect("tcp", ts.addr, 4, 2, LEN, &b, &credits), 0);
	id = 1;
	assert_int_equal(test_roundtrip(b, 4, 2, LEN, 20, &id, &seed), 0);
	gfec_rdma_client_close(b);
	test_server_stop(&ts);
}

static void test_config_errors(void **state)
{
	static const char *const loose[] = { "+4,2", "4, 2", "4,+2" };
	struct gfec_rdma_server_config cfg;
	gfec_rdma_server *srv;
	char err[256];

	(void)state;
	gfec_rdma_server_config_default(&cfg);
	cfg.bind = "127.0.0.1:0";
	cfg.transport = "pigeon";
	assert_int_equal(gfec_rdma_server_create(&cfg, &srv, err, sizeof(err)),
			 GFEC_RDMA_E_TRANSPORT);
	assert_non_null(strstr(err, "not in this build"));
	assert_null(srv);
	cfg.transport = "tcp";
	cfg.memory = "fpga";
	assert_int_equal(gfec_rdma_server_create(&cfg, &srv, err, sizeof(err)), GFEC_E_INVAL);
	assert_null(srv);
	cfg.memory = "gpu"; /* tcp has no registered memory: host buffers, and it says so */
	assert_int_equal(gfec_rdma_server_create(&cfg, &srv, err, sizeof(err)), 0);
	assert_non_null(strstr(gfec_rdma_server_memory(srv), "host"));
	gfec_rdma_server_free(srv);
	cfg.memory = NULL;
	cfg.credits = RDMA_MAX_CREDITS + 1;
	assert_int_equal(gfec_rdma_server_create(&cfg, &srv, err, sizeof(err)), GFEC_E_INVAL);
	cfg.credits = 32;
	cfg.io_threads = 0;
	assert_int_equal(gfec_rdma_server_create(&cfg, &srv, err, sizeof(err)), GFEC_E_INVAL);
	cfg.io_threads = RDMA_MAX_SHARDS + 1;
	assert_int_equal(gfec_rdma_server_create(&cfg, &srv, err, sizeof(err)), GFEC_E_INVAL);
	cfg.io_threads = 1;
	cfg.max_buffer_bytes = 0;
	assert_int_equal(gfec_rdma_server_create(&cfg, &srv, err, sizeof(err)), GFEC_E_INVAL);
	cfg.max_buffer_bytes = 1 << 20;
#ifdef GFEC_HAVE_VERBS
	/* verbs where no RDMA device serves the address: a clear refusal */
	cfg.transport = "verbs";
	assert_int_not_equal(gfec_rdma_server_create(&cfg, &srv, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "RDMA"));
#endif
	assert_null(srv);
	cfg.transport = "tcp";
	cfg.codes = "4,2 3";
	assert_int_equal(gfec_rdma_server_create(&cfg, &srv, err, sizeof(err)), GFEC_E_INVAL);
	cfg.codes = "4,5";
	assert_int_equal(gfec_rdma_server_create(&cfg, &srv, err, sizeof(err)), GFEC_E_INVAL);
	/* gfec's number syntax: strtol took a sign, and a space before m */
	for (size_t i = 0; i < sizeof(loose) / sizeof(loose[0]); i++) {
		cfg.codes = loose[i];
		assert_int_equal(gfec_rdma_server_create(&cfg, &srv, err, sizeof(err)),
				 GFEC_E_INVAL);
	}
	cfg.codes = "4,2";
	cfg.bind = "127.0.0.1";
	assert_int_equal(gfec_rdma_server_create(&cfg, &srv, err, sizeof(err)),
			 GFEC_RDMA_E_ADDRESS);
	cfg.bind = "127.0.0.1:0";
	cfg.profile = "technique=nonsense";
	assert_int_equal(gfec_rdma_server_create(&cfg, &srv, err, sizeof(err)), GFEC_E_PROFILE);
	assert_non_null(strstr(err, "technique"));
}

struct client_job {
	const char *addr;
	unsigned seed;
	int ret;
};

static void *client_job(void *arg)
{
	struct client_job *j = arg;
	gfec_rdma_client *c;
	unsigned credits;
	uint64_t id = 1;

	j->ret = gfec_rdma_client_connect("tcp", j->addr, 4, 2, LEN, &c, &credits);
	if (!j->ret)
		j->ret = test_roundtrip(c, 4, 2, LEN, 200, &id, &j->seed);
	gfec_rdma_client_close(c);
	return NULL;
}

/* 12 clients at once on 3 I/O threads: each gets its own parity, checked. */
static void test_many_clients(void **state)
{
	struct fixture *f = *state;
	struct client_job jobs[12];
	pthread_t th[12];

	for (int i = 0; i < 12; i++) {
		jobs[i] = (struct client_job){f->ts.addr, (unsigned)i + 100, -1};
		assert_int_equal(pthread_create(&th[i], NULL, client_job, &jobs[i]), 0);
	}
	for (int i = 0; i < 12; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(jobs[i].ret, 0);
	}
	assert_true(TEST_WAIT_STATS(&f->ts, st.conns_active == 1));
	assert_int_equal(test_roundtrip(f->good, 4, 2, LEN, 3, &f->good_id, &f->seed), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bad_headers),
	    cmocka_unit_test(test_stripe_before_hello),
	    cmocka_unit_test(test_reused_id),
	    cmocka_unit_test(test_truncated),
	    cmocka_unit_test(test_disconnect_mid_batch),
	    cmocka_unit_test(test_many_clients),
	};
	const struct CMUnitTest alone[] = {
	    cmocka_unit_test(test_dead_before_launch),
	    cmocka_unit_test(test_credit_overrun),
	    cmocka_unit_test(test_busy),
	    cmocka_unit_test(test_buffer_cap),
	    cmocka_unit_test(test_config_errors),
	};

	return cmocka_run_group_tests(tests, setup, teardown) |
	       cmocka_run_group_tests(alone, NULL, NULL);
}
