// The table view (?view=table): the Harbor and the ocean grid (explored boards, island control and cubes,
// buildings, Advancements on offer), ships and their modes, each player's public board, whose turn and
// which phase, achievements, the tower warning and, during a battle, the battle board.
// Drawn only from the public state payload: keys are rules/views.py public_view's (tolerant of absence).

import { lastBattle, renderBattle } from "./battle.js";
import { lomPanel } from "./letters_of_marque.js";
import { brief, cube, facts, h, humanize, initial, memo, mount, safe } from "./dom.js";
import { oceanSvg, shipsOf } from "./ocean.js";

/** Players in seat order as [{color, ...public board}], from `p` (colour -> board) and `players`. */
export function playersOf(v) {
  const boards = v?.p && typeof v.p === "object" ? v.p : {};
  const order = Array.isArray(v?.players) ? v.players.map((x) => (typeof x === "string" ? x : x?.color)) : Object.keys(boards);
  const extra = Array.isArray(v?.players) ? v.players.filter((x) => typeof x === "object") : [];
  return order.filter(Boolean).map((color) => ({ color, ...(extra.find((x) => x.color === color) || {}), ...(boards[color] || {}) }));
}

/** Square id -> square, from `grid` ("r1c1" keys). */
export function squaresOf(v) {
  const src = v?.grid ?? v?.squares ?? {};
  const out = {};
  for (const [k, sq] of Object.entries(src || {})) if (/^r\d+c\d+$/.test(k)) out[k] = { ...(sq || {}), id: k };
  return out;
}

/** Rows and columns present in the grid's ids (the engine decides the ocean's shape). */
export function gridShape(squares) {
  const rows = new Set();
  const cols = new Set();
  for (const id of Object.keys(squares)) {
    const m = /^r(\d+)c(\d+)$/.exec(id);
    rows.add(+m[1]);
    cols.add(+m[2]);
  }
  const sort = (s) => [...s].sort((a, b) => a - b);
  return { rows: sort(rows), cols: sort(cols) };
}

function shipsByLocation(players) {
  const out = {};
  for (const p of players) if (p.ship) (out[p.ship.at ?? p.ship.location ?? "harbor"] ||= []).push({ color: p.color, ...p.ship });
  return out;
}

export function shipChip(s) {
  const pirate = s.pirate === true || s.mode === "pirate";
  return h(`span.ship.c-${safe(s.color)}${pirate ? ".pirate" : ""}`, {
    dataset: { ship: s.color, mode: pirate ? "pirate" : "mercantile" },
    title: `${s.color}: ${pirate ? "Pirate" : "Mercantile"} mode`,
  }, pirate ? "☠ " : "⚓ ", humanize(s.color), s.damage ? h("small.dmg", ` ✖${s.damage}`) : null);
}

function slotsLine(cubes) {
  if (!Array.isArray(cubes)) return cubes && typeof cubes === "object" ? permanentLine(cubes) : null;
  return h("span.slots", cubes.map((c) => (c ? cube(c) : h("span.cube.empty", { title: "empty slot" }))));
}

function permanentLine(perm) {
  const list = Object.entries(perm || {}).flatMap(([c, n]) => Array(Number(n) || 0).fill(c));
  return list.length ? h("span.perm", { title: "permanent cubes" }, "+", list.map((c) => cube(c))) : null;
}

function islandBox(isl) {
  const ctrl = isl.controller ?? null;
  const bl = Array.isArray(isl.buildings) ? isl.buildings : Object.keys(isl.buildings || {}).filter((k) => isl.buildings[k]);
  return h(`div.island${ctrl ? `.c-${safe(ctrl)}.controlled` : ""}`, { dataset: { controller: ctrl ?? "" } },
    h("div.cubesrow", slotsLine(isl.cubes), permanentLine(isl.permanent)),
    ctrl ? h("div.ctrl", `⚑ ${humanize(ctrl)}`) : null,
    bl.length ? h("div.buildings", bl.map((b) => h(`span.building${ctrl ? `.c-${safe(ctrl)}` : ""}`, humanize(b)))) : null,
    isl.cargo || isl.coins ? h("div.goods", [isl.cargo ? `${isl.cargo} cargo` : null, isl.coins ? `${isl.coins} coins` : null].filter(Boolean).join(" · ")) : null);
}

