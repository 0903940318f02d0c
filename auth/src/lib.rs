//! The authentication service: sign-in, sessions, API keys and login events, wire-compatible with the legacy service
//! it replaces (`docs/auth-wire.md` is the contract).
//!
//! A request's path through the code: [`routes`] (one router per protocol) → `tenancy` (the authority named by
//! the host) → [`session`] / `apikey` / `bearer` / `client_auth` (who is calling) → handler → [`store`]
//! (PostgreSQL on the legacy schema, or embedded SQLite), [`tokens`] (RS256 keys and claims) and `events` (Redis
//! PUBLISH, never in the way of a login); issued tokens' rows go through `token_writer` (batched commits).
//! External logins: [`oauth_client`] (OAuth 2.0 / OpenID Connect providers) and [`saml`] (SAML identity providers)
//! hand the identity they verified to `sso`, which links or creates the user and signs them in.
//! Every limit and security choice is explained in the module that makes it.

pub mod admin;
mod apikey;
mod asset_cookie;
mod bearer;
mod cache;
mod client_addr;
mod client_auth;
mod client_metadata;
pub mod config;
mod error;
mod events;
pub mod http_client;
pub mod ids;
pub mod metrics;
pub mod oauth_client;
mod password;
mod provider_keys;
mod redirect;
pub mod routes;
pub mod saml;
pub mod session;
mod shared_counter;
mod sso;
pub mod state;
pub mod store;
mod tenancy;
mod throttle;
mod token_writer;
pub mod tokens;

// What an external login's verification hands over, named in the public signatures of [`oauth_client`] and [`saml`].
pub use sso::{ExternalIdentity, LoginError};
