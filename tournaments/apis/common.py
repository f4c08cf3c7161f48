"""What the tournament and league APIs share: an entrant's kind, name and label, the entry of
a new entrant, its rating's shape, the seed and move time bounds."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from games import fields

from ..entrants import entrant_kinds, unknown_kind

MAX_SEED = 2**63 - 1


MAX_MOVE_TIME_LIMIT = 30 * 24 * 3600


#: The ``name`` and ``label`` of a participant or league member, wherever the API shows one.
ENTRANT_NAME_HELP = ('As every page shows it (games.names): a person\'s username; a webhook '
                     'bot\'s name and its owner, "dice_bot (alice)"; "heuristic (reference '
                     'bot)". Never the series\' label.')


ENTRANT_LABEL_HELP = ("The series' own label for the entrant, as entered (default \"<kind> "
                      "<bot>\" or the username): shown beside its name, it renames nothing.")


def entrant_name_field() -> serializers.CharField:
    return serializers.CharField(help_text=ENTRANT_NAME_HELP)


def entrant_label_field() -> serializers.CharField:
    return serializers.CharField(help_text=ENTRANT_LABEL_HELP)


class TournamentRatingSerializer(serializers.Serializer):
    """An entrant's one rating on its game's leaderboard (docs/tournaments.md, "Ratings")."""

    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    ordinal = serializers.FloatField(help_text="mu - 3 sigma: the cautious estimate.")
    matches = serializers.IntegerField(
        help_text="Rated matches it rests on, in every series of the game (0: the starting "
                  "rating).")


class EntrantKindField(serializers.ChoiceField):
    """A participant's or member's kind: one of the seat kinds an entrant may be
    (``entrants.entrant_kinds``), read from the seat-kind registry whenever the field is used,
    never kept (a serializer made once, as the schema's, sees a kind registered since), so the
    schema's ``KindEnum`` is the registry's. Any other is refused with the kinds there are."""

    default_error_messages = {"unknown_kind": "{reason}"}

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(choices=(), **kwargs)

    @property
    def choices(self) -> dict[str, str]:
        return dict(entrant_kinds())

    @choices.setter
    def choices(self, value: Any) -> None:
        """The registry's, not the field's: nothing to keep."""

    @property
    def grouped_choices(self) -> dict[str, str]:
        return self.choices

    @property
    def choice_strings_to_values(self) -> dict[str, str]:
        return {kind: kind for kind in self.choices}

    def to_internal_value(self, data: Any) -> str:
        if isinstance(data, str) and data in self.choices:
            return data
        self.fail("unknown_kind", reason=unknown_kind(data))


class TournamentParticipantSpecSerializer(serializers.Serializer):
    """One entrant of a new tournament."""

    kind = EntrantKindField()
    bot = fields.BotReferenceField(required=False, max_length=100,
                                   help_text="webhook: the bot id (a number or a string); "
                                             "reference: the reference bot's name "
                                             '("heuristic", "random").')
    user = serializers.CharField(required=False, max_length=150,
                                 help_text="player: the username of the person who polls.")
    name = serializers.CharField(required=False, max_length=100,
                                 help_text='Its label in this series (the answers\' `label`, '
                                           "shown beside the bot's own name); default "
                                           '"<kind> <bot>" or the username.')
