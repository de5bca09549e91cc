"use strict";
// The page of `git supervisor ui`: every read is a command's JSON, every
// action the command itself; the server says when the state ref moves.
const token = new URLSearchParams(location.search).get("token") || "";
const view = document.getElementById("view");
let statusJson = null, stateJson = null, clockSkew = 0;
let logSource = null;
window.uiUpdates = 0;

const esc = (s) => String(s == null ? "" : s).replace(/[&<>"']/g, (c) =>
  ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
const enc = encodeURIComponent;

async function get(path) {
  const r = await fetch(path, { headers: { "x-supervisor-token": token } });
  const body = await r.json();
  if (!r.ok) throw new Error(body.error || r.statusText);
  return body;
}

function route() {
  const h = location.hash.replace(/^#\/?/, "");
  const [name, ...rest] = h.split("/");
  return { name: name || "overview", args: rest.map(decodeURIComponent) };
}

function since(iso) {
  const t = Date.parse(iso);
  if (isNaN(t)) return "";
  let s = Math.max(0, Math.floor((Date.now() + clockSkew - t) / 1000));
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60);
  s = s % 60;
  return (h ? h + ":" + String(m).padStart(2, "0") : m) + ":" + String(s).padStart(2, "0");
}

function tickClocks() {
  for (const el of document.querySelectorAll(".clock[data-since]")) el.textContent = since(el.dataset.since);
}
setInterval(tickClocks, 1000);

function header() {
  const st = statusJson;
  document.getElementById("operation").textContent = st && st.operation ? st.operation : "No run in this repository";
  const o = document.getElementById("overall");
  o.textContent = st ? st.overall : "";
  o.dataset.overall = st ? st.overall : "";
  document.getElementById("cost").textContent = st && st.cost_usd ? "$" + st.cost_usd.toFixed(4) + " so far" : "";
}

// What waits for a person comes first, each with the command that acts on it.
function needsHtml(st) {
  const needs = st.needs_you || [];
  if (!needs.length) return "";
  return '<section class="needs" data-testid="needs-you"><h3>Needs you</h3><ul>' +
    needs.map((n) => '<li data-kind="' + esc(n.kind) + '">' + esc(n.message) + "<br><code>" + esc(n.command) + "</code></li>").join("") +
    "</ul></section>";
}

// Browser notifications, only once the user asked for them with a click:
// each new thing that needs them, while the page is open.
const notifyButton = document.getElementById("notify");
let notified = null;
function notifyNeeds(st) {
  const keys = (st.needs_you || []).map((n) => n.kind + " " + n.message);
  const fresh = notified ? keys.filter((k) => !notified.has(k)) : [];
  notified = new Set(keys);
  if (!("Notification" in window) || Notification.permission !== "granted") return;
  for (const k of fresh) new Notification("git supervisor", { body: k.slice(k.indexOf(" ") + 1) });
}
if (notifyButton) {
  if (!("Notification" in window)) notifyButton.hidden = true;
  else if (Notification.permission === "granted") notifyButton.textContent = "Notifications on";
  notifyButton.addEventListener("click", async () => {
    const p = await Notification.requestPermission();
    notifyButton.textContent = p === "granted" ? "Notifications on" : "Notifications " + p;
    notifyButton.dataset.permission = p;
  });
}

function waitsHtml(st, state) {
  const lines = [];
  for (const w of st.waiting || []) lines.push(w);
  for (const b of st.blocked || []) lines.push(typeof b === "string" ? b : JSON.stringify(b));
  if (st.next_event) lines.push("Next: " + st.next_event);
  let html = '<h3>What the run waits for</h3><ul class="waits" data-testid="waits">' +
    lines.map((l) => "<li>" + esc(l) + "</li>").join("") + "</ul>";
  const b = state && state.build;
  if (b) {
    html += '<h3>Phase builds</h3><p data-testid="build">' + esc(b.runs) + " build(s) run" +
      (b.running_since ? ', one running for <span class="clock" style="display:inline" data-since="' + esc(b.running_since) + '"></span>' : "") +
      (b.unpassed ? "; last " + esc(b.unpassed.verdict) + " at " + esc(String(b.unpassed.head).slice(0, 12)) + " (" + esc((b.unpassed.units || []).join(", ")) + ")" : "") + "</p>";
  }
  const where = [], dr = (stateJson && stateJson.driven) || {};
  const workers = (dr.workers || []).length ? " by workers " + dr.workers.join(", ") : "";
  if (stateJson && stateJson.lives_on) where.push("Driven from the remote `" + stateJson.lives_on + "`" + workers + "; this page fetches it every few seconds and follows it.");
  else if (workers) where.push("Driven" + workers + ".");
  if ((dr.clones || []).length) where.push("Agents run in another clone: " + dr.clones.join(", ") + ".");
  if (dr.tip_from_elsewhere) where.push("Last update from elsewhere" + ((dr.tip_remotes || []).length ? " (the state of `" + dr.tip_remotes.join("`, `") + "`)" : "") +
    (dr.tip_arrived ? ", arrived " + new Date(dr.tip_arrived * 1000).toISOString().replace("T", " ").slice(0, 19) + " UTC" : "") + ": not written by this clone.");
  for (const [r, rel] of Object.entries(st.remotes || {})) where.push("Remote " + r + ": " + (typeof rel === "string" ? rel : JSON.stringify(rel)));
  if (where.length) html += '<p data-testid="where">' + where.map(esc).join("<br>") + "</p>";
  return html;
}

function overview() {
  const st = statusJson, state = stateJson && stateJson.state;
  if (!st || !state) { view.innerHTML = "<p>No run in this repository. Start one with <code>git supervisor start</code>.</p>"; return; }
  const width = Math.max(1, ...state.units.map((u) => u.sprints.length));
  const rows = [];
  let layer;
  state.units.forEach((u, i) => {
    const su = st.units[i] || {};
    if (u.layer !== layer) {
      layer = u.layer;
      rows.push('<tr class="layer"><th colspan="' + (width + 4) + '">Layer ' + esc(layer == null ? "–" : layer) + "</th></tr>");
    }
    const cells = [];
    for (let k = 0; k < width; k++) {
      const sp = u.sprints[k];
      if (!sp) { cells.push("<td></td>"); continue; }
      const a = sp.agent;
      const clock = a && (sp.state === "RUNNING" || sp.state === "DISPATCHED") ? '<span class="clock" data-since="' + esc(a.dispatched_at) + '"></span>' : "";
      const host = a && (a.worker || a.host) ? ' title="' + esc(a.worker ? "worker " + a.worker : a.host) + '"' : "";
      cells.push('<td class="cell s-' + esc(sp.state) + '" data-unit="' + esc(u.name) + '" data-sprint="' + esc(sp.id) + '" data-state="' + esc(sp.state) + '"' + host +
        '><a href="#/sprint/' + enc(u.name) + "/" + enc(sp.id) + '">' + esc(sp.id) + (sp.attempt > 1 ? " ×" + esc(sp.attempt) : "") + clock + "</a></td>");
    }
    // What the terminal's live view shows of a running sprint: its name,
    // elapsed time, attempt, cost so far and the agent's last line.
    const cur = su.current, act = u.sprints.find((sp) => sp.state === "RUNNING" || sp.state === "DISPATCHED");
    let now = "";
    if (cur && act && act.agent) {
      const line = (st.agent_last_lines || {})[u.name];
      now = esc("S" + cur.id + " " + cur.name) + ' <span class="clock" style="display:inline" data-since="' + esc(act.agent.dispatched_at) + '"></span>' +
        " · try " + esc(Math.max(1, cur.attempt)) + "/" + esc(cur.max_retries) + (cur.cost_usd ? " · $" + cur.cost_usd.toFixed(4) : "") +
        (line ? '<br><span class="muted">' + esc(line) + "</span>" : "");
    }
    rows.push('<tr data-unit-row="' + esc(u.name) + '"><th><a href="#/history/' + enc(u.name) + '">' + esc(u.name) + "</a></th>" +
      '<td class="u-' + esc(u.state) + '" data-unit-state="' + esc(u.state) + '">' + esc(u.state) + (u.built ? " ✓built" : "") + "</td>" +
      "<td>" + esc(su.sprint_completed) + "/" + esc(su.sprint_total) + (su.cost_usd ? " $" + su.cost_usd.toFixed(4) : "") + "</td>" + cells.join("") +
      '<td class="now" data-testid="now-' + esc(u.name) + '">' + now + "</td></tr>");
  });
  view.innerHTML = needsHtml(st) + waitsHtml(st, state) + '<h3>Units × sprints</h3><table class="grid" data-testid="grid">' + rows.join("") + "</table>" +
    '<p class="muted">' + esc(st.active_agents) + " agent(s) running · run " + esc(st.run_id) + " · state " + esc(String(stateJson.tip).slice(0, 12)) + "</p>";
}

async function sprintPage(unit, sprint) {
  const d = await get("/api/sprint?unit=" + enc(unit) + "&sprint=" + enc(sprint));
  if (d.error) { view.innerHTML = '<p class="error">' + esc(d.error) + "</p>"; return; }
  const sp = d.sprint, sum = d.summary || {};
  let html = '<h2 data-testid="sprint-title">' + esc(unit) + " · sprint " + esc(sp.id) + ": " + esc(sp.name) + "</h2>" +
    '<p>State <span class="badge s-' + esc(sp.state) + '" data-testid="sprint-state">' + esc(sp.state) + "</span> · attempt " + esc(sp.attempt) +
    " · " + esc(sp.dispatches) + " dispatch(es)" + (sp.model ? " · model " + esc(sp.model) : "") + (sp.last_failure ? ' · <span class="error">' + esc(sp.last_failure) + "</span>" : "") + "</p>";
  if (sp.state === "PARTIAL") html += '<p><button data-action="confirm" data-unit="' + esc(unit) + '" data-sprint="' + esc(sp.id) + '">Confirm this sprint</button></p>';
  if (d.summary) html += '<p data-testid="verified-by">' + (sum.verified_by_command ? "Verified by an exit-criterion command." :
    '<span class="error">Completed on the agent\'s word: no exit-criterion command checked it.</span>') + "</p>";
  html += '<h3>Exit criteria</h3><ul data-testid="criteria">' + (sum.criteria || []).map((c) =>
    "<li>" + (c.verified ? "✔ " : "✘ ") + esc(c.text) + ' <span class="muted">— ' + esc(c.how) + "</span></li>").join("") + "</ul>";
  html += '<h3>Commits in scope</h3><p data-testid="commits">' + ((sum.commits || sp.commits || []).map((c) => "<code>" + esc(c) + "</code>").join(" ") || '<span class="muted">none</span>') + "</p>";
  html += '<h3>Attempts</h3><table data-testid="attempts"><tr><th>#</th><th>model</th><th>outcome</th><th>seconds</th><th>turns</th></tr>' +
    d.attempts.map((a) => "<tr><td>" + esc(a.attempt) + "</td><td>" + esc(a.model) + "</td><td>" + esc(a.outcome) + "</td><td>" + esc(a.seconds) + "</td><td>" + esc(a.turns) + "</td></tr>").join("") + "</table>";
  html += '<h3>Exit criteria per attempt</h3><div data-testid="checks">' + (d.verdicts.length ? d.verdicts.map(verdictHtml).join("") : '<p class="muted">no verdict yet</p>') + "</div>";
  html += '<h3>Verdicts and transitions</h3><table class="history" data-testid="evidence">' + d.transitions.map(entryRow).join("") + "</table>";
  for (const p of d.dispatches) {
    html += "<details" + (p.n === d.dispatches.length ? " open" : "") + "><summary>Dispatch " + esc(p.n) + ": prompt, agent's result</summary>" +
      "<h4>Prompt</h4><pre>" + esc(p.prompt || "(not kept)") + "</pre>" +
      (p.result ? "<h4>Agent's result</h4><pre>" + esc(p.result) + "</pre>" : "") +
      (p.report ? "<h4>Wrapper's report</h4><pre>" + esc(p.report) + "</pre>" : "") + "</details>";
  }
  html += '<h3>Agent output <span class="muted">(follows live)</span></h3><pre id="agent-log" data-testid="agent-log"></pre>';
  view.innerHTML = html;
  const pre = document.getElementById("agent-log");
  if (logSource) logSource.close();
  logSource = new EventSource("/api/agent-log?unit=" + enc(unit) + "&sprint=" + enc(sp.id) + "&token=" + enc(token));
  logSource.addEventListener("log", (e) => {
    const follow = pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 4;
    pre.textContent += e.data + "\n";
    if (follow) pre.scrollTop = pre.scrollHeight;
  });
}

// One verdict: the attempt, what it decided, and each exit-criterion
// command it ran with its exit status and the end of its output.
function verdictHtml(v, i) {
  const checks = v.checks.length ? v.checks.map((c) =>
    '<li class="check ' + (c.passed ? "pass" : "fail") + '" data-passed="' + c.passed + '">' + (c.passed ? "✔ pass" : "✘ fail") + " <code>" + esc(c.command) + "</code>" +
    (c.exit == null ? "" : ' <span class="muted">exit ' + esc(c.exit) + "</span>") + (c.why && !c.passed && c.why !== "exit " + c.exit ? ' <span class="error">' + esc(c.why) + "</span>" : "") +
    (c.output ? "<pre>" + esc(c.output) + "</pre>" : "") + "</li>").join("") : '<li class="muted">no exit-criterion command ran</li>';
  return '<div class="verdict" data-attempt="' + (i + 1) + '" data-outcome="' + esc(v.outcome) + '"><h4>Dispatch ' + (i + 1) + (v.attempt ? ' <span class="muted">(attempt ' + esc(v.attempt) + ")</span>" : "") + ': <span class="badge s-' + esc(v.to) + '">' + esc(v.outcome) + "</span> " +
    '<a href="#/commit/' + enc(v.commit) + '"><code>' + esc(String(v.commit).slice(0, 10)) + '</code></a></h4><p class="muted">' + esc(v.evidence) + "</p><ul>" + checks + "</ul></div>";
}

function entryRow(e) {
  return '<tr data-commit="' + esc(e.commit) + '"><td><a class="sha" href="#/commit/' + esc(e.commit) + '">' + esc(String(e.commit).slice(0, 10)) + "</a></td><td>" + esc(e.time) +
    "</td><td>" + esc(e.subject) + '</td><td class="muted">' + esc(e.why) + "</td></tr>";
}

async function history(unit, sprint) {
  unit = unit || ""; sprint = sprint || "";
  const entries = await get("/api/log?unit=" + enc(unit) + "&sprint=" + enc(sprint));
  const units = stateJson && stateJson.state ? stateJson.state.units.map((u) => u.name) : [];
  view.innerHTML = '<h2>History</h2><p>Unit <select id="f-unit"><option value="">all</option>' +
    units.map((u) => "<option" + (u === unit ? " selected" : "") + ' value="' + esc(u) + '">' + esc(u) + "</option>").join("") +
    '</select> Sprint <input id="f-sprint" size="6" value="' + esc(sprint) + '"> <span class="muted">' + entries.length +
    ' transitions, newest first; each is a commit of refs/supervisor/state</span></p><table class="history" data-testid="history">' +
    entries.map(entryRow).join("") + "</table>";
  const go = () => { location.hash = "#/history/" + enc(document.getElementById("f-unit").value) + "/" + enc(document.getElementById("f-sprint").value); };
  document.getElementById("f-unit").onchange = go;
  document.getElementById("f-sprint").onchange = go;
}

// One commit of refs/supervisor/state: its message, trailers, the state
// files it changed and their diff.
async function commitPage(id) {
  const c = await get("/api/commit?id=" + enc(id));
  view.innerHTML = '<h2 data-testid="commit-title">State commit <code>' + esc(c.commit.slice(0, 12)) + "</code></h2>" +
    '<p class="muted">' + esc(c.time) + " · " + esc(c.author) + (c.parent ? ' · after <a href="#/commit/' + enc(c.parent) + '"><code>' + esc(c.parent.slice(0, 10)) + "</code></a>" : " · the run's first commit") + "</p>" +
    '<pre data-testid="commit-message">' + esc(c.message) + "</pre>" +
    '<h3>Trailers</h3><table data-testid="commit-trailers">' + c.trailers.map(([k, v]) => "<tr><th>" + esc(k) + "</th><td>" + esc(v) + "</td></tr>").join("") + "</table>" +
    '<h3>State files changed</h3><ul data-testid="commit-files">' + c.files.map((f) => "<li><code>" + esc(f.status) + " " + esc(f.path) + "</code></li>").join("") + "</ul>" +
    '<h3>Diff</h3><pre class="diff" data-testid="commit-diff">' + esc(c.diff) + (c.diff_cut ? "\n… (cut)" : "") + "</pre>";
}

function timeline() {
  view.innerHTML = '<h2>Timeline</h2><img alt="timeline" src="/api/timeline.svg?token=' + enc(token) + "&t=" + Date.now() + '">';
}

let busy = false, again = false;
async function refresh() {
  if (busy) { again = true; return; }
  busy = true;
  const began = performance.now();
  try {
    const r = route();
    [statusJson, stateJson] = await Promise.all([get("/api/status"), get("/api/state")]);
    if (stateJson.now) clockSkew = stateJson.now * 1000 - Date.now();
    header();
    notifyNeeds(statusJson);
    if (r.name !== "sprint" && logSource) { logSource.close(); logSource = null; }
    if (r.name === "sprint") await sprintPage(r.args[0], r.args[1]);
    else if (r.name === "history") await history(r.args[0], r.args[1]);
    else if (r.name === "timeline") timeline();
    else if (r.name === "commit") await commitPage(r.args[0]);
    else overview();
    tickClocks();
    document.body.dataset.tip = stateJson.tip || "";
    window.uiUpdates++;
    // For the benchmark and tests: when each tip was drawn, and how long
    // the latest drawing took.
    window.drawn = window.drawn || {};
    window.drawn[stateJson.tip] = window.drawn[stateJson.tip] || Date.now();
    window.lastDraw = { view: r.name, ms: performance.now() - began };
    if (window.firstDraw == null) window.firstDraw = performance.now();
  } catch (e) {
    view.innerHTML = '<p class="error">' + esc(e.message) + "</p>";
  } finally {
    busy = false;
    if (again) { again = false; refresh(); }
  }
}

// Actions: each asks first, then runs the command and shows what it printed.
const dialog = document.getElementById("confirm");
let pending = null;
document.addEventListener("click", (e) => {
  const b = e.target.closest("button[data-action]");
  if (!b) return;
  pending = b.dataset;
  const what = b.dataset.action === "confirm" ? "confirm " + b.dataset.unit + " " + b.dataset.sprint : b.dataset.action;
  document.getElementById("confirm-text").textContent = "Run `git supervisor " + what + "` on this run?";
  dialog.showModal();
});
// The latest action's answer is the one shown: an earlier action that
// answers later (a confirm still ticking when killall is asked) does not
// cover it.
let latest = 0;
dialog.addEventListener("close", async () => {
  if (dialog.returnValue !== "ok" || !pending) return;
  const p = pending; pending = null;
  const mine = ++latest;
  const q = p.action === "confirm" ? "?unit=" + enc(p.unit) + "&sprint=" + enc(p.sprint) : "";
  show("git supervisor " + p.action + " …");
  let text;
  try {
    const r = await fetch("/api/action/" + p.action + q, { method: "POST", headers: { "x-supervisor-token": token } });
    const body = await r.json();
    text = body.error ? "error: " + body.error : body.output || "(done, exit " + body.exit + ")";
  } catch (err) { text = "error: " + err.message; }
  if (mine === latest) show(text);
  refresh();
});
function show(text) {
  document.getElementById("result").hidden = false;
  document.getElementById("result-text").textContent = text;
}
document.getElementById("result-close").onclick = () => { document.getElementById("result").hidden = true; };

const live = document.getElementById("live");
const events = new EventSource("/api/events?token=" + enc(token));
events.addEventListener("state", () => { live.classList.remove("off"); refresh(); });
events.onerror = () => live.classList.add("off");
window.addEventListener("hashchange", refresh);
refresh();
