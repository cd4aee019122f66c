/**
 * The SDK and the OpenAPI document come from the same zod schemas and must agree: every
 * operation of the served document is an SDK method with the same method, path, query
 * parameters, request and response schemas and success status (and no SDK method is missing
 * from the document); every schema the SDK types name is, generated again from the zod schema
 * the SDK's type comes from, the document's schema of that name.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import { describe, expect, inject, it } from "vitest";
import type { z } from "zod";
import { type Operation, operations } from "../../client/src/operations";
import type { Components, Queries } from "../../client/src/schemas";
import { ErrorSchema } from "../../src/http/error-schema";
import * as chat from "../../src/routes/chat-schemas";
import * as turns from "../../src/routes/chat-turn-schemas";
import * as cost from "../../src/routes/cost-schemas";
import * as files from "../../src/routes/file-schemas";
import * as health from "../../src/routes/health-schemas";
import * as mcp from "../../src/routes/mcp-server-schemas";
import * as configs from "../../src/routes/model-config-schemas";
import * as projects from "../../src/routes/project-schemas";
import * as preferences from "../../src/routes/chat-preferences-schemas";
import * as orgChatSettings from "../../src/routes/organization-chat-settings-schemas";
import * as overrides from "../../src/routes/model-override-schemas";
import * as providers from "../../src/routes/provider-schemas";
import * as personal from "../../src/routes/user-model-override-schemas";
import * as users from "../../src/routes/user-schemas";
import * as organizations from "../../src/routes/organization-schemas";

// `satisfies` ties each runtime schema here to the SDK's type of the same name: naming another
// schema in client/src/schemas.ts fails the typecheck, naming another here fails the test below.
const components = {
  Error: ErrorSchema,
  Health: health.HealthSchema,
  Chat: chat.ChatSchema,
  ChildChat: chat.ChildChatSchema,
  ChatMessage: chat.ChatMessageSchema,
  ChatMessagePart: chat.ChatMessagePartSchema,
  ChatInputPart: chat.ChatInputPartSchema,
  ChatQueuedMessage: chat.ChatQueuedMessageSchema,
  ChatMessages: chat.MessagesResponse,
  ChatPrompts: chat.ChatPromptsResponse,
  ChatTurn: turns.ChatTurnSchema,
  ChatMessageUsage: chat.ChatMessageUsageSchema,
  ChatCost: cost.ChatCostSchema,
  ChatCostSummary: cost.UserCostSummarySchema,
  OrganizationChatCostSummary: cost.OrganizationCostSummarySchema,
  CreateChatRequest: chat.CreateChatBody,
  UpdateChatRequest: chat.UpdateChatBody,
  SendMessageRequest: chat.SendMessageBody,
  SendMessageResponse: chat.SendMessageResponse,
  EditMessageRequest: chat.EditMessageBody,
  EditMessageResponse: chat.EditMessageResponse,
  PromoteQueuedMessageResponse: chat.PromoteResponse,
  SubmitToolResultsRequest: chat.ToolResultsBody,
  UploadedFile: files.UploadedFileSchema,
  ChatModelsResponse: configs.ModelsSchema,
  ChatModelProvider: configs.ProviderDescriptorSchema,
  ChatModel: configs.ChatModelSchema,
  ChatUnsupportedProvider: configs.UnsupportedProviderSchema,
  ChatModelConfig: configs.ModelConfigSchema,
  ChatModelConfigOptions: configs.ModelConfigOptionsSchema,
  ChatModelPricing: configs.ModelPricingSchema,
  CreateChatModelConfigRequest: configs.CreateModelConfigBody,
  UpdateChatModelConfigRequest: configs.UpdateModelConfigBody,
  ChatProvider: providers.ProviderSchema,
  CreateChatProviderRequest: providers.CreateProviderBody,
  UpdateChatProviderRequest: providers.UpdateProviderBody,
  Project: projects.ProjectSchema,
  ProjectMemory: projects.ProjectMemorySchema,
  CreateProjectRequest: projects.CreateProjectBody,
  UpdateProjectRequest: projects.UpdateProjectBody,
  McpServer: mcp.McpServerSchema,
  CreateMcpServerRequest: mcp.CreateMcpServerBody,
  UpdateMcpServerRequest: mcp.UpdateMcpServerBody,
  OrganizationChatSettings: orgChatSettings.OrganizationChatSettingsSchema,
  UpdateOrganizationChatSettingsRequest: orgChatSettings.UpdateOrganizationChatSettingsBody,
  ChatPreferences: preferences.ChatPreferencesSchema,
  UpdateChatPreferencesRequest: preferences.UpdateChatPreferencesBody,
  ChatModelOverride: overrides.ModelOverrideSchema,
  PutChatModelOverrideRequest: overrides.PutModelOverrideBody,
  ChatUserModelOverride: personal.UserModelOverrideSchema,
  PutChatUserModelOverrideRequest: personal.PutUserModelOverrideBody,
  User: users.UserSchema,
  Organization: users.OrganizationSchema,
  CreateFirstUserRequest: users.FirstUserBody,
  CreateFirstUserResponse: users.CreateFirstUserResponse,
  CreateUserRequest: users.CreateUserBody,
  CreateTokenRequest: users.CreateTokenBody,
  CreateTokenResponse: users.CreateTokenResponse,
  ApiKey: users.ApiKeySchema,
  LoginRequest: users.LoginBody,
  LoginResponse: users.LoginResponse,
  LogoutResponse: users.LogoutResponse,
  SingleSignOnStatus: users.SingleSignOnStatus,
  UpdateUserRequest: users.UpdateUserBody,
  DeleteUserResponse: users.DeleteUserResponse,
  CreateOrganizationRequest: organizations.CreateOrganizationBody,
  OrganizationMember: organizations.OrganizationMemberSchema,
  AddOrganizationMemberRequest: organizations.AddMemberBody,
  UpdateOrganizationMemberRequest: organizations.UpdateMemberBody,
} satisfies { [K in keyof Components]: Components[K] };

const queries = {
  ListChatsQuery: chat.ListChatsQuery,
  ListMessagesQuery: chat.ListMessagesQuery,
  ChatPromptsQuery: chat.ChatPromptsQuery,
  ChatTurnsQuery: turns.ChatTurnsQuery,
  ChatCostQuery: cost.ChatCostQuery,
  UserCostQuery: cost.UserCostQuery,
  OrganizationCostQuery: cost.OrganizationCostQuery,
  UploadFileQuery: files.UploadFileQuery,
  UserModelOverrideQuery: personal.UserModelOverrideQuery,
} satisfies {
  [K in keyof Queries]: Queries[K];
};

interface DocOperation {
  parameters?: { in: string; name: string }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
}
type Schema = { $ref?: string; type?: string; items?: Schema };
interface Doc {
  paths: Record<string, Record<string, DocOperation>>;
  components: { schemas: Record<string, unknown> };
}

const refName = (s: Schema | undefined): string | undefined => s?.$ref?.replace("#/components/schemas/", "");

/**
 * The document's operation in the SDK table's terms; null for a browser navigation (its only
 * success is a redirect: single sign-on), which no SDK method stands for.
 */
