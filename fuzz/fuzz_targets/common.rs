//! What several targets build from bytes: a form (3 bytes a question: its type
//! and options, a gate on an earlier question, a default), as the reducer target
//! builds it.

use askuser_core::{AnswerType, Choice, Form, Question, When};
use serde_json::json;

/// Builds a form from bytes: 3 bytes a question, at most 8 questions.
pub fn form_from(bytes: &[u8]) -> Form {
    let mut questions: Vec<Question> = Vec::new();
    for (index, chunk) in bytes.chunks(3).take(8).enumerate() {
        let [kind, gate, extra] = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let answer_type = AnswerType::ALL[usize::from(kind) % 5];
        let mut question = Question::new(
            format!("q{index}"),
            format!("Question {index}?"),
            answer_type,
        );
        if answer_type.has_options() {
            let count = 1 + usize::from(kind / 5) % 4;
            question.options = Some((0..count).map(|i| Choice::new(format!("o{i}"))).collect());
            question.allow_other = kind & 0x80 != 0;
        }
        if answer_type == AnswerType::Schema {
            question.schema = Some(match extra % 3 {
                0 => json!({"type": "integer", "minimum": 0}),
                1 => json!({"type": "object", "properties": {
                    "name": {"type": "string"}, "count": {"type": "integer"},
                    "on": {"type": "boolean"}}, "required": ["name"]}),
                _ => json!({"type": "array", "items": {"type": "string"}}),
            });
        }
        if index > 0 && gate & 1 == 1 {
            let target = &questions[usize::from(gate >> 1) % index];
            let value = askuser_core::strategies::sample_answer(target, usize::from(extra));
            question.when = Some(match gate >> 5 {
                0 => When::not_equals(target.id.clone(), value),
                1 => When::Not(Box::new(When::equals(target.id.clone(), value))),
                _ => When::equals(target.id.clone(), value),
            });
        }
        questions.push(question);
    }
    Form::new(questions)
}
