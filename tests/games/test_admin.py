"""The admin never lets staff peek at a running match (state, seed, sealed choices) nor edit
what the engine decides (status, deadline, seats' users, strikes, forfeits)."""

from __future__ import annotations

from typing import Any

import pytest

from games import selectors, services
from games.models import AppliedAction, Match, MatchLogPage

pytestmark = pytest.mark.django_db

SEED = 987654321987


@pytest.fixture
def running(make_match, alice, bob) -> Match:
    match = make_match("dice_cup", [alice, bob], seed=SEED)
    state = selectors.load_state(match)
    seat = state.to_act()[0]
    services.match_submit_action(match_id=match.pk, seat_number=seat, user=[alice, bob][seat],
                                 version=match.version, action=state.legal_actions(seat)[0])
    return Match.objects.get(pk=match.pk)


def _pages(admin_client: Any, match: Match) -> dict[str, bytes]:
    page = MatchLogPage.objects.filter(match=match).order_by("first").first()  # the deal
    applied = AppliedAction.objects.get(match=match)
    paths = {"match": f"/admin/games/match/{match.pk}/change/",
             "log": f"/admin/games/matchlogpage/{page.pk}/change/",
             "applied": f"/admin/games/appliedaction/{applied.pk}/change/"}
    pages = {}
    for name, path in paths.items():
        response = admin_client.get(path)
        assert response.status_code == 200, path
        pages[name] = response.content
    return pages


def _finish(match: Match) -> None:
    Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED)


def test_a_running_match_shows_no_hidden_information(admin_client, running) -> None:
    pages = _pages(admin_client, running)
    assert str(SEED).encode() not in pages["match"]
    assert b"honesty" not in pages["match"], "the engine state"
    for page in pages.values():
        assert b"private" not in page, "sealed event details"
    assert b"applied_version" not in pages["applied"], "the recorded answer"


def test_a_finished_match_shows_everything(admin_client, running) -> None:
    _finish(running)
    pages = _pages(admin_client, running)
    assert str(SEED).encode() in pages["match"] and b"honesty" in pages["match"]
    assert b"private" in pages["match"] and b"private" in pages["log"]
    assert b"applied_version" in pages["applied"]


def test_what_the_engine_decides_is_read_only(admin_client, running) -> None:
    page = admin_client.get(f"/admin/games/match/{running.pk}/change/").content
    for field in ("status", "deadline", "seats-0-user", "seats-0-strikes", "seats-0-forfeited"):
        assert f'name="{field}"'.encode() not in page, field
    seat = running.seats.get(number=0)
    page = admin_client.get(f"/admin/games/seat/{seat.pk}/change/").content
    for field in ("user", "strikes", "forfeited", "match", "kind"):
        assert f'name="{field}"'.encode() not in page, field


def test_admin_lists_and_read_only_logs(duel, client, django_user_model) -> None:
    admin = django_user_model.objects.create_superuser("root", "root@example.com", "pw")
    client.force_login(admin)
    for page in ("match", "seat", "matchlogpage", "appliedaction"):
        response = client.get(f"/admin/games/{page}/")
        assert response.status_code == 200, page
    assert client.get(f"/admin/games/match/{duel.pk}/change/").status_code == 200
    assert client.get("/admin/games/match/?status__exact=running&game=dice_cup").status_code == 200
    first = MatchLogPage.objects.filter(match=duel).first()
    assert client.get(f"/admin/games/matchlogpage/{first.pk}/change/").status_code == 200
    assert client.get("/admin/games/matchlogpage/add/").status_code == 403
    assert client.post(f"/admin/games/matchlogpage/{first.pk}/delete/").status_code == 403
