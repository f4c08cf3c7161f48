"""Reading the site's forms from a page's HTML as a person (or a screen reader) meets them:
which field each error is shown at, and the accessibility basics every page keeps: one h1,
and a label for every field."""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any

#: Inputs that need no label of their own (their text, or nothing, is what they say).
UNLABELLED_TYPES = {"hidden", "submit", "button", "reset", "image"}


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.h1 = 0
        self.controls: list[dict[str, str]] = []
        self.labelled: set[str] = set()
        self.errors: dict[str, list[str]] = {}  # "<field id>" or "" (the form's own)
        self._error_list: str | None = None
        self._item: list[str] | None = None
        self._in_label = 0  # a control inside its <label> is labelled by it

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attr: dict[str, Any] = {k: v or "" for k, v in attrs}
        if tag == "h1":
            self.h1 += 1
        elif tag == "label":
            self._in_label += 1
            if attr.get("for"):
                self.labelled.add(attr["for"])
        elif tag in ("input", "select", "textarea") and \
                attr.get("type", "text") not in UNLABELLED_TYPES:
            self.controls.append({**attr, "in_label": "1" if self._in_label else ""})
        elif tag == "ul" and "errorlist" in attr.get("class", "").split():
            self._error_list = attr.get("id", "").removesuffix("_error")
            self.errors.setdefault(self._error_list, [])
        elif tag == "li" and self._error_list is not None:
            self._item = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "label":
            self._in_label = max(self._in_label - 1, 0)
        elif tag == "li" and self._item is not None and self._error_list is not None:
            self.errors[self._error_list].append("".join(self._item).strip())
            self._item = None
        elif tag == "ul":
            self._error_list = None

    def handle_data(self, data: str) -> None:
        if self._item is not None:
            self._item.append(data)


def read_page(html: str) -> _Page:
    page = _Page()
    page.feed(html)
    return page


def field_errors(html: str) -> dict[str, list[str]]:
    """The errors shown, by the id of the field they are shown at ("" for the form's own)."""
    return read_page(html).errors


def accessibility_problems(html: str) -> list[str]:
    """What breaks the basics: not exactly one h1; a field with no label (``<label for>``, a
    ``<label>`` around it, or ``aria-label``); an error list next to no field."""
    page = read_page(html)
    problems = [] if page.h1 == 1 else [f"{page.h1} h1 elements"]
    ids = {control.get("id") for control in page.controls}
    for control in page.controls:
        if control.get("id") not in page.labelled and not control.get("aria-label") and \
                not control["in_label"]:
            problems.append(f"no label for {control.get('name') or control.get('id')!r}")
    problems += [f"errors shown at no field: {field_id!r}" for field_id in page.errors
                 if field_id and field_id not in ids]
    return problems
