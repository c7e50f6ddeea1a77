"""The book's explorers: live sliders in a notebook, labs in the HTML book.

One module per chapter's explorer holds its pure computation (parameters ->
arrays and numbers, which the tests call directly) and its drawing function;
:class:`Explorer` makes the live ipywidget from that one drawing function,
which also draws the chapter's figure. The HTML book shows each explorer as
a lab computed in the reader's browser (``labs``), with no Python running.

========================  ==========================================================
module                    explorer
========================  ==========================================================
``pca_direction``         chapter 1: turn a direction w; variance captured and error left
``gram_spectrum``         chapter 3: Gaussian Gram matrix and spectrum against c
``rings``                 chapter 4: kernel PCA of concentric rings against c and q
``denoising``             chapter 5: de-noising the toy data against sigma, c, q, t
``topics``                appendix A: sparse PCA of planted topics against alpha, q
``robust``                appendix B: robust PCA against lambda, the rank, the corruption
``sliders``               a live explorer's sliders and their ranges
``explorer``              one drawing function -> the figure and the live widget
``labs``                  labs computed in the reader's browser, one function each
``labs_kernel_pca``       chapter 4's kernel PCA lab, computed in the reader's browser
``labs_appendices``       the appendices' labs (sparse PCA, robust PCA), in the browser
``browser``               the HTML that carries a lab's data to the page
========================  ==========================================================

This subpackage needs matplotlib and ipywidgets (the ``explorers``
extra); ``import kpca_lib`` does not import it. The labs need none of them:
their computing is the book's JavaScript (``_static/kpca-lab*.js``).
"""

from .denoising import SIGMAS, DenoisingState, ToyDenoiser, mean_squared_distance
from .denoising_view import denoising_explorer, draw_denoising
from .browser import BrowserExplorer
from .explorer import Explorer
from .gram_spectrum import draw_gram_spectrum, gram_spectrum, gram_spectrum_explorer, squared_distance_scales
from .labs import denoising_lab, gram_spectrum_lab, pca_lab
from .labs_kernel_pca import kernel_pca_lab, kernel_pca_lab_data
from .labs_appendices import robust_pca_lab, sparse_pca_lab
from .pca_direction import (
    captured_variance,
    draw_pca_direction,
    draw_pca_plane,
    pca_direction,
    pca_direction_explorer,
)
from .rings import draw_rings, held_out_accuracy, rings_components, rings_explorer
from .robust import (SUPPORT_LABELS, VERDICTS, draw_robust_pca, pcp_phase_diagram, pcp_verdict,
                     robust_pca_explorer, robust_pca_trial)
from .robust import CERTIFIED_VERDICTS, certified_codes, pcp_certified_verdict
from .sliders import LiveRange, Slider
from .topics import draw_topics, sparse_pca_topics, topics_explorer

__all__ = [
    "Explorer",
    "LiveRange",
    "Slider",
    "pca_direction",
    "captured_variance",
    "draw_pca_plane",
    "draw_pca_direction",
    "pca_direction_explorer",
    "gram_spectrum",
    "squared_distance_scales",
    "draw_gram_spectrum",
    "gram_spectrum_explorer",
    "held_out_accuracy",
    "rings_components",
    "draw_rings",
    "rings_explorer",
    "SIGMAS",
    "DenoisingState",
    "ToyDenoiser",
    "mean_squared_distance",
    "draw_denoising",
    "denoising_explorer",
    "sparse_pca_topics",
    "draw_topics",
    "topics_explorer",
    "SUPPORT_LABELS",
    "robust_pca_trial",
    "pcp_verdict",
    "pcp_certified_verdict",
    "certified_codes",
    "CERTIFIED_VERDICTS",
    "pcp_phase_diagram",
    "VERDICTS",
    "draw_robust_pca",
    "robust_pca_explorer",
    "BrowserExplorer",
    "denoising_lab",
    "gram_spectrum_lab",
    "pca_lab",
    "kernel_pca_lab",
    "kernel_pca_lab_data",
    "sparse_pca_lab",
    "robust_pca_lab",
]
