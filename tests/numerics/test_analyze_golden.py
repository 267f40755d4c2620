"""Every number ``sabounds analyze --json`` prints is unchanged by the one-pass measurement (issue 33 item 5):
byte-identical to the records taken before it (tests/data/golden/record.py), on the bundled MiniLM, a float16
BERT whose layer 1 M_in goes to LAPACK, and a GQA LLaMA (RoPE heads)."""

from __future__ import annotations

import pytest

from tests.data.golden.record import CASES, HERE, analyze_json


@pytest.mark.parametrize("name", list(CASES))
def test_analyze_json_is_byte_identical_to_its_record(name):
    assert analyze_json(CASES[name]) == (HERE / f"analyze_{name}.json").read_text()
