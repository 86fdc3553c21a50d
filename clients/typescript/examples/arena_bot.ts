// A bot for the arena: a bot account that waits in the arena's pool, plays every seat it is
// given and answers challenges, with a policy of its own (change `choose`). Start the platform
// (`make run`), build the package (`npm ci`), then make the bot account once (it prints the
// bot's bot:play token, shown this once):
//   npm run arena-bot -- --register robo_1234 --password 'three words here'
// and run the bot with that token (--token or MAUMAU_BOT_TOKEN):
//   MAUMAU_BOT_TOKEN=... npm run arena-bot -- --matches 20
// The addresses: --address, --accounts-address and --matchmaking-address, or the terminal
// client's MAUMAU_ADDRESS, MAUMAU_ACCOUNTS_ADDRESS and MAUMAU_MATCHMAKING_ADDRESS (default: make
// run's). It logs one line per match. It waits in the arena's pool of --ruleset ("classic
// target=0" unless given: one round of the family rules) for tables of the sizes of --seats (2
// unless given), accepts challenges of that preset and size and declines the others with the
// reason that fits; after --matches matches it leaves the arena, plays out the seats it holds and
// stops.
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";

import { Code, ConnectError } from "@connectrpc/connect";

import { type Action, Platform, Seat, type View, pb, refusalOf } from "@maumau/client";

/** Tables played at once; a challenge beyond them is declined as "later". */
const MAX_TABLES = 4;
/** An event stream silent this long (three keep-alives missed, and some) is opened again. */
const STALL_MS = 35_000;

const { env } = process;
const { values: flags } = parseArgs({
  options: {
    address: { type: "string", default: env.MAUMAU_ADDRESS ?? "127.0.0.1:50051" },
    "accounts-address": {
      type: "string",
      default: env.MAUMAU_ACCOUNTS_ADDRESS ?? "127.0.0.1:50056",
    },
    "matchmaking-address": {
      type: "string",
      default: env.MAUMAU_MATCHMAKING_ADDRESS ?? "127.0.0.1:50053",
    },
    token: { type: "string", default: env.MAUMAU_BOT_TOKEN ?? "" },
    register: { type: "string" },
    password: { type: "string" },
    ruleset: { type: "string", default: "classic target=0" },
    seats: { type: "string", multiple: true, default: [] },
    matches: { type: "string", default: "0" },
  },
});
// A ruleset's text, as the arena's pools are named: the preset, then its options NAME=VALUE.
const [preset = "", ...optionTexts] = flags.ruleset.split(" ").filter(Boolean);
const ruleset = {
  preset,
  options: Object.fromEntries(optionTexts.map((text) => text.split("=", 2) as [string, string])),
};
const seatCounts = flags.seats.length ? flags.seats.map(Number) : [2];
const matches = Number(flags.matches);

/** The suit (S H D C) or colour (R G B Y) of a card's text; "" for a wild. */
function suitOf(card: string): string {
  return /^[RGBY]/.test(card) ? card[0]! : card.startsWith("W") ? "" : card.slice(-1);
}

/**
 * The bot's policy: catch a seat that missed its call; else play a card of the suit it holds
 * most of, keeping Jacks and wilds for later, with the call the play needs and the suit it
 * holds most of as wish; else name that suit, or draw, pass or accept.
 */
