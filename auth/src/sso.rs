//! How every external login ends, whichever protocol vouched for the identity (OAuth 2.0 or SAML): the user is
//! found through its link (`authentication`, the legacy UserAuthLookup), or else by email in the authority, or else
//! created; the link is stored; then the new session and the login event, as for a password sign-in. This is the
//! login logic only: it returns results ([`SignedIn`], [`LoginError`]), and the routes
//! (`routes/external_login.rs`) answer with the redirect, or on a failure with `/auth/failure`, its reason in the
//! log only (never a provider's secret or a code).
//!
//! Matching an existing user by email trusts the provider's word for the address: an operator registers a strategy
//! only for a provider that owns its users' addresses, and `ensure_matching` can pin them to the authority's domains.

use std::time::Instant;

use chrono::Utc;

use crate::events::Provider;
use crate::session::Session;
use crate::state::AppState;
use crate::store::{NewUser, OAuthStrategy, SamlStrategy, Store, StoreError, User, UserAuthLookup};
use crate::tenancy::Tenant;

/// An external uid longer than this is not an identifier we store (it becomes part of the link's id).
const MAX_UID_LEN: usize = 256;
/// RFC 5321's limit on a forward path, the longest address a mail system accepts.
const MAX_EMAIL_LEN: usize = 254;
const MAX_NAME_LEN: usize = 256;

/// Strategy ids are ours (hex) or legacy text ids; anything else is not an id and is refused before a query.
const MAX_STRATEGY_ID_LEN: usize = 128;

pub fn valid_strategy_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= MAX_STRATEGY_ID_LEN
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// A strategy row (`oauth_strat`, `adfs_strat`): it serves one authority. Implemented here, for the store's
/// rows: the login flow reads the data layer, never the other way round.
pub trait StrategyRow {
    fn authority_id(&self) -> &str;
}

impl StrategyRow for OAuthStrategy {
    fn authority_id(&self) -> &str {
        &self.authority_id
    }
}

impl StrategyRow for SamlStrategy {
    fn authority_id(&self) -> &str {
        &self.authority_id
    }
}

/// `id` if it can be a strategy id, else the refusal (before any query).
pub fn checked_strategy_id(id: &str) -> Result<&str, LoginError> {
    if valid_strategy_id(id) {
        Ok(id)
    } else {
        Err(LoginError::refused("invalid strategy id"))
    }
}

/// The strategy `id` found (`row`) if it belongs to the tenant's authority: a tenant never signs its users in
/// through another tenant's provider.
pub fn own_strategy<S: StrategyRow>(
    tenant: &Tenant,
    id: &str,
    row: Option<S>,
) -> Result<S, LoginError> {
    match row {
        Some(s) if s.authority_id() == tenant.authority.id => Ok(s),
        Some(_) => Err(LoginError::refused(format!(
            "strategy {id} belongs to another authority"
        ))),
        None => Err(LoginError::refused(format!("no strategy {id}"))),
    }
}

