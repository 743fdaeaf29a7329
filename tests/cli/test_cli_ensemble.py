"""Tests of ensembles (herd run --replicates, --sweep): every member of every model equals herd run
with its seed and parameters; the JSON summaries equal a direct computation from the CSV of every
member; the HDF5 ensemble file holds the same counts and summaries; the share of major outbreaks of SIR on Erdos-Renyi matches bond percolation theory; the
same members on 1 to 3 ranks, spread over the ranks or on a graph the ranks share; checkpoints,
also put in place on the way and resumed after a kill; bad sweeps refused with one line, exit
status 2 and no file.

Usage: test_cli_ensemble.py HERD [MPIEXEC [MPIEXEC FLAGS...]]   (needs numpy)"""

import csv
import json
import math
import os
import shutil
import sys
import unittest

import numpy as np

import herd_files_test as hf

GRAPH = ["--graph", "erdos-renyi", "--agents", "3000", "--mean-degree", "6", "--steps", "25", "--quiet"]

# Per model: a parameter it reads, swept over two values (degroot reads none: replicates only).
SWEEPS = {
    "sir": "beta=0.05:0.15:2",
    "seir": "sigma=0.3:0.6:2",
    "voter": "initial-share=0.3:0.7:2",
    "majority": "initial-share=0.4:0.6:2",
    "degroot": None,
    "bounded-confidence": "confidence=0.1:0.3:2",
    "covid": "transmission-rate=2:6:2",
}


def members(path):
    """The ensemble CSV as {member: (row dict of the first step, [[counts] per step])}."""
    with open(path) as f:
        reader = csv.DictReader(f)
        columns = reader.fieldnames[reader.fieldnames.index("step") + 1:]
        out = {}
        for row in reader:
            m = int(row["member"])
            first, series = out.setdefault(m, (row, []))
            series.append([int(row[c]) for c in columns])
    return columns, out


def series(path):
    with open(path) as f:
        rows = list(csv.reader(f))
    return rows[0][1:], [[int(v) for v in row[1:]] for row in rows[1:]]


class MemberEquivalence(hf.Case):
    def test_every_member_is_the_single_run_with_its_seed_and_parameters(self):
        for model, sweep in SWEEPS.items():
            with self.subTest(model=model):
                extra = ["--sweep", sweep] if sweep else []
                # sir: members in a group that shares each step's pass over the graph (pull);
                # seir: each member with its own active set.
                stepping = {"sir": ["--stepping", "pull"], "seir": ["--stepping", "active"]}.get(model, [])
                self.ok(0, "run", "--model", model, *GRAPH, "--seed", "7", "--replicates", "2", *extra, *stepping,
                        "--csv", self.path("all.csv"), "--json", self.path("all.json"))
                with open(self.path("all.json")) as f:
                    self.assertEqual(json.load(f)["shared_passes"], model == "sir")
                columns, runs = members(self.path("all.csv"))
                self.assertEqual(len(runs), 4 if sweep else 2)
                for m, (first, counts) in runs.items():
                    self.assertEqual(int(first["seed"]), 7 + m % 2)
                    self.assertEqual(int(first["replicate"]), m % 2)
                    parameters = []
                    if sweep:
                        name = sweep.split("=")[0]
                        parameters = [f"--{name}", first[name]]
                    self.ok(0, "run", "--model", model, *GRAPH, "--seed", first["seed"], "--graph-seed", "7",
                            *parameters, "--csv", self.path("one.csv"))
                    one_columns, one = series(self.path("one.csv"))
                    self.assertEqual(one_columns, columns)
                    self.assertEqual(one, counts, f"member {m}")

    def test_the_population_graph_and_a_grid_of_two_parameters(self):
        args = ["run", "--model", "seir", "--agents", "4000", "--steps", "20", "--quiet", "--seed", "3"]
        self.ok(0, *args, "--sweep", "beta=0.1:0.2:2,latent-steps=1:3:3", "--csv", self.path("all.csv"))
        _, runs = members(self.path("all.csv"))
        self.assertEqual(len(runs), 6)
        # The last parameter varies fastest.
        self.assertEqual([(runs[m][0]["beta"], runs[m][0]["latent-steps"]) for m in range(6)],
                         [("0.1", "1"), ("0.1", "2"), ("0.1", "3"), ("0.2", "1"), ("0.2", "2"), ("0.2", "3")])
        for m in (1, 5):
            first, counts = runs[m]
            self.ok(0, *args, "--beta", first["beta"], "--latent-steps", first["latent-steps"],
                    "--csv", self.path("one.csv"))
            self.assertEqual(series(self.path("one.csv"))[1], counts)


