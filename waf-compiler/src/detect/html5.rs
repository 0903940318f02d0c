//! The HTML5 tokenizer of libinjection's XSS detector.
//!
//! A simplified version of the HTML5 specification's tokenizer states (data, tag open, tag
//! name, attribute name and value, comments, CDATA, doctype), with the browser quirks that
//! libinjection models: NUL bytes ignored in tag names, IE's backquoted attribute values and
//! `<% %>` comments. It can start inside an attribute value, since user input is often pasted
//! there. Pinned by the upstream `test-html5-*` corpus.
//!
//! Every state either emits a token, ends the input or moves forward, and every search scans
//! forward from the current position, so tokenizing is linear in the input.

/// Token classes, named as upstream's test driver prints them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenType {
    DataText,
    TagNameOpen,
    TagNameClose,
    TagNameSelfClose,
    TagClose,
    AttrName,
    AttrValue,
    TagComment,
    Doctype,
}

impl TokenType {
    pub fn name(self) -> &'static str {
        match self {
            TokenType::DataText => "DATA_TEXT",
            TokenType::TagNameOpen => "TAG_NAME_OPEN",
            TokenType::TagNameClose => "TAG_NAME_CLOSE",
            TokenType::TagNameSelfClose => "TAG_NAME_SELFCLOSE",
            TokenType::TagClose => "TAG_CLOSE",
            TokenType::AttrName => "ATTR_NAME",
            TokenType::AttrValue => "ATTR_VALUE",
            TokenType::TagComment => "TAG_COMMENT",
            TokenType::Doctype => "DOCTYPE",
        }
    }
}

/// Where in an HTML document the input is assumed to start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Context {
    /// Between tags.
    Data,
    /// Inside a tag, where an unquoted attribute value was expected.
    ValueNoQuote,
    ValueSingleQuote,
    ValueDoubleQuote,
    /// IE's backquoted attribute value.
    ValueBackQuote,
}

/// A token: its class and its bytes' range in the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenType,
    pub start: usize,
    pub len: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Eof,
    Data,
    TagOpen,
    EndTagOpen,
    TagName,
    TagNameClose,
    BeforeAttributeName,
    AttributeName,
    AfterAttributeName,
    BeforeAttributeValue,
    ValueQuoted(u8),
    ValueNoQuote,
    AfterValueQuoted,
    SelfClosingStartTag,
    BogusComment,
    PercentComment,
    MarkupDeclarationOpen,
    Comment,
    Cdata,
    Doctype,
}

/// What a state decided.
enum Step {
    Emit(TokenType, usize, usize),
    Stop,
    Goto(State),
}

/// Whitespace for tag and attribute syntax; NUL included (as libinjection finds it in a C
/// string of whitespace characters).
fn is_white(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | 0)
}

pub struct Tokenizer<'a> {
    s: &'a [u8],
    pos: usize,
    is_close: bool,
    state: State,
}

impl<'a> Tokenizer<'a> {
    pub fn new(s: &'a [u8], context: Context) -> Self {
        let state = match context {
            Context::Data => State::Data,
            Context::ValueNoQuote => State::BeforeAttributeName,
            Context::ValueSingleQuote => State::ValueQuoted(b'\''),
            Context::ValueDoubleQuote => State::ValueQuoted(b'"'),
            Context::ValueBackQuote => State::ValueQuoted(b'`'),
        };
        Tokenizer {
            s,
            pos: 0,
            is_close: false,
            state,
        }
    }

    fn find(&self, from: usize, c: u8) -> Option<usize> {
        self.s
            .get(from..)?
            .iter()
            .position(|&b| b == c)
            .map(|i| i + from)
    }

    /// Skips whitespace; the next byte, or `None` at end of input. A 0xFF byte also reads as end
    /// of input: libinjection returns the byte as a signed `char`, which for 0xFF equals its
    /// end-of-input marker -1. Kept for agreement with the C library.
    fn skip_white(&mut self) -> Option<u8> {
        while let Some(&c) = self.s.get(self.pos) {
            if !is_white(c) {
                return (c != 0xff).then_some(c);
            }
            self.pos += 1;
        }
        None
    }

