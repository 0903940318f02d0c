-- The same tables as postgres.sql in SQLite types: JSON and arrays as JSON text, booleans as integers, times as
-- RFC 3339 text.
CREATE TABLE IF NOT EXISTS authority (
    id text PRIMARY KEY,
    name text NOT NULL,
    description text,
    domain text NOT NULL UNIQUE,
    login_url text,
    logout_url text,
    internals text NOT NULL DEFAULT '{}',
    config text NOT NULL DEFAULT '{}',
    email_domains text NOT NULL DEFAULT '[]',
    created_at text NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at text NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
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
    groups text NOT NULL DEFAULT '[]',
    sys_admin integer NOT NULL DEFAULT 0,
    support integer NOT NULL DEFAULT 0,
    deleted integer NOT NULL DEFAULT 0,
    logged_out_at text,
    login_count integer NOT NULL DEFAULT 0,
    last_login text,
    created_at text NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at text NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE UNIQUE INDEX IF NOT EXISTS user_authority_email ON "user" (authority_id, lower(email));

CREATE TABLE IF NOT EXISTS api_key (
    id text PRIMARY KEY,
    name text,
    description text,
    scopes text NOT NULL DEFAULT '[]',
    permissions text,
    secret text NOT NULL,
    user_id text REFERENCES "user" (id),
    authority_id text NOT NULL REFERENCES authority (id),
    expires_at text,
    created_at text NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at text NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TABLE IF NOT EXISTS oauth_applications (
    id text PRIMARY KEY,
    name text NOT NULL,
    uid text NOT NULL UNIQUE,
    secret text NOT NULL,
    redirect_uri text NOT NULL,
    scopes text NOT NULL DEFAULT '',
    confidential integer NOT NULL DEFAULT 1,
    owner_id text,
    created_at text NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at text NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TABLE IF NOT EXISTS authentication (
    id text PRIMARY KEY,
    uid text NOT NULL,
    provider text NOT NULL,
    user_id text NOT NULL REFERENCES "user" (id),
    authority_id text NOT NULL REFERENCES authority (id),
    created_at text NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TABLE IF NOT EXISTS oauth_tokens (
    id text PRIMARY KEY,
    jti text NOT NULL UNIQUE,
    token_type text NOT NULL,
    client_id text,
    sub text,
    scope text,
    issued_at text NOT NULL,
    expires_at text NOT NULL,
    revoked_at text
);

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
    info_mappings text NOT NULL DEFAULT '{}',
    authorize_params text NOT NULL DEFAULT '{}',
    ensure_matching text NOT NULL DEFAULT '{}'
);

CREATE TABLE IF NOT EXISTS adfs_strat (
    id text PRIMARY KEY,
    name text NOT NULL,
    authority_id text NOT NULL REFERENCES authority (id),
    issuer text,
    idp_sso_target_url text,
    idp_sso_target_url_runtime_params text NOT NULL DEFAULT '{}',
    assertion_consumer_service_url text,
    name_identifier_format text,
    uid_attribute text,
    idp_cert text,
    idp_cert_fingerprint text,
    attribute_statements text NOT NULL DEFAULT '{}',
    request_attributes text NOT NULL DEFAULT '[]',
    idp_slo_target_url text,
    slo_default_relay_state text
);
