"""One match in the terminal: the table, a numbered list of your actions, a log of the others.

The game reads the match through the SDK: a background task follows the events (which feed the
log and, at the end, the fairness check), and the view says when it is your turn.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TextIO

import grpc

from maumau.rules import Action, Call, Catch, NameSuit, Play
from maumau.rules.cards import COLOUR_SYMBOLS, COLOURS, FRENCH_RANKS, FRENCH_SUITS, Card
from maumau.rules.errors import BadInput, translate
from maumau_cli.common import connect, guarded, me, say
from maumau_cli.texts import Texts
from maumau_cli.tips import fetch_tips
from maumau_sdk import Event, MauMauError, Seat, View, to_action, verify_match

REFUSALS = frozenset(
    {
        grpc.StatusCode.FAILED_PRECONDITION,
        grpc.StatusCode.INVALID_ARGUMENT,
        grpc.StatusCode.PERMISSION_DENIED,
    }
)
"""Statuses of a move refused as such: the player is told why and asked again."""


@dataclass(frozen=True)
class Option:
    """One numbered entry: a single action, or a card's plays that differ only by the suit named
    (the player is asked for the suit)."""

    label: str
    actions: tuple[Action, ...]


def options_for(view: View, texts: Texts) -> list[Option]:
    """The numbered list for a view: plays first (a required call included, a Jack's suits
    folded into one entry), then draw, pass, accept and challenge, then suits and catches."""
    plays: dict[tuple[str, bool], list[Play]] = {}
    others: list[Action] = []
    for action in view.legal:
        if isinstance(action, Play):
            plays.setdefault((action.card.text, action.suit is not None), []).append(action)
        else:
            others.append(action)
    options: list[Option] = []
    for (card, wishing), variants in plays.items():
        if wishing:
            by_suit: dict[str | None, Play] = {}
            for play in variants:
                if play.suit not in by_suit or (play.call and not by_suit[play.suit].call):
                    by_suit[play.suit] = play
            call = next((p.call for p in by_suit.values() if p.call), None)
            label = (
                texts.get("play_wish_call", card=texts.card(card), call=texts.call(call))
                if call
                else texts.get("play_wish", card=texts.card(card))
            )
            options.append(Option(label, tuple(by_suit.values())))
            continue
        best = next((p for p in variants if p.call), variants[0])
        if (card, True) in plays:
            label = texts.get("play_plain_jack", card=texts.card(card))
        elif best.call:
            label = texts.get("play_call", card=texts.card(card), call=texts.call(best.call))
        else:
            label = texts.get("play", card=texts.card(card))
        options.append(Option(label, (best,)))
    order = {"draw": 0, "pass": 1, "accept": 2, "challenge": 3}
    for action in sorted(others, key=lambda a: order.get(a.text, 4)):
        options.append(Option(_label(action, view, texts), (action,)))
    return options


def _label(action: Action, view: View, texts: Texts) -> str:
    seats, me = view.seats, view.seat
    if isinstance(action, NameSuit):
        return texts.get("name_suit", suit=texts.suit(action.suit))
    if isinstance(action, Catch):
        return texts.get("catch", name=texts.name(action.seat, seats, me))
    if isinstance(action, Call):
        return texts.get("call_last")
    if action.text == "accept":
        if view.pending == "skip":
            return texts.get("accept_skip")
        return texts.get("accept_draw", cards=texts.count("card", view.pending_count))
    if action.text == "challenge":
        return texts.get("challenge", card=texts.card("W+4"))
    return texts.get(action.text)


def sort_hand(hand: Sequence[Card]) -> list[Card]:
    """The hand grouped by suit (or colour), low ranks first; wilds last."""
    suits = FRENCH_SUITS + COLOURS + ("",)
    ranks = FRENCH_RANKS + COLOUR_SYMBOLS + ("W", "W+4")
    return sorted(
        hand,
        key=lambda c: (suits.index(c.suit), ranks.index(c.rank) if c.rank in ranks else 99),
    )


class LineReader:
    """Lines from a text stream, read by a daemon thread so a pending read never keeps the
    program from ending; None at the end of the input."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream or sys.stdin
        self._queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._loop = asyncio.get_running_loop()
        threading.Thread(target=self._run, name="stdin", daemon=True).start()

    def _run(self) -> None:
        put: Callable[[str | None], None] = self._queue.put_nowait
        try:
            for line in iter(self._stream.readline, ""):
                self._loop.call_soon_threadsafe(put, line)
            self._loop.call_soon_threadsafe(put, None)
        except (RuntimeError, ValueError, OSError):  # the loop or the stream is closed
            return

    async def readline(self) -> str | None:
        return await self._queue.get()


