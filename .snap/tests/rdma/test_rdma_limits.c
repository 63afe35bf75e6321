/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_rdma_limits.c
 * Clients that try to lock the ingest server out (issue 10): many distinct chunk lengths over
 * time (the batching classes must come back), connections that never finish their HELLO (the
 * header timeout), a flood from one address (the per-address limit), HELLOs that reserve
 * stripe buffers and send nothing (the idle timeout), and the counters that tell refusals
 * (busy) and timeouts apart from bad input. TCP on loopback; timeouts of under a second.
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "core.h"
#include "rdma_test.h"

#define LEN 1024

static void config(struct gfec_rdma_server_config *cfg)
{
	gfec_rdma_server_config_default(cfg);
	cfg->bind = "127.0.0.1:0";
	cfg->codes = "4,2";
	cfg->profile = "technique=cauchy backend=cpu threads=1";
	cfg->batch = 4;
	cfg->deadline_us = 200;
	cfg->credits = 4;
	cfg->max_chunk = 64 << 10;
}

/* The first 10 bytes of a HELLO, and nothing more. */
static int half_hello(int fd)
{
	struct gfec_rdma_hdr h;
	uint8_t raw[GFEC_RDMA_HDR_LEN];

	test_hello(&h, 4, 2, LEN);
	gfec_rdma_hdr_pack(&h, raw);
	return test_send_all(fd, raw, 10);
}

/* A client connects, gets 3 checked stripes back and leaves. @returns connect's result. */
static int served(struct test_server *ts, size_t len, unsigned seed)
{
	gfec_rdma_client *c;
	unsigned credits;
	uint64_t id = 1;
	int ret = gfec_rdma_client_connect("tcp", ts->addr, 4, 2, len, &c, &credits);

	if (!ret)
		ret = test_roundtrip(c, 4, 2, len, 3, &id, &seed);
	gfec_rdma_client_close(c);
	return ret;
}

/* Defect 6: a class per distinct chunk length, at most 64 at once. 100 clients one after the
 * other, each with its own length, must all be served: a class goes with its last connection. */
static void test_classes_come_back(void **state)
{
	struct test_server ts;
	struct gfec_rdma_server_config cfg;

	(void)state;
	config(&cfg);
	assert_int_equal(test_server_start(&ts, &cfg), 0);
	for (int i = 0; i < 100; i++) {
		assert_int_equal(served(&ts, 64 + 8 * (size_t)i, (unsigned)i), 0);
		assert_true(TEST_WAIT_STATS(&ts, st.conns_active == 0));
	}
	assert_true(TEST_WAIT_STATS(&ts, st.conns_accepted == 100 && st.conns_busy == 0 &&
					     st.conns_bad == 0 && st.stripes == 300));
	test_server_stop(&ts);
}

/* Defect 7: connections that send 10 bytes of a HELLO fill the server; a real client is
 * refused (busy) until the header timeout closes them, then served. */
static void test_half_hellos_time_out(void **state)
{
	enum { N = 48 };
	struct test_server ts;
	struct gfec_rdma_server_config cfg;
	int fds[N];

	(void)state;
	config(&cfg);
	cfg.max_conns = N;
	cfg.max_conns_per_addr = 0; /* the timeout alone */
	cfg.header_timeout_ms = 1000;
	assert_int_equal(test_server_start(&ts, &cfg), 0);
	for (int i = 0; i < N; i++) {
		fds[i] = test_raw_connect(ts.port);
		assert_true(fds[i] >= 0);
		assert_int_equal(half_hello(fds[i]), 0);
	}
	assert_true(TEST_WAIT_STATS(&ts, st.conns_accepted == N));
	assert_int_equal(served(&ts, LEN, 1), GFEC_RDMA_E_BUSY);
	assert_true(TEST_WAIT_STATS(&ts, st.conns_timed_out == N && st.conns_active == 0));
	for (int i = 0; i < N; i++) {
		assert_int_equal(test_expect_error(fds[i], GFEC_RDMA_E_TIMEOUT), 0);
		close(fds[i]);
	}
	assert_int_equal(served(&ts, LEN, 2), 0);
	assert_true(TEST_WAIT_STATS(&ts, st.conns_busy == 1 && st.conns_bad == 0));
	test_server_stop(&ts);
}

/* Defect 7: a flood from one address stops at max_conns_per_addr (refused busy), so a client
 * from another address is served at once, with no timeout to wait for; the flood's room comes
 * back as its connections close. */
