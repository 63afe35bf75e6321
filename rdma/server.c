/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file server.c
 * The transport-independent half of the ingest server: per-connection protocol state and stripe
 * slots, the batcher that gathers stripes of many connections into one gfec_encode_batch (run
 * through gfec_submit, so several batches can be in flight while the next one fills), and the
 * latency counters. Keeping this out of the transports means TCP and verbs reject the same input
 * and batch the same way.
 *
 * Stripes are batched per class, a (codec, chunk length) pair, because one gfec_encode_batch
 * call takes one G and one len. A class launches when it holds `batch` stripes, or when its
 * oldest stripe has waited `deadline_us`, whichever comes first.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

/* Batches submitted and not yet complete: enough to keep the codec's async workers busy while
 * the next batch fills, few enough that a slow backend pushes back on the clients (credits). */
#define RDMA_MAX_INFLIGHT 4
/* Distinct (codec, chunk_len) classes at once: a class lives while connections use it. */
#define RDMA_MAX_CLASSES 64
#define RDMA_MAX_CODES 16
/* Hash buckets of the per-address connection counts. */
#define RDMA_PEER_BUCKETS 256

struct rdma_class {
	struct rdma_class *next;
	gfec_codec *codec;
	int k, m;
	size_t len;
	struct rdma_slot *head, *tail;
	unsigned n;
	unsigned users; /* connections that said HELLO for it; freed at 0 */
};

/* Connections open from one IP address (IPv4 as v4-mapped IPv6). */
struct rdma_peer {
	struct rdma_peer *next;
	uint8_t ip[16];
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
	pthread_cond_t wake;  /* the batcher: a stripe arrived, a batch finished, or stop */
	pthread_cond_t idle;  /* inflight reached 0 */
	struct rdma_class *classes;
	unsigned nclasses, inflight;
	/* finished stripes, one list per I/O thread (shard); kick_mask: shards to wake */
	struct rdma_slot *done_head[RDMA_MAX_SHARDS], *done_tail[RDMA_MAX_SHARDS];
	uint64_t kick_mask;
	int batcher_stop, batcher_running;
	pthread_t batcher;
	uint64_t corrupt_count;
	char memory[200]; /* where stripe buffers live, set by the transport */

	struct gfec_rdma_stats st; /* updated with atomics, read field by field */
};

/* One launch: the request and the pointer arrays gfec_encode_batch reads. */
struct rdma_batch {
	struct gfec_request req;
	gfec_rdma_server *srv;
	int n;
	uint64_t t0;
	struct rdma_slot **slots;
	const uint8_t **data;
	uint8_t **parity;
};

/* ---- small things ---------------------------------------------------------------------------- */

/* The sink: every line of this module goes through rdma_log, one line at a time under
 * log_lock, so lines of different threads never interleave and the sink can be swapped while
 * servers run. */
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static gfec_log_fn log_fn;
static void *log_user;
static enum gfec_log_level log_max;

void gfec_rdma_set_log(gfec_log_fn fn, void *user, enum gfec_log_level max_level)
{
	pthread_mutex_lock(&log_lock);
	log_fn = fn;
	log_user = user;
	log_max = max_level;
	pthread_mutex_unlock(&log_lock);
}

void rdma_log(enum gfec_log_level level, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&log_lock);
	if (log_fn && level <= log_max)
		log_fn(level, msg, log_user);
	pthread_mutex_unlock(&log_lock);
}

const char *gfec_rdma_strerror(int code)
{
	switch (code) {
	case GFEC_RDMA_E_MAGIC:
		return "not a gfec ingest message (wrong magic)";
	case GFEC_RDMA_E_VERSION:
		return "protocol version or header length not supported";
	case GFEC_RDMA_E_TYPE:
		return "unexpected message type";
	case GFEC_RDMA_E_LENGTH:
		return "message length inconsistent or over the limit";
	case GFEC_RDMA_E_CODE:
		return "(k,m) not served, or not this connection's";
	case GFEC_RDMA_E_STRIPE_ID:
		return "stripe id not greater than the previous one";
	case GFEC_RDMA_E_CREDITS:
		return "more stripes outstanding than credits granted";
	case GFEC_RDMA_E_CLOSED:
		return "connection closed by the peer";
	case GFEC_RDMA_E_BUSY:
		return "server has no room for another connection";
	case GFEC_RDMA_E_TRANSPORT:
		return "transport not available in this build";
	case GFEC_RDMA_E_ADDRESS:
		return "address does not parse or resolve";
	case GFEC_RDMA_E_TIMEOUT:
		return "peer did not answer in time";
	}
	return gfec_strerror(code);
}

