// Where the CPU of pinned 64 KiB RS(10,4) calls goes, by thread (issue 17): T caller threads
// call gfec_encode on their own pinned stripes for D seconds; the process's CPU is split into
// the callers' (RUSAGE_THREAD) and every other thread's (/proc/self/task/*/stat, by name).
//   gcc -O2 -pthread -o probe probe.c -I plugin/include -I gfmatrix/base/include -L BUILD/plugin -lgfec
//     -L /usr/local/cuda/lib64 -lcudart (one line)
//   ./probe PROFILE T LEN SECONDS
//   ./probe nanosleep T NS SECONDS    (T threads sleeping NS at a time: CPU and wall per sleep)
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <cuda_runtime.h>
#include <gfec/gfec.h>

#define MAXT 1024
static gfec_codec *codec;
static size_t len;
static volatile int go, stop;
static double caller_cpu[MAXT];
static long calls[MAXT];

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + 1e-9 * t.tv_nsec;
}
static double rus(int who)
{
	struct rusage u;
	getrusage(who, &u);
	return u.ru_utime.tv_sec + u.ru_stime.tv_sec + 1e-6 * (u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

struct task {
	int tid;
	char comm[32];
	double cpu;
};
static int tasks(struct task *t, int max)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;
	long hz = sysconf(_SC_CLK_TCK);
	while (d && (e = readdir(d)) && n < max) {
		char path[300], buf[512];
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "/proc/self/task/%s/stat", e->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		size_t r = fread(buf, 1, sizeof buf - 1, f);
		fclose(f);
		buf[r] = 0;
		char *a = strchr(buf, '('), *b = strrchr(buf, ')');
		if (!a || !b)
			continue;
		t[n].tid = atoi(e->d_name);
		snprintf(t[n].comm, sizeof t[n].comm, "%.*s", (int)(b - a - 1), a + 1);
		unsigned long ut, st;
		// fields after ')': state(3) ... utime(14) stime(15)
		if (sscanf(b + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
			continue;
		t[n].cpu = (double)(ut + st) / hz;
		n++;
	}
	if (d)
		closedir(d);
	return n;
}

static long sleep_ns;

static void *sleeper(void *arg)
{
	int id = (int)(long)arg;
	const struct timespec gap = { 0, sleep_ns };
	long n = 0;

	__atomic_fetch_add(&go, 1, __ATOMIC_SEQ_CST);
	while (go < 1000000)
		usleep(100);
	double c0 = rus(RUSAGE_THREAD);
	while (!stop) {
		nanosleep(&gap, NULL);
		n++;
	}
	caller_cpu[id] = rus(RUSAGE_THREAD) - c0;
	calls[id] = n;
	return NULL;
}

static void *caller(void *arg)
{
	int id = (int)(long)arg;
	uint8_t *all, *p[14];
	const int pinned = cudaHostAlloc((void **)&all, 14 * len, cudaHostAllocMapped) == cudaSuccess;

	if (!pinned && !(all = malloc(14 * len))) // no GPU: pageable, to try the probe
		abort();
	for (int i = 0; i < 14; i++) {
		p[i] = all + i * len;
		memset(p[i], i + id, len);
	}
	for (int i = 0; i < 20; i++)
		gfec_encode(codec, (const uint8_t *const *)p, p + 10, len);
	__atomic_fetch_add(&go, 1, __ATOMIC_SEQ_CST);
	while (go < 1000000)
		usleep(100);
	double c0 = rus(RUSAGE_THREAD);
	long n = 0;
	while (!stop) {
		if (gfec_encode(codec, (const uint8_t *const *)p, p + 10, len))
			abort();
		n++;
	}
	caller_cpu[id] = rus(RUSAGE_THREAD) - c0;
	calls[id] = n;
	if (pinned)
		cudaFreeHost(all);
	else
		free(all);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: probe PROFILE T LEN SECONDS\n");
		return 2;
	}
	char err[256] = "";
	int T = atoi(argv[2]);
	len = strtoul(argv[3], NULL, 0);
	double secs = atof(argv[4]);
	const int sleeping = !strcmp(argv[1], "nanosleep");

	if (sleeping)
		sleep_ns = (long)len;
	if (T < 1 || T > MAXT ||
	    (!sleeping && gfec_codec_create(argv[1], &codec, err, sizeof err))) {
		fprintf(stderr, "bad arguments: %s\n", err);
		return 2;
	}
	pthread_t th[MAXT];
	for (int i = 0; i < T; i++)
		pthread_create(&th[i], NULL, sleeping ? sleeper : caller, (void *)(long)i);
	while (go < T)
		usleep(1000);
	static struct task a[4096], b[4096];
	int na = tasks(a, 4096);
	double s0 = rus(RUSAGE_SELF), t0 = now();
	go = 1000000;
	usleep((useconds_t)(secs * 1e6));
	stop = 1;
	for (int i = 0; i < T; i++)
		pthread_join(th[i], NULL);
	double s1 = rus(RUSAGE_SELF), t1 = now();
	int nb = tasks(b, 4096);
	long n = 0;
	double cc = 0;
	for (int i = 0; i < T; i++)
		n += calls[i], cc += caller_cpu[i];
	double gb = (double)n * 10 * len / 1e9, el = t1 - t0;
	if (sleeping) {
		printf("nanosleep(%ld ns) T=%d: %.1f us wall a sleep, %.2f us CPU a sleep (callers), "
		       "%.2f (process)\n",
		       sleep_ns, T, el * T / n * 1e6, cc / n * 1e6, (s1 - s0) / n * 1e6);
		return 0;
	}
	printf("%s T=%d len=%zu: %.2f GB/s, %.0f calls/s; process %.4f CPU-s/GB (%.1f us a call), "
	       "callers %.4f (%.1f us a call)\n",
	       argv[1], T, len, gb / el, n / el, (s1 - s0) / gb, (s1 - s0) / n * 1e6, cc / gb,
	       cc / n * 1e6);
	// other threads: those alive at both ends (callers have exited), summed by name
	struct {
		char comm[32];
		double cpu;
		int n;
	} by[64];
	int nby = 0;
	for (int i = 0; i < nb; i++)
		for (int j = 0; j < na; j++)
			if (a[j].tid == b[i].tid) {
				int k;
				for (k = 0; k < nby && strcmp(by[k].comm, b[i].comm); k++)
					;
				if (k == nby && nby < 64) {
					snprintf(by[k].comm, sizeof by[k].comm, "%s", b[i].comm);
					by[k].cpu = 0, by[k].n = 0, nby++;
				}
				if (k < nby)
					by[k].cpu += b[i].cpu - a[j].cpu, by[k].n++;
			}
	for (int k = 0; k < nby; k++)
		printf("    other threads '%s' x%d: %.3f CPU-s (%.1f us a call)\n", by[k].comm, by[k].n,
		       by[k].cpu, by[k].cpu / n * 1e6);
	gfec_codec_free(codec);
	return 0;
}
