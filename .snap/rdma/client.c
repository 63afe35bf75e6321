/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file client.c
 * A blocking ingest client over any transport: what gfec-rdma-bench and the tests drive, and
 * the reference for what a storage client has to send (proto.h).
 */
#include <stdlib.h>
#include <sys/uio.h>

#include "gfec/gfec_limits.h"
#include "internal.h"

struct gfec_rdma_client {
	const struct gfec_rdma_transport_ops *ops;
	void *cp;
	int k, m;
	size_t len;
};

/* Reads one header; an ERROR from the server becomes its status. */
static int recv_hdr(gfec_rdma_client *c, uint64_t max_payload, struct gfec_rdma_hdr *h)
{
	uint8_t raw[GFEC_RDMA_HDR_LEN];
	struct iovec iov = {raw, sizeof(raw)};
	int ret = c->ops->recv(c->cp, &iov, 1);

	if (!ret)
		ret = gfec_rdma_hdr_unpack(raw, max_payload, h);
	if (!ret && h->type == GFEC_RDMA_ERROR)
		ret = h->status < 0 ? h->status : GFEC_RDMA_E_TYPE;
	return ret;
}

int gfec_rdma_client_connect(const char *transport, const char *addr, int k, int m,
			     size_t chunk_len, gfec_rdma_client **out, unsigned *credits)
{
	char host[256], port[32];
	struct gfec_rdma_hdr h;
	uint8_t raw[GFEC_RDMA_HDR_LEN];
	struct iovec iov = {raw, sizeof(raw)};
	gfec_rdma_client *c;
	int ret;

	*out = NULL;
	if (k < 2 || m < 1 || m > k || k + m > GFEC_MAX_CHUNKS || !chunk_len ||
	    chunk_len > UINT32_MAX)
		return GFEC_E_INVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return GFEC_E_NOMEM;
	c->k = k;
	c->m = m;
	c->len = chunk_len;
	c->ops = rdma_transport_find(transport);
	ret = c->ops ? rdma_split_addr(addr, host, sizeof(host), port, sizeof(port))
		     : GFEC_RDMA_E_TRANSPORT;
	if (!ret)
		ret = c->ops->connect(host, port, &c->cp);
	if (ret)
		goto fail;
	gfec_rdma_hdr_init(&h, GFEC_RDMA_HELLO);
	h.k = (uint16_t)k;
	h.m = (uint16_t)m;
	h.chunk_len = (uint32_t)chunk_len;
	gfec_rdma_hdr_pack(&h, raw);
	ret = c->ops->send(c->cp, &iov, 1);
	if (!ret)
		ret = recv_hdr(c, 0, &h);
	if (!ret && (h.type != GFEC_RDMA_HELLO_ACK || h.k != k || h.m != m ||
		     h.chunk_len != chunk_len || !h.credits))
		ret = GFEC_RDMA_E_TYPE;
	if (ret)
		goto fail;
	*credits = h.credits;
	*out = c;
	return 0;
fail:
	gfec_rdma_client_close(c);
	return ret;
}

int gfec_rdma_client_send(gfec_rdma_client *c, uint64_t id, const uint8_t *const *data)
{
	struct iovec iov[1 + GFEC_MAX_CHUNKS];
	uint8_t raw[GFEC_RDMA_HDR_LEN];
	struct gfec_rdma_hdr h;

	gfec_rdma_hdr_init(&h, GFEC_RDMA_STRIPE);
	h.k = (uint16_t)c->k;
	h.m = (uint16_t)c->m;
	h.chunk_len = (uint32_t)c->len;
	h.payload_len = (uint32_t)((size_t)c->k * c->len);
	h.stripe_id = id;
	gfec_rdma_hdr_pack(&h, raw);
	iov[0].iov_base = raw;
	iov[0].iov_len = sizeof(raw);
	for (int j = 0; j < c->k; j++) {
		iov[1 + j].iov_base = (void *)data[j];
		iov[1 + j].iov_len = c->len;
	}
	return c->ops->send(c->cp, iov, 1 + c->k);
}

int gfec_rdma_client_recv(gfec_rdma_client *c, uint64_t *id, uint8_t *const *parity, int *status)
{
	struct iovec iov[GFEC_MAX_CHUNKS];
	struct gfec_rdma_hdr h;
	int ret = recv_hdr(c, (uint64_t)c->m * c->len, &h);

	if (ret)
		return ret;
	if (h.type != GFEC_RDMA_PARITY || h.k != c->k || h.m != c->m || h.chunk_len != c->len)
		return GFEC_RDMA_E_TYPE;
	*id = h.stripe_id;
	*status = h.status;
	if (h.status < 0)
		return 0;
	for (int j = 0; j < c->m; j++) {
		iov[j].iov_base = parity[j];
		iov[j].iov_len = c->len;
	}
	return c->ops->recv(c->cp, iov, c->m);
}

void gfec_rdma_client_close(gfec_rdma_client *c)
{
	if (!c)
		return;
	if (c->cp)
		c->ops->close(c->cp);
	free(c);
}
