//! PromQL, Prometheus's query language: Grafana's dashboards save their panels' queries (`targets.N.expr`),
//! Prometheus's own page and API take one as `query` (`/api/v1/query_range?query=...`), alerting rules as `expr`.
//! A query selects series by name and labels and computes over them
//! (`sum by (instance) (rate(http_requests_total{job="api",code=~"5.."}[5m])) / 100`); libinjection reads its
//! quoted label values and operators as SQL's strings and conditions. A value that parses as PromQL from end to
//! end, selects a series and calls only PromQL's functions, in a parameter named for a query, is the API's
//! language. An SQL injection needs what PromQL has no place for: a quote left open, a comment, `=` as a
//! comparison, a keyword or a function of SQL (`UNION`, `SLEEP(5)`, `SUBSTRING(...)`).

/// Parentheses nested deeper than this are no query a person writes; the parser stops there (its recursion is
/// bounded whatever the value).
const DEPTH_LIMIT: usize = 24;

/// PromQL's aggregation operators.
const AGGREGATIONS: &[&str] = &[
    "sum",
    "avg",
    "min",
    "max",
    "count",
    "stddev",
    "stdvar",
    "topk",
    "bottomk",
    "quantile",
    "count_values",
    "group",
    "limitk",
    "limit_ratio",
];

/// PromQL's functions (Prometheus 2 and 3).
const FUNCTIONS: &[&str] = &[
    "abs",
    "absent",
    "absent_over_time",
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atanh",
    "avg_over_time",
    "ceil",
    "changes",
    "clamp",
    "clamp_max",
    "clamp_min",
    "cos",
    "cosh",
    "count_over_time",
    "day_of_month",
    "day_of_week",
    "day_of_year",
    "days_in_month",
    "deg",
    "delta",
    "deriv",
    "exp",
    "floor",
    "histogram_avg",
    "histogram_count",
    "histogram_fraction",
    "histogram_quantile",
    "histogram_stddev",
    "histogram_stdvar",
    "histogram_sum",
    "holt_winters",
    "double_exponential_smoothing",
    "hour",
    "idelta",
    "increase",
    "irate",
    "label_join",
    "label_replace",
    "last_over_time",
    "ln",
    "log10",
    "log2",
    "mad_over_time",
    "max_over_time",
    "min_over_time",
    "minute",
    "month",
    "pi",
    "predict_linear",
    "present_over_time",
    "quantile_over_time",
    "rad",
    "rate",
    "resets",
    "round",
    "scalar",
    "sgn",
    "sin",
    "sinh",
    "sort",
    "sort_desc",
    "sort_by_label",
    "sort_by_label_desc",
    "sqrt",
    "stddev_over_time",
    "stdvar_over_time",
    "sum_over_time",
    "tan",
    "tanh",
    "time",
    "timestamp",
    "vector",
    "year",
];

/// Binary operators written with symbols, longest first, and with words.
const SYMBOLS: [&str; 12] = [
    "==", "!=", ">=", "<=", ">", "<", "+", "-", "*", "/", "%", "^",
];
const WORD_OPERATORS: [&str; 4] = ["and", "or", "unless", "atan2"];

/// Label matchers' operators, longest first.
const MATCHERS: [&str; 4] = ["=~", "!~", "!=", "="];

/// Whether all of `text` parses as one PromQL expression that selects a series. Grafana's template variables
/// (`$instance`, `${job}`, `[[interval]]`, `$__rate_interval`) stand for a name, a number or a duration.
pub fn is_query(text: &str) -> bool {
    let mut parser = Parser {
        text: text.as_bytes(),
        at: 0,
        depth: 0,
        selects: false,
    };
    parser.expression().is_some() && {
        parser.blanks();
        parser.at == parser.text.len() && parser.selects
    }
}

struct Parser<'a> {
    text: &'a [u8],
    at: usize,
    depth: usize,
    /// A series selector was read.
    selects: bool,
}