/// Who the provider says signed in.
#[derive(Clone, Debug, PartialEq)]
pub struct ExternalIdentity {
    pub provider: Provider,
    /// The provider's stable identifier of the user.
    pub uid: String,
    pub email: Option<String>,
    pub name: Option<String>,
    /// SAML's NameID, kept in the session so a single logout can name the user to the identity provider.
    pub name_id: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum LoginError {
    /// The login is refused; the reason goes to the log.
    #[error("{0}")]
    Refused(String),
    /// A SAML response is refused.
    #[error(transparent)]
    Saml(#[from] crate::saml::SamlError),
    /// An OpenID Connect provider's ID token is refused.
    #[error("ID token: {0}")]
    IdToken(#[from] crate::oauth_client::id_token::IdTokenError),
    /// The provider's profile fails the strategy's `ensure_matching`.
    #[error(transparent)]
    Profile(#[from] crate::oauth_client::profile::ProfileError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl LoginError {
    pub fn refused(reason: impl Into<String>) -> Self {
        LoginError::Refused(reason.into())
    }
}

/// A completed external login: the new session and where the browser goes next.
pub struct SignedIn {
    pub session: Session,
    /// The `continue` of the session the login started in, else `/`.
    pub continue_to: String,
}

/// Signs in the user `identity` names in `tenant`'s authority, replacing `session` (whose `continue` is kept as the
/// destination); the routes answer 303 to that destination with the new session cookie.
pub async fn sign_in(
    state: &AppState,
    tenant: &Tenant,
    session: &Session,
    identity: ExternalIdentity,
    started: Instant,
) -> Result<SignedIn, LoginError> {
    let user = linked_user(state.store.as_ref(), &tenant.authority.id, &identity).await?;
    state.store.record_login(&user.id, Utc::now()).await?;
    state.events.publish(&user.id, identity.provider);
    crate::metrics::login(identity.provider.as_str(), "success", started.elapsed());
    tracing::info!(user_id = %user.id, provider = identity.provider.as_str(), "signed in");
    let minutes = state.session_minutes(&tenant.authority);
    // A new session (new id) rather than the pending one upgraded: see session.rs on fixation.
    let mut signed_in = Session::new(&tenant.authority, Some(user.id), minutes);
    signed_in.name_id = identity.name_id;
    Ok(SignedIn {
        session: signed_in,
        continue_to: session.continue_to.as_deref().unwrap_or("/").to_string(),
    })
}

/// The user `identity` is linked to, or the one with its email (linked now), or a new one (linked now).
async fn linked_user(
    store: &dyn Store,
    authority_id: &str,
    identity: &ExternalIdentity,
) -> Result<User, LoginError> {
    let uid = identity.uid.trim();
    if uid.is_empty() || uid.len() > MAX_UID_LEN {
        return Err(LoginError::refused(
            "the provider named no usable uid (empty or too long)",
        ));
    }
    let provider = identity.provider.as_str();
    let link_id = UserAuthLookup::id_for(authority_id, provider, uid);
    if let Some(link) = store.user_auth_lookup(&link_id).await? {
        return match store.user_by_id(&link.user_id).await? {
            Some(user) if user.authority_id == authority_id && !user.deleted => Ok(user),
            Some(_) => Err(LoginError::refused("the linked user is deleted")),
            None => Err(LoginError::refused("the linked user no longer exists")),
        };
    }
    let email = identity
        .email
        .as_deref()
        .map(|e| e.trim().to_lowercase())
        .filter(|e| e.contains('@') && e.len() <= MAX_EMAIL_LEN)
        .ok_or_else(|| {
            LoginError::refused("the provider named no email for a user not yet linked")
        })?;
    let user = match store.user_by_email(authority_id, &email).await? {
        Some(user) if user.deleted => {
            return Err(LoginError::refused("the user with this email is deleted"));
        }
        Some(user) => user,
        None => {
            let new = NewUser {
                id: crate::ids::new_id(),
                authority_id: authority_id.to_string(),
                name: identity
                    .name
                    .as_deref()
                    .map(str::trim)
                    .filter(|n| !n.is_empty() && n.len() <= MAX_NAME_LEN)
                    .map(str::to_string),
                email,
                // Signs in through its provider only.
                password_digest: None,
                sys_admin: false,
                support: false,
            };
            store.insert_user(&new).await?;
            tracing::info!(user_id = %new.id, provider, "user created by an external login");
            store
                .user_by_id(&new.id)
                .await?
                .ok_or_else(|| LoginError::refused("the new user cannot be read back"))?
        }
    };
    store
        .insert_user_auth_lookup(&UserAuthLookup {
            id: link_id,
            uid: uid.to_string(),
            provider: provider.to_string(),
            user_id: user.id.clone(),
            authority_id: authority_id.to_string(),
        })
        .await?;
    Ok(user)
}
