#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks a cachewise-preload profile (CACHEWISE_PROFILE output).

check_profile.py PROFILE [--min-calls N] [--calls N] [--bytes N]
                         [--expect FILE] [--absent SIZE ...] [--has SIZE:COUNT ...]

Always: the format cwbench dist reads ('#' comments, then 'size probability'
lines, sizes ascending, probabilities in (0, 1] summing to 1) and the header
(calls, bytes) consistent with the lines. --expect FILE: lines
'call FN SIZE COUNT' (known_calls.c); the histogram must be exactly what
those calls give. Exit 0 if good, 1 with a message otherwise."""
import argparse
import re
import sys

EXACT_MAX = 4096


def fail(msg):
    print("check_profile: " + msg, file=sys.stderr)
    sys.exit(1)


def bucket_of(size):
    """Key of the histogram bucket: the size itself up to 4096, else the
    power of two starting its bucket [2^k, 2^(k+1))."""
    if size <= EXACT_MAX:
        return ("exact", size)
    return ("log", size.bit_length() - 1)


def parse(path):
    header = {}
    lines = []
    with open(path) as f:
        text = f.read()
    if not text.endswith("\n"):
        fail("file does not end with a newline (truncated?)")
    for no, line in enumerate(text.splitlines(), 1):
        if line.startswith("#"):
            m = re.match(r"# calls: (\d+) \(memcpy (\d+), memmove (\d+), mempcpy (\d+); "
                         r"through __\*_chk (\d+)\)$", line)
            if m:
                header["calls"], header["memcpy"], header["memmove"], header["mempcpy"], \
                    header["chk"] = map(int, m.groups())
            m = re.match(r"# bytes: (\d+) ", line)
            if m:
                header["bytes"] = int(m.group(1))
            continue
        parts = line.split()
        if len(parts) != 2:
            fail("line %d: expected 'size probability': %r" % (no, line))
        try:
            size, prob = int(parts[0]), float(parts[1])
        except ValueError:
            fail("line %d: not numbers: %r" % (no, line))
        if size < 0 or not 0 < prob <= 1:
            fail("line %d: out of range: %r" % (no, line))
        if lines and size <= lines[-1][0]:
            fail("line %d: sizes not ascending" % no)
        lines.append((size, prob))
    for key in ("calls", "bytes", "memcpy"):
        if key not in header:
            fail("header line for %s missing" % key)
    return header, lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("profile")
    ap.add_argument("--min-calls", type=int, default=0)
    ap.add_argument("--calls", type=int)
    ap.add_argument("--bytes", type=int)
    ap.add_argument("--expect")
    ap.add_argument("--absent", type=int, nargs="*", default=[])
    ap.add_argument("--has", nargs="*", default=[], help="SIZE:COUNT, exact sizes only")
    a = ap.parse_args()

    h, lines = parse(a.profile)
    calls = h["calls"]
    if calls != h["memcpy"] + h["memmove"] + h["mempcpy"]:
        fail("calls %d != memcpy + memmove + mempcpy" % calls)
    if calls < a.min_calls:
        fail("only %d calls recorded, expected at least %d" % (calls, a.min_calls))
    if a.calls is not None and calls != a.calls:
        fail("%d calls recorded, expected %d" % (calls, a.calls))
    if a.bytes is not None and h["bytes"] != a.bytes:
        fail("%d bytes recorded, expected %d" % (h["bytes"], a.bytes))
    if calls == 0:
        if lines:
            fail("size lines without calls")
        return
    total = sum(p for _, p in lines)
    if abs(total - 1) > 1e-9 * max(len(lines), 1):
        fail("probabilities sum to %r" % total)
    hist = {}
    for size, p in lines:
        c = p * calls
        if abs(c - round(c)) > 1e-6 * max(c, 1):
            fail("size %d: probability %r is not a whole number of calls" % (size, p))
        key = bucket_of(size)
        if key in hist:
            fail("two lines fall in bucket %r" % (key,))
        hist[key] = (size, round(c))
    est = sum(s * c for s, c in hist.values())
    if abs(est - h["bytes"]) > 0.01 * h["bytes"] + 1:
        fail("sizes x calls give %d bytes, header says %d" % (est, h["bytes"]))
    for size in a.absent:
        if bucket_of(size) in hist:
            fail("size %d present but should not be" % size)

    for item in a.has:
        size, count = (int(x) for x in item.split(":"))
        got = hist.get(bucket_of(size), (size, 0))[1]
        if got != count:
            fail("size %d: %d calls recorded, expected %d" % (size, got, count))

    if a.expect:
        want, per_fn = {}, {"memcpy": 0, "memmove": 0, "mempcpy": 0, "chk": 0}
        with open(a.expect) as f:
            for line in f:
                parts = line.split()
                if not parts or parts[0] != "call":
                    continue
                fn, size, count = parts[1], int(parts[2]), int(parts[3])
                key = bucket_of(size)
                n, b = want.get(key, (0, 0))
                want[key] = (n + count, b + size * count)
                base = fn.strip("_").replace("_chk", "")
                per_fn[base] += count
                if fn.endswith("_chk"):
                    per_fn["chk"] += count
        for fn, n in per_fn.items():
            if h[fn] != n:
                fail("%s: %d calls recorded, %d made" % (fn, h[fn], n))
        got = {k: c for k, (s, c) in hist.items()}
        exp = {k: n for k, (n, b) in want.items()}
        if got != exp:
            fail("histogram differs:\n  got  %r\n  want %r" % (sorted(got.items()),
                                                               sorted(exp.items())))
        for key, (n, b) in want.items():
            rep = (b + n // 2) // n
            if hist[key][0] != rep:
                fail("bucket %r reported at %d, expected mean %d" % (key, hist[key][0], rep))
    print("profile ok: %d calls, %d bytes, %d size lines" % (calls, h["bytes"], len(lines)))


if __name__ == "__main__":
    main()
