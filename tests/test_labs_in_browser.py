"""The labs that compute in the reader's browser, in real Chromium, against kpca_lib.

The test writes a page holding the three labs (chapter 5's de-noising lab,
chapter 3's Gram-spectrum lab, chapter 1's PCA lab), and pages of their own
for chapter 4's kernel PCA lab and the appendices' labs, with the book's
``_static/`` files linked as Jupyter Book links them, serves it on 127.0.0.1
and opens it in headless Chromium with the launch arguments of
``tests/test_book_in_browser.py``. A request to any other host is blocked
and fails the test; so does any console error.

Checked: parity with kpca_lib for several settings of each lab
(``tests/lab_parity.py``), a click on the plane, the keyboard, the reset, the
width rule, a phone's width (390 px) and canvases drawn at the device pixel
ratio. Printed (``pytest -s tests/test_labs_in_browser.py``): the parity
errors, the milliseconds per move of each control and the page weight. Speed
is reported, not asserted (a shared machine makes timings noisy). The
screenshots go to ``_build/screenshots/``.
"""

import json
import statistics
from urllib.parse import urlsplit

import numpy as np
import pytest

from kpca_lib.datasets import noisy_circle
from kpca_lib.explorers import (denoising_lab, gram_spectrum_lab, kernel_pca_lab, pca_lab, robust_pca_lab,
                                sparse_pca_lab)
from test_book_in_browser import (  # skips this module too where Chromium is missing
    CHROMIUM,
    CHROMIUM_ARGS,
    ROOT,
    TWO_FRAMES,
    local_server,
    sync_api,
)
from lab_parity import (
    check_denoising,
    check_kernel_pca,
    compare_kernel_pca,
    check_gram,
    check_pca,
    check_robust_pca,
    check_sparse_pca,
    ROBUST,
    SPARSE,
    APPENDIX_SWEEPS,
    latency_table,
    measure_latencies,
    click_reference,
    denoising_reference,
    format_report,
    lab_payload,
    write_lab_page,
)

SCREENSHOTS = ROOT / "_build" / "screenshots"
DENOISING, GRAM, PCA_LAB = 0, 1, 2  # the labs' order on the page


def chapter3_points():
    """Two noisy rings ordered by angle, as chapter 3 draws its Gram matrix."""
    outer = noisy_circle(60, radius=1.0, sigma=0.1, random_state=0)
    inner = noisy_circle(40, radius=0.3, sigma=0.05, random_state=1)
    return np.vstack([outer.X[np.argsort(outer.angle)], inner.X[np.argsort(inner.angle)]])


def correlated_cloud():
    rng = np.random.default_rng(0)
    return rng.multivariate_normal([1.0, 0.5], [[2.0, 1.2], [1.2, 1.0]], size=200)


@pytest.fixture(scope="module")
def lab_server(tmp_path_factory):
    """URL of a page with the three labs, served on 127.0.0.1."""
    directory = tmp_path_factory.mktemp("labs")
    labs = [denoising_lab(), gram_spectrum_lab(chapter3_points()), pca_lab(correlated_cloud())]
    page = write_lab_page(directory, labs)
    with local_server(directory) as url:
        yield url + page


@pytest.fixture(scope="module")
def chromium():
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


class LabPage:
    """The lab page open in a fresh context, with what went wrong while it ran."""

    def __init__(self, chromium, url, width=1280, height=900, scale=1, n_labs=3):
        self.context = chromium.new_context(
            viewport={"width": width, "height": height}, device_scale_factor=scale
        )
        self.foreign, self.problems, self.bytes = [], [], {}

        def only_local(route):
            parts = urlsplit(route.request.url)
            if parts.scheme in ("data", "blob", "about") or parts.hostname == "127.0.0.1":
                route.continue_()
            else:
                self.foreign.append(route.request.url)
                route.abort()

        self.context.route("**/*", only_local)
        self.page = self.context.new_page()
        page = self.page
        page.on("console", lambda m: m.type == "error" and self.problems.append(f"console: {m.text}"))
        page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        page.on("requestfailed", lambda r: self.problems.append(f"failed: {r.url} {r.failure}"))

        def count(response):
            if response.status >= 400:
                self.problems.append(f"HTTP {response.status}: {response.url}")
            elif urlsplit(response.url).scheme == "http":
                self.bytes[response.url] = len(response.body())

        page.on("response", count)
        page.goto(url, wait_until="load")
        page.wait_for_function("n => window.kpcaLabs && window.kpcaLabs.length === n", arg=n_labs)
        page.evaluate("() => Promise.all(window.kpcaLabs.map(lab => lab.whenIdle()))")

    def close(self):
        problems, foreign = self.problems, self.foreign
        self.context.close()
        assert not problems, problems
        assert not foreign, foreign


