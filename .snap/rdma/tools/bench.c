/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file bench.c
 * gfec-rdma-bench: a load generator for gfec-rdma-server. It measures what a storage client
 * sees (data GB/s and per-stripe round-trip latency) and doubles as an end-to-end check: every
 * parity that comes back is compared with a CPU encode of the same data, and any difference
 * makes the run fail. One thread per connection, each keeping its credit window full.
 *
 * Each stripe's data is one of a few random patterns with the stripe id written into the start
 * of every chunk, so no two stripes of a connection carry the same bytes: parity sent back for
 * the wrong stripe, or left over in a reused server buffer, does not match.
 */
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gfec_rdma.h"
#include "tool_args.h"

#define PATTERNS 8
#define MAX_WINDOW 1024

struct opts {
	const char *transport, *addr, *technique;
	int conns, k, m, window;
	size_t chunk;
	double seconds;
	unsigned long long stripes; /* 0: run for `seconds` */
};

struct slot {
	int busy;
	uint64_t id;
	double t_sent;
	uint8_t **data, **expect;
};

struct worker {
	pthread_t thread;
	const struct opts *o;
	gfec_codec *cpu;
	unsigned long long quota; /* stripes to send; 0: until stop */
	int index;
	/* results, read after join (done also while running, atomically) */
	unsigned long long done, mismatches;
	int error, finished;
	uint64_t hist[GFEC_RDMA_HIST];
};

static int stop_flag;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

static uint8_t **chunks_alloc(int n, size_t len)
{
	uint8_t **p = calloc((size_t)n, sizeof(*p));

	for (int i = 0; p && i < n; i++) {
		p[i] = gfec_alloc(len);
		if (!p[i]) {
			for (int j = 0; j < i; j++)
				gfec_free(p[j]);
			free(p);
			return NULL;
		}
	}
	return p;
}

static void chunks_free(uint8_t **p, int n)
{
	for (int i = 0; p && i < n; i++)
		gfec_free(p[i]);
	free(p);
}

static void hist_add(uint64_t *hist, double seconds)
{
	uint64_t us = (uint64_t)(seconds * 1e6);
	int b = us ? 63 - __builtin_clzll(us) : 0;

	hist[b < GFEC_RDMA_HIST ? b : GFEC_RDMA_HIST - 1]++;
}

/* Builds stripe @p id in @p s: a pattern, stamped with the id, and its CPU parity. */
static int stripe_make(struct worker *w, uint8_t ***pat, struct slot *s, uint64_t id)
{
	const struct opts *o = w->o;
	uint8_t **p = pat[id % PATTERNS];

	for (int j = 0; j < o->k; j++) {
		uint64_t stamp = id * 0x9e3779b97f4a7c15ull + (uint64_t)j;

		memcpy(s->data[j], p[j], o->chunk);
		memcpy(s->data[j], &stamp, o->chunk < 8 ? o->chunk : 8);
	}
	s->id = id;
	return gfec_encode(w->cpu, (const uint8_t *const *)s->data, s->expect, o->chunk);
}

