// Probe (staged-2026-11-25, call 1): can the GPU read pageable memory (HMM), and how fast do
// C threads do a staged RS(10,4) 64 KiB call's host copies (10 chunks from cold pageable memory
// into a pinned buffer, 4 back), with no GPU work?
// nvcc -O2 -gencode=arch=compute_90,code=sm_90 -o probe probe.cu && ./probe
#include <cuda_runtime.h>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

static double now()
{
	return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
	    .count();
}

int main()
{
	const char *names[] = {"PageableMemoryAccess",
			       "PageableMemoryAccessUsesHostPageTables",
			       "ConcurrentManagedAccess",
			       "HostRegisterSupported",
			       "CanUseHostPointerForRegisteredMem",
			       "DirectManagedMemAccessFromHost"};
	const cudaDeviceAttr at[] = {cudaDevAttrPageableMemoryAccess,
				     cudaDevAttrPageableMemoryAccessUsesHostPageTables,
				     cudaDevAttrConcurrentManagedAccess,
				     cudaDevAttrHostRegisterSupported,
				     cudaDevAttrCanUseHostPointerForRegisteredMem,
				     cudaDevAttrDirectManagedMemAccessFromHost};
	const size_t call = 655360 + 262144, cold = (size_t)1200 << 20; // 4 x the host's L3
	int v;

	cudaSetDevice(0);
	for (int i = 0; i < 6; i++) {
		cudaDeviceGetAttribute(&v, at[i], 0);
		printf("%s=%d\n", names[i], v);
	}
	uint8_t *src = (uint8_t *)malloc(cold);
	memset(src, 3, cold);
	for (int T : {1, 4, 8, 16}) {
		std::atomic<size_t> bytes{0};
		std::vector<std::thread> th;
		const double t0 = now();

		for (int t = 0; t < T; t++)
			th.emplace_back([&, t] {
				uint8_t *pin;
				const size_t per = cold / T / call;
				size_t b = 0, i = 0;
				const double s = now();

				cudaMallocHost(&pin, call);
				for (; now() - s < 0.5; i++, b += 655360) {
					uint8_t *p =
					    src + (size_t)t * (cold / T) + (i % per) * call;

					for (int j = 0; j < 10; j++)
						memcpy(pin + j * 65536, p + j * 65536, 65536);
					for (int j = 0; j < 4; j++)
						memcpy(p + 655360 + j * 65536,
						       pin + 655360 + j * 65536, 65536);
				}
				bytes += b;
				cudaFreeHost(pin);
			});
		for (auto &x : th)
			x.join();
		const double d = now() - t0;
		printf("staging copies 64K RS(10,4), %d threads: %.2f GB/s data (%.1f us per call "
		       "per thread)\n",
		       T, bytes / d / 1e9, d * 1e6 * T / (bytes / 655360.0));
	}
	return 0;
}
