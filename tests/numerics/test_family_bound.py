"""``sabounds bound`` for families whose layer departs from BERT's (GPT-2, LLaMA with GQA + SwiGLU + RoPE, ViT, and a
GGUF file): finite whole bounds with the premises printed, the same rho as analyze's extension, and mutants that
must change the number (a dropped gate slot, a dropped normalisation factor, the premise itself)."""

from __future__ import annotations

import dataclasses
import json

import mpmath
import pytest

from sabounds.cli import main

ARGS = ["--n", "1e9", "--delta", "0.05", "--margin", "1"]


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    from tests.support.family_files import write_family

    out = {}
    for name in ("gpt2", "llama", "vit", "mistral"):
        out[name] = tmp_path_factory.mktemp(name) / name
        write_family(out[name], name)
    return out


# Mistral's layer is LLaMA's (its reading is in test_families): its whole bound (~3 s) runs in `make test` only.
@pytest.mark.parametrize("family", ["gpt2", "llama", "vit", pytest.param("mistral", marks=pytest.mark.slow)])
def test_family_whole_bound_is_finite_with_premises(family, folders, capsys):
    assert main(["bound", str(folders[family]), *ARGS, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["model"]["family"] == {"mistral": "llama"}.get(family, family)  # Mistral's layer is LLaMA's
    premises = " ".join(data["model"]["premises"])
    assert "normalisation premise" in premises and "read-out" in premises and "input norms" in premises
    assert ("RoPE" in premises) == (family in ("llama", "mistral"))
    assert ("gated MLP" in premises) == (family in ("llama", "mistral"))
    for key, variant in data["variants"].items():
        for name in ("ours_sum", "ours_rss", "edelman"):
            total = variant[name]["total"]
            assert isinstance(total, float) and 0 < total < float("inf"), (key, name, total)
            assert variant[name]["post_hoc_price"]["norm_shells"] > 0
    types = {m["type"] for m in data["break_even"]["whole_bound"]["per_matrix"]}
    assert ("M_gate" in types) == (family in ("llama", "mistral"))
    assert main(["bound", str(folders[family]), *ARGS]) == 0
    text = capsys.readouterr().out
    assert (
        f"Family {data['model']['family']}: the layer departs from BERT's" in text
        and "  - normalisation premise" in text
    )


def test_llama_has_gqa_slots_per_query_head(folders):
    from sabounds.numerics.bound.checkpoint_inputs import model_from_checkpoint

    model, info = model_from_checkpoint(folders["llama"])
    assert info["input_norm"].value == 1 and info["input_norm"].source.startswith("assumed 1: unused, a pre-LN")
    per_layer = [s.type for s in model.slots if s.layer == 0]
    assert per_layer.count("QK") == per_layer.count("V_tilde") == 4  # 4 query heads share 2 key/value heads
    assert per_layer[-3:] == ["M_in", "M_out", "M_gate"]
    assert any("grouped-query" in p for p in model.family.premises)


@pytest.mark.parametrize("family", ["gpt2", "llama", "vit"])
def test_rho_is_analyze_extension_scale(family, folders):
    """Without dyadic rounding, ``rho_k L`` equals analyze's scale ``gamma alpha L`` for every matrix (two codes)."""
    from sabounds.numerics.bound.checkpoint_inputs import model_from_checkpoint
    from sabounds.numerics.bound.slots import PUBLISHED, rhos
    from sabounds.numerics.proxies.model_analysis import analyze_model

    model, _ = model_from_checkpoint(folders[family])
    analysis = analyze_model(folders[family])
    assert analysis.proxy == "extension"
    with mpmath.workdps(30):
        kappa = [float(r) * model.layers for r in rhos(model, PUBLISHED, rounded=False)]
    assert len(kappa) == len(analysis.matrices)
    for slot, k, m in zip(model.slots, kappa, analysis.matrices):
        assert (slot.layer, slot.type, slot.rank) == (m.layer, m.type, m.rank)
        assert k == pytest.approx(float(m.scale), rel=1e-9)


def _total(model, rms_floor=None):
    from sabounds.numerics.bound.slots import PUBLISHED
    from sabounds.numerics.bound.whole import BoundInputs
    from sabounds.numerics.bound.whole import evaluate_model as evaluate

    setting = BoundInputs(n=mpmath.mpf(10) ** 9, delta=0.05, margin=1.0, input_norm=1.0, tokens=512, empirical=0.0)
    with mpmath.workdps(setting.dps):
        return evaluate(model, PUBLISHED, setting).ours_sum.total


def test_mutants_change_the_number(folders, monkeypatch):
    from sabounds.numerics.bound import family as family_module
    from sabounds.numerics.bound.checkpoint_inputs import model_from_checkpoint

    model, _ = model_from_checkpoint(folders["llama"])
    base = _total(model)
    no_gate = dataclasses.replace(
        model,
        slots=tuple(s for s in model.slots if s.type != "M_gate"),
        family=dataclasses.replace(model.family, gated=False),
    )
    assert _total(no_gate) != base  # the gate matrix (its slot, its factor in F) is in the number
    monkeypatch.setattr(
        family_module, "_lip_ln", lambda premise, gain: gain
    )  # Lip_LN = max|g|: premise's factor dropped
    assert _total(model) != base
    monkeypatch.undo()
    assert _total(model) == base
    shells = dataclasses.replace(
        model,
        family=dataclasses.replace(
            model.family, norms=tuple(dataclasses.replace(n, attn_radius=n.attn_radius / 4) for n in model.family.norms)
        ),
    )
    assert _total(shells) < base  # the token radius B enters


def test_rms_floor_premise_lowers_the_bound_and_is_printed(folders, capsys):
    assert main(["bound", str(folders["gpt2"]), *ARGS, "--json"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main(["bound", str(folders["gpt2"]), *ARGS, "--rms-floor", "1", "--json"]) == 0
    floored = json.loads(capsys.readouterr().out)
    assert floored["variants"]["published"]["ours_sum"]["total"] < plain["variants"]["published"]["ours_sum"]["total"]
    assert any("rms >= 1" in p for p in floored["model"]["premises"])
    with pytest.raises(SystemExit) as exc:  # refused by the argument's type (positive, finite)
        main(["bound", str(folders["gpt2"]), *ARGS, "--rms-floor", "-1"])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "rms-floor" in err and "Traceback" not in err


def test_gguf_llama_file_is_bounded_like_its_folder(tmp_path, capsys):
    from tests.support.gguf_files import write_pair

    path, folder = write_pair(tmp_path, "llama")
    totals = []
    for source in (path, folder):
        assert main(["bound", str(source), *ARGS, "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert data["model"]["family"] == "llama"
        totals.append(data["variants"]["published"]["ours_sum"]["total"])
    assert totals[0] == pytest.approx(totals[1], rel=1e-9)


def test_every_mutant_of_the_family_derivation_is_killed():
    """Each checked step of ``whole_bound.families`` refutes every mutant of itself (quick profile); its premises
    are counted apart, not reported as checked."""
    from sabounds.proofs_check import mutants as MU
    from sabounds.theory import family_bound

    derivation = family_bound.derivation()
    results = MU.audit([derivation], MU.QUICK)
    survivors = [(m.step, m.operator, m.outcome.verdict.value) for m in results if not m.killed]
    assert len(results) >= 10 and survivors == []
    apart = MU.counted_apart([derivation])
    assert {f"whole_bound.families.{n} (premise)" for n in ("rms_premise", "rope_cover", "read_out")} <= set(apart)


def test_post_ln_family_path_with_gelu_is_berts_bookkeeping(tmp_path):
    """The family path for a post-LN layer (another activation), given GELU, is BERT's bookkeeping with L_phi inside
    gamma (the extension's F = L_act ||M_in|| ||M_out||; the published proxy leaves it out): rho_k is BERT's times
    L_phi for QK, Vt and M_in, equal for M_out, and the input norms are BERT's.  With ReLU (L_act = 1 < 1.13) the
    same weights give a smaller bound."""
    from sabounds.numerics.bound.checkpoint_inputs import model_from_checkpoint
    from sabounds.numerics.bound.family import Family
    from sabounds.numerics.bound.slots import VARIANTS, input_norms, rhos
    from tests.support.bert_files import write_model
    from tests.support.family_files import CONFIGS, raw_weights

    write_model(tmp_path / "gelu", raw_weights("bert"), CONFIGS["bert"])
    write_model(tmp_path / "relu", raw_weights("bert"), dict(CONFIGS["bert"], hidden_act="relu"))
    bert, _ = model_from_checkpoint(tmp_path / "gelu")
    assert bert.family is None
    as_family = dataclasses.replace(bert, family=Family("bert", False, False, "gelu", 4, None, (), ()))
    with mpmath.workdps(30):
        for variant in VARIANTS:
            for edelman in (False, True):
                lphi = variant.lphi_value()
                for slot, x, y in zip(
                    bert.slots, rhos(as_family, variant, edelman=edelman), rhos(bert, variant, edelman=edelman)
                ):
                    expected = y if slot.type == "M_out" else y * lphi
                    assert abs(x / expected - 1) < mpmath.mpf(10) ** -28, slot
        assert input_norms(as_family, 2.5) == input_norms(bert, 2.5)
    relu, _ = model_from_checkpoint(tmp_path / "relu")
    assert relu.family is not None and not relu.family.pre_ln
    assert _total(relu) < _total(bert)
