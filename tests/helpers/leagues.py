"""Leagues through the API in tests: a league spec of reference bots, creating one, scheduling a
night now."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone
from rest_framework.test import APIClient

URL = "/api/leagues/"


def refs(count: int) -> list[dict[str, Any]]:
    names = ["heuristic", "random"]
    return [{"kind": "reference", "bot": names[i % 2], "name": f"ref{i}"} for i in range(count)]


def iso(moment: datetime) -> str:
    return moment.isoformat()


def spec(**overrides: Any) -> dict[str, Any]:
    """Five reference bots at one Great Dalmuti table, three hands a night, no recurring night."""
    now = timezone.now()
    return {"name": "Thursday club", "game": "great_dalmuti", "members": refs(5),
            "table_size": 5, "hands_per_night": 3, "season_start": iso(now - timedelta(days=1)),
            "season_end": iso(now + timedelta(days=60)), "seed": 11, **overrides}


def create(client: APIClient, **overrides: Any) -> Any:
    return client.post(URL, spec(**overrides), format="json")


def schedule_now(client: APIClient, league_id: int) -> Any:
    return client.post(f"{URL}{league_id}/nights/", {"starts_at": iso(timezone.now())},
                       format="json")
