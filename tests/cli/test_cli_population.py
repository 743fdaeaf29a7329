"""Tests of population files: herd convert writes edge lists, attribute tables and generated graphs in
the documented schema (checked with h5py against graphs computed here); herd run --graph FILE.h5 gives
the same results as the graph it was made from, on any rank count; damaged files and bad inputs are
refused with one message naming them, exit status 1, no hang and no file left behind.

Usage: test_cli_population.py HERD MPIEXEC [MPIEXEC FLAGS...]   (needs h5py and numpy)"""

import os
import shutil
import sys
import unittest

import h5py
import numpy as np

import herd_files_test
from herd_files_test import flip_byte, herd, read


def text(value):
    """An HDF5 string attribute as str (h5py gives fixed-length strings as bytes)."""
    return value.decode() if isinstance(value, bytes) else str(value)


def copy_population(source, dst, convert=lambda name, data: data, **dataset_options):
    """Copies a population file into the open h5py file dst, as another tool would write it."""
    with h5py.File(source, "r") as src:
        for key, value in src.attrs.items():
            dst.attrs[key] = value
        for group in ["graph", "agents"]:
            dst.create_group(group)
            for key, value in src[group].attrs.items():
                dst[group].attrs[key] = value
            for name, dataset in src[group].items():
                dst[group].create_dataset(name, data=convert(name, dataset[()]), **dataset_options)


def expected_csr(agents, edges, directed=False):
    """The CSR herd stores for an edge list: symmetrised unless directed, self-loops dropped, a
    repeated edge keeping its largest weight, rows sorted."""
    rows = [dict() for _ in range(agents)]
    for u, v, w in edges:
        if u == v:
            continue
        for a, b in [(u, v)] if directed else [(u, v), (v, u)]:
            rows[a][b] = max(rows[a].get(b, w), w)
    offsets = np.cumsum([0] + [len(r) for r in rows])
    neighbours = [b for r in rows for b in sorted(r)]
    weights = [r[b] for r in rows for b in sorted(r)]
    return offsets, np.array(neighbours), np.array(weights, dtype=np.float32)


class Case(herd_files_test.Case):
    def write(self, name, text):
        with open(self.path(name), "w") as f:
            f.write(text)
        return self.path(name)

    def fails(self, ranks, *args, status=1):
        result = herd(ranks, *args)
        self.assertEqual(result.returncode, status, result.stdout + result.stderr)
        self.assertNotIn("Traceback", result.stderr)
        return result.stderr


