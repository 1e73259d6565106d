//! Decimal numbers as vector cells write them (`-0.009111987`, `1.5e-3`) to f32, correctly
//! rounded (the same bits as `str::parse`) and faster than a general parser for the common
//! case; [`super::embeddings`] falls back to `fast_float2` for anything this leaves.

/// Powers of ten exact in an f64 (5^22 < 2^53).
const EXACT_POWERS: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];
/// The nearest f64s to 10^-k (the compiler rounds each literal correctly).
const INVERSE_POWERS: [f64; 23] = [
    1e0, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11, 1e-12, 1e-13, 1e-14,
    1e-15, 1e-16, 1e-17, 1e-18, 1e-19, 1e-20, 1e-21, 1e-22,
];
/// How near (in f64 units in the last place) an f32 midpoint a product may land and still be
/// rounded to f32 here: the product is within 2 of the exact value (see [`short_decimal`]).
const MIDPOINT_MARGIN: u64 = 4;

/// The f32 a number written the way embeddings are (`-0.009111987`, `1.5e-3`: at most 19
/// digits and a small exponent) stands for, and its length; `None` for anything else, which
/// `fast_float2` then parses. Correctly rounded, like `str::parse`. The digits are exact in
/// an f64 (at most 2^53), and so is 10^k for k ≤ 22; 10^-k is one rounding away. So the
/// product of the digits and the power is within 2 units in the last place of the exact value
/// (two roundings of at most half a unit each, relative 2^-53, and a unit is at least 2^-53
/// of the value). Rounding the product to f32 then gives the f32 nearest the exact value
/// unless an f32 midpoint (every one an f64) lies within those 2 units, where the two could
/// be on different sides of it: a product within [`MIDPOINT_MARGIN`] units of a midpoint is
/// left to `fast_float2`. (A division by 10^k is exact to half a unit and needs the test only
/// at the midpoint itself; it measured the same.) Shortest round-trip f32s have 6 to 9
/// digits, more than `fast_float2`'s own f32 fast path takes (2^24), so most values went
/// through its slower general path before.
pub(super) fn short_decimal(s: &[u8]) -> Option<(f32, usize)> {
    let mut i = 0;
    let negative = s.first() == Some(&b'-');
    i += usize::from(negative);
    let mut mantissa: u64 = 0;
    let int_start = i;
    i = digits_into(s, i, &mut mantissa);
    let mut digits = i - int_start;
    let mut scale = 0i32;
    if s.get(i) == Some(&b'.') {
        i += 1;
        let frac_start = i;
        i = digits_into(s, i, &mut mantissa);
        digits += i - frac_start;
        // "1." and ".5" are numbers to fast_float2 too; they are left to it.
        if i == frac_start || frac_start - 1 == int_start {
            return None;
        }
        scale = -((i - frac_start) as i32);
    } else if i == int_start {
        return None;
    }
    if digits > 19 {
        return None;
    }
    if let Some(b'e' | b'E') = s.get(i) {
        i += 1;
        let minus = match s.get(i) {
            Some(b'-') => {
                i += 1;
                true
            }
            Some(b'+') => {
                i += 1;
                false
            }
            _ => false,
        };
        let exp_start = i;
        let mut exp = 0i32;
        while let Some(&b) = s.get(i).filter(|b| b.is_ascii_digit()) {
            if i - exp_start >= 4 {
                return None;
            }
            exp = exp * 10 + i32::from(b - b'0');
            i += 1;
        }
        if i == exp_start {
            return None;
        }
        scale += if minus { -exp } else { exp };
    }
    Some((rounded(mantissa, scale, negative)?, i))
}

/// The f32 nearest `±mantissa × 10^scale`, or `None` where the product of two f64s may not
/// tell (see [`short_decimal`]).
fn rounded(mantissa: u64, scale: i32, negative: bool) -> Option<f32> {
    if mantissa > 1 << 53 || scale.unsigned_abs() > 22 {
        return None;
    }
    let k = scale.unsigned_abs() as usize;
    let product = mantissa as f64
        * if scale < 0 {
            INVERSE_POWERS[k]
        } else {
            EXACT_POWERS[k]
        };
    // Below f32's normal range an f32 keeps fewer bits, so the midpoint test would not hold.
    let tiny = product != 0.0 && product < f64::from(f32::MIN_POSITIVE);
    if tiny || near_f32_midpoint(product.to_bits()) || product > f64::from(f32::MAX) {
        return None;
    }
    let value = product as f32;
    Some(if negative { -value } else { value })
}

/// Whether the f64 with these bits (an f32's normal range) lies within [`MIDPOINT_MARGIN`]
/// units of a point halfway between two f32s: such an f64 has 1 then 28 zeros in the 29
/// fraction bits an f32 drops.
fn near_f32_midpoint(bits: u64) -> bool {
    (bits & ((1 << 29) - 1)).abs_diff(1 << 28) <= MIDPOINT_MARGIN
}

