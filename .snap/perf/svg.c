/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file svg.c
 * The SVG writer behind svg.h. It exists so that gfec-perf can draw its figures on the host that
 * measured them without Python or gnuplot; it is kept small rather than general: two chart
 * kinds, a fixed layout, and just enough label placement that a typical roofline reads well.
 *
 * The document is built in memory and written with one fwrite(), so an I/O error is reported
 * once, and a half-built chart is never left behind by an error inside the writer itself.
 *
 * Layout (pixels, y down), both charts:
 *
 *   +--------------------------------------------------+
 *   |                     title                        |
 *   |  y   +------------------------------------+      |
 *   |  t   |                                    |      |
 *   |  i   |          plot box (struct box)     |      |
 *   |  c   |                                    |      |
 *   |  k   +------------------------------------+      |
 *   |          x ticks,  x axis title                  |
 *   |  legend / footnote lines                         |
 *   +--------------------------------------------------+
 */
#define _POSIX_C_SOURCE 200809L /* newlocale/uselocale */

#include "svg.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WIDTH 900
#define HEIGHT 600
#define FONT "DejaVu Sans, Verdana, Arial, Helvetica, sans-serif"
/* Mean advance of a character as a fraction of the font size, for mixed text in the sans-serif
 * fonts above. Only used to keep labels apart and inside the plot, so an estimate will do. */
#define CHAR_W 0.62
#define TITLE_SIZE 18
#define TICK_SIZE 12
#define LABEL_SIZE 11
#define FOOT_SIZE 12
#define FOOT_LINE 16
#define FOOT_X 20.0
#define NOTE_LINES 4
#define POINT_R 5.0
/* Markers are given this much room (in decades) before a range is rounded out to whole decades,
 * so that none sits on the frame. */
#define PAD_DECADES 0.05
/* Minor (2..9) gridlines only while they stay a few pixels apart. */
#define MINOR_MAX_DECADES 8
#define MAX_MAJOR_TICKS 12
#define INK "#222222"
#define GRID "#e6e6e6"
#define GRID_MINOR "#f3f3f3"
/* M_PI is X/Open, not C11. */
#define PI 3.14159265358979323846

/* Okabe & Ito's colour-blind-safe palette without its yellow, which is too pale on white. Past
 * the colours, the dash pattern changes, so series stay apart in greyscale prints too. */
static const char *const palette[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
				      "#E69F00", "#56B4E9", "#000000"};
/* The same hues darkened to a 4.5:1 contrast on white (WCAG AA), for text in a series' colour. */
static const char *const palette_text[] = {"#0072B2", "#BF5400", "#008460", "#9F5E82",
					   "#9C6C00", "#3A7A9E", "#000000"};
static const char *const dashes[] = {NULL, "8 4", "2 3", "10 3 2 3"};
#define NPALETTE ((int)(sizeof(palette) / sizeof(palette[0])))
#define NDASHES ((int)(sizeof(dashes) / sizeof(dashes[0])))

/* ---- growable output buffer ------------------------------------------------------------- */

struct sbuf {
	char *p;
	size_t len, cap;
	int err; /* first error (negative errno); once set, writes are dropped */
};

static bool sb_reserve(struct sbuf *b, size_t more)
{
	size_t cap;
	char *p;

	if (b->err)
		return false;
	if (b->len + more + 1 <= b->cap)
		return true;
	cap = b->cap ? b->cap : 16384;
	while (cap < b->len + more + 1)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p) {
		b->err = -ENOMEM;
		return false;
	}
	b->p = p;
	b->cap = cap;
	return true;
}

static void sb_put(struct sbuf *b, const char *s, size_t n)
{
	if (!sb_reserve(b, n))
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void sb_puts(struct sbuf *b, const char *s)
{
	sb_put(b, s, strlen(s));
}

__attribute__((format(printf, 2, 3))) static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!sb_reserve(b, 256))
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->err = -EINVAL;
		return;
	}
	if ((size_t)n >= b->cap - b->len) {
		if (!sb_reserve(b, (size_t)n))
			return;
		va_start(ap, fmt);
		vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
}

/* ---- text: UTF-8, escaping, widths ------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at @p p that XML 1.0 accepts as a character, or 0. */
static int utf8_seq(const unsigned char *p)
{
	unsigned int cp;
	int n, i;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		n = 2;
		cp = p[0] & 0x1f;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		n = 3;
		cp = p[0] & 0x0f;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		n = 4;
		cp = p[0] & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80) /* also stops at the terminating NUL */
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if (n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff) || cp >= 0xfffe))
		return 0;
	if (n == 4 && (cp < 0x10000 || cp > 0x10ffff))
		return 0;
	return n;
}

/* Bytes of the character at @p p as the escaper will consume them (an invalid byte is one). */
static size_t char_bytes(const char *p)
{
	int n = utf8_seq((const unsigned char *)p);

	return n ? (size_t)n : 1;
}

/* Characters in the first @p nbytes of @p s (nbytes may be (size_t)-1: up to the NUL). */
static int count_chars(const char *s, size_t nbytes)
{
	size_t i = 0;
	int n = 0;

	while (i < nbytes && s[i]) {
		i += char_bytes(s + i);
		n++;
	}
	return n;
}

/* Estimated width in pixels of @p nchars characters at font size @p size. */
static double text_w(int nchars, double size)
{
	return nchars * CHAR_W * size;
}

/*
 * Appends the first @p nbytes of @p s as XML character data, escaped, shortened to @p maxchars
 * characters (the last one becoming an ellipsis) when longer. Escaping all five specials makes
 * the same text safe inside attribute values too.
 */
static void sb_text_n(struct sbuf *b, const char *s, size_t nbytes, int maxchars)
{
	int total, shown = 0;
	size_t i = 0;

	if (!s)
		return;
	total = count_chars(s, nbytes);
	while (i < nbytes && s[i]) {
		unsigned char c = (unsigned char)s[i];
		int n = utf8_seq((const unsigned char *)s + i);

		if (total > maxchars && shown == maxchars - 1) {
			sb_puts(b, "\xe2\x80\xa6"); /* U+2026 ellipsis */
			return;
		}
		if (!n) {
			sb_puts(b, "\xef\xbf\xbd"); /* U+FFFD replacement character */
			i++;
		} else if (n > 1) {
			sb_put(b, s + i, (size_t)n);
			i += (size_t)n;
		} else {
			switch (c) {
			case '&':
				sb_puts(b, "&amp;");
				break;
			case '<':
				sb_puts(b, "&lt;");
				break;
			case '>':
				sb_puts(b, "&gt;");
				break;
			case '"':
				sb_puts(b, "&quot;");
				break;
			case '\'':
				sb_puts(b, "&apos;");
				break;
			default:
				/* XML 1.0 forbids most C0 controls even as references. */
				sb_put(b, c < 0x20 || c == 0x7f ? " " : s + i, 1);
			}
			i++;
		}
		shown++;
	}
}

