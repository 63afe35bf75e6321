/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file verbs.h
 * What the verbs transport's files share: verbs.c (rdma-core and the CUDA driver loaded at run
 * time, registered regions, posting, the probe, the ops table), verbs_server.c and
 * verbs_client.c.
 *
 * The verbs transport: librdmacm connection setup, one RC queue pair per connection, and the
 * same protocol (proto.h) as TCP with the payloads moved by RDMA WRITE. rdma-core is loaded
 * with dlopen on first use, so gfec and its tools run on hosts without it.
 *
 * Every control message is one SEND of 64 bytes: the 40-byte protocol header, then 24 bytes
 * that only this transport uses (little-endian):
 *   HELLO_ACK  u64 addr, u32 rkey, u32 stride: the connection's stripe slots on the server,
 *              slot i at addr + i * stride (k data chunks, then m parity chunks)
 *   STRIPE     u32 slot, u32 rkey, u64 addr: the client has RDMA-written the k chunks into that
 *              slot; the server RDMA-writes the m parity chunks to (addr, rkey)
 *   PARITY     u32 slot: the parity is in the client's buffer; the slot is free again
 *   ERROR      as on TCP; the server then disconnects
 * RC delivers a WRITE before the SEND posted after it, so a STRIPE (PARITY) message means its
 * payload has landed. Credits are the slots: a client never has more STRIPEs outstanding than
 * the HELLO_ACK granted, and each side keeps a receive posted for every message the other may
 * send, so no peer can overrun the other (rnr_retry covers a late repost).
 *
 * Stripe memory on the server: GPU memory registered with the NIC through dma-buf when the
 * codec of the connection runs on a GPU and driver, NIC and rdma-core all allow it; otherwise
 * host memory registered with the NIC, from which the GPU codec stages through its pinned
 * buffers. gfec_rdma_server_memory() says which and why.
 */
#ifndef GFEC_RDMA_VERBS_H
#define GFEC_RDMA_VERBS_H

#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "internal.h"

#define MSG_LEN 64
#define EXT_OFF GFEC_RDMA_HDR_LEN
#define CM_TIMEOUT_MS 5000
#define CLIENT_WAIT_MS 30000
#define GPU_ALIGN (2u << 20)

/* rdma-core's entry points, filled by rdma_verbs_load(); the code calls them as V.name. */
struct rdma_verbs_fns {
	__typeof__(&ibv_get_device_list) get_device_list;
	__typeof__(&ibv_free_device_list) free_device_list;
	__typeof__(&ibv_get_device_name) get_device_name;
	__typeof__(&ibv_open_device) open_device;
	__typeof__(&ibv_close_device) close_device;
	__typeof__(&ibv_alloc_pd) alloc_pd;
	__typeof__(&ibv_dealloc_pd) dealloc_pd;
	__typeof__(&ibv_reg_mr) reg_mr;
	__typeof__(&ibv_reg_dmabuf_mr) reg_dmabuf_mr; /* optional: rdma-core >= 34 */
	__typeof__(&ibv_dereg_mr) dereg_mr;
	__typeof__(&ibv_create_comp_channel) create_comp_channel;
	__typeof__(&ibv_destroy_comp_channel) destroy_comp_channel;
	__typeof__(&ibv_create_cq) create_cq;
	__typeof__(&ibv_destroy_cq) destroy_cq;
	__typeof__(&ibv_get_cq_event) get_cq_event;
	__typeof__(&ibv_ack_cq_events) ack_cq_events;
	__typeof__(&ibv_wc_status_str) wc_status_str;
	__typeof__(&rdma_create_event_channel) create_event_channel;
	__typeof__(&rdma_destroy_event_channel) destroy_event_channel;
	__typeof__(&rdma_create_id) create_id;
	__typeof__(&rdma_destroy_id) destroy_id;
	__typeof__(&rdma_bind_addr) bind_addr;
	__typeof__(&rdma_listen) listen;
	__typeof__(&rdma_resolve_addr) resolve_addr;
	__typeof__(&rdma_resolve_route) resolve_route;
	__typeof__(&rdma_create_qp) create_qp;
	__typeof__(&rdma_destroy_qp) destroy_qp;
	__typeof__(&rdma_connect) connect;
	__typeof__(&rdma_accept) accept;
	__typeof__(&rdma_reject) reject;
	__typeof__(&rdma_disconnect) disconnect;
	__typeof__(&rdma_get_cm_event) get_cm_event;
	__typeof__(&rdma_ack_cm_event) ack_cm_event;
	__typeof__(&rdma_get_src_port) get_src_port;
	__typeof__(&rdma_event_str) event_str;
};
extern struct rdma_verbs_fns rdma_verbs_fns;
#define V rdma_verbs_fns

/** Loads rdma-core once; GFEC_RDMA_E_TRANSPORT (logged) when it is missing. */
int rdma_verbs_load(void);

/* A region for stripe slots: GPU memory shared through dma-buf, or host memory. */
struct region {
	uint8_t *base;
	size_t len;
	int on_gpu;
	const gfec_codec *codec; /* on_gpu: the codec whose device holds it */
	struct ibv_mr *mr;
};

/**
 * GPU memory on @p codec's device (NULL: GPU 0), from gfec (gfec_codec_gpu_dmabuf), registered
 * through dma-buf; 0, or -1 with @p why saying why not.
 */
int rdma_region_gpu(struct ibv_pd *pd, const gfec_codec *codec, size_t len, struct region *r,
		    char *why, size_t whylen);
int rdma_region_host(struct ibv_pd *pd, size_t len, int access, struct region *r);
void rdma_region_free(struct region *r);

static inline void put_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void put_u64(uint8_t *p, uint64_t v)
{
	put_u32(p, (uint32_t)v);
	put_u32(p + 4, (uint32_t)(v >> 32));
}

static inline uint32_t get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t get_u64(const uint8_t *p)
{
	return get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

int rdma_post_recv(struct ibv_qp *qp, struct ibv_mr *mr, uint8_t *buf, uint64_t wr_id);
/** A WRITE of @p len bytes (skipped when 0), then a signalled SEND of @p msg_len bytes. */
int rdma_post_write_send(struct ibv_qp *qp, const void *src, uint32_t lkey, size_t len,
			 uint64_t raddr, uint32_t rkey, const uint8_t *msg, uint32_t msg_len,
			 uint32_t msg_lkey, uint64_t wr_id);
/** Resolves HOST:PORT (numeric or by name) for rdma_bind_addr / rdma_resolve_addr. */
int rdma_resolve(const char *host, const char *port, int passive, struct sockaddr_storage *ss);

/* verbs_server.c */
int rdma_verbs_listen(gfec_rdma_server *srv, const char *host, const char *port, void **out);
int rdma_verbs_port(const void *tp);
int rdma_verbs_run(void *tp);
void rdma_verbs_kick(void *tp, int shard);
void rdma_verbs_destroy(void *tp);

/* verbs_client.c */
int rdma_verbs_connect(const char *host, const char *port, void **out);
int rdma_verbs_send(void *cp, const struct iovec *iov, int iovcnt);
int rdma_verbs_recv(void *cp, const struct iovec *iov, int iovcnt);
void rdma_verbs_close(void *cp);

#endif
