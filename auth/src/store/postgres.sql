-- The legacy schema, created only where missing: `auth migrate` on an empty database yields the tables an existing
-- deployment already has (text ids, the quoted "user" table, jsonb and text[] columns).
CREATE TABLE IF NOT EXISTS authority (
    id text PRIMARY KEY,
    name text NOT NULL,
    description text,
    domain text NOT NULL UNIQUE,
    login_url text,
    logout_url text,
    internals jsonb NOT NULL DEFAULT '{}',
    config jsonb NOT NULL DEFAULT '{}',
    email_domains text[] NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS "user" (
    id text PRIMARY KEY,
    authority_id text NOT NULL REFERENCES authority (id),
    name text,
    email text NOT NULL,
    email_digest text,
    password_digest text,
    first_name text,
    last_name text,
    nickname text,
    phone text,
    login_name text,
    staff_id text,
    groups text[] NOT NULL DEFAULT '{}',
    sys_admin boolean NOT NULL DEFAULT false,
    support boolean NOT NULL DEFAULT false,
    deleted boolean NOT NULL DEFAULT false,
    logged_out_at timestamptz,
    login_count integer NOT NULL DEFAULT 0,
    last_login timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX IF NOT EXISTS user_authority_email ON "user" (authority_id, lower(email));

CREATE TABLE IF NOT EXISTS api_key (
    id text PRIMARY KEY,
    name text,
    description text,
    scopes jsonb NOT NULL DEFAULT '[]',
    permissions jsonb,
    secret text NOT NULL,
    user_id text REFERENCES "user" (id),
    authority_id text NOT NULL REFERENCES authority (id),
    expires_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS oauth_applications (
    id text PRIMARY KEY,
    name text NOT NULL,
    uid text NOT NULL UNIQUE,
    secret text NOT NULL,
    redirect_uri text NOT NULL,
    scopes text NOT NULL DEFAULT '',
    confidential boolean NOT NULL DEFAULT true,
    owner_id text,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS authentication (
    id text PRIMARY KEY,
    uid text NOT NULL,
    provider text NOT NULL,
    user_id text NOT NULL REFERENCES "user" (id),
    authority_id text NOT NULL REFERENCES authority (id),
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS oauth_tokens (
    id text PRIMARY KEY,
    jti text NOT NULL UNIQUE,
    token_type text NOT NULL,
    client_id text,
    sub text,
    scope text,
    issued_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    revoked_at timestamptz,
    -- The jti of the authorization code everything here descends from: a replayed code revokes its family.
    family text,
    -- When a code was redeemed or a refresh token rotated.
    used_at timestamptz,
    -- A code's redirect URI and PKCE S256 challenge (unpadded), checked when it is redeemed.
    redirect_uri text,
    code_challenge text,
    -- A code's OpenID Connect nonce, repeated in its ID token.
    nonce text
);
CREATE INDEX IF NOT EXISTS oauth_tokens_family ON oauth_tokens (family);

CREATE TABLE IF NOT EXISTS oauth_strat (
    id text PRIMARY KEY,
    name text NOT NULL,
    authority_id text NOT NULL REFERENCES authority (id),
    client_id text NOT NULL,
    client_secret text NOT NULL,
    site text,
    authorize_url text NOT NULL DEFAULT '/oauth/authorize',
    token_url text NOT NULL DEFAULT '/oauth/token',
    token_method text,
    auth_scheme text NOT NULL DEFAULT 'request_body',
    scope text,
    raw_info_url text,
    info_mappings jsonb NOT NULL DEFAULT '{}',
    authorize_params jsonb NOT NULL DEFAULT '{}',
    ensure_matching jsonb NOT NULL DEFAULT '{}'
);

CREATE TABLE IF NOT EXISTS adfs_strat (
    id text PRIMARY KEY,
    name text NOT NULL,
    authority_id text NOT NULL REFERENCES authority (id),
    issuer text,
    idp_sso_target_url text,
    idp_sso_target_url_runtime_params jsonb NOT NULL DEFAULT '{}',
    assertion_consumer_service_url text,
    name_identifier_format text,
    uid_attribute text,
    idp_cert text,
    idp_cert_fingerprint text,
    attribute_statements jsonb NOT NULL DEFAULT '{}',
    request_attributes jsonb NOT NULL DEFAULT '[]',
    idp_slo_target_url text,
    slo_default_relay_state text
);
