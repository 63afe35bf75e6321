# pinned stripes of 1 MiB of inputs or more in up to 4 pieces through the engines (pinned_pieces), and the launch slots leave them to the engines (runs_resident): test_gpu_resident_pinned, every GPU test at defaults and with 16 engines; gb against t0 (0c84a68) in turns, pinned encode 256K-4M from 16/64 callers, 16 engines, slots at their defaults
cd ..
T0=$(date +%s)
R=$(pwd)
mkdir -p /tmp/t0 $OUT/l && tar --exclude=./.git --exclude=./build --exclude=./.device --exclude=./.snap -cf - . | tar -xf - -C /tmp/t0 && (cd /tmp/t0 && patch -R -p1 -s < $R/.snap/pinned.patch) || echo "patch failed"
cmake -S . -B /tmp/gb -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null && cmake --build /tmp/gb -j16 2>&1 | grep -iE "error|warning" | head
cmake -S /tmp/t0 -B /tmp/t0/b -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build /tmp/t0/b -j16 --target gfec gfec_perf 2>&1 | grep -iE "error|warning" | head
echo "build at $(( $(date +%s) - T0 )) s"
ctest --test-dir /tmp/gb -R gpu_resident_pinned --output-on-failure --timeout 200 > $OUT/l/t_pinned.log 2>&1; echo "== resident_pinned rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|ERROR|LINE|FAILED|PASSED" $OUT/l/t_pinned.log | head -20
ctest --test-dir /tmp/gb -L gpu -j16 --output-on-failure --timeout 200 > $OUT/l/gpu_tests.log 2>&1; echo "== GPU tests (defaults) rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|ERROR|LINE|FAILED" $OUT/l/gpu_tests.log | head
GFEC_GPU_RESIDENT_PINNED=16 ctest --test-dir /tmp/gb -L gpu -j16 --output-on-failure --timeout 200 > $OUT/l/gpu_tests_engines.log 2>&1; echo "== GPU tests (engines on) rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|ERROR|LINE|FAILED" $OUT/l/gpu_tests_engines.log | head
D() { GFEC_GPU_RESIDENT_PINNED=16 timeout $2 $1/perf/gfec-perf daemon -k 10,4 "${@:4}" -j $OUT/l/$3.json > $OUT/l/$3.log 2>&1; echo "== $3 rc $? at $(( $(date +%s) - T0 )) s $(grep -o 'pinned H2D [0-9.]* GB/s' $OUT/l/$3.log | head -1)"; grep -E "^(encode|decode)" $OUT/l/$3.log | cut -c1-130; }
for r in 1 2; do
  [ $(( $(date +%s) - T0 )) -gt 420 ] && break
  D /tmp/gb 60 gb_$r -b "256K 1M 4M" --callers "16 64" -o encode -a gpu --memory pinned -d 0.3
  D /tmp/t0/b 60 t0_$r -b "256K 1M 4M" --callers "16 64" -o encode -a gpu --memory pinned -d 0.3
done
tar -czf $OUT/logs.tgz -C $OUT l && rm -rf $OUT/l
