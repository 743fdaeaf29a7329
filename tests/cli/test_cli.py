"""Tests of the herd command: its outputs, and that every bad input gives one clear line on stderr,
a non-zero exit status, and no output file."""

import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
import unittest

HERD = None
# What starts herd: nothing, or (in sanitizer builds) mpiexec -n 1, whose start is cheaper there.
LAUNCHER = shlex.split(os.environ.get("HERD_LAUNCHER", ""))


def read(path):
    with open(path) as f:
        return f.read()


def herd(*args, threads=2, cwd=None):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OMP_PROC_BIND="false")
    return subprocess.run([*LAUNCHER, HERD, *args], capture_output=True, text=True, env=env, timeout=300, cwd=cwd)


class Outputs(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def path(self, name):
        return os.path.join(self.dir.name, name)

    def test_help_and_version(self):
        result = herd("--help")
        self.assertEqual(result.returncode, 0)
        for option in ["--model", "--graph", "--agents", "--mean-degree", "--steps", "--seed", "--beta",
                       "--infectious-steps", "--gamma", "--initial-infected", "--precision", "--threads",
                       "--csv", "--json"]:
            self.assertIn(option, result.stdout)
        # Every command gives the same help, resume too (its FILE is not read from "-h").
        for command in ["run", "resume", "convert", "partition"]:
            for flag in ["--help", "-h"]:
                with self.subTest(command=command, flag=flag):
                    helped = herd(command, flag)
                    self.assertEqual(helped.returncode, 0, helped.stderr)
                    self.assertEqual(helped.stdout, result.stdout)
        self.assertRegex(herd("--version").stdout,
                         r"^herd \d+\.\d+\.\d+ \(Kokkos [\d.]+, half conversions: (F16C|integer); "
                         r"partitioners: contiguous(, metis)?(, ptscotch)?(, parmetis)?\)")

    def test_json_on_standard_output_holds_nothing_else(self):
        # More threads than this machine's cores: Kokkos would warn on standard output.
        threads = str(max(3, (os.cpu_count() or 1) + 1))
        for flag in ["--json", "--csv"]:
            result = herd("run", "--model", "sir", "--graph", "erdos-renyi", "--agents", "1000", "--mean-degree", "4",
                          "--steps", "2", "--quiet", "--threads", threads, flag, "-")
            self.assertEqual(result.returncode, 0, result.stderr)
            if flag == "--json":
                self.assertIn("threads", json.loads(result.stdout))  # a Serial build runs one
            else:
                self.assertTrue(result.stdout.startswith("step,"), result.stdout[:200])
            self.assertEqual(result.stderr, "")

    def test_json_and_csv_describe_the_run(self):
        result = herd("run", "--model", "sir", "--graph", "erdos-renyi", "--agents", "20000", "--mean-degree", "6",
                      "--steps", "40", "--beta", "0.1", "--infectious-steps", "4", "--initial-infected", "25",
                      "--csv", self.path("s.csv"), "--json", self.path("s.json"), "--quiet")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout, "")
        summary = json.loads(read(self.path("s.json")))
        for key in ["model", "agents", "edges", "steps", "seed", "final", "seconds_per_step",
                    "agent_updates_per_second", "edges_per_second", "backend", "kokkos_configuration"]:
            self.assertIn(key, summary)
        self.assertEqual(summary["agents"], 20000)
        self.assertEqual(sorted(summary["final"]), ["I", "R", "S"])
        self.assertEqual(sum(summary["final"].values()), 20000)
        rows = read(self.path("s.csv")).splitlines()
        self.assertEqual(rows[0], "step,S,I,R")
        self.assertEqual(len(rows), 42)
        self.assertEqual(rows[1], "0,19975,25,0")
        final = [int(v) for v in rows[-1].split(",")[1:]]
        self.assertEqual(final, [summary["final"][k] for k in ["S", "I", "R"]])
        self.assertEqual([f for f in os.listdir(self.dir.name) if ".partial" in f], [])

    def test_same_seed_same_trajectory_for_any_threads_schedule_and_order(self):
        common = ["--graph", "power-law", "--agents", "30000", "--mean-degree", "8", "--exponent", "2.2",
                  "--steps", "30", "--beta", "0.15", "--quiet"]
        reference = None
        # rcm comes from Kokkos Kernels; a build without it checks the degree ordering instead.
        local = "rcm" if os.environ.get("HERD_HAS_RCM", "1") == "1" else "degree"
        for threads, extra in [(1, []), (2, []), (2, ["--reorder", local]), (1, ["--reorder", "bfs"]),
                               (2, ["--schedule", "team"]), (1, ["--reorder", "random", "--schedule", "hybrid"]),
                               (2, ["--schedule", "edge", "--stepping", "pull"])]:
            out = self.path(f"t{threads}{len(extra)}.csv")
            result = herd("run", *common, *extra, "--csv", out, threads=threads)
            self.assertEqual(result.returncode, 0, result.stderr)
            series = read(out)
            if reference is None:
                reference = series
            self.assertEqual(series, reference, f"threads {threads} {extra}")
        self.assertNotEqual(reference.splitlines()[-1], reference.splitlines()[1], "nothing happened")

    def test_every_model_gives_the_same_trajectory_whatever_the_agents_order(self):
        orders = ["random", "degree", "bfs"] + (["rcm"] if os.environ.get("HERD_HAS_RCM", "1") == "1" else [])
        for model in ["sir", "seir", "voter", "majority", "degroot", "bounded-confidence", "covid"]:
            series = {}
            for order in ["none", *orders]:
                out = self.path(f"{model}-{order}.csv")
                result = herd("run", "--model", model, "--graph", "population", "--agents", "20000", "--seed", "5",
                              "--steps", "20", "--reorder", order, "--csv", out, "--quiet")
                self.assertEqual(result.returncode, 0, result.stderr)
                series[order] = read(out)
            for order in orders:
                self.assertEqual(series[order], series["none"], f"{model} with --reorder {order}")
            rows = series["none"].splitlines()
            self.assertNotEqual(rows[1].split(",")[1:], rows[-1].split(",")[1:], f"{model}: nothing happened")

    def test_edge_list_file_and_half_precision(self):
        with open(self.path("g.txt"), "w") as f:
            f.write("# a ring of 1000 with chords\n")
            for i in range(1000):
                f.write(f"{i}\t{(i + 1) % 1000}\t1.0\n{i}\t{(i * 7 + 3) % 1000}\t0.5\n")
        result = herd("run", "--graph", self.path("g.txt"), "--precision", "half", "--steps", "10",
                      "--json", self.path("g.json"), "--quiet")
        self.assertEqual(result.returncode, 0, result.stderr)
        summary = json.loads(read(self.path("g.json")))
        self.assertEqual(summary["agents"], 1000)
        self.assertTrue(summary["weighted"])
        # 4-byte index, 2-byte weight, and the 1-byte code of the weight that SEIR's pull steps read
        self.assertEqual(summary["bytes_per_edge"], 7)
        self.assertTrue(summary["stepping"]["weight_codes"])

    def test_an_edge_list_through_a_pipe_or_a_fifo_is_the_file(self):
        # Looking for HDF5's signature must neither eat a pipe's first bytes nor wait on a FIFO.
        text = "".join(f"{i} {(i * 7 + 3) % 3000}\n{i} {(i + 1) % 3000}\n" for i in range(3000))
        with open(self.path("g.txt"), "w") as f:
            f.write(text)
        args = ["run", "--model", "sir", "--steps", "10", "--quiet", "--csv", "-", "--graph"]
        env = dict(os.environ, OMP_NUM_THREADS="1", OMP_PROC_BIND="false")
        expected = herd(*args, self.path("g.txt"))
        self.assertEqual(expected.returncode, 0, expected.stderr)
        piped = subprocess.run([*LAUNCHER, HERD, *args, "/dev/stdin"], input=text, capture_output=True, text=True,
                               env=env, timeout=120)
        self.assertEqual((piped.returncode, piped.stdout), (0, expected.stdout), piped.stderr)
        # An HDF5 file through a pipe is read as text, and named as what it is, not by its NUL bytes.
        hdf5 = subprocess.run([*LAUNCHER, HERD, *args, "/dev/stdin"], input=b"\x89HDF\r\n\x1a\n" + bytes(64),
                              capture_output=True, env=env, timeout=120)
        self.assertEqual(hdf5.returncode, 1, hdf5.stderr)
        self.assertEqual(hdf5.stderr.decode(), "herd: /dev/stdin: an HDF5 file, not a text file (HDF5 reads a regular "
                                               "file, not a pipe or a device)\n")
        fifo = self.path("g.fifo")
        os.mkfifo(fifo)
        process = subprocess.Popen([*LAUNCHER, HERD, *args, fifo], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True, env=env)
        # Written once herd opens it to read; a herd that ends first is reported, not waited for.
        deadline = time.time() + 120
        while process.poll() is None and time.time() < deadline:
            try:
                fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:  # no reader yet
                time.sleep(0.01)
                continue
            os.set_blocking(fd, True)
            with os.fdopen(fd, "w") as f:
                f.write(text)
            break
        out, err = process.communicate(timeout=120)
        self.assertEqual((process.returncode, out), (0, expected.stdout), err)

    def test_a_weight_half_precision_cannot_hold_is_refused(self):
        # Above 65504 a 16-bit weight is infinite: a closed layer (factor 0) would make NaN and still
        # transmit. Float holds it, and closing the layer stops it.
        with open(self.path("heavy.txt"), "w") as f:
            f.writelines(f"{2 * k} {2 * k + 1} 100000 work\n" for k in range(500))
        with open(self.path("closed.json"), "w") as f:
            json.dump({"events": [{"steps": [1, 10], "layers": {"work": 0}}]}, f)
        args = ["run", "--model", "sir", "--graph", self.path("heavy.txt"), "--initial-infected", "100", "--beta",
                "1", "--infectious-steps", "20", "--steps", "10", "--scenario", self.path("closed.json"), "--quiet"]
        result = herd(*args, "--precision", "half", "--csv", self.path("half.csv"))
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)
        self.assertIn("heavy.txt: holds contact weights above 65504, the largest 16-bit float", result.stderr)
        self.assertFalse(os.path.exists(self.path("half.csv")))
        result = herd(*args, "--csv", self.path("float.csv"))
        self.assertEqual(result.returncode, 0, result.stderr)
        last = read(self.path("float.csv")).splitlines()[-1].split(",")
        self.assertEqual(int(last[2]) + int(last[3]), 100)  # no one infected across the closed layer

    def test_bfs_orders_a_directed_graph(self):
        # Rows that reach few agents one way: the order walks the contacts both ways.
        with open(self.path("d.txt"), "w") as f:
            f.writelines(f"{a} {b}\n" for a, b in ((i, (i * i + 7) % 3000) for i in range(0, 3000, 3)))
            f.writelines(f"{a} {b}\n" for a, b in ((i, (i * 13 + 1) % 3000) for i in range(3000)))
        series = {}
        for order in ["none", "bfs", "degree"]:
            out = self.path(f"d-{order}.csv")
            result = herd("run", "--model", "sir", "--graph", self.path("d.txt"), "--directed", "--reorder", order,
                          "--initial-infected", "50", "--steps", "30", "--csv", out, "--quiet")
            self.assertEqual(result.returncode, 0, result.stderr)
            series[order] = read(out)
        self.assertEqual(series["bfs"], series["none"])
        self.assertEqual(series["degree"], series["none"])

    def test_summary_table_and_progress(self):
        result = herd("run", "--graph", "watts-strogatz", "--agents", "5000", "--steps", "20")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("agent-updates/s", result.stdout)
        self.assertIn("step 20/20", result.stderr)


