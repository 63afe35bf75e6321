/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file fuzz_rdma_conn.c
 * What the ingest server does with a peer's messages once a transport has framed them:
 * gfec_rdma_hdr_unpack() then the core's per-connection protocol state (rdma_conn_header in
 * rdma/conn.c: HELLO, credits, stripe ids, buffer reservations, per-address limits), driven
 * the way rdma/tcp.c and rdma/verbs_server.c drive it, on a server that is created once and never
 * runs its I/O loop. The input is a list of records, one byte of what the transport does, then (for
 * a message) the 40 header bytes as they came off the wire:
 *
 *   op bits 0-1  connection 0..3 (opened on first use; 0 and 3 share an address)
 *        bits 2-3  0: a message arrives   1: the peer hangs up   2: closed for bad input
 *        bit 4     HELLO accepted: the transport brings its own stripe buffers (as verbs does)
 *                  STRIPE accepted: its payload lands now, is encoded and its parity sent
 *        bit 5     the peer names the slot it wrote into (index = bits 6-7), as verbs peers do
 *
 * Invariants: every reply the server builds (HELLO_ACK, PARITY) passes the server's own
 * decoder and matches the request; an accepted stripe gets a slot with a buffer no other
 * outstanding stripe holds; its parity equals gfec_encode's on the same data; and once every
 * connection is closed the server holds no connection, no stripe buffer and no reservation:
 * two HELLOs that together need all of max_buffer_bytes are both accepted.
 */
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fuzz.h"
#include "gfec_rdma.h"
#include "internal.h"
#include "proto.h"

#define CONNS 4
#define CREDITS 3
#define MAX_CHUNK 4096u
/* The largest stripe served is (6,6): room for two connections' worth of it, not three. */
#define MAX_K 6
#define MAX_M 6
#define BUDGET (2ull * CREDITS * (MAX_K + MAX_M) * MAX_CHUNK)
#define CODES "2,1 4,2 6,6"

static gfec_rdma_server *srv;
static const int codes[][2] = {{2, 1}, {4, 2}, {6, 6}};
static gfec_codec *ref[3]; /* the same codecs as the server's, to check its parity */

struct conn {
	struct rdma_conn *rc;
	uint8_t *own;	 /* the transport's own stripe buffers, or NULL */
	int k, m, hello; /* as accepted */
	size_t chunk_len;
};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct gfec_rdma_server_config cfg;
	char err[256], profile[64];

	setenv("GFEC_CONF", "/dev/null", 1);
	gfec_rdma_server_config_default(&cfg);
	cfg.bind = "127.0.0.1:0";
	cfg.codes = CODES;
	cfg.profile = "backend=cpu threads=1";
	cfg.batch = 1; /* a landed stripe launches at once */
	cfg.credits = CREDITS;
	cfg.max_chunk = MAX_CHUNK;
	cfg.max_conns = CONNS;
	cfg.max_conns_per_addr = 1;
	cfg.max_buffer_bytes = BUDGET;
	cfg.header_timeout_ms = 0; /* no clock in the outcome */
	cfg.idle_timeout_ms = 0;
	if (gfec_rdma_server_create(&cfg, &srv, err, sizeof(err)) != 0) {
		fprintf(stderr, "fuzz_rdma_conn: %s\n", err);
		abort();
	}
	for (int i = 0; i < 3; i++) {
		snprintf(profile, sizeof(profile), "k=%d m=%d backend=cpu threads=1", codes[i][0],
			 codes[i][1]);
		FUZZ_CHECK(gfec_codec_create(profile, &ref[i], NULL, 0) == 0);
	}
	return 0;
}

static void release_own(void *arg)
{
	free(arg);
}

static struct rdma_conn *open_conn(int i)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};

	sa.sin_addr.s_addr = htonl(0x0a000001u + (uint32_t)(i % 3)); /* 10.0.0.1 .. 10.0.0.3 */
	return rdma_conn_open(srv, NULL, 0, (const struct sockaddr *)&sa);
}

