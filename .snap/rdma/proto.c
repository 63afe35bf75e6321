/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file proto.c
 * Packing and checking of the ingest protocol's header (proto.h): the one place where bytes
 * from the network become numbers, so every length is validated here before anyone uses it.
 */
#include <string.h>

#include "gfec/gfec_limits.h"
#include "gfec_rdma.h"
#include "proto.h"

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)v);
	put16(p + 2, (uint16_t)(v >> 16));
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)get16(p) | (uint32_t)get16(p + 2) << 16;
}

void gfec_rdma_hdr_init(struct gfec_rdma_hdr *h, enum gfec_rdma_msg type)
{
	memset(h, 0, sizeof(*h));
	h->magic = GFEC_RDMA_MAGIC;
	h->version = GFEC_RDMA_VERSION;
	h->hdr_len = GFEC_RDMA_HDR_LEN;
	h->type = (uint16_t)type;
}

void gfec_rdma_hdr_pack(const struct gfec_rdma_hdr *h, uint8_t out[GFEC_RDMA_HDR_LEN])
{
	put32(out, h->magic);
	put16(out + 4, h->version);
	put16(out + 6, h->hdr_len);
	put16(out + 8, h->type);
	put16(out + 10, h->k);
	put16(out + 12, h->m);
	put16(out + 14, h->reserved);
	put32(out + 16, (uint32_t)h->status);
	put32(out + 20, h->chunk_len);
	put32(out + 24, h->payload_len);
	put32(out + 28, h->credits);
	put32(out + 32, (uint32_t)h->stripe_id);
	put32(out + 36, (uint32_t)(h->stripe_id >> 32));
}

int gfec_rdma_hdr_unpack(const uint8_t in[GFEC_RDMA_HDR_LEN], uint64_t max_payload,
			 struct gfec_rdma_hdr *h)
{
	uint64_t want;

	h->magic = get32(in);
	h->version = get16(in + 4);
	h->hdr_len = get16(in + 6);
	h->type = get16(in + 8);
	h->k = get16(in + 10);
	h->m = get16(in + 12);
	h->reserved = get16(in + 14);
	h->status = (int32_t)get32(in + 16);
	h->chunk_len = get32(in + 20);
	h->payload_len = get32(in + 24);
	h->credits = get32(in + 28);
	h->stripe_id = (uint64_t)get32(in + 32) | (uint64_t)get32(in + 36) << 32;

	if (h->magic != GFEC_RDMA_MAGIC)
		return GFEC_RDMA_E_MAGIC;
	if (h->version != GFEC_RDMA_VERSION || h->hdr_len != GFEC_RDMA_HDR_LEN)
		return GFEC_RDMA_E_VERSION;
	if (h->type < GFEC_RDMA_HELLO || h->type > GFEC_RDMA_ERROR || h->reserved)
		return GFEC_RDMA_E_TYPE;
	if (h->payload_len > max_payload)
		return GFEC_RDMA_E_LENGTH;
	if (h->type == GFEC_RDMA_ERROR)
		return h->payload_len ? GFEC_RDMA_E_LENGTH : 0;
	if (h->k < 2 || h->m < 1 || h->m > h->k || h->k + h->m > GFEC_MAX_CHUNKS)
		return GFEC_RDMA_E_CODE;
	if (h->chunk_len == 0)
		return GFEC_RDMA_E_LENGTH;
	/* 64-bit products: k * chunk_len cannot wrap, whatever the peer sent. */
	switch (h->type) {
	case GFEC_RDMA_STRIPE:
		want = (uint64_t)h->k * h->chunk_len;
		break;
	case GFEC_RDMA_PARITY:
		want = h->status < 0 ? 0 : (uint64_t)h->m * h->chunk_len;
		break;
	default:
		want = 0;
		break;
	}
	return h->payload_len == want ? 0 : GFEC_RDMA_E_LENGTH;
}
