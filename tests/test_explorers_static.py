"""Tests of the static explorers (kpca_lib.explorers.StaticExplorer), the
sliders of the HTML book: frames, their order, and byte-stable HTML."""

import base64
import io
import json
import re

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest
from PIL import Image

from kpca_lib.explorers import (
    Slider,
    StaticExplorer,
    gram_spectrum,
    gram_spectrum_explorer,
)


def draw_line(ax, slope, offset):
    ax.plot([0, 1], [offset, offset + slope])
    ax.set(xlim=(0, 1), ylim=(-3, 3))
    return f"slope {slope}, offset {offset}"


def line_explorer(**kwargs):
    sliders = [Slider("slope", [-1, 0, 1, 2], initial=1), Slider("offset", [0, 1, 2])]
    options = dict(name="line", figsize=(2, 1.5), dpi=30, pixel_ratio=1)
    options.update(kwargs)
    return StaticExplorer(draw_line, sliders, **options).render()


def payload(html):
    """The data the page's script reads (the JSON literal after 'var data =')."""
    return json.loads(re.search(r"var data = (\{.*?\});", html).group(1).replace("<\\/", "</"))


def test_one_frame_per_setting_in_row_major_order():
    explorer = line_explorer()
    assert explorer.n_settings == 12
    # the last slider moves fastest, as in itertools.product
    assert explorer.captions_[:4] == [
        "slope -1, offset 0", "slope -1, offset 1", "slope -1, offset 2", "slope 0, offset 0"]
    assert len(explorer.frames_) == 12 and len(set(explorer.frames_)) == 12
    assert explorer.frame_of_setting_.tolist() == list(range(12))


def test_identical_pictures_are_stored_once():
    def draw(ax, slope, ignored):
        ax.plot([0, 1], [0, slope])

    sliders = [Slider("slope", [1, 2]), Slider("ignored", ["a", "b", "c"])]
    explorer = StaticExplorer(draw, sliders, name="dedup", figsize=(2, 1), dpi=20).render()
    assert len(explorer.frames_) == 2
    assert explorer.frame_of_setting_.tolist() == [0, 0, 0, 1, 1, 1]
    assert explorer.captions_ == [""] * 6


def test_frames_are_palette_pngs_of_the_figure_size_without_text_chunks():
    explorer = line_explorer(colors=16)
    for png in explorer.frames_:
        image = Image.open(io.BytesIO(png))
        assert image.format == "PNG" and image.mode == "P"
        assert image.size == (60, 45)  # figsize x dpi
        assert len(image.getcolors()) <= 16
        # no date or software tag: the bytes depend on the picture only
        assert b"tEXt" not in png and b"tIME" not in png and b"iTXt" not in png


def test_html_is_byte_identical_across_runs_and_ids_depend_on_name():
    first, second = line_explorer().html_, line_explorer().html_
    assert first == second
    ids = set(re.findall(r'id="(kpca-explorer-[^"]+)"', first))
    assert any(re.fullmatch(r"kpca-explorer-line-[0-9a-f]{10}", i) for i in ids)
    other = line_explorer(name="other line").html_
    assert re.search(r'id="kpca-explorer-other-line-[0-9a-f]{10}"', other)
    assert not ids & set(re.findall(r'id="(kpca-explorer-[^"]+)"', other))


def test_html_is_self_contained_with_one_range_input_per_slider():
    explorer = line_explorer()
    html = explorer._repr_html_()
    assert "http" not in html and "src=\"//" not in html
    inputs = re.findall(r'<input type="range"[^>]*>', html)
    assert len(inputs) == 2
    assert 'max="3"' in inputs[0] and 'value="2"' in inputs[0]  # initial slope 1
    assert 'max="2"' in inputs[1] and 'value="0"' in inputs[1]
    # the picture shown before any script runs is the initial setting's
    initial_setting = 2 * 3 + 0
    initial_png = explorer.frames_[explorer.frame_of_setting_[initial_setting]]
    assert f'src="data:image/png;base64,{base64.b64encode(initial_png).decode()}"' in html
    assert "slope 1, offset 0</div>" in html


