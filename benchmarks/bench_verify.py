"""Time ``sabounds verify`` end to end against its 60 s target, and show where the time goes.

Runs the command ``--repeat`` times in fresh subprocesses (import and sympy set-up included) and
prints the median wall time, the ratio to the target, and the slowest checks of the last run.
Usage: python benchmarks/bench_verify.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

TARGET_SECONDS = 60.0


def run_once() -> tuple[float, dict]:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "sabounds", "verify", "--json"], capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"sabounds verify failed: {proc.stderr.strip()}")
    return wall, json.loads(proc.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    walls, report = [], {}
    for _ in range(args.repeat):
        wall, report = run_once()
        walls.append(wall)
    median = statistics.median(walls)
    checks = sorted(report["checks"], key=lambda c: -c["seconds"])
    print(f"sabounds verify: {len(report['checks'])} checks, summary {report['summary']}")
    print(f"wall time over {args.repeat} runs: median {median:.1f} s (min {min(walls):.1f}, max {max(walls):.1f})")
    print(f"target {TARGET_SECONDS:.0f} s: median / target = {median / TARGET_SECONDS:.2f}")
    print("slowest checks of the last run:")
    for c in checks[:6]:
        print(f"  {c['seconds']:7.2f} s  {c['id']}")


if __name__ == "__main__":
    main()
