"""The HTML of the labs that compute in the browser (kpca_lib.explorers.browser and .labs).

The numbers the page computes are checked in Chromium (test_labs_in_browser.py);
here: the page is sent exactly the library's data, the HTML is a pure function of
the arguments, and bad arguments are refused with a message naming them.
"""

import json
import os
import subprocess
import sys
from html.parser import HTMLParser

import numpy as np
import pytest

from kpca_lib.datasets import denoising_toy
from kpca_lib.explorers import BrowserExplorer, denoising_lab, gram_spectrum_lab, pca_lab


class Structure(HTMLParser):
    """Tags, attributes and the JSON script's text of a lab's HTML."""

    def __init__(self):
        super().__init__()
        self.tags, self.json_text, self._in_json = [], [], False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append((tag, attrs))
        self._in_json = tag == "script" and attrs.get("type") == "application/json"

    def handle_endtag(self, tag):
        self._in_json = False

    def handle_data(self, data):
        if self._in_json:
            self.json_text.append(data)


def parse(html):
    structure = Structure()
    structure.feed(html)
    return structure


@pytest.mark.parametrize("random_state", [0, 3])
def test_denoising_payload_rebuilds_denoising_toy_bit_for_bit(random_state):
    lab = denoising_lab(random_state=random_state)
    payload = json.loads("".join(parse(lab.html).json_text))  # as the page reads it
    d = payload["n_features"]
    centres = np.array(payload["centres"]).reshape(-1, d)
    noise_train = np.array(payload["noise_train"]).reshape(-1, d)
    noise_test = np.array(payload["noise_test"]).reshape(-1, d)
    y_train = np.repeat(np.arange(len(centres)), payload["n_train_per_cluster"])
    y_test = np.repeat(np.arange(len(centres)), payload["n_test_per_cluster"])
    for sigma in payload["sigmas"]:
        # what the page's script does: centre plus sigma times the unit noise
        toy = denoising_toy(sigma=sigma, random_state=random_state)
        assert np.array_equal(centres[y_train] + sigma * noise_train, toy.X_train)
        assert np.array_equal(centres[y_test] + sigma * noise_test, toy.X_test)
        assert np.array_equal(centres, toy.centres)
    assert payload["random_state"] == random_state


def test_lab_html_structure_and_no_external_resource():
    X = np.array([[0.0, 0.0], [1.0, 0.5], [0.25, 2.0]])
    for lab, kind in [(denoising_lab(), "denoising"), (gram_spectrum_lab(X), "gram-spectrum"),
                      (pca_lab(X), "pca")]:
        structure = parse(lab._repr_html_())
        tag, attrs = structure.tags[0]
        assert tag == "div" and attrs["data-kind"] == kind
        assert "kpca-lab" in attrs["class"].split() and "mathjax_ignore" in attrs["class"].split()
        assert any(a.get("class") == "kpca-lab-fallback" for t, a in structure.tags if t == "p")
        assert [t for t, a in structure.tags if t == "script"] == ["script"]
        assert json.loads("".join(structure.json_text)) == lab.payload
        assert "http" not in lab.html and "src=" not in lab.html
    assert gram_spectrum_lab(X).payload["X"] == X.ravel().tolist()
    assert pca_lab(X, angle=12.5).payload == {"X": X.ravel().tolist(), "settings": {"angle": 12.5}}


def test_html_is_the_same_in_every_run():
    code = (
        "from kpca_lib.explorers import denoising_lab, gram_spectrum_lab; import hashlib;"
        "print(hashlib.sha256((denoising_lab().html + gram_spectrum_lab([[0.0, 1.0], [2.0, 3.0]]).html)"
        ".encode()).hexdigest())"
    )
    digests = {
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("1", "2")
    }
    assert len(digests) == 1
    assert denoising_lab().html == denoising_lab().html
    # a different setting is a different lab, with its own element id
    assert denoising_lab(n_components=4).html != denoising_lab().html