@pytest.fixture
def lab_page(chromium, lab_server):
    opened = LabPage(chromium, lab_server)
    yield opened
    opened.close()


def test_denoising_lab_matches_kpca_lib(lab_page):
    report = check_denoising(lab_page.page, DENOISING)
    print("\n" + format_report("de-noising lab against kpca_lib (max errors):", report))
    assert len(report) == 6


def test_gram_and_pca_labs_match_kpca_lib(lab_page):
    print("\n" + format_report("Gram-spectrum lab against kpca_lib:", check_gram(lab_page.page, GRAM)))
    print(format_report("PCA lab against kpca_lib.PCA:", check_pca(lab_page.page, PCA_LAB)))


def plane_of(page):
    return page.locator(".kpca-lab").nth(DENOISING).locator("canvas").first


def test_a_click_on_the_plane_starts_a_preimage_there(lab_page):
    page = lab_page.page
    payload = lab_payload(page, DENOISING)
    box = plane_of(page).bounding_box()
    marked = payload["trajectory_points"][0]
    for mode, (fx, fy) in [("new", (0.62, 0.35)), ("marked", (0.3, 0.7))]:
        page.locator(".kpca-lab select").select_option(mode)
        page.mouse.click(box["x"] + fx * box["width"], box["y"] + fy * box["height"])
        state = page.evaluate("() => window.kpcaLabs[0].state")
        click = state["clicks"][-1]
        assert click["mode"] == mode
        reference = denoising_reference(
            payload, state["sigma"], state["c"], state["n_components"], state["n_iter"]
        )
        expected = click_reference(
            reference, click["start"], mode, marked, state["n_iter"], payload["tol"]
        )
        error = float(np.max(np.abs(np.array(click["Z"]) - expected)))
        print(f"\nclick ({mode}) at {np.round(click['start'], 3)}: pre-image error {error:.1e}")
        assert error <= 1e-6
        # the click really moved: a pre-image is not its start
        assert np.linalg.norm(np.array(click["Z"]) - click["start"]) > 1e-3


def test_keyboard_reset_and_width_rule(lab_page):
    page = lab_page.page
    lab = page.locator(".kpca-lab").nth(DENOISING)
    sliders = lab.locator("input[type=range]")
    assert sliders.count() == 4  # sigma, c, q, iterations
    for i in range(sliders.count()):
        slider = sliders.nth(i)
        # labelled, its value shown beside it
        label = lab.locator(f"label[for='{slider.get_attribute('id')}']")
        assert label.count() == 1 and label.text_content().strip()
        shown = lab.locator(f"output[for='{slider.get_attribute('id')}']")
        before_text = shown.text_content()
        before = page.evaluate("() => JSON.stringify(window.kpcaLabs[0].state.Z_kernel)")
        slider.focus()
        page.keyboard.press("ArrowRight")
        page.evaluate("() => window.kpcaLabs[0].whenIdle()")
        assert shown.text_content() != before_text, f"slider {i}: value shown did not change"
        after = page.evaluate("() => JSON.stringify(window.kpcaLabs[0].state.Z_kernel)")
        assert after != before, f"slider {i}: the pre-images did not change"
    # the width rule ties c to sigma: c = 2 d sigma^2
    lab.locator("input[type=checkbox]").check()
    page.evaluate("() => window.kpcaLabs[0].whenIdle()")
    state = page.evaluate("() => window.kpcaLabs[0].state")
    assert state["c"] == pytest.approx(4 * state["sigma"] ** 2, rel=1e-12)
    assert sliders.nth(1).is_disabled()
    sliders.nth(0).focus()
    page.keyboard.press("ArrowRight")
    page.evaluate("() => window.kpcaLabs[0].whenIdle()")
    state = page.evaluate("() => window.kpcaLabs[0].state")
    assert state["sigma"] == 0.4 and state["c"] == 0.64
    # reset: the chapter's setting again, with the width rule off
    lab.get_by_role("button", name="reset to the chapter's setting").click()
    page.evaluate("() => window.kpcaLabs[0].whenIdle()")
    state = page.evaluate("() => window.kpcaLabs[0].state")
    initial = lab_payload(page, DENOISING)["settings"]
    assert {key: state[key] for key in initial} == initial
    assert not sliders.nth(1).is_disabled()
    # the other labs' sliders and resets
    for index, key in [(GRAM, "c"), (PCA_LAB, "angle")]:
        other = page.locator(".kpca-lab").nth(index)
        other.locator("input[type=range]").first.focus()
        page.keyboard.press("End")
        moved = page.evaluate(f"() => window.kpcaLabs[{index}].state.{key}")
        other.get_by_role("button", name="reset to the chapter's setting").click()
        assert moved != page.evaluate(f"() => window.kpcaLabs[{index}].state.{key}")
        assert page.evaluate(f"() => window.kpcaLabs[{index}].state.{key}") == lab_payload(page, index)["settings"][key]


