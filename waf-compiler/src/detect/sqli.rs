//! SQL-injection detection with libinjection's semantics.
//!
//! libinjection does not parse SQL. It tokenizes the input ([`super::sqli_tokenizer`]), folds
//! the token stream so that equivalent expressions look alike (`1+1` and `1` are both a number,
//! `'a' 'b'` is one string, `UNION ALL` one word), keeps the class letters of the first five
//! folded tokens as a *fingerprint* such as `s&1c`, and reports SQLi when that fingerprint is in
//! a list of fingerprints seen in real attacks ([`super::sqli_fingerprints`]) and survives a few
//! false-positive rules. Because user input is usually pasted into the middle of a query, the
//! input is tried as-is, as if it followed a `'`, and as if it followed a `"`.
//!
//! The work is bounded: a fingerprint needs at most a handful of tokens, the tokenizer is
//! linear in what it reads, and each context is tried at most twice.

use super::sqli_fingerprints::is_known_fingerprint;
use super::sqli_tokenizer::{Dialect, Flags, QuoteContext, Token, TokenType, Tokenizer};
use TokenType as T;

/// Tokens in a fingerprint.
pub const MAX_TOKENS: usize = 5;

/// Room for the folding window: it may read up to one token past the fingerprint.
const VECTOR_SIZE: usize = MAX_TOKENS + 3;

/// A fingerprint: the classes of the first (at most five) folded tokens.
#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub struct Fingerprint {
    chars: [u8; MAX_TOKENS],
    len: usize,
}

impl Fingerprint {
    fn from_tokens(tokens: &[Token]) -> Self {
        let mut fp = Fingerprint::default();
        for (slot, token) in fp.chars.iter_mut().zip(tokens) {
            *slot = token.kind as u8;
        }
        fp.len = tokens.len().min(MAX_TOKENS);
        fp
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.chars[..self.len]
    }

    /// The fingerprint as text, e.g. `s&1c`.
    pub fn as_str(&self) -> &str {
        // Token classes are ASCII letters and punctuation.
        std::str::from_utf8(self.as_bytes()).unwrap_or("")
    }
}

impl std::fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Fingerprint({:?})", self.as_str())
    }
}

impl std::fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Outcome of [`analyze`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Analysis {
    pub is_sqli: bool,
    /// The matching fingerprint when `is_sqli`, else the fingerprint of the last context tried
    /// (what C libinjection leaves in its state).
    pub fingerprint: Fingerprint,
}

/// Whether libinjection would flag `input` as SQL injection.
pub fn is_sqli(input: &[u8]) -> bool {
    !is_plain_word(input) && analyze(input).is_sqli
}

/// The matching fingerprint when `input` is SQL injection.
pub fn fingerprint(input: &[u8]) -> Option<Fingerprint> {
    if is_plain_word(input) {
        return None;
    }
    let analysis = analyze(input);
    analysis.is_sqli.then_some(analysis.fingerprint)
}

/// Bytes of a plain word: ASCII letters, digits, `_`, and bytes above 127 except 0xA0 (which
/// libinjection reads as whitespace).
static PLAIN: [bool; 256] = {
    let mut set = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        set[c] = b.is_ascii_alphanumeric() || b == b'_' || (b >= 0x80 && b != 0xa0);
        c += 1;
    }
    set
};

/// Whether `input` is made of [`PLAIN`] bytes only (ids, hex tokens, single words, most
/// non-ASCII words): then libinjection provably does not flag it, and [`is_sqli`] answers
/// without tokenizing. The argument, from the tokenizer and folding rules:
/// - Without quotes, no quote context is tried; without `#` or `-`, no MySQL retry.
/// - A plain byte starts either a number (a digit) or a word (anything else: the `b'`, `x'`,
///   `e'`, `n'`, `q'` and `u&'` strings need a quote or `&`). A word takes every plain byte up
///   to the end. A number stops at a non-digit, leaving a word, or, only after `0b` (the one
///   prefix whose digits are not all digits), one more number. So the tokens are `W`, `A`,
///   `A W`, `A A` or `A A W`, where `A` is a number or bare word (`0x`, `1e`) and `W` any class
///   a plain word has in the word table (`n k U E t f o & B T A 1 v`).
/// - No folding rule applies to such pairs or triples: the rules need an operator, a
///   parenthesis, a brace, a comma, a dot, a string, a backslash or a leading type, keyword or
///   function, and no phrase of the word table starts with a digit (for `0x`, `1e`). Only a
///   lone leading `W` can be dropped (a type or `NOT`), leaving nothing.
/// - Of all those fingerprints only `1U` is listed, and its false-positive rule (a union
///   right after a number with no other token) rejects it.
///
/// `tests/detect_differential.rs` checks `is_sqli` against C libinjection on generated plain
/// words built from these corner cases (`0b12`, `0x`, `1e`, `2d`, keywords...).
fn is_plain_word(input: &[u8]) -> bool {
    input.iter().all(|&c| PLAIN[usize::from(c)])
}

