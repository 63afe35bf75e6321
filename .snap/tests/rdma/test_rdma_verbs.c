/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The verbs transport against a real RDMA device. These machines have none, so this runs in a
 * soft-RoCE VM (tests/rdma/vm/): the server binds $RDMA_IP (an address on the rxe device), and
 * without one the test reports skipped. Checked parity, a malformed message, a stripe before
 * HELLO, an unserved code, the client's own credit limit, a client that leaves with stripes
 * outstanding, the header and idle timeouts and the per-address limit; after each fault a fresh
 * client still gets correct parity. The server asks for GPU stripe memory, which cannot work
 * here, and must say it fell back to host memory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "internal.h"
#include "rdma_test.h"

#define K 4
#define M 2
#define LEN 4096
#define CREDITS 8

static struct test_server ts;
static unsigned seed = 7;
static uint64_t next_id = 1;

static void *run_main(void *arg)
{
	gfec_rdma_server_run(arg);
	return NULL;
}

/* @p limits: short header and idle timeouts, one connection per address */
static int start_server(struct test_server *t, int batch, unsigned deadline_us, int limits)
{
	struct gfec_rdma_server_config cfg;
	const char *ip = getenv("RDMA_IP");
	char bind[64], err[256];

	gfec_rdma_server_config_default(&cfg);
	snprintf(bind, sizeof(bind), "%s:0", ip);
	cfg.transport = "verbs";
	cfg.bind = bind;
	cfg.codes = "4,2";
	cfg.profile = "technique=cauchy backend=cpu threads=1";
	cfg.credits = CREDITS;
	cfg.batch = batch;
	cfg.deadline_us = deadline_us;
	cfg.memory = "gpu";
	if (limits) {
		cfg.header_timeout_ms = 1500;
		cfg.idle_timeout_ms = 1500;
		cfg.max_conns_per_addr = 1;
	}
	if (gfec_rdma_server_create(&cfg, &t->srv, err, sizeof(err))) {
		fprintf(stderr, "server: %s\n", err);
		return -1;
	}
	t->port = gfec_rdma_server_port(t->srv);
	snprintf(t->addr, sizeof(t->addr), "%s:%d", ip, t->port);
	return pthread_create(&t->thread, NULL, run_main, t->srv) ? -1 : 0;
}

static int setup(void **state)
{
	(void)state;
	return start_server(&ts, 4, 100, 0);
}

static int teardown(void **state)
{
	(void)state;
	test_server_stop(&ts);
	return 0;
}

/* A new client that round-trips @p n checked stripes. */
static void fresh_roundtrip(int n)
{
	gfec_rdma_client *c;
	unsigned credits;
	uint64_t id = 1;

	assert_int_equal(gfec_rdma_client_connect("verbs", ts.addr, K, M, LEN, &c, &credits), 0);
	assert_int_equal(credits, CREDITS);
	assert_int_equal(test_roundtrip(c, K, M, LEN, n, &id, &seed), 0);
	gfec_rdma_client_close(c);
}

static void memory_fallback_reported(void **state)
{
	const char *mem = gfec_rdma_server_memory(ts.srv);

	(void)state;
	printf("stripe memory: %s\n", mem);
	assert_non_null(strstr(mem, "host memory registered with the NIC"));
	assert_non_null(strstr(mem, "GPU memory not possible here"));
}

static void checked_parity(void **state)
{
	(void)state;
	fresh_roundtrip(500);
}

