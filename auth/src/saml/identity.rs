//! Who a verified assertion says signed in: the uid from `uid_attribute` (or the NameID), and email and name from
//! the attributes `attribute_statements` names for them (by `Name` or `FriendlyName`), falling back to the names
//! identity providers commonly use, as the legacy service did.

use samael::schema::Assertion;
use serde_json::Value;

use crate::events::Provider;
use crate::sso::ExternalIdentity;
use crate::store::SamlStrategy;

/// The attribute names looked at for a field `attribute_statements` does not configure.
fn default_names(field: &str) -> &'static [&'static str] {
    match field {
        "email" => &[
            "email",
            "mail",
            "emailAddress",
            "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress",
            "urn:oid:0.9.2342.19200300.100.1.3",
        ],
        "name" => &[
            "name",
            "displayName",
            "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name",
            "urn:oid:2.16.840.1.113730.3.1.241",
        ],
        "first_name" => &[
            "first_name",
            "firstname",
            "firstName",
            "givenName",
            "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname",
        ],
        "last_name" => &[
            "last_name",
            "lastname",
            "lastName",
            "surname",
            "sn",
            "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname",
        ],
        _ => &[],
    }
}

/// The attribute names `field` is read from: the configured ones (a list or one name), else the defaults.
fn names(strategy: &SamlStrategy, field: &str) -> Vec<String> {
    match strategy.attribute_statements.get(field) {
        Some(Value::String(name)) => vec![name.clone()],
        Some(Value::Array(names)) => names
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => default_names(field).iter().map(|n| n.to_string()).collect(),
    }
}

/// The first non-empty value of the first attribute among `names` the assertion carries.
fn attribute(assertion: &Assertion, names: &[String]) -> Option<String> {
    let attributes: Vec<_> = assertion
        .attribute_statements
        .iter()
        .flatten()
        .flat_map(|statement| &statement.attributes)
        .collect();
    names.iter().find_map(|wanted| {
        attributes
            .iter()
            .filter(|a| {
                a.name.as_deref() == Some(wanted) || a.friendly_name.as_deref() == Some(wanted)
            })
            .flat_map(|a| &a.values)
            .filter_map(|v| v.value.as_deref())
            .map(str::trim)
            .find(|v| !v.is_empty())
            .map(str::to_string)
    })
}

/// Why an assertion names nobody.
#[derive(Debug, thiserror::Error)]
pub enum IdentityError {
    #[error("the assertion has no {0} attribute (uid_attribute)")]
    NoUidAttribute(String),
    #[error("the assertion has no NameID and no uid_attribute is set")]
    NoNameId,
}

pub fn identity(
    strategy: &SamlStrategy,
    assertion: &Assertion,
) -> Result<ExternalIdentity, IdentityError> {
    let name_id = assertion
        .subject
        .as_ref()
        .and_then(|s| s.name_id.as_ref())
        .map(|n| n.value.trim().to_string())
        .filter(|v| !v.is_empty());
    let uid = match strategy.uid_attribute.as_deref().filter(|a| !a.is_empty()) {
        Some(uid_attribute) => attribute(assertion, &[uid_attribute.to_string()])
            .ok_or_else(|| IdentityError::NoUidAttribute(uid_attribute.to_string()))?,
        None => name_id.clone().ok_or(IdentityError::NoNameId)?,
    };
    let email = attribute(assertion, &names(strategy, "email")).or_else(|| {
        // A NameID in the email format is the address.
        let format = assertion
            .subject
            .as_ref()?
            .name_id
            .as_ref()?
            .format
            .as_deref()?;
        format
            .ends_with(":emailAddress")
            .then(|| name_id.clone())
            .flatten()
    });
    let name = attribute(assertion, &names(strategy, "name")).or_else(|| {
        let parts: Vec<String> = ["first_name", "last_name"]
            .iter()
            .filter_map(|field| attribute(assertion, &names(strategy, field)))
            .collect();
        (!parts.is_empty()).then(|| parts.join(" "))
    });
    Ok(ExternalIdentity {
        provider: Provider::Saml,
        uid,
        email,
        name,
        name_id: None,
    })
}
