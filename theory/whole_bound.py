"""The whole bound of Theorem 3.1 as a number [reconstructed]: margin, Dudley, post hoc and confidence terms.

For a scalar read-out ``f`` (a unit vector applied to the output token; its error is at most the output's
``2->inf`` error) and the ramp loss at margin ``gamma`` (``[0, 1]``-valued, ``1/gamma``-Lipschitz), with
probability ``1 - delta``, for every choice of ``p`` on the grid and every dyadic shell of the radii:

    risk <= emp + c_sym c_D / (gamma sqrt(n)) * sum_k Dudley_k + c_conf sqrt(post_hoc / (2n)) + c_conf sqrt(log(2/delta) / (2n)),

``Dudley_k = sqrt(C_k (K rho_k)^t) [ell0_k^{e/2} I(t, 0) + I(t, e/2)]``, ``I(t, h) = int_0^Delta eps^{-t/2} log(Delta/eps)^h``
``= Delta^{1-t/2} Gamma(1+h) / (1-t/2)^{1+h}``, ``Delta = gamma``; ``ell0_k = max(log(c_par s_k B K rho_k / Delta), 0)``.
A slot's cover is ``C a^e (K rho)^t eps^{-t}`` with ``a = (d_in + d_out) log(c_par s B K rho / eps)``: the crude tail
of Theorem 4.1 gives ``e = 2/(p+2), t = 2p/(p+2)``, the sharp tail ``e = 1 - p/2, t = p`` (``0 < p < 2``).
rss aggregation: all slots at one ``p`` (exact), or unequal ``p`` through Cauchy-Schwarz
``int sqrt(sum f_k) <= sqrt(Delta sum int f_k)``, with ``J(t, h) = int_0^Delta eps^{-t} log(Delta/eps)^h``.
The constants of cited lemmas stay symbols (:data:`CONSTANTS`, with documented defaults).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import sympy as sp

from sabounds.theory.architecture import attention_head, s_QK, s_V
from sabounds.theory.checks import Definition, Identity, Inequality, Interval, Premise
from sabounds.theory.derivation import Derivation, Step
from sabounds.theory.thm31 import Delta, K, L, c_par, proxy_summand, rho, slot_coefficient, slot_coefficient_sharp
from sabounds.theory.thm41 import K_M, B, D, M, N, T, d_in, d_out, ell_M, ell_par, eps, n, p, s

margin, delta = sp.symbols("gamma delta", positive=True)
c_D, c_sym, c_conf, c_cut = sp.symbols("c_D c_sym c_conf c_cut", positive=True)
t_exp, h_exp, e_exp, u_var, x_var, y_var, w_exp, ell = sp.symbols("t h e u x y w ell", positive=True)
ell0, cost, W_E, ell_E, emp = sp.symbols("ell_0 Pi W_E ell_E emp", nonnegative=True)
f_scale, scale, rank_ = sp.symbols("f kappa r", positive=True)
u_real = sp.Symbol("u", real=True)
z_real = sp.Symbol("z", real=True)
B_tok, c_att, g_max, b_norm, var_ = sp.symbols("B_l c g_max b_norm v", positive=True)
"""Token norm ``B_l`` a layer's attention reads, the variant's attention constant ``c`` (published 4), a norm's
``max|g|`` and ``||b||``, a token's variance ``v``."""

token_attention_factor = s_V * (1 + c_att * B_tok**2 * s_QK)
"""A head's Lipschitz factor on tokens of norm ``<= B_l`` (post-LN, scores unscaled as in the published proxy):
``||Vt_h|| (1 + c B_l^2 ||QK_h||)``; the published ``1 + c ||QK_h||`` is ``B_l = 1``."""
token_gamma_qk = c_att / 2 * B_tok**2 * s_V
"""QK_h's in-layer factor before the MLP: ``(c/2) B_l^2 ||Vt_h||`` (one ``B_l`` from the key token, one from the value)."""
norm_radius = sp.sqrt(N) * g_max + b_norm
"""A LayerNorm's output bound ``sqrt(N) max|g| + ||b||``."""


@dataclass(frozen=True)
class Constant:
    """A constant of a cited lemma: its symbol, documented default and where the default comes from."""

    symbol: sp.Symbol
    default: sp.Expr
    meaning: str


