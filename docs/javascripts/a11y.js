/*
 * Names and keyboard access for what Material for MkDocs builds in the browser.
 *
 * - A table (Material wraps it in .md-typeset__scrollwrap), a figure (.sdpa-figure,
 *   see hooks/a11y.py) or a notebook cell's code or output that is wider than its box
 *   scrolls sideways. While it does, the
 *   box is focusable (so the arrow keys scroll it), is a region named after the table's
 *   heading or the figure's alt text, and carries data-scrolls for the stylesheet.
 *   When the window is wide enough again, all of that is taken off.
 * - Each code block's button bar (<nav class="md-code__nav">, with the copy button) is a
 *   navigation landmark; it gets a name of its own, "Kodeblokk 3" / "Code block 3".
 *
 * Material adds those elements after this file has run, and again on every page when
 * instant loading is on, so a MutationObserver looks for new ones.
 */
(function () {
  "use strict";

  var WORDS = {
    nb: { table: "Tabell", figure: "Figur", code: "Kodeblokk", output: "Utdata" },
    en: { table: "Table", figure: "Figure", code: "Code block", output: "Output" }
  };

  function words() {
    return WORDS[document.documentElement.lang] || WORDS.en;
  }

  function text(el) {
    var copy = el.cloneNode(true);
    copy.querySelectorAll(".headerlink, .anchor-link").forEach(function (a) { a.remove(); });
    return copy.textContent.replace(/\s+/g, " ").trim();
  }

  // The heading a table belongs to: the nearest heading before it, and the summary of
  // a collapsible block it sits in ("Tid, Hodedimensjon 128").
  function context(el) {
    var parts = [];
    for (var node = el; node && !node.classList.contains("md-content__inner"); node = node.parentElement) {
      if (node.tagName === "DETAILS") {
        var summary = node.querySelector(":scope > summary");
        if (summary) parts.unshift(text(summary));
        continue;
      }
      for (var prev = node.previousElementSibling; prev; prev = prev.previousElementSibling) {
        var heading = /^H[1-6]$/.test(prev.tagName) ? prev : last(prev.querySelectorAll("h1, h2, h3, h4, h5, h6"));
        if (heading) {
          parts.unshift(text(heading));
          return parts.join(", ");
        }
      }
    }
    return parts.join(", ");
  }

  function last(list) {
    return list.length ? list[list.length - 1] : null;
  }

  var boxes = [];

  // Reads first, writes after: measuring every box, then setting attributes, lays the page
  // out once; measuring and writing in turn would lay it out again for each box.
  function scrolls(box) {
    return box.el.scrollWidth > box.el.clientWidth;
  }

  function mark(box, wide) {
    var el = box.el;
    if (wide) {
      if (!el.hasAttribute("data-scrolls")) {
        el.setAttribute("data-scrolls", "");
        el.setAttribute("tabindex", "0");
        el.setAttribute("role", "region");
        el.setAttribute("aria-label", box.label);
      }
    } else if (el.hasAttribute("data-scrolls") || el.hasAttribute("tabindex")) {
      ["data-scrolls", "tabindex", "role", "aria-label"].forEach(function (name) {
        el.removeAttribute(name);
      });
    }
  }

  function update(list) {
    var wide = list.map(scrolls);
    list.forEach(function (box, i) { mark(box, wide[i]); });
  }

  var resized = new ResizeObserver(function (entries) {
    var targets = entries.map(function (entry) { return entry.target; });
    update(boxes.filter(function (box) {
      return targets.indexOf(box.el) >= 0 || targets.indexOf(box.el.firstElementChild) >= 0;
    }));
  });

  function watch(el, label) {
    el.setAttribute("data-a11y", "");
    var box = { el: el, label: label };
    boxes = boxes.filter(function (b) { return b.el.isConnected; });
    boxes.push(box);
    added.push(box);
    resized.observe(el);
    if (el.firstElementChild) resized.observe(el.firstElementChild);
  }

  function uniqueLabel(label, used) {
    var name = label;
    for (var n = 2; used[name]; n++) name = label + " (" + n + ")";
    used[name] = true;
    return name;
  }

  var added = []; // the boxes a scan found, measured together at its end

  function scan() {
    var w = words();
    var used = {};
    boxes.forEach(function (b) { if (b.el.isConnected) used[b.label] = true; });
    [
      [".md-typeset__scrollwrap", w.table],
      // the notebook page: code cells and printed output
      [".jupyter-wrapper .jp-InputArea pre", w.code],
      [".jupyter-wrapper .jp-OutputArea-output pre", w.output]
    ].forEach(function (kind) {
      document.querySelectorAll(kind[0] + ":not([data-a11y])").forEach(function (el) {
        var where = context(el);
        watch(el, uniqueLabel(where ? kind[1] + ": " + where : kind[1], used));
      });
    });
    document.querySelectorAll(".sdpa-figure:not([data-a11y])").forEach(function (el) {
      var img = el.querySelector("img");
      var alt = img && img.getAttribute("alt");
      var label = !alt ? w.figure : alt.indexOf(w.figure + ":") === 0 ? alt : w.figure + ": " + alt;
      watch(el, uniqueLabel(label, used));
    });
    document.querySelectorAll("nav.md-code__nav").forEach(function (nav, i) {
      var name = w.code + " " + (i + 1);
      if (nav.getAttribute("aria-label") !== name) nav.setAttribute("aria-label", name);
    });
    update(added.splice(0));
  }

  var queued = false;
  new MutationObserver(function () {
    if (queued) return;
    queued = true;
    requestAnimationFrame(function () {
      queued = false;
      scan();
    });
  }).observe(document.body, { childList: true, subtree: true });
  scan();
})();
