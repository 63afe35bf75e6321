# the final reading's refactor (pitch_of, resident_takes shared by run_resident and stage_fits; no behaviour change): test_gpu_resident_pinned, every GPU test at defaults and with 16 engines, the isal tests
cd ..
T0=$(date +%s)
R=$(pwd)
export GFEC_ISAL_REF=$R/.device/root/usr/lib/x86_64-linux-gnu/libisal.so.2.0.30 GFEC_ISAL_LIB=$R/.device/root/usr/lib/x86_64-linux-gnu/libisal.so.2.0.30
mkdir -p $OUT/l
cmake -S . -B /tmp/gb -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null && cmake --build /tmp/gb -j16 2>&1 | grep -iE "error|warning" | head
echo "build at $(( $(date +%s) - T0 )) s"
ctest --test-dir /tmp/gb -R gpu_resident_pinned --output-on-failure --timeout 200 > $OUT/l/t_pinned.log 2>&1; echo "== resident_pinned rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|FAILED" $OUT/l/t_pinned.log | head
ctest --test-dir /tmp/gb -L gpu -j16 --output-on-failure --timeout 200 > $OUT/l/gpu_tests.log 2>&1; echo "== GPU tests (defaults) rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|FAILED" $OUT/l/gpu_tests.log | head
GFEC_GPU_RESIDENT_PINNED=16 ctest --test-dir /tmp/gb -L gpu -j16 --output-on-failure --timeout 200 > $OUT/l/gpu_tests_engines.log 2>&1; echo "== GPU tests (engines on) rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|FAILED" $OUT/l/gpu_tests_engines.log | head
ctest --test-dir /tmp/gb -R isal --output-on-failure --timeout 300 -j8 > $OUT/l/isal_tests.log 2>&1; echo "== isal tests rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|FAILED" $OUT/l/isal_tests.log | head
tar -czf $OUT/logs.tgz -C $OUT l && rm -rf $OUT/l
