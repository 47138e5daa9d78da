"""Instruction counts of `loads` on the benchmark's 200-byte reply.

Run under callgrind, which counts the same under any load:

    valgrind --tool=callgrind python python/icount.py ours 400
    valgrind --tool=callgrind python python/icount.py ours 0

The difference of the two totals, over 400, is one call's instructions
(`theirs` counts json_repair's `loads` the same way). Needs the package and,
for `theirs`, json_repair installed.
"""

import importlib.util
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("bench", os.path.join(here, "bench.py"))
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)

who, n = sys.argv[1], int(sys.argv[2])
if who == "ours":
    import serde_llm

    f = serde_llm.loads
else:
    import json_repair

    f = json_repair.loads
s = bench.SMALL
f(s)
for _ in range(n):
    f(s)