class Convert(Case):
    def test_edge_list_with_sparse_ids_and_attributes(self):
        # SNAP-style ids far beyond 2^31; agent 77 has attributes but no contact.
        edges = [(10, 20, 0.5), (20, 30, 1.0), (10**12, 10, 2.0), (20, 10, 0.25), (30, 30, 9.0)]
        edge_file = self.write("e.txt", "# from to weight\n" + "".join(f"{u}\t{v}\t{w}\n" for u, v, w in edges))
        attributes = self.write("a.csv", 'id,age,job,score\n10,3,"nurse, ward 3",1.5\n20,4,b,2\n'
                                         '1000000000000,6,b,4\n77,1,"say ""hi""",0\n30,5,a,-3e2\n')
        out = self.path("p.h5")
        self.ok(0, "convert", edge_file, "--relabel", "--attributes", attributes, "-o", out)
        originals = [10, 20, 30, 77, 10**12]
        index = {o: i for i, o in enumerate(originals)}
        offsets, neighbours, weights = expected_csr(5, [(index[u], index[v], w) for u, v, w in edges])
        with h5py.File(out, "r") as f:
            self.assertEqual(text(f.attrs["herd_format"]), "herd-population")
            self.assertEqual(f.attrs["format_version"], 1)
            self.assertEqual(f["graph"].attrs["agents"], 5)
            self.assertEqual(f["graph"].attrs["entries"], len(neighbours))
            self.assertEqual(f["graph"].attrs["directed"], 0)
            self.assertEqual(f["graph/row_offsets"].dtype, np.uint64)
            self.assertEqual(f["graph/neighbours"].dtype, np.int32)
            np.testing.assert_array_equal(f["graph/row_offsets"][()], offsets)
            np.testing.assert_array_equal(f["graph/neighbours"][()], neighbours)
            np.testing.assert_array_equal(f["graph/weights"][()], weights)
            np.testing.assert_array_equal(f["agents/original_id"][()], originals)
            np.testing.assert_array_equal(f["agents/age"][()], [3, 4, 5, 1, 6])
            self.assertEqual(f["agents/age"].dtype, np.int64)
            np.testing.assert_array_equal(f["agents/score"][()], [1.5, 2, -300, 0, 4])
            self.assertEqual(f["agents/score"].dtype, np.float64)
            codes = f["agents/job"][()]
            labels = text(f["agents/job"].attrs["categories"]).split("\n")
            self.assertEqual([labels[c] for c in codes], ["nurse, ward 3", "b", "a", 'say "hi"', "b"])
        self.assertEqual(sorted(os.listdir(self.dir.name)), ["a.csv", "e.txt", "p.h5"])

    def test_directed_edge_list_keeps_rows_as_given(self):
        edges = [(0, 1, 1.0), (2, 1, 1.0), (3, 0, 1.0), (1, 0, 1.0)]
        edge_file = self.write("d.txt", "".join(f"{u} {v}\n" for u, v, _ in edges))
        out = self.path("d.h5")
        self.ok(0, "convert", edge_file, "--directed", "-o", out)
        offsets, neighbours, _ = expected_csr(4, edges, directed=True)
        with h5py.File(out, "r") as f:
            self.assertEqual(f["graph"].attrs["directed"], 1)
            self.assertNotIn("weights", f["graph"])
            np.testing.assert_array_equal(f["graph/row_offsets"][()], offsets)
            np.testing.assert_array_equal(f["graph/neighbours"][()], neighbours)

    def test_a_graph_without_contacts_is_written_and_runs(self):
        # Self-loops alone: agents and no entries. HDF5 refused to write the empty datasets.
        loops = self.write("loops.txt", "0 0 1.5\n1 1 2\n2 2 1\n")
        for ranks in [0, 2]:
            out = self.path(f"loops{ranks}.h5")
            self.ok(ranks, "convert", loops, "-o", out)
            with h5py.File(out, "r") as f:
                self.assertEqual(f["graph"].attrs["agents"], 3)
                np.testing.assert_array_equal(f["graph/row_offsets"][()], [0, 0, 0, 0])
                self.assertEqual(len(f["graph/neighbours"]), 0)
        args = ["--model", "sir", "--steps", "5", "--initial-infected", "1", "--quiet"]
        self.ok(0, "run", *args, "--graph", loops, "--csv", self.path("text.csv"))
        self.ok(0, "run", *args, "--graph", self.path("loops0.h5"), "--csv", self.path("file.csv"))
        self.assertEqual(read(self.path("file.csv")), read(self.path("text.csv")))

    def test_parallel_write_matches_one_process(self):
        for ranks in [0, 3]:
            self.ok(ranks, "convert", "population", "--agents", "30000", "--seed", "5", "-o", self.path(f"p{ranks}.h5"))
        with h5py.File(self.path("p0.h5"), "r") as one, h5py.File(self.path("p3.h5"), "r") as three:
            for name in ["graph/row_offsets", "graph/neighbours", "graph/weights"]:
                np.testing.assert_array_equal(one[name][()], three[name][()], err_msg=name)
            self.assertGreater(len(one["graph/neighbours"]), 30000 * 5)