class Game:
    """Plays one match at ``seat`` with a person at the keyboard."""

    def __init__(
        self,
        seat: Seat,
        texts: Texts,
        reader: LineReader,
        tips_address: str,
        out: TextIO | None = None,
    ) -> None:
        self.seat = seat
        self.texts = texts
        self.reader = reader
        self.tips_address = tips_address
        self.out = out or sys.stdout
        self.events: list[Event] = []
        self.narrated = 0
        self.news = asyncio.Event()
        self.seats = seat.match.seat_info
        self.finished = False
        """Whether the match was played to its end (not left with q)."""

    def say(self, text: str = "") -> None:
        say(text, self.out)

    async def run(self) -> int:
        """Play until the match is over (0) or the player leaves it (0 as well)."""
        following = asyncio.create_task(self._follow())
        try:
            view = await self.seat.view()
            while not view.over:
                if not view.my_turn:
                    await self._wait_for_news(1.0)
                    self._narrate()
                    view = await self._view()
                    continue
                await self._settle()
                view = await self._view()
                if not view.my_turn:
                    continue
                self._narrate()
                self._show(view)
                after = await self._turn(view)
                if after is None:
                    with contextlib.suppress(MauMauError):
                        await self.seat.leave()
                    self.say(self.texts.get("leaving"))
                    return 0
                view = after
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(5.0):
                    await asyncio.shield(following)
            self._narrate()
            self.finished = True
            await self._finish(view)
            return 0
        finally:
            following.cancel()
            await asyncio.gather(following, return_exceptions=True)

    # ------------------------------------------------------------------ following

    async def _follow(self) -> None:
        async for event in self.seat.events():
            self.events.append(event)
            self.news.set()

    async def _wait_for_news(self, timeout: float) -> None:
        self.news.clear()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                await self.news.wait()

    async def _settle(self, quiet: float = 0.12, longest: float = 1.5) -> None:
        """Let the event stream catch up before showing the table: while the match waits for
        you nothing new happens, so the log is complete once the stream is quiet."""
        deadline = time.monotonic() + longest
        seen, quiet_since = len(self.events), time.monotonic()
        while time.monotonic() < deadline:
            await asyncio.sleep(0.03)
            if len(self.events) != seen:
                seen, quiet_since = len(self.events), time.monotonic()
            elif time.monotonic() - quiet_since >= quiet:
                return

    async def _view(self) -> View:
        view = await self.seat.view()
        if view.seats:
            self.seats = view.seats
        return view

    def _narrate(self) -> None:
        for event in self.events[self.narrated :]:
            line = self.texts.describe(event, self.seats, self.seat.seat)
            if line:
                self.say(f"  · {line}")
        self.narrated = len(self.events)

    # ------------------------------------------------------------------ your turn

    def _show(self, view: View) -> None:
        t = self.texts
        self.say()
        self.say(f"=== {t.get('round_header', round=view.round, ruleset=view.ruleset)} ===")
        self.say(t.get("top", card=t.card(view.top), suit=t.suit(view.active_suit)))
        if view.wished:
            self.say(t.get("wished", suit=t.suit(view.wished)))
        if view.pending:
            key = {"draw": "pending_draw", "skip": "pending_skip", "draw4": "pending_draw4"}
            self.say(
                t.get(
                    key.get(view.pending, "pending_draw"),
                    cards=t.count("card", view.pending_count),
                    card=t.card(view.top),
                    rank=view.top.rank,
                )
            )
        if view.drawn is not None:
            self.say(t.get("drawn", card=t.card(view.drawn)))
        self.say(t.get("seats"))
        for seat in range(len(view.hand_sizes)):
            name = t.name(seat, self.seats, -1)
            if seat == view.seat:
                name = f"{self.seat.player.name} ({t.get('you')})"
            extra = ""
            if seat in view.owing_call:
                extra = t.get("owes_call_me" if seat == view.seat else "owes_call")
            elif view.in_round and not view.in_round[seat]:
                extra = t.get("out_of_round")
            cards = view.hand_sizes[seat]
            self.say(
                t.get(
                    "seat_line",
                    marker=">" if seat == view.due else " ",
                    seat=seat,
                    name=name[:18],
                    cards=cards,
                    card_word=t.get("card_word_1" if cards == 1 else "card_word_n"),
                    score=view.totals[seat] if seat < len(view.totals) else 0,
                    extra=extra,
                )
            )
        self.say(t.get("hand", cards=t.cards(sort_hand(view.hand))))
        self.say(t.get("options"))
        for number, option in enumerate(options_for(view, t), start=1):
            self.say(f"  {number:>2}) {option.label}")

    async def _ask(self, prompt: str) -> str | None:
        with contextlib.suppress(OSError):  # the terminal went away
            print(prompt, end="", file=self.out, flush=True)
        line = await self.reader.readline()
        return None if line is None else line.strip()

    async def _turn(self, view: View) -> View | None:
        """Ask until an action is taken (the view after it) or the player quits (None)."""
        t = self.texts
        options = options_for(view, t)
        example = t.example(sort_hand(view.hand))
        prompt = (
            t.get("your_move", first=1, last=len(options), example=example)
            if len(options) > 1
            else t.get("your_move_single", example=example)
        )
        while True:
            text = await self._ask(prompt)
            if text is None or text.lower() in ("q", "quit", "exit", "ende"):
                return None
            if not text:
                continue
            if text.lower() in ("t", "tips", "tipps"):
                await self._tips(view)
                continue
            if text.lower() in ("h", "help", "hilfe", "?"):
                self.say(t.get("help"))
                continue
            action = await self._action_for(text, view, options)
            if action is None:
                continue
            try:
                result = await self.seat.act(action)
            except MauMauError as error:
                if error.status not in REFUSALS:
                    raise
                self.say(f"  ! {error.message(t.lang)}")
                continue
            return result.view

    async def _action_for(self, text: str, view: View, options: list[Option]) -> Action | None:
        """The action an answer means (asking for a suit where needed), or None after saying
        what is wrong with it."""
        t = self.texts
        if text.isdigit():
            number = int(text)
            if not 1 <= number <= len(options):
                self.say(f"  ! {t.get('no_such_option', number=number, last=len(options))}")
                return None
            choices = options[number - 1].actions
            return choices[0] if len(choices) == 1 else await self._ask_suit(choices)
        try:
            action = to_action(t.typed(text))
        except BadInput as error:
            self.say(f"  ! {translate(error.code, error.params, t.lang)}")
            return None
        if isinstance(action, Play) and action.suit is None and action not in view.legal:
            wishing = tuple(
                a
                for a in view.legal
                if isinstance(a, Play)
                and a.card is action.card
                and a.suit is not None
                and a.call == action.call
            )
            if wishing:
                return await self._ask_suit(wishing)
        return action

    async def _ask_suit(self, plays: Sequence[Action]) -> Action | None:
        t = self.texts
        suits = [a.suit for a in plays if isinstance(a, Play) and a.suit]
        choices = ", ".join(f"{n} {t.suit(s)}" for n, s in enumerate(suits, start=1))
        letters = " ".join(t.suit_letter(s) for s in suits)
        while True:
            text = await self._ask(t.get("which_suit", choices=f"{choices} ({letters})"))
            if text is None or text.lower() in ("", "b", "back", "q", "zurück"):
                return None
            chosen = None
            if text.isdigit() and 1 <= int(text) <= len(suits):
                chosen = suits[int(text) - 1]
            elif t.typed_suit(text) in suits:
                chosen = t.typed_suit(text)
            if chosen is not None:
                return plays[suits.index(chosen)]
            self.say(f"  ! {t.get('no_such_suit', text=text, last=len(suits), letters=letters)}")

    async def _tips(self, view: View) -> None:
        tips = await fetch_tips(self.tips_address, view.pb, self.seat.token, self.texts.lang)
        if tips is None:
            self.say(self.texts.get("tips_unavailable", address=self.tips_address))
            return
        self.say(self.texts.get("tips"))
        for action, reason in tips:
            self.say(self.texts.get("tip_line", action=self.texts.action(action), reason=reason))

    # ------------------------------------------------------------------ the end

    async def _finish(self, view: View) -> None:
        t, me = self.texts, self.seat.seat
        self.say()
        outcome = view.outcome
        if outcome is not None:
            winners = t.names(outcome.winners, self.seats, me)
            self.say(t.get("match_over", winners=winners, reason=t.reason(outcome.reason)))
            scores = ", ".join(
                f"{t.name(s, self.seats, me)} {total}" for s, total in enumerate(view.totals)
            )
            self.say(t.get("final_scores", scores=scores))
            self.say(t.get("you_won" if me in outcome.winners else "you_lost"))
        self.say()
        self.say(t.get("checking"))
        info = await self.seat.info()
        report = verify_match(
            info,
            self.events,
            me,
            commitment=self.seat.match.seed_commitment,
            nonce=self.seat.nonce,
        )
        if not (info.server_seed or any(e.kind == "seed_revealed" for e in self.events)):
            self.say(t.get("no_seed"))
            return
        self.say(t.get("check_commitment_ok" if report.commitment_ok else "check_commitment_bad"))
        self.say(t.get("check_nonce_ok" if report.nonce_ok else "check_nonce_bad"))
        self.say(t.get("check_first_ok" if report.first_deal_ok else "check_first_bad"))
        if report.replay_ok:
            self.say(
                t.get(
                    "check_replay_ok",
                    rounds=t.count("round", report.rounds_replayed),
                    steps=t.count("move", report.steps),
                )
            )
        else:
            self.say(t.get("check_replay_bad", problem=report.problem))
        self.say(t.get("fair" if report.ok else "unfair"))


