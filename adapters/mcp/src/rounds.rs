//! Which questions of a form one elicitation round holds, and its progress line.

use askuser_core::{Answer, ValidForm, When};

/// The questions to ask now: from `from` on, every question neither settled nor
/// already answered (`held`) whose `when` names only settled questions and holds.
/// A question gated on one still open (in this round, say) waits for a later round.
pub(crate) fn plan(
    form: &ValidForm,
    from: usize,
    settled: &[bool],
    held: &[bool],
    answers: &[Option<Answer>],
) -> Vec<usize> {
    let mut determined = settled.to_vec();
    let mut round = Vec::new();
    for index in from..form.len() {
        if settled[index] || held[index] {
            continue;
        }
        let question = form.question(index);
        let known = question.when.as_ref().is_none_or(|when| {
            let mut names = Vec::new();
            references(when, &mut names);
            names
                .iter()
                .all(|name| form.index_of(name).is_none_or(|j| determined[j]))
        });
        if !known {
            continue;
        }
        if form.is_asked(index, answers) {
            round.push(index);
        } else {
            determined[index] = true;
        }
    }
    round
}

/// Every question id a predicate names.
fn references<'a>(when: &'a When, out: &mut Vec<&'a str>) {
    match when {
        When::Equals { question_id, .. }
        | When::NotEquals { question_id, .. }
        | When::OneOf { question_id, .. }
        | When::Contains { question_id, .. } => out.push(question_id),
        When::All(list) | When::Any(list) => list.iter().for_each(|w| references(w, out)),
        When::Not(inner) => references(inner, out),
    }
}

/// `Question 2 of 7`, or `Questions 3–5 of 7`: `done` questions are behind, `count`
/// in this round.
pub(crate) fn progress(done: usize, count: usize, total: usize) -> String {
    let first = done + 1;
    let last = done + count;
    if count <= 1 {
        format!("Question {first} of {total}")
    } else {
        format!("Questions {first}\u{2013}{last} of {total}")
    }
}

#[cfg(test)]
mod tests {
    use super::{plan, progress};
    use askuser_core::parse_form;
    use serde_json::json;

    #[test]
    fn a_question_gated_on_this_round_waits_for_the_next() {
        let form = parse_form(&json!({"questions": [
            {"id": "apply", "text": "Apply?", "answer_type": "boolean"},
            {"id": "env", "text": "Env?", "answer_type": "select", "options": ["a", "b"],
             "when": {"question_id": "apply", "equals": true}},
            {"id": "note", "text": "Note?", "answer_type": "text"},
            {"id": "why", "text": "Why not?", "answer_type": "text",
             "when": {"not": {"question_id": "apply", "equals": true}}}
        ]}))
        .unwrap();
        let none = [false; 4];
        assert_eq!(
            plan(&form, 0, &none, &none, &[None, None, None, None]),
            [0, 2]
        );
        let settled = [true, false, false, false];
        let held = [false, false, true, false];
        let yes = form.check(0, &json!(true)).ok();
        assert_eq!(
            plan(&form, 1, &settled, &held, &[yes, None, None, None]),
            [1]
        );
        let no = form.check(0, &json!(false)).ok();
        assert_eq!(
            plan(&form, 1, &settled, &held, &[no, None, None, None]),
            [3]
        );
        assert_eq!(progress(2, 3, 7), "Questions 3\u{2013}5 of 7");
        assert_eq!(progress(0, 1, 1), "Question 1 of 1");
    }
}
