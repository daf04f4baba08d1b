// The inspector page: talks to the local backend (/api/*) with the one-time token, renders what
// the server offers, and shows every event the backend streams (wire, progress, logs, questions).
import { el, schemaForm } from "/static/forms.js";
import { AppView, viewUri, visibility } from "/static/apps.js";

// The token leaves the address bar (and history) but stays in this tab's sessionStorage, so a
// reload (F5) can come back with it (reopen.js, served on the 403 of a token-less reload).
const TOKEN_KEY = "mcpkit-inspector-token";
const token = new URLSearchParams(location.search).get("token") || sessionStorage.getItem(TOKEN_KEY) || "";
if (token) sessionStorage.setItem(TOKEN_KEY, token);
history.replaceState(null, "", "/");
const $ = (id) => document.getElementById(id);
// Several servers in one page: each has an id ("s1" is the one `mcpkit dev` was started with);
// the page shows one at a time (this tab's choice), and every API request names it.
const SERVER_KEY = "mcpkit-inspector-server";
let server = sessionStorage.getItem(SERVER_KEY) || "s1";
const EMPTY_LISTS = { tools: [], resources: [], resourceTemplates: [], prompts: [] };
// historyUntil: the last event /api/state accounts for; replayed events up to it are history
// (wire, logs, console), not the state of things now.
const state = { lists: EMPTY_LISTS, calls: new Map(), questions: new Map(), wire: [], callSeq: 0, sandboxPort: null, appView: null, historyUntil: Infinity, panel: "connect", panelBeforeQuestions: null, connection: 0 };

// -- the API -------------------------------------------------------------------------------------
async function api(path, body) {
  const init = { method: body === undefined ? "GET" : "POST", headers: { "X-Inspector-Token": token, "X-Inspector-Server": server } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const data = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) throw new Error(data.error || `HTTP ${response.status}`);
  return data;
}

// -- panels (tabs: arrows move between them, Enter/Space or click selects) -----------------------
const tabs = [...document.querySelectorAll('[role="tab"]')];
function showPanel(name) {
  state.panel = name;
  for (const tab of tabs) {
    const selected = tab.id === "tab-" + name;
    tab.setAttribute("aria-selected", String(selected));
    tab.tabIndex = selected ? 0 : -1;
    $(tab.getAttribute("aria-controls")).hidden = !selected;
  }
}
tabs.forEach((tab, index) => {
  tab.addEventListener("click", () => showPanel(tab.id.slice(4)));
  tab.addEventListener("keydown", (event) => {
    const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
    if (!step) return;
    const next = tabs[(index + step + tabs.length) % tabs.length];
    next.focus();
    showPanel(next.id.slice(4));
  });
});
showPanel("connect");

// -- connection ----------------------------------------------------------------------------------
function setStatus(text, kind) {
  const status = $("status");
  status.textContent = text;
  status.className = "pill " + (kind || "");
}

