"""The site's pages: home, each game's rules, a tournament, a league. Server-rendered and
public; they show what the public API shows (never a seed), and render in a real browser
without console errors, on a phone's width too. The browser test saves a screenshot of every
page under ``screenshots/`` in BLUFF_VAR_DIR (README: "Screenshots of the pages")."""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

from games.engine import game_ids, get_game
from games.pages import rules_html
from tests.browser import SCREENSHOTS
from tests.helpers.tasks import hold_tasks
from tournaments import selectors, services
from tournaments.web.pages import entrant_names

from .conftest import REFS

pytestmark = pytest.mark.django_db(transaction=True)


def pages(site: dict[str, Any]) -> dict[str, str]:
    return {
        "home": "/",
        **{f"rules-{game}": f"/games/{game}/rules/" for game in game_ids()},
        "tournament": f"/tournaments/{site['cup'].pk}/",
        "tournament-scheduled": f"/tournaments/{site['later'].pk}/",
        "league": f"/leagues/{site['club'].pk}/",
        "night": f"/leagues/{site['club'].pk}/nights/1/",
        "replay": f"/matches/{site['cup'].matches.first().match_id}/?turn=10",
        "matches": "/matches/",
        "tournaments": "/tournaments/",
        "leagues": "/leagues/",
        **{f"game-{game}": f"/games/{game}/" for game in game_ids()},
        "sign-in": "/sign-in/",
        "sign-up": "/sign-up/",
    }


def test_the_home_page_lists_games_tournaments_and_league_nights(client, site) -> None:
    html = client.get("/").content.decode()
    for game in game_ids():
        assert f'href="/games/{game}/rules/"' in html and get_game(game).name in html
    assert "Next cup" in html and f'href="/tournaments/{site["later"].pk}/"' in html
    assert "Friday cup" not in html, "finished tournaments are not running or upcoming"
    assert "Thursday club" in html and f'href="/leagues/{site["club"].pk}/"' in html
    assert 'href="/api/docs/"' in html


def test_a_rules_page_renders_its_markdown_and_escapes_raw_html(client, tmp_path,
                                                                  settings) -> None:
    html = client.get("/games/great_dalmuti/rules/").content.decode()
    assert "<h1>" in html and "<table>" in html and "GD-12" in html
    assert client.get("/games/chess/rules/").status_code == 404
    settings.RULES_DIR = tmp_path
    (tmp_path / "dot.md").write_text("# D.O.T\n\n<script>alert(1)</script>\n")
    rules_html.cache_clear()
    try:
        rendered = str(rules_html("dot"))
    finally:
        rules_html.cache_clear()
    assert "<script>" not in rendered and "&lt;script&gt;" in rendered


def test_the_tournament_page_shows_progress_standings_with_intervals_and_matches(
        client, site) -> None:
    cup = site["cup"]
    html = client.get(f"/tournaments/{cup.pk}/").content.decode()
    assert "Friday cup" in html and "6 of 6 matches finished" in html
    assert html.count('class="range"') == 4 and html.count('class="mark"') == 4
    for ref in REFS:
        assert ref["name"] in html
    assert len(re.findall(r'href="/matches/\d+/"', html)) == 6, "each match's replay"
    names = entrant_names(selectors.tournament_participants(tournament=cup))
    for row in cup.matches.all():
        winners = ", ".join(names[seat] for seat, rank in zip(row.seats, row.ranks) if rank == 1)
        table = html.split("<h2>Matches</h2>")[1]
        shown = table.split(f'<tr><td class="num">{row.number + 1}</td>')[1].split("</tr>")[0]
        assert f"<td>finished</td><td class=\"wrap\" data-label=\"won by\">{winners}</td>" in shown, "each match's result"
    assert "Won by" in html
    assert "424242424242" not in html, "no seed on a page"
    assert client.get("/tournaments/999999/").status_code == 404


def test_running_pages_refresh_themselves_and_finished_ones_do_not(client, site, alice,
                                                                  monkeypatch) -> None:
    hold_tasks(monkeypatch, "tournaments.")
    running = services.tournament_create(organiser=alice, name="Live cup", game="dice_cup",
                                         participants=REFS[:2], table_size=2)
    assert 'hx-trigger="every 5s"' in client.get(f"/tournaments/{running.pk}/").content.decode()
    done = client.get(f"/tournaments/{site['cup'].pk}/").content.decode()
    assert "hx-trigger" not in done and "data-live" not in done
    assert "live.js" not in done, "no page reloads its whole <main> any more: htmx parts"


