//! The SQL tokenizer of libinjection's SQLi detector.
//!
//! It does not parse SQL: it cuts the input into the coarse token classes that libinjection
//! fingerprints are written in (strings, numbers, words classified by a keyword table, operators,
//! comments...), with the same corner cases as C libinjection so that fingerprints agree
//! byte for byte. Every branch below is pinned by the upstream `test-tokens-*` corpus and the
//! differential test against the C library.
//!
//! Each call does work proportional to the bytes it consumes (string and comment ends are found
//! with forward scans that never revisit a byte more than a constant number of times), so a
//! whole tokenization is linear in the input.

use super::sqli_keywords::lookup_word;

/// Longest token value kept, in bytes. libinjection stores values in a 32-byte C buffer with a
/// terminating NUL, so it keeps 31 bytes and also caps the recorded length at 31; fingerprints
/// and the false-positive rules depend on that capped length, so we reproduce it.
pub const TOKEN_VALUE_MAX: usize = 31;

/// The token classes; the discriminant is the fingerprint character.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum TokenType {
    None = 0,
    Keyword = b'k',
    Union = b'U',
    Group = b'B',
    Expression = b'E',
    SqlType = b't',
    Function = b'f',
    Bareword = b'n',
    Number = b'1',
    Variable = b'v',
    String = b's',
    Operator = b'o',
    LogicOperator = b'&',
    Comment = b'c',
    Collate = b'A',
    LeftParens = b'(',
    RightParens = b')',
    LeftBrace = b'{',
    RightBrace = b'}',
    Dot = b'.',
    Comma = b',',
    Colon = b':',
    Semicolon = b';',
    Tsql = b'T',
    Unknown = b'?',
    Evil = b'X',
    Backslash = b'\\',
}

impl TokenType {
    /// The fingerprint character of this class.
    pub fn as_char(self) -> char {
        char::from(self as u8)
    }
}

/// Which quote, if any, the input is assumed to start inside of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuoteContext {
    None,
    Single,
    Double,
}

impl QuoteContext {
    fn delimiter(self) -> Option<u8> {
        match self {
            QuoteContext::None => None,
            QuoteContext::Single => Some(b'\''),
            QuoteContext::Double => Some(b'"'),
        }
    }
}

/// Comment syntax: ANSI (`--x` is a comment, `#` an operator) or MySQL (`--` needs a space after
/// it, `#` starts a comment).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    Ansi,
    Mysql,
}

/// Tokenizer settings: libinjection tries several of them in turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flags {
    pub quote: QuoteContext,
    pub dialect: Dialect,
}

impl Flags {
    /// The default context: input as-is, ANSI comments.
    pub const ANSI: Flags = Flags {
        quote: QuoteContext::None,
        dialect: Dialect::Ansi,
    };
}

/// One token. The value is a copy of (at most [`TOKEN_VALUE_MAX`] bytes of) the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenType,
    /// Byte offset of the value in the input.
    pub pos: usize,
    /// Length of the value, capped at [`TOKEN_VALUE_MAX`].
    pub len: usize,
    val: [u8; TOKEN_VALUE_MAX],
    /// Opening quote of a string (`'`, `"`, `` ` ``, `$`, `q`, `u`...), 0 when there was none.
    pub str_open: u8,
    /// Closing quote of a string, 0 when the string ran to the end of input.
    pub str_close: u8,
    /// For variables: how many `@` preceded the name.
    pub count: u8,
}

impl Default for Token {
    fn default() -> Self {
        Token {
            kind: TokenType::None,
            pos: 0,
            len: 0,
            val: [0; TOKEN_VALUE_MAX],
            str_open: 0,
            str_close: 0,
            count: 0,
        }
    }
}

impl Token {
    /// The (possibly truncated) value.
    pub fn value(&self) -> &[u8] {
        &self.val[..self.len]
    }

    /// First byte of the value, 0 when empty (as C reads its NUL terminator).
    pub(super) fn first_byte(&self) -> u8 {
        self.val
            .first()
            .copied()
            .filter(|_| self.len > 0)
            .unwrap_or(0)
    }

    pub(super) fn assign(&mut self, kind: TokenType, pos: usize, value: &[u8]) {
        let len = value.len().min(TOKEN_VALUE_MAX);
        self.kind = kind;
        self.pos = pos;
        self.len = len;
        self.val[..len].copy_from_slice(&value[..len]);
    }

