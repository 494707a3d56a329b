/* costbook live pricing: the page's one pricing implementation (no DOM).
 *
 * It does what costbook/cost.py's price() does, line for line, on data exported by costbook/live.py:
 * a count vector (primitive key -> count), the backends in preference order and a price set give a
 * total with its low and high bound.  No scheme's cost formula is here: the counts come from running
 * the scheme's Sage code at build time.  A reader's measurement file is read as costbook check reads
 * one (measurements.load): its bytes as strict UTF-8, JSON with Python's messages, then checked
 * against measurement.schema.json, which the export carries, by the same interpreter as
 * costbook/measurement_schema.py; no rule of the file is written here.
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

  // ---------------------------------------------------------------- values in messages, as Python says them
  // (the checker's messages are costbook check's word for word: costbook/measurement_schema.py)

  /** A string quoted and escaped as Python prints it: with `asciiOnly`, its ascii() (printable ASCII as
   * is, every other character escaped); without, the repr cost.py's messages print keys and backends
   * with (control characters escaped, other characters as they are). */
  function pyQuote(s, asciiOnly) {
    const q = s.includes("'") && !s.includes('"') ? '"' : "'";
    const hex = (c, w) => c.toString(16).padStart(w, "0");
    let out = "";
    for (const ch of s) {
      const c = ch.codePointAt(0);
      if (ch === "\\") out += "\\\\";
      else if (ch === q) out += "\\" + q;
      else if (ch === "\n") out += "\\n";
      else if (ch === "\r") out += "\\r";
      else if (ch === "\t") out += "\\t";
      else if (c < 0x20 || c === 0x7f || (asciiOnly && c >= 0x80 && c < 0x100)) out += "\\x" + hex(c, 2);
      else if (asciiOnly && c >= 0x100 && c < 0x10000) out += "\\u" + hex(c, 4);
      else if (asciiOnly && c >= 0x10000) out += "\\U" + hex(c, 8);
      else out += ch;
    }
    return q + out + q;
  }
  const asciiStr = (s) => pyQuote(s, true);
  const pyStr = (s) => pyQuote(s, false);

  /** Python's repr of a float (shortest round-trip digits; exponent form outside 1e-4..1e16). */
  function pyFloat(x) {
    if (!Number.isFinite(x)) return x > 0 ? "inf" : x < 0 ? "-inf" : "nan";
    if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
    const [mant, expText] = x.toExponential().split("e");
    const exp = Number(expText);
    if (exp >= -4 && exp < 16) {                          // positional in both languages there
      const s = String(x);
      return s.includes(".") ? s : s + ".0";
    }
    return mant + "e" + (exp < 0 ? "-" : "+") + String(Math.abs(exp)).padStart(2, "0");
  }

  const QUOTE_CHARS = 60;               // measurement_schema.QUOTE_CHARS

  /** A value from a file as a message shows it (measurement_schema.quote). */
  function quote(v) {
    if (typeof v === "string") {
      const chars = Array.from(v);
      return chars.length <= QUOTE_CHARS ? asciiStr(v)
        : `${asciiStr(chars.slice(0, QUOTE_CHARS).join(""))}... (${chars.length} characters)`;
    }
    if (v === null || v === undefined) return "None";
    if (v === true) return "True";
    if (v === false) return "False";
    if (typeof v === "bigint") {
      const digits = (v < 0n ? -v : v).toString();
      return (v < 0n ? -v : v) > 10n ** 30n ? `an integer of ${digits.length} digits` : v.toString();
    }
    if (typeof v === "number") return pyFloat(v);
    return Array.isArray(v) ? "an array" : "an object";
  }

  /** The path of a member: field.name for a plain name, field['na/me'] otherwise. */
  function member(field, name) {
    if (name.length <= QUOTE_CHARS && /^[A-Za-z0-9_-]+$/.test(name)) return field ? `${field}.${name}` : name;
    return `${field}[${quote(name)}]`;
  }

  /** Python's format(x, ".{p}g"), rounding the exact binary value half to even as Python does. */
  function pyG(x, p) {
    if (x === 0) return "0";
    if (!Number.isFinite(x)) return x > 0 ? "inf" : x < 0 ? "-inf" : "nan";
    let [digits, exp] = exactDigits(Math.abs(x));       // x = 0.d1d2d3... * 10^exp
    if (digits.length > p) {
      const head = BigInt(digits.slice(0, p)), rest = digits.slice(p);
      const half = rest[0] > "5" || (rest[0] === "5" && (/[1-9]/.test(rest.slice(1)) || head % 2n === 1n));
      let rounded = (half ? head + 1n : head).toString();
      if (rounded.length > p) { rounded = rounded.slice(0, p); exp += 1; }
      digits = rounded;
    }
    digits = digits.padEnd(p, "0");
    const e = exp - 1;                                     // x = d1.d2d3... * 10^e
    const strip = (s) => (s.includes(".") ? s.replace(/0+$/, "").replace(/\.$/, "") : s);
    const sign = x < 0 ? "-" : "";
    if (e >= -4 && e < p) {
      const s = e >= 0 ? digits.slice(0, e + 1) + "." + digits.slice(e + 1) : "0." + "0".repeat(-e - 1) + digits;
      return sign + strip(s);
    }
    return sign + strip(digits[0] + "." + digits.slice(1)) + "e" + (e < 0 ? "-" : "+") + String(Math.abs(e)).padStart(2, "0");
  }

  /** The exact decimal digits of a positive finite double and the power of ten after them. */
  function exactDigits(x) {
    const view = new DataView(new ArrayBuffer(8));
    view.setFloat64(0, x);
    const hi = view.getUint32(0), lo = view.getUint32(4);
    const biased = (hi >>> 20) & 0x7ff;
    let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
    let e2 = biased === 0 ? -1074 : biased - 1075;
    if (biased !== 0) mant |= 1n << 52n;
    let text, exp10;
    if (e2 >= 0) { text = (mant << BigInt(e2)).toString(); exp10 = text.length; }
    else { text = (mant * 5n ** BigInt(-e2)).toString(); exp10 = text.length + e2; }
    return [text.replace(/0+$/, "") || "0", exp10];
  }

  // ---------------------------------------------------------------- keys (costbook/keys.py)

  // compiled once per schema: a page re-prices hundreds of steps per change
  const compiled = new WeakMap();
  function families(rules) {
    if (!compiled.has(rules))
      compiled.set(rules, rules.families.map((f) => ({ re: new RegExp("^(?:" + f.pattern + ")$"), python: f.python,
                                                       grows: f.grows, floor: f.floor })));
    return compiled.get(rules);
  }

  function familyOf(key, fams) {
    for (const f of fams) if (f.re.test(key)) return f;
    return null;
  }

  function sizes(key, fams) {
    const m = familyOf(key, fams).re.exec(key);
    const out = {};
    for (const [k, v] of Object.entries(m.groups || {})) out[k] = /^[0-9]+$/.test(v) ? Number(v) : v;
    return out;
  }

  // keys.Family.floor_s: the least plausible price of a key, in seconds
  function floorS(key, fams) {
    const [atLeast, per, powers] = familyOf(key, fams).floor;
    const sz = sizes(key, fams);
    let work = per;
    for (const [name, power] of powers) work *= Math.pow(sz[name], power);
    return Math.max(atLeast, work);
  }

  // ---------------------------------------------------------------- reading a file's bytes (measurements.read_text)

  const WHAT = "measurement file";

  /** A read the browser (or node) could not do, said as costbook check says it for the same errno. */
  function unreadable(path, code) {
    const said = {
      ENOENT: `no such ${WHAT}`, EISDIR: `is a directory, not a ${WHAT}`,
      EACCES: `permission denied (cannot read this ${WHAT})`, ELOOP: `symbolic link loop (cannot read this ${WHAT})`,
      ENAMETOOLONG: `file name too long (cannot read this ${WHAT})`,
      ENOTDIR: `a part of the path is not a directory (cannot read this ${WHAT})`,
    }[code];
    return new MeasurementFileError(`${path}: ${said || `unreadable (cannot read this ${WHAT})`}`);
  }

  /** Refuse a file by its size before reading it (the page is given 200 MB as easily as 2 kB). */
  function checkSize(path, size, rules) {
    const max = rules.document["x-file"]["max-bytes"];
    if (size > max)
      throw new MeasurementFileError(`${path}: ${size} bytes, larger than any ${WHAT} (at most ${max / 2 ** 20} MiB)`);
  }

  /** Offset of the first byte that is not well-formed UTF-8 (the lead byte of its sequence), or -1. */
  function firstBadUtf8(bytes) {
    const n = bytes.length;
    for (let i = 0; i < n;) {
      const b = bytes[i];
      if (b < 0x80) { i++; continue; }
      let need, lo = 0x80, hi = 0xbf;
      if (b >= 0xc2 && b <= 0xdf) need = 1;
      else if (b === 0xe0) { need = 2; lo = 0xa0; }
      else if (b === 0xed) { need = 2; hi = 0x9f; }           // no encoded surrogates
      else if (b >= 0xe1 && b <= 0xef) need = 2;
      else if (b === 0xf0) { need = 3; lo = 0x90; }
      else if (b >= 0xf1 && b <= 0xf3) need = 3;
      else if (b === 0xf4) { need = 3; hi = 0x8f; }
      else return i;
      if (i + 1 >= n || bytes[i + 1] < lo || bytes[i + 1] > hi) return i;
      for (let k = 2; k <= need; k++) if (i + k >= n || bytes[i + k] < 0x80 || bytes[i + k] > 0xbf) return i;
      i += need + 1;
    }
    return -1;
  }

  /** The text of a file's bytes: strict UTF-8, a byte order mark kept (parseJson names it). */
  function decode(bytes, path, rules) {
    checkSize(path, bytes.length, rules);
    const bad = firstBadUtf8(bytes);
    if (bad >= 0)
      throw new MeasurementFileError(`${path}: not UTF-8 text (byte 0x${bytes[bad].toString(16).padStart(2, "0")} ` +
                                     `at offset ${bad}); a ${WHAT} is JSON in UTF-8`);
    return new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
  }

  // ---------------------------------------------------------------- JSON as costbook check reads it
  // (measurements.parse_json: Python's json with its messages and positions, a repeated key, NaN,
  // Infinity and an integer of too many digits refused).  Objects are Maps (keys in the file's
  // order; "__proto__" is a key like another), integers BigInts, other numbers floats.

  class JsonSyntax extends Error { constructor(msg, pos) { super(msg); this.pos = pos; } }
  class Stop extends Error { constructor(pos) { super("stop"); this.pos = pos; } }

  const JSON_STRING = /"[^"\\]*(?:\\[^\n][^"\\]*)*"/g;    // measurements._JSON_STRING

  function tooDeep(text, max) {
    let open = 0;
    for (let i = 0; i < text.length; i++) if (text[i] === "[" || text[i] === "{") open++;
    if (open <= max) return false;
    let depth = 0;
    for (const c of text.replace(JSON_STRING, '""')) {
      if (c === "[" || c === "{") { if (++depth > max) return true; }
      else if (c === "]" || c === "}") depth--;
    }
    return false;
  }

  /** Index `pos` of JavaScript's UTF-16 text as Python counts characters (a pair is one). */
  function pyIndex(text, pos) {
    let pairs = 0;
    for (let i = 0; i + 1 < pos; i++) {
      const c = text.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff) { const d = text.charCodeAt(i + 1); if (d >= 0xdc00 && d <= 0xdfff) { pairs++; i++; } }
    }
    return pos - pairs;
  }

  function parseJson(text, where, rules) {
    const file = rules.document["x-file"];
    const fail = (problem) => { throw new MeasurementFileError(`${where}: ${problem}`); };
    if (text.startsWith("\ufeff")) fail("starts with a byte order mark (U+FEFF); JSON text has none");
    if (/^[ \t\n\r]*$/.test(text)) fail("empty (expected a JSON object)");
    if (tooDeep(text, file["max-depth"])) fail(`not valid JSON here (nested more than ${file["max-depth"]} levels deep)`);
    try {
      return scanDocument(text, where, file);
    } catch (e) {
      if (!(e instanceof JsonSyntax)) throw e;
      const pos = pyIndex(text, e.pos);
      const nl = e.pos > 0 ? text.lastIndexOf("\n", e.pos - 1) : -1;
      const line = (text.slice(0, e.pos).match(/\n/g) || []).length + 1;
      const col = pos - (nl >= 0 ? pyIndex(text, nl) : -1);
      fail(`not valid JSON (${e.message}: line ${line} column ${col} (char ${pos}))`);
    }
  }

  function scanDocument(text, where, file) {
    const n = text.length;
    const isWs = (i) => { const c = text[i]; return c === " " || c === "\t" || c === "\n" || c === "\r"; };
    const skip = (i) => { while (i < n && isWs(i)) i++; return i; };
    const isDigit = (i) => { const c = text.charCodeAt(i); return c >= 48 && c <= 57; };
    const refuse = (problem) => { throw new MeasurementFileError(`${where}: ${problem}`); };
    const HEX = /^[0-9a-fA-F]{4}$/;
    const ESCAPES = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

    function string(end) {                      // end: the index after the opening quote
      const begin = end - 1;
      let out = "";
      for (;;) {
        let next = end, c = -1;
        for (; next < n; next++) {
          const d = text.charCodeAt(next);
          if (d === 34 || d === 92) { c = d; break; }
          if (d <= 0x1f) throw new JsonSyntax("Invalid control character at", next);
        }
        if (c === -1) throw new JsonSyntax("Unterminated string starting at", begin);
        out += text.slice(end, next);
        next++;
        if (c === 34) return [out, next];
        if (next === n) throw new JsonSyntax("Unterminated string starting at", begin);
        if (text[next] !== "u") {
          end = next + 1;
          const got = ESCAPES[text[next]];
          if (got === undefined) throw new JsonSyntax("Invalid \\escape", end - 2);
          out += got;
          continue;
        }
        next++;
        end = next + 4;
        if (end >= n) throw new JsonSyntax("Invalid \\uXXXX escape", next - 1);
        if (!HEX.test(text.slice(next, end))) throw new JsonSyntax("Invalid \\uXXXX escape", end - 5);
        let code = parseInt(text.slice(next, end), 16);
        if (code >= 0xd800 && code <= 0xdbff && end + 6 < n && text[end] === "\\" && text[end + 1] === "u") {
          if (!HEX.test(text.slice(end + 2, end + 6))) throw new JsonSyntax("Invalid \\uXXXX escape", end + 1);
          const low = parseInt(text.slice(end + 2, end + 6), 16);
          if (low >= 0xdc00 && low <= 0xdfff) { code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00); end += 6; }
        }
        out += String.fromCodePoint(code);
      }
    }

    function number(start) {
      let i = start;
      if (text[i] === "-") { i++; if (i > n - 1) throw new Stop(start); }
      const d = text.charCodeAt(i);
      if (d >= 49 && d <= 57) { i++; while (i <= n - 1 && isDigit(i)) i++; }
      else if (d === 48) i++;
      else throw new Stop(start);
      let isFloat = false;
      if (i < n - 1 && text[i] === "." && isDigit(i + 1)) {
        isFloat = true;
        i += 2;
        while (i <= n - 1 && isDigit(i)) i++;
      }
      if (i < n - 1 && (text[i] === "e" || text[i] === "E")) {
        const eStart = i;
        i++;
        if (i < n - 1 && (text[i] === "-" || text[i] === "+")) i++;
        while (i <= n - 1 && isDigit(i)) i++;
        if (isDigit(i - 1)) isFloat = true;
        else i = eStart;
      }
      const s = text.slice(start, i);
      if (isFloat) return [Number(s), i];
      const digits = s.replace(/^-/, "").length;
      if (digits > file["max-integer-digits"]) refuse(`not valid JSON here (an integer of ${digits} digits)`);
      return [BigInt(s), i];
    }

    function object(idx) {
      const pairs = [];
      idx = skip(idx);
      if (idx > n - 1 || text[idx] !== "}") {
        for (;;) {
          if (idx > n - 1 || text[idx] !== '"') throw new JsonSyntax("Expecting property name enclosed in double quotes", idx);
          const [key, afterKey] = string(idx + 1);
          idx = skip(afterKey);
          if (idx > n - 1 || text[idx] !== ":") throw new JsonSyntax("Expecting ':' delimiter", idx);
          const [val, afterVal] = value(skip(idx + 1));
          pairs.push([key, val]);
          idx = skip(afterVal);
          if (idx <= n - 1 && text[idx] === "}") break;
          if (idx > n - 1 || text[idx] !== ",") throw new JsonSyntax("Expecting ',' delimiter", idx);
          idx = skip(idx + 1);
        }
      }
      const obj = new Map();                     // object_pairs_hook: once the object is read
      for (const [k, v] of pairs) {
        if (obj.has(k)) refuse(`duplicate key ${quote(k)} in one JSON object (each key once)`);
        obj.set(k, v);
      }
      return [obj, idx + 1];
    }

    function array(idx) {
      const out = [];
      idx = skip(idx);
      if (idx > n - 1 || text[idx] !== "]") {
        for (;;) {
          const [val, after] = value(idx);
          out.push(val);
          idx = skip(after);
          if (idx <= n - 1 && text[idx] === "]") break;
          if (idx > n - 1 || text[idx] !== ",") throw new JsonSyntax("Expecting ',' delimiter", idx);
          idx = skip(idx + 1);
        }
      }
      if (idx > n - 1 || text[idx] !== "]") throw new JsonSyntax("Expecting value", n - 1);
      return [out, idx + 1];
    }

    const word = (idx, w) => idx + w.length - 1 < n && text.startsWith(w, idx);
    const constant = (name) => refuse(`not valid JSON (${name} is not a JSON number)`);

    function value(idx) {
      if (idx >= n) throw new Stop(idx);
      switch (text[idx]) {
        case '"': return string(idx + 1);
        case "{": return object(idx + 1);
        case "[": return array(idx + 1);
        case "n": if (word(idx, "null")) return [null, idx + 4]; break;
        case "t": if (word(idx, "true")) return [true, idx + 4]; break;
        case "f": if (word(idx, "false")) return [false, idx + 5]; break;
        case "N": if (word(idx, "NaN")) constant("NaN"); break;
        case "I": if (word(idx, "Infinity")) constant("Infinity"); break;
        case "-": if (word(idx, "-Infinity")) constant("-Infinity"); break;
      }
      return number(idx);
    }

    let got, end;
    try { [got, end] = value(skip(0)); } catch (e) {
      if (e instanceof Stop) throw new JsonSyntax("Expecting value", e.pos);
      throw e;
    }
    end = skip(end);
    if (end !== n) throw new JsonSyntax("Extra data", end);
    return got;
  }

  // ---------------------------------------------------------------- the checker (measurement_schema.py)
  // An interpreter of measurement.schema.json, which reaches the page in the export's "schema"
  // (costbook/live.py): the rules are that document's, the order of the checks and the words of the
  // messages are measurement_schema._run's.

  class Invalid extends Error { constructor(field, problem) { super(problem); this.field = field || "(top level)"; } }

  const MAX_FLOAT = Number.MAX_VALUE;
  const TYPES = {
    object: (v) => v instanceof Map,
    array: (v) => Array.isArray(v),
    string: (v) => typeof v === "string",
    integer: (v) => typeof v === "bigint",
    number: (v) => (typeof v === "bigint" ? v >= -MAX_FLOAT && v <= MAX_FLOAT : typeof v === "number" && Number.isFinite(v)),
    boolean: (v) => typeof v === "boolean",
    null: (v) => v === null,
  };

  function expected(s, stage) {
    if ("x-expected" in s) return s["x-expected"];
    const types = s.type === undefined ? [] : typeof s.type === "string" ? [s.type] : s.type;
    return types.map((t) => {
      if (t === "number") {
        if (stage === "type") return "a finite number";
        if (s.exclusiveMinimum === 0) return "a positive number";
        if ("minimum" in s) return `a finite number >= ${s.minimum}`;
        return "a finite number";
      }
      if (t === "integer") return s.minimum === 1 ? "a positive integer" : "minimum" in s ? `an integer >= ${s.minimum}` : "an integer";
      if (t === "string") return s.minLength === 1 ? "a non-empty string" : "a string";
      if (t === "object") return s.minProperties === 1 ? "a non-empty object" : "an object";
      if (t === "array") return "an array";
      return { boolean: "true or false", null: "null" }[t];
    }).join(" or ");
  }

  const toFloat = (v) => (typeof v === "bigint" ? Number(v) : v);

  const CHECKS = {
    "primitive-key"(name, field, ctx) {
      if (!familyOf(name, ctx.fams))
        throw new Invalid(field, `unknown primitive key ${quote(name)}: it matches no family in costbook.prices.keys ` +
                                 `(known families: ${ctx.fams.map((f) => f.python).join(", ")})`);
    },
    "median-within-bounds"(entry, field) {
      for (const [lo, hi, what] of [["q1", "q3", "quartiles"], ["low", "high", "interval"]]) {
        if (!entry.has(lo)) continue;
        const [l, m, h] = [entry.get(lo), entry.get("median"), entry.get(hi)];
        if (!(l <= m && m <= h))
          throw new Invalid(field, `${what} out of order: ${lo}=${quote(l)}, median=${quote(m)}, ${hi}=${quote(h)} ` +
                                   `(need ${lo} <= median <= ${hi})`);
      }
    },
    "price-grows-with-size"(entries, field, ctx) {
      const span = (e) => {
        const scale = ctx.units[e.get("unit")];
        for (const [lo, hi] of [["q1", "q3"], ["low", "high"]])
          if (e.has(lo)) return [toFloat(e.get(lo)) * scale, toFloat(e.get(hi)) * scale];
        return [toFloat(e.get("median")) * scale, toFloat(e.get("median")) * scale];
      };
      const groups = new Map();
      for (const [key, e] of entries) {
        const fam = familyOf(key, ctx.fams);
        if (!fam.grows.length) continue;
        const sz = sizes(key, ctx.fams);
        for (const g of fam.grows) {
          const rest = Object.keys(sz).filter((k) => k !== g).sort().map((k) => [k, sz[k]]);
          const id = JSON.stringify([fam.python, g, rest]);
          if (!groups.has(id)) groups.set(id, { g, items: [] });
          groups.get(id).items.push([sz[g], key, span(e)]);
        }
      }
      for (const { g, items } of groups.values()) {
        items.sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
        // least[i]: the least upper bound of items[i:] (measurement_schema: n log n, not n^2)
        const least = new Array(items.length + 1).fill(Infinity);
        for (let i = items.length - 1; i >= 0; i--) least[i] = Math.min(least[i + 1], items[i][2][1]);
        let j = 0;
        for (const [small, kSmall, [loSmall]] of items) {
          while (j < items.length && items[j][0] <= small) j++;
          const bound = (1 - ctx.rules.growth_slack) * loSmall;
          if (least[j] < bound) {
            const [, kBig, [, hiBig]] = items.slice(j).find((it) => it[2][1] < bound);
            throw new Invalid(member(field, kBig),
              `price falls as ${g} grows: ${kBig} costs at most ${pyG(hiBig, 4)} s, below ${kSmall} at ` +
              `${pyG(loSmall, 4)} s or more (the work grows with ${g})`);
          }
        }
      }
    },
    "plausible-price"(entries, field, ctx) {
      for (const [key, e] of entries) {
        const price = toFloat(e.get("median")) * ctx.units[e.get("unit")], floor = floorS(key, ctx.fams);
        if (price < floor)
          throw new Invalid(member(field, key), `${quote(e.get("median"))} ${e.get("unit")} is ${pyG(price, 3)} s, ` +
                                                `below the least any machine takes for ${key} (${pyG(floor, 3)} s): is the unit right?`);
      }
    },
  };

  function resolve(doc, ref) {
    let node = doc;
    for (const part of ref.replace(/^#\//, "").split("/")) node = node[part];
    return node;
  }

  function run(v, s, field, ctx) {
    if ("$ref" in s) run(v, resolve(ctx.rules.document, s.$ref), field, ctx);
    if (s.type !== undefined) {
      const types = typeof s.type === "string" ? [s.type] : s.type;
      if (!types.some((t) => TYPES[t](v))) throw new Invalid(field, `expected ${expected(s, "type")}, got ${quote(v)}`);
    }
    if ("const" in s && !(typeof v === "string" && v === s.const))
      throw new Invalid(field, `expected ${quote(s.const)}, got ${quote(v)}`);
    if ("enum" in s) {
      const never = ctx.onDisk ? s["x-never-on-disk"] || {} : {};
      const has = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
      const allowed = s.enum.filter((x) => !has(never, x));
      if (!(typeof v === "string" && allowed.includes(v))) {
        const why = typeof v === "string" && has(never, v) ? ` (${never[v]})` : "";
        throw new Invalid(field, `expected one of (${allowed.map(quote).join(", ")}), got ${quote(v)}${why}`);
      }
    }
    if (typeof v === "string" && Array.from(v).length < (s.minLength || 0))
      throw new Invalid(field, `expected ${expected(s, "bounds")}, got ${quote(v)}`);
    if (TYPES.number(v) && (("minimum" in s && v < s.minimum) || ("exclusiveMinimum" in s && v <= s.exclusiveMinimum)))
      throw new Invalid(field, `expected ${expected(s, "bounds")}, got ${quote(v)}`);
    if (v instanceof Map) {
      if (v.size < (s.minProperties || 0)) throw new Invalid(field, `expected ${expected(s, "bounds")}, got an empty object`);
      for (const name of s.required || [])
        if (!v.has(name)) throw new Invalid(member(field, name), "missing" + ("x-missing" in s ? ` (${s["x-missing"]})` : ""));
      const props = s.properties || {};
      for (const [name, sub] of Object.entries(props)) if (v.has(name)) run(v.get(name), sub, member(field, name), ctx);
      const names = s.propertyNames, more = s.additionalProperties;
      if (names !== undefined || more !== undefined) {
        for (const [name, x] of v) {
          if (names !== undefined) run(name, names, member(field, name), ctx);
          if (more !== undefined && !Object.prototype.hasOwnProperty.call(props, name)) run(x, more, member(field, name), ctx);
        }
      }
      const deps = s.dependentRequired || {};
      for (const [name, needs] of Object.entries(deps)) {
        for (const other of needs) {
          if (v.has(name) && !v.has(other)) {
            const mutual = (deps[other] || []).includes(name);
            throw new Invalid(field, mutual ? `${name} and ${other} go together, only ${name} given` : `${name} needs ${other}`);
          }
        }
      }
    }
    if (Array.isArray(v) && "items" in s) v.forEach((x, i) => run(x, s.items, `${field}[${i}]`, ctx));
    for (const sub of s.allOf || []) {
      if ("if" in sub) {
        try { run(v, sub.if, field, ctx); } catch (e) { if (e instanceof Invalid) continue; throw e; }
        run(v, sub.then, field, ctx);
      } else run(v, sub, field, ctx);
    }
    for (const name of s["x-check"] || []) CHECKS[name](v, field, ctx);
  }

  /** Parsed JSON (Maps, BigInts) as plain data for pricing: objects without a prototype, numbers. */
  function plain(v) {
    if (v instanceof Map) {
      const o = Object.create(null);
      for (const [k, x] of v) o[k] = plain(x);
      return o;
    }
    if (Array.isArray(v)) return v.map(plain);
    return typeof v === "bigint" ? Number(v) : v;
  }

  /**
   * Check parsed JSON (from parseJson) against the schema, as costbook check does a file; returns a
   * price set {name, kind, provenance, results}, or throws a MeasurementFileError naming the file and field.
   */
  function validate(data, path, rules) {
    const ctx = { rules, onDisk: true, fams: families(rules), units: rules.units };
    try { run(data, rules.document, "", ctx); } catch (e) {
      if (e instanceof Invalid) throw new MeasurementFileError(`${path}: ${e.field}: ${e.message}`);
      throw e;
    }
    const set = plain(data);
    return { name: set.name, kind: set.kind, provenance: set.provenance, results: set.results };
  }

  /** Parse and check a measurement file's text (this machine's file, embedded in the page). */
  function parseMeasurementFile(text, path, rules) {
    return validate(parseJson(text, path, rules), path, rules);
  }

  /** Read, parse and check a measurement file's bytes (what the page's file input gives). */
  function readMeasurementFile(bytes, path, rules) {
    return parseMeasurementFile(decode(bytes, path, rules), path, rules);
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
    atBound(which) {        // a set is never changed once made: each bound's copy is made once
      this.bounded = this.bounded || {};
      if (!this.bounded[which]) this.bounded[which] = this.copyAtBound(which);
      return this.bounded[which];
    }
    copyAtBound(which) {
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
    const name = (x) => (x !== 1 || ms.has(b, `${prefix}/1`) ? `${prefix}/${x}` : prefix.replace("_msm", "_mul"));
    return [t, `${verb} from ${name(x1)} and ${name(x2)} (affine in the number of terms; interval: every ` +
               `line through their measured intervals)`, low, high];
  }

  // cost._fmt_seconds / _fmt_law_price: a fitted term of a growth law, as the note states it
  function fmtSeconds(x) {
    for (const [unit, scale] of [["s", 1], ["ms", 1e-3], ["us", 1e-6], ["ns", 1e-9]])
      if (Math.abs(x) >= scale || unit === "ns") return `${pyG(x / scale, 4)} ${unit}`;
    return `${x} s`;
  }
  const fmtLawPrice = (x) => (x >= 0 ? fmtSeconds(x) : "-" + fmtSeconds(-x));

  function pairingProductByPairs(ms, b, key) {
    if (!key.includes("/pairing_product/")) return null;
    const { curve, pairs } = ms.sizes(key);
    const prefix = `${curve}/pairing_product`;
    const points = sizedPoints(ms, b, prefix, `${curve}/pairing`);
    const got = envelope(points, pairs, true);
    if (got === null) return null;
    const [t, low, high, x1, x2, verb] = got;
    const at = new Map(points.map((q) => [q[0], q[1]]));
    const miller = (at.get(x2) - at.get(x1)) / (x2 - x1), final = at.get(x1) - miller * x1;
    const name = (x) => (x !== 1 || ms.has(b, `${prefix}/1`) ? `${prefix}/${x}` : `${curve}/pairing`);
    return [t, `${verb}: k Miller loops (${fmtLawPrice(miller)} each) + 1 final exponentiation ` +
               `(${fmtLawPrice(final)}), fitted on ${name(x1)} and ${name(x2)}; interval: every such ` +
               `line through their measured intervals`, low, high];
  }

  function fixedBaseWithoutTable(ms, b, key) {
    if (!key.endsWith("_fixed")) return null;
    const plain = key.slice(0, -"_fixed".length);
    if (!ms.has(b, plain)) return null;
    return [ms.seconds(b, plain), `no fixed-base table measured: priced as ${plain} (an upper bound)`];
  }

  // cost.HASH_BLOCKS: block bytes, the padding and length every message adds, the standard's largest
  // input in bytes (BigInt: a key may name any length, and the limit is beyond a float's integers)
  const HASH_BLOCKS = { sha256: [64n, 9n, (2n ** 64n - 1n) / 8n], sha512: [128n, 17n, (2n ** 128n - 1n) / 8n] };
  const hashBlocks = (name, nBytes) => { const [block, pad] = HASH_BLOCKS[name]; return (BigInt(nBytes) + pad + block - 1n) / block; };
  const median = (xs) => { const s = [...xs].sort((p, q) => p - q), h = s.length >> 1; return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2; };

  const HASH_KEY = /^(sha256|sha512)\/([1-9][0-9]*)B$/;

  function hashByBlocks(ms, b, key) {
    const m = HASH_KEY.exec(key);
    if (m === null) return null;
    const name = m[1], n = BigInt(m[2]);
    if (n > HASH_BLOCKS[name][2]) throw new PriceError(`${key}: ${name} takes at most ${HASH_BLOCKS[name][2]} bytes (FIPS 180-4), got ${n}`);
    const byBlocks = new Map();
    for (const k of ms.keys(b)) {
      const km = HASH_KEY.exec(k);
      if (km === null || km[1] !== name) continue;
      const blocks = Number(hashBlocks(name, km[2])), [lo, hi] = ms.bounds(b, k);
      if (!byBlocks.has(blocks)) byBlocks.set(blocks, []);
      byBlocks.get(blocks).push([ms.seconds(b, k), lo, hi]);
    }
    if (byBlocks.size === 0) return null;
    const points = [...byBlocks.keys()].sort((p, q) => p - q).map((x) => {
      const ps = byBlocks.get(x);
      return [x, median(ps.map((q) => q[0])), Math.min(...ps.map((q) => q[1])), Math.max(...ps.map((q) => q[2]))];
    });
    const exact = hashBlocks(name, n), blocks = Number(exact), unit = exact === 1n ? "block" : "blocks";
    const same = points.find((q) => q[0] === blocks);
    if (same) return [same[1], `${exact} ${unit} of ${name} compression, as the measured ${name} lengths of ${exact} ${unit}`, same[2], same[3]];
    if (points.length >= 2) {
      const [t, low, high, x1, x2, verb] = envelope(points, blocks, true);
      return [t, `${exact} ${unit} of ${name} compression, ${verb} (affine in the blocks) from the measured lengths ` +
                 `of ${x1} and ${x2} blocks; interval: every such line through their measured intervals`, low, high];
    }
    const [[b1, t1, l1, h1]] = points;
    const scaled = [t1 * blocks / b1, l1 * blocks / b1, h1 * blocks / b1];
    const [low, high] = blocks > b1 ? [l1, scaled[2]] : [scaled[1], h1];
    return [scaled[0], `${exact} ${unit} of ${name} compression, scaled by blocks from the measured lengths of ${b1} ` +
                       `(the call's fixed cost counted per block: an ${blocks > b1 ? "upper" : "lower"} bound; ` +
                       `interval: that and the measured price)`, low, high];
  }

  // in cost.DERIVATIONS' order (tests/test_live_pricing.py holds the two lists equal)
  const DERIVATIONS = [modexpByExponentLength, modexpByModulusSize, msmByTerms, pairingProductByPairs, fixedBaseWithoutTable,
                       hashByBlocks];

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
        throw new MissingPrice(`${ms.name}: no price for ${pyStr(key)} ` +
                               (order.length ? `in backend(s) ${order.join(", ")}` :   // the file has none the scheme asked for
                                `in any backend the scheme prices it with (the file has: ${ms.backends.join(", ") || "none"})`) +
                               `; measure it (costbook measure) or choose another source`);
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
      if (!ok(seconds) || !ok(low) || !ok(high)) {
        const got = [["price", seconds], ["low", low], ["high", high]]
          .map(([w, v]) => (typeof v === "number" ? `${w} ${pyG(v, 3)} s` : `${w} undefined`)).join(", ");
        throw new PriceError(`${ms.name}: ${key} ${note || "derived"} gives no positive finite price (${got}): ` +
                             `measure ${key} itself, or sizes on both sides of it`);
      }
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
   * A priced step with its prediction interval (costbook/uncertainty.py's prediction_interval): the
   * price interval [low, high] widened by the model-error margin q, [low e^-q, high e^q]; priceLow and
   * priceHigh keep the price interval.
   */
  function predicted(step, margin) {
    const low = Math.min(step.low, step.total), high = Math.max(step.high, step.total);
    if (typeof margin === "number")
      return { ...step, priceLow: low, priceHigh: high, low: low * Math.exp(-margin), high: high * Math.exp(margin), margin };
    // a validation margin (Margin.bounds): anchored at the price interval's low end, centred on the
    // evidence's offset, widened by the prices' spread
    let anchor = step.total, spread = 0;
    if (low > 0 && low <= high && Number.isFinite(high) && low <= step.total && step.total <= high) {
      anchor = low;
      spread = Math.log(high / low) / 2;
    }
    const widen = 1 + spread / margin.spread_floor;
    // stretched to hold the time itself, as Margin.bounds stretches it
    return { ...step, priceLow: low, priceHigh: high,
             low: Math.min(anchor * Math.exp((margin.centre - margin.q) * widen), step.total),
             high: Math.max(anchor * Math.exp((margin.centre + margin.q) * widen), step.total), margin };
  }

  /** Whether an exported margin is one pricing can apply: a log ratio, or a validation margin's fields. */
  function usableMargin(margin) {
    if (typeof margin === "number") return margin >= 0;
    return margin !== null && typeof margin === "object" && margin.q >= 0 && Number.isFinite(margin.centre) &&
      margin.spread_floor > 0;
  }

  /**
   * The priced steps of one grid point for one machine of an export (costbook/live.py):
   * {steps: [{label, total, low, high, priceLow, priceHigh, margin} | {label, error}], margin, level,
   * refused?}: low and high are the step's prediction interval (``predicted``), with the margin the
   * export gives that machine at that point, or a reader's file (`own`, a checked measurement file
   * replacing the template machine's reference file) its reader_margin.
   */
  // the price sets of an export, each made once (a change of the page re-prices every point of a plot)
  const exportSets = new WeakMap();
  function priceSet(data, si) {
    if (!exportSets.has(data)) exportSets.set(data, new Map());
    const sets = exportSets.get(data);
    if (!sets.has(si)) sets.set(si, new PriceSet(data.sources[si], data.schema));
    return sets.get(si);
  }

  function pricePoint(data, machineId, pointIndex, own) {
    const template = own ? data.template : machineId;
    const machine = data.machines.find((m) => m.id === template);
    if (!machine) throw new Error(`no machine ${machineId} in the export of ${data.scheme}`);
    const calls = machine.points[String(pointIndex)];
    if (calls === undefined) return { refused: "this combination does not apply to this machine's kind of file" };
    if (!Array.isArray(calls)) return { refused: calls.refused };
    const setOf = (si) => priceSet(data, si);
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
    const margin = own ? data.reader_margin : machine.margins[String(pointIndex)];
    if (!usableMargin(margin)) throw new Error(`no margin for ${machineId} at point ${pointIndex} in the export of ${data.scheme}`);
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
        steps.push(predicted(price(data.counts[ci], ms, order, derive, label), margin));
      } catch (e) {
        if (e instanceof MissingPrice || e instanceof PriceError) steps.push({ label, error: e.message });
        else throw e;
      }
    }
    return { steps, margin, level: data.level };
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

  /** '1.23 ms [1.19–1.31]', as costbook.calibration.intervals.fmt_interval prints it. */
  function fmtInterval(seconds, low, high) {
    const commas = (x) => Math.round(x).toLocaleString("en-US");
    let unit = "ns", scale = 1e-9;
    for (const [u, sc] of [["s", 1], ["ms", 1e-3], ["µs", 1e-6], ["ns", 1e-9]]) if (Math.abs(seconds) >= sc) { unit = u; scale = sc; break; }
    const text = Math.abs(seconds) >= 1000 ? `${commas(seconds)}\u00a0s` : `${pyG(seconds / scale, 3)}\u00a0${unit}`;
    if (Math.abs(seconds) >= 1000) scale = 1;
    const num = (x) => (Math.abs(x / scale) >= 100 ? commas(x / scale) : pyG(x / scale, 3));
    return `${text} [${num(low)}–${num(high)}]`;
  }

  return { MeasurementFileError, MissingPrice, PriceError, PriceSet, validate, parseJson, parseMeasurementFile,
           readMeasurementFile, checkSize, unreadable, price, predicted, pricePoint, findPoint, applies, fmtInterval,
           pyRepr: quote, pyG, families };
});
