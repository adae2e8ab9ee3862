// The player view (?player=red): Treasure chest, Dock, Ship (holds, damage, sails, mode, upgrades), hand and
// deck with card levels and sleeved Advancements; a button per legal action (exactly the engine's list);
// prompts for this player (Battle abilities in turn, level up, ship path) and the table's prompts a player
// may answer (confirm or correct a camera reading, a tower/camera disagreement); refusals as the engine's
// sentence. Drawn only from this player's payloads: the broker's ACL keeps the others' secrets away.

import { battlePrompt, renderBattle } from "./battle.js";
import { LOM_PROMPTED, lomPanel, lomPrompts } from "./letters_of_marque.js";
import { SAGA_DRAWN, sagaPanel } from "./saga.js";
import { brief, cube, facts, h, humanize, memo, mount, safe } from "./dom.js";
import { oceanSvg, shipBoardSvg, shipsOf } from "./ocean.js";
import { achievementsBox, scoreTable } from "./table.js";
import { newGameBox } from "./newgame.js";

// Choices made in a prompt but not sent yet, by prompt id (they survive re-renders).
const drafts = new Map();
// What waits for a second tap: {key, text, yes, send} (a confirmation) or {square, options} (which way).
const ui = { confirm: null, choose: null };

// The memoised ocean grid's tap goes to the latest render's handler (a kept node keeps its first closure).
const latest = { onTap: () => {} };

// Actions the table itself sends (the battle driver submits the refereed record); a tablet never taps them.
const TABLE_SENT = ["resolve_battle"];

// Chance outcomes a person reads off the table and reports here where nothing else does (an Ocean board with
// no camera live, a card turned up, who goes first, a Sailor draw): asked as a prompt whose options are the
// engine's own legal actions, headed by what the table waits for in the game's words.
const CHANCE_ASKED = ["reveal_board", "draw_advancement", "choose_first_player", "draw_sailors", "deal_bonus"];

function chanceBoxes(legal, v, pw, tap, labelOf, mw, rerender) {
  return CHANCE_ASKED.flatMap((type) => {
    const list = legal.filter(([a]) => a.type === type);
    if (!list.length) return [];
    const at = (v.waiting_for || []).findIndex((r) => r.kind === type && (!r.square || r.square === list[0][0].square));
    const what = at >= 0 && pw?.waiting?.[at] ? `The table waits for ${pw.waiting[at]}` : humanize(type);
    const box = h(`section.prompt.chance.k-${safe(type)}`, { dataset: { prompt: `chance-${type}`, kind: type } },
      h("h3", what, h("small", type === "reveal_board" ? " · no camera sees it: tap the board turned up" : " · tap what it is")));
    const req = at >= 0 ? v.waiting_for[at] : {};
    const deck = v.you?.deck;
    if (type === "draw_sailors" && Array.isArray(deck) && req.count && deck.length >= req.count) {
      box.append(sailorPicker(list[0][0], list[0][2], deck, req.count, mw, tap, rerender));
      box.dataset.count = String(req.count);
      return [box];
    }
    box.append(h("div.buttons", list.map(([a, i, w]) => h("button.chance", { dataset: { option: i, action: a.type }, on: { click: () => tap(a, w) } }, labelOf(a, w)))));
    return [box];
  });
}

/** The Sailor cards a player drew from their own deck, tapped one by one (the engine offers one sample draw;
 * the cards drawn at the table are whichever came up): "These are my cards" once `count` are picked. */
