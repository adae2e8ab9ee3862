// The link to the broker: mqtt.js over WebSockets with the tablet's own credentials.
// Owns connection state (live / reconnecting / stale since ... / refused / taken), automatic reconnection,
// and the seat handshake (docs/mqtt.md, "One seat, several devices"): a player's page says hello on its
// command topic with its device id; the controller answers granted, or taken when another device holds
// the seat, and then this page stops and offers to take the seat over instead of knocking the other
// device off in a reconnect loop. A refused login stops too, with a sentence saying why and what to do.
// Retained topics give the full current state on every (re)connect, so nothing is fetched.

import { hhmmss } from "./dom.js";

const RECONNECT_MS = 1000;
const COLOURS = ["red", "blue", "green", "yellow"];

function deviceId() {
  // One id per browser, kept across reloads, so a reload is the same device and keeps its seat.
  const fresh = () => `dev-${Math.random().toString(36).slice(2, 10)}${Date.now().toString(36)}`;
  try {
    let id = window.localStorage.getItem("smart-table-device");
    if (!id) {
      id = fresh();
      window.localStorage.setItem("smart-table-device", id);
    }
    return id;
  } catch {
    return fresh(); // storage refused (private mode): one id per page load
  }
}

const cap = (s) => (s ? s[0].toUpperCase() + s.slice(1) : s);

export class Link {
  /** opts: {url, username, password, topics: [..], onMessage(topic, payload), onStatus(status)} */
  constructor(opts) {
    this.opts = opts;
    this.connected = false;
    this.controller = null; // "online" | "offline" | null (unknown yet), from table/<tid>/availability
    this.staleSince = null; // Date the link stopped being live (null while live or never live)
    this.everLive = false;
    this.error = null;
    this.status = { code: "connecting", text: "connecting…" };
    this.base = (opts.topics[0] || "").split("/").slice(0, 2).join("/"); // table/<tid>
    const role = (opts.username || "").split("/").pop(); // a login is `<table>/<role>`
    this.player = COLOURS.includes(role) ? role : null;
    this.device = deviceId();
    this.seat = this.player ? "asking" : "none"; // asking | granted | taken | none (the table view)
    this.takeOver = false;
    this.stopped = null; // null, or {code, text, action} when this page stopped connecting on purpose
    this.quickCloses = []; // times of connections that closed within seconds (another device on this login)
  }

  start() {
    const { url, username, password } = this.opts;
    const will = this.player
      ? { topic: `${this.base}/player/${this.player}/presence`, payload: JSON.stringify({ presence: "offline", device: this.device }), qos: 1, retain: false }
      : undefined;
    this.stopped = null;
    this.seat = this.player ? "asking" : "none";
    this.client = window.mqtt.connect(url, {
      username: username || undefined,
      password: password || undefined,
      protocolVersion: 5,
      clean: true,
      reconnectPeriod: RECONNECT_MS,
      connectTimeout: 4000,
      keepalive: 10,
      resubscribe: true,
      will,
    });
    this.client.on("connect", () => {
      this.connected = true;
      this.connectedAt = Date.now();
      this.error = null;
      // Unknown until the retained availability arrives again: a restarted broker has none until the
      // controller reconnects, and "live" must mean the controller is there now.
      this.controller = null;
      const topics = [...this.opts.topics, `${this.base}/seats`];
      if (this.player && !topics.includes(`${this.base}/player/${this.player}/reply`)) topics.push(`${this.base}/player/${this.player}/reply`);
      this.client.subscribe(topics, { qos: 1 }, (err) => {
        // A topic the ACL denies is granted but delivers nothing (Mosquitto): the page just sees silence.
        if (err) this.error = `could not subscribe: ${err.message}`;
        this.hello();
        this.update();
      });
      this.update();
    });
    this.client.on("reconnect", () => this.update());
    this.client.on("close", () => {
      if (this.connected && this.connectedAt && Date.now() - this.connectedAt < 3000) this.noteQuickClose();
      this.connected = false;
      this.update();
    });
    this.client.on("offline", () => this.update());
    this.client.on("error", (err) => {
      const code = err && err.code;
      if (code === 4 || code === 5 || code === 134 || code === 135 || /not authori|bad user/i.test(String(err && err.message))) {
        this.halt("refused", this.refusedText(), null);
        return;
      }
      this.error = `connection problem: ${err && err.message}`;
      this.update();
    });
    this.client.on("message", (topic, buf) => {
      let payload;
      const text = buf.toString();
      try {
        payload = text === "" ? null : JSON.parse(text);
      } catch {
        payload = text; // e.g. a bare `online` from an older availability publisher
      }
      if (payload && typeof payload === "object" && payload.presence && topic.endsWith("/reply")) {
        this.onPresence(payload);
        return;
      }
      if (topic === `${this.base}/seats`) window.dispatchEvent(new CustomEvent("smart-table:seats", { detail: payload || {} }));
      if (topic === `${this.base}/availability`) {
        const was = this.controller;
        const now = typeof payload === "string" ? payload : payload?.state;
        // A restarted controller forgets who holds which seat: say hello again.
        if (now === "online" && was !== "online" && this.seat === "granted") this.hello();
      }
      this.opts.onMessage(topic, payload);
      this.update();
    });
    // Re-render "stale since" even when nothing arrives.
    clearInterval(this.timer);
    this.timer = setInterval(() => this.update(), 1000);
  }

