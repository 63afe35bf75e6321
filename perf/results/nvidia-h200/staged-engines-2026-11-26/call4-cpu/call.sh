# the staged engines against the CPU path in one run (encode, decode), and gb (this tree) against t0 (the tip) for pageable 64 KiB and 1 MiB, encode and decode, two rounds in turns; 16 engines, default lanes (8)
cd ..
T0=$(date +%s)
R=$(pwd)
mkdir -p /tmp/t0 $OUT/l && tar --exclude=./.git --exclude=./build --exclude=./.device --exclude=./.snap -cf - . | tar -xf - -C /tmp/t0 && (cd /tmp/t0 && patch -R -p1 -s < $R/.snap/stage.patch) || echo "patch failed"
cmake -S . -B /tmp/gb -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build /tmp/gb -j16 --target gfec gfec_perf 2>&1 | grep -iE "error|warning" | head
cmake -S /tmp/t0 -B /tmp/t0/b -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build /tmp/t0/b -j16 --target gfec gfec_perf 2>&1 | grep -iE "error|warning" | head
echo "build at $(( $(date +%s) - T0 )) s"
D() { GFEC_GPU_RESIDENT_PINNED=16 timeout $2 $1/perf/gfec-perf daemon -k 10,4 "${@:4}" -j $OUT/l/$3.json > $OUT/l/$3.log 2>&1; echo "== $3 rc $? at $(( $(date +%s) - T0 )) s $(grep -o 'pinned H2D [0-9.]* GB/s' $OUT/l/$3.log | head -1)"; grep -E "^(encode|decode)" $OUT/l/$3.log | cut -c1-150; }
D /tmp/gb 280 gb_cpu -b 64K --callers "16 64" -o encode,decode -a cpu,gpu --memory pageable -d 0.3
for r in 1 2; do
  [ $(( $(date +%s) - T0 )) -gt 500 ] && break
  D /tmp/t0/b 60 t0_$r -b "64K 1M" --callers "16 64" -o encode,decode -a gpu --memory pageable -d 0.3
  D /tmp/gb 60 gb_$r -b "64K 1M" --callers "16 64" -o encode,decode -a gpu --memory pageable -d 0.3
done
tar -czf $OUT/logs.tgz -C $OUT l && rm -rf $OUT/l
