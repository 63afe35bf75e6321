/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file config.c
 * gfec.conf, read and written: the knobs that tuning changes without a code change. Its
 * sections and keys are the registry's (registry.c: [cpu] threads, path; [gpu] kernel,
 * min_bytes, device, streams, segment), plus [tune]:
 *
 *   # comment
 *   [gpu]
 *   kernel = nibble_rg1_t512     # a compiled kernel name (gfec info lists them)
 *   min_bytes = 4M               # backend=auto: GPU for calls with at least this much data
 *
 *   [tune]                       # written by `gfec tune`, NCCL tuner-table style: first match wins
 *   rule = nibble_rg1_t512 k=2-16 m=1-4 chunk=4096-1073741824   # 2570.1 GB/s, 2026-11-22
 *
 * Found as $GFEC_CONF, then ~/.config/gfec/gfec.conf, then /etc/gfec/gfec.conf (NCCL's order).
 * The environment and profile keys override it (registry.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gfec/gfec_limits.h"
#include "internal.h"

#define MAX_CONF (256 * 1024)
#define MAX_LINE 512

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

/* One line of a file, as the parser and the writer both see it. */
enum line_kind { LINE_BLANK, LINE_SECTION, LINE_PAIR, LINE_BAD };

struct conf_line {
	enum line_kind kind;
	char buf[MAX_LINE];
	char *key, *val; /* LINE_SECTION: key is the section's name */
};

/* Splits @p raw (one line, without its newline) into @p l; -1 when it is too long. */
static int split(const char *raw, size_t n, struct conf_line *l)
{
	char *s;

	if (n >= sizeof(l->buf))
		return -1;
	memcpy(l->buf, raw, n);
	l->buf[n] = '\0';
	l->key = l->val = NULL;
	s = strchr(l->buf, '#');
	if (s)
		*s = '\0';
	s = trim(l->buf);
	if (!*s) {
		l->kind = LINE_BLANK;
	} else if (*s == '[') {
		char *close = strchr(s, ']');

		l->kind = LINE_BAD;
		l->key = s;
		if (close && !close[1]) {
			*close = '\0';
			l->kind = LINE_SECTION;
			l->key = trim(s + 1);
		}
	} else if ((l->val = strchr(s, '=')) != NULL) {
		*l->val = '\0';
		l->kind = LINE_PAIR;
		l->key = trim(s);
		l->val = trim(l->val + 1);
	} else {
		l->kind = LINE_BAD;
		l->key = s;
	}
	return 0;
}

/* "A-B" or "A" as an inclusive range within [lo, hi]. */
static int range(char *v, long long lo, long long hi, long long *a, long long *b)
{
	char *dash = strchr(v, '-');

	if (dash)
		*dash = '\0';
	if (gfec_parse_number(v, lo, hi, a) || gfec_parse_number(dash ? dash + 1 : v, lo, hi, b))
		return -1;
	return *a > *b ? -1 : 0;
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
	snprintf(r->kernel, sizeof(r->kernel), "%.*s", (int)sizeof(r->kernel) - 1, kernel);
	if (range(kr, 1, GFEC_MAX_CHUNKS - 1, &a, &b))
		return -1;
	r->cols_min = (int)a, r->cols_max = (int)b;
	if (range(mr, 1, GFEC_MAX_CHUNKS - 1, &a, &b))
		return -1;
	r->rows_min = (int)a, r->rows_max = (int)b;
	if (range(cr, 0, 1ll << 50, &a, &b))
		return -1;
	r->len_min = (size_t)a, r->len_max = (size_t)b;
	return 0;
}

int gfec_config_parse(const char *text, const char *name, struct gfec_settings *s, char *err,
		      size_t errlen)
{
	struct gfec_settings *tmp = malloc(sizeof(*tmp));
	struct conf_line *l = malloc(sizeof(*l));
	char section[32] = "", where[GFEC_CONF_PATH_MAX + 16], expect[128];
	int line = 0, ret = 0, k;

	if (!tmp || !l) {
		free(tmp);
		free(l);
		snprintf(err, errlen, "%s: out of memory", name);
		return GFEC_E_NOMEM;
	}
	*tmp = *s;
	while (*text && !ret) {
		size_t n = strcspn(text, "\n");

		line++;
		if (split(text, n, l)) {
			ret = bad(err, errlen, name, line, "line too long");
			break;
		}
		text += n + (text[n] == '\n');
		switch (l->kind) {
		case LINE_BLANK:
			break;
		case LINE_BAD:
			if (l->key[0] == '[')
				ret = bad(err, errlen, name, line, "malformed section '%s'", l->key);
			else
				ret = bad(err, errlen, name, line, "expected key = value, got '%s'",
					  l->key);
			break;
		case LINE_SECTION:
			if (strlen(l->key) >= sizeof(section) || !gfec_conf_section(l->key))
				ret = bad(err, errlen, name, line, "unknown section [%s]", l->key);
			else
				snprintf(section, sizeof(section), "%s", l->key);
			break;
		case LINE_PAIR:
			if (!section[0]) {
				ret = bad(err, errlen, name, line, "'%s' is outside a [section]",
					  l->key);
			} else if (strcmp(section, "tune") == 0) {
				if (strcmp(l->key, "rule") != 0)
					ret = bad(err, errlen, name, line,
						  "unknown key '%s' in [tune]", l->key);
				else if (tmp->nrules == GFEC_MAX_TUNE_RULES)
					ret = bad(err, errlen, name, line, "more than %d rules",
						  GFEC_MAX_TUNE_RULES);
				else if (parse_rule(l->val, &tmp->rules[tmp->nrules]))
					ret = bad(err, errlen, name, line,
						  "rule: expected 'KERNEL k=A-B m=C-D chunk=E-F', "
						  "got '%s'",
						  l->val);
				else
					tmp->nrules++;
			} else if ((k = gfec_knob_by_file(section, l->key)) < 0) {
				ret = bad(err, errlen, name, line, "unknown key '%s' in [%s]", l->key,
					  section);
			} else {
				snprintf(where, sizeof(where), "%s:%d", name, line);
				if (gfec_knob_set(tmp, (enum gfec_knob)k, l->val, GFEC_FROM_FILE,
						  where))
					ret = bad(err, errlen, name, line, "%s: '%s' is not %s",
						  l->key, l->val,
						  gfec_knob_expect((enum gfec_knob)k, expect,
								   sizeof(expect)));
			}
			break;
		}
	}
	if (!ret)
		*s = *tmp;
	free(tmp);
	free(l);
	return ret;
}

/* 1 and the file's text when it exists and can be read; 0 when it does not exist. */
/*
 * Reads a config file of at most MAX_CONF bytes: 1 with *out set, 0 if it does not exist, -1
 * if it cannot be read, is too large or is not a regular file. Opened non-blocking so that a
 * FIFO or a device named by $GFEC_CONF cannot hang every codec creation.
 */
static int slurp(const char *path, char **out)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	char *buf;
	size_t n = 0;

	*out = NULL;
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > MAX_CONF) {
		close(fd);
		return -1;
	}
	buf = malloc(MAX_CONF + 1);
	if (!buf) {
		close(fd);
		return -1;
	}
	for (;;) {
		ssize_t r = read(fd, buf + n, MAX_CONF + 1 - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || (n += (size_t)r) > MAX_CONF) {
			close(fd);
			free(buf);
			return -1;
		}
		if (r == 0)
			break;
	}
	close(fd);
	buf[n] = '\0';
	*out = buf;
	return 1;
}

