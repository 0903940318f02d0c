//! The administration commands (`auth authority add`, `user add`, `client add`, `apikey add`, `oauth2 add`): each
//! creates one row and returns what it created as JSON. Secrets we generate (a client secret, an API key) are shown
//! this once; a provider's client secret, which the operator typed, is never echoed.

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use crate::store::{
    ApiKey, Authority, NewUser, OAuthApplication, OAuthStrategy, SamlStrategy, Store,
};

#[derive(Debug, thiserror::Error)]
pub enum AdminError {
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    #[error(transparent)]
    Password(#[from] crate::password::PasswordError),
}

async fn authority(store: &dyn Store, domain: &str) -> Result<Authority, AdminError> {
    store
        .authority_by_domain(&domain.to_ascii_lowercase())
        .await?
        .ok_or_else(|| AdminError::Invalid(format!("no authority with domain {domain}")))
}

pub struct NewAuthority<'a> {
    pub domain: &'a str,
    pub name: &'a str,
    pub login_url: Option<String>,
    pub logout_url: Option<String>,
    pub session_timeout_minutes: Option<u32>,
}

pub async fn add_authority(store: &dyn Store, new: NewAuthority<'_>) -> Result<Value, AdminError> {
    let domain = new.domain.trim().to_ascii_lowercase();
    if domain.is_empty() || domain.contains(['/', ':', ' ']) {
        return Err(AdminError::Invalid(format!(
            "--domain must be a host name, got {:?}",
            new.domain
        )));
    }
    let mut internals = json!({});
    if let Some(minutes) = new.session_timeout_minutes {
        internals["session_timeout"] = json!(minutes);
    }
    let authority = Authority {
        id: crate::ids::new_id(),
        name: new.name.to_string(),
        description: None,
        domain,
        login_url: new.login_url,
        logout_url: new.logout_url,
        internals,
        config: json!({}),
        email_domains: Vec::new(),
        updated_at: None,
    };
    store.insert_authority(&authority).await?;
    Ok(json!({ "id": authority.id, "name": authority.name, "domain": authority.domain }))
}

pub struct NewUserArgs<'a> {
    pub domain: &'a str,
    pub email: &'a str,
    pub password: &'a str,
    pub name: Option<String>,
    pub admin: bool,
    pub support: bool,
    pub bcrypt_cost: u32,
}

pub async fn add_user(store: &dyn Store, args: NewUserArgs<'_>) -> Result<Value, AdminError> {
    let authority = authority(store, args.domain).await?;
    let email = args.email.trim().to_lowercase();
    if !email.contains('@') {
        return Err(AdminError::Invalid(format!(
            "--email must be an email address, got {:?}",
            args.email
        )));
    }
    let (password, cost) = (args.password.to_string(), args.bcrypt_cost);
    let password_digest =
        tokio::task::spawn_blocking(move || crate::password::hash(&password, cost))
            .await
            .map_err(|e| AdminError::Invalid(e.to_string()))??;
    let user = NewUser {
        id: crate::ids::new_id(),
        authority_id: authority.id,
        name: args.name,
        email,
        password_digest: Some(password_digest),
        sys_admin: args.admin,
        support: args.support,
    };
    store.insert_user(&user).await?;
    Ok(
        json!({ "id": user.id, "authority_id": user.authority_id, "email": user.email, "name": user.name,
                "sys_admin": user.sys_admin, "support": user.support }),
    )
}

pub struct NewClient<'a> {
    pub domain: &'a str,
    pub name: &'a str,
    pub redirect_uris: Vec<String>,
    pub public: bool,
    pub scopes: Option<String>,
}

pub async fn add_client(store: &dyn Store, new: NewClient<'_>) -> Result<Value, AdminError> {
    let authority = authority(store, new.domain).await?;
    for uri in &new.redirect_uris {
        let parsed = url::Url::parse(uri)
            .map_err(|e| AdminError::Invalid(format!("--redirect-uri {uri:?}: {e}")))?;
        if parsed.fragment().is_some() {
            return Err(AdminError::Invalid(format!(
                "--redirect-uri {uri:?}: RFC 6749 forbids a fragment"
            )));
        }
    }
    if new.redirect_uris.is_empty() {
        return Err(AdminError::Invalid(
            "at least one --redirect-uri is required".into(),
        ));
    }
    let app = OAuthApplication {
        id: crate::ids::new_id(),
        name: new.name.to_string(),
        uid: crate::ids::new_id(),
        secret: crate::ids::random_token(),
        redirect_uri: new.redirect_uris.join(" "),
        scopes: new.scopes.unwrap_or_else(|| "public".into()),
        confidential: !new.public,
        owner_id: Some(authority.id),
    };
    store.insert_application(&app).await?;
    let mut out = json!({ "id": app.id, "name": app.name, "client_id": app.uid, "redirect_uris": new.redirect_uris,
                           "scopes": app.scopes, "confidential": app.confidential });
    if app.confidential {
        out["client_secret"] = json!(app.secret);
    }
    Ok(out)
}