CONSTANTS: dict[str, Constant] = {
    c.symbol.name: c
    for c in (
        Constant(
            c_D,
            sp.Integer(12),
            "Dudley's entropy integral: R_n <= 4a + c_D/sqrt(n) int_a^Delta sqrt(log N) (Bartlett et al. 2017, Lemma A.5)",
        ),
        Constant(
            c_sym,
            sp.Integer(2),
            "symmetrisation: risk <= emp + c_sym R_n(loss class) + c_conf sqrt(log(2/delta)/(2n)) (Mohri et al. 2018, Thm 3.3)",
        ),
        Constant(c_conf, sp.Integer(3), "confidence term of the same theorem (empirical Rademacher version)"),
        Constant(c_cut, sp.Integer(4), "cut-off term 4a of Dudley's integral (Edelman's bound, a = Delta/n)"),
        Constant(
            c_par,
            sp.Integer(5),
            "parametric cover of rank-r matrices: log N <= r (d_in + d_out) log(c_par s B / eps); "
            "W = A C^T, A (d_in x r, ||A|| <= s) and C (d_out x r, ||C|| <= 1) covered volumetrically at eps/(2B) and "
            "eps/(2sB): (1 + 4 s B/eps)^(r (d_in + d_out)) <= (5 s B/eps)^(r (d_in + d_out)) for eps <= s B (steps "
            "'rank_factor_error', 'rank_factor_budget', 'rank_cover_constant')",
        ),
        Constant(
            K_M,
            sp.Integer(1),
            "Maurey's lemma: log N <= K_M ell_M d_out B^2 ||W||_F^2 / eps^2 (Bartlett et al. 2017, Lemma 3.2, ceiling dropped)",
        ),
    )
}
"""``--constant NAME=VALUE`` substitutes any of these."""


def defaults() -> dict[sp.Symbol, sp.Expr]:
    """Symbol -> default value of every constant."""
    return {c.symbol: c.default for c in CONSTANTS.values()}


def log_power_integral(w: sp.Expr, h: sp.Expr) -> sp.Expr:
    """``int_0^Delta eps^{w-1} log(Delta/eps)^h d eps = Delta^w Gamma(1+h) / w^{1+h}`` (``w > 0``, ``h >= 0``)."""
    return Delta**w * sp.gamma(1 + h) / w ** (1 + h)


def power_log_integral(t: sp.Expr, h: sp.Expr) -> sp.Expr:
    """``I(t, h) = int_0^Delta eps^{-t/2} log(Delta/eps)^h d eps`` (``t < 2``): the sum-aggregated Dudley integral."""
    return log_power_integral(1 - t / 2, h)


def cs_integral(t: sp.Expr, h: sp.Expr) -> sp.Expr:
    """``J(t, h) = int_0^Delta eps^{-t} log(Delta/eps)^h d eps`` (``t < 1``): the Cauchy-Schwarz (rss) integral."""
    return log_power_integral(1 - t, h)


maurey_log = sp.log(2 * d_in * d_out * n * T)
"""``ell_M = log(2 d_in d_out n T)``."""

allocated_log = sp.Max(sp.log(c_par * s * B * K * rho / Delta), 0)
"""``ell0 = max(log(c_par s B K rho / Delta), 0)``: a slot covered at ``eps/(K rho) >= s B`` needs one point."""

crude_e, crude_t = 2 / (p + 2), 2 * p / (p + 2)
sharp_e, sharp_t = 1 - p / 2, p

crude_coefficient = slot_coefficient.subs({ell_par: 1, ell_M: maurey_log})
"""``C`` of the crude-tail cover ``C a^{2/(p+2)} eps^{-q}``: Theorem 4.1's ``(1 + p/2) a r*`` with ``a = (d_in + d_out) ell``
(``thm31.slot_coefficient`` with its parametric log factor taken out: ``c(p) (d_in + d_out)^{2/(p+2)} (K_M ell_M d_out D
B^2)^{p/(p+2)} M^{2/(p+2)}``)."""

sharp_coefficient = slot_coefficient_sharp.subs({ell_par: 1, ell_M: maurey_log})
"""``C`` of the sharp-tail cover ``C a^{1-p/2} eps^{-p}``: ``(2/(2-p)) a r*`` with ``b = K_M ell_M d_out M^{2/p} B^2/eps^2``
(``thm31.slot_coefficient_sharp`` with its parametric log factor taken out)."""


