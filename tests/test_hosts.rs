//! Runs on remotes served the way people's are: HTTPS with basic
//! authentication (Debian's lighttpd in front of git's own
//! `git http-backend`, a pre-receive hook protecting `main`) and ssh (`sshd`
//! with a key), both on 127.0.0.1 and started by each test. The race and
//! fault scenarios of tests/test_remote.rs run over both, with more than one
//! agent per worker.

use crate::common::on_remote::Host;
use crate::common::remote_scenarios;

#[test]
fn over_https_a_killed_worker_s_sprint_is_taken_over_after_its_lease() {
    remote_scenarios::a_killed_worker_s_sprint_is_taken_over(Host::Https, &["--agents", "2"]);
}

#[test]
fn over_ssh_a_killed_worker_s_sprint_is_taken_over_after_its_lease() {
    remote_scenarios::a_killed_worker_s_sprint_is_taken_over(Host::Ssh, &["--agents", "2"]);
}

#[test]
fn over_https_racing_workers_claim_each_sprint_once() {
    remote_scenarios::racing_workers_claim_each_sprint_once(Host::Https, 4, &["--agents", "2"]);
}

#[test]
fn over_ssh_racing_workers_claim_each_sprint_once() {
    remote_scenarios::racing_workers_claim_each_sprint_once(Host::Ssh, 4, &["--agents", "2"]);
}
