//! What a SAML response must not contain, refused on the raw bytes before any XML parser sees them.
//!
//! - A DOCTYPE (and with it every entity declaration): external entities read files and call URLs (XXE), internal
//!   ones expand into gigabytes ("billion laughs"). SAML never needs a DTD, so any `<!` other than a CDATA section
//!   is refused, whatever the parser downstream would have done with it.
//! - Comments: exclusive canonicalization drops them before the digest, so `<NameID>admin@corp<!---->.evil</NameID>`
//!   keeps a valid signature while a parser that stops at the comment reads another user. Identity providers do not
//!   put comments in responses; refusing them closes the whole class rather than trusting every parser's text
//!   handling.
//! - More than [`MAX_RESPONSE_BYTES`], or anything but UTF-8.
//! - Any shape but one Response holding one Assertion ([`single_assertion_id`]): every signature-wrapping attack
//!   (XSW1-8) needs a second copy of the Response or the Assertion somewhere in the document, and the assertion
//!   consumed must be that one.

/// A signed response with a certificate chain and a generous attribute statement is a few tens of kilobytes.
pub const MAX_RESPONSE_BYTES: usize = 256 * 1024;

/// Why a SAML response is refused before its signature is looked at.
#[derive(Debug, thiserror::Error)]
pub enum HostileResponse {
    #[error("SAMLResponse larger than {MAX_RESPONSE_BYTES} bytes")]
    TooLarge,
    #[error("SAMLResponse is not base64: {0}")]
    NotBase64(base64::DecodeError),
    #[error("SAMLResponse is not UTF-8")]
    NotUtf8,
    #[error("unterminated CDATA section")]
    UnterminatedCdata,
    #[error("XML comments are refused (they can split a signed NameID)")]
    Comment,
    #[error("DOCTYPE and entity declarations are refused")]
    Declaration,
    #[error("malformed XML: {0}")]
    MalformedXml(quick_xml::Error),
    #[error("the document is not a SAML Response")]
    NotAResponse,
    #[error("encrypted assertions are not supported (this SP holds no decryption key)")]
    EncryptedAssertion,
    #[error("the response carries no assertion")]
    NoAssertion,
    #[error(
        "{responses} Response and {assertions} Assertion elements where one of each belongs (signature wrapping)"
    )]
    Wrapped { responses: usize, assertions: usize },
}

/// The XML document in `saml_response` (the base64 POST parameter), if it is acceptable to parse.
pub fn document(saml_response: &str) -> Result<String, HostileResponse> {
    use base64::Engine;
    // Base64 is 4/3 of the document; refuse before decoding anything larger.
    if saml_response.len() > MAX_RESPONSE_BYTES / 3 * 4 + 4 {
        return Err(HostileResponse::TooLarge);
    }
    // Identity providers wrap the base64 at 64 or 76 columns.
    let compact: String = saml_response
        .chars()
        .filter(|c| !c.is_ascii_whitespace())
        .collect();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(compact)
        .map_err(HostileResponse::NotBase64)?;
    let text = String::from_utf8(bytes).map_err(|_| HostileResponse::NotUtf8)?;
    refuse_markup(&text)?;
    Ok(text)
}

/// Refuses DOCTYPE, entity and other declarations, and comments; allows CDATA sections.
fn refuse_markup(text: &str) -> Result<(), HostileResponse> {
    let mut rest = text;
    while let Some(at) = rest.find("<!") {
        let after = &rest[at + 2..];
        if let Some(cdata) = after.strip_prefix("[CDATA[") {
            // A CDATA section's content is text: skip to its end so a `<!` inside is not mistaken for markup.
            let end = cdata
                .find("]]>")
                .ok_or(HostileResponse::UnterminatedCdata)?;
            rest = &cdata[end + 3..];
            continue;
        }
        if after.starts_with("--") {
            return Err(HostileResponse::Comment);
        }
        return Err(HostileResponse::Declaration);
    }
    Ok(())
}

