#!/usr/bin/env python3
"""Lists the tests ctest skipped in one or more build trees, and why.

    python3 tests/list_skipped.py [--fail-on-missing-package] BUILD_DIR...

Reads each tree's ctest-junit.xml (ctest --output-junit ctest-junit.xml: which tests were skipped)
and Testing/Temporary/LastTest.log (their whole output: the reasons). A Qt Test program names each
skipped function and its reason on a "SKIP   :" line; a plain program that exits 77 (tests/gpu)
says why in its last output line. With --fail-on-missing-package the script exits 1 when a test
skipped because a Debian package is missing ("... (Debian package NAME)"): the set-up script
installs every package the tests need, so in CI such a skip is an error, not a skip.
"""
import argparse
import os
import re
import sys
import xml.etree.ElementTree as ET

SKIP_LINE = re.compile(r"^SKIP\s+: (\S+?\(.*?\)) (.*)$")
TOTALS = re.compile(r"^Totals: (\d+) passed, (\d+) failed, (\d+) skipped")
TESTING = re.compile(r"^\d+/\d+ Testing: (\S+)$")
MISSING_PACKAGE = re.compile(r"Debian packages? ")


def skipped_tests(junit_path):
    """[(name, ctest's reason)] of the tests the junit file marks as not run."""
    skipped = []
    for case in ET.parse(junit_path).getroot().iter("testcase"):
        mark = case.find("skipped")
        # A skip that the test reported (SKIP_REGULAR_EXPRESSION_MATCHED, SKIP_RETURN_CODE=77), not a
        # test that could not start ("Unable to find executable": ctest counts that as a failure).
        if case.get("status") == "notrun" and mark is not None and mark.get("message", "").startswith("SKIP_"):
            skipped.append((case.get("name"), mark.get("message", "")))
    return skipped


def outputs(log_path):
    """{test name: its whole output} from a LastTest.log."""
    found, name, lines, inside = {}, None, [], False
    with open(log_path, encoding="utf-8", errors="replace") as log:
        for line in log:
            line = line.rstrip("\n")
            match = TESTING.match(line)
            if match and not inside:
                name, lines = match.group(1), []
            elif line == "Output:" and name is not None and not inside:
                inside = True
                next(log, None)  # the dashes under "Output:"
            elif line == "<end of output>" and inside:
                found[name], inside = lines, False
            elif inside:
                lines.append(line)
    return found


def reasons(lines):
    """What a skipped test's output says: its SKIP lines, or else its last non-empty line."""
    said = []
    for line in lines:
        match = SKIP_LINE.match(line)
        if match:
            said.append(f"{match.group(1)}: {match.group(2)}")
    totals = [m for m in (TOTALS.match(line) for line in lines) if m]
    if said and totals:
        passed, _, skips = totals[-1].groups()
        said.insert(0, f"{skips} skipped, {passed} passed")
    if not said:
        rest = [line.strip() for line in lines if line.strip()]
        said.append(rest[-1] if rest else "(no output)")
    return said


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("builds", nargs="+", metavar="BUILD_DIR")
    parser.add_argument("--fail-on-missing-package", action="store_true",
                        help="exit 1 when a skip names a missing Debian package")
    args = parser.parse_args()
    count, missing = 0, []
    for build in args.builds:
        junit = os.path.join(build, "ctest-junit.xml")
        log = os.path.join(build, "Testing", "Temporary", "LastTest.log")
        if not os.path.exists(junit):
            print(f"{build}: no ctest-junit.xml (ctest did not run there with --output-junit ctest-junit.xml)")
            continue
        skipped = skipped_tests(junit)
        said = outputs(log) if os.path.exists(log) else {}
        print(f"{build}: {len(skipped)} test(s) skipped")
        for name, why in skipped:
            count += 1
            lines = reasons(said.get(name, [])) if name in said else [why]
            print(f"  {name} ({why})")
            for line in lines:
                print(f"      {line}")
                if MISSING_PACKAGE.search(line):
                    missing.append(f"{build}: {name}: {line}")
    if args.fail_on_missing_package and missing:
        print("error: these tests skipped for want of a package that packaging/setup-debian.sh installs:")
        for line in missing:
            print(f"  {line}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
