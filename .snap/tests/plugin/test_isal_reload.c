/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_isal_reload.c
 * liberasurecode dlopens and dlcloses libisal.so.2 several times in one process; this does it
 * N times, with work in between, the way both clients open it (liberasurecode: RTLD_LOCAL,
 * Hadoop: RTLD_GLOBAL, in turn). Each cycle four threads make their first calls at the same
 * moment (the lazy start of the real ISA-L and of the GPU races), encode, update, lose m chunks
 * and decode them, and check the data. After each dlclose both the drop-in and the real ISA-L it
 * loaded must be gone from the process, and resident memory may not grow by more than 8 MiB
 * between the tenth cycle and the last. test_isal_reload.sh also runs this under valgrind for 10
 * and 100 cycles and requires the same leak totals for both.
 *
 * With --gpu (a GPU is present and GFEC_ISAL_GPU_MIN=0), the drop-in pins itself once the GPU
 * has started (engine.c): from then on it must stay loaded, and the memory check still holds.
 *
 * usage: test_isal_reload path/to/gfec/libisal.so.2 cycles [--gpu]
 */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REAL_PATH "/usr/lib/x86_64-linux-gnu/libisal.so.2.0.30"
#define THREADS 4
#define K 10
#define M 4
#define LEN (64 * 1024 + 3)
/* Resident memory is compared between the end of cycle RSS_FROM + 1 and the end. */
#define RSS_FROM 9
#define RSS_SLACK_KIB (8 * 1024)

struct isal {
	void (*gf_gen_cauchy1_matrix)(unsigned char *, int, int);
	int (*gf_invert_matrix)(unsigned char *, unsigned char *, const int);
	void (*ec_init_tables)(int, int, unsigned char *, unsigned char *);
	void (*ec_encode_data)(int, int, int, unsigned char *, unsigned char **, unsigned char **);
	void (*ec_encode_data_update)(int, int, int, int, unsigned char *, unsigned char *,
				      unsigned char **);
};

static struct isal isal;
static pthread_barrier_t start;

/* Encode, lose chunks 0..M-1 (data), decode them from the rest; 0 when all comes back. */
static int round_trip(unsigned seed)
{
	unsigned char a[(K + M) * K], b[K * K], inv[K * K], tbls[32 * K * M];
	unsigned char *chunk[K + M], *lost[M], *src[K], *delta;
	int ret = -1;

	for (int i = 0; i < K + M; i++)
		chunk[i] = malloc(LEN);
	for (int i = 0; i < M; i++)
		lost[i] = malloc(LEN);
	delta = malloc(LEN);
	for (int i = 0; i < K + M; i++)
		if (!chunk[i])
			goto out;
	for (int i = 0; i < M; i++)
		if (!lost[i])
			goto out;
	if (!delta)
		goto out;
	for (int i = 0; i < K; i++)
		for (int j = 0; j < LEN; j++)
			chunk[i][j] = (unsigned char)(seed * 31 + i * 7 + j * 13 + (j >> 8));

	isal.gf_gen_cauchy1_matrix(a, K + M, K);
	isal.ec_init_tables(K, M, a + K * K, tbls);
	isal.ec_encode_data(LEN, K, M, tbls, chunk, chunk + K);

	/* A partial write to data chunk 3: update the parity with old ^ new. */
	for (int j = 0; j < LEN; j++) {
		const unsigned char nv = (unsigned char)(chunk[3][j] + 1);

		delta[j] = chunk[3][j] ^ nv;
		chunk[3][j] = nv;
	}
	isal.ec_encode_data_update(LEN, K, M, 3, tbls, delta, chunk + K);

	/* Sources: chunks M..K+M-1; the decode matrix is the inverse of their rows. */
	for (int i = 0; i < K; i++) {
		memcpy(b + i * K, a + (M + i) * K, K);
		src[i] = chunk[M + i];
	}
	if (isal.gf_invert_matrix(b, inv, K) != 0)
		goto out;
	isal.ec_init_tables(K, M, inv, tbls);
	isal.ec_encode_data(LEN, K, M, tbls, src, lost);
	ret = 0;
	for (int i = 0; i < M; i++)
		ret |= memcmp(lost[i], chunk[i], LEN);
out:
	for (int i = 0; i < K + M; i++)
		free(chunk[i]);
	for (int i = 0; i < M; i++)
		free(lost[i]);
	free(delta);
	return ret ? -1 : 0;
}

static void *worker(void *arg)
{
	pthread_barrier_wait(&start);
	return (void *)(intptr_t)round_trip((unsigned)(uintptr_t)arg);
}

