/**
 * Typed helpers over the generated clients: register a player, create a match against bots or
 * queue for a table, follow the match, act in it. Every call goes over gRPC (HTTP/2) with the
 * token it takes in `authorization: Bearer`; what the generated clients do is still at hand in
 * `platform.engine`, `platform.players`, `platform.matchmaking`, `platform.accounts` and
 * `platform.arena` (bot accounts: their events, challenges; see examples/arena_bot.ts).
 */

import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";

import { create } from "@bufbuild/protobuf";
import {
  type CallOptions,
  type Client,
  Code,
  ConnectError,
  type Transport,
  createClient,
} from "@connectrpc/connect";
import { Http2SessionManager, createGrpcTransport } from "@connectrpc/connect-node";

import {
  type ActResponse,
  EngineService,
  type FollowResponse,
  type MatchInfo,
} from "./gen/maumau/v1/engine_pb.js";
import { AccountsService } from "./gen/maumau/v1/accounts_pb.js";
import { ArenaService } from "./gen/maumau/v1/arena_pb.js";
import { type Action, ActionSchema, BotLevel, type View } from "./gen/maumau/v1/game_pb.js";
import { MatchmakingService, type Ticket } from "./gen/maumau/v1/matchmaking_pb.js";
import { PlayersService } from "./gen/maumau/v1/players_pb.js";

/** One event of a match's stream as a seat may see it (engine.proto's FollowResponse). */
export type MatchEvent = FollowResponse;

/** The resource a response wraps; a response without it is the server's error. */
function present<T>(value: T | undefined, what: string): T {
  if (value === undefined) {
    throw new Error(`the answer carries no ${what}`);
  }
  return value;
}

export interface ConnectOptions {
  /** The engine, which serves maumau.v1.EngineService and maumau.v1.PlayersService (host:port). */
  engine?: string;
  /** The matchmaker, maumau.v1.MatchmakingService, for {@link Player.enqueue}. */
  matchmaking?: string;
  /** The Accounts service, which serves maumau.v1.AccountsService and maumau.v1.ArenaService. */
  accounts?: string;
  /** `accept-language` of every call: the language of a refusal's LocalizedMessage. */
  lang?: string;
  /** The deadline of each unary call (streams have none). */
  timeoutMs?: number;
}

/** A rule system's options, as Ruleset.options takes them (numbers and flags become text). */
export type RuleOptions = Record<string, string | number | boolean>;

export interface MatchOptions {
  /** "classic", "online", "ostfriesland" or "colour" (game.proto's Ruleset). */
  preset?: string;
  options?: RuleOptions;
  /** 2..8, within the preset's range. */
  seats?: number;
  /** seat -> the bot that plays it; you take the first seat no bot plays. */
  bots?: Record<number, BotLevel>;
  /** Deal as soon as the last seat is taken (default true). */
  autoStart?: boolean;
  /** The turn timer; 0: the engine's default. */
  turnSeconds?: number;
  /** Your contribution to the deal seed (default: a random UUID). */
  nonce?: string;
  /** A retry with the same id answers the match the first call created (default: a new UUID). */
  requestId?: string;
}

export interface QueueOptions {
  preset?: string;
  options?: RuleOptions;
  /** Table sizes you accept; empty: every size the ruleset plays. */
  seatCounts?: number[];
  /** The size to wait for; 0: the largest of seatCounts. */
  preferredSeats?: number;
  ranked?: boolean;
  /** Whether bots may fill the seats no player takes (default true). */
  allowBots?: boolean;
  /** How long to wait for players before bots fill the seats (default 30; 0: bots at once). */
  botsAfterSeconds?: number;
  /** How long the ticket searches; 0: the matchmaker's limit. */
  maxWaitSeconds?: number;
  /** One per ticket you mean to queue (default: a new UUID), so a retry queues no second. */
  requestId?: string;
}

const ENGINE = "127.0.0.1:50051";
const MATCHMAKING = "127.0.0.1:50053";
const ACCOUNTS = "127.0.0.1:50056";
const TIMEOUT_MS = 10_000;
/** How often a broken stream is followed again, with a growing pause, before giving up. */
const STREAM_RETRIES = 5;

/** The connection to the platform's services. */
export class Platform {
  readonly engine: Client<typeof EngineService>;
  readonly players: Client<typeof PlayersService>;
  readonly matchmaking: Client<typeof MatchmakingService>;
  readonly accounts: Client<typeof AccountsService>;
  readonly arena: Client<typeof ArenaService>;
  readonly lang: string | undefined;
  readonly timeoutMs: number;
  readonly #sessions: Http2SessionManager[] = [];

  private constructor(options: ConnectOptions) {
    const toEngine = this.#transport(options.engine ?? ENGINE);
    this.engine = createClient(EngineService, toEngine);
    this.players = createClient(PlayersService, toEngine);
    const toMatchmaking = this.#transport(options.matchmaking ?? MATCHMAKING);
    this.matchmaking = createClient(MatchmakingService, toMatchmaking);
    const toAccounts = this.#transport(options.accounts ?? ACCOUNTS);
    this.accounts = createClient(AccountsService, toAccounts);
    this.arena = createClient(ArenaService, toAccounts);
    this.lang = options.lang;
    this.timeoutMs = options.timeoutMs ?? TIMEOUT_MS;
  }

