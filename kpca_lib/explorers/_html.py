"""The HTML page of a rendered :class:`~kpca_lib.explorers.StaticExplorer`.

Self-contained: a range input per slider, the values beside them, the image
of the current setting, its caption, and a few lines of plain JavaScript that
swap image and caption. Nothing is loaded from anywhere.
"""

import base64
import hashlib
import html
import json
import re

__all__ = ["explorer_html"]


_EXPLORER_SCRIPT = """(function () {
  var root = document.getElementById("%(uid)s");
  var data = %(data)s;
  var inputs = root.querySelectorAll("input[type=range]");
  var shown = root.querySelectorAll("output");
  var image = root.querySelector("img");
  var caption = root.querySelector(".kpca-explorer-caption");
  function update() {
    var setting = 0;
    for (var i = 0; i < inputs.length; i++) {
      var position = parseInt(inputs[i].value, 10);
      setting = setting * data.sizes[i] + position;
      shown[i].textContent = data.labels[i][position];
    }
    image.src = "data:image/png;base64," + data.frames[data.frame[setting]];
    caption.textContent = data.captions[setting];
  }
  for (var i = 0; i < inputs.length; i++) {
    inputs[i].addEventListener("input", update);
  }
  update();
})();"""


def explorer_html(explorer, sliders):
    """Self-contained HTML of a rendered explorer (no external resource).

    The element ids hash the name, the slider values and the captions, not
    the pictures: the ids stay the same on a machine whose round-off moves
    a pixel.
    """
    data = {
        "sizes": [len(slider.values) for slider in sliders],
        "labels": [slider.value_labels for slider in sliders],
        "frame": explorer.frame_of_setting_.tolist(),
        "captions": explorer.captions_,
        "frames": [base64.b64encode(png).decode("ascii") for png in explorer.frames_],
    }
    payload = json.dumps(data, separators=(",", ":"), sort_keys=True)
    facts = json.dumps([explorer.name, data["labels"], data["captions"]], sort_keys=True)
    slug = re.sub(r"[^a-z0-9]+", "-", explorer.name.lower()).strip("-") or "explorer"
    uid = f"kpca-explorer-{slug}-{hashlib.sha1(facts.encode()).hexdigest()[:10]}"

    initial = 0
    for slider in sliders:
        initial = initial * len(slider.values) + slider.initial_index
    rows = []
    for i, slider in enumerate(sliders):
        label = html.escape(slider.label or slider.name)
        rows.append(
            f'<div style="margin:2px 0"><label for="{uid}-{i}" '
            f'style="display:inline-block;min-width:9em">{label}</label> '
            f'<input type="range" id="{uid}-{i}" min="0" max="{len(slider.values) - 1}" '
            f'step="1" value="{slider.initial_index}" style="vertical-align:middle;width:14em;max-width:60%"> '
            f"<output>{html.escape(slider.value_labels[slider.initial_index])}</output></div>"
        )
    first_frame = data["frames"][data["frame"][initial]]
    script = _EXPLORER_SCRIPT % {"uid": uid, "data": payload.replace("</", "<\\/")}
    return (
        f'<div id="{uid}" class="kpca-explorer tex2jax_ignore mathjax_ignore" '
        f'style="border:1px solid #ccc;border-radius:4px;padding:6px;margin:4px 0">'
        f'<div style="font-weight:bold;margin-bottom:4px">{html.escape(explorer.title)}</div>'
        + "".join(rows)
        + f'<img alt="{html.escape(explorer.name)}: precomputed frame" width="{explorer.display_width}" '
        f'src="data:image/png;base64,{first_frame}" style="max-width:100%;height:auto;display:block">'
        f'<div class="kpca-explorer-caption" style="font-family:monospace;white-space:pre-wrap">'
        f"{html.escape(explorer.captions_[initial])}</div>"
        f"<script>{script}</script></div>"
    )