/* A full window in flight: every slot busy, parities back in any order. */
static void full_window(void **state)
{
	static uint8_t bufs[CREDITS][K + 2 * M][LEN];
	const uint8_t *data[CREDITS][K];
	uint8_t *par[M], *exp[CREDITS][M];
	gfec_codec *cpu;
	gfec_rdma_client *c;
	unsigned credits;

	(void)state;
	assert_int_equal(gfec_codec_create("k=4 m=2 technique=cauchy backend=cpu", &cpu, NULL, 0),
			 0);
	assert_int_equal(gfec_rdma_client_connect("verbs", ts.addr, K, M, LEN, &c, &credits), 0);
	for (int round = 0; round < 20; round++) {
		for (int s = 0; s < CREDITS; s++) {
			for (int j = 0; j < K; j++) {
				for (int b = 0; b < LEN; b++)
					bufs[s][j][b] = (uint8_t)rand_r(&seed);
				data[s][j] = bufs[s][j];
			}
			for (int j = 0; j < M; j++)
				exp[s][j] = bufs[s][K + j];
			assert_int_equal(gfec_encode(cpu, data[s], exp[s], LEN), 0);
			assert_int_equal(gfec_rdma_client_send(c, next_id + (uint64_t)s, data[s]),
					 0);
		}
		/* one more than the credits is refused by the client itself */
		assert_int_equal(gfec_rdma_client_send(c, next_id + CREDITS, data[0]),
				 GFEC_RDMA_E_CREDITS);
		for (int s = 0; s < CREDITS; s++) {
			uint8_t out[M][LEN];
			uint64_t id;
			int status;

			memset(out, 0xA5, sizeof(out));
			par[0] = out[0];
			par[1] = out[1];
			assert_int_equal(gfec_rdma_client_recv(c, &id, par, &status), 0);
			assert_int_equal(status, 0);
			assert_true(id >= next_id && id < next_id + CREDITS);
			for (int j = 0; j < M; j++)
				assert_memory_equal(out[j], exp[id - next_id][j], LEN);
		}
		next_id += CREDITS + 1;
	}
	gfec_rdma_client_close(c);
	gfec_codec_free(cpu);
}

/* Raw messages through the transport itself: the server answers ERROR, then disconnects. */
static void expect_error(const uint8_t *msg, size_t len, int code)
{
	const struct gfec_rdma_transport_ops *ops = rdma_transport_find("verbs");
	struct iovec iov = {(void *)msg, len};
	uint8_t raw[GFEC_RDMA_HDR_LEN];
	struct iovec riov = {raw, sizeof(raw)};
	struct gfec_rdma_hdr h;
	char host[64], port[16];
	void *cp;

	assert_int_equal(rdma_split_addr(ts.addr, host, sizeof(host), port, sizeof(port)), 0);
	assert_int_equal(ops->connect(host, port, &cp), 0);
	assert_int_equal(ops->send(cp, &iov, 1), 0);
	assert_int_equal(ops->recv(cp, &riov, 1), 0);
	assert_int_equal(gfec_rdma_hdr_unpack(raw, 0, &h), 0);
	assert_int_equal(h.type, GFEC_RDMA_ERROR);
	assert_int_equal(h.status, code);
	assert_int_equal(ops->recv(cp, &riov, 1), GFEC_RDMA_E_CLOSED);
	ops->close(cp);
}

static void malformed_messages(void **state)
{
	struct gfec_rdma_hdr h;
	uint8_t msg[GFEC_RDMA_HDR_LEN];
	uint64_t bad0 = test_stats(&ts).conns_bad;

	(void)state;
	memset(msg, 0x5A, sizeof(msg)); /* wrong magic */
	expect_error(msg, sizeof(msg), GFEC_RDMA_E_MAGIC);
	test_stripe(&h, K, M, LEN, 1); /* a stripe before HELLO */
	gfec_rdma_hdr_pack(&h, msg);
	expect_error(msg, sizeof(msg), GFEC_RDMA_E_TYPE);
	expect_error(msg, 16, GFEC_RDMA_E_LENGTH); /* a truncated message */
	assert_true(TEST_WAIT_STATS(&ts, st.conns_bad == bad0 + 3));
	fresh_roundtrip(50);
}

static void unserved_code(void **state)
{
	gfec_rdma_client *c;
	unsigned credits;

	(void)state;
	assert_int_equal(gfec_rdma_client_connect("verbs", ts.addr, 6, 3, LEN, &c, &credits),
			 GFEC_RDMA_E_CODE);
	assert_null(c);
	fresh_roundtrip(20);
}

/*
 * Clients that leave with a full window outstanding, twice. Their server batches 1024 stripes
 * or waits 2 s, so the stripes are certainly still in the codec's window when the clients go;
 * it must count them lost, withdraw and drop their stripes and free every buffer.
 */