class Summaries(hf.Case):
    def test_progress_names_each_count_once(self):
        # Standard error is not a terminal here: a line per tenth of the members, the last once.
        args = [a for a in GRAPH if a != "--quiet"]
        result = self.ok(0, "run", "--model", "sir", *args, "--replicates", "3")
        progress = [line for line in result.stderr.splitlines() if line.startswith("herd: member")]
        self.assertEqual(progress, ["herd: member 1/3", "herd: member 2/3", "herd: member 3/3"])

    def test_the_json_summaries_are_those_of_the_members_counts(self):
        self.ok(0, "run", "--model", "sir", *GRAPH, "--initial-infected", "2", "--replicates", "7",
                "--sweep", "beta=0.04:0.12:3", "--major-outbreak", "0.2", "--csv", self.path("all.csv"),
                "--json", self.path("s.json"))
        columns, runs = members(self.path("all.csv"))
        with open(self.path("s.json")) as f:
            summary = json.load(f)
        self.assertEqual(summary["members"], 21)
        self.assertEqual(summary["observables"], columns)
        agents = 3000
        for point in summary["points"]:
            ids = point["members"]
            self.assertEqual(ids, [point["point"] * 7 + r for r in range(7)])
            self.assertEqual(point["seeds"], [42 + r for r in range(7)])
            self.assertEqual(point["parameters"]["beta"], [0.04, 0.08, 0.12][point["point"]])
            counts = np.array([runs[m][1] for m in ids], dtype=float)  # [member, step, observable]
            for c, name in enumerate(columns):
                got = point["series"][name]
                np.testing.assert_allclose(got["mean"], counts[:, :, c].mean(axis=0), rtol=1e-12)
                for q in (5, 25, 50, 75, 95):
                    np.testing.assert_allclose(got[f"q{q:02d}"], np.quantile(counts[:, :, c], q / 100, axis=0),
                                               rtol=1e-12, err_msg=f"{name} q{q}")
            s = columns.index("S")
            i = columns.index("I")
            ever = agents - counts[:, -1, s]
            peaks = counts[:, :, i].argmax(axis=1)
            outbreak = point["outbreak"]
            self.assertEqual(outbreak["ever_infected"]["values"], list(ever))
            self.assertEqual(outbreak["peak_step"]["values"], list(peaks.astype(float)))
            self.assertAlmostEqual(outbreak["ever_infected"]["q50"], np.quantile(ever, 0.5))
            self.assertEqual(outbreak["major_outbreaks"], int((ever > 0.2 * agents).sum()))


    def test_a_label_that_is_not_utf8_reaches_the_json_as_a_single_run_writes_it(self):
        # Bytes that are not UTF-8 (a label, a file name) become U+FFFD, as in a single run's JSON.
        for replicates in ("1", "2"):
            out = self.path(f"label{replicates}.json")
            self.ok(0, "run", "--model", "sir", *GRAPH, "--replicates", replicates, "--label", "a\udcffb",
                    "--json", out)
            with open(out, encoding="utf-8") as f:
                self.assertEqual(json.load(f)["label"], "a\ufffdb")

    def test_a_member_at_the_major_outbreak_share_does_not_exceed_it(self):
        # 100 agents: a member of point 1 infects 58, exactly the share 0.58, which 0.58 * 100 in
        # doubles (57.999...) would count as exceeding.
        self.ok(0, "run", "--model", "sir", "--graph", "erdos-renyi", "--agents", "100", "--mean-degree", "4",
                "--steps", "40", "--quiet", "--replicates", "20", "--sweep", "beta=0.05:0.3:6", "--major-outbreak",
                "0.58", "--json", self.path("s.json"))
        with open(self.path("s.json")) as f:
            points = json.load(f)["points"]
        self.assertIn(58, points[1]["outbreak"]["ever_infected"]["values"])
        for point in points:
            ever = point["outbreak"]["ever_infected"]["values"]
            self.assertEqual(point["outbreak"]["major_outbreaks"], sum(e > 58 for e in ever), point["point"])

    def test_the_agents_a_vaccination_protected_were_never_infected(self):
        # No transmission: the one agent infected at the start is every member's only infection,
        # while doses move a thousand agents from S to R.
        scenario = self.path("vaccinate.json")
        with open(scenario, "w") as f:
            json.dump({"events": [{"steps": [1, 10], "vaccinate": {"per_step": 100, "efficacy": 1.0}}]}, f)
        run = ["run", "--model", "sir", *GRAPH, "--beta", "0", "--initial-infected", "1", "--replicates", "3",
               "--scenario", scenario]
        self.ok(0, *run, "--json", self.path("full.json"))
        with open(self.path("full.json")) as f:
            full = json.load(f)["points"][0]
        self.assertEqual(full["outbreak"]["ever_infected"]["values"], [1.0, 1.0, 1.0])
        self.assertEqual(full["outbreak"]["major_outbreaks"], 0)
        self.assertTrue(all(n > 900 for n in full["events"][0]["agents"]["values"]), full["events"])
        if not HAS_HDF5:
            return
        # Resumed after half the doses, the members count the doses of both launches.
        self.ok(0, *[a if a != "25" else "5" for a in run], "--checkpoint", self.path("c.h5"))
        self.ok(0, "resume", self.path("c.h5"), "--steps", "25", "--json", self.path("resumed.json"))
        with open(self.path("resumed.json")) as f:
            resumed = json.load(f)["points"][0]
        self.assertEqual(resumed["outbreak"], full["outbreak"])
        self.assertEqual(resumed["events"], full["events"])

    def test_the_smallest_swept_values_reach_the_summaries(self):
        # 1.5e-308 lies below the smallest normal double: read back, it is still a value.
        self.ok(0, "run", "--model", "sir", *GRAPH, "--sweep", "beta=0:3e-308:3", "--json", self.path("s.json"))
        with open(self.path("s.json")) as f:
            points = json.load(f)["points"]
        self.assertEqual([p["parameters"]["beta"] for p in points], [0.0, 1.5e-308, 3e-308])


