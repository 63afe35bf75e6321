/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file gfec_rdma.h
 * RDMA/TCP-fed batching: a server that takes stripes from many network clients, encodes them in
 * batches (the codec's coalescing windows, gfec_submit_coalesced(): one gfec_encode_batch-sized
 * run per batch, so one GPU launch where the codec runs on a GPU) and sends the parity back on
 * the connection each stripe came from. This header is what the tools and tests use; it is
 * built on the public gfec API only.
 *
 * Threads: gfec_rdma_server_run() is the I/O loop; with tcp and io_threads > 1 it runs
 * io_threads - 1 more I/O threads, each serving its share of the connections. The server adds
 * nothing else: the codec's async workers gather and run the batches. Clients are blocking: one
 * per thread.
 * Errors: 0 or a negative code, GFEC_E_* (gfec_errors.h) or GFEC_RDMA_E_* below; nothing aborts
 * or prints (messages go to gfec_set_log()'s callback).
 */
#ifndef GFEC_RDMA_H
#define GFEC_RDMA_H

#include <stddef.h>
#include <stdint.h>

#include <gfec/gfec.h>

/* Protocol errors. Sent to the peer in an ERROR message before its connection is closed. */
enum gfec_rdma_status {
	GFEC_RDMA_E_MAGIC = -301,     /**< not a gfec message (wrong magic) */
	GFEC_RDMA_E_VERSION = -302,   /**< protocol version or header length not spoken here */
	GFEC_RDMA_E_TYPE = -303,      /**< unknown message type, or one not valid now */
	GFEC_RDMA_E_LENGTH = -304,    /**< a length is inconsistent or over the limit */
	GFEC_RDMA_E_CODE = -305,      /**< (k,m) not served, or not this connection's */
	GFEC_RDMA_E_STRIPE_ID = -306, /**< stripe id not greater than the connection's last one */
	GFEC_RDMA_E_CREDITS = -307,   /**< more stripes outstanding than the credits granted */
	GFEC_RDMA_E_CLOSED = -308,    /**< the peer closed the connection (maybe mid-message) */
	GFEC_RDMA_E_BUSY = -309,      /**< the server has no room for another connection */
	GFEC_RDMA_E_TRANSPORT = -310, /**< no such transport in this build */
	GFEC_RDMA_E_ADDRESS = -311,   /**< the address does not parse or resolve */
	GFEC_RDMA_E_TIMEOUT = -312,   /**< the peer did not answer in time */
};

/** GFEC_RDMA_E_* as a sentence; other codes go to gfec_strerror(). Never NULL. */
const char *gfec_rdma_strerror(int code);

/**
 * Where the server's messages go (a connection refused and why, a batch that failed): gfec's
 * own log callback is internal to libgfec, so this module has its own. NULL: silence (default).
 */
void gfec_rdma_set_log(gfec_log_fn fn, void *user, enum gfec_log_level max_level);

struct gfec_rdma_server_config {
	const char *transport;	/**< "tcp" or "verbs" (rdma-core, loaded at run time) */
	const char *bind;	/**< "HOST:PORT"; port 0 picks a free one (gfec_rdma_server_port) */
	const char *codes;	/**< (k,m) served: "4,2 10,4" */
	const char *profile;	/**< added to each codec profile: "technique=cauchy" */
	int batch;		/**< a batch launches when it has this many stripes (<= 65536) ... */
	unsigned deadline_us;	/**< ... or this long after its first stripe (<= 60 s; 0: 1 us) */
	unsigned credits;	/**< stripes one connection may have outstanding */
	size_t max_chunk;	/**< largest chunk length a client may ask for */
	unsigned max_conns;	/**< connections at once; more are refused with GFEC_RDMA_E_BUSY */
	unsigned corrupt_every; /**< fault injection for tests: flip a parity byte of every Nth */
	/** Where stripes land (verbs): "gpu" registers GPU memory with the NIC (dma-buf) when the
	 * codec runs on a GPU and the NIC and driver allow it, else falls back to host memory;
	 * "host"; "auto" (default) = "gpu". gfec_rdma_server_memory() says what was chosen. */
	const char *memory;
	/** tcp: threads that serve connections (each owns the ones it is given at accept) */
	unsigned io_threads;
	/** Stripe buffers all connections together may hold (host or GPU memory, registered
	 * with the NIC for verbs). A HELLO reserves credits x (k+m) x chunk_len bytes and is
	 * refused with GFEC_RDMA_E_BUSY when that would pass this. */
	uint64_t max_buffer_bytes;
	/** A connection must have its HELLO accepted this long after it was accepted, or it is
	 * closed with GFEC_RDMA_E_TIMEOUT (so half-sent HELLOs cannot hold connection slots).
	 * 0: no limit. */
	unsigned header_timeout_ms;
	/** After HELLO: a connection none of whose stripes is being encoded, that sent no
	 * complete message and took no parity for this long (a client that stops reading its
	 * parity too), is closed with GFEC_RDMA_E_TIMEOUT; its stripe buffers and reservation
	 * go with it. 0: no limit. */
	unsigned idle_timeout_ms;
	/** Connections at once from one IPv4 address or one IPv6 /64 (a host's usual share, so
	 *  that rotating addresses inside it gains nothing); more are refused with
	 *  GFEC_RDMA_E_BUSY. 0: only max_conns applies. */
	unsigned max_conns_per_addr;
};

/** Defaults: tcp, 127.0.0.1:7470, "4,2 10,4", batch 64, 200 us, 32 credits, 4 MiB, 1024,
 * memory auto, 1 I/O thread, 8 GiB of stripe buffers, a 5 s header timeout, a 60 s idle
 * timeout, 64 connections per address. */
void gfec_rdma_server_config_default(struct gfec_rdma_server_config *cfg);

typedef struct gfec_rdma_server gfec_rdma_server;

/** Latency histograms: bucket i counts values in [2^i, 2^(i+1)) us (bucket 0 also < 1 us). */
#define GFEC_RDMA_HIST 32

struct gfec_rdma_stats {
	uint64_t conns_accepted, conns_active;
	uint64_t conns_bad;  /**< closed by the server for bad input */
	uint64_t conns_lost; /**< closed by the client with stripes outstanding or mid-message */
	uint64_t stripes;    /**< parities sent */
	uint64_t stripes_dropped; /**< encoded or queued for a connection that had gone */
	uint64_t bytes;		  /**< data bytes of the stripes sent */
	uint64_t batches, batches_full, batches_deadline; /**< and why each launched */
	uint64_t batched;				  /**< stripes in those batches */
	uint64_t encode_errors; /**< stripes whose batch failed (status sent to the client) */
	uint64_t buffer_bytes;	/**< stripe buffers held now, over all connections */
	uint64_t batch_us[GFEC_RDMA_HIST];  /**< batch: start of its run to parity ready */
	uint64_t stripe_us[GFEC_RDMA_HIST]; /**< stripe: last byte in to last parity byte out */
	uint64_t gpu_calls;	/**< codec calls (batches) the GPU ran, over all codecs */
	uint64_t cpu_fallbacks; /**< codec calls redone on the CPU after a GPU error */
	/** refused with GFEC_RDMA_E_BUSY, not counted in conns_bad: at accept (server or address
	 * at its connection limit; these are not in conns_accepted either) or at HELLO (stripe
	 * buffers or batching classes full) */
	uint64_t conns_busy;
	uint64_t conns_timed_out; /**< closed by header_timeout_ms or idle_timeout_ms */
};

/**
 * Creates the codecs, binds and listens.
 * @param err  if not NULL, gets a one-line reason on failure
 */
int gfec_rdma_server_create(const struct gfec_rdma_server_config *cfg, gfec_rdma_server **out,
			    char *err, size_t errlen);
/** The port the server listens on (useful after binding port 0). */
int gfec_rdma_server_port(const gfec_rdma_server *srv);
/** Runs the I/O loop on the calling thread until gfec_rdma_server_stop(). */
int gfec_rdma_server_run(gfec_rdma_server *srv);
/** Makes run() return soon. Async-signal-safe and callable from any thread. */
void gfec_rdma_server_stop(gfec_rdma_server *srv);
/** A snapshot of the counters; callable from any thread while the server lives. */
void gfec_rdma_server_stats(gfec_rdma_server *srv, struct gfec_rdma_stats *out);
/**
 * What this host offers the verbs transport, as one paragraph of text: whether rdma-core
 * loads, the RDMA devices, and whether GPU memory can be registered (dma-buf). Opens nothing
 * that outlives the call except the loaded libraries.
 * @returns 0, or GFEC_RDMA_E_TRANSPORT when the verbs transport is not built or rdma-core is
 *          missing (@p out still says why)
 */
int gfec_rdma_probe(char *out, size_t outlen);
/** Where stripe buffers live and why (e.g. the reason GPU memory registration fell back). */
const char *gfec_rdma_server_memory(const gfec_rdma_server *srv);
/** The codec backend serving (k,m), e.g. "cpu/isal"; NULL if (k,m) is not served. */
const char *gfec_rdma_server_backend(const gfec_rdma_server *srv, int k, int m);
/** Waits for the stripes in batches, closes every connection. NULL is accepted. */
void gfec_rdma_server_free(gfec_rdma_server *srv);

/** The smallest latency L (us, a bucket's upper edge) with at least fraction @p q of @p hist <= L.
 */
uint64_t gfec_rdma_hist_quantile(const uint64_t hist[GFEC_RDMA_HIST], double q);

typedef struct gfec_rdma_client gfec_rdma_client;

/**
 * Connects to "HOST:PORT" and asks for (k,m) with chunk_len-byte chunks.
 * @param credits  receives how many stripes may be outstanding (sent, parity not yet received)
 * @returns 0, GFEC_RDMA_E_* (the server's answer or a transport failure), GFEC_E_SYSTEM
 */
int gfec_rdma_client_connect(const char *transport, const char *addr, int k, int m,
			     size_t chunk_len, gfec_rdma_client **out, unsigned *credits);
/** Sends stripe @p id: the k chunks data[0..k-1]. Blocks until it is handed to the transport. */
int gfec_rdma_client_send(gfec_rdma_client *c, uint64_t id, const uint8_t *const *data);
/**
 * Receives the next reply into the m chunks parity[0..m-1] (left alone when the server reports
 * an encode error). @param id gets its stripe id; @param status gets the server's status for it.
 * @returns 0, or a GFEC_RDMA_E_* code (e.g. the server's ERROR) after which only close is valid
 */
int gfec_rdma_client_recv(gfec_rdma_client *c, uint64_t *id, uint8_t *const *parity, int *status);
/** Closes the connection (outstanding stripes are abandoned). NULL is accepted. */
void gfec_rdma_client_close(gfec_rdma_client *c);

#endif
