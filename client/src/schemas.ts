/**
 * The API's schemas by the name they carry in the OpenAPI document (`components.schemas`), as
 * types only: the SDK's request and response types are `z.input` / `z.output` of the very zod
 * schemas the Worker validates with, and none of their code ends up in a bundle.
 *
 * A new schema: one line here. test/client/openapi-agreement.test.ts fails if a name here is not
 * the name the schema carries, or if an operation of the document uses a schema not listed.
 */
import type { z } from "zod";
import type * as chat from "../../src/routes/chat-schemas";
import type * as turns from "../../src/routes/chat-turn-schemas";
import type * as cost from "../../src/routes/cost-schemas";
import type * as files from "../../src/routes/file-schemas";
import type * as mcp from "../../src/routes/mcp-server-schemas";
import type * as health from "../../src/routes/health-schemas";
import type * as configs from "../../src/routes/model-config-schemas";
import type * as projects from "../../src/routes/project-schemas";
import type * as preferences from "../../src/routes/chat-preferences-schemas";
import type * as orgChatSettings from "../../src/routes/organization-chat-settings-schemas";
import type * as overrides from "../../src/routes/model-override-schemas";
import type * as providers from "../../src/routes/provider-schemas";
import type * as personal from "../../src/routes/user-model-override-schemas";
import type * as users from "../../src/routes/user-schemas";
import type * as organizations from "../../src/routes/organization-schemas";
import type { ErrorSchema } from "../../src/http/error-schema";

export interface Components {
  Error: typeof ErrorSchema;
  Health: typeof health.HealthSchema;
  // chats
  Chat: typeof chat.ChatSchema;
  ChildChat: typeof chat.ChildChatSchema;
  ChatMessage: typeof chat.ChatMessageSchema;
  ChatMessagePart: typeof chat.ChatMessagePartSchema;
  ChatInputPart: typeof chat.ChatInputPartSchema;
  ChatQueuedMessage: typeof chat.ChatQueuedMessageSchema;
  ChatMessages: typeof chat.MessagesResponse;
  ChatPrompts: typeof chat.ChatPromptsResponse;
  ChatTurn: typeof turns.ChatTurnSchema;
  ChatMessageUsage: typeof chat.ChatMessageUsageSchema;
  ChatCost: typeof cost.ChatCostSchema;
  ChatCostSummary: typeof cost.UserCostSummarySchema;
  OrganizationChatCostSummary: typeof cost.OrganizationCostSummarySchema;
  CreateChatRequest: typeof chat.CreateChatBody;
  UpdateChatRequest: typeof chat.UpdateChatBody;
  SendMessageRequest: typeof chat.SendMessageBody;
  SendMessageResponse: typeof chat.SendMessageResponse;
  EditMessageRequest: typeof chat.EditMessageBody;
  EditMessageResponse: typeof chat.EditMessageResponse;
  PromoteQueuedMessageResponse: typeof chat.PromoteResponse;
  SubmitToolResultsRequest: typeof chat.ToolResultsBody;
  // files
  UploadedFile: typeof files.UploadedFileSchema;
  // models, model configs, providers
  ChatModelsResponse: typeof configs.ModelsSchema;
  ChatModelProvider: typeof configs.ProviderDescriptorSchema;
  ChatModel: typeof configs.ChatModelSchema;
  ChatUnsupportedProvider: typeof configs.UnsupportedProviderSchema;
  ChatModelConfig: typeof configs.ModelConfigSchema;
  ChatModelConfigOptions: typeof configs.ModelConfigOptionsSchema;
  ChatModelPricing: typeof configs.ModelPricingSchema;
  CreateChatModelConfigRequest: typeof configs.CreateModelConfigBody;
  UpdateChatModelConfigRequest: typeof configs.UpdateModelConfigBody;
  ChatProvider: typeof providers.ProviderSchema;
  CreateChatProviderRequest: typeof providers.CreateProviderBody;
  UpdateChatProviderRequest: typeof providers.UpdateProviderBody;
  // projects and their memory
  Project: typeof projects.ProjectSchema;
  ProjectMemory: typeof projects.ProjectMemorySchema;
  CreateProjectRequest: typeof projects.CreateProjectBody;
  UpdateProjectRequest: typeof projects.UpdateProjectBody;
  // MCP servers
  McpServer: typeof mcp.McpServerSchema;
  CreateMcpServerRequest: typeof mcp.CreateMcpServerBody;
  UpdateMcpServerRequest: typeof mcp.UpdateMcpServerBody;
  OrganizationChatSettings: typeof orgChatSettings.OrganizationChatSettingsSchema;
  UpdateOrganizationChatSettingsRequest: typeof orgChatSettings.UpdateOrganizationChatSettingsBody;
  // compaction settings
  ChatPreferences: typeof preferences.ChatPreferencesSchema;
  UpdateChatPreferencesRequest: typeof preferences.UpdateChatPreferencesBody;
  ChatModelOverride: typeof overrides.ModelOverrideSchema;
  PutChatModelOverrideRequest: typeof overrides.PutModelOverrideBody;
  ChatUserModelOverride: typeof personal.UserModelOverrideSchema;
  PutChatUserModelOverrideRequest: typeof personal.PutUserModelOverrideBody;
  // users
  User: typeof users.UserSchema;
  Organization: typeof users.OrganizationSchema;
  CreateFirstUserRequest: typeof users.FirstUserBody;
  CreateFirstUserResponse: typeof users.CreateFirstUserResponse;
  CreateUserRequest: typeof users.CreateUserBody;
  CreateTokenRequest: typeof users.CreateTokenBody;
  CreateTokenResponse: typeof users.CreateTokenResponse;
  ApiKey: typeof users.ApiKeySchema;
  LoginRequest: typeof users.LoginBody;
  LoginResponse: typeof users.LoginResponse;
  LogoutResponse: typeof users.LogoutResponse;
  SingleSignOnStatus: typeof users.SingleSignOnStatus;
  UpdateUserRequest: typeof users.UpdateUserBody;
  DeleteUserResponse: typeof users.DeleteUserResponse;
  // organizations
  CreateOrganizationRequest: typeof organizations.CreateOrganizationBody;
  OrganizationMember: typeof organizations.OrganizationMemberSchema;
  AddOrganizationMemberRequest: typeof organizations.AddMemberBody;
  UpdateOrganizationMemberRequest: typeof organizations.UpdateMemberBody;
}

