"""The labelled extensions of the published layer, one derivation per departure (``arch.*``): pre-LN residual
blocks under a stated normalisation premise, the token radius and score scale the attention really sees, rotary
position embeddings, gated MLPs, grouped-query attention and other activations.  Numeric checks of the real maps
(softmax attention with RoPE, RMSNorm, SwiGLU) are in ``sabounds.proofs_check.architecture`` and ``..architecture_block``.
"""

from __future__ import annotations

import sympy as sp

from sabounds.theory.architecture import ACTIVATION_FORMS, _x, activation_lipschitz, attention_head, d_h, s_QK, s_V
from sabounds.theory.checks import Definition, Identity, Inequality, Interval, Limit, Premise
from sabounds.theory.derivation import Derivation, Step
from sabounds.theory.thm41 import N

A_att, F_mlp, L_act, R_in = sp.symbols("A F L_act R", positive=True)
"""``A`` the attention's Lipschitz constant, ``F`` the MLP's, ``L_act`` the activation's, ``R`` the MLP input radius."""
s_G, s_U, s_D = sp.symbols("s_G s_U s_D", positive=True)
"""Spectral norms of a gated MLP's gate ``G``, up ``U`` and down ``D`` projections: ``f(x) = (act(x G) * (x U)) D``."""
B_tok, g_max, rho, eps, b_norm = sp.symbols("B g_max rho epsilon b_norm", positive=True)
"""Token radius ``B``, ``max|g|`` of a norm's weight, the rms floor ``rho`` (premise), the norm's ``eps``, ``||b||``."""
S_sq, G_kv = sp.symbols("S G", positive=True)
_z = sp.Symbol("z", real=True)
_a, _b = sp.symbols("a b", real=True)
_BIG = Interval(sp.Rational(1, 1000), 10**6, log=True)


def _rotation(t):
    return sp.Matrix([[sp.cos(t), -sp.sin(t)], [sp.sin(t), sp.cos(t)]])


def _pre_ln() -> Derivation:
    lip_ln = sp.Symbol("Lip_LN", positive=True)
    lip = sp.Symbol("Lip_layer", positive=True)
    return Derivation(
        "arch.pre_ln",
        "Pre-LN layer with residuals: y = x + Attn(LN(x)), z = y + MLP(LN(y))",
        (
            Step(
                "rms_premise",
                sp.Ge(sp.Symbol("rms_x"), rho),
                "premise carried as a parameter (--rms-floor, default 0): every normalisation's input x has "
                "rms(x) >= rho (a LayerNorm's: the rms of x - mean(x)); printed among the departures of analyze, bound and report",
                Premise("modelling assumption of the pre-LN extension, stated in the output"),
                "extension",
            ),
            Step(
                "norm_lipschitz",
                sp.Eq(lip_ln, g_max / sp.sqrt(rho**2 + eps)),
                "RMSNorm(x) = g * sqrt(N) z / ||z||, z = (x, sqrt(N eps)), with ||z|| >= sqrt(N (rho^2 + eps)); radial "
                "projection onto a sphere is 1/c-Lipschitz outside the ball of radius c (project the longer vector onto "
                "the shorter one's ball, a non-expansive map), so Lip_LN <= max|g| / sqrt(rho^2 + eps) (LayerNorm: after "
                "the non-expansive centring); Lip_LN = 1 is false (ratio max|g| sqrt(N) / ||x|| at rms(x) small). "
                "Decided on real norms by arch.norm_lipschitz_numeric",
                Definition(),
                "extension",
            ),
            Step(
                "local_constant_exceeds_one",
                sp.Gt(g_max / sp.sqrt(rho**2 + eps), 1),
                "for max|g| = 1 and rho^2 + eps < 1 the constant exceeds the published proxy's Lip_LN = 1",
                Inequality(
                    {
                        g_max: Interval(1, 1),
                        rho: Interval(sp.Rational(1, 1000), sp.Rational(99, 100)),
                        eps: Interval(sp.Rational(1, 10**12), sp.Rational(1, 100), log=True),
                    }
                ),
                "extension",
            ),
            Step(
                "residual_block",
                sp.Eq(sp.Symbol("Lip_residual"), 1 + lip_ln * A_att),
                "||x + f(LN x) - x' - f(LN x')|| <= (1 + Lip(f) Lip_LN) ||x - x'||",
                Definition(),
                "extension",
            ),
            Step(
                "composition",
                sp.Eq(lip, (1 + sp.Symbol("Lip_LN1") * A_att) * (1 + sp.Symbol("Lip_LN2") * F_mlp)),
                "the two residual blocks compose; decided on the real block by arch.pre_ln_block_numeric",
                Definition(),
                "extension",
            ),
            Step(
                "expanded",
                sp.Eq(
                    (1 + lip_ln * A_att) * (1 + lip_ln * F_mlp),
                    1 + lip_ln * (A_att + F_mlp) + lip_ln**2 * A_att * F_mlp,
                ),
                "(1 + Lip_LN A)(1 + Lip_LN F): the residual paths plus the product of both blocks",
                Identity(),
                "extension",
            ),
            Step(
                "gamma_attention",
                sp.Eq(sp.Symbol("gamma_Vt_h"), 1 + sp.Symbol("Lip_LN2") * F_mlp),
                "an attention matrix's error passes the MLP residual block: D = 1 + Lip_LN2 F",
                Definition(),
                "extension",
            ),
        ),
        notes="The premise is a parameter (rho); its default rho = 0 gives the eps-based global constant.",
    )


