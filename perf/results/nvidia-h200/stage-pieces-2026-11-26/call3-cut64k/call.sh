# ring code: 64 KiB RS(10,4) pageable cut in 1 (gb), 2 (g2) or 4 (g4) pieces (sed of stage_pieces' n), 16/64 callers, two rounds in turns
cd ..
T0=$(date +%s)
R=$(pwd)
mkdir -p $OUT/l
for v in 2 4; do
  mkdir -p /tmp/g$v && tar --exclude=./.git --exclude=./build --exclude=./.device --exclude=./.snap -cf - . | tar -xf - -C /tmp/g$v
  sed -i "s|const size_t n = col >= 0 ? 1 : (len + most - 1) / most;|const size_t n = col >= 0 ? 1 : std::max<size_t>(len >= 32768 ? $v : 1, (len + most - 1) / most);|" /tmp/g$v/cuda_gemm/device/backend.cu
  grep -c "len >= 32768 ? $v" /tmp/g$v/cuda_gemm/device/backend.cu
done
cmake -S . -B /tmp/gb -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build /tmp/gb -j16 --target gfec gfec_perf 2>&1 | grep -iE "error|warning" | head
for v in 2 4; do cmake -S /tmp/g$v -B /tmp/g$v/b -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build /tmp/g$v/b -j16 --target gfec gfec_perf 2>&1 | grep -iE "error|warning" | head; done
echo "build at $(( $(date +%s) - T0 )) s"
D() { GFEC_GPU_RESIDENT_PINNED=16 timeout $2 $1/perf/gfec-perf daemon -k 10,4 "${@:4}" -j $OUT/l/$3.json > $OUT/l/$3.log 2>&1; echo "== $3 rc $? at $(( $(date +%s) - T0 )) s $(grep -o 'pinned H2D [0-9.]* GB/s' $OUT/l/$3.log | head -1)"; grep -E "^(encode|decode)" $OUT/l/$3.log | cut -c1-110; }
for r in 1 2; do
  [ $(( $(date +%s) - T0 )) -gt 450 ] && break
  D /tmp/gb 50 g1_$r -b 64K --callers "16 64" -o encode,decode -a gpu --memory pageable -d 0.3
  D /tmp/g2/b 50 g2_$r -b 64K --callers "16 64" -o encode,decode -a gpu --memory pageable -d 0.3
  D /tmp/g4/b 50 g4_$r -b 64K --callers "16 64" -o encode,decode -a gpu --memory pageable -d 0.3
done
tar -czf $OUT/logs.tgz -C $OUT l && rm -rf $OUT/l
