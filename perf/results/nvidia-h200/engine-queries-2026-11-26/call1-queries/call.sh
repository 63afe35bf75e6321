# pinned engines without the legacy-stream query, and one pointer query in run(): every GPU test at defaults and with 16 engines; probe and gfec-perf daemon, tip (change.patch reversed) against the change in turns
cd ..
T0=$(date +%s)
P=perf/results/nvidia-h200/cpu-threads-2026-11-26
R=$(pwd)
mkdir -p /tmp/old && tar --exclude=./.git --exclude=./build --exclude=./.device --exclude=./.snap -cf - . | tar -xf - -C /tmp/old && (cd /tmp/old && patch -R -p1 -s < $R/.snap/change.patch) || echo "reverse patch failed"
cmake -S . -B /tmp/gb -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null && cmake --build /tmp/gb -j16 2>&1 | grep -iE "error|warning" | head
cmake -S /tmp/old -B /tmp/ob -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build /tmp/ob -j16 --target gfec gfec_perf 2>&1 | grep -iE "error|warning" | head
echo "build at $(( $(date +%s) - T0 )) s"
ctest --test-dir /tmp/gb -L gpu -j16 --output-on-failure --timeout 200 > $OUT/gpu_tests.log 2>&1; echo "== GPU tests (defaults) rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|ERROR|LINE|FAILED" $OUT/gpu_tests.log | head
GFEC_GPU_RESIDENT_PINNED=16 ctest --test-dir /tmp/gb -L gpu -j16 --output-on-failure --timeout 200 > $OUT/gpu_tests_engines.log 2>&1; echo "== GPU tests (engines on) rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|ERROR|LINE|FAILED" $OUT/gpu_tests_engines.log | head
gcc -O2 -pthread -o /tmp/probe $P/probe.c -I plugin/include -I gfmatrix/base/include -I /usr/local/cuda/include -L /tmp/gb/plugin -lgfec -L /usr/local/cuda/lib64 -lcudart
for r in 1 2; do for lib in ob gb; do
  for T in 1 16 64; do echo "-- $lib"; LD_LIBRARY_PATH=/tmp/$lib/plugin:$LD_LIBRARY_PATH timeout 30 /tmp/probe "k=10 m=4 backend=gpu gpu_resident_pinned=16" $T 65536 2 2>&1 | grep -v "other threads"; done
done; done > $OUT/ab.log 2>&1
echo "== probe at $(( $(date +%s) - T0 )) s"; cat $OUT/ab.log | paste -d' ' - - | cut -c1-200
for r in 1 2; do for b in ob gb; do
  [ $(( $(date +%s) - T0 )) -gt 480 ] && break 2
  GFEC_GPU_RESIDENT_PINNED=16 timeout 60 /tmp/$b/perf/gfec-perf daemon -k 10,4 -b 64K --callers "16 64" -o encode,decode -a gpu --memory pinned -d 0.3 -j $OUT/d_${b}_$r.json > $OUT/d_${b}_$r.log 2>&1
  echo "== $b round $r rc $? at $(( $(date +%s) - T0 )) s $(grep -o 'pinned H2D [0-9.]* GB/s' $OUT/d_${b}_$r.log | head -1)"; grep -E "^(encode|decode)" $OUT/d_${b}_$r.log | cut -c1-130
done; done
[ $(( $(date +%s) - T0 )) -lt 500 ] && GFEC_GPU_RESIDENT_PINNED=16 timeout 80 /tmp/gb/perf/gfec-perf daemon -k 10,4 -b 64K --callers "16 64" -o encode -a cpu,gpu --memory pageable,pinned -d 0.3 -j $OUT/d_cpu.json > $OUT/d_cpu.log 2>&1
echo "== cpu,gpu rc $? at $(( $(date +%s) - T0 )) s"; grep -E "^(encode|decode)" $OUT/d_cpu.log | cut -c1-130
