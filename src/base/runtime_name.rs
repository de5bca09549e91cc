//! The file names a unit's runtime files get under `.git/supervisor/`.
//!
//! A unit name is free text from the plan (`CI/CD & Docs`, `../../index`, 300
//! bytes of prose). It is never used as a path component itself: every runtime
//! file name is a short slug of safe characters plus a stable hash of the full
//! name, so no name can leave the runtime directory, hit a git lock file, or
//! exceed the file-system limit, and two names never share a file.

/// At most this many bytes of the name are kept in the slug.
const SLUG_MAX: usize = 40;

/// The encoding of a unit name (or any plan-given text) as one file-name
/// component: `[A-Za-z0-9_-]` characters of the name (others become `_`,
/// runs collapsed), cut to `SLUG_MAX`, then `-` and 8 hex digits of a hash
/// of the whole name. Pure and stable across builds and platforms.
pub fn component(name: &str) -> String {
    let mut slug = String::new();
    for c in name.chars() {
        let c = if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
            c
        } else {
            '_'
        };
        if c == '_' && slug.ends_with('_') {
            continue;
        }
        if slug.len() >= SLUG_MAX {
            break;
        }
        slug.push(c);
    }
    let slug = slug.trim_matches('_');
    let slug = if slug.is_empty() { "unit" } else { slug };
    let h = crate::base::hash::fnv1a(name.bytes());
    format!("{slug}-{:08x}", (h ^ (h >> 32)) as u32)
}

/// The stem of one dispatch's files: unit, sprint and dispatch number.
pub fn stem(unit: &str, sprint: &str, attempt: u32) -> String {
    format!("{}-{}-{attempt}", component(unit), safe_sprint(sprint))
}

/// The name of the unit's liveness lock file.
pub fn lock(unit: &str) -> String {
    format!("{}.lock", component(unit))
}

/// Sprint ids are `<number><suffix>`; a suffix that is not plain
/// alphanumeric is encoded like a name.
fn safe_sprint(sprint: &str) -> String {
    if !sprint.is_empty() && sprint.len() <= 16 && sprint.chars().all(|c| c.is_ascii_alphanumeric())
    {
        sprint.to_string()
    } else {
        component(sprint)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_names_become_bounded_safe_components() {
        let long = "x".repeat(300);
        for name in [
            "../../../../tmp/x/ESCAPED",
            "../../index",
            "CI/CD & Docs",
            "",
            ".",
            "..",
            &long,
            "$(touch PWNED)",
            "a\u{1b}[31mred",
        ] {
            let c = component(name);
            assert!(c.len() <= SLUG_MAX + 9, "{c}");
            assert!(
                c.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'),
                "{c}"
            );
            assert!(!c.starts_with('.') && !c.is_empty());
        }
        assert_ne!(component("a b"), component("a_b"));
        assert_eq!(component("CI/CD & Docs"), component("CI/CD & Docs"));
        assert!(component("CI/CD & Docs").starts_with("CI_CD_Docs-"));
    }
}