/// The numbers of `cell` from `at` on that have the shape nearly every coordinate of an
/// embedding has, one digit, a point and 1 to 15 digits (`-0.009111987`), each ending at a
/// comma or the cell's end, pushed to `out` as f32s (correctly rounded, as
/// [`short_decimal`]). Returns where the first number it does not take starts, or `None`
/// when it took every number to the cell's end. It stops at any other shape, or where the
/// product of two f64s may not tell the rounding (next to an f32 midpoint, or digits past
/// 2^53, as in [`rounded`]), for the general path to read that number.
///
/// The commas of 64 bytes are found at once, so each number's end is known before its
/// digits are read: the numbers are then parsed independently, and the processor overlaps
/// them. Found from each number's digits, every number's start had waited on the previous
/// one's arithmetic (a chain of ~35 cycles a number).
pub(super) fn point_decimals(cell: &[u8], mut at: usize, out: &mut Vec<f32>) -> Option<usize> {
    loop {
        let base = at;
        let mut commas = comma_mask(cell, base);
        if commas == 0 {
            // The last number, or a token longer than any of this shape.
            if cell.len() - at > 64 {
                return Some(at);
            }
            let value = point_decimal_to(cell, at, cell.len());
            out.extend(value);
            return value.is_none().then_some(at);
        }
        while commas != 0 {
            let end = base + commas.trailing_zeros() as usize;
            let Some(value) = point_decimal_to(cell, at, end) else {
                return Some(at);
            };
            out.push(value);
            at = end + 1;
            commas &= commas - 1;
        }
    }
}

/// [`point_decimals`]'s number from `at` to `end` (a comma or the cell's end), if it has the
/// shape.
// Left to itself the compiler called it, and `leading_digits` and `load8` from it, out of
// line: forced inline, the parse bench went from 9.6 to 8.4 ns a number.
#[allow(clippy::inline_always)]
#[inline(always)]
fn point_decimal_to(cell: &[u8], at: usize, end: usize) -> Option<f32> {
    let negative = cell.get(at) == Some(&b'-');
    let int = at + usize::from(negative);
    let lead = cell.get(int)?.wrapping_sub(b'0');
    if lead > 9 || cell.get(int + 1) != Some(&b'.') {
        return None;
    }
    let n = end.checked_sub(int + 2)?;
    if n == 0 || n > 15 {
        return None;
    }
    // The byte at `end` is no digit, so each load counts the digits up to it (or eight).
    let (first, high) = leading_digits(load8(cell, int + 2));
    let (second, low) = leading_digits(load8(cell, int + 10));
    let long = n >= 8;
    if first != n.min(8) || (long && second != n - 8) {
        return None;
    }
    let fraction = high * POWERS_U64[n.saturating_sub(8)] + if long { low } else { 0 };
    let mantissa = u64::from(lead) * POWERS_U64[n] + fraction;
    // 0, or between 10^-15 and 10: neither below f32's normal range nor above its largest,
    // so of [`rounded`]'s tests only the midpoint's is left; the sign is set on the bits.
    if mantissa > 1 << 53 {
        return None;
    }
    let bits = (mantissa as f64 * INVERSE_POWERS[n]).to_bits();
    if near_f32_midpoint(bits) {
        return None;
    }
    Some(f64::from_bits(bits | (u64::from(negative) << 63)) as f32)
}

/// Bit `i` set where `cell[base + i]` is a comma, for the 64 bytes from `base` (those past
/// the cell's end are not commas).
#[allow(clippy::inline_always)] // see `point_decimal_to`
#[inline(always)]
fn comma_mask(cell: &[u8], base: usize) -> u64 {
    // Bit `i` for a comma at byte `i` of at most 64 bytes, a byte at a time.
    let commas_in = |bytes: &[u8]| {
        bytes
            .iter()
            .enumerate()
            .fold(0, |m, (i, &b)| m | (u64::from(b == b',') << i))
    };
    let Some(window) = cell.get(base..base + 64) else {
        return commas_in(cell.get(base..).unwrap_or(&[]));
    };
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
        };
        let mut mask = 0u64;
        for (k, sixteen) in window.chunks_exact(16).enumerate() {
            // SAFETY: SSE2 is part of x86_64; the load reads the 16 bytes of `sixteen`.
            // `loadu` reads unaligned memory.
            #[allow(unsafe_code, clippy::cast_ptr_alignment)]
            let bits = unsafe {
                let v = _mm_loadu_si128(sixteen.as_ptr().cast::<__m128i>());
                _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b',' as i8)))
            };
            mask |= u64::from(bits as u16) << (16 * k);
        }
        mask
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        commas_in(window)
    }
}

