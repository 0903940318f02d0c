// panva's oidc-provider as a third-party OpenID Connect provider for the auth service's OAuth 2.0 client tests.
// Started by auth/tests/sso/oidc_provider.rs: PORT (on 127.0.0.1) and CLIENTS (a JSON array of client metadata)
// come from the environment; it prints "listening" once it accepts connections.
// Every interaction (login, consent) is completed at once for the account "linus", so a test drives the code flow
// with plain HTTP requests and no browser. A code flow naming a `resource` yields a JWT access token (see below).
import Provider from 'oidc-provider';

const port = Number(process.env.PORT);
const issuer = `http://127.0.0.1:${port}`;
const provider = new Provider(issuer, {
  clients: JSON.parse(process.env.CLIENTS),
  findAccount: async (_ctx, sub) => ({
    accountId: sub,
    claims: async () => ({ sub, email: `${sub}@oidc.test`, email_verified: true, name: 'Linus Torvalds' }),
  }),
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
  pkce: { required: () => true },
  features: {
    // A request naming a `resource` gets a JWT access token whose audience is the requesting client (an
    // application's token for itself, as Entra ID issues them): the token exchange tests trade it. Without a
    // resource, access tokens stay opaque, as the login tests expect.
    resourceIndicators: {
      enabled: true,
      defaultResource: () => undefined,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, _resource, client) => ({
        scope: 'api',
        audience: client.clientId,
        accessTokenFormat: 'jwt',
        jwt: { sign: { alg: 'RS256' } },
      }),
    },
  },
});

provider.use(async (ctx, next) => {
  if (!ctx.path.startsWith('/interaction/')) {
    return next();
  }
  const details = await provider.interactionDetails(ctx.req, ctx.res);
  const grant = new provider.Grant({ accountId: 'linus', clientId: details.params.client_id });
  grant.addOIDCScope(details.params.scope);
  if (details.params.resource) {
    grant.addResourceScope(details.params.resource, 'api');
  }
  const grantId = await grant.save();
  await provider.interactionFinished(
    ctx.req,
    ctx.res,
    { login: { accountId: 'linus' }, consent: { grantId } },
    { mergeWithLastSubmission: false },
  );
});

provider.listen(port, '127.0.0.1', () => console.log('listening'));
