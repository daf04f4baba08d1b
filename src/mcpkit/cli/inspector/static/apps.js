// The inspector as an MCP Apps host (SEP-1865, protocol 2026-01-26): a tool with a view renders it
// next to its result, in a sandbox proxy served from another origin (a second loopback port), and
// the page answers the view's requests: ui/initialize with the host context, tool input and
// result, tools/call (only tools the server lets apps call; the backend checks again),
// resources/read, open-link (after the person confirms), message, model context, size, logs.
import { el } from "/static/forms.js";

const PROTOCOL_VERSION = "2026-01-26";
const HOST_INFO = { name: "mcpkit-inspector", version: "1" };
const MAX_HEIGHT = 2000;
const TEARDOWN_TIMEOUT_MS = 3000;
const SANDBOX_PREFIX = "ui/notifications/sandbox-";

export function viewUri(tool) {
  const meta = tool && tool._meta;
  if (!meta) return null;
  const uri = (meta.ui && meta.ui.resourceUri) || meta["ui/resourceUri"];
  return typeof uri === "string" && uri.startsWith("ui://") ? uri : null;
}

export function visibility(tool) {
  const v = tool && tool._meta && tool._meta.ui && tool._meta.ui.visibility;
  return Array.isArray(v) ? v : ["model", "app"];
}

