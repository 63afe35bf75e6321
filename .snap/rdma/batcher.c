/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file batcher.c
 * The ingest's batching, as a client of the codec's coalescer (issue 17: one mechanism): each
 * stripe that lands is handed to gfec_submit_coalesced() with the server's `batch` (stripes)
 * and `deadline_us` as its window's size and deadline, so the codec gathers stripes of every
 * connection with the same (codec, chunk length) into one gfec_encode_batch-sized run (one GPU
 * launch where the codec runs on a GPU). Each finished stripe comes back on a codec worker
 * thread and goes to the completion list of its connection's I/O thread. The windows' counts
 * (batches, why they closed, their run time) are the codecs' (gfec_codec_window_stats).
 *
 * A (codec, chunk length) class is kept per pair in use only to bound how many there are
 * (RDMA_MAX_CLASSES, a HELLO past it is refused as busy); it lives while connections use it.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

/* Appends to the completion list of the slot's I/O thread (lock held). */
static void done_push(gfec_rdma_server *srv, struct rdma_slot *s)
{
	unsigned sh = s->conn->shard;

	s->next = NULL;
	if (srv->done_tail[sh])
		srv->done_tail[sh]->next = s;
	else
		srv->done_head[sh] = s;
	srv->done_tail[sh] = s;
	srv->kick_mask |= 1ull << sh;
}

/* Wakes the I/O threads that have new completions (lock held). */
static void kick_pending(gfec_rdma_server *srv)
{
	for (uint64_t m = srv->kick_mask; m; m &= m - 1)
		srv->ops->kick(srv->tp, __builtin_ctzll(m));
	srv->kick_mask = 0;
}

/* One stripe is encoded (or failed), on a codec worker thread: to its I/O thread. */
static void stripe_done(struct gfec_request *req, void *user)
{
	struct rdma_slot *s = user;
	gfec_rdma_server *srv = s->conn->srv;
	int status = req->status;

	if (status) {
		stat_add(&srv->st.encode_errors, 1);
		rdma_log(GFEC_LOG_ERROR, "gfec-rdma: stripe %llu failed: %s",
			 (unsigned long long)s->id, gfec_strerror(status));
	}
	pthread_mutex_lock(&srv->lock);
	s->status = status;
	if (!status && srv->cfg.corrupt_every && !s->conn->bufs_on_device &&
	    ++srv->corrupt_count % srv->cfg.corrupt_every == 0)
		s->buf[(size_t)s->conn->k * req->len] ^= 1;
	done_push(srv, s);
	/* Kick before inflight drops: gfec_rdma_server_free() destroys the transport as soon as
	 * it sees inflight reach 0, and srv is not touched after the unlock. */
	kick_pending(srv);
	if (!--srv->inflight)
		pthread_cond_broadcast(&srv->idle);
	pthread_mutex_unlock(&srv->lock);
}

void rdma_conn_landed(gfec_rdma_server *srv, struct rdma_slot *s)
{
	struct rdma_conn *c = s->conn;
	const size_t i = (size_t)(s - c->slots), len = c->chunk_len;
	const uint8_t **in = c->in + i * (size_t)c->k;
	uint8_t **out = c->out + i * (size_t)c->m;
	int ret;

	for (int j = 0; j < c->k; j++)
		in[j] = s->buf + (size_t)j * len;
	for (int j = 0; j < c->m; j++)
		out[j] = s->buf + (size_t)(c->k + j) * len;
	s->landed_ns = rdma_now_ns();
	s->state = SLOT_QUEUED;
	c->queued++;
	s->req = (struct gfec_request){ .op = GFEC_OP_ENCODE, .nstripes = 1, .len = len,
					.in = in, .out = out, .done = stripe_done, .user = s };
	pthread_mutex_lock(&srv->lock);
	srv->inflight++;
	pthread_mutex_unlock(&srv->lock);
	ret = gfec_submit_coalesced(c->cls->codec, &s->req, rdma_window_us(srv), srv->cfg.batch);
	if (ret) {
		s->req.status = ret;
		stripe_done(&s->req, s);
	}
}

