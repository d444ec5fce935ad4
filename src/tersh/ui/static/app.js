// tersh settings page. Plain DOM, no framework. Text from the server is always set through
// textContent (never parsed as HTML), so captured output can hold anything.
"use strict";

const TOKEN_KEY = "tersh-ui-token";
const SVG = "http://www.w3.org/2000/svg";
const RESULTS_SHOWN = 10;
const CLASS_HINTS = {
  file_reads: "cat, head, tail, sed -n, less",
  git: "git status, log, diff, show, branch",
  containers: "docker, podman, kubectl, compose",
  github: "gh pr, gh issue, gh run",
  tests: "pytest, jest, vitest, go test, cargo test",
  builds: "tsc, mypy, make, cargo build, gcc, gradle",
  packages: "pip, uv, npm, pnpm, yarn, apt, poetry",
  other: "everything not listed above",
};

const state = {
  token: null,
  overview: null,
  viewer: { id: null, mode: "bytes", stream: "combined", offset: 0, history: [], query: null, page: null },
};

// ---------- small helpers ----------

function $(id) { return document.getElementById(id); }

function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "text") node.textContent = value;
    else if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

const integer = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });

function bytes(n) {
  if (n === null || n === undefined) return "–";
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = Number(n);
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < units.length - 1) { value /= 1024; unit += 1; }
  const digits = unit === 0 || value >= 100 ? 0 : 1;
  return `${value.toFixed(digits)} ${units[unit]}`;
}

function percent(ratio) {
  if (ratio === null || ratio === undefined || Number.isNaN(ratio)) return "–";
  return `${(ratio * 100).toFixed(ratio === 1 || ratio === 0 ? 0 : 1)}%`;
}

// A time given as Unix seconds or as an ISO 8601 string, said the way a person would.
function when(moment) {
  if (!moment) return "–";
  const date = typeof moment === "number" || /^[0-9.]+$/.test(moment) ? new Date(Number(moment) * 1000) : new Date(moment);
  if (Number.isNaN(date.getTime())) return String(moment);
  const age = (Date.now() - date.getTime()) / 1000;
  if (age < 60) return "just now";
  if (age < 3600) return `${Math.floor(age / 60)} min ago`;
  if (age < 86400) return `${Math.floor(age / 3600)} h ago`;
  return date.toLocaleDateString(undefined, { month: "short", day: "numeric" }) + " " +
    date.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
}

// Control characters (escape sequences, bells…) shown as visible symbols, not interpreted.
function visible(text) {
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g,
    (c) => String.fromCharCode(c === "\u007f" ? 0x2421 : 0x2400 + c.charCodeAt(0)));
}

let toastTimer = null;
function toast(message, bad) {
  const node = $("toast");
  node.textContent = message;
  node.classList.toggle("bad", Boolean(bad));
  node.classList.add("show");
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => node.classList.remove("show"), bad ? 6000 : 3200);
}

// ---------- the API ----------

