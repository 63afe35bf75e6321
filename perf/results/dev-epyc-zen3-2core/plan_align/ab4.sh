#!/bin/bash
# focused: gfec-perf isal RS(4,2) 4 KiB from DRAM, ABBA x N
UP=/tmp/isa-l-2.32.1/bin/libisal.so.2
L=/tmp/gfec-bench.lock
for r in $(seq 1 "$1"); do
  for w in A B B A; do
    b=/tmp/al-$w/build/perf
    echo "=== round $r $w"
    uptime; flock $L $b/gfec-perf isal -k '4,2' -b 4K -e 4K -T 1 -r 15 --isal-lib $UP | grep '^RS' | sed "s/^/$w dram /"
  done
done
