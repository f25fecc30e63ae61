// The server's half of the key's shape check (issue 22; docs/decisions/010-exchange-connections.md):
// the secret is loaded as the connector will load it (exchange/coinbase/jwt.ts), so a
// PEM that only looks right, a key on another curve or an Ed25519 secret whose halves do not
// match is refused before it is saved. Installed into coinbaseKeyIssue by
// app/services/exchange-connections.server.ts, which every server path that parses the shared
// schemas imports (an explicit call: package.json says "sideEffects": false, so a bare import
// would be dropped from the bundle). Messages never carry the secret.
import { type KeyObject, createPrivateKey, createPublicKey } from "node:crypto";
import { type CoinbaseKeyKind, MESSAGES, installKeyLoader, normalizeSecret } from "./exchange-connection.ts";

const b64url = (bytes: Buffer) => bytes.toString("base64url");

/** Why a CDP secret of this kind cannot sign, or null when it can. */
export function loadCdpSecret(kind: CoinbaseKeyKind, secret: string): string | null {
  const text = normalizeSecret(secret);
  if (kind === "cdp-ecdsa") {
    let key: KeyObject;
    try {
      key = createPrivateKey(text);
    } catch {
      return MESSAGES.pemUnreadable;
    }
    if (key.asymmetricKeyType === "ed25519") return null;
    if (key.asymmetricKeyType !== "ec")
      return `API Secret is a ${key.asymmetricKeyType} key: Coinbase CDP keys are ECDSA (P-256) or Ed25519`;
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve && curve !== "prime256v1") return `API Secret is an EC key on ${curve}: Coinbase CDP keys use P-256`;
    return null;
  }
  if (kind === "cdp-ed25519") {
    const raw = Buffer.from(text.replace(/\s+/g, ""), "base64");
    if (raw.length !== 64) return MESSAGES.ed25519Length;
    try {
      const x = b64url(raw.subarray(32));
      const key = createPrivateKey({
        key: { kty: "OKP", crv: "Ed25519", d: b64url(raw.subarray(0, 32)), x },
        format: "jwk",
      });
      // The second half is the public key of the first: a pasted fragment or two keys mixed is not.
      if ((createPublicKey(key).export({ format: "jwk" }) as { x?: string }).x !== x) return MESSAGES.ed25519Mismatch;
    } catch {
      return MESSAGES.ed25519Mismatch;
    }
    return null;
  }
  return null;
}

/** Makes the shared schemas load CDP secrets on this server (idempotent). */
export function installServerKeyCheck(): void {
  installKeyLoader(loadCdpSecret);
}
