/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file proto.h
 * The gfec ingest wire protocol, spoken alike by every transport, so that a server can check
 * every message the same way whichever transport carried it. One message is a fixed header,
 * little-endian, then payload_len bytes:
 *
 *   off  size  field
 *     0     4  magic        "GFEC" (0x43454647 read as little-endian u32)
 *     4     2  version      1
 *     6     2  hdr_len      40 (the header's size in this version)
 *     8     2  type         HELLO, HELLO_ACK, STRIPE, PARITY, ERROR
 *    10     2  k            data chunks      } every message but ERROR: 2 <= k, 1 <= m <= k,
 *    12     2  m            parity chunks    } k + m <= 256
 *    14     2  reserved     0
 *    16     4  status       replies: 0 or a negative GFEC_E_* / GFEC_RDMA_E_* code
 *    20     4  chunk_len    bytes per chunk
 *    24     4  payload_len  STRIPE: k * chunk_len; PARITY: m * chunk_len (0 if status < 0);
 *                           others: 0
 *    28     4  credits      HELLO_ACK: stripes the client may have outstanding; else 0
 *    32     8  stripe_id    STRIPE, PARITY: strictly increasing per connection
 *
 *   client                          server
 *   HELLO (k, m, chunk_len)   -->
 *                             <--   HELLO_ACK (credits)   or ERROR (status), then close
 *   STRIPE id, k chunks       -->   ... batched with other connections' stripes ...
 *                             <--   PARITY id, m chunks (any order across ids)
 *   bad input of any kind     -->
 *                             <--   ERROR (status), then close: this connection only
 *
 * Stripe ids must grow on a connection, which makes a reused id detectable in O(1) and without
 * remembering old ids.
 */
#ifndef GFEC_RDMA_PROTO_H
#define GFEC_RDMA_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define GFEC_RDMA_MAGIC 0x43454647u
#define GFEC_RDMA_VERSION 1
#define GFEC_RDMA_HDR_LEN 40

enum gfec_rdma_msg {
	GFEC_RDMA_HELLO = 1,
	GFEC_RDMA_HELLO_ACK = 2,
	GFEC_RDMA_STRIPE = 3,
	GFEC_RDMA_PARITY = 4,
	GFEC_RDMA_ERROR = 5,
};

struct gfec_rdma_hdr {
	uint32_t magic;
	uint16_t version, hdr_len, type, k, m, reserved;
	int32_t status;
	uint32_t chunk_len, payload_len, credits;
	uint64_t stripe_id;
};

/** A header with magic, version and hdr_len filled in, everything else 0. */
void gfec_rdma_hdr_init(struct gfec_rdma_hdr *h, enum gfec_rdma_msg type);
/** Writes @p h in wire order. */
void gfec_rdma_hdr_pack(const struct gfec_rdma_hdr *h, uint8_t out[GFEC_RDMA_HDR_LEN]);
/**
 * Reads and checks a header: magic, version, hdr_len, type, reserved, (k,m) ranges, and that
 * payload_len agrees with the type, k, m and chunk_len and is at most @p max_payload. Nothing
 * the peer sends is used before this returns 0.
 * @returns 0 or GFEC_RDMA_E_MAGIC, _VERSION, _TYPE, _LENGTH, _CODE
 */
int gfec_rdma_hdr_unpack(const uint8_t in[GFEC_RDMA_HDR_LEN], uint64_t max_payload,
			 struct gfec_rdma_hdr *h);

#endif
