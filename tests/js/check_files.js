// The page's checker of a reader's measurement file (sage/costbook/book/assets/live/pricing.js), run on
// many files in one node process: node tests/js/check_files.js RULES.json CASES.json, or, for many
// batches in one process, node tests/js/check_files.js --serve: one JSON line {rules, cases} in on
// stdin, one JSON line out per batch, until stdin closes.
// RULES.json: the export's "schema" (costbook/live.py's schema_rules()).  CASES.json: a list of
// {name, path} (a file read as the page reads one: its size first, then its bytes; a read that fails
// gives the errno the page would be told), {name, base64} (bytes) or {name, text} (this machine's
// file, embedded in the page as text).  Prints one JSON list: per case {ok: {name, kind, backends,
// entries}} or {error: the one-line message}.
"use strict";
const fs = require("fs");
const path = require("path");
const P = require(path.join(__dirname, "../../sage/costbook/book/assets/live/pricing.js"));

function bytesOf(c, rules) {
  if (c.base64 !== undefined) return new Uint8Array(Buffer.from(c.base64, "base64"));
  let st;
  try { st = fs.statSync(c.path); } catch (e) { throw P.unreadable(c.name, e.code); }
  if (st.isDirectory()) throw P.unreadable(c.name, "EISDIR");
  P.checkSize(c.name, st.size, rules);                  // the page knows a file's size before reading it
  try { return new Uint8Array(fs.readFileSync(c.path)); } catch (e) { throw P.unreadable(c.name, e.code); }
}

const check = (rules, cases) => cases.map((c) => {
  try {
    const set = c.text !== undefined ? P.parseMeasurementFile(c.text, c.name, rules)
                                     : P.readMeasurementFile(bytesOf(c, rules), c.name, rules);
    return { ok: { name: set.name, kind: set.kind, backends: Object.keys(set.results).length,
                   entries: Object.values(set.results).reduce((n, e) => n + Object.keys(e).length, 0) } };
  } catch (e) {
    if (!(e instanceof P.MeasurementFileError)) return { crash: `${e.constructor.name}: ${e.message}` };
    return { error: e.message };
  }
});
if (process.argv[2] === "--serve") {
  const lines = require("readline").createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on("line", (line) => {
    const { rules, cases } = JSON.parse(line);
    process.stdout.write(JSON.stringify(check(rules, cases)) + "\n");
  });
} else {
  const rules = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
  const cases = JSON.parse(fs.readFileSync(process.argv[3], "utf8"));
  process.stdout.write(JSON.stringify(check(rules, cases)));
}
