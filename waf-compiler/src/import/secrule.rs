//! A parser for the subset of ModSecurity's configuration language that CRS rule files use.
//!
//! ModSecurity reads its configuration through Apache's config reader, so a rule file is parsed in
//! three layers, and this module keeps them apart because each has its own quoting rules:
//!
//! 1. **Lines**: a line ending in `\` continues on the next one (the next line is appended as is,
//!    leading spaces included); a line whose first non-blank character is `#` is a comment.
//! 2. **Words** (Apache's `ap_getword_conf`): words are separated by blanks; a word may be quoted with
//!    `"` or `'`, inside which only `\"` (resp. `\'`) is an escape. Every other backslash is kept, which
//!    matters because regexes are full of them.
//! 3. **Inside words**: `SecRule VARIABLES "OPERATOR" "ACTIONS"`. Variables are `|`-separated,
//!    operators are `[!]@name argument` (no `@` means `@rx`), actions are comma-separated
//!    `name[:value]` where a value may be quoted with `'` (escapes `\'` and `\\`).
//!
//! A `chain` action makes the next `SecRule` a condition of this one; the parser nests it.
//! Anything outside this subset is an error naming the line, never skipped: the converter relies on
//! seeing every directive.

/// One directive of a rule file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Directive {
    Rule(SecRule),
    /// `SecMarker NAME`: the target of `skipAfter`.
    Marker {
        name: String,
        line: usize,
    },
    /// `SecAction "actions"`: a rule without variables or operator, which always runs (CRS's initialization and
    /// its correlation report, 980170). Its `variables` are empty and its operator is `unconditionalMatch`.
    Action(SecRule),
    /// A directive that is not a rule (`SecComponentSignature`, `SecRuleUpdateTargetById`): kept by name so the
    /// converter can report it.
    Other {
        name: String,
        line: usize,
    },
}

/// A `SecRule`, with the rules chained to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecRule {
    /// Line of the file where the directive starts (1-based).
    pub line: usize,
    pub variables: Vec<Variable>,
    pub operator: Operator,
    pub actions: Vec<Action>,
    /// The rule introduced by this rule's `chain` action.
    pub chained: Option<Box<SecRule>>,
}

/// One `|`-separated element of a rule's variable list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variable {
    /// `!COLLECTION:key`: removes `key` from the collection for this rule.
    pub exclude: bool,
    /// `&COLLECTION`: the number of elements instead of their values.
    pub count: bool,
    pub collection: String,
    pub selector: Option<Selector>,
}

/// What follows `COLLECTION:`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selector {
    /// A key, e.g. `User-Agent`, or an XPath expression for `XML`.
    Key(String),
    /// `/regex/`: every key the regex matches.
    Regex(String),
}

/// `[!]@name argument`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operator {
    pub negated: bool,
    pub name: String,
    pub argument: String,
}

/// One action, e.g. `t:urlDecodeUni` or `msg:'...'` (value unquoted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Action {
    pub name: String,
    pub value: Option<String>,
}

impl SecRule {
    /// Values of every action called `name`, in order.
    pub fn values<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.actions
            .iter()
            .filter(move |a| a.name == name)
            .filter_map(|a| a.value.as_deref())
    }

    /// The value of the first action called `name`.
    pub fn value<'a>(&'a self, name: &'a str) -> Option<&'a str> {
        self.values(name).next()
    }

    /// Whether an action called `name` is present (with or without a value).
    pub fn has(&self, name: &str) -> bool {
        self.actions.iter().any(|a| a.name == name)
    }
}

/// A syntax error, with the line where the directive starts.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {kind}")]
pub struct ParseError {
    pub line: usize,
    pub kind: SyntaxError,
}

