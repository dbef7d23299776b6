//! A small exact binary encoding of task results (for the result cache and
//! shard files, [`crate::core::cache`], [`crate::core::shard`]).
//!
//! Integers are little-endian fixed width, `f64` are their bit patterns
//! (so NaN, ±∞ and −0 come back exactly and a fold of decoded runs gives
//! the same bytes as a fold of the runs themselves), sequences are a
//! `u64` length then the items. A [`Dec`] never panics: reading past the
//! end or a length that cannot fit is an error, and a decoder checks that
//! every byte was used ([`Dec::finish`]).

use std::time::Duration;

use crate::core::error::{Error, Result};

/// Appends values to a byte buffer.
#[derive(Debug)]
pub struct Enc<'a> {
    out: &'a mut Vec<u8>,
}

impl<'a> Enc<'a> {
    /// Append to `out`.
    pub fn new(out: &'a mut Vec<u8>) -> Self {
        Self { out }
    }
    /// One byte.
    pub fn u8(&mut self, v: u8) {
        self.out.push(v);
    }
    /// A flag.
    pub fn bool(&mut self, v: bool) {
        self.u8(u8::from(v));
    }
    /// A `u32`.
    pub fn u32(&mut self, v: u32) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }
    /// A `u64`.
    pub fn u64(&mut self, v: u64) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }
    /// A `u128`.
    pub fn u128(&mut self, v: u128) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }
    /// A `usize` (as `u64`).
    pub fn usize(&mut self, v: usize) {
        self.u64(v as u64);
    }
    /// An `f64`, bit for bit.
    pub fn f64(&mut self, v: f64) {
        self.u64(v.to_bits());
    }
    /// A duration, in nanoseconds (saturating).
    pub fn duration(&mut self, v: Duration) {
        self.u64(u64::try_from(v.as_nanos()).unwrap_or(u64::MAX));
    }
    /// An optional value.
    pub fn option<T>(&mut self, v: Option<&T>, mut f: impl FnMut(&mut Self, &T)) {
        match v {
            None => self.u8(0),
            Some(x) => {
                self.u8(1);
                f(self, x);
            }
        }
    }
    /// A sequence.
    pub fn seq<T>(&mut self, items: &[T], mut f: impl FnMut(&mut Self, &T)) {
        self.usize(items.len());
        for x in items {
            f(self, x);
        }
    }
    /// A sequence of `u64`.
    pub fn u64s(&mut self, items: &[u64]) {
        self.seq(items, |e, &v| e.u64(v));
    }
    /// A sequence of `u32`.
    pub fn u32s(&mut self, items: &[u32]) {
        self.seq(items, |e, &v| e.u32(v));
    }
    /// A sequence of `f64`.
    pub fn f64s(&mut self, items: &[f64]) {
        self.seq(items, |e, &v| e.f64(v));
    }
    /// A sequence of `usize`.
    pub fn usizes(&mut self, items: &[usize]) {
        self.seq(items, |e, &v| e.usize(v));
    }
}