function sailorPicker(a, w, deck, count, mw, tap, rerender) {
  const id = "chance-draw_sailors";
  const picked = drafts.get(id)?.cards ?? [];
  const toggle = (card) => {
    const now = picked.includes(card) ? picked.filter((c) => c !== card) : picked.length < count ? [...picked, card] : picked;
    drafts.set(id, { cards: now });
    rerender();
  };
  const name = (card) => mw?.cards?.[card]?.title ?? humanize(card);
  const done = picked.length === count;
  return h("div.picker",
    h("div.buttons", deck.map((card) => h(`button.pick${picked.includes(card) ? ".picked" : ""}`,
      { dataset: { card }, "aria-pressed": String(picked.includes(card)), on: { click: () => toggle(card) } },
      `${picked.includes(card) ? "✓ " : ""}${name(card)}`))),
    h("div.buttons", h("button.primary.send-draw", {
      disabled: !done,
      on: { click: () => { drafts.delete(id); tap({ ...a, cards: picked }, { ...(w || {}), label: `I drew ${picked.map(name).join(", ")}` }); } },
    }, done ? "These are the cards I drew" : `Tap the ${count} cards you drew (${picked.length} so far)`)));
}

const clip = (t) => (t.length > 48 ? `${t.slice(0, 47)}…` : t);

/** A button's text: the action's type and parameters; a card id is named as the player sees the card. */
export function actionLabel(a, cards = {}) {
  if (a.label || a.text) return a.label || a.text;
  const named = (id) => (cards[id] ? `${humanize(cards[id].sailor ?? id)} L${cards[id].level} (${id})` : id);
  const bits = [];
  for (const [k, v] of Object.entries(a)) {
    if (k === "type" || k === "player" || v === false || v === null || v === undefined) continue;
    if (typeof v === "object" && Object.keys(v).length === 0) continue;
    if (v === true) bits.push(humanize(k).toLowerCase());
    else if (k === "card" && typeof v === "string") bits.push(named(v));
    else if (k === "square" || k === "to" || k === "ability") bits.push(clip(Array.isArray(v) ? v.join(" → ") : brief(v)));
    else bits.push(clip(`${humanize(k).toLowerCase()} ${Array.isArray(v) ? v.map(brief).join(" → ") : brief(v)}`));
  }
  return [humanize(a.type), ...bits].join(" · ");
}

function cardItem(id, c, w) {
  c = c || {};
  if (w) {
    return h("li.card", { dataset: { card: id } },
      h("span.cname", w.name), h("span.level", `level ${w.level}`),
      w.icons_text ? h("span.icons", w.icons_text) : null,
      w.abilities.length ? h("ul.abilities", w.abilities.map((t) => h("li", t))) : h("span.noab", "no ability"),
      w.sleeved.map((a) => h("span.sleeve", `✦ ${a.name} (${a.slot} slot)`, a.icons ? ` · ${a.icons}` : "",
        [...a.abilities, ...a.scoring].map((t) => h("span.adv-text", `: ${t}`)))),
      w.next_level ? h("small.next", `Next ${w.next_level}`) : null);
  }
  const sleeves = Object.entries(c.slots || {}).filter(([, x]) => x);
  return h("li.card", { dataset: { card: id } },
    h("span.cname", humanize(c.sailor ?? c.name ?? id)),
    c.level !== undefined ? h("span.level", `L${c.level}`) : null,
    sleeves.map(([slot, adv]) => h("span.sleeve", `✦ ${slot}: ${typeof adv === "object" ? adv.name ?? adv.id : adv}`)));
}

function cardSection(title, cards, cls, words) {
  if (cards === undefined || cards === null) return null;
  const entries0 = Array.isArray(cards) ? cards : Object.keys(cards);
  const known = Object.fromEntries(entries0.map((id) => [id, words?.cards?.[id] ?? null]));
  return memo(`cards-${cls}`, [title, cards, known], () => buildCardSection(title, cards, cls, words));
}

function buildCardSection(title, cards, cls, words) {
  const entries = Array.isArray(cards) ? cards.map((id) => [id, null]) : Object.entries(cards);
  const named = words?.cards || {};
  return h(`section.${cls}`, h("h2", title, h("small", ` (${entries.length})`)),
    entries.length ? h("ul.cards", entries.map(([id, c]) => (c || named[id] ? cardItem(id, c, named[id]) : h("li.card.plain", humanize(id))))) : h("p.hint", "none"));
}

