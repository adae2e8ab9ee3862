// Entry point: reads the join link (?table=&player=|view=table&user=&pass=&ws=), connects to the broker,
// keeps the latest retained payloads and re-renders the chosen view from them. No game rule lives here:
// everything drawn comes from the rules engine's views and legal_actions in the payloads.

import { Link } from "./conn.js";
import { startJoin } from "./join.js";
import { COLOURS, h, mount } from "./dom.js";
import { renderPlayer } from "./player.js";
import { renderTable } from "./table.js";
import { renderCampaign } from "./campaign.js";
import { renderSeaPlayer, renderSeaTable } from "./great_sea.js";

// Each game's own views, by the game the payloads name (Dead Reckoning's when they name none).
const VIEWS = { "great-sea": { table: renderSeaTable, player: renderSeaPlayer } };
const gameOf = (store) => store.state?.game?.name ?? store.state?.view?.game ?? store.me?.view?.game ?? "dead-reckoning";

const params = new URLSearchParams(location.search);

async function loadSettings() {
  try {
    const r = await fetch("/settings.json", { cache: "no-store" });
    return r.ok ? await r.json() : {};
  } catch {
    return {};
  }
}

function notice(text) {
  const n = document.getElementById("notice");
  n.textContent = text || "";
  n.hidden = !text;
}

