# call 5: the tree, CPU and GPU rows in one run (CPU-s/GB against the CPU path's), encode and decode, twice
cd ..
T0=$(date +%s)
[ -x /tmp/gb/perf/gfec-perf ] || { cmake -S . -B /tmp/gb -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null && cmake --build /tmp/gb -j16 --target gfec_perf 2>&1 | grep -iE "error|warning|no rule"; }
echo "build at $(( $(date +%s) - T0 )) s"
for r in 1 2; do
  timeout 200 /tmp/gb/perf/gfec-perf daemon -k 10,4 -b "64K 1M" --callers "16 64" -o encode,decode -a cpu,gpu --memory pageable,pinned -d 0.4 -j $OUT/daemon_$r.json > $OUT/daemon_$r.log 2>&1
  echo "== $r rc $? at $(( $(date +%s) - T0 )) s"; grep -E "^(encode|decode)" $OUT/daemon_$r.log | cut -c1-150
done
