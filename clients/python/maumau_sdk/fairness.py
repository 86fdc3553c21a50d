"""Check a finished match: the revealed seed, the deal seed and every deal and draw you saw.

Before anyone joins, the engine publishes the SHA-256 of a secret server seed (the commitment);
every player adds a nonce; the rules core deals from
``SHA-256(server_seed | nonce_0 | ... | nonce_n-1)``. Once the match is over the server seed is
revealed, and :func:`verify_match` checks

1. the commitment: the revealed seed hashes to what was published before the deal;
2. your nonce went into the deal seed, and the deal seed is the one the engine reveals;
3. your first hand is the one the rules core deals from that seed;
4. the whole match replays: starting from the seed, each step is the one legal action (of any
   seat) whose events, as your seat sees them, are the next events you saw. So every deal, every
   card you drew and every card anyone played comes out exactly as it was seen.

>>> report = verify_match(info, events, seat=seat.seat, commitment=seat.match.seed_commitment,
...                       nonce=seat.nonce)  # doctest: +SKIP
>>> report.ok  # doctest: +SKIP
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from maumau import fairness
from maumau.rules import Match, RulesError, Ruleset, redact
from maumau.rules import events as ev
from maumau_sdk.values import Event, MatchInfo


@dataclass(frozen=True, slots=True)
class FairnessReport:
    """What :func:`verify_match` found; ``ok`` when every check passed."""

    commitment_ok: bool
    """The revealed server seed hashes to the commitment published before the deal."""
    nonce_ok: bool
    """Your nonce is the one at your seat in the deal seed (True when you gave none to check)."""
    deal_seed_ok: bool
    """The deal seed recomputed from the seed and the nonces is the one the engine revealed
    (True when the stream revealed none)."""
    first_deal_ok: bool
    """Your first hand is what the rules core deals from the deal seed."""
    replay_ok: bool
    """Every event you saw follows from the seed and legal actions, to the end of the match."""
    rounds_replayed: int
    """Rounds replayed to their end, each deal and draw as you saw it."""
    steps: int
    """Actions replayed."""
    problem: str = ""
    """What failed first, in English; "" when nothing did."""

    @property
    def ok(self) -> bool:
        return (
            self.commitment_ok
            and self.nonce_ok
            and self.deal_seed_ok
            and self.first_deal_ok
            and self.replay_ok
        )


def verify_match(
    info: MatchInfo,
    events: Sequence[Event],
    seat: int,
    *,
    commitment: str | None = None,
    nonce: str | None = None,
) -> FairnessReport:
    """Check a finished match from its facts (``info``, with the revealed server seed), the
    events you followed from its beginning, your ``seat`` (-1 for a spectator), the
    ``commitment`` you saw before the deal (default: the one in ``info``) and your ``nonce``."""
    revealed = next((e.pb.seed_revealed for e in events if e.kind == "seed_revealed"), None)
    server_seed = info.server_seed or (revealed.server_seed if revealed else "")
    if not server_seed:
        return FairnessReport(
            False, False, False, False, False, 0, 0, "the server seed is not revealed yet"
        )
    published = commitment or info.seed_commitment
    commitment_ok = fairness.verify_commitment(server_seed, published)
    nonces = list(info.nonces)
    nonce_ok = nonce is None or (0 <= seat < len(nonces) and nonces[seat] == nonce)
    deal_seed = fairness.deal_seed(server_seed, nonces)
    deal_seed_ok = revealed is None or not revealed.deal_seed or revealed.deal_seed == deal_seed
    viewer = seat if seat >= 0 else None
    observed = [e.rules_event for e in events if e.rules_event is not None]
    match, dealt = Match.start(Ruleset.parse(info.ruleset), info.seats, deal_seed)
    first_deal_ok = _first_hand(observed, seat) == _first_hand(dealt, seat)
    replay = _replay(match, [redact(e, viewer) for e in dealt], observed, viewer)
    problems = [
        text
        for failed, text in (
            (not commitment_ok, "the revealed server seed does not match the commitment"),
            (not nonce_ok, "your nonce is not the one in the deal seed"),
            (not deal_seed_ok, "the revealed deal seed is not the one the seed and nonces give"),
            (not first_deal_ok, "your first hand is not the one the seed deals"),
            (bool(replay.problem), replay.problem),
        )
        if failed
    ]
    return FairnessReport(
        commitment_ok=commitment_ok,
        nonce_ok=nonce_ok,
        deal_seed_ok=deal_seed_ok,
        first_deal_ok=first_deal_ok,
        replay_ok=not replay.problem,
        rounds_replayed=replay.rounds,
        steps=replay.steps,
        problem=problems[0] if problems else "",
    )


def _first_hand(events: Sequence[ev.Event], seat: int) -> tuple[str, ...] | None:
    for event in events:
        if isinstance(event, ev.Drew) and event.reason == "deal" and event.seat == seat:
            return tuple(card.text for card in event.cards)
    return None


@dataclass
class _Replay:
    rounds: int = 0
    steps: int = 0
    problem: str = ""


def _replay(
    match: Match,
    dealt: list[ev.Event],
    observed: list[ev.Event],
    viewer: int | None,
) -> _Replay:
    """Walk ``observed`` from the deal, finding at each step the action that explains it."""
    result = _Replay()
    if observed[: len(dealt)] != dealt:
        result.problem = "the first deal you saw is not the one the seed deals"
        return result
    position = len(dealt)
    while position < len(observed):
        found = _explain(match, observed, position, viewer)
        if found is None:
            result.problem = (
                f"round {match.round}: what you saw after {position} events does not follow "
                "from the revealed seed"
            )
            return result
        match, caused = found
        result.steps += 1
        result.rounds += sum(isinstance(e, ev.RoundOver) for e in caused)
        position += len(caused)
    if observed and not isinstance(observed[-1], ev.MatchOver):
        result.problem = "the events end before the match is over"
    return result


def _explain(
    match: Match, observed: list[ev.Event], position: int, viewer: int | None
) -> tuple[Match, list[ev.Event]] | None:
    """The match after the legal action whose events (as ``viewer`` sees them) come next."""
    due = match.chooser if match.phase == "starter_suit" else match.turn
    for seat in [due, *(s for s in range(match.seats) if s != due)]:
        for action in match.legal_actions(seat):
            try:
                after, caused = match.after(seat, action)
            except RulesError:
                continue
            seen = [redact(e, viewer) for e in caused]
            if observed[position : position + len(seen)] == seen:
                return after, seen
    return None
