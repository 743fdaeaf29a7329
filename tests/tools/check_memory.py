"""Runs `herd run` under a Kokkos Tools library that follows the bytes Kokkos holds allocated, and
checks that the memory the report gives (bytes per agent times agents plus bytes per edge times
edges) is what the run held at its most during the step loop: nothing the steps keep goes
uncounted, and nothing is kept that the steps do not need (the graph as built, once reordered).

    check_memory.py HERD_EXE TOOL_LIBRARY ENV_VARIABLE [MPIEXEC FLAGS...]

With an mpiexec, it checks instead that no rank of a run on 4 ranks holds as much as half the
memory the whole run reports: a rank holds its share of the agents and edges, with their ghosts
and halo, and not the whole graph beside them. And, on 2, 3 and 4 ranks of a generated graph, the
layered population and an edge list, each of which the ranks build by shares, that no rank ever holds, setup included, more than 1.3 times its share
of the whole run, its ghosts (at the run's bytes per agent) and SHARE_SLACK.
"""

import json
import os
import subprocess
import sys
import tempfile

herd, tool, variable = sys.argv[1:4]
mpiexec = sys.argv[4:]
# Allocations the report leaves out as too small to matter: the observables' history (8 bytes a
# count a step), a weighted graph's table of contributions by weight code, a few scalars.
SLACK = 64 * 1024
# What a rank building its share holds beyond it: one round's buffers (2^16 edges of about 64
# bytes), one bit per agent for its ghosts, the halo plan's handshake.
SHARE_SLACK = 6 * 1024 * 1024

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


def run_under_tool(tmp, command, launcher=()):
    """Runs `herd` with `command` under the tool; returns the report and each process' record."""
    log = os.path.join(tmp, "memory.txt")
    summary = os.path.join(tmp, "summary.json")
    for name in os.listdir(tmp):
        os.remove(os.path.join(tmp, name))  # what an earlier run recorded must not stand for this one's
    env = dict(os.environ, HERD_MEMORY_LOG=log, OMP_PROC_BIND="false")
    env[variable] = tool
    subprocess.run([*launcher, herd, "run", *command, "--steps", "5", "--json", summary, "--quiet"], env=env,
                   check=True, timeout=240)
    records = []
    for name in sorted(os.listdir(tmp)):
        if name.startswith("memory.txt"):
            with open(os.path.join(tmp, name)) as f:
                records.append({key: int(value) for key, value in (line.split() for line in f)})
    if not records:
        sys.exit(f"herd run {' '.join(command)}: the tool wrote no record; did Kokkos load it ({variable})?")
    with open(summary) as f:
        report = json.load(f)
    return report, records


def reported_bytes(report):
    return report["bytes_per_agent"] * report["agents"] + report["bytes_per_edge"] * report["edges"]


def check_each_run(tmp):
    """One process: the report is what the run held at its most, within SLACK."""
    failures = []
    for args in RUNS:
        report, records = run_under_tool(tmp, args)
        held = records[0]
        reported = reported_bytes(report)
        line = (f"herd run {' '.join(args)}: reported {reported / 1e6:.3f} MB "
                f"({report['bytes_per_agent']:.3f} B/agent, {report['bytes_per_edge']} B/edge), "
                f"held at most {held['most_in_run'] / 1e6:.3f} MB")
        print(line)
        if held["at_run"] < 0:
            failures.append(line + ": no herd::run region recorded")
        elif abs(held["most_in_run"] - reported) > SLACK:
            failures.append(line)
    return failures


def check_ranks(tmp, ranks=4):
    """Under mpiexec: no rank holds as much as half of what the whole run reports."""
    failures = []
    command = ["--model", "sir", "--graph", "watts-strogatz", "--agents", "200000"]
    report, records = run_under_tool(tmp, command, [mpiexec[0], "-n", str(ranks), *mpiexec[1:]])
    whole = reported_bytes(report)
    if len(records) != ranks:
        failures.append(f"{len(records)} records for {ranks} ranks")
    for rank, held in enumerate(records):
        line = (f"herd run {' '.join(command)} on {ranks} ranks: rank {rank} held at most "
                f"{held['most_in_run'] / 1e6:.3f} MB, the whole run reports {whole / 1e6:.3f} MB")
        print(line)
        if held["at_run"] < 0:
            failures.append(line + ": no herd::run region recorded")
        elif held["most_in_run"] >= whole / 2:
            failures.append(line)
    return failures


def check_shares(tmp):
    """Under mpiexec, a graph built by shares: no rank's peak, setup included, passes its bound."""
    failures = []
    # An edge list read by byte ranges: the Kokkos allocations are the share's; each rank's parsed
    # lines live in host vectors, outside what the tool sees (20 bytes a line, docs/scaling.md).
    edges = os.path.join(tmp, os.pardir, "edges.txt")  # beside tmp: each run empties tmp
    with open(edges, "w") as f:
        f.writelines(f"{(i * 7919) % 400000} {(i * 104729 + i // 400000 * 31 + 13) % 400000}\n"
                    for i in range(2000000))
    for command in (["--model", "sir", "--graph", "erdos-renyi", "--agents", "400000", "--mean-degree", "10"],
                    ["--model", "voter", "--graph", "watts-strogatz", "--agents", "400000"],
                    ["--model", "seir", "--graph", "population", "--agents", "400000"],
                    ["--model", "sir", "--graph", edges]):
        for ranks in (2, 3, 4):
            report, records = run_under_tool(tmp, command, [mpiexec[0], "-n", str(ranks), *mpiexec[1:]])
            whole = reported_bytes(report)
            if len(records) != ranks:
                failures.append(f"{len(records)} records for {ranks} ranks")
            for rank, held in enumerate(records):
                ghosts = report["ranks"][rank]["ghosts"]
                bound = 1.3 * whole / ranks + ghosts * report["bytes_per_agent"] + SHARE_SLACK
                line = (f"herd run {' '.join(command)} on {ranks} ranks: rank {rank} held at most "
                        f"{held['most'] / 1e6:.3f} MB, bound {bound / 1e6:.3f} MB (whole run {whole / 1e6:.3f} MB, "
                        f"{ghosts} ghosts)")
                print(line)
                if held["most"] > bound:
                    failures.append(line)
    return failures


with tempfile.TemporaryDirectory() as top:
    tmp = os.path.join(top, "runs")
    os.mkdir(tmp)
    failures = check_ranks(tmp) + check_shares(tmp) if mpiexec else check_each_run(tmp)
if failures:
    sys.exit("the reported memory is not what the run held:\n" + "\n".join(failures))
