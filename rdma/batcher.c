/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file batcher.c
 * The batcher: gathers stripes of many connections into one gfec_encode_batch (run through
 * gfec_submit, so several batches can be in flight while the next one fills), and hands the
 * finished stripes back to the I/O thread of each one's connection through per-shard completion
 * lists.
 *
 * Stripes are batched per class, a (codec, chunk length) pair, because one gfec_encode_batch
 * call takes one G and one len. A class launches when it holds `batch` stripes, or when its
 * oldest stripe has waited `deadline_us`, whichever comes first. A class lives while
 * connections use it.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

static void batch_done(struct gfec_request *req, void *user)
{
	struct rdma_batch *b = user;
	gfec_rdma_server *srv = b->srv;
	size_t plen = (size_t)b->req.len;

	hist_add(srv->st.batch_us, rdma_now_ns() - b->t0);
	if (req->status) {
		stat_add(&srv->st.encode_errors, (uint64_t)b->n);
		rdma_log(GFEC_LOG_ERROR, "gfec-rdma: batch of %d stripes failed: %s", b->n,
			 gfec_strerror(req->status));
	}
	pthread_mutex_lock(&srv->lock);
	for (int i = 0; i < b->n; i++) {
		struct rdma_slot *s = b->slots[i];

		s->status = req->status;
		if (!s->status && srv->cfg.corrupt_every && !s->conn->bufs_on_device &&
		    ++srv->corrupt_count % srv->cfg.corrupt_every == 0)
			s->buf[(size_t)s->conn->k * plen] ^= 1;
		done_push(srv, s);
	}
	/* Kick before inflight drops: gfec_rdma_server_free() destroys the transport as soon as
	 * it sees inflight reach 0, and srv is not touched after the unlock. */
	kick_pending(srv);
	srv->inflight--;
	pthread_cond_signal(&srv->wake);
	if (!srv->inflight)
		pthread_cond_broadcast(&srv->idle);
	pthread_mutex_unlock(&srv->lock);
	free(b);
}

/*
 * Takes up to `batch` stripes off @p cls and submits them as one request (lock held). Stripes of
 * connections that have gone are not encoded: they go straight to the completion list, where
 * the I/O thread frees them.
 */
static void launch(gfec_rdma_server *srv, struct rdma_class *cls, int full)
{
	int want = (int)cls->n < srv->cfg.batch ? (int)cls->n : srv->cfg.batch;
	int k = cls->k, m = cls->m, n = 0, ret;
	struct rdma_batch *b;
	size_t sz = sizeof(*b) + (size_t)want * (sizeof(void *) * (size_t)(1 + k + m));

	b = malloc(sz);
	for (int i = 0; i < want; i++) {
		struct rdma_slot *s = cls->head;

		cls->head = s->next;
		cls->n--;
		if (__atomic_load_n(&s->conn->dead, __ATOMIC_ACQUIRE) || !b) {
			s->status = b ? GFEC_RDMA_E_CLOSED : GFEC_E_NOMEM;
			done_push(srv, s);
			continue;
		}
		if (!n) {
			b->slots = (struct rdma_slot **)(b + 1);
			b->data = (const uint8_t **)(b->slots + want);
			b->parity = (uint8_t **)(b->data + (size_t)want * k);
		}
		b->slots[n] = s;
		for (int j = 0; j < k; j++)
			b->data[n * k + j] = s->buf + (size_t)j * cls->len;
		for (int j = 0; j < m; j++)
			b->parity[n * m + j] = s->buf + (size_t)(k + j) * cls->len;
		n++;
	}
	if (!cls->head)
		cls->tail = NULL;
	kick_pending(srv); /* the stripes of connections that had gone */
	if (!n) {
		free(b);
		return;
	}
	stat_add(&srv->st.batches, 1);
	stat_add(&srv->st.batched, (uint64_t)n);
	stat_add(full ? &srv->st.batches_full : &srv->st.batches_deadline, 1);
	memset(&b->req, 0, sizeof(b->req));
	b->req.op = GFEC_OP_ENCODE;
	b->req.nstripes = n;
	b->req.len = cls->len;
	b->req.in = b->data;
	b->req.out = b->parity;
	b->req.done = batch_done;
	b->req.user = b;
	b->srv = srv;
	b->n = n;
	b->t0 = rdma_now_ns();
	srv->inflight++;
	ret = gfec_submit(cls->codec, &b->req);
	if (ret) {
		/* No worker threads: run it here. The lock is dropped as batch_done takes it. */
		pthread_mutex_unlock(&srv->lock);
		b->req.status = gfec_encode_batch(cls->codec, n, b->data, b->parity, cls->len);
		batch_done(&b->req, b);
		pthread_mutex_lock(&srv->lock);
	}
}

