// The player view (?player=red): chest, dock, ship holds, damage, sails, hand and deck with card levels
// and sleeved advancements; a button per legal action; prompts meant for this player; refusals as the
// rules engine's sentence. Drawn only from this player's private payloads (the broker's ACL keeps the
// others' secrets from ever reaching this page).

import { renderBattle } from "./battle.js";
import { brief, cube, facts, h, humanize, mount, safe } from "./dom.js";

// Per-prompt choices the player has made but not sent yet (survive re-renders).
const drafts = new Map();

export function actionLabel(a) {
  if (a.label || a.text) return a.label || a.text;
  const rest = Object.entries(a).filter(([k]) => k !== "type" && k !== "player");
  return rest.length ? `${humanize(a.type)} · ${rest.map(([k, v]) => `${humanize(k)} ${brief(v)}`).join(", ")}` : humanize(a.type);
}

/** A hold as the engine sends it: [cargo, coins], {cargo, coins}, or text. */
export function holdText(x) {
  if (Array.isArray(x) && x.length === 2 && x.every((n) => typeof n === "number"))
    return x[0] + x[1] === 0 ? "empty" : [x[0] ? `${x[0]} cargo` : null, x[1] ? `${x[1]} coin${x[1] > 1 ? "s" : ""}` : null].filter(Boolean).join(" + ");
  return typeof x === "object" && x !== null ? brief(x) : String(x);
}

function card(c, cards) {
  if (typeof c === "string") c = { id: c, ...((cards && cards[c]) || {}) };
  const level = c.level ?? c.lvl;
  let adv = c.sleeved ?? c.advancement ?? c.advancements ?? c.sleeve ?? c.slots ?? null;
  if (adv && typeof adv === "object" && !Array.isArray(adv)) {
    const filled = Object.entries(adv).filter(([, x]) => x !== null && x !== undefined);
    adv = filled.length ? Object.fromEntries(filled) : null;
  }
  return h("li.card", { dataset: { card: c.id ?? c.name ?? "" } },
    h("span.cname", c.name ?? humanize(c.sailor ?? c.id ?? c.card ?? "card")),
    level !== undefined ? h("span.level", `L${level}`) : null,
    adv ? h("span.sleeve", "✦ ", brief(adv)) : null,
    c.icons || c.effects ? h("small.icons", brief(c.icons ?? c.effects)) : null);
}

function cardList(title, cards, cls, all) {
  if (cards === undefined || cards === null) return null;
  if (typeof cards === "number") return h(`section.${cls}`, h("h2", title), h("p.count", `${cards} cards`));
  const list = Array.isArray(cards) ? cards : Object.entries(cards).map(([id, c]) => (typeof c === "object" ? { id, ...c } : c));
  return h(`section.${cls}`, h("h2", title, h("small", ` (${list.length})`)),
    list.length ? h("ul.cards", list.map((c) => card(c, all))) : h("p.hint", "none"));
}

function holds(ship) {
  const hs = ship?.holds ?? ship?.hull ?? null;
  if (!hs) return null;
  const list = Array.isArray(hs) ? hs : Object.entries(hs).map(([k, x]) => ({ id: k, ...(typeof x === "object" ? x : { content: x }) }));
  return h("ol.holds", list.map((x, i) => h("li.hold", { dataset: { hold: i } }, holdText(x))));
}

