#!/usr/bin/env python3
"""Time `plan --format json` on every plan of one or more corpus folders.

Each plan is copied to a temporary folder as EXECUTION_PLAN.md and read
three times as a whole process; the best of the three counts. Prints the
number of plans and the slowest, with its name.

Usage: scripts/bench-corpus-times.py BIN DIR [DIR...]
"""
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time


def main() -> None:
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    binary, dirs = sys.argv[1], sys.argv[2:]
    files = set()
    for d in dirs:
        for f in glob.glob(os.path.join(d, "*.md")):
            if os.path.basename(f).startswith(("SOURCES", "README")):
                continue
            files.add(os.path.realpath(f))
    work = tempfile.mkdtemp()
    worst = (0.0, "")
    try:
        for f in sorted(files):
            shutil.copy(f, os.path.join(work, "EXECUTION_PLAN.md"))
            best = float("inf")
            for _ in range(3):
                start = time.perf_counter()
                subprocess.run(
                    [binary, "plan", "--format", "json", "EXECUTION_PLAN.md"],
                    cwd=work,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
                best = min(best, time.perf_counter() - start)
            worst = max(worst, (best, os.path.basename(f)))
    finally:
        shutil.rmtree(work)
    print(f"{len(files)} plans; slowest best-of-3: {worst[0] * 1000:.1f} ms {worst[1]}")


if __name__ == "__main__":
    main()
