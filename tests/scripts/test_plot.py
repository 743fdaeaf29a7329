"""scripts/plot_epidemic.py draws a PNG from a real `herd --csv` time series, and rejects a file
that is not one, or is missing, with a message naming it; every plotting script names a Python
without matplotlib in one line.

    test_plot.py HERD_EXE PLOT_SCRIPT
"""

import os
import resource
import signal
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
    # An ensemble's CSV, a series per member: its summary is what plot_ensemble.py draws.
    members = os.path.join(tmp, "members.csv")
    subprocess.run([herd, "run", "--agents", "2000", "--steps", "3", "--replicates", "2", "--csv", members, "--quiet"],
                   env=env, check=True)
    result = subprocess.run([sys.executable, script, members, "-o", image], capture_output=True, text=True)
    if result.returncode != 1 or not result.stderr.strip().startswith(f"{members}: an ensemble's series, one per "
                                                                       "member: draw its summary"):
        sys.exit(f"an ensemble's CSV was not named as one: {result.returncode} {result.stderr!r}")
    # The image named as one of the inputs, by another name too: refused, the input kept.
    with open(series, "rb") as f:
        kept = f.read()
    os.symlink(series, os.path.join(tmp, "link.png"))
    for given in (series, os.path.join(tmp, "link.png")):
        copy = os.path.join(tmp, "as-image.png")
        with open(copy, "wb") as f:
            f.write(kept)
        for inputs, output in (([copy], copy), ([series, series], given)):
            result = subprocess.run([sys.executable, script, *inputs, "-o", output], capture_output=True, text=True)
            if result.returncode != 1 or result.stderr.strip() != f"{output}: is the input {inputs[0]}: the image " \
                                                                  "would replace it":
                sys.exit(f"an image over its input was not refused: {result.returncode} {result.stderr!r}")
    for path in (series, copy):
        with open(path, "rb") as f:
            if f.read() != kept:
                sys.exit(f"{path}, an input, was changed")
    # A file cut off in a row: refused by its line, where the columns would have shifted. A blank
    # line at the end holds nothing.
    with open(series) as f:
        text = f.read()
    cut = os.path.join(tmp, "cut.csv")
    with open(cut, "w") as f:
        f.write(text[:text.index("\n", text.index("\n") + 1) + 4])
    result = subprocess.run([sys.executable, script, cut, "-o", image], capture_output=True, text=True)
    if result.returncode != 1 or result.stderr.strip() != f"{cut}:3: 2 values where the header names 5":
        sys.exit(f"a row cut short was not refused by its line: {result.returncode} {result.stderr!r}")
    blank = os.path.join(tmp, "blank.csv")
    with open(blank, "w") as f:
        f.write(text + "\n")
    subprocess.run([sys.executable, script, blank, "-o", image], check=True, capture_output=True)
    # A write that fails part way (here a file-size limit, as a full disk would) leaves the image
    # there before, and no partial file.
    with open(image, "rb") as f:
        before = f.read()

    def small_files():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails rather than kills
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

    result = subprocess.run([sys.executable, script, series, "-o", image, "--title", "another"], capture_output=True,
                            text=True, preexec_fn=small_files)
    if result.returncode != 1 or not result.stderr.startswith(f"{image}: cannot write the image ("):
        sys.exit(f"a failed write was not reported in one line: {result.returncode} {result.stderr!r}")
    with open(image, "rb") as f:
        if f.read() != before:
            sys.exit("a failed write changed the image there before")
    left = sorted(name for name in os.listdir(tmp) if name.startswith("."))
    if left:
        sys.exit(f"a failed write left {left}")
    # A Python without matplotlib (another python3 first on the PATH): every plotting script says
    # so in one line, naming that Python, rather than with a traceback.
    hidden = os.path.join(tmp, "no-matplotlib", "matplotlib")
    os.makedirs(hidden)
    with open(os.path.join(hidden, "__init__.py"), "w") as f:
        f.write('raise ImportError("No module named \'matplotlib\'")\n')
    for name in ("plot_epidemic.py", "plot_ensemble.py", "plot_profile.py", "plot_scaling.py"):
        path = os.path.join(os.path.dirname(script), name)
        result = subprocess.run([sys.executable, path, series, "-o", image], capture_output=True, text=True,
                                env=dict(os.environ, PYTHONPATH=os.path.dirname(hidden)))
        expected = f"{name}: {sys.executable} has no matplotlib: run the script with a Python that has it"
        if result.returncode != 1 or len(result.stderr.splitlines()) != 1 or not result.stderr.startswith(expected):
            sys.exit(f"{name} without matplotlib: not one line: {result.returncode} {result.stderr!r}")
print("plot_epidemic.py: ok")
