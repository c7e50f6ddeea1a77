"""Precomputed explorers: sliders over frames drawn in advance, as plain HTML.

Where no Python runs (the HTML book) a slider cannot call the computing. A
:class:`StaticExplorer` draws every combination of its sliders' values once,
when the notebook runs, and writes self-contained HTML: a range input per
slider, the current values, an image and a few lines of JavaScript that swap
the image. It loads nothing from anywhere.

The frames are pictures, so their pixels depend on the CPU and the BLAS
(round-off moves a pixel). nbval compares the HTML as text, so the project's
nbval sanitizer (``tests/nbval_sanitize.cfg``) replaces the embedded images
by a placeholder; the element ids and the captions, which are facts of the
mathematics, are still compared. The frames themselves are tested where
they are made (``tests/test_explorers_static.py``).
"""

import io
import itertools
from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
from PIL import Image

from .._validation import check_int, check_real
from ._html import explorer_html

__all__ = ["LiveRange", "Slider", "StaticExplorer"]


@dataclass(frozen=True)
class LiveRange:
    """The range of a live slider, where it is finer than the precomputed grid.

    Parameters
    ----------
    min, max : float
        The ends of the range, ``min < max`` (both > 0 when ``log``).
    step : float or None, default=None
        The step; ``None`` means 1 for integers and a hundredth of the range
        (of the decades, when ``log``) otherwise.
    log : bool, default=False
        A logarithmic slider (``ipywidgets.FloatLogSlider``).
    integer : bool, default=False
        An integer slider (``ipywidgets.IntSlider``).

    Examples
    --------
    >>> LiveRange(0.001, 10.0, log=True).min
    0.001
    """

    min: float
    max: float
    step: float = None
    log: bool = False
    integer: bool = False

    def __post_init__(self):
        low = check_real(self.min, "min", minimum=0, strict=True) if self.log else check_real(self.min, "min")
        check_real(self.max, "max", minimum=low, strict=True)
        if self.step is not None:
            check_real(self.step, "step", minimum=0, strict=True)


@dataclass(frozen=True)
class Slider:
    """One slider: a name, the values the precomputed explorer steps over, and its live range.

    Parameters
    ----------
    name : str
        Keyword under which the value is passed to the drawing function.
    values : sequence
        The values of the precomputed explorer, in slider order (numbers
        or strings).
    initial : object, optional
        The value shown first; one of ``values``. Default: the first.
    label : str, optional
        Text before the slider. Default: ``name``.
    format : str, default="{}"
        Format of the value shown beside the slider, e.g. ``"{:.3g}"``.
    live : LiveRange or None, default=None
        The live widget's range, where it can be finer than ``values``;
        ``None`` makes the live slider step over ``values`` too.

    Examples
    --------
    >>> Slider("c", [0.1, 1.0, 10.0], initial=1.0).initial_index
    1
    """

    name: str
    values: tuple
    initial: object = None
    label: str = None
    format: str = "{}"
    live: LiveRange = None

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name.isidentifier():
            raise ValueError(f"name must be a Python identifier, got name={self.name!r}.")
        values = tuple(self.values)
        if len(values) == 0:
            raise ValueError(f"values of slider {self.name!r} must not be empty.")
        object.__setattr__(self, "values", values)
        if self.initial is not None and self.initial not in values:
            raise ValueError(
                f"initial={self.initial!r} of slider {self.name!r} is not one of its values."
            )
        if self.live is not None and not isinstance(self.live, LiveRange):
            raise TypeError(f"live of slider {self.name!r} must be a LiveRange, got {self.live!r}.")

    @property
    def initial_value(self):
        """The value shown first."""
        return self.values[self.initial_index]

    @property
    def initial_index(self):
        """Position of the initial value (0 if none was given)."""
        return 0 if self.initial is None else self.values.index(self.initial)

    @property
    def value_labels(self):
        """The values as the page shows them."""
        return [self.format.format(value) for value in self.values]


