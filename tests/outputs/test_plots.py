"""Figures are looked at as a reader would: each has its colour bar where colour encodes layer or p_opt, labelled
axes (mathtext where a symbol is meant), a label on every line, and comes as PNG, PDF and SVG on request."""

from __future__ import annotations

import math

import matplotlib
import numpy as np
import pytest

from sabounds.cli import main
from sabounds.numerics.proxies.growth import fit_depth_growth
from sabounds.numerics.proxies.model_analysis import analyze_model
from sabounds.numerics.proxies.scaling import ScalingPoint, with_fits
from sabounds.render import plots
from tests.support.bert_files import config, random_weights, write_model


@pytest.fixture(scope="module")
def analysis(tmp_path_factory):
    d = tmp_path_factory.mktemp("model")
    write_model(d, random_weights(seed=3, layers=3), config(layers=3))
    return analyze_model(d)


def _colourbars(fig) -> list:
    return [ax for ax in fig.axes if ax.get_label() == "<colorbar>"]


def _assert_labelled(fig):
    for ax in fig.axes:
        if ax.get_label() == "<colorbar>":
            assert ax.get_ylabel() or ax.get_xlabel(), "colour bar without a label"
            continue
        assert ax.get_xlabel() and ax.get_ylabel() and ax.get_title(), ax


@pytest.mark.parametrize("make", [plots.singular_value_decay_figure, plots.contribution_figure, plots.p_opt_figure])
def test_analysis_figures_have_a_labelled_colour_bar(analysis, make):
    fig = make(analysis)
    bars = _colourbars(fig)
    assert len(bars) == 1 and "$" in bars[0].get_ylabel()
    _assert_labelled(fig)
    matplotlib.pyplot.close(fig)


def test_p_opt_heat_map_is_layer_by_head(analysis):
    grids = plots.p_opt_grid(analysis)
    shape = analysis.shape
    assert grids["QK"].shape == grids["V_tilde"].shape == (shape.layers, shape.heads)
    assert grids["feed-forward"].shape == (shape.layers, 2)
    for m in analysis.matrices:
        if m.type == "QK":
            assert grids["QK"][m.layer, m.head] == m.p_opt
    assert not any(np.isnan(g).any() for g in grids.values())
    fig = plots.p_opt_figure(analysis)
    images = [im for ax in fig.axes for im in ax.get_images()]
    assert len(images) == 3 and all(im.get_clim() == (0, 2) for im in images)
    matplotlib.pyplot.close(fig)


