/** The API's chat and message shapes as the runner tests read them (the fields they look at). */
export interface Part {
  type: string;
  text?: string;
  tool_call_id?: string;
  tool_name?: string;
  args?: unknown;
  result?: unknown;
  is_error?: boolean;
}

export interface Message {
  id: string;
  role: string;
  content: Part[];
  reasoning_effort?: string | null;
}

export interface Chat {
  id: string;
  status: string;
  last_error: { message: string } | null;
  archived?: boolean;
  worker_id?: string | null;
  has_unread?: boolean;
  client_type?: string;
  children?: Chat[];
}
