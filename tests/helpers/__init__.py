"""What the test folders share: fixtures as pytest plugins (registered in tests/conftest.py)
rather than imported from one test module into another."""