static void close_conn(struct conn *c, int why)
{
	if (!c->rc)
		return;
	rdma_conn_close(srv, c->rc, why);
	memset(c, 0, sizeof(*c));
}

static gfec_codec *ref_codec(int k, int m)
{
	for (int i = 0; i < 3; i++)
		if (codes[i][0] == k && codes[i][1] == m)
			return ref[i];
	return NULL;
}

/* The stripe in @p s landed: wait for the batcher's parity, check it and "send" it. */
static void complete(struct conn *c, struct rdma_slot *s)
{
	const uint8_t *data[MAX_K];
	uint8_t *want[MAX_M], *parity;
	struct timespec pause = {0, 20000};
	struct rdma_slot *done = NULL;
	struct gfec_rdma_hdr h;
	size_t plen;

	rdma_conn_landed(srv, s);
	for (int i = 0; !done; i++) {
		FUZZ_CHECK(i < 500000); /* 10 s */
		done = rdma_take_done(srv, 0);
		if (!done)
			nanosleep(&pause, NULL);
	}
	FUZZ_CHECK(done == s && !done->next && s->status == 0);
	FUZZ_CHECK(gfec_rdma_hdr_unpack(s->reply, (uint64_t)c->m * c->chunk_len, &h) == 0);
	FUZZ_CHECK(h.type == GFEC_RDMA_PARITY && h.stripe_id == s->id && h.status == 0);
	FUZZ_CHECK(h.k == c->k && h.m == c->m && h.chunk_len == c->chunk_len);
	parity = rdma_slot_parity(s, &plen);
	FUZZ_CHECK(plen == h.payload_len && parity == s->buf + (size_t)c->k * c->chunk_len);
	for (int j = 0; j < c->k; j++)
		data[j] = s->buf + (size_t)j * c->chunk_len;
	for (int j = 0; j < c->m; j++) {
		want[j] = malloc(c->chunk_len);
		FUZZ_CHECK(want[j] != NULL);
	}
	FUZZ_CHECK(gfec_encode(ref_codec(c->k, c->m), data, want, c->chunk_len) == 0);
	for (int j = 0; j < c->m; j++) {
		FUZZ_CHECK(memcmp(want[j], parity + (size_t)j * c->chunk_len, c->chunk_len) == 0);
		free(want[j]);
	}
	rdma_slot_sent(srv, s);
}

static void hello_accepted(struct conn *c, const struct gfec_rdma_hdr *h,
			   const uint8_t reply[GFEC_RDMA_HDR_LEN], int own)
{
	struct gfec_rdma_hdr ack;
	size_t stride;

	FUZZ_CHECK(h->type == GFEC_RDMA_HELLO && !c->hello && ref_codec(h->k, h->m));
	FUZZ_CHECK(h->chunk_len <= MAX_CHUNK);
	FUZZ_CHECK(gfec_rdma_hdr_unpack(reply, 0, &ack) == 0 && ack.type == GFEC_RDMA_HELLO_ACK);
	FUZZ_CHECK(ack.k == h->k && ack.m == h->m && ack.chunk_len == h->chunk_len);
	FUZZ_CHECK(ack.credits == CREDITS);
	c->hello = 1;
	c->k = h->k;
	c->m = h->m;
	c->chunk_len = h->chunk_len;
	if (own) {
		stride = (size_t)(c->k + c->m) * c->chunk_len;
		c->own = malloc(CREDITS * stride);
		FUZZ_CHECK(c->own != NULL);
		rdma_conn_set_buffers(srv, c->rc, c->own, stride, 0, release_own, c->own);
	}
}

