#!/usr/bin/env python3
"""Draws epidemic curves from the time series `herd run --csv FILE` writes.

    scripts/plot_epidemic.py run.csv [more.csv ...] -o curve.png [--title TEXT] [--fraction]

One panel; one line per state column (S, E, I, R, ...) of each file. With several files, the
lines of each file share a style and the legend names the file.
"""

import argparse
import csv
import io
import os
import sys

from plot_output import checked_output, pyplot, read_text, save

plt = pyplot()


def read_series(path):
    reader = csv.reader(io.StringIO(read_text(path, "a herd time series"), newline=""))
    rows = [(reader.line_num, row) for row in reader if row]  # blank lines hold nothing
    if len(rows) >= 1 and rows[0][1][0] == "member":
        sys.exit(f"{path}: an ensemble's series, one per member: draw its summary (herd run --replicates ... --json) "
                 "with scripts/plot_ensemble.py")
    if len(rows) < 2 or rows[0][1][0] != "step":
        sys.exit(f"{path}: not a herd time series (expected a header 'step,<state>,...' and rows)")
    header = rows[0][1]
    body = []
    for number, row in rows[1:]:
        # A short row (a file cut off) would shift every column after it.
        if len(row) != len(header):
            sys.exit(f"{path}:{number}: {len(row)} values where the header names {len(header)}")
        try:
            body.append([int(v) for v in row])
        except ValueError as error:
            sys.exit(f"{path}:{number}: {error}")
    return {name: list(values) for name, values in zip(header, zip(*body))}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("csv", nargs="+", help="time series written by herd run --csv")
    parser.add_argument("-o", "--output", required=True, help="image to write (PNG, SVG, PDF)")
    parser.add_argument("--title", default=None)
    parser.add_argument("--fraction", action="store_true", help="plot fractions of the population")
    args = parser.parse_args()
    checked_output(args.output, args.csv)

    fig, ax = plt.subplots(figsize=(7, 4), dpi=120)
    styles = ["-", "--", ":", "-."]
    colours = {"S": "tab:blue", "E": "tab:orange", "I": "tab:red", "R": "tab:green"}
    for n, path in enumerate(args.csv):
        series = read_series(path)
        steps = series.pop("step")
        total = sum(values[0] for values in series.values())
        if args.fraction and total <= 0:
            sys.exit(f"{path}: --fraction: its first row counts no agents")
        for name, values in series.items():
            y = [v / total for v in values] if args.fraction else values
            label = name if len(args.csv) == 1 else f"{name} ({os.path.basename(path)})"
            ax.plot(steps, y, styles[n % len(styles)], color=colours.get(name), label=label)
    ax.set_xlabel("step")
    ax.set_ylabel("fraction of agents" if args.fraction else "agents")
    ax.set_title(args.title or ", ".join(os.path.basename(p) for p in args.csv))
    ax.grid(alpha=0.3)
    ax.legend(frameon=False)
    fig.tight_layout()
    save(fig, args.output)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
