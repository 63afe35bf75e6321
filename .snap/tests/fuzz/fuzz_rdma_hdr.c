/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file fuzz_rdma_hdr.c
 * The ingest protocol's header decoder, gfec_rdma_hdr_unpack() (rdma/proto.c): the first thing
 * every transport does with bytes from the network. Input: 40 header bytes (zero-padded), then
 * optionally 8 bytes of the receiver's payload limit. Invariants: the answer is 0 or one of the
 * documented codes; a header that is accepted has the right magic, version and length, a known
 * type, (k,m) in range, a payload length that agrees with its type and is within the limit, and
 * packs back to the very bytes it came from.
 */
#include <string.h>

#include "fuzz.h"
#include "gfec_rdma.h"
#include "proto.h"

/* The largest payload of the server in rdma/'s defaults: (10,4) with 4 MiB chunks. */
#define DEFAULT_LIMIT (10ull * (4u << 20))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t raw[GFEC_RDMA_HDR_LEN] = {0}, again[GFEC_RDMA_HDR_LEN];
	uint64_t limit = DEFAULT_LIMIT, want;
	struct gfec_rdma_hdr h;
	int ret;

	memcpy(raw, data, size < sizeof(raw) ? size : sizeof(raw));
	if (size >= sizeof(raw) + 8) {
		limit = 0;
		for (int i = 0; i < 8; i++)
			limit |= (uint64_t)data[sizeof(raw) + i] << (8 * i);
	}
	ret = gfec_rdma_hdr_unpack(raw, limit, &h);
	FUZZ_CHECK(ret == 0 || ret == GFEC_RDMA_E_MAGIC || ret == GFEC_RDMA_E_VERSION ||
		   ret == GFEC_RDMA_E_TYPE || ret == GFEC_RDMA_E_LENGTH || ret == GFEC_RDMA_E_CODE);
	if (ret)
		return 0;
	FUZZ_CHECK(memcmp(raw, "GFEC", 4) == 0 && h.magic == GFEC_RDMA_MAGIC);
	FUZZ_CHECK(h.version == GFEC_RDMA_VERSION && h.hdr_len == GFEC_RDMA_HDR_LEN);
	FUZZ_CHECK(h.type >= GFEC_RDMA_HELLO && h.type <= GFEC_RDMA_ERROR && h.reserved == 0);
	FUZZ_CHECK(h.payload_len <= limit);
	if (h.type == GFEC_RDMA_ERROR) {
		FUZZ_CHECK(h.payload_len == 0);
	} else {
		FUZZ_CHECK(h.k >= 2 && h.m >= 1 && h.m <= h.k && h.k + h.m <= 256);
		FUZZ_CHECK(h.chunk_len > 0);
		want = h.type == GFEC_RDMA_STRIPE		     ? (uint64_t)h.k * h.chunk_len
		       : h.type == GFEC_RDMA_PARITY && h.status >= 0 ? (uint64_t)h.m * h.chunk_len
								     : 0;
		FUZZ_CHECK(h.payload_len == want);
	}
	gfec_rdma_hdr_pack(&h, again);
	FUZZ_CHECK(memcmp(raw, again, sizeof(raw)) == 0);
	return 0;
}
