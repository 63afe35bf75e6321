/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file tcp.c
 * The TCP transport: the ingest protocol for hosts without RDMA, and what CI runs at speed.
 * io_threads shards each serve their own connections through epoll (level-triggered,
 * non-blocking sockets); shard 0 also accepts, and hands each new socket to the shards in turn.
 * A finished stripe (on a codec worker) wakes its shard through the shard's eventfd. Small
 * messages are read through a per-connection buffer (one read() covers many stripes); a large
 * payload's remainder is read straight into its stripe slot, so big chunks are copied once.
 */
#define _GNU_SOURCE /* accept4 */
#include <errno.h>
#include <pthread.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "gfec/gfec_limits.h"
#include "internal.h"
#include "threadpool.h"

#define RX_BUF (32u << 10)
/* A payload remainder at least this big skips the receive buffer. */
#define DIRECT_MIN (16u << 10)
/* Bytes read from one connection per wakeup, so one fast sender cannot starve the others. */
#define READ_BUDGET (1u << 20)
/* Parity replies gathered into one sendmsg. */
#define TX_BATCH 16
/* conn_read's "the peer shut down": conn_drop works out whether it left mid-message. */
#define PEER_EOF 1
/* A blocking client gives up on a silent server after this long. */
#define CLIENT_TIMEOUT_S 30

struct tcp_conn {
	struct tcp_conn *prev, *next;
	struct tcp_conn *dirty_next;
	struct rdma_conn *rc;
	int fd, out_armed, dirty;
	/* receive */
	uint8_t hdr[GFEC_RDMA_HDR_LEN];
	size_t hdr_have;
	struct rdma_slot *rslot;
	uint8_t *dst;
	size_t left;
	size_t rx_off, rx_have;
	/* send: the HELLO_ACK first, then parity replies in order */
	uint8_t ctl[GFEC_RDMA_HDR_LEN];
	size_t ctl_len, ctl_off;
	struct rdma_slot *sq_head, *sq_tail;
	size_t sq_off; /* bytes of sq_head already sent */
	uint8_t rx[RX_BUF];
};

struct tcp;

/* One I/O thread and the connections it owns. */
struct tcp_shard {
	struct tcp *t;
	unsigned id;
	int efd, epfd;
	struct tcp_conn *conns;
	uint64_t next_sweep; /* when to look for connections that timed out */
	pthread_t thread;
	pthread_mutex_t lock;	  /* incoming */
	struct tcp_new *incoming; /* accepted sockets handed over by shard 0 */
};

struct tcp_new {
	struct tcp_new *next;
	int fd;
};

struct tcp {
	gfec_rdma_server *srv;
	int lfd, port;
	int paused; /* atomic: the listener is out of epoll, no descriptor was left for accept */
	unsigned nshards, running, next;
	struct tcp_shard sh[];
};

/* ---- server ---------------------------------------------------------------------------------- */

static void tcp_destroy(void *tp);

