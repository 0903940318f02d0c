//! The OAuth 2.0 client: signing users in through an authority's external providers (`oauth_strat` rows).
//!
//! [`start`] builds the authorization request (the `oauth2` crate: a random `state`, PKCE S256, and a `nonce`
//! when `openid` is asked for) and returns what the session must remember; [`finish`] exchanges the code (the
//! client authenticating by `basic_auth` or `request_body`, over [`transport`]), verifies an ID token when one is
//! returned ([`id_token`]), fetches the profile from `raw_info_url`, and reads it into an
//! [`ExternalIdentity`] through the strategy's mappings ([`profile`]). Signing the user in is `sso`'s, shared with
//! SAML. The routes are in `routes/oauth_client.rs`.

pub mod id_token;
pub mod profile;
pub mod transport;

use oauth2::basic::{
    BasicErrorResponse, BasicRevocationErrorResponse, BasicTokenIntrospectionResponse,
    BasicTokenType,
};
use oauth2::{
    AuthType, AuthUrl, AuthorizationCode, ClientId, ClientSecret, CsrfToken, EndpointNotSet,
    EndpointSet, ExtraTokenFields, PkceCodeChallenge, PkceCodeVerifier, RedirectUrl, Scope,
    StandardRevocableToken, StandardTokenResponse, TokenResponse, TokenUrl,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use url::Url;

use crate::events::Provider;
use crate::session::PendingLogin;
use crate::sso::{ExternalIdentity, LoginError};
use crate::store::OAuthStrategy;
use transport::Transport;

/// The ID token an OpenID Connect provider adds to the token response.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct IdTokenField {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id_token: Option<String>,
}

impl ExtraTokenFields for IdTokenField {}

type ProviderClient = oauth2::Client<
    BasicErrorResponse,
    StandardTokenResponse<IdTokenField, BasicTokenType>,
    BasicTokenIntrospectionResponse,
    StandardRevocableToken,
    BasicRevocationErrorResponse,
    EndpointSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointSet,
>;

fn misconfigured(what: &str, e: impl std::fmt::Display) -> LoginError {
    LoginError::refused(format!("strategy misconfigured: {what}: {e}"))
}

/// The strategy's `site`, which relative endpoint paths join.
fn site(strategy: &OAuthStrategy) -> Result<Option<Url>, LoginError> {
    strategy
        .site
        .as_deref()
        .filter(|s| !s.trim().is_empty())
        .map(|s| Url::parse(s.trim()).map_err(|e| misconfigured("site", e)))
        .transpose()
}

/// `path` as an absolute URL: itself when absolute, else joined to the site. Only http(s) endpoints are called.
pub fn endpoint(strategy: &OAuthStrategy, what: &str, path: &str) -> Result<Url, LoginError> {
    let url = match Url::parse(path) {
        Ok(url) => url,
        Err(url::ParseError::RelativeUrlWithoutBase) => site(strategy)?
            .ok_or_else(|| misconfigured(what, "a relative path needs a site"))?
            .join(path)
            .map_err(|e| misconfigured(what, e))?,
        Err(e) => return Err(misconfigured(what, e)),
    };
    match url.scheme() {
        "http" | "https" => Ok(url),
        other => Err(misconfigured(what, format!("scheme {other} refused"))),
    }
}

fn client(strategy: &OAuthStrategy, redirect_uri: &str) -> Result<ProviderClient, LoginError> {
    let auth_url = endpoint(strategy, "authorize_url", &strategy.authorize_url)?;
    let token_url = endpoint(strategy, "token_url", &strategy.token_url)?;
    let auth_type = match strategy.auth_scheme.as_str() {
        "basic_auth" => AuthType::BasicAuth,
        "request_body" | "" => AuthType::RequestBody,
        other => return Err(misconfigured("auth_scheme", format!("unknown {other:?}"))),
    };
    Ok(
        oauth2::Client::new(ClientId::new(strategy.client_id.clone()))
            .set_client_secret(ClientSecret::new(strategy.client_secret.clone()))
            .set_auth_uri(AuthUrl::from_url(auth_url))
            .set_token_uri(TokenUrl::from_url(token_url))
            .set_redirect_uri(
                RedirectUrl::new(redirect_uri.to_string())
                    .map_err(|e| misconfigured("redirect URI", e))?,
            )
            .set_auth_type(auth_type),
    )
}

