//! The widening ceilings of `codec.rs`: every byte widened to a wider lane
//! (a `u32` for UTF-32, a `u16` for UTF-16) with the widest stores of the
//! kernel in use (64 bytes for the AVX-512 kernels, 32 for AVX2, 16 for
//! SSE4.1, each with the lines of the output asked for a chunk ahead of
//! the stores, as the kernels' ASCII runs do; what the compiler makes of a
//! plain loop otherwise), nothing checked: right only for ASCII. No
//! decoder can beat it on ASCII, where decoding *is* widening; a row whose
//! decoders run at its speed is bound by stores, not by decoding. The
//! widening loop is chosen once, outside the timed loop, by
//! [`Lane::widener`].

use std::mem::MaybeUninit;
use utf8conform_codec as codec;

/// A lane a byte widens into, and its widening loop per kernel.
pub trait Lane: Copy + From<u8> {
    /// The widening loop of the active kernel: it appends `bytes.len()`
    /// lanes to an empty vector with that much spare capacity.
    fn widener() -> fn(&[u8], &mut Vec<Self>);
}

/// The ceiling's call, as a decoder's would be: an allocation with the
/// decoders' slack, then the widening.
#[inline(always)]
pub fn widen<T: Lane>(bytes: &[u8], widen: fn(&[u8], &mut Vec<T>)) -> Vec<T> {
    let mut out = Vec::with_capacity(bytes.len() + 64);
    widen(bytes, &mut out);
    out
}

/// The kernel family the widening stores follow.
enum Width {
    Avx512,
    Avx2,
    Sse41,
    Plain,
}

fn width() -> Width {
    let kernel = codec::active_kernel().name;
    if cfg!(target_arch = "x86_64") && kernel.starts_with("avx512") {
        Width::Avx512
    } else if cfg!(target_arch = "x86_64") && kernel == "avx2" {
        Width::Avx2
    } else if cfg!(target_arch = "x86_64") && kernel == "sse4.1" {
        Width::Sse41
    } else {
        Width::Plain
    }
}

/// The plain loop, for kernels without wide stores.
fn widen_plain<T: Lane>(bytes: &[u8], out: &mut Vec<T>) {
    out.extend(bytes.iter().map(|&b| T::from(b)));
}

/// Asks for the cache line that holds `at` (a hint: it never faults,
/// whatever the address).
#[inline(always)]
fn prefetch<T>(at: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `prefetcht0` reads nothing the program sees and cannot fault.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(at.cast())
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}

