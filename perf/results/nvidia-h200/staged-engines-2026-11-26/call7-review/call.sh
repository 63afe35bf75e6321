# after the review: stages only with pinned memory read in place (gpu_pinned=dma keeps the copy engines) and a working engine; 'staged' counts calls through a lane or a stage; test_holds_lane with a dma context. test_gpu_resident_pinned, every GPU test at defaults and with 16 engines, one daemon row set
cd ..
T0=$(date +%s)
mkdir -p $OUT/l
cmake -S . -B /tmp/gb -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null && cmake --build /tmp/gb -j16 2>&1 | grep -iE "error|warning" | head
echo "build at $(( $(date +%s) - T0 )) s"
ctest --test-dir /tmp/gb -R gpu_resident_pinned --output-on-failure --timeout 200 > $OUT/l/t_pinned.log 2>&1; echo "== resident_pinned rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|ERROR|LINE|FAILED|PASSED" $OUT/l/t_pinned.log | head -20
ctest --test-dir /tmp/gb -L gpu -j16 --output-on-failure --timeout 200 > $OUT/l/gpu_tests.log 2>&1; echo "== GPU tests (defaults) rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|ERROR|LINE|FAILED" $OUT/l/gpu_tests.log | head
GFEC_GPU_RESIDENT_PINNED=16 ctest --test-dir /tmp/gb -L gpu -j16 --output-on-failure --timeout 200 > $OUT/l/gpu_tests_engines.log 2>&1; echo "== GPU tests (engines on) rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|ERROR|LINE|FAILED" $OUT/l/gpu_tests_engines.log | head
GFEC_GPU_RESIDENT_PINNED=16 timeout 90 /tmp/gb/perf/gfec-perf daemon -k 10,4 -b 64K --callers "16 64" -o encode,decode -a gpu --memory pageable,pinned -d 0.3 -j $OUT/l/d.json > $OUT/l/d.log 2>&1; echo "== daemon rc $? at $(( $(date +%s) - T0 )) s $(grep -o 'pinned H2D [0-9.]* GB/s' $OUT/l/d.log | head -1)"; grep -E "^(encode|decode)" $OUT/l/d.log | cut -c1-150
tar -czf $OUT/logs.tgz -C $OUT l && rm -rf $OUT/l
