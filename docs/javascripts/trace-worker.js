/*
 * The in-browser trace reader's worker (a module worker, started by trace-reader.js when
 * the reader picks a file): Pyodide runs report.doctor.explain.explain_file, the function
 * `build_tables.py --explain` calls, on the reader's file. Nothing leaves the browser:
 * the only requests are for Pyodide and the Python files, from this site.
 *
 * In:  {file: File, assets: URL of the site's trace-reader/ folder, limit: bytes of JSON,
 *       lang: the page's language, "nb" or "en": the language the doctor answers in}
 * Out: {kind: "status", step: "checking" | "loading" | "reading"}
 *      {kind: "too-large", gzipped}                more than `limit` bytes of JSON
 *      {kind: "gzip-parts", parts}                 gzip of more members than it counts
 *      {kind: "done", text, json, loadMs, readMs, heapBytes}    what --explain --lang LANG
 *                                                  prints, and the JSON result with its words in
 *                                                  LANG (the page's diagnosis)
 *      {kind: "error", line, loadMs, readMs, heapBytes}   the line it prints after "error: "
 *      (heapBytes: the WebAssembly memory now, the most it has used, as it never shrinks)
 *      {kind: "crash", detail}                     anything else (out of memory, a bug)
 *      {kind: "timeline", ...}                     after "done": trace-timeline.js's drawing
 * In:  {timeline: {index}}                         draw another piece of the last trace
 */
import { drawTimelineOf, moveTimeline } from "./trace-timeline.js";

let python = null;  // a promise of {pyodide, read}, made on the first file
let runs = 0;

async function boot(assets) {
  const start = performance.now();
  const { loadPyodide } = await import(assets + "pyodide/pyodide.mjs");
  const pyodide = await loadPyodide({
    indexURL: assets + "pyodide/",
    stdout: () => {},
    stderr: () => {},
  });
  const zip = await fetch(assets + "report.zip");
  if (!zip.ok) throw new Error(`report.zip: HTTP ${zip.status}`);
  pyodide.unpackArchive(await zip.arrayBuffer(), "zip", { extractDir: "/app" });
  const read = pyodide.runPython(`
import gc, os, sys
sys.path.insert(0, "/app")
from report.doctor.explain import TraceError, explain_json, explain_path, report
from report.doctor.shown.safe import shown

def read(folder, name, stored, lang):
    os.chdir(folder)  # the file is named as the reader named it, as on the command line,
    try:              # unless no file can have that name ("..", "."): then it is stored as "trace"
        found = explain_path(stored)  # the text and the diagnosis's words in the page's language
        return ["done", report(found, lang), explain_json(found, lang)]
    except TraceError as err:
        line = str(err)
        return ["error", line if stored == name else shown(name) + line[len(shown(stored)):]]
    finally:
        os.chdir("/")
        gc.collect()
read
`);
  return { pyodide, read, loadMs: performance.now() - start };
}

const MAX_PARTS = 1000;  // gzip members counted one by one; a file of more is refused

/* Bytes of JSON in the file (unpacked when it is gzip: every member of it, as Python's gzip
 * reads them), counted without keeping them; stops as soon as there are more than `limit`.
 * DecompressionStream reads one member and throws at the next ("Junk found after end of
 * compressed data"), and may drop the last output of the member when it does: the member
 * ends where the next begins (nextMember), and is counted again up to there. A gzip
 * stream that breaks off is left to explain_file, which says so the way the command line
 * does. */
async function tooLarge(file, limit) {
  const head = new Uint8Array(await file.slice(0, 2).arrayBuffer());
  const gzipped = head[0] === 0x1f && head[1] === 0x8b;
  if (file.size > limit) return { over: true, gzipped };
  if (!gzipped) return { over: false, gzipped };
  let size = 0;
  for (let offset = 0, parts = 0; offset >= 0; parts++) {
    if (parts === MAX_PARTS) return { parts };
    let member = await unpacked(file.slice(offset), limit - size);
    let next = -1;
    if (!member.whole && member.size <= limit - size) {
      const found = await nextMember(file, offset, limit - size);
      if (found) [next, member] = found;
    }
    size += member.size;
    if (size > limit) return { over: true, gzipped };
    offset = next;
  }
  return { over: false, gzipped };
}