class BadInput(unittest.TestCase):
    CASES = [
        (["run", "--model", "flu"], 2, "--model: unknown value 'flu'"),
        (["run", "--frobnicate", "1"], 2, "unknown option '--frobnicate'"),
        # --directed and --transpose read an edge-list file's lines; a generator has none.
        (["run", "--graph", "erdos-renyi", "--directed"], 2, "--directed reads an edge-list file's lines"),
        (["fly"], 2, "unknown command 'fly'"),
        (["run", "--agents", "0"], 2, "--agents must be positive"),
        (["run", "--agents", "-5"], 2, "'-5' must not be negative"),
        (["run", "--agents", "1e12"], 2, "exceeds the largest supported value 2147483647"),
        (["run", "--agents", "2.5"], 2, "'2.5' is not a whole number"),
        (["run", "--steps", "ten"], 2, "--steps: 'ten' is not a number"),
        (["run", "--steps", "0x10"], 2, "--steps: '0x10' is not a number"),
        (["run", "--beta", " 0.5"], 2, "--beta: ' 0.5' is not a number"),
        (["run", "--seed", "9007199254740993"], 2, "exceeds the largest supported value 9007199254740992"),
        (["run", "--seed", "+9007199254740993"], 2, "exceeds the largest supported value 9007199254740992"),
        (["run", "--seed", "9.007199254740993e15"], 2, "write its digits"),
        (["run", "--active-threshold", "0"], 2, "--active-threshold: '0' must be positive"),
        # The opinion models visit every agent each step: verify would check nothing, and the
        # options of active steps would do nothing.
        (["run", "--model", "voter", "--stepping", "verify"], 2,
         "--stepping verify does not apply to --model voter, which visits every agent each step"),
        (["run", "--model", "degroot", "--stepping", "active"], 2, "--stepping active does not apply to --model degroot"),
        (["run", "--model", "bounded-confidence", "--binned-push", "on"], 2,
         "--binned-push tunes active steps: it does not apply to --model bounded-confidence"),
        (["run", "--model", "majority", "--active-threshold", "0.3"], 2,
         "--active-threshold tunes active steps: it does not apply to --model majority"),
        # Nor do they to steps that are all pulled.
        (["run", "--stepping", "pull", "--active-threshold", "0.3"], 2,
         "--active-threshold tunes active steps: it does not apply to --stepping pull"),
        (["run", "--model", "covid", "--binned-push", "off", "--stepping", "pull"], 2,
         "--binned-push tunes active steps: it does not apply to --stepping pull"),
        (["run", "--beta"], 2, "--beta needs a value"),
        (["run", "--beta", "1e400"], 2, "--beta: '1e400' lies beyond the range of a 64-bit float"),
        (["run", "--beta", "1e-400"], 2, "--beta: '1e-400' lies below the smallest magnitude of a 64-bit float"),
        (["run", "--max-memory", "1e30"], 2, "--max-memory: '1e30' exceeds the largest size, 1e18 bytes"),
        (["run", "--max-memory", "0.5"], 2, "--max-memory: '0.5' is not a size in bytes"),
        # 0 would write nothing beyond the file at the end.
        (["run", "--checkpoint", "c.h5", "--checkpoint-every", "0"], 2,
         "--checkpoint-every must be positive: leave it out to write only at the end"),
        (["run", "--output", "o.h5", "--snapshot-every", "0"], 2, "--snapshot-every must be positive"),
        (["run", "--beta", "1.5", "--agents", "1000"], 2, "--beta: '1.5' must lie in [0, 1]"),
        (["run", "--beta", "-0.1", "--agents", "1000"], 2, "--beta: '-0.1' must lie in [0, 1]"),
        (["run", "--gamma", "2", "--agents", "1000"], 2, "--gamma: '2' must lie in (0, 1]"),
        (["run", "--gamma", "-0.5", "--agents", "1000"], 2, "--gamma: '-0.5' must lie in (0, 1]"),
        (["run", "--sigma", "-3", "--agents", "1000"], 2, "--sigma: '-3' must lie in (0, 1]"),
        (["run", "--initial-share", "1.2", "--model", "voter"], 2, "--initial-share: '1.2' must lie in [0, 1]"),
        (["run", "--rewire", "-1", "--graph", "watts-strogatz"], 2, "--rewire: '-1' must lie in [0, 1]"),
        (["run", "--gamma", "0.2", "--infectious-steps", "3"], 2, "--gamma and --infectious-steps both set"),
        (["run", "--sigma", "0.2", "--latent-steps", "3"], 2, "--sigma and --latent-steps both set"),
        (["run", "--gpu-aware-mpi", "--staged-mpi"], 2, "--gpu-aware-mpi and --staged-mpi contradict each other"),
        (["run", "--csv", "a.csv", "--csv", "b.csv"], 2, "--csv is given twice"),
        (["run", "--steps", "3", "--steps=4"], 2, "--steps is given twice"),
        (["run", "--output", "a.h5", "-o", "b.h5"], 2, "--output is given twice, as a.h5 and b.h5"),
        (["run", "--steps="], 2, "--steps needs a value"),
        (["run", "--profile=yes"], 2, "--profile takes no value"),
        (["run", "--steps", "5", "stray", "--beta", "2"], 2, "unexpected argument 'stray': not an option, nor the value of one"),
        (["run", "--label", "-x", "--steps", "0"], 2, "--steps must be positive"),
        (["run", "--label=--strong", "--steps", "0"], 2, "--steps must be positive"),
        (["run", "-ofile.h5"], 2, "unknown option '-ofile.h5'"),
        (["run", "--frobnicate", "--beta", "2"], 2, "unknown option '--frobnicate'"),
        (["run", "--parts", "2,4"], 2, "--parts belongs to herd partition"),
        (["run", "--network-bandwidth", "10"], 2, "--network-bandwidth belongs to herd partition"),
        (["partition", "--graph", "erdos-renyi", "--parts", "2,4,2"], 2, "--parts: 2 is given twice"),
        (["partition", "--network-latency", "-5"], 2, "--network-latency: '-5' must lie in [0, "),
        (["run", "--graph", "watts-strogatz", "--mean-degree", "3"], 2, "even whole number 2k, not 3"),
        (["run", "--kokkos-threads=2"], 2, "unknown option '--kokkos-threads': herd sets Kokkos' threads with"),
        (["run", "--graph", "erdos-renyi", "--agents", "100", "--mean-degree", "500"], 2,
         "--mean-degree: 500 must lie in (0, agents - 1], here (0, 99]"),
        (["run", "--graph", "erdos-renyi", "--agents", "500", "--mean-degree", "1e19"], 2, "here (0, 499]"),
        (["run", "--mean-degree", "0"], 2, "--mean-degree: '0' must be positive"),
        # A generator's options with a graph that does not read them would be ignored.
        (["run", "--graph", "edges.txt", "--agents", "999"], 2,
         "--agents shapes a generated graph (--graph population, erdos-renyi, power-law, watts-strogatz); "
         "the file edges.txt gives its own agents and contacts"),
        (["run", "--graph", "contacts.tij", "--window", "20", "--mean-degree", "3"], 2,
         "the file contacts.tij gives its own agents and contacts"),
        # So would a generated graph's seed, which a file's contacts do not read.
        (["run", "--graph", "edges.txt", "--graph-seed", "7"], 2,
         "--graph-seed seeds a generated graph (--graph population, erdos-renyi, power-law, watts-strogatz) or "
         "--reorder random; the file edges.txt gives its own agents and contacts"),
        (["convert", "--graph", "pop.h5", "--graph-seed", "7", "-o", "x.h5"], 2, "--graph-seed seeds a generated graph"),
        (["run", "--graph", "/no/such/graph.txt", "--graph-seed", "7", "--reorder", "random"], 1,
         "/no/such/graph.txt: cannot open the file"),
        (["run", "--graph", "erdos-renyi", "--exponent", "3"], 2,
         "--exponent shapes a generated graph (--graph power-law); --graph erdos-renyi does not read it"),
        (["run", "--graph", "power-law", "--rewire", "0.5"], 2, "--graph power-law does not read it"),
        (["run", "--mean-degree", "8"], 2, "--graph population does not read it"),
        (["convert", "--graph", "pop.h5", "--agents", "10", "-o", "x.h5"], 2, "the file pop.h5 gives its own"),
        (["run", "--infectious-steps", "0"], 2, "--infectious-steps must be positive"),
        (["run", "--latent-steps", "0"], 2, "--latent-steps must be positive"),
        (["run", "--model", "covid", "--transmission-rate", "-1"], 2, "--transmission-rate: '-1' must not be negative"),
        (["run", "--threads", "600"], 2, "--threads: 600 exceeds the largest supported value 512"),
        (["partition", "--graph", "erdos-renyi", "--parts", "2", "--checkpoint", "c.h5"], 2,
         "--checkpoint does not apply to herd partition"),
        (["partition", "--graph", "erdos-renyi", "--parts", "2", "--beta", "0.3"], 2,
         "--beta does not apply to herd partition"),
        (["run", "--graph", "power-law", "--agents", "1000", "--exponent", "1.5"], 2,
         "--exponent: '1.5' must lie in (2, 10]"),
        (["run", "--graph", "power-law", "--agents", "1000", "--exponent", "1e300"], 2, "must lie in (2, 10]"),
        # Another model's parameters would be ignored.
        (["run", "--model", "covid", "--beta", "0.3"], 2,
         "--beta does not apply to --model covid (its parameters: --transmission-rate, --mortality, "
         "--initial-infected, --age-reading)"),
        (["run", "--model", "voter", "--initial-infected", "5"], 2, "--initial-infected does not apply to --model voter"),
        (["run", "--model", "sir", "--latent-steps", "3"], 2, "--latent-steps does not apply to --model sir"),
        (["run", "--model", "sir", "--age-reading", "agenttorch"], 2, "--age-reading does not apply to --model sir"),
        (["run", "--model", "degroot", "--confidence", "0.3"], 2,
         "--confidence does not apply to --model degroot, which has no parameters"),
        (["run", "--initial-infected", "5000", "--agents", "1000"], 1, "exceeds the agent count 1000"),
        (["run", "--graph", "/no/such/graph.txt"], 1,
         "/no/such/graph.txt: cannot open the file (No such file or directory)"),
        (["run", "--graph", "/"], 1, "/: is a directory, not a file"),
        # Without a graph, convert wrote the default million agents.
        (["convert", "-o", "never.h5"], 2, "convert needs a GRAPH: herd convert GRAPH -o FILE"),
        (["convert", "--graph-seed", "5", "-o", "never.h5"], 2, "convert needs a GRAPH"),
        (["resume", ""], 2, "resume needs a checkpoint file"),
        (["resume", "--steps", "30", "c.h5"], 2,
         "resume needs a checkpoint file, before any option: herd resume FILE [options] (found --steps first)"),
        # A positional GRAPH counts as --graph: another value is a second one, not a silent choice.
        (["convert", "e.txt", "--graph", "f.txt", "-o", "never.h5"], 2, "--graph is given twice, as e.txt and f.txt"),
        (["partition", "--graph", "erdos-renyi", "--parts", "2", "--attributes", "a.csv"], 2,
         "--attributes does not apply to herd partition"),
    ]

    def test_each_bad_input_gives_one_clear_line_and_no_output(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "out.json")
            for args, status, message in self.CASES:
                with self.subTest(args=args):
                    result = herd(*args, "--json", out, "--quiet")
                    self.assertEqual(result.returncode, status, result.stderr)
                    lines = result.stderr.strip().splitlines()
                    self.assertEqual(len(lines), 1, result.stderr)
                    self.assertTrue(lines[0].startswith("herd: "), lines[0])
                    self.assertIn(message, lines[0])
                    self.assertFalse(os.path.exists(out))

    def test_one_value_given_twice_in_two_spellings_is_the_same_value(self):
        for args in [["--agents", "1e3", "--agents", "1000", "--steps", "5"],
                     ["--agents", "1000", "--steps", "5", "--steps", "5.0"],
                     ["--agents", "1000", "--steps", "5", "--max-memory", "1G", "--max-memory", "1073741824"]]:
            with self.subTest(args=args):
                result = herd("run", "--model", "sir", *args, "--quiet")
                self.assertEqual(result.returncode, 0, result.stderr)
        # Two settings, and two files however alike their names.
        for args, said in [(["--agents", "1e3", "--agents", "1001"], "--agents is given twice, as 1e3 and 1001"),
                           (["--csv", "1e3", "--csv", "1000"], "--csv is given twice, as 1e3 and 1000")]:
            with self.subTest(args=args), tempfile.TemporaryDirectory() as d:
                result = herd("run", *args, "--quiet", cwd=d)
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertIn(said, result.stderr)
                self.assertEqual(os.listdir(d), [])

    def test_partition_refuses_more_parts_than_agents(self):
        result = herd("partition", "--graph", "erdos-renyi", "--agents", "100", "--mean-degree", "4", "--parts",
                      "2,101", "--quiet")
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)
        self.assertIn("--parts 101: cannot split 100 agents into 101 parts: a part needs at least one agent",
                      result.stderr)

    def test_partition_models_only_what_a_run_accepts(self):
        with tempfile.TemporaryDirectory() as d:
            ring = os.path.join(d, "ring.txt")
            with open(ring, "w") as f:
                f.write("0 1\n1 2\n2 3\n3 4\n4 5\n5 0\n0 3\n")
            # Without --parts, the default counts stop at the agents' (1024 would not split 6).
            result = herd("partition", "--graph", ring)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertEqual([line.split()[0] for line in result.stdout.splitlines() if line.strip()[:1].isdigit()],
                             ["2", "4"])
            # A run on 4 ranks refuses METIS' parts of this ring, one of them empty: so does the model.
            if "metis" in herd("version").stdout:
                result = herd("partition", "--graph", ring, "--parts", "2,4,6", "--partition", "metis", "--quiet")
                self.assertEqual(result.returncode, 1, result.stderr)
                self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)
                self.assertRegex(result.stderr, r"--parts [46]: metis left part [0-9]+ of [46] without agents")
                # The default counts stop before it, and say so.
                result = herd("partition", "--graph", ring, "--partition", "metis")
                self.assertEqual(result.returncode, 0, result.stderr)
                self.assertRegex(result.stdout, r"the default part counts stop at [46]: metis left part")
                # Where the first default count fails, no --parts is named that was not given.
                with open(os.path.join(d, "one.txt"), "w") as f:
                    f.write("0 1\n")
                result = herd("partition", "--graph", os.path.join(d, "one.txt"), "--partition", "metis")
                self.assertEqual(result.returncode, 1, result.stderr)
                self.assertRegex(result.stderr, r"^herd: the default part counts start at 2, and metis "
                                                r"left part [01] of 2 without agents")
        # Extreme bandwidths print each part count on its own line, however long its figures.
        result = herd("partition", "--graph", "erdos-renyi", "--agents", "1000", "--mean-degree", "8", "--parts", "2,4",
                      "--network-bandwidth", "1e-300")
        self.assertEqual(result.returncode, 0, result.stderr)
        rows = [line for line in result.stdout.splitlines() if line.split()[:1] in (["2"], ["4"])]
        self.assertEqual(len(rows), 2, result.stdout)
        # A subnormal bandwidth predicts times no double holds: refused, not written as inf; and a
        # memory bandwidth near the largest double no compute time, whose ratio was printed as 0.
        with tempfile.TemporaryDirectory() as tmp:
            for option, value in [("--network-bandwidth", "1e-320"), ("--memory-bandwidth", "1e-320"),
                                  ("--memory-bandwidth", "1e308")]:
                result = herd("partition", "--graph", "erdos-renyi", "--agents", "1000", "--mean-degree", "8",
                              "--parts", "2", option, value, "--csv", os.path.join(tmp, "inf.csv"))
                self.assertEqual(result.returncode, 1, result.stderr)
                self.assertIn("predict times beyond a 64-bit float", result.stderr)
                self.assertEqual(os.listdir(tmp), [])

    def test_options_another_command_or_graph_cannot_take(self):
        for args, message in [
                (["convert", "power-law", "--directed", "--transpose", "-o", "/tmp/never.h5"], "--directed reads"),
                (["partition", "--graph", "erdos-renyi", "--agents", "5000", "--partition", "ptscotch"],
                 "--partition ptscotch: herd partition models a graph one process holds")]:
            with self.subTest(args=args):
                result = herd(*args, "--quiet")
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)
                self.assertIn(message, result.stderr)
                self.assertFalse(os.path.exists("/tmp/never.h5"))

    def test_more_threads_than_kokkos_holds_are_refused(self):
        # Kokkos' OpenMP pool holds 512 threads; a 600-thread start overran it (a crash).
        result = herd("run", "--agents", "500", "--steps", "2", "--quiet", threads=600)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("OMP_NUM_THREADS=600 exceeds the 512 threads a process may start", result.stderr)

    def test_inputs_that_cannot_fit_are_refused_before_they_are_built(self):
        with tempfile.TemporaryDirectory() as d:
            sparse = os.path.join(d, "sparse.txt")
            with open(sparse, "w") as f:
                f.write("0 1\n1 2147483646\n")
            nul = os.path.join(d, "nul.txt")
            with open(nul, "wb") as f:
                f.write(b"0 1\n1 \x002\n")
            cases = [
                (["--graph", sparse], 1, "2147483647 agents and 4 entries need up to 64 GiB"),
                (["--graph", sparse], 1, "its ids are sparse: number them densely with herd convert --relabel"),
                (["--graph", "population", "--agents", "1e9"], 1, "1000000000 agents and 10000000000 entries"),
                (["--agents", "100000", "--max-memory", "1M"], 1, "more than the 0.000977 GiB this process may use"),
                (["--max-memory", "lots"], 2, "--max-memory: 'lots' is not a size in bytes"),
                (["--max-memory", "K"], 2, "--max-memory: 'K' is not a size in bytes"),
                # One row of observables per step, however small the graph.
                (["--graph", "erdos-renyi", "--agents", "10", "--mean-degree", "2", "--steps", "2000000000"], 1,
                 "--steps 2000000000: the history of observables needs up to 179 GiB, more than"),
                (["--graph", "/dev/zero"], 1, "/dev/zero:1: a NUL byte: not a text file"),
                (["--graph", nul], 1, "nul.txt:2: a NUL byte: not a text file"),
            ]
            for args, status, message in cases:
                with self.subTest(args=args):
                    steps = ["--steps", "2"] if "--steps" not in args else []
                    result = herd("run", *steps, "--quiet", *args)
                    self.assertEqual(result.returncode, status, result.stderr)
                    lines = result.stderr.strip().splitlines()
                    self.assertEqual(len(lines), 1, result.stderr)
                    self.assertIn(message, lines[0])
            # A generator's ids are no edge list's: herd convert --relabel, which reads edge lists, is
            # not offered (nor for a population file).
            result = herd("run", "--steps", "2", "--quiet", "--graph", "erdos-renyi", "--agents", "1e9",
                          "--mean-degree", "0.01", "--max-memory", "1G")
            self.assertEqual(result.returncode, 1, result.stderr)
            self.assertIn("1000000000 agents and 10000000 entries need", result.stderr)
            self.assertNotIn("relabel", result.stderr)
        # Within the limit the run goes ahead.
        self.assertEqual(herd("run", "--agents", "10000", "--steps", "2", "--quiet", "--max-memory", "1G").returncode, 0)

    def test_malformed_graph_file_names_the_line(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "bad.txt")
            with open(path, "w") as f:
                f.write("0 1\n1 2\n2 three\n")
            result = herd("run", "--graph", path, "--quiet")
            self.assertEqual(result.returncode, 1)
            self.assertEqual(result.stderr.strip(), f"herd: {path}:3: 'three' is not an integer agent id")

    def test_unwritable_output_fails_before_the_run(self):
        with tempfile.TemporaryDirectory() as d:
            cases = [
                (["--csv", "/no/such/dir/x.csv"], "--csv /no/such/dir/x.csv: cannot write the file"),
                (["--json", d], f"--json {d}: is a directory, not a file"),
                (["--record", "/no/such/dir/r.jsonl"], "--record /no/such/dir/r.jsonl: cannot write the file"),
                (["--profile-steps", "/no/such/dir/s.csv"], "--profile-steps /no/such/dir/s.csv: cannot write"),
                (["--csv", os.path.join(d, "x.csv"), "--json", "/no/such/dir/x.json"], "--json /no/such/dir/x.json"),
            ]
            for args, message in cases:
                with self.subTest(args=args):
                    # Not quiet: a run that started would print its progress.
                    result = herd("run", "--agents", "1000", "--steps", "2", *args)
                    self.assertEqual(result.returncode, 1)
                    lines = result.stderr.strip().splitlines()
                    self.assertEqual(len(lines), 1, result.stderr)
                    self.assertTrue(lines[0].startswith("herd: "), lines[0])
                    self.assertIn(message, lines[0])
                    self.assertNotIn("step 1/2", result.stderr)
                    self.assertEqual(result.stdout, "")
                    self.assertEqual(os.listdir(d), [])