/// 10^n as integers, for the digits of one or two eight-byte loads.
const POWERS_U64: [u64; 16] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
    1_000_000_000,
    10_000_000_000,
    100_000_000_000,
    1_000_000_000_000,
    10_000_000_000_000,
    100_000_000_000_000,
    1_000_000_000_000_000,
];

/// Add the run of ASCII digits of `s` from `at` to `mantissa` (wrapping past 19 digits:
/// the caller counts them), eight bytes at a time, each load's digits taken at once; where
/// the run ends.
fn digits_into(s: &[u8], mut at: usize, mantissa: &mut u64) -> usize {
    loop {
        let (n, value) = leading_digits(load8(s, at));
        *mantissa = mantissa.wrapping_mul(POWERS_U64[n]).wrapping_add(value);
        at += n;
        if n < 8 {
            return at;
        }
    }
}

/// The eight bytes of `s` from `at` as a little-endian word, padded with zero bytes (not
/// digits) past the end.
#[allow(clippy::inline_always)] // see `point_decimal_to`
#[inline(always)]
fn load8(s: &[u8], at: usize) -> u64 {
    if let Some(eight) = s.get(at..at + 8) {
        u64::from_le_bytes(eight.try_into().unwrap_or([0; 8]))
    } else {
        let mut padded = [0u8; 8];
        let tail = s.get(at..).unwrap_or(&[]);
        padded[..tail.len()].copy_from_slice(tail);
        u64::from_le_bytes(padded)
    }
}

