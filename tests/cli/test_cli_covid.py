"""Tests of herd run --model covid from the command line: a population given as a directed edge list
and a CSV table of agents, the stage counts it prints, the direction of edges, errors in the table,
the same results on 1 and 2 threads and (with MPI) on 1 to 3 ranks, the same results from a
population file (with HDF5), and the Astoria case when its data is at hand, also against
AgentTorch's ever-exposed counts over 100 seeds.

Usage: test_cli_covid.py HERD [MPIEXEC [MPIEXEC FLAGS...]]
Environment: HERD_HAS_HDF5=1 when herd was built with HDF5; HERD_ASTORIA=DIR with the Astoria files."""

import csv
import json
import math
import os
import random
import statistics
import sys
import unittest

import herd_files_test as hf
from herd_files_test import read

AGES = ["20t29", "30t39", "40t49", "50t64", "65A", "U19"]


def counts(path):
    with open(path) as f:
        rows = list(csv.reader(f))
    header = rows[0]
    return header, [[int(v) for v in row] for row in rows[1:]]


class CovidRun(hf.Case):
    def write_population(self, agents=3000, contacts=9000, exposed=20, seed=5):
        """A directed edge list u,v (u can infect v) and a table of agents in shuffled order; the last
        agents have no contacts at all, so only the table makes them agents."""
        rng = random.Random(seed)
        with open(self.path("edges.csv"), "w") as f:
            for _ in range(contacts):
                u, v = rng.randrange(agents - 5), rng.randrange(agents - 5)
                f.write(f"{u},{v}\n")
        rows = [(i, rng.choice(AGES), 1 if i < exposed else 0) for i in range(agents)]
        rng.shuffle(rows)
        with open(self.path("agents.csv"), "w") as f:
            f.write("agent_id,age_group,initial_disease_stage\n")
            for i, age, stage in rows:
                f.write(f"{i},{age},{stage}\n")

    def covid(self, *extra, ranks=0, csv_name="out.csv"):
        self.ok(ranks, "run", "--model", "covid", "--graph", self.path("edges.csv"), "--directed", "--transpose",
                "--attributes", self.path("agents.csv"), "--quiet", "--csv", self.path(csv_name), *extra)
        return read(self.path(csv_name))

    def test_counts_are_conserved_and_follow_the_stages(self):
        self.write_population()
        self.covid("--steps", "40", "--transmission-rate", "12")
        header, rows = counts(self.path("out.csv"))
        self.assertEqual(header, ["step", "S", "E", "I", "R", "D"])
        self.assertEqual(len(rows), 41)
        self.assertEqual(rows[0][1:], [2980, 20, 0, 0, 0])
        for before, after in zip(rows, rows[1:]):
            self.assertEqual(sum(after[1:]), 3000)
            self.assertLessEqual(after[1], before[1])  # S only shrinks
            self.assertGreaterEqual(after[4] + after[5], before[4] + before[5])  # R + D only grow
        # The initial exposed turn infected at step 3 and leave at step 8: rows 4 and 9.
        self.assertEqual(rows[3][3], 0)
        self.assertGreaterEqual(rows[4][3], 20)
        self.assertGreater(rows[-1][4] + rows[-1][5], 200, "the epidemic should spread")
        self.assertGreater(rows[-1][5], 0)

    def test_same_results_on_one_and_two_threads(self):
        self.write_population()
        one = self.covid("--steps", "30", "--transmission-rate", "12")
        hf.ENV["OMP_NUM_THREADS"] = "2"
        try:
            for schedule in ["thread", "team"]:
                self.assertEqual(self.covid("--steps", "30", "--transmission-rate", "12", "--schedule", schedule),
                                 one, schedule)
        finally:
            hf.ENV["OMP_NUM_THREADS"] = "1"

    def test_edges_point_from_infector_to_infected(self):
        # One contact 0,1; agent 0 starts exposed and the transmission is certain once possible.
        with open(self.path("edges.csv"), "w") as f:
            f.write("0,1\n")
        with open(self.path("agents.csv"), "w") as f:
            f.write("agent_id,age_group,initial_disease_stage\n0,30t39,1\n1,30t39,0\n")
        base = ["run", "--model", "covid", "--graph", self.path("edges.csv"), "--attributes", self.path("agents.csv"),
                "--transmission-rate", "1e6", "--steps", "3", "--quiet", "--csv", self.path("o.csv")]
        exposed_after_3 = {}
        for name, flags in [("who-infects-whom", ["--directed", "--transpose"]), ("reversed", ["--directed"]),
                            ("undirected", [])]:
            self.ok(0, *base, *flags)
            exposed_after_3[name] = counts(self.path("o.csv"))[1][3][2]
        self.assertEqual(exposed_after_3, {"who-infects-whom": 2, "reversed": 1, "undirected": 2})
        if os.environ.get("HERD_HAS_HDF5") == "1":
            # herd convert orients the edges as herd run does.
            self.ok(0, "convert", self.path("edges.csv"), "--directed", "--transpose", "--attributes",
                    self.path("agents.csv"), "-o", self.path("who.h5"))
            self.ok(0, "run", "--model", "covid", "--graph", self.path("who.h5"), "--transmission-rate", "1e6",
                    "--steps", "3", "--quiet", "--csv", self.path("o.csv"))
            self.assertEqual(counts(self.path("o.csv"))[1][3][2], 2)

    def test_bad_tables_are_refused_with_the_file_named(self):
        self.write_population(agents=50, contacts=100, exposed=2)
        good = read(self.path("agents.csv")).splitlines()

        def relabel(line, label):
            fields = line.split(",")
            return ",".join([fields[0], label] + fields[2:])

        # Of two bad labels, the lowest agent's is named, whatever its line.
        first_bad = min((int(good[30].split(",")[0]), "old"), (int(good[-1].split(",")[0]), "young"))
        cases = {
            "no age column": ["agent_id,initial_disease_stage"] + [",".join(l.split(",")[::2]) for l in good[1:]],
            "unknown label": [good[0], good[1].split(",")[0] + ",adult,0"] + good[2:],
            "bad stage": [good[0], ",".join(good[1].split(",")[:2]) + ",7"] + good[2:],
            "text stage": [good[0], ",".join(good[1].split(",")[:2]) + ",sick"] + good[2:],
            "empty stage": good[:20] + [",".join(good[20].split(",")[:2]) + ","] + good[21:],
            "missing agent": good[:-1],
            "repeated id": good + [good[1].split(",")[0] + ",30t39,0"],
            "short line": good[:40] + ["7,30t39"] + good[40:],
            "bad stages": good[:30] + [",".join(good[30].split(",")[:2]) + ",9"] + good[31:-1]
            + [",".join(good[-1].split(",")[:2]) + ",8"],
            "unknown labels": good[:30] + [relabel(good[30], "old")] + good[31:-1] + [relabel(good[-1], "young")],
            # Saved with a carriage return alone at each line's end: one line, not a header and rows.
            "carriage returns": "\r".join(good) + "\r",
        }
        expected = {"no age column": "no column age_group", "unknown label": "agent " + good[1].split(",")[0] + " has age group 'adult'",
                    "bad stage": "stage 7", "text stage": "agent " + good[1].split(",")[0] + " has stage 'sick'",
                    "empty stage": "agent " + good[20].split(",")[0] + " has stage ''", "missing agent": "no row for agent",
                    "repeated id": "bad.csv:52: agent id", "short line": "bad.csv:41: expected 3 fields",
                    "bad stages": "has stage",
                    "unknown labels": "agent %d has age group '%s'" % first_bad,
                    "carriage returns": "bad.csv:1: a carriage return inside the line"}
        # Under mpiexec each rank reads its part of the table: the message is one process's.
        for name, lines in cases.items():
            with open(self.path("bad.csv"), "w") as f:
                f.write(lines if isinstance(lines, str) else "\n".join(lines) + "\n")
            messages = []
            for ranks in [0] + ([3] if len(sys.argv) > 2 else []):
                with self.subTest(case=name, ranks=ranks):
                    result = hf.herd(ranks, "run", "--model", "covid", "--graph", self.path("edges.csv"),
                                     "--directed", "--transpose", "--attributes", self.path("bad.csv"), "--steps",
                                     "2", "--quiet")
                    self.assertEqual(result.returncode, 1, result.stderr)
                    errors = [line for line in result.stderr.splitlines() if line.startswith("herd:")]
                    self.assertEqual(len(errors), 1, result.stderr)
                    self.assertIn(self.path("bad.csv"), errors[0])
                    self.assertIn(expected[name], errors[0])
                    messages.append(errors[0])
            self.assertEqual(len(set(messages)), 1, messages)
        # Agents whose stages are given start as those say: --initial-infected, given or swept, is
        # refused. Without stages, every point of a sweep must fit the agents.
        with open(self.path("ages.csv"), "w") as f:
            f.write("\n".join(",".join(line.split(",")[:2]) for line in good) + "\n")
        for table, extra, says in [
                ("agents.csv", ["--initial-infected", "3"],
                 "agents.csv: the agents' initial_disease_stage says who starts infected, so --initial-infected "
                 "does not apply"),
                ("agents.csv", ["--sweep", "initial-infected=1:3:2"], "so --sweep initial-infected does not apply"),
                ("ages.csv", ["--sweep", "initial-infected=1:60:2"], "--initial-infected 60 exceeds the agent count 50")]:
            for ranks in [0] + ([3] if len(sys.argv) > 2 else []):
                with self.subTest(table=table, extra=extra, ranks=ranks):
                    result = hf.herd(ranks, "run", "--model", "covid", "--graph", self.path("edges.csv"),
                                     "--directed", "--transpose", "--attributes", self.path(table), "--steps", "2",
                                     "--quiet", "--csv", self.path("x.csv"), *extra)
                    self.assertEqual(result.returncode, 1, result.stderr)
                    errors = [line for line in result.stderr.splitlines() if line.startswith("herd:")]
                    self.assertEqual(len(errors), 1, result.stderr)
                    self.assertIn(says, errors[0])
                    self.assertFalse(os.path.exists(self.path("x.csv")))
        # A generated graph of 40 agents, which the table's agents 40 to 49 are not: the first one's
        # line is named, by one process and by ranks reading the table in parts alike.
        for ranks in [0] + ([3] if len(sys.argv) > 2 else []):
            with self.subTest(case="agents beyond a generated graph", ranks=ranks):
                result = hf.herd(ranks, "run", "--model", "covid", "--agents", "40", "--attributes",
                                 self.path("agents.csv"), "--steps", "2", "--quiet")
                self.assertEqual(result.returncode, 1, result.stderr)
                errors = [line for line in result.stderr.splitlines() if line.startswith("herd:")]
                self.assertEqual(len(errors), 1, result.stderr)
                line = 2 + next(k for k, row in enumerate(good[1:]) if int(row.split(",")[0]) >= 40)
                self.assertIn(f"agents.csv:{line}: agent id ", errors[0])
                self.assertIn("is not an agent of the graph (40 agents)", errors[0])
        if os.environ.get("HERD_HAS_HDF5") == "1":
            # The table converted into a population file is refused as the table is: with stages,
            # or with attributes that are neither ages nor stages.
            income = ["agent_id,income"] + [line.split(",")[0] + ",%d" % k for k, line in enumerate(good[1:])]
            for name, lines in [("noage", cases["no age column"]), ("income", income)]:
                with open(self.path(name + ".csv"), "w") as f:
                    f.write("\n".join(lines) + "\n")
                self.ok(0, "convert", self.path("edges.csv"), "--directed", "--transpose", "--attributes",
                        self.path(name + ".csv"), "-o", self.path(name + ".h5"))
                for ranks in [0] + ([3] if len(sys.argv) > 2 else []):
                    with self.subTest(case="converted without ages", table=name, ranks=ranks):
                        result = hf.herd(ranks, "run", "--model", "covid", "--graph", self.path(name + ".h5"),
                                         "--steps", "2", "--quiet", "--csv", self.path("refused.csv"))
                        self.assertEqual(result.returncode, 1, result.stderr)
                        errors = [line for line in result.stderr.splitlines() if line.startswith("herd:")]
                        self.assertEqual(len(errors), 1, result.stderr)
                        self.assertIn(name + ".h5: no attribute age_group", errors[0])
                        self.assertFalse(os.path.exists(self.path("refused.csv")))

    def test_usage_errors(self):
        self.write_population(agents=50, contacts=100, exposed=2)
        for args in [["--model", "seir", "--attributes", self.path("agents.csv")],
                     ["--model", "covid", "--graph", self.path("edges.csv"), "--transpose"],
                     ["--model", "covid", "--age-reading", "decades"]]:
            with self.subTest(args=args):
                result = hf.herd(0, "run", *args, "--steps", "2")
                self.assertEqual(result.returncode, 2, result.stderr)

    def test_the_json_records_the_parameters_the_run_used(self):
        self.ok(0, "run", "--model", "covid", "--graph", "erdos-renyi", "--agents", "500", "--mean-degree", "4",
                "--steps", "2", "--quiet", "--transmission-rate", "2", "--mortality", "0.5", "--age-reading",
                "agenttorch", "--json", self.path("c.json"))
        with open(self.path("c.json")) as f:
            parameters = json.load(f)["parameters"]
        self.assertEqual(parameters["transmission_rate"], 2.0)
        self.assertEqual(parameters["mortality"], 0.5)
        self.assertEqual(parameters["age_reading"], "agenttorch")

    def test_oldest_first_vaccinates_65a_first(self):
        # Astoria's age codes are not in the order of ages (U19 is the last): only the 65A agents
        # are susceptible, and the first step's 100 doses, the size of the oldest class, are theirs.
        with open(self.path("ring.txt"), "w") as f:
            f.writelines(f"{i} {(i + 1) % 600}\n" for i in range(600))
        with open(self.path("ages.csv"), "w") as f:
            f.write("id,age_group,initial_disease_stage\n")
            f.writelines(f"{i},{AGES[i % 6]},{0 if AGES[i % 6] == '65A' else 3}\n" for i in range(600))
        with open(self.path("vaccinate.json"), "w") as f:
            json.dump({"events": [{"step": 1, "vaccinate": {"per_step": 100, "order": "oldest-first"}}]}, f)
        for ranks in [0, 2] if hf.MPIEXEC else [0]:
            self.ok(ranks, "run", "--model", "covid", "--graph", self.path("ring.txt"), "--attributes",
                    self.path("ages.csv"), "--scenario", self.path("vaccinate.json"), "--steps", "2", "--quiet",
                    "--csv", self.path("v.csv"))
            header, rows = counts(self.path("v.csv"))
            self.assertEqual(header, ["step", "S", "E", "I", "R", "D"])
            self.assertEqual([row[1] for row in rows], [100, 0, 0], f"susceptible on {ranks} ranks")

    def test_ages_drawn_when_no_population_is_given(self):
        self.ok(0, "run", "--model", "covid", "--graph", "erdos-renyi", "--agents", "20000", "--mean-degree", "4",
                "--steps", "25", "--initial-infected", "30", "--transmission-rate", "10", "--quiet", "--csv",
                self.path("g.csv"))
        _, rows = counts(self.path("g.csv"))
        self.assertEqual(rows[0][1:], [19970, 30, 0, 0, 0])
        self.assertGreater(rows[-1][4] + rows[-1][5], 30)

    @unittest.skipUnless(len(sys.argv) > 2, "herd was built without MPI")
    def test_same_results_on_1_to_3_ranks(self):
        self.write_population()
        one = self.covid("--steps", "30", "--transmission-rate", "12")
        partitions = [p for p in ("contiguous", "metis", "ptscotch") if p in hf.partitioners()]
        for partition in partitions:
            for ranks in [2, 3]:
                with self.subTest(partition=partition, ranks=ranks):
                    extra = ["--steps", "30", "--transmission-rate", "12", "--partition", partition]
                    self.assertEqual(self.covid(*extra, "--json", self.path("many.json"), ranks=ranks,
                                                csv_name="many.csv"), one)
                    # In contiguous blocks each rank reads its part of the edges and of the table,
                    # and no rank partitions the whole graph.
                    with open(self.path("many.json")) as f:
                        setup = [r["setup"] for r in json.load(f)["ranks"]]
                    for phases in setup:
                        self.assertEqual(phases["partition_seconds"] == 0, partition == "contiguous", phases)
                    # Every rank steps its active agents only: still the same run.
                    self.assertEqual(self.covid(*extra, "--stepping", "active", ranks=ranks, csv_name="active.csv"),
                                     one)
        # A table of ids alone says no agent's age: refused as a table without the column is, by
        # parts as by one process (its ages were drawn at random).
        with open(self.path("ids.csv"), "w") as f:
            f.write("agent_id\n" + "".join(f"{i}\n" for i in reversed(range(3010)) if i != 5))
        for ranks in (0, 2):
            with self.subTest(ids_alone_on_ranks=ranks):
                result = hf.herd(ranks, "run", "--model", "covid", "--graph", self.path("edges.csv"), "--directed",
                                 "--transpose", "--attributes", self.path("ids.csv"), "--steps", "10", "--quiet",
                                 "--csv", self.path(f"ids-{ranks}.csv"))
                self.assertEqual(result.returncode, 1, result.stderr)
                self.assertIn(self.path("ids.csv") + ": no column age_group", result.stderr)
                self.assertFalse(os.path.exists(self.path(f"ids-{ranks}.csv")))

    @unittest.skipUnless(os.environ.get("HERD_HAS_HDF5") == "1", "herd was built without HDF5")
    def test_resume_takes_the_attributes_by_their_bytes(self):
        self.write_population()
        full = self.covid("--steps", "30", "--transmission-rate", "12")
        self.covid("--steps", "12", "--transmission-rate", "12", "--checkpoint", self.path("c.h5"), csv_name="c.csv")
        # Moved, the table is taken under its new name: the uninterrupted run's counts.
        os.rename(self.path("agents.csv"), self.path("moved.csv"))
        resume = ["resume", self.path("c.h5"), "--steps", "30", "--quiet", "--csv", self.path("resumed.csv")]
        result = hf.herd(0, *resume)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("the --attributes file the checkpoint's run read, is gone", result.stderr)
        self.ok(0, *resume, "--attributes", self.path("moved.csv"))
        self.assertEqual(read(self.path("resumed.csv")), full)
        # One agent's age group changed in place: the same graph and agents, other ages from the
        # checkpoint on. The run is refused, not continued with them.
        with open(self.path("moved.csv")) as f:
            lines = f.read().splitlines(keepends=True)
        row = lines[1].split(",")
        row[1] = "65A" if row[1] != "65A" else "U19"
        lines[1] = ",".join(row)
        with open(self.path("moved.csv"), "w") as f:
            f.write("".join(lines))
        os.remove(self.path("resumed.csv"))
        for ranks in (0, 2) if len(sys.argv) > 2 else (0,):
            result = hf.herd(ranks, *resume, "--attributes", self.path("moved.csv"))
            self.assertEqual(result.returncode, 1, result.stderr)
            self.assertIn("written by a run that read another --attributes file", result.stderr)
            self.assertFalse(os.path.exists(self.path("resumed.csv")))

    @unittest.skipUnless(os.environ.get("HERD_HAS_HDF5") == "1", "herd was built without HDF5")
    def test_population_file_gives_the_same_run(self):
        self.write_population()
        one = self.covid("--steps", "30", "--transmission-rate", "12")
        self.ok(0, "convert", self.path("edges.csv"), "--directed", "--transpose", "--attributes",
                self.path("agents.csv"), "-o", self.path("pop.h5"))
        self.ok(0, "run", "--model", "covid", "--graph", self.path("pop.h5"), "--steps", "30", "--transmission-rate",
                "12", "--quiet", "--csv", self.path("h5.csv"))
        self.assertEqual(read(self.path("h5.csv")), one)
        if len(sys.argv) <= 2:
            return
        # Under mpiexec, in contiguous blocks and under PT-Scotch each rank reads its rows and,
        # once they are in place, its agents' ages and stages alone (no rank reads the whole
        # graph), and its ghosts' stages come from their owners; METIS partitions the whole graph,
        # read by every rank.
        # Infected agents in the middle and last blocks (a file from another tool: no checksum),
        # so that ghosts take stages from every rank, not only the exposed agents of the first.
        import h5py
        with h5py.File(self.path("pop.h5"), "a") as f:
            stages = f["agents/initial_disease_stage"]
            for agent in (1500, 2980, 2981, 2982):
                stages[agent] = 2
            del stages.attrs["checksum"]
        self.ok(0, "run", "--model", "covid", "--graph", self.path("pop.h5"), "--steps", "30", "--transmission-rate",
                "12", "--quiet", "--csv", self.path("h5.csv"))
        one = read(self.path("h5.csv"))
        self.assertIn("\n0,2976,20,4,0,0\n", one)
        partitions = [p for p in ("contiguous", "metis", "ptscotch") if p in hf.partitioners()]
        for partition in partitions:
            for ranks in [2, 3]:
                with self.subTest(partition=partition, ranks=ranks):
                    self.ok(ranks, "run", "--model", "covid", "--graph", self.path("pop.h5"), "--steps", "30",
                            "--transmission-rate", "12", "--quiet", "--partition", partition,
                            "--csv", self.path("many.csv"), "--json", self.path("many.json"))
                    self.assertEqual(read(self.path("many.csv")), one)
                    with open(self.path("many.json")) as f:
                        setup = [r["setup"] for r in json.load(f)["ranks"]]
                    by_blocks = partition == "contiguous"
                    for phases in setup:
                        self.assertEqual(phases["partition_seconds"] == 0, by_blocks, phases)
        # Bad age codes in the last two blocks: the agent of lowest id is named on every rank, as
        # one process names it, with exit status 1, wherever the partition put the agents.
        with h5py.File(self.path("pop.h5"), "a") as f:
            ages = f["agents/age_group"]
            ages[2999] = 99
            ages[1700] = 77
            del ages.attrs["checksum"]
        def refused(expected):
            for ranks, partition in [(0, "contiguous")] + [(3, p) for p in partitions]:
                with self.subTest(expected=expected, ranks=ranks, partition=partition):
                    result = hf.herd(ranks, "run", "--model", "covid", "--graph", self.path("pop.h5"), "--steps",
                                     "5", "--quiet", "--partition", partition, "--csv", self.path("bad.csv"))
                    self.assertEqual(result.returncode, 1, result.stderr)
                    lines = [line for line in result.stderr.splitlines() if line.startswith("herd:")]
                    self.assertEqual(len(lines), 1, result.stderr)
                    self.assertIn(expected, lines[0])
                    self.assertFalse(os.path.exists(self.path("bad.csv")))
        refused("agent 1700 has category code 77")
        # The same for stages out of range, with the ages mended.
        with h5py.File(self.path("pop.h5"), "a") as f:
            f["agents/age_group"][1700] = 0
            f["agents/age_group"][2999] = 0
            stages = f["agents/initial_disease_stage"]
            stages[2990] = 7
            stages[1600] = 9
        refused("agent 1600 has stage 9")

    @unittest.skipUnless(os.path.isfile(os.path.join(os.environ.get("HERD_ASTORIA", "-"), "astoria_agents.csv")),
                         "the Astoria data is not at hand (HERD_ASTORIA)")
    def test_astoria(self):
        data = os.environ["HERD_ASTORIA"]
        result = self.ok(0, "run", "--model", "covid", "--graph", os.path.join(data, "mobility_network_0.csv"),
                         "--directed", "--transpose", "--attributes", os.path.join(data, "astoria_agents.csv"),
                         "--steps", "21", "--csv", self.path("astoria.csv"))
        _, rows = counts(self.path("astoria.csv"))
        self.assertEqual(len(rows), 22)
        self.assertEqual(rows[0][1:], [37473, 45, 0, 0, 0])
        for row in rows:
            self.assertEqual(sum(row[1:]), 37518)
        self.assertIn("37,518 agents, 136,372 directed edges", result.stdout)
        # Every step is printed, with the time per step.
        self.assertIn("ms/step", result.stdout)
        self.assertEqual(sum(1 for line in result.stdout.splitlines() if line.strip()[:2].strip().isdigit()), 22)

    @unittest.skipUnless(os.path.isfile(os.path.join(os.environ.get("HERD_ASTORIA", "-"), "astoria_agents.csv")),
                         "the Astoria data is not at hand (HERD_ASTORIA)")
    def test_astoria_agrees_with_agenttorch_over_many_seeds(self):
        # AgentTorch's own code and an earlier Herd sample, 200 seeds each (docs/models/covid-astoria.md,
        # "Against AgentTorch's own code"): agents ever exposed, (mean, sd) at steps 5 and 21.
        references = {"AgentTorch": {5: (73.1, 4.7), 21: (521.5, 69.3)},
                      "Herd": {5: (73.4, 4.7), 21: (529.8, 64.9)}}
        data, seeds, agents = os.environ["HERD_ASTORIA"], 100, 37518

        # One launch of 100 members: each is its single run with its seed (cli.ensemble checks that),
        # and the members' seeds are as independent as seeds 1 to 100.
        out = self.path("members.csv")
        self.ok(0, "run", "--model", "covid", "--graph", os.path.join(data, "mobility_network_0.csv"),
                "--directed", "--transpose", "--attributes", os.path.join(data, "astoria_agents.csv"),
                "--age-reading", "agenttorch", "--steps", "21", "--replicates", str(seeds), "--quiet", "--csv", out)
        with open(out) as f:
            members = list(csv.DictReader(f))
        self.assertEqual(len({row["seed"] for row in members}), seeds)
        samples = [{} for _ in range(seeds)]
        for row in members:
            if int(row["step"]) in (5, 21):
                samples[int(row["member"])][int(row["step"])] = agents - int(row["S"])
        for step in (5, 21):
            values = [s[step] for s in samples]
            mean, sd = statistics.mean(values), statistics.stdev(values)
            for name, reference in references.items():
                ref_mean, ref_sd = reference[step]
                error = math.sqrt(sd**2 / seeds + ref_sd**2 / 200)
                with self.subTest(step=step, against=name):
                    self.assertLess(abs(mean - ref_mean), 4 * error, f"mean {mean:.1f} over {seeds} seeds")


if __name__ == "__main__":
    hf.configure(sys.argv)
    unittest.main(argv=sys.argv[:1])