/// Full detection: every quote context and dialect libinjection tries, in its order.
pub fn analyze(input: &[u8]) -> Analysis {
    let mut last = Fingerprint::default();
    if input.is_empty() {
        return Analysis {
            is_sqli: false,
            fingerprint: last,
        };
    }
    // A quote context is only worth trying when the input holds that quote.
    let contexts = [
        (QuoteContext::None, true),
        (QuoteContext::Single, input.contains(&b'\'')),
        (QuoteContext::Double, input.contains(&b'"')),
    ];
    for (quote, _) in contexts.into_iter().filter(|&(_, applies)| applies) {
        // The double-quote context is only tried with MySQL comments: `"` strings are MySQL's.
        let first = if quote == QuoteContext::Double {
            Dialect::Mysql
        } else {
            Dialect::Ansi
        };
        let attempt = Attempt::run(
            input,
            Flags {
                quote,
                dialect: first,
            },
        );
        last = attempt.fingerprint;
        if attempt.matches() {
            return Analysis {
                is_sqli: true,
                fingerprint: last,
            };
        }
        // MySQL reads `--x` and `#` differently: retry only when such a comment was seen.
        if first == Dialect::Ansi && attempt.saw_dialect_dependent_comment {
            let attempt = Attempt::run(
                input,
                Flags {
                    quote,
                    dialect: Dialect::Mysql,
                },
            );
            last = attempt.fingerprint;
            if attempt.matches() {
                return Analysis {
                    is_sqli: true,
                    fingerprint: last,
                };
            }
        }
    }
    Analysis {
        is_sqli: false,
        fingerprint: last,
    }
}

/// The folded tokens of `input` in one context (what the upstream folding tests print).
pub fn fold(input: &[u8], flags: Flags) -> Vec<Token> {
    let folded = Folded::run(input, flags);
    folded.tokens[..folded.len].to_vec()
}

/// One context tried: its folded tokens and fingerprint.
struct Attempt<'a> {
    input: &'a [u8],
    folded: Folded,
    fingerprint: Fingerprint,
    saw_dialect_dependent_comment: bool,
}

impl<'a> Attempt<'a> {
    fn run(input: &'a [u8], flags: Flags) -> Self {
        let mut folded = Folded::run(input, flags);
        let len = folded.len;
        // PHP's magic backquote: an unclosed, empty backquoted word at the end acts as a comment.
        if len > 2 {
            let last = &mut folded.tokens[len - 1];
            if last.kind == T::Bareword
                && last.str_open == b'`'
                && last.len == 0
                && last.str_close == 0
            {
                last.kind = T::Comment;
            }
        }
        let mut fingerprint = Fingerprint::from_tokens(&folded.tokens[..len]);
        // An unparseable construct anywhere makes the whole fingerprint `X` (folding may stop
        // on one just past the fifth token).
        if folded.tokens[..len].iter().any(|t| t.kind == T::Evil) {
            let mut evil = Token::default();
            evil.kind = T::Evil;
            folded.tokens[0] = evil;
            folded.len = 1;
            fingerprint = Fingerprint::from_tokens(&folded.tokens[..1]);
        }
        Attempt {
            input,
            saw_dialect_dependent_comment: folded.stats_comment_ddx > 0
                || folded.stats_comment_hash > 0,
            folded,
            fingerprint,
        }
    }

    fn matches(&self) -> bool {
        !self.fingerprint.as_bytes().is_empty()
            && is_known_fingerprint(self.fingerprint.as_bytes())
            && !self.is_false_positive()
    }

