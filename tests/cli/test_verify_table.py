"""``sabounds verify`` prints a table that fits the terminal it is printed in, and --json errors are JSON."""

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow  # child processes at several terminal widths


def _verify(*args, columns=None):
    env = None
    if columns is not None:
        import os

        env = {**os.environ, "COLUMNS": str(columns)}
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from sabounds.cli import main; sys.exit(main(sys.argv[1:]))",
            "verify",
            *args,
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


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


def test_a_narrow_terminal_drops_columns_instead_of_folding_them_into_slivers():
    """Real checks (long claims and methods) at 80 columns: once every column was 2-3 characters wide and the table
    6851 lines long; now each column is at least 12 wide (or its longest cell) and columns are left out instead."""
    from sabounds.render.check_table import MIN_WIDTH, _column_widths

    proc = _verify("--only", "thm41.*", "--precision", "15", "--samples", "2", columns=80)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    widths = _column_widths(lines[0])
    assert len(widths) >= 2 and min(widths) >= min(MIN_WIDTH, len("verdict") + 1), widths
    rows = sum(1 for line in lines if line.startswith("│ thm41."))
    assert rows > 20 and len(lines) <= 12 * rows, (len(lines), rows)
    assert "left out to fit 80 columns" in proc.stdout


def test_fitting_table_gives_every_column_its_minimum_width():
    from sabounds.render.check_table import _COLUMNS, MIN_WIDTH, fitting_table

    long = "a long method description that needs to fold over several lines " * 3
    records = [
        {
            "id": f"thm41.step_{i}",
            "verdict": "verified",
            "claim": long,
            "method": long,
            "precision_digits": 50,
            "samples": 200,
            "seconds": 0.5,
        }
        for i in range(5)
    ]
    import io

    from rich.console import Console

    from sabounds.render.check_table import _column_widths

    for width in (60, 80, 100, 140):
        table, dropped = fitting_table(records, width)
        probe = Console(width=width, file=io.StringIO(), color_system=None, record=True)
        probe.print(table)
        widths = _column_widths(probe.export_text().splitlines()[0])
        natural = {"id": len("thm41.step_0"), "verdict": len("verdict"), "s": len("0.50")}
        for column, w in zip(_COLUMNS, widths):
            assert w >= min(MIN_WIDTH, natural.get(column, MIN_WIDTH)), (width, column, widths, dropped)
        assert len(widths) >= 2
