// Pictures: the ocean grid (Harbor, boards as tiles with their islands, cube slots, Buildings, influence
// cubes, ships as ship shapes with the player's initial, Pirate flags) and a player's Ship board (hull
// spaces, holds, upgrades). SVG drawn from the public view and the controller's `words`; colour is never
// the only cue: every cube, marker and ship carries its player's initial. No game rule here: the squares a
// ship may sail to are the engine's legal `move` actions, handed in by the player view.

import { FILL, initial, s } from "./dom.js";

const TW = 200; // tile width and height in SVG units
const TH = 176;
const GAP = 8;
const HARBOR_H = 70;

const INK = { red: "#000", blue: "#000", green: "#000", yellow: "#000", black: "#fff", white: "#000" };

/** A square cube with its player's initial (hollow when empty). */
export function cubeSvg(x, y, size, color, opts = {}) {
  const fill = color ? FILL[color] ?? "#888" : "none";
  return s("g.pcube", { dataset: { color: color ?? "" } },
    s("rect", { x, y, width: size, height: size, rx: 2, fill, stroke: color ? "#000" : "#9ab", "stroke-width": opts.permanent ? 3 : 1.5,
      "stroke-dasharray": color ? null : "3 2" }),
    opts.permanent ? s("rect", { x: x + 3, y: y + 3, width: size - 6, height: size - 6, fill: "none", stroke: "#000", "stroke-width": 1 }) : null,
    color ? s("text", { x: x + size / 2, y: y + size * 0.72, "text-anchor": "middle", "font-size": size * 0.7,
      "font-weight": 800, fill: INK[color] ?? "#000" }, initial(color)) : null,
    s("title", color ? `${cap(color)}${opts.permanent ? " (permanent)" : ""}` : "empty slot"));
}

/** A ship shape: hull in the player's colour with the initial, a mast, and the Pirate flag when in Pirate mode. */
export function shipShape(x, y, w, ship, color) {
  const hgt = w * 0.45;
  const pirate = !!ship.pirate;
  return s(`g.shipshape.c-${color}${pirate ? ".pirate" : ""}`, { dataset: { ship: color, mode: pirate ? "pirate" : "mercantile" } },
    s("title", `${cap(color)}'s Ship${pirate ? " (Pirate mode)" : " (Mercantile mode)"}${ship.damage ? `, ${ship.damage} Damage` : ""}`),
    s("line", { x1: x + w * 0.5, y1: y - hgt * 1.1, x2: x + w * 0.5, y2: y + 2, stroke: "#ddd", "stroke-width": 2 }),
    pirate
      ? [s("rect", { x: x + w * 0.5, y: y - hgt * 1.1, width: w * 0.38, height: hgt * 0.6, fill: "#000", stroke: "#fff", "stroke-width": 1 }),
        s("text", { x: x + w * 0.69, y: y - hgt * 0.62, "text-anchor": "middle", "font-size": hgt * 0.5, fill: "#fff" }, "☠")]
      : s("path", { d: `M${x + w * 0.5} ${y - hgt * 1.05} L${x + w * 0.82} ${y - hgt * 0.2} L${x + w * 0.5} ${y - hgt * 0.2} Z`, fill: "#eee", stroke: "#000", "stroke-width": 1 }),
    s("path", { d: `M${x} ${y} L${x + w} ${y} L${x + w * 0.82} ${y + hgt} L${x + w * 0.18} ${y + hgt} Z`,
      fill: FILL[color] ?? "#888", stroke: "#000", "stroke-width": 2 }),
    s("text", { x: x + w / 2, y: y + hgt * 0.78, "text-anchor": "middle", "font-size": hgt * 0.8, "font-weight": 800, fill: INK[color] ?? "#000" }, initial(color)),
    ship.damage ? s("text", { x: x + w + 2, y: y + hgt * 0.8, "font-size": hgt * 0.6, fill: "#ff8080", "font-weight": 700 }, `✖${ship.damage}`) : null);
}

function cap(x) {
  return x ? x[0].toUpperCase() + x.slice(1) : "";
}

