"""The book's pages as ``_toc.yml`` lists them: chapter pages and their evidence sections.

A chapter is a page with the lesson and its exercises, followed by evidence
sections (``sections:`` in ``_toc.yml``, ``../shared/LESSONS.md``): pages
without exercises, which the coursework tools pass over and whose numbers run
on from the chapter page's.
"""

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def _toc():
    return yaml.safe_load((ROOT / "_toc.yml").read_text())


def _chapters():
    for part in _toc()["parts"]:
        for chapter in part["chapters"]:
            if chapter["file"].startswith("chapters/"):
                yield chapter


def notebook(entry):
    return ROOT / f"{entry['file']}.ipynb"


# the chapter pages, in reading order; each with its sections, in reading order
CHAPTER_PAGES = [notebook(chapter) for chapter in _chapters()]
SECTIONS = {notebook(chapter): [notebook(section) for section in chapter.get("sections", [])]
            for chapter in _chapters()}
SECTION_PAGES = [section for sections in SECTIONS.values() for section in sections]


def toc_files():
    """Every page of _toc.yml in reading order (the root, each chapter and its sections, the
    other pages), as the file names _toc.yml gives (no suffix)."""
    toc = _toc()
    files = [toc["root"]]

    def walk(entries):
        for entry in entries:
            files.append(entry["file"])
            walk(entry.get("sections", []))

    for part in toc["parts"]:
        walk(part["chapters"])
    return files
