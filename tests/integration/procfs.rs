//! Linux /proc probes for facts with no protocol event: a process's resident memory and how many of
//! its threads carry a given name (the fixture runs each in-flight `sleep` on a thread named "sleep").

/// Resident set size of `pid` in bytes (VmRSS of /proc/PID/status).
pub(crate) fn rss_bytes(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let kb = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|n| n.parse::<u64>().ok())
        .unwrap_or_else(|| panic!("no VmRSS for pid {pid}"));
    kb * 1024
}

/// How many threads of `pid` are named `name` (0 when the process is gone).
pub(crate) fn threads_named(pid: u32, name: &str) -> usize {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return 0;
    };
    tasks
        .flatten()
        .filter(|t| {
            std::fs::read_to_string(t.path().join("comm")).is_ok_and(|c| c.trim_end() == name)
        })
        .count()
}

/// Waits until the fixture `pid` is running `n` sleep calls, i.e. the requests reached it.
pub(crate) fn wait_for_sleeps(pid: u32, n: usize) {
    crate::support::eventually(&format!("{n} sleep calls in flight in pid {pid}"), || {
        threads_named(pid, "sleep") >= n
    });
}
