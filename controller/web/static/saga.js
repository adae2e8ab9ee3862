// Deep Legends' saga on a player's tablet (games with the option deep_legends): the saga's actions the
// engine offers, in the controller's words (controller/deep_legends_words.py), gathered per card and per
// trade; the trade offered to this player to accept or decline; the saga items each player owns; the saga
// cards lying on the boards; the Book entries read aloud this game. Every button sends the engine's own
// action object unchanged (player.js's tap): nothing here decides what is legal.

import { h } from "./dom.js";

// The saga's actions drawn here instead of among the plain buttons. A tablet never sends trade_saga_item
// (a trade agreed at once): it offers the trade (offer_saga_trade) and the other tablet accepts or declines.
export const SAGA_DRAWN = ["explore_encounter", "encounter_fortune", "offer_saga_trade", "answer_saga_trade", "trade_saga_item"];

// Which card's or trade's choices are open (the tap that opened them), across re-renders.
const open = { group: null };

function once() {
  if (!document.getElementById("saga-css")) {
    document.head.append(h("link#saga-css", { rel: "stylesheet", href: "/saga.css" }));
  }
}

const cap = (c) => (c ? c[0].toUpperCase() + c.slice(1) : "?");

/** The saga panel (null in a game without the saga). `legal`: [action, index, words] of this player. */
export function sagaPanel(v, pw, player, legal, tap, labelOf, rerender) {
  const s = pw?.saga;
  if (!s) return null;
  once();
  const mine = legal.filter(([a]) => SAGA_DRAWN.includes(a.type));
  const groups = new Map();
  for (const [a, i, w] of mine) {
    if (a.type === "trade_saga_item" || a.type === "answer_saga_trade") continue;
    const key = w?.group ?? `${a.type}:${i}`;
    (groups.get(key) || groups.set(key, []).get(key)).push([a, i, w]);
  }
  if (open.group && !groups.has(open.group)) open.group = null;
  const answers = mine.filter(([a]) => a.type === "answer_saga_trade");
  const offer = s.offer;
  const button = ([a, i, w], text) => h("button.action.saga-action", {
    dataset: { action: a.type, index: i, group: w?.group ?? "" },
    on: { click: () => { open.group = null; tap(a, w); } },
  }, text ?? labelOf(a, w));
  const groupButtons = [...groups.entries()].map(([key, list]) => {
    const w0 = list[0][2];
    const title = w0?.title ?? labelOf(list[0][0], w0);
    if (list.length === 1 && !key.startsWith("trade:")) return h("div.saga-group", button(list[0], title));
    const isOpen = open.group === key;
    return h(`div.saga-group${isOpen ? ".open" : ""}`, { dataset: { sagaGroup: key } },
      h("button.saga-open", {
        dataset: { sagaGroup: key },
        "aria-expanded": isOpen ? "true" : "false",
        on: { click: () => { open.group = isOpen ? null : key; rerender(); } },
      }, title),
      isOpen ? h("div.saga-answers",
        w0?.text ? h("p.hint", w0.text) : null,
        list.map((x) => button(x, x[2]?.answer ? cap(x[2].answer) : undefined))) : null);
  });
  const owners = Object.entries(s.items || {});
  const boards = Object.entries(s.board || {});
  return h("section.saga", { dataset: { key: "saga" } },
    h("h2", "Deep Legends"),
    answers.length ? h("section.prompt.saga-offer", { dataset: { kind: "saga_trade" } },
      h("h3", offer?.text ?? "A saga item trade is offered to you"),
      h("div.buttons", answers.map((x) => button(x)))) : null,
    offer && offer.by === player ? h("p.hint.saga-waiting", `Waiting for ${cap(offer.to)} to accept or decline: ${offer.text}`) : null,
    (s.may_take || []).map((t) => h("p.hint", t)),
    groupButtons.length ? h("div.saga-actions", groupButtons) : null,
    h("h3", "Saga items"),
    h("ul.saga-items", owners.map(([col, items]) => h("li", { dataset: { owner: col }, style: { "--c": `var(--${col}, #888)` } },
      h("strong", col === player ? "You" : cap(col)), ": ",
      items.length ? items.map((it) => h("span.saga-item", { dataset: { item: it.id }, title: it.text }, it.name,
        it.text ? h("small", ` — ${it.text}`) : null)) : h("span.hint", "none")))),
    boards.length ? [h("h3", "Saga cards on the boards"), h("ul.saga-board", boards.map(([sq, cards]) =>
      h("li", { dataset: { square: sq } }, `${pw?.squares?.[sq]?.label ?? sq}: `,
        cards.map((c) => h("span.saga-card", `${c.name} (${c.kind})`, c.text ? h("small", ` — ${c.text}`) : null)))))] : null,
    s.book?.length ? [h("h3", "Read aloud this game"), h("ol.saga-book", s.book.map((b) =>
      h("li", { dataset: { entry: b.entry } }, h("strong", `${b.text}: `), b.story ? `“${b.story}”` : "(the entry's text is in your Encounter Book)")))] : null,
  );
}