    /// Case-insensitive (ASCII) comparison of the whole value with an upper-case word.
    pub(super) fn value_is(&self, upper: &[u8]) -> bool {
        self.value().eq_ignore_ascii_case(upper)
    }

    /// `+ - ! ~ !! NOT`: operators that can prefix an operand.
    pub(super) fn is_unary_operator(&self) -> bool {
        self.kind == TokenType::Operator
            && (matches!(self.value(), b"+" | b"-" | b"!" | b"~" | b"!!") || self.value_is(b"NOT"))
    }

    pub(super) fn is_arithmetic_operator(&self) -> bool {
        self.kind == TokenType::Operator && matches!(self.value(), b"*" | b"/" | b"-" | b"+" | b"%")
    }
}

/// Whitespace as libinjection sees it; NUL included.
fn is_white(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | 0xa0 | 0)
}

/// A set of bytes, as a lookup table.
const fn byte_set(members: &[u8]) -> [bool; 256] {
    let mut set = [false; 256];
    let mut i = 0;
    while i < members.len() {
        set[members[i] as usize] = true;
        i += 1;
    }
    set
}

/// Bytes that end a word.
static WORD_END: [bool; 256] = byte_set(b" []{}<>:\\?=@!#~+-*/&|^%(),';\t\n\x0b\x0c\r\"\xa0\x00");

/// Bytes that end a variable name (unlike words: brackets and braces do not, backquotes do).
static VARIABLE_END: [bool; 256] = byte_set(b" <>:\\?=@!#~+-*/&|^%(),';\t\n\x0b\x0c\r`\"\x00");

fn ends_word(c: u8) -> bool {
    WORD_END[usize::from(c)]
}

fn ends_variable(c: u8) -> bool {
    VARIABLE_END[usize::from(c)]
}

/// Length of the prefix of `s` made of bytes accepted by `accept`. libinjection's span helper
/// treats NUL as always accepted (it searches the byte in a C string), so do we.
fn span(s: &[u8], accept: impl Fn(u8) -> bool) -> usize {
    s.iter()
        .position(|&c| c != 0 && !accept(c))
        .unwrap_or(s.len())
}

/// Length of the prefix of `s` before the first byte for which `stop` holds.
fn span_until(s: &[u8], stop: impl Fn(u8) -> bool) -> usize {
    s.iter().position(|&c| stop(c)).unwrap_or(s.len())
}

fn find_byte(s: &[u8], from: usize, c: u8) -> Option<usize> {
    s.get(from..)?
        .iter()
        .position(|&b| b == c)
        .map(|i| i + from)
}

/// First occurrence of `needle` in `s[from..]`. Knuth-Morris-Pratt, so that a long
/// PostgreSQL `$tag$` cannot make the search quadratic.
fn find_slice(s: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    let hay = s.get(from..)?;
    if needle.is_empty() || hay.len() < needle.len() {
        return None;
    }
    let mut fail = vec![0usize; needle.len()];
    let mut k = 0;
    for i in 1..needle.len() {
        while k > 0 && needle[i] != needle[k] {
            k = fail[k - 1];
        }
        if needle[i] == needle[k] {
            k += 1;
        }
        fail[i] = k;
    }
    let mut k = 0;
    for (i, &c) in hay.iter().enumerate() {
        while k > 0 && c != needle[k] {
            k = fail[k - 1];
        }
        if c == needle[k] {
            k += 1;
        }
        if k == needle.len() {
            return Some(from + i + 1 - k);
        }
    }
    None
}

/// First position `i` in `s[from..from + len]` with `s[i] == c0 && s[i + 1] == c1`.
fn find_pair(s: &[u8], from: usize, len: usize, c0: u8, c1: u8) -> Option<usize> {
    s.get(from..from + len)?
        .windows(2)
        .position(|w| w[0] == c0 && w[1] == c1)
        .map(|i| i + from)
}

/// Whether the quote at `quote` is escaped by an odd run of backslashes starting after `start`.
fn backslash_escaped(s: &[u8], start: usize, quote: usize) -> bool {
    let run = s[start..quote]
        .iter()
        .rev()
        .take_while(|&&c| c == b'\\')
        .count();
    run % 2 == 1
}

/// The SQL tokenizer over one input, in one context.
pub struct Tokenizer<'a> {
    s: &'a [u8],
    pos: usize,
    flags: Flags,
    /// Tokens produced so far (comments and folded-away ones included).
    pub(super) stats_tokens: usize,
    /// `--x` comments seen in ANSI mode: a hint that MySQL would read the input differently.
    pub(super) stats_comment_ddx: usize,
    /// `#` seen: a MySQL comment or an operator.
    pub(super) stats_comment_hash: usize,
}

