"""What the site's forms share: a service's refusal shown at the field it is about.

Forms check only the shape of what was typed; the rules are the services', the ones the API
applies, so a form sends what it got to the same service and shows its :class:`DomainError`
where the person will look for it, with the code the API would answer.
"""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError

from .errors import DomainError


def show_refusal(form: forms.BaseForm, error: DomainError, field: str | None = None) -> None:
    """Add ``error`` to ``form`` at ``field`` (``None``: above the form), as ``detail
    (code)``."""
    form.add_error(field, ValidationError(f"{error.detail} ({error.code})", code=error.code))
