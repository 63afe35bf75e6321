# the ISA-L drop-in's GPU route from many callers: its gate admitted 1 staged call at a time, now as many as the backend's lanes (8). gfec-isal-bench -t 16 / 64 for t0 (the tip, gate of 1) and gb (this tree) in turns, Debian's ISA-L 2.30 as the real library; then the drop-in's tests (isal_abi*) and every GPU test
cd ..
T0=$(date +%s)
R=$(pwd)
export GFEC_ISAL_LIB=$R/.device/root/usr/lib/x86_64-linux-gnu/libisal.so.2.0.30
mkdir -p /tmp/t0 $OUT/l && tar --exclude=./.git --exclude=./build --exclude=./.device --exclude=./.snap -cf - . | tar -xf - -C /tmp/t0 && (cd /tmp/t0 && patch -R -p1 -s < $R/.snap/isal.patch) || echo "patch failed"
cmake -S . -B /tmp/gb -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null && cmake --build /tmp/gb -j16 2>&1 | grep -iE "error|warning" | head
cmake -S /tmp/t0 -B /tmp/t0/b -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build /tmp/t0/b -j16 --target gfec_isal_abi gfec_isal_bench 2>&1 | grep -iE "error|warning" | head
echo "build at $(( $(date +%s) - T0 )) s"
ls /tmp/gb/plugin/isal_abi/lib/ /tmp/t0/b/plugin/isal_abi/lib/
B=/tmp/gb/perf/gfec-isal-bench
for r in 1 2; do
  [ $(( $(date +%s) - T0 )) -gt 330 ] && break
  if [ $r = 1 ]; then o="t0 gb"; else o="gb t0"; fi
  for v in $o; do case $v in gb) L=/tmp/gb/plugin/isal_abi/lib/libisal.so.2;; t0) L=/tmp/t0/b/plugin/isal_abi/lib/libisal.so.2;; esac
    for t in 16 64; do
      timeout 100 $B -t $t $L 64K 1M > $OUT/l/${v}_t${t}_$r.log 2>&1; echo "== $v $t callers round $r rc $? at $(( $(date +%s) - T0 )) s"; grep -v "^#" $OUT/l/${v}_t${t}_$r.log | head -8
    done
  done
done
ctest --test-dir /tmp/gb -R isal --output-on-failure --timeout 300 -j8 > $OUT/l/isal_tests.log 2>&1; echo "== isal tests rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|FAILED" $OUT/l/isal_tests.log | head
ctest --test-dir /tmp/gb -L gpu -j16 --output-on-failure --timeout 200 > $OUT/l/gpu_tests.log 2>&1; echo "== GPU tests rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|ERROR|LINE|FAILED" $OUT/l/gpu_tests.log | head
tar -czf $OUT/logs.tgz -C $OUT l && rm -rf $OUT/l
