"""What the purity tests share: the frameworks pure modules must not import, and how to look."""

from __future__ import annotations

import ast
import pathlib

FORBIDDEN = ("django", "rest_framework", "celery", "drf_spectacular", "kombu")


def forbidden_imports(path: pathlib.Path) -> list[str]:
    """The absolute imports in ``path`` whose top-level package is in :data:`FORBIDDEN`."""
    names = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return [name for name in names if name.split(".")[0] in FORBIDDEN]
