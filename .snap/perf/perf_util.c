/* SPDX-License-Identifier: BSD-3-Clause */
/** @file perf_util.c  What every perf program needs: clocks, random data, summaries, machine facts,
 *  command-line and JSON helpers. */
#include "perf_util.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <gfec/gfec_config.h>

double perf_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

uint64_t perf_xorshift(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

void perf_fill_random(uint8_t *p, size_t n, uint64_t seed)
{
	uint64_t s = seed ? seed : 1, v;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		v = perf_xorshift(&s);
		memcpy(p + i, &v, 8);
	}
	v = perf_xorshift(&s);
	for (; i < n; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

void perf_fmt_size(char *buf, size_t len, size_t bytes)
{
	if (bytes >= (1u << 30) && bytes % (1u << 30) == 0)
		snprintf(buf, len, "%zuG", bytes >> 30);
	else if (bytes >= (1u << 20) && bytes % (1u << 20) == 0)
		snprintf(buf, len, "%zuM", bytes >> 20);
	else if (bytes >= (1u << 10) && bytes % (1u << 10) == 0)
		snprintf(buf, len, "%zuK", bytes >> 10);
	else
		snprintf(buf, len, "%zu", bytes);
}

int perf_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct perf_summary perf_summarise(const double *v, int n)
{
	struct perf_summary s = { 0 };
	double *t = malloc((size_t)n * sizeof(*t));

	if (!t || n < 1) {
		free(t);
		return s;
	}
	memcpy(t, v, (size_t)n * sizeof(*t));
	qsort(t, (size_t)n, sizeof(*t), perf_cmp_double);
	s.min = t[0];
	s.max = t[n - 1];
	s.median = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
	s.spread = s.median > 0 ? (s.max - s.min) / s.median : 0;
	free(t);
	return s;
}

void perf_cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) != 0 || !colon)
			continue;
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(buf, len, "%s", colon);
		break;
	}
	fclose(f);
}

/* "@p dir/@p name" into @p path (PATH_MAX bytes): 0, or -1 where it does not fit. */
static int join(char *path, const char *dir, const char *name)
{
	int n = snprintf(path, PATH_MAX, "%s/%s", dir, name);

	return n < 0 || n >= PATH_MAX ? -1 : 0;
}

/* @p dir/@p name's first line into @p buf, without its newline: 0, or -1 where unreadable. */
static int read_line(const char *dir, const char *name, char *buf, size_t len)
{
	char path[PATH_MAX];
	FILE *f;
	int ret = -1;

	if (join(path, dir, name))
		return -1;
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fgets(buf, (int)len, f)) {
		buf[strcspn(buf, "\n")] = '\0';
		ret = 0;
	}
	fclose(f);
	return ret;
}

/* The size of cache @p dir (.../cpuN/cache/indexI) in bytes if it is a unified level-3 cache,
 * else 0. A missing type file is taken as unified (level 3 is, on every CPU sysfs describes). */
static size_t l3_size(const char *dir)
{
	char text[64];
	unsigned long long v = 0;
	char unit = 0;

	if (read_line(dir, "level", text, sizeof(text)) || strcmp(text, "3") != 0)
		return 0;
	if (!read_line(dir, "type", text, sizeof(text)) && strcmp(text, "Unified") != 0)
		return 0;
	if (read_line(dir, "size", text, sizeof(text)) || sscanf(text, "%llu%c", &v, &unit) < 1)
		return 0;
	if (unit == 'K')
		v <<= 10;
	else if (unit == 'M')
		v <<= 20;
	else if (unit == 'G')
		v <<= 30;
	return (size_t)v;
}

/*
 * Each distinct L3 once: cpuN/cache/indexI of every CPU that shares it describes it again, with
 * the same shared_cpu_list. Two sockets or AMD's CCXs have several, and cpu0 sees one of them.
 * When no shared_cpu_list can be read, cpu0's largest L3 (what this returned before).
 */
