#!/usr/bin/env python3
"""Draws scaling plots from the records `herd --record FILE` appends (scripts/scaling.sh).

    scripts/plot_scaling.py scaling.jsonl -o scaling.png [--title TEXT]

Two panels per study (label) found in the file, strong and weak alike: time per step against
ranks, split into compute, pack, MPI wait and unpack of the slowest rank; and parallel efficiency
against the smallest rank count of the study (strong: T1 / (P T_P), weak: T1 / T_P). A study is a
label's runs of one model on one graph with one thread count per rank: one label given to runs of
two graphs (scripts/scaling.sh run twice into one file) makes two studies. Runs of a study at the
same rank count are averaged, and must be the same problem: two agent counts there are refused.
"""

import argparse
import collections
import json
import math
import sys

from plot_output import checked_output, pyplot, read_text, save

plt = pyplot()

PARTS = [("compute_seconds_per_step", "compute"), ("pack_seconds_per_step", "pack"),
         ("wait_seconds_per_step", "MPI wait"), ("unpack_seconds_per_step", "unpack")]
NEEDED = ["ranks", "agents", "seconds_per_step"] + [key for key, _ in PARTS]


def field_problem(key, value):
    """Why `value` cannot be a record's `key` (a hand-edited or foreign line), or None."""
    if key == "ranks":
        return None if isinstance(value, int) and not isinstance(value, bool) and value >= 1 else "not a rank count"
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
        return "not a number"
    if key in ("agents", "seconds_per_step"):
        return None if value > 0 else "not positive"
    return None if value >= 0 else "negative"


def read_records(path):
    records = []
    for number, line in enumerate(read_text(path, "herd records (JSON lines)").splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            sys.exit(f"{path}:{number}: not a JSON record ({error})")
        if not isinstance(record, dict):
            sys.exit(f"{path}:{number}: not a herd record (a JSON object per line)")
        missing = [key for key in NEEDED if key not in record]
        if missing:
            sys.exit(f"{path}:{number}: not a herd record (missing {', '.join(missing)})")
        # A resume that made no step has no time per step: nothing to draw.
        if record["seconds_per_step"] is None:
            print(f"{path}:{number}: a run of no steps, left out", file=sys.stderr)
            continue
        for key in NEEDED:
            problem = field_problem(key, record[key])
            if problem:
                sys.exit(f"{path}:{number}: {key} is {json.dumps(record[key])}: {problem}")
        record["line"] = number
        records.append(record)
    if not records:
        sys.exit(f"{path}: no records of runs that made steps")
    return records


def studies(path, records):
    """{study name: (label, {ranks: mean record})}, each study sorted by ranks."""
    grouped = collections.defaultdict(lambda: collections.defaultdict(list))
    for r in records:
        problem = tuple(r.get(key) if isinstance(r.get(key), (str, int, type(None))) else json.dumps(r.get(key))
                        for key in ("model", "graph", "threads"))
        grouped[r.get("label") or "runs", problem][r["ranks"]].append(r)
    shared = collections.Counter(label for label, _ in grouped)
    out = {}
    for (label, (model, graph, threads)), by_ranks in grouped.items():
        name = label
        if shared[label] > 1:
            name = f"{label} ({model} on {graph}, {threads} thread{'s' if threads != 1 else ''} a rank)"
        for p, runs in by_ranks.items():
            odd = next((r for r in runs if r["agents"] != runs[0]["agents"]), None)
            if odd:
                sys.exit(f"{path}:{runs[0]['line']} and {odd['line']}: study {name} at {p} rank(s) holds runs of "
                         f"{runs[0]['agents']:,} and {odd['agents']:,} agents, which averaging would mix: give each "
                         "problem its own --label")
        out[name] = (label, {p: {key: sum(r[key] for r in runs) / len(runs) for key in NEEDED}
                             for p, runs in sorted(by_ranks.items())})
    return out


def efficiency(label, series):
    ranks = sorted(series)
    base = series[ranks[0]]
    values = []
    for p in ranks:
        ratio = base["seconds_per_step"] / series[p]["seconds_per_step"]
        if label != "weak":  # strong scaling: the same problem, so ideal is P / P0 times faster
            ratio *= ranks[0] / p
        values.append(ratio)
    return ranks, values


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("records", help="JSON lines written by herd --record")
    parser.add_argument("-o", "--output", required=True, help="image to write (PNG, SVG, PDF)")
    parser.add_argument("--title", default=None)
    args = parser.parse_args()
    checked_output(args.output, [args.records])
    groups = studies(args.records, read_records(args.records))

    figure, axes = plt.subplots(len(groups), 2, figsize=(11, 4 * len(groups)), squeeze=False)
    for row, (name, (label, series)) in enumerate(sorted(groups.items())):
        ranks = list(series)
        positions = range(len(ranks))
        bottom = [0.0] * len(ranks)
        for key, name in PARTS:
            heights = [series[p][key] * 1e3 for p in ranks]
            axes[row][0].bar(positions, heights, bottom=bottom, label=name)
            bottom = [b + h for b, h in zip(bottom, heights)]
        axes[row][0].plot(positions, [series[p]["seconds_per_step"] * 1e3 for p in ranks], "k.", label="step")
        axes[row][0].set_xticks(list(positions), [str(p) for p in ranks])
        axes[row][0].set_xlabel("MPI ranks")
        axes[row][0].set_ylabel("ms per step (slowest rank)")
        agents = sorted({int(series[p]["agents"]) for p in ranks})
        sizes = f"{agents[0]:,} agents" if len(agents) == 1 else f"{agents[0]:,} to {agents[-1]:,} agents"
        axes[row][0].set_title(f"{name}: time per step, {sizes}")
        axes[row][0].legend(fontsize="small")
        eff_ranks, eff = efficiency(label, series)
        axes[row][1].plot(eff_ranks, eff, "o-", label="measured")
        axes[row][1].axhline(1.0, color="grey", linestyle="--", label="ideal")
        axes[row][1].set_xscale("log", base=2)
        axes[row][1].set_xticks(eff_ranks, [str(p) for p in eff_ranks])
        axes[row][1].set_ylim(0, max(1.1, max(eff) * 1.1))
        axes[row][1].set_xlabel("MPI ranks")
        axes[row][1].set_ylabel("parallel efficiency")
        axes[row][1].set_title(f"{name}: efficiency")
        axes[row][1].legend(fontsize="small")
    if args.title:
        figure.suptitle(args.title)
    figure.tight_layout()
    save(figure, args.output, dpi=120)


if __name__ == "__main__":
    main()