class Run(Case):
    def test_a_saved_generator_runs_to_the_same_bits_on_any_rank_count(self):
        args = ["--model", "seir", "--steps", "30", "--seed", "9", "--quiet"]
        graph = ["--graph", "power-law", "--agents", "20000", "--seed", "9"]
        self.ok(0, "convert", *graph, "-o", self.path("g.h5"))
        self.ok(0, "run", *args, *graph, "--csv", self.path("direct.csv"))
        direct = read(self.path("direct.csv"))
        self.assertGreater(int(direct.strip().split("\n")[-1].split(",")[-1]), 100, "the epidemic should spread")
        for ranks, extra in [(0, []), (0, ["--precision", "half"]), (2, []),
                             (3, ["--partition", herd_files_test.metis_or_blocks()])]:
            with self.subTest(ranks=ranks, extra=extra):
                csv = self.path(f"file{ranks}.csv")
                self.ok(ranks, "run", *args, "--graph", self.path("g.h5"), *extra, "--csv", csv)
                if "half" not in extra:
                    self.assertEqual(read(csv), direct)

    def test_a_converted_weighted_edge_list_runs_like_the_edge_list(self):
        rng = np.random.default_rng(3)
        u, v = rng.integers(0, 3000, 30000), rng.integers(0, 3000, 30000)
        w = rng.choice([0.25, 0.5, 1.0], 30000)
        edge_file = self.write("w.txt", "".join(f"{a} {b} {c}\n" for a, b, c in zip(u, v, w)))
        self.ok(0, "convert", edge_file, "-o", self.path("w.h5"))
        args = ["run", "--model", "sir", "--beta", "0.2", "--steps", "25", "--quiet"]
        self.ok(0, *args, "--graph", edge_file, "--csv", self.path("a.csv"))
        self.ok(2, *args, "--graph", self.path("w.h5"), "--csv", self.path("b.csv"))
        self.assertEqual(read(self.path("a.csv")), read(self.path("b.csv")))

    def test_chunked_compressed_files_from_other_tools_read_the_same(self):
        self.ok(0, "convert", "population", "--agents", "5000", "-o", self.path("p.h5"))
        # int64 offsets and float64 weights: other types than herd writes.
        types = {"row_offsets": np.int64, "weights": np.float64}
        with h5py.File(self.path("z.h5"), "w") as dst:
            copy_population(self.path("p.h5"), dst, lambda name, data: data.astype(types.get(name, data.dtype)),
                            chunks=(1000,), compression="gzip")
        args = ["run", "--steps", "15", "--quiet"]
        self.ok(0, *args, "--graph", self.path("p.h5"), "--csv", self.path("a.csv"))
        self.ok(2, *args, "--graph", self.path("z.h5"), "--csv", self.path("b.csv"))
        self.assertEqual(read(self.path("a.csv")), read(self.path("b.csv")))

    def test_a_dataset_never_written_reads_as_its_fill_value_on_any_rank_count(self):
        # Agents 1500 to 2999 have no contacts, so the second of two ranks reads no entries; another
        # tool created the weights with a fill value and wrote none of them.
        rng = np.random.default_rng(4)
        u, v = rng.integers(0, 1500, 6000), rng.integers(0, 1500, 6000)
        edges = "".join(f"{a} {b}\n" for a, b in zip(u, v)) + "2999 2999\n"
        self.ok(0, "convert", self.write("e.txt", edges), "-o", self.path("p.h5"))
        for name, write in [("written.h5", True), ("filled.h5", False)]:
            with h5py.File(self.path(name), "w") as dst:
                copy_population(self.path("p.h5"), dst)
                entries = len(dst["graph/neighbours"])
                if write:
                    dst["graph"].create_dataset("weights", data=np.full(entries, 0.5, np.float32))
                else:
                    dst["graph"].create_dataset("weights", shape=(entries,), dtype=np.float32, chunks=(4096,),
                                                fillvalue=0.5)
        with h5py.File(self.path("p.h5"), "r") as f:
            self.assertEqual(f["graph"].attrs["agents"], 3000)
        args = ["run", "--model", "sir", "--beta", "0.3", "--steps", "20", "--quiet"]
        self.ok(0, *args, "--graph", self.path("written.h5"), "--csv", self.path("a.csv"))
        for ranks in [0, 2, 3]:
            with self.subTest(ranks=ranks):
                self.ok(ranks, *args, "--graph", self.path("filled.h5"), "--csv", self.path("b.csv"))
                self.assertEqual(read(self.path("b.csv")), read(self.path("a.csv")))

    def test_a_checkpointed_run_on_a_population_file_resumes(self):
        self.ok(0, "convert", "erdos-renyi", "--agents", "10000", "-o", self.path("g.h5"))
        args = ["run", "--graph", self.path("g.h5"), "--model", "sir", "--quiet"]
        self.ok(0, *args, "--steps", "20", "--csv", self.path("full.csv"))
        self.ok(2, *args, "--steps", "8", "--checkpoint", self.path("c.h5"))
        self.ok(0, "resume", self.path("c.h5"), "--steps", "20", "--csv", self.path("resumed.csv"))
        self.assertEqual(read(self.path("full.csv")), read(self.path("resumed.csv")))


