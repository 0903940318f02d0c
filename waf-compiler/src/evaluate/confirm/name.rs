//! Where a phrase is a whole name. CRS's phrase lists (`pm`) match inside words: `$PATH` in PostHog's
//! `$pathname`, `bin/ar` in `bin/archive`. A name runs as long as its name characters do.

use crate::operator::{continues_name, is_name_byte};
use std::ops::Range;

/// Whether the parameter `name` is `base`, or ends with it after one of `separators` (`post_logout_redirect_uri`,
/// `sql_query`, a JSON member's path `json.jql`), case-insensitively.
pub fn ends_with_name(name: &[u8], base: &[u8], separators: &[u8]) -> bool {
    let n = base.len();
    name.len() >= n
        && name[name.len() - n..].eq_ignore_ascii_case(base)
        && (name.len() == n || separators.contains(&name[name.len() - n - 1]))
}

/// The last part of the parameter `name`: after a JSON member path's `.` or a form's brackets (`json.regs.ext.
/// us_privacy` → `us_privacy`, `user[password]` → `password`).
pub fn last_part(name: &[u8]) -> &[u8] {
    name.rsplit(|&b| matches!(b, b'.' | b'[' | b']'))
        .find(|part| !part.is_empty())
        .unwrap_or(name)
}

/// Where the run of letters and digits that `at` is in or ends starts in `value`.
pub fn word_start(value: &[u8], at: usize) -> usize {
    value[..at]
        .iter()
        .rposition(|b| !b.is_ascii_alphanumeric())
        .map_or(0, |before| before + 1)
}

/// The last part of a JSON member's path `name` (after its last `.`) that is no array index: an element of an
/// array has its array's name (`queries.1` of Jira's `/jql/parse`, `cors.allowedOrigins.2`).
pub fn member_name(name: &[u8]) -> &[u8] {
    name.rsplit(|&b| b == b'.')
        .find(|part| !part.iter().all(u8::is_ascii_digit))
        .unwrap_or(name)
}

/// Whether the parameter `name`'s last part says its value is HTML: `html`, `headHtml`, `body_html`, `HTMLBody`.
pub fn says_html(name: &[u8]) -> bool {
    memchr::memmem::find(&last_part(name).to_ascii_lowercase(), b"html").is_some()
}

/// Whether the parameter `name`'s last part says its value is Markdown: `markdown`, `body_markdown`,
/// `contentMarkdown`.
pub fn says_markdown(name: &[u8]) -> bool {
    memchr::memmem::find(&last_part(name).to_ascii_lowercase(), b"markdown").is_some()
}

/// Whether the parameter `name`'s last part says its value is a URL: `url`, `returnUrl`, `_xfRequestUri`.
pub fn says_url(name: &[u8]) -> bool {
    let last = last_part(name);
    last.len() >= 3 && {
        let end = &last[last.len() - 3..];
        end.eq_ignore_ascii_case(b"url") || end.eq_ignore_ascii_case(b"uri")
    }
}

/// Why the pattern's `hit` in `value` is not the word it looks for: a name character ends the hit and another
/// follows it (`$path` of `$pathname`, a key every PostHog event carries; `bin/ar` of `bin/archive`), so the
/// shell reads a longer variable or file name. A hit ending in punctuation (`bin/aa-`) is a prefix on purpose.
pub fn inside_longer_name(value: &[u8], hit: Range<usize>) -> Option<String> {
    if !continues_name(value, hit.end) {
        return None;
    }
    let longer = value[hit.end..]
        .iter()
        .take_while(|b| is_name_byte(b))
        .count();
    Some(format!(
        "`{}` is the start of the longer name `{}`",
        String::from_utf8_lossy(value.get(hit.clone())?),
        String::from_utf8_lossy(&value[hit.start..hit.end + longer])
    ))
}

