# the first look of a pinned wait at 5/4 of the engine's estimate while others poll (gb) against 3/2 (s15) and 2 (s20): pinned encode 64K/256K from 16/64 callers, 16 engines, in turns; GB/s and CPU-s/GB
cd ..
T0=$(date +%s)
R=$(pwd)
for v in 15 20; do
  mkdir -p /tmp/s$v && tar --exclude=./.git --exclude='./build*' --exclude=./.device --exclude=./.snap -cf - . | tar -xf - -C /tmp/s$v && sed -i "s/__ATOMIC_RELAXED) ? 1.25e-3 : 0.75e-3;/__ATOMIC_RELAXED) ? ${v:0:1}.${v:1:1}e-3 : 0.75e-3;/" /tmp/s$v/cuda_gemm/device/resident.cu && grep -n "e-3 : 0.75e-3" /tmp/s$v/cuda_gemm/device/resident.cu
done
mkdir -p $OUT/l
cmake -S . -B $R/build_gb -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build $R/build_gb -j16 --target gfec gfec_perf 2>&1 | grep -iE "error|warning" | head
for v in 15 20; do cmake -S /tmp/s$v -B $R/build_s$v -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build $R/build_s$v -j16 --target gfec gfec_perf 2>&1 | grep -iE "error|warning" | head; done
echo "build at $(( $(date +%s) - T0 )) s"
D() { GFEC_GPU_RESIDENT_PINNED=16 timeout $2 $1/perf/gfec-perf daemon -k 10,4 "${@:4}" -j $OUT/l/$3.json > $OUT/l/$3.log 2>&1; echo "== $3 rc $? at $(( $(date +%s) - T0 )) s $(grep -o 'pinned H2D [0-9.]* GB/s' $OUT/l/$3.log | head -1)"; grep -E "^(encode|decode)" $OUT/l/$3.log | cut -c1-120; }
for r in 1 2; do
  [ $(( $(date +%s) - T0 )) -gt 430 ] && break
  for t in gb s15 s20; do D $R/build_$t 50 ${t}_$r -b "64K 256K" --callers "16 64" -o encode -a gpu --memory pinned -d 0.4; done
done
tar -czf $OUT/logs.tgz -C $OUT l && rm -rf $OUT/l
