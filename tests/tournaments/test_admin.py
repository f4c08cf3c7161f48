"""The tournaments admin: its pages load, what the workers own cannot be edited, and the cancel
action goes through the service."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from tournaments import services
from tournaments.models import Tournament, TournamentMatch

from .conftest import REFERENCE

pytestmark = pytest.mark.django_db(transaction=True)


def create(organiser: Any, **kwargs: Any) -> Tournament:
    kwargs.setdefault("seed", 3)
    return services.tournament_create(organiser=organiser, name="cup", game="dice_cup",
                                      participants=REFERENCE, table_size=2, meetings=2,
                                      **kwargs)


@pytest.fixture
def staff_client(client: Any, django_user_model: Any) -> Any:
    client.force_login(django_user_model.objects.create_superuser("root", "r@example.com", "pw"))
    return client


def test_the_admin_pages_load_and_rows_the_workers_own_are_read_only(
        staff_client, alice, inline_tasks) -> None:
    finished = create(alice)
    finished.refresh_from_db()
    assert finished.status == "finished"
    for page in ["", "?status__exact=finished&game=dice_cup", "?q=cup"]:
        response = staff_client.get(f"/admin/tournaments/tournament/{page}")
        assert response.status_code == 200 and b"cup" in response.content
    page = staff_client.get(f"/admin/tournaments/tournament/{finished.pk}/change/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'name="name"' in html and 'name="seed"' not in html and 'name="status"' not in html
    assert 'name="participants-0-withdrawn"' in html and 'name="participants-0-bot"' not in html
    assert 'id="matches-group"' in html and 'name="matches-0-status"' not in html
    assert "heuristic" in html
    assert f">{finished.seed}<" in html.replace(" ", ""), "shown once it is over"
    assert staff_client.get("/admin/tournaments/tournament/add/").status_code == 403


def test_the_seed_is_left_out_until_the_tournament_is_over(staff_client, alice) -> None:
    running = create(alice, seed=987654321)
    running.refresh_from_db()
    assert running.status == "running", "no worker here: its matches wait"
    page = staff_client.get(f"/admin/tournaments/tournament/{running.pk}/change/")
    assert page.status_code == 200 and b"987654321" not in page.content


def test_the_cancel_action_cancels_through_the_service(staff_client, alice) -> None:
    scheduled = create(alice, starts_at=timezone.now() + timedelta(hours=1))
    response = staff_client.post("/admin/tournaments/tournament/", {
        "action": "cancel", "_selected_action": [scheduled.pk]}, follow=True)
    assert response.status_code == 200 and b"1 tournament(s) cancelled" in response.content
    assert Tournament.objects.get(pk=scheduled.pk).status == "cancelled"
    assert set(TournamentMatch.objects.filter(tournament=scheduled)
               .values_list("status", flat=True)) == {"cancelled"}
    again = staff_client.post("/admin/tournaments/tournament/", {
        "action": "cancel", "_selected_action": [scheduled.pk]}, follow=True)
    assert b"the tournament is cancelled" in again.content
    assert b"0 tournament(s) cancelled" in again.content