static int tcp_listen(gfec_rdma_server *srv, const char *host, const char *port, void **out)
{
	struct addrinfo hints = {
	    .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE};
	struct addrinfo *ai = NULL;
	struct epoll_event ev = {.events = EPOLLIN};
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	unsigned n = rdma_io_threads(srv);
	struct tcp *t;
	int one = 1, ret = GFEC_E_SYSTEM;

	t = calloc(1, sizeof(*t) + n * sizeof(t->sh[0]));
	if (!t)
		return GFEC_E_NOMEM;
	t->srv = srv;
	t->lfd = -1;
	t->nshards = n;
	for (unsigned i = 0; i < n; i++) {
		t->sh[i].t = t;
		t->sh[i].id = i;
		t->sh[i].efd = t->sh[i].epfd = -1;
		pthread_mutex_init(&t->sh[i].lock, NULL);
	}
	for (unsigned i = 0; i < n; i++) {
		struct tcp_shard *sh = &t->sh[i];

		sh->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		sh->epfd = epoll_create1(EPOLL_CLOEXEC);
		ev.data.ptr = sh; /* the eventfd */
		if (sh->efd < 0 || sh->epfd < 0 || epoll_ctl(sh->epfd, EPOLL_CTL_ADD, sh->efd, &ev))
			goto fail;
	}
	if (getaddrinfo(host, port, &hints, &ai) != 0) {
		ret = GFEC_RDMA_E_ADDRESS;
		goto fail;
	}
	t->lfd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (t->lfd < 0)
		goto fail;
	setsockopt(t->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(t->lfd, ai->ai_addr, ai->ai_addrlen) || listen(t->lfd, 512) ||
	    getsockname(t->lfd, (struct sockaddr *)&ss, &sl))
		goto fail;
	t->port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
						 : ((struct sockaddr_in *)&ss)->sin_port);
	ev.data.ptr = NULL; /* the listener, in shard 0 */
	if (epoll_ctl(t->sh[0].epfd, EPOLL_CTL_ADD, t->lfd, &ev))
		goto fail;
	freeaddrinfo(ai);
	rdma_set_memory(srv, "host memory (the tcp transport lands stripes in host buffers; a GPU "
			     "codec copies them in)");
	*out = t;
	return 0;
fail:
	if (ai)
		freeaddrinfo(ai);
	tcp_destroy(t);
	return ret;
}

static int tcp_port(const void *tp)
{
	return ((const struct tcp *)tp)->port;
}

static void kick_shard(struct tcp_shard *sh)
{
	uint64_t one = 1;
	ssize_t n = write(sh->efd, &one, sizeof(one));

	(void)n; /* a full counter already means "wake up" */
}

static void tcp_kick(void *tp, int shard)
{
	struct tcp *t = tp;

	for (unsigned i = 0; i < t->nshards; i++)
		if (shard < 0 || (unsigned)shard == i)
			kick_shard(&t->sh[i]);
}

/* An ERROR message, best effort: the socket is closed right after. */
static void send_error(int fd, int why)
{
	struct gfec_rdma_hdr h;
	uint8_t raw[GFEC_RDMA_HDR_LEN];
	ssize_t n;

	gfec_rdma_hdr_init(&h, GFEC_RDMA_ERROR);
	h.status = why;
	gfec_rdma_hdr_pack(&h, raw);
	n = send(fd, raw, sizeof(raw), MSG_DONTWAIT | MSG_NOSIGNAL);
	(void)n;
}

/* Closes @p c: ERROR first (best effort) when it broke the protocol, then the socket. */
static void conn_drop(struct tcp_shard *sh, struct tcp_conn *c, int why)
{
	struct tcp *t = sh->t;

	if (why && why != GFEC_RDMA_E_CLOSED) {
		send_error(c->fd, why);
		rdma_log(GFEC_LOG_WARN, "gfec-rdma: closing a connection: %s",
			 gfec_rdma_strerror(why));
	}
	epoll_ctl(sh->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	if (c->prev)
		c->prev->next = c->next;
	else
		sh->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	/* Half-received and unsent slots are released by the core; queued ones come back later. */
	if (!why && (c->hdr_have || c->rslot))
		why = GFEC_RDMA_E_CLOSED;
	rdma_conn_close(t->srv, c->rc, why);
	free(c);
	/* A descriptor is free again: the listener (shard 0's) comes back if it was paused. */
	if (__atomic_exchange_n(&t->paused, 0, __ATOMIC_ACQ_REL)) {
		struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};

		if (epoll_ctl(t->sh[0].epfd, EPOLL_CTL_ADD, t->lfd, &ev))
			__atomic_store_n(&t->paused, 1, __ATOMIC_RELEASE);
	}
}

/* Refuses a socket the server has no room for. */
static void refuse(int fd)
{
	send_error(fd, GFEC_RDMA_E_BUSY);
	close(fd);
}

