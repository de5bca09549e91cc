//! Opening the repository for the store: as `gix::discover` does, with
//! room for many more pack indexes than the clone holds at open.

use std::path::Path;

/// The repository containing `dir`, as `gix::discover` opens it but with
/// room for many more pack indexes than the clone holds now: a worker's
/// clone gains a pack with many of its fetches, and gix refuses to read
/// objects once its packs outnumber the slots it counted at open ("too few
/// index slots"), which ended long-running workers before `git gc` joined
/// the packs (at 50).
pub(super) fn discover(dir: &Path) -> gix::Result<gix::Repository> {
    use gix::sec::trust::DefaultForLevel;
    let slots = gix::odb::store::init::Slots::AsNeededByDiskState {
        multiplier: 2.0,
        minimum: 512,
    };
    let options = |level| gix::open::Options::default_for_level(level).object_store_slots(slots);
    gix::ThreadSafeRepository::discover_opts(
        dir,
        Default::default(),
        gix::sec::trust::Mapping {
            full: options(gix::sec::Trust::Full),
            reduced: options(gix::sec::Trust::Reduced),
        },
    )
    .map(Into::into)
}

#[cfg(test)]
mod tests {
    use std::process::Command;

    fn git(dir: &std::path::Path, args: &[&str]) -> String {
        let out = Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .expect("git runs");
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    fn commit(d: &std::path::Path, message: &str) {
        let args = ["-c", "user.name=T", "-c", "user.email=t@example.com"];
        let mut all = args.to_vec();
        all.extend(["commit", "-q", "--allow-empty", "-m", message]);
        git(d, &all);
    }

    #[test]
    fn objects_in_packs_made_after_the_store_opened_are_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        let d = dir.path();
        git(d, &["init", "-q"]);
        // No gc joining the packs on the way.
        git(d, &["config", "gc.auto", "0"]);
        commit(d, "0");
        let store = super::super::Store::open(d).expect("store");
        // Sixty packs: more than gix's default slots (32 at least, 10%
        // over what the disk held at open), as a worker's fetches make.
        let mut last = String::new();
        for i in 1..=60 {
            commit(d, &i.to_string());
            git(d, &["repack", "-q"]);
            last = git(d, &["rev-parse", "HEAD"]);
        }
        let packs = std::fs::read_dir(d.join(".git/objects/pack"))
            .expect("packs")
            .filter(|e| {
                e.as_ref()
                    .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "idx"))
            })
            .count();
        assert!(packs > 40, "{packs} packs");
        let id = gix::ObjectId::from_hex(last.as_bytes()).expect("id");
        store
            .repo
            .find_object(id)
            .expect("the newest commit is read");
    }
}
