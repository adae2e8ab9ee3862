// The venue screen (docs/venue.md): every table bridged to the venue broker, read with the read-only
// spectator login: its game, players, turn and whether its link is live, with a link to watch it (the
// table view with the same spectator login). It reads only public topics; no game rule lives here.
// Link: /venue.html?ws=ws://venue:9001&user=spectator&pass=...

import { h, mount } from "./dom.js";

const params = new URLSearchParams(location.search);
const ws = params.get("ws") || `ws://${location.hostname}:9001`;
const user = params.get("user") || "spectator";
const pass = params.get("pass") || "";
const tables = new Map(); // table id -> {state, link, availability}

function entry(id) {
  if (!tables.has(id)) tables.set(id, { state: null, link: null, availability: null });
  return tables.get(id);
}

function live(t) {
  if (t.link === "0" || t.availability === "offline") return "offline";
  if (t.link === "1" || t.availability === "online") return "live";
  return "unknown";
}

function watchUrl(id) {
  const q = new URLSearchParams({ table: id, ws, user, pass, spectate: "1" });
  return `/?${q}`;
}

function render() {
  const rows = [...tables.keys()].sort().map((id) => {
    const t = tables.get(id);
    const view = t.state?.view || {};
    const players = (view.players || []).map((p) => `${p[0].toUpperCase()} ${p}`).join(", ");
    const over = view.scores ? "game over" : view.phase || "—";
    return h(
      "tr",
      { dataset: { table: id, live: live(t) } },
      h("td", id),
      h("td", over),
      h("td", players || "—"),
      h("td", view.turn != null ? `turn ${view.turn}` : "—"),
      h("td.live", live(t)),
      h("td", h("a", { href: watchUrl(id) }, `Watch ${id}`)),
    );
  });
  const body = rows.length
    ? h("table#tables", h("thead", h("tr", ...["Table", "Game", "Players", "Turn", "Link", ""].map((c) => h("th", c)))), h("tbody", ...rows))
    : h("p.hint", "No table has reached the venue yet.");
  mount(document.getElementById("main"), body);
}

function status(code, text) {
  const el = document.getElementById("conn");
  el.dataset.status = code;
  el.textContent = text;
}

const client = window.mqtt.connect(ws, { username: user, password: pass || undefined, protocolVersion: 4, clean: true, reconnectPeriod: 2000 });
client.on("connect", () => {
  status("live", "live");
  client.subscribe(["table/+/state", "table/+/venue", "table/+/availability"], { qos: 1 });
});
client.on("close", () => status("offline", "venue broker unreachable: retrying…"));
client.on("error", (err) => {
  const refused = /not authorized|bad user/i.test(err?.message || "");
  if (refused) {
    const n = document.getElementById("notice");
    n.textContent = "The venue broker refused this page's login: ask the organisers for the current venue link.";
    n.hidden = false;
  }
});
client.on("message", (topic, raw) => {
  const [, id, kind] = topic.split("/");
  let payload;
  try {
    payload = JSON.parse(new TextDecoder().decode(raw));
  } catch {
    payload = new TextDecoder().decode(raw);
  }
  const t = entry(id);
  if (kind === "state") t.state = payload;
  else if (kind === "venue") t.link = String(payload);
  else if (kind === "availability") t.availability = typeof payload === "string" ? payload : payload?.state;
  render();
});