    /// The next token, or `None` at end of input.
    pub fn next_token(&mut self) -> Option<Token> {
        let mut state = self.state;
        loop {
            match self.step(state) {
                Step::Emit(kind, start, len) => return Some(Token { kind, start, len }),
                Step::Stop => return None,
                Step::Goto(next) => state = next,
            }
        }
    }

    /// Steps over the current byte and goes on in `state`.
    fn skip_to(&mut self, state: State) -> Step {
        self.pos += 1;
        Step::Goto(state)
    }

    /// The `>` at the current position ends the tag (unlike the tag-name-close state, this keeps
    /// `is_close` as libinjection does).
    fn tag_end_here(&mut self) -> Step {
        let at = self.pos;
        self.pos += 1;
        self.emit(TokenType::TagNameClose, at, 1, State::Data)
    }

    /// Emits a token and sets the state the next call starts in.
    fn emit(&mut self, kind: TokenType, start: usize, len: usize, then: State) -> Step {
        self.state = then;
        Step::Emit(kind, start, len)
    }

    /// One state's work: each state is a method below, in the order of the states.
    fn step(&mut self, state: State) -> Step {
        match state {
            State::Eof => Step::Stop,
            State::Data => self.data(),
            State::TagOpen => self.tag_open(),
            State::EndTagOpen => self.end_tag_open(),
            State::TagNameClose => self.tag_name_close(),
            State::TagName => self.tag_name(),
            State::BeforeAttributeName => self.before_attribute_name(),
            State::AttributeName => self.attribute_name(),
            State::AfterAttributeName => self.after_attribute_name(),
            State::BeforeAttributeValue => self.before_attribute_value(),
            State::ValueQuoted(quote) => self.value_quoted(quote),
            State::ValueNoQuote => self.value_no_quote(),
            State::AfterValueQuoted => self.after_value_quoted(),
            State::SelfClosingStartTag => self.self_closing_start_tag(),
            State::BogusComment => self.until(b">", TokenType::TagComment),
            State::PercentComment => self.until(b"%>", TokenType::TagComment),
            State::MarkupDeclarationOpen => self.markup_declaration_open(),
            State::Comment => self.comment(),
            State::Cdata => self.until(b"]]>", TokenType::DataText),
            State::Doctype => self.until(b">", TokenType::Doctype),
        }
    }

    /// Text up to the next `<` (a token when not empty); the tag after it.
    #[inline]
    fn data(&mut self) -> Step {
        let len = self.s.len();
        let start = self.pos;
        match self.find(start, b'<') {
            None => {
                self.state = State::Eof;
                if start >= len {
                    Step::Stop
                } else {
                    Step::Emit(TokenType::DataText, start, len - start)
                }
            }
            Some(lt) => {
                self.pos = lt + 1;
                self.state = State::TagOpen;
                if lt == start {
                    Step::Goto(State::TagOpen)
                } else {
                    Step::Emit(TokenType::DataText, start, lt - start)
                }
            }
        }
    }

    /// After `<`: a markup declaration, an end tag, a comment, a tag name, or text after all.
    #[inline]
    fn tag_open(&mut self) -> Step {
        let Some(&c) = self.s.get(self.pos) else {
            return Step::Stop;
        };
        match c {
            b'!' => self.skip_to(State::MarkupDeclarationOpen),
            b'/' => {
                self.pos += 1;
                self.is_close = true;
                Step::Goto(State::EndTagOpen)
            }
            b'?' => self.skip_to(State::BogusComment),
            // `<% ... %>`: not HTML5, but IE <= 9 and old Safari read it as a comment.
            b'%' => self.skip_to(State::PercentComment),
            // NUL is ignored by IE: a tag name may start with it.
            c if c.is_ascii_alphabetic() || c == 0 => Step::Goto(State::TagName),
            _ if self.pos == 0 => Step::Goto(State::Data),
            _ => self.emit(TokenType::DataText, self.pos - 1, 1, State::Data),
        }
    }

    /// After `</`.
    #[inline]
    fn end_tag_open(&mut self) -> Step {
        let Some(&c) = self.s.get(self.pos) else {
            return Step::Stop;
        };
        if c == b'>' {
            Step::Goto(State::Data)
        } else if c.is_ascii_alphabetic() {
            Step::Goto(State::TagName)
        } else {
            self.is_close = false;
            Step::Goto(State::BogusComment)
        }
    }

