# staged stripes for the engines without a lane (run_stage, holds_lane): test_gpu_resident_pinned; gfec-perf daemon pageable for gb (this tree) and t0 (the tip) in turns, 16 engines, default lanes (8); then every GPU test at defaults and with 16 engines
cd ..
T0=$(date +%s)
R=$(pwd)
mkdir -p /tmp/t0 $OUT/l && tar --exclude=./.git --exclude=./build --exclude=./.device --exclude=./.snap -cf - . | tar -xf - -C /tmp/t0 && (cd /tmp/t0 && patch -R -p1 -s < $R/.snap/stage.patch) || echo "patch failed"
cmake -S . -B /tmp/gb -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null && cmake --build /tmp/gb -j16 2>&1 | grep -iE "error|warning" | head
cmake -S /tmp/t0 -B /tmp/t0/b -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build /tmp/t0/b -j16 --target gfec gfec_perf 2>&1 | grep -iE "error|warning" | head
echo "build at $(( $(date +%s) - T0 )) s"
ctest --test-dir /tmp/gb -R gpu_resident_pinned --output-on-failure --timeout 200 > $OUT/l/t_pinned.log 2>&1; echo "== resident_pinned rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|ERROR|LINE|FAILED|PASSED" $OUT/l/t_pinned.log | head -20
D() { GFEC_GPU_RESIDENT_PINNED=16 timeout 120 $1/perf/gfec-perf daemon -k 10,4 "${@:3}" -j $OUT/l/$2.json > $OUT/l/$2.log 2>&1; echo "== $2 rc $? at $(( $(date +%s) - T0 )) s $(grep -o 'pinned H2D [0-9.]* GB/s' $OUT/l/$2.log | head -1)"; grep -E "^(encode|decode)" $OUT/l/$2.log | cut -c1-150; }
D /tmp/gb gb_1 -b "64K 256K 1M" --callers "16 64" -o encode,decode -a cpu,gpu --memory pageable -d 0.3
D /tmp/t0/b t0_1 -b "64K 256K" --callers "16 64" -o encode -a gpu --memory pageable -d 0.3
D /tmp/gb gb_2 -b "64K 256K" --callers "1 4 16 64" -o encode -a gpu --memory pageable,pinned -d 0.3
D /tmp/t0/b t0_2 -b "64K 256K" --callers "16 64" -o encode -a gpu --memory pageable -d 0.3
ctest --test-dir /tmp/gb -L gpu -j16 --output-on-failure --timeout 200 > $OUT/l/gpu_tests.log 2>&1; echo "== GPU tests (defaults) rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|ERROR|LINE|FAILED" $OUT/l/gpu_tests.log | head
[ $(( $(date +%s) - T0 )) -lt 520 ] && GFEC_GPU_RESIDENT_PINNED=16 ctest --test-dir /tmp/gb -L gpu -j16 --output-on-failure --timeout 200 > $OUT/l/gpu_tests_engines.log 2>&1; echo "== GPU tests (engines on) rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|ERROR|LINE|FAILED" $OUT/l/gpu_tests_engines.log | head
tar -czf $OUT/logs.tgz -C $OUT l && rm -rf $OUT/l
