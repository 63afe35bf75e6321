/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file verbs_server.c
 * The verbs transport's server side: one I/O thread, the CM channel (connect requests,
 * disconnects), a completion channel per connection, and the core (internal.h) deciding what
 * every message means. Clients RDMA-WRITE stripes into the connection's slots and SEND the
 * header; parity goes back by RDMA WRITE into the client's buffer, then a PARITY SEND.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "verbs.h"

struct vsrv;

/* One connection. Freed when both the transport is done with it and the core released its
 * stripe slots (refs). */
struct vconn {
	struct vsrv *t;
	struct rdma_cm_id *id;
	struct rdma_conn *rc; /* NULL once the core was told it closed */
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	unsigned credits;
	struct region msgs;  /* credits + 2 receive messages, then credits + 2 send messages */
	struct region slots; /* after HELLO */
	uint64_t *dst_addr;  /* per slot: where its parity goes on the client */
	uint32_t *dst_rkey;
	int refs;
	int error_sent, disconnected; /* ERROR posted; rdma_disconnect called */
	uint64_t error_ns;	      /* when the ERROR was posted */
	unsigned sq, sq_max;	      /* send work requests posted and not completed; the room */
	int fail;		      /* send_done: a failure to report after its loop */
	struct vconn *fail_next;
	struct vconn *prev, *next; /* the server's open connections */
};

/* Send work-request ids: WR_SEND | (work requests in the post << 1) | (1 for the ERROR).
 * Receives use the receive buffer's index. */
#define WR_SEND (1ull << 63)
#define WR_ERROR 1ull
#define WR_COUNT(id) ((unsigned)((id) >> 1) & 3)
/* An ERROR the peer does not take (it stopped posting receives) ends in a disconnect anyway. */
#define ERROR_GRACE_NS 2000000000ull

struct vsrv {
	gfec_rdma_server *srv;
	struct rdma_event_channel *ech;
	struct rdma_cm_id *lid;
	int port, epfd, efd;
	int gpu_ok; /* GPU memory registration works on the listening device */
	struct vconn *conns;
};

static uint8_t *rmsg(struct vconn *c, unsigned i)
{
	return c->msgs.base + (size_t)i * MSG_LEN;
}

static uint8_t *smsg(struct vconn *c, unsigned i)
{
	return c->msgs.base + (size_t)(c->credits + 2 + i) * MSG_LEN;
}

static void vconn_put(struct vconn *c)
{
	if (--c->refs)
		return;
	rdma_region_free(&c->slots);
	rdma_region_free(&c->msgs);
	if (c->pd)
		V.dealloc_pd(c->pd);
	free(c->dst_addr);
	free(c->dst_rkey);
	free(c);
}

/* The core frees a connection on the I/O thread or in gfec_rdma_server_free: no lock needed. */
static void slots_release(void *arg)
{
	vconn_put(arg);
}

/* Tears down the queue pair and the id; the core is told first (why: as rdma_conn_close). */
static void vconn_close(struct vconn *c, int why)
{
	if (c->rc)
		rdma_conn_close(c->t->srv, c->rc, why);
	c->rc = NULL;
	if (c->prev)
		c->prev->next = c->next;
	else
		c->t->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	if (c->ch)
		epoll_ctl(c->t->epfd, EPOLL_CTL_DEL, c->ch->fd, NULL);
	if (c->id->qp)
		V.destroy_qp(c->id);
	if (c->cq)
		V.destroy_cq(c->cq);
	if (c->ch)
		V.destroy_comp_channel(c->ch);
	c->cq = NULL;
	c->ch = NULL;
	V.destroy_id(c->id);
	vconn_put(c);
}

/* Starts the CM disconnect once; DISCONNECTED (from the CM) then closes the connection. */
static void vconn_disconnect(struct vconn *c)
{
	if (c->disconnected)
		return;
	c->disconnected = 1;
	V.disconnect(c->id);
}

/* Posts a WRITE (when @p len) and a SEND of @p msg, within the send queue's room. */
static int vconn_post(struct vconn *c, const void *src, size_t len, uint64_t raddr, uint32_t rkey,
		      const uint8_t *msg, int is_error)
{
	unsigned n = len ? 2 : 1;

	if (c->sq + n > c->sq_max) /* the peer is not taking what it was sent */
		return GFEC_RDMA_E_CREDITS;
	if (rdma_post_write_send(c->id->qp, src, len ? c->slots.mr->lkey : 0, len, raddr, rkey, msg,
				 MSG_LEN, c->msgs.mr->lkey,
				 WR_SEND | (uint64_t)n << 1 | (is_error ? WR_ERROR : 0)))
		return GFEC_E_SYSTEM;
	c->sq += n;
	return 0;
}

