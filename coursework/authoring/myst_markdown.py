"""MyST to Jupyter Markdown: a chapter's text as JupyterLab renders it, with the book's numbers.

The chapters are written in MyST, which only the book understands. In
JupyterLab, a ``{exercise}`` fence is a code block (its maths, bold and
references shown as typed), and a role such as ``{eq}`eq-gram-alpha``` stays
as typed. :func:`to_markdown` rewrites a cell's MyST as plain Markdown:

* ``{exercise}`` becomes "**Exercise 4.2**" and its text; ``{math}`` and
  ``$$ ... $$ (label)`` become ``$$`` blocks numbered as the book numbers them
  (``\\tag{4.3}``: the k-th numbered display equation of chapter 4 is (4.k);
  with ``math_number_all`` every ``{math}`` block is numbered);
* admonitions become block quotes with a bold title;
* ``{eq}``, ``{ref}``, ``{numref}`` and ``{doc}`` become the book's numbers and
  titles ("(4.3)", "Exercise 4.2", a section's title), ``{cite}`` becomes
  "(Author, year)", ``{bibliography}`` the list of the chapter's sources, and
  ``(label)=`` targets are removed;
* everything else (Markdown, ``$...$`` maths, code blocks) is kept as it is,
  so that converting a converted text changes nothing.

Examples
--------
>>> book = BookIndex(token="4", exercises={"ch4-ex2": "4.2"}, equations={"eq-a": "4.1"})
>>> print(to_markdown("```{exercise}\\n:label: ch4-ex2\\n\\nShow {eq}`eq-a`.\\n```", book))
**Exercise 4.2**
<BLANKLINE>
Show (4.1).
"""

import re
from dataclasses import dataclass, field

from .exercises import _ANY_FENCE, _DIRECTIVE_FENCE, _closes, chapter_token
from .exercises import directive_options as _options

__all__ = ["BookIndex", "to_markdown", "exercise_blocks", "equation_numbers", "chapter_index",
           "read_citations"]

_TARGET = re.compile(r"^\s*\([\w.:-]+\)=\s*$")
_ROLE = re.compile(r"\{(?P<name>[\w:-]+)\}`(?P<text>[^`]*)`")
_EXPLICIT = re.compile(r"^(?P<text>.*?)\s*<(?P<target>[^<>]+)>$", re.S)
_LABELLED_DOLLARS = re.compile(r"\$\$\s*\((?P<label>[\w.:-]+)\)\s*$")
_ADMONITIONS = {"note", "warning", "tip", "important", "hint", "caution", "attention", "danger",
                "error", "seealso"}


@dataclass
class BookIndex:
    """What a chapter's references resolve to: the book's numbers and titles.

    Attributes
    ----------
    token : str
        The chapter's number as the book prints it (``"4"``, ``"A"``).
    exercises : dict
        Exercise label -> number (``"4.2"``), of every chapter known.
    equations : dict
        Equation label (or, for an unlabelled ``{math}`` block, its text) ->
        number (``"4.3"``), of this chapter.
    sections : dict
        Section label -> (title, chapter token).
    titles : dict
        Document name (``"03_kernels"``) -> its title.
    citations : dict
        Bibliography key -> (authors, year, title).
    """

    token: str
    exercises: dict = field(default_factory=dict)
    equations: dict = field(default_factory=dict)
    sections: dict = field(default_factory=dict)
    titles: dict = field(default_factory=dict)
    citations: dict = field(default_factory=dict)
    cited: list = field(default_factory=list)
    # what a handout made with this index could not resolve (a citation key, a label), shown as typed
    unresolved: set = field(default_factory=set)


def _fenced(lines, start, fence):
    """Index of the line closing the fence opened at ``start`` (len(lines) if none)."""
    j = start + 1
    while j < len(lines) and not _closes(lines[j], fence):
        j += 1
    return j


def _math_key(label, body):
    return label or "\n".join(line.strip() for line in body if line.strip())


def equation_numbers(nb, name):
    """The book's number of every numbered display equation of a chapter: ``{label: "4.3"}``.

    Numbered, in the order of the page, are every ``{math}`` block (the book
    sets ``math_number_all``) and every ``$$ ... $$ (label)``; an unlabelled
    ``{math}`` block is keyed by its text. Solutions count: the book numbers
    them too.
    """
    token, numbers = chapter_token(name), {}
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        lines = cell.source.splitlines()
        for i, line in enumerate(lines):
            directive = _DIRECTIVE_FENCE.match(line)
            if directive and directive["name"] == "math":
                options, body = _options(lines[i + 1:_fenced(lines, i, directive["fence"])])
                numbers.setdefault(_math_key(options.get("label"), body), f"{token}.{len(numbers) + 1}")
            elif labelled := _LABELLED_DOLLARS.search(line):
                numbers.setdefault(labelled["label"], f"{token}.{len(numbers) + 1}")
    return numbers


