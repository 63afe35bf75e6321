/* SPDX-License-Identifier: BSD-3-Clause */
/** @file perf_util.h  Helpers shared by the perf programs (gfec-perf, gfec-gpu-bench). */
#ifndef GFEC_PERF_UTIL_H
#define GFEC_PERF_UTIL_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Median, extremes and spread ((max - min) / median) of a set of values. */
struct perf_summary {
	double median, min, max, spread;
};

/** CLOCK_MONOTONIC in seconds. */
double perf_now(void);
uint64_t perf_xorshift(uint64_t *state);
/** Fills @p p with pseudo-random bytes from @p seed (never zeros: timing zeros flatters). */
void perf_fill_random(uint8_t *p, size_t n, uint64_t seed);
/** "1M", "64K", "4096": the shortest exact spelling of a size. */
void perf_fmt_size(char *buf, size_t len, size_t bytes);
int perf_cmp_double(const void *a, const void *b);
struct perf_summary perf_summarise(const double *v, int n);
/** /proc/cpuinfo's model name, or "unknown". */
void perf_cpu_model(char *buf, size_t len);
/**
 * The machine's level-3 caches in bytes, each distinct one (by its shared_cpu_list) once: two
 * sockets or several CCXs add up. cpu0's L3 where no shared_cpu_list is readable; 0 if sysfs
 * describes no L3.
 */
size_t perf_l3_bytes(void);
/** perf_l3_bytes() from @p cpu_root's cpuN/cache/indexI (a copy of /sys/devices/system/cpu). */
size_t perf_l3_bytes_at(const char *cpu_root);
/** gfec_parse_number() (decimal, K/M/G/T suffixes) in [lo, hi]: 0, or -1. */
int perf_parse_long(const char *s, long lo, long hi, long *out);
/** gfec_parse_number() in 1 .. 2^31-1 (ISA-L takes an int length): 0, or -1. */
int perf_parse_size(const char *s, size_t *out);
/** The command line, quoted for a POSIX shell where needed (the "reproduce" line). */
void perf_command_line(int argc, char **argv, char *buf, size_t len);
/** {cpu_model, cpus, l3_bytes, kernel}: the machine facts every perf JSON carries. */
json_t *perf_json_machine(void);
/** Writes @p doc to @p path (jansson, one file per run): 0, or -errno where open/write failed. */
int perf_json_write(const char *path, const json_t *doc);

#ifdef __cplusplus
}
#endif

#endif
