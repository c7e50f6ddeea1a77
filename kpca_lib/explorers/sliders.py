"""The sliders of a live explorer: a name, the values, the initial one, and a live range.

A :class:`Slider` names a keyword of an explorer's drawing function and the
values it takes; a :class:`LiveRange` lets the live ipywidgets slider move
finer than those values (a continuous or log scale).
"""

from dataclasses import dataclass

from .._validation import check_real

__all__ = ["LiveRange", "Slider"]


@dataclass(frozen=True)
class LiveRange:
    """The range of a live slider, where it is finer than the slider's listed values.

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
    """One slider of a live widget: a name, its values, and its live range.

    Parameters
    ----------
    name : str
        Keyword under which the value is passed to the drawing function.
    values : sequence
        The values, in slider order (numbers or strings): the ones a live
        slider without a ``live`` range steps over, and a chapter's grid of
        settings (its figure of several settings).
    initial : object, optional
        The value shown first; one of ``values``. Default: the first.
    label : str, optional
        Text before the slider. Default: ``name``.
    format : str, default="{}"
        Format of a value in the slider's labels, e.g. ``"{:.3g}"``.
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
        """The values as the slider's labels show them."""
        return [self.format.format(value) for value in self.values]