function lines(text, sep) {
  const out = {};
  for (const line of text.split("\n")) {
    const at = line.indexOf(sep);
    if (at > 0) out[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return out;
}

// The options the inspector was started with (-e, --header, --bearer, --mode) fill the form, so a
// Connect from the page sends them again.
function fillConnectForm(spec) {
  if (!spec) return;
  $("target").value = spec.target || "";
  $("mode").value = spec.mode || "auto";
  $("headers").value = Object.entries(spec.headers || {}).map(([k, v]) => `${k}: ${v}`).join("\n");
  $("env").value = Object.entries(spec.env || {}).map(([k, v]) => `${k}=${v}`).join("\n");
  $("bearer").value = spec.bearer || "";
  $("oauth").checked = !!spec.oauth;
  if ($("headers").value || $("env").value || spec.bearer || spec.oauth) $("connect-options").open = true;
}

// A failed connection leaves nothing of the previous server on screen.
function forgetServer() {
  closeAppView("the connection closed");
  state.lists = EMPTY_LISTS;
  renderTools();
  renderResources();
  renderPrompts();
  $("server-info").hidden = true;
  $("server-line").textContent = "";
  for (const id of ["tool-detail", "resource-detail", "prompt-detail"]) $(id).replaceChildren(el("p", { class: "muted", text: "Not connected." }));
}

$("connect-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("connect-error").hidden = true;
  setStatus("connecting…");
  try {
    const server = await api("/api/connect", {
      target: $("target").value.trim(), mode: $("mode").value,
      headers: lines($("headers").value, ":"), bearer: $("bearer").value || null, env: lines($("env").value, "="),
      oauth: $("oauth").checked,
    });
    $("oauth-link").hidden = true;
    await connected(server);
  } catch (error) {
    setStatus("not connected", "failed");
    forgetServer();
    $("connect-error").textContent = error.message;
    $("connect-error").hidden = false;
  }
});
$("disconnect").addEventListener("click", async () => {
  await api("/api/disconnect", {});
  setStatus("not connected");
});

async function connected(server) {
  const info = server.serverInfo || {};
  setStatus("connected", "connected");
  $("server-line").textContent = `${info.name || "?"} ${info.version || ""} · ${server.era} · ${server.protocolVersion}`;
  if (server.target) $("target").value = server.target;
  const facts = $("server-facts");
  facts.replaceChildren();
  const headers = Object.entries(server.headersSent || {}).map(([k, v]) => `${k}: ${v}`).join("\n");
  for (const [key, value] of [["name", info.name], ["title", info.title], ["version", info.version], ["era", server.era], ["protocol version", server.protocolVersion], ["mode", server.mode], ["transport", server.transport], ["session id", server.sessionId], ["headers sent", headers], ["log level", server.logLevel]]) {
    if (value) facts.append(el("dt", { text: key }), el("dd", { text: value, "data-fact": key }));
  }
  $("client-capabilities").textContent = JSON.stringify(server.clientCapabilities || {}, null, 2);
  $("server-instructions").textContent = server.instructions || "(none)";
  $("server-capabilities").textContent = JSON.stringify(server.capabilities, null, 2);
  if (server.logLevel) $("log-level").value = server.logLevel;
  $("server-info").hidden = false;
  await refreshLists();
}

async function refreshLists() {
  state.lists = await api("/api/lists");
  renderTools();
  renderResources();
  renderPrompts();
}

// -- tools ---------------------------------------------------------------------------------------
function listButton(list, title, sub, onSelect) {
  const button = el("button", { type: "button" }, el("span", { text: title }), sub ? el("span", { class: "sub", text: sub }) : null);
  button.addEventListener("click", () => {
    const current = list.querySelector('button[aria-current="true"]');
    if (current) current.removeAttribute("aria-current");
    button.setAttribute("aria-current", "true");
    onSelect();
  });
  const item = el("li", {}, button);
  item.dataset.search = (title + " " + (sub || "")).toLowerCase();
  list.append(item);
  return button;
}

// Search: every word typed must appear in an item's name or description. Items are hidden, not
// rebuilt, so a list of thousands filters as fast as one types.
function applyFilter(input, lists) {
  const words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
  let shown = 0;
  for (const list of lists) {
    for (const item of list.children) {
      if (item.dataset.search === undefined) continue;
      item.hidden = !words.every((w) => item.dataset.search.includes(w));
      if (!item.hidden) shown += 1;
    }
  }
  return shown;
}
function filterTools() {
  const shown = applyFilter($("tool-filter"), [$("tool-list")]);
  const total = state.lists.tools.length;
  $("tool-count").textContent = total ? (shown === total ? `${total} tools` : `${shown} of ${total} tools`) : "";
}
const filterResources = () => applyFilter($("resource-filter"), [$("resource-list"), $("template-list")]);
const filterPrompts = () => applyFilter($("prompt-filter"), [$("prompt-list")]);
$("tool-filter").addEventListener("input", filterTools);
// "/" searches the list of the panel in view (the search boxes are left out of the Tab order, so
// that Tab from a panel's tab still lands on its list).
document.addEventListener("keydown", (event) => {
  if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.target.closest && event.target.closest("input, textarea, select, [contenteditable]")) return;
  const search = { tools: "tool-filter", resources: "resource-filter", prompts: "prompt-filter", console: "console-filter" }[state.panel];
  if (!search) return;
  event.preventDefault();
  $(search).focus();
});
$("resource-filter").addEventListener("input", filterResources);
$("prompt-filter").addEventListener("input", filterPrompts);

function renderTools() {
  const list = $("tool-list");
  list.replaceChildren();
  if (!state.lists.tools.length) list.append(el("li", { class: "muted", text: "No tools." }));
  for (const tool of state.lists.tools) {
    const appOnly = !visibility(tool).includes("model");
    const sub = (appOnly ? "[app only] " : viewUri(tool) ? "[app] " : "") + (tool.title || tool.description || "");
    listButton(list, tool.name, sub, () => showTool(tool));
  }
  filterTools();
}

function annotationTags(annotations) {
  const tags = el("p");
  for (const [key, label] of [["readOnlyHint", "read-only"], ["destructiveHint", "destructive"], ["idempotentHint", "idempotent"], ["openWorldHint", "open world"]]) {
    if (annotations && annotations[key] !== undefined) tags.append(el("span", { class: "tag", text: `${label}: ${annotations[key]}` }));
  }
  return tags;
}

// The host side of MCP Apps lives in apps.js; this is what a view needs of the page.
const appHost = {
  api,
  tools: () => state.lists.tools,
  // the page's clock on the backend's (whose wire events carry ms since the connection began)
  addWire: (event) => addWire({ ...event, t: wireClock.backend + (event.t - wireClock.page) }),
  addLog: (event) => addLog(event),
};

function closeAppView(reason) {
  const view = state.appView;
  state.appView = null;
  if (view) view.teardown(reason);
}

// The theme: auto (the system's), light or dark, remembered in this browser. The effective one
// is on <html data-theme>, for the CSS and for MCP Apps views (host context "theme").
const THEME_KEY = "mcpkit-inspector-theme";
const systemDark = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
function applyTheme() {
  const choice = $("theme").value;
  const effective = choice === "auto" ? (systemDark && systemDark.matches ? "dark" : "light") : choice;
  if (document.documentElement.dataset.theme === effective) return;
  document.documentElement.dataset.theme = effective;
  if (state.appView) state.appView.contextChanged({ theme: effective });
}
$("theme").value = localStorage.getItem(THEME_KEY) || "auto";
$("theme").addEventListener("change", () => {
  localStorage.setItem(THEME_KEY, $("theme").value);
  applyTheme();
});
if (systemDark) systemDark.addEventListener("change", applyTheme);
applyTheme();

