/**
 * The active tail: active history from the last active assistant message onwards, where pending
 * tool calls live; empty when there is none. $1 is the chat id.
 */
export const ACTIVE_TAIL_SQL = `
  SELECT m.* FROM chat_messages m
  WHERE m.chat_id = $1 AND NOT m.deleted
    AND m.id >= (SELECT max(a.id) FROM chat_messages a WHERE a.chat_id = $1 AND NOT a.deleted AND a.role = 'assistant')
  ORDER BY m.id`;
