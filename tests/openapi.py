"""Reading the generated OpenAPI schema in tests: an operation's answer and a node's
properties, references resolved."""

from __future__ import annotations

from typing import Any


def schema_properties(schema: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    """The properties of a schema node, its $ref resolved (also when wrapped in an allOf or
    a oneOf with null, to carry a description or nullability)."""
    for key in ("allOf", "oneOf", "anyOf"):
        if key in node:
            node = next(n for n in node[key] if n.get("type") != "null"
                        and n.get("enum") != [None])
    if "$ref" in node:
        node = schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]]
    return node["properties"]


def schema_answer(schema: dict[str, Any], path: str, method: str,
                  code: str = "200") -> dict[str, Any]:
    """The JSON schema of an operation's answer with ``code``."""
    return schema["paths"][path][method]["responses"][code]["content"]["application/json"][
        "schema"]
