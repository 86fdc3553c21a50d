"""Bot policies: pure functions from a seat's view to an action, shared by every service.

The Bots service serves them over gRPC and the engine falls back on them when a Bots service
fails, so they belong to no service: they import only the rules core.
"""

from maumau.policies.levels import LEVELS, Ranked, decide, rank, search

__all__ = ["LEVELS", "Ranked", "decide", "rank", "search"]
