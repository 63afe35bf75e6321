#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# p99_table.py DIR [SCALE]: the P99 rows of gfec-perf daemon's JSON files DIR/daemon_p99_*.json
# against issue 17's bound (deadline + 2 x the mean window's PCIe time). SCALE divides the
# files' gpu_window_transfer_us: 1e9 for call1, whose gfec-perf (33704a4) wrote it 10^9 too large.
import glob
import json
import sys

scale = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
for f in sorted(glob.glob(sys.argv[1] + '/daemon_p99_*.json')):
    print(f.split('/')[-1])
    for r in json.load(open(f))['results']:
        dm = r['daemon']
        w = dm['gpu_window_transfer_us']
        w = w / scale if w else None
        b = dm['gpu_coalesce_us'] + 2 * w if w else None
        lat = r['latency_us']
        verdict = '' if b is None else 'within' if lat['p99'] <= b else 'OVER %.1fx' % (lat['p99'] / b)
        print(f"  {r['chunk'] >> 10:5}K x{dm['callers']:3}  {r['GBps']:6.2f} GB/s  "
              f"cpu-s/GB {r['cpu_seconds_per_GB']:.3f}  stripes/launch {dm['stripes_per_gpu_launch']:5.1f}  "
              f"p50 {lat['p50']:6.0f}  p99 {lat['p99']:6.0f} us  window {'-' if w is None else round(w):>5}  "
              f"bound {'-' if b is None else round(b):>6}  {verdict}")
