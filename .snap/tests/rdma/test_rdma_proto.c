/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_rdma_proto.c
 * The ingest header's wire format and checks (rdma/proto.c), without a network: every field
 * survives a round trip in little-endian order, and every rule of proto.h rejects what it must
 * with its own code, since the server's safety rests on these checks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "gfec_rdma.h"
#include "proto.h"

static struct gfec_rdma_hdr stripe(void)
{
	struct gfec_rdma_hdr h;

	gfec_rdma_hdr_init(&h, GFEC_RDMA_STRIPE);
	h.k = 10;
	h.m = 4;
	h.chunk_len = 4096;
	h.payload_len = 10 * 4096;
	h.stripe_id = 0x0123456789abcdefull;
	return h;
}

static int check(const struct gfec_rdma_hdr *h, uint64_t max)
{
	uint8_t raw[GFEC_RDMA_HDR_LEN];
	struct gfec_rdma_hdr out;

	gfec_rdma_hdr_pack(h, raw);
	return gfec_rdma_hdr_unpack(raw, max, &out);
}

static void test_roundtrip(void **state)
{
	struct gfec_rdma_hdr h = stripe(), out;
	uint8_t raw[GFEC_RDMA_HDR_LEN];

	(void)state;
	h.status = -209;
	h.credits = 77;
	h.type = GFEC_RDMA_PARITY;
	h.payload_len = 0; /* a failed encode carries no parity */
	gfec_rdma_hdr_pack(&h, raw);
	/* "GFEC" on the wire, then version 1 and header length 40, little-endian. */
	assert_memory_equal(raw, "GFEC\x01\x00\x28\x00", 8);
	assert_int_equal(raw[32], 0xef);
	assert_int_equal(raw[39], 0x01);
	assert_int_equal(gfec_rdma_hdr_unpack(raw, 1 << 20, &out), 0);
	assert_int_equal(out.magic, h.magic);
	assert_int_equal(out.version, h.version);
	assert_int_equal(out.hdr_len, h.hdr_len);
	assert_int_equal(out.type, h.type);
	assert_int_equal(out.k, h.k);
	assert_int_equal(out.m, h.m);
	assert_int_equal(out.reserved, h.reserved);
	assert_int_equal(out.status, h.status);
	assert_int_equal(out.chunk_len, h.chunk_len);
	assert_int_equal(out.payload_len, h.payload_len);
	assert_int_equal(out.credits, h.credits);
	assert_int_equal(out.stripe_id, h.stripe_id);
}

static void test_rejects(void **state)
{
	struct gfec_rdma_hdr h;
	uint8_t raw[GFEC_RDMA_HDR_LEN];

	(void)state;
	h = stripe();
	assert_int_equal(check(&h, 1 << 20), 0);
	h.magic ^= 1;
	assert_int_equal(check(&h, 1 << 20), GFEC_RDMA_E_MAGIC);
	h = stripe();
	h.version = 2;
	assert_int_equal(check(&h, 1 << 20), GFEC_RDMA_E_VERSION);
	h = stripe();
	h.hdr_len = 48;
	assert_int_equal(check(&h, 1 << 20), GFEC_RDMA_E_VERSION);
	h = stripe();
	h.type = 0;
	assert_int_equal(check(&h, 1 << 20), GFEC_RDMA_E_TYPE);
	h.type = 6;
	assert_int_equal(check(&h, 1 << 20), GFEC_RDMA_E_TYPE);
	h = stripe();
	h.reserved = 1;
	assert_int_equal(check(&h, 1 << 20), GFEC_RDMA_E_TYPE);
	/* Over the receiver's limit, though self-consistent. */
	h = stripe();
	assert_int_equal(check(&h, 10 * 4096 - 1), GFEC_RDMA_E_LENGTH);
	/* payload_len disagrees with k * chunk_len, either way. */
	h.payload_len++;
	assert_int_equal(check(&h, 1 << 20), GFEC_RDMA_E_LENGTH);
	h.payload_len -= 2;
	assert_int_equal(check(&h, 1 << 20), GFEC_RDMA_E_LENGTH);
	/* k * chunk_len wraps 32 bits: 64-bit arithmetic must not be fooled. */
	h = stripe();
	h.k = 16;
	h.m = 1;
	h.chunk_len = 0x10000000u;
	h.payload_len = 0;
	assert_int_equal(check(&h, UINT32_MAX), GFEC_RDMA_E_LENGTH);
	h = stripe();
	h.chunk_len = 0;
	h.payload_len = 0;
	assert_int_equal(check(&h, 1 << 20), GFEC_RDMA_E_LENGTH);
	/* (k,m) ranges */
	h = stripe();
	h.k = 1;
	assert_int_equal(check(&h, 1 << 20), GFEC_RDMA_E_CODE);
	h = stripe();
	h.m = 0;
	assert_int_equal(check(&h, 1 << 20), GFEC_RDMA_E_CODE);
	h = stripe();
	h.m = 11;
	assert_int_equal(check(&h, 1 << 20), GFEC_RDMA_E_CODE);
	h = stripe();
	h.k = 200;
	h.m = 100;
	assert_int_equal(check(&h, UINT32_MAX), GFEC_RDMA_E_CODE);
	/* HELLO, ERROR carry no payload; a failed PARITY none either. */
	gfec_rdma_hdr_init(&h, GFEC_RDMA_HELLO);
	h.k = 4;
	h.m = 2;
	h.chunk_len = 1024;
	assert_int_equal(check(&h, 1 << 20), 0);
	h.payload_len = 1;
	assert_int_equal(check(&h, 1 << 20), GFEC_RDMA_E_LENGTH);
	gfec_rdma_hdr_init(&h, GFEC_RDMA_ERROR);
	h.status = GFEC_RDMA_E_CODE;
	assert_int_equal(check(&h, 1 << 20), 0);
	h.payload_len = 8;
	assert_int_equal(check(&h, 1 << 20), GFEC_RDMA_E_LENGTH);
	h = stripe();
	h.type = GFEC_RDMA_PARITY;
	h.status = GFEC_E_NOMEM;
	h.payload_len = 4 * 4096;
	assert_int_equal(check(&h, 1 << 20), GFEC_RDMA_E_LENGTH);
	h.payload_len = 0;
	assert_int_equal(check(&h, 1 << 20), 0);
	/* Garbage of every byte value never passes. */
	for (int v = 0; v < 256; v++) {
		memset(raw, v, sizeof(raw));
		assert_int_not_equal(gfec_rdma_hdr_unpack(raw, UINT32_MAX, &h), 0);
	}
}

static void test_strerror(void **state)
{
	(void)state;
	for (int c = GFEC_RDMA_E_TIMEOUT; c <= GFEC_RDMA_E_MAGIC; c++)
		assert_string_not_equal(gfec_rdma_strerror(c), gfec_strerror(c));
	assert_string_equal(gfec_rdma_strerror(GFEC_E_NOMEM), gfec_strerror(GFEC_E_NOMEM));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_roundtrip),
	    cmocka_unit_test(test_rejects),
	    cmocka_unit_test(test_strerror),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