/* {size, whole}: the bytes a gzip stream unpacks to (counted up to room + 1), and whether
 * it ended cleanly. */
async function unpacked(blob, room) {
  const reader = blob.stream().pipeThrough(new DecompressionStream("gzip")).getReader();
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { size, whole: true };
      size += value.length;
      if (size > room) {
        reader.cancel().catch(() => {});
        return { size, whole: false };
      }
    }
  } catch (err) {
    return { size, whole: false };  // the next member, or not gzip from here on
  }
}

/* [where the member after the one at `offset` begins, that member unpacked]: the first
 * place after it with a gzip member's header (1f 8b 08, then valid flags) such that the
 * bytes before it unpack cleanly to the size its trailer states (mod 2^32); null where there
 * is none (the rest is not gzip: explain_file says so). */
async function nextMember(file, offset, room) {
  const step = 1 << 22;
  for (let at = offset + 18; at < file.size; at += step) {
    const bytes = new Uint8Array(await file.slice(at - 4, Math.min(file.size, at + step + 10)).arrayBuffer());
    for (let i = 4; i + 10 <= bytes.length && i < step + 4; i++) {
      if (bytes[i] !== 0x1f || bytes[i + 1] !== 0x8b || bytes[i + 2] !== 0x08 || bytes[i + 3] & 0xe0) continue;
      const isize = (bytes[i - 4] | bytes[i - 3] << 8 | bytes[i - 2] << 16 | bytes[i - 1] << 24) >>> 0;
      const member = await unpacked(file.slice(offset, at - 4 + i), room);
      if (member.size > room || (member.whole && member.size % 2 ** 32 === isize)) return [at - 4 + i, member];
    }
  }
  return null;
}

/* What an error says, whatever was thrown (Emscripten's file system throws objects
 * without a message). */
function describe(err) {
  if (err && err.message) return String(err.message);
  if (err && err.errno !== undefined) return `file system error ${err.errno}`;
  return String(err);
}

self.onmessage = async ({ data }) => {
  if (data.timeline) {
    if (python !== null) moveTimeline((await python).pyodide, data.timeline.index);
    return;
  }
  const { file, assets, limit, lang } = data;
  try {
    self.postMessage({ kind: "status", step: "checking" });
    const size = await tooLarge(file, limit);
    if (size.parts) {
      self.postMessage({ kind: "gzip-parts", parts: size.parts });
      return;
    }
    if (size.over) {
      self.postMessage({ kind: "too-large", gzipped: size.gzipped });
      return;
    }
    let loadMs = 0;
    if (python === null) {
      self.postMessage({ kind: "status", step: "loading" });
      python = boot(assets);
      loadMs = (await python).loadMs;
    }
    const { pyodide, read } = await python;
    self.postMessage({ kind: "status", step: "reading" });
    const start = performance.now();
    const folder = `/trace/${++runs}`;
    const stored = /^\.{0,2}$|[\/\0]/.test(file.name) ? "trace" : file.name;
    const path = `${folder}/${stored}`;
    pyodide.FS.mkdirTree(folder);
    const bytes = new Uint8Array(await file.arrayBuffer());
    const stream = pyodide.FS.open(path, "w");
    pyodide.FS.write(stream, bytes, 0, bytes.length, 0, true);  // the file system keeps these bytes
    pyodide.FS.close(stream);
    let result;
    try {
      const answer = read(folder, file.name, stored, lang === "nb" ? "nb" : "en");
      result = answer.toJs();
      answer.destroy();
    } finally {
      pyodide.FS.unlink(path);
      pyodide.FS.rmdir(folder);
    }
    const readMs = performance.now() - start;
    const heapBytes = pyodide._module && pyodide._module.HEAPU8 ? pyodide._module.HEAPU8.length : 0;
    if (result[0] === "done") {
      self.postMessage({ kind: "done", text: result[1], json: result[2], loadMs, readMs, heapBytes });
      drawTimelineOf(pyodide, bytes, file.name, lang);
    } else {
      self.postMessage({ kind: "error", line: result[1], loadMs, readMs, heapBytes });
    }
  } catch (err) {
    python = null;  // the main thread starts a fresh worker for the next file
    self.postMessage({ kind: "crash", detail: describe(err).trim().split("\n").pop() });
  }
};
