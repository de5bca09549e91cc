//! What a task line outside every sprint is looked up in: the sprints'
//! names and ids (which an index or progress list repeats), the headings,
//! and the criteria written away from their sprints, all as hashes so a
//! line is looked up, not compared with each.

use super::*;

/// What a line in no sprint is judged by, made when the first such line
/// is met: the sprints' names (which an index or progress list repeats,
/// kept as hashes of their lower-cased words, so a line is looked up, not
/// compared with every sprint) and the headings by where they start.
pub(super) struct Elsewhere<'d> {
    sprint_names: HashMap<u64, &'d str>,
    /// By sprint word and id as written, lower-cased (`Phase`, `1.5`): a
    /// line that opens with them (`- [ ] Phase 1.5: Quick validation`).
    sprint_ids: HashMap<(Word, String), &'d str>,
    pub(super) headings: Vec<(usize, &'d str)>,
    /// The block index of each of `headings`.
    pub(super) heading_blocks: Vec<usize>,
}

/// Criteria written away from their sprint and plan-wide checks, as
/// hashes of their lower-cased text.
pub(super) fn criteria_hashes(units: &[RawUnit], plan_wide: &[&[Criterion]]) -> HashSet<u64> {
    units
        .iter()
        .flat_map(|u| &u.sprints)
        .flat_map(|s| s.sprint.entry.iter().chain(&s.sprint.exit))
        .chain(plan_wide.iter().flat_map(|c| c.iter()))
        .map(|c| fnv(FNV_START, c.text.trim().bytes()))
        .collect()
}

impl<'d> Elsewhere<'d> {
    pub(super) fn new(doc: &'d Doc, units: &'d [RawUnit]) -> Self {
        let sprint_names = units
            .iter()
            .flat_map(|u| &u.sprints)
            .map(|s| s.sprint.name.as_str())
            .filter_map(|n| {
                let words: Vec<&str> = alnum_words(n).collect();
                (words.iter().map(|w| w.len()).sum::<usize>() >= 4).then(|| (words_hash(&words), n))
            })
            .collect();
        let sprint_ids = units
            .iter()
            .flat_map(|u| &u.sprints)
            .filter_map(|s| {
                let line = doc.source.get(s.span.clone())?.lines().next()?;
                let Some(Heading::Sprint(h)) = super::headings::parse_heading(line) else {
                    return None;
                };
                Some(((h.word, h.id.to_lowercase()), s.sprint.name.as_str()))
            })
            .collect();
        let (headings, heading_blocks) = doc
            .blocks
            .iter()
            .enumerate()
            .filter_map(|(i, b)| match b {
                Block::Heading { text, span, .. } => Some(((span.start, text.as_str()), i)),
                _ => None,
            })
            .unzip();
        Elsewhere {
            sprint_names,
            sprint_ids,
            headings,
            heading_blocks,
        }
    }

    /// The sprint a line names (`- [x] Phase 2: Terrain export — done`),
    /// by any run of its words.
    pub(super) fn names_sprint(&self, text: &str) -> Option<&'d str> {
        if let Some(Heading::Sprint(h)) = super::headings::parse_heading(text) {
            if let Some(name) = self.sprint_ids.get(&(h.word, h.id.to_lowercase())) {
                return Some(name);
            }
        }
        let words: Vec<&str> = alnum_words(text).collect();
        (0..words.len()).find_map(|i| {
            let mut h = FNV_START;
            words[i..].iter().take(16).enumerate().find_map(|(k, w)| {
                if k > 0 {
                    h = fnv(h, std::iter::once(b' '));
                }
                h = fnv(h, w.bytes());
                self.sprint_names.get(&h).copied()
            })
        })
    }
}

pub(super) const FNV_START: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a over bytes, ASCII lower-cased.
pub(super) fn fnv(mut hash: u64, bytes: impl Iterator<Item = u8>) -> u64 {
    for b in bytes {
        hash = (hash ^ u64::from(b.to_ascii_lowercase())).wrapping_mul(0x100_0000_01b3);
    }
    hash
}

fn alnum_words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
}

/// The hash of words joined by single spaces.
fn words_hash(words: &[&str]) -> u64 {
    words.iter().enumerate().fold(FNV_START, |h, (k, w)| {
        let h = if k > 0 {
            fnv(h, std::iter::once(b' '))
        } else {
            h
        };
        fnv(h, w.bytes())
    })
}
