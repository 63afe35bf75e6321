/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file server.c
 * gfec-rdma-server: the ingest server as a program, so storage clients (and gfec-rdma-bench)
 * can push stripes at a gfec codec over the network. It prints one line when it listens (with
 * the port, for scripts that bind port 0) and its counters when SIGINT or SIGTERM stops it.
 */
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gfec_rdma.h"
#include "tool_args.h"

static gfec_rdma_server *server;
static sigset_t stop_sigs; /* SIGINT, SIGTERM: blocked in every thread, taken by stopper() */

/* Waits for SIGINT or SIGTERM and stops the server. main() joins it before freeing the server,
 * so a signal never reaches a server being freed (a handler on some thread could). */
static void *stopper(void *arg)
{
	int sig;

	(void)arg;
	sigwait(&stop_sigs, &sig);
	gfec_rdma_server_stop(server);
	return NULL;
}

static void on_log(enum gfec_log_level level, const char *msg, void *user)
{
	(void)user;
	fprintf(stderr, "%s%s\n", level == GFEC_LOG_ERROR ? "error: " : "", msg);
}

static const char usage_text[] =
    "usage: gfec-rdma-server [options]\n"
    "  -t, --transport NAME   tcp or verbs (rdma-core, RC queue pairs)      [tcp]\n"
    "  -b, --bind HOST:PORT   listen here; port 0 picks a free one  [127.0.0.1:7470]\n"
    "  -c, --codes 'K,M ...'  (k,m) pairs served                            [4,2 10,4]\n"
    "  -n, --batch N          launch a batch at N stripes (up to 65536) ... [64]\n"
    "  -d, --deadline-us US   ... or US after its first (up to 60000000)    [200]\n"
    "  -B, --backend NAME     cpu, gpu or auto                              [auto]\n"
    "  -T, --technique NAME   reed_sol_van, cauchy, ...                     [cauchy]\n"
    "  -p, --profile 'K=V ..' more codec profile keys (threads=, gpu_kernel=, ...)\n"
    "      --credits N        stripes a connection may have outstanding     [32]\n"
    "      --max-chunk BYTES  largest chunk a client may ask for            [4194304]\n"
    "      --max-conns N      connections at once                           [1024]\n"
    "      --max-conns-per-addr N  connections at once from one IP address;\n"
    "                         0: no limit                                   [64]\n"
    "      --header-timeout-ms MS  close a connection that has not said HELLO\n"
    "                         this long after connecting; 0: never           [5000]\n"
    "      --idle-timeout-ms MS  close a connection idle this long after HELLO\n"
    "                         (nothing being encoded for it, no message in, no\n"
    "                         parity taken); 0: never                       [60000]\n"
    "      --io-threads N     tcp: threads serving connections              [1]\n"
    "      --max-buffers BYTES stripe buffers of all connections; a HELLO that\n"
    "                         would pass it is refused (busy)               [8589934592]\n"
    "      --port-file FILE   write the bound port to FILE once listening\n"
    "      --memory WHERE     verbs: stripe buffers in gpu (dma-buf, when the codec\n"
    "                         runs on a GPU and the NIC allows it, else host) or host [auto]\n"
    "      --probe            print what this host offers (RDMA devices, GPU memory\n"
    "                         registration) and exit\n"
    "  -q, --quiet            no log lines for closed connections\n"
    "  -h, --help             this text\n"
    "GFEC_RDMA_FAULT_CORRUPT=N (tests): flip a parity bit of every Nth stripe.\n"
    "On SIGINT or SIGTERM it prints its counters and latency and exits 0;\n"
    "1 on failure, 2 on bad usage.\n";

static void usage(FILE *f)
{
	fputs(usage_text, f);
}

