/**
 * `npm run reliability:db-restart`: the long run of R6's restart. Runs the database-restart test
 * file DB_RESTART_ROUNDS times (5 by default), each with a Postgres server of its own restarted
 * under DB_RESTART_CHATS (50) streaming chats. Prints a line per round and a summary; exits
 * non-zero if any round failed.
 */
import { runTestRounds } from "./test-rounds";

runTestRounds({
  file: "test/e2e/database-restart.test.ts",
  event: "database_restart",
  roundsVar: "DB_RESTART_ROUNDS",
  defaultRounds: 5,
  // npm test's slice has 20 chats; the long run has the 50.
  env: { DB_RESTART_CHATS: process.env.DB_RESTART_CHATS ?? "50" },
});