uint64_t rdma_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void stat_add(uint64_t *p, uint64_t v)
{
	__atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}

static void stat_sub(uint64_t *p, uint64_t v)
{
	__atomic_fetch_sub(p, v, __ATOMIC_RELAXED);
}

static void hist_add(uint64_t *hist, uint64_t ns)
{
	uint64_t us = ns / 1000;
	int b = us ? 63 - __builtin_clzll(us) : 0;

	stat_add(&hist[b < GFEC_RDMA_HIST ? b : GFEC_RDMA_HIST - 1], 1);
}

uint64_t gfec_rdma_hist_quantile(const uint64_t hist[GFEC_RDMA_HIST], double q)
{
	uint64_t total = 0, acc = 0;

	for (int i = 0; i < GFEC_RDMA_HIST; i++)
		total += hist[i];
	if (!total)
		return 0;
	for (int i = 0; i < GFEC_RDMA_HIST; i++) {
		acc += hist[i];
		if ((double)acc >= q * (double)total)
			return 2ull << i;
	}
	return 2ull << (GFEC_RDMA_HIST - 1);
}

const struct gfec_rdma_transport_ops *rdma_transport_find(const char *name)
{
	if (name && strcmp(name, gfec_rdma_tcp_ops.name) == 0)
		return &gfec_rdma_tcp_ops;
#ifdef GFEC_HAVE_VERBS
	if (name && strcmp(name, gfec_rdma_verbs_ops.name) == 0)
		return &gfec_rdma_verbs_ops;
#endif
	return NULL;
}

int rdma_split_addr(const char *addr, char *host, size_t hostlen, char *port, size_t portlen)
{
	const char *colon = addr ? strrchr(addr, ':') : NULL;
	const char *h = addr;
	size_t hl;

	if (!colon || !colon[1] || strlen(colon + 1) >= portlen)
		return GFEC_RDMA_E_ADDRESS;
	hl = (size_t)(colon - addr);
	if (hl >= 2 && addr[0] == '[' && addr[hl - 1] == ']') {
		h++;
		hl -= 2;
	}
	if (hl == 0 || hl >= hostlen)
		return GFEC_RDMA_E_ADDRESS;
	memcpy(host, h, hl);
	host[hl] = '\0';
	strcpy(port, colon + 1);
	return 0;
}

/* ---- the batcher ----------------------------------------------------------------------------- */

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

/* ---- connections (I/O thread) ------------------------------------------------------------------
 */

uint64_t rdma_max_payload(const gfec_rdma_server *srv)
{
	return srv->max_payload;
}

int rdma_stopping(gfec_rdma_server *srv)
{
	return __atomic_load_n(&srv->stop, __ATOMIC_ACQUIRE);
}