static void print_hist(const char *name, const uint64_t *h)
{
	printf("%s latency: p50 <= %llu us, p99 <= %llu us, p99.9 <= %llu us\n", name,
	       (unsigned long long)gfec_rdma_hist_quantile(h, 0.5),
	       (unsigned long long)gfec_rdma_hist_quantile(h, 0.99),
	       (unsigned long long)gfec_rdma_hist_quantile(h, 0.999));
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"transport", required_argument, NULL, 't'},
	    {"bind", required_argument, NULL, 'b'},
	    {"codes", required_argument, NULL, 'c'},
	    {"batch", required_argument, NULL, 'n'},
	    {"deadline-us", required_argument, NULL, 'd'},
	    {"backend", required_argument, NULL, 'B'},
	    {"technique", required_argument, NULL, 'T'},
	    {"profile", required_argument, NULL, 'p'},
	    {"credits", required_argument, NULL, 1},
	    {"max-chunk", required_argument, NULL, 2},
	    {"max-conns", required_argument, NULL, 3},
	    {"port-file", required_argument, NULL, 4},
	    {"memory", required_argument, NULL, 5},
	    {"probe", no_argument, NULL, 6},
	    {"io-threads", required_argument, NULL, 7},
	    {"max-buffers", required_argument, NULL, 8},
	    {"max-conns-per-addr", required_argument, NULL, 9},
	    {"header-timeout-ms", required_argument, NULL, 10},
	    {"idle-timeout-ms", required_argument, NULL, 11},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct gfec_rdma_server_config cfg;
	const char *backend = "auto", *technique = "cauchy", *extra = "", *port_file = NULL;
	char profile[512], err[512];
	unsigned long long v;
	struct gfec_rdma_stats st;
	pthread_t stop_thread;
	int opt, quiet = 0, ret;

	gfec_rdma_server_config_default(&cfg);
	while ((opt = getopt_long(argc, argv, "t:b:c:n:d:B:T:p:qh", opts, NULL)) != -1) {
		switch (opt) {
		case 't':
			cfg.transport = optarg;
			break;
		case 'b':
			cfg.bind = optarg;
			break;
		case 'c':
			cfg.codes = optarg;
			break;
		case 'n':
			if (rdma_tool_number(optarg, GFEC_WINDOW_MAX_STRIPES, &v) || !v)
				goto bad;
			cfg.batch = (int)v;
			break;
		case 'd':
			if (rdma_tool_number(optarg, GFEC_WINDOW_MAX_US, &v))
				goto bad;
			cfg.deadline_us = (unsigned)v;
			break;
		case 'B':
			backend = optarg;
			break;
		case 'T':
			technique = optarg;
			break;
		case 'p':
			extra = optarg;
			break;
		case 1:
			if (rdma_tool_number(optarg, 1 << 16, &v) || !v)
				goto bad;
			cfg.credits = (unsigned)v;
			break;
		case 2:
			if (rdma_tool_number(optarg, UINT32_MAX, &v) || !v)
				goto bad;
			cfg.max_chunk = (size_t)v;
			break;
		case 3:
			if (rdma_tool_number(optarg, GFEC_WINDOW_MAX_STRIPES, &v) || !v)
				goto bad;
			cfg.max_conns = (unsigned)v;
			break;
		case 4:
			port_file = optarg;
			break;
		case 5:
			cfg.memory = optarg;
			break;
		case 6: {
			char what[512];

			ret = gfec_rdma_probe(what, sizeof(what));
			printf("%s\n", what);
			return ret ? 1 : 0;
		}
		case 7:
			if (rdma_tool_number(optarg, 64, &v) || !v)
				goto bad;
			cfg.io_threads = (unsigned)v;
			break;
		case 8:
			if (rdma_tool_number(optarg, UINT64_MAX, &v) || !v)
				goto bad;
			cfg.max_buffer_bytes = v;
			break;
		case 9:
			if (rdma_tool_number(optarg, 1 << 20, &v))
				goto bad;
			cfg.max_conns_per_addr = (unsigned)v;
			break;
		case 10:
		case 11:
			if (rdma_tool_number(optarg, 86400000, &v))
				goto bad;
			*(opt == 10 ? &cfg.header_timeout_ms : &cfg.idle_timeout_ms) = (unsigned)v;
			break;
		case 'q':
			quiet = 1;
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
	if (getenv("GFEC_RDMA_FAULT_CORRUPT") &&
	    rdma_tool_number(getenv("GFEC_RDMA_FAULT_CORRUPT"), UINT32_MAX, &v) == 0)
		cfg.corrupt_every = (unsigned)v;
	snprintf(profile, sizeof(profile), "technique=%s backend=%s %s", technique, backend, extra);
	cfg.profile = profile;
	gfec_rdma_set_log(on_log, NULL, quiet ? GFEC_LOG_ERROR : GFEC_LOG_WARN);

	/* SIGINT/SIGTERM stay blocked in every thread (the server's and libgfec's inherit the mask)
	 * and go to stopper() only. One that comes after stopper() has returned stays pending, so a
	 * second SIGTERM (`timeout` sends one to the child and one to its process group) is harmless. */
	sigemptyset(&stop_sigs);
	sigaddset(&stop_sigs, SIGINT);
	sigaddset(&stop_sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop_sigs, NULL);
	ret = gfec_rdma_server_create(&cfg, &server, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "gfec-rdma-server: %s\n", err);
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	if (port_file) {
		FILE *f = fopen(port_file, "w");

		if (!f || fprintf(f, "%d\n", gfec_rdma_server_port(server)) < 0 || fclose(f)) {
			fprintf(stderr, "gfec-rdma-server: cannot write %s\n", port_file);
			gfec_rdma_server_free(server);
			return 1;
		}
	}
	printf("gfec-rdma-server: %s on port %d, codes '%s', batch %d, deadline %u us, "
	       "credits %u, backend %s\n",
	       cfg.transport, gfec_rdma_server_port(server), cfg.codes, cfg.batch, cfg.deadline_us,
	       cfg.credits, backend);
	printf("gfec-rdma-server: stripe memory: %s\n", gfec_rdma_server_memory(server));
	for (const char *p = cfg.codes; *p;) {
		int k, m, n;

		if (sscanf(p, " %d,%d%n", &k, &m, &n) != 2)
			break;
		printf("gfec-rdma-server: (%d,%d) encodes on %s\n", k, m,
		       gfec_rdma_server_backend(server, k, m));
		p += n;
	}
	fflush(stdout);

	if (pthread_create(&stop_thread, NULL, stopper, NULL)) {
		fprintf(stderr, "gfec-rdma-server: cannot start the signal thread\n");
		gfec_rdma_server_free(server);
		return 1;
	}
	ret = gfec_rdma_server_run(server); /* a signal pending by now stops it at once */
	pthread_kill(stop_thread, SIGTERM); /* run ended on its own: stopper() must end too */
	pthread_join(stop_thread, NULL);
	gfec_rdma_server_stats(server, &st);
	printf("connections: %llu accepted, %llu closed for bad input, %llu lost mid-stream, "
	       "%llu refused busy, %llu timed out\n",
	       (unsigned long long)st.conns_accepted, (unsigned long long)st.conns_bad,
	       (unsigned long long)st.conns_lost, (unsigned long long)st.conns_busy,
	       (unsigned long long)st.conns_timed_out);
	printf("stripes: %llu sent (%.3f GB of data), %llu dropped, %llu encode errors\n",
	       (unsigned long long)st.stripes, (double)st.bytes / 1e9,
	       (unsigned long long)st.stripes_dropped, (unsigned long long)st.encode_errors);
	printf("batches: %llu (%llu full, %llu by deadline), %.1f stripes per batch\n",
	       (unsigned long long)st.batches, (unsigned long long)st.batches_full,
	       (unsigned long long)st.batches_deadline,
	       st.batches ? (double)st.batched / (double)st.batches : 0.0);
	printf("codec calls on the GPU: %llu, redone on the CPU after a GPU error: %llu\n",
	       (unsigned long long)st.gpu_calls, (unsigned long long)st.cpu_fallbacks);
	print_hist("batch", st.batch_us);
	print_hist("stripe", st.stripe_us);
	/* Out before the server is freed: under ASan+UBSan a stopped server was killed, once in
	 * many runs, after ignoring SIGTERM for 10 s and with no counters shown (8c72e25); with
	 * them on the pipe first, the next such hang shows whether run() returned. */
	fflush(stdout);
	gfec_rdma_server_free(server);
	if (ret) {
		fprintf(stderr, "gfec-rdma-server: %s\n", gfec_rdma_strerror(ret));
		return 1;
	}
	return 0;
bad:
	fprintf(stderr, "gfec-rdma-server: bad value '%s'\n", optarg);
	usage(stderr);
	return 2;
}
