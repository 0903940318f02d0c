//! GraphQL documents: the query a single-page app posts (`{"query": "mutation AddComment($input: ...) { ... }"}`,
//! or `?query=` in a URL) is code the client sends by design, its field names and braces the words and
//! punctuation of other languages (`{ node { id } }` reads as a Node.js command after a brace). What a user can
//! put in such a document is its string values: those are judged on their own, as any value is.

use apollo_parser::Parser;
use apollo_parser::cst::{self, CstNode};

/// Bounds on the parser's work on a value a pattern hit: enough for the largest queries apps send (GitHub's
/// and Shopify's clients stay within a few thousand tokens), an error beyond.
const TOKEN_LIMIT: usize = 20_000;
const RECURSION_LIMIT: usize = 64;

/// The string values of `value` when it is a GraphQL executable document (operations and fragments only, with
/// selection sets, parsed without an error); `None` when it is not one.
pub fn strings(value: &[u8]) -> Option<Vec<String>> {
    let text = std::str::from_utf8(value).ok()?;
    // A shell's brace expansion (`{,ifconfig,eth0}`, `{id,}`) is a selection set too, but it is one word: a
    // document as clients write it has blanks, if only after `query`.
    if !text.contains('{') || !text.bytes().any(|b| b.is_ascii_whitespace()) {
        return None;
    }
    let tree = Parser::new(text)
        .token_limit(TOKEN_LIMIT)
        .recursion_limit(RECURSION_LIMIT)
        .parse();
    if tree.errors().next().is_some() {
        return None;
    }
    let document = tree.document();
    let mut definitions = document.definitions().peekable();
    definitions.peek()?;
    let executable = definitions.all(|definition| {
        matches!(
            definition,
            cst::Definition::OperationDefinition(_) | cst::Definition::FragmentDefinition(_)
        )
    });
    executable.then(|| {
        document
            .syntax()
            .descendants()
            .filter_map(cst::StringValue::cast)
            .map(String::from)
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_give_their_strings() {
        let query = r#"mutation AddComment($input: AddCommentInput!) { addComment(input: $input) { commentEdge { node { id body } } } }"#;
        assert_eq!(strings(query.as_bytes()), Some(vec![]));
        let search = r#"query { search(q: "it's \"fine\"", first: 10) { ...Hit } } fragment Hit on Item { id }"#;
        assert_eq!(
            strings(search.as_bytes()),
            Some(vec![r#"it's "fine""#.to_owned()])
        );
    }

    #[test]
    fn code_and_fragments_are_not_graphql() {
        for value in [
            "{,ifconfig,eth0}",
            "{id,}",
            "; id",
            "{ls,-la}",
            "$(cat /etc/passwd)",
            "{cat,/etc/passwd}",
            "{ x",
            "type T { a: Int }",
            "",
        ] {
            assert_eq!(strings(value.as_bytes()), None, "{value}");
        }
    }
}
