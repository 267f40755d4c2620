"""Issue 19: claims decided on the regime table's object, fixed width and joint growth apart, and the second route.

The claims' outcomes come from the ``default_checks`` fixture: the report's cached part, which is the stored result
only while it is current for this code (``numerics.result_cache``), else computed once."""

import sympy as sp

from sabounds.proofs_check import claims as C
from sabounds.proofs_check import regime_fits as F
from sabounds.proofs_check.registry import all_checks
from sabounds.proofs_check.verdict import Verdict
from sabounds.theory import regimes as R
from sabounds.theory.asymptotics import Growth
from sabounds.theory.thm41 import N


def test_claim_1_has_separate_verdicts_for_fixed_width_and_joint_growth(default_checks):
    fixed, joint = default_checks["claims.1_depth"], default_checks["claims.1_depth_joint"]
    assert fixed.verdict is Verdict.VERIFIED and "at fixed width" in fixed.detail
    assert joint.verdict is Verdict.REFUTED
    failing = joint.witness["counterexample"]
    assert failing and all(c.startswith("frobenius/bounded/") for c in failing)
    assert "0 < kappa < 2" in failing[0]
    assert any(c.startswith("rank/bounded/") for c in joint.witness["holds"])
    assert any(c.startswith("spectral/bounded/") for c in joint.witness["holds"])


def test_claim_ids_are_distinct_checks():
    ids = {c.id for c in all_checks()}
    assert {"claims.1_depth", "claims.1_depth_joint"} <= ids


def test_claim_2_sharp_condition_is_derived_from_the_slot_cover():
    """No literal: the power of alpha comes from differentiating the table's slot covers."""
    from sabounds.theory.thm41 import p

    assert sp.simplify(C._alpha_degree(True) - p / 2) == 0
    assert sp.simplify(C._alpha_degree(False) - p / (p + 2)) == 0


def test_claim_4_uses_the_best_tail_and_reproduces_the_audit_counterexample(default_checks):
    outcome = default_checks["claims.4_best_p"]
    assert outcome.verdict is Verdict.VERIFIED
    assert any("9.306 against the rank cover 22.63" in c for c in outcome.witness["fails"])
    assert not any(
        "P_m contains 0 and 2" in c for c in outcome.witness["holds"]
    )  # the condition that cannot fail is gone
    picked = C._picked(4, sp.Rational(1, 2), 64, [sp.Rational(k, 17) for k in range(1, 35)])
    assert picked[0] > 0 and picked[1] == "sharp" and picked[2] < picked[3]


def test_claim_3_labels_the_endpoints_by_route(default_checks):
    outcome = default_checks["claims.3_interpolation"]
    assert outcome.verdict is Verdict.PROVED
    assert any(c.startswith("crude route, p = 2") and "hybrid" in c for c in outcome.witness["fails"])
    assert any(c.startswith("sharp route, p -> 2-") for c in outcome.witness["in_scope"])
    assert not any(c.startswith("crude route") for c in outcome.witness["in_scope"])


def test_numeric_fit_route_refutes_a_wrong_exponent():
    """The second route can fail: a width exponent off by 1/10 is refuted, the table's own is accepted."""
    r = R.named_result("rank", "bounded")
    b = r.bounds["ours_rss"]
    expr = R.ours(R.single_head(), r.regime, r.alpha, sp.Integer(0), sp.Integer(0), "rss")
    g = dict(b.width.by_piece)["p=0"]
    assert F._fit(expr, N, g)[0]
    assert not F._fit(expr, N, Growth(g.rate, g.power + sp.Rational(1, 10), g.log_power))[0]
    assert not F._fit(expr, N, Growth(g.rate, g.power, g.log_power + 1))[0]
