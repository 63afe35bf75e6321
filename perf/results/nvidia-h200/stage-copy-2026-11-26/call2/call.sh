# engines of 8 blocks (g8) against 4 (gb) for pageable and pinned 64K/256K from 8/16 callers, in turns; then cpu and gpu rows in one run for CPU-s/GB (pageable and pinned, 16 callers)
cd ..
T0=$(date +%s)
R=$(pwd)
mkdir -p /tmp/g8 $OUT/l && tar --exclude=./.git --exclude='./build*' --exclude=./.device --exclude=./.snap -cf - . | tar -xf - -C /tmp/g8 && sed -i 's/^constexpr int kHostBlocks = 4;/constexpr int kHostBlocks = 8;/' /tmp/g8/cuda_gemm/device/resident.cu && grep -n "kHostBlocks = " /tmp/g8/cuda_gemm/device/resident.cu
cmake -S . -B $R/build_gb -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build $R/build_gb -j16 --target gfec gfec_perf 2>&1 | grep -iE "error|warning" | head
cmake -S /tmp/g8 -B $R/build_g8 -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build $R/build_g8 -j16 --target gfec gfec_perf 2>&1 | grep -iE "error|warning" | head
echo "build at $(( $(date +%s) - T0 )) s"
D() { GFEC_GPU_RESIDENT_PINNED=16 timeout $2 $1/perf/gfec-perf daemon -k 10,4 "${@:4}" -j $OUT/l/$3.json > $OUT/l/$3.log 2>&1; echo "== $3 rc $? at $(( $(date +%s) - T0 )) s $(grep -o 'pinned H2D [0-9.]* GB/s' $OUT/l/$3.log | head -1)"; grep -E "^(encode|decode)|^# staged|^# cpu-s" $OUT/l/$3.log | cut -c1-200; }
for r in 1 2; do
  [ $(( $(date +%s) - T0 )) -gt 260 ] && break
  D $R/build_gb 60 gb_$r -b "64K 256K" --callers "8 16" -o encode -a gpu --memory pageable,pinned -d 0.3
  D $R/build_g8 60 g8_$r -b "64K 256K" --callers "8 16" -o encode -a gpu --memory pageable,pinned -d 0.3
done
D $R/build_gb 290 cpu -b "64K 256K 1M" --callers 16 -o encode -a cpu,gpu --memory pageable,pinned -d 0.3
tar -czf $OUT/logs.tgz -C $OUT l && rm -rf $OUT/l
