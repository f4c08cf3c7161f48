"""Leagues (docs/leagues.md): their services, nights, rules and a night as a kind of series."""
