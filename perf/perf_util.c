/* SPDX-License-Identifier: BSD-3-Clause */
/** @file perf_util.c  What every perf program needs: clocks, random data, summaries, machine facts,
 *  command-line and JSON helpers. */
#include "perf_util.h"

#include <errno.h>
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

/* Size of cpu0's level-3 cache in bytes, 0 if sysfs does not say. */
size_t perf_l3_bytes(void)
{
	char path[128], text[64];
	size_t best = 0;

	for (int i = 0; i < 8; i++) {
		FILE *f;
		int level = 0;
		unsigned long long v = 0;
		char unit = 0;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%d", &level) != 1)
			level = 0;
		fclose(f);
		if (level != 3)
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(text, sizeof(text), f) && sscanf(text, "%llu%c", &v, &unit) >= 1) {
			if (unit == 'K')
				v <<= 10;
			else if (unit == 'M')
				v <<= 20;
			if (v > best)
				best = (size_t)v;
		}
		fclose(f);
	}
	return best;
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
