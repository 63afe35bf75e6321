/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_rdma_cycles.c
 * 1000 connect/disconnect cycles against the ingest server, leaving in every way a client can:
 * before HELLO, after it, after a complete round trip, with stripes outstanding, mid-header,
 * mid-payload, and after bad input. Afterwards the server must hold no connection, no stripe
 * buffer and no extra file descriptor. ctest runs this under valgrind --leak-check=full (or, in
 * the sanitizer build, under LeakSanitizer), which catches what the counters cannot.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "rdma_test.h"

#define LEN 512
#define CYCLES 1000

static void test_cycles(void **state)
{
	static uint8_t payload[LEN];
	struct gfec_rdma_server_config cfg;
	struct test_server ts;
	unsigned seed = 3;
	int fds_before;
	uint64_t total;

	(void)state;
	gfec_rdma_server_config_default(&cfg);
	cfg.bind = "127.0.0.1:0";
	cfg.codes = "4,2";
	cfg.profile = "technique=cauchy backend=cpu threads=1 async_threads=1";
	cfg.batch = 4;
	cfg.deadline_us = 100;
	cfg.credits = 4;
	cfg.io_threads = 2; /* connections alternate between two I/O threads */
	fds_before = test_count_fds();
	assert_int_equal(test_server_start(&ts, &cfg), 0);

	for (int i = 0; i < CYCLES; i++) {
		struct gfec_rdma_hdr h;
		gfec_rdma_client *c;
		unsigned credits;
		uint64_t id = 1;
		int fd;

		switch (i % 7) {
		case 0: /* connect, leave */
			fd = test_raw_connect(ts.port);
			assert_true(fd >= 0);
			close(fd);
			break;
		case 1: /* HELLO, leave */
			assert_int_equal(
			    gfec_rdma_client_connect("tcp", ts.addr, 4, 2, LEN, &c, &credits), 0);
			gfec_rdma_client_close(c);
			break;
		case 2: /* a checked round trip, leave */
			assert_int_equal(
			    gfec_rdma_client_connect("tcp", ts.addr, 4, 2, LEN, &c, &credits), 0);
			assert_int_equal(test_roundtrip(c, 4, 2, LEN, 2, &id, &seed), 0);
			gfec_rdma_client_close(c);
			break;
		case 3: /* stripes outstanding */
			fd = test_raw_hello(ts.port, LEN, &h);
			assert_true(fd >= 0);
			for (uint64_t s = 1; s <= 3; s++)
				assert_int_equal(test_send_stripe(fd, LEN, s), 0);
			close(fd);
			break;
		case 4: /* mid-header */
			fd = test_raw_connect(ts.port);
			assert_int_equal(test_send_all(fd, "GFEC\x01", 5), 0);
			close(fd);
			break;
		case 5: /* mid-payload */
			fd = test_raw_hello(ts.port, LEN, &h);
			assert_true(fd >= 0);
			test_stripe(&h, 4, 2, LEN, 1);
			assert_int_equal(test_send_hdr(fd, &h), 0);
			assert_int_equal(test_send_all(fd, payload, LEN), 0);
			close(fd);
			break;
		case 6: /* bad input after a stripe */
			fd = test_raw_hello(ts.port, LEN, &h);
			assert_true(fd >= 0);
			assert_int_equal(test_send_stripe(fd, LEN, 1), 0);
			test_stripe(&h, 4, 2, LEN, 1);
			h.magic = 0;
			assert_int_equal(test_send_hdr(fd, &h), 0);
			close(fd);
			break;
		}
	}
	total = CYCLES;
	assert_true(TEST_WAIT_STATS(&ts, st.conns_accepted == total && st.conns_active == 0 &&
					     st.buffer_bytes == 0));
	/* The server's own descriptors (listener; epoll and eventfd per I/O thread) are all it
	 * holds. */
	assert_int_equal(test_count_fds(), fds_before + 1 + 2 * (int)cfg.io_threads);
	test_server_stop(&ts);
	assert_int_equal(test_count_fds(), fds_before);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cycles),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