static void sb_text(struct sbuf *b, const char *s, int maxchars)
{
	sb_text_n(b, s, (size_t)-1, maxchars);
}

static int shown_chars(const char *s, int maxchars)
{
	int n = s ? count_chars(s, (size_t)-1) : 0;

	return n < maxchars ? n : maxchars;
}

/* A line of wrapped text: @c n bytes at @c s. */
struct span {
	const char *s;
	size_t n;
};

/*
 * Breaks @p s into at most @p max lines of at most @p width characters, at spaces where it can
 * and at '\n' always. Returns the number of lines; *@p cut is set when text was left over.
 */
static int wrap(const char *s, int width, struct span *lines, int max, bool *cut)
{
	int nl = 0;

	*cut = false;
	if (!s)
		return 0;
	while (*s) {
		const char *q = s, *space = NULL;
		int chars = 0;

		if (nl == max) {
			*cut = true;
			break;
		}
		while (*q && *q != '\n' && chars < width) {
			if (*q == ' ')
				space = q;
			q += char_bytes(q);
			chars++;
		}
		if (*q && *q != '\n' && *q != ' ' && space && space > s) {
			/* Too long: break at the last space (a long word is split instead). */
			q = space;
		}
		lines[nl].s = s;
		lines[nl].n = (size_t)(q - s);
		nl++;
		s = q;
		if (*s == '\n' || *s == ' ')
			s++;
	}
	return nl;
}

/* ---- numbers ----------------------------------------------------------------------------- */

static bool usable(double v)
{
	return isfinite(v) && v > 0;
}

/* 10^e as a tick label: "0.01", "1", "100", "1k", "10G", or "1e30" out of the SI prefixes. */
static void fmt_decade(char *buf, size_t len, int e)
{
	static const char mant[3][4] = {"1", "10", "100"};
	static const char si[] = "kMGTPEZY";

	if (e >= 0 && e < 3)
		snprintf(buf, len, "%s", mant[e]);
	else if (e >= 3 && e < 27)
		snprintf(buf, len, "%s%c", mant[e % 3], si[e / 3 - 1]);
	else if (e < 0 && e >= -3)
		snprintf(buf, len, "0.%.*d1", -e - 1, 0); /* precision n of 0 prints n zeros */
	else
		snprintf(buf, len, "1e%d", e);
}

/* 10^e microseconds as a tick label: "100 ns", "1 µs", "10 ms", "1 s". */
static void fmt_decade_us(char *buf, size_t len, int e)
{
	static const char mant[3][4] = {"1", "10", "100"};
	static const char *const unit[4] = {"ns", "\xc2\xb5s", "ms", "s"};

	if (e >= -3 && e < 9)
		snprintf(buf, len, "%s %s", mant[(e + 3) % 3], unit[(e + 3) / 3]);
	else
		snprintf(buf, len, "1e%d \xc2\xb5s", e);
}

/* A latency for the legend, in the unit that keeps it between 1 and 1000 where possible (the
 * limits allow for "%.3g" rounding 999.7 up to 1e+03). */
static void fmt_us(char *buf, size_t len, double us)
{
	if (us < 0.9995)
		snprintf(buf, len, "%.3g ns", us * 1e3);
	else if (us < 999.5)
		snprintf(buf, len, "%.3g \xc2\xb5s", us);
	else if (us < 999.5e3)
		snprintf(buf, len, "%.3g ms", us / 1e3);
	else
		snprintf(buf, len, "%.3g s", us / 1e6);
}

/* ---- geometry ---------------------------------------------------------------------------- */

struct box {
	double l, t, r, b;
};

/* An axis maps lo..hi (log10 of the value on a log axis) onto pixels p0..p1. */
struct axis {
	double lo, hi, p0, p1;
};

static double ax_map(const struct axis *a, double v)
{
	return a->p0 + (v - a->lo) / (a->hi - a->lo) * (a->p1 - a->p0);
}

/* Range of log10 of the usable values seen so far. */
struct range {
	double lo, hi;
	bool any;
};

/* Adds @p v, with @p pad decades of room on both sides (markers need some, lines do not). */
static void range_add(struct range *r, double v, double pad)
{
	double l;

	if (!usable(v))
		return;
	l = log10(v);
	if (!r->any || l - pad < r->lo)
		r->lo = l - pad;
	if (!r->any || l + pad > r->hi)
		r->hi = l + pad;
	r->any = true;
}

/* The whole decades around @p r: tick labels at both ends, and at least one decade. */
static void range_decades(const struct range *r, double *lo, double *hi)
{
	*lo = floor(r->lo);
	*hi = ceil(r->hi);
	if (*hi <= *lo) {
		*lo -= 1;
		*hi += 1;
	}
}

/* A label or marker: centre, half extents along its own axes, cosine and sine of its rotation. */
struct rect {
	double cx, cy, hw, hh, c, s;
};

/* A roof as drawn, in pixels; @c owner is its index in the caller's array. */
struct seg {
	double x0, y0, x1, y1;
	int owner;
};

/* What a new label should avoid: markers and placed labels, and the roofs. */
struct obstacles {
	struct rect *r;
	struct seg *s;
	int nr, ns, capr, caps;
};

