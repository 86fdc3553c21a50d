"""The engine's settings: ``MAUMAU_ENGINE_*``, the Bots services it asks, Redis and the secret;
and :class:`EngineSettings`, the part of them the match logic runs with, whose defaults are the
variables' defaults."""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import Field

from maumau.common.config import SERVICE_PORTS
from maumau.common.quotas import Rates
from maumau.common.settings import (
    QuotaSettings,
    RedisSettings,
    TokenSettings,
    grpc_port,
    metrics_port,
    service_config,
)

PORTS = SERVICE_PORTS["engine"]
BOTS = SERVICE_PORTS["bots"]


def _level_address(level: str) -> str | None:
    return Field(
        None,
        validation_alias=f"MAUMAU_BOTS_ADDRESS_{level.upper()}",
        description=f"a Bots service for the {level} level only (unset: `MAUMAU_BOTS_ADDRESS`)",
    )


class Settings(RedisSettings, TokenSettings, QuotaSettings):
    model_config = service_config("engine")

    port: int = grpc_port(PORTS.grpc)
    metrics_port: int = metrics_port(PORTS.metrics)
    bot_delay_ms: int = Field(300, ge=0, le=60_000, description="pause before a bot seat moves")
    retention_seconds: int = Field(
        7 * 86400,
        ge=60,
        le=366 * 86400,
        description="how long a finished match stays in Redis",
    )
    deadline_lease_seconds: float = Field(
        10.0,
        gt=0,
        le=3600,
        description="after this, a bot move or turn timer claimed by a replica that died is "
        "taken over by another",
    )
    bot_budget_ms: int = Field(
        200, ge=1, le=2000, description="thinking time asked of a `strong` bot"
    )
    deadline_concurrency: int = Field(
        16,
        ge=1,
        le=1000,
        description="bot moves and turn timers one replica handles at once (one slow bot "
        "never holds up the others)",
    )
    player_token_ttl_seconds: int = Field(
        30 * 86400,
        ge=60,
        le=366 * 86400,
        description="how long a player token works (PlayersService.RenewToken gives a fresh one)",
    )
    bots_address: str = Field(
        f"127.0.0.1:{BOTS.grpc}",
        validation_alias="MAUMAU_BOTS_ADDRESS",
        description="the Bots service the engine asks for bot moves (empty: the engine runs "
        "the bot policies itself)",
    )
    bots_address_random: str | None = _level_address("random")
    bots_address_heuristic: str | None = _level_address("heuristic")
    bots_address_strong: str | None = _level_address("strong")

    lobby_seconds: int = Field(
        3600,
        ge=10,
        le=30 * 86400,
        description="a match nobody started is removed this long after its last change",
    )
    default_turn_seconds: int = Field(
        120,
        ge=5,
        le=3600,
        description="the turn timer of a match whose creator chose none (every match with "
        "people has one)",
    )
    abandon_seconds: int = Field(
        2 * 3600,
        ge=60,
        le=30 * 86400,
        description="a match in which nobody acts this long ends as `abandoned` (its result "
        "is published like any other)",
    )
    player_history: int = Field(
        100, ge=1, le=10_000, description="matches kept in each player's list (ListMatches)"
    )
    results_trim_seconds: float = Field(
        30.0,
        gt=0,
        le=86400,
        description="how often results every consumer group has acknowledged are removed from "
        "the results stream",
    )
    redis_connections: int = Field(
        100,
        ge=2,
        le=10_000,
        description="connections to Redis for calls per replica (calls beyond wait for one); "
        "the follow readers, the deadline loop and health have connections of their own",
    )
    cached_matches: int = Field(
        10_000,
        ge=0,
        le=1_000_000,
        description="matches one replica remembers as it last read or wrote them (a few KB "
        "each), so an action costs one round trip to Redis, not two; 0: none",
    )
    max_follow_streams: int = Field(
        10_000,
        ge=1,
        le=1_000_000,
        description="Follow streams open at once on one replica (more: RESOURCE_EXHAUSTED)",
    )
    follow_streams_per_player: int = Field(
        64,
        ge=1,
        le=100_000,
        description="Follow streams one player may have open on one replica (more: "
        "RESOURCE_EXHAUSTED)",
    )
    follow_queue_events: int = Field(
        256,
        ge=16,
        le=100_000,
        description="events a Follow stream may fall behind its match before it ends ABORTED "
        "(the client resumes from its last event)",
    )

    def engine(self) -> EngineSettings:
        """What the match logic needs of these settings."""
        levels = {
            "random": self.bots_address_random,
            "heuristic": self.bots_address_heuristic,
            "strong": self.bots_address_strong,
        }
        addresses = {"": self.bots_address}
        addresses.update({level: a for level, a in levels.items() if a is not None})
        return EngineSettings(
            bot_delay_seconds=self.bot_delay_ms / 1000,
            retention_seconds=self.retention_seconds,
            deadline_lease_seconds=self.deadline_lease_seconds,
            bot_addresses=addresses,
            bot_budget_ms=self.bot_budget_ms,
            min_replicas=self.redis_min_replicas,
            wait_ms=self.redis_wait_ms,
            shards=self.redis_shards,
            redis_connections=self.redis_connections,
            cached_matches=self.cached_matches,
            max_follow_streams=self.max_follow_streams,
            follow_streams_per_player=self.follow_streams_per_player,
            follow_queue_events=self.follow_queue_events,
            deadline_concurrency=self.deadline_concurrency,
            rates=self.rates(),
            results_trim_seconds=self.results_trim_seconds,
            lobby_seconds=self.lobby_seconds,
            default_turn_seconds=self.default_turn_seconds,
            abandon_seconds=self.abandon_seconds,
            player_history=self.player_history,
        )


