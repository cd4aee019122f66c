/**
 * What a model step reports while it streams: the small, stable shape the part buffer stores and
 * the parts stream carries (`message_part.part`). Snake_case like every wire shape.
 */
export type StreamPart =
  | { type: "text-delta"; text: string }
  | { type: "reasoning-delta"; text: string }
  /** A fragment of a tool call's JSON arguments while the model writes them. */
  | { type: "tool-input-delta"; tool_call_id: string; tool_name: string; delta: string }
  /** The complete call, arguments parsed. */
  | { type: "tool-call"; tool_call_id: string; tool_name: string; args: unknown }
  /**
   * Not from the model: something the client should know about the step, e.g. an MCP server that
   * could not be reached and was skipped (`code: "mcp_connect_failed"`). Live only, like every part.
   */
  | { type: "warning"; code: string; message: string };
