// The import rules of .dependency-cruiser.cjs (decisions 034 and 042) catch what they say: a
// fixture tree with one file per layer, each importing what its layer may not, gives exactly
// the expected violations (core may not even name a type from db/), and the allowed imports
// (db/ naming core's types, exchange/ and reports/ using repositories, the worker and services
// using exchange/ and reports/, type-only imports outside core, utils from services, routes
// and components) give none. `npm run deps` runs the same rules on the real tree.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { cruise } from "dependency-cruiser";
import { afterAll, beforeAll, expect, test } from "vitest";

const config = createRequire(import.meta.url)(path.resolve(".dependency-cruiser.cjs")) as { forbidden: unknown[] };

const FILES: Record<string, string> = {
  "app/core/pnl/types.ts": "export type Fill = { id: string };",
  "db/queries/settings.ts":
    'import type { Fill } from "../../app/core/pnl/types.ts"; export const setting = 1 as unknown as Fill;',
  "db/client.ts": "export const client = 1;",
  "exchange/simulator.ts": 'import { setting } from "../db/queries/settings.ts"; export const sim = setting;',
  "reports/build.ts":
    'import { sim } from "../exchange/simulator.ts"; import { setting } from "../db/queries/settings.ts"; export const report = [sim, setting];',
  "app/services/orders.server.ts":
    'import { setting } from "../../db/queries/settings.ts"; import { sim } from "../../exchange/simulator.ts"; import { report } from "../../reports/build.ts"; export const service = [setting, sim, report];',
  "app/services/live-hub.server.ts":
    'import { setting } from "../../db/queries/settings.ts"; export const hub = setting;',
  "app/utils/toast.server.ts":
    'import type { Fill } from "../core/pnl/types.ts"; export const toast = 1 as unknown as Fill;',
  "app/components/panel.tsx": 'import { toast } from "../utils/toast.server.ts"; export const Panel = toast;',
  "worker/task.ts":
    'import { sim } from "../exchange/simulator.ts"; import { report } from "../reports/build.ts"; export const task = [sim, report];',
  // Forbidden, one each:
  "app/core/pnl/bad.ts": 'import { setting } from "../../../db/queries/settings.ts"; export const a = setting;',
  "app/core/pnl/typed.ts":
    'import type { setting } from "../../../db/queries/settings.ts"; export type T = typeof setting;',
  "app/core/orders/bad.ts": 'import { sim } from "../../../exchange/simulator.ts"; export const a2 = sim;',
  "exchange/bad.ts": 'import { client } from "../db/client.ts"; export const b = client;',
  "exchange/bad-up.ts": 'import { service } from "../app/services/orders.server.ts"; export const b2 = service;',
  "reports/bad.ts": 'import { task } from "../worker/task.ts"; export const b3 = task;',
  "worker/bad.ts": 'import { service } from "../app/services/orders.server.ts"; export const c = service;',
  "app/routes/bad.tsx": 'import { setting } from "../../db/queries/settings.ts"; export const d = setting;',
  "app/routes/bad-adapter.tsx": 'import { sim } from "../../exchange/simulator.ts"; export const d2 = sim;',
  "app/components/bad.tsx": 'import { service } from "../services/orders.server.ts"; export const e = service;',
  "app/services/bad.server.ts": 'import { Panel } from "../components/panel.tsx"; export const f = Panel;',
  "db/queries/bad.ts": 'import { sim } from "../../exchange/simulator.ts"; export const g = sim;',
  "app/utils/bad.server.ts": 'import { setting } from "../../db/queries/settings.ts"; export const u = setting;',
  // Allowed:
  "app/core/pnl/good.ts": 'import type { Fill } from "./types.ts"; export const h = (f: Fill) => f.id;',
  "app/routes/typed.tsx":
    'import type { setting } from "../../db/queries/settings.ts"; export type R = typeof setting;',
  "app/services/live.server.ts":
    'import { hub } from "./live-hub.server.ts"; import { toast } from "../utils/toast.server.ts"; export const i = [hub, toast];',
  "app/routes/good.tsx":
    'import { service } from "../services/orders.server.ts"; import { toast } from "../utils/toast.server.ts"; export const j = [service, toast];',
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
  const result = await cruise(["app", "db", "exchange", "reports", "worker"], {
    baseDir: dir,
    ruleSet: { forbidden: config.forbidden } as never,
    validate: true,
    tsPreCompilationDeps: true,
  });
  const output = result.output as { summary: { violations: { rule: { name: string }; from: string; to: string }[] } };
  const found = output.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`).sort();
  expect(found).toEqual(
    [
      "core-is-pure: app/core/pnl/bad.ts -> db/queries/settings.ts",
      "core-is-pure: app/core/pnl/typed.ts -> db/queries/settings.ts",
      "core-is-pure: app/core/orders/bad.ts -> exchange/simulator.ts",
      "exchange-adapters-use-repositories: exchange/bad.ts -> db/client.ts",
      "exchange-adapters-use-repositories: exchange/bad-up.ts -> app/services/orders.server.ts",
      "reports-use-repositories-and-exchange: reports/bad.ts -> worker/task.ts",
      "worker-below-web: worker/bad.ts -> app/services/orders.server.ts",
      "routes-through-services: app/routes/bad.tsx -> db/queries/settings.ts",
      "routes-through-services: app/routes/bad-adapter.tsx -> exchange/simulator.ts",
      "ui-never-server: app/components/bad.tsx -> app/services/orders.server.ts",
      "services-below-routes: app/services/bad.server.ts -> app/components/panel.tsx",
      "db-below-everything: db/queries/bad.ts -> exchange/simulator.ts",
      "utils-are-small-helpers: app/utils/bad.server.ts -> db/queries/settings.ts",
    ].sort(),
  );
});
