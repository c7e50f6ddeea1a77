"""Sphinx extension of this book: bibliography labels that read like the citations.

The chapters cite author-year (``bibtex_reference_style: author_year``):
"[Schölkopf *et al.*, 1998]". sphinxcontrib-bibtex's default list style,
pybtex's ``alpha``, labels the same entry "[Sch98]" in the chapter's
bibliography, so a reader cannot match a citation with its entry at a glance.

This module registers, with pybtex's plugin registry (the mechanism
sphinxcontrib-bibtex 2.7.0 documents for custom styles), a label style
``kpca_author_year`` whose label of an entry is the text of its author-year
citation, made by the same template sphinxcontrib-bibtex uses for the
citation (:class:`AuthorYearReferenceStyle`: "Bishop, 2006", "Schölkopf and
Smola, 2002", "Schölkopf et al., 1998", the editors or the title when there
is no author), and a formatting style ``kpca_author_year``: pybtex's
``alpha`` (entries sorted by author, year and title) with those labels.
``_config.yml`` selects it with ``bibtex_default_style``. Two works that
would be cited alike get "1999a" and "1999b" (:func:`tell_apart_same_author_year`).
"""

from collections import defaultdict

from pybtex.plugin import register_plugin
from pybtex.style.formatting.alpha import Style as AlphaStyle
from pybtex.style.labels import BaseLabelStyle
from sphinxcontrib.bibtex.style.referencing.author_year import AuthorYearReferenceStyle
from sphinxcontrib.bibtex.style.template import join, year

STYLE_NAME = "kpca_author_year"
# the citations' style: its person style ("et al." after the first of three or more
# authors) and its separator between the names and the year
CITING = AuthorYearReferenceStyle()


def citation_text(entry):
    """The text of the author-year citation of a pybtex entry: "Schölkopf et al., 1998"."""
    template = join(sep=CITING.author_year_sep)[
        CITING.person.author_or_editor_or_title(full=False), year
    ]
    return template.format_data({"entry": entry, "style": CITING}).render_as("text")


class AuthorYearLabelStyle(BaseLabelStyle):
    """Each entry's label is the text of its author-year citation."""

    def format_labels(self, sorted_entries):
        for entry in sorted_entries:
            yield citation_text(entry)


class AuthorYearStyle(AlphaStyle):
    """pybtex's alpha list style (sorted by author, year, title) with author-year labels."""

    default_label_style = STYLE_NAME


register_plugin("pybtex.style.labels", STYLE_NAME, AuthorYearLabelStyle)
register_plugin("pybtex.style.formatting", STYLE_NAME, AuthorYearStyle)


def tell_apart_same_author_year(app):
    """Give works cited alike "1999a", "1999b", ... (by title) in the text and the lists.

    Two works with the same authors (or the same first author and "et al.")
    and year would be cited alike in the text, and, since their labels are the
    citations' text, labelled alike: the reader could not tell which one a
    citation means, and sphinxcontrib-bibtex warns of a duplicate label. As
    author-year bibliographies do, the year of each gets a letter, in the order
    of their titles, in the book's parsed copy of ``references.bib`` (the file
    is untouched), so the citation, the label and the entry all say "1999a".
    """
    entries = app.env.get_domain("cite").bibdata.data.entries
    alike = defaultdict(list)
    for entry in entries.values():
        alike[citation_text(entry)].append(entry)
    for same in alike.values():
        if len(same) < 2 or "year" not in same[0].fields:
            continue
        for letter, entry in zip("abcdefghijklmnopqrstuvwxyz",
                                 sorted(same, key=lambda e: e.fields.get("title", ""))):
            entry.fields["year"] += letter


def setup(app):
    # after sphinxcontrib-bibtex has parsed the .bib files (its builder-inited, priority 500)
    app.connect("builder-inited", tell_apart_same_author_year, priority=600)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