impl Parser<'_> {
    fn blanks(&mut self) {
        while self.text.get(self.at).is_some_and(u8::is_ascii_whitespace) {
            self.at += 1;
        }
    }

    /// Consumes `token` (after blanks) when the text goes on with it.
    fn eat(&mut self, token: &str) -> bool {
        self.blanks();
        let found = self.text[self.at..].starts_with(token.as_bytes());
        if found {
            self.at += token.len();
        }
        found
    }

    fn peek_word(&mut self) -> Option<&str> {
        self.blanks();
        let start = self.at;
        let len = self.text[start..]
            .iter()
            .take_while(|&&b| b.is_ascii_alphanumeric() || b == b'_' || b == b':')
            .count();
        let word = &self.text[start..start + len];
        (len > 0 && !word[0].is_ascii_digit())
            .then(|| std::str::from_utf8(word).ok())
            .flatten()
    }

    fn word(&mut self) -> Option<String> {
        let word = self.peek_word()?.to_owned();
        self.at += word.len();
        Some(word)
    }

    /// A Grafana template variable: `$name`, `${name}` (with a format, `${name:pipe}`), `[[name]]`.
    fn variable(&mut self) -> bool {
        self.blanks();
        let rest = &self.text[self.at..];
        let name_len = |s: &[u8]| {
            s.iter()
                .take_while(|&&b| b.is_ascii_alphanumeric() || b == b'_')
                .count()
        };
        let len = if let Some(inner) = rest.strip_prefix(b"${") {
            let end = inner.iter().position(|&b| b == b'}');
            end.filter(|&end| {
                let name = name_len(inner);
                name > 0 && (name == end || inner[name] == b':')
            })
            .map(|end| end + 3)
        } else if let Some(inner) = rest.strip_prefix(b"[[") {
            let name = name_len(inner);
            (name > 0 && inner[name..].starts_with(b"]]")).then_some(name + 4)
        } else if let Some(inner) = rest.strip_prefix(b"$") {
            let name = name_len(inner);
            (name > 0).then_some(name + 1)
        } else {
            None
        };
        len.inspect(|len| self.at += len).is_some()
    }

    fn expression(&mut self) -> Option<()> {
        self.depth += 1;
        if self.depth > DEPTH_LIMIT {
            return None;
        }
        self.unary()?;
        loop {
            let symbol = SYMBOLS.iter().find(|symbol| self.eat(symbol));
            let word = symbol.is_none()
                && self.peek_word().is_some_and(|word| {
                    WORD_OPERATORS.contains(&word.to_ascii_lowercase().as_str())
                });
            if symbol.is_none() && !word {
                break;
            }
            if word {
                self.word();
            }
            if self.peek_word() == Some("bool") {
                self.word();
            }
            for modifier in ["on", "ignoring", "group_left", "group_right"] {
                if self.peek_word() == Some(modifier) {
                    self.word();
                    if self.eat("(") {
                        self.labels()?;
                    }
                }
            }
            self.unary()?;
        }
        self.depth -= 1;
        Some(())
    }

    fn unary(&mut self) -> Option<()> {
        while self.eat("-") || self.eat("+") {}
        self.primary()?;
        // A range, or a subquery's range and resolution.
        if self.eat("[") {
            self.duration()?;
            if self.eat(":") {
                self.blanks();
                if self.text.get(self.at) != Some(&b']') {
                    self.duration()?;
                }
            }
            self.eat("]").then_some(())?;
        }
        if self.peek_word() == Some("offset") {
            self.word();
            self.eat("-");
            self.duration()?;
        }
        if self.eat("@") && !self.number() {
            let at = self.word()?;
            (["start", "end"].contains(&at.as_str()) && self.eat("(") && self.eat(")"))
                .then_some(())?;
        }
        Some(())
    }

    fn primary(&mut self) -> Option<()> {
        if self.number() || self.variable() {
            return Some(());
        }
        if self.string() {
            return Some(());
        }
        if self.eat("(") {
            self.expression()?;
            return self.eat(")").then_some(());
        }
        if self.eat("{") {
            self.selects = true;
            return self.matchers();
        }
        let name = self.word()?;
        let lower = name.to_ascii_lowercase();
        if AGGREGATIONS.contains(&lower.as_str()) && self.aggregation().is_some() {
            return Some(());
        }
        if FUNCTIONS.contains(&lower.as_str()) && self.eat("(") {
            return self.arguments();
        }
        // A metric's name; no other word calls anything.
        self.blanks();
        if self.text.get(self.at) == Some(&b'(') {
            return None;
        }
        self.selects = true;
        if self.eat("{") {
            self.matchers()?;
        }
        Some(())
    }

    /// `sum by (a) (x)`, `sum (x) without (a)`, `topk(5, x)`.
    fn aggregation(&mut self) -> Option<()> {
        let grouping = |parser: &mut Self| -> Option<bool> {
            match parser.peek_word() {
                Some("by" | "without") => {
                    parser.word();
                    parser.eat("(").then_some(())?;
                    parser.labels()?;
                    Some(true)
                }
                _ => Some(false),
            }
        };
        let before = grouping(self)?;
        self.eat("(").then_some(())?;
        self.arguments()?;
        if !before {
            grouping(self)?;
        }
        Some(())
    }

    /// Arguments up to the closing parenthesis.
    fn arguments(&mut self) -> Option<()> {
        if self.eat(")") {
            return Some(());
        }
        loop {
            self.expression()?;
            if self.eat(")") {
                return Some(());
            }
            self.eat(",").then_some(())?;
        }
    }

    /// Label names up to the closing parenthesis (a trailing comma allowed).
    fn labels(&mut self) -> Option<()> {
        loop {
            if self.eat(")") {
                return Some(());
            }
            if !self.variable() {
                self.word()?;
            }
            if !self.eat(",") {
                return self.eat(")").then_some(());
            }
        }
    }

    /// Label matchers up to the closing brace: `name op "value"`, or a bare quoted metric name (Prometheus 3).
    fn matchers(&mut self) -> Option<()> {
        loop {
            if self.eat("}") {
                return Some(());
            }
            if !self.string() {
                self.word()?;
                MATCHERS.iter().find(|op| self.eat(op))?;
                if !self.string() {
                    self.variable().then_some(())?;
                }
            }
            if !self.eat(",") {
                return self.eat("}").then_some(());
            }
        }
    }

    fn string(&mut self) -> bool {
        self.blanks();
        let Some(&quote) = self.text.get(self.at) else {
            return false;
        };
        if !matches!(quote, b'"' | b'\'' | b'`') {
            return false;
        }
        let mut i = self.at + 1;
        while let Some(&b) = self.text.get(i) {
            if b == b'\\' && quote != b'`' {
                i += 2;
            } else if b == quote {
                self.at = i + 1;
                return true;
            } else {
                i += 1;
            }
        }
        false
    }

    fn number(&mut self) -> bool {
        self.blanks();
        let rest = &self.text[self.at..];
        let digits = rest
            .iter()
            .take_while(|b| b.is_ascii_digit() || **b == b'.')
            .count();
        if digits == 0 || !rest[0].is_ascii_digit() {
            return false;
        }
        let mut len = digits;
        if matches!(rest.get(len), Some(b'e' | b'E'))
            && rest.get(len + 1).is_some_and(u8::is_ascii_digit)
        {
            len += 1 + rest[len + 1..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
        }
        // A number runs into no word (`5m` is a duration, `1x` nothing).
        if rest
            .get(len)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
        {
            return false;
        }
        self.at += len;
        true
    }

    /// A duration (`5m`, `1h30m`, `90s`, `2d`), or a variable standing for one (`$__rate_interval`).
    fn duration(&mut self) -> Option<()> {
        if self.variable() {
            return Some(());
        }
        self.blanks();
        let start = self.at;
        loop {
            let digits = self.text[self.at..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            if digits == 0 {
                break;
            }
            self.at += digits;
            let unit = ["ms", "s", "m", "h", "d", "w", "y"]
                .iter()
                .find(|unit| self.text[self.at..].starts_with(unit.as_bytes()))?;
            self.at += unit.len();
        }
        (self.at > start).then_some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_as_dashboards_and_people_write_them() {
        for query in [
            r#"(node_memory_MemAvailable_bytes{instance=~"$instance"} / node_memory_MemTotal_bytes{instance=~"$instance"}) * 100"#,
            r#"sum by (instance) (rate(http_requests_total{job="api",code=~"5.."}[5m]))"#,
            r#"histogram_quantile(0.95, sum(rate(http_request_duration_seconds_bucket{service="$service"}[$__rate_interval])) by (le))"#,
            "up == 0",
            r#"topk(5, sum without (pod) (container_memory_working_set_bytes{namespace="${namespace}"}))"#,
            r#"rate(node_cpu_seconds_total{mode!="idle"}[1m] offset 1h)"#,
            r#"max_over_time(probe_duration_seconds[1h:5m]) > bool 2"#,
            r#"a / on (job) group_left (version) b"#,
            r#"{__name__=~"job:.*"}"#,
        ] {
            assert!(is_query(query), "{query}");
        }
    }

    #[test]
    fn sql_and_its_injections_are_no_query() {
        for value in [
            "1' or '1'='1",
            "1 or 1=1",
            "sleep(5)",
            "ascii(substring(user,1,1))>64",
            "id union select password from users",
            "benchmark(1000000,md5(1))",
            "select * from users",
            "x{a=\"1\"} -- ",
            "1",
            "rate(x[5m]",
        ] {
            assert!(!is_query(value), "{value}");
        }
    }
}