/// How many of the word's bytes, from the first, are ASCII digits (0 to 8), and their value:
/// the digits' values moved to the top of one 64-bit word (the bytes below them stand for
/// leading zeros), then combined pairwise, two, then four, then eight at a time.
#[allow(clippy::inline_always)] // see `point_decimal_to`
#[inline(always)]
fn leading_digits(word: u64) -> (usize, u64) {
    let values = word.wrapping_sub(0x3030_3030_3030_3030);
    // A byte below '0' wraps past 0x7f; one above '9' carries into its top bit when 0x46 is
    // added, or (from 0xba) wraps its value past 0x7f. Borrows and carries run upwards, so
    // the lowest byte flagged is the first that is not a digit, whatever follows it.
    let flagged = (values | word.wrapping_add(0x4646_4646_4646_4646)) & 0x8080_8080_8080_8080;
    let n = (flagged.trailing_zeros() / 8) as usize;
    // The bytes past the digits are shifted out; none at all is a shift of 64: 0.
    let digits = values.checked_shl(8 * (8 - n) as u32).unwrap_or(0);
    let pairs = (digits.wrapping_mul(10) + (digits >> 8)) & 0x00ff_00ff_00ff_00ff;
    let fours = (pairs.wrapping_mul(100) + (pairs >> 16)) & 0x0000_ffff_0000_ffff;
    (
        n,
        (fours.wrapping_mul(10_000) + (fours >> 32)) & 0xffff_ffff,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first number at `at` by [`point_decimals`], and where it ends.
    fn point_decimal(cell: &[u8], at: usize) -> Option<(f32, usize)> {
        let mut out = Vec::new();
        let stop = point_decimals(cell, at, &mut out);
        let end = match stop {
            None => cell.len(),
            Some(s) if s > at => s - 1,
            Some(_) => return None,
        };
        let end = cell[at..end]
            .iter()
            .position(|&b| b == b',')
            .map_or(end, |p| at + p);
        out.first().map(|&v| (v, end))
    }

    #[test]
    fn decimals_next_to_f32_midpoints_round_as_str_parse_rounds_them() {
        // A decimal whose nearest f64 is exactly halfway between two f32s: rounding that f64
        // again would tie to even, but the decimal itself lies on one side. `short_decimal`
        // must leave these to the general parser; without its midpoint test this fails.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut midpoints = 0;
        for _ in 0..20_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            // Magnitudes of embedding values: 1e-4 to 1.
            let a = 1e-4 + (state >> 11) as f32 / (1u64 << 53) as f32;
            let b = f32::from_bits(a.to_bits() + 1);
            let mid = f64::midpoint(f64::from(a), f64::from(b));
            // And decimals a few f64 units either side of it, which a product can cross.
            let near = |units: i64| f64::from_bits(mid.to_bits().wrapping_add_signed(units));
            for text in [format!("{mid:e}"), format!("{mid}"), format!("-{mid}")]
                .into_iter()
                .chain((-6..=6).map(|u| format!("{}", near(u))))
            {
                let want: f32 = text.parse().unwrap();
                let mut v = Vec::new();
                crate::input::embeddings::parse_vector(&text, &mut v).unwrap();
                assert_eq!(v[0].to_bits(), want.to_bits(), "{text}");
                midpoints += usize::from(short_decimal(text.as_bytes()).is_none());
            }
        }
        // The shortest form of most such f64s has at most 17 digits: the fast path saw them
        // and left those within its margin of a midpoint to the general parser.
        assert!(midpoints > 100_000, "{midpoints}");
        // And it takes what embeddings are written as.
        assert_eq!(short_decimal(b"-0.009111987,"), Some((-0.009_111_987, 12)));
        assert_eq!(short_decimal(b"12345678.25"), Some((12_345_678.0, 11)));
        let digits = |b: &[u8]| leading_digits(load8(b, 0));
        assert_eq!(digits(b"01234567"), (8, 1_234_567));
        assert_eq!(digits(b"0123456/"), (7, 123_456));
        assert_eq!(digits(b"0123456:"), (7, 123_456));
        assert_eq!(digits(b"98\xff1"), (2, 98));
        assert_eq!(digits(b"7\xba9"), (1, 7));
        assert_eq!(digits(b",1"), (0, 0));
        assert_eq!(digits(b""), (0, 0));
        assert_eq!(digits(b"999999999"), (8, 99_999_999));
        assert_eq!(short_decimal(b"1.5e-3"), Some((1.5e-3, 6)));
        assert_eq!(short_decimal(b"7"), Some((7.0, 1)));
        for left in [
            &b".5"[..],
            b"5.",
            b"+1",
            b"1e",
            b"1e+",
            b"inf",
            b"-",
            b"0.00000000000000000000001",
        ] {
            assert_eq!(
                short_decimal(left),
                None,
                "{}",
                String::from_utf8_lossy(left)
            );
        }
    }

    #[test]
    fn a_digit_run_ends_at_the_first_byte_that_is_not_a_digit_whatever_follows() {
        // Every byte value at every place of a load, after digits and before any bytes:
        // the borrows and carries of the word arithmetic must not move the end.
        for end in 0..8 {
            for b in 0..=255u8 {
                for after in [0u8, b'0', b'9', 0xff] {
                    let mut bytes = [after; 8];
                    for (k, d) in bytes.iter_mut().take(end).enumerate() {
                        *d = b'1' + (k as u8 % 9);
                    }
                    bytes[end] = b;
                    let (n, value) = leading_digits(u64::from_le_bytes(bytes));
                    let want = bytes.iter().take_while(|c| c.is_ascii_digit()).count();
                    assert_eq!(n, want, "{bytes:?}");
                    let text = std::str::from_utf8(&bytes[..want]).unwrap();
                    assert_eq!(value, text.parse::<u64>().unwrap_or(0), "{bytes:?}");
                }
            }
        }
    }

    #[test]
    fn the_point_shape_reads_every_value_as_str_parse_does() {
        // Shortest forms of f32s of embedding magnitudes, both signs, and the same values
        // written to fixed places (1 to 15 digits after the point, so some decimals land
        // next to f32 midpoints), each alone and followed by a comma.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let (mut fast, mut all) = (0, 0);
        for _ in 0..40_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let magnitude = [1e-6, 1e-3, 0.05, 1.0, 9.9][(state % 5) as usize];
            let x = (magnitude * ((state >> 11) as f64 / (1u64 << 53) as f64)) as f32;
            let x = if state & (1 << 40) == 0 { x } else { -x };
            let places = 1 + (state >> 20) as usize % 15;
            for text in [
                format!("{x}"),
                format!("{x:.places$}"),
                format!("{:.places$}", f64::from(x) + 1e-12),
            ] {
                let want: f32 = text.parse().unwrap();
                for cell in [text.clone(), format!("{text},1")] {
                    all += 1;
                    if let Some((got, end)) = point_decimal(cell.as_bytes(), 0) {
                        fast += 1;
                        assert_eq!(got.to_bits(), want.to_bits(), "{cell}");
                        assert_eq!(end, text.len(), "{cell}");
                    }
                }
            }
        }
        // Most of them take the point shape; the rest (exponents, 16 digits and more,
        // midpoints) are left to the general path.
        assert!(fast * 10 > all * 8, "{fast} of {all}");
        for other in [
            "1e-7",
            ".5",
            "5.",
            "12.5",
            "0.5x",
            "0.5 ",
            "-",
            "0.1234567890123456",
            "",
        ] {
            assert_eq!(point_decimal(other.as_bytes(), 0), None, "{other}");
        }
        assert_eq!(point_decimal(b"1,-0.25,3", 2), Some((-0.25, 7)));
        assert_eq!(
            point_decimal(b"-0.0", 0).map(|(v, _)| v.to_bits()),
            Some((-0.0f32).to_bits())
        );
    }
}
