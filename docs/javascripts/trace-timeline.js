/*
 * The timeline of the reader's trace, drawn in the worker (trace-worker.js imports this
 * module), so that a long step never holds up the page: Pyodide runs
 * report.doctor.output.svg, the code that draws the pages' timelines and that
 * `build_tables.py --explain TRACE --svg PATH` runs. The trace's pieces (its profiled
 * steps, or windows of its GPU activities where it has no steps) are kept until the next
 * file, so that moving to another window reads nothing again.
 *
 * drawTimeline(pyodide, path, name, lang)  after the text: the piece drawn first
 * moveTimeline(pyodide, index)             another piece of the same trace
 * Both post {kind: "timeline", svg, index, count, steps}, or {kind: "timeline", svg: null}
 * where the trace has nothing to draw.
 */
let api = null;
let kept = null;  // {found: the trace's pieces (a Python object), name, lang}

function python(pyodide) {
  if (api === null) {
    api = pyodide.runPython(`
from report.doctor.output.svg import reader_pieces, reader_view
(reader_pieces, reader_view)
`).toJs();
  }
  return { pieces: api[0], view: api[1] };
}

function post(pyodide) {
  return function (index) {
    const answer = python(pyodide).view(kept.found, index, kept.lang, kept.name);
    const [svg, at, count, steps] = answer.toJs();
    answer.destroy();
    self.postMessage({ kind: "timeline", svg, index: at, count, steps });
  };
}

export function drawTimeline(pyodide, path, name, lang) {
  if (kept !== null) {
    kept.found.destroy();
    kept = null;
  }
  let found = null;
  try {
    found = python(pyodide).pieces(path);
  } catch (err) {
    found = null;  // explain_file has said what is wrong with the file
  }
  if (found === null || found === undefined) {
    self.postMessage({ kind: "timeline", svg: null });
    return;
  }
  kept = { found, name, lang: lang === "nb" ? "nb" : "en" };
  post(pyodide)(undefined);  // None: the piece drawn first
}

export function moveTimeline(pyodide, index) {
  if (kept !== null) post(pyodide)(index);
}

/* The file again, from the bytes the worker read it from: the worker has removed it. */
export function drawTimelineOf(pyodide, bytes, name, lang) {
  const folder = "/timeline";
  const path = `${folder}/trace`;  // the name is only the drawing's label: any name a file can have
  pyodide.FS.mkdirTree(folder);
  const stream = pyodide.FS.open(path, "w");
  pyodide.FS.write(stream, bytes, 0, bytes.length, 0, true);
  pyodide.FS.close(stream);
  try {
    drawTimeline(pyodide, path, name, lang);
  } catch (err) {  // the text is shown already: the page goes on without a drawing
    self.postMessage({ kind: "timeline", svg: null });
  } finally {
    pyodide.FS.unlink(path);
  }
}