def test_no_string_can_end_the_script_block():
    lab = BrowserExplorer("pca", {"note": "</script><script>alert(1)</script>"}, title="<b>t</b>")
    assert lab.html.count("</script>") == 1 and "<b>" not in lab.html
    assert lab.payload["note"] == "</script><script>alert(1)</script>"


def test_width_rule_and_chapter_setting():
    lab = denoising_lab(sigma=0.2, c=0.16, width_rule=True)
    assert lab.payload["settings"] == {
        "sigma": 0.2, "c": 0.16, "n_components": 10, "n_iter": 30, "width_rule": True,
    }
    assert denoising_lab(n_iter=0).payload["settings"]["n_iter"] == 0


@pytest.mark.parametrize(
    "call, error, name",
    [
        (lambda: denoising_lab(sigma=0.3), ValueError, "sigma"),
        (lambda: denoising_lab(sigma="0.1"), TypeError, "sigma"),
        (lambda: denoising_lab(c=0.0), ValueError, "c"),
        (lambda: denoising_lab(c=20.0), ValueError, "c"),
        (lambda: denoising_lab(c=float("nan")), ValueError, "c"),
        (lambda: denoising_lab(n_components=13), ValueError, "n_components"),
        (lambda: denoising_lab(n_components=0), ValueError, "n_components"),
        (lambda: denoising_lab(n_components=2.0), TypeError, "n_components"),
        (lambda: denoising_lab(n_iter=51), ValueError, "n_iter"),
        (lambda: denoising_lab(n_iter=-1), ValueError, "n_iter"),
        (lambda: denoising_lab(width_rule=1), TypeError, "width_rule"),
        (lambda: denoising_lab(c=0.05, width_rule=True), ValueError, "c"),
        (lambda: denoising_lab(sigmas=()), TypeError, "sigmas"),
        (lambda: denoising_lab(sigmas=(0.2, 0.1)), ValueError, "sigmas"),
        (lambda: denoising_lab(c_range=(1.0, 0.5)), ValueError, "c_range"),
        (lambda: denoising_lab(c_range=1.0), TypeError, "c_range"),
        (lambda: denoising_lab(trajectory_points=(0, 0)), ValueError, "trajectory_points"),
        (lambda: denoising_lab(trajectory_points=(363,)), ValueError, "trajectory_points"),
        (lambda: denoising_lab(trajectory_points=range(8)), ValueError, "trajectory_points"),
        (lambda: denoising_lab(random_state=np.random.RandomState(0)), TypeError, "random_state"),
        (lambda: gram_spectrum_lab([[0.0, 1.0]]), ValueError, "X"),
        (lambda: gram_spectrum_lab(np.zeros((301, 2))), ValueError, "X"),
        (lambda: gram_spectrum_lab([[0.0, np.inf], [1.0, 2.0]]), ValueError, "X"),
        (lambda: gram_spectrum_lab([[0.0, 1.0], [1.0, 2.0]], c=1e3), ValueError, "c"),
        (lambda: pca_lab(np.zeros((5, 3))), ValueError, "X"),
        (lambda: pca_lab(np.zeros((5, 2)), angle=180), ValueError, "angle"),
        (lambda: pca_lab(np.zeros((5, 2)), angle=None), TypeError, "angle"),
        (lambda: BrowserExplorer("Bad Kind", {}, title="t"), ValueError, "kind"),
        (lambda: BrowserExplorer("pca", [], title="t"), TypeError, "payload"),
        (lambda: BrowserExplorer("pca", {"x": [1.0, float("nan")]}, title="t"), ValueError, "payload['x'][1]"),
        (lambda: BrowserExplorer("pca", {"x": object()}, title="t"), TypeError, "payload['x']"),
        (lambda: BrowserExplorer("pca", {1: 2}, title="t"), TypeError, "payload"),
        (lambda: BrowserExplorer("pca", {}, title=" "), ValueError, "title"),
    ],
)
def test_bad_arguments_name_themselves(call, error, name):
    with pytest.raises(error, match=name.replace("[", r"\[").replace("]", r"\]")):
        call()
