"""What the tests of herd's HDF5 files share: running herd (alone or under mpiexec) with a quiet,
reproducible environment, and a test case with its own temporary directory.

A test script calls configure(sys.argv) before unittest.main: argv[1] is herd, the rest the mpiexec
command line."""

import os
import subprocess
import tempfile
import unittest

HERD = None
MPIEXEC = None
ENV = dict(os.environ, OMP_NUM_THREADS="1", OMP_PROC_BIND="false", OMPI_ALLOW_RUN_AS_ROOT="1",
           OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", KOKKOS_DISABLE_WARNINGS="1")


def configure(argv):
    global HERD, MPIEXEC
    HERD, MPIEXEC = argv[1], argv[2:]


def herd_command(ranks, *args):
    """herd alone (ranks 0) or under mpiexec -n ranks."""
    return [HERD, *args] if ranks == 0 else [*MPIEXEC, "-n", str(ranks), HERD, *args]


def herd(ranks, *args, cwd=None):
    return subprocess.run(herd_command(ranks, *args), capture_output=True, text=True, env=ENV, timeout=300, cwd=cwd)


def read(path):
    with open(path) as f:
        return f.read()


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
