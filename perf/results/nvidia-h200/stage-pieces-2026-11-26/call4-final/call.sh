# the change as committed: test_gpu_resident_pinned, every GPU test at defaults and with 16 engines, the isal tests; then the stages against the CPU path (pageable 256K-4M, 16 callers, encode and decode) and a pinned row set
cd ..
T0=$(date +%s)
R=$(pwd)
export GFEC_ISAL_REF=$R/.device/root/usr/lib/x86_64-linux-gnu/libisal.so.2.0.30 GFEC_ISAL_LIB=$R/.device/root/usr/lib/x86_64-linux-gnu/libisal.so.2.0.30
mkdir -p $OUT/l
cmake -S . -B /tmp/gb -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null && cmake --build /tmp/gb -j16 2>&1 | grep -iE "error|warning" | head
echo "build at $(( $(date +%s) - T0 )) s"
ctest --test-dir /tmp/gb -R gpu_resident_pinned --output-on-failure --timeout 200 > $OUT/l/t_pinned.log 2>&1; echo "== resident_pinned rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|ERROR|LINE|FAILED|PASSED" $OUT/l/t_pinned.log | head -20
ctest --test-dir /tmp/gb -L gpu -j16 --output-on-failure --timeout 200 > $OUT/l/gpu_tests.log 2>&1; echo "== GPU tests (defaults) rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|ERROR|LINE|FAILED" $OUT/l/gpu_tests.log | head
GFEC_GPU_RESIDENT_PINNED=16 ctest --test-dir /tmp/gb -L gpu -j16 --output-on-failure --timeout 200 > $OUT/l/gpu_tests_engines.log 2>&1; echo "== GPU tests (engines on) rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|ERROR|LINE|FAILED" $OUT/l/gpu_tests_engines.log | head
ctest --test-dir /tmp/gb -R isal --output-on-failure --timeout 300 -j8 > $OUT/l/isal_tests.log 2>&1; echo "== isal tests rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|FAILED" $OUT/l/isal_tests.log | head
D() { GFEC_GPU_RESIDENT_PINNED=16 timeout $1 /tmp/gb/perf/gfec-perf daemon -k 10,4 "${@:3}" -j $OUT/l/$2.json > $OUT/l/$2.log 2>&1; echo "== $2 rc $? at $(( $(date +%s) - T0 )) s $(grep -o 'pinned H2D [0-9.]* GB/s' $OUT/l/$2.log | head -1)"; grep -E "^(encode|decode)" $OUT/l/$2.log | cut -c1-130; }
D 280 cpu -b "256K 1M 4M" --callers 16 -o encode,decode -a cpu,gpu --memory pageable -d 0.3
D 80 pinned -b "256K 1M 4M" --callers "16 64" -o encode -a gpu --memory pinned,pageable -d 0.3
tar -czf $OUT/logs.tgz -C $OUT l && rm -rf $OUT/l