static int obs_rect(struct obstacles *o, struct rect r)
{
	if (o->nr == o->capr) {
		int cap = o->capr ? 2 * o->capr : 64;
		struct rect *v = realloc(o->r, (size_t)cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		o->r = v;
		o->capr = cap;
	}
	o->r[o->nr++] = r;
	return 0;
}

static int obs_seg(struct obstacles *o, struct seg g)
{
	if (o->ns == o->caps) {
		int cap = o->caps ? 2 * o->caps : 16;
		struct seg *v = realloc(o->s, (size_t)cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		o->s = v;
		o->caps = cap;
	}
	o->s[o->ns++] = g;
	return 0;
}

/* Separating-axis test: two rectangles are apart iff some edge normal separates them. Exact
 * for rotated labels, whose axis-aligned bounding boxes would be far too big. */
static bool rects_overlap(const struct rect *a, const struct rect *b)
{
	const double axes[4][2] = {{a->c, a->s}, {-a->s, a->c}, {b->c, b->s}, {-b->s, b->c}};
	double dx = b->cx - a->cx, dy = b->cy - a->cy;
	int i;

	for (i = 0; i < 4; i++) {
		double lx = axes[i][0], ly = axes[i][1];
		double ra =
		    a->hw * fabs(a->c * lx + a->s * ly) + a->hh * fabs(a->c * ly - a->s * lx);
		double rb =
		    b->hw * fabs(b->c * lx + b->s * ly) + b->hh * fabs(b->c * ly - b->s * lx);

		if (fabs(dx * lx + dy * ly) > ra + rb)
			return false;
	}
	return true;
}

/* Whether segment @p g passes through @p r: Liang-Barsky clipping in the rectangle's frame. */
static bool seg_crosses(const struct seg *g, const struct rect *r)
{
	double x0 = (g->x0 - r->cx) * r->c + (g->y0 - r->cy) * r->s;
	double y0 = (g->y0 - r->cy) * r->c - (g->x0 - r->cx) * r->s;
	double x1 = (g->x1 - r->cx) * r->c + (g->y1 - r->cy) * r->s;
	double y1 = (g->y1 - r->cy) * r->c - (g->x1 - r->cx) * r->s;
	const double p[4] = {x0 - x1, x1 - x0, y0 - y1, y1 - y0};
	const double q[4] = {x0 + r->hw, r->hw - x0, y0 + r->hh, r->hh - y0};
	double t0 = 0, t1 = 1;
	int i;

	for (i = 0; i < 4; i++) {
		if (p[i] == 0) {
			if (q[i] < 0)
				return false;
		} else if (p[i] < 0) {
			t0 = fmax(t0, q[i] / p[i]);
		} else {
			t1 = fmin(t1, q[i] / p[i]);
		}
		if (t0 > t1)
			return false;
	}
	return true;
}

/* Whether all of @p r lies in @p p (its bounding box is spanned by its corners). */
static bool rect_inside(const struct rect *r, const struct box *p)
{
	double ex = r->hw * fabs(r->c) + r->hh * fabs(r->s);
	double ey = r->hw * fabs(r->s) + r->hh * fabs(r->c);

	return r->cx - ex >= p->l && r->cx + ex <= p->r && r->cy - ey >= p->t && r->cy + ey <= p->b;
}

/*
 * How bad a label at @p r would be. Off the plot is worst, covering a marker or a label next;
 * crossing a roof costs little, since the white halo keeps the text legible. The label's own
 * roof (owner @p own_seg) and marker (rectangle @p own_rect) do not count; -1: none.
 */
static int obs_cost(const struct obstacles *o, const struct rect *r, const struct box *plot,
		    int own_seg, int own_rect)
{
	int cost = rect_inside(r, plot) ? 0 : 1000, i;

	for (i = 0; i < o->nr; i++)
		cost += i != own_rect && rects_overlap(r, &o->r[i]) ? 100 : 0;
	for (i = 0; i < o->ns; i++)
		cost += o->s[i].owner != own_seg && seg_crosses(&o->s[i], r) ? 10 : 0;
	return cost;
}

/* The rectangle of a @p w pixel wide label in LABEL_SIZE whose baseline starts, centres or ends
 * (@p anchor -1, 0, 1) at (@p x, @p y), rotated by @p deg degrees about that point. */
static struct rect text_rect(double x, double y, double w, int anchor, double deg)
{
	double a = deg * PI / 180, c = cos(a), s = sin(a);
	/* Centre in the text's own frame: glyphs rise 0.8 em above the baseline, sink 0.25 em. */
	double lx = -anchor * w / 2, ly = -0.275 * LABEL_SIZE;

	return (struct rect){
	    x + lx * c - ly * s, y + lx * s + ly * c, w / 2 + 1, 0.525 * LABEL_SIZE + 0.5, c, s};
}

/* ---- common pieces ----------------------------------------------------------------------- */

static void doc_begin(struct sbuf *b, int w, int h, const char *title)
{
	sb_printf(b,
		  "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		  "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		  "viewBox=\"0 0 %d %d\" font-family=\"" FONT "\" font-size=\"%d\" fill=\"" INK
		  "\">\n",
		  w, h, w, h, TICK_SIZE);
	sb_puts(b, "<title>");
	sb_text(b, title ? title : "", 400);
	sb_puts(b, "</title>\n");
	/* Explicit white: viewers in dark mode would otherwise show black text on black. */
	sb_puts(b, "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n");
	if (title && *title) {
		sb_printf(b,
			  "<text class=\"title\" x=\"%d\" y=\"30\" text-anchor=\"middle\" "
			  "font-size=\"%d\" font-weight=\"bold\">",
			  w / 2, TITLE_SIZE);
		sb_text(b, title, (int)((w - 40) / (CHAR_W * TITLE_SIZE)));
		sb_puts(b, "</text>\n");
	}
}

static void doc_end(struct sbuf *b)
{
	sb_puts(b, "</svg>\n");
}

/* Attributes giving text a white outline, so that it stays legible where it crosses a line. */
#define HALO                                                                                       \
	"stroke=\"#ffffff\" stroke-width=\"3\" stroke-linejoin=\"round\" paint-order=\"stroke\""

static void no_data(struct sbuf *b, const struct box *p, const char *what)
{
	sb_printf(b,
		  "<text class=\"nodata\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
		  "font-size=\"20\" fill=\"#777777\">%s</text>\n",
		  (p->l + p->r) / 2, (p->t + p->b) / 2, what);
}

static void frame(struct sbuf *b, const struct box *p)
{
	sb_printf(b,
		  "<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		  "fill=\"none\" stroke=\"" INK "\" stroke-width=\"1\"/>\n",
		  p->l, p->t, p->r - p->l, p->b - p->t);
}

/*
 * Gridlines, ticks and tick labels of a log axis: horizontal (the x axis, along the bottom of
 * @p p) or vertical (the y axis, along its left). Labels are thinned to at most
 * MAX_MAJOR_TICKS so that a range of many decades stays readable.
 */
static void log_axis(struct sbuf *b, const struct axis *a, const struct box *p, bool horizontal,
		     void (*fmt)(char *, size_t, int))
{
	int lo = (int)a->lo, hi = (int)a->hi,
	    step = (hi - lo + MAX_MAJOR_TICKS - 1) / MAX_MAJOR_TICKS;
	int e, m;
	char label[32];

	if (step < 1)
		step = 1;
	if (hi - lo <= MINOR_MAX_DECADES) {
		sb_puts(b,
			"<g class=\"grid-minor\" stroke=\"" GRID_MINOR "\" stroke-width=\"1\">\n");
		for (e = lo; e < hi; e++) {
			for (m = 2; m <= 9; m++) {
				double v = ax_map(a, e + log10(m));

				if (horizontal)
					sb_printf(b,
						  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
						  "y2=\"%.1f\"/>\n",
						  v, p->t, v, p->b);
				else
					sb_printf(b,
						  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
						  "y2=\"%.1f\"/>\n",
						  p->l, v, p->r, v);
			}
		}
		sb_puts(b, "</g>\n");
	}
	sb_puts(b, "<g class=\"grid\" stroke=\"" GRID "\" stroke-width=\"1\">\n");
	for (e = lo; e <= hi; e++) {
		double v = ax_map(a, e);

		if ((e - lo) % step)
			continue;
		if (horizontal)
			sb_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", v,
				  p->t, v, p->b);
		else
			sb_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
				  p->l, v, p->r, v);
	}
	sb_puts(b, "</g>\n<g class=\"ticks\">\n");
	for (e = lo; e <= hi; e++) {
		double v = ax_map(a, e);

		if ((e - lo) % step)
			continue;
		fmt(label, sizeof(label), e);
		if (horizontal)
			sb_printf(
			    b,
			    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"" INK
			    "\"/><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
			    v, p->b, v, p->b + 5, v, p->b + 19, label);
		else
			sb_printf(
			    b,
			    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"" INK
			    "\"/><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
			    p->l - 5, v, p->l, v, p->l - 8, v + 4, label);
	}
	sb_puts(b, "</g>\n");
}