int gfec_config_load(struct gfec_settings *s, char *err, size_t errlen)
{
	char paths[3][GFEC_CONF_PATH_MAX], msg[GFEC_CONF_PATH_MAX + 128];
	const int n = gfec_conf_candidates(paths);

	gfec_settings_defaults(s);
	for (int i = 0; i < n; i++) {
		char *text;
		int r = slurp(paths[i], &text);

		if (r == 0)
			continue;
		if (r < 0) {
			gfec_log(GFEC_LOG_WARN, "%s: cannot be read; using built-in defaults",
				 paths[i]);
			break;
		}
		if (gfec_config_parse(text, paths[i], s, msg, sizeof(msg)))
			gfec_log(GFEC_LOG_WARN, "%s; using built-in defaults", msg);
		else
			gfec_log(GFEC_LOG_INFO, "config: %s", paths[i]);
		free(text);
		break;
	}
	return gfec_settings_env(s, err, errlen);
}

/* Appends printf output to a buffer of @p cap bytes that has room (the caller sized it). */
static void put(char *out, size_t cap, size_t *used, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void put(char *out, size_t cap, size_t *used, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(out + *used, cap - *used, fmt, ap);
	va_end(ap);
	if (n > 0)
		*used += (size_t)n < cap - *used ? (size_t)n : cap - *used - 1;
}

static void put_knob(char *out, size_t cap, size_t *used, const char *key, const char *value,
		     const char *comment)
{
	put(out, cap, used, "%s = %s%s%s\n", key, value, comment ? "   # " : "",
	    comment ? comment : "");
}

char *gfec_config_update(const char *old, enum gfec_knob k, const char *value,
			 const char *comment, const char *tune)
{
	const struct gfec_knob_def *d = &gfec_knobs[k];
	const size_t cap = strlen(old) + strlen(value) + (comment ? strlen(comment) : 0) +
			   (tune ? strlen(tune) : 0) + strlen(d->section) + strlen(d->key) + 64;
	char *out = malloc(cap), section[32] = "", err[256];
	struct conf_line *l = malloc(sizeof(*l));
	struct gfec_settings *check = malloc(sizeof(*check));
	size_t used = 0;
	int placed = 0;

	if (!out || !l || !check)
		goto fail;
	out[0] = '\0';
	for (const char *p = old; *p;) {
		const size_t n = strcspn(p, "\n");

		if (split(p, n, l))
			goto fail;
		if (l->kind == LINE_SECTION)
			snprintf(section, sizeof(section), "%s", l->key);
		/* drop [tune] (header and all) when replacing it, and the knob's old line */
		if (!(tune && strcmp(section, "tune") == 0) &&
		    !(l->kind == LINE_PAIR && strcmp(section, d->section) == 0 &&
		      strcmp(l->key, d->key) == 0)) {
			put(out, cap, &used, "%.*s\n", (int)n, p);
			if (l->kind == LINE_SECTION && !placed && strcmp(section, d->section) == 0) {
				put_knob(out, cap, &used, d->key, value, comment);
				placed = 1;
			}
		}
		p += n + (p[n] == '\n');
	}
	if (!placed) {
		put(out, cap, &used, "[%s]\n", d->section);
		put_knob(out, cap, &used, d->key, value, comment);
	}
	if (tune)
		put(out, cap, &used, "%s", tune);
	gfec_settings_defaults(check);
	if (gfec_config_parse(out, "update", check, err, sizeof(err)) ||
	    strcmp(check->v[k].text, value) != 0)
		goto fail;
	free(l);
	free(check);
	return out;
fail:
	free(out);
	free(l);
	free(check);
	return NULL;
}
