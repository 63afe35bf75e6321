# every GPU test at defaults and with 16 engines, the tree as committed (call 2's library; tests: test_legacy_stream without the stream query, gpu_resident run alone)
cd ..
T0=$(date +%s)
mkdir -p $OUT/l
cmake -S . -B /tmp/gb -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null && cmake --build /tmp/gb -j16 2>&1 | grep -iE "error|warning" | head
echo "build at $(( $(date +%s) - T0 )) s"
ctest --test-dir /tmp/gb -L gpu -j16 --output-on-failure --timeout 200 > $OUT/l/gpu_tests.log 2>&1; echo "== GPU tests (defaults) rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|ERROR|LINE|FAILED|callers:|of 900" $OUT/l/gpu_tests.log | head
GFEC_GPU_RESIDENT_PINNED=16 ctest --test-dir /tmp/gb -L gpu -j16 --output-on-failure --timeout 200 > $OUT/l/gpu_tests_engines.log 2>&1; echo "== GPU tests (engines on) rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|ERROR|LINE|FAILED|callers:|of 900" $OUT/l/gpu_tests_engines.log | head
for i in 1 2 3; do (cd /tmp/gb/tests && timeout 100 ./test_gpu_resident_pinned > $OUT/l/pinned_$i.log 2>&1; echo "pinned alone $i rc $?"); done
tar -czf $OUT/logs.tgz -C $OUT l && rm -rf $OUT/l
