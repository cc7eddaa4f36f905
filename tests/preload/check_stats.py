#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks the shim's CACHEWISE_STATS report against the calls that made it.

check_stats.py REPORT --expect FILE

REPORT: the text the shim wrote (a file, or the stderr it was written to;
other lines are skipped). FILE: 'call FN SIZE COUNT' lines (known_calls.c).
Each call's path is predicted from the policy the report's own header
states (inline limit, rep movsb window, streaming threshold and method,
src_noreuse threshold): every size-class and path row must hold exactly
those calls and bytes, the rows must sum to the totals, and the shares must
match. Exit 0 if good, 1 with a message otherwise."""
import argparse
import re
import sys

CLASSES = [("0..32", 0, 32), ("33..128", 33, 128), ("129..512", 129, 512),
           ("513..4K", 513, 4096), ("4K+1..32K-1", 4097, 32767),
           ("32K..256K-1", 32768, 262143), ("256K..2M-1", 262144, 2097151),
           ("2M..16M-1", 2097152, 16777215), (">=16M", 16777216, 2**64 - 1)]
PATHS = ["inline", "temporal loop", "rep movsb", "streaming stores", "streaming rep movsb",
         "src_noreuse", "overlapping"]
MEMCPY_SMALL = 128  # src/internal.h CWI_MEMCPY_SMALL


def fail(msg):
    print("check_stats: " + msg, file=sys.stderr)
    sys.exit(1)


def parse(path):
    with open(path) as f:
        lines = f.read().splitlines()
    start = [i for i, l in enumerate(lines) if l.startswith("cachewise-preload stats: ")]
    if len(start) != 1:
        fail("%d reports in %s, want 1" % (len(start), path))
    lines = lines[start[0]:]
    m = re.match(r"cachewise-preload stats: (.+) \(pid (\d+)\): (\d+) calls, (\d+) bytes$",
                 lines[0])
    if not m:
        fail("first line: %r" % lines[0])
    rep = {"calls": int(m.group(3)), "bytes": int(m.group(4)), "rows": {}}
    pol = lines[1]
    if not pol.startswith("  policy: impl "):
        fail("second line: %r" % pol)
    m = re.search(r"; inline up to (\d+) B;", pol)
    rep["inline"] = int(m.group(1)) if m else 0
    if not m and "; no inline path;" not in pol:
        fail("no inline limit in %r" % pol)
    m = re.search(r"; rep movsb (\d+)\.\.(\d+) B \((any alignment|both 64-byte aligned)\);", pol)
    if m:
        rep["rep"] = (int(m.group(1)), int(m.group(2)), m.group(3) == "any alignment")
    elif "; rep movsb off;" in pol:
        rep["rep"] = None
    else:
        fail("no rep movsb window in %r" % pol)
    m = re.search(r"; streaming from (\d+) B( \(by rep movsb from (\d+) B\))?;", pol)
    if not m:
        fail("no streaming threshold in %r" % pol)
    rep["nt"] = int(m.group(1))
    rep["stream_rep"] = int(m.group(3)) if m.group(3) else None
    m = re.search(r"; src_noreuse (off|from (\d+) B)$", pol)
    if not m:
        fail("no src_noreuse threshold in %r" % pol)
    rep["src"] = int(m.group(2)) if m.group(2) else None
    section = None
    for line in lines[2:]:
        if line.startswith("  size class "):
            section = "class"
            continue
        if line.startswith("  path "):
            section = "path"
            continue
        m = re.match(r"  (.+?)\s+(\d+)\s+([\d.]+)%\s+(\d+)\s+([\d.]+)%$", line)
        if not m or section is None:
            break
        rep["rows"][(section, m.group(1))] = (int(m.group(2)), float(m.group(3)),
                                              int(m.group(4)), float(m.group(5)))
    return rep


def path_of(fn, n, rep):
    """What src/preload/stats.c must have counted: the shim's and
    cw_memcpy's tests in order. known_calls' memmove overlaps; its other
    calls do not, and their buffers are not both 64-byte aligned."""
    if fn == "memmove":
        return "overlapping"
    if rep["src"] is not None and n >= rep["src"]:
        return "src_noreuse"
    if n <= rep["inline"]:
        return "inline"
    if n <= MEMCPY_SMALL:
        return "temporal loop"
    if n >= rep["nt"]:
        if rep["stream_rep"] is not None and n >= rep["stream_rep"]:
            return "streaming rep movsb"
        return "streaming stores"
    if rep["rep"] is not None:
        lo, hi, any_align = rep["rep"]
        if lo > 1024 and lo <= n <= hi and any_align:
            return "rep movsb"
        if lo <= 1024:
            fail("rep movsb window starts at %d: set its minimum above 1024 for this test" % lo)
    return "temporal loop"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("report")
    ap.add_argument("--expect", required=True)
    a = ap.parse_args()
    rep = parse(a.report)
    want = {("class", c[0]): [0, 0] for c in CLASSES}
    want.update({("path", p): [0, 0] for p in PATHS})
    calls = nbytes = 0
    with open(a.expect) as f:
        for line in f:
            _, fn, size, count = line.split()
            n, k = int(size), int(count)
            calls += k
            nbytes += n * k
            cls = [c[0] for c in CLASSES if c[1] <= n <= c[2]][0]
            for key in (("class", cls), ("path", path_of(fn, n, rep))):
                want[key][0] += k
                want[key][1] += n * k
    if (rep["calls"], rep["bytes"]) != (calls, nbytes):
        fail("totals %d calls, %d bytes; the program made %d, %d" %
             (rep["calls"], rep["bytes"], calls, nbytes))
    for key, (wc, wb) in want.items():
        if key not in rep["rows"]:
            fail("no row %s %r" % key)
        c, cs, b, bs = rep["rows"][key]
        if (c, b) != (wc, wb):
            fail("%s %r: %d calls, %d bytes; want %d, %d" % (key[0], key[1], c, b, wc, wb))
        for got, part, total in ((cs, c, calls), (bs, b, nbytes)):
            if abs(got - 100.0 * part / total) > 0.051:
                fail("%s %r: share %.1f%% of %d/%d" % (key[0], key[1], got, part, total))
    if len(rep["rows"]) != len(want):
        fail("%d rows, want %d" % (len(rep["rows"]), len(want)))
    used = sorted({k[1] for k, v in want.items() if k[0] == "path" and v[0]})
    print("check_stats: %d calls, %d bytes; paths %s" % (calls, nbytes, ", ".join(used)))


main()
