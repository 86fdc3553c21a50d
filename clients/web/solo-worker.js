// The solo match's worker: Pyodide runs the platform's own rules core and bot levels
// (maumau.solo) here, off the page's thread, so a computer thinking never holds up the page.
// Served at /solo/worker.js, whose policy alone lets WebAssembly compile.
//
// The page sends {id, call, args} and gets {id, result} or {id, error}. Calls: load (Pyodide and
// the rules core, once), start (a match from its record), act, computer, tips, record.

let solo = null; // the maumau.solo module
let game = null; // the match being played

async function load({ pyodide, zip }) {
  if (solo) return { ms: 0 };
  const started = performance.now();
  const { loadPyodide } = await import(`${pyodide}pyodide.mjs`);
  const python = await loadPyodide({ indexURL: pyodide, packages: [] });
  const archive = await fetch(zip);
  if (!archive.ok) throw new Error(`HTTP ${archive.status}`);
  python.unpackArchive(await archive.arrayBuffer(), "zip", { extractDir: "/solo" });
  python.runPython("import sys\nsys.path.insert(0, '/solo')");
  solo = python.pyimport("maumau.solo");
  // What loading fetched: bytes over the wire (0 for what came from the cache), for the bench.
  const bytes = performance.getEntriesByType("resource").reduce((sum, entry) => sum + entry.transferSize, 0);
  return { ms: Math.round(performance.now() - started), bytes };
}

function start({ record, lang }) {
  const started = solo.start_json(record, lang);
  const [made, refusal] = started.toJs({ depth: 1 });
  started.destroy();
  if (!made) return JSON.parse(refusal);
  if (game) game.destroy();
  game = made;
  return { info: JSON.parse(game.info_json()), view: JSON.parse(game.view_json()), events: JSON.parse(game.events_json()) };
}

function computer() {
  const begun = performance.now();
  const moved = JSON.parse(game.computer_json());
  if (!moved) return null;
  return { ...moved, ms: performance.now() - begun, view: JSON.parse(game.view_json()), record: game.record_json() };
}

const CALLS = {
  load,
  start,
  computer,
  act: ({ action, lang }) => ({ ...JSON.parse(game.act_json(action, lang)), record: game.record_json() }),
  tips: ({ lang }) => JSON.parse(game.tips_json(lang)),
};

self.addEventListener("message", async ({ data }) => {
  const { id, call, args } = data;
  try {
    self.postMessage({ id, result: await CALLS[call](args || {}) });
  } catch (error) {
    self.postMessage({ id, error: String((error && error.message) || error) });
  }
});