static void test_per_address_limit(void **state)
{
	enum { N = 20, LIMIT = 8 };
	struct test_server ts;
	struct gfec_rdma_server_config cfg;
	int fds[N];

	(void)state;
	config(&cfg);
	cfg.max_conns = 16;
	cfg.max_conns_per_addr = LIMIT;
	cfg.header_timeout_ms = 0; /* the limit alone */
	assert_int_equal(test_server_start(&ts, &cfg), 0);
	for (int i = 0; i < N; i++) {
		fds[i] = test_raw_connect_from("127.0.0.2", ts.port);
		assert_true(fds[i] >= 0);
		assert_int_equal(half_hello(fds[i]), 0);
	}
	for (int i = LIMIT; i < N; i++)
		assert_int_equal(test_expect_error(fds[i], GFEC_RDMA_E_BUSY), 0);
	assert_true(TEST_WAIT_STATS(&ts, st.conns_accepted == LIMIT && st.conns_busy == N - LIMIT));
	assert_int_equal(served(&ts, LEN, 3), 0); /* from 127.0.0.1 */
	for (int i = 0; i < N; i++)
		close(fds[i]);
	assert_true(TEST_WAIT_STATS(&ts, st.conns_active == 0));
	for (int i = 0; i < LIMIT; i++) {
		fds[i] = test_raw_connect_from("127.0.0.2", ts.port);
		assert_true(fds[i] >= 0);
	}
	assert_true(TEST_WAIT_STATS(&ts, st.conns_accepted == 2 * LIMIT + 1 &&
					     st.conns_active == LIMIT && st.conns_bad == 0 &&
					     st.conns_busy == N - LIMIT));
	for (int i = 0; i < LIMIT; i++)
		close(fds[i]);
	test_server_stop(&ts);
}

static void key_of(const char *addr, uint8_t key[16])
{
	struct sockaddr_in v4 = { .sin_family = AF_INET };
	struct sockaddr_in6 v6 = { .sin6_family = AF_INET6 };

	if (inet_pton(AF_INET, addr, &v4.sin_addr) == 1)
		assert_int_equal(rdma_peer_key((const struct sockaddr *)&v4, key), 1);
	else if (inet_pton(AF_INET6, addr, &v6.sin6_addr) == 1)
		assert_int_equal(rdma_peer_key((const struct sockaddr *)&v6, key), 1);
	else
		fail_msg("bad test address %s", addr);
}

/* The per-address limit counts an IPv6 host by its /64: addresses rotated inside one /64 share a
 * count, other /64s and IPv4 addresses (plain or v4-mapped, the same) do not. */
static void test_peer_key(void **state)
{
	static const char *const same[][2] = {
		{ "2001:db8:1:2::1", "2001:db8:1:2:ffff:ffff:ffff:ffff" },
		{ "10.0.0.7", "::ffff:10.0.0.7" },
		{ "::1", "::2" },
	};
	static const char *const differ[][2] = {
		{ "2001:db8:1:2::1", "2001:db8:1:3::1" },
		{ "10.0.0.7", "10.0.0.8" },
		{ "::ffff:10.0.0.7", "::ffff:10.0.0.8" },
		{ "10.0.0.7", "::a00:7" },
	};
	uint8_t a[16], b[16];
	struct sockaddr unix_sa = { .sa_family = AF_UNIX };

	(void)state;
	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		key_of(same[i][0], a);
		key_of(same[i][1], b);
		assert_memory_equal(a, b, 16);
	}
	for (size_t i = 0; i < sizeof(differ) / sizeof(differ[0]); i++) {
		key_of(differ[i][0], a);
		key_of(differ[i][1], b);
		assert_memory_not_equal(a, b, 16);
	}
	assert_int_equal(rdma_peer_key(&unix_sa, a), 0);
	assert_int_equal(rdma_peer_key(NULL, a), 0);
}

/* Defect 7: a HELLO reserves stripe buffers (here all there are); with no stripe after it the
 * reservation expires with its connection, and a busy client is served. A client that keeps
 * sending, more slowly than the timeout in all but never idle that long, is not cut off. */
static void test_hello_reservation_expires(void **state)
{
	struct test_server ts;
	struct gfec_rdma_server_config cfg;
	struct gfec_rdma_hdr ack;
	gfec_rdma_client *c;
	unsigned credits, seed = 4;
	uint64_t id = 1;
	int fd;

	(void)state;
	config(&cfg);
	cfg.max_buffer_bytes = 4 * 6 * LEN; /* one connection's credits */
	cfg.idle_timeout_ms = 600;
	assert_int_equal(test_server_start(&ts, &cfg), 0);
	fd = test_raw_hello(ts.port, LEN, &ack);
	assert_true(fd >= 0);
	assert_int_equal(ack.type, GFEC_RDMA_HELLO_ACK);
	assert_int_equal(served(&ts, LEN, 5), GFEC_RDMA_E_BUSY);
	assert_int_equal(test_expect_error(fd, GFEC_RDMA_E_TIMEOUT), 0);
	close(fd);
	assert_true(TEST_WAIT_STATS(&ts, st.conns_timed_out == 1 && st.conns_active == 0));
	assert_int_equal(gfec_rdma_client_connect("tcp", ts.addr, 4, 2, LEN, &c, &credits), 0);
	for (int i = 0; i < 8; i++) { /* 8 x 150 ms: twice the timeout in all */
		assert_int_equal(test_roundtrip(c, 4, 2, LEN, 1, &id, &seed), 0);
		test_sleep_ms(150);
	}
	gfec_rdma_client_close(c);
	assert_true(TEST_WAIT_STATS(&ts, st.conns_active == 0 && st.conns_timed_out == 1 &&
					     st.conns_busy == 1 && st.conns_bad == 0));
	test_server_stop(&ts);
}

