/*
 * The diagnosis on "Read your own trace": the JSON result of the reading (the schema of
 * report/doctor/model/result_types.py, what `--format json` prints) rendered as headings, lists
 * and small tables: findings first, then the pace, then attention. trace-reader.js loads
 * this file when the first trace has been read and calls traceDoctor.render. Every string
 * from the trace goes into the page as text (textContent), never as markup.
 *
 *   traceDoctor.render(box, doc, words)   box: the element to fill (emptied first);
 *       doc: the parsed JSON result; words: the page's data-msg-* (its headings)
 */
(function () {
  "use strict";

  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (cls) node.className = cls;
    return node;
  }

  function us(value, lang) {
    if (value === null || value === undefined) return "";
    return new Intl.NumberFormat(lang, { minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(value) + " µs";
  }

  function pct(share, lang) {
    if (share === null || share === undefined) return "";
    return new Intl.NumberFormat(lang, { style: "percent", maximumFractionDigits: 1 }).format(share);
  }

  function heading(box, text) {
    box.appendChild(el("h3", text, "trace-doctor__heading"));
  }

  function findings(box, doc, words, lang) {
    heading(box, words.msgFindings);
    if (!doc.findings.length) {
      box.appendChild(el("p", words.msgNoFinding));
      return;
    }
    var list = el("ol", null, "trace-doctor__findings");
    doc.findings.forEach(function (f) {
      var item = el("li");
      var title = el("p");
      title.appendChild(el("strong", f.title));
      title.appendChild(document.createTextNode(" — " + us(f.time_us, lang) + " (" + pct(f.share, lang) + ")"));
      item.appendChild(title);
      var facts = el("dl");
      [[words.msgEvidence, f.evidence], [words.msgRemedy, f.remedy], [words.msgSource, f.source]].forEach(function (pair) {
        facts.appendChild(el("dt", pair[0]));
        facts.appendChild(el("dd", pair[1]));
      });
      item.appendChild(facts);
      list.appendChild(item);
    });
    box.appendChild(list);
  }

  function pace(box, doc, words) {
    heading(box, words.msgPace);
    var p = doc.pace;
    var line = el("p");
    line.appendChild(el("strong", p.verdict));
    line.appendChild(document.createTextNode(p.scope ? " (" + p.scope + "): " + p.evidence : ": " + p.evidence));
    box.appendChild(line);
  }

  function attention(box, doc, words, lang) {
    var rows = doc.attention.filter(function (r) { return r.direction !== "call"; });
    var calls = doc.attention.filter(function (r) { return r.direction === "call"; });
    if (!rows.length && !calls.length && !doc.attention_note) return;
    heading(box, words.msgAttention);
    if (rows.length) {
      var wrap = el("div", null, "trace-doctor__table");
      var table = el("table");
      var head = el("tr");
      [words.msgBackend, words.msgCalls, words.msgGpuTime].forEach(function (h) { head.appendChild(el("th", h)); });
      table.appendChild(el("thead")).appendChild(head);
      var body = table.appendChild(el("tbody"));
      rows.forEach(function (r) {
        var tr = el("tr");
        tr.appendChild(el("td", r.backend + ", " + r.direction + (r.why ? ": " + r.why : "")));
        tr.appendChild(el("td", new Intl.NumberFormat(lang).format(r.calls)));
        tr.appendChild(el("td", us(r.gpu_us, lang) + " (" + pct(r.share, lang) + ")"));
        body.appendChild(tr);
      });
      wrap.appendChild(table);
      box.appendChild(wrap);
    }
    if (calls.length) {
      var list = el("ul");
      calls.forEach(function (r) {
        list.appendChild(el("li", r.calls + " × " + (r.backend || "?") + ": " + r.inputs + (r.why ? "; " + r.why : "")));
      });
      box.appendChild(list);
    }
    if (doc.attention_note) box.appendChild(el("p", doc.attention_note));
  }

  window.traceDoctor = {
    render: function (box, doc, words) {
      var lang = document.documentElement.lang || "en";
      box.textContent = "";
      findings(box, doc, words, lang);
      pace(box, doc, words);
      attention(box, doc, words, lang);
      box.hidden = false;
    }
  };
})();
