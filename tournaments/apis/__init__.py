"""The REST API of tournaments and leagues, a module per job: tournaments (create, list,
inspect, standings, matches, cancel), the rating leaderboard of each game, leagues (create,
list, one league, the season table), a league's nights (list, schedule, cancel) and its members
(join, leave); what they share is in ``common``.

Thin views as in ``games.apis``: an Input (or Filter) serializer checks the shape, one service
or selector does the work, an Output serializer renders; errors are raised as domain errors and
mapped to ``{"code", "detail"}`` by ``config.exceptions``. Reads are public; writes need a
token.
"""