def press_and_wait(page, slider, keys, lab=0):
    slider.focus()
    for key in keys:
        page.keyboard.press(key)
        page.evaluate(f"() => window.kpcaLabs[{lab}].whenIdle()")


def summarise(moves, field):
    values = [move[field] for move in moves if field in move]
    if not values:
        return "-"
    return f"{min(values):5.0f} {statistics.median(values):5.0f} {max(values):5.0f}"


def test_speed_per_move_and_page_weight(lab_page):
    """Print the milliseconds per move (median / worst) and the page weight."""
    page = lab_page.page
    sliders = page.locator(".kpca-lab").nth(DENOISING).locator("input[type=range]")
    page.evaluate("() => { window.kpcaLabs[0].timings.length = 0; }")
    press_and_wait(page, sliders.nth(3), ["ArrowLeft"] * 10 + ["ArrowRight"] * 10)  # iterations
    press_and_wait(page, sliders.nth(2), ["ArrowLeft"] * 9)  # q 10 -> 1, each new
    press_and_wait(page, sliders.nth(0), ["ArrowRight"] * 3 + ["Home"])  # sigma, each new
    press_and_wait(page, sliders.nth(1), ["ArrowRight"] * 6)  # c, each new
    moves = page.evaluate("() => window.kpcaLabs[0].timings")
    for index, control in [(GRAM, "c"), (PCA_LAB, "angle")]:
        slider = page.locator(".kpca-lab").nth(index).locator("input[type=range]").first
        page.evaluate(f"() => {{ window.kpcaLabs[{index}].timings.length = 0; }}")
        press_and_wait(page, slider, ["ArrowRight"] * 8, lab=index)
        for move in page.evaluate(f"() => window.kpcaLabs[{index}].timings"):
            moves.append({**move, "control": f"{'gram' if index == GRAM else 'pca'} {control}"})
    rows = {}
    for move in moves:
        if move["control"] in ("sigma", "c") and not move.get("newFit"):
            continue  # a cached (sigma, c): not what this row measures
        rows.setdefault(move["control"], []).append(move)
    lines = [
        "milliseconds per move in headless Chromium (best, median, worst over the moves):",
        "  control     moves | kernel, eigenpairs, gamma | first drawing | "
        "iterations up to the slider drawn | Kwok–Tsang drawn | all 50 iterations",
    ]
    for control, group in rows.items():
        lines.append(
            f"  {control:10} {len(group):3}   | {summarise(group, 'preparedMs'):17} | "
            f"{summarise(group, 'firstDrawMs'):17} | {summarise(group, 'shownMs'):17} | "
            f"{summarise(group, 'kwokTsangMs'):17} | {summarise(group, 'settledMs')}"
        )
    weight = sum(lab_page.bytes.values())
    lines.append(f"page weight: {weight / 1e3:.0f} kB in {len(lab_page.bytes)} files")
    for url, size in sorted(lab_page.bytes.items()):
        lines.append(f"  {size / 1e3:7.1f} kB  {urlsplit(url).path}")
    print("\n" + "\n".join(lines))
    # every move was drawn; the numbers themselves are the report's, not assertions
    assert all("firstDrawMs" in move for move in moves)
    assert {"iterations", "q", "sigma", "c", "gram c", "pca angle"} <= set(rows)


NUMBERS_BOXES = """() => Array.from(document.querySelectorAll('.kpca-lab-numbers-box')).map(box => {
  const text = box.firstElementChild, holder = box.parentElement;
  return { contain: getComputedStyle(box).contain, holder: getComputedStyle(holder).display,
           column: getComputedStyle(holder.parentElement).display, live: text.getAttribute('aria-live'),
           height: box.clientHeight, text: Math.ceil(text.getBoundingClientRect().height), chars: text.textContent.length };
})"""


