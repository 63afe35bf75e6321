# issue 17: pinned engines as clusters of 4 blocks (kHostBlocks): tests, then the daemon at 64 KiB from 1-64 callers, launches against 8, 16, 32 engines
cd ..
T0=$(date +%s)
cmake -S . -B /tmp/gb -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null && cmake --build /tmp/gb -j16 2>&1 | grep -iE "error|warning" | head
echo "build at $(( $(date +%s) - T0 )) s"
for t in gpu_resident_pinned gpu_resident; do timeout 200 /tmp/gb/tests/test_$t 2>&1 | grep -E "ERROR|LINE|FAILED|PASSED|differs"; done
echo "tests at $(( $(date +%s) - T0 )) s"
for N in 0 8 16 32; do
  GFEC_GPU_RESIDENT_PINNED=$N timeout 150 /tmp/gb/perf/gfec-perf daemon -k 10,4 -b 64K --callers "1 4 16 64" -o encode -a gpu --memory pinned -d 0.3 -j $OUT/d_$N.json > $OUT/d_$N.log 2>&1
  echo "== N=$N rc $? at $(( $(date +%s) - T0 )) s $(grep -o 'pinned H2D [0-9.]* GB/s' $OUT/d_$N.log | head -1)"; grep -E "^(encode|decode)" $OUT/d_$N.log | cut -c1-130
done
