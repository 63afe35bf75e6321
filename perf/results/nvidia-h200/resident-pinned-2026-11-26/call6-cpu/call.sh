# issue 17: resident engines for pinned calls: the test, every GPU test with engines on, then the daemon beside the CPU path
cd ..
T0=$(date +%s)
cmake -S . -B /tmp/gb -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null && cmake --build /tmp/gb -j16 2>&1 | grep -iE "error|warning" | head -20
echo "build at $(( $(date +%s) - T0 )) s"
timeout 240 /tmp/gb/tests/test_gpu_resident_pinned 2>&1 | tail -25; echo "== test rc ${PIPESTATUS[0]} at $(( $(date +%s) - T0 )) s"
GFEC_GPU_RESIDENT_PINNED=32 ctest --test-dir /tmp/gb -L gpu -j16 --output-on-failure --timeout 300 > $OUT/stress.log 2>&1; echo "== stress (engines on) rc $? at $(( $(date +%s) - T0 )) s"; tail -20 $OUT/stress.log
GFEC_GPU_RESIDENT_PINNED=32 timeout 200 /tmp/gb/perf/gfec-perf daemon -k 10,4 -b "64K 1M" --callers "16 64" -o encode,decode -a cpu,gpu --memory pageable,pinned -d 0.3 -j $OUT/d32_cpu.json > $OUT/d32_cpu.log 2>&1
echo "== cpu,gpu rc $? at $(( $(date +%s) - T0 )) s"; grep -E "^(encode|decode)" $OUT/d32_cpu.log | grep -v "gpu  pageable" | cut -c1-160
GFEC_GPU_RESIDENT_PINNED=32 GFEC_GPU_COALESCE_SLOTS=0 timeout 100 /tmp/gb/perf/gfec-perf daemon -k 10,4 -b "64K" --callers "16 64" -o encode -a gpu --memory pinned -d 0.3 > $OUT/d32_noslots.log 2>&1
echo "== no slots rc $? at $(( $(date +%s) - T0 )) s"; grep -E "^(encode|decode)" $OUT/d32_noslots.log | cut -c1-160