function readToken() {
  const match = location.hash.match(/(?:^#|&)token=([A-Za-z0-9_-]+)/);
  if (match) {
    sessionStorage.setItem(TOKEN_KEY, match[1]);
    history.replaceState(null, "", location.pathname + location.search);  // keep it out of sight
    return match[1];
  }
  return sessionStorage.getItem(TOKEN_KEY);
}

function locked(detail) {
  $("locked").hidden = false;
  $("locked-detail").textContent = detail ? `(${detail})` : "";
  $("main").hidden = true;  // nothing to show or change without the key
  $("state-pill").dataset.state = "locked";
  $("state-pill").textContent = "locked";
}

async function api(path, body) {
  const options = { headers: { "X-Tersh-Token": state.token || "" }, cache: "no-store", credentials: "omit" };
  if (body !== undefined) {
    options.method = "POST";
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  let data = {};
  try { data = await response.json(); } catch (_) { data = {}; }
  if (!response.ok) {
    if (response.status === 401) locked(data.error);
    throw new Error(data.error || `the server answered ${response.status}`);
  }
  return data;
}

async function changeSettings(changes) {
  const overview = await api("/api/settings", { changes });
  renderOverview(overview);
  return overview;
}

// ---------- overview: toggle, savings, RTK, switches, budgets ----------

function renderOverview(data) {
  state.overview = data;
  const toggle = $("enabled-toggle");
  toggle.disabled = false;
  toggle.checked = data.enabled;
  $("enabled-label").textContent = data.enabled ? "On" : "Off";
  $("enabled-explain").textContent = data.enabled
    ? "Command output is compacted (and filtered by RTK when it is ready), always verified; every byte stays in a capture."
    : "Commands and their output pass through untouched.";
  const pill = $("state-pill");
  pill.dataset.state = data.enabled ? "on" : "off";
  pill.textContent = data.enabled ? "enabled" : "disabled";
  const problem = $("settings-problem");
  problem.hidden = !data.settings_problem;
  problem.textContent = data.settings_problem || "";
  renderSavings(data.savings || {});
  renderRtk(data.rtk || {});
  renderSwitches(data.switches || []);
  renderBudgets(data.budgets || []);
}

function renderSavings(s) {
  $("saving-percent").textContent = s.calls ? percent(s.saving) : "–";
  const facts = $("saving-facts");
  facts.replaceChildren();
  const add = (term, value) => facts.append(el("dt", { text: term }), el("dd", { text: value }));
  if (s.calls) {
    const unmeasured = s.calls - (s.measured_calls || 0);
    add("Calls", integer.format(s.calls) + (unmeasured ? ` (${unmeasured} unmeasured)` : ""));
    add("Output", `${bytes(s.input_bytes)} → ${bytes(s.output_bytes)} shown`);
    add("Saved", bytes(s.removed_bytes ?? (s.input_bytes - s.output_bytes)));
    if (s.retrieved_bytes) add("Net of read-backs", percent(s.net_saving));
    if (s.counted_calls) add("Tokens", `${integer.format(s.input_tokens)} → ${integer.format(s.output_tokens)} (${percent(s.token_saving)})`);
  } else {
    add("Calls", "none yet in this session");
  }
  const source = {
    "status file": "From the running session's status file",
    ledger: "No status file yet: computed from the history of the latest session",
    none: "No status file and no history yet",
  }[s.source] || "";
  $("saving-source").textContent = source + (s.session ? ` · session ${s.session}` : "");
}

function renderRtk(rtk) {
  const ready = rtk.found && rtk.verified;
  $("rtk-dot").dataset.state = ready ? "ok" : rtk.found ? "warn" : rtk.found === false ? "off" : "unknown";
  $("rtk-title").textContent = ready ? "Ready" : rtk.found ? "Found, not verified" : rtk.found === false ? "Not in use" : "Not probed yet";
  const reason = $("rtk-reason");
  reason.textContent = ready ? "RTK filters the output of commands it has a filter for; its text is used only when the verifier finds nothing lost." : (rtk.reason || "No reason given.");
  reason.dataset.failed = String(!ready && rtk.found !== null && rtk.found !== undefined);
  const facts = $("rtk-facts");
  facts.replaceChildren();
  if (rtk.version) facts.append(el("dt", { text: "Version" }), el("dd", { text: rtk.version }));
  if (rtk.path) facts.append(el("dt", { text: "Path" }), el("dd", { text: rtk.path }));
  $("rtk-checked").textContent = rtk.checked_at ? `checked ${when(rtk.checked_at)}` : "";
}

function renderSwitches(switches) {
  const list = $("switches");
  list.replaceChildren(...switches.map((s) => {
    const input = el("input", { type: "checkbox", role: "switch", "data-key": s.key, id: `switch-${s.name}` });
    input.checked = s.on;
    input.addEventListener("change", async () => {
      input.disabled = true;
      try {
        await changeSettings({ [s.key]: input.checked });
        toast(`${s.label}: ${input.checked ? "on" : "off"}. Takes effect on the next command.`);
      } catch (error) {
        input.checked = !input.checked;
        toast(`Not saved: ${error.message}`, true);
      } finally {
        input.disabled = false;
      }
    });
    return el("li", {}, el("label", { for: `switch-${s.name}` },
      el("span", { class: "what" }, el("span", { text: s.label }), el("small", { text: CLASS_HINTS[s.name] || "" })),
      input, el("span", { class: "track", "aria-hidden": "true" }, el("span", { class: "thumb" }))));
  }));
}

function budgetShown(budget, value) {
  return budget.unit === "fraction" ? Math.round(value * 1000) / 10 : value;
}

function budgetHint(budget, shown) {
  if (budget.unit === "bytes") return `${bytes(Number(shown))}`;
  if (budget.unit === "fraction") return "percent of the whole payload";
  return budget.unit;
}

function renderBudgets(budgets) {
  const list = $("budget-list");
  list.replaceChildren(...budgets.map((b) => {
    const input = el("input", {
      type: "number", id: `budget-${b.key}`, "data-key": b.key, step: b.unit === "fraction" ? "0.1" : "1",
      min: budgetShown(b, b.min), max: budgetShown(b, b.max), inputmode: "decimal",
    });
    input.value = budgetShown(b, b.value);
    input.dataset.saved = input.value;
    const hint = el("span", { class: "hint" }, el("span", { text: budgetHint(b, input.value) }));
    if (b.value !== b.default) {
      hint.append(" · default ", el("button", {
        type: "button", text: String(budgetShown(b, b.default)),
        onclick: () => { input.value = budgetShown(b, b.default); input.dispatchEvent(new Event("input")); },
      }));
    }
    input.addEventListener("input", () => {
      hint.firstChild.textContent = budgetHint(b, input.value);
      input.closest(".budget").classList.toggle("changed", input.value !== input.dataset.saved);
      input.removeAttribute("aria-invalid");
      budgetsDirty();
    });
    const about = el("p", { class: "about", id: `about-${b.key}`, text: b.description || "" });
    input.setAttribute("aria-describedby", about.id);
    return el("div", { class: "budget" }, el("label", { class: "label", for: input.id, text: b.label }), input, hint, about);
  }));
  budgetsDirty();
}

function budgetsDirty() {
  const dirty = [...document.querySelectorAll("#budget-list input")].some((i) => i.value !== i.dataset.saved);
  $("budgets-save").disabled = !dirty;
  $("budgets-revert").disabled = !dirty;
  if (!dirty) $("budgets-error").textContent = "";
}

async function saveBudgets(event) {
  event.preventDefault();
  const changes = {};
  for (const input of document.querySelectorAll("#budget-list input")) {
    if (input.value === input.dataset.saved) continue;
    const budget = state.overview.budgets.find((b) => b.key === input.dataset.key);
    const number = Number(input.value);
    if (input.value.trim() === "" || !Number.isFinite(number)) {
      input.setAttribute("aria-invalid", "true");
      $("budgets-error").textContent = `${budget.label} needs a number`;
      return;
    }
    changes[budget.key] = budget.unit === "fraction" ? number / 100 : number;
  }
  const button = $("budgets-save");
  button.setAttribute("aria-busy", "true");
  try {
    await changeSettings(changes);
    toast("Budgets saved. They apply from the next command.");
  } catch (error) {
    $("budgets-error").textContent = error.message;
  } finally {
    button.removeAttribute("aria-busy");
  }
}

async function toggleEnabled() {
  const toggle = $("enabled-toggle");
  const wanted = toggle.checked;
  toggle.disabled = true;
  try {
    await changeSettings({ enabled: wanted });
    toast(wanted ? "tersh is on from the next command." : "tersh is off: the next command passes through untouched.");
  } catch (error) {
    toggle.checked = !wanted;
    toast(`Not saved: ${error.message}`, true);
  } finally {
    toggle.disabled = false;
  }
}

async function retryRtk() {
  const button = $("rtk-retry");
  button.disabled = true;
  button.setAttribute("aria-busy", "true");
  button.textContent = "Probing…";
  try {
    const { rtk } = await api("/api/rtk/retry", {});
    renderRtk(rtk);
    toast(rtk.found && rtk.verified ? `RTK ${rtk.version || ""} is ready.` : `Probe failed: ${rtk.reason || "no reason given"}`, !(rtk.found && rtk.verified));
  } catch (error) {
    toast(`Retry failed: ${error.message}`, true);
  } finally {
    button.disabled = false;
    button.removeAttribute("aria-busy");
    button.textContent = "Retry";
  }
}

// ---------- the chart (inline SVG) ----------

function svg(tag, attrs, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

function renderChart(days) {
  const box = $("chart");
  const width = Math.max(box.clientWidth || 900, 320);
  const height = 220;
  const pad = { top: 14, right: 8, bottom: 26, left: 62 };
  const inner = { w: width - pad.left - pad.right, h: height - pad.top - pad.bottom };
  const top = Math.max(...days.map((d) => d.input_bytes), 0);
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, preserveAspectRatio: "none", "data-days": days.length });
  const scale = niceMax(top);
  for (let i = 0; i <= 4; i += 1) {
    const y = pad.top + inner.h - (inner.h * i) / 4;
    chart.append(svg("line", { class: "axis", x1: pad.left, x2: width - pad.right, y1: y, y2: y }));
    chart.append(svg("text", { x: pad.left - 8, y: y + 4, "text-anchor": "end" }, bytes((scale * i) / 4)));
  }
  const slot = inner.w / days.length;
  const marks = labelledDays(days.length, Math.ceil(days.length / Math.max(1, Math.floor(inner.w / 70))));
  const barWidth = Math.max(2, Math.min(26, slot * 0.68));
  days.forEach((d, i) => {
    const x = pad.left + slot * i + (slot - barWidth) / 2;
    const hIn = scale ? (inner.h * d.input_bytes) / scale : 0;
    const hOut = scale ? (inner.h * d.output_bytes) / scale : 0;
    const group = svg("g", { "data-day": d.day });
    group.append(svg("title", {}, `${d.day}: ${d.calls} calls, ${bytes(d.input_bytes)} → ${bytes(d.output_bytes)} (${percent(d.saving)} saved)`));
    group.append(svg("rect", { class: "bar-in", x, width: barWidth, y: pad.top + inner.h - hIn, height: hIn, rx: 3 }));
    group.append(svg("rect", { class: "bar-out", x, width: barWidth, y: pad.top + inner.h - hOut, height: hOut, rx: 3 }));
    chart.append(group);
    if (marks.has(i)) {
      const label = new Date(`${d.day}T12:00:00`).toLocaleDateString(undefined, { month: "short", day: "numeric" });
      chart.append(svg("text", { x: x + barWidth / 2, y: height - 8, "text-anchor": "middle" }, label));
    }
  });
  if (!top) {
    chart.append(svg("text", { class: "nodata", x: pad.left + inner.w / 2, y: pad.top + inner.h / 2, "text-anchor": "middle" },
      "No calls in the last 30 days"));
  }
  box.replaceChildren(chart);
  const total = days.reduce((a, d) => ({ i: a.i + d.input_bytes, o: a.o + d.output_bytes, c: a.c + d.calls }), { i: 0, o: 0, c: 0 });
  $("chart-summary").textContent = total.c
    ? `Last ${days.length} days: ${integer.format(total.c)} calls, ${bytes(total.i)} of output, ${bytes(total.o)} shown to the model — ${percent(total.i ? (total.i - total.o) / total.i : null)} saved.`
    : "";
}

// Which days get a date under their bar: every `every`-th, and always the last one.
function labelledDays(count, every) {
  const marks = new Set();
  for (let i = 0; i < count; i += every) marks.add(i);
  const last = count - 1;
  const previous = last - (last % every);
  if (previous !== last) marks.delete(previous);  // too close to the last day's label
  marks.add(last);
  return marks;
}

function niceMax(value) {
  if (value <= 0) return 0;
  const power = 1024 ** Math.floor(Math.log(value) / Math.log(1024));
  const steps = [1, 2, 4, 5, 8, 10, 16, 20, 25, 40, 50, 64, 80, 100, 128, 200, 256, 400, 512, 800, 1024];
  const scaled = value / power;
  return power * (steps.find((s) => s >= scaled) || 1024);
}

// ---------- recent results ----------

function meterFill(ratio) {
  const fill = el("span");
  fill.style.width = `${Math.max(0, Math.min(100, ratio * 100)).toFixed(1)}%`;  // CSSOM: allowed by the CSP
  return fill;
}

function renderResults(rows) {
  $("results-empty").hidden = rows.length > 0;
  const more = $("results-more");
  more.hidden = rows.length <= RESULTS_SHOWN;
  more.textContent = `Show all ${rows.length}`;
  $("results").replaceChildren(...rows.map((r, index) => {
    const command = el("td", {}, el("div", { class: "cmd", text: r.requested }));
    if (r.rewritten) command.append(el("div", { class: "cmd executed", text: r.executed }));
    if (r.rtk_outcome === "accepted") command.append(el("div", { class: "tag", text: "filtered by RTK, verified" }));
    else if (r.rtk_outcome) command.append(el("div", { class: "tag", text: `RTK's text ${r.rtk_outcome === "refused" ? "refused by the verifier" : "unavailable"}` }));
    if (r.rule && r.rtk_outcome !== "accepted") command.append(el("div", { class: "tag", text: `compacted by the ${r.rule} rule` }));
    const saving = r.saving === null || r.saving === undefined
      ? el("span", { class: "muted", text: r.measured ? "–" : "unmeasured" })
      : el("div", { class: "meter" },
        el("div", { class: "bar" }, meterFill(r.saving)),
        el("b", { text: percent(r.saving) }));
    const open = r.capture_id && r.capture_available
      ? el("button", { type: "button", class: "button ghost", text: "Full details", onclick: () => openCapture(r.capture_id, r.requested) })
      : el("span", { class: "muted small", text: r.capture_id ? "expired" : "" });
    return el("tr", { class: index >= RESULTS_SHOWN ? "extra" : null },
      el("td", { class: "when", text: when(r.ts) }), command,
      el("td", { class: `num ${r.exit_code ? "exit-bad" : ""}`, text: String(r.exit_code) }),
      el("td", { class: "num", text: bytes(r.input_bytes) }),
      el("td", { class: "num", text: bytes(r.output_bytes) }),
      el("td", {}, saving), el("td", {}, open));
  }));
}

// ---------- the capture viewer ----------

function renderCaptures(rows) {
  $("captures-empty").hidden = rows.length > 0;
  $("captures").replaceChildren(...rows.map((c) => el("li", {}, el("button", {
    type: "button", "data-id": c.id, "aria-current": String(c.id === state.viewer.id),
    onclick: () => openCapture(c.id, c.command),
  }, el("span", { class: "c-cmd", text: c.command }),
  el("span", { class: "c-meta", text: `${c.id} · ${bytes(c.combined_bytes)} · exit ${c.exit_code ?? "?"} · ${when(c.created)}` })))));
}

function openCapture(id, command) {
  Object.assign(state.viewer, { id, offset: 0, history: [], query: null });
  $("query").value = "";
  $("reader-title").textContent = `${id} · ${command || ""}`;
  for (const b of document.querySelectorAll("#captures button")) b.setAttribute("aria-current", String(b.dataset.id === id));
  loadPage();
  $("card-viewer").scrollIntoView({ behavior: "smooth", block: "start" });
}

async function loadPage() {
  const v = state.viewer;
  if (!v.id) return;
  const params = new URLSearchParams({ mode: v.mode, stream: v.stream, offset: String(v.offset) });
  if (v.query) params.set("query", v.query);
  const target = $("page");
  target.setAttribute("aria-busy", "true");
  try {
    const page = await api(`/api/captures/${encodeURIComponent(v.id)}?${params}`);
    v.page = page;
    renderPage(page);
  } catch (error) {
    target.replaceChildren(el("div", { class: "note error", text: error.message }));
    $("page-meta").textContent = "";
  } finally {
    target.removeAttribute("aria-busy");
  }
}

function highlight(text, query) {
  const shown = visible(text);
  if (!query) return [shown];
  const parts = [];
  const lower = shown.toLowerCase();
  const needle = query.toLowerCase();
  let at = 0;
  for (let hit = lower.indexOf(needle); hit !== -1 && needle; hit = lower.indexOf(needle, at)) {
    parts.push(shown.slice(at, hit), el("mark", { text: shown.slice(hit, hit + needle.length) }));
    at = hit + needle.length;
  }
  parts.push(shown.slice(at));
  return parts;
}

function row(at, text, query) {
  return el("div", { class: "row" }, el("span", { class: "at", text: at }), el("span", { class: "tx" }, ...highlight(text, query)));
}

function renderPage(page) {
  const target = $("page");
  const rows = [];
  let gutter = 7;
  if (page.mode === "bytes") {
    const encoder = new TextEncoder();
    let offset = page.offset;
    const lines = page.text.split("\n");
    if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
    for (const line of lines) {
      rows.push(row(integer.format(offset), line));
      offset += encoder.encode(line).length + 1;
    }
    gutter = Math.max(7, integer.format(page.end_offset).length + 1);
    $("page-meta").textContent = `bytes ${integer.format(page.offset)}–${integer.format(page.end_offset)} of ${integer.format(page.size)}`;
    setProgress(page.offset, page.end_offset, page.size);
  } else if (page.mode === "lines") {
    for (const line of page.lines) rows.push(row(integer.format(line.number), line.text));
    const first = page.lines.length ? page.lines[0].number : page.offset;
    const last = page.lines.length ? page.lines[page.lines.length - 1].number : page.offset;
    gutter = Math.max(5, integer.format(last).length + 1);
    $("page-meta").textContent = `lines ${integer.format(first)}–${integer.format(last)} of ${integer.format(page.total_lines)} · ${bytes(page.size)}`;
    setProgress(first - 1, last, page.total_lines || 1);
  } else {
    for (const line of page.lines) {
      const hit = row(integer.format(line.number), line.text, page.query);
      hit.classList.add("hit");
      hit.title = "Open this line";
      hit.addEventListener("click", () => jumpToLine(line.number));
      rows.push(hit);
    }
    if (!page.lines.length) rows.push(el("div", { class: "note", text: `No line contains “${page.query}”.` }));
    if (page.more) rows.push(el("div", { class: "note", text: `${integer.format(page.more)} more matching lines not shown; refine the search.` }));
    const count = page.lines.length + page.more;
    $("page-meta").textContent = `${integer.format(count)} matching ${count === 1 ? "line" : "lines"} for “${page.query}” in ${bytes(page.size)} · click one to read around it`;
    setProgress(0, 0, 1);
  }
  if (page.mode !== "search" && !rows.length) rows.push(el("div", { class: "note", text: "Nothing here: this stream is empty at this offset." }));
  target.style.setProperty("--gutter", `${gutter}ch`);
  target.replaceChildren(...rows);
  target.scrollTop = 0;
  $("prev").disabled = page.mode === "search" ? true : page.offset <= 0;
  $("next").disabled = page.mode === "search" || page.next_offset === null || page.next_offset === undefined;
  for (const b of document.querySelectorAll(".segmented button")) b.classList.toggle("on", b.dataset.mode === state.viewer.mode && page.mode !== "search");
  $("goto-offset").placeholder = state.viewer.mode === "bytes" ? "byte offset" : "line offset";
}

function setProgress(start, end, total) {
  const bar = $("progress");
  bar.hidden = end <= start;
  bar.style.left = `${(100 * start) / Math.max(total, 1)}%`;
  bar.style.width = `${(100 * Math.max(end - start, 0)) / Math.max(total, 1)}%`;
}

function jumpToLine(number) {
  Object.assign(state.viewer, { mode: "lines", offset: Math.max(0, number - 1), query: null, history: [] });
  loadPage();
}

function step(direction) {
  const v = state.viewer;
  const page = v.page;
  if (!page) return;
  if (direction > 0 && page.next_offset !== null && page.next_offset !== undefined) {
    v.history.push(v.offset);
    v.offset = page.next_offset;
  } else if (direction < 0) {
    const size = v.mode === "bytes" ? 64 * 1024 : 200;
    v.offset = v.history.length ? v.history.pop() : Math.max(0, v.offset - size);
  }
  loadPage();
}

// ---------- start ----------

async function refresh() {
  const [overview, days, results, captures] = await Promise.all([
    api("/api/overview"), api("/api/savings/daily?days=30"), api("/api/results?limit=30"), api("/api/captures?limit=60"),
  ]);
  renderOverview(overview);
  renderChart(days);
  renderResults(results);
  renderCaptures(captures);
}

function wire() {
  $("enabled-toggle").addEventListener("change", toggleEnabled);
  $("rtk-retry").addEventListener("click", retryRtk);
  $("budgets").addEventListener("submit", saveBudgets);
  $("budgets-revert").addEventListener("click", () => renderBudgets(state.overview.budgets));
  $("results-more").addEventListener("click", () => {
    const all = $("results").closest("table").classList.toggle("all");
    $("results-more").textContent = all ? "Show fewer" : `Show all ${$("results").children.length}`;
  });
  $("refresh").addEventListener("click", () => refresh().catch((e) => toast(e.message, true)));
  $("prev").addEventListener("click", () => step(-1));
  $("next").addEventListener("click", () => step(1));
  $("stream").addEventListener("change", (e) => { Object.assign(state.viewer, { stream: e.target.value, offset: 0, history: [] }); loadPage(); });
  for (const b of document.querySelectorAll(".segmented button")) {
    b.addEventListener("click", () => { Object.assign(state.viewer, { mode: b.dataset.mode, offset: 0, history: [], query: null }); loadPage(); });
  }
  $("goto").addEventListener("submit", (e) => {
    e.preventDefault();
    const value = Number($("goto-offset").value);
    if (!Number.isInteger(value) || value < 0) { toast("The offset must be a whole number, 0 or more.", true); return; }
    Object.assign(state.viewer, { offset: value, history: [], query: null });
    loadPage();
  });
  $("search").addEventListener("submit", (e) => {
    e.preventDefault();
    const query = $("query").value.trim();
    state.viewer.query = query || null;
    if (!query) state.viewer.offset = 0;
    loadPage();
  });
  let resizeTimer = null;
  window.addEventListener("resize", () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => api("/api/savings/daily?days=30").then(renderChart).catch(() => {}), 200);
  });
}

document.addEventListener("DOMContentLoaded", () => {
  wire();
  state.token = readToken();
  if (!state.token) { locked("no key in this address"); return; }
  refresh().then(() => {
    // Draw the loaded state with transitions off, then allow them for the user's own changes.
    void document.body.offsetWidth;
    document.body.dataset.ready = "true";
    requestAnimationFrame(() => requestAnimationFrame(() => { document.body.dataset.settled = "true"; }));
  }).catch((error) => toast(error.message, true));
});