/// The ID of the one Assertion in `document`, whose root must be the one Response; anything else is refused.
pub fn single_assertion_id(document: &str) -> Result<String, HostileResponse> {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(document);
    let (mut elements, mut responses) = (0usize, 0usize);
    let mut assertions = Vec::new();
    loop {
        let element = match reader.read_event() {
            Ok(Event::Start(e) | Event::Empty(e)) => e,
            Ok(Event::Eof) => break,
            Ok(_) => continue,
            Err(e) => return Err(HostileResponse::MalformedXml(e)),
        };
        let local = element.local_name();
        if elements == 0 && local.as_ref() != b"Response" {
            return Err(HostileResponse::NotAResponse);
        }
        elements += 1;
        match local.as_ref() {
            b"Response" => responses += 1,
            b"EncryptedAssertion" => {
                return Err(HostileResponse::EncryptedAssertion);
            }
            b"Assertion" => assertions.push(
                element
                    .try_get_attribute("ID")
                    .ok()
                    .flatten()
                    .and_then(|a| a.unescape_value().ok())
                    .map(|v| v.into_owned())
                    .unwrap_or_default(),
            ),
            _ => {}
        }
    }
    match (responses, assertions.as_slice()) {
        (1, [id]) if !id.is_empty() => Ok(id.clone()),
        (1, []) => Err(HostileResponse::NoAssertion),
        (responses, assertions) => Err(HostileResponse::Wrapped {
            responses,
            assertions: assertions.len(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine;

    fn encoded(xml: &str) -> String {
        base64::engine::general_purpose::STANDARD.encode(xml)
    }

    #[test]
    fn plain_documents_pass_and_markup_is_refused() {
        let ok = "<?xml version=\"1.0\"?><samlp:Response><a><![CDATA[x <!DOCTYPE y]]></a></samlp:Response>";
        assert_eq!(document(&encoded(ok)).unwrap(), ok);
        for (xml, why) in [
            (
                "<!DOCTYPE r [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><r>&x;</r>",
                "DOCTYPE",
            ),
            ("<r><!doctype r></r>", "DOCTYPE"),
            ("<r><NameID>a@b<!---->.evil</NameID></r>", "comments"),
            ("<r><![CDATA[never closed</r>", "CDATA"),
        ] {
            let err = document(&encoded(xml)).unwrap_err().to_string();
            assert!(err.contains(why), "{xml}: {err}");
        }
        assert!(matches!(
            document("%%%"),
            Err(HostileResponse::NotBase64(_))
        ));
        assert!(matches!(
            document(&base64::engine::general_purpose::STANDARD.encode([0xff, 0xfe, 0])),
            Err(HostileResponse::NotUtf8)
        ));
        let huge = "A".repeat(MAX_RESPONSE_BYTES * 2);
        assert!(matches!(document(&huge), Err(HostileResponse::TooLarge)));
    }

    #[test]
    fn only_one_response_with_one_assertion_is_accepted() {
        let ns = "xmlns:p=\"urn:oasis:names:tc:SAML:2.0:protocol\" xmlns:a=\"urn:oasis:names:tc:SAML:2.0:assertion\"";
        let one = format!(
            "<p:Response {ns}><a:Assertion ID=\"_a1\"><a:Issuer>i</a:Issuer></a:Assertion></p:Response>"
        );
        assert_eq!(single_assertion_id(&one).unwrap(), "_a1");
        for (xml, why) in [
            (
                format!(
                    "<p:Response {ns}><a:Assertion ID=\"_e\"/><a:Assertion ID=\"_a1\"/></p:Response>"
                ),
                "2 Assertion",
            ),
            (
                format!(
                    "<p:Response {ns}><a:Assertion ID=\"_e\"><a:Assertion ID=\"_a1\"/></a:Assertion></p:Response>"
                ),
                "2 Assertion",
            ),
            (
                format!(
                    "<p:Response {ns}><p:Response><a:Assertion ID=\"_a1\"/></p:Response></p:Response>"
                ),
                "2 Response",
            ),
            (
                format!("<a:Assertion {ns} ID=\"_a1\"/>"),
                "not a SAML Response",
            ),
            (format!("<p:Response {ns}/>"), "no assertion"),
            (
                format!("<p:Response {ns}><a:EncryptedAssertion/></p:Response>"),
                "encrypted",
            ),
            (
                format!("<p:Response {ns}><a:Assertion ID=\"_a1\"></p:Response>"),
                "malformed",
            ),
        ] {
            let err = single_assertion_id(&xml).unwrap_err().to_string();
            assert!(err.contains(why), "{xml}: {err}");
        }
    }

    #[test]
    fn wrapped_base64_is_read() {
        let xml = "<r>wrapped</r>";
        let mut wrapped = encoded(xml);
        wrapped.insert(4, '\n');
        assert_eq!(document(&wrapped).unwrap(), xml);
    }
}
