#!/bin/bash
# usage: exp.sh PREFETCH SLICE
cd /work/main
sed -i "s/^#define GFNI_PREFETCH .*/#define GFNI_PREFETCH $1/" cpu_backend/gfni.c
sed -i "s/^#define DEFAULT_SLICE .*/#define DEFAULT_SLICE ($2u * 1024)/" cpu_backend/cpu_backend.c
cmake --build build -j2 --target gfec_perf >/dev/null 2>&1 || { echo build fail; exit 1; }
for r in 1 2 3; do
 build/perf/gfec-perf -k 10,4 -b 16M -e 16M -o encode -a cpu -r 3 2>&1 | awk -v pf=$1 -v sl=$2 '/XOR-stream/{for(i=1;i<=NF;i++) if($i=="GB/s"){x=$(i-1);break}} /memory \(read/{m=$(NF-3)} /^encode/{print "pf",pf,"slice",sl,"data",$9,"traf",$10,$13,"mem",m,"xor",x}'
done
