"""The whole bound for families whose layer departs from BERT's [reconstructed]: slots, input norms and rho_k.

The extension (``sabounds.theory.extensions``) gives each layer's Lipschitz constant and in-layer factors; the whole
bound (``sabounds.theory.whole_bound``) needs in addition each slot's input norm bound ``B_k`` and the post hoc price
of every data-dependent radius.  Pre-LN (``y = x + Attn(LN1 x)``, ``z = y + MLP(LN2 y)``): attention reads tokens of
norm ``<= B = sqrt(N) max|g1| + ||b1||``, the MLP inputs of norm ``<= R = sqrt(N) max|g2| + ||b2||``, so

    QK_h, V_tilde_h: B_k = B;  gate, up (M_in): B_k = R;  down (M_out): R^2 ||G|| ||U|| (gated), R ||M_in|| (ungated);
    gamma: QK_h (c/2) B^2 ||Vt_h|| D / sqrt(d_h), V_tilde_h D, gate L_act R ||U|| ||D||, up R ||G|| ||D||,
    ungated M_in L_act ||M_out||, M_out 1;   D = 1 + Lip_LN2 F;   alpha^(l) = prod_{j > l} (1 + Lip_LN1 A_j) D_j,

with ``Lip_LN = max|g| / sqrt(rho^2 + eps)`` under the normalisation premise and the norm gains and radii rounded up
to dyadic shells like every other radius.  The steps below are checked by ``sabounds.proofs_check.whole_bound``.
"""

from __future__ import annotations

from functools import lru_cache

import sympy as sp

from sabounds.theory.architecture import ACTIVATION_FORMS, _x, attention_head, d_h, s_QK, s_V
from sabounds.theory.checks import Definition, Identity, Inequality, Interval, Premise
from sabounds.theory.derivation import Derivation, Step
from sabounds.theory.extensions import B_tok, L_act, R_in, s_D, s_G, s_U

c_att = sp.Symbol("c", positive=True)
"""The attention constant of the variant (published 4: factor ``1 + c ||QK||``)."""
a1, a2, b1, b2 = sp.symbols("a_1 a_2 b_1 b_2", real=True)
_POS = Interval(sp.Rational(1, 100), 100, log=True)


