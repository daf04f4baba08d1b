// The MCP Apps sandbox proxy (served from the sandbox origin, never the inspector's). It tells the
// inspector it is ready, loads the view it is sent in an inner sandboxed iframe, and relays
// JSON-RPC messages both ways, except the ui/notifications/sandbox-* ones meant for itself.
(function () {
  "use strict";
  const hostOrigin = document.querySelector('meta[name="mcpkit-host"]').content;
  const host = window.parent;
  let inner = null;
  const PREFIX = "ui/notifications/sandbox-";
  const PERMISSIONS = { camera: "camera", microphone: "microphone", geolocation: "geolocation", clipboardWrite: "clipboard-write" };

  function load(params) {
    if (inner) inner.remove();
    inner = document.createElement("iframe");
    // An opaque origin (no allow-same-origin), no top navigation, no popups, no modals.
    inner.setAttribute("sandbox", "allow-scripts allow-forms");
    const allow = Object.keys(params.permissions || {}).filter((k) => PERMISSIONS[k]).map((k) => PERMISSIONS[k]);
    if (allow.length) inner.setAttribute("allow", allow.join("; "));
    inner.setAttribute("title", "MCP App");
    inner.style.height = "100%";
    // The policy arrives with this page as a header and is inherited by the srcdoc document.
    inner.srcdoc = String(params.html || "");
    document.body.append(inner);
  }

  window.addEventListener("message", (event) => {
    const message = event.data;
    if (!message || message.jsonrpc !== "2.0") return;
    if (event.source === host && event.origin === hostOrigin) {
      if (typeof message.method === "string" && message.method.startsWith(PREFIX)) {
        if (message.method === PREFIX + "resource-ready") load(message.params || {});
        return;
      }
      if (inner && inner.contentWindow) inner.contentWindow.postMessage(message, "*");
    } else if (inner && event.source === inner.contentWindow) {
      if (typeof message.method === "string" && message.method.startsWith(PREFIX)) return;
      host.postMessage(message, hostOrigin);
    }
  });
  host.postMessage({ jsonrpc: "2.0", method: PREFIX + "proxy-ready", params: {} }, hostOrigin);
})();
