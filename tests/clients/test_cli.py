"""The terminal client as a real process (pexpect) against a real engine: a whole match against
bots in English and in German, with bad input answered by a clear message and a new prompt."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
import tempfile
import time
from pathlib import Path

import pexpect
import pytest

from maumau.bots.app import BotsApp
from maumau.common.redis_server import free_port
from maumau.rules.cards import french_deck
from tests.support.engine import SECRET, engine_config

ROOT = Path(__file__).parents[2]

SCREEN = {
    "en": {
        "prompt": r"Your move \(",
        "suit": r"Which suit\? ",
        "hand": r"Your hand: ([^\r\n]*)",
        "no_option": "There is no option 99: choose a number from 1 to",
        "no_action": "'QZ' is not an action",
        "not_in_hand": "{card} is not in your hand",
        "no_tips": "Tips are not available",
        "tips": "Tips:",
        "checked": "the revealed server seed matches the commitment",
        "replayed": "replayed the whole match from the seed",
        "fair": "Verified: the deal was fair.",
        "left": "You leave the match",
        "starter": r"\d\) name \w+ for the starter",
    },
    "de": {
        "prompt": r"Dein Zug \(",
        "suit": r"Welche Farbe\? ",
        "hand": r"Deine Hand: ([^\r\n]*)",
        "no_option": "Eine Möglichkeit 99 gibt es nicht: wähle eine Zahl von 1 bis",
        "no_action": "'QZ' ist kein Zug",
        "not_in_hand": "{card} ist nicht auf deiner Hand",
        "no_tips": "Tipps sind nicht verfügbar",
        "tips": "Tipps:",
        "checked": "der enthüllte Server-Seed passt zur vor dem Geben veröffentlichten",
        "replayed": "die ganze Partie aus dem Seed nachgespielt",
        "fair": "Geprüft: es wurde fair gegeben.",
        "left": "Du verlässt die Partie",
        "starter": r"\d\) \w+ für die Startkarte wünschen",
    },
}


def spawn(address: str, lang: str, *extra: str, bots_address: str = "") -> pexpect.spawn:
    args = ["-m", "maumau_cli", "play", "--address", address, "--lang", lang, "--name", "Ada"]
    args += ["--bots-address", bots_address or f"127.0.0.1:{free_port()}", "--plain", *extra]
    home = tempfile.mkdtemp(prefix="maumau-home-")  # who the client registers as
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MAUMAU_HOME": home}
    return pexpect.spawn(
        sys.executable,
        args,
        cwd=str(ROOT),
        env=env,
        encoding="utf-8",
        timeout=60,  # generous: a loaded CI machine must not fail a slow prompt
        dimensions=(60, 200),
    )


def bad_input_gets_a_message_and_a_new_prompt(child: pexpect.spawn, screen: dict) -> None:
    """At a prompt: a number out of range, text that is no action, a card not in the hand (the
    engine refuses it; its error code is shown translated)."""
    hand = re.findall(screen["hand"], child.before)[-1].split()
    missing = next(card.text for card in french_deck() if card.text not in hand)
    for answer, message in (
        ("99", screen["no_option"]),
        ("QZ", screen["no_action"]),
        (missing, screen["not_in_hand"].format(card=missing)),
    ):
        child.sendline(answer)
        child.expect_exact(message)
        child.expect(screen["prompt"])


def play_to_the_end(child: pexpect.spawn, screen: dict, tips: str) -> str:
    """Answer every prompt with the first option; at the first one with cards to play try bad
    input and tips."""
    child.expect(screen["prompt"])
    while re.search(screen["starter"], child.before):  # a Jack turned up: name its suit first
        child.sendline("1")
        child.expect(screen["prompt"])
    bad_input_gets_a_message_and_a_new_prompt(child, screen)
    child.sendline("t")
    child.expect_exact(screen[tips])
    child.expect(screen["prompt"])
    child.sendline("1")
    transcript = []
    while True:
        found = child.expect([screen["prompt"], screen["suit"], screen["fair"]])
        transcript.append(child.before)
        if found == 2:
            break
        child.sendline("1")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    return "".join(transcript)


@pytest.mark.parametrize("lang", ["en", "de"])
async def test_a_whole_match_against_bots_in_the_terminal(address, lang):
    screen = SCREEN[lang]
    child = spawn(address, lang, "--rules", "classic", "--bots", "3", "--option", "target=0")
    try:
        transcript = await asyncio.to_thread(play_to_the_end, child, screen, "no_tips")
    finally:
        child.close(force=True)
    assert screen["checked"] in transcript and screen["replayed"] in transcript


TIP_WORDS = {  # words every reason of the hints uses in one language or the other
    "en": ["suit", "nothing", "card", "call", "fits", "catch", "penalty", "seat", "wish",
           "sit out"],
    "de": ["Farbe", "ziehen", "Karte", "Ansage", "passt", "erwische", "Strafe", "Platz",
           "wünsche", "setze aus"],
}  # fmt: skip


@pytest.mark.parametrize("lang", ["en", "de"])
async def test_tips_come_from_the_bot_service_in_your_language_and_quitting_leaves(address, lang):
    bots = BotsApp(engine_config(), SECRET)  # the same service lifecycle
    await bots.start()
    screen = SCREEN[lang]
    child = spawn(
        address, lang, "--rules", "online", "--bots", "1", bots_address=f"127.0.0.1:{bots.port}"
    )

    def ask_for_tips_then_quit() -> str:
        child.expect(screen["prompt"])
        child.sendline("t")
        child.expect_exact(screen["tips"])
        child.expect(screen["prompt"])
        tips = child.before
        child.sendline("q")
        child.expect_exact(screen["left"])
        child.expect(pexpect.EOF)
        return tips

    try:
        tips = await asyncio.to_thread(ask_for_tips_then_quit)
    finally:
        child.close(force=True)
        await bots.stop(0)
    assert child.exitstatus == 0
    assert any(word in tips for word in TIP_WORDS[lang]), tips
    other = TIP_WORDS["de" if lang == "en" else "en"]
    assert not any(f" {word} " in tips for word in other if word not in TIP_WORDS[lang]), tips


@pytest.mark.parametrize(
    ("how", "status"), [("ctrl-c", 128 + signal.SIGINT), ("hangup", 128 + signal.SIGHUP)]
)
async def test_ctrl_c_or_a_closed_terminal_leaves_the_seat_to_a_bot(address, platform, how, status):
    child = spawn(address, "en", "--rules", "classic", "--bots", "1")

    def start_then_interrupt() -> str:
        child.expect(r"Match ([\w-]+)\.")  # ids are URL-safe base64
        match_id = child.match.group(1)
        child.expect(SCREEN["en"]["prompt"])
        time.sleep(0.5)  # at the prompt, waiting for the keyboard
        os.kill(child.pid, signal.SIGINT if how == "ctrl-c" else signal.SIGHUP)
        if how == "ctrl-c":
            child.expect("Interrupted: you leave the match; a bot plays your seat")
        child.expect(pexpect.EOF)
        return match_id

    try:
        match_id = await asyncio.to_thread(start_then_interrupt)
    finally:
        child.close(force=True)
    assert child.exitstatus == status
    watcher = await platform.register("Watcher")
    for _ in range(50):
        info = await watcher.match(match_id)
        if info.seat_info[0].left:
            break
        await asyncio.sleep(0.1)
    assert info.seat_info[0].left
