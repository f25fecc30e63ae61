// Activity Logs paging and filters (issue 13) on both databases: cursor paging returns every
// entry exactly once while new entries arrive between page requests; each filter (date range,
// type, level, text, strategy) and their combination, in GET /api/logs and the /logs screen
// as a browser without JavaScript gets it; the CSV export holds exactly the filtered entries.
import { beforeAll, describe, expect, test } from "vitest";
import { recordActivity } from "#db/queries/activity-logs.ts";
import { freshApp, registerVia } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";

interface Entry {
  id: number;
  type: string;
  level: string;
  message: string;
  data: Record<string, unknown>;
  createdAt: string;
}

const TYPES = ["trade", "signal", "system", "webhook"];
const LEVELS = ["error", "warning", "success", "info"];
const DAY0 = Date.parse("2026-01-01T00:00:00Z");
const HOUR = 3_600_000;

/** 60 entries over 2026-01-01..03 (one every hour from midnight of the 1st, then spread). */
const seed = Array.from({ length: 60 }, (_, i) => ({
  type: TYPES[i % 4]!,
  level: LEVELS[Math.floor(i / 4) % 4]!,
  message: `${i % 3 === 0 ? "Order FILLED" : i % 3 === 1 ? "order filled partly" : "Heartbeat"} #${i} 50%_off`,
  data: JSON.stringify(i % 5 === 0 ? { strategyId: "strat-paging" } : { n: i }),
  created_at: DAY0 + i * 1.2 * HOUR,
}));

