// What the HTTP server hands every loader and action (Remix load context).
import type { Kysely } from "kysely";
import type { AppConfig } from "#app/core/env.ts";
import type { Database } from "#db/client.ts";
import type { DB } from "#db/schema.ts";

export interface AppServices {
  db: Kysely<DB>;
  database: Database;
  config: AppConfig;
  /** The client's address (X-Forwarded-For first hop only when TRUST_PROXY is on). */
  clientIp: string | null;
  /** The request reached us over https (directly, or per X-Forwarded-Proto behind a trusted proxy). */
  isHttps: boolean;
}

declare module "@remix-run/server-runtime" {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface AppLoadContext extends AppServices {}
}
