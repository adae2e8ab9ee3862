"""The device side of the link: sequence numbers, the retransmit window, command de-duplication, and
the counters and zone occupancy every report is built from.

Shared, unchanged, by the firmware simulator (`firmware_bridge.sim`) and the reference firmware
(`firmware_bridge/firmware/main.py`), so it keeps to the MicroPython subset (see wire.py). It does no
I/O of its own: bytes leave through the `write` callable it is given, time arrives as milliseconds in
every call. It must not know the game's rules.
"""

try:
    from firmware_bridge import wire
except ImportError:  # on the board, wire.py sits next to this file
    import wire  # type: ignore[no-redef, import-not-found]


class DeviceState:
    """What the device has counted and sensed since boot (or since the last reset_counters)."""

    def __init__(self, rows: int = 4, cols: int = 4, harbor_slots: int = 4) -> None:
        self.rows = rows
        self.cols = cols
        self.totals = [0] * wire.N_COLOURS
        self.squares = [False] * (rows * cols)
        self.harbor = [False] * harbor_slots
        self.in_tower = 0
        self.faults = 0  # bit 0: jam active, bit 1: sensor fault active
        self.since_quiet = 0

    def count_cube(self, colour: int) -> None:
        self.totals[colour] = min(self.totals[colour] + 1, 0xFFFF)
        self.since_quiet += 1

    def reset_counters(self) -> None:
        self.totals = [0] * wire.N_COLOURS
        self.since_quiet = 0

    def zones_payload(self, t_ms: int) -> bytes:
        return wire.pack_zone_state(t_ms, self.rows, self.cols, self.squares, self.harbor)

    def full_state_payload(self, cmd_id: int, boot: int, uptime_ms: int) -> bytes:
        return wire.pack_full_state(
            cmd_id,
            boot,
            uptime_ms,
            self.in_tower,
            self.totals,
            self.faults,
            self.rows,
            self.cols,
            self.squares,
            self.harbor,
        )