/// Reads values back in the order [`Enc`] wrote them.
#[derive(Debug)]
pub struct Dec<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Dec<'a> {
    /// Read `bytes` from the start.
    pub fn new(bytes: &'a [u8]) -> Self {
        Self { bytes, at: 0 }
    }
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| {
                Error::input(format!(
                    "encoded run truncated at byte {} (needs {n} more, {} left)",
                    self.at,
                    self.bytes.len() - self.at
                ))
            })?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }
    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }
    /// One byte.
    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }
    /// A flag (0 or 1).
    pub fn bool(&mut self) -> Result<bool> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(Error::input(format!(
                "encoded run: expected a flag (0 or 1) at byte {}, got {b}",
                self.at - 1
            ))),
        }
    }
    /// A `u32`.
    pub fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    /// A `u64`.
    pub fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.array()?))
    }
    /// A `u128`.
    pub fn u128(&mut self) -> Result<u128> {
        Ok(u128::from_le_bytes(self.array()?))
    }
    /// A `usize`.
    pub fn usize(&mut self) -> Result<usize> {
        let v = self.u64()?;
        usize::try_from(v)
            .map_err(|_| Error::input(format!("encoded run: {v} does not fit this machine")))
    }
    /// An `f64`, bit for bit.
    pub fn f64(&mut self) -> Result<f64> {
        Ok(f64::from_bits(self.u64()?))
    }
    /// A duration written by [`Enc::duration`].
    pub fn duration(&mut self) -> Result<Duration> {
        Ok(Duration::from_nanos(self.u64()?))
    }
    /// An optional value.
    pub fn option<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<Option<T>> {
        if self.bool()? {
            f(self).map(Some)
        } else {
            Ok(None)
        }
    }
    /// A sequence; `min_item` is the fewest bytes one item takes (a length
    /// that cannot fit in what is left is refused before allocating).
    pub fn seq<T>(
        &mut self,
        min_item: usize,
        mut f: impl FnMut(&mut Self) -> Result<T>,
    ) -> Result<Vec<T>> {
        let n = self.usize()?;
        let left = self.bytes.len() - self.at;
        if n.saturating_mul(min_item.max(1)) > left && !(min_item == 0 && n == 0) {
            return Err(Error::input(format!(
                "encoded run: a list of {n} items cannot fit in the {left} bytes left"
            )));
        }
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            v.push(f(self)?);
        }
        Ok(v)
    }
    /// A sequence of `u64`.
    pub fn u64s(&mut self) -> Result<Vec<u64>> {
        self.seq(8, Self::u64)
    }
    /// A sequence of `u32`.
    pub fn u32s(&mut self) -> Result<Vec<u32>> {
        self.seq(4, Self::u32)
    }
    /// A sequence of `f64`.
    pub fn f64s(&mut self) -> Result<Vec<f64>> {
        self.seq(8, Self::f64)
    }
    /// A sequence of `usize`.
    pub fn usizes(&mut self) -> Result<Vec<usize>> {
        self.seq(8, Self::usize)
    }
    /// Every byte was read.
    pub fn finish(self) -> Result<()> {
        if self.at == self.bytes.len() {
            Ok(())
        } else {
            Err(Error::input(format!(
                "encoded run: {} unread bytes after the run",
                self.bytes.len() - self.at
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_come_back_bit_for_bit() {
        let mut buf = Vec::new();
        let mut e = Enc::new(&mut buf);
        let floats = [0.1, -0.0, f64::NAN, f64::INFINITY, f64::MIN_POSITIVE / 3.0];
        e.f64s(&floats);
        e.option(Some(&7u64), |e, &v| e.u64(v));
        e.option(None::<&u64>, |e, &v| e.u64(v));
        e.u128(u128::MAX - 5);
        e.bool(true);
        e.duration(Duration::from_nanos(123_456_789));
        let mut d = Dec::new(&buf);
        let back = d.f64s().expect("floats");
        let bits: Vec<u64> = back.iter().map(|f| f.to_bits()).collect();
        let want: Vec<u64> = floats.iter().map(|f| f.to_bits()).collect();
        assert_eq!(bits, want);
        assert_eq!(d.option(Dec::u64).expect("some"), Some(7));
        assert_eq!(d.option(Dec::u64).expect("none"), None);
        assert_eq!(d.u128().expect("u128"), u128::MAX - 5);
        assert!(d.bool().expect("flag"));
        assert_eq!(d.duration().expect("d"), Duration::from_nanos(123_456_789));
        d.finish().expect("all read");
    }

    #[test]
    fn truncated_or_oversized_input_is_an_error_not_a_panic() {
        let mut buf = Vec::new();
        Enc::new(&mut buf).f64s(&[1.0, 2.0]);
        for cut in 0..buf.len() {
            assert!(Dec::new(&buf[..cut]).f64s().is_err(), "cut at {cut}");
        }
        let mut huge = Vec::new();
        Enc::new(&mut huge).u64(u64::MAX);
        assert!(Dec::new(&huge).f64s().is_err());
        let mut extra = buf.clone();
        extra.push(0);
        let mut d = Dec::new(&extra);
        d.f64s().expect("list");
        assert!(d.finish().is_err());
    }
}
