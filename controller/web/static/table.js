// The table view (?view=table): the Harbor and the 3x4 ocean grid, island control and cubes, buildings,
// ships and their modes, players' public boards, achievements, the tower warning, and the battle board.
// Drawn only from the public state payload; keys are the rules engine's (rules/api.py public_view).

import { renderBattle } from "./battle.js";
import { COLOURS, brief, cube, facts, h, humanize, mount, safe } from "./dom.js";

/** Players as a list of {color, ...}, whether the view sends a list or a colour-keyed object. */
export function playersOf(v) {
  const p = v?.players;
  if (Array.isArray(p)) return p.map((x) => ({ color: x.color ?? x.colour ?? x.name ?? x.player, ...x }));
  if (p && typeof p === "object") return Object.entries(p).map(([color, x]) => ({ color, ...(x || {}) }));
  return [];
}

/** Square id -> square, for "r1c1".."r3c4" keyed objects, lists of rows, or flat lists with ids. */
export function squaresOf(v) {
  const src = v?.squares ?? v?.grid ?? v?.ocean ?? v?.board ?? v?.map ?? v?.spaces ?? null;
  const out = {};
  const put = (sq, r, c) => {
    const id = sq?.id ?? sq?.square ?? `r${r}c${c}`;
    out[id] = { ...(sq || {}), id };
  };
  if (Array.isArray(src)) {
    src.forEach((row, r) => {
      if (Array.isArray(row)) row.forEach((sq, c) => put(sq, r + 1, c + 1));
      else if (row) {
        const m = /r(\d+)c(\d+)/.exec(row.id ?? row.square ?? "");
        if (m) put(row, +m[1], +m[2]);
        else if (row.row !== undefined) put(row, row.row, row.col ?? row.column);
      }
    });
  } else if (src && typeof src === "object") {
    for (const [k, sq] of Object.entries(src.squares ?? src)) if (/r\d+c\d+/.test(k)) out[k] = { ...(sq || {}), id: k };
  }
  return out;
}

function gridShape(squares) {
  let r0 = 99, c0 = 99, r1 = 0, c1 = 0;
  for (const id of Object.keys(squares)) {
    const m = /r(\d+)c(\d+)/.exec(id);
    if (!m) continue;
    r0 = Math.min(r0, +m[1]); r1 = Math.max(r1, +m[1]);
    c0 = Math.min(c0, +m[2]); c1 = Math.max(c1, +m[2]);
  }
  if (r1 === 0) return { r0: 1, c0: 1, rows: 3, cols: 4 };
  // The Dead Reckoning ocean is 3 rows by 4 columns; keep that shape even when few squares are known.
  // Ids are 1-based unless the engine sends a 0 somewhere.
  r0 = Math.min(r0, 1); c0 = Math.min(c0, 1);
  return { r0, c0, rows: Math.max(3, r1 - r0 + 1), cols: Math.max(4, c1 - c0 + 1) };
}

/** Ships by location id, from the players' ships (or a top-level `ships` list). */
function shipsByLocation(v, players) {
  const out = {};
  const add = (loc, ship) => (out[loc ?? "harbor"] ||= []).push(ship);
  for (const p of players) {
    const s = p.ship ?? {};
    if (p.ship || p.location) add(s.location ?? s.at ?? s.square ?? p.location, { color: p.color, ...s });
  }
  for (const s of v?.ships || []) add(s.location ?? s.at ?? s.square, { color: s.color ?? s.player ?? s.owner, ...s });
  return out;
}

function shipChip(s) {
  const mode = s.mode ?? (s.pirate || s.pirate_mode ? "pirate" : s.pirate === false ? "mercantile" : null);
  return h(`span.ship.c-${safe(s.color)}${mode === "pirate" ? ".pirate" : ""}`, { dataset: { ship: s.color, mode: mode ?? "" } },
    mode === "pirate" ? "☠ " : "⚓ ", humanize(s.color), mode ? h("small", ` ${mode}`) : null,
    s.damage ? h("small.dmg", ` ✖${s.damage}`) : null, s.sunk ? h("small", " sunk") : null);
}

function cubesLine(cubes) {
  // {"red": 2, "blue": 1} or ["red", "red", "blue"]
  if (!cubes) return null;
  const list = Array.isArray(cubes) ? cubes : Object.entries(cubes).flatMap(([c, n]) => Array(Number(n) || 0).fill(c));
  return h("span.cubes", list.map((c) => cube(typeof c === "string" ? c : c.color)));
}

function islandBox(isl) {
  if (!isl) return null;
  const ctrl = isl.controller ?? isl.control ?? isl.controlled_by ?? null;
  const buildings = isl.buildings ?? [];
  const bList = Array.isArray(buildings) ? buildings : Object.entries(buildings).map(([kind, owner]) => ({ kind, owner }));
  return h(`div.island${ctrl ? `.ctrl-${safe(ctrl)}` : ""}`, { dataset: { controller: ctrl ?? "" } },
    h("div.iname", isl.name ?? "Island", ctrl ? h(`span.ctrl.c-${safe(ctrl)}`, ` ⚑ ${humanize(ctrl)}`) : null),
    isl.slots !== undefined ? h("div.slots", `slots ${brief(isl.slots)}`) : null,
    cubesLine(isl.cubes), isl.permanent ? h("div.perm", "permanent ", cubesLine(isl.permanent)) : null,
    bList.length ? h("div.buildings", bList.map((b) => h(`span.building.c-${safe(b.owner ?? b.color)}`,
      typeof b === "string" ? humanize(b) : humanize(b.kind ?? b.type)))) : null,
    isl.goods || isl.cargo || isl.coins ? h("div.goods", brief({ cargo: isl.cargo, coins: isl.coins, goods: isl.goods })) : null);
}

