"""Object ids in API paths are bounded (games.converters): an id longer than any the database
holds is the API's JSON 404, never a 500 (a seat poll with one was a 500 on SQLite)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db

HUGE = "9" * 25


@pytest.mark.parametrize("path", [
    f"/api/matches/{HUGE}/", f"/api/matches/{HUGE}/seats/0/", f"/api/matches/1/seats/{HUGE}/",
    f"/api/matches/{HUGE}/view/", f"/api/bots/{HUGE}/",
])
def test_a_huge_id_is_a_json_404(alice_api, path: str) -> None:
    response = alice_api.get(path)
    assert response.status_code == 404 and response.json()["code"] == "not_found"


def test_the_schema_bounds_path_ids(client) -> None:
    schema = client.get("/api/schema/?format=json").json()
    params = schema["paths"]["/api/matches/{match_id}/seats/{seat}/"]["get"]["parameters"]
    match_id = next(p for p in params if p["name"] == "match_id")
    assert match_id["schema"] == {"type": "integer", "minimum": 0, "maximum": 10**18 - 1}
