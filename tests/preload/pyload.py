# SPDX-License-Identifier: MIT
"""Copies of many sizes through bytes, bytearray and memoryview (CPython
copies them with memcpy/memmove); prints one hash of every result, which
must be the same with and without the shim."""
import hashlib
import random

rng = random.Random(7)
h = hashlib.sha256()
base = rng.randbytes(3 << 20)
sizes = list(range(0, 300)) + [rng.randint(300, 70000) for _ in range(600)] + \
    [1 << 20, (2 << 20) + 77, 3 << 20]
for n in sizes:
    off = rng.randint(0, len(base) - n)
    b = base[off:off + n]                       # bytes slice: memcpy
    ba = bytearray(b)                           # bytearray from bytes
    mv = memoryview(ba)
    h.update(mv[n // 3:].tobytes())             # memoryview copy
    head = bytes(mv[:n % 33])
    mv.release()                                # else ba cannot be resized
    ba[1:n // 2] = b[-(n // 4):] if n > 4 else b""   # resize: memmove
    ba += b[: n // 5]                           # extend
    ba[n // 7: n // 7 + n // 9] = bytes(ba[n // 3: n // 3 + n // 9])  # same size
    h.update(ba)
    h.update(b"-".join([b[: n % 17], head, b * (n % 3)]))
    if n:
        del ba[: n // 2]                        # memmove down
        h.update(ba)
        s = b.hex()
        h.update(bytes.fromhex(s[: 2 * (n // 2)]))
print(h.hexdigest())
