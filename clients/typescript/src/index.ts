/**
 * A TypeScript client of the Mau-Mau platform: typed helpers (register, create a match, queue,
 * follow, act) over the code generated from protos/maumau/v1, and the reading of a refusal's
 * reason. The generated messages and services are in `pb`.
 */

export * as pb from "./pb.js";
export { BotLevel } from "./gen/maumau/v1/game_pb.js";
export type { Action, Event, Outcome, View } from "./gen/maumau/v1/game_pb.js";
export type { ActResponse, FollowResponse, MatchInfo } from "./gen/maumau/v1/engine_pb.js";
export type { Ticket } from "./gen/maumau/v1/matchmaking_pb.js";
export {
  type ConnectOptions,
  isMyTurn,
  type MatchEvent,
  type MatchOptions,
  Platform,
  Player,
  QueueEnded,
  QueuedTicket,
  type QueueOptions,
  type RuleOptions,
  Seat,
} from "./platform.js";
export { DOMAIN, type FieldViolation, type Refusal, refusalOf, statusName } from "./errors.js";