function showTool(tool) {
  closeAppView("another tool was chosen");
  const detail = $("tool-detail");
  const form = schemaForm(tool.inputSchema);
  const call = el("button", { type: "submit", id: "call-tool", text: "Call" });
  const asTask = el("input", { type: "checkbox", id: "as-task" });
  const asTaskLabel = el("label", { for: "as-task", text: "run as task" });
  const cancel = el("button", { type: "button", id: "cancel-tool", text: "Cancel", disabled: true });
  const bar = el("progress", { id: "tool-progress", hidden: true, max: 1 });
  const progressText = el("span", { id: "tool-progress-text", class: "muted" });
  const result = el("div", { id: "tool-result", "aria-live": "polite" });
  const appSlot = el("div", { id: "tool-app" });
  const formNode = el("form", { id: "tool-form" }, form.node, el("div", { class: "actions" }, call, cancel, el("span", { class: "check" }, asTask, asTaskLabel), bar, progressText));
  detail.replaceChildren(
    el("h2", { text: tool.title || tool.name }), el("p", { class: "muted", text: tool.description || "" }),
    annotationTags(tool.annotations), formNode,
    el("details", {}, el("summary", { text: "Schemas" }), el("h3", { text: "inputSchema" }), el("pre", { text: JSON.stringify(tool.inputSchema, null, 2) }),
      tool.outputSchema ? el("h3", { text: "outputSchema" }) : null, tool.outputSchema ? el("pre", { text: JSON.stringify(tool.outputSchema, null, 2) }) : null),
    el("div", { class: "result-and-app" }, result, appSlot),
  );
  formNode.addEventListener("submit", async (event) => {
    event.preventDefault();
    for (const old of formNode.querySelectorAll(".field-error")) old.remove();
    let args;
    try {
      args = form.read();
    } catch (error) {
      result.replaceChildren(el("p", { class: "error", role: "alert", text: error.message }));
      return;
    }
    // Checked against the input schema before sending (the JSON mode sends as typed, to try
    // a server with arguments its schema refuses); the error goes next to its field.
    if (!form.rawMode()) {
      try {
        const check = await api("/api/check", { name: tool.name, arguments: args });
        if (!check.ok) {
          const { path, message } = check.errors[0];
          const top = path.split(/[.[]/)[0];
          const field = top ? formNode.querySelector(`[data-field="${CSS.escape(top)}"]`) : null;
          const text = (path ? path + ": " : "") + message;
          if (field) field.append(el("small", { class: "field-error", role: "alert", text }));
          result.replaceChildren(el("p", { class: "error", "data-check": "failed", text: "not sent: the arguments do not fit the input schema — " + text }));
          return;
        }
      } catch {
        // no check (the tool list is gone, the connection closed): the call will say
      }
    }
    if (asTask.checked) {
      try {
        const started = await api("/api/task", { name: tool.name, arguments: args });
        if (started.task) {
          result.replaceChildren(el("p", { text: `started task ${started.task.taskId} (${started.task.status}): see Tasks` }));
        } else {
          renderToolResult(result, { result: started.result, outputCheck: null });
        }
      } catch (error) {
        result.replaceChildren(el("p", { class: "error", role: "alert", text: error.message }));
      }
      return;
    }
    const callId = "c" + ++state.callSeq;
    state.calls.set(callId, { bar, progressText });
    call.disabled = true;
    cancel.disabled = false;
    bar.hidden = false;
    bar.removeAttribute("value");
    progressText.textContent = "";
    result.replaceChildren(el("p", { class: "muted", text: "calling…" }));
    const onCancel = () => api("/api/cancel", { callId });
    cancel.addEventListener("click", onCancel, { once: true });
    closeAppView("the tool was called again");
    const view = viewUri(tool) && state.sandboxPort ? new AppView(appHost, tool, args, appSlot, state.sandboxPort) : null;
    state.appView = view;
    try {
      const answer = await api("/api/call", { name: tool.name, arguments: args, callId });
      renderToolResult(result, answer);
      if (view) view.toolResult(answer.result);
    } catch (error) {
      result.replaceChildren(el("p", { class: "error", role: "alert", text: error.message }));
      if (view) view.toolCancelled(error.message);
    } finally {
      state.calls.delete(callId);
      call.disabled = false;
      cancel.disabled = true;
      cancel.removeEventListener("click", onCancel);
      bar.hidden = true;
    }
  });
  form.focus({ preventScroll: true }); // a tool far down a long list: the page stays where it is
}

function renderToolResult(box, answer) {
  const result = answer.result;
  const node = el("div", { class: "result " + (result.isError ? "is-error" : "ok"), "data-is-error": String(!!result.isError) });
  node.append(el("h3", { text: result.isError ? "Error result (isError)" : "Result" }));
  for (const item of result.content || []) node.append(renderContent(item));
  if (result.structuredContent !== undefined) {
    node.append(el("h3", { text: "structuredContent" }), el("pre", { text: JSON.stringify(result.structuredContent, null, 2) }));
  }
  const check = answer.outputCheck;
  if (check) {
    node.append(el("p", { class: check.ok ? "muted" : "error", "data-output-check": check.ok ? "ok" : "failed", text: check.ok ? "✓ structuredContent matches the outputSchema" : "✗ structuredContent violates the outputSchema: " + check.errors.join("; ") }));
  }
  box.replaceChildren(node);
}

function blobUrl(base64, mimeType) {
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  return URL.createObjectURL(new Blob([bytes], { type: mimeType || "application/octet-stream" }));
}

function renderContent(item) {
  switch (item.type) {
    case "text":
      return el("pre", { class: "content text", text: item.text });
    case "image":
      return el("img", { class: "content", alt: "image content (" + item.mimeType + ")", src: `data:${item.mimeType};base64,${item.data}` });
    case "audio":
      return el("audio", { class: "content", controls: true, src: blobUrl(item.data, item.mimeType) });
    case "resource_link":
    {
      const link = el("a", { href: "#", "data-uri": item.uri, text: item.name || item.uri });
      link.addEventListener("click", (event) => {
        event.preventDefault();
        showPanel("resources");
        showResource(item.uri, item);
      });
      return el("p", {}, el("span", { class: "tag", text: "resource link" }), link);
    }
    case "resource": {
      const res = item.resource || {};
      return el("div", { class: "content embedded" }, el("span", { class: "tag", text: "embedded " + res.uri }), renderResourceContents(res));
    }
    default:
      return el("pre", { text: JSON.stringify(item, null, 2) });
  }
}

function renderResourceContents(contents) {
  if (contents.text !== undefined) return el("pre", { class: "resource-text", text: contents.text });
  if (contents.blob !== undefined) {
    if ((contents.mimeType || "").startsWith("image/")) return el("img", { class: "content", alt: contents.uri, src: `data:${contents.mimeType};base64,${contents.blob}` });
    const name = (contents.uri || "resource").split("/").pop() || "resource";
    return el("a", { class: "download", href: blobUrl(contents.blob, contents.mimeType), download: name, text: `download ${name} (${contents.mimeType || "binary"})` });
  }
  return el("pre", { text: JSON.stringify(contents, null, 2) });
}

// -- resources -----------------------------------------------------------------------------------
function renderResources() {
  const list = $("resource-list");
  list.replaceChildren();
  for (const resource of state.lists.resources) listButton(list, resource.name || resource.uri, resource.uri, () => showResource(resource.uri, resource));
  const templates = $("template-list");
  templates.replaceChildren();
  for (const template of state.lists.resourceTemplates) listButton(templates, template.name || template.uriTemplate, template.uriTemplate, () => showTemplate(template));
  filterResources();
}

async function showResource(uri, resource) {
  const detail = $("resource-detail");
  const subscribe = el("button", { type: "button", id: "subscribe", text: "Subscribe to updates" });
  const body = el("div", { id: "resource-body" }, el("p", { class: "muted", text: "reading…" }));
  detail.replaceChildren(el("h2", { text: (resource && resource.name) || uri }), el("p", { class: "muted", text: uri }), el("div", { class: "actions" }, subscribe), body);
  subscribe.addEventListener("click", async () => {
    try {
      await api("/api/watch", { uri });
      subscribe.textContent = "Subscribed";
      subscribe.disabled = true;
    } catch (error) {
      body.prepend(el("p", { class: "error", role: "alert", text: error.message }));
    }
  });
  try {
    const read = await api("/api/read", { uri });
    body.replaceChildren(...read.contents.map(renderResourceContents));
  } catch (error) {
    body.replaceChildren(el("p", { class: "error", role: "alert", text: error.message }));
  }
}

function templateVariables(template) {
  const names = [];
  for (const match of template.matchAll(/\{([^}]+)\}/g)) {
    for (const part of match[1].replace(/^[+#./;?&]/, "").split(",")) names.push(part.replace(/\*$|:\d+$/, ""));
  }
  return names;
}

function expandTemplate(template, values) {
  return template.replace(/\{([+#./;?&]?)([^}]+)\}/g, (_, op, vars) => {
    const parts = vars.split(",").map((v) => v.replace(/\*$|:\d+$/, "")).filter((v) => values[v]);
    if (!parts.length) return "";
    const enc = (v) => (op === "+" || op === "#" ? encodeURI(v) : encodeURIComponent(v));
    if (op === "?" || op === "&") return op + parts.map((v) => `${v}=${enc(values[v])}`).join("&");
    const prefix = { "": "", "+": "", "#": "#", ".": ".", "/": "/", ";": ";" }[op];
    return prefix + parts.map((v) => enc(values[v])).join(op === "" || op === "+" ? "," : prefix || ",");
  });
}

function showTemplate(template) {
  const detail = $("resource-detail");
  const names = templateVariables(template.uriTemplate);
  const form = schemaForm({ type: "object", properties: Object.fromEntries(names.map((n) => [n, { type: "string" }])) });
  const read = el("button", { type: "submit", text: "Read" });
  const formNode = el("form", { id: "template-form" }, form.node, el("div", { class: "actions" }, read));
  detail.replaceChildren(el("h2", { text: template.name || template.uriTemplate }), el("p", { class: "muted", text: template.uriTemplate }), formNode);
  formNode.addEventListener("submit", (event) => {
    event.preventDefault();
    const uri = expandTemplate(template.uriTemplate, form.read());
    showResource(uri, { name: uri });
  });
}

$("watch-lists").addEventListener("click", async () => {
  await api("/api/watch", { uri: null });
  $("watch-lists").textContent = "Watching list changes";
  $("watch-lists").disabled = true;
});

// -- prompts -------------------------------------------------------------------------------------
function renderPrompts() {
  const list = $("prompt-list");
  list.replaceChildren();
  for (const prompt of state.lists.prompts) listButton(list, prompt.name, prompt.title || prompt.description || "", () => showPrompt(prompt));
  filterPrompts();
}

function showPrompt(prompt) {
  const detail = $("prompt-detail");
  const inputs = {};
  const fields = el("div", { class: "fields" });
  for (const argument of prompt.arguments || []) {
    const id = "arg-" + argument.name;
    const datalist = el("datalist", { id: id + "-options" });
    const input = el("input", { id, name: argument.name, required: argument.required, list: id + "-options", autocomplete: "off" });
    input.addEventListener("input", async () => {
      try {
        const others = Object.fromEntries(Object.entries(inputs).filter(([k, i]) => k !== argument.name && i.value).map(([k, i]) => [k, i.value]));
        const answer = await api("/api/complete", { ref: { type: "ref/prompt", name: prompt.name }, argument: argument.name, value: input.value, context: others });
        datalist.replaceChildren(...answer.completion.values.map((v) => el("option", { value: v })));
        input.dataset.suggestions = answer.completion.values.join("|");
      } catch {
        // completion is optional; typing still works without it
      }
    });
    inputs[argument.name] = input;
    fields.append(el("div", { class: "field" }, el("label", { for: id, text: argument.name + (argument.required ? " *" : "") }), input, datalist, argument.description ? el("small", { class: "help", text: argument.description }) : null));
  }
  const get = el("button", { type: "submit", text: "Get prompt" });
  const output = el("div", { id: "prompt-result", "aria-live": "polite" });
  const form = el("form", { id: "prompt-form" }, fields, el("div", { class: "actions" }, get));
  detail.replaceChildren(el("h2", { text: prompt.title || prompt.name }), el("p", { class: "muted", text: prompt.description || "" }), form, output);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const args = Object.fromEntries(Object.entries(inputs).filter(([, i]) => i.value).map(([k, i]) => [k, i.value]));
    try {
      const result = await api("/api/prompt", { name: prompt.name, arguments: args });
      output.replaceChildren(...(result.description ? [el("p", { class: "muted", text: result.description })] : []),
        ...result.messages.map((m) => el("div", { class: "card message" }, el("span", { class: "tag", text: m.role }), renderContent(m.content))));
    } catch (error) {
      output.replaceChildren(el("p", { class: "error", role: "alert", text: error.message }));
    }
  });
}

// -- questions from the server --------------------------------------------------------------------
function updateQuestionCount() {
  const count = state.questions.size;
  $("question-count").textContent = String(count);
  $("question-count").hidden = count === 0;
}

function showQuestion(event) {
  if (state.questions.has(event.id)) return;
  const box = el("form", { class: "card question", id: "question-" + event.id, "data-kind": event.kind });
  const answer = async (body) => {
    try {
      await api("/api/answer", { id: event.id, answer: body });
    } catch (error) {
      box.append(el("p", { class: "error", role: "alert", text: error.message }));
    }
  };
  const params = event.params || {};
  if (event.kind === "elicitation" && params.mode === "url") {
    box.append(el("h2", { text: "The server asks you to open a page" }), el("p", { text: params.message }),
      el("p", {}, el("a", { href: params.url, target: "_blank", rel: "noopener noreferrer", text: params.url })));
    const done = el("button", { type: "submit", text: "Done" });
    const decline = el("button", { type: "button", text: "Decline" });
    box.append(el("div", { class: "actions" }, done, decline));
    box.addEventListener("submit", (e) => { e.preventDefault(); answer({ action: "accept" }); });
    decline.addEventListener("click", () => answer({ action: "decline" }));
  } else if (event.kind === "elicitation") {
    const form = schemaForm(params.requestedSchema, event.defaults);
    const accept = el("button", { type: "submit", text: "Accept" });
    const decline = el("button", { type: "button", text: "Decline" });
    const cancel = el("button", { type: "button", text: "Cancel" });
    const problem = el("p", { class: "error", role: "alert" });
    box.append(el("h2", { text: "The server asks" + (event.during ? ` (during ${event.during})` : "") }), el("p", { class: "message", text: params.message }), form.node, problem, el("div", { class: "actions" }, accept, decline, cancel));
    box.addEventListener("submit", (e) => {
      e.preventDefault();
      try {
        answer({ action: "accept", content: form.read() });
      } catch (error) {
        problem.textContent = error.message;
      }
    });
    decline.addEventListener("click", () => answer({ action: "decline" }));
    cancel.addEventListener("click", () => answer({ action: "cancel" }));
    setTimeout(() => form.focus(), 0);
  } else {
    const reply = el("textarea", { id: "sampling-reply-" + event.id, rows: 4, "aria-label": "your reply as the model" });
    const send = el("button", { type: "submit", text: "Send reply" });
    const decline = el("button", { type: "button", text: "Decline" });
    box.append(el("h2", { text: "The server asks the model (sampling)" }));
    if (params.systemPrompt) box.append(el("p", { class: "muted", text: "system: " + params.systemPrompt }));
    for (const message of params.messages || []) box.append(el("div", {}, el("span", { class: "tag", text: message.role }), renderContent(message.content && !Array.isArray(message.content) ? message.content : { type: "text", text: JSON.stringify(message.content) })));
    box.append(el("label", { for: reply.id, text: "Reply" }), reply, el("div", { class: "actions" }, send, decline));
    box.addEventListener("submit", (e) => { e.preventDefault(); answer({ action: "accept", text: reply.value }); });
    decline.addEventListener("click", () => answer({ action: "decline" }));
  }
  state.questions.set(event.id, box);
  $("question-list").append(box);
  updateQuestionCount();
  if (state.panel !== "questions") state.panelBeforeQuestions = state.panel;
  showPanel("questions");
}

// The last question answered: back to the panel the person was on (the call's result is there).
function closeQuestion(id) {
  const box = state.questions.get(id);
  if (!box) return;
  box.remove();
  state.questions.delete(id);
  updateQuestionCount();
  if (!state.questions.size && state.panel === "questions" && state.panelBeforeQuestions) {
    showPanel(state.panelBeforeQuestions);
    state.panelBeforeQuestions = null;
  }
}

// -- tasks ---------------------------------------------------------------------------------------
const TERMINAL = new Set(["completed", "failed", "cancelled"]);
function showTask(task) {
  let row = document.querySelector(`#task-rows tr[data-task="${CSS.escape(task.taskId)}"]`);
  if (!row) {
    row = el("tr", { "data-task": task.taskId });
    $("task-rows").append(row);
  }
  const actions = el("td");
  if (!TERMINAL.has(task.status)) {
    const cancel = el("button", { type: "button", class: "small", text: "Cancel" });
    cancel.addEventListener("click", async () => {
      try {
        showTask(await api("/api/task/cancel", { taskId: task.taskId }));
      } catch (error) {
        $("task-result").replaceChildren(el("p", { class: "error", role: "alert", text: error.message }));
      }
    });
    actions.append(cancel);
  }
  if (task.result) {
    const view = el("button", { type: "button", class: "small", text: "Result" });
    view.addEventListener("click", () => renderToolResult($("task-result"), { result: task.result, outputCheck: null }));
    actions.append(view);
  }
  if (task.error) actions.append(el("span", { class: "error", text: task.error }));
  row.dataset.status = task.status || "";
  row.replaceChildren(el("td", { text: task.taskId }), el("td", { text: task.tool || "" }), el("td", { class: "status", text: task.status || "" }), el("td", { text: task.statusMessage || "" }), actions);
}
async function refreshTasks() {
  try {
    for (const task of (await api("/api/tasks")).tasks) showTask(task);
  } catch (error) {
    $("task-result").replaceChildren(el("p", { class: "error", role: "alert", text: error.message }));
  }
}
$("refresh-tasks").addEventListener("click", refreshTasks);

// -- roots ---------------------------------------------------------------------------------------
function rootRow(root) {
  const n = $("root-rows").children.length;
  const uri = el("input", { id: "root-uri-" + n, value: root.uri || "", placeholder: "file:///path/to/folder", "aria-label": "root URI" });
  const name = el("input", { id: "root-name-" + n, value: root.name || "", placeholder: "name", "aria-label": "root name" });
  const remove = el("button", { type: "button", class: "small", text: "remove" });
  const row = el("div", { class: "row root" }, uri, name, remove);
  remove.addEventListener("click", () => row.remove());
  $("root-rows").append(row);
  return uri;
}
$("add-root").addEventListener("click", () => rootRow({}).focus());
$("roots-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const roots = [...$("root-rows").children].map((row) => {
    const [uri, name] = row.querySelectorAll("input");
    return { uri: uri.value.trim(), name: name.value.trim() };
  }).filter((r) => r.uri);
  try {
    await api("/api/roots", { roots });
    $("roots-error").hidden = true;
  } catch (error) {
    $("roots-error").textContent = error.message;
    $("roots-error").hidden = false;
  }
});

