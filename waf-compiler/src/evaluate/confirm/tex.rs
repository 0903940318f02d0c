//! Mathematics written in TeX inside text: questions and answers on maths sites, forum posts with a maths
//! plugin, notebooks' Markdown cells, all typeset in the page by MathJax or KaTeX (`$f(x)=\sin(1/x)$`,
//! `$$\int_0^1 x^2\,dx$$`, `\(a^2+b^2\)`). Read as bytes, such a sentence is punctuation more than letters, and
//! its formulas look like a shell's or PHP's variables (`$g(x)`, `$(0,1)`); a reader of the text sees prose.

use crate::operator::is_name_byte;

/// The bytes a formula may hold beside letters, digits and blanks: TeX's operators, groups, sub- and
/// superscripts and commands. No quote, `;`, `&`, `$`, backquote, `#`, `%`, `@`, `?` or `~`: those start or
/// join the code of other languages, and a formula holding one is read as written.
const FORMULA_PUNCTUATION: &[u8] = b"\\^_{}()[]+-*/=<>,.|!':";

/// `value` with each TeX formula in it replaced by a word (`x`, as a reader names it), when it holds one at least with a command of TeX
/// (`\frac`, `\sin`, `\to`: a backslash and two letters or more) and every `$`...`$` pair in it is a formula;
/// `None` otherwise (no formula, or one that holds what no formula does). The rules' parsers still read the value
/// as sent; this only tells its shape.
pub fn without_formulas(value: &[u8]) -> Option<Vec<u8>> {
    // Every delimiter starts with `$` or a backslash: a value with neither is read as it is, without a copy.
    memchr::memchr2(b'$', b'\\', value)?;
    let mut text = Vec::with_capacity(value.len());
    let (mut formulas, mut commands) = (0usize, false);
    // The delimiters whose closing one is nowhere after where it was last looked for: looking again from a later
    // place finds none either, so each is looked for past any place once at most (the work stays linear in the
    // value's length, whatever run of openings it holds).
    let mut unclosed = [false; PAIRS.len()];
    let mut i = 0;
    while i < value.len() {
        // A `$` glued to a name before it is no formula's start (`US$5`, `a$b`, `\$`).
        let glued = i > 0 && (is_name_byte(&value[i - 1]) || value[i - 1] == b'\\');
        let pair = PAIRS
            .iter()
            .position(|(open, _)| value[i..].starts_with(open))
            .filter(|&pair| !glued && !unclosed[pair]);
        let Some(pair) = pair else {
            text.push(value[i]);
            i += 1;
            continue;
        };
        let (open, close) = PAIRS[pair];
        let start = i + open.len();
        let end = match closing(value, start, open, close) {
            Closing::At(end) => end,
            Closing::Nowhere => {
                unclosed[pair] = true;
                continue;
            }
            Closing::NotHere => {
                text.push(value[i]);
                i += 1;
                continue;
            }
        };
        let formula = &value[start..end];
        if !is_formula(formula) {
            return None;
        }
        commands |= has_command(formula);
        formulas += 1;
        text.push(b'x');
        i = end + close.len();
    }
    (formulas > 0 && commands).then_some(text)
}

/// The delimiters of formulas: display `$$`, inline `$`, LaTeX's `\(` and `\[`, and Codeforces' `$$$`, the
/// longer first.
const PAIRS: [(&[u8], &[u8]); 5] = [
    (b"$$$", b"$$$"),
    (b"$$", b"$$"),
    (b"$", b"$"),
    (b"\\(", b"\\)"),
    (b"\\[", b"\\]"),
];

/// Where a formula ends, if it does.
enum Closing {
    /// At this index, where its closing delimiter starts.
    At(usize),
    /// No closing delimiter of its kind anywhere after its start.
    Nowhere,
    /// The delimiter there starts no formula.
    NotHere,
}

/// Where the formula opened by `open` before `start` ends, as Pandoc reads inline TeX: the opening `$` is
/// followed by a non-blank other than `_` (PHP's `$_GET`), the next `$` closes it if it follows a non-blank and
/// is not followed by a digit (`$5 and $10` are prices) or a name, and an inline formula ends on its line.
fn closing(value: &[u8], start: usize, open: &[u8], close: &[u8]) -> Closing {
    let inline = open == b"$";
    if inline
        && value
            .get(start)
            .is_none_or(|&b| b.is_ascii_whitespace() || b == b'_')
    {
        return Closing::NotHere;
    }
    let Some(found) = memchr::memmem::find(&value[start..], close).map(|at| start + at) else {
        return Closing::Nowhere;
    };
    if found == start {
        return Closing::NotHere;
    }
    if inline {
        let line_ends = memchr::memchr(b'\n', &value[start..found]).is_some();
        let after_blank = value[found - 1].is_ascii_whitespace();
        let before_name = value.get(found + 1).is_some_and(is_name_byte);
        if line_ends || after_blank || before_name {
            return Closing::NotHere;
        }
    }
    Closing::At(found)
}

/// Whether `formula` holds only what TeX's mathematics does ([`FORMULA_PUNCTUATION`]; `\;`, TeX's thick space).
fn is_formula(formula: &[u8]) -> bool {
    formula.iter().enumerate().all(|(i, &b)| {
        b.is_ascii_alphanumeric()
            || b >= 0x80
            || b.is_ascii_whitespace()
            || FORMULA_PUNCTUATION.contains(&b)
            || (b == b';' && i > 0 && formula[i - 1] == b'\\')
    })
}

/// Whether `formula` calls a command of TeX: a backslash and two letters or more.
fn has_command(formula: &[u8]) -> bool {
    formula
        .windows(3)
        .any(|w| w[0] == b'\\' && w[1].is_ascii_alphabetic() && w[2].is_ascii_alphabetic())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas_in_text_are_taken_out() {
        let text = |value: &str| without_formulas(value.as_bytes()).map(String::from_utf8);
        assert_eq!(
            text(r"For $g(x)=\sin(1/x)$ it fails on $(0,1)$, as shown.").unwrap(),
            Ok("For x it fails on x, as shown.".to_owned())
        );
        assert!(text(r"Then $$\int_0^1 x^2\,dx = \frac{1}{3}$$ holds").is_some());
        assert!(text(r"where \(a^2+b^2=c^2\) and \[\sum_{n=1}^\infty \frac{1}{n^2}\]").is_some());
        assert!(text(r"note that $$$a_i \oplus a_j \le 2$$$, so").is_some());
        // Prices are no formulas, nor is a formula without a command of TeX.
        assert!(text("It costs $5 and $10 with $x$ shipping").is_none());
        assert!(text("Let $x$ be a number").is_none());
        // What no formula holds leaves the value as written.
        assert!(text(r"$\frac{1}{2}$ and $(id;whoami)$").is_none());
        // Only formulas are typeset: PHP's superglobal starts none.
        assert_eq!(
            text(r"$\frac{1}{2}$ and $system($_GET[c])$").unwrap(),
            Ok("x and $system($_GET[c])$".to_owned())
        );
        // Openings without their closing delimiters cost one look each.
        let openings = "\\(".repeat(100_000) + r"$\frac{1}{2}$";
        assert!(text(&openings).is_some());
    }
}
