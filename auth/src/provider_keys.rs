//! The issuer and signing keys of each external OpenID provider whose access tokens the token exchange accepts,
//! fetched from its discovery document and JWKS and kept for [`TTL`], so an exchange costs no request to the
//! provider. A token signed with a key we do not hold (the provider rotated) triggers one refetch, at most every
//! [`REFETCH_PAUSE`], so forged `kid`s cannot make us hammer the provider. A provider that cannot be reached is
//! remembered as such for the same pause. Entries are per provider site, so the map is bounded by the strategies
//! that exist.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::JwkSet;
use serde_json::Value;
use url::Url;

use crate::oauth_client::id_token;
use crate::oauth_client::transport::Transport;
use crate::state::AppState;
use crate::store::OAuthStrategy;

/// Providers rotate keys rarely and keep the old one listed for a while; ten minutes bounds how long a removed key
/// is still believed.
const TTL: Duration = Duration::from_secs(600);
/// The least time between two fetches for one provider.
const REFETCH_PAUSE: Duration = Duration::from_secs(30);

pub struct Keys {
    pub issuer: String,
    pub jwks: JwkSet,
}

/// What is known of one provider: its keys (or that it failed) and when that was learnt.
struct Entry {
    at: Instant,
    keys: Option<Arc<Keys>>,
}

#[derive(Default)]
pub struct ProviderKeys {
    entries: Mutex<HashMap<String, Entry>>,
}

impl ProviderKeys {
    /// The provider's keys, from the cache or fetched now; `None` when the strategy names no site or the provider
    /// cannot be reached (logged).
    pub async fn of(&self, state: &AppState, strategy: &OAuthStrategy) -> Option<Arc<Keys>> {
        let site = strategy.site.as_deref()?;
        {
            let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(entry) = entries.get(site) {
                let fresh = match entry.keys {
                    Some(_) => entry.at.elapsed() < TTL,
                    None => entry.at.elapsed() < REFETCH_PAUSE,
                };
                if fresh {
                    return entry.keys.clone();
                }
            }
        }
        self.fetch(state, site).await
    }

    async fn fetch(&self, state: &AppState, site: &str) -> Option<Arc<Keys>> {
        let transport = Transport {
            http: state.http.clone(),
            timeout: state.config.sso_provider_timeout,
        };
        let fetched = match Url::parse(site) {
            Ok(url) => id_token::provider_keys(&transport, &url).await,
            Err(e) => Err(id_token::IdTokenError::Site(e)),
        };
        let keys = match fetched {
            Ok((issuer, jwks)) => Some(Arc::new(Keys { issuer, jwks })),
            Err(why) => {
                tracing::warn!(%site, reason = %why, "provider keys not fetched");
                None
            }
        };
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries.insert(
            site.to_string(),
            Entry {
                at: Instant::now(),
                keys: keys.clone(),
            },
        );
        keys
    }

    /// The verified claims of `token` under `keys` (audience: the strategy's client id); when no key matches and
    /// the keys are older than [`REFETCH_PAUSE`], once more with freshly fetched keys.
    pub async fn decode(
        &self,
        state: &AppState,
        strategy: &OAuthStrategy,
        keys: &Keys,
        token: &str,
    ) -> Result<Value, id_token::IdTokenError> {
        let first = id_token::decode(token, &keys.jwks, &keys.issuer, &strategy.client_id);
        let unknown_kid = matches!(&first, Err(id_token::IdTokenError::UnknownKid));
        let site = strategy.site.as_deref().unwrap_or_default();
        let stale = {
            let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
            entries
                .get(site)
                .is_none_or(|e| e.at.elapsed() >= REFETCH_PAUSE)
        };
        if !(unknown_kid && stale) {
            return first;
        }
        match self.fetch(state, site).await {
            Some(fresh) if fresh.issuer == keys.issuer => {
                id_token::decode(token, &fresh.jwks, &fresh.issuer, &strategy.client_id)
            }
            _ => first,
        }
    }
}