// -- wire and logs --------------------------------------------------------------------------------
function wireLabel(msg) {
  if (msg.method) return msg.method + (msg.id !== undefined ? ` #${msg.id}` : "");
  return (msg.error ? "error" : "result") + ` #${msg.id}`;
}

function wireVisible(entry) {
  const dir = $("wire-dir").value;
  const filter = $("wire-method").value.trim();
  if (dir === "app" ? !entry.dir.startsWith("app") : dir && entry.dir !== dir) return false;
  if (filter && !wireLabel(entry.msg).includes(filter) && !(entry.method || "").includes(filter)) return false;
  return true;
}

const wireClock = { backend: 0, page: performance.now() };
const requestMethods = new Map();
const OPPOSITE = { in: "out", out: "in", "app-in": "app-out", "app-out": "app-in" };
const ARROWS = { in: "←", out: "→", "app-in": "⇠ app", "app-out": "⇢ app" };
// Each connection starts a section of the wire view: request ids start again with it.
function startConnection(event) {
  state.connection = event.connection || state.connection + 1;
  requestMethods.clear();
  const row = el("tr", { class: "connection-start", "data-connection": String(state.connection) },
    el("td", { colspan: 6, text: `connection ${state.connection}: ${event.target} (${event.mode})` }));
  row.hidden = !!($("wire-dir").value || $("wire-method").value.trim());
  $("wire-rows").append(row);
}

