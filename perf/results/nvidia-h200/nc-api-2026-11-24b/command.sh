#!/bin/bash
# rlc's device run: build, the GPU RLC tests, gfec-nc-gpu-bench, gfec-perf nc (OUT = the logs)
L=$OUT; B=/tmp/b-rlc; t0=$SECONDS
{ nvidia-smi --query-gpu=name,driver_version --format=csv; lscpu | grep -E 'Model name|^CPU\(s\)'; } >$L/machine.log 2>&1
timeout 100 bash -c "cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null && cmake --build $B --target test_nc_backend gfec_nc_gpu_bench gfec_perf -j16" >$L/build.log 2>&1; echo "build rc=$? $((SECONDS-t0))s"; tail -2 $L/build.log
timeout 40 ctest --test-dir $B -R '^nc_backend' --output-on-failure >$L/test.log 2>&1; echo "test rc=$? $((SECONDS-t0))s"; grep -E "ERROR|FAIL|Passed|past" $L/test.log | head
C="$B/perf/gfec-nc-gpu-bench --quick --json $L/nc_gpu_bench.json"; echo "# $C" >$L/nc_gpu_bench.log
timeout 35 $C >>$L/nc_gpu_bench.log 2>&1; echo "bench rc=$? $((SECONDS-t0))s"; grep -E "^dec|^gfec|^# ceil" $L/nc_gpu_bench.log
C="$B/perf/gfec-perf nc --family rlc -a gpu --op batch --n 128,1024 --block 4K,32K -r 3 --json $L/nc_gpu.json"; echo "# $C" >$L/perf_gpu.log
timeout 40 $C >>$L/perf_gpu.log 2>&1; echo "perf gpu rc=$? $((SECONDS-t0))s"; grep -E "RLC" $L/perf_gpu.log
C="$B/perf/gfec-perf nc --family rlc -a cpu --op encode --n 128,256,512,1024 --block 4K,32K -r 3 --json $L/nc_cpu.json"; echo "# $C" >$L/perf_cpu.log
timeout 85 $C >>$L/perf_cpu.log 2>&1; echo "perf cpu rc=$? $((SECONDS-t0))s"; grep -E "RLC" $L/perf_cpu.log
