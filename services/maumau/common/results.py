"""The results stream: how the engine hands a finished match to the services that follow it.

The contract is ``MatchResult`` in ``protos/maumau/v1/game.proto``: the stream's name is the
message's ``redis_stream`` option, and each entry carries ``match_id`` (text) and ``result`` (the
serialized message). The engine writes with :func:`result_entry`; readers (the rating service,
the matchmakers' rooms) follow the stream with a ``maumau.common.streams.StreamConsumer`` and
decode each entry with :func:`read_result`.
"""

from __future__ import annotations

from google.protobuf.message import DecodeError

from maumau.common.streams import StreamEntry, stream_of
from maumau.v1 import game_pb2

RESULTS_STREAM = stream_of(game_pb2.MatchResult)


class BadEntry(ValueError):
    """A results-stream entry that holds no readable MatchResult."""


def result_entry(result: game_pb2.MatchResult) -> dict[str, str | bytes]:
    """The stream entry's fields for ``result``."""
    return {"match_id": result.match_id, "result": result.SerializeToString()}


def read_result(entry: StreamEntry) -> game_pb2.MatchResult:
    """The MatchResult of ``entry``; BadEntry says why there is none."""
    data = entry.fields.get(b"result")
    if data is None:
        raise BadEntry(f"entry {entry.id.decode()} has no result field")
    try:
        result = game_pb2.MatchResult()
        result.ParseFromString(data)
    except DecodeError as error:
        raise BadEntry(f"entry {entry.id.decode()} is not a MatchResult: {error}") from None
    if not result.match_id:
        raise BadEntry(f"entry {entry.id.decode()} holds a result without a match_id")
    return result
