// AES-256-GCM for secrets stored in the database (webhook secret, exchange keys). The key
// is derived from APP_SECRET, which lives outside the database. Format: v1.<iv>.<tag>.<data>
// (base64url), a fresh random 96-bit IV per encryption.
import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from "node:crypto";

const keyCache = new Map<string, Buffer>();

function keyFor(appSecret: string): Buffer {
  let key = keyCache.get(appSecret);
  if (!key) {
    key = createHmac("sha256", appSecret).update("perpdesk:aes-256-gcm:v1").digest();
    keyCache.set(appSecret, key);
  }
  return key;
}

export function encryptSecret(plaintext: string, appSecret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", keyFor(appSecret), iv);
  const data = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return ["v1", iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), data.toString("base64url")].join(
    ".",
  );
}

export class DecryptError extends Error {
  constructor() {
    super("Stored secret cannot be decrypted: APP_SECRET differs from the one that encrypted it");
  }
}

export function decryptSecret(token: string, appSecret: string): string {
  const [version, iv, tag, data] = token.split(".");
  if (version !== "v1" || !iv || !tag || data === undefined) throw new DecryptError();
  try {
    const decipher = createDecipheriv("aes-256-gcm", keyFor(appSecret), Buffer.from(iv, "base64url"));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(data, "base64url")), decipher.final()]).toString("utf8");
  } catch {
    throw new DecryptError();
  }
}

/** Constant-time string comparison (for secrets presented by callers). */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, "utf8");
  const right = Buffer.from(b, "utf8");
  if (left.length !== right.length) {
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}

export const randomSecret = (bytes = 24) => randomBytes(bytes).toString("base64url");
