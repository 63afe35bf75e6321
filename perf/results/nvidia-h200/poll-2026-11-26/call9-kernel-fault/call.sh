# call 9: GFEC_FAULT=cuda-kernel (test_gpu_pinned's last test) on the tree; then the same test against a build whose
# polling callers never query the stream (kQueryLooks 2^30): it must hang there (timeout 90 s)
cd ..
T0=$(date +%s)
rm -rf /tmp/mut && mkdir -p /tmp/mut && cp -r $(ls -A | grep -v "^\.device$\|^\.snap$\|^\.git$\|^build") /tmp/mut/
sed -i 's/constexpr unsigned kQueryLooks = 16;/constexpr unsigned kQueryLooks = 1u << 30;/' /tmp/mut/cuda_gemm/device/backend.cu; grep -c "1u << 30" /tmp/mut/cuda_gemm/device/backend.cu
( cmake -S /tmp/mut -B /tmp/bm -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null && cmake --build /tmp/bm -j5 --target test_gpu_pinned 2>&1 | grep -iE "error|warning|no rule" ) > $OUT/build_mut.log 2>&1 &
GFEC_BUILD=/tmp/gb bash perf/device_run.sh "$OUT" build > $OUT/build.log 2>&1
wait; echo "builds $(( $(date +%s) - T0 )) s"; tail -2 $OUT/build.log; cat $OUT/build_mut.log
ctest --test-dir /tmp/gb -R '^(gpu_pinned|gpu_split|gpu|coalesce_gpu)$' --output-on-failure --timeout 300 -j4 > $OUT/gputest.log 2>&1; echo "gputest $? at $(( $(date +%s) - T0 )) s"; grep -E "Test +#|tests passed|fault=cuda-kernel" $OUT/gputest.log
timeout 90 /tmp/bm/tests/test_gpu_pinned > $OUT/mut.log 2>&1; echo "mutant rc $? at $(( $(date +%s) - T0 )) s (124: hung, as it must)"; tail -5 $OUT/mut.log
GFEC_BUILD=/tmp/gb timeout 200 bash perf/device_run.sh "$OUT" stress > $OUT/stress.log 2>&1; echo "stress $? at $(( $(date +%s) - T0 )) s"
mkdir -p /tmp/s && tar xzf $OUT/logs.tar.gz -C /tmp/s && cp /tmp/s/logs/stress.log $OUT/stress.log && grep -E "tests passed|Failed|\*\*\*" $OUT/stress.log
