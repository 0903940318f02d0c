// panva's oidc-provider as the peer of benches/auth-vs-oidc-provider.sh: the client_credentials grant issuing RS256
// JWT access tokens, signed with the same RSA-2048 key the auth service uses. PORT, KEY_PEM (a PKCS#8 or PKCS#1
// PEM file), CLIENT_ID and CLIENT_SECRET come from the environment; it prints "listening" once it accepts
// connections.
import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Provider from 'oidc-provider';

const port = Number(process.env.PORT);
const jwk = createPrivateKey(readFileSync(process.env.KEY_PEM)).export({ format: 'jwk' });
const audience = 'urn:bench:api';
const provider = new Provider(`http://127.0.0.1:${port}`, {
  jwks: { keys: [{ ...jwk, use: 'sig', alg: 'RS256', kid: 'bench' }] },
  scopes: ['public'],
  clients: [{
    client_id: process.env.CLIENT_ID,
    client_secret: process.env.CLIENT_SECRET,
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: 'client_secret_basic',
    scope: 'public',
  }],
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    // Access tokens as RS256 JWTs (the default is opaque tokens kept in the provider's store).
    resourceIndicators: {
      enabled: true,
      defaultResource: () => audience,
      useGrantedResource: () => true,
      getResourceServerInfo: () => ({
        scope: 'public',
        audience,
        accessTokenTTL: 2 * 60 * 60,
        accessTokenFormat: 'jwt',
        jwt: { sign: { alg: 'RS256' } },
      }),
    },
  },
});
provider.listen(port, '127.0.0.1', () => console.log('listening'));
