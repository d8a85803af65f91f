/*
 * The in-browser trace reader's worker (a module worker, started by trace-reader.js when
 * the reader picks a file): Pyodide runs report.trace.explain.explain_file, the function
 * `build_tables.py --explain` calls, on the reader's file. Nothing leaves the browser:
 * the only requests are for Pyodide and the Python files, from this site.
 *
 * In:  {file: File, assets: URL of the site's trace-reader/ folder, limit: bytes of JSON}
 * Out: {kind: "status", step: "checking" | "loading" | "reading"}
 *      {kind: "too-large", gzipped}                more than `limit` bytes of JSON
 *      {kind: "done", text, json, loadMs, readMs, heapBytes}    what --explain prints, and
 *                                                  what --format json prints (the page's diagnosis)
 *      {kind: "error", line, loadMs, readMs, heapBytes}   the line it prints after "error: "
 *      (heapBytes: the WebAssembly memory now, the most it has used, as it never shrinks)
 *      {kind: "crash", detail}                     anything else (out of memory, a bug)
 */
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
from report.trace.explain import TraceError, explain_json, explain_path, report

def read(folder, name):
    os.chdir(folder)  # the file is named as the reader named it, as on the command line
    try:
        found = explain_path(name)
        return ["done", report(found), explain_json(found)]
    except TraceError as err:
        return ["error", str(err)]
    finally:
        os.chdir("/")
        gc.collect()
read
`);
  return { pyodide, read, loadMs: performance.now() - start };
}

/* Bytes of JSON in the file (unpacked when it is gzip), counted without keeping them;
 * stops as soon as there are more than `limit`. A gzip stream that breaks off is left to
 * explain_file, which says so the way the command line does. */
async function tooLarge(file, limit) {
  const head = new Uint8Array(await file.slice(0, 2).arrayBuffer());
  const gzipped = head[0] === 0x1f && head[1] === 0x8b;
  if (file.size > limit) return { over: true, gzipped };
  if (!gzipped) return { over: false, gzipped };
  const reader = file.stream().pipeThrough(new DecompressionStream("gzip")).getReader();
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > limit) {
        reader.cancel().catch(() => {});
        return { over: true, gzipped };
      }
    }
  } catch (err) {
    // not readable as gzip: explain_file gives the command line's message
  }
  return { over: false, gzipped };
}

self.onmessage = async ({ data }) => {
  const { file, assets, limit } = data;
  try {
    self.postMessage({ kind: "status", step: "checking" });
    const size = await tooLarge(file, limit);
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
    const path = `${folder}/${file.name}`;
    pyodide.FS.mkdirTree(folder);
    const bytes = new Uint8Array(await file.arrayBuffer());
    const stream = pyodide.FS.open(path, "w");
    pyodide.FS.write(stream, bytes, 0, bytes.length, 0, true);  // the file system keeps these bytes
    pyodide.FS.close(stream);
    let result;
    try {
      const answer = read(folder, file.name);
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
    } else {
      self.postMessage({ kind: "error", line: result[1], loadMs, readMs, heapBytes });
    }
  } catch (err) {
    python = null;  // the main thread starts a fresh worker for the next file
    self.postMessage({ kind: "crash", detail: String((err && err.message) || err).trim().split("\n").pop() });
  }
};