function squareCell(id, sq, ships) {
  const explored = sq && (sq.explored ?? sq.revealed ?? sq.face_up ?? (sq.board !== undefined && sq.board !== null));
  const cell = h(`div.square${explored ? ".explored" : ".unexplored"}`, { dataset: { square: id } },
    h("span.sqid", id));
  if (!sq || !explored) {
    cell.append(h("span.fog", "unexplored"));
  } else {
    const name = sq.name ?? sq.board?.name ?? sq.board ?? sq.kind ?? null;
    if (name && typeof name === "string") cell.append(h("div.sqname", name));
    const isl = sq.island ?? (sq.cubes || sq.slots !== undefined ? sq : null);
    cell.append(islandBox(isl));
    const enc = sq.encounter ?? sq.encounters ?? null;
    if (enc) cell.append(h("div.encounter", "⚔ ", brief(enc)));
    if (sq.advancement ?? sq.advancements) cell.append(h("div.adv", "✦ ", brief(sq.advancement ?? sq.advancements)));
  }
  if (ships?.length) cell.append(h("div.ships", ships.map(shipChip)));
  return cell;
}

function achievementsBox(v, players) {
  const a = v?.achievements ?? v?.harbor?.achievements ?? null;
  const rows = [];
  if (Array.isArray(a)) for (const x of a) rows.push([x.name ?? x.id ?? humanize(x.kind), x.markers ?? x.players ?? x.by ?? [], x.cubes ?? x.progress]);
  else if (a && typeof a === "object") for (const [k, x] of Object.entries(a))
    rows.push([humanize(k), Array.isArray(x) ? x : x?.markers ?? x?.players ?? x?.by ?? [], Array.isArray(x) ? null : x?.cubes ?? x?.progress]);
  if (!rows.length) {
    for (const p of players) for (const x of p.achievements ?? []) rows.push([humanize(typeof x === "string" ? x : x.name ?? x.id), [p.color], null]);
  }
  if (!rows.length) return null;
  return h("section.achievements", h("h2", "Achievements"),
    h("ul", rows.map(([name, who, progress]) => h("li", h("span.aname", name), " ",
      (who || []).map((c) => h(`span.marker.c-${safe(c)}`, { title: c }, "●")),
      progress && Object.keys(progress).length ? h("small", ` (${brief(progress)})`) : null))));
}

function playerStrip(p, active) {
  const s = p.ship ?? {};
  const pub = { ...p };
  for (const k of ["color", "ship", "achievements", "name"]) delete pub[k];
  return h(`section.pcard.c-${safe(p.color)}${p.color === active ? ".active" : ""}`, { dataset: { player: p.color } },
    h("h3", humanize(p.color), p.color === active ? " ◀" : ""),
    facts({ damage: s.damage ?? p.damage, sails: s.sails ?? p.sails, mode: s.mode ?? (s.pirate ? "pirate" : undefined),
      holds: s.holds, ...pub }, [], "facts small"));
}

export function renderTable(root, store) {
  const st = store.state;
  if (!st) {
    root.replaceChildren(h("p.hint", "Waiting for the table's state…"));
    return;
  }
  const v = st.view || {};
  const players = playersOf(v);
  const active = v.active_player ?? v.current_player ?? v.turn?.player ?? null;
  const squares = squaresOf(v);
  const shape = gridShape(squares);
  const ships = shipsByLocation(v, players);
  const grid = h("div.grid", { style: { gridTemplateColumns: `repeat(${shape.cols}, 1fr)` } });
  for (let r = 0; r < shape.rows; r++)
    for (let c = 0; c < shape.cols; c++) {
      const id = `r${shape.r0 + r}c${shape.c0 + c}`;
      grid.append(squareCell(id, squares[id], ships[id]));
    }
  const harbor = v.harbor ?? {};
  const warning = st.tower?.warning;
  const prompts = (store.prompts?.prompts || []).filter((p) => !st.battle || !/drop/i.test(p.kind));
  const devices = Object.entries(store.devices).map(([name, d]) =>
    h(`span.device.${safe(d?.state ?? d)}`, { dataset: { device: name } }, `${name}: ${d?.state ?? d}`));
  mount(root,
    warning ? h("p.warning#tower-warning", { role: "alert" }, "⚠ Tower: ", warning) : null,
    prompts.length ? h("section.prompts", prompts.map((p) => h("p.prompt", { dataset: { kind: p.kind } }, p.text || humanize(p.kind)))) : null,
    st.battle ? renderBattle(st.battle, store.prompts) : null,
    h("div.tablelayout",
      h("div.sea",
        h("section.harbor", { dataset: { square: "harbor" } }, h("h2", "Harbor"),
          h("div.ships", (ships.harbor || []).map(shipChip)),
          Object.keys(harbor).length ? facts(harbor, ["achievements", "ships"], "facts small") : null),
        h("section.ocean", grid)),
      h("div.side",
        h("div.players", players.map((p) => playerStrip(p, active))),
        achievementsBox(v, players),
        store.events.length ? h("section.events", h("h2", "Latest"), h("ol", store.events.slice(0, 5).map((e) =>
          h("li", e.text ?? e.message ?? `${humanize(e.type ?? e.kind)}${e.player ? ` (${e.player})` : ""}`)))) : null,
        devices.length ? h("footer.devices", devices) : null)),
  );
}

export { COLOURS };