static void disconnect_midstream(void **state)
{
	static uint8_t chunk[K][LEN];
	const uint8_t *data[K] = {chunk[0], chunk[1], chunk[2], chunk[3]};
	struct test_server slow;
	struct gfec_rdma_stats now;

	(void)state;
	assert_int_equal(start_server(&slow, 1024, 2000000, 0), 0);
	for (int round = 0; round < 2; round++) {
		gfec_rdma_client *c;
		unsigned credits;

		assert_int_equal(
		    gfec_rdma_client_connect("verbs", slow.addr, K, M, LEN, &c, &credits), 0);
		for (unsigned s = 0; s < credits; s++)
			assert_int_equal(gfec_rdma_client_send(c, s + 1, data), 0);
		gfec_rdma_client_close(c);
	}
	TEST_WAIT_STATS(&slow, st.conns_active == 0 && st.buffer_bytes == 0);
	now = test_stats(&slow);
	printf("slow server: %llu lost, %llu active, %llu stripes dropped, %llu buffer bytes\n",
	       (unsigned long long)now.conns_lost, (unsigned long long)now.conns_active,
	       (unsigned long long)now.stripes_dropped, (unsigned long long)now.buffer_bytes);
	assert_int_equal(now.conns_lost, 2);
	assert_int_equal(now.conns_active, 0);
	assert_int_equal(now.stripes_dropped, 2 * CREDITS);
	assert_int_equal(now.buffer_bytes, 0);
	test_server_stop(&slow);
	fresh_roundtrip(50);
}

/* A raw transport connection to @p t that sends @p hello (HELLO_ACK expected) or nothing, and
 * is then told ERROR TIMEOUT and disconnected; meanwhile a second one from the same address is
 * refused (busy). */
static void silent_client(struct test_server *t, int hello)
{
	const struct gfec_rdma_transport_ops *ops = rdma_transport_find("verbs");
	uint8_t raw[GFEC_RDMA_HDR_LEN];
	struct iovec iov = {raw, sizeof(raw)};
	struct gfec_rdma_hdr h;
	char host[64], port[16];
	void *cp, *cp2;

	assert_int_equal(rdma_split_addr(t->addr, host, sizeof(host), port, sizeof(port)), 0);
	assert_int_equal(ops->connect(host, port, &cp), 0);
	assert_int_equal(ops->connect(host, port, &cp2), GFEC_RDMA_E_BUSY);
	if (hello) {
		test_hello(&h, K, M, LEN);
		gfec_rdma_hdr_pack(&h, raw);
		assert_int_equal(ops->send(cp, &iov, 1), 0);
		assert_int_equal(ops->recv(cp, &iov, 1), 0);
		assert_int_equal(gfec_rdma_hdr_unpack(raw, 0, &h), 0);
		assert_int_equal(h.type, GFEC_RDMA_HELLO_ACK);
	}
	assert_int_equal(ops->recv(cp, &iov, 1), 0);
	assert_int_equal(gfec_rdma_hdr_unpack(raw, 0, &h), 0);
	assert_int_equal(h.type, GFEC_RDMA_ERROR);
	assert_int_equal(h.status, GFEC_RDMA_E_TIMEOUT);
	assert_int_equal(ops->recv(cp, &iov, 1), GFEC_RDMA_E_CLOSED);
	ops->close(cp);
	assert_true(TEST_WAIT_STATS(t, st.conns_active == 0));
}

/* The core's limits hold on verbs too: no HELLO within the header timeout, no stripe after
 * HELLO within the idle timeout (its buffer reservation goes), one connection per address. */
static void limits(void **state)
{
	struct test_server lim;
	gfec_rdma_client *c;
	unsigned credits;
	uint64_t id = 1;

	(void)state;
	assert_int_equal(start_server(&lim, 4, 100, 1), 0);
	silent_client(&lim, 0);
	silent_client(&lim, 1);
	assert_true(TEST_WAIT_STATS(&lim, st.conns_timed_out == 2 && st.conns_busy == 2 &&
					      st.conns_bad == 0 && st.buffer_bytes == 0));
	assert_int_equal(gfec_rdma_client_connect("verbs", lim.addr, K, M, LEN, &c, &credits), 0);
	assert_int_equal(test_roundtrip(c, K, M, LEN, 20, &id, &seed), 0);
	gfec_rdma_client_close(c);
	test_server_stop(&lim);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(memory_fallback_reported),
	    cmocka_unit_test(checked_parity),
	    cmocka_unit_test(full_window),
	    cmocka_unit_test(malformed_messages),
	    cmocka_unit_test(unserved_code),
	    cmocka_unit_test(disconnect_midstream),
	    cmocka_unit_test(limits),
	};

	if (!getenv("RDMA_IP")) {
		printf("skipped: no RDMA device here (RDMA_IP unset); tests/rdma/vm runs this in a "
		       "soft-RoCE VM\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
