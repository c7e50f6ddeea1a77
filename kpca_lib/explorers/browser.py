"""Explorers that compute in the reader's browser: the HTML that carries a lab.

The rendered book runs no Python, so a lab there is computed by the book's
own JavaScript (``_static/kpca-lab*.js`` at the book's root, linked into
every page by Jupyter Book). What a notebook cell emits is only a
placeholder with the lab's data::

    <div class="kpca-lab" data-kind="denoising" id="...">
      <div class="kpca-lab-title">...</div>
      <p class="kpca-lab-fallback">...</p>   (shown where the script is absent)
      <script type="application/json">{...}</script>
    </div>

The page's script finds the div, removes the fallback text and builds the
lab from the JSON. In JupyterLab the book's script is absent and the
fallback text says so.

The HTML is a pure function of the arguments: the JSON has sorted keys, and
every float is written as Python's ``repr``, the shortest decimal that reads
back as the same double, so the page computes on exactly the numbers the
library uses. The payload holds input data and settings only, never a
computed result, so the output is the same on every CPU and BLAS.
"""

import hashlib
import html
import json
import math
import re
from numbers import Integral, Real

import numpy as np

__all__ = ["BrowserExplorer"]

_KIND = re.compile(r"^[a-z][a-z0-9-]*$")

_FALLBACK = (
    "This lab computes in the page of the HTML book, with the book's own "
    "JavaScript, which is not loaded here. Open the chapter in the HTML book, "
    "or use the live widget."
)


def _plain(value, path):
    """value as JSON-ready Python objects; non-finite numbers raise ValueError naming path."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"payload keys must be strings, got {key!r} in {path}.")
            out[key] = _plain(item, f"{path}[{key!r}]")
        return out
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return [_plain(item, f"{path}[{i}]") for i, item in enumerate(value)]
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, Integral):
        return int(value)
    if isinstance(value, Real):
        value = float(value)
        if not math.isfinite(value):
            raise ValueError(f"payload values must be finite, got {value!r} at {path}.")
        return value
    raise TypeError(
        f"payload values must be numbers, strings, booleans, lists, arrays or dicts, "
        f"got {type(value).__name__} at {path}."
    )


class BrowserExplorer:
    """A lab computed in the reader's browser, shown as a placeholder with its data.

    Parameters
    ----------
    kind : str
        Which lab the page's script builds: ``"denoising"``, ``"gram-spectrum"``
        or ``"pca"`` (lower case letters, digits and hyphens).
    payload : dict
        The lab's data and settings: numbers, strings, booleans, lists,
        numpy arrays and dicts of them, all finite.
    title : str
        Shown above the lab, and in the fallback.
    fallback : str, optional
        Text shown where the book's JavaScript is absent (JupyterLab).

    Attributes
    ----------
    payload_json : str
        The payload as compact JSON with sorted keys.
    html : str
        The HTML (also what ``_repr_html_`` returns).

    Examples
    --------
    >>> lab = BrowserExplorer("pca", {"X": [[0.5, 1.0]], "angle": 30}, title="PCA")
    >>> lab.payload_json
    '{"X":[[0.5,1.0]],"angle":30}'
    >>> 'data-kind="pca"' in lab.html and "http" not in lab.html
    True
    """

    def __init__(self, kind, payload, title, fallback=None):
        if not isinstance(kind, str) or not _KIND.match(kind):
            raise ValueError(
                f"kind must be lower case letters, digits and hyphens, such as "
                f"'denoising', got kind={kind!r}."
            )
        if not isinstance(payload, dict):
            raise TypeError(f"payload must be a dict, got {type(payload).__name__}.")
        if not isinstance(title, str) or not title.strip():
            raise ValueError(f"title must be a non-empty string, got title={title!r}.")
        if fallback is None:
            fallback = _FALLBACK
        if not isinstance(fallback, str):
            raise TypeError(f"fallback must be a string, got {type(fallback).__name__}.")
        self.kind = kind
        self.title = title
        self.fallback = fallback
        self.payload_json = json.dumps(
            _plain(payload, "payload"), sort_keys=True, separators=(",", ":"), allow_nan=False
        )

    @property
    def payload(self):
        """The payload as the page reads it (parsed back from the JSON)."""
        return json.loads(self.payload_json)

    @property
    def html(self):
        digest = hashlib.sha1(
            "\0".join([self.kind, self.title, self.fallback, self.payload_json]).encode()
        ).hexdigest()[:10]
        # "<" only occurs inside JSON strings, where \u003c reads back the same;
        # so no "</script>" can end the block early
        data = self.payload_json.replace("<", "\\u003c")
        return (
            f'<div id="kpca-lab-{self.kind}-{digest}" class="kpca-lab tex2jax_ignore '
            f'mathjax_ignore" data-kind="{self.kind}">'
            f'<div class="kpca-lab-title">{html.escape(self.title)}</div>'
            f'<p class="kpca-lab-fallback">{html.escape(self.fallback)}</p>'
            f'<script type="application/json">{data}</script></div>'
        )

    def summary(self):
        """One line: the kind and the size of the HTML.

        Returns
        -------
        str
        """
        return f"browser lab {self.kind!r}: {len(self.html.encode()) / 1e3:.0f} kB of HTML"

    def __repr__(self):
        return f"BrowserExplorer(kind={self.kind!r}, title={self.title!r})"

    def _repr_html_(self):
        return self.html