void rdma_batcher_cancel(gfec_rdma_server *srv, struct rdma_conn *c)
{
	for (unsigned i = 0; c->slots && i < srv->cfg.credits; i++) {
		struct rdma_slot *s = &c->slots[i];

		/* A slot whose window has not started is withdrawn (never encoded); the others
		 * come back through the completion list, where take_done frees them. */
		if (s->state != SLOT_QUEUED || gfec_cancel(c->cls->codec, &s->req))
			continue;
		c->queued--;
		stat_add(&srv->st.stripes_dropped, 1);
		rdma_slot_release(c, s);
		pthread_mutex_lock(&srv->lock);
		if (!--srv->inflight)
			pthread_cond_broadcast(&srv->idle);
		pthread_mutex_unlock(&srv->lock);
	}
}

struct rdma_class *rdma_class_get(gfec_rdma_server *srv, const struct rdma_code *code, size_t len)
{
	struct rdma_class *c;

	pthread_mutex_lock(&srv->lock);
	for (c = srv->classes; c; c = c->next)
		if (c->codec == code->codec && c->len == len)
			goto out;
	if (srv->nclasses >= RDMA_MAX_CLASSES)
		goto out;
	c = calloc(1, sizeof(*c));
	if (!c)
		goto out;
	c->codec = code->codec;
	c->len = len;
	c->next = srv->classes;
	srv->classes = c;
	srv->nclasses++;
out:
	if (c)
		c->users++;
	pthread_mutex_unlock(&srv->lock);
	return c;
}

void rdma_class_put(gfec_rdma_server *srv, struct rdma_class *cls)
{
	struct rdma_class **pp;

	pthread_mutex_lock(&srv->lock);
	if (--cls->users == 0) {
		for (pp = &srv->classes; *pp != cls; pp = &(*pp)->next)
			;
		*pp = cls->next;
		srv->nclasses--;
		free(cls);
	}
	pthread_mutex_unlock(&srv->lock);
}

/* Moves the completion list to the I/O thread; frees what belongs to closed connections. */
static struct rdma_slot *take_done(gfec_rdma_server *srv, int shard, int all)
{
	struct rdma_slot *s = NULL, *next, *head = NULL, **tail = &head;

	pthread_mutex_lock(&srv->lock);
	for (int i = 0; i < RDMA_MAX_SHARDS; i++) { /* shard < 0: every list */
		if (shard >= 0 && i != shard)
			continue;
		if (srv->done_tail[i]) { /* prepend list i */
			srv->done_tail[i]->next = s;
			s = srv->done_head[i];
		}
		srv->done_head[i] = srv->done_tail[i] = NULL;
	}
	pthread_mutex_unlock(&srv->lock);
	for (; s; s = next) {
		struct rdma_conn *c = s->conn;

		next = s->next;
		c->queued--;
		if (c->closed || all) {
			stat_add(&srv->st.stripes_dropped, 1);
			rdma_slot_release(c, s);
			if (c->closed && !c->queued)
				rdma_conn_free(srv, c);
			continue;
		}
		s->state = SLOT_SEND;
		s->next = NULL;
		*tail = s;
		tail = &s->next;
	}
	return head;
}

struct rdma_slot *rdma_take_done(gfec_rdma_server *srv, unsigned shard)
{
	struct rdma_slot *head = take_done(srv, (int)shard, 0);
	uint64_t now = rdma_now_ns();

	for (struct rdma_slot *s = head; s; s = s->next) {
		struct gfec_rdma_hdr h;
		struct rdma_conn *c = s->conn;

		c->since_ns = now; /* its idle time starts again: the peer has parity to take */
		gfec_rdma_hdr_init(&h, GFEC_RDMA_PARITY);
		h.k = (uint16_t)c->k;
		h.m = (uint16_t)c->m;
		h.chunk_len = (uint32_t)c->chunk_len;
		h.status = s->status;
		h.payload_len = s->status ? 0 : (uint32_t)((size_t)c->m * c->chunk_len);
		h.stripe_id = s->id;
		gfec_rdma_hdr_pack(&h, s->reply);
	}
	return head;
}

void rdma_batcher_wait(gfec_rdma_server *srv)
{
	/* The stripes in the codecs' windows write into slot buffers and kick the transport, so
	 * both must outlive them. */
	pthread_mutex_lock(&srv->lock);
	while (srv->inflight)
		pthread_cond_wait(&srv->idle, &srv->lock);
	pthread_mutex_unlock(&srv->lock);
}

void rdma_batcher_drain(gfec_rdma_server *srv)
{
	/* Every connection is closed and nothing is in a window: what is still on a completion
	 * list is freed with its connection, and the last connection of each class frees it. */
	take_done(srv, -1, 1);
}
