/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file config.c
 * gfec.conf: the knobs that tuning changes without a code change.
 *
 *   # comment
 *   [gpu]
 *   kernel = nibble_rg1_t512     # a compiled kernel name (gfec info lists them)
 *   min_bytes = 4194304          # backend=auto: GPU for calls with at least this much data
 *   device = 0
 *   streams = 3                  # host pipeline depth
 *   segment = 67108864           # staging bytes per pipeline slot
 *
 *   [tune]                       # written by `gfec tune`, NCCL tuner-table style: first match wins
 *   rule = nibble_rg1_t512 k=2-16 m=1-4 chunk=4096-1073741824   # 2570.1 GB/s, 2026-11-22
 *
 * Found as $GFEC_CONF, then ~/.config/gfec/gfec.conf, then /etc/gfec/gfec.conf (NCCL's order).
 * Profile keys gpu_kernel, gpu_min_bytes, gpu_device, gpu_streams, gpu_segment override it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define MAX_CONF (256 * 1024)

static int bad(char *err, size_t errlen, const char *name, int line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int bad(char *err, size_t errlen, const char *name, int line, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(err, errlen, "%s:%d: ", name, line);

	if (n >= 0 && (size_t)n < errlen) {
		va_start(ap, fmt);
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return GFEC_E_PROFILE;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

/* "A-B" or "A" as an inclusive range within [lo, hi]. */
static int range(const char *v, long long lo, long long hi, long long *a, long long *b)
{
	char *end;

	errno = 0;
	*a = strtoll(v, &end, 10);
	if (end == v || errno)
		return -1;
	if (*end == '-') {
		const char *w = end + 1;

		*b = strtoll(w, &end, 10);
		if (end == w || errno)
			return -1;
	} else {
		*b = *a;
	}
	return *end || *a < lo || *b > hi || *a > *b ? -1 : 0;
}

/* "KERNEL k=A-B m=C-D chunk=E-F" (every field required, in this order). */
static int parse_rule(const char *v, struct gfec_tune_rule *r)
{
	char kernel[64], kr[64], mr[64], cr[64], extra[8];
	long long a, b;

	if (sscanf(v, "%63s k=%63s m=%63s chunk=%63s %7s", kernel, kr, mr, cr, extra) != 4 ||
	    strlen(kernel) >= sizeof(r->kernel))
		return -1;
	memset(r, 0, sizeof(*r));
	snprintf(r->kernel, sizeof(r->kernel), "%s", kernel);
	if (range(kr, 1, 255, &a, &b))
		return -1;
	r->cols_min = (int)a, r->cols_max = (int)b;
	if (range(mr, 1, 255, &a, &b))
		return -1;
	r->rows_min = (int)a, r->rows_max = (int)b;
	if (range(cr, 0, 1ll << 50, &a, &b))
		return -1;
	r->len_min = (size_t)a, r->len_max = (size_t)b;
	return 0;
}

int gfec_config_parse(const char *text, const char *name, struct gfec_profile *p, char *err,
		      size_t errlen)
{
	struct gfec_profile tmp = *p;
	char section[32] = "";
	int line = 0;

	while (*text) {
		char buf[512], *s, *eq, *key, *val;
		size_t n = strcspn(text, "\n");
		long long x;

		line++;
		if (n >= sizeof(buf))
			return bad(err, errlen, name, line, "line too long");
		memcpy(buf, text, n);
		buf[n] = '\0';
		text += n + (text[n] == '\n');
		s = strchr(buf, '#');
		if (s)
			*s = '\0';
		s = trim(buf);
		if (!*s)
			continue;
		if (*s == '[') {
			char *close = strchr(s, ']');

			if (!close || close[1] || close - s - 1 >= (long)sizeof(section))
				return bad(err, errlen, name, line, "malformed section '%s'", s);
			*close = '\0';
			snprintf(section, sizeof(section), "%s", trim(s + 1));
			if (strcmp(section, "gpu") != 0 && strcmp(section, "tune") != 0)
				return bad(err, errlen, name, line, "unknown section [%s]", section);
			continue;
		}
		eq = strchr(s, '=');
		if (!eq)
			return bad(err, errlen, name, line, "expected key = value, got '%s'", s);
		*eq = '\0';
		key = trim(s);
		val = trim(eq + 1);
		if (!section[0])
			return bad(err, errlen, name, line, "'%s' is outside a [section]", key);
		if (strcmp(section, "tune") == 0) {
			if (strcmp(key, "rule") != 0)
				return bad(err, errlen, name, line, "unknown key '%s' in [tune]", key);
			if (tmp.nrules == GFEC_MAX_TUNE_RULES)
				return bad(err, errlen, name, line, "more than %d rules",
					   GFEC_MAX_TUNE_RULES);
			if (parse_rule(val, &tmp.rules[tmp.nrules]))
				return bad(err, errlen, name, line,
					   "rule: expected 'KERNEL k=A-B m=C-D chunk=E-F', got '%s'",
					   val);
			tmp.nrules++;
			continue;
		}
		if (strcmp(key, "kernel") == 0) {
			if (!*val || strlen(val) >= sizeof(tmp.gpu_kernel))
				return bad(err, errlen, name, line, "kernel: bad name '%s'", val);
			snprintf(tmp.gpu_kernel, sizeof(tmp.gpu_kernel), "%s", val);
		} else if (strcmp(key, "min_bytes") == 0) {
			if (gfec_parse_ll(val, 0, 1ll << 50, &x))
				return bad(err, errlen, name, line, "min_bytes: not a size: '%s'", val);
			tmp.gpu_min_bytes = x;
		} else if (strcmp(key, "device") == 0) {
			if (gfec_parse_ll(val, 0, 64, &x))
				return bad(err, errlen, name, line, "device: not 0..64: '%s'", val);
			tmp.gpu_device = (int)x;
		} else if (strcmp(key, "streams") == 0) {
			if (gfec_parse_ll(val, 1, 8, &x))
				return bad(err, errlen, name, line, "streams: not 1..8: '%s'", val);
			tmp.gpu_streams = (int)x;
		} else if (strcmp(key, "segment") == 0) {
			if (gfec_parse_ll(val, 4096, 1ll << 34, &x))
				return bad(err, errlen, name, line, "segment: not 4096..2^34: '%s'",
					   val);
			tmp.gpu_segment = x;
		} else {
			return bad(err, errlen, name, line, "unknown key '%s' in [%s]", key, section);
		}
	}
	*p = tmp;
	return 0;
}

/* 1 and the file's text when it exists and can be read; 0 when it does not exist. */
static int slurp(const char *path, char **out)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	size_t n;

	*out = NULL;
	if (!f)
		return errno == ENOENT ? 0 : -1;
	buf = malloc(MAX_CONF + 1);
	if (!buf) {
		fclose(f);
		return -1;
	}
	n = fread(buf, 1, MAX_CONF + 1, f);
	fclose(f);
	if (n > MAX_CONF) {
		free(buf);
		return -1;
	}
	buf[n] = '\0';
	*out = buf;
	return 1;
}

void gfec_config_load(struct gfec_profile *p)
{
	char path[1024], err[512];
	const char *env = getenv("GFEC_CONF"), *home = getenv("HOME");
	const char *cands[3];
	int n = 0;

	if (env && *env)
		cands[n++] = env;
	if (home && *home) {
		snprintf(path, sizeof(path), "%s/.config/gfec/gfec.conf", home);
		cands[n++] = path;
	}
	cands[n++] = "/etc/gfec/gfec.conf";
	for (int i = 0; i < n; i++) {
		char *text;
		int r = slurp(cands[i], &text);

		if (r == 0)
			continue;
		if (r < 0) {
			gfec_log(GFEC_LOG_WARN, "%s: cannot be read; using built-in defaults",
				 cands[i]);
			return;
		}
		if (gfec_config_parse(text, cands[i], p, err, sizeof(err)))
			gfec_log(GFEC_LOG_WARN, "%s; using built-in defaults", err);
		else
			gfec_log(GFEC_LOG_INFO, "config: %s", cands[i]);
		free(text);
		return;
	}
}
