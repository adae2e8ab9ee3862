// The Great Sea's views (docs/display.md, "The Great Sea"): the map's regions with ships, forts, trade posts,
// temples and foundations; each player's dice and pips, wood and coins, Action Cards and the three tracks;
// a Combat with its stat tracks; the Combat Cards chosen in secret on each tablet and shown when the
// controller reveals them. Kept apart from Dead Reckoning's views: app.js picks these by the payload's game.
// No rule lives here: every button is one of the engine's legal actions, labelled by the controller's words.

import { h, initial, memo, mount, s, safe } from "./dom.js";
import { newGameBox } from "./newgame.js";

const DICE = ["develop", "fortify", "trade", "research", "construct", "mobilise"];
const STATS = ["mobility", "attack", "shields", "flames", "strength"];
const CLASS_LETTER = { small: "S", medium: "M", large: "L" };
const FORT_LETTER = { stronghold: "S", outpost: "O" };
const cap = (c) => (c ? c[0].toUpperCase() + c.slice(1) : "");
// What waits for a second tap: an action that cannot be undone ({text, yes, go}); the region whose Ships
// the player tapped to move (`moveFrom`); several moves ending where they tapped ({region, options}).
const ui = { confirm: null, moveFrom: null, choose: null };
// The memoised map's taps go to the latest render's handler (a kept node keeps its first closure).
const latest = { onRegion: () => {} };

/** The Ship moves an action makes, as [{from, to, cls}] (null: it moves nothing). Mobilise's `move`, the
 * start-of-turn move, a Special Action Card's moves (its `region` alone places a Fort) and a lost Combat's
 * `retreat` (the view's retreating Ships, in order, from the Combat's region to the Shipyards named). */
export function moveLegs(a, v = null) {
  if (a.type === "retreat" && Array.isArray(a.to) && v?.combat?.retreat) {
    const ships = v.combat.retreat.ships || [];
    return a.to.map((to, i) => ({ from: v.combat.region, to, cls: ships[i] }));
  }
  if ((a.type === "move" || a.type === "special_effect") && Array.isArray(a.moves)) {
    return a.moves.filter((m) => Array.isArray(m) && m.length === 3).map(([from, to, cls]) => ({ from, to, cls }));
  }
  if ((a.type === "start_move" || a.type === "special_effect") && a.from && a.to) return [{ from: a.from, to: a.to, cls: a.cls }];
  return null;
}

/** Regions by row and column from their ids ("r0c2"): the engine's map decides the shape. */
function regionGrid(regions) {
  let rows = 0;
  let cols = 0;
  for (const id of Object.keys(regions || {})) {
    const m = /^r(\d+)c(\d+)$/.exec(id);
    if (m) { rows = Math.max(rows, +m[1] + 1); cols = Math.max(cols, +m[2] + 1); }
  }
  return { rows, cols };
}

/** The rocky reef (2-player side) on the border it closes between two regions, from the view's `reef`. */
function reefLines(reef, S, label) {
  return (reef || []).map(([a, b]) => {
    const ma = /^r(\d+)c(\d+)$/.exec(a);
    const mb = /^r(\d+)c(\d+)$/.exec(b);
    if (!ma || !mb) return null;
    const [ra, ca, rb, cb] = [+ma[1], +ma[2], +mb[1], +mb[2]];
    // The shared border: vertical between columns, horizontal between rows; drawn as a jagged line of rocks.
    const vertical = ra === rb;
    const x0 = vertical ? Math.max(ca, cb) * S : Math.min(ca, cb) * S;
    const y0 = vertical ? Math.min(ra, rb) * S : Math.max(ra, rb) * S;
    const pts = [];
    for (let i = 0; i <= 8; i++) {
      const along = (i / 8) * S;
      const off = i % 2 ? 7 : -7;
      pts.push(vertical ? `${x0 + off},${y0 + along}` : `${x0 + along},${y0 + off}`);
    }
    return s("g.reef", { dataset: { reef: `${a}|${b}` } }, s("polyline", { points: pts.join(" ") }), s("title", label || "Reef"));
  });
}

