/* costbook live estimate: the page's controls, table and what-if plot (DOM only; the pricing is
 * pricing.js).  mount(container, datasets, pricing) fills `container` for one or more schemes'
 * exports (costbook/live.py) and returns it.  Loaded as a classic script by the offline book and
 * through require() by Quarto's OJS; no framework, nothing from the network.
 */
(function (root, factory) {
  const api = factory();
  if (typeof module === "object" && module.exports) module.exports = api;
  else if (typeof define === "function" && define.amd) define([], () => api);
  else root.costbookLive = api;
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";
  const SVG = "http://www.w3.org/2000/svg";
  const FORMAT = "costbook-live/1";       // costbook/live.py's FORMAT

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

  function allowedWords(opt) {
    const a = opt.allowed;
    if (a.choices) return `one of ${a.choices.join(", ")}`;
    return `an integer in [${a.low}, ${a.high}]` + (a.zero ? ` (or 0: ${a.zero})` : "");
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
                    values: {}, x: null };
    // every word here is text (textContent), a file's too: MathJax must not read "$...$" in it as TeX
    container.classList.add("costbook-live", "tex2jax_ignore");
    container.replaceChildren();

    const data = () => datasets[state.scheme];
    const resetValues = () => {
      state.values = Object.fromEntries(data().options.map((o) => [o.name, o.default]));
      const numeric = data().options.filter((o) => !o.allowed.choices && o.offered.length > 1);
      state.x = numeric.length ? numeric[0].name : null;
    };
    resetValues();

    const schemeRow = el("p", {});
    if (datasets.length > 1) {
      const sel = el("select", { id: `${uid}-scheme`, "data-control": "scheme" });
      datasets.forEach((d, i) => sel.append(el("option", { value: i, text: d.title })));
      sel.addEventListener("change", () => { state.scheme = Number(sel.value); resetValues(); build(); });
      schemeRow.append(el("label", { for: `${uid}-scheme`, text: "Scheme: " }), sel);
    }

    const machineSel = el("select", { id: `${uid}-machine`, "data-control": "machine" });
    const fileInput = el("input", { type: "file", id: `${uid}-file`, accept: ".json,application/json", "data-control": "file" });
    const fileMsg = el("p", { class: "costbook-live-message", role: "alert" });
    const machineRow = el("div", { class: "costbook-live-machine" },
      el("p", {}, el("label", { for: `${uid}-machine`, text: "Machine: " }), machineSel),
      el("p", {}, el("label", { for: `${uid}-file`, text: "Or your own measurement file (written by costbook measure): " }), fileInput),
      fileMsg);
    const controls = el("div", { class: "costbook-live-controls" });
    const words = el("p", { class: "costbook-live-words", "aria-live": "polite" });
    const table = el("table", { class: "costbook-live-table" });
    const xSel = el("select", { id: `${uid}-x`, "data-control": "x" });
    const plotBox = el("figure", { class: "costbook-live-plot" });
    container.append(schemeRow, machineRow, controls, words, table,
                     el("p", {}, el("label", { for: `${uid}-x`, text: "What-if plot against: " }), xSel), plotBox);

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
          if (set.kind !== "measured")
            throw new P.MeasurementFileError(`${file.name}: kind: the page prices measured files (costbook measure writes them), got ${P.pyRepr(set.kind)}; price a ${set.kind} file with costbook estimate --source`);
          state.own = new P.PriceSet(set, data().schema);
          state.ownFile = file.name;
          state.machine = "file";
          fileMsg.textContent = `${file.name}: checked as costbook check does; ${Object.keys(set.results).length} backend(s), ${Object.values(set.results).reduce((n, e) => n + Object.keys(e).length, 0)} prices.`;
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
    // and priced the same way (offered as "this machine", not chosen for the reader)
    if (thisMachine) {
      try {
        const set = P.parseMeasurementFile(thisMachine.text, thisMachine.name, datasets[0].schema);
        if (set.kind === "measured") {
          state.here = new P.PriceSet(set, datasets[0].schema);
          state.hereFile = thisMachine.name;
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
      return `${m.label} (${m.name})`;
    }
    const own = () => (state.machine === "file" ? state.own : state.machine === "here" ? state.here : null);
    const kind = () => (own() ? own().kind : data().machines.find((m) => m.id === state.machine).kind);

    function build() {
      const d = data();
      if (!own() && !d.machines.some((m) => m.id === state.machine)) state.machine = d.template;
      machineSel.replaceChildren(...d.machines.map((m) => el("option", { value: m.id, text: m.label })));
      if (state.here) machineSel.append(el("option", { value: "here", text: `this machine: ${state.hereFile}` }));
      if (state.own) machineSel.append(el("option", { value: "file", text: `your file: ${state.ownFile}` }));
      machineSel.value = state.machine;
      controls.replaceChildren();
      for (const opt of d.options) {
        const id = `${uid}-opt-${opt.name}`;
        const sel = el("select", { id, "data-option": opt.name });
        for (const v of opt.offered) sel.append(el("option", { value: String(v), text: String(v) }));
        sel.addEventListener("change", () => {
          state.values[opt.name] = opt.allowed.choices ? sel.value : Number(sel.value);
          update();
        });
        const offered = opt.allowed.choices || opt.offered.length === opt.allowed.high - opt.allowed.low + 1 ? "" :
          opt.offered.length > 1 ? `; the page offers the ${opt.offered.length} values listed` : "; the page keeps it at the CLI's default";
        controls.append(el("p", { class: "costbook-live-option" },
          el("label", { for: id, text: `${opt.name}: ` }), sel,
          el("span", { class: "costbook-live-allowed", text: ` (costbook estimate ${d.scheme} --${opt.name.replace(/_/g, "-")}: ${allowedWords(opt)}${offered})` })));
      }
      const numeric = d.options.filter((o) => !o.allowed.choices && o.offered.length > 1);
      xSel.replaceChildren(...numeric.map((o) => el("option", { value: o.name, text: o.name })));
      if (state.x) xSel.value = state.x;
      xSel.disabled = !numeric.length;
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
      const d = data(), values = { ...state.values };
      for (const opt of d.options) {
        const ok = P.applies(d, opt.name, values, kind());
        const sel = controls.querySelector(`[data-option="${opt.name}"]`);
        sel.disabled = !ok;
        sel.title = ok ? "" : "does not apply with the other choices or this machine's kind of file";
        if (!ok) values[opt.name] = opt.default;
        sel.value = String(values[opt.name]);
      }
      return values;
    }

    function update() {
      const d = data();
      const values = effective();
      const result = priced(values);
      const params = d.options.map((o) => `${o.name} = ${values[o.name]}`).join(", ");
      words.textContent = `${d.title}, priced with ${machineWords()}, with ${params}.`;
      words.dataset.machine = state.machine;
      table.replaceChildren(el("caption", { text: `Each step of ${d.title}: its time and interval (every price at its low or high bound), priced in this page with ${machineWords()}; ${params}.` }),
                            el("thead", {}, el("tr", {}, el("th", { text: "step" }), el("th", { text: "time [low–high]" }))));
      const body = el("tbody");
      if (result.refused !== undefined) {
        body.append(el("tr", { "data-refused": "" }, el("td", { colspan: 2, text: `Not priced: ${result.refused}` })));
      } else {
        for (const s of result.steps) {
          const row = el("tr", { "data-step": s.label }, el("td", { text: s.label }));
          if (s.error) row.append(el("td", { "data-error": "", text: `not priced: ${s.error}` }));
          else {
            row.append(el("td", { class: "num", text: P.fmtInterval(s.total, s.low, s.high) }));
            Object.assign(row.dataset, { total: String(s.total), low: String(s.low), high: String(s.high) });
          }
          body.append(row);
        }
      }
      table.append(body);
      plot(values);
    }

    function plot(values) {
      const d = data();
      plotBox.replaceChildren();
      if (!state.x) return;
      const opt = d.options.find((o) => o.name === state.x);
      const xs = opt.offered.filter((v) => v > 0);
      const series = new Map();
      for (const x of xs) {
        const r = priced({ ...values, [state.x]: x });
        if (r.refused !== undefined) continue;
        for (const s of r.steps) {
          if (s.error || !(s.total > 0)) continue;
          if (!series.has(s.label)) series.set(s.label, []);
          series.get(s.label).push([x, s.total, s.low, s.high]);
        }
      }
      const W = 760, H = 340, L = 70, R = 250, T = 10, B = 40;
      const all = [...series.values()].flat();
      const cap = el("figcaption", {});
      if (!all.length) {
        cap.textContent = `No step is priced for these values against ${state.x}.`;
        plotBox.append(cap);
        return;
      }
      const lx = (v) => Math.log10(v);
      const [x0, x1] = [lx(Math.min(...xs)), lx(Math.max(...xs))];
      const ys = all.flatMap((p) => [p[2], p[3], p[1]]).filter((v) => v > 0);
      const [y0, y1] = [Math.floor(lx(Math.min(...ys))), Math.ceil(lx(Math.max(...ys)))];
      const sx = (v) => L + ((lx(v) - x0) / (x1 - x0 || 1)) * (W - L - R);
      const sy = (v) => T + (1 - (lx(v) - y0) / (y1 - y0 || 1)) * (H - T - B);
      const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, width: "100%", role: "img",
                                "aria-label": `each step's time against ${state.x}, log scales` });
      for (let e = y0; e <= y1; e++) {
        root.append(svg("line", { x1: L, x2: W - R, y1: sy(10 ** e), y2: sy(10 ** e), stroke: "#ddd" }));
        root.append(svg("text", { x: L - 6, y: sy(10 ** e) + 4, "text-anchor": "end", "font-size": 11 }, P.fmtInterval(10 ** e, 10 ** e, 10 ** e).split(" [")[0]));
      }
      // label the powers of ten where the values hold two or more, else at most eight values
      const decades = xs.filter((x) => Number.isInteger(Math.log10(x)));
      const step = Math.ceil(xs.length / 8);
      const ticks = decades.length >= 2 ? decades : xs.filter((x, i) => i % step === 0 || i === xs.length - 1);
      for (const x of ticks) {
        const text = x >= 1e4 && Number.isInteger(Math.log10(x)) ? `10^${Math.log10(x)}` : x.toLocaleString("en-US");
        root.append(svg("text", { x: sx(x), y: H - B + 16, "text-anchor": "middle", "font-size": 10 }, text));
      }
      root.append(svg("text", { x: (L + W - R) / 2, y: H - 6, "text-anchor": "middle", "font-size": 12 }, state.x));
      const colours = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];
      [...series.entries()].forEach(([label, pts], i) => {
        const c = colours[i % colours.length];
        if (pts.length > 1) {
          const band = pts.map((p) => `${sx(p[0])},${sy(p[3])}`).concat([...pts].reverse().map((p) => `${sx(p[0])},${sy(p[2])}`));
          root.append(svg("polygon", { points: band.join(" "), fill: c, "fill-opacity": 0.15, stroke: "none" }));
          root.append(svg("polyline", { points: pts.map((p) => `${sx(p[0])},${sy(p[1])}`).join(" "), fill: "none", stroke: c, "stroke-width": 1.5 }));
        }
        for (const p of pts) root.append(svg("circle", { cx: sx(p[0]), cy: sy(p[1]), r: 2.5, fill: c }));
        root.append(svg("text", { x: W - R + 8, y: T + 14 + i * 15, "font-size": 11, fill: c }, label));
      });
      plotBox.append(root);
      cap.textContent = `What-if: each step's time against ${state.x} (log scales; the band is the interval), priced with ${machineWords()}; the other parameters as chosen above.`;
      plotBox.append(cap);
    }

    build();
    return container;
  }

  /** Mount every <div class="costbook-live" data-live="a b ..."> of the page from its embedded JSON. */
  function mountAll(P) {
    for (const box of document.querySelectorAll("div.costbook-live[data-live]")) {
      const sets = box.dataset.live.split(/\s+/).filter(Boolean).map((name) => {
        const node = document.getElementById(`costbook-live-data-${name}`);
        return JSON.parse(node.textContent);
      });
      const here = document.getElementById("costbook-live-machine");
      mount(box, sets, P, here ? { name: here.dataset.file, text: here.textContent } : null);
    }
  }

  return { mount, mountAll };
});