impl<'a> Tokenizer<'a> {
    pub fn new(s: &'a [u8], flags: Flags) -> Self {
        Tokenizer {
            s,
            pos: 0,
            flags,
            stats_tokens: 0,
            stats_comment_ddx: 0,
            stats_comment_hash: 0,
        }
    }

    /// Length of the input being tokenized.
    pub fn input_len(&self) -> usize {
        self.s.len()
    }

    /// The next token, or `None` at end of input.
    pub fn next_token(&mut self) -> Option<Token> {
        if self.s.is_empty() {
            return None;
        }
        let mut tok = Token::default();
        if self.pos == 0
            && let Some(delim) = self.flags.quote.delimiter()
        {
            // The input is assumed to start inside a string: close it first.
            self.pos = self.string_core(&mut tok, 0, delim, 0);
            self.stats_tokens += 1;
            return Some(tok);
        }
        while self.pos < self.s.len() {
            self.pos = self.dispatch(&mut tok);
            if tok.kind != TokenType::None {
                self.stats_tokens += 1;
                return Some(tok);
            }
        }
        None
    }

    fn dispatch(&mut self, tok: &mut Token) -> usize {
        let pos = self.pos;
        let c = self.s[pos];
        match c {
            b'!' | b'&' | b'*' | b':' | b'<' | b'=' | b'>' | b'|' => self.operator2(tok),
            b'"' | b'\'' => self.string_core(tok, pos, c, 1),
            b'#' => self.hash(tok),
            b'$' => self.money(tok),
            b'%' | b'+' | b'^' | b'~' => self.operator1(tok),
            b'(' => self.single(tok, TokenType::LeftParens),
            b')' => self.single(tok, TokenType::RightParens),
            b',' => self.single(tok, TokenType::Comma),
            b';' => self.single(tok, TokenType::Semicolon),
            b'{' => self.single(tok, TokenType::LeftBrace),
            b'}' => self.single(tok, TokenType::RightBrace),
            b'?' | b']' => self.single(tok, TokenType::Unknown),
            b'-' => self.dash(tok),
            b'.' | b'0'..=b'9' => self.number(tok),
            b'/' => self.slash(tok),
            b'@' => self.variable(tok),
            b'[' => self.bracket_word(tok),
            b'\\' => self.backslash(tok),
            b'`' => self.tick(tok),
            b'B' | b'b' => self.bit_string(tok),
            b'X' | b'x' => self.hex_string(tok),
            b'E' | b'e' => self.e_string(tok),
            b'N' | b'n' => self.n_string(tok),
            b'Q' | b'q' => self.q_string(tok, 0),
            b'U' | b'u' => self.u_string(tok),
            0..=b' ' | 0x7f | 0xa0 => pos + 1,
            _ => self.word(tok),
        }
    }

    fn single(&self, tok: &mut Token, kind: TokenType) -> usize {
        tok.assign(kind, self.pos, &self.s[self.pos..self.pos + 1]);
        self.pos + 1
    }

    fn operator1(&self, tok: &mut Token) -> usize {
        self.single(tok, TokenType::Operator)
    }

    fn operator2(&self, tok: &mut Token) -> usize {
        let (s, pos) = (self.s, self.pos);
        if pos + 1 >= s.len() {
            return self.operator1(tok);
        }
        if s[pos..].starts_with(b"<=>") {
            tok.assign(TokenType::Operator, pos, &s[pos..pos + 3]);
            return pos + 3;
        }
        if let Some(kind) = lookup_word(&s[pos..pos + 2]) {
            tok.assign(kind, pos, &s[pos..pos + 2]);
            return pos + 2;
        }
        if s[pos] == b':' {
            return self.single(tok, TokenType::Colon);
        }
        self.operator1(tok)
    }

    /// A string starting at `pos + offset` and ending at an unescaped `delim` (or end of input).
    /// `offset` is 0 for the simulated quote of a quote context, else the opening's length.
    fn string_core(&self, tok: &mut Token, pos: usize, delim: u8, offset: usize) -> usize {
        let s = self.s;
        let start = pos + offset;
        let open = if offset > 0 { delim } else { 0 };
        let mut search = start;
        let end = loop {
            match find_byte(s, search, delim) {
                Some(q) if q > start && backslash_escaped(s, start, q) => search = q + 1,
                Some(q) if q + 1 < s.len() && s[q + 1] == delim => search = q + 2,
                end => break end,
            }
        };
        self.string_until(tok, start, end, open, delim, 1)
    }

