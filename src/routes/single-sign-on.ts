/**
 * Single sign-on with an OpenID Connect provider (docs/accounts.md "Single sign-on"), through
 * oauth4webapi: `GET /users/oidc/login` sends the browser to the provider (authorization code with
 * PKCE, a state and a nonce kept in a short-lived HttpOnly cookie); `GET /users/oidc/callback`
 * exchanges the code, checks the ID token, finds or creates the user by verified email
 * (src/accounts/oidc-users.ts), starts a session as the password sign-in does, and sends the
 * browser to the app. Off (404) while OIDC_ISSUER is empty.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import * as oauth from "oauth4webapi";
import { userForOidcIdentity } from "../accounts/oidc-users";
import { startSession } from "../accounts/sessions";
import { type Config, configFromEnv } from "../config/env";
import type { AppEnv } from "../http/app-env";
import { ApiError } from "../http/errors";
import { requestDb } from "../http/request-db";
import { createRouter, errorResponses } from "../http/router";
import { setSessionCookie } from "../http/session-cookie";
import { SingleSignOnStatus } from "./user-schemas";

const FLOW_COOKIE = "chatd_oidc";
const FLOW_PATH = "/api/v2/users/oidc";
/** How long a sign-in at the provider may take. */
const FLOW_SECONDS = 600;

interface Flow {
  verifier: string;
  state: string;
  nonce: string;
}

const statusRoute = createRoute({
  method: "get",
  path: "/oidc",
  summary: "Whether single sign-on is on (the web app shows its button then)",
  security: [],
  responses: { 200: { content: { "application/json": { schema: SingleSignOnStatus } }, description: "On or off" } },
});

const loginRoute = createRoute({
  method: "get",
  path: "/oidc/login",
  summary: "Single sign-on: redirects to the OpenID Connect provider (404 while it is off)",
  security: [],
  responses: { 302: { description: "To the provider" }, ...errorResponses(404, 502) },
});

const callbackRoute = createRoute({
  method: "get",
  path: "/oidc/callback",
  summary: "Single sign-on: the provider's answer; signs in and redirects to the app",
  security: [],
  middleware: [requestDb],
  request: { query: z.object({ code: z.string().optional(), state: z.string().optional(), error: z.string().optional() }) },
  responses: { 302: { description: "Signed in: to the app" }, ...errorResponses(400, 403, 404, 502) },
});

function oidcConfig(c: Context<AppEnv>): Config {
  const config = configFromEnv(c.env);
  if (config.OIDC_ISSUER === "") throw new ApiError(404, "not_found", "Resource not found.", "Single sign-on is not configured.");
  return config;
}

/** Plain http is allowed for an issuer on this machine only (a local provider); anywhere else it is https. */
function requestOptions(config: Config) {
  const local = ["localhost", "127.0.0.1", "[::1]"].includes(new URL(config.OIDC_ISSUER).hostname);
  return local ? { [oauth.allowInsecureRequests]: true } : {};
}

async function authorizationServer(config: Config): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(config.OIDC_ISSUER);
  try {
    const response = await oauth.discoveryRequest(issuer, { algorithm: "oidc", ...requestOptions(config) });
    return await oauth.processDiscoveryResponse(issuer, response);
  } catch (err) {
    throw new ApiError(502, "sso_provider_unavailable", "The single sign-on provider could not be reached.", String(err));
  }
}

const redirectUri = (c: Context<AppEnv>) => new URL(`${FLOW_PATH}/callback`, c.req.url).toString();

export const singleSignOn = createRouter()
  .openapi(statusRoute, (c) => c.json({ enabled: configFromEnv(c.env).OIDC_ISSUER !== "" }, 200))
  .openapi(loginRoute, async (c) => {
    const config = oidcConfig(c);
    const as = await authorizationServer(config);
    if (!as.authorization_endpoint) throw new ApiError(502, "sso_provider_unavailable", "The provider has no authorization endpoint.");
    const flow: Flow = {
      verifier: oauth.generateRandomCodeVerifier(),
      state: oauth.generateRandomState(),
      nonce: oauth.generateRandomNonce(),
    };
    const url = new URL(as.authorization_endpoint);
    url.searchParams.set("client_id", config.OIDC_CLIENT_ID);
    url.searchParams.set("redirect_uri", redirectUri(c));
    url.searchParams.set("response_type", "code");
    url.searchParams.set("scope", "openid email profile");
    url.searchParams.set("state", flow.state);
    url.searchParams.set("nonce", flow.nonce);
    url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(flow.verifier));
    url.searchParams.set("code_challenge_method", "S256");
    // Lax: the provider sends the browser back with a top-level GET, which carries it.
    setCookie(c, FLOW_COOKIE, btoa(JSON.stringify(flow)), {
      httpOnly: true,
      secure: new URL(c.req.url).protocol === "https:",
      sameSite: "Lax",
      path: FLOW_PATH,
      maxAge: FLOW_SECONDS,
    });
    return c.redirect(url.toString(), 302);
  })
  .openapi(callbackRoute, async (c) => {
    const config = oidcConfig(c);
    const flow = flowOf(getCookie(c, FLOW_COOKIE));
    deleteCookie(c, FLOW_COOKIE, { path: FLOW_PATH });
    if (!flow) throw new ApiError(400, "sso_failed", "Single sign-on failed.", "The sign-in was not started here, or took too long.");
    const as = await authorizationServer(config);
    const client: oauth.Client = { client_id: config.OIDC_CLIENT_ID };
    const options = requestOptions(config);
    let claims: oauth.IDToken;
    try {
      const params = oauth.validateAuthResponse(as, client, new URL(c.req.url), flow.state);
      const response = await oauth.authorizationCodeGrantRequest(
        as,
        client,
        oauth.ClientSecretBasic(config.OIDC_CLIENT_SECRET),
        params,
        redirectUri(c),
        flow.verifier,
        options,
      );
      const result = await oauth.processAuthorizationCodeResponse(as, client, response, {
        expectedNonce: flow.nonce,
        requireIdToken: true,
      });
      const idToken = oauth.getValidatedIdTokenClaims(result);
      if (!idToken) throw new Error("the provider sent no ID token");
      claims = idToken;
    } catch (err) {
      throw new ApiError(400, "sso_failed", "Single sign-on failed.", err instanceof Error ? err.message : String(err));
    }
    const user = await userForOidcIdentity(
      c.var.db,
      {
        email: typeof claims.email === "string" ? claims.email : undefined,
        emailVerified: typeof claims.email_verified === "boolean" ? claims.email_verified : undefined,
        preferredUsername: typeof claims.preferred_username === "string" ? claims.preferred_username : undefined,
      },
      { allowedDomains: config.OIDC_ALLOWED_DOMAINS, organization: config.OIDC_ORGANIZATION },
    );
    const session = await startSession(c.var.db, user, new Date(), config);
    setSessionCookie(c, session.token, config.CHAT_SESSION_MAX_SECONDS);
    return c.redirect("/", 302);
  });

function flowOf(cookie: string | undefined): Flow | undefined {
  if (!cookie) return undefined;
  try {
    const flow = JSON.parse(atob(cookie)) as Partial<Flow>;
    if (typeof flow.verifier === "string" && typeof flow.state === "string" && typeof flow.nonce === "string") return flow as Flow;
  } catch {
    // not ours
  }
  return undefined;
}