HAS_HDF5 = os.environ.get("HERD_HAS_HDF5") == "1"


def datasets(path):
    """Every dataset of an HDF5 file as {name: array}, with the root's and /ensemble's attributes."""
    import h5py  # here: the tests without HDF5 need only numpy

    out = {}
    with h5py.File(path, "r") as f:
        f.visititems(lambda name, o: out.__setitem__(name, (o[...], dict(o.attrs)))
                     if isinstance(o, h5py.Dataset) else None)
        return out, dict(f.attrs), dict(f["ensemble"].attrs)


@unittest.skipUnless(HAS_HDF5, "herd was built without HDF5")
class EnsembleFile(hf.Case):
    def test_the_file_holds_the_members_counts_and_their_summaries(self):
        self.ok(0, "run", "--model", "sir", *GRAPH, "--initial-infected", "2", "--replicates", "5",
                "--sweep", "beta=0.04:0.12:3", "--major-outbreak", "0.2", "--seed", "9", "--csv",
                self.path("all.csv"), "--json", self.path("s.json"), "--output", self.path("e.h5"))
        columns, runs = members(self.path("all.csv"))
        with open(self.path("s.json")) as f:
            summary = json.load(f)
        data, root, run = datasets(self.path("e.h5"))
        self.assertEqual(root["herd_format"], b"herd-ensemble")
        self.assertEqual(root["format_version"], 1)
        self.assertEqual((run["model"], run["seed"], run["graph_seed"], run["replicates"], run["steps"]),
                         (b"sir", 9, 9, 5, 25))
        self.assertEqual(run["parameters"], b"beta")
        counts, attributes = data["ensemble/counts"]
        self.assertEqual(attributes["columns"].decode().split(","), columns)
        self.assertEqual(counts.shape, (15, 26, len(columns)))
        for m, (first, series_of_m) in runs.items():
            self.assertEqual(counts[m].tolist(), series_of_m, f"member {m}")
            self.assertEqual(data["members/seed"][0][m], int(first["seed"]))
            self.assertEqual(data["members/point"][0][m], int(first["point"]))
            self.assertEqual(data["members/replicate"][0][m], int(first["replicate"]))
            self.assertEqual(data["members/beta"][0][m], float(first["beta"]))
        self.assertEqual(data["points/beta"][0].tolist(), [0.04, 0.08, 0.12])
        # Summaries recomputed from the counts, and the same numbers as the JSON's.
        by_point = counts.astype(float).reshape(3, 5, 26, len(columns))
        np.testing.assert_allclose(data["summary/mean"][0], by_point.mean(axis=1), rtol=1e-12)
        for q in (5, 25, 50, 75, 95):
            stat = data[f"summary/q{q:02d}"][0]
            np.testing.assert_allclose(stat, np.quantile(by_point, q / 100, axis=1), rtol=1e-12)
            for p, point in enumerate(summary["points"]):
                for c, name in enumerate(columns):
                    self.assertEqual(stat[p, :, c].tolist(), point["series"][name][f"q{q:02d}"])
        s, i = columns.index("S"), columns.index("I")
        ever = 3000 - counts[:, -1, s]
        self.assertEqual(data["outbreak/ever_infected"][0].tolist(), ever.tolist())
        self.assertEqual(data["outbreak/peak_step"][0].tolist(), counts[:, :, i].argmax(axis=1).tolist())
        major = (ever > 0.2 * 3000).reshape(3, 5).sum(axis=1)
        self.assertEqual(data["outbreak/major_outbreaks"][0].tolist(), major.tolist())
        np.testing.assert_allclose(data["outbreak/major_share"][0], major / 5)
        # Every dataset carries the checksum of its values.
        for name, (values, attributes) in data.items():
            self.assertEqual(attributes["checksum"], hf.checksum(values), name)

    def test_a_model_without_outbreaks_and_the_same_file_on_three_ranks(self):
        args = ["run", "--model", "voter", *GRAPH, "--replicates", "4"]
        self.ok(0, *args, "--output", self.path("one.h5"))
        one, _, run = datasets(self.path("one.h5"))
        self.assertEqual(run["parameters"], b"")
        self.assertNotIn("outbreak/ever_infected", one)
        self.assertEqual(one["summary/q50"][0].shape, (1, 26, 2))
        if hf.MPIEXEC:
            self.ok(3, *args, "--output", self.path("three.h5"))
            three, _, _ = datasets(self.path("three.h5"))
            self.assertEqual(sorted(one), sorted(three))
            for name in one:
                np.testing.assert_array_equal(one[name][0], three[name][0], name)


