# is the pinned 64 KiB call's CPU a regression since 67c46eb (engine-queries-2026-11-26, 0.0141-0.0146 CPU-s/GB from 16 callers on its lease)? old (67c46eb) and gb (the tip) in turns, pinned 64K encode from 16 callers, 16 engines, three rounds
cd ..
T0=$(date +%s)
R=$(pwd)
mkdir -p /tmp/old $OUT/l && tar -xzf .snap/old.tgz -C /tmp/old
cmake -S . -B $R/build_gb -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build $R/build_gb -j16 --target gfec gfec_perf 2>&1 | grep -iE "error|warning" | head
cmake -S /tmp/old -B $R/build_old -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build $R/build_old -j16 --target gfec gfec_perf 2>&1 | grep -iE "error|warning" | head
echo "build at $(( $(date +%s) - T0 )) s"
D() { GFEC_GPU_RESIDENT_PINNED=16 timeout $2 $1/perf/gfec-perf daemon -k 10,4 "${@:4}" -j $OUT/l/$3.json > $OUT/l/$3.log 2>&1; echo "== $3 rc $? at $(( $(date +%s) - T0 )) s $(grep -o 'pinned H2D [0-9.]* GB/s' $OUT/l/$3.log | head -1)"; grep -E "^(encode|decode)" $OUT/l/$3.log | cut -c1-120; }
for r in 1 2 3; do
  [ $(( $(date +%s) - T0 )) -gt 300 ] && break
  D $R/build_gb 40 gb_$r -b 64K --callers 16 -o encode -a gpu --memory pinned -d 1
  D $R/build_old 40 old_$r -b 64K --callers 16 -o encode -a gpu --memory pinned -d 1
done
tar -czf $OUT/logs.tgz -C $OUT l && rm -rf $OUT/l