  #transport(address: string): Transport {
    const baseUrl = `http://${address}`;
    const sessionManager = new Http2SessionManager(baseUrl);
    this.#sessions.push(sessionManager);
    return createGrpcTransport({ baseUrl, sessionManager });
  }

  /** Connect lazily: the first call opens the HTTP/2 connection. */
  static connect(options: ConnectOptions = {}): Platform {
    return new Platform(options);
  }

  /** Register a new player: its id and player token, kept in the Player. */
  async register(name: string): Promise<Player> {
    const registered = await this.players.register({ name }, this.call());
    return new Player(this, registered.playerId, registered.playerToken, name);
  }

  /** A player registered before, by its id and player token. */
  player(playerId: string, token: string, name = ""): Player {
    return new Player(this, playerId, token, name);
  }

  /** The options of a call with `token` (and the connection's language). */
  call(token?: string, options: CallOptions = {}): CallOptions {
    const headers = new Headers(options.headers);
    if (token !== undefined) {
      headers.set("authorization", `Bearer ${token}`);
    }
    if (this.lang !== undefined) {
      headers.set("accept-language", this.lang);
    }
    return { timeoutMs: this.timeoutMs, ...options, headers };
  }

  /** Close the connections (calls still running fail with Code.Canceled). */
  close(): void {
    for (const session of this.#sessions) {
      session.abort();
    }
  }
}

/** A registered player: creates matches and queues with its player token. */
export class Player {
  constructor(
    readonly platform: Platform,
    readonly playerId: string,
    readonly token: string,
    readonly name: string,
  ) {}

  /** Open a match; you take its first seat no bot plays. */
  async createMatch(options: MatchOptions = {}): Promise<Seat> {
    const created = await this.platform.engine.createMatch(
      {
        ruleset: { preset: options.preset ?? "classic", options: ruleOptions(options.options) },
        seats: options.seats ?? 2,
        bots: options.bots ?? {},
        autoStart: options.autoStart ?? true,
        turnSeconds: options.turnSeconds ?? 0,
        nonce: options.nonce ?? randomUUID(),
        requestId: options.requestId ?? randomUUID(),
      },
      this.platform.call(this.token),
    );
    const [seat, token] = Object.entries(created.seatTokens)[0] ?? [];
    if (created.match === undefined || seat === undefined || token === undefined) {
      throw new Error("CreateMatch answered without a seat token");
    }
    return new Seat(this.platform, created.match.matchId, Number(seat), token);
  }

  /** Take a seat of a match (`seat` left out: any free one). */
  async join(matchId: string, options: { seat?: number; nonce?: string } = {}): Promise<Seat> {
    const joined = await this.platform.engine.joinMatch(
      { matchId, seat: options.seat, nonce: options.nonce ?? randomUUID() },
      this.platform.call(this.token),
    );
    return new Seat(this.platform, matchId, joined.seat ?? -1, joined.seatToken);
  }

  /** Queue for a table; {@link QueuedTicket.seat} waits until one is formed. */
  async enqueue(options: QueueOptions = {}): Promise<QueuedTicket> {
    const { ticket } = await this.platform.matchmaking.enqueue(
      {
        ruleset: { preset: options.preset ?? "classic", options: ruleOptions(options.options) },
        seatCounts: options.seatCounts ?? [],
        preferredSeats: options.preferredSeats ?? 0,
        ranked: options.ranked ?? false,
        allowBots: options.allowBots ?? true,
        botsAfterSeconds: options.botsAfterSeconds ?? 30,
        maxWaitSeconds: options.maxWaitSeconds ?? 0,
        requestId: options.requestId ?? randomUUID(),
      },
      this.platform.call(this.token),
    );
    return new QueuedTicket(this, present(ticket, "ticket"));
  }
}

/** A ticket that ended without a table: cancelled or expired (see `ticket.reason`). */
export class QueueEnded extends Error {
  constructor(readonly ticket: Ticket) {
    super(`ticket ${ticket.ticketId} ${ticket.state}: ${ticket.reason}`);
    this.name = "QueueEnded";
  }
}

/** A ticket in the matchmaker's queue. */
export class QueuedTicket {
  constructor(
    readonly player: Player,
    /** The ticket as it was last seen. */
    public ticket: Ticket,
  ) {}

  get ticketId(): string {
    return this.ticket.ticketId;
  }

  /** The ticket now, then every change of its state until it is seated, cancelled or expired. */
  async *follow(options: { signal?: AbortSignal } = {}): AsyncGenerator<Ticket> {
    const { platform, token } = this.player;
    for (let retries = 0; ; retries += 1) {
      try {
        for await (const message of platform.matchmaking.followTicket(
          { ticketId: this.ticketId },
          platform.call(token, { timeoutMs: 0, signal: options.signal }),
        )) {
          const ticket = present(message.ticket, "ticket");
          this.ticket = ticket;
          retries = 0;
          yield ticket;
        }
        return;
      } catch (error) {
        await pauseOrThrow(error, retries, options.signal);
      }
    }
  }

