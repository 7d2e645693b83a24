//! Where a one-shot call's output lands: the benchmark's global allocator.
//!
//! A one-shot decoder allocates its output, returns it, and the benchmark
//! loop drops it before the next call, so the system allocator hands the
//! next call the same block: one heap address for a whole process, chosen
//! by whatever the process allocated before. The page offset of that block
//! decides whether the call's stores land where its loads (or the next
//! call's) look, modulo 4 KiB ("4K aliasing"), and so a 64-byte row's
//! speed was a property of the process's heap history, not of the code.
//!
//! [`Rotating`] serves every small allocation made inside a timed loop
//! ([`Armed`]) from one of [`SLOTS`] fixed regions, each at its own page
//! offset, and takes them in turn: the output of call after call moves
//! through the page as the inputs do (`Pool`), for every contender
//! alike, at offsets that do not depend on the heap's history. Larger allocations (the 1 MiB rows, whose
//! output crosses every offset as it grows anyway) and those a region
//! cannot hold go to the system allocator unchanged.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// How many regions small allocations turn through. Odd, where the
/// inputs' offsets turn in steps of eight (`Pool`): an output and an input
/// offset then meet in every pairing, not in one fixed pairing.
pub const SLOTS: usize = 15;

/// The largest allocation a region serves: a 4 KiB row's output (UTF-32,
/// four bytes a byte) with room to spare.
const LARGEST: usize = 64 * 1024;

const PAGE: usize = 4096;

/// A region: room for the largest allocation at any page offset.
#[repr(C, align(4096))]
struct Region(UnsafeCell<[u8; LARGEST + PAGE + 64]>);

// SAFETY: a region's bytes are handed to one owner at a time (`FREE`, and
// `Rotating`'s safety comment).
unsafe impl Sync for Region {}

static REGIONS: [Region; SLOTS] =
    [const { Region(UnsafeCell::new([0; LARGEST + PAGE + 64])) }; SLOTS];
static FREE: [AtomicBool; SLOTS] = [const { AtomicBool::new(true) }; SLOTS];
static NEXT: AtomicUsize = AtomicUsize::new(0);
/// Whether a timed loop runs ([`Armed`]): only its allocations turn. The
/// long-lived ones made before it (the inputs' copies, criterion's own)
/// would otherwise hold regions for good, and which ones they held would
/// again depend on the process's history.
static ARMED: AtomicBool = AtomicBool::new(false);
/// The thread whose small allocations the regions serve (the first to
/// allocate: the benchmarks' main thread), by the address of its
/// [`THREAD`]; 0 before the first allocation.
static OWNER: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// A byte whose address tells one thread from another.
    static THREAD: u8 = const { 0 };
}

/// Region `k`'s page offset: steps of 272 bytes across the page (15 steps
/// fit in it), a multiple of the 16 bytes the system allocator aligns to
/// and not of 64, so that the outputs' cache-line alignment varies as real
/// allocations' does.
const fn offset(k: usize) -> usize {
    k * 272
}

const _: () = assert!(offset(SLOTS - 1) < PAGE);

/// While one lives, the owner thread's small allocations turn through the
/// regions: made around each timed loop.
pub struct Armed(());

impl Armed {
    pub fn new() -> Armed {
        ARMED.store(true, Ordering::Relaxed);
        Armed(())
    }
}

impl Drop for Armed {
    fn drop(&mut self) {
        ARMED.store(false, Ordering::Relaxed);
    }
}

/// The benchmark's global allocator (module docs).
pub struct Rotating;

impl Rotating {
    /// Whether this thread is the one the regions serve.
    fn owns() -> bool {
        let me = THREAD.with(|byte| byte as *const u8 as usize);
        match OWNER.load(Ordering::Relaxed) {
            0 => OWNER
                .compare_exchange(0, me, Ordering::Relaxed, Ordering::Relaxed)
                .map_or_else(|owner| owner == me, |_| true),
            owner => owner == me,
        }
    }

