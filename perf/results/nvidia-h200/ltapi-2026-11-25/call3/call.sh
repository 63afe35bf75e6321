#!/bin/bash
# device call 3 (perf/results/nvidia-h200/ltapi-2026-11-25/call3/): build aa70ad6, the GPU tests of
# gfec_nc.h's encodes, then gfec-perf nc's RLC GPU encode rows from fa16663's binary (base-perf)
# and this tree's in turns, and the LT rows once more
set -u
B=/tmp/gfec-build
R=$OUT/call3; mkdir -p $B $R
{ nvidia-smi --query-gpu=name,driver_version --format=csv; lscpu | grep -E 'Model name|^CPU\(s\)'; } > $R/machine.txt 2>&1
t0=$SECONDS
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null && cmake --build $B -j16 > $R/build.log 2>&1
echo "build exit $? in $((SECONDS-t0)) s" | tee -a $R/run.log
t0=$SECONDS
timeout 200 ctest --test-dir $B -R '^(lt_gpu|nc_backend_gpu|nc_backend_gpu_two_contexts|nc_gpu|cli_nc_gpu|nc_gpu_mock|nc_backend)$' --output-on-failure > $R/tests.log 2>&1
echo "tests exit $? in $((SECONDS-t0)) s" | tee -a $R/run.log
grep -E "Test +#|tests passed" $R/tests.log
for r in 1 2 3; do
  for v in base new; do
    bin=./base-perf; [ $v = new ] && bin=$B/perf/gfec-perf
    echo "# round $r: gfec-perf nc -a gpu --family rlc --op encode --n 128,1024 --block 1K,4K,32K" >> $R/nc_rlc_$v.txt
    timeout 120 $bin nc -a gpu --family rlc --op encode --n 128,1024 --block 1K,4K,32K --json $R/nc_rlc_${v}_$r.json >> $R/nc_rlc_$v.txt 2>&1
    echo "$v $r exit $?" >> $R/run.log
  done
done
grep -H "^encode" $R/nc_rlc_*.txt
timeout 100 $B/perf/gfec-perf nc -a gpu --family lt --quick --lt-n 1024,10240 --json $R/nc_lt_new.json > $R/nc_lt_new.txt 2>&1
grep "^encode" $R/nc_lt_new.txt
tar -czf $OUT/call3.tgz -C $OUT call3