def _points(models=("ckptA", "ckptB"), depths=(1, 2, 3, 4), hidden=(64,)):
    return [
        ScalingPoint(m, L, n, n // 16, ours=10.0 * L * (i + 1), edelman=50.0 * 7.0**L)
        for i, m in enumerate(models)
        for n in hidden
        for L in depths
    ]


def test_scaling_figure_labels_every_line_per_checkpoint():
    fig = plots.scaling_figure_object(with_fits(_points()))
    lines = [line for ax in fig.axes for line in ax.get_lines()]
    assert len(lines) == 4  # 2 proxies x 2 checkpoints
    labels = [line.get_label() for line in lines]
    assert all(label and not label.startswith("_") for label in labels)
    assert len(set(labels)) == 4 and all(("ckptA" in lab) != ("ckptB" in lab) for lab in labels)
    assert any("per layer" in lab for lab in labels if "edelman" in lab)
    _assert_labelled(fig)
    matplotlib.pyplot.close(fig)


def test_scaling_figure_against_width_labels_each_depth():
    fig = plots.scaling_figure_object(with_fits(_points(models=("ckptA",), depths=(1, 2), hidden=(32, 64, 128))))
    assert len(fig.axes) == 2
    width_lines = fig.axes[1].get_lines()
    assert width_lines and all(not line.get_label().startswith("_") for line in width_lines)
    matplotlib.pyplot.close(fig)


def test_growth_factor_recovers_an_exponential_and_a_power():
    depths = [1, 2, 3, 4, 5, 6]
    exp_fit = fit_depth_growth("edelman", "m", depths, [3.0 * 40.0**L for L in depths])
    assert exp_fit.kind == "exponential" and exp_fit.factor == pytest.approx(40.0, rel=1e-12)
    power_fit = fit_depth_growth("ours", "m", depths, [5.0 * L**1.5 for L in depths])
    assert power_fit.kind == "power" and power_fit.power == pytest.approx(1.5, rel=1e-12)
    assert "per layer" in exp_fit.describe() and "L^1.50" in power_fit.describe()
    assert fit_depth_growth("ours", "m", [1, 2], [1.0, 2.0]).kind == "undetermined"
    with pytest.raises(ValueError):
        fit_depth_growth("ours", "m", [1, 2], [1.0, math.inf])


def test_one_growth_law_per_quantity_across_checkpoints():
    """A 3-layer and a 6-layer checkpoint: edelman is described by its factor per layer for both (once, a 3-point
    residual made one 'L^13.95'), ours by one law for both; 3 depths say the fit is weakly determined."""
    from sabounds.numerics.proxies.growth import depth_growths
    from sabounds.numerics.proxies.scaling import ScalingPoint

    # on 3 points the power law fits this exponential-with-a-bend better; on 6 the exponential does
    short = [ScalingPoint("three", L, 384, 12, ours=10.0 * L, edelman=v) for L, v in ((1, 1e6), (2, 3e10), (3, 1.2e13))]
    long = [ScalingPoint("six", L, 384, 12, ours=12.0 * L**1.01, edelman=2e6 * 3e4 ** (L - 1)) for L in range(1, 7)]
    alone = fit_depth_growth("edelman", "three", [1, 2, 3], [1e6, 3e10, 1.2e13])
    assert alone.rss_power < alone.rss_exponential  # the trap: picked per checkpoint, edelman would be a power
    edelman = {g.model: g for g in depth_growths(short + long, "edelman")}
    assert {g.kind for g in edelman.values()} == {"exponential"}
    assert all("per layer" in g.describe() for g in edelman.values())
    ours = depth_growths(short + long, "ours")
    assert len({g.kind for g in ours}) == 1
    assert "weakly determined" in edelman["three"].describe() and "weakly" not in edelman["six"].describe()


def test_scaling_help_speaks_of_growth_laws_not_only_log_log_slopes():
    from sabounds.cli import build_parser

    text = " ".join(
        build_parser(["scaling"], every_command=False)
        ._subparsers._group_actions[0]
        .choices["scaling"]
        .format_help()
        .split()
    )
    assert "least-squares log-log slopes in L and N" not in text and "per layer" in text


def test_every_figure_in_every_format(tmp_path, capsys):
    model = tmp_path / "model"
    write_model(model, random_weights(seed=1, layers=2), config(layers=2))
    out = tmp_path / "out"
    assert (
        main(["analyze", str(model), "--out", str(out), "--plots", "--figure-format", "png,pdf,svg", "--dpi", "72"])
        == 0
    )
    for stem in ("singular_value_decay", "contribution_vs_p", "p_opt_per_layer"):
        assert (out / f"{stem}.pdf").read_bytes().startswith(b"%PDF")
        assert b"<svg" in (out / f"{stem}.svg").read_bytes()[:2000]
        assert (out / f"{stem}.png").read_bytes().startswith(b"\x89PNG")
    scaling_out = tmp_path / "scaling"
    assert (
        main(["scaling", str(model), "--depths", "1,2", "--out", str(scaling_out), "--figure-format", "svg,pdf"]) == 0
    )
    assert {p.name for p in scaling_out.iterdir()} >= {"scaling.svg", "scaling.pdf", "growth.csv"}


@pytest.mark.parametrize(
    "args", [["--figure-format", "jpg"], ["--figure-format", ","], ["--dpi", "0"], ["--dpi", "5000"]]
)
def test_bad_figure_options_are_one_line_errors(args, tmp_path, capsys):
    model = tmp_path / "model"
    write_model(model, random_weights(seed=1, layers=2), config(layers=2))
    try:
        rc = main(["analyze", str(model), "--out", str(tmp_path / "o"), "--plots", *args])
    except SystemExit as exc:
        rc = exc.code
    assert rc == 2 and capsys.readouterr().err.count("\n") == 1 and not (tmp_path / "o").exists()


def test_the_inspection_catches_a_figure_without_colour_bar_or_labels():
    """The checks above fail on a mutant: an unlabelled line plot coloured by layer with no colour bar."""
    fig, ax = matplotlib.pyplot.subplots()
    ax.plot([1, 2], [3, 4], color=matplotlib.pyplot.cm.viridis(0.5))
    assert _colourbars(fig) == []
    assert ax.get_lines()[0].get_label().startswith("_")
    with pytest.raises(AssertionError):
        _assert_labelled(fig)
    matplotlib.pyplot.close(fig)


def _png_size(path) -> tuple[int, int]:
    import struct

    data = path.read_bytes()[:24]
    return struct.unpack(">II", data[16:24])


@pytest.mark.parametrize("command", ["bound", "sweep"])
def test_bound_and_sweep_figures_follow_figure_format_and_dpi(command, tmp_path, capsys, monkeypatch):
    """--figure-format and --dpi reach the bound and sweep figures (once fixed at three formats and 110 dpi): only
    the asked formats, the PNG's pixel size is the figure's inches times --dpi, and the axis labels are mathtext."""
    from matplotlib.figure import Figure

    labels, original = [], Figure.savefig

    def recording(fig, *args, **kwargs):
        labels.extend(text for ax in fig.axes for text in (ax.get_xlabel(), ax.get_ylabel()) if text)
        return original(fig, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", recording)
    model = tmp_path / "model"
    write_model(model, random_weights(seed=1, layers=2), config(layers=2))
    out = tmp_path / "out"
    extra = (
        ["--n", "1e9", "--delta", "0.05", "--margin", "1"] if command == "bound" else ["--workers", "0", "--no-cache"]
    )
    assert main([command, str(model), *extra, "--out", str(out), "--figure-format", "png,svg", "--dpi", "40"]) == 0
    stem = "bound_vs_n" if command == "bound" else "sweep_scaling"
    assert (out / f"{stem}.svg").is_file() and not (out / f"{stem}.pdf").exists()
    inches = (7, 4.8) if command == "bound" else (11, 4.2)
    assert _png_size(out / f"{stem}.png") == (round(inches[0] * 40), round(inches[1] * 40))
    assert labels and any("$" in text for text in labels), labels


def test_a_gated_mlp_has_its_gate_in_every_analysis_figure(tmp_path, capsys):
    """LLaMA's gated MLP (``M_gate`` besides ``M_in``, ``M_out``): a panel of its own in the per-type figures and a
    column of the p_opt map; ``analyze --plots`` wrote none of them (KeyError: 'M_gate')."""
    from tests.support.family_files import write_family

    write_family(tmp_path / "llama", "llama")
    gated = analyze_model(tmp_path / "llama")
    assert "M_gate" in gated.types()
    for make in (plots.singular_value_decay_figure, plots.contribution_figure):
        fig = make(gated)
        titles = [ax.get_title() for ax in fig.axes if ax.get_label() != "<colorbar>"]
        assert len(titles) == 5 and plots.TYPE_LABELS["M_gate"] in titles
        _assert_labelled(fig)
        matplotlib.pyplot.close(fig)
    grid = plots.p_opt_grid(gated)["feed-forward"]
    assert grid.shape == (gated.shape.layers, 3) and not np.isnan(grid).any()
    assert main(["analyze", str(tmp_path / "llama"), "--out", str(tmp_path / "out"), "--plots"]) == 0
    assert {p.name for p in (tmp_path / "out").glob("*.png")} == {
        "singular_value_decay.png",
        "contribution_vs_p.png",
        "p_opt_per_layer.png",
    }
