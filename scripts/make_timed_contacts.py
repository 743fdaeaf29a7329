#!/usr/bin/env python3
"""Writes a synthetic timed-contact file (`t i j` lines, tab separated) for measuring temporal
networks at sizes the SocioPatterns files do not reach.

    scripts/make_timed_contacts.py CONTACTS AGENTS SPAN OUT [--seed S]

CONTACTS contacts over SPAN time units, in time order, on a grid of 20 (SocioPatterns' step).
Contact k joins agent i, drawn uniformly, to one of the 50 agents after it in a ring; the agents'
ids are a random sparse subset of [100, 100 + 10 AGENTS), so that the order of ids, and with it
contiguous blocks, follows no locality, while a partitioner finds the ring.
"""

import argparse
import sys

import numpy as np


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("contacts", type=int)
    parser.add_argument("agents", type=int)
    parser.add_argument("span", type=int)
    parser.add_argument("out")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    if args.contacts < 1 or args.agents < 52 or args.span < 1:
        sys.exit("make_timed_contacts.py: needs at least 1 contact, 52 agents and a span of 1")
    rng = np.random.default_rng(args.seed)
    times = np.sort(rng.integers(0, args.span, args.contacts)) // 20 * 20
    first = rng.integers(0, args.agents, args.contacts)
    second = (first + 1 + rng.integers(0, 50, args.contacts)) % args.agents
    ids = rng.permutation(10 * args.agents)[: args.agents] + 100
    np.savetxt(args.out, np.stack([times, ids[first], ids[second]], axis=1), fmt="%d", delimiter="\t")


if __name__ == "__main__":
    main()
