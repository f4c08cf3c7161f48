"""The local runner (``scripts/run.py``, what `make run` starts), importable as ``scripts.run`` by
the tests and benches that start the same processes."""
