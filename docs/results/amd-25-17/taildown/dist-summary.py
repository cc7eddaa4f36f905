# dist-summary.py FILE: median [min, max] HL ratio per file and build of a dist.sh output
import collections,statistics as st,sys
d=collections.defaultdict(list)
for l in open(sys.argv[1]):
    if l.startswith('#'): continue
    p=l.split()
    if len(p)==3: d[(p[0],p[1])].append(float(p[2]))
files=list(dict.fromkeys(k[0] for k in d)); builds=list(dict.fromkeys(k[1] for k in d))
for f in files:
    print(f"{f:15s}", "  ".join(f"{b}: {st.median(d[(f,b)]):.3f} [{min(d[(f,b)]):.3f},{max(d[(f,b)]):.3f}]" for b in builds))
