/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file server.c
 * The ingest server's life: its configuration, codecs and transport, create / run / stop /
 * free, the counters, and what the transports ask of it. The protocol state of a connection
 * is in conn.c, the batching in batcher.c (core.h is what the three share); the transports
 * only move bytes (internal.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core.h"
#include "gfec/gfec_config.h"
#include "gfec/gfec_limits.h"

const char *gfec_rdma_strerror(int code)
{
	switch (code) {
	case GFEC_RDMA_E_MAGIC:
		return "not a gfec ingest message (wrong magic)";
	case GFEC_RDMA_E_VERSION:
		return "protocol version or header length not supported";
	case GFEC_RDMA_E_TYPE:
		return "unexpected message type";
	case GFEC_RDMA_E_LENGTH:
		return "message length inconsistent or over the limit";
	case GFEC_RDMA_E_CODE:
		return "(k,m) not served, or not this connection's";
	case GFEC_RDMA_E_STRIPE_ID:
		return "stripe id not greater than the previous one";
	case GFEC_RDMA_E_CREDITS:
		return "more stripes outstanding than credits granted";
	case GFEC_RDMA_E_CLOSED:
		return "connection closed by the peer";
	case GFEC_RDMA_E_BUSY:
		return "server has no room for another connection";
	case GFEC_RDMA_E_TRANSPORT:
		return "transport not available in this build";
	case GFEC_RDMA_E_ADDRESS:
		return "address does not parse or resolve";
	case GFEC_RDMA_E_TIMEOUT:
		return "peer did not answer in time";
	}
	return gfec_strerror(code);
}

uint64_t rdma_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t gfec_rdma_hist_quantile(const uint64_t hist[GFEC_RDMA_HIST], double q)
{
	uint64_t total = 0, acc = 0;

	for (int i = 0; i < GFEC_RDMA_HIST; i++)
		total += hist[i];
	if (!total)
		return 0;
	for (int i = 0; i < GFEC_RDMA_HIST; i++) {
		acc += hist[i];
		if ((double)acc >= q * (double)total)
			return 2ull << i;
	}
	return 2ull << (GFEC_RDMA_HIST - 1);
}

const struct gfec_rdma_transport_ops *rdma_transport_find(const char *name)
{
	if (name && strcmp(name, gfec_rdma_tcp_ops.name) == 0)
		return &gfec_rdma_tcp_ops;
#ifdef GFEC_HAVE_VERBS
	if (name && strcmp(name, gfec_rdma_verbs_ops.name) == 0)
		return &gfec_rdma_verbs_ops;
#endif
	return NULL;
}

int rdma_split_addr(const char *addr, char *host, size_t hostlen, char *port, size_t portlen)
{
	const char *colon = addr ? strrchr(addr, ':') : NULL;
	const char *h = addr;
	size_t hl;

	if (!colon || !colon[1] || strlen(colon + 1) >= portlen)
		return GFEC_RDMA_E_ADDRESS;
	hl = (size_t)(colon - addr);
	if (hl >= 2 && addr[0] == '[' && addr[hl - 1] == ']') {
		h++;
		hl -= 2;
	}
	if (hl == 0 || hl >= hostlen)
		return GFEC_RDMA_E_ADDRESS;
	memcpy(host, h, hl);
	host[hl] = '\0';
	strcpy(port, colon + 1);
	return 0;
}

uint64_t rdma_max_payload(const gfec_rdma_server *srv)
{
	return srv->max_payload;
}

int rdma_stopping(gfec_rdma_server *srv)
{
	return __atomic_load_n(&srv->stop, __ATOMIC_ACQUIRE);
}

unsigned rdma_credits(const gfec_rdma_server *srv)
{
	return srv->cfg.credits;
}

unsigned rdma_io_threads(const gfec_rdma_server *srv)
{
	return srv->cfg.io_threads;
}

const char *rdma_memory_wanted(const gfec_rdma_server *srv)
{
	return srv->cfg.memory;
}

void rdma_set_memory(gfec_rdma_server *srv, const char *what)
{
	snprintf(srv->memory, sizeof(srv->memory), "%s", what);
}

#ifndef GFEC_HAVE_VERBS
int gfec_rdma_probe(char *out, size_t outlen)
{
	snprintf(out, outlen, "verbs transport: not in this build (rdma-core headers missing)");
	return GFEC_RDMA_E_TRANSPORT;
}
#endif

const char *gfec_rdma_server_memory(const gfec_rdma_server *srv)
{
	return srv->memory;
}

void gfec_rdma_server_config_default(struct gfec_rdma_server_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->transport = "tcp";
	cfg->bind = "127.0.0.1:7470";
	cfg->codes = "4,2 10,4";
	cfg->profile = "";
	cfg->batch = 64;
	cfg->deadline_us = 200;
	cfg->credits = 32;
	cfg->max_chunk = 4u << 20;
	cfg->max_conns = 1024;
	cfg->memory = "auto";
	cfg->io_threads = 1;
	cfg->max_buffer_bytes = 8ull << 30;
	cfg->header_timeout_ms = 5000;
	cfg->idle_timeout_ms = 60000;
	cfg->max_conns_per_addr = 64;
}

static int fail(char *err, size_t errlen, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t errlen, int code, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return code;
}

static int parse_codes(gfec_rdma_server *srv, const char *codes, char *err, size_t errlen)
{
	const char *p = codes;

	while (*p) {
		const size_t n = strcspn(p, " ;");
		char tok[48], *comma;
		long long k, m;

		if (n == 0) {
			p++;
			continue;
		}
		if (n >= sizeof(tok))
			goto bad;
		memcpy(tok, p, n);
		tok[n] = '\0';
		p += n;
		/* each number in gfec's one syntax (gfec_parse_number) */
		comma = strchr(tok, ',');
		if (!comma)
			goto bad;
		*comma = '\0';
		if (gfec_parse_number(tok, LLONG_MIN, LLONG_MAX, &k) ||
		    gfec_parse_number(comma + 1, LLONG_MIN, LLONG_MAX, &m))
			goto bad;
		if (srv->ncodes == RDMA_MAX_CODES)
			return fail(err, errlen, GFEC_E_INVAL, "codes: at most %d (k,m) pairs",
				    RDMA_MAX_CODES);
		if (k < 2 || k >= GFEC_MAX_CHUNKS || m < 1 || m > k || k + m > GFEC_MAX_CHUNKS)
			return fail(err, errlen, GFEC_E_INVAL, "codes: (%lld,%lld) out of range", k,
				    m);
		srv->codes[srv->ncodes].k = (int)k;
		srv->codes[srv->ncodes].m = (int)m;
		srv->ncodes++;
	}
	if (srv->ncodes)
		return 0;
bad:
	return fail(err, errlen, GFEC_E_INVAL, "codes '%s': want pairs K,M separated by spaces",
		    codes);
}

int gfec_rdma_server_create(const struct gfec_rdma_server_config *cfg, gfec_rdma_server **out,
			    char *err, size_t errlen)
{
	char host[256], port[32], cerr[256];
	gfec_rdma_server *srv;
	int ret;

	*out = NULL;
	if (cfg->batch < 1 || cfg->credits < 1 || cfg->max_chunk < 1 ||
	    cfg->max_chunk > UINT32_MAX || cfg->max_conns < 1)
		return fail(err, errlen, GFEC_E_INVAL,
			    "batch, credits, max_chunk and max_conns must be positive "
			    "(max_chunk < 4 GiB)");
	/* the codec's window limits (gfec_submit_coalesced) */
	if (cfg->batch > GFEC_WINDOW_MAX_STRIPES || cfg->deadline_us > GFEC_WINDOW_MAX_US)
		return fail(err, errlen, GFEC_E_INVAL, "batch must be at most %d stripes and "
			    "deadline_us at most %d", GFEC_WINDOW_MAX_STRIPES, GFEC_WINDOW_MAX_US);
	if (!cfg->max_buffer_bytes)
		return fail(err, errlen, GFEC_E_INVAL, "max_buffer_bytes must be positive");
	if (cfg->io_threads < 1 || cfg->io_threads > RDMA_MAX_SHARDS)
		return fail(err, errlen, GFEC_E_INVAL, "io_threads must be 1..%d", RDMA_MAX_SHARDS);
	if (cfg->credits > RDMA_MAX_CREDITS)
		return fail(err, errlen, GFEC_E_INVAL, "credits must be at most %d",
			    RDMA_MAX_CREDITS);
	if (cfg->memory && strcmp(cfg->memory, "auto") && strcmp(cfg->memory, "host") &&
	    strcmp(cfg->memory, "gpu"))
		return fail(err, errlen, GFEC_E_INVAL, "memory must be auto, host or gpu, not '%s'",
			    cfg->memory);
	srv = calloc(1, sizeof(*srv));
	if (!srv)
		return fail(err, errlen, GFEC_E_NOMEM, "out of memory");
	srv->cfg = *cfg;
	if (!srv->cfg.memory)
		srv->cfg.memory = "auto";
	pthread_mutex_init(&srv->lock, NULL);
	pthread_mutex_init(&srv->peer_lock, NULL);
	pthread_cond_init(&srv->idle, NULL);

	srv->ops = rdma_transport_find(cfg->transport);
	if (!srv->ops) {
		ret = fail(err, errlen, GFEC_RDMA_E_TRANSPORT,
			   "transport '%s' is not in this build (have: %s)",
			   cfg->transport ? cfg->transport : "(null)", RDMA_TRANSPORTS);
		goto out;
	}
	ret = parse_codes(srv, cfg->codes ? cfg->codes : "", err, errlen);
	if (ret)
		goto out;
	for (int i = 0; i < srv->ncodes; i++) {
		char profile[512];
		struct rdma_code *c = &srv->codes[i];
		uint64_t pl = (uint64_t)c->k * cfg->max_chunk;

		snprintf(profile, sizeof(profile), "k=%d m=%d %s", c->k, c->m,
			 cfg->profile ? cfg->profile : "");
		ret = gfec_codec_create(profile, &c->codec, cerr, sizeof(cerr));
		if (ret) {
			fail(err, errlen, ret, "codec '%s': %s", profile, cerr);
			goto out;
		}
		if (pl > srv->max_payload)
			srv->max_payload = pl;
	}
	ret = rdma_split_addr(cfg->bind, host, sizeof(host), port, sizeof(port));
	if (ret) {
		fail(err, errlen, ret, "bind address '%s': want HOST:PORT",
		     cfg->bind ? cfg->bind : "(null)");
		goto out;
	}
	ret = srv->ops->listen(srv, host, port, &srv->tp);
	if (ret) {
		int e = errno;

		fail(err, errlen, ret, "listen on %s: %s%s", cfg->bind,
		     ret == GFEC_E_SYSTEM ? strerror(e) : gfec_rdma_strerror(ret),
		     ret == GFEC_E_SYSTEM && (e == ENODEV || e == EADDRNOTAVAIL) &&
			     strcmp(cfg->transport, "verbs") == 0
			 ? " (no RDMA device serves this address)"
			 : "");
		goto out;
	}
	*out = srv;
	return 0;
out:
	gfec_rdma_server_free(srv);
	return ret;
}

int gfec_rdma_server_port(const gfec_rdma_server *srv)
{
	return srv->ops->port(srv->tp);
}

int gfec_rdma_server_run(gfec_rdma_server *srv)
{
	return srv->ops->run(srv->tp);
}

void gfec_rdma_server_stop(gfec_rdma_server *srv)
{
	__atomic_store_n(&srv->stop, 1, __ATOMIC_RELEASE);
	srv->ops->kick(srv->tp, -1);
}

unsigned rdma_window_us(const gfec_rdma_server *srv)
{
	return srv->cfg.deadline_us ? srv->cfg.deadline_us : 1;
}

gfec_codec *rdma_codec(const gfec_rdma_server *srv, int k, int m)
{
	for (int i = 0; i < srv->ncodes; i++)
		if (!k || (srv->codes[i].k == k && srv->codes[i].m == m))
			return srv->codes[i].codec;
	return NULL;
}

const char *gfec_rdma_server_backend(const gfec_rdma_server *srv, int k, int m)
{
	gfec_codec *c = rdma_codec(srv, k, m);

	return c ? gfec_codec_backend(c) : NULL;
}

void gfec_rdma_server_stats(gfec_rdma_server *srv, struct gfec_rdma_stats *out)
{
	const uint64_t *src = (const uint64_t *)&srv->st;
	uint64_t *dst = (uint64_t *)out;

	/* The struct is all uint64_t: copy it counter by counter, each one atomically. */
	for (size_t i = 0; i < sizeof(*out) / sizeof(uint64_t); i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
	for (int i = 0; i < srv->ncodes; i++) {
		struct gfec_window_stats ws;
		struct gfec_stats cs;

		gfec_codec_stats(srv->codes[i].codec, &cs);
		out->gpu_calls += cs.gpu_calls;
		out->cpu_fallbacks += cs.fallbacks;
		/* the batches are the codecs' windows: only this server submits to its codecs */
		gfec_codec_window_stats(srv->codes[i].codec, &ws);
		out->batches += ws.windows;
		out->batches_full += ws.full;
		out->batches_deadline += ws.deadline;
		out->batched += ws.stripes;
		for (int b = 0; b < GFEC_RDMA_HIST && b < 32; b++)
			out->batch_us[b] += ws.run_us[b];
	}
}

void gfec_rdma_server_free(gfec_rdma_server *srv)
{
	if (!srv)
		return;
	rdma_batcher_wait(srv);
	if (srv->tp)
		srv->ops->destroy(srv->tp);
	rdma_batcher_drain(srv); /* every connection is closed now */
	for (int i = 0; i < srv->ncodes; i++)
		gfec_codec_free(srv->codes[i].codec);
	pthread_cond_destroy(&srv->idle);
	pthread_mutex_destroy(&srv->lock);
	pthread_mutex_destroy(&srv->peer_lock);
	free(srv);
}
