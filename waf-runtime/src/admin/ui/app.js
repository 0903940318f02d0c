// The admin panel's script: a page per task (/overview, /domains, ... as real URLs, with the browser's history),
// each drawn from the JSON API. Every value from the API is put into the page with textContent, never as HTML:
// events' paths and heads are attacker-controlled.
"use strict";

const $ = (id) => document.getElementById(id);
const PAGES = ["overview", "domains", "protection", "rules", "events", "traffic", "audit", "admins", "settings"];
let stream = null;
let chart = null;
// The configuration as last read: its `version` goes with every change (If-Match), so a change made from a stale
// page is refused (412) instead of overwriting another admin's.
let config = null;
let eventCursor = null;
let overviewDrawn = 0;

function csrf() {
  const m = document.cookie.match(/(?:^|; )waf_admin_csrf=([^;]*)/);
  return m ? m[1] : "";
}

// An API error: the answer's message, and the key (field or configuration key) it concerns.
class ApiError extends Error {
  constructor(status, message, key) {
    super(message);
    this.status = status;
    this.key = key || null;
  }
}

async function api(method, path, body) {
  const options = { method, headers: {}, credentials: "same-origin" };
  if (method !== "GET") options.headers["X-CSRF-Token"] = csrf();
  if (method !== "GET" && config && config.version && path.startsWith("/api/") && isConfigChange(path)) {
    options.headers["If-Match"] = `"${config.version}"`;
  }
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  let response = await fetch(path, options);
  if (response.status === 401 && path !== "/api/session/refresh" && path !== "/api/session") {
    const refreshed = await fetch("/api/session/refresh", {
      method: "POST", headers: { "X-CSRF-Token": csrf() }, credentials: "same-origin",
    });
    if (refreshed.ok) {
      if (method !== "GET") options.headers["X-CSRF-Token"] = csrf();
      response = await fetch(path, options);
    }
  }
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch (e) {
    data = { error: text };
  }
  if (!response.ok) {
    throw new ApiError(response.status, (data && data.error) || response.statusText, data && data.key);
  }
  if (data && typeof data.version === "string" && isConfigChange(path)) {
    config = Object.assign(config || {}, data);
  }
  return data;
}

function isConfigChange(path) {
  return /^\/api\/(config|domains|tls|ip-filter|rate-limit|geoip)/.test(path);
}

// Feedback beside the form: success and refusal styled apart; a refusal naming a field is shown at that field.
function clearErrors(form) {
  for (const el of form.querySelectorAll(".field-error")) el.remove();
  for (const el of form.querySelectorAll("[aria-invalid]")) el.removeAttribute("aria-invalid");
  const out = form.querySelector("output.status");
  if (out) { out.textContent = ""; out.className = "status"; }
}

function report(form, ok, text) {
  const out = form.querySelector("output.status") || $("message");
  out.textContent = text;
  out.className = `status ${ok ? "ok" : "error"}`;
}

function fieldFor(form, key) {
  if (!key) return null;
  for (const el of form.querySelectorAll("[data-key]")) {
    for (const k of el.dataset.key.split(" ")) {
      if (key === k || key.endsWith(`.${k}`) || key.startsWith(`${k}[`) || key.includes(`.${k}[`)) return el;
    }
  }
  return null;
}

function refuse(form, err) {
  let text = err.message;
  if (err.status === 412) {
    text = "Another change came first: nothing was applied. The page now shows the current settings; make your change again.";
  }
  const field = fieldFor(form, err.key);
  if (field) {
    field.setAttribute("aria-invalid", "true");
    const note = document.createElement("span");
    note.className = "field-error";
    note.textContent = text;
    field.closest("label").appendChild(note);
    report(form, false, "Refused: see the field marked.");
  } else {
    report(form, false, `Refused: ${text}`);
  }
}

// Runs one change from `form`; its answer says whether it applied at once or awaits a restart.
async function change(form, action, done) {
  clearErrors(form);
  const before = new Set((config && config.restart_reasons) || []);
  try {
    const answer = await action();
    const added = ((answer && answer.restart_reasons) || []).filter((r) => !before.has(r));
    report(form, true, added.length ? `${done} Saved; it takes effect when the proxy restarts.` : `${done} Applied.`);
    await refreshConfig();
  } catch (err) {
    // A stale page: show the settings as they are now before saying so.
    if (err.status === 412) await refreshConfig().catch(() => {});
    refuse(form, err);
  }
}

// A yes/no question in the page (a modal dialog), for destructive actions.
function confirmAction(text) {
  const dialog = $("confirm");
  $("confirm-text").textContent = text;
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "ok"), { once: true });
    dialog.showModal();
  });
}

function cells(row, values) {
  for (const v of values) {
    const td = document.createElement("td");
    td.textContent = v === null || v === undefined ? "" : String(v);
    row.appendChild(td);
  }
}

function fill(list, items, text) {
  list.replaceChildren();
  for (const item of items) {
    const li = document.createElement("li");
    li.textContent = text(item);
    list.appendChild(li);
  }
}

const when = (iso) => new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });

// ----- pages -----

function pageOf(path) {
  const name = path.replace(/^\/+/, "").split("/")[0];
  return PAGES.includes(name) ? name : "overview";
}

