import { fileURLToPath } from "node:url";

export const ROOT_DIR = fileURLToPath(new URL("../..", import.meta.url));
/** Local state; gitignored. `CHATD_DATA_DIR` moves it (the dev-command test uses a temp folder). */
export const DATA_DIR = process.env.CHATD_DATA_DIR || `${ROOT_DIR}.data`;
export const DEV_DATA_DIR = `${DATA_DIR}/postgres`;
export const DEV_DATABASE = "chatd";
/** The test harness keeps its own server and database so it never touches a running dev stack. */
export const TEST_DATA_DIR = `${DATA_DIR}/postgres-test`;
export const TEST_DATABASE = "chatd_test";
export const DEV_CREDENTIALS_FILE = `${DATA_DIR}/dev-credentials.json`;
