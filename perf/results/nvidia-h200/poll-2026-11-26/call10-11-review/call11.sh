# call 11: test_gpu_pinned after the fix of call 10 (every pinned pool allocated before the first trap); then the
# same test against a build whose polling callers never query the stream (kQueryLooks 2^30): it must hang (60 s)
cd ..
T0=$(date +%s)
rm -rf /tmp/mut && mkdir -p /tmp/mut && cp -r $(ls -A | grep -v "^\.device$\|^\.snap$\|^\.git$\|^build") /tmp/mut/
sed -i 's/constexpr unsigned kQueryLooks = 16;/constexpr unsigned kQueryLooks = 1u << 30;/' /tmp/mut/cuda_gemm/device/backend.cu; grep -c "1u << 30" /tmp/mut/cuda_gemm/device/backend.cu
( cmake -S /tmp/mut -B /tmp/bm -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null && cmake --build /tmp/bm -j5 --target test_gpu_pinned 2>&1 | grep -iE "error|warning|no rule" ) > $OUT/build_mut.log 2>&1 &
GFEC_BUILD=/tmp/gb bash perf/device_run.sh "$OUT" build > $OUT/build.log 2>&1
wait; echo "builds $(( $(date +%s) - T0 )) s"; tail -2 $OUT/build.log; cat $OUT/build_mut.log
ctest --test-dir /tmp/gb -R "^(gpu_pinned|gpu_split)$" --output-on-failure --timeout 300 > $OUT/gputest.log 2>&1; echo "gputest $? at $(( $(date +%s) - T0 )) s"; grep -E "Test +#|tests passed" $OUT/gputest.log
/tmp/gb/tests/test_gpu_pinned > $OUT/pinned.log 2>&1; echo "pinned rc $?"; grep "fault=cuda-kernel" $OUT/pinned.log
timeout 60 /tmp/bm/tests/test_gpu_pinned > $OUT/mut.log 2>&1; echo "mutant rc $? at $(( $(date +%s) - T0 )) s (124: hung, as it must)"; tail -5 $OUT/mut.log
