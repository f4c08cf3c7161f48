"""The JSON examples in docs/bot-protocol.md are generated from the engine and kept true."""

from __future__ import annotations

from bots import protocol_examples


def test_protocol_doc_examples_are_up_to_date() -> None:
    doc = protocol_examples.DOC.read_text()
    expected = protocol_examples.splice(doc, protocol_examples.generate())
    assert doc == expected, ("docs/bot-protocol.md is out of date: run "
                             "`python -m bots.protocol_examples --write`")