def _token_radius() -> Derivation:
    y, q = sp.symbols("y q", real=True)
    scaled = attention_head().subs({s_QK: B_tok**2 * s_QK / sp.sqrt(d_h), s_V: B_tok * s_V}, simultaneous=True)
    derived = sp.expand(scaled / B_tok)
    published_qk_gamma = 2 * s_V
    return Derivation(
        "arch.token_radius",
        "Pre-LN attention on normalised tokens of norm <= B, scores / sqrt(d_h)",
        (
            Step(
                "rms_radius",
                sp.Eq(
                    sp.Mul(S_sq, sp.Pow(sp.Mul(S_sq, 1 / N, evaluate=False), -1, evaluate=False), evaluate=False),
                    N,
                    evaluate=False,
                ),
                "||h / rms(h)||^2 = sum h_i^2 / (sum h_i^2 / N) = N (eps only shrinks it), so a norm of weight g and "
                "bias b outputs tokens of norm <= B = sqrt(N) max|g| + ||b||",
                Identity(),
                "extension",
            ),
            Step(
                "radius",
                sp.Eq(B_tok, sp.sqrt(N) * g_max + b_norm),
                "the token radius the attention reads (without the weight in the checkpoint, max|g| <= 1 is assumed "
                "and printed)",
                Definition(),
                "extension",
            ),
            Step(
                "rescale",
                sp.Eq(
                    sp.Mul(B_tok * y, q, B_tok * y, 1 / sp.sqrt(d_h), evaluate=False),
                    sp.Mul(y, B_tok**2 * q / sp.sqrt(d_h), y, evaluate=False),
                    evaluate=False,
                ),
                "with X = B Y (rows of Y of norm <= 1): softmax(X QK X^T / sqrt(d_h)) X Vt = softmax(Y QK' Y^T) Y Vt' "
                "with QK' = B^2 QK / sqrt(d_h), Vt' = B Vt, the published head on unit tokens",
                Identity(),
                "extension",
            ),
            Step(
                "attention_factor",
                sp.Eq(derived, s_V * (1 + 4 * B_tok**2 * s_QK / sp.sqrt(d_h)), evaluate=False),
                "Lip in X = Lip in Y / B: A_h = (1/B) ||Vt'|| (1 + 4 ||QK'||), computed by substituting QK', Vt' into "
                "the published factor; equals ||Vt_h|| (1 + 4 B^2 ||QK_h|| / sqrt(d_h))",
                Identity(),
                "extension",
            ),
            Step(
                "gamma_qk",
                sp.Eq(
                    sp.Mul(published_qk_gamma.subs(s_V, B_tok * s_V), B_tok / sp.sqrt(d_h), evaluate=False),
                    2 * B_tok**2 * s_V / sp.sqrt(d_h),
                    evaluate=False,
                ),
                "a QK_h error e = ||x dQK|| moves a score by <= e B / sqrt(d_h) (the key side has norm <= B); the "
                "published 2 ||Vt'|| then gives gamma_QK = 2 B^2 ||Vt_h|| / sqrt(d_h) (times the downstream D)",
                Identity(),
                "extension",
            ),
            Step(
                "published_case",
                sp.Eq(derived.subs({B_tok: 1, d_h: 1}), attention_head(), evaluate=False),
                "B = 1 without a score scale is the published factor (the BERT proxy stays as published)",
                Identity(),
                "extension",
            ),
        ),
        notes="Decided on the real block (RMSNorm, softmax attention with RoPE, SwiGLU) by arch.pre_ln_block_numeric.",
    )


