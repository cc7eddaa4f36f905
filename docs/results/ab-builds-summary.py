#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Summarise ab-builds.sh's output: per cell, the median and range over the
rounds of each build's HL ratio cw_memcpy/glibc, and of B's over A's in the
same round; "+" where B was ahead in every round, "-" where behind in every
round.  usage: python3 docs/results/ab-builds-summary.py OUT_DIR"""
import re
import statistics
import sys


def parse(path):
    rounds, cur, sec = [], None, None
    with open(path) as f:
        for line in f:
            if line.startswith("### round"):
                cur = {"_probe": line.split("probe")[-1].strip()}
                rounds.append(cur)
            elif line.startswith("#####"):
                sec = line[6:].strip()
            elif cur is not None:
                m = re.match(r"^(\d+ (?:B|KiB|MiB))\s+.*?\s([\d.]+)\s+\[", line)
                if m:
                    cur[(sec, m.group(1))] = float(m.group(2))
                m = re.match(r"^cw_memcpy .*HL ratio ([\d.]+)", line)
                if m:
                    cur[(sec, "")] = float(m.group(1))
    return rounds


def main():
    if len(sys.argv) != 2:
        print("usage: python3 docs/results/ab-builds-summary.py OUT_DIR", file=sys.stderr)
        return 2
    a, b = (parse(f"{sys.argv[1]}/{side}.txt") for side in "ab")
    print("probes A", " ".join(r["_probe"] for r in a))
    print("probes B", " ".join(r["_probe"] for r in b))
    for k in (k for k in a[0] if k != "_probe"):
        av = [r[k] for r in a if k in r]
        bv = [r[k] for r in b if k in r]
        rel = [y / x for x, y in zip(av, bv)]
        mark = "+" if min(rel) > 1 else "-" if max(rel) < 1 else ""
        print(f"{k[0]:16s} {k[1]:7s} A {statistics.median(av):.3f} [{min(av):.3f},{max(av):.3f}]"
              f"  B {statistics.median(bv):.3f} [{min(bv):.3f},{max(bv):.3f}]"
              f"  B/A {statistics.median(rel):.3f} [{min(rel):.3f},{max(rel):.3f}] {mark}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