static void axis_titles(struct sbuf *b, const struct box *p, const char *x, const char *y)
{
	sb_printf(b,
		  "<text class=\"axis-title\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
		  "font-size=\"13\">%s</text>\n",
		  (p->l + p->r) / 2, p->b + 40, x);
	sb_printf(
	    b,
	    "<text class=\"axis-title\" x=\"0\" y=\"0\" text-anchor=\"middle\" font-size=\"13\" "
	    "transform=\"translate(18 %.1f) rotate(-90)\">%s</text>\n",
	    (p->t + p->b) / 2, y);
}

static void stroke_style(struct sbuf *b, int i)
{
	sb_printf(b, " stroke=\"%s\"", palette[i % NPALETTE]);
	if (dashes[(i / NPALETTE) % NDASHES])
		sb_printf(b, " stroke-dasharray=\"%s\"", dashes[(i / NPALETTE) % NDASHES]);
}

/* Footnote lines from @p y down; "..." at the end of the last one when @p cut. */
static void note_lines(struct sbuf *b, const struct span *lines, int n, bool cut, double x,
		       double y)
{
	int i;

	for (i = 0; i < n; i++) {
		sb_printf(b, "<text class=\"note\" x=\"%.1f\" y=\"%.1f\" font-size=\"%d\">", x,
			  y + i * FOOT_LINE, FOOT_SIZE);
		sb_text_n(b, lines[i].s, lines[i].n, 1 << 20);
		if (cut && i == n - 1)
			sb_puts(b, " \xe2\x80\xa6");
		sb_puts(b, "</text>\n");
	}
}

/* Writes the finished document. On an error, a regular file is removed rather than left half
 * written; anything else (/dev/full, a FIFO) is left alone. */
static int write_doc(const char *path, struct sbuf *b)
{
	struct stat st;
	bool regular;
	FILE *f;
	int ret = 0;

	if (b->err)
		return b->err;
	errno = 0;
	f = fopen(path, "w");
	if (!f)
		return errno ? -errno : -EIO;
	regular = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode);
	if (fwrite(b->p, 1, b->len, f) != b->len)
		ret = errno ? -errno : -EIO;
	errno = 0;
	if (fclose(f) != 0 && !ret)
		ret = errno ? -errno : -EIO;
	if (ret && regular)
		unlink(path);
	return ret;
}

/* ---- roofline ---------------------------------------------------------------------------- */

struct roofline {
	const char *title, *note;
	const struct perf_roof *roofs;
	int nroofs;
	const struct perf_point *pts;
	int npts;
};

#define NOTE_CHARS ((int)((WIDTH - 2 * FOOT_X) / (CHAR_W * FOOT_SIZE)))
#define ROOF_LABEL_CHARS 48
#define POINT_LABEL_CHARS 32

/*
 * The piece of roof @p r inside the plot, in log10 units: (x0, y0) to (x1, y1). False if none.
 * Roofs are straight in log-log space (log y = log v + log x for a bandwidth roof), so clipping
 * is exact and no clipPath is needed.
 */
static bool roof_segment(const struct perf_roof *r, const struct axis *x, const struct axis *y,
			 double seg[4])
{
	double lv = log10(r->value);

	if (r->kind == PERF_ROOF_COMPUTE) {
		if (lv < y->lo || lv > y->hi)
			return false;
		seg[0] = x->lo;
		seg[2] = x->hi;
		seg[1] = seg[3] = lv;
		return true;
	}
	seg[0] = fmax(x->lo, y->lo - lv);
	seg[2] = fmin(x->hi, y->hi - lv);
	if (seg[0] >= seg[2])
		return false;
	seg[1] = lv + seg[0];
	seg[3] = lv + seg[2];
	return true;
}

/* Chooses the axis ranges (whole decades) for the roofline; false if nothing can be drawn. */
static bool roofline_ranges(const struct roofline *c, struct axis *x, struct axis *y)
{
	struct range xr = {0}, yr = {0};
	bool any_compute = false, any_bw = false;
	int i, j;

	for (i = 0; i < c->npts; i++) {
		if (usable(c->pts[i].intensity) && usable(c->pts[i].ops_per_s)) {
			range_add(&xr, c->pts[i].intensity, PAD_DECADES);
			range_add(&yr, c->pts[i].ops_per_s, PAD_DECADES);
		}
	}
	for (i = 0; i < c->nroofs; i++) {
		if (!usable(c->roofs[i].value))
			continue;
		if (c->roofs[i].kind == PERF_ROOF_COMPUTE) {
			any_compute = true;
			/* Padded like a point: a roof on the frame would hide its label. */
			range_add(&yr, c->roofs[i].value, PAD_DECADES);
			/* Every ridge point, where a bandwidth roof meets this compute roof. */
			for (j = 0; j < c->nroofs; j++)
				if (c->roofs[j].kind == PERF_ROOF_BANDWIDTH &&
				    usable(c->roofs[j].value))
					range_add(&xr, c->roofs[i].value / c->roofs[j].value, 0);
		} else {
			any_bw = true;
		}
	}
	if (!xr.any && !any_bw && !any_compute)
		return false;
	if (!xr.any) {
		/* Roofs but no point and no ridge: a range typical of GF(2^8) coding. */
		xr.lo = -1;
		xr.hi = 2;
		xr.any = true;
	}
	range_decades(&xr, &x->lo, &x->hi);
	if (any_bw && !any_compute && !yr.any) {
		/* Bandwidth roofs alone: show them across the whole intensity range. */
		for (i = 0; i < c->nroofs; i++) {
			if (c->roofs[i].kind == PERF_ROOF_BANDWIDTH) {
				range_add(&yr, c->roofs[i].value * pow(10, x->lo), 0);
				range_add(&yr, c->roofs[i].value * pow(10, x->hi), 0);
			}
		}
	}
	range_decades(&yr, &y->lo, &y->hi);
	/* Every bandwidth roof must cross the plot: widen y where one passes above or below it. */
	for (i = 0; i < c->nroofs; i++) {
		double lv;

		if (c->roofs[i].kind != PERF_ROOF_BANDWIDTH || !usable(c->roofs[i].value))
			continue;
		lv = log10(c->roofs[i].value);
		if (lv + x->hi <= y->lo + PAD_DECADES)
			y->lo = floor(lv + x->hi - 2 * PAD_DECADES);
		if (lv + x->lo >= y->hi - PAD_DECADES)
			y->hi = ceil(lv + x->lo + 2 * PAD_DECADES);
	}
	return true;
}

