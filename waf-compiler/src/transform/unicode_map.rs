//! ModSecurity's Unicode "best fit" map: which single byte a `%uXXXX` escape becomes in `urlDecodeUni`.
//!
//! A standard ModSecurity deployment loads `SecUnicodeMapFile unicode.mapping 20127` (the recommended
//! `modsecurity.conf`): with it, `%u2019` (a typographic apostrophe, also what `utf8toUnicode` makes of its UTF-8
//! form) becomes `'`, as it does in back ends that convert Unicode to a legacy code page (SQL Server non-Unicode
//! columns, some .NET and PHP paths). Without the map, ModSecurity keeps the code point's low byte (`%u2019` →
//! 0x19), and a payload written with look-alike quotes passes rules written for ASCII. So the engine uses code page
//! 20127 unless told otherwise, and can use any other code page of the file, or none.
//!
//! The tables are generated at compile time by `build.rs` from the committed copy of ModSecurity's file
//! (`unicode/unicode.mapping`, Apache-2.0, Copyright Trustwave Holdings, Inc.; see `unicode/README.md`), read the
//! way ModSecurity reads it.

use std::fmt;

/// One code page of the map: its number, its name in the file, and (code point, byte) sorted by code point.
#[derive(Debug, PartialEq, Eq)]
pub struct CodePageTable {
    number: u32,
    name: &'static str,
    pairs: &'static [(u16, u8)],
}

include!(concat!(env!("OUT_DIR"), "/unicode_map_tables.rs"));

/// The code page of a standard ModSecurity + CRS deployment (US-ASCII), and the engine's default.
pub const DEFAULT_CODE_PAGE: u32 = 20127;

/// The Unicode map `urlDecodeUni` uses: one code page of ModSecurity's file, or none (ModSecurity without
/// `SecUnicodeMapFile`). Cheap to copy: a reference to a static table.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct UnicodeMap(Option<&'static CodePageTable>);

/// A code page the map file does not have.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown Unicode code page {0}: the map has {list}", list = UnicodeMap::code_pages().map(|n| n.to_string()).collect::<Vec<_>>().join(", "))]
pub struct UnknownCodePage(pub u32);

impl UnicodeMap {
    /// No map: ModSecurity's behaviour without `SecUnicodeMapFile`.
    pub const NONE: UnicodeMap = UnicodeMap(None);

    /// The map of `code_page` (`None`: no map).
    pub fn for_code_page(code_page: Option<u32>) -> Result<UnicodeMap, UnknownCodePage> {
        match code_page {
            None => Ok(UnicodeMap::NONE),
            Some(n) => CODE_PAGES
                .iter()
                .find(|t| t.number == n)
                .map(|t| UnicodeMap(Some(t)))
                .ok_or(UnknownCodePage(n)),
        }
    }

    /// The code page in use, `None` without a map.
    pub fn code_page(self) -> Option<u32> {
        self.0.map(|t| t.number)
    }

    /// The code pages the map file has, in its order.
    pub fn code_pages() -> impl Iterator<Item = u32> {
        CODE_PAGES.iter().map(|t| t.number)
    }

    /// The byte the map gives `code_point`, if the map is in use and has it.
    pub fn lookup(self, code_point: u16) -> Option<u8> {
        let pairs = self.0?.pairs;
        pairs
            .binary_search_by_key(&code_point, |&(code, _)| code)
            .ok()
            .map(|i| pairs[i].1)
    }
}

impl Default for UnicodeMap {
    fn default() -> Self {
        UnicodeMap::for_code_page(Some(DEFAULT_CODE_PAGE))
            .expect("build.rs generates code page 20127 from the shipped map")
    }
}

impl fmt::Debug for UnicodeMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// `20127 (US-ASCII)`, or `none`.
impl fmt::Display for UnicodeMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(t) => write!(f, "{} {}", t.number, t.name),
            None => f.write_str("none"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pairs of one code page, read straight from its line of the committed file (a check on `build.rs`,
    /// independent of how it tokenises).
    fn pairs_in_file(code_page: &str) -> Vec<(u16, u8)> {
        let text = include_str!("../../unicode/unicode.mapping");
        let mut lines = text.lines();
        lines
            .find(|l| l.split_whitespace().next() == Some(code_page))
            .expect("the code page is in the file");
        let line = lines.next().expect("its pairs follow");
        line.split_whitespace()
            .map(|pair| {
                let (code, byte) = pair.split_once(':').expect("code:byte");
                (
                    u16::from_str_radix(code, 16).expect("hex code point"),
                    u8::from_str_radix(byte, 16).expect("hex byte"),
                )
            })
            .collect()
    }

    #[test]
    fn every_pair_of_code_page_20127_is_in_the_default_map() {
        let map = UnicodeMap::default();
        assert_eq!(map.code_page(), Some(20127));
        let pairs = pairs_in_file("20127");
        assert!(pairs.len() > 300, "{} pairs", pairs.len());
        for (code, byte) in pairs {
            assert_eq!(map.lookup(code), Some(byte), "U+{code:04X}");
        }
        // The look-alikes the issue names, and ModSecurity's full-stop presets.
        for (code, byte) in [
            (0x2019, b'\''),
            (0x2018, b'\''),
            (0x02bc, b'\''),
            (0xff07, b'\''),
            (0x201c, b'"'),
            (0x201d, b'"'),
            (0x3002, b'.'),
            (0xff61, b'.'),
        ] {
            assert_eq!(map.lookup(code), Some(byte), "U+{code:04X}");
        }
        assert_eq!(map.lookup(0x4e00), None);
    }

    #[test]
    fn other_code_pages_and_none() {
        let names: Vec<u32> = UnicodeMap::code_pages().collect();
        assert_eq!(names.len(), 28, "{names:?}");
        let latin1 = UnicodeMap::for_code_page(Some(28591)).unwrap();
        for (code, byte) in pairs_in_file("28591") {
            assert_eq!(latin1.lookup(code), Some(byte), "U+{code:04X}");
        }
        assert_eq!(latin1.to_string(), "28591 (ISO 8859-1 Latin I)");
        assert_eq!(UnicodeMap::NONE.lookup(0x2019), None);
        assert_eq!(UnicodeMap::NONE.to_string(), "none");
        let err = UnicodeMap::for_code_page(Some(65001)).unwrap_err();
        assert!(
            err.to_string()
                .contains("unknown Unicode code page 65001: the map has 1250, 1251"),
            "{err}"
        );
    }
}
