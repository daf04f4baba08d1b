// Forms from JSON Schema: build inputs for a tool's inputSchema (or an elicitation's
// requestedSchema) and read them back as typed JSON. What a form cannot express ($ref, anyOf of
// objects, tuple arrays ...) falls back to a raw JSON box for that field; the whole form also has
// a raw JSON mode in the page.

const PRIMITIVES = new Set(["string", "number", "integer", "boolean"]);

function typeOf(schema) {
  if (!schema || typeof schema !== "object") return "any";
  let t = schema.type;
  if (Array.isArray(t)) t = t.find((x) => x !== "null") || "null";
  if (t) return t;
  if (schema.enum || schema.const !== undefined) return "string";
  if (schema.oneOf && schema.oneOf.every((o) => o.const !== undefined)) return "string";
  if (schema.properties) return "object";
  return "any";
}

function choicesOf(schema) {
  if (Array.isArray(schema.enum)) {
    const names = schema.enumNames || [];
    return schema.enum.map((v, i) => ({ value: v, label: names[i] || String(v) }));
  }
  const options = schema.oneOf || schema.anyOf;
  if (Array.isArray(options) && options.length && options.every((o) => o.const !== undefined)) {
    return options.map((o) => ({ value: o.const, label: o.title || String(o.const) }));
  }
  if (schema.type === "array" && schema.items) return null;
  return null;
}

let fieldCounter = 0;
function fieldId() {
  fieldCounter += 1;
  return "f" + fieldCounter;
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "text") node.textContent = value;
    else if (key === "class") node.className = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

// Local references ("#/$defs/Unit") are followed, a few levels deep: a recursive schema ends in
// a raw JSON box instead of an endless form.
const MAX_REF_DEPTH = 8;
function resolveRef(schema, root, depth) {
  let current = schema;
  for (let hops = 0; current && typeof current.$ref === "string" && hops < MAX_REF_DEPTH; hops++) {
    if (depth + hops >= MAX_REF_DEPTH || !current.$ref.startsWith("#/")) return { $comment: "unresolved " + current.$ref };
    let target = root;
    for (const part of current.$ref.slice(2).split("/")) {
      target = target && target[part.replace(/~1/g, "/").replace(/~0/g, "~")];
    }
    if (!target) return { $comment: "unresolved " + current.$ref };
    const { $ref, ...rest } = current;
    current = { ...target, ...rest };
  }
  return current;
}

// `x: str | None = None` is {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null}
// (or "type": ["string", "null"]): an ordinary input for the one real type, plus a way to send
// null. Returns the schema without the null branch, or null when the schema is not of that shape.
function withoutNull(schema) {
  const options = schema.anyOf || schema.oneOf;
  if (Array.isArray(options) && options.length === 2) {
    const rest = options.filter((o) => !(o && o.type === "null"));
    if (rest.length === 1) {
      const { anyOf, oneOf, ...outer } = schema;
      return { ...rest[0], ...outer, default: outer.default === null ? undefined : outer.default };
    }
  }
  if (Array.isArray(schema.type) && schema.type.includes("null") && schema.type.length === 2) {
    return { ...schema, type: schema.type.find((t) => t !== "null"), default: schema.default === null ? undefined : schema.default };
  }
  return null;
}

