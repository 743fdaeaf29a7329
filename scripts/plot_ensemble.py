#!/usr/bin/env python3
"""Draws an ensemble's bands from the summary `herd run --replicates R [--sweep ...] --json FILE` writes.

    scripts/plot_ensemble.py summary.json -o bands.png [--observable I] [--title TEXT] [--fraction]

One panel; per sweep point, the median of the observable over the members as a line, with its
50 % band (25 to 75 %) and its 90 % band (5 to 95 %) shaded in the line's colour.
"""

import argparse
import json
import sys

from plot_output import checked_output, pyplot, read_text, save

plt = pyplot()

QUANTILES = ["q05", "q25", "q50", "q75", "q95"]


def read_summary(path):
    try:
        summary = json.loads(read_text(path, "a herd ensemble summary"))
    except json.JSONDecodeError as error:
        sys.exit(f"{path}: not JSON ({error.msg}, line {error.lineno})")
    if not isinstance(summary, dict) or "points" not in summary or "observables" not in summary:
        sys.exit(f"{path}: not a herd ensemble summary (no 'points' and 'observables'; run with --replicates or --sweep)")
    observables, points = summary["observables"], summary["points"]
    if not isinstance(observables, list) or not observables or not all(isinstance(o, str) for o in observables):
        sys.exit(f"{path}: not a herd ensemble summary ('observables' is no list of names)")
    if not isinstance(points, list) or not points or not all(isinstance(p, dict) for p in points):
        sys.exit(f"{path}: not a herd ensemble summary ('points' is no list of sweep points)")
    return summary


def checked_series(path, point, n, observable):
    """The quantiles of `observable` over point n's members: five lists of numbers of one length."""
    series = point.get("series")
    series = series.get(observable) if isinstance(series, dict) else None
    quantiles = [series.get(key) if isinstance(series, dict) else None for key in QUANTILES]
    if not all(isinstance(q, list) and all(is_number(v) for v in q) for q in quantiles) or \
            len({len(q) for q in quantiles}) != 1:
        sys.exit(f"{path}: point {n} has no series of {observable} ({', '.join(QUANTILES)}, lists of numbers of one "
                 "length)")
    if not isinstance(point.get("members"), list) or not isinstance(point.get("parameters", {}), dict) or \
            not all(is_number(v) for v in point.get("parameters", {}).values()):
        sys.exit(f"{path}: point {n} has no list of members, or parameters that are not numbers")
    return dict(zip(QUANTILES, quantiles))


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def label_of(point):
    parameters = point.get("parameters", {})
    return ", ".join(f"{name} = {value:g}" for name, value in parameters.items()) or "all members"


def members_of(point):
    count = len(point["members"])
    return f"{count} member" if count == 1 else f"{count} members"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json", help="summary written by herd run --replicates/--sweep --json")
    parser.add_argument("-o", "--output", required=True, help="image to write (PNG, SVG, PDF)")
    parser.add_argument("--observable", default=None, help="the observable to draw (I if the model has it)")
    parser.add_argument("--title", default=None)
    parser.add_argument("--fraction", action="store_true", help="plot fractions of the agents")
    args = parser.parse_args()
    checked_output(args.output, [args.json])

    summary = read_summary(args.json)
    observables = summary["observables"]
    observable = args.observable or ("I" if "I" in observables else observables[0])
    if observable not in observables:
        sys.exit(f"{args.json}: no observable '{observable}' (it has {', '.join(observables)})")
    agents = summary.get("agents")
    if args.fraction and not (is_number(agents) and agents > 0):
        sys.exit(f"{args.json}: --fraction: the summary gives no agent count")
    scale = 1.0 / agents if args.fraction else 1.0

    points = summary["points"]
    # Beyond the colours of the cycle (10 by default), one colour map gives every point its own;
    # the legend then goes beside the axes, in columns.
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    many = len(points) > len(colours)
    fig, ax = plt.subplots(figsize=(11 if many else 7, 4), dpi=120)
    if many:
        colours = [plt.get_cmap("viridis")(n / (len(points) - 1)) for n in range(len(points))]
    for n, point in enumerate(points):
        series = checked_series(args.json, point, n, observable)
        steps = range(len(series["q50"]))
        colour = colours[n]
        band = lambda key: [v * scale for v in series[key]]  # noqa: E731
        ax.fill_between(steps, band("q05"), band("q95"), color=colour, alpha=0.15, linewidth=0)
        ax.fill_between(steps, band("q25"), band("q75"), color=colour, alpha=0.3, linewidth=0)
        ax.plot(steps, band("q50"), color=colour, label=f"{label_of(point)} ({members_of(point)})")
    ax.set_xlabel("step")
    ax.set_ylabel(f"{observable}, fraction of agents" if args.fraction else f"{observable}, agents")
    ax.set_title(args.title or f"{summary.get('model', 'ensemble')}: median, 50 % and 90 % bands")
    ax.grid(alpha=0.3)
    if many:
        ax.legend(frameon=False, fontsize="x-small", loc="upper left", bbox_to_anchor=(1.01, 1.0),
                  ncol=(len(points) + 23) // 24)
    else:
        ax.legend(frameon=False, fontsize="small")
    fig.tight_layout()
    save(fig, args.output)


if __name__ == "__main__":
    main()
