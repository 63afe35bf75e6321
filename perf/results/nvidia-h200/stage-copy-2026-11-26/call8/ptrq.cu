// Cost of a pointer query on pinned memory, 1 and 16 threads at once: cudaPointerGetAttributes,
// cuPointerGetAttributes (type + range, as backend.cu's query), cudaSetDevice; ns a call and CPU.
#include <cuda.h>
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <sys/resource.h>
static void *buf;
static int mode, iters = 200000;
static double now() { timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static void *run(void *) {
  cudaSetDevice(0);
  for (int i = 0; i < iters; i++) {
    const char *p = (const char *)buf + (i & 1023) * 64;
    if (mode == 0) { cudaPointerAttributes a; cudaPointerGetAttributes(&a, p); }
    else if (mode == 1) {
      CUmemorytype t; CUdeviceptr start; size_t size;
      CUpointer_attribute at[3] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_SIZE};
      void *v[3] = {&t, &start, &size};
      cuPointerGetAttributes(3, at, v, (CUdeviceptr)p);
    } else cudaSetDevice(0);
  }
  return 0;
}
int main() {
  cudaSetDevice(0); cudaFree(0);
  cudaHostAlloc(&buf, 1 << 20, cudaHostAllocMapped);
  const char *names[] = {"cudaPointerGetAttributes", "cuPointerGetAttributes(3)", "cudaSetDevice"};
  for (mode = 0; mode < 3; mode++)
    for (int th : {1, 16}) {
      pthread_t t[16]; rusage r0, r1; getrusage(RUSAGE_SELF, &r0); double t0 = now();
      for (int i = 0; i < th; i++) pthread_create(&t[i], 0, run, 0);
      for (int i = 0; i < th; i++) pthread_join(t[i], 0);
      double dt = now() - t0; getrusage(RUSAGE_SELF, &r1);
      double cpu = (r1.ru_utime.tv_sec - r0.ru_utime.tv_sec) + 1e-6 * (r1.ru_utime.tv_usec - r0.ru_utime.tv_usec) + (r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) + 1e-6 * (r1.ru_stime.tv_usec - r0.ru_stime.tv_usec);
      printf("%-28s %2d threads: %.0f ns wall a call a thread, %.0f ns CPU a call\n", names[mode], th, dt * 1e9 / iters, cpu * 1e9 / ((double)iters * th));
    }
  return 0;
}
