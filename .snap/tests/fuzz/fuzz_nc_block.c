/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file fuzz_nc_block.c
 * The network-coding block header reader, gfec_nc_block_unpack() (plugin/nc_block.c): the first
 * thing a decoder or relay does with bytes from the network. Invariants: the answer is 0 or
 * GFEC_E_FORMAT; an accepted block has every field in range (family, kind, flags only on
 * seed-carrying blocks, a systematic index below n, n and B in range), lies wholly inside the
 * input (header + B bytes), points into it, packs back to the very header bytes it came from, and
 * is refused once truncated by one byte.
 */
#include "fuzz.h"
#include "gfec/gfec_nc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gfec_nc_block b;
	size_t hdr;
	uint8_t *again;
	int ret = gfec_nc_block_unpack(data, size, &b);

	FUZZ_CHECK(ret == 0 || ret == GFEC_E_FORMAT);
	if (ret)
		return 0;
	FUZZ_CHECK(memcmp(data, "GFNC", 4) == 0 && data[4] == GFEC_NC_VERSION);
	FUZZ_CHECK(b.family == GFEC_NC_RLC || b.family == GFEC_NC_LT);
	FUZZ_CHECK(b.n >= 1 && b.n <= GFEC_NC_MAX_N);
	FUZZ_CHECK(b.block_size >= 1 && b.block_size <= GFEC_NC_MAX_BLOCK);
	hdr = gfec_nc_header_bytes(b.kind, b.n);
	FUZZ_CHECK(hdr != 0 && b.bytes == hdr + b.block_size && b.bytes <= size);
	FUZZ_CHECK(b.payload == data + hdr);
	if (b.kind == GFEC_NC_KIND_SEED) {
		FUZZ_CHECK(b.coefs == NULL);
		FUZZ_CHECK(!(b.flags & ~(GFEC_NC_SYSTEMATIC | GFEC_NC_ZERO_COEFS)));
		FUZZ_CHECK(!(b.flags & GFEC_NC_SYSTEMATIC) || b.seed < b.n);
	} else {
		FUZZ_CHECK(b.kind == GFEC_NC_KIND_COEF && b.flags == 0);
		FUZZ_CHECK(b.coefs == data + GFEC_NC_HEADER_FIXED);
	}
	again = malloc(hdr);
	FUZZ_CHECK(again != NULL);
	FUZZ_CHECK(gfec_nc_block_pack(&b, again, hdr) == (int)hdr);
	FUZZ_CHECK(memcmp(again, data, hdr) == 0);
	free(again);
	FUZZ_CHECK(gfec_nc_block_unpack(data, b.bytes - 1, &b) == GFEC_E_FORMAT);
	return 0;
}
