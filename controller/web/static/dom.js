// Tiny DOM helpers: build elements from plain data. No framework, no game rule.

/** h("div.card#id", {attrs, on: {click}}, ...children) -> HTMLElement. Strings become text nodes. */
export function h(tag, props, ...children) {
  const m = /^([a-z0-9]+)?((?:[.#][\w-]+)*)$/i.exec(tag);
  const el = document.createElement((m && m[1]) || "div");
  for (const part of ((m && m[2]) || "").match(/[.#][\w-]+/g) || []) {
    if (part[0] === ".") el.classList.add(part.slice(1));
    else el.id = part.slice(1);
  }
  if (props && (typeof props !== "object" || props instanceof Node || Array.isArray(props))) {
    children.unshift(props);
    props = null;
  }
  for (const [k, v] of Object.entries(props || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "on") for (const [ev, fn] of Object.entries(v)) el.addEventListener(ev, fn);
    else if (k === "style" && typeof v === "object") Object.assign(el.style, v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k in el && k !== "list" && k !== "form") el[k] = v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === undefined || c === null || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** "set_sails" / "setSails" -> "Set sails" (labels come from the engine's keys, never invented). */
export function humanize(key) {
  const s = String(key ?? "").replace(/([a-z])([A-Z])/g, "$1 $2").replace(/[_-]+/g, " ").trim();
  return s ? s[0].toUpperCase() + s.slice(1) : "";
}

/** Short text for any JSON value (used where the engine sends a key we have no special layout for). */
export function brief(v) {
  if (v === null || v === undefined) return "—";
  if (typeof v === "boolean") return v ? "yes" : "no";
  if (typeof v !== "object") return String(v);
  if (Array.isArray(v)) return v.length === 0 ? "none" : v.map(brief).join(", ");
  const entries = Object.entries(v);
  if (entries.length === 0) return "—";
  return entries.map(([k, x]) => `${humanize(k)}: ${brief(x)}`).join("; ");
}

/** A definition list of whatever keys an object has, skipping the ones already drawn elsewhere. */
export function facts(obj, skip = [], cls = "facts") {
  const dl = h(`dl.${cls.split(/\s+/).join(".")}`);
  for (const [k, v] of Object.entries(obj || {})) {
    if (skip.includes(k) || v === undefined) continue;
    dl.append(h("dt", humanize(k)), h("dd", { dataset: { key: k } }, brief(v)));
  }
  return dl;
}

export const COLOURS = ["red", "blue", "green", "yellow"];

export function hhmmss(date) {
  return date.toTimeString().slice(0, 8);
}

export function cube(color, extra = "") {
  return h(`span.cube.c-${safe(color)}${extra}`, { title: String(color ?? "") });
}

/** A CSS-class-safe token. */
export function safe(s) {
  return String(s ?? "none").toLowerCase().replace(/[^a-z0-9-]/g, "-");
}

/** Replace an element's children, skipping null/false (views leave out what the payload lacks). */
export function mount(root, ...children) {
  root.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
}
