/*
 * "Read your own trace": the timeline the worker drew of the reader's trace
 * (trace-timeline.js, report/doctor/output/svg.py), shown under the text. trace-reader.js
 * passes each drawing on as a "trace-timeline" event on the reader's <div>; where the trace
 * has no ProfilerStep, it is drawn a window of GPU activities at a time, and a slider and
 * two buttons move the window (a "trace-timeline-move" event, which trace-reader.js sends
 * to the worker). The words are the page's (data-msg-timeline-*).
 */
(function () {
  "use strict";

  var root = document.querySelector("[data-trace-reader]");
  if (!root) return;
  var words = root.dataset;
  var box = document.createElement("div");
  box.className = "trace-timeline";
  box.hidden = true;
  box.innerHTML =
    '<p class="trace-timeline__intro"></p>' +
    '<div class="trace-timeline__move" hidden>' +
    '<button type="button" class="md-button trace-timeline__prev"></button> ' +
    '<input type="range" class="trace-timeline__range" min="1" step="1"> ' +
    '<button type="button" class="md-button trace-timeline__next"></button> ' +
    '<output class="trace-timeline__at" aria-live="polite"></output></div>' +
    '<div class="sdpa-figure sdpa-timeline"></div>';
  var intro = box.querySelector(".trace-timeline__intro");
  var move = box.querySelector(".trace-timeline__move");
  var range = box.querySelector(".trace-timeline__range");
  var prev = box.querySelector(".trace-timeline__prev");
  var next = box.querySelector(".trace-timeline__next");
  var at = box.querySelector(".trace-timeline__at");
  var figure = box.querySelector(".sdpa-timeline");
  intro.textContent = words.msgTimeline || "";
  prev.textContent = words.msgTimelinePrev || "‹";
  next.textContent = words.msgTimelineNext || "›";
  range.setAttribute("aria-label", words.msgTimelineRange || "");
  var result = root.querySelector(".trace-reader__result");
  result.appendChild(box);
  var index = 0;
  var count = 0;

  function say(key, values) {
    return (words[key] || "").replace(/\{(\w+)\}/g, function (_, name) { return values[name]; });
  }

  function ask(i) {
    if (i < 0 || i >= count || i === index) return;
    root.dispatchEvent(new CustomEvent("trace-timeline-move", { detail: i }));
  }

  root.addEventListener("trace-timeline", function (event) {
    var m = event.detail;
    if (!m.svg) {
      box.hidden = true;
      return;
    }
    var drawn = new DOMParser().parseFromString(m.svg, "image/svg+xml").documentElement;
    if (drawn.nodeName !== "svg") return;
    figure.replaceChildren(document.importNode(drawn, true));
    index = m.index;
    count = m.count;
    move.hidden = m.steps || count < 2;  // steps: the median one is drawn; windows: any of them
    range.max = String(count);
    range.value = String(index + 1);
    prev.disabled = index === 0;
    next.disabled = index === count - 1;
    at.textContent = say("msgTimelineAt", { i: index + 1, n: count });
    box.hidden = false;
    root.dataset.timelineDrawn = String(Number(root.dataset.timelineDrawn || 0) + 1);
  });
  // a new file: the old drawing goes until the new one comes
  root.addEventListener("change", function () { box.hidden = true; }, true);
  root.addEventListener("drop", function () { box.hidden = true; }, true);
  range.addEventListener("change", function () { ask(Number(range.value) - 1); });
  prev.addEventListener("click", function () { ask(index - 1); });
  next.addEventListener("click", function () { ask(index + 1); });
})();
