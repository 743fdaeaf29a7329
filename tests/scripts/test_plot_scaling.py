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
    # Paths are the caller's: the records land in its folder; -n takes 2e4 as the herd command does.
    records = os.path.join(tmp, "scaling.jsonl")
    subprocess.run([os.path.join(source, "scripts", "scaling.sh"), "-o", "scaling.jsonl", "-r", "1 2", "-n", "2e4",
                    "-s", "5", "--", "--graph", "erdos-renyi"], check=True, cwd=tmp)
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
    # One label given to two graphs' runs (scaling.sh run twice into one file) makes two studies,
    # each drawn in its own panels, rather than an average of both; a label's runs of two sizes at
    # one rank count are refused by their lines.
    def image_height(path):
        with open(path, "rb") as f:
            return int.from_bytes(f.read(24)[20:24], "big")  # the PNG header's height

    twice = os.path.join(tmp, "twice.jsonl")
    with open(twice, "w") as f:
        f.writelines(open(records).readlines())
        f.writelines(json.dumps(dict(r, graph="power-law")) + "\n" for r in lines)
    subprocess.run([python, os.path.join(source, "scripts", "plot_scaling.py"), twice, "-o", image], check=True)
    if image_height(image) != 4 * 4 * 120:
        sys.exit(f"two graphs under one label did not make four studies: {image_height(image)} pixels high")
    with open(twice, "w") as f:
        f.writelines(open(records).readlines())
        f.write(json.dumps(dict(lines[0], agents=40000)) + "\n")
    result = subprocess.run([python, os.path.join(source, "scripts", "plot_scaling.py"), twice, "-o", image],
                            capture_output=True, text=True)
    expected = (f"{twice}:1 and 5: study strong at 1 rank(s) holds runs of 20,000 and 40,000 agents, which "
                "averaging would mix: give each problem its own --label")
    if result.returncode != 1 or result.stderr.strip() != expected:
        sys.exit(f"two sizes at one rank count were averaged: {result.returncode} {result.stderr!r}")
    # A resume that made no step records no time per step: left out, with a note, not a traceback.
    idle = os.path.join(tmp, "idle.jsonl")
    with open(idle, "w") as f:
        f.writelines(open(records).readlines())
        f.write(json.dumps(dict(lines[0], **{key: None for key in lines[0] if key.endswith("_per_step")})) + "\n")
    result = subprocess.run([python, os.path.join(source, "scripts", "plot_scaling.py"), idle, "-o", image],
                            capture_output=True, text=True)
    if result.returncode != 0 or result.stderr.strip() != f"{idle}:5: a run of no steps, left out":
        sys.exit(f"a record of no steps was not left out: {result.returncode} {result.stderr!r}")
    # 1e19 wrapped bash's arithmetic, and was called no agent count at all.
    for mistake in (["-n", "1e4x"], ["-r", "1 two"], ["-s", "0"], ["-n", "1e19"]):
        result = subprocess.run([os.path.join(source, "scripts", "scaling.sh"), *mistake], capture_output=True,
                                text=True, cwd=tmp)
        if result.returncode != 2 or not result.stderr.startswith(f"scaling.sh: {mistake[0]} "):
            sys.exit(f"scaling.sh {mistake} was not refused: {result.returncode} {result.stderr!r}")
    # --help after other options shows the usage, as it does first; after -- it is herd's.
    result = subprocess.run([os.path.join(source, "scripts", "scaling.sh"), "-o", "x.jsonl", "--help"],
                            capture_output=True, text=True, cwd=tmp)
    if result.returncode != 0 or not result.stdout.startswith("# Strong- and weak-scaling sweeps") or result.stderr:
        sys.exit(f"scaling.sh -o x.jsonl --help did not show the usage: {result.returncode} {result.stderr!r}")
    result = subprocess.run([os.path.join(source, "scripts", "scaling.sh"), "-r", "1"], capture_output=True, text=True,
                            cwd=tmp, env=dict(os.environ, MPIEXEC="no-such-mpiexec"))
    expected = "scaling.sh: no-such-mpiexec not found: install MPI or set MPIEXEC"
    if result.returncode != 1 or result.stderr.strip() != expected:
        sys.exit(f"a missing launcher was not named: {result.returncode} {result.stderr!r}")
    bad = os.path.join(tmp, "bad.jsonl")
    with open(bad, "w") as f:
        f.write('{"ranks": 1}\n')
    result = subprocess.run([python, os.path.join(source, "scripts", "plot_scaling.py"), bad, "-o", image],
                            capture_output=True, text=True)
    if result.returncode == 0 or "bad.jsonl:1" not in result.stderr:
        sys.exit(f"a malformed file was not rejected by name: {result.returncode} {result.stderr!r}")
    # Lines that are JSON but not records, or records with values no run gives: one line each, not
    # a traceback.
    good = lines[0]
    for line, expected in [("1", "not a herd record (a JSON object per line)"),
                           ('"text"', "not a herd record (a JSON object per line)"),
                           (json.dumps({**good, "ranks": 0}), "ranks is 0: not a rank count"),
                           (json.dumps({**good, "ranks": "2"}), 'ranks is "2": not a rank count'),
                           (json.dumps({**good, "seconds_per_step": 0}), "seconds_per_step is 0: not positive"),
                           (json.dumps({**good, "agents": None}), "agents is null: not a number"),
                           (json.dumps({**good, "wait_seconds_per_step": float("nan")}),
                            "wait_seconds_per_step is NaN: not a number")]:
        with open(bad, "w") as f:
            f.write(json.dumps(good) + "\n" + line + "\n")
        result = subprocess.run([python, os.path.join(source, "scripts", "plot_scaling.py"), bad, "-o", image],
                                capture_output=True, text=True)
        if result.returncode != 1 or result.stderr.strip() != f"{bad}:2: {expected}":
            sys.exit(f"{line}: not refused in one line: {result.returncode} {result.stderr!r}")
print("plot_scaling.py: ok")
