"""Values of matchmaking, rating and tips: tickets, parties, rooms, leaderboards, profiles,
histories and hints.

Each is a frozen dataclass of the fields a client reads most, keeping its protobuf message in
``pb`` for the rest (see ``protos/maumau/v1/matchmaking.proto`` and ``rating.proto``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from maumau.rules import Action
from maumau.rules.reasons import Reason, render_all
from maumau.v1 import bots_pb2, matchmaking_pb2, rating_pb2
from maumau.wire import action_from_pb, reasons_from_pb
from maumau_sdk.values import bot_level_name

FINAL_TICKET_STATES = frozenset({"seated", "cancelled", "expired"})


@dataclass(frozen=True, slots=True)
class TicketState:
    """A matchmaking ticket: searching, then seated (with your seat and seat token), cancelled
    or expired."""

    ticket_id: str
    state: str
    queue: str
    """The ruleset's text and the mode, e.g. "classic target=50 ranked"."""
    players: tuple[str, ...]
    waited_seconds: float
    match_id: str
    seat: int
    seat_token: str
    table_seats: int
    bot_seats: int
    reason: str
    pb: matchmaking_pb2.Ticket = field(repr=False, compare=False)

    @property
    def final(self) -> bool:
        return self.state in FINAL_TICKET_STATES

    @classmethod
    def from_pb(cls, message: matchmaking_pb2.Ticket) -> TicketState:
        return cls(
            ticket_id=message.ticket_id,
            state=message.state,
            queue=message.queue,
            players=tuple(message.players),
            waited_seconds=message.waited_seconds,
            match_id=message.match_id,
            seat=message.seat,
            seat_token=message.seat_token,
            table_seats=message.table_seats,
            bot_seats=message.bot_seats,
            reason=message.reason,
            pb=message,
        )


@dataclass(frozen=True, slots=True)
class RoomSeat:
    seat: int
    player_id: str
    """"" for a bot or an empty seat."""
    name: str
    bot_level: str
    """The bots' level by name ("strong"), "" for none."""
    wins: int


@dataclass(frozen=True, slots=True)
class RoomState:
    """A private room as the caller sees it."""

    code: str
    link: str
    ruleset: str
    seats: tuple[RoomSeat, ...]
    bot_level: str
    """The bots' level by name ("strong"), "" for none."""
    host_player_id: str
    status: str
    """"open", "starting" or "playing"."""
    match_id: str
    matches_started: int
    your_seat: int
    seat_token: str
    pb: matchmaking_pb2.Room = field(repr=False, compare=False)

    @classmethod
    def from_pb(cls, message: matchmaking_pb2.Room) -> RoomState:
        return cls(
            code=message.code,
            link=message.link,
            ruleset=message.ruleset_text,
            seats=tuple(
                RoomSeat(s.seat, s.player_id, s.name, bot_level_name(s.bot_level), s.wins)
                for s in message.seat_list
            ),
            bot_level=bot_level_name(message.bot_level),
            host_player_id=message.host_player_id,
            status=message.status,
            match_id=message.match_id,
            matches_started=message.matches_started,
            your_seat=message.your_seat,
            seat_token=message.seat_token,
            pb=message,
        )


@dataclass(frozen=True, slots=True)
class PartyMember:
    player_id: str
    name: str
    expires_in_seconds: float
    """An invitation's time left (0 for members)."""


@dataclass(frozen=True, slots=True)
class PartyState:
    """A party: the players who accepted (the leader first) and the open invitations."""

    party_id: str
    leader_id: str
    members: tuple[PartyMember, ...]
    invited: tuple[PartyMember, ...]
    expires_in_seconds: float
    """Time until the party is gone unless someone invites, joins, leaves or queues it."""

    @property
    def member_ids(self) -> tuple[str, ...]:
        return tuple(m.player_id for m in self.members)

    @classmethod
    def from_pb(cls, message: matchmaking_pb2.Party) -> PartyState:
        def members(listed: Any) -> tuple[PartyMember, ...]:
            return tuple(PartyMember(m.player_id, m.name, m.expires_in_seconds) for m in listed)

        return cls(
            party_id=message.party_id,
            leader_id=message.leader_id,
            members=members(message.members),
            invited=members(message.invited),
            expires_in_seconds=message.expires_in_seconds,
        )


@dataclass(frozen=True, slots=True)
class Skill:
    mu: float
    sigma: float
    ordinal: float
    display: int
    """1000 + 40 * ordinal: the number to show people."""

    @classmethod
    def from_pb(cls, message: rating_pb2.Skill) -> Skill:
        return cls(message.mu, message.sigma, message.ordinal, message.display)


