"""``manage.py serve_bots``: the reference bots as real HTTP bots speaking protocol v1.

    python manage.py serve_bots --port 8765 [--move-delay-ms 50]
    # then register http://<host>:8765/heuristic (any game) or http://<host>:8765/dtc/random
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from bots.refserver import RefBotServer


class Command(BaseCommand):
    help = "Serve the reference bots (random, heuristic; any game or per game) over HTTP."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="127.0.0.1",
                            help="address to listen on (0.0.0.0 to reach it from elsewhere)")
        parser.add_argument("--port", type=int, default=8765)
        parser.add_argument("--secret", default=None,
                            help="a whsec_... secret: reject calls not signed with it")
        parser.add_argument("--move-delay-ms", type=float, default=0.0,
                            help="answer each /move this many ms after it arrives, as a bot "
                                 "across the internet would (default 0: at once)")

    def handle(self, *args, host: str, port: int, secret: str | None, move_delay_ms: float,
               **kwargs) -> None:
        try:
            server = RefBotServer((host, port), secret=secret, move_delay=move_delay_ms / 1000)
        except ValueError as exc:
            raise CommandError(f"--move-delay-ms: {exc}") from None
        base = server.base_url
        delay = f", each /move answered after {move_delay_ms:g} ms" if move_delay_ms else ""
        self.stdout.write(f"Reference bots on {base} (signatures "
                          f"{'checked' if secret else 'not checked'}{delay}); register one of:")
        for name in server.bot_names:
            self.stdout.write(f"  {base}/{name}    (games: {', '.join(server.games)})")
        for game_id in server.games:
            self.stdout.write(f"  {base}/{game_id}/<{'|'.join(server.bot_names)}>")
        self.stdout.flush()
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            server.server_close()