function asSdkOperation(method: string, path: string, op: DocOperation): (Operation & { queryParams: string[] }) | null {
  const success = Object.keys(op.responses).find((s) => s.startsWith("2"));
  if (success === undefined) return null;
  const content = op.responses[success]!.content;
  const json = content?.["application/json"]?.schema;
  const response = json === undefined ? null : json.type === "array" ? `${refName(json.items)}[]` : (refName(json) ?? "(inline schema)");
  const body = op.requestBody?.content;
  return {
    method: method as Operation["method"],
    path,
    ...(body === undefined
      ? {}
      : {
          body: (body["application/octet-stream"]
            ? "binary"
            : (refName(body["application/json"]?.schema) ?? "(inline schema)")) as Operation["body"],
        }),
    response: response as Operation["response"],
    ...(success === "200" ? {} : { status: Number(success) as Operation["status"] }),
    queryParams: (op.parameters ?? [])
      .filter((p) => p.in === "query")
      .map((p) => p.name)
      .sort(),
  };
}

describe("the SDK and the OpenAPI document", async () => {
  const doc = (await (await fetch(`${inject("clientBaseUrl")}/api/v2/openapi.json`)).json()) as Doc;
  const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).flatMap(([method, op]) => asSdkOperation(method, path.replace(/^\/api\/v2/, ""), op) ?? []),
  );

  it("has one SDK method per operation of the document, and no other", () => {
    const key = (o: { method: string; path: string }) => `${o.method.toUpperCase()} ${o.path}`;
    expect(Object.values(operations).map(key).sort()).toEqual(documented.map(key).sort());
  });

  it.each(Object.entries(operations))("%s: same body, query, response and status as the document", (_name, sdkOp) => {
    const docOp = documented.find((o) => o.method === sdkOp.method && o.path === sdkOp.path);
    expect(docOp).toBeDefined();
    const { queryParams, ...shape } = docOp!;
    // The document does not describe a download's bytes; the query is compared by its parameters.
    const { query: queryName, ...rest } = sdkOp as Operation;
    expect({ ...rest, response: rest.response === "binary" ? null : rest.response }).toEqual(shape);
    const query = queryName ? Object.keys((queries[queryName] as z.ZodObject).shape).sort() : [];
    expect(query).toEqual(queryParams);
  });

  it("names every schema the document's operations use, and each is the zod schema the SDK's type comes from", () => {
    const generator = new OpenAPIHono();
    for (const [name, schema] of Object.entries(components)) generator.openAPIRegistry.register(name, schema);
    const generated = generator.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "sdk", version: "0" } }).components?.schemas ?? {};
    for (const name of Object.keys(components))
      expect({ name, schema: generated[name] }).toEqual({ name, schema: doc.components.schemas[name] });
    const used = documented
      .flatMap((o) => [o.body, o.response])
      .flatMap((n) => (typeof n === "string" && n !== "binary" ? [n as string] : []));
    for (const name of used) expect(Object.keys(components)).toContain(name.replace(/\[\]$/, ""));
  });
});
