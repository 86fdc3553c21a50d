"""A person in a tournament through the SDK: registers, is handed each block's seat, plays it,
then leaves, keeping the points so far and earning no more (issue: 'a player who leaves keeps
their points and gets no further ones')."""

from __future__ import annotations

import random

from maumau.engine.app import EngineApp
from maumau.tournaments.app import TournamentsApp
from maumau_sdk import Platform, Play, Seat, Tournaments


async def play_seat(tournaments: Tournaments, player, tournament_id: str) -> None:  # type: ignore[no-untyped-def]
    """Play the player's current seat to the end of its match: a card if one fits, else draw."""
    handed = await tournaments.seat(player, tournament_id)
    assert handed.match_id and handed.seat_token
    match = await player.match(handed.match_id)
    seat = Seat(player, match, handed.seat, handed.seat_token)
    async for view in seat.turns(poll_seconds=0.5):
        plays = [a for a in view.legal if isinstance(a, Play)]
        moves = [a for a in view.legal if not a.text.startswith(("catch", "call"))]
        await seat.act(random.choice(plays or moves))


async def test_a_player_plays_a_block_then_leaves_and_keeps_the_points(
    engine: EngineApp,
    replicas,  # type: ignore[no-untyped-def]
) -> None:
    app: TournamentsApp = await replicas()
    async with (
        Platform.connect(f"127.0.0.1:{engine.port}") as platform,
        Tournaments.connect(f"127.0.0.1:{app.port}") as tournaments,
    ):
        organizer = await platform.register("Organizer")
        ann = await platform.register("Ann")
        cup = await tournaments.create(
            organizer, "Ann's cup", rounds=3, change_every=1, max_per_table=3, turn_seconds=0
        )
        tid = cup.tournament_id
        await tournaments.register(ann, tid)
        for name in ("Ede", "Frauke", "Gesa", "Hinni", "Imke"):
            await tournaments.register(organizer, tid, bot_name=name, bot_level="random")
        assert next(e.name for e in (await tournaments.get(tid)).entrants) == "Ann"
        await tournaments.start(organizer, tid)

        left_with = None
        async for event in tournaments.follow(tid):
            if event.HasField("block_started"):
                block, table = event.block_started.block, event.block_started.table
                seats = (await tournaments.get(tid)).tables[table]
                if ann.player_id not in seats.entrants:
                    continue
                if block == 0:
                    await play_seat(tournaments, ann, tid)
                else:
                    # Mid-block: her seat waits for her, so nothing of this block is counted yet.
                    standings = await tournaments.standings(tid)
                    mine = next(r for r in standings.rows if r.entrant_id == ann.player_id)
                    assert mine.rounds_played == 1
                    left_with = mine.points
                    gone = await tournaments.unregister(ann, tid)
                    assert next(e for e in gone.entrants if e.entrant_id == ann.player_id).left
            if event.HasField("seated") and event.seated.block == 2:
                seated = [e for t in event.seated.tables for e in t.entrants]
                assert ann.player_id not in seated and len(seated) == 5
            if event.HasField("final_ranking"):
                final = event.final_ranking
        assert left_with is not None
        mine = next(r for r in final.rows if r.entrant_id == ann.player_id)
        assert mine.left and mine.rounds_played == 1 and mine.points == left_with
        others = [r for r in final.rows if r.entrant_id != ann.player_id]
        assert all(r.rounds_played == 3 for r in others)
