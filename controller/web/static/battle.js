// The battle board, from the battle session's view (rules/battle/session.py `view()`): every cube read by
// the camera drawn in its zone (and on the rails), tallies per side (plunder, damage, strength), exploding
// shots, the drop or re-drop the table owes, whose ability turn it is, then the result. Numbers and the
// winner are the session's; zone kinds and labels come from the board model in /settings.json.

import { brief, cube, h, humanize, listen, morph, mount, safe } from "./dom.js";

const SVG = "http://www.w3.org/2000/svg";
// Choices made in a battle prompt but not sent yet, by prompt id (they survive re-renders).
const drafts = new Map();
const INITIAL = { red: "R", blue: "B", green: "G", yellow: "Y", black: "K", white: "W", purple: "P" };
const SENSOR_WORDS = { live: "live", manual: "entered by hand" };

const KIND_ORDER = ["exploding", "plunder", "damage", "strength", "miss"];

export function zoneLabel(id, z) {
  switch (z?.kind) {
    case "exploding": return "Exploding shot";
    case "plunder": return `Plunder ${[z.cargo ? `${z.cargo} cargo` : null, z.coins ? `${z.coins} coin${z.coins > 1 ? "s" : ""}` : null].filter(Boolean).join(" + ")}`;
    case "damage": return "Damage";
    case "strength": return `Strength ${z.strength ?? ""}`;
    case "miss": return "Miss";
    default: return id;
  }
}

/** Every zone's name, numbered where two zones share one ("Strength 1 · 1", "Strength 1 · 2"): never an id. */
export function zoneNames(board) {
  const zones = board?.zones || {};
  const ids = zoneIds(board, null);
  const names = Object.fromEntries(ids.map((id) => [id, zoneLabel(id, zones[id])]));
  const count = {};
  for (const n of Object.values(names)) count[n] = (count[n] || 0) + 1;
  const seen = {};
  for (const id of ids) {
    const n = names[id];
    if (count[n] > 1) names[id] = `${n} · ${(seen[n] = (seen[n] || 0) + 1)}`;
  }
  return names;
}

function zname(board, id) {
  if (id === null || id === undefined || id === "rail") return "on a rail";
  return zoneNames(board)[id] ?? zoneLabel(id, board?.zones?.[id]);
}

function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    // dom.js's listener: an in-place update swaps the handler (a stale closure would act on an old prompt).
    if (k === "on") for (const [ev, fn] of Object.entries(v)) listen(el, ev, fn);
    else if (k === "dataset") for (const [dk, dv] of Object.entries(v)) el.dataset[dk] = dv;
    else el.setAttribute(k, String(v));
  }
  for (const c of children.flat(Infinity)) if (c !== null && c !== undefined && c !== false) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

const FILL = { exploding: "#5a3400", plunder: "#4a3d10", damage: "#4a1418", strength: "#10305a", miss: "#25303d" };

/** The battle board drawn (SVG): each zone's well with its own name, and cubes ({color, zone, state}) as
 * squares with their colour's initial (colour is never the only sign). Zones come from the camera's layout
 * (`layout`: size_mm and a polygon per zone) or, without one, a grid in board order. `onZone(id)` makes the
 * zones (and the rail strip) tappable; `onCube(i)` the cubes. */
