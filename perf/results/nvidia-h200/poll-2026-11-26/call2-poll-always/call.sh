# call 2: old (HEAD 75f2715) vs new1 (every pinned call polls) vs "new4". new4 was meant to poll from
# 4 calls in flight, but /tmp/gb kept call 1's CMakeCache (-DGFEC_GPU_POLL_CALLERS=1) on the warm
# machine, so new4 is a second new1 build. (The tree has neither knob now.)
cd ..
T0=$(date +%s)
mkdir -p /tmp/old && tar xzf .snap/old.tar.gz -C /tmp/old
( cmake -S /tmp/old -B /tmp/bo -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null && cmake --build /tmp/bo -j5 --target gfec_perf 2>&1 | grep -iE "error|warning|no rule" ) > $OUT/build_old.log 2>&1 &
( cmake -S . -B /tmp/b1 -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DCMAKE_CUDA_FLAGS=-DGFEC_GPU_POLL_CALLERS=1 >/dev/null && cmake --build /tmp/b1 -j5 --target gfec_perf 2>&1 | grep -iE "error|warning|no rule" ) > $OUT/build_new1.log 2>&1 &
( cmake -S . -B /tmp/gb -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null && cmake --build /tmp/gb -j6 2>&1 | grep -iE "error|warning|no rule" ) > $OUT/build_new4.log 2>&1 &
wait; echo "builds $(( $(date +%s) - T0 )) s"
cp /tmp/bo/perf/gfec-perf /tmp/perf-old; cp /tmp/b1/perf/gfec-perf /tmp/perf-new1; cp /tmp/gb/perf/gfec-perf /tmp/perf-new4
timeout 100 ctest --test-dir /tmp/gb -R '^(gpu_pinned|gpu|coalesce_gpu)$' --output-on-failure --timeout 90 -j3 > $OUT/gputest.log 2>&1; echo "gputest $? at $(( $(date +%s) - T0 )) s"; grep "Test *#\|tests passed" $OUT/gputest.log
for r in 1 2; do for v in old new1 new4; do
  timeout 100 /tmp/perf-$v daemon -k 10,4 -b "64K 1M" --callers "1 4 16 64" -o encode -a gpu --memory pinned -d 0.3 > $OUT/ab_${v}_$r.log 2>&1
  echo "== $v $r rc $? at $(( $(date +%s) - T0 )) s"; grep -E "^encode" $OUT/ab_${v}_$r.log | cut -c1-110
done; done
