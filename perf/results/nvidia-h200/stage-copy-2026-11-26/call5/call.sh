# review fixes: a refused post goes to another engine; copies back by non-temporal stores only from 64 KiB a chunk; a lane's pooled copies by byte ranges of every chunk. gb (the fixes) against t0 (3fc9441: review.patch reversed): GPU tests; pageable encode 1M/4M from 1/4 callers in turns (lanes); 64K/256K from 16 callers, pageable and pinned, 16 engines
cd ..
T0=$(date +%s)
R=$(pwd)
mkdir -p /tmp/t0 $OUT/l && tar --exclude=./.git --exclude='./build*' --exclude=./.device --exclude=./.snap -cf - . | tar -xf - -C /tmp/t0 && (cd /tmp/t0 && patch -R -p1 -s < $R/.snap/review.patch) || echo "patch failed"
cmake -S . -B $R/build_gb -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null && cmake --build $R/build_gb -j16 2>&1 | grep -iE "error|warning" | head
cmake -S /tmp/t0 -B $R/build_t0 -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build $R/build_t0 -j16 --target gfec gfec_perf 2>&1 | grep -iE "error|warning" | head
echo "build at $(( $(date +%s) - T0 )) s"
ctest --test-dir $R/build_gb -R "stage_copy|gpu_resident_pinned|gpu_pinned" --output-on-failure --timeout 200 > $OUT/l/t_pinned.log 2>&1; echo "== stage_copy, resident_pinned, gpu_pinned rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|ERROR|LINE|FAILED" $OUT/l/t_pinned.log | head -20
ctest --test-dir $R/build_gb -L gpu -j16 --output-on-failure --timeout 200 > $OUT/l/gpu_tests.log 2>&1; echo "== GPU tests (defaults) rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|ERROR|LINE|FAILED" $OUT/l/gpu_tests.log | head
GFEC_GPU_RESIDENT_PINNED=16 ctest --test-dir $R/build_gb -L gpu -j16 --output-on-failure --timeout 200 > $OUT/l/gpu_tests_engines.log 2>&1; echo "== GPU tests (engines on) rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|ERROR|LINE|FAILED" $OUT/l/gpu_tests_engines.log | head
D() { GFEC_GPU_RESIDENT_PINNED=16 timeout $2 $1/perf/gfec-perf daemon -k 10,4 "${@:4}" -j $OUT/l/$3.json > $OUT/l/$3.log 2>&1; echo "== $3 rc $? at $(( $(date +%s) - T0 )) s $(grep -o 'pinned H2D [0-9.]* GB/s' $OUT/l/$3.log | head -1)"; grep -E "^(encode|decode)" $OUT/l/$3.log | cut -c1-125; }
for r in 1 2; do
  [ $(( $(date +%s) - T0 )) -gt 400 ] && break
  D $R/build_gb 50 gb_few_$r -b "1M 4M" --callers "1 4" -o encode -a gpu --memory pageable -d 0.4
  D $R/build_t0 50 t0_few_$r -b "1M 4M" --callers "1 4" -o encode -a gpu --memory pageable -d 0.4
done
[ $(( $(date +%s) - T0 )) -lt 470 ] && D $R/build_gb 60 gb_16 -b "64K 256K" --callers 16 -o encode -a gpu --memory pageable,pinned -d 0.3
[ $(( $(date +%s) - T0 )) -lt 530 ] && D $R/build_t0 60 t0_16 -b "64K 256K" --callers 16 -o encode -a gpu --memory pageable,pinned -d 0.3
tar -czf $OUT/logs.tgz -C $OUT l && rm -rf $OUT/l
