// Compare the page's pricing (sage/costbook/book/assets/live/pricing.js) with costbook's Python
// pricing: node tests/js/compare_live.js CASES.json.  CASES.json (written by
// tests/test_live_pricing.py) holds, per scheme, the export (costbook/live.py), and the expected
// steps of every (machine, grid point) from `costbook estimate SCHEME --json` run in-process, plus
// a reader's machine file the book does not ship and malformed files with costbook check's messages.
// Prints one JSON summary line; exits 1 on the first mismatch, naming it.
"use strict";
const fs = require("fs");
const path = require("path");
const P = require(path.join(__dirname, "../../sage/costbook/book/assets/live/pricing.js"));

const cases = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const REL = 1e-9;
const close = (a, b) => Math.abs(a - b) <= REL * Math.max(Math.abs(a), Math.abs(b));
let compared = 0, points = 0;
const machines = new Set();

function fail(msg) { console.error(msg); process.exit(1); }

for (const sc of cases.schemes) {
  const data = sc.export;
  for (const exp of sc.expected) {
    let own = null;
    if (exp.file) own = new P.PriceSet(P.parseMeasurementFile(cases.files[exp.file], exp.file, data.schema), data.schema);
    const got = P.pricePoint(data, exp.machine, exp.point, own);
    const where = `${data.scheme}, machine ${exp.machine}${exp.file ? " (" + exp.file + ")" : ""}, point ${JSON.stringify(data.points[exp.point])}`;
    if (exp.refused !== undefined) {
      if (got.refused === undefined && !got.steps.some((s) => s.error)) fail(`${where}: the CLI refused (${exp.refused}), the page priced it`);
      continue;
    }
    if (got.refused !== undefined) fail(`${where}: the page refused (${got.refused}), the CLI priced it`);
    if (got.steps.length !== exp.steps.length) fail(`${where}: ${got.steps.length} steps in the page, ${exp.steps.length} from the CLI`);
    exp.steps.forEach((e, i) => {
      const g = got.steps[i];
      if (g.error) fail(`${where}: ${e.label}: the page says ${g.error}`);
      if (g.label !== e.label) fail(`${where}: step ${i} is ${g.label} in the page, ${e.label} from the CLI`);
      for (const f of ["total", "low", "high", "priceLow", "priceHigh"])
        if (!close(g[f], e[f])) fail(`${where}: ${e.label} ${f}: page ${g[f]} s, CLI ${e[f]} s`);
      compared++;
    });
    points++;
    machines.add(`${data.scheme}/${exp.machine}${exp.file || ""}`);
  }
}

// malformed files: the page refuses each with costbook check's message
const rules = cases.schemes[0].export.schema;
let refused = 0;
for (const bad of cases.malformed) {
  try {
    P.parseMeasurementFile(bad.text, bad.name, rules);
    fail(`${bad.name}: the page accepted a file costbook check refuses (${bad.message})`);
  } catch (e) {
    if (!(e instanceof P.MeasurementFileError)) throw e;
    if (e.message !== bad.message) fail(`${bad.name}: page says\n  ${e.message}\ncostbook check says\n  ${bad.message}`);
    refused++;
  }
}

// a file without a key a step needs: the step names the key, never prices it as zero
for (const m of cases.missing) {
  const data = cases.schemes.find((s) => s.export.scheme === m.scheme).export;
  const own = new P.PriceSet(P.parseMeasurementFile(cases.files[m.file], m.file, data.schema), data.schema);
  const got = P.pricePoint(data, data.template, m.point, own);
  const step = got.steps.find((s) => s.label === m.label);
  if (!step || !step.error || !step.error.includes(`'${m.key}'`))
    fail(`${m.scheme} ${m.label} without ${m.key}: page ${JSON.stringify(step)}, CLI ${m.message}`);
}

console.log(JSON.stringify({ steps: compared, points, machines: machines.size, malformed: refused, missing: cases.missing.length }));