function choose(view: View): Action {
  const suits = new Map<string, number>();
  for (const card of view.hand) {
    const suit = suitOf(card);
    if (suit) suits.set(suit, (suits.get(suit) ?? 0) + 1);
  }
  const longest = [...suits].sort((a, b) => b[1] - a[1])[0]?.[0] ?? "";
  const catchSeat = view.legal.find((action) => action.kind.case === "catchSeat");
  if (catchSeat) return catchSeat;
  const value = (action: Action): number[] => {
    if (action.kind.case !== "play") return [];
    const { card, suit, call } = action.kind.value;
    const special = card.startsWith("J") || suitOf(card) === "";
    const wishFits = suit === "" || suit === longest;
    return [Number(call !== ""), Number(!special), suits.get(suitOf(card)) ?? 0, Number(wishFits)];
  };
  const better = (a: number[], b: number[]): boolean => {
    const at = a.findIndex((x, i) => x !== b[i]);
    return at >= 0 && a[at]! > b[at]!;
  };
  let best: Action | undefined;
  for (const action of view.legal.filter((a) => a.kind.case === "play")) {
    if (best === undefined || better(value(action), value(best))) best = action;
  }
  if (best) return best;
  for (const text of [`suit:${longest}`, "draw", "pass", "accept"]) {
    const found = view.legal.find((action) => action.text === text);
    if (found) return found;
  }
  return view.legal[0]!;
}

const platform = Platform.connect({
  engine: flags.address,
  accounts: flags["accounts-address"],
  matchmaking: flags["matchmaking-address"],
});

/** Make the bot account: a new player claims the username, turns into a bot for good and
 * creates its bot:play access token. */
async function register(username: string, password: string): Promise<string> {
  const player = await platform.register(username);
  const claimed = await platform.accounts.claim(
    { username, password, device: "arena bot set-up" },
    platform.call(player.token),
  );
  const session = claimed.signedIn?.playerToken ?? "";
  await platform.arena.becomeBot({}, platform.call(session));
  const { accessToken } = await platform.accounts.createAccessToken(
    { name: "arena bot", scope: pb.TokenScope.BOT_PLAY },
    platform.call(session),
  );
  console.error(`bot account ${username} (${player.playerId}); its token, shown once:`);
  return accessToken;
}

/** The account's events, resumed after a broken or silent stream from the last event id. */
async function* events(token: string, signal: AbortSignal): AsyncGenerator<pb.AccountEvent> {
  let after = "";
  for (let retries = 0; ; retries += 1) {
    const silent = new AbortController();
    let timer = setTimeout(() => silent.abort(), STALL_MS);
    try {
      for await (const { event } of platform.arena.events(
        { afterEventId: after },
        platform.call(token, { timeoutMs: 0, signal: AbortSignal.any([signal, silent.signal]) }),
      )) {
        clearTimeout(timer);
        timer = setTimeout(() => silent.abort(), STALL_MS);
        retries = 0;
        if (event === undefined || event.kind.case === "keepAlive") continue;
        after = event.eventId;
        yield event;
      }
    } catch (error) {
      const { code } = ConnectError.from(error);
      const resumable = [Code.Unavailable, Code.Aborted, Code.Canceled, Code.Internal];
      if (signal.aborted || !resumable.includes(code) || retries >= 10) throw error;
    } finally {
      clearTimeout(timer);
    }
    await sleep(Math.min(100 * 2 ** retries, 3_000));
  }
}