export function boardSvg(board, layout, cubes = [], opts = {}) {
  const names = zoneNames(board);
  const ids = zoneIds(board, null);
  let shapes = layout?.zones || null;
  let [w, hgt] = layout?.size_mm || [0, 0];
  if (!shapes || !ids.every((id) => shapes[id])) {
    // No layout: a grid of wells, four to a row, in board order.
    shapes = {};
    ids.forEach((id, i) => {
      const x = 10 + (i % 4) * 60;
      const y = 10 + Math.floor(i / 4) * 50;
      shapes[id] = [[x, y], [x + 55, y], [x + 55, y + 45], [x, y + 45]];
    });
    w = 250;
    hgt = 10 + Math.ceil(ids.length / 4) * 50;
  }
  const railH = 22;
  const root = svg("svg", { viewBox: `0 0 ${w} ${hgt + railH + 4}`, class: "battle-board", role: "img",
    "aria-label": "The battle board", style: "width:100%;max-width:40em;display:block;touch-action:manipulation" });
  const centre = {};
  const groups = {};
  for (const id of ids) {
    const pts = shapes[id];
    const xs = pts.map((p) => p[0]);
    const ys = pts.map((p) => p[1]);
    centre[id] = { x: (Math.min(...xs) + Math.max(...xs)) / 2, top: Math.min(...ys), bottom: Math.max(...ys),
      left: Math.min(...xs), right: Math.max(...xs) };
    const kind = board?.zones?.[id]?.kind;
    const g = svg("g", { class: `bzone k-${safe(kind)}`, dataset: { zone: id }, role: opts.onZone ? "button" : null,
      "aria-label": names[id], on: opts.onZone ? { click: () => opts.onZone(id) } : null,
      style: opts.onZone ? "cursor:pointer" : null },
    svg("polygon", { points: pts.map((p) => p.join(",")).join(" "), fill: FILL[kind] || "#1b2633",
      stroke: opts.selectedZone === id ? "#fff" : "#8aa", "stroke-width": opts.selectedZone === id ? 1.6 : 0.6 }),
    svg("text", { x: centre[id].x, y: centre[id].top + 7, "text-anchor": "middle", "font-size": 5.2, fill: "#e8eef5" }, names[id]));
    groups[id] = g;
    root.append(g);
  }
  const rail = svg("g", { class: "bzone k-rail", dataset: { zone: "rail" }, role: opts.onZone ? "button" : null,
    "aria-label": "On a rail", on: opts.onZone ? { click: () => opts.onZone("rail") } : null, style: opts.onZone ? "cursor:pointer" : null },
  svg("rect", { x: 2, y: hgt + 2, width: w - 4, height: railH - 2, rx: 2, fill: "#2b2b2b", stroke: "#8aa", "stroke-width": 0.6 }),
  svg("text", { x: 6, y: hgt + 9, "font-size": 5, fill: "#e8eef5" }, "On a rail (re-dropped)"));
  groups.rail = rail;
  root.append(rail);
  // Cubes: placed in rows inside their zone (or along the rail).
  const slots = {};
  cubes.forEach((c, i) => {
    const z = c.zone && centre[c.zone] ? c.zone : "rail";
    const k = (slots[z] = (slots[z] || 0) + 1) - 1;
    const s = 8;
    let x;
    let y;
    if (z === "rail") {
      x = 6 + k * (s + 2);
      y = hgt + 11;
    } else {
      const b = centre[z];
      const per = Math.max(1, Math.floor((b.right - b.left - 6) / (s + 2)));
      x = b.left + 3 + (k % per) * (s + 2);
      y = b.top + 10 + Math.floor(k / per) * (s + 2);
    }
    const colour = `var(--${safe(c.color)}, ${safe(c.color)})`;
    groups[z].append(svg("g", { class: `bcube cube c-${safe(c.color)}${c.state ? ` ${c.state}` : ""}`, dataset: { cube: i, color: c.color, zone: c.zone ?? "rail" },
      role: opts.onCube && c.state === "new" ? "button" : null, "aria-label": `${c.color} cube ${zname(board, c.zone)}`,
      on: opts.onCube && c.state === "new" ? { click: (e) => { e.stopPropagation(); opts.onCube(i); } } : null },
    svg("rect", { x, y, width: s, height: s, rx: 1.2, style: `fill:${colour}`, stroke: c.state === "new" ? "#fff" : "#000",
      "stroke-width": c.state === "new" ? 0.9 : 0.4, "stroke-dasharray": c.state === "also" ? "1.5 1" : null,
      opacity: c.state === "kept" || c.state === "also" ? 0.55 : 1 }),
    svg("text", { x: x + s / 2, y: y + s - 2, "text-anchor": "middle", "font-size": 5.5, "font-weight": 700,
      fill: ["yellow", "white"].includes(c.color) ? "#000" : "#fff" }, INITIAL[c.color] ?? String(c.color)[0].toUpperCase())));
  });
  return root;
}

/** A square in words: "r1c3" -> "row 1, column 3"; the Harbor by its name. */
export function placeName(loc) {
  const m = /^r(\d+)c(\d+)$/.exec(String(loc ?? ""));
  if (m) return `row ${m[1]}, column ${m[2]}`;
  return loc === "harbor" ? "the Harbor" : String(loc ?? "");
}