/* Sends ERROR and disconnects once it is out (the peer's DISCONNECTED event does the rest). */
static void vconn_fail(struct vconn *c, int why)
{
	struct gfec_rdma_hdr h;
	uint8_t *msg = smsg(c, c->credits + 1);

	rdma_log(GFEC_LOG_WARN, "gfec-rdma: verbs: closing a connection: %s",
		 gfec_rdma_strerror(why));
	if (c->rc)
		rdma_conn_close(c->t->srv, c->rc, why);
	c->rc = NULL;
	if (c->error_sent || c->disconnected)
		return;
	c->error_sent = 1;
	c->error_ns = rdma_now_ns();
	gfec_rdma_hdr_init(&h, GFEC_RDMA_ERROR);
	h.status = why;
	memset(msg, 0, MSG_LEN);
	gfec_rdma_hdr_pack(&h, msg);
	/* its completion (or failure, or ERROR_GRACE_NS) triggers the disconnect */
	if (!c->id->qp || vconn_post(c, NULL, 0, 0, 0, msg, 1))
		vconn_disconnect(c);
}

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* A connection request: queue pair, message buffers and receives, then accept (or refuse). */
static void vconn_accept(struct vsrv *t, struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr qa = {.qp_type = IBV_QPT_RC};
	struct rdma_conn_param cp = {.rnr_retry_count = 7, .retry_count = 7};
	struct epoll_event ev = {.events = EPOLLIN};
	unsigned credits = rdma_credits(t->srv);
	struct vconn *c = calloc(1, sizeof(*c));

	if (!c) {
		V.reject(id, NULL, 0);
		V.destroy_id(id);
		return;
	}
	c->t = t;
	c->id = id;
	c->refs = 1;
	c->credits = credits;
	c->next = t->conns;
	if (t->conns)
		t->conns->prev = c;
	t->conns = c;
	id->context = c;
	c->pd = V.alloc_pd(id->verbs);
	c->ch = c->pd ? V.create_comp_channel(id->verbs) : NULL;
	c->cq = c->ch ? V.create_cq(id->verbs, (int)(5 * credits + 8), c, c->ch, 0) : NULL;
	if (!c->cq || ibv_req_notify_cq(c->cq, 0) ||
	    rdma_region_host(c->pd, (size_t)(2 * credits + 4) * MSG_LEN, IBV_ACCESS_LOCAL_WRITE,
			     &c->msgs))
		goto fail;
	qa.send_cq = qa.recv_cq = c->cq;
	/* 2 per slot (WRITE + SEND), twice over: a slot is released when its SEND is posted */
	qa.cap.max_send_wr = c->sq_max = 4 * credits + 4;
	qa.cap.max_recv_wr = credits + 2;
	qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
	if (V.create_qp(id, c->pd, &qa))
		goto fail;
	for (unsigned i = 0; i < credits + 2; i++)
		if (rdma_post_recv(id->qp, c->msgs.mr, rmsg(c, i), i))
			goto fail;
	ev.data.ptr = c;
	if (set_nonblock(c->ch->fd) || epoll_ctl(t->epfd, EPOLL_CTL_ADD, c->ch->fd, &ev))
		goto fail;
	c->rc = rdma_conn_open(t->srv, c, 0, &id->route.addr.dst_addr);
	if (!c->rc) { /* the server is full */
		V.reject(id, NULL, 0);
		vconn_close(c, 0);
		return;
	}
	if (V.accept(id, &cp))
		vconn_close(c, 0);
	return;
fail:
	rdma_log(GFEC_LOG_ERROR, "gfec-rdma: verbs: cannot set up a connection: %s",
		 strerror(errno));
	V.reject(id, NULL, 0);
	vconn_close(c, 0);
}