class ArenaBot {
  played = 0;
  won = 0;
  readonly started = new Set<string>();
  readonly seats = new Set<Promise<void>>();
  /** Aborted to leave the arena: no new entry, challenges declined as "later". */
  readonly leaving = new AbortController();
  /** Aborted to close the event stream, once the seats given are played. */
  readonly closing = new AbortController();
  #enough: () => void = () => undefined;
  readonly enough = new Promise<void>((resolve) => (this.#enough = resolve));

  constructor(readonly token: string) {}

  async run(): Promise<void> {
    const listening = this.listen().catch((error: unknown) => {
      if (!this.closing.signal.aborted) throw error;
    });
    const waiting = this.keepInArena(); // the stream is opening first: seats come by it
    try {
      await Promise.race([this.enough, waiting, listening]);
    } catch (error) {
      this.closing.abort();
      throw error;
    } finally {
      this.leaving.abort();
    }
    await waiting;
    await platform.matchmaking.leaveArena({ ruleset }, platform.call(this.token));
    while (this.seats.size) await Promise.all(this.seats); // played to their end
    this.closing.abort();
    await listening;
    console.log(`done: ${this.played} matches played, ${this.won} won`);
  }

  /** Join the arena's pool, and join again halfway to each renewal's deadline. */
  async keepInArena(): Promise<void> {
    while (!this.leaving.signal.aborted) {
      const joined = await platform.matchmaking.joinArena(
        { ruleset, seatCounts },
        platform.call(this.token),
      );
      const left = Number(joined.renewBeforeUnixMs) - Date.now();
      const pause = Math.max(left / 2, 1_000);
      await sleep(pause, undefined, { signal: this.leaving.signal }).catch(() => undefined);
    }
  }

  async listen(): Promise<void> {
    for await (const event of events(this.token, this.closing.signal)) {
      const { kind } = event;
      if (kind.case === "matchStarted" && !this.started.has(kind.value.matchId)) {
        this.started.add(kind.value.matchId);
        const playing = this.play(kind.value).finally(() => this.seats.delete(playing));
        this.seats.add(playing);
      } else if (kind.case === "challengeReceived" && kind.value.challenge) {
        await this.answer(kind.value.challenge);
      } else if (kind.case === "arenaPaused") {
        console.log(`paused until ${kind.value.untilUnixMs} ms`);
      }
    }
  }

  /** Accept a challenge the bot plays; decline the others with the reason that fits. */
  async answer(challenge: pb.Challenge): Promise<void> {
    const seats = challenge.challengedIds.length + 1;
    let reason: pb.DeclineReason | undefined;
    if (challenge.ruleset?.preset !== preset) reason = pb.DeclineReason.RULESET;
    else if (seats > Math.max(...seatCounts)) reason = pb.DeclineReason.TOO_MANY_SEATS;
    else if (this.leaving.signal.aborted || this.seats.size >= MAX_TABLES) {
      reason = pb.DeclineReason.LATER;
    }
    const { challengeId } = challenge;
    try {
      if (reason === undefined) {
        await platform.arena.acceptChallenge({ challengeId }, platform.call(this.token));
      } else {
        await platform.arena.declineChallenge({ challengeId, reason }, platform.call(this.token));
      }
      console.log(`challenge ${challengeId}: ${reason ? pb.DeclineReason[reason] : "accepted"}`);
    } catch (error) {
      console.log(`challenge ${challengeId}: ${refusalOf(error).reason}`); // gone meanwhile
    }
  }

  /** Play one seat to the end of its match and log the match's line. */
  async play(started: pb.SeatMatchStarted): Promise<void> {
    const seat = new Seat(platform, started.matchId, started.seat, started.seatToken);
    let result: string;
    try {
      for await (const view of seat.turns()) {
        try {
          await seat.act(choose(view));
        } catch (error) {
          // refused because the match moved on after this view (a turn timer, a catch): take
          // the next view; refused on a view still current: a fault of the policy
          if ((await seat.view()).version === view.version) throw error;
        }
      }
      const { outcome } = await seat.info();
      const won = outcome?.winners.includes(started.seat) ?? false;
      this.won += Number(won);
      result = `${won ? "won" : "lost"} (${outcome?.reason ?? "no outcome"})`;
    } catch (error) {
      result = `ended: ${refusalOf(error).reason}`;
    }
    this.played += 1;
    const where = started.arena ? "arena" : "challenge";
    console.log(
      `match ${started.matchId} (${started.rulesetText}, ${where}, seat ${started.seat}): ` +
        `${result}; ${this.played} played`,
    );
    if (matches && this.played >= matches) this.#enough();
  }
}

try {
  if (flags.register !== undefined) {
    if (!flags.password) throw new Error("--register needs --password");
    console.log(await register(flags.register, flags.password));
  } else if (!flags.token) {
    throw new Error("no token: give --token or set MAUMAU_BOT_TOKEN (or --register first)");
  } else {
    await new ArenaBot(flags.token).run();
  }
} catch (error) {
  console.error(`refused: ${error instanceof ConnectError ? refusalOf(error).message : error}`);
  process.exitCode = 1;
} finally {
  platform.close();
}
