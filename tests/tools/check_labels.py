"""Runs `herd` under a Kokkos Tools library that records kernel and region names, and checks
that every kernel Herd launches carries a `herd::` label (Kokkos' own View initialisation and
deep copies carry `Kokkos::` labels), so profiling tools show Herd's structure.

    check_labels.py HERD_EXE TOOL_LIBRARY ENV_VARIABLE
"""

import os
import subprocess
import sys
import tempfile

herd, tool, variable = sys.argv[1:4]
with tempfile.TemporaryDirectory() as tmp:
    log = os.path.join(tmp, "labels.txt")
    env = dict(os.environ, HERD_LABEL_LOG=log, OMP_PROC_BIND="false")
    env[variable] = tool
    for args in (["run", "--model", "seir", "--graph", "population", "--agents", "20000", "--steps", "5",
                  "--reorder", "rcm" if os.environ.get("HERD_HAS_RCM", "1") == "1" else "random", "--quiet"],
                 ["run", "--model", "voter", "--graph", "power-law", "--agents", "20000", "--steps", "5",
                  "--schedule", "hybrid", "--reorder", "degree", "--quiet"]):
        subprocess.run([herd] + args, env=env, check=True)
        with open(log) as f:
            labels = [line.rstrip("\n") for line in f]
        kernels = [l.split(" ", 1)[1] for l in labels if l.startswith("kernel ")]
        regions = [l.split(" ", 1)[1] for l in labels if l.startswith("region ")]
        unlabelled = [k for k in kernels if not (k.startswith("herd::") or k.startswith("Kokkos::"))]
        if unlabelled:
            sys.exit(f"kernels without a herd:: label in 'herd {' '.join(args)}': {unlabelled}")
        if not any(k.startswith("herd::step::") for k in kernels):
            sys.exit(f"no herd::step kernel recorded: the tool did not see the step loop ({kernels})")
        if "herd::run" not in regions:
            sys.exit(f"no herd::run region recorded ({regions})")
        print(f"herd {' '.join(args)}: {len(kernels)} kernel labels, {len(regions)} regions, all labelled")
