//! The sidecar's own stdin and stdout as async streams.
//!
//! tokio's `stdin()`/`stdout()` run every read and write on the blocking thread pool: two thread
//! hand-offs per message, which dominated round-trip latency. When fd 0 / fd 1 are pipes (the normal
//! case: a host spawned us), they are switched to non-blocking mode and driven by the reactor
//! directly. A terminal or a file falls back to tokio's blocking-pool versions.

use std::pin::Pin;

use tokio::io::{AsyncRead, AsyncWrite};

pub(crate) type Input = Pin<Box<dyn AsyncRead + Send>>;
pub(crate) type Output = Pin<Box<dyn AsyncWrite + Send>>;

/// Must be called inside the runtime (the pipe types register with its reactor).
pub(crate) fn input() -> Input {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        let pipe = std::io::stdin()
            .as_fd()
            .try_clone_to_owned()
            .ok()
            .and_then(|fd| {
                tokio::net::unix::pipe::Receiver::from_file(std::fs::File::from(fd)).ok()
            });
        if let Some(pipe) = pipe {
            return Box::pin(pipe);
        }
    }
    Box::pin(tokio::io::stdin())
}

/// Must be called inside the runtime.
pub(crate) fn output() -> Output {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        let pipe = std::io::stdout()
            .as_fd()
            .try_clone_to_owned()
            .ok()
            .and_then(|fd| tokio::net::unix::pipe::Sender::from_file(std::fs::File::from(fd)).ok());
        if let Some(pipe) = pipe {
            return Box::pin(pipe);
        }
    }
    Box::pin(tokio::io::stdout())
}
