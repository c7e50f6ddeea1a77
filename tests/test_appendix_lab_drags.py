"""Appendix A's and B's labs keep up with a drag (issue 40, item 6), checked by their structure.

Both labs run a solver sweep by sweep (kpca-labs-progressive.js). A drag of
a slider gives the page an input event per frame; when each input event
started the new setting's job, ran its first slice of sweeps (8 ms) and drew
every panel, the frame of each input waited for all of it, and appendix B's
robust PCA lab drew frames 66-117 ms apart during a drag (its rank of L0 and
corrupted fraction also compute a new matrix's SVDs). Now no input event
computes or draws: the job of the latest setting starts in a task after the
frame that paints the slider's new value (moves that come meanwhile merged
into it) and is drawn at the next animation frame.

Wall-clock thresholds flake on a shared machine, so these tests count what
runs where: the solvers' sweeps, a job's start (a new problem's SVDs for the
robust lab) and the drawing of the numbers are noted with whether they ran
inside an input event, while a real mouse drags each slider's thumb (the
drag of tests/test_denoising_lab_drags.py, 25 ms between moves). What the
lab shows at the end is checked against kpca_lib.
``benchmarks/bench_lab_latency.py`` prints the frame rates and gaps.
"""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from kpca_lib import robust_pca
from lab_parity import ITERATES_RTOL, lab_payload, robust_pca_problem
from lab_latency import mouse_drag
from test_book_in_browser import TWO_FRAMES  # skips this module too where Chromium is missing
from test_labs_rendered import browser, html, url  # noqa: F401  (fixtures: the run's one book, served)

PAGES = {"robust-pca": "chapters/B_robust_pca.html", "sparse-pca": "chapters/A_sparse_pca.html"}
SLIDERS = {"robust-pca": ["λ·√n", "rank of L₀", "corrupted fraction"], "sparse-pca": ["penalty α", "components q"]}

# The lab's computing wrapped: every sweep, every new job (for the robust lab also every new
# matrix, with its SVDs) and every drawing of the numbers noted as [name, inside an input event]
WATCH = """(kind) => {
  const index = window.kpcaLabs.findIndex((l) => l.kind === kind), lab = window.kpcaLabs[index];
  const log = window.kpcaDragWork = { calls: [], inputs: 0 };
  let inInput = false;
  window.addEventListener('input', () => { inInput = true; log.inputs++; }, true);
  window.addEventListener('input', () => { inInput = false; }, false);
  const note = (name) => log.calls.push([name, inInput]);
  const solver = kind === 'robust-pca' ? window.kpcaRobust : window.kpcaSparse;
  const Job = kind === 'robust-pca' ? 'Split' : 'Fit', Original = solver[Job], step = Original.prototype.step;
  Original.prototype.step = function () { note('sweep'); return step.apply(this, arguments); };
  solver[Job] = class extends Original {
    constructor(...args) { note('new job'); super(...args); }
  };
  if (kind === 'robust-pca') {
    const matrix = solver.Draws.prototype.matrix;
    solver.Draws.prototype.matrix = function () { note('new matrix'); return matrix.apply(this, arguments); };
  }
  const numbers = lab.element.querySelector('.kpca-lab-numbers'), replace = numbers.replaceChildren;
  numbers.replaceChildren = function () { note('drawing'); return replace.apply(this, arguments); };
  return index;
}"""


@pytest.fixture
def lab_page(request, browser, url):
    """An appendix's page at a desktop's width (the kind of lab: the test's parameter), its lab
    idle; the page, kind and lab index."""
    kind = request.param
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url + PAGES[kind], wait_until="load", timeout=120_000)
    page.wait_for_function(f"() => window.kpcaLabs && window.kpcaLabs.some((l) => l.kind === '{kind}')",
                           timeout=60_000)
    index = page.evaluate(f"() => window.kpcaLabs.findIndex((l) => l.kind === '{kind}')")
    page.evaluate(f"() => window.kpcaLabs[{index}].whenIdle()")
    yield page, kind, index
    context.close()
    assert not errors, errors


def drag(page, index, slider, moves=40, spacing_ms=25):
    """The mouse on the slider's thumb, moved in steps to the farther end (as a reader's hand)."""
    slider.scroll_into_view_if_needed()
    page.evaluate(TWO_FRAMES)
    mouse_drag(page, slider, moves, spacing_ms)
    page.evaluate(f"() => window.kpcaLabs[{index}].whenIdle()")
    page.evaluate(TWO_FRAMES)
    return page.evaluate("() => window.kpcaDragWork")


def assert_robust_pca_matches_kpca_lib(payload, state):
    """The split the robust PCA lab shows at the end of a drag is kpca_lib.robust_pca's."""
    n = payload["n"]
    M = np.array(state["M"]).reshape(n, n)
    L0, S0 = robust_pca_problem(payload, state["rank"], state["n_corrupted"])
    assert float(np.max(np.abs(M - L0 - S0))) <= 1e-15
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fit = robust_pca(M, lam=state["lam_factor"] / np.sqrt(n), tol=payload["tol"],
                         max_iter=payload["max_iter"], rho=payload["rho"])
    assert (state["n_iter"], state["converged"], state["rank_L"]) == (fit.n_iter, fit.converged, fit.rank)
    scale = np.abs(M).max()
    L, S = np.array(state["L"]).reshape(n, n), np.array(state["S"]).reshape(n, n)
    assert max(np.max(np.abs(L - fit.L)), np.max(np.abs(S - fit.S))) / scale <= ITERATES_RTOL


@pytest.mark.parametrize("lab_page, label", [(kind, label) for kind, labels in SLIDERS.items() for label in labels],
                         indirect=["lab_page"], ids=["B-lambda", "B-rank", "B-corruption", "A-alpha", "A-q"])
def test_a_drag_computes_and_draws_outside_the_input_events(lab_page, label):
    page, kind, index = lab_page
    lab = page.locator(f".kpca-lab[data-kind={kind}]")
    slider = lab.get_by_label(label, exact=True)
    page.evaluate(WATCH, kind)
    work = drag(page, index, slider)
    calls = work["calls"]
    assert work["inputs"] >= 2 and any(name == "new job" for name, _ in calls), work["inputs"]
    in_input = sorted({name for name, inside in calls if inside})
    assert not in_input, f"{label}: done inside the slider's input event: {in_input}"
    # merged: never more jobs than moves (a job per input event at most)
    assert sum(name == "new job" for name, _ in calls) <= work["inputs"]
    # what the lab shows at the end is the slider's last setting, as kpca_lib computes it
    state = page.evaluate(f"() => window.kpcaLabs[{index}].state")
    assert lab.locator(".kpca-lab-numbers.kpca-lab-pending").count() == 0
    assert lab.locator(".kpca-lab-numbers").get_attribute("aria-busy") == "false"
    if kind == "robust-pca":
        payload = lab_payload(page, index)
        position = float(slider.input_value())
        expected = {"λ·√n": ("lam_factor", float(f"{10 ** position:.3g}")), "rank of L₀": ("rank", int(position)),
                    "corrupted fraction": ("n_corrupted", round(position / 100 * payload["n"] ** 2))}[label]
        assert state[expected[0]] == expected[1], (state[expected[0]], expected)
        assert_robust_pca_matches_kpca_lib(payload, state)
    else:
        expected = {"penalty α": "alpha", "components q": "n_components"}[label]
        assert state["n_iter"] >= 1 and state[expected] is not None