class StaticExplorer:
    """Sliders over precomputed frames, shown as self-contained HTML.

    Every combination of the sliders' values is drawn once, by calling
    ``draw(axes, **values)`` on the axes of one reused matplotlib figure,
    and stored as a PNG with a palette of at most ``colors`` colours.
    Identical frames are stored once. The figure is laid out once
    (constrained layout of the initial setting) and the layout is then
    frozen, so that the picture does not jump as a slider moves; keep tick
    labels of similar width across frames (e.g. fixed limits).

    Frames are drawn at ``pixel_ratio`` times the resolution at which they
    are shown, so that they are sharp on high-DPI screens.

    Parameters
    ----------
    draw : callable
        ``draw(axes, **values)`` draws one setting on ``axes`` (as returned
        by ``plt.subplots(*subplots)``: one Axes, or an array of them),
        which the explorer has cleared. It may return a short text, shown
        under the picture (rounded numbers of that setting), or None.
    sliders : sequence of Slider
        The sliders, top to bottom; the frames are their Cartesian product.
    name : str
        Short name, used in the element ids and in the image's alt text.
    subplots : tuple of int, default=(1, 1)
        Rows and columns of axes.
    title : str, default="Precomputed (works in the HTML book)"
        Line printed above the sliders.
    figsize : tuple of float, default=(8, 3.5)
        Figure size in inches.
    dpi : int, default=80
        CSS pixels per inch at which the frames are shown.
    pixel_ratio : int, default=2
        Frames are drawn at ``dpi * pixel_ratio`` dots per inch.
    colors : int, default=64
        Colours of each frame's palette (2 to 256); fewer make smaller files.
    max_frames : int, default=500
        Refuse larger grids (page weight, and time to draw them).

    Attributes
    ----------
    frames_ : list of bytes
        The distinct PNG images.
    frame_of_setting_ : ndarray of int
        For each setting (row-major over the sliders, last slider fastest),
        the index of its image in ``frames_``.
    captions_ : list of str
        The text under the picture for each setting.
    html_ : str
        The HTML (also what ``_repr_html_`` returns).

    Examples
    --------
    >>> def draw(ax, c):
    ...     ax.plot([0, 1], [0, c])
    ...     return f"slope {c}"
    >>> explorer = StaticExplorer(draw, [Slider("c", [1, 2], initial=2)], name="line",
    ...                           figsize=(2, 1), dpi=20).render()
    >>> len(explorer.frames_), explorer.captions_
    (2, ['slope 1', 'slope 2'])
    >>> 'type="range"' in explorer.html_ and "http" not in explorer.html_
    True
    """

    def __init__(
        self,
        draw,
        sliders,
        name,
        subplots=(1, 1),
        title="Precomputed (works in the HTML book)",
        figsize=(8, 3.5),
        dpi=80,
        pixel_ratio=2,
        colors=64,
        max_frames=500,
    ):
        self.draw = draw
        self.sliders = sliders
        self.name = name
        self.subplots = subplots
        self.title = title
        self.figsize = figsize
        self.dpi = dpi
        self.pixel_ratio = pixel_ratio
        self.colors = colors
        self.max_frames = max_frames

    def _check(self):
        if not callable(self.draw):
            raise TypeError(f"draw must be callable, got {self.draw!r}.")
        sliders = list(self.sliders)
        if not sliders or not all(isinstance(slider, Slider) for slider in sliders):
            raise TypeError("sliders must be a non-empty sequence of Slider.")
        names = [slider.name for slider in sliders]
        if len(set(names)) != len(names):
            raise ValueError(f"slider names must be distinct, got {names}.")
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError(f"name must be a non-empty string, got name={self.name!r}.")
        if len(self.subplots) != 2:
            raise ValueError(f"subplots must be (rows, columns), got subplots={self.subplots!r}.")
        for value, what in zip(self.subplots, ("rows", "columns")):
            check_int(value, f"subplots {what}", minimum=1)
        check_int(self.dpi, "dpi", minimum=10)
        check_int(self.pixel_ratio, "pixel_ratio", minimum=1)
        check_int(self.colors, "colors", minimum=2, maximum=256)
        if self.n_settings > check_int(self.max_frames, "max_frames", minimum=1):
            raise ValueError(
                f"the sliders make {self.n_settings} frames, more than max_frames={self.max_frames}."
            )
        return sliders

    def render(self):
        """Draw every frame and build the HTML.

        Returns
        -------
        self : StaticExplorer
        """
        sliders = self._check()
        names = [slider.name for slider in sliders]
        settings = list(itertools.product(*(slider.values for slider in sliders)))
        initial = tuple(slider.initial_value for slider in sliders)
        frames, frame_index, frame_of_setting, captions = [], {}, [], []
        fig, axes = plt.subplots(
            *self.subplots, figsize=self.figsize, dpi=self.dpi * self.pixel_ratio,
            layout="constrained",
        )
        try:
            # lay the figure out for the initial setting, then freeze the layout
            self.draw(axes, **dict(zip(names, initial)))
            fig.canvas.draw()
            fig.set_layout_engine("none")
            for setting in settings:
                for ax in fig.axes:
                    ax.clear()
                caption = self.draw(axes, **dict(zip(names, setting)))
                png = _figure_to_png(fig, self.colors)
                if png not in frame_index:
                    frame_index[png] = len(frames)
                    frames.append(png)
                frame_of_setting.append(frame_index[png])
                captions.append("" if caption is None else str(caption))
        finally:
            plt.close(fig)
        self.frames_ = frames
        self.frame_of_setting_ = np.array(frame_of_setting)
        self.captions_ = captions
        self.html_ = explorer_html(self, sliders)
        return self

    @property
    def n_settings(self):
        """Number of slider settings (the product of the slider lengths)."""
        return int(np.prod([len(slider.values) for slider in self.sliders]))

    @property
    def display_width(self):
        """Width in CSS pixels at which the frames are shown."""
        return int(round(self.figsize[0] * self.dpi))

    def summary(self):
        """One line: the settings and the distinct frames.

        The page weight is left out: the frames' compressed size moves with
        the round-off of the machine, and this line is compared by nbval
        (see :attr:`size_bytes`).

        Returns
        -------
        str
        """
        if not hasattr(self, "html_"):
            self.render()
        return (
            f"static explorer {self.name!r}: {self.n_settings} settings, "
            f"{len(self.frames_)} distinct frames"
        )

    @property
    def size_bytes(self):
        """Size of the rendered HTML in bytes (what the page weighs)."""
        if not hasattr(self, "html_"):
            self.render()
        return len(self.html_.encode())

    def __repr__(self):
        return f"StaticExplorer(name={self.name!r}, settings={self.n_settings})"

    def _repr_html_(self):
        if not hasattr(self, "html_"):
            self.render()
        return self.html_


def _figure_to_png(fig, colors):
    """The figure as palette PNG bytes: deterministic (no date, no software tag)."""
    fig.canvas.draw()
    rgb = Image.fromarray(np.asarray(fig.canvas.buffer_rgba())[..., :3])
    image = rgb.quantize(colors=colors, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()