def test_numbers_lay_out_in_a_box_of_their_own_that_clips_nothing(lab_page):
    """kpcaLabCore.numbersBox: a layout boundary whose height follows its text, growing only.

    New numbers in a page lay out the whole page unless their box is a layout
    boundary: size-contained, and (in Chromium) not a flex item. Its height is
    set from its text, so a test that no text is clipped is what can fail.
    """
    page = lab_page.page
    boxes = page.evaluate(NUMBERS_BOXES)
    assert len(boxes) == 3
    for box in boxes:
        assert box["contain"] == "strict" and box["live"] == "polite" and box["chars"] > 100
        assert box["column"] == "flex" and box["holder"] == "block", box  # the holder is the flex item
        assert 0 < box["text"] <= box["height"], box
    heights, texts = [boxes[DENOISING]["height"]], [boxes[DENOISING]["text"]]
    for changes in [{"n_components": 1}, {"sigma": 0.2, "c": 0.001, "n_components": 12, "n_iter": 20},
                    {"sigma": 0.05, "c": 10.0, "n_components": 3, "n_iter": 50},
                    {"sigma": 0.1, "c": 0.04, "n_components": 10, "n_iter": 30}]:
        busy = page.evaluate("""(changes) => {
          const lab = window.kpcaLabs[0], idle = lab.set(changes), busy = lab.numbers.getAttribute('aria-busy');
          return idle.then(() => [busy, lab.numbers.getAttribute('aria-busy')]);
        }""", changes)
        assert busy == ["true", "false"], busy  # a screen reader reads the numbers once they are final
        page.evaluate(TWO_FRAMES)
        box = page.evaluate(NUMBERS_BOXES)[DENOISING]
        assert box["text"] <= box["height"], (changes, box)  # nothing clipped
        heights.append(box["height"])
        texts.append(box["text"])
    # at one width the box only grows, so the panels below it do not jump as lines come and go
    assert heights == sorted(heights) and max(texts) == heights[-1]
    assert texts[-1] < heights[-1], texts  # (the sweep did shrink the text)
    # a new width fits the box to its text again, smaller too
    for width in (390, 1280):
        page.set_viewport_size({"width": width, "height": 900})
        page.evaluate(TWO_FRAMES)
        for box in page.evaluate(NUMBERS_BOXES):
            assert box["height"] == box["text"], (width, box)
    assert page.evaluate(NUMBERS_BOXES)[DENOISING]["height"] < heights[-1]


def test_phone_width_sharp_canvases_and_screenshots(chromium, lab_server):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for name, width, scale in [("desktop", 1280, 1), ("phone", 390, 3)]:
        opened = LabPage(chromium, lab_server, width=width, height=844, scale=scale)
        page = opened.page
        # nothing wider than the screen: no sideways scrolling
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width
        canvases = page.evaluate(
            """() => Array.from(document.querySelectorAll('.kpca-lab canvas')).map(c =>
                 [c.width, c.height, c.getBoundingClientRect().width, c.getBoundingClientRect().height])"""
        )
        assert len(canvases) == 8  # de-noising: 3, Gram spectrum: 3, PCA: 2
        for pixels_wide, pixels_high, css_wide, css_high in canvases:
            # drawn at the device pixel ratio, so sharp on a high-DPI screen
            assert abs(pixels_wide - css_wide * scale) <= scale and abs(pixels_high - css_high * scale) <= scale
            assert css_wide <= width
        sizes = page.evaluate(
            """() => Array.from(document.querySelectorAll('.kpca-lab label, .kpca-lab output, .kpca-lab-legend, .kpca-lab-numbers'))
                 .map(e => parseFloat(getComputedStyle(e).fontSize))"""
        )
        assert min(sizes) >= 13, sizes  # readable at the default zoom
        for index, lab_name in [(DENOISING, "denoising"), (GRAM, "gram"), (PCA_LAB, "pca")]:
            lab = page.locator(".kpca-lab").nth(index)
            lab.scroll_into_view_if_needed()
            lab.screenshot(path=str(SCREENSHOTS / f"lab_{lab_name}_{name}.png"))
        opened.close()
    assert (SCREENSHOTS / "lab_denoising_phone.png").stat().st_size > 10_000


def test_payload_reaches_the_page_unchanged(lab_page):
    """The page parses the exact numbers the library drew (JSON floats round-trip)."""
    page = lab_page.page
    payload = lab_payload(page, DENOISING)
    expected = json.loads(denoising_lab().payload_json)
    assert payload == expected


# ---------------------------------------------------------------- the appendices' labs

@pytest.fixture(scope="module")
def appendix_server(tmp_path_factory):
    """URL of a page with appendix A's sparse PCA lab and appendix B's robust PCA lab."""
    directory = tmp_path_factory.mktemp("appendix-labs")
    page = write_lab_page(directory, [sparse_pca_lab(), robust_pca_lab()])
    with local_server(directory) as url:
        yield url + page


@pytest.fixture
def appendix_page(chromium, appendix_server):
    opened = LabPage(chromium, appendix_server, n_labs=2)
    yield opened
    opened.close()


def test_sparse_and_robust_pca_labs_match_kpca_lib(appendix_page):
    page = appendix_page.page
    print("\n" + format_report("sparse PCA lab against kpca_lib.SparsePCA:", check_sparse_pca(page, SPARSE)))
    print(format_report("robust PCA lab against kpca_lib.robust_pca:", check_robust_pca(page, ROBUST)))