/** The map: one square per region, its pieces drawn in their owners' colours with their initials. `tap`
 * (a player's map): {from: regions whose Ships may move, selected, to: regions the selected Ships may reach,
 * onRegion(region)}: those regions are outlined and a tap on one (or on a Ship in it) calls onRegion. */
export function seaMap(v, w, tap = null) {
  const regions = v.regions || {};
  const { rows, cols } = regionGrid(regions);
  const S = 120;
  const combatAt = v.combat?.region ?? null;
  const cells = [];
  for (const [id, reg] of Object.entries(regions)) {
    const m = /^r(\d+)c(\d+)$/.exec(id);
    if (!m) continue;
    const x = +m[2] * S;
    const y = +m[1] * S;
    const name = w?.regions?.[id]?.name ?? id;
    const role = !tap ? "" : tap.selected === id ? "selected" : tap.to?.has(id) ? "dest" : tap.from?.has(id) ? "source" : "";
    const parts = [
      s(`rect.cell${reg.home ? `.home.c-${safe(reg.home)}` : ""}${combatAt === id ? ".combat-here" : ""}`, { x: x + 2, y: y + 2, width: S - 4, height: S - 4, rx: 6 }),
      role ? s(`rect.tapmark.${role}`, { x: x + 6, y: y + 6, width: S - 12, height: S - 12, rx: 5 }) : null,
      s("text.rname", { x: x + 8, y: y + 20 }, name),
    ];
    if (reg.temple) parts.push(s("text.temple", { x: x + S - 8, y: y + 20, "text-anchor": "end" }, `Temple ${reg.temple}`));
    if (reg.home) parts.push(s("text.homelabel", { x: x + S - 8, y: y + 20, "text-anchor": "end" }, `${cap(reg.home)} home`));
    if (reg.post) {
      const [owner, exhausted] = reg.post;
      parts.push(s(`g.post.c-${safe(owner)}${exhausted ? ".exhausted" : ""}`, { dataset: { owner, exhausted: exhausted ? "1" : "0" } },
        s("circle", { cx: x + 18, cy: y + 40, r: 10 }),
        s("text.pin", { x: x + 18, y: y + 44, "text-anchor": "middle" }, initial(owner)),
        s("title", `${cap(owner)}'s Trade Post${exhausted ? " (exhausted)" : ""}`)));
    }
    (reg.forts || []).forEach(([owner, kind], i) => {
      parts.push(s(`g.fort.c-${safe(owner)}`, { dataset: { owner, fort: kind } },
        s("rect", { x: x + 36 + i * 24, y: y + 30, width: 20, height: 20, rx: 2 }),
        s("text.pin", { x: x + 46 + i * 24, y: y + 45, "text-anchor": "middle" }, `${initial(owner)}${FORT_LETTER[kind] ?? ""}`),
        s("title", `${cap(owner)}'s ${w?.forts?.[kind] ?? kind}`)));
    });
    (reg.ships || []).forEach((ship, i) => {
      const sx = x + 8 + (i % 4) * 27;
      const sy = y + 60 + Math.floor(i / 4) * 26;
      const wide = { small: 18, medium: 22, large: 26 }[ship.cls] ?? 20;
      parts.push(s(`g.ship.c-${safe(ship.owner)}${ship.damaged ? ".damaged" : ""}`, { dataset: { owner: ship.owner, cls: ship.cls } },
        s("path", { d: `M${sx} ${sy} h${wide} l-4 12 h${-(wide - 8)} z` }),
        s("text.pin", { x: sx + wide / 2, y: sy + 10, "text-anchor": "middle" }, `${initial(ship.owner)}${CLASS_LETTER[ship.cls] ?? ""}`),
        ship.damaged ? s("text.dmg", { x: sx + wide, y: sy + 2 }, "✖") : null,
        s("title", `${cap(ship.owner)}'s ${w?.classes?.[ship.cls] ?? ship.cls}${ship.damaged ? " (damaged)" : ""}`)));
    });
    if ((reg.foundations || []).length) {
      parts.push(s("text.found", { x: x + 8, y: y + S - 8 }, `Foundation: ${reg.foundations.map((f) => cap(f === "pip" ? "pip" : f)).join(", ")}`));
    }
    const hint = { source: "tap to move Ships from here", selected: "tap again to cancel", dest: "tap to move here" }[role];
    if (hint) parts.push(s("title", `${w?.regions?.[id]?.label ?? name}: ${hint}`));
    cells.push(s(`g.region${role ? `.${role}` : ""}`, {
      dataset: { region: id, ...(role ? { tap: role } : {}) },
      on: role ? { click: () => tap.onRegion(id) } : undefined,
    }, parts));
  }
  return s("svg.seamap", { viewBox: `-8 -8 ${cols * S + 16} ${rows * S + 16}`, role: "img", "aria-label": "The Great Sea map" },
    cells, reefLines(v.reef, S, w?.reef));
}

