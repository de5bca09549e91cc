//! The fake agent does what its script says, in a real repository.

use crate::common::command;
use crate::common::fake_agent;
use crate::common::fixture_repo;
use crate::common::git;

#[test]
fn fake_agent_writes_commits_with_trailers_and_reports() {
    let repo = fixture_repo("single");
    let dir = repo.path();
    let script = dir.join("agent.txt");
    std::fs::write(
        &script,
        "save-prompt prompt.txt\nwrite src/args.rs // parsed\ntrailer Supervisor-Status: complete\ncommit Extract args for $SUPERVISOR_UNIT\nresult complete all done\nprint finished\nexit 7\n",
    )
    .expect("script");
    let result = dir.join("result.toml");
    let mut child = command(fake_agent(), dir)
        .env("FAKE_AGENT_SCRIPT", &script)
        .env("SUPERVISOR_UNIT", "cli")
        .env("SUPERVISOR_SPRINT", "1")
        .env("SUPERVISOR_RESULT_FILE", &result)
        .env("GIT_AUTHOR_NAME", "Agent")
        .env("GIT_AUTHOR_EMAIL", "agent@example.com")
        .env("GIT_COMMITTER_NAME", "Agent")
        .env("GIT_COMMITTER_EMAIL", "agent@example.com")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("fake-agent starts");
    use std::io::Write;
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"the prompt")
        .expect("prompt written");
    let out = child.wait_with_output().expect("fake-agent ends");
    assert_eq!(out.status.code(), Some(7));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "finished\n");
    assert_eq!(
        std::fs::read_to_string(dir.join("prompt.txt")).expect("prompt"),
        "the prompt"
    );
    let message = git(dir, &["log", "-1", "--format=%B"]);
    assert_eq!(
        message.trim_end(),
        "Extract args for cli\n\nSupervisor-Sprint: cli/1\nSupervisor-Status: complete"
    );
    let trailers = git(
        dir,
        &[
            "log",
            "-1",
            "--format=%(trailers:key=Supervisor-Sprint,valueonly)",
        ],
    );
    assert_eq!(trailers.trim(), "cli/1");
    assert_eq!(
        std::fs::read_to_string(&result).expect("result"),
        "status = \"complete\"\nsummary = \"all done\"\n"
    );
}

#[test]
fn fixture_repos_are_deterministic() {
    let a = fixture_repo("layered");
    let b = fixture_repo("layered");
    let head = |d: &std::path::Path| git(d, &["rev-parse", "HEAD"]);
    assert_eq!(head(a.path()), head(b.path()));
    assert!(a.path().join(".workflow/config.toml").is_file());
}