@unittest.skipUnless(HAS_HDF5, "herd was built without HDF5")
class Checkpoints(hf.Case):
    def test_a_resumed_ensemble_continues_every_member_on_any_rank_count(self):
        # Steps 25 in one go, or 10 then 15 from the checkpoint: the same counts for every member.
        args = ["run", "--model", "seir", *GRAPH, "--replicates", "3", "--sweep", "beta=0.1:0.3:2"]
        self.ok(0, *args, "--csv", self.path("whole.csv"))
        cut = [a if a != "25" else "10" for a in args]
        self.ok(0, *cut, "--checkpoint", self.path("c.h5"))
        self.ok(0, "resume", self.path("c.h5"), "--steps", "25", "--csv", self.path("resumed.csv"), "--json",
                self.path("resumed.json"))
        whole = hf.read(self.path("whole.csv"))
        # Its time per member-step counts the 15 steps each of the 6 members made.
        with open(self.path("resumed.json")) as f:
            report = json.load(f)
        self.assertAlmostEqual(report["seconds_per_member_step"] * 6 * 15 / report["step_loop_seconds"], 1, delta=1e-6)
        self.assertEqual(hf.read(self.path("resumed.csv")), whole)
        import h5py
        with h5py.File(self.path("c.h5"), "r") as f:
            self.assertEqual((f["run"].attrs["members"], f["run"].attrs["step"]), (6, 10))
            self.assertEqual(sorted(f["members"].keys(), key=int), [str(m) for m in range(6)])
            self.assertEqual(f["members/5/history"].shape, (11, 4))
            self.assertEqual(f["members/5/agents/state"].shape, (3000,))
            # Each member's last row counts its agents' states.
            for m in range(6):
                states = np.bincount(f[f"members/{m}/agents/state"][...], minlength=4)
                self.assertEqual(list(states), list(f[f"members/{m}/history"][-1]))
        if hf.MPIEXEC:
            # Written on 3 ranks (members 0 and 3 on rank 0, ...), resumed on 2 and on 4.
            self.ok(3, *cut, "--checkpoint", self.path("c3.h5"))
            for ranks in (2, 4):
                self.ok(ranks, "resume", self.path("c3.h5"), "--steps", "25", "--csv", self.path("r.csv"))
                self.assertEqual(hf.read(self.path("r.csv")), whole)
            # A member that fails leaves no checkpoint behind.
            result = hf.herd(3, "run", "--model", "sir", *GRAPH, "--sweep", "initial-infected=10:4000:2",
                             "--checkpoint", self.path("failed.h5"))
            self.assertEqual(result.returncode, 1, result.stderr)
            self.assertFalse(os.path.exists(self.path("failed.h5")))
        # The sweep given again is compared by its points, not by how it is written.
        self.ok(0, "resume", self.path("c.h5"), "--steps", "25", "--sweep", "beta=1e-1:0.30:2", "--csv",
                self.path("again.csv"))
        self.assertEqual(hf.read(self.path("again.csv")), whole)
        result = hf.herd(0, "resume", self.path("c.h5"), "--steps", "25", "--sweep", "beta=0.1:0.4:2")
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("--sweep beta=0.1:0.4:2 would change the results", result.stderr)
        # A member's group moved to another's place is refused by name: each group says whose it is.
        shutil.copy(self.path("c.h5"), self.path("swapped.h5"))
        with h5py.File(self.path("swapped.h5"), "a") as f:
            f.move("members/1", "members/x")
            f.move("members/2", "members/1")
            f.move("members/x", "members/2")
        result = hf.herd(0, "resume", self.path("swapped.h5"), "--steps", "25", "--csv", self.path("bad.csv"))
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn("/members/1 holds member 2's state, not member 1's", result.stderr)
        self.assertFalse(os.path.exists(self.path("bad.csv")))
        # A member's history, or the member, missing from the file is named, and nothing is written;
        # so is the member count, without which the file would pass for one run's.
        shutil.copy(self.path("c.h5"), self.path("countless.h5"))
        with h5py.File(self.path("countless.h5"), "a") as f:
            del f["run"].attrs["members"]
        with h5py.File(self.path("c.h5"), "a") as f:
            del f["members/3/history"]
            del f["members/4"]
        for path, message in [(self.path("c.h5"), "/members/3/history is missing"),
                              (self.path("countless.h5"), "/run: the attribute 'members' is missing")]:
            result = hf.herd(0, "resume", path, "--steps", "25", "--csv", self.path("bad.csv"))
            self.assertEqual(result.returncode, 1, result.stderr)
            self.assertIn(message, result.stderr)
            self.assertFalse(os.path.exists(self.path("bad.csv")))
        with h5py.File(self.path("c.h5"), "a") as f:
            del f["members/3"]
        result = hf.herd(0, "resume", self.path("c.h5"), "--steps", "25", "--csv", self.path("bad.csv"))
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn("member 3 of 6 is missing", result.stderr)
        self.assertFalse(os.path.exists(self.path("bad.csv")))


    def test_a_checkpoint_put_in_place_on_the_way_resumes_the_members_not_yet_run(self):
        # Killed once its first checkpoint is in place (after 2 of 40 members), the ensemble
        # resumes from it, on one process or two, to the counts of an uninterrupted run: the
        # members it holds continue from their states, the others run from step 0.
        import h5py
        import signal
        import subprocess
        import time
        args = ["run", "--model", "seir", *GRAPH, "--replicates", "20", "--sweep", "beta=0.1:0.3:2"]
        self.ok(0, *args, "--csv", self.path("whole.csv"))
        whole = hf.read(self.path("whole.csv"))
        ckpt = self.path("c.h5")
        for attempt in range(5):
            if os.path.exists(ckpt):
                os.remove(ckpt)
            process = subprocess.Popen(hf.herd_command(0, *args, "--checkpoint", ckpt, "--checkpoint-every", "2"),
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=hf.ENV)
            deadline = time.time() + 120
            while not os.path.exists(ckpt) and process.poll() is None and time.time() < deadline:
                time.sleep(0.005)
            process.send_signal(signal.SIGKILL)
            process.wait()
            with h5py.File(ckpt, "r") as f:
                done = int(f["run"].attrs["members_done"])
                self.assertEqual((f["run"].attrs["members"], f["run"].attrs["step"]), (40, 25))
                # The members run so far, all of them whole: a prefix of the ensemble.
                self.assertEqual(sorted(f["members"].keys(), key=int), [str(m) for m in range(done)])
                self.assertEqual(done % 2, 0)
            if done < 40:
                break
        self.assertLess(done, 40, "every kill came after the last member")
        for ranks in (0, 2) if hf.MPIEXEC else (0,):
            with self.subTest(resumed_on=ranks):
                # Put in place on the way again, and written on in each copy to the end.
                self.ok(ranks, "resume", ckpt, "--csv", self.path("r.csv"), "--checkpoint", self.path("r.h5"),
                        "--checkpoint-every", "3")
                self.assertEqual(hf.read(self.path("r.csv")), whole)
                with h5py.File(self.path("r.h5"), "r") as f:
                    self.assertEqual(int(f["run"].attrs["members_done"]), 40)
                    self.assertEqual(len(f["members"]), 40)
        # Resumed into its own name, put in place after every member: the members it held still
        # resume from their states (an edit to row 1 of their histories shows in the CSV), the
        # others run from step 0.
        import shutil
        same = self.path("same.h5")
        shutil.copy(ckpt, same)
        with h5py.File(same, "a") as f:
            for m in range(done):
                history = f[f"members/{m}/history"]
                row = history[1]
                row[0] -= 1
                row[-1] += 1
                history[1] = row
                history.attrs.pop("checksum", None)
        self.ok(0, "resume", same, "--checkpoint", same, "--checkpoint-every", "1", "--csv", self.path("same.csv"))
        _, got = members(self.path("same.csv"))
        _, want = members(self.path("whole.csv"))
        for m in range(40):
            expected = [list(row) for row in want[m][1]]
            if m < done:
                expected[1][0] -= 1
                expected[1][-1] += 1
            self.assertEqual(got[m][1], expected, f"member {m} of the {done} held")
        # A member count it cannot hold is named, and nothing is written.
        for bad in (0, 41):
            with h5py.File(ckpt, "a") as f:
                f["run"].attrs["members_done"] = bad
            result = hf.herd(0, "resume", ckpt, "--csv", self.path("bad.csv"))
            self.assertEqual(result.returncode, 1, result.stderr)
            self.assertIn(f"invalid members_done {bad} of 40 members", result.stderr)
            self.assertFalse(os.path.exists(self.path("bad.csv")))


