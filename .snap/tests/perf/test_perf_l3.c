/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_perf_l3.c
 * perf_l3_bytes_at() on made-up copies of /sys/devices/system/cpu: the "4 x L3" rotation of the
 * perf programs must count every L3 of a machine with several (two sockets, AMD's CCXs) once,
 * not cpu0's alone, and fall back to cpu0's where sysfs gives no shared_cpu_list.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "perf_util.h"

/* Writes @p text into @p root/@p rel, making the folders on the way. */
static void put(const char *root, const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%s\n", text);
	assert_int_equal(fclose(f), 0);
}

/* cpu @p cpu's cache index @p idx: @p level, @p type, @p size, and @p shared unless NULL. */
static void cache(const char *root, int cpu, int idx, const char *level, const char *type,
		  const char *size, const char *shared)
{
	char rel[128];

	snprintf(rel, sizeof(rel), "cpu%d/cache/index%d/level", cpu, idx);
	put(root, rel, level);
	snprintf(rel, sizeof(rel), "cpu%d/cache/index%d/type", cpu, idx);
	put(root, rel, type);
	snprintf(rel, sizeof(rel), "cpu%d/cache/index%d/size", cpu, idx);
	put(root, rel, size);
	if (shared) {
		snprintf(rel, sizeof(rel), "cpu%d/cache/index%d/shared_cpu_list", cpu, idx);
		put(root, rel, shared);
	}
}

/* A machine of @p ncpu CPUs, L3s of @p l3 shared by @p per CPUs each, L1d and L2 per CPU. */
static void machine(const char *root, int ncpu, int per, const char *l3, int with_lists)
{
	for (int c = 0; c < ncpu; c++) {
		char own[16], shared[32];
		int first = c / per * per;

		snprintf(own, sizeof(own), "%d", c);
		snprintf(shared, sizeof(shared), "%d-%d", first, first + per - 1);
		cache(root, c, 0, "1", "Data", "48K", with_lists ? own : NULL);
		cache(root, c, 1, "2", "Unified", "2048K", with_lists ? own : NULL);
		cache(root, c, 3, "3", "Unified", l3, with_lists ? shared : NULL);
	}
}

static void fresh(char *dir)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	strcpy(dir + strlen(dir) - 6, "XXXXXX");
	assert_non_null(mkdtemp(dir));
}

static void test_l3(void **state)
{
	char dir[] = "/tmp/gfec_l3_XXXXXX";

	(void)state;
	assert_non_null(mkdtemp(dir));
	/* No such folder, or no L3 described: 0. */
	assert_int_equal(perf_l3_bytes_at("/nonexistent/gfec_l3"), 0);
	assert_int_equal(perf_l3_bytes_at(dir), 0);
	/* One L3 shared by 8 CPUs: counted once. */
	machine(dir, 8, 8, "32768K", 1);
	assert_int_equal(perf_l3_bytes_at(dir), 32u << 20);
	/* Four CCXs of 4 CPUs (or sockets): four L3s, where cpu0 sees one. */
	fresh(dir);
	machine(dir, 16, 4, "32M", 1);
	assert_int_equal(perf_l3_bytes_at(dir), 128u << 20);
	/* Folders that are no CPU (cpufreq, cpuidle) are not read, nor a level-3 cache that is
	 * not unified. */
	put(dir, "cpuidle/cache/index3/level", "3");
	put(dir, "cpuidle/cache/index3/size", "1024M");
	put(dir, "cpuidle/cache/index3/shared_cpu_list", "0-15");
	cache(dir, 0, 4, "3", "Instruction", "1024M", "0");
	assert_int_equal(perf_l3_bytes_at(dir), 128u << 20);
	/* No shared_cpu_list anywhere: cpu0's L3, as before these were summed. */
	fresh(dir);
	machine(dir, 16, 4, "32M", 0);
	assert_int_equal(perf_l3_bytes_at(dir), 32u << 20);
	fresh(dir);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_l3),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
