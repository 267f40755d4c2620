"""Hypothesis strategies for the package's property tests, shipped so users can reuse them.

Spectra with a known ground truth (exact rank, exact tail mass, power-law exponent) and matrices with those
spectra (Haar singular vectors via ``sabounds.numerics.testbeds.random_matrices.with_spectrum``), and random BERT-like stacks
(``sabounds.numerics.testbeds.random_stacks``).  Hypothesis draws the parameters and a seed; the seed drives numpy for the
rest, so a failing example shrinks to small sizes and simple parameters.  Imported by tests and users only,
never by the command line (hypothesis is a test dependency).
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st

from sabounds.numerics.testbeds.random_matrices import spectrum, with_spectrum
from sabounds.numerics.testbeds.random_stacks import Stack, bert_like_stack

SEEDS = st.integers(0, 2**32 - 1)


@dataclass(frozen=True)
class Spectrum:
    """Singular values ``sigma`` (descending) of a known ``kind``, with the ground truth the kind promises."""

    kind: str
    sigma: np.ndarray
    rank: int
    tail_mass: float = 0.0
    beta: float | None = None
    head: int | None = None
    """For ``low_rank_tail``: the size k of the head; ``sigma[k:]`` is the tail."""

    @property
    def d(self) -> int:
        return int(self.sigma.size)


@dataclass(frozen=True)
class MatrixCase:
    """A ``d_in x d_out`` matrix ``w`` whose singular values are ``spectrum.sigma`` exactly (up to rounding)."""

    w: np.ndarray
    spectrum: Spectrum


@st.composite
def low_rank_spectra(draw, d=st.integers(2, 24), rank=None, scale=st.floats(0.1, 10.0)) -> Spectrum:
    """Exactly rank-k spectra (k <= d), nonzero values in ``scale * [0.5, 2]``, exact zeros after them."""
    dim = draw(d)
    k = draw(rank if rank is not None else st.integers(1, dim))
    k = min(k, dim)
    sigma = spectrum("low_rank", np.random.default_rng(draw(SEEDS)), dim, rank=k, scale=draw(scale))
    return Spectrum("low_rank", sigma, k)


@st.composite
def low_rank_tail_spectra(draw, d=st.integers(3, 24), tail_mass=st.floats(1e-8, 1.0)) -> Spectrum:
    """Rank-k head in ``[1, 2]`` plus a full tail of Frobenius mass ``sum_{i > k} sigma_i^2 = tail_mass`` exactly.

    ``tail_mass`` must stay in (0, 1] so that every tail value lies below the head (then nothing is clipped).
    """
    dim = draw(d)
    k = draw(st.integers(1, dim - 1))
    tau = draw(tail_mass)
    if not 0 < tau <= 1:
        raise ValueError(f"tail_mass must lie in (0, 1], got {tau}")
    sigma = spectrum("low_rank_tail", np.random.default_rng(draw(SEEDS)), dim, rank=k, tail_mass=tau)
    return Spectrum("low_rank_tail", sigma, dim, tail_mass=tau, head=k)


@st.composite
def power_law_spectra(draw, d=st.integers(2, 24), beta=st.floats(0.1, 3.0), scale=st.floats(0.1, 10.0)) -> Spectrum:
    """``sigma_i = scale * i^{-beta}``, full rank."""
    dim, b = draw(d), draw(beta)
    sigma = spectrum("power_law", np.random.default_rng(0), dim, beta=b, scale=draw(scale))
    return Spectrum("power_law", sigma, dim, beta=b)


@st.composite
def flat_spectra(draw, d=st.integers(2, 24), scale=st.floats(0.01, 100.0)) -> Spectrum:
    """All ``d`` singular values equal to ``scale``."""
    dim = draw(d)
    return Spectrum("flat", spectrum("flat", np.random.default_rng(0), dim, scale=draw(scale)), dim)


def any_spectra() -> st.SearchStrategy[Spectrum]:
    """One of the four kinds."""
    return st.one_of(low_rank_spectra(), low_rank_tail_spectra(), power_law_spectra(), flat_spectra())


@st.composite
def matrices(draw, spectra=None, extra=st.integers(0, 8)) -> MatrixCase:
    """A matrix with a spectrum from ``spectra``: ``d x (d + extra)`` or its transpose, Haar singular vectors."""
    spec = draw(spectra if spectra is not None else any_spectra())
    more = draw(extra)
    d_in, d_out = (spec.d, spec.d + more) if draw(st.booleans()) else (spec.d + more, spec.d)
    return MatrixCase(with_spectrum(np.random.default_rng(draw(SEEDS)), spec.sigma, d_in, d_out), spec)


@st.composite
def bert_like_stacks(
    draw,
    L=st.integers(1, 64),
    N=st.sampled_from([8, 16, 32]),
    H=st.sampled_from([1, 2]),
    lipschitz=st.just(1.0),
    shared_spectra=st.booleans(),
) -> Stack:
    """A random BERT-like stack (``sabounds.numerics.testbeds.random_stacks``) of depth L, width N, H heads, layer factor ``lipschitz``."""
    width, heads = draw(N), draw(H)
    if width % heads:
        heads = 1
    return bert_like_stack(
        np.random.default_rng(draw(SEEDS)), draw(L), width, heads, draw(lipschitz), draw(shared_spectra)
    )


@contextmanager
def _pinned_constant_pool():
    """Hypothesis (>= 6.131) sometimes draws a "local constant" taken from the source of every *local* module imported
    so far (``hypothesis.internal.conjecture.providers._get_local_constants``).  That pool grows as a test session
    imports more of the package, so a derandomized search draws different examples depending on which tests ran
    before it.  Inside this context the local pool is pinned empty (the library's fixed global constants remain) and
    the per-constraint constant cache is cleared on entry and exit, so the draws depend on the seed alone.
    Hypothesis versions without a local pool are left as they are."""
    try:
        from hypothesis.internal.conjecture import providers

        empty, cache = providers.Constants(), providers.CONSTANTS_CACHE
        original = providers._get_local_constants
    except (ImportError, AttributeError):  # pragma: no cover - older hypothesis: nothing session-dependent to pin
        yield
        return
    cache.cache.clear()
    providers._get_local_constants = lambda: empty
    try:
        yield
    finally:
        providers._get_local_constants = original
        cache.cache.clear()


def finds_counterexample(check, strategy: st.SearchStrategy, max_examples: int = 200, examples=()) -> bool:
    """Whether hypothesis finds an example of ``strategy`` on which ``check(example)`` raises ``AssertionError``.

    For mutation tests: a property's check run against a deliberately wrong formula must fail somewhere.
    ``examples`` are structured witnesses tried first (hypothesis's explicit phase), then ``max_examples``
    generated ones: derandomized, no example database, no shrinking, no deadline.  The search is bounded by
    counts only, and its answer depends on the seed alone, not on what ran earlier in the process
    (see ``_pinned_constant_pool``).
    """
    from hypothesis import Phase, example, given, settings

    @settings(
        max_examples=max_examples,
        derandomize=True,
        database=None,
        deadline=None,
        phases=(Phase.explicit, Phase.generate),
    )
    @given(strategy)
    def run(value):
        check(value)

    for witness in reversed(examples):  # decorators apply bottom-up: the first witness runs first
        run = example(witness)(run)

    try:
        with _pinned_constant_pool():
            run()
    except AssertionError:
        return True
    except BaseExceptionGroup as group:  # several distinct failures: all must be assertion failures
        return group.split(AssertionError)[1] is None
    return False
