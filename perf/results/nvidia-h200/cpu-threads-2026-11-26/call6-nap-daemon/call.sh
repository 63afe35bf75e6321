# gfec-perf daemon, 64 KiB on 16 engines: 9a16e68 (nap.patch reversed) against the 5/4 first nap, in turns, two rounds
cd ..
T0=$(date +%s)
R=$(pwd)
mkdir -p /tmp/old && tar --exclude=./.git --exclude=./build --exclude=./.device --exclude=./.snap -cf - . | tar -xf - -C /tmp/old && (cd /tmp/old && patch -R -p1 -s < $R/.snap/nap.patch) || echo "reverse patch failed"
cmake -S . -B /tmp/gb -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build /tmp/gb -j16 --target gfec_perf 2>&1 | tail -2
cmake -S /tmp/old -B /tmp/ob -DCMAKE_BUILD_TYPE=Release 2>&1 | tail -1 && cmake --build /tmp/ob -j16 --target gfec_perf 2>&1 | tail -2
ls -la /tmp/ob/perf/gfec-perf /tmp/gb/perf/gfec-perf
echo "build at $(( $(date +%s) - T0 )) s"
for r in 1 2; do for b in ob gb; do
  GFEC_GPU_RESIDENT_PINNED=16 timeout 100 /tmp/$b/perf/gfec-perf daemon -k 10,4 -b 64K --callers "16 64" -o encode,decode -a gpu --memory pinned -d 0.3 -j $OUT/d_${b}_$r.json > $OUT/d_${b}_$r.log 2>&1
  echo "== $b round $r rc $? at $(( $(date +%s) - T0 )) s $(grep -o 'pinned H2D [0-9.]* GB/s' $OUT/d_${b}_$r.log | head -1)"; grep -E "^(encode|decode)" $OUT/d_${b}_$r.log | cut -c1-130
done; done
