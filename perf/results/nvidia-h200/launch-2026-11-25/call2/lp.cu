// launch-rate probe: T threads, each loop {launch kernel on own stream; record event; sync}
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>
#include <atomic>
#include <chrono>
#include <cuda_runtime.h>
__global__ void empty_k() {}
__global__ void read_k(const int4 *const *src, int cols, int4 *const *dst, int rows, size_t units)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i >= units) return;
	int4 acc = make_int4(0,0,0,0);
	for (int j = 0; j < cols; j++) { int4 v = src[j][i]; acc.x ^= v.x; acc.y ^= v.y; acc.z ^= v.z; acc.w ^= v.w; }
	for (int r = 0; r < rows; r++) dst[r][i] = acc;
}
int main(int argc, char **argv)
{
	int mode = atoi(argv[1]); // 0 empty, 1 read mapped 64K x10 -> x4
	int spin = atoi(argv[2]);
	int T = atoi(argv[3]);
	size_t chunk = argc > 4 ? strtoul(argv[4], 0, 0) : 65536;
	double secs = 1.0;
	cudaFree(0);
	std::atomic<long> calls{0};
	std::atomic<bool> stop{false}; std::atomic<int> ready{0}; std::atomic<bool> go{false};
	std::vector<std::thread> th;
	for (int t = 0; t < T; t++) th.emplace_back([&, t] {
		cudaStream_t st; cudaStreamCreateWithFlags(&st, cudaStreamDefault);
		cudaEvent_t ev; cudaEventCreateWithFlags(&ev, (spin ? 0 : cudaEventBlockingSync) | cudaEventDisableTiming);
		uint8_t *h; cudaHostAlloc((void **)&h, chunk * 14, cudaHostAllocMapped);
		uint8_t *d; cudaHostGetDevicePointer((void **)&d, h, 0);
		int4 **tab; cudaMalloc(&tab, 14 * sizeof(void *));
		int4 *ptrs[14]; for (int i = 0; i < 14; i++) ptrs[i] = (int4 *)(d + i * chunk);
		cudaMemcpy(tab, ptrs, sizeof ptrs, cudaMemcpyHostToDevice);
		size_t units = chunk / 16;
		long n = 0; ready++; while (!go) ;
		while (!stop.load(std::memory_order_relaxed)) {
			if (mode == 0) empty_k<<<1, 32, 0, st>>>();
			else read_k<<<(units + 255) / 256, 256, 0, st>>>(tab, 10, tab + 10, 4, units);
			cudaEventRecord(ev, st);
			cudaEventSynchronize(ev);
			n++;
		}
		calls += n;
	});
	while (ready < T) ; go = true;
	auto t0 = std::chrono::steady_clock::now();
	std::this_thread::sleep_for(std::chrono::duration<double>(secs));
	stop = true;
	for (auto &x : th) x.join();
	double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
	printf("mode %d spin %d T %2d chunk %7zu: %8.0f calls/s  %.2f GB/s data\n", mode, spin, T, chunk, calls / el, calls / el * chunk * 10 / 1e9);
	return 0;
}
