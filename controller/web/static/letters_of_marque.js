// Letters of Marque on the tablets (docs/letters-of-marque.md): both Empire tracks (each player's current and
// peak Favor, the Favor Reward tokens, the Letter of Marque and rival icons), each player's Favor, Letters,
// bounty and Prime Cargo (on the Ship, in Harbor, in the water and on islands: face-down tokens are counted,
// never named), and the expansion's choices as prompts: a claim to settle, and, where no camera reads them,
// what a turned-over Prime Cargo token or the Saga die shows. Drawn only from the engine's view
// (`view.expansions["letters-of-marque"]`) and the controller's words (`words.lom`); no rule lives here.

import { h, humanize, initial, safe } from "./dom.js";

const KEY = "letters-of-marque";

// The expansion's own stylesheet, added once (the shared style.css stays the base game's).
if (typeof document !== "undefined" && !document.getElementById("lom-css")) {
  document.head.append(h("link#lom-css", { rel: "stylesheet", href: "/letters_of_marque.css" }));
}

/** The expansion's part of a view, or null when the game is played without it. */
export function lomOf(v) {
  return v?.expansions?.[KEY] ?? null;
}

const cap = (c) => (c ? c[0].toUpperCase() + c.slice(1) : "");

function typeName(t, w) {
  return w?.types?.[t?.type] ?? humanize(t?.type ?? "Prime Cargo");
}

/** A face-up Prime Cargo token: its type, its discard reward in the title. */
function tokenChip(t, w) {
  return h(`span.prime.t-${safe(t.type)}`, { dataset: { prime: t.type }, title: `discard: ${w?.prime_rewards?.[t.reward] ?? humanize(t.reward)}` },
    typeName(t, w));
}

/** Face-down tokens: how many, never which. */
function hiddenChip(n) {
  return n ? h("span.prime.hidden", { dataset: { hidden: n }, title: "Undiscovered: face down, unknown to everyone" }, `${n} face down`) : null;
}

function tokens(list, w) {
  return list.length ? list.map((t) => tokenChip(t, w)) : h("span.none", "none");
}

/** One Empire track: a cell per space from the left end to the right end, each with what lies on it. */
function empireTrack(id, e, x, w, players) {
  const ew = w?.empires?.[id] ?? {};
  const tr = e.track || {};
  const cells = [];
  for (let space = tr.left; space <= tr.right; space++) {
    const reward = e.rewards?.[String(space)];
    const here = players.map((c) => [c, x.players?.[c]?.favour?.[id]]).filter(([, f]) => f);
    const current = here.filter(([, f]) => f.current === space).map(([c]) => c);
    const peak = here.filter(([, f]) => f.peak === space).map(([c]) => c);
    const cls = [space === 0 ? ".start" : "", space < 0 ? ".behind" : "", space === tr.left || space === tr.right ? ".end" : ""].join("");
    cells.push(h(`div.space${cls}`, { dataset: { space } },
      h("span.num", space === 0 ? "start" : String(space)),
      space === tr.letter_space ? h("span.icon.letter", { title: "Letter of Marque icon: take a Letter of Marque when your peak reaches it" }, "✉") : null,
      (tr.rival_spaces || []).includes(space) ? h("span.icon.rival", { title: "rival icon: the other players lose Favor when your peak reaches it" }, "⚔") : null,
      reward ? h("span.reward", { dataset: { reward: "1" }, title: "Favor Reward token" }, w?.rewards?.[reward] ?? "Favor Reward") : null,
      current.map((c) => h(`span.marker.cur.c-${safe(c)}`, { dataset: { current: c }, title: `${cap(c)}: current Favor` }, initial(c))),
      peak.map((c) => h(`span.marker.peak.c-${safe(c)}`, { dataset: { peak: c }, title: `${cap(c)}: peak Favor` }, `${initial(c)}▲`))));
  }
  const free = (e.letters_available || []).map((l) => w?.letters?.[l]?.short ?? "Letter of Marque");
  return h("div.empire", { dataset: { empire: id } },
    h("h3", ew.name ?? e.name ?? "Empire", h("small", ` · wants ${ew.wants ?? (e.wants || []).map(humanize).join(" or ")}`)),
    h("div.track", { style: { gridTemplateColumns: `repeat(${tr.right - tr.left + 1}, minmax(2.6em, 1fr))` } }, cells),
    h("p.letters-free", "Letters of Marque on the board: ", free.length ? free.join(", ") : "none"));
}

/** A player's line: Favor per Empire, Letters held, bounty, Prime Cargo on the Ship and in Harbor. */
function playerLine(c, px, x, w, me) {
  const fav = Object.entries(px.favour || {}).map(([e, f]) => h("span.fav", { dataset: { empire: e } },
    `${w?.empires?.[e]?.name ?? x.empires?.[e]?.name ?? "Empire"}: ${f.current}`, h("small", ` (peak ${f.peak})`)));
  const letters = (px.letters || []).map((l) => h("span.letter", { title: w?.letters?.[l]?.icons || "" }, `✉ ${w?.letters?.[l]?.short ?? "Letter of Marque"}`));
  const bounty = (px.bounty || []).map((e) => h("span.badge.bounty", `☠ bounty (${w?.empires?.[e]?.name ?? "Empire"})`));
  const holds = (px.ship || []).map((hold, i) => h("span.hold", i ? " · " : "", `hold ${i + 1}: `, tokens(hold, w)));
  const owed = w?.claims?.[c] || [];
  return h(`div.lomplayer.c-${safe(c)}${c === me ? ".mine" : ""}`, { dataset: { player: c } },
    h("b", h(`span.marker.c-${safe(c)}`, initial(c)), ` ${c === me ? "You" : cap(c)}`), " ",
    h("span.favs", fav), letters.length ? h("span.letters", letters) : null, bounty,
    h("div.cargo-line", "Ship: ", holds, " · Harbor: ", tokens(px.harbor || [], w)),
    owed.length ? h("div.owed.small", "To settle on their turn: ", owed.join("; ")) : null);
}