/* HELLO accepted by the core: the stripe slots, then HELLO_ACK with where they are. */
static int vconn_hello(struct vconn *c, const struct gfec_rdma_hdr *h, const uint8_t *ack)
{
	gfec_rdma_server *srv = c->t->srv;
	size_t stride = (size_t)(h->k + h->m) * h->chunk_len;
	size_t len = stride * c->credits;
	const char *backend = gfec_rdma_server_backend(srv, h->k, h->m);
	char why[160] = "";
	uint8_t *msg = smsg(c, c->credits);

	c->dst_addr = calloc(c->credits, sizeof(*c->dst_addr));
	c->dst_rkey = calloc(c->credits, sizeof(*c->dst_rkey));
	if (!c->dst_addr || !c->dst_rkey)
		return GFEC_E_NOMEM;
	/* GPU memory only for a codec that runs on the GPU: a CPU codec cannot read it. */
	if (!(c->t->gpu_ok && backend && strncmp(backend, "gpu", 3) == 0 &&
	      rdma_region_gpu(c->pd, rdma_codec(srv, h->k, h->m), len, &c->slots, why,
			      sizeof(why)) == 0) &&
	    rdma_region_host(c->pd, len, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
			     &c->slots))
		return GFEC_E_NOMEM;
	if (c->t->gpu_ok && !c->slots.on_gpu)
		rdma_log(GFEC_LOG_INFO, "gfec-rdma: verbs: (%d,%d) stripes in host memory: %s",
			 h->k, h->m, why[0] ? why : "its codec runs on the CPU");
	c->refs++; /* the core's, until it releases the slots */
	rdma_conn_set_buffers(srv, c->rc, c->slots.base, stride, c->slots.on_gpu, slots_release, c);
	memset(msg, 0, MSG_LEN);
	memcpy(msg, ack, GFEC_RDMA_HDR_LEN);
	put_u64(msg + EXT_OFF, (uintptr_t)c->slots.base);
	put_u32(msg + EXT_OFF + 8, c->slots.mr->rkey);
	put_u32(msg + EXT_OFF + 12, (uint32_t)stride);
	return vconn_post(c, NULL, 0, 0, 0, msg, 0);
}

/* One received message (receive buffer @p i): checked by the core, whatever the peer sent. */
static int vconn_message(struct vconn *c, unsigned i, uint32_t len)
{
	gfec_rdma_server *srv = c->t->srv;
	const uint8_t *msg = rmsg(c, i);
	uint8_t reply[GFEC_RDMA_HDR_LEN];
	struct gfec_rdma_hdr h;
	struct rdma_slot *slot;
	uint32_t index = 0;
	int ret;

	if (len != MSG_LEN)
		return GFEC_RDMA_E_LENGTH;
	ret = gfec_rdma_hdr_unpack(msg, rdma_max_payload(srv), &h);
	if (!ret && h.type == GFEC_RDMA_STRIPE && (index = get_u32(msg + EXT_OFF)) >= c->credits)
		ret = GFEC_RDMA_E_CREDITS;
	if (!ret)
		ret = rdma_conn_header(srv, c->rc, &h, reply,
				       h.type == GFEC_RDMA_STRIPE ? (int)index : -1, &slot);
	if (!ret && h.type == GFEC_RDMA_HELLO)
		ret = vconn_hello(c, &h, reply);
	if (!ret && h.type == GFEC_RDMA_STRIPE) {
		c->dst_rkey[index] = get_u32(msg + EXT_OFF + 4);
		c->dst_addr[index] = get_u64(msg + EXT_OFF + 8);
		rdma_conn_landed(srv, slot); /* RC: the WRITE before this SEND has landed */
	}
	if (!ret && rdma_post_recv(c->id->qp, c->msgs.mr, rmsg(c, i), i))
		ret = GFEC_E_SYSTEM;
	return ret;
}

/* Drains the completion queue of a connection; closes it on a failed completion. */
static void vconn_poll(struct vconn *c)
{
	struct ibv_cq *cq;
	struct ibv_wc wc[16];
	void *ctx;
	int n;

	if (V.get_cq_event(c->ch, &cq, &ctx))
		return;
	V.ack_cq_events(cq, 1);
	if (ibv_req_notify_cq(cq, 0))
		goto broken;
	while ((n = ibv_poll_cq(cq, 16, wc)) > 0) {
		for (int j = 0; j < n; j++) {
			uint64_t id = wc[j].wr_id; /* the only field valid in a failed completion */

			if (id & WR_SEND)
				c->sq -= WR_COUNT(id);
			if (wc[j].status != IBV_WC_SUCCESS) {
				/* flushed after a disconnect, or a transport error (a bad rkey
				 * given by the client lands here) */
				if (wc[j].status != IBV_WC_WR_FLUSH_ERR)
					rdma_log(GFEC_LOG_WARN, "gfec-rdma: verbs: %s",
						 V.wc_status_str(wc[j].status));
				goto broken;
			}
			if (id & WR_SEND) {
				if (id & WR_ERROR) /* the ERROR is out */
					vconn_disconnect(c);
			} else if (!c->rc) {
				/* closed by us: ignore what is still arriving */
			} else if (wc[j].opcode != IBV_WC_RECV) { /* e.g. a WRITE with immediate */
				vconn_fail(c, GFEC_RDMA_E_TYPE);
			} else {
				int ret = vconn_message(c, (unsigned)id, wc[j].byte_len);

				if (ret)
					vconn_fail(c, ret);
			}
		}
	}
	if (n >= 0)
		return;
broken:
	if (c->rc)
		rdma_conn_close(c->t->srv, c->rc, 0);
	c->rc = NULL;
	vconn_disconnect(c);
}

