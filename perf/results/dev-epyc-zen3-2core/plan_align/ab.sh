#!/bin/bash
# A/B of the plan-table alignment: A = tree before (malloc), B = with 64-byte aligned tables.
# usage: ab.sh ROUNDS; every invocation under the bench lock, uptime just before.
UP=/tmp/isa-l-2.32.1/bin/libisal.so.2
L=/tmp/gfec-bench.lock
for r in $(seq 1 "$1"); do
  for w in A B B A; do
    b=/tmp/al-$w/build/perf
    echo "=== round $r $w"
    uptime; flock $L $b/gfec-nc-bench --reps 15 --threads 1 --segments 100 | sed "s/^/$w /"
    uptime; GFEC_CPU_PATH=isal flock $L $b/gfec-nc-bench --reps 15 --threads 1 --segments 100 | sed "s/^/$w isal-path /"
    uptime; flock $L $b/gfec-perf isal -k '4,2 10,4' -b 4K -e 4K -T 1 -r 15 --isal-lib $UP | grep '^RS' | sed "s/^/$w dram /"
    uptime; flock $L $b/gfec-perf isal -k '4,2 10,4' -b 4K -e 4K -T 1 -r 15 --hot --isal-lib $UP | grep '^RS' | sed "s/^/$w hot /"
    uptime; flock $L $b/gfec-perf -k 10,4 -b 4K -e 4K -o encode,decode,update -a cpu -T 1 -r 7 -C /tmp/al-ceil.json | grep '^encode\|^decode\|^update' | sed "s/^/$w perf /"
  done
done