def test_appendix_labs_keyboard_and_reset(appendix_page):
    page = appendix_page.page
    for index, keys in [(SPARSE, ["alpha", "n_components"]), (ROBUST, ["lam_factor", "rank", "n_corrupted"])]:
        lab = page.locator(".kpca-lab").nth(index)
        sliders = lab.locator("input[type=range]")
        assert sliders.count() == len(keys)
        initial = page.evaluate(f"() => window.kpcaLabs[{index}].state")
        for i, key in enumerate(keys):
            slider = sliders.nth(i)
            label = lab.locator(f"label[for='{slider.get_attribute('id')}']")
            assert label.count() == 1 and label.text_content().strip()
            shown = lab.locator(f"output[for='{slider.get_attribute('id')}']")
            before_text, before = shown.text_content(), page.evaluate(f"() => window.kpcaLabs[{index}].state")
            slider.focus()
            page.keyboard.press("ArrowLeft")
            page.evaluate(f"() => window.kpcaLabs[{index}].whenIdle()")
            after = page.evaluate(f"() => window.kpcaLabs[{index}].state")
            assert shown.text_content() != before_text, f"lab {index}, slider {i}: value shown did not change"
            assert after[key] != before[key], f"lab {index}, slider {i}"
            # the numbers' live region is busy while the sweeps run: read out once, when they end
            assert lab.locator(".kpca-lab-numbers").get_attribute("aria-busy") == "false"
            if index == ROBUST:  # "not converged" beside small residuals: the tolerance they must reach
                assert "converged when both ≤ 1e-7" in lab.locator(".kpca-lab-numbers").text_content()
        lab.get_by_role("button", name="reset to the appendix's setting").click()
        page.evaluate(f"() => window.kpcaLabs[{index}].whenIdle()")
        assert page.evaluate(f"() => window.kpcaLabs[{index}].state") == initial


def test_appendix_labs_speed_as_perceived(appendix_page):
    """Print the ms from a slider's input event to the second animation frame (the page's answer
    drawn) and to the frame after the last sweep is drawn, per slider (median, worst)."""
    page = appendix_page.page
    results = measure_latencies(page, APPENDIX_SWEEPS)
    print("\n" + latency_table(results))
    assert all(len(records) > 0 for records in results.values())


def hex_rgb(colour):
    """[r, g, b] of '#rgb' or '#rrggbb'."""
    digits = colour[1:] if len(colour) == 7 else "".join(2 * c for c in colour[1:])
    return [int(digits[i : i + 2], 16) for i in (0, 2, 4)]


def test_appendix_labs_at_phone_width_in_both_themes(chromium, appendix_server):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for name, width, scale in [("desktop", 1280, 1), ("phone", 390, 3)]:
        opened = LabPage(chromium, appendix_server, width=width, height=844, scale=scale, n_labs=2)
        page = opened.page
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width
        canvases = page.evaluate(
            """() => Array.from(document.querySelectorAll('.kpca-lab canvas')).map(c =>
                 [c.width, c.height, c.getBoundingClientRect().width, c.getBoundingClientRect().height])"""
        )
        assert len(canvases) == 5  # sparse PCA: heat map, non-zeros; robust PCA: entries, spectrum, support
        for pixels_wide, pixels_high, css_wide, css_high in canvases:
            assert abs(pixels_wide - css_wide * scale) <= scale and abs(pixels_high - css_high * scale) <= scale
            assert css_wide <= width
        for theme in ("light", "dark"):
            # the canvases redraw with the theme's colours (kpcaLabCore.onThemeChange)
            page.evaluate("t => { document.documentElement.dataset.theme = t; }", theme)
            page.wait_for_timeout(100)
            background = page.evaluate("() => window.kpcaLabCore.ink().background")
            for index, lab_name in [(SPARSE, "sparse_pca"), (ROBUST, "robust_pca")]:
                lab = page.locator(".kpca-lab").nth(index)
                corner = lab.locator("canvas").first.evaluate(
                    "c => Array.from(c.getContext('2d').getImageData(1, 1, 1, 1).data.slice(0, 3))")
                assert corner == hex_rgb(background), (theme, corner)
                lab.scroll_into_view_if_needed()
                lab.screenshot(path=str(SCREENSHOTS / f"lab_{lab_name}_{name}_{theme}.png"))
        opened.close()


# ---------------------------------------------------------------------------
# chapter 4's kernel PCA lab, on a page of its own
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def kernel_pca_server(tmp_path_factory):
    directory = tmp_path_factory.mktemp("kernel_pca_lab")
    page = write_lab_page(directory, [kernel_pca_lab()])
    with local_server(directory) as url:
        yield url + page


@pytest.fixture
def kernel_pca_page(chromium, kernel_pca_server):
    opened = LabPage(chromium, kernel_pca_server, n_labs=1)
    yield opened
    opened.close()


