// The grace periods an admin may give the old webhook secret when rotating it (issue 25,
// decision 017): during it both secrets are accepted, so live alerts are not lost while the
// TradingView alerts are updated; after it the old one is refused. Shared by the server
// (app/services/webhook.server.ts) and Webhook Config's form.
export const ROTATION_GRACES = { none: 0, "15m": 15 * 60_000, "1h": 3_600_000, "24h": 86_400_000 } as const;
export type RotationGrace = keyof typeof ROTATION_GRACES;
export const ROTATION_GRACE_LABELS: Record<RotationGrace, string> = {
  none: "None: the old secret stops at once",
  "15m": "15 minutes",
  "1h": "1 hour",
  "24h": "24 hours",
};
export const isRotationGrace = (value: unknown): value is RotationGrace =>
  typeof value === "string" && Object.hasOwn(ROTATION_GRACES, value);
