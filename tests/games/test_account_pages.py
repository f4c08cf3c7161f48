"""A person's account in the browser: sign up and sign in with each error shown at its field
(a password's rules as help, not as errors), the header saying who is signed in, and the
account page: the API token to copy, replaced by a POST with its CSRF token, and the docs."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from games.services import user_sign_up
from tests.forms import accessibility_problems, field_errors

pytestmark = pytest.mark.django_db

PASSWORD = "a long passphrase 42"


@pytest.fixture
def web() -> Client:
    return Client()


@pytest.fixture
def alice() -> Any:
    user, _ = user_sign_up(username="alice", password=PASSWORD)
    return user


def test_the_sign_up_form_labels_every_field_and_shows_the_rules_as_help(web) -> None:
    html = web.get("/sign-up/").content.decode()
    assert accessibility_problems(html) == []
    assert field_errors(html) == {}, "no error before anything is sent"
    assert 'class="helptext" id="id_password1_helptext"' in html
    assert 'aria-describedby="id_password1_helptext"' in html


def test_signing_up_signs_in_and_lands_on_the_account_with_its_token(web) -> None:
    answer = web.post("/sign-up/", {"username": "newdev", "password1": PASSWORD,
                                    "password2": PASSWORD})
    assert answer.status_code == 302 and answer["Location"] == "/account/"
    html = web.get("/account/").content.decode()
    token = Token.objects.get(user__username="newdev").key
    assert f'value="{token}"' in html and 'data-copy="api-token"' in html
    assert "Signed in as <strong>newdev</strong>" in html and "Sign out" in html
    assert accessibility_problems(html) == []


@pytest.mark.parametrize("form, field, words", [
    ({"username": "ALICE", "password1": PASSWORD, "password2": PASSWORD}, "id_username",
     "already exists"),
    ({"username": "", "password1": PASSWORD, "password2": PASSWORD}, "id_username", "required"),
    ({"username": "bob", "password1": PASSWORD, "password2": PASSWORD + "x"}, "id_password2",
     "didn’t match"),
    ({"username": "bob", "password1": "123", "password2": "123"}, "id_password2", "too short"),
    ({"username": "bo b!", "password1": PASSWORD, "password2": PASSWORD}, "id_username",
     "valid username"),
])
def test_each_sign_up_error_is_shown_at_its_field(web, alice, form, field, words) -> None:
    answer = web.post("/sign-up/", form)
    assert answer.status_code == 200
    html = answer.content.decode()
    errors = field_errors(html)
    assert list(errors) == [field] and words in " ".join(errors[field]), errors
    assert 'aria-invalid="true"' in html and accessibility_problems(html) == []
    assert "_auth_user_id" not in web.session, "not signed in"


def test_a_wrong_password_is_said_above_the_form_and_a_right_one_signs_in(web, alice) -> None:
    html = web.post("/sign-in/", {"username": "alice", "password": "nope"}).content.decode()
    errors = field_errors(html)
    assert list(errors) == [""] and "correct username and password" in errors[""][0]
    assert accessibility_problems(html) == []
    answer = web.post("/sign-in/", {"username": "alice", "password": PASSWORD})
    assert answer.status_code == 302
    assert "Signed in as <strong>alice</strong>" in web.get("/").content.decode()


def test_the_forms_need_their_csrf_token(alice) -> None:
    browser = Client(enforce_csrf_checks=True)
    assert browser.post("/sign-up/", {"username": "x", "password1": PASSWORD,
                                      "password2": PASSWORD}).status_code == 403
    assert browser.post("/sign-in/", {"username": "alice",
                                      "password": PASSWORD}).status_code == 403
    browser.force_login(alice)
    token = Token.objects.get(user=alice).key
    assert browser.post("/account/token/").status_code == 403
    assert Token.objects.get(user=alice).key == token, "not replaced without the CSRF token"


def test_the_account_page_needs_signing_in(web) -> None:
    answer = web.get("/account/")
    assert answer.status_code == 302 and answer["Location"].startswith("/sign-in/")
    assert web.post("/account/token/").status_code == 302
    assert "Signed in as" not in web.get("/").content.decode()


def test_the_account_page_links_to_the_docs_and_is_never_cached(web, alice) -> None:
    web.force_login(alice)
    answer = web.get("/account/")
    html = answer.content.decode()
    assert 'href="/api/docs/"' in html and 'href="/api/redoc/"' in html
    assert "no-store" in answer["Cache-Control"], "a token on the page"


def test_replacing_the_token_kills_the_old_one(web, alice) -> None:
    old = Token.objects.get(user=alice).key
    web.force_login(alice)
    assert web.get("/account/token/").status_code == 405, "only a POST replaces it"
    answer = web.post("/account/token/")
    assert answer.status_code == 302 and answer["Location"] == "/account/?rotated=1"
    new = Token.objects.get(user=alice).key
    assert new != old
    html = web.get(answer["Location"]).content.decode()
    assert f'value="{new}"' in html and "the old one no longer works" in html
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {old}")
    assert api.get("/api/bots/").status_code == 401
    api.credentials(HTTP_AUTHORIZATION=f"Token {new}")
    assert api.get("/api/bots/").status_code == 200
