//! The detectors' public API on a few well-known inputs. Needs nothing outside the crate, unlike
//! the corpus and differential tests, so a plain `cargo test` always checks the basics.

use waf_compiler::detect::{sqli, xss};

#[test]
fn classic_sql_injections_are_flagged_with_their_fingerprint() {
    // Expected fingerprints as C libinjection 3.9.2 reports them.
    let cases: [(&[u8], &str); 5] = [
        (b"1' OR '1'='1", "s&sos"),
        (b"1 UNION SELECT password FROM users", "1UEnk"),
        (b"admin'--", "sc"),
        (b"1; DROP TABLE users", "1;Tnn"),
        (b"' and sleep(5)#", "s&f(1"),
    ];
    for (input, expected) in cases {
        let fp = sqli::fingerprint(input);
        assert_eq!(
            fp.map(|f| f.to_string()).as_deref(),
            Some(expected),
            "{}",
            String::from_utf8_lossy(input)
        );
        assert!(sqli::is_sqli(input));
    }
}

#[test]
fn ordinary_text_is_not_sql_injection() {
    for input in [
        &b"John O'Reilly"[..],
        b"select your size",
        b"1 union",
        b"price: 10-20",
        b"",
        b"we're open -- come in",
    ] {
        assert!(!sqli::is_sqli(input), "{}", String::from_utf8_lossy(input));
        assert_eq!(sqli::fingerprint(input), None);
    }
}

#[test]
fn script_vectors_are_xss_and_plain_html_is_not() {
    for input in [
        &b"<script>alert(1)</script>"[..],
        b"<img src=x onerror=alert(1)>",
        b"<a href=\"&#106;avascript:alert(1)\">x</a>",
        b"\"><svg onload=alert(1)>",
        b"<!DOCTYPE html>",
        b"' style=x:expression(alert(1))",
    ] {
        assert!(xss::is_xss(input), "{}", String::from_utf8_lossy(input));
    }
    for input in [
        &b"<b>bold</b> and <i>italic</i>"[..],
        b"<a href=\"https://example.com/\">link</a>",
        b"1 < 2 and 3 > 2",
        b"onewsaction=linkid",
    ] {
        assert!(!xss::is_xss(input), "{}", String::from_utf8_lossy(input));
    }
}
