"""Throttles count the address a request came from, not the one it claims, and wrong passwords
are counted per account too (lib/throttling.py, docs/api.md "Throttling")."""

from __future__ import annotations

import time
from ipaddress import ip_network

import pytest
from rest_framework.test import APIClient

from lib import throttling
from lib.throttling import client_address, count_request

pytestmark = pytest.mark.django_db

PROXY = "10.0.0.2"
PROXIES = [ip_network("10.0.0.0/24")]


def _token(client: APIClient, username: str, password: str = "wrong password", *,
           peer: str = "198.51.100.7", forwarded: str | None = None):
    extra = {"REMOTE_ADDR": peer}
    if forwarded is not None:
        extra["HTTP_X_FORWARDED_FOR"] = forwarded
    return client.post("/api/auth/token/", {"username": username, "password": password},
                       format="json", **extra)


def _codes(answers) -> list[int]:
    return [answer.status_code for answer in answers]


def test_a_forged_forwarded_for_changes_nothing_for_a_direct_client(anon_api) -> None:
    answers = [_token(anon_api, f"guess{i}", forwarded=f"203.0.113.{i}") for i in range(20)]
    assert _codes(answers) == [401] * 10 + [429] * 10  # the signup scope: 10/min an address
    refused = answers[-1]
    assert refused.json()["code"] == "throttled"
    # The sliding window (docs/api.md, Throttling): a period's N requests made at its very start
    # weigh on the next period until a share 1/N of it has passed, so the wait can reach
    # 60 * (1 + 1/10) = 66 s, depending on where in the wall clock's minute the test runs.
    assert 0 < refused.json()["retry_after"] <= 66
    assert refused["Retry-After"] == str(refused.json()["retry_after"])
    assert _token(anon_api, "guess", peer="198.51.100.8").status_code == 401, "per address"


def test_behind_a_trusted_proxy_each_forwarded_address_is_counted(settings, anon_api) -> None:
    settings.BLUFF_TRUSTED_PROXIES = PROXIES
    answers = [_token(anon_api, f"guess{i}", peer=PROXY, forwarded=f"forged, 203.0.113.{i}")
               for i in range(20)]
    assert _codes(answers) == [401] * 20
    answers = [_token(anon_api, f"again{i}", peer=PROXY, forwarded=f"203.0.113.{i % 2 + 50}")
               for i in range(24)]
    assert _codes(answers) == [401] * 20 + [429] * 4
    # A client that is not the proxy is counted by its own address, whatever it forwards.
    answers = [_token(anon_api, f"direct{i}", peer="198.51.100.9", forwarded=f"203.0.113.{i}")
               for i in range(11)]
    assert _codes(answers) == [401] * 10 + [429]


@pytest.mark.parametrize("peer, forwarded, seen", [
    ("198.51.100.7", "203.0.113.1", "198.51.100.7"),         # not a proxy: the header is ignored
    (PROXY, None, PROXY),                                     # the proxy itself
    (PROXY, "203.0.113.1", "203.0.113.1"),
    (PROXY, "1.2.3.4, 203.0.113.1", "203.0.113.1"),           # what the client wrote is ignored
    (PROXY, "203.0.113.1, 10.0.0.7", "203.0.113.1"),          # through two trusted proxies
    (PROXY, "203.0.113.1, not-an-address", PROXY),             # garbage: believe no further
    (PROXY, " 2001:db8::1 ", "2001:db8::1"),
])
def test_the_client_address(settings, peer, forwarded, seen) -> None:
    settings.BLUFF_TRUSTED_PROXIES = PROXIES
    meta = {"REMOTE_ADDR": peer} | ({"HTTP_X_FORWARDED_FOR": forwarded} if forwarded else {})
    assert client_address(meta) == seen


def test_the_counter_weighs_the_previous_period() -> None:
    start = 1_000_020.0  # 1000020 = 16667 * 60: a period starts here
    assert [count_request("k", 10, 60, start + i) for i in range(10)] == [None] * 10
    wait = count_request("k", 10, 60, start + 10)
    assert wait == pytest.approx(50 + 60 / 10), "full: into the next period, a tenth of it"
    assert count_request("k", 10, 60, start + 65) is not None, "10 * (1 - 5/60) > 9"
    assert count_request("k", 10, 60, start + 66.5) is None, "10 * (1 - 6.5/60) <= 9"
    assert count_request("k", 10, 60, start + 130) is None, "two periods on: forgotten"


def test_wrong_passwords_lock_the_account_whatever_the_address(settings, anon_api,
                                                               make_user) -> None:
    settings.BLUFF_TRUSTED_PROXIES = PROXIES
    settings.BLUFF_LOGIN_FAILURE_LIMIT = 10
    make_user("alice", "the right passphrase")
    make_user("bob", "the right passphrase")
    answers = [_token(anon_api, "alice" if i % 2 else "ALICE", peer=PROXY,
                      forwarded=f"203.0.113.{i}") for i in range(20)]
    assert _codes(answers) == [401] * 10 + [429] * 10
    locked = answers[10].json()
    assert locked["code"] == "account_locked" and locked["retry_after"] == 900
    assert locked["detail"] == ("Too many wrong passwords for this account. "
                                "Try again in 900 seconds.")
    assert answers[10]["Retry-After"] == "900"
    right = _token(anon_api, "alice", "the right passphrase", peer=PROXY, forwarded="192.0.2.1")
    assert right.status_code == 429, "locked even for the right password"
    assert _token(anon_api, "bob", "the right passphrase", peer=PROXY,
                  forwarded="192.0.2.1").status_code == 200, "other accounts are not locked"


def test_the_lock_ends_after_its_window_and_right_passwords_are_not_failures(
        settings, anon_api, make_user) -> None:
    settings.BLUFF_LOGIN_FAILURE_LIMIT = 3
    settings.BLUFF_LOGIN_LOCKOUT_SECONDS = 1
    make_user("alice", "the right passphrase")
    for _ in range(5):  # right passwords never count
        assert _token(anon_api, "alice", "the right passphrase").status_code == 200
    assert _codes(_token(anon_api, "alice") for _ in range(4)) == [401, 401, 401, 429]
    time.sleep(1.1)
    again = "198.51.100.8"  # another address: the first one has used up its 10/min
    assert _token(anon_api, "alice", "the right passphrase", peer=again).status_code == 200
    assert _codes(_token(anon_api, "alice", peer=again) for _ in range(4)) == [401, 401, 401, 429]


def test_the_sign_in_page_counts_wrong_passwords_too(settings, client, make_user) -> None:
    settings.BLUFF_LOGIN_FAILURE_LIMIT = 2
    make_user("alice", "the right passphrase")
    for _ in range(2):
        page = client.post("/sign-in/", {"username": "alice", "password": "wrong"})
        assert page.status_code == 200 and b"Too many" not in page.content
    assert _token(APIClient(), "alice").json()["code"] == "account_locked", "one count for both"
    page = client.post("/sign-in/", {"username": "alice", "password": "the right passphrase"})
    assert page.status_code == 200 and b"Too many wrong passwords for this account" in page.content


def test_the_lock_key_never_holds_the_raw_username() -> None:
    assert throttling._account_key("Alice Smith ") == throttling._account_key("alice smith ")
    assert " " not in throttling._account_key("Alice Smith ")
