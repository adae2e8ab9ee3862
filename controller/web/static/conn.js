// The link to the broker: mqtt.js over WebSockets with the tablet's own credentials.
// Owns connection state (live / reconnecting / stale since ...) and automatic reconnection.
// Retained topics give the full current state on every (re)connect, so nothing is fetched.

import { hhmmss } from "./dom.js";

const RECONNECT_MS = 1000;

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
  }

  start() {
    const { url, username, password } = this.opts;
    // MQTT 3.1.1 works with every broker the table runs (the embedded one is 3.1.1 only).
    this.client = window.mqtt.connect(url, {
      username: username || undefined,
      password: password || undefined,
      protocolVersion: 4,
      clean: true,
      reconnectPeriod: RECONNECT_MS,
      connectTimeout: 4000,
      keepalive: 10,
      resubscribe: true,
    });
    this.client.on("connect", () => {
      this.connected = true;
      this.error = null;
      // Unknown until the retained availability arrives again: a restarted broker has none until the
      // controller reconnects, and "live" must mean the controller is there now.
      this.controller = null;
      this.client.subscribe(this.opts.topics, { qos: 1 }, (err, granted) => {
        // A topic the ACL denies is granted but delivers nothing (Mosquitto): the page just sees silence.
        if (err) this.error = `could not subscribe: ${err.message}`;
        this.update();
      });
      this.update();
    });
    this.client.on("reconnect", () => this.update());
    this.client.on("close", () => {
      this.connected = false;
      this.update();
    });
    this.client.on("offline", () => this.update());
    this.client.on("error", (err) => {
      const code = err && err.code;
      if (code === 4 || code === 5 || /not authori|bad user/i.test(String(err && err.message)))
        this.error = "The broker refused this tablet's name or password: ask for a new join link (smart-table tablets add).";
      else this.error = `connection problem: ${err && err.message}`;
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
      this.opts.onMessage(topic, payload);
      this.update();
    });
    // Re-render "stale since" even when nothing arrives.
    this.timer = setInterval(() => this.update(), 1000);
  }

  /** Called by the app when the controller's availability topic changes. */
  setController(value) {
    this.controller = value;
    this.update();
  }

  publish(topic, obj) {
    if (!this.client || !this.connected) return false;
    this.client.publish(topic, JSON.stringify(obj), { qos: 1 });
    return true;
  }

  update() {
    const live = this.connected && this.controller === "online";
    if (live) {
      this.staleSince = null;
      this.everLive = true;
    } else if (!this.staleSince && this.everLive) this.staleSince = new Date();
    let code;
    let text;
    if (live) {
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
    const next = { code, text, error: this.error };
    const prev = this.status;
    this.status = next;
    if (!prev || prev.code !== code || prev.text !== text || prev.error !== next.error) this.opts.onStatus(next);
  }
}
