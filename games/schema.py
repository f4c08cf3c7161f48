"""OpenAPI shapes of each game's views and actions, built from the engine itself.

The engine is the only place the rules live, so the schema is not written by hand: for every
registered game, seeded random matches are played once (at import) at every player count, with
the default options and with every option moved off its default, and the keys and JSON types of
the views and of the legal actions seen become one serializer per game (``DotView``,
``DotAction``, ...); the action ``type`` enums are the types seen, so an option-only action (the
Great Dalmuti's merchant exchange) is in them. The poll answer is one component per game,
discriminated by ``game`` (``SeatPollDot``, ...), with an example of each. The act body's
``action`` is ``ActionRequest``, an ``anyOf`` of the games' actions: the body does not name the
game, and games share action types (``pass``, ``call``, ``discard``), so a ``oneOf`` would refuse
them.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any

from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.plumbing import ResolvedComponent
from drf_spectacular.utils import (
    OpenApiExample,
    PolymorphicProxySerializer,
    extend_schema_serializer,
)
from rest_framework import serializers

from .engine import BadOptions, Game, Rng, game_ids, get_game

JSON = dict[str, Any]
COMMON_VIEW_KEYS = ("game", "players", "seat", "moves", "to_act", "is_over")
SAMPLE_SEEDS = range(3)
SAMPLE_MOVES = 400
#: Legal actions kept per decision: the first and the last ones (lists are grouped by type).
SAMPLE_ACTIONS_EACH_END = 30


def _camel(game_id: str) -> str:
    return "".join(part.capitalize() for part in game_id.split("_"))


def _field(values: list[Any], *, required: bool, help_text: str = "") -> serializers.Field:
    kinds = {type(v) for v in values if v is not None}
    nullable = any(v is None for v in values)
    kw: JSON = {"required": required, "allow_null": nullable, "help_text": help_text or None}
    if kinds == {bool}:
        return serializers.BooleanField(**kw)
    if kinds == {int}:
        return serializers.IntegerField(**kw)
    if kinds == {str}:
        return serializers.CharField(**kw)
    if kinds == {list}:
        return serializers.ListField(child=serializers.JSONField(), **kw)
    if kinds == {dict}:
        return serializers.DictField(**kw)
    return serializers.JSONField(**kw)


class GameIdField(serializers.CharField):
    """A game id, documented as the enum of the registered games (component ``GameId``) or,
    with ``only``, of that one game (``DotGameId``, ...: what discriminates per-game shapes).
    It validates as a plain string: an unknown game is the engine's to refuse, except with
    ``registered`` (a list's filter, where no engine is asked and an unknown game would just
    match nothing): then it is ``invalid``, naming the games."""

    default_error_messages = {"unknown_game": "no game {game!r} (have: {games})"}

    def __init__(self, *, only: str | None = None, registered: bool = False,
                 **kwargs: Any) -> None:
        self.only, self.registered = only, registered
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> str:
        value = super().to_internal_value(data)
        if self.registered and value not in game_ids():
            self.fail("unknown_game", game=value, games=", ".join(game_ids()))
        return value


class GameIdFieldExtension(OpenApiSerializerFieldExtension):
    target_class = GameIdField
    match_subclasses = True

    def get_name(self) -> str:
        return f"{_camel(self.target.only)}GameId" if self.target.only else "GameId"

    def map_serializer_field(self, auto_schema: Any, direction: str) -> JSON:
        only = self.target.only
        if only:
            return {"type": "string", "enum": [only], "description": f'Always "{only}".'}
        return {"type": "string", "enum": list(game_ids()),
                "description": "Engine game id (GET /api/games/ lists the games)."}


class AnyGameActionField(serializers.JSONField):
    """An action of any game (the act body does not name the game: the match does)."""


class AnyGameActionFieldExtension(OpenApiSerializerFieldExtension):
    """``AnyGameActionField`` as ``ActionRequest``: an ``anyOf`` of every game's action."""

    target_class = AnyGameActionField
    match_subclasses = True

    def map_serializer_field(self, auto_schema: Any, direction: str) -> JSON:
        refs = [auto_schema.resolve_serializer(action_serializer(game_id), direction).ref
                for game_id in game_ids()]
        name = "ActionRequest" if direction == "request" else "Action"
        component = ResolvedComponent(
            name=name, type=ResolvedComponent.SCHEMA, object=name,
            schema={"anyOf": refs, "description": "An action of one of the games (anyOf: the "
                                                  "games share some action types)."})
        auto_schema.registry.register_on_missing(component)
        return component.ref


