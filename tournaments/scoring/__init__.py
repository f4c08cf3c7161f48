"""Standings, ratings, confidence and leaderboards: pure scoring, and the leaderboard kept as
results are recorded."""