function promptBox(p, send) {
  const id = p.id;
  const draft = drafts.get(id) || {};
  const answer = (ans, label) => send({ prompt_id: id, answer: ans }, label);
  const box = h(`section.prompt.k-${safe(p.kind)}`, { dataset: { prompt: id, kind: p.kind } },
    h("h3", p.text || humanize(p.kind)));
  if (p.kind === "confirm_reading") {
    const cubes = p.cubes ?? p.reading ?? [];
    const zonesFor = (c) => c.zones ?? c.choices ?? p.zones ?? p.zone_ids ?? [];
    box.append(h("div.crops", cubes.map((c, i) => {
      const cid = c.id ?? c.cube ?? String(i);
      const chosen = draft[cid] ?? c.zone;
      return h(`figure.crop${chosen !== c.zone ? ".changed" : ""}`, { dataset: { cube: cid } },
        c.crop || c.image || c.jpeg ? h("img", { src: `data:image/jpeg;base64,${c.crop ?? c.image ?? c.jpeg}`, alt: `cube ${cid}` }) : cube(c.color),
        h("figcaption", cube(c.color), ` ${c.color ?? ""} in `,
          h("select", { dataset: { cube: cid }, on: { change: (e) => { drafts.set(id, { ...draft, [cid]: e.target.value }); } } },
            [...new Set([c.zone, ...zonesFor(c)])].map((z) => h("option", { value: z, selected: z === chosen }, String(z))))));
    })));
    const corrections = () => Object.entries(drafts.get(id) || {})
      .filter(([cid, z]) => (cubes.find((c, i) => String(c.id ?? c.cube ?? i) === cid) || {}).zone !== z)
      .map(([cid, z]) => ({ cube: isNaN(+cid) ? cid : +cid, zone: z }));
    box.append(h("div.buttons",
      h("button.primary", { dataset: { answer: "confirm" }, on: { click: () => {
        const fix = corrections();
        drafts.delete(id);
        answer(fix.length ? { confirm: false, corrections: fix } : { confirm: true }, fix.length ? "Correct the reading" : "Confirm the reading");
      } } }, "Send")));
    return box;
  }
  const options = p.options ?? p.choices ?? p.abilities ?? p.cards ?? p.paths ?? [];
  box.append(h("div.buttons", options.map((o, i) => {
    const label = typeof o === "string" ? humanize(o) : o.label ?? o.text ?? o.name ?? humanize(o.effect ?? o.id ?? `option ${i + 1}`);
    const ans = typeof o === "object" && o.answer !== undefined ? o.answer : { choice: typeof o === "string" ? o : o.id ?? i };
    return h("button", { dataset: { option: typeof o === "string" ? o : o.id ?? i }, on: { click: () => answer(ans, label) } }, label);
  }),
  p.can_pass || p.kind === "battle_ability" ? h("button.pass", { dataset: { option: "pass" }, on: { click: () => answer({ pass: true }, "Pass") } }, "Pass") : null));
  return box;
}

export function renderPlayer(root, store, send) {
  const me = store.me;
  if (!me) {
    root.replaceChildren(h("p.hint", `Waiting for ${store.player}'s board…`));
    return;
  }
  const v = me.view || {};
  const ship = v.ship ?? {};
  const chest = v.chest ?? v.treasure_chest ?? v.coins;
  const coinValue = typeof chest === "object" && chest !== null ? chest.coins ?? brief(chest) : chest;
  const legal = me.legal_actions || [];
  const prompts = store.myPrompts?.prompts || [];
  const r = store.lastReply;
  const shown = new Set(["ship", "chest", "treasure_chest", "coins", "hand", "deck", "discard", "played", "cards", "dock", "color", "player", "achievements"]);
  mount(root,
    r ? (r.pending ? h("p.reply.pending#reply", `Sent: ${r.label}…`)
      : r.accepted ? h("p.reply.ok#reply", `Done: ${r.label}`)
        : h("p.reply.refused#reply", { role: "alert", dataset: { kind: r.kind ?? "" } }, r.reason || "The table refused that.")) : null,
    prompts.length ? h("section.prompts", prompts.map((p) => promptBox(p, send))) : null,
    h("section.actions", h("h2", "Your actions"),
      legal.length ? h("div.buttons", legal.map((a, i) => h("button.action", {
        dataset: { action: a.type ?? "", index: i },
        on: { click: () => send({ seq: me.seq, action: a }, actionLabel(a)) },
      }, actionLabel(a)))) : h("p.hint", "Nothing to do right now.")),
    h("div.mine",
      h(`section.chest`, h("h2", "Treasure chest"), h("p.coins#coins", { dataset: { coins: coinValue ?? "" } }, `${coinValue ?? "—"} coins`)),
      h("section.dock", h("h2", "Dock"), h("p", brief(v.dock))),
      h("section.shipboard", h("h2", "Ship"),
        facts({ location: ship.location ?? ship.at, mode: ship.mode ?? (ship.pirate === undefined ? undefined : ship.pirate ? "pirate" : "mercantile"), damage: ship.damage ?? v.damage, sails: ship.sails ?? v.sails,
          cannons: ship.cannons, upgrades: ship.upgrades }, [], "facts"),
        holds(ship),
        facts(ship, ["location", "at", "pirate", "mode", "damage", "sails", "cannons", "upgrades", "holds", "hull"], "facts small"))),
    cardList("Hand", v.hand, "hand", v.cards),
    cardList("Played", v.played, "played", v.cards),
    cardList("Deck", v.deck ?? v.deck_size ?? v.deck_count, "deck", v.cards),
    cardList("Discard", v.discard, "discard", v.cards),
    v.achievements ? h("section.achv", h("h2", "Achievements"), h("p", brief(v.achievements))) : null,
    h("section.more", facts(v, [...shown], "facts small")),
    store.state?.battle ? renderBattle(store.state.battle, store.prompts) : null,
  );
}
