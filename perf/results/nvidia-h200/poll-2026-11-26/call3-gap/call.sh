# call 3: old (HEAD 75f2715) vs p1 (every pinned call polls every 5 us) vs p1s (the gap 3 us x pollers,
# at least 5 us). GFEC_GPU_POLL_CALLERS / GFEC_GPU_POLL_PER were experiment-only macros, not kept.
cd ..
T0=$(date +%s)
rm -rf /tmp/old /tmp/bo /tmp/b1 /tmp/b2 /tmp/gb; mkdir -p /tmp/old && tar xzf .snap/old.tar.gz -C /tmp/old
( cmake -S /tmp/old -B /tmp/bo -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null && cmake --build /tmp/bo -j5 --target gfec_perf 2>&1 | grep -iE "error|warning|no rule" ) > $OUT/build_old.log 2>&1 &
( cmake -S . -B /tmp/b1 -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DCMAKE_CUDA_FLAGS=-DGFEC_GPU_POLL_CALLERS=1 >/dev/null && cmake --build /tmp/b1 -j5 --target gfec_perf 2>&1 | grep -iE "error|warning|no rule" ) > $OUT/build_p1.log 2>&1 &
( cmake -S . -B /tmp/b2 -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF "-DCMAKE_CUDA_FLAGS=-DGFEC_GPU_POLL_CALLERS=1 -DGFEC_GPU_POLL_PER=3000" >/dev/null && cmake --build /tmp/b2 -j6 --target gfec_perf 2>&1 | grep -iE "error|warning|no rule" ) > $OUT/build_p1s.log 2>&1 &
wait; echo "builds $(( $(date +%s) - T0 )) s"
cp /tmp/bo/perf/gfec-perf /tmp/perf-old; cp /tmp/b1/perf/gfec-perf /tmp/perf-p1; cp /tmp/b2/perf/gfec-perf /tmp/perf-p1s
for r in 1 2; do for v in old p1 p1s; do
  timeout 100 /tmp/perf-$v daemon -k 10,4 -b "4K 64K 1M" --callers "1 4 16 64" -o encode -a gpu --memory pinned -d 0.3 > $OUT/ab_${v}_$r.log 2>&1
  echo "== $v $r rc $? at $(( $(date +%s) - T0 )) s"; grep -E "^encode" $OUT/ab_${v}_$r.log | cut -c1-110
done; done
