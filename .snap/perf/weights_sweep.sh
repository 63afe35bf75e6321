#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The paper's t sweep (Ando et al., seed 004): the joint weight distribution of the (127,22) BCH
# code's t-dimensional subcodes, one row per t, with the paper's throughput figure B = A*M/T
# (A pairs enumerated, M = 40 bytes, T seconds).
#   perf/weights_sweep.sh GFEC_BINARY T_FROM T_TO [gfec weights options: --backend gpu ...]
set -euo pipefail
gfec=${1:?usage: weights_sweep.sh GFEC_BINARY T_FROM T_TO [OPTIONS...]}
from=${2:?T_FROM}
to=${3:?T_TO}
shift 3
echo "# gfec weights --bch 127,22 --subcode t $*; pairs A = C(2^(t-1), 2) (the all-ones reduction)"
echo "# t   seconds   pairs A            Mpairs/s    B GB/s   bins  largest count"
# "# BCH(127,22), ...; 564 non-zero bins of J, largest 773930601234; 3.731 s"
re='([0-9]+) non-zero bins of J, largest ([0-9]+); ([0-9.]+) s'
for ((t = from; t <= to; t++)); do
	out=$("$gfec" weights --bch 127,22 --subcode "$t" "$@" --verify 2>/dev/null) || out=
	[[ ${out%%$'\n'*} =~ $re ]] || {
		echo "t=$t: gfec weights failed" >&2
		exit 1
	}
	awk -v t="$t" -v bins="${BASH_REMATCH[1]}" -v big="${BASH_REMATCH[2]}" \
		-v s="${BASH_REMATCH[3]}" 'BEGIN {
		c = 2 ^ (t - 1); a = c * (c - 1) / 2
		printf "%-3d %-9.3f %-18.0f %-11.0f %-8.2f %-5d %s\n", t, s, a, a / s / 1e6,
			a * 40 / s / 1e9, bins, big }'
done
