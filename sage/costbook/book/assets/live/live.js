/* costbook live estimate: the page's controls, table and what-if plots (DOM only; the pricing is
 * pricing.js).  mount(container, datasets, pricing) fills `container` for one or more schemes'
 * exports (costbook/live.py) and returns it.  Loaded as a classic script, in the offline book and
 * in Quarto's pages alike; no framework, nothing from the network.
 *
 * It reads as its chapter does: each option is named in the chapter's words (its command-line form
 * in a tooltip and in one line under the controls), each step carries the label the chapter's
 * tables print, under the heading of the model that prices it, and the what-if plots draw, one
 * plot per model, the steps that change along the chosen parameter.
 */
(function (root, factory) {
  const api = factory();
  if (typeof module === "object" && module.exports) module.exports = api;
  else if (typeof define === "function" && define.amd) define([], () => api);
  else root.costbookLive = api;
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";
  const SVG = "http://www.w3.org/2000/svg";
  const FORMAT = "costbook-live/3";       // costbook/live.py's FORMAT
  // one colour per line of a plot: six of Okabe and Ito's palette, told apart with colour-blindness
  // too, chosen so that no two are closer than 30 in CIE L*a*b* (sky blue beside blue was 26; yellow
  // on white is hard to see) and in the order that keeps a plot of few lines the most distinct; a plot
  // draws at most as many lines as there are colours (costbook/book/live.py's MAX_LINES)
  const COLOURS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#000000", "#E69F00"];
  const SUPERSCRIPT = "⁰¹²³⁴⁵⁶⁷⁸⁹";
  // an axis label's width in the plot's units: 6.2 per character at font size 10, and a gap
  const tickWidth = (text) => 6.2 * text.length + 8;
  // a line whose largest total is within 1% of its smallest is flat: a log-scale plot shows it level
  const FLAT_WITHIN = 0.01;

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "text") node.textContent = v;
      else if (v !== undefined && v !== null && v !== false) node.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children) if (c !== null && c !== undefined) node.append(c);
    return node;
  }

  function svg(tag, attrs, text) {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  const cliFlag = (name) => `--${name.replace(/_/g, "-")}`;

  function allowedWords(opt) {
    const a = opt.allowed;
    if (a.choices) return `one of ${a.choices.join(", ")}`;
    return `an integer in [${a.low}, ${a.high}]` + (a.zero ? ` (or 0: ${a.zero})` : "");
  }

  /** A value as a reader reads it: a choice in its words where the scheme gives them, and 0 of an
   *  option whose 0 means something as what it means (the command line's 0 is in the tooltip). */
  function valueWords(opt, v) {
    if (!opt.allowed.choices && v === 0 && opt.allowed.zero) return opt.allowed.zero;
    if (opt.values && Object.prototype.hasOwnProperty.call(opt.values, String(v))) return opt.values[String(v)];
    return typeof v === "number" ? v.toLocaleString("en-US") : String(v);
  }

  /** Whether a line's totals stay within FLAT_WITHIN of each other. */
  function isFlat(points) {
    const ys = points.map((p) => p[1]);
    return Math.max(...ys) <= (1 + FLAT_WITHIN) * Math.min(...ys);
  }

  function mount(container, datasets, P, thisMachine) {
    datasets = Array.isArray(datasets) ? datasets : [datasets];
    const stale = datasets.find((d) => d.format !== FORMAT);
    if (stale) {
      container.textContent = `The live estimate's data is in the format ${stale.format}; this page reads ${FORMAT}.`;
      return container;
    }
    const uid = "live" + Math.random().toString(36).slice(2, 8);
    const state = { scheme: 0, machine: datasets[0].template, own: null, ownFile: "", here: null, hereFile: "",
                    values: {}, x: null, hidden: new Set() };
    // every word here is text (textContent), a file's too: MathJax must not read "$...$" in it as TeX
    container.classList.add("costbook-live", "tex2jax_ignore");
    container.replaceChildren();

    const data = () => datasets[state.scheme];
    const resetValues = () => {
      state.values = Object.fromEntries(data().options.map((o) => [o.name, o.default]));
      state.x = data().axis;
      state.hidden = new Set();
    };
    resetValues();

    const schemeRow = el("p", {});
    const chapterLink = el("a", {});
    if (datasets.length > 1) {
      const sel = el("select", { id: `${uid}-scheme`, "data-control": "scheme" });
      datasets.forEach((d, i) => sel.append(el("option", { value: i, text: d.title })));
      sel.addEventListener("change", () => { state.scheme = Number(sel.value); resetValues(); build(); });
      schemeRow.append(el("label", { for: `${uid}-scheme`, text: "Scheme: " }), sel, " (each step named as in ", chapterLink, ")");
    }

    const machineSel = el("select", { id: `${uid}-machine`, "data-control": "machine" });
    const fileInput = el("input", { type: "file", id: `${uid}-file`, accept: ".json,application/json", "data-control": "file" });
    const fileMsg = el("p", { class: "costbook-live-message", role: "alert" });
    const machineRow = el("div", { class: "costbook-live-machine" },
      el("p", {}, el("label", { for: `${uid}-machine`, text: "Machine: " }), machineSel),
      el("p", {}, el("label", { for: `${uid}-file`, text: "Or your own measurement file (written by costbook measure): " }), fileInput),
      fileMsg);
    const controls = el("div", { class: "costbook-live-controls" });
    const cli = el("p", { class: "costbook-live-cli" });
    const table = el("table", { class: "costbook-live-table" });
    const xSel = el("select", { id: `${uid}-x`, "data-control": "x" });
    const xRow = el("p", { class: "costbook-live-axis" }, el("label", { for: `${uid}-x`, text: "What-if plots against: " }), xSel);
    const plots = el("div", { class: "costbook-live-plots" });
    container.append(schemeRow, machineRow, controls, cli, table, xRow, plots);

    fileInput.addEventListener("change", () => {
      const file = fileInput.files && fileInput.files[0];
      if (!file) return;
      const refuse = (e) => {
        fileMsg.textContent = e.message;
        fileMsg.dataset.state = "error";
        build();
      };
      // the file's bytes, checked as costbook check reads a file: its size before reading it, then
      // strict UTF-8 (a text read would turn bad bytes into U+FFFD and drop a byte order mark)
      try { P.checkSize(file.name, file.size, data().schema); } catch (e) { refuse(e); return; }
      const reader = new FileReader();
      reader.onerror = () => refuse(P.unreadable(file.name, reader.error && reader.error.name));
      reader.onload = () => {
        try {
          const set = P.readMeasurementFile(new Uint8Array(reader.result), file.name, data().schema);
          if (set.kind !== "measured" && set.kind !== "public")
            throw new P.MeasurementFileError(`${file.name}: kind: the page prices measured files (costbook measure writes them) and public ones (costbook import zkalc writes them), got ${P.pyRepr(set.kind)}; price a ${set.kind} file with costbook estimate --source`);
          state.own = new P.PriceSet(set, data().schema);
          state.ownFile = file.name;
          state.machine = "file";
          const entries = Object.values(set.results).flatMap((e) => Object.values(e));
          const completed = entries.filter((e) => e && e.completed).length;
          // a public file is a benchmark's transcription, not a measurement: said so, with what was completed
          const what = set.kind === "public"
            ? `a public benchmark's prices (costbook import zkalc): ${entries.length - completed} stated, ${completed} completed from the reference machine's ratios`
            : `${entries.length} prices`;
          fileMsg.textContent = `${file.name}: checked as costbook check does; ${Object.keys(set.results).length} backend(s), ${what}.`;
          fileMsg.dataset.state = "ok";
        } catch (e) {
          fileMsg.textContent = e.message;
          fileMsg.dataset.state = "error";
        }
        build();
      };
      reader.readAsArrayBuffer(file);
    });
    // this machine's measurement, embedded when the book was made with one: checked as a reader's file is,
    // priced the same way, and chosen first, as the chapter's own tables are priced with it
    if (thisMachine) {
      try {
        const set = P.parseMeasurementFile(thisMachine.text, thisMachine.name, datasets[0].schema);
        if (set.kind === "measured") {
          state.here = new P.PriceSet(set, datasets[0].schema);
          state.hereFile = thisMachine.name;
          state.machine = "here";
        }
      } catch (e) {
        fileMsg.textContent = `this machine's file: ${e.message}`;
        fileMsg.dataset.state = "error";
      }
    }
    machineSel.addEventListener("change", () => { state.machine = machineSel.value; update(); });
    xSel.addEventListener("change", () => { state.x = xSel.value; update(); });

    function machineWords() {
      if (state.machine === "file") return `your file ${state.ownFile} (${state.own.name})`;
      if (state.machine === "here") return `this machine's measurement ${state.hereFile} (${state.here.name})`;
      const m = data().machines.find((x) => x.id === state.machine);
      return `${m.label}, measurement file ${m.name}`;
    }
    const own = () => (state.machine === "file" ? state.own : state.machine === "here" ? state.here : null);
    const kind = () => (own() ? own().kind : data().machines.find((m) => m.id === state.machine).kind);
    // a file's name as a shell word, as Python's shlex.quote writes it: the line is meant to be pasted
    const shellWord = (s) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'"'"'`)}'`);
    const sourceArg = () => shellWord(state.machine === "file" ? state.ownFile : state.machine === "here" ? state.hereFile : state.machine);

    function build() {
      const d = data();
      if (!own() && !d.machines.some((m) => m.id === state.machine)) state.machine = d.template;
      chapterLink.replaceChildren("its chapter");
      chapterLink.setAttribute("href", `${d.chapter}#${d.section}`);
      machineSel.replaceChildren(...d.machines.map((m) => el("option", { value: m.id, text: m.label })));
      if (state.here) machineSel.append(el("option", { value: "here", text: `this machine: ${state.hereFile}` }));
      if (state.own) machineSel.append(el("option", { value: "file", text: `your file: ${state.ownFile}` }));
      machineSel.value = state.machine;
      controls.replaceChildren();
      for (const opt of d.options) {
        const id = `${uid}-opt-${opt.name}`;
        const sel = el("select", { id, "data-option": opt.name });
        for (const v of opt.offered) sel.append(el("option", { value: String(v), text: valueWords(opt, v) }));
        sel.addEventListener("change", () => {
          state.values[opt.name] = opt.allowed.choices ? sel.value : Number(sel.value);
          update();
        });
        const all = opt.allowed.choices || opt.offered.length === opt.allowed.high - opt.allowed.low + 1;
        const offered = all ? "" : opt.offered.length > 1 ? `; the page offers ${opt.offered.length} of them`
                                                          : "; the page keeps the default";
        const cliForm = `costbook estimate ${d.scheme} ${cliFlag(opt.name)}: ${allowedWords(opt)}${offered}`;
        controls.append(el("p", { class: "costbook-live-option", title: cliForm },
          el("label", { for: id, text: `${opt.words[0].toUpperCase()}${opt.words.slice(1)}: ` }), sel,
          el("span", { class: "costbook-live-na", "aria-live": "polite" })));
      }
      update();
    }

    function priced(values) {
      const d = data();
      const i = P.findPoint(d, values);
      if (i < 0) return { refused: "not among the values the page offers" };
      return P.pricePoint(d, own() ? d.template : state.machine, i, own());
    }

    function effective() {
      // an option that does not apply (OPTION_APPLIES) stays at its default, as on the command line
      const d = data(), values = { ...state.values }, applying = new Set();
      for (const opt of d.options) {
        const ok = P.applies(d, opt.name, values, kind());
        const sel = controls.querySelector(`[data-option="${opt.name}"]`);
        sel.disabled = !ok;
        sel.parentNode.querySelector(".costbook-live-na").textContent = ok ? "" : " (does not apply with the other choices or this machine)";
        if (ok) applying.add(opt.name);
        else values[opt.name] = opt.default;
        sel.value = String(values[opt.name]);
      }
      return { values, applying };
    }

    /** {label: [[x, total, low, high], ...]} of every step along option `name`, the others at `values`. */
    function along(name, values) {
      const opt = data().options.find((o) => o.name === name);
      const series = new Map();
      for (const x of opt.offered.filter((v) => v > 0)) {
        const r = priced({ ...values, [name]: x });
        if (r.refused !== undefined) continue;
        for (const s of r.steps) {
          if (s.error || !(s.total > 0)) continue;
          if (!series.has(s.label)) series.set(s.label, []);
          series.get(s.label).push([x, s.total, s.low, s.high]);
        }
      }
      return series;
    }

    /** A group's heading with each "{option}" in it the option's value, in words (the active model). */
    function heading(group, values = state.shown) {
      return group.heading.replace(/\{(\w+)\}/g, (all, name) => {
        const opt = data().options.find((o) => o.name === name);
        return opt ? valueWords(opt, values[name]) : all;
      });
    }

    const moving = (series) => [...series.values()].some((pts) => pts.length > 1 && !isFlat(pts));

    function update() {
      const d = data();
      const { values, applying } = effective();
      state.shown = values;
      const result = priced(values);
      const params = d.options.filter((o) => applying.has(o.name)).map((o) => `${o.words}: ${valueWords(o, values[o.name])}`);
      const flags = d.options.filter((o) => applying.has(o.name) && values[o.name] !== o.default)
        .map((o) => `${cliFlag(o.name)} ${values[o.name]}`);
      cli.replaceChildren("From the command line: ",
        el("code", { text: ["costbook estimate", d.scheme, "--source", sourceArg(), ...flags].join(" ") }));
      // the one statement of the machine and the parameters
      const caption = el("caption", { class: "costbook-live-words",
        text: `${d.title[0].toUpperCase()}${d.title.slice(1)}, priced with ${machineWords()}, for ${params.join("; ")}. ` +
              (result.refused !== undefined ? "" :
               `Each time with its ${Math.round(100 * result.level)}% prediction interval [low–high]: ` +
               (typeof result.margin === "number"
                 ? `every price at its low and at its high bound, widened by the model's error ` +
                   `(±${(100 * Math.expm1(result.margin)).toFixed(1)}%).`
                 : `made as a validated step's, from the time at its prices' low bounds, ` +
                   `${(100 * Math.expm1(result.margin.centre)).toFixed(1)}% (the model's steady offset) ` +
                   `±${(100 * Math.expm1(result.margin.q)).toFixed(1)}% where the prices do not spread, wider as they do; ` +
                   `the time itself is not moved by the offset, and its interval is stretched to hold it where the offset would leave it outside.`)) });
      caption.dataset.machine = state.machine;
      table.replaceChildren(caption, el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "step" }),
                                                                  el("th", { scope: "col", text: `time [${Math.round(100 * d.level)}% prediction interval]` }))));
      if (result.refused !== undefined) {
        table.append(el("tbody", {}, el("tr", { "data-refused": "" }, el("td", { colspan: 2, text: `Not priced: ${result.refused}` }))));
      } else {
        const byLabel = new Map(result.steps.map((s) => [s.label, s]));
        d.groups.forEach((g, gi) => {
          const steps = g.steps.filter((label) => byLabel.has(label)).map((label) => byLabel.get(label));
          if (!steps.length) return;
          const body = el("tbody", { "data-group": gi },
            el("tr", { class: "costbook-live-group" }, el("th", { colspan: 2, scope: "colgroup", text: heading(g, values) })));
          if (g.note) body.append(el("tr", { class: "costbook-live-note" }, el("td", { colspan: 2, text: g.note })));
          for (const s of steps) {
            const row = el("tr", { "data-step": s.label }, el("td", { text: s.label }));
            if (s.error) row.append(el("td", { "data-error": "", text: `not priced: ${s.error}` }));
            else {
              // a step with no priced operation at these parameters (a Merkle proof copied from the stored
              // tree, a witness of a one-element set) says so, rather than "0 ns [0–0]"
              const none = s.total === 0 && s.high === 0;
              row.append(el("td", { class: "num", text: none ? "no priced operation" : P.fmtInterval(s.total, s.low, s.high) }));
              Object.assign(row.dataset, { total: String(s.total), low: String(s.low), high: String(s.high) });
            }
            body.append(row);
          }
          table.append(body);
        });
      }
      // the what-if axes: numeric options along which some step's time moves, here and now
      const axes = d.options.filter((o) => !o.allowed.choices && o.offered.filter((v) => v > 0).length > 1)
        .map((o) => [o, along(o.name, values)]).filter(([, series]) => moving(series));
      xSel.replaceChildren(...axes.map(([o]) => el("option", { value: o.name, text: o.words })));
      if (!axes.some(([o]) => o.name === state.x)) state.x = axes.length ? axes[0][0].name : null;
      if (state.x) xSel.value = state.x;
      xRow.hidden = !axes.length;
      plots.replaceChildren();
      if (state.x) plot(axes.find(([o]) => o.name === state.x));
    }

    function plot([opt, series]) {
      const d = data();
      const flat = [];
      d.groups.forEach((g, gi) => {
        const lines = [];
        for (const label of g.steps) {
          const pts = series.get(label);
          if (!pts) continue;
          if (pts.length < 2 || isFlat(pts)) flat.push(label);
          else lines.push([label, pts]);
        }
        // a group holds at most as many steps as there are colours (MAX_LINES); an export without
        // groups has one of all its steps, drawn six lines to a plot
        for (let i = 0; i < lines.length; i += COLOURS.length)
          plots.append(figure(g, gi, opt, lines.slice(i, i + COLOURS.length), g.steps.length <= COLOURS.length));
      });
      if (flat.length)
        plots.append(el("p", { class: "costbook-live-flat",
          text: `Flat in ${opt.words} (within ${FLAT_WITHIN * 100}% over the values offered), so not drawn: ${flat.join("; ")}.` }));
    }

    function figure(group, gi, opt, lines, byGroup) {
      const xs = [...new Set(lines.flatMap(([, pts]) => pts.map((p) => p[0])))].sort((a, b) => a - b);
      const W = 760, H = 300, L = 70, R = 270, T = 12, B = 40;
      const lx = (v) => Math.log10(v);
      const [x0, x1] = [lx(xs[0]), lx(xs[xs.length - 1])];
      const ys = lines.flatMap(([, pts]) => pts.flatMap((p) => [p[1], p[2], p[3]])).filter((v) => v > 0);
      const [y0, y1] = [Math.floor(lx(Math.min(...ys))), Math.ceil(lx(Math.max(...ys)))];
      const sx = (v) => L + ((lx(v) - x0) / (x1 - x0 || 1)) * (W - L - R);
      const sy = (v) => T + (1 - (lx(v) - y0) / (y1 - y0 || 1)) * (H - T - B);
      const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, width: "100%", role: "img",
                                "aria-label": `${heading(group)}: each step's time against ${opt.words}, log scales` });
      for (let e = y0; e <= y1; e++) {
        root.append(svg("line", { x1: L, x2: W - R, y1: sy(10 ** e), y2: sy(10 ** e), stroke: "#ddd" }));
        root.append(svg("text", { x: L - 6, y: sy(10 ** e) + 4, "text-anchor": "end", "font-size": 11 }, P.fmtInterval(10 ** e, 10 ** e, 10 ** e).split(" [")[0]));
      }
      // label the powers of ten where the values hold two or more, else at most eight values
      const decades = xs.filter((x) => Number.isInteger(Math.log10(x)));
      const step = Math.ceil(xs.length / 8);
      const last = xs[xs.length - 1];
      const ticks = decades.length >= 2 ? [...decades, ...(decades.includes(last) ? [] : [last])]
                                        : xs.filter((x, i) => i % step === 0 || i === xs.length - 1);
      // powers of ten from 10,000 up as 10⁴; a label that would run into the one before it is left out
      let right = -Infinity;
      for (const x of ticks) {
        const text = x >= 1e4 && Number.isInteger(Math.log10(x))
          ? "10" + [...String(Math.log10(x))].map((d) => SUPERSCRIPT[Number(d)]).join("") : x.toLocaleString("en-US");
        if (sx(x) - tickWidth(text) / 2 < right) continue;
        right = sx(x) + tickWidth(text) / 2;
        root.append(svg("text", { x: sx(x), y: H - B + 16, "text-anchor": "middle", "font-size": 10, class: "costbook-live-tick" }, text));
      }
      root.append(svg("text", { x: (L + W - R) / 2, y: H - 6, "text-anchor": "middle", "font-size": 12 }, opt.words));
      // direct labels at the lines' right ends, moved apart where they would overlap; a click on one
      // hides or shows its line
      const ends = lines.map(([label, pts], i) => ({ label, y: sy(pts[pts.length - 1][1]), i }));
      ends.sort((a, b) => a.y - b.y);
      for (let i = 1; i < ends.length; i++) ends[i].y = Math.max(ends[i].y, ends[i - 1].y + 14);
      const overflow = ends.length ? ends[ends.length - 1].y - (H - B) : 0;
      if (overflow > 0) for (const e of ends) e.y -= overflow;
      const labelY = new Map(ends.map((e) => [e.label, e.y]));
      lines.forEach(([label, pts], i) => {
        const c = COLOURS[byGroup ? group.steps.indexOf(label) : i];
        const line = svg("g", { class: "costbook-live-line", "data-step": label, "data-colour": c,
                                "data-totals": pts.map((p) => p[1]).join(" ") });
        const band = pts.map((p) => `${sx(p[0])},${sy(p[3])}`).concat([...pts].reverse().map((p) => `${sx(p[0])},${sy(p[2])}`));
        line.append(svg("polygon", { points: band.join(" "), fill: c, "fill-opacity": 0.15, stroke: "none" }));
        line.append(svg("polyline", { points: pts.map((p) => `${sx(p[0])},${sy(p[1])}`).join(" "), fill: "none", stroke: c, "stroke-width": 1.8 }));
        for (const p of pts) line.append(svg("circle", { cx: sx(p[0]), cy: sy(p[1]), r: 2.5, fill: c }));
        const last = pts[pts.length - 1];
        line.append(svg("line", { x1: sx(last[0]) + 3, x2: W - R + 6, y1: sy(last[1]), y2: labelY.get(label), stroke: c, "stroke-width": 0.8 }));
        if (state.hidden.has(label)) line.setAttribute("opacity", 0.08);
        root.append(line);
        const text = svg("text", { x: W - R + 9, y: labelY.get(label) + 4, "font-size": 11, fill: c, class: "costbook-live-label",
                                   "data-step": label, tabindex: 0, role: "button", "aria-pressed": String(!state.hidden.has(label)) }, label);
        const toggle = () => {
          if (state.hidden.has(label)) state.hidden.delete(label); else state.hidden.add(label);
          line.setAttribute("opacity", state.hidden.has(label) ? 0.08 : 1);
          text.setAttribute("aria-pressed", String(!state.hidden.has(label)));
        };
        text.addEventListener("click", toggle);
        text.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); toggle(); } });
        root.append(text);
      });
      return el("figure", { class: "costbook-live-plot", "data-group": gi }, root,
        el("figcaption", { text: `${heading(group)}: each step's time against ${opt.words} (log scales; the band is its prediction interval; ` +
                                 "click a step's name to hide or show its line), the other parameters as in the table." }));
    }

    build();
    return container;
  }

  /** The schemes' data of a <div class="costbook-live" data-live="a b ...">: embedded in the page by
   * the offline book (a page on file:// may not fetch), else fetched from live/<name>.json beside the
   * page (Quarto's pages, served over HTTP). */
  function load(box) {
    const named = box.dataset.live.split(/\s+/).filter(Boolean);
    // "*": every scheme of the book (costbook/live.py's EVERY_SCHEME), listed in live/index.json
    const names = named.length === 1 && named[0] === "*"
      ? fetch("live/index.json").then((r) => {
          if (!r.ok) throw new Error(`live/index.json: HTTP ${r.status}`);
          return r.json();
        }).then((index) => index.schemes)
      : Promise.resolve(named);
    return names.then((list) => Promise.all(list.map((name) => {
      const node = document.getElementById(`costbook-live-data-${name}`);
      if (node) return JSON.parse(node.textContent);
      const url = `live/${name}.json`;
      return fetch(url).then((r) => {
        if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
        return r.json();
      });
    })));
  }

  /** Mount every <div class="costbook-live" data-live="a b ..."> of the page. */
  function mountAll(P) {
    const here = document.getElementById("costbook-live-machine");
    const machine = here ? { name: here.dataset.file, text: here.textContent } : null;
    return Promise.all([...document.querySelectorAll("div.costbook-live[data-live]")].map((box) =>
      load(box).then((sets) => mount(box, sets, P, machine), (e) => {
        box.classList.add("costbook-live");
        box.textContent = `The live estimate could not read its data (${e.message}). ` +
          (location.protocol === "file:" ? "A page opened from a file may not read another file: serve the book's folder " +
                                           "(python3 -m http.server) and open the page from there." : "");
      })));
  }

  return { mount, mountAll, isFlat, COLOURS };
});