    /// The `>` closing a tag.
    #[inline]
    fn tag_name_close(&mut self) -> Step {
        let len = self.s.len();
        self.is_close = false;
        let at = self.pos;
        self.pos += 1;
        let then = if self.pos < len {
            State::Data
        } else {
            State::Eof
        };
        self.emit(TokenType::TagNameClose, at, 1, then)
    }

    /// A tag's name, up to whitespace, `/` or `>` (NULs skipped).
    #[inline]
    fn tag_name(&mut self) -> Step {
        let len = self.s.len();
        let start = self.pos;
        let mut pos = start;
        while pos < len {
            let c = self.s[pos];
            let (kind, skip, then) = if c == 0 {
                // Old browsers ignore NUL inside tag names.
                pos += 1;
                continue;
            } else if is_white(c) {
                (TokenType::TagNameOpen, 1, State::BeforeAttributeName)
            } else if c == b'/' {
                (TokenType::TagNameOpen, 1, State::SelfClosingStartTag)
            } else if c == b'>' && self.is_close {
                self.is_close = false;
                (TokenType::TagClose, 1, State::Data)
            } else if c == b'>' {
                (TokenType::TagNameOpen, 0, State::TagNameClose)
            } else {
                pos += 1;
                continue;
            };
            self.pos = pos + skip;
            return self.emit(kind, start, pos - start, then);
        }
        self.emit(TokenType::TagNameOpen, start, len - start, State::Eof)
    }

    /// Inside a tag, before an attribute (or the end of the tag).
    #[inline]
    fn before_attribute_name(&mut self) -> Step {
        match self.skip_white() {
            None => Step::Stop,
            Some(b'/') => self.skip_to(State::SelfClosingStartTag),
            Some(b'>') => self.tag_end_here(),
            Some(_) => Step::Goto(State::AttributeName),
        }
    }

    /// An attribute's name, up to whitespace, `/`, `=` or `>`.
    #[inline]
    fn attribute_name(&mut self) -> Step {
        let len = self.s.len();
        let start = self.pos;
        // The first byte belongs to the name whatever it is (`=` included).
        let mut pos = start + 1;
        while pos < len {
            let c = self.s[pos];
            let (skip, then) = if is_white(c) {
                (1, State::AfterAttributeName)
            } else if c == b'/' {
                (1, State::SelfClosingStartTag)
            } else if c == b'=' {
                (1, State::BeforeAttributeValue)
            } else if c == b'>' {
                (0, State::TagNameClose)
            } else {
                pos += 1;
                continue;
            };
            self.pos = pos + skip;
            return self.emit(TokenType::AttrName, start, pos - start, then);
        }
        self.pos = len;
        self.emit(
            TokenType::AttrName,
            start,
            len.saturating_sub(start),
            State::Eof,
        )
    }

    /// After an attribute's name: its value, another attribute, or the end of the tag.
    #[inline]
    fn after_attribute_name(&mut self) -> Step {
        match self.skip_white() {
            None => Step::Stop,
            Some(b'/') => self.skip_to(State::SelfClosingStartTag),
            Some(b'=') => self.skip_to(State::BeforeAttributeValue),
            Some(b'>') => Step::Goto(State::TagNameClose),
            Some(_) => Step::Goto(State::AttributeName),
        }
    }

    /// After `=`: a quoted value or an unquoted one.
    #[inline]
    fn before_attribute_value(&mut self) -> Step {
        match self.skip_white() {
            None => {
                self.state = State::Eof;
                Step::Stop
            }
            Some(q @ (b'"' | b'\'' | b'`')) => Step::Goto(State::ValueQuoted(q)),
            Some(_) => Step::Goto(State::ValueNoQuote),
        }
    }

    /// A value up to its closing `quote` (`"`, `'` or IE's backquote).
    #[inline]
    fn value_quoted(&mut self, quote: u8) -> Step {
        let len = self.s.len();
        // Skip the opening quote, except when the input starts inside the value
        // (then there is none: `'><foo` gives an empty value, then a tag).
        if self.pos > 0 {
            self.pos += 1;
        }
        let start = self.pos.min(len);
        match self.find(start, quote) {
            None => self.emit(TokenType::AttrValue, start, len - start, State::Eof),
            Some(end) => {
                self.pos = end + 1;
                self.emit(
                    TokenType::AttrValue,
                    start,
                    end - start,
                    State::AfterValueQuoted,
                )
            }
        }
    }