function showPage(name) {
  for (const section of document.querySelectorAll("[data-page]")) section.hidden = section.dataset.page !== name;
  for (const a of document.querySelectorAll("#nav a")) {
    if (pageOf(a.getAttribute("href")) === name) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  document.title = `${name[0].toUpperCase()}${name.slice(1)} · waf admin`;
  const load = {
    overview: refreshOverview, domains: refreshDomainsPage, protection: refreshConfig, rules: refreshRules,
    events: loadEventsFromUrl, traffic: refreshConfig, audit: refreshAudit, admins: refreshAdmins,
    settings: refreshConfig,
  }[name];
  // Busy until its data is in: a form filled before then would be overwritten by it.
  const section = document.querySelector(`[data-page="${name}"]`);
  section.setAttribute("aria-busy", "true");
  load().catch((e) => say(false, e.message)).finally(() => section.removeAttribute("aria-busy"));
}

function navigate(href) {
  if (href !== location.pathname + location.search) history.pushState({}, "", href);
  showPage(pageOf(location.pathname));
}

function say(ok, text) {
  $("message").textContent = text;
  $("message").className = text ? `status ${ok ? "ok" : "error"}` : "status";
}

function show(view) {
  for (const id of ["setup", "sign-in", "panel"]) $(id).hidden = id !== view;
  $("sign-out").hidden = view !== "panel";
  $("nav").hidden = view !== "panel";
  if (view !== "panel") $("who").textContent = "";
}

// ----- overview -----

async function refreshOverview() {
  const d = await api("GET", "/api/dashboard");
  $("requests").textContent = d.requests;
  $("blocked").textContent = d.blocked;
  $("observed").textContent = d.observed;
  $("rate-limited").textContent = d.rate_limited;
  const s = await api("GET", `/api/stats?range=${encodeURIComponent($("range").value)}`);
  const counted = (c) => `${c.key}: ${c.count}`;
  fill($("top-rules"), s.top_rules, (c) => `rule ${c.key}: ${c.count}`);
  fill($("top-clients"), s.top_clients, counted);
  fill($("top-paths"), s.top_paths, counted);
  fill($("top-countries"), s.top_countries, counted);
  fill($("statuses"), s.statuses, counted);
  drawChart(s);
}

function drawChart(s) {
  const box = $("chart");
  if (typeof uPlot === "undefined") return;
  const x = s.series.map((p) => Date.parse(p.at) / 1000);
  const data = [x, s.series.map((p) => p.requests), s.series.map((p) => p.blocked),
    s.series.map((p) => p.observed), s.series.map((p) => p.rate_limited)];
  const width = Math.max(280, box.clientWidth || 600);
  if (chart) chart.destroy();
  const style = getComputedStyle(document.body);
  const axis = { stroke: style.color, grid: { stroke: style.getPropertyValue("--line") } };
  chart = new uPlot({
    width, height: 260,
    series: [{}, { label: "requests", stroke: "#3b82f6" }, { label: "blocked", stroke: "#dc2626" },
      { label: "observed", stroke: "#d97706" }, { label: "rate limited", stroke: "#7c3aed" }],
    axes: [axis, axis],
  }, data, box);
}

// ----- configuration pages -----

function certificate(tls) {
  switch (tls.certificate) {
    case "files": return `files: ${tls.cert_file}, key ${tls.key_file}`;
    case "acme": return `ACME (${tls.email || "no e-mail"})`;
    case "self_signed": return "self-signed";
    default: return "(global)";
  }
}

function showPending(c) {
  const list = $("pending");
  list.replaceChildren();
  for (const text of [...c.restart_reasons.map((r) => `Restart required: ${r}`), ...c.notices]) {
    const li = document.createElement("li");
    li.textContent = text;
    list.appendChild(li);
  }
  list.hidden = list.children.length === 0;
}

async function refreshConfig() {
  const c = await api("GET", "/api/config");
  config = c;
  $("mode").value = c.mode;
  $("paranoia").value = String(c.paranoia_level);
  $("threshold").value = c.anomaly_threshold;
  $("profile").value = c.profile;
  $("responses").value = String(c.responses);
  $("rule-set").value = c.rule_set.artifact || c.rule_set.directories.join(", ");
  $("tls-https").value = String(c.tls.https_enabled);
  $("tls-http-port").value = c.tls.http_port;
  $("tls-https-port").value = c.tls.https_port;
  $("tls-auto-generate").value = String(c.tls.auto_generate);
  $("ip-allow").value = c.ip_filter.allow.join("\n");
  $("ip-deny").value = c.ip_filter.deny.join("\n");
  $("rate-enabled").value = String(c.rate_limit.enabled);
  $("rate-requests").value = c.rate_limit.requests;
  $("rate-window").value = c.rate_limit.window_sec;
  $("rate-burst").value = c.rate_limit.burst;
  $("geo-enabled").value = String(c.geoip.enabled);
  $("geo-database").value = c.geoip.database || "";
  $("geo-allow").value = c.geoip.allow_countries.join(", ");
  $("geo-deny").value = c.geoip.deny_countries.join(", ");
  $("geo-unknown").value = c.geoip.unknown;
  showPending(c);
  const body = $("domains");
  body.replaceChildren();
  const select = $("rules-host");
  const chosen = select.value;
  select.replaceChildren();
  for (const [host, d] of Object.entries(c.domains)) {
    const row = document.createElement("tr");
    cells(row, [host, serversShown(d), certificate(d.tls), d.force_https ? "on" : "off",
      d.anomaly_threshold ?? "(global)", (d.disabled_rules || []).join(", "), d.custom_rules ? "yes" : "",
      d.responses ? "on" : "off"]);
    const td = document.createElement("td");
    const remove = document.createElement("button");
    remove.type = "button";
    remove.className = "danger";
    remove.textContent = "Remove";
    remove.setAttribute("aria-label", `Remove ${host}`);
    remove.addEventListener("click", async () => {
      if (!await confirmAction(`Remove the domain ${host}? Its traffic then goes to the default upstream.`)) return;
      change($("domain-form"), () => api("DELETE", `/api/domains/${encodeURIComponent(host)}`), `${host} removed.`);
    });
    td.appendChild(remove);
    row.appendChild(td);
    body.appendChild(row);
    const option = document.createElement("option");
    option.value = host;
    option.textContent = host;
    select.appendChild(option);
  }
  if (chosen && c.domains[chosen]) select.value = chosen;
  showDomainRules();
  showUpstreams(c);
  showRuleScopes(c);
}

// The Rules page's choice of where Disable and Enable act: every domain, or one.
function showRuleScopes(c) {
  const scope = $("rule-scope");
  const chosen = scope.value;
  scope.replaceChildren(new Option("every domain", ""), ...Object.keys(c.domains).map((h) => new Option(h, h)));
  if (c.domains[chosen]) scope.value = chosen;
}

// `942100 ARGS:q` lines to the API's {rule, variable}, and back.
function excludedVariablesText(targets) {
  return targets.map((t) => `${t.rule} ${t.variable}`).join("\n");
}

function excludedVariables(text) {
  return text.split("\n").map((line) => line.trim()).filter((line) => line !== "").map((line) => {
    const [rule, ...variable] = line.split(/\s+/);
    return { rule: Number(rule), variable: variable.join(" ") };
  });
}

// The selected domain's rules as loaded: the form sends only what differs from them.
function loadedRules() {
  const d = config && config.domains[$("rules-host").value];
  if (!d) return null;
  return {
    anomaly_threshold: d.anomaly_threshold ?? null,
    disabled_rules: d.disabled_rules || [],
    excluded_variables: d.excluded_variables || [],
    profile: d.profile ?? null,
    custom_rules: d.custom_rules || "",
    responses: d.own_responses ?? null,
  };
}

function showDomainRules() {
  const r = loadedRules();
  $("rules-threshold").value = r && r.anomaly_threshold !== null ? r.anomaly_threshold : "";
  $("rules-excluded").value = r ? r.disabled_rules.join(", ") : "";
  $("rules-excluded-variables").value = r ? excludedVariablesText(r.excluded_variables) : "";
  $("rules-profile").value = r && r.profile ? r.profile : "";
  $("rules-responses").value = r && r.responses !== null ? String(r.responses) : "";
  $("rules-custom").value = r ? r.custom_rules : "";
}

// ----- a domain's upstream servers, and every server's health (Domains page) -----

async function refreshDomainsPage() {
  await refreshConfig();
  await refreshUpstreamHealth();
}

function serversShown(d) {
  return d.servers.length ? d.servers.map((s) => s.url).join(", ") : "(default)";
}

// The servers field: one per line, a URL then `weight=N` and `backup` where wanted.
function serversText(servers) {
  return servers.map((s) => [s.url, s.weight !== 1 ? `weight=${s.weight}` : "", s.backup ? "backup" : ""]
    .filter((w) => w !== "").join(" ")).join("\n");
}

function parseServers(text) {
  return text.split("\n").map((l) => l.trim()).filter((l) => l !== "").map((line) => {
    const [url, ...rest] = line.split(/\s+/);
    const server = { url };
    for (const word of rest) {
      const weight = word.match(/^weight=(\d+)$/);
      if (weight) server.weight = Number(weight[1]);
      else if (word === "backup") server.backup = true;
      else throw new ApiError(400, `"${word}" after ${url}: expected weight=N or backup`, "servers");
    }
    return server;
  });
}

function showUpstreams(c) {
  const select = $("upstream-domain");
  const chosen = select.value;
  select.replaceChildren();
  for (const host of Object.keys(c.domains)) {
    const option = document.createElement("option");
    option.value = host;
    option.textContent = host;
    select.appendChild(option);
  }
  if (chosen && c.domains[chosen]) select.value = chosen;
  showDomainUpstream();
}

// The selected domain's upstream side as loaded.
function showDomainUpstream() {
  const d = config && config.domains[$("upstream-domain").value];
  const pool = (d && d.pool) || {};
  // `false`: no check for this domain, shown as the path "off".
  const check = pool.health_check === false ? { path: "off" } : pool.health_check || {};
  const tls = d && d.upstream_tls;
  const text = (v) => (v === undefined || v === null ? "" : String(v));
  $("upstream-servers").value = d ? serversText(d.servers) : "";
  $("upstream-balance").value = text(pool.balance);
  $("upstream-max-fails").value = text(pool.max_fails);
  $("upstream-fail-timeout").value = text(pool.fail_timeout_sec);
  $("upstream-retries").value = text(pool.retries);
  $("upstream-check-path").value = text(check.path);
  $("upstream-check-interval").value = text(check.interval_sec);
  $("upstream-check-timeout").value = text(check.timeout_ms);
  $("upstream-check-status").value = text(check.expect_status);
  $("upstream-host").value = text(d && d.upstream_host);
  $("upstream-tls").value = tls ? "own" : "";
  $("upstream-tls-verify").value = String(tls ? tls.verify : true);
  $("upstream-tls-ca").value = text(tls && tls.ca_file);
  $("upstream-tls-name").value = text(tls && tls.server_name);
  $("upstream-tls-cert").value = text(tls && tls.cert_file);
  $("upstream-tls-key").value = text(tls && tls.key_file);
  showUpstreamTls();
}

function showUpstreamTls() {
  for (const label of document.querySelectorAll("[data-upstream-tls]")) label.hidden = $("upstream-tls").value !== "own";
}

// The form as the API's change: the whole upstream side of the domain (an empty field: the global setting).
function upstreamChange() {
  const value = (id) => $(id).value.trim();
  const numbers = (target, fields) => {
    for (const [key, id] of fields) if (value(id) !== "") target[key] = Number(value(id));
  };
  const body = { servers: parseServers($("upstream-servers").value) };
  if (value("upstream-balance")) body.balance = value("upstream-balance");
  numbers(body, [["max_fails", "upstream-max-fails"], ["fail_timeout_sec", "upstream-fail-timeout"],
    ["retries", "upstream-retries"]]);
  if (value("upstream-check-path") === "off") {
    body.health_check = false;
  } else if (value("upstream-check-path")) {
    body.health_check = { path: value("upstream-check-path") };
    numbers(body.health_check, [["interval_sec", "upstream-check-interval"], ["timeout_ms", "upstream-check-timeout"],
      ["expect_status", "upstream-check-status"]]);
  }
  if (value("upstream-host")) body.upstream_host = value("upstream-host");
  if ($("upstream-tls").value === "own") {
    body.upstream_tls = { verify: $("upstream-tls-verify").value === "true" };
    for (const [key, id] of [["ca_file", "upstream-tls-ca"], ["server_name", "upstream-tls-name"],
      ["cert_file", "upstream-tls-cert"], ["key_file", "upstream-tls-key"]]) {
      if (value(id)) body.upstream_tls[key] = value(id);
    }
  }
  return body;
}

async function refreshUpstreamHealth() {
  const servers = await api("GET", "/api/upstreams");
  const body = $("upstream-health");
  body.replaceChildren();
  for (const s of servers) {
    const row = document.createElement("tr");
    if (!s.up) row.className = "server-out";
    cells(row, [s.url, s.pools.join(", "), s.up ? "up" : `out: ${s.out}`, s.in_flight, s.requests, s.failures,
      s.mean_ms === null ? "" : s.mean_ms.toFixed(1)]);
    body.appendChild(row);
  }
}

function setUpUpstreamForm() {
  $("upstream-domain").addEventListener("change", showDomainUpstream);
  $("upstream-tls").addEventListener("change", showUpstreamTls);
  $("upstream-health-refresh").addEventListener("click",
    () => refreshUpstreamHealth().catch((e) => say(false, e.message)));
  on("upstream-form", async (form) => {
    const host = $("upstream-domain").value;
    if (!host) { report(form, false, "Add the domain first."); return; }
    let body;
    try {
      body = upstreamChange();
    } catch (err) {
      clearErrors(form);
      refuse(form, err);
      return;
    }
    await change(form, () => api("PUT", `/api/domains/${encodeURIComponent(host)}/upstream`, body),
      `${host}: upstream saved.`);
    await refreshUpstreamHealth().catch(() => {});
  });
}

// ----- rules -----

async function refreshRules() {
  if (!config) await refreshConfig();
  const search = $("rule-search").value;
  const range = $("rule-range").value;
  const rules = await api("GET", `/api/rules?search=${encodeURIComponent(search)}&range=${encodeURIComponent(range)}`);
  const which = $("rule-runs").value;
  const shown = rules.filter((r) => which === "all" || (which === "runs") === r.runs);
  const running = rules.filter((r) => r.runs).length;
  // Disable and Enable act on the rules disabled for every domain, or on one domain's exclusions.
  const host = $("rule-scope").value;
  const where = host ? ` for ${host}` : "";
  const disabled = host ? config.domains[host].disabled_rules || [] : config.disabled_rules;
  $("rules-disabled-title").textContent = `Disabled for ${host || "every domain"}`;
  const level = config ? config.paranoia_level : "?";
  $("rule-summary").textContent =
    `${rules.length} rules loaded; ${running} run at paranoia level ${level}, ${rules.length - running} do not.`;
  const body = $("rule-list");
  body.replaceChildren();
  let file = null;
  for (const r of shown.sort((a, b) => a.file.localeCompare(b.file) || a.id - b.id)) {
    if (r.file !== file) {
      file = r.file;
      const head = document.createElement("tr");
      head.className = "group";
      const th = document.createElement("th");
      th.colSpan = 8;
      th.scope = "colgroup";
      th.textContent = file;
      head.appendChild(th);
      body.appendChild(head);
    }
    const row = document.createElement("tr");
    if (!r.runs) row.className = "idle";
    cells(row, [r.id, r.msg, r.file, r.paranoia_level, r.runs ? "runs" : `no (level ${r.paranoia_level})`,
      r.hosts.join(", "), range ? r.period_hits : r.hits]);
    const td = document.createElement("td");
    const disable = document.createElement("button");
    disable.type = "button";
    disable.textContent = "Disable";
    disable.setAttribute("aria-label", `Disable rule ${r.id} for ${host || "every domain"}`);
    disable.addEventListener("click", () => setDisabled(host, [...disabled, r.id], `Rule ${r.id} disabled${where}.`));
    if (!disabled.includes(r.id)) td.appendChild(disable);
    row.appendChild(td);
    body.appendChild(row);
  }
  const off = $("rules-disabled");
  off.replaceChildren();
  for (const id of disabled) {
    const li = document.createElement("li");
    li.textContent = `rule ${id} `;
    const enable = document.createElement("button");
    enable.type = "button";
    enable.textContent = "Enable";
    enable.setAttribute("aria-label", `Enable rule ${id}${where}`);
    enable.addEventListener("click", () => setDisabled(host, disabled.filter((d) => d !== id), `Rule ${id} enabled${where}.`));
    li.appendChild(enable);
    off.appendChild(li);
  }
}

// The rules disabled for every domain (no host), or a domain's exclusions: one PATCH of the whole list, with the
// version the page shows.
async function setDisabled(host, ids, done) {
  const form = $("rule-search-form");
  clearErrors(form);
  try {
    if (host) await api("PATCH", `/api/domains/${encodeURIComponent(host)}/rules`, { disabled_rules: ids });
    else await api("PATCH", "/api/config/protection", { disabled_rules: ids });
    await refreshConfig();
    await refreshRules();
    report(form, true, `${done} Applied.`);
  } catch (err) {
    if (err.status === 412) await refreshConfig().catch(() => {});
    refuse(form, err);
  }
}

// ----- events -----

const FILTERS = ["domain", "outcome", "rule", "client", "since", "until", "q"];

function filterQuery() {
  const params = new URLSearchParams();
  for (const name of FILTERS) {
    let value = $(`ev-${name}`).value.trim();
    if (value && (name === "since" || name === "until")) value = new Date(value).toISOString();
    if (value) params.set(name, value);
  }
  return params;
}

async function loadEventsFromUrl() {
  if (!config) await refreshConfig();
  const params = new URLSearchParams(location.search);
  for (const name of FILTERS) {
    let value = params.get(name) || "";
    if (value && (name === "since" || name === "until")) {
      const t = new Date(value);
      value = Number.isNaN(t.getTime()) ? "" : new Date(t.getTime() - t.getTimezoneOffset() * 60000).toISOString().slice(0, 16);
    }
    $(`ev-${name}`).value = value;
  }
  await refreshEvents(false);
  const id = params.get("id");
  if (id) await showEvent(id);
  else $("event-detail").hidden = true;
}

async function refreshEvents(more) {
  const form = $("event-filter");
  clearErrors(form);
  const params = filterQuery();
  $("ev-csv").href = `/api/events/export?format=csv&${params}`;
  $("ev-jsonl").href = `/api/events/export?format=jsonl&${params}`;
  if (more && eventCursor) params.set("cursor", eventCursor);
  params.set("limit", "50");
  let page;
  // Busy while loading: assistive technology (and the browser test) wait for the list to settle.
  $("event-list").setAttribute("aria-busy", "true");
  try {
    page = await api("GET", `/api/events?${params}`);
  } catch (err) {
    refuse(form, err);
    return;
  } finally {
    $("event-list").removeAttribute("aria-busy");
  }
  if (!more) $("event-list").replaceChildren();
  for (const e of page.events) addEvent(e, false);
  eventCursor = page.next_cursor;
  $("ev-more").hidden = !eventCursor;
}

function matchesFilters(e) {
  const p = filterQuery();
  if (p.get("domain") && p.get("domain").toLowerCase() !== e.domain) return false;
  if (p.get("outcome") && p.get("outcome") !== e.outcome) return false;
  if (p.get("client") && p.get("client") !== e.client) return false;
  if (p.get("rule") && !e.rule_ids.map(String).includes(p.get("rule"))) return false;
  return !p.get("until") && !p.get("q");
}

function addEvent(e, top) {
  const row = document.createElement("tr");
  row.className = `outcome-${e.outcome}`;
  cells(row, [when(e.at), e.outcome.replace("_", " "), e.domain, e.client, e.method, e.path, e.status ?? "",
    e.score, e.rule_ids.join(", ")]);
  const first = row.firstChild;
  const link = document.createElement("a");
  link.href = `/events?id=${e.id}`;
  link.textContent = first.textContent;
  link.addEventListener("click", (ev) => {
    ev.preventDefault();
    const params = new URLSearchParams(location.search);
    params.set("id", e.id);
    history.pushState({}, "", `/events?${params}`);
    showEvent(e.id).catch((err) => say(false, err.message));
  });
  first.replaceChildren(link);
  const body = $("event-list");
  if (top) body.insertBefore(row, body.firstChild); else body.appendChild(row);
}

async function showEvent(id) {
  const e = await api("GET", `/api/events/${encodeURIComponent(id)}`);
  $("event-detail").hidden = false;
  $("ed-id").textContent = `${e.id} (${e.request_id})`;
  const summary = $("ed-summary");
  summary.replaceChildren();
  for (const [k, v] of [["Date and time", when(e.at)], ["Outcome", e.outcome], ["Domain", e.domain],
    ["Client", e.client], ["Request", `${e.method} ${e.path}`], ["Status", e.status ?? "forwarded"],
    ["Anomaly score", e.score], ["Country", e.country || ""]]) {
    const dt = document.createElement("dt");
    dt.textContent = k;
    const dd = document.createElement("dd");
    dd.textContent = v;
    summary.append(dt, dd);
  }
  const matches = $("ed-matches");
  matches.replaceChildren();
  for (const m of e.matches) {
    const row = document.createElement("tr");
    cells(row, [m.rule_id, m.message, m.variable, m.data, m.score]);
    const td = document.createElement("td");
    const known = config && config.domains[e.domain];
    if (known && !(known.disabled_rules || []).includes(m.rule_id)) {
      const exclude = document.createElement("button");
      exclude.type = "button";
      exclude.textContent = `Exclude rule ${m.rule_id} for ${e.domain}`;
      exclude.addEventListener("click", () => excludeRule(e.domain, m.rule_id));
      td.appendChild(exclude);
      // A match on a variable of the request (not the score rule's total): the rule can skip that one alone.
      const excluded = (known.excluded_variables || []).some((t) => t.rule === m.rule_id && t.variable === m.variable);
      if (m.variable !== "ANOMALY_SCORE" && !excluded) {
        const one = document.createElement("button");
        one.type = "button";
        one.textContent = `Exclude rule ${m.rule_id} for ${e.domain}, ${m.variable} only`;
        one.addEventListener("click", () => excludeRuleFor(e.domain, m.rule_id, m.variable));
        td.appendChild(one);
      }
    }
    row.appendChild(td);
    matches.appendChild(row);
  }
  const head = $("ed-head");
  head.replaceChildren();
  for (const [name, value] of e.head) {
    const row = document.createElement("tr");
    cells(row, [name, value]);
    head.appendChild(row);
  }
  $("event-detail").scrollIntoView({ block: "start" });
}

// One click: the rule joins the domain's exclusions (a PATCH of that list alone, audited like any change).
function excludeRule(domain, ruleId) {
  return patchFromEvent(domain, (d) => ({ disabled_rules: [...(d.disabled_rules || []), ruleId] }),
    `Rule ${ruleId} is excluded for ${domain}.`);
}

// One click: the rule no longer reads this variable (`ARGS:q`) of the domain's requests, the others still.
function excludeRuleFor(domain, ruleId, variable) {
  return patchFromEvent(domain,
    (d) => ({ excluded_variables: [...(d.excluded_variables || []), { rule: ruleId, variable }] }),
    `Rule ${ruleId} no longer reads ${variable} for ${domain}.`);
}

// The domain's rules as they are now, changed by `patchOf`, as one PATCH; said beside the event's matches.
async function patchFromEvent(domain, patchOf, done) {
  const out = $("ed-status");
  await refreshConfig();
  try {
    await api("PATCH", `/api/domains/${encodeURIComponent(domain)}/rules`, patchOf(config.domains[domain]));
    out.className = "status ok";
    out.textContent = `${done} Applied.`;
    await refreshConfig();
  } catch (err) {
    out.className = "status error";
    out.textContent = `Refused: ${err.message}`;
  }
}

// ----- audit, admins -----

// What a change did, key by key: `path: before → after` for each value that differs.
function differences(before, after, path, out) {
  if (JSON.stringify(before) === JSON.stringify(after)) return out;
  const isObj = (v) => v && typeof v === "object" && !Array.isArray(v);
  if (isObj(before) && isObj(after)) {
    for (const k of new Set([...Object.keys(before), ...Object.keys(after)])) {
      differences(before[k], after[k], path ? `${path}.${k}` : k, out);
    }
  } else {
    const shown = (v) => (v === undefined ? "(none)" : JSON.stringify(v));
    out.push(`${path}: ${shown(before)} → ${shown(after)}`);
  }
  return out;
}

async function refreshAudit() {
  const entries = await api("GET", "/api/audit?limit=200");
  const body = $("audit-list");
  body.replaceChildren();
  for (const a of entries) {
    const row = document.createElement("tr");
    let changes = "";
    if (a.before && a.after) {
      try {
        changes = differences(JSON.parse(a.before), JSON.parse(a.after), "", []).join("\n");
      } catch (e) { changes = ""; }
    } else if (a.after) {
      changes = a.after;
    }
    cells(row, [when(a.at * 1000), a.actor, a.client, a.action, changes]);
    row.lastChild.className = "pre";
    body.appendChild(row);
  }
}

async function refreshAdmins() {
  const admins = await api("GET", "/api/admins");
  const body = $("admin-list");
  body.replaceChildren();
  for (const a of admins) {
    const row = document.createElement("tr");
    cells(row, [a.username, a.role, a.totp ? "set up" : "none", when(a.created_at * 1000)]);
    const td = document.createElement("td");
    if (a.username !== $("who").textContent) {
      const other = a.role === "admin" ? "viewer" : "admin";
      const role = document.createElement("button");
      role.type = "button";
      role.textContent = `Make ${other}`;
      role.setAttribute("aria-label", `Make ${other} (${a.username})`);
      role.addEventListener("click", async () => {
        const out = $("admin-list-status");
        try {
          await api("PATCH", `/api/admins/${encodeURIComponent(a.username)}`, { role: other });
          out.className = "status ok";
          out.textContent = `${a.username} is now ${other}.`;
          await refreshAdmins();
        } catch (err) {
          out.className = "status error";
          out.textContent = `Refused: ${err.message}`;
        }
      });
      td.appendChild(role);
      const remove = document.createElement("button");
      remove.type = "button";
      remove.className = "danger";
      remove.textContent = "Remove";
      remove.setAttribute("aria-label", `Remove ${a.username}`);
      remove.addEventListener("click", async () => {
        if (!await confirmAction(`Remove the account ${a.username}? Its sessions end at once.`)) return;
        const out = $("admin-list-status");
        try {
          await api("DELETE", `/api/admins/${encodeURIComponent(a.username)}`);
          out.className = "status ok";
          out.textContent = `${a.username} removed.`;
          await refreshAdmins();
        } catch (err) {
          out.className = "status error";
          out.textContent = `Refused: ${err.message}`;
        }
      });
      td.appendChild(remove);
    }
    row.appendChild(td);
    body.appendChild(row);
  }
  const sessions = await api("GET", "/api/sessions");
  const list = $("session-list");
  list.replaceChildren();
  for (const s of sessions) {
    const row = document.createElement("tr");
    cells(row, [s.username, when(s.created_at * 1000), when(s.expires_at * 1000)]);
    const td = document.createElement("td");
    const revoke = document.createElement("button");
    revoke.type = "button";
    revoke.textContent = "Sign out";
    revoke.setAttribute("aria-label", `Sign out session ${s.id} of ${s.username}`);
    revoke.addEventListener("click", async () => {
      try {
        await api("DELETE", `/api/sessions/${s.id}`);
        await refreshAdmins();
      } catch (err) {
        $("admin-list-status").className = "status error";
        $("admin-list-status").textContent = `Refused: ${err.message}`;
      }
    });
    td.appendChild(revoke);
    row.appendChild(td);
    list.appendChild(row);
  }
  const status = await api("GET", "/api/status");
  $("totp-required").value = String(status.totp_required);
}

// ----- start -----

async function openPanel(username, role) {
  $("who").textContent = username;
  // A viewer's changes are refused by the API; the page says so rather than offering them.
  document.body.classList.toggle("viewer", role === "viewer");
  show("panel");
  await refreshConfig();
  showPage(pageOf(location.pathname));
  if (stream) stream.close();
  stream = new EventSource("/api/events/stream");
  stream.addEventListener("event", (message) => {
    const e = JSON.parse(message.data);
    if (pageOf(location.pathname) === "events" && matchesFilters(e)) addEvent(e, true);
    // A burst of events (a flood over the rate limit) redraws the charts at most every 5 seconds.
    if (pageOf(location.pathname) === "overview" && Date.now() - overviewDrawn > 5000) {
      overviewDrawn = Date.now();
      refreshOverview().catch(() => {});
    }
  });
}

async function start() {
  const status = await api("GET", "/api/status");
  if (status.setup_required) show("setup");
  else if (status.username) await openPanel(status.username, status.role);
  else show("sign-in");
}

const numberOrNull = (v) => (v === "" ? null : Number(v));
const list = (text) => text.split(/[\s,]+/).map((s) => s.trim()).filter((s) => s !== "");

function on(id, handler) {
  $(id).addEventListener("submit", (e) => {
    e.preventDefault();
    handler(e.target);
  });
}

document.addEventListener("DOMContentLoaded", () => {
  document.addEventListener("click", (e) => {
    const a = e.target.closest("a[data-nav]");
    if (!a || e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
    e.preventDefault();
    navigate(a.getAttribute("href"));
  });
  window.addEventListener("popstate", () => {
    if (!$("panel").hidden) showPage(pageOf(location.pathname));
  });
  on("setup-form", async (form) => {
    clearErrors(form);
    try {
      await api("POST", "/api/setup", {
        token: $("setup-token").value, username: $("setup-username").value, password: $("setup-password").value,
      });
      show("sign-in");
      say(true, "Admin created: sign in.");
    } catch (err) { refuse(form, err); }
  });
  on("sign-in-form", async (form) => {
    clearErrors(form);
    try {
      const credentials = { username: $("sign-in-username").value, password: $("sign-in-password").value };
      if ($("sign-in-code").value.trim()) credentials.code = $("sign-in-code").value.trim();
      const me = await api("POST", "/api/session", credentials);
      say(true, "");
      if (location.pathname === "/") history.replaceState({}, "", "/overview");
      $("sign-in-code").value = "";
      await openPanel(me.username, me.role);
    } catch (err) {
      // An account with a second factor: the code field appears, and the refusal is shown beside it.
      if (err.key === "code") $("sign-in-code-label").hidden = false;
      refuse(form, err);
    }
  });
  $("sign-out").addEventListener("click", async () => {
    try { await api("DELETE", "/api/session"); } catch (err) { /* signed out either way */ }
    if (stream) stream.close();
    config = null;
    show("sign-in");
    say(true, "Signed out.");
  });
  $("range").addEventListener("change", () => refreshOverview().catch((e) => say(false, e.message)));
  on("protection-form", async (form) => {
    const mode = $("mode").value;
    const patch = {};
    if (mode !== config.mode) patch.mode = mode;
    if (Number($("paranoia").value) !== config.paranoia_level) patch.paranoia_level = Number($("paranoia").value);
    if (Number($("threshold").value) !== config.anomaly_threshold) patch.anomaly_threshold = numberOrNull($("threshold").value);
    if ($("profile").value !== config.profile) patch.profile = $("profile").value;
    if ($("responses").value !== String(config.responses)) patch.responses = $("responses").value === "true";
    if (Object.keys(patch).length === 0) { report(form, true, "Nothing changed."); return; }
    if (patch.mode === "disabled" && !await confirmAction("Disable the WAF? Requests are then forwarded uninspected.")) return;
    change(form, () => api("PATCH", "/api/config/protection", patch),
      `Mode ${mode}, paranoia level ${$("paranoia").value}, threshold ${$("threshold").value}, profile ${$("profile").value}, answers inspected: ${$("responses").value === "true" ? "yes" : "no"}:`);
  });
  on("rule-set-form", (form) => {
    const value = $("rule-set").value.trim();
    const body = value.endsWith(".wafc") ? { artifact: value } : { directories: list(value) };
    change(form, () => api("PUT", "/api/config/rules", body), `Rule set ${value} loaded.`);
  });
  $("domain-tls").addEventListener("change", () => {
    for (const label of document.querySelectorAll("[data-tls]")) label.hidden = label.dataset.tls !== $("domain-tls").value;
  });
  on("domain-form", (form) => {
    const host = $("domain-host").value.trim();
    const body = {};
    if ($("domain-upstream").value.trim()) body.upstream = $("domain-upstream").value.trim();
    const kind = $("domain-tls").value;
    if (kind === "files") body.tls = { certificate: kind, cert_file: $("domain-cert-file").value, key_file: $("domain-key-file").value };
    else if (kind === "acme") body.tls = { certificate: kind, email: $("domain-acme-email").value };
    else if (kind !== "") body.tls = { certificate: kind };
    if ($("domain-force-https").value !== "") body.force_https = $("domain-force-https").value === "true";
    change(form, () => api("PUT", `/api/domains/${encodeURIComponent(host)}`, body), `${host} saved.`);
  });
  $("rules-host").addEventListener("change", showDomainRules);
  // The fields of the domain-rules form that differ from the domain's rules as loaded (null: no domain).
  const rulesPatch = () => {
    const was = loadedRules();
    if (!was) return null;
    const now = {
      anomaly_threshold: numberOrNull($("rules-threshold").value),
      disabled_rules: list($("rules-excluded").value).map(Number),
      excluded_variables: excludedVariables($("rules-excluded-variables").value),
      profile: $("rules-profile").value || null,
      custom_rules: $("rules-custom").value,
      responses: $("rules-responses").value === "" ? null : $("rules-responses").value === "true",
    };
    const patch = {};
    for (const k of Object.keys(now)) if (JSON.stringify(now[k]) !== JSON.stringify(was[k])) patch[k] = now[k];
    return patch;
  };
  on("domain-rules-form", (form) => {
    const host = $("rules-host").value;
    const patch = rulesPatch();
    if (!patch) { report(form, false, "Add the domain first."); return; }
    if (Object.keys(patch).length === 0) { report(form, true, "Nothing changed."); return; }
    change(form, () => api("PATCH", `/api/domains/${encodeURIComponent(host)}/rules`, patch), `${host}: rules saved.`);
  });
  $("rules-check").addEventListener("click", async () => {
    const form = $("domain-rules-form");
    clearErrors(form);
    const patch = rulesPatch();
    if (!patch) { report(form, false, "Add the domain first."); return; }
    try {
      await api("POST", `/api/domains/${encodeURIComponent($("rules-host").value)}/rules/check`, patch);
      report(form, true, "The rules load: nothing saved yet.");
    } catch (err) { refuse(form, err); }
  });
  on("rule-search-form", (form) => refreshRules().catch((err) => refuse(form, err)));
  $("rule-runs").addEventListener("change", () => refreshRules().catch((e) => say(false, e.message)));
  $("rule-scope").addEventListener("change", () => refreshRules().catch((e) => say(false, e.message)));
  $("rule-range").addEventListener("change", () => refreshRules().catch((e) => say(false, e.message)));
  on("event-filter", () => {
    const params = filterQuery();
    history.pushState({}, "", `/events${params.toString() ? `?${params}` : ""}`);
    loadEventsFromUrl().catch((e) => say(false, e.message));
  });
  $("ev-more").addEventListener("click", () => refreshEvents(true).catch((e) => say(false, e.message)));
  on("ip-form", (form) => change(form, () => api("PUT", "/api/ip-filter", {
    allow: list($("ip-allow").value), deny: list($("ip-deny").value),
  }), "IP lists saved."));
  on("rate-form", (form) => change(form, () => api("PUT", "/api/rate-limit", {
    enabled: $("rate-enabled").value === "true", requests: numberOrNull($("rate-requests").value),
    window_sec: numberOrNull($("rate-window").value), burst: numberOrNull($("rate-burst").value),
  }), "Rate limit saved."));
  on("geo-form", (form) => change(form, () => api("PUT", "/api/geoip", {
    enabled: $("geo-enabled").value === "true", database: $("geo-database").value.trim() || null,
    allow_countries: list($("geo-allow").value), deny_countries: list($("geo-deny").value),
    unknown: $("geo-unknown").value,
  }), "GeoIP saved."));
  on("tls-form", (form) => change(form, () => api("PUT", "/api/tls", {
    https_enabled: $("tls-https").value === "true",
    http_port: Number($("tls-http-port").value),
    https_port: Number($("tls-https-port").value),
    auto_generate: $("tls-auto-generate").value === "true",
  }), "TLS settings:"));
  on("admin-form", async (form) => {
    clearErrors(form);
    try {
      await api("POST", "/api/admins", {
        username: $("admin-username").value, password: $("admin-password").value, role: $("admin-role").value,
      });
      report(form, true, `${$("admin-username").value} added.`);
      $("admin-password").value = "";
      await refreshAdmins();
    } catch (err) { refuse(form, err); }
  });
  on("password-form", async (form) => {
    clearErrors(form);
    try {
      await api("PUT", "/api/me/password", { current: $("pw-current").value, new: $("pw-new").value });
      report(form, true, "Password changed; your other sessions are signed out.");
      $("pw-current").value = "";
      $("pw-new").value = "";
    } catch (err) { refuse(form, err); }
  });
  on("totp-start-form", async (form) => {
    clearErrors(form);
    try {
      const enrolment = await api("POST", "/api/me/totp");
      $("totp-secret").textContent = enrolment.secret;
      $("totp-uri").href = enrolment.otpauth_uri;
      // The QR code is SVG drawn by the panel (no image library, nothing fetched); parsed as SVG, not HTML.
      const qr = $("totp-qr");
      qr.replaceChildren();
      if (enrolment.qr_svg) {
        const svg = new DOMParser().parseFromString(enrolment.qr_svg, "image/svg+xml").documentElement;
        qr.appendChild(document.importNode(svg, true));
      }
      $("totp-enrol").hidden = false;
      report(form, true, "Add the key to your app, then confirm with a code.");
    } catch (err) { refuse(form, err); }
  });
  on("totp-confirm-form", async (form) => {
    clearErrors(form);
    try {
      const answer = await api("PUT", "/api/me/totp", { code: $("totp-code").value.trim() });
      fill($("recovery-codes"), answer.recovery_codes, (c) => c);
      $("recovery-codes").hidden = false;
      $("totp-enrol").hidden = true;
      report($("totp-start-form"), true,
        "Second factor set up. Keep these recovery codes somewhere safe: each signs in once, and they are shown only now.");
      await refreshAdmins();
    } catch (err) { refuse(form, err); }
  });
  on("totp-require-form", async (form) => {
    clearErrors(form);
    try {
      const required = $("totp-required").value === "true";
      await api("PUT", "/api/config/admin-totp", { required });
      report(form, true, required ? "A second factor is now required of every account." : "No longer required.");
    } catch (err) { refuse(form, err); }
  });
  setUpUpstreamForm();
  start().catch((e) => say(false, e.message));
});
