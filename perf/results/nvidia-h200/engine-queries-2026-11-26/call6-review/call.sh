# after the review: serve_pinned counts a request's bytes only once it is posted, and test_where_pinned's encode_in goes through stripe_encode; every GPU test at defaults and with 16 engines
cd ..
T0=$(date +%s)
mkdir -p $OUT/l
cmake -S . -B /tmp/gb -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null && cmake --build /tmp/gb -j16 2>&1 | grep -iE "error|warning" | head
echo "build at $(( $(date +%s) - T0 )) s"
ctest --test-dir /tmp/gb -L gpu -j16 --output-on-failure --timeout 200 > $OUT/l/gpu_tests.log 2>&1; echo "== GPU tests (defaults) rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|ERROR|LINE|FAILED" $OUT/l/gpu_tests.log | head
GFEC_GPU_RESIDENT_PINNED=16 ctest --test-dir /tmp/gb -L gpu -j16 --output-on-failure --timeout 200 > $OUT/l/gpu_tests_engines.log 2>&1; echo "== GPU tests (engines on) rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|ERROR|LINE|FAILED" $OUT/l/gpu_tests_engines.log | head
tar -czf $OUT/logs.tgz -C $OUT l && rm -rf $OUT/l
