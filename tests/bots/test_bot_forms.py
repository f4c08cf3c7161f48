"""Registering and managing a webhook bot in the browser, through the API's services: the
handshake's result and the secret shown once; each refusal (the API's code) at its field;
the owner's forms (settings, enable and disable, a handshake now, which another user gets a
404 for); CSRF on every one."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest
from django.test import Client

from bots.models import Bot
from tests.forms import accessibility_problems, field_errors

pytestmark = pytest.mark.django_db


@pytest.fixture
def web() -> Client:
    return Client()


@pytest.fixture
def dev(django_user_model: Any) -> Any:
    return django_user_model.objects.create_user("dev", password="pw-123-long-enough")


@pytest.fixture
def open_starter_url(starter: ModuleType) -> Iterator[str]:
    """The starter bot before it knows its secret: it answers every call (the README's first
    step, before registering it)."""
    server = starter.make_server("127.0.0.1", 0, None)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def registered(dev: Any, open_starter_url: str) -> Bot:
    from bots import services

    bot, _ = services.bot_register(owner=dev, name="starter", url=open_starter_url)
    return bot


def test_registering_needs_signing_in_and_labels_every_field(web, dev) -> None:
    answer = web.get("/bots/new/")
    assert answer.status_code == 302 and answer["Location"].startswith("/sign-in/")
    web.force_login(dev)
    html = web.get("/bots/new/").content.decode()
    assert accessibility_problems(html) == [] and field_errors(html) == {}
    assert 'href="/bots/new/"' in web.get("/bots/").content.decode()


def test_registering_shows_the_handshake_and_the_secret_once(web, dev,
                                                              open_starter_url) -> None:
    web.force_login(dev)
    answer = web.post("/bots/new/", {"name": "starter", "url": open_starter_url,
                                     "public": "on"})
    assert answer.status_code == 200
    html = answer.content.decode()
    bot = Bot.objects.get(owner=dev, name="starter")
    assert bot.handshake_ok and bot.public and bot.games
    assert "Registered." in html and "The handshake passed" in html
    assert ", ".join(bot.games) in html
    assert f'value="{bot.secret}"' in html and 'data-copy="new-secret"' in html
    assert accessibility_problems(html) == []
    assert bot.secret not in web.get(f"/bots/{bot.pk}/").content.decode(), "shown once"
    assert f'href="/bots/{bot.pk}/"' in web.get("/bots/").content.decode()


def test_a_private_bot_is_registered_private(web, dev, open_starter_url) -> None:
    web.force_login(dev)
    web.post("/bots/new/", {"name": "mine", "url": open_starter_url})
    assert Bot.objects.get(name="mine").public is False


@pytest.mark.parametrize("form, field, words", [
    ({"name": "", "url": "URL"}, "id_name", "required"),
    ({"name": "x", "url": ""}, "id_url", "required"),
    ({"name": "x", "url": "ftp://example.com/"}, "id_url", "(bad_url)"),
    ({"name": "starter", "url": "URL"}, "id_name", "(bot_name_taken)"),
    ({"name": "x", "url": "http://127.0.0.1:9/"}, "id_url", "(handshake_failed)"),
])
def test_each_refusal_is_shown_at_its_field_and_nothing_is_registered(
        web, registered, open_starter_url, form, field, words) -> None:
    web.force_login(registered.owner)
    form = {k: open_starter_url if v == "URL" else v for k, v in form.items()}
    html = web.post("/bots/new/", form).content.decode()
    errors = field_errors(html)
    assert list(errors) == [field] and words in " ".join(errors[field]), errors
    assert accessibility_problems(html) == []
    assert Bot.objects.count() == 1


def test_the_owner_changes_the_name_and_url_and_a_failing_handshake_changes_nothing(
        web, registered) -> None:
    web.force_login(registered.owner)
    page = web.get(f"/bots/{registered.pk}/").content.decode()
    assert f'value="{registered.url}"' in page and accessibility_problems(page) == []
    html = web.post(f"/bots/{registered.pk}/settings/",
                    {"name": "renamed", "url": "http://127.0.0.1:9/"}).content.decode()
    errors = field_errors(html)
    assert list(errors) == ["id_url"] and "(handshake_failed)" in errors["id_url"][0]
    assert "<details open>" in html, "the form stays open at its error"
    registered.refresh_from_db()
    assert registered.name == "starter" and registered.public
    answer = web.post(f"/bots/{registered.pk}/settings/",
                      {"name": "renamed", "url": registered.url})
    assert answer.status_code == 302 and answer["Location"] == f"/bots/{registered.pk}/"
    registered.refresh_from_db()
    assert registered.name == "renamed" and not registered.public, "public unticked"
    assert "Saved. The handshake passed." in web.get(answer["Location"]).content.decode()


def test_the_owner_disables_and_enables_the_bot(web, registered) -> None:
    web.force_login(registered.owner)
    assert web.get(f"/bots/{registered.pk}/disable/").status_code == 405
    answer = web.post(f"/bots/{registered.pk}/disable/")
    assert answer.status_code == 302
    registered.refresh_from_db()
    assert not registered.enabled
    html = web.get(answer["Location"]).content.decode()
    assert "Disabled: no new seat" in html and f'action="/bots/{registered.pk}/enable/"' in html
    web.post(f"/bots/{registered.pk}/enable/")
    registered.refresh_from_db()
    assert registered.enabled


def test_the_owner_runs_the_handshake_now(web, registered, open_starter_url) -> None:
    web.force_login(registered.owner)
    answer = web.post(f"/bots/{registered.pk}/check/")
    assert "The handshake passed." in web.get(answer["Location"]).content.decode()
    Bot.objects.filter(pk=registered.pk).update(url="http://127.0.0.1:9/")
    answer = web.post(f"/bots/{registered.pk}/check/")
    html = web.get(answer["Location"]).content.decode()
    assert "The handshake failed: connection_error" in html
    registered.refresh_from_db()
    assert not registered.handshake_ok


@pytest.mark.parametrize("action", ["settings", "enable", "disable", "check", "rotate-secret"])
def test_only_the_owner_changes_a_bot(web, registered, django_user_model, action) -> None:
    before = Bot.objects.filter(pk=registered.pk).values().get()
    path = f"/bots/{registered.pk}/{action}/"
    form = {"name": "stolen", "url": registered.url}
    answer = web.post(path, form)
    assert answer.status_code == 302 and answer["Location"].startswith("/sign-in/")
    web.force_login(django_user_model.objects.create_user("other", password="x"))
    assert web.post(path, form).status_code == 404
    assert web.post(f"/bots/999999/{action}/", form).status_code == 404
    assert Bot.objects.filter(pk=registered.pk).values().get() == before


@pytest.mark.parametrize("path", ["/bots/new/", "/bots/{id}/settings/", "/bots/{id}/disable/",
                                  "/bots/{id}/check/", "/bots/{id}/rotate-secret/"])
def test_every_bot_form_needs_its_csrf_token(registered, path) -> None:
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(registered.owner)
    before = Bot.objects.filter(pk=registered.pk).values().get()
    assert browser.post(path.format(id=registered.pk),
                        {"name": "n", "url": registered.url}).status_code == 403
    assert Bot.objects.filter(pk=registered.pk).values().get() == before
    assert Bot.objects.count() == 1


def test_testing_the_bot_plays_matches_against_a_reference_bot_listed_as_check_bot_sums_up(
        web, registered) -> None:
    from games.models import Match
    from games.services import match_advance_automatic_seats

    web.force_login(registered.owner)
    page = web.get(f"/bots/{registered.pk}/").content.decode()
    assert "Test my bot" in page and accessibility_problems(page) == []
    answer = web.post(f"/bots/{registered.pk}/test/", {"game": "dice_cup",
                                                       "opponent": "random"})
    assert answer.status_code == 302 and answer["Location"] == f"/bots/{registered.pk}/#tests"
    matches = list(Match.objects.filter(series="bot_test").order_by("pk"))
    assert len(matches) == 4 and {m.game for m in matches} == {"dice_cup"}
    seats = [[(s.kind, s.bot_name) for s in m.seats.order_by("number")] for m in matches]
    assert [row.index(("webhook", str(registered.pk))) for row in seats] == [0, 1, 0, 1]
    assert all(("reference", "random") in row for row in seats)
    html = web.get(f"/bots/{registered.pk}/").content.decode()
    assert "0 finished" in html and "data-live" not in html
    poll = f'hx-get="/bots/{registered.pk}/?part=tests" hx-trigger="every 1s"'
    assert poll in html, "followed every second while they are played: their part, by htmx"
    part = web.get(f"/bots/{registered.pk}/?part=tests")
    assert part.content.decode().lstrip().startswith('<div id="tests-live"')
    assert "Settings" not in part.content.decode(), "the part alone, not the settings form"
    assert web.get(f"/bots/{registered.pk}/?part=tests",
                   HTTP_IF_NONE_MATCH=part["ETag"]).status_code == 304
    for match in matches:  # what the matches worker does with each
        match_advance_automatic_seats(match_id=match.pk)
    html = web.get(f"/bots/{registered.pk}/").content.decode()
    assert "The last 4 test matches: 4 finished" in html and "0 strikes" in html
    assert "p50" in html and "hx-trigger" not in html, "all finished: no more polling"
    listed = web.get("/matches/").content.decode()
    assert f'<a href="/bots/{registered.pk}/">test of starter</a>' in listed


def test_a_test_needs_a_game_the_bot_plays_and_its_owner(web, registered,
                                                         django_user_model) -> None:
    from games.models import Match

    web.force_login(registered.owner)
    answer = web.post(f"/bots/{registered.pk}/test/", {"game": "chess", "opponent": "random"})
    assert "Pick one of the games" in web.get(answer["Location"]).content.decode()
    Bot.objects.filter(pk=registered.pk).update(enabled=False)
    answer = web.post(f"/bots/{registered.pk}/test/", {"game": "dot", "opponent": "random"})
    assert "(bad_seats)" in web.get(answer["Location"]).content.decode()
    web.force_login(django_user_model.objects.create_user("other", password="x"))
    assert web.post(f"/bots/{registered.pk}/test/", {"game": "dot"}).status_code == 404
    csrf = Client(enforce_csrf_checks=True)
    csrf.force_login(registered.owner)
    assert csrf.post(f"/bots/{registered.pk}/test/", {"game": "dot"}).status_code == 403
    assert not Match.objects.exists()