// A field: {node, read() -> value | undefined, focus()}. read() throws Error(message) on bad input.
function buildField(name, rawSchema, required, initial, root, depth = 0) {
  const schema = resolveRef(rawSchema || {}, root || rawSchema || {}, depth);
  root = root || rawSchema || {};
  const real = withoutNull(schema);
  if (real) return nullableField(name, real, required, initial, root, depth);
  const kind = typeOf(schema);
  const id = fieldId();
  const title = schema.title || name;
  const label = el("label", { for: id, text: title + (required ? " *" : "") });
  const help = schema.description ? el("small", { class: "help", text: schema.description }) : null;
  const wrap = el("div", { class: "field", "data-field": name });
  const initialValue = initial !== undefined ? initial : schema.default;
  const choices = choicesOf(schema);

  if (choices) {
    const select = el("select", { id, name, required });
    if (!required) select.append(el("option", { value: "", text: "(none)" }));
    choices.forEach((choice, index) => {
      const option = el("option", { value: String(index), text: choice.label });
      if (initialValue !== undefined && choice.value === initialValue) option.selected = true;
      select.append(option);
    });
    wrap.append(label, select, help || "");
    return {
      node: wrap,
      focus: (o) => select.focus(o),
      read: () => (select.value === "" ? undefined : choices[Number(select.value)].value),
    };
  }
  const itemSchema = schema.items ? resolveRef(schema.items, root, depth) : null;
  if (kind === "array" && itemSchema && choicesOf(itemSchema)) {
    const options = choicesOf(itemSchema);
    const box = el("fieldset", { class: "multi", id });
    box.append(el("legend", { text: title + (required ? " *" : "") }));
    const checks = options.map((choice, index) => {
      const cid = id + "-" + index;
      const check = el("input", { type: "checkbox", id: cid, value: String(index) });
      if (Array.isArray(initialValue) && initialValue.includes(choice.value)) check.checked = true;
      box.append(el("span", { class: "check" }, check, el("label", { for: cid, text: choice.label })));
      return check;
    });
    wrap.append(box, help || "");
    return {
      node: wrap,
      focus: (o) => checks[0] && checks[0].focus(o),
      read: () => {
        const picked = checks.filter((c) => c.checked).map((c) => options[Number(c.value)].value);
        return picked.length || required ? picked : undefined;
      },
    };
  }
  if (kind === "boolean") {
    const check = el("input", { type: "checkbox", id, name });
    if (initialValue === true) check.checked = true;
    wrap.classList.add("inline");
    wrap.append(check, label, help || "");
    return { node: wrap, focus: (o) => check.focus(o), read: () => check.checked };
  }
  if (kind === "number" || kind === "integer") {
    const input = el("input", {
      type: "number", id, name, required,
      min: schema.minimum ?? schema.exclusiveMinimum,
      max: schema.maximum ?? schema.exclusiveMaximum,
      step: kind === "integer" ? 1 : "any",
    });
    if (initialValue !== undefined) input.value = String(initialValue);
    wrap.append(label, input, help || "");
    return {
      node: wrap,
      focus: (o) => input.focus(o),
      read: () => {
        if (input.value === "") {
          if (required) throw new Error(`${title} is required`);
          return undefined;
        }
        const value = Number(input.value);
        if (!Number.isFinite(value)) throw new Error(`${title} must be a number`);
        if (kind === "integer" && !Number.isInteger(value)) throw new Error(`${title} must be a whole number`);
        return value;
      },
    };
  }
  if (kind === "string") {
    const long = (schema.maxLength || 0) > 200 || schema.format === "textarea";
    const type = { email: "email", uri: "url", date: "date", "date-time": "datetime-local" }[schema.format] || "text";
    const input = long
      ? el("textarea", { id, name, required, rows: 4 })
      : el("input", { type, id, name, required, minlength: schema.minLength, maxlength: schema.maxLength, pattern: schema.pattern });
    if (initialValue !== undefined) input.value = String(initialValue);
    wrap.append(label, input, help || "");
    return {
      node: wrap,
      focus: (o) => input.focus(o),
      read: () => {
        if (input.value === "") {
          if (required) throw new Error(`${title} is required`);
          return undefined;
        }
        return input.value;
      },
    };
  }
  if (kind === "object" && schema.properties) {
    const box = el("fieldset", { class: "object", id });
    box.append(el("legend", { text: title + (required ? " *" : "") }));
    const inner = buildObject(schema, initialValue || {}, root, depth + 1);
    box.append(inner.node);
    wrap.append(box, help || "");
    return { node: wrap, focus: inner.focus, read: () => {
      const value = inner.read();
      return Object.keys(value).length || required ? value : undefined;
    } };
  }
  if (kind === "array" && itemSchema && (PRIMITIVES.has(typeOf(itemSchema)) || (typeOf(itemSchema) === "object" && itemSchema.properties))) {
    const box = el("fieldset", { class: "array", id });
    box.append(el("legend", { text: title + (required ? " *" : "") }));
    const rows = el("div", { class: "rows" });
    const items = [];
    const add = (value) => {
      const item = buildField(`${name}[${items.length}]`, schema.items, true, value, root, depth + 1);
      const remove = el("button", { type: "button", class: "small", text: "remove" });
      const row = el("div", { class: "row" }, item.node, remove);
      const entry = { item, row };
      remove.addEventListener("click", () => {
        items.splice(items.indexOf(entry), 1);
        row.remove();
      });
      items.push(entry);
      rows.append(row);
      return item;
    };
    (Array.isArray(initialValue) ? initialValue : []).forEach((v) => add(v));
    const addButton = el("button", { type: "button", class: "small", text: "add item" });
    addButton.addEventListener("click", () => add(undefined).focus());
    box.append(rows, addButton);
    wrap.append(box, help || "");
    return {
      node: wrap,
      focus: (o) => addButton.focus(o),
      read: () => {
        const values = items.map((e) => e.item.read()).filter((v) => v !== undefined);
        return values.length || required ? values : undefined;
      },
    };
  }
  // Anything else: a raw JSON value for this field.
  const area = el("textarea", { id, name, rows: 3, class: "json", placeholder: "JSON value" });
  if (initialValue !== undefined) area.value = JSON.stringify(initialValue, null, 2);
  wrap.append(label, area, el("small", { class: "help", text: (schema.description ? schema.description + " — " : "") + "raw JSON" }));
  return {
    node: wrap,
    focus: (o) => area.focus(o),
    read: () => {
      if (area.value.trim() === "") {
        if (required) throw new Error(`${title} is required`);
        return undefined;
      }
      try {
        return JSON.parse(area.value);
      } catch (error) {
        throw new Error(`${title}: not valid JSON (${error.message})`);
      }
    },
  };
}

