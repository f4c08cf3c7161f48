"""What every page's header needs: how many of the signed-in person's seats are asked to act
now (the badge beside "My matches"), read only if the page draws it."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from . import selectors


def seats_to_act(request: HttpRequest) -> dict[str, Any]:
    """``seats_to_act``: the person's seats asked now (``selectors.seats_to_act``), lazily; a
    view that has them already passes its own under the same name."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {"seats_to_act": SimpleLazyObject(lambda: selectors.seats_to_act(user=user))}