def chapter_index(nb, name):
    """(title, sections, cited keys) of a chapter: its first ``#`` heading, its ``(label)=``
    sections as {label: title}, and the bibliography keys it cites, in order."""
    title, sections, cited = None, {}, []
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        lines = cell.source.splitlines()
        for i, line in enumerate(lines):
            if title is None and line.startswith("# "):
                title = line[2:].strip()
            if _TARGET.match(line):
                heading = next((text for text in lines[i + 1:] if text.strip()), "")
                sections[line.strip()[1:-2]] = heading.lstrip("#").strip()
            for role in _ROLE.finditer(line):
                if role["name"].startswith("cite"):
                    cited += [key.strip() for key in role["text"].split(",") if key.strip() not in cited]
    return title or name, sections, cited


_ACCENTS = {'"': "\u0308", "'": "\u0301", "`": "\u0300", "^": "\u0302", "~": "\u0303", "c": "\u0327"}


def _plain_tex(text):
    """A bibliography field without TeX: accents composed, braces removed."""
    import unicodedata

    text = re.sub(r"\{?\\([\"'`^~c])\s*\{?(\w)\}?\}?", lambda m: m[2] + _ACCENTS[m[1]], text)
    return unicodedata.normalize("NFC", re.sub(r"[{}]", "", text)).replace("--", "\u2013")


def read_citations(bib_text):
    """``{key: (authors, year, title)}`` of a BibTeX file (authors by family name, "et al." past two)."""
    citations = {}
    for entry in re.finditer(r"@\w+\s*\{\s*([^,\s]+)\s*,(.*?)\n\}", bib_text, re.S):
        fields = {m[1].lower(): m[2] for m in re.finditer(r"(\w+)\s*=\s*\{((?:[^{}]|\{[^{}]*\})*)\}",
                                                          entry[2])}
        names = [_plain_tex(n).split(",")[0].strip() for n in fields.get("author", "").split(" and ")]
        names = [n.split()[-1] if n and "," not in fields.get("author", ",") else n for n in names]
        authors = (" and ".join(names) if len(names) <= 2 else f"{names[0]} et al.") or "Anonymous"
        citations[entry[1]] = (authors, fields.get("year", "n.d."), _plain_tex(fields.get("title", "")))
    return citations


def _citation(key, book):
    found = book.citations.get(key) or book.citations.get(re.sub(r"^ch\w+?-", "", key))
    if not found:
        book.unresolved.add(f"citation {key}")
    return found or (key, "", "")


def _reference(name, text, book):
    """The text a cross-reference role stands for."""
    explicit = _EXPLICIT.match(text)
    shown, target = (explicit["text"], explicit["target"]) if explicit else (None, text.strip())
    if name == "eq":
        if target not in book.equations:
            book.unresolved.add(f"equation {target}")
        return f"({book.equations.get(target, target)})"
    if name in ("ref", "numref") and target in book.exercises:
        number = book.exercises[target]
        if shown:
            return shown.replace("%s", number).replace("{number}", number)
        return f"Exercise {number}"
    if name in ("ref", "numref") and target in book.sections:
        return shown or book.sections[target][0]  # the section's title, as the book shows it
    if name == "doc":
        return shown or book.titles.get(target.rsplit("/", 1)[-1]) or _chapter_name(target)
    if not shown:
        book.unresolved.add(f"label {target}")
    return shown or target


def _chapter_name(target):
    """A chapter the handout has no title for (made from a lone chapter): "Chapter 3", "Appendix C".

    >>> _chapter_name("C_kernel_pca_at_scale"), _chapter_name("../03_kernels"), _chapter_name("intro")
    ('Appendix C of the book', 'Chapter 3 of the book', 'intro')
    """
    try:
        token = chapter_token(target)
    except ValueError:
        return target
    return f"{'Chapter' if token.isdigit() else 'Appendix'} {token} of the book"


def _inline(line, book):
    def replace(role):
        name, text = role["name"], role["text"]
        if name in ("eq", "ref", "numref", "doc"):
            return _reference(name, text, book)
        if name.startswith("cite"):
            found = [_citation(key.strip(), book) for key in text.split(",") if key.strip()]
            if name in ("cite:t", "cite:t:"):
                return "; ".join(f"{authors} ({year})" for authors, year, _ in found)
            return "(" + "; ".join(f"{authors}, {year}" if year else authors
                                   for authors, year, _ in found) + ")"
        if name == "math":
            return f"${text}$"
        return text

    return _ROLE.sub(replace, line)


