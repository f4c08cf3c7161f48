"""People's own pages: sign up, the sign-in form (in Django's own sign-in and -out views) with
the API's per-account limit of wrong passwords, the account page, where a person finds,
copies and replaces the API token their programs use, and their matches, those waiting on
them first. The same services as the API (``games.services.accounts``), so an account made here
is the one ``/api/auth/token/`` knows.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model, login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from lib.throttling import AccountLocked, password_accepted, password_attempt

from . import selectors
from .links import series_of
from .pages import MATCHES_PER_PAGE, match_rows
from .services.accounts import user_sign_up, user_token, user_token_rotate


class SignUpForm(UserCreationForm):
    """A person's account (the API's tokens come with it: ``user_sign_up``)."""

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username",)

    def save(self, commit: bool = True) -> Any:
        user, _ = user_sign_up(username=self.cleaned_data["username"],
                               password=self.cleaned_data["password1"])
        return user


def sign_up(request: HttpRequest) -> HttpResponse:
    """Create an account, sign in with it and land on the account page (its API token and
    what to do next)."""
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            with transaction.atomic():
                user = form.save()
        except IntegrityError:  # another sign-up took the name (in some case) meanwhile
            form.add_error("username", "this username is taken")
        else:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            return redirect("account")
    return render(request, "games/sign_up.html", {"form": form})


class SignInForm(AuthenticationForm):
    """Django's sign-in form, counting wrong passwords per account as ``/api/auth/token/``
    does (lib.throttling): a locked account cannot be guessed here either."""

    def clean(self) -> dict[str, Any]:
        username = self.cleaned_data.get("username")
        if not username or not self.cleaned_data.get("password"):
            return super().clean()
        try:
            attempt = password_attempt(username)
        except AccountLocked as locked:
            raise ValidationError(str(locked.detail), code="account_locked") from None
        cleaned = super().clean()  # a wrong password raises here, and stays counted
        password_accepted(attempt)
        return cleaned


@never_cache
@login_required
def account(request: HttpRequest) -> HttpResponse:
    """Who is signed in, their API token (to copy; ``?rotated=1`` after a rotation says the
    old one is dead) and where the docs are."""
    return render(request, "games/account.html", {
        "token": user_token(user=request.user), "rotated": "rotated" in request.GET})


@login_required
@require_POST
def rotate_token(request: HttpRequest) -> HttpResponse:
    """A new API token; the old one stops working at once. Back to the account page (a
    reload there does not rotate again)."""
    user_token_rotate(user=request.user)
    return redirect("/account/?rotated=1")


@login_required
def my_matches(request: HttpRequest) -> HttpResponse:
    """The person's matches: first those waiting on them (their seat is asked: a plain match,
    a tournament's or a league night's alike, with what it is part of and its deadline), the
    tournaments and leagues they play in or organise, then every match they sit in, newest
    first, paginated."""
    waiting = selectors.seats_to_act(user=request.user)
    mine = selectors.match_list(player=request.user.get_username())
    page = Paginator(mine, MATCHES_PER_PAGE).get_page(request.GET.get("page"))
    return render(request, "games/my_matches.html", {
        "seats_to_act": waiting, "waiting": match_rows(seat.match for seat in waiting),
        "page": page, "rows": match_rows(page.object_list), "series": series_of(request.user),
    })
