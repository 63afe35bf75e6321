import re, sys, statistics as st
from collections import defaultdict
d = defaultdict(list)
loads = []
for f in sys.argv[1:]:
    for line in open(f):
        m = re.search(r'load average: ([\d.]+)', line)
        if m: loads.append(float(m.group(1)))
        m = re.match(r'^([AB])( isal-path)? (encode|decode eager|decode deferred) ', line)
        if m:
            w, ip, kind = m.group(1), (m.group(2) or '').strip() or 'auto', m.group(3)
            if kind == 'encode':
                r = re.search(r'ratio ([\d.]+)', line)
                d[(f'nc {ip} encode ratio (gfec/raw, wall)', w)].append(float(r.group(1)))
            else:
                r = re.search(r'thread CPU time ([\d.]+) ms, ISA-L ([\d.]+) ms, ratio ([\d.]+)', line)
                d[(f'nc {ip} {kind} thread CPU ms', w)].append(float(r.group(1)))
                d[(f'nc {ip} {kind} ratio ISA-L/decode (thread CPU)', w)].append(float(r.group(3)))
            continue
        m = re.match(r'^([AB]) (dram|hot) (RS\(\d+,\d+\))\s+4K\s+1\s+\d+\s+\d+\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)%', line)
        if m:
            w, kind, code = m.group(1), m.group(2), m.group(3)
            d[(f'isal {kind} {code} gfec GB/s', w)].append(float(m.group(5)))
            d[(f'isal {kind} {code} gfec/raw 2.30', w)].append(float(m.group(6)))
            d[(f'isal {kind} {code} gfec/upstream 2.32.1', w)].append(float(m.group(8)))
            continue
        m = re.match(r'^([AB]) perf (encode|decode|update) RS\(10,4\).*?pageable\s+([\d.]+)', line)
        if m:
            d[(f'gfec-perf {m.group(2)} RS(10,4) 4K DRAM GB/s', m.group(1))].append(float(m.group(3)))
keys = sorted({k for k, _ in d})
print(f'# load average (1 min) over the runs: {min(loads):.2f}-{max(loads):.2f}')
print(f'{"metric":58s} {"side":4s} {"n":>3s} {"best":>7s} {"median":>7s} {"min":>7s} {"max":>7s}')
for k in keys:
    for w in 'AB':
        v = d[(k, w)]
        if not v: continue
        lower = 'ms' in k
        best = min(v) if lower else max(v)
        print(f'{k:58s} {w:4s} {len(v):3d} {best:7.3f} {st.median(v):7.3f} {min(v):7.3f} {max(v):7.3f}')