/// Why the name the pattern's `hit` found in `value` is not that function's: it lies inside a longer identifier,
/// name characters (letters, digits, `_`) on both sides of it and at both its ends (`session_start` of
/// `wc_order_attribution_session_start_time`, a field of WooCommerce's checkout), which PHP reads as another
/// name. CRS's lists also hold beginnings of names to match on purpose (`odbc_connect` of
/// `odbc_connection_string_should_quote`, `.sql.z` of `backup.sql.zip`): a hit where a name starts counts, and
/// so does a longer name that is called (`tidy_parse_string()`: a function of PHP's all the same).
pub fn inside_identifier(value: &[u8], hit: Range<usize>) -> Option<String> {
    let matched = value.get(hit.clone())?;
    let inside = matched.first().is_some_and(is_name_byte)
        && value
            .get(hit.start.checked_sub(1)?)
            .is_some_and(is_name_byte)
        && continues_name(value, hit.end);
    let end = value[hit.end..]
        .iter()
        .position(|b| !is_name_byte(b))
        .map_or(value.len(), |at| hit.end + at);
    let called = value[end..].trim_ascii_start().first() == Some(&b'(');
    (inside && !called).then(|| {
        let start = value[..hit.start]
            .iter()
            .rposition(|b| !is_name_byte(b))
            .map_or(0, |at| at + 1);
        format!(
            "`{}` lies inside the longer name `{}`",
            String::from_utf8_lossy(matched),
            String::from_utf8_lossy(&value[start..end])
        )
    })
}

/// Why the command the pattern's `hit` found in `value` is not one: the hit starts with a letter that follows
/// another letter, so the word it starts inside is longer (`env` of `dotenv`, `Next.js dotenv file loading`;
/// `ls` of `tools`). The shell reads a command's name from where its word starts; a separator, a quote or a
/// blank before it (`;env`, `"env"`) is where an injected one starts.
pub fn starts_inside_word(value: &[u8], hit: Range<usize>) -> Option<String> {
    let first = *value.get(hit.start)?;
    let before = *value.get(hit.start.checked_sub(1)?)?;
    if !(first.is_ascii_alphabetic() && before.is_ascii_alphabetic()) {
        return None;
    }
    let start = word_start(value, hit.start);
    let end = value[hit.start..]
        .iter()
        .position(|b| !b.is_ascii_alphanumeric())
        .map_or(value.len(), |at| hit.start + at);
    Some(format!(
        "`{}` starts inside the word `{}`",
        String::from_utf8_lossy(&value[hit.start..end]),
        String::from_utf8_lossy(&value[start..end])
    ))
}

/// Why the command the pattern's `hit` found in `value` is not one: the value, as sent (`raw`) and as the rule's
/// transforms left it, is a relative name of parts joined by `/` (a branch, `feature/export-csv`; a slug,
/// `docs/get-started`; [`is_relative_name`]) or such a name under a root directory that is none of the
/// system's (an API's route as a batch names it, WooCommerce's `/wc/store/v1/cart/remove-item`;
/// [`SYSTEM_DIRECTORIES`]), and the hit starts a part after the first. The shell would look for such a program
/// under the directory the name starts with; an injected command is written alone, after a separator, or with
/// the absolute path of a system directory (`/bin/cat`, `/usr/bin/id`).
pub fn part_of_relative_name(raw: &[u8], value: &[u8], hit: Range<usize>) -> Option<String> {
    let after_slash = hit.start > 1 && value.get(hit.start - 1) == Some(&b'/');
    let phrase = value.get(hit)?;
    (after_slash && is_name_of_parts(raw) && is_name_of_parts(value)).then(|| {
        format!(
            "`{}` is a part of the name `{}` (a branch, a slug, a route): no command's path",
            String::from_utf8_lossy(phrase),
            String::from_utf8_lossy(value)
        )
    })
}

/// The root's directories of a Unix system, where the programs an injected command runs live or are put.
const SYSTEM_DIRECTORIES: &[&[u8]] = &[
    b"bin", b"boot", b"dev", b"etc", b"home", b"lib", b"lib32", b"lib64", b"libx32", b"media",
    b"mnt", b"opt", b"proc", b"root", b"run", b"sbin", b"srv", b"sys", b"tmp", b"usr", b"var",
];