pub struct NewApiKey<'a> {
    pub domain: &'a str,
    pub email: &'a str,
    pub scopes: Option<String>,
    pub expires_at: Option<DateTime<Utc>>,
}

pub async fn add_api_key(store: &dyn Store, new: NewApiKey<'_>) -> Result<Value, AdminError> {
    let authority = authority(store, new.domain).await?;
    let user = store
        .user_by_email(&authority.id, new.email)
        .await?
        .filter(|u| !u.deleted)
        .ok_or_else(|| AdminError::Invalid(format!("no user {} in {}", new.email, new.domain)))?;
    let (id, secret) = (crate::ids::new_id(), crate::ids::random_token());
    let scopes: Vec<&str> = new
        .scopes
        .as_deref()
        .unwrap_or("public")
        .split_whitespace()
        .collect();
    let key = ApiKey {
        secret: crate::apikey::digest(&id, &secret),
        id,
        name: None,
        scopes: json!(scopes),
        user_id: Some(user.id),
        authority_id: authority.id,
        expires_at: new.expires_at,
    };
    store.insert_api_key(&key).await?;
    Ok(
        json!({ "id": key.id, "key": format!("{}.{secret}", key.id), "user_id": key.user_id, "scopes": key.scopes,
                "expires_at": key.expires_at }),
    )
}

pub struct NewOAuthStrategy<'a> {
    pub domain: &'a str,
    pub name: &'a str,
    pub client_id: &'a str,
    pub client_secret: &'a str,
    pub site: &'a str,
    pub authorize_url: Option<String>,
    pub token_url: Option<String>,
    pub raw_info_url: Option<String>,
    pub scope: Option<String>,
    pub auth_scheme: Option<String>,
    pub info_mappings: Option<String>,
    pub ensure_matching: Option<String>,
}

/// A JSON object option, parsed; `None` is `{}`.
fn json_object(option: &str, text: Option<&str>) -> Result<Value, AdminError> {
    let Some(text) = text else {
        return Ok(json!({}));
    };
    match serde_json::from_str(text) {
        Ok(value @ Value::Object(_)) => Ok(value),
        Ok(_) => Err(AdminError::Invalid(format!(
            "{option} must be a JSON object"
        ))),
        Err(e) => Err(AdminError::Invalid(format!("{option}: {e}"))),
    }
}

pub async fn add_oauth_strategy(
    store: &dyn Store,
    new: NewOAuthStrategy<'_>,
) -> Result<Value, AdminError> {
    let authority = authority(store, new.domain).await?;
    let auth_scheme = new.auth_scheme.unwrap_or_else(|| "request_body".into());
    if !matches!(auth_scheme.as_str(), "request_body" | "basic_auth") {
        return Err(AdminError::Invalid(format!(
            "--auth-scheme must be basic_auth or request_body, got {auth_scheme:?}"
        )));
    }
    let info_mappings = json_object("--info-mappings", new.info_mappings.as_deref())?;
    if let Some((field, _)) = info_mappings
        .as_object()
        .into_iter()
        .flatten()
        .find(|(_, path)| !path.is_string())
    {
        return Err(AdminError::Invalid(format!(
            "--info-mappings: {field} must map to a \"path[,fallback]\" string"
        )));
    }
    let ensure_matching = json_object("--ensure-matching", new.ensure_matching.as_deref())?;
    crate::oauth_client::profile::compile_rules(&ensure_matching)
        .map_err(|e| AdminError::Invalid(e.to_string()))?;
    let strategy = OAuthStrategy {
        id: crate::ids::new_id(),
        name: new.name.to_string(),
        authority_id: authority.id,
        client_id: new.client_id.to_string(),
        client_secret: new.client_secret.to_string(),
        site: Some(new.site.trim_end_matches('/').to_string()),
        authorize_url: new
            .authorize_url
            .unwrap_or_else(|| "/oauth/authorize".into()),
        token_url: new.token_url.unwrap_or_else(|| "/oauth/token".into()),
        token_method: None,
        auth_scheme,
        scope: new.scope,
        raw_info_url: new.raw_info_url,
        info_mappings,
        authorize_params: json!({}),
        ensure_matching,
    };
    // Every URL must resolve now, not at a user's first login.
    for (option, path) in [
        ("--authorize-url", Some(&strategy.authorize_url)),
        ("--token-url", Some(&strategy.token_url)),
        ("--raw-info-url", strategy.raw_info_url.as_ref()),
    ] {
        if let Some(path) = path {
            crate::oauth_client::endpoint(&strategy, option, path)
                .map_err(|e| AdminError::Invalid(e.to_string()))?;
        }
    }
    store.insert_oauth_strategy(&strategy).await?;
    Ok(json!({
        "id": strategy.id, "name": strategy.name, "authority_id": strategy.authority_id,
        "client_id": strategy.client_id, "site": strategy.site, "authorize_url": strategy.authorize_url,
        "token_url": strategy.token_url, "raw_info_url": strategy.raw_info_url, "scope": strategy.scope,
        "auth_scheme": strategy.auth_scheme, "info_mappings": strategy.info_mappings,
        "ensure_matching": strategy.ensure_matching,
    }))
}