static int load(void *h)
{
	*(void **)&isal.gf_gen_cauchy1_matrix = dlsym(h, "gf_gen_cauchy1_matrix");
	*(void **)&isal.gf_invert_matrix = dlsym(h, "gf_invert_matrix");
	*(void **)&isal.ec_init_tables = dlsym(h, "ec_init_tables");
	*(void **)&isal.ec_encode_data = dlsym(h, "ec_encode_data");
	*(void **)&isal.ec_encode_data_update = dlsym(h, "ec_encode_data_update");
	return isal.gf_gen_cauchy1_matrix && isal.gf_invert_matrix && isal.ec_init_tables &&
	       isal.ec_encode_data && isal.ec_encode_data_update;
}

/* Resident set size in KiB, from /proc/self/status; 0 when unknown. */
static long rss_kib(void)
{
	char line[256];
	long kib = 0;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

static int still_loaded(const char *path)
{
	void *h = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);

	if (h)
		dlclose(h);
	return h != NULL;
}

/* One cycle's work: THREADS round trips that start together; 0 when all came back intact. */
static int cycle(int c)
{
	pthread_t th[THREADS];
	int bad = 0;

	if (pthread_barrier_init(&start, NULL, THREADS))
		return -1;
	for (int t = 0; t < THREADS; t++)
		if (pthread_create(&th[t], NULL, worker, (void *)(uintptr_t)(c * THREADS + t)))
			return -1;
	for (int t = 0; t < THREADS; t++) {
		void *r;

		pthread_join(th[t], &r);
		bad |= (int)(intptr_t)r;
	}
	pthread_barrier_destroy(&start);
	return bad;
}

int main(int argc, char **argv)
{
	/* Under ASan the drop-in cannot use RTLD_DEEPBIND; an RTLD_GLOBAL load then stays. */
	const int asan = dlsym(RTLD_DEFAULT, "__asan_init") != NULL;
	/* Under valgrind (its preload library is in LD_PRELOAD) the RSS is mostly valgrind's. */
	const char *preload = getenv("LD_PRELOAD");
	const int valgrind = preload && strstr(preload, "vgpreload");
	const int gpu = argc == 4;
	long rss_first = 0, rss;
	int cycles, pinned = 0;

	if (argc < 3 || argc > 4 || (cycles = atoi(argv[2])) < 1 ||
	    (gpu && strcmp(argv[3], "--gpu") != 0)) {
		fprintf(stderr, "usage: %s path/to/gfec/libisal.so.2 cycles [--gpu]\n", argv[0]);
		return 2;
	}
	if (asan)
		printf("AddressSanitizer: RTLD_LOCAL cycles only, no RSS check\n");
	for (int c = 0; c < cycles; c++) {
		const int global = c % 2 && !asan;
		void *h = dlopen(argv[1], RTLD_LAZY | (global ? RTLD_GLOBAL : RTLD_LOCAL));

		if (!h || !load(h)) {
			fprintf(stderr, "cycle %d: cannot load %s: %s\n", c, argv[1], dlerror());
			return 1;
		}
		const int bad = cycle(c);

		dlclose(h);
		if (bad) {
			fprintf(stderr, "cycle %d: %s\n", c,
				bad < 0 ? "cannot start threads" : "decoded data differs");
			return 1;
		}
		if (gpu && (pinned || still_loaded(argv[1]))) {
			if (!still_loaded(argv[1])) {
				fprintf(stderr, "cycle %d: the pinned drop-in was unloaded\n", c);
				return 1;
			}
			pinned = 1;
		} else if (still_loaded(argv[1]) || still_loaded(REAL_PATH)) {
			fprintf(stderr, "cycle %d: a library is still loaded after dlclose\n", c);
			return 1;
		}
		if (c == RSS_FROM)
			rss_first = rss_kib();
	}
	rss = rss_kib();
	printf("%d load/use/unload cycles, %d threads each: data intact, %s; RSS %ld KiB after "
	       "cycle %d, %ld KiB at the end\n",
	       cycles, THREADS,
	       pinned ? "the drop-in pinned itself (GPU started)" : "nothing left loaded",
	       rss_first, RSS_FROM + 1, rss);
	/* One cycle allocates over 1 MiB (chunks, tables, a GPU context's host side). */
	if (!valgrind && !asan && cycles > RSS_FROM + 1 && rss_first &&
	    rss - rss_first > RSS_SLACK_KIB) {
		fprintf(stderr, "RSS grew by %ld KiB over %d cycles\n", rss - rss_first,
			cycles - RSS_FROM - 1);
		return 1;
	}
	return 0;
}