def _sample_setups(game: Game) -> Iterator[tuple[int, JSON, range]]:
    """(players, options, seeds) to sample: the default setup with a few seeds, then one seed at
    every player count with the default options and with every option moved off its default
    (booleans flipped, a null integer set to its minimum) where the engine accepts it."""
    yield game.default_players, {}, SAMPLE_SEEDS
    moved = {opt.name: (not opt.default) if opt.type is bool else opt.minimum or 1
             for opt in game.options
             if opt.type is bool or (opt.type is int and opt.default is None)}
    for players in range(game.min_players, game.max_players + 1):
        for options in ({}, moved) if moved else ({},):
            try:
                game.check_options(options, players)
            except BadOptions:
                continue
            yield players, options, range(1)


@cache
def samples(game_id: str) -> tuple[list[JSON], list[JSON]]:
    """(views, actions) seen in seeded random matches of ``game_id`` (``_sample_setups``)."""
    game = get_game(game_id)
    views: list[JSON] = []
    actions: list[JSON] = []
    for players, options, seeds in _sample_setups(game):
        for seed in seeds:
            state = game.new_match(players=players, seed=seed, options=options)
            rng = Rng(seed)
            for _ in range(SAMPLE_MOVES):
                if state.is_over:
                    break
                seat = state.to_act()[0]
                views.append(state.view(seat))
                legal = state.legal_actions(seat)
                n, k = len(legal), SAMPLE_ACTIONS_EACH_END
                actions.extend(legal[i] for i in (*range(min(n, k)), *range(max(k, n - k), n)))
                state.apply(seat, legal[rng.below(len(legal))])
            views.append(state.view(0))
    return views, actions


def _serializer(name: str, rows: list[JSON], doc: str, fixed: dict[str, serializers.Field]
                ) -> type[serializers.Serializer]:
    keys: dict[str, list[Any]] = {}
    for row in rows:
        for key, value in row.items():
            keys.setdefault(key, []).append(value)
    fields: dict[str, Any] = {}
    for key, values in keys.items():
        fields[key] = fixed.get(key) or _field(values, required=len(values) == len(rows))
    cls = type(name, (serializers.Serializer,), {**fields, "__doc__": doc})
    return extend_schema_serializer(component_name=name)(cls)


@cache
def action_serializer(game_id: str) -> type[serializers.Serializer]:
    _, actions = samples(game_id)
    types = sorted({a["type"] for a in actions})
    return _serializer(
        f"{_camel(game_id)}Action", actions,
        f"An action of {get_game(game_id).name}: `type` is one of {', '.join(types)}; the "
        f"other keys depend on it (docs/rules/{game_id}.md). Send one of your legal_actions.",
        {"type": serializers.ChoiceField(choices=types)})


@cache
def view_serializer(game_id: str) -> type[serializers.Serializer]:
    views, _ = samples(game_id)
    return _serializer(
        f"{_camel(game_id)}View", views,
        f"What one seat (or a spectator, seat null) sees of a {get_game(game_id).name} match: "
        f"the common keys {', '.join(COMMON_VIEW_KEYS)} (result once over), then the game's "
        f"own (docs/rules/{game_id}.md).",
        {"game": GameIdField(only=game_id)})


def seat_poll_proxy(base: type[serializers.Serializer]) -> PolymorphicProxySerializer:
    """The poll answer, one component per game (``SeatPoll<Game>``), discriminated by ``game``."""
    per_game = {}
    for game_id in game_ids():
        fields = {
            "game": GameIdField(only=game_id),
            "view": view_serializer(game_id)(),
            "legal_actions": serializers.ListField(
                child=action_serializer(game_id)(), allow_null=True,
                help_text="The complete legal actions, when it is your turn."),
        }
        name = f"SeatPoll{_camel(game_id)}"
        cls = type(name, (base,), {**fields, "__doc__": f"The poll answer of a "
                                                          f"{get_game(game_id).name} seat."})
        per_game[game_id] = extend_schema_serializer(component_name=name)(cls)
    return PolymorphicProxySerializer(component_name="SeatPoll", serializers=per_game,
                                      resource_type_field_name="game")


def poll_examples() -> list[OpenApiExample]:
    out = []
    for game_id in game_ids():
        game = get_game(game_id)
        state = game.new_match(seed=1)
        seat = state.to_act()[0]
        legal = state.legal_actions(seat)
        out.append(OpenApiExample(
            f"{game_id} poll", response_only=True, status_codes=["200"],
            value={"match": 7, "game": game_id, "seat": seat, "status": "running",
                   "version": 0, "deadline": "2026-11-30T12:00:00Z", "to_act": state.to_act(),
                   "your_turn": True, "strikes": 0, "forfeited": False,
                   "legal_actions": [legal[i] for i in range(min(len(legal), 3))],
                   "view": state.view(seat)}))
    return out


def action_examples() -> list[OpenApiExample]:
    out = []
    for game_id in game_ids():
        state = get_game(game_id).new_match(seed=1)
        action = state.legal_actions(state.to_act()[0])[0]
        out.append(OpenApiExample(f"{game_id} action", request_only=True,
                                  value={"version": 0, "action": action}))
    return out
