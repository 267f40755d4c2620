"""The shipped strategies deliver what they promise: spectra, exact ranks, tail masses, BERT-like stacks."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sabounds.numerics.proxies.published_factors import LayerNorms, layer_lipschitz
from sabounds.numerics.spectra import numerical_rank, singular_values
from sabounds.numerics.testbeds.strategies import any_spectra, bert_like_stacks, matrices, power_law_spectra


@given(matrices(any_spectra()))
def test_matrix_has_the_drawn_singular_values_and_rank(case):
    sigma = singular_values(case.w)
    expected = case.spectrum.sigma
    assert sigma.size == expected.size
    assert np.allclose(sigma, expected, rtol=0, atol=1e-12 * max(1.0, expected[0]))
    assert numerical_rank(sigma) == case.spectrum.rank


@given(power_law_spectra())
def test_power_law_spectrum_decays_like_i_to_the_minus_beta(spec):
    i = np.arange(1, spec.d + 1)
    assert np.allclose(spec.sigma / spec.sigma[0], i ** (-spec.beta), rtol=1e-12)


@settings(max_examples=max(3, settings.default.max_examples // 6))
@given(bert_like_stacks(L=st.integers(1, 6), lipschitz=st.sampled_from([1.0, 2.5])))
def test_bert_like_stack_has_low_rank_attention_full_rank_feed_forward_and_layer_factor_C(stack):
    d_h = stack.N // stack.H
    factors = set()
    for layer in stack.layers:
        assert len(layer.qk) == len(layer.vt) == stack.H
        assert all(numerical_rank(singular_values(m)) == d_h for m in layer.qk + layer.vt)
        assert layer.m_in.shape == (stack.N, 4 * stack.N) and layer.m_out.shape == (4 * stack.N, stack.N)
        assert numerical_rank(singular_values(layer.m_in)) == stack.N == numerical_rank(singular_values(layer.m_out))
        factors.add(round(layer.lipschitz(), 9))
    assert len(factors) == 1 and factors.pop() in (1.0, 2.5)


def test_layer_lipschitz_formula():
    norms = LayerNorms(
        qk_spectral=np.array([0.5, 1.0]),
        vt_spectral=np.array([1.0, 2.0]),
        m_in_spectral=2.0,
        m_out_spectral=3.0,
        qk_21=np.zeros(2),
        vt_21=np.zeros(2),
        m_in_21=0.0,
        m_out_21=0.0,
    )
    assert layer_lipschitz(norms) == 1.13 * 6 * (1 * 3 + 2 * 5)