pub struct NewSamlStrategy<'a> {
    pub domain: &'a str,
    pub name: &'a str,
    pub issuer: &'a str,
    pub idp_sso_target_url: &'a str,
    /// The certificate's text (PEM or base64 DER), read from the file the operator named.
    pub idp_cert: Option<String>,
    pub idp_cert_fingerprint: Option<String>,
    pub uid_attribute: Option<String>,
    pub attribute_statements: Option<String>,
    pub name_identifier_format: Option<String>,
    pub idp_slo_target_url: Option<String>,
}

pub async fn add_saml_strategy(
    store: &dyn Store,
    new: NewSamlStrategy<'_>,
) -> Result<Value, AdminError> {
    let authority = authority(store, new.domain).await?;
    let invalid = |e: crate::sso::LoginError| AdminError::Invalid(e.to_string());
    crate::saml::idp_url("--idp-sso-target-url", Some(new.idp_sso_target_url)).map_err(invalid)?;
    if let Some(url) = &new.idp_slo_target_url {
        crate::saml::idp_url("--idp-slo-target-url", Some(url)).map_err(invalid)?;
    }
    match (&new.idp_cert, &new.idp_cert_fingerprint) {
        (Some(cert), None) => {
            crate::saml::trust::parse_certificates(cert)
                .map_err(|e| AdminError::Invalid(e.to_string()))?;
        }
        (None, Some(fingerprint)) => {
            crate::saml::trust::normalize_fingerprint(fingerprint)
                .map_err(|e| AdminError::Invalid(e.to_string()))?;
        }
        _ => {
            return Err(AdminError::Invalid(
                "give exactly one of --idp-cert FILE and --idp-cert-fingerprint FP".into(),
            ));
        }
    }
    if new.issuer.trim().is_empty() {
        return Err(AdminError::Invalid("--issuer must not be empty".into()));
    }
    let attribute_statements = json_object(
        "--attribute-statements",
        new.attribute_statements.as_deref(),
    )?;
    if let Some((field, _)) =
        attribute_statements
            .as_object()
            .into_iter()
            .flatten()
            .find(|(_, names)| {
                !(names.is_string()
                    || names
                        .as_array()
                        .is_some_and(|names| names.iter().all(Value::is_string)))
            })
    {
        return Err(AdminError::Invalid(format!(
            "--attribute-statements: {field} must map to an attribute name or a list of names"
        )));
    }
    let strategy = SamlStrategy {
        id: crate::ids::new_id(),
        name: new.name.to_string(),
        authority_id: authority.id,
        issuer: Some(new.issuer.to_string()),
        idp_sso_target_url: Some(new.idp_sso_target_url.to_string()),
        idp_sso_target_url_runtime_params: json!({}),
        assertion_consumer_service_url: None,
        name_identifier_format: new.name_identifier_format,
        uid_attribute: new.uid_attribute,
        idp_cert: new.idp_cert,
        idp_cert_fingerprint: new.idp_cert_fingerprint,
        attribute_statements,
        idp_slo_target_url: new.idp_slo_target_url,
        slo_default_relay_state: None,
    };
    store.insert_saml_strategy(&strategy).await?;
    Ok(json!({
        "id": strategy.id, "name": strategy.name, "authority_id": strategy.authority_id,
        "issuer": strategy.issuer, "idp_sso_target_url": strategy.idp_sso_target_url,
        "idp_cert_fingerprint": strategy.idp_cert_fingerprint, "has_idp_cert": strategy.idp_cert.is_some(),
        "uid_attribute": strategy.uid_attribute, "attribute_statements": strategy.attribute_statements,
        "name_identifier_format": strategy.name_identifier_format,
        "idp_slo_target_url": strategy.idp_slo_target_url,
        "metadata_path": format!("/auth/saml/metadata/{}", strategy.id),
    }))
}
