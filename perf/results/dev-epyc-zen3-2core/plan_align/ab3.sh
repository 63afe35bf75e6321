#!/bin/bash
# focused: the nc encode row (auto path) and gfec-perf isal --hot RS(10,4), ABBA x N
UP=/tmp/isa-l-2.32.1/bin/libisal.so.2
L=/tmp/gfec-bench.lock
for r in $(seq 1 "$1"); do
  for w in A B B A; do
    b=/tmp/al-$w/build/perf
    echo "=== round $r $w"
    uptime; flock $L $b/gfec-nc-bench --reps 15 --threads 1 --segments 100 | sed "s/^/$w /"
    uptime; flock $L $b/gfec-perf isal -k '10,4' -b 4K -e 4K -T 1 -r 15 --hot --isal-lib $UP | grep '^RS' | sed "s/^/$w hot /"
  done
done
