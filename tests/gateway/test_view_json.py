"""The view a page gets is the view message in JSON (``upstream.to_json``: protobuf's own printer,
proto field names), so it carries what ``maumau.wire`` maps and nothing written out a second time;
and the page reads no field of a view that this JSON lacks."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

from maumau.engine.record import MatchRecord, Status
from maumau.engine.service import seat_view
from maumau.gateway.upstream import to_json
from maumau.rules import Match, Ruleset
from maumau.v1 import game_pb2
from tests.rules.support import random_step

WEB = Path(__file__).resolve().parents[2] / "clients" / "web"
VIEW_READ = re.compile(r"(?<![\w$])(?:view|v)\.([A-Za-z_]\w*)")
"""A property read of the page's view: it names a view ``view`` (``this.view``, ``answer.view``,
``table.view``) or, where it reads many fields, ``v``."""


def page_reads() -> dict[str, set[str]]:
    """The view fields the browser client reads, with the files reading each."""
    reads: dict[str, set[str]] = {}
    for script in sorted(WEB.glob("*.js")):
        for name in VIEW_READ.findall(script.read_text()):
            reads.setdefault(name, set()).add(script.name)
    return reads


def sent_views(preset: str, seats: int, seed: int) -> list[dict[str, Any]]:
    """The JSON the gateway hands a page for seat 0 of a real match: in its first round, some
    moves on, and over."""
    ruleset = Ruleset.create(preset, {"target": 0} if preset == "classic" else {})
    match = Match.new(ruleset, seats, seed)
    record = MatchRecord(
        match_id="m1",
        ruleset=ruleset.text,
        seats=seats,
        ranked=False,
        turn_seconds=0,
        max_timeouts=0,
        auto_start=True,
        seed_commitment="",
        server_seed="",
        players=["p0", *[""] * (seats - 1)],
        names=["Ada", *[""] * (seats - 1)],
        bots=["", *["random"] * (seats - 1)],
        nonces=[""] * seats,
        left=[False] * seats,
        timeouts=[0] * seats,
        status=Status.PLAYING,
    )
    rng = random.Random(seed)
    sent, version = [], 1
    for steps in (0, 12, 10_000):
        for _ in range(steps):
            if match.view(None).outcome is not None:
                break
            match.apply(*random_step(match, rng))
            version += 1
        sent.append(to_json(seat_view(record, match, 0, version)))
    assert sent[-1]["phase"] == "over"
    return sent


def test_the_gateway_sends_a_view_with_every_field_of_its_message_by_its_proto_name():
    fields = set(game_pb2.View.DESCRIPTOR.fields_by_name)
    *playing, over = sent_views("classic", 3, seed=4)
    for view in playing:
        assert set(view) == fields - {"outcome"}  # a message field is printed once it is set
    assert set(over) == fields
    assert over["seat"] == 0 and over["seats"][1]["bot_level"] == "random"
    assert isinstance(over["specials"], list) and len(over["specials"]) == 3


def test_the_page_reads_only_view_fields_the_gateway_sends():
    reads = page_reads()
    assert {"hand", "legal", "top", "version", "seat"} <= reads.keys(), "the scan finds reads"
    for preset, seats in [("classic", 3), ("colour", 4), ("ostfriesland", 4), ("online", 2)]:
        sent = set().union(*sent_views(preset, seats, seed=9))
        missing = {name: sorted(files) for name, files in reads.items() if name not in sent}
        assert not missing, f"{preset}: the page reads view fields the gateway never sends"
