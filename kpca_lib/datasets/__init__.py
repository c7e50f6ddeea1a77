"""Seeded synthetic data sets used by the chapters, in the book's order.

Every generator takes ``random_state`` and returns the same data for the
same seed, so that notebooks re-run to the same outputs.

==========================  ==============================  ===================
generator                   what                            chapter
==========================  ==============================  ===================
:func:`noisy_circle`        points on a circle plus noise   1, 3
:func:`blob_images`         images of a moving blob         2
:func:`concentric_rings`    rings, one class per ring       4
:func:`denoising_toy`       Gaussian clusters (Mika et al.) 5
:func:`denoising_curve`     a noisy closed curve            5
:func:`planted_topics`      documents with planted topics   appendix A
:func:`low_rank_plus_sparse`  low rank plus sparse matrix   appendix B
:func:`synthetic_video`     a static scene, moving objects  appendix B
==========================  ==============================  ===================

:func:`load_robust_pca_phase` reads appendix B's phase diagram, computed by a
benchmark (ten minutes) and shipped with the library.
"""

from .appendices import FILLER_WORDS, TOPIC_WORDS, low_rank_plus_sparse, planted_topics, synthetic_video
from .chapters_1_3 import blob_images, noisy_circle
from .chapters_4_5 import concentric_rings, denoising_curve, denoising_toy
from .precomputed import load_robust_pca_phase

__all__ = [
    "noisy_circle",
    "blob_images",
    "concentric_rings",
    "denoising_toy",
    "denoising_curve",
    "TOPIC_WORDS",
    "FILLER_WORDS",
    "planted_topics",
    "low_rank_plus_sparse",
    "synthetic_video",
    "load_robust_pca_phase",
]
