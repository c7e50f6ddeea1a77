"""Sphinx extension of this book: numbers per chapter (Exercise 4.2, eq. (5.3), Exercise A.1).

Sphinx numbers figures, tables, equations and sphinx-exercise's exercises
(``numfig``) per *section number* of a numbered toctree; the book's table of
contents is not numbered (its chapters are titled "1 ...", and the appendices
are lettered), so Sphinx counts each kind straight through the book: chapter
4's second exercise was "Exercise 17" and chapter 5's third equation "(57)".

After Sphinx has assigned its numbers (``env-get-updated``, after the toctree
collector), this extension renumbers every page: in a chapter the k-th
numbered item of a kind becomes ``(token, k)``, printed "4.2", where the token
is the chapter's number or the appendix's letter, the part of the file name
before the first ``_`` without leading zeros (``chapters/04_kernel_pca`` -> 4,
``chapters/A_sparse_pca`` -> A); on any other page (the intro, the library's
reference, the instructor guide) it becomes plain ``k``, counted on that page.

A chapter is its page and its evidence sections (``_toc.yml`` ``sections:``,
files named ``chapters/04_kernel_pca_<topic>``, so they share the token): the
count runs on from the chapter page through its sections, in the order of the
table of contents, so that "(4.9)" names one equation in the whole chapter.
Sphinx counts straight through the book in that order, so its numbers give it. Exercises with
``:nonumber:`` are not numbered by sphinx-exercise, so they are not counted:
this is the rule of ``coursework.authoring.exercises.exercise_numbers``, which
the grader and the handouts use, and ``tests/test_book_in_browser.py`` checks
that the built book prints those numbers.

Every reader of a number takes it from ``env.toc_fignumbers``: the captions
("Exercise 4.2"), ``{numref}``, ``{ref}`` to an exercise (sphinx-exercise turns
it into a numref), ``{eq}`` and the equation's own "(5.3)", and
sphinx-exercise's "Solution to Exercise 4.2", so they all agree.
"""

import re

# "04_kernel_pca" -> "04", "A_sparse_pca" -> "A": a chapter number or an appendix letter
_CHAPTER = re.compile(r"^(?:(?P<number>\d+)|(?P<letter>[A-Z]))_")


def chapter_token(docname):
    """The chapter's number or appendix letter of a page (``"4"``, ``"A"``), or None."""
    match = _CHAPTER.match(docname.rsplit("/", 1)[-1])
    if match is None:
        return None
    if match["letter"]:
        return match["letter"]
    return str(int(match["number"])) if int(match["number"]) > 0 else None


def per_chapter(numbers, token):
    """Renumber one page's items of one kind 1, 2, ... in their order, under the token.

    Parameters
    ----------
    numbers : dict of str to tuple
        Sphinx's numbers of the page's items (node id -> number), which grow
        in the order of the page.
    token : str or None
        The chapter's number or letter; None for a page outside the chapters.

    Returns
    -------
    dict of str to tuple
    """
    return per_chapter_pages({"": numbers}, token)[""]


def per_chapter_pages(pages, token):
    """Renumber the items of one kind over all the pages of one chapter (or one other page).

    Parameters
    ----------
    pages : dict of str to dict
        docname -> Sphinx's numbers of that page's items (node id -> number);
        Sphinx counts straight through the book, in the order of the table of
        contents, so the numbers order the items over the pages too.
    token : str or None
        The chapter's number or letter; None for a single page outside the chapters.

    Returns
    -------
    dict of str to dict
        docname -> node id -> ``(token, k)``, k counted 1, 2, ... over all the pages.
    """
    items = [(number, docname, node_id) for docname, numbers in pages.items()
             for node_id, number in numbers.items()]
    prefix = () if token is None else (token,)
    renumbered = {docname: {} for docname in pages}
    for k, (_, docname, node_id) in enumerate(sorted(items), start=1):
        renumbered[docname][node_id] = (*prefix, k)
    return renumbered


def renumber(app, env):
    """Number every chapter's figures, tables, equations and exercises per chapter."""
    # (token or the page itself, figtype) -> docname -> Sphinx's numbers
    groups = {}
    for docname, kinds in env.toc_fignumbers.items():
        token = chapter_token(docname)
        for figtype, numbers in kinds.items():
            groups.setdefault((token or ("page", docname), figtype), {})[docname] = numbers
    for (group, figtype), pages in groups.items():
        token = group if isinstance(group, str) else None
        for docname, numbers in per_chapter_pages(pages, token).items():
            env.toc_fignumbers[docname][figtype] = numbers
    # the pages whose numbers differ from the last build's are already listed by
    # the toctree collector, which compared its own numbers with these
    return []


def setup(app):
    # after the toctree collector (default priority 500) has assigned Sphinx's numbers
    app.connect("env-get-updated", renumber, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
