/** The messages and services generated from protos/maumau/v1 and the google.rpc error details. */

export * from "./gen/google/rpc/error_details_pb.js";
export * from "./gen/maumau/v1/accounts_pb.js";
export * from "./gen/maumau/v1/arena_pb.js";
export * from "./gen/maumau/v1/bots_pb.js";
export * from "./gen/maumau/v1/engine_pb.js";
export * from "./gen/maumau/v1/game_pb.js";
export * from "./gen/maumau/v1/matchmaking_pb.js";
export * from "./gen/maumau/v1/players_pb.js";
export * from "./gen/maumau/v1/rating_pb.js";
export * from "./gen/maumau/v1/tournaments_pb.js";