// Requests of the current connection by direction and id: the method a response answers, and
// when the request went (its latency is on both rows once the response arrives).
const REPLAYABLE = new Set(["tools/call", "tools/list", "resources/read", "resources/list", "resources/templates/list", "prompts/get", "prompts/list", "completion/complete", "logging/setLevel", "ping", "server/discover"]);
function addWire(event) {
  if (!event.dir.startsWith("app")) Object.assign(wireClock, { backend: event.t, page: performance.now() });
  const msg = event.msg;
  const took = el("td", { class: "took" });
  if (msg.method && msg.id !== undefined) requestMethods.set(`${event.dir}:${msg.id}`, { method: msg.method, t: event.t, took });
  const request = msg.method ? null : requestMethods.get(`${OPPOSITE[event.dir]}:${msg.id}`);
  const method = msg.method || (request ? request.method : "");
  if (request && msg.id !== undefined) {
    const ms = `${Math.max(0, event.t - request.t).toFixed(0)} ms`;
    request.took.textContent = ms;
    took.textContent = ms;
  }
  const entry = { ...event, method, connection: state.connection };
  state.wire.push(entry);
  const text = JSON.stringify(msg);
  const actions = el("td", { class: "actions-cell" });
  if (event.dir === "out" && msg.method && msg.id !== undefined && REPLAYABLE.has(msg.method)) {
    const replay = el("button", { type: "button", class: "small", text: "replay" });
    const edit = el("button", { type: "button", class: "small", text: "edit" });
    replay.addEventListener("click", () => openReplay(msg, true));
    edit.addEventListener("click", () => openReplay(msg, false));
    actions.append(replay, edit);
  }
  const row = el("tr", { "data-dir": event.dir, "data-method": method, "data-connection": String(state.connection) }, el("td", { text: event.t.toFixed(0) }), el("td", { text: ARROWS[event.dir] || event.dir }),
    el("td", { text: wireLabel(msg) + (msg.method ? "" : method ? ` (${method})` : "") }), took, el("td", { class: "msg", tabindex: 0, text }), actions);
  row.querySelector(".msg").addEventListener("click", (e) => toggleWire(row, msg, e.currentTarget));
  row.querySelector(".msg").addEventListener("keydown", (e) => { if (e.key === "Enter") toggleWire(row, msg, e.currentTarget); });
  row.hidden = !wireVisible(entry);
  entry.row = row;
  $("wire-rows").append(row);
}
// Replay: the request's params (without the _meta the client adds itself) in an editor; sent
// through /api/replay, which goes through the client like any request.
function openReplay(msg, sendNow) {
  const { _meta, ...params } = msg.params || {};
  $("replay-method").value = msg.method;
  $("replay-params").value = JSON.stringify(params, null, 2);
  $("replay-result").replaceChildren();
  $("replay-form").hidden = false;
  if (sendNow) sendReplay();
  else $("replay-params").focus();
}
async function sendReplay() {
  const out = $("replay-result");
  let params;
  try {
    params = JSON.parse($("replay-params").value || "{}");
  } catch (error) {
    out.replaceChildren(el("p", { class: "error", role: "alert", text: `not valid JSON: ${error.message}` }));
    return;
  }
  out.replaceChildren(el("p", { class: "muted", text: "sending…" }));
  try {
    const answer = await api("/api/replay", { method: $("replay-method").value, params });
    out.replaceChildren(el("p", { class: "muted", "data-took": String(answer.ms), text: `answered in ${answer.ms.toFixed(0)} ms` }), el("pre", { class: "replay-answer", text: JSON.stringify(answer.result, null, 2) }));
  } catch (error) {
    out.replaceChildren(el("p", { class: "error", role: "alert", text: error.message }));
  }
}
$("replay-form").addEventListener("submit", (event) => { event.preventDefault(); sendReplay(); });
$("replay-close").addEventListener("click", () => { $("replay-form").hidden = true; });

