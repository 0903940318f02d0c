// The admin panel's script. Every value from the API is put into the page with textContent, never as HTML:
// blocked requests' paths are attacker-controlled.
"use strict";

const $ = (id) => document.getElementById(id);
let events = null;

function csrf() {
  const m = document.cookie.match(/(?:^|; )waf_admin_csrf=([^;]*)/);
  return m ? m[1] : "";
}

async function api(method, path, body) {
  const options = { method, headers: {}, credentials: "same-origin" };
  if (method !== "GET") options.headers["X-CSRF-Token"] = csrf();
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
  const data = text ? JSON.parse(text) : null;
  if (!response.ok) throw new Error((data && data.error) || response.statusText);
  return data;
}

function say(text) { $("message").textContent = text; }

function show(view) {
  for (const id of ["setup", "sign-in", "panel"]) $(id).hidden = id !== view;
  $("sign-out").hidden = view !== "panel";
}

function cells(row, values) {
  for (const v of values) {
    const td = document.createElement("td");
    td.textContent = v;
    row.appendChild(td);
  }
}

function addBlocked(entry, top) {
  const row = document.createElement("tr");
  cells(row, [new Date(entry.at_ms).toLocaleTimeString(), entry.client, entry.domain, entry.method,
    entry.path, entry.rule_ids.join(", "), entry.anomaly_score, entry.outcome, entry.request_id]);
  const body = $("recent");
  if (top) body.insertBefore(row, body.firstChild); else body.appendChild(row);
  while (body.children.length > 100) body.removeChild(body.lastChild);
}

async function refreshDashboard() {
  const d = await api("GET", "/api/dashboard");
  $("requests").textContent = d.requests;
  $("blocked").textContent = d.blocked;
  $("observed").textContent = d.observed;
  $("rate-limited").textContent = d.rate_limited;
  const list = $("top-rules");
  list.replaceChildren();
  for (const r of d.top_rules) {
    const li = document.createElement("li");
    li.textContent = `rule ${r.rule_id}: ${r.hits} hits`;
    list.appendChild(li);
  }
}

// A domain's certificate as the table shows it: file paths only (the API never sends a key's content).
function certificate(tls) {
  switch (tls.certificate) {
    case "files": return `files: ${tls.cert_file}, key ${tls.key_file}`;
    case "acme": return `ACME (${tls.email || "no e-mail"})`;
    case "self_signed": return "self-signed";
    default: return "(global)";
  }
}

// What awaits a restart, and other notices about the saved settings.
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
  $("mode").value = c.mode;
  $("paranoia").value = String(c.paranoia_level);
  $("rule-set").value = c.rule_set.artifact || c.rule_set.directories.join(", ");
  $("tls-https").value = String(c.tls.https_enabled);
  $("tls-http-port").value = c.tls.http_port;
  $("tls-https-port").value = c.tls.https_port;
  $("tls-auto-generate").value = String(c.tls.auto_generate);
  showPending(c);
  const body = $("domains");
  body.replaceChildren();
  for (const [host, d] of Object.entries(c.domains)) {
    const row = document.createElement("tr");
    cells(row, [host, d.upstream || "(default)", certificate(d.tls), d.force_https ? "on" : "off",
      d.anomaly_threshold ?? "(global)", (d.disabled_rules || []).join(", "), d.custom_rules ? "yes" : ""]);
    row.addEventListener("click", () => {
      $("rules-host").value = host;
      $("rules-threshold").value = d.anomaly_threshold ?? "";
      $("rules-excluded").value = (d.disabled_rules || []).join(", ");
      $("rules-custom").value = d.custom_rules || "";
    });
    const td = document.createElement("td");
    const remove = document.createElement("button");
    remove.textContent = "Remove";
    remove.addEventListener("click", () => act(() => api("DELETE", `/api/domains/${encodeURIComponent(host)}`),
      `${host} removed`));
    td.appendChild(remove);
    row.appendChild(td);
    body.appendChild(row);
  }
}

// The loaded rules matching the search box (the API filters and caps nothing: the CRS is a few hundred rules).
async function refreshRules() {
  const search = $("rule-search").value;
  const rules = await api("GET", `/api/rules?search=${encodeURIComponent(search)}`);
  const body = $("rule-list");
  body.replaceChildren();
  for (const r of rules) {
    const row = document.createElement("tr");
    cells(row, [r.id, r.msg, r.file, r.paranoia_level, r.hosts.join(", "), r.hits]);
    body.appendChild(row);
  }
}

// The recent blocked requests; only the one whose request id is in the search box, when it holds one.
async function refreshBlocked() {
  const id = $("blocked-request-id").value.trim();
  const only = id ? `&request_id=${encodeURIComponent(id)}` : "";
  const entries = await api("GET", `/api/blocked?limit=100${only}`);
  $("recent").replaceChildren();
  for (const entry of entries) addBlocked(entry, false);
}

