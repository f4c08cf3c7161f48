"""Running a generator that yields what it waits for, each request answering itself.

A match's play (``games.services.automatic.advancing``) and a write that may share its round
trip with others' (``games.db.together``) are generators: they yield a request and are
resumed with its answer, so one thread can hold many of them and answer their requests
together. :func:`answer_here` is the other way, for a caller with one of them: each request
answered on this thread, one by one, by its own ``here()``.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any, TypeVar

T = TypeVar("T")


def answer_here(run: Generator[Any, Any, T]) -> T:
    """Play ``run`` to its end, answering each request it yields from this thread by the
    request's ``here()``; an exception answering is raised inside ``run`` where it asked, as
    if it had asked itself. Its return value."""
    reply: Any = None
    error: BaseException | None = None
    while True:
        try:
            request = run.throw(error) if error is not None else run.send(reply)
        except StopIteration as stop:
            return stop.value
        error = reply = None
        try:
            reply = request.here()
        except BaseException as exc:  # noqa: BLE001 - raised inside run, where it asked
            error = exc
