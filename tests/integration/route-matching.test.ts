// Remix's server-side route matching with the patch of decision 037 (patches/, applied by
// patch-package on npm install): the route table is flattened and ranked once per table, each
// path's matcher compiled once and the branch a pathname matched remembered; matching still
// finds what it found before: static segments over params, params, optional segments, splats,
// index routes, no match, a second table.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";

// The copy the server uses: @remix-run/server-runtime requires the CommonJS build.
const require = createRequire(import.meta.url);
const routerPath = require.resolve("@remix-run/router", { paths: [require.resolve("@remix-run/server-runtime")] });
const router = require(routerPath) as typeof import("@remix-run/router");

type Route = { id: string; path?: string; index?: boolean; children?: Route[] };

const table = (): Route[] => [
  {
    id: "root",
    path: "",
    children: [
      { id: "index", index: true },
      { id: "positions", path: "positions" },
      { id: "position-chart", path: "positions/:id/chart" },
      { id: "positions-new", path: "positions/new" },
      { id: "api-trades", path: "api/trades" },
      { id: "api-trade", path: "api/trades/:id" },
      { id: "lang", path: ":lang?/about" },
      { id: "splat", path: "*" },
    ],
  },
];

const leaf = (routes: Route[], path: string) => {
  const matches = router.matchRoutes(routes as never, path);
  const last = matches?.[matches.length - 1];
  return last ? { id: (last.route as Route).id, params: { ...last.params } } : null;
};

describe("route matching (patched @remix-run/router)", () => {
  test("the server's copy of the router carries the patch", () => {
    expect(routerPath).toMatch(/router\.cjs\.js$/);
    const source = readFileSync(routerPath, "utf8");
    expect(source).toContain("rankedBranchesCache");
    expect(source).toContain("compiledPaths");
    expect(source).toContain("matchedBranchCache");
  });

  test("matches as before, call after call, and each table on its own", () => {
    const routes = table();
    for (let round = 0; round < 3; round++) {
      expect(leaf(routes, "/")).toEqual({ id: "index", params: {} });
      expect(leaf(routes, "/positions")).toEqual({ id: "positions", params: {} });
      expect(leaf(routes, "/positions/")).toEqual({ id: "positions", params: {} });
      expect(leaf(routes, "/POSITIONS")).toEqual({ id: "positions", params: {} });
      expect(leaf(routes, "/positions/new")).toEqual({ id: "positions-new", params: {} });
      expect(leaf(routes, "/positions/p-1/chart")).toEqual({ id: "position-chart", params: { id: "p-1" } });
      expect(leaf(routes, "/positions/p-2/chart")).toEqual({ id: "position-chart", params: { id: "p-2" } });
      expect(leaf(routes, "/api/trades/t%2F1")).toEqual({ id: "api-trade", params: { id: "t/1" } });
      expect(leaf(routes, "/about")).toEqual({ id: "lang", params: { lang: undefined } });
      expect(leaf(routes, "/de/about")).toEqual({ id: "lang", params: { lang: "de" } });
      expect(leaf(routes, "/no/such/page")).toEqual({ id: "splat", params: { "*": "no/such/page" } });
    }
    // Another table (a rebuilt app in development) is matched against its own routes.
    // A path seen before is matched against the branch it matched then; no match stays none.
    const other: Route[] = [{ id: "only", path: "positions/:symbol" }];
    for (let round = 0; round < 3; round++) {
      expect(leaf(other, "/positions/new")).toEqual({ id: "only", params: { symbol: "new" } });
      expect(leaf(other, `/positions/sym-${round}`)).toEqual({ id: "only", params: { symbol: `sym-${round}` } });
      expect(leaf(other, "/")).toBeNull();
      expect(leaf(routes, "/positions/new")).toEqual({ id: "positions-new", params: {} });
    }
  });

  test("matchPath keeps its own contract with shared compiled matchers", () => {
    expect(router.matchPath("/trades/:id", "/trades/7")?.params).toEqual({ id: "7" });
    expect(router.matchPath({ path: "/trades", end: false }, "/trades/7")?.pathnameBase).toBe("/trades");
    expect(router.matchPath({ path: "/Trades", caseSensitive: true }, "/trades")).toBeNull();
    expect(router.matchPath({ path: "/Trades", caseSensitive: false }, "/trades")).not.toBeNull();
    expect(router.matchPath("/trades/:id", "/trades/8")?.params).toEqual({ id: "8" });
  });
});