size_t perf_l3_bytes_at(const char *cpu_root)
{
	char path[PATH_MAX], list[4096];
	char **seen = NULL;
	size_t nseen = 0, total = 0, cpu0 = 0;
	DIR *cpus = opendir(cpu_root);
	struct dirent *c;

	while (cpus && (c = readdir(cpus))) {
		DIR *caches;
		struct dirent *x;
		int n;

		if (strncmp(c->d_name, "cpu", 3) != 0 || !c->d_name[3] ||
		    strspn(c->d_name + 3, "0123456789") != strlen(c->d_name + 3))
			continue;
		n = snprintf(path, sizeof(path), "%s/%s/cache", cpu_root, c->d_name);
		if (n < 0 || n >= (int)sizeof(path))
			continue;
		caches = opendir(path);
		while (caches && (x = readdir(caches))) {
			char dir[PATH_MAX];
			size_t size, i;
			char **grown;

			if (strncmp(x->d_name, "index", 5) != 0 || join(dir, path, x->d_name))
				continue;
			size = l3_size(dir);
			if (!size)
				continue;
			if (strcmp(c->d_name, "cpu0") == 0 && size > cpu0)
				cpu0 = size;
			if (read_line(dir, "shared_cpu_list", list, sizeof(list)))
				continue;
			for (i = 0; i < nseen && strcmp(seen[i], list) != 0; i++)
				;
			if (i < nseen)
				continue;
			/* Out of memory, an L3 goes uncounted: a smaller rotation, no failure. */
			grown = realloc(seen, (nseen + 1) * sizeof(*seen));
			if (!grown)
				continue;
			seen = grown;
			seen[nseen] = strdup(list);
			if (!seen[nseen])
				continue;
			nseen++;
			total += size;
		}
		if (caches)
			closedir(caches);
	}
	if (cpus)
		closedir(cpus);
	for (size_t i = 0; i < nseen; i++)
		free(seen[i]);
	free(seen);
	return total ? total : cpu0;
}

size_t perf_l3_bytes(void)
{
	return perf_l3_bytes_at("/sys/devices/system/cpu");
}

int perf_parse_long(const char *s, long lo, long hi, long *out)
{
	long long v;

	if (gfec_parse_number(s, lo, hi, &v))
		return -1;
	*out = (long)v;
	return 0;
}

int perf_parse_size(const char *s, size_t *out)
{
	long long v;

	/* ISA-L takes an int length. */
	if (gfec_parse_number(s, 1, 0x7fffffff, &v))
		return -1;
	*out = (size_t)v;
	return 0;
}

/* Appends to buf (size len, NUL-terminated), silently truncating. */
static void append(char *buf, size_t len, size_t *pos, const char *s)
{
	size_t n = strlen(s);

	if (*pos + 1 >= len)
		return;
	if (n > len - 1 - *pos)
		n = len - 1 - *pos;
	memcpy(buf + *pos, s, n);
	*pos += n;
	buf[*pos] = '\0';
}

/* The command line, quoted for a POSIX shell where needed. */
void perf_command_line(int argc, char **argv, char *buf, size_t len)
{
	static const char plain_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
					  "0123456789_./,:=+-@%";
	size_t pos = 0;

	buf[0] = '\0';
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		bool plain = a[0] != '\0' && strspn(a, plain_chars) == strlen(a);

		if (i)
			append(buf, len, &pos, " ");
		if (plain) {
			append(buf, len, &pos, a);
			continue;
		}
		append(buf, len, &pos, "'");
		for (const char *p = a; *p; p++) {
			char one[2] = { *p, '\0' };

			append(buf, len, &pos, *p == '\'' ? "'\\''" : one);
		}
		append(buf, len, &pos, "'");
	}
}

json_t *perf_json_machine(void)
{
	json_t *m = json_object();
	struct utsname u;
	char cpu[128];

	if (uname(&u) != 0)
		memset(&u, 0, sizeof(u));
	perf_cpu_model(cpu, sizeof(cpu));
	json_object_set_new(m, "cpu_model", json_string(cpu));
	json_object_set_new(m, "cpus", json_integer(sysconf(_SC_NPROCESSORS_ONLN)));
	json_object_set_new(m, "l3_bytes", json_integer((json_int_t)perf_l3_bytes()));
	json_object_set_new(m, "kernel", json_string(u.release));
	return m;
}

int perf_json_write(const char *path, const json_t *doc)
{
	FILE *f = fopen(path, "w");
	int ret = 0;

	if (!f)
		return -errno;
	errno = 0;
	if (json_dumpf(doc, f, JSON_INDENT(1) | JSON_REAL_PRECISION(7)) != 0 ||
	    fputc('\n', f) == EOF || ferror(f))
		ret = errno ? -errno : -EIO;
	if (fclose(f) != 0 && !ret)
		ret = -errno;
	return ret;
}
