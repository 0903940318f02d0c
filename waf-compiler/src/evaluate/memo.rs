//! Results remembered from one request to the next, per thread: which rules may still match a value (the
//! prefilter's marks, less the rules the second pass ran on the value without a match), and the detectors'
//! verdicts on a value.
//!
//! Both are functions of the value's bytes alone (and of the rule set, for the marks): the same
//! `User-Agent`, `Accept` or session cookie gives the same marks and verdicts on every request that carries it.
//! Real traffic repeats such values all the time: a browser sends the same headers and cookies with every
//! request of a visit. A value seen recently costs a hash and a comparison instead of its transforms, its
//! Aho-Corasick scans and its detector runs.
//!
//! What keeps it safe:
//! - A hit compares the whole value, byte for byte, with the remembered one: a hash collision can only cost a
//!   miss, never give another value's result. Verdicts with and without the memo are the same
//!   (`tests/value_memo.rs` checks every test request twice, the second time from the memo).
//! - Marks are remembered with the id of the prefilter that computed them ([`crate::compile::prefilter::Prefilter`] gets
//!   a new id whenever it is attached to a rule set), so a reloaded rule set never sees an older one's marks.
//! - Bounded: [`SCAN_SLOTS`] and [`DETECTION_SLOTS`] entries per thread, direct-mapped (a new value replaces
//!   the one in its slot), and only values of at most [`MAX_VALUE_LEN`] bytes: at most about 1.5 MB per thread
//!   of the proxy, whatever the traffic. Unique values (an attacker's, or a cache-busting query) cost the hash
//!   and one copy each, and evict nothing that matters for correctness.

/// Longest value remembered: headers, cookies and form fields are usually shorter, and long values rarely repeat.
pub const MAX_VALUE_LEN: usize = 256;
/// Entries for prefilter marks, per thread (a power of two).
pub const SCAN_SLOTS: usize = 2048;
/// Entries for detector verdicts, per thread (a power of two).
pub const DETECTION_SLOTS: usize = 2048;

/// The memo of one thread.
#[derive(Default)]
pub struct ValueMemo {
    scans: Vec<ScanEntry>,
    detections: Vec<DetectionEntry>,
    hits: u64,
}

#[derive(Clone, Default)]
struct ScanEntry {
    /// Id of the prefilter that computed `bits`; 0 for an empty entry.
    owner: u64,
    group: usize,
    value: Vec<u8>,
    /// The value's marks: bit per rule.
    bits: Vec<u64>,
}

#[derive(Clone, Default)]
struct DetectionEntry {
    verdicts: DetectorVerdicts,
    value: Vec<u8>,
}

/// The detectors' verdicts known for one value (detectors are numbered by [`crate::operator::Matcher::detector`]):
/// bit `2d` set when detector `d` ran, bit `2d + 1` when it matched.
#[derive(Clone, Copy, Default)]
pub struct DetectorVerdicts(u8);

impl DetectorVerdicts {
    /// Detector `detector`'s verdict, if it ran.
    pub fn get(self, detector: u8) -> Option<bool> {
        let (ran, matched) = (1u8 << (2 * detector), 1u8 << (2 * detector + 1));
        (self.0 & ran != 0).then_some(self.0 & matched != 0)
    }

    pub fn set(&mut self, detector: u8, verdict: bool) {
        self.0 |= 1u8 << (2 * detector) | u8::from(verdict) << (2 * detector + 1);
    }
}

impl ValueMemo {
    /// The marks prefilter `owner` computed for `value` in group `group`, if remembered.
    pub fn marks(&mut self, owner: u64, group: usize, value: &[u8]) -> Option<&[u64]> {
        let slot = slot(hash(group as u64, value), SCAN_SLOTS);
        let entry = self.scans.get(slot)?;
        let found = entry.owner == owner && entry.group == group && entry.value == value;
        if found {
            self.hits += 1;
        }
        found.then(|| &self.scans[slot].bits[..])
    }

    /// Remembers `bits` as the marks of `value` in group `group` of prefilter `owner`.
    pub fn remember_marks(&mut self, owner: u64, group: usize, value: &[u8], bits: &[u64]) {
        if value.len() > MAX_VALUE_LEN {
            return;
        }
        if self.scans.is_empty() {
            self.scans = vec![ScanEntry::default(); SCAN_SLOTS];
        }
        let entry = &mut self.scans[slot(hash(group as u64, value), SCAN_SLOTS)];
        entry.owner = owner;
        entry.group = group;
        entry.value.clear();
        entry.value.extend_from_slice(value);
        entry.bits.clear();
        entry.bits.extend_from_slice(bits);
    }

