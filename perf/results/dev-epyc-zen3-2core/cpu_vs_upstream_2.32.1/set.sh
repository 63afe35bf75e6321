#!/bin/bash
# issue 16 on the dev VM: perf/device_run.sh isal() rows + the all-core ceiling row, each under the bench lock.
# $1: tag for the JSON files; GFEC_CPU_PATH from the environment (unset: auto)
b=${B:-build-i16} # cmake -S . -B build-i16 -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON -DGFEC_WITH_CUDA=OFF
tag=${1:-x}
out=/tmp/i16/json; mkdir -p $out
up=/tmp/isa-l-2.32.1-i16/bin/libisal.so.2
run() { flock /tmp/gfec-bench.lock bash -c 'echo "## $(date -u +%H:%M:%S) GFEC_CPU_PATH=${GFEC_CPU_PATH:-auto} uptime: $(uptime)"; echo "\$ $*"; "$@"' _ "$@"; }
cd /work/main
run ./$b/perf/gfec-perf isal -k '10,4 8,3' -b 1M -e 1M -T 1 -r 7 --isal-lib $up --json $out/$tag-1m-dram.json
run ./$b/perf/gfec-perf isal -k '10,4 8,3' -b 1M -e 1M -T 1 -r 7 --hot --isal-lib $up --json $out/$tag-1m-hot.json
run ./$b/perf/gfec-perf isal -k '10,4 4,2 223,32 128,16 128,64 128,128' -b 4K -e 4K -T 1 -r 7 --hot --isal-lib $up --json $out/$tag-4k-hot.json
run ./$b/perf/gfec-perf isal -k '4,2 223,32' -b 4K -e 4K -T 1 -r 7 --isal-lib $up --json $out/$tag-4k-dram.json
run ./$b/perf/gfec-perf isal -k '10,4' -b 1M -e 1M -T 2 -r 7 --isal-lib $up --json $out/$tag-1m-2t.json
run ./$b/perf/gfec-perf -k 10,4 -b 16M -e 16M -o encode -a cpu -r 3 --json $out/$tag-allcore.json
