# where a pinned 64 KiB call's CPU goes: per-thread user and system CPU of gfec-perf daemon (RS(10,4) 64K pinned encode, 16 callers, 16 engines, one 20 s row) from /proc every 5 s
cd ..
T0=$(date +%s)
R=$(pwd)
mkdir -p $OUT/l
cmake -S . -B $R/build_gb -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build $R/build_gb -j16 --target gfec gfec_perf 2>&1 | grep -iE "error|warning" | head
echo "build at $(( $(date +%s) - T0 )) s"
GFEC_GPU_RESIDENT_PINNED=16 $R/build_gb/perf/gfec-perf daemon -k 10,4 -b 64K --callers 16 -o encode -a gpu --memory pinned -d 20 > $OUT/l/daemon.log 2>&1 &
P=$!
for i in $(seq 1 12); do
  sleep 4
  echo "== t $(( $(date +%s) - T0 ))"
  for t in /proc/$P/task/*; do echo "$(basename $t) $(cat $t/comm 2>/dev/null | tr ' ' _) $(awk '{print $14, $15}' $t/stat 2>/dev/null)"; done
done > $OUT/l/threads.txt
wait $P; echo "daemon rc $?"
grep -E "^encode" $OUT/l/daemon.log | cut -c1-130
getconf CLK_TCK
# (then a Python summary of the busiest window by thread name; see the README)
tar -czf $OUT/logs.tgz -C $OUT l && rm -rf $OUT/l
