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


def test_a_path_id_is_1_to_18_decimal_digits_as_docs_api_says(alice_api, make_match) -> None:
    """docs/api.md: 0..10^18-1, leading zeros allowed; a 19th digit, a sign or a space is no
    endpoint at all (the JSON 404 that names the path)."""
    match = make_match("dice_cup", [None, None])
    padded = alice_api.get(f"/api/matches/{match.pk:018d}/")
    assert padded.status_code == 200 and padded.json()["id"] == match.pk
    largest = alice_api.get(f"/api/matches/{10**18 - 1}/")
    assert largest.status_code == 404 and "no API endpoint" not in largest.json()["detail"], \
        "the view answered: no such match"
    for beyond in (f"{match.pk:019d}", str(10**18), f"+{match.pk}", f"-{match.pk}"):
        response = alice_api.get(f"/api/matches/{beyond}/")
        assert response.status_code == 404 and "no API endpoint" in response.json()["detail"]
