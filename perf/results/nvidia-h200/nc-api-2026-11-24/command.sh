source .device/env.sh; B=build-gpu-ncg; L=$OUT; t0=$SECONDS
{ nvidia-smi --query-gpu=name,driver_version --format=csv; lscpu | grep -E 'Model name|^CPU\(s\)'; } >$L/machine.log 2>&1
timeout 115 bash -c "cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON && cmake --build $B --target test_nc_backend gfec_perf -j16" >$L/build.log 2>&1; echo "build rc=$? $((SECONDS-t0))s"; tail -5 $L/build.log
timeout 45 ctest --test-dir $B -R '^nc_backend' --output-on-failure >$L/test.log 2>&1; echo "test rc=$? $((SECONDS-t0))s"; tail -30 $L/test.log
C="$B/perf/gfec-perf nc -a gpu --n 128,256,1024 --block 4K,32K -r 3 --json $L/nc_gpu.json"; echo "# $C" >$L/perf_gpu.log
timeout 72 $C >>$L/perf_gpu.log 2>&1; echo "perf gpu rc=$? $((SECONDS-t0))s"; cat $L/perf_gpu.log
