// Once per `vitest run`: check that MariaDB/MySQL answers (the MySQL half of the suite is
// not optional) and sweep test databases that killed runs left behind.
import { dropStaleTestDatabases, testDialects } from "./db.ts";

export default async function setup() {
  if (testDialects().includes("mysql")) await dropStaleTestDatabases();
}
