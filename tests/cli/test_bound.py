"""``sabounds bound`` on the bundled checkpoint: every term printed, terms sum to the total, verdicts; bad input."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from sabounds.cli import main

DONE_WHEN = ["bound", "--n", "1000000000", "--delta", "0.05", "--margin", "1"]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """One run with --out: bound.txt holds exactly the printed report, bound.json the numbers."""
    out = tmp_path_factory.mktemp("bound") / "out"
    assert main([*DONE_WHEN, "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def bias_free(tmp_path_factory):
    """The same run on the bundled MiniLM's matrices without its linear biases (a network the bound covers)."""
    import sabounds
    from tests.support.bert_files import without_linear_biases

    root = tmp_path_factory.mktemp("bias_free")
    model = without_linear_biases(Path(sabounds.default_model()), root / "minilm")
    out = root / "out"
    assert main([*DONE_WHEN[:1], str(model), *DONE_WHEN[1:], "--out", str(out)]) == 0
    return out


def _blocks(text: str) -> dict[str, list[str]]:
    blocks, name = {}, None
    for line in text.splitlines():
        if line.endswith(":") and not line.startswith(" "):
            name = line[:-1]
            blocks[name] = []
        elif name and line.startswith("  "):
            blocks[name].append(line)
    return blocks


def test_every_term_printed_and_summing_to_the_total(run):
    text = (run / "bound.txt").read_text()
    record = json.loads((run / "bound.json").read_text())
    blocks = _blocks(text)
    for key in ("ours_sum", "ours_rss", "edelman"):
        bound = record["variants"]["published"][key]
        lines = blocks[bound["label"]]
        from sabounds.render.plain_text import plain  # the text speaks words (Vt), the JSON keeps identifiers (V_tilde)

        for term in bound["terms"]:
            assert any(line.strip().startswith(plain(term["label"])) for line in lines), term["label"]
        values = [
            Decimal(line.split()[-1])
            for line in lines
            if any(line.strip().startswith(plain(t["label"])) for t in bound["terms"])
        ]
        total_line = next(line for line in lines if line.strip().startswith("total"))
        total = Decimal(total_line.split()[1])
        assert len(values) == len(bound["terms"])
        assert sum(values).quantize(total) == total
        assert "equal to the printed total" in next(line for line in lines if "sum of the printed terms" in line)
        assert ("VACUOUS" in total_line) == bound["vacuous"]
        assert abs(float(total) / bound["total"] - 1) < 1e-9


def test_the_bundled_minilm_is_not_a_bound_for_its_biases(run, bias_free):
    """Its query, value, output and MLP biases are stored and nonzero, and the bookkeeping leaves them out: ``sound``
    is false, ``unmodelled`` names each with its largest norm, no n is solved for and no curve drawn.  The totals are
    those of the same matrices without the biases, to the last digit (the biases never enter them)."""
    text = (run / "bound.txt").read_text()
    record = json.loads((run / "bound.json").read_text())
    free = json.loads((bias_free / "bound.json").read_text())
    assert record["sound"] is False and free["sound"] is True and free["unmodelled"] == []
    components = [u["component"] for u in record["unmodelled"]]
    assert components == [
        "attention: query bias b_q",
        "attention: value and output biases b_v, b_o",
        "MLP: inner biases b_in (and b_gate)",
        "MLP: output bias b_out",
    ]  # the key bias is stored too, and left out of the list: the softmax cancels it
    assert "||b_q|| up to 6.664" in record["unmodelled"][0]["why"]
    assert text.startswith("not a bound: ") and "below the target from n" not in text
    assert all(record["n_needed"][k]["n"] is None for k in ("ours_sum", "ours_rss", "edelman"))
    assert not list(run.glob("bound_vs_n.*"))
    for key in ("ours_sum", "ours_rss", "edelman"):
        assert record["variants"]["published"][key]["total"] == free["variants"]["published"][key]["total"]


