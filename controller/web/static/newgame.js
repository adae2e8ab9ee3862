// The new-game screen (docs/display.md, "The new-game screen"): once a game is over, the controller's public
// `new_game` prompt offers every game the table plays, each with its choices (Dead Reckoning's expansions,
// ticked as the table's config has them). A tap on a game's button starts it with the boxes ticked there.
// Both games' player views draw it (player.js, great_sea.js); no rule lives here.

import { h, safe } from "./dom.js";

// What each box shows, by prompt option and choice: {"<game>/<choice id>": true|false}. Kept while the page
// lives (in-place updates keep the boxes), taken from the prompt's defaults until a person ticks one.
const ticked = new Map();

const keyOf = (o, c) => `${o.id}/${c.key}/${c.id}`;

/** The answer a game's button sends: its own answer plus, per choice key, the ids ticked. */
export function newGameAnswer(o) {
  const answer = { ...(o.answer || { game: o.id }) };
  for (const c of o.choices || []) {
    const on = ticked.has(keyOf(o, c)) ? ticked.get(keyOf(o, c)) : !!c.chosen;
    answer[c.key] ||= [];
    if (on) answer[c.key].push(c.id);
  }
  return answer;
}

/** The button's words: the game's title, and what is ticked ("Dead Reckoning with Letters of Marque"). */
function startLabel(o) {
  const on = (o.choices || []).filter((c) => (ticked.has(keyOf(o, c)) ? ticked.get(keyOf(o, c)) : !!c.chosen));
  return on.length ? `${o.label} with ${on.map((c) => c.label).join(" and ")}` : o.label;
}

/** The prompt's box: a game per row, its button first (data-option = the game's name), its boxes beside. */
export function newGameBox(p, send, rerender) {
  return h(`section.prompt.k-${safe(p.kind)}`, { dataset: { prompt: p.id, kind: p.kind } }, h("h3", p.text),
    h("div.newgames", (p.options || []).map((o) => h("div.newgame", { dataset: { game: o.id } },
      h("button", { dataset: { option: o.id }, title: startLabel(o), on: { click: () => send({ prompt_id: p.id, answer: newGameAnswer(o) }, startLabel(o)) } }, o.label),
      (o.choices || []).length ? h("span.choices", "with: ", (o.choices || []).map((c) => h("label.choice", { dataset: { choice: c.id } },
        h("input", {
          type: "checkbox", name: `${o.id}-${c.id}`,
          checked: ticked.has(keyOf(o, c)) ? ticked.get(keyOf(o, c)) : !!c.chosen,
          on: { change: (e) => { ticked.set(keyOf(o, c), !!e.target.checked); rerender?.(); } },
        }), ` ${c.label}`))) : null))));
}