/// What is wrong with a directive.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SyntaxError {
    #[error("unterminated {0}-quoted string")]
    UnterminatedQuote(char),
    #[error("{0} inside a rule chain")]
    InsideChain(String),
    #[error("{0} takes one argument")]
    OneArgument(&'static str),
    #[error("SecRule takes 2 or 3 arguments, found {0}")]
    SecRuleArguments(usize),
    #[error("unsupported directive `{0}`")]
    UnsupportedDirective(String),
    #[error("the last rule of the file ends in `chain`")]
    OpenChain,
    #[error("empty variable name in `{0}`")]
    EmptyVariableName(String),
    #[error("expected `|` before `{rest}` in `{text}`")]
    ExpectedPipe { rest: String, text: String },
    #[error("unterminated /regex/ selector in `{0}`")]
    UnterminatedRegexSelector(String),
    #[error("unterminated quoted key in `{0}`")]
    UnterminatedQuotedKey(String),
    #[error("empty variable list")]
    NoVariables,
    #[error("unterminated quoted value of action `{0}`")]
    UnterminatedActionValue(String),
    #[error("invalid escape in value of action `{0}`")]
    ActionValueEscape(String),
    #[error("text after the quoted value of action `{0}`")]
    TextAfterActionValue(String),
    #[error("empty action name in `{0}`")]
    EmptyActionName(String),
}

fn error(line: usize, kind: SyntaxError) -> ParseError {
    ParseError { line, kind }
}

/// Parses a whole rule file into its directives, chains nested.
pub fn parse(text: &str) -> Result<Vec<Directive>, ParseError> {
    let mut directives = Vec::new();
    // The rule whose last link ends in `chain` and waits for the next SecRule.
    let mut open_chain: Option<SecRule> = None;
    for (line, logical) in logical_lines(text) {
        let words = split_words(&logical).map_err(|m| error(line, m))?;
        let Some((name, args)) = words.split_first() else {
            continue;
        };
        match name.as_str() {
            "SecRule" => {
                let rule = parse_rule(line, args)?;
                let wants_chain = rule.has("chain");
                let rule = match open_chain.take() {
                    Some(mut head) => {
                        attach(&mut head, rule);
                        head
                    }
                    None => rule,
                };
                if wants_chain {
                    open_chain = Some(rule);
                } else {
                    directives.push(Directive::Rule(rule));
                }
            }
            "SecMarker" => {
                if open_chain.is_some() {
                    return Err(error(line, SyntaxError::InsideChain("SecMarker".into())));
                }
                let [marker] = args else {
                    return Err(error(line, SyntaxError::OneArgument("SecMarker")));
                };
                directives.push(Directive::Marker {
                    name: marker.clone(),
                    line,
                });
            }
            "SecAction" => {
                if open_chain.is_some() {
                    return Err(error(line, SyntaxError::InsideChain("SecAction".into())));
                }
                let [actions] = args else {
                    return Err(error(line, SyntaxError::OneArgument("SecAction")));
                };
                directives.push(Directive::Action(SecRule {
                    line,
                    variables: Vec::new(),
                    operator: Operator {
                        negated: false,
                        name: "unconditionalMatch".to_owned(),
                        argument: String::new(),
                    },
                    actions: parse_actions(actions).map_err(|m| error(line, m))?,
                    chained: None,
                }));
            }
            "SecComponentSignature" | "SecRuleUpdateTargetById" => {
                if open_chain.is_some() {
                    return Err(error(line, SyntaxError::InsideChain(name.clone())));
                }
                directives.push(Directive::Other {
                    name: name.clone(),
                    line,
                });
            }
            other => {
                return Err(error(
                    line,
                    SyntaxError::UnsupportedDirective(other.to_string()),
                ));
            }
        }
    }
    if let Some(head) = open_chain {
        return Err(error(head.line, SyntaxError::OpenChain));
    }
    Ok(directives)
}

/// Hangs `link` at the end of the chain that starts at `head`.
fn attach(head: &mut SecRule, link: SecRule) {
    match head.chained {
        Some(ref mut next) => attach(next, link),
        None => head.chained = Some(Box::new(link)),
    }
}

fn parse_rule(line: usize, args: &[String]) -> Result<SecRule, ParseError> {
    let (variables, operator, actions) = match args {
        [v, o] => (v, o, None),
        [v, o, a] => (v, o, Some(a)),
        _ => {
            return Err(error(line, SyntaxError::SecRuleArguments(args.len())));
        }
    };
    Ok(SecRule {
        line,
        variables: parse_variables(variables).map_err(|m| error(line, m))?,
        operator: parse_operator(operator),
        actions: match actions {
            Some(a) => parse_actions(a).map_err(|m| error(line, m))?,
            None => Vec::new(),
        },
        chained: None,
    })
}