/** A player's three markers on one track: the Temple Marker moving down towards Combat and Trade. */
function tracksSvg(p, color) {
  const pts = p.points || {};
  const top = Math.max(12, p.temple_space ?? 0, pts.combat ?? 0, pts.trade ?? 0);
  const W = 22;
  const cells = [];
  for (let i = 0; i <= top; i++) cells.push(s("rect.tcell", { x: i * W, y: 0, width: W - 2, height: 18 }), s("text.tnum", { x: i * W + 10, y: 13, "text-anchor": "middle" }, String(i)));
  const marker = (value, row, label, cls) => s(`g.marker.${cls}`, { dataset: { track: cls, value } },
    s("rect", { x: value * W, y: 20 + row * 16, width: W - 2, height: 14, rx: 3 }),
    s("text.pin", { x: value * W + 10, y: 31 + row * 16, "text-anchor": "middle" }, label));
  return s(`svg.tracks.c-${safe(color)}`, { viewBox: `0 0 ${(top + 1) * W} 70`, role: "img", "aria-label": `${cap(color)}'s tracks` },
    cells,
    marker(p.temple_space ?? 0, 0, "T", "temple"),
    marker(pts.combat ?? 0, 1, "C", "combat"),
    marker(pts.trade ?? 0, 2, "$", "trade"));
}

function diceRow(p, w) {
  return h("div.dice", DICE.map((d) => h("span.die", { dataset: { die: d, value: p.die_values?.[d] ?? "" } },
    h("span.dname", w?.dice?.[d] ?? cap(d)), h("span.pips", String(p.die_values?.[d] ?? "—")))));
}

/** A player's Fort grids (a Stronghold's and an Outpost's), each space in words as the engine reads it:
 * the starting Health, the printed Foundation modifier, the tile on top and how high tiles stack. Drawn only
 * once a tile lies on one (an untouched grid is the printed board). */
function fortGrids(color, w) {
  const grids = w?.fort_grids?.[color] || {};
  const used = Object.entries(grids).filter(([, rows]) => rows.some((row) => row.some((t) => t && !t.startsWith("Printed") && !t.startsWith("Starting"))));
  if (!used.length) return null;
  return h("div.fortgrids", used.map(([cls, rows]) => h("table.fortgrid", { dataset: { fort: cls } },
    h("caption", `${w?.forts?.[cls] ?? cap(cls)} grid`),
    h("tbody", rows.map((row, r) => h("tr", row.map((t, c) => h(`td${t ? "" : ".empty"}`, { dataset: { row: r, col: c } }, t || "—"))))))));
}

