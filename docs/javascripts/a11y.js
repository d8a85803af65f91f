/*
 * Names and keyboard access for what Material for MkDocs builds in the browser.
 *
 * - A table (Material wraps it in .md-typeset__scrollwrap), a figure (.sdpa-figure,
 *   see hooks/a11y.py), a code block or a notebook cell's code or output that is wider
 *   than its box scrolls sideways. While it does, the
 *   box is focusable (so the arrow keys scroll it), is a region named after the table's
 *   heading or the figure's alt text, and carries data-scrolls for the stylesheet.
 *   When the window is wide enough again, all of that is taken off.
 * - Each code block's button bar (<nav class="md-code__nav">, with the copy button) is a
 *   navigation landmark; it gets a name of its own, "Kodeblokk 3" / "Code block 3" for
 *   the page's third code block. Material adds the bar when the block first comes on
 *   screen (content.lazy in mkdocs.yml), so the number is the block's place on the page,
 *   not the order the bars came in; Material makes a code block focusable then too, so
 *   this file does that before, for a block far down that a reader reaches by Tab.
 *
 * Material adds those elements after this file has run, and again on every page when
 * instant loading is on, so a MutationObserver looks for new ones.
 *
 * Nothing is measured while the page loads: a box is measured in the ResizeObserver's
 * callback, after the browser has laid the page out anyway; a box inside a closed
 * <details> not at all until the block is opened, and a box the browser has not laid out
 * yet (content-visibility: auto, docs/stylesheets/a11y.css) once the page is idle, a few
 * boxes in each idle moment. A box counts as scrolling where it is wider than its room, or
 * taller where its overflow is not visible (axe-core's scrollable-region-focusable asks
 * both). Measuring either at once would make the browser lay out on the spot what it
 * skips, during the page load: on the longest pages, most of the tables and code.
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

  // A box in a closed collapsible block is not laid out, and a box the browser skips for
  // now (content-visibility: auto in a11y.css, far below the screen) is not laid out yet:
  // measuring either would make the browser lay it out on the spot, during the page load.
  function closed(box) {
    return !box.el.isConnected || !!box.el.closest("details:not([open])");
  }

  function skipped(box) {
    var inner = box.el.firstElementChild || box.el;
    return !inner.checkVisibility({ contentVisibilityAuto: true });
  }

  // Reads first, writes after: measuring every box, then setting attributes, lays the page
  // out once; measuring and writing in turn would lay it out again for each box.
  // sideways, or (a box whose overflow is not visible either way) downwards too: axe-core
  // counts either as a region a keyboard must reach
  function scrolls(box) {
    var el = box.el;
    return el.scrollWidth > el.clientWidth ||
      (el.scrollHeight > el.clientHeight && getComputedStyle(el).overflowY !== "visible");
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
    list = list.filter(function (box) { return !closed(box); });
    var now = list.filter(function (box) { return !skipped(box); });
    list.forEach(function (box) { if (now.indexOf(box) < 0) later(box); });
    var wide = now.map(scrolls);
    now.forEach(function (box, i) { mark(box, wide[i]); });
  }

  // A skipped box is measured once the page is idle, a few boxes in each idle moment
  // (at least one; a short task), so that a wide table far down is a
  // Tab stop before a reader scrolls to it, or tabs to it, on a long page too.
  var queue = [];
  var idle = window.requestIdleCallback || function (f) { return setTimeout(f, 50); };
  // another box only while the idle moment has this much of its (at most 50 ms) left: a
  // few milliseconds of work at a time, never a long task (Lighthouse's blocking time)
  var SPARE_MS = 40;

  function later(box) {
    if (queue.indexOf(box) >= 0) return;
    queue.push(box);
    if (queue.length === 1) idle(next);
  }

  function next(deadline) {
    do {
      var box = queue.shift();
      if (box && !closed(box)) {
        // a skipped box reports its estimate; asking its content for a size lays it out
        void (box.el.firstElementChild || box.el).offsetWidth;
        mark(box, scrolls(box));
      }
    } while (queue.length && deadline && deadline.timeRemaining && deadline.timeRemaining() > SPARE_MS);
    if (queue.length) idle(next);
  }

  // Called after layout, for every box when it is first observed and whenever it or its
  // table changes size (the window, a collapsible block opening)
  var resized = new ResizeObserver(function (entries) {
    var targets = entries.map(function (entry) { return entry.target; });
    update(boxes.filter(function (box) {
      return targets.indexOf(box.el) >= 0 || targets.indexOf(box.el.firstElementChild) >= 0;
    }));
  });

  // A collapsible block opened, or a skipped part of the page came near the screen: the
  // boxes in it now have a size
  function within(event) {
    var target = event.target;
    return boxes.filter(function (box) { return target === box.el || target.contains(box.el); });
  }

  document.addEventListener("toggle", function (event) {
    if (event.target.tagName === "DETAILS" && event.target.open) update(within(event));
  }, true);

  document.addEventListener("contentvisibilityautostatechange", function (event) {
    if (!event.skipped) update(within(event));
  }, true);

  function watch(el, label) {
    el.setAttribute("data-a11y", "");
    var box = { el: el, label: label };
    boxes = boxes.filter(function (b) { return b.el.isConnected; });
    boxes.push(box);
    // the observer reports a box it can measure; one in a part the browser skips it may
    // not report at all, so every new box is also measured once when the page is idle
    later(box);
    resized.observe(el);
    if (el.firstElementChild) resized.observe(el.firstElementChild);
  }

  function uniqueLabel(label, used) {
    var name = label;
    for (var n = 2; used[name]; n++) name = label + " (" + n + ")";
    used[name] = true;
    return name;
  }

  function scan() {
    var w = words();
    var used = {};
    boxes.forEach(function (b) { if (b.el.isConnected) used[b.label] = true; });
    [
      [".md-typeset__scrollwrap", w.table],
      [".md-content__inner pre > code", w.code],
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
      var drawn = el.querySelector("svg > title");  // a timeline, drawn inline: its title
      var alt = img ? img.getAttribute("alt") : drawn && drawn.textContent;
      var label = !alt ? w.figure : alt.indexOf(w.figure + ":") === 0 ? alt : w.figure + ": " + alt;
      watch(el, uniqueLabel(label, used));
    });
    var blocks = Array.prototype.slice.call(document.querySelectorAll(".md-content__inner pre"));
    document.querySelectorAll("nav.md-code__nav").forEach(function (nav) {
      var name = w.code + " " + (blocks.indexOf(nav.closest("pre")) + 1);
      if (nav.getAttribute("aria-label") !== name) nav.setAttribute("aria-label", name);
    });
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
