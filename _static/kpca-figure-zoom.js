/* Tap-to-enlarge for the book's figures (no dependencies).
 *
 * Every figure of a chapter (an image in a code cell's output, or in a figure
 * element; not the labs' and explorers' own images) becomes a button: a tap, a
 * click, Enter or Space opens it full-screen in a modal <dialog>; Escape, a tap
 * anywhere or the close button closes it, and the focus goes back to the figure.
 * The figure's alt text labels the button and the enlarged image. Sphinx wraps a
 * resized image in a link to its file: the dialog replaces that link.
 */
(function () {
  "use strict";

  var FIGURES = ".bd-article .cell_output img, .bd-article figure img";
  var SKIPPED = ".kpca-lab, .kpca-explorer, .kpca-figure-zoom";
  var dialog = null;
  var opener = null;

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
    d.appendChild(button);
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

  function open(img) {
    if (!dialog) {
      dialog = build();
    }
    var picture = dialog.querySelector("img");
    picture.src = img.currentSrc || img.src;
    picture.alt = img.getAttribute("alt") || "";
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
