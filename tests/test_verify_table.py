"""``sabounds verify`` prints a table that fits the terminal it is printed in, and --json errors are JSON."""

import json
import subprocess
import sys

import pytest


def _verify(*args, columns=None):
    env = None
    if columns is not None:
        import os
        env = {**os.environ, "COLUMNS": str(columns)}
    return subprocess.run([sys.executable, "-c", "import sys; from sabounds.cli import main; sys.exit(main(sys.argv[1:]))",
                           "verify", *args], capture_output=True, text=True, env=env, timeout=300)


@pytest.mark.parametrize("columns", [72, 100, 160])
def test_table_fits_the_terminal(columns):
    proc = _verify("--only", "thm41.constant*", columns=columns)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert any("thm41.constant_at_2" in line.replace("│", "") or "constant_at" in line for line in lines)
    assert max(len(line) for line in lines) <= columns
    assert any("proved" in line for line in lines)


def test_json_error_is_json():
    proc = _verify("--only", "no-such-check", "--json")
    assert proc.returncode == 2
    record = json.loads(proc.stdout)
    assert record["exit_status"] == 2 and "no-such-check" in record["error"]
    assert proc.stderr.count("\n") == 1


def test_json_error_for_bad_settings():
    proc = _verify("--precision", "5", "--json")
    assert proc.returncode == 2 and "error" in json.loads(proc.stdout)