class Percolation(hf.Case):
    def test_major_outbreaks_match_bond_percolation(self):
        # SIR on Erdos-Renyi with one initial infectious agent and a fixed infectious period tau:
        # an edge transmits with T = 1 - (1 - beta)^tau, independently of the others, so the
        # probability of a major outbreak is the giant component's share S = 1 - exp(-c T S) of
        # bond percolation, and a major outbreak infects S of the agents.
        agents, c, tau, replicates = 10000, 4.0, 5, 400
        self.ok(0, "run", "--model", "sir", "--graph", "erdos-renyi", "--agents", str(agents), "--mean-degree",
                str(c), "--infectious-steps", str(tau), "--initial-infected", "1", "--steps", "200", "--seed", "11",
                "--replicates", str(replicates), "--sweep", "beta=0.1:0.2:2", "--quiet", "--json",
                self.path("s.json"))
        with open(self.path("s.json")) as f:
            summary = json.load(f)
        for point in summary["points"]:
            beta = point["parameters"]["beta"]
            t = 1 - (1 - beta) ** tau
            s = 0.5
            for _ in range(200):
                s = 1 - math.exp(-c * t * s)
            outbreak = point["outbreak"]
            share = outbreak["major_share"]
            sd = math.sqrt(s * (1 - s) / replicates)
            with self.subTest(beta=beta, theory=s):
                self.assertGreater(s, 0.5)
                self.assertLess(abs(share - s), 4 * sd, f"major share {share:.3f}, theory {s:.3f}")
                ever = np.array(outbreak["ever_infected"]["values"]) / agents
                # Every run has ended, and a major outbreak's size is the giant share too.
                self.assertEqual(point["final"]["I"]["q95"], 0)
                self.assertLess(abs(ever[ever > 0.1].mean() - s), 0.02)
                self.assertLess(ever[ever <= 0.1].max(initial=0), 0.02)


