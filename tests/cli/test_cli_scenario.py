"""Tests of scenarios (herd run --scenario FILE): a lockdown with beta 0 stops every infection while
it lasts; every stepping mode, rank count and a resumed run give the same counts; the events'
report; an ensemble's members each run the scenario; bad files refused with one line naming the
line or the key, exit status 1 and no file written.

Usage: test_cli_scenario.py HERD [MPIEXEC [MPIEXEC FLAGS...]]"""

import csv
import json
import os
import sys
import threading
import time
import unittest

import herd_files_test as hf

BASE = ["--model", "sir", "--graph", "erdos-renyi", "--agents", "4000", "--mean-degree", "6", "--beta", "0.2",
        "--infectious-steps", "5", "--steps", "30", "--quiet"]
RUN = BASE + ["--seed", "5"]

# Every kind of event: a lockdown over steps 6-12, imports, a vaccination campaign, a period change.
EVENTS = [
    {"steps": [6, 12], "set": {"beta": 0.0}, "note": "lockdown"},
    {"step": 14, "import": 20},
    {"steps": [15, 22], "vaccinate": {"per_step": 150, "efficacy": 0.9}},
    {"step": 18, "set": {"infectious-steps": 3}},
]


def counts(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    return [{k: int(v) for k, v in row.items()} for row in rows]


class Scenario(hf.Case):
    def scenario(self, events, name="scenario.json"):
        path = self.path(name)
        with open(path, "w") as f:
            json.dump({"description": "a test", "events": events}, f)
        return path

    def run_csv(self, ranks, *extra, name="out.csv"):
        self.ok(ranks, "run", *RUN, "--scenario", self.scenario(EVENTS), "--csv", self.path(name), *extra)
        return hf.read(self.path(name))

    def test_a_lockdown_with_beta_zero_stops_every_infection(self):
        self.ok(0, "run", *RUN, "--scenario", self.scenario(EVENTS), "--csv", self.path("s.csv"), "--json",
                self.path("s.json"))
        rows = counts(self.path("s.csv"))
        for t in range(6, 13):
            self.assertEqual(rows[t]["S"], rows[5]["S"], f"step {t}")
        self.assertLess(rows[5]["S"], rows[0]["S"])
        with open(self.path("s.json")) as f:
            report = json.load(f)
        events = report["events"]
        self.assertEqual([e["name"] for e in events],
                         ["events[0].set.beta", "events[1]", "events[2]", "events[3].set.infectious-steps"])
        self.assertEqual(events[0]["reverts"], True)
        self.assertEqual(events[3]["reverts"], False)
        # The import infects at most 20 agents, and only susceptible ones: S falls by as many.
        imported = events[1]["agents"]
        self.assertEqual(len(imported), 1)
        self.assertTrue(0 < imported[0] <= 20)
        self.assertEqual(len(events[2]["agents"]), 8)
        self.assertTrue(all(0 <= a <= 150 for a in events[2]["agents"]))
        self.assertGreater(sum(events[2]["agents"]), 0)
        # Without the scenario the epidemic goes on through steps 6-12.
        self.ok(0, "run", *RUN, "--csv", self.path("plain.csv"))
        plain = counts(self.path("plain.csv"))
        self.assertLess(plain[12]["S"], plain[5]["S"])
        self.assertEqual(plain[:6], rows[:6])

    def test_every_stepping_mode_and_rank_count_agree(self):
        pulled = self.run_csv(0, "--stepping", "pull")
        for extra in (["--stepping", "active"], ["--stepping", "auto", "--threads", "2"]):
            with self.subTest(extra=extra):
                self.assertEqual(self.run_csv(0, *extra), pulled)
        if hf.MPIEXEC:
            for ranks in (2, 3):
                with self.subTest(ranks=ranks):
                    self.assertEqual(self.run_csv(ranks), pulled)

    @unittest.skipUnless(os.environ.get("HERD_HAS_HDF5") == "1", "checkpoints need HDF5")
    def test_a_resumed_run_fires_the_rest_of_the_scenario(self):
        full = self.run_csv(0, "--json", self.path("full.json"))
        ckpt = self.path("c.h5")
        scenario = self.scenario(EVENTS)
        args = [a if a != "30" else "16" for a in RUN]
        for written, resumed in [(0, 0), (2, 3)] if hf.MPIEXEC else [(0, 0)]:
            with self.subTest(written=written, resumed=resumed):
                # Step 16's checkpoint, and one of step 8 resumed to step 16, which keeps the counts
                # its checkpoint had.
                self.ok(written, "run", *args, "--scenario", scenario, "--checkpoint", ckpt, "--checkpoint-every", "5")
                self.ok(resumed, "resume", ckpt, "--steps", "30", "--csv", self.path("resumed.csv"), "--json",
                        self.path("resumed.json"))
                self.ok(written, "run", *[a if a != "30" else "8" for a in RUN], "--scenario", scenario,
                        "--checkpoint", self.path("c8.h5"))
                self.ok(resumed, "resume", self.path("c8.h5"), "--steps", "16", "--checkpoint", self.path("c8.h5"))
                self.ok(written, "resume", self.path("c8.h5"), "--steps", "30", "--json", self.path("twice.json"))
                with open(self.path("twice.json")) as f, open(self.path("full.json")) as g:
                    self.assertEqual(json.load(f)["events"], json.load(g)["events"])
                self.assertEqual(hf.read(self.path("resumed.csv")), full)
                # The agents each event changed count from step 0: the import of step 14 and the
                # doses of steps 15 and 16 came before the checkpoint.
                with open(self.path("full.json")) as f, open(self.path("resumed.json")) as g:
                    self.assertEqual(json.load(g)["events"], json.load(f)["events"])
                # Events beyond the steps, accepted when the checkpoint was written, stay accepted
                # by a resume that writes none.
                self.ok(resumed, "resume", ckpt, "--csv", self.path("resumed16.csv"))
                rows = hf.read(self.path("resumed16.csv")).splitlines()
                self.assertEqual(rows, full.splitlines()[:len(rows)])
                self.assertEqual(len(rows), 18)  # the header and steps 0 to 16

    def test_ensemble_members_each_run_the_scenario(self):
        scenario = self.scenario(EVENTS)
        self.ok(0, "run", *RUN, "--scenario", scenario, "--replicates", "2", "--stepping", "pull", "--csv",
                self.path("members.csv"))
        with open(self.path("members.csv")) as f:
            rows = list(csv.DictReader(f))
        for member, seed in [(0, 5), (1, 6)]:
            self.ok(0, "run", *BASE, "--seed", str(seed), "--graph-seed", "5", "--scenario", scenario, "--csv",
                    self.path("one.csv"))
            one = counts(self.path("one.csv"))
            mine = [r for r in rows if int(r["member"]) == member]
            self.assertEqual([int(r["S"]) for r in mine], [r["S"] for r in one], f"member {member}")
            self.assertEqual([int(r["I"]) for r in mine], [r["I"] for r in one], f"member {member}")

    def test_each_point_of_a_swept_period_takes_the_events_that_set_it(self):
        # A swept gamma makes every point's period geometric: an event may set gamma, not a fixed
        # period, and each member is the single run with its point's value.
        cut = BASE.index("--infectious-steps")
        base = BASE[:cut] + BASE[cut + 2:] + ["--seed", "5"]
        geometric = self.scenario([{"step": 10, "set": {"gamma": 0.5}}], "geometric.json")
        self.ok(0, "run", *base, "--sweep", "gamma=0.1:0.2:2", "--scenario", geometric, "--csv",
                self.path("members.csv"))
        with open(self.path("members.csv")) as f:
            rows = list(csv.DictReader(f))
        for member, gamma in [(0, "0.1"), (1, "0.2")]:
            self.ok(0, "run", *base, "--gamma", gamma, "--scenario", geometric, "--csv", self.path("one.csv"))
            one = counts(self.path("one.csv"))
            mine = [r for r in rows if int(r["member"]) == member]
            self.assertEqual([(int(r["S"]), int(r["I"])) for r in mine], [(r["S"], r["I"]) for r in one],
                             f"member {member}")
        fixed = self.scenario([{"step": 10, "set": {"infectious-steps": 3}}], "fixed.json")
        result = hf.herd(0, "run", *base, "--sweep", "gamma=0.1:0.2:2", "--scenario", fixed, "--csv",
                         self.path("refused.csv"))
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn("events[0].set.infectious-steps: the period is geometric", result.stderr)
        self.assertFalse(os.path.exists(self.path("refused.csv")))
        # An event that no point takes is not named by a point.
        self.assertNotIn("--sweep point", result.stderr)
        result = hf.herd(0, "run", "--model", "voter", "--graph", "erdos-renyi", "--agents", "500", "--steps", "12",
                         "--quiet", "--sweep", "initial-share=0.1:0.2:2", "--scenario", fixed)
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn("the model has no parameters to set", result.stderr)
        self.assertNotIn("--sweep point", result.stderr)

    def test_covid_vaccinates_the_oldest_first_the_same_in_every_mode(self):
        scenario = self.scenario([
            {"steps": [5, 9], "set": {"transmission-rate": 0.5}},
            {"step": 10, "import": 8},
            {"steps": [11, 16], "vaccinate": {"per_step": 300, "efficacy": 0.9, "order": "oldest-first"}},
            {"step": 12, "set": {"mortality": 0.3}},
        ])
        args = ["--model", "covid", "--graph", "erdos-renyi", "--agents", "4000", "--mean-degree", "6", "--steps",
                "20", "--quiet", "--scenario", scenario]
        self.ok(0, "run", *args, "--stepping", "pull", "--csv", self.path("pull.csv"), "--json", self.path("c.json"))
        self.ok(0, "run", *args, "--stepping", "active", "--csv", self.path("active.csv"))
        self.assertEqual(hf.read(self.path("active.csv")), hf.read(self.path("pull.csv")))
        if hf.MPIEXEC:  # the classes counted over the ranks
            self.ok(3, "run", *args, "--csv", self.path("ranks.csv"))
            self.assertEqual(hf.read(self.path("ranks.csv")), hf.read(self.path("pull.csv")))
        with open(self.path("c.json")) as f:
            events = json.load(f)["events"]
        self.assertEqual(len(events[2]["agents"]), 6)
        self.assertGreater(sum(events[2]["agents"]), 0)

    def test_layer_events_scale_the_populations_layers(self):
        population = ["--model", "sir", "--graph", "population", "--agents", "20000", "--beta", "0.3",
                      "--infectious-steps", "5", "--steps", "40", "--quiet"]
        closed = self.scenario([{"steps": [1, 40], "layers": {"school": 0, "workplace": 0, "community": 0}}],
                               "closed.json")
        self.ok(0, "run", *population, "--scenario", closed, "--csv", self.path("closed.csv"))
        self.ok(0, "run", *population, "--csv", self.path("open.csv"))
        # Only households transmit: far fewer infections than with every layer open.
        self.assertLess(20000 - counts(self.path("closed.csv"))[-1]["S"],
                        (20000 - counts(self.path("open.csv"))[-1]["S"]) / 4)
        week = self.scenario([{"steps": [1, 40], "layers": {"school": 0, "workplace": 0.5}, "days": [6, 7]},
                              {"steps": [10, 25], "layers": {"community": 0.2}, "note": "lockdown"}], "week.json")
        self.ok(0, "run", *population, "--scenario", week, "--stepping", "pull", "--csv", self.path("week.csv"),
                "--json", self.path("report.json"))
        with open(self.path("report.json")) as f:
            events = json.load(f)["events"]
        self.assertEqual(events[0]["kind"], "layer")
        self.assertEqual(events[0]["layers"], {"school": 0, "workplace": 0.5})
        self.assertEqual((events[0]["cycle"], events[0]["days"]), (7, [6, 7]))
        self.assertEqual(events[1]["layers"], {"community": 0.2})
        pulled = hf.read(self.path("week.csv"))
        self.ok(0, "run", *population, "--scenario", week, "--stepping", "active", "--csv", self.path("active.csv"))
        self.assertEqual(hf.read(self.path("active.csv")), pulled)
        if hf.MPIEXEC:
            self.ok(3, "run", *population, "--scenario", week, "--csv", self.path("ranks.csv"))
            self.assertEqual(hf.read(self.path("ranks.csv")), pulled)
        if os.environ.get("HERD_HAS_HDF5") == "1":
            # A population file keeps the layers and their names; a checkpoint resumes the schedule.
            self.ok(0, "convert", "--graph", "population", "--agents", "20000", "--output", self.path("pop.h5"))
            from_file = [a if a != "population" else self.path("pop.h5") for a in population]
            del from_file[from_file.index("--agents"):from_file.index("--agents") + 2]  # the file's own
            self.ok(0, "run", *from_file, "--scenario", week, "--csv", self.path("file.csv"))
            self.assertEqual(hf.read(self.path("file.csv")), pulled)
            args = [a if a != "40" else "17" for a in population]
            self.ok(0, "run", *args, "--scenario", week, "--checkpoint", self.path("c.h5"))
            self.ok(0, "resume", self.path("c.h5"), "--steps", "40", "--csv", self.path("resumed.csv"))
            self.assertEqual(hf.read(self.path("resumed.csv")), pulled)
        bad = self.scenario([{"step": 2, "layers": {"schools": 0}}], "bad.json")
        result = hf.herd(0, "run", *population, "--scenario", bad)
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)
        self.assertIn("events[0]: unknown layer 'schools' (the graph's layers: household, school, workplace, "
                      "community)", result.stderr)

    @unittest.skipUnless(os.environ.get("HERD_HAS_HDF5") == "1", "checkpoints need HDF5")
    def test_a_scenario_is_read_once_and_known_by_its_bytes(self):
        full = self.run_csv(0)
        text = json.dumps({"description": "a test", "events": EVENTS})
        # A pipe gives its bytes once: the events, and the fingerprint the checkpoint keeps, come
        # from them, on every rank.
        args = [a if a != "30" else "16" for a in RUN]
        for ranks in (0, 2) if hf.MPIEXEC else (0,):
            with self.subTest(ranks=ranks):
                fifo = self.path(f"events{ranks}.fifo")
                os.mkfifo(fifo)

                def write():
                    with open(fifo, "w") as f:
                        f.write(text)

                writer = threading.Thread(target=write, daemon=True)
                writer.start()
                self.ok(ranks, "run", *args, "--scenario", fifo, "--checkpoint", self.path(f"c{ranks}.h5"))
                writer.join()
        # Moved with its checkpoint, the same bytes under another name resume the run.
        moved = self.path("moved")
        os.mkdir(moved)
        with open(os.path.join(moved, "s.json"), "w") as f:
            f.write(text)
        os.rename(self.path("c0.h5"), os.path.join(moved, "c.h5"))
        self.ok(0, "resume", "c.h5", "--scenario", "s.json", "--steps", "30", "--csv", "resumed.csv", cwd=moved)
        self.assertEqual(hf.read(os.path.join(moved, "resumed.csv")), full)
        if hf.MPIEXEC:
            self.ok(3, "resume", self.path("c2.h5"), "--scenario", os.path.join(moved, "s.json"), "--steps", "30",
                    "--csv", self.path("resumed2.csv"))
            self.assertEqual(hf.read(self.path("resumed2.csv")), full)
        # Gone from the path its run read it by, it is named with the option that gives it anew; a
        # path given anew that names nothing is refused; a pipe given anew serves.
        os.remove(self.path("events0.fifo"))
        for anew, says in [([], self.path("events0.fifo") + ", the --scenario file the checkpoint's run read, is "
                             "gone: give it anew with --scenario FILE"),
                           (["--scenario", "none.json"], "resume: --scenario none.json: no such file")]:
            for ranks in (0, 2) if hf.MPIEXEC else (0,):
                with self.subTest(anew=anew, ranks=ranks):
                    result = hf.herd(ranks, "resume", "c.h5", *anew, "--steps", "30", "--csv", "gone.csv",
                                     cwd=moved)
                    self.assertEqual(result.returncode, 2, result.stderr)
                    errors = [line for line in result.stderr.splitlines() if line.startswith("herd:")]
                    self.assertEqual(len(errors), 1, result.stderr)
                    self.assertIn(says, errors[0])
                    self.assertFalse(os.path.exists(os.path.join(moved, "gone.csv")))
        fifo = self.path("anew.fifo")
        os.mkfifo(fifo)
        writer = threading.Thread(target=lambda: open(fifo, "w").write(text), daemon=True)
        writer.start()
        self.ok(0, "resume", "c.h5", "--scenario", fifo, "--steps", "30", "--csv", "piped.csv", cwd=moved)
        writer.join()
        self.assertEqual(hf.read(os.path.join(moved, "piped.csv")), full)
        # Other bytes, under any name, are refused; so is a scenario given to a run that had none.
        other = self.scenario(EVENTS[:-1], "other.json")
        result = hf.herd(0, "resume", os.path.join(moved, "c.h5"), "--scenario", other, "--steps", "30")
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn("written by a run of another scenario: " + other + " is not the file it ran", result.stderr)
        self.ok(0, "run", *args, "--checkpoint", self.path("plain.h5"))
        result = hf.herd(0, "resume", self.path("plain.h5"), "--scenario", other, "--steps", "30")
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("the checkpoint's run was not given it", result.stderr)

    def test_isolation_closes_contacts_and_resumes(self):
        population = ["--model", "seir", "--graph", "population", "--agents", "20000", "--beta", "0.3",
                      "--infectious-steps", "6", "--steps", "40", "--quiet"]
        strict = self.scenario([{"steps": [1, 40], "isolate": {"probability": 0.6, "duration": 7}}], "strict.json")
        self.ok(0, "run", *population, "--scenario", strict, "--stepping", "pull", "--csv", self.path("iso.csv"),
                "--json", self.path("report.json"))
        self.ok(0, "run", *population, "--csv", self.path("open.csv"))
        # Most infectious agents isolated at once, keeping their households: fewer infections.
        self.assertLess(20000 - counts(self.path("iso.csv"))[-1]["S"],
                        (20000 - counts(self.path("open.csv"))[-1]["S"]) / 2)
        with open(self.path("report.json")) as f:
            event = json.load(f)["events"][0]
        self.assertEqual((event["kind"], event["probability"], event["duration"], event["keeps"]),
                         ("isolate", 0.6, 7, ["household"]))
        self.assertEqual(len(event["agents"]), 40)
        self.assertGreater(sum(event["agents"]), 10)
        pulled = hf.read(self.path("iso.csv"))
        self.ok(0, "run", *population, "--scenario", strict, "--stepping", "active", "--csv", self.path("active.csv"))
        self.assertEqual(hf.read(self.path("active.csv")), pulled)
        if hf.MPIEXEC:
            self.ok(3, "run", *population, "--scenario", strict, "--csv", self.path("ranks.csv"))
            self.assertEqual(hf.read(self.path("ranks.csv")), pulled)
        if os.environ.get("HERD_HAS_HDF5") == "1":
            # A checkpoint holds every agent's timer: the resumed run closes the same contacts.
            args = [a if a != "40" else "17" for a in population]
            self.ok(0, "run", *args, "--scenario", strict, "--checkpoint", self.path("c.h5"))
            self.ok(0, "resume", self.path("c.h5"), "--steps", "40", "--csv", self.path("resumed.csv"))
            self.assertEqual(hf.read(self.path("resumed.csv")), pulled)
            if hf.MPIEXEC:
                self.ok(2, "resume", self.path("c.h5"), "--steps", "40", "--csv", self.path("resumed2.csv"))
                self.assertEqual(hf.read(self.path("resumed2.csv")), pulled)
            # The checkpoint keeps a fingerprint of the scenario file: a changed file is refused.
            self.scenario([{"steps": [1, 40], "isolate": {"probability": 0.5, "duration": 7}}], "strict.json")
            result = hf.herd(0, "resume", self.path("c.h5"), "--steps", "40", "--csv", self.path("changed.csv"))
            self.assertEqual(result.returncode, 1, result.stderr)
            self.assertIn("written by a run of another scenario: " + strict + " is not the file it ran, or changed since",
                          result.stderr)
            self.assertFalse(os.path.exists(self.path("changed.csv")))
        bad = self.scenario([{"step": 2, "isolate": {"probability": 0.5, "duration": 3, "keeps": ["home"]}}],
                            "bad.json")
        result = hf.herd(0, "run", *population, "--scenario", bad)
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)
        self.assertIn("events[0]: unknown layer 'home'", result.stderr)

    def test_an_edge_lists_layers_are_named_in_its_fourth_column(self):
        # Households of 4 with every pair in contact, and random community contacts.
        import random
        rng = random.Random(3)
        path = self.path("layered.txt")
        with open(path, "w") as f:
            f.write("# agent agent weight layer\n")
            for h in range(0, 4000, 4):
                for a in range(h, h + 4):
                    for b in range(a + 1, h + 4):
                        f.write(f"{a} {b} 1 household\n")
            for _ in range(12000):
                f.write(f"{rng.randrange(4000)}\t{rng.randrange(4000)}\t1\tcommunity\n")
        run = ["--model", "sir", "--graph", path, "--beta", "0.3", "--infectious-steps", "5", "--steps", "30",
               "--initial-infected", "10", "--quiet"]
        closed = self.scenario([{"steps": [1, 30], "layers": {"community": 0}}], "closed.json")
        self.ok(0, "run", *run, "--scenario", closed, "--csv", self.path("closed.csv"))
        self.ok(0, "run", *run, "--csv", self.path("open.csv"))
        # Only households transmit: at most the 10 seeds' households of 4 are ever infected.
        self.assertLessEqual(4000 - counts(self.path("closed.csv"))[-1]["S"], 40)
        self.assertGreater(4000 - counts(self.path("open.csv"))[-1]["S"], 400)
        isolate = self.scenario([{"steps": [1, 30], "isolate": {"probability": 0.5, "duration": 4}},
                                 {"steps": [5, 20], "layers": {"community": 0.5}}], "isolate.json")
        self.ok(0, "run", *run, "--scenario", isolate, "--stepping", "pull", "--csv", self.path("pull.csv"),
                "--json", self.path("report.json"))
        with open(self.path("report.json")) as f:
            self.assertEqual(json.load(f)["events"][0]["keeps"], ["household"])
        # Without "keeps", an isolation keeps the household the file names, as one that says so.
        both = self.scenario([{"steps": [1, 10], "isolate": {"probability": 0.5, "duration": 4}},
                              {"steps": [11, 30], "isolate": {"probability": 0.3, "duration": 4,
                                                              "keeps": ["household"]}}], "both.json")
        self.ok(0, "run", *run, "--scenario", both)
        pulled = hf.read(self.path("pull.csv"))
        self.ok(0, "run", *run, "--scenario", isolate, "--stepping", "active", "--csv", self.path("active.csv"))
        self.assertEqual(hf.read(self.path("active.csv")), pulled)
        if hf.MPIEXEC:
            # Each rank reads its lines: the layers are numbered by all ranks' names alike.
            self.ok(3, "run", *run, "--scenario", isolate, "--csv", self.path("ranks.csv"))
            self.assertEqual(hf.read(self.path("ranks.csv")), pulled)
        if os.environ.get("HERD_HAS_HDF5") == "1":
            self.ok(0, "convert", "--graph", path, "--output", self.path("layered.h5"))
            from_file = [a if a != path else self.path("layered.h5") for a in run]
            self.ok(0, "run", *from_file, "--scenario", isolate, "--stepping", "pull", "--csv", self.path("file.csv"))
            self.assertEqual(hf.read(self.path("file.csv")), pulled)
        # The layers are known once the file is read: an unknown one is refused then, on one line.
        bad = self.scenario([{"step": 2, "layers": {"school": 0}}], "bad.json")
        for ranks in [0, 2] if hf.MPIEXEC else [0]:
            result = hf.herd(ranks, "run", *run, "--scenario", bad, "--csv", self.path("bad.csv"))
            self.assertEqual(result.returncode, 1, result.stderr)
            # mpiexec adds lines of its own.
            lines = [line for line in result.stderr.splitlines() if line.startswith("herd:")]
            self.assertEqual(len(lines), 1, result.stderr)
            self.assertIn("events[0]: unknown layer 'school' (the graph's layers: community, household)",
                          result.stderr)
            self.assertFalse(os.path.exists(self.path("bad.csv")))

    def test_the_example_scenarios_run(self):
        examples = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "scenarios")
        for name in sorted(os.listdir(examples)):
            with self.subTest(example=name):
                self.ok(0, "run", "--model", "seir", "--graph", "population", "--agents", "5000", "--steps", "200",
                        "--quiet", "--scenario", os.path.join(examples, name))

    def test_sets_on_steps_apart_each_take_their_value_and_give_it_back(self):
        # Two ranges that meet, a single step after a range, another parameter inside one, a range
        # strictly inside another, and a single step on a range's first step before it: the same
        # series as the changes given step by step.
        ranges = self.scenario([{"steps": [2, 4], "set": {"beta": 0.01}}, {"steps": [5, 8], "set": {"beta": 0.2}},
                                {"step": 9, "set": {"beta": 0.05}}, {"steps": [3, 6], "set": {"infectious-steps": 2}},
                                {"steps": [12, 20], "set": {"beta": 0.1}}, {"steps": [14, 16], "set": {"beta": 0.3}},
                                {"step": 22, "set": {"infectious-steps": 3}},
                                {"steps": [22, 25], "set": {"infectious-steps": 4}}])
        steps = self.scenario([{"step": 2, "set": {"beta": 0.01}}, {"step": 5, "set": {"beta": 0.2}},
                               {"step": 9, "set": {"beta": 0.05}}, {"step": 3, "set": {"infectious-steps": 2}},
                               {"step": 7, "set": {"infectious-steps": 5}}, {"step": 12, "set": {"beta": 0.1}},
                               {"step": 14, "set": {"beta": 0.3}}, {"step": 17, "set": {"beta": 0.1}},
                               {"step": 21, "set": {"beta": 0.05}}, {"step": 22, "set": {"infectious-steps": 4}},
                               {"step": 26, "set": {"infectious-steps": 3}}])
        series = []
        for path in (ranges, steps):
            out = self.path("series.csv")
            hf.herd(0, "run", *RUN, "--scenario", path, "--csv", out)
            series.append(hf.read(out))
        self.assertEqual(series[0], series[1])

    def test_many_events_are_read_in_time_proportional_to_their_number(self):
        # The callback parser looked through the whole list of events at the end of each, twice
        # (the file is checked, then run): 10^5 events took seconds, a file near the 64 MiB limit
        # would have taken an hour. Timed against a file a tenth as long, run alike: not a speed,
        # an order of growth (the run itself goes through every event every step).
        def seconds(events):
            path = self.path(f"many-{events}.json")
            with open(path, "w") as f:
                json.dump({"events": [{"step": k % 30 + 1, "set": {"beta": 0.01 * (k % 7 + 1)}} for k in range(events)]},
                          f)
            start = time.monotonic()
            result = hf.herd(0, "run", "--model", "sir", "--graph", "erdos-renyi", "--agents", "2000", "--steps", "30",
                             "--quiet", "--scenario", path)
            self.assertEqual(result.returncode, 0, result.stderr)
            return time.monotonic() - start

        small, large = seconds(30000), seconds(300000)
        self.assertLess(large, 12 * small + 1.0, f"3·10^4 events: {small:.2f} s, 3·10^5: {large:.2f} s")

    def test_the_events_counts_fit_the_memory_budget_and_later_events_say_so(self):
        # A count per event and step: 10^4 events over 10^4 steps hold 1.6 GB, refused in advance.
        path = self.path("wide.json")
        with open(path, "w") as f:
            json.dump({"events": [{"step": k % 30 + 1, "import": 1} for k in range(10000)]}, f)
        result = hf.herd(0, "run", *BASE[:-3], "--steps", "10000", "--quiet", "--scenario", path, "--max-memory",
                         "500M", "--csv", self.path("wide.csv"))
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)
        self.assertIn("wide.json: the counts of its 10000 events over 10000 steps need", result.stderr)
        self.assertFalse(os.path.exists(self.path("wide.csv")))
        # An event after the last step of a run that writes a checkpoint did nothing: it says so,
        # not "0 agents infected".
        if os.environ.get("HERD_HAS_HDF5") != "1":
            return
        later = self.scenario([{"step": 14, "import": 20}, {"steps": [35, 38], "import": 5}], name="later.json")
        shown = [arg for arg in RUN if arg != "--quiet"]
        result = hf.herd(0, "run", *shown, "--scenario", later, "--checkpoint", self.path("later.h5"))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertRegex(result.stdout, r"events\[0\], step 14: [0-9]+ agents infected")
        self.assertIn("events[1], steps 35-38: after the run's last step, 30", result.stdout)

    def test_bad_files_are_refused_with_one_line_and_nothing_written(self):
        cases = [
            ('{"events": [{"step": 3, "set": {"beta": 0.1}},]}', "line 1, column"),
            ('{"events": [\n  {"step": 3, "set": {"beta": 0.1}}\n  {"step": 4, "import": 2}\n]}', "line 3"),
            ('{"events": [{"step": 1e400, "import": 2}]}', "events[0].step: number overflow parsing '1e400'"),
            ('{"events": [{"step": 3, "set": {"beta": 0.1, "beta": 0.9}}]}',
             'events[0].set: the key "beta" is given twice'),
            ('{"events": [], "events": [{"step": 3, "import": 2}]}', 'the scenario: the key "events" is given twice'),
            ('{"events": ' + "[" * 40 + "]" * 40 + "}", "nested deeper than 32 levels"),
            ([{"step": 3, "set": {"omega": 0.1}}], "events[0].set.omega: no parameter 'omega'"),
            ([{"step": 3, "set": {"gamma": 0.1}}], "events[0].set.gamma: the period is fixed"),
            ([{"step": 3, "set": {"beta": 1.5}}], "events[0].set.beta: beta must lie in [0, 1]"),
            ([{"step": 3, "set": {"beta": "high"}}], "events[0].set.beta: expected a number"),
            ([{"steps": [20, 31], "import": 2}], "events[0].steps[1]: step 31 lies beyond the run's 30 steps"),
            ([{"steps": [9, 4], "import": 2}], "events[0].steps: the first step comes after the last"),
            ([{"step": 0, "import": 2}], "events[0].step: expected a whole number from 1"),
            ([{"step": 3, "import": -5}], "events[0].import: expected a whole number from 0"),
            ([{"step": 3, "import": 5000}], "events[0]: 5000 agents a step, of 4000"),
            ([{"step": 3, "vaccinate": {"per_step": 10, "efficacy": -0.5}}],
             "events[0].vaccinate.efficacy: expected a number in [0, 1]"),
            ([{"step": 3, "vaccinate": {"rate": 10}}], "events[0].vaccinate: unknown key \"rate\""),
            ([{"step": 3}], "events[0]: give one of"),
            ([{"step": 3, "vaccinate": {"per_step": 10, "order": "eldest"}}],
             "events[0].vaccinate.order: expected \"random\" or \"oldest-first\""),
            ([{"step": 3, "vaccinate": {"per_step": 10, "order": "oldest-first"}}],
             "events[0]: the order oldest-first needs agents' ages, which sir does not keep"),
            ([{"step": 3, "closes": "school"}], "events[0]: unknown key \"closes\""),
            ([{"step": 3, "layers": {"school": 0}}], "events[0]: unknown layer 'school' (the graph has no layers)"),
            ([{"step": 3, "layers": {"school": -1}}], "events[0].layers.school: expected a factor >= 0"),
            ([{"step": 3, "import": 2, "days": [1]}], "events[0]: \"days\" and \"cycle\" belong to \"layers\" events"),
            ([{"steps": [1, 9], "layers": {"school": 0}, "days": [8]}],
             "events[0].days[0]: expected a whole number from 1 to 7"),
            ([{"step": 3, "isolate": {"probability": 0.5, "duration": 3}}],
             "events[0]: isolation closes contacts by their layer, and the graph has no layers"),
            ([{"step": 3, "isolate": {"probability": 1.5, "duration": 3}}],
             "events[0].isolate.probability: expected a number in [0, 1]"),
            ([{"step": 3, "isolate": {"probability": 0.5, "duration": 0}}],
             "events[0].isolate.duration: expected a whole number from 1 to 32767"),
            ([{"step": 3, "isolate": {"probability": 0.5}}], "events[0].isolate: \"duration\" is missing"),
            ([{"step": 3, "isolate": {"probability": 0.5, "duration": 2, "for": 3}}],
             "events[0].isolate: unknown key \"for\""),
            # A range gives its parameter back its earlier value, which would undo a set inside it.
            ([{"steps": [2, 5], "set": {"beta": 0.1}}, {"steps": [3, 8], "set": {"beta": 0.3}}],
             "events[1].set.beta sets beta on steps 3-8, overlapping steps 2-5 of events[0].set.beta"),
            ([{"steps": [2, 5], "set": {"beta": 0.1}}, {"steps": [2, 4], "set": {"beta": 0.3}}],
             "events[1].set.beta sets beta on steps 2-4, overlapping steps 2-5 of events[0].set.beta"),
            ([{"step": 4, "set": {"beta": 0.3}}, {"steps": [2, 5], "set": {"beta": 0.1}}],
             "events[0].set.beta sets beta on step 4, inside steps 2-5 of events[1].set.beta"),
            ([{"steps": [6, 9], "set": {"beta": 0.1}}, {"step": 6, "set": {"beta": 0.2}}],
             "events[1].set.beta sets beta on step 6, inside steps 6-9"),
            # The message would have ended at the NUL.
            ('{"events": [{"step": 3, "set": {"beta\\u0000x": 0.1}}]}',
             'events[0].set: the key "beta\\u0000x" holds a control character'),
            (b'{"events": [{"step": "\xff"}]}', "last read: '\"\\xff'"),
            # Whole numbers are compared as integers: through a double, 2^53 + 1 passed as 2^53.
            ([{"step": 3, "import": 9007199254740993}], "events[0].import: expected a whole number from 0 to 9007199254740992"),
            ([{"step": 3, "vaccinate": {"per_step": 18446744073709551615}}],
             "events[0].vaccinate.per_step: expected a whole number from 0 to 9007199254740992"),
            ('{"events": [{"step": 3, "isolate": {"probability": 1, "duration": 2, "keeps": ["house\\u0000hold"]}}]}',
             'events[0].isolate.keeps[0]: "house\\u0000hold" holds a control character'),
            ([{"step": 3, "import": 2, "note": 42}], "events[0].note: expected free text, got 42"),
            ('{"description": {"a": 1}, "events": []}', 'description: expected free text, got {"a":1}'),
        ]
        for text, says in cases:
            with self.subTest(says=says):
                path = self.path("bad.json")
                with open(path, "wb") as f:
                    f.write(text if isinstance(text, bytes) else
                            (text if isinstance(text, str) else json.dumps({"events": text})).encode())
                out = self.path("out.csv")
                result = hf.herd(0, "run", *RUN, "--scenario", path, "--csv", out, "--json", self.path("out.json"))
                self.assertEqual(result.returncode, 1, result.stderr)
                lines = result.stderr.strip().splitlines()
                self.assertEqual(len(lines), 1, result.stderr)
                self.assertIn(path, lines[0])
                self.assertIn(says, lines[0])
                self.assertFalse(os.path.exists(out))
                self.assertFalse(os.path.exists(self.path("out.json")))
        result = hf.herd(0, "run", *RUN, "--scenario", self.path("missing.json"))
        self.assertEqual(result.returncode, 1)
        self.assertIn("missing.json: cannot open the scenario file", result.stderr)
        if hf.MPIEXEC:
            # Read by one rank, refused on every rank with the line one process gives.
            ranks = hf.herd(3, "run", *RUN, "--scenario", self.path("missing.json"))
            self.assertEqual(ranks.returncode, 1)
            self.assertEqual([line for line in ranks.stderr.splitlines() if line.startswith("herd:")],
                             result.stderr.strip().splitlines())
        # A folder, and a device that is no text.
        result = hf.herd(0, "run", *RUN, "--scenario", self.dir.name)
        self.assertEqual(result.returncode, 1)
        self.assertIn("is a directory, not a scenario file", result.stderr)
        result = hf.herd(0, "run", *RUN, "--scenario", "/dev/zero")
        self.assertEqual(result.returncode, 1)
        self.assertIn("/dev/zero:1: a NUL byte: not a text file", result.stderr)
        # JSON may stand on one line longer than a text line may be; ranks receive it whole, up to 64 MiB.
        long_line = self.path("long.json")
        with open(long_line, "w") as f:
            f.write(json.dumps({"description": "x" * (3 << 20), "events": [{"step": 3, "set": {"beta": 0.1}}]}))
        self.assertEqual(hf.herd(0, "run", *RUN, "--scenario", long_line).returncode, 0)
        with open(long_line, "w") as f:
            f.write(json.dumps({"description": "x" * (65 << 20), "events": []}))
        result = hf.herd(0, "run", *RUN, "--scenario", long_line)
        self.assertEqual(result.returncode, 1)
        self.assertIn("long.json: is larger than 64 MiB: not a scenario file", result.stderr)
        # A model without parameters to set or infections to import.
        path = self.scenario([{"step": 3, "import": 5}])
        result = hf.herd(0, "run", "--model", "voter", "--graph", "erdos-renyi", "--agents", "4000", "--steps", "30",
                         "--quiet", "--scenario", path)
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn("events[0]: the model has no infections to import", result.stderr)


if __name__ == "__main__":
    hf.configure(sys.argv)
    unittest.main(argv=sys.argv[:1], verbosity=2)
