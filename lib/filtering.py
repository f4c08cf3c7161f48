"""A list's filters as a django-filter ``FilterSet`` beside its selector: which lookup each
query parameter is, declared once, instead of an ``if value: qs = qs.filter(...)`` per parameter.

The API checks a list's query with its Filter serializer first (``lib.api.valid_query``): that
documents the parameters in the schema and refuses a bad one with the one error body of every
malformed request (an unknown game: 400 ``invalid`` naming the games). The selector then
narrows its queryset with :func:`filtered`, so pages, tests and the API filter alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from django.db.models import QuerySet
from django_filters import FilterSet

Rows = TypeVar("Rows", bound=QuerySet)


def filtered(filterset: type[FilterSet], queryset: Rows, values: Mapping[str, Any],
             **options: Any) -> Rows:
    """``queryset`` narrowed by each of ``filterset``'s filters given a value in ``values``
    (None or "": not filtered); ``options`` go to the filterset. A value it refuses is the
    caller's bug (the API validated it already), never a filter silently left out:
    ``ValueError``."""
    found = filterset(data={name: value for name, value in values.items()
                            if value is not None and value != ""}, queryset=queryset, **options)
    if not found.is_valid():
        raise ValueError(f"{filterset.__name__}: {dict(found.errors)}")
    return found.qs
