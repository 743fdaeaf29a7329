"""scripts/scaling.sh writes records with real runs of herd under mpiexec, scripts/plot_scaling.py
draws a PNG from them, and a file that is not a record file is rejected by name.

    test_plot_scaling.py SOURCE_DIR PYTHON_WITH_MATPLOTLIB
"""

import json
import os
import subprocess
import sys
import tempfile

source, python = sys.argv[1:3]
with tempfile.TemporaryDirectory() as tmp:
    records = os.path.join(tmp, "scaling.jsonl")
    subprocess.run([os.path.join(source, "scripts", "scaling.sh"), "-o", records, "-r", "1 2", "-n", "20000",
                    "-s", "5", "--", "--graph", "erdos-renyi"], check=True)
    lines = [json.loads(line) for line in open(records)]
    if [(r["label"], r["ranks"]) for r in lines] != [("strong", 1), ("strong", 2), ("weak", 1), ("weak", 2)]:
        sys.exit(f"unexpected records: {lines}")
    if [r["agents"] for r in lines] != [20000, 20000, 20000, 40000]:
        sys.exit(f"weak scaling did not grow the problem: {[r['agents'] for r in lines]}")
    image = os.path.join(tmp, "scaling.png")
    subprocess.run([python, os.path.join(source, "scripts", "plot_scaling.py"), records, "-o", image], check=True)
    with open(image, "rb") as f:
        if f.read(8) != b"\x89PNG\r\n\x1a\n":
            sys.exit("plot_scaling.py did not write a PNG")
    bad = os.path.join(tmp, "bad.jsonl")
    with open(bad, "w") as f:
        f.write('{"ranks": 1}\n')
    result = subprocess.run([python, os.path.join(source, "scripts", "plot_scaling.py"), bad, "-o", image],
                            capture_output=True, text=True)
    if result.returncode == 0 or "bad.jsonl:1" not in result.stderr:
        sys.exit(f"a malformed file was not rejected by name: {result.returncode} {result.stderr!r}")
print("plot_scaling.py: ok")
