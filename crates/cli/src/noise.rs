//! Machine-noise control for `softhal bench` (`docs/benchmarks.md`,
//! "noise control"): a batch during which other processes used more than 0.1 core
//! is discarded and redone once the machine has been quiet for 2 s.
//!
//! In: `/proc/stat` (all CPU time on the machine) and `/proc/self/stat`
//! (this process's own CPU time, all threads). Out: how many cores other
//! processes kept busy over an interval. Both files count in USER_HZ ticks,
//! which Linux fixes at 100 per second for these interfaces. Where `/proc`
//! is unavailable the control reports "unknown" and the benchmark runs
//! without it (and says so).

use std::time::{Duration, Instant};

/// USER_HZ: the tick of `/proc/stat` and `/proc/<pid>/stat` on Linux.
const TICKS_PER_SECOND: f64 = 100.0;

/// Other processes may use at most this many cores during a clean batch.
pub const MAX_OTHER_CORES: f64 = 0.1;

/// How long the machine must be quiet before a discarded batch is redone.
pub const QUIET_BEFORE_RETRY: Duration = Duration::from_secs(2);

/// CPU time counters at one instant, in ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CpuSample {
    /// Busy ticks of the whole machine (all CPU time but idle and iowait).
    pub machine_busy: u64,
    /// This process's user + system ticks.
    pub own: u64,
}

/// Parses the first (`cpu `) line of `/proc/stat`: busy = user + nice +
/// system + irq + softirq + steal.
pub fn parse_proc_stat(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .filter_map(|w| w.parse().ok())
        .collect();
    let get = |i: usize| v.get(i).copied().unwrap_or(0);
    (v.len() >= 4).then(|| get(0) + get(1) + get(2) + get(5) + get(6) + get(7))
}

/// Parses `/proc/self/stat`: utime + stime (fields 14 and 15; the command
/// name in parentheses may contain spaces, so fields count from the last `)`).
pub fn parse_self_stat(text: &str) -> Option<u64> {
    let after = text.get(text.rfind(')')? + 1..)?;
    let f: Vec<&str> = after.split_whitespace().collect();
    // After ")": field 3 (state) is index 0, so utime (14) is index 11.
    let utime: u64 = f.get(11)?.parse().ok()?;
    let stime: u64 = f.get(12)?.parse().ok()?;
    Some(utime + stime)
}

/// Reads the counters now (`None` without `/proc`).
pub fn sample() -> Option<CpuSample> {
    let machine_busy = parse_proc_stat(&std::fs::read_to_string("/proc/stat").ok()?)?;
    let own = parse_self_stat(&std::fs::read_to_string("/proc/self/stat").ok()?)?;
    Some(CpuSample { machine_busy, own })
}

/// Cores other processes kept busy between two samples `wall` apart.
pub fn other_cores(a: CpuSample, b: CpuSample, wall: Duration) -> f64 {
    let machine = b.machine_busy.saturating_sub(a.machine_busy);
    let own = b.own.saturating_sub(a.own);
    let secs = wall.as_secs_f64().max(1e-3);
    machine.saturating_sub(own) as f64 / TICKS_PER_SECOND / secs
}

/// Waits until other processes have used at most [`MAX_OTHER_CORES`] for
/// [`QUIET_BEFORE_RETRY`] in a row, or `give_up` has passed.
pub fn wait_for_quiet(give_up: Duration) {
    let start = Instant::now();
    while start.elapsed() < give_up {
        let (Some(a), t) = (sample(), Instant::now()) else {
            return;
        };
        std::thread::sleep(QUIET_BEFORE_RETRY);
        let Some(b) = sample() else { return };
        if other_cores(a, b, t.elapsed()) <= MAX_OTHER_CORES {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_stat_busy_excludes_idle_and_iowait() {
        let text = "cpu  100 5 50 9000 40 3 2 1 0 0\ncpu0 1 2 3 4\n";
        assert_eq!(parse_proc_stat(text), Some(100 + 5 + 50 + 3 + 2 + 1));
        assert_eq!(parse_proc_stat("intr 1 2 3"), None);
    }

    #[test]
    fn self_stat_reads_utime_and_stime_after_the_command_name() {
        let text = "4242 (soft hal) R 1 2 3 4 5 6 7 8 9 10 250 30 0 0 20 0 3 0 100 0 0";
        assert_eq!(parse_self_stat(text), Some(280));
    }

    #[test]
    fn other_cores_subtracts_our_own_time() {
        let a = CpuSample {
            machine_busy: 1000,
            own: 500,
        };
        let b = CpuSample {
            machine_busy: 1300,
            own: 780,
        };
        // 300 machine ticks, 280 ours: 20 ticks = 0.2 s of others over 1 s.
        let c = other_cores(a, b, Duration::from_secs(1));
        assert!((c - 0.2).abs() < 1e-9, "{c}");
    }
}
