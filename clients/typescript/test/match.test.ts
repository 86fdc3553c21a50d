// Against a real platform (test/platform.ts starts `python -m maumau.run`): whole matches
// played to the end, created against a bot and formed by the matchmaker, and the reasons of
// real refusals read from their google.rpc details (docs/clients.md, "Error details").
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

import { Code } from "@connectrpc/connect";

import {
  type Action,
  BotLevel,
  type MatchEvent,
  Platform,
  type Seat,
  type View,
  refusalOf,
} from "@maumau/client";

import { type RunningPlatform, startPlatform } from "./platform.js";

const EXAMPLE = fileURLToPath(new URL("../examples/play.js", import.meta.url));
const LIMIT = 5;

let running: RunningPlatform;
let platform: Platform;

before(async () => {
  // Creating calls are limited to LIMIT a minute per player, so one test can reach the limit.
  running = await startPlatform({ MAUMAU_RATE_PER_PLAYER: `${LIMIT}/minute` });
  platform = Platform.connect({
    engine: running.addresses.engine,
    matchmaking: running.addresses.matchmaking,
  });
});

after(async () => {
  platform?.close();
  await running?.stop();
});

/** A card if one fits, else the seat's own move (draw, accept, pass): never a catch or call. */
function choose(view: View): Action {
  const plays = view.legal.filter((action) => action.kind.case === "play");
  const moves = view.legal.filter((a) => a.kind.case !== "catchSeat" && a.kind.case !== "call");
  const action = plays[0] ?? moves[0];
  assert.ok(action, `no action of the seat's own in ${view.legal.map((a) => a.text)}`);
  return action;
}

/** Act on every turn of `seat` until the match is over; the number of turns taken. */
async function playToTheEnd(seat: Seat): Promise<number> {
  let turns = 0;
  for await (const view of seat.turns()) {
    assert.equal(view.toAct, seat.seat, "turns() yields only views that wait for this seat");
    const answer = await seat.act(choose(view));
    assert.ok(answer.version > view.version, "the action moved the match on");
    turns += 1;
  }
  return turns;
}

async function collect(events: AsyncIterable<MatchEvent>): Promise<MatchEvent[]> {
  const all: MatchEvent[] = [];
  for await (const event of events) {
    all.push(event);
  }
  return all;
}

/** A card the view's hand does not hold. */
function cardNotIn(view: View): string {
  const ranks = ["A", "K", "Q", "J", "10", "9"];
  const cards = ranks.flatMap((rank) => ["S", "H", "D", "C"].map((suit) => rank + suit));
  const card = cards.find((text) => !view.hand.includes(text));
  assert.ok(card);
  return card;
}

describe("a match against a bot", () => {
  test("is played from register to its end, and its events followed to the seed", async () => {
    const player = await platform.register("TypeScript");
    const seat = await player.createMatch({
      preset: "classic",
      seats: 2,
      bots: { 1: BotLevel.RANDOM },
      options: { target: 0 },
    });
    assert.equal(seat.seat, 0, "the creator takes the first seat no bot plays");

    assert.ok((await playToTheEnd(seat)) > 0);

    const view = await seat.view();
    assert.equal(view.phase, "over");
    assert.equal(view.toAct, -1, "to_act is -1 once the match is over");
    assert.equal(view.outcome?.reason, "single", "classic target=0 is one round");
    assert.equal(view.outcome?.winners.length, 1);
    const events = await collect(seat.follow());
    const kinds = events.map(({ event }) => event?.kind.case);
    assert.equal(kinds.at(-1), "seedRevealed", "Follow ends after the seed is revealed");
    assert.ok(kinds.includes("matchOver"));
    const resumed = await collect(seat.follow({ after: events.at(-3)!.id }));
    assert.deepEqual(resumed.map(({ id }) => id), events.slice(-2).map(({ id }) => id));
    const info = await seat.info();
    assert.equal(info.status, "over");
    assert.match(info.serverSeed, /\S/, "the server seed is revealed");
  });

  test("is what the example plays to its end", async () => {
    const args = [EXAMPLE, running.addresses.engine!];
    const { stdout } = await promisify(execFile)(process.execPath, args, { timeout: 120_000 });
    assert.match(stdout, /^match \S+, seat 0$/m);
    assert.match(stdout, /^winners: seats \d \(single\)$/m);
  });
});

