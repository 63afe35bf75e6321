# staged (pageable) stripes read in place go to the pinned engines: test_gpu_resident_pinned, then gfec-perf daemon pageable 64K/256K for t0 (the tip) and gb (this tree), lanes 8 and 16, in turns; then every GPU test at defaults and with 16 engines
cd ..
T0=$(date +%s)
R=$(pwd)
mkdir -p /tmp/t0 $OUT/l && tar --exclude=./.git --exclude=./build --exclude=./.device --exclude=./.snap -cf - . | tar -xf - -C /tmp/t0 && (cd /tmp/t0 && patch -R -p1 -s < $R/.snap/staged.patch) || echo "patch failed"
cmake -S . -B /tmp/gb -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null && cmake --build /tmp/gb -j16 2>&1 | grep -iE "error|warning" | head
cmake -S /tmp/t0 -B /tmp/t0/b -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build /tmp/t0/b -j16 --target gfec gfec_perf 2>&1 | grep -iE "error|warning" | head
echo "build at $(( $(date +%s) - T0 )) s"
cat /sys/devices/system/clocksource/clocksource0/current_clocksource
ctest --test-dir /tmp/gb -R gpu_resident_pinned --output-on-failure --timeout 200 > $OUT/l/t_pinned.log 2>&1; echo "== resident_pinned rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|ERROR|LINE|FAILED|PASSED|OK" $OUT/l/t_pinned.log | head -20
L() { case $1 in gb) echo /tmp/gb;; *) echo /tmp/$1/b;; esac; }
for r in 1 2; do for v in t0 gb; do for ln in 8 16; do
  [ $(( $(date +%s) - T0 )) -gt 330 ] && break 3
  GFEC_GPU_LANES=$ln GFEC_GPU_RESIDENT_PINNED=16 timeout 60 $(L $v)/perf/gfec-perf daemon -k 10,4 -b "64K 256K" --callers "16 64" -o encode -a gpu --memory pageable -d 0.3 -j $OUT/l/d_${v}_l${ln}_$r.json > $OUT/l/d_${v}_l${ln}_$r.log 2>&1
  echo "== $v lanes $ln round $r rc $? at $(( $(date +%s) - T0 )) s $(grep -o 'pinned H2D [0-9.]* GB/s' $OUT/l/d_${v}_l${ln}_$r.log | head -1)"; grep -E "^(encode|decode)" $OUT/l/d_${v}_l${ln}_$r.log | cut -c1-150
done; done; done
ctest --test-dir /tmp/gb -L gpu -j16 --output-on-failure --timeout 200 > $OUT/l/gpu_tests.log 2>&1; echo "== GPU tests (defaults) rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|ERROR|LINE|FAILED" $OUT/l/gpu_tests.log | head
[ $(( $(date +%s) - T0 )) -lt 500 ] && GFEC_GPU_RESIDENT_PINNED=16 ctest --test-dir /tmp/gb -L gpu -j16 --output-on-failure --timeout 200 > $OUT/l/gpu_tests_engines.log 2>&1; echo "== GPU tests (engines on) rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|ERROR|LINE|FAILED" $OUT/l/gpu_tests_engines.log | head
tar -czf $OUT/logs.tgz -C $OUT l && rm -rf $OUT/l
