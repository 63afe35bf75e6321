#!/bin/bash
# device call 2 (perf/results/nvidia-h200/ltapi-2026-11-25/): build 5af50d2, the GPU tests of the
# LT encode through gfec_nc.h, the encoder alone (contiguous and into 28-byte-header blocks), then
# gfec-perf nc's LT GPU rows: fa16663's binary (base-perf) and this tree's in turns at 262144
# blocks per call, and this tree's at 1048576
set -u
B=/tmp/gfec-build
R=$OUT/r; mkdir -p $B $R
{ nvidia-smi --query-gpu=name,driver_version --format=csv; lscpu | grep -E 'Model name|^CPU\(s\)'; git log --oneline -1 2>/dev/null; } > $R/machine.txt 2>&1
t0=$SECONDS
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null && cmake --build $B -j16 > $R/build.log 2>&1
echo "build exit $? in $((SECONDS-t0)) s" | tee -a $R/run.log
t0=$SECONDS
timeout 330 ctest --test-dir $B -R '^(lt_gpu|lt_emulate|nc_backend_gpu|nc_backend_gpu_two_contexts|nc_gpu|cli_nc_gpu|perf_nc|nc_gpu_mock)$' --output-on-failure > $R/tests.log 2>&1
echo "tests exit $? in $((SECONDS-t0)) s" | tee -a $R/run.log
grep -E "Test +#|tests passed" $R/tests.log
timeout 60 $B/perf/gfec-lt-gpu-bench -r 7 > $R/lt_gpu_bench.txt 2>&1; echo "lt-gpu-bench exit $?" | tee -a $R/run.log
timeout 60 $B/perf/gfec-lt-gpu-bench -N 1048576 -r 5 > $R/lt_gpu_bench_1M.txt 2>&1; echo "lt-gpu-bench 1M exit $?" | tee -a $R/run.log
grep -E "^encode|into 28|^bound" $R/lt_gpu_bench*.txt
for r in 1 2 3; do
  for v in base new new1M; do
    bin=./base-perf; extra=""
    [ $v != base ] && bin=$B/perf/gfec-perf
    [ $v = new1M ] && extra="--lt-gpu-blocks 1048576"
    echo "# round $r: gfec-perf nc -a gpu --family lt --quick --lt-n 1024,10240 $extra" >> $R/nc_lt_$v.txt
    timeout 100 $bin nc -a gpu --family lt --quick --lt-n 1024,10240 $extra --json $R/nc_lt_${v}_$r.json >> $R/nc_lt_$v.txt 2>&1
    echo "$v $r exit $?" >> $R/run.log
  done
done
grep -H "^encode" $R/nc_lt_*.txt
tar -czf $OUT/call2.tgz -C $OUT r
