"""Standard output full (/dev/full), closed, or a pipe whose reader has gone, for each command of
tests/support/hostile.py STREAM_COMMANDS: full or closed -> exit 2 and one line; broken pipe -> quiet exit 0."""

import pytest

from tests.support.hostile import STREAM_COMMANDS, STREAM_CONDITIONS, run_with_stdout, tiny_model

pytestmark = pytest.mark.slow  # child processes per stream condition


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    return tiny_model(tmp_path_factory.mktemp("streams") / "model")


@pytest.mark.parametrize("condition", STREAM_CONDITIONS)
@pytest.mark.parametrize("name", sorted(STREAM_COMMANDS))
def test_standard_output_conditions(name, condition, model):
    argv = [a.replace("{model}", str(model)) for a in STREAM_COMMANDS[name]]
    rc, err = run_with_stdout(argv, condition)
    assert "Traceback" not in err and "Exception ignored" not in err, err
    if condition == "broken-pipe":
        assert rc == 0 and err == "", (rc, err)
    else:
        assert rc == 2 and err.count("\n") == 1, (rc, err)
        assert ("closed" in err) if condition == "closed" else ("No space left" in err), err
