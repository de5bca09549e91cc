//! Deterministic names: the run id, and the operation name a run gets when
//! the plan has no `feature_name` (the same plan always gets the same name).

use crate::plan::Plan;

const ADJECTIVES: &[&str] = &[
    "Caffeinated",
    "Stubborn",
    "Tireless",
    "Sleepless",
    "Meticulous",
    "Unflappable",
    "Overcommitted",
    "Reluctant",
    "Punctual",
    "Indefatigable",
    "Squeaky",
    "Bashful",
    "Thunderous",
    "Patient",
    "Gallant",
    "Nimble",
    "Grumpy",
    "Dauntless",
    "Peckish",
    "Rubber",
    "Velvet",
    "Rusty",
    "Frosty",
    "Stealthy",
];

const NOUNS: &[&str] = &[
    "Badger",
    "Walrus",
    "Teapot",
    "Platypus",
    "Merge Conflict",
    "Semicolon",
    "Capybara",
    "Lint Roller",
    "Hedgehog",
    "Pelican",
    "Stapler",
    "Ferret",
    "Narwhal",
    "Wombat",
    "Compiler",
    "Yak",
    "Otter",
    "Rebase",
    "Llama",
    "Goose",
    "Marmot",
    "Tortoise",
    "Mongoose",
    "Flamingo",
];

/// A stable 64-bit hash: the name must not change between Rust releases.
fn fnv(text: &str) -> u64 {
    crate::base::hash::fnv1a(text.bytes())
}

/// "Operation <Adjective> <Noun>", chosen from the plan's title and units.
pub fn operation_name(plan: &Plan) -> String {
    let mut seed = plan.title.clone().unwrap_or_default();
    for u in &plan.units {
        seed.push('\n');
        seed.push_str(&u.name);
    }
    let h = fnv(&seed);
    let adj = ADJECTIVES[(h % ADJECTIVES.len() as u64) as usize];
    let noun = NOUNS[((h >> 32) % NOUNS.len() as u64) as usize];
    format!("Operation {adj} {noun}")
}

/// `<UTC date>-<time>-<plan hash>`: sortable, and distinct for different
/// plans started in the same second.
pub fn run_id(at: &time::OffsetDateTime, plan_text: &str) -> String {
    let t = at.to_offset(time::UtcOffset::UTC);
    format!(
        "{:04}{:02}{:02}-{:02}{:02}{:02}-{:06x}",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
        fnv(plan_text) & 0xff_ffff
    )
}
