//! The authentication service: sign-in, sessions, API keys and login events, wire-compatible with the legacy service
//! it replaces (`docs/auth-wire.md` is the contract).
//!
//! A request's path through the code: [`routes`] (one router per protocol) → [`tenancy`] (the authority named by
//! the host) → [`session`] / [`apikey`] / [`bearer`] / [`client_auth`] (who is calling) → handler → [`store`]
//! (PostgreSQL on the legacy schema, or embedded SQLite), [`tokens`] (RS256 keys and claims) and [`events`] (Redis
//! PUBLISH, never in the way of a login); issued tokens' rows go through [`token_writer`] (batched commits).
//! External logins: [`oauth_client`] (OAuth 2.0 / OpenID Connect providers) and [`saml`] (SAML identity providers)
//! hand the identity they verified to [`sso`], which links or creates the user and signs them in.
//! Every limit and security choice is explained in the module that makes it.

pub mod admin;
pub mod apikey;
pub mod asset_cookie;
pub mod bearer;
pub mod cache;
pub mod client_addr;
pub mod client_auth;
pub mod client_metadata;
pub mod config;
pub mod error;
pub mod events;
pub mod http_client;
pub mod ids;
pub mod metrics;
pub mod oauth_client;
pub mod password;
pub mod provider_keys;
pub mod redirect;
pub mod routes;
pub mod saml;
pub mod session;
pub mod shared_counter;
pub mod sso;
pub mod state;
pub mod store;
pub mod tenancy;
pub mod throttle;
pub mod token_writer;
pub mod tokens;
