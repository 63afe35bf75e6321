# issue 17, the tip (fifo gate, engine used last): the resident tests, every GPU test with GFEC_GPU_RESIDENT_PINNED=16, then 64 KiB launches against 16 engines from 1-64 callers
cd ..
T0=$(date +%s)
cmake -S . -B /tmp/gb -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null && cmake --build /tmp/gb -j16 2>&1 | grep -iE "error|warning" | head
echo "build at $(( $(date +%s) - T0 )) s"
GFEC_GPU_RESIDENT_PINNED=16 ctest --test-dir /tmp/gb -L gpu -j16 --output-on-failure --timeout 300 > $OUT/gpu_tests_engines.log 2>&1; echo "== GPU tests (engines on) rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|ERROR|LINE" $OUT/gpu_tests_engines.log | head
for N in 0 16; do
  GFEC_GPU_RESIDENT_PINNED=$N timeout 150 /tmp/gb/perf/gfec-perf daemon -k 10,4 -b 64K --callers "1 4 16 64" -o encode,decode -a gpu --memory pinned -d 0.3 -j $OUT/d_$N.json > $OUT/d_$N.log 2>&1
  echo "== N=$N rc $? at $(( $(date +%s) - T0 )) s $(grep -o 'pinned H2D [0-9.]* GB/s' $OUT/d_$N.log | head -1)"; grep -E "^(encode|decode)" $OUT/d_$N.log | cut -c1-130
done