function toggleWire(row, msg, cell) {
  const open = row.classList.toggle("open");
  cell.textContent = open ? JSON.stringify(msg, null, 2) : JSON.stringify(msg);
}
function filterWire() {
  for (const entry of state.wire) entry.row.hidden = !wireVisible(entry);
  const filtered = $("wire-dir").value || $("wire-method").value.trim();
  for (const row of $("wire-rows").querySelectorAll("tr.connection-start")) row.hidden = !!filtered;
}
$("wire-method").addEventListener("input", filterWire);
$("wire-dir").addEventListener("change", filterWire);
$("wire-clear").addEventListener("click", () => { state.wire = []; $("wire-rows").replaceChildren(); });
$("wire-export").addEventListener("click", async () => {
  const response = await fetch("/api/wire.jsonl", { headers: { "X-Inspector-Token": token, "X-Inspector-Server": server } });
  const link = el("a", { href: URL.createObjectURL(await response.blob()), download: "mcp-wire.jsonl" });
  document.body.append(link);
  link.click();
  link.remove();
});

$("set-log-level").addEventListener("click", async () => {
  try {
    await api("/api/log-level", { level: $("log-level").value });
    addLog({ level: "info", logger: "inspector", data: "log level set to " + $("log-level").value });
  } catch (error) {
    addLog({ level: "error", logger: "inspector", data: error.message });
  }
});
// The console: the server's stderr (stdio) and what happened to the connection.
function addConsole(kind, text, t) {
  const line = el("li", { "data-kind": kind, text: `${t === undefined ? "" : t.toFixed(0) + " ms "}${text}` });
  line.hidden = !consoleVisible(line);
  $("console-lines").append(line);
}
function consoleVisible(line) {
  const filter = $("console-filter").value.trim().toLowerCase();
  return !filter || line.textContent.toLowerCase().includes(filter);
}
$("console-filter").addEventListener("input", () => {
  for (const line of $("console-lines").children) line.hidden = !consoleVisible(line);
});
$("console-clear").addEventListener("click", () => $("console-lines").replaceChildren());
function statusText(event) {
  if (event.state === "connecting") return `connecting to ${event.target} (${event.mode})`;
  if (event.state === "connected") {
    const info = (event.server && event.server.serverInfo) || {};
    return `connected to ${info.name || "?"} ${info.version || ""} (${event.server && event.server.era}, ${event.server && event.server.protocolVersion})`;
  }
  return event.state + (event.error ? ": " + event.error : "");
}

