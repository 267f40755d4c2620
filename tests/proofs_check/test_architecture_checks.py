"""The labelled extensions' checks (``arch.*``): every step decided, the numeric claims pass on the objects the
analysis uses and fail on mutants of them, and the activation constants come from the derivation."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import sympy as sp

from sabounds.numerics.proxies import layer_factors
from sabounds.proofs_check import architecture as arch
from sabounds.proofs_check.registry import select
from sabounds.proofs_check.verdict import Settings, Verdict
from sabounds.theory.architecture import DEPARTURES, activation_lipschitz, activation_sup_slope, extension_derivation

FAST = Settings(precision=30, samples=40)


def test_every_arch_check_is_decided_favourably_at_the_default_settings(default_checks):
    """From the stored results (tests/outputs/test_stored_results.py keeps them current for this code)."""
    ids = [c.id for c in select("arch.*")]
    assert len(ids) >= 30
    for id_ in ids:
        assert default_checks[id_].verdict in (Verdict.PROVED, Verdict.VERIFIED), (id_, default_checks[id_])


@pytest.mark.slow  # decides all of them again at coarser settings
def test_every_arch_check_is_decided_favourably_at_coarse_settings():
    checks = select("arch.*")
    assert len(checks) >= 30
    for check in checks:
        outcome = check.run(FAST)
        assert outcome.verdict in (Verdict.PROVED, Verdict.VERIFIED), (check.id, outcome)


def test_each_departure_has_a_derivation_with_checked_steps():
    for departure in DEPARTURES:
        d = extension_derivation(departure)
        assert d.id == f"arch.{departure}" and len(d) >= 2
        assert all(step.source == "extension" for step in d)
    with pytest.raises(ValueError, match="unknown departure"):
        extension_derivation("moe")


@pytest.mark.parametrize("name, sup", [("silu", "1.0998393201288669"), ("gelu_tanh", "1.1289930686587717")])
def test_activation_constants_are_derived_and_round_up(name, sup):
    value, _ = activation_sup_slope(name)
    assert abs(float(value) - float(sup)) < 1e-15
    used = activation_lipschitz(name)
    assert used >= value and used - value < sp.Rational(1, 10**6)


@pytest.mark.parametrize("family", [arch.SiluLipschitz, arch.GeluTanhLipschitz])
def test_activation_family_refutes_a_constant_below_the_supremum(family):
    sup, where = activation_sup_slope(family.activation)
    below = family(sp.Rational(int(sup * 10**8) - 1, 10**8)).decide(FAST)
    assert below.verdict is Verdict.REFUTED and abs(below.witness["x"] - float(where)) < 1e-8
    assert family(sp.Rational(int(sup * 10**8) + 1, 10**8)).decide(FAST).verdict is Verdict.VERIFIED


def test_gqa_check_fails_when_groups_are_interleaved(monkeypatch):
    from sabounds.numerics.checkpoints import layers

    monkeypatch.setattr(layers, "group_of", lambda heads, kv: __import__("numpy").arange(heads) % kv)
    assert select("arch.gqa_numeric")[0].run(FAST).verdict is Verdict.REFUTED


def test_gqa_check_fails_when_rope_is_dropped(monkeypatch):
    from sabounds.numerics.checkpoints import rope

    monkeypatch.setattr(rope, "rotation", lambda spec, delta: np.eye(spec.head_dim))
    assert select("arch.gqa_numeric")[0].run(FAST).verdict is Verdict.REFUTED


def test_rope_check_fails_when_the_family_bound_is_the_delta_zero_member(monkeypatch):
    from sabounds.numerics.checkpoints import rope
    from sabounds.numerics.spectra import product_singular_values

    monkeypatch.setattr(
        rope, "family_spectra", lambda left, right, spec, width, values=None: product_singular_values(left, right)
    )
    assert select("arch.rope_numeric")[0].run(FAST).verdict is Verdict.REFUTED


def test_block_check_fails_when_rope_is_dropped(monkeypatch):
    """Measuring QK_h = Wq_h^T Wk_g only (delta = 0): the head built with Wq^T Wk = 0 exceeds the factor."""
    from sabounds.numerics.checkpoints import rope
    from sabounds.numerics.spectra import product_singular_values

    monkeypatch.setattr(
        rope, "family_spectra", lambda left, right, spec, width, values=None: product_singular_values(left, right)
    )
    assert select("arch.pre_ln_block_numeric")[0].run(FAST).verdict is Verdict.REFUTED


def test_block_and_norm_checks_fail_with_lip_ln_one(monkeypatch):
    """The published premise Lip_LN = 1, at token rms 0.02."""
    monkeypatch.setattr(layer_factors.NormPremise, "lipschitz", lambda self, gain: 1.0)
    assert select("arch.pre_ln_block_numeric")[0].run(FAST).verdict is Verdict.REFUTED
    assert select("arch.norm_lipschitz_numeric")[0].run(FAST).verdict is Verdict.REFUTED


def test_norm_check_fails_without_the_radius(monkeypatch):
    """Tokens of norm <= 1 (the published premise) instead of sqrt(N) max|g| + ||b||."""
    real = layer_factors.token_norm
    monkeypatch.setattr(layer_factors, "token_norm", lambda n, w, b, which: replace(real(n, w, b, which), radius=1.0))
    assert select("arch.norm_lipschitz_numeric")[0].run(FAST).verdict is Verdict.REFUTED


def test_gated_check_fails_when_gamma_up_misses_the_radius(monkeypatch):
    real = arch.extension_factors

    def no_radius(spectral, shape, lact, radius, *rest):
        f = real(spectral, shape, lact, radius, *rest)
        return replace(f, gamma={**f.gamma, "M_in": f.gamma["M_in"] / radius / 4})

    monkeypatch.setattr(arch, "extension_factors", no_radius)
    assert select("arch.gated_mlp_numeric")[0].run(FAST).verdict is Verdict.REFUTED


def test_llama_block_ratio_is_bounded_by_the_factor_and_exceeds_the_old_one():
    """Issue 22's done-when: on a tiny LLaMA checkpoint with RoPE, the optimiser's Lipschitz ratio of the real block
    stays below the package's layer factor at token rms 1 and 0.02 (premise rho = that rms), and at rms 0.02 it
    exceeds the old factor (1 + A)(1 + F) with A = sum ||Vt_h|| (1 + 4 ||QK_h(0)||), Lip_LN = 1."""
    from sabounds.numerics.checkpoints.source import open_source
    from sabounds.numerics.proxies.layer_measurement import measure_layer
    from sabounds.proofs_check import architecture_block as ab

    rng = np.random.default_rng(7)
    weights, config = ab.tiny_llama(rng, scale={"q": 0.2, "k": 0.2, "mlp": 0.05})
    block = ab.block_of(weights, config)
    spectra = measure_layer(open_source(weights, config=config), 0)
    sv = spectra.spectral()
    old_a = float(np.sum(sv["V_tilde"] * (1 + 4 * spectra.qk_delta0)))
    old_f = (1 + ab._lact()) * spectra.mlp_radius * sv["M_gate"] * sv["M_in"] * sv["M_out"]
    old = (1 + old_a) * (1 + old_f)
    found = {}
    for rms in (1.0, 0.02):
        inside = lambda x, rms=rms: bool(np.all(np.sqrt(np.mean(block.residual_mid(x) ** 2, -1)) >= rms))
        found[rms] = ab.search_lipschitz(block, (4, config["hidden_size"]), rms, rng, inside=inside)
        assert found[rms] <= ab.package_lip(weights, config, rms)
    assert found[0.02] > 3 * old


def test_analyze_prints_rope_quantities_and_the_premise(tmp_path, capsys):
    from sabounds.cli import main
    from tests.support.family_files import write_family

    write_family(tmp_path, "llama", seed=2)
    assert main(["analyze", str(tmp_path)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "rotary position embeddings" in out and "||QK_h(delta = 0)||" in out
    assert "normalisation premise" in out and "sqrt(eps)" in out
    assert main(["analyze", str(tmp_path), "--rms-floor", "0.02"]) == 0
    assert "rms >= 0.02" in " ".join(capsys.readouterr().out.split())
    with pytest.raises(SystemExit) as exc:  # refused by the argument's type (positive, finite)
        main(["analyze", str(tmp_path), "--rms-floor", "-1"])
    assert exc.value.code == 2


def test_the_checks_block_is_transformers_llama_layer():
    """The real block of the arch.* checks (independent rotate_half RoPE, repeat_kv, causal softmax, RMSNorm,
    SwiGLU) equals transformers' LlamaModel on the same weights; without RoPE it does not.  Tolerance 1e-5
    relative: transformers computes RMSNorm's variance and inv_freq in float32 (unit roundoff 6e-8)."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from sabounds.proofs_check import architecture_block as ab

    rng = np.random.default_rng(0)
    weights, config = ab.tiny_llama(rng, heads=4, kv_heads=2, head_dim=4, hidden=12)
    config.update(rope_theta=500.0)
    cfg = transformers.LlamaConfig(
        vocab_size=10,
        hidden_size=12,
        intermediate_size=config["intermediate_size"],
        num_hidden_layers=1,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=4,
        rms_norm_eps=1e-6,
        rope_theta=500.0,
        max_position_embeddings=64,
        attn_implementation="eager",
    )
    model = transformers.LlamaModel(cfg).double().eval()
    state = {
        k: torch.tensor(weights["model." + k]) if "model." + k in weights else v for k, v in model.state_dict().items()
    }
    state["norm.weight"] = torch.ones(12, dtype=torch.float64)
    model.load_state_dict(state)
    x = rng.standard_normal((5, 12))
    with torch.no_grad():
        want = model(inputs_embeds=torch.tensor(x)[None]).last_hidden_state[0].numpy()
    scale = float(np.max(np.abs(want)))
    got = ab.normalise(ab.block_of(weights, config)(x), np.ones(12), 1e-6)
    assert np.max(np.abs(got - want)) <= 1e-5 * scale
    blind = ab.normalise(ab.block_of(weights, config, rope=False)(x), np.ones(12), 1e-6)
    assert np.max(np.abs(blind - want)) > 1e-2 * scale
