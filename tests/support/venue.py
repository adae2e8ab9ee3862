"""A venue Mosquitto for tests (venue.testing, shared with bench/venue_load.py)."""

from venue.testing import Venue, make_venue, mosquitto_at, start_venue, venue_conf, wait_for

__all__ = ["Venue", "make_venue", "mosquitto_at", "start_venue", "venue_conf", "wait_for"]
