//! Work spread over threads without a thread-pool dependency: the kit's
//! users get no rayon in their build for the few loops that want cores.

use std::sync::atomic::{AtomicUsize, Ordering};

/// How many threads to use when the caller says 0: every core.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Calls `work(unit)` for every unit in `0..units`, on `threads` threads
/// (0: [`default_threads`]). Units are handed out one at a time, so
/// uneven units balance. A panic in `work` is re-raised once every thread
/// has stopped.
pub fn for_each(units: usize, threads: usize, work: impl Fn(usize) + Sync) {
    let threads = if threads == 0 {
        default_threads()
    } else {
        threads
    };
    let threads = threads.min(units).max(1);
    let next = AtomicUsize::new(0);
    let run = || loop {
        let unit = next.fetch_add(1, Ordering::Relaxed);
        if unit >= units {
            break;
        }
        work(unit);
    };
    if threads == 1 {
        return run();
    }
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(run);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn every_unit_runs_exactly_once() {
        for threads in [0, 1, 3] {
            let seen = Mutex::new(vec![0u32; 1000]);
            for_each(1000, threads, |u| seen.lock().unwrap()[u] += 1);
            assert!(seen.into_inner().unwrap().iter().all(|&n| n == 1));
        }
        for_each(0, 4, |_| panic!("no units, no calls"));
    }
}