async def play(
    args: argparse.Namespace,
    texts: Texts,
    options: dict[str, str],
    out: TextIO | None = None,
) -> int:
    """Connect, open a match against ``args.bots`` bots and play it as the kept player. Returns
    the exit status: 0 when the match was played (or left), 1 when the platform refused, 2 when
    it was not reachable, 130 (Ctrl-C) or 129 (the terminal closed) after leaving the seat to a
    bot."""
    out = out or sys.stdout
    say(texts.get("connecting", address=args.address), out)

    async def session() -> int:
        async with connect(args) as platform:
            player = await me(platform, args.name)
            seat = await player.create_match(
                args.rules,
                args.bots + 1,
                bots={s: args.level for s in range(1, args.bots + 1)},
                options=options,
                auto_start=True,
            )
            say(
                texts.get(
                    "welcome",
                    name=player.name,
                    ruleset=seat.match.ruleset,
                    against=texts.count("computer", args.bots),
                    level=args.level,
                    match_id=seat.match_id,
                ),
                out,
            )
            say(texts.get("commitment", commitment=seat.match.seed_commitment), out)
            status, _finished = await play_seat(seat, texts, LineReader(), args.bots_address, out)
            return status

    return await guarded(texts, args.address, session())


async def play_seat(
    seat: Seat, texts: Texts, reader: LineReader, tips_address: str, out: TextIO | None = None
) -> tuple[int, bool]:
    """Play a seat's match at the keyboard; an interrupt leaves it to a bot. Returns the exit
    status and whether the match was played to its end (False: the player left it)."""
    out = out or sys.stdout
    game = Game(seat, texts, reader, tips_address, out)
    status = await until_interrupted(game.run(), seat, texts, out)
    return status, game.finished


async def until_interrupted(work: Awaitable[int], seat: Seat, texts: Texts, out: TextIO) -> int:
    """Run ``work``; Ctrl-C (SIGINT), SIGTERM or a closed terminal (SIGHUP) stop it and leave
    the seat to a bot, as ``q`` does, and say so."""
    loop = asyncio.get_running_loop()
    task = asyncio.ensure_future(work)
    received: list[signal.Signals] = []

    def stop(signum: signal.Signals) -> None:
        received.append(signum)
        cancel()

    def cancel() -> None:
        # Again every half second until it ends: Python 3.11's wait_for can swallow a
        # cancellation that meets a result (fixed in 3.12), and the game waits that way.
        if not task.done():
            task.cancel()
            loop.call_later(0.5, cancel)

    signals = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    for signum in signals:
        loop.add_signal_handler(signum, stop, signum)
    try:
        return await task
    except asyncio.CancelledError:
        if not received:
            raise
        with contextlib.suppress(MauMauError):
            await seat.leave()
        say(texts.get("interrupted"), out)
        return 128 + int(received[0])
    finally:
        for signum in signals:
            loop.remove_signal_handler(signum)
