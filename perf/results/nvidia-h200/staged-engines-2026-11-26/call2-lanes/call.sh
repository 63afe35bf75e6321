# lanes 8/16/32/64 (kMaxLanes raised to 64) for pageable 64K/256K/1M from 16 and 64 callers, with 16 engines and without; one round
cd ..
T0=$(date +%s)
mkdir -p $OUT/l
cmake -S . -B /tmp/gb -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build /tmp/gb -j16 --target gfec gfec_perf 2>&1 | grep -iE "error|warning" | head
echo "build at $(( $(date +%s) - T0 )) s"
for e in 16 0; do for ln in 8 16 32 64; do
  [ $e = 0 ] && [ $ln = 16 -o $ln = 64 ] && continue
  [ $(( $(date +%s) - T0 )) -gt 520 ] && break 2
  GFEC_GPU_LANES=$ln GFEC_GPU_RESIDENT_PINNED=$e timeout 90 /tmp/gb/perf/gfec-perf daemon -k 10,4 -b "64K 256K 1M" --callers "16 64" -o encode -a gpu --memory pageable -d 0.3 -j $OUT/l/d_e${e}_l${ln}.json > $OUT/l/d_e${e}_l${ln}.log 2>&1
  echo "== engines $e lanes $ln rc $? at $(( $(date +%s) - T0 )) s $(grep -o 'pinned H2D [0-9.]* GB/s' $OUT/l/d_e${e}_l${ln}.log | head -1)"; grep -E "^(encode|decode)" $OUT/l/d_e${e}_l${ln}.log | cut -c1-150
done; done
tar -czf $OUT/logs.tgz -C $OUT l && rm -rf $OUT/l
