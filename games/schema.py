"""OpenAPI shapes of each game's views and actions, built from the engine itself.

The engine is the only place the rules live, so the schema is not written by hand: for every
registered game a few seeded random matches are played once (at import, well under a second),
and the keys and JSON types of the views and of every legal action seen become one serializer
per game (``DotView``, ``DotAction``, ...). The poll answer is then documented as one component
per game, discriminated by ``game`` (``SeatPollDot``, ...), with an example of each.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from drf_spectacular.utils import OpenApiExample, PolymorphicProxySerializer
from rest_framework import serializers

from .engine import Rng, game_ids, get_game

JSON = dict[str, Any]
COMMON_VIEW_KEYS = ("game", "players", "seat", "moves", "to_act", "is_over")
SAMPLE_SEEDS = range(3)
SAMPLE_MOVES = 400


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


def _game_field(game_id: str) -> serializers.Field:
    # A plain string (the discriminator mapping names the game): one-value enums of every game
    # would collide in the schema's enum names.
    return serializers.CharField(help_text=f'"{game_id}"')


@lru_cache(maxsize=None)
def samples(game_id: str) -> tuple[list[JSON], list[JSON]]:
    """(views, actions) seen in a few seeded random matches of ``game_id``."""
    game = get_game(game_id)
    views: list[JSON] = []
    actions: list[JSON] = []
    for seed in SAMPLE_SEEDS:
        state = game.new_match(seed=seed)
        rng = Rng(seed)
        for _ in range(SAMPLE_MOVES):
            if state.is_over:
                break
            seat = state.to_act()[0]
            views.append(state.view(seat))
            legal = state.legal_actions(seat)
            actions.extend(legal[i] for i in range(min(len(legal), 30)))
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
    from drf_spectacular.utils import extend_schema_serializer

    return extend_schema_serializer(component_name=name)(cls)


@lru_cache(maxsize=None)
def action_serializer(game_id: str) -> type[serializers.Serializer]:
    _, actions = samples(game_id)
    types = sorted({a["type"] for a in actions})
    return _serializer(
        f"{_camel(game_id)}Action", actions,
        f"An action of {get_game(game_id).name}: `type` is one of {', '.join(types)}; the "
        f"other keys depend on it (docs/rules/{game_id}.md). Send one of your legal_actions.",
        {"type": serializers.ChoiceField(choices=types)})


@lru_cache(maxsize=None)
def view_serializer(game_id: str) -> type[serializers.Serializer]:
    views, _ = samples(game_id)
    return _serializer(
        f"{_camel(game_id)}View", views,
        f"What one seat (or a spectator, seat null) sees of a {get_game(game_id).name} match: "
        f"the common keys {', '.join(COMMON_VIEW_KEYS)} (result once over), then the game's "
        f"own (docs/rules/{game_id}.md).",
        {"game": _game_field(game_id)})


def seat_poll_proxy(base: type[serializers.Serializer]) -> PolymorphicProxySerializer:
    """The poll answer, one component per game (``SeatPoll<Game>``), discriminated by ``game``."""
    per_game = {}
    for game_id in game_ids():
        fields = {
            "game": _game_field(game_id),
            "view": view_serializer(game_id)(),
            "legal_actions": serializers.ListField(
                child=action_serializer(game_id)(), allow_null=True,
                help_text="The complete legal actions, when it is your turn."),
        }
        name = f"SeatPoll{_camel(game_id)}"
        cls = type(name, (base,), {**fields, "__doc__": f"The poll answer of a "
                                                          f"{get_game(game_id).name} seat."})
        from drf_spectacular.utils import extend_schema_serializer

        per_game[game_id] = extend_schema_serializer(component_name=name)(cls)
    return PolymorphicProxySerializer(component_name="SeatPoll", serializers=per_game,
                                      resource_type_field_name="game")


def action_proxy() -> PolymorphicProxySerializer:
    """Any game's action (the body does not name the game: the match does)."""
    return PolymorphicProxySerializer(
        component_name="Action", resource_type_field_name=None,
        serializers=[action_serializer(game_id) for game_id in game_ids()])


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