/* A new connection on @p sh's thread. */
static void conn_add(struct tcp_shard *sh, int fd)
{
	struct epoll_event ev = {.events = EPOLLIN};
	struct tcp_conn *c = calloc(1, sizeof(*c));
	struct sockaddr_storage peer;
	socklen_t plen = sizeof(peer);
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (getpeername(fd, (struct sockaddr *)&peer, &plen))
		peer.ss_family = AF_UNSPEC;
	if (c)
		c->rc = rdma_conn_open(sh->t->srv, c, sh->id, (struct sockaddr *)&peer);
	if (!c || !c->rc) {
		refuse(fd);
		free(c);
		return;
	}
	c->fd = fd;
	ev.data.ptr = c;
	if (epoll_ctl(sh->epfd, EPOLL_CTL_ADD, fd, &ev)) {
		close(fd);
		rdma_conn_close(sh->t->srv, c->rc, 0);
		free(c);
		return;
	}
	c->next = sh->conns;
	if (sh->conns)
		sh->conns->prev = c;
	sh->conns = c;
}

/* Shard 0: accepts, and gives each socket to the next running shard. */
static void accept_all(struct tcp_shard *sh0)
{
	struct tcp *t = sh0->t;

	for (;;) {
		int fd = accept4(t->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct tcp_shard *to;
		struct tcp_new *nw;

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			/*
			 * Out of descriptors (or memory), the listener would stay readable and
			 * epoll would spin: stop listening until a connection closes.
			 */
			if (errno != EAGAIN && errno != EWOULDBLOCK &&
			    epoll_ctl(sh0->epfd, EPOLL_CTL_DEL, t->lfd, NULL) == 0) {
				__atomic_store_n(&t->paused, 1, __ATOMIC_RELEASE);
				rdma_log(GFEC_LOG_WARN,
					 "gfec-rdma: accept: %s; not accepting "
					 "until a connection closes",
					 strerror(errno));
			}
			return;
		}
		to = &t->sh[t->next++ % t->running];
		if (to == sh0) {
			conn_add(sh0, fd);
			continue;
		}
		nw = malloc(sizeof(*nw));
		if (!nw) {
			refuse(fd);
			continue;
		}
		nw->fd = fd;
		pthread_mutex_lock(&to->lock);
		nw->next = to->incoming;
		to->incoming = nw;
		pthread_mutex_unlock(&to->lock);
		kick_shard(to);
	}
}

static void set_out(struct tcp_shard *sh, struct tcp_conn *c, int on)
{
	struct epoll_event ev = {.events = EPOLLIN | (on ? EPOLLOUT : 0), .data.ptr = c};

	if (c->out_armed != on && epoll_ctl(sh->epfd, EPOLL_CTL_MOD, c->fd, &ev) == 0)
		c->out_armed = on;
}

/* Sends what is queued on @p c until done or the socket is full. @returns 0 or an error. */
static int flush(struct tcp_shard *sh, struct tcp_conn *c)
{
	while (c->ctl_off < c->ctl_len || c->sq_head) {
		struct iovec iov[1 + 2 * TX_BATCH];
		struct msghdr msg = {.msg_iov = iov};
		size_t skip = c->sq_off;
		ssize_t n;
		int i = 0;

		if (c->ctl_off < c->ctl_len) {
			iov[i].iov_base = c->ctl + c->ctl_off;
			iov[i++].iov_len = c->ctl_len - c->ctl_off;
		}
		for (struct rdma_slot *s = c->sq_head; s && i < 2 * TX_BATCH; s = s->next) {
			size_t plen;
			uint8_t *p = rdma_slot_parity(s, &plen);

			/* Only the head can be partly sent. */
			if (skip < GFEC_RDMA_HDR_LEN) {
				iov[i].iov_base = s->reply + skip;
				iov[i++].iov_len = GFEC_RDMA_HDR_LEN - skip;
				skip = 0;
			} else {
				skip -= GFEC_RDMA_HDR_LEN;
			}
			if (plen > skip) {
				iov[i].iov_base = p + skip;
				iov[i++].iov_len = plen - skip;
			}
			skip = 0;
		}
		msg.msg_iovlen = (size_t)i;
		n = sendmsg(c->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				set_out(sh, c, 1);
				return 0;
			}
			return GFEC_RDMA_E_CLOSED;
		}
		if (c->ctl_off < c->ctl_len) {
			size_t a = c->ctl_len - c->ctl_off;

			a = (size_t)n < a ? (size_t)n : a;
			c->ctl_off += a;
			n -= (ssize_t)a;
		}
		while (n > 0 && c->sq_head) {
			struct rdma_slot *s = c->sq_head;
			size_t plen, whole;

			rdma_slot_parity(s, &plen);
			whole = GFEC_RDMA_HDR_LEN + plen - c->sq_off;
			if ((size_t)n < whole) {
				c->sq_off += (size_t)n;
				break;
			}
			n -= (ssize_t)whole;
			c->sq_off = 0;
			c->sq_head = s->next;
			if (!c->sq_head)
				c->sq_tail = NULL;
			rdma_slot_sent(sh->t->srv, s);
		}
	}
	set_out(sh, c, 0);
	return 0;
}