/* Compares received parity with the CPU's; reports the first few differences. */
static int parity_differs(const struct opts *o, uint8_t **rx, uint8_t **expect,
			  const struct worker *w, uint64_t id)
{
	for (int j = 0; j < o->m; j++) {
		if (!memcmp(rx[j], expect[j], o->chunk))
			continue;
		if (w->mismatches < 5)
			fprintf(stderr,
				"gfec-rdma-bench: connection %d: stripe %llu: parity %d differs "
				"from the CPU encode\n",
				w->index, (unsigned long long)id, j);
		return 1;
	}
	return 0;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	const struct opts *o = w->o;
	uint8_t **pat[PATTERNS] = {0}, **rx = NULL;
	struct slot *slots = NULL;
	gfec_rdma_client *c = NULL;
	unsigned credits = 0;
	unsigned long long sent = 0;
	uint64_t rng = 0x853c49e6748fea9bull ^ ((uint64_t)w->index << 32), next_id = 1;
	int window = 0, outstanding = 0, ret;

	ret = gfec_rdma_client_connect(o->transport, o->addr, o->k, o->m, o->chunk, &c, &credits);
	if (ret) {
		fprintf(stderr, "gfec-rdma-bench: connection %d: %s\n", w->index,
			gfec_rdma_strerror(ret));
		w->error = ret;
		goto out;
	}
	window = o->window && (unsigned)o->window < credits ? o->window : (int)credits;
	window = window < MAX_WINDOW ? window : MAX_WINDOW;
	slots = calloc((size_t)window, sizeof(*slots));
	rx = chunks_alloc(o->m, o->chunk);
	ret = slots && rx ? 0 : GFEC_E_NOMEM;
	for (int i = 0; !ret && i < PATTERNS; i++) {
		pat[i] = chunks_alloc(o->k, o->chunk);
		if (!pat[i]) {
			ret = GFEC_E_NOMEM;
			break;
		}
		for (int j = 0; j < o->k; j++)
			for (size_t b = 0; b < o->chunk; b++)
				pat[i][j][b] = (uint8_t)rng_next(&rng);
	}
	for (int i = 0; !ret && i < window; i++) {
		slots[i].data = chunks_alloc(o->k, o->chunk);
		slots[i].expect = chunks_alloc(o->m, o->chunk);
		if (!slots[i].data || !slots[i].expect)
			ret = GFEC_E_NOMEM;
	}
	while (!ret) {
		int more =
		    w->quota ? sent < w->quota : !__atomic_load_n(&stop_flag, __ATOMIC_RELAXED);
		uint64_t id;
		int status, i;

		if (more && outstanding < window) {
			for (i = 0; slots[i].busy; i++)
				;
			ret = stripe_make(w, pat, &slots[i], next_id);
			if (!ret)
				ret = gfec_rdma_client_send(c, next_id,
							    (const uint8_t *const *)slots[i].data);
			slots[i].busy = 1;
			slots[i].t_sent = now_s();
			next_id += 1 + (rng_next(&rng) & 3); /* ids grow, not always by one */
			outstanding++;
			sent++;
			continue;
		}
		if (!outstanding)
			break;
		ret = gfec_rdma_client_recv(c, &id, rx, &status);
		if (ret)
			break;
		for (i = 0; i < window && !(slots[i].busy && slots[i].id == id); i++)
			;
		if (i == window || status) {
			/* A reply for no stripe in flight, or a failed encode: both are wrong. */
			fprintf(stderr, "gfec-rdma-bench: connection %d: stripe %llu: %s\n",
				w->index, (unsigned long long)id,
				i == window ? "reply for no stripe in flight"
					    : gfec_rdma_strerror(status));
			__atomic_fetch_add(&w->mismatches, 1, __ATOMIC_RELAXED);
			if (i == window)
				break;
		} else if (parity_differs(o, rx, slots[i].expect, w, id)) {
			__atomic_fetch_add(&w->mismatches, 1, __ATOMIC_RELAXED);
		}
		hist_add(w->hist, now_s() - slots[i].t_sent);
		slots[i].busy = 0;
		outstanding--;
		__atomic_fetch_add(&w->done, 1, __ATOMIC_RELAXED);
	}
	if (ret) {
		fprintf(stderr, "gfec-rdma-bench: connection %d: %s\n", w->index,
			gfec_rdma_strerror(ret));
		w->error = ret;
	}
out:
	for (int i = 0; slots && i < window; i++) {
		chunks_free(slots[i].data, o->k);
		chunks_free(slots[i].expect, o->m);
	}
	free(slots);
	for (int i = 0; i < PATTERNS; i++)
		chunks_free(pat[i], o->k);
	chunks_free(rx, o->m);
	gfec_rdma_client_close(c);
	__atomic_store_n(&w->finished, 1, __ATOMIC_RELEASE);
	return NULL;
}

