// The Deep Legends campaign on the tablets, from the retained table/<tid>/campaign (format
// smart-table/campaign-view@1, built by controller/campaign.py campaign_view; docs/deep-legends.md).
// The table view shows the standings; a player's tablet shows the Campaign Log of the log seated at its
// colour. Nothing is computed here: every number is the payload's (the rules engine scored it).

import { h, memo, mount } from "./dom.js";

const ACHIEVEMENT_WORDS = {
  legendary: "Legendary", expert_sailors: "Expert Sailors", terror_of_the_sea: "Terror of the Sea",
  builder: "Builder", capitalist: "Capitalist", settler: "Settler", elite_vessel: "Elite Vessel",
  explorer: "Explorer", master_merchant: "Master Merchant",
};
const SAILOR_WORDS = {
  captain: "Captain", purser: "Purser", "first-mate": "First Mate", bosun: "Bosun", buccaneer: "Buccaneer",
  gunner: "Gunners", "deck-hand": "Deck Hands", "crew-1": "Crew", "crew-2": "Crew",
};
// The score lines of the back of the Campaign Log, with the letters the rulebook's example uses.
const SCORE_LINES = [
  ["saga", "Campaign points from Saga (F)"],
  ["start_penalty", "Saga items begun with (−2 each)"],
  ["placement", "Placement in the games (G)"],
  ["achievement_rows", "Achievement rows completed (H)"],
  ["achievement_columns", "Achievement columns completed (I)"],
  ["sailor_columns", "Sailor columns completed (J)"],
  ["game6", "Entire Game 6 Score (K)"],
  ["total", "Total campaign score (L)"],
];

/** Draw the campaign into `root` (its own panel below the game): nothing when no campaign is published. */
export function renderCampaign(root, store) {
  const c = store.campaign;
  if (!c || c.format !== "smart-table/campaign-view@1") {
    mount(root);
    root.hidden = true;
    return;
  }
  root.hidden = false;
  // Built again only when the campaign or the seat changes, so a folded panel stays folded.
  mount(root, memo("campaign", [c.version, c.ts, store.player], () => (store.player ? playerLog(c, store.player) : standings(c))));
}

function title(c) {
  const state = c.standings.finished ? "final" : `after game ${c.games_played} of ${c.games}`;
  return `Campaign “${c.name}” · ${state}`;
}

function standings(c) {
  const rows = c.standings.order.map((k, i) => {
    const log = c.logs[k];
    const colour = Object.keys(c.seats).find((col) => c.seats[col] === k);
    const won = c.standings.winners.includes(k);
    return h(`tr${won ? ".winner" : ""}`, { dataset: { log: k } },
      h("td", String(i + 1)),
      h("td", colour ? h(`span.who.c-${colour}`, `${log.memoir}`) : log.memoir, log.active ? "" : " (dropped)", log.ai ? " (AI)" : ""),
      h("td.num", String(log.placement.reduce((a, b) => a + b, 0))),
      h("td.num", String(log.score.saga)),
      h("td.num", String(log.score.achievement_rows + log.score.achievement_columns)),
      h("td.num", String(log.score.sailor_columns)),
      h("td.num", String(log.score.game6)),
      h("td.num.total", String(log.score.total)),
      h("td", won ? "★ wins the campaign" : ""));
  });
  const due = c.due.tenacity.map((k) => c.logs[k]?.memoir ?? k);
  return h("details.campaign#campaign-standings", { open: true },
    h("summary", h("h2", title(c))),
    h("table.standings",
      h("thead", h("tr", ["#", "Voyages of", "Placing", "Saga", "Achievements", "Sailors", "Game 6", "Total", ""].map((t) => h("th", t)))),
      h("tbody", rows)),
    c.standings.teams ? h("p.teams", Object.entries(c.standings.teams).map(([t, n]) => `${t === "ai" ? "AI team" : "Players"}: ${n}`).join(" · ")) : null,
    due.length ? h("p.due", `Tenacity Bonus to choose before the next game: ${due.join(", ")}.`) : null,
    c.note ? h("p.due.note", c.note) : null); // a finished game the controller could not record (a tie to settle)
}

function playerLog(c, colour) {
  const k = c.seats[colour];
  const log = k ? c.logs[k] : null;
  if (!log) {
    return h("details.campaign#campaign-log", { open: true }, h("summary", h("h2", title(c))),
      h("p.hint", `No Campaign Log sits at ${colour} in this campaign.`));
  }
  const achievements = Object.entries(log.achievements).map(([a, n]) => {
    const struck = log.struck.includes(a);
    return h(`tr${struck ? ".struck" : ""}`, { dataset: { achievement: a } },
      h("td", ACHIEVEMENT_WORDS[a] || a),
      h("td.marks", struck ? "struck out" : `${"■".repeat(n)}${"□".repeat(4 - n)}`),
      h("td.num", `${n}/4`));
  });
  const sailors = Object.entries(log.sailors).map(([r, n]) =>
    h("tr", { dataset: { sailor: r } }, h("td", SAILOR_WORDS[r] || r), h("td.marks", `${"■".repeat(n)}${"□".repeat(3 - n)}`), h("td.num", `${n}/3`)));
  const score = SCORE_LINES.map(([key, words]) =>
    h(`tr${key === "total" ? ".total" : ""}`, { dataset: { score: key } }, h("td", words), h("td.num", String(log.score[key] ?? 0))));
  const won = c.standings.winners.includes(k);
  return h("details.campaign#campaign-log", { open: true },
    h("summary", h("h2", title(c))),
    h("p.memoir", "Voyages of ", h("strong", log.memoir), won ? " · ★ wins the campaign" : ""),
    h("p.placement", "Placement points: ", log.placement.length ? log.placement.map((p, i) => `game ${i + 1}: ${p}`).join(", ") : "no game yet"),
    h("div.campaign-tables",
      h("table.achievements", h("caption", "Achievements (top to bottom, 4 per column)"), h("tbody", achievements)),
      h("table.sailors", h("caption", "Sailor cards at level 4 (3 per row)"), h("tbody", sailors))),
    log.saga_items.length
      ? h("ul.saga-items", log.saga_items.map((i) => h("li", { dataset: { item: i } }, h("strong", `${c.items?.[i]?.name ?? i} (${i})`), c.items?.[i]?.text ? `: ${c.items[i].text}` : "")))
      : h("p.saga-items", "Saga items: none"),
    log.tenacity.length ? h("p.tenacity", "Tenacity Bonuses: ", log.tenacity.map((t) => `game ${t.game}: ${t.words}`).join(" ")) : null,
    log.saga_points.length ? h("p.saga-points", "Campaign points from Saga: ", log.saga_points.map((e) => `${e.points} (${e.why})`).join(", ")) : null,
    c.due.tenacity.includes(k) ? h("p.due", "You choose a Tenacity Bonus before the next game.") : null,
    c.note ? h("p.due.note", c.note) : null,
    h("table.score", h("caption", "Campaign score"), h("tbody", score)));
}
