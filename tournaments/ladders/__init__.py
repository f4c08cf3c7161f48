"""The ladder (docs/ladder.md): an always-on rated series per game that bots opt in and out of,
played by the one series runner as a kind of its own (``kind``), its matches chosen by the
ladder format (``formats.ladder``, on ``scheduling.matchmaking``)."""