/** A player's public board: dice, resources, Action Cards, pieces, tiles and tracks. */
function boardBox(color, p, v, w, mine) {
  const used = v.turn_player === color ? v.turn?.used || [] : [];
  const cards = w?.action_cards?.[color] || {};
  const tiles = w?.tiles || {};
  const shipTiles = Object.entries(p.ship_tiles || {}).flatMap(([cls, parts]) => Object.entries(parts || {})
    .filter(([, t]) => t).map(([, t]) => `${w?.classes?.[cls] ?? cls}: ${tiles[t.tile] ?? "tile"}${t.flipped ? " (flipped)" : ""}`));
  const fortTiles = Object.entries(p.fort_tiles || {}).flatMap(([f, list]) => (list || []).map((t) => `${w?.forts?.[f] ?? f}: ${tiles[t] ?? "tile"}`));
  return h(`section.seaboard.c-${safe(color)}${v.active === color ? ".active" : ""}`, { dataset: { player: color } },
    h("h2", h(`span.who.c-${safe(color)}`, `${initial(color)} · ${cap(color)}`), mine ? " · your board" : "", v.active === color ? " · to act" : ""),
    diceRow(p, w),
    h("p.res", h("span.sea-wood", { dataset: { wood: p.wood } }, `${p.wood} Wood`), " · ",
      h("span.sea-coins", { dataset: { coins: p.coins } }, `${p.coins} Coins`), " · ",
      `${p.neutral_workers} Neutral Workers · ${p.hand_size} Combat Cards in hand`),
    h("ol.actioncards", Object.entries(cards).map(([n, c]) => h(`li${used.includes(+n) ? ".used" : ""}`, { dataset: { card: n }, title: c.text || "" },
      `${n}. ${c.name}`, used.includes(+n) ? " (Worker placed)" : ""))),
    h("p.pieces.hint", `Left: ${p.ships_left?.small ?? 0} Small, ${p.ships_left?.medium ?? 0} Medium, ${p.ships_left?.large ?? 0} Large Ships · `
      + `${p.forts_left?.stronghold ?? 0} Strongholds, ${p.forts_left?.outpost ?? 0} Outposts · ${p.trade_posts_left} Trade Posts`),
    shipTiles.length || fortTiles.length ? h("p.tiles", "Upgrades: ", [...shipTiles, ...fortTiles].join(" · ")) : null,
    (p.combat_cards_lost || []).length ? h("p.lost", "Combat Cards lost: ", p.combat_cards_lost.map((c) => tiles[`card:${c}`] ?? "a card").join(", ")) : null,
    fortGrids(color, w),
    h("div.trackbox", h("span.hint", `Temple space ${p.temple_space} · Combat ${p.points?.combat ?? 0} · Trade ${p.points?.trade ?? 0}`),
      memo(`sea-tracks-${color}`, [p.points, p.temple_space], () => tracksSvg(p, color))));
}

/** The Combat: who fights where, each side's units and its five stat tracks, the cards once revealed. */
function combatBox(v, w, me, myChosen) {
  const c = v.combat;
  if (!c) return null;
  const cw = w?.combat || {};
  const sides = [c.attacker, c.defender];
  const max = Math.max(6, ...sides.flatMap((p) => STATS.map((k) => Math.abs(c.stats?.[p]?.[k] ?? 0))));
  const statRow = (p, k) => {
    const n = c.stats?.[p]?.[k] ?? 0;
    return h("div.sea-statrow", { dataset: { stat: k, value: n } }, h("span.sname", w?.stats?.[k] ?? cap(k)),
      h("span.sea-bar", h(`span.sea-fill.c-${safe(p)}`, { style: { width: `${(Math.max(0, n) / max) * 100}%` } })), h("span.sval", String(n)));
  };
  const chosenText = (p) => {
    const ch = c.chosen?.[p];
    if (cw.cards?.[p]) return `played ${cw.cards[p]}`;
    if (p === me && myChosen) return `you chose ${myChosen.name} (secret until both have chosen)`;
    return ch ? "has chosen a Combat Card" : c.stage === "choose" ? "is choosing a Combat Card…" : "";
  };
  return h("section.combat#combat", { dataset: { stage: c.stage, region: c.region } },
    h("h2", "Combat"), h("p.big", cw.title ?? "Combat"), h("p.hint", cw.stage ?? c.stage),
    h("div.sides", sides.map((p) => h(`div.side.c-${safe(p)}`, { dataset: { side: p } },
      h("h3", h(`span.who.c-${safe(p)}`, cap(p)), p === c.attacker ? " (attacker)" : " (defender)", c.winner === p ? " ★ wins" : ""),
      h("p.units", (cw.units?.[p] || []).join(", ") || "no units"),
      h("p.chosen", { dataset: { chosen: c.chosen?.[p] ? "1" : "0" } }, chosenText(p)),
      cw.card_texts?.[p] ? h("p.cardtext.hint", cw.card_texts[p]) : null,
      h("div.sea-stats", STATS.map((k) => statRow(p, k)))))),
    cw.retreat ? h("p.retreat.big", { dataset: { player: c.retreat?.player ?? "" } }, cw.retreat) : null);
}

