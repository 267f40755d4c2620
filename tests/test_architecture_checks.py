"""The labelled extensions' checks (``arch.*``): every step decided, the numeric claims pass on the objects the
analysis uses and fail on mutants of them, and the activation constants come from the derivation."""

from __future__ import annotations

from dataclasses import replace

import pytest
import sympy as sp

from sabounds.proofs_check import architecture as arch
from sabounds.proofs_check.registry import select
from sabounds.proofs_check.verdict import Settings, Verdict
from sabounds.theory.architecture import DEPARTURES, activation_lipschitz, activation_sup_slope, extension_derivation

FAST = Settings(precision=30, samples=40)


def test_every_arch_check_is_decided_favourably():
    checks = select("arch.*")
    assert len(checks) >= 20
    for check in checks:
        outcome = check.run(FAST)
        assert outcome.verdict in (Verdict.PROVED, Verdict.VERIFIED), (check.id, outcome)


def test_each_departure_has_a_derivation_with_checked_steps():
    for departure in DEPARTURES:
        d = extension_derivation(departure)
        assert d.id == f"arch.{departure}" and len(d) >= 3
        assert all(step.source == "extension" for step in d)
    with pytest.raises(ValueError, match="unknown departure"):
        extension_derivation("moe")


@pytest.mark.parametrize("name, sup", [("silu", "1.0998393201288669"), ("gelu_tanh", "1.1289930686587717")])
def test_activation_constants_are_derived_and_round_up(name, sup):
    value, _ = activation_sup_slope(name)
    assert abs(float(value) - float(sup)) < 1e-15
    used = activation_lipschitz(name)
    assert used >= value and used - value < sp.Rational(1, 10 ** 6)


@pytest.mark.parametrize("family", [arch.SiluLipschitz, arch.GeluTanhLipschitz])
def test_activation_family_refutes_a_constant_below_the_supremum(family):
    sup, where = activation_sup_slope(family.activation)
    below = family(sp.Rational(int(sup * 10 ** 8) - 1, 10 ** 8)).decide(FAST)
    assert below.verdict is Verdict.REFUTED and abs(below.witness["x"] - float(where)) < 1e-8
    assert family(sp.Rational(int(sup * 10 ** 8) + 1, 10 ** 8)).decide(FAST).verdict is Verdict.VERIFIED


def test_gqa_check_fails_when_groups_are_interleaved(monkeypatch):
    from sabounds.numerics.checkpoints import layers
    monkeypatch.setattr(layers, "group_of", lambda heads, kv: __import__("numpy").arange(heads) % kv)
    assert select("arch.gqa_numeric")[0].run(FAST).verdict is Verdict.REFUTED


def test_pre_ln_check_fails_without_the_residual_paths(monkeypatch):
    real = arch.extension_factors

    def published_bookkeeping(spectral, shape, lact, radius):
        f = real(spectral, shape, lact, radius)
        a = float((spectral["V_tilde"] * (1 + 4 * spectral["QK"])).sum())
        return replace(f, lip=a * lact * spectral["M_in"] * spectral["M_out"])

    monkeypatch.setattr(arch, "extension_factors", published_bookkeeping)
    assert select("arch.pre_ln_residual_numeric")[0].run(FAST).verdict is Verdict.REFUTED


def test_gated_check_fails_when_gamma_up_misses_the_radius(monkeypatch):
    real = arch.extension_factors

    def no_radius(spectral, shape, lact, radius):
        f = real(spectral, shape, lact, radius)
        return replace(f, gamma={**f.gamma, "M_in": f.gamma["M_in"] / radius / 4})

    monkeypatch.setattr(arch, "extension_factors", no_radius)
    assert select("arch.gated_mlp_numeric")[0].run(FAST).verdict is Verdict.REFUTED