function squareCell(id, sq, ships, battleAt) {
  const up = sq && (sq.face_up ?? sq.explored ?? (sq.board !== null && sq.board !== undefined));
  return h(`div.square${up ? ".explored" : ".unexplored"}${battleAt ? ".battle-here" : ""}`, { dataset: { square: id } },
    h("span.sqid", id),
    !up ? h("span.fog", "unexplored") : [
      sq.board ? h("div.sqname", humanize(String(sq.board).replace(/-0*(\d+)$/, " $1"))) : null,
      sq.island ? islandBox(sq.island) : null,
      sq.card ? h(`div.card-offer${sq.card.merchant ? ".merchant" : ""}`, { dataset: { card: sq.card.id ?? "" } },
        sq.card.merchant ? "⚔ Merchant" : `✦ ${sq.card.name ?? sq.card.id}`, sq.card.cost !== undefined && !sq.card.merchant ? ` (${sq.card.cost})` : "") : null,
    ],
    ships?.length ? h("div.ships", ships.map(shipChip)) : null);
}

/** Achievements: name, requirement and value (the controller's words), markers and progress cubes with the
 * player's initial on each. */
export function achievementsBox(v, words) {
  const a = v?.achievements;
  if (!a || typeof a !== "object") return null;
  const cubes = v.achievement_cubes || {};
  const aw = words?.achievements || {};
  return h("section.achievements", { dataset: { key: "achievements" } }, h("h2", "Achievements"),
    h("ul", Object.entries(a).map(([name, who]) => h("li", { dataset: { achievement: name } },
      h("span.aname", aw[name]?.name ?? humanize(name)),
      aw[name]?.coins !== undefined ? h("small.coinsval", ` (${aw[name].coins} Coins)`) : null, " ",
      (Array.isArray(who) ? who : []).map((c) => h(`span.marker.c-${safe(c)}`, { title: `${c}: completed` }, initial(c))),
      Object.keys(cubes[name] || {}).length ? h("small.progress", " ", Object.entries(cubes[name]).map(([c, n]) => [cube(c), `×${n} `])) : null,
      aw[name]?.requirement ? h("span.req", aw[name].requirement) : null))));
}

/** The end of the game: every scoring category per player, the totals, the winner or the rulebook's
 * tie-break (words.scores, built by the controller from the engine's scores). */
export function scoreTable(sc) {
  if (!sc) return null;
  const name = (c) => c[0].toUpperCase() + c.slice(1);
  return h("section.scores#scores", { dataset: { key: "scores", winner: sc.winner ?? "" } },
    h("h2", "Final scores"),
    h("p.verdict", sc.verdict),
    h("table.scoretable",
      h("thead", h("tr", h("th", "Coins for"), sc.players.map((c) => h(`th.c-${safe(c)}`, { dataset: { player: c } },
        h(`span.marker.c-${safe(c)}`, initial(c)), " ", name(c), c === sc.winner ? " ★ winner" : "")))),
      h("tbody", sc.rows.map((r) => h("tr", { dataset: { category: r.key } }, h("th", r.label),
        sc.players.map((c) => h("td", { dataset: { player: c } }, String(r.values[c] ?? 0)))))),
      h("tfoot", h("tr", h("th", "Total"), sc.players.map((c) => h(`td.total${c === sc.winner ? ".winner" : ""}`, { dataset: { player: c } }, String(sc.totals[c])))))));
}

function holdsText(holds) {
  if (!Array.isArray(holds)) return null;
  return holds.map((x, i) => {
    const cargo = Array.isArray(x) ? x[0] : x.cargo ?? 0;
    const coins = Array.isArray(x) ? x[1] : x.coins ?? 0;
    return `${i + 1}: ${cargo + coins === 0 ? "empty" : [cargo ? `${cargo} Cargo` : null, coins ? `${coins} Coins` : null].filter(Boolean).join(" + ")}`;
  }).join(" · ");
}

// The public board of a player, compact: the numbers people glance at, then flags worth a badge.
function playerCard(p, active, words, seat) {
  const s = p.ship || {};
  const stat = (key, label, value) => (value === undefined || value === null ? null
    : h("span.stat", { dataset: { key } }, h("b", String(value)), ` ${label}`));
  const shown = ["color", "ship", "discard", "played", "dock_cargo", "hand_size", "deck_size", "cubes",
    "achievement_markers_left", "may_level_up", "set_aside_count", "has_bonus_token", "final_turn_taken"];
  const others = Object.fromEntries(Object.entries(p).filter(([k, v]) => !shown.includes(k) && v !== null && v !== false));
  return h(`section.pcard.c-${safe(p.color)}${p.color === active ? ".active" : ""}`, { dataset: { player: p.color } },
    h("h3", h(`span.marker.c-${safe(p.color)}`, initial(p.color)), " ", humanize(p.color), p.color === active ? " ◀" : "", " ",
      s.at !== undefined ? h("small.at", s.at === "harbor" ? "in Harbor" : `at ${words?.squares?.[s.at]?.label ?? s.at}`) : null,
      // Who sits where (the controller's `seats`): a person's tablet or the built-in player.
      seat ? h("small.seat", { dataset: { seat } }, seat === "bot" ? " · played by the table" : " · a person") : null),
    h("div.stats",
      stat("damage", "damage", s.damage), stat("sails", "sails", s.sails),
      stat("dock", "cargo on dock", p.dock_cargo), stat("hand", "in hand", p.hand_size), stat("deck", "in deck", p.deck_size),
      stat("cubes", "cubes", p.cubes), stat("markers", "markers left", p.achievement_markers_left)),
    s.holds ? h("div.holds-line", "Holds: ", holdsText(s.holds)) : null,
    Object.keys(p.played || {}).length ? h("div.played-line", "Played: ", Object.keys(p.played).map((cid) => {
      const w = words?.cards?.[`${p.color}/${cid}`];
      return w ? `${w.title}${w.abilities.length ? ` (${w.abilities.join("; ")})` : ""}` : humanize(cid);
    }).join(", ")) : null,
    h("div.badges",
      s.pirate ? h("span.badge.pirate", "☠ Pirate mode") : null,
      p.may_level_up ? h("span.badge", "may level up") : null,
      p.final_turn_taken ? h("span.badge", "final turn taken") : null,
      p.set_aside_count ? h("span.badge", `${p.set_aside_count} set aside`) : null),
    Object.keys(others).length ? facts(others, [], "facts small") : null);
}

