// A real OAuth 2.1 authorization server for the resource-server tests and
// fusion call's:
// oidc-provider (OpenID Certified) on a loopback port.
//
// Usage: node server.mjs [--port N] [--kid KID]
//   --port N   the port on 127.0.0.1 (default 0: a free one); env OAUTH_PORT
//   --kid KID  the key id of its RS256 signing key, a key made at start
//              (default "key-1"); restart with another kid on the same port
//              to rotate keys. env OAUTH_KID
//
// Prints one line `ready http://127.0.0.1:PORT` on stdout once it listens
// (the issuer), and serves until killed.
//
// Clients (client_secret_basic or client_secret_post; the secret is the id
// followed by "-secret"):
//   billing-full    client_credentials, scopes billing:read billing:write
//   billing-reader  client_credentials, scope billing:read
//   billing-narrowed client_credentials, may ask for both scopes, but its
//                   tokens for a resource carry billing:read alone (the
//                   server grants less than asked, RFC 6749 §3.3)
//   opaque-client   client_credentials, both scopes, opaque access tokens
//                   (for introspection, RFC 7662)
//   short-lived     client_credentials, both scopes, tokens that expire
//                   after 1 second
//   billing-keyed   client_credentials, both scopes, authenticated by
//                   private_key_jwt (RFC 7523 §2.2) with ES256 only: its
//                   private key is billing-keyed.pem (P-256, PKCS#8; a key
//                   for these tests alone), the public half registered as
//                   its jwks
//   mcp-server      the resource server's own credentials for introspection
//   web-app         authorization code with PKCE (required), redirect
//                   http://127.0.0.1/callback (devInteractions: any login)
//   native-app      the same for a public native client (no secret,
//                   application_type native): its loopback redirect
//                   http://127.0.0.1/callback matches on any port (RFC 8252
//                   §7.3), as a command-line client's listener has one the
//                   system picks
// Dynamic registration (RFC 7591) at /reg is open to anyone.
// Accounts (devInteractions: any login name is an account): `reader` is
// granted billing:read alone for a resource, whatever its client asks (as
// billing-narrowed); every other account gets what it asks.
// Resource indicators (RFC 8707): any http(s) URL is a resource; its access
// tokens are `at+jwt` JWTs (RFC 9068) whose `aud` is that URL, signed RS256.
// A token request without `resource` gets an opaque token with no audience.
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import Provider, { errors } from 'oidc-provider';

// stdout carries the ready line alone: oidc-provider's notices (printed on
// first use of a feature) go to stderr.
console.log = console.error;
console.info = console.error;
console.warn = console.error;

function option(name, env, fallback) {
    const at = process.argv.indexOf(`--${name}`);
    if (at !== -1 && process.argv[at + 1] !== undefined) return process.argv[at + 1];
    return process.env[env] ?? fallback;
}

const port = Number(option('port', 'OAUTH_PORT', '0'));
const kid = option('kid', 'OAUTH_KID', 'key-1');
const SCOPES = 'billing:read billing:write';

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwk = { ...privateKey.export({ format: 'jwk' }), kid, use: 'sig', alg: 'RS256' };

// The public key of billing-keyed (its private key signs its assertions).
const keyedJwk = {
    ...createPublicKey(readFileSync(new URL('./billing-keyed.pem', import.meta.url))).export({
        format: 'jwk',
    }),
    use: 'sig',
    alg: 'ES256',
};

const confidential = (id, scope) => ({
    client_id: id,
    client_secret: `${id}-secret`,
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
    ...(scope ? { scope } : {}),
});

// Listen first, so that the issuer names the port actually bound.
const listener = createServer();
await new Promise((resolve) => listener.listen(port, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${listener.address().port}`;

const provider = new Provider(issuer, {
    jwks: { keys: [jwk] },
    clients: [
        confidential('billing-full', SCOPES),
        confidential('billing-reader', 'billing:read'),
        confidential('billing-narrowed', SCOPES),
        confidential('opaque-client', SCOPES),
        confidential('short-lived', SCOPES),
        {
            client_id: 'billing-keyed',
            token_endpoint_auth_method: 'private_key_jwt',
            token_endpoint_auth_signing_alg: 'ES256',
            jwks: { keys: [keyedJwk] },
            grant_types: ['client_credentials'],
            response_types: [],
            redirect_uris: [],
            scope: SCOPES,
        },
        confidential('mcp-server', ''),
        {
            client_id: 'web-app',
            client_secret: 'web-app-secret',
            grant_types: ['authorization_code'],
            response_types: ['code'],
            redirect_uris: ['http://127.0.0.1/callback'],
            scope: `openid ${SCOPES}`,
        },
        {
            client_id: 'native-app',
            application_type: 'native',
            token_endpoint_auth_method: 'none',
            grant_types: ['authorization_code'],
            response_types: ['code'],
            redirect_uris: ['http://127.0.0.1/callback'],
            scope: `openid ${SCOPES}`,
        },
    ],
    scopes: ['openid', 'offline_access', 'billing:read', 'billing:write'],
    pkce: { required: () => true },
    features: {
        clientCredentials: { enabled: true },
        introspection: { enabled: true },
        revocation: { enabled: true },
        registration: { enabled: true },
        devInteractions: { enabled: true },
        resourceIndicators: {
            enabled: true,
            defaultResource: async () => undefined,
            useGrantedResource: async () => true,
            getResourceServerInfo: async (ctx, indicator, client) => {
                if (!/^https?:\/\//.test(indicator)) {
                    throw new errors.InvalidTarget();
                }
                const opaque = client?.clientId === 'opaque-client';
                const { Grant, Session } = ctx.oidc.entities;
                const account = Grant?.accountId ?? Session?.accountId;
                const narrowed = client?.clientId === 'billing-narrowed' || account === 'reader';
                return {
                    scope: narrowed ? 'billing:read' : SCOPES,
                    audience: indicator,
                    accessTokenTTL: client?.clientId === 'short-lived' ? 1 : 300,
                    accessTokenFormat: opaque ? 'opaque' : 'jwt',
                    ...(opaque ? {} : { jwt: { sign: { alg: 'RS256' } } }),
                };
            },
        },
    },
});
provider.proxy = false;

listener.on('request', provider.callback());
process.stdout.write(`ready ${issuer}\n`);
