/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file verbs.c
 * The verbs transport's ground floor (verbs.h has the protocol mapping): rdma-core, loaded with
 * dlopen on first use so gfec and its tools run on hosts without it; stripe regions registered
 * with the NIC (GPU memory on the codec's device, which gfec allocates and exports as dma-buf
 * (gfec_codec_gpu_dmabuf), or host memory);
 * posting; gfec_rdma_probe(); and the ops table joining verbs_server.c and verbs_client.c.
 */
#include <dlfcn.h>
#include <netdb.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "verbs.h"

struct rdma_verbs_fns rdma_verbs_fns;

static const struct sym {
	int lib; /* 0 libibverbs, 1 librdmacm */
	const char *name;
	size_t off;
	int optional;
} syms[] = {
#define S(lib, fn, field, opt)                                                                     \
	{                                                                                          \
		lib, #fn, offsetof(struct rdma_verbs_fns, field), opt                              \
	}
    S(0, ibv_get_device_list, get_device_list, 0),
    S(0, ibv_free_device_list, free_device_list, 0),
    S(0, ibv_get_device_name, get_device_name, 0),
    S(0, ibv_open_device, open_device, 0),
    S(0, ibv_close_device, close_device, 0),
    S(0, ibv_alloc_pd, alloc_pd, 0),
    S(0, ibv_dealloc_pd, dealloc_pd, 0),
    S(0, ibv_reg_mr, reg_mr, 0),
    S(0, ibv_reg_dmabuf_mr, reg_dmabuf_mr, 1),
    S(0, ibv_dereg_mr, dereg_mr, 0),
    S(0, ibv_create_comp_channel, create_comp_channel, 0),
    S(0, ibv_destroy_comp_channel, destroy_comp_channel, 0),
    S(0, ibv_create_cq, create_cq, 0),
    S(0, ibv_destroy_cq, destroy_cq, 0),
    S(0, ibv_get_cq_event, get_cq_event, 0),
    S(0, ibv_ack_cq_events, ack_cq_events, 0),
    S(0, ibv_wc_status_str, wc_status_str, 0),
    S(1, rdma_create_event_channel, create_event_channel, 0),
    S(1, rdma_destroy_event_channel, destroy_event_channel, 0),
    S(1, rdma_create_id, create_id, 0),
    S(1, rdma_destroy_id, destroy_id, 0),
    S(1, rdma_bind_addr, bind_addr, 0),
    S(1, rdma_listen, listen, 0),
    S(1, rdma_resolve_addr, resolve_addr, 0),
    S(1, rdma_resolve_route, resolve_route, 0),
    S(1, rdma_create_qp, create_qp, 0),
    S(1, rdma_destroy_qp, destroy_qp, 0),
    S(1, rdma_connect, connect, 0),
    S(1, rdma_accept, accept, 0),
    S(1, rdma_reject, reject, 0),
    S(1, rdma_disconnect, disconnect, 0),
    S(1, rdma_get_cm_event, get_cm_event, 0),
    S(1, rdma_ack_cm_event, ack_cm_event, 0),
    S(1, rdma_get_src_port, get_src_port, 0),
    S(1, rdma_event_str, event_str, 0),
#undef S
};

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[160]; /* empty when rdma-core loaded */

static void load(void)
{
	static const char *const libs[] = {"libibverbs.so.1", "librdmacm.so.1"};
	void *h[2];

	for (int i = 0; i < 2; i++) {
		h[i] = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL);
		if (!h[i]) {
			snprintf(load_error, sizeof(load_error), "rdma-core is not installed (%s)",
				 libs[i]);
			return;
		}
	}
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		void *f = dlsym(h[syms[i].lib], syms[i].name);

		if (!f && !syms[i].optional) {
			snprintf(load_error, sizeof(load_error), "rdma-core lacks %s",
				 syms[i].name);
			return;
		}
		memcpy((char *)&V + syms[i].off, &f, sizeof(f));
	}
	/* The handles stay open: the function pointers live as long as the process. */
}

int rdma_verbs_load(void)
{
	pthread_once(&load_once, load);
	if (load_error[0]) {
		rdma_log(GFEC_LOG_ERROR, "gfec-rdma: verbs: %s", load_error);
		return GFEC_RDMA_E_TRANSPORT;
	}
	return 0;
}

int rdma_region_gpu(struct ibv_pd *pd, const gfec_codec *codec, size_t len, struct region *r,
		    char *why, size_t whylen)
{
	void *dptr;
	int fd;

	len = (len + GPU_ALIGN - 1) / GPU_ALIGN * GPU_ALIGN;
	if (gfec_codec_gpu_dmabuf(codec, len, &dptr, &fd, why, whylen))
		return -1;
	r->mr = V.reg_dmabuf_mr ? V.reg_dmabuf_mr(pd, 0, len, (uintptr_t)dptr, fd,
						  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE)
				: NULL;
	close(fd); /* the MR holds its own reference */
	if (!r->mr) {
		snprintf(why, whylen, "%s",
			 V.reg_dmabuf_mr
			     ? "the NIC cannot register dma-buf memory (ibv_reg_dmabuf_mr failed)"
			     : "rdma-core has no ibv_reg_dmabuf_mr");
		gfec_codec_gpu_dmabuf_free(codec, dptr);
		return -1;
	}
	r->base = dptr;
	r->len = len;
	r->on_gpu = 1;
	r->codec = codec;
	return 0;
}

