# samples file -> CPU share by function (nm of each module; exported symbols only where stripped)
import bisect, collections, subprocess, sys
raw = [l.split() for l in open(sys.argv[1])]
exe = sys.argv[2]
syms = {}
def table(mod):
    if mod in syms: return syms[mod]
    path = exe if mod in ('', exe) or mod.endswith('gfec-perf') else mod
    rows = []
    for flag in ([], ['-D']):
        try:
            out = subprocess.run(['nm', '-C', '--defined-only'] + flag + [path], capture_output=True, text=True).stdout
        except Exception:
            out = ''
        for l in out.splitlines():
            p = l.split(' ', 2)
            if len(p) == 3 and p[1] in 'tTwWiI':
                rows.append((int(p[0], 16), p[2]))
        if rows: break
    rows.sort()
    syms[mod] = ([a for a, _ in rows], [s for _, s in rows])
    return syms[mod]
def name(mod, off):
    if mod == '?':
        return '? (no module)'
    a, s = table(mod)
    i = bisect.bisect_right(a, int(off, 16)) - 1
    return '%s  [%s]' % ((s[i] if i >= 0 else '?')[:100], mod.split('/')[-1])
named = [(tid, name(mod, off)) for tid, mod, off in raw]
# the row's callers: the last 16 threads made that took 5 samples or more (the ceilings' pool
# threads and CUDA's come earlier)
count = collections.Counter(t for t, _ in named)
callers = set(sorted((t for t in count if count[t] >= 5), key=int)[-int(sys.argv[3]):])
print('threads', len({t for t, _ in named}), 'callers', len(callers))
by = collections.Counter(n for t, n in named if t in callers)
mods = collections.Counter(n.rsplit('[', 1)[1].rstrip(']') for t, n in named if t in callers)
print('by module', dict(mods))
tot = sum(by.values())
print('samples', tot)
for k, v in by.most_common(60):
    print('%6.2f%%  %s' % (100.0 * v / tot, k))