    /// A string token from `start` up to `end`, where a closing delimiter of `closer_len` bytes
    /// begins; or to the end of input (unclosed) when `end` is `None`. Returns where the next
    /// token starts.
    fn string_until(
        &self,
        tok: &mut Token,
        start: usize,
        end: Option<usize>,
        open: u8,
        close: u8,
        closer_len: usize,
    ) -> usize {
        let s = self.s;
        tok.str_open = open;
        match end {
            None => {
                tok.assign(TokenType::String, start, &s[start..]);
                tok.str_close = 0;
                s.len()
            }
            Some(e) => {
                tok.assign(TokenType::String, start, &s[start..e]);
                tok.str_close = close;
                e + closer_len
            }
        }
    }

    fn eol_comment(&self, tok: &mut Token) -> usize {
        let (s, pos) = (self.s, self.pos);
        match find_byte(s, pos, b'\n') {
            None => {
                tok.assign(TokenType::Comment, pos, &s[pos..]);
                s.len()
            }
            Some(nl) => {
                tok.assign(TokenType::Comment, pos, &s[pos..nl]);
                nl + 1
            }
        }
    }

    fn hash(&mut self, tok: &mut Token) -> usize {
        self.stats_comment_hash += 1;
        if self.flags.dialect == Dialect::Mysql {
            self.stats_comment_hash += 1;
            self.eol_comment(tok)
        } else {
            self.operator1(tok)
        }
    }

    fn dash(&mut self, tok: &mut Token) -> usize {
        let (s, pos) = (self.s, self.pos);
        let double = s.get(pos + 1) == Some(&b'-');
        if double && (pos + 2 == s.len() || s.get(pos + 2).is_some_and(|&c| is_white(c))) {
            self.eol_comment(tok)
        } else if double && self.flags.dialect == Dialect::Ansi {
            // `--x`: a comment in ANSI SQL, two minus signs in MySQL.
            self.stats_comment_ddx += 1;
            self.eol_comment(tok)
        } else {
            self.operator1(tok)
        }
    }

    fn slash(&self, tok: &mut Token) -> usize {
        let (s, pos) = (self.s, self.pos);
        if s.get(pos + 1) != Some(&b'*') {
            return self.operator1(tok);
        }
        let end = find_pair(s, pos + 2, s.len() - (pos + 2), b'*', b'/');
        let clen = match end {
            None => s.len() - pos,
            Some(e) => e + 2 - pos,
        };
        // A comment opening inside a comment (PostgreSQL nests them) or a MySQL `/*!` versioned
        // comment makes the real parse unknowable: flag the input as evil.
        let nested =
            end.is_some_and(|e| find_pair(s, pos + 2, e - (pos + 1), b'/', b'*').is_some());
        let mysql = s.get(pos + 2) == Some(&b'!');
        let kind = if nested || mysql {
            TokenType::Evil
        } else {
            TokenType::Comment
        };
        tok.assign(kind, pos, &s[pos..pos + clen]);
        pos + clen
    }

    fn backslash(&self, tok: &mut Token) -> usize {
        let (s, pos) = (self.s, self.pos);
        if s.get(pos + 1) == Some(&b'N') {
            // MySQL's `\N` is NULL.
            tok.assign(TokenType::Number, pos, &s[pos..pos + 2]);
            pos + 2
        } else {
            self.single(tok, TokenType::Backslash)
        }
    }

    fn variable(&self, tok: &mut Token) -> usize {
        let s = self.s;
        let mut pos = self.pos + 1;
        if s.get(pos) == Some(&b'@') {
            pos += 1;
            tok.count = 2;
        } else {
            tok.count = 1;
        }
        match s.get(pos) {
            Some(b'`') => {
                let end = self.tick_at(tok, pos);
                tok.kind = TokenType::Variable;
                end
            }
            Some(&q @ (b'\'' | b'"')) => {
                let end = self.string_core(tok, pos, q, 1);
                tok.kind = TokenType::Variable;
                end
            }
            _ => {
                let len = span_until(&s[pos..], ends_variable);
                tok.assign(TokenType::Variable, pos, &s[pos..pos + len]);
                pos + len
            }
        }
    }

