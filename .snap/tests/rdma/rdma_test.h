/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file rdma_test.h
 * What the ingest server tests share: an in-process server on its own thread (loopback, a free
 * port), raw sockets that send exactly the bytes a case needs, and a checked round trip through
 * the real client, which is how every case proves that other clients carry on.
 */
#ifndef GFEC_RDMA_TEST_H
#define GFEC_RDMA_TEST_H

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "gfec_rdma.h"
#include "proto.h"

struct test_server {
	gfec_rdma_server *srv;
	pthread_t thread;
	char addr[64];
	int port;
};

static void *test_server_main(void *arg)
{
	gfec_rdma_server_run(arg);
	return NULL;
}

/* 0 on success. */
static inline int test_server_start(struct test_server *ts,
				    const struct gfec_rdma_server_config *cfg)
{
	char err[256];

	if (gfec_rdma_server_create(cfg, &ts->srv, err, sizeof(err))) {
		fprintf(stderr, "server: %s\n", err);
		return -1;
	}
	ts->port = gfec_rdma_server_port(ts->srv);
	snprintf(ts->addr, sizeof(ts->addr), "127.0.0.1:%d", ts->port);
	return pthread_create(&ts->thread, NULL, test_server_main, ts->srv) ? -1 : 0;
}

static inline void test_server_stop(struct test_server *ts)
{
	gfec_rdma_server_stop(ts->srv);
	pthread_join(ts->thread, NULL);
	gfec_rdma_server_free(ts->srv);
}

static inline struct gfec_rdma_stats test_stats(struct test_server *ts)
{
	struct gfec_rdma_stats st;

	gfec_rdma_server_stats(ts->srv, &st);
	return st;
}

static inline void test_sleep_ms(int ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
}

/* Waits up to about 5 s for @p cond (an expression over `st`, a fresh stats snapshot). */
#define TEST_WAIT_STATS(ts, cond)                                                                  \
	({                                                                                         \
		struct gfec_rdma_stats st;                                                         \
		int ok_ = 0;                                                                       \
		for (int i_ = 0; i_ < 5000 && !ok_; i_++) {                                        \
			st = test_stats(ts);                                                       \
			ok_ = (cond);                                                              \
			if (!ok_)                                                                  \
				test_sleep_ms(1);                                                  \
		}                                                                                  \
		ok_;                                                                               \
	})

/*
 * A raw connection to the server on 127.0.0.1:@p port (reads time out after 20 s), from source
 * address @p src (any 127.0.0.0/8 address), or from any when NULL. @returns the socket, or -1.
 */
