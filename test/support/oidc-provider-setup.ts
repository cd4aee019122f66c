/**
 * globalSetup of the `worker` project: a real OpenID Connect provider (oidc-provider) on this
 * machine, the issuer of the project's single sign-on (test/worker/single-sign-on.test.ts). Its
 * login and consent interactions finish at once for the identity a test set last with
 * `POST /test/identity` `{email, email_verified}`: the test plays the person at the provider.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";
import type { TestProject } from "vitest/node";

export const OIDC_CLIENT_ID = "chatd-test";
export const OIDC_CLIENT_SECRET = "chatd-test-client-secret";
/** The worker project's callback, as SELF.fetch addresses it. */
const REDIRECT_URI = "http://chatd.test/api/v2/users/oidc/callback";

interface Identity {
  email: string;
  email_verified: boolean;
}

async function body(req: IncomingMessage): Promise<string> {
  let text = "";
  for await (const chunk of req) text += String(chunk);
  return text;
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const identities = new Map<string, Identity>();
  let next: string | undefined;
  let handler: ((req: IncomingMessage, res: import("node:http").ServerResponse) => void) | undefined;
  const server = createServer((req, res) => handler?.(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: OIDC_CLIENT_ID,
        client_secret: OIDC_CLIENT_SECRET,
        redirect_uris: [REDIRECT_URI],
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    pkce: { required: () => true },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["preferred_username"] },
    conformIdTokenClaims: false,
    findAccount: async (_ctx: unknown, sub: string) => ({ accountId: sub, claims: async () => ({ sub, ...identities.get(sub) }) }),
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    features: { devInteractions: { enabled: false } },
    cookies: { keys: ["chatd-test-cookie-key"] },
  });
  const callback = provider.callback();
  handler = async (req, res) => {
    try {
      if (req.method === "POST" && req.url === "/test/identity") {
        const identity = JSON.parse(await body(req)) as Identity;
        next = identity.email;
        identities.set(identity.email, identity);
        res.writeHead(204).end();
        return;
      }
      if (req.url?.startsWith("/interaction/")) {
        const details = await provider.interactionDetails(req, res);
        if (details.prompt.name === "login") {
          await provider.interactionFinished(req, res, { login: { accountId: next ?? "nobody" } }, { mergeWithLastSubmission: false });
          return;
        }
        const grant = new provider.Grant({ accountId: details.session?.accountId ?? "", clientId: OIDC_CLIENT_ID });
        grant.addOIDCScope("openid email profile");
        await provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
        return;
      }
      callback(req, res);
    } catch (err) {
      res.writeHead(500).end(String(err));
    }
  };
  project.provide("oidcIssuerUrl", issuer);
  return () => new Promise<void>((resolve) => server.close(() => resolve()));
}