head_budget = sp.Rational(1, 2)
"""The cover budget split: a slot ``W = head + tail`` (rank-r head, Theorem 4.1's tail) is covered at ``eps`` by an
``eps/2``-cover of the head plus an ``eps/2``-cover of the tail (triangle inequality), so its cover at ``eps`` is the
theorem's at ``eps/2``: ``C a(eps/2)^e (eps/2)^{-t} = 2^t C a(eps/2)^e eps^{-t}``, and ``a(eps/2)`` has the log factor
``log(2 c_par s B K rho / eps)``: ``ell0 + log 2`` in place of ``ell0`` (steps 'budget_split', 'split_log').  At p = 0
(exactly rank r, no tail) nothing is split."""
split_ell0 = ell0 + sp.log(1 / head_budget)


def _split(expr: sp.Expr, t: sp.Expr) -> sp.Expr:
    """A p > 0 form with the budget split: its cover coefficient times ``(1/head_budget)^t``, ``ell0 -> ell0 + log 2``."""
    return expr.subs(ell0, split_ell0)


def slot_dudley(coefficient: sp.Expr, e: sp.Expr, t: sp.Expr) -> sp.Expr:
    """``sqrt(C (K rho)^t) [ell0^{e/2} I(t, 0) + I(t, e/2)]``: one slot's share of the sum-aggregated Dudley integral."""
    return sp.sqrt(coefficient * (K * rho) ** t) * (
        ell0 ** (e / 2) * power_log_integral(t, 0) + power_log_integral(t, e / 2)
    )


def slot_cs(coefficient: sp.Expr, e: sp.Expr, t: sp.Expr) -> sp.Expr:
    """``C (K rho)^t [ell0^e J(t, 0) + J(t, e)]``: ``int_0^Delta`` of one slot's cover (rss, unequal p, Cauchy-Schwarz)."""
    return coefficient * (K * rho) ** t * (ell0**e * cs_integral(t, 0) + cs_integral(t, e))


rank_slot = sp.sqrt(M * (d_in + d_out)) * (sp.sqrt(ell0) * Delta + sp.gamma(sp.Rational(3, 2)) * Delta)
"""p = 0: cover ``rank (d_in + d_out) (ell0 + log(Delta/eps))``, Dudley share ``sqrt(rank (d_in+d_out)) (sqrt(ell0) + Gamma(3/2)) Delta``."""
rank_slot_cs = M * (d_in + d_out) * (ell0 * Delta + Delta)
rounding_slot = rank_slot.subs(M, 1)
rounding_slot_cs = rank_slot_cs.subs(M, 1)
"""p > 0: r* is rounded up to an integer, which costs at most ``a = (d_in + d_out) ell`` (thm41 'integer_rounding', and
r = D once r* >= D): the cover is ``C a^e eps^{-t} + a``, and ``a``'s share is a rank-1 share."""
split_rounding_slot = _split(rounding_slot, 0)
split_rounding_slot_cs = _split(rounding_slot_cs, 0)
crude_unsplit_share = slot_dudley(crude_coefficient, crude_e, crude_t)
crude_share = _split(slot_dudley(crude_coefficient / head_budget**crude_t, crude_e, crude_t), crude_t)
sharp_share = _split(slot_dudley(sharp_coefficient / head_budget**sharp_t, sharp_e, sharp_t), sharp_t)
crude_slot = crude_share + split_rounding_slot
sharp_slot = sharp_share + split_rounding_slot
crude_share_cs = _split(slot_cs(crude_coefficient / head_budget**crude_t, crude_e, crude_t), crude_t)
sharp_share_cs = _split(slot_cs(sharp_coefficient / head_budget**sharp_t, sharp_e, sharp_t), sharp_t)
crude_slot_cs = crude_share_cs + split_rounding_slot_cs
sharp_slot_cs = sharp_share_cs + split_rounding_slot_cs

