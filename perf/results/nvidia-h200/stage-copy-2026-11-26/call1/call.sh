# staging copies all chunks at once (stage_copy.c) instead of memcpy one after the other, and the daemon's staging-copies bound: tests; gfec-stage-copy-bench; gb against t0 (gb with copy.patch reversed: memcpy) in turns, pageable encode 64K-1M from 16/64 callers, 16 engines
cd ..
T0=$(date +%s)
R=$(pwd)
mkdir -p /tmp/t0 $OUT/l && tar --exclude=./.git --exclude='./build*' --exclude=./.device --exclude=./.snap -cf - . | tar -xf - -C /tmp/t0 && (cd /tmp/t0 && patch -R -p1 -s < $R/.snap/copy.patch) || echo "patch failed"
cmake -S . -B $R/build_gb -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null && cmake --build $R/build_gb -j16 2>&1 | grep -iE "error|warning" | head
cmake -S /tmp/t0 -B $R/build_t0 -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build $R/build_t0 -j16 --target gfec gfec_perf 2>&1 | grep -iE "error|warning" | head
echo "build at $(( $(date +%s) - T0 )) s"
lscpu | grep -E "Model name|^CPU\(s\)|L3" > $OUT/l/lscpu.txt; cat $OUT/l/lscpu.txt
for T in 16 1; do $R/build_gb/perf/gfec-stage-copy-bench -T $T -b 64K -d 0.5 -r 3; done > $OUT/l/stage_bench.log 2>&1; cat $OUT/l/stage_bench.log
ctest --test-dir $R/build_gb -R "stage_copy|gpu_resident_pinned" --output-on-failure --timeout 200 > $OUT/l/t_pinned.log 2>&1; echo "== stage_copy, resident_pinned rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|ERROR|LINE|FAILED|PASSED" $OUT/l/t_pinned.log | head -20
ctest --test-dir $R/build_gb -L gpu -j16 --output-on-failure --timeout 200 > $OUT/l/gpu_tests.log 2>&1; echo "== GPU tests (defaults) rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|ERROR|LINE|FAILED" $OUT/l/gpu_tests.log | head
GFEC_GPU_RESIDENT_PINNED=16 ctest --test-dir $R/build_gb -L gpu -j16 --output-on-failure --timeout 200 > $OUT/l/gpu_tests_engines.log 2>&1; echo "== GPU tests (engines on) rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|ERROR|LINE|FAILED" $OUT/l/gpu_tests_engines.log | head
D() { GFEC_GPU_RESIDENT_PINNED=16 timeout $2 $1/perf/gfec-perf daemon -k 10,4 "${@:4}" -j $OUT/l/$3.json > $OUT/l/$3.log 2>&1; echo "== $3 rc $? at $(( $(date +%s) - T0 )) s $(grep -o 'pinned H2D [0-9.]* GB/s' $OUT/l/$3.log | head -1)"; grep -E "^(encode|decode)|^# staged|^# cpu-s" $OUT/l/$3.log | cut -c1-200; }
for r in 1 2; do
  [ $(( $(date +%s) - T0 )) -gt 450 ] && break
  D $R/build_gb 70 gb_$r -b "64K 256K 1M" --callers "16 64" -o encode -a gpu --memory pageable -d 0.3
  D $R/build_t0 70 t0_$r -b "64K 256K 1M" --callers "16 64" -o encode -a gpu --memory pageable -d 0.3
done
tar -czf $OUT/logs.tgz -C $OUT l && rm -rf $OUT/l
