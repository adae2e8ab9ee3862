// The battle board, from the battle session's view (rules/battle/session.py `view()`): every cube read by
// the camera drawn in its zone (and on the rails), tallies per side (plunder, damage, strength), exploding
// shots, the drop or re-drop the table owes, whose ability turn it is, then the result. Numbers and the
// winner are the session's; zone kinds and labels come from the board model in /settings.json.

import { cube, h, humanize, mount, safe } from "./dom.js";

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
    h("h3", cube(colour), " ", humanize(key), ": ", humanize(String(name).replace(/^merchant:.*/, "Merchant ship"))),
    h("dl.tally",
      h("dt", "Cubes"), h("dd", { dataset: { tally: "cubes" } }, n("cubes") !== "—" ? n("cubes") : String(setupSide?.cubes ?? "—")),
      h("dt", "Plunder"), h("dd", { dataset: { tally: "plunder" } }, `${n("plunder_cargo")} cargo + ${n("plunder_coins")} coins`),
      h("dt", "Damage"), h("dd", { dataset: { tally: "damage" } }, n("damage")),
      h("dt", "Strength"), h("dd.strength", { dataset: { tally: "strength" } }, n("strength")),
      side.exploding_shots ? [h("dt", "💥 Exploding"), h("dd", { dataset: { tally: "exploding" } }, n("exploding_shots"))] : null),
    (side.abilities_used || []).length ? h("p.used", "Used: ", side.abilities_used.join(", ")) : null,
    winner === key ? h("p.won", "Wins the battle") : null);
}

/** view: the session view (may be null while the engine has set the battle up); setup: rules BattleSetup. */
export function renderBattle(view, setup, publicPrompts = [], board = null, opts = {}) {
  view = view || {};
  setup = setup || {};
  const result = view.result || null;
  const winner = result?.winner ?? null;
  // The controller keeps a resolved battle's final view (phase "resolved") until the next battle or turn.
  opts = { ...opts, over: opts.over || view.phase === "resolved" };
  setup = { location: view.location, ...setup };
  const sessionPrompts = (view.prompts || []).filter((p) => !p.to || p.to === "table");
  const tablePrompts = sessionPrompts.length ? sessionPrompts : publicPrompts.filter((p) => p.battle_id);
  const toAct = view.to_act ? view.sides?.[view.to_act]?.name ?? view.to_act : null;
  return h(`section#battle.battle${opts.over ? ".over" : ""}`, { dataset: { battleId: view.battle_id ?? setup.battle_id ?? "", phase: view.phase ?? "" } },
    h("h2", opts.over ? "Battle over" : "Battle", ` · ${humanize(view.kind ?? setup.kind ?? "")}`, setup.location ? ` at ${setup.location}` : ""),
    view.provisional ? h("p.provisional", "Reading the board… (not yet accepted)") : null,
    opts.over ? null : tablePrompts.map((p) => h(`p.redrop.k-${safe(p.kind)}`, { role: "alert", dataset: { kind: p.kind } }, p.text || humanize(p.kind))),
    toAct && !opts.over ? h("p.toact", `${humanize(toAct)}: Battle ability or pass`) : null,
    h("div.sides", sideBox("attacker", view.sides?.attacker, setup.attacker, winner), sideBox("defender", view.sides?.defender, setup.defender, winner)),
    h("div.board", zoneIds(board, view).map((id) => {
      const z = board?.zones?.[id];
      const counts = view.zones?.[id] || {};
      const total = Object.values(counts).reduce((a, b) => a + (Number(b) || 0), 0);
      return h(`div.zone.k-${safe(z?.kind ?? "unknown")}`, { dataset: { zone: id, count: total } },
        h("span.zlabel", zoneLabel(id, z)), h("span.zcubes", cubesOf(counts)));
    }),
    Object.keys(view.on_rail || {}).length ? h("div.zone.k-rail", { dataset: { zone: "rail" } }, h("span.zlabel", "On a rail"), h("span.zcubes", cubesOf(view.on_rail))) : null),
    result ? h("p.result", { dataset: { winner } }, `${humanize(result.winner_name ?? view.sides?.[winner]?.name ?? winner)} wins${result.tied ? " (tied strength)" : ""}`) : null,
    result ? resultFacts(result) : null,
    view.corrections ? h("p.hint", `${view.corrections} correction(s) applied`) : null,
  );
}

/** The result in words: strength per side, plunder, each Ship's damage after the battle, who sinks. */
function resultFacts(r) {
  const name = (n) => humanize(String(n ?? "?").replace(/^merchant:.*/, "Merchant ship").replace(/^building:.*/, "Buildings"));
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
  const name = (side) => humanize(String(side?.name ?? "?").replace(/^merchant:.*/, "Merchant ship").replace(/^building:.*/, "Buildings"));
  return h("section#battle.battle.over.compact", { dataset: { battleId: lb.setup?.battle_id ?? lb.view?.battle_id ?? "" } },
    h("h2", "Battle over"), h("p.big", `${name(lb.setup?.attacker)} against ${name(lb.setup?.defender)}`,
      lb.setup?.location ? ` at ${lb.setup.location}` : "", ": see the ships' damage and the achievements."));
}

export { mount };
