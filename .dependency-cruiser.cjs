// Import rules (issue 14, decision 034; layering of issue 24, decision 042):
//   routes -> services -> exchange + reports -> db/queries -> core
//   worker -> exchange + reports + db/queries -> core
// core imports only core and libraries; no exemptions: `npm run deps` (in `npm test`) fails on
// any violation. Type-only imports may cross layers outside core (a screen may name a row
// type, Remix's `typeof loader` needs it); app/core holds the domain types, so it needs none.
const runtime = { dependencyTypesNot: ["type-only"] };
const UI = "app/(routes|components|live|mui)/";
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "core-is-pure",
      comment:
        "app/core is the domain (rules, types, schemas, formats) shared by web, worker, db and the screens: it imports only core and libraries, not even types from elsewhere",
      severity: "error",
      from: { path: "^app/core/" },
      to: {
        path: "^(db/|exchange/|reports/|worker/|server\\.ts|scripts/|app/(services|utils|routes|components|live|mui)/)",
      },
    },
    {
      name: "no-raw-queries-in-core",
      comment: "SQL is written in db/queries, not in app/core",
      severity: "error",
      from: { path: "^app/core/" },
      to: { path: "node_modules/kysely/", ...runtime },
    },
    {
      name: "db-below-everything",
      comment: "db/ (schema, client, migrations, repositories) depends on core only",
      severity: "error",
      from: { path: "^db/" },
      to: { path: "^(exchange/|reports/|worker/|app/(services|utils|routes|components|live|mui)/)", ...runtime },
    },
    {
      name: "exchange-adapters-use-repositories",
      comment:
        "exchange/ (the simulator, Coinbase, the factory and credentials) persists through db/queries only, never the client or migrations, and knows nothing above it",
      severity: "error",
      from: { path: "^exchange/" },
      to: {
        path: "^(db/(client|migrate|migrations)|reports/|worker/|app/(services|utils|routes|components|live|mui)/)",
        ...runtime,
      },
    },
    {
      name: "reports-use-repositories-and-exchange",
      comment:
        "reports/ builds report files from db/queries and the simulator (exchange/); called by the worker's generate-report task and by services",
      severity: "error",
      from: { path: "^reports/" },
      to: {
        path: "^(db/(client|migrate|migrations)|worker/|app/(services|utils|routes|components|live|mui)/)",
        ...runtime,
      },
    },
    {
      name: "worker-below-web",
      comment: "the worker runs without the web app: core, db, exchange and reports only",
      severity: "error",
      from: { path: "^worker/" },
      to: { path: "^app/(services|utils|routes|components|live|mui)/", ...runtime },
    },
    {
      name: "services-below-routes",
      comment: "services are called by routes and server.ts; they never import UI, routes or the worker",
      severity: "error",
      from: { path: "^app/services/" },
      to: { path: `^(worker/|${UI})`, ...runtime },
    },
    {
      name: "utils-are-small-helpers",
      comment:
        "app/utils: request and UI helpers (cookies, toasts, API responses, the browser's API client, hooks): core and libraries only, no database, no adapters, no services",
      severity: "error",
      from: { path: "^app/utils/" },
      to: { path: `^(db/|exchange/|reports/|worker/|app/services/|${UI})`, ...runtime },
    },
    {
      name: "routes-through-services",
      comment: "routes read and write through services, never db/, the adapters, reports or the worker directly",
      severity: "error",
      from: { path: "^app/routes/" },
      to: { path: "^(db/|exchange/|reports/|worker/)", ...runtime },
    },
    {
      name: "ui-never-server",
      comment: "components, the MUI theme and the browser's live hook render; server data reaches them through loaders",
      severity: "error",
      from: { path: "^app/(components|mui|live)/" },
      to: { path: "^(db/|exchange/|reports/|worker/|app/(services|routes)/)", ...runtime },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(\\.test\\.tsx?$|^tests/|^build/|^public/)" },
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
  },
};
