#!/usr/bin/env python3
"""Reads cwbench --ab CSV files (glibc_memcpy vs cw_memcpy, hot) and shows, per
size, each sample round's glibc GB/s as one letter (H >= 60, m 50-60, l < 50)
and the median cw/glibc ratio of the rounds where glibc ran fast (>= 60 GB/s)
and slow (< 50 GB/s): the two routines are timed in the same round."""
import csv, statistics as st, sys
for f in sys.argv[1:]:
    rows = [r for r in csv.DictReader(open(f)) if r['kind'] == 'sample']
    print(f)
    for size in sorted({r['size'] for r in rows}, key=int):
        g = [float(r['value']) for r in rows if r['size'] == size and r['routine'] == 'glibc_memcpy']
        c = [float(r['value']) for r in rows if r['size'] == size and r['routine'] == 'cw_memcpy']
        tl = ''.join('H' if x >= 60 else 'm' if x >= 50 else 'l' for x in g)
        fast = [b / a for a, b in zip(g, c) if a >= 60]
        slow = [b / a for a, b in zip(g, c) if a < 50]
        fmt = lambda v: '%3d rounds, cw/glibc median %.3f' % (len(v), st.median(v)) if v else '  0 rounds'
        print('  %4s B glibc %s' % (size, tl))
        print('         fast: %s;  slow: %s' % (fmt(fast), fmt(slow)))
        print('         glibc GB/s fast %.1f slow %s; cw fast %s slow %s' % (
            st.median([a for a in g if a >= 60]) if fast else float('nan'),
            '%.1f' % st.median([a for a in g if a < 50]) if slow else '-',
            '%.1f' % st.median([b for a, b in zip(g, c) if a >= 60]) if fast else '-',
            '%.1f' % st.median([b for a, b in zip(g, c) if a < 50]) if slow else '-'))