/* Draws roof @p i (if any of it is inside the plot) and records it for label placement. */
static int draw_roof(struct sbuf *b, const struct roofline *c, int i, const struct axis *x,
		     const struct axis *y, struct obstacles *obs)
{
	const struct perf_roof *r = &c->roofs[i];
	struct seg g = {.owner = i};
	double seg[4];

	if (!roof_segment(r, x, y, seg))
		return 0;
	g.x0 = ax_map(x, seg[0]);
	g.y0 = ax_map(y, seg[1]);
	g.x1 = ax_map(x, seg[2]);
	g.y1 = ax_map(y, seg[3]);
	sb_printf(b, "<line class=\"roof\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"", g.x0,
		  g.y0, g.x1, g.y1);
	stroke_style(b, i);
	sb_printf(b, " stroke-width=\"2\"><title>");
	sb_text(b, r->label, 400);
	sb_printf(b, ": %.4g %s</title></line>\n", r->value,
		  r->kind == PERF_ROOF_COMPUTE ? "GF ops/s" : "bytes/s");
	return obs_seg(obs, g);
}

/*
 * Labels the roof drawn as @p g near its right (upper) end, along it. The side away from the
 * points (above a flat roof, above-left of a slanted one) is preferred, and the end of the roof
 * over other places on it; the first place that covers nothing wins.
 */
static int label_roof(struct sbuf *b, const struct roofline *c, const struct seg *g,
		      const struct box *p, struct obstacles *obs)
{
	const char *label = c->roofs[g->owner].label;
	double len = hypot(g->x1 - g->x0, g->y1 - g->y0), dx, dy, deg, w, t;
	double best_x = 0, best_y = 0, best_pref = INFINITY;
	int side, best_cost = INT32_MAX;

	if (!label || !*label || len < 1)
		return 0;
	dx = (g->x1 - g->x0) / len;
	dy = (g->y1 - g->y0) / len;
	deg = atan2(dy, dx) * 180 / PI;
	w = text_w(shown_chars(label, ROOF_LABEL_CHARS), LABEL_SIZE);
	/* Above: baseline 4 px off the roof; below: the glyphs' tops 4 px off it. Along: the
	 * label's end 6 px back from the roof's, then 8 px further back at a time. */
	for (side = 0; side < 2; side++) {
		double off = side ? -(4 + 0.8 * LABEL_SIZE) : 4;

		for (t = 6; t == 6 || t + w <= len; t += 8) {
			double ax = g->x1 - dx * t + dy * off, ay = g->y1 - dy * t - dx * off;
			struct rect r = text_rect(ax, ay, w, 1, deg);
			int cost = obs_cost(obs, &r, p, g->owner, -1);
			double pref = t + (side ? 120 : 0);

			if (cost < best_cost || (cost == best_cost && pref < best_pref)) {
				best_cost = cost;
				best_pref = pref;
				best_x = ax;
				best_y = ay;
			}
		}
	}
	sb_printf(b,
		  "<text class=\"roof-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" "
		  "font-size=\"%d\" fill=\"%s\" " HALO,
		  best_x, best_y, LABEL_SIZE, palette_text[g->owner % NPALETTE]);
	if (fabs(deg) > 0.05)
		sb_printf(b, " transform=\"rotate(%.2f %.1f %.1f)\"", deg, best_x, best_y);
	sb_puts(b, ">");
	sb_text(b, label, ROOF_LABEL_CHARS);
	sb_puts(b, "</text>\n");
	return obs_rect(obs, text_rect(best_x, best_y, w, 1, deg));
}

/*
 * Where a point's label may go, in order of preference. Spots 0..7 touch the point: right,
 * left, above, below, then the corners. Spots 8.. step away from it, up and down on either side,
 * for crowded clusters. From the corners on, a leader line ties the label to its point: in a
 * cluster, a label beside two points is otherwise ambiguous.
 */
#define NEAR_SPOTS 8
#define LEADER_SPOTS 4
#define FAR_RINGS 8
#define NSPOTS (NEAR_SPOTS + 4 * FAR_RINGS)

struct spot {
	double dx, dy;
	int anchor; /* -1 start, 0 middle, 1 end: the text-anchor */
};

static struct spot label_spot(int k)
{
	static const struct spot near[NEAR_SPOTS] = {
	    {8, 4, -1},	 {-8, 4, 1},  {0, -10, 0}, {0, 18, 0},
	    {7, -8, -1}, {7, 16, -1}, {-7, -8, 1}, {-7, 16, 1},
	};
	int ring = (k - NEAR_SPOTS) / 4 + 1, side = (k - NEAR_SPOTS) % 4;

	if (k < NEAR_SPOTS)
		return near[k];
	return (struct spot){side < 2 ? 10 + 6 * ring : -10 - 6 * ring,
			     side % 2 ? 4 + 15 * ring : 4 - 15 * ring, side < 2 ? -1 : 1};
}

static bool point_usable(const struct perf_point *pt)
{
	return usable(pt->intensity) && usable(pt->ops_per_s);
}

/* Every marker becomes an obstacle before any label is placed, so that no label covers a point
 * drawn after it. The markers of the usable points are obs->r[*first ...], in order. */
static int point_markers(const struct roofline *c, const struct axis *x, const struct axis *y,
			 struct obstacles *obs, int *first)
{
	int i, ret;

	*first = obs->nr;
	for (i = 0; i < c->npts; i++) {
		if (!point_usable(&c->pts[i]))
			continue;
		ret = obs_rect(obs, (struct rect){ax_map(x, log10(c->pts[i].intensity)),
						  ax_map(y, log10(c->pts[i].ops_per_s)),
						  POINT_R + 1, POINT_R + 1, 1, 0});
		if (ret)
			return ret;
	}
	return 0;
}

