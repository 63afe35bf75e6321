# tip c248429 (938caf7 never ran on a GPU): every GPU test at defaults and with 16 engines; the per-thread CPU probe; 64 KiB daemon rows
cd ..
T0=$(date +%s)
cmake -S . -B /tmp/gb -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null && cmake --build /tmp/gb -j16 2>&1 | grep -iE "error|warning" | head
echo "build at $(( $(date +%s) - T0 )) s"
ctest --test-dir /tmp/gb -L gpu -j16 --output-on-failure --timeout 300 > $OUT/gpu_tests.log 2>&1; echo "== GPU tests (defaults) rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|ERROR|LINE" $OUT/gpu_tests.log | head
GFEC_GPU_RESIDENT_PINNED=16 ctest --test-dir /tmp/gb -L gpu -j16 --output-on-failure --timeout 300 > $OUT/gpu_tests_engines.log 2>&1; echo "== GPU tests (engines on) rc $? at $(( $(date +%s) - T0 )) s"; grep -E "tests passed|\*\*\*|ERROR|LINE" $OUT/gpu_tests_engines.log | head
P=perf/results/nvidia-h200/cpu-threads-2026-11-26
gcc -O2 -pthread -o /tmp/probe $P/probe.c -I plugin/include -I gfmatrix/base/include -I /usr/local/cuda/include -L /tmp/gb/plugin -lgfec -L /usr/local/cuda/lib64 -lcudart
export LD_LIBRARY_PATH=/tmp/gb/plugin:$LD_LIBRARY_PATH
for r in 1 2; do
for prof in "backend=gpu" "backend=gpu gpu_resident_pinned=16" "backend=cpu"; do
  for T in 1 16 64; do timeout 60 /tmp/probe "k=10 m=4 $prof" $T 65536 2; done
done; done > $OUT/probe.log 2>&1
echo "== probe at $(( $(date +%s) - T0 )) s"; cat $OUT/probe.log
for N in 0 16; do
  GFEC_GPU_RESIDENT_PINNED=$N timeout 150 /tmp/gb/perf/gfec-perf daemon -k 10,4 -b 64K --callers "1 16 64" -o encode -a gpu --memory pinned -d 0.3 -j $OUT/d_$N.json > $OUT/d_$N.log 2>&1
  echo "== N=$N rc $? at $(( $(date +%s) - T0 )) s $(grep -o 'pinned H2D [0-9.]* GB/s' $OUT/d_$N.log | head -1)"; grep -E "^(encode|decode)" $OUT/d_$N.log | cut -c1-130
done