    /// libinjection's false-positive rules for short fingerprints, which alone are too common in
    /// ordinary text to be trusted.
    fn is_false_positive(&self) -> bool {
        let fp = self.fingerprint.as_bytes();
        let tokens = &self.folded.tokens;
        let stats_tokens = self.folded.stats_tokens;
        // MSSQL drops statements containing `sp_password` from its audit log: always an attack.
        if fp.len() > 1
            && fp.last() == Some(&(T::Comment as u8))
            && contains(self.input, b"sp_password")
        {
            return false;
        }
        match fp.len() {
            2 => self.two_token_false_positive(fp, tokens, stats_tokens),
            3 => three_token_false_positive(fp, tokens, stats_tokens),
            _ => false,
        }
    }

    fn two_token_false_positive(&self, fp: &[u8], tokens: &[Token], stats_tokens: usize) -> bool {
        let (first, second) = (&tokens[0], &tokens[1]);
        if fp[1] == T::Union as u8 {
            // "1 union" is ordinary text unless folding or comments were involved.
            return stats_tokens == 2;
        }
        if second.first_byte() == b'#' {
            return true;
        }
        // A word followed by a `--` or `#` comment: prose, not SQL.
        if first.kind == T::Bareword && second.kind == T::Comment && second.first_byte() != b'/' {
            return true;
        }
        if first.kind == T::Number && second.kind == T::Comment {
            if second.first_byte() == b'/' || stats_tokens > 2 {
                return false;
            }
            // `1234 --`, `1234/*`, `1234--` are attacks; base64-like `1234-ABCD--` is not.
            // The byte after the number is read where the number would end had it started the
            // input, as libinjection does (past the end reads as NUL).
            let at = |i: usize| self.input.get(i).copied().unwrap_or(0);
            let next = at(first.len);
            // C compares a signed `char`: bytes above 127 are negative, so "whitespace" too.
            return !(next <= b' '
                || next >= 0x80
                || (next == b'/' && at(first.len + 1) == b'*')
                || (next == b'-' && at(first.len + 1) == b'-'));
        }
        // `--` with text after it is too common in prose; only a bare trailing `--` counts.
        second.len > 2 && second.first_byte() == b'-'
    }
}

