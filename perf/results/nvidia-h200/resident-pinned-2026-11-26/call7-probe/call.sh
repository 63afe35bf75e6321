# issue 17: the resident engines' test (fixed), then where a pinned 64 KiB call's CPU goes (probe.c)
cd ..
T0=$(date +%s)
cmake -S . -B /tmp/gb -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null && cmake --build /tmp/gb -j16 2>&1 | grep -iE "error|warning" | head -20
echo "build at $(( $(date +%s) - T0 )) s"
timeout 240 /tmp/gb/tests/test_gpu_resident_pinned 2>&1 | tail -12; echo "== test rc ${PIPESTATUS[0]} at $(( $(date +%s) - T0 )) s"
P=perf/results/nvidia-h200/resident-pinned-2026-11-26/call7-probe
gcc -O2 -o /tmp/probe $P/probe.c -I plugin/include -I gfmatrix/base/include -I /usr/local/cuda/include -L /tmp/gb/plugin -lgfec -L /usr/local/cuda/lib64 -lcudart && LD_LIBRARY_PATH=/tmp/gb/plugin:$LD_LIBRARY_PATH timeout 120 /tmp/probe 2>&1 | tee $OUT/probe.log
echo "== probe at $(( $(date +%s) - T0 )) s"