    /// Detector `detector`'s verdict on `value`: remembered, or `run` on it (and then remembered).
    pub fn detection(
        &mut self,
        detector: u8,
        value: &[u8],
        run: impl FnOnce(&[u8]) -> bool,
    ) -> bool {
        if value.len() > MAX_VALUE_LEN {
            return run(value);
        }
        if self.detections.is_empty() {
            self.detections = vec![DetectionEntry::default(); DETECTION_SLOTS];
        }
        let entry = &mut self.detections[slot(hash(0, value), DETECTION_SLOTS)];
        if entry.value != value {
            entry.verdicts = DetectorVerdicts::default();
            entry.value.clear();
            entry.value.extend_from_slice(value);
        } else if let Some(verdict) = entry.verdicts.get(detector) {
            self.hits += 1;
            return verdict;
        }
        let verdict = run(value);
        entry.verdicts.set(detector, verdict);
        verdict
    }

    /// How many lookups found their answer here (for tests).
    pub fn hits(&self) -> u64 {
        self.hits
    }
}

fn slot(hash: u64, slots: usize) -> usize {
    // The high bits: the multiplications below mix into them.
    (hash >> 32) as usize & (slots - 1)
}

/// A fast, non-cryptographic hash of `bytes` (8 bytes per step, multiply and rotate). Its quality only decides
/// how often two values compete for one slot: a hit always compares the bytes.
fn hash(seed: u64, bytes: &[u8]) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let step = |h: u64, word: u64| (h.rotate_left(5) ^ word).wrapping_mul(K);
    let mut h = step(seed, bytes.len() as u64);
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        h = step(h, u64::from_le_bytes(word));
    }
    let mut tail = [0u8; 8];
    tail[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    step(h, u64::from_le_bytes(tail))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_are_returned_only_for_the_same_bytes_group_and_prefilter() {
        let mut memo = ValueMemo::default();
        memo.remember_marks(7, 2, b"Mozilla/5.0", &[0b101]);
        assert_eq!(memo.marks(7, 2, b"Mozilla/5.0"), Some(&[0b101][..]));
        assert_eq!(memo.marks(8, 2, b"Mozilla/5.0"), None);
        assert_eq!(memo.marks(7, 3, b"Mozilla/5.0"), None);
        assert_eq!(memo.marks(7, 2, b"Mozilla/5.1"), None);
        assert_eq!(memo.hits(), 1);
    }

    #[test]
    fn long_values_are_not_remembered() {
        let mut memo = ValueMemo::default();
        let long = vec![b'a'; MAX_VALUE_LEN + 1];
        memo.remember_marks(1, 0, &long, &[1]);
        assert_eq!(memo.marks(1, 0, &long), None);
        let mut runs = 0;
        for _ in 0..2 {
            memo.detection(0, &long, |_| {
                runs += 1;
                true
            });
        }
        assert_eq!(runs, 2);
    }

    #[test]
    fn a_detector_runs_once_per_value_and_detectors_are_told_apart() {
        let mut memo = ValueMemo::default();
        let mut runs = 0;
        let mut detect = |memo: &mut ValueMemo, detector, value: &[u8]| {
            memo.detection(detector, value, |v| {
                runs += 1;
                v.contains(&b'\'')
            })
        };
        assert!(detect(&mut memo, 0, b"1' or '1'='1"));
        assert!(detect(&mut memo, 0, b"1' or '1'='1"));
        assert!(!detect(&mut memo, 0, b"plain"));
        assert!(detect(&mut memo, 1, b"1' or '1'='1"));
        assert_eq!(runs, 3);
    }

    #[test]
    fn a_slot_holds_the_latest_value() {
        let mut memo = ValueMemo::default();
        // Far more values than slots: every lookup still answers for its own bytes.
        for i in 0..(4 * SCAN_SLOTS as u64) {
            memo.remember_marks(1, 0, &i.to_le_bytes(), &[i]);
        }
        for i in 0..(4 * SCAN_SLOTS as u64) {
            if let Some(bits) = memo.marks(1, 0, &i.to_le_bytes()) {
                assert_eq!(bits, [i]);
            }
        }
        assert!(memo.scans.len() == SCAN_SLOTS);
    }
}
