/**
 * The one error the SDK throws for anything the API refuses: the API's error body
 * (`{message, detail?, code, validations?}`) plus the HTTP status. Network failures are
 * `status: 0, code: "network_error"`; a stream that cannot go on is `code: "stream_closed"`
 * with the close code in `detail`.
 */
import type { z } from "zod";
import type { ErrorSchema } from "../../src/http/error-schema";

export type ErrorBody = z.infer<typeof ErrorSchema>;
export type Validation = NonNullable<ErrorBody["validations"]>[number];

export class ChatdError extends Error {
  override name = "ChatdError";
  readonly status: number;
  readonly code: string;
  readonly detail: string | undefined;
  readonly validations: Validation[];

  constructor(status: number, body: ErrorBody) {
    super(body.message);
    this.status = status;
    this.code = body.code;
    this.detail = body.detail;
    this.validations = body.validations ?? [];
  }

  /** From a non-2xx response: its JSON error body, or a description of what came instead. */
  static async fromResponse(res: Response): Promise<ChatdError> {
    const text = await res.text().catch(() => "");
    try {
      const body = JSON.parse(text) as Partial<ErrorBody>;
      if (typeof body.code === "string" && typeof body.message === "string") return new ChatdError(res.status, body as ErrorBody);
    } catch {
      // not JSON: fall through
    }
    return new ChatdError(res.status, { code: "http_error", message: `HTTP ${res.status}`, detail: text.slice(0, 500) || undefined });
  }

  static network(err: unknown): ChatdError {
    return new ChatdError(0, { code: "network_error", message: "The API could not be reached.", detail: String(err) });
  }
}