def kernel_pca_state(page):
    page.evaluate("() => window.kpcaLabs[0].whenIdle()")
    return page.evaluate("() => window.kpcaLabs[0].state")


def test_kernel_pca_lab_matches_kpca_lib(kernel_pca_page):
    report = check_kernel_pca(kernel_pca_page.page, 0)
    print("\n" + format_report("kernel PCA lab against kpca_lib (max errors):", report))


def test_kernel_pca_lab_controls_are_labelled_and_keyboard_operable(kernel_pca_page):
    page = kernel_pca_page.page
    lab = page.locator(".kpca-lab").first
    initial = lab_payload(page, 0)["settings"]
    controls = lab.locator("input[type=range], select")
    assert controls.count() == 9  # c, degree, q, map, pair x 2; data set, kernel, class
    for i in range(controls.count()):
        control = controls.nth(i)
        label = lab.locator(f"label[for='{control.get_attribute('id')}']")
        assert label.count() == 1 and label.text_content().strip()
    # each slider moves its setting by the keyboard (the degree once the kernel is polynomial)
    sliders = lab.locator("input[type=range]")
    for i, key in [(0, "c"), (2, "n_components"), (3, "component"), (4, "pair"), (5, "pair")]:
        before = kernel_pca_state(page)[key]
        sliders.nth(i).focus()
        page.keyboard.press("ArrowLeft" if i == 0 else "ArrowRight")
        assert kernel_pca_state(page)[key] != before, key
    assert kernel_pca_state(page)["pair"] == [2, 3]
    lab.get_by_label("kernel", exact=True).select_option("polynomial")
    assert sliders.nth(0).is_disabled() and not sliders.nth(1).is_disabled()
    sliders.nth(1).focus()
    page.keyboard.press("ArrowRight")
    state = kernel_pca_state(page)
    assert state["kernel"] == "polynomial" and state["degree"] == 3
    # degree 3 in the plane: 9 monomials of degree 1 to 3, so 9 components
    assert state["n_fitted"] == 9
    compare_kernel_pca(state)
    lab.get_by_role("button", name="reset to the chapter's setting").click()
    state = kernel_pca_state(page)
    assert {key: state[key] for key in initial} == initial


def test_kernel_pca_lab_draw_your_own_by_mouse_and_keyboard(kernel_pca_page):
    page = kernel_pca_page.page
    lab = page.locator(".kpca-lab").first
    lab.get_by_label("data set").select_option("draw your own")
    state = kernel_pca_state(page)
    # it starts from the points shown: the three rings, their halves kept
    assert len(state["points"]) == 600 and sum(p[3] for p in state["points"]) == 300
    lab.get_by_role("button", name="clear the points").click()
    assert kernel_pca_state(page)["points"] == []
    plane = lab.locator("canvas").first
    box = plane.bounding_box()
    lab.get_by_label("new points' class").select_option("1")
    for fx, fy in [(0.3, 0.3), (0.35, 0.3), (0.3, 0.35), (0.35, 0.35)]:
        page.mouse.click(box["x"] + fx * box["width"], box["y"] + fy * box["height"])
    lab.get_by_label("new points' class").select_option("0")
    for fx, fy in [(0.6, 0.6), (0.65, 0.6), (0.6, 0.65), (0.7, 0.7)]:
        page.mouse.click(box["x"] + fx * box["width"], box["y"] + fy * box["height"])
    state = kernel_pca_state(page)
    assert [p[2] for p in state["points"]] == [1] * 4 + [0] * 4
    assert [p[3] for p in state["points"]] == [False, True] * 4  # every second point of a class is held out
    assert state["n_fitted"] == 3  # four training points: three components at most
    compare_kernel_pca(state)
    # drag the last point: it moves, the others stay
    last = state["points"][-1]
    page.mouse.move(box["x"] + 0.7 * box["width"], box["y"] + 0.7 * box["height"])
    page.mouse.down()
    page.mouse.move(box["x"] + 0.8 * box["width"], box["y"] + 0.5 * box["height"], steps=5)
    page.mouse.up()
    moved = kernel_pca_state(page)
    assert len(moved["points"]) == 8 and moved["points"][:-1] == state["points"][:-1]
    assert moved["points"][-1][0] > last[0] + 0.1 and moved["points"][-1][1] > last[1] + 0.1
    compare_kernel_pca(moved)
    # the keyboard: the arrows move the cursor, Enter adds a point there, Delete removes the nearest
    plane.focus()
    page.keyboard.press("2")
    for key in ["ArrowRight", "ArrowRight", "ArrowUp", "Enter"]:
        page.keyboard.press(key)
    added = kernel_pca_state(page)
    assert len(added["points"]) == 9 and added["points"][-1][2] == 1
    extent = added["extent"]
    step = (extent[1] - extent[0]) / 40
    centre = [(extent[0] + extent[1]) / 2, (extent[2] + extent[3]) / 2]
    assert np.allclose(added["points"][-1][:2], [centre[0] + 2 * step, centre[1] + step])
    page.keyboard.press("Delete")
    assert kernel_pca_state(page)["points"] == moved["points"]


