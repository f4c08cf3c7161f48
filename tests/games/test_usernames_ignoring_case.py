"""Usernames are unique whatever their case, in the database itself (games migration 0011): a
sign-up that loses a race for a name answers the same 400 as a taken name, and the migration
refuses to run over accounts that already differ only in case, naming them."""

from __future__ import annotations

import threading
from pathlib import Path

import httpx
import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction

from ..gunicorn import TEST_APP, serving
from ..migrations import migrate, migrate_to_latest

BEFORE = [("games", "0010_log_pages_lz4")]
AFTER = [("games", "0011_usernames_unique_ignoring_case")]
INDEX = "auth_user_username_lower_uniq"


def _index_exists() -> bool:
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, "auth_user")
    return INDEX in constraints and constraints[INDEX]["unique"]


@pytest.mark.django_db
def test_the_database_refuses_a_name_differing_only_in_case() -> None:
    users = get_user_model().objects
    users.create_user(username="alice")
    with pytest.raises(IntegrityError), transaction.atomic():
        users.create(username="ALICE")  # no check in Python: the index refuses it
    users.create_user(username="alice2")
    assert users.count() == 2


@pytest.mark.django_db(transaction=True)
def test_the_migration_names_existing_case_duplicates_then_adds_the_index() -> None:
    try:
        apps = migrate(BEFORE)
        assert not _index_exists()
        users = apps.get_model("auth", "User").objects
        for name in ("Alice", "alice", "bob", "BOB", "Bob", "carol"):
            users.create(username=name)
        with pytest.raises(RuntimeError) as refused:
            migrate(AFTER)
        message = str(refused.value)
        assert "2 group(s)" in message
        assert "'Alice', 'alice'" in message and "'BOB', 'Bob', 'bob'" in message
        assert "carol" not in message
        assert not _index_exists()

        users.filter(username__in=["alice", "BOB", "Bob"]).delete()
        migrate(AFTER)
        assert _index_exists()
        migrate(BEFORE)
        assert not _index_exists(), "the migration reverses"
    finally:
        # By SQL: the models of today would also clear tables (a ladder entry's owner) that
        # do not exist at the migration the test stopped at. Nothing else refers to its users.
        with connection.cursor() as cursor:
            cursor.execute("DELETE FROM auth_user")
        migrate_to_latest()
    assert _index_exists()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_racing_sign_ups_of_one_name_in_any_case_make_one_account(tmp_path: Path) -> None:
    # "alice", "Alice", "aLice", ... "ALICE": every case of the name (32), some twice.
    names = ["".join(c.upper() if (i >> k) & 1 else c for k, c in enumerate("alice"))
             for i in range(50)]
    assert len({name.lower() for name in names}) == 1 and len(set(names)) == 32
    start = threading.Barrier(len(names))
    answers: list[httpx.Response] = []

    def sign_up(base: str, name: str) -> None:
        with httpx.Client(base_url=base, timeout=60) as client:
            start.wait()
            answers.append(client.post("/api/auth/signup/",
                                       json={"username": name, "password": "a long passphrase"}))

    with serving(tmp_path, workers=2, app=TEST_APP,
                 env={"BLUFF_THROTTLE_SIGNUP": "100000/min"}) as base:
        threads = [threading.Thread(target=sign_up, args=(base, name)) for name in names]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    codes = sorted(answer.status_code for answer in answers)
    assert codes == [201] + [400] * (len(names) - 1), codes
    for answer in answers:
        if answer.status_code == 400:
            assert answer.json() == {"code": "invalid",
                                     "detail": "username: this username is taken",
                                     "fields": {"username": ["this username is taken"]}}
    assert list(get_user_model().objects.values_list("username", flat=True)) == [
        next(a.json()["username"] for a in answers if a.status_code == 201)]
