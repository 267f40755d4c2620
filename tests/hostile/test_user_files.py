"""Every file a command takes goes through the one bounded reader (``sabounds.numerics.user_files``, issue 34 item 1),
and every numeric option states its range (item 3): both found by walking the commands' argparse options, so a new
option that bypasses them fails here."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

import pytest

from sabounds.cli import build_parser, main
from sabounds.numerics import user_files
from sabounds.numerics.user_files import Limits, UserFileError, check_toml_shape, read_json, read_toml

FILE_METAVARS = ("FILE", "SOURCE")
"""The metavars of options and positionals that name a file the command reads (SOURCE: a list file of sweep)."""
NOT_NUMERIC = {"formats", "scheduler_address"}
"""Argument types that parse text, not numbers (a figure format list, a scheduler address)."""


def commands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def file_arguments() -> list[tuple[str, str | None]]:
    """(command, option) of every argument naming a file; option None for a positional."""
    return [
        (name, (a.option_strings or [None])[0])
        for name, cmd in commands().items()
        for a in cmd._actions
        if a.metavar in FILE_METAVARS
    ]


def test_the_file_arguments_are_found():
    assert {
        ("analyze", "--bound"),
        ("analyze", "--mapping"),
        ("scaling", "--mapping"),
        ("regimes", "--bound"),
        ("sweep", None),
    } <= set(file_arguments())


def _argv(command: str, option: str | None, path: str) -> list[str]:
    extra = ["--workers", "0", "--no-cache"] if command == "sweep" else []
    return [command, *extra, *([option] if option else []), path]


@pytest.mark.parametrize("command,option", file_arguments())
def test_every_file_argument_goes_through_the_bounded_reader(command, option, tmp_path, monkeypatch, capsys):
    path = tmp_path / ("deep.toml" if option else "list.txt")
    path.write_text("a" + ".a" * 29_000 + " = 1\n")
    seen = []
    opened = user_files._open_regular

    def spy(p, what, error):
        seen.append(os.fspath(p))
        return opened(p, what, error)

    monkeypatch.setattr(user_files, "_open_regular", spy)
    main(_argv(command, option, str(path)))
    assert str(path) in seen, f"{command} {option or 'positional'} read {path.name} without the bounded reader"


@pytest.mark.parametrize("command,option", [(c, o) for c, o in file_arguments() if o])
def test_a_fifo_as_any_file_argument_is_one_line(command, option, tmp_path):
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    p = subprocess.run(
        [sys.executable, "-m", "sabounds", *_argv(command, option, str(fifo))],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "not a regular file" in p.stderr, p.stderr[-2000:]


def numeric_options():
    return [
        (name, a)
        for name, cmd in commands().items()
        for a in cmd._actions
        if a.type is not None and getattr(a.type, "__name__", "") not in NOT_NUMERIC
    ]


@pytest.mark.parametrize("name,action", numeric_options(), ids=lambda x: x if isinstance(x, str) else x.dest)
def test_every_numeric_option_is_a_shared_ranged_parser_with_its_range_in_the_help(name, action):
    assert action.type not in (int, float), f"{name} {action.option_strings}: a bare {action.type.__name__}"
    text = getattr(action.type, "range", None)
    assert text, f"{name} {action.option_strings}: type {action.type} states no range"
    assert f"range: {text}" in " ".join(action.help.split()), action.help


def test_workers_and_scheduler_share_one_parser_in_sweep_and_study():
    found = {name: {a.dest: a.type for a in cmd._actions} for name, cmd in commands().items()}
    assert found["sweep"]["workers"] is found["study"]["workers"]
    assert found["sweep"]["scheduler"] is found["study"]["scheduler"]


@pytest.mark.parametrize(
    "argv",
    [
        ["sweep", "m", "--workers", "100000"],
        ["study", "--workers", "100000"],
        ["sweep", "m", "--workers", "-1"],
        ["analyze", "--threads", "100000"],
        ["conjecture", "x <= 1", "--time-limit", "inf"],
        ["conjecture", "x <= 1", "--time-limit", "nan"],
        ["analyze", "--rms-floor", "nan"],
        ["bound", "--n", "1e9", "--delta", "0.1", "--margin", "1", "--rms-floor", "-1"],
        ["study", "--scheduler", "ucx://host:1"],
        ["study", "--scheduler", ""],
        ["verify", "--precision", "9" * 5000],
    ],
)
def test_out_of_range_numbers_are_one_line(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.count("\n") == 1 and "Traceback" not in err, err


# --- the reader's caps, each one line naming the file and the limit ------------------------------------------------

LIMITS = Limits(64 * 1024, max_key_parts=4, max_depth=4, max_items=100, max_keys=64, max_digits=100)


@pytest.mark.parametrize(
    "text,words",
    [
        ("a" + ".a" * 29_000 + " = 1\n", "dotted parts"),
        ("[" + ".".join(["t"] * 10) + "]\n", "dotted parts"),
        ("x = {" + "a." * 10 + "b = 1}\n", "dotted parts"),
        ("x = " + "[" * 10 + "]" * 10 + "\n", "nest more than 4"),
        ("x = " + "{y = " * 10 + "1" + "}" * 10 + "\n", "nest more than 4"),
        ("x = [" + "1," * 200 + "]\n", "more than 100 items"),
        ("".join(f"k{i} = 1\n" for i in range(100)), "more than 64 keys"),
        ("x = " + "9" * 4301 + "\n", "4301 digits"),
        ("x = 1" + "_0" * 200 + "\n", "201 digits"),
        ("x = 0." + "1" * 500 + "\n", "500 digits"),
    ],
)
def test_toml_structure_caps(text, words):
    with pytest.raises(UserFileError, match=words) as exc:
        check_toml_shape(text, "f.toml", LIMITS)
    assert "f.toml" in str(exc.value) and "\n" not in str(exc.value)


@pytest.mark.parametrize(
    "text",
    [
        'a.b.c = 1\n[x.y]\nz = [[1, 2], [3]]\nq = {r = 1, s.t = "a.b.c.d.e.f.g = 1"}\n',
        's = """\nk.k.k.k.k.k = 1\n[[[[[\n"""\nn = 12345678901234567890\n',
        "lit = '''a.b.c.d.e.f'''\nf = 1.5e300\nd = 1979-05-27T07:32:00Z\n# a.b.c.d.e.f.g.h = 1\n",
    ],
)
def test_ordinary_toml_passes_the_shape_check(text):
    check_toml_shape(text, "f.toml", LIMITS)


def test_an_unterminated_string_is_linear(tmp_path):
    import time

    start = time.perf_counter()
    for text in ('x = """' + "a" * 2**19, "x = '''" + "b\\" * 2**18, 'x = "' * 2**17, "x = '" * 2**17):
        check_toml_shape(text, "f.toml", Limits(2**20, max_keys=2**17, max_items=2**17))
    assert time.perf_counter() - start < 5  # one pass: about 0.1 s per MiB (measured under load)


def test_json_caps(tmp_path):
    cases = {
        "deep.json": "[" * 100 + "]" * 100,
        "wide.json": "[" + "1," * 200 + "1]",
        "digits.json": '{"a": ' + "7" * 5000 + "}",
        "nan.json": '{"eps": NaN}',
        "inf.json": '{"eps": -Infinity}',
    }
    words = {
        "deep.json": "nests 100 levels",
        "wide.json": "values",
        "digits.json": "5000 digits",
        "nan.json": "holds NaN",
        "inf.json": "holds -Infinity",
    }
    for name, text in cases.items():
        (tmp_path / name).write_text(text)
        with pytest.raises(UserFileError, match=words[name]):
            read_json(tmp_path / name, "test file", LIMITS)


@pytest.mark.parametrize("kind", ["fifo", "folder", "device", "missing", "not-utf8", "too-big"])
def test_only_regular_files_within_the_size_are_read(tmp_path, kind):
    path = tmp_path / "f.toml"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    elif kind == "device":
        path.symlink_to("/dev/zero")
    elif kind == "not-utf8":
        path.write_bytes(b"x = '\xff'\n")
    elif kind == "too-big":
        with open(path, "wb") as fh:
            fh.truncate(6 * 2**30)
    with pytest.raises(UserFileError) as exc:
        read_toml(path, "test file", LIMITS)
    assert str(path) in str(exc.value) and "\n" not in str(exc.value)