@dataclass(frozen=True, slots=True)
class LadderEntry:
    rank: int
    player_id: str
    name: str
    bot: bool
    skill: Skill
    matches_played: int
    matches_won: int


@dataclass(frozen=True, slots=True)
class Leaderboard:
    """A page of one preset's ladder in one season, best first."""

    preset: str
    season: str
    total: int
    entries: tuple[LadderEntry, ...]
    bots: bool
    """The bots' ladder (else the people's)."""
    pb: rating_pb2.LeaderboardPage = field(repr=False, compare=False)

    @classmethod
    def from_pb(cls, message: rating_pb2.LeaderboardPage) -> Leaderboard:
        return cls(
            preset=message.preset,
            season=message.season,
            total=message.total,
            entries=tuple(
                LadderEntry(
                    e.rank,
                    e.player_id,
                    e.name,
                    e.bot,
                    Skill.from_pb(e.skill),
                    e.matches_played,
                    e.matches_won,
                )
                for e in message.entries
            ),
            bots=message.ladder == rating_pb2.LADDER_BOTS,
            pb=message,
        )


@dataclass(frozen=True, slots=True)
class MatchSummary:
    """A finished match as the rating service counted it, from one player's side (``seat``)."""

    match_id: str
    ruleset: str
    ranked: bool
    finished_at: float
    reason: str
    seat: int
    won: bool
    place: int
    xp: int
    pb: rating_pb2.MatchSummary = field(repr=False, compare=False)

    @classmethod
    def from_pb(cls, message: rating_pb2.MatchSummary) -> MatchSummary:
        own = next((s for s in message.seats if s.seat == message.seat), None)
        return cls(
            match_id=message.match_id,
            ruleset=message.ruleset,
            ranked=message.ranked,
            finished_at=message.finished_at,
            reason=message.reason,
            seat=message.seat,
            won=bool(own and own.winner),
            place=own.place if own else 0,
            xp=own.xp if own else 0,
            pb=message,
        )


@dataclass(frozen=True, slots=True)
class Rating:
    """One ladder a player is on."""

    preset: str
    season: str
    skill: Skill
    rank: int
    matches_played: int
    matches_won: int
    bots: bool = False
    """A rating on the bots' ladder (else the people's)."""


@dataclass(frozen=True, slots=True)
class Profile:
    player_id: str
    name: str
    bot: bool
    xp: int
    level: int
    next_level_xp: int
    matches_played: int
    matches_won: int
    matches_left: int
    ratings: tuple[Rating, ...]
    recent: tuple[MatchSummary, ...]
    pb: rating_pb2.Profile = field(repr=False, compare=False)

    @classmethod
    def from_pb(cls, message: rating_pb2.Profile) -> Profile:
        return cls(
            player_id=message.player_id,
            name=message.name,
            bot=message.bot,
            xp=message.xp,
            level=message.level,
            next_level_xp=message.next_level_xp,
            matches_played=message.matches_played,
            matches_won=message.matches_won,
            matches_left=message.matches_left,
            ratings=tuple(
                Rating(
                    r.preset,
                    r.season,
                    Skill.from_pb(r.skill),
                    r.rank,
                    r.matches_played,
                    r.matches_won,
                    r.ladder == rating_pb2.LADDER_BOTS,
                )
                for r in message.ratings
            ),
            recent=tuple(MatchSummary.from_pb(m) for m in message.recent),
            pb=message,
        )


@dataclass(frozen=True, slots=True)
class History:
    total: int
    matches: tuple[MatchSummary, ...]

    @classmethod
    def from_pb(cls, message: rating_pb2.HistoryPage) -> History:
        return cls(message.total, tuple(MatchSummary.from_pb(m) for m in message.matches))


@dataclass(frozen=True, slots=True)
class Hint:
    """One legal action as the Bots service ranks it, with its reasons as codes."""

    action: Action
    score: float
    reasons: tuple[Reason, ...]
    server_text: str
    """The reasons as the service wrote them (in the language asked for)."""

    def text(self, lang: str = "en") -> str:
        """The reasons in ``lang`` ('en' or 'de'); a service that sent no codes (a third
        party's bot) is shown in its own words."""
        return render_all(self.reasons, lang) or self.server_text

    @classmethod
    def from_pb(cls, message: bots_pb2.RankedAction) -> Hint:
        return cls(
            action_from_pb(message.action),
            message.score,
            reasons_from_pb(message.reasons),
            message.reason,
        )