function holdList(holds) {
  if (!Array.isArray(holds)) return null;
  return h("ul.holds", holds.map((x, i) => {
    const cargo = Array.isArray(x) ? x[0] : x.cargo ?? 0;
    const coins = Array.isArray(x) ? x[1] : x.coins ?? 0;
    return h("li.hold", { dataset: { hold: i } }, `Hold ${i + 1}: `, cargo + coins === 0 ? "empty" : [cargo ? `${cargo} Cargo` : null, coins ? `${coins} Coins` : null].filter(Boolean).join(" + "));
  }));
}

function promptBox(p, store, send, mine) {
  const battle = battlePrompt(p, store, send, mine); if (battle) return battle; // battle prompts: battle.js
  const id = p.id;
  const draft = drafts.get(id) || {};
  const setDraft = (k, val) => drafts.set(id, { ...(drafts.get(id) || {}), [k]: val });
  const answer = (ans, label) => {
    drafts.delete(id);
    send({ prompt_id: id, answer: ans }, label);
  };
  const box = h(`section.prompt.k-${safe(p.kind)}`, { dataset: { prompt: id, kind: p.kind } }, h("h3", p.text || humanize(p.kind)));
  const crop = p.crop ?? p.image ?? (p.crops && p.cube !== undefined ? p.crops[p.cube] : null);
  if (crop) box.append(h("img.crop", { src: String(crop).startsWith("data:") ? crop : `data:image/jpeg;base64,${crop}`, alt: `cube ${p.cube ?? ""}` }));

  if (p.kind === "sensor_disagree" && p.question && Array.isArray(p.options)) {
    // Ship fusion (camera x zone sensors): where this ship stands (options: squares), or which ship stands on
    // this square (options: ships, or "none"); answered as {"ship", "square"} (docs/mqtt.md).
    box.append(h("div.buttons", p.options.map((o, i) => {
      const ans = p.ship ? { ship: p.ship, square: o } : { ship: o, square: p.square };
      const label = p.ship ? `On ${sqName(store, o)}` : o === "none" ? "Not a ship" : `The ${o} ship`;
      return h("button", { dataset: { option: i }, on: { click: () => answer(ans, label) } }, label);
    })));
    return box;
  }
  if (p.kind === "ship_path" && Array.isArray(p.options) && p.options.length && p.options.every(Array.isArray)) {
    // Which way did the ship sail: each way drawn on the ocean grid, with the Garrisons it passes.
    const squares = Object.keys(store.state?.view?.grid || {});
    box.append(h("div.ways", p.options.map((way, i) => {
      const crossing = (p.crossings || [])[i] || [];
      const label = p.words?.option_labels?.[i] ?? way.join(" → ");
      return h("button.way", { dataset: { option: i }, on: { click: () => answer({ path: way }, label) } },
        wayMap(way, crossing, squares),
        h("span.wlabel", label),
        h("small.crossing", crossing.length ? `passes the Garrison on ${crossing.map((sq) => sqName(store, sq)).join(", ")}` : "passes no Garrison"));
    })));
    return box;
  }
  if (p.kind === "level_up" && Array.isArray(p.cards) && mine) {
    box.append(h("div.buttons", p.cards.map((c, i) => {
      const label = p.words?.card_labels?.[i] ?? humanize(c);
      return h("button", { dataset: { option: i }, on: { click: () => answer({ card: c }, `Level up ${label}`) } }, `Level up ${label}`);
    })));
    return box;
  }
  const options = p.options ?? p.choices ?? p.paths ?? [];
  if (options.length) box.append(h("div.buttons", options.map((o, i) => {
    // An option is a string (a square, a ship), a list (a path) or an object with label/answer.
    const plain = typeof o !== "object" || o === null || Array.isArray(o);
    const label = p.words?.option_labels?.[i] ? p.words.option_labels[i] : Array.isArray(o) ? o.join(" → ") : plain ? humanize(String(o))
      : o.label ?? o.text ?? o.name ?? (Array.isArray(o.path) ? o.path.join(" → ") : humanize(o.id ?? `option ${i + 1}`));
    const ans = plain ? { choice: o } : o.answer !== undefined ? o.answer : { choice: o.id ?? i };
    return h("button", { dataset: { option: plain ? i : o.id ?? i }, on: { click: () => answer(ans, label) } }, label);
  })));
  else if (!mine) box.classList.add("info");
  return box;
}

