"""``manage.py check_bot URL``: try a bot before registering it.

    python manage.py check_bot http://127.0.0.1:8001 --game dtc --matches 20 --secret whsec_...

Handshake, then ``--matches`` matches against in-process reference bots with the bot in a
rotating seat, through the match driver, caller, protocol and client of real matches, so the
failure policy is the one real matches apply (no strike limit, so every problem is counted).
Stops early after ``--max-failures`` consecutive failed moves (10; 0: never), so a bot that
times out on every move costs seconds, not minutes. Reports protocol errors, illegal actions,
strikes and latency p50/p95/max; exits non-zero if anything failed.
"""

from __future__ import annotations

import json
import sys
from collections import Counter

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from bots import protocol
from bots.caller import percentile
from bots.net import Call, client_from_settings
from bots.offline import FailureStreak, ReferenceSeat, SeatSpec, WebhookSeat, play_webhook_match
from bots.signing import new_secret
from games.engine import EngineError, game_ids, get_game


class Command(BaseCommand):
    help = "Check a webhook bot: handshake, matches against reference bots, errors and latency."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("url")
        parser.add_argument("--game", choices=game_ids(), default="dtc")
        parser.add_argument("--matches", type=int, default=20)
        parser.add_argument("--players", type=int, help="seats per match (default: the game's)")
        parser.add_argument("--opponents", default="heuristic", help="reference bot name")
        parser.add_argument("--options", default="{}", help="match options as JSON")
        parser.add_argument("--secret", default=None,
                            help="the bot's whsec_ secret (default: a throwaway one)")
        parser.add_argument("--timeout-ms", type=int, default=settings.BOTS_MOVE_TIMEOUT_MS)
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--allow-private", action="store_true",
                            default=settings.BOTS_ALLOW_PRIVATE_ADDRESSES,
                            help="allow loopback/private addresses (default: the BOTS_ALLOW_PRIVATE_ADDRESSES setting)")
        parser.add_argument("--max-failures", type=int, default=10,
                            help="stop after this many consecutive failed moves (0: never)")
        parser.add_argument("--no-progress", action="store_true")

    def handle(self, *args, url: str, game: str, matches: int, players: int | None,
               opponents: str, options: str, secret: str | None, timeout_ms: int, seed: int,
               allow_private: bool, no_progress: bool, max_failures: int, **kwargs) -> None:
        try:
            engine_game = get_game(game)
            match_options = json.loads(options)
        except (EngineError, ValueError) as exc:
            raise CommandError(str(exc)) from exc
        players = players or engine_game.default_players
        secret = secret or new_secret()
        with client_from_settings(allow_private=allow_private) as client:
            handshake = self._handshake(client, url, secret, game, timeout_ms)
            strikes: Counter = Counter()
            details: dict[str, str] = {}
            latencies: list[float] = []
            moves = defaults = wins = played = 0
            ranks: list[int] = []
            streak = FailureStreak(limit=max(0, max_failures))
            stopped = None
            progress = tqdm(range(matches), desc=f"{game} matches", unit="match",
                            disable=no_progress, file=sys.stderr)
            for m in progress:
                seat = m % players
                seats: list[SeatSpec] = [ReferenceSeat(opponents)] * players
                seats[seat] = WebhookSeat(
                    url, secret, name="checked bot",
                    compact_legal_actions=handshake.compact_legal_actions)
                try:
                    report = play_webhook_match(
                        game, seats, client=client, seed=seed + m, options=match_options,
                        timeout_ms=timeout_ms, strike_limit=None, match_id=seed + m + 1,
                        streak=streak)
                except EngineError as exc:
                    raise CommandError(str(exc)) from exc
                stats = report.seats[seat]
                strikes.update(stats.strikes)
                if stats.last_error:
                    details.setdefault(stats.last_error["reason"], stats.last_error["detail"])
                latencies += stats.latencies_ms
                moves += stats.moves
                defaults += stats.defaults
                played += 1
                # Shown at the bar's next (throttled) redraw, not one redraw per match.
                progress.set_postfix(strikes=sum(strikes.values()), refresh=False)
                if report.stopped:
                    stopped = report.stopped
                    break
                rank = report.state.result()["ranks"][seat]
                ranks.append(rank)
                wins += rank == 1
            progress.close()
        self._report(played, moves, defaults, strikes, details, latencies, ranks, wins)
        if stopped:
            self.stdout.write(self.style.WARNING(
                f"stopped early in match {played} of {matches} after {stopped}; "
                f"--max-failures {max_failures} (0: never stop)"))
        if strikes:
            raise CommandError(f"{sum(strikes.values())} failed move(s): see above")

    def _handshake(self, client, url: str, secret: str, game: str,
                   timeout_ms: int) -> protocol.Handshake:
        reply = client.call(Call(url=url, path="", body=protocol.handshake_body(), secret=secret,
                                 timeout=timeout_ms / 1000, method="GET"))
        outcome = reply.failure or protocol.parse_handshake(reply.body)
        if isinstance(outcome, protocol.Failure):
            hint = " (wrong --secret?)" if reply.status == 401 else ""
            raise CommandError(f"handshake failed: {outcome.reason}: {outcome.detail}{hint}")
        compact = (f"legal_description alone above {protocol.LEGAL_LIST_LIMIT} actions"
                   if outcome.compact_legal_actions else "always the complete legal_actions")
        self.stdout.write(f"handshake ok: {outcome.name!r} by {outcome.author!r}, "
                          f"games {outcome.games}, gets {compact} "
                          f"({reply.elapsed * 1000:.1f} ms)")
        if outcome.unknown_games:
            self.stdout.write(self.style.WARNING(
                f"the handshake lists ids that are not games here (ignored): "
                f"{outcome.unknown_games}; ours are {list(game_ids())}"))
        if game not in outcome.games:
            self.stdout.write(self.style.WARNING(f"the bot does not list {game!r} in its games"))
        return outcome

    def _report(self, matches: int, moves: int, defaults: int, strikes: Counter,
                details: dict[str, str], latencies: list[float], ranks: list[int],
                wins: int) -> None:
        out = self.stdout.write
        out(f"matches: {matches}, moves asked: {moves}, default actions played: {defaults}")
        if ranks:
            out(f"results: {wins} win(s), mean rank {sum(ranks) / len(ranks):.2f}")
        illegal = strikes.get(protocol.ILLEGAL_ACTION, 0)
        out(f"illegal actions: {illegal}, protocol errors: {sum(strikes.values()) - illegal}")
        for reason, count in sorted(strikes.items()):
            out(f"  strike {reason}: {count}  e.g. {details.get(reason, '')}")
        if latencies:
            p50, p95 = percentile(latencies, 50), percentile(latencies, 95)
            out(f"latency ms: p50 {p50:.2f}  p95 {p95:.2f}  max {max(latencies):.2f}")
        if not strikes:
            out(self.style.SUCCESS("no failures"))
