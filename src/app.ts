/**
 * The Hono app: middleware, one router per resource, one error handler, and the OpenAPI
 * document generated from the routes' own zod schemas.
 */
import { createRouter } from "./http/router";
import { notFound, onError } from "./http/errors";
import { requestLog } from "./http/request-log";
import { chatActions } from "./routes/chat-actions";
import { chatTurns } from "./routes/chat-turns";
import { chatPreferences } from "./routes/chat-preferences";
import { chatMessages } from "./routes/chat-messages";
import { chatQueue } from "./routes/chat-queue";
import { chatStream } from "./routes/chat-stream";
import { chatWatch } from "./routes/chat-watch";
import { chats } from "./routes/chats";
import { chatCost } from "./routes/chat-cost";
import { userCost } from "./routes/user-cost";
import { organizationCost } from "./routes/organization-cost";
import { files } from "./routes/files";
import { mcpServerRoutes } from "./routes/mcp-servers";
import { organizationChatSettings } from "./routes/organization-chat-settings";
import { health } from "./routes/health";
import { modelConfigs } from "./routes/model-configs";
import { modelOverrides } from "./routes/model-overrides";
import { models } from "./routes/models";
import { organizationRoutes } from "./routes/organizations";
import { sessions } from "./routes/sessions";
import { apiKeyRoutes } from "./routes/api-keys";
import { singleSignOn } from "./routes/single-sign-on";
import { projects } from "./routes/projects";
import { providers } from "./routes/providers";
import { userModelOverrides } from "./routes/user-model-overrides";
import { users } from "./routes/users";
import { openapiDocs } from "./routes/openapi";

export const app = createRouter().basePath("/api/v2");

app.use("*", requestLog);

app.route("/health", health);
app.route("/users", users);
app.route("/users", sessions);
app.route("/users", apiKeyRoutes);
app.route("/users", singleSignOn);
app.route("/users", chatPreferences);
app.route("/users", userModelOverrides);
// Before any `/chats/{chat}` router: the static segment must not be taken for a chat ID.
app.route("/chats/providers", providers);
app.route("/chats/files", files);
app.route("/chats/cost", userCost);
app.route("/chats", chatWatch);
app.route("/chats", chatStream);
app.route("/chats", chats);
app.route("/chats", chatMessages);
app.route("/chats", chatQueue);
app.route("/chats", chatActions);
app.route("/chats", chatTurns);
app.route("/chats", chatCost);
app.route("/organizations", organizationRoutes);
app.route("/organizations", modelConfigs);
app.route("/organizations", models);
app.route("/organizations", modelOverrides);
app.route("/organizations", projects);
app.route("/organizations", mcpServerRoutes);
app.route("/organizations", organizationCost);
app.route("/organizations", organizationChatSettings);

openapiDocs(app);
app.notFound(notFound);
app.onError(onError);
