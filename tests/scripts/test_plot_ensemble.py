"""scripts/plot_ensemble.py draws a PNG from a real ensemble summary (`herd run --replicates
--sweep --json`), and rejects a single run's summary, a file that is not JSON, an observable the
model lacks, a missing file, an image name matplotlib cannot write and a folder, each with one
line naming it.

    test_plot_ensemble.py HERD_EXE PLOT_SCRIPT
"""

import json
import os
import subprocess
import sys
import tempfile

herd, script = sys.argv[1:3]


def plot(*args):
    return subprocess.run([sys.executable, script, *args], capture_output=True, text=True)


with tempfile.TemporaryDirectory() as tmp:
    env = dict(os.environ, OMP_PROC_BIND="false")
    run = [herd, "run", "--model", "sir", "--graph", "erdos-renyi", "--agents", "5000", "--mean-degree", "6",
           "--steps", "40", "--quiet"]
    summary = os.path.join(tmp, "ensemble.json")
    subprocess.run([*run, "--replicates", "6", "--sweep", "beta=0.05:0.1:2", "--json", summary], env=env, check=True)
    image = os.path.join(tmp, "bands.png")
    result = plot(summary, "-o", image, "--fraction")
    if result.returncode != 0:
        sys.exit(f"plot_ensemble.py failed: {result.stderr}")
    with open(image, "rb") as f:
        if f.read(8) != b"\x89PNG\r\n\x1a\n":
            sys.exit("plot_ensemble.py did not write a PNG")
    single = os.path.join(tmp, "single.json")
    subprocess.run([*run, "--json", single], env=env, check=True)
    text = os.path.join(tmp, "text.json")
    with open(text, "w") as f:
        f.write("step,S\n0,1\n")
    missing = os.path.join(tmp, "missing.json")
    # Summaries cut short or edited by hand: one line each, not a traceback.
    with open(summary) as f:
        whole = json.load(f)

    def broken_summary(change, n):
        edited = json.loads(json.dumps(whole))
        change(edited)
        broken = os.path.join(tmp, f"broken{n}.json")
        with open(broken, "w") as f:
            json.dump(edited, f)
        return broken

    edits = [(lambda s: s.update(observables=[]), "broken0.json: not a herd ensemble summary ('observables'"),
             (lambda s: s["points"][0].pop("series"), "broken1.json: point 0 has no series of I"),
             (lambda s: s["points"][0]["parameters"].update(beta="high"), "point 0 has no list of members, or param"),
             (lambda s: s.pop("agents"), "broken3.json: --fraction: the summary gives no agent count")]
    cases = [([single], "single.json: not a herd ensemble summary"), ([text], "text.json: not JSON"),
             ([summary, "--observable", "Q"], "no observable 'Q'"),
             ([missing], f"{missing}: No such file or directory")]
    cases += [([broken_summary(change, n), "--fraction"], expected) for n, (change, expected) in enumerate(edits)]
    for args, expected in cases:
        result = plot(*args, "-o", os.path.join(tmp, "x.png"))
        lines = result.stderr.strip().splitlines()
        if result.returncode == 0 or len(lines) != 1 or expected not in lines[0]:
            sys.exit(f"{args}: not refused in one line naming it: {result.returncode} {result.stderr!r}")
        if os.path.exists(os.path.join(tmp, "x.png")):
            sys.exit(f"{args}: an image was written")
    # An image name matplotlib cannot write, or a folder, is refused before any drawing.
    for output, expected in [("x.foo", "not an image name matplotlib writes"), (tmp, "a folder, not an image file")]:
        target = output if os.path.isabs(output) else os.path.join(tmp, output)
        result = plot(summary, "-o", target)
        lines = result.stderr.strip().splitlines()
        if result.returncode != 1 or len(lines) != 1 or expected not in lines[0]:
            sys.exit(f"-o {output}: not refused in one line naming it: {result.returncode} {result.stderr!r}")
    if sorted(os.listdir(tmp)) != ["bands.png", *[f"broken{n}.json" for n in range(len(edits))], "ensemble.json",
                                   "single.json", "text.json"]:
        sys.exit(f"files left behind: {sorted(os.listdir(tmp))}")
print("plot_ensemble.py: ok")