def _display_math(body, number, indent):
    """A ``$$`` block that JupyterLab's MathJax renders, with the book's number as its tag."""
    parts = [[]]
    for line in body:
        if line.strip():
            parts[-1].append(line.strip())
        elif parts[-1]:
            parts.append([])
    parts = [part for part in parts if part]
    content = " \\\\\n".join("\n".join(part) for part in parts)
    if ("\\\\" in content or "&" in content) and not content.lstrip().startswith("\\begin"):
        # Sphinx wraps every display in an aligned environment: line breaks and & need one
        content = f"\\begin{{aligned}}\n{content}\n\\end{{aligned}}"
    lines = ["$$", *content.splitlines()]
    if number:
        lines.append(f"\\tag{{{number}}}")
    lines.append("$$")
    return [indent + line for line in lines]


def _quote(lines):
    return [f"> {line}" if line.strip() else ">" for line in lines]


def _directive(name, argument, body, book, indent):
    """The Markdown lines of one directive."""
    options, content = _options(body)
    if name == "math":
        number = book.equations.get(_math_key(options.get("label"), content))
        return _display_math(content, number, indent)
    inner = _convert(content, book)
    if name == "exercise":
        label = options.get("label")
        number = None if "nonumber" in options else book.exercises.get(label, label)
        heading = f"**Exercise {number}**" if number else "**Exercise**"
        heading += f" ({_inline(argument, book)})" if argument else ""
        return [heading, "", *inner]
    if name == "admonition" or name in _ADMONITIONS:
        title = _inline(argument, book) if name == "admonition" else name.capitalize()
        return _quote([f"**{title}**" if title else "", "", *inner] if title else inner)
    if name == "bibliography":
        prefix = options.get("keyprefix", "")
        keys = [key for key in book.cited if key.startswith(prefix)]
        return [f"- {authors} ({year}). *{title}*." for authors, year, title in
                (_citation(key, book) for key in keys)]
    return inner


def _convert(lines, book):
    out, i = [], 0
    while i < len(lines):
        line = lines[i]
        directive = _DIRECTIVE_FENCE.match(line)
        fence = _ANY_FENCE.match(line)
        indent = line[:len(line) - len(line.lstrip())]
        if directive:
            end = _fenced(lines, i, directive["fence"])
            out += _directive(directive["name"], directive["argument"], lines[i + 1:end], book, indent)
            i = end + 1
        elif fence:
            end = _fenced(lines, i, fence["fence"])
            out += lines[i:end + 1]
            i = end + 1
        elif _TARGET.match(line):
            i += 1
        elif line.strip().startswith("$$"):
            i = _dollar_block(lines, i, book, indent, out)
        else:
            out.append(_inline(line, book))
            i += 1
    return out


def _dollar_block(lines, i, book, indent, out):
    """Copy the ``$$`` block opened at line ``i`` to ``out`` (numbered if labelled); the next index."""
    rest = lines[i].strip()[2:]
    if "$$" in rest:  # on one line
        end, body, after = i, [rest[:rest.index("$$")]], rest[rest.index("$$") + 2:]
    else:
        end = i + 1
        while end < len(lines) and "$$" not in lines[end]:
            end += 1
        if end == len(lines):  # never closed: leave it as it is
            out += lines[i:]
            return end
        closing = lines[end].strip()
        body = [rest, *lines[i + 1:end], closing[:closing.index("$$")]]
        after = closing[closing.index("$$") + 2:]
    label = re.fullmatch(r"\s*\((?P<label>[\w.:-]+)\)\s*", after)
    if label:
        out += _display_math(body, book.equations.get(label["label"]), indent)
    else:  # JupyterLab renders a plain $$ block as it is
        out += lines[i:end + 1]
    return end + 1


def to_markdown(source, book):
    """The Jupyter Markdown of a cell's MyST ``source`` (see the module docstring)."""
    return "\n".join(_convert(source.splitlines(), book)).strip("\n")


def exercise_blocks(lines):
    """Cut text at its top-level ``{exercise}`` directives: a list of ("exercise" | "text", lines)."""
    blocks, i = [], 0
    while i < len(lines):
        directive = _DIRECTIVE_FENCE.match(lines[i])
        fence = _ANY_FENCE.match(lines[i])
        if directive and directive["name"] == "exercise":
            end = _fenced(lines, i, directive["fence"])
            blocks.append(("exercise", lines[i:end + 1]))
            i = end + 1
            continue
        end = _fenced(lines, i, fence["fence"]) + 1 if fence else i + 1
        if blocks and blocks[-1][0] == "text":
            blocks[-1][1].extend(lines[i:end])
        else:
            blocks.append(("text", list(lines[i:end])))
        i = end
    return blocks
