//! Markdown a field says it holds (`body_markdown`, `contentMarkdown`: a blog's article, a forge's issue): its
//! code blocks (fenced by three backquotes or tildes, CommonMark's fenced code) and code spans are shown as text,
//! their markup escaped by the renderer, so a post showing `<script is:inline>` in a fence runs nothing. What is
//! outside them is Markdown's text and the raw HTML CommonMark lets through, judged as written.

/// `value` with the content of its fenced code blocks and code spans blanked, when the parameter `name` says it is
/// Markdown and the value has code; None otherwise.
pub fn without_code(name: &[u8], value: &[u8]) -> Option<Vec<u8>> {
    if !super::name::says_markdown(name)
        || !value.contains(&b'`') && !value.windows(3).any(|w| w == b"~~~")
    {
        return None;
    }
    let mut out = Vec::with_capacity(value.len());
    // The fence a code block was opened with (its character and length), while inside one.
    let mut fence: Option<(u8, usize)> = None;
    for line in value.split_inclusive(|&b| b == b'\n') {
        let indent = line.iter().take_while(|&&b| b == b' ').count();
        let rest = &line[indent..];
        let run = |mark: u8| rest.iter().take_while(|&&b| b == mark).count();
        let opening = (indent <= 3)
            .then(|| {
                [b'`', b'~']
                    .into_iter()
                    .find(|&mark| run(mark) >= 3)
                    .map(|mark| (mark, run(mark)))
            })
            .flatten();
        match (fence, opening) {
            (None, Some(open)) => {
                fence = Some(open);
                out.extend_from_slice(line);
            }
            (Some((mark, len)), Some((closing, closing_len)))
                if closing == mark
                    && closing_len >= len
                    && rest[closing_len..].trim_ascii().is_empty() =>
            {
                fence = None;
                out.extend_from_slice(line);
            }
            (Some(_), _) => out.extend(line.iter().map(|&b| if b == b'\n' { b'\n' } else { b' ' })),
            (None, None) => out.extend_from_slice(&without_spans(line)),
        }
    }
    (out != value).then_some(out)
}

/// `line` with the content of its code spans (a run of backquotes to the next run of the same length) blanked.
fn without_spans(line: &[u8]) -> Vec<u8> {
    let mut out = line.to_vec();
    let mut i = 0;
    while i < line.len() {
        if line[i] != b'`' {
            i += 1;
            continue;
        }
        let len = line[i..].iter().take_while(|&&b| b == b'`').count();
        let start = i + len;
        let mut j = start;
        let mut end = None;
        while j < line.len() {
            if line[j] == b'`' {
                let run = line[j..].iter().take_while(|&&b| b == b'`').count();
                if run == len {
                    end = Some(j);
                    break;
                }
                j += run;
            } else {
                j += 1;
            }
        }
        match end {
            Some(end) => {
                out[start..end].fill(b' ');
                i = end + len;
            }
            None => i = start,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_is_text_and_the_rest_is_markdown() {
        let post = b"Put a script in `<head>`:\n\n```html\n<script is:inline>\n  document.documentElement.dataset.theme = t;\n</script>\n```\n\nDone.";
        let prose = without_code(b"json.article.bodyMarkdown", post).expect("has code");
        assert!(!prose.windows(7).any(|w| w == b"<script"));
        assert!(!prose.windows(5).any(|w| w == b"<head"));
        // Not Markdown by its name: judged as it is.
        assert!(without_code(b"json.comment", post).is_none());
        // Markup outside the code stays.
        let raw = b"```\nnpm run dev\n```\n<img src=x onerror=alert(1)>";
        let rest = without_code(b"body_markdown", raw).expect("has code");
        assert!(rest.windows(7).any(|w| w == b"onerror"));
        // A fence left open runs to the end, as CommonMark reads it.
        let open =
            without_code(b"contentMarkdown", b"```\n<script>alert(1)</script>").expect("has code");
        assert!(!open.windows(7).any(|w| w == b"<script"));
    }
}
