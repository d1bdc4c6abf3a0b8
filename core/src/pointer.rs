//! JSON pointers built only when an error needs one, so validating a sound form
//! formats no paths.

use std::fmt::Write;

use crate::json::escape_pointer;

/// A location in the tool arguments, as a chain of borrowed segments.
#[derive(Debug, Clone, Copy)]
pub(crate) enum At<'a> {
    /// The arguments themselves.
    Root,
    /// A field of the parent object.
    Key(&'a At<'a>, &'a str),
    /// An item of the parent list.
    Index(&'a At<'a>, usize),
}

impl<'a> At<'a> {
    /// The field `key` of this location.
    pub(crate) fn key(&'a self, key: &'a str) -> At<'a> {
        At::Key(self, key)
    }

    /// The item `index` of this location.
    pub(crate) fn index(&'a self, index: usize) -> At<'a> {
        At::Index(self, index)
    }

    /// Question `index` of the form.
    pub(crate) fn question(index: usize) -> At<'static> {
        const QUESTIONS: At<'static> = At::Key(&At::Root, "questions");
        At::Index(&QUESTIONS, index)
    }

    /// The location as a JSON pointer (`/questions/1/options`).
    pub(crate) fn pointer(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut String) {
        match self {
            At::Root => {}
            At::Key(parent, key) => {
                parent.write(out);
                out.push('/');
                out.push_str(&escape_pointer(key));
            }
            At::Index(parent, index) => {
                parent.write(out);
                let _ = write!(out, "/{index}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_are_built_on_demand_and_escaped() {
        let question = At::question(2);
        let when = question.key("when");
        let nested = when.key("all");
        let leaf = nested.index(0);
        assert_eq!(
            leaf.key("a/b~c").pointer(),
            "/questions/2/when/all/0/a~1b~0c"
        );
        assert_eq!(At::Root.pointer(), "");
    }
}