class Damaged(Case):
    """Every damaged population file: exit 1, one line naming the file and the problem."""

    def setUp(self):
        super().setUp()
        edges = self.write("e.txt", "0 1 0.5\n1 2 1\n2 3 0.5\n3 0 2\n0 2 1\n")
        self.good = self.path("good.h5")
        self.ok(0, "convert", edges, "-o", self.good)

    def damaged(self, change):
        path = self.path("bad.h5")
        with h5py.File(path, "w") as dst:
            copy_population(self.good, dst)
            change(dst)
        return path

    def replace(self, name, data):
        def change(f):
            del f[name]
            f[name] = data
        return change

    def test_each_damage_is_named(self):
        cases = {
            "neighbour out of range": (self.replace("graph/neighbours", np.array([1, 2, 3, 0, 2, 0, 1, 3, 0, 9], np.int32)),
                                       "/graph: agent 3 has neighbour 9, outside [0, 4)"),
            "unsorted row": (self.replace("graph/neighbours", np.array([2, 1, 3, 0, 2, 0, 1, 3, 0, 2], np.int32)),
                             "/graph: the neighbours of agent 0 are not in strictly increasing order (2 then 1)"),
            "negative offset": (self.replace("graph/row_offsets", np.array([0, -3, 5, 8, 10], np.int64)),
                                "/graph/row_offsets: entry 1 is negative (-3)"),
            "decreasing offsets": (self.replace("graph/row_offsets", np.array([0, 3, 2, 8, 10], np.uint64)),
                                   "/graph: row offsets decrease after agent 1"),
            "offsets past the end": (self.replace("graph/row_offsets", np.array([0, 3, 5, 8, 12], np.uint64)),
                                     "the last row offset is 12 but there are 10 neighbour entries"),
            "one agent too few": (self.replace("graph/row_offsets", np.array([0], np.uint64)),
                                  "/graph/row_offsets holds 1 entries"),
            "negative weight": (self.replace("graph/weights", np.array([1, 0.5, -1, 1, 1, 1, 1, 1, 1, 1], np.float32)),
                                "weights must be finite and non-negative"),
            "NaN weight": (self.replace("graph/weights", np.array([np.nan] * 10, np.float64)),
                           "weights must be finite and non-negative"),
            "short weights": (self.replace("graph/weights", np.ones(9, np.float32)),
                              "/graph/weights holds 9 values for 10 neighbour entries"),
            "float neighbours": (self.replace("graph/neighbours", np.ones(10, np.float32)),
                                 "/graph/neighbours holds float32 values, not integer ones"),
            "2-D neighbours": (self.replace("graph/neighbours", np.ones((5, 2), np.int32)),
                               "/graph/neighbours is not one-dimensional"),
            "missing neighbours": (lambda f: f.__delitem__("graph/neighbours"), "/graph/neighbours is missing"),
            "missing graph": (lambda f: f.__delitem__("graph"), "the /graph group is missing"),
            "future version": (lambda f: f.attrs.__setitem__("format_version", 7), "format version 7 is newer"),
            "other kind": (lambda f: f.attrs.__setitem__("herd_format", "herd-checkpoint"),
                           "a herd-checkpoint file, not a herd-population"),
            "no kind": (lambda f: f.attrs.__delitem__("herd_format"), "not a Herd file"),
            # A 64-bit id is reported as it is, not as the 32-bit value it would be clamped to.
            "wide neighbour id": (self.replace("graph/neighbours", np.array([1, 2, 3, 0, 2, 0, 1, 3, 0, 2**40], np.int64)),
                                  "/graph/neighbours: entry 9 is agent 1099511627776, outside the 4 agents"),
            "no neighbours": (lambda f: (f.__delitem__("graph/weights"), self.replace("graph/neighbours",
                                         np.zeros(0, np.int32))(f), f["graph"].attrs.__setitem__("entries", 0)),
                              "the last row offset is 10 but there are 0 neighbour entries"),
            # The /graph attributes must say what the datasets hold.
            "negative agents": (lambda f: f["graph"].attrs.__setitem__("agents", -1),
                                "/graph's attribute agents = -1 contradicts /graph/row_offsets (5 entries: 4 agents)"),
            "huge agents": (lambda f: f["graph"].attrs.__setitem__("agents", 2**40), "agents = 1099511627776 contradicts"),
            "negative entries": (lambda f: f["graph"].attrs.__setitem__("entries", -5),
                                 "/graph's attribute entries = -5 contradicts /graph/neighbours (10 entries)"),
            "directed 7": (lambda f: f["graph"].attrs.__setitem__("directed", 7),
                           "/graph's attribute directed must be 0 or 1, not 7"),
        }
        for what, (change, message) in cases.items():
            with self.subTest(what):
                path = self.damaged(change)
                # Under mpiexec each rank reads and checks its block of rows, and names the same fault.
                for ranks in [0, 2]:
                    error = self.fails(ranks, "run", "--graph", path, "--steps", "2", "--quiet")
                    self.assertIn(path, error)
                    self.assertIn(message, error)
                    # One line from herd, whatever mpiexec adds about the exit status.
                    lines = [line for line in error.splitlines() if line.startswith("herd:")]
                    self.assertEqual(len(lines), 1, error)

    def test_layer_names_must_name_each_layer_once(self):
        # A scenario names layers: a name twice would close one layer and leave its twin open, and
        # a layer without a name could not be named at all.
        edges = self.write("layered.txt", "0 1 1 home\n1 2 1 school\n2 3 1 work\n3 0 1 home\n")
        layered = self.path("layered.h5")
        self.ok(0, "convert", edges, "-o", layered)
        for names, message in [("home\nhome\nwork", "the names attribute of /graph/layers names layer 'home' twice"),
                               ("home", "but its names attribute names only layers 0 to 0"),
                               # Named as an edge list names them: a scenario's key could be empty.
                               ("home\n\nwork", "layer 1's name '' is not a layer name (a letter, then"),
                               ("home\nschool\n3rd", "layer 2's name '3rd' is not a layer name")]:
            with self.subTest(names=names):
                path = self.path("renamed.h5")
                shutil.copy(layered, path)
                with h5py.File(path, "r+") as f:
                    f["graph/layers"].attrs["names"] = names
                for ranks in [0, 2]:
                    error = self.fails(ranks, "run", "--graph", path, "--steps", "2", "--quiet")
                    lines = [line for line in error.splitlines() if line.startswith("herd:")]
                    self.assertEqual(len(lines), 1, error)
                    self.assertIn(path, lines[0])
                    self.assertIn(message, lines[0])

    def test_a_flipped_bit_in_a_file_herd_wrote_is_found(self):
        # Agent 1's second neighbour, 2, becomes 3: still a valid graph, so only the checksum knows.
        flip_byte(self.good, "graph/neighbours", 4)
        for ranks in [0, 2]:
            error = self.fails(ranks, "run", "--graph", self.good, "--steps", "2", "--quiet")
            self.assertIn(self.good + ": /graph/neighbours: the values differ from the dataset's stored checksum", error)
            self.assertEqual(len([line for line in error.splitlines() if line.startswith("herd:")]), 1, error)

    def claiming(self, name, entries):
        """A few kilobytes that claim `entries` neighbour entries: compressed chunks never written."""
        path = self.path(name)
        with h5py.File(path, "w") as dst:
            copy_population(self.good, dst)
            del dst["graph/neighbours"], dst["graph/weights"]
            dst.create_dataset("graph/neighbours", shape=(entries,), dtype=np.int32, chunks=(1 << 20,),
                               compression="gzip")
            dst["graph"].attrs["entries"] = entries
        self.assertLess(os.path.getsize(path), 100_000)
        return path

    def test_a_graph_too_big_for_memory_is_refused_before_it_is_read(self):
        path = self.claiming("huge.h5", 3_000_000_000)
        error = self.fails(0, "run", "--graph", path, "--steps", "2", "--quiet", "--max-memory", "4G")
        self.assertIn(path + ": 4 agents and 3000000000 entries need up to 55.9 GiB, more than the 4 GiB", error)
        # Under mpiexec each rank reads its block of rows: the estimate is a rank's.
        if herd_files_test.MPIEXEC:
            error = self.fails(2, "run", "--graph", path, "--steps", "2", "--quiet", "--max-memory", "4G")
            self.assertIn("--graph " + path + " on 2 ranks: 2 agents and 1500000000 entries need up to", error)
            self.assertIn("more than the 4 GiB", error)
        # Within the budget, the claim still meets the offsets before anything its size is read.
        error = self.fails(0, "run", "--graph", self.claiming("smaller.h5", 300_000_000), "--steps", "2", "--quiet",
                           "--max-memory", "8G")
        self.assertIn("/graph: the last row offset is 10 but there are 300000000 neighbour entries", error)

    def test_truncated_and_junk_files(self):
        data = open(self.good, "rb").read()
        truncated = self.path("truncated.h5")
        with open(truncated, "wb") as f:
            f.write(data[: len(data) // 2])
        junk = self.path("junk.h5")
        with open(junk, "wb") as f:
            f.write(data[:8] + bytes(range(256)) * 8)
        for path in [truncated, junk]:
            with self.subTest(path):
                for ranks in [0, 2]:
                    error = self.fails(ranks, "run", "--graph", path, "--steps", "2", "--quiet")
                    self.assertIn(path, error)


class BadInput(Case):
    def test_bad_inputs_to_convert(self):
        edges = self.write("e.txt", "0 1\n1 2\n")
        cases = [
            (["/nonexistent/e.txt"], "/nonexistent/e.txt: cannot open the file"),
            ([self.write("bad.txt", "0 1\n1 x\n")], "bad.txt:2: 'x' is not an integer agent id"),
            ([edges, "--attributes", self.write("short.csv", "age\n1\n2\n")],
             "short.csv: 2 rows for the graph's 3 agents"),
            ([edges, "--attributes", self.write("gap.csv", "id,age\n0,1\n2,3\n")], "gap.csv: no row for agent 1"),
            ([edges, "--attributes", self.write("dup.csv", "id,age\n0,1\n0,3\n")], "dup.csv:3: agent id 0 appears twice"),
            # Relabelled, an agent is named by the id the files give it.
            ([self.write("sparse.txt", "10 20\n20 30\n"), "--relabel", "--attributes",
              self.write("sparse.csv", "id,age\n10,1\n25,2\n30,3\n")], "sparse.csv: no row for agent 20 of"),
            ([edges, "--attributes", self.write("odd.csv", "id,age\n0,1\n1\n")], "odd.csv:3: expected 2 fields"),
            ([edges, "--attributes", self.write("slash.csv", "a/b\n1\n2\n3\n")], "'a/b' cannot name an agent attribute"),
            ([self.write("big.txt", "0 9000000000\n")], "exceeds the largest supported id"),
            # Renumbered, its ids lost their base of 1 and its agents without edges.
            ([self.write("six.lg", "6,3,u,x\n1 2\n2 3\n3 4\n"), "--relabel"],
             "six.lg: an .lg header numbers the agents 1 to 6 already"),
        ]
        for args, message in cases:
            with self.subTest(args=args):
                out = self.path("out.h5")
                for ranks in [0, 2] if args[0] in (edges, self.path("sparse.txt")) else [0]:
                    error = self.fails(ranks, "convert", *args, "-o", out)
                    self.assertIn(message, error)
                    self.assertFalse(os.path.exists(out))
                    self.assertEqual([f for f in os.listdir(self.dir.name) if ".partial" in f], [])
        # A population file is not converted again: it was read as a broken edge list.
        self.ok(0, "convert", edges, "-o", self.path("pop.h5"))
        error = self.fails(0, "convert", self.path("pop.h5"), "-o", self.path("out.h5"))
        self.assertIn("pop.h5: an HDF5 file, not an edge list", error)
        self.assertFalse(os.path.exists(self.path("out.h5")))

    def test_agents_too_many_for_memory_are_blamed_on_the_table_that_named_them(self):
        # Two agents in the edge list, 10^8 named by the attribute table's last id.
        with open(self.path("e.txt"), "w") as f:
            f.write("0 1\n")
        with open(self.path("t.csv"), "w") as f:
            f.write("id,age_group\n0,U19\n1,U19\n100000000,U19\n")
        said = self.path("e.txt") + " with the ids of " + self.path("t.csv")
        ranks = [0, 2] if herd_files_test.MPIEXEC else [0]
        for ranks, command in [(r, ["run", "--model", "covid", "--steps", "1"]) for r in ranks] + [
                (0, ["convert", "-o", self.path("o.h5")])]:
            with self.subTest(ranks=ranks, command=command[0]):
                error = self.fails(ranks, *command, "--graph", self.path("e.txt"), "--attributes", self.path("t.csv"),
                                   "--max-memory", "1G")
                self.assertIn(said, error)
        self.assertEqual(sorted(os.listdir(self.dir.name)), ["e.txt", "t.csv"])

    def test_usage_errors(self):
        self.fails(0, "convert", "erdos-renyi", status=2)
        # A population file holds its graph as it is used, and its attributes.
        self.ok(0, "convert", "erdos-renyi", "--agents", "100", "-o", self.path("er.h5"))
        for extra, said in [(["--directed"], "--directed, --transpose: "), (["--attributes", "a.csv"], "--attributes: ")]:
            error = self.fails(0, "run", "--model", "covid", "--graph", self.path("er.h5"), *extra, status=2)
            self.assertIn(said + self.path("er.h5") + " is a population file", error)
        # Its contacts have no times: it is named, not read as text.
        error = self.fails(0, "run", "--model", "sir", "--graph", self.path("er.h5"), "--window", "20", status=2)
        self.assertIn("--window reads a timed-contact file (t i j): " + self.path("er.h5") + " is a population file",
                      error)
        self.fails(0, "run", "--relabel", status=2)
        self.fails(0, "run", "--attributes", "a.csv", status=2)
        # Options of herd run mean nothing to convert: a mistake, not a file that never appears.
        error = self.fails(0, "convert", "erdos-renyi", "-o", self.path("x.h5"), "--csv", self.path("a.csv"), status=2)
        self.assertIn("--csv does not apply to herd convert", error)
        self.assertFalse(os.path.exists(self.path("x.h5")))
        error = self.fails(0, "convert", "erdos-renyi", "--agents", "100", "--relabel", "-o", self.path("x.h5"), status=2)
        self.assertIn("--relabel: erdos-renyi is a generator", error)
        error = self.fails(0, "convert", "erdos-renyi", "-o", "/nonexistent/dir/g.h5")
        self.assertIn("/nonexistent/dir/g.h5", error)


if __name__ == "__main__":
    herd_files_test.configure(sys.argv)
    unittest.main(argv=[sys.argv[0], "-v"])