// The real type's field, and a "null" box: ticked, the field sends null (and its input is
// disabled); unticked and empty, the field is left out (the server's default applies).
function nullableField(name, schema, required, initial, root, depth) {
  const inner = buildField(name, schema, required, initial === null ? undefined : initial, root, depth + 1);
  const id = fieldId();
  const check = el("input", { type: "checkbox", id, class: "send-null", "aria-label": `send null for ${name}` });
  if (initial === null) check.checked = true;
  const controls = () => inner.node.querySelectorAll("input:not(.send-null), select, textarea");
  const sync = () => { for (const control of controls()) control.disabled = check.checked; };
  check.addEventListener("change", sync);
  inner.node.append(el("span", { class: "check null" }, check, el("label", { for: id, text: "null" })));
  inner.node.dataset.nullable = "true";
  sync();
  return {
    node: inner.node,
    focus: inner.focus,
    read: () => (check.checked ? null : inner.read()),
    loose: () => (check.checked ? null : looseRead(inner)),
  };
}

// A field's value for the raw JSON view: what it holds, even if it is not valid yet.
function looseRead(field) {
  if (field.loose) return field.loose();
  try {
    return field.read();
  } catch {
    return undefined;
  }
}

function buildObject(schema, initial, root, depth = 0) {
  const node = el("div", { class: "fields" });
  const required = new Set(schema.required || []);
  const fields = [];
  for (const [name, propSchema] of Object.entries(schema.properties || {})) {
    const field = buildField(name, propSchema || {}, required.has(name), initial ? initial[name] : undefined, root || schema, depth);
    fields.push([name, field]);
    node.append(field.node);
  }
  if (!fields.length) node.append(el("p", { class: "muted", text: "No arguments." }));
  return {
    node,
    focus: (o) => fields.length && fields[0][1].focus(o),
    read: () => {
      const out = {};
      for (const [name, field] of fields) {
        const value = field.read();
        if (value !== undefined) out[name] = value;
      }
      return out;
    },
    loose: () => {
      const out = {};
      for (const [name, field] of fields) {
        const value = looseRead(field);
        if (value !== undefined) out[name] = value;
      }
      return out;
    },
  };
}

// A form for a whole object schema, with a raw-JSON mode. Returns {node, read(), focus()}.
// Switching to JSON shows what the form holds so far (even with required fields still empty);
// switching back fills the form from the JSON. While in JSON mode the form's inputs are disabled,
// so that its empty required fields do not stop the page's form from being submitted.
export function schemaForm(schema, initial) {
  let form = buildObject(schema || { type: "object" }, initial || {});
  const container = el("div", { class: "schema-form" });
  const fields = el("fieldset", { class: "bare" }, form.node);
  const raw = el("textarea", { class: "json raw", rows: 8, "aria-label": "arguments as JSON", hidden: true });
  const toggle = el("button", { type: "button", class: "small link", text: "edit as JSON" });
  const problem = el("p", { class: "error", role: "alert", hidden: true });
  let rawMode = false;
  const parseRaw = () => {
    let value;
    try {
      value = JSON.parse(raw.value || "{}");
    } catch (error) {
      throw new Error(`not valid JSON: ${error.message}`);
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) throw new Error("the arguments must be a JSON object");
    return value;
  };
  toggle.addEventListener("click", () => {
    problem.hidden = true;
    if (!rawMode) {
      raw.value = JSON.stringify(form.loose(), null, 2);
    } else {
      let value;
      try {
        value = parseRaw();
      } catch (error) {
        problem.textContent = error.message;
        problem.hidden = false;
        return;
      }
      form = buildObject(schema || { type: "object" }, value);
      fields.replaceChildren(form.node);
    }
    rawMode = !rawMode;
    raw.hidden = !rawMode;
    fields.hidden = rawMode;
    fields.disabled = rawMode;
    toggle.textContent = rawMode ? "edit as form" : "edit as JSON";
    (rawMode ? raw : form).focus();
  });
  container.append(fields, raw, problem, toggle);
  return {
    node: container,
    focus: (options) => (rawMode ? raw.focus(options) : form.focus(options)),
    read: () => (rawMode ? parseRaw() : form.read()),
    rawMode: () => rawMode,
  };
}

export { el };