/* A header is complete in c->hdr: check it and learn where its payload goes. */
static int on_header(struct tcp_shard *sh, struct tcp_conn *c)
{
	struct gfec_rdma_hdr h;
	uint8_t reply[GFEC_RDMA_HDR_LEN];
	int ret;

	c->hdr_have = 0;
	ret = gfec_rdma_hdr_unpack(c->hdr, rdma_max_payload(sh->t->srv), &h);
	if (!ret)
		ret = rdma_conn_header(sh->t->srv, c->rc, &h, reply, -1, &c->rslot);
	if (ret)
		return ret;
	if (h.type == GFEC_RDMA_HELLO) {
		memcpy(c->ctl, reply, sizeof(reply));
		c->ctl_len = sizeof(reply);
		c->ctl_off = 0;
		return flush(sh, c);
	}
	c->dst = c->rslot->buf;
	c->left = h.payload_len;
	return 0;
}

static void payload_done(struct tcp_shard *sh, struct tcp_conn *c)
{
	rdma_conn_landed(sh->t->srv, c->rslot);
	c->rslot = NULL;
}

/* Parses what the receive buffer holds. */
static int consume(struct tcp_shard *sh, struct tcp_conn *c)
{
	while (c->rx_off < c->rx_have) {
		size_t avail = c->rx_have - c->rx_off, a;
		int ret;

		if (c->rslot) {
			a = avail < c->left ? avail : c->left;
			memcpy(c->dst, c->rx + c->rx_off, a);
			c->dst += a;
			c->left -= a;
			c->rx_off += a;
			if (!c->left)
				payload_done(sh, c);
			continue;
		}
		a = GFEC_RDMA_HDR_LEN - c->hdr_have;
		a = avail < a ? avail : a;
		memcpy(c->hdr + c->hdr_have, c->rx + c->rx_off, a);
		c->hdr_have += a;
		c->rx_off += a;
		if (c->hdr_have == GFEC_RDMA_HDR_LEN) {
			ret = on_header(sh, c);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* Reads what @p c has sent, up to READ_BUDGET. @returns 0, or why to close it. */
static int conn_read(struct tcp_shard *sh, struct tcp_conn *c)
{
	size_t budget = READ_BUDGET;
	ssize_t n;

	while (budget) {
		int direct = c->rslot && c->left >= DIRECT_MIN;

		if (direct)
			n = read(c->fd, c->dst, c->left);
		else
			n = read(c->fd, c->rx, sizeof(c->rx));
		if (n == 0)
			return PEER_EOF;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			return GFEC_RDMA_E_CLOSED;
		}
		budget -= (size_t)n < budget ? (size_t)n : budget;
		if (direct) {
			c->dst += n;
			c->left -= (size_t)n;
			if (!c->left)
				payload_done(sh, c);
			continue;
		}
		c->rx_off = 0;
		c->rx_have = (size_t)n;
		int ret = consume(sh, c);

		if (ret)
			return ret;
	}
	return 0;
}

/* Sockets shard 0 handed over, then finished stripes to their connections' send queues. */
static void deliver(struct tcp_shard *sh)
{
	struct tcp_conn *dirty = NULL;
	struct rdma_slot *s, *next;
	struct tcp_new *nw;
	uint64_t v;
	ssize_t n = read(sh->efd, &v, sizeof(v));

	(void)n;
	pthread_mutex_lock(&sh->lock);
	nw = sh->incoming;
	sh->incoming = NULL;
	pthread_mutex_unlock(&sh->lock);
	while (nw) {
		struct tcp_new *x = nw;

		nw = x->next;
		conn_add(sh, x->fd);
		free(x);
	}
	for (s = rdma_take_done(sh->t->srv, sh->id); s; s = next) {
		struct tcp_conn *c = s->conn->tp_conn;

		next = s->next;
		s->next = NULL;
		if (c->sq_tail)
			c->sq_tail->next = s;
		else
			c->sq_head = s;
		c->sq_tail = s;
		if (!c->dirty) {
			c->dirty = 1;
			c->dirty_next = dirty;
			dirty = c;
		}
	}
	while (dirty) {
		struct tcp_conn *c = dirty;

		dirty = c->dirty_next;
		c->dirty = 0;
		if (flush(sh, c))
			conn_drop(sh, c, GFEC_RDMA_E_CLOSED);
	}
}

/* Closes the connections that timed out (rdma_conn_expired), every sweep interval. */
static void sweep(struct tcp_shard *sh, int every_ms)
{
	uint64_t now = rdma_now_ns();
	struct tcp_conn *c, *next;

	if (every_ms < 0 || now < sh->next_sweep)
		return;
	sh->next_sweep = now + (uint64_t)every_ms * 1000000u;
	for (c = sh->conns; c; c = next) {
		int ret = rdma_conn_expired(sh->t->srv, c->rc, now);

		next = c->next;
		if (ret)
			conn_drop(sh, c, ret);
	}
}

static int shard_run(struct tcp_shard *sh)
{
	struct epoll_event ev[64];
	int every_ms = rdma_sweep_ms(sh->t->srv);

	while (!rdma_stopping(sh->t->srv)) {
		int n = epoll_wait(sh->epfd, ev, 64, every_ms), kicked = 0;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return GFEC_E_SYSTEM;
		}
		for (int i = 0; i < n; i++) {
			struct tcp_conn *c = ev[i].data.ptr;
			int ret = 0;

			if (!c) {
				accept_all(sh);
				continue;
			}
			if ((void *)c == sh) {
				kicked = 1;
				continue;
			}
			if (ev[i].events & EPOLLOUT)
				ret = flush(sh, c);
			if (!ret && (ev[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
				ret = conn_read(sh, c);
			if (ret)
				conn_drop(sh, c, ret == PEER_EOF ? 0 : ret);
		}
		/* Last: deliver() may drop connections that later entries of ev[] name. */
		if (kicked)
			deliver(sh);
		sweep(sh, every_ms);
	}
	return 0;
}

static void *shard_main(void *arg)
{
	struct tcp_shard *sh = arg;

	if (shard_run(sh)) /* epoll failed: this shard's connections are stuck, say so */
		rdma_log(GFEC_LOG_ERROR, "gfec-rdma: tcp I/O thread %u: %s", sh->id,
			 strerror(errno));
	return NULL;
}

/* Shard 0 runs on the caller; the others on their own threads, joined when stop is seen. */
static int tcp_run(void *tp)
{
	struct tcp *t = tp;
	int ret;

	t->running = 1;
	for (unsigned i = 1; i < t->nshards; i++) {
		if (gfec_thread_start(&t->sh[i].thread, shard_main, &t->sh[i])) {
			rdma_log(GFEC_LOG_WARN, "gfec-rdma: tcp: running %u I/O threads, not %u",
				 t->running, t->nshards);
			break;
		}
		t->running++;
	}
	ret = shard_run(&t->sh[0]);
	if (ret) /* the others must not outlive run() */
		gfec_rdma_server_stop(t->srv);
	for (unsigned i = 1; i < t->running; i++)
		pthread_join(t->sh[i].thread, NULL);
	t->running = 0;
	return ret;
}

static void tcp_destroy(void *tp)
{
	struct tcp *t = tp;

	for (unsigned i = 0; i < t->nshards; i++) {
		struct tcp_shard *sh = &t->sh[i];

		while (sh->conns)
			conn_drop(sh, sh->conns, 0);
		while (sh->incoming) {
			struct tcp_new *x = sh->incoming;

			sh->incoming = x->next;
			close(x->fd);
			free(x);
		}
		if (sh->efd >= 0)
			close(sh->efd);
		if (sh->epfd >= 0)
			close(sh->epfd);
		pthread_mutex_destroy(&sh->lock);
	}
	if (t->lfd >= 0)
		close(t->lfd);
	free(t);
}

/* ---- client ---------------------------------------------------------------------------------- */

struct tcp_client {
	int fd;
};

static int tcp_connect(const char *host, const char *port, void **out)
{
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
	struct addrinfo *ai = NULL;
	struct timeval tv = {.tv_sec = CLIENT_TIMEOUT_S};
	struct tcp_client *c;
	int one = 1;

	if (getaddrinfo(host, port, &hints, &ai) != 0)
		return GFEC_RDMA_E_ADDRESS;
	c = malloc(sizeof(*c));
	if (!c) {
		freeaddrinfo(ai);
		return GFEC_E_NOMEM;
	}
	c->fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0 || connect(c->fd, ai->ai_addr, ai->ai_addrlen)) {
		if (c->fd >= 0)
			close(c->fd);
		free(c);
		freeaddrinfo(ai);
		return GFEC_E_SYSTEM;
	}
	freeaddrinfo(ai);
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	*out = c;
	return 0;
}

/* Sends or receives all of iov, resuming after partial transfers. */
static int tcp_xfer(int fd, const struct iovec *iov_in, int iovcnt, int sending)
{
	struct iovec iov[1 + GFEC_MAX_CHUNKS + 1];
	struct msghdr msg = {.msg_iov = iov};
	int first = 0;

	if (iovcnt > (int)(sizeof(iov) / sizeof(iov[0])))
		return GFEC_E_INVAL;
	memcpy(iov, iov_in, (size_t)iovcnt * sizeof(*iov));
	while (first < iovcnt) {
		ssize_t n;

		msg.msg_iov = iov + first;
		msg.msg_iovlen = (size_t)(iovcnt - first);
		n = sending ? sendmsg(fd, &msg, MSG_NOSIGNAL) : recvmsg(fd, &msg, MSG_WAITALL);
		if (n == 0 && !sending)
			return GFEC_RDMA_E_CLOSED;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return GFEC_RDMA_E_TIMEOUT;
			return errno == EPIPE || errno == ECONNRESET ? GFEC_RDMA_E_CLOSED
								     : GFEC_E_SYSTEM;
		}
		while (first < iovcnt && (size_t)n >= iov[first].iov_len) {
			n -= (ssize_t)iov[first].iov_len;
			first++;
		}
		if (first < iovcnt) {
			iov[first].iov_base = (uint8_t *)iov[first].iov_base + n;
			iov[first].iov_len -= (size_t)n;
		}
	}
	return 0;
}

static int tcp_send(void *cp, const struct iovec *iov, int iovcnt)
{
	return tcp_xfer(((struct tcp_client *)cp)->fd, iov, iovcnt, 1);
}

static int tcp_recv(void *cp, const struct iovec *iov, int iovcnt)
{
	return tcp_xfer(((struct tcp_client *)cp)->fd, iov, iovcnt, 0);
}

static void tcp_close(void *cp)
{
	struct tcp_client *c = cp;

	close(c->fd);
	free(c);
}

const struct gfec_rdma_transport_ops gfec_rdma_tcp_ops = {
    .name = "tcp",
    .listen = tcp_listen,
    .port = tcp_port,
    .run = tcp_run,
    .kick = tcp_kick,
    .destroy = tcp_destroy,
    .connect = tcp_connect,
    .send = tcp_send,
    .recv = tcp_recv,
    .close = tcp_close,
};