def test_kernel_pca_lab_speed_per_move(kernel_pca_page):
    """Print the perceived latency per move: input event to the second animation frame."""
    import sys
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from lab_latency_kernel_pca import SWEEP, sweep, table

    results = sweep(kernel_pca_page.page)
    print("\nkernel PCA lab, ms from the input event to the second animation frame:\n" + "\n".join(table(results)))
    assert set(results) == {control for control, _ in SWEEP}
    assert all(len(records) > 0 and all("frame" in r for r in records) for records in results.values())


def test_kernel_pca_lab_at_phone_width_and_in_the_dark_theme(chromium, kernel_pca_server):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for name, width, scale, theme in [("desktop", 1280, 1, "light"), ("phone", 390, 3, "dark")]:
        opened = LabPage(chromium, kernel_pca_server, width=width, height=844, scale=scale, n_labs=1)
        page = opened.page
        if theme == "dark":  # as the book's theme switch does
            page.evaluate("() => { document.documentElement.dataset.theme = 'dark'; }")
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width
        canvases = page.evaluate(
            """() => Array.from(document.querySelectorAll('.kpca-lab canvas')).map(c =>
                 [c.width, c.height, c.getBoundingClientRect().width, c.getBoundingClientRect().height])"""
        )
        assert len(canvases) == 3
        for pixels_wide, pixels_high, css_wide, css_high in canvases:
            assert abs(pixels_wide - css_wide * scale) <= scale and abs(pixels_high - css_high * scale) <= scale
            assert css_wide <= width
        sizes = page.evaluate(
            """() => Array.from(document.querySelectorAll('.kpca-lab label, .kpca-lab output, .kpca-lab-legend, .kpca-lab-numbers'))
                 .map(e => parseFloat(getComputedStyle(e).fontSize))"""
        )
        assert min(sizes) >= 13, sizes
        # the canvases are redrawn on the theme's background (a corner of the plane, outside its axes)
        corner = page.evaluate(
            """() => Array.from(document.querySelector('.kpca-lab canvas').getContext('2d').getImageData(1, 1, 1, 1).data)"""
        )
        expected = page.evaluate("() => window.kpcaLabCore.ink().background")
        hex_colour = expected.lstrip("#")
        if len(hex_colour) == 3:
            hex_colour = "".join(ch * 2 for ch in hex_colour)
        assert corner[:3] == [int(hex_colour[i:i + 2], 16) for i in (0, 2, 4)], (theme, corner, expected)
        lab = page.locator(".kpca-lab").first
        lab.screenshot(path=str(SCREENSHOTS / f"lab_kernel_pca_{name}_{theme}.png"))
        opened.close()


# ----------------------------------------------- themes, keyboard, latency (issue 27)
# Generic over the labs of the page: a lab added to the page is checked too.

CANVAS_PIXELS = """() => Array.from(document.querySelectorAll('.kpca-lab canvas')).map((canvas) => {
  const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
  let white = 0;
  for (let i = 0; i < data.length; i += 4) if (data[i] >= 250 && data[i + 1] >= 250 && data[i + 2] >= 250) white++;
  return { corner: Array.from(data.slice(0, 3)), white: white / (data.length / 4) };
})"""

LAB_BOXES = """() => Array.from(document.querySelectorAll('.kpca-lab')).map((lab) => {
  const style = getComputedStyle(lab), control = lab.querySelector('.kpca-lab-button');
  return { background: style.backgroundColor, color: style.color,
           button: control ? getComputedStyle(control).backgroundColor : null };
})"""


