// The import rules of .dependency-cruiser.cjs (decision 034) catch what they say: a fixture
// tree with one file per layer, each importing what its layer may not, gives exactly the
// expected violations, and the allowed imports (type-only across layers, the exchange adapters
// using repositories, services using app/live/*.server.ts) give none. `npm run deps` runs the
// same rules on the real tree.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { cruise } from "dependency-cruiser";
import { afterAll, beforeAll, expect, test } from "vitest";

const config = createRequire(import.meta.url)(path.resolve(".dependency-cruiser.cjs")) as { forbidden: unknown[] };

const FILES: Record<string, string> = {
  "db/queries/settings.ts": "export const setting = 1;",
  "db/client.ts": "export const client = 1;",
  "app/services/orders.server.ts": 'import { setting } from "../../db/queries/settings.ts"; export const service = setting;',
  "app/live/hub.server.ts": 'import { setting } from "../../db/queries/settings.ts"; export const hub = setting;',
  "app/components/panel.tsx": "export const Panel = 1;",
  // Forbidden, one each:
  "app/core/pnl/bad.ts": 'import { setting } from "../../../db/queries/settings.ts"; export const a = setting;',
  "app/core/exchange/bad.ts": 'import { client } from "../../../db/client.ts"; export const b = client;',
  "worker/bad.ts": 'import { service } from "../app/services/orders.server.ts"; export const c = service;',
  "app/routes/bad.tsx": 'import { setting } from "../../db/queries/settings.ts"; export const d = setting;',
  "app/components/bad.tsx": 'import { service } from "../services/orders.server.ts"; export const e = service;',
  "app/services/bad.server.ts": 'import { Panel } from "../components/panel.tsx"; export const f = Panel;',
  "db/queries/bad.ts": 'import { service } from "../../app/services/orders.server.ts"; export const g = service;',
  // Allowed:
  "app/core/exchange/good.ts": 'import { setting } from "../../../db/queries/settings.ts"; export const h = setting;',
  "app/core/pnl/typed.ts": 'import type { setting } from "../../../db/queries/settings.ts"; export type T = typeof setting;',
  "app/services/live.server.ts": 'import { hub } from "../live/hub.server.ts"; export const i = hub;',
  "app/routes/good.tsx": 'import { service } from "../services/orders.server.ts"; export const j = service;',
};

let dir = "";

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "deps-"));
  for (const [file, text] of Object.entries(FILES)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

test("each layer's forbidden import is one violation; allowed imports are none", async () => {
  const result = await cruise(["app", "db", "worker"], { baseDir: dir, ruleSet: { forbidden: config.forbidden } as never, validate: true, tsPreCompilationDeps: true });
  const output = result.output as { summary: { violations: { rule: { name: string }; from: string; to: string }[] } };
  const found = output.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`).sort();
  expect(found).toEqual(
    [
      "core-is-pure: app/core/pnl/bad.ts -> db/queries/settings.ts",
      "core-adapters-use-repositories: app/core/exchange/bad.ts -> db/client.ts",
      "worker-uses-core-and-db: worker/bad.ts -> app/services/orders.server.ts",
      "routes-through-services: app/routes/bad.tsx -> db/queries/settings.ts",
      "ui-never-server: app/components/bad.tsx -> app/services/orders.server.ts",
      "services-below-routes: app/services/bad.server.ts -> app/components/panel.tsx",
      "db-below-services: db/queries/bad.ts -> app/services/orders.server.ts",
    ].sort(),
  );
});
