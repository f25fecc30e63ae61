// Message bodies for each channel and the scrubbing every text goes through before it leaves
// the app or is stored as a delivery error (decision 030). Pure: no I/O.
import { createHmac } from "node:crypto";
import { REDACTED } from "../redact.ts";

export interface Message {
  kind: string;
  title: string;
  body: string;
  /** Epoch ms. */
  createdAt: number;
  notificationId: string;
}

/** A Telegram bot token ("123456:ABC…"), a bearer/basic header, a URL's user:password part. */
const SECRET_SHAPES = [
  /\d{5,}:[A-Za-z0-9_-]{25,}/g,
  /\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi,
  /(\/\/)[^/\s:@]+:[^/\s@]+@/g,
];

/** A URL with a path, query or fragment: group 1 is its scheme://host[:port]. */
const URL_SHAPE = /\b([a-z][a-z0-9+.-]{1,15}:\/\/[^\s/?#"'<>]+)[/?#][^\s"'<>]*/gi;

/**
 * Removes every known secret value (and anything shaped like a bot token or credentials in a
 * URL) from a text: error messages of HTTP and SMTP clients may quote a URL or a login.
 */
export function scrub(text: string, secrets: readonly (string | null | undefined)[] = []): string {
  let out = text;
  for (const secret of secrets) {
    if (!secret || secret.length < 4) continue;
    out = out.split(secret).join(REDACTED);
    // A URL-encoded copy (a token in a path or query string).
    const encoded = encodeURIComponent(secret);
    if (encoded !== secret) out = out.split(encoded).join(REDACTED);
  }
  for (const shape of SECRET_SHAPES)
    out = out.replace(shape, (match, p1) => (p1 === "//" ? `//${REDACTED}@` : REDACTED));
  // Any URL keeps only scheme://host: a webhook URL's path and query are its credential,
  // whether or not the text quotes the saved URL exactly (docs/security.md).
  out = out.replace(URL_SHAPE, "$1");
  return out;
}

export function plainText(message: Pick<Message, "title" | "body">): string {
  return message.body && message.body !== message.title ? `${message.title}\n${message.body}` : message.title;
}

/**
 * The outgoing webhook's JSON: `content` (Discord), `text` (Slack) and the structured fields
 * for anything else. Discord caps `content` at 2,000 characters, Slack's text at 40,000.
 */
export function webhookBody(message: Message): string {
  const text = plainText(message);
  return JSON.stringify({
    content: text.slice(0, 2000),
    text,
    event: message.kind,
    title: message.title,
    body: message.body,
    notificationId: message.notificationId,
    createdAt: new Date(message.createdAt).toISOString(),
  });
}

export const SIGNATURE_HEADER = "X-PerpDesk-Signature";

/** "sha256=<hex HMAC-SHA256 of the raw body>" with the signing secret. */
export function signBody(body: string, secret: string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

/** Telegram caps a message at 4,096 characters. */
export function telegramText(message: Pick<Message, "title" | "body">): string {
  const text = plainText(message);
  return text.length > 4096 ? `${text.slice(0, 4093)}...` : text;
}

/** One message for a flood: the count and each folded notification's title, oldest first. */
export function digestText(
  items: { title: string; createdAt: number }[],
  windowSeconds: number,
): { title: string; body: string } {
  const shown = items.slice(0, 50);
  const lines = shown.map((item) => `• ${new Date(item.createdAt).toISOString().slice(11, 19)} ${item.title}`);
  if (items.length > shown.length) lines.push(`… and ${items.length - shown.length} more`);
  return {
    title: `Digest: ${items.length} notification${items.length === 1 ? "" : "s"} held back by the rate limit`,
    body: `More messages than the channel's limit arrived within ${windowSeconds} s; here they are in one:\n${lines.join("\n")}`,
  };
}