/* A client that sends a full window of stripes and never reads its parity holds the server's
 * slots (their parity cannot all be sent): the idle timeout closes it too, and frees them. */
static void test_reader_that_stops(void **state)
{
	enum { CREDITS = 16, CHUNK = 256 << 10 }; /* 8 MiB of parity: more than a socket holds */
	static const uint8_t zeros[4 * CHUNK];
	struct test_server ts;
	struct gfec_rdma_server_config cfg;
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct gfec_rdma_hdr h;
	int fd, small = 4096;

	(void)state;
	config(&cfg);
	cfg.credits = CREDITS;
	cfg.max_chunk = CHUNK;
	cfg.idle_timeout_ms = 600;
	assert_int_equal(test_server_start(&ts, &cfg), 0);
	to.sin_port = htons((uint16_t)ts.port);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	/* a small window: the server cannot park all the parity in the socket buffers */
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	assert_int_equal(connect(fd, (struct sockaddr *)&to, sizeof(to)), 0);
	test_hello(&h, 4, 2, CHUNK);
	assert_int_equal(test_send_hdr(fd, &h), 0);
	assert_int_equal(test_recv_hdr(fd, &h), 0);
	assert_int_equal(h.type, GFEC_RDMA_HELLO_ACK);
	for (uint64_t id = 1; id <= CREDITS; id++) {
		test_stripe(&h, 4, 2, CHUNK, id);
		assert_int_equal(test_send_hdr(fd, &h), 0);
		assert_int_equal(test_send_all(fd, zeros, sizeof(zeros)), 0);
	}
	assert_true(TEST_WAIT_STATS(&ts, st.conns_timed_out == 1 && st.conns_active == 0 &&
					     st.buffer_bytes == 0 && st.conns_bad == 0));
	close(fd);
	test_server_stop(&ts);
}

/* Defect 8: refusals for lack of room, at accept and at HELLO, are busy, not bad input. */
static void test_busy_is_not_bad(void **state)
{
	struct test_server ts;
	struct gfec_rdma_server_config cfg;
	gfec_rdma_client *a;
	unsigned credits;

	(void)state;
	config(&cfg);
	cfg.max_conns = 2;
	cfg.max_buffer_bytes = 4 * 6 * LEN;
	assert_int_equal(test_server_start(&ts, &cfg), 0);
	assert_int_equal(gfec_rdma_client_connect("tcp", ts.addr, 4, 2, LEN, &a, &credits), 0);
	assert_int_equal(served(&ts, LEN, 6), GFEC_RDMA_E_BUSY); /* at HELLO: buffers */
	assert_true(TEST_WAIT_STATS(&ts, st.conns_active == 1));
	{
		int fd = test_raw_connect(ts.port); /* holds the second connection */

		assert_true(fd >= 0);
		assert_true(TEST_WAIT_STATS(&ts, st.conns_active == 2));
		assert_int_equal(served(&ts, LEN, 7), GFEC_RDMA_E_BUSY); /* at accept: full */
		close(fd);
	}
	gfec_rdma_client_close(a);
	assert_true(TEST_WAIT_STATS(&ts, st.conns_active == 0 && st.conns_busy == 2 &&
					     st.conns_bad == 0 && st.conns_lost == 0));
	test_server_stop(&ts);
}

static void test_config_defaults(void **state)
{
	struct gfec_rdma_server_config cfg;

	(void)state;
	gfec_rdma_server_config_default(&cfg);
	assert_int_equal(cfg.header_timeout_ms, 5000);
	assert_int_equal(cfg.idle_timeout_ms, 60000);
	assert_int_equal(cfg.max_conns_per_addr, 64);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_classes_come_back),
	    cmocka_unit_test(test_half_hellos_time_out),
	    cmocka_unit_test(test_per_address_limit),
	    cmocka_unit_test(test_peer_key),
	    cmocka_unit_test(test_hello_reservation_expires),
	    cmocka_unit_test(test_reader_that_stops),
	    cmocka_unit_test(test_busy_is_not_bad),
	    cmocka_unit_test(test_config_defaults),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
