//! What a sprint's tasks are about, for the atomicity and testability
//! checks of spec §V: tasks are one concern when they share a subject (a
//! content word, compared by its stem: "pay" and "payment" are one) or a
//! file; and the files the tasks create or change, against the files the
//! exit criteria check. Also the one stemmer the plan tools compare words
//! with.

use crate::plan::model::Sprint;

use super::FileIndex;
use super::CREATE_VERBS;

/// Words that say what to do, or glue, rather than what about.
const NOT_SUBJECTS: &[&str] = &[
    "implement",
    "create",
    "write",
    "add",
    "build",
    "make",
    "update",
    "change",
    "modify",
    "edit",
    "remove",
    "delete",
    "fix",
    "support",
    "enable",
    "integrate",
    "generate",
    "define",
    "set",
    "setup",
    "ensure",
    "handle",
    "use",
    "using",
    "new",
    "the",
    "and",
    "for",
    "with",
    "from",
    "into",
    "that",
    "this",
    "its",
    "their",
    "all",
    "each",
    "every",
    "test",
    "tests",
    "testing",
    "file",
    "files",
    "code",
    "when",
    "then",
    "via",
    "per",
    "should",
    "must",
    "can",
    "will",
    "so",
    "to",
    "of",
    "in",
    "on",
    "at",
    "by",
    "or",
    "an",
    "a",
    "it",
    "is",
    "are",
    "be",
    "as",
    "up",
    "out",
    "docs",
    "document",
    "documentation",
    "basic",
    "simple",
    "initial",
    "first",
    "second",
];

/// Verbs that change a file the sprint does not create.
const CHANGE_VERBS: &[&str] = &[
    "update", "modify", "change", "edit", "extend", "refactor", "fix", "rename", "move",
];

/// A word reduced to its stem by suffix: `payments`, `payment`, `paying`
/// and `pay` are `pay`; `users` is `user`. Nothing shorter than three
/// letters is left.
pub fn stem(word: &str) -> String {
    let w = word.to_lowercase();
    for (suffix, with) in [
        ("ations", ""),
        ("ation", ""),
        ("ments", ""),
        ("ment", ""),
        ("ings", ""),
        ("ing", ""),
        ("ies", "y"),
        ("ers", ""),
        ("er", ""),
        ("ed", ""),
        ("es", ""),
        ("s", ""),
    ] {
        if let Some(rest) = w.strip_suffix(suffix) {
            if rest.chars().count() >= 3 && !rest.ends_with('s') {
                return format!("{rest}{with}");
            }
        }
    }
    w
}

/// The stems of a text's subject words (ASCII letters, three or more).
pub fn subjects(text: &str) -> Vec<String> {
    let mut out: Vec<String> = text
        .split(|c: char| !c.is_ascii_alphabetic())
        .filter(|w| w.len() >= 3)
        .map(str::to_lowercase)
        .filter(|w| !NOT_SUBJECTS.contains(&w.as_str()))
        .map(|w| stem(&w))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// How many unrelated groups a sprint's tasks fall into: two tasks are
/// related when they share a subject or name the same file.
pub fn concern_groups(s: &Sprint) -> usize {
    let index = FileIndex::new(&s.files);
    let keys: Vec<Vec<String>> = s
        .tasks
        .iter()
        .map(|t| {
            let mut k = subjects(&t.replace('`', " "));
            k.extend(index.mentions(t).into_iter().map(|f| format!("file:{f}")));
            k
        })
        .collect();
    // Union-find over the tasks.
    let mut parent: Vec<usize> = (0..keys.len()).collect();
    fn root(p: &mut [usize], mut i: usize) -> usize {
        while p[i] != i {
            p[i] = p[p[i]];
            i = p[i];
        }
        i
    }
    let mut owner: std::collections::HashMap<&str, usize> = Default::default();
    for (i, k) in keys.iter().enumerate() {
        for w in k {
            match owner.get(w.as_str()) {
                Some(&j) => {
                    let (a, b) = (root(&mut parent, i), root(&mut parent, j));
                    parent[a] = b;
                }
                None => {
                    owner.insert(w, i);
                }
            }
        }
    }
    (0..keys.len())
        .filter(|&i| root(&mut parent, i) == i)
        .count()
}

/// More than one concern (spec §V "single concern"): at least three
/// unrelated groups of tasks that are most of the sprint, so a sprint of
/// 3–7 tasks about one feature passes and twelve unrelated features fail.
pub fn several_concerns(s: &Sprint) -> bool {
    let groups = concern_groups(s);
    groups >= 3 && groups * 2 > s.tasks.len()
}

/// The files a sprint's tasks create or change (a create or change verb
/// first), in task order.
pub fn made_files(s: &Sprint) -> Vec<String> {
    let index = FileIndex::new(&s.files);
    let mut out: Vec<String> = Vec::new();
    for t in &s.tasks {
        let l = t.to_lowercase();
        let makes = CREATE_VERBS
            .iter()
            .chain(CHANGE_VERBS)
            .any(|v| l.starts_with(v));
        if !makes {
            continue;
        }
        for f in index.mentions(t) {
            if !out.contains(f) {
                out.push(f.clone());
            }
        }
    }
    out
}

/// The files the sprint makes that no exit criterion names.
pub fn unchecked_files(s: &Sprint) -> Vec<String> {
    let made = made_files(s);
    let index = FileIndex::new(&made);
    let mut checked: Vec<&String> = Vec::new();
    for c in &s.exit {
        checked.extend(index.mentions(&c.text));
        if let Some(cmd) = &c.command {
            checked.extend(index.mentions(cmd));
        }
    }
    made.iter()
        .filter(|f| !checked.contains(f))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::stem;
    use super::subjects;

    #[test]
    fn stems_join_forms_of_a_word() {
        for (a, b) in [
            ("pay", "payment"),
            ("payments", "pay"),
            ("users", "user"),
            ("exports", "export"),
            ("queries", "query"),
        ] {
            assert_eq!(stem(a), stem(b), "{a} {b}");
        }
        assert_eq!(subjects("Implement the payment API"), ["api", "pay"]);
    }
}