function theme() {
  const chosen = document.documentElement.dataset.theme; // the page's theme (app.js sets it)
  if (chosen === "dark" || chosen === "light") return chosen;
  return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

// One rendered view. `host` gives what the view needs of the page: api(path, body), the tools
// list, addWire(event) and addLog(event).
export class AppView {
  constructor(host, tool, args, slot, sandboxPort) {
    this.host = host;
    this.tool = tool;
    this.args = args;
    this.uri = viewUri(tool);
    this.result = null;
    this.cancelled = null;
    this.initialized = false;
    this.closed = false;
    this.pending = new Map();
    this.nextId = 1;
    this.sandboxOrigin = `${location.protocol}//127.0.0.1:${sandboxPort}`;
    this.messages = el("ul", { class: "log app-messages", "aria-label": "Messages from the app" });
    this.context = el("pre", { class: "app-context", hidden: true });
    this.frame = null;
    this.box = el("div", { class: "app-view card", "data-uri": this.uri },
      el("h3", {}, el("span", { class: "tag", text: "app" }), " " + this.uri));
    slot.replaceChildren(this.box);
    this.onMessage = (event) => this.receive(event);
    window.addEventListener("message", this.onMessage);
    this.start().catch((error) => this.fail(error.message));
  }

  fail(text) {
    this.box.append(el("p", { class: "error", role: "alert", text: "app: " + text }));
  }

  async start() {
    const view = await this.host.api("/api/app/view", { uri: this.uri });
    if (this.closed) return;
    this.view = view;
    const query = new URLSearchParams({ host: location.origin, csp: JSON.stringify(view.csp || {}) });
    const allow = Object.keys(view.permissions || {}).map((k) => ({ camera: "camera", microphone: "microphone", geolocation: "geolocation", clipboardWrite: "clipboard-write" })[k]).filter(Boolean);
    this.frame = el("iframe", {
      class: "app-frame" + (view.prefersBorder === false ? " borderless" : ""),
      title: "MCP App " + this.uri,
      // The proxy needs both (the spec); the view it loads gets its own stricter sandbox.
      sandbox: "allow-scripts allow-same-origin",
      src: `${this.sandboxOrigin}/sandbox?${query}`,
    });
    if (allow.length) this.frame.setAttribute("allow", allow.join("; "));
    this.frame.style.height = "120px";
    this.box.append(this.frame, el("h4", { text: "Messages from the app" }), this.messages, this.context);
  }

  // -- the wire ----------------------------------------------------------------------------------
  post(message) {
    if (!this.frame || !this.frame.contentWindow) return;
    const full = { jsonrpc: "2.0", ...message };
    if (!String(full.method || "").startsWith(SANDBOX_PREFIX)) this.host.addWire({ dir: "app-out", t: performance.now(), msg: full });
    this.frame.contentWindow.postMessage(full, this.sandboxOrigin);
  }
  notify(method, params) { this.post({ method, params: params || {} }); }
  answer(id, result) { this.post({ id, result: result || {} }); }
  error(id, code, message) { this.post({ id, error: { code, message } }); }
  request(method, params, timeoutMs) {
    const id = "host-" + this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => { this.pending.delete(id); reject(new Error(method + ": no answer")); }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      this.post({ id, method, params: params || {} });
    });
  }

  receive(event) {
    if (!this.frame || event.source !== this.frame.contentWindow || event.origin !== this.sandboxOrigin) return;
    const message = event.data;
    if (!message || message.jsonrpc !== "2.0") return;
    if (message.method === SANDBOX_PREFIX + "proxy-ready") {
      this.post({ method: SANDBOX_PREFIX + "resource-ready", params: { html: this.view.html, csp: this.view.csp || {}, permissions: this.view.permissions || {} } });
      return;
    }
    this.host.addWire({ dir: "app-in", t: performance.now(), msg: message });
    if (message.method === undefined) {
      const waiting = this.pending.get(message.id);
      if (waiting) {
        this.pending.delete(message.id);
        clearTimeout(waiting.timer);
        if (message.error) waiting.reject(new Error(message.error.message)); else waiting.resolve(message.result);
      }
      return;
    }
    if (message.id === undefined) this.onNotification(message.method, message.params || {});
    else this.onRequest(message.id, message.method, message.params || {}).then(
      (result) => this.answer(message.id, result),
      (error) => this.error(message.id, error.code || -32000, error.message),
    );
  }

  // -- what the view asks -------------------------------------------------------------------------
  hostContext() {
    const width = Math.floor(this.box.clientWidth || 600);
    return {
      toolInfo: { tool: this.tool },
      theme: theme(),
      displayMode: "inline",
      availableDisplayModes: ["inline"],
      containerDimensions: { width, maxHeight: MAX_HEIGHT },
      locale: navigator.language || "en-US",
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      userAgent: "mcpkit-inspector",
      platform: "web",
      deviceCapabilities: { touch: navigator.maxTouchPoints > 0, hover: true },
    };
  }

  async onRequest(id, method, params) {
    switch (method) {
      case "ui/initialize":
        return {
          protocolVersion: PROTOCOL_VERSION,
          hostInfo: HOST_INFO,
          hostCapabilities: {
            openLinks: {}, serverTools: {}, serverResources: {}, logging: {},
            sandbox: { csp: this.view.csp || {}, permissions: this.view.permissions || {} },
          },
          hostContext: this.hostContext(),
        };
      case "ping":
        return {};
      case "tools/call": {
        const tool = this.host.tools().find((t) => t.name === params.name);
        if (!tool || !visibility(tool).includes("app")) throw Object.assign(new Error(`the app may not call ${params.name}`), { code: -32602 });
        return await this.host.api("/api/app/call", { name: params.name, arguments: params.arguments || {} });
      }
      case "resources/read":
        return await this.host.api("/api/read", { uri: String(params.uri || "") });
      case "ui/open-link": {
        const url = String(params.url || "");
        if (!/^https?:\/\//i.test(url)) throw Object.assign(new Error("Invalid URL"), { code: -32000 });
        if (!window.confirm(`The app ${this.uri} asks to open\n${url}\n\nOpen it in a new tab?`)) throw Object.assign(new Error("Link opening denied by user"), { code: -32000 });
        window.open(url, "_blank", "noopener,noreferrer");
        return {};
      }
      case "ui/message": {
        const text = (params.content || []).map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join(" ");
        this.messages.append(el("li", { "data-kind": "message", text: `${params.role || "user"}: ${text}` }));
        return {};
      }
      case "ui/update-model-context":
        this.context.hidden = false;
        this.context.textContent = "model context: " + JSON.stringify(params, null, 2);
        return {};
      case "ui/request-display-mode":
        return { mode: "inline" };
      default:
        throw Object.assign(new Error("Method not found: " + method), { code: -32601 });
    }
  }

  onNotification(method, params) {
    if (method === "ui/notifications/initialized") {
      this.initialized = true;
      this.box.dataset.initialized = "true";
      this.notify("ui/notifications/tool-input-partial", { arguments: this.args });
      this.notify("ui/notifications/tool-input", { arguments: this.args });
      if (this.result) this.notify("ui/notifications/tool-result", this.result);
      if (this.cancelled !== null) this.notify("ui/notifications/tool-cancelled", { reason: this.cancelled });
    } else if (method === "ui/notifications/size-changed") {
      if (typeof params.height === "number" && this.frame) {
        this.frame.style.height = Math.min(Math.max(Math.ceil(params.height), 20), MAX_HEIGHT) + "px";
        this.box.dataset.height = String(Math.ceil(params.height));
      }
    } else if (method === "notifications/message") {
      this.host.addLog({ level: params.level || "info", logger: "app " + this.uri, data: params.data });
    }
  }

  // -- what the host tells the view ---------------------------------------------------------------
  toolResult(result) {
    this.result = result;
    if (this.initialized) this.notify("ui/notifications/tool-result", result);
  }

  toolCancelled(reason) {
    this.cancelled = reason;
    if (this.initialized) this.notify("ui/notifications/tool-cancelled", { reason });
  }

  contextChanged(changes) {
    if (this.initialized) this.notify("ui/notifications/host-context-changed", changes);
  }

  async teardown(reason) {
    if (this.closed) return;
    if (this.initialized) {
      try { await this.request("ui/resource-teardown", {}, TEARDOWN_TIMEOUT_MS); } catch { /* torn down anyway */ }
    }
    this.closed = true;
    this.host.addLog({ level: "debug", logger: "apps", data: `view ${this.uri} torn down (${reason})` });
    window.removeEventListener("message", this.onMessage);
    for (const waiting of this.pending.values()) clearTimeout(waiting.timer);
    this.box.remove();
  }
}
