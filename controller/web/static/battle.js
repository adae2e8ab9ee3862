// The battle board drawn from the battle session's view (rules/battle/session.py `view()`):
// every cube the camera read, drawn in its zone; tallies per side; exploding shots; re-drop prompts; result.
// Tallies and the winner are the engine's numbers; this file only lays them out.

import { brief, cube, h, humanize, safe } from "./dom.js";

const KIND_ORDER = ["exploding", "plunder", "damage", "strength", "miss"];

export function zoneLabel(id, z) {
  z = z || {};
  switch (z.kind) {
    case "exploding": return "Exploding shot";
    case "plunder": {
      const bits = [];
      if (z.cargo) bits.push(`${z.cargo} cargo`);
      if (z.coins) bits.push(`${z.coins} coin${z.coins > 1 ? "s" : ""}`);
      return `Plunder ${bits.join(" + ") || ""}`.trim();
    }
    case "damage": return "Damage";
    case "strength": return `Strength ${z.strength ?? ""}`.trim();
    case "miss": return "Miss";
    default: return humanize(z.label || id);
  }
}

/** zone id -> list of cube colours, from whichever reading form the session sends. */
export function cubesByZone(b) {
  const out = {};
  const add = (zone, colour, n = 1, data = null) => {
    (out[zone] ||= []);
    for (let i = 0; i < n; i++) out[zone].push({ color: colour, ...(data || {}) });
  };
  const reading = b.cubes ?? b.reading ?? b.board_reading ?? b.current ?? b.drops_read ?? null;
  const list = Array.isArray(reading) ? reading : Array.isArray(reading?.cubes) ? reading.cubes : null;
  if (list) {
    for (const c of list) add(c.zone ?? c.zone_id ?? "?", c.color ?? c.colour ?? c.side ?? "?", c.count ?? 1, c);
  } else if (reading && typeof reading === "object") {
    for (const [zone, v] of Object.entries(reading)) {
      if (Array.isArray(v)) v.forEach((c) => add(zone, typeof c === "string" ? c : c.color ?? c.colour));
      else if (v && typeof v === "object") for (const [col, n] of Object.entries(v)) add(zone, col, Number(n) || 0);
      else if (typeof v === "number") add(zone, "?", v);
    }
  }
  return out;
}

function sideBox(name, side, tally, isWinner) {
  side = side || {};
  tally = tally || {};
  const who = side.name ?? side.player ?? name;
  const colour = side.cube_color ?? side.color ?? (side.is_player ? who : "black");
  const num = (...keys) => {
    for (const k of keys) if (tally[k] !== undefined && tally[k] !== null) return tally[k];
    return null;
  };
  const rows = [
    ["Plunder", [num("plunder_cargo", "cargo") !== null ? `${num("plunder_cargo", "cargo")} cargo` : null,
      num("plunder_coins", "coins") !== null ? `${num("plunder_coins", "coins")} coins` : null].filter(Boolean).join(" + ") || (num("plunder") ?? "—")],
    ["Damage dealt", num("damage_dealt", "damage") ?? "—"],
    ["Strength", num("strength") ?? "—"],
  ];
  return h(`section.side.side-${safe(name)}${isWinner ? ".winner" : ""}`, { dataset: { side: name } },
    h("h3", cube(colour), " ", humanize(name), ": ", String(who)),
    h("dl.tally", rows.map(([k, v]) => [h("dt", k), h("dd", { dataset: { tally: safe(k) } }, String(v))])),
    isWinner ? h("p.won", "Wins the battle") : null);
}

export function renderBattle(b, publicPrompts) {
  if (!b) return null;
  const setup = b.setup || {};
  const board = b.board || b.battle_board || {};
  const zones = board.zones || b.zones || {};
  const byZone = cubesByZone(b);
  const outcome = b.outcome || b.result || null;
  const tallies = b.tallies || b.totals || b.score || (outcome ? { attacker: outcome.attacker, defender: outcome.defender } : {});
  const winner = outcome?.winner ?? b.winner ?? null;
  const ids = Object.keys(zones);
  for (const z of Object.keys(byZone)) if (!ids.includes(z)) ids.push(z); // a zone the layout did not name
  ids.sort((a, b2) => rank(zones[a]) - rank(zones[b2]));
  const step = b.step ?? b.phase ?? b.state ?? null;
  const exploding = b.exploding ?? b.exploding_shots ?? null;
  const redrop = [...(b.prompts || []), ...((publicPrompts && publicPrompts.prompts) || [])].filter(
    (p) => /drop|redrop|mismatch|disagree|jam/i.test(`${p.kind} ${p.text}`));
  return h("section#battle.battle", { dataset: { battleId: b.battle_id ?? setup.battle_id ?? "" } },
    h("h2", "Battle", (b.kind ?? setup.kind) ? ` · ${humanize(b.kind ?? setup.kind)}` : "",
      (b.location ?? setup.location) ? ` at ${b.location ?? setup.location}` : ""),
    step ? h("p.step", { dataset: { step: String(step) } }, humanize(step)) : null,
    exploding ? h("p.exploding", "💥 Exploding shot: ", brief(exploding)) : null,
    redrop.map((p) => h("p.redrop", { role: "alert" }, p.text || humanize(p.kind))),
    h("div.sides",
      sideBox("attacker", b.attacker ?? setup.attacker, tallies.attacker, winner === "attacker"),
      sideBox("defender", b.defender ?? setup.defender, tallies.defender, winner === "defender")),
    h("div.board", ids.map((id) => {
      const z = zones[id] || {};
      const cubes = byZone[id] || [];
      return h(`div.zone.k-${safe(z.kind)}`, { dataset: { zone: id, count: cubes.length } },
        h("span.zlabel", zoneLabel(id, z)),
        h("span.zcubes", cubes.map((c) => cube(c.color, c.corrected ? ".corrected" : ""))));
    })),
    winner ? h("p.result", { dataset: { winner } }, `${humanize(winner)} wins`,
      outcome?.sunk || outcome?.sinks ? ` · sunk: ${brief(outcome.sunk || outcome.sinks)}` : "") : null,
  );
}

function rank(z) {
  const i = KIND_ORDER.indexOf(z?.kind);
  return i < 0 ? KIND_ORDER.length : i;
}
