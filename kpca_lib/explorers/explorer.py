"""One drawing function, for the chapter's figure and the live widget.

An :class:`Explorer` is a drawing function of the slider values and the
sliders. :meth:`Explorer.figure` draws one setting (a chapter's figure);
:meth:`Explorer.live` wires the same function to ipywidgets (instructors
move the sliders in class, with a running kernel), so both show the same
picture and the same numbers. The HTML book shows each explorer as a lab
computed in the reader's browser instead (:mod:`kpca_lib.explorers.labs`).
"""

import html

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np

from .sliders import Slider

__all__ = ["Explorer"]


class Explorer:
    """A drawing function of slider values, drawn once or live.

    Parameters
    ----------
    draw : callable
        ``draw(axes, **values)`` draws one setting on ``axes`` (as returned
        by ``plt.subplots(*subplots)``) and may return a short caption.
    sliders : sequence of Slider
        The sliders, top to bottom.
    name : str
        Short name (element ids of the HTML, alt text).
    subplots : tuple of int, default=(1, 1)
        Rows and columns of axes.
    figsize : tuple of float, default=(8, 3.5)
        Figure size in inches.

    Examples
    --------
    >>> from kpca_lib.explorers import Slider
    >>> def draw(ax, slope):
    ...     ax.plot([0, 1], [0, slope])
    ...     return f"slope {slope}"
    >>> explorer = Explorer(draw, [Slider("slope", [1, 2])], name="line", figsize=(2, 1))
    >>> fig, caption = explorer.figure(slope=2)
    >>> caption
    'slope 2'
    >>> plt.close(fig)
    """

    def __init__(self, draw, sliders, name, subplots=(1, 1), figsize=(8, 3.5)):
        if not callable(draw):
            raise TypeError(f"draw must be callable, got {draw!r}.")
        self.draw = draw
        self.sliders = tuple(sliders)
        for slider in self.sliders:
            if not isinstance(slider, Slider):
                raise TypeError(f"sliders must be Slider objects, got {slider!r}.")
        names = [slider.name for slider in self.sliders]
        if len(set(names)) != len(names):
            raise ValueError(f"slider names must be distinct, got {names}.")
        self.name = name
        self.subplots = subplots
        self.figsize = figsize

    def figure(self, **values):
        """Draw one setting on a new figure (for a grid of settings, or a test).

        Parameters
        ----------
        **values
            One value per slider; sliders left out take their initial value.

        Returns
        -------
        fig : matplotlib.figure.Figure
        caption : str or None
            What the drawing function returned.
        """
        unknown = set(values) - {slider.name for slider in self.sliders}
        if unknown:
            raise TypeError(f"no slider named {sorted(unknown)} in explorer {self.name!r}.")
        settings = {slider.name: slider.initial_value for slider in self.sliders}
        settings.update(values)
        fig, axes = plt.subplots(*self.subplots, figsize=self.figsize, layout="constrained")
        caption = self.draw(axes, **settings)
        return fig, caption

    def live(self):
        """The live widget: one ipywidgets slider per slider, redrawing on change.

        Needs a running kernel to answer; the HTML book shows the explorer's lab.

        Returns
        -------
        ipywidgets.VBox
            The controls, the figure and the caption.
        """
        controls = [_live_control(slider) for slider in self.sliders]
        output = widgets.Output()
        caption = widgets.HTML()

        def redraw(change=None):
            values = {slider.name: control.value for slider, control in zip(self.sliders, controls)}
            with output:
                output.clear_output(wait=True)
                fig, text = self.figure(**values)
                plt.show()
                plt.close(fig)
            caption.value = f"<code>{html.escape(text or '')}</code>"

        for control in controls:
            control.observe(redraw, names="value")
        redraw()
        title = widgets.HTML("<b>Live (needs a running kernel)</b>")
        return widgets.VBox([title, *controls, output, caption])


def _live_control(slider):
    """The ipywidgets control of one slider."""
    options = dict(
        description=slider.label or slider.name, continuous_update=False,
        style={"description_width": "initial"}, layout=widgets.Layout(width="32em"),
    )
    live = slider.live
    if live is None:
        return widgets.SelectionSlider(
            options=list(zip(slider.value_labels, slider.values)), value=slider.initial_value,
            **options,
        )
    initial = slider.initial_value
    if live.integer:
        return widgets.IntSlider(
            value=int(initial), min=int(live.min), max=int(live.max), step=int(live.step or 1),
            **options,
        )
    if live.log:
        low, high = np.log10(live.min), np.log10(live.max)
        return widgets.FloatLogSlider(
            value=initial, base=10, min=low, max=high, step=live.step or (high - low) / 100,
            readout_format=".3g", **options,
        )
    return widgets.FloatSlider(
        value=initial, min=live.min, max=live.max, step=live.step or (live.max - live.min) / 100,
        readout_format=".3g", **options,
    )