  hello() {
    if (!this.player || !this.client || this.stopped) return;
    this.client.publish(`${this.base}/player/${this.player}/presence`,
      JSON.stringify({ presence: "hello", device: this.device, take_over: this.takeOver }), { qos: 1 });
    this.takeOver = false;
  }

  onPresence(msg) {
    if (msg.device !== this.device) return;
    if (msg.presence === "granted") {
      this.seat = "granted";
      this.quickCloses = [];
      this.update();
    } else if (msg.presence === "taken") {
      this.seat = "taken";
      this.halt("taken", `${cap(this.player)}'s seat is open on another device (a phone or tablet that opened the same link). ` +
        "Use it there, or take the seat over here: the other device then stops and says so.", "Use this device for " + cap(this.player));
    }
  }

  // Several connections that close within seconds of opening: another device logs in with the same
  // name (the broker keeps one connection per login). Stop instead of knocking it off forever.
  noteQuickClose() {
    const now = Date.now();
    this.quickCloses = [...this.quickCloses.filter((t) => now - t < 20000), now];
    if (this.quickCloses.length >= 3) {
      const who = this.player ? `${cap(this.player)}'s seat` : "The table view's login";
      this.halt("taken", `${who} is in use on another device: the two kept taking the connection from each other. ` +
        "Use it there, or take it over here.", this.player ? "Use this device for " + cap(this.player) : "Use this screen");
    }
  }

  refusedText() {
    const what = this.player ? `${cap(this.player)}'s seat` : "the table view";
    const fix = this.player
      ? `Scan ${cap(this.player)}'s QR code on the table view again, or ask whoever runs the table for the new link ` +
        `(smart-table tablets add ${this.player}).`
      : "Open the table view's link printed by `smart-table run` again.";
    return `The table refused this tablet's name or password for ${what}: the link is old (its password was ` +
      `replaced with --rotate) or was mistyped. ${fix}`;
  }

  // Stop connecting on purpose (refused, or the seat is held by another device) and say so on the page.
  halt(code, text, actionLabel) {
    this.stopped = { code, text, actionLabel };
    this.error = null;
    if (this.client) this.client.end(true);
    this.connected = false;
    this.showOverlay();
    this.update();
  }

  takeOverHere() {
    this.takeOver = true;
    this.quickCloses = [];
    this.hideOverlay();
    this.start();
  }

  showOverlay() {
    let el = document.getElementById("conn-overlay");
    if (!el) {
      el = document.createElement("div");
      el.id = "conn-overlay";
      el.setAttribute("role", "alertdialog");
      el.style.cssText = "position:fixed;inset:0;z-index:1000;display:flex;align-items:center;justify-content:center;" +
        "background:rgba(0,0,0,.82);padding:1.5rem;";
      document.body.append(el);
    }
    const box = document.createElement("div");
    box.style.cssText = "max-width:32rem;background:#1d2430;color:#f3f3f3;border-radius:12px;padding:1.25rem;font-size:1.1rem;line-height:1.45;";
    const p = document.createElement("p");
    p.id = "conn-overlay-text";
    p.textContent = this.stopped.text;
    box.append(p);
    if (this.stopped.actionLabel) {
      const b = document.createElement("button");
      b.id = "conn-take-over";
      b.type = "button";
      b.textContent = this.stopped.actionLabel;
      b.style.cssText = "font-size:1.1rem;padding:.6rem 1rem;margin-top:.5rem;";
      b.addEventListener("click", () => this.takeOverHere());
      box.append(b);
    }
    el.dataset.code = this.stopped.code;
    el.replaceChildren(box);
    el.hidden = false;
  }

  hideOverlay() {
    const el = document.getElementById("conn-overlay");
    if (el) el.remove();
  }

  /** Called by the app when the controller's availability topic changes. */
  setController(value) {
    this.controller = value;
    this.update();
  }

  publish(topic, obj) {
    if (!this.client || !this.connected || this.stopped) return false;
    this.client.publish(topic, JSON.stringify(obj), { qos: 1 });
    return true;
  }

  update() {
    const live = this.connected && this.controller === "online" && !this.stopped;
    if (live) {
      this.staleSince = null;
      this.everLive = true;
    } else if (!this.staleSince && this.everLive) this.staleSince = new Date();
    let code;
    let text;
    if (this.stopped) {
      code = this.stopped.code;
      text = code === "refused" ? "refused: old or wrong link" : "open on another device";
    } else if (live) {
      code = "live";
      text = "live";
    } else if (!this.connected) {
      code = this.everLive || this.client?.reconnecting ? "reconnecting" : "connecting";
      text = code === "reconnecting" ? "reconnecting…" : "connecting…";
      if (this.staleSince) text += ` · stale since ${hhmmss(this.staleSince)}`;
    } else if (this.controller === "offline") {
      code = "stale";
      text = `table offline · stale since ${hhmmss(this.staleSince || new Date())}`;
    } else {
      code = "waiting";
      text = "connected · waiting for the table…";
    }
    const error = this.stopped ? this.stopped.text : this.error;
    const next = { code, text, error };
    const prev = this.status;
    this.status = next;
    if (!prev || prev.code !== code || prev.text !== text || prev.error !== next.error) this.opts.onStatus(next);
  }
}
