// Coinbase CDP authentication for the Advanced Trade API (docs/spec/exchange.md#what-we-use): one short-lived
// JWT per request, bound to "METHOD host/path" (no query string).
// - ECDSA keys: the secret is a SEC1 ("EC PRIVATE KEY") or PKCS#8 PEM; signed ES256.
//   jose's importPKCS8 refuses SEC1, so node:crypto parses the PEM into a KeyObject.
// - Ed25519 keys: the secret is base64 of 64 bytes (seed then public key); signed EdDSA.
// Keys are parsed once per secret and kept (never logged, never part of an error message).
import { createHash, createPrivateKey, randomBytes, type KeyObject } from "node:crypto";
import { SignJWT, importJWK } from "jose";
import { AuthError } from "#app/core/exchange/errors.ts";
import { normalizeSecret } from "#app/core/schemas/exchange-connection.ts";

export type CdpAlgorithm = "ES256" | "EdDSA";

export interface CdpSigningKey {
  alg: CdpAlgorithm;
  key: KeyObject | CryptoKey | Uint8Array;
}

const cache = new Map<string, Promise<CdpSigningKey>>();

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");

async function parseKey(secret: string): Promise<CdpSigningKey> {
  const text = normalizeSecret(secret);
  if (text.includes("-----BEGIN")) {
    let key: KeyObject;
    try {
      key = createPrivateKey(text);
    } catch {
      throw new AuthError(
        "The Coinbase API secret is not a readable private key (expected an EC PRIVATE KEY PEM from the CDP portal)",
      );
    }
    if (key.asymmetricKeyType === "ec") return { alg: "ES256", key };
    if (key.asymmetricKeyType === "ed25519") return { alg: "EdDSA", key };
    throw new AuthError(
      `The Coinbase API secret is a ${key.asymmetricKeyType} key; Coinbase CDP keys are ECDSA (P-256) or Ed25519`,
    );
  }
  const raw = /^[A-Za-z0-9+/=\s_-]+$/.test(text) ? Buffer.from(text.replace(/\s+/g, ""), "base64") : Buffer.alloc(0);
  if (raw.length !== 64) {
    throw new AuthError("The Coinbase API secret is neither an EC private key PEM nor a base64 Ed25519 key (64 bytes)");
  }
  const jwk = { kty: "OKP", crv: "Ed25519", d: b64url(raw.subarray(0, 32)), x: b64url(raw.subarray(32)) };
  try {
    return { alg: "EdDSA", key: await importJWK(jwk, "EdDSA") };
  } catch {
    throw new AuthError("The Coinbase API secret is not a valid Ed25519 key");
  }
}

/** The signing key behind a CDP secret (parsed once per secret). */
export function signingKeyFor(secret: string): Promise<CdpSigningKey> {
  const id = createHash("sha256").update(secret).digest("hex");
  let parsed = cache.get(id);
  if (!parsed) {
    parsed = parseKey(secret);
    parsed.catch(() => cache.delete(id));
    cache.set(id, parsed);
  }
  return parsed;
}

export interface CdpJwtRequest {
  apiKey: string;
  apiSecret: string;
  method: string;
  /** Host (with port when not default), e.g. api.coinbase.com */
  host: string;
  /** Path without the query string, e.g. /api/v3/brokerage/orders */
  path: string;
  /** Seconds since the epoch (tests pin the clock). */
  now?: number;
}

export const JWT_LIFETIME_S = 120;

/** A CDP bearer token for one request. */
export async function buildCdpJwt(request: CdpJwtRequest): Promise<string> {
  const { alg, key } = await signingKeyFor(request.apiSecret);
  const now = request.now ?? Math.floor(Date.now() / 1000);
  const uri = `${request.method.toUpperCase()} ${request.host}${request.path}`;
  return new SignJWT({ iss: "cdp", sub: request.apiKey, nbf: now, exp: now + JWT_LIFETIME_S, uri })
    .setProtectedHeader({ alg, kid: request.apiKey, nonce: randomBytes(16).toString("hex"), typ: "JWT" })
    .sign(key);
}
