"""Runs `herd run` under a Kokkos Tools library that follows the bytes Kokkos holds allocated, and
checks that the memory the report gives (bytes per agent times agents plus bytes per edge times
edges) is what the run held at its most during the step loop: nothing the steps keep goes
uncounted, and nothing is kept that the steps do not need (the graph as built, once reordered).

    check_memory.py HERD_EXE TOOL_LIBRARY ENV_VARIABLE
"""

import json
import os
import subprocess
import sys
import tempfile

herd, tool, variable = sys.argv[1:4]
# Allocations the report leaves out as too small to matter: the observables' history (8 bytes a
# count a step), a weighted graph's table of contributions by weight code, a few scalars.
SLACK = 64 * 1024

RUNS = [
    ["--model", "seir", "--graph", "population", "--agents", "100000"],
    ["--model", "sir", "--graph", "erdos-renyi", "--agents", "100000", "--mean-degree", "16"],
    ["--model", "sir", "--graph", "erdos-renyi", "--agents", "100000", "--mean-degree", "16",
     "--reorder", "bfs"],
    ["--model", "sir", "--graph", "erdos-renyi", "--agents", "100000", "--mean-degree", "16",
     "--schedule", "edge"],
    ["--model", "sir", "--graph", "power-law", "--agents", "100000", "--mean-degree", "16",
     "--schedule", "hybrid"],
    ["--model", "voter", "--graph", "watts-strogatz", "--agents", "100000", "--schedule", "team"],
    ["--model", "degroot", "--graph", "erdos-renyi", "--agents", "100000", "--precision", "half"],
    ["--model", "seir", "--graph", "population", "--agents", "100000", "--stepping", "active",
     "--binned-push", "on"],
    ["--model", "sir", "--graph", "erdos-renyi", "--agents", "100000", "--stepping", "pull"],
    ["--model", "covid", "--agents", "100000"],
]

failures = []
with tempfile.TemporaryDirectory() as tmp:
    log = os.path.join(tmp, "memory.txt")
    summary = os.path.join(tmp, "summary.json")
    env = dict(os.environ, HERD_MEMORY_LOG=log, OMP_PROC_BIND="false")
    env[variable] = tool
    for args in RUNS:
        command = ["run"] + args + ["--steps", "5", "--json", summary, "--quiet"]
        if os.path.exists(log):
            os.remove(log)  # what an earlier run recorded must not stand for this one's
        subprocess.run([herd] + command, env=env, check=True)
        if not os.path.exists(log):
            sys.exit(f"herd run {' '.join(args)}: the tool wrote no record; did Kokkos load it ({variable})?")
        with open(log) as f:
            held = dict(line.split() for line in f)
        with open(summary) as f:
            report = json.load(f)
        reported = report["bytes_per_agent"] * report["agents"] + report["bytes_per_edge"] * report["edges"]
        most = int(held["most_in_run"])
        line = (f"herd run {' '.join(args)}: reported {reported / 1e6:.3f} MB "
                f"({report['bytes_per_agent']:.3f} B/agent, {report['bytes_per_edge']} B/edge), "
                f"held at most {most / 1e6:.3f} MB")
        print(line)
        if int(held["at_run"]) < 0:
            failures.append(line + ": no herd::run region recorded")
        elif abs(most - reported) > SLACK:
            failures.append(line)
if failures:
    sys.exit("the reported memory is not what the run held:\n" + "\n".join(failures))