/* Finished stripes: WRITE the parity to the client, then SEND the PARITY header. */
static void send_done(struct vsrv *t)
{
	struct rdma_slot *s = rdma_take_done(t->srv, 0), *next;
	struct vconn *failed = NULL;

	for (; s; s = next) {
		struct vconn *c = s->conn->tp_conn;
		unsigned i = (unsigned)(s - s->conn->slots);
		size_t len;
		uint8_t *parity = rdma_slot_parity(s, &len);
		uint8_t *msg = smsg(c, i);

		next = s->next;
		memset(msg, 0, MSG_LEN);
		memcpy(msg, s->reply, GFEC_RDMA_HDR_LEN);
		put_u32(msg + EXT_OFF, i);
		/* Released at once: the client writes this slot again only after this SEND
		 * has arrived, and RC completes the WRITE before it. */
		rdma_slot_sent(t->srv, s);
		if (!c->fail) {
			c->fail =
			    vconn_post(c, parity, len, c->dst_addr[i], c->dst_rkey[i], msg, 0);
			if (c->fail) { /* closed after the loop: closing frees what later s name */
				c->fail_next = failed;
				failed = c;
			}
		}
	}
	while (failed) {
		struct vconn *c = failed;

		failed = c->fail_next;
		vconn_fail(c, c->fail);
	}
}

static void cm_event(struct vsrv *t)
{
	struct rdma_cm_event *ev;

	while (V.get_cm_event(t->ech, &ev) == 0) {
		struct rdma_cm_id *id = ev->id;
		enum rdma_cm_event_type type = ev->event;
		struct vconn *c = id != t->lid ? id->context : NULL;

		V.ack_cm_event(ev);
		switch (type) {
		case RDMA_CM_EVENT_CONNECT_REQUEST:
			vconn_accept(t, id);
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
			/* a disconnect asked for before this point did not take effect */
			if (c && c->disconnected)
				V.disconnect(id);
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
		case RDMA_CM_EVENT_CONNECT_ERROR:
		case RDMA_CM_EVENT_UNREACHABLE:
		case RDMA_CM_EVENT_REJECTED:
		case RDMA_CM_EVENT_DEVICE_REMOVAL:
			if (c) {
				if (type == RDMA_CM_EVENT_DISCONNECTED)
					vconn_disconnect(c); /* our half of it */
				vconn_close(c, 0);	     /* lost if stripes were outstanding */
			}
			break;
		default: /* TIMEWAIT_EXIT, ...: nothing to do */
			break;
		}
	}
}

/* Connections that timed out get an ERROR (rdma_conn_expired); a peer that does not take its
 * ERROR (no receive posted, retried forever) is cut off. */
static void expire(struct vsrv *t)
{
	uint64_t now = rdma_now_ns();

	for (struct vconn *c = t->conns; c; c = c->next) {
		int ret = c->rc ? rdma_conn_expired(t->srv, c->rc, now) : 0;

		if (ret)
			vconn_fail(c, ret); /* keeps c until its DISCONNECTED event */
		if (c->error_sent && !c->disconnected && now - c->error_ns > ERROR_GRACE_NS)
			vconn_disconnect(c);
	}
}

int rdma_verbs_run(void *tp)
{
	struct vsrv *t = tp;
	struct epoll_event ev[64];
	int every_ms = rdma_sweep_ms(t->srv);

	if (every_ms < 0 || every_ms > 1000) /* the ERROR grace is checked every second */
		every_ms = 1000;
	while (!rdma_stopping(t->srv)) {
		int n = epoll_wait(t->epfd, ev, 64, every_ms), cm = 0;

		if (n < 0 && errno != EINTR)
			return GFEC_E_SYSTEM;
		for (int i = 0; i < n; i++) {
			if (ev[i].data.ptr == t) {
				uint64_t v;

				if (read(t->efd, &v, sizeof(v)) < 0 && errno != EAGAIN)
					return GFEC_E_SYSTEM;
				send_done(t);
			} else if (ev[i].data.ptr == NULL) {
				cm = 1;
			} else {
				vconn_poll(ev[i].data.ptr);
			}
		}
		/* Last: CM events free connections, which later entries of ev may name. */
		if (cm)
			cm_event(t);
		expire(t);
	}
	return 0;
}

