"""Trauger and Tewari (2024), "Sequence length independent norm-based generalization bounds for transformers"
(AISTATS, PMLR 238:1405-1413, arXiv 2310.13088) as a :class:`sabounds.theory.bound.Bound`.

What is published and what is not (each labelled in the steps):
- published: no dependence on T; the covering lemma for linear maps with an entrywise (1,1)-norm constraint
  and an l2 input bound (TT Lemma 3.6, as cited by Honarpisheh et al., arXiv 2502.01473, App. D), taken here as a
  cited premise; the authors' code (traugerjacob/Transformer-Gen-Bounds, run_experiment.py) computes only
  ``sum_j ||theta_j||_{1,1}`` over the raw trainable tensors: the one *published proxy* (``tt_l1``);
- reconstructed: the lemma's constant (1) and log argument ``log(2 d_in d_out + 1)`` (symbolic ``c_TT`` multiplies it),
  the composition over layers (Edelman's propagation ``rho_k = gamma^E_k alpha^(l)`` and Lemma A.8 allocation);
- T-independence is not a step here: ``sabounds regimes`` derives the token exponent (0) from the same object;
- extension: the BERT proxy ``tt = (1 + sum_l alpha^(l)^{2/3} xi^TT_l)^{3/2}``, xi^TT_l as Edelman's xi_l with
  ``||.||_{1,1}`` in place of ``||.||_{2,1}``.

    R_n <= 4 Delta/n + 12 W_TT B sqrt(c_TT log(2 d_in d_out + 1) / n) ln n,  W_TT = (sum_k (rho_k ||W_k||_{1,1})^{2/3})^{3/2}.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

import sympy as sp

from sabounds.theory import edelman as E
from sabounds.theory.bound import Bound, Proxy
from sabounds.theory.checks import Definition, Interval, Premise
from sabounds.theory.derivation import Derivation, Step
from sabounds.theory.symbols import B, d_in, d_out, rho, w_11

c_TT = sp.Symbol("c_TT", positive=True)
"""The covering lemma's constant, not pinned down (1 from Maurey's lemma on the 2 d_in d_out atoms, reconstructed)."""

CITATION = (
    "Trauger and Tewari (2024), AISTATS, PMLR 238:1405-1413, arXiv 2310.13088; covering lemma: their Lemma 3.6 "
    "as cited in Honarpisheh et al. (2025), arXiv 2502.01473, App. D; code: traugerjacob/Transformer-Gen-Bounds"
)


@lru_cache(maxsize=1)
def bound() -> Bound:
    """The reconstructed TT bound, its published proxy (code's l1 sum) and its BERT proxy (extension)."""
    return Bound(
        "trauger_tewari",
        "Trauger and Tewari (2024): (1,1)-norm covers, no dependence on T",
        "reconstructed",
        term=(rho * w_11) ** sp.Rational(2, 3),
        aggregation="power_mean_2/3",
        propagation="gamma_edelman",
        log_factor=c_TT * sp.log(2 * d_in * d_out + 1),
        assumptions="every ||W_k||_{1,1} <= w_k, token norms <= B (l2), spectral-norm Lipschitz factors as Edelman et al.",
        citation=CITATION,
        symbolic="c_TT (the lemma's constant), the log argument 2 d_in d_out + 1 and the layer composition are reconstructed",
        proxies=(
            Proxy("tt_l1", w_11, "sum", "none", "published proxy", tensors="raw"),
            Proxy(
                "tt",
                (rho * w_11) ** sp.Rational(2, 3),
                "power_mean_2/3",
                "gamma_edelman",
                "extension",
                offset=sp.Integer(1),
            ),
        ),
    )


def _steps() -> tuple[Step, ...]:
    b = bound()
    pos = Interval(sp.Rational(1, 10), 10, log=True)
    ell_tt = sp.Symbol("ell_TT", positive=True)
    W_TT = sp.Symbol("W_TT", positive=True)
    reused = {
        "allocation": E.derivation()["allocation"],
        "dudley": E.derivation()["theory_form"].subs({E.W_E: W_TT, E.ell_E: ell_tt}),
        "proxy": E.derivation()["proxy_dominates_capacity"],
    }
    return (
        Step(
            "slot_cover",
            sp.Le(sp.Symbol("log N_k"), w_11**2 * B**2 * b.log_factor / sp.Symbol("epsilon_k") ** 2),
            "cover of {x -> x W : ||W||_{1,1} <= w_11} for ||x||_2 <= B, free of n and T (constant c_TT and log argument "
            "reconstructed: Maurey on the 2 d_in d_out atoms +-e_i e_j^T, uniformly over all inputs)",
            Premise(
                "Trauger and Tewari (2024), Lemma 3.6, as cited in Honarpisheh et al. (2025), arXiv 2502.01473, App. D"
            ),
            source="published",
        ),
        Step(
            "allocation",
            reused["allocation"].statement,
            "as Edelman et al. (2022), Lemma A.8, with w_k = ||W_k||_{1,1}: W_TT = (sum_k (rho_k w_k)^{2/3})^{3/2}",
            reused["allocation"].check,
        ),
        Step(
            "theory_form",
            reused["dudley"].statement,
            "Dudley's integral cut at Delta/n with log N(eps) = W_TT^2 B^2 ell_TT/eps^2",
            replace(reused["dudley"].check, domain={**reused["dudley"].check.domain, W_TT: pos, ell_tt: pos}),
        ),
        Step(
            "proxy_dominates_capacity",
            reused["proxy"].statement,
            "the extension proxy's leading 1 only enlarges W_TT",
            reused["proxy"].check,
            source="extension",
        ),
        Step(
            "published_proxy",
            sp.Eq(sp.Symbol("tt_l1"), sp.Sum(sp.Symbol("w_11_j"), (sp.Symbol("j"), 1, sp.Symbol("J")))),
            "the authors' code prints sum_j ||theta_j||_{1,1} over every raw trainable tensor (tf.norm(ord=1), flattened)",
            Definition(),
            source="published proxy",
        ),
        Step(
            "extension_proxy",
            sp.Eq(sp.Symbol("tt"), E.proxy_form(sp.Symbol("sum_l alpha_l^(2/3) xi^TT_l", positive=True))),
            "xi^TT_l = sum_h[(s_out s_in s_V ||QK_h||_{1,1})^{2/3} + (s_out s_in ||Vt_h||_{1,1})^{2/3}] + (s_out ||M_in||_{1,1})^{2/3} "
            "+ ||M_out||_{1,1}^{2/3} (TT published no BERT proxy)",
            Definition(),
            source="extension",
        ),
    )


@lru_cache(maxsize=1)
def derivation() -> Derivation:
    """Trauger and Tewari (2024) as a derivation: the covering lemma cited, the composition reconstructed."""
    return Derivation(
        "trauger_tewari",
        bound().title,
        _steps(),
        notes="'slot_cover' is a cited premise; " + bound().symbolic + ". Sources: Trauger and Tewari (2024), "
        "arXiv 2310.13088; the lemma as cited in Honarpisheh et al. (2025), arXiv 2502.01473, App. D.",
    )
