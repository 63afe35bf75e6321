/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file core.h
 * What the three parts of the server core share (the transports see only internal.h):
 * server.c, the server's life (config, codecs, create, stats, free); conn.c, a connection's
 * protocol state and stripe slots on its I/O thread; batcher.c, the (codec, chunk length)
 * classes, each stripe's trip through the codec's coalescer and the completion lists.
 */
#ifndef GFEC_RDMA_CORE_H
#define GFEC_RDMA_CORE_H

#include "internal.h"

/* Distinct (codec, chunk_len) classes at once: a class lives while connections use it. */
#define RDMA_MAX_CLASSES 64
#define RDMA_MAX_CODES 16
/* Hash buckets of the per-address connection counts. */
#define RDMA_PEER_BUCKETS 256

struct rdma_class {
	struct rdma_class *next;
	gfec_codec *codec;
	size_t len;
	unsigned users; /* connections that said HELLO for it; freed at 0 */
};

/* Connections open from one peer key (rdma_peer_key: an IPv4 address or an IPv6 /64). */
struct rdma_peer {
	struct rdma_peer *next;
	uint8_t ip[16]; /* the key */
	unsigned n;
};

struct rdma_code {
	int k, m;
	gfec_codec *codec;
};

struct gfec_rdma_server {
	struct gfec_rdma_server_config cfg;
	const struct gfec_rdma_transport_ops *ops;
	void *tp;
	struct rdma_code codes[RDMA_MAX_CODES];
	int ncodes;
	uint64_t max_payload;
	unsigned nconns;   /* atomic: the I/O threads open and close connections */
	uint64_t reserved; /* atomic: stripe-buffer bytes reserved by connections (HELLO) */
	int stop;	   /* atomic */

	pthread_mutex_t peer_lock; /* peers: the I/O threads open and close connections */
	struct rdma_peer *peers[RDMA_PEER_BUCKETS];

	pthread_mutex_t lock; /* everything below */
	pthread_cond_t idle;  /* inflight reached 0 */
	struct rdma_class *classes;
	unsigned nclasses;
	unsigned inflight; /* stripes submitted to a codec and not yet back */
	/* finished stripes, one list per I/O thread (shard); kick_mask: shards to wake */
	struct rdma_slot *done_head[RDMA_MAX_SHARDS], *done_tail[RDMA_MAX_SHARDS];
	uint64_t kick_mask;
	uint64_t corrupt_count;
	char memory[200]; /* where stripe buffers live, set by the transport */

	struct gfec_rdma_stats st; /* updated with atomics, read field by field */
};

static inline void stat_add(uint64_t *p, uint64_t v)
{
	__atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}

static inline void stat_sub(uint64_t *p, uint64_t v)
{
	__atomic_fetch_sub(p, v, __ATOMIC_RELAXED);
}

static inline void hist_add(uint64_t *hist, uint64_t ns)
{
	uint64_t us = ns / 1000;
	int b = us ? 63 - __builtin_clzll(us) : 0;

	stat_add(&hist[b < GFEC_RDMA_HIST ? b : GFEC_RDMA_HIST - 1], 1);
}

/* conn.c */

/**
 * The key @p sa's connections count under for max_conns_per_addr, in @p key (16 bytes): an IPv4
 * address as its v4-mapped IPv6 address (so an IPv6 socket's v4-mapped peers count the same), an
 * IPv6 address by its /64 prefix, the rest zero (one host usually holds a whole /64, so a limit
 * per full IPv6 address would be a limit on nothing). @returns 0 when @p sa has no IP address.
 */
int rdma_peer_key(const struct sockaddr *sa, uint8_t key[16]);

/** Frees @p c: nothing of it may be queued, in a batch or on a completion list. */
void rdma_conn_free(gfec_rdma_server *srv, struct rdma_conn *c);
void rdma_slot_release(struct rdma_conn *c, struct rdma_slot *s);

/* batcher.c */

/** The class for (@p code, @p len), created on first use, with one more user; NULL when
 * RDMA_MAX_CLASSES are in use (or out of memory). */
struct rdma_class *rdma_class_get(gfec_rdma_server *srv, const struct rdma_code *code, size_t len);
/** One user fewer; the last one frees the class. */
void rdma_class_put(gfec_rdma_server *srv, struct rdma_class *cls);
/** Withdraws @p c's stripes whose window has not started (conn_close): they are dropped. */
void rdma_batcher_cancel(gfec_rdma_server *srv, struct rdma_conn *c);
/** Waits until every stripe submitted to a codec is back on a completion list. */
void rdma_batcher_wait(gfec_rdma_server *srv);
/** Once every connection is closed: frees what is still on a completion list, with the
 * connections it belongs to (and so their classes). */
void rdma_batcher_drain(gfec_rdma_server *srv);

/* server.c */

/** The window deadline a stripe is submitted with: deadline_us, at least 1. */
unsigned rdma_window_us(const gfec_rdma_server *srv);

#endif
