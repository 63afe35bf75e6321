# one range query per allocation (in_pinned): every GPU test at defaults and with 16 engines; the probe, old (range.patch reversed) against new in turns; 64 KiB/1 MiB daemon rows
cd ..
T0=$(date +%s)
P=perf/results/nvidia-h200/cpu-threads-2026-11-26
mkdir -p /tmp/old && tar --exclude=./.git --exclude=./build --exclude=./.device --exclude=./.snap -cf - . | tar -xf - -C /tmp/old && R=$(pwd) && (cd /tmp/old && patch -R -p1 -s < $R/.snap/range.patch) || echo "reverse patch failed"
cmake -S . -B /tmp/gb -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null && cmake --build /tmp/gb -j16 2>&1 | grep -iE "error|warning" | head
cmake -S /tmp/old -B /tmp/ob -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build /tmp/ob -j16 --target gfec 2>&1 | grep -iE "error|warning" | head
echo "build at $(( $(date +%s) - T0 )) s"
ctest --test-dir /tmp/gb -L gpu -j16 --output-on-failure --timeout 300 > $OUT/gpu_tests.log 2>&1; echo "== GPU tests (defaults) rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|ERROR|LINE|FAILED" $OUT/gpu_tests.log | head
GFEC_GPU_RESIDENT_PINNED=16 ctest --test-dir /tmp/gb -L gpu -j16 --output-on-failure --timeout 300 > $OUT/gpu_tests_engines.log 2>&1; echo "== GPU tests (engines on) rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|ERROR|LINE|FAILED" $OUT/gpu_tests_engines.log | head
gcc -O2 -pthread -o /tmp/probe $P/probe.c -I plugin/include -I gfmatrix/base/include -I /usr/local/cuda/include -L /tmp/gb/plugin -lgfec -L /usr/local/cuda/lib64 -lcudart
(export LD_LIBRARY_PATH=/tmp/gb/plugin:$LD_LIBRARY_PATH; for T in 1 16 64; do for g in 5000 50000; do /tmp/probe nanosleep $T $g 1; done; done) > $OUT/nanosleep.log 2>&1
cat $OUT/nanosleep.log
for r in 1 2; do for lib in ob gb; do
for prof in "backend=gpu" "backend=gpu gpu_resident_pinned=16"; do
  for T in 1 16 64; do echo "-- $lib"; LD_LIBRARY_PATH=/tmp/$lib/plugin:$LD_LIBRARY_PATH timeout 60 /tmp/probe "k=10 m=4 $prof" $T 65536 2 2>&1 | grep -v "other threads"; done
done; done; done > $OUT/ab.log 2>&1
echo "== probe at $(( $(date +%s) - T0 )) s"; cat $OUT/ab.log | paste -d' ' - - | cut -c1-200
for N in 0 16; do
  GFEC_GPU_RESIDENT_PINNED=$N timeout 150 /tmp/gb/perf/gfec-perf daemon -k 10,4 -b "64K 1M" --callers "1 16 64" -o encode -a cpu,gpu --memory pinned -d 0.3 -j $OUT/d_$N.json > $OUT/d_$N.log 2>&1
  echo "== N=$N rc $? at $(( $(date +%s) - T0 )) s $(grep -o 'pinned H2D [0-9.]* GB/s' $OUT/d_$N.log | head -1)"; grep -E "^(encode|decode)" $OUT/d_$N.log | cut -c1-130
done
