//! `anomaly_threshold`: CRS's blocking evaluation (949110). The rule reads no variable, so this operator never
//! runs on a value: evaluation compares the request's anomaly score with the threshold in force after the
//! other rules ([`crate::evaluate`]). The CRS converter recognises the rule by its shape, not by an operator
//! name.

use super::{Operator, SCORE_ONLY};

pub(super) const OPERATOR: Operator = SCORE_ONLY;
