cd ..
b=/tmp/gb
{ cmake -S . -B $b -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null && cmake --build $b -j16 2>&1 | grep -E "error|warning" ; } > $OUT/build.log 2>&1; echo "build $?"
ctest --test-dir $b -R '^(gpu_pinned|gpu|coalesce_gpu|isal_abi_gpu.*|codec_gpu.*)$' --output-on-failure --timeout 600 -j4 > $OUT/gputest.log 2>&1; echo "gputest $?"; grep "Test *#\|tests passed" $OUT/gputest.log
cp $b/perf/gfec-perf .snap/gfec-perf-new
cd .snap
for r in 1 2; do for v in old new; do ./gfec-perf-$v daemon -k 10,4 -b "4K 64K 1M" --callers "16 64" -o encode -a gpu --memory pinned -d 0.4 > $OUT/ab_${v}_$r.log 2>&1; echo "== $v $r"; grep -E "^encode" $OUT/ab_${v}_$r.log | cut -c1-100; done; done
