/*
 * The drop zone on "Read your own trace" (<div data-trace-reader>; its words are in the
 * page's Markdown, data-msg-*). hooks/trace_reader.py adds this script to that page only.
 * A picked or dropped file goes to trace-worker.js, a Web Worker that runs the command
 * line's own Python in Pyodide; this page stays responsive while it works. Nothing is
 * uploaded: the worker fetches only Pyodide and the Python files, from this site, and only
 * once a file has been picked. One file at a time: a file dropped while one is read is
 * refused with a word, of several dropped at once the first is read (and the page says so),
 * and Cancel ends a read (the worker is stopped; the next file starts a fresh one).
 */
(function () {
  "use strict";

  var root = document.querySelector("[data-trace-reader]");
  if (!root) return;
  var here = document.currentScript.src;
  var workerUrl = new URL("trace-worker.js", here).href;
  var assets = new URL("../trace-reader/", here).href;
  var input = root.querySelector(".trace-reader__input");
  var drop = root.querySelector(".trace-reader__drop");
  var status = root.querySelector(".trace-reader__status");
  var error = root.querySelector(".trace-reader__error");
  var result = root.querySelector(".trace-reader__result");
  var output = root.querySelector(".trace-reader__output code");
  var diagnosis = root.querySelector(".trace-reader__diagnosis");
  var doctor = null;  // a promise of trace-doctor.js, loaded with the first result
  var cancel = root.querySelector(".trace-reader__cancel");
  var limitMb = Number(root.dataset.limitMb);
  var lang = document.documentElement.lang || "en";
  var seconds = new Intl.NumberFormat(lang, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  var worker = null;
  var busy = false;
  var current = null;
  var note = "";  // said beside every status line of the current read

  function say(key, values) {
    var text = root.dataset["msg" + key] || "";
    return text.replace(/\{(\w+)\}/g, function (_, name) { return values && name in values ? values[name] : ""; });
  }

  function show(line) { status.textContent = note && line ? note + " " + line : line || note; }

  function fail(line) {
    error.textContent = line;
    error.hidden = false;
    result.hidden = true;
    show("");
  }

  function finish() {
    busy = false;
    note = "";
    cancel.hidden = true;
    root.dataset.filesRead = String(Number(root.dataset.filesRead || 0) + 1);
    root.removeAttribute("aria-busy");
    input.disabled = false;
  }

  /* The diagnosis, rendered by trace-doctor.js from the JSON result (loaded on first use). */
  function diagnose(json) {
    if (!diagnosis || !json) return;
    if (!doctor) {
      doctor = new Promise(function (resolve, reject) {
        var script = document.createElement("script");
        script.src = new URL("trace-doctor.js", here).href;
        script.onload = resolve;
        script.onerror = reject;
        document.head.appendChild(script);
      });
    }
    doctor.then(function () {
      window.traceDoctor.render(diagnosis, JSON.parse(json));
    }).catch(function () { doctor = null; });
  }

  function onMessage(event) {
    var m = event.data;
    if (m.kind === "timeline") {  // the worker's drawing, after the text: trace-timeline-view.js shows it
      if (busy) return;  // of the file before the one being read
      root.dispatchEvent(new CustomEvent("trace-timeline", { detail: m }));
      return;
    }
    var name = current.name;
    if (m.kind !== "status") {  // for the tests and anyone curious: what the last file cost
      root.dataset.loadMs = Math.round(m.loadMs || 0);
      root.dataset.readMs = Math.round(m.readMs || 0);
      root.dataset.heapBytes = m.heapBytes || 0;
    }
    if (m.kind === "status") {
      show(say(m.step === "loading" ? "Loading" : m.step === "checking" ? "Checking" : "Reading", {
        name: name, mb: seconds.format(current.size / 1e6)
      }));
      return;
    }
    if (m.kind === "done") {
      output.textContent = m.text;
      result.hidden = false;
      diagnose(m.json);
      error.hidden = true;
      var times = { name: name, load: seconds.format(m.loadMs / 1000), read: seconds.format(m.readMs / 1000) };
      show(say(m.loadMs ? "DoneFirst" : "Done", times));
    } else if (m.kind === "error") {
      fail(m.line);
    } else if (m.kind === "too-large") {
      fail(say(m.gzipped ? "TooLargeGzip" : "TooLarge", { name: name, limit: limitMb }));
    } else if (m.kind === "gzip-parts") {
      fail(say("GzipParts", { name: name, parts: m.parts }));
    } else {
      worker.terminate();
      worker = null;
      fail(say("Crash", { name: name, detail: m.detail }));
    }
    finish();
  }

  function onWorkerError(event) {
    event.preventDefault();
    if (worker) worker.terminate();
    worker = null;
    fail(say("Crash", { name: current ? current.name : "", detail: event.message || "worker" }));
    finish();
  }

  function stop() {
    if (worker) worker.terminate();
    worker = null;
    result.hidden = true;
    error.hidden = true;
    var name = current.name;
    finish();
    show(say("Cancelled", { name: name }));
  }

  function read(files) {
    var file = files && files[0];
    if (!file) return;
    if (busy) {
      show(say("Busy", { name: current.name, next: file.name }));
      return;
    }
    busy = true;
    current = file;
    note = files.length > 1 ? say("Several", { count: files.length, name: file.name }) : "";
    cancel.hidden = false;
    root.setAttribute("aria-busy", "true");
    input.disabled = true;
    error.hidden = true;
    if (!worker) {
      worker = new Worker(workerUrl, { type: "module" });
      worker.onmessage = onMessage;
      worker.onerror = onWorkerError;
    }
    worker.postMessage({ file: file, assets: assets, limit: limitMb * 1e6, lang: lang });
  }

  input.addEventListener("change", function () {
    read(input.files);
    input.value = "";  // the same file again is a new pick
  });
  ["dragenter", "dragover"].forEach(function (type) {
    drop.addEventListener(type, function (e) {
      e.preventDefault();
      drop.classList.add("trace-reader__drop--over");
    });
  });
  ["dragleave", "drop"].forEach(function (type) {
    drop.addEventListener(type, function () { drop.classList.remove("trace-reader__drop--over"); });
  });
  drop.addEventListener("drop", function (e) {
    e.preventDefault();
    if (e.dataTransfer && e.dataTransfer.files.length) read(e.dataTransfer.files);
  });
  root.addEventListener("trace-timeline-move", function (e) {  // trace-timeline-view.js's control
    if (worker) worker.postMessage({ timeline: { index: e.detail } });
  });
  cancel.addEventListener("click", stop);
  root.dataset.ready = "true";
})();