describe("the queue", () => {
  test("seats a ticket at a table filled with bots, whose match is played to the end", async () => {
    const player = await platform.register("Queued");
    const ticket = await player.enqueue({
      preset: "classic",
      options: { target: 0 },
      seatCounts: [2],
      botsAfterSeconds: 0,
    });
    assert.equal(ticket.ticket.state, "searching");
    const seat = await ticket.seat();
    assert.equal(ticket.ticket.state, "seated");
    assert.equal(ticket.ticket.tableSeats, 2);
    assert.equal(ticket.ticket.botSeats, 1);
    await playToTheEnd(seat);
    assert.equal((await seat.view()).phase, "over");
  });
});

describe("a refusal", () => {
  test("of a move carries its reason, its parameters and the message in German", async () => {
    const german = Platform.connect({ engine: running.addresses.engine, lang: "de" });
    try {
      const player = await german.register("Refused");
      const bots = { 1: BotLevel.RANDOM };
      const seat = await player.createMatch({ bots, options: { target: 0 } });
      const turns = seat.turns();
      const card = cardNotIn((await turns.next()).value!);
      await turns.return(undefined);
      const refusal = refusalOf(await rejection(seat.act(card)));
      assert.equal(refusal.code, Code.FailedPrecondition);
      assert.equal(refusal.reason, "CARD_NOT_IN_HAND");
      assert.ok(refusal.detailed, "read from ErrorInfo, not the deprecated trailers");
      assert.equal(refusal.metadata.card, card);
      assert.equal(refusal.localized?.locale, "de");
      assert.notEqual(refusal.localized?.message, refusal.message, "German, not the English text");
      assert.ok(refusal.localized?.message.includes(card));
      assert.equal(refusal.retryAfterMs, undefined, "a refused move is not retried as it is");

      const bad = refusalOf(await rejection(seat.act("no such action")));
      assert.equal(bad.code, Code.InvalidArgument);
      assert.equal(bad.reason, "BAD_ACTION_TEXT");
      assert.deepEqual(bad.fieldViolations.map(({ field }) => field), ["action.text"]);
    } finally {
      german.close();
    }
  });

  test("of a player token where a seat token is needed is PERMISSION_DENIED", async () => {
    const player = await platform.register("Wrong token");
    const seat = await player.createMatch({ bots: { 1: BotLevel.RANDOM } });
    const act = platform.engine.act(
      { requestId: "1", action: { kind: { case: "draw", value: {} } } },
      platform.call(player.token),
    );
    const refusal = refusalOf(await rejection(act));
    assert.equal(refusal.code, Code.PermissionDenied);
    assert.equal(refusal.reason, "TOKEN_NOT_ACCEPTED");
    await seat.leave();
  });

  test("past a limit says how long to wait (RetryInfo)", async () => {
    const player = await platform.register("Limited");
    for (let created = 0; created < LIMIT; created += 1) {
      await player.createMatch({ bots: { 1: BotLevel.RANDOM } });
    }
    const refused = player.createMatch({ bots: { 1: BotLevel.RANDOM } });
    const refusal = refusalOf(await rejection(refused));
    assert.equal(refusal.code, Code.ResourceExhausted);
    assert.equal(refusal.reason, "LIMIT_REACHED");
    const wait = refusal.retryAfterMs ?? 0;
    assert.ok(wait > 0 && wait <= 60_000, `retry after ${wait} ms`);
    assert.match(refusal.metadata.seconds ?? "", /^\d/);
  });
});

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => assert.fail("the call was not refused"),
    (error: unknown) => error,
  );
}
