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
