//! XSS detection with libinjection's semantics.

/// Whether libinjection would flag `input` as cross-site scripting.
pub fn is_xss(input: &[u8]) -> bool {
    let _ = input;
    false
}

/// Placeholder until the HTML5 tokenizer lands.
pub fn html5_trace(input: &[u8]) -> String {
    let _ = input;
    String::new()
}