function scoreBox(sc) {
  if (!sc) return null;
  return h("section.scores#scores", { dataset: { key: "scores", winner: sc.winner ?? "" } },
    h("h2", "Game over"), h("p.verdict.big", sc.text),
    h("table.scoretable", h("thead", h("tr", h("th", "Player"), h("th", "Temple space"), h("th", "Temple points"), h("th", "Combat"), h("th", "Trade"))),
      h("tbody", sc.rows.map((r) => h(`tr${r.player === sc.winner ? ".winner" : ""}`, { dataset: { player: r.player } },
        h("th", h(`span.who.c-${safe(r.player)}`, r.name), r.player === sc.winner ? " ★ winner" : ""),
        h("td", String(r.temple_space)), h("td", String(r.temple)), h("td", String(r.combat)), h("td", String(r.trade)))))));
}

function upgradeBox(v, w) {
  const grid = v.upgrade_grid || {};
  const rows = Object.entries(grid);
  if (!rows.length) return null;
  return h("section.upgrades", h("h2", "Upgrade Tiles"), h("table.upgrades", h("tbody", rows.map(([row, piles]) => h("tr", { dataset: { row } },
    piles.map((pl) => h("td", { dataset: { pile: pl.pile } }, pl.top ? `${w?.tiles?.[pl.top] ?? "tile"} · ${pl.cost} Coins · ${pl.count} left` : "empty")))))));
}

function replyLine(r) {
  if (!r) return null;
  if (r.pending) return h("p.reply.pending#reply", { dataset: { request: r.request_id ?? "" } }, `Sent: ${r.label}…`);
  if (r.accepted) return h("p.reply.ok#reply", { dataset: { request: r.request_id ?? "", seq: r.seq ?? "" } }, `Done: ${r.label}`);
  return h("p.reply.refused#reply", { role: "alert", dataset: { kind: r.kind ?? "", request: r.request_id ?? "", seq: r.seq ?? "" } }, r.reason || "The table refused that.");
}

