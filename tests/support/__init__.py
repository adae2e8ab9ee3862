"""Helpers shared by the test suites (real brokers, pseudo-terminals, processes)."""
