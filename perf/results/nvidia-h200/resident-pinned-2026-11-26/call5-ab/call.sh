# issue 17: resident engines for pinned calls (gpu_resident_pinned): tests, then the daemon rows A/B
cd ..
T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cmake -S . -B /tmp/gb -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null && cmake --build /tmp/gb -j16 2>&1 | grep -iE "error|warning" | head -20
echo "build at $(( $(date +%s) - T0 )) s"
for t in gpu_resident_pinned gpu_resident gpu_pinned; do
  timeout 240 /tmp/gb/tests/test_$t > $OUT/test_$t.log 2>&1; echo "== test_$t rc $? at $(( $(date +%s) - T0 )) s"; tail -4 $OUT/test_$t.log
done
for r in 1 2; do for N in 0 32; do
  GFEC_GPU_RESIDENT_PINNED=$N timeout 150 /tmp/gb/perf/gfec-perf daemon -k 10,4 -b "64K 256K 1M" --callers "16 32 64" -o encode -a gpu --memory pinned -d 0.3 -j $OUT/d_${N}_$r.json > $OUT/d_${N}_$r.log 2>&1
  echo "== N=$N r=$r rc $? at $(( $(date +%s) - T0 )) s"; grep -E "^encode" $OUT/d_${N}_$r.log | cut -c1-160
done; done
