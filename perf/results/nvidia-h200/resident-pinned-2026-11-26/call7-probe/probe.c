// Where a pinned 64 KiB RS(10,4) call spends its CPU (issue 17), one thread, no contention:
// cudaPointerGetAttributes and cudaStreamQuery(cudaStreamLegacy) alone, then gfec_encode on the
// resident engines and launched, with the 14 chunks in one allocation or in 14.
//   gcc -O2 -o probe probe.c -I plugin/include -L BUILD/plugin -lgfec -L /usr/local/cuda/lib64 -lcudart
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <cuda_runtime.h>
#include <gfec/gfec.h>

static double cpu(void)
{
	struct rusage u;
	getrusage(RUSAGE_SELF, &u);
	return u.ru_utime.tv_sec + u.ru_stime.tv_sec + 1e-6 * (u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}
static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + 1e-9 * t.tv_nsec;
}

static void run(const char *prof, int one, size_t len)
{
	gfec_codec *c;
	char err[256];
	uint8_t *p[14], *all = NULL;
	if (gfec_codec_create(prof, &c, err, sizeof err)) {
		fprintf(stderr, "%s\n", err);
		exit(1);
	}
	if (one)
		cudaHostAlloc((void **)&all, 14 * len, cudaHostAllocMapped);
	for (int i = 0; i < 14; i++) {
		if (one)
			p[i] = all + i * len;
		else
			cudaHostAlloc((void **)&p[i], len, cudaHostAllocMapped);
		memset(p[i], i, len);
	}
	for (int i = 0; i < 50; i++)
		gfec_encode(c, (const uint8_t *const *)p, p + 10, len);
	const int n = 3000;
	double c0 = cpu(), t0 = now();
	for (int i = 0; i < n; i++)
		if (gfec_encode(c, (const uint8_t *const *)p, p + 10, len))
			printf("error\n");
	double c1 = cpu(), t1 = now();
	struct gfec_stats st;
	gfec_codec_stats(c, &st);
	printf("%-58s %s: %6.1f us CPU a call, %6.1f us wall a call (fallbacks %llu)\n", prof,
	       one ? "one allocation" : "14 allocations", (c1 - c0) / n * 1e6, (t1 - t0) / n * 1e6,
	       (unsigned long long)st.fallbacks);
	if (one)
		cudaFreeHost(all);
	else
		for (int i = 0; i < 14; i++)
			cudaFreeHost(p[i]);
	gfec_codec_free(c);
}

int main(void)
{
	uint8_t *h;
	struct cudaPointerAttributes at;
	const int n = 100000;
	cudaHostAlloc((void **)&h, 1 << 20, cudaHostAllocMapped);
	double c0 = cpu();
	for (int i = 0; i < n; i++)
		cudaPointerGetAttributes(&at, h + (i % 1000) * 512);
	printf("cudaPointerGetAttributes (pinned): %.3f us CPU each\n", (cpu() - c0) / n * 1e6);
	c0 = cpu();
	for (int i = 0; i < n; i++)
		cudaStreamQuery(cudaStreamLegacy);
	printf("cudaStreamQuery(cudaStreamLegacy): %.3f us CPU each\n", (cpu() - c0) / n * 1e6);
	for (int one = 1; one >= 0; one--) {
		run("k=10 m=4 backend=gpu gpu_resident_pinned=32", one, 65536);
		run("k=10 m=4 backend=gpu gpu_resident_pinned=32 gpu_coalesce_slots=0", one, 65536);
		run("k=10 m=4 backend=gpu", one, 65536);
	}
	return 0;
}
