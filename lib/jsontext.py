"""JSON as the platform writes it: compact UTF-8 by orjson, keys that are not strings written
as strings, as ``json.dumps`` writes them.

orjson refuses a dict key that is not a ``str`` unless asked with ``OPT_NON_STR_KEYS``, and
that option costs on every dict of the value, string keys or not: a /move body of dice cup
(2.8 KB) took 12.3 µs with it and 4.1 µs without, one of DTC (10.8 KB) 37.2 against 14.4 µs
(2026-12-03, docs/performance.md). Views, bodies and states have string keys all through (the
training kit's ``view_json`` relies on it), so the option is asked for only when orjson
refuses a value without it; the bytes are the same either way.
"""

from __future__ import annotations

from typing import Any

import orjson


def dumps(value: Any) -> bytes:
    """``value`` as compact UTF-8 JSON; integer (or other non-string) keys as strings. Raises
    ``TypeError`` for what JSON cannot hold, as ``orjson.dumps`` does."""
    try:
        return orjson.dumps(value)
    except TypeError:  # a key that is not a str (or a value orjson cannot write at all)
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)