/* Chooses the cheapest spot for the label of point @p pt (marker rectangle @p marker), records
 * it (and its leader line, if any) as an obstacle, and returns it. */
/* The leader line from the edge of the marker at (@p cx, @p cy) to 2 px short of its label. */
static struct seg leader(double cx, double cy, struct spot s)
{
	double ex = cx + s.dx + 2 * s.anchor, ey = cy + s.dy - 3, d = hypot(ex - cx, ey - cy);

	return (struct seg){cx + (ex - cx) / d * POINT_R, cy + (ey - cy) / d * POINT_R, ex, ey, -1};
}

static int place_point_label(const struct perf_point *pt, double cx, double cy, int marker,
			     const struct box *p, struct obstacles *obs, int *spot)
{
	double w = text_w(shown_chars(pt->label, POINT_LABEL_CHARS), LABEL_SIZE);
	int k, best = 0, best_cost = INT32_MAX, ret;
	struct spot s;

	for (k = 0; k < NSPOTS && best_cost; k++) {
		struct rect r;
		int cost;

		s = label_spot(k);
		r = text_rect(cx + s.dx, cy + s.dy, w, s.anchor, 0);
		cost = obs_cost(obs, &r, p, -1, marker);
		if (k >= LEADER_SPOTS) {
			/* A leader crossing a label or point misleads; a long one is hard to
			 * follow: past a few rings, crossing a roof (10) near the point is better.
			 */
			struct seg g = leader(cx, cy, s);
			int i;

			for (i = 0; i < obs->nr; i++)
				cost += i != marker && seg_crosses(&g, &obs->r[i]) ? 10 : 0;
			cost += k < NEAR_SPOTS ? 1 : 2 * ((k - NEAR_SPOTS) / 4 + 1);
		}
		if (cost < best_cost) {
			best_cost = cost;
			best = k;
		}
	}
	s = label_spot(best);
	*spot = best;
	ret = obs_rect(obs, text_rect(cx + s.dx, cy + s.dy, w, s.anchor, 0));
	if (!ret && best >= LEADER_SPOTS)
		ret = obs_seg(obs, leader(cx, cy, s));
	return ret;
}

static int draw_points(struct sbuf *b, const struct roofline *c, const struct axis *x,
		       const struct axis *y, const struct box *p, struct obstacles *obs, int marker,
		       bool *any_flagged)
{
	int *spots = malloc((size_t)c->npts * sizeof(*spots) + 1), i, m, ret = 0;

	if (!spots)
		return -ENOMEM;
	for (i = 0, m = marker; i < c->npts && !ret; i++) {
		const struct perf_point *pt = &c->pts[i];

		spots[i] = -1;
		if (!point_usable(pt))
			continue;
		if (pt->label && *pt->label)
			ret = place_point_label(pt, ax_map(x, log10(pt->intensity)),
						ax_map(y, log10(pt->ops_per_s)), m, p, obs,
						&spots[i]);
		m++;
	}
	if (ret)
		goto out;

	/* Leader lines under the markers, labels over everything. */
	sb_puts(b, "<g class=\"leaders\" stroke=\"#888888\" stroke-width=\"0.8\">\n");
	for (i = 0; i < c->npts; i++) {
		struct seg g;

		if (spots[i] < LEADER_SPOTS)
			continue;
		g = leader(ax_map(x, log10(c->pts[i].intensity)),
			   ax_map(y, log10(c->pts[i].ops_per_s)), label_spot(spots[i]));
		sb_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", g.x0,
			  g.y0, g.x1, g.y1);
	}
	sb_puts(b, "</g>\n<g class=\"points\">\n");
	for (i = 0; i < c->npts; i++) {
		const struct perf_point *pt = &c->pts[i];

		if (!point_usable(pt))
			continue;
		sb_printf(b, "<circle class=\"point\" cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\"",
			  ax_map(x, log10(pt->intensity)), ax_map(y, log10(pt->ops_per_s)),
			  POINT_R);
		if (pt->flagged) {
			*any_flagged = true;
			sb_puts(b, " fill=\"#ffffff\" stroke=\"" INK "\" stroke-width=\"2\" "
				   "data-flagged=\"1\"");
		} else {
			sb_puts(b, " fill=\"" INK "\" stroke=\"#ffffff\" stroke-width=\"1\"");
		}
		sb_puts(b, "><title>");
		sb_text(b, pt->label ? pt->label : "", 400);
		sb_printf(b, ": %.3g GF ops/B, %.3g GF ops/s%s</title></circle>\n", pt->intensity,
			  pt->ops_per_s, pt->flagged ? ", spread &gt; 10%" : "");
	}
	sb_puts(b, "</g>\n<g class=\"point-labels\" " HALO ">\n");
	for (i = 0; i < c->npts; i++) {
		struct spot s;

		if (spots[i] < 0)
			continue;
		s = label_spot(spots[i]);
		sb_printf(b,
			  "<text class=\"point-label\" x=\"%.1f\" y=\"%.1f\" font-size=\"%d\"%s>",
			  ax_map(x, log10(c->pts[i].intensity)) + s.dx,
			  ax_map(y, log10(c->pts[i].ops_per_s)) + s.dy, LABEL_SIZE,
			  s.anchor < 0	  ? ""
			  : s.anchor == 0 ? " text-anchor=\"middle\""
					  : " text-anchor=\"end\"");
		sb_text(b, c->pts[i].label, POINT_LABEL_CHARS);
		sb_puts(b, "</text>\n");
	}
	sb_puts(b, "</g>\n");
out:
	free(spots);
	return ret;
}