static void stripe_accepted(struct conn *c, const struct gfec_rdma_hdr *h, struct rdma_slot *s,
			    int index, int land, const uint8_t *fill, size_t nfill)
{
	size_t len = (size_t)c->k * c->chunk_len;

	FUZZ_CHECK(h->type == GFEC_RDMA_STRIPE && c->hello && s && s->buf);
	FUZZ_CHECK(h->k == c->k && h->m == c->m && h->chunk_len == c->chunk_len);
	FUZZ_CHECK(h->payload_len == len && s->id == h->stripe_id && s->state == SLOT_RECV);
	FUZZ_CHECK(s->conn == c->rc);
	if (index >= 0)
		FUZZ_CHECK(s == &c->rc->slots[index]);
	/* No other outstanding stripe of this connection holds this buffer. */
	for (unsigned i = 0; i < CREDITS; i++)
		FUZZ_CHECK(&c->rc->slots[i] == s || c->rc->slots[i].state == SLOT_FREE ||
			   c->rc->slots[i].buf != s->buf);
	/* The payload, as the peer sent it: whole slots, so ASan sees one that is too small. */
	for (size_t i = 0; i < len; i++)
		s->buf[i] = nfill ? fill[i % nfill] : (uint8_t)i;
	memset(s->buf + len, 0xee, (size_t)c->m * c->chunk_len);
	if (land)
		complete(c, s);
}

static void check_idle(void)
{
	struct gfec_rdma_stats st;

	gfec_rdma_server_stats(srv, &st);
	FUZZ_CHECK(st.conns_active == 0 && st.buffer_bytes == 0);
}

/* Two HELLOs asking for all of max_buffer_bytes: both fit only if nothing is still reserved. */
static void check_no_reservation(void)
{
	uint8_t raw[GFEC_RDMA_HDR_LEN], reply[GFEC_RDMA_HDR_LEN];
	struct conn c[2] = {{0}};
	struct gfec_rdma_hdr h;
	struct rdma_slot *s;

	gfec_rdma_hdr_init(&h, GFEC_RDMA_HELLO);
	h.k = MAX_K;
	h.m = MAX_M;
	h.chunk_len = MAX_CHUNK;
	gfec_rdma_hdr_pack(&h, raw);
	for (int i = 0; i < 2; i++) {
		c[i].rc = open_conn(i);
		FUZZ_CHECK(c[i].rc != NULL);
		FUZZ_CHECK(gfec_rdma_hdr_unpack(raw, rdma_max_payload(srv), &h) == 0);
		FUZZ_CHECK(rdma_conn_header(srv, c[i].rc, &h, reply, -1, &s) == 0);
	}
	for (int i = 0; i < 2; i++)
		close_conn(&c[i], 0);
	check_idle();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct conn conns[CONNS] = {{0}};
	const uint8_t *p = data, *end = data + size;

	while (p < end) {
		uint8_t op = *p++, reply[GFEC_RDMA_HDR_LEN];
		struct conn *c = &conns[op & 3];
		int action = op >> 2 & 3, index = op & 0x20 ? op >> 6 : -1, ret;
		struct gfec_rdma_hdr h;
		struct rdma_slot *s = NULL;

		if (action == 1 || action == 2) {
			close_conn(c, action == 1 ? 0 : GFEC_RDMA_E_TYPE);
			continue;
		}
		if (end - p < GFEC_RDMA_HDR_LEN)
			break;
		if (!c->rc)
			c->rc = open_conn(op & 3);
		if (!c->rc) {
			/* Refused: the other connection of this address is open. */
			FUZZ_CHECK((op & 3) % 3 == 0 && conns[3 - (op & 3)].rc != NULL);
			p += GFEC_RDMA_HDR_LEN;
			continue;
		}
		ret = gfec_rdma_hdr_unpack(p, rdma_max_payload(srv), &h);
		p += GFEC_RDMA_HDR_LEN;
		if (!ret)
			ret = rdma_conn_header(srv, c->rc, &h, reply, index, &s);
		if (ret) {
			/* The transport sends ERROR and closes. */
			FUZZ_CHECK(ret < 0 && !s);
			close_conn(c, ret);
		} else if (h.type == GFEC_RDMA_HELLO) {
			hello_accepted(c, &h, reply, op & 0x10);
		} else {
			stripe_accepted(c, &h, s, index, op & 0x10, p, (size_t)(end - p));
		}
	}
	for (int i = 0; i < CONNS; i++)
		close_conn(&conns[i], 0);
	check_idle();
	check_no_reservation();
	return 0;
}
