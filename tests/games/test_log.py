"""The match log is written a page per save and read back as gapless entries, whatever range
is asked for (games.log)."""

from __future__ import annotations

from typing import Any

import pytest

from games import log, selectors, services
from games.models import Match, MatchLogPage
from tests.helpers.matches import act, poll, to_move, url

pytestmark = pytest.mark.django_db


def _play_by_hand(match: Match, users: list[Any], actions: int) -> Match:
    """``actions`` moves by the seated players, each its own save (a page each)."""
    for _ in range(actions):
        match = Match.objects.get(pk=match.pk)
        state = selectors.load_state(match)
        seat = state.to_act()[0]
        services.match_submit_action(match_id=match.pk, seat_number=seat, user=users[seat],
                                     version=match.version, action=state.legal_actions(seat)[0])
    return Match.objects.get(pk=match.pk)


def test_a_match_played_to_the_end_in_one_go_is_one_page(make_match) -> None:
    match = make_match("dice_cup", ["bot:heuristic", "bot:random", "bot:heuristic"])
    assert match.status == "finished" and match.version > 20
    [page] = MatchLogPage.objects.filter(match=match)
    assert (page.first, page.last) == (0, match.version)
    assert [e.n for e in log.entries(match.pk)] == list(range(match.version + 1))


def test_each_save_is_a_page_and_ranges_cut_across_pages(make_match, alice, bob) -> None:
    match = _play_by_hand(make_match("dice_cup", [alice, bob]), [alice, bob], actions=5)
    pages = list(MatchLogPage.objects.filter(match=match).order_by("first"))
    assert [(p.first, p.last) for p in pages] == [(0, 0), (1, 1), (2, 2), (3, 3), (4, 4),
                                                  (5, 5)]
    every = list(log.entries(match.pk))
    assert [e.n for e in every] == list(range(6)) and every[0].kind == "start"
    assert all(e.version == e.n for e in every)
    assert [e.n for e in log.entries(match.pk, since=2, until=4)] == [2, 3, 4]
    assert [e.n for e in log.entries(match.pk, until=0)] == [0]
    assert list(log.entries(match.pk, since=6)) == []
    # events_after: the entries that hold engine events past that count, as a reader of
    # "events since N" needs them.
    for after in range(every[-1].event_count + 1):
        assert list(log.entries(match.pk, events_after=after)) == [
            e for e in every if e.event_count > after]


def test_a_bot_batch_is_one_page_with_every_entry_in_order(make_match, alice) -> None:
    """Reference bots answering after a person's action are stored with it: one save."""
    match = make_match("dice_cup", [alice, "bot:heuristic", "bot:random"])
    before = MatchLogPage.objects.filter(match=match).count()
    match = _play_by_hand(match, [alice, None, None], actions=1)
    last = MatchLogPage.objects.filter(match=match).order_by("-first").first()
    assert MatchLogPage.objects.filter(match=match).count() == before + 1
    assert last.last == match.version and last.last > last.first, "the bots' moves too"
    assert [e.n for e in log.entries(match.pk)] == list(range(match.version + 1))


def test_matches_created_over_are_not_cached_but_running_ones_are(
        alice, django_capture_on_commit_callbacks) -> None:
    """A worker playing a tournament's matches to the end here has no reader for them: only
    states that will be read in this process again are kept (games.states)."""
    from games.services import NewMatch
    from games.states import cached_state, state_key

    bots = [{"kind": "reference", "bot": "heuristic"}, {"kind": "reference", "bot": "random"}]
    with django_capture_on_commit_callbacks(execute=True):
        over, running = services.matches_create(game="dice_cup", created_by=alice, matches=[
            NewMatch(seats=bots, seed=1),
            NewMatch(seats=[{"kind": "player"}, bots[0]], seed=2, seat_users={0: alice})])
    assert over.status == "finished" and running.status == "running"
    assert cached_state(state_key(over)) is None
    assert cached_state(state_key(running)) is not None


def test_a_built_match_keeps_its_log_as_text_not_its_driver(alice) -> None:
    """A league batch keeps up to a second of built hands before storing them: each keeps its
    log page's text and its result, not the driver's moves for the collector to walk
    (store.take_started); the page stored is the same as a match saved at once."""
    from games.services import NewMatch, matches_build, matches_save

    bots = [{"kind": "reference", "bot": "heuristic"}, {"kind": "reference", "bot": "random"}]
    [built] = matches_build(game="dice_cup", created_by=alice,
                            matches=[NewMatch(seats=bots, seed=1)])
    assert not hasattr(built, "driver")
    assert built.over and built.started.state is None
    assert isinstance(built.started.page["entries"], str)
    assert built.result == built.match.result and built.forfeited == []
    matches_save([built])
    [page] = MatchLogPage.objects.filter(match=built.match)
    assert [e.n for e in log.page_entries(page)] == list(range(built.match.version + 1))


@pytest.mark.postgres
def test_on_postgresql_pages_are_compressed_with_lz4() -> None:
    """lz4 wrote a tournament match's page in about half pglz's time (migration 0010)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT attcompression FROM pg_attribute WHERE attrelid = "
                       "'games_matchlogpage'::regclass AND attname = 'entries'")
        assert cursor.fetchone()[0] == "l"


def test_the_stored_state_has_no_event_log_and_events_come_from_the_log(duel, alice_api,
                                                                        bob_api) -> None:
    version, legal = to_move(alice_api, duel, 0)
    act(alice_api, duel, 0, version, legal[0])
    match = Match.objects.get(pk=duel.pk)
    assert match.state["events"] == []
    entries = list(log.entries(match.pk))
    assert match.state["events_offset"] == entries[-1].event_count
    assert entries[-1].event_count == sum(len(e.events) for e in entries)
    # Polled events, with each seat's own private details only, equal the engine's.
    from games.engine import get_game

    state = get_game("dice_cup").new_match(players=2, seed=duel.seed, options=duel.options)
    state.apply(0, legal[0])
    for seat, client in ((0, alice_api), (1, bob_api)):
        for since in (0, 2, state.event_count - 1, state.event_count + 3):
            got = poll(client, duel, seat, events_since=since).json()["events"]
            assert got == state.events_since(since, seat), (seat, since)
    public = bob_api.get(url(duel, "view"), {"events_since": 1}).json()["events"]
    assert public == state.events_since(1)
