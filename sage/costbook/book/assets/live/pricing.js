/* costbook live pricing: the page's one pricing implementation (no DOM).
 *
 * It does what costbook/cost.py's price() and costbook/measurements.py's validate() do, line for
 * line, on data exported by costbook/live.py: a count vector (primitive key -> count), the backends
 * in preference order and a price set give a total with its low and high bound.  No scheme's cost
 * formula is here: the counts come from running the scheme's Sage code at build time.
 *
 * Loaded as a classic script (pages open from file://, where Chromium refuses ES module imports),
 * as a CommonJS module under node (the tests), and by Quarto's OJS through require().
 */
(function (root, factory) {
  const api = factory();
  if (typeof module === "object" && module.exports) module.exports = api;
  else if (typeof define === "function" && define.amd) define([], () => api);
  else root.costbookPricing = api;
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  class MeasurementFileError extends Error {}
  class MissingPrice extends Error {}
  class PriceError extends Error {}

  // ---------------------------------------------------------------- Python's way of printing values
  // (the checker's messages are costbook check's, which prints with repr() and format specs)

  function pyStr(s) {
    const q = s.includes("'") && !s.includes('"') ? '"' : "'";
    let out = "";
    for (const ch of s) {
      const c = ch.codePointAt(0);
      if (ch === "\\") out += "\\\\";
      else if (ch === q) out += "\\" + q;
      else if (ch === "\n") out += "\\n";
      else if (ch === "\r") out += "\\r";
      else if (ch === "\t") out += "\\t";
      else if (c < 0x20 || c === 0x7f) out += "\\x" + c.toString(16).padStart(2, "0");
      else out += ch;
    }
    return q + out + q;
  }

  /** Python's repr of a float (shortest round-trip digits; exponent form outside 1e-4..1e16). */
  function pyFloat(x) {
    if (Number.isInteger(x) && Math.abs(x) < 1e16) return String(x);   // JSON cannot tell 2 from 2.0
    if (!Number.isFinite(x)) return x > 0 ? "inf" : x < 0 ? "-inf" : "nan";
    const [mant, expText] = x.toExponential().split("e");
    const exp = Number(expText);
    if (exp >= -4 && exp < 16) return String(x);          // positional in both languages there
    return mant + "e" + (exp < 0 ? "-" : "+") + String(Math.abs(exp)).padStart(2, "0");
  }

  function pyRepr(v) {
    if (v === null || v === undefined) return "None";
    if (v === true) return "True";
    if (v === false) return "False";
    if (typeof v === "string") return pyStr(v);
    if (typeof v === "number") return pyFloat(v);
    if (Array.isArray(v)) return "[" + v.map(pyRepr).join(", ") + "]";
    return "{" + Object.entries(v).map(([k, x]) => pyStr(k) + ": " + pyRepr(x)).join(", ") + "}";
  }

  function pyType(v) {
    if (v === null) return "NoneType";
    if (Array.isArray(v)) return "list";
    if (typeof v === "string") return "str";
    if (typeof v === "boolean") return "bool";
    if (typeof v === "number") return Number.isInteger(v) ? "int" : "float";
    return "dict";
  }

  /** Python's format(x, ".{p}g"). */
  function pyG(x, p) {
    if (x === 0) return "0";
    const [mant, expText] = x.toExponential(p - 1).split("e");
    const exp = Number(expText);
    const strip = (s) => (s.includes(".") ? s.replace(/0+$/, "").replace(/\.$/, "") : s);
    if (exp >= -4 && exp < p) return strip(x.toFixed(p - 1 - exp));
    return strip(mant) + "e" + (exp < 0 ? "-" : "+") + String(Math.abs(exp)).padStart(2, "0");
  }

  // ---------------------------------------------------------------- keys (costbook/keys.py)

  function families(rules) {
    return rules.families.map((f) => ({ re: new RegExp("^(?:" + f.pattern + ")$"), python: f.python, grows: f.grows }));
  }

  function familyOf(key, fams) {
    for (const f of fams) if (f.re.test(key)) return f;
    throw new MeasurementFileError(
      `unknown primitive key ${pyStr(key)}: it matches no family in costbook.keys ` +
        `(known families: ${fams.map((f) => f.python).join(", ")})`);
  }

  function sizes(key, fams) {
    const m = familyOf(key, fams).re.exec(key);
    const out = {};
    for (const [k, v] of Object.entries(m.groups || {})) out[k] = /^[0-9]+$/.test(v) ? Number(v) : v;
    return out;
  }

  // ---------------------------------------------------------------- the checker (measurements.validate)

  function isNumber(v) { return typeof v === "number"; }   // JSON.parse gives no NaN or Infinity

  /**
   * Check parsed JSON against the schema, as `costbook check` does; returns a price set
   * {name, kind, provenance, results}, or throws a MeasurementFileError naming the file and field.
   */
  function validate(data, path, rules) {
    const fail = (field, problem) => { throw new MeasurementFileError(`${path}: ${field}: ${problem}`); };
    const isObj = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
    const fams = families(rules);
    if (!isObj(data)) fail("(top level)", `expected a JSON object, got ${pyType(data)}`);
    if (data.schema !== rules.schema) fail("schema", `expected ${pyStr(rules.schema)}, got ${pyRepr(data.schema)}`);
    for (const field of ["name", "kind", "provenance", "results"]) if (!(field in data)) fail(field, "missing");
    const { name, kind, provenance: prov, results } = data;
    if (typeof name !== "string" || !name) fail("name", `expected a non-empty string, got ${pyRepr(name)}`);
    if (!rules.kinds.includes(kind)) fail("kind", `expected one of (${rules.kinds.map(pyStr).join(", ")}), got ${pyRepr(kind)}`);
    if (!isObj(prov)) fail("provenance", "expected an object");
    for (const field of rules.required_provenance[kind])
      if (!(field in prov)) fail(`provenance.${field}`, `missing (required for a ${kind} file)`);
    if (!isObj(results) || !Object.keys(results).length) fail("results", "expected a non-empty object of backends");
    const units = Object.keys(rules.units).sort();
    for (const [backend, entries] of Object.entries(results)) {
      if (!isObj(entries) || !Object.keys(entries).length)
        fail(`results.${backend}`, "expected a non-empty object of primitive keys");
      for (const [key, entry] of Object.entries(entries)) {
        const field = `results.${backend}[${pyStr(key)}]`;
        try { familyOf(key, fams); } catch (e) { fail(field, e.message); }
        if (!isObj(entry)) fail(field, "expected an object");
        for (const req of rules.required_entry[kind]) if (!(req in entry)) fail(`${field}.${req}`, "missing");
        const unit = entry.unit;
        if (typeof unit !== "string" || !(unit in rules.units))
          fail(`${field}.unit`, `expected one of [${units.map(pyStr).join(", ")}], got ${pyRepr(unit)}`);
        for (const num of ["median", "q1", "q3", "mad", "low", "high", "min"]) {
          if (!(num in entry)) continue;
          const v = entry[num];
          if (!isNumber(v)) fail(`${field}.${num}`, `expected a finite number, got ${pyRepr(v)}`);
          if (v < 0 || (["median", "q1", "q3", "min"].includes(num) && v === 0))
            fail(`${field}.${num}`, `expected a positive number, got ${pyRepr(v)}`);
        }
        if ("between_runs" in entry) {
          const v = entry.between_runs;
          if (!isNumber(v) || v < 0) fail(`${field}.between_runs`, `expected a finite number >= 0, got ${pyRepr(v)}`);
          if (!("runs" in entry)) fail(field, "between_runs needs runs (how many runs it compares)");
        }
        if ("runs" in entry && !(Number.isInteger(entry.runs) && entry.runs >= 2))
          fail(`${field}.runs`, `expected an integer >= 2, got ${pyRepr(entry.runs)}`);
        for (const count of ["samples", "batch", "line"]) {
          if (!(count in entry)) continue;
          const v = entry[count];
          if (!Number.isInteger(v) || v < 1) fail(`${field}.${count}`, `expected a positive integer, got ${pyRepr(v)}`);
        }
        for (const [lo, hi, what] of [["q1", "q3", "quartiles"], ["low", "high", "interval"]]) {
          if ((lo in entry) !== (hi in entry)) fail(field, `${lo} and ${hi} go together, only ${lo in entry ? lo : hi} given`);
          if (lo in entry && !(entry[lo] <= entry.median && entry.median <= entry[hi]))
            fail(field, `${what} out of order: ${lo}=${pyFloat(entry[lo])}, median=${pyFloat(entry.median)}, ` +
                        `${hi}=${pyFloat(entry[hi])} (need ${lo} <= median <= ${hi})`);
        }
      }
      checkGrowth(path, backend, entries, rules, fams);
    }
    return { name, kind, provenance: prov, results };
  }

  function checkGrowth(path, backend, entries, rules, fams) {
    const span = (e) => {
      const scale = rules.units[e.unit];
      for (const [lo, hi] of [["q1", "q3"], ["low", "high"]]) if (lo in e) return [e[lo] * scale, e[hi] * scale];
      return [e.median * scale, e.median * scale];
    };
    const groups = new Map();
    for (const [key, e] of Object.entries(entries)) {
      const fam = familyOf(key, fams);
      if (!fam.grows.length) continue;
      const sz = sizes(key, fams);
      for (const g of fam.grows) {
        const rest = Object.keys(sz).filter((k) => k !== g).sort().map((k) => [k, sz[k]]);
        const id = JSON.stringify([fam.python, g, rest]);
        if (!groups.has(id)) groups.set(id, { g, items: [] });
        groups.get(id).items.push([sz[g], key, span(e)]);
      }
    }
    for (const { g, items } of groups.values()) {
      items.sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
      for (let i = 0; i < items.length; i++) {
        const [small, kSmall, [loSmall]] = items[i];
        for (const [big, kBig, [, hiBig]] of items.slice(i + 1)) {
          if (big > small && hiBig < (1 - rules.growth_slack) * loSmall)
            throw new MeasurementFileError(
              `${path}: results.${backend}[${pyStr(kBig)}]: price falls as ${g} grows: ${kBig} costs at most ` +
                `${pyG(hiBig, 4)} s, below ${kSmall} at ${pyG(loSmall, 4)} s or more (the work grows with ${g})`);
        }
      }
    }
  }

  /**
   * The first key an object of valid JSON text repeats, in the order Python's json meets it: each
   * object's keys are checked when the object closes (object_pairs_hook), the innermost first.
   */
  function repeatedKey(text) {
    const stack = [];                       // per open object or array: {keys, repeated} or null
    let expectKey = false;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (c === '"') {
        let j = i + 1;
        while (text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
        const top = stack[stack.length - 1];
        if (expectKey && top) {
          const key = JSON.parse(text.slice(i, j + 1));
          if (top.keys.has(key) && top.repeated === null) top.repeated = key;
          top.keys.add(key);
        }
        expectKey = false;
        i = j;
      } else if (c === "{") { stack.push({ keys: new Set(), repeated: null }); expectKey = true; }
      else if (c === "[") { stack.push(null); expectKey = false; }
      else if (c === "}" || c === "]") {
        const top = stack.pop();
        if (top && top.repeated !== null) return top.repeated;
      } else if (c === ",") expectKey = stack.length > 0 && stack[stack.length - 1] !== null;
    }
    return null;
  }

  /** Parse and check a measurement file's text (what the page's file input gives). */
  function parseMeasurementFile(text, path, rules) {
    if (!text.trim()) throw new MeasurementFileError(`${path}: empty (expected a JSON object)`);
    let data;
    try { data = JSON.parse(text); } catch (e) {
      throw new MeasurementFileError(`${path}: not valid JSON (${e.message})`);
    }
    const repeated = repeatedKey(text);
    if (repeated !== null)
      throw new MeasurementFileError(`${path}: duplicate key ${pyStr(repeated)} in one JSON object (each key once)`);
    return validate(data, path, rules);
  }

  // ---------------------------------------------------------------- a price set (MeasurementSet)

  class PriceSet {
    constructor(set, rules) {
      this.name = set.name;
      this.kind = set.kind;
      this.results = set.results;
      this.units = rules.units;
      this.rules = rules;
      this.fams = families(rules);
    }
    get backends() { return Object.keys(this.results); }
    has(b, key) { return Object.prototype.hasOwnProperty.call(this.results[b] || {}, key); }
    keys(b) { return Object.keys(this.results[b] || {}); }
    seconds(b, key) { const e = this.results[b][key]; return e.median * this.units[e.unit]; }
    bounds(b, key) {
      const e = this.results[b][key];
      const scale = this.units[e.unit];
      for (const [lo, hi] of [["q1", "q3"], ["low", "high"]]) if (lo in e && hi in e) return [e[lo] * scale, e[hi] * scale];
      return [e.median * scale, e.median * scale];
    }
    atBound(which) {
      const pick = which === "low" ? 0 : 1;
      const results = {};
      for (const [b, entries] of Object.entries(this.results)) {
        results[b] = {};
        for (const k of Object.keys(entries)) results[b][k] = { median: this.bounds(b, k)[pick], unit: "s" };
      }
      return new PriceSet({ name: this.name, kind: this.kind, results }, this.rules);
    }
    sizes(key) { return sizes(key, this.fams); }
  }

  // ---------------------------------------------------------------- derivations (cost.DERIVATIONS)

  function bracket(points, x) {
    for (let i = 0; i + 1 < points.length; i++) if (x <= points[i + 1][0]) return [points[i], points[i + 1]];
    return [points[points.length - 2], points[points.length - 1]];
  }

  function throughNearest(pts, x) {
    if (pts.length < 2) return null;
    const [lo, hi] = bracket(pts, x);
    const t = lo[1] + (hi[1] - lo[1]) * (x - lo[0]) / (hi[0] - lo[0]);
    return [t, lo[0], hi[0], lo[0] <= x && x <= hi[0] ? "interpolated" : "extrapolated"];
  }

  const prefixOf = (k) => k.slice(0, k.lastIndexOf("/"));
  const lastSize = (k) => Number(k.slice(k.lastIndexOf("/") + 1));

  function alongSizes(ms, b, prefix, x) {
    const pts = ms.keys(b).filter((k) => prefixOf(k) === prefix)
      .map((k) => [parseInt(lastSize(k), 10), ms.seconds(b, k)]).sort((p, q) => p[0] - q[0] || p[1] - q[1]);
    const got = throughNearest(pts, x);
    if (got === null) return null;
    const [t, lo, hi, verb] = got;
    return [t, `${verb} from ${prefix}/${lo} and ${prefix}/${hi}`];
  }

  function modexpByExponentLength(ms, b, key) {
    if (!key.startsWith("modexp/")) return null;
    const s = ms.sizes(key);
    return alongSizes(ms, b, `modexp/${s.mod}`, s.exp);
  }

  function modexpByModulusSize(ms, b, key) {
    if (!key.startsWith("modexp/")) return null;
    const { mod: m, exp: e } = ms.sizes(key);
    const moduli = [...new Set(ms.keys(b).filter((k) => k.startsWith("modexp/")).map((k) => ms.sizes(k).mod))].sort((p, q) => p - q);
    if (moduli.includes(m) || moduli.length < 2) return null;
    const [m1, m2] = [...moduli].sort((p, q) => Math.abs(Math.log(p / m)) - Math.abs(Math.log(q / m))).slice(0, 2).sort((p, q) => p - q);
    const at = (mod) => {
      const k = `modexp/${mod}/${e}`;
      if (ms.has(b, k)) return ms.seconds(b, k);
      const got = modexpByExponentLength(ms, b, k);
      return got ? got[0] : null;
    };
    const t1 = at(m1), t2 = at(m2);
    if (!t1 || !t2 || t1 < 0 || t2 < 0) return null;
    const a = Math.log(t2 / t1) / Math.log(m2 / m1);
    const t = t1 * Math.pow(m / m1, a);
    return [t, `scaled from moduli of ${m1} and ${m2} bits (t ~ M^${a.toFixed(2)} at ${e}-bit exponents)`];
  }

  function envelope(points, x, grows) {
    if (points.length < 2) return null;
    const [[x1, m1, l1, h1], [x2, m2, l2, h2]] = bracket(points, x);
    const d = x2 - x1;
    if (x1 <= x && x <= x2) {
      const t = (x - x1) / d;
      return [m1 + (m2 - m1) * t, l1 + (l2 - l1) * t, h1 + (h2 - h1) * t, x1, x2, "interpolated"];
    }
    let sMid = (m2 - m1) / d, sLow = (l2 - h1) / d, sHigh = (h2 - l1) / d;
    if (grows) { sMid = Math.max(sMid, 0); sLow = Math.max(sLow, 0); sHigh = Math.max(sHigh, 0); }
    if (x > x2) { const dx = x - x2; return [m2 + sMid * dx, l2 + sLow * dx, h2 + sHigh * dx, x1, x2, "extrapolated"]; }
    const dx = x1 - x;
    return [m1 - sMid * dx, l1 - sHigh * dx, h1 - sLow * dx, x1, x2, "extrapolated"];
  }

  function sizedPoints(ms, b, prefix, one) {
    const pts = new Map();
    const point = (size, k) => { const [lo, hi] = ms.bounds(b, k); return [size, ms.seconds(b, k), lo, hi]; };
    for (const k of ms.keys(b)) if (prefixOf(k) === prefix) pts.set(lastSize(k), point(lastSize(k), k));
    if (one && !pts.has(1) && ms.has(b, one)) pts.set(1, point(1, one));
    return [...pts.keys()].sort((p, q) => p - q).map((k) => pts.get(k));
  }

  function msmByTerms(ms, b, key) {
    if (!key.includes("_msm/")) return null;
    const prefix = prefixOf(key), k = lastSize(key);
    const got = envelope(sizedPoints(ms, b, prefix, prefix.replace("_msm", "_mul")), k, true);
    if (got === null) return null;
    const [t, low, high, x1, x2, verb] = got;
    return [t, `${verb} from ${prefix}/${x1} and ${prefix}/${x2} (affine in the number of terms)`, low, high];
  }

  function pairingProductByPairs(ms, b, key) {
    if (!key.includes("/pairing_product/")) return null;
    const { curve, pairs } = ms.sizes(key);
    const prefix = `${curve}/pairing_product`;
    const got = envelope(sizedPoints(ms, b, prefix, `${curve}/pairing`), pairs, true);
    if (got === null) return null;
    const [t, low, high, x1, x2, verb] = got;
    return [t, `${verb}: k Miller loops + 1 final exponentiation, fitted on sizes ${x1} and ${x2}`, low, high];
  }

  function fixedBaseWithoutTable(ms, b, key) {
    if (!key.endsWith("_fixed")) return null;
    const plain = key.slice(0, -"_fixed".length);
    if (!ms.has(b, plain)) return null;
    return [ms.seconds(b, plain), `no fixed-base table measured: priced as ${plain} (an upper bound)`];
  }

  const DERIVATIONS = [modexpByExponentLength, modexpByModulusSize, msmByTerms, pairingProductByPairs, fixedBaseWithoutTable];

  // ---------------------------------------------------------------- price (cost.price)

  const fmtS = (x) => `${pyG(x, 3)} s`;

  /**
   * Price a count vector: {total, low, high, lines}, or a MissingPrice naming the key (never a zero)
   * or a PriceError.  `order`: backends in preference order, as the scheme chose them.
   */
  function price(counts, ms, order, derive, label) {
    const unknown = order.filter((b) => !ms.backends.includes(b));
    if (unknown.length)
      throw new MissingPrice(`${ms.name}: no backend ${unknown.map(pyStr).join(", ")} (the file has: ${ms.backends.join(", ") || "none"})`);
    const lines = [];
    for (const [key, n] of Object.entries(counts)) {
      const b = order.find((x) => ms.has(x, key));
      if (b !== undefined) {
        const [lo, hi] = ms.bounds(b, key);
        lines.push({ key, count: n, unit: ms.seconds(b, key), low: lo, high: hi, backend: b, note: "" });
        continue;
      }
      let derived = null;
      if (derive) {
        outer: for (const x of order) for (const rule of DERIVATIONS) {
          const d = rule(ms, x, key);
          if (d !== null) { derived = [x, d, rule]; break outer; }
        }
      }
      if (derived === null)
        throw new MissingPrice(`${ms.name}: no price for ${pyStr(key)} in backend(s) ${order.join(", ")}; ` +
                               `measure it (costbook measure) or choose another source`);
      const [x, got, rule] = derived;
      const [seconds, note] = got;
      let low, high;
      if (got.length === 4) [low, high] = got.slice(2);
      else {
        try {
          [low, high] = ["low", "high"].map((w) => { const r = rule(ms.atBound(w), x, key); return r ? r[0] : null; });
        } catch (e) { low = high = null; }
      }
      const ok = (v) => typeof v === "number" && Number.isFinite(v) && v > 0;
      if (!ok(seconds) || !ok(low) || !ok(high))
        throw new PriceError(`${ms.name}: ${key} ${note} gives no positive finite price: measure ${key} itself, or sizes on both sides of it`);
      lines.push({ key, count: n, unit: seconds, low: Math.min(low, seconds), high: Math.max(high, seconds), backend: x, note });
    }
    let total = 0, low = 0, high = 0;
    for (const l of lines) {
      l.seconds = l.count * l.unit;
      l.lowS = l.count * l.low;
      l.highS = l.count * l.high;
      for (const [what, v] of [["seconds", l.seconds], ["low", l.lowS], ["high", l.highS]])
        if (!(Number.isFinite(v) && v >= 0))
          throw new PriceError(`${label || "the estimate"} priced with ${ms.name}: ${l.count} x ${l.key} at ${fmtS(l.unit)} is ${v} s (${what}), outside the float range of a time`);
      total += l.seconds; low += l.lowS; high += l.highS;
    }
    for (const [what, v] of [["total", total], ["low", low], ["high", high]])
      if (!(Number.isFinite(v) && v >= 0))
        throw new PriceError(`${label || "the estimate"} priced with ${ms.name}: the ${what} is ${v} s, outside the float range of a time`);
    return { label, total, low, high, lines };
  }

  // ---------------------------------------------------------------- replaying an exported scheme

  /**
   * The priced steps of one grid point for one machine of an export (costbook/live.py):
   * {steps: [{label, total, low, high} | {label, error}], refused?}.  `own`: a reader's price set
   * (a checked measurement file) replacing the template machine's reference file.
   */
  function pricePoint(data, machineId, pointIndex, own) {
    const template = own ? data.template : machineId;
    const machine = data.machines.find((m) => m.id === template);
    if (!machine) throw new Error(`no machine ${machineId} in the export of ${data.scheme}`);
    const calls = machine.points[String(pointIndex)];
    if (calls === undefined) return { refused: "this combination does not apply to this machine's kind of file" };
    if (!Array.isArray(calls)) return { refused: calls.refused };
    const sets = new Map();
    const setOf = (si) => {
      if (!sets.has(si)) sets.set(si, new PriceSet(data.sources[si], data.schema));
      return sets.get(si);
    };
    // a set the scheme copied from the template file's entries, made of the reader's entries
    const viewOf = (view, si) => {
      const results = {};
      for (const [b, entries] of Object.entries(view)) {
        results[b] = {};
        for (const [key, [ob, okey]] of Object.entries(entries))
          if (own.has(ob, okey)) results[b][key] = own.results[ob][okey];
      }
      return new PriceSet({ name: own.name, kind: own.kind, results }, data.schema);
    };
    const steps = [];
    for (const [label, ci, si, oi, derive, recipe] of calls) {
      try {
        let ms = own ? null : setOf(si), order = data.orders[oi];
        if (own && recipe === "file") {
          ms = own;
          // the scheme keeps the backends its source has (defaults.order); a reader's file the same
          order = order.filter((b) => ms.backends.includes(b));
        } else if (own && recipe && recipe.view !== undefined) ms = viewOf(data.views[recipe.view], si);
        else if (own && recipe === "keep") ms = setOf(si);
        else if (own)
          throw new MissingPrice(`${label}: its prices are computed by the scheme from the file's; price it with ` +
                                 `costbook estimate ${data.scheme} --source ${own.name}.json`);
        steps.push(price(data.counts[ci], ms, order, derive, label));
      } catch (e) {
        if (e instanceof MissingPrice || e instanceof PriceError) steps.push({ label, error: e.message });
        else throw e;
      }
    }
    return { steps };
  }

  /** Index of the grid point with these option values, or -1. */
  function findPoint(data, values) {
    return data.points.findIndex((p) => Object.keys(p).every((k) => p[k] === values[k]));
  }

  /** Whether option `name` applies with these values and this kind of file (OPTION_APPLIES). */
  function applies(data, name, values, kind) {
    const conds = data.applies[name] || {};
    return Object.entries(conds).every(([cond, allowed]) => allowed.includes(cond === "source" ? kind : values[cond]));
  }

  /** '1.23 ms [1.19–1.31]', as costbook.intervals.fmt_interval prints it. */
  function fmtInterval(seconds, low, high) {
    const commas = (x) => Math.round(x).toLocaleString("en-US");
    let unit = "ns", scale = 1e-9;
    for (const [u, sc] of [["s", 1], ["ms", 1e-3], ["µs", 1e-6], ["ns", 1e-9]]) if (Math.abs(seconds) >= sc) { unit = u; scale = sc; break; }
    const text = Math.abs(seconds) >= 1000 ? `${commas(seconds)}\u00a0s` : `${pyG(seconds / scale, 3)}\u00a0${unit}`;
    if (Math.abs(seconds) >= 1000) scale = 1;
    const num = (x) => (Math.abs(x / scale) >= 100 ? commas(x / scale) : pyG(x / scale, 3));
    return `${text} [${num(low)}–${num(high)}]`;
  }

  return { MeasurementFileError, MissingPrice, PriceError, PriceSet, validate, parseMeasurementFile, price,
           pricePoint, findPoint, applies, fmtInterval, pyRepr, pyG, families };
});
