/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file svg.h
 * Charts for gfec-perf (a roofline and a latency CDF) written as standalone SVG files, so that
 * a run's figures are produced on the benchmark host itself, next to its JSON, with nothing
 * installed there but libc and libm, and can be opened in any browser.
 *
 * What every function here promises:
 *  - Returns 0, or a negative errno: -EINVAL for bad arguments (NULL path, negative count, NULL
 *    array with a positive count, an unknown roof kind), -ENOMEM, or what fopen(), fwrite() or
 *    fclose() reported; a regular file left half written is then removed. Nothing is printed,
 *    nothing aborts.
 *  - Values a log axis cannot show (zero, negative, NaN, infinite) are skipped, and the chart's
 *    footnote says how many were, so a figure never silently hides a measurement.
 *  - Strings (title, note, labels) may hold anything: they are XML-escaped (& < > " '), control
 *    characters become spaces, invalid UTF-8 becomes U+FFFD, and over-long ones are shortened
 *    with an ellipsis (the full text stays in the element's <title> tooltip where there is one).
 *  - Nothing to draw still gives a valid SVG, which says "no data".
 *  - Numbers are written in the C locale whatever the caller's setlocale(): SVG wants a '.'.
 *  - Stable hooks for tests and scripts: each point drawn is exactly one <circle class="point">,
 *    each roof drawn one <line class="roof">, each CDF series drawn one <polyline class="cdf">;
 *    no other element carries those classes.
 */
#ifndef GFEC_PERF_SVG_H
#define GFEC_PERF_SVG_H

enum perf_roof_kind {
	/** @c value is bytes of traffic per second: the slanted roof y = value * x. */
	PERF_ROOF_BANDWIDTH,
	/** @c value is GF operations per second: the flat roof y = value. */
	PERF_ROOF_COMPUTE,
};

/** A measured ceiling. @c label is shown as given, so it should carry the number and its unit
 *  ("HBM copy 4294 GB/s"); the chart's note says what the units mean. */
struct perf_roof {
	const char *label;
	enum perf_roof_kind kind;
	double value;
};

/** One measurement: a kernel or code path on one shape. */
struct perf_point {
	const char *label; /**< short: drawn beside the point (NULL: none) */
	double intensity;  /**< GF operations per byte of traffic (read + written) */
	double ops_per_s;  /**< GF operations per second */
	int flagged;	   /**< nonzero: unreliable (spread > 10%), drawn hollow */
};

/**
 * Writes a roofline chart to @p path (created or truncated).
 *
 * Log-log: x = arithmetic intensity (GF ops per byte of traffic), y = GF ops per second. Both
 * ranges are whole decades chosen so that every point, every ridge (where a bandwidth roof meets
 * a compute roof) and a piece of every roof are visible; ticks carry SI prefixes (1G, 10T).
 * Each roof is drawn across the whole plot and labelled along it near its right (upper) end,
 * preferably on the side away from the points. Each point is a filled circle (hollow if
 * flagged) with its label beside it or, in a crowded cluster, a little away with a leader line,
 * wherever it covers the least. The footer holds a legend, the skipped-value count and @p note
 * (wrapped, 4 lines at most; e.g. "GB/s = 10^9 bytes per second; measured on ...").
 *
 * @param path   file to write; must not be NULL
 * @param title  heading (NULL: none)
 * @param note   footnote (NULL: none); '\n' starts a new line
 * @param roofs  @p nroofs ceilings, in the order their colours should be assigned
 * @param pts    @p npts measurements
 * @return 0 or a negative errno (see the file comment)
 */
int perf_svg_roofline(const char *path, const char *title, const char *note,
		      const struct perf_roof *roofs, int nroofs, const struct perf_point *pts,
		      int npts);

/** One latency distribution: @p n samples in microseconds, in any order (not modified). */
struct perf_cdf {
	const char *label;
	const double *samples_us;
	int n;
};

/**
 * Writes a latency CDF chart to @p path (created or truncated).
 *
 * x = latency (log scale, tick labels in ns/µs/ms/s), y = cumulative fraction 0..1; one
 * step polyline per series that has a usable sample (distinct colour, then dash pattern),
 * P50 and P99 gridlines, and a legend under the plot giving each series' n, P50 and P99
 * (nearest rank). The figure grows taller past 5 series; past 12 the legend has two columns.
 * Any number of samples: the polyline keeps at most a few vertices per pixel column, so the
 * file stays small (a million samples: some 20 KB).
 *
 * @param path    file to write; must not be NULL
 * @param title   heading (NULL: none)
 * @param series  @p n distributions; @c samples_us may be NULL only when its @c n is 0
 * @return 0 or a negative errno (see the file comment)
 */
int perf_svg_latency_cdf(const char *path, const char *title, const struct perf_cdf *series, int n);

#endif
