"""Tests of the herd command under mpiexec: the same outputs as one process, per-rank figures in the
reports, and bad input ending the whole job with one message, a non-zero status and no output file.

Usage: test_cli_mpi.py HERD MPIEXEC [MPIEXEC FLAGS...]"""

import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

HERD = None
MPIEXEC = None

ENV = dict(os.environ, OMP_NUM_THREADS="1", OMP_PROC_BIND="false", OMPI_ALLOW_RUN_AS_ROOT="1",
           OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", KOKKOS_DISABLE_WARNINGS="1")


def read(path):
    with open(path) as f:
        return f.read()


def mpi_herd(ranks, *args):
    # A hang of any rank fails the test through the timeout rather than blocking CTest.
    return subprocess.run([*MPIEXEC, "-n", str(ranks), HERD, *args], capture_output=True, text=True, env=ENV,
                          timeout=240)


_VERSION = None


def has_partitioner(name):
    """Whether this herd offers the partition method `name` (METIS, PT-Scotch and ParMETIS are
    optional), as its version line lists them."""
    global _VERSION
    if _VERSION is None:
        _VERSION = mpi_herd(1, "version").stdout
    return name in _VERSION


def has_hdf5():
    return "need HDF5" not in mpi_herd(1, "run", "--agents", "100", "--output", "/nonexistent/x.h5").stderr


def metis_or_blocks():
    """METIS where this build has it, else contiguous blocks: the runs compare either way."""
    return "metis" if has_partitioner("metis") else "contiguous"


def herd_lines(stderr):
    return [line for line in stderr.splitlines() if line.startswith("herd:")]


class SameResults(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def path(self, name):
        return os.path.join(self.dir.name, name)

    def run_ok(self, ranks, *args):
        result = mpi_herd(ranks, *args)
        self.assertEqual(result.returncode, 0, result.stderr)
        return result

    def test_time_series_identical_on_1_to_4_ranks(self):
        metis = metis_or_blocks()
        for model, graph, partition in [("seir", "population", "contiguous"), ("sir", "erdos-renyi", metis),
                                        ("voter", "power-law", "contiguous"),
                                        ("bounded-confidence", "erdos-renyi", metis),
                                        ("covid", "population", "contiguous")]:
            args = ["run", "--model", model, "--graph", graph, "--agents", "12000", "--steps", "30", "--quiet",
                    "--partition", partition]
            self.run_ok(1, *args, "--csv", self.path("one.csv"))
            reference = read(self.path("one.csv"))
            self.assertGreater(len(reference.splitlines()), 30)
            for ranks in [2, 3, 4]:
                with self.subTest(model=model, graph=graph, partition=partition, ranks=ranks):
                    self.run_ok(ranks, *args, "--csv", self.path("many.csv"))
                    self.assertEqual(read(self.path("many.csv")), reference)

    def test_a_directed_graph_partitioned_by_metis_gives_the_same_series(self):
        if not has_partitioner("metis"):
            self.skipTest("this build has no METIS")
        # One-way edges: METIS sees the graph symmetrised, as it requires; the run keeps them one-way.
        edges = self.path("directed.txt")
        rng = random.Random(3)
        with open(edges, "w") as f:
            for i in range(6000):
                for _ in range(3):
                    f.write(f"{i} {rng.randrange(6000)}\n")
        args = ["run", "--model", "sir", "--graph", edges, "--directed", "--steps", "30", "--quiet",
                "--partition", "metis", "--initial-infected", "30"]
        self.run_ok(1, *args, "--csv", self.path("one.csv"))
        reference = read(self.path("one.csv"))
        self.assertNotEqual(reference.splitlines()[1], reference.splitlines()[-1])
        for ranks in [2, 3, 4]:
            with self.subTest(ranks=ranks):
                self.run_ok(ranks, *args, "--csv", self.path("many.csv"))
                self.assertEqual(read(self.path("many.csv")), reference)

    def test_an_edge_list_read_in_parts_gives_the_same_series(self):
        # Each rank parses the lines of its own byte range and builds its rows; a checkpoint made on
        # 3 ranks resumes on 2 with the same graph.
        edges = self.path("weighted.txt")
        rng = random.Random(5)
        with open(edges, "w") as f:
            f.write("# weighted contacts\n")
            for i in range(20000):
                f.write(f"{rng.randrange(6000)}\t{rng.randrange(6000)}\t{rng.random():.4f}\n")
        for options in [[], ["--directed"], ["--directed", "--transpose"]]:
            args = ["run", "--model", "seir", "--graph", edges, *options, "--steps", "30", "--quiet"]
            self.run_ok(1, *args, "--csv", self.path("one.csv"))
            reference = read(self.path("one.csv"))
            self.assertNotEqual(reference.splitlines()[1], reference.splitlines()[-1])
            for ranks in [2, 3, 4]:
                with self.subTest(options=options, ranks=ranks):
                    self.run_ok(ranks, *args, "--csv", self.path("many.csv"))
                    self.assertEqual(read(self.path("many.csv")), reference)
        args = ["run", "--model", "seir", "--graph", edges, "--quiet"]
        self.run_ok(1, *args, "--steps", "30", "--csv", self.path("one.csv"))
        self.run_ok(3, *args, "--steps", "12", "--checkpoint", self.path("c.h5"))
        self.run_ok(2, "resume", self.path("c.h5"), "--steps", "30", "--quiet", "--csv", self.path("resumed.csv"))
        self.assertEqual(read(self.path("resumed.csv")).splitlines()[-18:], read(self.path("one.csv")).splitlines()[-18:])

    def test_parallel_partitioners_give_the_same_series(self):
        # PT-Scotch and ParMETIS partition the ranks' blocks (built by shares, read in parts, or cut
        # from the whole graph, which an attribute table still needs) and the rows move to their
        # parts; the run must not change by a bit.
        partitions = []
        for partition, missing in (("ptscotch", "no PT-Scotch"), ("parmetis", "no ParMETIS")):
            if has_partitioner(partition):
                partitions.append(partition)
                continue
            result = mpi_herd(2, "run", "--graph", "erdos-renyi", "--agents", "2000", "--partition", partition)
            self.assertEqual(result.returncode, 1, result.stderr)
            self.assertEqual(len(herd_lines(result.stderr)), 1, result.stderr)
            self.assertIn(missing, result.stderr)
        if not partitions:
            return
        edges = self.path("directed.txt")
        rng = random.Random(7)
        with open(edges, "w") as f:
            for i in range(18000):
                f.write(f"{rng.randrange(6000)} {rng.randrange(6000)}\n")
        ages = self.path("ages.csv")
        with open(ages, "w") as f:
            f.write("age_group\n" + "".join(rng.choice(["U19", "20t29", "50t64", "65A"]) + "\n" for _ in range(12000)))
        # A population file, read by row blocks, whose rows are found both ways: the partitioner
        # takes them as they are.
        population = self.path("population.h5")
        self.run_ok(1, "convert", "population", "--agents", "12000", "-o", population)
        cases = [["--model", "seir", "--graph", "population", "--agents", "12000"],
                 ["--model", "seir", "--graph", population],
                 ["--model", "sir", "--graph", edges, "--directed", "--initial-infected", "30"],
                 ["--model", "sir", "--graph", "power-law", "--agents", "12000", "--stepping", "active"],
                 ["--model", "covid", "--agents", "12000"],
                 ["--model", "covid", "--agents", "12000", "--attributes", ages]]
        for case in cases:
            args = ["run", *case, "--steps", "30", "--quiet"]
            self.run_ok(1, *args, "--csv", self.path("one.csv"))
            reference = read(self.path("one.csv"))
            self.assertNotEqual(reference.splitlines()[1], reference.splitlines()[-1])
            # One rank count for ParMETIS: its path differs from PT-Scotch's only in the call.
            for partition, ranks in [(p, r) for p in partitions for r in ([2, 3, 4] if p == "ptscotch" else [3])]:
                with self.subTest(case=case, partition=partition, ranks=ranks):
                    self.run_ok(ranks, *args, "--partition", partition, "--csv", self.path("many.csv"),
                                "--json", self.path("s.json"))
                    self.assertEqual(read(self.path("many.csv")), reference)
                    report = json.loads(read(self.path("s.json")))
                    self.assertEqual(report["partition"], partition)
                    self.assertEqual(sum(r["owned"] for r in report["ranks"]), report["agents"])
        # A torus whose ids follow no locality: blocks cut about 3/4 of its entries, parts a few per cent.
        lattice = self.path("lattice.txt")
        side = 80
        shuffled = list(range(side * side))
        rng.shuffle(shuffled)
        with open(lattice, "w") as f:
            for y in range(side):
                for x in range(side):
                    f.write(f"{shuffled[y * side + x]} {shuffled[y * side + (x + 1) % side]}\n")
                    f.write(f"{shuffled[y * side + x]} {shuffled[(y + 1) % side * side + x]}\n")
        cut = {}
        for partition in ["contiguous", *partitions]:
            self.run_ok(4, "run", "--graph", lattice, "--steps", "2", "--quiet", "--partition", partition,
                        "--json", self.path("s.json"))
            cut[partition] = sum(r["cut_edges"] for r in json.loads(read(self.path("s.json")))["ranks"])
        for partition in partitions:
            self.assertLess(4 * cut[partition], cut["contiguous"], cut)
        # A checkpoint of a partitioner's parts on 3 ranks resumes on 2 under blocks.
        args = ["run", *cases[1], "--quiet"]
        self.run_ok(1, *args, "--steps", "30", "--csv", self.path("one.csv"))
        for partition in partitions:
            self.run_ok(3, *args, "--steps", "12", "--partition", partition, "--checkpoint", self.path("c.h5"))
            self.run_ok(2, "resume", self.path("c.h5"), "--steps", "30", "--quiet", "--csv", self.path("resumed.csv"))
            self.assertEqual(read(self.path("resumed.csv")).splitlines()[-18:],
                             read(self.path("one.csv")).splitlines()[-18:])

    def test_every_stepping_gives_the_same_series(self):
        args = ["run", "--model", "sir", "--graph", "power-law", "--agents", "12000", "--steps", "40", "--quiet",
                "--partition", metis_or_blocks()]
        self.run_ok(1, *args, "--stepping", "pull", "--csv", self.path("one.csv"))
        reference = read(self.path("one.csv"))
        for ranks in [2, 4]:
            for stepping in ["active", "auto", "pull"]:
                with self.subTest(ranks=ranks, stepping=stepping):
                    # Pull steps gather ahead here, and active steps push through bins, which must not
                    # change what they read.
                    binned = [] if stepping == "pull" else ["--binned-push", "on"]
                    self.run_ok(ranks, *args, "--stepping", stepping, "--gather-ahead", "on", *binned,
                                "--csv", self.path("many.csv"), "--json", self.path("s.json"))
                    self.assertEqual(read(self.path("many.csv")), reference)
                    report = json.loads(read(self.path("s.json")))
                    summary = report["stepping"]
                    # Steps count once per rank; under active every one of them steps its list.
                    self.assertEqual(summary["steps"], 40 * ranks)
                    # SIR on an unweighted graph counts spreader bits and asks for no states ahead.
                    self.assertTrue(summary["spreader_bits"])
                    self.assertFalse(summary["gather_ahead"])
                    self.assertEqual(summary["binned_push"],
                                     stepping != "pull" and report["backend"] in ("OpenMP", "Serial"))
                    if stepping == "pull":
                        self.assertEqual(summary["active_steps"], 0)
                        self.assertEqual(summary["mean_active_share"], 1.0)
                        continue
                    self.assertGreater(summary["active_steps"], 0)
                    if stepping == "active":
                        self.assertEqual(summary["active_steps"], 40 * ranks)
                    self.assertLess(summary["mean_active_share"], 1.0)

    def test_metis_reports_every_setup_phase(self):
        # Under METIS the population is built by shares, partitioned on rank 0 (which gathers its
        # links) and its rows moved: every phase takes time.
        if not has_partitioner("metis"):
            self.skipTest("this build has no METIS")
        self.run_ok(2, "run", "--model", "sir", "--graph", "population", "--agents", "9000", "--steps", "5",
                    "--partition", "metis", "--json", self.path("p.json"))
        summary = json.loads(read(self.path("p.json")))
        for r in summary["ranks"]:
            for name, seconds in r["setup"].items():
                self.assertGreater(seconds, 0, name)
            self.assertGreater(r["peak_memory_bytes"], 4 * summary["edges"])

    def test_reports_describe_every_rank(self):
        result = self.run_ok(3, "run", "--model", "sir", "--graph", "erdos-renyi", "--agents", "9000", "--steps",
                             "10", "--json", self.path("s.json"), "--record", self.path("r.jsonl"))
        summary = json.loads(read(self.path("s.json")))
        ranks = summary["ranks"]
        self.assertEqual(len(ranks), 3)
        self.assertEqual(sum(r["owned"] for r in ranks), 9000)
        self.assertEqual(sum(r["edges"] for r in ranks), summary["edges"])
        for r in ranks:
            self.assertGreater(r["ghosts"], 0)
            self.assertLessEqual(r["cut_edges"], r["edges"])
            self.assertEqual(r["neighbour_ranks"], 2)
            self.assertGreater(r["messages_sent"], 0)
            # Setup by phase, within the setup the summary reports (which adds the simulation's own
            # allocations). Each rank builds its share of a generated graph: no partition or cut
            # of a whole graph takes time.
            phases = r["setup"]
            self.assertEqual(set(phases), {"graph_seconds", "partition_seconds", "local_graph_seconds",
                                           "halo_plan_seconds", "simulation_seconds"})
            self.assertGreater(phases["simulation_seconds"], 0)
            self.assertGreater(phases["graph_seconds"], 0)
            self.assertGreater(phases["halo_plan_seconds"], 0)
            self.assertEqual(phases["partition_seconds"], 0)
            self.assertEqual(phases["local_graph_seconds"], 0)
            self.assertLessEqual(sum(phases.values()), summary["setup_seconds"] * 1.01 + 1e-3)
            self.assertGreater(r["peak_memory_bytes"], 0)
            self.assertLess(r["peak_memory_bytes"], 4e9)
        cut = sum(r["cut_edges"] for r in ranks) / summary["edges"]
        self.assertAlmostEqual(summary["cut_fraction"], cut)
        # Random graph, contiguous blocks: an edge stays inside a block with probability 1/3.
        self.assertAlmostEqual(cut, 2 / 3, delta=0.03)
        self.assertEqual(sum(summary["final"].values()), 9000)
        # --profile: the halo's share of the loop, and its messages as the ranks count them.
        self.run_ok(3, "run", "--model", "sir", "--graph", "erdos-renyi", "--agents", "9000", "--steps", "10",
                    "--quiet", "--profile-steps", self.path("steps.csv"), "--json", self.path("p.json"))
        profiled = json.loads(read(self.path("p.json")))
        # Every step: the slowest rank's phases, the ranks that listed and the agents of all ranks.
        lines = read(self.path("steps.csv")).splitlines()
        header = lines[0].split(",")
        steps = [dict(zip(header, map(float, line.split(",")))) for line in lines[1:]]
        self.assertEqual([int(r["step"]) for r in steps], list(range(1, 11)))
        self.assertEqual(sum(r["listed_ranks"] for r in steps), profiled["stepping"]["active_steps"])
        for r in steps:
            self.assertIn(r["listed_ranks"], (0, 1, 2, 3))
            self.assertLessEqual(r["stepped_agents"], 9000)
            self.assertGreater(r["halo_pack_s"], 0)
            for phase in ["step", "halo_pack", "halo_wait", "halo_unpack"]:
                self.assertLessEqual(r[phase + "_s"], r["total_s"] + 1e-6)
        profile = profiled["profile"]
        self.assertEqual(profile["messages_sent"], sum(r["messages_sent"] for r in profiled["ranks"]))
        self.assertEqual(profile["bytes_sent"], sum(r["bytes_sent"] for r in profiled["ranks"]))
        self.assertEqual(profile["allocations"], 0)
        for phase in ["step", "halo_pack", "halo_unpack"]:
            self.assertGreater(profile["phase_seconds"][phase], 0, phase)
            self.assertGreaterEqual(profile["slowest_rank_phase_seconds"][phase], profile["phase_seconds"][phase])
        self.assertEqual(profiled["final"], summary["final"])
        # Dense halo messages: the same run, more bytes (sparse ones carry only the values that changed).
        self.run_ok(3, "run", "--model", "sir", "--graph", "erdos-renyi", "--agents", "9000", "--steps", "10",
                    "--quiet", "--dense-halo", "--json", self.path("d.json"))
        dense = json.loads(read(self.path("d.json")))
        self.assertEqual(dense["final"], summary["final"])
        self.assertGreater(sum(r["bytes_sent"] for r in dense["ranks"]), sum(r["bytes_sent"] for r in ranks))
        # The table printed on rank 0 only, with one row per rank.
        self.assertEqual(result.stdout.count("graph erdos-renyi"), 1)
        self.assertIn("3 ranks, contiguous partition", result.stdout)
        # One record line per run, appended.
        self.run_ok(2, "run", "--model", "sir", "--graph", "erdos-renyi", "--agents", "9000", "--steps", "10",
                    "--quiet", "--no-overlap", "--record", self.path("r.jsonl"))
        records = [json.loads(line) for line in read(self.path("r.jsonl")).splitlines()]
        self.assertEqual([r["ranks"] for r in records], [3, 2])
        self.assertEqual([r["overlap"] for r in records], [True, False])
        for r in records:
            parts = (r["compute_seconds_per_step"] + r["pack_seconds_per_step"] + r["wait_seconds_per_step"]
                     + r["unpack_seconds_per_step"])
            self.assertAlmostEqual(parts, r["seconds_per_step"], delta=1e-3 * r["seconds_per_step"] + 1e-9)
            self.assertEqual(r["final"], records[0]["final"])
            self.assertEqual(sorted(r["final"]), ["I", "R", "S"])  # by state, as in the JSON summary
            # Built by shares: the graph and the halo plan take time, the partition and the cut none.
            setup = [r[k] for k in ("graph_seconds", "partition_seconds", "local_graph_seconds", "halo_plan_seconds")]
            self.assertTrue(setup[0] > 0 and setup[1] == 0 and setup[2] == 0 and setup[3] > 0, setup)
            self.assertLessEqual(max(setup), r["setup_seconds"] * 1.01 + 1e-3)
            self.assertGreater(r["peak_memory_bytes"], 4 * r["edges"])

    def test_stale_ghosts_are_a_different_run(self):
        args = ["run", "--model", "sir", "--graph", "erdos-renyi", "--agents", "12000", "--steps", "30", "--quiet"]
        self.run_ok(1, *args, "--csv", self.path("one.csv"))
        self.run_ok(2, *args, "--exchange-every", "1", "--csv", self.path("k1.csv"))
        self.run_ok(2, *args, "--exchange-every", "4", "--csv", self.path("k4.csv"))
        self.assertEqual(read(self.path("k1.csv")), read(self.path("one.csv")))
        self.assertNotEqual(read(self.path("k4.csv")), read(self.path("one.csv")))


class BadInput(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def fails_once(self, ranks, needle, *args, status=1):
        """Exit `status` with one line naming `needle`, and no output; 2, a command-line mistake,
        also points to the help."""
        out = os.path.join(self.dir.name, "out.csv")
        result = mpi_herd(ranks, "run", *args, "--csv", out, "--quiet")
        self.assertEqual(result.returncode, status, result.stderr)
        lines = herd_lines(result.stderr)
        self.assertEqual(len(lines), 1, result.stderr)
        self.assertIn(needle, lines[0])
        if status == 2:
            self.assertTrue(lines[0].endswith("(see herd --help)"), lines[0])
        self.assertEqual(os.listdir(self.dir.name), [])

    def test_missing_file(self):
        self.fails_once(3, "/no/such/contacts.txt", "--graph", "/no/such/contacts.txt")

    def test_invalid_graph_file(self):
        bad = os.path.join(tempfile.gettempdir(), "herd_bad_graph.txt")
        with open(bad, "w") as f:
            f.write("0 1\n1 2\n2 x\n")
        self.addCleanup(os.remove, bad)
        self.fails_once(2, "herd_bad_graph.txt:3", "--graph", bad)

    def test_a_pipe_is_refused_before_a_rank_waits_on_it(self):
        # Ranks read a file by parts: a FIFO no one writes is refused before any rank opens it.
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        fifo = os.path.join(folder.name, "contacts.fifo")
        os.mkfifo(fifo)
        contacts = os.path.join(folder.name, "contacts.txt")
        with open(contacts, "w") as f:
            f.writelines(f"{i} {(i + 1) % 100}\n" for i in range(100))
        for option in ("--graph", "--attributes"):
            with self.subTest(option=option):
                given = [option, fifo] if option == "--graph" else ["--model", "covid", "--graph", contacts, option, fifo]
                self.fails_once(2, fifo + ": not a regular file (a pipe or a device): ranks read a file by parts",
                                *given)

    def test_a_bad_line_read_by_one_rank(self):
        # Only the last rank reads the bad line; every rank reports it, and it is named once.
        bad = os.path.join(tempfile.gettempdir(), "herd_bad_late_graph.txt")
        with open(bad, "w") as f:
            f.writelines(f"{i} {i + 1}\n" for i in range(20000))
            f.write("7 x\n")
        self.addCleanup(os.remove, bad)
        self.fails_once(4, "herd_bad_late_graph.txt:20001: 'x' is not an integer agent id", "--graph", bad)

    def test_more_ranks_than_agents(self):
        self.fails_once(4, "3 agents into 4 parts", "--graph", "erdos-renyi", "--agents", "3", "--mean-degree", "1",
                        "--initial-infected", "1")
        # A file's agents are named by the file (and the table whose ids made them).
        inputs = tempfile.TemporaryDirectory()
        self.addCleanup(inputs.cleanup)
        edges = os.path.join(inputs.name, "three.txt")
        with open(edges, "w") as f:
            f.write("0 1\n1 2\n")
        self.fails_once(4, "--graph " + edges + ": cannot split its 3 agents into 4 parts", "--graph", edges,
                        "--initial-infected", "1")
        pair = os.path.join(inputs.name, "two.txt")
        with open(pair, "w") as f:
            f.write("0 1\n")
        table = os.path.join(inputs.name, "three.csv")
        with open(table, "w") as f:
            f.write("id,age_group\n0,U19\n1,65A\n2,U19\n")
        self.fails_once(4, "--graph " + pair + " with the ids of " + table + ": cannot split its 3 agents", "--model",
                        "covid", "--graph", pair, "--attributes", table, "--initial-infected", "1")
        if has_hdf5():
            population = os.path.join(inputs.name, "three.h5")
            subprocess.run([HERD, "convert", edges, "-o", population, "--quiet"], check=True)
            self.fails_once(4, population + ": cannot split its 3 agents into 4 parts", "--graph", population,
                            "--initial-infected", "1")

    def test_invalid_parameter(self):
        # Checked by the model on every rank before the run (the command line checks only ranges).
        self.fails_once(2, "--initial-infected 5000 exceeds the agent count 1000", "--graph", "erdos-renyi",
                        "--agents", "1000", "--initial-infected", "5000")
        # covid seeds its exposed agents from the same option: refused before the run, once, alike.
        self.fails_once(2, "--initial-infected 2000 exceeds the agent count 1000", "--model", "covid", "--graph",
                        "erdos-renyi", "--agents", "1000", "--initial-infected", "2000")
        self.fails_once(2, "--initial-infected 1005 exceeds the agent count 1000", "--model", "covid", "--graph",
                        "erdos-renyi", "--agents", "1000", "--sweep", "initial-infected=10:2000:3", "--partition",
                        "contiguous")
        # An edge list's or a population file's agents without stages are seeded alike: the ranks
        # reading their own rows find it together.
        edges = os.path.join(tempfile.gettempdir(), "herd_covid_edges.txt")
        self.addCleanup(os.remove, edges)
        with open(edges, "w") as f:
            f.writelines(f"{k} {(7 * k + 1) % 1000}\n" for k in range(1000))
        self.fails_once(2, "--initial-infected 2000 exceeds the agent count 1000", "--model", "covid", "--graph",
                        edges, "--initial-infected", "2000")
        if has_hdf5():
            population = os.path.join(tempfile.gettempdir(), "herd_covid_population.h5")
            self.addCleanup(os.remove, population)
            converted = mpi_herd(1, "convert", "population", "--agents", "1000", "--output", population)
            self.assertEqual(converted.returncode, 0, converted.stderr)
            self.fails_once(2, "--initial-infected 2000 exceeds the agent count 1000", "--model", "covid", "--graph",
                            population, "--initial-infected", "2000")

    def test_a_weight_half_precision_cannot_hold(self):
        # Above 65504 a 16-bit weight is infinite, and a closed contact (factor 0) would still transmit.
        heavy = os.path.join(tempfile.gettempdir(), "herd_heavy.txt")
        self.addCleanup(os.remove, heavy)
        with open(heavy, "w") as f:
            f.writelines(f"{2 * k} {2 * k + 1} {100000 if k == 700 else 1}\n" for k in range(1000))
        self.fails_once(2, "herd_heavy.txt: holds contact weights above 65504, the largest 16-bit float", "--graph", heavy,
                        "--precision", "half", "--initial-infected", "10")

    def test_unwritable_output(self):
        # Checked on rank 0 before the run; every rank stops with it.
        self.fails_once(3, "--json /no/such/dir/x.json: cannot write the file", "--agents", "1000", "--json",
                        "/no/such/dir/x.json")

    def test_a_failing_last_output_leaves_none(self):
        # Found by rank 0 after the run; every rank ends with its one line, no file is put in place.
        self.fails_once(2, "/dev/full: writing failed", "--agents", "1000", "--json", "/dev/full",
                        *(["--output", os.path.join(self.dir.name, "o.h5")] if has_hdf5() else []))

    def test_reorder_is_single_process(self):
        run = ["--graph", "erdos-renyi", "--agents", "1000", "--reorder", "degree"]
        self.fails_once(2, "--reorder applies to one process", *run, status=2)
        self.fails_once(2, "--reorder applies to one process", *run, "--replicates", "2", "--partition", "contiguous",
                        status=2)
        # An ensemble's members each hold the whole graph on a rank, reordered there.
        result = mpi_herd(2, "run", *run, "--replicates", "2", "--quiet")
        self.assertEqual(result.returncode, 0, result.stderr)

    def test_verify_is_single_process(self):
        self.fails_once(2, "--stepping verify runs on one process", "--graph", "erdos-renyi", "--agents", "1000",
                        "--stepping", "verify", status=2)

    def test_ranks_given_different_arguments_all_stop(self):
        # mpiexec's ':' starts each rank with its own arguments: one with a typo, one with another
        # seed. Each rank would otherwise wait in its own collective, or compute its own run.
        run = ["run", "--graph", "erdos-renyi", "--agents", "2000", "--steps", "3", "--quiet"]
        for other in (["--bogus"], ["--seed", "7"]):
            with self.subTest(other=other):
                command = [*MPIEXEC, "-n", "1", HERD, *run, ":", "-n", "1", HERD, *run, *other]
                result = subprocess.run(command, capture_output=True, text=True, env=ENV, timeout=60)
                self.assertNotEqual(result.returncode, 0, result.stderr)
                lines = herd_lines(result.stderr)
                self.assertEqual(len(lines), 1, result.stderr)
                self.assertIn("the ranks were given different arguments", lines[0])

    def test_ranks_that_see_different_files_or_settings_all_stop(self):
        # Each rank checks what it alone sees; one that stopped alone left the others waiting in
        # their next collective (a hang), or crashed MPI where the graph's kind differed.
        with tempfile.TemporaryDirectory() as d:
            folders = [os.path.join(d, "r0"), os.path.join(d, "r1")]
            for folder in folders:
                os.mkdir(folder)
                with open(os.path.join(folder, "e.txt"), "w") as f:
                    f.write("".join(f"{i} {(i * 7 + 1) % 500}\n" for i in range(500)))
            os.symlink("e.txt", os.path.join(folders[1], "out.csv"))  # rank 1's output is its input
            run = ["run", "--steps", "3", "--initial-infected", "2", "--quiet"]
            cases = [([], [], ["--graph", "e.txt", "--csv", "out.csv"], 2, "--csv out.csv: is the input --graph e.txt"),
                     (["-x", "OMP_NUM_THREADS=1"], ["-x", "OMP_NUM_THREADS=600"], ["--graph", "e.txt"], 2,
                      "OMP_NUM_THREADS=600 exceeds the 512 threads")]
            if os.environ.get("HERD_HAS_HDF5") == "1":
                self.assertEqual(mpi_herd(1, "convert", os.path.join(folders[0], "e.txt"), "-o",
                                          os.path.join(folders[0], "pop.h5"), "--quiet").returncode, 0)
                with open(os.path.join(folders[1], "pop.h5"), "w") as f:
                    f.write("0 1\n")
                cases.append(([], [], ["--graph", "pop.h5"], 1,
                              "pop.h5: rank 1 sees no HDF5 file there, where another rank sees a population file"))
            for first, second, extra, status, said in cases:
                with self.subTest(said=said):
                    args = [*run, *extra]
                    command = [*MPIEXEC, "-n", "1", "-wdir", folders[0], *first, HERD, *args, ":", "-n", "1", "-wdir",
                               folders[1], *second, HERD, *args]
                    result = subprocess.run(command, capture_output=True, text=True, env=ENV, timeout=60)
                    self.assertEqual(result.returncode, status, result.stderr)
                    lines = herd_lines(result.stderr)
                    self.assertEqual(len(lines), 1, result.stderr)
                    self.assertIn(said, lines[0])

    def test_ranks_that_see_other_files_under_one_name_all_stop(self):
        # An edge list of the same size but other contents gave other counts without a word, and an
        # HDF5 output named relative to other folders left the ranks waiting in MPI-IO.
        with tempfile.TemporaryDirectory() as d:
            d = os.path.realpath(d)  # as herd makes a path absolute
            folders = [os.path.join(d, "r0"), os.path.join(d, "r1")]
            big_lines = "".join(f"{i:07d} {i + 1:07d}\n" for i in range(17 * 65536 - 1))
            for k, folder in enumerate(folders):
                os.mkdir(folder)
                with open(os.path.join(folder, "e.txt"), "w") as f:  # one size, other contacts
                    f.write("".join(f"{i:03d} {(i * (7 + 4 * k) + 1) % 500:03d}\n" for i in range(500)))
                # 17 MiB, compared by blocks: they differ in their last line alone.
                with open(os.path.join(folder, "big.txt"), "w") as f:
                    f.write(big_lines + f"0000000 000000{k + 2}\n")
            with open(os.path.join(folders[0], "same.txt"), "w") as f:
                f.write("".join(f"{i} {(i * 7 + 1) % 500}\n" for i in range(500)))
            shutil.copy(os.path.join(folders[0], "same.txt"), folders[1])
            run = ["run", "--steps", "3", "--initial-infected", "2", "--quiet"]
            cases = [(run + ["--graph", "e.txt"], "--graph e.txt: rank 1 sees 4000 bytes of hash ",
                      ", where rank 0 sees 4000 bytes of hash "),
                     (run + ["--graph", "big.txt"], "--graph big.txt: rank 1 sees 17825792 bytes of hash ",
                      ", where rank 0 sees 17825792 bytes of hash ")]
            if os.environ.get("HERD_HAS_HDF5") == "1":
                for k, folder in enumerate(folders):  # another run's checkpoint on each rank
                    self.assertEqual(mpi_herd(1, "run", "--graph", os.path.join(folder, "same.txt"), "--steps", "2",
                                              "--seed", str(k + 1), "--quiet", "--checkpoint",
                                              os.path.join(folder, "ck.h5")).returncode, 0)
                    if k == 1:
                        shutil.copy(os.path.join(folder, "ck.h5"), os.path.join(folder, "only-here.h5"))
                cases += [(run + ["--graph", "same.txt", "--output", "out.h5"],
                           f"--output out.h5: rank 1 sees a file named {folders[1]}/out.h5",
                           f", where rank 0 sees a file named {folders[0]}/out.h5"),
                          (["resume", "ck.h5", "--steps", "4"], f"ck.h5: rank 1 sees the file {folders[1]}/ck.h5 of ",
                           f", where rank 0 sees the file {folders[0]}/ck.h5 of "),
                          (["resume", "only-here.h5"], f"only-here.h5: rank 1 sees the file {folders[1]}/only-here.h5",
                           ", where rank 0 sees no file")]
            for args, said, rank_0_said in cases:
                with self.subTest(args=args):
                    command = [*MPIEXEC, "-n", "1", "-wdir", folders[0], HERD, *args, ":", "-n", "1", "-wdir",
                               folders[1], HERD, *args]
                    result = subprocess.run(command, capture_output=True, text=True, env=ENV, timeout=60)
                    self.assertEqual(result.returncode, 1, result.stderr)
                    lines = herd_lines(result.stderr)
                    self.assertEqual(len(lines), 1, result.stderr)
                    self.assertIn(said, lines[0])
                    self.assertIn(rank_0_said, lines[0])
                    self.assertIn("the ranks must see the same files at the same paths", lines[0])
                    self.assertEqual(sorted(os.listdir(folders[0])), ["big.txt", "ck.h5", "e.txt", "same.txt"]
                                     if os.environ.get("HERD_HAS_HDF5") == "1" else ["big.txt", "e.txt", "same.txt"])
            # Copies of one file in each rank's folder hold the same bytes: the run goes on.
            command = [*MPIEXEC, "-n", "1", "-wdir", folders[0], HERD, *run, "--graph", "same.txt", ":", "-n", "1",
                       "-wdir", folders[1], HERD, *run, "--graph", "same.txt"]
            result = subprocess.run(command, capture_output=True, text=True, env=ENV, timeout=60)
            self.assertEqual(result.returncode, 0, result.stderr)


def processes_naming(text):
    """The processes whose command line holds `text`."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if text.encode() in f.read():
                    found.append(int(pid))
        except OSError:
            pass
    return found


class KilledJob(unittest.TestCase):
    def test_ranks_end_with_a_killed_mpiexec_and_leave_no_output(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "killed.csv")
            # Long enough that the kill lands during the steps (setup takes a second or two): the
            # voter model steps every agent every step, however the run goes.
            job = subprocess.Popen([*MPIEXEC, "-n", "2", HERD, "run", "--model", "voter", "--graph", "erdos-renyi",
                                    "--agents", "400000", "--steps", "100000", "--quiet", "--csv", out], env=ENV,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(4)
            self.assertIsNone(job.poll(), "the job ended before it was killed")
            job.kill()
            job.wait()
            # The ranks go with it at once, not seconds later (when they may have written outputs).
            time.sleep(1)
            self.assertFalse(os.path.exists(out))
            self.assertEqual(processes_naming(out), [], "ranks outlived mpiexec")


class PartitionModel(unittest.TestCase):
    def test_table_and_csv(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "model.csv")
            result = mpi_herd(1, "partition", "--graph", "erdos-renyi", "--agents", "20000", "--parts", "2,4,8",
                              "--csv", out)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertIn("halo", result.stdout)
            rows = read(out).splitlines()
            header = rows[0].split(",")
            self.assertEqual(len(rows), 4)
            table = [dict(zip(header, row.split(","))) for row in rows[1:]]
            for parts, row in zip([2, 4, 8], table):
                self.assertEqual(int(row["parts"]), parts)
                # Contiguous blocks of a random graph cut 1 - 1/P of the edges.
                self.assertAlmostEqual(float(row["cut_fraction"]), 1 - 1 / parts, delta=0.02)
                self.assertEqual(float(row["messages_max"]), parts - 1)
                self.assertAlmostEqual(float(row["owned_max"]), 20000 / parts, delta=1)
            # Setup and memory per rank, built by shares: less per rank with more ranks, and at least
            # the rank's entries (4 bytes each) and the runtime.
            for fewer, more in zip(table, table[1:]):
                self.assertLess(float(more["build_seconds_max"]), float(fewer["build_seconds_max"]))
                self.assertLess(float(more["memory_bytes_max"]), float(fewer["memory_bytes_max"]))
            for parts, row in zip([2, 4, 8], table):
                self.assertGreater(float(row["memory_bytes_max"]), 64e6 + 4 * 20000 * 16 / parts)

    def test_messages_of_a_directed_hub_are_those_of_a_run(self):
        # Agent 0 and 1999 others, one way: read by all of them, or reading all of them. The rank
        # that owns the hub sends to every other rank, or receives from every one, each step; the
        # model counted only the parts a rank receives from.
        with tempfile.TemporaryDirectory() as d:
            star = os.path.join(d, "star.txt")
            with open(star, "w") as f:
                f.write("".join(f"0 {v}\n" for v in range(1, 2000)))
            for way in [[], ["--transpose"]]:
                with self.subTest(way=way):
                    model = mpi_herd(1, "partition", "--graph", star, "--directed", *way, "--parts", "4", "--csv", "-")
                    self.assertEqual(model.returncode, 0, model.stderr)
                    header, row = model.stdout.splitlines()
                    predicted = float(dict(zip(header.split(","), row.split(",")))["messages_max"])
                    summary = os.path.join(d, "run.json")
                    run = mpi_herd(4, "run", "--graph", star, "--directed", *way, "--model", "sir", "--steps", "3",
                                   "--quiet", "--json", summary)
                    self.assertEqual(run.returncode, 0, run.stderr)
                    with open(summary) as f:
                        ranks = json.load(f)["ranks"]
                    posted = max(max(r["neighbour_ranks"], r["messages_sent"] / 3) for r in ranks)
                    self.assertEqual(posted, 3)
                    self.assertEqual(predicted, posted)


if __name__ == "__main__":
    HERD = sys.argv[1]
    MPIEXEC = sys.argv[2:]
    unittest.main(argv=sys.argv[:1], verbosity=2)