    fn tick(&self, tok: &mut Token) -> usize {
        self.tick_at(tok, self.pos)
    }

    /// A backquoted identifier: a function if its text is one, else a bare word.
    fn tick_at(&self, tok: &mut Token, pos: usize) -> usize {
        let end = self.string_core(tok, pos, b'`', 1);
        // Looked up by the capped value, as libinjection does.
        tok.kind = if lookup_word(tok.value()) == Some(TokenType::Function) {
            TokenType::Function
        } else {
            TokenType::Bareword
        };
        end
    }

    fn bracket_word(&self, tok: &mut Token) -> usize {
        let (s, pos) = (self.s, self.pos);
        match find_byte(s, pos, b']') {
            None => {
                tok.assign(TokenType::Bareword, pos, &s[pos..]);
                s.len()
            }
            Some(e) => {
                tok.assign(TokenType::Bareword, pos, &s[pos..=e]);
                e + 1
            }
        }
    }

    fn money(&self, tok: &mut Token) -> usize {
        let (s, pos) = (self.s, self.pos);
        if pos + 1 == s.len() {
            tok.assign(TokenType::Bareword, pos, b"$");
            return s.len();
        }
        let digits = span(&s[pos + 1..], |c| {
            c.is_ascii_digit() || c == b'.' || c == b','
        });
        if digits == 1 && s[pos + 1] == b'.' {
            return self.word(tok);
        }
        if digits > 0 {
            // Money: `$1,000.00`.
            tok.assign(TokenType::Number, pos, &s[pos..pos + 1 + digits]);
            return pos + 1 + digits;
        }
        if s[pos + 1] == b'$' {
            // PostgreSQL `$$ ... $$` string.
            let start = pos + 2;
            let end = find_slice(s, start, b"$$");
            return self.string_until(tok, start, end, b'$', b'$', 2);
        }
        // PostgreSQL `$tag$ ... $tag$` string.
        let tag = span(&s[pos + 1..], |c| c.is_ascii_alphabetic());
        if tag == 0 || pos + tag + 1 == s.len() || s[pos + tag + 1] != b'$' {
            tok.assign(TokenType::Bareword, pos, b"$");
            return pos + 1;
        }
        let start = pos + tag + 2;
        let delim = &s[pos..start];
        // C libinjection 3.9.2 searches for the closing tag in a window shifted back by `pos`
        // (`s[tag + 2 .. len - pos]`) and treats a match before the opening as no match; we
        // reproduce it so verdicts agree with the C library deployed in ModSecurity.
        let closing = find_slice(&s[..s.len() - pos], tag + 2, delim).filter(|&e| e >= start);
        self.string_until(tok, start, closing, b'$', b'$', delim.len())
    }

    fn number(&self, tok: &mut Token) -> usize {
        let s = self.s;
        let start = self.pos;
        if s[start] == b'0' && start + 1 < s.len() {
            let radix: Option<fn(u8) -> bool> = match s[start + 1] {
                b'X' | b'x' => Some(|c: u8| c.is_ascii_hexdigit()),
                b'B' | b'b' => Some(|c: u8| c == b'0' || c == b'1'),
                _ => None,
            };
            if let Some(accept) = radix {
                let len = span(&s[start + 2..], accept);
                let kind = if len == 0 {
                    TokenType::Bareword
                } else {
                    TokenType::Number
                };
                tok.assign(kind, start, &s[start..start + 2 + len]);
                return start + 2 + len;
            }
        }
        let digits_from = |mut p: usize| {
            while p < s.len() && s[p].is_ascii_digit() {
                p += 1;
            }
            p
        };
        let mut pos = digits_from(start);
        if s.get(pos) == Some(&b'.') {
            pos = digits_from(pos + 1);
            if pos - start == 1 {
                tok.assign(TokenType::Dot, start, b".");
                return pos;
            }
        }
        let mut has_e = false;
        let mut has_exponent = false;
        if matches!(s.get(pos), Some(b'E' | b'e')) {
            has_e = true;
            pos += 1;
            if matches!(s.get(pos), Some(b'+' | b'-')) {
                pos += 1;
            }
            let after = digits_from(pos);
            has_exponent = after > pos;
            pos = after;
        }
        // Oracle's float/double suffixes: `1.5f`, `2d`; also `1fUNION` reads as `1f UNION`.
        if matches!(s.get(pos), Some(b'd' | b'D' | b'f' | b'F')) {
            match s.get(pos + 1) {
                None => pos += 1,
                Some(&c) if is_white(c) || c == b';' || c == b'u' || c == b'U' => pos += 1,
                Some(_) => {}
            }
        }
        // `1.e`, `.E`: a word, not a number.
        let kind = if has_e && !has_exponent {
            TokenType::Bareword
        } else {
            TokenType::Number
        };
        tok.assign(kind, start, &s[start..pos]);
        pos
    }

