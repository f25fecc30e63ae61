// `npm start`: migrate once, then run the web server (WEB_PROCESSES of them on one port) and
// the worker side by side. The worker is restarted if it dies; a web server that dies stops
// everything (a supervisor restarts the whole app); stopping this process stops them all.
import { type Subprocess, spawn } from "bun";
import { loadConfigOrExit } from "../app/core/env.ts";
import { openDatabase } from "../db/client.ts";
import { migrateToLatest } from "../db/migrate.ts";

const config = loadConfigOrExit();
const database = await openDatabase(config.databaseUrl);
const applied = await migrateToLatest(database.db);
if (applied.length) console.log(`[start] applied migrations: ${applied.join(", ")}`);
await database.destroy();

const env = { ...process.env, NODE_ENV: process.env.NODE_ENV ?? "production" };
let stopping = false;
const children = new Set<Subprocess>();

function run(name: string, entry: string, restart: boolean) {
  const child = spawn(["bun", entry], { env, stdout: "inherit", stderr: "inherit" });
  children.add(child);
  child.exited.then((code) => {
    children.delete(child);
    if (stopping) return;
    if (restart) {
      console.error(`[start] ${name} exited (${code}); restarting in 1 s`);
      setTimeout(() => !stopping && run(name, entry, restart), 1000);
    } else {
      // Even a clean exit is a failure here: nobody asked it to stop, and a supervisor that
      // restarts only on failure must restart the app.
      console.error(`[start] ${name} exited (${code}); stopping`);
      void shutdown(code || 1);
    }
  });
}

async function shutdown(code = 0) {
  if (stopping) return;
  stopping = true;
  for (const child of children) child.kill("SIGTERM");
  await Promise.race([Promise.all([...children].map((c) => c.exited)), Bun.sleep(5000)]);
  process.exit(code);
}

process.on("SIGINT", () => void shutdown(0));
process.on("SIGTERM", () => void shutdown(0));

for (let i = 1; i <= config.WEB_PROCESSES; i++) run(config.WEB_PROCESSES > 1 ? `web ${i}` : "web", "server.ts", false);
run("worker", "worker/index.ts", true);