def luminance(css_or_rgb):
    """Relative luminance (0 black, 1 white) of 'rgb(r, g, b)' or [r, g, b]."""
    if isinstance(css_or_rgb, str):
        css_or_rgb = [float(v) for v in css_or_rgb[css_or_rgb.index("(") + 1:-1].split(",")[:3]]
    r, g, b = (((v / 255 + 0.055) / 1.055) ** 2.4 if v / 255 > 0.04045 else v / 255 / 12.92 for v in css_or_rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def switch_theme(page, theme):
    """Set the book's theme as its theme button does (data-theme on <html>); wait for the redraw."""
    page.evaluate(f"() => {{ document.documentElement.dataset.theme = '{theme}'; }}")
    page.evaluate(TWO_FRAMES)
    page.evaluate("() => Promise.all(window.kpcaLabs.map((lab) => lab.whenIdle()))")


def test_every_lab_follows_the_light_and_dark_theme(lab_page):
    """A switch to dark redraws every canvas on a dark background, the box and controls too."""
    page = lab_page.page
    light_pixels, light_boxes = page.evaluate(CANVAS_PIXELS), page.evaluate(LAB_BOXES)
    switch_theme(page, "dark")
    dark_pixels, dark_boxes = page.evaluate(CANVAS_PIXELS), page.evaluate(LAB_BOXES)
    assert len(dark_pixels) == len(light_pixels) >= 8
    for light, dark in zip(light_pixels, dark_pixels):
        assert luminance(light["corner"]) > 0.9 and luminance(dark["corner"]) < 0.05, (light, dark)
        # no white box on a dark page: not one pure white pixel is left
        assert dark["white"] == 0, dark
    for light, dark in zip(light_boxes, dark_boxes):
        assert luminance(light["background"]) > 0.9 and luminance(dark["background"]) < 0.05
        # the text stays readable: contrast of at least 7:1 on either theme
        for box in (light, dark):
            high, low = sorted([luminance(box["background"]), luminance(box["color"])], reverse=True)
            assert (high + 0.05) / (low + 0.05) >= 7, box
        if dark["button"]:
            assert luminance(dark["button"]) < 0.05
    switch_theme(page, "light")
    assert [p["corner"] for p in page.evaluate(CANVAS_PIXELS)] == [p["corner"] for p in light_pixels]
    assert lab_page.problems == []


def test_the_canvases_answer_the_keyboard(lab_page):
    """Chapter 1's plane turns w by the arrow keys; chapter 5's plane moves a cursor and Enter de-noises there."""
    page = lab_page.page
    plane = page.locator(".kpca-lab").nth(PCA_LAB).locator("canvas").first
    start = page.evaluate(f"() => window.kpcaLabs[{PCA_LAB}].state.angle")
    plane.focus()
    for key in ["ArrowRight"] * 4 + ["Shift+ArrowLeft"]:
        page.keyboard.press(key)
    state = page.evaluate(f"() => window.kpcaLabs[{PCA_LAB}].state")
    assert state["angle"] == pytest.approx((start + 4 * 0.5 - 5) % 180)
    w = np.radians(state["angle"])
    assert state["w"] == pytest.approx([np.cos(w), np.sin(w)], abs=1e-12)
    slider = page.locator(".kpca-lab").nth(PCA_LAB).locator("input[type=range]").first
    assert float(slider.input_value()) == pytest.approx(state["angle"])

    payload = lab_payload(page, DENOISING)
    plane = plane_of(page)
    before = page.evaluate("() => window.kpcaLabs[0].state.clicks.length")
    plane.focus()
    pixels_focused = plane.screenshot()
    for key in ["ArrowRight"] * 4 + ["ArrowUp"] * 2 + ["Shift+ArrowLeft"]:
        page.keyboard.press(key)
    assert plane.screenshot() != pixels_focused  # the cursor is drawn where it moved
    page.locator(".kpca-lab").nth(DENOISING).locator("select").select_option("new")
    plane.focus()
    page.keyboard.press("Enter")
    state = page.evaluate("() => window.kpcaLabs[0].state")
    assert len(state["clicks"]) == min(3, before + 1)
    click = state["clicks"][-1]
    assert click["start"] == pytest.approx([0.2 - 0.25, 0.1])
    reference = denoising_reference(payload, state["sigma"], state["c"], state["n_components"], state["n_iter"])
    expected = click_reference(reference, click["start"], "new", payload["trajectory_points"][0],
                               state["n_iter"], payload["tol"])
    assert float(np.max(np.abs(np.array(click["Z"]) - expected))) <= 1e-6
    # both planes are tab stops, labelled with what their keys do
    for index in (DENOISING, PCA_LAB):
        canvas = page.locator(".kpca-lab").nth(index).locator("canvas").first
        assert canvas.get_attribute("tabindex") == "0"
        assert "arrow keys" in canvas.get_attribute("aria-label")


def test_every_control_of_every_lab_answers_and_its_latency_is_printed(lab_page):
    """Input event -> second animation frame per control (tests/lab_latency.py); printed, not asserted."""
    from lab_latency import baseline, sweep_lab, table

    page = lab_page.page
    rows = []
    base = baseline(page)
    for index in range(page.evaluate("() => window.kpcaLabs.length")):
        for label, result in sweep_lab(page, index).items():
            rows.append(("lab page", result["kind"], label, result["class"], result["ms"], result["drawn"]))
    print("\nms from a control's input event to the second animation frame (under the machine's load)")
    print("\n".join(table(rows, base)))
    # every control answered its moves with an input event and a painted frame
    assert all(row[4] for row in rows), [row[:3] for row in rows if not row[4]]
    assert len(rows) >= 8