  /** Wait until the ticket is seated: your seat of the table's match. */
  async seat(options: { signal?: AbortSignal } = {}): Promise<Seat> {
    for await (const ticket of this.follow(options)) {
      if (ticket.state === "seated") {
        return new Seat(this.player.platform, ticket.matchId, ticket.seat ?? -1, ticket.seatToken);
      }
      if (ticket.state === "cancelled" || ticket.state === "expired") {
        throw new QueueEnded(ticket);
      }
    }
    throw new QueueEnded(this.ticket);
  }

  /** Take the ticket out of the queue while it is searching. */
  async cancel(): Promise<Ticket> {
    const { platform, token } = this.player;
    const { ticket } = await platform.matchmaking.cancelTicket(
      { ticketId: this.ticketId },
      platform.call(token),
    );
    this.ticket = present(ticket, "ticket");
    return this.ticket;
  }
}

/** Your seat of a match: acts, reads and follows with its seat token. */
export class Seat {
  constructor(
    readonly platform: Platform,
    readonly matchId: string,
    readonly seat: number,
    readonly token: string,
  ) {}

  /** Your view: hand, top card, `toAct` (whose move it is), `legal` (what you may do now). */
  async view(): Promise<View> {
    const { view } = await this.platform.engine.getView(
      { matchId: this.matchId },
      this.platform.call(this.token),
    );
    return present(view, "view");
  }

  /**
   * Take an action: one of a view's `legal` actions as it came, or an action's text in the rules
   * core's form ("7H", "JD:S!mau", "draw", "accept", "catch:2"). The request id (a new UUID
   * unless given) makes a retry after a timeout safe: the same id and action answer the first
   * answer again.
   */
  async act(action: Action | string, options: { requestId?: string } = {}): Promise<ActResponse> {
    return this.platform.engine.act(
      {
        requestId: options.requestId ?? randomUUID(),
        action: typeof action === "string" ? create(ActionSchema, { text: action }) : action,
      },
      this.platform.call(this.token),
    );
  }

  /**
   * The match's events as your seat may see them: those after `after` (an event id; "" for
   * all), then live ones. A broken stream is followed again from the last event received, so
   * none is missed or repeated; the stream ends after SeedRevealed, once the match is over.
   */
  async *follow(
    options: { after?: string; signal?: AbortSignal } = {},
  ): AsyncGenerator<MatchEvent> {
    let after = options.after ?? "";
    for (let retries = 0; ; retries += 1) {
      try {
        for await (const event of this.platform.engine.follow(
          { matchId: this.matchId, afterEventId: after },
          this.platform.call(this.token, { timeoutMs: 0, signal: options.signal }),
        )) {
          after = event.id;
          retries = 0;
          yield event;
        }
        return;
      } catch (error) {
        await pauseOrThrow(error, retries, options.signal);
      }
    }
  }

  /**
   * Every view in which the match waits for your seat (`toAct` equals `seat`), until the match
   * is over. Act on each before taking the next; between your turns it waits on the match's
   * events instead of polling.
   */
  async *turns(): AsyncGenerator<View> {
    const stop = new AbortController();
    const events = this.follow({ signal: stop.signal });
    try {
      let view = await this.view();
      while (view.phase !== "over") {
        if (isMyTurn(view)) {
          yield view;
        } else if ((await events.next()).done) {
          return; // the match is over: the stream ended after SeedRevealed
        }
        view = await this.view();
      }
    } finally {
      stop.abort();
      await events.return(undefined).catch(() => undefined);
    }
  }

  /** The match's public facts: seats, status, outcome and, once it is over, its server seed. */
  async info(): Promise<MatchInfo> {
    const { match } = await this.platform.engine.getMatch(
      { matchId: this.matchId },
      this.platform.call(this.token),
    );
    return present(match, "match");
  }

  /** Leave the match for good: a bot plays your seat from now on. */
  async leave(): Promise<MatchInfo> {
    const { match } = await this.platform.engine.leave(
      { matchId: this.matchId },
      this.platform.call(this.token),
    );
    return present(match, "match");
  }
}

/** Whether the view's match waits for the view's own seat. */
export function isMyTurn(view: View): boolean {
  return view.seat !== undefined && view.seat >= 0 && view.toAct === view.seat;
}

function ruleOptions(options: RuleOptions = {}): Record<string, string> {
  return Object.fromEntries(Object.entries(options).map(([name, value]) => [name, String(value)]));
}

/** After a broken stream: pause before following again, or throw what cannot be retried. */
async function pauseOrThrow(error: unknown, retries: number, signal?: AbortSignal): Promise<void> {
  const { code } = ConnectError.from(error);
  const retryable = code === Code.Unavailable || code === Code.Aborted;
  if (!retryable || retries >= STREAM_RETRIES || signal?.aborted) {
    throw error;
  }
  await sleep(Math.min(100 * 2 ** retries, 2_000));
}
