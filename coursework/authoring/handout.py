"""What a handout adds to a chapter: readable text, one exercise per cell, answer cells, a version.

* :func:`book_index` collects what the chapter's references resolve to (the
  book's exercise, equation and section numbers, titles, sources);
* :func:`markdown_cells` turns one markdown cell of a chapter into the cells of
  the handout: the text in Jupyter Markdown (:mod:`.myst_markdown`), each
  exercise statement in a cell of its own, and each answer in a cell of its
  own, marked ``kpca_coursework: {"exercise", "number", "written": true}``
  so that written answers can be collected for hand grading (a derivation's,
  and the written part of a code exercise that declares one, start with
  ``*Your answer to Exercise 1.3:*``; ``state["written_parts"]`` holds
  those exercises' labels);
* :func:`chapter_version` is the version a handout records (a hash of what
  students see of the exercises: the statements, the stubs and the expected
  visible outputs, and the version of kpca_lib); :mod:`.version` compares
  a handout's recorded version with its chapter's.
"""

import copy
import hashlib
import json
import re
from importlib import metadata
from pathlib import Path

from .exercises import ANSWER_PLACEHOLDER, METADATA_KEY, chapter_token, exercise_numbers, solution_pieces
from .myst_markdown import (BookIndex, chapter_index, equation_numbers, exercise_blocks,
                            read_citations, to_markdown)

__all__ = ["book_index", "markdown_cells", "chapter_version", "kpca_lib_version", "recorded_entry"]


def kpca_lib_version():
    """The installed kpca_lib's version ("unknown" if it is not installed)."""
    try:
        return metadata.version("kpca-lib")
    except metadata.PackageNotFoundError:
        return "unknown"


def _chapter_numbers(nb, name):
    try:
        chapter_token(name)
    except ValueError:  # not a chapter of the book (a test's notebook, say): labels stay labels
        return None, {}, {}
    return chapter_token(name), exercise_numbers(nb, name), equation_numbers(nb, name)


def book_index(nb, name, others=(), bib=None):
    """What the references of chapter ``nb`` resolve to.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        The chapter.
    name : str
        Its file name (``"04_kernel_pca.ipynb"``), which gives its number.
    others : iterable of (notebook, name), optional
        The book's other chapters, for references across chapters.
    bib : str or Path, optional
        The book's BibTeX file, for citations.
    """
    token, _, equations = _chapter_numbers(nb, name)
    book = BookIndex(token=token)
    for other, other_name in [*others, (nb, name)]:
        other_token, numbers, other_equations = _chapter_numbers(other, other_name)
        # labels are the book's, across chapters; an unlabelled equation is keyed by its text
        book.equations.update({key: number for key, number in other_equations.items()
                               if re.fullmatch(r"[\w.:-]+", key)})
        title, sections, cited = chapter_index(other, other_name)
        book.exercises.update(numbers)
        book.sections.update({label: (text, other_token) for label, text in sections.items()})
        book.titles[Path(other_name).stem] = title
        if other is nb:
            book.cited = cited
    book.equations.update(equations)
    if bib is not None and Path(bib).is_file():
        book.citations = read_citations(Path(bib).read_text(encoding="utf-8"))
    return book


def recorded_entry(nb):
    """The notebook's ``kpca_coursework`` metadata, or {} if it has none (or not a mapping)."""
    entry = nb.get("metadata", {}).get(METADATA_KEY)
    return entry if isinstance(entry, dict) else {}


def _exercise_name(label, book):
    number = book.exercises.get(label)
    return f"Exercise {number or label}"


