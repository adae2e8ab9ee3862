// Tiny DOM helpers: build elements from plain data. No framework, no game rule.

// The element a "name.cls#id" tag names (made by `create`; `name` defaults to `fallback`) and its props: a
// first argument that is no props object (a string, a node, a list) is a child, put back in `children`.
function start(tag, props, children, create, fallback) {
  const m = /^([a-z0-9]+)?((?:[.#][\w-]+)*)$/i.exec(tag);
  const el = create((m && m[1]) || fallback);
  for (const part of ((m && m[2]) || "").match(/[.#][\w-]+/g) || []) {
    if (part[0] === ".") el.classList.add(part.slice(1));
    else el.id = part.slice(1);
  }
  if (props && (typeof props !== "object" || props instanceof Node || Array.isArray(props))) {
    children.unshift(props);
    return [el, null];
  }
  return [el, props];
}

/** h("div.card#id", {attrs, on: {click}}, ...children) -> HTMLElement. Strings become text nodes. */
export function h(tag, props, ...children) {
  const [el, attrs] = start(tag, props, children, (name) => document.createElement(name), "div");
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "on") for (const [ev, fn] of Object.entries(v)) listen(el, ev, fn);
    else if (k === "style" && typeof v === "object") Object.assign(el.style, v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k in el && k !== "list" && k !== "form") el[k] = v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  append(el, children);
  return el;
}

// Handlers live in el._on and one bound listener per event calls the current one, so an in-place update
// (morph below) can swap a node's handlers without adding listeners.
export function listen(el, ev, fn) {
  el._on ||= {};
  el._bound ||= new Set();
  el._on[ev] = fn;
  if (!el._bound.has(ev)) {
    el._bound.add(ev);
    el.addEventListener(ev, (e) => el._on?.[ev]?.(e));
  }
}

const SVGNS = "http://www.w3.org/2000/svg";

/** s("rect.cls", {x: 1, on: {click}}, ...children) -> SVGElement (attributes always set as attributes). */
export function s(tag, props, ...children) {
  const [el, attrs] = start(tag, props, children, (name) => document.createElementNS(SVGNS, name), "g");
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "on") for (const [ev, fn] of Object.entries(v)) listen(el, ev, fn);
    else if (k === "dataset") for (const [dk, dv] of Object.entries(v)) el.dataset[dk] = dv;
    else if (k === "style" && typeof v === "object") Object.assign(el.style, v);
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
  return h(`span.cube.c-${safe(color)}${extra}`, { title: String(color ?? "") }, initial(color));
}

/** A CSS-class-safe token. */
export function safe(s) {
  return String(s ?? "none").toLowerCase().replace(/[^a-z0-9-]/g, "-");
}

/** Make an element's children the given ones, skipping null/false (views leave out what the payload lacks).
 * The page is updated in place: nodes that are still there are patched, not replaced, so the scroll
 * position, focus, an open <details> and a half-chosen <select> survive every message. */
export function mount(root, ...children) {
  const next = children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false)
    .map((c) => (c instanceof Node ? c : document.createTextNode(String(c))));
  patchChildren(root, next);
}

/** Update one element in place to look like `next` (patched when it is the same kind of node, else
 * replaced): a part of the page redrawn on a tap (a battle entry) without waiting for the next message. */
export function morph(el, next) {
  if (sameKind(el, next)) patchNode(el, next);
  else el.replaceWith(next);
}

function sameKind(a, b) {
  if (a.nodeType !== b.nodeType || a.nodeName !== b.nodeName) return false;
  if (a.nodeType !== 1) return true;
  return a.id === b.id && (a.dataset?.key ?? "") === (b.dataset?.key ?? "");
}

// A child is matched to the node it was by its id or data-key (so a line appearing above a section does not
// make every section below be patched into its neighbour), the others by their order; a memoised part
// (memo below) that did not change is the very node on the page and is left alone.
function keyOf(n) {
  if (n.nodeType !== 1) return null;
  if (n.id) return `#${n.id}`;
  return n.dataset?.key ? `k:${n.nodeName}:${n.dataset.key}` : null;
}

function patchChildren(parent, next) {
  const old = [...parent.childNodes];
  const keyed = new Map();
  const plain = [];
  for (const o of old) {
    const k = keyOf(o);
    if (k === null) plain.push(o);
    else if (!keyed.has(k)) keyed.set(k, o);
  }
  const used = new Set();
  let u = 0;
  next.forEach((n, i) => {
    let o;
    if (n.parentNode === parent) o = n;
    else {
      const k = keyOf(n);
      if (k !== null) o = keyed.get(k);
      else {
        while (u < plain.length && used.has(plain[u])) u++;
        o = plain[u++];
      }
    }
    if (o && used.has(o)) o = undefined;
    let live = n;
    if (o && o !== n && sameKind(o, n)) {
      patchNode(o, n);
      live = o;
    }
    used.add(live);
    if (n._memo) n._memo.live = live;
    const at = parent.childNodes[i];
    if (at !== live) parent.insertBefore(live, at ?? null);
  });
  for (const o of old) if (!used.has(o) && o.parentNode === parent) o.remove();
}

// Parts of a page that are costly to build (the ocean grid, the card lists) are built again only when what
// they show changed: memo(key, deps, build) returns the node already on the page while JSON(deps) is the
// same. A memoised part's handlers must not hold on to a render's values (call through `latest` below).
const memos = new Map();
export function memo(key, deps, build) {
  const sig = JSON.stringify(deps ?? null);
  const m = memos.get(key);
  if (m && m.sig === sig && m.live && m.live.isConnected) return m.live;
  const node = build();
  if (node === null || node === undefined || !(node instanceof Node)) return node;
  const entry = { sig, live: null };
  node._memo = entry;
  if (node.nodeType === 1 && !node.id && !node.dataset.key) node.dataset.key = key; // matched by key
  memos.set(key, entry);
  return node;
}

function patchNode(o, n) {
  if (o.nodeType !== 1) {
    if (o.nodeValue !== n.nodeValue) o.nodeValue = n.nodeValue;
    return;
  }
  for (const a of [...o.attributes]) if (!n.hasAttribute(a.name)) o.removeAttribute(a.name);
  for (const a of [...n.attributes]) if (o.getAttribute(a.name) !== a.value) o.setAttribute(a.name, a.value);
  for (const ev of Object.keys(o._on || {})) if (!n._on || !(ev in n._on)) delete o._on[ev];
  for (const [ev, fn] of Object.entries(n._on || {})) listen(o, ev, fn);
  for (const prop of ["disabled", "checked", "hidden", "open"]) if (prop in n && o[prop] !== n[prop]) o[prop] = n[prop];
  patchChildren(o, [...n.childNodes]);
  if (o.nodeName === "OPTION" && o.selected !== n.selected) o.selected = n.selected;
  if (o.nodeName === "SELECT") {
    const chosen = [...n.options].findIndex((x) => x.selected);
    if (chosen >= 0 && o.selectedIndex !== chosen) o.selectedIndex = chosen;
  }
}

/** The first letter of a player colour, drawn on every cube and marker (colour is never the only cue). */
export function initial(color) {
  return COLOURS.includes(color) ? color[0].toUpperCase() : "";
}

/** Player colours as fills for SVG (the same as style.css's variables). */
export const FILL = { red: "#ff4d4d", blue: "#4da3ff", green: "#3ddc84", yellow: "#ffd23f", black: "#222", white: "#eee" };