/** A small map of the ocean grid (rows of squares "rRcC", the Harbor beside row 1) with a way's squares
 * numbered in sailing order and the Garrison squares it passes marked. */
function wayMap(way, crossing, squares) {
  let rows = 0;
  let cols = 0;
  for (const sq of [...squares, ...way]) {
    const m = /^r(\d+)c(\d+)$/.exec(sq);
    if (m) { rows = Math.max(rows, Number(m[1])); cols = Math.max(cols, Number(m[2])); }
  }
  const cell = (sq) => {
    const at = way.indexOf(sq);
    const cls = [at === 0 ? "start" : at === way.length - 1 ? "end" : at > 0 ? "on" : "", crossing.includes(sq) ? "hazard" : ""]
      .filter(Boolean).map((c) => `.${c}`).join("");
    return h(`span.wcell${cls}`, { dataset: { square: sq } }, at >= 0 ? String(at) : crossing.includes(sq) ? "⚔" : "");
  };
  const grid = [h("span.wcell.harbor", { dataset: { square: "harbor" }, style: { gridColumn: `1 / span ${cols || 1}` } },
    way.includes("harbor") ? `Harbor ${way.indexOf("harbor")}` : "Harbor")];
  for (let r = 1; r <= rows; r++) for (let c = 1; c <= cols; c++) grid.push(cell(`r${r}c${c}`));
  return h("span.waymap", { style: { gridTemplateColumns: `repeat(${cols || 1}, 1.8em)` } }, grid);
}

// new_game: the new-game screen once a game is over (any seated player chooses the next game).
const ANSWERABLE_PUBLIC = ["confirm_reading", "sensor_disagree", "new_game"];

/** A square's name from the controller's words ("Island 9 (row 1, column 2)"), else its id. */
function sqName(store, sq) {
  return store.state?.words?.squares?.[sq]?.label ?? (sq === "harbor" ? "the Harbor" : sq);
}

// Without the controller's words (an older controller) ending the turn still asks first.
const FALLBACK_CONFIRM = { end_turn: "End your turn? It cannot be undone." };

function confirmBox(send) {
  const c = ui.confirm;
  if (!c) return null;
  return h("section.confirm#confirm", { role: "alertdialog", dataset: { key: "confirm" } },
    h("p.big", c.text),
    h("div.buttons",
      h("button.primary.confirm-yes", { on: { click: () => { ui.confirm = null; c.go(); } } }, c.yes),
      h("button.confirm-no", { on: { click: () => { ui.confirm = null; c.rerender(); } } }, "Cancel")));
}

function chooserBox(store) {
  const c = ui.choose;
  if (!c) return null;
  return h("section.prompt.choose-way#choose", { dataset: { kind: "choose_way", key: "choose" } },
    h("h3", `Which way to ${sqName(store, c.square)}?`),
    h("div.buttons", c.options.map((o) => h("button.way-option", { on: { click: () => { ui.choose = null; o.go(); } } }, o.label))),
    h("button.confirm-no", { on: { click: () => { ui.choose = null; c.rerender(); } } }, "Cancel"));
}

