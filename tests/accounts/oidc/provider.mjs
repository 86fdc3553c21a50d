// A real OpenID Connect provider for the Accounts tests: oidc-provider on a free loopback port,
// with one confidential client (client_secret_basic) whose redirect URI the test names. Its one
// interaction signs in whoever the authorization request names in `login_hint` and grants what
// was asked, so a test follows the redirects as a browser would, without a form.
//
// node provider.mjs '{"client_id": "...", "client_secret": "...", "redirect_uri": "..."}'
// prints {"issuer": "http://127.0.0.1:<port>"} once it listens; SIGTERM stops it.
import http from "node:http";
import Provider from "oidc-provider";

const client = JSON.parse(process.argv[2]);
const server = http.createServer();

server.listen(0, "127.0.0.1", () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: client.client_id,
        client_secret: client.client_secret,
        redirect_uris: [client.redirect_uri],
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    claims: { openid: ["sub"], email: ["email", "email_verified"] },
    conformIdTokenClaims: false,
    cookies: { keys: ["maumau tests only"] },
    features: { devInteractions: { enabled: false } },
    async findAccount(ctx, id) {
      return {
        accountId: id,
        async claims() {
          return { sub: id, email: `${id}@example.test`, email_verified: true };
        },
      };
    },
  });
  provider.use(async (ctx, next) => {
    if (!ctx.path.startsWith("/interaction/")) {
      return next();
    }
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    if (details.prompt.name === "login") {
      const accountId = details.params.login_hint || "somebody";
      await provider.interactionFinished(ctx.req, ctx.res, { login: { accountId } });
      return undefined;
    }
    const grant = new provider.Grant({
      accountId: details.session.accountId,
      clientId: details.params.client_id,
    });
    grant.addOIDCScope(details.params.scope);
    const grantId = await grant.save();
    await provider.interactionFinished(
      ctx.req,
      ctx.res,
      { consent: { grantId } },
      { mergeWithLastSubmission: true },
    );
    return undefined;
  });
  server.on("request", provider.callback());
  process.stdout.write(`${JSON.stringify({ issuer })}\n`);
});

process.on("SIGTERM", () => server.close(() => process.exit(0)));