    /// An unquoted value, up to whitespace or `>`.
    #[inline]
    fn value_no_quote(&mut self) -> Step {
        let len = self.s.len();
        let start = self.pos;
        let end = self.s[start..]
            .iter()
            .position(|&c| is_white(c) || c == b'>')
            .map(|i| start + i);
        match end {
            None => self.emit(TokenType::AttrValue, start, len - start, State::Eof),
            Some(end) => {
                // `>` ends the tag (and is its own token); whitespace is skipped.
                let (skip, then) = if self.s[end] == b'>' {
                    (0, State::TagNameClose)
                } else {
                    (1, State::BeforeAttributeName)
                };
                self.pos = end + skip;
                self.emit(TokenType::AttrValue, start, end - start, then)
            }
        }
    }

    /// After a quoted value.
    #[inline]
    fn after_value_quoted(&mut self) -> Step {
        let Some(&c) = self.s.get(self.pos) else {
            return Step::Stop;
        };
        if is_white(c) {
            self.skip_to(State::BeforeAttributeName)
        } else if c == b'/' {
            self.skip_to(State::SelfClosingStartTag)
        } else if c == b'>' {
            self.tag_end_here()
        } else {
            Step::Goto(State::BeforeAttributeName)
        }
    }

    /// After `/` in a tag: `/>`, or more attributes.
    #[inline]
    fn self_closing_start_tag(&mut self) -> Step {
        let Some(&c) = self.s.get(self.pos) else {
            return Step::Stop;
        };
        if c == b'>' {
            // `/>`: the token covers both bytes.
            let at = self.pos.saturating_sub(1);
            self.pos += 1;
            self.emit(TokenType::TagNameSelfClose, at, 2, State::Data)
        } else {
            Step::Goto(State::BeforeAttributeName)
        }
    }

    /// After `<!`: a doctype, CDATA, a comment or a bogus comment.
    #[inline]
    fn markup_declaration_open(&mut self) -> Step {
        let rest = self.s.get(self.pos..).unwrap_or_default();
        if rest.len() >= 7 && rest[..7].eq_ignore_ascii_case(b"DOCTYPE") {
            Step::Goto(State::Doctype)
        } else if rest.starts_with(b"[CDATA[") {
            self.pos += 7;
            Step::Goto(State::Cdata)
        } else if rest.starts_with(b"--") {
            self.pos += 2;
            Step::Goto(State::Comment)
        } else {
            Step::Goto(State::BogusComment)
        }
    }

    /// A token from the current position to `marker` (which is skipped), or to the end of input.
    fn until(&mut self, marker: &[u8], kind: TokenType) -> Step {
        let len = self.s.len();
        let start = self.pos.min(len);
        let end = self.s[start..]
            .windows(marker.len())
            .position(|w| w == marker)
            .map(|i| start + i);
        match end {
            None => self.emit(kind, start, len - start, State::Eof),
            Some(end) => {
                self.pos = end + marker.len();
                self.emit(kind, start, end - start, State::Data)
            }
        }
    }

    /// A comment ends at `-->` or `-!>` (NULs between the first two bytes are ignored), or at
    /// the end of input.
    fn comment(&mut self) -> Step {
        let len = self.s.len();
        let start = self.pos.min(len);
        let to_end = |t: &mut Self| t.emit(TokenType::TagComment, start, len - start, State::Eof);
        let mut from = start;
        loop {
            let Some(dash) = self.find(from, b'-').filter(|&d| d + 3 <= len) else {
                return to_end(self);
            };
            let mut at = dash + 1;
            while at < len && self.s[at] == 0 {
                at += 1;
            }
            if at == len {
                return to_end(self);
            }
            if !matches!(self.s[at], b'-' | b'!') {
                from = dash + 1;
                continue;
            }
            at += 1;
            if at == len {
                return to_end(self);
            }
            if self.s[at] != b'>' {
                from = dash + 1;
                continue;
            }
            self.pos = at + 1;
            return self.emit(TokenType::TagComment, start, dash - start, State::Data);
        }
    }
}