/// A relative name ([`is_relative_name`]), or one under `/` whose first part is none of the
/// [`SYSTEM_DIRECTORIES`] (compared without regard to case).
fn is_name_of_parts(value: &[u8]) -> bool {
    match value.strip_prefix(b"/") {
        Some(rest) => {
            let first = rest.split(|&b| b == b'/').next().unwrap_or_default();
            is_relative_name(rest)
                && !SYSTEM_DIRECTORIES
                    .iter()
                    .any(|dir| first.eq_ignore_ascii_case(dir))
        }
        None => is_relative_name(value),
    }
}

/// Name characters (letters, digits, `_`, `-`, `.`) in parts joined by `/`, none of them empty, `.` or `..`: no
/// blank, no absolute path, no climb.
fn is_relative_name(value: &[u8]) -> bool {
    value.split(|&b| b == b'/').all(|part| {
        !part.is_empty()
            && part != b"."
            && part != b".."
            && part
                .iter()
                .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
    })
}

/// Why the hidden file's name the pattern's `hit` found in `value` (`.profile`, `.env`, `.htaccess`) is not that
/// file: a name character comes before it, so it is the last part of a dotted name (`user.v1.Profile`, the
/// path of a gRPC service; `Jenkinsfile.env`), not a name of its own. A phrase with a second dot or a slash
/// (`.sql.gz`, `.git/`, `.aws/`) is a suffix or a directory and counts wherever it is.
pub fn dotted_name_part(value: &[u8], hit: Range<usize>) -> Option<String> {
    let phrase = value.get(hit.clone())?;
    let (&b'.', rest) = phrase.split_first()? else {
        return None;
    };
    let before = *value.get(hit.start.checked_sub(1)?)?;
    let part = !rest.contains(&b'.')
        && !rest.contains(&b'/')
        && (before.is_ascii_alphanumeric() || matches!(before, b'_' | b'-'));
    let start = value[..hit.start]
        .iter()
        .rposition(|&b| b == b'/')
        .map_or(0, |slash| slash + 1);
    part.then(|| {
        format!(
            "`{}` ends the dotted name `{}`, not a hidden file's own name",
            String::from_utf8_lossy(phrase),
            String::from_utf8_lossy(&value[start..hit.end])
        )
    })
}

/// Why the file name the pattern's `hit` found in `value` (`config.json`, `debug.log`) is not that file: the phrase
/// starts with a letter or a digit, has an extension, and a name character comes before it, so it ends a longer
/// file name
/// (`ryanair.chat-config.json`, `app-debug.log`), another file. A phrase with a slash (`proc/self`, `WEB-INF/`)
/// names a directory and counts wherever it is; one starting with `.` is judged by [`dotted_name_part`].
pub fn longer_file_name(value: &[u8], hit: Range<usize>) -> Option<String> {
    let phrase = value.get(hit.clone())?;
    if !phrase.first()?.is_ascii_alphanumeric() || !phrase.contains(&b'.') || phrase.contains(&b'/')
    {
        return None;
    }
    let before = *value.get(hit.start.checked_sub(1)?)?;
    if !is_file_name_byte(before) {
        return None;
    }
    let start = value[..hit.start]
        .iter()
        .rposition(|&b| matches!(b, b'/' | b'\\'))
        .map_or(0, |slash| slash + 1);
    Some(format!(
        "`{}` ends the longer file name `{}`, another file",
        String::from_utf8_lossy(phrase),
        String::from_utf8_lossy(&value[start..hit.end])
    ))
}

/// Why the `.git/` the pattern's `hit` found in the path `value` is no repository's directory laid open: it ends
/// a repository's name (`/group/project.git/`, as Git servers name the repositories `git clone` is pointed at)
/// and what follows is an endpoint of Git's smart HTTP protocol, which a Git server answers and a static file
/// server has no file for: `git-upload-pack` and `git-receive-pack` (fetch and push), and `info/refs` asked for
/// with a `service` (`target`'s query names `git-upload-pack` or `git-receive-pack`). A `.git/` after a slash
/// (`/.git/config`), or followed by a repository's own files (`HEAD`, `config`, `objects/...`), still counts.
pub fn git_endpoint(target: &str, value: &[u8], hit: Range<usize>) -> Option<String> {
    if value.get(hit.clone())? != b".git/"
        || !is_file_name_byte(*value.get(hit.start.checked_sub(1)?)?)
    {
        return None;
    }
    let endpoint = &value[hit.end..];
    let service = || {
        target.split_once('?').is_some_and(|(_, query)| {
            query
                .split('&')
                .any(|pair| matches!(pair, "service=git-upload-pack" | "service=git-receive-pack"))
        })
    };
    let smart = matches!(endpoint, b"git-upload-pack" | b"git-receive-pack")
        || (endpoint == b"info/refs" && service());
    smart.then(|| {
        format!(
            "`{}` is an endpoint of Git's smart HTTP protocol under a repository's name, not a `.git` directory's file",
            String::from_utf8_lossy(endpoint)
        )
    })
}