static int build_roofline(struct sbuf *b, const struct roofline *c)
{
	struct span lines[NOTE_LINES];
	struct obstacles obs = {0};
	struct axis x, y;
	struct box p;
	bool cut, has_data, any_flagged = false;
	int nlines, nfoot, skipped_pts = 0, skipped_roofs = 0, drawn_pts = 0, nsegs, marker = 0, i;
	int ret = 0;
	double fy;

	for (i = 0; i < c->npts; i++) {
		if (usable(c->pts[i].intensity) && usable(c->pts[i].ops_per_s))
			drawn_pts++;
		else
			skipped_pts++;
	}
	for (i = 0; i < c->nroofs; i++)
		skipped_roofs += !usable(c->roofs[i].value);

	nlines = wrap(c->note, NOTE_CHARS, lines, NOTE_LINES, &cut);
	nfoot = nlines + (drawn_pts > 0) + (skipped_pts + skipped_roofs > 0);
	p = (struct box){84, 48, WIDTH - 20, HEIGHT - 58 - nfoot * FOOT_LINE};

	doc_begin(b, WIDTH, HEIGHT, c->title);
	has_data = roofline_ranges(c, &x, &y);
	if (has_data) {
		x.p0 = p.l;
		x.p1 = p.r;
		y.p0 = p.b;
		y.p1 = p.t;
		log_axis(b, &x, &p, true, fmt_decade);
		log_axis(b, &y, &p, false, fmt_decade);
		frame(b, &p);
		axis_titles(b, &p, "arithmetic intensity (GF ops per byte of traffic)",
			    "GF ops per second");
		/* Drawn: roofs, their labels, points, theirs (points over roofs). Placed: every
		 * label avoids all roofs and markers and the labels placed before it. */
		sb_puts(b, "<g class=\"roofs\">\n");
		for (i = 0; i < c->nroofs && !ret; i++)
			if (usable(c->roofs[i].value))
				ret = draw_roof(b, c, i, &x, &y, &obs);
		nsegs = obs.ns;
		if (!ret)
			ret = point_markers(c, &x, &y, &obs, &marker);
		for (i = 0; i < nsegs && !ret; i++)
			ret = label_roof(b, c, &obs.s[i], &p, &obs);
		sb_puts(b, "</g>\n");
		if (!ret)
			ret = draw_points(b, c, &x, &y, &p, &obs, marker, &any_flagged);
		if (!drawn_pts)
			no_data(b, &p, "no data points");
	} else {
		frame(b, &p);
		no_data(b, &p, "no data");
	}
	free(obs.r);
	free(obs.s);

	fy = p.b + 62;
	if (drawn_pts) {
		/* Legend glyphs deliberately use their own class: only data points are "point". */
		sb_printf(
		    b,
		    "<circle class=\"legend-mark\" cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"" INK
		    "\"/><text class=\"legend\" x=\"%.1f\" y=\"%.1f\" font-size=\"%d\">"
		    "measurement</text>\n",
		    FOOT_X + 5, fy - 4, POINT_R, FOOT_X + 14, fy, FOOT_SIZE);
		if (any_flagged)
			sb_printf(
			    b,
			    "<circle class=\"legend-mark\" cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" "
			    "fill=\"#ffffff\" stroke=\"" INK "\" stroke-width=\"2\"/><text "
			    "class=\"legend\" x=\"%.1f\" y=\"%.1f\" font-size=\"%d\">spread "
			    "(max - min) / median &gt; 10%%</text>\n",
			    FOOT_X + 125, fy - 4, POINT_R, FOOT_X + 134, fy, FOOT_SIZE);
		fy += FOOT_LINE;
	}
	if (skipped_pts + skipped_roofs) {
		sb_printf(
		    b,
		    "<text class=\"skipped\" x=\"%.1f\" y=\"%.1f\" font-size=\"%d\">not drawn "
		    "(zero, negative or not finite, so not on a log scale): %d point%s, %d "
		    "roof%s</text>\n",
		    FOOT_X, fy, FOOT_SIZE, skipped_pts, skipped_pts == 1 ? "" : "s", skipped_roofs,
		    skipped_roofs == 1 ? "" : "s");
		fy += FOOT_LINE;
	}
	note_lines(b, lines, nlines, cut, FOOT_X, fy);
	doc_end(b);
	return ret;
}

/* Runs a builder with LC_NUMERIC "C" on this thread only: "%.1f" must print a '.', whatever
 * locale the program set, and uselocale() leaves other threads alone. */
static int build_in_c_locale(struct sbuf *b, int (*build)(struct sbuf *, const void *),
			     const void *arg)
{
	locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0), old;
	int ret;

	if (c == (locale_t)0)
		return errno ? -errno : -ENOMEM;
	old = uselocale(c);
	ret = build(b, arg);
	uselocale(old);
	freelocale(c);
	return ret ? ret : b->err;
}

static int roofline_cb(struct sbuf *b, const void *arg)
{
	return build_roofline(b, arg);
}

int perf_svg_roofline(const char *path, const char *title, const char *note,
		      const struct perf_roof *roofs, int nroofs, const struct perf_point *pts,
		      int npts)
{
	struct roofline c = {title, note, roofs, nroofs, pts, npts};
	struct sbuf b = {0};
	int i, ret;

	if (!path || nroofs < 0 || npts < 0 || (nroofs && !roofs) || (npts && !pts))
		return -EINVAL;
	for (i = 0; i < nroofs; i++)
		if (roofs[i].kind != PERF_ROOF_BANDWIDTH && roofs[i].kind != PERF_ROOF_COMPUTE)
			return -EINVAL;
	ret = build_in_c_locale(&b, roofline_cb, &c);
	if (!ret)
		ret = write_doc(path, &b);
	free(b.p);
	return ret;
}

/* ---- latency CDF ------------------------------------------------------------------------- */

