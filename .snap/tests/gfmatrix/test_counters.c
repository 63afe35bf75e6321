/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The floor's per-thread counters (gfmatrix/base/counters.h): exact sums from many threads at
 * once, more threads than lines (the rest on the shared locked counters), lines kept after their
 * threads end, and a line found again by its thread whatever order the threads claimed theirs.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "counters.h"
#include "gfec/gfec_errors.h"

#define ADDS 20000

struct adder {
	struct gfec_counters *c;
	pthread_barrier_t *all_in; /* NULL: do not wait for the others */
	int id;
	int shared;		   /* set when the thread got no line of its own */
	uint64_t *first, *again;   /* its line on the first and the last add */
};

/* Counter 0 += 1 and counter 1 += id + 1, ADDS times; counter 2 untouched. */
static void *adder_main(void *arg)
{
	struct adder *a = arg;

	/* every thread alive at once: distinct pthread_t values, each wants a line */
	if (a->all_in)
		pthread_barrier_wait(a->all_in);
	a->first = gfec_counters_line(a->c);
	a->shared = a->first == NULL;
	for (int i = 0; i < ADDS; i++) {
		uint64_t *line = gfec_counters_line(a->c);

		gfec_counters_add(a->c, line, 0, 1);
		gfec_counters_add(a->c, line, 1, (uint64_t)a->id + 1);
		a->again = line;
	}
	if (a->all_in)
		pthread_barrier_wait(a->all_in);
	return NULL;
}

/* @p n threads at once (all alive together when @p together); returns how many had no line. */
static int run_adders(struct gfec_counters *c, int n, int together)
{
	struct adder a[2 * GFEC_COUNTERS_SLOTS];
	pthread_t th[2 * GFEC_COUNTERS_SLOTS];
	pthread_barrier_t all_in;
	int shared = 0;

	assert_true(n <= 2 * GFEC_COUNTERS_SLOTS);
	if (together)
		pthread_barrier_init(&all_in, NULL, (unsigned)n);
	for (int i = 0; i < n; i++) {
		a[i] = (struct adder){ .c = c, .all_in = together ? &all_in : NULL, .id = i };
		assert_int_equal(pthread_create(&th[i], NULL, adder_main, &a[i]), 0);
	}
	for (int i = 0; i < n; i++) {
		assert_int_equal(pthread_join(th[i], NULL), 0);
		assert_ptr_equal(a[i].first, a[i].again); /* a thread keeps its line */
		shared += a[i].shared;
	}
	/* threads alive at once never share a line */
	for (int i = 0; together && i < n; i++)
		for (int j = 0; a[i].first && j < i; j++)
			assert_ptr_not_equal(a[i].first, a[j].first);
	if (together)
		pthread_barrier_destroy(&all_in);
	return shared;
}

static uint64_t id_sum(int n)
{
	return (uint64_t)n * (uint64_t)(n + 1) / 2 * ADDS;
}

static void test_one_thread(void **state)
{
	struct gfec_counters c;
	uint64_t *line;

	(void)state;
	assert_int_equal(gfec_counters_init(&c, 0), GFEC_E_INVAL);
	gfec_counters_fini(&c);
	assert_int_equal(gfec_counters_init(&c, GFEC_COUNTERS_MAX + 1), GFEC_E_INVAL);
	gfec_counters_fini(&c);
	assert_int_equal(gfec_counters_init(&c, GFEC_COUNTERS_MAX), 0);
	for (int i = 0; i < GFEC_COUNTERS_MAX; i++)
		assert_int_equal(gfec_counters_get(&c, i), 0);
	line = gfec_counters_line(&c);
	assert_non_null(line);
	assert_int_equal((uintptr_t)line % 64, 0);
	assert_ptr_equal(gfec_counters_line(&c), line);
	gfec_counters_add(&c, line, 3, 5);
	gfec_counters_add(&c, line, 3, 7);
	gfec_counters_add(&c, NULL, 3, 100); /* the shared counter counts too */
	gfec_counters_add(&c, line, GFEC_COUNTERS_MAX - 1, 1);
	assert_int_equal(gfec_counters_get(&c, 3), 112);
	assert_int_equal(gfec_counters_get(&c, GFEC_COUNTERS_MAX - 1), 1);
	assert_int_equal(gfec_counters_get(&c, 0), 0);
	gfec_counters_fini(&c);
	gfec_counters_fini(&c); /* twice, as after a failed init */
}

static void test_threads(void **state)
{
	struct gfec_counters c;

	(void)state;
	assert_int_equal(gfec_counters_init(&c, 3), 0);
	gfec_counters_add(&c, gfec_counters_line(&c), 0, 1); /* this thread holds a line too */
	assert_int_equal(run_adders(&c, 8, 1), 0);
	assert_int_equal(gfec_counters_get(&c, 0), 8 * ADDS + 1);
	assert_int_equal(gfec_counters_get(&c, 1), id_sum(8));
	assert_int_equal(gfec_counters_get(&c, 2), 0);
	/* the threads have ended: their counts stay; new threads (maybe the same pthread_t) add on */
	assert_int_equal(run_adders(&c, 8, 0), 0);
	assert_int_equal(gfec_counters_get(&c, 0), 16 * ADDS + 1);
	assert_int_equal(gfec_counters_get(&c, 1), 2 * id_sum(8));
	gfec_counters_fini(&c);
}

static void test_more_threads_than_lines(void **state)
{
	const int n = GFEC_COUNTERS_SLOTS + 16;
	struct gfec_counters c;

	(void)state;
	assert_int_equal(gfec_counters_init(&c, 2), 0);
	/* all alive at once: every line is taken, one per thread, the last 16 share */
	assert_int_equal(run_adders(&c, n, 1), 16);
	assert_int_equal(gfec_counters_get(&c, 0), (uint64_t)n * ADDS);
	assert_int_equal(gfec_counters_get(&c, 1), id_sum(n));
	gfec_counters_fini(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_thread),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_more_threads_than_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