def _steps() -> tuple[Step, ...]:
    box = Interval(-10, 10)
    act_steps = tuple(
        Step(
            f"{name}_below_identity",
            sp.Le(sp.Abs(ACTIVATION_FORMS[name]), sp.Abs(_x)),
            f"|{name}(u)| <= |u| (sampled on u in [-20, 20]; outside, {name}(u)/u is a weight in [0, 1] by the same "
            "formula): an ungated MLP's down projection reads act(x M_in) of norm <= R ||M_in||",
            Inequality({_x: Interval(-20, 20)}),
            "extension",
        )
        for name in ("gelu", "gelu_tanh", "silu")
    )
    scaled = sp.Mul(
        attention_head(c_att / 2).subs({s_QK: B_tok**2 * s_QK / sp.sqrt(d_h), s_V: B_tok * s_V}, simultaneous=True),
        sp.Pow(B_tok, -1),
        evaluate=False,
    )
    return (
        Step(
            "rms_premise",
            sp.Ge(sp.Symbol("rms_x"), sp.Symbol("rho", nonnegative=True)),
            "pre-LN: every normalisation's input has rms >= rho (--rms-floor, default 0: the global max|g|/sqrt(eps)); "
            "arch.pre_ln.rms_premise, printed with the bound",
            Premise("modelling assumption of the pre-LN extension"),
            "extension",
        ),
        Step(
            "token_inputs",
            sp.Eq(B_tok, sp.Symbol("sqrt(N) max|g_1| + ||b_1||")),
            "QK_h and V_tilde_h read the pre-attention norm's outputs, of norm <= B (arch.token_radius.rms_radius), "
            "whatever the residual stream's norm: their cover's input norm is B, not --input-norm",
            Definition(),
            "extension",
        ),
        Step(
            "attention_constant",
            sp.Eq(scaled, s_V * (1 + c_att * B_tok**2 * s_QK / sp.sqrt(d_h)), evaluate=False),
            "the variant's attention factor on unit tokens, with QK' = B^2 QK / sqrt(d_h), Vt' = B Vt "
            "(arch.token_radius.rescale), divided by B: A_h = ||Vt_h|| (1 + c B^2 ||QK_h|| / sqrt(d_h))",
            Identity({B_tok: _POS, s_V: _POS, s_QK: _POS, c_att: Interval(1, 8), d_h: Interval(1, 256)}),
            "extension",
        ),
        Step(
            "score_error",
            sp.Le(sp.Abs(a1 * b1 + a2 * b2), sp.sqrt(a1**2 + a2**2) * sp.sqrt(b1**2 + b2**2)),
            "x (QK + delta) x'^T - x QK x'^T = (x delta) x'^T, of size <= ||x delta|| ||x'|| (Cauchy-Schwarz, two "
            "coordinates sampled): one token factor B in QK_h's cover, the other in gamma (QK_h: (c/2) B^2 ||Vt_h|| D "
            "/ sqrt(d_h), arch.token_radius.gamma_qk with the variant's c)",
            Inequality({a1: box, a2: box, b1: box, b2: box}),
            "extension",
        ),
        Step(
            "hadamard_norm",
            sp.Le(sp.sqrt(a1**2 * b1**2 + a2**2 * b2**2), sp.sqrt(a1**2 + a2**2) * sp.sqrt(b1**2 + b2**2)),
            "||a * b||_2 <= ||a||_inf ||b||_2 <= ||a||_2 ||b||_2 (two coordinates sampled; in general term by term): "
            "a gated MLP's down projection reads act(xG) * (xU), of norm <= (R ||G||)(R ||U||)",
            Inequality({a1: box, a2: box, b1: box, b2: box}),
            "extension",
        ),
        *act_steps,
        Step(
            "gated_gammas",
            sp.Le(L_act * R_in * s_U * s_D + R_in * s_G * s_D, (1 + L_act) * R_in * s_D * (s_G + s_U)),
            "gate L_act R ||U|| ||D||, up R ||G|| ||D||, down 1 (the MLP's output enters the residual sum as is): "
            "arch.gated_mlp.gamma_gate_up; three slots per layer",
            Inequality({L_act: Interval(1, 2), R_in: _POS, s_U: _POS, s_D: _POS, s_G: _POS}),
            "extension",
        ),
        Step(
            "gqa_slots",
            sp.Eq(sp.Symbol("K_layer"), 2 * sp.Symbol("H", positive=True) + sp.Symbol("n_MLP", positive=True)),
            "grouped-query attention: one QK_h = Wq_h^T Wk_g(h) and one V_tilde_h = Wv_g(h)^T Wo_h per query head "
            "(arch.gqa.per_head_products); covering shared factors once per head over-counts, so stays valid",
            Definition(),
            "extension",
        ),
        Step(
            "rope_cover",
            sp.Le(sp.Symbol("log N(QK_h family, eps)"), sp.Symbol("log N(b_i, eps)")),
            "RoPE: QK_h's slot is covered as one matrix with the family's uniform bounds b_i = sigma_i(Wq_h) "
            "sigma_i(Wk_g) (arch.rope.uniform_bounds); that this covers the score maps of every offset at once is "
            "assumed, not derived, and printed with the bound",
            Premise("modelling assumption: a joint cover over offsets is not derived (arch.rope)"),
            "extension",
        ),
        Step(
            "norm_shells",
            sp.Eq(sp.Symbol("Pi_norms"), sp.Symbol("sum_norms [ln(i_g(i_g+1)) + ln(i_R(i_R+1))]")),
            "max|g| and the radius of each pre-LN norm are data-dependent radii: rounded up to dyadic shells and "
            "priced by the union bound like the spectral radii (whole_bound.peeling_integers)",
            Definition(),
            "extension",
        ),
        Step(
            "read_out",
            sp.Eq(sp.Symbol("f"), sp.Symbol("u^T LN_f(z_L)")),
            "the scalar read-out is applied to the last block's output; a final norm, where the family has one, is "
            "taken as part of the read-out (not covered, not in rho_k)",
            Premise("modelling assumption of the family bound, printed with it"),
            "extension",
        ),
    )


@lru_cache(maxsize=1)
def derivation() -> Derivation:
    """Slots, input norms and Lipschitz factors of the whole bound for pre-LN, gated, grouped-query and RoPE layers."""
    return Derivation(
        "whole_bound.families",
        "The whole bound for GPT-2-, LLaMA- and ViT-shaped layers",
        _steps(),
        notes="'rms_premise', 'rope_cover' and 'read_out' are premises stated in the output.",
    )
