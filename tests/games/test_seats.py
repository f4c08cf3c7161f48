"""games.seats: the seat-kind registry."""

from __future__ import annotations

import pytest

from games.seats import get_seat_kind, unregister_seat_kind

pytestmark = pytest.mark.django_db


def test_seat_kind_registry() -> None:
    assert get_seat_kind("player").automatic is None
    assert get_seat_kind("reference").inline
    unregister_seat_kind("player")  # built-ins stay
    assert get_seat_kind("player")
    with pytest.raises(KeyError):
        get_seat_kind("carrier_pigeon")