describe.each(testDialects())("activity logs paging and filters on %s", (dialect) => {
  const app = freshApp(dialect);
  let admin: string;
  const api = async (query: string) => {
    const response = await app.fetch(`/api/logs?${query}`, { cookie: admin });
    expect(response.status).toBe(200);
    return { logs: (await response.json()) as Entry[], next: response.headers.get("x-next-cursor") };
  };
  /** Every page of a query, following X-Next-Cursor. */
  const allPages = async (query: string, limit = 7) => {
    const out: Entry[] = [];
    let next: string | null = null;
    for (let n = 0; n < 100; n++) {
      const page = await api(`${query}&limit=${limit}${next ? `&before=${next}` : ""}`);
      out.push(...page.logs);
      next = page.next;
      if (!next) return out;
    }
    throw new Error("too many pages");
  };
  const seeded = () => seed.map((row, i) => ({ ...row, i, createdMs: row.created_at }));
  const expectIds = (logs: Entry[], rows: { message: string }[]) =>
    expect(logs.map((l) => l.message).sort()).toEqual(rows.map((r) => r.message).sort());

  beforeAll(async () => {
    admin = (await registerVia(app, "paging_admin", "secret123", "admin")).cookie;
    await app.database.db.insertInto("activity_logs").values(seed).execute();
  });

  test("the array body stays; X-Next-Cursor and before= (and beforeId=) page newest first", async () => {
    const first = await api("limit=5");
    expect(Array.isArray(first.logs)).toBe(true);
    expect(first.logs).toHaveLength(5);
    expect(first.next).toBe(String(first.logs[4]!.id));
    const ids = first.logs.map((l) => l.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    const second = await api(`limit=5&before=${first.next}`);
    const legacy = await api(`limit=5&beforeId=${first.next}`);
    expect(second.logs.map((l) => l.id)).toEqual(legacy.logs.map((l) => l.id));
    expect(Math.max(...second.logs.map((l) => l.id))).toBeLessThan(Math.min(...ids));
    // The last page has no cursor.
    const total = Number(
      (
        await app.database.db
          .selectFrom("activity_logs")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );
    expect((await api(`limit=${total}`)).next).toBeNull();
    expect((await api(`limit=${total - 1}`)).next).not.toBeNull();
  });

  test("paging returns every entry exactly once while new entries arrive between pages", async () => {
    const existing = (await app.database.db.selectFrom("activity_logs").select("id").execute()).map((r) =>
      Number(r.id),
    );
    const seen: number[] = [];
    let next: string | null = null;
    let arrivals = 0;
    for (let n = 0; n < 200; n++) {
      const page = await api(`limit=6${next ? `&before=${next}` : ""}`);
      seen.push(...page.logs.map((l) => l.id));
      // New entries between page requests.
      await recordActivity(app.database.db, {
        type: "system",
        level: "info",
        message: `arrived while paging ${arrivals++}`,
      });
      await recordActivity(app.database.db, {
        type: "trade",
        level: "success",
        message: `arrived while paging ${arrivals++}`,
      });
      next = page.next;
      if (!next) break;
    }
    expect(next).toBeNull();
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort((a, b) => a - b)).toEqual([...existing].sort((a, b) => a - b));
  });

  test("each filter alone and all together (API, every page)", async () => {
    const rows = seeded();
    // Date range: days, `to` inclusive.
    expectIds(
      await allPages("from=2026-01-02&to=2026-01-02"),
      rows.filter((r) => r.createdMs >= DAY0 + 24 * HOUR && r.createdMs < DAY0 + 48 * HOUR),
    );
    // An ISO time range (to exclusive).
    expectIds(
      await allPages(`from=${new Date(DAY0 + 6 * HOUR).toISOString()}&to=${new Date(DAY0 + 12 * HOUR).toISOString()}`),
      rows.filter((r) => r.createdMs >= DAY0 + 6 * HOUR && r.createdMs < DAY0 + 12 * HOUR),
    );
    // Type and level.
    const typed = (await allPages("type=webhook")).filter((l) => l.message.includes("50%_off"));
    expectIds(
      typed,
      rows.filter((r) => r.type === "webhook"),
    );
    const levelled = (await allPages("level=warning")).filter((l) => l.message.includes("50%_off"));
    expectIds(
      levelled,
      rows.filter((r) => r.level === "warning"),
    );
    // Text: case-insensitive substring; LIKE's wildcards are plain text.
    expectIds(
      await allPages("q=order%20filled"),
      rows.filter((r) => r.message.toLowerCase().includes("order filled")),
    );
    expectIds(
      await allPages("q=FILLED%20%23"),
      rows.filter((r) => r.message.includes("FILLED #")),
    );
    expectIds(await allPages(`q=${encodeURIComponent("50%_off")}`), rows);
    expect(await allPages(`q=${encodeURIComponent("5_%off")}`)).toEqual([]);
    // Strategy (the entries that name it).
    expectIds(
      await allPages("strategy=strat-paging"),
      rows.filter((r) => r.data.includes("strat-paging")),
    );
    // All together.
    const all = await allPages(
      "from=2026-01-01&to=2026-01-02&type=trade&level=error&q=filled&strategy=strat-paging",
      2,
    );
    const expected = rows.filter(
      (r) =>
        r.createdMs < DAY0 + 48 * HOUR &&
        r.type === "trade" &&
        r.level === "error" &&
        r.message.toLowerCase().includes("filled") &&
        r.data.includes("strat-paging"),
    );
    expect(expected.length).toBeGreaterThan(0);
    expectIds(all, expected);
  });

  test("the CSV export holds exactly the filtered entries, all of them (not one page)", async () => {
    const query = "from=2026-01-01&to=2026-01-03&q=filled&limit=3";
    const response = await app.fetch(`/api/logs?format=csv&${query}`, { cookie: admin });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/csv");
    expect(response.headers.get("content-disposition")).toMatch(
      /attachment; filename="activity-logs-\d{4}-\d{2}-\d{2}\.csv"/,
    );
    const csv = await response.text();
    const lines = csv.trim().split(/\r?\n/);
    expect(lines[0]).toBe("Timestamp,Type,Level,Message,Data");
    const expected = seeded().filter((r) => r.message.toLowerCase().includes("filled"));
    expect(expected.length).toBeGreaterThan(3);
    expect(lines).toHaveLength(expected.length + 1);
    for (const row of expected) expect(csv).toContain(row.message);
    expect(csv).not.toContain("Heartbeat");
    expect(response.headers.get("x-total-count")).toBe(String(expected.length));
    // A CSV needs a login, as the list does.
    expect((await app.fetch(`/api/logs?format=csv`)).status).toBe(401);
  });

  test("without JavaScript: /logs renders the filtered page, the filter form and the Older link", async () => {
    const page = await (
      await app.fetch("/logs?type=trade&q=order&from=2026-01-01&to=2026-01-03", { cookie: admin })
    ).text();
    expect(page).toContain('data-testid="logs-filters"');
    expect(page).toMatch(/<form[^>]*method="get"[^>]*action="\/logs"/);
    expect(page).toContain('name="q"');
    const expected = seeded().filter((r) => r.type === "trade" && r.message.toLowerCase().includes("order"));
    const shown = [...page.matchAll(/data-testid="activity-log-message"[^>]*>([^<]*)</g)].map((m) => m[1]);
    expect(shown.sort()).toEqual(expected.map((r) => r.message.replace(/&/g, "&amp;")).sort());
    expect(page).not.toContain('data-testid="logs-older"');
    expect(page).toContain("/api/logs?from=2026-01-01&amp;to=2026-01-03&amp;type=trade&amp;q=order&amp;format=csv");

    // Unfiltered: 100 a page, then Older with the cursor; its page continues without overlap.
    for (let i = 0; i < 60; i++)
      await recordActivity(app.database.db, { type: "system", level: "info", message: `screen paging filler ${i}` });
    const first = await (await app.fetch("/logs", { cookie: admin })).text();
    expect(first).toMatch(/<a href="\/logs\?before=\d+"[^>]*data-testid="logs-older"[^>]*>Older</);
    const href = first.match(/href="(\/logs\?before=\d+)"/)![1]!;
    const firstIds = [...first.matchAll(/data-testid="activity-log-entry"/g)].length;
    expect(firstIds).toBe(100);
    const second = await (await app.fetch(href, { cookie: admin })).text();
    expect(second).toContain("back to newest");
    const messages = (html: string) =>
      [...html.matchAll(/data-testid="activity-log-message"[^>]*>([^<]*)</g)].map((m) => m[1]);
    const overlap = messages(second).filter((m) => messages(first).includes(m));
    expect(overlap).toEqual([]);
    expect(messages(second).length).toBeGreaterThan(0);
  });
});
