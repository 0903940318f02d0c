//! The QR code of the TOTP set-up (the `otpauth://` URI an authenticator app scans), drawn as SVG here so the
//! panel needs no image library in the page and nothing from outside: Nayuki's `qrcodegen` computes the modules.
use qrcodegen::{QrCode, QrCodeEcc};

/// Light modules around the code: the quiet zone ISO/IEC 18004 asks for, so a camera finds the code's edges.
const BORDER: i32 = 4;

/// `text` as a QR code in SVG (error correction M, as apps scan from screens), one path of dark modules, scaled
/// by the page; `None` when it is too long for a QR code (an otpauth URI is about 150 bytes, far below).
pub fn svg(text: &str) -> Option<String> {
    let code = QrCode::encode_text(text, QrCodeEcc::Medium).ok()?;
    let size = code.size();
    let mut path = String::new();
    for y in 0..size {
        for x in 0..size {
            if code.get_module(x, y) {
                path.push_str(&format!("M{},{}h1v1h-1z", x + BORDER, y + BORDER));
            }
        }
    }
    let full = size + 2 * BORDER;
    Some(format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {full} {full}\" shape-rendering=\"crispEdges\" \
         role=\"img\" aria-label=\"QR code of the authenticator set-up\">\
         <rect width=\"{full}\" height=\"{full}\" fill=\"#fff\"/><path fill=\"#000\" d=\"{path}\"/></svg>"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_otpauth_uri_is_drawn_with_its_quiet_zone() {
        let uri = "otpauth://totp/waf:admin?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=waf&algorithm=SHA1&digits=6&period=30";
        let drawn = svg(uri).unwrap();
        let size = QrCode::encode_text(uri, QrCodeEcc::Medium).unwrap().size();
        assert!(
            drawn.contains(&format!("viewBox=\"0 0 {0} {0}\"", size + 8)),
            "{drawn}"
        );
        // The top-left finder pattern's corner module, inside the border.
        assert!(drawn.contains("M4,4h1v1h-1z"));
        assert!(!drawn.contains("M0,0"));
        assert!(svg(&"x".repeat(8000)).is_none());
    }
}
