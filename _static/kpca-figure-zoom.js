/* Tap-to-enlarge for the book's figures (no dependencies).
 *
 * Every figure of a chapter (an image in a code cell's output, or in a figure
 * element; not the labs' and explorers' own images) becomes a button: a tap, a
 * click, Enter or Space opens it full-screen in a modal <dialog>; Escape, a tap
 * anywhere or the close button closes it, and the focus goes back to the figure.
 * The figure's alt text labels the button and the enlarged image. Sphinx wraps a
 * resized image in a link to its file: the dialog replaces that link.
 *
 * On a narrow screen a wide figure fitted to the screen would stay as small as in the
 * column (a 700 px figure on a 390 px phone: its 9.5 pt ticks at about 7 px). There the
 * dialog shows it at no less than LEGIBLE of its drawn size instead and the reader pans
 * it (a drag scrolls the dialog), with a cue saying so.
 */
(function () {
  "use strict";

  var FIGURES = ".bd-article .cell_output img, .bd-article figure img";
  var SKIPPED = ".kpca-lab, .kpca-explorer, .kpca-figure-zoom";
  var dialog = null;
  var opener = null;
  // the smallest scale of a figure's drawn size the dialog shows: the book's smallest
  // figure text, 8 pt at 100 dpi (11.1 px drawn; its ticks are 9.5 pt), stays above 9 px
  var LEGIBLE = 0.85;

  function label(img) {
    var alt = (img.getAttribute("alt") || "").trim();
    return alt ? "Enlarge figure: " + alt : "Enlarge figure";
  }

  function close() {
    if (dialog && dialog.open) {
      dialog.close();
    }
  }

  function build() {
    var d = document.createElement("dialog");
    d.className = "kpca-figure-zoom";
    d.setAttribute("aria-label", "Enlarged figure");
    var button = document.createElement("button");
    button.type = "button";
    button.className = "kpca-figure-zoom__close";
    button.setAttribute("aria-label", "Close the enlarged figure");
    button.textContent = "\u00d7";
    var picture = document.createElement("img");
    picture.className = "kpca-figure-zoom__image";
    var cue = document.createElement("p");
    cue.className = "kpca-figure-zoom__cue";
    cue.textContent = "Drag to see the whole figure; tap to close.";
    d.appendChild(button);
    d.appendChild(cue);
    d.appendChild(picture);
    // a tap anywhere (on the image, the backdrop or the button) closes it
    d.addEventListener("click", close);
    d.addEventListener("close", function () {
      document.documentElement.classList.remove("kpca-figure-zoom-open");
      if (opener) {
        opener.focus();
        opener = null;
      }
    });
    document.body.appendChild(d);
    return d;
  }

  // a figure's drawn width in CSS px: myst-nb writes a retina PNG's in its inline style
  function drawnSize(img) {
    var width = parseFloat(img.style.width) || parseFloat(img.getAttribute("width")) ||
      img.naturalWidth;
    var ratio = img.naturalWidth ? img.naturalHeight / img.naturalWidth : 0.5;
    return { width: width, height: width * ratio };
  }

  // fitted to the screen when that keeps the figure legible; else at LEGIBLE of its
  // drawn size (or more, up to the screen's height), panned
  function layout(img) {
    var picture = dialog.querySelector("img");
    var drawn = drawnSize(img);
    var room = { width: window.innerWidth - 16, height: window.innerHeight - 56 };
    var fit = Math.min(room.width / drawn.width, room.height / drawn.height, 2);
    var pan = fit < LEGIBLE;
    dialog.classList.toggle("kpca-figure-zoom--pan", pan);
    if (pan) {
      var scale = Math.max(LEGIBLE, Math.min(1, room.height / drawn.height));
      picture.style.width = Math.round(drawn.width * scale) + "px";
      picture.style.height = Math.round(drawn.height * scale) + "px";
    } else {
      picture.style.width = "";
      picture.style.height = "";
    }
    dialog.scrollLeft = 0;
    dialog.scrollTop = 0;
  }

  function open(img) {
    if (!dialog) {
      dialog = build();
    }
    var picture = dialog.querySelector("img");
    picture.src = img.currentSrc || img.src;
    picture.alt = img.getAttribute("alt") || "";
    layout(img);
    opener = img;
    document.documentElement.classList.add("kpca-figure-zoom-open");
    if (typeof dialog.showModal === "function") {
      dialog.showModal();
    } else {
      dialog.setAttribute("open", "");  // very old browsers: no modal, still closable
    }
    dialog.querySelector("button").focus();
  }

  function prepare(img) {
    if (img.closest(SKIPPED) || img.classList.contains("kpca-zoomable")) {
      return;
    }
    img.classList.add("kpca-zoomable");
    img.setAttribute("tabindex", "0");
    img.setAttribute("role", "button");
    img.setAttribute("aria-label", label(img));
    img.setAttribute("aria-haspopup", "dialog");
    // Sphinx links a resized image to its file: the figure itself is the one tab stop
    var link = img.closest("a.image-reference");
    if (link) {
      link.setAttribute("tabindex", "-1");
    }
  }

  // the figure an event is for: delegated from the document, so that it works even when
  // another script re-creates the page's elements after ours have been prepared
  function figureOf(event) {
    var img = event.target;
    return img && img.tagName === "IMG" && img.matches(FIGURES) && !img.closest(SKIPPED)
      ? img : null;
  }

  function start() {
    document.querySelectorAll(FIGURES).forEach(prepare);
  }

  document.addEventListener("click", function (event) {
    var img = figureOf(event);
    if (img) {
      event.preventDefault();  // not the link to the image file around it
      prepare(img);
      open(img);
    }
  });
  document.addEventListener("keydown", function (event) {
    var img = figureOf(event);
    if (img && (event.key === "Enter" || event.key === " ")) {
      event.preventDefault();
      open(img);
    }
  });
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
  // images of late scripts (and elements re-created by them) get their attributes too
  window.addEventListener("load", start);
  window.kpcaFigureZoom = { open: open, close: close, prepare: prepare };
})();
