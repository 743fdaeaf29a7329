"""The rules for the herd command's outputs (docs/cli.md, "Output files"): a device, FIFO or
symlink is never replaced, an output never overwrites an input or another output, and files beside
an output are never touched."""

import json
import os
import resource
import signal
import stat
import subprocess
import sys
import tempfile
import unittest

HERD = None
RUN = ["run", "--quiet", "--model", "sir", "--graph", "erdos-renyi", "--agents", "2000", "--mean-degree", "4",
       "--steps", "5"]


def herd(*args, cwd=None):
    env = dict(os.environ, OMP_NUM_THREADS="2", OMP_PROC_BIND="false")
    return subprocess.run([HERD, *args], capture_output=True, text=True, env=env, timeout=300, cwd=cwd)


def read(path):
    with open(path) as f:
        return f.read()


def has_hdf5():
    return "need HDF5" not in herd(*RUN, "--output", "/nonexistent/x.h5").stderr


class OutputFiles(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def path(self, name):
        return os.path.join(self.dir.name, name)

    def ok(self, *args):
        result = herd(*args, cwd=self.dir.name)
        self.assertEqual(result.returncode, 0, result.stderr)
        return result

    def refused(self, status, message, *args):
        result = herd(*args, cwd=self.dir.name)
        self.assertEqual(result.returncode, status, result.stderr)
        lines = result.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, result.stderr)
        self.assertIn(message, lines[0])

    @unittest.skipUnless(hasattr(os, "geteuid") and os.geteuid() == 0, "mknod needs root")
    def test_devices_are_written_in_place_never_replaced(self):
        os.mknod(self.path("null"), stat.S_IFCHR | 0o666, os.makedev(1, 3))
        os.mknod(self.path("full"), stat.S_IFCHR | 0o666, os.makedev(1, 7))
        for option in ["--csv", "--json", "--profile-steps"]:
            with self.subTest(option=option):
                self.ok(*RUN, option, self.path("null"))
                self.assertTrue(stat.S_ISCHR(os.lstat(self.path("null")).st_mode))
        # A full device fails the run, and stays a device.
        self.refused(1, "No space left on device", *RUN, "--csv", self.path("full"))
        self.assertTrue(stat.S_ISCHR(os.lstat(self.path("full")).st_mode))
        # An HDF5 file needs a regular file: refused before the run, the device kept.
        if has_hdf5():
            for option in ["--output", "--checkpoint"]:
                self.refused(1, "must be a regular file", *RUN, option, self.path("null"))
            self.assertTrue(stat.S_ISCHR(os.lstat(self.path("null")).st_mode))

    def test_standard_output_and_fifos_get_the_output(self):
        result = self.ok(*RUN, "--csv", "-")
        self.assertTrue(result.stdout.startswith("step,S,I,R\n0,1990,10,0\n"), result.stdout)
        os.symlink("/proc/self/fd/1", self.path("so"))
        result = self.ok(*RUN, "--csv", self.path("so"))
        self.assertTrue(result.stdout.startswith("step,S,I,R\n"), result.stdout)
        self.assertTrue(os.path.islink(self.path("so")))
        os.mkfifo(self.path("fifo"))
        reader = subprocess.Popen(["cat", self.path("fifo")], stdout=subprocess.PIPE, text=True)
        self.ok(*RUN, "--csv", self.path("fifo"))
        self.assertTrue(reader.communicate(timeout=60)[0].startswith("step,S,I,R\n"))
        self.assertTrue(stat.S_ISFIFO(os.lstat(self.path("fifo")).st_mode))

    def test_standard_output_redirected_to_a_file_keeps_every_output(self):
        # Written through the process's own descriptor: the summary comes after the CSV, not over it.
        with open(self.path("out.txt"), "w") as out:
            result = subprocess.run([HERD, *[a for a in RUN if a != "--quiet"], "--csv", "/dev/stdout", "--json",
                                     "/dev/stdout", "--record", "-"], stdout=out, stderr=subprocess.PIPE, text=True,
                                    env=dict(os.environ, OMP_NUM_THREADS="2", OMP_PROC_BIND="false"), timeout=300)
        self.assertEqual(result.returncode, 0, result.stderr)
        text = read(self.path("out.txt"))
        self.assertTrue(text.startswith("step,S,I,R\n0,1990,10,0\n"), text[:200])
        self.assertIn('"agents": 2000', text)
        # The summary table goes to standard error, out of the outputs' way.
        self.assertNotIn("model sir", text)
        self.assertIn("model sir", result.stderr)
        self.assertEqual(os.listdir(self.dir.name), ["out.txt"])

    def test_names_as_long_as_the_folder_allows_are_written(self):
        # The temporary beside each is cut short where its suffix would pass the folder's limit.
        longest = os.pathconf(self.dir.name, "PC_NAME_MAX")
        for length in [240, 241, longest]:
            with self.subTest(length=length):
                name = "q" * (length - 4) + ".csv"
                self.ok(*RUN, "--csv", name)
                self.assertTrue(read(self.path(name)).startswith("step,S,I,R\n"))
                os.remove(self.path(name))
        self.assertEqual(os.listdir(self.dir.name), [])

    def test_an_output_on_standard_output_sends_the_table_to_standard_error(self):
        loud = [a for a in RUN if a != "--quiet"]
        for option in ["--json", "--csv", "--record", "--profile-steps"]:
            for name in ["-", "/dev/stdout"]:
                with self.subTest(option=option, name=name):
                    result = self.ok(*loud, option, name)
                    self.assertIn("model sir", result.stderr)
                    self.assertNotIn("model sir", result.stdout)
                    if option in ("--json", "--record"):
                        json.loads(result.stdout)  # nothing but the output
        # Without one, the table is standard output's.
        self.assertIn("model sir", self.ok(*loud).stdout)

    def test_links_that_cannot_be_followed_are_refused_and_links_kept(self):
        os.symlink("loop", self.path("loop"))
        self.refused(1, "too many levels of symlinks", *RUN, "--csv", "loop")
        os.mkdir(self.path("d"))
        os.symlink("d/later.jsonl", self.path("rec.jsonl"))
        self.ok(*RUN, "--record", "rec.jsonl")
        self.assertTrue(os.path.islink(self.path("rec.jsonl")))
        self.assertEqual(len(read(self.path("d/later.jsonl")).splitlines()), 1)

    def test_a_symlink_stays_and_its_target_is_replaced(self):
        os.mkdir(self.path("d"))
        with open(self.path("d/real.csv"), "w") as f:
            f.write("old\n")
        os.chmod(self.path("d/real.csv"), 0o640)
        os.symlink("d/real.csv", self.path("link.csv"))
        self.ok(*RUN, "--csv", self.path("link.csv"))
        self.assertTrue(os.path.islink(self.path("link.csv")))
        self.assertTrue(read(self.path("d/real.csv")).startswith("step,S,I,R\n"))
        self.assertEqual(stat.S_IMODE(os.stat(self.path("d/real.csv")).st_mode), 0o640)
        self.assertEqual(sorted(os.listdir(self.dir.name)), ["d", "link.csv"])
        self.assertEqual(os.listdir(self.path("d")), ["real.csv"])

    def test_an_output_never_overwrites_an_input_or_another_output(self):
        with open(self.path("in.txt"), "w") as f:
            f.write("0 1\n1 2\n2 3\n")
        with open(self.path("attr.csv"), "w") as f:
            f.write("id,age_group\n0,U19\n1,U19\n2,U19\n3,U19\n")
        with open(self.path("events.json"), "w") as f:
            f.write('{"events": [{"steps": [1, 2], "import": 1}]}\n')
        os.link(self.path("in.txt"), self.path("hard.txt"))
        os.symlink("in.txt", self.path("soft.txt"))
        cases = [
            (["run", "--graph", "in.txt", "--steps", "2", "--csv", "in.txt"], "--csv in.txt: is the input --graph"),
            (["run", "--graph", "in.txt", "--steps", "2", "--csv", "./in.txt"], "is the input --graph in.txt"),
            (["run", "--graph", "in.txt", "--steps", "2", "--json", "hard.txt"], "is the input --graph in.txt"),
            (["run", "--graph", "soft.txt", "--steps", "2", "--profile-steps", "in.txt"], "is the input --graph"),
            (["run", "--model", "covid", "--graph", "in.txt", "--attributes", "attr.csv", "--steps", "2",
              "--json", "attr.csv"], "--json attr.csv: is the input --attributes attr.csv"),
            (RUN + ["--scenario", "events.json", "--csv", "events.json"],
             "--csv events.json: is the input --scenario events.json"),
            (RUN + ["--csv", "x", "--json", "./x"], "--json ./x: is also --csv x"),
            (RUN + ["--csv", "x", "--record", "x"], "--record x: is also --csv x"),
        ]
        if has_hdf5():
            cases += [
                (["convert", "in.txt", "-o", "in.txt"], "--output in.txt: is the input --graph in.txt"),
                (RUN + ["--checkpoint", "x.h5", "--output", "x.h5"], "--output x.h5: is also --checkpoint x.h5"),
            ]
        for args, message in cases:
            with self.subTest(args=args):
                self.refused(2, message, *args)
                self.assertEqual(read(self.path("in.txt")), "0 1\n1 2\n2 3\n")
                self.assertEqual(read(self.path("events.json")), '{"events": [{"steps": [1, 2], "import": 1}]}\n')
                self.assertFalse(os.path.exists(self.path("x")))
                self.assertFalse(os.path.exists(self.path("x.h5")))
        # /dev/null may take every output.
        self.ok(*RUN, "--csv", "/dev/null", "--json", "/dev/null")

    def test_a_population_file_survives_a_checkpoint_named_like_it(self):
        if not has_hdf5():
            self.skipTest("built without HDF5")
        self.ok("convert", "erdos-renyi", "--agents", "2000", "--mean-degree", "4", "-o", "pop.h5")
        before = os.stat(self.path("pop.h5"))
        self.refused(2, "--checkpoint pop.h5: is the input --graph pop.h5",
                     "run", "--model", "sir", "--graph", "pop.h5", "--steps", "3", "--checkpoint", "pop.h5")
        self.assertEqual(os.stat(self.path("pop.h5")).st_ino, before.st_ino)

    def test_a_full_disk_gives_one_message_and_leaves_no_file(self):
        # The disk "fills" at 4 MB: writes beyond it fail with EFBIG instead of killing the process.
        if not has_hdf5():
            self.skipTest("built without HDF5")

        def small_disk():
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (4 << 20, 4 << 20))

        generated = ["erdos-renyi", "--agents", "200000", "--mean-degree", "8"]
        # A run's snapshots of a million agents outgrow the disk; so does the graph of convert.
        run = ["run", "--model", "sir", "--graph", "erdos-renyi", "--agents", "1000000", "--mean-degree", "2",
               "--steps", "4", "--snapshot-every", "1", "--output", "o.h5"]
        cases = [["convert", *generated, "-o", "p.h5"], run,
                 [*run, "--checkpoint", "c.h5", "--checkpoint-every", "1"]]
        for args in cases:
            with self.subTest(args=args):
                env = dict(os.environ, OMP_NUM_THREADS="2", OMP_PROC_BIND="false")
                result = subprocess.run([HERD, *args, "--quiet"], capture_output=True, text=True, env=env,
                                        timeout=300, cwd=self.dir.name, preexec_fn=small_disk)
                self.assertEqual(result.returncode, 1, result.stderr)
                lines = [l for l in result.stderr.splitlines() if l.startswith("herd: ")]
                self.assertEqual(len(lines), 1, result.stderr)
                self.assertIn("writing", lines[0])
                # Complete checkpoints may stay (each replaced the last once whole); nothing else.
                self.assertEqual([f for f in os.listdir(self.dir.name) if f != "c.h5"], [])

    def test_an_output_that_fails_leaves_none_of_the_others(self):
        # /dev/full takes the JSON last; the files written before it must not appear either, and
        # files of their names from before stay as they were.
        with open(self.path("c.csv"), "w") as f:
            f.write("mine\n")
        files = ["--csv", "c.csv", "--profile-steps", "p.csv"]
        if has_hdf5():
            files += ["--output", "o.h5", "--checkpoint", "k.h5"]
        for extra in [[], ["--replicates", "3"]]:
            args = [*RUN, *files, *extra, "--json", "/dev/full"]
            if extra:
                args.remove("--profile-steps")
                args.remove("p.csv")
            with self.subTest(extra=extra):
                self.refused(1, "/dev/full: writing failed", *args)
                self.assertEqual(sorted(os.listdir(self.dir.name)), ["c.csv"])
                self.assertEqual(read(self.path("c.csv")), "mine\n")
        self.ok(*RUN, *files, "--json", "j.json")
        self.assertNotEqual(read(self.path("c.csv")), "mine\n")

    def test_files_beside_an_output_are_never_touched(self):
        for name in ["y.csv.tmp", "y.csv.partial", "z.h5.partial", "z.h5.tmp"]:
            with open(self.path(name), "w") as f:
                f.write("mine\n")
        args = [*RUN, "--csv", "y.csv"] + (["--output", "z.h5", "--checkpoint", "c.h5"] if has_hdf5() else [])
        self.ok(*args)
        for name in ["y.csv.tmp", "y.csv.partial", "z.h5.partial", "z.h5.tmp"]:
            self.assertEqual(read(self.path(name)), "mine\n", name)
        self.assertTrue(all("partial-" not in n for n in os.listdir(self.dir.name)), os.listdir(self.dir.name))

    def test_read_only_and_unnamed_outputs_are_refused(self):
        with open(self.path("ro.csv"), "w") as f:
            f.write("keep\n")
        os.chmod(self.path("ro.csv"), 0o444)
        self.refused(1, "--csv ro.csv: the file is read-only", *RUN, "--csv", "ro.csv")
        self.assertEqual(read(self.path("ro.csv")), "keep\n")
        for option in ["--csv", "--json", "--record", "--profile-steps", "--checkpoint", "--output", "--graph"]:
            with self.subTest(option=option):
                self.refused(2, f"{option}: needs a file name", "run", "--agents", "1000", option, "")


if __name__ == "__main__":
    HERD = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