static inline int test_raw_connect_from(const char *src, int port)
{
	struct sockaddr_in from = {.sin_family = AF_INET};
	struct sockaddr_in to = {.sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct timeval tv = {.tv_sec = 20};
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if ((src && (inet_pton(AF_INET, src, &from.sin_addr) != 1 ||
		     bind(fd, (struct sockaddr *)&from, sizeof(from)))) ||
	    connect(fd, (struct sockaddr *)&to, sizeof(to))) {
		close(fd);
		return -1;
	}
	return fd;
}

static inline int test_raw_connect(int port)
{
	return test_raw_connect_from(NULL, port);
}

static inline int test_send_all(int fd, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n) {
		ssize_t w = send(fd, b, n, MSG_NOSIGNAL);

		if (w <= 0)
			return -1;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

static inline int test_send_hdr(int fd, const struct gfec_rdma_hdr *h)
{
	uint8_t raw[GFEC_RDMA_HDR_LEN];

	gfec_rdma_hdr_pack(h, raw);
	return test_send_all(fd, raw, sizeof(raw));
}

static inline int test_recv_all(int fd, void *p, size_t n)
{
	uint8_t *b = p;

	while (n) {
		ssize_t r = recv(fd, b, n, 0);

		if (r <= 0)
			return -1;
		b += r;
		n -= (size_t)r;
	}
	return 0;
}

/* Reads one header (unchecked beyond unpack); @returns unpack's result, or 1 at EOF/error. */
static inline int test_recv_hdr(int fd, struct gfec_rdma_hdr *h)
{
	uint8_t raw[GFEC_RDMA_HDR_LEN];

	if (test_recv_all(fd, raw, sizeof(raw)))
		return 1;
	return gfec_rdma_hdr_unpack(raw, UINT32_MAX, h);
}

/*
 * The server's answer to bad input: ERROR with @p code, then the end of the stream. The server
 * closes without reading the rest of what was sent (a bad message's payload, say), so the end
 * may come as a reset rather than EOF. 0 if so.
 */
static inline int test_expect_error(int fd, int code)
{
	struct gfec_rdma_hdr h;
	uint8_t b;
	ssize_t n;

	if (test_recv_hdr(fd, &h) || h.type != GFEC_RDMA_ERROR || h.status != code) {
		fprintf(stderr, "expected ERROR %d, got type %d status %d\n", code, h.type,
			h.status);
		return -1;
	}
	n = recv(fd, &b, 1, 0);
	return n == 0 || (n < 0 && errno == ECONNRESET) ? 0 : -1;
}

static inline void test_hello(struct gfec_rdma_hdr *h, int k, int m, uint32_t len)
{
	gfec_rdma_hdr_init(h, GFEC_RDMA_HELLO);
	h->k = (uint16_t)k;
	h->m = (uint16_t)m;
	h->chunk_len = len;
}

static inline void test_stripe(struct gfec_rdma_hdr *h, int k, int m, uint32_t len, uint64_t id)
{
	gfec_rdma_hdr_init(h, GFEC_RDMA_STRIPE);
	h->k = (uint16_t)k;
	h->m = (uint16_t)m;
	h->chunk_len = len;
	h->payload_len = (uint32_t)k * len;
	h->stripe_id = id;
}

/* A raw connection that said HELLO for (4,2) with @p len-byte chunks; *ack gets the answer
 * (unpacked, unchecked). @returns the socket, or -1 */
static inline int test_raw_hello(int port, uint32_t len, struct gfec_rdma_hdr *ack)
{
	int fd = test_raw_connect(port);

	if (fd < 0)
		return -1;
	test_hello(ack, 4, 2, len);
	if (test_send_hdr(fd, ack) || test_recv_hdr(fd, ack)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Sends stripe @p id of (4,2) raw: its header, then 4 zero chunks of @p len <= 4096 bytes in
 * one send (a server that rejects the header may close before a second send would go out). */
static inline int test_send_stripe(int fd, uint32_t len, uint64_t id)
{
	static const uint8_t zeros[4 * 4096];
	struct gfec_rdma_hdr h;

	if (len > 4096)
		return -1;
	test_stripe(&h, 4, 2, len, id);
	if (test_send_hdr(fd, &h))
		return -1;
	return test_send_all(fd, zeros, 4 * (size_t)len);
}

/*
 * Sends @p n stripes of random data through @p c one at a time and compares each parity with
 * a local CPU encode. @returns 0 if every one matched.
 */
static inline int test_roundtrip(gfec_rdma_client *c, int k, int m, size_t len, int n,
				 uint64_t *next_id, unsigned *seed)
{
	uint8_t *data[16], *par[16], *exp[16];
	char prof[64];
	gfec_codec *cpu;
	int bad = 0;

	snprintf(prof, sizeof(prof), "k=%d m=%d technique=cauchy backend=cpu threads=1", k, m);
	if (gfec_codec_create(prof, &cpu, NULL, 0))
		return -1;
	for (int j = 0; j < k; j++)
		data[j] = malloc(len);
	for (int j = 0; j < m; j++) {
		par[j] = malloc(len);
		exp[j] = malloc(len);
	}
	for (int i = 0; i < n && !bad; i++) {
		uint64_t id;
		int status;

		for (int j = 0; j < k; j++)
			for (size_t b = 0; b < len; b++)
				data[j][b] = (uint8_t)rand_r(seed);
		bad |= gfec_encode(cpu, (const uint8_t *const *)data, exp, len) != 0;
		bad |= gfec_rdma_client_send(c, *next_id, (const uint8_t *const *)data) != 0;
		bad |= gfec_rdma_client_recv(c, &id, par, &status) != 0;
		bad |= id != *next_id || status != 0;
		for (int j = 0; j < m && !bad; j++)
			bad |= memcmp(par[j], exp[j], len) != 0;
		(*next_id)++;
	}
	for (int j = 0; j < k; j++)
		free(data[j]);
	for (int j = 0; j < m; j++) {
		free(par[j]);
		free(exp[j]);
	}
	gfec_codec_free(cpu);
	return bad ? -1 : 0;
}

/* Open descriptors of this process. */
static inline int test_count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

#endif
