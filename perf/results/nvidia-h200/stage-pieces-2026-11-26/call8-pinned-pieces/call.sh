# experiment (not committed): pinned stripes of 1 MiB of inputs or more in stage-sized pieces through the engines (GFEC_X_PIECES=1, resident_pool_pipe on the caller's mapped buffers), with the launch slots on (default) and off (GFEC_GPU_COALESCE_SLOTS=0); pinned encode 256K-4M from 16/64 callers, 16 engines
cd ..
T0=$(date +%s)
mkdir -p $OUT/l
cmake -S . -B /tmp/gb -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build /tmp/gb -j16 --target gfec gfec_perf 2>&1 | grep -iE "error|warning" | head
echo "build at $(( $(date +%s) - T0 )) s"
D() { n=$1; shift; env GFEC_GPU_RESIDENT_PINNED=16 "$@" timeout 60 /tmp/gb/perf/gfec-perf daemon -k 10,4 -b "256K 1M 4M" --callers "16 64" -o encode -a gpu --memory pinned -d 0.3 -j $OUT/l/$n.json > $OUT/l/$n.log 2>&1; echo "== $n rc $? at $(( $(date +%s) - T0 )) s $(grep -o 'pinned H2D [0-9.]* GB/s' $OUT/l/$n.log | head -1)"; grep -E "^(encode|decode)" $OUT/l/$n.log | cut -c1-130; }
for r in 1 2; do
  [ $(( $(date +%s) - T0 )) -gt 400 ] && break
  D base_$r X=0
  D pieces_$r GFEC_X_PIECES=1
  D pieces_noslots_$r GFEC_X_PIECES=1 GFEC_GPU_COALESCE_SLOTS=0
  D noslots_$r GFEC_GPU_COALESCE_SLOTS=0
done
tar -czf $OUT/logs.tgz -C $OUT l && rm -rf $OUT/l
