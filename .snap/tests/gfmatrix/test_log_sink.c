/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The floor's log sink (gfmatrix/base/log_sink.h): a callback that calls back into gfec, which
 * may log or replace the callback, neither deadlocks nor recurses, from one thread or many. A
 * deadlock here would hang: an alarm turns it into a failure.
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "log_sink.h"

static struct gfec_log_sink sink = GFEC_LOG_SINK_INIT;
static atomic_int outer_calls, other_calls;

static void sink_log(enum gfec_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	gfec_log_sink_vwrite(&sink, level, fmt, ap);
	va_end(ap);
}

static void other(enum gfec_log_level level, const char *msg, void *user)
{
	(void)level, (void)msg, (void)user;
	atomic_fetch_add(&other_calls, 1);
}

/* Logs from inside itself (dropped), and replaces itself when told to. */
static void outer(enum gfec_log_level level, const char *msg, void *user)
{
	(void)level;
	atomic_fetch_add(&outer_calls, 1);
	sink_log(GFEC_LOG_ERROR, "nested %s", msg);
	if (strcmp(msg, "replace") == 0)
		gfec_log_sink_set(&sink, other, user, GFEC_LOG_DEBUG);
}

static void timeout(int sig)
{
	(void)sig;
	static const char msg[] = "test_log_sink: deadlocked (alarm)\n";
	(void)!write(2, msg, sizeof(msg) - 1);
	_exit(1);
}

static void test_reentry(void **state)
{
	(void)state;
	atomic_store(&outer_calls, 0);
	atomic_store(&other_calls, 0);
	gfec_log_sink_set(&sink, outer, NULL, GFEC_LOG_DEBUG);
	sink_log(GFEC_LOG_WARN, "first");
	assert_int_equal(atomic_load(&outer_calls), 1); /* the nested message was dropped */
	sink_log(GFEC_LOG_WARN, "replace");
	assert_int_equal(atomic_load(&outer_calls), 2);
	sink_log(GFEC_LOG_WARN, "after");
	assert_int_equal(atomic_load(&outer_calls), 2);
	assert_int_equal(atomic_load(&other_calls), 1); /* the replacement took effect at once */
}

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 2000; i++)
		sink_log(GFEC_LOG_INFO, "%d", i);
	return NULL;
}

/* Many threads logging while the callback logs from inside itself. */
static void test_threads(void **state)
{
	(void)state;
	pthread_t t[4];

	atomic_store(&outer_calls, 0);
	gfec_log_sink_set(&sink, outer, NULL, GFEC_LOG_DEBUG);
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&t[i], NULL, worker, NULL), 0);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(atomic_load(&outer_calls), 4 * 2000);
	gfec_log_sink_set(&sink, NULL, NULL, GFEC_LOG_WARN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reentry),
		cmocka_unit_test(test_threads),
	};

	signal(SIGALRM, timeout);
	alarm(60);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
