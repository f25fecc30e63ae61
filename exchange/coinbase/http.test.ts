// An HTTP failure's error class (exchange/coinbase/http.ts): a 4xx whose code says
// "size" is a SizeRefusalError whatever its words; the same words under another code are not.
import { expect, test } from "vitest";
import { InvalidOrderError, SizeRefusalError, TemporaryError } from "#app/core/exchange/errors.ts";
import { httpError } from "./http.ts";

const ctx = (status: number, body: unknown) => ({
  service: "Coinbase",
  method: "POST",
  path: "/orders/close_position",
  status,
  body,
  headers: new Headers(),
});

test("a 400 carrying a size code is a size refusal, known by its code alone", () => {
  const error = httpError(
    ctx(400, { error: "PREVIEW_INVALID_BASE_SIZE_TOO_LARGE", message: "something unrelated", error_details: "" }),
  );
  expect(error).toBeInstanceOf(SizeRefusalError);
  expect((error as SizeRefusalError).code).toBe("PREVIEW_INVALID_BASE_SIZE_TOO_LARGE");
  const worded = httpError(
    ctx(400, { error: "INVALID_ARGUMENT", message: "size exceeds the position", error_details: "" }),
  );
  expect(worded).toBeInstanceOf(InvalidOrderError);
  expect(worded).not.toBeInstanceOf(SizeRefusalError);
  expect(httpError(ctx(503, { error: "PREVIEW_INVALID_BASE_SIZE_TOO_LARGE" }))).toBeInstanceOf(TemporaryError);
});
