//! The tools that change or judge a plan, on top of the parser in `plan`
//! (which never imports them): `evaluate`'s and `prioritize`'s analysis and
//! rewrites (`analysis`, `rewrite`), the patches that carry them into the
//! author's text (`edit`), the canonical writer (`write`), `analyze`'s review
//! (`review`), `breakdown` of a requirements document (`breakdown`), setting
//! the feature name (`name_feature`), and the project's own build and test
//! commands (`project`). Pure: text and plans in, text and findings out.

pub mod analysis;
pub mod breakdown;
pub mod edit;
pub mod name_feature;
pub mod project;
pub mod review;
pub mod rewrite;
pub mod write;
