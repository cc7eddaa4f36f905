#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gendata.py KIND BYTES OUT: deterministic test input (fixed seed).
KIND text: words and numbers with some binary runs (compresses like real
data); lines: one random record per line, for sort."""
import random
import sys

kind, size, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rng = random.Random(20261129)
words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(1, 12)))
         for _ in range(5000)]
parts, total = [], 0
while total < size:
    if kind == "lines":
        s = "%s %d %s\n" % (rng.choice(words), rng.randint(-10**9, 10**9),
                            " ".join(rng.choice(words) for _ in range(rng.randint(0, 8))))
        b = s.encode()
    elif rng.random() < 0.05:
        b = rng.randbytes(rng.randint(1, 9000))
    else:
        b = (" ".join(rng.choice(words) for _ in range(rng.randint(1, 40))) + "\n").encode()
    parts.append(b)
    total += len(b)
with open(out, "wb") as f:
    f.write(b"".join(parts)[:size] if kind != "lines" else b"".join(parts))