def _rope() -> Derivation:
    i, j = sp.symbols("i j", integer=True, positive=True)
    member = (
        sp.MatrixSymbol("W_q_h", d_h, N).T * sp.MatrixSymbol("R_delta", d_h, d_h) * sp.MatrixSymbol("W_k_g", d_h, N)
    )
    sigma = sp.Function("sigma", positive=True)
    return Derivation(
        "arch.rope",
        "Rotary position embeddings: the score family {Wq_h^T R_delta Wk_g : |delta| < T}",
        (
            Step(
                "relative_rotation",
                sp.Eq(sum(e**2 for e in _rotation(_a).T * _rotation(_b) - _rotation(_b - _a)), 0),
                "each pair (t, t + r/2) of a head vector is turned by pos * theta^(-2t/r) (rotate_half convention): "
                "R(a)^T R(b) = R(b - a), so <R_i Wq x_i, R_j Wk x_j> = x_i Wq^T R_(j-i) Wk x_j^T",
                Identity(),
                "extension",
            ),
            Step(
                "orthogonal",
                sp.Eq(sum(e**2 for e in _rotation(_a).T * _rotation(_a) - sp.eye(2)), 0),
                "R_delta is block-diagonal with 2x2 rotations (identity on the unrotated dimensions): orthogonal for "
                "every offset, theta and linear/dynamic scaling (yarn's attention factor c multiplies it by c)",
                Identity(),
                "extension",
            ),
            Step(
                "family",
                sp.Eq(sp.MatrixSymbol("QK_h_delta", N, N), member),
                "the object the scores use is the family over offsets; the published QK_h = Wq_h^T Wk_g is only its "
                "delta = 0 member",
                Definition(),
                "extension",
            ),
            Step(
                "horn",
                sp.Le(
                    sp.Product(sigma(member, i), (i, 1, j)),
                    sp.Product(
                        sigma(sp.MatrixSymbol("W_q_h", d_h, N), i) * sigma(sp.MatrixSymbol("W_k_g", d_h, N), i),
                        (i, 1, j),
                    ),
                ),
                "Horn's inequality with sigma(R_delta) = 1: prod_{i<=k} sigma_i(Wq^T R Wk) <= prod_{i<=k} "
                "sigma_i(Wq) sigma_i(Wk) for every k and every orthogonal R",
                Premise("A. Horn (1950), PNAS 36; R. Bhatia, Matrix Analysis, Thm III.4.5"),
                "extension",
            ),
            Step(
                "uniform_bounds",
                sp.Eq(
                    sp.Symbol("b_i"),
                    sigma(sp.MatrixSymbol("W_q_h", d_h, N), i) * sigma(sp.MatrixSymbol("W_k_g", d_h, N), i),
                ),
                "hence for every offset: ||member||_2 <= b_1 = ||Wq_h|| ||Wk_g||; S_p(member)^p <= sum b_i^p for every "
                "p > 0 (weak log-majorisation, t -> e^(p t) convex increasing; Bhatia II.3.5); rank <= d_h; "
                "||member||_{2,1} <= ||Wq_h||_2 ||Wk_g||_{2,1}.  The proxy uses these b_i as the head's spectrum. "
                "Decided against rotate_half attention on checkpoints by arch.rope_numeric.  Not derived: that "
                "covering the score map jointly over all offsets costs no more than one matrix with these bounds",
                Definition(),
                "extension",
            ),
        ),
        notes="The bounds hold for any orthogonal R_delta, so for every context length and rope scaling; "
        "the sampled sup over offsets is reported beside them.",
    )


