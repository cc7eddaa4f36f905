# summary.py FILE: median HL ratio per placement, build and size of an abn.sh output, with the
# geomean and minimum of the medians
import sys,statistics as st,math,collections
d=collections.defaultdict(list)
for l in open(sys.argv[1]):
    if l.startswith('#'): continue
    p=l.split()
    if len(p)<3: continue
    off,b=p[0],p[1]
    for kv in p[2:]:
        k,v=kv.split(':'); d[(off,b,int(k))].append(float(v))
offs=sorted({k[0] for k in d},key=lambda x:(x=='random',x)); builds=list(dict.fromkeys(k[1] for k in d)); sizes=sorted({k[2] for k in d})
for off in offs:
    print(off)
    for b in builds:
        meds=[st.median(d[(off,b,s)]) for s in sizes]
        print(f"  {b:5s} "+" ".join(f"{s}:{m:.3f}" for s,m in zip(sizes,meds))+f"  geo {math.exp(sum(map(math.log,meds))/len(meds)):.3f} min {min(meds):.3f}")
