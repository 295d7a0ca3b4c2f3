"""testrun.py - runs a folder's unittest tests (test_*.py) in the project's test format (python3 -m heapbench.testrun DIR).

Used by report/heapbench/compare/tests/run and report/heapbench/tests/run; run_functions() serves the function-style test
files of report/heapbench/report/tests. Always holds: one line per test, "PASS name" or
"FAIL name: why" ("SKIP name: why" for a test that needs what this machine lacks, counted in
neither), then exactly one closing line "N passed, N failed"; exit 1 on any failure, 2 on a usage
error. The folder is unittest's top-level directory, so its helper modules import by name.
"""
import sys
import unittest

from heapbench import cli


class PassFailResult(unittest.TestResult):
    """A unittest result that prints the project's PASS/FAIL lines as tests end."""

    def __init__(self):
        super().__init__()
        self.passed = 0

    def addSuccess(self, test):
        """Counts and prints one PASS line."""
        self.passed += 1
        print(f"PASS {test.id().split('.', 1)[1]}", flush=True)

    def _fail(self, test, err):
        """Prints one FAIL line with the last line of the traceback (a class or module fixture's error has no dot)."""
        why = self._exc_info_to_string(err, test).strip().splitlines()[-1]
        name = test.id() if test.id().endswith(")") and " (" in test.id() and "." not in test.id().split(" (")[0] \
            else test.id().split(".", 1)[-1]  # "setUpClass (module.Class)" whole; "module.Class.test (k=2)" less module
        print(f"FAIL {name}: {why}", flush=True)

    def addFailure(self, test, err):
        """A failed assertion: FAIL line."""
        super().addFailure(test, err)
        self._fail(test, err)

    def addError(self, test, err):
        """An exception in a test: FAIL line."""
        super().addError(test, err)
        self._fail(test, err)

    def addSubTest(self, test, subtest, err):
        """A failed subTest: FAIL line naming the subtest (unittest counts it without calling addFailure)."""
        super().addSubTest(test, subtest, err)
        if err is not None:
            self._fail(subtest, err)

    def addSkip(self, test, reason):
        """A test that cannot run here: SKIP line, counted in neither total."""
        print(f"SKIP {test.id().split('.', 1)[1]}: {reason}", flush=True)


def run_functions(namespace, label):
    """Runs every callable test_* of namespace (a test module's globals()) in name order, printing
    "PASS label.name" or "FAIL label.name: why" (no closing line: the caller's tests/run counts);
    returns the exit status, 1 when any failed."""
    failed = 0
    for name, func in sorted(namespace.items()):
        if name.startswith("test_") and callable(func):
            try:
                func()
                print(f"PASS {label}.{name[5:]}")
            except AssertionError as err:
                failed += 1
                print(f"FAIL {label}.{name[5:]}: {err}")
    return 1 if failed else 0


def main(argv):
    """Discovers and runs every test of the folder argv[0]; prints the closing line; returns the exit status."""
    if len(argv) != 1:
        cli.usage_exit("heapbench.testrun", "give one folder of test_*.py files, e.g. report/heapbench/compare/tests")
    suite = unittest.defaultTestLoader.discover(argv[0], pattern="test_*.py", top_level_dir=argv[0])
    result = PassFailResult()
    suite.run(result)
    failed = len(result.failures) + len(result.errors)
    print(f"{result.passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