impl Lane for u32 {
    fn widener() -> fn(&[u8], &mut Vec<u32>) {
        match width() {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the active kernel is an AVX-512 one, which the
            // dispatcher chose only after checking AVX-512F/BW.
            Width::Avx512 => |bytes, out| unsafe { x86::to_u32_avx512(bytes, out) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the active kernel is AVX2's, chosen after checking AVX2.
            Width::Avx2 => |bytes, out| unsafe { x86::to_u32_avx2(bytes, out) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the active kernel is SSE4.1's, chosen after checking
            // SSE4.1.
            Width::Sse41 => |bytes, out| unsafe { x86::to_u32_sse41(bytes, out) },
            _ => widen_plain::<u32>,
        }
    }
}

impl Lane for u16 {
    fn widener() -> fn(&[u8], &mut Vec<u16>) {
        match width() {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as for `u32`.
            Width::Avx512 => |bytes, out| unsafe { x86::to_u16_avx512(bytes, out) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as for `u32`.
            Width::Avx2 => |bytes, out| unsafe { x86::to_u16_avx2(bytes, out) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as for `u32`.
            Width::Sse41 => |bytes, out| unsafe { x86::to_u16_sse41(bytes, out) },
            _ => widen_plain::<u16>,
        }
    }
}

/// Widens `bytes` into `out`'s spare capacity, `K` bytes (`K` lanes) per
/// call of `store`, then the rest one by one.
#[inline(always)]
fn widen_with<T: Lane, const K: usize>(
    bytes: &[u8],
    out: &mut Vec<T>,
    store: impl Fn(&[u8; K], &mut [MaybeUninit<T>; K]),
) {
    let dst = &mut out.spare_capacity_mut()[..bytes.len()];
    let mut chunks = bytes.chunks_exact(K);
    for (i, chunk) in chunks.by_ref().enumerate() {
        let lanes: &mut [MaybeUninit<T>; K] =
            (&mut dst[K * i..K * i + K]).try_into().expect("K lanes");
        // The next chunk's lines of output, asked for ahead of its stores,
        // as the codec's kernels widen ASCII runs.
        let line = 64 / core::mem::size_of::<T>();
        for ahead in (K..2 * K).step_by(line) {
            prefetch(lanes.as_ptr().wrapping_add(ahead));
        }
        store(chunk.try_into().expect("K bytes"), lanes);
    }
    let done = bytes.len() - chunks.remainder().len();
    for (lane, &b) in dst[done..].iter_mut().zip(chunks.remainder()) {
        lane.write(T::from(b));
    }
    // SAFETY: every lane of `dst`, `bytes.len()` of them, was written.
    unsafe { out.set_len(bytes.len()) };
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::widen_with;
    use std::arch::x86_64::*;

    #[target_feature(enable = "avx512f")]
    pub fn to_u32_avx512(bytes: &[u8], out: &mut Vec<u32>) {
        widen_with::<u32, 16>(bytes, out, |sixteen, lanes| {
            // SAFETY: `sixteen` is the load's 16 bytes and `lanes` the
            // store's 64; neither needs alignment.
            unsafe {
                let v = _mm512_cvtepu8_epi32(_mm_loadu_si128(sixteen.as_ptr().cast()));
                _mm512_storeu_si512(lanes.as_mut_ptr().cast(), v);
            }
        });
    }

    #[target_feature(enable = "avx2")]
    pub fn to_u32_avx2(bytes: &[u8], out: &mut Vec<u32>) {
        // 32 bytes a call, four stores: with one store a call the loop ran
        // at half the speed of the decoders' own widening (12 against 23
        // GB/s at 4 KiB, measured), no ceiling.
        widen_with::<u32, 32>(bytes, out, |block, lanes| {
            for (eight, lanes) in block.chunks_exact(8).zip(lanes.chunks_exact_mut(8)) {
                // SAFETY: `eight` is the load's 8 bytes and `lanes` the
                // store's 32; neither needs alignment.
                unsafe {
                    let v = _mm256_cvtepu8_epi32(_mm_loadl_epi64(eight.as_ptr().cast()));
                    _mm256_storeu_si256(lanes.as_mut_ptr().cast(), v);
                }
            }
        });
    }

    #[target_feature(enable = "sse4.1")]
    pub fn to_u32_sse41(bytes: &[u8], out: &mut Vec<u32>) {
        // 16 bytes a call, four stores, as the SSE4.1 decoder's runs.
        widen_with::<u32, 16>(bytes, out, |sixteen, lanes| {
            for (four, lanes) in sixteen.chunks_exact(4).zip(lanes.chunks_exact_mut(4)) {
                let four = u32::from_le_bytes(four.try_into().expect("4 bytes"));
                // SAFETY: `lanes` is the store's 16 bytes; no alignment.
                unsafe {
                    let v = _mm_cvtepu8_epi32(_mm_cvtsi32_si128(four as i32));
                    _mm_storeu_si128(lanes.as_mut_ptr().cast(), v);
                }
            }
        });
    }

    #[target_feature(enable = "sse4.1")]
    pub fn to_u16_sse41(bytes: &[u8], out: &mut Vec<u16>) {
        // 32 bytes a call, four stores: a line of output.
        widen_with::<u16, 32>(bytes, out, |block, lanes| {
            for (sixteen, lanes) in block.chunks_exact(16).zip(lanes.chunks_exact_mut(16)) {
                // SAFETY: `sixteen` is the load's 16 bytes and `lanes` the
                // two stores' 32; neither needs alignment.
                unsafe {
                    let v = _mm_loadu_si128(sixteen.as_ptr().cast());
                    _mm_storeu_si128(lanes.as_mut_ptr().cast(), _mm_cvtepu8_epi16(v));
                    let high = _mm_unpackhi_epi8(v, _mm_setzero_si128());
                    _mm_storeu_si128(lanes[8..].as_mut_ptr().cast(), high);
                }
            }
        });
    }

    #[target_feature(enable = "avx512f,avx512bw")]
    pub fn to_u16_avx512(bytes: &[u8], out: &mut Vec<u16>) {
        // 64 bytes a call, two stores, as the decoders' ASCII runs.
        widen_with::<u16, 64>(bytes, out, |block, lanes| {
            for (half, lanes) in block.chunks_exact(32).zip(lanes.chunks_exact_mut(32)) {
                // SAFETY: `half` is the load's 32 bytes and `lanes` the
                // store's 64; neither needs alignment.
                unsafe {
                    let v = _mm512_cvtepu8_epi16(_mm256_loadu_si256(half.as_ptr().cast()));
                    _mm512_storeu_si512(lanes.as_mut_ptr().cast(), v);
                }
            }
        });
    }

    #[target_feature(enable = "avx2")]
    pub fn to_u16_avx2(bytes: &[u8], out: &mut Vec<u16>) {
        // 32 bytes a call, two stores, as the decoders' ASCII runs.
        widen_with::<u16, 32>(bytes, out, |block, lanes| {
            for (half, lanes) in block.chunks_exact(16).zip(lanes.chunks_exact_mut(16)) {
                // SAFETY: `half` is the load's 16 bytes and `lanes` the
                // store's 32; neither needs alignment.
                unsafe {
                    let v = _mm256_cvtepu8_epi16(_mm_loadu_si128(half.as_ptr().cast()));
                    _mm256_storeu_si256(lanes.as_mut_ptr().cast(), v);
                }
            }
        });
    }
}
