//! `anomaly_report`: CRS's correlation report (980170, `phase: logging`). The rule reads no variable, so this
//! operator never runs on a value: the logging phase reports it when the transaction's anomaly score, inbound
//! plus outbound, is above zero ([`crate::evaluate`]).

use super::{Operator, SCORE_ONLY};

pub(super) const OPERATOR: Operator = SCORE_ONLY;