void rdma_verbs_kick(void *tp, int shard)
{
	struct vsrv *t = tp; /* one I/O thread: every shard is 0 */
	uint64_t one = 1;

	(void)shard;
	if (write(t->efd, &one, sizeof(one)) < 0) {
		/* EAGAIN: the counter is already non-zero, run() will wake */
	}
}

/* Whether GPU stripe memory can be registered with the listening device: a real try, on the first
 * codec's GPU (every codec of a server has the same profile, so the same gpu_device). */
static void probe_gpu(struct vsrv *t)
{
	const char *wanted = rdma_memory_wanted(t->srv);
	char why[160] = "";
	struct ibv_pd *pd = t->lid->verbs ? V.alloc_pd(t->lid->verbs) : NULL;
	struct region r = {0};
	char what[240];

	if (strcmp(wanted, "host") == 0) {
		rdma_set_memory(t->srv, "host memory registered with the NIC (memory=host)");
		if (pd)
			V.dealloc_pd(pd);
		return;
	}
	if (!pd)
		snprintf(why, sizeof(why), "no device context on the bound address");
	else if (rdma_region_gpu(pd, rdma_codec(t->srv, 0, 0), GPU_ALIGN, &r, why, sizeof(why)) ==
		 0)
		t->gpu_ok = 1;
	rdma_region_free(&r);
	if (pd)
		V.dealloc_pd(pd);
	if (t->gpu_ok)
		snprintf(
		    what, sizeof(what),
		    "GPU memory registered with the NIC through dma-buf (for codecs on a GPU)");
	else
		snprintf(what, sizeof(what),
			 "host memory registered with the NIC; GPU memory not possible here: %s",
			 why);
	rdma_set_memory(t->srv, what);
}

void rdma_verbs_destroy(void *tp)
{
	struct vsrv *t = tp;
	struct rdma_cm_event *ev;

	if (!t)
		return;
	/* Every connection: its id's context is the vconn (the core's refs keep slot memory). */
	while (t->ech && V.get_cm_event(t->ech, &ev) == 0) { /* the channel is non-blocking */
		struct rdma_cm_id *id = ev->id;
		int request = ev->event == RDMA_CM_EVENT_CONNECT_REQUEST;

		V.ack_cm_event(ev);
		if (request) {
			V.reject(id, NULL, 0);
			V.destroy_id(id);
		}
	}
	while (t->conns)
		vconn_close(t->conns, 0);
	if (t->lid)
		V.destroy_id(t->lid);
	if (t->ech)
		V.destroy_event_channel(t->ech);
	if (t->epfd >= 0)
		close(t->epfd);
	if (t->efd >= 0)
		close(t->efd);
	free(t);
}

int rdma_verbs_listen(gfec_rdma_server *srv, const char *host, const char *port, void **out)
{
	struct epoll_event ev = {.events = EPOLLIN};
	struct sockaddr_storage ss;
	struct vsrv *t;
	int ret = rdma_verbs_load();

	if (ret)
		return ret;
	ret = rdma_resolve(host, port, 1, &ss);
	if (ret)
		return ret;
	t = calloc(1, sizeof(*t));
	if (!t)
		return GFEC_E_NOMEM;
	t->srv = srv;
	t->epfd = t->efd = -1;
	ret = GFEC_E_SYSTEM;
	/* non-blocking before anything can fail: verbs_destroy drains it */
	t->ech = V.create_event_channel();
	if (!t->ech || set_nonblock(t->ech->fd))
		goto fail;
	t->epfd = epoll_create1(EPOLL_CLOEXEC);
	t->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (t->epfd < 0 || t->efd < 0 || V.create_id(t->ech, &t->lid, NULL, RDMA_PS_TCP))
		goto fail;
	/* Fails (EADDRNOTAVAIL, ENODEV) when no RDMA device serves the address. */
	if (V.bind_addr(t->lid, (struct sockaddr *)&ss) || V.listen(t->lid, 128))
		goto fail;
	t->port = ntohs(V.get_src_port(t->lid));
	ev.data.ptr = NULL; /* the CM channel */
	if (epoll_ctl(t->epfd, EPOLL_CTL_ADD, t->ech->fd, &ev))
		goto fail;
	ev.data.ptr = t; /* the eventfd */
	if (epoll_ctl(t->epfd, EPOLL_CTL_ADD, t->efd, &ev))
		goto fail;
	probe_gpu(t);
	*out = t;
	return 0;
fail : {
	int e = errno;

	rdma_verbs_destroy(t);
	errno = e;
}
	return ret;
}

int rdma_verbs_port(const void *tp)
{
	return ((const struct vsrv *)tp)->port;
}
