/** How many turns a chat's turn log keeps (apart, so the wire schemas can read it without the log's imports). */
export const KEEP_TURNS = 50;