function squaresOf(view) {
  return Object.keys(view?.grid || {}).filter((k) => /^r\d+c\d+$/.test(k));
}

function shape(squares) {
  let rows = 0;
  let cols = 0;
  for (const sq of squares) {
    const m = /^r(\d+)c(\d+)$/.exec(sq);
    rows = Math.max(rows, +m[1]);
    cols = Math.max(cols, +m[2]);
  }
  return { rows, cols };
}

function tileXY(sq) {
  const m = /^r(\d+)c(\d+)$/.exec(sq);
  return { x: (+m[2] - 1) * (TW + GAP), y: HARBOR_H + GAP + (+m[1] - 1) * (TH + GAP) };
}

/** What the ocean grid draws of the ships (where each is, its mode and Damage): a memo's dependencies. */
export function shipsOf(v) {
  return Object.entries(v?.p || {}).map(([c, b]) => [c, b?.ship?.at, !!b?.ship?.pirate, b?.ship?.damage ?? 0]);
}

function shipsAt(view) {
  const out = {};
  for (const [color, b] of Object.entries(view?.p || {})) if (b?.ship) (out[b.ship.at ?? "harbor"] ||= []).push([color, b.ship]);
  return out;
}

function shipsRow(list, x, y, w) {
  const each = Math.min(48, (w - 8) / Math.max(1, list.length));
  return list.map(([color, ship], i) => shipShape(x + 4 + i * each, y, each - 10, ship, color));
}

function islandGroup(sq, cell, w, x, y) {
  const isl = cell.island;
  const out = [];
  const cubes = isl.cubes || [];
  const size = Math.min(24, (TW - 16) / Math.max(4, cubes.length + Object.values(isl.permanent || {}).reduce((a, b) => a + b, 0)) - 3);
  let cx = x + 8;
  const cy = y + 30;
  cubes.forEach((c) => { out.push(cubeSvg(cx, cy, size, c)); cx += size + 3; });
  for (const [c, n] of Object.entries(isl.permanent || {})) for (let i = 0; i < n; i++) { out.push(cubeSvg(cx, cy, size, c, { permanent: true })); cx += size + 3; }
  const ctrl = isl.controller;
  let line = cy + size + 16;
  if (ctrl) {
    out.push(s("g.ctrl", { dataset: { controller: ctrl } },
      s("rect", { x: x + 8, y: line - 13, width: 16, height: 16, fill: FILL[ctrl], stroke: "#000" }),
      s("text", { x: x + 16, y: line, "text-anchor": "middle", "font-size": 13, "font-weight": 800, fill: INK[ctrl] }, initial(ctrl)),
      s("text", { x: x + 30, y: line, "font-size": 14, fill: "#fff" }, `${cap(ctrl)} controls`)));
    line += 19;
  }
  const blds = w?.buildings || isl.buildings || [];
  if (blds.length) {
    blds.forEach((b, i) => out.push(s("g.building", { dataset: { building: b } },
      s("path", { d: `M${x + 8 + i * 62} ${line + 2} l0 -12 l8 -6 l8 6 l0 12 Z`, fill: ctrl ? FILL[ctrl] : "#aaa", stroke: "#000" }),
      s("text", { x: x + 28 + i * 62, y: line, "font-size": 13, fill: "#fff" }, b))));
    line += 19;
  }
  const goods = [isl.cargo ? `${isl.cargo} Cargo` : null, isl.coins ? `${isl.coins} Coin${isl.coins > 1 ? "s" : ""}` : null].filter(Boolean).join(" · ");
  if (goods) {
    out.push(s("text.goods", { x: x + 8, y: line, "font-size": 13, fill: "#e8d49a" }, goods));
    line += 18;
  }
  return { nodes: out, line };
}

/**
 * The ocean grid as SVG.
 * opts: {moves: Map(square -> [{action, label}]), onTap(square), me (player colour), battleAt, highlight}
 */