/// Why the file or directory name the pattern's `hit` found in `value` (`.tools/`, `.git/`) is not one: the
/// phrase starts inside the host of an `http(s)` URL, the whole value or one written in it (a Markdown link's
/// `](https://thresh.tools/)`), where it is a label of a domain name (`https://lti.tools/launch`), a site rather
/// than a file the request reads.
pub fn in_url_host(value: &[u8], hit: Range<usize>) -> Option<String> {
    let phrase = value.get(hit.clone())?;
    // The URL is the run of URL characters the phrase is in: RFC 3986 has no blank, quote, angle bracket,
    // parenthesis or backquote (a link's text and its brackets stand around it).
    let ends_url = |b: &u8| b.is_ascii_whitespace() || b"\"'<>()[]{}|\\^`".contains(b);
    let start = value
        .get(..hit.start)?
        .iter()
        .rposition(ends_url)
        .map_or(0, |at| at + 1);
    let url = &value[start..];
    // A rule's path normalisation may have collapsed the scheme's `//` (`https:/lti.tools/...`).
    let scheme = start
        + [b"http://".as_slice(), b"https://", b"http:/", b"https:/"]
            .into_iter()
            .find(|scheme| {
                url.len() > scheme.len() && url[..scheme.len()].eq_ignore_ascii_case(scheme)
            })?
            .len();
    let host_end = scheme
        + value[scheme..]
            .iter()
            .position(|b| matches!(b, b'/' | b'?' | b'#') || ends_url(b))
            .unwrap_or(value.len() - scheme);
    let host = &value[scheme..host_end];
    let plain_host = host
        .iter()
        .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b':'));
    (phrase.first() == Some(&b'.') && plain_host && (scheme..host_end).contains(&hit.start)).then(
        || {
            format!(
                "`{}` starts in the host name `{}` of a URL: a site, not a file",
                String::from_utf8_lossy(phrase),
                String::from_utf8_lossy(host)
            )
        },
    )
}

/// Why the file name the pattern's `hit` found in `value` is not the file an application would open: it comes
/// after other words and a blank, in a value without a path separator (`Update package.json`, `Adding a
/// .gitignore file`: an issue's or a commit's title), so the path the value names is the whole phrase, a file of
/// another name. A name that starts the value, or one in a path, still counts.
pub fn file_name_after_words(value: &[u8], hit: Range<usize>) -> Option<String> {
    let phrase = value.get(hit.clone())?;
    let file_name = phrase.contains(&b'.') && phrase.iter().all(|&b| is_file_name_byte(b));
    let after_words = hit.start > 0
        && value[hit.start - 1].is_ascii_whitespace()
        && value[..hit.start].iter().any(u8::is_ascii_alphanumeric);
    (file_name && after_words && !value.iter().any(|&b| matches!(b, b'/' | b'\\'))).then(|| {
        format!(
            "`{}` follows other words: the value names the file `{}`, not that one",
            String::from_utf8_lossy(phrase),
            String::from_utf8_lossy(value.trim_ascii())
        )
    })
}

