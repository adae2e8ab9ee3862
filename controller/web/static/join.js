// The table view's join screen: one QR code (and link) per open seat, so a person sits down by scanning
// their colour's code. The links come from the display server's /join.json, which answers only the
// table view's own password (the links carry the seats' passwords); which seats are open comes from the
// retained table/<tid>/seats (conn.js passes it on as the window event "smart-table:seats"). The links are
// stable until `smart-table tablets add <seat> --rotate`; the screen reloads them every 15 s.

const SVG = "http://www.w3.org/2000/svg";
const REFRESH_MS = 15000;
const cap = (s) => s[0].toUpperCase() + s.slice(1);

/** A QR code drawn from its module rows ("0101..."), one path, crisp at any size. */
export function qrSvg(rows, label) {
  const n = rows.length;
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${n} ${n}`);
  svg.setAttribute("shape-rendering", "crispEdges");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", label);
  const bg = document.createElementNS(SVG, "rect");
  bg.setAttribute("width", n);
  bg.setAttribute("height", n);
  bg.setAttribute("fill", "#fff");
  const path = document.createElementNS(SVG, "path");
  let d = "";
  rows.forEach((row, y) => {
    for (let x = 0; x < row.length; x++) if (row[x] === "1") d += `M${x} ${y}h1v1h-1z`;
  });
  path.setAttribute("d", d);
  path.setAttribute("fill", "#000");
  svg.append(bg, path);
  return svg;
}

/** Start the join screen on the table view; `password` is the display login's (from its own link). */
export function startJoin({ password }) {
  const section = document.createElement("section");
  section.id = "join";
  section.hidden = true;
  section.setAttribute("aria-label", "Join the game");
  section.style.cssText = "padding:.5rem 1rem;";
  document.getElementById("main").before(section);
  let seats = null; // seat -> {link, qr}
  let online = {}; // seat -> {online, since}
  let problem = null;
  // Folded by a tap (remembered for this tab): the codes take room the ocean grid needs during play.
  let folded = sessionStorage.getItem("smart-table-join-folded") === "1";

  const fold = (value) => {
    folded = value;
    sessionStorage.setItem("smart-table-join-folded", value ? "1" : "0");
    render();
  };

  const render = () => {
    if (!seats) {
      section.hidden = !problem;
      section.replaceChildren(...(problem ? [Object.assign(document.createElement("p"), { textContent: problem })] : []));
      return;
    }
    const open = Object.keys(seats).filter((s) => !online[s]?.online);
    section.hidden = open.length === 0;
    section.dataset.open = open.join(",");
    const toggle = document.createElement("button");
    toggle.type = "button";
    toggle.id = "join-toggle";
    toggle.textContent = folded ? `Show join codes (${open.length} open seat${open.length === 1 ? "" : "s"})` : "Hide join codes";
    toggle.addEventListener("click", () => fold(!folded));
    if (folded) {
      section.replaceChildren(toggle);
      return;
    }
    const title = document.createElement("h2");
    title.textContent = "Join the game: scan your colour's code with a phone or tablet";
    const cards = document.createElement("div");
    cards.style.cssText = "display:flex;flex-wrap:wrap;gap:1rem;";
    for (const seat of open) {
      const card = document.createElement("figure");
      card.className = "join-seat";
      card.dataset.seat = seat;
      card.style.cssText = "margin:0;width:8.5rem;text-align:center;";
      const qr = qrSvg(seats[seat].qr, `QR code to join as ${cap(seat)}`);
      qr.style.cssText = "width:100%;height:auto;display:block;";
      const cap1 = document.createElement("figcaption");
      cap1.textContent = `${cap(seat)} (${seat[0].toUpperCase()})`;
      const link = document.createElement("a");
      link.href = seats[seat].link;
      link.textContent = "link";
      link.style.cssText = "font-size:.8rem;";
      card.append(qr, cap1, link);
      cards.append(card);
    }
    section.replaceChildren(title, cards, toggle);
  };

  const load = async () => {
    try {
      const res = await fetch("/join.json", { headers: { Authorization: `Bearer ${password}` }, cache: "no-store" });
      if (res.ok) {
        seats = (await res.json()).seats || {};
        problem = null;
      } else if (res.status === 403) {
        seats = null;
        problem = "The join codes are shown only to the table view's own link (printed by `smart-table run`).";
      } else {
        seats = null; // no join screen on this table (no display login stored): stay out of the way
        problem = null;
      }
    } catch {
      // the display server is away: keep what is shown, try again later
    }
    render();
  };

  window.addEventListener("smart-table:seats", (e) => {
    online = e.detail || {};
    render();
  });
  load();
  setInterval(load, REFRESH_MS);
}
