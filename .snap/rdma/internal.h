/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file internal.h
 * What the server core (server.c: life and stats; conn.c: protocol state; batcher.c: stripes
 * through the codec's coalescer; core.h is theirs alone) and the transports share. A transport only moves bytes: it accepts
 * connections, lands each message where the core says, and sends back what the core hands it.
 * Every protocol decision is the core's, so a second transport speaks exactly the same protocol
 * and rejects exactly the same input.
 *
 *   transport I/O thread          core                         codec (coalescer, workers)
 *   accept ------------------->   conn_open
 *   header bytes ------------->   conn_header: checks, picks a stripe slot, says where the
 *                                 payload goes
 *   payload landed ----------->   conn_landed: gfec_submit_coalesced(ENCODE) ---> a window of
 *                                                          `batch` stripes or `deadline_us`
 *   kick (eventfd) <-----------   completion list  <-------------------------  callback
 *   take_done: send PARITY, then slot_sent
 *   hang-up / bad input ------>   conn_close: slots not yet in a running window are withdrawn
 *                                 (gfec_cancel); the others come back later and are freed
 */
#ifndef GFEC_RDMA_INTERNAL_H
#define GFEC_RDMA_INTERNAL_H

#include <pthread.h>
#include <stdint.h>
#include <sys/uio.h>

#include "gfec_rdma.h"
#include "proto.h"

struct rdma_conn;
struct rdma_class;
struct rdma_peer;
struct sockaddr;

enum slot_state { SLOT_FREE = 0, SLOT_RECV, SLOT_QUEUED, SLOT_SEND };

/* One stripe's buffer on a connection: k data chunks then m parity chunks, chunk_len each. */
struct rdma_slot {
	struct rdma_slot *next; /* in the completion list or a send queue */
	struct rdma_conn *conn;
	enum slot_state state;
	uint8_t *buf;
	uint64_t id;
	uint64_t landed_ns;
	int status;
	struct gfec_request req; /* SLOT_QUEUED: its encode, in a codec's window */
	uint8_t reply[GFEC_RDMA_HDR_LEN];
};

/* Per-connection state: owned by the I/O thread. */
struct rdma_conn {
	gfec_rdma_server *srv;
	void *tp_conn; /* the transport's own state for this connection */
	int k, m, hello_done, have_last;
	size_t chunk_len;
	uint64_t last_id;
	unsigned outstanding; /* slots not FREE */
	unsigned queued;      /* slots in a codec's window or on the completion list */
	int closed;	      /* the transport is done with it; freed when queued reaches 0 */
	unsigned shard;	      /* the transport's I/O thread that owns it */
	struct rdma_class *cls;
	struct rdma_slot *slots; /* credits of them; buffers allocated on first use ... */
	const uint8_t **in;	 /* slot i's request: in[i*k .. i*k+k-1], out[i*m .. i*m+m-1] */
	uint8_t **out;
	/* ... or given by the transport (rdma_conn_set_buffers), released when c is freed */
	void (*bufs_release)(void *arg);
	void *bufs_arg;
	uint64_t bufs_bytes;
	int bufs_on_device;
	uint64_t reserved;	/* its share of the server's max_buffer_bytes */
	uint64_t since_ns;	/* accepted, or last progress: message in, parity out */
	struct rdma_peer *peer; /* its address's count (max_conns_per_addr), or NULL */
};

/* The most credits a server grants (bounds a verbs queue pair's depth). */
#define RDMA_MAX_CREDITS 1024
/* The most I/O threads a transport may run (each owns its connections). */
#define RDMA_MAX_SHARDS 64

/**
 * A transport. It may run several I/O threads ("shards"), each owning the connections it
 * opened: every core call about a connection runs on its shard's thread. Client-side calls are
 * blocking and used by one thread per connection.
 */
struct gfec_rdma_transport_ops {
	const char *name;
	/** Binds and listens on @p host : @p port; *tp gets the transport's state. */
	int (*listen)(gfec_rdma_server *srv, const char *host, const char *port, void **tp);
	/** The port bound. */
	int (*port)(const void *tp);
	/** The I/O loop; returns when gfec_rdma_server_stop() was called. */
	int (*run)(void *tp);
	/** Wakes I/O thread @p shard (-1: all) for completions or stop: async-signal-safe, any
	 * thread. */
	void (*kick)(void *tp, int shard);
	/** Closes every connection (conn_close for each) and the listener. */
	void (*destroy)(void *tp);

	int (*connect)(const char *host, const char *port, void **cp);
	/** Sends all of @p iov (a whole message). */
	int (*send)(void *cp, const struct iovec *iov, int iovcnt);
	/** Receives exactly the bytes @p iov describes; GFEC_RDMA_E_CLOSED at end of stream. */
	int (*recv)(void *cp, const struct iovec *iov, int iovcnt);
	void (*close)(void *cp);
};

extern const struct gfec_rdma_transport_ops gfec_rdma_tcp_ops;
#ifdef GFEC_HAVE_VERBS
extern const struct gfec_rdma_transport_ops gfec_rdma_verbs_ops;
#define RDMA_TRANSPORTS "tcp, verbs"
#else
#define RDMA_TRANSPORTS "tcp"
#endif

const struct gfec_rdma_transport_ops *rdma_transport_find(const char *name);
/** Splits "HOST:PORT" (the last colon; "[v6]:port" too) into @p host and @p port. */
int rdma_split_addr(const char *addr, char *host, size_t hostlen, char *port, size_t portlen);

uint64_t rdma_now_ns(void);
/** The one way rdma/ logs (log.c): one line, from any thread. */
void rdma_log(enum gfec_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- the core, called by the transport on the I/O thread ---------------------------------- */

/** The largest payload any message may carry on this server (the length check's limit). */
uint64_t rdma_max_payload(const gfec_rdma_server *srv);
/** A new connection from @p peer (NULL: unknown, no per-address limit), owned by I/O thread
 * @p shard; NULL when the server or the peer's address is at its limit, or out of memory
 * (refuse it with GFEC_RDMA_E_BUSY; the core counted it). */
struct rdma_conn *rdma_conn_open(gfec_rdma_server *srv, void *tp_conn, unsigned shard,
				 const struct sockaddr *peer);
/**
 * Whether @p c has outstayed its welcome at @p now (rdma_now_ns): no HELLO within
 * header_timeout_ms of being accepted, or, after HELLO, idle_timeout_ms without progress (a
 * message in, parity handed out or sent) while none of its stripes is being encoded (a HELLO's
 * buffer reservation expires this way, and a peer that stops taking its parity is cut off).
 * @returns 0, or GFEC_RDMA_E_TIMEOUT: close it with that (an ERROR first)
 */
int rdma_conn_expired(const gfec_rdma_server *srv, const struct rdma_conn *c, uint64_t now);
/** How often (ms) a transport should call rdma_conn_expired for each connection; -1: never. */
int rdma_sweep_ms(const gfec_rdma_server *srv);
/**
 * A checked header arrived (@p h from gfec_rdma_hdr_unpack). For HELLO, *reply is the
 * HELLO_ACK to send. For STRIPE, *slot is where the payload goes (slot->buf, k * chunk_len
 * bytes), to be passed to rdma_conn_landed once it is all there.
 * @param index  -1: the core picks a free slot; else the slot the peer already wrote into
 *               (it must be free, or the answer is GFEC_RDMA_E_CREDITS)
 * @returns 0, or a GFEC_RDMA_E_* code: send ERROR with it and close the connection
 */
int rdma_conn_header(gfec_rdma_server *srv, struct rdma_conn *c, const struct gfec_rdma_hdr *h,
		     uint8_t reply[GFEC_RDMA_HDR_LEN], int index, struct rdma_slot **slot);
/**
 * After HELLO: the transport's own stripe buffers (e.g. registered with a NIC), slot i at
 * @p base + i * @p stride. @p release(@p arg) runs when the core frees the connection, which
 * may be after rdma_conn_close (a batch may still be encoding into them).
 * @param on_device  the buffers are GPU memory (the host never touches them)
 */
void rdma_conn_set_buffers(gfec_rdma_server *srv, struct rdma_conn *c, uint8_t *base,
			   size_t stride, int on_device, void (*release)(void *), void *arg);
unsigned rdma_credits(const gfec_rdma_server *srv);
/** The I/O threads a transport should run (the configured number, 1..RDMA_MAX_SHARDS). */
unsigned rdma_io_threads(const gfec_rdma_server *srv);
/** The configured memory wish: "auto", "host" or "gpu". */
const char *rdma_memory_wanted(const gfec_rdma_server *srv);
/** The codec serving (k,m) (NULL: none); k = 0: the first one (they share one profile). */
gfec_codec *rdma_codec(const gfec_rdma_server *srv, int k, int m);
/** Says where stripe buffers live (gfec_rdma_server_memory). */
void rdma_set_memory(gfec_rdma_server *srv, const char *what);
void rdma_conn_landed(gfec_rdma_server *srv, struct rdma_slot *s);
/**
 * The connection is gone. @p why: 0 (clean, nothing outstanding), GFEC_RDMA_E_CLOSED (the peer
 * left mid-message or with stripes outstanding) or the protocol error it was closed for.
 * The transport must not touch @p c afterwards.
 */
void rdma_conn_close(gfec_rdma_server *srv, struct rdma_conn *c, int why);
/**
 * Takes every finished stripe of I/O thread @p shard. The transport sends each slot's reply header plus its parity
 * (rdma_slot_parity) and calls rdma_slot_sent; slots of closed connections never get here.
 */
struct rdma_slot *rdma_take_done(gfec_rdma_server *srv, unsigned shard);
/** The parity payload of a finished slot: *len is 0 when its encode failed. */
uint8_t *rdma_slot_parity(const struct rdma_slot *s, size_t *len);
void rdma_slot_sent(gfec_rdma_server *srv, struct rdma_slot *s);
/** Whether gfec_rdma_server_stop() was called. */
int rdma_stopping(gfec_rdma_server *srv);

#endif
