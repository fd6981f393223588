//! Termination signals (SIGTERM, SIGINT, SIGHUP), through signal-hook on a dedicated thread that
//! only forwards them; in serve mode and in the commands for people. Where a mode reloads its
//! config files (`mcp`), SIGHUP is no termination signal: it asks for the reload.
//!
//! - The first one asks for a graceful stop: the host session ends as if stdin had closed (every
//!   server is stopped with the full stop sequence), and the sidecar exits 0 (a command for people
//!   stops its servers the same way and exits 130).
//! - A second one, while that stop is still running, escalates: SIGKILL to every process group and
//!   every descendant at once, then exit with 128 + the signal number — without telling the guardian
//!   `bye`, so it sweeps once more for anything that forked in between.

use std::sync::atomic::{AtomicBool, Ordering};

use tokio_util::sync::CancellationToken;

/// Set by the signal thread before it kills everything on a second signal. The kill can let the
/// graceful stop finish at once, and the main thread would then exit 0 while the signal thread is
/// on its way to exiting 128 + n: the main thread checks this and leaves the exit to that thread.
static ESCALATED: AtomicBool = AtomicBool::new(false);

/// True once a second signal is escalating: the process is about to exit with 128 + its number.
pub(crate) fn escalated() -> bool {
    ESCALATED.load(Ordering::SeqCst)
}

/// Called by the main thread when [`escalated`]: waits for the signal thread's exit (two threads
/// calling `exit` at once is not safe, so only that one does).
pub(crate) fn await_escalated_exit() -> ! {
    loop {
        std::thread::park();
    }
}

/// Starts the signal thread; `stop` is cancelled on the first signal. With `hangup`, SIGHUP
/// notifies it instead (and counts for nothing).
pub(crate) fn install(
    stop: CancellationToken,
    hangup: Option<std::sync::Arc<tokio::sync::Notify>>,
) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        use signal_hook::iterator::Signals;
        let mut signals = Signals::new([SIGTERM, SIGINT, SIGHUP])?;
        std::thread::Builder::new().name("signals".to_owned()).spawn(move || {
            let mut seen = 0u32;
            // `forever` blocks this thread only; signal-hook's handler just writes to a pipe.
            for signal in signals.forever() {
                if let (SIGHUP, Some(hangup)) = (signal, &hangup) {
                    tracing::info!("SIGHUP: reloading the config files");
                    hangup.notify_one();
                    continue;
                }
                seen += 1;
                if seen == 1 {
                    tracing::info!(signal, "termination signal: stopping every server (a second signal kills them at once)");
                    stop.cancel();
                    continue;
                }
                ESCALATED.store(true, Ordering::SeqCst);
                crate::process::kill_all_now();
                tracing::warn!(signal, "second termination signal: every server killed");
                std::process::exit(128 + signal);
            }
        })?;
    }
    #[cfg(not(unix))]
    let _ = (stop, hangup);
    Ok(())
}