/** "Tower: live · Camera: entered by hand". */
export function sensorLine(sensors) {
  if (!sensors) return null;
  return h("p.sensors", { dataset: { tower: sensors.tower ?? "", camera: sensors.camera ?? "" } },
    `Tower: ${SENSOR_WORDS[sensors.tower] ?? sensors.tower} · Camera: ${SENSOR_WORDS[sensors.camera] ?? sensors.camera}`);
}

/** Cubes as the view has them per zone ({zone: {colour: n}}) and on the rails. */
function viewCubes(view) {
  const out = [];
  for (const [z, counts] of Object.entries(view?.zones || {})) for (const [c, n] of Object.entries(counts)) for (let i = 0; i < n; i++) out.push({ color: c, zone: z });
  for (const [c, n] of Object.entries(view?.on_rail || {})) for (let i = 0; i < n; i++) out.push({ color: c, zone: null });
  return out;
}

/** Zone ids in board order: the board model's zones by kind, then any zone only the reading names. */
export function zoneIds(board, view) {
  const zones = board?.zones || {};
  const ids = Object.keys(zones).sort((a, b) => rank(zones[a]) - rank(zones[b]));
  for (const z of Object.keys(view?.zones || {})) if (!ids.includes(z)) ids.push(z);
  return ids;
}

function rank(z) {
  const i = KIND_ORDER.indexOf(z?.kind);
  return i < 0 ? KIND_ORDER.length : i;
}

function cubesOf(counts) {
  return Object.entries(counts || {}).flatMap(([c, n]) => Array(Number(n) || 0).fill(c)).map((c) => cube(c));
}

function sideBox(key, side, setupSide, winner) {
  side = side || {};
  const name = side.name ?? setupSide?.name ?? key;
  const colour = side.color ?? setupSide?.cube_color ?? "black";
  const n = (k) => (side[k] === undefined || side[k] === null ? "—" : String(side[k]));
  return h(`section.side.side-${key}${winner === key ? ".winner" : ""}`, { dataset: { side: key } },
    h("h3", cube(colour), " ", humanize(key), ": ", sideName(name)),
    h("dl.tally",
      h("dt", "Cubes"), h("dd", { dataset: { tally: "cubes" } }, n("cubes") !== "—" ? n("cubes") : String(setupSide?.cubes ?? "—")),
      h("dt", "Plunder"), h("dd", { dataset: { tally: "plunder" } }, `${n("plunder_cargo")} cargo + ${n("plunder_coins")} coins`),
      h("dt", "Damage"), h("dd", { dataset: { tally: "damage" } }, n("damage")),
      h("dt", "Strength"), h("dd.strength", { dataset: { tally: "strength" } }, n("strength")),
      side.exploding_shots ? [h("dt", "💥 Exploding"), h("dd", { dataset: { tally: "exploding" } }, n("exploding_shots"))] : null),
    (side.abilities_used || []).length ? h("p.used", "Used: ", side.abilities_used.map(abilityName).join(", ")) : null,
    winner === key ? h("p.won", "Wins the battle") : null);
}

/** A Battle ability used, as the session lists it ("blue:captain:L3:0", "crew-1:L1:0"), in words: "Captain
 * (level 3)". Anything else is shown humanized, never as the raw id. */
export function abilityName(id) {
  const m = /^(?:[a-z]+:)?([a-z]+(?:-[a-z]+)*)(?:-\d+)?:L(\d+):\d+$/.exec(String(id ?? ""));
  return m ? `${humanize(m[1])} (level ${m[2]})` : humanize(String(id ?? "").replace(/[:]/g, " "));
}

