/**
 * What a refusal of the platform says, read from a ConnectError.
 *
 * Every service sends the standard rich error model (AIP-193): a google.rpc.Status in the
 * `grpc-status-details-bin` trailer, whose details connect decodes with `findDetails`:
 * ErrorInfo (reason and parameters), RetryInfo (how long to wait), BadRequest (the field of an
 * INVALID_ARGUMENT) and LocalizedMessage (the message in the call's `accept-language`). A server
 * of an older release sends only the trailing metadata `maumau-error-code`,
 * `maumau-error-params` (JSON) and `retry-after-ms`, deprecated since; {@link refusalOf} reads
 * those when the details are missing, so a client branches on `reason` either way.
 */

import { Code, ConnectError } from "@connectrpc/connect";

import {
  BadRequestSchema,
  ErrorInfoSchema,
  LocalizedMessageSchema,
  RetryInfoSchema,
} from "./gen/google/rpc/error_details_pb.js";

/** The `ErrorInfo.domain` of the platform's refusals. */
export const DOMAIN = "maumau.v1";

/** The deprecated trailing metadata an older server sends instead of the details. */
export const ERROR_CODE_KEY = "maumau-error-code";
export const ERROR_PARAMS_KEY = "maumau-error-params";
export const RETRY_AFTER_KEY = "retry-after-ms";

/** One invalid field of a request (google.rpc.BadRequest.FieldViolation). */
export interface FieldViolation {
  /** Its path in the request, e.g. "action.text". */
  field: string;
  description: string;
  reason: string;
}

/** A refusal as a client acts on it. */
export interface Refusal {
  /** The gRPC status. */
  code: Code;
  /**
   * What was refused, in UPPER_SNAKE_CASE ("NOT_YOUR_TURN", "CARD_DOES_NOT_MATCH"): branch on
   * this, never on the English message. A refusal without a code of its own has its status's
   * name ("NOT_FOUND"), as has an error that never reached a service (a deadline, a refused
   * connection).
   */
  reason: string;
  /** The reason's parameters as text (a list as its items joined by ", "). */
  metadata: Record<string, string>;
  /** How long to wait before trying again; undefined: do not retry the same call as it is. */
  retryAfterMs: number | undefined;
  /** The message in the language the call asked for (`accept-language`: "en" or "de"). */
  localized: { locale: string; message: string } | undefined;
  /** The fields of an INVALID_ARGUMENT that are wrong. */
  fieldViolations: FieldViolation[];
  /** The server's message, in English. */
  message: string;
  /** Whether it came from the google.rpc details (false: the deprecated trailers, or none). */
  detailed: boolean;
}

/** gRPC's names of the status codes, as ErrorInfo spells a reason without a code of its own. */
const STATUS_NAMES: Record<Code, string> = {
  [Code.Canceled]: "CANCELLED",
  [Code.Unknown]: "UNKNOWN",
  [Code.InvalidArgument]: "INVALID_ARGUMENT",
  [Code.DeadlineExceeded]: "DEADLINE_EXCEEDED",
  [Code.NotFound]: "NOT_FOUND",
  [Code.AlreadyExists]: "ALREADY_EXISTS",
  [Code.PermissionDenied]: "PERMISSION_DENIED",
  [Code.ResourceExhausted]: "RESOURCE_EXHAUSTED",
  [Code.FailedPrecondition]: "FAILED_PRECONDITION",
  [Code.Aborted]: "ABORTED",
  [Code.OutOfRange]: "OUT_OF_RANGE",
  [Code.Unimplemented]: "UNIMPLEMENTED",
  [Code.Internal]: "INTERNAL",
  [Code.Unavailable]: "UNAVAILABLE",
  [Code.DataLoss]: "DATA_LOSS",
  [Code.Unauthenticated]: "UNAUTHENTICATED",
};

/** The status's name as gRPC spells it: `statusName(Code.NotFound)` is "NOT_FOUND". */
export function statusName(code: Code): string {
  return STATUS_NAMES[code];
}

/** What `error` (a ConnectError, or anything a call threw) says; see {@link Refusal}. */
export function refusalOf(error: unknown): Refusal {
  const err = ConnectError.from(error);
  const infos = err.findDetails(ErrorInfoSchema);
  const info = infos.find((found) => found.domain === DOMAIN) ?? infos[0];
  const retry = err.findDetails(RetryInfoSchema)[0];
  const localized = err.findDetails(LocalizedMessageSchema)[0];
  const violations = err.findDetails(BadRequestSchema).flatMap((bad) => bad.fieldViolations);
  const refusal: Refusal = {
    code: err.code,
    reason: info?.reason || statusName(err.code),
    metadata: info ? { ...info.metadata } : {},
    retryAfterMs: retry?.retryDelay
      ? Number(retry.retryDelay.seconds) * 1000 + Math.round(retry.retryDelay.nanos / 1e6)
      : undefined,
    localized: localized ? { locale: localized.locale, message: localized.message } : undefined,
    fieldViolations: violations.map(({ field, description, reason }) => ({
      field,
      description,
      reason,
    })),
    message: err.rawMessage,
    detailed: info !== undefined,
  };
  if (!refusal.detailed) {
    readTrailers(err.metadata, refusal);
  }
  return refusal;
}

/** The deprecated trailers of an older server, into `refusal`. */
function readTrailers(metadata: Headers, refusal: Refusal): void {
  const code = metadata.get(ERROR_CODE_KEY);
  if (code) {
    refusal.reason = code.toUpperCase();
  }
  const params = metadata.get(ERROR_PARAMS_KEY);
  if (params) {
    try {
      const parsed: unknown = JSON.parse(params);
      if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) {
        for (const [key, value] of Object.entries(parsed)) {
          refusal.metadata[key] = metadataText(value);
        }
      }
    } catch {
      // not JSON: no parameters
    }
  }
  const wait = Number(metadata.get(RETRY_AFTER_KEY) ?? "");
  if (refusal.retryAfterMs === undefined && wait > 0) {
    refusal.retryAfterMs = wait;
  }
}

/** A parameter as ErrorInfo.metadata holds it: a list as its items joined by ", ". */
function metadataText(value: unknown): string {
  if (Array.isArray(value)) {
    return value.map(String).join(", ");
  }
  return typeof value === "string" ? value : JSON.stringify(value);
}