    /// `b'0101'` (MySQL bit literal) or a word.
    fn bit_string(&self, tok: &mut Token) -> usize {
        self.radix_string(tok, |c| c == b'0' || c == b'1')
    }

    /// `x'1F'` (hex literal) or a word.
    fn hex_string(&self, tok: &mut Token) -> usize {
        self.radix_string(tok, |c| c.is_ascii_hexdigit())
    }

    fn radix_string(&self, tok: &mut Token, accept: fn(u8) -> bool) -> usize {
        let (s, pos) = (self.s, self.pos);
        if pos + 2 >= s.len() || s[pos + 1] != b'\'' {
            return self.word(tok);
        }
        let len = span(&s[pos + 2..], accept);
        if pos + 2 + len >= s.len() || s[pos + 2 + len] != b'\'' {
            return self.word(tok);
        }
        tok.assign(TokenType::Number, pos, &s[pos..pos + len + 3]);
        pos + len + 3
    }

    /// PostgreSQL `E'...'` escape string, or a word.
    fn e_string(&self, tok: &mut Token) -> usize {
        let (s, pos) = (self.s, self.pos);
        if pos + 2 >= s.len() || s[pos + 1] != b'\'' {
            return self.word(tok);
        }
        self.string_core(tok, pos, b'\'', 2)
    }

    /// `N'...'` national string or Oracle `Nq'[...]'`, or a word.
    fn n_string(&self, tok: &mut Token) -> usize {
        let (s, pos) = (self.s, self.pos);
        if pos + 2 < s.len() && s[pos + 1] == b'\'' {
            return self.e_string(tok);
        }
        self.q_string(tok, 1)
    }

    /// Oracle `q'[...]'` quoted string (any delimiter, brackets paired), or a word.
    fn q_string(&self, tok: &mut Token, offset: usize) -> usize {
        let s = self.s;
        let pos = self.pos + offset;
        if pos + 2 >= s.len() || !matches!(s[pos], b'q' | b'Q') || s[pos + 1] != b'\'' {
            return self.word(tok);
        }
        let open = s[pos + 2];
        // C compares a signed char with 33: bytes above 127 are negative there, so only
        // printable ASCII delimiters start a q-string.
        if !(33..=127).contains(&open) {
            return self.word(tok);
        }
        let close = match open {
            b'(' => b')',
            b'[' => b']',
            b'{' => b'}',
            b'<' => b'>',
            c => c,
        };
        let start = pos + 3;
        let end = find_slice(s, start, &[close, b'\'']);
        self.string_until(tok, start, end, b'q', b'q', 2)
    }

    /// `U&'...'` unicode string, or a word.
    fn u_string(&self, tok: &mut Token) -> usize {
        let (s, pos) = (self.s, self.pos);
        if pos + 2 < s.len() && s[pos + 1] == b'&' && s[pos + 2] == b'\'' {
            let end = self.string_core(tok, pos + 2, b'\'', 1);
            tok.str_open = b'u';
            if tok.str_close == b'\'' {
                tok.str_close = b'u';
            }
            end
        } else {
            self.word(tok)
        }
    }

    fn word(&self, tok: &mut Token) -> usize {
        let (s, pos) = (self.s, self.pos);
        let wlen = span_until(&s[pos..], ends_word);
        tok.assign(TokenType::Bareword, pos, &s[pos..pos + wlen]);
        // `SELECT.1`, `SELECT`col``: a keyword before a dot or backquote is a token of its own.
        for i in 0..tok.len {
            if matches!(tok.val[i], b'.' | b'`')
                && let Some(kind) = lookup_word(&tok.val[..i])
                && kind != TokenType::Bareword
            {
                *tok = Token::default();
                tok.assign(kind, pos, &s[pos..pos + i]);
                return pos + i;
            }
        }
        if wlen <= TOKEN_VALUE_MAX {
            tok.kind = lookup_word(&s[pos..pos + wlen]).unwrap_or(TokenType::Bareword);
        }
        pos + wlen
    }
}