/** view: the session view (may be null while the engine has set the battle up); setup: rules BattleSetup. */
export function renderBattle(view, setup, publicPrompts = [], board = null, opts = {}) {
  view = view || {};
  setup = setup || {};
  board = view.board || board || null; // the session's own board first: the one its zones are read on
  const result = view.result || null;
  const winner = result?.winner ?? null;
  // The controller keeps a resolved battle's final view (phase "resolved") until the next battle or turn.
  opts = { ...opts, over: opts.over || view.phase === "resolved" };
  setup = { location: view.location, ...setup };
  const sessionPrompts = (view.prompts || []).filter((p) => !p.to || p.to === "table");
  const tablePrompts = sessionPrompts.length ? sessionPrompts : publicPrompts.filter((p) => p.battle_id);
  const toAct = view.to_act ? view.sides?.[view.to_act]?.name ?? view.to_act : null;
  // The end-of-game tie-break: every tied player is a side, strength alone decides, it has no place.
  const tiebreak = (view.kind ?? setup.kind) === "tiebreak";
  return h(`section#battle.battle${opts.over ? ".over" : ""}`, { dataset: { battleId: view.battle_id ?? setup.battle_id ?? "", phase: view.phase ?? "" } },
    h("h2", opts.over ? "Battle over" : "Battle", tiebreak ? " · tie-break for the win" : ` · ${humanize(view.kind ?? setup.kind ?? "")}`, setup.location && !tiebreak ? ` at ${placeName(setup.location)}` : ""),
    view.provisional ? h("p.provisional", "Reading the board… (not yet accepted)") : null,
    opts.over ? null : tablePrompts.map((p) => h(`p.redrop.k-${safe(p.kind)}`, { role: "alert", dataset: { kind: p.kind } }, sideWords(p.text) || humanize(p.kind))),
    toAct && !opts.over ? h("p.toact", `${humanize(toAct)}: Battle ability or pass`) : null,
    opts.over ? null : sensorLine(view.sensors),
    tiebreak
      ? h("div.sides.tiebreak", (view.all_sides || []).map((s) => h("div.side", { dataset: { side: s.name } },
          h("b", humanize(s.name)), ` drops ${s.cubes} cube${s.cubes === 1 ? "" : "s"} · strength ${s.strength}`)))
      : h("div.sides", sideBox("attacker", view.sides?.attacker, setup.attacker, winner), sideBox("defender", view.sides?.defender, setup.defender, winner)),
    board ? boardSvg(board, view.layout, viewCubes(view)) : null,
    board ? null : h("div.board", zoneIds(board, view).map((id) => {
      const z = board?.zones?.[id];
      const counts = view.zones?.[id] || {};
      const total = Object.values(counts).reduce((a, b) => a + (Number(b) || 0), 0);
      return h(`div.zone.k-${safe(z?.kind ?? "unknown")}`, { dataset: { zone: id, count: total } },
        h("span.zlabel", zoneNames(board)[id] ?? zoneLabel(id, z)), h("span.zcubes", cubesOf(counts)));
    }),
    Object.keys(view.on_rail || {}).length ? h("div.zone.k-rail", { dataset: { zone: "rail" } }, h("span.zlabel", "On a rail"), h("span.zcubes", cubesOf(view.on_rail))) : null),
    result && tiebreak ? h("p.result", { dataset: { winner: result.winner_name ?? "" } }, result.winner_name
      ? `${humanize(result.winner_name)} has the most Battle strength and wins the game`
      : `${(result.leaders || []).map(humanize).join(" and ")} are still tied: they drop their cubes again`) : null,
    result && !tiebreak ? h("p.result", { dataset: { winner } }, `${sideName(result.winner_name ?? view.sides?.[winner]?.name ?? winner)} wins${result.tied ? " (tied strength)" : ""}`) : null,
    result && !tiebreak ? resultFacts(result) : null,
    view.corrections ? h("p.hint", `${view.corrections} correction(s) applied`) : null,
  );
}

/** The result in words: strength per side, plunder, each Ship's damage after the battle, who sinks. */
function resultFacts(r) {
  const name = sideName;
  const plunder = (s) => `${r.plunder?.[s]?.cargo ?? r[s]?.plunder_cargo ?? 0} cargo + ${r.plunder?.[s]?.coins ?? r[s]?.plunder_coins ?? 0} coins`;
  return h("dl.result-facts",
    h("dt", "Strength"), h("dd", { dataset: { fact: "strength" } }, `${r.attacker?.strength ?? 0} – ${r.defender?.strength ?? 0}`),
    h("dt", "Plunder"), h("dd", { dataset: { fact: "plunder" } }, `attacker ${plunder("attacker")}, defender ${plunder("defender")}`),
    Object.entries(r.damage_after || {}).map(([who, d]) => [h("dt", `${name(who)} damage`), h("dd", { dataset: { fact: "damage", player: who } }, String(d))]),
    (r.sunk || []).length ? [h("dt", "Sunk"), h("dd.sunk", { dataset: { fact: "sunk" } }, r.sunk.map(name).join(", "))] : null);
}

/** After the engine ends a battle the session view goes; say so for a while. The board is shown only
 * when the last view carries the session's result (the controller resolves before publishing the final
 * board, so a last view is usually one step old: its board would mislead). */