/* @p ip (16 bytes) of @p sa; 0 if it has no IP address. */
static int peer_ip(const struct sockaddr *sa, uint8_t ip[16])
{
	if (sa && sa->sa_family == AF_INET) {
		memset(ip, 0, 10);
		ip[10] = ip[11] = 0xff;
		memcpy(ip + 12, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, 4);
		return 1;
	}
	if (sa && sa->sa_family == AF_INET6) {
		memcpy(ip, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, 16);
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
	if (!srv->cfg.max_conns_per_addr || !peer_ip(sa, ip))
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

	/* A connection waiting for its parity is the server's to answer, not idle. */
	if (!ms || c->outstanding > c->receiving)
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

static void class_put(gfec_rdma_server *srv, struct rdma_class *cls);

static void conn_free(gfec_rdma_server *srv, struct rdma_conn *c)
{
	if (c->cls)
		class_put(srv, c->cls);
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
	free(c);
}

static void slot_release(struct rdma_conn *c, struct rdma_slot *s)
{
	s->state = SLOT_FREE;
	c->outstanding--;
}

/* The class for (codec, len), created on first use; one more user of it. */
static struct rdma_class *class_get(gfec_rdma_server *srv, const struct rdma_code *code, size_t len)
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

/*
 * One user fewer; the last one frees the class. Its queue is empty by then: a connection is
 * freed only once none of its stripes is queued, in a batch or on a completion list.
 */
static void class_put(gfec_rdma_server *srv, struct rdma_class *cls)
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
	c->cls = class_get(srv, code, h->chunk_len);
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
	if (!c->slots)
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
	c->receiving++;
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

unsigned rdma_credits(const gfec_rdma_server *srv)
{
	return srv->cfg.credits;
}

unsigned rdma_io_threads(const gfec_rdma_server *srv)
{
	return srv->cfg.io_threads;
}

const char *rdma_memory_wanted(const gfec_rdma_server *srv)
{
	return srv->cfg.memory;
}

void rdma_set_memory(gfec_rdma_server *srv, const char *what)
{
	snprintf(srv->memory, sizeof(srv->memory), "%s", what);
}

#ifndef GFEC_HAVE_VERBS
int gfec_rdma_probe(char *out, size_t outlen)
{
	snprintf(out, outlen, "verbs transport: not in this build (rdma-core headers missing)");
	return GFEC_RDMA_E_TRANSPORT;
}
#endif

const char *gfec_rdma_server_memory(const gfec_rdma_server *srv)
{
	return srv->memory;
}

void rdma_conn_landed(gfec_rdma_server *srv, struct rdma_slot *s)
{
	struct rdma_conn *c = s->conn;
	struct rdma_class *cls = c->cls;

	s->landed_ns = rdma_now_ns();
	s->state = SLOT_QUEUED;
	s->next = NULL;
	c->queued++;
	c->receiving--;
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
	__atomic_store_n(&c->dead, 1, __ATOMIC_RELEASE);
	c->closed = 1;
	c->receiving = 0;
	for (unsigned i = 0; c->slots && i < srv->cfg.credits; i++)
		if (c->slots[i].state == SLOT_RECV || c->slots[i].state == SLOT_SEND)
			slot_release(c, &c->slots[i]);
	if (!c->queued)
		conn_free(srv, c);
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
			slot_release(c, s);
			if (c->closed && !c->queued)
				conn_free(srv, c);
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

	for (struct rdma_slot *s = head; s; s = s->next) {
		struct gfec_rdma_hdr h;
		struct rdma_conn *c = s->conn;

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
	slot_release(c, s);
}

/* ---- the server ---------------------------------------------------------------------------- */

void gfec_rdma_server_config_default(struct gfec_rdma_server_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->transport = "tcp";
	cfg->bind = "127.0.0.1:7470";
	cfg->codes = "4,2 10,4";
	cfg->profile = "";
	cfg->batch = 64;
	cfg->deadline_us = 200;
	cfg->credits = 32;
	cfg->max_chunk = 4u << 20;
	cfg->max_conns = 1024;
	cfg->memory = "auto";
	cfg->io_threads = 1;
	cfg->max_buffer_bytes = 8ull << 30;
	cfg->header_timeout_ms = 5000;
	cfg->idle_timeout_ms = 60000;
	cfg->max_conns_per_addr = 64;
}

static int fail(char *err, size_t errlen, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t errlen, int code, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return code;
}

static int parse_codes(gfec_rdma_server *srv, const char *codes, char *err, size_t errlen)
{
	const char *p = codes;

	while (*p) {
		char *end;
		long k, m;

		if (*p == ' ' || *p == ';') {
			p++;
			continue;
		}
		k = strtol(p, &end, 10);
		if (end == p || *end != ',')
			goto bad;
		p = end + 1;
		m = strtol(p, &end, 10);
		if (end == p || (*end && *end != ' ' && *end != ';'))
			goto bad;
		p = end;
		if (srv->ncodes == RDMA_MAX_CODES)
			return fail(err, errlen, GFEC_E_INVAL, "codes: at most %d (k,m) pairs",
				    RDMA_MAX_CODES);
		if (k < 2 || k > 255 || m < 1 || m > k || k + m > 256)
			return fail(err, errlen, GFEC_E_INVAL, "codes: (%ld,%ld) out of range", k,
				    m);
		srv->codes[srv->ncodes].k = (int)k;
		srv->codes[srv->ncodes].m = (int)m;
		srv->ncodes++;
	}
	if (srv->ncodes)
		return 0;
bad:
	return fail(err, errlen, GFEC_E_INVAL, "codes '%s': want pairs K,M separated by spaces",
		    codes);
}

int gfec_rdma_server_create(const struct gfec_rdma_server_config *cfg, gfec_rdma_server **out,
			    char *err, size_t errlen)
{
	char host[256], port[32], cerr[256];
	gfec_rdma_server *srv;
	pthread_condattr_t ca;
	int ret;

	*out = NULL;
	if (cfg->batch < 1 || cfg->credits < 1 || cfg->max_chunk < 1 ||
	    cfg->max_chunk > UINT32_MAX || cfg->max_conns < 1)
		return fail(err, errlen, GFEC_E_INVAL,
			    "batch, credits, max_chunk and max_conns must be positive "
			    "(max_chunk < 4 GiB)");
	if (!cfg->max_buffer_bytes)
		return fail(err, errlen, GFEC_E_INVAL, "max_buffer_bytes must be positive");
	if (cfg->io_threads < 1 || cfg->io_threads > RDMA_MAX_SHARDS)
		return fail(err, errlen, GFEC_E_INVAL, "io_threads must be 1..%d", RDMA_MAX_SHARDS);
	if (cfg->credits > RDMA_MAX_CREDITS)
		return fail(err, errlen, GFEC_E_INVAL, "credits must be at most %d",
			    RDMA_MAX_CREDITS);
	if (cfg->memory && strcmp(cfg->memory, "auto") && strcmp(cfg->memory, "host") &&
	    strcmp(cfg->memory, "gpu"))
		return fail(err, errlen, GFEC_E_INVAL, "memory must be auto, host or gpu, not '%s'",
			    cfg->memory);
	srv = calloc(1, sizeof(*srv));
	if (!srv)
		return fail(err, errlen, GFEC_E_NOMEM, "out of memory");
	srv->cfg = *cfg;
	if (!srv->cfg.memory)
		srv->cfg.memory = "auto";
	pthread_mutex_init(&srv->lock, NULL);
	pthread_mutex_init(&srv->peer_lock, NULL);
	/* Deadlines are monotonic-clock times (rdma_now_ns). */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&srv->wake, &ca);
	pthread_condattr_destroy(&ca);
	pthread_cond_init(&srv->idle, NULL);

	srv->ops = rdma_transport_find(cfg->transport);
	if (!srv->ops) {
		ret = fail(err, errlen, GFEC_RDMA_E_TRANSPORT,
			   "transport '%s' is not in this build (have: %s)",
			   cfg->transport ? cfg->transport : "(null)", RDMA_TRANSPORTS);
		goto out;
	}
	ret = parse_codes(srv, cfg->codes ? cfg->codes : "", err, errlen);
	if (ret)
		goto out;
	for (int i = 0; i < srv->ncodes; i++) {
		char profile[512];
		struct rdma_code *c = &srv->codes[i];
		uint64_t pl = (uint64_t)c->k * cfg->max_chunk;

		snprintf(profile, sizeof(profile), "k=%d m=%d %s", c->k, c->m,
			 cfg->profile ? cfg->profile : "");
		ret = gfec_codec_create(profile, &c->codec, cerr, sizeof(cerr));
		if (ret) {
			fail(err, errlen, ret, "codec '%s': %s", profile, cerr);
			goto out;
		}
		if (pl > srv->max_payload)
			srv->max_payload = pl;
	}
	ret = rdma_split_addr(cfg->bind, host, sizeof(host), port, sizeof(port));
	if (ret) {
		fail(err, errlen, ret, "bind address '%s': want HOST:PORT",
		     cfg->bind ? cfg->bind : "(null)");
		goto out;
	}
	ret = srv->ops->listen(srv, host, port, &srv->tp);
	if (ret) {
		int e = errno;

		fail(err, errlen, ret, "listen on %s: %s%s", cfg->bind,
		     ret == GFEC_E_SYSTEM ? strerror(e) : gfec_rdma_strerror(ret),
		     ret == GFEC_E_SYSTEM && (e == ENODEV || e == EADDRNOTAVAIL) &&
			     strcmp(cfg->transport, "verbs") == 0
			 ? " (no RDMA device serves this address)"
			 : "");
		goto out;
	}
	if (pthread_create(&srv->batcher, NULL, batcher_main, srv) != 0) {
		ret = fail(err, errlen, GFEC_E_SYSTEM, "cannot start the batcher thread");
		goto out;
	}
	srv->batcher_running = 1;
	*out = srv;
	return 0;
out:
	gfec_rdma_server_free(srv);
	return ret;
}

int gfec_rdma_server_port(const gfec_rdma_server *srv)
{
	return srv->ops->port(srv->tp);
}

int gfec_rdma_server_run(gfec_rdma_server *srv)
{
	return srv->ops->run(srv->tp);
}

void gfec_rdma_server_stop(gfec_rdma_server *srv)
{
	__atomic_store_n(&srv->stop, 1, __ATOMIC_RELEASE);
	srv->ops->kick(srv->tp, -1);
}

const char *gfec_rdma_server_backend(const gfec_rdma_server *srv, int k, int m)
{
	for (int i = 0; i < srv->ncodes; i++)
		if (srv->codes[i].k == k && srv->codes[i].m == m)
			return gfec_codec_backend(srv->codes[i].codec);
	return NULL;
}

void gfec_rdma_server_stats(gfec_rdma_server *srv, struct gfec_rdma_stats *out)
{
	const uint64_t *src = (const uint64_t *)&srv->st;
	uint64_t *dst = (uint64_t *)out;

	/* The struct is all uint64_t: copy it counter by counter, each one atomically. */
	for (size_t i = 0; i < sizeof(*out) / sizeof(uint64_t); i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
	for (int i = 0; i < srv->ncodes; i++) {
		struct gfec_stats cs;

		gfec_codec_stats(srv->codes[i].codec, &cs);
		out->gpu_calls += cs.gpu_calls;
		out->cpu_fallbacks += cs.fallbacks;
	}
}

void gfec_rdma_server_free(gfec_rdma_server *srv)
{
	if (!srv)
		return;
	/* No new launches, then let the batches in flight finish: they write into slot buffers
	 * and kick the transport, so both must outlive them. */
	if (srv->batcher_running) {
		pthread_mutex_lock(&srv->lock);
		srv->batcher_stop = 1;
		pthread_cond_signal(&srv->wake);
		pthread_mutex_unlock(&srv->lock);
		pthread_join(srv->batcher, NULL);
	}
	pthread_mutex_lock(&srv->lock);
	while (srv->inflight)
		pthread_cond_wait(&srv->idle, &srv->lock);
	pthread_mutex_unlock(&srv->lock);
	if (srv->tp)
		srv->ops->destroy(srv->tp);
	/* Every connection is closed now; what is still queued is freed with its connection, and
	 * the last connection of each class frees the class. */
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
	for (int i = 0; i < srv->ncodes; i++)
		gfec_codec_free(srv->codes[i].codec);
	pthread_cond_destroy(&srv->idle);
	pthread_cond_destroy(&srv->wake);
	pthread_mutex_destroy(&srv->lock);
	pthread_mutex_destroy(&srv->peer_lock);
	free(srv);
}
