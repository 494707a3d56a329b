// Price count vectors with the page's code: node tests/js/price_counts.js CASES.json, where CASES.json
// (written by tests/test_live_pricing.py) holds {schema, files: {name: text}, cases: [{file, counts,
// order}]}.  Prints one JSON line: per case {total, low, high, notes} or {error: "<class>: message"}.
"use strict";
const fs = require("fs");
const path = require("path");
const P = require(path.join(__dirname, "../../sage/costbook/book/assets/live/pricing.js"));

const input = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const sets = {};
for (const [name, text] of Object.entries(input.files))
  sets[name] = new P.PriceSet(P.parseMeasurementFile(text, name, input.schema), input.schema);
const out = input.cases.map((c) => {
  try {
    const e = P.price(c.counts, sets[c.file], c.order, true, "");
    return { total: e.total, low: e.low, high: e.high, notes: e.lines.map((l) => l.note) };
  } catch (err) {
    return { error: `${err.constructor.name}: ${err.message}` };
  }
});
console.log(JSON.stringify(out));