class BadSweeps(hf.Case):
    def test_one_line_exit_2_and_no_file(self):
        cases = {
            "beta=0.1:0.2:0": "empty range",
            "beta=0.2:0.1:3": "reversed",
            "nosuch=1:2:2": "no parameter 'nosuch'",
            "initial-share=0.1:0.2:2": "no parameter 'initial-share'",
            "beta=0.5:1.5:3": "must lie in [0, 1]",
            "infectious-steps=0:4:5": "must be positive",
            "infectious-steps=1:4:3": "whole numbers",
            "beta=0.1": "not NAME=LOW:HIGH:N",
            "beta=0.1:0.2:2,beta=0.3:0.4:2": "swept twice",
            "gamma=0.1:0.2:2,infectious-steps=2:3:2": "both set the period",
            "beta=a:0.2:2": "not a number",
            "infectious-steps=1:70000:2": "exceeds the largest supported value 65535",
            "beta=0.1:0.1000000000001:2": "points 0 and 1 both read 0.1 (12 significant digits)",
            "initial-infected=1:1.0000000001:2": "points 0 and 1 both read 1 (whole numbers)",
        }
        for sweep, message in cases.items():
            with self.subTest(sweep=sweep):
                output = ["--output", self.path("x.h5")] if HAS_HDF5 else []
                result = hf.herd(0, "run", "--model", "sir", *GRAPH, "--sweep", sweep, "--csv", self.path("x.csv"),
                                 *output)
                self.assertEqual(result.returncode, 2, result.stderr)
                lines = result.stderr.strip().splitlines()
                self.assertEqual(len(lines), 1, result.stderr)
                self.assertIn(message, lines[0])
                self.assertTrue(lines[0].startswith("herd: --sweep " + sweep), lines[0])
                self.assertEqual(os.listdir(self.path("")), [])
        for args, message in [(["--beta", "0.1", "--sweep", "beta=0.1:0.2:2"], "also given as --beta"),
                              (["--sweep", ""], "--sweep: needs NAME=LOW:HIGH:N"),
                              (["--infectious-steps", "70000"], "exceeds the largest supported value 65535"),
                              (["--replicates", "0"], "--replicates must be positive"),
                              (["--replicates", "8", "--checkpoint-every", "5"], "needs --checkpoint FILE"),
                              (["--replicates", "2", "--checkpoint", self.path("c.h5"), "--checkpoint-every", "2"],
                               "counts members, and this one has 2"),
                              (["--replicates", "2", "--output", self.path("c.h5"), "--snapshot-every", "2"],
                               "does not apply"),
                              (["--replicates", "2", "--exchange-every", "2"], "whose graph --partition distributes"),
                              (["--major-outbreak", "0.2"], "applies to an ensemble")]:
            with self.subTest(args=args):
                result = hf.herd(0, "run", "--model", "sir", *GRAPH, *args, "--csv", self.path("x.csv"))
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertIn(message, result.stderr)
                self.assertFalse(os.path.exists(self.path("x.csv")))
        # A swept value the graph cannot take is named as the sweep's point, the option the user gave.
        result = hf.herd(0, "run", "--model", "sir", *GRAPH, "--sweep", "initial-infected=10:4000:2", "--csv",
                         self.path("x.csv"))
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertEqual(result.stderr.strip().splitlines(),
                         ["herd: --sweep point initial-infected=4000: --initial-infected 4000 exceeds the agent "
                          "count 3000"])
        self.assertFalse(os.path.exists(self.path("x.csv")))
        result = hf.herd(0, "run", "--model", "voter", *GRAPH, "--replicates", "2", "--major-outbreak", "0.2",
                         "--csv", self.path("x.csv"))
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("the model voter has no outbreaks", result.stderr)
        self.assertFalse(os.path.exists(self.path("x.csv")))


