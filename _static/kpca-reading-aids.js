/* Reading aids of the book's pages (no dependencies; issue 40).
 *
 * 1. Skip links to the labs. A page with labs starts with one link per lab,
 *    hidden until it has the keyboard focus: the first Tab of the page reaches
 *    it, Enter moves the focus into the lab, and the next Tab is on the lab's
 *    first control (without it, a keyboard reader passes 100 to 190 links,
 *    copy buttons and scrollable blocks first).
 * 2. "Solution to Exercise N.M": the title of a collapsed solution holds a
 *    link to its exercise. A click on that link opens or closes the solution,
 *    as a click on the rest of the title does, instead of jumping to the
 *    exercise above it; so the link is drawn as the title's own text
 *    (kpca-reading-aids.css) and leaves the Tab order, where the title's
 *    toggle button already is: nothing looks like a link that does not go.
 * 3. Inline formulas wider than their line. MathJax does not break an inline
 *    formula, and a formula wider than the text column would be cut at its
 *    edge. Such a formula becomes a box that scrolls sideways, with a shadow at
 *    the edge that has more to show (kpca-book.css, .kpca-wide-inline), checked
 *    again when the width of the page changes (a phone turned, a window resized).
 */
(function () {
  "use strict";

  var LAB = ".kpca-lab";

  function labTitle(lab, index) {
    var title = lab.querySelector(".kpca-lab-title");
    var text = title ? title.textContent.replace(/,? computed in your browser$/, "").trim() : "";
    return text || "lab " + (index + 1);
  }

  function addSkipLinks() {
    var labs = document.querySelectorAll(LAB);
    if (!labs.length || document.querySelector(".kpca-skip-links")) {
      return;
    }
    var nav = document.createElement("nav");
    nav.className = "kpca-skip-links";
    nav.setAttribute("aria-label", "Skip to the labs of this page");
    Array.prototype.forEach.call(labs, function (lab, index) {
      if (!lab.id) {
        lab.id = "kpca-lab-" + (index + 1);
      }
      var link = document.createElement("a");
      link.className = "kpca-skip-link";
      link.href = "#" + lab.id;
      link.textContent = "Skip to the lab: " + labTitle(lab, index);
      link.addEventListener("click", function (event) {
        event.preventDefault();
        // focusable by script only: the next Tab goes to the lab's first control
        if (!lab.hasAttribute("tabindex")) {
          lab.setAttribute("tabindex", "-1");
        }
        lab.scrollIntoView({ block: "start" });
        lab.focus({ preventScroll: true });
        if (history.replaceState) {
          history.replaceState(null, "", "#" + lab.id);
        }
      });
      nav.appendChild(link);
    });
    document.body.insertBefore(nav, document.body.firstChild);
  }

  // a link inside the title of a collapsed solution (sphinx-togglebutton)
  function solutionTitleLink(target) {
    var link = target.closest ? target.closest("a[href]") : null;
    if (!link) {
      return null;
    }
    var title = link.closest(".admonition.toggle > .admonition-title");
    return title && title.contains(link) ? title : null;
  }

  function openSolutionsFromTheirLink() {
    document.querySelectorAll(".admonition.toggle > .admonition-title a[href]").forEach(function (link) {
      link.setAttribute("tabindex", "-1");
      link.classList.add("kpca-title-link");
    });
    document.addEventListener(
      "click",
      function (event) {
        var title = solutionTitleLink(event.target);
        if (!title) {
          return;
        }
        event.preventDefault();
        event.stopPropagation();
        var button = title.querySelector(".toggle-button");
        if (button) {
          button.click();
        }
      },
      true
    );
  }

  function blockOf(element) {
    var block = element.parentElement;
    while (block && /^inline/.test(getComputedStyle(block).display)) {
      block = block.parentElement;
    }
    return block;
  }

  function markWideInlineMath() {
    var formulas = document.querySelectorAll('.bd-article mjx-container[jax="CHTML"]:not([display="true"])');
    Array.prototype.forEach.call(formulas, function (formula) {
      formula.classList.remove("kpca-wide-inline");
    });
    Array.prototype.forEach.call(formulas, function (formula) {
      var block = blockOf(formula);
      if (!block || !formula.offsetParent) {
        return;
      }
      var style = getComputedStyle(block);
      var width = block.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      if (formula.getBoundingClientRect().width > width + 0.5) {
        formula.classList.add("kpca-wide-inline");
      }
    });
  }

  function whenMathIsTypeset(callback) {
    var tries = 0;
    (function wait() {
      if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
        MathJax.startup.promise.then(callback);
      } else if (tries++ < 100) {
        setTimeout(wait, 100);
      }
    })();
  }

  function start() {
    addSkipLinks();
    openSolutionsFromTheirLink();
    whenMathIsTypeset(function () {
      markWideInlineMath();
      var lastWidth = window.innerWidth;
      var pending = null;
      window.addEventListener("resize", function () {
        if (window.innerWidth === lastWidth) {
          return;
        }
        lastWidth = window.innerWidth;
        clearTimeout(pending);
        pending = setTimeout(markWideInlineMath, 100);
      });
      // a solution or box opened later shows formulas that had no width before: a
      // sphinx-togglebutton title is clicked, a <details> box fires "toggle" (which
      // does not bubble, hence the capture)
      document.addEventListener("click", function (event) {
        if (event.target.closest && event.target.closest(".admonition-title, .toggle-button, summary")) {
          setTimeout(markWideInlineMath, 50);
        }
      });
      document.addEventListener(
        "toggle",
        function () {
          clearTimeout(pending);
          pending = setTimeout(markWideInlineMath, 50);
        },
        true
      );
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