def _gated_mlp() -> Derivation:
    sigmoid = 1 / (1 + sp.exp(-_z))
    big = {s_G: _BIG, s_U: _BIG, s_D: _BIG, R_in: _BIG, L_act: Interval(1, 2)}
    return Derivation(
        "arch.gated_mlp",
        "Gated MLP f(x) = (act(x G) * (x U)) D (SwiGLU) on inputs ||x||_2 <= R",
        (
            Step(
                "input_norm",
                sp.Le(sp.Symbol("norm_x"), R_in),
                "every MLP input row has ||x||_2 <= R: the pre-MLP norm's radius sqrt(N) max|g| + ||b|| "
                "(arch.token_radius.rms_radius); the product of two linear maps is not globally Lipschitz",
                Definition(),
                "extension",
            ),
            Step(
                "silu_below_identity",
                sp.Le(sigmoid, 1),
                "SiLU(z) = z sigmoid(z) with 0 < sigmoid <= 1, so |act(z)| <= |z| (GELU: Phi <= 1 likewise)",
                Inequality({_z: Interval(-40, 40)}),
                "extension",
            ),
            Step(
                "jacobian",
                sp.Eq(sp.Symbol("J"), sp.Symbol("J_gate") + sp.Symbol("J_up")),
                "J = D^T [diag(xU) diag(act'(xG)) G^T + diag(act(xG)) U^T]; decided against finite differences of the "
                "real map by arch.gated_mlp_numeric",
                Definition(),
                "extension",
            ),
            Step(
                "product_rule",
                sp.Le(s_D * (L_act * s_G * R_in * s_U + R_in * s_G * s_U), (1 + L_act) * R_in * s_G * s_U * s_D),
                "||diag(xU)|| <= R s_U, ||act(xG)||_inf <= R s_G, |act'| <= L_act: ||J|| <= F = (1 + L_act) R s_G s_U s_D; "
                "||J(x)||_2 <= F on the R-ball decided by arch.gated_mlp_numeric",
                Inequality(big),
                "extension",
            ),
            Step(
                "gamma_gate_up",
                sp.Le(L_act * R_in * s_U * s_D + R_in * s_G * s_D, (1 + L_act) * R_in * s_D * (s_G + s_U)),
                "per-matrix factors: gate L_act R s_U s_D (act is L_act-Lipschitz, ||xU||_inf <= R s_U), up R s_G s_D "
                "(|act(xG)| <= |xG|); their sum is at most F (1/s_U + 1/s_G)",
                Inequality(big),
                "extension",
            ),
        ),
        notes="Checked numerically by arch.gated_mlp_numeric on random SwiGLU maps and inputs in the R-ball.",
    )


def _gqa() -> Derivation:
    h = sp.Symbol("h", integer=True, nonnegative=True)
    return Derivation(
        "arch.gqa",
        "Grouped-query attention: H query heads share G key/value heads",
        (
            Step(
                "group",
                sp.Eq(sp.Symbol("g_h"), sp.floor(h * G_kv / sp.Symbol("H", positive=True))),
                "query head h reads key/value head g(h) = floor(h G / H) (Hugging Face's repeat_kv: blocks of H/G)",
                Definition(),
                "extension",
            ),
            Step(
                "per_head_products",
                sp.Eq(
                    sp.MatrixSymbol("QK_h", N, N), sp.MatrixSymbol("W_q_h", d_h, N).T * sp.MatrixSymbol("W_k_g", d_h, N)
                ),
                "each head's score map is x Wq_h^T R_delta Wk_g(h) x^T, its value path Wv_g(h)^T Wo_h: one product per "
                "query head; covering the H products separately over-counts the G shared factors, which keeps the "
                "bound valid.  Decided against repeat_kv attention with RoPE and softmax by arch.gqa_numeric",
                Definition(),
                "extension",
            ),
        ),
    )


def _activation() -> Derivation:
    steps = []
    for name in ("gelu_tanh", "silu"):
        d1 = sp.diff(ACTIVATION_FORMS[name], _x)
        steps.append(
            Step(
                f"{name}_slope_at_infinity",
                sp.Eq(sp.Limit(d1, _x, sp.oo), 1),
                f"{name}'(x) -> 1 as x -> oo (and -> 0 as x -> -oo): the supremum of |{name}'| is at a "
                "critical point or 1",
                Limit(),
                "extension",
            )
        )
        steps.append(
            Step(
                f"{name}_constant",
                sp.Eq(sp.Symbol(f"L_{name}"), activation_lipschitz(name)),
                f"L_{name} = sup |{name}'| rounded up at 6 decimals (nsolve of {name}'' = 0); decided "
                f"by arch.{name}_lipschitz",
                Definition(),
                "extension",
            )
        )
    return Derivation(
        "arch.activation", "Activations other than GELU: Lipschitz constants derived, not typed", tuple(steps)
    )


BUILDERS = {
    "pre_ln": _pre_ln,
    "token_radius": _token_radius,
    "rope": _rope,
    "gated_mlp": _gated_mlp,
    "gqa": _gqa,
    "activation": _activation,
}
