"""The JSON examples in docs/bot-protocol.md are generated from the engine and kept true."""

from __future__ import annotations

import json

from bots import protocol_examples
from games.engine import game_ids


def test_protocol_doc_examples_are_up_to_date() -> None:
    doc = protocol_examples.DOC.read_text()
    expected = protocol_examples.splice(doc, protocol_examples.generate())
    assert doc == expected, ("docs/bot-protocol.md is out of date: run "
                             "`python -m bots.protocol_examples --write`")


def test_the_examples_show_what_a_real_match_sends(settings) -> None:
    """The default strike limit and timeout from the settings, and an integer match id (the
    REST API's), in every example body of the doc."""
    doc = protocol_examples.DOC.read_text()
    generated = doc.split(protocol_examples.BEGIN, 1)[1].split(protocol_examples.END, 1)[0]
    blocks = [json.loads(block.split("\n```", 1)[0])
              for block in generated.split("```json\n")[1:]]
    matches = [block["match"] for block in blocks if "match" in block]
    assert len(matches) == len(game_ids()) + 1  # a /move per game, then /start
    for match in matches:
        assert match["strike_limit"] == settings.BLUFF_MAX_STRIKES == 3
        assert match["timeout_ms"] == settings.BOTS_MOVE_TIMEOUT_MS
        assert isinstance(match["id"], int)
