//! Which phase a rule runs in, checked against what it reads.
//!
//! The engine evaluates the request's rules when the request arrives and the response's rules when the
//! upstream answers; a view of one phase gives no value for the other phase's variables (the request's are
//! not scanned again for the response). A rule reading a variable of the other phase would therefore silently
//! never match: the loader refuses it instead, naming the field. The logging phase (CRS's correlation, 980170)
//! reads only the transaction's scores (`operator: anomaly_report`), and that operator runs nowhere else.

use crate::compile::FieldError;
use crate::rule::{ChainTarget, OperatorKind, Phase, Rule};

/// The rule's phase errors: a variable or chain target of another phase, an operator of another phase.
pub fn check(rule: &Rule) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let report = rule.operator == OperatorKind::AnomalyReport;
    match (rule.phase, report) {
        (Phase::Logging, false) => errors.push(FieldError::new(
            "phase",
            "a `logging` rule reads the transaction's scores: its operator is `anomaly_report`",
        )),
        (Phase::Request | Phase::Response, true) => errors.push(FieldError::new(
            "operator",
            "`anomaly_report` runs after the transaction: the rule's phase is `logging`",
        )),
        _ => {}
    }
    for (i, spec) in rule.variables.iter().enumerate() {
        if spec.variable.phase() != rule.phase {
            errors.push(wrong_side(
                format!("variables[{i}]"),
                spec.variable.name(),
                rule.phase,
            ));
        }
    }
    for (i, condition) in rule.chain.iter().enumerate() {
        if let ChainTarget::Variable { variable, .. } = &condition.target
            && variable.phase() != rule.phase
        {
            errors.push(wrong_side(
                format!("chain[{i}].target"),
                variable.name(),
                rule.phase,
            ));
        }
    }
    errors
}

fn wrong_side(field: String, variable: &str, phase: Phase) -> FieldError {
    FieldError::new(
        field,
        format!(
            "`{variable}` is not a variable of the rule's phase (`{}`): it would never have a value there",
            phase.name()
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rule::{Variable, VariableSpec};

    fn rule(phase: Phase, variable: Variable) -> Rule {
        let yaml = "{id: 1, msg: m, action: block, variables: [ARGS]}";
        let mut rule: Rule = serde_saphyr::from_str(yaml).unwrap();
        rule.phase = phase;
        rule.variables = vec![VariableSpec::all(variable)];
        rule
    }

    #[test]
    fn variables_must_be_of_the_rules_phase() {
        assert!(check(&rule(Phase::Request, Variable::ArgsGet)).is_empty());
        assert!(check(&rule(Phase::Response, Variable::ResponseBody)).is_empty());
        let wrong = check(&rule(Phase::Request, Variable::ResponseBody));
        assert_eq!(wrong[0].field, "variables[0]");
        assert!(wrong[0].message.contains("RESPONSE_BODY"));
        assert_eq!(
            check(&rule(Phase::Response, Variable::RequestHeaders)).len(),
            1
        );
    }

    #[test]
    fn anomaly_report_is_the_logging_phase() {
        let mut r = rule(Phase::Logging, Variable::ArgsGet);
        r.variables.clear();
        assert_eq!(check(&r)[0].field, "phase");
        r.operator = OperatorKind::AnomalyReport;
        assert!(check(&r).is_empty());
        r.phase = Phase::Response;
        assert_eq!(check(&r)[0].field, "operator");
    }
}
