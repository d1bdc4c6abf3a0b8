//! `askuser-terminal`: filled by a later issue (see DESIGN.md's layout).