/// Joins continued lines and drops comments and blank lines; yields (first line number, text).
fn logical_lines(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (index, raw) in text.lines().enumerate() {
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        let (start, mut buffer) = match current.take() {
            Some(pending) => pending,
            None => {
                let trimmed = raw.trim_start();
                if trimmed.is_empty() || trimmed.starts_with('#') {
                    continue;
                }
                (index + 1, String::new())
            }
        };
        match raw.strip_suffix('\\') {
            Some(head) => {
                buffer.push_str(head);
                current = Some((start, buffer));
            }
            None => {
                buffer.push_str(raw);
                out.push((start, buffer));
            }
        }
    }
    if let Some(pending) = current {
        out.push(pending);
    }
    out
}

/// Apache's word splitting: blanks separate words; `"..."` and `'...'` quote, with `\<quote>` as the
/// only escape inside them.
fn split_words(line: &str) -> Result<Vec<String>, SyntaxError> {
    let mut words = Vec::new();
    let mut chars = line.chars().peekable();
    loop {
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        let Some(&first) = chars.peek() else {
            return Ok(words);
        };
        let mut word = String::new();
        if first == '"' || first == '\'' {
            chars.next();
            loop {
                match chars.next() {
                    None => return Err(SyntaxError::UnterminatedQuote(first)),
                    Some('\\') if chars.peek() == Some(&first) => {
                        word.push(first);
                        chars.next();
                    }
                    Some(c) if c == first => break,
                    Some(c) => word.push(c),
                }
            }
        } else {
            while let Some(c) = chars.next_if(|c| !c.is_whitespace()) {
                word.push(c);
            }
        }
        words.push(word);
    }
}

/// `A|!B:key|C:/re/|XML:/*`. A `/regex/` selector may itself contain `|`, so it is read to its
/// closing unescaped `/` before looking for the next separator.
fn parse_variables(text: &str) -> Result<Vec<Variable>, SyntaxError> {
    let mut variables = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let mut exclude = false;
        let mut count = false;
        if let Some(r) = rest.strip_prefix('!') {
            exclude = true;
            rest = r;
        } else if let Some(r) = rest.strip_prefix('&') {
            count = true;
            rest = r;
        }
        let name_end = rest.find([':', '|']).unwrap_or(rest.len());
        let collection = &rest[..name_end];
        if collection.is_empty() {
            return Err(SyntaxError::EmptyVariableName(text.to_string()));
        }
        rest = &rest[name_end..];
        let mut selector = None;
        if let Some(after) = rest.strip_prefix(':') {
            // XML selectors are XPath expressions that start with `/` too; they are keys.
            let regex_body = after.strip_prefix('/').filter(|_| collection != "XML");
            let (value, remaining) = match regex_body {
                Some(body) => {
                    let end = closing_slash(body)
                        .ok_or_else(|| SyntaxError::UnterminatedRegexSelector(text.to_string()))?;
                    (Selector::Regex(body[..end].to_string()), &body[end + 1..])
                }
                None => {
                    let (key, remaining) = match after.strip_prefix('\'') {
                        Some(quoted) => {
                            let end = quoted.find('\'').ok_or_else(|| {
                                SyntaxError::UnterminatedQuotedKey(text.to_string())
                            })?;
                            (&quoted[..end], &quoted[end + 1..])
                        }
                        None => {
                            let end = after.find('|').unwrap_or(after.len());
                            (&after[..end], &after[end..])
                        }
                    };
                    (Selector::Key(key.to_string()), remaining)
                }
            };
            selector = Some(value);
            rest = remaining;
        }
        variables.push(Variable {
            exclude,
            count,
            collection: collection.to_string(),
            selector,
        });
        match rest.strip_prefix('|') {
            Some(r) => rest = r,
            None if rest.is_empty() => {}
            None => {
                return Err(SyntaxError::ExpectedPipe {
                    rest: rest.to_string(),
                    text: text.to_string(),
                });
            }
        }
    }
    if variables.is_empty() {
        return Err(SyntaxError::NoVariables);
    }
    Ok(variables)
}

/// Index of the first `/` not escaped by a backslash.
fn closing_slash(body: &str) -> Option<usize> {
    let mut escaped = false;
    for (i, c) in body.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '/' => return Some(i),
            _ => {}
        }
    }
    None
}