function addLog(event) {
  const data = typeof event.data === "string" ? event.data : JSON.stringify(event.data);
  $("log-lines").append(el("li", { "data-level": event.level, text: `${event.level}${event.logger ? " [" + event.logger + "]" : ""}: ${data}` }));
}

// -- the event stream -----------------------------------------------------------------------------
// -- servers --------------------------------------------------------------------------------------
function switchServer(id) {
  sessionStorage.setItem(SERVER_KEY, id);
  location.replace("/?token=" + encodeURIComponent(token)); // the page again, for that server
}
async function refreshServers() {
  const { servers } = await api("/api/servers");
  const select = $("server-select");
  select.replaceChildren(...servers.map((s) => {
    const label = `${s.id}: ${s.name || s.target || "(new)"}${s.connected ? "" : " · not connected"}${s.questions ? ` · ${s.questions} question(s)` : ""}`;
    return el("option", { value: s.id, text: label, selected: s.id === server });
  }));
  const waiting = servers.filter((s) => s.id !== server && s.questions).map((s) => s.id);
  $("other-questions").hidden = !waiting.length;
  $("other-questions").textContent = waiting.length ? `A question waits on ${waiting.join(", ")}: switch server to answer it.` : "";
}
$("server-select").addEventListener("change", () => switchServer($("server-select").value));
$("add-server").addEventListener("click", async () => switchServer((await api("/api/servers/add", {})).id));

