"""Tests of herd's HDF5 files: checkpoints that resume to the same bits on any rank count, also after
the job was killed while writing one; outputs readable with h5py in the documented schema; and every
damaged or mismatched file refused with one message naming it, exit status 1 and no hang.

Usage: test_cli_hdf5.py HERD MPIEXEC [MPIEXEC FLAGS...]   (needs h5py and numpy)"""

import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
import unittest

import h5py
import numpy as np

import herd_files_test
from herd_files_test import ENV, checksum, flip_byte, herd, read

RUN = ["--agents", "20000", "--steps", "40", "--quiet"]
Case = herd_files_test.Case


class Resume(Case):
    def test_resumed_runs_match_the_uninterrupted_run_on_any_rank_count(self):
        # The population made by shares and partitioned by METIS (where this build has it) or in
        # blocks, and a generator by shares.
        metis = ["--partition", herd_files_test.metis_or_blocks()]
        for model, extra in [("seir", metis), ("seir", []), ("voter", ["--graph", "power-law"])]:
            args = ["run", "--model", model, *RUN, *extra]
            self.ok(0, *args, "--csv", self.path("full.csv"))
            full = read(self.path("full.csv"))
            for written, resumed in [(4, 2), (2, 1), (1, 3), (3, 4)]:
                with self.subTest(model=model, written=written, resumed=resumed):
                    ckpt = self.path(f"c{written}.h5")
                    self.ok(written, *[a if a != "40" else "17" for a in args], "--checkpoint", ckpt)
                    with h5py.File(ckpt) as f:
                        self.assertEqual(f["run"].attrs["step"], 17)
                    self.ok(resumed, "resume", ckpt, "--steps", "40", "--csv", self.path("resumed.csv"),
                            "--checkpoint", self.path("later.h5"))
                    self.assertEqual(read(self.path("resumed.csv")), full)

    def test_a_resumed_run_reports_the_steps_it_made(self):
        # 37 of 40 steps were made before: the per-step figures count the 3 made here, on one
        # process and on ranks, on a generated graph and on a temporal network's snapshots.
        contacts = self.path("contacts.tij")
        with open(contacts, "w") as f:
            f.writelines(f"{t} {t % 7} {(t * 3 + 1) % 11}\n" for t in range(0, 4000, 20))
        for ranks, graph in [(0, []), (2, []), (0, ["--graph", contacts, "--window", "20"]),
                             (2, ["--graph", contacts, "--window", "20"])]:
            if ranks and not herd_files_test.MPIEXEC:
                continue
            with self.subTest(ranks=ranks, graph=graph):
                args = ["run", "--model", "sir", "--quiet", "--steps", "37", *(graph or RUN[:2])]
                ckpt = self.path("c.h5")
                self.ok(ranks, *args, "--checkpoint", ckpt, "--json", self.path("first.json"))
                self.ok(ranks, "resume", ckpt, "--steps", "40", "--json", self.path("r.json"), "--record",
                        self.path("r.jsonl"))
                with open(self.path("r.json")) as f:
                    d = json.load(f)
                with open(self.path("first.json")) as f:
                    first = json.load(f)
                self.assertEqual((d["steps"], d["first_step"], first["first_step"]), (40, 37, 0))
                self.assertAlmostEqual(3 * d["seconds_per_step"] / d["step_loop_seconds"], 1, delta=1e-6)
                # Edges read per second: the graph's entries 3 times, or the 3 snapshots' entries.
                read_entries = d["edges_per_second"] * d["step_loop_seconds"]
                expected = 3 * d["edges"] if not graph else sum(
                    2 * len({(min(i, j), max(i, j)) for t, i, j in
                             [tuple(map(int, line.split())) for line in open(contacts)] if (t // 20) == w and i != j})
                    for w in (37, 38, 39))
                self.assertAlmostEqual(read_entries, expected, delta=1e-6 * max(expected, 1))
                with open(self.path("r.jsonl")) as f:
                    line = json.loads(f.read().splitlines()[-1])
                self.assertEqual(line["first_step"], 37)
                self.assertAlmostEqual(3 * line["seconds_per_step"] / d["step_loop_seconds"], 1, delta=1e-6)
                # A resume to the checkpoint's own step makes none: no time per step, and no rates.
                self.ok(ranks, "resume", ckpt, "--steps", "37", "--json", self.path("none.json"))
                with open(self.path("none.json")) as f:
                    none = json.load(f)
                self.assertEqual([none[key] for key in ("seconds_per_step", "agent_updates_per_second",
                                                        "edges_per_second")], [None, None, None])

    def test_one_process_stepping_is_not_asked_of_ranks_resuming(self):
        # --reorder and --stepping verify run on one process alone and change no result: ranks
        # resuming such a checkpoint run without them.
        if not herd_files_test.MPIEXEC:
            self.skipTest("needs mpiexec")
        self.ok(0, "run", "--model", "sir", *RUN, "--csv", self.path("full.csv"))
        for extra in (["--reorder", "degree"], ["--stepping", "verify"]):
            with self.subTest(extra=extra):
                ckpt = self.path("one.h5")
                self.ok(0, "run", "--model", "sir", *[a if a != "40" else "15" for a in RUN], *extra,
                        "--checkpoint", ckpt)
                self.ok(2, "resume", ckpt, "--steps", "40", "--csv", self.path("resumed.csv"))
                self.assertEqual(read(self.path("resumed.csv")), read(self.path("full.csv")))
                # Asked again of ranks, it is refused as for a run: a command-line mistake.
                result = herd(2, "resume", ckpt, *extra)
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertIn(extra[0], result.stderr)

    def test_changing_the_results_is_refused(self):
        ckpt = self.path("c.h5")
        self.ok(0, "run", *RUN, "--checkpoint", ckpt)
        for option in [["--beta", "0.2"], ["--seed", "7"], ["--agents", "100"], ["--model", "sir"],
                       ["--transmission-rate", "9"], ["--mortality", "0.5"], ["--age-reading", "agenttorch"],
                       ["--directed"], ["--relabel"]]:
            with self.subTest(option=option):
                result = herd(0, "resume", ckpt, *option)
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertIn(f"resume: {' '.join(option)} would change the results", result.stderr)
                self.assertIn("the checkpoint's run " + ("was given 20000" if option[0] == "--agents" else
                                                         "was not given it"), result.stderr)
        # The same value again changes nothing, however written; outputs and how steps run may change.
        for agents in ["20000", "2e4", "+020000", "20000.0"]:
            with self.subTest(agents=agents):
                self.ok(0, "resume", ckpt, "--agents", agents, "--threads", "1", "--schedule", "team", "--csv",
                        self.path("again.csv"))
        for agents in ["20001", "2.00001e4", "0x4e20"]:
            with self.subTest(agents=agents):
                result = herd(0, "resume", ckpt, "--agents", agents)
                self.assertEqual(result.returncode, 2, result.stderr)
        # An option the run was not given, given anew with the setting the run took without it (its
        # default, or --graph-seed as --seed), changes nothing; another value, or a flag, does.
        for option in [["--beta", "0.08"], ["--beta", "8e-2"], ["--precision", "float"], ["--graph-seed", "42"],
                       ["--replicates", "1"], ["--model", "seir", "--graph", "population", "--seed", "42"]]:
            with self.subTest(option=option):
                self.ok(0, "resume", ckpt, *option, "--csv", self.path("again.csv"))
        for option in [["--beta", "0.0800001"], ["--graph-seed", "43"], ["--precision", "half"]]:
            with self.subTest(option=option):
                result = herd(0, "resume", ckpt, *option)
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertIn("the checkpoint's run was not given it", result.stderr)

    def test_an_option_outside_the_list_is_refused_for_every_model(self):
        edges = self.path("e.txt")
        with open(edges, "w") as f:
            f.write("".join(f"{i} {(i * 7 + 1) % 500}\n" for i in range(500)))
        covid = self.path("covid.h5")
        self.ok(0, "run", "--model", "covid", "--agents", "5000", "--steps", "6", "--quiet", "--checkpoint", covid)
        directed = self.path("directed.h5")
        self.ok(0, "run", "--model", "sir", "--graph", edges, "--directed", "--steps", "6", "--quiet",
                "--checkpoint", directed)
        # The options of active steps, given anew to a model that visits every agent each step.
        voter = self.path("voter.h5")
        self.ok(0, "run", "--model", "voter", "--graph", edges, "--steps", "6", "--quiet", "--checkpoint", voter)
        for option in [["--stepping", "verify"], ["--binned-push", "on"]]:
            with self.subTest(option=option):
                result = herd(0, "resume", voter, "--steps", "8", *option)
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertIn(f"{option[0]} ", result.stderr)
                self.assertIn("does not apply to --model voter", result.stderr)
        for ckpt, option in [(covid, ["--transmission-rate", "9"]), (covid, ["--mortality", "0.3"]),
                             (covid, ["--age-reading", "agenttorch"]), (directed, ["--directed", "--transpose"]),
                             (directed, ["--transpose"])]:
            with self.subTest(ckpt=os.path.basename(ckpt), option=option):
                result = herd(0, "resume", ckpt, "--steps", "8", *option)
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertIn(f"would change the results", result.stderr)

    def test_resume_reads_the_same_graph_from_any_folder_and_no_other(self):
        with open(self.path("e.txt"), "w") as f:
            f.write("".join(f"{i} {(i * 7 + 3) % 3000}\n{i} {(i * 11 + 5) % 3000}\n" for i in range(3000)))
        args = ["--model", "sir", "--graph", "e.txt", "--initial-infected", "20", "--quiet"]
        self.ok(0, "run", *args, "--steps", "30", "--csv", "full.csv", cwd=self.dir.name)
        self.ok(0, "run", *args, "--steps", "12", "--checkpoint", "c.h5", cwd=self.dir.name)
        # Relative paths the run was given are the checkpoint's: resumed from elsewhere, it finds them.
        self.ok(0, "resume", self.path("c.h5"), "--steps", "30", "--csv", self.path("resumed.csv"), cwd="/")
        self.assertEqual(read(self.path("resumed.csv")), read(self.path("full.csv")))
        # A generated graph's seed does not apply to a file's graph: refused as the run refuses it,
        # not as a change of results.
        result = herd(0, "resume", self.path("c.h5"), "--graph-seed", "2", "--steps", "30")
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("--graph-seed seeds a generated graph", result.stderr)
        # The setting the run took without it (--seed's) is no change.
        self.ok(0, "resume", self.path("c.h5"), "--graph-seed", "42", "--steps", "30", "--csv", self.path("seed.csv"))
        self.assertEqual(read(self.path("seed.csv")), read(self.path("full.csv")))
        # Named again, by a path relative to the folder resume runs in or through a link, it is the same file.
        os.symlink("e.txt", self.path("link.txt"))
        for name, cwd in [("e.txt", self.dir.name), ("./sub/../e.txt", self.dir.name), (self.path("link.txt"), "/")]:
            with self.subTest(name=name):
                os.makedirs(self.path("sub"), exist_ok=True)
                self.ok(0, "resume", self.path("c.h5"), "--graph", name, "--steps", "30", "--csv",
                        self.path("again.csv"), cwd=cwd)
                self.assertEqual(read(self.path("again.csv")), read(self.path("full.csv")))
        # Moved with its checkpoint, the file is found by its bytes under any name; its old name is
        # refused with where to give the new one.
        moved = self.path("moved")
        os.mkdir(moved)
        os.rename(self.path("e.txt"), os.path.join(moved, "contacts.txt"))
        os.rename(self.path("c.h5"), os.path.join(moved, "c.h5"))
        result = herd(0, "resume", "c.h5", "--steps", "30", cwd=moved)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn(f"resume: {self.path('e.txt')}, the --graph file the checkpoint's run read, is gone: "
                      "give it anew with --graph FILE", result.stderr)
        # A path given anew that names no file, or no regular file, is said to be so.
        os.mkdir(os.path.join(moved, "folder"))
        for given, said in [("nosuch.txt", "resume: --graph nosuch.txt: no such file"),
                            ("folder", "resume: --graph folder is not a regular file")]:
            result = herd(0, "resume", "c.h5", "--graph", given, "--steps", "30", cwd=moved)
            self.assertEqual(result.returncode, 2, result.stderr)
            self.assertIn(said, result.stderr)
        for ranks in [1, 3]:
            with self.subTest(moved_to_ranks=ranks):
                self.ok(ranks, "resume", "c.h5", "--graph", "contacts.txt", "--steps", "30", "--csv", "moved.csv",
                        cwd=moved)
                self.assertEqual(read(os.path.join(moved, "moved.csv")), read(self.path("full.csv")))
        # A file changed since, at any path (here the same contacts relabelled: the same agents and
        # entries), is not the run's, and refused before its graph is built.
        with open(os.path.join(moved, "contacts.txt"), "w") as f:
            f.write("".join(f"{(i + 1) % 3000} {((i * 7 + 3) + 1) % 3000}\n{(i + 1) % 3000} {((i * 11 + 5) + 1) % 3000}\n"
                            for i in range(3000)))
        for ranks in [1, 2]:
            with self.subTest(changed_on_ranks=ranks):
                result = herd(ranks, "resume", "c.h5", "--graph", "contacts.txt", "--steps", "30", "--csv", "never.csv",
                              cwd=moved)
                self.assertEqual(result.returncode, 1, result.stderr)
                self.assertIn("c.h5: written by a run that read another --graph file: contacts.txt is not the file it "
                              "read, or changed since", result.stderr)
                self.assertFalse(os.path.exists(os.path.join(moved, "never.csv")))
        # A checkpoint without the fingerprint (an older version's) knows the graph by its contacts.
        with h5py.File(os.path.join(moved, "c.h5"), "a") as f:
            del f["run"].attrs["graph_file_hash"]
        result = herd(0, "resume", "c.h5", "--steps", "30", "--graph", self.path("moved/contacts.txt"), cwd=moved)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn(" would change the results: the checkpoint's run was given " + self.path("e.txt") + ": the "
                      "checkpoint keeps no fingerprint of its bytes (its run read a pipe, or was of an older "
                      "version), so only that path serves", result.stderr)
        # Gone from that path, it is named, as a file with a fingerprint is.
        result = herd(0, "resume", "c.h5", "--steps", "30", cwd=moved)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn(f"resume: {self.path('e.txt')}, the --graph file the checkpoint's run read, is gone, and the "
                      "checkpoint keeps no fingerprint of its bytes", result.stderr)

    def test_resume_keeps_the_checkpoint_it_started_from(self):
        ckpt = self.path("c.h5")
        self.ok(0, "run", *RUN, "--checkpoint", ckpt)
        before = os.stat(ckpt)
        self.ok(0, "resume", ckpt, "--steps", "45")
        self.assertEqual(os.stat(ckpt).st_ino, before.st_ino)
        self.assertEqual(os.stat(ckpt).st_mtime_ns, before.st_mtime_ns)
        # Asked again, it is replaced by the resumed run's, which resumes in turn.
        self.ok(0, "resume", ckpt, "--steps", "45", "--checkpoint", ckpt)
        with h5py.File(ckpt) as f:
            self.assertEqual(int(f["run"].attrs["step"]), 45)
        self.ok(0, "resume", ckpt, "--steps", "50", "--csv", self.path("fifty.csv"))
        self.assertEqual(len(read(self.path("fifty.csv")).splitlines()), 52)

    def test_resume_writes_only_the_files_its_command_line_names(self):
        self.ok(0, "run", *RUN, "--checkpoint", "c.h5", "--csv", "first.csv", "--json", "first.json",
                cwd=self.dir.name)
        os.mkdir(self.path("elsewhere"))
        for folder in [self.dir.name, self.path("elsewhere")]:
            self.ok(0, "resume", self.path("c.h5"), "--steps", "45", cwd=folder)
        self.assertEqual(sorted(os.listdir(self.dir.name)), ["c.h5", "elsewhere", "first.csv", "first.json"])
        self.assertEqual(os.listdir(self.path("elsewhere")), [])
        result = herd(0, "resume", self.path("c.h5"), "--steps", "45", "--checkpoint-every", "2")
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("--checkpoint-every needs --checkpoint FILE", result.stderr)


    def test_a_checkpoint_without_the_scenarios_counts_passes_none_on(self):
        # A checkpoint from before checkpoints kept the events' counts: a run resumed from it
        # reports the steps it ran, and its own checkpoint keeps no counts, whose zeros would
        # pass for those of the steps before.
        scenario = self.path("s.json")
        with open(scenario, "w") as f:
            json.dump({"events": [{"step": 3, "import": 20}, {"steps": [4, 12], "vaccinate": {"per_step": 50}}]}, f)
        args = ["--model", "sir", "--agents", "5000", "--quiet", "--scenario", scenario]
        self.ok(0, "run", *args, "--steps", "6", "--checkpoint", self.path("c.h5"))
        with h5py.File(self.path("c.h5"), "a") as f:
            self.assertEqual(f["scenario/events"].shape, (7, 2))
            del f["scenario/events"]
        self.ok(0, "resume", self.path("c.h5"), "--steps", "9", "--checkpoint", self.path("c9.h5"))
        with h5py.File(self.path("c9.h5")) as f:
            self.assertNotIn("scenario/events", f)
        self.ok(0, "resume", self.path("c9.h5"), "--steps", "12", "--json", self.path("r.json"))
        with open(self.path("r.json")) as f:
            events = json.load(f)["events"]
        self.assertEqual(events[0]["agents"], [])  # step 3, before the resume
        self.assertEqual(len(events[1]["agents"]), 3)  # steps 10 to 12


class LongPaths(Case):
    def test_files_deep_in_folders_are_written_and_read(self):
        # Open MPI's I/O printed a path of 230-odd characters into a fixed buffer as each file
        # opened, and herd aborted, leaving its partial file.
        deep = os.path.join(self.dir.name, "d" * 120, "e" * 120)
        os.makedirs(deep)
        for ranks in [0, 2]:
            with self.subTest(ranks=ranks):
                out, ckpt = os.path.join(deep, f"o{ranks}.h5"), os.path.join(deep, f"c{ranks}.h5")
                self.ok(ranks, "run", "--agents", "20000", "--steps", "10", "--quiet", "--output", out, "--checkpoint", ckpt)
                self.ok(ranks, "resume", ckpt, "--steps", "20", "--csv", self.path(f"r{ranks}.csv"))
                self.ok(ranks, "convert", "erdos-renyi", "--agents", "1000", "-o", os.path.join(deep, "p.h5"))
                self.ok(ranks, "run", "--graph", os.path.join(deep, "p.h5"), "--steps", "2", "--quiet")
                self.assertEqual([f for f in os.listdir(deep) if ".partial" in f], [])
        self.assertEqual(read(self.path("r0.csv")), read(self.path("r2.csv")))
        # A name as long as the folder takes: Open MPI named a file of its own after the temporary's.
        long_name = self.path("o" * 240 + ".h5")
        for ranks in [0, 2]:
            with self.subTest(long_name_on_ranks=ranks):
                self.ok(ranks, "run", "--agents", "2000", "--steps", "3", "--quiet", "--output", long_name)
                with h5py.File(long_name) as f:
                    self.assertEqual(f.attrs["herd_format"], b"herd-output")
                os.remove(long_name)


class KilledWhileWriting(Case):
    def test_a_killed_job_leaves_a_checkpoint_that_resumes_to_the_same_bits(self):
        args = ["run", "--agents", "200000", "--steps", "60", "--quiet"]
        self.ok(0, *args, "--csv", self.path("full.csv"))
        full = read(self.path("full.csv"))
        rng = random.Random(1)
        resumed_from = set()
        for attempt in range(8):
            ckpt = self.path("c.h5")
            if os.path.exists(ckpt):
                os.remove(ckpt)
            command = herd_files_test.herd_command(0, *args, "--checkpoint", ckpt, "--checkpoint-every", "1")
            process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
            # Kill at a random moment once checkpoints are being written: mostly while one is.
            deadline = time.time() + 120
            while not os.path.exists(ckpt) and process.poll() is None and time.time() < deadline:
                time.sleep(0.01)
            time.sleep(rng.uniform(0.0, 0.8))
            process.send_signal(signal.SIGKILL)
            process.wait()
            if not os.path.exists(ckpt):
                continue  # killed before the first checkpoint was complete
            with h5py.File(ckpt) as f:
                resumed_from.add(int(f["run"].attrs["step"]))
            self.ok(0, "resume", ckpt, "--csv", self.path("resumed.csv"))
            self.assertEqual(read(self.path("resumed.csv")), full, f"attempt {attempt}")
        self.assertGreaterEqual(len(resumed_from), 2, "the kills should land at different steps")


class FullDisk(Case):
    """A file system that fills up while the outputs are written: a real one, a 16 KiB tmpfs (so
    the test needs the right to mount, which CI's root has; it is skipped elsewhere)."""

    def setUp(self):
        super().setUp()
        self.disk = self.path("disk")
        os.mkdir(self.disk)
        mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16k", "tmpfs", self.disk], capture_output=True)
        if mounted.returncode != 0:
            self.skipTest("cannot mount a small file system here: " + mounted.stderr.decode().strip())
        self.addCleanup(subprocess.run, ["umount", "-l", self.disk])

    def test_every_rank_stops_with_one_line_and_the_old_file_intact(self):
        # HDF5 1.10's close waited for ever on the other ranks where rank 0's last flush failed.
        out = os.path.join(self.disk, "out.h5")
        # Outputs of a megabyte or more, however well they compress.
        run = ["run", "--model", "seir", "--graph", "erdos-renyi", "--agents", "200000", "--steps", "10", "--quiet"]
        cases = [[*run, "--output", out], [*run, "--output", out, "--snapshot-every", "5"],
                 ["convert", "erdos-renyi", "--agents", "200000", "-o", out]]
        for ranks in (0, 2, 3) if herd_files_test.MPIEXEC else (0,):
            for args in cases:
                with self.subTest(ranks=ranks, args=args):
                    with open(out, "w") as f:
                        f.write("the previous file\n")
                    command = herd_files_test.herd_command(ranks, *args)
                    result = subprocess.run(command, capture_output=True, text=True, env=ENV, timeout=90)
                    self.assertEqual(result.returncode, 1, result.stderr)
                    lines = [line for line in result.stderr.splitlines() if line.startswith("herd:")]
                    self.assertEqual(len(lines), 1, result.stderr)
                    # The file given, not the one written beside it.
                    self.assertRegex(lines[0], r"^herd: (rank \d+ of \d+: )?" + re.escape(out) + r": .*writing (the file )?failed")
                    self.assertEqual(read(out), "the previous file\n")
                    self.assertEqual(os.listdir(self.disk), ["out.h5"], "a partial file was left behind")

    def test_writes_lost_without_an_error_are_found_by_reading_back(self):
        # Open MPI's OMPIO at 3 ranks loses some writes to a full disk and reports none: the
        # checkpoint looked whole, replaced the good one, and failed its checksums at the next resume.
        if not herd_files_test.MPIEXEC:
            self.skipTest("needs mpiexec")
        disk = self.path("larger")
        os.mkdir(disk)
        if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=200k", "tmpfs", disk]).returncode != 0:
            self.skipTest("cannot mount a small file system here")
        self.addCleanup(subprocess.run, ["umount", "-l", disk])
        ckpt = os.path.join(disk, "c.h5")
        run = ["--model", "seir", "--graph", "erdos-renyi", "--agents", "20000", "--quiet"]
        self.ok(0, "run", *run, "--steps", "20", "--checkpoint", ckpt)
        self.ok(0, "run", *run, "--steps", "25", "--csv", self.path("whole.csv"))
        with open(ckpt, "rb") as f:
            good = f.read()
        with open(os.path.join(disk, "filler"), "wb") as f:
            f.write(bytes(100 * 1024))  # 67 KB of checkpoint, then about 32 KB free
        for ranks in (2, 3):
            with self.subTest(ranks=ranks):
                result = herd(ranks, "resume", ckpt, "--steps", "40", "--checkpoint", ckpt)
                self.assertEqual(result.returncode, 1, result.stderr)
                self.assertIn(ckpt + ": ", result.stderr)
                with open(ckpt, "rb") as f:
                    self.assertTrue(f.read() == good, "the good checkpoint was replaced")
                self.assertEqual(sorted(os.listdir(disk)), ["c.h5", "filler"], "a partial file was left behind")
        os.remove(os.path.join(disk, "filler"))
        self.ok(0, "resume", ckpt, "--steps", "25", "--csv", self.path("resumed.csv"))
        self.assertEqual(read(self.path("resumed.csv")), read(self.path("whole.csv")))
        # Under ROMIO a rank whose part of a collective write failed left the others in it for
        # good: each rank now writes its rows alone, and every MPI-IO layer ends the job.
        launcher = open_mpi_mpiexec()
        if launcher is None:
            return
        os.remove(ckpt)
        with open(os.path.join(disk, "filler"), "wb") as f:
            f.write(bytes(145 * 1024))
        for io in ("romio321", "ompio"):
            with self.subTest(io=io):
                command = [*launcher, "--mca", "io", io, "-n", "2", herd_files_test.HERD, "run", *run, "--steps", "20",
                           "--checkpoint", ckpt]
                result = subprocess.run(command, capture_output=True, text=True, env=ENV, timeout=120)
                if "romio321" in result.stderr and "component" in result.stderr.lower():
                    continue  # this Open MPI has no ROMIO
                self.assertEqual(result.returncode, 1, result.stderr)
                self.assertIn(ckpt + ": /agents/", result.stderr)
                self.assertEqual(sorted(os.listdir(disk)), ["filler"], "a partial file was left behind")


def open_mpi_mpiexec():
    """The tests' mpiexec if it is Open MPI's, without the flag that has it kill its ranks at once
    (odls_base_sigkill_timeout 0): by default it passes SIGTERM on and kills them a second later."""
    if not herd_files_test.MPIEXEC:
        return None
    version = subprocess.run([herd_files_test.MPIEXEC[0], "--version"], capture_output=True, text=True)
    if not any(name in version.stdout + version.stderr for name in ("Open MPI", "OpenRTE")):
        return None
    command = list(herd_files_test.MPIEXEC)
    while "odls_base_sigkill_timeout" in command:
        k = command.index("odls_base_sigkill_timeout")
        del command[k - 1:k + 2]
    return command


class StoppedBySignal(Case):
    def start(self, command, name):
        """Starts a job whose standard error is kept in the file `name` (for the failure messages)."""
        errors = self.path(name)
        with open(errors, "w") as sink:
            process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=sink, env=ENV)
        self.addCleanup(process.kill)
        return process, errors

    def wait_while_written(self, process, errors, written):
        """Waits until `written()` holds twice 0.2 s apart while the job runs: before its run, herd
        makes and removes a file beside each output to learn that the folder takes one, which a
        single look may catch."""
        deadline = time.time() + 120
        seen = 0
        while seen < 2 and process.poll() is None and time.time() < deadline:
            seen = seen + 1 if written() else 0
            time.sleep(0.2 if seen else 0.01)
        if seen < 2:
            with open(errors) as f:
                self.fail(f"the output should be written beside its target while the job runs (exit status "
                          f"{process.poll()}, standard error: {f.read()[-2000:]!r})")

    def test_a_job_stopped_by_a_signal_leaves_no_partial_file_and_the_old_file_in_place(self):
        # SIGTERM is what a batch system sends at a job's time limit, SIGINT what Ctrl-C sends.
        mpiexec = open_mpi_mpiexec()
        # SIGPIPE ends a rank that writes to mpiexec once mpiexec has gone.
        cases = [(0, signal.SIGTERM), (0, signal.SIGINT), (0, signal.SIGPIPE)]
        cases += [(2, signal.SIGTERM)] if mpiexec else []
        for ranks, sig in cases:
            with self.subTest(ranks=ranks, signal=sig.name):
                folder = self.path(f"{ranks}-{sig.name}")
                os.mkdir(folder)
                out = os.path.join(folder, "out.h5")
                with open(out, "w") as f:
                    f.write("old\n")
                # Alone, herd is started directly even where the other tests go through a launcher:
                # mpiexec -n 1 with the tests' flags kills herd before its handler can run.
                run = ["run", "--agents", "200000", "--steps", "100000", "--stepping", "pull", "--quiet",
                       "--output", out]
                command = [herd_files_test.HERD, *run] if ranks == 0 else [*mpiexec, "-n", str(ranks),
                                                                          herd_files_test.HERD, *run]
                process, errors = self.start(command, f"{ranks}-{sig.name}.stderr")

                def partial():
                    return [n for n in os.listdir(folder) if ".partial-" in n]

                self.wait_while_written(process, errors, partial)
                time.sleep(0.3)
                process.send_signal(sig)
                status = process.wait(timeout=120)
                if ranks == 0:
                    self.assertEqual(status, -sig, "ended by the signal itself")
                else:
                    self.assertNotEqual(status, 0)
                self.assertEqual(partial(), [])
                self.assertEqual(read(out), "old\n")

    def kill_rank_zero_while_writing(self, out, *run, ready=lambda: True):
        """Starts `herd run ... --quiet` on 2 ranks, SIGKILLs rank 0 once `ready()` holds and a file is
        written beside `out`, and checks that the job fails and leaves no such file."""
        mpiexec = open_mpi_mpiexec()
        if mpiexec is None:
            self.skipTest("needs Open MPI's mpiexec")
        folder = os.path.dirname(out)
        process, errors = self.start([*mpiexec, "-n", "2", herd_files_test.HERD, "run", *run, "--quiet"], "job.stderr")

        def partial():
            return [n for n in os.listdir(folder) if ".partial-" in n]

        def rank_zero():
            for pid in filter(str.isdigit, os.listdir("/proc")):
                try:
                    with open(f"/proc/{pid}/stat") as f:
                        parent = int(f.read().rsplit(")", 1)[1].split()[1])
                    with open(f"/proc/{pid}/environ", "rb") as f:
                        environment = f.read().split(b"\0")
                except OSError:
                    continue
                if parent == process.pid and b"OMPI_COMM_WORLD_RANK=0" in environment:
                    return int(pid)
            return None

        self.wait_while_written(process, errors, lambda: ready() and partial())
        time.sleep(1.0)  # past the collective steps by which every rank learns the name
        pid = rank_zero()
        self.assertIsNotNone(pid, "rank 0 should be a child of mpiexec")
        os.kill(pid, signal.SIGKILL)
        self.assertNotEqual(process.wait(timeout=120), 0)
        self.assertEqual(partial(), [])

    def test_a_rank_killed_outright_leaves_the_others_to_remove_the_shared_file(self):
        # Rank 0 made the file; SIGKILL (the kernel out of memory) gives it no chance to remove it,
        # and mpiexec then stops rank 1, which writes the same file.
        out = self.path("out.h5")
        with open(out, "w") as f:
            f.write("old\n")
        self.kill_rank_zero_while_writing(out, "--agents", "200000", "--steps", "100000", "--stepping", "pull",
                                          "--output", out)
        self.assertEqual(read(out), "old\n")

    def test_an_ensemble_checkpoint_rank_zero_writes_alone_goes_with_the_others_too(self):
        # Rank 0 writes the members' states; rank 1 learns each name it writes under, the first and
        # the copy it goes on writing once the file is put in place after a member.
        run = ["--agents", "200000", "--stepping", "pull"]
        with self.subTest("the first name"):
            out = self.path("first.h5")
            with open(out, "w") as f:
                f.write("old\n")
            self.kill_rank_zero_while_writing(out, *run, "--steps", "100000", "--replicates", "4", "--checkpoint", out)
            self.assertEqual(read(out), "old\n")
        with self.subTest("the copy after the file was put in place"):
            out = self.path("copy.h5")
            # Members of a few seconds each: the file is in place after the first round, and rank 0
            # is killed in the second.
            self.kill_rank_zero_while_writing(out, *run, "--steps", "2000", "--replicates", "6", "--checkpoint", out,
                                              "--checkpoint-every", "1", ready=lambda: os.path.exists(out))
            with h5py.File(out) as f:  # put in place after a round of 2 members, or of 4
                self.assertIn(f["/run"].attrs["members_done"], (2, 4))


class Schema(Case):
    def test_output_holds_the_time_series_the_final_state_and_snapshots_in_original_ids(self):
        out = self.path("out.h5")
        self.ok(0, "run", *RUN, "--output", out, "--snapshot-every", "10", "--csv", self.path("s.csv"))
        rows = [list(map(int, line.split(",")[1:])) for line in read(self.path("s.csv")).splitlines()[1:]]
        with h5py.File(out) as f:
            self.assertEqual(f.attrs["herd_format"], b"herd-output")
            self.assertEqual(f.attrs["format_version"], 1)
            history = f["run/history"][...]
            self.assertEqual(f["run/history"].attrs["columns"], b"S,E,I,R")
            self.assertEqual(history.tolist(), rows)
            state = f["agents/state"][...]
            self.assertEqual(state.dtype, np.uint8)
            self.assertEqual(f["agents/timer"].dtype, np.uint16)
            self.assertEqual(len(state), 20000)
            self.assertEqual(np.bincount(state, minlength=4).tolist(), rows[-1])
            self.assertEqual(sorted(f["snapshots"]), ["step_10", "step_20", "step_30", "step_40"])
            for step in [10, 20, 30]:
                snapshot = f[f"snapshots/step_{step}/state"][...]
                self.assertEqual(np.bincount(snapshot, minlength=4).tolist(), rows[step])
            graph_hash = int(f["run"].attrs["graph_hash"])
        # The record names the graph as a checkpoint's does, whether or not the run checkpoints.
        self.ok(0, "run", *RUN, "--checkpoint", self.path("c.h5"))
        with h5py.File(self.path("c.h5")) as f:
            self.assertNotEqual(graph_hash, 0)
            self.assertEqual(int(f["run"].attrs["graph_hash"]), graph_hash)
        # Relabelled for locality, or split over ranks: the same agents hold the same states.
        for ranks, extra in [(0, ["--reorder", "random"]),
                             (3, ["--partition", herd_files_test.metis_or_blocks()])]:
            other = self.path("other.h5")
            self.ok(ranks, "run", *RUN, "--output", other, *extra)
            with h5py.File(out) as a, h5py.File(other) as b:
                self.assertTrue(np.array_equal(a["agents/state"][...], b["agents/state"][...]))
                self.assertTrue(np.array_equal(a["agents/timer"][...], b["agents/timer"][...]))
                if ranks:
                    self.assertEqual(int(b["run"].attrs["graph_hash"]), graph_hash)
        self.assertEqual(sorted(os.listdir(self.dir.name)), ["c.h5", "other.h5", "out.h5", "s.csv"])


def rewrite(f, name, values):
    """Stores new values as another tool would, with the checksum recomputed."""
    f[name][...] = values
    f[name].attrs["checksum"] = checksum(values)


def set_where(f, name, where, equal, value):
    """Sets `name` to `value` for the first agent whose `where` equals `equal` (checksum kept valid)."""
    values = f[name][...]
    values[np.flatnonzero(f[where][...] == equal)[0]] = value
    rewrite(f, name, values)


def negative_count(f):
    """Row 3 with the right total, one count below zero."""
    history = f["run/history"][...]
    history[3, 0] += history[3, 1] + 1
    history[3, 1] = -1
    rewrite(f, "run/history", history)


def set_history(f, row, column, value):
    history = f["run/history"][...]
    history[row, column] = value
    rewrite(f, "run/history", history)


def arguments_of(f):
    arguments = f["run"].attrs["arguments"]
    return arguments.decode() if isinstance(arguments, bytes) else arguments


class BadFiles(Case):
    def setUp(self):
        super().setUp()
        self.good = self.path("good.h5")
        self.ok(0, "run", *RUN, "--checkpoint", self.good)

    def damaged(self, change):
        self.count = getattr(self, "count", 0) + 1
        bad = self.path(f"bad{self.count}.h5")
        shutil.copy(self.good, bad)
        with h5py.File(bad, "r+") as f:
            change(f)
        return bad

    def refused(self, path, message, ranks=0):
        result = herd(ranks, "resume", path, "--steps", "50", "--csv", self.path("never.csv"))
        self.assertEqual(result.returncode, 1, result.stderr)
        lines = [line for line in result.stderr.splitlines() if line.startswith("herd:")]
        self.assertEqual(len(lines), 1, result.stderr)
        self.assertIn(os.path.basename(path), lines[0])
        self.assertIn(message, lines[0])
        self.assertFalse(os.path.exists(self.path("never.csv")))

    def test_a_folder_or_a_pipe_is_named_as_such(self):
        os.mkdir(self.path("folder.h5"))
        self.refused(self.path("folder.h5"), "is a directory, not an HDF5 file")
        os.mkfifo(self.path("pipe.h5"))
        self.refused(self.path("pipe.h5"), "is not a regular file")
        # MPI-IO's own complaint about the pipe is not printed beside it.
        result = herd(0, "resume", self.path("pipe.h5"))
        self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)
        # A missing file in the system's words, as a text file's, not MPI-IO's MPI_ERR_NO_SUCH_FILE.
        for ranks in (0, 2):
            self.refused(self.path("missing.h5"), "missing.h5: cannot open the file (No such file or directory)", ranks)

    def test_every_damage_is_named(self):
        def replace(name, data):
            return lambda f: (f.__delitem__(name), f.create_dataset(name, data=data))

        state = lambda: h5py.File(self.good)["agents/state"][...]
        cases = [
            (self.path("missing.h5"), "missing.h5: cannot open the file"),
            (self.damaged(lambda f: f.attrs.__setitem__("format_version", 2)), "format version 2 is newer"),
            (self.damaged(lambda f: f.attrs.__setitem__("herd_format", "herd-output")), "not a herd-checkpoint"),
            (self.damaged(lambda f: f.attrs.__delitem__("herd_format")), "no herd_format attribute"),
            (self.damaged(lambda f: f.attrs.__setitem__("herd_format", 7)), "its herd_format attribute is not text"),
            (self.damaged(lambda f: f.__delitem__("agents/timer")), "/agents/timer is missing"),
            (self.damaged(replace("agents/state", state().astype(np.float32))), "holds float32 values"),
            (self.damaged(replace("agents/state", state()[:-1])), "does not hold one value for each"),
            (self.damaged(lambda f: f["run"].attrs.__setitem__("agents", 19999)), "written for a graph of 19999"),
            (self.damaged(lambda f: f["run"].attrs.__setitem__("step", 99)), "/run/history does not hold 100 rows"),
            (self.damaged(lambda f: set_where(f, "agents/state", "agents/state", 0, 3)),
             "does not give the observables recorded"),
            # A state or a timer no run reaches, and a count no run gives: refused before any step.
            (self.damaged(lambda f: set_where(f, "agents/state", "agents/state", 0, 200)),
             "1 agents hold a state the model never reaches"),
            (self.damaged(lambda f: set_where(f, "agents/timer", "agents/state", 0, 5)),
             "1 agents hold a state the model never reaches"),
            (self.damaged(lambda f: set_history(f, 3, 1, 1004975)), "/run/history row 3 counts"),
            (self.damaged(negative_count), "/run/history row 3 holds a negative count"),
            # Values changed without their checksum: a damaged disk, or an edit by another tool.
            (self.damaged(lambda f: f["run/history"].__setitem__((3, 1), 1004975)),
             "/run/history: the values differ from the dataset's stored checksum"),
            # The arguments rebuild the model: a parameter changed in them ran on with it.
            (self.damaged(lambda f: f["run"].attrs.__setitem__("arguments", arguments_of(f) + "\n--beta\n0.09")),
             "/run: the arguments differ from their stored hash"),
            (self.damaged(lambda f: f.__delitem__("run/history")), "/run/history is missing"),
        ]
        flipped = self.path("flipped.h5")
        shutil.copy(self.good, flipped)
        flip_byte(flipped, "agents/timer", 1234)
        cases.append((flipped, "/agents/timer: the values differ from the dataset's stored checksum"))
        truncated = self.path("truncated.h5")
        with open(self.good, "rb") as src, open(truncated, "wb") as dst:
            dst.write(src.read()[: os.path.getsize(self.good) // 2])
        cases.append((truncated, "truncated"))
        junk = self.path("junk.h5")
        with open(junk, "w") as f:
            f.write("0 1\n1 2\n")
        cases.append((junk, "not a readable HDF5 file"))
        for path, message in cases:
            with self.subTest(message=message):
                self.refused(path, message)
        for path, message in cases[4:7] + [(flipped, "stored checksum")]:
            with self.subTest(message=message, ranks=2):
                self.refused(path, message, ranks=2)
        # Agents in states no run reaches, spread over the ranks: counted over all of them, one line
        # as one process gives it.
        spread = state()
        spread[::200] = 200
        spread = self.damaged(replace("agents/state", spread))
        for ranks in (0, 3):
            with self.subTest(message="spread", ranks=ranks):
                self.refused(spread, ": 100 agents hold a state the model never reaches", ranks=ranks)
                result = herd(ranks, "resume", spread, "--steps", "50")
                self.assertNotIn("(rank", result.stderr)

    def test_a_covid_timer_no_run_reaches_is_refused(self):
        ckpt = self.path("covid.h5")
        self.ok(0, "run", "--model", "covid", "--graph", "erdos-renyi", "--agents", "5000", "--steps", "6",
                "--checkpoint", ckpt, "--quiet")
        for stage in (1, 2):  # an exposed and an infected agent
            bad = self.path(f"covid{stage}.h5")
            shutil.copy(ckpt, bad)
            with h5py.File(bad, "r+") as f:
                set_where(f, "agents/timer", "agents/stage", stage, 200)
            self.refused(bad, "1 agents hold a state the model never reaches")

    def test_an_isolation_timer_no_run_gives_is_refused(self):
        scenario = self.path("isolate.json")
        with open(scenario, "w") as f:
            json.dump({"events": [{"steps": [1, 20], "isolate": {"probability": 0.6, "duration": 7}}]}, f)
        ckpt = self.path("iso.h5")
        self.ok(0, "run", "--model", "seir", "--agents", "20000", "--beta", "0.3", "--steps", "12", "--quiet",
                "--scenario", scenario, "--checkpoint", ckpt)
        # Longer than the scenario's isolation, checksum rewritten as another tool would.
        with h5py.File(ckpt, "r+") as f:
            timers = f["scenario/isolation"][...]
            # Words from 0x8000 up hold a free spreader's detection drawn ahead, not an isolation.
            isolated = np.where(timers < 0x8000, timers, 0)
            self.assertEqual(isolated.max(), 7)
            self.assertGreater((timers >= 0x8000).sum(), 0)
            timers[int(np.argmax(isolated))] = 30
            rewrite(f, "scenario/isolation", timers)
        for ranks in (0, 2) if herd_files_test.MPIEXEC else (0,):
            with self.subTest(ranks=ranks):
                self.refused(ckpt, "an agent's isolation timer holds 30 steps, beyond the scenario's longest "
                                   "isolation of 7", ranks=ranks)

    def test_arguments_that_contradict_the_record_are_refused(self):
        def other_seed(f):
            f["run"].attrs["arguments"] = arguments_of(f) + "\n--seed\n99"
            del f["run"].attrs["arguments_hash"]  # as in a file from before the arguments had one

        self.refused(self.damaged(other_seed), "its stored arguments give --model seir --seed 99, but /run records")

    def test_every_dataset_carries_the_documented_checksum(self):
        with h5py.File(self.good, "r") as f:
            datasets = []
            f.visititems(lambda name, obj: datasets.append(name) if isinstance(obj, h5py.Dataset) else None)
            self.assertIn("agents/state", datasets)
            for name in datasets:
                with self.subTest(dataset=name):
                    self.assertEqual(f[name].attrs["checksum"], checksum(f[name][...]))

    def test_option_mistakes_are_usage_errors(self):
        ckpt = self.path("c.h5")
        for args in [["--checkpoint-every", "5"], ["--snapshot-every", "5"],
                     # A checkpoint keeps the arguments a line each; stale ghosts are not saved.
                     ["--checkpoint", ckpt, "--csv", "o\n--beta\n0.5"],
                     ["--checkpoint", ckpt, "--exchange-every", "3"]]:
            result = herd(0, "run", *RUN, *args)
            self.assertEqual(result.returncode, 2, result.stderr)
            self.assertFalse(os.path.exists(ckpt))
        self.assertEqual(herd(0, "resume").returncode, 2)
        # A resumed run may choose its halo's transport anew, but only one.
        self.ok(0, "run", *[a if a != "40" else "3" for a in RUN], "--staged-mpi", "--checkpoint", ckpt)
        result = herd(0, "resume", ckpt, "--steps", "5", "--gpu-aware-mpi", "--staged-mpi")
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("--gpu-aware-mpi and --staged-mpi contradict each other", result.stderr)
        later = self.path("later.h5")
        self.ok(0, "resume", ckpt, "--steps", "5", "--gpu-aware-mpi", "--checkpoint", later)
        self.ok(0, "resume", later, "--steps", "7")  # its arguments hold both, the later one last


class ContinuousOpinions(Case):
    def test_half_opinions_are_2_bytes_and_the_same_bits_on_any_rank_count_and_after_resume(self):
        args = ["run", "--model", "degroot", "--graph", "power-law", "--agents", "20000", "--precision", "half",
                "--quiet"]
        finals = {}
        for ranks in [0, 3]:
            out = self.path(f"o{ranks}.h5")
            self.ok(ranks, *args, "--steps", "12", "--output", out, "--partition",
                    herd_files_test.metis_or_blocks())
            with h5py.File(out, "r") as f:
                self.assertEqual(f["agents/opinion"].dtype, np.float16)
                finals[ranks] = f["agents/opinion"][()]
        np.testing.assert_array_equal(finals[0].view(np.uint16), finals[3].view(np.uint16))
        self.assertGreater(np.ptp(finals[0]), 0.0)
        ckpt = self.path("c.h5")
        self.ok(2, *args, "--steps", "5", "--checkpoint", ckpt)
        self.ok(0, "resume", ckpt, "--steps", "12", "--output", self.path("r.h5"))
        with h5py.File(self.path("r.h5"), "r") as f:
            np.testing.assert_array_equal(f["agents/opinion"][()].view(np.uint16), finals[0].view(np.uint16))


if __name__ == "__main__":
    herd_files_test.configure(sys.argv)
    unittest.main(argv=[sys.argv[0], "-v"])
