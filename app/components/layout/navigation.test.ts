import { describe, expect, test } from "vitest";
import { MAIN_NAV, MORE_NAV, type NavItem, isActive, visibleItems } from "#app/components/layout/navigation.ts";

const item = (to: string): NavItem => {
  const found = [...MAIN_NAV, ...MORE_NAV].find((i) => i.to === to);
  if (!found) throw new Error(`no nav item ${to}`);
  return found;
};
const ADMIN_ONLY = ["Webhook Config", "API Settings", "Trading Rules", "Users"];

describe("isActive", () => {
  test("Dashboard is active at / and /dashboard", () => {
    const dashboard = item("/");
    for (const path of ["/", "/dashboard", "/dashboard/", "//"]) expect(isActive(dashboard, path), path).toBe(true);
    for (const path of ["/positions", "/dashboards", "/logs"]) expect(isActive(dashboard, path), path).toBe(false);
  });

  test("/ highlights Dashboard only", () => {
    const active = [...MAIN_NAV, ...MORE_NAV].filter((i) => isActive(i, "/")).map((i) => i.label);
    expect(active).toEqual(["Dashboard"]);
  });

  test("Trade History is active at /history and its three aliases, with or without a trailing slash", () => {
    const history = item("/history");
    for (const path of ["/history", "/trade-history", "/trades", "/signals"]) {
      expect(isActive(history, path), path).toBe(true);
      expect(isActive(history, `${path}/`), `${path}/`).toBe(true);
    }
    expect(isActive(history, "/")).toBe(false);
    expect(isActive(history, "/positions")).toBe(false);
  });

  test("an entry without aliases matches its own path only; trailing slashes are ignored", () => {
    const positions = item("/positions");
    expect(isActive(positions, "/positions")).toBe(true);
    expect(isActive(positions, "/positions/")).toBe(true);
    expect(isActive(positions, "/positions//")).toBe(true);
    expect(isActive(positions, "/")).toBe(false);
    expect(isActive(positions, "/position")).toBe(false);
    expect(isActive(item("/logs"), "/logs/")).toBe(true);
  });

  test("exactly one entry is active on each listed path", () => {
    for (const entry of [...MAIN_NAV, ...MORE_NAV]) {
      for (const path of [entry.to, ...(entry.aliases ?? [])]) {
        const active = [...MAIN_NAV, ...MORE_NAV].filter((i) => isActive(i, path));
        expect(
          active.map((i) => i.label),
          path,
        ).toEqual([entry.label]);
      }
    }
  });
});

describe("visibleItems", () => {
  test("role user does not see the three admin entries", () => {
    const labels = visibleItems(MAIN_NAV, "user").map((i) => i.label);
    expect(labels).toEqual(["Dashboard", "Positions", "Exchanges", "Trade History"]);
    for (const label of ADMIN_ONLY) expect(labels).not.toContain(label);
  });

  test("role admin sees every entry, in order", () => {
    expect(visibleItems(MAIN_NAV, "admin")).toEqual(MAIN_NAV);
    expect(MAIN_NAV.filter((i) => i.adminOnly).map((i) => i.label)).toEqual(ADMIN_ONLY);
  });

  test("an unknown role is treated like user", () => {
    expect(visibleItems(MAIN_NAV, "").map((i) => i.label)).toEqual(visibleItems(MAIN_NAV, "user").map((i) => i.label));
    expect(visibleItems(MAIN_NAV, "Admin")).toHaveLength(4);
  });

  test("the secondary entries are visible to everyone but Notifications (admins only, decision 030)", () => {
    expect(MORE_NAV.filter((i) => i.adminOnly).map((i) => i.label)).toEqual(["Notifications"]);
    expect(visibleItems(MORE_NAV, "user")).toEqual(MORE_NAV.filter((i) => !i.adminOnly));
    expect(visibleItems(MORE_NAV, "viewer").map((i) => i.label)).not.toContain("Notifications");
    expect(visibleItems(MORE_NAV, "admin")).toEqual(MORE_NAV);
  });
});