/// Why the word the pattern's `hit` found in `value` (941130's `xhtml`) is a file's extension, not markup: it
/// follows a file name and its dot and ends the name (`/app/orders.xhtml`, every page of a JavaServer Faces
/// application; `?next=/app/orders.xhtml`). An attribute or a namespace goes on with `=` or `:`, which no
/// extension is followed by.
pub fn file_extension(value: &[u8], hit: Range<usize>) -> Option<String> {
    let phrase = value.get(hit.clone())?;
    let lead = phrase
        .iter()
        .take_while(|b| !b.is_ascii_alphanumeric())
        .count();
    let word = &phrase[lead..];
    let start = hit.start + lead;
    let extension = !word.is_empty() && word.iter().all(u8::is_ascii_alphanumeric);
    let after_dot = start >= 2 && value[start - 1] == b'.' && is_file_name_byte(value[start - 2]);
    let ends_name = value.get(hit.end).is_none_or(|&b| {
        matches!(b, b'/' | b'?' | b'#' | b';' | b'&' | b',') || b.is_ascii_whitespace()
    });
    (extension && after_dot && ends_name).then(|| {
        let name_start = value[..start]
            .iter()
            .rposition(|&b| matches!(b, b'/' | b'\\' | b'=') || b.is_ascii_whitespace())
            .map_or(0, |at| at + 1);
        format!(
            "`{}` is the extension of the file name `{}`",
            String::from_utf8_lossy(word),
            String::from_utf8_lossy(&value[name_start..hit.end])
        )
    })
}

/// A byte of a file name's usual alphabet: letters, digits, `_`, `-` and `.`.
fn is_file_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')
}

/// A byte of a host name: letters, digits, `.` and `-`.
fn is_host_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-')
}

/// Why the pattern's `hit` in `value` is no evidence: it lies inside the host name of a URL written in the value
/// (`ep=https://www.northwind.example/` of a referrer cookie, `dev.mysql.com` in a link), where only letters,
/// digits, dots and hyphens can stand: a site's name, in which no language's injection can be written.
pub fn within_host(value: &[u8], hit: Range<usize>) -> Option<String> {
    let before = value.get(..hit.start)?;
    let scheme_end = memchr::memmem::rfind(before, b"://")?;
    let scheme = before[..scheme_end]
        .iter()
        .rev()
        .take_while(|b| b.is_ascii_alphabetic())
        .count();
    let host = &value[scheme_end + 3..hit.end];
    let in_host =
        scheme >= 2 && hit.start > scheme_end + 2 && host.iter().all(|&b| is_host_byte(b));
    in_host.then(|| {
        let end = value[hit.end..]
            .iter()
            .position(|&b| !is_host_byte(b))
            .map_or(value.len(), |n| hit.end + n);
        format!(
            "`{}` is part of the host name `{}` of a URL: a site's name",
            String::from_utf8_lossy(&value[hit.clone()]),
            String::from_utf8_lossy(&value[scheme_end + 3..end])
        )
    })
}

/// Why `value` is no evidence for the pattern's hit: the whole value is a network address, a host name and its
/// port (`api.northwind.example:443`, as a browser agent reports the host an XHR went to, `db.internal:5432` in a
/// configuration): only letters, digits, dots, hyphens and a port number, in which no language's injection can be
/// written. (A dotted name without a port stays a fragment: `mysql.db` names a table.)
pub fn host_and_port(value: &[u8]) -> Option<String> {
    let colon = value.iter().rposition(|&b| b == b':')?;
    let (host, port) = (&value[..colon], &value[colon + 1..]);
    let labels = || host.split(|&b| b == b'.');
    let is_host = labels().count() >= 2
        && labels().all(|label| {
            !label.is_empty()
                && label.iter().all(|&b| is_host_byte(b) && b != b'.')
                && !label.starts_with(b"-")
                && !label.ends_with(b"-")
        });
    let is_port = (1..=5).contains(&port.len()) && port.iter().all(u8::is_ascii_digit);
    (is_host && is_port).then(|| {
        format!(
            "the value is a host and its port (`{}`): a network address",
            String::from_utf8_lossy(value)
        )
    })
}

/// Steps up a directory tree that make a path climb out of where it is put: relative paths of text and code
/// climb one or two (`../images/logo.png`); a traversal climbs as far as it can.
const TRAVERSAL_STEPS: usize = 3;