/** Prime Cargo out on the ocean, by board: face-down counts and face-up tokens in the water and on islands. */
function oceanCargo(x, w, squares) {
  const pc = x.prime_cargo || {};
  const rows = Object.entries(pc.boards || {}).map(([sq, parts]) => h("li", { dataset: { square: sq } },
    h("span.where", squares?.[sq]?.label ?? "a board"), ": ",
    ["water", "island"].filter((p) => parts[p]).map((p) => h(`span.part.${p}`, { dataset: { part: p } },
      p === "water" ? "in the water " : "on the island ", hiddenChip(parts[p].undiscovered), (parts[p].discovered || []).map((t) => tokenChip(t, w)))),
    x.bolstered_outposts?.[sq] ? h("span.badge", `Bolstered Outpost (${cap(x.bolstered_outposts[sq])})`) : null));
  const reminders = (pc.reminders || []).length;
  return h("div.oceancargo",
    h("h3", "Prime Cargo at sea"),
    rows.length ? h("ul", rows) : h("p.hint", "none out at sea"),
    h("p.small", `${pc.supply ?? "?"} face down in the supply`, reminders ? ` · ${reminders} unexplored boards with a Prime Cargo reminder` : "",
      " · discard: ", (pc.discard || []).length ? pc.discard.map((t) => tokenChip(t, w)) : "none"));
}

/** The expansion's panel (table view and every player's view); null when the game is played without it. */
export function lomPanel(v, words, me = null) {
  const x = lomOf(v);
  if (!x) return null;
  const w = words?.lom ?? null;
  const players = (Array.isArray(v.players) ? v.players.map((p) => (typeof p === "string" ? p : p?.color)) : Object.keys(x.players || {})).filter(Boolean);
  const sensors = w?.sensors;
  return h("section.lom", { dataset: { key: "lom" } },
    h("h2", "Letters of Marque"),
    Object.entries(x.empires || {}).map(([id, e]) => empireTrack(id, e, x, w, players)),
    h("div.lomplayers", players.filter((c) => x.players?.[c]).map((c) => playerLine(c, x.players[c], x, w, me))),
    oceanCargo(x, w, words?.squares),
    sensors ? h("p.sensors.small", { dataset: { key: "lom-sensors" } }, `Prime Cargo tokens: ${sensors.prime_cargo} · Saga die: ${sensors.saga_die}`) : null);
}

// Legal actions the expansion draws as prompts rather than plain buttons.
const CLAIMS = ["claim", "decline"];
const CHANCE = ["flip_prime_cargo", "saga_die", "place_favour_rewards"];
export const LOM_PROMPTED = [...CLAIMS, ...CHANCE];

const CHANCE_TEXT = {
  flip_prime_cargo: "Turn the Prime Cargo token over and tap what it shows",
  saga_die: "Read the Saga die in the tower and tap its face",
  place_favour_rewards: "Favor Reward tokens for both Empire boards",
};

/** The expansion's prompts from this player's legal actions ([action, index, words]): one per claim owed
 * (its options and Decline), one per chance outcome the table waits for a person to report. `tap(a, w)` is
 * the page's own tap (it asks first where the words say so). */
export function lomPrompts(legal, v, words, me, tap, label) {
  const x = lomOf(v);
  const out = [];
  const claims = new Map();
  for (const [a, i, w] of legal) {
    if (CLAIMS.includes(a.type)) (claims.get(a.index) || claims.set(a.index, []).get(a.index)).push([a, i, w]);
  }
  const texts = words?.lom?.claims?.[me] || [];
  for (const [index, list] of claims) {
    const what = texts[index] ?? humanize(x?.players?.[me]?.claims?.[index]?.kind ?? "claim");
    out.push(h("section.prompt.lomclaim", { dataset: { prompt: `lom-claim-${index}`, kind: "lom_claim" } },
      h("h3", what),
      h("div.buttons", list.map(([a, i, w]) => h(`button${a.type === "decline" ? ".decline.asks" : ".claim"}`,
        { dataset: { option: i, action: a.type }, on: { click: () => tap(a, w) } }, label(a, w))))));
  }
  for (const type of CHANCE) {
    const list = legal.filter(([a]) => a.type === type);
    if (!list.length) continue;
    const req = (v.waiting_for || []).find((r) => r.kind === type) || {};
    const where = req.square ? ` (${words?.squares?.[req.square]?.label ?? "the board"}, ${req.part === "island" ? "on the island" : "in the water"})` : "";
    const who = req.player ? ` · ${cap(req.player)}'s` : "";
    out.push(h(`section.prompt.lomchance.k-${safe(type)}`, { dataset: { prompt: `lom-${type}`, kind: type } },
      h("h3", CHANCE_TEXT[type] + where, who ? h("small", `${who} ${type === "saga_die" ? "Hallowed Gun" : "discovery"}`) : null),
      h("div.buttons", list.map(([a, i, w]) => h("button.chance", { dataset: { option: i, action: a.type }, on: { click: () => tap(a, w) } }, label(a, w))))));
  }
  return out;
}