    /// The region `ptr` lies in, if it is one of ours.
    fn region_of(ptr: *mut u8) -> Option<usize> {
        let start = REGIONS.as_ptr() as usize;
        let at = (ptr as usize).checked_sub(start)?;
        let k = at / core::mem::size_of::<Region>();
        (k < SLOTS).then_some(k)
    }
}

// SAFETY: a region's block is handed out only by the owner thread (so by
// one caller at a time), only while its `FREE` flag says no one holds it;
// it lies inside the region (offset < 4096, size ≤ LARGEST, alignment
// padding < 64) and is aligned as asked. Everything else is the system
// allocator's.
unsafe impl GlobalAlloc for Rotating {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.size() <= LARGEST
            && layout.align() <= 64
            && ARMED.load(Ordering::Relaxed)
            && Self::owns()
        {
            let turn = NEXT.load(Ordering::Relaxed);
            NEXT.store(turn.wrapping_add(1), Ordering::Relaxed);
            for i in 0..SLOTS {
                let k = (turn + i) % SLOTS;
                // A load and a store, not a swap: only the owner thread
                // takes a region, and a locked swap would wait for the
                // stores of the call before (a full barrier), twice the
                // time of a 64-byte decode.
                if FREE[k].load(Ordering::Acquire) {
                    FREE[k].store(false, Ordering::Relaxed);
                    let base = REGIONS[k].0.get() as usize + offset(k);
                    let aligned = base.next_multiple_of(layout.align());
                    return aligned as *mut u8;
                }
            }
        }
        // SAFETY: the caller's layout, as `GlobalAlloc::alloc` takes it.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        match Self::region_of(ptr) {
            Some(k) => FREE[k].store(true, Ordering::Release),
            // SAFETY: `ptr` came from `System.alloc` with `layout`.
            None => unsafe { System.dealloc(ptr, layout) },
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let Some(k) = Self::region_of(ptr) else {
            // SAFETY: `ptr` came from `System.alloc` with `layout`.
            return unsafe { System.realloc(ptr, layout, new_size) };
        };
        if new_size <= LARGEST {
            // It fits where it is: a region holds LARGEST bytes from any
            // block it hands out (offset < PAGE, alignment padding < 64).
            return ptr;
        }
        // SAFETY: a valid layout (the caller's alignment, a size that
        // `realloc`'s contract says does not overflow once rounded).
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        // SAFETY: as `alloc`.
        let new = unsafe { self.alloc(new_layout) };
        if !new.is_null() {
            // SAFETY: both blocks hold at least `layout.size()` bytes
            // (new_size > LARGEST ≥ the old size) and do not overlap.
            unsafe { core::ptr::copy_nonoverlapping(ptr, new, layout.size()) };
            FREE[k].store(true, Ordering::Release);
        }
        new
    }
}

/// Panics unless allocations in a timed loop turn through every region's
/// page offset, aligned as asked: the benchmark checks this before it
/// measures, so that a change here cannot quietly measure one placement
/// again.
pub fn check() {
    let _armed = Armed::new();
    let mut seen = [usize::MAX; SLOTS];
    for (i, at) in seen.iter_mut().enumerate() {
        let output = Vec::<u32>::with_capacity(64 + i);
        *at = output.as_ptr() as usize % PAGE;
    }
    let mut sorted = seen;
    sorted.sort_unstable();
    assert!(
        sorted.windows(2).all(|w| w[0] != w[1]),
        "benches/placement: {SLOTS} outputs in a row met at page offsets {seen:?}"
    );
    let layout = Layout::from_size_align(100, 64).expect("a layout");
    // SAFETY: a layout of non-zero size; freed with it at once.
    unsafe {
        let block = std::alloc::alloc(layout);
        assert_eq!(block as usize % 64, 0, "benches/placement: misaligned");
        std::alloc::dealloc(block, layout);
    }
}
