"""games.apis.logs: a match's log exported as JSON Lines streams."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.django_db


def test_the_jsonl_export_streams(duel, anon_api) -> None:
    response = anon_api.get(f"/api/matches/{duel.pk}/log.jsonl")
    assert response.status_code == 200 and response.streaming
    lines = b"".join(response.streaming_content).decode().splitlines()
    assert json.loads(lines[0])["type"] == "match"
    assert [json.loads(line)["type"] for line in lines[1:]] == ["entry"] * (len(lines) - 1)
    assert response["Content-Type"] == "application/x-ndjson"
