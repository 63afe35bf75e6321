# SPDX-License-Identifier: BSD-3-Clause
"""A real ISA-L client: PyECLib -> liberasurecode -> whatever libisal.so.2 the loader finds.

For each backend and (k, m): encode a fixed object, lose m fragments (the data fragments first,
so that decoding inverts a matrix), decode, rebuild the lost fragments, and print one SHA-256 per
fragment. test_pyeclib.sh runs this against gfec's libisal.so.2 and Debian's and compares the
output: equal output means byte-identical fragments.
"""
import hashlib
import random
import sys

from pyeclib.ec_iface import ECDriver

SHAPES = [(4, 2), (10, 4)]
BACKENDS = ["isa_l_rs_vand", "isa_l_rs_cauchy"]


def main():
    data = random.Random(6).randbytes(3 * 1024 * 1024 + 12345)
    for backend in BACKENDS:
        for k, m in SHAPES:
            driver = ECDriver(k=k, m=m, ec_type=backend)
            frags = driver.encode(data)
            lost = list(range(m))
            kept = [f for i, f in enumerate(frags) if i not in lost]
            if driver.decode(kept) != data:
                sys.exit(f"{backend} k={k} m={m}: decode differs from the object")
            if driver.reconstruct(kept, lost) != [frags[i] for i in lost]:
                sys.exit(f"{backend} k={k} m={m}: rebuilt fragments differ")
            digests = " ".join(hashlib.sha256(f).hexdigest()[:16] for f in frags)
            print(f"{backend} k={k} m={m} fragments={len(frags)}x{len(frags[0])}B: {digests}")


if __name__ == "__main__":
    main()
