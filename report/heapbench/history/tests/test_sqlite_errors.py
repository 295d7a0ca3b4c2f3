"""test_sqlite_errors.py - what an SQLite history says when it cannot be used: each cause its own
message, read-only use on a read-only history, and "damaged" only for a file SQLite cannot read.

Always holds: read commands (testbeds, changes, report, export) open the file read-only and never
create one; a read-only mount and a full disk are real tmpfs mounts made here (root only, else the
test is skipped saying why) and unmounted at the end; every refusal is one line, exit 2.
"""
import os
import shutil
import subprocess
import tempfile
import unittest

import histfix
from histfix import cell, run_cli, write_run

KEY = ("churn", "glibc", 1, "", "")


def mount_tmpfs(path, size):
    """Mounts a tmpfs of size at path; '' when done, else why it could not be."""
    if os.geteuid() != 0:
        return "mounting a tmpfs needs root"
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", path], capture_output=True, text=True)
    return "" if done.returncode == 0 else f"mount failed: {done.stderr.strip()}"


class SqliteErrorsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="hb-history-errors-")
        self.mnt = os.path.join(self.tmp, "mnt")
        os.mkdir(self.mnt)
        self.mounted = False

    def tearDown(self):
        if self.mounted:
            subprocess.run(["umount", self.mnt], capture_output=True)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def cli(self, *args):
        return run_cli(list(args), self.tmp)

    def refused(self, done, word):
        """done exited 2 with one stderr line containing word and not 'damaged'."""
        self.assertEqual(done.returncode, 2, done.stderr)
        lines = done.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, done.stderr)
        self.assertIn(word, lines[0])
        self.assertNotIn("damaged", lines[0])
        self.assertNotIn("Traceback", done.stderr)

    def mount(self, size):
        why = mount_tmpfs(self.mnt, size)
        if why:
            self.skipTest(why)
        self.mounted = True

    def run_dir(self, i):
        return write_run(os.path.join(self.tmp, f"r{i}"), {KEY: cell(1.0 + i / 10)}, run_id=f"r{i}")

    def test_read_commands_work_on_a_read_only_mount(self):
        self.mount("8m")
        db = os.path.join(self.mnt, "h.sqlite")
        for i in range(3):
            done = self.cli("add", "--db", db, "--label", f"v{i}", self.run_dir(i))
            self.assertEqual(done.returncode, 0, done.stderr)
        done = subprocess.run(["mount", "-o", "remount,ro", self.mnt], capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        for args in (["testbeds"], ["changes"], ["export", "--format", "csv"],
                     ["report", "-o", os.path.join(self.tmp, "site")]):
            done = self.cli(args[0], "--db", db, *args[1:])
            self.assertEqual(done.returncode, 0, (args, done.stderr))
        self.refused(self.cli("add", "--db", db, self.run_dir(5)), "cannot be written (a read-only")

    def test_a_full_disk_says_full(self):
        self.mount("1m")
        db = os.path.join(self.mnt, "h.sqlite")
        self.assertEqual(self.cli("add", "--db", db, self.run_dir(0)).returncode, 0)
        fd = os.open(os.path.join(self.mnt, "filler"), os.O_WRONLY | os.O_CREAT)
        try:  # the rest of the 1 MiB
            while os.write(fd, b"\0" * 4096):
                pass
        except OSError:
            pass
        finally:
            os.close(fd)
        big = write_run(os.path.join(self.tmp, "big"), {(f"w{i}", "glibc", 1, "", ""): cell(1.0, reps=20)
                                                        for i in range(400)}, run_id="big")
        self.refused(self.cli("add", "--db", db, big), "full")

    def test_read_commands_create_nothing(self):
        db = os.path.join(self.tmp, "typo.sqlite")
        for args in (["testbeds"], ["changes"], ["export", "--format", "csv"]):
            self.refused(self.cli(args[0], "--db", db, *args[1:]), "no history at")
        self.assertFalse(os.path.exists(db))

    def test_db_naming_a_directory(self):
        self.refused(self.cli("testbeds", "--db", self.tmp), "is a directory")
        self.refused(self.cli("add", "--db", self.tmp, self.run_dir(0)), "is a directory")

    def test_add_of_a_missing_directory(self):
        done = self.cli("add", "--db", os.path.join(self.tmp, "h.sqlite"), os.path.join(self.tmp, "typo-dir"))
        self.refused(done, "no such directory")
        self.assertNotIn("resume", done.stderr)
        self.assertNotIn("cut while", done.stderr)

    def test_order_must_be_finite(self):
        db = os.path.join(self.tmp, "h.sqlite")
        for bad in ("nan", "inf", "-inf", "1e999"):
            done = self.cli("add", "--db", db, "--order", bad, self.run_dir(0))
            self.assertEqual(done.returncode, 2, (bad, done.stderr))
            self.assertIn("--order", done.stderr)
            self.assertNotIn("damaged", done.stderr)
            self.assertNotIn("Traceback", done.stderr)


if __name__ == "__main__":
    unittest.main()
