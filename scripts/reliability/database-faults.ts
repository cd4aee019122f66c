/**
 * `npm run reliability:db-faults`: the long run of R6. Runs the database-faults test file
 * DB_FAULTS_ROUNDS times (10 by default), each a fresh deployment with its own database: ten chats
 * streaming, every connection killed three times, then the database unreachable for 3 s. Prints a
 * line per round and a summary; exits non-zero if any round failed.
 */
import { runTestRounds } from "./test-rounds";

runTestRounds({ file: "test/e2e/database-faults.test.ts", event: "database_faults", roundsVar: "DB_FAULTS_ROUNDS", defaultRounds: 10 });
