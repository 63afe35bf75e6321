/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file nc_block.c
 * The network-coding block header (gfec_nc.h, "Block format"): one pack/unpack pair that checks
 * every field the same way, so that nothing a peer sends reaches a decoder unchecked. The unpack
 * is a pure function of its bytes (the fuzz target's contract).
 */
#include <string.h>

#include "gfec/gfec_nc.h"

static const uint8_t magic[4] = { 'G', 'F', 'N', 'C' };

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

size_t gfec_nc_header_bytes(int kind, uint32_t n)
{
	if (n < 1 || n > GFEC_NC_MAX_N)
		return 0;
	if (kind == GFEC_NC_KIND_SEED)
		return GFEC_NC_HEADER_FIXED + 4;
	if (kind == GFEC_NC_KIND_COEF)
		return GFEC_NC_HEADER_FIXED + (size_t)n;
	return 0;
}

/* The checks pack and unpack share: 0 when the fields form a valid header. */
static int fields_ok(const struct gfec_nc_block *b)
{
	if (b->family != GFEC_NC_RLC && b->family != GFEC_NC_LT)
		return 0;
	if (!gfec_nc_header_bytes(b->kind, b->n))
		return 0;
	if (b->block_size < 1 || b->block_size > GFEC_NC_MAX_BLOCK)
		return 0;
	if (b->flags & ~(GFEC_NC_SYSTEMATIC | GFEC_NC_ZERO_COEFS))
		return 0;
	if (b->kind == GFEC_NC_KIND_COEF && b->flags)
		return 0;
	if ((b->flags & GFEC_NC_SYSTEMATIC) && b->seed >= b->n)
		return 0;
	return 1;
}

int gfec_nc_block_pack(const struct gfec_nc_block *b, uint8_t *buf, size_t len)
{
	size_t hdr;

	if (!b || !buf || !fields_ok(b) || (b->kind == GFEC_NC_KIND_COEF && !b->coefs))
		return GFEC_E_INVAL;
	hdr = gfec_nc_header_bytes(b->kind, b->n);
	if (len < hdr)
		return GFEC_E_INVAL;
	memcpy(buf, magic, 4);
	buf[4] = GFEC_NC_VERSION;
	buf[5] = b->family;
	buf[6] = b->kind;
	buf[7] = b->flags;
	put32(buf + 8, b->n);
	put32(buf + 12, b->block_size);
	put64(buf + 16, b->segment);
	if (b->kind == GFEC_NC_KIND_SEED)
		put32(buf + GFEC_NC_HEADER_FIXED, b->seed);
	else
		memcpy(buf + GFEC_NC_HEADER_FIXED, b->coefs, b->n);
	return (int)hdr;
}

int gfec_nc_block_unpack(const uint8_t *buf, size_t len, struct gfec_nc_block *out)
{
	struct gfec_nc_block b = { 0 };
	size_t hdr;

	if (!buf || !out || len < GFEC_NC_HEADER_FIXED)
		return GFEC_E_FORMAT;
	if (memcmp(buf, magic, 4) || buf[4] != GFEC_NC_VERSION)
		return GFEC_E_FORMAT;
	b.family = buf[5];
	b.kind = buf[6];
	b.flags = buf[7];
	b.n = get32(buf + 8);
	b.block_size = get32(buf + 12);
	b.segment = get64(buf + 16);
	hdr = gfec_nc_header_bytes(b.kind, b.n);
	/* The length checks come before the seed is read: it lies beyond the fixed part. */
	if (!hdr || len < hdr)
		return GFEC_E_FORMAT;
	if (b.kind == GFEC_NC_KIND_SEED)
		b.seed = get32(buf + GFEC_NC_HEADER_FIXED);
	else
		b.coefs = buf + GFEC_NC_HEADER_FIXED;
	if (!fields_ok(&b) || len - hdr < b.block_size)
		return GFEC_E_FORMAT;
	b.payload = buf + hdr;
	b.bytes = hdr + b.block_size;
	*out = b;
	return 0;
}
