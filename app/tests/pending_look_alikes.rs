//! Issue 28, item 8: a pending file whose texts were swapped for look-alikes
//! (a Cyrillic letter, a fullwidth form, a hidden character) is refused, and the
//! refusal says where the texts differ, since they read the same.

use askuser_app::pending::{PendingFile, compare};
use askuser_core::InquiryId;
use askuser_dialects::Dialect;
use serde_json::json;

#[test]
fn texts_that_read_the_same_are_told_apart_by_code_point() {
    let call = Dialect::JpForm
        .parse(&json!({"questions": [
            {"id": "go", "text": "Approve the release?", "answer_type": "select",
             "header": "Release", "context": "Tag v1.2", "options": ["Approve", "Reject"]}]}))
        .unwrap();
    let recorded = call.form().questions();
    let file = PendingFile::for_call(None, "s", &InquiryId::new("i"), &call, String::new());
    let mut edited = file.clone();
    edited.questions[0].question = "\u{410}pprove the release?".into();
    edited.questions[0].header = Some("Ｒelease".into());
    edited.questions[0].context = Some("Tag v1.2\u{200d}".into());
    edited.questions[0].options = vec!["Approve".into(), "Reje\u{441}t".into()];
    let mismatch = compare(&edited, recorded).expect("a mismatch");
    assert_eq!(
        mismatch.differences,
        [
            "question \"go\" reads \"\u{410}pprove the release?\" in the file but \"Approve the release?\" in the log (character 1 is U+0410 in the file but U+0041 in the log)",
            "the context of question \"go\" is \"Tag v1.2\\u{200d}\" in the file but \"Tag v1.2\" in the log (9 characters in the file but 8 in the log)",
            "the header of question \"go\" is \"Ｒelease\" in the file but \"Release\" in the log (character 1 is U+FF32 in the file but U+0052 in the log)",
            "the options of question \"go\" are \"Approve\", \"Reje\u{441}t\" in the file but \"Approve\", \"Reject\" in the log (option 2: character 5 is U+0441 in the file but U+0063 in the log)",
        ]
    );
    // Texts that read differently need no code points.
    let mut rewritten = file.clone();
    rewritten.questions[0].question = "Reject the release?".into();
    assert_eq!(
        compare(&rewritten, recorded)
            .expect("a mismatch")
            .differences,
        [
            "question \"go\" reads \"Reject the release?\" in the file but \"Approve the release?\" in the log"
        ]
    );
}
