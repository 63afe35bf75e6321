# pageable 1 MiB again, four rounds, the order of t0 and gb swapped every round (call 5 always ran t0 first); the same lease as calls 4-5
cd ..
T0=$(date +%s)
R=$(pwd)
mkdir -p $OUT/l
if [ ! -x /tmp/t0/b/perf/gfec-perf ]; then mkdir -p /tmp/t0 && tar --exclude=./.git --exclude=./build --exclude=./.device --exclude=./.snap -cf - . | tar -xf - -C /tmp/t0 && (cd /tmp/t0 && patch -R -p1 -s < $R/.snap/stage.patch); fi
cmake -S . -B /tmp/gb -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build /tmp/gb -j16 --target gfec gfec_perf 2>&1 | grep -iE "error|warning" | head
cmake -S /tmp/t0 -B /tmp/t0/b -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build /tmp/t0/b -j16 --target gfec gfec_perf 2>&1 | grep -iE "error|warning" | head
echo "build at $(( $(date +%s) - T0 )) s"
D() { GFEC_GPU_RESIDENT_PINNED=16 timeout $2 $1/perf/gfec-perf daemon -k 10,4 "${@:4}" -j $OUT/l/$3.json > $OUT/l/$3.log 2>&1; echo "== $3 rc $? at $(( $(date +%s) - T0 )) s $(grep -o 'pinned H2D [0-9.]* GB/s' $OUT/l/$3.log | head -1)"; grep -E "^(encode|decode)" $OUT/l/$3.log | cut -c1-150; }
for r in 1 2 3 4; do
  [ $(( $(date +%s) - T0 )) -gt 420 ] && break
  if [ $((r % 2)) = 1 ]; then o="gb t0"; else o="t0 gb"; fi
  for v in $o; do case $v in gb) b=/tmp/gb;; t0) b=/tmp/t0/b;; esac
    D $b 60 ${v}_1m_$r -b 1M --callers "16 64" -o encode,decode -a gpu --memory pageable -d 0.3
  done
done
tar -czf $OUT/logs.tgz -C $OUT l && rm -rf $OUT/l
