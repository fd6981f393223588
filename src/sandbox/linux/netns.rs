//! A network namespace of the server's own, made by the child between fork and exec: no interface
//! but a loopback, so nothing outside the server is reachable whatever a socket tries. With
//! `network: "none"` the loopback stays down (nothing at all); with `"loopback"` and no ports it
//! is brought up, a private 127.0.0.1 the server's own processes share and nothing else reaches.
//! It needs CAP_SYS_ADMIN (see `detect`).

use nix::libc;

/// In the child: unshares the network namespace, then brings `lo` up when asked.
pub(super) fn enter(loopback_up: bool) -> std::io::Result<()> {
    // SAFETY: a plain system call.
    if unsafe { libc::unshare(libc::CLONE_NEWNET) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    if loopback_up {
        bring_lo_up()?;
    }
    Ok(())
}

/// `SIOCSIFFLAGS` on `lo` with IFF_UP: an ioctl on any socket of the namespace.
fn bring_lo_up() -> std::io::Result<()> {
    // SAFETY: system calls on a socket this function opens and closes; `ifreq` is zeroed and
    // lives across the ioctl.
    unsafe {
        let sock = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
        if sock < 0 {
            return Err(std::io::Error::last_os_error());
        }
        let mut request: libc::ifreq = std::mem::zeroed();
        for (i, b) in b"lo".iter().enumerate() {
            request.ifr_name[i] = *b as libc::c_char;
        }
        request.ifr_ifru.ifru_flags = (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short;
        let done = libc::ioctl(sock, libc::SIOCSIFFLAGS as _, &request);
        let error = std::io::Error::last_os_error();
        libc::close(sock);
        if done != 0 {
            return Err(error);
        }
    }
    Ok(())
}