/// Why `value` climbs out of a directory: [`TRAVERSAL_STEPS`] or more `../` or `..\` steps in a row. A sentence
/// put before them hides nothing: an application that joins the value to a path, and normalises it as PHP's
/// `include` does, climbs past the sentence's own name.
pub fn traversal(value: &[u8]) -> Option<String> {
    let (mut steps, mut most, mut i) = (0usize, 0usize, 0usize);
    while i < value.len() {
        if value[i..].starts_with(b"../") || value[i..].starts_with(b"..\\") {
            steps += 1;
            most = most.max(steps);
            i += 3;
        } else {
            steps = 0;
            i += 1;
        }
    }
    (most >= TRAVERSAL_STEPS).then(|| format!("a path climbing {most} directories"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_git_servers_endpoints_under_a_repositorys_name_are_no_leak() {
        let judged = |target: &str, path: &[u8]| {
            let at = memchr::memmem::find(path, b".git/").expect("the hit is in the path");
            git_endpoint(target, path, at..at + 5).is_some()
        };
        assert!(judged(
            "/g/api.git/git-upload-pack",
            b"/g/api.git/git-upload-pack"
        ));
        assert!(judged(
            "/g/api.git/git-receive-pack",
            b"/g/api.git/git-receive-pack"
        ));
        assert!(judged(
            "/g/api.git/info/refs?service=git-upload-pack",
            b"/g/api.git/info/refs"
        ));
        assert!(!judged("/g/api.git/info/refs", b"/g/api.git/info/refs"));
        assert!(!judged("/.git/git-upload-pack", b"/.git/git-upload-pack"));
        assert!(!judged("/g/api.git/config", b"/g/api.git/config"));
        assert!(!judged("/g/api.git/HEAD", b"/g/api.git/HEAD"));
        assert!(!judged(
            "/g/api.git/objects/info/packs",
            b"/g/api.git/objects/info/packs"
        ));
    }

    #[test]
    fn a_part_of_a_relative_name_is_no_command() {
        let branch = b"feature/export-csv";
        assert!(part_of_relative_name(branch, branch, 8..18).is_some());
        assert!(part_of_relative_name(b"cat /etc/pa\\ssw\\d", b"cat/etc/passwd", 4..14).is_none());
        assert!(part_of_relative_name(b"/bin/cat", b"/bin/cat", 5..8).is_none());
        let route = b"/wc/store/v1/cart/remove-item";
        assert!(part_of_relative_name(route, route, 18..29).is_some());
        assert!(part_of_relative_name(b"/USR/bin/id", b"/USR/bin/id", 9..11).is_none());
        assert!(part_of_relative_name(b"/remove-item", b"/remove-item", 1..12).is_none());
        assert!(part_of_relative_name(b"/a/b;id", b"/a/b;id", 5..7).is_none());
        assert!(part_of_relative_name(b"../bin/id", b"../bin/id", 7..9).is_none());
    }

    #[test]
    fn a_function_inside_a_longer_identifier_is_another() {
        let field = b"wc_order_attribution_session_start_time=2024";
        assert!(inside_identifier(field, 21..34).is_some());
        assert!(inside_identifier(b"odbc_connection_string(", 0..12).is_none());
        assert!(inside_identifier(b"backup.sql.zip", 6..12).is_none());
        assert!(inside_identifier(b"x=session_start()", 2..15).is_none());
        assert!(inside_identifier(b"tidy_parse_string()", 5..14).is_none());
    }

    #[test]
    fn a_command_starts_where_its_word_does() {
        assert!(starts_inside_word(b"Next.js dotenv file loading", 11..20).is_some());
        assert!(starts_inside_word(b"x;env file", 2..10).is_none());
        assert!(starts_inside_word(b"env file", 0..8).is_none());
        assert!(starts_inside_word(b"a 'env' b", 3..6).is_none());
    }

    #[test]
    fn an_extension_ends_a_file_name() {
        assert!(file_extension(b"/app/orders.xhtml", 11..17).is_some());
        assert!(file_extension(b"/app/orders.xhtml?page=2", 11..17).is_some());
        assert!(file_extension(b"<a xlink:href=x>", 2..13).is_none());
        assert!(file_extension(b"<svg x.xmlns=x>", 5..12).is_none());
        assert!(file_extension(b"/a/.xhtml", 3..9).is_none());
    }

    #[test]
    fn a_file_name_after_words_is_another_file() {
        assert!(file_name_after_words(b"Update package.json", 7..19).is_some());
        assert!(file_name_after_words(b"Adding a .gitignore file", 9..19).is_some());
        assert!(file_name_after_words(b"package.json", 0..12).is_none());
        assert!(file_name_after_words(b"x ../../package.json", 8..20).is_none());
        assert!(file_name_after_words(b"read system(", 5..12).is_none());
    }

    #[test]
    fn a_phrase_inside_a_host_name_is_a_site() {
        let cookie = b"fd=2025-10-02 07:00:04|||ep=https://www.northwind.example/|||rf=(none)";
        assert!(within_host(cookie, 40..49).is_some());
        let sql = b"https://x.example/?q=1 union select * from northwind.dbo.orders";
        assert!(within_host(sql, 43..52).is_none());
        assert!(within_host(b"northwind", 0..9).is_none());
        assert!(host_and_port(b"api.northwind.example:443").is_some());
        assert!(host_and_port(b"db-1.internal:5432").is_some());
        for not_an_address in [
            "mysql.db",
            "northwind:443",
            "a..b:1",
            "x.y:1 or 1=1",
            "x.y:123456",
            "-a.b:1",
        ] {
            assert!(
                host_and_port(not_an_address.as_bytes()).is_none(),
                "{not_an_address}"
            );
        }
    }

    #[test]
    fn a_file_name_ending_a_longer_one_is_another_file() {
        let path = b"/content/ryanair.chat-config.json";
        assert!(longer_file_name(path, 22..33).is_some());
        assert!(longer_file_name(b"/app/config.json", 5..16).is_none());
        assert!(longer_file_name(b"/;config.json", 2..13).is_none());
        assert!(longer_file_name(b"/x/myproc/self", 5..14).is_none());
        assert!(longer_file_name(b"/x/.env", 3..7).is_none());
        // A function's name is no file's: PHP's rules match it inside longer words on purpose.
        assert!(longer_file_name(b"FOOcall_user_func()", 3..17).is_none());
    }

    #[test]
    fn a_phrase_inside_a_longer_name_is_not_that_name() {
        assert!(inside_longer_name(b"json.properties.$pathname", 16..21).is_some());
        assert!(inside_longer_name(b"/usr/bin/archive", 5..11).is_some());
        assert!(inside_longer_name(b"echo $path;", 5..10).is_none());
        assert!(inside_longer_name(b"/bin/apt-get", 1..8).is_none());
    }

    #[test]
    fn a_hidden_file_name_ending_a_dotted_name_is_not_that_file() {
        assert!(dotted_name_part(b"/user.v1.Profile/Update", 8..16).is_some());
        assert!(dotted_name_part(b"/.profile", 1..9).is_none());
        assert!(dotted_name_part(b"/app/.env", 5..9).is_none());
        assert!(dotted_name_part(b"/backup.sql.gz", 7..14).is_none());
        assert!(dotted_name_part(b"/repo.git/config", 5..10).is_none());
    }

    #[test]
    fn a_traversal_climbs_three_directories_or_more() {
        assert!(traversal(b"Thanks, great product. ../../../../etc/passwd").is_some());
        assert!(traversal(b"..\\..\\..\\windows\\win.ini").is_some());
        assert!(traversal(b"see ../images/logo.png and ../../docs").is_none());
    }

    #[test]
    fn a_name_in_a_url_host_is_a_site() {
        assert!(in_url_host(b"https://lti.tools/saltire/tp", 11..18).is_some());
        assert!(in_url_host(b"https://example.com/.git/config", 19..24).is_none());
        assert!(in_url_host(b"file:///x.tools/", 9..16).is_none());
        assert!(in_url_host(b"https:/lti.tools/saltire/tp", 10..17).is_some());
        let post = b"see the [**repo**](https://thresh.tools/) for docs";
        assert!(in_url_host(post, 33..40).is_some());
        assert!(in_url_host(b"x https://a.example/.git/ y", 20..25).is_none());
        assert!(in_url_host(b"read x.tools/ https://a.b/", 6..13).is_none());
    }
}
