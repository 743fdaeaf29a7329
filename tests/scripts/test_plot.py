"""scripts/plot_epidemic.py draws a PNG from a real `herd --csv` time series, and rejects a file
that is not one, or is missing, with a message naming it.

    test_plot.py HERD_EXE PLOT_SCRIPT
"""

import os
import subprocess
import sys
import tempfile

herd, script = sys.argv[1:3]
with tempfile.TemporaryDirectory() as tmp:
    series = os.path.join(tmp, "seir.csv")
    env = dict(os.environ, OMP_PROC_BIND="false")
    subprocess.run([herd, "run", "--agents", "20000", "--steps", "40", "--csv", series, "--quiet"], env=env, check=True)
    image = os.path.join(tmp, "curve.png")
    subprocess.run([sys.executable, script, series, "-o", image, "--fraction"], check=True)
    with open(image, "rb") as f:
        if f.read(8) != b"\x89PNG\r\n\x1a\n":
            sys.exit("plot_epidemic.py did not write a PNG")
    bad = os.path.join(tmp, "bad.csv")
    with open(bad, "w") as f:
        f.write("not,a,series\n1,2,3\n")
    result = subprocess.run([sys.executable, script, bad, "-o", image], capture_output=True, text=True)
    if result.returncode == 0 or "bad.csv" not in result.stderr:
        sys.exit(f"a malformed file was not rejected by name: {result.returncode} {result.stderr!r}")
    missing = os.path.join(tmp, "missing.csv")
    result = subprocess.run([sys.executable, script, missing, "-o", image], capture_output=True, text=True)
    if result.returncode == 0 or result.stderr.strip() != f"{missing}: No such file or directory":
        sys.exit(f"a missing file was not reported in one line: {result.returncode} {result.stderr!r}")
    # An HDF5 output given for the CSV, and an image in a folder that does not exist: one line each.
    h5 = os.path.join(tmp, "run.h5")
    with open(h5, "wb") as f:
        f.write(b"\x89HDF\r\n\x1a\n" + bytes(range(256)))
    result = subprocess.run([sys.executable, script, h5, "-o", image], capture_output=True, text=True)
    if result.returncode != 1 or result.stderr.strip() != f"{h5}: an HDF5 file, not a herd time series":
        sys.exit(f"an HDF5 file was not refused in one line: {result.returncode} {result.stderr!r}")
    nowhere = os.path.join(tmp, "missing", "curve.png")
    result = subprocess.run([sys.executable, script, series, "-o", nowhere], capture_output=True, text=True)
    if result.returncode != 1 or result.stderr.strip() != f"{nowhere}: no folder {os.path.dirname(nowhere)}":
        sys.exit(f"an image in a missing folder was not refused in one line: {result.returncode} {result.stderr!r}")
print("plot_epidemic.py: ok")
