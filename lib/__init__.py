"""Plumbing every app shares, below all of them (as healthchecks' ``hc/lib``): it imports no
app and no ``config``; the apps and ``config`` import it (the import-linter contract in
pyproject.toml)."""