def test_the_league_page_shows_the_season_table_nights_and_next_night(client, site) -> None:
    club = site["club"]
    html = client.get(f"/leagues/{club.pk}/").content.decode()
    assert "Thursday club" in html and "Season table" in html and "Next night" in html
    assert re.search(r"Next night: <time[^>]*>[^<]*(CET|CEST)</time>", html), \
        "in the league's own time zone"
    assert html.count("<tr") >= 1 + 5 + 1 + 1, "a row per member and the night"
    assert "finished" in html
    assert "515151515151" not in html, "no seed on a page"
    assert "Season points" in html and "Place in the social order" in html
    assert html.count("<polyline") == 2 * 5, "a line per member in each chart"
    assert html.count("<title>heuristic (reference bot) “ref0”</title>") == 2 * 2, \
        "a member by its bot's name, the league's label beside it"
    assert 'class="legend"' in html
    assert client.get("/leagues/999999/").status_code == 404


def _chromium(url: str, screenshot: Path, width: int) -> str:
    """Render ``url`` headless, save a screenshot, return what the browser logged."""
    with tempfile.TemporaryDirectory() as profile:
        done = subprocess.run(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--enable-logging=stderr", "--v=0", f"--user-data-dir={profile}",
             f"--window-size={width},1400", f"--screenshot={screenshot}", url],
            capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stderr


@pytest.mark.browser
def test_every_page_renders_in_a_browser_without_console_errors(live_server, site) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for name, path in pages(site).items():
        for width, suffix in ((1280, ""), (390, "-phone")):
            shot = SCREENSHOTS / f"{name}{suffix}.png"
            log = _chromium(live_server.url + path, shot, width)
            console = [line for line in log.splitlines() if ":CONSOLE" in line]
            assert not console, f"{path}: {console}"
            assert shot.stat().st_size > 5000, f"{path}: an empty screenshot"


#: Players per game in the replay screenshots (a table of a typical size).
TABLE_SIZES = {"dtc": 4, "great_dalmuti": 5, "dutch": 3, "dice_cup": 3, "dot": 2}


@pytest.mark.browser
@pytest.mark.parametrize("game", game_ids())
def test_a_replay_mid_match_draws_the_games_table(live_server, alice, game) -> None:
    """Each game's table halfway through a finished match, on a desktop and a phone's width:
    saved as ``replay-<game>.png`` to look at, and drawn without console errors."""
    from games import services as matches

    match = matches.match_create(
        game=game, created_by=alice, seed=777,
        seats=[{"kind": "reference", "bot": ("heuristic", "random")[i % 2]}
               for i in range(TABLE_SIZES[game])])
    assert match.status == "finished"
    path = f"/matches/{match.pk}/?turn={match.version // 2}"
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for width, suffix in ((1280, ""), (375, "-phone")):
        shot = SCREENSHOTS / f"replay-{game}{suffix}.png"
        console = [line for line in _chromium(live_server.url + path, shot, width).splitlines()
                   if ":CONSOLE" in line]
        assert not console, f"{path}: {console}"
        assert shot.stat().st_size > 20000, f"{path}: an empty screenshot"


@pytest.mark.browser
def test_at_a_phones_width_no_page_scrolls_sideways(live_server, site, browser) -> None:
    """At 390 px wide every page fits: wide tables scroll inside their own box (the page
    never does), and the season table keeps its names readable."""
    browser.set_window_size(390, 900)
    too_wide = []
    for name, path in pages(site).items():
        browser.get(live_server.url + path)
        wide = browser.execute_script(
            "return [document.documentElement.scrollWidth, window.innerWidth]")
        if wide[0] > wide[1]:
            too_wide.append(f"{name} ({path}) is {wide[0]} px wide at {wide[1]} px")
    assert not too_wide, too_wide
    browser.get(live_server.url + pages(site)["league"])
    smallest = browser.execute_script(
        "return Math.min(...Array.from(document.querySelectorAll('table td'),"
        " td => parseFloat(getComputedStyle(td).fontSize)))")
    assert smallest >= 12, f"season table text at {smallest} px"
    labels = browser.execute_script(
        "return Array.from(document.querySelectorAll('figure.chart .axis, figure.chart .legend'),"
        " e => e.getBoundingClientRect().height)")
    assert labels and min(labels) >= 11, f"chart labels {labels} px high: unreadable"


def test_a_match_links_to_its_tournament_or_league_night(client, site) -> None:
    from tournaments.models import Hand

    cup, club = site["cup"], site["club"]
    first = cup.matches.order_by("number").first()
    html = client.get(f"/matches/{first.match_id}/").content.decode()
    assert (f'Part of <a href="/tournaments/{cup.pk}/">Friday cup, round {first.round + 1}, '
            f'match 1</a>') in html
    hand = Hand.objects.filter(night__league=club).order_by("number", "table").first()
    html = client.get(f"/matches/{hand.match_id}/").content.decode()
    assert (f'<a href="/leagues/{club.pk}/nights/1/#table-1">Thursday club, night 1, table 1, '
            f'hand {hand.number}</a>') in html
    assert 'id="night-1"' in client.get(f"/leagues/{club.pk}/").content.decode()
    listed = client.get("/matches/").content.decode()
    assert f'href="/tournaments/{cup.pk}/">Friday cup, round' in listed
    assert f'href="/leagues/{club.pk}/nights/1/#table-1">Thursday club, night 1' in listed
