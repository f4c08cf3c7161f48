"""Webhook bots: a seat kind that calls a developer's HTTP bot on its turn."""
