# the engines' relaunch fix (46b3472): every GPU test at defaults and with 16 engines, test_gpu_resident_pinned 3 times; pinned and pageable encode 64K/256K from 16/64 callers
cd ..
T0=$(date +%s)
R=$(pwd)
mkdir -p $OUT/l
cmake -S . -B $R/build_gb -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null && cmake --build $R/build_gb -j16 2>&1 | grep -iE "error|warning" | head
echo "build at $(( $(date +%s) - T0 )) s"
ctest --test-dir $R/build_gb -R "stage_copy|gpu_resident_pinned" --repeat until-fail:3 --output-on-failure --timeout 200 > $OUT/l/t_pinned.log 2>&1; echo "== stage_copy, resident_pinned x3 rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|ERROR|LINE|FAILED" $OUT/l/t_pinned.log | head -20
ctest --test-dir $R/build_gb -L gpu -j16 --output-on-failure --timeout 200 > $OUT/l/gpu_tests.log 2>&1; echo "== GPU tests (defaults) rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|ERROR|LINE|FAILED" $OUT/l/gpu_tests.log | head
GFEC_GPU_RESIDENT_PINNED=16 ctest --test-dir $R/build_gb -L gpu -j16 --output-on-failure --timeout 200 > $OUT/l/gpu_tests_engines.log 2>&1; echo "== GPU tests (engines on) rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|ERROR|LINE|FAILED" $OUT/l/gpu_tests_engines.log | head
D() { GFEC_GPU_RESIDENT_PINNED=16 timeout $2 $1/perf/gfec-perf daemon -k 10,4 "${@:4}" -j $OUT/l/$3.json > $OUT/l/$3.log 2>&1; echo "== $3 rc $? at $(( $(date +%s) - T0 )) s $(grep -o 'pinned H2D [0-9.]* GB/s' $OUT/l/$3.log | head -1)"; grep -E "^(encode|decode)|^# staged" $OUT/l/$3.log | cut -c1-200; }
D $R/build_gb 80 gb -b "64K 256K" --callers "16 64" -o encode -a gpu --memory pageable,pinned -d 0.3
tar -czf $OUT/logs.tgz -C $OUT l && rm -rf $OUT/l