export function lastBattle(store) {
  const lb = store.lastBattle;
  if (!lb || Date.now() - lb.endedAt > 20_000) return null;
  if (lb.view?.result) return renderBattle(lb.view, lb.setup, [], store.board, { over: true });
  const name = (side) => sideName(side?.name);
  return h("section#battle.battle.over.compact", { dataset: { battleId: lb.setup?.battle_id ?? lb.view?.battle_id ?? "" } },
    h("h2", "Battle over"), h("p.big", `${name(lb.setup?.attacker)} against ${name(lb.setup?.defender)}`,
      lb.setup?.location ? ` at ${placeName(lb.setup.location)}` : "", ": see the ships' damage and the achievements."));
}

export { mount };

// -- battle prompts on a player's tablet ---------------------------------------------------------------

function select(options, value, onChange, attrs = {}) {
  return h("select", { ...attrs, on: { change: (e) => onChange(e.target.value) } },
    options.map(([v, label]) => h("option", { value: v, selected: String(v) === String(value) }, label)));
}

function boardOf(p, store) {
  return p.board || store.state?.battle?.board || store.board || null;
}

/** "If any part of a cube is touching a zone, that cube is considered to be in that zone": a second zone
 * the cube also touches (none by default). */
function alsoTouching(zones, value, onChange) {
  const options = [["", "touching no other zone"], ...zones.filter(([z]) => z !== "rail").map(([z, name]) => [z, `also touching ${name}`])];
  return select(options, value, onChange, { dataset: { also: "1" } });
}

/** A correction's answer: one zone, or every zone the cube touches ("zones", the first being "zone"). */
function zoneAnswer(base, zone, also) {
  if (zone === "rail") return { ...base, zone: null };
  return also && also !== zone ? { ...base, zones: [zone, also] } : { ...base, zone };
}

function zoneOptions(board, view) {
  const names = zoneNames(board);
  return [...zoneIds(board, view).map((z) => [z, names[z] ?? zoneLabel(z, board?.zones?.[z])]), ["rail", "on a rail"]];
}

/** A side of a battle as the session names it (a colour, "merchant:<card>", "building:<square>") in words. */
function sideName(n) {
  return humanize(String(n ?? "?").replace(/^merchant:.*/, "Merchant ship").replace(/^building:.*/, "Buildings"));
}

/** A battle prompt's sentence with a side the session names by id ("building:r1c1 won") in words. */
function sideWords(text) {
  return String(text ?? "").replace(/\bbuilding:r\d+c\d+\b/g, "the Buildings").replace(/\bmerchant:[\w-]+/g, "the Merchant ship");
}

const BATTLE_KINDS = ["confirm_reading", "battle_ability", "enter_drop", "confirm_drop", "battle_correction"];

/** A battle prompt drawn for a player (null: not a battle prompt, the caller draws it). `send(msg, label)`
 * sends {prompt_id, answer}; answers are those of docs/mqtt.md. */