fn three_token_false_positive(fp: &[u8], tokens: &[Token], stats_tokens: usize) -> bool {
    match fp {
        b"sos" | b"s&s" => {
            // `...foo' + 'bar...`: both ends open and the inner quotes match is an attack.
            let joined = tokens[0].str_open == 0
                && tokens[2].str_close == 0
                && tokens[0].str_close == tokens[2].str_open;
            !joined
        }
        // 'sexy and 17' is text; 'sexy and 17<18' (which folds more) is not.
        b"s&n" | b"n&1" | b"1&1" | b"1&v" | b"1&s" => stats_tokens == 3,
        _ if tokens[1].kind == T::Keyword => {
            // Only `INTO OUTFILE` / `INTO DUMPFILE` make a keyword in the middle suspicious.
            let value = tokens[1].value();
            tokens[1].len < 5 || !value[..4].eq_ignore_ascii_case(b"INTO")
        }
        _ => false,
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// The result of folding one context.
struct Folded {
    tokens: [Token; VECTOR_SIZE],
    len: usize,
    stats_tokens: usize,
    stats_comment_ddx: usize,
    stats_comment_hash: usize,
}

impl Folded {
    fn run(input: &[u8], flags: Flags) -> Self {
        let mut folder = Folder {
            lexer: Tokenizer::new(input, flags),
            v: [Token::default(); VECTOR_SIZE],
            more: true,
            last_comment: None,
        };
        let len = folder.fold();
        Folded {
            tokens: folder.v,
            len,
            stats_tokens: folder.lexer.stats_tokens,
            stats_comment_ddx: folder.lexer.stats_comment_ddx,
            stats_comment_hash: folder.lexer.stats_comment_hash,
        }
    }
}

/// What the two-token rules decided.
enum TwoTokens {
    /// A rule applied: start over with this window.
    Restart { left: usize, pos: usize },
    /// Folding ends here with an unparseable token.
    Evil,
    /// Nothing folded: go on to the three-token rules from `left`.
    NoFold { left: usize },
}

struct Folder<'a> {
    lexer: Tokenizer<'a>,
    v: [Token; VECTOR_SIZE],
    more: bool,
    last_comment: Option<Token>,
}

/// Functions of TSQL/MySQL that are common column names: a function only before `(`.
const FUNCTION_BEFORE_PARENS: [&[u8]; 11] = [
    b"USER_ID",
    b"USER_NAME",
    b"DATABASE",
    b"PASSWORD",
    b"USER",
    b"CURRENT_USER",
    b"CURRENT_DATE",
    b"CURRENT_TIME",
    b"CURRENT_TIMESTAMP",
    b"LOCALTIME",
    b"LOCALTIMESTAMP",
];

fn is_operand(kind: TokenType) -> bool {
    matches!(kind, T::Number | T::Bareword | T::Variable | T::String)
}

impl Folder<'_> {
    /// Reads tokens into `v[pos]` until the window from `left` holds `want` tokens; comments
    /// are set aside (only a trailing one is kept). Returns the new `pos`.
    fn fill(&mut self, mut pos: usize, left: usize, want: usize) -> usize {
        while self.more && pos <= MAX_TOKENS && pos - left < want {
            match self.lexer.next_token() {
                None => self.more = false,
                Some(tok) if tok.kind == T::Comment => self.last_comment = Some(tok),
                Some(tok) => {
                    self.last_comment = None;
                    self.v[pos] = tok;
                    pos += 1;
                }
            }
        }
        pos
    }

    /// Folds the token stream into `v`, returning how many tokens form the fingerprint.
    fn fold(&mut self) -> usize {
        // Leading comments, `(`, SQL types and unary operators say nothing: skip them.
        let first = loop {
            match self.lexer.next_token() {
                None => {
                    self.more = false;
                    break None;
                }
                Some(tok)
                    if matches!(tok.kind, T::Comment | T::LeftParens | T::SqlType)
                        || tok.is_unary_operator() => {}
                Some(tok) => break Some(tok),
            }
        };
        let Some(first) = first else {
            return 0;
        };
        self.v[0] = first;
        let mut pos = 1;
        let mut left = 0;
        // Every pass either reads a token, drops one, or reclassifies one in a way no rule
        // undoes, so passes are a small multiple of the tokens read (at most one per input
        // byte). This cap, far above that, only guards against a hang should it ever not hold.
        let mut budget = self.lexer.input_len().saturating_add(8).saturating_mul(64);
        loop {
            budget = budget.saturating_sub(1);
            if budget == 0 {
                left = pos;
                break;
            }
            if pos >= MAX_TOKENS && self.is_collapsible_prefix() {
                // Five tokens that are a common harmless shape: restart from the first one.
                if pos > MAX_TOKENS {
                    self.v[1] = self.v[MAX_TOKENS];
                    pos = 2;
                } else {
                    pos = 1;
                }
                left = 0;
            }
            if !self.more || left >= MAX_TOKENS {
                left = pos;
                break;
            }
            pos = self.fill(pos, left, 2);
            if pos - left < 2 {
                left = pos;
                continue;
            }
            match self.fold_two(left, pos) {
                TwoTokens::Restart { left: l, pos: p } => {
                    left = l;
                    pos = p;
                    continue;
                }
                TwoTokens::Evil => return left + 2,
                TwoTokens::NoFold { left: l } => left = l,
            }
            pos = self.fill(pos, left, 3);
            if pos - left < 3 {
                left = pos;
                continue;
            }
            match self.fold_three(left, pos) {
                Some((new_left, new_pos)) => {
                    left = new_left;
                    pos = new_pos;
                }
                None => left += 1,
            }
        }
        if left < MAX_TOKENS
            && let Some(comment) = self.last_comment
        {
            self.v[left] = comment;
            left += 1;
        }
        left.min(MAX_TOKENS)
    }

    fn is_collapsible_prefix(&self) -> bool {
        let k: [TokenType; 5] = std::array::from_fn(|i| self.v[i].kind);
        matches!(
            k,
            [
                T::Number,
                T::Operator | T::Comma,
                T::LeftParens,
                T::Number,
                T::RightParens
            ] | [
                T::Bareword,
                T::Operator,
                T::LeftParens,
                T::Bareword | T::Number,
                T::RightParens
            ] | [
                T::Number,
                T::RightParens,
                T::Comma,
                T::LeftParens,
                T::Number
            ] | [
                T::Bareword,
                T::RightParens,
                T::Operator,
                T::LeftParens,
                T::Bareword
            ]
        )
    }

    /// Two-token rules on `v[left]`, `v[left+1]`.
    fn fold_two(&mut self, left: usize, pos: usize) -> TwoTokens {
        match self.two_token_rule(left, pos) {
            Some((left, pos)) => TwoTokens::Restart { left, pos },
            None => {
                let (a, b) = (self.v[left], self.v[left + 1]);
                match (a.kind, b.kind) {
                    // MySQL's `{``.``.id}` magic cannot be folded further: evil.
                    (T::LeftBrace, T::Bareword) if b.len == 0 => {
                        self.v[left + 1].kind = T::Evil;
                        TwoTokens::Evil
                    }
                    // Collation names are too many to list; one with `_` is taken as a type,
                    // and folding looks again from the start.
                    (T::Collate, T::Bareword) if b.value().contains(&b'_') => {
                        self.v[left + 1].kind = T::SqlType;
                        TwoTokens::NoFold { left: 0 }
                    }
                    _ => TwoTokens::NoFold { left },
                }
            }
        }
    }

    /// The two-token rules that fold or reclassify and restart: `Some((left, pos))`.
    fn two_token_rule(&mut self, left: usize, pos: usize) -> Option<(usize, usize)> {
        let (a, b) = (self.v[left], self.v[left + 1]);
        let back = left.saturating_sub(1);
        match (a.kind, b.kind) {
            // "foo" "bar" is one string in SQL; `;;` is one statement end.
            (T::String, T::String) | (T::Semicolon, T::Semicolon) => Some((left, pos - 1)),
            (T::Operator | T::LogicOperator, _)
                if b.is_unary_operator() || b.kind == T::SqlType =>
            {
                Some((0, pos - 1))
            }
            (T::LeftParens, _) if b.is_unary_operator() => Some((back, pos - 1)),
            _ if self.merge_words(left) => Some((back, pos - 1)),
            (T::Semicolon, T::Function)
                if b.value().len() >= 2 && b.value()[..2].eq_ignore_ascii_case(b"IF") =>
            {
                // `; IF 1=1 ...` is TSQL control flow, not the IF() function.
                self.v[left + 1].kind = T::Tsql;
                Some((left, pos))
            }
            (T::Bareword | T::Variable, T::LeftParens)
                if FUNCTION_BEFORE_PARENS.iter().any(|w| a.value_is(w)) =>
            {
                self.v[left].kind = T::Function;
                Some((left, pos))
            }
            (T::Keyword, _) if a.value_is(b"IN") || a.value_is(b"NOT IN") => {
                // `IN (` compares; a lone `IN` (as in `IN BOOLEAN MODE`) is just a word.
                self.v[left].kind = if b.kind == T::LeftParens {
                    T::Operator
                } else {
                    T::Bareword
                };
                Some((left, pos))
            }
            (T::Operator, _) if a.value_is(b"LIKE") || a.value_is(b"NOT LIKE") => {
                // `LIKE(` is the function. A `LIKE` operator also shields the token after it
                // from the rules below (as in libinjection, where this is one branch of a chain).
                if b.kind == T::LeftParens {
                    self.v[left].kind = T::Function;
                }
                None
            }
            (
                T::SqlType,
                T::Bareword
                | T::Number
                | T::SqlType
                | T::LeftParens
                | T::Function
                | T::Variable
                | T::String,
            ) => {
                self.v[left] = b;
                Some((0, pos - 1))
            }
            (T::Backslash, _) => {
                if b.is_arithmetic_operator() {
                    // TSQL reads `\%1` as `0 % 1`.
                    self.v[left].kind = T::Number;
                    Some((0, pos))
                } else {
                    // ... and `\1` as `1`.
                    self.v[left] = b;
                    Some((0, pos - 1))
                }
            }
            (T::LeftParens, T::LeftParens) | (T::RightParens, T::RightParens) => Some((0, pos - 1)),
            // `{` + empty word is the evil case, decided by the caller.
            (T::LeftBrace, T::Bareword) if b.len == 0 => None,
            // ODBC `{fn expr}`: drop the `{ fn` part.
            (T::LeftBrace, T::Bareword) => Some((0, pos - 2)),
            (_, T::RightBrace) => Some((0, pos - 1)),
            _ => None,
        }
    }

    /// Three-token rules on `v[left..left+3]`; `None` when nothing applied.
    fn fold_three(&mut self, left: usize, pos: usize) -> Option<(usize, usize)> {
        let (a, b, c) = (self.v[left], self.v[left + 1], self.v[left + 2]);
        let restart_dropping = |n: usize| Some((0, pos - n));
        match (a.kind, b.kind, c.kind) {
            // Arithmetic and comparisons collapse into their left operand.
            (T::Number, T::Operator, T::Number) => restart_dropping(2),
            (T::Operator, k, T::Operator) if k != T::LeftParens => restart_dropping(2),
            (T::LogicOperator, _, T::LogicOperator) => restart_dropping(2),
            (T::Variable, T::Operator, T::Variable | T::Number | T::Bareword) => {
                restart_dropping(2)
            }
            (T::Bareword | T::Number, T::Operator, T::Number | T::Bareword) => restart_dropping(2),
            // PostgreSQL casts `x::type`.
            (ka, T::Operator, T::SqlType) if is_operand(ka) && b.value() == b"::" => {
                restart_dropping(2)
            }
            // Lists `a, b`.
            (ka, T::Comma, kc) if is_operand(ka) && is_operand(kc) => restart_dropping(2),
            // `SELECT + (`, `LIMIT + (`, `, - (`: drop the unary operator.
            (T::Expression | T::Group | T::Comma, _, T::LeftParens) if b.is_unary_operator() => {
                self.v[left + 1] = c;
                restart_dropping(1)
            }
            // `SELECT - 1`: drop the unary operator.
            (T::Keyword | T::Expression | T::Group, _, kc)
                if b.is_unary_operator() && (is_operand(kc) || kc == T::Function) =>
            {
                self.v[left + 1] = c;
                restart_dropping(1)
            }
            // `1,-1` folds to `1` (back up over the comma too).
            (T::Comma, _, kc) if b.is_unary_operator() && is_operand(kc) => {
                self.v[left + 1] = c;
                restart_dropping(3)
            }
            // `1,-sin(1)` becomes `1,sin(1)`.
            (T::Comma, _, T::Function) if b.is_unary_operator() => {
                self.v[left + 1] = c;
                restart_dropping(1)
            }
            // `db.table`
            (T::Bareword, T::Dot, T::Bareword) => restart_dropping(2),
            // `select . `foo`` is `select `foo``.
            (T::Expression, T::Dot, T::Bareword) => {
                self.v[left + 1] = c;
                restart_dropping(1)
            }
            // `USER(foo)` is not the zero-argument USER() function.
            (T::Function, T::LeftParens, kc) if kc != T::RightParens => {
                if a.value_is(b"USER") {
                    self.v[left].kind = T::Bareword;
                }
                None
            }
            _ => None,
        }
    }

    /// Merges `v[left]` and `v[left+1]` when the two words form a phrase of the word table
    /// (`UNION ALL`, `GROUP BY`, `IS NOT`...).
    fn merge_words(&mut self, left: usize) -> bool {
        let (a, b) = (&self.v[left], &self.v[left + 1]);
        let mergeable = |k: TokenType| {
            matches!(
                k,
                T::Keyword
                    | T::Bareword
                    | T::Operator
                    | T::Union
                    | T::Function
                    | T::Expression
                    | T::Tsql
                    | T::SqlType
            )
        };
        if !mergeable(a.kind) || !(mergeable(b.kind) || b.kind == T::LogicOperator) {
            return false;
        }
        let merged_len = a.len + b.len + 1;
        if merged_len > super::sqli_tokenizer::TOKEN_VALUE_MAX {
            return false;
        }
        let mut phrase = [0u8; super::sqli_tokenizer::TOKEN_VALUE_MAX];
        phrase[..a.len].copy_from_slice(a.value());
        phrase[a.len] = b' ';
        phrase[a.len + 1..merged_len].copy_from_slice(b.value());
        match super::sqli_keywords::lookup_word(&phrase[..merged_len]) {
            Some(kind) => {
                let pos = a.pos;
                self.v[left].assign(kind, pos, &phrase[..merged_len]);
                true
            }
            None => false,
        }
    }
}
