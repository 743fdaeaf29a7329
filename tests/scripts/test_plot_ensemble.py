"""scripts/plot_ensemble.py draws a PNG from a real ensemble summary (`herd run --replicates
--sweep --json`), and rejects a single run's summary, a file that is not JSON, an observable the
model lacks, a missing file, an image name matplotlib cannot write and a folder, each with one
line naming it.

    test_plot_ensemble.py HERD_EXE PLOT_SCRIPT
"""

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
    for args, expected in [([single], "single.json: not a herd ensemble summary"), ([text], "text.json: not JSON"),
                           ([summary, "--observable", "Q"], "no observable 'Q'"),
                           ([missing], f"{missing}: No such file or directory")]:
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
    if sorted(os.listdir(tmp)) != ["bands.png", "ensemble.json", "single.json", "text.json"]:
        sys.exit(f"files left behind: {sorted(os.listdir(tmp))}")
print("plot_ensemble.py: ok")