async function openPanel(username) {
  $("who").textContent = username;
  show("panel");
  await Promise.all([refreshDashboard(), refreshConfig(), refreshRules(), refreshBlocked()]);
  if (events) events.close();
  events = new EventSource("/api/events");
  events.addEventListener("blocked", (e) => {
    const entry = JSON.parse(e.data);
    const id = $("blocked-request-id").value.trim();
    if (!id || entry.request_id === id) addBlocked(entry, true);
    refreshDashboard().catch(() => {});
  });
}

async function act(action, done) {
  try {
    const answer = await action();
    say(answer && answer.restart_required ? `${done} It takes effect when the proxy restarts.` : done);
    await Promise.all([refreshConfig(), refreshRules()]);
  } catch (e) {
    say(`Refused: ${e.message}`);
  }
}

async function start() {
  const status = await api("GET", "/api/status");
  if (status.setup_required) show("setup");
  else if (status.username) await openPanel(status.username);
  else show("sign-in");
}

document.addEventListener("DOMContentLoaded", () => {
  $("setup-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      await api("POST", "/api/setup", {
        token: $("setup-token").value, username: $("setup-username").value, password: $("setup-password").value,
      });
      say("Admin created: sign in.");
      show("sign-in");
    } catch (err) { say(`Setup refused: ${err.message}`); }
  });
  $("sign-in-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      const me = await api("POST", "/api/session", {
        username: $("sign-in-username").value, password: $("sign-in-password").value,
      });
      say("");
      await openPanel(me.username);
    } catch (err) { say(`Sign-in refused: ${err.message}`); }
  });
  $("sign-out").addEventListener("click", async () => {
    try { await api("DELETE", "/api/session"); } catch (err) { /* signed out either way */ }
    if (events) events.close();
    show("sign-in");
  });
  $("mode-form").addEventListener("submit", (e) => {
    e.preventDefault();
    act(async () => {
      await api("PUT", "/api/config/mode", { mode: $("mode").value });
      await api("PUT", "/api/config/paranoia", { level: Number($("paranoia").value) });
    }, `Mode ${$("mode").value}, paranoia level ${$("paranoia").value} applied.`);
  });
  $("rule-set-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const value = $("rule-set").value.trim();
    const change = value.endsWith(".wafc")
      ? { artifact: value }
      : { directories: value.split(",").map((d) => d.trim()).filter((d) => d !== "") };
    act(() => api("PUT", "/api/config/rules", change), `Rule set ${value} loaded.`);
  });
  $("domain-tls").addEventListener("change", () => {
    for (const label of document.querySelectorAll("[data-tls]")) {
      label.hidden = label.dataset.tls !== $("domain-tls").value;
    }
  });
  $("domain-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const host = $("domain-host").value;
    const change = { upstream: $("domain-upstream").value };
    const kind = $("domain-tls").value;
    if (kind === "files") {
      change.tls = { certificate: kind, cert_file: $("domain-cert-file").value, key_file: $("domain-key-file").value };
    } else if (kind === "acme") {
      change.tls = { certificate: kind, email: $("domain-acme-email").value };
    } else if (kind !== "") {
      change.tls = { certificate: kind };
    }
    if ($("domain-force-https").value !== "") change.force_https = $("domain-force-https").value === "true";
    act(() => api("PUT", `/api/domains/${encodeURIComponent(host)}`, change), `${host} saved.`);
  });
  $("tls-form").addEventListener("submit", (e) => {
    e.preventDefault();
    act(() => api("PUT", "/api/tls", {
      https_enabled: $("tls-https").value === "true",
      http_port: Number($("tls-http-port").value),
      https_port: Number($("tls-https-port").value),
      auto_generate: $("tls-auto-generate").value === "true",
    }), "TLS settings saved.");
  });
  $("domain-rules-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const host = $("rules-host").value;
    const threshold = $("rules-threshold").value;
    const excluded = $("rules-excluded").value.split(/[\s,]+/).filter((id) => id !== "").map(Number);
    act(() => api("PUT", `/api/domains/${encodeURIComponent(host)}/rules`, {
      anomaly_threshold: threshold === "" ? null : Number(threshold),
      disabled_rules: excluded,
      custom_rules: $("rules-custom").value,
    }), `${host}: rules set.`);
  });
  $("rule-search-form").addEventListener("submit", (e) => {
    e.preventDefault();
    refreshRules().catch((err) => say(err.message));
  });
  $("blocked-search-form").addEventListener("submit", (e) => {
    e.preventDefault();
    refreshBlocked().catch((err) => say(err.message));
  });
  start().catch((e) => say(e.message));
});