class DeviceLink:
    """Reliable event delivery from the device, as the protocol requires.

    Every event gets the next sequence number and stays in the window until the host's cumulative
    acknowledgement (the `seq` of any host frame) covers it; it is resent when the host asks (RESEND)
    or when it has not been acknowledged for `rto_ms`. A full window refuses new events (`has_room`),
    so the caller keeps them queued rather than losing them. Commands are de-duplicated by id: a
    repeated command is acknowledged again but not executed twice.
    """

    def __init__(
        self,
        write,
        boot: int,
        uid: bytes,
        kind: int = 3,
        sensors: int = 0x7F,
        fw: tuple = (1, 0, 0),
        window: int = 64,
        rto_ms: int = 400,
    ) -> None:
        self.write = write
        self.boot = boot
        self.epoch = boot & 0xFF
        self.uid = uid
        self.kind = kind
        self.sensors = sensors
        self.fw = fw
        self.window = window
        self.rto_ms = rto_ms
        self.last_seq = 0  # last sequence number given to an event
        self.acked = 0  # every event up to here is acknowledged
        self.unacked = []  # type: list[list]  # [seq, encoded frame, last sent ms], oldest first
        self.last_cmd_id = -1
        self.last_cmd_status = 0
        self.last_cmd_reply = None  # type: tuple[int, int] | None  # resent on a repeated command
        self._hello_sent_ms = -100000
        self.retransmissions = 0
        # (type, cmd_id, payload) waiting for the application
        self.commands = []  # type: list[tuple[int, int, bytes]]

    # -- sending ---------------------------------------------------------------------------------------
    def _send(self, msg_type: int, payload: bytes) -> bytes:
        frame = wire.encode_frame(msg_type, self.last_seq, payload, 0, self.epoch)
        self.write(frame)
        return frame

    def send_hello(self, now_ms: int) -> None:
        self._hello_sent_ms = now_ms
        self._send(
            wire.HELLO,
            wire.pack_hello(
                self.fw,
                wire.PROTOCOL_VERSION,
                self.kind,
                self.uid,
                self.boot,
                self.sensors,
                self.acked,
                self.window,
            ),
        )

    def send_heartbeat(self, uptime_ms: int, state: DeviceState) -> None:
        self._send(wire.HEARTBEAT, wire.pack_heartbeat(uptime_ms, self.boot, state.in_tower, state.totals))

    def send_full_state(self, cmd_id: int, uptime_ms: int, state: DeviceState) -> None:
        self._send(wire.FULL_STATE, state.full_state_payload(cmd_id, self.boot, uptime_ms))
        if cmd_id == self.last_cmd_id:
            self.last_cmd_reply = (wire.FULL_STATE, cmd_id)

    def has_room(self) -> bool:
        return len(self.unacked) < self.window

    def emit(self, now_ms: int, msg_type: int, payload: bytes) -> int:
        """Send an event with the next sequence number; the caller checked has_room()."""
        self.last_seq += 1
        frame = wire.encode_frame(msg_type, self.last_seq, payload, wire.FLAG_EVENT, self.epoch)
        self.unacked.append([self.last_seq, frame, now_ms])
        self.write(frame)
        return self.last_seq

    def _retransmit(self, entry: list, now_ms: int) -> None:
        # Re-encode with the RETRANSMIT flag so the host can count them; cheap, frames are small.
        body = wire.cobs_decode(bytes(entry[1][:-1]))
        head = wire.HEADER.unpack_from(body, 0)
        frame = wire.encode_frame(
            head[3], head[4], body[wire.HEADER_SIZE : -2], wire.FLAG_EVENT | wire.FLAG_RETRANSMIT, self.epoch
        )
        entry[2] = now_ms
        self.retransmissions += 1
        self.write(frame)

    def command_done(self, cmd_id: int, status: int) -> None:
        """Acknowledge a command the application has executed (or refused, status != 0)."""
        self.last_cmd_id = cmd_id
        self.last_cmd_status = status
        self.last_cmd_reply = (wire.CMD_ACK, cmd_id)
        self._send(wire.CMD_ACK, wire.P_CMD_ACK.pack(cmd_id, status))

    # -- receiving -------------------------------------------------------------------------------------
    def on_frame(self, frame, now_ms: int) -> None:
        """Handle one decoded host frame. Commands for the application land in self.commands."""
        if not frame.flags & wire.FLAG_FROM_HOST:
            return
        if frame.type == wire.HELLO_REQUEST:
            self.send_hello(now_ms)
            return
        if frame.epoch != self.epoch:
            # The host still talks to a previous boot: tell it who we are now (at most every 200 ms).
            if now_ms - self._hello_sent_ms >= 200:
                self.send_hello(now_ms)
            return
        self._ack(frame.seq, now_ms)
        t = frame.type
        if t == wire.RESEND:
            # One or more (from_seq u32, count u16) ranges; count 0 means "to the newest".
            size = wire.P_RESEND.size
            for pos in range(0, len(frame.payload) - size + 1, size):
                start, count = wire.P_RESEND.unpack_from(frame.payload, pos)
                stop = start + count if count else self.last_seq + 1
                for entry in self.unacked:
                    if start <= entry[0] < stop:
                        self._retransmit(entry, now_ms)
        elif t == wire.PING:
            self._send(wire.PONG, frame.payload[:4])
        elif t in wire.COMMAND_TYPES:
            if len(frame.payload) < 4:
                return
            cmd_id = wire.P_U32.unpack_from(frame.payload, 0)[0]
            if cmd_id == self.last_cmd_id:
                self.commands.append((-1, cmd_id, b""))  # a repeat: answer again, do not execute again
            else:
                self.commands.append((t, cmd_id, frame.payload))

    def _ack(self, seq: int, now_ms: int) -> None:
        if seq > self.last_seq:
            # Acknowledges events never sent: the host's view belongs to an earlier boot.
            if now_ms - self._hello_sent_ms >= 200:
                self.send_hello(now_ms)
            return
        if seq > self.acked:
            self.acked = seq
            while self.unacked and self.unacked[0][0] <= seq:
                self.unacked.pop(0)

    def tick(self, now_ms: int, max_resend: int = 4) -> None:
        """Resend events unacknowledged for rto_ms (oldest first, a few per tick)."""
        sent = 0
        for entry in self.unacked:
            if now_ms - entry[2] >= self.rto_ms:
                self._retransmit(entry, now_ms)
                sent += 1
                if sent >= max_resend:
                    break

    def all_acked(self) -> bool:
        return not self.unacked


