"""A pytest plugin of the self-check: the text each notebook cell printed, written to a JSON file.

nbval's failure message shows a diff, not what the cell printed; the
self-check needs the printed text to tell "the expected output and more" (a
print left in a function, which passes with a note, as the grader judges it)
from a wrong answer. Loaded with ``-p coursework.authoring.cell_outputs``; the
file is named by the environment variable ``KPCA_CELL_OUTPUTS``.
"""

import json
import os

import pytest

OUTPUTS_VARIABLE = "KPCA_CELL_OUTPUTS"
_PRINTED = {}


def printed_text(outputs):
    """The text of a cell's outputs: its streams and the plain text of its results."""
    parts = []
    for output in outputs or []:
        if output.get("output_type") == "stream":
            text = output.get("text", "")
        elif output.get("output_type") in ("execute_result", "display_data"):
            text = (output.get("data") or {}).get("text/plain", "")
        else:
            continue
        parts.append("".join(text) if isinstance(text, list) else str(text))
    return "".join(parts)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    yield
    if call.when == "call" and getattr(item, "cell_num", None) is not None:
        _PRINTED[int(item.cell_num)] = printed_text(getattr(item, "test_outputs", None))


def pytest_sessionfinish(session):
    target = os.environ.get(OUTPUTS_VARIABLE)
    if target:
        with open(target, "w", encoding="utf-8") as file:
            json.dump({str(number): text for number, text in _PRINTED.items()}, file)
