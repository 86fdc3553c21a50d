"""The rating service: each finished match applied exactly once to XP and levels, the ranked
ladder per preset and season (openskill Plackett-Luce), leaderboards, profiles and history."""
