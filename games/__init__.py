"""Matches, seats and the polling API around the pure-Python rules engine in ``games.engine``."""
