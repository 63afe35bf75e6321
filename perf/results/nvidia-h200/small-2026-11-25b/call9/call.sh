# Call 9: the tree at 7303f53 (A) against the same with __launch_bounds__(THREADS, 2) at 512
# threads on gf_gemm_nibble and gf_gemm_nibble_inline too (B), built side by side on the device,
# then gfec-gpu-bench --quick and --small for A, B, A, B (quick.log, small.log).
set -u
src=$PWD
mkdir -p /tmp/B && (git ls-files >/dev/null 2>&1; tar --exclude=./.device -cf - .) | tar -x -C /tmp/B
sed -i 's/__global__ void __launch_bounds__(THREADS) gf_gemm_nibble(GemmArgs args)/__global__ void __launch_bounds__(THREADS, THREADS == 512 ? 2 : 0) gf_gemm_nibble(GemmArgs args)/; s/__global__ void __launch_bounds__(THREADS) gf_gemm_nibble_inline(/__global__ void __launch_bounds__(THREADS, THREADS == 512 ? 2 : 0) gf_gemm_nibble_inline(/' /tmp/B/cuda_gemm/kernel/gemm_nibble.cuh
grep -c "THREADS == 512 ? 2 : 0" /tmp/B/cuda_gemm/kernel/gemm_nibble.cuh
(cmake -S $src -B /tmp/gA -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null && cmake --build /tmp/gA -j8 --target gfec_gpu_bench >/dev/null 2>$OUT/bA.err; echo A $?) &
(cmake -S /tmp/B -B /tmp/gB -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null && cmake --build /tmp/gB -j8 --target gfec_gpu_bench >/dev/null 2>$OUT/bB.err; echo B $?) &
wait
for r in 1 2; do for v in A B; do
  echo "## $v run $r" >> $OUT/quick.log
  timeout 200 /tmp/g$v/perf/gfec-gpu-bench --quick --json $OUT/quick_$v$r.json >> $OUT/quick.log 2>&1
  echo "## $v small $r" >> $OUT/small.log
  timeout 60 /tmp/g$v/perf/gfec-gpu-bench --small >> $OUT/small.log 2>&1
done; done
