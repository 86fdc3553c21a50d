// refusalOf on errors made here: the google.rpc details first, else the deprecated trailers of
// an older server (docs/clients.md, "Error details"), else the status's name.
import assert from "node:assert/strict";
import { test } from "node:test";

import { create } from "@bufbuild/protobuf";
import { DurationSchema } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";

import { pb, refusalOf, statusName } from "@maumau/client";

test("ErrorInfo, RetryInfo, LocalizedMessage and BadRequest are read with findDetails", () => {
  const error = new ConnectError("slow down", Code.ResourceExhausted, undefined, [
    {
      desc: pb.ErrorInfoSchema,
      value: { reason: "LIMIT_REACHED", domain: "maumau.v1", metadata: { seconds: "1.5" } },
    },
    {
      desc: pb.RetryInfoSchema,
      value: { retryDelay: create(DurationSchema, { seconds: 1n, nanos: 500_000_000 }) },
    },
    { desc: pb.LocalizedMessageSchema, value: { locale: "de", message: "langsamer" } },
    {
      desc: pb.BadRequestSchema,
      value: { fieldViolations: [{ field: "request_id", description: "too long", reason: "X" }] },
    },
  ]);
  const refusal = refusalOf(error);
  assert.equal(refusal.reason, "LIMIT_REACHED");
  assert.deepEqual(refusal.metadata, { seconds: "1.5" });
  assert.equal(refusal.retryAfterMs, 1500);
  assert.deepEqual(refusal.localized, { locale: "de", message: "langsamer" });
  assert.deepEqual(refusal.fieldViolations, [
    { field: "request_id", description: "too long", reason: "X" },
  ]);
  assert.equal(refusal.message, "slow down");
  assert.ok(refusal.detailed);
});

test("an older server's trailers stand in for the details", () => {
  const trailers = new Headers({
    "maumau-error-code": "card_does_not_match",
    "maumau-error-params": JSON.stringify({ card: "7H", top: "KS", allowed: ["S", "H"], count: 2 }),
    "retry-after-ms": "250",
  });
  const error = new ConnectError("7H does not fit on KS", Code.FailedPrecondition, trailers);
  const refusal = refusalOf(error);
  assert.equal(refusal.reason, "CARD_DOES_NOT_MATCH");
  assert.deepEqual(refusal.metadata, { card: "7H", top: "KS", allowed: "S, H", count: "2" });
  assert.equal(refusal.retryAfterMs, 250);
  assert.equal(refusal.localized, undefined);
  assert.ok(!refusal.detailed);
});

test("an error without either has its status's name as its reason", () => {
  assert.equal(refusalOf(new ConnectError("no such match", Code.NotFound)).reason, "NOT_FOUND");
  assert.equal(refusalOf(new Error("socket hang up")).reason, "UNKNOWN");
  assert.equal(statusName(Code.Canceled), "CANCELLED", "gRPC's spelling, not connect's");
});
