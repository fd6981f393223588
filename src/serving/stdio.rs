//! The sidecar's own stdin and stdout as async streams.
//!
//! tokio's `stdin()`/`stdout()` run every read and write on the blocking thread pool: two thread
//! hand-offs per message, which dominated round-trip latency. When fd 0 / fd 1 are pipes (the normal
//! case: a host spawned us) or Unix stream sockets (what Node's `child_process` gives a child for
//! `'pipe'`: libuv makes a socket pair per stdio slot), they are switched to non-blocking mode and
//! driven by the reactor directly. A terminal or a file falls back to tokio's blocking-pool versions.

use std::pin::Pin;

use tokio::io::{AsyncRead, AsyncWrite};

pub(crate) type Input = Pin<Box<dyn AsyncRead + Send>>;
pub(crate) type Output = Pin<Box<dyn AsyncWrite + Send>>;

/// Must be called inside the runtime (the pipe types register with its reactor).
pub(crate) fn input() -> Input {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        if let Ok(fd) = std::io::stdin().as_fd().try_clone_to_owned() {
            if is_socket(&fd) {
                if let Some(socket) = socket_stream(fd) {
                    return Box::pin(socket);
                }
            } else if let Ok(pipe) =
                tokio::net::unix::pipe::Receiver::from_file(std::fs::File::from(fd))
            {
                return Box::pin(pipe);
            }
        }
    }
    Box::pin(tokio::io::stdin())
}

/// Must be called inside the runtime.
pub(crate) fn output() -> Output {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        if let Ok(fd) = std::io::stdout().as_fd().try_clone_to_owned() {
            if is_socket(&fd) {
                if let Some(socket) = socket_stream(fd) {
                    return Box::pin(socket);
                }
            } else if let Ok(pipe) =
                tokio::net::unix::pipe::Sender::from_file(std::fs::File::from(fd))
            {
                return Box::pin(pipe);
            }
        }
    }
    Box::pin(tokio::io::stdout())
}

#[cfg(unix)]
fn is_socket(fd: &std::os::fd::OwnedFd) -> bool {
    use std::os::unix::fs::FileTypeExt;
    fd.try_clone()
        .map(std::fs::File::from)
        .and_then(|file| file.metadata())
        .is_ok_and(|meta| meta.file_type().is_socket())
}

/// A stdio socket as a reactor-driven stream. Each of stdin and stdout is its own socket, used in
/// one direction only; the session never shuts stdout down (its writer only writes and flushes).
#[cfg(unix)]
fn socket_stream(fd: std::os::fd::OwnedFd) -> Option<tokio::net::UnixStream> {
    let socket = std::os::unix::net::UnixStream::from(fd);
    socket.set_nonblocking(true).ok()?;
    tokio::net::UnixStream::from_std(socket).ok()
}
