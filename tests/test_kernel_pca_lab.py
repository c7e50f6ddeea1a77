"""kernel_pca_lab (chapter 4's lab computed in the browser): its arguments, its payload, its HTML."""

import json

import numpy as np
import pytest
from sklearn.datasets import make_moons
from sklearn.model_selection import train_test_split

from kpca_lib.datasets import concentric_rings
from kpca_lib.explorers import BrowserExplorer, kernel_pca_lab, kernel_pca_lab_data
from kpca_lib.explorers.labs_kernel_pca import DATASETS


def test_the_data_are_chapter_4s_rings_and_moons_split_in_half():
    data = kernel_pca_lab_data()
    # drawn and split as the chapter does (cells of chapters/04_kernel_pca.ipynb)
    X_all, y_all = concentric_rings(n_samples_per_ring=200, noise=0.1, random_state=0)
    X_rings, _, y_rings, y_rings_test = train_test_split(X_all, y_all, test_size=0.5, stratify=y_all, random_state=0)
    assert np.array_equal(data["three rings"].X_train, X_rings)
    assert np.array_equal(data["three rings"].y_test, y_rings_test)
    X_all, y_all = make_moons(n_samples=400, noise=0.05, random_state=0)
    X_moons, X_moons_test, _, _ = train_test_split(X_all, y_all, test_size=0.5, stratify=y_all, random_state=0)
    assert np.array_equal(data["two moons"].X_test, X_moons_test)
    two = data["two rings"]
    radius = np.linalg.norm(np.vstack([two.X_train, two.X_test]), axis=1)
    labels = np.concatenate([two.y_train, two.y_test])
    assert set(labels) == {0, 1} and np.all(np.abs(radius - (1 + labels)) < 0.5)
    for name in DATASETS:  # stratified halves: every class in both
        assert np.array_equal(np.bincount(data[name].y_train), np.bincount(data[name].y_test))


def test_the_payload_holds_the_data_exactly_and_the_setting():
    lab = kernel_pca_lab(dataset="two moons", kernel="polynomial", c=0.5, degree=3, n_components=4, component=2,
                         pair=(2, 4), random_state=1)
    assert isinstance(lab, BrowserExplorer) and lab.kind == "kernel-pca"
    payload = lab.payload
    assert payload["settings"] == {"dataset": "two moons", "kernel": "polynomial", "c": 0.5, "degree": 3,
                                   "n_components": 4, "component": 2, "pair": [2, 4]}
    data = kernel_pca_lab_data(1)
    assert [d["name"] for d in payload["datasets"]] == list(DATASETS)
    for sent in payload["datasets"]:
        # JSON floats read back as the same doubles: the page computes on the library's numbers
        assert np.array_equal(np.reshape(sent["X"], (-1, 2)), data[sent["name"]].X_train)
        assert np.array_equal(np.reshape(sent["X_test"], (-1, 2)), data[sent["name"]].X_test)
        assert sent["y"] == data[sent["name"]].y_train.tolist()
    assert payload["max_components"] == 10 and payload["c_range"] == [0.01, 100.0]


def test_the_html_is_stable_and_carries_no_computed_result():
    a, b = kernel_pca_lab(), kernel_pca_lab()
    assert a.html == b.html  # the same output on every run (the notebook's cell is compared as committed)
    assert 'data-kind="kernel-pca"' in a.html and "http" not in a.html
    assert set(json.loads(a.payload_json)) == {"datasets", "random_state", "c_range", "max_components",
                                               "max_degree", "max_points", "n_grid", "settings"}
    assert len(a.html.encode()) < 80_000


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"dataset": "rings"}, ValueError, "dataset must be one of"),
        ({"dataset": 3}, TypeError, "dataset must be a string"),
        ({"kernel": "rbf"}, ValueError, "kernel must be one of"),
        ({"c": 0.001}, ValueError, "c must be >= 0.01"),
        ({"c": 1000.0}, ValueError, "c must be at most 100"),
        ({"c": "1"}, TypeError, "c must be"),
        ({"degree": 0}, ValueError, "degree must be at least 1"),
        ({"degree": 7}, ValueError, "degree must be at most 6"),
        ({"degree": 2.0}, TypeError, "degree must be an integer"),
        ({"n_components": 11}, ValueError, "n_components must be at most 10"),
        ({"component": 0}, ValueError, "component must be at least 1"),
        ({"pair": (1, 2, 3)}, TypeError, "pair must be two component numbers"),
        ({"pair": "12"}, TypeError, "pair must be two component numbers"),
        ({"pair": (1, 1.5)}, TypeError, "pair must hold integers"),
        ({"pair": (1, 11)}, ValueError, r"pair\[1\] must be at most 10"),
        ({"c_range": (1.0,)}, TypeError, "c_range must be a pair"),
        ({"c_range": (10.0, 1.0)}, ValueError, r"c_range\[1\]"),
        ({"c": 5.0, "c_range": (0.1, 1.0)}, ValueError, "c must be at most 1"),
        ({"random_state": -1}, ValueError, "random_state must be at least 0"),
        ({"random_state": None}, TypeError, "random_state must be an integer"),
        ({"title": ""}, ValueError, "title must be a non-empty string"),
    ],
)
def test_bad_arguments_are_named(kwargs, error, match):
    with pytest.raises(error, match=match):
        kernel_pca_lab(**kwargs)
