# issue 17 (third try: the row 10 s, only its 16 callers counted; second try: the first lost its samples to timeout(1), which the preload also ran in, writing the same file last): where a pinned 64 KiB call's user CPU goes. An LD_PRELOAD sampler (sampler.c: SIGPROF on process CPU time, the interrupted PC) over gfec-perf daemon, RS(10,4) 64 KiB pinned encodes from 16 callers, 16 engines and launched; resolved by nm (resolve.py)
cd ..
T0=$(date +%s)
R=$(pwd)
mkdir -p $OUT/l
gcc -O2 -shared -fPIC -o /tmp/libsampler.so .snap/sampler.c -ldl || echo "sampler build failed"
cmake -S . -B $R/build_gb -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build $R/build_gb -j16 --target gfec_perf 2>&1 | grep -iE "error|warning" | head
echo "build at $(( $(date +%s) - T0 )) s"
P=$R/build_gb/perf/gfec-perf
S() { # name engines sampler(0/1)
  local env="GFEC_GPU_RESIDENT_PINNED=$2"
  [ "$3" = 1 ] && env="$env SAMPLER_OUT=$OUT/l/$1.samples LD_PRELOAD=/tmp/libsampler.so"
  env $env $P daemon -k 10,4 -b 64K --callers 16 -o encode -a gpu --memory pinned -d $4 -j $OUT/l/$1.json > $OUT/l/$1.log 2>&1
  echo "== $1 rc $? at $(( $(date +%s) - T0 )) s"; grep -E "^encode|^# cpu-s" $OUT/l/$1.log | cut -c1-200
  [ "$3" = 1 ] && f=$(ls -S $OUT/l/$1.samples.* | head -1) && python3 .snap/resolve.py $f $P 16 > $OUT/l/$1.prof 2>&1 && head -40 $OUT/l/$1.prof && gzip $OUT/l/$1.samples.*
}
nm -C --defined-only $P | gzip > $OUT/l/gfec-perf.nm.gz
S engines_sampled 16 1 10
S launched_sampled 0 1 6
GFEC_GPU_RESIDENT_PINNED=16 $P daemon -k 10,4 -b 64K --callers 16 -o encode -a cpu,gpu --memory pinned -d 1 -j $OUT/l/cpu_gpu.json > $OUT/l/cpu_gpu.log 2>&1; echo "== cpu_gpu rc $?"; grep -E "^encode|^# cpu-s" $OUT/l/cpu_gpu.log | cut -c1-200
tar -czf $OUT/logs.tgz -C $OUT l && rm -rf $OUT/l