int rdma_region_host(struct ibv_pd *pd, size_t len, int access, struct region *r)
{
	r->base = gfec_alloc(len);
	r->len = len;
	r->on_gpu = 0;
	r->mr = r->base ? V.reg_mr(pd, r->base, len, access) : NULL;
	if (!r->mr) {
		gfec_free(r->base);
		r->base = NULL;
		return GFEC_E_NOMEM;
	}
	return 0;
}

void rdma_region_free(struct region *r)
{
	if (r->mr)
		V.dereg_mr(r->mr);
	if (r->on_gpu)
		gfec_codec_gpu_dmabuf_free(r->codec, r->base);
	else
		gfec_free(r->base);
	memset(r, 0, sizeof(*r));
}

int rdma_post_recv(struct ibv_qp *qp, struct ibv_mr *mr, uint8_t *buf, uint64_t wr_id)
{
	struct ibv_sge sge = {(uintptr_t)buf, MSG_LEN, mr->lkey};
	struct ibv_recv_wr wr = {.wr_id = wr_id, .sg_list = &sge, .num_sge = 1}, *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

int rdma_post_write_send(struct ibv_qp *qp, const void *src, uint32_t lkey, size_t len,
			 uint64_t raddr, uint32_t rkey, const uint8_t *msg, uint32_t msg_len,
			 uint32_t msg_lkey, uint64_t wr_id)
{
	struct ibv_sge wsge = {(uintptr_t)src, (uint32_t)len, lkey};
	struct ibv_sge ssge = {(uintptr_t)msg, msg_len, msg_lkey};
	struct ibv_send_wr send = {.wr_id = wr_id,
				   .sg_list = &ssge,
				   .num_sge = 1,
				   .opcode = IBV_WR_SEND,
				   .send_flags = IBV_SEND_SIGNALED};
	struct ibv_send_wr write = {
	    .sg_list = &wsge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE, .next = &send};
	struct ibv_send_wr *bad;

	write.wr.rdma.remote_addr = raddr;
	write.wr.rdma.rkey = rkey;
	return ibv_post_send(qp, len ? &write : &send, &bad);
}

int rdma_resolve(const char *host, const char *port, int passive, struct sockaddr_storage *ss)
{
	struct addrinfo hints = {.ai_family = AF_UNSPEC,
				 .ai_socktype = SOCK_STREAM,
				 .ai_flags = passive ? AI_PASSIVE : 0};
	struct addrinfo *ai;

	if (getaddrinfo(host, port, &hints, &ai) != 0)
		return GFEC_RDMA_E_ADDRESS;
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
	return 0;
}

int gfec_rdma_probe(char *out, size_t outlen)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct ibv_pd *pd = NULL;
	struct region r = {0};
	char why[160] = "no RDMA device to register it with", gpu[160];
	int n = 0, ok = 0, ret = rdma_verbs_load();
	size_t len;

	if (ret) {
		snprintf(out, outlen, "verbs transport: %s", load_error);
		return ret;
	}
	list = V.get_device_list(&n);
	len =
	    (size_t)snprintf(out, outlen, "verbs transport: rdma-core loaded; RDMA devices: %d", n);
	for (int i = 0; list && i < n && len < outlen; i++)
		len += (size_t)snprintf(out + len, outlen - len, "%s%s", i ? ", " : " (",
					V.get_device_name(list[i]));
	if (n && len < outlen)
		len += (size_t)snprintf(out + len, outlen - len, ")");
	/* GPU memory: a real registration on the first device */
	ctx = n ? V.open_device(list[0]) : NULL;
	pd = ctx ? V.alloc_pd(ctx) : NULL;
	if (n && !pd)
		snprintf(why, sizeof(why), "cannot open the first RDMA device");
	/* No codec here: GPU 0 */
	if (pd && rdma_region_gpu(pd, NULL, GPU_ALIGN, &r, why, sizeof(why)) == 0)
		ok = 1;
	if (!pd) { /* still say whether the GPU side could do it */
		void *dptr;
		int fd;

		if (gfec_codec_gpu_dmabuf(NULL, GPU_ALIGN, &dptr, &fd, gpu, sizeof(gpu)) == 0) {
			close(fd);
			gfec_codec_gpu_dmabuf_free(NULL, dptr);
			snprintf(gpu, sizeof(gpu), "supported by GPU 0");
		}
		if (len < outlen)
			len += (size_t)snprintf(out + len, outlen - len, "; GPU dma-buf export: %s",
						gpu);
	}
	if (len < outlen)
		snprintf(out + len, outlen - len, "; GPU memory registration: %s%s",
			 ok ? "available (dma-buf)" : "not available: ", ok ? "" : why);
	rdma_region_free(&r);
	if (pd)
		V.dealloc_pd(pd);
	if (ctx)
		V.close_device(ctx);
	if (list)
		V.free_device_list(list);
	return 0;
}

const struct gfec_rdma_transport_ops gfec_rdma_verbs_ops = {
    .name = "verbs",
    .listen = rdma_verbs_listen,
    .port = rdma_verbs_port,
    .run = rdma_verbs_run,
    .kick = rdma_verbs_kick,
    .destroy = rdma_verbs_destroy,
    .connect = rdma_verbs_connect,
    .send = rdma_verbs_send,
    .recv = rdma_verbs_recv,
    .close = rdma_verbs_close,
};
