# call 7: launch slots for small pinned calls now that large calls poll: gpu_coalesce_slot_min 1M (default) vs 0,
# with 4 / 8 / 16 slots; the tree (b034ae9), env knobs only
cd ..
T0=$(date +%s)
{ cmake -S . -B /tmp/gb -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null && cmake --build /tmp/gb -j16 --target gfec_perf 2>&1 | grep -iE "error|warning|no rule"; } > $OUT/build.log 2>&1
echo "build $(( $(date +%s) - T0 )) s"
run() { # name env...
  local n=$1; shift
  env "$@" timeout 70 /tmp/gb/perf/gfec-perf daemon -k 10,4 -b "4K 64K 256K" --callers "16 64" -o encode -a gpu --memory pinned -d 0.3 > $OUT/$n.log 2>&1
  echo "== $n ($*) rc $? at $(( $(date +%s) - T0 )) s"; grep -E "^encode" $OUT/$n.log | cut -c1-150
}
for r in 1 2; do
  run default_$r GFEC_X=0
  run min0_s4_$r GFEC_GPU_COALESCE_SLOT_MIN=0
  run min0_s8_$r GFEC_GPU_COALESCE_SLOT_MIN=0 GFEC_GPU_COALESCE_SLOTS=8
  run min0_s16_$r GFEC_GPU_COALESCE_SLOT_MIN=0 GFEC_GPU_COALESCE_SLOTS=16
  [ $(( $(date +%s) - T0 )) -gt 400 ] && break
done
