"""json_repair (Python) on the messy reply, whole (it finds the value in
prose itself): json_repair.loads, the mean of 5 calls after 1 to warm up."""
import sys
import time

import json_repair

text = open(sys.argv[1], encoding="utf-8").read()
records = len(json_repair.loads(text)["records"])
runs = 5
t = time.perf_counter()
for _ in range(runs):
    json_repair.loads(text)
ms = (time.perf_counter() - t) * 1e3 / runs
print(f"json_repair {ms:.2f} ms ({records} records)")