@unittest.skipUnless(len(sys.argv) > 2, "needs mpiexec")
class Ranks(hf.Case):
    def test_members_spread_over_ranks_give_the_same_files(self):
        # Each rank's members share their passes over the graph (--stepping pull).
        args = ["run", "--model", "seir", *GRAPH, "--replicates", "3", "--sweep", "beta=0.1:0.3:3", "--stepping", "pull"]
        self.ok(0, *args, "--csv", self.path("one.csv"))
        for ranks in (2, 3):
            with self.subTest(ranks=ranks):
                self.ok(ranks, *args, "--csv", self.path("many.csv"))
                with open(self.path("one.csv")) as a, open(self.path("many.csv")) as b:
                    self.assertEqual(a.read(), b.read())

    def test_a_graph_distributed_over_the_ranks_gives_the_same_files(self):
        # --partition: each rank holds its share of the graph, made once, and every member runs on
        # all the ranks in turn; on one process it changes nothing.
        # On the population, each member's own layer factors and isolation, while the members share
        # the transpose their listed steps push through.
        scenario = self.path("scenario.json")
        with open(scenario, "w") as f:
            json.dump({"events": [{"steps": [3, 10], "layers": {"school": 0, "workplace": 0.3}},
                                  {"steps": [2, 15], "isolate": {"probability": 0.4, "duration": 3}}]}, f)
        population = ["--agents", "4000", "--steps", "15", "--quiet", "--scenario", scenario]
        for graph, partition in ((GRAPH, "contiguous"), (population, hf.metis_or_blocks())):
            args = ["run", "--model", "seir", *graph, "--replicates", "2", "--sweep", "beta=0.1:0.3:2"]
            self.ok(0, *args, "--csv", self.path("one.csv"))
            for ranks in (0, 2, 3):
                with self.subTest(partition=partition, ranks=ranks):
                    self.ok(ranks, *args, "--partition", partition, "--csv", self.path("many.csv"),
                            "--json", self.path("many.json"))
                    with open(self.path("one.csv")) as a, open(self.path("many.csv")) as b:
                        self.assertEqual(a.read(), b.read())
                    with open(self.path("many.json")) as f:
                        summary = json.load(f)
                    self.assertEqual(summary["ranks"], max(ranks, 1))
                    self.assertEqual(summary["graph_over_ranks"], ranks > 1)

    def test_each_members_events_are_its_single_runs(self):
        # Per point, the events as a run lists them, with each counting event's agents in every
        # member: those of herd run with the member's seed and parameters, however the members or
        # the graph are spread over ranks.
        scenario = self.path("scenario.json")
        with open(scenario, "w") as f:
            json.dump({"events": [{"steps": [2, 15], "isolate": {"probability": 0.4, "duration": 3}},
                                  {"steps": [3, 4], "import": 5},
                                  {"steps": [5, 5], "layers": {"school": 0}},
                                  {"steps": [6, 8], "vaccinate": {"per_step": 50}},
                                  {"steps": [9, 9], "set": {"infectious-steps": 4}}]}, f)
        args = ["run", "--model", "seir", "--agents", "4000", "--steps", "15", "--scenario", scenario]
        ensemble = [*args, "--replicates", "3", "--sweep", "beta=0.1:0.3:2"]
        self.ok(0, *ensemble, "--quiet", "--json", self.path("ensemble.json"))
        with open(self.path("ensemble.json")) as f:
            points = json.load(f)["points"]
        for point in points:
            for k, seed in enumerate(point["seeds"]):
                self.ok(0, *args, "--seed", str(seed), "--graph-seed", "42", "--beta", str(point["parameters"]["beta"]),
                        "--quiet", "--json", self.path("single.json"))
                with open(self.path("single.json")) as f:
                    single = json.load(f)["events"]
                self.assertEqual(len(point["events"]), len(single))
                for ours, theirs in zip(point["events"], single):
                    with self.subTest(seed=seed, event=ours["name"]):
                        self.assertEqual({key: v for key, v in ours.items() if key != "agents"},
                                         {key: v for key, v in theirs.items() if key != "agents"})
                        if "agents" in theirs:
                            self.assertEqual(ours["agents"]["values"][k], sum(theirs["agents"]))
                            self.assertEqual(ours["agents"]["mean"], sum(ours["agents"]["values"]) / 3)
                        else:
                            self.assertNotIn("agents", ours)
        # Some isolated and some vaccinated in every member, and the spread is over the members.
        for point in points:
            self.assertTrue(all(v > 0 for v in point["events"][0]["agents"]["values"]))
            self.assertTrue(all(v > 0 for v in point["events"][3]["agents"]["values"]))
        table = self.ok(0, *ensemble).stdout
        self.assertIn("scenario (agents per member: mean, 5 / 50 / 95 %)", table)
        self.assertIn("events[4].set.infectious-steps, step 9: infectious-steps = 4, then as before", table)
        for ranks, extra in ((2, []), (3, []), (2, ["--partition", hf.metis_or_blocks()])):
            with self.subTest(ranks=ranks, extra=extra):
                self.ok(ranks, *ensemble, *extra, "--quiet", "--json", self.path("ranks.json"))
                with open(self.path("ranks.json")) as f:
                    self.assertEqual([p["events"] for p in json.load(f)["points"]], [p["events"] for p in points])

    @unittest.skipUnless(HAS_HDF5, "herd was built without HDF5")
    def test_a_graph_distributed_over_the_ranks_checkpoints_and_resumes_on_any_rank_count(self):
        # SEIR on the population with layer factors and isolation (whose timers the checkpoint
        # keeps): 15 steps in one go, or 6 then 9 from a checkpoint written with the graph over 2
        # ranks, resumed with the graph over 3 ranks (its --partition is kept) and on one process;
        # and from a checkpoint of one process, resumed with the graph over 3 ranks.
        scenario = self.path("scenario.json")
        with open(scenario, "w") as f:
            json.dump({"events": [{"steps": [3, 10], "layers": {"school": 0, "workplace": 0.3}},
                                  {"steps": [2, 15], "isolate": {"probability": 0.4, "duration": 3}}]}, f)
        args = ["run", "--model", "seir", "--agents", "4000", "--quiet", "--scenario", scenario,
                "--replicates", "2", "--sweep", "beta=0.1:0.3:2"]
        self.ok(0, *args, "--steps", "15", "--csv", self.path("whole.csv"))
        whole = hf.read(self.path("whole.csv"))
        self.ok(2, *args, "--steps", "6", "--partition", hf.metis_or_blocks(), "--checkpoint",
                self.path("over.h5"), "--checkpoint-every", "1")  # put in place after each member, the last file the same
        self.ok(0, *args, "--steps", "6", "--checkpoint", self.path("one.h5"))
        # The same file, dataset for dataset, whichever layout wrote it.
        import h5py
        with h5py.File(self.path("over.h5"), "r") as a, h5py.File(self.path("one.h5"), "r") as b:
            names = []
            a["members"].visit(lambda name: names.append(name) if isinstance(a["members"][name], h5py.Dataset)
                               else None)
            self.assertIn("3/scenario/isolation", names)
            for name in names:
                with self.subTest(dataset=name):
                    self.assertTrue(np.array_equal(a["members"][name][...], b["members"][name][...]))
        for ranks in (3, 0):
            with self.subTest(resumed_on=ranks):
                self.ok(ranks, "resume", self.path("over.h5"), "--steps", "15", "--csv", self.path("r.csv"))
                self.assertEqual(hf.read(self.path("r.csv")), whole)
        # Its members read the file resumed anew: progress put in place under its name is refused.
        result = hf.herd(2, "resume", self.path("over.h5"), "--checkpoint", self.path("over.h5"),
                         "--checkpoint-every", "1")
        self.assertEqual(result.returncode, 2, result.stderr)
        said = [line for line in result.stderr.splitlines() if line.startswith("herd:")]
        self.assertEqual(len(said), 1, result.stderr)  # before the graph is built, by rank 0 alone
        self.assertIn("under another name than the file it resumes", said[0])
        self.ok(3, "resume", self.path("one.h5"), "--steps", "15", "--partition", "contiguous",
                "--csv", self.path("r.csv"), "--json", self.path("r.json"))
        self.assertEqual(hf.read(self.path("r.csv")), whole)
        with open(self.path("r.json")) as f:
            self.assertTrue(json.load(f)["graph_over_ranks"])

    @unittest.skipUnless(HAS_HDF5, "herd was built without HDF5")
    def test_members_states_larger_than_a_message_reach_the_checkpoint_whole(self):
        # 1.5 million agents of SEIR hold 3 MB of states a member: the ranks send them to rank 0 in
        # pieces of 1 MiB, the last one short. Spread over 2 and 3 ranks (rank 0 writing its own
        # member, then the others'), or with the graph over 2 ranks: the file of one process.
        args = ["run", "--model", "seir", "--graph", "erdos-renyi", "--agents", "1500000", "--mean-degree", "3",
                "--steps", "3", "--quiet", "--replicates", "3"]
        self.ok(0, *args, "--checkpoint", self.path("one.h5"))
        import h5py
        for ranks, layout in ((2, []), (3, []), (2, ["--partition", "contiguous"])):
            with self.subTest(ranks=ranks, layout=layout):
                self.ok(ranks, *args, *layout, "--checkpoint", self.path("many.h5"))
                with h5py.File(self.path("one.h5"), "r") as a, h5py.File(self.path("many.h5"), "r") as b:
                    names = []
                    a["members"].visit(lambda name: names.append(name)
                                       if isinstance(a["members"][name], h5py.Dataset) else None)
                    self.assertIn("2/agents/state", names)
                    self.assertGreater(sum(a["members/2/agents"][p].nbytes for p in a["members/2/agents"]),
                                       2 * 2 ** 20)
                    for name in names:
                        self.assertTrue(np.array_equal(a["members"][name][...], b["members"][name][...]), name)

    def test_a_member_that_fails_on_one_rank_fails_the_run_on_all(self):
        # The second point's initial infections exceed the agents: one message, exit 1, no file.
        result = hf.herd(3, "run", "--model", "sir", *GRAPH, "--sweep", "initial-infected=10:4000:2",
                         "--csv", self.path("x.csv"))
        self.assertEqual(result.returncode, 1, result.stderr)
        lines = [line for line in result.stderr.splitlines() if line.startswith("herd:")]
        self.assertEqual(len(lines), 1, result.stderr)
        self.assertIn("exceeds the agent count", lines[0])
        self.assertFalse(os.path.exists(self.path("x.csv")))


if __name__ == "__main__":
    hf.configure(sys.argv)
    unittest.main(argv=sys.argv[:1])
