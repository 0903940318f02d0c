//! SQL: libinjection reads the value as the rest of a query after the point of insertion, as is and after a
//! single or a double quote, and knows the token shapes (fingerprints) of injections. Words alone ("select",
//! "union", "drop") are not one; a quote or a number followed by an operator, a keyword and an expression is.
//!
//! libinjection looks at the first tokens only, so a statement written out in words after some other text
//! (`) UNION ALL SELECT NULL,NULL--`, `from information_schema.tables where ...`) escapes it; such statements
//! are recognised by the clauses only SQL writes in that order ([`STATEMENTS`]), which prose does not ("select
//! a size from the list" has no `from <table> where`).

use crate::detect::sqli;
use regex_automata::meta::Regex;
use std::sync::OnceLock;

/// Clauses and objects of SQL statements, case-insensitive, as words.
const STATEMENTS: &str = r"(?i)\bunion(?:\s+(?:all|distinct))?\s+select\b|\bselect\b[^;]{0,200}?\bfrom\s+[\w.`\x22\[\]]+\s+(?:where|limit|order\s+by|group\s+by|having|join|union)\b|\binsert\s+into\s+[\w.`\x22\[\]]+\s*(?:\(|values\b|select\b)|\bdelete\s+from\s+[\w.`\x22\[\]]+\s+where\b|\bupdate\s+[\w.`\x22\[\]]+\s+set\s+[\w.`\x22\[\]]+\s*=|\b(?:drop|alter|truncate)\s+(?:table|database|schema|procedure|function)\b|\bcreate\s+(?:table|database|procedure|function|trigger)\s+\w|\bgroup\s+by\b[^;]{0,100}?\bhaving\b|\binformation_schema\b|\bsqlite_(?:master|compileoption_\w+)\b|\bpg_sleep\s*\(|\bwaitfor\s+delay\b|\bbenchmark\s*\(|\bload_file\s*\(|\binto\s+(?:out|dump)file\b|\bexec(?:ute)?\s+(?:xp|sp)_\w|::\s*(?:int|text|varchar)\b";

fn statements() -> &'static Regex {
    static STATEMENTS_RE: OnceLock<Regex> = OnceLock::new();
    // The pattern is a constant this crate's tests compile: it cannot fail at run time.
    STATEMENTS_RE
        .get_or_init(|| Regex::new(STATEMENTS).expect("the SQL statement pattern compiles"))
}

/// The fingerprint or the statement, when `value` holds an SQL injection.
pub fn injection(value: &[u8]) -> Option<String> {
    if let Some(fp) = sqli::fingerprint(value) {
        return Some(format!("libinjection SQL fingerprint `{fp}`"));
    }
    statements().find(value).map(|m| {
        format!(
            "SQL statement `{}`",
            String::from_utf8_lossy(&value[m.range()])
                .chars()
                .take(60)
                .collect::<String>()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_in_words_are_sql_and_prose_is_not() {
        for sql in [
            ") UNION ALL SELECT NULL,NULL,NULL--",
            "from information_schema.tables where table_schema=database()",
            "SELECT x GROUP BY SOMETHING HAVING COUNT(Id) >= 9",
            "ALTER TABLE `mass_mails` CHANGE `receivers`",
            "admin@example.com' or sqlite_compileoption_used (id)--",
        ] {
            assert!(injection(sql.as_bytes()).is_some(), "{sql}");
        }
        for text in [
            "Please select the size you would like from the list below and update your cart",
            "We drop prices every Friday; create an account to hear first.",
            "Select your country from our shop where shipping is free",
        ] {
            assert_eq!(injection(text.as_bytes()), None, "{text}");
        }
    }
}
