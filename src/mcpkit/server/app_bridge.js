/* mcpkit app bridge: the View side of MCP Apps (SEP-1865, protocol 2026-01-26) in plain JS.
 *
 * Inlined into a view by `server.ui_resource(..., bridge=True)`. It defines `window.mcpkitApp`:
 *
 *   mcpkitApp.ontoolinput = (args) => ...          // the tool's arguments
 *   mcpkitApp.ontoolresult = (result) => ...       // its CallToolResult
 *   mcpkitApp.ontoolinputpartial / ontoolcancelled / onhostcontextchanged / onteardown
 *   const context = await mcpkitApp.connect({ name: "cards", version: "1.0.0" });
 *   await mcpkitApp.callTool("add_to_cart", { sku: "X" });   // a CallToolResult
 *   await mcpkitApp.readResource("ui://..."), openLink(url), sendMessage(text),
 *         updateModelContext({ content, structuredContent }), requestDisplayMode("fullscreen")
 *   mcpkitApp.log("info", data)
 *
 * The last tool input and result stay readable as `mcpkitApp.toolInput` / `.toolResult`
 * (a handler set late misses nothing). The view's size is reported to the host as it changes
 * (ResizeObserver). Messages are accepted only from the parent window; requests time out.
 */
(function () {
  "use strict";
  if (window.mcpkitApp) return;
  var PROTOCOL_VERSION = "2026-01-26";
  var REQUEST_TIMEOUT_MS = 30000;
  var host = window.parent;
  var nextId = 1;
  var pending = new Map();
  var connected = null;
  var lastSize = { width: 0, height: 0 };

  function post(message) {
    host.postMessage(Object.assign({ jsonrpc: "2.0" }, message), "*");
  }

  function request(method, params) {
    var id = nextId++;
    return new Promise(function (resolve, reject) {
      var timer = setTimeout(function () {
        pending.delete(id);
        reject(new Error(method + ": no answer from the host"));
      }, REQUEST_TIMEOUT_MS);
      pending.set(id, { resolve: resolve, reject: reject, timer: timer });
      post({ id: id, method: method, params: params || {} });
    });
  }

  function notify(method, params) {
    post({ method: method, params: params || {} });
  }

  var app = {
    hostContext: {},
    hostCapabilities: {},
    hostInfo: null,
    toolInput: null,
    toolResult: null,
    ontoolinput: null,
    ontoolinputpartial: null,
    ontoolresult: null,
    ontoolcancelled: null,
    onhostcontextchanged: null,
    onteardown: null,

    connect: function (appInfo, capabilities) {
      if (connected) return connected;
      connected = request("ui/initialize", {
        protocolVersion: PROTOCOL_VERSION,
        appInfo: appInfo || { name: document.title || "mcpkit-app", version: "1.0.0" },
        appCapabilities: capabilities || { availableDisplayModes: ["inline"] },
      }).then(function (result) {
        app.hostContext = result.hostContext || {};
        app.hostCapabilities = result.hostCapabilities || {};
        app.hostInfo = result.hostInfo || null;
        notify("ui/notifications/initialized", {});
        watchSize();
        return app.hostContext;
      });
      return connected;
    },
    callTool: function (name, args) {
      return request("tools/call", { name: name, arguments: args || {} });
    },
    readResource: function (uri) {
      return request("resources/read", { uri: uri });
    },
    openLink: function (url) {
      return request("ui/open-link", { url: String(url) });
    },
    sendMessage: function (text) {
      return request("ui/message", { role: "user", content: [{ type: "text", text: String(text) }] });
    },
    updateModelContext: function (context) {
      return request("ui/update-model-context", context || {});
    },
    requestDisplayMode: function (mode) {
      return request("ui/request-display-mode", { mode: mode });
    },
    log: function (level, data) {
      notify("notifications/message", { level: level || "info", logger: "app", data: data });
    },
    reportSize: function () {
      var el = document.documentElement;
      var size = { width: Math.ceil(el.scrollWidth), height: Math.ceil(el.scrollHeight) };
      if (size.width !== lastSize.width || size.height !== lastSize.height) {
        lastSize = size;
        notify("ui/notifications/size-changed", size);
      }
    },
  };

  function watchSize() {
    app.reportSize();
    if (typeof ResizeObserver === "function") {
      var observer = new ResizeObserver(function () { app.reportSize(); });
      observer.observe(document.documentElement);
      if (document.body) observer.observe(document.body);
    }
  }

  function call(handler, value) {
    if (typeof handler === "function") {
      try { return handler(value); } catch (error) { console.error(error); }
    }
    return undefined;
  }

  var notifications = {
    "ui/notifications/tool-input": function (params) {
      app.toolInput = params.arguments || {};
      call(app.ontoolinput, app.toolInput);
    },
    "ui/notifications/tool-input-partial": function (params) {
      call(app.ontoolinputpartial, params.arguments || {});
    },
    "ui/notifications/tool-result": function (params) {
      app.toolResult = params;
      call(app.ontoolresult, params);
    },
    "ui/notifications/tool-cancelled": function (params) {
      call(app.ontoolcancelled, params.reason || "");
    },
    "ui/notifications/host-context-changed": function (params) {
      app.hostContext = Object.assign({}, app.hostContext, params);
      call(app.onhostcontextchanged, app.hostContext);
    },
  };

  function answer(id, result, error) {
    post(error ? { id: id, error: error } : { id: id, result: result || {} });
  }

  window.addEventListener("message", function (event) {
    if (event.source !== host) return;
    var message = event.data;
    if (!message || message.jsonrpc !== "2.0") return;
    if (message.method === undefined && message.id !== undefined) {
      var waiting = pending.get(message.id);
      if (!waiting) return;
      pending.delete(message.id);
      clearTimeout(waiting.timer);
      if (message.error) {
        var failure = new Error(message.error.message || "host error");
        failure.code = message.error.code;
        waiting.reject(failure);
      } else {
        waiting.resolve(message.result);
      }
      return;
    }
    if (message.id === undefined) {
      var handle = notifications[message.method];
      if (handle) handle(message.params || {});
      return;
    }
    if (message.method === "ping") {
      answer(message.id, {});
    } else if (message.method === "ui/resource-teardown") {
      Promise.resolve(call(app.onteardown, message.params || {})).then(
        function () { answer(message.id, {}); },
        function (error) { answer(message.id, null, { code: -32000, message: String(error) }); }
      );
    } else {
      answer(message.id, null, { code: -32601, message: "Method not found: " + message.method });
    }
  });

  window.mcpkitApp = app;
})();
