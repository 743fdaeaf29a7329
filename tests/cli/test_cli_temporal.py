"""Tests of temporal networks (herd run --graph CONTACTS --window W): with beta 1 and agents
infectious for longer than the run, each agent is infected exactly at the step when the first
time-respecting path from the first infected reaches it, one hop per window, as a plain pass over the
contacts in time order computes here; on a generated file and on a SocioPatterns file (when
../shared/data is there). Resumed runs, ensemble members and runs on 2 to 4 ranks under every
partitioner give the single run's counts. Bad files and options: one line, exit status 1 (2 for a usage error).

Usage: test_cli_temporal.py HERD [MPIEXEC [MPIEXEC FLAGS...]]"""

import json
import os
import random
import subprocess
import sys
import unittest

import herd_files_test as hf

SOCIOPATTERNS = os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "data", "sociopatterns",
                             "tij_PS09.dat")


def read_contacts(path):
    """(t, i, j) per contact line, ids as in the file."""
    contacts = []
    with open(path) as f:
        for line in f:
            fields = line.replace(",", " ").split()
            if fields and not fields[0].startswith(("#", "%")):
                contacts.append((int(fields[0]), int(fields[1]), int(fields[2])))
    return contacts


def arrival_steps(contacts, window, seeds, steps, after_last):
    """The step at which each agent (by file id) is first infected: 0 for the seeds; an agent that
    meets an infected one in window w is infected at step w + 1 and spreads from the next window."""
    start = min(t for t, _, _ in contacts)
    windows = (max(t for t, _, _ in contacts) - start) // window + 1
    pairs = [[] for _ in range(windows)]
    for t, i, j in contacts:
        if i != j:
            pairs[(t - start) // window].append((i, j))
    arrival = {s: 0 for s in seeds}
    for step in range(1, steps + 1):
        w = step - 1
        if w >= windows:
            if after_last == "stop":
                break
            w %= windows
        infected_before = set(arrival)
        for i, j in pairs[w]:
            if i in infected_before and j not in arrival:
                arrival[j] = step
            if j in infected_before and i not in arrival:
                arrival[i] = step
    return arrival


class Temporal(hf.Case):
    def arrivals(self, contacts_path, window, steps, after_last="loop", *extra):
        """herd's step of infection per agent (by file id), from the timers it leaves: a fixed
        period counts down one a step from its start, so the seeds hold the lowest."""
        import h5py
        period = steps + 5
        out = self.path("out.h5")
        self.ok(0, "run", "--model", "sir", "--graph", contacts_path, "--window", str(window), "--after-last",
                after_last, "--beta", "1", "--infectious-steps", str(period), "--initial-infected", "4", "--steps",
                str(steps), "--seed", "3", "--output", out, "--quiet", *extra)
        with h5py.File(out, "r") as f:
            state = f["agents/state"][...]
            timer = f["agents/timer"][...]
        ids = sorted({i for _, a, b in read_contacts(contacts_path) for i in (a, b)})
        self.assertEqual(len(ids), len(state))
        infected = [k for k in range(len(state)) if state[k] != 0]
        first = min(int(timer[k]) for k in infected)
        return {ids[k]: int(timer[k]) - first for k in infected}

    def check(self, contacts_path, window, steps, after_last="loop"):
        herd = self.arrivals(contacts_path, window, steps, after_last)
        seeds = [i for i, s in herd.items() if s == 0]
        self.assertEqual(len(seeds), 4)
        expected = arrival_steps(read_contacts(contacts_path), window, seeds, steps, after_last)
        self.assertEqual(herd, expected)
        return expected

    def generated(self):
        """Contacts at random times among 300 agents with ids from 1000 (not 0-based), tab or
        space separated, unsorted, with a quiet stretch in the middle."""
        rng = random.Random(7)
        lines = ["# t i j"]
        for _ in range(900):
            t = rng.randrange(50000, 90000)
            if 65000 < t < 70000:
                continue
            a, b = rng.randrange(300), rng.randrange(300)
            lines.append(f"{t}{rng.choice(['	', ' '])}{1000 + 3 * a} {1000 + 3 * b}")
        path = self.path("contacts.tij")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        return path

    @unittest.skipUnless(os.environ.get("HERD_HAS_HDF5") == "1", "the agents' states are read from --output (HDF5)")
    def test_infections_follow_time_respecting_paths(self):
        path = self.generated()
        loop = self.check(path, 200, 260, "loop")
        stop = self.check(path, 200, 260, "stop")
        self.assertGreater(len(loop), len(stop), "looping reaches more agents than stopping")
        self.assertGreater(len(stop), 10)
        self.assertLess(len(loop), 300)

    @unittest.skipUnless(os.environ.get("HERD_HAS_HDF5") == "1" and os.path.exists(SOCIOPATTERNS),
                         "needs HDF5 and ../shared/data/sociopatterns")
    def test_a_primary_school_in_five_minute_windows(self):
        # Two days at school: 390 windows of 5 min, a night without contacts between them.
        reached = self.check(SOCIOPATTERNS, 300, 400, "stop")
        self.assertGreater(len(reached), 100)

    def test_switching_snapshots_allocates_and_copies_nothing(self):
        out = self.path("profile.json")
        self.ok(0, "run", "--model", "sir", "--graph", self.generated(), "--window", "20", "--steps", "500",
                "--profile", "--json", out, "--quiet")
        with open(out) as f:
            profile = json.load(f)["profile"]
        self.assertEqual(profile["allocations"], 0)
        self.assertEqual(profile["deep_copies"], 0)
        # The steps are pulled, whatever --stepping's default asks for.
        with open(out) as f:
            stepping = json.load(f)["stepping"]
        self.assertEqual((stepping["mode"], stepping["threshold"], stepping["active_steps"]), ("pull", 0, 0))

    def test_the_report_counts_the_windows(self):
        path = self.generated()
        result = self.ok(0, "run", "--model", "seir", "--graph", path, "--window", "2min", "--steps", "10")
        self.assertIn("windows of 120", result.stdout)
        self.assertIn("then loop", result.stdout)
        self.assertNotIn("stepping auto", result.stdout)
        # A window whose only contact is of an agent with itself holds no contacts.
        with open(self.path("self.tij"), "w") as f:
            f.write("0 5 5\n7 1 2\n12 2 3\n13 3 6\n25 6 7\n39 7 7\n")
        for ranks in [0, 2]:
            with self.subTest(ranks=ranks):
                result = self.ok(ranks, "run", "--model", "sir", "--graph", self.path("self.tij"), "--window", "10", "--initial-infected", "1",
                                 "--steps", "6")
                self.assertIn("4 windows of 10 (3 with contacts)", result.stdout)

    def seir(self, path, steps, *extra):
        """SEIR on the generated contacts in windows of 2 min, looping: the time series as CSV."""
        out = self.path("seir.csv")
        self.ok(0, "run", "--model", "seir", "--graph", path, "--window", "2min", "--beta", "0.8", "--infectious-steps", "100", "--steps",
                str(steps), "--initial-infected", "5", "--csv", out, "--quiet", *extra)
        return hf.read(out)

    @unittest.skipUnless(os.environ.get("HERD_HAS_HDF5") == "1", "checkpoints need HDF5")
    def test_a_resumed_run_reads_the_same_windows(self):
        path = self.generated()
        full = self.seir(path, 300)
        ckpt = self.path("c.h5")
        self.seir(path, 170, "--checkpoint", ckpt)
        self.ok(0, "resume", ckpt, "--steps", "300", "--csv", self.path("resumed.csv"))
        self.assertEqual(hf.read(self.path("resumed.csv")), full)
        # The same pairs met at other times are refused: by the file's fingerprint, and without it
        # (an older checkpoint's) by the graph's, which covers the windows.
        with open(path) as f:
            lines = f.read().splitlines()
        moved = [lines[0]] + [line if k % 2 else str(int(line.split()[0]) + 600) + " " + " ".join(line.split()[1:])
                              for k, line in enumerate(lines[1:])]
        with open(path, "w") as f:
            f.write("\n".join(moved) + "\n")
        result = hf.herd(0, "resume", ckpt, "--steps", "300")
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn("written by a run that read another --graph file", result.stderr)
        import h5py
        with h5py.File(ckpt, "a") as f:
            del f["run"].attrs["graph_file_hash"]
        result = hf.herd(0, "resume", ckpt, "--steps", "300")
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn("written for another graph with the same counts", result.stderr)

    def test_ranks_give_one_process_counts(self):
        if not hf.MPIEXEC:  # known once the script has read its arguments
            self.skipTest("needs mpiexec")
        path = self.generated()
        one = self.seir(path, 300)
        # PT-Scotch and ParMETIS partition the graph of pairs that met from the blocks read by parts.
        partitioners = [p for p in ("ptscotch", "parmetis") if p in hf.partitioners()]
        for ranks, partition in [(2, "contiguous"), (4, "contiguous"), (3, hf.metis_or_blocks())] + [
                (3, p) for p in partitioners]:
            with self.subTest(ranks=ranks, partition=partition):
                out = self.path(f"ranks{ranks}.csv")
                self.ok(ranks, "run", "--model", "seir", "--graph", path, "--window", "2min", "--beta", "0.8",
                        "--infectious-steps", "100", "--steps", "300", "--initial-infected", "5", "--csv", out,
                        "--quiet", "--partition", partition, "--json", self.path("ranks.json"))
                self.assertEqual(hf.read(out), one)
                # Each rank's entries and cut are of the pairs that ever met, as the whole graph's.
                with open(self.path("ranks.json")) as f:
                    report = json.load(f)
                self.assertEqual(sum(r["edges"] for r in report["ranks"]), report["edges"])
                for r in report["ranks"]:
                    self.assertLessEqual(r["cut_edges"], r["edges"])

    def test_a_parallel_partitioner_finds_the_locality_the_ids_hide(self):
        """scripts/make_timed_contacts.py: a ring whose ids are shuffled. Blocks of ids cut most of
        its pairs; PT-Scotch finds the ring, with the same counts."""
        if not hf.MPIEXEC or "ptscotch" not in hf.partitioners():
            self.skipTest("needs mpiexec and PT-Scotch")
        path = self.path("ring.tij")
        script = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "make_timed_contacts.py")
        made = subprocess.run([sys.executable, script, "20000", "2000", "86400", path], capture_output=True, text=True)
        self.assertEqual(made.returncode, 0, made.stderr)
        args = ["--model", "sir", "--graph", path, "--window", "1h", "--beta", "0.2", "--steps", "24", "--quiet"]
        self.ok(0, "run", *args, "--csv", self.path("ring.csv"))
        cut = {}
        for partition in ("contiguous", "ptscotch"):
            out, summary = self.path(f"ring-{partition}.csv"), self.path(f"ring-{partition}.json")
            self.ok(3, "run", *args, "--partition", partition, "--csv", out, "--json", summary)
            self.assertEqual(hf.read(out), hf.read(self.path("ring.csv")), partition)
            with open(summary) as f:
                cut[partition] = json.load(f)["cut_fraction"]
        self.assertGreater(cut["contiguous"], 0.5)
        self.assertLess(4 * cut["ptscotch"], cut["contiguous"], cut)

    def test_ensemble_members_are_their_single_runs(self):
        path = self.generated()
        import csv
        import io
        members = list(csv.DictReader(io.StringIO(self.seir(path, 400, "--replicates", "2", "--seed", "9"))))
        for member, seed in [(0, 9), (1, 10)]:
            one = list(csv.DictReader(io.StringIO(self.seir(path, 400, "--seed", str(seed)))))
            mine = [r for r in members if int(r["member"]) == member]
            for state in "SEIR":
                self.assertEqual([r[state] for r in mine], [r[state] for r in one], f"member {member}")
            self.assertNotEqual(one[0]["S"], one[-1]["S"], "an epidemic, not a still life")

    def meetings(self):
        """20 people (ids from 7) meeting 3000 times over 10 hours: pairs meet again and again
        within a window of 30 min."""
        rng = random.Random(11)
        lines = []
        for _ in range(3000):
            a, b = rng.sample(range(20), 2)
            lines.append(f"{rng.randrange(36000)} {7 + a} {7 + b}")
        path = self.path("meetings.tij")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        return path

    def test_contact_weights_count_on_any_rank_count_and_across_resume(self):
        path = self.meetings()
        args = ["--model", "seir", "--graph", path, "--window", "30min", "--beta", "0.02", "--infectious-steps", "8",
                "--latent-steps", "1", "--initial-infected", "2", "--seed", "5", "--steps", "120"]

        def series(ranks, *extra):
            out = self.path(f"series{ranks}{len(extra)}.csv")
            self.ok(ranks, "run", *args, "--csv", out, "--quiet", *extra)
            return hf.read(out)

        weighted = series(0, "--window-weights", "contacts")
        # Pairs meeting 5 times in a window transmit 5 times as often: another epidemic.
        self.assertNotEqual(weighted, series(0))
        # Counts are exact in half precision.
        self.assertEqual(series(0, "--window-weights", "contacts", "--precision", "half"), weighted)
        summary = self.path("weighted.json")
        report = self.ok(0, "run", *args, "--window-weights", "contacts", "--json", summary).stdout
        self.assertIn("weighted by their contacts", report)
        with open(summary) as f:
            self.assertTrue(json.load(f)["weighted"])
        if hf.MPIEXEC:
            self.assertEqual(series(2, "--window-weights", "contacts", "--partition", hf.metis_or_blocks()), weighted)
            # Read by parts: each rank builds its agents' rows from the contacts sent to it, or
            # the contacts move on to the parts PT-Scotch gives, a contact within a part counted once.
            self.assertEqual(series(3, "--window-weights", "contacts"), weighted)
            if "ptscotch" in hf.partitioners():
                self.assertEqual(series(4, "--window-weights", "contacts", "--partition", "ptscotch"), weighted)
        if os.environ.get("HERD_HAS_HDF5") == "1":
            ckpt = self.path("weighted.h5")
            self.ok(0, "run", *args[:-2], "--steps", "50", "--window-weights", "contacts", "--checkpoint", ckpt,
                    "--quiet")
            self.ok(0, "resume", ckpt, "--steps", "120", "--csv", self.path("resumed.csv"), "--quiet")
            self.assertEqual(hf.read(self.path("resumed.csv")), weighted)
            if hf.MPIEXEC:
                # The fingerprint of a network read by parts is one process's.
                parts = self.path("parts.h5")
                self.ok(3, "run", *args[:-2], "--steps", "50", "--window-weights", "contacts", "--checkpoint",
                        parts, "--quiet")
                self.ok(0, "resume", parts, "--steps", "120", "--csv", self.path("parts.csv"), "--quiet")
                self.assertEqual(hf.read(self.path("parts.csv")), weighted)
                # and resumes on ranks that PT-Scotch's parts split.
                if "ptscotch" in hf.partitioners():
                    self.ok(2, "resume", ckpt, "--steps", "120", "--partition", "ptscotch", "--csv",
                            self.path("scotch.csv"), "--quiet")
                    self.assertEqual(hf.read(self.path("scotch.csv")), weighted)
            refused = hf.herd(0, "resume", ckpt, "--steps", "120", "--window-weights", "met")
            self.assertEqual(refused.returncode, 2, refused.stderr)

    def fails(self, *args, ranks=0, status=1):
        """herd's one line of a refusal: status 1 for what the run found, 2 for a usage error."""
        result = hf.herd(ranks, "run", *args)
        self.assertEqual(result.returncode, status, result.stdout + result.stderr)
        # mpiexec adds its own lines about the exit status; herd's are those it starts.
        lines = [line for line in result.stderr.splitlines() if line.startswith("herd:")]
        self.assertEqual(len(lines), 1, result.stderr)
        return lines[0]

    def test_the_memory_estimate_covers_the_peak(self):
        if os.environ.get("HERD_SANITIZED"):
            self.skipTest("a sanitizer's shadow memory counts in the peak")
        # 10^6 contacts of 2·10^4 agents in 50 windows: the estimate --max-memory refuses with is
        # at least the peak the run then reaches, less the runtime's own (about 25 MB): 0.104 GiB
        # against 0.115 GiB, where counting a contact's two entries alone gave 0.067 GiB.
        rng = random.Random(3)
        path = self.path("many.tij")
        with open(path, "w") as f:
            f.writelines(f"{rng.randrange(0, 1000)} {rng.randrange(20000)} {rng.randrange(20000)}\n"
                         for _ in range(1000000))
        args = ("--model", "sir", "--graph", path, "--window", "20", "--steps", "3")
        refused = self.fails(*args, "--max-memory", "1M")
        estimate = float(refused.split("need up to ")[1].split(" GiB")[0]) * 2**30
        # No window is long enough where the contacts alone do not fit.
        self.assertIn("the contacts alone need", refused)
        self.ok(0, "run", *args, "--json", self.path("many.json"))
        with open(self.path("many.json")) as f:
            report = json.load(f)
        if report["backend"] not in ("OpenMP", "Serial", "Threads"):
            self.skipTest("a device runtime's own memory is counted in the peak")
        peak = max(r["peak_memory_bytes"] for r in report["ranks"])
        self.assertGreaterEqual(estimate, peak - 30e6, refused)
        self.assertLess(estimate, 2 * peak, refused)

    def test_bad_files_and_options_are_refused(self):
        bad = self.path("bad.tij")
        with open(bad, "w") as f:
            f.write("10 1 2\n20 1\n")
        self.assertIn("bad.tij:2: expected a time and two agent ids", self.fails("--graph", bad, "--window", "20"))
        path = self.generated()
        too_short = ("--graph", path, "--window", "1", "--max-memory", "1M")
        refused = self.fails(*too_short)
        self.assertIn("windows with contacts need up to", refused)
        self.assertIn("a longer --window makes fewer windows", refused)
        self.assertNotIn("sparse", refused)
        self.assertIn("(--max-memory)", refused)
        if hf.MPIEXEC:
            # Read by parts, the same line on every rank, printed once.
            self.assertEqual(self.fails("--graph", bad, "--window", "20", ranks=3),
                             self.fails("--graph", bad, "--window", "20"))
            self.assertEqual(self.fails(*too_short, ranks=2), refused)
        # Times so far apart that their windows outnumber 2^31: the message names the file.
        spread = self.path("spread.tij")
        with open(spread, "w") as f:
            f.write("9223372036854775807 1 2\n0 2 3\n")
        self.assertIn(spread + ": temporal network: 461168601842738791 windows of 20",
                      self.fails("--graph", spread, "--window", "20"))
        if hf.MPIEXEC:
            # Every rank finds it: one line, as one process gives it, and no rank aborts the others.
            self.assertEqual(self.fails("--graph", spread, "--window", "20", ranks=2),
                             self.fails("--graph", spread, "--window", "20"))
        self.assertIn("'9223372036854775807' is longer than 2^62",
                      self.fails("--graph", path, "--window", "9223372036854775807", status=2))
        # Within the range, but past the integers a float holds exactly: the digits are the remedy.
        self.assertIn("--window: '1e16' is beyond the integers this notation holds exactly: write its digits",
                      self.fails("--graph", path, "--window", "1e16", status=2))
        self.assertIn("not a positive duration", self.fails("--graph", path, "--window", "0", status=2))
        self.assertIn("not a positive duration", self.fails("--graph", path, "--window", "5 min", status=2))
        self.assertIn("not a positive duration", self.fails("--graph", path, "--window", "0x14", status=2))
        # A fraction of a unit is no positive whole duration: the same time in seconds is.
        for fraction, seconds in [("1.5min", 90), ("0.07h", 252), ("0.1d", 8640)]:
            self.assertIn(f"--window: '{fraction}': a duration is a whole number of its unit; say {seconds}s",
                          self.fails("--graph", path, "--window", fraction, status=2))
        self.assertIn("--after-last needs --window", self.fails("--graph", path, "--after-last", "stop", status=2))
        self.assertIn("--window-weights needs --window",
                      self.fails("--graph", path, "--window-weights", "contacts", status=2))
        self.assertIn("--window-weights", self.fails("--graph", path, "--window", "20", "--window-weights", "time",
                                                     status=2))
        self.assertIn("--window reads a timed-contact file", self.fails("--window", "20", status=2))
        self.assertIn("--reorder does not apply to a temporal network",
                      self.fails("--graph", path, "--window", "20", "--reorder", "bfs", status=2))
        # Refused with the options, before the file is read, on every rank alike.
        stepped = self.fails("--graph", path, "--window", "20", "--stepping", "active", status=2)
        self.assertIn("--stepping active does not apply to a temporal network (--window), which is stepped by pull",
                      stepped)
        self.assertIn("--stepping verify does not apply",
                      self.fails("--graph", path, "--window", "20", "--stepping", "verify", status=2))
        # The options of active steps would do nothing there.
        for option in [["--binned-push", "on"], ["--active-threshold", "0.3"]]:
            self.assertIn(f"{option[0]} tunes active steps: it does not apply to a temporal network (--window)",
                          self.fails("--graph", path, "--window", "20", *option, status=2))
        if hf.MPIEXEC:
            self.assertEqual(self.fails("--graph", path, "--window", "20", "--stepping", "active", ranks=3, status=2),
                             stepped)


if __name__ == "__main__":
    hf.configure(sys.argv)
    unittest.main(argv=sys.argv[:1])