rss_main_rank = (crude_coefficient * (K * rho) ** crude_t * ell0**crude_e).subs(p, 0)
rss_rem_rank = (crude_coefficient * (K * rho) ** crude_t).subs(p, 0)
rss_main = crude_coefficient / head_budget**crude_t * (K * rho) ** crude_t * split_ell0**crude_e
rss_rem = crude_coefficient / head_budget**crude_t * (K * rho) ** crude_t
"""Per slot, the two sums of the equal-p rss form (p > 0, budget split): ``2^q C_k (K rho_k)^q (ell0_k + log 2)^e`` and
``2^q C_k (K rho_k)^q``; at p = 0 (``*_rank``) the rank cover, unsplit."""
rss_equal_main = sp.Symbol("Sigma_main", nonnegative=True)
rss_equal_rem = sp.Symbol("Sigma_rem", nonnegative=True)
rss_equal = sp.sqrt(rss_equal_main) * power_log_integral(crude_t, 0) + sp.sqrt(rss_equal_rem) * power_log_integral(
    crude_t, crude_e / 2
)
"""All slots at one p (crude tail): ``sqrt(sum_k C_k (K rho_k)^q ell0_k^e) I(q, 0) + sqrt(sum_k C_k (K rho_k)^q) I(q, e/2)``."""
rss_round_main = (d_in + d_out) * split_ell0
rss_round_rem = d_in + d_out
rss_round_main_sum = sp.Symbol("Sigma_round_main", nonnegative=True)
rss_round_rem_sum = sp.Symbol("Sigma_round_rem", nonnegative=True)
rss_rounding = sp.sqrt(rss_round_main_sum) * Delta + sp.sqrt(rss_round_rem_sum) * sp.gamma(sp.Rational(3, 2)) * Delta
"""p > 0: the rounding covers ``sum_k (d_in + d_out)(ell0_k + log(Delta/eps))`` add ``sqrt(sum (d_in+d_out) ell0_k) Delta
+ sqrt(sum (d_in+d_out)) Gamma(3/2) Delta`` to the equal-p rss integral."""
rss_cs_total = sp.Symbol("Sigma_CS", nonnegative=True)
rss_cs = sp.sqrt(Delta * rss_cs_total)

prefactor = c_sym * c_D / (margin * sp.sqrt(n))
"""``c_sym c_D / (gamma sqrt(n))``: the loss class is covered at ``u`` by covering f at ``gamma u`` (ramp, 1/gamma-Lipschitz)."""
post_hoc_term = c_conf * sp.sqrt(cost / (2 * n))
"""``c_conf sqrt(Pi / (2n))``, ``Pi = K ln(2m+1) + sum of the radii's shell costs``: the union bound's price, split off by sqrt(x+y) <= sqrt x + sqrt y."""
confidence_term = c_conf * sp.sqrt(sp.log(2 / delta) / (2 * n))

edelman_log = sp.log(2 * sp.Symbol("d_max", positive=True) * n * T)
"""``ell_E = log(2 d_max n T)``, ``d_max`` the largest ``d_in d_out`` over the slots (Maurey's log factor)."""
edelman_dudley = c_sym / margin * (c_cut * Delta / n + c_D * W_E * B * sp.sqrt(K_M * ell_E / n) * sp.log(n))
"""Edelman et al. (2022) through the same margin bound: ``(c_sym/gamma)(4 Delta/n + 12 W_E B sqrt(K_M ell_E/n) ln n)``."""


def proxy_contribution(schatten: sp.Expr, p_: sp.Expr, kappa: sp.Expr, width: sp.Expr) -> sp.Expr:
    """Section 6: ``S_p^{1/(p+2)} kappa^{p/(p+2)} N^{(p+1)/(p+2)}``: ``thm31.proxy_summand`` at ``rho = kappa / L``."""
    return proxy_summand.subs(rho, scale / L).subs({M: schatten, p: p_, scale: kappa, N: width}, simultaneous=True)


proxy_break_even = scale * M ** (1 / p) * N ** ((p + 1) / p) / (rank_ * N) ** ((p + 2) / (2 * p))
"""The shrink factor ``f`` at which ``contribution(p; kappa/f) = contribution(0) = sqrt(r N)``."""