export function renderPlayer(root, store, send) {
  const me = store.me;
  if (!me) {
    mount(root, h("p.hint", `Waiting for ${store.player}'s board…`));
    return;
  }
  const rerender = () => renderPlayer(root, store, send);
  const v = me.view || {};
  const you = v.you || {};
  const board = v.p?.[store.player] || {};
  const ship = board.ship || {};
  const mw = me.words || null;
  const pw = store.state?.words || null;
  const all = me.legal_actions || [];
  const legal = all.map((a, i) => [a, i, mw?.actions?.[i] || null]).filter(([a]) => !TABLE_SENT.includes(a.type));
  const prompts = [
    ...(store.myPrompts?.prompts || []).map((p) => [p, true]),
    ...(store.prompts?.prompts || []).filter((p) => ANSWERABLE_PUBLIC.includes(p.kind)).map((p) => [p, false]),
  ];
  const cardsKnown = { ...(board.discard || {}), ...(board.played || {}), ...(you.hand || {}) };
  const labelOf = (a, w) => w?.label ?? actionLabel(a, cardsKnown);
  // A tap: at once, or after a confirmation where the action cannot be undone.
  const tap = (a, w) => {
    const label = labelOf(a, w);
    const go = () => send({ seq: me.seq, action: a }, label);
    const text = w ? w.confirm : FALLBACK_CONFIRM[a.type];
    if (text) {
      ui.confirm = { text, yes: `Yes: ${label}`, go, rerender };
      rerender();
    } else go();
  };
  const groups = new Map();
  // The expansion's claims and chance reports are drawn as prompts (letters_of_marque.js), not plain buttons.
  const lomAsked = [...chanceBoxes(legal, v, pw, tap, labelOf, mw, rerender), ...lomPrompts(legal, v, pw, store.player, tap, labelOf)];
  for (const [a, i, w] of legal) {
    if (LOM_PROMPTED.includes(a.type) || CHANCE_ASKED.includes(a.type)) continue;
    if (pw?.saga && SAGA_DRAWN.includes(a.type)) continue; // Deep Legends: drawn by saga.js
    (groups.get(a.type) || groups.set(a.type, []).get(a.type)).push([a, i, w]);
  }
  // The squares the engine lets this ship sail to now, each with its move action(s).
  const moves = new Map();
  for (const [a, , w] of legal) if (a.type === "move" && Array.isArray(a.path) && a.path.length) {
    const sq = w?.square ?? a.path[a.path.length - 1];
    (moves.get(sq) || moves.set(sq, []).get(sq)).push([a, w]);
  }
  const onTap = (sq) => {
    const list = moves.get(sq) || [];
    if (list.length === 1) tap(list[0][0], list[0][1]);
    else if (list.length > 1) {
      ui.choose = { square: sq, rerender, options: list.map(([a, w]) => ({ label: labelOf(a, w), go: () => tap(a, w) })) };
      rerender();
    }
  };
  latest.onTap = onTap;
  if (ui.confirm && !legal.length) ui.confirm = null;
  const r = store.lastReply;
  const battle = store.state?.battle || v.battle;
  const over = v.phase === "over";
  const undo = mw?.undo;
  mount(root,
    // data-request / data-seq: which tap this answers and the state it left (a script waits for them).
    r ? (r.pending ? h("p.reply.pending#reply", { dataset: { request: r.request_id ?? "" } }, `Sent: ${r.label}…`)
      : r.accepted ? h("p.reply.ok#reply", { dataset: { request: r.request_id ?? "", seq: r.seq ?? "" } }, `Done: ${r.label}`)
        : h("p.reply.refused#reply", { role: "alert", dataset: { kind: r.kind ?? "", request: r.request_id ?? "", seq: r.seq ?? "" } },
          r.reason || "The table refused that.")) : null,
    over && pw?.scores ? scoreTable(pw.scores) : null,
    confirmBox(send),
    chooserBox(store),
    prompts.length || lomAsked.length ? h("section.prompts", prompts.map(([p, mine]) => (p.kind === "new_game" ? newGameBox(p, send, rerender) : promptBox(p, store, send, mine))), lomAsked) : null,
    h("section.actions", { dataset: { key: "actions" } }, h("h2", v.active === store.player ? "Your turn" : "Your actions"),
      undo ? h("div.buttons.undo-row", h("button.undo#undo", { on: { click: () => send({ seq: me.seq, action: undo.action }, undo.label) } }, `↶ ${undo.label}`)) : null,
      groups.size ? [...groups.entries()].map(([type, list]) => h("div.buttons", { dataset: { group: type } },
        list.map(([a, i, w]) => h(`button.action${w?.confirm || (!w && FALLBACK_CONFIRM[a.type]) ? ".asks" : ""}`, {
          dataset: { action: a.type ?? "", index: i },
          on: { click: () => tap(a, w) },
        }, labelOf(a, w))))) : h("p.hint", over ? "The game is over." : "Nothing to do right now.")),
    sagaPanel(v, pw, store.player, legal, tap, labelOf, rerender), // Deep Legends (null without the saga)
    battle ? renderBattle(store.state?.battle, v.battle, [], store.board) : null,
    h("section.map", { dataset: { key: "map" } }, h("h2", "Ocean", moves.size ? h("small", " · tap a dashed square to sail there") : null),
      memo("ocean", [v.grid, shipsOf(v), v.battle?.location, pw?.squares, [...moves.keys()]],
        () => oceanSvg(v, pw, { moves, onTap: (sq) => latest.onTap(sq), me: store.player, battleAt: v.battle?.location ?? null }))),
    h("div.mine",
      h("section.chest", h("h2", "Treasure chest"),
        h("p.coins#coins", { dataset: { coins: you.chest ?? "" } }, `${you.chest ?? "—"} coins`),
        you.bonus_token ? h("p", "Bonus token: ", mw?.bonus?.length ? mw.bonus.join(" + ") : brief(you.bonus_token)) : null),
      h("section.dock", h("h2", "Dock"), h("p.big", `${board.dock_cargo ?? "—"} Cargo`))),
    h("section.shipboard", h("h2", "Ship", ship.at !== undefined ? h("small", ` · ${sqName(store, ship.at)}`) : null),
      memo("shipboard", [ship, pw?.ship, pw?.upgrades], () => shipBoardSvg(ship, store.player, pw)),
      you.sails_if_set_now !== undefined && you.sails_if_set_now !== null ? h("p.hint", `Setting Sails now gives ${you.sails_if_set_now} Sails.`) : null,
      holdList(ship.holds)),
    lomPanel(v, pw, store.player), // Letters of Marque (null without the expansion)
    cardSection(`Hand (limit ${you.hand_limit ?? "?"})${board.may_level_up ? " · you may level up a card" : ""}`, you.hand, "hand", mw),
    cardSection("Played", board.played, "played", mw),
    cardSection("Deck (order unknown)", you.deck, "deck", mw),
    cardSection("Discard", board.discard, "discard", mw),
    you.set_aside?.length ? h("section.setaside", h("h2", "Set-aside Advancements"), h("ul.cards", you.set_aside.map((a, i) => {
      const w = mw?.set_aside?.[i];
      return h("li.card", w ? `${w.name} (${w.slot} slot)${w.icons ? ` · ${w.icons}` : ""}${[...w.abilities, ...w.scoring].map((t) => `: ${t}`).join("")}` : `${a.name ?? a.id} (${a.slot ?? ""})`);
    }))) : null,
    h("section.more", h("p", `${board.cubes ?? "—"} cubes in your supply · ${board.achievement_markers_left ?? "—"} Achievement markers left`)),
    pw?.achievements ? memo("achievements", [v.achievements, v.achievement_cubes, v.p, pw.achievements], () => achievementsBox(v, pw)) : null,
  );
}