/// `[!]@name argument`; without `@` the operator is `rx` and the whole text its argument.
fn parse_operator(text: &str) -> Operator {
    let (negated, rest) = match text.strip_prefix('!') {
        Some(r) => (true, r),
        None => (false, text),
    };
    match rest.strip_prefix('@') {
        Some(op) => {
            let (name, argument) = op.split_once([' ', '\t']).unwrap_or((op, ""));
            Operator {
                negated,
                name: name.to_string(),
                argument: argument.trim_start().to_string(),
            }
        }
        None => Operator {
            negated,
            name: "rx".to_string(),
            argument: rest.to_string(),
        },
    }
}

/// `name[:value],...` with `'`-quoted values (escapes `\'` and `\\`); blanks around items are ignored.
fn parse_actions(text: &str) -> Result<Vec<Action>, SyntaxError> {
    let mut actions = Vec::new();
    let mut chars = text.chars().peekable();
    loop {
        while chars.next_if(|c| c.is_whitespace() || *c == ',').is_some() {}
        if chars.peek().is_none() {
            return Ok(actions);
        }
        let mut name = String::new();
        while let Some(c) = chars.next_if(|c| *c != ':' && *c != ',') {
            name.push(c);
        }
        let name = name.trim().to_string();
        let mut value = None;
        if chars.next_if_eq(&':').is_some() {
            while chars.next_if(|c| c.is_whitespace()).is_some() {}
            let mut v = String::new();
            if chars.next_if_eq(&'\'').is_some() {
                loop {
                    match chars.next() {
                        None => {
                            return Err(SyntaxError::UnterminatedActionValue(name));
                        }
                        Some('\\') => match chars.next() {
                            Some(c @ ('\'' | '\\')) => v.push(c),
                            _ => return Err(SyntaxError::ActionValueEscape(name)),
                        },
                        Some('\'') => break,
                        Some(c) => v.push(c),
                    }
                }
                while chars.next_if(|c| c.is_whitespace()).is_some() {}
                if chars.peek().is_some_and(|c| *c != ',') {
                    return Err(SyntaxError::TextAfterActionValue(name));
                }
            } else {
                while let Some(c) = chars.next_if(|c| *c != ',') {
                    v.push(c);
                }
                v.truncate(v.trim_end().len());
            }
            value = Some(v);
        }
        if name.is_empty() {
            return Err(SyntaxError::EmptyActionName(text.to_string()));
        }
        actions.push(Action { name, value });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn only_rule(text: &str) -> SecRule {
        match parse(text).unwrap().as_slice() {
            [Directive::Rule(rule)] => rule.clone(),
            other => panic!("expected one rule, got {other:?}"),
        }
    }

    #[test]
    fn continuation_lines_quotes_and_escapes() {
        let rule = only_rule(concat!(
            "# a comment\n",
            "\n",
            "SecRule ARGS \"@rx a\\\"b\\x5c'c\" \\\n",
            "    \"id:1,\\\n",
            "    msg:'it\\'s \\\"quoted\\\"',\\\n",
            "    t:none,t:urlDecodeUni\"\n",
        ));
        assert_eq!(rule.line, 3);
        assert_eq!(rule.operator.name, "rx");
        assert_eq!(rule.operator.argument, r#"a"b\x5c'c"#);
        assert_eq!(rule.value("id"), Some("1"));
        assert_eq!(rule.value("msg"), Some(r#"it's "quoted""#));
        assert_eq!(
            rule.values("t").collect::<Vec<_>>(),
            ["none", "urlDecodeUni"]
        );
    }

    #[test]
    fn variables_with_selectors_exclusions_and_xpath() {
        let rule = only_rule(
            r#"SecRule REQUEST_HEADERS|!REQUEST_HEADERS:Cookie|ARGS_NAMES|!ARGS_NAMES:/^a|b\/c$/|XML:/*|XML://@*|&ARGS "@rx x" "id:2""#,
        );
        let v = &rule.variables;
        assert_eq!(v.len(), 7);
        assert_eq!(v[0].collection, "REQUEST_HEADERS");
        assert!(v[0].selector.is_none());
        assert!(v[1].exclude);
        assert_eq!(v[1].selector, Some(Selector::Key("Cookie".into())));
        assert_eq!(v[3].selector, Some(Selector::Regex(r"^a|b\/c$".into())));
        assert_eq!(v[4].selector, Some(Selector::Key("/*".into())));
        assert_eq!(v[5].collection, "XML");
        assert_eq!(v[5].selector, Some(Selector::Key("//@*".into())));
    }

    #[test]
    fn count_variable() {
        let rule = only_rule(r#"SecRule &ARGS "@eq 0" "id:3""#);
        assert!(rule.variables[0].count);
        assert_eq!(rule.operator.name, "eq");
        assert_eq!(rule.operator.argument, "0");
    }

    #[test]
    fn operators_negation_and_implicit_rx() {
        assert_eq!(
            parse_operator("!@streq %{TX.2}"),
            Operator {
                negated: true,
                name: "streq".into(),
                argument: "%{TX.2}".into()
            }
        );
        assert_eq!(parse_operator("@detectSQLi").argument, "");
        assert_eq!(parse_operator("^abc$").name, "rx");
        assert_eq!(parse_operator("^abc$").argument, "^abc$");
    }

    #[test]
    fn chains_nest_in_order() {
        let directives = parse(concat!(
            "SecRule ARGS \"@rx (a)(b)\" \"id:4,capture,chain\"\n",
            "    SecRule TX:1 \"@streq %{TX.2}\" \"t:none,chain\"\n",
            "        SecRule MATCHED_VARS \"!@rx ^x$\" \"t:none\"\n",
            "SecMarker END\n",
        ))
        .unwrap();
        let [Directive::Rule(head), Directive::Marker { name, .. }] = directives.as_slice() else {
            panic!("{directives:?}");
        };
        assert_eq!(name, "END");
        let second = head.chained.as_deref().unwrap();
        assert_eq!(second.variables[0].collection, "TX");
        let third = second.chained.as_deref().unwrap();
        assert!(third.operator.negated);
        assert!(third.chained.is_none());
    }

    #[test]
    fn errors_name_the_line() {
        let err = parse("\nSecRule ARGS \"@rx a\" \"id:5,chain\"\n").unwrap_err();
        assert_eq!(err.line, 2);
        let err = parse("SecDefaultAction \"id:6\"").unwrap_err();
        assert_eq!(
            err.kind,
            SyntaxError::UnsupportedDirective("SecDefaultAction".into())
        );
        // Directives that are not rules are kept, for the converter to report.
        assert_eq!(
            parse("SecComponentSignature \"x\"").unwrap(),
            [Directive::Other {
                name: "SecComponentSignature".into(),
                line: 1
            }]
        );
        let [Directive::Action(action)] = &parse("SecAction \"id:6,pass\"").unwrap()[..] else {
            panic!("SecAction is an action");
        };
        assert_eq!((action.value("id"), action.has("pass")), (Some("6"), true));
        let err = parse("SecRule ARGS \"@rx a").unwrap_err();
        assert_eq!(err.kind, SyntaxError::UnterminatedQuote('"'));
        assert_eq!(err.to_string(), "line 1: unterminated \"-quoted string");
        let err = parse("SecRule ARGS \"@rx a\" \"msg:'x\"").unwrap_err();
        assert_eq!(err.kind, SyntaxError::UnterminatedActionValue("msg".into()));
        let err = parse("SecRule ARGS:/abc \"@rx a\"").unwrap_err();
        assert_eq!(
            err.kind,
            SyntaxError::UnterminatedRegexSelector("ARGS:/abc".into())
        );
    }

    /// Every prefix and suffix of a file using every construct converts or fails with an error, never a panic
    /// (a truncated download or a half-edited file is normal input for a command-line tool).
    #[test]
    fn every_truncation_is_an_error_or_a_parse_never_a_panic() {
        let text = concat!(
            "# comment\n",
            "SecRule TX:DETECTION_PARANOIA_LEVEL \"@lt 2\" \"id:1,pass,nolog,skipAfter:END\"\n",
            "SecRule REQUEST_HEADERS|!REQUEST_HEADERS:Cookie|ARGS_NAMES|!ARGS_NAMES:/^a\\[é/|XML://@* \\\n",
            "    \"@rx (?i)[\\\"'`]\\x{e2}\\x80\" \\\n",
            "    \"id:2,msg:'it\\'s ´',t:none,t:urlDecodeUni,capture,chain\"\n",
            "    SecRule TX:1 \"!@streq %{TX.2}\" \"t:none\"\n",
            "SecMarker \"END\"\n",
        );
        assert!(parse(text).is_ok());
        for (end, _) in text.char_indices() {
            let _ = crate::import::import(&text[..end], "cut.conf");
            let _ = crate::import::import(&text[end..], "cut.conf");
        }
    }
}
