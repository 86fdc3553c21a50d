"""What ``maumau tournaments`` and ``maumau tournament join ID`` do: list the tournaments; enter
one and play your seats as the blocks come, with the standings shown between blocks."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from typing import TextIO

import grpc

from maumau.v1 import tournaments_pb2 as pb
from maumau_cli.common import address_option, connect, me
from maumau_cli.game import Game, LineReader
from maumau_cli.texts import Texts
from maumau_sdk import (
    DEFAULT_TOURNAMENTS_ADDRESS,
    MauMauError,
    Platform,
    Player,
    Seat,
    Tournaments,
)

TEXTS: Mapping[str, Mapping[str, str]] = {
    "en": {
        "none": "No tournaments.",
        "line": "{tid}  {status:<12} {name:<24} {entrants:>3} entrants  {ruleset}",
        "no_service": "No tournaments service answers at {address}. Start the platform with "
        "`make run`, or name another one with --tournaments-address.",
        "joined": "{name}, you are entrant {count} of {tournament} ({rounds} rounds, tables "
        "change every {every}). Waiting for the start ...",
        "seated": "Block {block}: you sit at table {table}.",
        "moves": "{count} players change tables.",
        "standings": "Standings after block {block}:",
        "final": "Final ranking:",
        "row": "  {place:>3}. {name:<20} {points:>5} points  {maumaus} Mau-Mau  table {table}{me}",
        "me": "  <- you",
        "deciding": "A deciding round for your place: you play it now.",
        "cancelled": "The tournament was cancelled: {reason}",
    },
    "de": {
        "none": "Keine Turniere.",
        "line": "{tid}  {status:<12} {name:<24} {entrants:>3} Teilnehmer  {ruleset}",
        "no_service": "Unter {address} antwortet kein Turnierdienst. Starte die Plattform mit "
        "`make run` oder nenne mit --tournaments-address einen anderen.",
        "joined": "{name}, du bist Teilnehmer {count} von {tournament} ({rounds} Runden, "
        "Tischwechsel alle {every}). Warte auf den Start ...",
        "seated": "Block {block}: du sitzt an Tisch {table}.",
        "moves": "{count} Spieler wechseln den Tisch.",
        "standings": "Stand nach Block {block}:",
        "final": "Endstand:",
        "row": "  {place:>3}. {name:<20} {points:>5} Punkte  {maumaus} Mau-Mau  Tisch {table}{me}",
        "me": "  <- du",
        "deciding": "Ein Stechen um deinen Platz: du spielst es jetzt.",
        "cancelled": "Das Turnier wurde abgesagt: {reason}",
    },
}


def _say(out: TextIO, texts: Texts, key: str, **values: object) -> None:
    print(TEXTS[texts.lang][key].format(**values), file=out, flush=True)


async def list_tournaments(address: str, texts: Texts, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    try:
        async with Tournaments.connect(address, timeout=5.0) as tournaments:
            found = await tournaments.list(limit=50)
    except MauMauError as error:
        return _failed(error, address, texts, out)
    if not found:
        _say(out, texts, "none")
    for t in found:
        _say(
            out,
            texts,
            "line",
            tid=t.tournament_id,
            status=t.status,
            name=t.name,
            entrants=len(t.entrants),
            ruleset=t.ruleset,
        )
    return 0


def show_standings(
    standings: pb.Standings, me: str, texts: Texts, out: TextIO, header: str, block: int = 0
) -> None:
    _say(out, texts, header, block=block + 1)
    for row in standings.rows:
        _say(
            out,
            texts,
            "row",
            place=row.place,
            name=row.name,
            points=row.points,
            maumaus=row.maumaus,
            table=row.table + 1 if row.table >= 0 else "-",
            me=TEXTS[texts.lang]["me"] if row.entrant_id == me else "",
        )


def add_tournaments_address(parser: argparse.ArgumentParser) -> None:
    address_option(
        parser,
        "--tournaments-address",
        "MAUMAU_TOURNAMENTS_ADDRESS",
        DEFAULT_TOURNAMENTS_ADDRESS,
        "the tournaments service",
    )


async def join(
    args: argparse.Namespace,
    texts: Texts,
    out: TextIO | None = None,
    reader: LineReader | None = None,
) -> int:
    """Enter the tournament as your kept player (see ``maumau_cli.common.me``), unless you are
    an entrant already (a championship's deciding tournament enters its players), and play each
    of your seats."""
    out = out or sys.stdout
    tournament_id, tips_address = args.tournament_id, args.bots_address
    try:
        async with (
            connect(args) as platform,
            Tournaments.connect(args.tournaments_address, timeout=5.0) as tournaments,
        ):
            player = await me(platform, args.name)
            t = await tournaments.get(tournament_id)
            if all(e.entrant_id != player.player_id for e in t.entrants):
                t = await tournaments.register(player, tournament_id)
            _say(
                out,
                texts,
                "joined",
                name=player.name,
                count=len(t.entrants),
                tournament=t.name,
                rounds=t.rounds,
                every=t.change_every,
            )
            return await _play_through(
                platform, tournaments, player, tournament_id, texts, tips_address, out, reader
            )
    except MauMauError as error:
        return _failed(error, args.tournaments_address, texts, out)


async def _play_through(
    platform: Platform,
    tournaments: Tournaments,
    player: Player,
    tournament_id: str,
    texts: Texts,
    tips_address: str,
    out: TextIO,
    reader: LineReader | None,
) -> int:
    played: set[str] = set()
    reader = reader or LineReader()
    async for event in tournaments.follow(tournament_id):
        kind = event.WhichOneof("kind")
        if kind == "seated":
            for table in event.seated.tables:
                if player.player_id in table.entrants:
                    _say(out, texts, "seated", block=event.seated.block + 1, table=table.table + 1)
            if event.seated.moves:
                _say(out, texts, "moves", count=len(event.seated.moves))
        elif kind == "block_finished":
            standings = await tournaments.standings(tournament_id)
            show_standings(
                standings, player.player_id, texts, out, "standings", event.block_finished.block
            )
        elif kind in ("block_started", "deciding_round"):
            match_id = (
                event.block_started.match_id
                if kind == "block_started"
                else event.deciding_round.match_id
            )
            if match_id in played or (
                kind == "deciding_round"
                and (
                    event.deciding_round.points
                    or player.player_id not in event.deciding_round.entrants
                )
            ):
                continue
            try:
                seat_info = await tournaments.seat(player, tournament_id)
            except MauMauError as error:
                if error.status == grpc.StatusCode.FAILED_PRECONDITION:
                    continue  # not at this table
                raise
            if seat_info.match_id != match_id or not seat_info.seat_token:
                continue
            if kind == "deciding_round":
                _say(out, texts, "deciding")
            played.add(match_id)
            match = await player.match(match_id)
            seat = Seat(player, match, seat_info.seat, seat_info.seat_token)
            await Game(seat, texts, reader, tips_address, out).run()
        elif kind == "final_ranking":
            show_standings(event.final_ranking, player.player_id, texts, out, "final")
        elif kind == "cancelled":
            _say(out, texts, "cancelled", reason=event.cancelled)
    return 0


def _failed(error: MauMauError, address: str, texts: Texts, out: TextIO) -> int:
    if error.status in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
        _say(out, texts, "no_service", address=address)
        return 2
    print(texts.get("failed", message=error.message(texts.lang)), file=out, flush=True)
    return 1
