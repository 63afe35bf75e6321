# SPDX-License-Identifier: BSD-3-Clause
"""The key set of a gfec-perf JSON document against the golden one (tests/perf/perf_json_keys.txt),
for the tests that check gfec-perf's JSON (test_perf_quick.sh, test_perf_daemon.sh)."""


def keys(o, p=""):
    """Every key path of o: "a.b" inside objects, "a.[].b" inside the elements of a list."""
    out = set()
    if isinstance(o, dict):
        for k, v in o.items():
            out.add(p + k)
            out |= keys(v, p + k + ".")
    elif isinstance(o, list) and o:
        for e in o:
            out |= keys(e, p + "[].")
    return out


def golden(path):
    """The key paths a golden file lists, one a line ('#' lines and blank ones skipped)."""
    return {l.strip() for l in open(path) if l.strip() and not l.startswith("#")}