struct cdf_chart {
	const char *title;
	const struct perf_cdf *series;
	int n;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile of @p n sorted values. */
static double percentile(const double *v, int n, double q)
{
	int k = (int)ceil(q * n) - 1;

	return v[k < 0 ? 0 : k >= n ? n - 1 : k];
}

/*
 * The empirical CDF as a step polyline. Samples falling in the same half-pixel column share two
 * vertices (the fraction before and after them), so a million samples give at most a few
 * thousand vertices and the steps are still exact at screen resolution.
 */
static void cdf_polyline(struct sbuf *b, const double *v, int n, int idx, const struct axis *x,
			 const struct axis *y)
{
	int i = 0, j;

	sb_puts(b, "<polyline class=\"cdf\" fill=\"none\" stroke-width=\"2\" "
		   "stroke-linejoin=\"round\"");
	stroke_style(b, idx);
	sb_puts(b, " points=\"");
	while (i < n) {
		double col = round(2 * ax_map(x, log10(v[i]))) / 2;

		for (j = i + 1; j < n && round(2 * ax_map(x, log10(v[j]))) / 2 == col; j++)
			;
		sb_printf(b, "%s%.1f,%.1f %.1f,%.1f", i ? " " : "", col, ax_map(y, (double)i / n),
			  col, ax_map(y, (double)j / n));
		i = j;
	}
	sb_puts(b, "\"/>\n");
}

static int build_cdf(struct sbuf *b, const struct cdf_chart *c)
{
	double **sorted = NULL;
	int *nvalid = NULL, cols, rows, h, font, i, j, total = 0, ret = 0;
	double colw;
	struct range xr = {0};
	struct axis x, y;
	struct box p;

	if (c->n) {
		sorted = calloc((size_t)c->n, sizeof(*sorted));
		nvalid = calloc((size_t)c->n, sizeof(*nvalid));
		if (!sorted || !nvalid) {
			ret = -ENOMEM;
			goto out;
		}
	}
	for (i = 0; i < c->n; i++) {
		const struct perf_cdf *s = &c->series[i];

		if (s->n <= 0)
			continue;
		sorted[i] = malloc((size_t)s->n * sizeof(double));
		if (!sorted[i]) {
			ret = -ENOMEM;
			goto out;
		}
		for (j = 0; j < s->n; j++) {
			if (usable(s->samples_us[j])) {
				sorted[i][nvalid[i]++] = s->samples_us[j];
				range_add(&xr, s->samples_us[j], PAD_DECADES);
			}
		}
		qsort(sorted[i], (size_t)nvalid[i], sizeof(double), cmp_double);
		total += nvalid[i] > 0;
	}

	/* The legend goes under the plot (a CDF fills the plot's corners). One column keeps whole
	 * labels (which tell series apart) up to a dozen series, at the cost of a taller figure. */
	cols = c->n > 12 ? 2 : 1;
	colw = (WIDTH - 2 * FOOT_X) / cols;
	font = cols > 1 ? LABEL_SIZE : FOOT_SIZE;
	rows = (c->n + cols - 1) / cols;
	h = HEIGHT + (rows > 5 ? (rows - 5) * FOOT_LINE : 0);
	p = (struct box){84, 48, WIDTH - 56, h - 64 - rows * FOOT_LINE};
	doc_begin(b, WIDTH, h, c->title);
	if (!total) {
		frame(b, &p);
		no_data(b, &p, "no data");
	} else {
		range_decades(&xr, &x.lo, &x.hi);
		x.p0 = p.l;
		x.p1 = p.r;
		/* A little room above 1 and below 0, so the curves do not merge with the frame. */
		y = (struct axis){-0.02, 1.03, p.b, p.t};
		log_axis(b, &x, &p, true, fmt_decade_us);
		sb_puts(b, "<g class=\"grid\" stroke=\"" GRID "\" stroke-width=\"1\">\n");
		for (i = 0; i <= 5; i++)
			sb_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
				  p.l, ax_map(&y, i / 5.0), p.r, ax_map(&y, i / 5.0));
		sb_puts(b, "</g>\n<g class=\"ticks\">\n");
		for (i = 0; i <= 5; i++)
			sb_printf(
			    b,
			    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"" INK
			    "\"/><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.1f</text>\n",
			    p.l - 5, ax_map(&y, i / 5.0), p.l, ax_map(&y, i / 5.0), p.l - 8,
			    ax_map(&y, i / 5.0) + 4, i / 5.0);
		sb_puts(b, "</g>\n");
		/* Percentile lines are darker than the grid and named outside the plot, where no
		 * curve can cover the name. */
		for (i = 0; i < 2; i++) {
			double q = i ? 0.99 : 0.5, py = ax_map(&y, q);

			sb_printf(
			    b,
			    "<line class=\"pct\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			    "stroke=\"#888888\" stroke-dasharray=\"4 3\"/><text "
			    "class=\"pct-label\" "
			    "x=\"%.1f\" y=\"%.1f\">P%d</text>\n",
			    p.l, py, p.r, py, p.r + 6, py + 4, i ? 99 : 50);
		}
		frame(b, &p);
		axis_titles(b, &p, "latency (log scale)",
			    "fraction of operations \xe2\x89\xa4 latency");
		sb_puts(b, "<g class=\"series\">\n");
		for (i = 0; i < c->n; i++)
			if (nvalid[i])
				cdf_polyline(b, sorted[i], nvalid[i], i, &x, &y);
		sb_puts(b, "</g>\n");
	}

	sb_puts(b, "<g class=\"legend\">\n");
	for (i = 0; i < c->n; i++) {
		const struct perf_cdf *s = &c->series[i];
		const char *label = s->label ? s->label : "";
		double lx = FOOT_X + (i % cols) * colw, ly = p.b + 62 + (i / cols) * FOOT_LINE;
		char p50[32], p99[32], stats[128];
		const char *shown;
		int skipped = (s->n > 0 ? s->n : 0) - nvalid[i], room, len;

		if (nvalid[i]) {
			fmt_us(p50, sizeof(p50), percentile(sorted[i], nvalid[i], 0.5));
			fmt_us(p99, sizeof(p99), percentile(sorted[i], nvalid[i], 0.99));
			len = snprintf(stats, sizeof(stats), "  (n=%d, P50 %s, P99 %s", nvalid[i],
				       p50, p99);
			if (skipped)
				len += snprintf(stats + len, sizeof(stats) - (size_t)len,
						", %d unusable skipped", skipped);
			snprintf(stats + len, sizeof(stats) - (size_t)len, ")");
			/* Two columns are narrow: the sample counts move to the tooltip. */
			shown = cols > 1 ? stats + 2 + strcspn(stats, ",") : stats;
		} else {
			snprintf(stats, sizeof(stats), "  (no usable samples)");
			shown = stats;
		}
		/* The numbers always show; the label gets what is left of the column. */
		room = (int)((colw - 44) / (CHAR_W * font)) - count_chars(shown, (size_t)-1) - 2;
		sb_printf(b,
			  "<line class=\"legend-swatch\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			  "y2=\"%.1f\" stroke-width=\"3\"",
			  lx, ly - 4, lx + 28, ly - 4);
		stroke_style(b, i);
		sb_printf(b, "/><text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\">", lx + 34, ly, font);
		if (shown != stats || count_chars(label, (size_t)-1) > room) {
			sb_puts(b, "<title>");
			sb_text(b, label, 400);
			sb_puts(b, stats);
			sb_puts(b, "</title>");
		}
		sb_text(b, label, room > 8 ? room : 8);
		sb_printf(b, "%s%s", shown == stats ? "" : "  (", shown);
		sb_puts(b, "</text>\n");
	}
	sb_puts(b, "</g>\n");
	doc_end(b);
out:
	for (i = 0; sorted && i < c->n; i++)
		free(sorted[i]);
	free(sorted);
	free(nvalid);
	return ret;
}

static int cdf_cb(struct sbuf *b, const void *arg)
{
	return build_cdf(b, arg);
}

int perf_svg_latency_cdf(const char *path, const char *title, const struct perf_cdf *series, int n)
{
	struct cdf_chart c = {title, series, n};
	struct sbuf b = {0};
	int i, ret;

	if (!path || n < 0 || (n && !series))
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (series[i].n < 0 || (series[i].n && !series[i].samples_us))
			return -EINVAL;
	ret = build_in_c_locale(&b, cdf_cb, &c);
	if (!ret)
		ret = write_doc(path, &b);
	free(b.p);
	return ret;
}