class Stepping(unittest.TestCase):
    """Active-set stepping visits fewer agents and gives the same results to the last bit."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def run_with(self, stepping, *args):
        csv = os.path.join(self.dir.name, stepping + ".csv")
        js = os.path.join(self.dir.name, stepping + ".json")
        result = herd("run", *args, "--stepping", stepping, "--csv", csv, "--json", js, "--quiet")
        self.assertEqual(result.returncode, 0, result.stderr)
        return read(csv), json.loads(read(js))

    def test_same_results_whichever_agents_a_step_visits(self):
        for args in [["--model", "seir", "--graph", "population", "--agents", "30000", "--steps", "80"],
                     ["--model", "sir", "--graph", "power-law", "--agents", "30000", "--steps", "60", "--beta", "0.05"],
                     ["--model", "covid", "--graph", "erdos-renyi", "--agents", "30000", "--mean-degree", "4",
                      "--steps", "40", "--transmission-rate", "10"]]:
            with self.subTest(args=args):
                pull, pulled = self.run_with("pull", *args)
                self.assertEqual(pulled["stepping"]["active_steps"], 0)
                self.assertEqual(pulled["stepping"]["steps"], int(args[args.index("--steps") + 1]))
                # Under 2^23 agents automatic does not gather ahead; asked to, it reads the same. Pull
                # steps of SIR and SEIR count spreading neighbours from bits, and those ask for no
                # states ahead; SEIR on the (weighted) population adds its weights by code.
                self.assertFalse(pulled["stepping"]["gather_ahead"])
                cpu = pulled["backend"] in ("OpenMP", "Serial")
                bits = "sir" in args or "seir" in args
                self.assertEqual(pulled["stepping"]["spreader_bits"], bits)
                self.assertEqual(pulled["stepping"]["weight_codes"], "seir" in args)
                ahead, asked = self.run_with("pull", *args, "--gather-ahead", "on")
                self.assertEqual(ahead, pull)
                self.assertEqual(asked["stepping"]["gather_ahead"], cpu and not bits)
                for stepping in ["active", "auto", "verify"]:
                    rows, summary = self.run_with(stepping, *args)
                    self.assertEqual(rows, pull, stepping)
                    self.assertLess(summary["stepping"]["mean_active_share"], 1.0, stepping)
                    self.assertGreater(summary["stepping"]["active_steps"], 0, stepping)
                    # Under 2^22 agents pushes are atomic; through bins (CPUs) they add the same.
                    self.assertFalse(summary["stepping"]["binned_push"])
                    rows, binned = self.run_with(stepping, *args, "--binned-push", "on")
                    self.assertEqual(rows, pull, stepping + " binned")
                    self.assertEqual(binned["stepping"]["binned_push"], binned["backend"] in ("OpenMP", "Serial"))


    def test_threshold_moves_steps_between_modes_not_results(self):
        args = ["--model", "seir", "--graph", "population", "--agents", "30000", "--steps", "80"]
        rows, default = self.run_with("auto", *args)
        # Herd's default: 0.5 on CPUs; GPUs pull every step of a graph this small.
        on_cpu = default["backend"] in ("OpenMP", "Serial")
        self.assertEqual(default["stepping"]["threshold"], 0.5 if on_cpu else 0.0)
        low_rows, low = self.run_with("auto", *args, "--active-threshold", "0.001")
        high_rows, high = self.run_with("auto", *args, "--active-threshold", "100")
        self.assertEqual(low_rows, rows)
        self.assertEqual(high_rows, rows)
        self.assertEqual(low["stepping"]["threshold"], 0.001)
        # Pushes never exceed 100 times the agents here: every step lists; 0.1 % lists fewer.
        self.assertEqual(high["stepping"]["active_steps"], 80)
        self.assertLess(low["stepping"]["active_steps"], default["stepping"]["active_steps"])
        self.assertLessEqual(default["stepping"]["active_steps"], 80)

    def test_opinion_models_ask_ahead_to_the_same_results(self):
        # Asked to, the opinion models' pull steps ask for their neighbours' opinions ahead (on
        # CPUs), the report says so, and the counts do not change.
        for model in ["degroot", "bounded-confidence", "voter", "majority"]:
            with self.subTest(model=model):
                runs = {}
                for when in ["off", "on"]:
                    csv = os.path.join(self.dir.name, model + "-" + when + ".csv")
                    js = os.path.join(self.dir.name, model + "-" + when + ".json")
                    result = herd("run", "--model", model, "--graph", "power-law", "--agents", "20000", "--steps", "10",
                                  "--gather-ahead", when, "--csv", csv, "--json", js)
                    self.assertEqual(result.returncode, 0, result.stderr)
                    cpu = json.loads(read(js))["backend"] in ("OpenMP", "Serial")
                    runs[when] = (read(csv), "gather ahead" in result.stdout)
                self.assertEqual(runs["on"][0], runs["off"][0])
                self.assertFalse(runs["off"][1])
                self.assertEqual(runs["on"][1], cpu)


class Profile(unittest.TestCase):
    """--profile splits the step loop's time into phases and counts its allocations and copies."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def run_json(self, *args):
        js = os.path.join(self.dir.name, "run.json")
        result = herd("run", "--graph", "erdos-renyi", "--agents", "50000", "--steps", "40", "--json", js,
                      *(args if "--model" in args else ("--model", "sir", *args)))
        self.assertEqual(result.returncode, 0, result.stderr)
        return result.stdout, json.loads(read(js))

    def test_pull_loop_allocates_and_copies_nothing(self):
        table, summary = self.run_json("--profile", "--stepping", "pull")
        profile = summary["profile"]
        phases = profile["phase_seconds"]
        self.assertEqual(set(phases), {"step", "reduce", "active_set", "halo_pack", "halo_wait", "halo_unpack",
                                       "output"})
        self.assertGreater(phases["step"], 0)
        self.assertEqual(phases["halo_pack"] + phases["halo_wait"] + phases["halo_unpack"], 0)
        # The phases cover the loop, which the run's own clock also times (with the history's copy).
        self.assertLessEqual(sum(phases.values()), summary["step_loop_seconds"])
        self.assertEqual(profile["allocations"], 0)
        self.assertEqual(profile["deep_copies"], 0)
        self.assertIn("profile of the step loop", table)
        self.assertIn("0 allocations", table)

    def test_no_model_allocates_in_its_loop_on_one_thread(self):
        # One thread's reductions are sized when first made: the first made its space inside the loop.
        for model in ["sir", "seir", "covid", "voter", "majority", "degroot", "bounded-confidence"]:
            with self.subTest(model=model):
                _, summary = self.run_json("--model", model, "--profile", "--threads", "1")
                self.assertEqual(summary["profile"]["allocations"], 0)
                self.assertEqual(summary["profile"]["deep_copies"], 0)

    def test_pulled_steps_report_no_threshold(self):
        _, summary = self.run_json("--stepping", "pull")
        self.assertEqual(summary["stepping"]["mode"], "pull")
        self.assertEqual(summary["stepping"]["threshold"], 0)
        _, summary = self.run_json("--stepping", "auto")
        self.assertGreater(summary["stepping"]["threshold"], 0)

    def test_active_steps_allocate_and_copy_nothing(self):
        _, summary = self.run_json("--profile", "--stepping", "auto")
        profile = summary["profile"]
        self.assertGreater(summary["stepping"]["active_steps"], 0)
        self.assertEqual(profile["deep_copies"], 0)
        self.assertEqual(profile["allocations"], 0)
        self.assertGreater(profile["phase_seconds"]["active_set"], 0)

    def test_every_step_on_request(self):
        steps = os.path.join(self.dir.name, "steps.csv")
        _, summary = self.run_json("--profile-steps", steps, "--stepping", "auto")
        self.assertIn("profile", summary)
        lines = read(steps).splitlines()
        header = lines[0].split(",")
        phases = ["step", "reduce", "active_set", "halo_pack", "halo_wait", "halo_unpack", "output"]
        self.assertEqual(header, ["step", "listed_ranks", "stepped_agents"] + [p + "_s" for p in phases] + ["total_s"])
        rows = [dict(zip(header, map(float, line.split(",")))) for line in lines[1:]]
        self.assertEqual([int(r["step"]) for r in rows], list(range(1, 41)))
        self.assertEqual(sum(int(r["listed_ranks"]) for r in rows), summary["stepping"]["active_steps"])
        for r in rows:
            self.assertIn(r["listed_ranks"], (0, 1))
            if r["listed_ranks"] == 0:
                self.assertEqual(r["stepped_agents"], 50000)
            else:
                self.assertLess(r["stepped_agents"], 50000)
            self.assertAlmostEqual(r["total_s"], sum(r[p + "_s"] for p in phases), delta=1e-5)
        share = sum(r["stepped_agents"] for r in rows) / 50000 / 40
        self.assertAlmostEqual(share, summary["stepping"]["mean_active_share"], places=6)
        # The steps' phases are part of the loop's, which also holds the first and last reductions.
        for p in phases:
            self.assertLessEqual(sum(r[p + "_s"] for r in rows), summary["profile"]["phase_seconds"][p] + 1e-5)
        self.assertEqual(sorted(os.listdir(self.dir.name)), ["run.json", "steps.csv"])

    def test_off_by_default_and_same_results(self):
        _, plain = self.run_json()
        self.assertNotIn("profile", plain)
        _, profiled = self.run_json("--profile")
        self.assertEqual(plain["final"], profiled["final"])


if __name__ == "__main__":
    HERD = sys.argv.pop(1)
    unittest.main(verbosity=1)
