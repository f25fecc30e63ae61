// The live hub of one web process: tails the events table (id > last seen) and publishes
// each event to every connected /ws client through Bun's pub/sub.
//
// Ids are assigned at insert but become visible at commit, so on MySQL a later id can show
// up before an earlier one. The tail therefore stops at a gap and waits for it (up to
// GAP_WAIT_MS, after which the id is treated as rolled back) instead of skipping past it.
import { liveEventForNonAdmins } from "#app/core/auth/log-privacy.ts";
import type { Kysely } from "kysely";
import { type LiveEvent, latestEventId, listEventsAfter } from "#db/queries/events.ts";
import type { DB } from "#db/schema.ts";

export const LIVE_TOPIC = "live";
/** Non-admin sockets: the same events, sign-in entries and addresses removed (app/core/auth/log-privacy.ts). */
export const LIVE_PUBLIC_TOPIC = "live-public";
const GAP_WAIT_MS = 2_000;

export interface Publisher {
  publish(topic: string, message: string): unknown;
}

export const toWire = (event: LiveEvent) => JSON.stringify({ id: event.id, type: event.type, data: event.data });

export interface HubOptions {
  db: Kysely<DB>;
  pollMs?: number;
  /** Where to start: by default only events written from now on. */
  startAfter?: number;
}

export class LiveHub {
  private lastId = 0;
  private running = false;
  private loop: Promise<void> | null = null;
  private publisher: Publisher | null = null;
  private gapSince: number | null = null;
  readonly pollMs: number;

  constructor(private options: HubOptions) {
    this.pollMs = options.pollMs ?? 15;
  }

  get lastEventId() {
    return this.lastId;
  }

  attach(publisher: Publisher) {
    this.publisher = publisher;
  }

  async start() {
    if (this.running) return;
    this.lastId = this.options.startAfter ?? (await latestEventId(this.options.db));
    this.running = true;
    this.loop = this.run();
  }

  async stop() {
    this.running = false;
    await this.loop;
  }

  /** One poll: returns the events delivered (exposed for tests). */
  async tick(now = Date.now()): Promise<LiveEvent[]> {
    const events = await listEventsAfter(this.options.db, this.lastId, 500);
    const deliver: LiveEvent[] = [];
    let expected = this.lastId + 1;
    for (const event of events) {
      if (event.id !== expected) {
        // A hole: an earlier transaction has not committed yet (or rolled back).
        this.gapSince ??= now;
        if (now - this.gapSince < GAP_WAIT_MS) break;
      }
      this.gapSince = null;
      deliver.push(event);
      expected = event.id + 1;
      this.lastId = event.id;
    }
    if (deliver.length && this.publisher) {
      for (const event of deliver) {
        const wire = toWire(event);
        this.publisher.publish(LIVE_TOPIC, wire);
        const forOthers = liveEventForNonAdmins(event);
        this.publisher.publish(LIVE_PUBLIC_TOPIC, forOthers === event ? wire : toWire(forOthers));
      }
    }
    return deliver;
  }

  private async run() {
    while (this.running) {
      try {
        await this.tick();
      } catch (error) {
        console.error(`[live] tail failed: ${(error as Error).message}`);
      }
      await Bun.sleep(this.pollMs);
    }
  }

  /** Events a reconnecting browser missed (it sends the last id it saw). */
  async replay(afterId: number, limit = 500): Promise<LiveEvent[]> {
    if (afterId >= this.lastId) return [];
    const events = await listEventsAfter(this.options.db, afterId, limit);
    return events.filter((e) => e.id <= this.lastId);
  }
}
