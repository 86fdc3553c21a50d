"""The engine's keys in Redis, one function per name.

Every key of a match carries the hash tag ``{match_id}``, so a match lives in one Redis Cluster
slot and the commit script touches one slot only:

- ``match:{id}``          hash: ``version``, ``meta`` (``record.MatchRecord`` as JSON, a list of
  its fields' values), ``state`` (the rules state's bytes), and ``a{seat}`` per seat that acted:
  what the seat keeps of its latest answers, for retried request ids (``codec.kept_answers``)
- ``match:{id}:events``   stream of serialized ``maumau.v1.Event`` messages: one entry per
  commit, field ``p``, its events each preceded by its length (``codec.stream_events``)
- ``match:{id}:request_ids`` hash: ``{seat}:{request id}`` -> ``{version} {stream entry id}
  {action}`` for every action a seat took with a request id, kept as long as the match
  (``codec.used_value``): a request id used again is never applied again
- ``match:{id}:published`` set once the result went to the results stream

Global keys: ``engine:deadlines:{n}`` (sorted sets: match id -> due time, one per shard ``n``
of ``MAUMAU_REDIS_SHARDS``, see ``engine/deadlines.py``), the results stream (its name and
entries are the ``MatchResult`` contract in game.proto), ``engine:active`` (set of matches being
played), ``player:{id}:matches`` (sorted set: a match not over scores ``store.NOT_OVER`` plus
when the player entered it, a finished one when it finished, so the highest come first; see
``MatchStore.index_players``).
"""

from __future__ import annotations

from maumau.common.players import player_key

ACTIVE = "engine:active"
DEADLINES = "engine:deadlines"
"""The prefix of the deadline shards: ``engine:deadlines:{n}``."""


def match_key(match_id: str) -> str:
    return f"match:{{{match_id}}}"


def events_key(match_id: str) -> str:
    return f"{match_key(match_id)}:events"


def request_ids_key(match_id: str) -> str:
    """Every request id the match's seats acted with, and what for."""
    return f"{match_key(match_id)}:request_ids"


def published_key(match_id: str) -> str:
    """Set once the match's result went to the results stream."""
    return f"{match_key(match_id)}:published"


def player_matches_key(player_id: str) -> str:
    return f"{player_key(player_id)}:matches"


def deadlines_key(shard: int) -> str:
    return f"{DEADLINES}:{{{shard}}}"
