"""What the tests of herd's HDF5 files share: running herd (alone or under mpiexec) with a quiet,
reproducible environment, and a test case with its own temporary directory.

A test script calls configure(sys.argv) before unittest.main: argv[1] is herd, the rest the mpiexec
command line."""

import os
import re
import shlex
import subprocess
import tempfile
import unittest

HERD = None
MPIEXEC = None
# What starts herd alone: nothing, or (in sanitizer builds) mpiexec -n 1, whose start is cheaper there.
LAUNCHER = shlex.split(os.environ.get("HERD_LAUNCHER", ""))
ENV = dict(os.environ, OMP_NUM_THREADS="1", OMP_PROC_BIND="false", OMPI_ALLOW_RUN_AS_ROOT="1",
           OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", KOKKOS_DISABLE_WARNINGS="1")


def configure(argv):
    global HERD, MPIEXEC
    HERD, MPIEXEC = argv[1], argv[2:]


def herd_command(ranks, *args):
    """herd alone (ranks 0) or under mpiexec -n ranks; alone whatever the ranks when no mpiexec is
    given (herd built without MPI), so that a comparison across rank counts still runs."""
    return [*LAUNCHER, HERD, *args] if ranks == 0 or not MPIEXEC else [*MPIEXEC, "-n", str(ranks), HERD, *args]


def herd(ranks, *args, cwd=None):
    return subprocess.run(herd_command(ranks, *args), capture_output=True, text=True, env=ENV, timeout=300, cwd=cwd)


_PARTITIONERS = None


def partitioners():
    """The partition methods this herd offers, as `herd --version` lists them (METIS, PT-Scotch
    and ParMETIS are optional)."""
    global _PARTITIONERS
    if _PARTITIONERS is None:
        found = re.search(r"partitioners: ([a-z, ]+)\)", herd(0, "--version").stdout)
        _PARTITIONERS = found.group(1).split(", ") if found else ["contiguous"]
    return _PARTITIONERS


def metis_or_blocks():
    """METIS where this build has it, else contiguous blocks: a run compared with one process's
    compares either way."""
    return "metis" if "metis" in partitioners() else "contiguous"


def read(path):
    with open(path) as f:
        return f.read()


def checksum(values):
    """A dataset's checksum as docs/file-formats.md defines it, computed here from the formula."""
    import numpy as np  # here: the tests that need no HDF5 run where numpy is missing

    def mix(z):
        """SplitMix64's finaliser on an array of uint64."""
        z = z + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))

    flat = values.reshape(-1)
    if flat.dtype.kind == "f":
        v = flat.view(f"u{flat.dtype.itemsize}").astype(np.uint64)
    else:
        v = flat.astype(np.int64).view(np.uint64) if flat.dtype.kind == "i" else flat.astype(np.uint64)
    with np.errstate(over="ignore"):
        return np.sum(mix(v + mix(np.arange(flat.size, dtype=np.uint64))), dtype=np.uint64).view(np.int64)


def flip_byte(path, dataset, element):
    """Flips the low bit of one stored value in the file's bytes, as a failing disk would."""
    import h5py
    with h5py.File(path, "r") as f:
        d = f[dataset]
        offset = d.id.get_offset() + element * d.dtype.itemsize
    with open(path, "r+b") as raw:
        raw.seek(offset)
        byte = raw.read(1)[0]
        raw.seek(offset)
        raw.write(bytes([byte ^ 1]))


class Case(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def path(self, name):
        return os.path.join(self.dir.name, name)

    def ok(self, ranks, *args, cwd=None):
        result = herd(ranks, *args, cwd=cwd)
        self.assertEqual(result.returncode, 0, result.stderr)
        return result
