/*
 * The diagnosis on "Read your own trace": the first screen of the command's text, as its
 * JSON result carries it ("screen": report/doctor/output/text_report.py's screen, in the
 * page's language), rendered section by section in the text's order and words: each
 * section's heading, then its lines, a finding's title in bold, its evidence and remedy
 * under it. The words are the doctor's (output/words_*.py), never the page's own: one source.
 * trace-reader.js loads this file when the first trace has been read and calls
 * traceDoctor.render. Every string goes into the page as text (textContent), never as markup.
 *
 *   traceDoctor.render(box, doc)   box: the element to fill (emptied first);
 *       doc: the parsed JSON result
 */
(function () {
  "use strict";

  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (cls) node.className = cls;
    return node;
  }

  function line(part) {
    var p = el("p", null, "trace-doctor__line trace-doctor__line--" + part.level + " trace-doctor__" + part.kind);
    if (part.kind === "finding") p.appendChild(el("strong", part.text));
    else p.textContent = part.text;
    return p;
  }

  window.traceDoctor = {
    render: function (box, doc) {
      box.textContent = "";
      (doc.screen || []).forEach(function (section) {
        var part = el("section", null, "trace-doctor__section");
        if (section.heading !== null && section.heading !== undefined) {
          part.appendChild(el("h3", section.heading, "trace-doctor__heading"));
        }
        section.lines.forEach(function (l) { part.appendChild(line(l)); });
        box.appendChild(part);
      });
      box.hidden = false;
    }
  };
})();