static void *batcher_main(void *arg)
{
	gfec_rdma_server *srv = arg;
	uint64_t deadline = (uint64_t)srv->cfg.deadline_us * 1000;

	pthread_mutex_lock(&srv->lock);
	while (!srv->batcher_stop) {
		uint64_t now = rdma_now_ns(), wake = UINT64_MAX;
		struct rdma_class *ready = NULL;
		int full = 0;

		for (struct rdma_class *c = srv->classes; c; c = c->next) {
			uint64_t due;

			if (!c->n)
				continue;
			due = c->head->landed_ns + deadline;
			if ((int)c->n >= srv->cfg.batch) {
				ready = c;
				full = 1;
				break;
			}
			if (due <= now)
				ready = ready ? ready : c;
			else if (due < wake)
				wake = due;
		}
		if (ready && srv->inflight < RDMA_MAX_INFLIGHT) {
			launch(srv, ready, full);
			continue;
		}
		if (ready || wake == UINT64_MAX) {
			/* Full up, or nothing queued: a new stripe or a finished batch wakes us. */
			pthread_cond_wait(&srv->wake, &srv->lock);
		} else {
			struct timespec ts = {.tv_sec = (time_t)(wake / 1000000000u),
					      .tv_nsec = (long)(wake % 1000000000u)};

			pthread_cond_timedwait(&srv->wake, &srv->lock, &ts);
		}
	}
	pthread_mutex_unlock(&srv->lock);
	return NULL;
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
	c->k = code->k;
	c->m = code->m;
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

/* The class's queue is empty by then: a connection is freed only once none of its stripes is
 * queued, in a batch or on a completion list. */
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

void rdma_conn_landed(gfec_rdma_server *srv, struct rdma_slot *s)
{
	struct rdma_conn *c = s->conn;
	struct rdma_class *cls = c->cls;

	s->landed_ns = rdma_now_ns();
	s->state = SLOT_QUEUED;
	s->next = NULL;
	c->queued++;
	pthread_mutex_lock(&srv->lock);
	if (cls->tail)
		cls->tail->next = s;
	else
		cls->head = s;
	cls->tail = s;
	/* The batcher sleeps until the oldest stripe's deadline: only a new oldest or a full
	 * batch changes what it waits for. */
	if (++cls->n == 1 || (int)cls->n >= srv->cfg.batch)
		pthread_cond_signal(&srv->wake);
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

int rdma_batcher_start(gfec_rdma_server *srv)
{
	if (pthread_create(&srv->batcher, NULL, batcher_main, srv) != 0)
		return GFEC_E_SYSTEM;
	srv->batcher_running = 1;
	return 0;
}

void rdma_batcher_stop(gfec_rdma_server *srv)
{
	/* No new launches, then let the batches in flight finish: they write into slot buffers
	 * and kick the transport, so both must outlive them. */
	if (srv->batcher_running) {
		pthread_mutex_lock(&srv->lock);
		srv->batcher_stop = 1;
		pthread_cond_signal(&srv->wake);
		pthread_mutex_unlock(&srv->lock);
		pthread_join(srv->batcher, NULL);
		srv->batcher_running = 0;
	}
	pthread_mutex_lock(&srv->lock);
	while (srv->inflight)
		pthread_cond_wait(&srv->idle, &srv->lock);
	pthread_mutex_unlock(&srv->lock);
}

void rdma_batcher_drain(gfec_rdma_server *srv)
{
	/* What is still queued is freed with its connection, and the last connection of each
	 * class frees the class. */
	take_done(srv, -1, 1);
	pthread_mutex_lock(&srv->lock);
	for (struct rdma_class *c = srv->classes; c; c = c->next) {
		while (c->head) {
			struct rdma_slot *s = c->head;

			c->head = s->next;
			done_push(srv, s);
		}
		c->tail = NULL;
		c->n = 0;
	}
	pthread_mutex_unlock(&srv->lock);
	take_done(srv, -1, 1);
}
