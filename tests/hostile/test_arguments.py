"""Arguments beyond the documented caps (sabounds/limits.py) and malformed ones (tests/support/hostile.py ARGUMENT_CASES):
exit 2, one line on stderr, before any work and without writing anything."""

import time

import pytest

from sabounds.cli import main
from sabounds.limits import CAPS
from tests.support.hostile import ARGUMENT_CASES, snapshot


@pytest.mark.parametrize("argv", [a for _, a in ARGUMENT_CASES], ids=[i for i, _ in ARGUMENT_CASES])
def test_refused_in_one_line_before_any_work(argv, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    start = time.perf_counter()
    try:
        rc = main(argv)
    except SystemExit as exc:  # argparse's own refusals
        rc = exc.code
    err = capsys.readouterr().err
    assert rc == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert snapshot(tmp_path) == {}
    assert time.perf_counter() - start < 30, "the refusal came after work"


@pytest.mark.parametrize("key", sorted(CAPS))
def test_each_cap_is_enforced_at_both_ends(key, capsys):
    from types import SimpleNamespace

    from sabounds.errors import UserError
    from sabounds.limits import check_arguments

    cap = CAPS[key]
    for inside in (cap.low, cap.high):
        check_arguments(SimpleNamespace(**{key: inside}))
    for outside in (cap.low - (1 if isinstance(cap.low, int) else cap.low / 2), cap.high * 2):
        with pytest.raises(UserError, match=f"--{cap.name}"):
            check_arguments(SimpleNamespace(**{key: outside}))