/** The player view of The Great Sea (?player=red). */
export function renderSeaPlayer(root, store, send) {
  const me = store.me;
  if (!me) {
    mount(root, h("p.hint", `Waiting for ${store.player}'s board…`));
    return;
  }
  const rerender = () => renderSeaPlayer(root, store, send);
  const v = me.view || {};
  const mw = me.words || {};
  const pw = store.state?.words || {};
  const player = store.player;
  const legal = (me.legal_actions || []).map((a, i) => [a, i, mw.actions?.[i] || null]);
  const label = (a, wd) => wd?.label ?? cap(String(a.type).replace(/_/g, " "));
  const tap = (a, wd) => {
    const go = () => send({ seq: me.seq, action: a }, label(a, wd));
    if (wd?.confirm) {
      ui.confirm = { text: wd.confirm, yes: `Yes: ${label(a, wd)}`, go };
      rerender();
    } else go();
  };
  if (ui.confirm && !legal.length) ui.confirm = null;
  // Moving on the map: tap a region holding Ships that may move (or a Ship in it), then a region they may
  // reach (outlined); several legal moves ending there (one Ship or several) are offered by their words.
  const moving = legal.map((item) => [item, moveLegs(item[0], v)]).filter(([, legs]) => legs && legs.length);
  const from = new Set(moving.flatMap(([, legs]) => legs.map((l) => l.from)));
  if (ui.moveFrom && !from.has(ui.moveFrom)) ui.moveFrom = null;
  const to = new Set(ui.moveFrom ? moving.flatMap(([, legs]) => legs.filter((l) => l.from === ui.moveFrom).map((l) => l.to)) : []);
  if (ui.choose && !legal.some((item) => ui.choose.options.some((o) => o[1] === item[1] && o[0] === item[0]))) ui.choose = null;
  latest.onRegion = (r) => {
    if (ui.moveFrom && to.has(r)) {
      const list = moving.filter(([, legs]) => legs.some((l) => l.from === ui.moveFrom && l.to === r))
        .map(([item, legs]) => [item, legs.length]).sort((x, y) => x[1] - y[1]).map(([item]) => item);
      ui.moveFrom = null;
      if (list.length === 1) tap(list[0][0], list[0][2]);
      else { ui.choose = { region: r, options: list }; rerender(); }
    } else if (r === ui.moveFrom) { ui.moveFrom = null; rerender(); }
    else if (from.has(r)) { ui.moveFrom = r; ui.choose = null; rerender(); }
  };
  const cards = legal.filter(([a]) => a.type === "play_combat_card");
  const others = legal.filter(([a]) => a.type !== "play_combat_card");
  const groups = new Map();
  for (const item of others) (groups.get(item[0].type) || groups.set(item[0].type, []).get(item[0].type)).push(item);
  const button = ([a, i, wd], extra = null) => h(`button.action${wd?.confirm ? ".asks" : ""}${a.type === "play_combat_card" ? ".combat-card" : ""}`, {
    dataset: { action: a.type, index: i }, on: { click: () => tap(a, wd) },
  }, label(a, wd), extra);
  const hand = (v.you?.hand || []);
  // The new-game screen, and the camera's questions: public checks and this player's own proposals.
  const camera = (p) => String(p.kind).startsWith("sea_camera");
  const prompts = [...(store.prompts?.prompts || []).filter((p) => p.kind === "new_game" || camera(p)),
    ...(store.myPrompts?.prompts || []).filter(camera)];
  const over = v.phase === "over";
  const c = ui.confirm;
  mount(root,
    replyLine(store.lastReply),
    over ? scoreBox(pw.scores) : null,
    c ? h("section.confirm#confirm", { role: "alertdialog" }, h("p.big", c.text), h("div.buttons",
      h("button.primary.confirm-yes", { on: { click: () => { ui.confirm = null; c.go(); } } }, c.yes),
      h("button.confirm-no", { on: { click: () => { ui.confirm = null; rerender(); } } }, "Cancel"))) : null,
    prompts.length ? h("section.prompts", prompts.map((p) => newGameBox(p, send, rerender))) : null,
    ui.choose ? h("section.prompt.choose-way#choose", { dataset: { kind: "choose_move", key: "choose", region: ui.choose.region } },
      h("h3", ui.choose.options[0]?.[0]?.type === "retreat" ? `How do your Ships retreat to ${pw.regions?.[ui.choose.region]?.label ?? "there"}?`
        : `Which Ships move to ${pw.regions?.[ui.choose.region]?.label ?? "there"}?`),
      h("div.buttons", ui.choose.options.map((item) => h("button.way-option", {
        dataset: { action: item[0].type, index: item[1] }, on: { click: () => { ui.choose = null; tap(item[0], item[2]); } },
      }, label(item[0], item[2])))),
      h("button.confirm-no", { on: { click: () => { ui.choose = null; rerender(); } } }, "Cancel")) : null,
    h("section.actions", { dataset: { key: "actions" } },
      h("h2", legal.length ? "Your turn" : "Your actions"),
      cards.length ? h("div.choose-card", h("p.big", "Choose your Combat Card in secret: the table reveals both when both have chosen."),
        h("div.buttons", { dataset: { group: "play_combat_card" } }, cards.map((item) => {
          const cw = mw.hand?.[item[0].card];
          return button(item, cw ? h("small.cardtext", ` — ${cw.text}`) : null);
        }))) : null,
      others.length ? [...groups.entries()].map(([type, list]) => h("div.buttons", { dataset: { group: type } }, list.map((item) => button(item))))
        : cards.length ? null : h("p.hint", over ? "The game is over." : "Nothing to do right now.")),
    combatBox(v, pw, player, mw.chosen),
    h("section.map", { dataset: { key: "map" } },
      h("h2", "The Great Sea", from.size ? h("small.maphint", ui.moveFrom
        ? ` · tap a dashed region to move there (tap ${pw.regions?.[ui.moveFrom]?.name ?? "it"} again to cancel)`
        : " · tap your Ships to move them") : null),
      memo("sea-map", [v.regions, v.combat?.region, pw.regions, v.reef, [...from], ui.moveFrom, [...to]],
        () => seaMap(v, pw, { from, selected: ui.moveFrom, to, onRegion: (r) => latest.onRegion(r) }))),
    v.p?.[player] ? boardBox(player, v.p[player], v, pw, true) : null,
    hand.length ? h("section.hand", h("h2", `Your Combat Cards (${hand.length})`), h("ul.cards", hand.map((id) => h("li.card", { dataset: { card: id } },
      h("span.cname", mw.hand?.[id]?.name ?? "a Combat Card"), h("small.cardtext", ` ${mw.hand?.[id]?.text ?? ""}`))))) : null,
    h("div.others", (v.players || []).filter((x) => x !== player).map((x) => boardBox(x, v.p[x], v, pw, false))),
    upgradeBox(v, pw),
  );
}