async function main() {
  const settings = await loadSettings();
  const table = params.get("table") || settings.table || "table-1";
  const player = (params.get("player") || "").toLowerCase() || null;
  const view = player ? "player" : "table";
  const ws = params.get("ws") || settings.ws || `ws://${location.hostname}:9001`;
  // Broker logins name their table (`table-1/red`, docs/mqtt.md); a link printed before that says `red`.
  const given = params.get("user") || (player ? player : "display");
  const user = given === "display" || COLOURS.includes(given) ? `${table}/${given}` : given;
  const pass = params.get("pass") || "";
  document.body.dataset.view = view;
  if (player) document.body.dataset.player = player;
  if (player && !COLOURS.includes(player)) {
    notice(`"${player}" is not a player colour: open the join link from \`smart-table tablets add <colour>\` (red, blue, green or yellow).`);
    return;
  }
  document.title = player ? `${player} — smart table` : `Table ${table} — smart table`;
  document.getElementById("title").textContent = player ? `${cap(player)}` : settings.title || "smart table";

  const base = `table/${table}`;
  const store = {
    table, player, base,
    state: null, prompts: null, events: [], devices: {}, availability: null,
    me: null, myPrompts: null, pending: new Map(), lastReply: null,
    board: settings.board || null, lastBattle: null, campaign: null,
  };
  // A QR code per open seat (join.js); a spectator watching from the venue (docs/venue.md) has no seats to offer.
  if (view === "table" && !params.has("spectate")) startJoin({ password: pass });
  const topics = [`${base}/availability`, `${base}/device/+/availability`, `${base}/state`, `${base}/events`, `${base}/prompts`, `${base}/campaign`];
  if (player) topics.push(`${base}/player/${player}/state`, `${base}/player/${player}/prompts`, `${base}/player/${player}/reply`);

  // Every topic that reached this page (the tests check a player's page never saw another's tree).
  const seen = new Set();
  Object.defineProperty(window, "__seenTopics", { get: () => [...seen] });
  // When each (epoch, seq, private seq) was first drawn, for bench/display_latency.py.
  const renderedAt = new Map();
  window.__renderedAt = (key) => renderedAt.get(key) ?? null;
  // One render per frame, however many messages arrived in it: one action brings the public state, each
  // player's private state, events, prompts and the reply within a few milliseconds, and every render
  // rebuilds the view (measured: 5.5 renders per tap, docs/bench/display.md). A player's view waits for the
  // private state of the public state's seq (at most HOLD_MS) rather than drawing the half-updated pair.
  let scheduled = false;
  let holdTimer = null;
  const HOLD_MS = 150;
  const draw = () => {
    scheduled = false;
    const mainEl = document.getElementById("main");
    const views = VIEWS[gameOf(store)];
    mainEl.dataset.game = gameOf(store);
    if (view === "table") (views?.table ?? renderTable)(mainEl, store);
    else (views?.player ?? renderPlayer)(mainEl, store, send);
    const gameTitle = store.state?.game?.title;
    if (gameTitle) {
      document.title = player ? `${player} — ${gameTitle}` : `Table ${table} — ${gameTitle}`;
      if (!player && !settings.title) document.getElementById("title").textContent = gameTitle;
    }
    const seq = store.state ? store.state.seq : "";
    const key = `${store.state?.epoch}:${seq}:${store.me?.seq ?? ""}`;
    if (!renderedAt.has(key)) renderedAt.set(key, Date.now());
    if (renderedAt.size > 500) renderedAt.delete(renderedAt.keys().next().value);
    mainEl.dataset.seq = seq ?? "";
    mainEl.dataset.epoch = store.state?.epoch ?? "";
    if (store.me) mainEl.dataset.mySeq = store.me.seq ?? "";
    mount(document.getElementById("turn"), turnLine(store));
    renderCampaign(document.getElementById("campaign"), store); // the Deep Legends campaign, when published
  };
  const render = () => {
    if (scheduled) return;
    if (player && behind(store)) {
      holdTimer ??= setTimeout(() => { holdTimer = null; render.now(); }, HOLD_MS);
      return;
    }
    render.now();
  };
  render.now = () => {
    if (holdTimer !== null) { clearTimeout(holdTimer); holdTimer = null; }
    if (scheduled) return;
    scheduled = true;
    // A frame when the page is shown; the timer when frames are throttled (a hidden tab): whichever first.
    let done = false;
    const once = () => { if (!done) { done = true; draw(); } };
    requestAnimationFrame(once);
    setTimeout(once, 50);
  };

  const link = new Link({
    url: ws, username: user, password: pass, topics,
    onMessage: (topic, payload) => {
      seen.add(topic);
      const rest = topic.slice(base.length + 1);
      if (rest === "availability") {
        store.availability = typeof payload === "string" ? payload : payload?.state ?? null;
        link.setController(store.availability);
      } else if (rest === "state") {
        if (newer(payload, store.state)) {
          store.state = payload;
          followBattle(store, payload, render);
        }
      } else if (rest === "prompts") store.prompts = payload;
      else if (rest === "events") {
        store.events = [...(payload?.events || []).map((e) => ({ ...e, _seq: payload.seq })), ...store.events].slice(0, 12);
      } else if (rest.startsWith("device/")) store.devices[rest.split("/")[1]] = payload;
      else if (rest === "campaign") store.campaign = payload;
      else if (rest === `player/${player}/state`) {
        if (newer(payload, store.me)) store.me = payload;
      } else if (rest === `player/${player}/prompts`) store.myPrompts = payload;
      else if (rest === `player/${player}/reply`) onReply(payload);
      // A player's view draws neither the events list nor the devices: nothing to redraw for them.
      if (player && (rest === "events" || rest.startsWith("device/"))) return;
      render();
    },
    onStatus: (st) => {
      const c = document.getElementById("conn");
      c.dataset.status = st.code;
      c.textContent = st.text;
      // conn.js says whether the table is there: anything but live dims the page and stops its buttons.
      document.body.dataset.conn = st.code;
      document.getElementById("main").inert = st.code !== "live";
      notice(st.error);
    },
  });

  // A tablet command: {"request_id","seq","action"} or {"request_id","prompt_id","answer"} on its cmd topic.
  function send(body, label) {
    const request_id = `${player}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
    const msg = { request_id, ...body };
    if (link.status?.code !== "live" || !link.publish(`${base}/player/${player}/cmd`, msg)) {
      store.lastReply = { accepted: false, reason: "Not connected to the table: wait for “live” and tap again." };
      render();
      return;
    }
    store.pending.set(request_id, { label, at: Date.now() });
    store.lastReply = { pending: true, label, request_id };
    render();
    setTimeout(() => {
      if (store.pending.delete(request_id)) {
        store.lastReply = { accepted: false, request_id, kind: "timeout", reason: `No answer from the table for “${label}”: check the connection and tap again.` };
        render();
      }
    }, 8000);
  }

  function onReply(reply) {
    if (!reply || !store.pending.has(reply.request_id)) return; // not ours (another tab of the same player)
    const { label } = store.pending.get(reply.request_id);
    store.pending.delete(reply.request_id);
    store.lastReply = { ...reply, label };
  }

  render();
  link.start();
  window.__display = { store, link, send }; // for the tests and for debugging from the console
}

// The session view disappears when the engine ends a battle: keep the last one to show as "Battle over".
function followBattle(store, payload, render) {
  const setup = payload?.view?.battle;
  if (payload?.battle || setup) {
    const prev = store.lastBattle;
    store.lastBattle = { view: payload.battle || prev?.view || null, setup: setup || prev?.setup || null, endedAt: null };
  } else if (store.lastBattle && store.lastBattle.endedAt === null) {
    store.lastBattle.endedAt = Date.now();
    setTimeout(render, 20_500);
  }
}

// The public state is newer than this player's private state (it is published first): wait for the other.
function behind(store) {
  const pub = store.state;
  const me = store.me;
  return !!(pub && me && pub.epoch === me.epoch && (me.seq ?? 0) < (pub.seq ?? 0));
}

// A retained snapshot can arrive after a newer live one when a tablet reconnects: keep the newest.
function newer(next, cur) {
  if (!next || typeof next !== "object") return false;
  if (!cur || next.epoch !== cur.epoch) return true;
  return (next.seq ?? 0) >= (cur.seq ?? 0);
}

function turnLine(store) {
  const v = store.state?.view;
  if (!v) return "";
  const active = v.active;
  const parts = [];
  // The expansions in play, on every screen (the game's declaration names them: game.expansions).
  const inPlay = store.state?.game?.expansions || [];
  if (inPlay.length) parts.push(h("span.in-play", { dataset: { expansions: inPlay.join(",") } }, `with ${inPlay.join(" and ")} · `));
  if (active) parts.push(h(`span.who.c-${active}`, `${cap(active)}'s turn`));
  const phase = store.state?.words?.phase ?? (v.phase === "over" ? "game over" : String(v.phase ?? "").replace(/_/g, " "));
  if (phase) parts.push(h("span.phase", ` · ${phase}`));
  if (typeof v.turn === "number" && v.turn > 0) parts.push(h("span.round", ` · turn ${v.turn}`));
  if (v.final_round) parts.push(h("span.final", " · final round"));
  return h("span", parts);
}

function cap(s) {
  return s ? s[0].toUpperCase() + s.slice(1) : "";
}

main();
