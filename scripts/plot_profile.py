#!/usr/bin/env python3
"""Draws where each step's time went, from the CSV `herd run --profile-steps FILE` writes.

    scripts/plot_profile.py steps.csv [more.csv ...] -o profile.png [--title TEXT] [--labels A,B,...]

One file: the step's time stacked by phase (step kernels, reductions, active set, halo, output),
above the agents each step visited, with the steps that visited the active list only marked.
Several files (e.g. the same run pulled and automatic): one line of total time per step for each,
above their agents stepped, so the runs compare step by step.
"""

import argparse
import csv
import io
import os
import sys

from plot_output import checked_output, pyplot, read_text, save

plt = pyplot()

FIXED = ["step", "listed_ranks", "stepped_agents"]
COLOURS = {"step": "tab:blue", "reduce": "tab:orange", "active_set": "tab:green", "halo_pack": "tab:purple",
           "halo_wait": "tab:red", "halo_unpack": "tab:pink", "output": "tab:gray"}


def read_profile(path):
    table = list(csv.reader(io.StringIO(read_text(path, "a herd step profile"), newline="")))
    header = table[0] if table else []
    if header[:3] != FIXED or header[-1:] != ["total_s"]:
        sys.exit(f"{path}: not a herd step profile (expected a header 'step,listed_ranks,stepped_agents,"
                 f"<phase>_s,...,total_s')")
    try:
        rows = [[float(v) for v in row] for row in table[1:]]
    except ValueError as error:
        sys.exit(f"{path}: {error}")
    if not rows or any(len(row) != len(header) for row in rows):
        sys.exit(f"{path}: no steps, or steps without the header's {len(header)} columns")
    return {name: [row[k] for row in rows] for k, name in enumerate(header)}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("csv", nargs="+", help="step profiles written by herd run --profile-steps")
    parser.add_argument("-o", "--output", required=True, help="image to write (PNG, SVG, PDF)")
    parser.add_argument("--title", default=None)
    parser.add_argument("--labels", default=None, help="comma-separated names of the files in the legend")
    args = parser.parse_args()
    checked_output(args.output, args.csv)
    labels = args.labels.split(",") if args.labels else [os.path.basename(p) for p in args.csv]
    if len(labels) != len(args.csv):
        sys.exit(f"--labels names {len(labels)} runs for {len(args.csv)} files")

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 6), dpi=120, sharex=True,
                                      gridspec_kw={"height_ratios": [2, 1]})
    profiles = [read_profile(p) for p in args.csv]
    if len(profiles) == 1:
        p = profiles[0]
        steps = p["step"]
        base = [0.0] * len(steps)
        for name in [c for c in p if c.endswith("_s") and c != "total_s"]:
            ms = [1e3 * v for v in p[name]]
            if not any(ms):
                continue
            phase = name[:-2]
            top.bar(steps, ms, bottom=base, width=1.0, color=COLOURS.get(phase), label=phase, linewidth=0)
            base = [b + v for b, v in zip(base, ms)]
        listed = [s for s, r in zip(steps, p["listed_ranks"]) if r > 0]
        if listed:
            bottom.scatter(listed, [a for a, r in zip(p["stepped_agents"], p["listed_ranks"]) if r > 0], s=8,
                           color="tab:green", label="active list")
        pulled = [s for s, r in zip(steps, p["listed_ranks"]) if r == 0]
        if pulled:
            bottom.scatter(pulled, [a for a, r in zip(p["stepped_agents"], p["listed_ranks"]) if r == 0], s=8,
                           color="tab:blue", label="every agent")
    else:
        for p, label in zip(profiles, labels):
            line, = top.plot(p["step"], [1e3 * v for v in p["total_s"]], label=label)
            bottom.plot(p["step"], p["stepped_agents"], color=line.get_color(), label=label)
    top.set_ylabel("ms per step")
    top.set_title(args.title or ", ".join(labels))
    top.grid(alpha=0.3)
    top.legend(frameon=False, fontsize="small")
    bottom.set_yscale("symlog", linthresh=1)
    bottom.set_ylabel("agents stepped")
    bottom.set_xlabel("step")
    bottom.grid(alpha=0.3)
    bottom.legend(frameon=False, fontsize="small")
    fig.tight_layout()
    save(fig, args.output)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
