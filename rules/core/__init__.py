"""The core every game runs on; it knows no game (see `rules.core.engine`)."""