def emit_item(link: DeviceLink, state: DeviceState, item: tuple, now_ms: int) -> tuple:
    """Apply one sensed item to the state and send it as the next event; returns (seq, type, payload).

    Items: ("cube", colour, (r, g, b, clear), confidence, transit_ms), ("quiet", quiet_ms),
    ("zones", {square index: occupied}, harbor list or None), ("fault", kind, sensor, active, detail).
    Counting happens here, at emission, so `totals` in every report agree with the events sent.
    """
    kind = item[0]
    if kind == "cube":
        state.count_cube(item[1])
        msg_type = wire.CUBE_DROPPED
        payload = wire.pack_cube(now_ms, item[1], item[2], item[3], item[4], state.totals)
    elif kind == "quiet":
        msg_type = wire.TOWER_QUIET
        payload = wire.pack_quiet(now_ms, item[1], state.since_quiet)
        state.since_quiet = 0
    elif kind == "zones":
        for index, on in item[1].items():
            state.squares[index] = bool(on)
        if item[2] is not None:
            for i, on in enumerate(item[2]):
                state.harbor[i] = bool(on)
        msg_type = wire.ZONE_STATE
        payload = state.zones_payload(now_ms)
    else:
        bit = 1 if item[1] == 1 else 2
        state.faults = state.faults | bit if item[3] else state.faults & ~bit
        msg_type = wire.FAULT
        payload = wire.pack_fault(now_ms, item[1], item[2], item[3], item[4])
    return link.emit(now_ms, msg_type, payload), msg_type, payload


def run_commands(link: DeviceLink, state: DeviceState, app, uptime_ms: int) -> None:
    """Execute the commands `link` received, through `app` (led, buzzer, calibrate methods returning a
    status), and acknowledge each. REQUEST_STATE is answered by FULL_STATE itself, carrying its id."""
    while link.commands:
        t, cmd_id, payload = link.commands.pop(0)
        if t == -1:  # a repeat of the last command: answer again without executing
            if link.last_cmd_reply is not None and link.last_cmd_reply[0] == wire.FULL_STATE:
                link.send_full_state(cmd_id, uptime_ms, state)
            else:
                link._send(wire.CMD_ACK, wire.P_CMD_ACK.pack(cmd_id, link.last_cmd_status))
            continue
        status = 2  # bad arguments unless the layout fits
        if t == wire.CMD_REQUEST_STATE:
            link.last_cmd_id = cmd_id
            link.last_cmd_status = 0
            link.send_full_state(cmd_id, uptime_ms, state)
            continue
        if t == wire.CMD_LED and len(payload) == wire.P_LED.size:
            _, r, g, b, pattern, period = wire.P_LED.unpack(payload)
            if pattern < len(wire.LED_PATTERNS):
                status = app.led(r, g, b, pattern, period)
        elif t == wire.CMD_BUZZER and len(payload) == wire.P_BUZZER.size:
            _, freq, duration = wire.P_BUZZER.unpack(payload)
            status = app.buzzer(freq, duration)
        elif t == wire.CMD_RESET_COUNTERS and len(payload) == 4:
            state.reset_counters()
            status = 0
        elif t == wire.CMD_CALIBRATE and len(payload) == wire.P_CALIBRATE.size:
            _, colour = wire.P_CALIBRATE.unpack(payload)
            if colour < wire.N_COLOURS:
                status = app.calibrate(colour)
        link.command_done(cmd_id, status)
