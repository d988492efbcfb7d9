// Renders A2UI v0.8 surfaces from the canvas host's state. The host keeps
// every message since the last reset, so each change replays them all
// into fresh surfaces: simple, and correct after resets and reloads.
(function () {
  "use strict";
  const session = new URLSearchParams(location.search).get("session") || "main";
  const q = "session=" + encodeURIComponent(session);
  const root = document.getElementById("a2ui-root");

  // build folds messages into surfaces: {components, data, root, styles}.
  function build(messages) {
    const surfaces = new Map();
    const get = (id) => {
      if (!surfaces.has(id)) surfaces.set(id, { components: new Map(), data: {}, root: null });
      return surfaces.get(id);
    };
    for (const m of messages) {
      if (m.surfaceUpdate) {
        const s = get(m.surfaceUpdate.surfaceId);
        for (const c of m.surfaceUpdate.components || []) s.components.set(c.id, c);
      } else if (m.dataModelUpdate) {
        const u = m.dataModelUpdate;
        setPath(get(u.surfaceId).data, u.path || "/", fromContents(u.contents || []));
      } else if (m.beginRendering) {
        const s = get(m.beginRendering.surfaceId);
        s.root = m.beginRendering.root;
        s.styles = m.beginRendering.styles || {};
      } else if (m.deleteSurface) {
        surfaces.delete(m.deleteSurface.surfaceId);
      }
    }
    return surfaces;
  }

  // fromContents turns v0.8 key/value entries into a plain object.
  function fromContents(entries) {
    const out = {};
    for (const e of entries) {
      if (!e || typeof e.key !== "string") continue;
      if ("valueString" in e) out[e.key] = e.valueString;
      else if ("valueNumber" in e) out[e.key] = e.valueNumber;
      else if ("valueBoolean" in e) out[e.key] = e.valueBoolean;
      else if ("valueMap" in e) out[e.key] = fromContents(e.valueMap || []);
    }
    return out;
  }

  function parts(path) { return String(path).split("/").filter(Boolean); }

  function setPath(data, path, value) {
    const ps = parts(path);
    if (ps.length === 0) { Object.assign(data, value); return; }
    let cur = data;
    for (const p of ps.slice(0, -1)) {
      if (typeof cur[p] !== "object" || cur[p] === null) cur[p] = {};
      cur = cur[p];
    }
    const last = ps[ps.length - 1];
    if (typeof cur[last] === "object" && cur[last] !== null) Object.assign(cur[last], value);
    else cur[last] = value;
  }

  function getPath(data, path) {
    let cur = data;
    for (const p of parts(path)) {
      if (cur == null) return undefined;
      cur = cur[p];
    }
    return cur;
  }

  // resolve reads a bound value: a literal, or a path into the data model
  // (relative paths are taken from the template item being drawn).
  function resolve(v, s, base) {
    if (v == null || typeof v !== "object") return v;
    if ("literalString" in v) return v.literalString;
    if ("literalNumber" in v) return v.literalNumber;
    if ("literalBoolean" in v) return v.literalBoolean;
    if ("path" in v) {
      const p = String(v.path);
      return getPath(s.data, p.startsWith("/") ? p : base + "/" + p);
    }
    return undefined;
  }

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = String(text);
    return e;
  }

  // childIds expands a children spec: an explicit list or a template
  // repeated over an array or object in the data model.
  function children(spec, s, base) {
    if (!spec) return [];
    if (Array.isArray(spec.explicitList)) return spec.explicitList.map((id) => [id, base]);
    if (spec.template) {
      const path = String(spec.template.dataBinding || "");
      const abs = path.startsWith("/") ? path : base + "/" + path;
      const items = getPath(s.data, abs);
      if (items && typeof items === "object") {
        return Object.keys(items).map((k) => [spec.template.componentId, abs + "/" + k]);
      }
    }
    return [];
  }

  function render(sid, s, id, base, depth) {
    const c = s.components.get(id);
    if (!c || depth > 64) return el("span", "a2ui-unknown", "missing component " + id);
    const type = Object.keys(c.component || {})[0];
    const p = (c.component || {})[type] || {};
    const kids = (spec, into) => {
      for (const [cid, b] of children(spec, s, base)) into.appendChild(render(sid, s, cid, b, depth + 1));
      return into;
    };
    const child = (cid) => (cid ? render(sid, s, cid, base, depth + 1) : document.createTextNode(""));
    let e;
    switch (type) {
      case "Column": e = kids(p.children, el("div", "a2ui-column")); break;
      case "Row": e = kids(p.children, el("div", "a2ui-row")); break;
      case "List":
        e = kids(p.children, el("div", "a2ui-list" + (p.direction === "horizontal" ? " horizontal" : "")));
        break;
      case "Card": e = el("div", "a2ui-card"); e.appendChild(child(p.child)); break;
      case "Text": {
        const hint = p.usageHint || "body";
        const tag = /^h[1-5]$/.test(hint) ? hint : "p";
        e = el(tag, hint === "caption" ? "a2ui-caption" : "", resolve(p.text, s, base) ?? "");
        break;
      }
      case "Image":
        e = el("img", "a2ui-image");
        e.src = resolve(p.url, s, base) || "";
        e.alt = "";
        break;
      case "Divider": e = el("hr", "a2ui-divider"); break;
      case "Button": {
        e = el("button", "a2ui-button");
        if (p.child) e.appendChild(child(p.child));
        else e.textContent = resolve(p.label, s, base) ?? "";
        const action = p.action || {};
        e.addEventListener("click", () => sendAction(sid, id, action, s, base));
        break;
      }
      case "TextField": {
        e = el("label", "a2ui-textfield", resolve(p.label, s, base) ?? "");
        const input = el("input");
        input.type = p.textFieldType === "number" ? "number" : "text";
        input.value = resolve(p.text, s, base) ?? "";
        e.appendChild(input);
        break;
      }
      case "CheckBox": {
        e = el("label", "a2ui-checkbox");
        const box = el("input");
        box.type = "checkbox";
        box.checked = !!resolve(p.value, s, base);
        e.appendChild(box);
        e.appendChild(document.createTextNode(" " + (resolve(p.label, s, base) ?? "")));
        break;
      }
      default: e = el("div", "a2ui-unknown", "unsupported component " + type);
    }
    e.dataset.a2uiId = id;
    return e;
  }

  function sendAction(surfaceId, componentId, action, s, base) {
    const context = {};
    for (const kv of action.context || []) {
      if (kv && kv.key) context[kv.key] = resolve(kv.value, s, base);
    }
    fetch("action?" + q, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ surfaceId, componentId, name: action.name || "", context }),
    }).catch(() => {});
  }

  function show(state) {
    const surfaces = build(state.messages || []);
    root.replaceChildren();
    for (const [sid, s] of surfaces) {
      if (!s.root) continue; // not yet asked to render
      const div = el("div", "a2ui-surface");
      div.dataset.surfaceId = sid;
      div.appendChild(render(sid, s, s.root, "", 0));
      root.appendChild(div);
    }
    if (!root.firstChild) root.appendChild(el("p", "", "Canvas is empty.")).id = "a2ui-empty";
    // The headless renderer waits for this marker to know a push is drawn.
    document.documentElement.dataset.a2uiVersion = String(state.version);
  }

  // poll long-polls the host; after an error it backs off up to 5 s.
  async function poll() {
    let version = null, delay = 250;
    for (;;) {
      try {
        const r = await fetch("state?" + q + (version === null ? "" : "&after=" + version), { cache: "no-store" });
        if (!r.ok) throw new Error("state " + r.status);
        const state = await r.json();
        if (state.version !== version) {
          try {
            show(state);
            delete document.documentElement.dataset.a2uiError;
          } catch (err) {
            document.documentElement.dataset.a2uiError = String(err);
            document.documentElement.dataset.a2uiVersion = String(state.version);
          }
          version = state.version;
        }
        delay = 250;
      } catch (err) {
        await new Promise((res) => setTimeout(res, delay));
        delay = Math.min(delay * 2, 5000);
      }
    }
  }
  poll();
})();