const STATEFUL = new Set(["status", "question", "question-closed", "progress", "oauth"]);
function onEvent(event) {
  if (event.serverId !== undefined && event.serverId !== server) {
    // another server's event: only its summary in the server list changes
    if (["status", "question", "question-closed"].includes(event.type) && event.seq > state.historyUntil) refreshServers().catch(() => {});
    return;
  }
  if (event.type === "status" && event.seq > state.historyUntil) refreshServers().catch(() => {});
  if (event.type === "status") {
    addConsole("status", statusText(event), event.t);
    if (event.state === "connecting") startConnection(event);
  }
  if (event.type === "stderr") addConsole("stderr", event.line, event.t);
  // A replayed event of that kind says how things were, not how they are (/api/state said that).
  if (STATEFUL.has(event.type) && event.seq <= state.historyUntil) return;
  switch (event.type) {
    case "wire": addWire(event); break;
    case "progress": {
      const call = state.calls.get(event.callId);
      if (call) {
        if (event.total) { call.bar.max = event.total; call.bar.value = event.progress; } else call.bar.removeAttribute("value");
        call.progressText.textContent = `${event.progress}${event.total ? "/" + event.total : ""}${event.message ? " " + event.message : ""}`;
      }
      break;
    }
    case "log": addLog(event); break;
    case "question": showQuestion(event); break;
    case "question-closed": closeQuestion(event.id); break;
    case "task": showTask(event.task); break;
    case "oauth":
      $("oauth-url").href = event.url;
      $("oauth-link").hidden = false;
      showPanel("connect");
      break;
    case "update": {
      const text = event.error ? `error: ${event.error}` : `${event.method} ${event.params && event.params.uri ? event.params.uri : ""}`;
      $("updates").append(el("li", { "data-method": event.method || "", text: `${event.t.toFixed(0)} ms ${text}` }));
      if (event.method && event.method.endsWith("list_changed")) refreshLists();
      break;
    }
    case "notification":
      if (event.method && event.method.endsWith("list_changed")) refreshLists();
      break;
    case "status":
      if (event.state === "disconnected") setStatus("disconnected" + (event.error ? ": " + event.error : ""), event.error ? "failed" : "");
      else if (event.state === "connecting") setStatus("connecting…");
      else if (event.state === "connected") setStatus("connected", "connected");
      else if (event.state === "failed") setStatus("not connected", "failed");
      break;
    default: break;
  }
}

async function streamEvents() {
  for (let delay = 500; ; delay = Math.min(delay * 2, 8000)) {
    try {
      const response = await fetch("/api/events", { headers: { "X-Inspector-Token": token } });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      delay = 500;
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let newline;
        while ((newline = buffer.indexOf("\n")) >= 0) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          if (line) onEvent(JSON.parse(line));
        }
      }
    } catch {
      // the backend went away or restarted; try again shortly
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

// -- start ---------------------------------------------------------------------------------------
(async () => {
  let initial;
  try {
    initial = await api("/api/state");
  } catch (error) {
    if (server === "s1") throw error;
    server = "s1"; // that server is gone (the inspector restarted): the first one
    sessionStorage.removeItem(SERVER_KEY);
    initial = await api("/api/state");
  }
  await refreshServers();
  state.historyUntil = initial.seq;
  state.sandboxPort = initial.sandboxPort || null;
  for (const root of initial.roots) rootRow(root);
  fillConnectForm(initial.spec);
  streamEvents();
  for (const question of initial.questions) showQuestion(question);
  if (initial.connected) await connected(initial.server);
  document.body.dataset.ready = "true";
})().catch((error) => {
  setStatus(error.message, "failed");
});