def markdown_cells(cell, state, book, where):
    """The handout cells made from one markdown cell of a chapter (see the module docstring)."""
    pieces = solution_pieces(cell.source, state, where) or [("text", cell.source.splitlines())]
    made, current, after_exercise, only_header = [], [], False, False

    def flush():
        nonlocal current, only_header
        text = to_markdown("\n".join(current), book)
        if text.strip():
            made.append((text, None))
        current, only_header = [], False

    for piece in pieces:
        if piece[0] == "text":
            for kind, lines in exercise_blocks(piece[1]):
                if kind == "exercise":
                    flush()
                    current, after_exercise = list(lines), True
                    continue
                if (after_exercise or only_header) and any(line.strip() for line in lines):
                    flush()
                    after_exercise = False
                current += lines
        elif piece[0] == "start":  # joins the statement when it follows it in the same cell
            only_header = not any(line.strip() for line in current)
            current += ["", f"*Your solution to {_exercise_name(piece[1], book)}:*"]
        else:
            label, kind = piece[1], piece[2]
            # a derivation's answer, or the written part of a code exercise (graded by hand), says whose it is
            by_hand = kind == "derivation" or label in state.get("written_parts", ())
            header = [f"*Your answer to {_exercise_name(label, book)}:*", ""] if by_hand else []
            if only_header:  # the solution's header, alone: it goes with the answer
                header, current = [to_markdown("\n".join(current), book), "", *header], []
            else:
                flush()
            entry = {"exercise": label, "number": book.exercises.get(label), "written": True}
            made.append(("\n".join([*header, ANSWER_PLACEHOLDER]), entry))
            after_exercise = only_header = False
    flush()
    return _as_cells(cell, made)


def _as_cells(cell, made):
    if len(made) == 1 and made[0][1] is None and made[0][0] == cell.source.strip("\n"):
        return [copy.deepcopy(cell)]  # nothing to convert: the cell stays exactly as it is
    cells = []
    for k, (text, entry) in enumerate(made):
        piece = copy.deepcopy(cell)
        piece.source = re.sub(r"\n{3,}", "\n\n", text)
        if k and "id" in piece:  # the first keeps the chapter's id; the others get new ones
            piece["id"] = f"{cell['id']}-{k}"[-64:]
        if entry is not None:
            piece.metadata[METADATA_KEY] = entry
        cells.append(piece)
    if not cells and not cell.source.strip():
        cells.append(copy.deepcopy(cell))  # an empty cell stays
    return cells


def chapter_version(nb, stubs):
    """The version a handout of this chapter records: {"exercises": hash, "kpca_lib": version}.

    The hash covers what students see of the exercises: every ``{exercise}``
    statement as written in the chapter, and each solution cell's stub and
    expected visible output (``stubs``: (exercise, part, stub source,
    outputs) in order). Hidden checks are not in it, so that grading against
    a private, re-seeded copy of the chapters gives the same version.
    """
    digest = hashlib.sha256()
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        lines = cell.source.splitlines()
        for kind, block in exercise_blocks(lines):
            if kind == "exercise":
                digest.update("\n".join(block).encode())
    for exercise, part, source, outputs in stubs:
        digest.update(json.dumps([exercise, part, source, seen_texts(outputs)], sort_keys=True).encode())
    return {"exercises": digest.hexdigest()[:16], "kpca_lib": kpca_lib_version()}


def seen_texts(outputs):
    """The texts a student sees in ``outputs``: consecutive chunks of one stream joined.

    How a kernel split a cell's printed text into stream outputs depends on
    timing (``nbconvert --execute`` of the same chapter can give one block or
    several), not on what the student reads, so the version must not depend
    on it. A single chunk gives the same list as before chunks were joined,
    so handouts made earlier keep their version.

    Examples
    --------
    >>> from nbformat.v4 import new_output
    >>> seen_texts([new_output("stream", name="stdout", text="a\\n"),
    ...             new_output("stream", name="stdout", text="b\\n")])
    ['a\\nb\\n']
    """
    texts, previous = [], None
    for output in outputs:
        stream = output.get("name") if output.get("output_type") == "stream" else None
        text = output.get("text") or output.get("data", {}).get("text/plain", "")
        text = "".join(text) if isinstance(text, list) else text
        if stream is not None and stream == previous:
            texts[-1] += text
        else:
            texts.append(text)
        previous = stream
    return texts