def test_verdicts_and_break_even_printed(bias_free):
    text = (bias_free / "bound.txt").read_text()
    record = json.loads((bias_free / "bound.json").read_text())
    assert "Verdicts" in text and "below the target from n = " in text and "Break-even" in text
    for key in ("ours_sum", "ours_rss", "edelman"):
        assert record["n_needed"][key]["n"] > 1e9  # every bound is vacuous at n = 1e9 on this checkpoint
        assert record["variants"]["published"][key]["vacuous"]
    assert record["break_even"]["proxy"]["model_factor"] > 1
    assert record["break_even"]["whole_bound"]["model_factor"] > 1
    assert record["setting"]["tokens"] == 512
    for fmt in ("png", "pdf", "svg"):
        assert (bias_free / f"bound_vs_n.{fmt}").stat().st_size > 1000


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--n", "1e9", "--delta", "1.5", "--margin", "1"], "delta"),
        (["--n", "many", "--delta", "0.05", "--margin", "1"], "--n"),
        (["--n", "1e9", "--delta", "0.05", "--margin", "-1"], "margin"),
        (["--n", "1e9", "--delta", "0.05", "--margin", "1", "--constant", "c_X=2"], "constant"),
        (["--n", "1e9", "--delta", "0.05", "--margin", "1", "--constant", "c_D=-2"], "constant"),
        (["--n", "1e9", "--delta", "0.05", "--margin", "1", "--constant", "c_D=nan"], "constant"),
    ],
)
def test_bad_arguments_are_one_line_errors(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["bound", *argv])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err and "Traceback" not in err