// The table's sensors as people call them (the payload's `sensors`: name -> "live" | "manual").
const SENSOR_NAMES = { ocean_camera: "Ocean camera", zones: "Zone sensors", tower: "Battle tower", battle_camera: "Battle-board camera", map_camera: "Map camera" };

export function renderTable(root, store) {
  const st = store.state;
  if (!st) {
    mount(root, h("p.hint", "Waiting for the table's state…"));
    return;
  }
  const v = st.view || {};
  const w = st.words || null;
  const players = playersOf(v);
  const squares = squaresOf(v);
  const warning = st.tower?.warning;
  const cameraWarning = st.camera?.warning;
  const prompts = store.prompts?.prompts || [];
  const devices = Object.entries(store.devices).map(([name, d]) =>
    h(`span.device.${safe(d?.state ?? d)}`, { dataset: { device: name } }, `${name}: ${d?.state ?? d}`));
  const sensors = Object.entries(st.sensors || {});
  const place = (sq) => w?.squares?.[sq]?.label ?? sq;
  const waiting = w?.waiting ?? (v.waiting_for || []).map((r) => `${humanize(r.kind)}${r.square ? ` at ${place(r.square)}` : ""}${r.player ? ` (${r.player})` : ""}`);
  const over = v.phase === "over" || v.scores;
  const battle = st.battle || v.battle ? renderBattle(st.battle, v.battle, prompts, store.board) : lastBattle(store);
  mount(root,
    warning ? h("p.warning#tower-warning", { role: "alert" }, "⚠ Tower: ", warning) : null,
    cameraWarning ? h("p.warning#camera-warning", { role: "alert" }, "⚠ Camera: ", cameraWarning) : null,
    over && w?.scores ? scoreTable(w.scores) : over && v.scores ? h("section.scores", h("h2", "Final scores"), facts(v.scores, [], "facts big")) : null,
    !st.battle && prompts.length ? h("section.prompts", prompts.map((p) => h("p.prompt", { dataset: { kind: p.kind } }, p.text || humanize(p.kind)))) : null,
    waiting.length ? h("p.waiting", "Waiting for: ", waiting.join(", ")) : null,
    h(`div.tablelayout${battle ? ".in-battle" : ""}`, { dataset: { key: "layout" } },
      h("div.sea",
        h("section.ocean", Object.keys(squares).length
          ? memo("ocean", [v.grid, shipsOf(v), v.battle?.location, w?.squares], () => oceanSvg(v, w, { battleAt: v.battle?.location ?? null }))
          : h("p.hint", "No ocean yet"))),
      h("div.side",
        battle,
        h("div.players", players.map((p) => playerCard(p, v.active, w, st.seats?.[p.color]))),
        memo("achievements", [v.achievements, v.achievement_cubes, w?.achievements], () => achievementsBox(v, w)),
        store.events.length ? h("section.events", h("h2", "Latest"), h("ol", store.events.slice(0, 5).map((e) =>
          h("li", e.text ?? [humanize(e.type ?? e.kind), e.player && e.player !== "table" ? ` (${e.player})` : ""])))) : null,
        sensors.length ? h("p.sensors.table-sensors", { dataset: { key: "sensors", ...st.sensors } },
          sensors.map(([name, mode]) => `${SENSOR_NAMES[name] ?? humanize(name)}: ${mode === "live" ? "live" : "by hand on the tablets"}`).join(" · ")) : null,
        devices.length ? h("footer.devices", devices) : null)),
    lomPanel(v, w), // the Letters of Marque expansion's tracks and Prime Cargo, full width (null without it)
  );
}

export { brief };
