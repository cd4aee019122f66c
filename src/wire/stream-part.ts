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
  /** A tool the provider ran itself (web search): reported, never executed here. */
  | { type: "provider-tool-call"; tool_call_id: string; tool_name: string; args: unknown; provider: string }
  /**
   * Its result, as the committed message will hold it but without the opaque replay data
   * (Anthropic's `encryptedContent`), which only the provider can read and which would crowd the
   * episode's byte cap out of the text that follows.
   */
  | { type: "provider-tool-result"; tool_call_id: string; tool_name: string; result: unknown; is_error: boolean; provider: string }
  /** A web page the response drew on, once per URL per step. */
  | { type: "source"; url: string; title?: string }
  /**
   * Not from the model: something the client should know about the step, e.g. an MCP server that
   * could not be reached and was skipped (`code: "mcp_connect_failed"`). Live only, like every part.
   */
  | { type: "warning"; code: string; message: string };
