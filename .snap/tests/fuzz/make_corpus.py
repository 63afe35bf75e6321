#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Writes the seed corpora in corpus/<target>/: valid inputs and nearly valid ones (one thing
wrong each). Deterministic: run it again after changing it, and commit what changes.
The fuzzers' own finds stay out of the repo, except a crash's input, kept as a regression."""
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def write(target, name, data):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)


def profiles():
    valid = [
        "k=4 m=2", "k=10 m=4 technique=cauchy", "k=10,m=4,technique=reed_sol_van",
        "k=8 m=3 technique=jerasure_reed_sol_van", "k=6 m=3 technique=cauchy_good packetsize=64",
        "k=2 m=1 backend=cpu threads=2 cpu_path=isal", "k=3 m=3 cpu_path=base", "k=128 m=128",
        "k=200 m=56 technique=cauchy", "k=12 m=4 decode_cache=1 async_threads=64",
        "k=4 m=2 gpu_kernel=nibble_rg1_t512 gpu_min_bytes=4M gpu_device=0 gpu_streams=3 "
        "gpu_segment=64M", "k=4\tm=2\n", ", ,k=4,,m=2,", "k=5 m=5 cpu_path=auto backend=auto",
        "k=16 m=4 technique=reed_sol_van threads=0", "k=4 m=2 k=6 m=3",
    ]
    nearly = [
        "", "k=4", "m=2", "k=1 m=1", "k=4 m=5", "k=200 m=57", "k=4 m=0",
        "k=4 m=2 technique=foo", "k=4 m=2 packetsize=12", "k=4 m=2 threads=1025", "k= m=2",
        "=4 m=2", "k=4 m=2 bogus=1", "k=99999999999999999999 m=2", "k=-5 m=2", "k=0x10 m=2",
        "k=4 m=2 gpu_segment=4095", "k=4 m=2 backend=tpu", "k=4 m=2 gpu_kernel=" + "x" * 40,
        "k=4 m=2 " + "y" * 130, "k=4 m=2 cpu_path=avx9", "k=4 m=2 decode_cache=0", "k4 m2",
        "k=4 m=2 threads=1K", "k=4 m=2 gpu_min_bytes=off",
    ]
    for i, p in enumerate(valid):
        write("profile", "valid_%02d" % i, p)
    for i, p in enumerate(nearly):
        write("profile", "nearly_%02d" % i, p)


def configs():
    doc = ("# comment\n[gpu]\nkernel = nibble_rg1_t512     # a compiled kernel name\n"
           "min_bytes = 4194304\ndevice = 0\nstreams = 3\nsegment = 67108864\n\n[tune]\n"
           "rule = nibble_rg1_t512 k=2-16 m=1-4 chunk=4096-1073741824   # 2570.1 GB/s\n")
    valid = [
        doc, "", "\n\n# only comments\n", "[gpu]\nstreams = 8\n", "[ gpu ]\r\ndevice = 64\r\n",
        "[cpu]\nthreads = 4\npath = isal\n", "[tune]\nrule = k1 k=1-255 m=1-255 chunk=0-1125899906842624\n",
        "[tune]\n" + "".join("rule = r%d k=%d m=1-2 chunk=%d-%d\n" % (i, i + 1, i, i + 9)
                             for i in range(32)),
        "[gpu]\nmin_bytes = off\nsegment = 4096\n[gpu]\nmin_bytes = 1M\n",
        "[gpu]\nkernel = a=b\n", "\t[gpu]\t\n\tkernel\t=\tx y\t\n",
    ]
    nearly = [
        "[gpu\nkernel = x\n", "[nosuch]\n", "kernel = x\n", "[gpu]\nkernel\n", "[gpu]\nbogus = 1\n",
        "[gpu]\nstreams = 9\n", "[gpu]\nsegment = 4095\n", "[gpu]\nmin_bytes = -1\n",
        "[gpu]\nkernel = " + "k" * 40 + "\n", "[gpu]\nkernel = \n", "[tune]\nrule = x\n",
        "[tune]\nrule = k k=5-3 m=1-2 chunk=1-2\n", "[tune]\nrule = k k=1-2 m=1-2 chunk=1-2 extra\n",
        "[tune]\nfoo = 1\n", "[tune]\n" + "rule = r k=1 m=1 chunk=1\n" * 33,
        "[gpu]\n" + "#" * 600 + "\n", "[gpu]]\n", "[]\n", "[gpu]\ndevice = 0x1\n",
        "[tune]\nrule = k k=0-2 m=1-2 chunk=1-2\n", "[gpu]\ndevice = 65\n",
    ]
    for i, c in enumerate(valid):
        write("config", "valid_%02d" % i, c)
    for i, c in enumerate(nearly):
        write("config", "nearly_%02d" % i, c)


def meta_text(k, m, technique, chunk, size, crcs=None, version=1, extra="", sha256=None):
    body = "gfec-meta %d\nk %d\nm %d\ntechnique %s\nchunk_size %d\nsize %d\n" % (
        version, k, m, technique, chunk, size)
    if sha256 is not None:
        body += "sha256 %s\n" % sha256
    for i in range(k + m):
        body += "crc32c %d 0x%08x\n" % (i, (crcs or {}).get(i, (i * 0x9E3779B1) & 0xFFFFFFFF))
    body += extra
    return body + "meta_crc32c 0x%08x\n" % crc32c(body.encode())


def metas():
    valid = [
        meta_text(4, 2, "cauchy", 1048576, 4000000), meta_text(2, 1, "reed_sol_van", 64, 1),
        meta_text(10, 4, "jerasure_reed_sol_van", 4096, 40960),
        meta_text(6, 3, "cauchy_good", 65536, 0), meta_text(128, 128, "cauchy", 64, 8192),
        meta_text(255, 1, "cauchy", 1, 255), meta_text(1, 0, "cauchy", 18446744073709551615, 7),
        meta_text(4, 2, "cauchy", 64, 200, version=2, sha256="9f86d081884c7d65" * 4),
        meta_text(10, 4, "cauchy_good", 4096, 1, version=2, sha256="0" * 64),
    ]
    good = meta_text(4, 2, "cauchy", 1048576, 4000000)
    nearly = [
        good[:-1], good.replace("meta_crc32c 0x", "meta_crc32c 0X"),
        good[:good.index("meta_crc32c")] + "meta_crc32c 0x00000000\n",
        meta_text(0, 2, "cauchy", 64, 0), meta_text(255, 2, "cauchy", 64, 0),
        meta_text(4, 2, "cauchy", 64, 0).replace("k 4", "k 04"),
        meta_text(4, 2, "Cauchy", 64, 0), meta_text(4, 2, "cauchy", 64, 257),
        meta_text(4, 2, "cauchy", 0, 0), meta_text(4, 2, "cauchy", 64, 0, version=2),
        meta_text(4, 2, "cauchy", 64, 0, extra="extra 1\n"),
        meta_text(2, 2, "cauchy", 9223372036854775807, 0),
        meta_text(4, 2, "cauchy", 64, 0).replace("crc32c 3 ", "crc32c 4 "),
        meta_text(4, 2, "cauchy", 64, 0).replace("k 4\n", "k  4\n"),
        "meta_crc32c 0x00000000\n", "\n", "gfec-meta 1\n",
        meta_text(4, 2, "cauchy", 18446744073709551616, 0),
        meta_text(4, 2, "cauchy", 64, 0).replace("technique cauchy", "technique " + "t" * 40),
        meta_text(4, 2, "cauchy", 64, 0, version=2, sha256="9F86D081884C7D65" * 4),
        meta_text(4, 2, "cauchy", 64, 0, version=2, sha256="ab" * 31),
        meta_text(4, 2, "cauchy", 64, 0, version=3, sha256="ab" * 32),
    ]
    for i, t in enumerate(valid):
        write("meta", "valid_%02d" % i, t)
    for i, t in enumerate(nearly):
        write("meta", "nearly_%02d" % i, t)


def hdr(typ, k=4, m=2, status=0, chunk=4096, payload=None, credits=0, sid=0,
        magic=0x43454647, version=1, hlen=40, reserved=0):
    if payload is None:
        payload = {3: k * chunk, 4: m * chunk if status >= 0 else 0}.get(typ, 0)
    return struct.pack("<IHHHHHHiIIIQ", magic, version, hlen, typ, k, m, reserved, status,
                       chunk, payload, credits, sid)


def rdma_hdrs():
    valid = [hdr(1), hdr(2, credits=32), hdr(3, sid=7), hdr(4, sid=7), hdr(4, status=-301),
             hdr(5, k=0, m=0, status=-304, chunk=0), hdr(3, k=255, m=1, chunk=1),
             hdr(3, k=10, m=4, chunk=4 << 20) + struct.pack("<Q", 10 * (4 << 20)),
             hdr(1, k=128, m=128, chunk=0xFFFFFFFF)]
    nearly = [hdr(1, magic=0x43454648), hdr(1, version=2), hdr(1, hlen=48), hdr(0), hdr(6),
              hdr(1, reserved=1), hdr(1, k=1), hdr(1, m=0), hdr(1, k=4, m=5),
              hdr(1, k=200, m=57), hdr(1, chunk=0), hdr(3, payload=1),
              hdr(5, payload=4), hdr(3, k=10, m=4, chunk=4 << 20) + struct.pack("<Q", 1),
              hdr(4, status=-1, payload=8192), hdr(1)[:20], b""]
    for i, h in enumerate(valid):
        write("rdma_hdr", "valid_%02d" % i, h)
    for i, h in enumerate(nearly):
        write("rdma_hdr", "nearly_%02d" % i, h)


def rdma_conns():
    # op: bits 0-1 connection, 2-3 action (0 message, 1 hang up, 2 bad input), bit 4 land /
    # own buffers, bit 5 peer-chosen slot (bits 6-7)
    def msg(conn, h, land=False, index=None):
        op = conn | (0x10 if land else 0) | (0x20 | index << 6 if index is not None else 0)
        return bytes([op]) + h

    hello = hdr(1, chunk=64)
    stripe = lambda sid, **kw: hdr(3, chunk=64, sid=sid, **kw)
    seeds = {
        "cycle": msg(0, hello) + msg(0, stripe(1), land=True) + msg(0, stripe(2), land=True),
        "own_buffers": msg(1, hello, land=True) + msg(1, stripe(1), land=True, index=2)
        + msg(1, stripe(5), land=True, index=0) + b"payload bytes",
        "stripe_first": msg(0, stripe(1)),
        "id_reused": msg(0, hello) + msg(0, stripe(3), land=True) + msg(0, stripe(3)),
        "credits": msg(0, hello) + b"".join(msg(0, stripe(i)) for i in range(1, 6)),
        "hello_twice": msg(2, hello) + msg(2, hello),
        "same_address": msg(0, hello) + msg(3, hello) + bytes([1]) + msg(3, hello),
        "busy": b"".join(msg(c, hdr(1, k=6, m=6, chunk=4096)) for c in range(3)),
        "too_big": msg(0, hdr(1, k=6, m=6, chunk=4097)),
        "not_served": msg(0, hdr(1, k=5, m=2)),
        "wrong_code": msg(0, hello) + msg(0, hdr(3, k=2, m=1, chunk=64, sid=1)),
        "wrong_len": msg(0, hello) + msg(0, hdr(3, chunk=128, sid=1)),
        "bad_slot": msg(0, hello) + msg(0, stripe(1), index=1),
        "own_busy_slot": msg(1, hello, land=True) + msg(1, stripe(1), index=0)
        + msg(1, stripe(2), index=0),
        "hangup_midway": msg(0, hello) + msg(0, stripe(1)) + bytes([4]) + msg(0, hello),
        "closed_bad": msg(2, hello) + bytes([10]) + msg(2, hello),
        "three_codes": msg(0, hdr(1, k=2, m=1, chunk=8)) + msg(1, hdr(1, k=6, m=6, chunk=1))
        + msg(2, hello) + msg(0, hdr(3, k=2, m=1, chunk=8, sid=0), land=True)
        + msg(1, hdr(3, k=6, m=6, chunk=1, sid=9), land=True)
        + msg(2, stripe(1 << 40), land=True),
        "error_msg": msg(0, hdr(5, k=0, m=0, status=-301, chunk=0)),
        "garbage": bytes(range(256)),
    }
    for name, data in seeds.items():
        write("rdma_conn", name, data)


if __name__ == "__main__":
    profiles()
    configs()
    metas()
    rdma_hdrs()
    rdma_conns()
    sys.exit(0)
