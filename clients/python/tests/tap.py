"""Run unittest test modules and print TAP (for prove)."""
import sys
import unittest


class TapResult(unittest.TestResult):
    def __init__(self):
        super().__init__()
        self.n = 0

    def _line(self, ok, test, note=""):
        self.n += 1
        name = test.id().split(".", 1)[-1]
        print("%s %d - %s%s" % ("ok" if ok else "not ok", self.n, name, note))
        sys.stdout.flush()

    def addSuccess(self, test):
        super().addSuccess(test)
        self._line(True, test)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._line(False, test)
        for l in self._exc_info_to_string(err, test).splitlines():
            print("# " + l)

    def addError(self, test, err):
        super().addError(test, err)
        self._line(False, test)
        for l in self._exc_info_to_string(err, test).splitlines():
            print("# " + l)

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            self._line(False, subtest)
            for l in self._exc_info_to_string(err, test).splitlines():
                print("# " + l)

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._line(True, test, " # SKIP " + reason)


def main(names):
    loader = unittest.TestLoader()
    suite = unittest.TestSuite(loader.loadTestsFromName(n) for n in names)
    r = TapResult()
    suite.run(r)
    print("1..%d" % r.n)
    return 0 if r.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
