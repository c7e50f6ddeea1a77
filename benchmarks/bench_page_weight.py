"""The weight of every page of the built book: its HTML, and everything it loads.

For each page: the HTML's size raw and gzipped, and the total with every
asset the page actually loads in headless Chromium (scripts, style sheets,
images, fonts, MathJax's components; everything on 127.0.0.1, nothing else
is allowed), raw and as sent gzipped (text compressed with gzip level 6, as a
web server would; images and fonts counted as they are). The heaviest
assets over the whole book follow. Sizes are deterministic: no load on the
machine changes them (``tests/test_book_in_browser.py`` asserts the limit of
issue 27, every chapter's HTML <= 600 kB).

The book is the one at ``--html`` (default: built from the committed
notebooks, execution off, into a temporary folder, as the browser test
builds it).

Run: PYTHONPATH=. .venv/bin/python benchmarks/bench_page_weight.py [--html _build/html]
"""

import argparse
import gzip
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from test_book_in_browser import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    book_pages,
    build_book,
    local_server,
    sync_api,
)

TEXT = (".html", ".js", ".css", ".svg", ".json", ".txt", ".map", ".xml")


def sizes(data, name):
    """(raw, as sent): text gzipped at level 6, binary files as they are."""
    sent = len(gzip.compress(data, 6, mtime=0)) if name.endswith(TEXT) else len(data)
    return len(data), sent


def loaded_files(page, url):
    """Paths (relative to the book) of every file the page loads, the page itself first."""
    seen = []
    page.on("response", lambda response: seen.append(response.url))
    page.goto(url, wait_until="load")
    # MathJax loads its fonts and components after the load event: wait for its typesetting
    page.evaluate("() => window.MathJax && MathJax.startup && MathJax.startup.promise")
    page.wait_for_timeout(1000)
    paths = []
    for address in seen:
        parts = urlsplit(address)
        if parts.hostname == "127.0.0.1" and parts.path not in paths:
            paths.append(parts.path)
    return paths


def measure(html, pages):
    """{page: (html raw, html sent, total raw, total sent, {asset: raw})}."""
    results = {}
    with local_server(html) as url, sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1280, "height": 900})

        def local(route):
            if urlsplit(route.request.url).hostname == "127.0.0.1":
                route.continue_()
            else:
                route.abort()

        context.route("**/*", local)
        for name in pages:
            page = context.new_page()
            total_raw = total_sent = 0
            assets = {}
            for path in loaded_files(page, url + name):
                file = html / path.lstrip("/")
                if file.is_dir():
                    file = file / "index.html"
                if not file.is_file():
                    continue
                raw, sent = sizes(file.read_bytes(), file.name)
                total_raw += raw
                total_sent += sent
                assets[path.lstrip("/")] = raw
            page.close()
            html_raw, html_sent = sizes((html / name).read_bytes(), name)
            results[name] = (html_raw, html_sent, total_raw, total_sent, assets)
        browser.close()
    return results


def report(results):
    lines = [f"{'page':<40} {'HTML kB':>9} {'gzip':>7} | {'with assets kB':>14} {'gzip':>7} {'files':>5}"]
    for name, (html_raw, html_sent, total_raw, total_sent, assets) in results.items():
        lines.append(f"{name:<40} {html_raw / 1e3:9.1f} {html_sent / 1e3:7.1f} | {total_raw / 1e3:14.1f} "
                     f"{total_sent / 1e3:7.1f} {len(assets):5d}")
    heaviest = {}
    for *_, assets in results.values():
        for asset, raw in assets.items():
            if not asset.endswith(".html"):
                heaviest[asset] = (raw, heaviest.get(asset, (0, 0))[1] + 1)
    lines.append("heaviest assets (kB raw, loaded by how many pages):")
    for asset, (raw, count) in sorted(heaviest.items(), key=lambda item: -item[1][0])[:10]:
        lines.append(f"  {raw / 1e3:8.1f}  {count:3d}  {asset}")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--html", type=Path, help="a built book's HTML folder (default: build one)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        html = args.html.resolve() if args.html else build_book(Path(directory) / "book")
        pages = [name for name in book_pages(html) if name != "index.html"]  # a redirect
        results = measure(html, pages)
    print(f"book: {args.html or 'built from the committed notebooks'}")
    print("\n".join(report(results)))


if __name__ == "__main__":
    main()
