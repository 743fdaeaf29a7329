#!/usr/bin/env python3
"""Fails on Kokkos names that Kokkos 4 deprecates (and Kokkos 5 removes).

Herd builds against Kokkos 3.4 and 4.x. These names compile in 3.4 without a warning, so a build
against 3.4 never shows them, and a site building against 4.x with warnings as errors (or against
5.x at all) then fails. Each entry names what to use instead that both versions have. Code that
must differ by version (include/herd/core/kokkos_compat.hpp) sits under `#if ... KOKKOS_VERSION`,
and lines under such a test are not checked.

usage: check_kokkos_api.py SOURCE_ROOT
"""

import pathlib
import re
import sys

# (pattern, what to write instead)
DEPRECATED = [
    (r"\batomic_increment\b", "Kokkos::atomic_add(p, T{1}) (atomic_inc does not exist in Kokkos 3.4)"),
    (r"\batomic_decrement\b", "Kokkos::atomic_sub(p, T{1}) (atomic_dec does not exist in Kokkos 3.4)"),
    (r"\batomic_assign\b", "Kokkos::atomic_exchange (atomic_store is not generic in Kokkos 3.4)"),
    (r"\batomic_compare_exchange_strong\b", "Kokkos::atomic_compare_exchange"),
    (r"\bin_parallel\s*\(", "nothing: whether code runs in a parallel region is the caller's to know"),
    (r"\bInitArguments\b", "herd::compat::initialize"),
    (r"\bthread_pool_size\s*\(", "herd::compat::concurrency(exec)"),
    (r"\bExperimental::HIP\b", "herd::compat (Kokkos 4 moved HIP out of Experimental)"),
    (r"\bKokkos::Impl::", "public Kokkos API only: Impl changes without notice between releases"),
]

FOLDERS = ["include", "src", "kernels", "mpi", "tests", "benchmarks", "examples"]
VERSION_TEST = re.compile(r"^\s*#\s*if.*\bKOKKOS_VERSION\b")
OPENS = re.compile(r"^\s*#\s*if")
CLOSES = re.compile(r"^\s*#\s*endif")


def unversioned_lines(text):
    """The lines of `text` with their numbers, less those under a #if that tests KOKKOS_VERSION."""
    depth = 0  # nesting of #if blocks, counted from the outermost version test (0: none open)
    for number, line in enumerate(text.splitlines(), start=1):
        if depth:
            if OPENS.match(line):
                depth += 1
            elif CLOSES.match(line):
                depth -= 1
            continue
        if VERSION_TEST.match(line):
            depth = 1
            continue
        yield number, line


def main() -> int:
    root = pathlib.Path(sys.argv[1])
    patterns = [(re.compile(p), instead) for p, instead in DEPRECATED]
    found = 0
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in (".hpp", ".cpp"):
                continue
            for number, line in unversioned_lines(path.read_text(errors="replace")):
                for pattern, instead in patterns:
                    if pattern.search(line):
                        print(f"{path.relative_to(root)}:{number}: {line.strip()}\n    use {instead}")
                        found += 1
    if found:
        print(f"{found} use(s) of Kokkos names deprecated in Kokkos 4", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
