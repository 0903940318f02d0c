//! Session fixation: an attacker gets a victim's browser to send a session id of the attacker's choosing, by a
//! link to the site or a form on another site that posts to it. CRS flags any parameter named as a session id
//! (`session_id`, `PHPSESSID`...) with another site's Referer or none. Most such parameters are nothing of the
//! kind: an analytics script reporting its own `session_id` to its collector from the page that embeds it, a
//! payment provider's return link, a mobile app's API call. What tells them apart is how the request came:
//! - a browser says, in `Sec-Fetch-Mode`, whether a request is a navigation (`navigate`: a link, a form, a
//!   redirect) or a script's or subresource's request (`cors`, `no-cors`, `same-origin`); a script on another
//!   site cannot read or set the site's cookies through its own requests, so only a navigation is a vector;
//! - a JSON body is sent by scripts alone (no link or form sends one), so a session id in it is no vector.
//!
//! A client that sends no `Sec-Fetch-Mode` (an older browser, a non-browser client) is given no such credit.

use super::Confirmation;

/// Whether the parameter named `name` can have come through a link or a form the victim was sent to, by the
/// request's `headers`.
pub fn vector(name: &[u8], headers: &[(&str, &[u8])]) -> Confirmation {
    let fetch_mode = headers
        .iter()
        .find(|(header, _)| header.eq_ignore_ascii_case("sec-fetch-mode"))
        .map(|(_, value)| *value);
    let refused = |reason: &str| Confirmation {
        confirmed: false,
        reason: reason.to_owned(),
    };
    if name.starts_with(b"json.") {
        return refused("a session id in a JSON body, which no link or form sends");
    }
    match fetch_mode {
        Some(mode) if !mode.eq_ignore_ascii_case(b"navigate") => refused(
            "a script's or subresource's request (Sec-Fetch-Mode), not a navigation a link or a form causes",
        ),
        _ => Confirmation {
            confirmed: true,
            reason: "a session id in a navigation's query or form".to_owned(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_navigations_and_forms_carry_a_fixation() {
        let mode = |value: &'static [u8]| [("Sec-Fetch-Mode", value)];
        assert!(vector(b"phpsessid", &[]).confirmed);
        assert!(vector(b"session_id", &mode(b"navigate")).confirmed);
        assert!(!vector(b"session_id", &mode(b"no-cors")).confirmed);
        assert!(!vector(b"session_id", &mode(b"cors")).confirmed);
        assert!(!vector(b"json.session_id", &[]).confirmed);
    }
}