DEFAULTS = Settings.model_construct()
"""The settings as they are with no variable set (the environment is not read)."""


@dataclass
class EngineSettings:
    """What the match logic runs with: :meth:`Settings.engine` of the variables, or built
    directly (tests). Unless told otherwise it runs as the variables' defaults say, except that
    it asks no Bots service: with no ``bot_addresses`` the engine runs the policies itself."""

    bot_delay_seconds: float = DEFAULTS.bot_delay_ms / 1000
    retention_seconds: int = DEFAULTS.retention_seconds
    default_max_timeouts: int = 3
    deadline_lease_seconds: float = DEFAULTS.deadline_lease_seconds
    """How long a claimed deadline is its replica's: one that dies meanwhile leaves it to come
    due again on another replica after this long."""
    bot_addresses: dict[str, str] = field(default_factory=dict)
    """Bots service per level ('' for every level); none: the engine runs the policies itself."""
    bot_budget_ms: int = DEFAULTS.bot_budget_ms
    min_replicas: int | None = DEFAULTS.redis_min_replicas
    """Replicas that confirm each commit before it is acknowledged (None: the store's default,
    see ``maumau.common.redis_client.Durability``)."""
    wait_ms: int = DEFAULTS.redis_wait_ms
    shards: int = DEFAULTS.redis_shards
    """Shards of the deadlines (``MAUMAU_REDIS_SHARDS``)."""
    redis_connections: int = DEFAULTS.redis_connections
    """Connections to Redis for calls; the deadline loop, health and the follow readers have
    their own."""
    cached_matches: int = DEFAULTS.cached_matches
    """Matches a replica remembers as it last read or committed them, so an action usually
    costs one round trip to Redis instead of two (see ``store.MatchCache``)."""
    lobby_seconds: int = DEFAULTS.lobby_seconds
    """A match nobody started goes this long after its last change in the lobby."""
    default_turn_seconds: int = DEFAULTS.default_turn_seconds
    """The turn timer of a match whose creator chose none: every match with people has one."""
    abandon_seconds: float = DEFAULTS.abandon_seconds
    """A match with no action for this long ends as abandoned."""
    player_history: int = DEFAULTS.player_history
    """Matches kept in each player's list (ListMatches)."""
    results_trim_seconds: float = DEFAULTS.results_trim_seconds
    """How often the results every consumer group acknowledged are removed from the stream."""
    rates: Rates = field(default_factory=DEFAULTS.rates)
    """The rate limits on registering and creating matches."""
    max_follow_streams: int = DEFAULTS.max_follow_streams
    follow_streams_per_player: int = DEFAULTS.follow_streams_per_player
    follow_queue_events: int = DEFAULTS.follow_queue_events
    """Events a follower may fall behind before its stream ends (it resumes from the last)."""
    deadline_concurrency: int = DEFAULTS.deadline_concurrency
    """Due deadlines (bot moves, turn timers) one replica handles at once, so one slow bot
    never holds up the others."""
