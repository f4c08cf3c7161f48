"""The admin never shows a bot's signing secret in clear."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from bots.models import Bot
from bots.signing import new_secret

pytestmark = pytest.mark.django_db


def test_the_bot_admin_never_shows_the_secret(admin_client) -> None:
    owner = get_user_model().objects.create_user(username="ada")
    secret = new_secret()
    bot = Bot.objects.create(owner=owner, name="b", url="https://bot.example/", secret=secret,
                             games=["dice_cup"], handshake_ok=True)
    for path in ("/admin/bots/bot/", f"/admin/bots/bot/{bot.pk}/change/"):
        page = admin_client.get(path).content
        assert secret.encode() not in page and secret.removeprefix("whsec_").encode() not in page
    assert b"whsec_" in admin_client.get(f"/admin/bots/bot/{bot.pk}/change/").content, (
        "a hint that a secret is set")


def test_what_a_bot_said_in_a_running_match_is_hidden_until_it_is_over(admin_client) -> None:
    from bots.models import BotCall, BotSeat
    from games.models import Match

    owner = get_user_model().objects.create_user(username="ada")
    bot = Bot.objects.create(owner=owner, name="b", url="https://bot.example/",
                             secret=new_secret(), games=["dice_cup"], handshake_ok=True)
    match = Match.objects.create(game="dice_cup", seed=1, players=2, state={},
                                 status="running")
    call = BotCall.objects.create(bot=bot, match=match, seat=0, path="move", elapsed_ms=1,
                                  reason="illegal_action", detail="tried commit card SECRET7",
                                  log="my hand is SECRET8")
    seat = BotSeat.objects.create(match=match, number=0, bot=bot,
                                  last_error={"detail": "tried SECRET9"})
    pages = [f"/admin/bots/botcall/{call.pk}/change/", f"/admin/bots/botseat/{seat.pk}/change/"]
    for path in pages:
        page = admin_client.get(path)
        assert page.status_code == 200 and b"SECRET" not in page.content, path
    found = admin_client.get("/admin/bots/botcall/?q=SECRET7").content
    assert f"/admin/bots/botcall/{call.pk}/change/".encode() not in found, "no search oracle"
    Match.objects.filter(pk=match.pk).update(status="finished")
    assert all(b"SECRET" in admin_client.get(path).content for path in pages), "shown after"


def test_a_bots_versions_are_listed_read_only(admin_client) -> None:
    from bots.models import BotVersion

    owner = get_user_model().objects.create_user(username="ada")
    bot = Bot.objects.create(owner=owner, name="b", url="https://bot.example/",
                             secret=new_secret(), games=["dice_cup"], handshake_ok=True)
    version = BotVersion.objects.create(bot=bot, number=2, url="https://bot.example/v2",
                                        declared_version="2.0")
    listed = admin_client.get("/admin/bots/botversion/").content.decode()
    assert "https://bot.example/v2" in listed and "2.0" in listed
    page = admin_client.get(f"/admin/bots/botversion/{version.pk}/change/")
    assert page.status_code == 200 and b'name="_save"' not in page.content, "read-only"
    assert admin_client.get("/admin/bots/botversion/add/").status_code == 403
