// Import rules (issue 14, decision 034): routes -> services -> core + db; worker -> core + db.
// `npm test` runs depcruise with this file and the known-violations baseline
// (.dependency-cruiser-known-violations.json): a new exception fails CI; fixing a known one
// means regenerating the baseline smaller (`npm run deps:baseline`). Type-only imports are
// allowed across layers (a screen may name a row type); runtime imports are what the rules hold.
const runtime = { dependencyTypesNot: ["type-only"] };
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "core-is-pure",
      comment: "app/core is domain code shared by web and worker: no database, no services, no UI, no request helpers",
      severity: "error",
      from: { path: "^app/core/", pathNot: "^app/core/(exchange|reports)/" },
      to: { path: "^(db/|worker/|app/(services|routes|components|utils|live|mui)/)", ...runtime },
    },
    {
      name: "core-adapters-use-repositories",
      comment: "the exchange adapters and report builders in app/core persist through db/queries only",
      severity: "error",
      from: { path: "^app/core/(exchange|reports)/" },
      to: { path: "^(db/(client|migrate|migrations)|worker/|app/(services|routes|components|utils|live|mui)/)", ...runtime },
    },
    {
      name: "no-raw-queries-in-core",
      comment: "SQL is written in db/queries, not in app/core",
      severity: "error",
      from: { path: "^app/core/" },
      to: { path: "node_modules/kysely/", ...runtime },
    },
    {
      name: "db-below-services",
      comment: "repositories depend on core only",
      severity: "error",
      from: { path: "^db/" },
      to: { path: "^(worker/|app/(services|routes|components|utils|live|mui)/)", ...runtime },
    },
    {
      name: "worker-uses-core-and-db",
      comment: "the worker runs without the web app: core + db only",
      severity: "error",
      from: { path: "^worker/" },
      to: { path: "^app/(services|routes|components|utils|live|mui)/", ...runtime },
    },
    {
      name: "services-below-routes",
      comment: "services are called by routes; they never import UI, routes or the worker",
      severity: "error",
      from: { path: "^app/services/" },
      to: { path: "^(worker/|app/(routes|components|live|mui)/)", pathNot: "^app/live/.*\\.server\\.tsx?$", ...runtime },
    },
    {
      name: "routes-through-services",
      comment: "routes read and write through services, never db/ or the worker directly",
      severity: "error",
      from: { path: "^app/routes/" },
      to: { path: "^(db/|worker/)", ...runtime },
    },
    {
      name: "ui-never-server",
      comment: "components render; server data reaches them through loaders (app/live/*.server.ts is the web server's socket hub, a service)",
      severity: "error",
      from: { path: "^app/(components|mui|live)/", pathNot: "\\.server\\.tsx?$" },
      to: { path: "^(db/|worker/|app/services/)", ...runtime },
    },
    {
      name: "live-server-below-routes",
      comment: "the socket hub reads events through db/queries and never imports UI",
      severity: "error",
      from: { path: "^app/live/.*\\.server\\.tsx?$" },
      to: { path: "^(worker/|app/(routes|components|mui)/)", ...runtime },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(\\.test\\.tsx?$|^tests/|^build/|^public/)" },
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
  },
};