/** Query strings are not components in the document; they are listed by their own names. */
export interface Queries {
  ListChatsQuery: typeof chat.ListChatsQuery;
  ListMessagesQuery: typeof chat.ListMessagesQuery;
  ChatPromptsQuery: typeof chat.ChatPromptsQuery;
  ChatTurnsQuery: typeof turns.ChatTurnsQuery;
  ChatCostQuery: typeof cost.ChatCostQuery;
  UserCostQuery: typeof cost.UserCostQuery;
  OrganizationCostQuery: typeof cost.OrganizationCostQuery;
  UploadFileQuery: typeof files.UploadFileQuery;
  UserModelOverrideQuery: typeof personal.UserModelOverrideQuery;
}

export type ComponentName = keyof Components;
export type QueryName = keyof Queries;
/** What a caller sends: defaults may be left out. */
export type Input<N extends ComponentName> = z.input<Components[N]>;
/** What the API answers. */
export type Output<N extends ComponentName> = z.output<Components[N]>;

export type Chat = Output<"Chat">;
export type ChatMessage = Output<"ChatMessage">;
export type ChatMessagePart = Output<"ChatMessagePart">;
export type ChatInputPart = Input<"ChatInputPart">;
export type ChatQueuedMessage = Output<"ChatQueuedMessage">;
export type ChatStatus = Chat["status"];
export type ModelConfig = Output<"ChatModelConfig">;
export type ChatCost = Output<"ChatCost">;
export type ChatCostSummary = Output<"ChatCostSummary">;
export type User = Output<"User">;
export type ApiKey = Output<"ApiKey">;
export type OrganizationMember = Output<"OrganizationMember">;
