#!/usr/bin/env python3
"""Writes the synthetic size distributions of docs/RESULTS.md section 3 in the
format `cwbench dist` reads ("# comment", then "size probability" lines).
Usage: python3 docs/results/dev/synthetic-dists.py OUTDIR"""
import os
import sys

DISTS = {
    'u0_64': {i: 1 for i in range(0, 65)},
    'u33_64': {i: 1 for i in range(33, 65)},
    'u0_256': {i: 1 for i in range(0, 257)},
    'u65_256': {i: 1 for i in range(65, 257)},
    'u256_1024': {i: 1 for i in range(256, 1025)},
    'u0_4096': {i: 1 for i in range(0, 4097)},
    'log1_4096': {i: 1.0 / i for i in range(1, 4097)},
    'pow2': {2 ** k: 1 for k in range(0, 13)},
    'mult8_16_128': {i: 1 for i in range(16, 129, 8)},
    'fixed48': {48: 1},
    'fixed40_48': {40: 1, 48: 1},
}

out = sys.argv[1] if len(sys.argv) > 1 else '.'
os.makedirs(out, exist_ok=True)
for name, weights in DISTS.items():
    total = sum(weights.values())
    with open(os.path.join(out, name + '.sizes'), 'w') as f:
        f.write('# synthetic: %s\n' % name)
        for size in sorted(weights):
            f.write('%d %.9f\n' % (size, weights[size] / total))
