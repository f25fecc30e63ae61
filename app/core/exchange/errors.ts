// What can go wrong at the exchange edge, in our words. Callers decide by class:
// - TemporaryError (and subclasses): the outcome of the call is unknown or the exchange is
//   busy; retry later. An order placement that failed this way is reconciled by client
//   order id before anything is sent again.
// - InvalidOrderError / InsufficientFundsError: the exchange refused; never retry as is.
// - SizeRefusalError: refused for the order's SIZE (a code, never a reading of the message):
//   the caller may re-size and try again (docs/decisions/025-contracts-and-rounding.md).
// - AuthError: the credentials are wrong or lack permission; a human must act.
export class ExchangeError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

export class TemporaryError extends ExchangeError {}
export class NetworkError extends TemporaryError {}
export class RateLimitError extends TemporaryError {
  constructor(
    message: string,
    public retryAfterMs: number | null = null,
  ) {
    super(message);
  }
}

export class InvalidOrderError extends ExchangeError {}
export class InsufficientFundsError extends InvalidOrderError {}

/** Our own size checks, refused before anything is sent. */
export type LocalSizeCode = "NOT_POSITIVE" | "UNDER_ONE_CONTRACT" | "BELOW_MINIMUM";

/**
 * The order was refused for its size: by our own checks (a LocalSizeCode) or by the exchange
 * with one of its size codes (Coinbase's are listed in coinbase/refusals.ts). Callers decide
 * by class and code, never by the message, whose wording is the exchange's.
 */
export class SizeRefusalError extends InvalidOrderError {
  constructor(
    message: string,
    public readonly code: LocalSizeCode | (string & {}),
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
export class OrderNotFoundError extends ExchangeError {}
export class AuthError extends ExchangeError {}
/** The exchange does not know the thing asked for (404), other than an order. */
export class NotFoundError extends ExchangeError {}

export const isRetryable = (error: unknown) => error instanceof TemporaryError;
