"""scripts/plot_profile.py draws PNGs from real `herd run --profile-steps` files (one run, and two
runs side by side), and rejects a file that is not one, or labels that do not match the files,
with a message naming the problem.

    test_plot_profile.py HERD_EXE PLOT_SCRIPT
"""

import os
import subprocess
import sys
import tempfile

herd, script = sys.argv[1:3]


def is_png(path):
    with open(path, "rb") as f:
        return f.read(8) == b"\x89PNG\r\n\x1a\n"


with tempfile.TemporaryDirectory() as tmp:
    env = dict(os.environ, OMP_PROC_BIND="false")
    profiles = []
    for stepping in ["pull", "auto"]:
        path = os.path.join(tmp, stepping + ".csv")
        subprocess.run([herd, "run", "--model", "sir", "--graph", "erdos-renyi", "--agents", "20000", "--steps", "40",
                        "--stepping", stepping, "--profile-steps", path, "--quiet"], env=env, check=True)
        profiles.append(path)
    one = os.path.join(tmp, "one.png")
    subprocess.run([sys.executable, script, profiles[1], "-o", one], check=True)
    two = os.path.join(tmp, "two.png")
    subprocess.run([sys.executable, script, *profiles, "--labels", "pull,automatic", "-o", two], check=True)
    if not is_png(one) or not is_png(two):
        sys.exit("plot_profile.py did not write PNGs")

    series = os.path.join(tmp, "series.csv")
    subprocess.run([herd, "run", "--agents", "2000", "--steps", "5", "--csv", series, "--quiet"], env=env, check=True)
    failures = [([series, "-o", one], "series.csv: not a herd step profile"),
                ([*profiles, "--labels", "only", "-o", one], "--labels names 1 runs for 2 files"),
                ([os.path.join(tmp, "missing.csv"), "-o", one], "missing.csv: No such file or directory")]
    for args, message in failures:
        result = subprocess.run([sys.executable, script, *args], capture_output=True, text=True)
        if result.returncode == 0 or message not in result.stderr:
            sys.exit(f"{args} was not rejected with '{message}': {result.returncode} {result.stderr!r}")
print("plot_profile.py: ok")
