//! `git supervisor ui`: a live local web page of the run in this repository.
//!
//! The page is another face of the command line, which is why it lives in
//! `cli/`: every read is a command's own output (`status --format json`,
//! `log --format json`, `report --format json`) and every action runs the
//! command itself (`stop`, `killall`, `resume`, `confirm`, `land`), so the
//! page can show and do nothing the CLI could not. `server.rs` owns the HTTP
//! side (token, routes, server-sent events), `api.rs` the commands behind
//! each route, `commit.rs` one state commit with its diff, `assets/` the
//! page (embedded, nothing from the network).

mod api;
mod commit;
mod server;

use std::io::Write;
use std::net::IpAddr;
use std::net::SocketAddr;

use clap::Args;
use miette::IntoDiagnostic;

use super::Context;
use super::Format;

#[derive(Debug, Args)]
pub struct UiArgs {
    /// The port to listen on (default: one the system picks)
    #[arg(long, default_value_t = 0)]
    pub port: u16,
    /// Open the page in the desktop's browser (xdg-open, open)
    #[arg(long)]
    pub open: bool,
    /// Listen on this address instead of 127.0.0.1: anyone who can reach it
    /// and learns the token can stop the run (a warning is printed)
    #[arg(long, default_value = "127.0.0.1")]
    pub address: IpAddr,
    /// `json` prints the page's address as `{"url": …}` on one line
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// A token no other page or process can guess: 128 bits from the kernel.
fn random_token() -> miette::Result<String> {
    use std::io::Read;
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .into_diagnostic()?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

fn open_in_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    if let Err(e) = std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
    {
        eprintln!("warning: cannot start {opener}: {e}; open the address above yourself");
    }
}

pub fn cmd_ui(ctx: &Context, args: &UiArgs, out: &mut dyn Write) -> miette::Result<u8> {
    // Fail here, not on the first request, outside a repository.
    crate::store::Store::open(&ctx.cwd)?;
    if !args.address.is_loopback() {
        eprintln!(
            "warning: listening on {}, not only on this machine: whoever can reach it and has the token can stop, kill and land the run",
            args.address
        );
    }
    let listener = std::net::TcpListener::bind(SocketAddr::new(args.address, args.port))
        .into_diagnostic()
        .map_err(|e| e.wrap_err(format!("cannot listen on {}:{}", args.address, args.port)))?;
    let bound = listener.local_addr().into_diagnostic()?;
    let token = random_token()?;
    let host = match bound.ip() {
        IpAddr::V6(ip) => format!("[{ip}]"),
        IpAddr::V4(ip) => ip.to_string(),
    };
    let url = format!("http://{host}:{}/?token={token}", bound.port());
    match args.format {
        Format::Json => writeln!(out, "{}", serde_json::json!({ "url": url })),
        Format::Text => writeln!(
            out,
            "Serving the run at {url}\n(the token in the address is required on every request; Ctrl-C ends the page, not the run)"
        ),
    }
    .map_err(super::io_err)?;
    out.flush().map_err(super::io_err)?;
    if args.open {
        open_in_browser(&url);
    }
    server::serve(listener, ctx.clone(), token)?;
    Ok(super::EXIT_OK)
}
