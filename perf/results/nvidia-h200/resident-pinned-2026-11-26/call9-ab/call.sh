# issue 17, final call of the stop: every GPU test (default settings, then engines on through the environment), then the daemon A/B at 64 KiB from 1-64 callers
cd ..
T0=$(date +%s)
git log --oneline | head -1
cmake -S . -B /tmp/gb -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null && cmake --build /tmp/gb -j16 2>&1 | grep -iE "error|warning" | head -20
echo "build at $(( $(date +%s) - T0 )) s"
ctest --test-dir /tmp/gb -L gpu -j16 --output-on-failure --timeout 300 > $OUT/stress_default.log 2>&1; echo "== GPU tests (defaults) rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|Failed|\*\*\*" $OUT/stress_default.log
GFEC_GPU_RESIDENT_PINNED=32 ctest --test-dir /tmp/gb -L gpu -j16 --output-on-failure --timeout 300 > $OUT/stress_engines.log 2>&1; echo "== GPU tests (GFEC_GPU_RESIDENT_PINNED=32) rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|Failed|\*\*\*" $OUT/stress_engines.log
for r in 1 2; do for N in 0 32; do
  GFEC_GPU_RESIDENT_PINNED=$N timeout 150 /tmp/gb/perf/gfec-perf daemon -k 10,4 -b 64K --callers "1 4 16 64" -o encode,decode -a gpu --memory pinned -d 0.3 -j $OUT/d_${N}_$r.json > $OUT/d_${N}_$r.log 2>&1
  echo "== N=$N r=$r rc $? at $(( $(date +%s) - T0 )) s"; grep -E "^(encode|decode)" $OUT/d_${N}_$r.log | cut -c1-160
done; done
