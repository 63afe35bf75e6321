# call 5's 64K pageable row from 16 callers again (25.5 GB/s with spread 0.95 in gb against 37.1 in t0): gb and t0 in turns, three rounds, 64K pageable and pinned from 16 callers, 16 engines
cd ..
T0=$(date +%s)
R=$(pwd)
mkdir -p /tmp/t0 $OUT/l && tar --exclude=./.git --exclude='./build*' --exclude=./.device --exclude=./.snap -cf - . | tar -xf - -C /tmp/t0 && (cd /tmp/t0 && patch -R -p1 -s < $R/.snap/review.patch) || echo "patch failed"
cmake -S . -B $R/build_gb -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build $R/build_gb -j16 --target gfec gfec_perf 2>&1 | grep -iE "error|warning" | head
cmake -S /tmp/t0 -B $R/build_t0 -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build $R/build_t0 -j16 --target gfec gfec_perf 2>&1 | grep -iE "error|warning" | head
echo "build at $(( $(date +%s) - T0 )) s"
D() { GFEC_GPU_RESIDENT_PINNED=16 timeout $2 $1/perf/gfec-perf daemon -k 10,4 "${@:4}" -j $OUT/l/$3.json > $OUT/l/$3.log 2>&1; echo "== $3 rc $? at $(( $(date +%s) - T0 )) s $(grep -o 'pinned H2D [0-9.]* GB/s' $OUT/l/$3.log | head -1)"; grep -E "^(encode|decode)" $OUT/l/$3.log | cut -c1-175; }
for r in 1 2 3; do
  [ $(( $(date +%s) - T0 )) -gt 330 ] && break
  D $R/build_gb 50 gb_$r -b 64K --callers 16 -o encode -a gpu --memory pageable,pinned -d 0.4
  D $R/build_t0 50 t0_$r -b 64K --callers 16 -o encode -a gpu --memory pageable,pinned -d 0.4
done
tar -czf $OUT/logs.tgz -C $OUT l && rm -rf $OUT/l
