/* Tap-to-enlarge for the book's figures (no dependencies).
 *
 * Every figure of a chapter (an image in a code cell's output, or in a figure
 * element; not the labs' and explorers' own images) becomes a button: a tap, a
 * click, Enter or Space opens it full-screen in a modal <dialog>; Escape, a tap
 * anywhere or the close button closes it, and the focus goes back to the figure.
 * The figure's alt text labels the button and the enlarged image.
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
    img.addEventListener("click", function () {
      open(img);
    });
    img.addEventListener("keydown", function (event) {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        open(img);
      }
    });
  }

  function start() {
    document.querySelectorAll(FIGURES).forEach(prepare);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
  window.kpcaFigureZoom = { open: open, close: close, prepare: prepare };
})();