/** Whether the map camera is live (the controller's retained device `map_camera`); without one, play by hand. */
function cameraLine(cam) {
  const state = cam?.state === "online" ? "live" : cam ? "waiting" : "off";
  const text = { live: "Camera: live — each tablet offers the moves it sees, to confirm",
    waiting: "Camera: not read the map yet — play by hand", off: "Camera: off — play by hand" }[state];
  return h(`p.camera.${state}#camera`, { dataset: { camera: state } }, text);
}

/** The table view of The Great Sea (?view=table). */
export function renderSeaTable(root, store) {
  const st = store.state;
  if (!st) {
    mount(root, h("p.hint", "Waiting for the table's state…"));
    return;
  }
  const v = st.view || {};
  const w = st.words || {};
  const over = v.phase === "over";
  const waiting = w.waiting || [];
  const prompts = store.prompts?.prompts || [];
  mount(root,
    over ? scoreBox(w.scores) : null,
    cameraLine(store.devices?.map_camera),
    prompts.length ? h("section.prompts", prompts.map((p) => h("p.prompt", { dataset: { kind: p.kind } }, p.text))) : null,
    waiting.length ? h("p.waiting", "Waiting for: ", waiting.join(", ")) : null,
    h("div.tablelayout.sea-layout",
      h("div.sea", h("section.map", memo("sea-map", [v.regions, v.combat?.region, w.regions, v.reef], () => seaMap(v, w))), upgradeBox(v, w)),
      h("div.side",
        combatBox(v, w, null, null),
        h("div.players", (v.players || []).map((c) => boardBox(c, v.p[c], v, w, false))),
        store.events.length ? h("section.events", h("h2", "Latest"), h("ol", store.events.slice(0, 6).map((e) => h("li", e.text ?? cap(String(e.type)))))) : null)),
  );
}
