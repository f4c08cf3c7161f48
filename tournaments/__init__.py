"""Tournaments, leagues, ratings and scheduled league nights."""