def test_script_data_maps_every_setting_to_its_frame():
    explorer = line_explorer()
    data = payload(explorer.html_)
    assert data["sizes"] == [4, 3]
    assert data["labels"] == [["-1", "0", "1", "2"], ["0", "1", "2"]]
    assert data["captions"] == explorer.captions_
    for setting, frame in enumerate(data["frame"]):
        assert base64.b64decode(data["frames"][frame]) == explorer.frames_[
            explorer.frame_of_setting_[setting]]


def test_caption_text_is_escaped_in_html_and_in_script():
    def draw(ax, x):
        return "</script><b>&"

    html = StaticExplorer(draw, [Slider("x", [1])], name="esc", figsize=(1, 1), dpi=20).render().html_
    assert html.count("</script>") == 1  # only the closing tag of the script itself
    assert "&lt;/script&gt;&lt;b&gt;&amp;" in html


def test_slider_values_are_formatted_for_the_page():
    slider = Slider("c", [0.001, 0.0316, 10.0], initial=10.0, format="{:.3g}")
    assert slider.value_labels == ["0.001", "0.0316", "10"]
    assert slider.initial_index == 2
    assert Slider("q", range(1, 4)).values == (1, 2, 3)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(name="x", values=[1], initial=2), ValueError, "initial"),
        (dict(name="x", values=[]), ValueError, "values"),
        (dict(name="not a name", values=[1]), ValueError, "name"),
    ],
)
def test_invalid_slider_raises(kwargs, error, match):
    with pytest.raises(error, match=match):
        Slider(**kwargs)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(draw=None), TypeError, "draw"),
        (dict(sliders=[("x", [1])]), TypeError, "sliders"),
        (dict(sliders=[Slider("x", [1]), Slider("x", [2])]), ValueError, "distinct"),
        (dict(name=""), ValueError, "name"),
        (dict(colors=300), ValueError, "colors"),
        (dict(dpi=2), ValueError, "dpi"),
        (dict(subplots=(1,)), ValueError, "subplots"),
        (dict(sliders=[Slider("x", range(30)), Slider("y", range(30))]), ValueError, "max_frames"),
    ],
)
def test_invalid_explorer_raises_before_drawing(kwargs, error, match):
    options = dict(draw=lambda ax, x: None, sliders=[Slider("x", [1])], name="bad")
    options.update(kwargs)
    with pytest.raises(error, match=match):
        StaticExplorer(**options).render()


def test_gram_spectrum_explorer_reports_the_spectrum_of_each_width():
    X = np.random.default_rng(0).normal(size=(12, 2))
    explorer = gram_spectrum_explorer(X, c_values=[0.01, 1.0, 100.0], c=1.0, dpi=20).static()
    median = np.median([np.sum((X[i] - X[j]) ** 2) for i in range(12) for j in range(i + 1, 12)])
    for c, caption in zip([0.01, 1.0, 100.0], explorer.captions_):
        _, eigenvalues = gram_spectrum(X, c)
        assert caption == (
            f"c = {c:.3g} = {float(f'{c / median:.2g}'):g} x median squared distance: largest "
            f"eigenvalue {eigenvalues[0]:.3f}, eigenvalues above 0.01: "
            f"{int(np.sum(eigenvalues > 0.01))} of 12"
        )
    assert len(explorer.frames_) == 3
    assert 'value="1"' in explorer.html_


def test_gram_spectrum_explorer_default_widths_span_five_decades():
    X = np.zeros((2, 1))
    explorer = gram_spectrum_explorer(X, dpi=10)
    values = explorer.sliders[0].values
    assert len(values) == 21 and values[0] == 0.001 and values[-1] == 100.0 and 0.1 in values
