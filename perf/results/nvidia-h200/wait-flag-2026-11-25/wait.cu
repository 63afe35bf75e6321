// How a caller waits for a small zero-copy kernel (a 64 KiB RS(10,4) stripe's traffic: 640 KB
// read, 256 KB written in pinned memory), 16 threads: blocking-sync event, a mapped flag polled
// with nanosleep at the default and at a 1 us timer slack, or spinning on the flag.
// nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o wait wait.cu -lpthread && ./wait
#include <cuda_runtime.h>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <thread>
#include <time.h>
#include <vector>

static double now()
{
	return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
		.count();
}
static double cpu()
{
	rusage u;
	getrusage(RUSAGE_SELF, &u);
	return u.ru_utime.tv_sec + u.ru_stime.tv_sec + 1e-6 * (u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

// 4096 threads: each reads 10 x 16 B (one per source) and writes 4 x 16 B; the last block
// stores seq into the mapped flag.
__global__ void stripe(const uint4 *in, uint4 *out, unsigned *count, volatile unsigned *flag,
		       unsigned seq)
{
	const int t = blockIdx.x * blockDim.x + threadIdx.x; // 0..4095
	uint4 a = { 0, 0, 0, 0 };
	for (int j = 0; j < 10; j++) {
		uint4 v = in[j * 4096 + t];
		a.x ^= v.x, a.y ^= v.y, a.z ^= v.z, a.w ^= v.w;
	}
	for (int i = 0; i < 4; i++)
		out[i * 4096 + t] = a;
	__syncthreads();
	if (threadIdx.x == 0) {
		__threadfence_system();
		if (atomicAdd(count, 1) == gridDim.x - 1) {
			*count = 0;
			__threadfence_system();
			*flag = seq;
		}
	}
}

int main()
{
	const int T = 16;
	const char *names[] = { "blocking-sync event", "flag + nanosleep 5us (default slack)",
				"flag + nanosleep 5us (slack 1us)", "flag, spinning" };
	cudaSetDevice(0);
	cudaSetDeviceFlags(cudaDeviceMapHost);
	for (int mode = 0; mode < 4; mode++) {
		std::atomic<long> calls{ 0 };
		std::atomic<int> go{ 0 };
		std::vector<std::thread> th;
		for (int t = 0; t < T; t++)
			th.emplace_back([&, t] {
				cudaStream_t st;
				cudaEvent_t ev;
				uint8_t *in, *out;
				unsigned *flag, *count;
				cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
				cudaEventCreateWithFlags(&ev, cudaEventDisableTiming | cudaEventBlockingSync);
				cudaHostAlloc(&in, 655360, cudaHostAllocMapped);
				cudaHostAlloc(&out, 262144, cudaHostAllocMapped);
				cudaHostAlloc(&flag, 64, cudaHostAllocMapped);
				cudaMalloc(&count, 4);
				cudaMemset(count, 0, 4);
				memset(in, t, 655360);
				*flag = 0;
				if (mode == 2)
					prctl(PR_SET_TIMERSLACK, 1000UL);
				while (!go.load())
					;
				long n = 0;
				const double s = now();
				for (unsigned seq = 1; now() - s < 1.0; seq++, n++) {
					stripe<<<64, 64, 0, st>>>((const uint4 *)in, (uint4 *)out, count,
								  flag, seq);
					if (mode == 0) {
						cudaEventRecord(ev, st);
						cudaEventSynchronize(ev);
						continue;
					}
					const timespec ts = { 0, 5000 };
					while (__atomic_load_n((volatile unsigned *)flag, __ATOMIC_ACQUIRE) != seq)
						if (mode != 3)
							nanosleep(&ts, nullptr);
				}
				cudaStreamSynchronize(st);
				calls += n;
				cudaFreeHost(in), cudaFreeHost(out), cudaFreeHost(flag), cudaFree(count);
				cudaStreamDestroy(st), cudaEventDestroy(ev);
			});
		std::this_thread::sleep_for(std::chrono::milliseconds(300));
		const double c0 = cpu(), t0 = now();
		go = 1;
		for (auto &x : th)
			x.join();
		const double c = cpu() - c0, d = now() - t0;
		printf("%-40s %8.0f calls/s  %6.2f GB/s of data  %6.1f us CPU a call  %.3f CPU-s/GB\n",
		       names[mode], calls / d, calls * 655360.0 / d / 1e9, c * 1e6 / calls,
		       c / (calls * 655360.0 / 1e9));
	}
	return 0;
}
