/**
 * Every operation of the API, as data: method, path (relative to `/api/v2`, with `{param}`
 * segments as in the OpenAPI document), and the names of its schemas (./schemas.ts). The client
 * turns each entry into a typed method, so a new route is one entry here.
 * test/client/openapi-agreement.test.ts fails when this table and the document disagree.
 */
import type { ComponentName, QueryName } from "./schemas";

export interface Operation {
  method: "get" | "post" | "put" | "patch" | "delete";
  path: string;
  /** A JSON body with this schema, or raw bytes (`"binary"`). */
  body?: ComponentName | "binary";
  query?: QueryName;
  /** A JSON answer with this schema, an array of it (`"X[]"`), raw bytes, or no body (204). */
  response: ComponentName | `${ComponentName}[]` | "binary" | null;
  /** The success status, when it is not 200. */
  status?: 201 | 202 | 204;
}

const op = <const O extends Operation>(o: O): O => o;

export const operations = {
  health: op({ method: "get", path: "/health", response: "Health" }),

  // users and tokens
  createFirstUser: op({
    method: "post",
    path: "/users/first",
    body: "CreateFirstUserRequest",
    response: "CreateFirstUserResponse",
    status: 201,
  }),
  createUser: op({ method: "post", path: "/users", body: "CreateUserRequest", response: "User", status: 201 }),
  me: op({ method: "get", path: "/users/me", response: "User" }),
  createToken: op({
    method: "post",
    path: "/users/{user}/keys/tokens",
    body: "CreateTokenRequest",
    response: "CreateTokenResponse",
    status: 201,
  }),
  listTokens: op({ method: "get", path: "/users/{user}/keys/tokens", response: "ApiKey[]" }),
  deleteToken: op({ method: "delete", path: "/users/{user}/keys/{key}", response: null, status: 204 }),
  login: op({ method: "post", path: "/users/login", body: "LoginRequest", response: "LoginResponse", status: 201 }),
  logout: op({ method: "post", path: "/users/logout", response: "LogoutResponse" }),
  singleSignOnStatus: op({ method: "get", path: "/users/oidc", response: "SingleSignOnStatus" }),
  updateUser: op({ method: "patch", path: "/users/{user}", body: "UpdateUserRequest", response: "User" }),
  deleteUser: op({ method: "delete", path: "/users/{user}", response: "DeleteUserResponse" }),

  // organizations and members
  createOrganization: op({
    method: "post",
    path: "/organizations",
    body: "CreateOrganizationRequest",
    response: "Organization",
    status: 201,
  }),
  listOrganizations: op({ method: "get", path: "/organizations", response: "Organization[]" }),
  listMembers: op({ method: "get", path: "/organizations/{organization}/members", response: "OrganizationMember[]" }),
  addMember: op({
    method: "post",
    path: "/organizations/{organization}/members",
    body: "AddOrganizationMemberRequest",
    response: "OrganizationMember",
    status: 201,
  }),
  updateMember: op({
    method: "patch",
    path: "/organizations/{organization}/members/{user}",
    body: "UpdateOrganizationMemberRequest",
    response: "OrganizationMember",
  }),
  removeMember: op({ method: "delete", path: "/organizations/{organization}/members/{user}", response: null, status: 204 }),

  // providers (site owner)
  createProvider: op({
    method: "post",
    path: "/chats/providers",
    body: "CreateChatProviderRequest",
    response: "ChatProvider",
    status: 201,
  }),
  listProviders: op({ method: "get", path: "/chats/providers", response: "ChatProvider[]" }),
  getProvider: op({ method: "get", path: "/chats/providers/{id}", response: "ChatProvider" }),
  updateProvider: op({ method: "patch", path: "/chats/providers/{id}", body: "UpdateChatProviderRequest", response: "ChatProvider" }),
  deleteProvider: op({ method: "delete", path: "/chats/providers/{id}", response: null, status: 204 }),

  // files
  uploadFile: op({ method: "post", path: "/chats/files", query: "UploadFileQuery", body: "binary", response: "UploadedFile", status: 201 }),
  downloadFile: op({ method: "get", path: "/chats/files/{file}", response: "binary" }),

  // chats
  createChat: op({ method: "post", path: "/chats", body: "CreateChatRequest", response: "Chat", status: 201 }),
  listChats: op({ method: "get", path: "/chats", query: "ListChatsQuery", response: "Chat[]" }),
  getChat: op({ method: "get", path: "/chats/{chat}", response: "Chat" }),
  updateChat: op({ method: "patch", path: "/chats/{chat}", body: "UpdateChatRequest", response: null, status: 204 }),

  // messages and queue
  listMessages: op({ method: "get", path: "/chats/{chat}/messages", query: "ListMessagesQuery", response: "ChatMessages" }),
  listPrompts: op({ method: "get", path: "/chats/{chat}/prompts", query: "ChatPromptsQuery", response: "ChatPrompts" }),
  sendMessage: op({ method: "post", path: "/chats/{chat}/messages", body: "SendMessageRequest", response: "SendMessageResponse" }),
  editMessage: op({
    method: "patch",
    path: "/chats/{chat}/messages/{message}",
    body: "EditMessageRequest",
    response: "EditMessageResponse",
  }),
  deleteQueuedMessage: op({ method: "delete", path: "/chats/{chat}/queue/{queued}", response: null, status: 204 }),
  promoteQueuedMessage: op({ method: "post", path: "/chats/{chat}/queue/{queued}/promote", response: "PromoteQueuedMessageResponse" }),

  // one-transition actions
  interrupt: op({ method: "post", path: "/chats/{chat}/interrupt", response: "Chat" }),
  submitToolResults: op({
    method: "post",
    path: "/chats/{chat}/tool-results",
    body: "SubmitToolResultsRequest",
    response: null,
    status: 204,
  }),
  compact: op({ method: "post", path: "/chats/{chat}/compact", response: "Chat" }),
  clear: op({ method: "post", path: "/chats/{chat}/clear", response: "Chat" }),
  reconcileInvalid: op({ method: "post", path: "/chats/{chat}/reconcile-invalid", response: "Chat" }),

  // the turn timeline (docs/observability.md)
  listTurns: op({ method: "get", path: "/chats/{chat}/turns", query: "ChatTurnsQuery", response: "ChatTurn[]" }),

  // usage and cost (docs/usage-cost.md)
  getChatCost: op({ method: "get", path: "/chats/{chat}/cost", query: "ChatCostQuery", response: "ChatCost" }),
  getUserCostSummary: op({ method: "get", path: "/chats/cost/{user}/summary", query: "UserCostQuery", response: "ChatCostSummary" }),
  getOrganizationCostSummary: op({
    method: "get",
    path: "/organizations/{organization}/chats/cost/summary",
    query: "OrganizationCostQuery",
    response: "OrganizationChatCostSummary",
  }),

  // models and model configs (organization-scoped)
  listModels: op({ method: "get", path: "/organizations/{organization}/chats/models", response: "ChatModelsResponse" }),
  createModelConfig: op({
    method: "post",
    path: "/organizations/{organization}/chats/model-configs",
    body: "CreateChatModelConfigRequest",
    response: "ChatModelConfig",
    status: 201,
  }),
  listModelConfigs: op({ method: "get", path: "/organizations/{organization}/chats/model-configs", response: "ChatModelConfig[]" }),
  getModelConfig: op({ method: "get", path: "/organizations/{organization}/chats/model-configs/{id}", response: "ChatModelConfig" }),
  updateModelConfig: op({
    method: "patch",
    path: "/organizations/{organization}/chats/model-configs/{id}",
    body: "UpdateChatModelConfigRequest",
    response: "ChatModelConfig",
  }),
  deleteModelConfig: op({ method: "delete", path: "/organizations/{organization}/chats/model-configs/{id}", response: null, status: 204 }),

  // projects and their memory (organization-scoped)
  createProject: op({
    method: "post",
    path: "/organizations/{organization}/projects",
    body: "CreateProjectRequest",
    response: "Project",
    status: 201,
  }),
  listProjects: op({ method: "get", path: "/organizations/{organization}/projects", response: "Project[]" }),
  getProject: op({ method: "get", path: "/organizations/{organization}/projects/{project}", response: "Project" }),
  updateProject: op({
    method: "patch",
    path: "/organizations/{organization}/projects/{project}",
    body: "UpdateProjectRequest",
    response: "Project",
  }),
  deleteProject: op({ method: "delete", path: "/organizations/{organization}/projects/{project}", response: null, status: 204 }),
  listProjectMemories: op({
    method: "get",
    path: "/organizations/{organization}/projects/{project}/memories",
    response: "ProjectMemory[]",
  }),
  getProjectMemory: op({
    method: "get",
    path: "/organizations/{organization}/projects/{project}/memories/{name}",
    response: "ProjectMemory",
  }),
  deleteProjectMemory: op({
    method: "delete",
    path: "/organizations/{organization}/projects/{project}/memories/{name}",
    response: null,
    status: 204,
  }),

  // MCP servers (organization-scoped; secrets never come back)
  createMcpServer: op({
    method: "post",
    path: "/organizations/{organization}/mcp-servers",
    body: "CreateMcpServerRequest",
    response: "McpServer",
    status: 201,
  }),
  listMcpServers: op({ method: "get", path: "/organizations/{organization}/mcp-servers", response: "McpServer[]" }),
  getMcpServer: op({ method: "get", path: "/organizations/{organization}/mcp-servers/{id}", response: "McpServer" }),
  updateMcpServer: op({
    method: "patch",
    path: "/organizations/{organization}/mcp-servers/{id}",
    body: "UpdateMcpServerRequest",
    response: "McpServer",
  }),
  deleteMcpServer: op({ method: "delete", path: "/organizations/{organization}/mcp-servers/{id}", response: null, status: 204 }),
  // the organization's chat settings (MCP tool search)
  getOrganizationChatSettings: op({
    method: "get",
    path: "/organizations/{organization}/chats/settings",
    response: "OrganizationChatSettings",
  }),
  updateOrganizationChatSettings: op({
    method: "put",
    path: "/organizations/{organization}/chats/settings",
    body: "UpdateOrganizationChatSettingsRequest",
    response: "OrganizationChatSettings",
  }),

  // compaction settings: the caller's threshold, the organization's compaction model
  getChatPreferences: op({ method: "get", path: "/users/me/chat-preferences", response: "ChatPreferences" }),
  updateChatPreferences: op({
    method: "put",
    path: "/users/me/chat-preferences",
    body: "UpdateChatPreferencesRequest",
    response: "ChatPreferences",
  }),
  getModelOverride: op({
    method: "get",
    path: "/organizations/{organization}/chats/model-overrides/{context}",
    response: "ChatModelOverride",
  }),
  putModelOverride: op({
    method: "put",
    path: "/organizations/{organization}/chats/model-overrides/{context}",
    body: "PutChatModelOverrideRequest",
    response: "ChatModelOverride",
  }),
  deleteModelOverride: op({
    method: "delete",
    path: "/organizations/{organization}/chats/model-overrides/{context}",
    response: null,
    status: 204,
  }),

  // subagents: the caller's personal model override per organization and subagent type
  getUserModelOverride: op({
    method: "get",
    path: "/users/me/chats/model-overrides/{context}",
    query: "UserModelOverrideQuery",
    response: "ChatUserModelOverride",
  }),
  putUserModelOverride: op({
    method: "put",
    path: "/users/me/chats/model-overrides/{context}",
    query: "UserModelOverrideQuery",
    body: "PutChatUserModelOverrideRequest",
    response: "ChatUserModelOverride",
  }),
  deleteUserModelOverride: op({
    method: "delete",
    path: "/users/me/chats/model-overrides/{context}",
    query: "UserModelOverrideQuery",
    response: null,
    status: 204,
  }),
} satisfies Record<string, Operation>;

export type Operations = typeof operations;
export type OperationName = keyof Operations;
