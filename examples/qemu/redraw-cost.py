#!/usr/bin/env python3
"""Redraw cost per event of the OLED kiosk, from `kiosk.sh`'s measurements.

    examples/qemu/kiosk.sh STREAM OUT.png 2>redraws.txt
    examples/qemu/redraw-cost.py STREAM redraws.txt

STREAM must be NDJSON with every frame accepted: then redraw 1 is the
empty panel and redraw N+1 follows frame N. Under `-icount shift=0` (as
kiosk.sh runs QEMU) one SysTick tick is 80 instructions.
"""
import json
import re
import statistics
import sys

INSTRUCTIONS_PER_TICK = 80

stream, log = sys.argv[1:3]
kinds = [json.loads(line)["type"] for line in open(stream, encoding="utf-8") if line.strip()]
pattern = re.compile(r"^redraw (\d+): render (\d+) ticks, flush (\d+) ticks, (\d+) bytes, (\d+) windows$")
rows = {}
for line in open(log, encoding="utf-8"):
    m = pattern.match(line.strip())
    if m:
        n, render, flush, data, windows = map(int, m.groups())
        rows[n] = (render * INSTRUCTIONS_PER_TICK, flush * INSTRUCTIONS_PER_TICK, data, windows)
by_kind = {}
for n, row in sorted(rows.items()):
    if n == 1 or n - 2 >= len(kinds):
        continue
    by_kind.setdefault(kinds[n - 2], []).append(row)
print(f"{'event':<26} {'n':>3} {'render med':>11} {'flush med':>10} {'bytes med':>9} {'total max':>10}")
for kind, v in sorted(by_kind.items()):
    med = lambda i: int(statistics.median(r[i] for r in v))
    worst = max(r[0] + r[1] for r in v)
    print(f"{kind:<26} {len(v):>3} {med(0):>11} {med(1):>10} {med(2):>9} {worst:>10}")
