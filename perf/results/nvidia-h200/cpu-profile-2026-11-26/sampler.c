/*
 * LD_PRELOAD CPU sampler (a diagnostic, not part of gfec): SIGPROF on the process's CPU time (asked
 * for every 100 us, delivered at the kernel's tick) records the interrupted instruction and its
 * thread; at exit "tid module offset" per sample goes to $SAMPLER_OUT.<pid>.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <ucontext.h>
#include <sys/syscall.h>
#include <unistd.h>

#define N (1u << 22)
static void *pcs[N];
static int tids[N];
static unsigned long n;

static void on_prof(int sig, siginfo_t *si, void *uc)
{
	unsigned long i = __atomic_fetch_add(&n, 1, __ATOMIC_RELAXED);

	(void)sig, (void)si;
	if (i < N)
		pcs[i] = (void *)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP],
		tids[i] = (int)syscall(SYS_gettid);
}

__attribute__((constructor)) static void start(void)
{
	struct sigaction sa = { 0 };
	struct itimerval it = { { 0, 100 }, { 0, 100 } };

	if (!getenv("SAMPLER_OUT"))
		return;
	sa.sa_sigaction = on_prof;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGPROF, &sa, NULL);
	setitimer(ITIMER_PROF, &it, NULL);
}

__attribute__((destructor)) static void stop(void)
{
	const char *path = getenv("SAMPLER_OUT");
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	FILE *f;

	if (!path)
		return;
	setitimer(ITIMER_PROF, &off, NULL);
	{
		struct sigaction cur;

		sigaction(SIGPROF, NULL, &cur);
		fprintf(stderr, "sampler: %lu samples, handler %s\n", n,
			cur.sa_sigaction == on_prof ? "ours" : "replaced");
	}
	char name[4096];

	snprintf(name, sizeof name, "%s.%d", path, (int)getpid()); /* children run this too */
	if (!(f = fopen(name, "w"))) {
		perror("sampler: fopen");
		return;
	}
	unsigned long w = 0;

	for (unsigned long i = 0; i < n && i < N; i++) {
		Dl_info d;
		int k;

		if (dladdr(pcs[i], &d) && d.dli_fname)
			k = fprintf(f, "%d %s %lx\n", tids[i], d.dli_fname,
				    (unsigned long)((char *)pcs[i] - (char *)d.dli_fbase));
		else
			k = fprintf(f, "%d ? %lx\n", tids[i], (unsigned long)pcs[i]);
		if (k > 0)
			w++;
	}
	fprintf(stderr, "sampler: %lu lines written to %s\n", w, name);
	fclose(f);
}

/* Threads made with every signal blocked (threadpool.h) would never take SIGPROF: keep it open. */
int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	static int (*real)(int, const sigset_t *, sigset_t *);
	sigset_t s;

	if (!real)
		real = (int (*)(int, const sigset_t *, sigset_t *))dlsym(RTLD_NEXT, "pthread_sigmask");
	if (set && how != SIG_UNBLOCK) {
		s = *set;
		sigdelset(&s, SIGPROF);
		set = &s;
	}
	return real(how, set, old);
}