static const char usage_text[] =
    "usage: gfec-rdma-bench [options]\n"
    "  -t, --transport NAME   tcp or verbs                          [tcp]\n"
    "  -a, --addr HOST:PORT   the server                            [127.0.0.1:7470]\n"
    "  -c, --conns N          connections, one thread each          [4]\n"
    "  -k N, -m N             the code; the server must serve it    [4, 2]\n"
    "  -s, --chunk BYTES      bytes per chunk (K, M, G suffixes)    [4K]\n"
    "  -d, --duration SEC     how long to send                      [5]\n"
    "  -N, --stripes N        send exactly N stripes in all instead of a duration\n"
    "  -w, --window N         stripes in flight per connection      [server's credits]\n"
    "  -T, --technique NAME   the server's technique, for the check [cauchy]\n"
    "  -h, --help             this text\n"
    "Every parity received is compared with a CPU encode. Exit: 0 all matched,\n"
    "1 a mismatch or a failure, 2 bad usage. A progress line is shown when stderr\n"
    "is a terminal. Latency columns are histogram bucket upper edges (us).\n";

static void usage(FILE *f)
{
	fputs(usage_text, f);
}

static void on_signal(int sig)
{
	(void)sig;
	__atomic_store_n(&stop_flag, 1, __ATOMIC_RELAXED);
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
	    {"transport", required_argument, NULL, 't'},
	    {"addr", required_argument, NULL, 'a'},
	    {"conns", required_argument, NULL, 'c'},
	    {"chunk", required_argument, NULL, 's'},
	    {"duration", required_argument, NULL, 'd'},
	    {"stripes", required_argument, NULL, 'N'},
	    {"window", required_argument, NULL, 'w'},
	    {"technique", required_argument, NULL, 'T'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct opts o = {.transport = "tcp",
			 .addr = "127.0.0.1:7470",
			 .technique = "cauchy",
			 .conns = 4,
			 .k = 4,
			 .m = 2,
			 .chunk = 4096,
			 .seconds = 5};
	unsigned long long v, done = 0, mism = 0;
	uint64_t hist[GFEC_RDMA_HIST] = {0};
	struct worker *w;
	char profile[128], err[256];
	gfec_codec *cpu;
	double t0, t1, last = 0;
	int opt, failed = 0, tty = isatty(STDERR_FILENO), started = 0;

	while ((opt = getopt_long(argc, argv, "t:a:c:k:m:s:d:N:w:T:h", lopts, NULL)) != -1) {
		switch (opt) {
		case 't':
			o.transport = optarg;
			break;
		case 'a':
			o.addr = optarg;
			break;
		case 'c':
			if (rdma_tool_number(optarg, 4096, &v) || !v)
				goto bad;
			o.conns = (int)v;
			break;
		case 'k':
			if (rdma_tool_number(optarg, 255, &v))
				goto bad;
			o.k = (int)v;
			break;
		case 'm':
			if (rdma_tool_number(optarg, 255, &v))
				goto bad;
			o.m = (int)v;
			break;
		case 's':
			if (rdma_tool_number(optarg, UINT32_MAX, &v) || !v)
				goto bad;
			o.chunk = (size_t)v;
			break;
		case 'd':
			o.seconds = strtod(optarg, NULL);
			if (!(o.seconds > 0 && o.seconds < 1e6))
				goto bad;
			break;
		case 'N':
			if (rdma_tool_number(optarg, 1ull << 48, &v) || !v)
				goto bad;
			o.stripes = v;
			break;
		case 'w':
			if (rdma_tool_number(optarg, MAX_WINDOW, &v) || !v)
				goto bad;
			o.window = (int)v;
			break;
		case 'T':
			o.technique = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	/* The reference: ISA-L on one thread per call, whatever the server uses. */
	snprintf(profile, sizeof(profile), "k=%d m=%d technique=%s backend=cpu threads=1", o.k, o.m,
		 o.technique);
	if (gfec_codec_create(profile, &cpu, err, sizeof(err))) {
		fprintf(stderr, "gfec-rdma-bench: %s\n", err);
		return 2;
	}
	printf("# gfec-rdma-bench -t %s -a %s -c %d -k %d -m %d -s %zu -T %s", o.transport, o.addr,
	       o.conns, o.k, o.m, o.chunk, o.technique);
	if (o.stripes)
		printf(" -N %llu", o.stripes);
	else
		printf(" -d %g", o.seconds);
	if (o.window)
		printf(" -w %d", o.window);
	printf("\n");
	fflush(stdout);

	struct sigaction sa = {.sa_handler = on_signal};

	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	w = calloc((size_t)o.conns, sizeof(*w));
	if (!w) {
		gfec_codec_free(cpu);
		return 1;
	}
	t0 = now_s();
	for (int i = 0; i < o.conns; i++) {
		w[i].o = &o;
		w[i].cpu = cpu;
		w[i].index = i;
		if (o.stripes)
			w[i].quota = o.stripes / (unsigned)o.conns +
				     ((unsigned)i < o.stripes % (unsigned)o.conns);
		if (o.stripes && !w[i].quota)
			break; /* more connections than stripes: the rest would idle */
		if (pthread_create(&w[i].thread, NULL, worker_main, &w[i])) {
			fprintf(stderr, "gfec-rdma-bench: cannot start thread %d\n", i);
			failed = 1;
			break;
		}
		started = i + 1;
	}
	for (;;) {
		unsigned long long d = 0;
		double t;

		usleep(100000);
		t = now_s() - t0;
		for (int i = 0; i < started; i++)
			d += __atomic_load_n(&w[i].done, __ATOMIC_RELAXED);
		if (!o.stripes && t >= o.seconds)
			__atomic_store_n(&stop_flag, 1, __ATOMIC_RELAXED);
		if ((o.stripes && d >= o.stripes) || __atomic_load_n(&stop_flag, __ATOMIC_RELAXED))
			break;
		int running = 0;

		for (int i = 0; i < started; i++)
			running += !__atomic_load_n(&w[i].finished, __ATOMIC_ACQUIRE);
		if (!running)
			break;
		if (tty && t - last >= 0.5) {
			last = t;
			fprintf(stderr, "\r%6.1f s  %llu stripes  %.3f GB/s ", t, d,
				(double)d * (double)o.k * (double)o.chunk / 1e9 / t);
		}
	}
	for (int i = 0; i < started; i++)
		pthread_join(w[i].thread, NULL);
	t1 = now_s();
	if (tty && last > 0)
		fprintf(stderr, "\r\033[K");
	for (int i = 0; i < started; i++) {
		done += w[i].done;
		mism += w[i].mismatches;
		failed |= w[i].error != 0;
		for (int b = 0; b < GFEC_RDMA_HIST; b++)
			hist[b] += w[i].hist[b];
	}
	if (o.stripes && done != o.stripes)
		failed = 1;

	double secs = t1 - t0, gb = (double)done * (double)o.k * (double)o.chunk / 1e9;
	uint64_t hmax = 1;

	printf("| conns | k,m | chunk B | stripes | data GB | seconds | GB/s | stripes/s | "
	       "p50 us<= | p99 us<= | p99.9 us<= | mismatches |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	printf(
	    "| %d | %d,%d | %zu | %llu | %.3f | %.2f | %.3f | %.0f | %llu | %llu | %llu | %llu |\n",
	    o.conns, o.k, o.m, o.chunk, done, gb, secs, gb / secs, (double)done / secs,
	    (unsigned long long)gfec_rdma_hist_quantile(hist, 0.5),
	    (unsigned long long)gfec_rdma_hist_quantile(hist, 0.99),
	    (unsigned long long)gfec_rdma_hist_quantile(hist, 0.999), mism);
	printf("round-trip latency per stripe (send to parity received):\n");
	for (int b = 0; b < GFEC_RDMA_HIST; b++)
		hmax = hist[b] > hmax ? hist[b] : hmax;
	for (int b = 0; b < GFEC_RDMA_HIST; b++) {
		if (!hist[b])
			continue;
		int bar = (int)((hist[b] * 40 + hmax - 1) / hmax);

		printf("  %8llu - %8llu us %10llu %.*s\n", b ? 1ull << b : 0ull, 2ull << b,
		       (unsigned long long)hist[b], bar,
		       "########################################");
	}
	printf("checked %llu stripes against the CPU encode: %llu mismatches\n", done, mism);
	free(w);
	gfec_codec_free(cpu);
	return failed || mism ? 1 : 0;
bad:
	fprintf(stderr, "gfec-rdma-bench: bad value '%s'\n", optarg);
	usage(stderr);
	return 2;
}
