"""Reading the play page as a person sees it: the actions it offers, its version."""

from __future__ import annotations

import html as html_lib
import json
import re
from typing import Any


def actions_on(page: str) -> list[dict[str, Any]]:
    """The actions the page offers as they are posted: its buttons, else its lists' options
    (a built group's pickers hold values, not actions)."""
    lists = "".join(re.findall(r'<form class="chooser".*?</form>', page, re.DOTALL))
    found = re.findall(r'data-action="([^"]*)"', page) or \
        re.findall(r'<option value="([^"]*)"', lists)
    return [json.loads(html_lib.unescape(a)) for a in found]


def version_on(page: str) -> int:
    return int(re.search(r'data-version="(\d+)"', page).group(1))
