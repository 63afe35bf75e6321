/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file conn.c
 * A connection as the core sees it, on the I/O thread that owns it: admission (the server's
 * and the peer address's connection limits), the protocol checks of every header, HELLO's
 * buffer reservation, the stripe slots, the header and idle timeouts, and the close that
 * decides how it is counted. Keeping this out of the transports means TCP and verbs reject the
 * same input.
 */
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

int rdma_peer_key(const struct sockaddr *sa, uint8_t key[16])
{
	static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	if (sa && sa->sa_family == AF_INET) {
		memcpy(key, v4mapped, 12);
		memcpy(key + 12, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, 4);
		return 1;
	}
	if (sa && sa->sa_family == AF_INET6) {
		memcpy(key, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, 16);
		if (memcmp(key, v4mapped, 12) != 0)
			memset(key + 8, 0, 8);
		return 1;
	}
	return 0;
}

static unsigned peer_hash(const uint8_t ip[16])
{
	uint32_t h = 2166136261u; /* FNV-1a */

	for (int i = 0; i < 16; i++)
		h = (h ^ ip[i]) * 16777619u;
	return h % RDMA_PEER_BUCKETS;
}

/* One more connection from @p sa's address: its count, or NULL (no address, no limit, at the
 * limit or out of memory: *refused says which). */
static struct rdma_peer *peer_get(gfec_rdma_server *srv, const struct sockaddr *sa, int *refused)
{
	struct rdma_peer *p = NULL;
	uint8_t ip[16];
	unsigned b;

	*refused = 0;
	if (!srv->cfg.max_conns_per_addr || !rdma_peer_key(sa, ip))
		return NULL;
	b = peer_hash(ip);
	pthread_mutex_lock(&srv->peer_lock);
	for (p = srv->peers[b]; p && memcmp(p->ip, ip, 16); p = p->next)
		;
	if (!p) {
		p = calloc(1, sizeof(*p));
		if (p) {
			memcpy(p->ip, ip, 16);
			p->next = srv->peers[b];
			srv->peers[b] = p;
		}
	}
	if (!p || p->n >= srv->cfg.max_conns_per_addr) {
		*refused = 1;
		p = NULL;
	} else {
		p->n++;
	}
	pthread_mutex_unlock(&srv->peer_lock);
	return p;
}

static void peer_put(gfec_rdma_server *srv, struct rdma_peer *p)
{
	struct rdma_peer **pp;

	if (!p)
		return;
	pthread_mutex_lock(&srv->peer_lock);
	if (--p->n == 0) {
		for (pp = &srv->peers[peer_hash(p->ip)]; *pp != p; pp = &(*pp)->next)
			;
		*pp = p->next;
		free(p);
	}
	pthread_mutex_unlock(&srv->peer_lock);
}

struct rdma_conn *rdma_conn_open(gfec_rdma_server *srv, void *tp_conn, unsigned shard,
				 const struct sockaddr *peer)
{
	struct rdma_conn *c = NULL;
	struct rdma_peer *p;
	int refused;

	p = peer_get(srv, peer, &refused);
	if (refused)
		goto busy;
	if (__atomic_fetch_add(&srv->nconns, 1, __ATOMIC_RELAXED) >= srv->cfg.max_conns)
		goto full;
	c = calloc(1, sizeof(*c));
	if (!c)
		goto full;
	c->srv = srv;
	c->tp_conn = tp_conn;
	c->shard = shard;
	c->peer = p;
	c->since_ns = rdma_now_ns();
	stat_add(&srv->st.conns_accepted, 1);
	stat_add(&srv->st.conns_active, 1);
	return c;
full:
	__atomic_fetch_sub(&srv->nconns, 1, __ATOMIC_RELAXED);
	peer_put(srv, p);
busy:
	stat_add(&srv->st.conns_busy, 1);
	return NULL;
}

int rdma_conn_expired(const gfec_rdma_server *srv, const struct rdma_conn *c, uint64_t now)
{
	unsigned ms = c->hello_done ? srv->cfg.idle_timeout_ms : srv->cfg.header_timeout_ms;

	/* A stripe being encoded is the server's to answer; anything else (a payload not all
	 * there yet, parity the peer does not take) waits on the peer. */
	if (!ms || c->queued)
		return 0;
	return now - c->since_ns >= (uint64_t)ms * 1000000u ? GFEC_RDMA_E_TIMEOUT : 0;
}

int rdma_sweep_ms(const gfec_rdma_server *srv)
{
	unsigned h = srv->cfg.header_timeout_ms, i = srv->cfg.idle_timeout_ms;
	unsigned least = !h ? i : !i ? h : h < i ? h : i;

	if (!least)
		return -1;
	/* an eighth of the shortest timeout: a connection outlives it by at most that much */
	least /= 8;
	return least < 5 ? 5 : least > 1000 ? 1000 : (int)least;
}

static size_t slot_bytes(const struct rdma_conn *c)
{
	return (size_t)(c->k + c->m) * c->chunk_len;
}

void rdma_conn_free(gfec_rdma_server *srv, struct rdma_conn *c)
{
	if (c->cls)
		rdma_class_put(srv, c->cls);
	peer_put(srv, c->peer);
	__atomic_sub_fetch(&srv->reserved, c->reserved, __ATOMIC_RELAXED);
	if (c->bufs_release) {
		stat_sub(&srv->st.buffer_bytes, c->bufs_bytes);
		c->bufs_release(c->bufs_arg);
	}
	for (unsigned i = 0; !c->bufs_release && c->slots && i < srv->cfg.credits; i++) {
		if (c->slots[i].buf)
			stat_sub(&srv->st.buffer_bytes, slot_bytes(c));
		gfec_free(c->slots[i].buf);
	}
	free(c->slots);
	free(c->in);
	free(c->out);
	free(c);
}

void rdma_slot_release(struct rdma_conn *c, struct rdma_slot *s)
{
	s->state = SLOT_FREE;
	c->outstanding--;
}

static int conn_hello(gfec_rdma_server *srv, struct rdma_conn *c, const struct gfec_rdma_hdr *h,
		      uint8_t reply[GFEC_RDMA_HDR_LEN])
{
	const struct rdma_code *code = NULL;
	struct gfec_rdma_hdr ack;
	uint64_t need;

	if (c->hello_done)
		return GFEC_RDMA_E_TYPE;
	for (int i = 0; i < srv->ncodes; i++)
		if (srv->codes[i].k == h->k && srv->codes[i].m == h->m)
			code = &srv->codes[i];
	if (!code)
		return GFEC_RDMA_E_CODE;
	if (h->chunk_len > srv->cfg.max_chunk)
		return GFEC_RDMA_E_LENGTH;
	c->cls = rdma_class_get(srv, code, h->chunk_len);
	if (!c->cls)
		return GFEC_RDMA_E_BUSY;
	/* Every slot the connection may fill is reserved now, against the server's cap. */
	need = (uint64_t)srv->cfg.credits * (uint64_t)(h->k + h->m) * h->chunk_len;
	if (__atomic_add_fetch(&srv->reserved, need, __ATOMIC_RELAXED) >
	    srv->cfg.max_buffer_bytes) {
		__atomic_sub_fetch(&srv->reserved, need, __ATOMIC_RELAXED);
		rdma_log(GFEC_LOG_WARN,
			 "gfec-rdma: refusing (%d,%d) x %u B: stripe buffers would pass "
			 "max_buffer_bytes",
			 h->k, h->m, h->chunk_len);
		return GFEC_RDMA_E_BUSY;
	}
	c->reserved = need;
	c->slots = calloc(srv->cfg.credits, sizeof(*c->slots));
	c->in = calloc((size_t)srv->cfg.credits * h->k, sizeof(*c->in));
	c->out = calloc((size_t)srv->cfg.credits * h->m, sizeof(*c->out));
	if (!c->slots || !c->in || !c->out)
		return GFEC_E_NOMEM;
	c->k = h->k;
	c->m = h->m;
	c->chunk_len = h->chunk_len;
	c->hello_done = 1;
	c->since_ns = rdma_now_ns();
	gfec_rdma_hdr_init(&ack, GFEC_RDMA_HELLO_ACK);
	ack.k = h->k;
	ack.m = h->m;
	ack.chunk_len = h->chunk_len;
	ack.credits = srv->cfg.credits;
	gfec_rdma_hdr_pack(&ack, reply);
	return 0;
}

int rdma_conn_header(gfec_rdma_server *srv, struct rdma_conn *c, const struct gfec_rdma_hdr *h,
		     uint8_t reply[GFEC_RDMA_HDR_LEN], int index, struct rdma_slot **slot)
{
	struct rdma_slot *s = NULL;

	*slot = NULL;
	if (h->type == GFEC_RDMA_HELLO)
		return conn_hello(srv, c, h, reply);
	if (h->type != GFEC_RDMA_STRIPE || !c->hello_done)
		return GFEC_RDMA_E_TYPE;
	if (h->k != c->k || h->m != c->m)
		return GFEC_RDMA_E_CODE;
	if (h->chunk_len != c->chunk_len)
		return GFEC_RDMA_E_LENGTH;
	if (c->have_last && h->stripe_id <= c->last_id)
		return GFEC_RDMA_E_STRIPE_ID;
	if (c->outstanding >= srv->cfg.credits)
		return GFEC_RDMA_E_CREDITS;
	if (index >= 0) {
		/* The peer chose the slot (it wrote the payload there already). */
		if ((unsigned)index >= srv->cfg.credits || c->slots[index].state != SLOT_FREE ||
		    !c->slots[index].buf)
			return GFEC_RDMA_E_CREDITS;
		s = &c->slots[index];
	}
	for (unsigned i = 0; i < srv->cfg.credits && !s; i++)
		if (c->slots[i].state == SLOT_FREE)
			s = &c->slots[i];
	if (!s->buf) {
		/* Allocated on first use and kept: at most `credits` per connection. */
		s->buf = gfec_alloc(slot_bytes(c));
		if (!s->buf)
			return GFEC_E_NOMEM;
		stat_add(&srv->st.buffer_bytes, slot_bytes(c));
	}
	s->conn = c;
	s->state = SLOT_RECV;
	s->id = h->stripe_id;
	c->outstanding++;
	c->since_ns = rdma_now_ns();
	c->last_id = h->stripe_id;
	c->have_last = 1;
	*slot = s;
	return 0;
}

void rdma_conn_set_buffers(gfec_rdma_server *srv, struct rdma_conn *c, uint8_t *base, size_t stride,
			   int on_device, void (*release)(void *), void *arg)
{
	for (unsigned i = 0; i < srv->cfg.credits; i++)
		c->slots[i].buf = base + (size_t)i * stride;
	c->bufs_on_device = on_device;
	c->bufs_release = release;
	c->bufs_arg = arg;
	c->bufs_bytes = (uint64_t)srv->cfg.credits * stride;
	stat_add(&srv->st.buffer_bytes, c->bufs_bytes);
}

void rdma_conn_close(gfec_rdma_server *srv, struct rdma_conn *c, int why)
{
	if (!why && c->outstanding)
		why = GFEC_RDMA_E_CLOSED;
	if (why == GFEC_RDMA_E_CLOSED)
		stat_add(&srv->st.conns_lost, 1);
	else if (why == GFEC_RDMA_E_BUSY)
		stat_add(&srv->st.conns_busy, 1);
	else if (why == GFEC_RDMA_E_TIMEOUT)
		stat_add(&srv->st.conns_timed_out, 1);
	else if (why)
		stat_add(&srv->st.conns_bad, 1);
	stat_sub(&srv->st.conns_active, 1);
	__atomic_fetch_sub(&srv->nconns, 1, __ATOMIC_RELAXED);
	c->closed = 1;
	for (unsigned i = 0; c->slots && i < srv->cfg.credits; i++)
		if (c->slots[i].state == SLOT_RECV || c->slots[i].state == SLOT_SEND)
			rdma_slot_release(c, &c->slots[i]);
	if (c->queued)
		rdma_batcher_cancel(srv, c);
	if (!c->queued)
		rdma_conn_free(srv, c);
}

uint8_t *rdma_slot_parity(const struct rdma_slot *s, size_t *len)
{
	const struct rdma_conn *c = s->conn;

	*len = s->status ? 0 : (size_t)c->m * c->chunk_len;
	return s->buf + (size_t)c->k * c->chunk_len;
}

void rdma_slot_sent(gfec_rdma_server *srv, struct rdma_slot *s)
{
	struct rdma_conn *c = s->conn;

	c->since_ns = rdma_now_ns();
	hist_add(srv->st.stripe_us, c->since_ns - s->landed_ns);
	stat_add(&srv->st.stripes, 1);
	stat_add(&srv->st.bytes, (uint64_t)c->k * c->chunk_len);
	rdma_slot_release(c, s);
}