export function oceanSvg(view, words, opts = {}) {
  const squares = squaresOf(view);
  const { rows, cols } = shape(squares);
  const W = cols * (TW + GAP) - GAP;
  const H = HARBOR_H + GAP + rows * (TH + GAP) - GAP;
  const ships = shipsAt(view);
  const sw = words?.squares || {};
  const moves = opts.moves || new Map();
  const tap = (sq) => (moves.has(sq) && opts.onTap ? { click: () => opts.onTap(sq) } : null);
  const target = (sq, x, y, w, hgt) => (moves.has(sq)
    ? [s("rect.target", { x: x + 3, y: y + 3, width: w - 6, height: hgt - 6, rx: 8, fill: "none", stroke: "#fff", "stroke-width": 4, "stroke-dasharray": "10 6" }),
      s("text.sailhere", { x: x + w - 8, y: y + hgt - 8, "text-anchor": "end", "font-size": 15, "font-weight": 800, fill: "#fff" }, "⛵ tap to sail here")]
    : null);
  const harborShips = ships.harbor || [];
  const out = s("svg.ocean", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": "The ocean grid", preserveAspectRatio: "xMidYMin meet" },
    s(`g.harbor${moves.has("harbor") ? ".can-sail" : ""}`, { dataset: { square: "harbor" }, on: tap("harbor") },
      s("rect", { x: 0, y: 0, width: W, height: HARBOR_H, rx: 8, fill: "#2c3e50", stroke: "#567", "stroke-width": 2 }),
      s("text", { x: 10, y: 24, "font-size": 18, "font-weight": 700, fill: "#cde" }, "Harbor"),
      shipsRow(harborShips, 110, 36, Math.min(W - 120, 60 * Math.max(1, harborShips.length))),
      target("harbor", 0, 0, W, HARBOR_H)),
    squares.map((sq) => {
      const cell = view.grid[sq] || {};
      const w = sw[sq] || {};
      const { x, y } = tileXY(sq);
      const up = !!cell.board;
      const isIsland = !!cell.island;
      const battle = opts.battleAt === sq;
      const mine = opts.me && (ships[sq] || []).some(([c]) => c === opts.me);
      const name = up ? w.name ?? cell.board : "Unexplored";
      const isl = isIsland ? islandGroup(sq, cell, w, x, y) : null;
      return s(`g.square${up ? ".explored" : ".unexplored"}${moves.has(sq) ? ".can-sail" : ""}${battle ? ".battle-here" : ""}`,
        { dataset: { square: sq }, on: tap(sq) },
        s("title", `${w.label ?? name}${w.text ? `: ${w.text}` : ""}`),
        s("rect", { x, y, width: TW, height: TH, rx: 8, fill: up ? (isIsland ? "#1b4d3e" : "#103a5c") : "url(#fog)",
          stroke: battle ? "#ffb020" : mine ? "#fff" : "#2d4462", "stroke-width": battle ? 5 : mine ? 3 : 2 }),
        up && isIsland ? s("ellipse", { cx: x + TW - 34, cy: y + 40, rx: 24, ry: 16, fill: "#c2a25a", stroke: "#6b5420" }) : null,
        s("text.sqname", { x: x + 8, y: y + 20, "font-size": 17, "font-weight": 700, fill: up ? "#fff" : "#8aa" }, name),
        !up ? s("text", { x: x + 8, y: y + 42, "font-size": 13, fill: "#8aa" }, w.place ?? "") : null,
        up && !isIsland && w.text ? s("text", { x: x + 8, y: y + 40, "font-size": 13, fill: "#9cc" }, w.text) : null,
        isl ? isl.nodes : null,
        cell.card ? s("text.offer", { x: x + 8, y: isl ? isl.line : y + TH - 52, "font-size": 13, fill: cell.card.merchant ? "#ffb3b3" : "#d9c2ff" },
          cell.card.merchant ? "⚔ Merchant ship" : `✦ ${cell.card.name} (${cell.card.cost} Cargo)`) : null,
        shipsRow(ships[sq] || [], x, y + TH - 26, TW - 30),
        battle ? s("text", { x: x + TW - 8, y: y + 20, "text-anchor": "end", "font-size": 15, fill: "#ffb020", "font-weight": 800 }, "⚔ battle") : null,
        target(sq, x, y, TW, TH));
    }),
    s("defs", s("pattern#fog", { width: 14, height: 14, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" },
      s("rect", { width: 14, height: 14, fill: "#0d1b2b" }), s("rect", { width: 7, height: 14, fill: "#13263b" }))));
  return out;
}

/**
 * A player's Ship board: four hull spaces (the engine's layout in words.ship), the holds with their Cargo
 * and Coins, upgrade tiles, Sails, Damage and the mode.
 */
export function shipBoardSvg(ship, color, words) {
  const layout = words?.ship || { hold_spaces: [0, 3], hold_caps: [4, 3], base_icons: ["1 Sail", "", "", "1 Sail"] };
  const up = words?.upgrades || {};
  const SW = 110;
  const W = SW * 4 + 24;
  const H = 190;
  const hull = ship.hull || [[], [], [], []];
  const holds = ship.holds || [];
  return s("svg.shipboard", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": `${cap(color)}'s Ship board` },
    s("path", { d: `M4 20 L${W - 4} 20 L${W - 40} ${H - 40} L40 ${H - 40} Z`, fill: "#3b2a1a", stroke: FILL[color] ?? "#888", "stroke-width": 4 }),
    hull.map((tiles, i) => {
      const x = 12 + i * SW;
      const hi = layout.hold_spaces.indexOf(i);
      const top = tiles.length ? tiles[tiles.length - 1] : null;
      const benefit = top ? up[top]?.icons ?? top : layout.base_icons?.[i] || "—";
      const hold = hi >= 0 ? holds[hi] || { cargo: 0, coins: 0 } : null;
      const cells = [];
      if (hold) {
        const cap_ = layout.hold_caps[hi];
        const items = [...Array(hold.cargo || 0).fill("cargo"), ...Array(hold.coins || 0).fill("coin")];
        for (let k = 0; k < cap_; k++) {
          const cx = x + 8 + (k % 4) * 24;
          const cy = 96 + Math.floor(k / 4) * 24;
          const it = items[k];
          cells.push(it === "cargo" ? s("rect.cargo", { x: cx, y: cy, width: 20, height: 20, fill: "#b07a3c", stroke: "#000" })
            : it === "coin" ? s("circle.coin", { cx: cx + 10, cy: cy + 10, r: 10, fill: "#ffd23f", stroke: "#000" })
              : s("rect", { x: cx, y: cy, width: 20, height: 20, fill: "none", stroke: "#a98", "stroke-dasharray": "3 2" }));
        }
      }
      return s("g.hullspace", { dataset: { space: i, hold: hi >= 0 ? hi : "" } },
        s("rect", { x, y: 28, width: SW - 8, height: 120, rx: 6, fill: "#00000055", stroke: "#a98" }),
        s("text", { x: x + 6, y: 46, "font-size": 14, "font-weight": 700, fill: "#fff" }, `Space ${i + 1}`),
        s("text", { x: x + 6, y: 64, "font-size": 13, fill: hold && (hold.cargo || hold.coins) ? "#888" : "#9fe" },
          top ? `${up[top]?.name ?? "Upgrade"}` : `${benefit}`),
        top ? s("text", { x: x + 6, y: 80, "font-size": 12, fill: "#9fe" }, `${benefit}${tiles.length > 1 ? ` (+${tiles.length - 1} under)` : ""}`) : null,
        hold ? s("text", { x: x + 6, y: 144, "font-size": 13, fill: "#fff" }, `Hold ${hi + 1}`, s("title", `Hold ${hi + 1}: ${hold.cargo || 0} Cargo, ${hold.coins || 0} Coins`)) : null,
        cells);
    }),
    s("text", { x: 14, y: H - 14, "font-size": 16, fill: "#fff", "font-weight": 700 },
      `${ship.pirate ? "☠ Pirate mode" : "⚓ Mercantile mode"} · ${ship.sails ?? 0} Sails · ${ship.damage ?? 0} Damage (sinks at 5)`));
}