/// The strategy's scopes (space- or comma-separated, as legacy rows hold them).
fn scopes(strategy: &OAuthStrategy) -> Vec<String> {
    strategy
        .scope
        .as_deref()
        .unwrap_or_default()
        .split([' ', ','])
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// The provider's authorization URL for `strategy`, and the pending login the session must hold until the answer.
pub fn start(
    strategy: &OAuthStrategy,
    redirect_uri: &str,
) -> Result<(Url, PendingLogin), LoginError> {
    let client = client(strategy, redirect_uri)?;
    let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
    let scopes = scopes(strategy);
    // OpenID Connect Core 3.1.2.1: a nonce ties the ID token to this session, so a token issued elsewhere is refused.
    let nonce = scopes
        .iter()
        .any(|s| s == "openid")
        .then(crate::ids::random_token);
    let mut request = client
        .authorize_url(CsrfToken::new_random)
        .set_pkce_challenge(challenge)
        .add_scopes(scopes.into_iter().map(Scope::new));
    if let Some(params) = strategy.authorize_params.as_object() {
        for (name, value) in params {
            let value = match value {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            request = request.add_extra_param(name.clone(), value);
        }
    }
    if let Some(nonce) = &nonce {
        request = request.add_extra_param("nonce", nonce.clone());
    }
    let (url, state) = request.url();
    let pending = PendingLogin {
        provider: Provider::OAuth2.as_str().into(),
        strategy: strategy.id.clone(),
        state: state.secret().clone(),
        pkce_verifier: Some(verifier.secret().clone()),
        nonce,
    };
    Ok((url, pending))
}

/// Who signed in, from the provider's `code` for the login `pending` started.
pub async fn finish(
    transport: &Transport,
    strategy: &OAuthStrategy,
    redirect_uri: &str,
    pending: &PendingLogin,
    code: String,
) -> Result<ExternalIdentity, LoginError> {
    let client = client(strategy, redirect_uri)?;
    let get = strategy
        .token_method
        .as_deref()
        .is_some_and(|m| m.eq_ignore_ascii_case("get"));
    let call = |request| {
        let transport = transport.clone();
        async move { transport.token_request(request, get).await }
    };
    let mut exchange = client.exchange_code(AuthorizationCode::new(code));
    if let Some(verifier) = &pending.pkce_verifier {
        exchange = exchange.set_pkce_verifier(PkceCodeVerifier::new(verifier.clone()));
    }
    // The error's text names the provider's error code or our transport's failure, never the code or the secret.
    let token = exchange
        .request_async(&call)
        .await
        .map_err(|e| LoginError::refused(format!("token request: {}", token_error(&e))))?;
    let site = site(strategy)?;
    let id_claims = match (&token.extra_fields().id_token, &site) {
        (Some(id_token), Some(site)) => Some(
            id_token::verify(
                transport,
                site,
                &strategy.client_id,
                pending.nonce.as_deref(),
                id_token,
            )
            .await?,
        ),
        (Some(_), None) => {
            return Err(misconfigured(
                "site",
                "needed to discover the ID token's keys",
            ));
        }
        (None, _) if pending.nonce.is_some() => {
            return Err(LoginError::refused(
                "openid was asked for and no ID token came back",
            ));
        }
        (None, _) => None,
    };
    let profile = match (&strategy.raw_info_url, id_claims) {
        (Some(raw_info_url), id_claims) if !raw_info_url.trim().is_empty() => {
            let url = endpoint(strategy, "raw_info_url", raw_info_url.trim())?;
            let profile = transport
                .get_json("the profile", &url, Some(token.access_token().secret()))
                .await
                .map_err(|e| LoginError::refused(e.to_string()))?;
            // OpenID Connect Core 5.3.2: a profile about another subject than the ID token's is not this user's.
            if let Some(sub) = id_claims.as_ref().and_then(|c| c["sub"].as_str())
                && profile
                    .get("sub")
                    .and_then(Value::as_str)
                    .is_some_and(|s| s != sub)
            {
                return Err(LoginError::refused(
                    "the profile's sub differs from the ID token's",
                ));
            }
            profile
        }
        (_, Some(claims)) => claims,
        (_, None) => {
            return Err(misconfigured(
                "raw_info_url",
                "unset, and no ID token came back",
            ));
        }
    };
    identity(strategy, &profile)
}

fn token_error<E: std::error::Error>(
    e: &oauth2::RequestTokenError<E, BasicErrorResponse>,
) -> String {
    match e {
        oauth2::RequestTokenError::ServerResponse(answer) => {
            format!("the provider answered {answer}")
        }
        oauth2::RequestTokenError::Request(e) => e.to_string(),
        oauth2::RequestTokenError::Parse(e, _) => format!("unreadable answer: {e}"),
        oauth2::RequestTokenError::Other(e) => e.clone(),
    }
}

/// The identity `profile` describes, once `ensure_matching` accepts it.
pub fn identity(strategy: &OAuthStrategy, profile: &Value) -> Result<ExternalIdentity, LoginError> {
    let mappings = &strategy.info_mappings;
    profile::ensure_matching(profile, mappings, &strategy.ensure_matching)?;
    let uid = profile::field(profile, mappings, "uid")
        .ok_or_else(|| LoginError::refused("the profile names no uid"))?;
    Ok(ExternalIdentity {
        provider: Provider::OAuth2,
        uid,
        email: profile::field(profile, mappings, "email"),
        name: profile::field(profile, mappings, "name"),
        name_id: None,
    })
}
