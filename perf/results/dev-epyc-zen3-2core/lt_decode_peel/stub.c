/* SPDX-License-Identifier: BSD-3-Clause */
/* stub.c: the thread pool calls lt.c links to (its encoder; ab.c passes no pool), serial. */
#include <stddef.h>
struct gfec_cpu_pool;
int gfec_cpu_pool_threads(struct gfec_cpu_pool *p){(void)p;return 1;}
void gfec_cpu_pool_run(struct gfec_cpu_pool *p, size_t n, void (*fn)(void *, size_t), void *arg){(void)p;for(size_t i=0;i<n;i++)fn(arg,i);}
