//! GeoIP: the client's country from a MaxMind-format database, and whether that country is admitted.
//!
//! The database is read whole into memory when the controls are built (a Country database is a few MB), so a
//! lookup never touches the disk and a file replaced on disk cannot change under a lookup; the reloader builds
//! a new reader when the file changes (`reload.rs`).
use crate::config::{GeoipConfig, UnknownCountry};
use maxminddb::{PathElement, Reader};
use std::net::IpAddr;
use std::path::Path;
use std::sync::Arc;

pub type Database = Arc<Reader<Vec<u8>>>;

/// Opens a database, refusing a file that is not one (with the reason).
pub fn open(path: &Path) -> Result<Database, maxminddb::MaxMindDbError> {
    Reader::open_readfile(path).map(Arc::new)
}

/// A two-letter country code, or none: the codes are what the metric's `country` label takes, so anything else a
/// database might hold is treated as unknown rather than becoming a label value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Country([u8; 2]);

impl Country {
    pub fn as_str(&self) -> &str {
        // Only ASCII letters are ever stored.
        std::str::from_utf8(&self.0).unwrap_or("??")
    }

    fn parse(code: &str) -> Option<Country> {
        match code.as_bytes() {
            [a, b] if a.is_ascii_alphabetic() && b.is_ascii_alphabetic() => {
                Some(Country([a.to_ascii_uppercase(), b.to_ascii_uppercase()]))
            }
            _ => None,
        }
    }
}

/// The country of `ip` (`country.iso_code`, as in GeoIP2/GeoLite2 Country and City databases). An address not
/// in the database, a record without a country, or a record the reader cannot decode gives none.
pub fn country(db: &Reader<Vec<u8>>, ip: IpAddr) -> Option<Country> {
    let found = db.lookup(ip.to_canonical()).ok()?;
    let code: Option<&str> = found
        .decode_path(&[PathElement::Key("country"), PathElement::Key("iso_code")])
        .ok()?;
    code.and_then(Country::parse)
}

/// The GeoIP rule of one scope (global or a domain).
pub struct GeoPolicy {
    pub db: Database,
    allow: Vec<Country>,
    deny: Vec<Country>,
    unknown: UnknownCountry,
}

impl GeoPolicy {
    pub fn new(config: &GeoipConfig, db: Database) -> GeoPolicy {
        let codes = |list: &[String]| list.iter().filter_map(|c| Country::parse(c)).collect();
        GeoPolicy {
            db,
            allow: codes(&config.allow_countries),
            deny: codes(&config.deny_countries),
            unknown: config.unknown,
        }
    }

    /// `Ok` when `ip` is admitted; else the country that was refused (`None`: no country known).
    pub fn check(&self, ip: IpAddr) -> Result<(), Option<Country>> {
        match country(&self.db, ip) {
            None => match self.unknown {
                UnknownCountry::Allow => Ok(()),
                UnknownCountry::Deny => Err(None),
            },
            // Deny wins over allow.
            Some(c) if self.deny.contains(&c) => Err(Some(c)),
            Some(c) if !self.allow.is_empty() && !self.allow.contains(&c) => Err(Some(c)),
            Some(_) => Ok(()),
        }
    }
}