export function battlePrompt(p, store, send, mine) {
  if (!BATTLE_KINDS.includes(p.kind) && !(p.kind === "sensor_disagree" && p.color && p.battle_id)) return null;
  const id = p.id;
  const draft = drafts.get(id) || {};
  const setDraft = (k, val) => drafts.set(id, { ...(drafts.get(id) || {}), [k]: val });
  const answer = (ans, label) => {
    drafts.delete(id);
    send({ prompt_id: id, answer: ans }, label);
  };
  const board = boardOf(p, store);
  const layout = p.layout || store.state?.battle?.layout || null;
  const setup = store.state?.view?.battle;
  if (!mine && setup && ![setup.attacker?.name, setup.defender?.name].includes(store.player)) {
    // A table prompt of a battle this player is not in: shown, never a form (the table refuses it anyway).
    return h(`section.prompt.info.k-${safe(p.kind)}`, { dataset: { prompt: id, kind: p.kind } }, h("h3", sideWords(p.text) || humanize(p.kind)));
  }
  const box = h(`section.prompt.battle-prompt.k-${safe(p.kind)}`, { dataset: { prompt: id, kind: p.kind } }, h("h3", sideWords(p.text) || humanize(p.kind)));
  const crop = p.crop ?? (p.crops && p.cube !== undefined ? p.crops[p.cube] : null);
  if (crop) box.append(h("img.crop", { src: String(crop).startsWith("data:") ? crop : `data:image/jpeg;base64,${crop}`, alt: `cube ${p.cube ?? ""}` }));

  if (p.kind === "enter_drop") {
    // Tap a cube from the tray, then the zone it landed in (or the rail); tap a placed cube to take it back.
    const tray = Object.entries(p.cubes || {}).flatMap(([c, n]) => Array(Number(n) || 0).fill(c));
    const placed = draft.placed || tray.map(() => undefined);
    const chosen = draft.chosen ?? placed.findIndex((z) => z === undefined);
    // Redraw the prompt that is on the page now (the page patches its nodes in place, so `box` may be a
    // template that was never inserted).
    const redraw = () => {
      const live = [...document.querySelectorAll("section.prompt[data-prompt]")].find((el) => el.dataset.prompt === id);
      if (live) morph(live, battlePrompt(p, store, send, mine));
    };
    const second = draft.second || [];
    const place = (zone) => {
      const d = drafts.get(id) || {};
      if (d.touching !== undefined) {
        // "also touching…": this tap is the other zone the cube touches (its own zone or the rail: none).
        const sec = [...(d.second || [])];
        const first = (d.placed || [])[d.touching];
        sec[d.touching] = zone === "rail" || zone === first ? undefined : zone;
        drafts.set(id, { ...d, second: sec, touching: undefined });
        redraw();
        return;
      }
      const pl = [...(d.placed || tray.map(() => undefined))];
      let at = d.chosen ?? pl.findIndex((z) => z === undefined);
      if (at < 0 || at >= pl.length) return;
      pl[at] = zone === "rail" ? null : zone;
      const sec = [...(d.second || [])];
      sec[at] = undefined;
      const next = pl.findIndex((z) => z === undefined);
      drafts.set(id, { ...d, placed: pl, second: sec, chosen: next < 0 ? undefined : next });
      redraw();
    };
    if (p.waiting) {
      box.append(boardSvg(board, layout, [...(p.kept || []).map((c) => ({ ...c, state: "kept" })), ...(p.entered || []).map((c) => ({ ...c, state: "new" }))]));
      box.append(sensorLine(p.sensors));
      return box;
    }
    const touching = draft.touching;
    // A cube touching two zones counts in both (rulebook: "If any part of a cube is touching a zone"): it is
    // drawn in its first zone and, outlined, in the second.
    const cubes = [...(p.kept || []).map((c) => ({ ...c, state: "kept" })),
      ...tray.map((c, i) => (placed[i] === undefined ? null : { color: c, zone: placed[i], state: "new", slot: i })).filter(Boolean),
      ...tray.map((c, i) => (second[i] ? { color: c, zone: second[i], state: "also" } : null)).filter(Boolean)];
    const where = (i) => (placed[i] === undefined ? "" : ` · ${zname(board, placed[i])}${second[i] ? ` and ${zname(board, second[i])}` : ""}`);
    box.append(sensorLine(p.sensors),
      h("p.hint", (p.kept || []).length ? "Faded cubes stay where they are. " : "",
        touching !== undefined ? `Tap the other zone ${humanize(tray[touching])} cube ${touching + 1} touches.`
          : "Tap a cube below, then the zone where it landed; a cube on a line: “also touching…”, then the other zone."),
      h("div.tray", tray.map((c, i) => h("span.tray-slot",
        h(`button.tray-cube${i === chosen && touching === undefined ? ".chosen" : ""}${placed[i] !== undefined ? ".placed" : ""}${touching === i ? ".touching" : ""}`,
          { dataset: { color: c, slot: i, zones: [placed[i], second[i]].filter(Boolean).join(" ") }, "aria-pressed": i === chosen ? "true" : "false",
            on: { click: () => { drafts.set(id, { ...(drafts.get(id) || {}), chosen: i, touching: undefined }); redraw(); } } },
          cube(c), ` ${humanize(c)} cube ${i + 1}`, where(i)),
        placed[i] ? h("button.also", { dataset: { slot: i }, "aria-pressed": touching === i ? "true" : "false",
          on: { click: () => {
            const d = drafts.get(id) || {};
            if ((d.second || [])[i]) { const sec = [...d.second]; sec[i] = undefined; drafts.set(id, { ...d, second: sec, touching: undefined }); }
            else drafts.set(id, { ...d, touching: d.touching === i ? undefined : i });
            redraw();
          } } }, second[i] ? "one zone only" : touching === i ? "cancel" : "also touching…") : null))),
      boardSvg(board, layout, cubes, { onZone: place, selectedZone: null,
        onCube: (i) => { const slot = cubes[i].slot; const d = drafts.get(id) || {}; const pl = [...(d.placed || [])]; pl[slot] = undefined; drafts.set(id, { ...d, placed: pl, chosen: slot }); redraw(); } }),
      h("div.buttons",
        h("button.primary", { dataset: { answer: "send-entry" }, disabled: placed.some((z) => z === undefined),
          on: { click: () => answer({ cubes: tray.map((c, i) => (second[i] ? { color: c, zone: placed[i], zones: [placed[i], second[i]] }
            : { color: c, zone: placed[i] })) }, "The cubes as they landed") } },
        placed.some((z) => z === undefined) ? `Place ${placed.filter((z) => z === undefined).length} more` : "These are the cubes"),
        h("button", { dataset: { answer: "clear-entry" }, on: { click: () => { drafts.delete(id); redraw(); } } }, "Start again")));
    return box;
  }
  if (p.kind === "confirm_drop") {
    box.append(boardSvg(board, layout, [...(p.kept || []).map((c) => ({ ...c, state: "kept" })), ...(p.entered || []).map((c) => ({ ...c, state: "new" }))]),
      h("ul.entered", (p.entered || []).map((c) => h("li", cube(c.color), ` ${humanize(c.color)} ${zname(board, c.zone)}`,
        Array.isArray(c.zones) && c.zones.length > 1 ? ` and ${c.zones.slice(1).map((z) => zname(board, z)).join(" and ")}` : ""))),
      h("div.buttons",
        h("button.primary", { dataset: { answer: "confirm" }, on: { click: () => answer({ confirm: true }, "The cubes lie so") } }, "Yes, they lie so"),
        h("button", { dataset: { answer: "contest" }, on: { click: () => answer({ contest: true }, "Not so: enter them again") } }, "No, enter them again")));
    return box;
  }
  if (p.kind === "battle_correction") {
    box.append(h("div.buttons",
      h("button.primary", { dataset: { answer: "accept" }, on: { click: () => answer({ accept: true }, "Correction accepted") } }, "Accept"),
      h("button", { dataset: { answer: "contest" }, on: { click: () => answer({ contest: true }, "Correction contested") } }, "Contest")));
    return box;
  }
  if (p.kind === "confirm_reading" && p.resolved) {
    // After the result: every cube of every accepted drop, with its crop; a correction re-resolves the battle.
    const zones = zoneOptions(board, store.state?.battle);
    box.append(h("div.corrections.review", (p.steps || []).map((st) => h("div.step", { dataset: { step: st.step } },
      h("h4", `Drop ${st.step + 1} (${humanize(st.reason ?? "")})`),
      (st.cubes || []).map((c) => {
        const key = `zone${st.step}:${c.cube}`;
        const current = c.zone ?? "rail";
        return h("div.fix", { dataset: { step: st.step, cube: c.cube } },
          c.crop ? h("img.crop", { src: `data:image/jpeg;base64,${c.crop}`, alt: `cube ${c.cube}` }) : null,
          cube(c.color), ` ${humanize(c.color)} cube ${c.cube + 1} is `,
          select(zones, draft[key] ?? current, (val) => setDraft(key, val), { dataset: { step: st.step, cube: c.cube } }),
          alsoTouching(zones, draft[`also${key}`] ?? (c.zones || [])[1] ?? "", (val) => setDraft(`also${key}`, val)),
          h("button", { dataset: { answer: "zone" }, on: { click: () => {
            const z = (drafts.get(id) || {})[key] ?? current;
            const also = (drafts.get(id) || {})[`also${key}`] ?? (c.zones || [])[1] ?? "";
            answer(zoneAnswer({ step: st.step, cube: c.cube }, z, also), `Drop ${st.step + 1}, cube ${c.cube + 1}: ${zname(board, z)}${also && also !== z && z !== "rail" ? ` and ${zname(board, also)}` : ""}`);
          } } }, "Correct"));
      })))));
    return box;
  }
  if (p.kind === "confirm_reading") {
    const asked = p.cube !== undefined && p.cube !== null ? [p.cube] : p.cubes || [];
    // Any cube of the reading may be corrected, not only the one asked about: the asked ones first.
    const others = (p.reading || []).map((c) => c.cube).filter((i) => !asked.includes(i));
    const zones = zoneOptions(board, store.state?.battle);
    box.append(h("div.corrections", [...asked, ...others].map((i) => {
      const read = (p.reading || []).find((c) => c.cube === i);
      const chosen = draft[`zone${i}`] ?? (asked.includes(i) ? p.zone : read?.zone) ?? "rail";
      const img = read?.crop && !(asked.includes(i) && crop) ? h("img.crop", { src: `data:image/jpeg;base64,${read.crop}`, alt: `cube ${i}` }) : null;
      return h(`div.fix${asked.includes(i) ? ".asked" : ""}`, { dataset: { cube: i } }, img, cube(read?.color ?? p.color), ` ${humanize(read?.color ?? p.color ?? "")} cube ${i + 1} is `,
        select(zones, chosen, (val) => setDraft(`zone${i}`, val), { dataset: { cube: i } }),
        alsoTouching(zones, draft[`also${i}`] ?? (read?.zones || [])[1] ?? "", (val) => setDraft(`also${i}`, val)),
        h("button.primary", { dataset: { answer: "zone" }, on: { click: () => {
          const z = (drafts.get(id) || {})[`zone${i}`] ?? chosen;
          const also = (drafts.get(id) || {})[`also${i}`] ?? (read?.zones || [])[1] ?? "";
          answer(zoneAnswer({ cube: i }, z, also), `Cube ${i + 1}: ${zname(board, z)}${also && also !== z && z !== "rail" ? ` and ${zname(board, also)}` : ""}`);
        } } }, "Send"),
        p.cubes ? h("button", { dataset: { answer: "remove" }, on: { click: () => answer({ cube: i, remove: true }, `Cube ${i + 1} is not a battle cube`) } }, "Not a cube") : null);
    })));
    return box;
  }
  if (p.kind === "sensor_disagree") {
    const short = (p.counted ?? p.seen ?? 0) < (p.expected ?? 0);
    box.append(h("div.buttons",
      p.source === "tower" ? h("button", { dataset: { answer: "adjust" }, on: { click: () => answer({ adjust_tower: p.color, delta: short ? 1 : -1 }, "Correct the tower count") } },
        short ? `The tower missed a ${p.color} cube` : `The tower counted a ${p.color} cube too many`) : null,
      short ? h("button", { dataset: { answer: "lost" }, on: { click: () => answer({ cube_lost: p.color }, "A cube was lost") } }, `A ${p.color} cube fell off the board`) : null));
    return box;
  }
  // battle_ability: the cubes on the board by number, colour and zone (the controller lists them).
  const cubeChoices = (Array.isArray(p.cubes) ? p.cubes : []).map((c) => [c.cube, `${humanize(c.color)} cube ${c.cube + 1} · ${zname(board, c.zone)}`]);
  box.append(h("div.abilities", (p.options || []).map((o, oi) => {
    const needs = o.needs || [];
    // The ability in the card's words when the controller named it (controller/words.py), else its effect.
    const named = p.words?.option_labels?.[oi];
    return h("div.ability", { dataset: { ability: o.id } },
      named ? h("span.aname", named)
        : h("span.aname", humanize(o.effect), o.params && Object.keys(o.params).length ? ` (${brief(o.params)})` : ""),
      needs.includes("cube") ? ["  cube ", select(cubeChoices, draft[`${o.id}:cube`] ?? cubeChoices[0]?.[0] ?? 0, (val) => setDraft(`${o.id}:cube`, val))] : null,
      needs.includes("to") ? ["  to ", select(zoneOptions(board, null).filter(([z]) => z !== "rail"), draft[`${o.id}:to`], (val) => setDraft(`${o.id}:to`, val))] : null,
      h("button.primary", { on: { click: () => {
        const d = drafts.get(id) || {};
        const ans = { ability: o.id };
        if (needs.includes("cube")) ans.cube = Number(d[`${o.id}:cube`] ?? cubeChoices[0]?.[0] ?? 0);
        if (needs.includes("to")) ans.to = d[`${o.id}:to`] ?? zoneOptions(board, null)[0][0];
        answer(ans, named ? `Use ${named}` : `Use ${humanize(o.effect)}`);
      } } }, "Use"));
  }), h("button.pass", { dataset: { option: "pass" }, on: { click: () => answer({ pass: true }, "Pass") } }, "Pass")));
  return box;
}