def _steps() -> tuple[Step, ...]:
    pos = Interval(sp.Rational(1, 10), 10, log=True)
    h_range = Interval(0, 2)
    e_range = Interval(sp.Rational(1, 20), 1)
    return (
        Step(
            "margin_bound",
            sp.Le(sp.Symbol("risk"), emp + c_sym * sp.Symbol("R_n(G)") + c_conf * sp.sqrt(sp.log(2 / delta) / (2 * n))),
            "for a [0, 1]-valued loss class G, with probability 1 - delta, for all g in G (empirical Rademacher form)",
            Premise("Mohri, Rostamizadeh and Talwalkar (2018), Theorem 3.3; Bartlett and Mendelson (2002)"),
        ),
        Step(
            "dudley",
            sp.Le(
                sp.Symbol("R_n(G)"),
                c_D / sp.sqrt(n) * sp.Integral(sp.sqrt(sp.log(sp.Function("N_G")(u_var))), (u_var, 0, 1)),
            ),
            "Dudley's entropy integral for a class of diameter at most 1",
            Premise("Dudley (1967); Bartlett, Foster and Telgarsky (2017), Lemma A.5"),
        ),
        Step(
            "ramp_cover",
            sp.Le(sp.Function("N_G")(u_var), sp.Function("N_F")(margin * u_var)),
            "the ramp loss is 1/gamma-Lipschitz in the scalar read-out, whose error is at most the output's 2->inf error",
            Premise("Lipschitz composition of covers"),
        ),
        Step(
            "change_of_scale",
            sp.Eq(
                sp.Integral((margin * u_var) ** (w_exp - 1), (u_var, 0, 1)),
                1 / margin * sp.Integral(eps ** (w_exp - 1), (eps, 0, margin)),
            ),
            "int_0^1 h(gamma u) du = (1/gamma) int_0^gamma h(eps) d eps (here h = eps^{w-1}): f's integral runs to Delta = gamma",
            Identity({margin: pos, w_exp: pos}),
        ),
        Step(
            "log_split",
            sp.Le((x_var + y_var) ** e_exp, x_var**e_exp + y_var**e_exp),
            "(x + y)^e <= x^e + y^e for 0 < e <= 1: a^e = ((d_in+d_out)(ell0 + log(Delta/eps)))^e splits into two covers "
            "(sampled on the box x, y in [1/10, 10], e in [1/20, 1]; used at every scale: both sides are homogeneous of "
            "degree e in (x, y), so the box covers every ratio y/x in [1/100, 100])",
            Inequality({x_var: pos, y_var: pos, e_exp: e_range}),
        ),
        Step(
            "sqrt_split",
            sp.Le(sp.sqrt(x_var + y_var), sp.sqrt(x_var) + sp.sqrt(y_var)),
            "sqrt(x + y) <= sqrt x + sqrt y: the two covers, and the post hoc and confidence terms, are bounded apart "
            "(decided on the box x, y in [1/10, 10]; used at every scale, where it holds as (sqrt x + sqrt y)^2 = "
            "x + y + 2 sqrt(x y))",
            Inequality({x_var: pos, y_var: pos}),
        ),
        Step(
            "log_power_integral",
            sp.Eq(
                Delta**w_exp * sp.Integral(sp.exp(-w_exp * u_var) * u_var**h_exp, (u_var, 0, sp.oo)),
                log_power_integral(w_exp, h_exp),
            ),
            "eps = Delta e^{-u} turns int_0^Delta eps^{w-1} log(Delta/eps)^h d eps into Delta^w int_0^oo e^{-wu} u^h du; "
            "w = 1 - t/2 (sum aggregation, I) or 1 - t (Cauchy-Schwarz, J)",
            Identity({Delta: pos, w_exp: pos, h_exp: h_range}),
        ),
        Step(
            "crude_cover",
            sp.Eq(
                crude_coefficient * ((d_in + d_out) * ell) ** crude_e / (d_in + d_out) ** crude_e,
                slot_coefficient.subs({ell_par: ell, ell_M: maurey_log}),
                evaluate=False,
            ),
            "the crude slot cover C a^{2/(p+2)} eps^{-q} is thm31's slot_coefficient with ell_par = ell, ell_M = log(2 d_in d_out n T)",
            Identity(
                {
                    p: Interval(sp.Rational(1, 20), 2),
                    d_in: pos,
                    d_out: pos,
                    D: pos,
                    B: pos,
                    K_M: pos,
                    M: pos,
                    n: Interval(10, 10**6, log=True),
                    T: pos,
                    ell: pos,
                }
            ),
        ),
        Step(
            "sharp_cover",
            sp.Eq(
                sharp_coefficient * (d_in + d_out) ** (-sharp_e) * ((d_in + d_out) * ell) ** sharp_e * eps ** (-p),
                2
                / (2 - p)
                * (d_in + d_out)
                * ell
                * ((2 - p) * K_M * maurey_log * d_out * M ** (2 / p) * B**2 / eps**2 / (p * (d_in + d_out) * ell))
                ** (p / 2),
            ),
            "the sharp slot cover is Theorem 4.1's (2/(2-p)) a r*_sharp with a = (d_in+d_out) ell, b = K_M ell_M d_out M^{2/p} B^2/eps^2",
            Identity(
                {
                    p: Interval(sp.Rational(1, 20), sp.Rational(39, 20)),
                    d_in: pos,
                    d_out: pos,
                    B: pos,
                    K_M: pos,
                    M: pos,
                    n: Interval(10, 10**6, log=True),
                    T: pos,
                    eps: pos,
                    ell: pos,
                }
            ),
        ),
        Step(
            "rounding_share",
            sp.Le(
                sp.sqrt(sp.Symbol("A_eps", positive=True) + (d_in + d_out) * ell),
                sp.sqrt(sp.Symbol("A_eps", positive=True)) + sp.sqrt(d_in + d_out) * sp.sqrt(ell),
            ),
            "p > 0: rounding r* up costs at most a = (d_in + d_out) ell (thm41 'integer_rounding'); sqrt(x + y) <= sqrt x + sqrt y "
            "gives it its own share, a rank-1 share (rounding_slot)",
            Inequality({sp.Symbol("A_eps", positive=True): pos, d_in: pos, d_out: pos, ell: pos}),
        ),
        Step(
            "budget_split",
            sp.Eq(
                slot_coefficient.subs({ell_par: sp.log(c_par * x_var / (head_budget * eps)), ell_M: maurey_log})
                * (head_budget * eps) ** (-crude_t),
                head_budget ** (-crude_t)
                * slot_coefficient.subs(
                    {ell_par: sp.log(c_par * x_var / eps) + sp.log(1 / head_budget), ell_M: maurey_log}
                )
                * eps ** (-crude_t),
            ),
            "W = head + tail: an eps/2-cover of the rank-r head plus an eps/2-cover of the tail is an eps-cover of W "
            "(triangle inequality), so a slot's cover at eps is Theorem 4.1's at eps/2: the coefficient gains 2^q "
            "(2^p on the sharp route) and the parametric log factor log(c s B/eps) gains log 2 (x = s B K rho)",
            Identity(
                {
                    p: Interval(sp.Rational(1, 20), 2),
                    d_in: pos,
                    d_out: pos,
                    D: pos,
                    B: pos,
                    K_M: pos,
                    M: pos,
                    n: Interval(10, 10**6, log=True),
                    T: pos,
                    eps: Interval(sp.Rational(1, 100), 1, log=True),
                    x_var: Interval(1, 100, log=True),
                    c_par: Interval(1, 10),
                }
            ),
        ),
        Step(
            "split_log",
            sp.Le(sp.Max(x_var - y_var + sp.log(2), 0), sp.Max(x_var - y_var, 0) + sp.log(2)),
            "max(x + log 2, 0) <= max(x, 0) + log 2 (x = x' - y', sampled on the box x', y' in [1/10, 10]): the split "
            "log factor's allocated part is at most ell0 + log 2",
            Inequality({x_var: pos, y_var: pos}),
        ),
        Step(
            "input_norms",
            sp.Le(sp.Abs(u_real * (1 + sp.erf(u_real / sp.sqrt(2))) / 2), sp.Abs(u_real)),
            "per-slot input norms (the layer has no normalisation): QK and V_tilde see the layer input (norm <= B_l), "
            "M_in the attention output (a convex combination of tokens per head: <= sum_h ||Vt_h|| B_l), M_out "
            "GELU(M_in h) with |GELU(u)| = |u Phi(u)| <= |u| (checked here): <= ||M_in|| sum_h ||Vt_h|| B_l, and the "
            "next layer's input <= ||M_out|| times that; each slot's cover and log factor use its own bound B_k",
            Inequality({u_real: Interval(-20, 20)}),
        ),
        Step(
            "token_attention_factor",
            sp.Eq(
                sp.Mul(
                    attention_head(c_att / 2).subs({s_QK: B_tok**2 * s_QK, s_V: B_tok * s_V}, simultaneous=True),
                    sp.Pow(B_tok, -1),
                    evaluate=False,
                ),
                token_attention_factor,
                evaluate=False,
            ),
            "post-LN: X = B_l Y with rows of Y of norm <= 1 turns softmax(X QK X^T) X Vt into the published head on unit "
            "tokens with QK' = B_l^2 QK, Vt' = B_l Vt; Lip in X = Lip in Y / B_l: A_h = ||Vt_h|| (1 + c B_l^2 ||QK_h||) "
            "(c = 4 published), the layer factor and alpha^(l) use it with the layer's token bound B_l",
            Identity(
                {B_tok: Interval(sp.Rational(1, 100), 10**6, log=True), s_V: pos, s_QK: pos, c_att: Interval(1, 8)}
            ),
        ),
        Step(
            "token_gamma_qk",
            sp.Eq(sp.Mul(c_att / 2, B_tok * s_V, B_tok, evaluate=False), token_gamma_qk, evaluate=False),
            "a QK_h error e = ||x dQK||_2 (the cover's metric, with x's bound B_l in the cover) moves a score by <= e B_l "
            "(the key token), the softmax output by <= (c/2) that in l_1, the head's output by that times "
            "max_t ||x_t Vt_h|| <= B_l ||Vt_h||: gamma_QK = (c/2) B_l^2 ||Vt_h|| ||M_out|| ||M_in||",
            Identity({B_tok: Interval(sp.Rational(1, 100), 10**6, log=True), s_V: pos, c_att: Interval(1, 8)}),
        ),
        Step(
            "norm_output",
            sp.Le(N * var_ / (var_ + sp.Symbol("epsilon_LN", positive=True)), N),
            "a LayerNorm's output g * (x - mean)/sqrt(v + eps) + b has norm <= max|g| sqrt(N v/(v + eps)) + ||b|| <= "
            "sqrt(N) max|g| + ||b|| for every input (checked: N v/(v + eps) <= N), no premise needed",
            Inequality(
                {
                    N: Interval(1, 8192, log=True),
                    var_: Interval(sp.Rational(1, 10**6), 10**6, log=True),
                    sp.Symbol("epsilon_LN", positive=True): Interval(sp.Rational(1, 10**12), 1, log=True),
                }
            ),
        ),
        Step(
            "token_norms",
            sp.Eq(sp.Symbol("B_k"), sp.Min(sp.Symbol("B_k^prop", positive=True), norm_radius)),
            "post-LN: a slot's token bound is the smaller of the propagated bound ('input_norms') and the output bound "
            "of the LayerNorm whose output it reads ('norm_output'; QK, V_tilde: the previous layer's output norm (layer 1: "
            "the embedding LayerNorm's, the default B), M_in: "
            "the attention's output norm, M_out: ||M_in|| times M_in's), the radius rounded up to its dyadic shell and "
            "priced (post hoc 'norm_shells'); premise: the slot reads both the package's layer and the checkpoint's "
            "normalised tokens, printed with the bound",
            Definition(),
        ),
        Step(
            "rank_factor_error",
            sp.Le(
                sp.Abs(x_var * u_real - y_var * z_real),
                sp.Abs(x_var - y_var) * sp.Abs(u_real) + sp.Abs(y_var) * sp.Abs(u_real - z_real),
            ),
            "c_par: a rank-r W = A C^T (A = U Sigma, ||A|| <= s; C = V, ||C|| <= 1); A C^T - A'C'^T = (A - A') C^T + "
            "A'(C - C')^T, so ||W - W'|| <= ||A - A'|| + s ||C - C'|| (the scalar form sampled: |xu - yw| <= |x - y||u| + "
            "|y||u - w|; operator norms are submultiplicative and subadditive likewise)",
            Inequality(
                {
                    x_var: Interval(sp.Rational(1, 100), 10),
                    y_var: Interval(sp.Rational(1, 100), 10),
                    u_real: Interval(-10, 10),
                    z_real: Interval(-10, 10),
                }
            ),
        ),
        Step(
            "rank_factor_budget",
            sp.Eq(
                sp.Mul(
                    B,
                    sp.Add(eps / (2 * B), sp.Mul(s, eps / (2 * s * B), evaluate=False), evaluate=False),
                    evaluate=False,
                ),
                eps,
                evaluate=False,
            ),
            "covering A at eps/(2B) and C at eps/(2 s B) in spectral norm covers W at eps in the metric "
            "max_t ||x_t (W - W')||_2 <= B ||W - W'||_2; volumetric nets of the balls: (1 + 2 s/(eps/(2B)))^(d_in r) "
            "(1 + 2/(eps/(2 s B)))^(d_out r) = (1 + 4 s B/eps)^(r (d_in + d_out))",
            Identity({B: pos, s: pos, eps: pos}),
        ),
        Step(
            "rank_cover_constant",
            sp.Le(1 + 4 * x_var, 5 * x_var),
            "with x = s B/eps >= 1 (for eps > s B one point covers, ell0's max(., 0)): 1 + 4x <= 5x, so "
            "log N <= r (d_in + d_out) log(5 s B/eps): c_par = 5 (was asserted 3, a single factor's (1 + 2/x) <= 3/x)",
            Inequality({x_var: Interval(1, 10**6, log=True)}),
        ),
        Step(
            "rank_slot",
            sp.Eq(sp.Subs(crude_unsplit_share, p, 0), rank_slot, evaluate=False),
            "at p = 0 the crude slot share is sqrt(rank (d_in + d_out)) (sqrt(ell0) + Gamma(3/2)) Delta, free of rho but for ell0",
            Identity(
                {
                    M: pos,
                    d_in: pos,
                    d_out: pos,
                    D: pos,
                    B: pos,
                    K_M: pos,
                    K: pos,
                    rho: pos,
                    Delta: pos,
                    n: Interval(10, 10**6, log=True),
                    T: pos,
                    ell0: pos,
                }
            ),
        ),
        Step(
            "peeling_integers",
            sp.Eq(
                sp.Sum(
                    1
                    / (sp.Symbol("i", integer=True, positive=True) * (sp.Symbol("i", integer=True, positive=True) + 1)),
                    (sp.Symbol("i", integer=True, positive=True), 1, sp.oo),
                ),
                1,
            ),
            "shell z in Z of a radius (2^{z-1}, 2^z] gets index i = 2z (z >= 1) or 1 - 2z (z <= 0), weight 1/(i(i+1)): costs ln(i(i+1))",
            Identity(),
        ),
        Step(
            "rss_cauchy_schwarz",
            sp.Le(sp.Symbol("int_0^Delta sqrt(sum_k f_k)"), sp.sqrt(Delta * sp.Symbol("sum_k int_0^Delta f_k"))),
            "Cauchy-Schwarz on [0, Delta] (unequal p_k)",
            Premise("Cauchy-Schwarz inequality"),
        ),
        Step(
            "edelman_through_margin",
            sp.Eq(
                edelman_dudley,
                c_sym
                / margin
                * (
                    c_cut * Delta / n
                    + c_D / sp.sqrt(n) * sp.Integral(W_E * B * sp.sqrt(K_M * ell_E) / eps, (eps, Delta / n, Delta))
                ),
            ),
            "Edelman's cover W_E^2 B^2 K_M ell_E / eps^2 in Dudley's integral cut at Delta/n, through the same margin bound",
            Identity(
                {
                    W_E: pos,
                    B: pos,
                    K_M: pos,
                    ell_E: pos,
                    Delta: pos,
                    margin: pos,
                    c_sym: pos,
                    c_cut: pos,
                    c_D: pos,
                    n: Interval(2, 10**6, log=True),
                }
            ),
        ),
        Step(
            "proxy_break_even",
            sp.Eq(proxy_contribution(M, p, scale / proxy_break_even, N), sp.sqrt(rank_ * N)),
            "shrinking kappa = gamma alpha L by f* = kappa S_p^{1/p} N^{(p+1)/p} / (r N)^{(p+2)/(2p)} makes contribution(p) equal sqrt(r N)",
            Identity(
                {
                    p: Interval(sp.Rational(1, 20), 2),
                    M: pos,
                    scale: pos,
                    N: Interval(2, 4096, log=True),
                    rank_: Interval(1, 100),
                }
            ),
        ),
        Step(
            "grid_union",
            sp.Eq(sp.Symbol("Pi"), sp.Symbol("K ln(2m+1) + sum_radii ln(i(i+1)) + sum_(p_k = 0) ln D_k")),
            "the price of choosing p on P_m per slot, the dyadic shells of s_k and S_p(W_k) (p > 0), and the rank (p = 0, uniform on 1..D_k)",
            Definition(),
        ),
    )


@lru_cache(maxsize=1)
def derivation() -> Derivation:
    """The whole bound (docs/definitions.md), each decidable step checked by ``sabounds verify`` (catalog entry ``whole_bound``)."""
    return Derivation(
        "whole_bound",
        "The whole bound of Theorem 3.1 as a number (margin, Dudley, post hoc, confidence)",
        _steps(),
        notes="'margin_bound', 'dudley', 'ramp_cover' and 'rss_cauchy_schwarz' are cited premises.",
    )
