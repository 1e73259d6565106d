//! The `linkgap` binary: parse arguments, run, map the outcome to an exit code. All behaviour
//! lives in the library.

use std::process::ExitCode;

/// mimalloc, without transparent huge pages: the stages hand buffers between threads (rows
/// built on one and written on another, batches parsed on the pool), and glibc's per-thread
/// arenas made those frees wait on locks; measured in docs/performance.md (allocator).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = linkgap::cli::parse();
    match linkgap::run_cli(cli) {
        Ok(status) => status.exit_code(),
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            // Not eprintln!: it panics (exit 101) when stderr is a closed pipe.
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "linkgap: error: {err:#}");
            ExitCode::from(2)
        }
    }
}

/// `linkgap inspect | head` closes the pipe early; that is not an error.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