def test_missing_model_and_existing_out_are_one_line_errors(tmp_path, capsys):
    assert main(["bound", str(tmp_path / "nothing"), "--n", "1e9", "--delta", "0.05", "--margin", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "nothing" in err
    out = tmp_path / "exists"
    out.mkdir()
    (out / "mine.txt").write_text("keep")
    assert main([*DONE_WHEN, "--out", str(out)]) == 2
    assert (out / "mine.txt").read_text() == "keep" and len(list(out.iterdir())) == 1


def test_api_equals_cli_json_and_matches_analyze(tmp_path, capsys):
    """``sabounds.bound`` (lazy attribute) gives the CLI's JSON; its slots are analyze's matrices (rank, scale)."""
    import sabounds
    from sabounds.numerics.bound.checkpoint_inputs import model_from_checkpoint
    from sabounds.numerics.bound.slots import PUBLISHED, rhos
    from sabounds.numerics.proxies.model_analysis import analyze_model
    from tests.support.bert_files import config, random_weights, write_model

    directory = write_model(tmp_path / "m", random_weights(seed=3), config(max_position_embeddings=64))
    api = sabounds.bound(directory, n=10**6, delta=0.05, margin=0.5, precision=20)
    assert (
        main(
            ["bound", str(directory), "--n", "1e6", "--delta", "0.05", "--margin", "0.5", "--precision", "20", "--json"]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out) == json.loads(json.dumps(api.to_json()))
    assert api.setting.tokens == 64
    assert api.setting.input_norm == 1 and api.setting.input_norm_source.startswith("assumed 1: the checkpoint has no ")
    model, _ = model_from_checkpoint(directory)
    analysis = analyze_model(directory)
    kappa = [float(r) * model.layers for r in rhos(model, PUBLISHED, rounded=False)]
    for slot, k, m in zip(model.slots, kappa, analysis.matrices):
        assert (slot.layer, slot.type, slot.rank) == (m.layer, m.type, m.rank)
        assert k == pytest.approx(m.scale, rel=1e-12)


def test_distilbert_is_the_bert_layer_and_is_bounded(tmp_path, capsys):
    from tests.support.family_files import write_family

    directory = tmp_path / "distilbert"
    write_family(directory, "distilbert")
    assert main(["bound", str(directory), "--n", "1e6", "--delta", "0.05", "--margin", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["variants"]["published"]["ours_sum"]["total"] > 0


ROOT = Path(__file__).resolve().parents[2]


def test_readme_and_docs_figures_are_the_commands_output(run, bias_free):
    """Issue 29: the MiniLM totals and n needed (of its matrices without biases) in README, docs/guide/bound.md and
    docs/guide/report.md are the ones this command computes (README to its printed 4 and 2 digits, the table to 10
    and 4), so they cannot go stale."""
    import re

    record = json.loads((run / "bound.json").read_text())
    published = record["variants"]["published"]
    total = {k: published[k]["total"] for k in ("ours_sum", "ours_rss", "edelman")}
    free = json.loads((bias_free / "bound.json").read_text())
    needed = {k: free["n_needed"][k]["n"] for k in total}
    readme = (ROOT / "README.md").read_text()
    match = re.search(
        r"at n = 1e9 is ([\d.]+) \(sum aggregation\); without the biases.*?below 1 from n = ([\d.e]+)", readme, re.S
    )
    assert match and float(match.group(1)) == round(total["ours_sum"], 1)
    from sabounds.render.bound_text import sci_up  # an n needed is printed rounded up

    assert float(match.group(2)) == float(sci_up(needed["ours_sum"], 2))
    table = (ROOT / "docs" / "guide" / "bound.md").read_text()
    for label, key in (
        ("ours, sum aggregation", "ours_sum"),
        ("ours, rss aggregation (unequal p, Cauchy-Schwarz)", "ours_rss"),
        ("Edelman et al. (2022)", "edelman"),
    ):
        row = next(line for line in table.splitlines() if line.startswith(f"| {label} |"))
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert float(cells[1]) == float(f"{total[key]:.10g}"), (label, cells[1], total[key])
        assert float(cells[4].split()[0]) == float(sci_up(needed[key])), (label, cells[4], needed[key])
    report = (ROOT / "docs" / "guide" / "report.md").read_text()
    assert "margin 1: not a bound on this network" in report  # the report's summary says what the command says
    for label, key in (("sum", "ours_sum"), ("rss", "ours_rss")):
        match = re.search(rf"{label} aggregation ([\d.]+)[,.;]", report)
        assert match and float(match.group(1)) == float(f"{total[key]:.6g}")


def test_every_attention_factor_reads_the_layer_token_norms(run):
    """Issue 29: the post-LN token bounds are capped by the LayerNorms' output bounds and printed with the bound."""
    record = json.loads((run / "bound.json").read_text())
    tokens = record["model"]["token_norms"]
    assert tokens["capped_by_norms"] and len(tokens["norm_radii"]) == record["model"]["L"]
    assert all(b <= p for b, p in zip(tokens["layer_token_norm"], tokens["layer_token_norm_propagated"]))
    assert max(tokens["layer_token_norm_propagated"]) > 1e18 and max(tokens["layer_token_norm"]) <= 64
    assert "token_attention_factor" in tokens["premise"]
    assert record["variants"]["published"]["ours_sum"]["post_hoc_price"]["norm_shells"] > 0
    assert "Token norms B_l per layer: 32, 32, 16, 32, 32, 32" in (run / "bound.txt").read_text()


OLD_UNIT_TOKEN_TOTAL = 214.6924090
"""MiniLM's ours (sum) at the DONE_WHEN setting when layer 1's tokens were assumed of unit norm (the old default)."""


def test_default_input_norm_is_the_embedding_layernorm_bound(run):
    """Layer 1 of a post-LN BERT reads the embedding LayerNorm's output: the default B is its output bound
    sqrt(N) max|g| + ||b||, computed here from the safetensors weights alone, rounded up to its dyadic shell and
    priced; ``--input-norm 1`` (the old default, unit tokens) reproduces the old total."""
    import math

    import numpy as np
    from safetensors.numpy import load_file

    import sabounds

    weights = load_file(str(Path(sabounds.default_model()) / "model.safetensors"))
    g = weights["embeddings.LayerNorm.weight"].astype(np.float64)
    b = weights["embeddings.LayerNorm.bias"].astype(np.float64)
    radius = math.sqrt(g.size) * float(np.max(np.abs(g))) + float(np.linalg.norm(b))
    record = json.loads((run / "bound.json").read_text())
    setting = record["setting"]
    assert setting["input_norm_source"] == "embedding LayerNorm output bound"
    assert setting["input_norm_radius"] == pytest.approx(radius, rel=1e-12) and radius > 10
    assert setting["input_norm"] == 2.0 ** math.ceil(math.log2(radius))
    assert record["model"]["token_norms"]["layer_token_norm"][0] == setting["input_norm"]
    assert (
        "input norm B = 32 (embedding LayerNorm output bound: sqrt(N) max|g| + ||b|| = "
        in (run / "bound.txt").read_text()
    )
    unit = sabounds.bound(n=10**9, delta=0.05, margin=1.0, input_norm=1)
    assert (unit.setting.input_norm, unit.setting.input_norm_source) == (1, "given (--input-norm)")
    assert unit.to_json()["setting"]["input_norm_radius"] is None
    assert float(f"{float(unit.primary.ours_sum.total):.10g}") == OLD_UNIT_TOKEN_TOTAL
    assert record["variants"]["published"]["ours_sum"]["total"] > OLD_UNIT_TOKEN_TOTAL


def test_report_whole_bound_is_the_commands(run):
    """The report's whole bound (``sabounds report``) is the command's at the same setting: the same LayerNorm-capped
    model and the same default B (it had used the propagated token norms alone, 394.36 on MiniLM)."""
    import sabounds
    from sabounds.full_report.compute import whole_bound
    from sabounds.numerics.proxies.model_analysis import measure_model, open_checkpoint

    checkpoint = open_checkpoint(sabounds.default_model())
    report = whole_bound(measure_model(checkpoint).layers, checkpoint)
    record = json.loads((run / "bound.json").read_text())
    assert report.setting.input_norm_source == record["setting"]["input_norm_source"]
    assert (
        report.setting.tokens_source
        == record["setting"]["tokens_source"]
        == "the checkpoint's context length (config.json: field max_position_embeddings)"
    )  # the file, not its path
    for name in ("ours_sum", "ours_rss", "edelman"):
        assert float(getattr(report.primary, name).total) == record["variants"]["published"][name]["total"]


def test_the_reports_whole_bound_covers_the_families_bound_covers(tmp_path):
    """A LLaMA-family folder gets the command's whole bound in the report (it had said "BERT layer only"); the bundled
    MiniLM's report section says it is not a bound and shows no curve."""
    import sabounds
    from sabounds.full_report.compute import whole_bound
    from sabounds.full_report.sections import bound_section, bound_summary
    from sabounds.numerics.proxies.model_analysis import measure_model, open_checkpoint
    from tests.support.family_files import write_family

    write_family(tmp_path / "llama", "llama")
    checkpoint = open_checkpoint(tmp_path / "llama")
    report = whole_bound(measure_model(checkpoint).layers, checkpoint)
    api = sabounds.bound(str(tmp_path / "llama"), n=10**9, delta=0.05, margin=1.0)
    assert report is not None and report.sound and report.curve is not None
    assert float(report.primary.ours_sum.total) == float(api.primary.ours_sum.total)

    from types import SimpleNamespace

    minilm = open_checkpoint(sabounds.default_model())
    data = SimpleNamespace(bound=whole_bound(measure_model(minilm).layers, minilm))
    assert data.bound is not None and not data.bound.sound
    section = "\n".join(bound_section(data))
    assert "not a bound: " in section and "bound_vs_n.png" not in section
    assert "not a bound on this network" in bound_summary(data)[0]
